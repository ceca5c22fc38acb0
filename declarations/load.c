/* declarations/load.c: YAML trees of one cluster's files to the model.
 *
 * Every file needs `version`; `cluster` and `mode` must appear in at least
 * one file and agree wherever they appear; `settings` appears at most once
 * per cluster; `nodes`, `addresses`, `diverts` and `captures` concatenate
 * in file order. The cross-object rules (check.c) run only once every file
 * loaded without error, so that a broken object never cascades into
 * misleading findings. */
#include "decl-int.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/xalloc.h"

/* A head key seen in an earlier file (each file's tree is freed once it
 * is loaded, so the value and its place are copied). */
struct yseen {
	bool set;
	char *str;
	struct pos pos;
};

struct load {
	struct decl_cluster *c;
	struct errlist *diags;
	struct yseen cluster_at, mode_at, settings_at;
	size_t nobjects;
	bool too_many;
	bool cluster_seen, mode_seen; /* present, even if invalid */
};

#define FLD(s, k, t, m, req)                                                   \
	{                                                                      \
		k, t, offsetof(struct s, m), 0, req, 0, 0, false, NULL         \
	}
#define FINT(s, k, m, lo, hi, nz, txt)                                         \
	{                                                                      \
		k, DECL_FIELD_INT, offsetof(struct s, m), 0, false, lo, hi,    \
		    nz, txt                                                    \
	}

/* jolokia and credentials are required of a node without members; with
 * members the node has no endpoint of its own, and credentials is the
 * default of the members that name none (load_members). */
static const struct decl_field node_tab[] = {
    FLD(decl_node, "name", DECL_FIELD_FILENAME, name, true),
    FLD(decl_node, "jolokia", DECL_FIELD_URL, jolokia, false),
    FLD(decl_node, "credentials", DECL_FIELD_CREDENTIALS, credentials, false),
    {"members", DECL_FIELD_OUTER, 0, 0, false, 0, 0, false, NULL},
};

static const struct decl_field member_tab[] = {
    FLD(decl_member, "name", DECL_FIELD_FILENAME, name, true),
    FLD(decl_member, "jolokia", DECL_FIELD_URL, jolokia, true),
    FLD(decl_member, "credentials", DECL_FIELD_CREDENTIALS, credentials, false),
};

static const struct decl_field address_tab[] = {
    FLD(decl_address, "name", DECL_FIELD_NAME, name, true),
    FLD(decl_address, "routing", DECL_FIELD_ROUTING_SET, routing, true),
    {"queues", DECL_FIELD_OUTER, 0, 0, false, 0, 0, false, NULL},
    /* per-object policy (docs/policy.md) */
    FLD(decl_address, "deletion-policy", DECL_FIELD_DELETION_POLICY,
        policy.deletion, false),
    FLD(decl_address, "managed", DECL_FIELD_BOOL_NOT, policy.unmanaged, false),
};

static const struct decl_field queue_tab[] = {
    FLD(decl_queue, "name", DECL_FIELD_NAME, name, true),
    FLD(decl_queue, "routing", DECL_FIELD_ROUTING_ONE, routing, false),
    FLD(decl_queue, "durable", DECL_FIELD_BOOL, durable, false),
    FLD(decl_queue, "filter", DECL_FIELD_STR_OPT, filter, false),
    FINT(decl_queue, "max-consumers", max_consumers, -1, INT32_MAX, false,
        "-1 (unlimited) or more"),
    FLD(decl_queue, "purge-on-no-consumers", DECL_FIELD_BOOL,
        purge_on_no_consumers, false),
    FLD(decl_queue, "exclusive", DECL_FIELD_BOOL, exclusive, false),
    FINT(decl_queue, "ring-size", ring_size, -1, INT64_MAX, true,
        "-1 (unbounded) or at least 1"),
    FLD(decl_queue, "enabled", DECL_FIELD_BOOL, enabled, false),
    FLD(decl_queue, "last-value-key", DECL_FIELD_STR_OPT, last_value_key,
        false),
    FINT(decl_queue, "consumers-before-dispatch", consumers_before_dispatch, 0,
        INT32_MAX, false, "0 or more"),
    FINT(decl_queue, "delay-before-dispatch", delay_before_dispatch, -1,
        INT64_MAX, false, "-1 (none) or more"),
    FLD(decl_queue, "delete-if-empty", DECL_FIELD_BOOL, delete_if_empty, false),
    /* per-object policy (docs/policy.md) */
    FLD(decl_queue, "deletion-policy", DECL_FIELD_DELETION_POLICY,
        policy.deletion, false),
    FLD(decl_queue, "managed", DECL_FIELD_BOOL_NOT, policy.unmanaged, false),
};

static const struct decl_field divert_tab[] = {
    FLD(decl_divert, "name", DECL_FIELD_NAME, name, true),
    FLD(decl_divert, "address", DECL_FIELD_NAME, address, true),
    FLD(decl_divert, "forwarding-address", DECL_FIELD_STR, forwarding_address,
        true),
    FLD(decl_divert, "exclusive", DECL_FIELD_BOOL, exclusive, false),
    FLD(decl_divert, "filter", DECL_FIELD_STR_OPT, filter, false),
    FLD(decl_divert, "routing-type", DECL_FIELD_DIVERT_ROUTING, routing_type,
        false),
    FLD(decl_divert, "routing-name", DECL_FIELD_STR_OPT, routing_name, false),
    FLD(decl_divert, "transformer-class-name", DECL_FIELD_STR_OPT,
        transformer_class_name, false),
    {"transformer-properties", DECL_FIELD_KEY_VALUES,
        offsetof(struct decl_divert, transformer_properties),
        offsetof(struct decl_divert, ntransformer_properties), false, 0, 0,
        false, NULL},
    /* per-object policy (docs/policy.md) */
    FLD(decl_divert, "deletion-policy", DECL_FIELD_DELETION_POLICY,
        policy.deletion, false),
    FLD(decl_divert, "managed", DECL_FIELD_BOOL_NOT, policy.unmanaged, false),
};

static const struct decl_field capture_tab[] = {
    FLD(decl_capture, "name", DECL_FIELD_STR, name, true),
    FLD(decl_capture, "pattern", DECL_FIELD_STR, pattern, true),
    FINT(decl_capture, "ring-size", ring_size, 1, INT64_MAX, false,
        "at least 1"),
};

static const struct decl_field settings_tab[] = {
    FLD(decl_settings, "capture-prefix", DECL_FIELD_NAME, capture_prefix,
        false),
    FINT(decl_settings, "max-destroyed-messages", max_destroyed_messages, 0,
        INT64_MAX, false, "0 or more"),
    FLD(decl_settings, "delete-if-empty", DECL_FIELD_BOOL, delete_if_empty,
        false),
    /* names no plan may delete (docs/policy.md): load_protect */
    {"protect", DECL_FIELD_OUTER, 0, 0, false, 0, 0, false, NULL},
};

static const struct decl_field top_tab[] = {
    {"version", DECL_FIELD_OUTER, 0, 0, false, 0, 0, false, NULL},
    {"cluster", DECL_FIELD_OUTER, 0, 0, false, 0, 0, false, NULL},
    {"mode", DECL_FIELD_OUTER, 0, 0, false, 0, 0, false, NULL},
    {"settings", DECL_FIELD_OUTER, 0, 0, false, 0, 0, false, NULL},
    {"nodes", DECL_FIELD_OUTER, 0, 0, false, 0, 0, false, NULL},
    {"addresses", DECL_FIELD_OUTER, 0, 0, false, 0, 0, false, NULL},
    {"diverts", DECL_FIELD_OUTER, 0, 0, false, 0, 0, false, NULL},
    {"captures", DECL_FIELD_OUTER, 0, 0, false, 0, 0, false, NULL},
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* The items of a list-valued key; null counts as empty. Returns -1 when v
 * is not a list. */
static int
want_list(struct load *l, const struct decl_yaml_node *v, const char *key)
{
	if (v == NULL || decl_yaml_node_is_null(v))
		return 0;
	if (v->kind != DECL_YAML_SEQ)
		return errlist_add(l->diags, DIAG_ERROR, &v->pos,
		    "'%s' must be a list, not %s", key, decl_yaml_kind_name(v));
	return 0;
}

static size_t
nitems(const struct decl_yaml_node *v)
{
	return v == NULL || v->kind != DECL_YAML_SEQ ? 0 : v->n;
}

/* Count declared objects against DECL_OBJECTS_MAX; -1 past it. */
static int
count_object(struct load *l, const struct decl_yaml_node *at)
{
	if (++l->nobjects <= DECL_OBJECTS_MAX)
		return 0;
	if (!l->too_many)
		errlist_add(l->diags, DIAG_ERROR, &at->pos,
		    "more than %d addresses, queues and diverts in one cluster",
		    DECL_OBJECTS_MAX);
	l->too_many = true;
	return -1;
}

/* The members of node nd (map v): an HA node, or a node with an endpoint
 * of its own; never both, never neither. */
static void
load_members(struct load *l, struct decl_node *nd,
    const struct decl_yaml_node *v)
{
	const struct decl_yaml_node *ms = decl_yaml_map_get(v, "members");
	const char *who = nd->name != NULL ? nd->name : "?";
	struct decl_member *m;
	size_t i, j;

	if (ms == NULL) {
		if (decl_yaml_map_get(v, "jolokia") == NULL)
			errlist_add(l->diags, DIAG_ERROR, &v->pos,
			    "missing required key 'jolokia' in node (or 'members', for an HA pair)");
		if (decl_yaml_map_get(v, "credentials") == NULL)
			errlist_add(l->diags, DIAG_ERROR, &v->pos,
			    "missing required key 'credentials' in node");
		return;
	}
	if (decl_yaml_map_get(v, "jolokia") != NULL) {
		errlist_add(l->diags, DIAG_ERROR,
		    &decl_yaml_map_get(v, "jolokia")->pos,
		    "node '%s' has both 'jolokia' and 'members': an HA node is reached through its members' endpoints only",
		    who);
		return;
	}
	if (want_list(l, ms, "members") < 0)
		return;
	if (ms->n < 2 || ms->n > DECL_MEMBERS_MAX) {
		errlist_add(l->diags, DIAG_ERROR, &ms->pos,
		    "node '%s' has %zu member%s: an HA node has 2 to %d (a primary and its backups)",
		    who, ms->n, ms->n == 1 ? "" : "s", DECL_MEMBERS_MAX);
		return;
	}
	nd->members = xcalloc(ms->n, sizeof(*nd->members));
	for (i = 0; i < ms->n; i++) {
		m = &nd->members[nd->nmembers++];
		m->pos = ms->vals[i]->pos;
		if (decl_fields_parse(m, ms->vals[i], "member", member_tab,
		        NELEM(member_tab), l->diags) == 0 &&
		    m->credentials == NULL && nd->credentials == NULL)
			errlist_add(l->diags, DIAG_ERROR, &m->pos,
			    "member '%s' of node '%s' has no 'credentials' and neither has the node",
			    m->name, who);
		for (j = 0; m->name != NULL && j + 1 < nd->nmembers; j++)
			if (nd->members[j].name != NULL &&
			    strcmp(nd->members[j].name, m->name) == 0)
				errlist_add(l->diags, DIAG_ERROR, &m->pos,
				    "duplicate member name '%s' in node '%s' (first declared at %s:%u:%u)",
				    m->name, who, nd->members[j].pos.path,
				    nd->members[j].pos.line,
				    nd->members[j].pos.col);
	}
}

static void
load_nodes(struct load *l, const struct decl_yaml_node *v)
{
	struct decl_cluster *c = l->c;
	size_t i;

	if (want_list(l, v, "nodes") < 0 || nitems(v) == 0)
		return;
	c->nodes = xreallocarray(c->nodes, c->nnodes + v->n, sizeof(*c->nodes));
	for (i = 0; i < v->n; i++) {
		struct decl_node *nd;

		if (c->nnodes == DECL_NODES_MAX) {
			errlist_add(l->diags, DIAG_ERROR, &v->vals[i]->pos,
			    "more than %d nodes in one cluster",
			    DECL_NODES_MAX);
			return;
		}
		nd = &c->nodes[c->nnodes++];
		memset(nd, 0, sizeof(*nd));
		nd->pos = v->vals[i]->pos;
		if (decl_fields_parse(nd, v->vals[i], "node", node_tab,
		        NELEM(node_tab), l->diags) < 0 &&
		    v->vals[i]->kind != DECL_YAML_MAP)
			continue;
		load_members(l, nd, v->vals[i]);
	}
}

/* Where the object's own policy keys were written (map v). */
static void
policy_at(struct decl_policy *p, const struct decl_yaml_node *v)
{
	const struct decl_yaml_node *k;

	k = decl_yaml_map_get(v, "deletion-policy");
	if (k != NULL)
		p->deletion_at = k->pos;
	k = decl_yaml_map_get(v, "managed");
	if (k != NULL)
		p->managed_at = k->pos;
}

static void
load_queue(struct load *l, struct decl_address *a, struct decl_queue *q,
    const struct decl_yaml_node *v)
{
	memset(q, 0, sizeof(*q));
	q->pos = v->pos;
	q->address = a->name;
	q->durable = true;
	q->max_consumers = -1;
	q->ring_size = -1;
	q->enabled = true;
	q->delay_before_dispatch = -1;
	/* a queue takes its address's policy unless it writes its own */
	q->policy.deletion = a->policy.deletion;
	q->policy.unmanaged = a->policy.unmanaged;
	if (decl_fields_parse(q, v, "queue", queue_tab, NELEM(queue_tab),
	        l->diags) < 0)
		return;
	policy_at(&q->policy, v);
	decl_delete_if_empty_key(&q->delete_if_empty_at, v);
	if (q->routing != 0 || a->routing == 0 || a->name == NULL)
		return;
	if (a->routing == DECL_ANYCAST || a->routing == DECL_MULTICAST)
		q->routing = a->routing;
	else
		errlist_add(l->diags, DIAG_ERROR, &v->pos,
		    "queue '%s' needs 'routing': address '%s' allows anycast "
		    "and multicast",
		    q->name, a->name);
}

static void
load_address(struct load *l, struct decl_address *a,
    const struct decl_yaml_node *v)
{
	const struct decl_yaml_node *qs;
	size_t i;

	memset(a, 0, sizeof(*a));
	a->pos = v->pos;
	if (decl_fields_parse(a, v, "address", address_tab, NELEM(address_tab),
	        l->diags) < 0 &&
	    v->kind != DECL_YAML_MAP)
		return;
	policy_at(&a->policy, v);
	qs = decl_yaml_map_get(v, "queues");
	if (want_list(l, qs, "queues") < 0 || nitems(qs) == 0)
		return;
	a->queues = xcalloc(qs->n, sizeof(*a->queues));
	for (i = 0; i < qs->n; i++) {
		if (count_object(l, qs->vals[i]) < 0)
			return;
		load_queue(l, a, &a->queues[a->nqueues++], qs->vals[i]);
	}
}

static void
load_addresses(struct load *l, const struct decl_yaml_node *v)
{
	struct decl_cluster *c = l->c;
	size_t i;

	if (want_list(l, v, "addresses") < 0 || nitems(v) == 0)
		return;
	c->addresses = xreallocarray(c->addresses, c->naddresses + v->n,
	    sizeof(*c->addresses));
	for (i = 0; i < v->n; i++) {
		if (count_object(l, v->vals[i]) < 0)
			return;
		load_address(l, &c->addresses[c->naddresses++], v->vals[i]);
	}
}

static void
load_diverts(struct load *l, const struct decl_yaml_node *v)
{
	struct decl_cluster *c = l->c;
	size_t i;

	if (want_list(l, v, "diverts") < 0 || nitems(v) == 0)
		return;
	c->diverts =
	    xreallocarray(c->diverts, c->ndiverts + v->n, sizeof(*c->diverts));
	for (i = 0; i < v->n; i++) {
		struct decl_divert *d;

		if (count_object(l, v->vals[i]) < 0)
			return;
		d = &c->diverts[c->ndiverts++];
		memset(d, 0, sizeof(*d));
		d->pos = v->vals[i]->pos;
		d->routing_type = DECL_DIVERT_STRIP;
		decl_fields_parse(d, v->vals[i], "divert", divert_tab,
		    NELEM(divert_tab), l->diags);
		policy_at(&d->policy, v->vals[i]);
		if (d->routing_name == NULL && d->name != NULL)
			d->routing_name = xstrdup(d->name);
	}
}

static void
load_captures(struct load *l, const struct decl_yaml_node *v)
{
	struct decl_cluster *c = l->c;
	size_t i;

	if (want_list(l, v, "captures") < 0 || nitems(v) == 0)
		return;
	c->captures = xreallocarray(c->captures, c->ncaptures + v->n,
	    sizeof(*c->captures));
	for (i = 0; i < v->n; i++) {
		struct decl_capture *cp;

		cp = &c->captures[c->ncaptures++];
		memset(cp, 0, sizeof(*cp));
		cp->pos = v->vals[i]->pos;
		cp->ring_size = DECL_DEFAULT_CAPTURE_RING;
		decl_fields_parse(cp, v->vals[i], "capture", capture_tab,
		    NELEM(capture_tab), l->diags);
	}
}

static int
load_version(struct load *l, const struct decl_yaml_node *v)
{
	char *end;
	long long n;

	if (v->kind != DECL_YAML_SCALAR || !v->plain ||
	    !(v->str[0] >= '0' && v->str[0] <= '9'))
		return errlist_add(l->diags, DIAG_ERROR, &v->pos,
		    "'version' must be an integer such as 1, not %s%s%s",
		    v->kind == DECL_YAML_SCALAR ? "'" : decl_yaml_kind_name(v),
		    v->kind == DECL_YAML_SCALAR ? v->str : "",
		    v->kind == DECL_YAML_SCALAR ? "'" : "");
	n = strtoll(v->str, &end, 10);
	if (*end != '\0' || n < 1 || n > DECL_VERSION_MAX)
		return errlist_add(l->diags, DIAG_ERROR, &v->pos,
		    "unsupported version '%s' (this build reads version %d)",
		    v->str, DECL_VERSION_MAX);
	if (l->c->version != 0 && l->c->version != (unsigned)n)
		return errlist_add(l->diags, DIAG_ERROR, &v->pos,
		    "version %lld disagrees with version %u of the other files",
		    n, l->c->version);
	l->c->version = (unsigned)n;
	return 0;
}

/* `cluster` and `mode`: once, or repeated with the same value. */
static int
load_agreeing(struct load *l, const struct decl_yaml_node *v, const char *key,
    struct yseen *first)
{
	if (v->kind != DECL_YAML_SCALAR || decl_yaml_node_is_null(v))
		return errlist_add(l->diags, DIAG_ERROR, &v->pos,
		    "'%s' must be a single value, not %s", key,
		    decl_yaml_kind_name(v));
	if (first->set && strcmp(first->str, v->str) != 0)
		return errlist_add(l->diags, DIAG_ERROR, &v->pos,
		    "%s '%s' disagrees with %s '%s' declared at %s:%u:%u", key,
		    v->str, key, first->str, first->pos.path, first->pos.line,
		    first->pos.col);
	if (!first->set) {
		first->set = true;
		first->str = xstrdup(v->str);
		first->pos = v->pos;
	}
	return 0;
}

/* settings.protect: a list of globs ('*' any run, '?' one character),
 * each spelled as a name may be, none twice. */
static void
load_protect(struct load *l, const struct decl_yaml_node *v)
{
	struct decl_settings *st = &l->c->settings;
	const struct decl_yaml_node *it;
	char *bad;
	size_t i, j;

	if (v == NULL || want_list(l, v, "protect") < 0 || nitems(v) == 0)
		return;
	if (v->n > DECL_PROTECT_MAX) {
		errlist_add(l->diags, DIAG_ERROR, &v->pos,
		    "'protect' lists %zu patterns, over the limit of %d", v->n,
		    DECL_PROTECT_MAX);
		return;
	}
	st->protect = xcalloc(v->n, sizeof(*st->protect));
	st->protect_at = xcalloc(v->n, sizeof(*st->protect_at));
	for (i = 0; i < v->n; i++) {
		it = v->vals[i];
		if (it->kind != DECL_YAML_SCALAR ||
		    decl_yaml_node_is_null(it)) {
			errlist_add(l->diags, DIAG_ERROR, &it->pos,
			    "'protect' entries must be patterns such as "
			    "'orders.*', not %s",
			    decl_yaml_node_is_null(it)
			        ? "null"
			        : decl_yaml_kind_name(it));
			continue;
		}
		bad = decl_name_problem(it->str);
		if (bad != NULL) {
			errlist_add(l->diags, DIAG_ERROR, &it->pos,
			    "'protect' pattern '%s' %s", it->str, bad);
			free(bad);
			continue;
		}
		for (j = 0; j < st->nprotect; j++)
			if (strcmp(st->protect[j], it->str) == 0)
				break;
		if (j < st->nprotect) {
			errlist_add(l->diags, DIAG_ERROR, &it->pos,
			    "'protect' pattern '%s' is listed twice (first at "
			    "%s:%u:%u)",
			    it->str, st->protect_at[j].path,
			    st->protect_at[j].line, st->protect_at[j].col);
			continue;
		}
		st->protect_at[st->nprotect] = it->pos;
		st->protect[st->nprotect++] = xstrdup(it->str);
	}
}

static void
load_head(struct load *l, const struct decl_yaml_node *root)
{
	const struct decl_yaml_node *v;

	v = decl_yaml_map_get(root, "cluster");
	l->cluster_seen |= v != NULL;
	if (v != NULL && load_agreeing(l, v, "cluster", &l->cluster_at) == 0 &&
	    !decl_is_file_name(v->str))
		errlist_add(l->diags, DIAG_ERROR, &v->pos,
		    "cluster name '%s' must be letters, digits, '.', '_' and "
		    "'-' (not starting with '.')",
		    v->str);
	v = decl_yaml_map_get(root, "mode");
	l->mode_seen |= v != NULL;
	if (v != NULL && load_agreeing(l, v, "mode", &l->mode_at) == 0 &&
	    strcmp(v->str, "STUDIO_MANAGED") != 0 &&
	    strcmp(v->str, "CONFIG_MANAGED") != 0)
		errlist_add(l->diags, DIAG_ERROR, &v->pos,
		    "unknown mode '%s' (expected STUDIO_MANAGED or "
		    "CONFIG_MANAGED)",
		    v->str);
	v = decl_yaml_map_get(root, "settings");
	if (v == NULL)
		return;
	if (l->settings_at.set) {
		errlist_add(l->diags, DIAG_ERROR, &v->pos,
		    "'settings' already declared at %s:%u:%u; declare them "
		    "once per cluster",
		    l->settings_at.pos.path, l->settings_at.pos.line,
		    l->settings_at.pos.col);
		return;
	}
	l->settings_at.set = true;
	l->settings_at.pos = v->pos;
	if (decl_yaml_node_is_null(v))
		return;
	if (decl_fields_parse(&l->c->settings, v, "settings", settings_tab,
	        NELEM(settings_tab), l->diags) == 0)
		decl_delete_if_empty_key(&l->c->settings.delete_if_empty_at, v);
	load_protect(l, decl_yaml_map_get(v, "protect"));
}

/* Returns false when the file is not a mapping or has no version this
 * build reads: the rest of such a file is not interpreted. */
static bool
load_file(struct load *l, const struct decl_yaml_node *root)
{
	const struct decl_yaml_node *v;

	if (root->kind != DECL_YAML_MAP) {
		errlist_add(l->diags, DIAG_ERROR, &root->pos,
		    "expected a mapping with 'version' at the top of the file, "
		    "found %s",
		    decl_yaml_kind_name(root));
		return false;
	}
	v = decl_yaml_map_get(root, "version");
	if (v == NULL) {
		errlist_add(l->diags, DIAG_ERROR, &root->pos,
		    "missing required key 'version' (every file declares the "
		    "format version it is written in)");
		return false;
	}
	if (load_version(l, v) < 0)
		return false;
	decl_fields_parse(NULL, root, "the top level", top_tab, NELEM(top_tab),
	    l->diags);
	load_head(l, root);
	load_nodes(l, decl_yaml_map_get(root, "nodes"));
	load_addresses(l, decl_yaml_map_get(root, "addresses"));
	load_diverts(l, decl_yaml_map_get(root, "diverts"));
	load_captures(l, decl_yaml_map_get(root, "captures"));
	return true;
}

/* After every file: the keys needed once per cluster, then the rules. */
static void
load_finish(struct load *l, bool all_parsed)
{
	struct decl_cluster *c = l->c;
	struct pos first = {c->npaths ? c->paths[0] : c->dir, 1, 1};

	if (l->cluster_at.set) {
		c->name = xstrdup(l->cluster_at.str);
		c->pos = l->cluster_at.pos;
	} else if (all_parsed && !l->cluster_seen) {
		errlist_add(l->diags, DIAG_ERROR, &first,
		    "missing required key 'cluster' (declare it in one of the "
		    "cluster's files)");
	}
	if (l->mode_at.set)
		c->mode = strcmp(l->mode_at.str, "CONFIG_MANAGED") == 0
		              ? DECL_CONFIG_MANAGED
		              : DECL_STUDIO_MANAGED;
	else if (all_parsed && !l->mode_seen)
		errlist_add(l->diags, DIAG_ERROR, &first,
		    "missing required key 'mode' (STUDIO_MANAGED or "
		    "CONFIG_MANAGED)");
	if (c->nnodes == 0 && all_parsed)
		errlist_add(l->diags, DIAG_ERROR,
		    l->cluster_at.set ? &c->pos : &first,
		    "the cluster declares no nodes (add a 'nodes' list)");
}

/* A document holding only `---` or a null. Returns false (not parsed). */
static bool
empty_doc(const struct decl_yaml_node *root, struct errlist *diags)
{
	errlist_add(diags, DIAG_ERROR, &root->pos,
	    "empty document: expected a mapping with at least 'version'");
	return false;
}

static struct decl_cluster *
cluster_new(const char *label, const struct decl_file *files, size_t nfiles)
{
	struct decl_cluster *c = xcalloc(1, sizeof(*c));
	size_t i;

	c->dir = xstrdup(label);
	c->settings.capture_prefix = xstrdup(DECL_DEFAULT_CAPTURE_PREFIX);
	c->settings.max_destroyed_messages = DECL_DEFAULT_MAX_DESTROYED;
	c->paths = xcalloc(nfiles ? nfiles : 1, sizeof(*c->paths));
	for (i = 0; i < nfiles; i++)
		c->paths[c->npaths++] = xstrdup(files[i].path);
	return c;
}

int
decl_cluster_parse(struct decl_cluster **out, const char *label,
    const struct decl_file *files, size_t nfiles, struct errlist *diags)
{
	return decl_cluster_parse_max(out, label, files, nfiles, DECL_FILE_MAX,
	    diags);
}

int
decl_cluster_parse_max(struct decl_cluster **out, const char *label,
    const struct decl_file *files, size_t nfiles, size_t file_max,
    struct errlist *diags)
{
	struct load l;
	struct decl_yaml_node *tree;
	struct pos at = {label, 0, 0};
	size_t i, nerrors = diags->nerrors;
	bool all_parsed = true, ok;

	if (nfiles == 0)
		return errlist_add(diags, DIAG_ERROR, &at,
		    "no YAML files (*.yaml, *.yml) in this cluster folder");
	if (nfiles > DECL_FILES_MAX)
		return errlist_add(diags, DIAG_ERROR, &at,
		    "%zu YAML files, over the limit of %d per cluster", nfiles,
		    DECL_FILES_MAX);
	memset(&l, 0, sizeof(l));
	l.c = cluster_new(label, files, nfiles);
	l.diags = diags;
	/* One file's tree at a time: the model copies what it keeps, and
	 * the head keys are copied into l (yseen). */
	for (i = 0; i < nfiles; i++) {
		tree = NULL;
		ok = decl_yaml_parse_max(&tree, l.c->paths[i], files[i].data,
		         files[i].len, file_max, diags) == 0;
		if (ok && decl_yaml_node_is_null(tree))
			ok = empty_doc(tree, diags);
		else if (ok)
			ok = load_file(&l, tree);
		all_parsed = all_parsed && ok;
		decl_yaml_node_free(tree);
	}
	load_finish(&l, all_parsed);
	free(l.cluster_at.str);
	free(l.mode_at.str);
	if (diags->nerrors == nerrors) {
		decl_delete_if_empty_resolve(l.c);
		decl_index_build(l.c);
		decl_check(l.c, diags);
	}
	errlist_sort(diags);
	if (diags->nerrors != nerrors) {
		decl_cluster_free(l.c);
		return -1;
	}
	*out = l.c;
	return 0;
}
