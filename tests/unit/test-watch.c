/* tests/unit/test-watch.c: agent/daemon/watch.c against the file://
 * repositories of git-fixture.h: first, same, new and rewritten heads, the
 * last seen commit kept, missing branches and URLs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "git-fixture.h"

static void
poll_expect(struct daemon_watch *w, enum daemon_watch_event ev, size_t ncommits)
{
	struct daemon_watch_update u;
	struct err err = {0};

	if (daemon_watch_poll(w, &cw, &u, &err) < 0)
		fail_msg("poll: %s", err.msg);
	assert_string_equal(daemon_watch_event_name(u.event),
	    daemon_watch_event_name(ev));
	assert_int_equal(u.ncommits, ncommits);
	assert_int_equal(strlen(u.head), AGENT_GIT_OID_HEX);
	assert_string_equal(u.author, "Ann Operator <ann@example.com>");
	assert_int_equal(daemon_watch_mark_seen(w, u.head, &err), 0);
	daemon_watch_update_release(&u);
}

static void
test_watch__first_same_new_rewrite(void **state)
{
	struct agent_conf *c = conf_new("main", "clusters");
	struct daemon_watch *w = NULL;
	struct err err = {0};
	struct daemon_watch_update u;
	char first[AGENT_GIT_OID_HEX + 1];

	(void)state;
	assert_int_equal(daemon_watch_open(&w, c, &err), 0);
	assert_string_equal(daemon_watch_last_seen(w), "");
	poll_expect(w, DAEMON_WATCH_FIRST, 0);
	snprintf(first, sizeof(first), "%s", daemon_watch_last_seen(w));
	poll_expect(w, DAEMON_WATCH_SAME, 0);
	sh("cd work && echo 'y: 2' >> clusters/us/c.yaml && git commit -qam two"
	   " && echo 'y: 3' >> clusters/us/c.yaml && git commit -qam three"
	   " && git push -q ../origin.git main");
	poll_expect(w, DAEMON_WATCH_NEW, 2);
	/* A restart keeps the last seen commit. */
	daemon_watch_free(w);
	assert_int_equal(daemon_watch_open(&w, c, &err), 0);
	assert_int_equal(strlen(daemon_watch_last_seen(w)), AGENT_GIT_OID_HEX);
	poll_expect(w, DAEMON_WATCH_SAME, 0);
	sh("cd work && git reset -q --hard HEAD~2 && echo 'z: 1' > "
	   "clusters/us/d.yaml && git add -A && git commit -qm rewritten && "
	   "git push -q -f ../origin.git main");
	assert_int_equal(daemon_watch_poll(w, &cw, &u, &err), 0);
	assert_int_equal(u.event, DAEMON_WATCH_REWRITE);
	assert_string_equal(u.summary, "rewritten");
	assert_int_equal(strlen(u.prev), AGENT_GIT_OID_HEX);
	assert_string_not_equal(u.prev, first);
	daemon_watch_update_release(&u);
	daemon_watch_free(w);
	agent_conf_free(c);
}

static void
test_watch__missing_branch_and_url_are_errors(void **state)
{
	struct agent_conf *c = conf_new("release", "");
	struct daemon_watch *w = NULL;
	struct err err = {0};
	struct daemon_watch_update u;
	char *want;

	(void)state;
	assert_int_equal(daemon_watch_open(&w, c, &err), 0);
	assert_int_equal(daemon_watch_poll(w, &cw, &u, &err), -1);
	want = xasprintf("branch 'release' not found in %s", c->repo_url);
	if (strncmp(err.msg, want, strlen(want)) != 0)
		fail_msg("got: %s", err.msg);
	free(want);
	err_release(&err);
	daemon_watch_free(w);
	free(c->repo_url);
	c->repo_url = xasprintf("file://%s/absent.git", tmp);
	free(c->branch);
	c->branch = xstrdup("main");
	assert_int_equal(daemon_watch_open(&w, c, &err), 0);
	assert_int_equal(daemon_watch_poll(w, &cw, &u, &err), -1);
	assert_non_null(strstr(err.msg, "absent.git"));
	err_release(&err);
	daemon_watch_free(w);
	agent_conf_free(c);
}

static void
test_watch__changed_url_starts_afresh(void **state)
{
	struct agent_conf *c = conf_new("main", "");
	struct daemon_watch *w = NULL;
	struct err err = {0};

	(void)state;
	sh("rm -rf state && cp -r origin.git mirror.git");
	assert_int_equal(daemon_watch_open(&w, c, &err), 0);
	poll_expect(w, DAEMON_WATCH_FIRST, 0);
	daemon_watch_free(w);
	free(c->repo_url);
	c->repo_url = xasprintf("file://%s/mirror.git", tmp);
	assert_int_equal(daemon_watch_open(&w, c, &err), 0);
	assert_string_equal(daemon_watch_last_seen(w), "");
	poll_expect(w, DAEMON_WATCH_FIRST, 0);
	poll_expect(w, DAEMON_WATCH_SAME, 0);
	daemon_watch_free(w);
	agent_conf_free(c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_watch__first_same_new_rewrite),
	    cmocka_unit_test(test_watch__missing_branch_and_url_are_errors),
	    cmocka_unit_test(test_watch__changed_url_starts_afresh),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
