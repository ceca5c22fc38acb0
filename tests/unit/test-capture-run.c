/* tests/unit/test-capture-run.c: reconcile/apply/capture-run.c: the capture
 * pass at apply time, after the plan's operations, and on drift (ADR-0084 D5).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "apply-fixture.h"

/* A capture tap on the queue's address is named by the preflight, never
 * removed; apply re-runs it with the plan's capture subscriptions and
 * finds the same plan. */
/* D5: the queue delete never removes the tap; the capture pass that apply
 * runs after the plan's operations does, on the node as read again, and
 * its operations are in the result (not in the intent row: they are
 * decided after the plan's operations). */
static void
test_capture_run__capture_pass_removes_tap_after_queue(void **unused)
{
	struct plan_opts opts = {.revision = "r", .snapshot_source = "l"};
	struct plan_managed m = {0};
	struct apply_result *r = xcalloc(1, sizeof(*r));
	struct apply_io io;
	struct plan *p;
	struct err err = {0};
	struct fake k;
	struct fx f;
	size_t i;

	(void)unused;
	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	fx_queue(&f, "fwd", "fwd");
	fx_capture(&f, "dbg", "fw*");
	plan_managed_from_decl(&m, &f.c, "inventory", "r0");
	f.c.addresses[0].nqueues = 0;
	free(f.c.addresses[0].queues[0].name);
	fx_lqueue(&f, 0, "fwd", "fwd", 0, 0);
	fx_ldivert(&f, 0, "__capture.dbg.fwd", "fwd", "__capture.dbg");
	p = plan_build(&f.c, &m, &f.s, &opts);
	assert_int_equal(p->outcome, PLAN_OUT_WOULD_APPLY);
	assert_int_equal(p->ncaptures, 1);
	memset(&k, 0, sizeof(k));
	k.f = &f;
	fake_io(&io, &k);
	assert_int_equal(apply_run(r, p, &f.c, &io, &err), 0);
	assert_int_equal(r->nodes[0].outcome, APPLY_APPLIED);
	assert_string_equal(sbuf_str(&k.log),
	    "broker-a destroyQueue fwd\n"
	    "broker-a createAddress __capture.dbg\n"
	    "broker-a createQueue __capture.dbg\n"
	    "broker-a destroyDivert __capture.dbg.fwd\n");
	assert_null(recon_node_find_divert(&f.s.nodes[0], "__capture.dbg.fwd"));
	assert_int_equal(r->nodes[0].nops, 4);
	for (i = 0; i < r->nodes[0].nops; i++)
		if (r->nodes[0].ops[i].act == PLAN_ACT_DELETE_QUEUE)
			assert_int_equal(r->nodes[0].ops[i].op.kind,
			    RECON_OP_DESTROY_QUEUE);
	assert_int_equal(r->nodes[0].ops[3].act, PLAN_ACT_DELETE_TAP);
	assert_int_equal(r->nodes[0].ops[3].state, APPLY_OP_DONE);
	assert_string_equal(r->nodes[0].ops[3].op.divert->forwarding_address,
	    "__capture.dbg");
	assert_null(strstr(k.intent_row, "__capture.dbg.fwd"));
	apply_result_free(r);
	plan_free(p);
	plan_managed_release(&m);
	sbuf_release(&k.log);
	sbuf_release(&k.trace);
	free(k.intent_row);
	fx_free(&f);
}

/* A plan with only capture actions (a capture removed): the node has no
 * plan operation to check, and the capture pass still runs. */
static void
test_capture_run__capture_removed_everything_goes(void **unused)
{
	struct plan_opts opts = {.revision = "r", .snapshot_source = "l"};
	struct plan_managed m = {0};
	struct apply_result *r = xcalloc(1, sizeof(*r));
	struct apply_io io;
	struct plan *p;
	struct err err = {0};
	struct fake k;
	struct fx f;

	(void)unused;
	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	fx_queue(&f, "fwd", "fwd");
	fx_capture(&f, "dbg", "fw*");
	plan_managed_from_decl(&m, &f.c, "inventory", "r0");
	f.c.ncaptures = 0; /* the new declaration drops the capture */
	fx_lqueue(&f, 0, "fwd", "fwd", 0, 0);
	fx_ldivert(&f, 0, "__capture.dbg.fwd", "fwd", "__capture.dbg");
	fx_lqueue(&f, 0, "__capture.dbg", "__capture.dbg", 0, 12);
	p = plan_build(&f.c, &m, &f.s, &opts);
	assert_int_equal(p->outcome, PLAN_OUT_WOULD_APPLY);
	memset(&k, 0, sizeof(k));
	k.f = &f;
	fake_io(&io, &k);
	assert_int_equal(apply_run(r, p, &f.c, &io, &err), 0);
	assert_int_equal(r->nodes[0].outcome, APPLY_APPLIED);
	assert_string_equal(sbuf_str(&k.log),
	    "broker-a destroyDivert __capture.dbg.fwd\n"
	    "broker-a destroyQueue __capture.dbg\n"
	    "broker-a deleteAddress __capture.dbg\n");
	assert_int_equal(r->nodes[0].ops[1].act, PLAN_ACT_DELETE_CAPTURE);
	apply_result_free(r);
	plan_free(p);
	plan_managed_release(&m);
	f.c.ncaptures = 1; /* the fixture frees what it built */
	sbuf_release(&k.log);
	sbuf_release(&k.trace);
	free(k.intent_row);
	fx_free(&f);
}

/* Drift: the daemon's cycle plans the capture pass alone and runs it; a
 * second cycle finds nothing to do; an unreadable node is UNREACHABLE. */
static void
test_capture_run__drift_capture_cycle(void **unused)
{
	struct plan_opts opts = {.snapshot_source = "live"};
	struct apply_result *r;
	struct apply_io io;
	struct plan *p;
	struct fake k;
	struct fx f;
	int cycle;

	(void)unused;
	fx_init(&f, DECL_STUDIO_MANAGED, 2);
	fx_capture(&f, "dbg", "ord*");
	fx_lqueue(&f, 0, "orders", "orders", 0, 0);
	fx_lqueue(&f, 1, "billing", "billing", 0, 0);
	memset(&k, 0, sizeof(k));
	k.f = &f;
	fake_io(&io, &k);
	for (cycle = 0; cycle < 2; cycle++) {
		p = plan_captures(&f.c, NULL, &f.s, &opts);
		assert_string_equal(p->kind, "capture");
		r = xcalloc(1, sizeof(*r));
		assert_int_equal(apply_capture_pass(r, p, &f.c, &io), 0);
		if (cycle == 0) {
			assert_int_equal(p->outcome, PLAN_OUT_WOULD_APPLY);
			assert_int_equal(r->nodes[0].outcome, APPLY_APPLIED);
			assert_int_equal(r->nodes[0].nops, 3);
			assert_int_equal(r->nodes[0].ops[2].act,
			    PLAN_ACT_CREATE_TAP);
			assert_int_equal(r->nodes[1].nops, 2);
		} else {
			assert_int_equal(r->nodes[0].outcome, APPLY_SKIPPED);
			assert_int_equal(r->nodes[1].outcome, APPLY_SKIPPED);
		}
		apply_result_free(r);
		plan_free(p);
	}
	assert_string_equal(sbuf_str(&k.log),
	    "broker-a createAddress __capture.dbg\n"
	    "broker-a createQueue __capture.dbg\n"
	    "broker-a createDivert __capture.dbg.orders\n"
	    "broker-b createAddress __capture.dbg\n"
	    "broker-b createQueue __capture.dbg\n");
	k.down = "broker-b";
	p = plan_captures(&f.c, NULL, &f.s, &opts);
	r = xcalloc(1, sizeof(*r));
	assert_int_equal(apply_capture_pass(r, p, &f.c, &io), 0);
	assert_int_equal(r->nodes[1].outcome, APPLY_UNREACHABLE);
	apply_result_free(r);
	plan_free(p);
	sbuf_release(&k.log);
	sbuf_release(&k.trace);
	free(k.intent_row);
	fx_free(&f);
}

/* The capture pass of a drift cycle reads every node once, all at once. */
static void
test_capture_run__reads_drift_capture_once(void **unused)
{
	struct plan_opts opts = {.snapshot_source = "live"};
	struct apply_result *r;
	struct apply_io io;
	struct plan *p;
	struct fake k;
	struct fx f;

	(void)unused;
	fx_init(&f, DECL_STUDIO_MANAGED, 2);
	fx_capture(&f, "dbg", "ord*");
	fx_lqueue(&f, 0, "orders", "orders", 0, 0);
	fx_lqueue(&f, 1, "billing", "billing", 0, 0);
	memset(&k, 0, sizeof(k));
	k.f = &f;
	fake_io(&io, &k);
	p = plan_captures(&f.c, NULL, &f.s, &opts);
	r = xcalloc(1, sizeof(*r));
	assert_int_equal(apply_capture_pass(r, p, &f.c, &io), 0);
	/* the creates of the pass are read back: one more read of each */
	assert_string_equal(sbuf_str(&k.trace),
	    "read broker-a broker-b\n"
	    "broker-a createAddress __capture.dbg\n"
	    "broker-a createQueue __capture.dbg\n"
	    "broker-a createDivert __capture.dbg.orders\n"
	    "read broker-a\n"
	    "broker-b createAddress __capture.dbg\n"
	    "broker-b createQueue __capture.dbg\n"
	    "read broker-b\n");
	apply_result_free(r);
	plan_free(p);
	sbuf_release(&k.log);
	sbuf_release(&k.trace);
	free(k.intent_row);
	fx_free(&f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(
	        test_capture_run__capture_pass_removes_tap_after_queue),
	    cmocka_unit_test(test_capture_run__capture_removed_everything_goes),
	    cmocka_unit_test(test_capture_run__drift_capture_cycle),
	    cmocka_unit_test(test_capture_run__reads_drift_capture_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
