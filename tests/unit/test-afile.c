/* tests/unit/test-afile.c: lib/afile.c: afile_mkdirs makes each created folder
 * durable: the folder holding it is fsync'd (an fsync wrapper in this
 * executable records which folders were synced); afile_read_nofollow reads
 * a file itself, never through a symbolic link, and says what it read. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
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
	cmd = xasprintf("'%s' is a symbolic link, not the file itself", link);
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_afile__mkdirs_syncs_each_parent),
	    cmocka_unit_test(test_afile__read_nofollow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
