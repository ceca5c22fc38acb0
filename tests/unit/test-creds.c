/* tests/unit/test-creds.c: agent/creds.c: agent_creds_read, the reader of a
 * node's credentials file. Its refusal of a name that is not a file name is a
 * second line behind validation (declarations/fields.c refuses the same
 * names first), so no command reaches it with a declaration that
 * validates: 12-snapshot-cli.sh checks validation's refusal, this test
 * the reader's own. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../agent/creds.h"
#include "../../lib/afile.h"
#include "../../lib/xalloc.h"

/* A folder with creds/node1 and, next to creds/, a file outside, both
 * readable credentials files (mode 0600). */
struct fixture {
	char top[32];
	char *creds;
};

static int
setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof(*f));
	struct err err = {0};
	char *path;

	snprintf(f->top, sizeof(f->top), "/tmp/test-creds-XXXXXX");
	assert_non_null(mkdtemp(f->top));
	f->creds = xasprintf("%s/creds", f->top);
	assert_int_equal(mkdir(f->creds, 0700), 0);
	path = xasprintf("%s/node1", f->creds);
	assert_int_equal(afile_write(path, "gitops:inside\n", 14, 0600, &err),
	    0);
	free(path);
	path = xasprintf("%s/outside", f->top);
	assert_int_equal(afile_write(path, "gitops:outside\n", 15, 0600, &err),
	    0);
	free(path);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;
	char *cmd = xasprintf("rm -rf '%s'", f->top);

	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(f->creds);
	free(f);
	return 0;
}

static void
test_creds__reads_a_file_of_the_folder(void **state)
{
	struct fixture *f = *state;
	struct err err = {0};
	char *secret = NULL;

	assert_int_equal(
	    agent_creds_read(&secret, f->creds, "node1", "node1", &err), 0);
	assert_string_equal(secret, "gitops:inside");
	assert_null(err.msg);
	agent_creds_free(secret);
}

static void
test_creds__name_not_a_file_name_refused(void **state)
{
	static const char *const names[] = {"../outside", "..", ".", "",
	    "sub/node1"};
	struct fixture *f = *state;
	char *secret, *want;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct err err = {0};

		secret = NULL;
		assert_int_equal(agent_creds_read(&secret, f->creds, "node1",
		                     names[i], &err),
		    -1);
		assert_null(secret);
		want = xasprintf(
		    "node 'node1': credentials name '%s' is not a file name",
		    names[i]);
		assert_string_equal(err.msg, want);
		free(want);
		err_release(&err);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(
	        test_creds__reads_a_file_of_the_folder, setup, teardown),
	    cmocka_unit_test_setup_teardown(
	        test_creds__name_not_a_file_name_refused, setup, teardown),
	};

	return cmocka_run_group_tests_name("creds", tests, NULL, NULL);
}
