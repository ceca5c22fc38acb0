/* agent/web/api.c: the JSON API under /api/v1/ (docs/http-api.md).
 *
 * The version is the path's: a change that breaks a client gets
 * /api/v2/. Every body is a JSON object (canonical: sorted keys, 2-space
 * indent, a trailing newline) naming what it holds ("clusters",
 * "preview", "job", ...), or {"error": {"message", "status"}}
 * (web_json_error); the files of a preview (plan.json, plan.md,
 * result.json) and the drift report are served as the bytes the agent
 * wrote, so that their digest is the file's.
 *
 * Ids and cluster names in paths are checked with web_id_ok before
 * anything is read (400 when malformed); request bodies are read with
 * lib/json.h, strictly: a syntax error names its line and column, an
 * unknown member or a wrong type is refused. server.c has answered 401
 * already for a request without a valid token. */
#include "web-int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "../../lib/json.h"
#include "../../lib/jsonw.h"
#include "../../lib/utf8.h"
#include "../../lib/xalloc.h"
#include "../outbox.h"
#include "../state.h"

#define API_PREFIX        "/api/v1/"
#define API_SEGS_MAX      6
#define API_PREVIEWS_MAX  1000 /* previews in one list */
#define API_LATEST        20   /* a cluster's latest previews */
#define API_LAST_APPLIES  5    /* a cluster's last applies */
#define API_AUDIT_DEFAULT 50
#define API_AUDIT_MAX     500
#define API_QUEUE_MAX     255 /* bytes of a queue name */
#define API_JOB_WAIT_MS   30000
#define API_GET           "Allow: GET, HEAD"
#define API_POST          "Allow: POST"

/* ---- responses ------------------------------------------------------- */

/* (here, not in server.c, which calls web_api: one direction) */
void
web_json_error(struct web_resp *out, int status, const char *fmt, ...)
{
	struct jsonw w;
	char *msg;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	out->status = status;
	out->type = "application/json";
	sbuf_reset(&out->body);
	jsonw_init(&w, &out->body, 0);
	jsonw_obj_begin(&w);
	jsonw_key(&w, "error");
	jsonw_obj_begin(&w);
	jsonw_key(&w, "message");
	jsonw_str(&w, msg != NULL ? msg : "out of memory");
	jsonw_key(&w, "status");
	jsonw_int(&w, status);
	jsonw_obj_end(&w);
	jsonw_obj_end(&w);
	sbuf_addc(&out->body, '\n');
	free(msg);
}

static void
begin(struct web_resp *out, struct jsonw *w, int status)
{
	out->status = status;
	out->type = "application/json";
	sbuf_reset(&out->body);
	jsonw_init(w, &out->body, 2);
	jsonw_obj_begin(w);
}

static void
end(struct web_resp *out, struct jsonw *w)
{
	jsonw_obj_end(w);
	sbuf_addc(&out->body, '\n');
}

static void
method_not_allowed(struct web_resp *out, const struct web_req *r,
    const char *allow)
{
	web_json_error(out, 405, "%s takes %s, not %s", r->path,
	    allow + strlen("Allow: "), r->method);
	strv_add(&out->headers, allow);
}

static bool
is_get(const struct web_req *r)
{
	return strcmp(r->method, "GET") == 0 || strcmp(r->method, "HEAD") == 0;
}

static void
key_time(struct jsonw *w, const char *key, int64_t at)
{
	char stamp[32];
	time_t t = (time_t)at;
	struct tm tm;

	jsonw_key(w, key);
	if (at <= 0 || gmtime_r(&t, &tm) == NULL ||
	    strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		jsonw_null(w);
	else
		jsonw_str(w, stamp);
}

/* A number of seconds (a value: its key is written). */
static void
key_seconds(struct jsonw *w, double s)
{
	char buf[64];

	if (!isfinite(s) || s < 0 || s > 1e12) {
		jsonw_null(w);
		return;
	}
	snprintf(buf, sizeof(buf), "%.6f", s);
	jsonw_raw(w, buf);
}

static void key_link(struct jsonw *w, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
key_link(struct jsonw *w, const char *key, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	jsonw_key_str(w, key, s);
	free(s);
}

/* ---- previews -------------------------------------------------------- */

static void
preview_json(struct jsonw *w, const struct web_preview *p)
{
	const char *c = p->cluster, *id = p->id;

	jsonw_obj_begin(w);
	jsonw_key_str(w, "approved_by", p->approved_by);
	jsonw_key_str(w, "cluster", c);
	jsonw_key_str(w, "commit", p->commit);
	jsonw_key_str(w, "confirmation", p->confirmation);
	jsonw_key_str(w, "created", p->created);
	jsonw_key_str(w, "id", id);
	jsonw_key(w, "links");
	jsonw_obj_begin(w);
	if (p->state == WEB_PENDING)
		key_link(w, "approve",
		    API_PREFIX "clusters/%s/previews/%s/approve", c, id);
	key_link(w, "plan_json", API_PREFIX "clusters/%s/previews/%s/plan.json",
	    c, id);
	key_link(w, "plan_md", API_PREFIX "clusters/%s/previews/%s/plan.md", c,
	    id);
	if (p->state == WEB_APPLIED)
		key_link(w, "result",
		    API_PREFIX "clusters/%s/previews/%s/result", c, id);
	key_link(w, "self", API_PREFIX "clusters/%s/previews/%s", c, id);
	jsonw_obj_end(w);
	jsonw_key_str(w, "outcome", p->outcome);
	jsonw_key_str(w, "refused_why", p->refused_why);
	jsonw_key_str(w, "result", p->result);
	jsonw_key_str(w, "state", web_preview_state_name(p->state));
	jsonw_key_str(w, "summary", p->summary);
	jsonw_key_str(w, "waiting", p->waiting);
	jsonw_obj_end(w);
}

/* ?state=: -1 when absent, -2 when not a state's name. */
static int
state_filter(const struct web_req *r)
{
	const char *s = web_req_query(r, "state");
	int i;

	if (s == NULL)
		return -1;
	for (i = 0; i < WEB_PREVIEW_STATES; i++)
		if (strcmp(s,
		        web_preview_state_name((enum web_preview_state)i)) == 0)
			return i;
	return -2;
}

static void
previews_list(const struct web_view *v, const struct web_req *r,
    const char *cluster, struct web_resp *out)
{
	struct web_preview *pv = NULL;
	struct err err = {0};
	struct jsonw w;
	size_t n = 0, i, shown = 0;
	int want = state_filter(r);

	if (want == -2) {
		web_json_error(out, 400,
		    "state: expected one of pending, approved, applied, "
		    "refused, superseded, nothing");
		return;
	}
	if (web_model_previews(v, cluster, API_PREVIEWS_MAX + 1, &pv, &n,
	        &err) < 0) {
		web_json_error(out, 500, "cannot read the outbox: %s", err.msg);
		err_release(&err);
		return;
	}
	begin(out, &w, 200);
	jsonw_key(&w, "previews");
	jsonw_arr_begin(&w);
	for (i = 0; i < n && shown < API_PREVIEWS_MAX; i++) {
		if (want >= 0 && (int)pv[i].state != want)
			continue;
		preview_json(&w, &pv[i]);
		shown++;
	}
	jsonw_arr_end(&w);
	/* the newest API_PREVIEWS_MAX previews were looked at */
	jsonw_key_bool(&w, "truncated", n > API_PREVIEWS_MAX);
	end(out, &w);
	web_model_previews_free(pv, n);
}

static void
preview_one(const struct web_view *v, const char *cluster, const char *id,
    struct web_resp *out)
{
	struct web_preview p;
	struct err err = {0};
	struct jsonw w;

	if (web_model_preview(v, cluster, id, &p, &err) != 0) {
		web_json_error(out, 404, "no preview '%s' of cluster '%s'", id,
		    cluster);
		err_release(&err);
		return;
	}
	begin(out, &w, 200);
	jsonw_key(&w, "preview");
	preview_json(&w, &p);
	end(out, &w);
	web_preview_release(&p);
}

/* A file as the agent wrote it. */
static void
file_out(const struct web_view *v, const char *cluster, const char *id,
    const char *name, const char *type, struct web_resp *out,
    const char *absent)
{
	struct err err = {0};
	char *text = NULL;
	size_t len = 0;
	int rc;

	rc = web_model_file(v, cluster, id, name, &text, &len, &err);
	if (rc == 1) {
		web_json_error(out, 404, "%s", absent);
	} else if (rc < 0) {
		web_json_error(out, 500, "cannot read %s of '%s/%s': %s", name,
		    cluster, id, err.msg);
		err_release(&err);
	} else {
		out->status = 200;
		out->type = type;
		sbuf_reset(&out->body);
		sbuf_add(&out->body, text, len);
	}
	free(text);
}

/* ---- clusters -------------------------------------------------------- */

/* The cluster names: the daemon's (node reads) and the outbox's. */
static void
cluster_names(const struct web_view *v, struct strv *names)
{
	char **list = NULL;
	size_t n = 0, i;
	struct err err = {0};

	for (i = 0; i < v->nclusters; i++)
		if (!strv_has(names, v->clusters[i].name))
			strv_add(names, v->clusters[i].name);
	if (v->outbox != NULL &&
	    agent_outbox_clusters(&list, &n, v->outbox, &err) == 0) {
		for (i = 0; i < n; i++)
			if (web_id_ok(list[i]) && !strv_has(names, list[i]))
				strv_add(names, list[i]);
		agent_outbox_list_free(list, n);
	}
	err_release(&err);
	strv_sort(names);
}

static const struct web_cluster_view *
cluster_view(const struct web_view *v, const char *name)
{
	size_t i;

	for (i = 0; i < v->nclusters; i++)
		if (strcmp(v->clusters[i].name, name) == 0)
			return &v->clusters[i];
	return NULL;
}

static size_t
json_count(const struct json *root, const char *key)
{
	return json_size(json_get(root, key));
}

/* drift.json's counts, or null. */
static void
drift_json(struct jsonw *w, const struct web_view *v, const char *cluster)
{
	struct json_doc *doc = NULL;
	struct err err = {0};
	const struct json *root;
	char *text = NULL;
	size_t len = 0;
	bool found = false;

	jsonw_key(w, "drift");
	if (web_model_file(v, cluster, AGENT_OUTBOX_DRIFT,
	        AGENT_OUTBOX_DRIFT_JSON, &text, &len, &err) != 0 ||
	    json_parse(&doc, AGENT_OUTBOX_DRIFT_JSON, text, len, &err) < 0) {
		err_release(&err);
		free(text);
		jsonw_null(w);
		return;
	}
	root = json_doc_root(doc);
	jsonw_obj_begin(w);
	jsonw_key_str(w, "applied_revision",
	    json_str(json_get(root, "applied_revision")));
	jsonw_key_int(w, "changed", (int64_t)json_count(root, "changed"));
	jsonw_key_str(w, "checked_at", json_str(json_get(root, "checked_at")));
	jsonw_key_int(w, "disagreeing",
	    (int64_t)json_count(root, "disagreeing"));
	(void)json_bool(json_get(root, "drift"), &found);
	jsonw_key_bool(w, "drift", found);
	jsonw_key_str(w, "head", json_str(json_get(root, "head")));
	jsonw_key_int(w, "missing", (int64_t)json_count(root, "missing"));
	jsonw_key_int(w, "unmanaged", (int64_t)json_count(root, "unmanaged"));
	jsonw_key_int(w, "unreachable",
	    (int64_t)json_count(root, "unreachable"));
	jsonw_obj_end(w);
	json_doc_free(doc);
	free(text);
}

static void
nodes_json(struct jsonw *w, const struct web_cluster_view *cv)
{
	const struct web_node_view *nv;
	size_t i;

	jsonw_key(w, "nodes");
	jsonw_arr_begin(w);
	for (i = 0; cv != NULL && i < cv->nnodes; i++) {
		nv = &cv->nodes[i];
		jsonw_obj_begin(w);
		jsonw_key_str(w, "member", nv->member);
		jsonw_key_str(w, "node", nv->node);
		jsonw_key_bool(w, "read", nv->read);
		key_time(w, "read_at", nv->read ? nv->read_at : 0);
		jsonw_key(w, "read_seconds");
		if (nv->read)
			key_seconds(w, nv->seconds);
		else
			jsonw_null(w);
		jsonw_key_str(w, "refusal", nv->refusal);
		jsonw_key_bool(w, "up", nv->up);
		jsonw_key_str(w, "version", nv->version);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

static void
head_json(struct jsonw *w, const struct web_view *v)
{
	jsonw_key(w, "head");
	if (v->head == NULL) {
		jsonw_null(w);
		return;
	}
	jsonw_obj_begin(w);
	jsonw_key_str(w, "commit", v->head);
	jsonw_key_str(w, "summary", v->head_summary);
	jsonw_obj_end(w);
}

/* One cluster; with detail its latest previews and last applies too. */
/* "coordination": who owns the cluster among several agents; absent for
 * an agent alone (docs/ha.md). */
static void
coordination_json(struct jsonw *w, const struct web_view *v, const char *name)
{
	const struct web_cluster_view *cv = NULL;
	size_t i;

	for (i = 0; i < v->nclusters; i++)
		if (strcmp(v->clusters[i].name, name) == 0)
			cv = &v->clusters[i];
	if (cv == NULL || !cv->coordinated)
		return;
	jsonw_key(w, "coordination");
	jsonw_obj_begin(w);
	jsonw_key_int(w, "epoch", cv->epoch);
	jsonw_key_str(w, "owner", cv->owner);
	jsonw_key_str(w, "shard", cv->shard);
	jsonw_key_bool(w, "this_agent", cv->here);
	jsonw_obj_end(w);
}

static void
cluster_json(struct jsonw *w, const struct web_view *v, const char *name,
    bool detail)
{
	struct web_preview *pv = NULL;
	struct err err = {0};
	size_t n = 0, i, counts[WEB_PREVIEW_STATES] = {0}, k;
	char *applied, *at = NULL;
	bool ok = web_id_ok(name);

	if (ok &&
	    web_model_previews(v, name, API_PREVIEWS_MAX, &pv, &n, &err) < 0)
		err_release(&err);
	for (i = 0; i < n; i++)
		counts[pv[i].state]++;
	applied = ok ? web_model_applied(v, name, &at) : NULL;
	jsonw_obj_begin(w);
	jsonw_key(w, "applied");
	if (applied == NULL) {
		jsonw_null(w);
	} else {
		jsonw_obj_begin(w);
		jsonw_key_str(w, "at", at);
		jsonw_key_str(w, "revision", applied);
		jsonw_obj_end(w);
	}
	coordination_json(w, v, name);
	if (ok)
		drift_json(w, v, name);
	if (detail) {
		jsonw_key(w, "last_applies");
		jsonw_arr_begin(w);
		for (i = 0, k = 0; i < n && k < API_LAST_APPLIES; i++)
			if (pv[i].state == WEB_APPLIED) {
				preview_json(w, &pv[i]);
				k++;
			}
		jsonw_arr_end(w);
		jsonw_key(w, "latest_previews");
		jsonw_arr_begin(w);
		for (i = 0; i < n && i < API_LATEST; i++)
			preview_json(w, &pv[i]);
		jsonw_arr_end(w);
	}
	if (ok) {
		jsonw_key(w, "links");
		jsonw_obj_begin(w);
		key_link(w, "delete_queue",
		    API_PREFIX "clusters/%s/delete-queue", name);
		key_link(w, "drift", API_PREFIX "clusters/%s/drift", name);
		key_link(w, "previews", API_PREFIX "clusters/%s/previews",
		    name);
		key_link(w, "self", API_PREFIX "clusters/%s", name);
		jsonw_obj_end(w);
	}
	jsonw_key_str(w, "name", name);
	nodes_json(w, cluster_view(v, name));
	jsonw_key(w, "previews");
	jsonw_obj_begin(w);
	/* sorted: applied approved nothing pending refused superseded */
	jsonw_key_int(w, "applied", (int64_t)counts[WEB_APPLIED]);
	jsonw_key_int(w, "approved", (int64_t)counts[WEB_APPROVED]);
	jsonw_key_int(w, "nothing", (int64_t)counts[WEB_NOTHING]);
	jsonw_key_int(w, "pending", (int64_t)counts[WEB_PENDING]);
	jsonw_key_int(w, "refused", (int64_t)counts[WEB_REFUSED]);
	jsonw_key_int(w, "superseded", (int64_t)counts[WEB_SUPERSEDED]);
	jsonw_obj_end(w);
	jsonw_obj_end(w);
	free(applied);
	free(at);
	web_model_previews_free(pv, n);
}

static void
clusters_list(const struct web_view *v, struct web_resp *out)
{
	struct strv names = {0};
	struct jsonw w;
	size_t i;

	cluster_names(v, &names);
	begin(out, &w, 200);
	jsonw_key(&w, "clusters");
	jsonw_arr_begin(&w);
	for (i = 0; i < names.n; i++)
		cluster_json(&w, v, names.v[i], false);
	jsonw_arr_end(&w);
	head_json(&w, v);
	end(out, &w);
	strv_release(&names);
}

static bool
cluster_known(const struct web_view *v, const char *name)
{
	struct strv names = {0};
	bool r;

	cluster_names(v, &names);
	r = strv_has(&names, name);
	strv_release(&names);
	return r;
}

static void
cluster_one(const struct web_view *v, const char *name, struct web_resp *out)
{
	struct jsonw w;

	if (!cluster_known(v, name)) {
		web_json_error(out, 404, "no cluster '%s'", name);
		return;
	}
	begin(out, &w, 200);
	jsonw_key(&w, "cluster");
	cluster_json(&w, v, name, true);
	head_json(&w, v);
	end(out, &w);
}

/* ---- audit ----------------------------------------------------------- */

/* A decimal query argument within [0, max]; def when absent; false for
 * anything else. */
static bool
query_size(const struct web_req *r, const char *name, size_t def, size_t max,
    size_t *out)
{
	const char *s = web_req_query(r, name);
	size_t v = 0, i;

	if (s == NULL) {
		*out = def;
		return true;
	}
	if (s[0] == '\0' || strlen(s) > 18)
		return false;
	for (i = 0; s[i] != '\0'; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (size_t)(s[i] - '0');
	}
	if (v > max)
		return false;
	*out = v;
	return true;
}

static void
audit(const struct web_view *v, const struct web_req *r, struct web_resp *out)
{
	struct json_doc *doc = NULL;
	struct strv rows = {0};
	struct err err = {0};
	struct jsonw w;
	size_t offset, limit, total = 0, i;

	if (!query_size(r, "offset", 0, (size_t)999999999999999999ULL,
	        &offset)) {
		web_json_error(out, 400,
		    "offset: expected a whole number of rows (0 or more)");
		return;
	}
	if (!query_size(r, "limit", API_AUDIT_DEFAULT, API_AUDIT_MAX, &limit)) {
		web_json_error(out, 400,
		    "limit: expected a whole number of rows from 0 to %d",
		    API_AUDIT_MAX);
		return;
	}
	if (web_model_audit(v, offset, limit, &rows, &total, &err) < 0) {
		web_json_error(out, 500, "cannot read the audit log: %s",
		    err.msg);
		err_release(&err);
		return;
	}
	begin(out, &w, 200);
	jsonw_key_int(&w, "limit", (int64_t)limit);
	jsonw_key_int(&w, "offset", (int64_t)offset);
	jsonw_key(&w, "rows");
	jsonw_arr_begin(&w);
	for (i = 0; i < rows.n; i++) {
		/* a row that is not JSON (the log edited by hand) is shown
		 * as its text, never spliced in */
		if (json_parse(&doc, AGENT_STATE_AUDIT, rows.v[i],
		        strlen(rows.v[i]), &err) == 0)
			jsonw_raw(&w, rows.v[i]);
		else
			jsonw_str(&w, rows.v[i]);
		json_doc_free(doc);
		doc = NULL;
		err_release(&err);
	}
	jsonw_arr_end(&w);
	jsonw_key_int(&w, "total", (int64_t)total);
	end(out, &w);
	strv_release(&rows);
}

/* ---- request bodies -------------------------------------------------- */

enum member_type { M_STRING, M_BOOL };

struct member {
	const char *key;
	enum member_type type;
	bool required;
	/* out */
	const struct json *v;
};

/* r's body as a JSON object with members m[0..n) only; false (out set)
 * on anything else. *doc owns the values. */
static bool
body_members(const struct web_req *r, struct member *m, size_t n,
    struct json_doc **doc, struct web_resp *out)
{
	const char *type = web_req_header(r, "Content-Type");
	const struct json *root, *it;
	struct err err = {0};
	char *msg;
	size_t i;
	bool known;

	*doc = NULL;
	if (type == NULL || strncasecmp(type, "application/json", 16) != 0 ||
	    (type[16] != '\0' && type[16] != ';' && type[16] != ' ')) {
		web_json_error(out, 415,
		    "the body must be JSON (Content-Type: application/json)");
		return false;
	}
	if (r->body_len == 0) {
		web_json_error(out, 400,
		    "the request has no body: a JSON "
		    "object is expected");
		return false;
	}
	if (json_parse(doc, "request body", r->body, r->body_len, &err) < 0) {
		msg = err_render(&err);
		web_json_error(out, 400, "%s", msg);
		free(msg);
		err_release(&err);
		return false;
	}
	root = json_doc_root(*doc);
	if (!json_is_object(root)) {
		web_json_error(out, 400,
		    "request body: expected a JSON object");
		goto fail;
	}
	for (it = json_first(root); it != NULL; it = json_next(it)) {
		known = false;
		for (i = 0; i < n && !known; i++)
			known = strcmp(json_key(it), m[i].key) == 0;
		if (!known) {
			web_json_error(out, 400,
			    "request body: unknown member '%s'", json_key(it));
			goto fail;
		}
	}
	for (i = 0; i < n; i++) {
		m[i].v = json_get(root, m[i].key);
		if (m[i].v == NULL) {
			if (!m[i].required)
				continue;
			web_json_error(out, 400,
			    "request body: member '%s' is required", m[i].key);
			goto fail;
		}
		if ((m[i].type == M_STRING && !json_is_string(m[i].v)) ||
		    (m[i].type == M_BOOL && !json_is_bool(m[i].v))) {
			web_json_error(out, 400,
			    "request body: '%s' must be %s", m[i].key,
			    m[i].type == M_STRING ? "a string"
			                          : "true or false");
			goto fail;
		}
	}
	return true;
fail:
	json_doc_free(*doc);
	*doc = NULL;
	return false;
}

/* The API's POSTs: an approver's bearer token. */
static bool
may_post(const struct web_who *who, const char *what, struct web_resp *out)
{
	if (who->session) {
		web_json_error(out, 403,
		    "the API's POSTs take a bearer token (Authorization: Bearer "
		    "TOKEN), not a session cookie");
		return false;
	}
	if (who->role != WEB_APPROVER) {
		web_json_error(out, 403,
		    "%s takes an approver's token; %s is a %s", what, who->name,
		    web_role_name(who->role));
		return false;
	}
	return true;
}

/* ---- approve --------------------------------------------------------- */

static void
approve(struct web_ctx *c, const struct web_view *v, const struct web_req *r,
    const struct web_who *who, const char *cluster, const char *id,
    struct web_resp *out)
{
	struct member m[] = {
	    {"confirmation", M_STRING, true, NULL},
	    {"override_window", M_BOOL, false, NULL},
	};
	struct json_doc *doc = NULL;
	struct web_preview p;
	bool override = false;
	struct err err = {0};
	struct sbuf msg = {0};
	struct jsonw w;
	int status;

	if (!may_post(who, "approving", out) ||
	    !body_members(r, m, 2, &doc, out))
		return;
	if (m[1].v != NULL)
		(void)json_bool(m[1].v, &override);
	status =
	    web_approve(v, cluster, id, json_str(m[0].v), override, who, &msg);
	json_doc_free(doc);
	if (status != 200) {
		web_json_error(out, status, "%s", sbuf_str(&msg));
		sbuf_release(&msg);
		return;
	}
	web_board_wake(c->board);
	begin(out, &w, 200);
	jsonw_key_str(&w, "message", sbuf_str(&msg));
	jsonw_key(&w, "preview");
	if (web_model_preview(v, cluster, id, &p, &err) == 0) {
		preview_json(&w, &p);
		web_preview_release(&p);
	} else {
		jsonw_null(&w);
		err_release(&err);
	}
	end(out, &w);
	sbuf_release(&msg);
}

/* ---- delete-queue and jobs ------------------------------------------- */

static void
job_json(struct jsonw *w, const struct web_job *j)
{
	jsonw_obj_begin(w);
	jsonw_key_str(w, "by", j->by);
	jsonw_key_str(w, "cluster", j->cluster);
	jsonw_key_bool(w, "disconnect_consumers", j->disconnect_consumers);
	jsonw_key_bool(w, "done", j->done);
	jsonw_key_int(w, "id", (int64_t)j->id);
	jsonw_key(w, "links");
	jsonw_obj_begin(w);
	if (j->preview != NULL && j->cluster != NULL)
		key_link(w, "preview", API_PREFIX "clusters/%s/previews/%s",
		    j->cluster, j->preview);
	key_link(w, "self", API_PREFIX "jobs/%llu", (unsigned long long)j->id);
	jsonw_obj_end(w);
	jsonw_key_str(w, "message", j->message);
	jsonw_key_str(w, "preview", j->preview);
	jsonw_key_str(w, "queue", j->queue);
	jsonw_key(w, "status");
	if (j->done)
		jsonw_int(w, j->status);
	else
		jsonw_null(w);
	jsonw_obj_end(w);
}

static void
delete_queue(struct web_ctx *c, const struct web_view *v,
    const struct web_req *r, const struct web_who *who, const char *cluster,
    struct web_resp *out)
{
	struct member m[] = {
	    {"disconnect_consumers", M_BOOL, false, NULL},
	    {"queue", M_STRING, true, NULL},
	};
	struct json_doc *doc = NULL;
	struct web_job j, res;
	struct web_preview p;
	struct err err = {0};
	struct jsonw w;
	const char *queue, *why;
	bool disconnect = false, done;
	uint32_t cp;
	size_t at;
	char *shown;

	if (!may_post(who, "posting a delete-queue preview", out) ||
	    !body_members(r, m, 2, &doc, out))
		return;
	queue = json_str(m[1].v);
	if (m[0].v != NULL)
		(void)json_bool(m[0].v, &disconnect);
	if (queue[0] == '\0' || strlen(queue) > API_QUEUE_MAX) {
		web_json_error(out, 400,
		    "queue: a queue name of 1 to %d bytes is expected",
		    API_QUEUE_MAX);
		json_doc_free(doc);
		return;
	}
	why = utf8_find(queue, utf8_name_problem, &at, &cp);
	if (why != NULL) {
		shown = utf8_escape(queue, utf8_name_problem);
		web_json_error(out, 400,
		    "queue '%s': %s at byte %zu; a queue name has none", shown,
		    why, at);
		free(shown);
		json_doc_free(doc);
		return;
	}
	memset(&j, 0, sizeof(j));
	j.cluster = xstrdup(cluster);
	j.queue = xstrdup(queue);
	j.disconnect_consumers = disconnect;
	j.by = xstrdup(who->name);
	json_doc_free(doc);
	done = web_board_job_post(c->board, &j, API_JOB_WAIT_MS, &res);
	if (!done) {
		begin(out, &w, 202);
		strv_addf(&out->headers, "Location: " API_PREFIX "jobs/%llu",
		    (unsigned long long)res.id);
		jsonw_key(&w, "job");
		job_json(&w, &res);
		end(out, &w);
	} else if (res.status == 200 || res.status == 201) {
		begin(out, &w, res.status);
		jsonw_key(&w, "job");
		job_json(&w, &res);
		if (res.status == 201) {
			jsonw_key(&w, "preview");
			if (res.preview != NULL &&
			    web_model_preview(v, cluster, res.preview, &p,
			        &err) == 0) {
				preview_json(&w, &p);
				web_preview_release(&p);
			} else {
				err_release(&err);
				jsonw_null(&w);
			}
		}
		end(out, &w);
	} else {
		web_json_error(out, res.status >= 400 ? res.status : 500, "%s",
		    res.message != NULL ? res.message : "the job failed");
	}
	web_job_release(&j);
	web_job_release(&res);
}

static void
job_one(struct web_ctx *c, const char *id, struct web_resp *out)
{
	struct web_job j;
	struct jsonw w;
	uint64_t n = 0;
	size_t i;

	for (i = 0; id[i] != '\0'; i++)
		if (id[i] < '0' || id[i] > '9' || i >= 18) {
			web_json_error(out, 400, "a job id is a number");
			return;
		}
	for (i = 0; id[i] != '\0'; i++)
		n = n * 10 + (uint64_t)(id[i] - '0');
	memset(&j, 0, sizeof(j));
	if (!web_board_job_get(c->board, n, &j)) {
		web_json_error(out, 404,
		    "no job %s (the last finished jobs are kept, not all)", id);
		return;
	}
	begin(out, &w, 200);
	jsonw_key(&w, "job");
	job_json(&w, &j);
	end(out, &w);
	web_job_release(&j);
}

/* ---- routing --------------------------------------------------------- */

/* Split the path after /api/v1/ into segments; false for an empty one
 * (a doubled or trailing slash) or too many. */
static bool
split(const char *rest, char *buf, size_t bufsz, char **seg, size_t *n)
{
	size_t len = strlen(rest);
	char *p, *slash;

	*n = 0;
	if (len >= bufsz)
		return false;
	memcpy(buf, rest, len + 1);
	p = buf;
	for (;;) {
		if (*n == API_SEGS_MAX || *p == '\0')
			return false;
		seg[(*n)++] = p;
		slash = strchr(p, '/');
		if (slash == NULL)
			return true;
		*slash = '\0';
		p = slash + 1;
	}
}

static bool
id_check(const char *what, const char *s, struct web_resp *out)
{
	if (web_id_ok(s))
		return true;
	web_json_error(out, 400,
	    "not a %s: letters, digits, '.', '_' and '-' only, not starting "
	    "with '.', no '..', at most 128 bytes",
	    what);
	return false;
}

static void
route_cluster(struct web_ctx *c, const struct web_view *v,
    const struct web_req *r, const struct web_who *who, char **seg, size_t n,
    struct web_resp *out)
{
	const char *cl = n >= 2 ? seg[1] : NULL, *id, *f;

	if (!id_check("cluster name", cl, out))
		return;
	if (n == 2) {
		if (!is_get(r))
			method_not_allowed(out, r, API_GET);
		else
			cluster_one(v, cl, out);
		return;
	}
	if (n == 3 && strcmp(seg[2], "drift") == 0) {
		if (!is_get(r))
			method_not_allowed(out, r, API_GET);
		else
			file_out(v, cl, AGENT_OUTBOX_DRIFT,
			    AGENT_OUTBOX_DRIFT_JSON, "application/json", out,
			    "no drift report for this cluster yet");
		return;
	}
	if (n == 3 && strcmp(seg[2], "delete-queue") == 0) {
		if (strcmp(r->method, "POST") != 0)
			method_not_allowed(out, r, API_POST);
		else
			delete_queue(c, v, r, who, cl, out);
		return;
	}
	if (n == 3 && strcmp(seg[2], "previews") == 0) {
		if (!is_get(r))
			method_not_allowed(out, r, API_GET);
		else if (!cluster_known(v, cl))
			web_json_error(out, 404, "no cluster '%s'", cl);
		else
			previews_list(v, r, cl, out);
		return;
	}
	if (n < 4 || strcmp(seg[2], "previews") != 0) {
		web_json_error(out, 404, "no such route: %s %s", r->method,
		    r->path);
		return;
	}
	id = seg[3];
	if (!id_check("preview id", id, out))
		return;
	if (n == 4) {
		if (!is_get(r))
			method_not_allowed(out, r, API_GET);
		else
			preview_one(v, cl, id, out);
		return;
	}
	f = seg[4];
	if (n == 5 && strcmp(f, "approve") == 0) {
		if (strcmp(r->method, "POST") != 0)
			method_not_allowed(out, r, API_POST);
		else
			approve(c, v, r, who, cl, id, out);
		return;
	}
	if (n == 5 &&
	    (strcmp(f, "plan.json") == 0 || strcmp(f, "plan.md") == 0 ||
	        strcmp(f, "result") == 0)) {
		if (!is_get(r))
			method_not_allowed(out, r, API_GET);
		else if (strcmp(f, "plan.json") == 0)
			file_out(v, cl, id, AGENT_OUTBOX_PLAN,
			    "application/json", out, "no such preview");
		else if (strcmp(f, "plan.md") == 0)
			file_out(v, cl, id, AGENT_OUTBOX_PLAN_MD,
			    "text/markdown; charset=utf-8", out,
			    "no such preview");
		else
			file_out(v, cl, id, AGENT_OUTBOX_RESULT,
			    "application/json", out,
			    "no result: the preview was not applied (yet)");
		return;
	}
	web_json_error(out, 404, "no such route: %s %s", r->method, r->path);
}

bool
web_api(struct web_ctx *c, const struct web_req *r, const struct web_who *who,
    struct web_resp *out)
{
	char buf[1024], *seg[API_SEGS_MAX] = {NULL};
	struct web_view v;
	size_t n = 0;

	if (strncmp(r->path, API_PREFIX, strlen(API_PREFIX)) != 0)
		return false;
	if (!split(r->path + strlen(API_PREFIX), buf, sizeof(buf), seg, &n)) {
		web_json_error(out, 404, "no such route: %s %s", r->method,
		    r->path);
		return true;
	}
	web_board_view(c->board, &v);
	if (strcmp(seg[0], "clusters") == 0 && n == 1) {
		if (!is_get(r))
			method_not_allowed(out, r, API_GET);
		else
			clusters_list(&v, out);
	} else if (strcmp(seg[0], "clusters") == 0) {
		route_cluster(c, &v, r, who, seg, n, out);
	} else if (strcmp(seg[0], "previews") == 0 && n == 1) {
		if (!is_get(r))
			method_not_allowed(out, r, API_GET);
		else
			previews_list(&v, r, NULL, out);
	} else if (strcmp(seg[0], "audit") == 0 && n == 1) {
		if (!is_get(r))
			method_not_allowed(out, r, API_GET);
		else
			audit(&v, r, out);
	} else if (strcmp(seg[0], "jobs") == 0 && n == 2) {
		if (!is_get(r))
			method_not_allowed(out, r, API_GET);
		else
			job_one(c, seg[1], out);
	} else {
		web_json_error(out, 404, "no such route: %s %s", r->method,
		    r->path);
	}
	web_view_release(&v);
	return true;
}
