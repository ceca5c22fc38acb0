/* reconcile/apply-qdel.c: queue deletes and recreates at apply time: the
 * planner's preflight (ADR-0084 D1-D6) run again on the node read now,
 * compared with what the plan recorded. */
#include "apply-int.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/sbuf.h"
#include "../../lib/xalloc.h"

/* A stand-in for the declaration, which apply does not have: the mode,
 * the settings and the capture subscriptions the plan recorded, so the
 * preflight leaves the same taps alone for the same reasons. Strings are
 * borrowed from p; free decl->captures. What else the preflight takes from
 * a declaration (is a removed divert declared?) only words warnings, which
 * apply does not compare. */
static void
standin_decl(struct decl_cluster *decl, const struct recon_plan *p)
{
	size_t i;

	memset(decl, 0, sizeof(*decl));
	decl->name = p->cluster;
	decl->mode = p->mode;
	decl->settings.capture_prefix = p->capture_prefix;
	decl->settings.max_destroyed_messages = p->max_destroyed_messages;
	decl->ncaptures = p->ncaptures;
	decl->captures = xcalloc(p->ncaptures + 1, sizeof(*decl->captures));
	for (i = 0; i < p->ncaptures; i++) {
		decl->captures[i].name = p->capture_names[i];
		decl->captures[i].pattern = p->capture_patterns[i];
		decl->captures[i].ring_size = p->capture_ring_sizes[i];
	}
}

/* The planner's context for a queue delete on this node, from the plan's
 * earlier actions. decl is a stand-in (apply has no declaration): it gives
 * the capture prefix, so the same taps are left alone; what the preflight
 * takes from a declaration beyond that only words warnings. */
static void
qdel_ctx(struct recon_qdel_ctx *ctx, const struct decl_cluster *decl,
    const struct recon_plan *p, const struct recon_apply_ctx *c)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->decl = decl;
	ctx->disconnect_consumers = p->disconnect_consumers;
	ctx->created_queues = (const char *const *)c->created_q.v;
	ctx->created_queue_addresses = (const char *const *)c->created_q_addr.v;
	ctx->ncreated = c->created_q.n;
	ctx->deleted_queues = (const char *const *)c->deleted_q.v;
	ctx->ndeleted_queues = c->deleted_q.n;
	ctx->deleted_diverts = (const char *const *)c->deleted_d.v;
	ctx->ndeleted_diverts = c->deleted_d.n;
	ctx->planned_diverts =
	    (const struct recon_divert *const *)c->planned_d.v;
	ctx->nplanned_diverts = c->planned_d.n;
}

/* "'a', 'b'" of the operations' names of kind k; owned. */
static char *
op_names(const struct recon_node_plan *np, enum recon_opk k)
{
	struct sbuf b = {0};
	size_t i;

	for (i = 0; i < np->nops; i++)
		if (np->ops[i].kind == k)
			sbuf_addf(&b, "%s'%s'", b.len > 0 ? ", " : "",
			    np->ops[i].name);
	if (b.len == 0)
		sbuf_adds(&b, "none");
	return sbuf_take(&b);
}

static bool
same_ops(const struct recon_node_plan *x, const struct recon_node_plan *y)
{
	size_t i;

	if (x->nops != y->nops)
		return false;
	for (i = 0; i < x->nops; i++)
		if (x->ops[i].kind != y->ops[i].kind ||
		    strcmp(x->ops[i].name, y->ops[i].name) != 0 ||
		    x->ops[i].remove_consumers != y->ops[i].remove_consumers)
			return false;
	return true;
}

/* The same dependent diverts, by name, in the same order. */
static bool
same_diverts(const struct recon_node_plan *x, const struct recon_node_plan *y)
{
	char *a = op_names(x, RECON_OP_DESTROY_DIVERT);
	char *b = op_names(y, RECON_OP_DESTROY_DIVERT);
	bool same = strcmp(a, b) == 0;

	free(a);
	free(b);
	return same;
}

static enum recon_verdict
diverts_changed(const struct recon_action *a, const struct recon_node_plan *np,
    const struct recon_node_plan *fresh, struct recon_node_apply *out)
{
	char *was = op_names(np, RECON_OP_DESTROY_DIVERT);
	char *now = op_names(fresh, RECON_OP_DESTROY_DIVERT);
	char *why;
	enum recon_verdict v;

	why = xasprintf(
	    "the diverts that depend on the queue changed since the plan: planned %s, now %s; plan again",
	    was, now);
	v = recon_verdict_stale(out, a, why);
	free(why);
	free(was);
	free(now);
	return v;
}

/* The fresh preflight said WOULD_APPLY or REFUSED: compare with the plan. */
static enum recon_verdict
compare_qdel(const struct recon_action *a, const struct recon_node_plan *np,
    const struct recon_node_plan *fresh, struct recon_node_apply *out)
{
	char *why;
	enum recon_verdict v;

	if (fresh->outcome == RECON_OUT_REFUSED) {
		why = xasprintf("%s (%s)", fresh->message,
		    fresh->next_step != NULL ? fresh->next_step : "plan again");
		v = recon_verdict_stale(out, a, why);
		free(why);
		return v;
	}
	if (fresh->consumers > np->consumers) {
		why = xasprintf(
		    "queue '%s' now has %lld consumer%s, %lld when planned: --disconnect-consumers covers only the consumers the plan saw; plan again",
		    a->name, (long long)fresh->consumers,
		    fresh->consumers == 1 ? "" : "s", (long long)np->consumers);
		v = recon_verdict_stale(out, a, why);
		free(why);
		return v;
	}
	if (!same_ops(np, fresh))
		return diverts_changed(a, np, fresh, out);
	out->destroyed_messages += fresh->destroyed_messages;
	out->planned_messages += np->destroyed_messages;
	recon_node_apply_note(out, "%s '%s': as planned",
	    recon_act_name(a->kind), a->name);
	recon_np_add_ops_to(out, a, fresh);
	return RECON_V_RUN;
}

enum recon_verdict
recon_apply_check_qdel(const struct recon_plan *p, const struct recon_action *a,
    const struct recon_node_plan *np, const struct recon_node_snapshot *n,
    const struct recon_apply_ctx *c, struct recon_node_apply *out)
{
	struct decl_cluster decl;
	struct recon_qdel_ctx ctx;
	struct recon_node_plan fresh;
	enum recon_verdict v = RECON_V_NOOP;
	char *why;
	size_t i;

	standin_decl(&decl, p);
	qdel_ctx(&ctx, &decl, p, c);
	memset(&fresh, 0, sizeof(fresh));
	fresh.node = xstrdup(np->node);
	recon_preflight_queue_delete(&fresh, n, a->name, &ctx, false);
	if (fresh.outcome != RECON_OUT_NO_CHANGE) {
		v = compare_qdel(a, np, &fresh, out);
		goto done;
	}
	for (i = 0; i < np->nremoved; i++) {
		if (recon_node_find_divert(n, np->removed[i].config.name) ==
		    NULL)
			continue;
		why = xasprintf(
		    "the queue is already gone, but divert '%s' that the plan removes with it is still there; plan again",
		    np->removed[i].config.name);
		v = recon_verdict_stale(out, a, why);
		free(why);
		goto done;
	}
	recon_verdict_noop(out, a, "the queue is already gone");
done:
	recon_node_plan_release(&fresh);
	free(decl.captures);
	return v;
}

enum recon_verdict
recon_apply_check_requeue(const struct recon_plan *p,
    const struct recon_action *a, const struct recon_node_plan *np,
    const struct recon_node_snapshot *n, const struct recon_apply_ctx *c,
    struct recon_node_apply *out)
{
	const struct recon_queue *lq = recon_node_find_queue(n, a->name);
	const struct recon_op *op = recon_np_find_op(np, RECON_OP_CREATE_QUEUE);
	struct decl_cluster decl;
	struct recon_qdel_ctx ctx;
	struct recon_node_plan fresh;
	enum recon_verdict v;

	if (lq == NULL)
		return recon_verdict_stale(out, a,
		    "the queue no longer exists");
	if (op != NULL && op->queue != NULL && recon_queue_same(lq, op->queue))
		return recon_verdict_noop(out, a,
		    "the queue is already as declared");
	if (np->observed.queue == NULL ||
	    !recon_queue_same(lq, np->observed.queue))
		return recon_verdict_stale(out, a,
		    "the queue's configuration changed since the plan");
	standin_decl(&decl, p);
	qdel_ctx(&ctx, &decl, p, c);
	memset(&fresh, 0, sizeof(fresh));
	fresh.node = xstrdup(np->node);
	recon_preflight_queue_delete(&fresh, n, a->name, &ctx,
	    op == NULL || op->queue == NULL ||
	        strcmp(op->queue->address, lq->address) == 0);
	if (fresh.outcome == RECON_OUT_REFUSED) {
		v = compare_qdel(a, np, &fresh, out);
	} else if (!same_diverts(np, &fresh)) {
		v = diverts_changed(a, np, &fresh, out);
	} else {
		out->destroyed_messages += fresh.destroyed_messages;
		out->planned_messages += np->destroyed_messages;
		v = recon_verdict_run(out, a, np);
	}
	recon_node_plan_release(&fresh);
	free(decl.captures);
	return v;
}
