/* reconcile/plan/capture-steps.c: the steps of the capture pass: a new
 * step, the D6 rule for a ring queue about to go, and the removal half:
 * taps whose address is no longer covered, and everything a capture no
 * longer declared owns (docs/captures.md). */
#include "plan-int.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/xalloc.h"

struct plan_step *
plan_capture_add_step(struct plan_capture_node *c, enum plan_action_kind kind,
    const char *name, const char *address)
{
	struct plan_capture_steps *s = c->out;
	struct plan_capture_step *st;

	s->v = xreallocarray(s->v, s->n + 1, sizeof(*s->v));
	st = &s->v[s->n++];
	memset(st, 0, sizeof(*st));
	st->kind = kind;
	st->name = xstrdup(name);
	st->address = xstrdup(address);
	st->np.node = xstrdup(c->n->node);
	st->np.outcome = PLAN_OUT_WOULD_APPLY;
	return &st->np;
}

/* A ring queue with consumers is destroyed only with the flag (D6). */
void
plan_capture_ring_consumers(struct plan_step *np, const struct recon_queue *q,
    bool flag)
{
	assert((q->unread & RECON_QUEUE_NO_COUNTS) == 0); /* scope.c: a ring */
	np->consumers = q->consumer_count;
	if (q->consumer_count <= 0)
		return;
	if (!flag) {
		plan_step_refuse(np, "HAS_CONSUMERS",
		    "stop the consumers of the capture ring, or plan again with --disconnect-consumers to close them",
		    "capture ring '%s' has %lld consumer%s on this node",
		    q->name, (long long)q->consumer_count,
		    q->consumer_count == 1 ? "" : "s");
		np->refusal_kind = RECON_HAS_CONSUMERS;
		return;
	}
	plan_step_warn(np,
	    "--disconnect-consumers: %lld consumer%s of capture ring '%s' will be disconnected",
	    (long long)q->consumer_count, q->consumer_count == 1 ? "" : "s",
	    q->name);
}

void
plan_capture_tap_remove(struct plan_capture_node *c,
    const struct recon_divert *d, const char *why)
{
	struct plan_step *np;
	struct recon_op *op;

	np = plan_capture_add_step(c, PLAN_ACT_DELETE_TAP, d->name, d->address);
	np->message = xstrdup(why);
	np->observed.present = true;
	np->observed.divert = recon_divert_dup(d);
	op = plan_step_add_op(np, RECON_OP_DESTROY_DIVERT, d->name);
	op->divert = recon_divert_dup(d);
}

/* The bindings left on the capture address once its queue is gone. */
static size_t
other_bindings(const struct recon_address *la, const char *capaddr)
{
	size_t i, n = 0;

	for (i = 0; i < la->nbinding_names; i++)
		n += strcmp(la->binding_names[i], capaddr) != 0;
	for (i = 0; i < la->nqueue_names; i++)
		n += strcmp(la->queue_names[i], capaddr) != 0 &&
		     !strv_array_has((const char *const *)la->binding_names,
		         la->nbinding_names, la->queue_names[i]);
	return n;
}

static void
capture_drop_home(struct plan_capture_node *c, const char *name,
    const char *capaddr)
{
	const struct recon_address *la = recon_node_find_address(c->n, capaddr);
	const struct recon_queue *lq = recon_node_find_queue(c->n, capaddr);
	struct plan_step *np;
	struct recon_op *op;

	if (la == NULL && lq == NULL)
		return;
	np =
	    plan_capture_add_step(c, PLAN_ACT_DELETE_CAPTURE, capaddr, capaddr);
	np->observed.present = true;
	if (lq != NULL) {
		assert(lq->unread == 0); /* scope.c: a ring */
		np->observed.queue = recon_queue_dup(lq);
		plan_capture_ring_consumers(np, lq,
		    c->ctx->disconnect_consumers);
		op = plan_step_add_op(np, RECON_OP_DESTROY_QUEUE, capaddr);
		op->remove_consumers = c->ctx->disconnect_consumers;
	}
	if (la != NULL && other_bindings(la, capaddr) == 0)
		plan_step_add_op(np, RECON_OP_DELETE_ADDRESS, capaddr);
	else if (la != NULL)
		plan_step_warn(np,
		    "capture address '%s' kept on this node: other bindings stay on it",
		    capaddr);
	if (np->message == NULL)
		np->message = xasprintf(
		    "capture '%s' is no longer declared: its ring queue and capture address go (the ring holds %lld copies, not counted by the bulk cap)",
		    name, (long long)(lq != NULL ? lq->message_count : 0));
}

void
plan_capture_removed(struct plan_capture_node *c, const char *name)
{
	char *capaddr, *tapfx, *why;
	size_t i, len;

	capaddr = xasprintf("%s%s", c->ctx->prefix, name);
	tapfx = xasprintf("%s.", capaddr);
	len = strlen(tapfx);
	why = xasprintf(
	    "capture '%s' is no longer declared: the capture pass removes every tap of it",
	    name);
	for (i = 0; i < c->n->ndiverts; i++)
		if (strncmp(c->n->diverts[i].name, tapfx, len) == 0)
			plan_capture_tap_remove(c, &c->n->diverts[i], why);
	capture_drop_home(c, name, capaddr);
	free(why);
	free(tapfx);
	free(capaddr);
}
