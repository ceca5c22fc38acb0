/* tests/unit/test-recon.c: reconcile/recon.c, the shared model: lookups
 * in a snapshot. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>
#include <stdlib.h>

#include "snapshot-fixture.h"

static void
test_recon__lookups(void **state)
{
	struct recon_snapshot *s = sample();
	const struct recon_node_snapshot *n;

	(void)state;
	n = recon_snapshot_find_node(s, "node1");
	assert_non_null(n);
	assert_null(recon_snapshot_find_node(s, "node3"));
	assert_string_equal(recon_node_find_queue(n, "orders")->address,
	    "orders");
	assert_null(recon_node_find_queue(n, "order"));
	assert_non_null(recon_node_find_address(n, "orders"));
	assert_string_equal(recon_node_find_divert(n, "audit")->routing_name,
	    "audit");
	assert_null(recon_node_find_divert(n, "orders"));
	assert_null(recon_node_find_queue(&s->nodes[1], "orders"));
	live_snapshot_free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_recon__lookups),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
