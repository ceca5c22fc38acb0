/* tests/unit/test-plan.c: reconcile/plan/plan.c, the plan model:
 * plan_creates_only (what auto-apply-creates may apply). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>

#include "plan-fixture.h"

/* auto-apply-creates: a capture's address and ring and a tap are creates;
 * any other capture action (a tap removed, a ring changed) is not. */
static void
test_plan__creates_only_with_captures(void **state)
{
	struct plan p;
	struct plan_action acts[3];
	struct plan_step np0[3], np1[3], np2[3];
	char q[] = "orders", ring[] = "__capture.dbg",
	     tap[] = "__capture.dbg.orders", why[] = "absent";

	(void)state;
	action_init(&acts[0], PLAN_ACT_CREATE_QUEUE, q, why, np0,
	    PLAN_OUT_WOULD_APPLY, PLAN_OUT_WOULD_APPLY);
	action_init(&acts[1], PLAN_ACT_CREATE_CAPTURE, ring, why, np1,
	    PLAN_OUT_WOULD_APPLY, PLAN_OUT_WOULD_APPLY);
	action_init(&acts[2], PLAN_ACT_CREATE_TAP, tap, why, np2,
	    PLAN_OUT_WOULD_APPLY, PLAN_OUT_WOULD_APPLY);
	plan_init(&p, acts, 3, NULL, 0);
	p.outcome = PLAN_OUT_WOULD_APPLY;
	assert_true(plan_creates_only(&p));
	acts[2].kind = PLAN_ACT_DELETE_TAP;
	assert_false(plan_creates_only(&p));
	acts[2].kind = PLAN_ACT_CHANGE_CAPTURE;
	assert_false(plan_creates_only(&p));
	acts[2].kind = PLAN_ACT_CREATE_TAP;
	p.outcome = PLAN_OUT_NO_CHANGE;
	assert_false(plan_creates_only(&p));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_plan__creates_only_with_captures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
