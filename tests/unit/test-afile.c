/* tests/unit/test-afile.c: lib/afile.c: afile_mkdirs makes each created folder
 * durable: the folder holding it is fsync'd (an fsync wrapper in this
 * executable records which folders were synced). */
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_afile__mkdirs_syncs_each_parent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
