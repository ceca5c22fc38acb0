/* tests/unit/test-hold.c: agent/hold.c: a cluster held by its suspension
 * or its sync window (the clock injected through the test clock file),
 * the suspension first; an unreadable suspension holds too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../agent/hold.h"
#include "../../agent/suspend.h"
#include "../../lib/afile.h"
#include "../../lib/xalloc.h"

static void
set_clock(const char *dir, const char *when)
{
	struct err err = {0};
	char *path = xasprintf("%s/clock", dir);

	assert_int_equal(afile_write(path, when, strlen(when), 0644, &err), 0);
	setenv(AGENT_WINDOW_CLOCK_ENV, path, 1);
	free(path);
}

static void
test_hold__window_then_suspension(void **state)
{
	char tmpl[] = "/tmp/test-hold-XXXXXX";
	char *dir = mkdtemp(tmpl), *p;
	struct agent_windows ws = {0};
	struct agent_suspension s = {0};
	struct agent_hold h;
	struct err err = {0};
	size_t at = 0;

	(void)state;
	ws.v = xcalloc(1, sizeof(*ws.v));
	ws.n = 1;
	ws.v[0].kind = AGENT_WINDOW_ALLOW;
	ws.v[0].schedule = xstrdup("0 22 * * *");
	ws.v[0].duration = 3600;
	ws.v[0].zone = xstrdup("Europe/Berlin");
	assert_int_equal(
	    agent_cron_parse(&ws.v[0].cron, "0 22 * * *", &at, &err), 0);
	/* 20:59:59Z is 21:59:59 CET: closed for one more second */
	set_clock(dir, "2026-12-02T20:59:59Z\n");
	assert_int_equal(agent_hold_check(&h, &ws, dir, "shop-eu", &err), 0);
	assert_int_equal(h.kind, AGENT_HOLD_WINDOW);
	assert_string_equal(h.text,
	    "waiting for sync window until 2026-12-02T21:00:00Z (2026-12-02 "
	    "22:00 CET in Europe/Berlin): outside every allow window");
	agent_hold_release(&h);
	set_clock(dir, "2026-12-02T21:00:00Z\n");
	assert_int_equal(agent_hold_check(&h, &ws, dir, "shop-eu", &err), 0);
	assert_int_equal(h.kind, AGENT_HOLD_NONE);
	assert_null(h.text);
	agent_hold_release(&h);
	/* suspended inside the window: held, the suspension said */
	s.reason = xstrdup("incident 4711");
	s.by = xstrdup("alice");
	s.user = xstrdup("alice");
	s.at = xstrdup("2026-12-02T20:00:00Z");
	assert_int_equal(agent_suspend_write(dir, "shop-eu", &s, &err), 0);
	assert_int_equal(agent_hold_check(&h, &ws, dir, "shop-eu", &err), 0);
	assert_int_equal(h.kind, AGENT_HOLD_SUSPENDED);
	assert_non_null(strstr(h.text, "incident 4711"));
	assert_null(h.window);
	agent_hold_release(&h);
	/* and outside it: the suspension first, the window kept */
	set_clock(dir, "2026-12-02T12:00:00Z\n");
	assert_int_equal(agent_hold_check(&h, &ws, dir, "shop-eu", &err), 0);
	assert_int_equal(h.kind, AGENT_HOLD_SUSPENDED);
	assert_non_null(h.window);
	agent_hold_release(&h);
	/* a damaged suspension holds, naming the file */
	p = xasprintf("%s/shop-eu/suspended.json", dir);
	assert_int_equal(afile_write(p, "{", 1, 0644, &err), 0);
	set_clock(dir, "2026-12-02T21:00:00Z\n");
	assert_int_equal(agent_hold_check(&h, &ws, dir, "shop-eu", &err), 0);
	assert_int_equal(h.kind, AGENT_HOLD_SUSPENDED);
	assert_non_null(strstr(h.text, "counts as suspended"));
	assert_non_null(strstr(h.text, "shop-eu/suspended.json"));
	agent_hold_release(&h);
	/* a clock that cannot be read is an error */
	set_clock(dir, "noon\n");
	assert_int_equal(agent_hold_check(&h, &ws, dir, "shop-eu", &err), -1);
	err_release(&err);
	unsetenv(AGENT_WINDOW_CLOCK_ENV);
	unlink(p);
	free(p);
	p = xasprintf("%s/shop-eu", dir);
	rmdir(p);
	free(p);
	p = xasprintf("%s/clock", dir);
	unlink(p);
	free(p);
	rmdir(dir);
	agent_suspension_release(&s);
	agent_windows_release(&ws);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hold__window_then_suspension),
	};

	unsetenv("TZ");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
