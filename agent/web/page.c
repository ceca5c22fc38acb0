/* agent/web/page.c: the HTML pages (docs/http-api.md "The pages"), readable
 * without JavaScript:
 *
 *   GET  /                                   every cluster: nodes, branch
 *                                            head, applied revision,
 *                                            previews, drift, last applies,
 *                                            the delete-queue form
 *   GET  /login, POST /login, POST /logout   the token exchanged for a
 *                                            session cookie, and back
 *   GET  /clusters/C/previews/ID             plan.md as HTML, the state, the
 *                                            approve form
 *   POST /clusters/C/previews/ID/approve     form: confirmation, csrf
 *   POST /clusters/C/delete-queue            form: queue,
 *                                            disconnect_consumers, csrf
 *   GET  /clusters/C/drift                   drift.md as HTML
 *   GET  /jobs/N                             a delete-queue job still
 *                                            running
 *
 * Every name is escaped (queue names are user data); every form POST
 * carries the session's CSRF token and, when the browser sends one, an
 * Origin naming this host; approving and posting a delete need the
 * approver role. Every page is sent with a Content-Security-Policy that
 * allows no script, no external resource and forms to this server only.
 */
#include "web-int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "../../lib/json.h"
#include "../../lib/utf8.h"
#include "../../lib/xalloc.h"

#define PAGE_CSP                                                               \
	"default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; "  \
	"frame-ancestors 'none'"
#define PAGE_PATH_MAX  1024  /* bytes of a page path */
#define PAGE_SEGS      6     /* segments of a page path */
#define JOB_WAIT_MS    30000 /* a delete-queue job, before 202 */
#define AUDIT_ROWS     200   /* audit rows read for the last applies */
#define APPLIES_SHOWN  5     /* per cluster */
#define PREVIEWS_SHOWN 10    /* per cluster */
#define QUEUE_MAX      1024  /* bytes of a queue name in the form */

static const char caveat[] =
    "Consumers disconnected by removeConsumers may reconnect and re-create "
    "an auto-created queue.";

/* ---- the response ------------------------------------------------------ */

static void
page_start(struct web_resp *out, int status)
{
	out->status = status;
	out->type = "text/html; charset=utf-8";
	strv_add(&out->headers, "Content-Security-Policy: " PAGE_CSP);
	strv_add(&out->headers, "X-Content-Type-Options: nosniff");
	strv_add(&out->headers, "Cache-Control: no-store");
	/* server.c adds Referrer-Policy: no-referrer and X-Frame-Options:
	 * DENY to every response */
}

/* loc is built from checked ids only: no header injection. */
static void
page_redirect(struct web_resp *out, const char *loc)
{
	page_start(out, 303);
	strv_addf(&out->headers, "Location: %s", loc);
	sbuf_reset(&out->body);
	sbuf_adds(&out->body, "<!DOCTYPE html>\n<p>See <a href=\"");
	web_html_esc(&out->body, loc);
	sbuf_adds(&out->body, "\">");
	web_html_esc(&out->body, loc);
	sbuf_adds(&out->body, "</a>.</p>\n");
}

/* A page of one message: an error or what happened, with a way back. */
static void
page_message(struct web_resp *out, const struct web_who *who, int status,
    const char *title, const char *msg, const char *back)
{
	page_start(out, status);
	sbuf_reset(&out->body);
	web_html_begin(&out->body, title, who);
	sbuf_addf(&out->body, "<p class=\"msg%s\">",
	    status >= 400 ? " error" : "");
	if (status >= 400)
		sbuf_addf(&out->body, "<b>%d</b> ", status);
	web_html_esc(&out->body, msg);
	sbuf_adds(&out->body, "</p>\n");
	if (back != NULL) {
		sbuf_adds(&out->body, "<p><a href=\"");
		web_html_esc(&out->body, back);
		sbuf_adds(&out->body, "\">Back</a></p>\n");
	}
	web_html_end(&out->body);
}

static void
add_time(struct sbuf *b, int64_t t)
{
	struct tm tm;
	time_t tt = (time_t)t;
	char s[32];

	if (t <= 0 || gmtime_r(&tt, &tm) == NULL ||
	    strftime(s, sizeof(s), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0) {
		sbuf_adds(b, "never");
		return;
	}
	sbuf_adds(b, s);
	if (time(NULL) >= tt)
		sbuf_addf(b, " (%" PRId64 " s ago)", (int64_t)time(NULL) - t);
}

static void
add_csrf(struct sbuf *b, const struct web_who *who)
{
	sbuf_adds(b, "<input type=\"hidden\" name=\"csrf\" value=\"");
	web_html_esc(b, who->csrf);
	sbuf_adds(b, "\">");
}

static void
add_state(struct sbuf *b, enum web_preview_state s)
{
	const char *n = web_preview_state_name(s);

	sbuf_adds(b, "<span class=\"state state-");
	web_html_esc(b, n);
	sbuf_adds(b, "\">");
	web_html_esc(b, n);
	sbuf_adds(b, "</span>");
}

static void
add_preview_link(struct sbuf *b, const char *cluster, const char *id)
{
	sbuf_adds(b, "<a href=\"/clusters/");
	web_html_esc(b, cluster);
	sbuf_adds(b, "/previews/");
	web_html_esc(b, id);
	sbuf_adds(b, "\"><code>");
	web_html_esc(b, id);
	sbuf_adds(b, "</code></a>");
}

/* ---- forms ------------------------------------------------------------- */

/* The Origin a browser sends with a form POST names this host (Host, or
 * the proxy's X-Forwarded-Host); none at all is allowed (older browsers,
 * curl). A cross-site form cannot set either header. */
static bool
origin_ok(const struct web_req *r)
{
	const char *o = web_req_header(r, "Origin");
	const char *host = web_req_header(r, "Host");
	const char *fwd = web_req_header(r, "X-Forwarded-Host");
	const char *h;

	if (o == NULL)
		return true;
	if (strncasecmp(o, "http://", 7) == 0)
		h = o + 7;
	else if (strncasecmp(o, "https://", 8) == 0)
		h = o + 8;
	else
		return false; /* "null": a sandboxed frame, a data: URL */
	return (host != NULL && strcasecmp(h, host) == 0) ||
	       (fwd != NULL && strcasecmp(h, fwd) == 0);
}

/* The checks of every form POST but the sign-in: an Origin naming this
 * host and the session's CSRF token. false with a 403 page in out. */
static bool
form_guard(const struct web_req *r, const struct web_who *who,
    struct web_resp *out, const char *back)
{
	char *csrf;
	bool ok;

	if (!origin_ok(r)) {
		page_message(out, who, 403, "Refused",
		    "the form was sent from another site (its Origin header "
		    "does not name this server): nothing was done",
		    back);
		return false;
	}
	csrf = web_req_form(r, "csrf");
	ok = csrf != NULL && web_auth_csrf_ok(who, csrf);
	free(csrf);
	if (!ok)
		page_message(out, who, 403, "Refused",
		    "the form's CSRF token is missing or is not this "
		    "session's: nothing was done; reload the page and send "
		    "the form again",
		    back);
	return ok;
}

/* ---- sign in, sign out ------------------------------------------------- */

static void
login_form(struct web_resp *out, int status, const char *msg)
{
	struct sbuf *b = &out->body;

	page_start(out, status);
	sbuf_reset(b);
	web_html_begin(b, "Sign in", NULL);
	if (msg != NULL) {
		sbuf_adds(b, "<p class=\"msg error\">");
		web_html_esc(b, msg);
		sbuf_adds(b, "</p>\n");
	}
	sbuf_adds(b,
	    "<form method=\"post\" action=\"/login\">\n"
	    "<label>Token <input type=\"password\" name=\"token\" "
	    "autocomplete=\"off\" required autofocus></label>\n"
	    "<button type=\"submit\">Sign in</button>\n</form>\n"
	    "<p>A viewer or approver token of this agent (a file of its "
	    "credentials folder). It is exchanged for a session cookie "
	    "that expires; it is never put in a URL.</p>\n");
	web_html_end(b);
}

static void
login_post(struct web_ctx *c, const struct web_req *r, struct web_resp *out)
{
	struct web_who who = {0};
	char cookie[65] = "", *token, *hdr;
	bool ok;

	if (!origin_ok(r)) {
		login_form(out, 403,
		    "the form was sent from another site (its Origin header "
		    "does not name this server)");
		return;
	}
	token = web_req_form(r, "token");
	ok = token != NULL && web_auth_login(c->auth, token, cookie, &who);
	if (token != NULL) {
		explicit_bzero(token, strlen(token));
		free(token);
	}
	if (!ok) {
		login_form(out, 401,
		    "wrong token: not a viewer or approver "
		    "token of this agent");
		return;
	}
	hdr = web_auth_cookie_header(c->auth, cookie, r->tls);
	explicit_bzero(cookie, sizeof(cookie));
	page_redirect(out, "/");
	strv_addf(&out->headers, "Set-Cookie: %s", hdr);
	free(hdr);
}

static void
logout_post(struct web_ctx *c, const struct web_req *r,
    const struct web_who *who, struct web_resp *out)
{
	const char *cookie = web_req_cookie(r, WEB_SESSION_COOKIE);

	if (who->session && !form_guard(r, who, out, "/"))
		return;
	if (cookie != NULL)
		web_auth_logout(c->auth, cookie);
	page_redirect(out, "/login");
	strv_addf(&out->headers,
	    "Set-Cookie: " WEB_SESSION_COOKIE
	    "=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict%s",
	    r->tls ? "; Secure" : "");
}

/* ---- the status page --------------------------------------------------- */

struct apply_row {
	char *cluster, *finished, *revision, *approver, *plan_id;
	bool ok;
};

/* The audit's result rows, newest first (web_model_audit's order). */
static size_t
applies_load(const struct web_view *v, struct apply_row **out,
    struct sbuf *problem)
{
	struct strv rows = {0};
	struct apply_row *a;
	struct err err = {0};
	size_t total = 0, i, n = 0;

	*out = NULL;
	if (web_model_audit(v, 0, AUDIT_ROWS, &rows, &total, &err) < 0) {
		sbuf_adds(problem, err.msg != NULL ? err.msg : "unreadable");
		err_release(&err);
		return 0;
	}
	a = xcalloc(rows.n + 1, sizeof(*a));
	for (i = 0; i < rows.n; i++) {
		struct json_doc *d = NULL;
		const struct json *o, *dir;
		const char *ev, *slash;
		int64_t ex = 1;

		if (json_parse(&d, "audit", rows.v[i], strlen(rows.v[i]),
		        &err) < 0) {
			err_release(&err);
			continue;
		}
		o = json_doc_root(d);
		ev = json_str(json_get(o, "event"));
		if (ev != NULL && strcmp(ev, "result") == 0 &&
		    json_str(json_get(o, "cluster")) != NULL) {
			a[n].cluster =
			    xstrdup(json_str(json_get(o, "cluster")));
			a[n].finished =
			    xstrdup(json_str(json_get(o, "finished_at")) != NULL
			                ? json_str(json_get(o, "finished_at"))
			                : "");
			a[n].revision =
			    xstrdup(json_str(json_get(o, "revision")) != NULL
			                ? json_str(json_get(o, "revision"))
			                : "");
			a[n].approver =
			    xstrdup(json_str(json_get(o, "approver")) != NULL
			                ? json_str(json_get(o, "approver"))
			                : "");
			dir = json_get(o, "plan_dir");
			if (json_str(dir) != NULL) {
				slash = strrchr(json_str(dir), '/');
				slash =
				    slash != NULL ? slash + 1 : json_str(dir);
				if (web_id_ok(slash))
					a[n].plan_id = xstrdup(slash);
			}
			(void)json_int(json_get(o, "exit"), &ex);
			a[n].ok = ex == 0;
			n++;
		}
		json_doc_free(d);
	}
	strv_release(&rows);
	*out = a;
	return n;
}

static void
applies_free(struct apply_row *a, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(a[i].cluster);
		free(a[i].finished);
		free(a[i].revision);
		free(a[i].approver);
		free(a[i].plan_id);
	}
	free(a);
}

static void
status_agent(struct sbuf *b, const struct web_view *v)
{
	sbuf_adds(b, "<section><p>Branch head: ");
	if (v->head != NULL) {
		sbuf_adds(b, "<code>");
		web_html_esc(b, v->head);
		sbuf_adds(b, "</code> ");
		web_html_esc(b, v->head_summary);
	} else {
		sbuf_adds(b, "not fetched yet");
	}
	sbuf_adds(b, "</p>\n<p>Last good fetch: ");
	add_time(b, v->fetch_ok_at);
	if (v->fetch_failed)
		sbuf_adds(b,
		    " <span class=\"down\">the last fetch failed</span>");
	sbuf_adds(b, "; last good cycle: ");
	add_time(b, v->cycle_ok_at);
	if (v->cycle_failed)
		sbuf_adds(b,
		    " <span class=\"down\">the last cycle failed</span>");
	sbuf_addf(b, "; state lock %s.</p></section>\n",
	    v->locked ? "held" : "<span class=\"down\">not held</span>");
}

static void
status_nodes(struct sbuf *b, const struct web_cluster_view *cv)
{
	size_t i;

	sbuf_adds(b, "<h3>Nodes</h3>\n<table><tr><th>node</th><th>state</th>"
	             "<th>live member</th><th>Artemis</th><th>last read</th>"
	             "<th>read took</th></tr>\n");
	for (i = 0; i < cv->nnodes; i++) {
		const struct web_node_view *n = &cv->nodes[i];

		sbuf_adds(b, "<tr><td>");
		web_html_esc(b, n->node);
		sbuf_adds(b, "</td><td>");
		if (!n->read)
			sbuf_adds(b, "not read yet");
		else if (n->up)
			sbuf_adds(b, "<span class=\"up\">up</span>");
		else {
			sbuf_adds(b, "<span class=\"down\">down</span> ");
			web_html_esc(b, n->refusal);
		}
		sbuf_adds(b, "</td><td>");
		web_html_esc(b, n->member != NULL ? n->member : "-");
		sbuf_adds(b, "</td><td>");
		web_html_esc(b, n->version != NULL ? n->version : "-");
		sbuf_adds(b, "</td><td>");
		add_time(b, n->read ? n->read_at : 0);
		sbuf_addf(b, "</td><td>%.3f s</td></tr>\n",
		    n->read ? n->seconds : 0.0);
	}
	sbuf_adds(b, "</table>\n");
}

static void
status_applied(struct sbuf *b, const struct web_view *v, const char *cluster)
{
	char *at = NULL, *rev = web_model_applied(v, cluster, &at);

	sbuf_adds(b, "<p>Applied revision: ");
	if (rev != NULL) {
		sbuf_adds(b, "<code>");
		web_html_esc(b, rev);
		sbuf_adds(b, "</code>");
		if (at != NULL) {
			sbuf_adds(b, " at ");
			web_html_esc(b, at);
		}
	} else {
		sbuf_adds(b, "nothing applied yet");
	}
	sbuf_adds(b, "</p>\n");
	free(rev);
	free(at);
}

static void
status_drift(struct sbuf *b, const struct web_view *v, const char *cluster)
{
	static const char *const kinds[] = {"missing", "changed", "unmanaged",
	    "disagreeing", "unreachable", "refused"};
	struct json_doc *d = NULL;
	struct err err = {0};
	const struct json *o;
	char *text = NULL;
	size_t len = 0, i, any = 0;
	bool drift = false;
	int rc;

	sbuf_adds(b, "<p>Drift: ");
	rc = web_model_file(v, cluster, "drift", "drift.json", &text, &len,
	    &err);
	if (rc == 1) {
		sbuf_adds(b, "no drift report yet</p>\n");
		return;
	}
	if (rc < 0 || json_parse(&d, "drift.json", text, len, &err) < 0) {
		sbuf_adds(b, "<span class=\"down\">unreadable</span>: ");
		web_html_esc(b, err.msg);
		sbuf_adds(b, "</p>\n");
		err_release(&err);
		free(text);
		return;
	}
	o = json_doc_root(d);
	(void)json_bool(json_get(o, "drift"), &drift);
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		size_t k = json_size(json_get(o, kinds[i]));

		if (k == 0)
			continue;
		sbuf_addf(b, "%s%zu %s", any++ > 0 ? ", " : "", k, kinds[i]);
	}
	if (any == 0)
		sbuf_adds(b, drift ? "found" : "none");
	sbuf_adds(b, " (checked ");
	web_html_esc(b, json_str(json_get(o, "checked_at")) != NULL
	                    ? json_str(json_get(o, "checked_at"))
	                    : "?");
	sbuf_adds(b, ") &mdash; <a href=\"/clusters/");
	web_html_esc(b, cluster);
	sbuf_adds(b, "/drift\">the report</a></p>\n");
	json_doc_free(d);
	free(text);
}

static void
status_previews(struct sbuf *b, const struct web_view *v, const char *cluster)
{
	struct web_preview *pv = NULL;
	struct err err = {0};
	size_t n = 0, i, pending = 0;

	if (web_model_previews(v, cluster, PREVIEWS_SHOWN, &pv, &n, &err) < 0) {
		sbuf_adds(b, "<p class=\"msg error\">previews unreadable: ");
		web_html_esc(b, err.msg);
		sbuf_adds(b, "</p>\n");
		err_release(&err);
		return;
	}
	for (i = 0; i < n; i++)
		pending += pv[i].state == WEB_PENDING;
	sbuf_addf(b, "<h3>Previews (%zu pending)</h3>\n", pending);
	if (n == 0) {
		sbuf_adds(b, "<p>none yet</p>\n");
		return;
	}
	sbuf_adds(b, "<table><tr><th>preview</th><th>state</th><th>created"
	             "</th><th>commit</th><th>summary</th><th>approved by"
	             "</th><th>result</th></tr>\n");
	for (i = 0; i < n; i++) {
		sbuf_adds(b, "<tr><td>");
		add_preview_link(b, cluster, pv[i].id);
		sbuf_adds(b, "</td><td>");
		add_state(b, pv[i].state);
		sbuf_adds(b, "</td><td>");
		web_html_esc(b, pv[i].created);
		sbuf_adds(b, "</td><td><code>");
		web_html_esc(b, pv[i].commit);
		sbuf_adds(b, "</code></td><td>");
		web_html_esc(b, pv[i].summary);
		sbuf_adds(b, "</td><td>");
		web_html_esc(b, pv[i].approved_by);
		sbuf_adds(b, "</td><td>");
		web_html_esc(b, pv[i].result);
		sbuf_adds(b, "</td></tr>\n");
	}
	sbuf_adds(b, "</table>\n");
	web_model_previews_free(pv, n);
}

static void
status_applies(struct sbuf *b, const char *cluster, const struct apply_row *a,
    size_t n)
{
	size_t i, shown = 0;

	sbuf_adds(b, "<h3>Last applies</h3>\n");
	for (i = 0; i < n && shown < APPLIES_SHOWN; i++) {
		if (strcmp(a[i].cluster, cluster) != 0)
			continue;
		if (shown++ == 0)
			sbuf_adds(b, "<table><tr><th>finished</th><th>result"
			             "</th><th>revision</th><th>approver</th>"
			             "<th>preview</th></tr>\n");
		sbuf_adds(b, "<tr><td>");
		web_html_esc(b, a[i].finished);
		sbuf_addf(b,
		    "</td><td><span class=\"%s\">%s</span></td><td>"
		    "<code>",
		    a[i].ok ? "up" : "down", a[i].ok ? "ok" : "failed");
		web_html_esc(b, a[i].revision);
		sbuf_adds(b, "</code></td><td>");
		web_html_esc(b, a[i].approver);
		sbuf_adds(b, "</td><td>");
		if (a[i].plan_id != NULL)
			add_preview_link(b, cluster, a[i].plan_id);
		sbuf_adds(b, "</td></tr>\n");
	}
	sbuf_adds(b, shown > 0 ? "</table>\n" : "<p>none yet</p>\n");
}

static void
status_delete_form(struct sbuf *b, const struct web_who *who,
    const char *cluster)
{
	sbuf_adds(b, "<h3>Delete a queue</h3>\n");
	if (who->role != WEB_APPROVER) {
		sbuf_adds(b,
		    "<p>Posting a delete needs the approver role.</p>\n");
		return;
	}
	sbuf_adds(b, "<form method=\"post\" action=\"/clusters/");
	web_html_esc(b, cluster);
	sbuf_adds(b, "/delete-queue\">");
	add_csrf(b, who);
	sbuf_addf(b,
	    "\n<label>Queue <input type=\"text\" name=\"queue\" required "
	    "maxlength=\"%d\" autocomplete=\"off\"></label>\n"
	    "<label><input type=\"checkbox\" name=\"disconnect_consumers\" "
	    "value=\"1\"> disconnect its consumers "
	    "(removeConsumers)</label>\n"
	    "<p class=\"caveat\">%s</p>\n"
	    "<button type=\"submit\">Preview the delete</button>\n</form>\n"
	    "<p>This posts a delete-queue preview through the same "
	    "preflight as <code>artemis-gitops delete-queue</code>; nothing "
	    "changes on a broker until the preview is approved.</p>\n",
	    QUEUE_MAX, caveat);
}

static void
status_page(struct web_ctx *c, const struct web_who *who, struct web_resp *out)
{
	struct sbuf *b = &out->body, problem = {0};
	struct web_view v = {0};
	struct apply_row *applies = NULL;
	size_t napplies, i;

	web_board_view(c->board, &v);
	page_start(out, 200);
	sbuf_reset(b);
	web_html_begin(b, "Status", who);
	status_agent(b, &v);
	napplies = applies_load(&v, &applies, &problem);
	if (problem.len > 0) {
		sbuf_adds(b, "<p class=\"msg error\">the audit log is "
		             "unreadable: ");
		web_html_esc(b, sbuf_str(&problem));
		sbuf_adds(b, "</p>\n");
	}
	if (v.nclusters == 0)
		sbuf_adds(b, "<p>No cluster is configured.</p>\n");
	for (i = 0; i < v.nclusters; i++) {
		const char *name = v.clusters[i].name;

		sbuf_adds(b, "<section id=\"cluster-");
		web_html_esc(b, name);
		sbuf_adds(b, "\"><h2>Cluster ");
		web_html_esc(b, name);
		sbuf_adds(b, "</h2>\n");
		status_nodes(b, &v.clusters[i]);
		status_applied(b, &v, name);
		status_drift(b, &v, name);
		status_previews(b, &v, name);
		status_applies(b, name, applies, napplies);
		status_delete_form(b, who, name);
		sbuf_adds(b, "</section>\n");
	}
	web_html_end(b);
	applies_free(applies, napplies);
	sbuf_release(&problem);
	web_view_release(&v);
}

/* ---- a preview --------------------------------------------------------- */

static void
add_md_file(struct sbuf *b, const struct web_view *v, const char *cluster,
    const char *id, const char *name)
{
	struct err err = {0};
	char *md = NULL;
	size_t len = 0;
	int rc = web_model_file(v, cluster, id, name, &md, &len, &err);

	if (rc == 1) {
		sbuf_adds(b, "<p>");
		web_html_esc(b, name);
		sbuf_adds(b, " is not there.</p>\n");
	} else if (rc < 0) {
		sbuf_adds(b, "<p class=\"msg error\">");
		web_html_esc(b, err.msg);
		sbuf_adds(b, "</p>\n");
	} else {
		sbuf_adds(b, "<div class=\"plan\">\n");
		if (web_md_html(md, len, b) < 0) {
			sbuf_adds(b, "<pre>");
			web_html_esc(b, md);
			sbuf_adds(b, "</pre>\n");
		}
		sbuf_adds(b, "</div>\n");
	}
	err_release(&err);
	free(md);
}

static void
add_row(struct sbuf *b, const char *k, const char *val, bool code)
{
	if (val == NULL)
		return;
	sbuf_adds(b, "<tr><th>");
	sbuf_adds(b, k);
	sbuf_adds(b, code ? "</th><td><code>" : "</th><td>");
	web_html_esc(b, val);
	sbuf_adds(b, code ? "</code></td></tr>\n" : "</td></tr>\n");
}

static void
preview_approve_form(struct sbuf *b, const struct web_who *who,
    const struct web_preview *p)
{
	if (p->state != WEB_PENDING || p->confirmation == NULL)
		return;
	sbuf_adds(b, "<section id=\"approve\"><h2>Approve</h2>\n");
	if (who->role != WEB_APPROVER) {
		sbuf_adds(b, "<p>Approving needs the approver role; you are "
		             "signed in as a ");
		web_html_esc(b, web_role_name(who->role));
		sbuf_adds(b, ".</p></section>\n");
		return;
	}
	sbuf_adds(b, "<p>To approve exactly this plan, type:</p>\n"
	             "<pre id=\"confirmation\">");
	web_html_esc(b, p->confirmation);
	sbuf_adds(b, "</pre>\n<form method=\"post\" action=\"/clusters/");
	web_html_esc(b, p->cluster);
	sbuf_adds(b, "/previews/");
	web_html_esc(b, p->id);
	sbuf_adds(b, "/approve\">");
	add_csrf(b, who);
	sbuf_adds(b, "\n<label>Confirmation <input type=\"text\" "
	             "name=\"confirmation\" required autocomplete=\"off\" "
	             "spellcheck=\"false\"></label>\n"
	             "<button type=\"submit\">Approve</button>\n</form>"
	             "</section>\n");
}

static void
preview_page(struct web_ctx *c, const struct web_who *who, struct web_resp *out,
    const char *cluster, const char *id, int status, const char *msg)
{
	struct sbuf *b = &out->body, title = {0};
	struct web_preview p = {0};
	struct web_view v = {0};
	struct err err = {0};
	int rc;

	web_board_view(c->board, &v);
	rc = web_model_preview(&v, cluster, id, &p, &err);
	if (rc != 0) {
		page_message(out, who, rc == 1 ? 404 : 500, "Preview",
		    rc == 1 ? "no such preview" : err.msg, "/");
		goto done;
	}
	page_start(out, status);
	sbuf_reset(b);
	sbuf_addf(&title, "%s / %s", cluster, id);
	web_html_begin(b, sbuf_str(&title), who);
	if (msg != NULL) {
		sbuf_addf(b, "<p class=\"msg%s\" id=\"message\">",
		    status >= 400 ? " error" : "");
		if (status >= 400)
			sbuf_addf(b, "<b>%d</b> ", status);
		web_html_esc(b, msg);
		sbuf_adds(b, "</p>\n");
	}
	sbuf_adds(b, "<table class=\"facts\"><tr><th>state</th><td>");
	add_state(b, p.state);
	sbuf_adds(b, "</td></tr>\n");
	add_row(b, "outcome", p.outcome, false);
	add_row(b, "summary", p.summary, false);
	add_row(b, "commit", p.commit, true);
	add_row(b, "created", p.created, false);
	add_row(b, "approved by", p.approved_by, false);
	add_row(b, "result", p.result, false);
	sbuf_adds(b, "</table>\n");
	if (p.refused_why != NULL) {
		sbuf_adds(b, "<section class=\"msg error\"><h2>Approval "
		             "refused</h2>\n<pre>");
		web_html_esc(b, p.refused_why);
		sbuf_adds(b, "</pre></section>\n");
	}
	add_md_file(b, &v, cluster, id, "plan.md");
	if (p.state == WEB_APPLIED) {
		sbuf_adds(b, "<h2>Result</h2>\n");
		add_md_file(b, &v, cluster, id, "result.md");
	}
	preview_approve_form(b, who, &p);
	sbuf_adds(b, "<p><a href=\"/api/v1/clusters/");
	web_html_esc(b, cluster);
	sbuf_adds(b, "/previews/");
	web_html_esc(b, id);
	sbuf_adds(b, "/plan.json\">plan.json</a> &middot; <a href=\"/\">"
	             "status</a></p>\n");
	web_html_end(b);
done:
	sbuf_release(&title);
	err_release(&err);
	web_preview_release(&p);
	web_view_release(&v);
}

static void
approve_post(struct web_ctx *c, const struct web_req *r,
    const struct web_who *who, struct web_resp *out, const char *cluster,
    const char *id, const char *back)
{
	struct sbuf msg = {0};
	struct web_view v = {0};
	char *confirm;
	int st;

	if (!form_guard(r, who, out, back))
		return;
	if (who->role != WEB_APPROVER) {
		preview_page(c, who, out, cluster, id, 403,
		    "approving needs the approver role: nothing was done");
		return;
	}
	confirm = web_req_form(r, "confirmation");
	web_board_view(c->board, &v);
	st = web_approve(&v, cluster, id, confirm != NULL ? confirm : "", who,
	    &msg);
	web_view_release(&v);
	free(confirm);
	if (st == 200) {
		web_board_wake(c->board);
		page_redirect(out, back);
	} else {
		preview_page(c, who, out, cluster, id, st,
		    msg.len > 0 ? sbuf_str(&msg) : "not approved");
	}
	sbuf_release(&msg);
}

/* ---- delete-queue jobs ------------------------------------------------- */

static void
job_outcome(struct web_resp *out, const struct web_who *who,
    const struct web_job *j, const char *back)
{
	struct sbuf msg = {0}, loc = {0};

	if (!j->done) {
		sbuf_addf(&msg,
		    "job %" PRIu64 " is still running (the daemon plans "
		    "between its cycles); this page looks again every 5 s",
		    j->id);
		page_message(out, who, 202, "Delete a queue", sbuf_str(&msg),
		    "/");
		strv_add(&out->headers, "Refresh: 5");
	} else if (j->status == 201 && j->preview != NULL &&
	           web_id_ok(j->preview) && web_id_ok(j->cluster)) {
		sbuf_addf(&loc, "/clusters/%s/previews/%s", j->cluster,
		    j->preview);
		page_redirect(out, sbuf_str(&loc));
	} else {
		page_message(out, who,
		    j->status >= 200 && j->status < 600 ? j->status : 500,
		    j->status == 200 ? "Nothing to do" : "Delete a queue",
		    j->message != NULL ? j->message : "the job failed", back);
	}
	sbuf_release(&msg);
	sbuf_release(&loc);
}

static bool
cluster_known(struct web_ctx *c, const char *cluster)
{
	struct web_view v = {0};
	size_t i;
	bool known = false;

	web_board_view(c->board, &v);
	for (i = 0; i < v.nclusters && !known; i++)
		known = strcmp(v.clusters[i].name, cluster) == 0;
	web_view_release(&v);
	return known;
}

static void
delete_post(struct web_ctx *c, const struct web_req *r,
    const struct web_who *who, struct web_resp *out, const char *cluster)
{
	struct web_job j = {0}, res = {0};
	struct sbuf msg = {0};
	const char *why;
	char *queue = NULL, *disc = NULL;
	size_t at = 0;
	uint32_t cp;

	if (!form_guard(r, who, out, "/"))
		return;
	if (who->role != WEB_APPROVER) {
		page_message(out, who, 403, "Refused",
		    "posting a delete needs the approver role: nothing was "
		    "done",
		    "/");
		return;
	}
	if (!cluster_known(c, cluster)) {
		page_message(out, who, 404, "Delete a queue", "no such cluster",
		    "/");
		return;
	}
	queue = web_req_form(r, "queue");
	disc = web_req_form(r, "disconnect_consumers");
	if (queue == NULL || queue[0] == '\0' || strlen(queue) > QUEUE_MAX) {
		page_message(out, who, 422, "Delete a queue",
		    "the queue's name is missing or too long", "/");
		goto done;
	}
	why = utf8_find(queue, utf8_name_problem, &at, &cp);
	if (why != NULL) {
		sbuf_addf(&msg, "the queue's name has %s at byte %zu", why, at);
		page_message(out, who, 422, "Delete a queue", sbuf_str(&msg),
		    "/");
		goto done;
	}
	j.cluster = xstrdup(cluster);
	j.queue = queue;
	queue = NULL;
	j.disconnect_consumers = disc != NULL && disc[0] != '\0';
	j.by = xstrdup(who->name);
	(void)web_board_job_post(c->board, &j, JOB_WAIT_MS, &res);
	job_outcome(out, who, &res, "/");
done:
	web_job_release(&j);
	web_job_release(&res);
	sbuf_release(&msg);
	free(queue);
	free(disc);
}

static void
job_page(struct web_ctx *c, const struct web_who *who, struct web_resp *out,
    const char *num)
{
	struct web_job j = {0};
	uint64_t id = 0;
	const char *p;

	for (p = num; *p >= '0' && *p <= '9' && p - num < 19; p++)
		id = id * 10 + (uint64_t)(*p - '0');
	if (p == num || *p != '\0' || !web_board_job_get(c->board, id, &j)) {
		page_message(out, who, 404, "Job", "no such job", "/");
		return;
	}
	job_outcome(out, who, &j, "/");
	if (out->status == 202)
		out->status = 200;
	web_job_release(&j);
}

static void
drift_page(struct web_ctx *c, const struct web_who *who, struct web_resp *out,
    const char *cluster)
{
	struct web_view v = {0};
	struct sbuf title = {0};

	if (!cluster_known(c, cluster)) {
		page_message(out, who, 404, "Drift", "no such cluster", "/");
		return;
	}
	web_board_view(c->board, &v);
	page_start(out, 200);
	sbuf_reset(&out->body);
	sbuf_addf(&title, "%s / drift", cluster);
	web_html_begin(&out->body, sbuf_str(&title), who);
	add_md_file(&out->body, &v, cluster, "drift", "drift.md");
	web_html_end(&out->body);
	sbuf_release(&title);
	web_view_release(&v);
}

/* ---- routing ----------------------------------------------------------- */

/* path's segments into seg (pointing into buf); 0 when the path is not
 * one of a page's forms (too long, an empty segment, too many). */
static size_t
split(const char *path, char *buf, size_t bufsz, char **seg)
{
	size_t n = 0;
	char *p;

	if (path[0] != '/' || strlen(path) >= bufsz)
		return 0;
	strcpy(buf, path + 1);
	for (p = buf; n < PAGE_SEGS;) {
		char *slash = strchr(p, '/');

		if (*p == '\0' || p == slash)
			return 0;
		seg[n++] = p;
		if (slash == NULL)
			return n;
		*slash = '\0';
		p = slash + 1;
	}
	return 0;
}

enum route {
	R_NONE = 0,
	R_STATUS,
	R_LOGIN,
	R_LOGOUT,
	R_PREVIEW,
	R_APPROVE,
	R_DELETE,
	R_DRIFT,
	R_JOB,
};

static enum route
route_of(const char *path, char *buf, size_t bufsz, char **seg)
{
	size_t n;

	if (strcmp(path, "/") == 0)
		return R_STATUS;
	n = split(path, buf, bufsz, seg);
	if (n == 1 && strcmp(seg[0], "login") == 0)
		return R_LOGIN;
	if (n == 1 && strcmp(seg[0], "logout") == 0)
		return R_LOGOUT;
	if (n == 2 && strcmp(seg[0], "jobs") == 0)
		return R_JOB;
	if (n < 3 || strcmp(seg[0], "clusters") != 0)
		return R_NONE;
	if (n == 3 && strcmp(seg[2], "delete-queue") == 0)
		return R_DELETE;
	if (n == 3 && strcmp(seg[2], "drift") == 0)
		return R_DRIFT;
	if (n == 4 && strcmp(seg[2], "previews") == 0)
		return R_PREVIEW;
	if (n == 5 && strcmp(seg[2], "previews") == 0 &&
	    strcmp(seg[4], "approve") == 0)
		return R_APPROVE;
	return R_NONE;
}

static bool
route_post(enum route rt)
{
	return rt == R_LOGOUT || rt == R_APPROVE || rt == R_DELETE;
}

static bool
method_ok(const struct web_req *r, enum route rt, struct web_resp *out)
{
	bool post = strcmp(r->method, "POST") == 0;
	bool get = strcmp(r->method, "GET") == 0;

	if (rt == R_LOGIN ? (get || post) : route_post(rt) ? post : get)
		return true;
	page_message(out, NULL, 405, "Method not allowed",
	    "this page does not take that method", "/");
	strv_add(&out->headers, rt == R_LOGIN    ? "Allow: GET, POST"
	                        : route_post(rt) ? "Allow: POST"
	                                         : "Allow: GET");
	return false;
}

bool
web_page(struct web_ctx *c, const struct web_req *r, const struct web_who *who,
    struct web_resp *out)
{
	char buf[PAGE_PATH_MAX], *seg[PAGE_SEGS] = {0};
	struct sbuf back = {0};
	enum route rt = route_of(r->path, buf, sizeof(buf), seg);

	if (rt == R_NONE)
		return false;
	if (!method_ok(r, rt, out))
		return true;
	if (rt == R_LOGIN) {
		if (strcmp(r->method, "POST") == 0)
			login_post(c, r, out);
		else
			login_form(out, 200, NULL);
		return true;
	}
	if (who->role == WEB_NOBODY) {
		page_redirect(out, "/login");
		return true;
	}
	if (rt >= R_PREVIEW && rt <= R_DRIFT &&
	    (!web_id_ok(seg[1]) ||
	        (rt >= R_PREVIEW && rt <= R_APPROVE && !web_id_ok(seg[3])))) {
		page_message(out, who, 404, "Not found",
		    "no such cluster or preview", "/");
		return true;
	}
	if (rt == R_PREVIEW || rt == R_APPROVE)
		sbuf_addf(&back, "/clusters/%s/previews/%s", seg[1], seg[3]);
	switch (rt) {
	case R_STATUS:
		status_page(c, who, out);
		break;
	case R_LOGOUT:
		logout_post(c, r, who, out);
		break;
	case R_PREVIEW:
		preview_page(c, who, out, seg[1], seg[3], 200, NULL);
		break;
	case R_APPROVE:
		approve_post(c, r, who, out, seg[1], seg[3], sbuf_str(&back));
		break;
	case R_DELETE:
		delete_post(c, r, who, out, seg[1]);
		break;
	case R_DRIFT:
		drift_page(c, who, out, seg[1]);
		break;
	case R_JOB:
		job_page(c, who, out, seg[1]);
		break;
	default:
		break;
	}
	sbuf_release(&back);
	return true;
}
