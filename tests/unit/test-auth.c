/* tests/unit/test-auth.c: agent/web/auth.c: sign-in sessions, their
 * cookies and CSRF tokens, roles from the token files. (Tokens refused at
 * load and who sent a request over a socket: test-server.c.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "../../agent/conf.h"
#include "../../agent/web/web-int.h"
#include "../../lib/afile.h"
#include "../../lib/xalloc.h"

#define VIEWER   "viewer-token-0123456789abcdef"
#define APPROVER "approver-token-0123456789abcdef"

static char tmp[64];

static void
put(const char *name, const char *text)
{
	char *p = xasprintf("%s/%s", tmp, name);
	struct err err = {0};

	assert_int_equal(afile_write(p, text, strlen(text), 0600, &err), 0);
	free(p);
}

static struct web_auth *
load(void)
{
	struct agent_conf *c = NULL;
	struct errlist d = {0};
	struct web_auth *a = NULL;
	struct err err = {0};
	char *text = xasprintf("version: 1\nrepository:\n  url: file:///x\n"
	                       "state: %s/state\ncredentials: %s\n"
	                       "http:\n  listen: 127.0.0.1:0\n"
	                       "  session-ttl: 1h\n"
	                       "  viewer-tokens: [grafana.token]\n"
	                       "  approver-tokens: [alice.token]\n",
	    tmp, tmp);

	assert_int_equal(
	    agent_conf_parse(&c, "a.yaml", tmp, text, strlen(text), &d), 0);
	assert_int_equal(web_auth_load(&a, c, &err), 0);
	agent_conf_free(c);
	errlist_release(&d);
	free(text);
	return a;
}

static int
setup(void **state)
{
	(void)state;
	snprintf(tmp, sizeof(tmp), "/tmp/test-auth-XXXXXX");
	if (mkdtemp(tmp) == NULL)
		return -1;
	put("grafana.token", VIEWER "\n");
	put("alice.token", APPROVER);
	return 0;
}

static int
teardown(void **state)
{
	char *cmd = xasprintf("rm -rf %s", tmp);
	int r;

	(void)state;
	r = system(cmd);
	free(cmd);
	return r == 0 ? 0 : -1;
}

static void
test_auth__login_gives_a_session_with_its_role_and_csrf(void **state)
{
	struct web_auth *a = load();
	struct web_who who, w2;
	char cookie[65], cookie2[65], *h;

	(void)state;
	assert_false(web_auth_login(a, "not-a-token-at-all-000", cookie, &who));
	assert_false(web_auth_login(a, APPROVER "x", cookie, &who));
	assert_false(web_auth_login(a, "", cookie, &who));
	assert_true(web_auth_login(a, APPROVER, cookie, &who));
	assert_int_equal(who.role, WEB_APPROVER);
	assert_string_equal(who.name, "alice");
	assert_true(who.session);
	assert_int_equal(strlen(cookie), 64);
	assert_int_equal(strlen(who.csrf), 64);
	assert_string_not_equal(cookie, who.csrf);
	assert_true(web_auth_login(a, VIEWER, cookie2, &w2));
	assert_int_equal(w2.role, WEB_VIEWER);
	assert_string_equal(w2.name, "grafana");
	assert_string_not_equal(cookie, cookie2);
	assert_string_not_equal(who.csrf, w2.csrf);
	/* CSRF: only the session's own token */
	assert_true(web_auth_csrf_ok(&who, who.csrf));
	assert_false(web_auth_csrf_ok(&who, w2.csrf));
	assert_false(web_auth_csrf_ok(&who, NULL));
	assert_false(web_auth_csrf_ok(&who, ""));
	who.session = false;
	assert_false(web_auth_csrf_ok(&who, who.csrf));
	/* the cookie: HttpOnly, SameSite=Strict, the TTL, Secure under TLS */
	h = web_auth_cookie_header(a, cookie, false);
	assert_true(strncmp(h, "ag_session=", 11) == 0);
	assert_non_null(strstr(h, cookie));
	assert_non_null(strstr(h, "HttpOnly"));
	assert_non_null(strstr(h, "SameSite=Strict"));
	assert_non_null(strstr(h, "Max-Age=3600"));
	assert_null(strstr(h, "Secure"));
	free(h);
	h = web_auth_cookie_header(a, cookie, true);
	assert_non_null(strstr(h, "; Secure"));
	free(h);
	h = web_auth_cookie_header(a, NULL, false);
	assert_non_null(strstr(h, "Max-Age=0"));
	free(h);
	assert_int_equal(web_auth_sessions(a), 2);
	web_auth_logout(a, cookie);
	web_auth_logout(a, "short");
	assert_int_equal(web_auth_sessions(a), 1);
	web_auth_free(a);
}

static void
test_auth__role_names(void **state)
{
	(void)state;
	assert_string_equal(web_role_name(WEB_NOBODY), "nobody");
	assert_string_equal(web_role_name(WEB_VIEWER), "viewer");
	assert_string_equal(web_role_name(WEB_APPROVER), "approver");
}

/* More sign-ins than WEB_SESSIONS_MAX: the oldest go, memory does not
 * grow. */
static void
test_auth__sessions_are_bounded(void **state)
{
	struct web_auth *a = load();
	struct web_who who;
	char cookie[65];
	int i;

	(void)state;
	for (i = 0; i < WEB_SESSIONS_MAX + 50; i++)
		assert_true(web_auth_login(a, VIEWER, cookie, &who));
	assert_int_equal(web_auth_sessions(a), WEB_SESSIONS_MAX);
	web_auth_free(a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(
	        test_auth__login_gives_a_session_with_its_role_and_csrf),
	    cmocka_unit_test(test_auth__role_names),
	    cmocka_unit_test(test_auth__sessions_are_bounded),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
