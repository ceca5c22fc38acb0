/* tests/unit/test-audit.c: reconcile/apply/audit.c: the audit rows
 * (docs/audit.md). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "apply-fixture.h"

/* The whole result row of a one-node apply, pinned: the audit format is
 * a contract (docs/audit.md). */
static void
test_audit__result_row_format(void **unused)
{
	struct scen s;
	struct err err = {0};
	char *row;

	(void)unused;
	scen_init(&s, true);
	s.k.down = "broker-b";
	s.r->approver = xstrdup("alice");
	s.r->approver_uid = 1000;
	s.r->plan_digest = xstrdup("d1g");
	assert_int_equal(apply_run(s.r, s.p, &s.f.c, &s.io, &err), 0);
	row = apply_audit_render_result(s.r);
	assert_string_equal(row,
	    "{\"apply_id\":\"id1\",\"approved_at\":null,\"approver\":\"alice\","
	    "\"approver_uid\":1000,\"cluster\":\"shop-eu\",\"event\":\"result\",\"exit\":1,"
	    "\"finished_at\":null,\"format\":1,\"nodes\":[{\"detail\":"
	    "\"2 operation(s) applied\",\"kind\":null,\"node\":\"broker-a\","
	    "\"notes\":[\"delete-queue 'fwd': as planned\"],\"operations\":[{"
	    "\"act\":\"delete-queue\",\"action\":\"fwd\",\"divert\":{"
	    "\"address\":\"src\",\"exclusive\":false,\"filter-string\":\"\","
	    "\"forwarding-address\":\"fwd\",\"name\":\"d1\","
	    "\"routing-name\":\"d1\",\"routing-type\":"
	    "\"ANYCAST\"},\"name\":\"d1\",\"op\":\"destroyDivert\",\"outcome\":"
	    "\"DONE\"},{\"act\":\"delete-queue\",\"action\":\"fwd\",\"name\":"
	    "\"fwd\",\"op\":\"destroyQueue\",\"outcome\":\"DONE\","
	    "\"remove_consumers\":true}],\"outcome\":\"APPLIED\"},{\"detail\":"
	    "\"UNREACHABLE: connection refused\",\"kind\":\"UNREACHABLE\","
	    "\"node\":\"broker-b\",\"notes\":[],\"operations\":[],\"outcome\":"
	    "\"UNREACHABLE\"}],\"parameters\":{\"disconnect_consumers\":true},"
	    "\"plan_digest\":\"d1g\",\"plan_dir\":null,\"revision\":null,"
	    "\"started_at\":null}");
	free(row);
	scen_free(&s);
}

/* An apply outside its sync window by an override: both rows say who
 * overrode it, their uid and the window's verdict; without, no member. */
static void
test_audit__window_override(void **unused)
{
	struct scen s;
	struct err err = {0};
	char *row;

	(void)unused;
	scen_init(&s, true);
	s.r->approver = xstrdup("alice");
	s.r->approver_uid = 1000;
	s.r->plan_digest = xstrdup("d1g");
	assert_int_equal(apply_run(s.r, s.p, &s.f.c, &s.io, &err), 0);
	row = apply_audit_render_intent(s.r);
	assert_null(strstr(row, "window_override"));
	free(row);
	s.r->window_override = xstrdup("bob");
	s.r->window_override_uid = 1001;
	s.r->window_state = xstrdup("waiting for sync window until "
	                            "2026-12-02T22:00:00Z: outside every "
	                            "allow window");
	row = apply_audit_render_intent(s.r);
	assert_non_null(strstr(row,
	    ",\"started_at\":null,\"window_override\":{\"by\":\"bob\","
	    "\"uid\":1001,\"window\":\"waiting for sync window until "
	    "2026-12-02T22:00:00Z: outside every allow window\"}}"));
	free(row);
	row = apply_audit_render_result(s.r);
	assert_non_null(strstr(row, "\"window_override\":{\"by\":\"bob\""));
	assert_non_null(strstr(row, "\"approver\":\"alice\""));
	free(row);
	scen_free(&s);
}

/* An intent row read back: header, nodes, operations with their
 * configurations; errors name the member. */
static void
test_audit__intent_row_read_back(void **unused)
{
	struct apply_result *was = NULL;
	struct scen s;
	struct err err = {0};
	char *event = NULL, *row;
	static const char bad[] =
	    "{\"apply_id\":\"x\",\"cluster\":\"c\",\"event\":\"intent\","
	    "\"nodes\":[{\"operations\":[]}],\"plan_digest\":null,"
	    "\"started_at\":null}";

	(void)unused;
	scen_init(&s, false);
	s.r->plan_digest = xstrdup("d1g");
	s.r->started_at = xstrdup("2026-11-29T20:19:58Z");
	assert_int_equal(apply_run(s.r, s.p, &s.f.c, &s.io, &err), 0);
	assert_int_equal(apply_audit_parse(&was, &event, s.k.intent_row,
	                     strlen(s.k.intent_row), &err),
	    0);
	assert_string_equal(event, "intent");
	assert_string_equal(was->apply_id, "id1");
	assert_string_equal(was->plan_digest, "d1g");
	assert_null(was->resumes);
	assert_int_equal(was->nnodes, 2);
	assert_string_equal(was->nodes[1].node, "broker-b");
	assert_int_equal(was->nodes[0].nops, 2);
	assert_int_equal(was->nodes[0].ops[0].act, PLAN_ACT_DELETE_QUEUE);
	assert_string_equal(was->nodes[0].ops[0].action, "fwd");
	assert_int_equal(was->nodes[0].ops[0].op.kind, RECON_OP_DESTROY_DIVERT);
	assert_true(recon_divert_same(was->nodes[0].ops[0].op.divert,
	    s.r->nodes[0].ops[0].op.divert));
	assert_int_equal(was->nodes[0].ops[1].op.kind, RECON_OP_DESTROY_QUEUE);
	apply_result_free(was);
	free(event);
	/* a result row: the outcomes too */
	row = apply_audit_render_result(s.r);
	assert_int_equal(
	    apply_audit_parse(&was, &event, row, strlen(row), &err), 0);
	assert_string_equal(event, "result");
	assert_int_equal(was->nodes[0].outcome, APPLY_APPLIED);
	assert_int_equal(was->nodes[0].ops[1].state, APPLY_OP_DONE);
	assert_true(apply_result_ok(was));
	apply_result_free(was);
	free(event);
	free(row);
	assert_int_equal(
	    apply_audit_parse(&was, &event, bad, strlen(bad), &err), -1);
	assert_string_equal(err.msg, "nodes[0].node: missing");
	assert_string_equal(err.path, "audit row");
	err_release(&err);
	scen_free(&s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_audit__result_row_format),
	    cmocka_unit_test(test_audit__window_override),
	    cmocka_unit_test(test_audit__intent_row_read_back),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
