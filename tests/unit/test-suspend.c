/* tests/unit/test-suspend.c: agent/suspend.c: STATE/<cluster>/
 * suspended.json written, read back, removed; a damaged file is an error
 * naming it. */
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

#include "../../agent/suspend.h"
#include "../../lib/afile.h"
#include "../../lib/xalloc.h"

static void
test_suspend__write_read_remove(void **state)
{
	char tmpl[] = "/tmp/test-suspend-XXXXXX";
	struct agent_suspension s = {0}, r = {0};
	struct err err = {0};
	char *dir = mkdtemp(tmpl), *text;

	(void)state;
	assert_non_null(dir);
	assert_int_equal(agent_suspend_read(&r, dir, "shop-eu", &err), 0);
	s.reason = xstrdup("freeze: black friday");
	s.by = xstrdup("alice");
	s.uid = 1000;
	s.user = xstrdup("alice");
	s.at = xstrdup("2026-12-02T10:00:00Z");
	assert_int_equal(agent_suspend_write(dir, "shop-eu", &s, &err), 0);
	assert_int_equal(agent_suspend_read(&r, dir, "shop-eu", &err), 1);
	assert_string_equal(r.reason, "freeze: black friday");
	assert_string_equal(r.by, "alice");
	assert_int_equal(r.uid, 1000);
	text = agent_suspend_text("shop-eu", &r);
	assert_string_equal(text,
	    "cluster 'shop-eu' is suspended (by alice, uid 1000 alice, at "
	    "2026-12-02T10:00:00Z): freeze: black friday; nothing is applied "
	    "until `artemis-gitops resume shop-eu`");
	free(text);
	agent_suspension_release(&r);
	/* another cluster is not suspended */
	assert_int_equal(agent_suspend_read(&r, dir, "shop-us", &err), 0);
	assert_int_equal(agent_suspend_remove(dir, "shop-eu", &err), 1);
	assert_int_equal(agent_suspend_remove(dir, "shop-eu", &err), 0);
	assert_int_equal(agent_suspend_read(&r, dir, "shop-eu", &err), 0);
	/* not a cluster name: nothing written outside the state folder */
	assert_int_equal(agent_suspend_write(dir, "../x", &s, &err), -1);
	assert_non_null(strstr(err.msg, "'../x' is not a cluster name"));
	err_release(&err);
	agent_suspension_release(&s);
	text = xasprintf("%s/shop-eu", dir);
	assert_int_equal(rmdir(text), 0); /* empty again */
	assert_int_equal(rmdir(dir), 0);
	free(text);
}

/* A file that is not a suspension is an error naming the file and the
 * member (hold.c then counts the cluster as suspended). */
static void
test_suspend__damaged_file(void **state)
{
	char tmpl[] = "/tmp/test-suspend-XXXXXX";
	struct agent_suspension r = {0};
	struct err err = {0};
	char *dir = mkdtemp(tmpl), *sub, *path;
	const char *text;

	(void)state;
	sub = xasprintf("%s/shop-eu", dir);
	path = xasprintf("%s/suspended.json", sub);
	assert_int_equal(afile_mkdirs(sub, 0750, &err), 0);
	text = "{\"format\": 1, \"by\": \"a\"}\n";
	assert_int_equal(afile_write(path, text, strlen(text), 0644, &err), 0);
	assert_int_equal(agent_suspend_read(&r, dir, "shop-eu", &err), -1);
	assert_non_null(strstr(err.path, "shop-eu/suspended.json"));
	assert_string_equal(err.msg, "reason: missing");
	err_release(&err);
	text = "{\"format\": 1, \"by\": \"a\", \"reason\": \"x\\ny\", "
	       "\"user\": \"a\", \"at\": \"t\", \"uid\": 0}\n";
	assert_int_equal(afile_write(path, text, strlen(text), 0644, &err), 0);
	assert_int_equal(agent_suspend_read(&r, dir, "shop-eu", &err), -1);
	assert_non_null(strstr(err.msg, "reason: expected one non-empty line"));
	err_release(&err);
	unlink(path);
	rmdir(sub);
	rmdir(dir);
	free(path);
	free(sub);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_suspend__write_read_remove),
	    cmocka_unit_test(test_suspend__damaged_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
