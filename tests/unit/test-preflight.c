/* tests/unit/test-preflight.c: reconcile/plan/preflight.c: the ADR-0084
 * queue-delete preflight of one node (D1-D6 and the counts), called directly on
 * hand-built declarations and snapshots (recon-fixture.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../reconcile/plan/plan.h"
#include "recon-fixture.h"

static bool
warned(const struct plan_step *np, const char *needle)
{
	size_t i;

	for (i = 0; i < np->nwarnings; i++)
		if (strstr(np->warnings[i], needle) != NULL)
			return true;
	return false;
}

/* A queue 'orders' on 'orders' and a divert 'audit-copy' from 'audit-in'
 * into 'orders' on node 0. */
static void
q3_fixture(struct fx *f, enum decl_mode mode)
{
	fx_init(f, mode, 1);
	fx_lqueue(f, 0, "orders", "orders", 0, 5);
	fx_lqueue(f, 0, "audit-in", "audit-in", 0, 0);
	fx_ldivert(f, 0, "audit-copy", "audit-in", "orders");
}

static void
test_preflight__d1_last_queue_removes_forwarding_divert(void **state)
{
	struct plan_step np = {0};
	struct plan_queue_delete_ctx ctx = {0};
	struct fx f;

	(void)state;
	q3_fixture(&f, DECL_STUDIO_MANAGED);
	ctx.decl = &f.c;
	plan_preflight_queue_delete(&np, &f.s.nodes[0], "orders", &ctx, false);
	assert_int_equal(np.outcome, PLAN_OUT_WOULD_APPLY);
	assert_int_equal(np.nremoved, 1);
	assert_string_equal(np.removed[0].config.name, "audit-copy");
	assert_string_equal(np.removed[0].config.address, "audit-in");
	assert_false(np.removed[0].declared);
	assert_int_equal(np.nops, 2);
	assert_int_equal(np.ops[0].kind, RECON_OP_DESTROY_DIVERT);
	assert_int_equal(np.ops[1].kind, RECON_OP_DESTROY_QUEUE);
	assert_false(np.ops[1].remove_consumers);
	assert_true(warned(&np,
	    "broker.xml, the broker creates it again at the next restart"));
	assert_int_equal(np.destroyed_messages, 5);
	plan_step_release(&np);
	fx_free(&f);
}

static void
test_preflight__d1_other_queue_keeps_divert(void **state)
{
	struct plan_step np = {0};
	struct plan_queue_delete_ctx ctx = {0};
	struct fx f;

	(void)state;
	q3_fixture(&f, DECL_STUDIO_MANAGED);
	fx_lqueue(&f, 0, "orders", "orders-b", 0, 0);
	ctx.decl = &f.c;
	plan_preflight_queue_delete(&np, &f.s.nodes[0], "orders", &ctx, false);
	assert_int_equal(np.nremoved, 0);
	assert_int_equal(np.nkept, 1);
	assert_non_null(strstr(np.kept[0].reason, "not dependent"));
	assert_non_null(strstr(np.kept[0].reason, "'orders-b'"));
	assert_int_equal(np.nops, 1);
	assert_false(warned(&np, "broker.xml"));
	plan_step_release(&np);
	fx_free(&f);
}

static void
test_preflight__d1_created_queue_counts_as_remaining(void **state)
{
	const char *cq[] = {"orders-new"}, *ca[] = {"orders"};
	struct plan_step np = {0};
	struct plan_queue_delete_ctx ctx = {0};
	struct fx f;

	(void)state;
	q3_fixture(&f, DECL_STUDIO_MANAGED);
	ctx.decl = &f.c;
	ctx.created_queues = cq;
	ctx.created_queue_addresses = ca;
	ctx.ncreated = 1;
	plan_preflight_queue_delete(&np, &f.s.nodes[0], "orders", &ctx, false);
	assert_int_equal(np.nremoved, 0);
	assert_int_equal(np.nkept, 1);
	assert_non_null(strstr(np.kept[0].reason, "'orders-new'"));
	plan_step_release(&np);
	fx_free(&f);
}

static void
test_preflight__d2_studio_declared_with_queue_recreates(void **state)
{
	struct plan_step np = {0};
	struct plan_queue_delete_ctx ctx = {0};
	struct fx f;

	(void)state;
	q3_fixture(&f, DECL_STUDIO_MANAGED);
	fx_queue(&f, "orders", "orders");
	fx_queue(&f, "audit-in", "audit-in");
	fx_divert(&f, "audit-copy", "audit-in", "orders");
	ctx.decl = &f.c;
	plan_preflight_queue_delete(&np, &f.s.nodes[0], "orders", &ctx, false);
	assert_int_equal(np.nremoved, 1);
	assert_true(np.removed[0].declared);
	assert_true(warned(&np,
	    "re-creates queue 'orders' on 'orders' and the divert; remove the divert from the declaration"));
	plan_step_release(&np);
	fx_free(&f);
}

static void
test_preflight__d2_studio_declared_without_queue_nothing_consumes(void **state)
{
	struct plan_step np = {0};
	struct plan_queue_delete_ctx ctx = {0};
	struct fx f;

	(void)state;
	q3_fixture(&f, DECL_STUDIO_MANAGED);
	fx_divert(&f, "audit-copy", "audit-in", "orders");
	ctx.decl = &f.c;
	plan_preflight_queue_delete(&np, &f.s.nodes[0], "orders", &ctx, false);
	assert_true(warned(&np,
	    "validation refuses the next apply (\"Nothing consumes at orders\") until the declaration drops the divert"));
	plan_step_release(&np);
	fx_free(&f);
}

static void
test_preflight__d2_config_managed_broker_xml_carries_it(void **state)
{
	struct plan_step np = {0};
	struct plan_queue_delete_ctx ctx = {0};
	struct fx f;

	(void)state;
	q3_fixture(&f, DECL_CONFIG_MANAGED);
	fx_divert(&f, "audit-copy", "audit-in", "orders");
	ctx.decl = &f.c;
	plan_preflight_queue_delete(&np, &f.s.nodes[0], "orders", &ctx, false);
	assert_true(warned(&np,
	    "the broker.xml rendered from it still carries the divert, so the next deployment and restart bring it back"));
	assert_true(warned(&np, "at the next restart"));
	plan_step_release(&np);
	fx_free(&f);
}

static void
test_preflight__d4_source_divert_kept_with_reason(void **state)
{
	struct plan_step np = {0};
	struct plan_queue_delete_ctx ctx = {0};
	struct fx f;

	(void)state;
	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	fx_lqueue(&f, 0, "orders", "orders", 0, 0);
	fx_lqueue(&f, 0, "archive", "archive", 0, 0);
	fx_ldivert(&f, 0, "orders-archive", "orders", "archive");
	ctx.decl = &f.c;
	plan_preflight_queue_delete(&np, &f.s.nodes[0], "orders", &ctx, false);
	assert_int_equal(np.nremoved, 0);
	assert_int_equal(np.nkept, 1);
	assert_string_equal(np.kept[0].name, "orders-archive");
	assert_non_null(strstr(np.kept[0].reason,
	    "its source is the queue's address: it still routes what producers send to 'orders'"));
	plan_step_release(&np);
	fx_free(&f);
}

static void
test_preflight__d5_tap_fates(void **state)
{
	struct plan_step np = {0};
	struct plan_queue_delete_ctx ctx = {0};
	struct fx f;

	(void)state;
	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	fx_capture(&f, "dbg", "orders*");
	fx_capture(&f, "all", "*");
	fx_lqueue(&f, 0, "orders", "orders", 0, 0);
	fx_lqueue(&f, 0, "orders", "audit", 0, 0);
	fx_ldivert(&f, 0, "__capture.all.orders", "orders", "__capture.all");
	fx_ldivert(&f, 0, "__capture.dbg.orders", "orders", "__capture.dbg");
	ctx.decl = &f.c;
	plan_preflight_queue_delete(&np, &f.s.nodes[0], "orders", &ctx, false);
	assert_int_equal(np.ntaps, 2);
	assert_string_equal(np.taps[0].capture, "all");
	assert_int_equal(np.taps[0].fate, PLAN_TAP_KEPT);
	assert_non_null(strstr(np.taps[0].reason,
	    "still covers 'orders' through queue 'audit'"));
	assert_string_equal(np.taps[1].capture, "dbg");
	assert_int_equal(np.taps[1].fate, PLAN_TAP_REMOVED_BY_SUBSCRIPTION);
	assert_int_equal(np.nremoved, 0);
	assert_int_equal(np.nops, 1); /* never a destroyDivert for a tap */
	plan_step_release(&np);
	fx_free(&f);
}

static void
test_preflight__d6_consumers_refused_without_flag(void **state)
{
	struct plan_step np = {0};
	struct plan_queue_delete_ctx ctx = {0};
	struct fx f;

	(void)state;
	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	fx_lqueue(&f, 0, "orders", "orders", 2, 0);
	ctx.decl = &f.c;
	plan_preflight_queue_delete(&np, &f.s.nodes[0], "orders", &ctx, false);
	assert_int_equal(np.outcome, PLAN_OUT_REFUSED);
	assert_string_equal(np.refusal, "HAS_CONSUMERS");
	assert_int_equal(np.refusal_kind, RECON_HAS_CONSUMERS);
	assert_string_equal(np.message,
	    "queue 'orders' has 2 consumers on this node");
	assert_non_null(strstr(np.next_step, "--disconnect-consumers"));
	plan_step_release(&np);
	fx_free(&f);
}

static void
test_preflight__d6_consumers_warned_with_flag(void **state)
{
	struct plan_step np = {0};
	struct plan_queue_delete_ctx ctx = {0};
	struct fx f;

	(void)state;
	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	fx_lqueue(&f, 0, "orders", "orders", 1, 0);
	ctx.decl = &f.c;
	ctx.disconnect_consumers = true;
	plan_preflight_queue_delete(&np, &f.s.nodes[0], "orders", &ctx, false);
	assert_int_equal(np.outcome, PLAN_OUT_WOULD_APPLY);
	assert_true(warned(&np,
	    "--disconnect-consumers: 1 consumer of queue 'orders' will be disconnected; a client that reconnects can create the queue again"));
	assert_true(np.ops[np.nops - 1].remove_consumers);
	plan_step_release(&np);
	fx_free(&f);
}

static void
test_preflight__unreachable_and_absent(void **state)
{
	struct plan_step np = {0}, np2 = {0};
	struct plan_queue_delete_ctx ctx = {0};
	struct fx f;

	(void)state;
	fx_init(&f, DECL_STUDIO_MANAGED, 2);
	fx_unreachable(&f, 1, "connection refused");
	ctx.decl = &f.c;
	plan_preflight_queue_delete(&np, &f.s.nodes[1], "orders", &ctx, false);
	assert_int_equal(np.outcome, PLAN_OUT_UNREACHABLE);
	assert_string_equal(np.message, "connection refused");
	plan_preflight_queue_delete(&np2, &f.s.nodes[0], "orders", &ctx, false);
	assert_int_equal(np2.outcome, PLAN_OUT_NO_CHANGE);
	plan_step_release(&np);
	plan_step_release(&np2);
	fx_free(&f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(
	        test_preflight__d1_last_queue_removes_forwarding_divert),
	    cmocka_unit_test(test_preflight__d1_other_queue_keeps_divert),
	    cmocka_unit_test(
	        test_preflight__d1_created_queue_counts_as_remaining),
	    cmocka_unit_test(
	        test_preflight__d2_studio_declared_with_queue_recreates),
	    cmocka_unit_test(
	        test_preflight__d2_studio_declared_without_queue_nothing_consumes),
	    cmocka_unit_test(
	        test_preflight__d2_config_managed_broker_xml_carries_it),
	    cmocka_unit_test(test_preflight__d4_source_divert_kept_with_reason),
	    cmocka_unit_test(test_preflight__d5_tap_fates),
	    cmocka_unit_test(test_preflight__d6_consumers_refused_without_flag),
	    cmocka_unit_test(test_preflight__d6_consumers_warned_with_flag),
	    cmocka_unit_test(test_preflight__unreachable_and_absent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
