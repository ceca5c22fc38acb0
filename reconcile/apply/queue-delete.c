/* reconcile/apply/queue-delete.c: queue deletes and recreates at apply time:
 * the planner's preflight (ADR-0084 D1-D6) run again on the node read now,
 * compared with what the plan recorded. */
#include "apply-int.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/sbuf.h"
#include "../../lib/xalloc.h"

/* The planner's context for a queue delete on this node: the declaration
 * that was planned (c->decl), the plan's earlier actions, and the
 * delete-if-empty clause the plan recorded for action a. */
static void
queue_delete_ctx(struct plan_queue_delete_ctx *ctx, const struct plan *p,
    const struct plan_action *a, const struct apply_ctx *c)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->decl = c->decl;
	ctx->delete_if_empty = a->delete_if_empty;
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
	/* docs/policy.md: the plan's patterns and retained diverts; the
	 * declaration's managed: false and retain are in c->decl */
	ctx->protect = (const char *const *)p->protect;
	ctx->nprotect = p->nprotect;
	ctx->retained_diverts = (const char *const *)p->retained_diverts;
	ctx->nretained_diverts = p->nretained_diverts;
}

/* "'a', 'b'" of the operations' names of kind k; owned. */
static char *
op_names(const struct plan_step *np, enum recon_op_kind k)
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
same_ops(const struct plan_step *x, const struct plan_step *y)
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
same_diverts(const struct plan_step *x, const struct plan_step *y)
{
	char *a = op_names(x, RECON_OP_DESTROY_DIVERT);
	char *b = op_names(y, RECON_OP_DESTROY_DIVERT);
	bool same = strcmp(a, b) == 0;

	free(a);
	free(b);
	return same;
}

static enum apply_verdict
diverts_changed(const struct plan_action *a, const struct plan_step *np,
    const struct plan_step *fresh, struct apply_node *out)
{
	char *was = op_names(np, RECON_OP_DESTROY_DIVERT);
	char *now = op_names(fresh, RECON_OP_DESTROY_DIVERT);
	char *why;
	enum apply_verdict v;

	why = xasprintf(
	    "the diverts that depend on the queue changed since the plan: planned %s, now %s; plan again",
	    was, now);
	v = apply_verdict_stale(out, a, why);
	free(why);
	free(was);
	free(now);
	return v;
}

/* The fresh preflight said WOULD_APPLY or REFUSED: compare with the plan. */
static enum apply_verdict
compare_qdel(const struct plan_action *a, const struct plan_step *np,
    const struct plan_step *fresh, struct apply_node *out)
{
	char *why;
	enum apply_verdict v;

	if (fresh->outcome == PLAN_OUT_REFUSED) {
		/* messages arrived since the plan, under delete-if-empty: the
		 * node is refused with that kind (docs/policy.md) */
		if (fresh->refusal != NULL &&
		    strcmp(fresh->refusal, PLAN_REFUSAL_HAS_MESSAGES) == 0 &&
		    out->refuse_kind == NULL)
			out->refuse_kind = xstrdup(PLAN_REFUSAL_HAS_MESSAGES);
		why = xasprintf("%s (%s)", fresh->message,
		    fresh->next_step != NULL ? fresh->next_step : "plan again");
		v = apply_verdict_stale(out, a, why);
		free(why);
		return v;
	}
	if (fresh->consumers > np->consumers) {
		why = xasprintf(
		    "queue '%s' now has %lld consumer%s, %lld when planned: --disconnect-consumers covers only the consumers the plan saw; plan again",
		    a->name, (long long)fresh->consumers,
		    fresh->consumers == 1 ? "" : "s", (long long)np->consumers);
		v = apply_verdict_stale(out, a, why);
		free(why);
		return v;
	}
	if (!same_ops(np, fresh))
		return diverts_changed(a, np, fresh, out);
	out->destroyed_messages += fresh->destroyed_messages;
	out->planned_messages += np->destroyed_messages;
	apply_node_note_run(out, a);
	apply_node_add_step_ops(out, a, fresh);
	return APPLY_VERDICT_RUN;
}

enum apply_verdict
apply_check_queue_delete(const struct plan *p, const struct plan_action *a,
    const struct plan_step *np, const struct recon_node_snapshot *n,
    const struct apply_ctx *c, struct apply_node *out)
{
	struct plan_queue_delete_ctx ctx;
	struct plan_step fresh;
	enum apply_verdict v = APPLY_VERDICT_NOOP;
	char *why;
	size_t i;

	queue_delete_ctx(&ctx, p, a, c);
	memset(&fresh, 0, sizeof(fresh));
	fresh.node = xstrdup(np->node);
	plan_preflight_queue_delete(&fresh, n, a->name, &ctx, false);
	if (fresh.outcome != PLAN_OUT_NO_CHANGE) {
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
		v = apply_verdict_stale(out, a, why);
		free(why);
		goto done;
	}
	apply_verdict_noop(out, a, "the queue is already gone");
done:
	plan_step_release(&fresh);
	return v;
}

enum apply_verdict
apply_check_queue_recreate(const struct plan *p, const struct plan_action *a,
    const struct plan_step *np, const struct recon_node_snapshot *n,
    const struct apply_ctx *c, struct apply_node *out)
{
	const struct recon_queue *lq = recon_node_find_queue(n, a->name);
	const struct recon_op *op =
	    plan_step_find_op(np, RECON_OP_CREATE_QUEUE);
	struct plan_queue_delete_ctx ctx;
	struct plan_step fresh;
	enum apply_verdict v;

	if (lq == NULL)
		return apply_verdict_stale(out, a,
		    "the queue no longer exists");
	if (op != NULL && op->queue != NULL && recon_queue_same(lq, op->queue))
		return apply_verdict_noop(out, a,
		    "the queue is already as declared");
	if (np->observed.queue == NULL ||
	    !recon_queue_same(lq, np->observed.queue))
		return apply_verdict_stale(out, a,
		    "the queue's configuration changed since the plan");
	queue_delete_ctx(&ctx, p, a, c);
	memset(&fresh, 0, sizeof(fresh));
	fresh.node = xstrdup(np->node);
	plan_preflight_queue_delete(&fresh, n, a->name, &ctx,
	    op == NULL || op->queue == NULL ||
	        strcmp(op->queue->address, lq->address) == 0);
	if (fresh.outcome == PLAN_OUT_REFUSED) {
		v = compare_qdel(a, np, &fresh, out);
	} else if (!same_diverts(np, &fresh)) {
		v = diverts_changed(a, np, &fresh, out);
	} else {
		out->destroyed_messages += fresh.destroyed_messages;
		out->planned_messages += np->destroyed_messages;
		v = apply_verdict_run(out, a, np);
	}
	plan_step_release(&fresh);
	return v;
}

/* The operations of fresh (a preflight's) against rest[0..m): the same,
 * in order? */
static bool
same_as_rest(const struct plan_step *fresh, const struct apply_op *rest,
    size_t m)
{
	size_t i;

	if (fresh->nops != m)
		return false;
	for (i = 0; i < m; i++)
		if (fresh->ops[i].kind != rest[i].op.kind ||
		    strcmp(fresh->ops[i].name, rest[i].op.name) != 0 ||
		    fresh->ops[i].remove_consumers !=
		        rest[i].op.remove_consumers)
			return false;
	return true;
}

static char *
rest_names(const struct apply_op *rest, size_t m)
{
	struct sbuf b = {0};
	size_t i;

	for (i = 0; i < m; i++)
		if (rest[i].op.kind == RECON_OP_DESTROY_DIVERT)
			sbuf_addf(&b, "%s'%s'", b.len > 0 ? ", " : "",
			    rest[i].op.name);
	if (b.len == 0)
		sbuf_adds(&b, "none");
	return sbuf_take(&b);
}

enum apply_verdict
apply_check_queue_delete_rest(const struct plan *p, const struct plan_action *a,
    const struct plan_step *np, const struct recon_node_snapshot *n,
    const struct apply_ctx *c, const struct apply_op *rest, size_t nrest,
    const char *why, struct apply_node *out)
{
	const struct recon_queue *lq = recon_node_find_queue(n, a->name);
	const struct recon_op *op =
	    plan_step_find_op(np, RECON_OP_CREATE_QUEUE);
	struct plan_queue_delete_ctx ctx;
	struct plan_step fresh;
	enum apply_verdict v = APPLY_VERDICT_RUN;
	char *was, *now, *text;
	size_t i, m = 0;

	while (m < nrest && rest[m].op.kind != RECON_OP_DESTROY_QUEUE)
		m++;
	m++; /* up to and with the queue's destroy */
	queue_delete_ctx(&ctx, p, a, c);
	memset(&fresh, 0, sizeof(fresh));
	fresh.node = xstrdup(np->node);
	plan_preflight_queue_delete(&fresh, n, a->name, &ctx,
	    a->kind == PLAN_ACT_RECREATE_QUEUE &&
	        (op == NULL || op->queue == NULL || lq == NULL ||
	            strcmp(op->queue->address, lq->address) == 0));
	if (fresh.outcome == PLAN_OUT_REFUSED ||
	    fresh.consumers > np->consumers) {
		v = compare_qdel(a, np, &fresh, out);
		goto done;
	}
	if (m > nrest || !same_as_rest(&fresh, rest, m)) {
		was = rest_names(rest, m > nrest ? nrest : m);
		now = op_names(&fresh, RECON_OP_DESTROY_DIVERT);
		text = xasprintf(
		    "the diverts that depend on the queue changed since the interrupted apply: it left %s to remove, now %s; plan again",
		    was, now);
		v = apply_verdict_stale(out, a, text);
		free(text);
		free(was);
		free(now);
		goto done;
	}
	out->destroyed_messages += fresh.destroyed_messages;
	out->planned_messages += np->destroyed_messages;
	apply_node_note_run_with(out, a, why);
	apply_node_add_step_ops(out, a, &fresh);
	for (i = m; i < nrest; i++)
		apply_node_add_op(out, a, &rest[i].op);
done:
	plan_step_release(&fresh);
	return v;
}
