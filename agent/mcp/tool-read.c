/* agent/mcp/tool-read.c: the tools that only read: list_clusters (the
 * clusters of a revision and their nodes' reachability), validate (what
 * `validate --format json` says of a folder or of the clusters of a
 * revision) and snapshot (a cluster's or one node's queues, addresses and
 * diverts, with their message and consumer counts, as tables bounded in
 * rows and in bytes). */
#include "mcp-int.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/xalloc.h"
#include "../../reconcile/live/live.h"
#include "../validate-set.h"

#define SNAPSHOT_LIMIT     100  /* rows of each table of a node, default */
#define SNAPSHOT_LIMIT_MAX 1000 /* and at most */

static const char rev_help[] =
    "a git revision (commit, branch, tag) of the declarations repository; "
    "default: the branch the agent follows";

/* ---- shared ------------------------------------------------------------ */

static bool
node_reachable(const struct recon_node_snapshot *n)
{
	return n->refusal.kind == RECON_OK || n->refusal.kind == RECON_PASSIVE;
}

void
mcp_node_status_json(struct jsonw *w, const struct recon_node_snapshot *n)
{
	jsonw_key_str(w, "node", n->node);
	jsonw_key_bool(w, "reachable", node_reachable(n));
	jsonw_key_str(w, "state",
	    n->refusal.kind == RECON_OK ? "OK"
	                                : recon_kind_name(n->refusal.kind));
	jsonw_key_str(w, "message", n->refusal.text);
	jsonw_key_str(w, "version", n->broker_version);
	jsonw_key_str(w, "broker", n->broker_name);
	if (n->nmembers > 0)
		jsonw_key_str(w, "member", n->member);
}

static void
revision_json(struct jsonw *w, const struct mcp_tree *t)
{
	jsonw_key_str(w, "revision", t->rev);
	jsonw_key_str(w, "commit", t->commit);
}

/* ---- list_clusters ----------------------------------------------------- */

const struct mcp_arg mcp_args_list_clusters[] = {
    {"revision", MCP_ARG_STRING, false, rev_help, 0, 0, NULL},
    {"read_nodes", MCP_ARG_BOOLEAN, false,
        "read every node (one Jolokia request each) to tell whether it is "
        "reachable; false: the declarations only",
        0, 0, "true"},
    {NULL, MCP_ARG_STRING, false, NULL, 0, 0, NULL},
};

/* One cluster's members, its nodes read when read is set; the count of
 * reachable nodes into *up (-1 when not read, then why in *why, owned). */
static void
cluster_json(struct jsonw *w, const struct mcp_ctx *x,
    const struct decl_cluster *c, bool read, long *up, char **why)
{
	struct recon_snapshot *s = NULL;
	struct live_scope identity = {0};
	struct err err = {0};
	size_t i;

	/* reachability: the lightest read, every queue's identity and no
	 * queue's configuration (an empty scope) */
	live_scope_finish(&identity);
	*up = -1;
	if (read && mcp_fleet_read(&s, x, c, NULL, &identity, &err) == 0)
		*up = 0;
	live_scope_release(&identity);
	jsonw_key_str(w, "folder", c->dir);
	jsonw_key_str(w, "mode", decl_mode_name(c->mode));
	jsonw_key_str(w, "name", c->name);
	jsonw_key(w, "nodes");
	jsonw_arr_begin(w);
	for (i = 0; i < c->nnodes; i++) {
		const struct decl_node *dn = &c->nodes[i];

		jsonw_obj_begin(w);
		jsonw_key_str(w, "jolokia", dn->jolokia);
		jsonw_key_int(w, "members", (int64_t)dn->nmembers);
		if (s != NULL && i < s->nnodes) {
			mcp_node_status_json(w, &s->nodes[i]);
			*up += node_reachable(&s->nodes[i]);
		} else {
			jsonw_key_str(w, "node", dn->name);
			jsonw_key(w, "reachable");
			jsonw_null(w);
			jsonw_key_str(w, "state",
			    read ? "NOT_READ" : "NOT_ASKED");
			jsonw_key_str(w, "message", err.msg);
		}
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	if (read && s == NULL && err.msg != NULL)
		*why = xstrdup(err.msg);
	live_snapshot_free(s);
	err_release(&err);
}

int
mcp_tool_list_clusters(const struct mcp_ctx *x, const struct mcp_call *c,
    const struct json *args, struct mcp_result *res)
{
	struct mcp_tree t;
	struct err err = {0};
	bool read = mcp_arg_bool(args, "read_nodes", true);
	size_t i, nvalid = 0, ninvalid = 0;
	char *why;
	long up;

	(void)c;
	if (mcp_tree_load(&t, x, mcp_arg_str(args, "revision"), &err) < 0) {
		mcp_result_fail(res, "%s", err.msg);
		err_release(&err);
		return 0;
	}
	revision_json(&res->w, &t);
	jsonw_key(&res->w, "clusters");
	jsonw_arr_begin(&res->w);
	for (i = 0; i < t.n; i++) {
		const struct decl_cluster *d = t.v[i].decl;

		if (d == NULL)
			continue;
		why = NULL;
		jsonw_obj_begin(&res->w);
		cluster_json(&res->w, x, d, read, &up, &why);
		jsonw_obj_end(&res->w);
		sbuf_addf(&res->text, "%s%s (%zu node(s)", nvalid++ ? ", " : "",
		    d->name, d->nnodes);
		if (up >= 0)
			sbuf_addf(&res->text, ", %ld reachable", up);
		else if (why != NULL)
			sbuf_addf(&res->text, ", not read: %s", why);
		sbuf_adds(&res->text, ")");
		free(why);
	}
	jsonw_arr_end(&res->w);
	jsonw_key(&res->w, "invalid");
	jsonw_arr_begin(&res->w);
	for (i = 0; i < t.n; i++) {
		if (t.v[i].decl != NULL)
			continue;
		ninvalid++;
		jsonw_obj_begin(&res->w);
		jsonw_key_int(&res->w, "errors", (int64_t)t.v[i].diags.nerrors);
		jsonw_key_str(&res->w, "folder", t.v[i].files.dir);
		jsonw_obj_end(&res->w);
	}
	jsonw_arr_end(&res->w);
	{
		char *list = sbuf_take(&res->text);

		sbuf_addf(&res->text, "%zu cluster(s) at %s (commit %.12s)%s%s",
		    nvalid, t.rev, t.commit, nvalid > 0 ? ": " : "", list);
		free(list);
	}
	if (ninvalid > 0)
		sbuf_addf(&res->text,
		    "; %zu folder(s) do not validate (the validate tool says "
		    "why)",
		    ninvalid);
	mcp_tree_release(&t);
	return 0;
}

/* ---- validate ---------------------------------------------------------- */

const struct mcp_arg mcp_args_validate[] = {
    {"cluster", MCP_ARG_STRING, false,
        "validate this cluster (its name, or its folder's name) at the "
        "revision; default: every cluster there",
        0, 0, NULL},
    {"revision", MCP_ARG_STRING, false, rev_help, 0, 0, NULL},
    {"path", MCP_ARG_STRING, false,
        "validate this folder on disk instead (a cluster folder, or a "
        "repository folder holding one folder per cluster), as `validate "
        "PATH` does: e.g. a working copy being edited",
        0, 0, NULL},
    {NULL, MCP_ARG_STRING, false, NULL, 0, 0, NULL},
};

/* Move the folders of t (cluster NULL: all; else the one of that
 * declared or folder name) into v. False when cluster names none. */
static bool
validate_tree(struct agent_validate *v, struct mcp_tree *t, const char *cluster)
{
	bool found = false;
	size_t i, j;

	for (i = 0; i < t->n; i++) {
		struct mcp_cluster *mc = &t->v[i];
		const char *slash = strrchr(mc->files.dir, '/');
		const char *base = slash != NULL ? slash + 1 : mc->files.dir;

		if (cluster != NULL && strcmp(base, cluster) != 0 &&
		    (mc->decl == NULL || strcmp(mc->decl->name, cluster) != 0))
			continue;
		found = true;
		for (j = 0; j < mc->diags.n; j++) {
			const struct diag *d = &mc->diags.items[j];
			struct pos at = {d->path, d->line, d->col};

			errlist_add(&v->diags, d->severity, &at, "%s", d->msg);
		}
		v->diags.dropped += mc->diags.dropped;
		if (mc->decl != NULL) {
			agent_validate_add(v, mc->decl);
			mc->decl = NULL;
		}
	}
	return found;
}

int
mcp_tool_validate(const struct mcp_ctx *x, const struct mcp_call *c,
    const struct json *args, struct mcp_result *res)
{
	struct agent_validate v = {0};
	struct mcp_tree t = {0};
	struct err err = {0};
	const char *path = mcp_arg_str(args, "path");
	const char *cluster = mcp_arg_str(args, "cluster");
	char *first;

	(void)c;
	if (path != NULL &&
	    (cluster != NULL || mcp_arg_str(args, "revision") != NULL)) {
		mcp_result_fail(res,
		    "give 'path' (a folder on disk) or 'cluster' and "
		    "'revision' (from git), not both");
		return 0;
	}
	if (path != NULL) {
		agent_validate_path(&v, path);
		jsonw_key_str(&res->w, "path", path);
	} else {
		if (mcp_tree_load(&t, x, mcp_arg_str(args, "revision"), &err) <
		    0) {
			mcp_result_fail(res, "%s", err.msg);
			goto done;
		}
		if (!validate_tree(&v, &t, cluster)) {
			mcp_result_fail(res,
			    "no cluster or cluster folder '%s' at %s (commit "
			    "%.12s)",
			    cluster, t.rev, t.commit);
			goto done;
		}
		revision_json(&res->w, &t);
	}
	agent_validate_check_names(&v);
	agent_validate_json_members(&res->w, &v, false);
	sbuf_addf(&res->text,
	    "%s: %zu cluster(s), %zu error(s), %zu warning(s)",
	    agent_validate_ok(&v) ? "valid" : "invalid", v.n, v.diags.nerrors,
	    v.diags.nwarnings);
	if (v.diags.n > 0) {
		first = errlist_render_item(&v.diags, 0);
		sbuf_addf(&res->text, "; first: %s", first);
		free(first);
	}
done:
	err_release(&err);
	mcp_tree_release(&t);
	agent_validate_release(&v);
	return 0;
}

/* ---- snapshot ---------------------------------------------------------- */

const struct mcp_arg mcp_args_snapshot[] = {
    {"cluster", MCP_ARG_STRING, true, "the cluster's name", 0, 0, NULL},
    {"node", MCP_ARG_STRING, false, "read this node only; default: every node",
        0, 0, NULL},
    {"match", MCP_ARG_STRING, false,
        "list only the queues, addresses and diverts whose name matches "
        "this glob ('*' any run, '?' one character); the counts cover "
        "every object",
        0, 0, NULL},
    {"limit", MCP_ARG_INTEGER, false,
        "rows of each table of a node at most (queues, addresses, "
        "diverts); fewer when the result would pass its cap in bytes",
        1, SNAPSHOT_LIMIT_MAX, "100"},
    {"revision", MCP_ARG_STRING, false,
        "the revision whose declaration names the nodes; default: the "
        "branch the agent follows",
        0, 0, NULL},
    {NULL, MCP_ARG_STRING, false, NULL, 0, 0, NULL},
};

static void
routing_json(struct jsonw *w, const char *key, unsigned routing)
{
	jsonw_key(w, key);
	jsonw_arr_begin(w);
	if (routing & DECL_ANYCAST)
		jsonw_str(w, decl_routing_name(DECL_ANYCAST));
	if (routing & DECL_MULTICAST)
		jsonw_str(w, decl_routing_name(DECL_MULTICAST));
	jsonw_arr_end(w);
}

static bool
matches(const char *match, const char *name)
{
	return match == NULL || decl_glob_match(match, name);
}

static void
queue_row(struct jsonw *w, const struct recon_queue *q)
{
	jsonw_obj_begin(w);
	jsonw_key_str(w, "address", q->address);
	jsonw_key_bool(w, "auto_created", q->auto_created);
	jsonw_key_int(w, "consumers", q->consumer_count);
	jsonw_key_bool(w, "durable", q->durable);
	jsonw_key_bool(w, "exclusive", q->exclusive);
	jsonw_key_str(w, "filter", q->filter);
	jsonw_key_bool(w, "internal", q->internal);
	jsonw_key_int(w, "max_consumers", q->max_consumers);
	jsonw_key_int(w, "messages", q->message_count);
	jsonw_key_str(w, "name", q->name);
	jsonw_key_int(w, "ring_size", q->ring_size);
	jsonw_key_str(w, "routing", decl_routing_name(q->routing));
	jsonw_key_bool(w, "temporary", q->temporary);
	jsonw_obj_end(w);
}

static void
address_row(struct jsonw *w, const struct recon_address *a)
{
	jsonw_obj_begin(w);
	jsonw_key_bool(w, "auto_created", a->auto_created);
	jsonw_key_int(w, "bindings", (int64_t)a->nbinding_names);
	jsonw_key_bool(w, "internal", a->internal);
	jsonw_key_str(w, "name", a->name);
	jsonw_key_strs(w, "queues", a->queue_names, a->nqueue_names);
	routing_json(w, "routing", a->routing);
	jsonw_obj_end(w);
}

static void
divert_row(struct jsonw *w, const struct recon_divert *d)
{
	jsonw_obj_begin(w);
	jsonw_key_str(w, "address", d->address);
	jsonw_key_bool(w, "exclusive", d->exclusive);
	jsonw_key_str(w, "filter", d->filter);
	jsonw_key_str(w, "forwarding_address", d->forwarding_address);
	jsonw_key_str(w, "name", d->name);
	jsonw_key_str(w, "routing_type",
	    decl_divert_routing_name(d->routing_type));
	jsonw_obj_end(w);
}

/* One node's tables, rows up to limit each; *cut is set when a table
 * lists fewer rows than match. */
static void
node_tables(struct jsonw *w, const struct recon_node_snapshot *n,
    const char *match, size_t limit, bool *cut)
{
	size_t i, k, m;
	int64_t messages = 0, consumers = 0;

	for (i = 0; i < n->nqueues; i++) {
		messages += n->queues[i].message_count;
		consumers += n->queues[i].consumer_count;
	}
	jsonw_key(w, "counts");
	jsonw_obj_begin(w);
	jsonw_key_int(w, "addresses", (int64_t)n->naddresses);
	jsonw_key_int(w, "consumers", consumers);
	jsonw_key_int(w, "diverts", (int64_t)n->ndiverts);
	jsonw_key_int(w, "messages", messages);
	jsonw_key_int(w, "queues", (int64_t)n->nqueues);
	jsonw_obj_end(w);
#define TABLE(key, arr, count, row)                                            \
	do {                                                                   \
		jsonw_key(w, key);                                             \
		jsonw_arr_begin(w);                                            \
		for (i = k = m = 0; i < (count); i++) {                        \
			if (!matches(match, (arr)[i].name))                    \
				continue;                                      \
			m++;                                                   \
			if (k < limit) {                                       \
				row(w, &(arr)[i]);                             \
				k++;                                           \
			}                                                      \
		}                                                              \
		jsonw_arr_end(w);                                              \
		jsonw_key(w, key "_listed");                                   \
		jsonw_obj_begin(w);                                            \
		jsonw_key_int(w, "listed", (int64_t)k);                        \
		jsonw_key_int(w, "matched", (int64_t)m);                       \
		jsonw_obj_end(w);                                              \
		*cut |= k < m;                                                 \
	} while (0)
	TABLE("queues", n->queues, n->nqueues, queue_row);
	TABLE("addresses", n->addresses, n->naddresses, address_row);
	TABLE("diverts", n->diverts, n->ndiverts, divert_row);
#undef TABLE
}

static void
snapshot_json(struct jsonw *w, const struct recon_snapshot *s,
    const char *match, size_t limit, bool *cut)
{
	size_t i;

	jsonw_key_str(w, "cluster", s->cluster);
	jsonw_key_int(w, "limit", (int64_t)limit);
	jsonw_key_str(w, "match", match);
	jsonw_key(w, "nodes");
	jsonw_arr_begin(w);
	for (i = 0; i < s->nnodes; i++) {
		const struct recon_node_snapshot *n = &s->nodes[i];

		jsonw_obj_begin(w);
		mcp_node_status_json(w, n);
		if (n->refusal.kind == RECON_OK ||
		    n->refusal.kind == RECON_PASSIVE)
			node_tables(w, n, match, limit, cut);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_key_str(w, "taken_at", s->taken_at);
}

int
mcp_tool_snapshot(const struct mcp_ctx *x, const struct mcp_call *c,
    const struct json *args, struct mcp_result *res)
{
	struct mcp_tree t = {0};
	struct recon_snapshot *s = NULL;
	struct err err = {0};
	const struct mcp_cluster *mc;
	const char *match = mcp_arg_str(args, "match");
	size_t limit = (size_t)mcp_arg_int(args, "limit", SNAPSHOT_LIMIT);
	size_t asked = limit, i, up = 0;
	char *why = NULL;
	bool cut = false;

	(void)c;
	if (mcp_tree_load(&t, x, mcp_arg_str(args, "revision"), &err) < 0) {
		mcp_result_fail(res, "%s", err.msg);
		goto done;
	}
	mc = mcp_tree_find(&t, mcp_arg_str(args, "cluster"), &why);
	if (mc == NULL) {
		mcp_result_fail(res, "%s", why);
		goto done;
	}
	if (mcp_fleet_read(&s, x, mc->decl, mcp_arg_str(args, "node"), NULL,
	        &err) < 0) {
		mcp_result_fail(res, "%s", err.msg);
		goto done;
	}
	/* rows halved until the tables fit the cap, which is then said */
	for (;;) {
		cut = false;
		snapshot_json(&res->w, s, match, limit, &cut);
		if (res->data.len <= MCP_RESULT_MAX || limit <= 1)
			break;
		limit /= 2;
		sbuf_reset(&res->data);
		jsonw_init(&res->w, &res->data, 0);
		jsonw_obj_begin(&res->w);
	}
	jsonw_key_int(&res->w, "cap_bytes", (int64_t)MCP_RESULT_MAX);
	jsonw_key_bool(&res->w, "truncated", cut);
	for (i = 0; i < s->nnodes; i++)
		up += node_reachable(&s->nodes[i]);
	sbuf_addf(&res->text, "cluster '%s': %zu of %zu node(s) read",
	    s->cluster, up, s->nnodes);
	for (i = 0; i < s->nnodes; i++) {
		const struct recon_node_snapshot *n = &s->nodes[i];

		if (node_reachable(n))
			sbuf_addf(&res->text,
			    "; %s: %zu queue(s), %zu address(es), "
			    "%zu divert(s)",
			    n->node, n->nqueues, n->naddresses, n->ndiverts);
		else
			sbuf_addf(&res->text, "; %s: %s", n->node,
			    recon_kind_name(n->refusal.kind));
	}
	if (cut)
		sbuf_addf(&res->text,
		    "; tables cut at %zu row(s) each%s (narrow with 'match' or "
		    "'node')",
		    limit,
		    limit < asked ? " to stay under the result cap" : "");
done:
	free(why);
	err_release(&err);
	live_snapshot_free(s);
	mcp_tree_release(&t);
	return 0;
}
