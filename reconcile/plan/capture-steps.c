/* reconcile/capture-del.c: the capture pass, removal half: taps whose
 * address is no longer covered, and everything a capture no longer
 * declared owns (docs/captures.md). */
#include "capture-int.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/xalloc.h"

void
plan_capture_tap_remove(struct plan_capture_node *c, const struct recon_divert *d,
    const char *why)
{
	struct plan_step *np;
	struct recon_op *op;

	np = plan_capture_add_step(c, PLAN_ACT_DELETE_TAP, d->name,
	    d->address);
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
capture_drop_home(struct plan_capture_node *c, const char *name, const char *capaddr)
{
	const struct recon_address *la = recon_node_find_address(c->n, capaddr);
	const struct recon_queue *lq = recon_node_find_queue(c->n, capaddr);
	struct plan_step *np;
	struct recon_op *op;

	if (la == NULL && lq == NULL)
		return;
	np = plan_capture_add_step(c, PLAN_ACT_DELETE_CAPTURE, capaddr,
	    capaddr);
	np->observed.present = true;
	if (lq != NULL) {
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
