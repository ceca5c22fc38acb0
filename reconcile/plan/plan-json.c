/* reconcile/plan/plan-json.c: plan.json, canonical (keys written in sorted
 * order, 2-space indent), and the typed confirmation derived from it.
 * docs/plan-format.md describes every member. */
#include "plan-int.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/json.h"
#include "../../lib/jsonw.h"
#include "../../lib/sha256.h"
#include "../../lib/xalloc.h"

static void
kstrs(struct jsonw *w, const char *k, char *const *v, size_t n)
{
	size_t i;

	jsonw_key(w, k);
	jsonw_arr_begin(w);
	for (i = 0; i < n; i++)
		jsonw_str(w, v[i]);
	jsonw_arr_end(w);
}

static void
routing_types(struct jsonw *w, const char *k, unsigned r)
{
	unsigned one = 0;

	jsonw_key(w, k);
	jsonw_arr_begin(w);
	while ((one = decl_routing_set_next(r, one)) != 0)
		jsonw_str(w, decl_routing_artemis_name(one));
	jsonw_arr_end(w);
}

static void
op_json(struct jsonw *w, const struct recon_op *op)
{
	jsonw_obj_begin(w);
	if (op->queue != NULL) {
		jsonw_key(w, "config");
		live_queue_config_write(w, op->queue);
	} else if (op->divert != NULL) {
		jsonw_key(w, "config");
		live_divert_config_write(w, op->divert);
	}
	jsonw_key_str(w, "name", op->name);
	jsonw_key_str(w, "op", recon_op_kind_name(op->kind));
	if (op->kind == RECON_OP_DESTROY_QUEUE)
		jsonw_key_bool(w, "remove_consumers", op->remove_consumers);
	if (op->kind == RECON_OP_CREATE_ADDRESS ||
	    op->kind == RECON_OP_UPDATE_ADDRESS)
		routing_types(w, "routing_types", op->routing);
	jsonw_obj_end(w);
}

static void
observed_json(struct jsonw *w, const struct plan_observed *o)
{
	jsonw_obj_begin(w);
	kstrs(w, "bindings", o->bindings, o->nbindings);
	jsonw_key(w, "divert");
	if (o->divert != NULL)
		live_divert_config_write(w, o->divert);
	else
		jsonw_null(w);
	jsonw_key_bool(w, "present", o->present);
	jsonw_key(w, "queue");
	if (o->queue != NULL) {
		jsonw_obj_begin(w);
		jsonw_key(w, "config");
		live_queue_config_write(w, o->queue);
		jsonw_key_int(w, "consumers", o->queue->consumer_count);
		jsonw_key_int(w, "messages", o->queue->message_count);
		jsonw_obj_end(w);
	} else {
		jsonw_null(w);
	}
	routing_types(w, "routing_types", o->address_routing);
	jsonw_obj_end(w);
}

static void
removed_json(struct jsonw *w, const struct plan_step *np)
{
	size_t i;

	jsonw_key(w, "removed_diverts");
	jsonw_arr_begin(w);
	for (i = 0; i < np->nremoved; i++) {
		jsonw_obj_begin(w);
		jsonw_key_str(w, "address", np->removed[i].config.address);
		jsonw_key(w, "config");
		live_divert_config_write(w, &np->removed[i].config);
		jsonw_key_bool(w, "declared", np->removed[i].declared);
		jsonw_key_str(w, "forwarding_address",
		    np->removed[i].config.forwarding_address);
		jsonw_key_str(w, "name", np->removed[i].config.name);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

static void
kept_json(struct jsonw *w, const struct plan_step *np)
{
	size_t i;

	jsonw_key(w, "kept_diverts");
	jsonw_arr_begin(w);
	for (i = 0; i < np->nkept; i++) {
		jsonw_obj_begin(w);
		jsonw_key_str(w, "address", np->kept[i].address);
		jsonw_key_str(w, "forwarding_address",
		    np->kept[i].forwarding_address);
		jsonw_key_str(w, "name", np->kept[i].name);
		jsonw_key_str(w, "reason", np->kept[i].reason);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

static void
taps_json(struct jsonw *w, const struct plan_step *np)
{
	size_t i;

	jsonw_key(w, "taps");
	jsonw_arr_begin(w);
	for (i = 0; i < np->ntaps; i++) {
		jsonw_obj_begin(w);
		jsonw_key_str(w, "capture", np->taps[i].capture);
		jsonw_key_str(w, "fate",
		    np->taps[i].fate == PLAN_TAP_KEPT
		        ? "kept"
		        : "removed-by-subscription");
		jsonw_key_str(w, "name", np->taps[i].name);
		jsonw_key_str(w, "reason", np->taps[i].reason);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

static void
node_plan_json(struct jsonw *w, const struct plan_step *np)
{
	size_t i;

	jsonw_obj_begin(w);
	jsonw_key_int(w, "consumers", np->consumers);
	jsonw_key_int(w, "destroyed_messages", np->destroyed_messages);
	kept_json(w, np);
	jsonw_key_str(w, "message", np->message);
	jsonw_key_str(w, "next_step", np->next_step);
	jsonw_key_str(w, "node", np->node);
	jsonw_key(w, "observed");
	observed_json(w, &np->observed);
	jsonw_key(w, "operations");
	jsonw_arr_begin(w);
	for (i = 0; i < np->nops; i++)
		op_json(w, &np->ops[i]);
	jsonw_arr_end(w);
	jsonw_key_str(w, "outcome", plan_outcome_name(np->outcome));
	jsonw_key_str(w, "refusal", np->refusal);
	removed_json(w, np);
	taps_json(w, np);
	kstrs(w, "warnings", np->warnings, np->nwarnings);
	jsonw_obj_end(w);
}

static void
action_json(struct jsonw *w, const struct plan_action *a)
{
	size_t i;

	jsonw_obj_begin(w);
	jsonw_key_str(w, "address", a->address);
	if (a->delete_if_empty != NULL) /* absent when not: older plans */
		jsonw_key_str(w, "delete_if_empty", a->delete_if_empty);
	jsonw_key_bool(w, "destroys_messages", a->destroys_messages);
	jsonw_key_str(w, "kind", plan_action_kind_name(a->kind));
	jsonw_key_str(w, "name", a->name);
	jsonw_key(w, "nodes");
	jsonw_arr_begin(w);
	for (i = 0; i < a->nnodes; i++)
		node_plan_json(w, &a->nodes[i]);
	jsonw_arr_end(w);
	jsonw_key_str(w, "why", a->why);
	jsonw_obj_end(w);
}

static void
summary_json(struct jsonw *w, const struct plan *p)
{
	struct plan_summary s;

	plan_summarize(p, &s);
	jsonw_key(w, "summary");
	jsonw_obj_begin(w);
	jsonw_key_int(w, "changes", (int64_t)s.changes);
	jsonw_key_int(w, "creates", (int64_t)s.creates);
	jsonw_key_int(w, "deleted_addresses", (int64_t)s.del_addresses);
	jsonw_key_int(w, "deleted_diverts", (int64_t)s.del_diverts);
	jsonw_key_int(w, "deleted_queues", (int64_t)s.del_queues);
	jsonw_key_int(w, "recreates", (int64_t)s.recreates);
	jsonw_key_int(w, "refused_node_steps", (int64_t)s.refused);
	jsonw_key_int(w, "unreachable_node_steps", (int64_t)s.unreachable);
	jsonw_obj_end(w);
}

/* An HA node's "member" and "members" (none for a node without). */
static void
members_json(struct jsonw *w, const struct plan_node_status *ns)
{
	const struct plan_member *m;
	size_t i;

	if (ns->nmembers == 0)
		return;
	jsonw_key_str(w, "member", ns->member);
	jsonw_key(w, "members");
	jsonw_arr_begin(w);
	for (i = 0; i < ns->nmembers; i++) {
		m = &ns->members[i];
		jsonw_obj_begin(w);
		jsonw_key_str(w, "broker_version", m->version);
		jsonw_key_str(w, "ha_policy", m->policy);
		jsonw_key_str(w, "message", m->message);
		jsonw_key_str(w, "name", m->name);
		jsonw_key_bool_opt(w, "replica_sync", m->replica_sync);
		jsonw_key_str(w, "state", m->state);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

static void
nodes_json(struct jsonw *w, const struct plan *p)
{
	size_t i;

	jsonw_key(w, "nodes");
	jsonw_arr_begin(w);
	for (i = 0; i < p->nnodes; i++) {
		jsonw_obj_begin(w);
		jsonw_key_str(w, "broker_version", p->nodes[i].version);
		members_json(w, &p->nodes[i]);
		jsonw_key_str(w, "message", p->nodes[i].message);
		jsonw_key_str(w, "node", p->nodes[i].node);
		jsonw_key_bool(w, "reachable", p->nodes[i].reachable);
		jsonw_key_str(w, "refusal", p->nodes[i].refusal);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

static void
unmanaged_json(struct jsonw *w, const struct plan *p)
{
	size_t i;

	jsonw_key(w, "unmanaged");
	jsonw_arr_begin(w);
	for (i = 0; i < p->nunmanaged; i++) {
		jsonw_obj_begin(w);
		jsonw_key_str(w, "kind", p->unmanaged[i].kind);
		jsonw_key_str(w, "name", p->unmanaged[i].name);
		kstrs(w, "nodes", p->unmanaged[i].nodes,
		    p->unmanaged[i].nnodes);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

/* settings.delete_if_empty: absent when the declaration sets none (the
 * plans written before it). */
static void
die_json(struct jsonw *w, const struct plan *p)
{
	size_t i;

	if (p->die_default == NULL && p->ndie == 0)
		return;
	jsonw_key(w, "delete_if_empty");
	jsonw_obj_begin(w);
	jsonw_key_str(w, "default", p->die_default);
	jsonw_key(w, "queues");
	jsonw_obj_begin(w);
	for (i = 0; i < p->ndie; i++)
		jsonw_key_str(w, p->die_queues[i], p->die_texts[i]);
	jsonw_obj_end(w);
	jsonw_obj_end(w);
}

static void
head_json(struct jsonw *w, const struct plan *p)
{
	size_t i;

	jsonw_key(w, "actions");
	jsonw_arr_begin(w);
	for (i = 0; i < p->nactions; i++)
		action_json(w, &p->actions[i]);
	jsonw_arr_end(w);
	if (plan_adopts(p) > 0) { /* absent when none: older plans' format */
		jsonw_key(w, "adopts");
		jsonw_obj_begin(w);
		jsonw_key_int(w, "addresses", (int64_t)p->adopts_addresses);
		jsonw_key_int(w, "diverts", (int64_t)p->adopts_diverts);
		jsonw_key_int(w, "queues", (int64_t)p->adopts_queues);
		jsonw_obj_end(w);
	}
	jsonw_key(w, "base");
	jsonw_obj_begin(w);
	jsonw_key_str(w, "revision", p->base_revision);
	jsonw_key_str(w, "source", p->base_source);
	jsonw_obj_end(w);
	plan_broker_xml_json(w, p);
	jsonw_key_str(w, "cluster", p->cluster);
}

/* The whole document into b; confirmation NULL writes null. */
static void
render_into(struct sbuf *b, const struct plan *p, const char *confirmation)
{
	struct jsonw w;
	size_t i;

	jsonw_init(&w, b, 2);
	jsonw_obj_begin(&w);
	head_json(&w, p);
	jsonw_key_str(&w, "confirmation", confirmation);
	jsonw_key_str(&w, "declaration_digest", p->declaration_digest);
	jsonw_key_int(&w, "destroyed_messages", p->destroyed_messages);
	kstrs(&w, "diagnostics", p->diagnostics, p->ndiagnostics);
	jsonw_key_bool(&w, "disconnect_consumers", p->disconnect_consumers);
	jsonw_key_int(&w, "format", PLAN_FORMAT);
	jsonw_key_str(&w, "kind", p->kind);
	jsonw_key_str(&w, "message", p->message);
	jsonw_key_str(&w, "mode", decl_mode_name(p->mode));
	jsonw_key_str(&w, "next_step", p->next_step);
	nodes_json(&w, p);
	jsonw_key_str(&w, "outcome", plan_outcome_name(p->outcome));
	plan_policy_json(&w, p);
	jsonw_key_str(&w, "refusal", p->refusal);
	jsonw_key_str(&w, "revision", p->revision);
	jsonw_key(&w, "settings");
	jsonw_obj_begin(&w);
	jsonw_key_str(&w, "capture_prefix", p->capture_prefix);
	jsonw_key(&w, "captures");
	jsonw_arr_begin(&w);
	for (i = 0; i < p->ncaptures; i++) {
		jsonw_obj_begin(&w);
		jsonw_key_str(&w, "name", p->captures[i].name);
		jsonw_key_str(&w, "pattern", p->captures[i].pattern);
		jsonw_key_int(&w, "ring_size", p->captures[i].ring_size);
		jsonw_obj_end(&w);
	}
	jsonw_arr_end(&w);
	die_json(&w, p);
	jsonw_key_int(&w, "max_destroyed_messages", p->max_destroyed_messages);
	jsonw_obj_end(&w);
	jsonw_key(&w, "snapshot");
	jsonw_obj_begin(&w);
	jsonw_key_str(&w, "source", p->snapshot_source);
	jsonw_key_str(&w, "taken_at", p->snapshot_taken_at);
	jsonw_obj_end(&w);
	summary_json(&w, p);
	unmanaged_json(&w, p);
	jsonw_obj_end(&w);
	sbuf_addc(b, '\n');
}

static char *
render(const struct plan *p, const char *confirmation)
{
	struct sbuf b = {0};

	sbuf_init(&b, SBUF_UNBOUNDED);
	render_into(&b, p, confirmation);
	return sbuf_take(&b);
}

static void
hash_sink(void *ctx, const char *data, size_t len)
{
	sha256_update(ctx, data, len);
}

/* The confirmation of a plan that sends nothing to a broker: what it
 * adopts and forgets ("" when neither). Owned. */
static char *
nothing_sent_phrase(const struct plan *p)
{
	size_t a = plan_adopts(p), f = plan_forgets(p);

	if (a > 0 && f > 0)
		return xasprintf("adopt %zu object%s, forget %zu", a,
		    a == 1 ? "" : "s", f);
	if (a > 0)
		return xasprintf("adopt %zu object%s", a, a == 1 ? "" : "s");
	if (f > 0)
		return xasprintf("forget %zu object%s", f, f == 1 ? "" : "s");
	return xstrdup("");
}

/* docs/policy.md: "update policy (2 changes, 1 lifting protection)", ""
 * when the plan changes no policy. Owned. */
static char *
policy_phrase(const struct plan *p)
{
	size_t n = plan_policy_changes(p), l = plan_policy_lifts(p);

	if (n == 0)
		return xstrdup("");
	if (l == 0)
		return xasprintf("update policy (%zu change%s)", n,
		    n == 1 ? "" : "s");
	return xasprintf("update policy (%zu change%s, %zu lifting protection)",
	    n, n == 1 ? "" : "s", l);
}

char *
plan_confirmation(const struct plan *p)
{
	struct plan_summary s;
	char hex[SHA256_HEX], *phrase, *policy, *text;
	unsigned char md[SHA256_LEN];
	struct sha256 h;
	struct sbuf b;

	if (!plan_approvable(p))
		return xstrdup("");
	/* the body streamed through the hash, never whole in memory */
	sha256_init(&h);
	sbuf_stream(&b, hash_sink, &h);
	render_into(&b, p, NULL);
	sbuf_flush(&b);
	sbuf_release(&b);
	sha256_final(&h, md);
	sha256_to_hex(md, hex);
	hex[PLAN_CONFIRM_HEX] = '\0';
	plan_summarize(p, &s);
	if (p->outcome == PLAN_OUT_WOULD_APPLY)
		phrase = plan_summary_phrase(&s);
	else
		phrase = nothing_sent_phrase(p);
	policy = policy_phrase(p);
	text = xasprintf("%s%s%s on %s %s", phrase,
	    phrase[0] != '\0' && policy[0] != '\0' ? ", " : "", policy,
	    p->cluster, hex);
	free(policy);
	free(phrase);
	return text;
}

char *
plan_render_json(const struct plan *p)
{
	char *c = plan_confirmation(p), *out;

	out = render(p, c[0] != '\0' ? c : NULL);
	free(c);
	return out;
}

void
plan_render_json_stream(const struct plan *p, sbuf_sink_fn sink, void *ctx)
{
	char *c = plan_confirmation(p);
	struct sbuf b;

	sbuf_stream(&b, sink, ctx);
	render_into(&b, p, c[0] != '\0' ? c : NULL);
	sbuf_flush(&b);
	sbuf_release(&b);
	free(c);
}

int
plan_check_json(const struct plan *p, const char *path, const char *text,
    size_t len, struct err *err)
{
	struct pos pos = {path, 0, 0};
	struct json_doc *doc = NULL;
	const struct json *c;
	char *want;
	int rc = 0;

	if (json_parse(&doc, path, text, len, err) < 0)
		return -1;
	c = json_get(json_doc_root(doc), "confirmation");
	want = plan_confirmation(p);
	if (want[0] == '\0'
	        ? !json_is_null(c)
	        : !json_is_string(c) || strcmp(json_str(c), want) != 0)
		rc = err_setf(err, &pos,
		    "plan.json was changed after it was written (its content no longer matches its confirmation text); plan again");
	free(want);
	json_doc_free(doc);
	return rc;
}
