/* tests/unit/test-diff-delete.c: reconcile/plan/diff-delete.c: the three-way
 * diff, removal half: only what the managed set holds and the declaration no
 * longer does is deleted (creates first), taps are never touched, the rest
 * is unmanaged; the bulk cap (ADR-0084 D7); a plan whose unread nodes are
 * all that is left to compare is UNREACHABLE, never NO_CHANGE. */
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

static void
test_diff_delete__no_inventory_deletes_nothing(void **state)
{
	struct plan_managed m = {0};
	struct plan *p;
	struct fx f;

	(void)state;
	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	fx_lqueue(&f, 0, "legacy", "legacy", 0, 3);
	p = plan_build(&f.c, &m, &f.s, &no_opts);
	assert_int_equal(p->outcome, PLAN_OUT_NO_CHANGE);
	assert_int_equal(p->nactions, 0);
	assert_int_equal(p->nunmanaged, 2);
	assert_string_equal(p->unmanaged[0].kind, "address");
	assert_string_equal(p->unmanaged[1].kind, "queue");
	assert_string_equal(p->unmanaged[1].name, "legacy");
	plan_free(p);
	fx_free(&f);
}

static void
test_diff_delete__managed_removed_is_deleted_order_creates_first(void **state)
{
	const struct plan_step *np;
	struct plan_managed m = {0};
	struct plan *p;
	struct fx f;

	(void)state;
	/* base: orders/orders + divert audit-copy into orders */
	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	fx_queue(&f, "orders", "orders");
	fx_queue(&f, "audit-in", "audit-in");
	fx_divert(&f, "audit-copy", "audit-in", "orders");
	managed_of(&m, &f);
	fx_free_decl(&f.c);
	memset(&f.c, 0, sizeof(f.c));
	fx_free(&f);
	/* new: orders replaced by orders-v2 on the same address */
	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	fx_queue(&f, "orders", "orders-v2");
	fx_queue(&f, "audit-in", "audit-in");
	fx_divert(&f, "audit-copy", "audit-in", "orders");
	fx_lqueue(&f, 0, "orders", "orders", 0, 4);
	fx_lqueue(&f, 0, "audit-in", "audit-in", 0, 0);
	fx_ldivert(&f, 0, "audit-copy", "audit-in", "orders");
	p = plan_build(&f.c, &m, &f.s, &no_opts);
	assert_int_equal(p->outcome, PLAN_OUT_WOULD_APPLY);
	assert_int_equal(p->nactions, 2);
	assert_int_equal(p->actions[0].kind, PLAN_ACT_CREATE_QUEUE);
	assert_int_equal(p->actions[1].kind, PLAN_ACT_DELETE_QUEUE);
	np = step(p, PLAN_ACT_DELETE_QUEUE, "orders", 0);
	assert_non_null(np);
	assert_int_equal(np->nremoved, 0);
	assert_int_equal(np->nkept, 1);
	assert_non_null(strstr(np->kept[0].reason, "'orders-v2'"));
	assert_true(p->actions[1].destroys_messages);
	assert_int_equal(p->destroyed_messages, 4);
	plan_free(p);
	plan_managed_release(&m);
	fx_free(&f);
}

static void
test_diff_delete__d7_bulk_cap(void **state)
{
	struct plan_managed m = {0};
	struct plan *p;
	struct fx f;
	char *c;

	(void)state;
	fx_init(&f, DECL_STUDIO_MANAGED, 2);
	fx_queue(&f, "orders", "orders");
	managed_of(&m, &f);
	fx_free_decl(&f.c);
	memset(&f.c, 0, sizeof(f.c));
	fx_free(&f);
	fx_init(&f, DECL_STUDIO_MANAGED, 2);
	f.c.settings.max_destroyed_messages = 1000;
	fx_lqueue(&f, 0, "orders", "orders", 0, 600);
	fx_lqueue(&f, 1, "orders", "orders", 0, 500);
	p = plan_build(&f.c, &m, &f.s, &no_opts);
	assert_int_equal(p->outcome, PLAN_OUT_REFUSED);
	assert_string_equal(p->refusal, "BULK_CAP");
	assert_string_equal(p->message,
	    "the plan destroys 1100 messages across its nodes, 100 over the cap of 1000 (settings.max-destroyed-messages)");
	assert_non_null(strstr(p->next_step,
	    "raise settings.max-destroyed-messages to at least 1100"));
	c = plan_confirmation(p);
	assert_string_equal(c, "");
	free(c);
	plan_free(p);
	f.c.settings.max_destroyed_messages = 1100;
	p = plan_build(&f.c, &m, &f.s, &no_opts);
	assert_int_equal(p->outcome, PLAN_OUT_WOULD_APPLY);
	c = plan_confirmation(p);
	assert_true(
	    strncmp(c, "delete 1 queue, 1 address on shop-eu ", 37) == 0);
	assert_int_equal(strlen(c), 37 + PLAN_CONFIRM_HEX);
	free(c);
	plan_free(p);
	plan_managed_release(&m);
	fx_free(&f);
}

static void
test_diff_delete__taps_never_touched_by_diff(void **state)
{
	struct plan_managed m = {0};
	struct plan *p;
	struct fx f;

	(void)state;
	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	fx_queue(&f, "orders", "orders");
	fx_lqueue(&f, 0, "orders", "orders", 0, 0);
	fx_ldivert(&f, 0, "__capture.dbg.orders", "orders", "__capture.dbg");
	managed_of(&m, &f);
	p = plan_build(&f.c, &m, &f.s, &no_opts);
	assert_int_equal(p->nactions, 0);
	assert_int_equal(p->nunmanaged, 0);
	plan_free(p);
	plan_managed_release(&m);
	fx_free(&f);
}

static void
test_diff_delete__only_unread_node_left_is_unreachable(void **state)
{
	struct plan_managed m = {0};
	char *c;
	struct plan *p;
	struct fx f;

	(void)state;
	fx_init(&f, DECL_STUDIO_MANAGED, 2);
	fx_queue(&f, "orders", "orders");
	fx_lqueue(&f, 0, "orders", "orders", 0, 0);
	fx_unreachable(&f, 1, "connection refused");
	p = plan_build(&f.c, &m, &f.s, &no_opts);
	assert_int_equal(p->outcome, PLAN_OUT_UNREACHABLE);
	assert_int_equal(p->nactions, 0);
	assert_string_equal(p->refusal, "UNREACHABLE");
	assert_string_equal(p->message,
	    "node 'broker-b' could not be read (connection refused), so it was not compared with the declaration");
	assert_non_null(p->next_step);
	c = plan_confirmation(p);
	assert_string_equal(c, "");
	free(c);
	plan_free(p);
	fx_free(&f);
}

static void
test_diff_delete__unread_kinds_named(void **state)
{
	struct plan_managed m = {0};
	struct plan *p;
	struct fx f;

	(void)state;
	/* both TIMEOUT: the plan's refusal is TIMEOUT */
	fx_init(&f, DECL_STUDIO_MANAGED, 2);
	fx_queue(&f, "orders", "orders");
	fx_unreachable(&f, 0, "no reply");
	fx_unreachable(&f, 1, "no reply");
	f.s.nodes[0].refusal.kind = RECON_TIMEOUT;
	f.s.nodes[1].refusal.kind = RECON_TIMEOUT;
	p = plan_build(&f.c, &m, &f.s, &no_opts);
	assert_int_equal(p->outcome, PLAN_OUT_UNREACHABLE);
	assert_string_equal(p->refusal, "TIMEOUT");
	assert_string_equal(p->message,
	    "2 of 2 nodes could not be read, so they were not compared with the declaration");
	plan_free(p);
	/* different kinds: UNREACHABLE */
	f.s.nodes[1].refusal.kind = RECON_UNREACHABLE;
	p = plan_build(&f.c, &m, &f.s, &no_opts);
	assert_int_equal(p->outcome, PLAN_OUT_UNREACHABLE);
	assert_string_equal(p->refusal, "UNREACHABLE");
	plan_free(p);
	fx_free(&f);
}

static void
test_diff_delete__unread_node_beside_a_change_would_apply(void **state)
{
	struct plan_managed m = {0};
	struct plan *p;
	struct fx f;

	(void)state;
	fx_init(&f, DECL_STUDIO_MANAGED, 2);
	fx_queue(&f, "orders", "orders");
	fx_unreachable(&f, 1, "connection refused");
	p = plan_build(&f.c, &m, &f.s, &no_opts);
	assert_int_equal(p->outcome, PLAN_OUT_WOULD_APPLY);
	assert_null(p->refusal);
	assert_int_equal(step(p, PLAN_ACT_CREATE_QUEUE, "orders", 1)->outcome,
	    PLAN_OUT_UNREACHABLE);
	plan_free(p);
	fx_free(&f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_diff_delete__no_inventory_deletes_nothing),
	    cmocka_unit_test(
	        test_diff_delete__managed_removed_is_deleted_order_creates_first),
	    cmocka_unit_test(test_diff_delete__d7_bulk_cap),
	    cmocka_unit_test(test_diff_delete__taps_never_touched_by_diff),
	    cmocka_unit_test(
	        test_diff_delete__only_unread_node_left_is_unreachable),
	    cmocka_unit_test(test_diff_delete__unread_kinds_named),
	    cmocka_unit_test(
	        test_diff_delete__unread_node_beside_a_change_would_apply),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
