/* reconcile/plan-parse.c: plan.json back into a struct recon_plan (apply
 * and approve read what the planner wrote). Errors name the member by its
 * JSON path: `plan.json: actions[0].nodes[1].outcome: expected a string`.
 * Rendering the parse of a plan.json gives the same bytes. */
#include "plan-int.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/xalloc.h"

#define PLAN_JSON_MAX (256u * 1024u * 1024u)

struct pctx {
	const char *path;
	struct err *err;
};

static int
fail(struct pctx *c, const char *where, const char *key, const char *what)
{
	return err_setf(c->err, &(struct pos){c->path, 0, 0}, "%s%s%s: %s",
	    where, where[0] != '\0' ? "." : "", key, what);
}

static const cJSON *
member(struct pctx *c, const cJSON *o, const char *where, const char *key)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, key);

	if (m == NULL)
		fail(c, where, key, "missing");
	return m;
}

/* A string member; NULL allowed when nullable. */
static int
pstr(struct pctx *c, const cJSON *o, const char *where, const char *key,
    bool nullable, char **out)
{
	const cJSON *m = member(c, o, where, key);

	if (m == NULL)
		return -1;
	if (nullable && cJSON_IsNull(m)) {
		*out = NULL;
		return 0;
	}
	if (!cJSON_IsString(m))
		return fail(c, where, key,
		    nullable ? "expected a string or null"
		             : "expected a string");
	*out = xstrdup(m->valuestring);
	return 0;
}

static int
pint(struct pctx *c, const cJSON *o, const char *where, const char *key,
    int64_t *out)
{
	const cJSON *m = member(c, o, where, key);

	if (m == NULL)
		return -1;
	if (!cJSON_IsNumber(m) || m->valuedouble != floor(m->valuedouble) ||
	    fabs(m->valuedouble) > 9007199254740992.0)
		return fail(c, where, key, "expected an integer");
	*out = (int64_t)m->valuedouble;
	return 0;
}

static int
pbool(struct pctx *c, const cJSON *o, const char *where, const char *key,
    bool *out)
{
	const cJSON *m = member(c, o, where, key);

	if (m == NULL)
		return -1;
	if (!cJSON_IsBool(m))
		return fail(c, where, key, "expected a boolean");
	*out = cJSON_IsTrue(m);
	return 0;
}

static const cJSON *
parr(struct pctx *c, const cJSON *o, const char *where, const char *key,
    size_t *n)
{
	const cJSON *m = member(c, o, where, key);

	if (m == NULL)
		return NULL;
	if (!cJSON_IsArray(m)) {
		fail(c, where, key, "expected an array");
		return NULL;
	}
	*n = (size_t)cJSON_GetArraySize(m);
	return m;
}

static const cJSON *
pobj(struct pctx *c, const cJSON *o, const char *where, const char *key,
    bool nullable)
{
	const cJSON *m = member(c, o, where, key);

	if (m == NULL)
		return NULL;
	if (nullable && cJSON_IsNull(m))
		return m;
	if (!cJSON_IsObject(m)) {
		fail(c, where, key, "expected an object");
		return NULL;
	}
	return m;
}

static int
pstrs(struct pctx *c, const cJSON *o, const char *where, const char *key,
    char ***out, size_t *n)
{
	const cJSON *a = parr(c, o, where, key, n), *it;
	size_t i = 0;

	if (a == NULL)
		return -1;
	*out = xcalloc(*n + 1, sizeof(char *));
	cJSON_ArrayForEach(it, a)
	{
		if (!cJSON_IsString(it)) {
			*n = i;
			return fail(c, where, key,
			    "expected an array of strings");
		}
		(*out)[i++] = xstrdup(it->valuestring);
	}
	return 0;
}

static int
prouting(struct pctx *c, const cJSON *o, const char *where, const char *key,
    unsigned *out)
{
	const cJSON *a, *it;
	size_t n;

	a = parr(c, o, where, key, &n);
	if (a == NULL)
		return -1;
	*out = 0;
	cJSON_ArrayForEach(it, a)
	{
		if (cJSON_IsString(it) &&
		    strcmp(it->valuestring, "ANYCAST") == 0)
			*out |= DECL_ANYCAST;
		else if (cJSON_IsString(it) &&
		         strcmp(it->valuestring, "MULTICAST") == 0)
			*out |= DECL_MULTICAST;
		else
			return fail(c, where, key,
			    "expected ANYCAST or MULTICAST");
	}
	return 0;
}

/* An optional string member (absent = NULL). */
static int
popt(struct pctx *c, const cJSON *o, const char *where, const char *key,
    char **out)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, key);

	*out = NULL;
	if (m == NULL)
		return 0;
	if (!cJSON_IsString(m))
		return fail(c, where, key, "expected a string");
	*out = xstrdup(m->valuestring);
	return 0;
}

/* The createQueue JSON of plan-json.c. */
static int
pqueue(struct pctx *c, const cJSON *o, const char *w, struct recon_queue *q)
{
	char *rt = NULL;
	int rc = -1;

	memset(q, 0, sizeof(*q));
	if (pstr(c, o, w, "address", false, &q->address) < 0 ||
	    pint(c, o, w, "consumers-before-dispatch",
	        &q->consumers_before_dispatch) < 0 ||
	    pint(c, o, w, "delay-before-dispatch", &q->delay_before_dispatch) <
	        0 ||
	    pbool(c, o, w, "durable", &q->durable) < 0 ||
	    pbool(c, o, w, "enabled", &q->enabled) < 0 ||
	    pbool(c, o, w, "exclusive", &q->exclusive) < 0 ||
	    popt(c, o, w, "filter-string", &q->filter) < 0 ||
	    popt(c, o, w, "last-value-key", &q->last_value_key) < 0 ||
	    pint(c, o, w, "max-consumers", &q->max_consumers) < 0 ||
	    pstr(c, o, w, "name", false, &q->name) < 0 ||
	    pbool(c, o, w, "purge-on-no-consumers", &q->purge_on_no_consumers) <
	        0 ||
	    pint(c, o, w, "ring-size", &q->ring_size) < 0 ||
	    pstr(c, o, w, "routing-type", false, &rt) < 0)
		goto done;
	if (strcmp(rt, "ANYCAST") == 0)
		q->routing = DECL_ANYCAST;
	else if (strcmp(rt, "MULTICAST") == 0)
		q->routing = DECL_MULTICAST;
	else {
		fail(c, w, "routing-type", "expected ANYCAST or MULTICAST");
		goto done;
	}
	rc = 0;
done:
	free(rt);
	return rc;
}

static int
ptransformer(struct pctx *c, const cJSON *o, const char *w,
    struct recon_divert *d)
{
	const cJSON *t =
	    cJSON_GetObjectItemCaseSensitive(o, "transformer-configuration");
	const cJSON *props, *it;
	size_t i = 0;

	if (t == NULL)
		return 0;
	if (pstr(c, t, w, "class-name", false, &d->transformer_class_name) < 0)
		return -1;
	props = pobj(c, t, w, "properties", false);
	if (props == NULL)
		return -1;
	d->ntransformer_properties = (size_t)cJSON_GetArraySize(props);
	d->transformer_properties =
	    xcalloc(d->ntransformer_properties + 1, sizeof(struct decl_kv));
	cJSON_ArrayForEach(it, props)
	{
		if (!cJSON_IsString(it)) {
			d->ntransformer_properties = i;
			return fail(c, w, "transformer-configuration",
			    "property values must be strings");
		}
		d->transformer_properties[i].key = xstrdup(it->string);
		d->transformer_properties[i].value = xstrdup(it->valuestring);
		i++;
	}
	return 0;
}

/* The createDivert JSON of plan-json.c. */
static int
pdivert(struct pctx *c, const cJSON *o, const char *w, struct recon_divert *d)
{
	char *rt = NULL;
	int rc = -1;

	memset(d, 0, sizeof(*d));
	if (pstr(c, o, w, "address", false, &d->address) < 0 ||
	    pbool(c, o, w, "exclusive", &d->exclusive) < 0 ||
	    pstr(c, o, w, "filter-string", false, &d->filter) < 0 ||
	    pstr(c, o, w, "forwarding-address", false, &d->forwarding_address) <
	        0 ||
	    pstr(c, o, w, "name", false, &d->name) < 0 ||
	    pstr(c, o, w, "routing-name", true, &d->routing_name) < 0 ||
	    pstr(c, o, w, "routing-type", false, &rt) < 0 ||
	    ptransformer(c, o, w, d) < 0)
		goto done;
	if (d->filter[0] == '\0') {
		free(d->filter);
		d->filter = NULL;
	}
	if (decl_divert_routing_parse(rt, &d->routing_type) < 0) {
		fail(c, w, "routing-type",
		    "expected STRIP, PASS, ANYCAST or MULTICAST");
		goto done;
	}
	rc = 0;
done:
	free(rt);
	return rc;
}

static int
pop(struct pctx *c, const cJSON *o, const char *w, struct recon_op *op)
{
	const cJSON *cfg;
	char *k = NULL;
	int rc = -1;

	memset(op, 0, sizeof(*op));
	if (pstr(c, o, w, "op", false, &k) < 0 ||
	    pstr(c, o, w, "name", false, &op->name) < 0)
		goto done;
	if (recon_opk_parse(k, &op->kind) < 0) {
		fail(c, w, "op", "unknown operation");
		goto done;
	}
	if (op->kind == RECON_OP_DESTROY_QUEUE &&
	    pbool(c, o, w, "remove_consumers", &op->remove_consumers) < 0)
		goto done;
	if ((op->kind == RECON_OP_CREATE_ADDRESS ||
	        op->kind == RECON_OP_UPDATE_ADDRESS) &&
	    prouting(c, o, w, "routing_types", &op->routing) < 0)
		goto done;
	cfg = cJSON_GetObjectItemCaseSensitive(o, "config");
	if (cfg != NULL && (op->kind == RECON_OP_CREATE_QUEUE ||
	                       op->kind == RECON_OP_UPDATE_QUEUE)) {
		op->queue = xcalloc(1, sizeof(*op->queue));
		if (pqueue(c, cfg, w, op->queue) < 0)
			goto done;
	} else if (cfg != NULL) {
		op->divert = xcalloc(1, sizeof(*op->divert));
		if (pdivert(c, cfg, w, op->divert) < 0)
			goto done;
	}
	rc = 0;
done:
	free(k);
	return rc;
}

static int
pobserved(struct pctx *c, const cJSON *o, const char *w,
    struct recon_observed *ob)
{
	const cJSON *d, *q, *cfg;

	if (pbool(c, o, w, "present", &ob->present) < 0 ||
	    pstrs(c, o, w, "bindings", &ob->bindings, &ob->nbindings) < 0 ||
	    prouting(c, o, w, "routing_types", &ob->address_routing) < 0)
		return -1;
	d = pobj(c, o, w, "divert", true);
	q = pobj(c, o, w, "queue", true);
	if (d == NULL || q == NULL)
		return -1;
	if (!cJSON_IsNull(d)) {
		ob->divert = xcalloc(1, sizeof(*ob->divert));
		if (pdivert(c, d, w, ob->divert) < 0)
			return -1;
	}
	if (cJSON_IsNull(q))
		return 0;
	ob->queue = xcalloc(1, sizeof(*ob->queue));
	cfg = pobj(c, q, w, "config", false);
	if (cfg == NULL || pqueue(c, cfg, w, ob->queue) < 0 ||
	    pint(c, q, w, "consumers", &ob->queue->consumer_count) < 0 ||
	    pint(c, q, w, "messages", &ob->queue->message_count) < 0)
		return -1;
	return 0;
}

static int
premoved(struct pctx *c, const cJSON *o, const char *w,
    struct recon_node_plan *np)
{
	const cJSON *a = parr(c, o, w, "removed_diverts", &np->nremoved), *it,
	            *cfg;
	size_t i = 0;

	if (a == NULL)
		return -1;
	np->removed = xcalloc(np->nremoved + 1, sizeof(*np->removed));
	cJSON_ArrayForEach(it, a)
	{
		cfg = pobj(c, it, w, "config", false);
		if (cfg == NULL ||
		    pdivert(c, cfg, w, &np->removed[i].config) < 0 ||
		    pbool(c, it, w, "declared", &np->removed[i].declared) < 0) {
			np->nremoved = i + 1;
			return -1;
		}
		i++;
	}
	return 0;
}

static int
pkept(struct pctx *c, const cJSON *o, const char *w, struct recon_node_plan *np)
{
	const cJSON *a = parr(c, o, w, "kept_diverts", &np->nkept), *it;
	struct recon_kept_divert *k;
	size_t i = 0;

	if (a == NULL)
		return -1;
	np->kept = xcalloc(np->nkept + 1, sizeof(*np->kept));
	cJSON_ArrayForEach(it, a)
	{
		k = &np->kept[i++];
		if (pstr(c, it, w, "address", false, &k->address) < 0 ||
		    pstr(c, it, w, "forwarding_address", false,
		        &k->forwarding_address) < 0 ||
		    pstr(c, it, w, "name", false, &k->name) < 0 ||
		    pstr(c, it, w, "reason", false, &k->reason) < 0)
			return -1;
	}
	return 0;
}

static int
ptaps(struct pctx *c, const cJSON *o, const char *w, struct recon_node_plan *np)
{
	const cJSON *a = parr(c, o, w, "taps", &np->ntaps), *it;
	struct recon_tap *t;
	char *fate = NULL;
	size_t i = 0;
	int rc = 0;

	if (a == NULL)
		return -1;
	np->taps = xcalloc(np->ntaps + 1, sizeof(*np->taps));
	cJSON_ArrayForEach(it, a)
	{
		t = &np->taps[i++];
		if (pstr(c, it, w, "capture", true, &t->capture) < 0 ||
		    pstr(c, it, w, "name", false, &t->name) < 0 ||
		    pstr(c, it, w, "reason", false, &t->reason) < 0 ||
		    pstr(c, it, w, "fate", false, &fate) < 0)
			return -1;
		if (strcmp(fate, "removed-by-subscription") == 0)
			t->fate = RECON_TAP_REMOVED_BY_SUBSCRIPTION;
		else if (strcmp(fate, "kept") != 0)
			rc = fail(c, w, "fate",
			    "expected kept or removed-by-subscription");
		free(fate);
		fate = NULL;
		if (rc < 0)
			return -1;
	}
	return 0;
}

static int
pops(struct pctx *c, const cJSON *o, const char *w, struct recon_node_plan *np)
{
	const cJSON *a = parr(c, o, w, "operations", &np->nops), *it;
	size_t i = 0;
	char *ow;
	int rc = 0;

	if (a == NULL)
		return -1;
	np->ops = xcalloc(np->nops + 1, sizeof(*np->ops));
	cJSON_ArrayForEach(it, a)
	{
		ow = xasprintf("%s.operations[%zu]", w, i);
		rc = pop(c, it, ow, &np->ops[i++]);
		free(ow);
		if (rc < 0)
			return -1;
	}
	return 0;
}

static int
pnode_plan(struct pctx *c, const cJSON *o, const char *w,
    struct recon_node_plan *np)
{
	const cJSON *ob;
	char *out = NULL;
	int rc = -1;

	if (pint(c, o, w, "consumers", &np->consumers) < 0 ||
	    pint(c, o, w, "destroyed_messages", &np->destroyed_messages) < 0 ||
	    pstr(c, o, w, "message", true, &np->message) < 0 ||
	    pstr(c, o, w, "next_step", true, &np->next_step) < 0 ||
	    pstr(c, o, w, "node", false, &np->node) < 0 ||
	    pstr(c, o, w, "outcome", false, &out) < 0 ||
	    pstr(c, o, w, "refusal", true, &np->refusal) < 0 ||
	    pstrs(c, o, w, "warnings", &np->warnings, &np->nwarnings) < 0 ||
	    pkept(c, o, w, np) < 0 || premoved(c, o, w, np) < 0 ||
	    ptaps(c, o, w, np) < 0 || pops(c, o, w, np) < 0)
		goto done;
	ob = pobj(c, o, w, "observed", false);
	if (ob == NULL || pobserved(c, ob, w, &np->observed) < 0)
		goto done;
	if (recon_outcome_parse(out, &np->outcome) < 0) {
		fail(c, w, "outcome", "unknown outcome");
		goto done;
	}
	if (np->refusal != NULL &&
	    recon_kind_parse(np->refusal, &np->refusal_kind) < 0)
		np->refusal_kind =
		    RECON_OK; /* a planner kind, e.g. NOT_EMPTY */
	rc = 0;
done:
	free(out);
	return rc;
}

static int
paction(struct pctx *c, const cJSON *o, const char *w, struct recon_action *a)
{
	const cJSON *arr, *it;
	char *k = NULL, *nw;
	size_t i = 0;
	int rc = -1;

	if (pstr(c, o, w, "address", true, &a->address) < 0 ||
	    pbool(c, o, w, "destroys_messages", &a->destroys_messages) < 0 ||
	    pstr(c, o, w, "kind", false, &k) < 0 ||
	    pstr(c, o, w, "name", false, &a->name) < 0 ||
	    pstr(c, o, w, "why", true, &a->why) < 0)
		goto done;
	if (recon_act_parse(k, &a->kind) < 0) {
		fail(c, w, "kind", "unknown action kind");
		goto done;
	}
	arr = parr(c, o, w, "nodes", &a->nnodes);
	if (arr == NULL)
		goto done;
	a->nodes = xcalloc(a->nnodes + 1, sizeof(*a->nodes));
	cJSON_ArrayForEach(it, arr)
	{
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
pactions(struct pctx *c, const cJSON *root, struct recon_plan *p)
{
	const cJSON *arr = parr(c, root, "", "actions", &p->nactions), *it;
	size_t i = 0;
	char *w;
	int rc;

	if (arr == NULL)
		return -1;
	p->actions = xcalloc(p->nactions + 1, sizeof(*p->actions));
	cJSON_ArrayForEach(it, arr)
	{
		w = xasprintf("actions[%zu]", i);
		rc = paction(c, it, w, &p->actions[i++]);
		free(w);
		if (rc < 0)
			return -1;
	}
	return 0;
}

static int
pnodes(struct pctx *c, const cJSON *root, struct recon_plan *p)
{
	const cJSON *arr = parr(c, root, "", "nodes", &p->nnodes), *it;
	struct recon_node_status *n;
	size_t i = 0;

	if (arr == NULL)
		return -1;
	p->nodes = xcalloc(p->nnodes + 1, sizeof(*p->nodes));
	cJSON_ArrayForEach(it, arr)
	{
		n = &p->nodes[i++];
		if (pstr(c, it, "nodes[]", "message", true, &n->message) < 0 ||
		    pstr(c, it, "nodes[]", "node", false, &n->node) < 0 ||
		    pbool(c, it, "nodes[]", "reachable", &n->reachable) < 0 ||
		    pstr(c, it, "nodes[]", "refusal", true, &n->refusal) < 0)
			return -1;
	}
	return 0;
}

static int
punmanaged(struct pctx *c, const cJSON *root, struct recon_plan *p)
{
	const cJSON *arr = parr(c, root, "", "unmanaged", &p->nunmanaged), *it;
	struct recon_unmanaged *u;
	size_t i = 0;

	if (arr == NULL)
		return -1;
	p->unmanaged = xcalloc(p->nunmanaged + 1, sizeof(*p->unmanaged));
	cJSON_ArrayForEach(it, arr)
	{
		u = &p->unmanaged[i++];
		if (pstr(c, it, "unmanaged[]", "kind", false, &u->kind) < 0 ||
		    pstr(c, it, "unmanaged[]", "name", false, &u->name) < 0 ||
		    pstrs(c, it, "unmanaged[]", "nodes", &u->nodes,
		        &u->nnodes) < 0)
			return -1;
	}
	return 0;
}

static int
psettings(struct pctx *c, const cJSON *root, struct recon_plan *p)
{
	const cJSON *s = pobj(c, root, "", "settings", false), *arr, *it;
	size_t i = 0;

	if (s == NULL ||
	    pstr(c, s, "settings", "capture_prefix", true, &p->capture_prefix) <
	        0 ||
	    pint(c, s, "settings", "max_destroyed_messages",
	        &p->max_destroyed_messages) < 0)
		return -1;
	arr = parr(c, s, "settings", "captures", &p->ncaptures);
	if (arr == NULL)
		return -1;
	p->capture_names = xcalloc(p->ncaptures + 1, sizeof(char *));
	p->capture_patterns = xcalloc(p->ncaptures + 1, sizeof(char *));
	cJSON_ArrayForEach(it, arr)
	{
		if (pstr(c, it, "settings.captures[]", "name", false,
		        &p->capture_names[i]) < 0 ||
		    pstr(c, it, "settings.captures[]", "pattern", false,
		        &p->capture_patterns[i]) < 0)
			return -1;
		i++;
	}
	return 0;
}

static int
pheader(struct pctx *c, const cJSON *root, struct recon_plan *p)
{
	const cJSON *b, *s;
	char *mode = NULL, *out = NULL;
	int64_t format = 0;
	int rc = -1;

	if (pint(c, root, "", "format", &format) < 0)
		goto done;
	if (format != RECON_PLAN_FORMAT) {
		fail(c, "", "format",
		    "unsupported plan format (this build reads 1)");
		goto done;
	}
	b = pobj(c, root, "", "base", false);
	s = pobj(c, root, "", "snapshot", false);
	if (b == NULL || s == NULL ||
	    pstr(c, b, "base", "revision", true, &p->base_revision) < 0 ||
	    pstr(c, b, "base", "source", false, &p->base_source) < 0 ||
	    pstr(c, s, "snapshot", "source", false, &p->snapshot_source) < 0 ||
	    pstr(c, s, "snapshot", "taken_at", true, &p->snapshot_taken_at) <
	        0 ||
	    pstr(c, root, "", "cluster", false, &p->cluster) < 0 ||
	    pint(c, root, "", "destroyed_messages", &p->destroyed_messages) <
	        0 ||
	    pstrs(c, root, "", "diagnostics", &p->diagnostics,
	        &p->ndiagnostics) < 0 ||
	    pbool(c, root, "", "disconnect_consumers",
	        &p->disconnect_consumers) < 0 ||
	    pstr(c, root, "", "kind", false, &p->kind) < 0 ||
	    pstr(c, root, "", "message", true, &p->message) < 0 ||
	    pstr(c, root, "", "mode", false, &mode) < 0 ||
	    pstr(c, root, "", "next_step", true, &p->next_step) < 0 ||
	    pstr(c, root, "", "outcome", false, &out) < 0 ||
	    pstr(c, root, "", "refusal", true, &p->refusal) < 0 ||
	    pstr(c, root, "", "revision", true, &p->revision) < 0)
		goto done;
	if (strcmp(mode, "CONFIG_MANAGED") == 0)
		p->mode = DECL_CONFIG_MANAGED;
	else if (strcmp(mode, "STUDIO_MANAGED") != 0) {
		fail(c, "", "mode",
		    "expected STUDIO_MANAGED or CONFIG_MANAGED");
		goto done;
	}
	if (recon_outcome_parse(out, &p->outcome) < 0) {
		fail(c, "", "outcome", "unknown outcome");
		goto done;
	}
	rc = 0;
done:
	free(mode);
	free(out);
	return rc;
}

int
recon_plan_parse_json(struct recon_plan **out, const char *path,
    const char *text, size_t len, struct err *err)
{
	struct pctx c = {path, err};
	struct recon_plan *p;
	cJSON *root;
	int rc = -1;

	if (len > PLAN_JSON_MAX)
		return err_setf(err, &(struct pos){path, 0, 0},
		    "plan too large");
	root = cJSON_ParseWithLength(text, len);
	if (root == NULL || !cJSON_IsObject(root)) {
		cJSON_Delete(root);
		return err_setf(err, &(struct pos){path, 0, 0},
		    "not a JSON object");
	}
	p = xcalloc(1, sizeof(*p));
	if (pheader(&c, root, p) < 0 || psettings(&c, root, p) < 0 ||
	    pnodes(&c, root, p) < 0 || punmanaged(&c, root, p) < 0 ||
	    pactions(&c, root, p) < 0)
		goto done;
	*out = p;
	p = NULL;
	rc = 0;
done:
	recon_plan_free(p);
	cJSON_Delete(root);
	return rc;
}
