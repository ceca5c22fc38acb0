/* tests/unit/test-git.c: agent/git.c: the cluster folders of a commit
 * (the YAML files of each, a configured path that the commit lacks), read
 * through the watcher from the repositories of git-fixture.h; the TLS CA
 * file passes the regular-file rule before libgit2 is given it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "git-fixture.h"

static void
test_git__reads_cluster_folders(void **state)
{
	struct agent_conf *c = conf_new("main", "clusters");
	struct daemon_watch *w = NULL;
	struct err err = {0};
	struct daemon_watch_update u;
	struct agent_git_folder *cs = NULL;
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
	agent_git_folders_free(cs, n);
	daemon_watch_update_release(&u);
	daemon_watch_free(w);
	agent_conf_free(c);
}

static void
test_git__one_cluster_path_and_missing_path(void **state)
{
	struct agent_conf *c = conf_new("main", "clusters/eu");
	struct daemon_watch *w = NULL;
	struct err err = {0};
	struct daemon_watch_update u;
	struct agent_git_folder *cs = NULL;
	size_t n = 0;

	(void)state;
	assert_int_equal(daemon_watch_open(&w, c, &err), 0);
	assert_int_equal(daemon_watch_poll(w, &cw, &u, &err), 0);
	assert_int_equal(daemon_watch_read_clusters(w, u.head, &cs, &n, &err),
	    0);
	assert_int_equal(n, 1);
	assert_string_equal(cs[0].dir, "clusters/eu");
	agent_git_folders_free(cs, n);
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
test_git__ca_file_must_be_a_regular_file(void **state)
{
	char *fifo = xasprintf("%s/ca.fifo", tmp), *want;
	struct err err = {0};

	(void)state;
	sh("mkfifo ca.fifo");
	signal(SIGALRM, SIG_DFL);
	alarm(10);
	assert_int_equal(agent_git_set_ca_file(fifo, &err), -1);
	alarm(0);
	want = xasprintf("'%s' is a FIFO, not a regular file", fifo);
	assert_string_equal(err.msg, want);
	free(want);
	err_release(&err);
	assert_int_equal(agent_git_set_ca_file(tmp, &err), -1);
	want = xasprintf("'%s' is a folder, not a regular file", tmp);
	assert_string_equal(err.msg, want);
	free(want);
	err_release(&err);
	free(fifo);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_git__reads_cluster_folders),
	    cmocka_unit_test(test_git__one_cluster_path_and_missing_path),
	    cmocka_unit_test(test_git__ca_file_must_be_a_regular_file),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
