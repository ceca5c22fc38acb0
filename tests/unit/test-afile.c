/* tests/unit/test-afile.c: lib/afile.c: afile_mkdirs makes each created folder
 * durable: the folder holding it is fsync'd (an fsync wrapper in this
 * executable records which folders were synced); afile_open, the one
 * regular-file rule of every read, refuses FIFOs (without blocking),
 * devices, folders, sockets and dangling or looping symbolic links, each
 * named; afile_read_nofollow reads a file itself, never through a
 * symbolic link, and says what it read; afile_unlink_matching removes
 * what its predicate names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "../../lib/afile.h"
#include "../../lib/sbuf.h"
#include "../../lib/xalloc.h"

static struct sbuf synced; /* one path per line */

/* Interposes libc's fsync for the library code linked into this test. */
int fsync(int fd);

int
fsync(int fd)
{
	char link[64], path[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n > 0) {
		path[n] = '\0';
		sbuf_addf(&synced, "%s\n", path);
	}
	return (int)syscall(SYS_fsync, fd);
}

static void
test_afile__mkdirs_syncs_each_parent(void **unused)
{
	char tmpl[] = "/tmp/ag-afile-XXXXXX";
	char *top, *want, *path;
	struct err err = {0};
	struct stat sb;

	(void)unused;
	top = mkdtemp(tmpl);
	assert_non_null(top);
	path = xasprintf("%s/a/b/c", top);
	sbuf_release(&synced);
	assert_int_equal(afile_mkdirs(path, 0700, &err), 0);
	assert_int_equal(stat(path, &sb), 0);
	want = xasprintf("%s\n%s/a\n%s/a/b\n", top, top, top);
	assert_string_equal(sbuf_str(&synced), want);
	free(want);
	/* nothing created, nothing synced */
	sbuf_release(&synced);
	assert_int_equal(afile_mkdirs(path, 0700, &err), 0);
	assert_string_equal(sbuf_str(&synced), "");
	sbuf_release(&synced);
	free(path);
	path = xasprintf("rm -rf '%s'", top);
	assert_int_equal(system(path), 0);
	free(path);
}

/* A read that blocks fails the test in seconds, not at the runner's
 * timeout: SIGALRM's default action ends the program. */
static void
deadline(unsigned seconds)
{
	signal(SIGALRM, SIG_DFL);
	alarm(seconds);
}

/* afile_read's error for path, rendered ("" when it read the file). */
static char *
read_error(const char *path)
{
	struct err err = {0};
	char *text = NULL, *msg;

	if (afile_read(&text, NULL, path, 1024, &err) == 0) {
		free(text);
		return xstrdup("");
	}
	msg = err_render(&err);
	err_release(&err);
	return msg;
}

/* afile_read(path) fails with the message fmt says of path. */
#define assert_read_error(path, fmt)                                           \
	do {                                                                   \
		char *want_ = xasprintf(fmt, path), *got_ = read_error(path);  \
		assert_string_equal(got_, want_);                              \
		free(got_);                                                    \
		free(want_);                                                   \
	} while (0)

static void
test_afile__read_refuses_what_is_not_a_regular_file(void **unused)
{
	char tmpl[] = "/tmp/ag-afile-XXXXXX";
	char *top, *fifo, *link, *loop, *file, *sock, *cmd, *text = NULL;
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct err err = {0};
	int s;

	(void)unused;
	top = mkdtemp(tmpl);
	assert_non_null(top);
	fifo = xasprintf("%s/fifo", top);
	link = xasprintf("%s/dangling", top);
	loop = xasprintf("%s/loop", top);
	file = xasprintf("%s/file", top);
	sock = xasprintf("%s/sock", top);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(symlink("nowhere", link), 0);
	assert_int_equal(symlink("loop", loop), 0);
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(s >= 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock);
	assert_int_equal(bind(s, (struct sockaddr *)&sa, sizeof(sa)), 0);
	deadline(10);
	/* a FIFO nobody writes: refused at once, not waited on */
	assert_read_error(fifo, "'%s' is a FIFO, not a regular file");
	assert_read_error("/dev/zero",
	    "'%s' is a character device, not a regular file");
	assert_read_error("/dev/null",
	    "'%s' is a character device, not a regular file");
	assert_read_error(top, "'%s' is a folder, not a regular file");
	assert_read_error(sock, "'%s' is a socket, not a regular file");
	assert_read_error(link, "'%s' is a dangling symbolic link");
	assert_read_error(loop, "'%s' is a symbolic link loop (too many "
	                        "levels of symbolic links)");
	alarm(0);
	/* a regular file, also through a symbolic link */
	assert_int_equal(afile_write(file, "abc", 3, 0600, &err), 0);
	assert_int_equal(unlink(link), 0);
	assert_int_equal(symlink("file", link), 0);
	assert_int_equal(afile_read(&text, NULL, link, 16, &err), 0);
	assert_string_equal(text, "abc");
	free(text);
	close(s);
	cmd = xasprintf("rm -rf '%s'", top);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(fifo);
	free(link);
	free(loop);
	free(file);
	free(sock);
}

static void
test_afile__open_nofollow_and_at_path(void **unused)
{
	char tmpl[] = "/tmp/ag-afile-XXXXXX";
	char *top, *link, *file, *fifo, *msg, *want, *cmd;
	struct err err = {0};
	struct stat st;
	int fd = -1;

	(void)unused;
	top = mkdtemp(tmpl);
	assert_non_null(top);
	file = xasprintf("%s/file", top);
	link = xasprintf("%s/link", top);
	fifo = xasprintf("%s/fifo", top);
	assert_int_equal(afile_write(file, "abcd", 4, 0600, &err), 0);
	assert_int_equal(symlink("file", link), 0);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	/* followed by default, refused with AFILE_NOFOLLOW */
	assert_int_equal(afile_open(&fd, &st, link, 0, &err), 0);
	assert_int_equal(st.st_size, 4);
	/* O_NONBLOCK and O_NOCTTY were asked for, O_CLOEXEC too */
	assert_true((fcntl(fd, F_GETFL) & O_NONBLOCK) != 0);
	assert_true((fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0);
	close(fd);
	assert_int_equal(afile_open(&fd, NULL, link, AFILE_NOFOLLOW, &err), -1);
	want = xasprintf("'%s' is a symbolic link, not a regular file", link);
	assert_string_equal(err.msg, want);
	free(want);
	err_release(&err);
	/* AFILE_AT_PATH: the position is the file, the message leaves it out */
	deadline(10);
	assert_int_equal(afile_open(&fd, NULL, fifo, AFILE_AT_PATH, &err), -1);
	alarm(0);
	msg = err_render(&err);
	want = xasprintf("%s: a FIFO, not a regular file", fifo);
	assert_string_equal(msg, want);
	free(want);
	free(msg);
	err_release(&err);
	assert_int_equal(
	    afile_open(&fd, NULL, "/nonexistent", AFILE_AT_PATH, &err), -1);
	msg = err_render(&err);
	assert_string_equal(msg,
	    "/nonexistent: cannot open: No such file or directory");
	free(msg);
	err_release(&err);
	cmd = xasprintf("rm -rf '%s'", top);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(file);
	free(link);
	free(fifo);
}

static void
test_afile__append_refuses_a_fifo(void **unused)
{
	char tmpl[] = "/tmp/ag-afile-XXXXXX";
	char *top, *fifo, *want, *cmd;
	struct err err = {0};
	int rfd;

	(void)unused;
	top = mkdtemp(tmpl);
	assert_non_null(top);
	fifo = xasprintf("%s/audit.jsonl", top);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	deadline(10);
	/* nobody reads it: the open fails instead of waiting for a reader */
	assert_int_equal(afile_append_sync(fifo, "x\n", 2, 0600, &err), -1);
	want = xasprintf("cannot open '%s': %s", fifo, strerror(ENXIO));
	assert_string_equal(err.msg, want);
	free(want);
	err_release(&err);
	/* somebody reads it: refused as a FIFO, nothing written */
	rfd = open(fifo, O_RDONLY | O_NONBLOCK);
	assert_true(rfd >= 0);
	assert_int_equal(afile_append_sync(fifo, "x\n", 2, 0600, &err), -1);
	alarm(0);
	want = xasprintf(
	    "cannot append to '%s': it is a FIFO, not a regular file", fifo);
	assert_string_equal(err.msg, want);
	free(want);
	err_release(&err);
	close(rfd);
	cmd = xasprintf("rm -rf '%s'", top);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(fifo);
}

/* The text and the fstat of the file read; a symbolic link is refused
 * (afile_read still follows it). */
static void
test_afile__read_nofollow(void **unused)
{
	char tmpl[] = "/tmp/ag-afile-XXXXXX";
	char *top, *file, *link, *text = NULL, *cmd;
	struct err err = {0};
	struct stat st;
	size_t len = 0;

	(void)unused;
	top = mkdtemp(tmpl);
	assert_non_null(top);
	file = xasprintf("%s/f", top);
	link = xasprintf("%s/l", top);
	assert_int_equal(afile_write(file, "abc", 3, 0600, &err), 0);
	assert_int_equal(symlink(file, link), 0);
	memset(&st, 0, sizeof(st));
	assert_int_equal(afile_read_nofollow(&text, &len, &st, file, 100, &err),
	    0);
	assert_string_equal(text, "abc");
	assert_int_equal(len, 3);
	assert_int_equal(st.st_uid, getuid());
	assert_int_equal(st.st_nlink, 1);
	assert_true(S_ISREG(st.st_mode));
	free(text);
	text = NULL;
	assert_int_equal(afile_read_nofollow(&text, &len, &st, link, 100, &err),
	    -1);
	assert_null(text);
	cmd = xasprintf("'%s' is a symbolic link, not a regular file", link);
	assert_string_equal(err.msg, cmd);
	free(cmd);
	err_release(&err);
	assert_int_equal(afile_read(&text, &len, link, 100, &err), 0);
	assert_string_equal(text, "abc");
	free(text);
	cmd = xasprintf("rm -rf '%s'", top);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(file);
	free(link);
}

static bool
ends_md(const char *name, void *ctx)
{
	size_t n = strlen(name);

	(*(int *)ctx)++;
	return n > 3 && strcmp(name + n - 3, ".md") == 0;
}

/* afile_unlink_matching removes what the predicate names, and only that;
 * a missing folder has nothing to remove. */
static void
test_afile__unlink_matching(void **unused)
{
	char tmp[] = "/tmp/test-afile-um-XXXXXX", *p;
	const char *names[] = {"a.md", "b.md", "keep.json", "c.mdx"};
	struct err err = {0};
	size_t i;
	int seen = 0;

	(void)unused;
	assert_non_null(mkdtemp(tmp));
	for (i = 0; i < 4; i++) {
		p = xasprintf("%s/%s", tmp, names[i]);
		assert_int_equal(afile_write(p, "x", 1, 0600, &err), 0);
		free(p);
	}
	assert_int_equal(afile_unlink_matching(tmp, ends_md, &seen, &err), 0);
	assert_true(seen >= 4);
	for (i = 0; i < 4; i++) {
		p = xasprintf("%s/%s", tmp, names[i]);
		assert_int_equal(access(p, F_OK), i < 2 ? -1 : 0);
		unlink(p);
		free(p);
	}
	rmdir(tmp);
	assert_int_equal(afile_unlink_matching(tmp, ends_md, &seen, &err), 0);
	assert_null(err.msg);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_afile__mkdirs_syncs_each_parent),
	    cmocka_unit_test(
	        test_afile__read_refuses_what_is_not_a_regular_file),
	    cmocka_unit_test(test_afile__open_nofollow_and_at_path),
	    cmocka_unit_test(test_afile__append_refuses_a_fifo),
	    cmocka_unit_test(test_afile__read_nofollow),
	    cmocka_unit_test(test_afile__unlink_matching),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
