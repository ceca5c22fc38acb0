/* tests/unit/test-err.c: lib/err.c: a diagnostics list keeps the first
 * ERRLIST_CAP found and counts the rest; sorted, by file and line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/xalloc.h"
#include "decl-fixture.h"

static void
test_err__diagnostics_are_sorted_and_capped(void **state)
{
	struct decl_cluster *c = NULL;
	struct errlist l = {0};
	char *y = xstrdup(HEAD "addresses:\n"), *prev;
	int i;

	(void)state;
	for (i = 0; i < 80; i++) {
		prev = y;
		y = xasprintf("%s  - {name: a%d, routing: [anycst]}\n", prev,
		    i);
		free(prev);
	}
	assert_int_equal(parse2(&c, "version: 1\nbogus: 1\n", y, &l), -1);
	/* b.yaml's 80 errors come first in load order, a.yaml's after; the
	 * cap keeps the first 50 found, then sorts them. */
	assert_int_equal(l.n, ERRLIST_CAP);
	assert_int_equal(l.nerrors, 81);
	assert_int_equal(l.dropped, 81 - ERRLIST_CAP);
	for (i = 1; i < (int)l.n; i++)
		assert_true(
		    strcmp(l.items[i - 1].path, l.items[i].path) < 0 ||
		    (strcmp(l.items[i - 1].path, l.items[i].path) == 0 &&
		        l.items[i - 1].line <= l.items[i].line));
	T_ERR_AT(&l, "a.yaml", 2, 1, "unknown key 'bogus' in the top level");
	errlist_release(&l);
	free(y);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_err__diagnostics_are_sorted_and_capped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
