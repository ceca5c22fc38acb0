/* reconcile/apply/audit.c: the audit rows and result.json. Configurations
 * are written by the one writer of live/broker-config.c, as they were sent. */
#include "apply.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/jsonw.h"
#include "../../lib/sbuf.h"
#include "../../lib/xalloc.h"
#include "../live/live.h"
#include "apply-int.h"

/* error, established, kind: in sorted order. */
static void
write_outcome_why(struct jsonw *w, const struct apply_op *a)
{
	const char *est = apply_established_name(a->established);

	if (a->refusal.kind != RECON_OK) {
		jsonw_key(w, "error");
		jsonw_str(w, a->refusal.text);
	}
	if (est != NULL) {
		jsonw_key(w, "established");
		jsonw_str(w, est);
	}
	if (a->refusal.kind != RECON_OK) {
		jsonw_key(w, "kind");
		jsonw_str(w, recon_kind_name(a->refusal.kind));
	}
}

static void
write_routing(struct jsonw *w, unsigned routing)
{
	unsigned one = 0;

	jsonw_key(w, "routing");
	jsonw_arr_begin(w);
	while ((one = decl_routing_set_next(routing, one)) != 0)
		jsonw_str(w, decl_routing_artemis_name(one));
	jsonw_arr_end(w);
}

/* One operation; keys in sorted order. */
static void
write_op(struct jsonw *w, const struct apply_op *a, bool outcome)
{
	const struct recon_op *op = &a->op;

	jsonw_obj_begin(w);
	jsonw_key(w, "act");
	jsonw_str(w, plan_action_kind_name(a->act));
	jsonw_key(w, "action");
	jsonw_str(w, a->action);
	if (op->divert != NULL) {
		jsonw_key(w, "divert");
		live_divert_config_write(w, op->divert);
	}
	if (outcome)
		write_outcome_why(w, a);
	jsonw_key(w, "name");
	jsonw_str(w, op->name);
	jsonw_key(w, "op");
	jsonw_str(w, recon_op_kind_name(op->kind));
	if (outcome) {
		jsonw_key(w, "outcome");
		jsonw_str(w, apply_op_state_name(a->state));
	}
	if (op->queue != NULL) {
		jsonw_key(w, "queue");
		live_queue_config_write(w, op->queue);
	}
	if (op->kind == RECON_OP_DESTROY_QUEUE) {
		jsonw_key(w, "remove_consumers");
		jsonw_bool(w, op->remove_consumers);
	}
	if (op->kind == RECON_OP_CREATE_ADDRESS ||
	    op->kind == RECON_OP_UPDATE_ADDRESS)
		write_routing(w, op->routing);
	jsonw_obj_end(w);
}

static void
write_node(struct jsonw *w, const struct apply_node *n, bool outcome)
{
	size_t i;

	jsonw_obj_begin(w);
	if (outcome) {
		jsonw_key(w, "detail");
		jsonw_str(w, n->detail);
		jsonw_key(w, "kind");
		jsonw_str(w, n->kind);
	}
	jsonw_key(w, "node");
	jsonw_str(w, n->node);
	jsonw_key(w, "notes");
	jsonw_arr_begin(w);
	for (i = 0; i < n->nnotes; i++)
		jsonw_str(w, n->notes[i]);
	jsonw_arr_end(w);
	jsonw_key(w, "operations");
	jsonw_arr_begin(w);
	for (i = 0; i < n->nops; i++)
		write_op(w, &n->ops[i], outcome);
	jsonw_arr_end(w);
	jsonw_key(w, "outcome");
	jsonw_str(w, outcome || n->outcome != APPLY_APPLIED
	                 ? apply_outcome_name(n->outcome)
	                 : NULL);
	jsonw_obj_end(w);
}

/* The whole row or document; `result` adds outcomes and the end time. */
static char *
render(const struct apply_result *r, const char *event, bool result, int indent)
{
	struct sbuf b = {0};
	struct jsonw w;
	size_t i;

	sbuf_init(&b, SBUF_UNBOUNDED);
	jsonw_init(&w, &b, indent);
	jsonw_obj_begin(&w);
	jsonw_key(&w, "apply_id");
	jsonw_str(&w, r->apply_id);
	jsonw_key(&w, "approved_at");
	jsonw_str(&w, r->approved_at);
	jsonw_key(&w, "approver");
	jsonw_str(&w, r->approver);
	jsonw_key(&w, "cluster");
	jsonw_str(&w, r->cluster);
	if (event != NULL) {
		jsonw_key(&w, "event");
		jsonw_str(&w, event);
	}
	if (result) {
		jsonw_key(&w, "exit");
		jsonw_int(&w, apply_result_ok(r) ? 0 : 1);
		jsonw_key(&w, "finished_at");
		jsonw_str(&w, r->finished_at);
	}
	jsonw_key(&w, "format");
	jsonw_int(&w, APPLY_AUDIT_FORMAT);
	jsonw_key(&w, "nodes");
	jsonw_arr_begin(&w);
	for (i = 0; i < r->nnodes; i++)
		write_node(&w, &r->nodes[i], result);
	jsonw_arr_end(&w);
	jsonw_key(&w, "parameters");
	jsonw_obj_begin(&w);
	jsonw_key(&w, "disconnect_consumers");
	jsonw_bool(&w, r->disconnect_consumers);
	jsonw_obj_end(&w);
	jsonw_key(&w, "plan_digest");
	jsonw_str(&w, r->plan_digest);
	jsonw_key(&w, "plan_dir");
	jsonw_str(&w, r->plan_dir);
	jsonw_key(&w, "revision");
	jsonw_str(&w, r->revision);
	jsonw_key(&w, "started_at");
	jsonw_str(&w, r->started_at);
	jsonw_obj_end(&w);
	if (indent > 0)
		sbuf_addc(&b, '\n');
	return sbuf_take(&b);
}

char *
apply_audit_render_intent(const struct apply_result *r)
{
	return render(r, "intent", false, 0);
}

char *
apply_audit_render_result(const struct apply_result *r)
{
	return render(r, "result", true, 0);
}

char *
apply_result_render_json(const struct apply_result *r)
{
	return render(r, NULL, true, 2);
}
