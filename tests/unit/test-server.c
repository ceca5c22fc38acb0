/* tests/unit/test-server.c: agent/web/server.c and httpd.c through a real
 * socket: web_start with a configuration, requests sent with lib/http
 * (libcurl), the health endpoints, who may read /metrics and the API,
 * the bounds (body, headers), tokens refused at start. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../agent/conf.h"
#include "../../agent/log.h"
#include "../../agent/web/web.h"
#include "../../lib/afile.h"
#include "../../lib/http.h"
#include "../../lib/sbuf.h"
#include "../../lib/xalloc.h"
#include "web-fixture.h"

#define VIEWER   WEB_FIXTURE_VIEWER
#define APPROVER WEB_FIXTURE_APPROVER

static char tmp[64];

static void
put(const char *name, const char *text, mode_t mode)
{
	web_fixture_put(tmp, name, text, mode);
}

static int
setup(void **state)
{
	(void)state;
	return web_fixture_setup(tmp, "server", true);
}

static int
teardown(void **state)
{
	(void)state;
	return web_fixture_teardown(tmp);
}

static struct agent_conf *
conf_with(const char *extra)
{
	struct agent_conf *c = NULL;
	struct errlist d = {0};
	char *text = xasprintf("version: 1\n"
	                       "repository:\n  url: file:///nowhere\n"
	                       "state: %s/state\n"
	                       "credentials: %s/creds\n"
	                       "http:\n  listen: 127.0.0.1:0\n%s",
	    tmp, tmp, extra);

	if (agent_conf_parse(&c, "agent.yaml", tmp, text, strlen(text), &d) <
	    0) {
		char *line = d.n > 0 ? errlist_render_item(&d, 0) : NULL;

		fail_msg("configuration refused: %s", line ? line : "?");
	}
	errlist_release(&d);
	free(text);
	return c;
}

struct got {
	int status;
	char *body;
};

/* A request with a bearer token (or none) and header lines hdrs. */
static struct got
req(unsigned port, const char *method, const char *path, const char *token,
    const char *body, const char *const *hdrs, size_t nh)
{
	struct sbuf h = {0};
	struct web_got w;
	struct got g;
	size_t i;

	if (token != NULL)
		sbuf_addf(&h, "Authorization: Bearer %s\r\n", token);
	for (i = 0; i < nh; i++)
		sbuf_addf(&h, "%s\r\n", hdrs[i]);
	w = web_fixture_http(port, method, path, sbuf_str(&h), body);
	g.status = w.status;
	g.body = w.body;
	free(w.head);
	sbuf_release(&h);
	return g;
}

static void
check(unsigned port, const char *method, const char *path, const char *token,
    int status, const char *needle)
{
	struct got g = req(port, method, path, token, NULL, NULL, 0);

	if (g.status != status)
		fail_msg("%s %s: %d, expected %d (%s)", method, path, g.status,
		    status, g.body);
	if (needle != NULL && strstr(g.body, needle) == NULL)
		fail_msg("%s %s: '%s' not in: %s", method, path, needle,
		    g.body);
	free(g.body);
}

static void
test_server__health_metrics_and_who(void **state)
{
	struct agent_conf *c = conf_with("  viewer-tokens: [grafana.token]\n"
	                                 "  approver-tokens: [alice.token]\n");
	struct web_board *b = web_board_new();
	struct web *w = NULL;
	struct err err = {0};
	unsigned port;

	(void)state;
	web_board_set_conf(b, c);
	assert_int_equal(web_start(&w, c, b, &err), 0);
	assert_non_null(w);
	port = web_port(w);
	assert_true(port > 0);
	check(port, "GET", "/healthz", NULL, 200, "ok");
	/* not ready: no lock, no fetch, no cycle; each check says why */
	check(port, "GET", "/readyz", NULL, 503, "no fetch has succeeded yet");
	web_board_set_locked(b, true);
	web_board_fetched(b, true, "0123456789abcdef0123456789abcdef01234567",
	    "a commit");
	check(port, "GET", "/readyz", NULL, 503, "no cycle has succeeded yet");
	web_board_cycled(b, true);
	check(port, "GET", "/readyz", NULL, 200, "\"ready\": true");
	/* /metrics: a viewer token at least */
	check(port, "GET", "/metrics", NULL, 401, "viewer token");
	check(port, "GET", "/metrics", "wrong-token-0123456789", 401, NULL);
	check(port, "GET", "/metrics", VIEWER, 200,
	    "# TYPE artemis_gitops_http_requests_total counter");
	check(port, "GET", "/metrics", APPROVER, 200,
	    "artemis_gitops_http_requests_total{code=\"401\"} 2");
	check(port, "POST", "/metrics", VIEWER, 405, NULL);
	/* the API: 401 without a token, a wrong one, or a token that is
	 * nearly right */
	check(port, "GET", "/api/v1/clusters", NULL, 401, "valid token");
	check(port, "GET", "/api/v1/clusters", VIEWER "x", 401, NULL);
	check(port, "GET", "/api/v2/clusters", VIEWER, 404, "/api/v1/");
	web_stop(w);
	web_board_free(b);
	agent_conf_free(c);
}

static void
test_server__bounds(void **state)
{
	struct agent_conf *c = conf_with("  viewer-tokens: [grafana.token]\n");
	struct web_board *b = web_board_new();
	struct web *w = NULL;
	struct err err = {0};
	const char *many[150];
	char *names[150], *big;
	struct got g;
	size_t i;

	(void)state;
	assert_int_equal(web_start(&w, c, b, &err), 0);
	big = xmalloc(70000);
	memset(big, 'a', 69999);
	big[69999] = '\0';
	g = req(web_port(w), "POST", "/api/v1/clusters", VIEWER, big, NULL, 0);
	assert_int_equal(g.status, 413);
	assert_non_null(strstr(g.body, "larger than 65536 bytes"));
	free(g.body);
	for (i = 0; i < 150; i++) {
		names[i] = xasprintf("X-Flood-%zu: v", i);
		many[i] = names[i];
	}
	g = req(web_port(w), "GET", "/healthz", NULL, NULL, many, 150);
	assert_int_equal(g.status, 431);
	free(g.body);
	/* and it still answers */
	check(web_port(w), "GET", "/healthz", NULL, 200, "ok");
	for (i = 0; i < 150; i++)
		free(names[i]);
	free(big);
	web_stop(w);
	web_board_free(b);
	agent_conf_free(c);
}

/* A token file its group can read, one too short, one twice: the server
 * does not start, and says which file and why. */
static void
test_server__tokens_refused(void **state)
{
	struct agent_conf *c;
	struct web_board *b = web_board_new();
	struct web *w = NULL;
	struct err err = {0};

	(void)state;
	put("loose.token", "loose-token-0123456789abcdef\n", 0644);
	c = conf_with("  viewer-tokens: [loose.token]\n");
	assert_int_equal(web_start(&w, c, b, &err), -1);
	assert_null(w);
	assert_non_null(strstr(err.msg, "loose.token"));
	assert_non_null(strstr(err.msg, "mode 0644"));
	err_release(&err);
	agent_conf_free(c);

	put("short.token", "short\n", 0600);
	c = conf_with("  approver-tokens: [short.token]\n");
	assert_int_equal(web_start(&w, c, b, &err), -1);
	assert_non_null(strstr(err.msg, "at least 16"));
	assert_null(strstr(err.msg, "short\n"));
	err_release(&err);
	agent_conf_free(c);

	put("copy.token", VIEWER "\n", 0600);
	c = conf_with("  viewer-tokens: [grafana.token]\n"
	              "  approver-tokens: [copy.token]\n");
	assert_int_equal(web_start(&w, c, b, &err), -1);
	assert_non_null(strstr(err.msg, "the same token as 'grafana'"));
	err_release(&err);
	agent_conf_free(c);

	c = conf_with("  viewer-tokens: [missing.token]\n");
	assert_int_equal(web_start(&w, c, b, &err), -1);
	assert_non_null(strstr(err.msg, "missing.token"));
	err_release(&err);
	agent_conf_free(c);
	web_board_free(b);
}

/* Anonymous reads: the API without a token, never with a wrong one. */
static void
test_server__anonymous_read(void **state)
{
	struct agent_conf *c = conf_with("  anonymous-read: true\n");
	struct web_board *b = web_board_new();
	struct web *w = NULL;
	struct err err = {0};

	(void)state;
	assert_int_equal(web_start(&w, c, b, &err), 0);
	check(web_port(w), "GET", "/metrics", NULL, 200, "# TYPE");
	check(web_port(w), "GET", "/metrics", "wrong-token-0123456789", 401,
	    NULL);
	web_stop(w);
	web_board_free(b);
	agent_conf_free(c);
}

/* No http.listen: no server, and nothing fails. An address in use: a
 * clear error. */
static void
test_server__off_and_address_in_use(void **state)
{
	struct agent_conf *c;
	struct agent_conf *c2;
	struct web_board *b = web_board_new();
	struct web *w = NULL, *w2 = NULL;
	struct err err = {0};
	char *extra;

	(void)state;
	c = conf_with("");
	free(c->http_listen);
	c->http_listen = NULL;
	assert_int_equal(web_start(&w, c, b, &err), 0);
	assert_null(w);
	agent_conf_free(c);

	/* a bare port listens on the loopback address */
	c = conf_with("  anonymous-read: true\n");
	free(c->http_listen);
	c->http_listen = xstrdup("0");
	assert_int_equal(web_start(&w, c, b, &err), 0);
	check(web_port(w), "GET", "/healthz", NULL, 200, "ok");
	web_stop(w);
	w = NULL;
	agent_conf_free(c);

	c = conf_with("  anonymous-read: true\n");
	assert_int_equal(web_start(&w, c, b, &err), 0);
	extra = xasprintf("  anonymous-read: true\n");
	c2 = conf_with(extra);
	free(c2->http_listen);
	c2->http_listen = xasprintf("127.0.0.1:%u", web_port(w));
	assert_int_equal(web_start(&w2, c2, b, &err), -1);
	assert_non_null(strstr(err.msg, "cannot listen"));
	err_release(&err);
	free(extra);
	web_stop(w);
	web_board_free(b);
	agent_conf_free(c);
	agent_conf_free(c2);
}

/* TLS served directly: a certificate made here with openssl, checked by
 * libcurl (lib/http) against itself; the key is a credentials file. */
static void
test_server__tls(void **state)
{
	struct agent_conf *c;
	struct web_board *b = web_board_new();
	struct web *w = NULL;
	struct err err = {0};
	struct http_request r;
	struct http_response resp;
	char *cmd, *url, *ca;
	struct got g;
	int rc;

	(void)state;
	cmd =
	    xasprintf("openssl req -x509 -newkey rsa:2048 -nodes -days 2 "
	              "-subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 "
	              "-keyout %s/creds/http-key.pem -out %s/cert.pem "
	              ">/dev/null 2>&1 && chmod 600 %s/creds/http-key.pem",
	        tmp, tmp, tmp);
	rc = system(cmd);
	free(cmd);
	assert_int_equal(rc, 0);
	c = conf_with("  tls-cert-file: cert.pem\n"
	              "  tls-key-file: http-key.pem\n");
	assert_int_equal(web_start(&w, c, b, &err), 0);
	memset(&r, 0, sizeof(r));
	memset(&resp, 0, sizeof(resp));
	url = xasprintf("https://127.0.0.1:%u/healthz", web_port(w));
	ca = xasprintf("%s/cert.pem", tmp);
	r.method = "GET";
	r.url = url;
	r.ca_file = ca;
	r.connect_timeout_ms = 2000;
	r.timeout_ms = 5000;
	r.max_response = 4096;
	assert_int_equal(http_send(&r, &resp), 0);
	assert_int_equal(resp.status, 200);
	assert_string_equal(sbuf_str(&resp.body), "ok\n");
	http_response_release(&resp);
	/* plain HTTP to the TLS port gets no answer */
	g = req(web_port(w), "GET", "/healthz", NULL, NULL, NULL, 0);
	assert_int_not_equal(g.status, 200);
	free(g.body);
	free(url);
	free(ca);
	web_stop(w);
	agent_conf_free(c);
	/* a key its group can read: refused, naming the setting */
	cmd = xasprintf("chmod 640 %s/creds/http-key.pem", tmp);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	c = conf_with("  tls-cert-file: cert.pem\n"
	              "  tls-key-file: http-key.pem\n");
	assert_int_equal(web_start(&w, c, b, &err), -1);
	assert_non_null(strstr(err.msg, "http.tls-key-file"));
	err_release(&err);
	agent_conf_free(c);
	web_board_free(b);
}

/* Behind a reverse proxy: the logged client is the header's last entry,
 * and a header that is not an address is ignored. */
static void
test_server__client_address_header(void **state)
{
	struct agent_conf *c =
	    conf_with("  client-address-header: X-Forwarded-For\n");
	struct web_board *b = web_board_new();
	struct web *w = NULL;
	struct err err = {0};
	const char *h1[] = {"X-Forwarded-For: 198.51.100.7, 10.1.2.3"};
	const char *h2[] = {"X-Forwarded-For: <script>"};
	FILE *f = tmpfile();
	char buf[4096];
	size_t n;
	struct got g;

	(void)state;
	assert_non_null(f);
	agent_log_set_output(f, false);
	agent_log_set_level(AGENT_LOG_DEBUG);
	assert_int_equal(web_start(&w, c, b, &err), 0);
	g = req(web_port(w), "GET", "/nowhere", NULL, NULL, h1, 1);
	free(g.body);
	g = req(web_port(w), "GET", "/nowhere", NULL, NULL, h2, 1);
	free(g.body);
	web_stop(w);
	agent_log_set_output(stderr, false);
	agent_log_set_level(AGENT_LOG_ERR);
	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	assert_non_null(strstr(buf, "10.1.2.3 GET /nowhere"));
	assert_null(strstr(buf, "198.51.100.7 GET"));
	assert_null(strstr(buf, "<script>"));
	assert_non_null(strstr(buf, "127.0.0.1 GET /nowhere"));
	web_board_free(b);
	agent_conf_free(c);
}

int
main(void)
{
	agent_log_set_level(AGENT_LOG_ERR);
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_server__health_metrics_and_who),
	    cmocka_unit_test(test_server__bounds),
	    cmocka_unit_test(test_server__tokens_refused),
	    cmocka_unit_test(test_server__anonymous_read),
	    cmocka_unit_test(test_server__off_and_address_in_use),
	    cmocka_unit_test(test_server__tls),
	    cmocka_unit_test(test_server__client_address_header),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
