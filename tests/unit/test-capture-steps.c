/* tests/unit/test-capture-steps.c: reconcile/plan/capture-steps.c: the
 * removal half of the capture pass (a capture no longer declared loses its
 * taps, ring queue and address) and D6 for a ring queue. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture-fixture.h"

static void
test_capture_steps__removed_capture_goes_everywhere(void **state)
{
	const char *gone[] = {"dbg"};
	struct plan_capture_steps s = {0};
	const struct plan_capture_step *st;
	struct plan_capture_ctx ctx;
	struct fx f;

	(void)state;
	fx_init(&f, DECL_STUDIO_MANAGED, 2);
	fx_lqueue(&f, 0, "orders", "orders", 0, 0);
	applied(&f, 0, "orders");
	fx_ldivert(&f, 0, "__capture.dbgx.orders", "orders", "__capture.dbgx");
	fx_lqueue(&f, 1, "__capture.dbg", "__capture.dbg", 2, 0);
	fx_lqueue(&f, 1, "__capture.dbg", "someone-elses", 0, 0);
	ctx_of(&ctx, &f);
	ctx.removed = gone;
	ctx.nremoved = 1;
	plan_capture_pass(&s, &f.s.nodes[0], &ctx);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.v[0].kind, PLAN_ACT_DELETE_TAP);
	assert_string_equal(s.v[0].name, "__capture.dbg.orders");
	st = &s.v[1];
	assert_int_equal(st->kind, PLAN_ACT_DELETE_CAPTURE);
	assert_int_equal(st->np.nops, 2);
	assert_int_equal(st->np.ops[0].kind, RECON_OP_DESTROY_QUEUE);
	assert_int_equal(st->np.ops[1].kind, RECON_OP_DELETE_ADDRESS);
	plan_capture_steps_release(&s);
	plan_capture_pass(&s, &f.s.nodes[1], &ctx);
	assert_int_equal(s.n, 1);
	st = &s.v[0];
	assert_int_equal(st->np.outcome, PLAN_OUT_REFUSED);
	assert_string_equal(st->np.refusal, "HAS_CONSUMERS");
	assert_int_equal(st->np.nops, 1); /* the address keeps a binding */
	assert_int_equal(st->np.nwarnings, 1);
	plan_capture_steps_release(&s);
	ctx.disconnect_consumers = true;
	plan_capture_pass(&s, &f.s.nodes[1], &ctx);
	assert_int_equal(s.v[0].np.outcome, PLAN_OUT_WOULD_APPLY);
	assert_true(s.v[0].np.ops[0].remove_consumers);
	plan_capture_steps_release(&s);
	fx_free(&f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(
	        test_capture_steps__removed_capture_goes_everywhere),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
