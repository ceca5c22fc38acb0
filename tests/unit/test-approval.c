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
	a.approved_uid = 1000;
	a.approved_user = xstrdup("alice");
	json = apply_approval_render(&a);
	assert_string_equal(json,
	    "{\n  \"approved_at\": \"2026-11-29T20:00:00Z\",\n"
	    "  \"approved_by\": \"alice\",\n  \"approved_uid\": 1000,\n"
	    "  \"approved_user\": \"alice\",\n"
	    "  \"confirmation\": \"delete 1 queue on shop-eu 0123456789ab\",\n"
	    "  \"format\": 2,\n  \"plan_digest\": "
	    "\"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\"\n"
	    "}\n");
	assert_int_equal(
	    apply_approval_parse(&b, "approval.json", json, strlen(json), &err),
	    0);
	assert_string_equal(b.approved_by, "alice");
	assert_string_equal(b.plan_digest, a.plan_digest);
	assert_int_equal(b.approved_uid, 1000);
	assert_string_equal(b.approved_user, "alice");
	free(json);
	apply_approval_release(&b);
	json = xstrdup("{\"approved_at\":\"x\",\"approved_by\":\"a\","
	               "\"approved_uid\":0,\"approved_user\":\"root\","
	               "\"confirmation\":\"c\",\"format\":2,"
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

/* text parsed as approval.json fails with msg. */
static void
refused(const char *text, const char *msg)
{
	struct apply_approval b = {0};
	struct err err = {0};

	assert_int_equal(
	    apply_approval_parse(&b, "approval.json", text, strlen(text), &err),
	    -1);
	assert_string_equal(err.path, "approval.json");
	assert_string_equal(err.msg, msg);
	err_release(&err);
	apply_approval_release(&b);
}

#define DIGEST                                                                 \
	"\"plan_digest\":\"0123456789abcdef0123456789abcdef"                   \
	"0123456789abcdef0123456789abcdef\""

/* Format 2 records who approved: a uid in range and a user name. Format 1
 * (written before the uid was recorded) is refused with what to do. */
static void
test_approval__uid_recorded_and_format_1_refused(void **unused)
{
	(void)unused;
	refused("{\"approved_at\":\"x\",\"approved_by\":\"a\","
	        "\"confirmation\":\"c\",\"format\":1," DIGEST "}",
	    "format 1: an approval written before approvals recorded the "
	    "approver's uid, which the agent needs to attribute it; approve "
	    "again");
	refused("{\"approved_at\":\"x\",\"approved_by\":\"a\","
	        "\"approved_user\":\"a\",\"confirmation\":\"c\","
	        "\"format\":2," DIGEST "}",
	    "missing member 'approved_uid'");
	refused("{\"approved_at\":\"x\",\"approved_by\":\"a\","
	        "\"approved_uid\":1,\"confirmation\":\"c\",\"format\":2," DIGEST
	        "}",
	    "missing member 'approved_user'");
	refused("{\"approved_at\":\"x\",\"approved_by\":\"a\","
	        "\"approved_uid\":-1,\"approved_user\":\"a\","
	        "\"confirmation\":\"c\",\"format\":2," DIGEST "}",
	    "approved_uid: expected a uid (an integer from 0 to 4294967294)");
	refused("{\"approved_at\":\"x\",\"approved_by\":\"a\","
	        "\"approved_uid\":4294967295,\"approved_user\":\"a\","
	        "\"confirmation\":\"c\",\"format\":2," DIGEST "}",
	    "approved_uid: expected a uid (an integer from 0 to 4294967294)");
	refused("{\"approved_at\":\"x\",\"approved_by\":\"a\","
	        "\"approved_uid\":\"0\",\"approved_user\":\"a\","
	        "\"confirmation\":\"c\",\"format\":2," DIGEST "}",
	    "approved_uid: expected a uid (an integer from 0 to 4294967294)");
	refused("{\"approved_at\":\"x\",\"approved_by\":\"a\","
	        "\"approved_uid\":0,\"approved_user\":\"a\","
	        "\"confirmation\":\"c\",\"format\":3," DIGEST "}",
	    "format: expected 2 (an approval this version can read)");
}

/* The texts are shown in logs, approval-refused.txt and the audit: a line
 * break, a control or a bidirectional character is refused, echoed
 * visibly. */
static void
test_approval__texts_are_one_visible_line(void **unused)
{
	(void)unused;
	refused("{\"approved_at\":\"x\",\"approved_by\":\"a\\nerr forged\","
	        "\"approved_uid\":0,\"approved_user\":\"a\","
	        "\"confirmation\":\"c\",\"format\":2," DIGEST "}",
	    "approved_by: 'a<U+000A>err forged' holds a control character at "
	    "byte 1; an approval's texts are one line of text without control "
	    "or bidirectional characters");
	refused("{\"approved_at\":\"x\",\"approved_by\":\"a\","
	        "\"approved_uid\":0,\"approved_user\":\"ro\\u202eot\","
	        "\"confirmation\":\"c\",\"format\":2," DIGEST "}",
	    "approved_user: 'ro<U+202E>ot' holds a bidirectional control at "
	    "byte 2; an approval's texts are one line of text without control "
	    "or bidirectional characters");
}

/* approve --override-window: written only when set, read back; any
 * other value than a boolean refused. */
static void
test_approval__override_window(void **unused)
{
	struct apply_approval a = {0}, b = {0};
	struct err err = {0};
	char *json;

	(void)unused;
	a.plan_digest = xstrdup("0123456789abcdef0123456789abcdef"
	                        "0123456789abcdef0123456789abcdef");
	a.confirmation = xstrdup("create 1 queue on shop-eu 0123456789ab");
	a.approved_by = xstrdup("alice");
	a.approved_at = xstrdup("2026-11-29T20:00:00Z");
	a.approved_uid = 1000;
	a.approved_user = xstrdup("alice");
	a.override_window = true;
	json = apply_approval_render(&a);
	assert_non_null(strstr(json, "  \"format\": 2,\n"
	                             "  \"override_window\": true,\n"
	                             "  \"plan_digest\""));
	assert_int_equal(
	    apply_approval_parse(&b, "approval.json", json, strlen(json), &err),
	    0);
	assert_true(b.override_window);
	apply_approval_release(&b);
	free(json);
	a.override_window = false;
	json = apply_approval_render(&a);
	assert_null(strstr(json, "override_window"));
	assert_int_equal(
	    apply_approval_parse(&b, "approval.json", json, strlen(json), &err),
	    0);
	assert_false(b.override_window);
	apply_approval_release(&b);
	free(json);
	json = xstrdup("{\"approved_at\":\"x\",\"approved_by\":\"a\","
	               "\"approved_uid\":0,\"approved_user\":\"root\","
	               "\"confirmation\":\"c\",\"format\":2,"
	               "\"override_window\":\"yes\",\"plan_digest\":"
	               "\"0123456789abcdef0123456789abcdef"
	               "0123456789abcdef0123456789abcdef\"}");
	assert_int_equal(
	    apply_approval_parse(&b, "approval.json", json, strlen(json), &err),
	    -1);
	assert_string_equal(err.msg, "override_window: expected true or false");
	err_release(&err);
	apply_approval_release(&b);
	free(json);
	apply_approval_release(&a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_approval__approval_round_trip_and_checks),
	    cmocka_unit_test(test_approval__uid_recorded_and_format_1_refused),
	    cmocka_unit_test(test_approval__texts_are_one_visible_line),
	    cmocka_unit_test(test_approval__override_window),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
