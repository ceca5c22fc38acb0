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

#include "../../lib/utf8.h"
#include "../../lib/xalloc.h"

#define PAGE_PATH_MAX 1024  /* bytes of a page path */
#define PAGE_SEGS     6     /* segments of a page path */
#define JOB_WAIT_MS   30000 /* a delete-queue job, before 202 */

/* ---- forms --------------------------------------------------------------- */

/* A form POST comes from this server's own pages. A browser says where a
 * request comes from in Sec-Fetch-Site (Chromium, Firefox, Safari): only
 * "same-origin" (or "none": typed by the user) is taken. Without it, an
 * Origin must name this host (Host, or the proxy's X-Forwarded-Host);
 * none at all is taken (curl, older browsers), "null" is not. Under
 * Referrer-Policy: no-referrer, which every response carries, Chromium
 * sends "Origin: null" even from the page's own forms: Sec-Fetch-Site is
 * what tells them apart there. A cross-site form can set neither header;
 * the CSRF token and the SameSite=Strict cookie are the other two locks. */
static bool
origin_ok(const struct web_req *r)
{
	const char *site = web_req_header(r, "Sec-Fetch-Site");
	const char *o = web_req_header(r, "Origin");
	const char *host = web_req_header(r, "Host");
	const char *fwd = web_req_header(r, "X-Forwarded-Host");
	const char *h;

	if (site != NULL)
		return strcmp(site, "same-origin") == 0 ||
		       strcmp(site, "none") == 0;
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
		web_html_message(out, who, 403, "Refused",
		    "the form was sent from another site (its Sec-Fetch-Site "
		    "or Origin header does not name this server): nothing was "
		    "done",
		    back);
		return false;
	}
	csrf = web_req_form(r, "csrf");
	ok = csrf != NULL && web_auth_csrf_ok(who, csrf);
	free(csrf);
	if (!ok)
		web_html_message(out, who, 403, "Refused",
		    "the form's CSRF token is missing or is not this "
		    "session's: nothing was done; reload the page and send "
		    "the form again",
		    back);
	return ok;
}

/* ---- sign in, sign out --------------------------------------------------- */

static void
login_form(struct web_resp *out, int status, const char *msg)
{
	struct sbuf *b = &out->body;

	web_html_page(out, status);
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

/* web_auth_cookie_header's text, whole header ("Set-Cookie: ...") or its
 * value alone. */
static void
add_set_cookie(struct web_resp *out, const char *hdr)
{
	if (strncasecmp(hdr, "Set-Cookie:", 11) == 0)
		strv_add(&out->headers, hdr);
	else
		strv_addf(&out->headers, "Set-Cookie: %s", hdr);
}

static void
login_post(struct web_ctx *c, const struct web_req *r, struct web_resp *out)
{
	struct web_who who = {0};
	char cookie[65] = "", *token, *hdr;
	bool ok;

	if (!origin_ok(r)) {
		login_form(out, 403,
		    "the form was sent from another site (its Sec-Fetch-Site "
		    "or Origin header does not name this server)");
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
	web_html_redirect(out, "/");
	add_set_cookie(out, hdr);
	free(hdr);
}

static void
logout_post(struct web_ctx *c, const struct web_req *r,
    const struct web_who *who, struct web_resp *out)
{
	const char *cookie = web_req_cookie(r, WEB_SESSION_COOKIE);
	char *hdr;

	if (who->session && !form_guard(r, who, out, "/"))
		return;
	if (cookie != NULL)
		web_auth_logout(c->auth, cookie);
	web_html_redirect(out, "/login");
	hdr = web_auth_cookie_header(c->auth, NULL, r->tls); /* expired */
	add_set_cookie(out, hdr);
	free(hdr);
}

/* ---- delete-queue jobs --------------------------------------------------- */

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
		web_html_message(out, who, 202, "Delete a queue",
		    sbuf_str(&msg), "/");
		strv_add(&out->headers, "Refresh: 5");
	} else if (j->status == 201 && j->preview != NULL &&
	           web_id_ok(j->preview) && web_id_ok(j->cluster)) {
		sbuf_addf(&loc, "/clusters/%s/previews/%s", j->cluster,
		    j->preview);
		web_html_redirect(out, sbuf_str(&loc));
	} else {
		web_html_message(out, who,
		    j->status >= 200 && j->status < 600 ? j->status : 500,
		    j->status == 200 ? "Nothing to do" : "Delete a queue",
		    j->message != NULL ? j->message : "the job failed", back);
	}
	sbuf_release(&msg);
	sbuf_release(&loc);
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

	if (who->role != WEB_APPROVER) {
		web_html_message(out, who, 403, "Refused",
		    "posting a delete needs the approver role: nothing was "
		    "done",
		    "/");
		return;
	}
	if (!web_page_status_cluster_known(c, cluster)) {
		web_html_message(out, who, 404, "Delete a queue",
		    "no such cluster", "/");
		return;
	}
	queue = web_req_form(r, "queue");
	disc = web_req_form(r, "disconnect_consumers");
	if (queue == NULL || queue[0] == '\0' ||
	    strlen(queue) > WEB_QUEUE_MAX) {
		web_html_message(out, who, 422, "Delete a queue",
		    "the queue's name is missing or too long", "/");
		goto done;
	}
	why = utf8_find(queue, utf8_name_problem, &at, &cp);
	if (why != NULL) {
		sbuf_addf(&msg, "the queue's name has %s at byte %zu", why, at);
		web_html_message(out, who, 422, "Delete a queue",
		    sbuf_str(&msg), "/");
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
		web_html_message(out, who, 404, "Job", "no such job", "/");
		return;
	}
	job_outcome(out, who, &j, "/");
	if (out->status == 202)
		out->status = 200;
	web_job_release(&j);
}

/* ---- routing ------------------------------------------------------------- */

/* path's segments into seg (pointing into buf); 0 when the path is not
 * one of a page's forms (too long, an empty segment, too many). */
static size_t
split(const char *path, char *buf, size_t bufsz, char **seg)
{
	size_t n = 0, len = strlen(path);
	char *p;

	if (path[0] != '/' || len >= bufsz)
		return 0;
	(void)snprintf(buf, bufsz, "%s", path + 1);
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
	web_html_message(out, NULL, 405, "Method not allowed",
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
		web_html_redirect(out, "/login");
		return true;
	}
	if (rt >= R_PREVIEW && rt <= R_DRIFT &&
	    (!web_id_ok(seg[1]) ||
	        (rt >= R_PREVIEW && rt <= R_APPROVE && !web_id_ok(seg[3])))) {
		web_html_message(out, who, 404, "Not found",
		    "no such cluster or preview", "/");
		return true;
	}
	if (rt == R_PREVIEW || rt == R_APPROVE)
		sbuf_addf(&back, "/clusters/%s/previews/%s", seg[1], seg[3]);
	if ((rt == R_APPROVE || rt == R_DELETE) &&
	    !form_guard(r, who, out, rt == R_APPROVE ? sbuf_str(&back) : "/")) {
		sbuf_release(&back);
		return true;
	}
	switch (rt) {
	case R_STATUS:
		web_page_status(c, who, out);
		break;
	case R_LOGOUT:
		logout_post(c, r, who, out);
		break;
	case R_PREVIEW:
		web_page_preview(c, who, out, seg[1], seg[3], 200, NULL);
		break;
	case R_APPROVE:
		web_page_preview_approve(c, r, who, out, seg[1], seg[3],
		    sbuf_str(&back));
		break;
	case R_DELETE:
		delete_post(c, r, who, out, seg[1]);
		break;
	case R_DRIFT:
		web_page_status_drift(c, who, out, seg[1]);
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
