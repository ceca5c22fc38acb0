/* tests/unit/test-watch.c: agent/watch.c against file:// repositories made
 * with the git command line in a temporary folder. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../agent/daemon/daemon-int.h"
#include "../../lib/xalloc.h"

/* The fetch runs in a child; no signalfd here, 60 s is plenty. */
static const struct daemon_child_wait cw = {-1, NULL, 60};

static char tmp[64];

/* Run a shell command in tmp; fail the test when it fails. */
static void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void
sh(const char *fmt, ...)
{
	va_list ap;
	char *cmd, *full;
	int r;

	va_start(ap, fmt);
	if (vasprintf(&cmd, fmt, ap) < 0)
		abort();
	va_end(ap);
	full = xasprintf("cd %s && (%s) >/dev/null 2>&1", tmp, cmd);
	r = system(full);
	if (r != 0)
		fail_msg("command failed: %s", cmd);
	free(full);
	free(cmd);
}

static int
setup(void **state)
{
	(void)state;
	snprintf(tmp, sizeof(tmp), "/tmp/test-watch-XXXXXX");
	if (mkdtemp(tmp) == NULL)
		return -1;
	setenv("GIT_AUTHOR_NAME", "Ann Operator", 1);
	setenv("GIT_AUTHOR_EMAIL", "ann@example.com", 1);
	setenv("GIT_COMMITTER_NAME", "Ann Operator", 1);
	setenv("GIT_COMMITTER_EMAIL", "ann@example.com", 1);
	sh("git init -q --bare -b main origin.git && git init -q -b main work "
	   "&& mkdir -p work/clusters/eu work/clusters/us work/clusters/empty "
	   "&& echo 'cluster: eu' > work/clusters/eu/a.yaml "
	   "&& echo 'x: 1' > work/clusters/eu/b.yml "
	   "&& echo 'not yaml' > work/clusters/eu/README.md "
	   "&& echo 'cluster: us' > work/clusters/us/c.yaml "
	   "&& echo 'nothing' > work/clusters/empty/notes.txt "
	   "&& cd work && git add -A && git commit -qm 'first clusters' "
	   "&& git push -q ../origin.git main");
	return 0;
}

static int
teardown(void **state)
{
	char *cmd = xasprintf("rm -rf %s", tmp);

	(void)state;
	if (system(cmd) != 0)
		return -1;
	free(cmd);
	return 0;
}

static struct agent_conf *
conf_new(const char *branch, const char *path)
{
	struct agent_conf *c = xcalloc(1, sizeof(*c));

	c->repo_url = xasprintf("file://%s/origin.git", tmp);
	c->branch = xstrdup(branch);
	c->clusters_path = xstrdup(path);
	c->git_ssh_user = xstrdup("git");
	c->state = xasprintf("%s/state", tmp);
	return c;
}

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
	assert_int_equal(strlen(u.head), DAEMON_WATCH_OID_HEX);
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
	char first[DAEMON_WATCH_OID_HEX + 1];

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
	assert_int_equal(strlen(daemon_watch_last_seen(w)),
	    DAEMON_WATCH_OID_HEX);
	poll_expect(w, DAEMON_WATCH_SAME, 0);
	sh("cd work && git reset -q --hard HEAD~2 && echo 'z: 1' > "
	   "clusters/us/d.yaml && git add -A && git commit -qm rewritten && "
	   "git push -q -f ../origin.git main");
	assert_int_equal(daemon_watch_poll(w, &cw, &u, &err), 0);
	assert_int_equal(u.event, DAEMON_WATCH_REWRITE);
	assert_string_equal(u.summary, "rewritten");
	assert_int_equal(strlen(u.prev), DAEMON_WATCH_OID_HEX);
	assert_string_not_equal(u.prev, first);
	daemon_watch_update_release(&u);
	daemon_watch_free(w);
	agent_conf_free(c);
}

static void
test_watch__reads_cluster_folders(void **state)
{
	struct agent_conf *c = conf_new("main", "clusters");
	struct daemon_watch *w = NULL;
	struct err err = {0};
	struct daemon_watch_update u;
	struct daemon_watch_cluster *cs = NULL;
	size_t n = 0;

	(void)state;
	assert_int_equal(daemon_watch_open(&w, c, &err), 0);
	assert_int_equal(daemon_watch_poll(w, &cw, &u, &err), 0);
	assert_int_equal(daemon_watch_read_clusters(w, u.head, &cs, &n, &err),
	    0);
	assert_int_equal(n, 2);
	assert_string_equal(cs[0].dir, "clusters/eu");
	assert_int_equal(cs[0].nfiles, 2);
	assert_string_equal(cs[0].files[0].path, "clusters/eu/a.yaml");
	assert_string_equal(cs[0].files[0].data, "cluster: eu\n");
	assert_int_equal(cs[0].files[0].len, 12);
	assert_string_equal(cs[0].files[1].path, "clusters/eu/b.yml");
	assert_string_equal(cs[1].dir, "clusters/us");
	daemon_watch_clusters_free(cs, n);
	daemon_watch_update_release(&u);
	daemon_watch_free(w);
	agent_conf_free(c);
}

static void
test_watch__one_cluster_path_and_missing_path(void **state)
{
	struct agent_conf *c = conf_new("main", "clusters/eu");
	struct daemon_watch *w = NULL;
	struct err err = {0};
	struct daemon_watch_update u;
	struct daemon_watch_cluster *cs = NULL;
	size_t n = 0;

	(void)state;
	assert_int_equal(daemon_watch_open(&w, c, &err), 0);
	assert_int_equal(daemon_watch_poll(w, &cw, &u, &err), 0);
	assert_int_equal(daemon_watch_read_clusters(w, u.head, &cs, &n, &err),
	    0);
	assert_int_equal(n, 1);
	assert_string_equal(cs[0].dir, "clusters/eu");
	daemon_watch_clusters_free(cs, n);
	free(c->clusters_path);
	c->clusters_path = xstrdup("nowhere");
	assert_int_equal(daemon_watch_read_clusters(w, u.head, &cs, &n, &err),
	    -1);
	assert_non_null(strstr(err.msg, "has no folder 'nowhere'"));
	err_release(&err);
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
	    cmocka_unit_test(test_watch__reads_cluster_folders),
	    cmocka_unit_test(test_watch__one_cluster_path_and_missing_path),
	    cmocka_unit_test(test_watch__missing_branch_and_url_are_errors),
	    cmocka_unit_test(test_watch__changed_url_starts_afresh),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
