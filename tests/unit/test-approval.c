/* tests/unit/test-approval.c: reconcile/apply/approval.c: approval.json and the
 * checks of an approval against its plan. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "apply-fixture.h"

static void
test_approval__approval_round_trip_and_checks(void **unused)
{
	struct apply_approval a = {0}, b = {0};
	struct scen s;
	struct err err = {0};
	char *json, *want;

	(void)unused;
	a.plan_digest = xstrdup("0123456789abcdef0123456789abcdef"
	                        "0123456789abcdef0123456789abcdef");
	a.confirmation = xstrdup("delete 1 queue on shop-eu 0123456789ab");
	a.approved_by = xstrdup("alice");
	a.approved_at = xstrdup("2026-11-29T20:00:00Z");
	json = apply_approval_render(&a);
	assert_int_equal(
	    apply_approval_parse(&b, "approval.json", json, strlen(json), &err),
	    0);
	assert_string_equal(b.approved_by, "alice");
	assert_string_equal(b.plan_digest, a.plan_digest);
	free(json);
	apply_approval_release(&b);
	json = xstrdup("{\"approved_at\":\"x\",\"approved_by\":\"a\","
	               "\"confirmation\":\"c\",\"format\":1,"
	               "\"plan_digest\":\"ABC\"}");
	assert_int_equal(
	    apply_approval_parse(&b, "approval.json", json, strlen(json), &err),
	    -1);
	assert_string_equal(err.msg,
	    "plan_digest: expected 64 lower-case hex digits");
	assert_string_equal(err.path, "approval.json");
	err_release(&err);
	free(json);
	apply_approval_release(&a);

	scen_init(&s, false);
	want = plan_confirmation(s.p);
	assert_int_equal(apply_approval_check_plan(s.p, want, &err), 0);
	assert_int_equal(apply_approval_check_plan(s.p, "yes", &err), -1);
	assert_string_equal(err.msg,
	    "the confirmation text does not match this plan; type the text "
	    "shown under the approve command in plan.md, exactly");
	err_release(&err);
	s.p->outcome = PLAN_OUT_REFUSED;
	s.p->refusal = xstrdup("BULK_CAP");
	s.p->message = xstrdup("too many messages");
	s.p->next_step = xstrdup("consume them");
	assert_int_equal(apply_approval_check_plan(s.p, want, &err), -1);
	assert_string_equal(err.msg,
	    "the plan is refused (BULK_CAP: too many messages) and cannot be "
	    "approved; consume them");
	err_release(&err);
	free(want);
	scen_free(&s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_approval__approval_round_trip_and_checks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
