/* reconcile/apply/audit.c: the audit rows and result.json. Configurations
 * are written by the one writer of live/broker-config.c, as they were sent. */
#include "apply.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/json.h"
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
	if (outcome || a->established == APPLY_EST_RESUME_READ)
		write_outcome_why(w, a);
	jsonw_key(w, "name");
	jsonw_str(w, op->name);
	jsonw_key(w, "op");
	jsonw_str(w, recon_op_kind_name(op->kind));
	if (outcome || a->established == APPLY_EST_RESUME_READ) {
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
	if (n->member != NULL) {
		jsonw_key(w, "member");
		jsonw_str(w, n->member);
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
	if (n->planned_member != NULL) {
		jsonw_key(w, "planned_member");
		jsonw_str(w, n->planned_member);
	}
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
	if (result && r->adopted > 0) { /* absent when none */
		jsonw_key(&w, "adopted");
		jsonw_int(&w, (int64_t)r->adopted);
	}
	jsonw_key(&w, "apply_id");
	jsonw_str(&w, r->apply_id);
	jsonw_key(&w, "approved_at");
	jsonw_str(&w, r->approved_at);
	jsonw_key(&w, "approver");
	jsonw_str(&w, r->approver);
	jsonw_key(&w, "approver_uid");
	jsonw_int(&w, r->approver_uid);
	jsonw_key(&w, "cluster");
	jsonw_str(&w, r->cluster);
	if (r->epoch > 0) /* absent for one agent alone */
		jsonw_key_int(&w, "epoch", r->epoch);
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
	if (result && r->policy_changes > 0) { /* absent when none */
		jsonw_key(&w, "policy_changes");
		jsonw_int(&w, (int64_t)r->policy_changes);
	}
	if (r->resumes != NULL) {
		jsonw_key(&w, "resumes");
		jsonw_str(&w, r->resumes);
	}
	jsonw_key(&w, "revision");
	jsonw_str(&w, r->revision);
	jsonw_key(&w, "started_at");
	jsonw_str(&w, r->started_at);
	if (r->window_override != NULL) {
		jsonw_key(&w, "window_override");
		jsonw_obj_begin(&w);
		jsonw_key(&w, "by");
		jsonw_str(&w, r->window_override);
		jsonw_key(&w, "uid");
		jsonw_int(&w, r->window_override_uid);
		jsonw_key(&w, "window");
		jsonw_str(&w, r->window_state);
		jsonw_obj_end(&w);
	}
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

/* ---- reading rows back ------------------------------------------------ */

static int
read_op_routing(struct json_reader *c, const struct json *o, const char *w,
    unsigned *out)
{
	const struct json *a, *it;
	unsigned one;
	size_t n;

	a = json_read_array(c, o, w, "routing", &n);
	if (a == NULL)
		return -1;
	*out = 0;
	for (it = json_first(a); it != NULL; it = json_next(it)) {
		if (json_str(it) == NULL ||
		    decl_routing_parse(json_str(it), &one) < 0)
			return json_read_fail(c, w, "routing",
			    "expected ANYCAST or MULTICAST");
		*out |= one;
	}
	return 0;
}

/* An outcome's or a state's name back into its value; -1 if unknown. */
static int
outcome_parse(const char *s, enum apply_outcome *out)
{
	int i;

	for (i = APPLY_APPLIED; i <= APPLY_UNREACHABLE; i++)
		if (strcmp(s, apply_outcome_name((enum apply_outcome)i)) == 0) {
			*out = (enum apply_outcome)i;
			return 0;
		}
	return -1;
}

static int
state_parse(const char *s, enum apply_op_state *out)
{
	int i;

	for (i = APPLY_OP_NOT_RUN; i <= APPLY_OP_UNKNOWN; i++)
		if (strcmp(s, apply_op_state_name((enum apply_op_state)i)) ==
		    0) {
			*out = (enum apply_op_state)i;
			return 0;
		}
	return -1;
}

static int
read_op(struct json_reader *c, const struct json *o, const char *w,
    struct apply_op *a)
{
	const struct json *cfg;
	char *act = NULL, *kind = NULL, *est = NULL, *state = NULL;
	int rc = -1;

	if (json_read_str(c, o, w, "act", false, &act) < 0 ||
	    json_read_str(c, o, w, "action", false, &a->action) < 0 ||
	    json_read_str(c, o, w, "op", false, &kind) < 0 ||
	    json_read_str(c, o, w, "name", false, &a->op.name) < 0 ||
	    json_read_optional(c, o, w, "established", &est) < 0 ||
	    json_read_optional(c, o, w, "outcome", &state) < 0)
		goto done;
	if (state != NULL && state_parse(state, &a->state) < 0) {
		json_read_fail(c, w, "outcome", "unknown outcome");
		goto done;
	}
	if (plan_action_kind_parse(act, &a->act) < 0) {
		json_read_fail(c, w, "act", "unknown action");
		goto done;
	}
	if (recon_op_kind_parse(kind, &a->op.kind) < 0) {
		json_read_fail(c, w, "op", "unknown operation");
		goto done;
	}
	if (est != NULL && strcmp(est, "resume-read") == 0)
		a->established = APPLY_EST_RESUME_READ;
	else if (est != NULL && strcmp(est, "read-back") == 0)
		a->established = APPLY_EST_READ_BACK;
	if (a->op.kind == RECON_OP_DESTROY_QUEUE &&
	    json_read_bool(c, o, w, "remove_consumers",
	        &a->op.remove_consumers) < 0)
		goto done;
	if ((a->op.kind == RECON_OP_CREATE_ADDRESS ||
	        a->op.kind == RECON_OP_UPDATE_ADDRESS) &&
	    read_op_routing(c, o, w, &a->op.routing) < 0)
		goto done;
	cfg = json_get(o, "queue");
	if (cfg != NULL) {
		a->op.queue = xcalloc(1, sizeof(*a->op.queue));
		if (live_queue_config_read(c, cfg, w, a->op.queue) < 0)
			goto done;
	}
	cfg = json_get(o, "divert");
	if (cfg != NULL) {
		a->op.divert = xcalloc(1, sizeof(*a->op.divert));
		if (live_divert_config_read(c, cfg, w, a->op.divert) < 0)
			goto done;
	}
	rc = 0;
done:
	free(act);
	free(kind);
	free(est);
	free(state);
	return rc;
}

static int
read_node(struct json_reader *c, const struct json *o, const char *w,
    struct apply_node *n)
{
	const struct json *ops, *it;
	char *ow, *outcome = NULL;
	size_t i = 0, nops = 0;
	int rc = 0;

	/* member, planned_member: HA nodes only */
	if (json_read_str(c, o, w, "node", false, &n->node) < 0 ||
	    json_read_str(c, o, w, "outcome", true, &outcome) < 0 ||
	    json_read_optional(c, o, w, "member", &n->member) < 0 ||
	    json_read_optional(c, o, w, "planned_member", &n->planned_member) <
	        0)
		return -1;
	if (outcome != NULL && outcome_parse(outcome, &n->outcome) < 0)
		rc = json_read_fail(c, w, "outcome", "unknown outcome");
	free(outcome);
	if (rc < 0)
		return -1;
	ops = json_read_array(c, o, w, "operations", &nops);
	if (ops == NULL)
		return -1;
	n->ops = xcalloc(nops + 1, sizeof(*n->ops));
	for (it = json_first(ops); it != NULL && rc == 0; it = json_next(it)) {
		ow = xasprintf("%s.operations[%zu]", w, i);
		n->nops = i + 1;
		rc = read_op(c, it, ow, &n->ops[i++]);
		free(ow);
	}
	return rc;
}

int
apply_audit_parse(struct apply_result **out, char **event, const char *row,
    size_t len, struct err *err)
{
	struct json_reader c = {.path = "audit row", .err = err};
	struct apply_result *r = xcalloc(1, sizeof(*r));
	struct json_doc *doc = NULL;
	const struct json *root, *nodes, *it;
	char *ev = NULL, *w;
	size_t i = 0, n = 0;
	int rc = -1;

	if (json_parse(&doc, "audit row", row, len, err) < 0)
		goto done;
	root = json_doc_root(doc);
	if (json_read_str(&c, root, "", "event", false, &ev) < 0 ||
	    json_read_str(&c, root, "", "apply_id", false, &r->apply_id) < 0 ||
	    json_read_str(&c, root, "", "plan_digest", true, &r->plan_digest) <
	        0 ||
	    json_read_str(&c, root, "", "cluster", true, &r->cluster) < 0 ||
	    json_read_optional(&c, root, "", "resumes", &r->resumes) < 0 ||
	    json_read_str(&c, root, "", "started_at", true, &r->started_at) <
	        0 ||
	    (json_get(root, "epoch") != NULL &&
	        json_read_int(&c, root, "", "epoch", &r->epoch) < 0))
		goto done;
	nodes = json_read_array(&c, root, "", "nodes", &n);
	if (nodes == NULL)
		goto done;
	r->nodes = xcalloc(n + 1, sizeof(*r->nodes));
	for (it = json_first(nodes); it != NULL; it = json_next(it)) {
		w = xasprintf("nodes[%zu]", i);
		r->nnodes = i + 1;
		rc = read_node(&c, it, w, &r->nodes[i++]);
		free(w);
		if (rc < 0)
			goto done;
	}
	rc = 0;
done:
	json_doc_free(doc);
	if (rc < 0) {
		apply_result_free(r);
		free(ev);
		return -1;
	}
	*out = r;
	*event = ev;
	return 0;
}
