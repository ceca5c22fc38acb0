/* reconcile/apply-check.c: does a plan's action still hold on a node read
 * again at apply time? (design.md section 5: "refused as stale, not guessed
 * at"). A queue delete runs the planner's own preflight again. */
#include "apply-int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/sbuf.h"
#include "../../lib/xalloc.h"

static bool
str_same(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return strcmp(a, b) == 0;
}

bool
recon_queue_same(const struct recon_queue *a, const struct recon_queue *b)
{
	return str_same(a->name, b->name) && str_same(a->address, b->address) &&
	       a->routing == b->routing && a->durable == b->durable &&
	       str_same(a->filter, b->filter) &&
	       a->max_consumers == b->max_consumers &&
	       a->purge_on_no_consumers == b->purge_on_no_consumers &&
	       a->exclusive == b->exclusive && a->ring_size == b->ring_size &&
	       a->enabled == b->enabled &&
	       str_same(a->last_value_key, b->last_value_key) &&
	       a->consumers_before_dispatch == b->consumers_before_dispatch &&
	       a->delay_before_dispatch == b->delay_before_dispatch;
}

bool
recon_divert_same(const struct recon_divert *a, const struct recon_divert *b)
{
	size_t i;

	if (!str_same(a->name, b->name) ||
	    !str_same(a->routing_name, b->routing_name) ||
	    !str_same(a->address, b->address) ||
	    !str_same(a->forwarding_address, b->forwarding_address) ||
	    a->exclusive != b->exclusive || !str_same(a->filter, b->filter) ||
	    a->routing_type != b->routing_type ||
	    !str_same(a->transformer_class_name, b->transformer_class_name) ||
	    a->ntransformer_properties != b->ntransformer_properties)
		return false;
	for (i = 0; i < a->ntransformer_properties; i++)
		if (!str_same(a->transformer_properties[i].key,
		        b->transformer_properties[i].key) ||
		    !str_same(a->transformer_properties[i].value,
		        b->transformer_properties[i].value))
			return false;
	return true;
}

void
recon_apply_ctx_release(struct recon_apply_ctx *c)
{
	recon_strv_release(&c->created_q);
	recon_strv_release(&c->created_q_addr);
	recon_strv_release(&c->deleted_q);
	recon_strv_release(&c->deleted_d);
	recon_planned_diverts_release(&c->planned_d);
}

/* Record what the plan's action does on this node (the planner's own
 * bookkeeping, replayed in plan order). */
static void
ctx_record(struct recon_apply_ctx *c, const struct recon_action *a,
    const struct recon_node_plan *np)
{
	size_t i;

	for (i = 0; i < np->nops; i++) {
		const struct recon_op *op = &np->ops[i];

		if (op->kind == RECON_OP_CREATE_QUEUE && op->queue != NULL) {
			recon_strv_add(&c->created_q, op->name);
			recon_strv_add(&c->created_q_addr, op->queue->address);
		} else if (op->kind == RECON_OP_DESTROY_DIVERT &&
		           a->kind != RECON_ACT_RECREATE_DIVERT) {
			recon_strv_add(&c->deleted_d, op->name);
		}
	}
	if (a->kind == RECON_ACT_DELETE_QUEUE)
		recon_strv_add(&c->deleted_q, a->name);
}

void
recon_np_add_ops_to(struct recon_node_apply *out, const struct recon_action *a,
    const struct recon_node_plan *np)
{
	size_t i;

	for (i = 0; i < np->nops; i++)
		recon_node_apply_add(out, a, &np->ops[i]);
}

enum recon_verdict
recon_verdict_stale(struct recon_node_apply *out, const struct recon_action *a,
    const char *why)
{
	recon_node_apply_note(out, "%s '%s': stale: %s",
	    recon_act_name(a->kind), a->name, why);
	if (out->detail == NULL)
		out->detail = xasprintf("stale plan: %s '%s': %s",
		    recon_act_name(a->kind), a->name, why);
	return RECON_V_STALE;
}

enum recon_verdict
recon_verdict_noop(struct recon_node_apply *out, const struct recon_action *a,
    const char *why)
{
	recon_node_apply_note(out, "%s '%s': skipped: %s",
	    recon_act_name(a->kind), a->name, why);
	return RECON_V_NOOP;
}

enum recon_verdict
recon_verdict_run(struct recon_node_apply *out, const struct recon_action *a,
    const struct recon_node_plan *np)
{
	recon_node_apply_note(out, "%s '%s': as planned",
	    recon_act_name(a->kind), a->name);
	recon_np_add_ops_to(out, a, np);
	return RECON_V_RUN;
}

const struct recon_op *
recon_np_find_op(const struct recon_node_plan *np, enum recon_opk k)
{
	size_t i;

	for (i = 0; i < np->nops; i++)
		if (np->ops[i].kind == k)
			return &np->ops[i];
	return NULL;
}

static enum recon_verdict
check_address(const struct recon_action *a, const struct recon_node_plan *np,
    const struct recon_node_snapshot *n, struct recon_node_apply *out)
{
	const struct recon_address *la = recon_node_find_address(n, a->name);
	const struct recon_op *op = recon_np_find_op(np,
	    a->kind == RECON_ACT_CREATE_ADDRESS ? RECON_OP_CREATE_ADDRESS
	                                        : RECON_OP_UPDATE_ADDRESS);
	unsigned want = op != NULL ? op->routing : 0;

	if (a->kind == RECON_ACT_CREATE_ADDRESS) {
		if (la == NULL)
			return recon_verdict_run(out, a, np);
		if ((la->routing & want) == want)
			return recon_verdict_noop(out, a,
			    "the address already exists");
		return recon_verdict_stale(out, a,
		    "the address was created since the plan, with other routing types");
	}
	if (la == NULL)
		return recon_verdict_stale(out, a,
		    "the address no longer exists");
	if (la->routing == want)
		return recon_verdict_noop(out, a,
		    "the routing types are already as planned");
	if (la->routing != np->observed.address_routing)
		return recon_verdict_stale(out, a,
		    "the routing types changed since the plan");
	return recon_verdict_run(out, a, np);
}

static enum recon_verdict
check_create_queue(const struct recon_action *a,
    const struct recon_node_plan *np, const struct recon_node_snapshot *n,
    struct recon_node_apply *out)
{
	const struct recon_queue *lq = recon_node_find_queue(n, a->name);
	const struct recon_op *op = recon_np_find_op(np, RECON_OP_CREATE_QUEUE);

	if (lq == NULL)
		return recon_verdict_run(out, a, np);
	if (op != NULL && op->queue != NULL && recon_queue_same(lq, op->queue))
		return recon_verdict_noop(out, a,
		    "the queue already exists as declared");
	return recon_verdict_stale(out, a,
	    "a queue of that name was created since the plan, with another configuration");
}

static enum recon_verdict
check_create_divert(const struct recon_action *a,
    const struct recon_node_plan *np, const struct recon_node_snapshot *n,
    struct recon_node_apply *out)
{
	const struct recon_divert *ld = recon_node_find_divert(n, a->name);
	const struct recon_op *op =
	    recon_np_find_op(np, RECON_OP_CREATE_DIVERT);

	if (ld == NULL)
		return recon_verdict_run(out, a, np);
	if (op != NULL && op->divert != NULL &&
	    recon_divert_same(ld, op->divert))
		return recon_verdict_noop(out, a,
		    "the divert already exists as declared");
	return recon_verdict_stale(out, a,
	    "a divert of that name was created since the plan, with another configuration");
}

static enum recon_verdict
check_change_queue(const struct recon_action *a,
    const struct recon_node_plan *np, const struct recon_node_snapshot *n,
    struct recon_node_apply *out)
{
	const struct recon_queue *lq = recon_node_find_queue(n, a->name);
	const struct recon_op *op = recon_np_find_op(np, RECON_OP_UPDATE_QUEUE);

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
	return recon_verdict_run(out, a, np);
}

static enum recon_verdict
check_change_divert(const struct recon_action *a,
    const struct recon_node_plan *np, const struct recon_node_snapshot *n,
    struct recon_node_apply *out)
{
	const struct recon_divert *ld = recon_node_find_divert(n, a->name);
	const struct recon_op *op =
	    recon_np_find_op(np, RECON_OP_UPDATE_DIVERT);

	if (op == NULL)
		op = recon_np_find_op(np, RECON_OP_CREATE_DIVERT);
	if (ld == NULL)
		return recon_verdict_stale(out, a,
		    "the divert no longer exists");
	if (op != NULL && op->divert != NULL &&
	    recon_divert_same(ld, op->divert))
		return recon_verdict_noop(out, a,
		    "the divert is already as declared");
	if (np->observed.divert == NULL ||
	    !recon_divert_same(ld, np->observed.divert))
		return recon_verdict_stale(out, a,
		    "the divert's configuration changed since the plan");
	return recon_verdict_run(out, a, np);
}

static enum recon_verdict
check_delete_divert(const struct recon_action *a,
    const struct recon_node_plan *np, const struct recon_node_snapshot *n,
    struct recon_node_apply *out)
{
	const struct recon_divert *ld = recon_node_find_divert(n, a->name);
	struct recon_applied_op *ao;

	if (ld == NULL)
		return recon_verdict_noop(out, a, "the divert is already gone");
	if (np->observed.divert != NULL &&
	    !recon_divert_same(ld, np->observed.divert))
		return recon_verdict_stale(out, a,
		    "the divert's configuration changed since the plan");
	recon_verdict_run(out, a, np);
	/* The audit records the configuration really removed. */
	ao = &out->ops[out->nops - 1];
	if (ao->op.kind == RECON_OP_DESTROY_DIVERT) {
		recon_divert_clear(ao->op.divert);
		free(ao->op.divert);
		ao->op.divert = recon_divert_dup(ld);
	}
	return RECON_V_RUN;
}

static enum recon_verdict
check_recreate_divert(const struct recon_action *a,
    const struct recon_node_plan *np, const struct recon_node_snapshot *n,
    struct recon_node_apply *out)
{
	const struct recon_divert *ld = recon_node_find_divert(n, a->name);
	const struct recon_op *op =
	    recon_np_find_op(np, RECON_OP_CREATE_DIVERT);
	size_t i;

	if (ld == NULL)
		return recon_verdict_stale(out, a,
		    "the divert no longer exists");
	if (op != NULL && op->divert != NULL &&
	    recon_divert_same(ld, op->divert))
		return recon_verdict_noop(out, a,
		    "the divert is already as declared");
	if (np->observed.divert != NULL &&
	    !recon_divert_same(ld, np->observed.divert))
		return recon_verdict_stale(out, a,
		    "the divert's configuration changed since the plan");
	recon_verdict_run(out, a, np);
	for (i = 0; i < out->nops; i++) {
		struct recon_op *o = &out->ops[i].op;

		if (o->kind == RECON_OP_DESTROY_DIVERT &&
		    strcmp(o->name, a->name) == 0) {
			recon_divert_clear(o->divert);
			free(o->divert);
			o->divert = recon_divert_dup(ld);
		}
	}
	return RECON_V_RUN;
}

static enum recon_verdict
check_delete_address(const struct recon_action *a,
    const struct recon_node_plan *np, const struct recon_node_snapshot *n,
    const struct recon_apply_ctx *c, struct recon_node_apply *out)
{
	const struct recon_address *la = recon_node_find_address(n, a->name);
	enum recon_verdict v;
	char *why;
	size_t j;

	if (la == NULL)
		return recon_verdict_noop(out, a,
		    "the address is already gone");
	for (j = 0; j < la->nbinding_names; j++) {
		if (recon_strv_has(&c->deleted_q, la->binding_names[j]) ||
		    recon_strv_has(&c->deleted_d, la->binding_names[j]))
			continue;
		why = xasprintf(
		    "binding '%s' appeared on the address since the plan, and the plan does not remove it",
		    la->binding_names[j]);
		v = recon_verdict_stale(out, a, why);
		free(why);
		return v;
	}
	for (j = 0; j < la->nqueue_names; j++) {
		if (recon_strv_has(&c->deleted_q, la->queue_names[j]))
			continue;
		why = xasprintf(
		    "queue '%s' appeared on the address since the plan, and the plan does not remove it",
		    la->queue_names[j]);
		v = recon_verdict_stale(out, a, why);
		free(why);
		return v;
	}
	return recon_verdict_run(out, a, np);
}

static enum recon_verdict
check_one(const struct recon_plan *p, const struct recon_action *a,
    const struct recon_node_plan *np, const struct recon_node_snapshot *n,
    const struct recon_apply_ctx *c, struct recon_node_apply *out)
{
	switch (a->kind) {
	case RECON_ACT_CREATE_ADDRESS:
	case RECON_ACT_WIDEN_ADDRESS:
	case RECON_ACT_NARROW_ADDRESS:
		return check_address(a, np, n, out);
	case RECON_ACT_CREATE_QUEUE:
		return check_create_queue(a, np, n, out);
	case RECON_ACT_CREATE_DIVERT:
		return check_create_divert(a, np, n, out);
	case RECON_ACT_CHANGE_QUEUE:
		return check_change_queue(a, np, n, out);
	case RECON_ACT_CHANGE_DIVERT:
		return check_change_divert(a, np, n, out);
	case RECON_ACT_RECREATE_QUEUE:
		return recon_apply_check_requeue(p, a, np, n, c, out);
	case RECON_ACT_RECREATE_DIVERT:
		return check_recreate_divert(a, np, n, out);
	case RECON_ACT_DELETE_DIVERT:
		return check_delete_divert(a, np, n, out);
	case RECON_ACT_DELETE_QUEUE:
		return recon_apply_check_qdel(p, a, np, n, c, out);
	case RECON_ACT_DELETE_ADDRESS:
		return check_delete_address(a, np, n, c, out);
	case RECON_ACT_CREATE_CAPTURE:
	case RECON_ACT_CHANGE_CAPTURE:
	case RECON_ACT_CREATE_TAP:
	case RECON_ACT_CHANGE_TAP:
	case RECON_ACT_DELETE_TAP:
	case RECON_ACT_DELETE_CAPTURE:
		return recon_verdict_noop(out, a,
		    "the capture pass runs again after the plan's operations");
	case RECON_ACT_COUNT:
		break;
	}
	return recon_verdict_stale(out, a, "unknown action");
}

enum recon_verdict
recon_apply_check_absent(const struct recon_action *a,
    const struct recon_node_plan *np, const struct recon_node_snapshot *n,
    struct recon_node_apply *out)
{
	bool present;

	switch (a->kind) {
	case RECON_ACT_DELETE_QUEUE:
		present = recon_node_find_queue(n, a->name) != NULL;
		break;
	case RECON_ACT_DELETE_DIVERT:
		present = recon_node_find_divert(n, a->name) != NULL;
		break;
	case RECON_ACT_DELETE_ADDRESS:
		/* kept because not empty: nothing was to be done either way */
		present = !np->observed.present &&
		          recon_node_find_address(n, a->name) != NULL;
		break;
	default:
		return RECON_V_NOOP;
	}
	if (!present)
		return RECON_V_NOOP;
	return recon_verdict_stale(out, a,
	    "it did not exist on this node when the plan was made, and exists now; plan again");
}

enum recon_verdict
recon_apply_check(const struct recon_plan *p, const struct recon_action *a,
    const struct recon_node_plan *np, const struct recon_node_snapshot *n,
    struct recon_apply_ctx *c, struct recon_node_apply *out)
{
	enum recon_verdict v;

	if (np->outcome == RECON_OUT_NO_CHANGE)
		return RECON_V_NOOP;
	if (np->outcome != RECON_OUT_WOULD_APPLY)
		return recon_verdict_stale(out, a,
		    "the plan did not clear this node step");
	v = check_one(p, a, np, n, c, out);
	ctx_record(c, a, np);
	return v;
}
