/* agent/web/web-int.h: shared by the files of agent/web/ only (and the unit
 * tests), grouped by the file that implements them, lowest first.
 *
 *   httpd.c    libmicrohttpd, the one file that includes it: listening,
 *              TLS, limits, a request in and a response out
 *   md.c       md4c, the one file that includes it: plan.md as HTML
 *   graph-svg.c Graphviz, the one file that includes it: a blast-radius
 *              graph as inline SVG
 *   html.c     escaping, the page's frame (head, style, header, footer)
 *   web-metrics.c the metric families (names, help, labels, buckets)
 *   board.c    what the daemon and the server share (web.h)
 *   auth.c     tokens, sessions, CSRF
 *   web-model.c the outbox and the state folder as the API and page show
 *              them: clusters, previews and their state, drift, audit
 *   approve.c  an approval from the web, written as approval.json
 *   api.c      the JSON API (/api/v1/...)
 *   page-status.c, page-preview.c   the status page, a preview
 *   page-graph.c plan.md of a preview with its Mermaid blocks drawn as SVG
 *   page.c     the HTML pages: routing, forms, sign-in, delete-queue
 *   server.c   web_start: routing, who may do what, the health endpoints
 */
#ifndef AGENT_WEB_WEB_INT_H
#define AGENT_WEB_WEB_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../lib/err.h"
#include "../../lib/sbuf.h"
#include "../../lib/strv.h"
#include "web.h"

/* ==== httpd.c: libmicrohttpd ==== */

#define WEB_BODY_MAX    ((size_t)64 * 1024) /* bytes of a request body */
#define WEB_HEADERS_MAX 100                 /* headers of a request */
#define WEB_CONN_MAX    256                 /* connections at once */

struct web_req {
	const char *method; /* "GET", "POST", ... */
	const char *path;   /* decoded by libmicrohttpd, without the query */
	const char *body;   /* NUL-terminated; "" when none */
	size_t body_len;
	char client[64]; /* the peer's address (or the proxy header's) */
	bool tls;        /* served over TLS (directly, or says the proxy) */
	void *conn;      /* httpd.c's */
};

/* A request header (case-insensitive name), a cookie, a query argument
 * (decoded); NULL when absent. Borrowed for the request. */
const char *web_req_header(const struct web_req *r, const char *name);
const char *web_req_cookie(const struct web_req *r, const char *name);
const char *web_req_query(const struct web_req *r, const char *name);
/* One field of an application/x-www-form-urlencoded body, decoded; owned,
 * NULL when absent. */
char *web_req_form(const struct web_req *r, const char *name);

struct web_resp {
	int status;
	const char *type; /* Content-Type; NULL: text/plain; charset=utf-8 */
	struct sbuf body;
	struct strv headers; /* "Name: value" each */
};

typedef void (
    *web_handler_fn)(void *ctx, const struct web_req *r, struct web_resp *out);

struct web_httpd_opts {
	const char *listen;   /* "host:port", "[v6]:port", ":port" */
	const char *cert_pem; /* TLS when both are set */
	const char *key_pem;
	const char *client_header; /* a reverse proxy's client address header
	                              (e.g. X-Forwarded-For), or NULL */
	unsigned timeout_s;        /* an idle connection is closed after */
	unsigned per_ip_max;       /* connections from one address */
};

struct web_httpd; /* opaque */

int web_httpd_start(struct web_httpd **out, const struct web_httpd_opts *o,
    web_handler_fn fn, void *ctx, struct err *err);
void web_httpd_stop(struct web_httpd *h);
unsigned web_httpd_port(const struct web_httpd *h);
/* Connections open now (for artemis_gitops_http_connections). */
unsigned web_httpd_connections(const struct web_httpd *h);

/* ==== md.c: md4c ==== */

/* plan.md (or any Markdown the agent wrote) as HTML into out: CommonMark
 * with GitHub tables, raw HTML disabled (shown as text), every character
 * of the text escaped. -1 when md4c fails (out then holds nothing new). */
int web_md_html(const char *md, size_t len, struct sbuf *out);

/* ==== graph-svg.c: Graphviz ==== */

struct plan_graph;
/* g (reconcile/plan/plan.h) drawn by Graphviz's dot as one <svg> element
 * appended to out: no XML declaration, no DOCTYPE, no script, no link;
 * every name escaped; its element ids prefixed with id (unique in the
 * page). Calls into Graphviz are serialized (it is not thread-safe). -1
 * with err when Graphviz fails (out then holds nothing new). */
int web_graph_svg(struct sbuf *out, const struct plan_graph *g, const char *id,
    struct err *err);

/* ==== html.c ==== */

/* s escaped for HTML text and attribute values (& < > " '). */
void web_html_esc(struct sbuf *out, const char *s);
struct web_who;
/* The page's head (title escaped, the style sheet) and header: who is
 * signed in (name and role) and, for a session, a sign-out form carrying
 * its CSRF token; nothing of who when NULL or WEB_NOBODY. Then the title
 * as the page's heading. */
void web_html_begin(struct sbuf *out, const char *title,
    const struct web_who *who);
void web_html_end(struct sbuf *out);
/* Start out as an HTML page of status: Content-Type and the pages'
 * Content-Security-Policy (no script, no external resource, forms to
 * this server only), an empty body. */
void web_html_page(struct web_resp *out, int status);
/* A 303 to loc (a path built from checked ids only). */
void web_html_redirect(struct web_resp *out, const char *loc);
/* A whole page of one message (an error from 400 on) and a link back
 * (NULL: none). */
void web_html_message(struct web_resp *out, const struct web_who *who,
    int status, const char *title, const char *msg, const char *back);
/* Unix seconds as RFC 3339 UTC and how long ago; "never" for 0. */
void web_html_time(struct sbuf *b, int64_t t);
/* The hidden csrf field of a form, who's session's token. */
void web_html_csrf(struct sbuf *b, const struct web_who *who);
/* A preview's state (web_preview_state_name) as a badge; a link to a
 * preview's page. */
void web_html_state(struct sbuf *b, const char *state);
void web_html_preview_link(struct sbuf *b, const char *cluster, const char *id);
struct web_view;
/* A Markdown file of a preview (or of the drift report: id "drift") as
 * HTML; its absence or the error that kept it from being read, said. */
void web_html_md_file(struct sbuf *b, const struct web_view *v,
    const char *cluster, const char *id, const char *name);

/* ==== web-metrics.c (not metrics.c: lib/ has one) ==== */

/* Declare every family of docs/http-api.md "Metrics" in m. */
void web_metrics_declare(struct metrics *m);
struct web_view;
/* Set artemis_gitops_previews{cluster,state} from the outbox (at scrape
 * time). */
void web_metrics_previews(struct metrics *m, const struct web_view *v);

/* ==== board.c ==== */

/* A copy of what the server reads by (web_board_set_conf); release with
 * web_view_release. */
struct web_node_view {
	char *node, *refusal, *member, *version;
	bool up, read;   /* read: at least one read since the start */
	int64_t read_at; /* Unix seconds of the last read */
	double seconds;
};
struct web_cluster_view {
	char *name;
	struct web_node_view *nodes;
	size_t nnodes;
	/* several agents (docs/ha.md): coordinated is true once ownership
	 * was told (web_board_owner); owner NULL: no agent owns it now */
	bool coordinated, here;
	char *owner, *shard;
	int64_t epoch;
};
struct web_view {
	char *outbox, *state, *conf_path;
	long poll_interval, drift_interval;
	bool conf_loaded, locked;
	int64_t fetch_ok_at, cycle_ok_at; /* Unix seconds, 0: never */
	bool fetch_failed, cycle_failed;  /* the last one failed */
	char *head, *head_summary;        /* the branch head, or NULL */
	struct web_cluster_view *clusters;
	size_t nclusters;
};
void web_board_view(struct web_board *b, struct web_view *out);
void web_view_release(struct web_view *v);
/* Post a job (owned by the board from here) and wait at most wait_ms for
 * the daemon to finish it: true when done, with a copy of its outcome in
 * *out (release with web_job_release); false when it still waits (out
 * then holds its id only: GET /api/v1/jobs/ID). */
bool web_board_job_post(struct web_board *b, struct web_job *j, int wait_ms,
    struct web_job *out);
/* A copy of job id's state; false when unknown. */
bool web_board_job_get(struct web_board *b, uint64_t id, struct web_job *out);
void web_job_release(struct web_job *j);

/* ==== auth.c ==== */

enum web_role {
	WEB_NOBODY = 0, /* no valid token or session */
	WEB_VIEWER,     /* read */
	WEB_APPROVER,   /* read and approve */
};
const char *web_role_name(enum web_role r);

#define WEB_TOKEN_MIN      16 /* characters of a token */
#define WEB_SESSION_COOKIE "ag_session"
#define WEB_SESSIONS_MAX   1024

struct web_auth; /* opaque, thread-safe */

/* The tokens of conf (http.viewer-tokens, http.approver-tokens: files
 * of the credentials folder, each a secret, its first line the token; the
 * name is the file name without a trailing ".token"). -1 naming the file
 * and why (loose permissions, too short, the same token twice). */
int web_auth_load(struct web_auth **out, const struct agent_conf *conf,
    struct err *err);
void web_auth_free(struct web_auth *a);

struct web_who {
	enum web_role role;
	char name[128]; /* the token's name; "anonymous" */
	bool session;   /* by the session cookie (a browser) */
	char csrf[65];  /* the session's CSRF token (hex), "" without one */
};
/* Who sent r: a bearer token (Authorization: Bearer T), else a session
 * cookie, else anonymous (WEB_VIEWER when http.anonymous-read, else
 * WEB_NOBODY). Tokens are compared in constant time. */
void web_auth_who(struct web_auth *a, const struct web_req *r,
    struct web_who *out);
/* Sign in with token (the form's): a new session; its cookie's value in
 * cookie (hex, 64 characters). false for a wrong token. */
bool web_auth_login(struct web_auth *a, const char *token, char cookie[65],
    struct web_who *who);
void web_auth_logout(struct web_auth *a, const char *cookie);
/* Sessions alive now (at most WEB_SESSIONS_MAX). */
size_t web_auth_sessions(struct web_auth *a);
/* The Set-Cookie header's value for cookie (HttpOnly, SameSite=Strict,
 * Path=/, Max-Age, Secure when tls; NULL or "": one that clears the
 * cookie, for signing out). Owned. */
char *web_auth_cookie_header(const struct web_auth *a, const char *cookie,
    bool tls);
/* Does the form's csrf field match who's session? (Constant time.) */
bool web_auth_csrf_ok(const struct web_who *who, const char *csrf);

/* ==== web-model.c (not model.c: declarations/ has one) ==== */

enum web_preview_state {
	WEB_PENDING = 0, /* waiting for an approval */
	WEB_APPROVED,    /* approved, not applied yet */
	WEB_APPLIED,     /* result.json written (see result) */
	WEB_REFUSED,     /* the plan is refused, or the approval was */
	WEB_SUPERSEDED,  /* a newer preview exists */
	WEB_NOTHING,     /* the plan has no changes */
};
#define WEB_PREVIEW_STATES 6
const char *web_preview_state_name(enum web_preview_state s);

struct web_preview {
	char *cluster, *id; /* OUTBOX/<cluster>/<id> */
	char *dir;
	enum web_preview_state state;
	char *commit;       /* the commit (commit.txt, request.txt), or NULL */
	char *created;      /* plan.json's created time, or NULL */
	char *outcome;      /* the plan's outcome */
	char *summary;      /* one line: "1 delete, 2 creates" */
	char *confirmation; /* the text to type, NULL when not approvable */
	char *refused_why;  /* approval-refused.txt, or NULL */
	char *result;       /* result.json's result, or NULL */
	char *approved_by;  /* approval.json's, or NULL */
	/* pending or approved: why it cannot be applied now and until when
	 * (the preview's waiting.txt, else the cluster's hold.txt: a
	 * suspension, a sync window; docs/policy.md), or NULL */
	char *waiting;
	/* pending, the cluster held by its sync window only (hold.txt, and
	 * no suspension in the state folder): the approve form offers the
	 * window override */
	bool window_closed;
};
void web_preview_release(struct web_preview *p);

/* Is id a preview id (the outbox's own form, or the operator's
 * delete-queue previews'): letters, digits, '-', '_' and '.', not
 * starting with '.', at most 128 bytes? A cluster name as the outbox
 * writes it likewise. Nothing else reaches a path. */
bool web_id_ok(const char *id);

/* Every preview of cluster (NULL: of every cluster), newest first, at
 * most max. */
int web_model_previews(const struct web_view *v, const char *cluster,
    size_t max, struct web_preview **out, size_t *nout, struct err *err);
void web_model_previews_free(struct web_preview *v, size_t n);
/* OUTBOX/<cluster>/hold.txt (the cluster is suspended or outside its
 * sync window: why, until when), or NULL. Owned. */
char *web_model_hold(const struct web_view *v, const char *cluster);
/* One preview; 1 when it does not exist, -1 on error. */
int web_model_preview(const struct web_view *v, const char *cluster,
    const char *id, struct web_preview *out, struct err *err);
/* A file of a preview (plan.json, plan.md, result.json, result.md,
 * approval-refused.txt) or of the drift report (id "drift": drift.json,
 * drift.md); 1 when absent. */
int web_model_file(const struct web_view *v, const char *cluster,
    const char *id, const char *name, char **out, size_t *len, struct err *err);
/* A cluster's applied revision and its time (inventory.json), owned, or
 * NULL; and its drift (drift.json's counts as JSON, owned, or NULL). */
char *web_model_applied(const struct web_view *v, const char *cluster,
    char **applied_at);
/* Audit rows, newest first: skip `offset` rows, at most `limit`; *total
 * the number of rows. Each is the row's JSON text. */
int web_model_audit(const struct web_view *v, size_t offset, size_t limit,
    struct strv *rows, size_t *total, struct err *err);

/* ==== approve.c ==== */

/* Approve preview cluster/id as who, with the typed confirm: the checks of
 * `artemis-gitops approve` (the plan as written, its digest, the
 * confirmation, plan.md, not applied, not superseded), then approval.json
 * naming who (approved_by: the token's name, via "http") and, when
 * override_window, "override_window": true as `approve --override-window`
 * writes it (the daemon then applies it outside the cluster's sync window;
 * the audit rows name who as the one who overrode it). An HTTP status
 * (200, 404, 409 already approved or applied or superseded, 422 wrong
 * confirmation or not approvable) and a message. */
int web_approve(const struct web_view *v, const char *cluster, const char *id,
    const char *confirm, bool override_window, const struct web_who *who,
    struct sbuf *msg);

/* ==== api.c, page.c: the routes ==== */

struct web_ctx {
	struct web_board *board;
	struct web_auth *auth;
	bool anonymous_read;
	unsigned ready_intervals; /* http.ready-intervals */
};

/* Handle r when its path is under /api/v1/ (true), as who. */
bool web_api(struct web_ctx *c, const struct web_req *r,
    const struct web_who *who, struct web_resp *out);
/* Handle r when it is one of the page's paths (true). */
bool web_page(struct web_ctx *c, const struct web_req *r,
    const struct web_who *who, struct web_resp *out);
/* ==== page-status.c, page-preview.c: the pages page.c routes to ==== */

#define WEB_QUEUE_MAX 1024 /* bytes of a queue name in the delete form */

/* GET /: every cluster (nodes, head, applied revision, drift, previews,
 * last applies, the delete-queue form). */
void web_page_status(struct web_ctx *c, const struct web_who *who,
    struct web_resp *out);
/* GET /clusters/C/drift: drift.md as HTML. */
void web_page_status_drift(struct web_ctx *c, const struct web_who *who,
    struct web_resp *out, const char *cluster);
/* Is cluster one of the configuration's? */
bool web_page_status_cluster_known(struct web_ctx *c, const char *cluster);
/* GET /clusters/C/previews/ID, with status and msg (NULL: none) above
 * it: the state, plan.md as HTML, the approve form. */
void web_page_preview(struct web_ctx *c, const struct web_who *who,
    struct web_resp *out, const char *cluster, const char *id, int status,
    const char *msg);
/* The approve form's POST, its CSRF token and Origin already checked
 * (page.c): the approver role, web_approve, then a 303 to back (the
 * preview) or the preview again with the refusal and its status. */
void web_page_preview_approve(struct web_ctx *c, const struct web_req *r,
    const struct web_who *who, struct web_resp *out, const char *cluster,
    const char *id, const char *back);

/* ==== page-graph.c ==== */

/* plan.md of preview cluster/id as HTML (as web_html_md_file), each of
 * its ```mermaid blocks replaced by the same graph drawn as SVG
 * (web_graph_svg) from plan.json: the block whose text is the Mermaid of
 * one of plan.json's delete-queue graphs. A block that matches none, or
 * whose drawing fails, stays a code block. */
void web_page_graph_plan_md(struct sbuf *b, const struct web_view *v,
    const char *cluster, const char *id);

/* A JSON error body {"error": {"status": N, "message": "..."}}. */
void web_json_error(struct web_resp *out, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
