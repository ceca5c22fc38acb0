/* tests/unit/test-capture-diff.c: reconcile/plan/capture-diff.c: the
 * capture pass in a plan, against the state the plan's other actions leave,
 * and the captures a plan removes. */
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
#include "plan-fixture.h"

static const struct plan_action *
action(const struct plan *p, enum plan_action_kind k, const char *name)
{
	size_t i;

	for (i = 0; i < p->nactions; i++)
		if (p->actions[i].kind == k &&
		    strcmp(p->actions[i].name, name) == 0)
			return &p->actions[i];
	return NULL;
}

/* D5: every tap the preview names removed-by-subscription is removed by
 * the same plan's capture pass; a kept one is not; the queue delete's own
 * operations never touch a tap. */
static void
test_capture_diff__plan_agrees_with_preflight(void **state)
{
	struct plan_managed m = {0};
	const struct plan_action *a;
	struct plan *p;
	struct fx f;
	char *cap = xstrdup("dbg");
	char *qs[] = {xstrdup("orders.a"), xstrdup("orders.b")};
	size_t i;

	(void)state;
	fx_init(&f, DECL_STUDIO_MANAGED, 2);
	fx_capture(&f, "dbg", "orders*");
	fx_queue(&f, "orders", "orders.a");
	/* node 0: orders.b goes, orders.a stays: kept; node 1: last one */
	fx_lqueue(&f, 0, "orders", "orders.a", 0, 0);
	fx_lqueue(&f, 0, "orders", "orders.b", 0, 0);
	applied(&f, 0, "orders");
	fx_lqueue(&f, 1, "orders-b", "orders.b", 0, 0);
	fx_lqueue(&f, 1, "orders", "orders.a", 0, 0);
	applied(&f, 1, "orders");
	fx_ldivert(&f, 1, "__capture.dbg.orders-b", "orders-b", "__capture.dbg")
	    ->routing_type = DECL_DIVERT_ANYCAST;
	m.known = true;
	m.queues = qs;
	m.nqueues = 2;
	m.captures = &cap;
	m.ncaptures = 1;
	p = plan_build(&f.c, &m, &f.s, &no_opts);
	a = action(p, PLAN_ACT_DELETE_QUEUE, "orders.b");
	assert_non_null(a);
	assert_int_equal(a->nodes[0].ntaps, 1);
	assert_int_equal(a->nodes[0].taps[0].fate, PLAN_TAP_KEPT);
	assert_int_equal(a->nodes[1].ntaps, 1);
	assert_int_equal(a->nodes[1].taps[0].fate,
	    PLAN_TAP_REMOVED_BY_SUBSCRIPTION);
	for (i = 0; i < 2; i++) {
		assert_int_equal(a->nodes[i].nops, 1);
		assert_int_equal(a->nodes[i].ops[0].kind,
		    RECON_OP_DESTROY_QUEUE);
	}
	assert_null(action(p, PLAN_ACT_DELETE_TAP, "__capture.dbg.orders"));
	a = action(p, PLAN_ACT_DELETE_TAP, "__capture.dbg.orders-b");
	assert_non_null(a);
	assert_int_equal(a->nodes[0].outcome, PLAN_OUT_NO_CHANGE);
	assert_int_equal(a->nodes[1].outcome, PLAN_OUT_WOULD_APPLY);
	assert_true(p->actions[p->nactions - 1].kind == PLAN_ACT_DELETE_TAP);
	plan_free(p);
	free(cap);
	free(qs[0]);
	free(qs[1]);
	fx_free(&f);
}

static void
test_capture_diff__capture_plan_and_removed_names(void **state)
{
	struct plan_managed m = {0};
	struct plan *p;
	char *caps[] = {xstrdup("dbg"), xstrdup("old")};
	char **rm;
	size_t n;
	struct fx f;

	(void)state;
	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	fx_capture(&f, "dbg", "orders*");
	fx_lqueue(&f, 0, "orders", "orders", 0, 0);
	applied(&f, 0, "orders");
	fx_ldivert(&f, 0, "__capture.old.orders", "orders", "__capture.old");
	m.known = true;
	m.captures = caps;
	m.ncaptures = 2;
	p = plan_captures(&f.c, &m, &f.s, &no_opts);
	assert_string_equal(p->kind, "capture");
	assert_int_equal(p->nactions, 1);
	assert_int_equal(p->actions[0].kind, PLAN_ACT_DELETE_TAP);
	assert_string_equal(p->actions[0].name, "__capture.old.orders");
	assert_int_equal(p->outcome, PLAN_OUT_WOULD_APPLY);
	rm = plan_removed_captures(p, &f.c, &n);
	assert_int_equal(n, 1);
	assert_string_equal(rm[0], "old");
	free(rm[0]);
	free(rm);
	plan_free(p);
	free(caps[0]);
	free(caps[1]);
	fx_free(&f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_capture_diff__plan_agrees_with_preflight),
	    cmocka_unit_test(test_capture_diff__capture_plan_and_removed_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
