/* tests/unit/test-recon.c: reconcile/recon.c, the shared model: lookups
 * in a snapshot, the refusal kinds' names. */
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

static void
test_recon__kind_names(void **state)
{
	enum recon_kind k, back;

	(void)state;
	for (k = RECON_OK; k <= RECON_BROKER_ERROR; k++) {
		assert_int_equal(recon_kind_parse(recon_kind_name(k), &back),
		    0);
		assert_int_equal(back, k);
	}
	assert_int_equal(recon_kind_parse("has_consumers", &back), -1);
	assert_string_equal(recon_kind_name(RECON_HAS_CONSUMERS),
	    "HAS_CONSUMERS");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_recon__lookups),
	    cmocka_unit_test(test_recon__kind_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
