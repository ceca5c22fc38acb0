/* tests/unit/test-dir.c: declarations/dir.c: a cluster folder's YAML
 * files read, with the limit of bytes per file. */
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

#include "../../lib/xalloc.h"
#include "decl-fixture.h"

/* plan --out's declaration/cluster.yaml spells out every default, so it
 * outgrows the 1 MiB limit of people's files from about 2,000 queues:
 * apply reads it with DECL_DUMP_FILE_MAX and gets the same declaration. */
static void
test_dir__dump_file_loads_with_the_dump_limit(void **state)
{
	char dir[] = "/tmp/test-decl-dump-XXXXXX", *file, *dump, *msg;
	char d1[SHA256_HEX], d2[SHA256_HEX];
	struct decl_cluster *c = NULL, *back = NULL;
	struct errlist l = {0};
	struct decl_address *a;
	size_t i, n = 6000;
	FILE *f;

	(void)state;
	assert_int_equal(parse2(&c, HEAD DIGEST_BODY, NULL, &l), 0);
	a = &c->addresses[0];
	a->queues = xreallocarray(a->queues, n, sizeof(*a->queues));
	for (i = a->nqueues; i < n; i++) {
		a->queues[i] = a->queues[0];
		a->queues[i].name = xasprintf("orders.%06zu", i);
		a->queues[i].filter = NULL;
		a->queues[i].last_value_key = NULL;
	}
	a->nqueues = n;
	dump = decl_cluster_dump(c);
	assert_true(strlen(dump) > DECL_FILE_MAX);
	assert_non_null(mkdtemp(dir));
	file = xasprintf("%s/cluster.yaml", dir);
	f = fopen(file, "w");
	assert_non_null(f);
	fputs(dump, f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(decl_cluster_load(&back, dir, &l), -1);
	msg = errlist_render_item(&l, 0);
	assert_non_null(strstr(msg, "over the limit of 1048576 bytes"));
	free(msg);
	errlist_release(&l);
	assert_int_equal(
	    decl_cluster_load_max(&back, dir, DECL_DUMP_FILE_MAX, &l), 0);
	decl_cluster_digest(c, d1);
	decl_cluster_digest(back, d2);
	assert_string_equal(d1, d2);
	unlink(file);
	rmdir(dir);
	free(file);
	free(dump);
	decl_cluster_free(back);
	decl_cluster_free(c);
	errlist_release(&l);
}

static void
test_dir__is_cluster_needs_a_yaml_file(void **state)
{
	(void)state;
	assert_false(decl_dir_is_cluster("tests/golden/decl/016-no-yaml"));
	assert_false(decl_dir_is_cluster("no/such/folder"));
	assert_true(decl_dir_is_cluster("examples/clusters/ledger"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_dir__dump_file_loads_with_the_dump_limit),
	    cmocka_unit_test(test_dir__is_cluster_needs_a_yaml_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
