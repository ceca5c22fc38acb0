/* reconcile/plan/capture.c: the capture pass (ADR-0084 decision 5), per node.
 *
 * The only code that creates or removes an object whose name has the
 * capture prefix. It sees the node as the plan leaves it (the plan's queue
 * creates and deletes laid over the snapshot), so a plan's preview names
 * exactly what the pass after its operations does; apply runs it again on
 * the node as read after the operations, and the daemon on every drift
 * cycle. docs/captures.md. */
#include "plan-int.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/sbuf.h"
#include "../../lib/xalloc.h"

bool
plan_capture_covers(const char *prefix, const char *pattern, const char *queue,
    const char *address, bool internal)
{
	if (internal || plan_has_prefix(queue, prefix) ||
	    plan_has_prefix(address, prefix))
		return false;
	return decl_glob_match(pattern, queue);
}

void
plan_capture_unmanaged(const struct decl_cluster *decl, char ***addresses,
    size_t *naddresses, char ***queues, size_t *nqueues)
{
	struct strv a = {0}, q = {0};
	const struct decl_address *da;
	size_t i, j;

	for (i = 0; i < decl->naddresses; i++) {
		da = &decl->addresses[i];
		if (da->policy.unmanaged)
			strv_add(&a, da->name);
		for (j = 0; j < da->nqueues; j++)
			if (da->policy.unmanaged ||
			    da->queues[j].policy.unmanaged)
				strv_add(&q, da->queues[j].name);
	}
	strv_sort(&a);
	strv_sort(&q);
	*addresses = a.v;
	*naddresses = a.n;
	*queues = q.v;
	*nqueues = q.n;
}

/* Why the pass leaves queue (on address) out: it is, or its address is,
 * declared with managed: false; NULL when it does not. */
static const char *
left_alone(const struct plan_capture_ctx *x, const char *queue,
    const char *address)
{
	if (strv_array_has(x->unmanaged_addresses, x->nunmanaged_addresses,
	        address))
		return "its address is declared with managed: false";
	if (strv_array_has(x->unmanaged_queues, x->nunmanaged_queues, queue))
		return "it is declared with managed: false";
	return NULL;
}

/* Does cap cover the node's queue q, one the pass may tap? */
static bool
taps(const struct plan_capture_node *c, const struct decl_capture *cap,
    const struct plan_capture_queue *q)
{
	return plan_capture_covers(c->ctx->prefix, cap->pattern, q->name,
	           q->address, q->internal) &&
	       left_alone(c->ctx, q->name, q->address) == NULL;
}

/* The node's queues as the plan leaves them: the live ones but those it
 * deletes or (re)creates, then its creates. The live queues are sorted by
 * name, so each named one is found by binary search and marked. */
static void
after_plan(struct plan_capture_node *c)
{
	const struct plan_capture_ctx *x = c->ctx;
	const struct recon_node_snapshot *n = c->n;
	const struct recon_queue *lq;
	bool *gone = xcalloc(n->nqueues + 1, sizeof(*gone));
	size_t i;

	for (i = 0; i < x->ndeleted_queues; i++)
		if ((lq = recon_node_find_queue(n, x->deleted_queues[i])) !=
		    NULL)
			gone[lq - n->queues] = true;
	for (i = 0; i < x->ncreated; i++)
		if ((lq = recon_node_find_queue(n, x->created_queues[i])) !=
		    NULL)
			gone[lq - n->queues] = true;
	c->q = xcalloc(n->nqueues + x->ncreated + 1, sizeof(*c->q));
	for (i = 0; i < n->nqueues; i++) {
		if (gone[i])
			continue;
		c->q[c->nq].name = n->queues[i].name;
		c->q[c->nq].address = n->queues[i].address;
		c->q[c->nq++].internal = n->queues[i].internal;
	}
	free(gone);
	for (i = 0; i < x->ncreated; i++) {
		c->q[c->nq].name = x->created_queues[i];
		c->q[c->nq++].address = x->created_queue_addresses[i];
	}
}

/* The ring queue a capture asks for. Strings are owned by out. */
static void
ring_queue(struct recon_queue *out, const char *name, int64_t ring)
{
	memset(out, 0, sizeof(*out));
	out->name = xstrdup(name);
	out->address = xstrdup(name);
	out->routing = DECL_ANYCAST;
	out->durable = false;
	out->max_consumers = -1;
	out->ring_size = ring;
	out->enabled = true;
	out->delay_before_dispatch = -1;
}

/* A capture's tap on address. Strings are owned by out. */
static void
tap_divert(struct recon_divert *out, const char *capaddr, const char *address)
{
	memset(out, 0, sizeof(*out));
	out->name = xasprintf("%s.%s", capaddr, address);
	out->routing_name = xstrdup(out->name);
	out->address = xstrdup(address);
	out->forwarding_address = xstrdup(capaddr);
	out->exclusive = false;
	out->routing_type = DECL_DIVERT_ANYCAST;
}

static void
tap_diffs(struct sbuf *b, const struct recon_divert *want,
    const struct recon_divert *live)
{
	if (!recon_str_eq(want->address, live->address))
		sbuf_adds(b, ", address");
	if (!recon_str_eq(want->forwarding_address, live->forwarding_address))
		sbuf_adds(b, ", forwarding-address");
	if (want->exclusive != live->exclusive)
		sbuf_adds(b, ", exclusive");
	if (!recon_str_eq(want->filter, live->filter))
		sbuf_adds(b, ", filter");
	if (want->routing_type != live->routing_type)
		sbuf_adds(b, ", routing-type");
	if (!recon_str_eq(want->routing_name, live->routing_name))
		sbuf_adds(b, ", routing-name");
	if (live->transformer_class_name != NULL &&
	    live->transformer_class_name[0] != '\0')
		sbuf_adds(b, ", transformer");
}

/* Fields of the ring queue: those updateQueue cannot change go to re,
 * the others to up. */
static void
ring_diffs(struct sbuf *re, struct sbuf *up, const struct recon_queue *want,
    const struct recon_queue *live)
{
	if (strcmp(want->address, live->address) != 0)
		sbuf_adds(re, ", address");
	if (want->durable != live->durable)
		sbuf_adds(re, ", durable");
	if (!recon_str_eq(want->last_value_key, live->last_value_key))
		sbuf_adds(re, ", last-value-key");
	if (want->routing != live->routing)
		sbuf_adds(up, ", routing-type");
	if (!recon_str_eq(want->filter, live->filter))
		sbuf_adds(up, ", filter");
	if (want->max_consumers != live->max_consumers)
		sbuf_adds(up, ", max-consumers");
	if (want->purge_on_no_consumers != live->purge_on_no_consumers)
		sbuf_adds(up, ", purge-on-no-consumers");
	if (want->exclusive != live->exclusive)
		sbuf_adds(up, ", exclusive");
	if (want->ring_size != live->ring_size)
		sbuf_adds(up, ", ring-size");
	if (want->enabled != live->enabled)
		sbuf_adds(up, ", enabled");
	if (want->consumers_before_dispatch != live->consumers_before_dispatch)
		sbuf_adds(up, ", consumers-before-dispatch");
	if (want->delay_before_dispatch != live->delay_before_dispatch)
		sbuf_adds(up, ", delay-before-dispatch");
}

static void
ring_recreate(struct plan_capture_node *c, struct plan_step *np,
    const struct recon_queue *live, const struct recon_queue *want)
{
	struct recon_op *op;

	plan_capture_ring_consumers(np, live, c->ctx->disconnect_consumers);
	op = plan_step_add_op(np, RECON_OP_DESTROY_QUEUE, live->name);
	op->remove_consumers = c->ctx->disconnect_consumers;
	op = plan_step_add_op(np, RECON_OP_CREATE_QUEUE, want->name);
	op->queue = recon_queue_dup(want);
}

/* The ring queue exists but differs from what the capture asks for. */
static void
capture_change(struct plan_capture_node *c, const struct recon_queue *lq,
    const struct recon_queue *want)
{
	struct sbuf re = {0}, up = {0};
	struct plan_step *np;
	struct recon_op *op;

	ring_diffs(&re, &up, want, lq);
	if (re.len + up.len > 0) {
		np = plan_capture_add_step(c, PLAN_ACT_CHANGE_CAPTURE, lq->name,
		    lq->name);
		np->observed.present = true;
		np->observed.queue = recon_queue_dup(lq);
		sbuf_adds(&re, sbuf_str(&up));
		np->message =
		    xasprintf("the ring queue differs: %s%s", sbuf_str(&re) + 2,
		        up.len < re.len ? " (destroyed and created again: "
		                          "its copies go with it)"
		                        : "");
		if (up.len < re.len) {
			ring_recreate(c, np, lq, want);
		} else {
			op = plan_step_add_op(np, RECON_OP_UPDATE_QUEUE,
			    lq->name);
			op->queue = recon_queue_dup(want);
		}
	}
	sbuf_release(&re);
	sbuf_release(&up);
}

/* The capture address and its ring queue. */
static void
capture_home(struct plan_capture_node *c, const struct decl_capture *cap,
    const char *capaddr)
{
	const struct recon_address *la = recon_node_find_address(c->n, capaddr);
	const struct recon_queue *lq = recon_node_find_queue(c->n, capaddr);
	bool anycast = la != NULL && (la->routing & DECL_ANYCAST) != 0;
	struct plan_step *np;
	struct recon_queue want;
	struct recon_op *op;

	ring_queue(&want, capaddr, cap->ring_size);
	assert(lq == NULL || lq->unread == 0); /* scope.c: a ring */
	if (!anycast || lq == NULL) {
		np = plan_capture_add_step(c, PLAN_ACT_CREATE_CAPTURE, capaddr,
		    capaddr);
		np->message = xasprintf(
		    "capture '%s' (pattern '%s'): its capture address and ring queue (ring-size %lld)",
		    cap->name, cap->pattern, (long long)cap->ring_size);
		if (la == NULL) {
			op = plan_step_add_op(np, RECON_OP_CREATE_ADDRESS,
			    capaddr);
			op->routing = DECL_ANYCAST;
		} else if (!anycast) {
			np->observed.present = true;
			np->observed.address_routing = la->routing;
			op = plan_step_add_op(np, RECON_OP_UPDATE_ADDRESS,
			    capaddr);
			op->routing = la->routing | DECL_ANYCAST;
		}
		if (lq == NULL) {
			op = plan_step_add_op(np, RECON_OP_CREATE_QUEUE,
			    capaddr);
			op->queue = recon_queue_dup(&want);
		}
	}
	if (lq != NULL)
		capture_change(c, lq, &want);
	recon_queue_release(&want);
}

/* "'a', 'b'" of the queues on address that cap covers. */
static char *
covering(const struct plan_capture_node *c, const struct decl_capture *cap,
    const char *address)
{
	struct strv v = {0};
	struct sbuf b = {0};
	size_t i;

	for (i = 0; i < c->nq; i++)
		if (strcmp(c->q[i].address, address) == 0 &&
		    taps(c, cap, &c->q[i]))
			strv_add(&v, c->q[i].name);
	strv_sort(&v);
	for (i = 0; i < v.n; i++)
		sbuf_addf(&b, "%s'%s'", i > 0 ? ", " : "", v.v[i]);
	strv_release(&v);
	return sbuf_take(&b);
}

/* The addresses cap covers on the node as the plan leaves it, sorted; a
 * matching queue left alone (managed: false) is said in out's skipped. */
static void
covered(struct strv *out, struct plan_capture_node *c,
    const struct decl_capture *cap)
{
	struct plan_capture_steps *s = c->out;
	const char *why;
	size_t i;

	for (i = 0; i < c->nq; i++) {
		if (!plan_capture_covers(c->ctx->prefix, cap->pattern,
		        c->q[i].name, c->q[i].address, c->q[i].internal))
			continue;
		why = left_alone(c->ctx, c->q[i].name, c->q[i].address);
		if (why != NULL) {
			s->skipped = xreallocarray(s->skipped, s->nskipped + 2,
			    sizeof(*s->skipped));
			s->skipped[s->nskipped++] = xasprintf(
			    "capture '%s' (pattern '%s') leaves queue '%s' on '%s' out: %s (no tap for it)",
			    cap->name, cap->pattern, c->q[i].name,
			    c->q[i].address, why);
			s->skipped[s->nskipped] = NULL;
			continue;
		}
		if (!strv_has(out, c->q[i].address))
			strv_add(out, c->q[i].address);
	}
	strv_sort(out);
}

static void
tap_want(struct plan_capture_node *c, const struct decl_capture *cap,
    const char *capaddr, const char *address)
{
	const struct recon_divert *live;
	struct plan_step *np;
	struct recon_divert want;
	struct sbuf b = {0};
	struct recon_op *op;
	char *list;

	tap_divert(&want, capaddr, address);
	live = recon_node_find_divert(c->n, want.name);
	if (live != NULL)
		tap_diffs(&b, &want, live);
	if (live == NULL || b.len > 0) {
		list = covering(c, cap, address);
		np = plan_capture_add_step(c,
		    live == NULL ? PLAN_ACT_CREATE_TAP : PLAN_ACT_CHANGE_TAP,
		    want.name, address);
		np->message = xasprintf(
		    "capture '%s' (pattern '%s') covers '%s' through queue %s%s%s",
		    cap->name, cap->pattern, address, list,
		    b.len > 0 ? "; the tap differs: " : "",
		    b.len > 0 ? sbuf_str(&b) + 2 : "");
		free(list);
		if (live != NULL) {
			np->observed.present = true;
			np->observed.divert = recon_divert_dup(live);
			op = plan_step_add_op(np, RECON_OP_DESTROY_DIVERT,
			    live->name);
			op->divert = recon_divert_dup(live);
		}
		op = plan_step_add_op(np, RECON_OP_CREATE_DIVERT, want.name);
		op->divert = recon_divert_dup(&want);
	}
	sbuf_release(&b);
	recon_divert_release(&want);
}

/* One declared capture on the node. */
static void
capture_declared(struct plan_capture_node *c, const struct decl_capture *cap)
{
	struct strv cov = {0};
	char *capaddr, *tapfx, *why;
	size_t i, len;

	capaddr = xasprintf("%s%s", c->ctx->prefix, cap->name);
	tapfx = xasprintf("%s.", capaddr);
	len = strlen(tapfx);
	capture_home(c, cap, capaddr);
	covered(&cov, c, cap);
	for (i = 0; i < cov.n; i++)
		tap_want(c, cap, capaddr, cov.v[i]);
	for (i = 0; i < c->n->ndiverts; i++) {
		const struct recon_divert *d = &c->n->diverts[i];

		if (strncmp(d->name, tapfx, len) != 0 ||
		    strv_has(&cov, d->name + len))
			continue;
		why =
		    strv_array_has(c->ctx->unmanaged_addresses,
		        c->ctx->nunmanaged_addresses, d->name + len)
		        ? xasprintf(
		              "address '%s' is declared with managed: false: the capture pass removes its tap of capture '%s' and puts none there",
		              d->name + len, cap->name)
		        : xasprintf(
		              "no queue on '%s' matches capture '%s' (pattern '%s') once the plan's queue changes are done: the capture pass removes the tap",
		              d->name + len, cap->name, cap->pattern);
		plan_capture_tap_remove(c, d, why);
		free(why);
	}
	strv_release(&cov);
	free(tapfx);
	free(capaddr);
}

static int
cmp_line(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int
cmp_step(const void *a, const void *b)
{
	const struct plan_capture_step *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return strcmp(x->name, y->name);
}

void
plan_capture_pass(struct plan_capture_steps *out,
    const struct recon_node_snapshot *n, const struct plan_capture_ctx *ctx)
{
	struct plan_capture_node c;
	size_t i;

	if (n == NULL || n->refusal.kind != RECON_OK || ctx->prefix == NULL ||
	    ctx->prefix[0] == '\0')
		return; /* no prefix: nothing is reserved, nothing to own */
	memset(&c, 0, sizeof(c));
	c.n = n;
	c.ctx = ctx;
	c.out = out;
	after_plan(&c);
	for (i = 0; i < ctx->ncaptures; i++)
		capture_declared(&c, &ctx->captures[i]);
	for (i = 0; i < ctx->nremoved; i++)
		plan_capture_removed(&c, ctx->removed[i]);
	free(c.q);
	if (out->n > 1)
		qsort(out->v, out->n, sizeof(*out->v), cmp_step);
	if (out->nskipped > 1)
		qsort(out->skipped, out->nskipped, sizeof(*out->skipped),
		    cmp_line);
}

void
plan_capture_steps_release(struct plan_capture_steps *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		free(s->v[i].name);
		free(s->v[i].address);
		plan_step_release(&s->v[i].np);
	}
	free(s->v);
	strv_array_free(s->skipped, s->nskipped);
	memset(s, 0, sizeof(*s));
}
