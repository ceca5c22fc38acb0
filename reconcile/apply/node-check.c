/* reconcile/apply/node-check.c: does a plan's action still hold on a node read
 * again at apply time? (design.md section 5: "refused as stale, not guessed
 * at"). A queue delete runs the planner's own preflight again. */
#include "apply-int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/sbuf.h"
#include "../../lib/xalloc.h"

void
apply_ctx_release(struct apply_ctx *c)
{
	strv_release(&c->created_q);
	strv_release(&c->created_q_addr);
	strv_release(&c->deleted_q);
	strv_release(&c->deleted_d);
	plan_planned_diverts_release(&c->planned_d);
}

const struct plan_step *
apply_node_step(const struct plan_action *a, const char *node)
{
	size_t i;

	for (i = 0; i < a->nnodes; i++)
		if (strcmp(a->nodes[i].node, node) == 0)
			return &a->nodes[i];
	return NULL;
}

void
apply_ctx_init(struct apply_ctx *c, const struct plan *p,
    const struct decl_cluster *decl, const char *node)
{
	const struct plan_step *np;
	size_t k;

	memset(c, 0, sizeof(*c));
	c->decl = decl;
	/* Dependency checks see every divert as the plan leaves it. */
	for (k = 0; k < p->nactions; k++) {
		np = apply_node_step(&p->actions[k], node);
		if (np != NULL && np->outcome == PLAN_OUT_WOULD_APPLY &&
		    !plan_action_kind_is_capture(p->actions[k].kind))
			plan_planned_diverts_add_ops(&c->planned_d, np);
	}
}

/* Record what the plan's action does on this node (the planner's own
 * bookkeeping, replayed in plan order). */
void
apply_ctx_record(struct apply_ctx *c, const struct plan_action *a,
    const struct plan_step *np)
{
	size_t i;

	for (i = 0; i < np->nops; i++) {
		const struct recon_op *op = &np->ops[i];

		if (op->kind == RECON_OP_CREATE_QUEUE && op->queue != NULL) {
			strv_add(&c->created_q, op->name);
			strv_add(&c->created_q_addr, op->queue->address);
		} else if (op->kind == RECON_OP_DESTROY_DIVERT &&
		           a->kind != PLAN_ACT_RECREATE_DIVERT) {
			strv_add(&c->deleted_d, op->name);
		}
	}
	if (a->kind == PLAN_ACT_DELETE_QUEUE)
		strv_add(&c->deleted_q, a->name);
}

static enum apply_verdict
check_address(const struct plan_action *a, const struct plan_step *np,
    const struct recon_node_snapshot *n, struct apply_node *out)
{
	const struct recon_address *la = recon_node_find_address(n, a->name);
	const struct recon_op *op = plan_step_find_op(np,
	    a->kind == PLAN_ACT_CREATE_ADDRESS ? RECON_OP_CREATE_ADDRESS
	                                       : RECON_OP_UPDATE_ADDRESS);
	unsigned want = op != NULL ? op->routing : 0;

	if (a->kind == PLAN_ACT_CREATE_ADDRESS) {
		if (la == NULL)
			return apply_verdict_run(out, a, np);
		if ((la->routing & want) == want)
			return apply_verdict_noop(out, a,
			    "the address already exists");
		return apply_verdict_stale(out, a,
		    "the address was created since the plan, with other routing types");
	}
	if (la == NULL)
		return apply_verdict_stale(out, a,
		    "the address no longer exists");
	if (la->routing == want)
		return apply_verdict_noop(out, a,
		    "the routing types are already as planned");
	if (la->routing != np->observed.address_routing)
		return apply_verdict_stale(out, a,
		    "the routing types changed since the plan");
	return apply_verdict_run(out, a, np);
}

static enum apply_verdict
check_create_queue(const struct plan_action *a, const struct plan_step *np,
    const struct recon_node_snapshot *n, struct apply_node *out)
{
	const struct recon_queue *lq = recon_node_find_queue(n, a->name);
	const struct recon_op *op =
	    plan_step_find_op(np, RECON_OP_CREATE_QUEUE);

	if (lq == NULL)
		return apply_verdict_run(out, a, np);
	if (op != NULL && op->queue != NULL && recon_queue_same(lq, op->queue))
		return apply_verdict_noop(out, a,
		    "the queue already exists as declared");
	return apply_verdict_stale(out, a,
	    "a queue of that name was created since the plan, with another configuration");
}

static enum apply_verdict
check_create_divert(const struct plan_action *a, const struct plan_step *np,
    const struct recon_node_snapshot *n, struct apply_node *out)
{
	const struct recon_divert *ld = recon_node_find_divert(n, a->name);
	const struct recon_op *op =
	    plan_step_find_op(np, RECON_OP_CREATE_DIVERT);

	if (ld == NULL)
		return apply_verdict_run(out, a, np);
	if (op != NULL && op->divert != NULL &&
	    recon_divert_same(ld, op->divert))
		return apply_verdict_noop(out, a,
		    "the divert already exists as declared");
	return apply_verdict_stale(out, a,
	    "a divert of that name was created since the plan, with another configuration");
}

static enum apply_verdict
check_change_queue(const struct plan_action *a, const struct plan_step *np,
    const struct recon_node_snapshot *n, struct apply_node *out)
{
	const struct recon_queue *lq = recon_node_find_queue(n, a->name);
	const struct recon_op *op =
	    plan_step_find_op(np, RECON_OP_UPDATE_QUEUE);

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
	return apply_verdict_run(out, a, np);
}

static enum apply_verdict
check_change_divert(const struct plan_action *a, const struct plan_step *np,
    const struct recon_node_snapshot *n, struct apply_node *out)
{
	const struct recon_divert *ld = recon_node_find_divert(n, a->name);
	const struct recon_op *op =
	    plan_step_find_op(np, RECON_OP_UPDATE_DIVERT);

	if (op == NULL)
		op = plan_step_find_op(np, RECON_OP_CREATE_DIVERT);
	if (ld == NULL)
		return apply_verdict_stale(out, a,
		    "the divert no longer exists");
	if (op != NULL && op->divert != NULL &&
	    recon_divert_same(ld, op->divert))
		return apply_verdict_noop(out, a,
		    "the divert is already as declared");
	if (np->observed.divert == NULL ||
	    !recon_divert_same(ld, np->observed.divert))
		return apply_verdict_stale(out, a,
		    "the divert's configuration changed since the plan");
	return apply_verdict_run(out, a, np);
}

static enum apply_verdict
check_delete_divert(const struct plan_action *a, const struct plan_step *np,
    const struct recon_node_snapshot *n, struct apply_node *out)
{
	const struct recon_divert *ld = recon_node_find_divert(n, a->name);
	struct apply_op *ao;

	if (ld == NULL)
		return apply_verdict_noop(out, a, "the divert is already gone");
	if (np->observed.divert != NULL &&
	    !recon_divert_same(ld, np->observed.divert))
		return apply_verdict_stale(out, a,
		    "the divert's configuration changed since the plan");
	apply_verdict_run(out, a, np);
	/* The audit records the configuration really removed. */
	ao = &out->ops[out->nops - 1];
	if (ao->op.kind == RECON_OP_DESTROY_DIVERT) {
		recon_divert_release(ao->op.divert);
		free(ao->op.divert);
		ao->op.divert = recon_divert_dup(ld);
	}
	return APPLY_VERDICT_RUN;
}

static enum apply_verdict
check_recreate_divert(const struct plan_action *a, const struct plan_step *np,
    const struct recon_node_snapshot *n, struct apply_node *out)
{
	const struct recon_divert *ld = recon_node_find_divert(n, a->name);
	const struct recon_op *op =
	    plan_step_find_op(np, RECON_OP_CREATE_DIVERT);
	size_t i;

	if (ld == NULL)
		return apply_verdict_stale(out, a,
		    "the divert no longer exists");
	if (op != NULL && op->divert != NULL &&
	    recon_divert_same(ld, op->divert))
		return apply_verdict_noop(out, a,
		    "the divert is already as declared");
	if (np->observed.divert != NULL &&
	    !recon_divert_same(ld, np->observed.divert))
		return apply_verdict_stale(out, a,
		    "the divert's configuration changed since the plan");
	apply_verdict_run(out, a, np);
	for (i = 0; i < out->nops; i++) {
		struct recon_op *o = &out->ops[i].op;

		if (o->kind == RECON_OP_DESTROY_DIVERT &&
		    strcmp(o->name, a->name) == 0) {
			recon_divert_release(o->divert);
			free(o->divert);
			o->divert = recon_divert_dup(ld);
		}
	}
	return APPLY_VERDICT_RUN;
}

static enum apply_verdict
check_delete_address(const struct plan_action *a, const struct plan_step *np,
    const struct recon_node_snapshot *n, const struct apply_ctx *c,
    struct apply_node *out)
{
	const struct recon_address *la = recon_node_find_address(n, a->name);
	enum apply_verdict v;
	char *why;
	size_t j;

	if (la == NULL)
		return apply_verdict_noop(out, a,
		    "the address is already gone");
	for (j = 0; j < la->nbinding_names; j++) {
		if (strv_has(&c->deleted_q, la->binding_names[j]) ||
		    strv_has(&c->deleted_d, la->binding_names[j]))
			continue;
		why = xasprintf(
		    "binding '%s' appeared on the address since the plan, and the plan does not remove it",
		    la->binding_names[j]);
		v = apply_verdict_stale(out, a, why);
		free(why);
		return v;
	}
	for (j = 0; j < la->nqueue_names; j++) {
		if (strv_has(&c->deleted_q, la->queue_names[j]))
			continue;
		why = xasprintf(
		    "queue '%s' appeared on the address since the plan, and the plan does not remove it",
		    la->queue_names[j]);
		v = apply_verdict_stale(out, a, why);
		free(why);
		return v;
	}
	return apply_verdict_run(out, a, np);
}

static enum apply_verdict
check_one(const struct plan *p, const struct plan_action *a,
    const struct plan_step *np, const struct recon_node_snapshot *n,
    const struct apply_ctx *c, struct apply_node *out)
{
	switch (a->kind) {
	case PLAN_ACT_CREATE_ADDRESS:
	case PLAN_ACT_WIDEN_ADDRESS:
	case PLAN_ACT_NARROW_ADDRESS:
		return check_address(a, np, n, out);
	case PLAN_ACT_CREATE_QUEUE:
		return check_create_queue(a, np, n, out);
	case PLAN_ACT_CREATE_DIVERT:
		return check_create_divert(a, np, n, out);
	case PLAN_ACT_CHANGE_QUEUE:
		return check_change_queue(a, np, n, out);
	case PLAN_ACT_CHANGE_DIVERT:
		return check_change_divert(a, np, n, out);
	case PLAN_ACT_RECREATE_QUEUE:
		return apply_check_queue_recreate(p, a, np, n, c, out);
	case PLAN_ACT_RECREATE_DIVERT:
		return check_recreate_divert(a, np, n, out);
	case PLAN_ACT_DELETE_DIVERT:
		return check_delete_divert(a, np, n, out);
	case PLAN_ACT_DELETE_QUEUE:
		return apply_check_queue_delete(p, a, np, n, c, out);
	case PLAN_ACT_DELETE_ADDRESS:
		return check_delete_address(a, np, n, c, out);
	case PLAN_ACT_CREATE_CAPTURE:
	case PLAN_ACT_CHANGE_CAPTURE:
	case PLAN_ACT_CREATE_TAP:
	case PLAN_ACT_CHANGE_TAP:
	case PLAN_ACT_DELETE_TAP:
	case PLAN_ACT_DELETE_CAPTURE:
		return apply_verdict_noop(out, a,
		    "the capture pass runs again after the plan's operations");
	case PLAN_ACT_COUNT:
		break;
	}
	return apply_verdict_stale(out, a, "unknown action");
}

enum apply_verdict
apply_check_absent(const struct plan_action *a, const struct plan_step *np,
    const struct recon_node_snapshot *n, struct apply_node *out)
{
	bool present;

	switch (a->kind) {
	case PLAN_ACT_DELETE_QUEUE:
		present = recon_node_find_queue(n, a->name) != NULL;
		break;
	case PLAN_ACT_DELETE_DIVERT:
		present = recon_node_find_divert(n, a->name) != NULL;
		break;
	case PLAN_ACT_DELETE_ADDRESS:
		/* kept because not empty: nothing was to be done either way */
		present = !np->observed.present &&
		          recon_node_find_address(n, a->name) != NULL;
		break;
	default:
		return APPLY_VERDICT_NOOP;
	}
	if (!present)
		return APPLY_VERDICT_NOOP;
	return apply_verdict_stale(out, a,
	    "it did not exist on this node when the plan was made, and exists now; plan again");
}

/* The operations and the warnings of a step follow the node's release
 * (docs/compatibility.md): a broker upgraded, downgraded or replaced since
 * the plan was made is stale. A plan without the versions (written
 * before they were recorded) is not checked. NULL when the release is
 * the planned one, else why not (owned). */
static char *
release_moved(const struct plan *p, const struct plan_step *np,
    const struct recon_node_snapshot *n)
{
	const char *planned = plan_node_version(p, np->node),
	           *now = n->broker_version;

	if (planned == NULL || (now != NULL && strcmp(planned, now) == 0))
		return NULL;
	return xasprintf(
	    "the broker ran Artemis %s when the plan was made and runs %s now; plan again (operations and warnings follow the release)",
	    planned, now != NULL ? now : "an unknown release");
}

enum apply_verdict
apply_check(const struct plan *p, const struct plan_action *a,
    const struct plan_step *np, const struct recon_node_snapshot *n,
    struct apply_ctx *c, struct apply_node *out)
{
	enum apply_verdict v;
	char *moved;

	if (np->outcome == PLAN_OUT_NO_CHANGE)
		return APPLY_VERDICT_NOOP;
	if (np->outcome != PLAN_OUT_WOULD_APPLY)
		return apply_verdict_stale(out, a,
		    "the plan did not clear this node step");
	moved = release_moved(p, np, n);
	if (moved != NULL)
		v = apply_verdict_stale(out, a, moved);
	else
		v = check_one(p, a, np, n, c, out);
	free(moved);
	apply_ctx_record(c, a, np);
	return v;
}
