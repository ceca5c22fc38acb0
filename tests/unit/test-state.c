/* tests/unit/test-state.c: agent/state.c, the state folder: lock, atomic
 * writes, audit; a FIFO in place of the lock file or the audit log is
 * refused, not waited on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../agent/state.h"
#include "../../lib/afile.h"
#include "../../lib/sbuf.h"
#include "../../lib/xalloc.h"

static char *
tmpdir(void)
{
	char tmpl[] = "/tmp/ag-state-XXXXXX";
	char *d = mkdtemp(tmpl);

	assert_non_null(d);
	return xasprintf("%s/state", d);
}

static void
rmtree(const char *state)
{
	char *cmd = xasprintf("rm -rf '%.*s'",
	    (int)(strlen(state) - strlen("/state")), state);

	assert_int_equal(system(cmd), 0);
	free(cmd);
}

static char *
slurp(const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s", dir, name);
	char *text = NULL;
	struct err err = {0};

	assert_int_equal(afile_read(&text, NULL, path, 1 << 20, &err), 0);
	free(path);
	return text;
}

static void
test_state__open_creates_folder_and_records_holder(void **unused)
{
	char *dir = tmpdir();
	struct agent_state *st = NULL;
	struct err err = {0};
	struct stat sb;
	char *lock, *want;

	(void)unused;
	assert_int_equal(agent_state_open(&st, dir, "apply /p/1", &err), 0);
	assert_int_equal(stat(dir, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0700);
	lock = slurp(dir, "lock");
	want =
	    xasprintf("pid=%ld\ncommand=apply /p/1\nstarted=", (long)getpid());
	assert_true(strncmp(lock, want, strlen(want)) == 0);
	assert_string_equal(agent_state_dir(st), dir);
	free(want);
	free(lock);
	agent_state_close(st);
	rmtree(dir);
	free(dir);
}

static void
test_state__second_open_is_refused_naming_the_holder(void **unused)
{
	char *dir = tmpdir();
	struct agent_state *st = NULL, *st2 = NULL;
	struct err err = {0};
	char *want, *holder;

	(void)unused;
	assert_int_equal(agent_state_open(&st, dir, "apply /p/1", &err), 0);
	assert_int_equal(agent_state_open(&st2, dir, "run", &err), -1);
	assert_null(st2);
	want = xasprintf("state folder '%s' is locked by pid %ld (apply /p/1, "
	                 "since ",
	    dir, (long)getpid());
	assert_non_null(err.msg);
	assert_true(strncmp(err.msg, want, strlen(want)) == 0);
	assert_int_equal(err.msg[strlen(err.msg) - 1], ')');
	holder = agent_state_lock_holder(dir);
	assert_non_null(holder);
	assert_true(strncmp(holder, want + strlen(dir) + 29,
	                strlen(want) - strlen(dir) - 29) == 0);
	free(holder);
	err_release(&err);
	agent_state_close(st);
	assert_null(agent_state_lock_holder(dir));
	assert_int_equal(agent_state_open(&st2, dir, "run", &err), 0);
	agent_state_close(st2);
	free(want);
	rmtree(dir);
	free(dir);
}

static void
test_state__lock_released_when_holder_is_killed(void **unused)
{
	char *dir = tmpdir();
	struct agent_state *st = NULL;
	struct err err = {0};
	int fds[2], status;
	char c;
	pid_t pid;

	(void)unused;
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		if (agent_state_open(&st, dir, "apply child", &err) < 0)
			_exit(3);
		(void)!write(fds[1], "x", 1);
		pause();
		_exit(0);
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], &c, 1), 1);
	assert_int_equal(agent_state_open(&st, dir, "apply", &err), -1);
	assert_non_null(strstr(err.msg, "(apply child, since "));
	err_release(&err);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	close(fds[0]);
	assert_int_equal(agent_state_open(&st, dir, "apply", &err), 0);
	agent_state_close(st);
	rmtree(dir);
	free(dir);
}

static size_t
count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

static void
test_state__write_replaces_atomically(void **unused)
{
	char *dir = tmpdir();
	struct agent_state *st = NULL;
	struct err err = {0};
	char *text = NULL, *path;
	size_t len = 0;
	struct stat sb;

	(void)unused;
	assert_int_equal(agent_state_open(&st, dir, "t", &err), 0);
	assert_int_equal(
	    agent_state_read(st, "inventory.json", &text, &len, &err), 1);
	assert_null(text);
	assert_int_equal(
	    agent_state_write(st, "inventory.json", "{\"a\":1}\n", 8, &err), 0);
	assert_int_equal(
	    agent_state_write(st, "inventory.json", "{}\n", 3, &err), 0);
	assert_int_equal(
	    agent_state_read(st, "inventory.json", &text, &len, &err), 0);
	assert_string_equal(text, "{}\n");
	assert_int_equal(len, 3);
	path = agent_state_path(st, "inventory.json");
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0600);
	/* lock + inventory.json, no temporary file left behind */
	assert_int_equal(count_entries(dir), 2);
	free(path);
	free(text);
	agent_state_close(st);
	rmtree(dir);
	free(dir);
}

static void
test_state__audit_appends_one_line_per_row(void **unused)
{
	char *dir = tmpdir();
	struct agent_state *st = NULL;
	struct err err = {0};
	char *text, *path;
	FILE *f;

	(void)unused;
	assert_int_equal(agent_state_open(&st, dir, "t", &err), 0);
	assert_int_equal(agent_state_audit_append(st, "{\"a\":1}", &err), 0);
	assert_int_equal(agent_state_audit_append(st, "{\"b\":2}", &err), 0);
	text = slurp(dir, "audit.jsonl");
	assert_string_equal(text, "{\"a\":1}\n{\"b\":2}\n");
	free(text);
	/* a row torn by a crash is terminated before the next one */
	path = agent_state_path(st, "audit.jsonl");
	f = fopen(path, "a");
	assert_non_null(f);
	fputs("{\"torn\":", f);
	fclose(f);
	assert_int_equal(agent_state_audit_append(st, "{\"c\":3}", &err), 0);
	text = slurp(dir, "audit.jsonl");
	assert_string_equal(text,
	    "{\"a\":1}\n{\"b\":2}\n{\"torn\":\n{\"c\":3}\n");
	free(text);
	assert_int_equal(agent_state_audit_append(st, "{\"d\":\n4}", &err), -1);
	assert_string_equal(err.msg, "audit row spans several lines");
	err_release(&err);
	free(path);
	agent_state_close(st);
	rmtree(dir);
	free(dir);
}

static int
collect(void *ctx, const char *row, size_t len)
{
	struct sbuf *b = ctx;

	assert_int_equal(strlen(row), len);
	sbuf_addf(b, "[%s]", row);
	return strcmp(row, "stop") == 0;
}

/* The rows of the audit log, in order; a torn last line is not a row; no
 * log, no rows. */
static void
test_state__audit_each_reads_rows(void **unused)
{
	char *dir = tmpdir();
	struct agent_state *st = NULL;
	struct err err = {0};
	struct sbuf b = {0};
	char *path;
	FILE *f;

	(void)unused;
	assert_int_equal(agent_state_open(&st, dir, "t", &err), 0);
	assert_int_equal(agent_state_audit_each(st, collect, &b, &err), 0);
	assert_string_equal(sbuf_str(&b), "");
	assert_int_equal(agent_state_audit_append(st, "{\"a\":1}", &err), 0);
	assert_int_equal(agent_state_audit_append(st, "{\"b\":2}", &err), 0);
	path = agent_state_path(st, "audit.jsonl");
	f = fopen(path, "a");
	assert_non_null(f);
	fputs("{\"torn\":", f);
	fclose(f);
	assert_int_equal(agent_state_audit_each(st, collect, &b, &err), 0);
	assert_string_equal(sbuf_str(&b), "[{\"a\":1}][{\"b\":2}]");
	/* terminated by the next append, it is a row (of no use) */
	assert_int_equal(agent_state_audit_append(st, "stop", &err), 0);
	assert_int_equal(agent_state_audit_append(st, "{\"c\":3}", &err), 0);
	sbuf_reset(&b);
	assert_int_equal(agent_state_audit_each(st, collect, &b, &err), 0);
	assert_string_equal(sbuf_str(&b),
	    "[{\"a\":1}][{\"b\":2}][{\"torn\":][stop]");
	/* the same rows by the folder's path, without its lock (which this
	 * handle holds) */
	sbuf_reset(&b);
	assert_int_equal(agent_state_audit_each_dir(dir, collect, &b, &err), 0);
	assert_string_equal(sbuf_str(&b),
	    "[{\"a\":1}][{\"b\":2}][{\"torn\":][stop]");
	sbuf_release(&b);
	free(path);
	agent_state_close(st);
	rmtree(dir);
	free(dir);
}

static void
test_state__fifos_refused_not_waited_on(void **unused)
{
	char *dir = tmpdir(), *path, *want, *holder;
	struct agent_state *st = NULL;
	struct err err = {0};

	(void)unused;
	signal(SIGALRM, SIG_DFL);
	alarm(10); /* a blocked open ends the program: a failure */
	assert_int_equal(afile_mkdirs(dir, 0700, &err), 0);
	/* the lock file */
	path = xasprintf("%s/%s", dir, AGENT_STATE_LOCK);
	assert_int_equal(mkfifo(path, 0600), 0);
	holder = agent_state_lock_holder(dir);
	assert_null(holder);
	assert_int_equal(agent_state_open(&st, dir, "t", &err), -1);
	want = xasprintf("'%s' is a FIFO, not a regular file", path);
	assert_string_equal(err.msg, want);
	free(want);
	err_release(&err);
	assert_int_equal(unlink(path), 0);
	free(path);
	/* the audit log */
	assert_int_equal(agent_state_open(&st, dir, "t", &err), 0);
	path = agent_state_path(st, AGENT_STATE_AUDIT);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(agent_state_audit_append(st, "{\"a\":1}", &err), -1);
	want = xasprintf("cannot open '%s': No such device or address", path);
	assert_string_equal(err.msg, want);
	free(want);
	err_release(&err);
	alarm(0);
	free(path);
	agent_state_close(st);
	rmtree(dir);
	free(dir);
}

static void
test_state__open_fails_on_unwritable_parent(void **unused)
{
	struct agent_state *st = NULL;
	struct err err = {0};

	(void)unused;
	assert_int_equal(agent_state_open(&st, "/proc/ag-no/state", "t", &err),
	    -1);
	assert_null(st);
	assert_non_null(err.msg);
	err_release(&err);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(
	        test_state__open_creates_folder_and_records_holder),
	    cmocka_unit_test(
	        test_state__second_open_is_refused_naming_the_holder),
	    cmocka_unit_test(test_state__lock_released_when_holder_is_killed),
	    cmocka_unit_test(test_state__write_replaces_atomically),
	    cmocka_unit_test(test_state__audit_appends_one_line_per_row),
	    cmocka_unit_test(test_state__audit_each_reads_rows),
	    cmocka_unit_test(test_state__open_fails_on_unwritable_parent),
	    cmocka_unit_test(test_state__fifos_refused_not_waited_on),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
