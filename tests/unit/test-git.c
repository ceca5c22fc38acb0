/* tests/unit/test-git.c: agent/git.c: the cluster folders of a commit
 * (the YAML files of each, a configured path that the commit lacks), read
 * through the watcher from the repositories of git-fixture.h; a symbolic
 * link, a submodule or a folder named *.yaml (or as a base broker.xml) in
 * a commit is refused by name; the TLS CA file passes the regular-file
 * rule before libgit2 is given it. */
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

/* Read folder dir of HEAD of repository tmp/odd; the error or "". */
static char *
odd_folder(const char *dir)
{
	char *path = xasprintf("%s/odd", tmp), *msg;
	struct agent_git_repo *r = NULL;
	struct agent_git_folder f;
	char oid[AGENT_GIT_OID_HEX + 1];
	struct err err = {0};

	assert_int_equal(agent_git_open(&r, path, &err), 0);
	assert_int_equal(agent_git_resolve(r, "HEAD", oid, &err), 0);
	if (agent_git_read_folder(r, oid, dir, &f, &err) == 0) {
		agent_git_folder_release(&f);
		msg = xstrdup("");
	} else {
		msg = xstrdup(err.msg);
		err_release(&err);
	}
	agent_git_close(r);
	free(path);
	return msg;
}

static void
test_git__yaml_entries_not_regular_files_refused(void **state)
{
	char *msg;

	(void)state;
	/* a link, a submodule, a folder named *.yaml; a link as a node's base
	 * broker.xml; and a folder of regular files only */
	sh("git init -q -b main odd && cd odd && mkdir -p link sub dir "
	   "base/broker/nodes ok && echo 'version: 1' > link/a.yaml && "
	   "ln -s a.yaml link/old.yaml && echo 'version: 1' > sub/a.yaml && "
	   "mkdir dir/x.yaml && echo 'version: 1' > dir/x.yaml/a.yaml && "
	   "echo 'version: 1' > base/a.yaml && echo '<x/>' > base/b.xml && "
	   "ln -s ../../b.xml base/broker/nodes/n1.xml && "
	   "echo 'version: 1' > ok/a.yaml && git add -A && "
	   "git update-index --add --cacheinfo "
	   "160000,0123456789abcdef0123456789abcdef01234567,sub/old.yaml && "
	   "git commit -qm odd");
	msg = odd_folder("link");
	assert_string_equal(msg,
	    "link/old.yaml: a symbolic link in the commit, not a regular file");
	free(msg);
	msg = odd_folder("sub");
	assert_string_equal(msg,
	    "sub/old.yaml: a submodule in the commit, not a regular file");
	free(msg);
	msg = odd_folder("dir");
	assert_string_equal(msg,
	    "dir/x.yaml: a folder in the commit, not a regular file");
	free(msg);
	msg = odd_folder("base");
	assert_string_equal(msg, "base/broker/nodes/n1.xml: a symbolic link in "
	                         "the commit, not a regular file");
	free(msg);
	msg = odd_folder("ok");
	assert_string_equal(msg, "");
	free(msg);
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
	    cmocka_unit_test(test_git__yaml_entries_not_regular_files_refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
