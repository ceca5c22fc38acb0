/* reconcile/plan/plan-parse.c: plan.json back into a struct plan (apply
 * and approve read what the planner wrote), through lib/json. Errors name
 * the member by its JSON path: `plan.json: actions[0].nodes[1].outcome:
 * expected a string`; a syntax error its line and column. Rendering the
 * parse of a plan.json gives the same bytes. */
#include "plan-int.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/json.h"
#include "../../lib/sha256.h"
#include "../../lib/xalloc.h"

#define PLAN_JSON_MAX ((size_t)256 * 1024 * 1024)

/* ["ANYCAST", "MULTICAST"] as a set of decl_routing. */
static int
read_routing(struct json_reader *c, const struct json *o, const char *where,
    const char *key, unsigned *out)
{
	const struct json *a, *it;
	const char *s;
	unsigned one;
	size_t n;

	a = json_read_array(c, o, where, key, &n);
	if (a == NULL)
		return -1;
	*out = 0;
	for (it = json_first(a); it != NULL; it = json_next(it)) {
		s = json_str(it);
		/* as Artemis spells them: upper case */
		if (s == NULL || decl_routing_parse(s, &one) < 0 ||
		    strcmp(s, decl_routing_artemis_name(one)) != 0)
			return json_read_fail(c, where, key,
			    "expected ANYCAST or MULTICAST");
		*out |= one;
	}
	return 0;
}

static int
pop(struct json_reader *c, const struct json *o, const char *w,
    struct recon_op *op)
{
	const struct json *cfg;
	char *k = NULL;
	int rc = -1;

	memset(op, 0, sizeof(*op));
	if (json_read_str(c, o, w, "op", false, &k) < 0 ||
	    json_read_str(c, o, w, "name", false, &op->name) < 0)
		goto done;
	if (recon_op_kind_parse(k, &op->kind) < 0) {
		json_read_fail(c, w, "op", "unknown operation");
		goto done;
	}
	if (op->kind == RECON_OP_DESTROY_QUEUE &&
	    json_read_bool(c, o, w, "remove_consumers", &op->remove_consumers) <
	        0)
		goto done;
	if ((op->kind == RECON_OP_CREATE_ADDRESS ||
	        op->kind == RECON_OP_UPDATE_ADDRESS) &&
	    read_routing(c, o, w, "routing_types", &op->routing) < 0)
		goto done;
	cfg = json_get(o, "config");
	if (cfg != NULL && (op->kind == RECON_OP_CREATE_QUEUE ||
	                       op->kind == RECON_OP_UPDATE_QUEUE)) {
		op->queue = xcalloc(1, sizeof(*op->queue));
		if (live_queue_config_read(c, cfg, w, op->queue) < 0)
			goto done;
	} else if (cfg != NULL) {
		op->divert = xcalloc(1, sizeof(*op->divert));
		if (live_divert_config_read(c, cfg, w, op->divert) < 0)
			goto done;
	}
	rc = 0;
done:
	free(k);
	return rc;
}

static int
pobserved(struct json_reader *c, const struct json *o, const char *w,
    struct plan_observed *ob)
{
	const struct json *d, *q, *cfg;

	if (json_read_bool(c, o, w, "present", &ob->present) < 0 ||
	    json_read_strings(c, o, w, "bindings", &ob->bindings,
	        &ob->nbindings) < 0 ||
	    read_routing(c, o, w, "routing_types", &ob->address_routing) < 0)
		return -1;
	d = json_read_object(c, o, w, "divert", true);
	q = json_read_object(c, o, w, "queue", true);
	if (d == NULL || q == NULL)
		return -1;
	if (!json_is_null(d)) {
		ob->divert = xcalloc(1, sizeof(*ob->divert));
		if (live_divert_config_read(c, d, w, ob->divert) < 0)
			return -1;
	}
	if (json_is_null(q))
		return 0;
	ob->queue = xcalloc(1, sizeof(*ob->queue));
	cfg = json_read_object(c, q, w, "config", false);
	if (cfg == NULL || live_queue_config_read(c, cfg, w, ob->queue) < 0 ||
	    json_read_int(c, q, w, "consumers", &ob->queue->consumer_count) <
	        0 ||
	    json_read_int(c, q, w, "messages", &ob->queue->message_count) < 0)
		return -1;
	return 0;
}

static int
premoved(struct json_reader *c, const struct json *o, const char *w,
    struct plan_step *np)
{
	const struct json *a = json_read_array(c, o, w, "removed_diverts",
	                      &np->nremoved),
	                  *it;
	size_t i = 0;

	if (a == NULL)
		return -1;
	np->removed = xcalloc(np->nremoved + 1, sizeof(*np->removed));
	for (it = json_first(a); it != NULL; it = json_next(it)) {
		const struct json *cfg;

		cfg = json_read_object(c, it, w, "config", false);
		if (cfg == NULL ||
		    live_divert_config_read(c, cfg, w, &np->removed[i].config) <
		        0 ||
		    json_read_bool(c, it, w, "declared",
		        &np->removed[i].declared) < 0) {
			np->nremoved = i + 1;
			return -1;
		}
		i++;
	}
	return 0;
}

static int
pkept(struct json_reader *c, const struct json *o, const char *w,
    struct plan_step *np)
{
	const struct json *a = json_read_array(c, o, w, "kept_diverts",
	                      &np->nkept),
	                  *it;
	struct plan_kept_divert *k;
	size_t i = 0;

	if (a == NULL)
		return -1;
	np->kept = xcalloc(np->nkept + 1, sizeof(*np->kept));
	for (it = json_first(a); it != NULL; it = json_next(it)) {
		k = &np->kept[i++];
		if (json_read_str(c, it, w, "address", false, &k->address) <
		        0 ||
		    json_read_str(c, it, w, "forwarding_address", false,
		        &k->forwarding_address) < 0 ||
		    json_read_str(c, it, w, "name", false, &k->name) < 0 ||
		    json_read_str(c, it, w, "reason", false, &k->reason) < 0)
			return -1;
	}
	return 0;
}

static int
ptaps(struct json_reader *c, const struct json *o, const char *w,
    struct plan_step *np)
{
	const struct json *a = json_read_array(c, o, w, "taps", &np->ntaps),
	                  *it;
	struct plan_tap *t;
	char *fate = NULL;
	size_t i = 0;
	int rc = 0;

	if (a == NULL)
		return -1;
	np->taps = xcalloc(np->ntaps + 1, sizeof(*np->taps));
	for (it = json_first(a); it != NULL; it = json_next(it)) {
		t = &np->taps[i++];
		if (json_read_str(c, it, w, "capture", true, &t->capture) < 0 ||
		    json_read_str(c, it, w, "name", false, &t->name) < 0 ||
		    json_read_str(c, it, w, "reason", false, &t->reason) < 0 ||
		    json_read_str(c, it, w, "fate", false, &fate) < 0)
			return -1;
		if (strcmp(fate, "removed-by-subscription") == 0)
			t->fate = PLAN_TAP_REMOVED_BY_SUBSCRIPTION;
		else if (strcmp(fate, "kept") != 0)
			rc = json_read_fail(c, w, "fate",
			    "expected kept or removed-by-subscription");
		free(fate);
		fate = NULL;
		if (rc < 0)
			return -1;
	}
	return 0;
}

static int
pops(struct json_reader *c, const struct json *o, const char *w,
    struct plan_step *np)
{
	const struct json *a =
	                      json_read_array(c, o, w, "operations", &np->nops),
	                  *it;
	size_t i = 0;

	if (a == NULL)
		return -1;
	np->ops = xcalloc(np->nops + 1, sizeof(*np->ops));
	for (it = json_first(a); it != NULL; it = json_next(it)) {
		char *ow;
		int rc;

		ow = xasprintf("%s.operations[%zu]", w, i);
		rc = pop(c, it, ow, &np->ops[i++]);
		free(ow);
		if (rc < 0)
			return -1;
	}
	return 0;
}

static int
pnode_plan(struct json_reader *c, const struct json *o, const char *w,
    struct plan_step *np)
{
	const struct json *ob;
	char *out = NULL;
	int rc = -1;

	if (json_read_int(c, o, w, "consumers", &np->consumers) < 0 ||
	    json_read_int(c, o, w, "destroyed_messages",
	        &np->destroyed_messages) < 0 ||
	    json_read_str(c, o, w, "message", true, &np->message) < 0 ||
	    json_read_str(c, o, w, "next_step", true, &np->next_step) < 0 ||
	    json_read_str(c, o, w, "node", false, &np->node) < 0 ||
	    json_read_str(c, o, w, "outcome", false, &out) < 0 ||
	    json_read_str(c, o, w, "refusal", true, &np->refusal) < 0 ||
	    json_read_strings(c, o, w, "warnings", &np->warnings,
	        &np->nwarnings) < 0 ||
	    pkept(c, o, w, np) < 0 || premoved(c, o, w, np) < 0 ||
	    ptaps(c, o, w, np) < 0 || pops(c, o, w, np) < 0)
		goto done;
	ob = json_read_object(c, o, w, "observed", false);
	if (ob == NULL || pobserved(c, ob, w, &np->observed) < 0)
		goto done;
	if (plan_outcome_parse(out, &np->outcome) < 0) {
		json_read_fail(c, w, "outcome", "unknown outcome");
		goto done;
	}
	if (np->refusal != NULL &&
	    recon_kind_parse(np->refusal, &np->refusal_kind) < 0)
		np->refusal_kind = RECON_OK; /* not a broker kind */
	rc = 0;
done:
	free(out);
	return rc;
}

static int
paction(struct json_reader *c, const struct json *o, const char *w,
    struct plan_action *a)
{
	const struct json *arr, *it;
	char *k = NULL, *nw;
	size_t i = 0;
	int rc = -1;

	if (json_read_str(c, o, w, "address", true, &a->address) < 0 ||
	    json_read_optional(c, o, w, "delete_if_empty",
	        &a->delete_if_empty) < 0 ||
	    json_read_bool(c, o, w, "destroys_messages",
	        &a->destroys_messages) < 0 ||
	    json_read_str(c, o, w, "kind", false, &k) < 0 ||
	    json_read_str(c, o, w, "name", false, &a->name) < 0 ||
	    json_read_str(c, o, w, "why", true, &a->why) < 0)
		goto done;
	if (plan_action_kind_parse(k, &a->kind) < 0) {
		json_read_fail(c, w, "kind", "unknown action kind");
		goto done;
	}
	arr = json_read_array(c, o, w, "nodes", &a->nnodes);
	if (arr == NULL)
		goto done;
	a->nodes = xcalloc(a->nnodes + 1, sizeof(*a->nodes));
	for (it = json_first(arr); it != NULL; it = json_next(it)) {
		nw = xasprintf("%s.nodes[%zu]", w, i);
		rc = pnode_plan(c, it, nw, &a->nodes[i++]);
		free(nw);
		if (rc < 0)
			goto done;
	}
	rc = 0;
done:
	free(k);
	return rc;
}

static int
pactions(struct json_reader *c, const struct json *root, struct plan *p)
{
	const struct json *arr = json_read_array(c, root, "", "actions",
	                      &p->nactions),
	                  *it;
	size_t i = 0;

	if (arr == NULL)
		return -1;
	p->actions = xcalloc(p->nactions + 1, sizeof(*p->actions));
	for (it = json_first(arr); it != NULL; it = json_next(it)) {
		char *w;
		int rc;

		w = xasprintf("actions[%zu]", i);
		rc = paction(c, it, w, &p->actions[i++]);
		free(w);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* An HA node's member and members (absent for other nodes, and in plans
 * written before them). The live member must be one of the members. */
static int
pmembers(struct json_reader *c, const struct json *it,
    struct plan_node_status *n)
{
	const struct json *arr, *m;
	struct plan_member *pm;
	const struct json *rs;
	bool b = false;
	size_t i = 0;

	if (json_get(it, "members") == NULL)
		return 0;
	arr = json_read_array(c, it, "nodes[]", "members", &n->nmembers);
	if (arr == NULL ||
	    json_read_str(c, it, "nodes[]", "member", true, &n->member) < 0)
		return -1;
	n->members = xcalloc(n->nmembers + 1, sizeof(*n->members));
	for (m = json_first(arr); m != NULL; m = json_next(m)) {
		pm = &n->members[i++];
		pm->replica_sync = -1;
		if (json_read_str(c, m, "nodes[].members[]", "broker_version",
		        true, &pm->version) < 0 ||
		    json_read_str(c, m, "nodes[].members[]", "ha_policy", true,
		        &pm->policy) < 0 ||
		    json_read_str(c, m, "nodes[].members[]", "message", true,
		        &pm->message) < 0 ||
		    json_read_str(c, m, "nodes[].members[]", "name", false,
		        &pm->name) < 0 ||
		    json_read_str(c, m, "nodes[].members[]", "state", false,
		        &pm->state) < 0)
			return -1;
		rs =
		    json_read_member(c, m, "nodes[].members[]", "replica_sync");
		if (rs == NULL)
			return -1;
		if (!json_is_null(rs)) {
			if (json_bool(rs, &b) < 0)
				return json_read_fail(c, "nodes[].members[]",
				    "replica_sync",
				    "expected true, false or null");
			pm->replica_sync = b;
		}
	}
	if (n->member != NULL && plan_node_live_member(n) == NULL)
		return json_read_fail(c, "nodes[]", "member",
		    "not one of the node's members");
	return 0;
}

static int
pnodes(struct json_reader *c, const struct json *root, struct plan *p)
{
	const struct json *arr =
	                      json_read_array(c, root, "", "nodes", &p->nnodes),
	                  *it;
	struct plan_node_status *n;
	size_t i = 0;

	if (arr == NULL)
		return -1;
	p->nodes = xcalloc(p->nnodes + 1, sizeof(*p->nodes));
	for (it = json_first(arr); it != NULL; it = json_next(it)) {
		n = &p->nodes[i++];
		/* broker_version: absent in plans written before it was */
		if ((json_get(it, "broker_version") != NULL &&
		        json_read_str(c, it, "nodes[]", "broker_version", true,
		            &n->version) < 0) ||
		    json_read_str(c, it, "nodes[]", "message", true,
		        &n->message) < 0 ||
		    json_read_str(c, it, "nodes[]", "node", false, &n->node) <
		        0 ||
		    json_read_bool(c, it, "nodes[]", "reachable",
		        &n->reachable) < 0 ||
		    json_read_str(c, it, "nodes[]", "refusal", true,
		        &n->refusal) < 0 ||
		    pmembers(c, it, n) < 0)
			return -1;
	}
	return 0;
}

static int
punmanaged(struct json_reader *c, const struct json *root, struct plan *p)
{
	const struct json *arr = json_read_array(c, root, "", "unmanaged",
	                      &p->nunmanaged),
	                  *it;
	struct plan_unmanaged *u;
	size_t i = 0;

	if (arr == NULL)
		return -1;
	p->unmanaged = xcalloc(p->nunmanaged + 1, sizeof(*p->unmanaged));
	for (it = json_first(arr); it != NULL; it = json_next(it)) {
		u = &p->unmanaged[i++];
		if (json_read_str(c, it, "unmanaged[]", "kind", false,
		        &u->kind) < 0 ||
		    json_read_str(c, it, "unmanaged[]", "name", false,
		        &u->name) < 0 ||
		    json_read_strings(c, it, "unmanaged[]", "nodes", &u->nodes,
		        &u->nnodes) < 0)
			return -1;
	}
	return 0;
}

/* settings.delete_if_empty: absent in a plan whose declaration sets
 * none; else its default's clause (or null) and the queues' own. */
static int
pdie(struct json_reader *c, const struct json *s, struct plan *p)
{
	const struct json *o, *q, *it;
	size_t n = 0;

	if (json_get(s, "delete_if_empty") == NULL)
		return 0;
	o = json_read_object(c, s, "settings", "delete_if_empty", false);
	if (o == NULL || json_read_str(c, o, "settings.delete_if_empty",
	                     "default", true, &p->die_default) < 0)
		return -1;
	q = json_read_object(c, o, "settings.delete_if_empty", "queues", false);
	if (q == NULL)
		return -1;
	for (it = json_first(q); it != NULL; it = json_next(it))
		n++;
	p->die_queues = xcalloc(n + 1, sizeof(*p->die_queues));
	p->die_texts = xcalloc(n + 1, sizeof(*p->die_texts));
	for (it = json_first(q); it != NULL; it = json_next(it)) {
		if (!json_is_string(it))
			return json_read_fail(c,
			    "settings.delete_if_empty.queues", json_key(it),
			    "expected a string");
		p->die_queues[p->ndie] = xstrdup(json_key(it));
		p->die_texts[p->ndie++] = xstrdup(json_str(it));
	}
	plan_delete_if_empty_sort(p->die_queues, p->die_texts, p->ndie);
	return 0;
}

static int
psettings(struct json_reader *c, const struct json *root, struct plan *p)
{
	const struct json *s = json_read_object(c, root, "", "settings", false),
	                  *arr, *it;
	size_t i = 0;

	if (s == NULL ||
	    json_read_str(c, s, "settings", "capture_prefix", true,
	        &p->capture_prefix) < 0 ||
	    json_read_int(c, s, "settings", "max_destroyed_messages",
	        &p->max_destroyed_messages) < 0)
		return -1;
	arr = json_read_array(c, s, "settings", "captures", &p->ncaptures);
	if (arr == NULL)
		return -1;
	p->captures = xcalloc(p->ncaptures + 1, sizeof(*p->captures));
	for (it = json_first(arr); it != NULL; it = json_next(it)) {
		if (json_read_str(c, it, "settings.captures[]", "name", false,
		        &p->captures[i].name) < 0 ||
		    json_read_str(c, it, "settings.captures[]", "pattern",
		        false, &p->captures[i].pattern) < 0 ||
		    json_read_int(c, it, "settings.captures[]", "ring_size",
		        &p->captures[i].ring_size) < 0)
			return -1;
		i++;
	}
	return pdie(c, s, p);
}

static bool
is_sha256_hex(const char *s)
{
	size_t i;

	for (i = 0; s[i] != '\0'; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		        (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return i == SHA256_HEX - 1;
}

/* "adopts": optional (absent when the plan adopts nothing). */
static int
read_adopts(struct json_reader *c, const struct json *root, struct plan *p)
{
	const struct json *a = json_read_object(c, root, "", "adopts", false);
	int64_t n[3];

	if (a == NULL ||
	    json_read_int(c, a, "adopts", "addresses", &n[0]) < 0 ||
	    json_read_int(c, a, "adopts", "diverts", &n[1]) < 0 ||
	    json_read_int(c, a, "adopts", "queues", &n[2]) < 0)
		return -1;
	if (n[0] < 0 || n[1] < 0 || n[2] < 0) {
		json_read_fail(c, "adopts", "addresses",
		    "expected counts of 0 or more");
		return -1;
	}
	p->adopts_addresses = (size_t)n[0];
	p->adopts_diverts = (size_t)n[1];
	p->adopts_queues = (size_t)n[2];
	return 0;
}

static int
pheader(struct json_reader *c, const struct json *root, struct plan *p)
{
	const struct json *b, *s;
	char *mode = NULL, *out = NULL;
	int64_t format = 0;
	int rc = -1;

	if (json_read_int(c, root, "", "format", &format) < 0)
		goto done;
	if (format != PLAN_FORMAT) {
		/* Format 1 had no declaration_digest: such a plan cannot show
		 * which declaration it was approved for. */
		json_read_fail(c, "", "format",
		    "unsupported plan format (this build reads " PLAN_FORMAT_S
		    "; plan again)");
		goto done;
	}
	if (json_get(root, "adopts") != NULL && read_adopts(c, root, p) < 0)
		goto done;
	b = json_read_object(c, root, "", "base", false);
	s = json_read_object(c, root, "", "snapshot", false);
	if (b == NULL || s == NULL ||
	    json_read_str(c, b, "base", "revision", true, &p->base_revision) <
	        0 ||
	    json_read_str(c, b, "base", "source", false, &p->base_source) < 0 ||
	    json_read_str(c, s, "snapshot", "source", false,
	        &p->snapshot_source) < 0 ||
	    json_read_str(c, s, "snapshot", "taken_at", true,
	        &p->snapshot_taken_at) < 0 ||
	    json_read_str(c, root, "", "cluster", false, &p->cluster) < 0 ||
	    json_read_str(c, root, "", "declaration_digest", true,
	        &p->declaration_digest) < 0 ||
	    json_read_int(c, root, "", "destroyed_messages",
	        &p->destroyed_messages) < 0 ||
	    json_read_strings(c, root, "", "diagnostics", &p->diagnostics,
	        &p->ndiagnostics) < 0 ||
	    json_read_bool(c, root, "", "disconnect_consumers",
	        &p->disconnect_consumers) < 0 ||
	    json_read_str(c, root, "", "kind", false, &p->kind) < 0 ||
	    json_read_str(c, root, "", "message", true, &p->message) < 0 ||
	    json_read_str(c, root, "", "mode", false, &mode) < 0 ||
	    json_read_str(c, root, "", "next_step", true, &p->next_step) < 0 ||
	    json_read_str(c, root, "", "outcome", false, &out) < 0 ||
	    json_read_str(c, root, "", "refusal", true, &p->refusal) < 0 ||
	    json_read_str(c, root, "", "revision", true, &p->revision) < 0)
		goto done;
	if (strcmp(mode, "CONFIG_MANAGED") == 0)
		p->mode = DECL_CONFIG_MANAGED;
	else if (strcmp(mode, "STUDIO_MANAGED") != 0) {
		json_read_fail(c, "", "mode",
		    "expected STUDIO_MANAGED or CONFIG_MANAGED");
		goto done;
	}
	if (plan_outcome_parse(out, &p->outcome) < 0) {
		json_read_fail(c, "", "outcome", "unknown outcome");
		goto done;
	}
	if (p->declaration_digest != NULL &&
	    !is_sha256_hex(p->declaration_digest)) {
		json_read_fail(c, "", "declaration_digest",
		    "expected a SHA-256 in lower-case hex");
		goto done;
	}
	rc = 0;
done:
	free(mode);
	free(out);
	return rc;
}

int
plan_parse_json(struct plan **out, const char *path, const char *text,
    size_t len, struct err *err)
{
	struct json_reader c = {path, err};
	struct json_doc *doc = NULL;
	const struct json *root;
	struct plan *p = NULL;
	int rc = -1;

	if (len > PLAN_JSON_MAX)
		return err_setf(err, &(struct pos){path, 0, 0},
		    "plan too large");
	if (json_parse(&doc, path, text, len, err) < 0)
		return -1;
	root = json_doc_root(doc);
	if (!json_is_object(root)) {
		err_setf(err, &(struct pos){path, 0, 0}, "not a JSON object");
		goto done;
	}
	p = xcalloc(1, sizeof(*p));
	if (pheader(&c, root, p) < 0 || psettings(&c, root, p) < 0 ||
	    pnodes(&c, root, p) < 0 || punmanaged(&c, root, p) < 0 ||
	    pactions(&c, root, p) < 0 ||
	    plan_broker_xml_parse(&c, root, p) < 0 ||
	    plan_policy_parse(&c, root, p) < 0)
		goto done;
	*out = p;
	p = NULL;
	rc = 0;
done:
	plan_free(p);
	json_doc_free(doc);
	return rc;
}
