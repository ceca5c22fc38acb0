/* tests/unit/test-plan-json.c: reconcile/plan/plan-json.c: plan.json and the
 * confirmation text. */
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

static struct plan_opts dc_opts = {true, NULL, "test"};

static void
test_plan_json__confirmation_changes_with_plan(void **state)
{
	struct plan_managed m = {0};
	struct plan *p;
	struct fx f;
	char *c1, *c2;

	(void)state;
	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	fx_queue(&f, "orders", "orders");
	fx_lqueue(&f, 0, "orders", "orders", 0, 0);
	f.s.nodes[0].queues[0].max_consumers = 3;
	p = plan_build(&f.c, &m, &f.s, &no_opts);
	c1 = plan_confirmation(p);
	plan_free(p);
	f.s.nodes[0].queues[0].max_consumers = 4;
	p = plan_build(&f.c, &m, &f.s, &dc_opts);
	c2 = plan_confirmation(p);
	assert_true(strncmp(c1, "change 1 on shop-eu ", 20) == 0);
	assert_true(strncmp(c2, "change 1 on shop-eu ", 20) == 0);
	assert_string_not_equal(c1, c2);
	free(c1);
	free(c2);
	plan_free(p);
	fx_free(&f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_plan_json__confirmation_changes_with_plan),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
