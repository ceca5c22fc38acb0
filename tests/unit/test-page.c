/* tests/unit/test-page.c: agent/web/page.c (and the status page of
 * page-status.c) through a real socket, as server.c routes to it: nobody
 * is sent to the sign-in form; the token exchanged for a session cookie;
 * a form POST needs this session's CSRF token and comes from this
 * server's own pages (Sec-Fetch-Site, Origin); approving and deleting
 * need the approver role; names are escaped; ids that could reach a path
 * are refused; sign-out ends the session. */
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
#include "../../agent/web/web.h"
#include "../../lib/afile.h"
#include "../../lib/sbuf.h"
#include "../../lib/xalloc.h"
#include "web-fixture.h"

#define VIEWER   WEB_FIXTURE_VIEWER
#define APPROVER WEB_FIXTURE_APPROVER
#define CSP                                                                    \
	"Content-Security-Policy: default-src 'none'; style-src "              \
	"'unsafe-inline'; form-action 'self'; frame-ancestors 'none'\r\n"

static char tmp[64];

static int
setup(void **state)
{
	(void)state;
	return web_fixture_setup(tmp, "page", true);
}

static int
teardown(void **state)
{
	(void)state;
	return web_fixture_teardown(tmp);
}

struct srv {
	struct agent_conf *conf;
	struct web_board *board;
	struct web *web;
	unsigned port;
};

static void
srv_start(struct srv *s)
{
	struct errlist d = {0};
	struct err err = {0};
	struct web_node_read nr = {.cluster = "c1",
	    .node = "<i>n1</i>",
	    .up = true,
	    .version = "2.44.0",
	    .seconds = 0.01};
	char *text = xasprintf("version: 1\n"
	                       "repository:\n  url: file:///nowhere\n"
	                       "state: %s/state\n"
	                       "credentials: %s/creds\n"
	                       "http:\n  listen: 127.0.0.1:0\n"
	                       "  viewer-tokens: [grafana.token]\n"
	                       "  approver-tokens: [alice.token]\n",
	    tmp, tmp);

	memset(s, 0, sizeof(*s));
	assert_int_equal(agent_conf_parse(&s->conf, "agent.yaml", tmp, text,
	                     strlen(text), &d),
	    0);
	errlist_release(&d);
	free(text);
	s->board = web_board_new();
	web_board_set_conf(s->board, s->conf);
	web_board_node_read(s->board, &nr);
	assert_int_equal(web_start(&s->web, s->conf, s->board, &err), 0);
	s->port = web_port(s->web);
}

static void
srv_stop(struct srv *s)
{
	web_stop(s->web);
	web_board_free(s->board);
	agent_conf_free(s->conf);
}

/* One request (Host: 127.0.0.1, Connection: close), hdrs "\r\n" each;
 * a body is a form. */
static struct web_got
req(const struct srv *s, const char *method, const char *path, const char *hdrs,
    const char *body)
{
	struct sbuf h = {0};
	struct web_got g;

	sbuf_adds(&h, hdrs != NULL ? hdrs : "");
	if (body != NULL)
		sbuf_adds(&h,
		    "Content-Type: application/x-www-form-urlencoded\r\n");
	g = web_fixture_http(s->port, method, path, sbuf_str(&h), body);
	sbuf_release(&h);
	return g;
}

static void
expect(const struct web_got *g, int status, const char *in_head,
    const char *in_body)
{
	if (g->status != status)
		fail_msg("status %d, expected %d:\n%s\n%s", g->status, status,
		    g->head, g->body);
	if (in_head != NULL && strstr(g->head, in_head) == NULL)
		fail_msg("'%s' not in the head:\n%s", in_head, g->head);
	if (in_body != NULL && strstr(g->body, in_body) == NULL)
		fail_msg("'%s' not in the body:\n%s", in_body, g->body);
}

static void
call(const struct srv *s, const char *method, const char *path,
    const char *hdrs, const char *body, int status, const char *in_head,
    const char *in_body)
{
	struct web_got g = req(s, method, path, hdrs, body);

	expect(&g, status, in_head, in_body);
	web_got_release(&g);
}

/* Sign in with token: the Cookie header line for the session, and its
 * CSRF token (the sign-out form's hidden field) in csrf. */
static char *
sign_in(const struct srv *s, const char *token, char csrf[65])
{
	char *body = xasprintf("token=%s", token), *cookie, *hdr;
	struct web_got g = req(s, "POST", "/login", NULL, body);
	const char *c, *v;

	expect(&g, 303, "Location: /\r\n", NULL);
	c = strstr(g.head, "Set-Cookie: ag_session=");
	assert_non_null(c);
	assert_non_null(strstr(c, "; HttpOnly; SameSite=Strict"));
	assert_true(strspn(c + 23, "0123456789abcdef") == 64);
	cookie = strndup(c + 12, 11 + 64);
	hdr = xasprintf("Cookie: %s\r\n", cookie);
	web_got_release(&g);
	g = req(s, "GET", "/", hdr, NULL);
	expect(&g, 200, CSP, "signed in as <b>");
	v = strstr(g.body, "name=\"csrf\" value=\"");
	assert_non_null(v);
	snprintf(csrf, 65, "%.64s", v + 19);
	web_got_release(&g);
	free(cookie);
	free(body);
	return hdr;
}

static void
test_page__nobody_and_sign_in(void **state)
{
	struct srv s;

	(void)state;
	srv_start(&s);
	call(&s, "GET", "/", NULL, NULL, 303, "Location: /login\r\n", NULL);
	call(&s, "GET", "/clusters/c1/previews/x", NULL, NULL, 303,
	    "Location: /login\r\n", NULL);
	call(&s, "GET", "/login", NULL, NULL, 200, CSP, "name=\"token\"");
	call(&s, "PUT", "/login", NULL, NULL, 405, "Allow: GET, POST", NULL);
	call(&s, "POST", "/login", NULL, "token=not-a-token-0123456789", 401,
	    NULL, "wrong token");
	call(&s, "POST", "/login", NULL, "", 401, NULL, "wrong token");
	/* from another site: refused before the token is looked at */
	call(&s, "POST", "/login", "Sec-Fetch-Site: cross-site\r\n",
	    "token=" APPROVER, 403, NULL, "another site");
	call(&s, "POST", "/login", "Sec-Fetch-Site: same-site\r\n",
	    "token=" APPROVER, 403, NULL, "another site");
	call(&s, "POST", "/login", "Origin: http://evil.example\r\n",
	    "token=" APPROVER, 403, NULL, "another site");
	call(&s, "POST", "/login", "Origin: null\r\n", "token=" APPROVER, 403,
	    NULL, "another site");
	/* Chromium under Referrer-Policy: no-referrer: Origin null, but
	 * Sec-Fetch-Site same-origin */
	call(&s, "POST", "/login",
	    "Origin: null\r\nSec-Fetch-Site: same-origin\r\n",
	    "token=" APPROVER, 303, "Set-Cookie: ag_session=", NULL);
	call(&s, "POST", "/login", "Origin: http://127.0.0.1\r\n",
	    "token=" APPROVER, 303, "Set-Cookie: ag_session=", NULL);
	/* a wrong cookie is nobody */
	call(&s, "GET", "/", "Cookie: ag_session=0123\r\n", NULL, 303,
	    "Location: /login\r\n", NULL);
	srv_stop(&s);
}

static void
test_page__approver_forms(void **state)
{
	struct srv s;
	char csrf[65], *ck, *h, *b;
	struct web_got g;

	(void)state;
	srv_start(&s);
	ck = sign_in(&s, APPROVER, csrf);
	g = req(&s, "GET", "/", ck, NULL);
	expect(&g, 200, CSP, "signed in as <b>alice</b> (approver)");
	/* a node's name is escaped wherever it stands */
	assert_non_null(strstr(g.body, "<td>&lt;i&gt;n1&lt;/i&gt;</td>"));
	assert_null(strstr(g.body, "<i>n1"));
	assert_null(strstr(g.body, "<script"));
	/* the delete form: the box unticked, the caveat beside it */
	assert_non_null(strstr(g.body, "action=\"/clusters/c1/delete-queue\""));
	assert_non_null(strstr(g.body, "name=\"disconnect_consumers\" "
	                               "value=\"1\"> disconnect"));
	assert_null(strstr(g.body, "checked"));
	assert_non_null(strstr(g.body, "may reconnect and re-create an "
	                               "auto-created queue"));
	web_got_release(&g);
	/* no CSRF token, a wrong one, from another site with the right one */
	call(&s, "POST", "/clusters/c1/delete-queue", ck, "queue=q", 403, NULL,
	    "CSRF token is missing");
	b = xasprintf("queue=q&csrf=%064d", 0);
	call(&s, "POST", "/clusters/c1/delete-queue", ck, b, 403, NULL,
	    "CSRF token is missing");
	free(b);
	h = xasprintf("%sSec-Fetch-Site: same-site\r\n", ck);
	b = xasprintf("queue=q&csrf=%s", csrf);
	call(&s, "POST", "/clusters/c1/delete-queue", h, b, 403, NULL,
	    "another site");
	free(h);
	free(b);
	/* the form's own checks */
	b = xasprintf("queue=&csrf=%s", csrf);
	call(&s, "POST", "/clusters/c1/delete-queue", ck, b, 422, NULL,
	    "missing or too long");
	free(b);
	b = xasprintf("queue=a+b&csrf=%s", csrf);
	call(&s, "POST", "/clusters/c1/delete-queue", ck, b, 422, NULL,
	    "whitespace at byte 1");
	free(b);
	b = xasprintf("queue=q&csrf=%s", csrf);
	call(&s, "POST", "/clusters/nosuch/delete-queue", ck, b, 404, NULL,
	    "no such cluster");
	/* ids that could reach a path never do */
	call(&s, "POST", "/clusters/..%2f..%2fetc/delete-queue", ck, b, 404,
	    NULL, NULL);
	free(b);
	call(&s, "GET", "/clusters/c1/previews/.hidden", ck, NULL, 404, NULL,
	    "no such cluster or preview");
	call(&s, "GET", "/clusters/c1/previews/nosuch", ck, NULL, 404, NULL,
	    "no such preview");
	b = xasprintf("confirmation=x&csrf=%s", csrf);
	call(&s, "POST", "/clusters/c1/previews/nosuch/approve", ck, b, 404,
	    NULL, NULL);
	free(b);
	call(&s, "GET", "/clusters/c1/previews/nosuch/approve", ck, NULL, 405,
	    "Allow: POST", NULL);
	call(&s, "GET", "/jobs/abc", ck, NULL, 404, NULL, "no such job");
	call(&s, "GET", "/jobs/99", ck, NULL, 404, NULL, "no such job");
	call(&s, "GET", "/clusters/c1/drift", ck, NULL, 200, CSP,
	    "drift.md is not there");
	call(&s, "GET", "/no/such/page", ck, NULL, 404, NULL, NULL);
	/* sign-out: needs the token too, then the cookie is nobody's */
	call(&s, "POST", "/logout", ck, "", 403, NULL, "CSRF token");
	b = xasprintf("csrf=%s", csrf);
	call(&s, "POST", "/logout", ck, b, 303, "Max-Age=0", NULL);
	free(b);
	call(&s, "GET", "/", ck, NULL, 303, "Location: /login\r\n", NULL);
	free(ck);
	srv_stop(&s);
}

static void
test_page__viewer(void **state)
{
	struct srv s;
	char csrf[65], *ck, *b;

	(void)state;
	srv_start(&s);
	ck = sign_in(&s, VIEWER, csrf);
	call(&s, "GET", "/", ck, NULL, 200, NULL,
	    "Posting a delete needs the approver role");
	b = xasprintf("queue=q&csrf=%s", csrf);
	call(&s, "POST", "/clusters/c1/delete-queue", ck, b, 403, NULL,
	    "needs the approver role");
	free(b);
	b = xasprintf("confirmation=x&csrf=%s", csrf);
	call(&s, "POST", "/clusters/c1/previews/p1/approve", ck, b, 404, NULL,
	    NULL);
	free(b);
	/* a bearer token on a page's form has no session, so no CSRF token:
	 * the browser's forms are for browsers */
	call(&s, "POST", "/clusters/c1/delete-queue",
	    "Authorization: Bearer " APPROVER "\r\n", "queue=q", 403, NULL,
	    "CSRF token is missing");
	free(ck);
	srv_stop(&s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_page__nobody_and_sign_in),
	    cmocka_unit_test(test_page__approver_forms),
	    cmocka_unit_test(test_page__viewer),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
