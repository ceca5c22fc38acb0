/* agent/web/server.c: web_start (web.h) and the one request handler: who
 * sent it (auth.c), the health endpoints and /metrics here, then the API
 * (api.c) and the page (page.c); every request counted and logged, never
 * its token or its query. */
#define LOG_MODULE "http"

#include "web-int.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../lib/afile.h"
#include "../../lib/clock.h"
#include "../../lib/jsonw.h"
#include "../../lib/xalloc.h"
#include "../creds.h"
#include "../log.h"

#define WEB_CERT_MAX ((size_t)1 << 20)

struct web {
	struct web_httpd *httpd;
	struct web_ctx ctx;
};

static void
age(struct jsonw *w, const char *what, int64_t at, int64_t now, bool failed,
    int64_t window)
{
	char buf[160];

	if (at == 0)
		snprintf(buf, sizeof(buf), "no %s has succeeded yet", what);
	else
		snprintf(buf, sizeof(buf),
		    "last good %" PRId64 "s ago%s (window %" PRId64 "s)",
		    now - at, failed ? ", the last one failed" : "", window);
	jsonw_str(w, buf);
}

/* /readyz: the configuration loaded, the state lock held, and the last
 * good fetch and cycle within http.ready-intervals poll intervals. */
static void
readyz(struct web_ctx *c, struct web_resp *out)
{
	struct web_view v;
	struct jsonw w;
	int64_t now = (int64_t)time(NULL), window;
	bool conf_ok, lock_ok, fetch_ok, cycle_ok;

	web_board_view(c->board, &v);
	window = (int64_t)c->ready_intervals * v.poll_interval;
	conf_ok = v.conf_loaded;
	lock_ok = v.locked;
	fetch_ok = v.fetch_ok_at > 0 && now - v.fetch_ok_at <= window;
	cycle_ok = v.cycle_ok_at > 0 && now - v.cycle_ok_at <= window;
	out->status = conf_ok && lock_ok && fetch_ok && cycle_ok ? 200 : 503;
	out->type = "application/json";
	jsonw_init(&w, &out->body, 2);
	jsonw_obj_begin(&w);
	jsonw_key(&w, "checks");
	jsonw_obj_begin(&w);
	jsonw_key(&w, "configuration");
	jsonw_str(&w, conf_ok ? "loaded" : "not loaded");
	jsonw_key(&w, "cycle");
	age(&w, "cycle", v.cycle_ok_at, now, v.cycle_failed, window);
	jsonw_key(&w, "fetch");
	age(&w, "fetch", v.fetch_ok_at, now, v.fetch_failed, window);
	jsonw_key(&w, "state-lock");
	jsonw_str(&w, lock_ok ? "held" : "not held");
	jsonw_obj_end(&w);
	jsonw_key(&w, "ready");
	jsonw_bool(&w, out->status == 200);
	jsonw_obj_end(&w);
	sbuf_addc(&out->body, '\n');
	web_view_release(&v);
}

static void
metrics(struct web *s, struct web_resp *out)
{
	struct metrics *m = web_board_metrics(s->ctx.board);
	struct web_view v;

	web_board_view(s->ctx.board, &v);
	web_metrics_previews(m, &v);
	metrics_set(m, "artemis_gitops_http_connections", NULL,
	    (double)web_httpd_connections(s->httpd));
	web_view_release(&v);
	out->status = 200;
	out->type = "text/plain; version=0.0.4; charset=utf-8";
	metrics_render(m, &out->body);
}

static bool
is(const struct web_req *r, const char *method, const char *path)
{
	return strcmp(r->method, method) == 0 && strcmp(r->path, path) == 0;
}

static void
route(struct web *s, const struct web_req *r, const struct web_who *who,
    struct web_resp *out)
{
	struct web_ctx *c = &s->ctx;

	if (is(r, "GET", "/healthz") || is(r, "HEAD", "/healthz")) {
		out->status = 200;
		sbuf_adds(&out->body, "ok\n");
		return;
	}
	if (is(r, "GET", "/readyz") || is(r, "HEAD", "/readyz")) {
		readyz(c, out);
		return;
	}
	if (strcmp(r->path, "/metrics") == 0) {
		if (strcmp(r->method, "GET") != 0) {
			web_json_error(out, 405, "/metrics takes GET");
			strv_add(&out->headers, "Allow: GET");
		} else if (who->role == WEB_NOBODY) {
			web_json_error(out, 401,
			    "a viewer token is required (Authorization: Bearer "
			    "TOKEN)");
			strv_add(&out->headers, "WWW-Authenticate: Bearer");
		} else {
			metrics(s, out);
		}
		return;
	}
	if (strncmp(r->path, "/api/", 5) == 0 || strcmp(r->path, "/api") == 0) {
		if (strncmp(r->path, "/api/v1/", 8) != 0) {
			web_json_error(out, 404,
			    "no such API: the API's routes are under /api/v1/ "
			    "(docs/http-api.md)");
			return;
		}
		if (who->role == WEB_NOBODY) {
			web_json_error(out, 401,
			    "a valid token is required (Authorization: Bearer "
			    "TOKEN)");
			strv_add(&out->headers, "WWW-Authenticate: Bearer");
			return;
		}
		if (web_api(c, r, who, out))
			return;
		web_json_error(out, 404, "no such route: %s %s", r->method,
		    r->path);
		return;
	}
	if (web_page(c, r, who, out))
		return;
	out->status = 404;
	out->type = "text/plain; charset=utf-8";
	sbuf_reset(&out->body);
	sbuf_adds(&out->body, "404 not found\n");
}

static void
handle(void *ctx, const struct web_req *r, struct web_resp *out)
{
	struct web *s = ctx;
	struct web_who who;
	int64_t t0 = clock_monotonic_ms();
	char code[8];
	const char *v[1];

	web_auth_who(s->ctx.auth, r, &who);
	route(s, r, &who, out);
	strv_add(&out->headers, "X-Frame-Options: DENY");
	strv_add(&out->headers, "Referrer-Policy: no-referrer");
	snprintf(code, sizeof(code), "%d", out->status);
	v[0] = code;
	metrics_add(web_board_metrics(s->ctx.board),
	    "artemis_gitops_http_requests_total", v, 1);
	/* GETs that worked are debug (Prometheus scrapes every few
	 * seconds); everything else is worth a line */
	if (strcmp(r->method, "POST") == 0)
		log_notice("%s %s %s: %d (%s, %s) %" PRId64 "ms", r->client,
		    r->method, r->path, out->status, who.name,
		    web_role_name(who.role), clock_monotonic_ms() - t0);
	else if (out->status >= 400)
		log_info("%s %s %s: %d (%s) %" PRId64 "ms", r->client,
		    r->method, r->path, out->status, who.name,
		    clock_monotonic_ms() - t0);
	else
		log_debug("%s %s %s: %d (%s) %" PRId64 "ms", r->client,
		    r->method, r->path, out->status, who.name,
		    clock_monotonic_ms() - t0);
}

int
web_start(struct web **out, const struct agent_conf *conf, struct web_board *b,
    struct err *err)
{
	struct web *s;
	struct web_httpd_opts o;
	char *cert = NULL, *key = NULL, *keypath = NULL;
	size_t len = 0;
	int rc = -1;

	*out = NULL;
	if (conf->http_listen == NULL)
		return 0;
	s = xcalloc(1, sizeof(*s));
	s->ctx.board = b;
	s->ctx.anonymous_read = conf->http_anonymous_read;
	s->ctx.ready_intervals = (unsigned)conf->http_ready_intervals;
	if (web_auth_load(&s->ctx.auth, conf, err) < 0)
		goto done;
	memset(&o, 0, sizeof(o));
	o.listen = conf->http_listen;
	o.client_header = conf->http_client_header;
	o.timeout_s = 60;
	o.per_ip_max = WEB_CONN_MAX;
	if (conf->http_tls_cert != NULL) {
		if (afile_read(&cert, &len, conf->http_tls_cert, WEB_CERT_MAX,
		        err) < 0)
			goto done;
		keypath = xasprintf("%s/%s", conf->credentials,
		    conf->http_tls_key_file);
		if (agent_creds_read_key(&key, keypath, "http.tls-key-file",
		        err) < 0)
			goto done;
		o.cert_pem = cert;
		o.key_pem = key;
	}
	if (web_httpd_start(&s->httpd, &o, handle, s, err) < 0)
		goto done;
	*out = s;
	s = NULL;
	rc = 0;
done:
	if (s != NULL) {
		web_auth_free(s->ctx.auth);
		free(s);
	}
	free(cert);
	agent_creds_free(key);
	free(keypath);
	return rc;
}

void
web_stop(struct web *w)
{
	if (w == NULL)
		return;
	web_httpd_stop(w->httpd);
	web_auth_free(w->ctx.auth);
	free(w);
}

unsigned
web_port(const struct web *w)
{
	return web_httpd_port(w->httpd);
}
