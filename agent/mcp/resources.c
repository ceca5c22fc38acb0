/* agent/mcp/resources.c: what the agent wrote, readable by URI: every
 * preview of the outbox (plan.md, plan.json, and result.md, result.json
 * once applied), each cluster's last drift report (drift.md, drift.json)
 * and the last MCP_AUDIT_ROWS audit rows of a cluster:
 *
 *   artemis-gitops://previews/<cluster>/<id>/plan.md
 *   artemis-gitops://drift/<cluster>/drift.json
 *   artemis-gitops://audit/<cluster>
 *
 * The names in a URI are checked before any path is made of them (no '/',
 * no leading '.'), and only those file names are served, so a URI never
 * reaches outside the outbox or past the audit log. */
#include "mcp-int.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../lib/afile.h"
#include "../../lib/xalloc.h"
#include "../outbox.h"
#include "../state.h"

struct resource {
	char *uri, *name, *title, *description;
	const char *mime;
};

struct resources {
	struct resource *v;
	size_t n, cap;
};

static void
add(struct resources *l, const char *mime, char *uri, char *name, char *title,
    char *description)
{
	xgrow(&l->v, &l->cap, l->n + 1, sizeof(*l->v));
	l->v[l->n].uri = uri;
	l->v[l->n].name = name;
	l->v[l->n].title = title;
	l->v[l->n].description = description;
	l->v[l->n].mime = mime;
	l->n++;
}

static void
resources_release(struct resources *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].uri);
		free(l->v[i].name);
		free(l->v[i].title);
		free(l->v[i].description);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static bool
has_file(const char *dir, const char *a, const char *b, const char *name)
{
	char *p = xasprintf("%s/%s/%s/%s", dir, a, b, name);
	struct stat st;
	bool r = stat(p, &st) == 0 && S_ISREG(st.st_mode);

	free(p);
	return r;
}

static const char *
mime_of(const char *file)
{
	size_t n = strlen(file);

	return n > 5 && strcmp(file + n - 5, ".json") == 0 ? "application/json"
	                                                   : "text/markdown";
}

/* One cluster's previews (newest first), drift report and audit rows. */
static int
cluster_resources(struct resources *l, const char *outbox, const char *cluster,
    struct err *err)
{
	static const char *const files[] = {"plan.md", "plan.json", "result.md",
	    "result.json"};
	char **ids = NULL;
	size_t n = 0, i, f;

	if (agent_outbox_plans(&ids, &n, outbox, cluster, err) < 0)
		return -1;
	for (i = n; i-- > 0;)
		for (f = 0; f < 4; f++) {
			if (f > 1 &&
			    !has_file(outbox, cluster, ids[i], files[f]))
				continue;
			add(l, mime_of(files[f]),
			    mcp_preview_uri(cluster, ids[i], files[f]),
			    xasprintf("%s/%s/%s", cluster, ids[i], files[f]),
			    xasprintf("%s of preview %s (cluster %s)", files[f],
			        ids[i], cluster),
			    xstrdup(
			        f < 2 ? "a preview the agent wrote: what an "
			                "apply would do"
			              : "what the apply of this preview did"));
		}
	agent_outbox_list_free(ids, n);
	for (f = 0; f < 2; f++) {
		const char *file =
		    f == 0 ? AGENT_OUTBOX_DRIFT_MD : AGENT_OUTBOX_DRIFT_JSON;

		if (!has_file(outbox, cluster, AGENT_OUTBOX_DRIFT, file))
			continue;
		add(l, mime_of(file),
		    xasprintf(MCP_URI_SCHEME "drift/%s/%s", cluster, file),
		    xasprintf("%s/drift/%s", cluster, file),
		    xasprintf("the last drift report of cluster %s (%s)",
		        cluster, file),
		    xstrdup("the applied revision planned again against the "
		            "live nodes: what drifted"));
	}
	add(l, "application/json",
	    xasprintf(MCP_URI_SCHEME "audit/%s", cluster),
	    xasprintf("%s/audit", cluster),
	    xasprintf("the audit rows of cluster %s", cluster),
	    xasprintf("the last %d rows of the audit log for this cluster, "
	              "oldest first",
	        MCP_AUDIT_ROWS));
	return 0;
}

static void
resource_json(struct jsonw *w, const struct mcp_call *c,
    const struct resource *r)
{
	jsonw_obj_begin(w);
	jsonw_key_str(w, "description", r->description);
	jsonw_key_str(w, "mimeType", r->mime);
	jsonw_key_str(w, "name", r->name);
	if (mcp_call_since(c, "2025-06-18"))
		jsonw_key_str(w, "title", r->title);
	jsonw_key_str(w, "uri", r->uri);
	jsonw_obj_end(w);
}

int
mcp_resources_list(const struct mcp_ctx *x, const struct mcp_call *c,
    const struct json *params, struct mcp_reply *r)
{
	const struct json *cursor = json_get(params, "cursor");
	struct resources l = {0};
	struct err err = {0};
	char **clusters = NULL, *end = NULL;
	size_t n = 0, i, from = 0;
	int rc = -1;

	if (cursor != NULL) {
		const char *s = json_str(cursor);
		unsigned long long v;

		v = s != NULL && s[0] >= '0' && s[0] <= '9'
		        ? strtoull(s, &end, 10)
		        : 0;
		if (s == NULL || end == NULL || *end != '\0')
			return mcp_reply_fail(r, MCP_INVALID_PARAMS, NULL,
			    "params.cursor is not a cursor this server gave");
		from = (size_t)v;
	}
	if (agent_outbox_clusters(&clusters, &n, x->conf->outbox, &err) < 0)
		goto fail;
	for (i = 0; i < n; i++)
		if (cluster_resources(&l, x->conf->outbox, clusters[i], &err) <
		    0)
			goto fail;
	if (from > l.n) {
		mcp_reply_fail(r, MCP_INVALID_PARAMS, NULL,
		    "params.cursor is past the end of the list");
		goto done;
	}
	jsonw_key(&r->w, "resources");
	jsonw_arr_begin(&r->w);
	for (i = from; i < l.n && i < from + MCP_PAGE_SIZE; i++)
		resource_json(&r->w, c, &l.v[i]);
	jsonw_arr_end(&r->w);
	if (from + MCP_PAGE_SIZE < l.n) {
		char *next = xasprintf("%zu", from + MCP_PAGE_SIZE);

		jsonw_key_str(&r->w, "nextCursor", next);
		free(next);
	}
	r->cacheable = true; /* the outbox changes: fresh at once */
	rc = 0;
	goto done;
fail:
	mcp_reply_fail(r, MCP_INTERNAL_ERROR, NULL,
	    "the outbox cannot be read: %s", err.msg);
done:
	err_release(&err);
	agent_outbox_list_free(clusters, n);
	resources_release(&l);
	return rc;
}

void
mcp_resources_templates(const struct mcp_call *c, struct mcp_reply *r)
{
	static const struct {
		const char *uri, *name, *mime, *description;
	} t[] = {
	    {MCP_URI_SCHEME "previews/{cluster}/{preview}/plan.md", "plan.md",
	        "text/markdown", "a preview's plan, for people"},
	    {MCP_URI_SCHEME "previews/{cluster}/{preview}/plan.json",
	        "plan.json", "application/json",
	        "a preview's plan (docs/plan-format.md)"},
	    {MCP_URI_SCHEME "previews/{cluster}/{preview}/result.md",
	        "result.md", "text/markdown", "what an applied preview did"},
	    {MCP_URI_SCHEME "previews/{cluster}/{preview}/result.json",
	        "result.json", "application/json",
	        "what an applied preview did, per node"},
	    {MCP_URI_SCHEME "drift/{cluster}/drift.md", "drift.md",
	        "text/markdown", "a cluster's last drift report"},
	    {MCP_URI_SCHEME "drift/{cluster}/drift.json", "drift.json",
	        "application/json", "a cluster's last drift report"},
	    {MCP_URI_SCHEME "audit/{cluster}", "audit", "application/json",
	        "a cluster's last audit rows"},
	};
	size_t i;

	jsonw_key(&r->w, "resourceTemplates");
	jsonw_arr_begin(&r->w);
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		jsonw_obj_begin(&r->w);
		jsonw_key_str(&r->w, "description", t[i].description);
		jsonw_key_str(&r->w, "mimeType", t[i].mime);
		jsonw_key_str(&r->w, "name", t[i].name);
		if (mcp_call_since(c, "2025-06-18"))
			jsonw_key_str(&r->w, "title", t[i].name);
		jsonw_key_str(&r->w, "uriTemplate", t[i].uri);
		jsonw_obj_end(&r->w);
	}
	jsonw_arr_end(&r->w);
	r->cacheable = true;
	r->ttl_ms = 3600000;
	r->public_scope = true;
}

/* ---- resources/read ---------------------------------------------------- */

/* A name a URI may carry: [A-Za-z0-9._-], not starting with '.'. */
static bool
name_ok(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || n > 255 || s[0] == '.')
		return false;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		        (s[i] >= 'A' && s[i] <= 'Z') ||
		        (s[i] >= '0' && s[i] <= '9') || s[i] == '.' ||
		        s[i] == '_' || s[i] == '-'))
			return false;
	return true;
}

/* Split rest into at most 3 '/'-separated names, each name_ok. */
static size_t
split(const char *rest, char parts[3][256])
{
	size_t k = 0, n;
	const char *slash;

	while (k < 3) {
		slash = strchr(rest, '/');
		n = slash != NULL ? (size_t)(slash - rest) : strlen(rest);
		if (!name_ok(rest, n))
			return 0;
		memcpy(parts[k], rest, n);
		parts[k++][n] = '\0';
		if (slash == NULL)
			return k;
		rest = slash + 1;
	}
	return 0; /* more than three */
}

struct audit_tail {
	const char *cluster;
	char *rows[MCP_AUDIT_ROWS];
	size_t n, next; /* a ring of the last rows */
};

static int
audit_row(void *ctx, const char *row, size_t len)
{
	struct audit_tail *a = ctx;
	struct json_doc *d = NULL;
	struct err err = {0};
	const char *cl;

	if (json_parse(&d, NULL, row, len, &err) < 0) {
		err_release(&err); /* not a row of ours: left out */
		return 0;
	}
	cl = json_str(json_get(json_doc_root(d), "cluster"));
	if (cl != NULL && strcmp(cl, a->cluster) == 0) {
		free(a->rows[a->next]);
		a->rows[a->next] = xstrndup(row, len);
		a->next = (a->next + 1) % MCP_AUDIT_ROWS;
		if (a->n < MCP_AUDIT_ROWS)
			a->n++;
	}
	json_doc_free(d);
	return 0;
}

static int
read_audit(char **out, const struct mcp_ctx *x, const char *cluster,
    struct err *err)
{
	struct audit_tail a = {.cluster = cluster};
	struct sbuf b;
	struct jsonw w;
	size_t i;
	int rc;

	rc = agent_state_audit_each_dir(x->conf->state, audit_row, &a, err);
	if (rc == 0) {
		sbuf_init(&b, SBUF_UNBOUNDED);
		jsonw_init(&w, &b, 0);
		jsonw_obj_begin(&w);
		jsonw_key_str(&w, "cluster", cluster);
		jsonw_key(&w, "rows");
		jsonw_arr_begin(&w);
		for (i = 0; i < a.n; i++)
			jsonw_raw(&w,
			    a.rows[(a.next + MCP_AUDIT_ROWS - a.n + i) %
			           MCP_AUDIT_ROWS]);
		jsonw_arr_end(&w);
		jsonw_key_int(&w, "rows_max", MCP_AUDIT_ROWS);
		jsonw_obj_end(&w);
		*out = sbuf_take(&b);
	}
	for (i = 0; i < MCP_AUDIT_ROWS; i++)
		free(a.rows[i]);
	return rc;
}

static int
not_found(struct mcp_reply *r, const struct mcp_call *c, const char *uri,
    const char *why)
{
	struct sbuf d = {0};
	int rc;

	sbuf_adds(&d, "{\"uri\":");
	jsonw_quote(&d, uri);
	sbuf_adds(&d, "}");
	rc = mcp_reply_fail(r,
	    c->modern ? MCP_INVALID_PARAMS : MCP_RESOURCE_NOT_FOUND,
	    sbuf_str(&d), "Resource not found: %s (%s)", uri, why);
	sbuf_release(&d);
	return rc;
}

int
mcp_resources_read(const struct mcp_ctx *x, const struct mcp_call *c,
    const struct json *params, struct mcp_reply *r)
{
	const char *uri = json_str(json_get(params, "uri"));
	char parts[3][256], *path = NULL, *text = NULL;
	const char *mime = "application/json", *kind;
	struct err err = {0};
	size_t k, len = 0;
	struct stat st;
	int rc = -1;

	if (uri == NULL)
		return mcp_reply_fail(r, MCP_INVALID_PARAMS, NULL,
		    "resources/read needs params.uri (a string)");
	if (strncmp(uri, MCP_URI_SCHEME, strlen(MCP_URI_SCHEME)) != 0)
		return not_found(r, c, uri, "not an " MCP_URI_SCHEME " URI");
	kind = uri + strlen(MCP_URI_SCHEME);
	k = strncmp(kind, "previews/", 9) == 0 ? split(kind + 9, parts)
	    : strncmp(kind, "drift/", 6) == 0  ? split(kind + 6, parts)
	    : strncmp(kind, "audit/", 6) == 0  ? split(kind + 6, parts)
	                                       : 0;
	if (kind[0] == 'p' && k == 3 &&
	    (strcmp(parts[2], "plan.md") == 0 ||
	        strcmp(parts[2], "plan.json") == 0 ||
	        strcmp(parts[2], "result.md") == 0 ||
	        strcmp(parts[2], "result.json") == 0)) {
		path = xasprintf("%s/%s/%s/%s", x->conf->outbox, parts[0],
		    parts[1], parts[2]);
		mime = mime_of(parts[2]);
	} else if (kind[0] == 'd' && k == 2 &&
	           (strcmp(parts[1], AGENT_OUTBOX_DRIFT_MD) == 0 ||
	               strcmp(parts[1], AGENT_OUTBOX_DRIFT_JSON) == 0)) {
		path = xasprintf("%s/%s/%s/%s", x->conf->outbox, parts[0],
		    AGENT_OUTBOX_DRIFT, parts[1]);
		mime = mime_of(parts[1]);
	} else if (kind[0] == 'a' && k == 1) {
		if (read_audit(&text, x, parts[0], &err) < 0) {
			mcp_reply_fail(r, MCP_INTERNAL_ERROR, NULL,
			    "the audit log cannot be read: %s", err.msg);
			goto done;
		}
		len = strlen(text);
	} else {
		return not_found(r, c, uri,
		    "not a URI this server serves: see resources/templates/list");
	}
	if (path != NULL) {
		if (stat(path, &st) < 0 || !S_ISREG(st.st_mode)) {
			rc = not_found(r, c, uri, "no such file");
			goto done;
		}
		if ((size_t)st.st_size > MCP_RESOURCE_MAX) {
			mcp_reply_fail(r, MCP_INTERNAL_ERROR, NULL,
			    "%s is %lld bytes, past this server's cap of %zu "
			    "bytes for a resource: read %s on disk",
			    uri, (long long)st.st_size, MCP_RESOURCE_MAX, path);
			goto done;
		}
		if (afile_read(&text, &len, path, MCP_RESOURCE_MAX, &err) < 0) {
			mcp_reply_fail(r, MCP_INTERNAL_ERROR, NULL, "%s",
			    err.msg);
			goto done;
		}
	}
	jsonw_key(&r->w, "contents");
	jsonw_arr_begin(&r->w);
	jsonw_obj_begin(&r->w);
	jsonw_key_str(&r->w, "mimeType", mime);
	jsonw_key_str(&r->w, "text", text);
	jsonw_key_str(&r->w, "uri", uri);
	jsonw_obj_end(&r->w);
	jsonw_arr_end(&r->w);
	r->cacheable = true;
	rc = 0;
done:
	(void)len;
	err_release(&err);
	free(text);
	free(path);
	return rc;
}
