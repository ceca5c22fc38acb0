/* tests/unit/test-capture.c: reconcile/plan/capture.c, the capture pass
 * (ADR-0084 D5) on one node, on hand-built declarations and snapshots. */
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

static const struct plan_capture_step *
find_step(const struct plan_capture_steps *s, enum plan_action_kind k,
    const char *name)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->v[i].kind == k && strcmp(s->v[i].name, name) == 0)
			return &s->v[i];
	return NULL;
}

static void
test_capture__creates_home_and_taps(void **state)
{
	struct plan_capture_steps s = {0};
	const struct plan_capture_step *st;
	struct plan_capture_ctx ctx;
	const struct recon_op *op;
	struct fx f;

	(void)state;
	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	fx_capture(&f, "dbg", "orders*");
	f.c.captures[0].ring_size = 7;
	fx_lqueue(&f, 0, "orders", "orders", 0, 0);
	fx_lqueue(&f, 0, "orders", "orders.b", 0, 0);
	fx_lqueue(&f, 0, "billing", "billing", 0, 0);
	ctx_of(&ctx, &f);
	plan_capture_pass(&s, &f.s.nodes[0], &ctx);
	assert_int_equal(s.n, 2);
	st = &s.v[0];
	assert_int_equal(st->kind, PLAN_ACT_CREATE_CAPTURE);
	assert_string_equal(st->name, "__capture.dbg");
	assert_int_equal(st->np.nops, 2);
	assert_int_equal(st->np.ops[0].kind, RECON_OP_CREATE_ADDRESS);
	assert_int_equal(st->np.ops[0].routing, DECL_ANYCAST);
	op = &st->np.ops[1];
	assert_int_equal(op->kind, RECON_OP_CREATE_QUEUE);
	assert_int_equal(op->queue->ring_size, 7);
	assert_false(op->queue->durable);
	assert_int_equal(op->queue->routing, DECL_ANYCAST);
	st = &s.v[1];
	assert_int_equal(st->kind, PLAN_ACT_CREATE_TAP);
	assert_string_equal(st->name, "__capture.dbg.orders");
	assert_string_equal(st->address, "orders");
	op = &st->np.ops[0];
	assert_int_equal(op->kind, RECON_OP_CREATE_DIVERT);
	assert_string_equal(op->divert->address, "orders");
	assert_string_equal(op->divert->forwarding_address, "__capture.dbg");
	assert_string_equal(op->divert->routing_name, "__capture.dbg.orders");
	assert_false(op->divert->exclusive);
	assert_int_equal(op->divert->routing_type, DECL_DIVERT_ANYCAST);
	assert_non_null(strstr(st->np.message, "'orders', 'orders.b'"));
	plan_capture_steps_release(&s);
	fx_free(&f);
}

static void
test_capture__applied_node_is_quiet(void **state)
{
	struct plan_capture_steps s = {0};
	struct plan_capture_ctx ctx;
	struct fx f;

	(void)state;
	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	fx_capture(&f, "dbg", "orders*");
	fx_lqueue(&f, 0, "orders", "orders", 0, 0);
	applied(&f, 0, "orders");
	ctx_of(&ctx, &f);
	plan_capture_pass(&s, &f.s.nodes[0], &ctx);
	assert_int_equal(s.n, 0);
	plan_capture_steps_release(&s);
	fx_free(&f);
}

static void
test_capture__last_matching_queue_gone_removes_tap(void **state)
{
	const char *del[] = {"orders"};
	struct plan_capture_steps s = {0};
	const struct plan_capture_step *st;
	struct plan_capture_ctx ctx;
	struct fx f;

	(void)state;
	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	fx_capture(&f, "dbg", "orders*");
	fx_lqueue(&f, 0, "orders", "orders", 0, 0);
	fx_lqueue(&f, 0, "orders", "audit", 0, 0); /* does not match */
	applied(&f, 0, "orders");
	ctx_of(&ctx, &f);
	ctx.deleted_queues = del;
	ctx.ndeleted_queues = 1;
	plan_capture_pass(&s, &f.s.nodes[0], &ctx);
	assert_int_equal(s.n, 1);
	st = find_step(&s, PLAN_ACT_DELETE_TAP, "__capture.dbg.orders");
	assert_non_null(st);
	assert_int_equal(st->np.nops, 1);
	assert_int_equal(st->np.ops[0].kind, RECON_OP_DESTROY_DIVERT);
	assert_string_equal(st->np.ops[0].divert->forwarding_address,
	    "__capture.dbg");
	assert_true(st->np.observed.present);
	plan_capture_steps_release(&s);
	fx_free(&f);
}

static void
test_capture__created_and_moved_queues(void **state)
{
	const char *cq[] = {"orders", "orders.new"};
	const char *ca[] = {"orders-v2", "fresh"};
	struct plan_capture_steps s = {0};
	struct plan_capture_ctx ctx;
	struct fx f;

	(void)state;
	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	fx_capture(&f, "dbg", "orders*");
	fx_lqueue(&f, 0, "orders", "orders", 0, 0);
	applied(&f, 0, "orders");
	ctx_of(&ctx, &f);
	ctx.created_queues = cq; /* 'orders' is recreated on 'orders-v2' */
	ctx.created_queue_addresses = ca;
	ctx.ncreated = 2;
	plan_capture_pass(&s, &f.s.nodes[0], &ctx);
	assert_int_equal(s.n, 3);
	assert_non_null(
	    find_step(&s, PLAN_ACT_CREATE_TAP, "__capture.dbg.orders-v2"));
	assert_non_null(
	    find_step(&s, PLAN_ACT_CREATE_TAP, "__capture.dbg.fresh"));
	assert_non_null(
	    find_step(&s, PLAN_ACT_DELETE_TAP, "__capture.dbg.orders"));
	plan_capture_steps_release(&s);
	fx_free(&f);
}

static void
test_capture__covers_rule(void **state)
{
	(void)state;
	assert_true(plan_capture_covers("__capture.", "orders*", "orders.x",
	    "orders", false));
	assert_false(plan_capture_covers("__capture.", "orders*", "orders",
	    "orders", true));
	assert_false(plan_capture_covers("__capture.", "*", "__capture.dbg",
	    "__capture.dbg", false));
	assert_false(plan_capture_covers("__capture.", "*", "q",
	    "__capture.dbg", false));
	assert_false(plan_capture_covers("__capture.", "orders?", "orders",
	    "orders", false));
	assert_true(plan_capture_covers("__capture.", "orders?", "orders1",
	    "orders", false));
}

static void
test_capture__ring_change_and_recreate(void **state)
{
	struct plan_capture_steps s = {0};
	const struct plan_capture_step *st;
	struct plan_capture_ctx ctx;
	struct recon_queue *q;
	struct fx f;

	(void)state;
	fx_init(&f, DECL_STUDIO_MANAGED, 2);
	fx_capture(&f, "dbg", "nothing-matches");
	q = fx_lqueue(&f, 0, "__capture.dbg", "__capture.dbg", 0, 0);
	q->durable = false;
	q->ring_size = 5;
	q = fx_lqueue(&f, 1, "__capture.dbg", "__capture.dbg", 0, 3);
	q->ring_size = 1000; /* durable: updateQueue cannot change it */
	ctx_of(&ctx, &f);
	plan_capture_pass(&s, &f.s.nodes[0], &ctx);
	assert_int_equal(s.n, 1);
	st = &s.v[0];
	assert_int_equal(st->kind, PLAN_ACT_CHANGE_CAPTURE);
	assert_string_equal(st->np.message,
	    "the ring queue differs: ring-size");
	assert_int_equal(st->np.ops[0].kind, RECON_OP_UPDATE_QUEUE);
	assert_int_equal(st->np.ops[0].queue->ring_size, 1000);
	plan_capture_steps_release(&s);
	plan_capture_pass(&s, &f.s.nodes[1], &ctx);
	assert_int_equal(s.n, 1);
	st = &s.v[0];
	assert_int_equal(st->np.nops, 2);
	assert_int_equal(st->np.ops[0].kind, RECON_OP_DESTROY_QUEUE);
	assert_int_equal(st->np.ops[1].kind, RECON_OP_CREATE_QUEUE);
	assert_non_null(strstr(st->np.message, "durable"));
	plan_capture_steps_release(&s);
	fx_free(&f);
}

static void
test_capture__unreachable_node_has_no_steps(void **state)
{
	struct plan_capture_steps s = {0};
	struct plan_capture_ctx ctx;
	struct fx f;

	(void)state;
	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	fx_capture(&f, "dbg", "*");
	fx_unreachable(&f, 0, "connection refused");
	ctx_of(&ctx, &f);
	plan_capture_pass(&s, &f.s.nodes[0], &ctx);
	assert_int_equal(s.n, 0);
	plan_capture_pass(&s, NULL, &ctx);
	assert_int_equal(s.n, 0);
	fx_free(&f);
}

/* docs/policy.md, managed: false: a queue the pattern matches that is, or
 * is on an address, declared unmanaged covers nothing: no tap goes on its
 * address, the pass says so in skipped, and its tap from before goes. */
static void
test_capture__leaves_unmanaged_out(void **state)
{
	struct plan_capture_steps s = {0};
	const struct plan_capture_step *st;
	struct plan_capture_ctx ctx;
	char **ua, **uq;
	size_t nua, nuq;
	struct fx f;

	(void)state;
	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	fx_capture(&f, "dbg", "orders*");
	fx_queue(&f, "orders", "orders");
	fx_queue(&f, "legacy", "orders.legacy");
	f.c.addresses[1].policy.unmanaged = true;
	fx_queue(&f, "mixed", "orders.mixed")->policy.unmanaged = true;
	fx_queue(&f, "mixed", "orders.mixed2");
	plan_capture_unmanaged(&f.c, &ua, &nua, &uq, &nuq);
	assert_int_equal(nua, 1);
	assert_string_equal(ua[0], "legacy");
	assert_int_equal(nuq, 2);
	assert_string_equal(uq[0], "orders.legacy");
	assert_string_equal(uq[1], "orders.mixed");
	applied(&f, 0, "orders");
	fx_lqueue(&f, 0, "orders", "orders", 0, 0);
	fx_lqueue(&f, 0, "legacy", "orders.legacy", 0, 0);
	fx_lqueue(&f, 0, "mixed", "orders.mixed", 0, 0);
	fx_ldivert(&f, 0, "__capture.dbg.legacy", "legacy", "__capture.dbg")
	    ->routing_type = DECL_DIVERT_ANYCAST;
	ctx_of(&ctx, &f);
	ctx.unmanaged_addresses = (const char *const *)ua;
	ctx.nunmanaged_addresses = nua;
	ctx.unmanaged_queues = (const char *const *)uq;
	ctx.nunmanaged_queues = nuq;
	plan_capture_pass(&s, &f.s.nodes[0], &ctx);
	/* orders.mixed2 is declared, not live: mixed has no tap to make */
	assert_int_equal(s.n, 1);
	st = find_step(&s, PLAN_ACT_DELETE_TAP, "__capture.dbg.legacy");
	assert_non_null(st);
	assert_non_null(strstr(st->np.message,
	    "address 'legacy' is declared with managed: false"));
	assert_null(find_step(&s, PLAN_ACT_CREATE_TAP, "__capture.dbg.mixed"));
	assert_int_equal(s.nskipped, 2);
	assert_string_equal(s.skipped[0],
	    "capture 'dbg' (pattern 'orders*') leaves queue 'orders.legacy' on 'legacy' out: its address is declared with managed: false (no tap for it)");
	assert_string_equal(s.skipped[1],
	    "capture 'dbg' (pattern 'orders*') leaves queue 'orders.mixed' on 'mixed' out: it is declared with managed: false (no tap for it)");
	plan_capture_steps_release(&s);
	/* the same node without the policy: taps on both */
	ctx.nunmanaged_addresses = ctx.nunmanaged_queues = 0;
	plan_capture_pass(&s, &f.s.nodes[0], &ctx);
	assert_non_null(
	    find_step(&s, PLAN_ACT_CREATE_TAP, "__capture.dbg.mixed"));
	assert_null(find_step(&s, PLAN_ACT_DELETE_TAP, "__capture.dbg.legacy"));
	assert_int_equal(s.nskipped, 0);
	plan_capture_steps_release(&s);
	fx_strs_free(ua, nua);
	fx_strs_free(uq, nuq);
	fx_free(&f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_capture__creates_home_and_taps),
	    cmocka_unit_test(test_capture__applied_node_is_quiet),
	    cmocka_unit_test(
	        test_capture__last_matching_queue_gone_removes_tap),
	    cmocka_unit_test(test_capture__created_and_moved_queues),
	    cmocka_unit_test(test_capture__covers_rule),
	    cmocka_unit_test(test_capture__ring_change_and_recreate),
	    cmocka_unit_test(test_capture__unreachable_node_has_no_steps),
	    cmocka_unit_test(test_capture__leaves_unmanaged_out),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
