/* tests/unit/test-node-index.c: reconcile/live/node-index.c: the targets of
 * a forwarding address. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>
#include <string.h>

#include "../../reconcile/live/live.h"

/* The targets of a forwarding address, trimmed, empty ones kept. */
static void
test_node_index__forward_targets(void **state)
{
	const char *p = " a ,\t, b.c,,d\n", *t;
	const char *want[] = {"a", "", "b.c", "", "d"};
	size_t n, i = 0;

	(void)state;
	while (live_forward_target(&p, &t, &n)) {
		assert_true(i < 5);
		assert_int_equal(n, strlen(want[i]));
		assert_memory_equal(t, want[i], n);
		i++;
	}
	assert_int_equal(i, 5);
	p = NULL;
	assert_false(live_forward_target(&p, &t, &n));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_node_index__forward_targets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
