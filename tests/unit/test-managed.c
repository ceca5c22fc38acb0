/* tests/unit/test-managed.c: reconcile/plan/managed.c: the managed set and
 * inventory.json. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan-fixture.h"

static void
test_managed__inventory_round_trip(void **state)
{
	struct plan_managed m = {0}, m2 = {0};
	struct err err = {0};
	struct fx f;
	char *text, *text2, *msg;

	(void)state;
	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	fx_queue(&f, "orders", "orders");
	fx_divert(&f, "d", "orders", "x");
	managed_of(&m, &f);
	text = plan_inventory_render(&m, "shop-eu");
	assert_int_equal(plan_inventory_parse(&m2, "inv.json", text,
	                     strlen(text), "shop-eu", &err),
	    0);
	text2 = plan_inventory_render(&m2, "shop-eu");
	assert_string_equal(text, text2);
	assert_true(plan_managed_has_queue(&m2, "orders"));
	assert_false(plan_managed_has_queue(&m2, "nope"));
	assert_int_equal(plan_inventory_parse(&m2, "inv.json", text,
	                     strlen(text), "ledger", &err),
	    -1);
	msg = err_render(&err);
	assert_string_equal(msg, "inv.json: 'cluster': expected 'ledger'");
	free(msg);
	err_release(&err);
	free(text);
	free(text2);
	plan_managed_release(&m);
	plan_managed_release(&m2);
	fx_free(&f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_managed__inventory_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
