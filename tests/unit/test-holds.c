/* tests/unit/test-holds.c: agent/daemon/holds.c: OUTBOX/<cluster>/hold.txt
 * written while the cluster is held (suspended; outside its window, the
 * clock injected), kept as it is while nothing changes, removed once
 * nothing holds it; daemon_held's verdict. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../agent/daemon/daemon-int.h"
#include "../../agent/suspend.h"
#include "../../lib/afile.h"
#include "../../lib/xalloc.h"

static char *
slurp(const char *path)
{
	struct err err = {0};
	char *text = NULL;
	size_t len = 0;

	if (access(path, F_OK) != 0)
		return NULL;
	assert_int_equal(afile_read(&text, &len, path, 4096, &err), 0);
	return text;
}

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
test_holds__hold_txt_follows_the_cluster(void **state)
{
	char tmpl[] = "/tmp/test-holds-XXXXXX";
	char *dir = mkdtemp(tmpl), *cdir, *hold, *text;
	struct agent_conf conf;
	struct daemon a;
	struct agent_suspension s = {0};
	struct err err = {0};
	size_t at = 0;

	(void)state;
	memset(&conf, 0, sizeof(conf));
	memset(&a, 0, sizeof(a));
	a.conf = &conf;
	conf.state = dir;
	conf.outbox = dir;
	conf.windows.v = xcalloc(1, sizeof(*conf.windows.v));
	conf.windows.n = 1;
	conf.windows.v[0].kind = AGENT_WINDOW_DENY;
	conf.windows.v[0].schedule = xstrdup("0 12 * * *");
	conf.windows.v[0].duration = 3600;
	conf.windows.v[0].zone = xstrdup("UTC");
	assert_int_equal(
	    agent_cron_parse(&conf.windows.v[0].cron, "0 12 * * *", &at, &err),
	    0);
	cdir = xasprintf("%s/shop-eu", dir);
	hold = xasprintf("%s/hold.txt", cdir);
	assert_int_equal(afile_mkdirs(cdir, 0750, &err), 0);
	/* open: no hold.txt */
	set_clock(dir, "2026-12-02T11:59:59Z\n");
	daemon_holds_refresh(&a);
	assert_null(slurp(hold));
	assert_false(daemon_held(&a, "shop-eu", "the capture pass"));
	/* in the deny window: why and until when */
	set_clock(dir, "2026-12-02T12:00:00Z\n");
	daemon_holds_refresh(&a);
	text = slurp(hold);
	assert_string_equal(text, "waiting for sync window until "
	                          "2026-12-02T13:00:00Z: deny window "
	                          "'0 12 * * *' (UTC) in force\n");
	free(text);
	assert_true(daemon_held(&a, "shop-eu", "the capture pass"));
	/* suspended too: the suspension said */
	s.reason = xstrdup("incident");
	s.by = xstrdup("alice");
	s.user = xstrdup("alice");
	s.at = xstrdup("2026-12-02T11:00:00Z");
	assert_int_equal(agent_suspend_write(dir, "shop-eu", &s, &err), 0);
	daemon_holds_refresh(&a);
	text = slurp(hold);
	assert_non_null(
	    strstr(text, "cluster 'shop-eu' is suspended (by alice"));
	free(text);
	/* resumed, the window over: gone */
	assert_int_equal(agent_suspend_remove(dir, "shop-eu", &err), 1);
	set_clock(dir, "2026-12-02T13:00:00Z\n");
	daemon_holds_refresh(&a);
	assert_null(slurp(hold));
	assert_false(daemon_held(&a, "shop-eu", "drift repair"));
	/* a clock that cannot be read holds */
	set_clock(dir, "later\n");
	assert_true(daemon_held(&a, "shop-eu", "drift repair"));
	unsetenv(AGENT_WINDOW_CLOCK_ENV);
	unlink(hold);
	rmdir(cdir);
	free(hold);
	free(cdir);
	hold = xasprintf("%s/clock", dir);
	unlink(hold);
	free(hold);
	rmdir(dir);
	agent_suspension_release(&s);
	agent_windows_release(&conf.windows);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_holds__hold_txt_follows_the_cluster),
	};

	unsetenv("TZ");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
