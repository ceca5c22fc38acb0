/* tests/unit/test-preflight.c: reconcile/plan/preflight.c: the ADR-0084
 * queue-delete preflight of one node (D1-D6 and the counts, the context of
 * the plan's other actions, a recreate), called directly on hand-built
 * declarations and snapshots (recon-fixture.h). */
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

/* How many of np's warnings contain needle. */
static size_t
nwarned(const struct plan_step *np, const char *needle)
{
	size_t i, n = 0;

	for (i = 0; i < np->nwarnings; i++)
		n += strstr(np->warnings[i], needle) != NULL;
	return n;
}

/* D1, D3: every divert that forwards into the address of its last queue
 * (one of several targets counts) is removed, before the queue, and named
 * with its source and forwarding address; its whole configuration is kept
 * for the audit row. Removing a divert destroys no message (D7). */
static void
test_preflight__d1_dependent_diverts_removed_first_in_full(void **state)
{
	struct plan_step np = {0};
	struct plan_queue_delete_ctx ctx = {0};
	struct recon_divert *d;
	struct fx f;

	(void)state;
	q3_fixture(&f, DECL_STUDIO_MANAGED);
	d = &f.s.nodes[0].diverts[0]; /* audit-copy */
	d->filter = xstrdup("region = 'EU'");
	d->routing_type = DECL_DIVERT_ANYCAST;
	d->exclusive = true;
	fx_lqueue(&f, 0, "billing", "billing", 0, 0);
	fx_lqueue(&f, 0, "x", "x", 0, 0);
	fx_ldivert(&f, 0, "billing-fanout", "billing", "x , orders");
	ctx.decl = &f.c;
	plan_preflight_queue_delete(&np, &f.s.nodes[0], "orders", &ctx, false);
	assert_int_equal(np.outcome, PLAN_OUT_WOULD_APPLY);
	assert_int_equal(np.nremoved, 2);
	assert_string_equal(np.removed[0].config.name, "audit-copy");
	assert_string_equal(np.removed[0].config.address, "audit-in");
	assert_string_equal(np.removed[0].config.forwarding_address, "orders");
	assert_string_equal(np.removed[0].config.filter, "region = 'EU'");
	assert_int_equal(np.removed[0].config.routing_type,
	    DECL_DIVERT_ANYCAST);
	assert_true(np.removed[0].config.exclusive);
	assert_string_equal(np.removed[1].config.name, "billing-fanout");
	assert_string_equal(np.removed[1].config.address, "billing");
	assert_string_equal(np.removed[1].config.forwarding_address,
	    "x , orders");
	assert_int_equal(np.nkept, 0);
	assert_int_equal(np.nops, 3);
	assert_int_equal(np.ops[0].kind, RECON_OP_DESTROY_DIVERT);
	assert_string_equal(np.ops[0].name, "audit-copy");
	assert_string_equal(np.ops[0].divert->filter, "region = 'EU'");
	assert_int_equal(np.ops[1].kind, RECON_OP_DESTROY_DIVERT);
	assert_string_equal(np.ops[1].name, "billing-fanout");
	assert_int_equal(np.ops[2].kind, RECON_OP_DESTROY_QUEUE);
	assert_string_equal(np.ops[2].name, "orders");
	assert_int_equal(np.destroyed_messages, 5);
	assert_int_equal(nwarned(&np, "in this node's broker.xml"), 1);
	plan_step_release(&np);
	fx_free(&f);
}

/* D2: of two dependent diverts only the declared one is named as
 * declared, and only it gets the mode's warning; both are removed, and the
 * broker.xml caveat is said once for the node. */
static void
test_preflight__d2_only_the_declared_divert_is_named_declared(void **state)
{
	struct plan_step np = {0};
	struct plan_queue_delete_ctx ctx = {0};
	struct fx f;

	(void)state;
	q3_fixture(&f, DECL_STUDIO_MANAGED);
	fx_lqueue(&f, 0, "billing", "billing", 0, 0);
	fx_ldivert(&f, 0, "billing-copy", "billing", "orders");
	fx_divert(&f, "billing-copy", "billing", "orders");
	ctx.decl = &f.c;
	plan_preflight_queue_delete(&np, &f.s.nodes[0], "orders", &ctx, false);
	assert_int_equal(np.outcome, PLAN_OUT_WOULD_APPLY);
	assert_int_equal(np.nremoved, 2);
	assert_string_equal(np.removed[0].config.name, "audit-copy");
	assert_false(np.removed[0].declared);
	assert_string_equal(np.removed[1].config.name, "billing-copy");
	assert_true(np.removed[1].declared);
	assert_int_equal(
	    nwarned(&np, "is declared in the cluster's declaration"), 1);
	assert_true(warned(&np,
	    "divert 'billing-copy' is declared in the cluster's declaration: the removal does not stick"));
	assert_int_equal(nwarned(&np, "in this node's broker.xml"), 1);
	assert_int_equal(np.nops, 3);
	plan_step_release(&np);
	fx_free(&f);
}

/* D2 in STUDIO_MANAGED: the queues the next apply re-creates are the
 * declared ones on the forwarding address that the declared divert's
 * copies reach (its routing type, as validation's "Nothing consumes"
 * rule has it). */
static void
test_preflight__d2_recreated_queues_are_those_its_copies_reach(void **state)
{
	static const struct {
		enum decl_divert_routing rt;
		const char *want;
	} cases[] = {
	    {DECL_DIVERT_STRIP, "re-creates queue 'orders-a', 'orders-m' on "
	                        "'orders' and the divert"},
	    {DECL_DIVERT_PASS, "re-creates queue 'orders-a', 'orders-m' on "
	                       "'orders' and the divert"},
	    {DECL_DIVERT_ANYCAST, "re-creates queue 'orders-a' on 'orders' and "
	                          "the divert"},
	    {DECL_DIVERT_MULTICAST, "re-creates queue 'orders-m' on 'orders' "
	                            "and the divert"},
	};
	struct plan_queue_delete_ctx ctx = {0};
	struct plan_step np;
	struct fx f;
	size_t i;

	(void)state;
	q3_fixture(&f, DECL_STUDIO_MANAGED);
	fx_address(&f, "orders", DECL_ANYCAST | DECL_MULTICAST);
	fx_queue(&f, "orders", "orders-a");
	fx_queue(&f, "orders", "orders-m")->routing = DECL_MULTICAST;
	fx_divert(&f, "audit-copy", "audit-in", "orders");
	ctx.decl = &f.c;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		f.c.diverts[0].routing_type = cases[i].rt;
		memset(&np, 0, sizeof(np));
		plan_preflight_queue_delete(&np, &f.s.nodes[0], "orders", &ctx,
		    false);
		assert_int_equal(np.nremoved, 1);
		assert_true(np.removed[0].declared);
		if (!warned(&np, cases[i].want))
			fail_msg("routing type %s: no warning \"%s\"",
			    decl_divert_routing_name(cases[i].rt),
			    cases[i].want);
		plan_step_release(&np);
	}
	fx_free(&f);
}

/* D4: a divert whose source is the queue's address stays, named with its
 * source, forwarding address and reason, and is never destroyed, also
 * beside a dependent divert that goes. */
static void
test_preflight__d4_source_divert_kept_beside_a_dependent_one(void **state)
{
	struct plan_step np = {0};
	struct plan_queue_delete_ctx ctx = {0};
	struct fx f;

	(void)state;
	q3_fixture(&f, DECL_STUDIO_MANAGED);
	fx_lqueue(&f, 0, "archive", "archive", 0, 0);
	fx_ldivert(&f, 0, "orders-archive", "orders", "archive");
	ctx.decl = &f.c;
	plan_preflight_queue_delete(&np, &f.s.nodes[0], "orders", &ctx, false);
	assert_int_equal(np.outcome, PLAN_OUT_WOULD_APPLY);
	assert_int_equal(np.nremoved, 1);
	assert_string_equal(np.removed[0].config.name, "audit-copy");
	assert_int_equal(np.nkept, 1);
	assert_string_equal(np.kept[0].name, "orders-archive");
	assert_string_equal(np.kept[0].address, "orders");
	assert_string_equal(np.kept[0].forwarding_address, "archive");
	assert_non_null(strstr(np.kept[0].reason,
	    "its source is the queue's address: it still routes what producers send to 'orders'; deleting it would change where live traffic goes"));
	assert_int_equal(np.nops, 2);
	assert_string_equal(np.ops[0].name, "audit-copy");
	assert_int_equal(np.ops[1].kind, RECON_OP_DESTROY_QUEUE);
	plan_step_release(&np);
	fx_free(&f);
}

/* D5: a tap whose capture matches no queue left on the address (the
 * deleted one either) is named removed by its subscription; a tap no
 * declared capture owns is named kept; a tap on another address is not
 * named. None is ever destroyed by the delete. */
static void
test_preflight__d5_tap_unmatched_or_unowned(void **state)
{
	struct plan_step np = {0};
	struct plan_queue_delete_ctx ctx = {0};
	struct fx f;

	(void)state;
	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	fx_capture(&f, "dbg", "zz*");
	fx_lqueue(&f, 0, "orders", "orders", 0, 0);
	fx_lqueue(&f, 0, "zz", "zz", 0, 0);
	fx_ldivert(&f, 0, "__capture.dbg.orders", "orders", "__capture.dbg");
	fx_ldivert(&f, 0, "__capture.dbg.zz", "zz", "__capture.dbg");
	fx_ldivert(&f, 0, "__capture.stray.orders", "orders",
	    "__capture.stray");
	ctx.decl = &f.c;
	plan_preflight_queue_delete(&np, &f.s.nodes[0], "orders", &ctx, false);
	assert_int_equal(np.outcome, PLAN_OUT_WOULD_APPLY);
	assert_int_equal(np.ntaps, 2);
	assert_string_equal(np.taps[0].name, "__capture.dbg.orders");
	assert_string_equal(np.taps[0].capture, "dbg");
	assert_int_equal(np.taps[0].fate, PLAN_TAP_REMOVED_BY_SUBSCRIPTION);
	assert_string_equal(np.taps[0].reason,
	    "no queue left on 'orders' matches capture 'dbg' (pattern 'zz*'; it does not match 'orders' either): the capture pass that follows the delete removes the tap");
	assert_string_equal(np.taps[1].name, "__capture.stray.orders");
	assert_null(np.taps[1].capture);
	assert_int_equal(np.taps[1].fate, PLAN_TAP_KEPT);
	assert_non_null(strstr(np.taps[1].reason,
	    "no declared capture subscription owns this tap"));
	assert_int_equal(np.nremoved, 0);
	assert_int_equal(np.nkept, 0);
	assert_int_equal(np.nops, 1);
	assert_int_equal(np.ops[0].kind, RECON_OP_DESTROY_QUEUE);
	plan_step_release(&np);
	fx_free(&f);
}

/* D5 with ctx.removed_captures: a tap of a capture the same plan removes
 * is named removed by that subscription, whatever the queues. */
static void
test_preflight__d5_removed_capture_takes_its_tap(void **state)
{
	const char *gone[] = {"old"};
	struct plan_step np = {0};
	struct plan_queue_delete_ctx ctx = {0};
	struct fx f;

	(void)state;
	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	fx_lqueue(&f, 0, "orders", "orders", 0, 0);
	fx_lqueue(&f, 0, "orders", "orders-b", 0, 0);
	fx_ldivert(&f, 0, "__capture.old.orders", "orders", "__capture.old");
	ctx.decl = &f.c;
	ctx.removed_captures = gone;
	ctx.nremoved_captures = 1;
	plan_preflight_queue_delete(&np, &f.s.nodes[0], "orders", &ctx, false);
	assert_int_equal(np.ntaps, 1);
	assert_string_equal(np.taps[0].capture, "old");
	assert_int_equal(np.taps[0].fate, PLAN_TAP_REMOVED_BY_SUBSCRIPTION);
	assert_string_equal(np.taps[0].reason,
	    "capture 'old' is no longer declared: the capture pass of this plan removes every tap of it");
	assert_int_equal(np.nops, 1);
	plan_step_release(&np);
	fx_free(&f);
}

/* D6 and the counts: the step records the queue's consumers and the
 * messages its delete destroys, refused or not; the refusal and the
 * warning give the count. */
static void
test_preflight__d6_counts_consumers_and_messages(void **state)
{
	struct plan_step np = {0};
	struct plan_queue_delete_ctx ctx = {0};
	struct fx f;

	(void)state;
	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	fx_lqueue(&f, 0, "orders", "orders", 3, 7);
	ctx.decl = &f.c;
	plan_preflight_queue_delete(&np, &f.s.nodes[0], "orders", &ctx, false);
	assert_int_equal(np.outcome, PLAN_OUT_REFUSED);
	assert_string_equal(np.message,
	    "queue 'orders' has 3 consumers on this node");
	assert_int_equal(np.consumers, 3);
	assert_int_equal(np.destroyed_messages, 7);
	assert_true(np.observed.present);
	assert_int_equal(np.observed.queue->consumer_count, 3);
	assert_int_equal(np.observed.queue->message_count, 7);
	plan_step_release(&np);
	memset(&np, 0, sizeof(np));
	ctx.disconnect_consumers = true;
	plan_preflight_queue_delete(&np, &f.s.nodes[0], "orders", &ctx, false);
	assert_int_equal(np.outcome, PLAN_OUT_WOULD_APPLY);
	assert_int_equal(np.consumers, 3);
	assert_int_equal(np.destroyed_messages, 7);
	assert_true(warned(&np,
	    "--disconnect-consumers: 3 consumers of queue 'orders' will be disconnected; a client that reconnects can create the queue again if auto-create is on for address 'orders', and the agent cannot stop that"));
	assert_true(np.ops[0].remove_consumers);
	plan_step_release(&np);
	fx_free(&f);
}

/* Context: a queue the plan creates on another address does not remain on
 * this one, and a live queue the plan recreates on another address
 * (moved away) no longer does: either way the divert is dependent. */
static void
test_preflight__ctx_created_elsewhere_or_moved_away_does_not_remain(
    void **state)
{
	const char *cq[] = {"fresh"}, *ca[] = {"elsewhere"};
	const char *mq[] = {"orders-b"}, *ma[] = {"orders-v2"};
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
	assert_int_equal(np.nremoved, 1);
	assert_int_equal(np.nkept, 0);
	plan_step_release(&np);
	memset(&np, 0, sizeof(np));
	fx_lqueue(&f, 0, "orders", "orders-b", 0, 0);
	ctx.created_queues = mq;
	ctx.created_queue_addresses = ma;
	plan_preflight_queue_delete(&np, &f.s.nodes[0], "orders", &ctx, false);
	assert_int_equal(np.nremoved, 1);
	assert_string_equal(np.removed[0].config.name, "audit-copy");
	assert_int_equal(np.nkept, 0);
	plan_step_release(&np);
	fx_free(&f);
}

/* Context: a queue an earlier action of the plan deletes does not remain
 * on the address. */
static void
test_preflight__ctx_deleted_queue_does_not_remain(void **state)
{
	const char *del[] = {"orders-b"};
	struct plan_step np = {0};
	struct plan_queue_delete_ctx ctx = {0};
	struct fx f;

	(void)state;
	q3_fixture(&f, DECL_STUDIO_MANAGED);
	fx_lqueue(&f, 0, "orders", "orders-b", 0, 0);
	ctx.decl = &f.c;
	ctx.deleted_queues = del;
	ctx.ndeleted_queues = 1;
	plan_preflight_queue_delete(&np, &f.s.nodes[0], "orders", &ctx, false);
	assert_int_equal(np.nremoved, 1);
	assert_string_equal(np.removed[0].config.name, "audit-copy");
	assert_int_equal(np.nkept, 0);
	plan_step_release(&np);
	fx_free(&f);
}

/* Context: a divert an earlier action removed is neither removed again
 * nor named. */
static void
test_preflight__ctx_deleted_divert_is_not_seen_again(void **state)
{
	const char *del[] = {"audit-copy"};
	struct plan_step np = {0};
	struct plan_queue_delete_ctx ctx = {0};
	struct fx f;

	(void)state;
	q3_fixture(&f, DECL_STUDIO_MANAGED);
	ctx.decl = &f.c;
	ctx.deleted_diverts = del;
	ctx.ndeleted_diverts = 1;
	plan_preflight_queue_delete(&np, &f.s.nodes[0], "orders", &ctx, false);
	assert_int_equal(np.outcome, PLAN_OUT_WOULD_APPLY);
	assert_int_equal(np.nremoved, 0);
	assert_int_equal(np.nkept, 0);
	assert_int_equal(np.nops, 1);
	assert_int_equal(np.ops[0].kind, RECON_OP_DESTROY_QUEUE);
	assert_false(warned(&np, "broker.xml"));
	plan_step_release(&np);
	fx_free(&f);
}

/* Context (issue 4): a divert the plan points away from the queue's
 * address is judged as the plan leaves it: not dependent, not named. */
static void
test_preflight__ctx_repointed_divert_is_not_dependent(void **state)
{
	char name[] = "audit-copy", src[] = "audit-in", fwd[] = "other";
	struct recon_divert pd = {0};
	const struct recon_divert *planned[] = {&pd};
	struct plan_step np = {0};
	struct plan_queue_delete_ctx ctx = {0};
	struct fx f;

	(void)state;
	q3_fixture(&f, DECL_STUDIO_MANAGED);
	pd.name = name;
	pd.routing_name = name;
	pd.address = src;
	pd.forwarding_address = fwd;
	ctx.decl = &f.c;
	ctx.planned_diverts = planned;
	ctx.nplanned_diverts = 1;
	plan_preflight_queue_delete(&np, &f.s.nodes[0], "orders", &ctx, false);
	assert_int_equal(np.outcome, PLAN_OUT_WOULD_APPLY);
	assert_int_equal(np.nremoved, 0);
	assert_int_equal(np.nkept, 0);
	assert_int_equal(np.nops, 1);
	plan_step_release(&np);
	fx_free(&f);
}

/* Context: a divert the plan points into the queue's address (live it
 * forwards elsewhere), or creates there, is dependent as the plan leaves
 * it, and is removed in that configuration. */
static void
test_preflight__ctx_divert_pointed_at_the_address_is_dependent(void **state)
{
	char n1[] = "billing-copy", s1[] = "billing", f1[] = "orders";
	char n2[] = "new-copy", s2[] = "audit-in";
	struct recon_divert pd[2] = {{0}, {0}};
	const struct recon_divert *planned[] = {&pd[0], &pd[1]};
	struct plan_step np = {0};
	struct plan_queue_delete_ctx ctx = {0};
	struct fx f;

	(void)state;
	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	fx_lqueue(&f, 0, "orders", "orders", 0, 0);
	fx_lqueue(&f, 0, "billing", "billing", 0, 0);
	fx_lqueue(&f, 0, "other", "other", 0, 0);
	fx_ldivert(&f, 0, "billing-copy", "billing", "other");
	pd[0].name = pd[0].routing_name = n1;
	pd[0].address = s1;
	pd[0].forwarding_address = f1;
	pd[1].name = pd[1].routing_name = n2;
	pd[1].address = s2;
	pd[1].forwarding_address = f1;
	ctx.decl = &f.c;
	ctx.planned_diverts = planned;
	ctx.nplanned_diverts = 2;
	plan_preflight_queue_delete(&np, &f.s.nodes[0], "orders", &ctx, false);
	assert_int_equal(np.nremoved, 2);
	assert_string_equal(np.removed[0].config.name, "billing-copy");
	assert_string_equal(np.removed[0].config.forwarding_address, "orders");
	assert_string_equal(np.removed[1].config.name, "new-copy");
	assert_int_equal(np.nops, 3);
	assert_string_equal(np.ops[0].divert->forwarding_address, "orders");
	assert_int_equal(np.ops[2].kind, RECON_OP_DESTROY_QUEUE);
	plan_step_release(&np);
	fx_free(&f);
}

/* recreate: the queue comes back on its address in the same step, so no
 * divert depends on it and none is named (dependent, sourced there, or a
 * tap); D6 and the counts still apply. */
static void
test_preflight__recreate_judges_only_consumers_and_counts(void **state)
{
	struct plan_step np = {0};
	struct plan_queue_delete_ctx ctx = {0};
	struct fx f;

	(void)state;
	q3_fixture(&f, DECL_STUDIO_MANAGED);
	fx_lqueue_get(&f, 0, "orders")->consumer_count = 1;
	fx_capture(&f, "dbg", "orders*");
	fx_ldivert(&f, 0, "__capture.dbg.orders", "orders", "__capture.dbg");
	fx_lqueue(&f, 0, "archive", "archive", 0, 0);
	fx_ldivert(&f, 0, "orders-archive", "orders", "archive");
	ctx.decl = &f.c;
	plan_preflight_queue_delete(&np, &f.s.nodes[0], "orders", &ctx, true);
	assert_int_equal(np.outcome, PLAN_OUT_REFUSED);
	assert_string_equal(np.refusal, "HAS_CONSUMERS");
	assert_int_equal(np.consumers, 1);
	assert_int_equal(np.destroyed_messages, 5);
	assert_int_equal(np.nremoved, 0);
	assert_int_equal(np.nkept, 0);
	assert_int_equal(np.ntaps, 0);
	assert_int_equal(np.nops, 1);
	assert_int_equal(np.ops[0].kind, RECON_OP_DESTROY_QUEUE);
	assert_false(warned(&np, "broker.xml"));
	plan_step_release(&np);
	memset(&np, 0, sizeof(np));
	ctx.disconnect_consumers = true;
	plan_preflight_queue_delete(&np, &f.s.nodes[0], "orders", &ctx, true);
	assert_int_equal(np.outcome, PLAN_OUT_WOULD_APPLY);
	assert_int_equal(np.nremoved, 0);
	assert_true(warned(&np, "--disconnect-consumers: 1 consumer of queue"));
	assert_true(np.ops[0].remove_consumers);
	plan_step_release(&np);
	fx_free(&f);
}

/* docs/policy.md: a dependent divert that a protect pattern covers, that
 * is retained (in the context, or declared so) or declared managed: false
 * is never removed: kept, and the node refused with the conflict named.
 * Apply runs the same preflight with the plan's patterns and retained
 * diverts, so one that appears after the plan is refused there too. */
static void
test_preflight__policy_keeps_dependent_divert(void **state)
{
	const char *pat[] = {"audit-*"}, *kept[] = {"audit-copy"};
	struct plan_step np;
	struct plan_queue_delete_ctx ctx;
	struct fx f;
	int k;

	(void)state;
	for (k = 0; k < 4; k++) {
		memset(&np, 0, sizeof(np));
		memset(&ctx, 0, sizeof(ctx));
		q3_fixture(&f, DECL_STUDIO_MANAGED);
		ctx.decl = &f.c;
		if (k == 0) {
			ctx.protect = pat;
			ctx.nprotect = 1;
		} else if (k == 1) {
			ctx.retained_diverts = kept;
			ctx.nretained_diverts = 1;
		} else {
			/* declared, into a declared address without queue */
			fx_queue(&f, "audit-in", "audit-in");
			fx_address(&f, "orders", DECL_ANYCAST);
			fx_divert(&f, "audit-copy", "audit-in", "orders");
			if (k == 2)
				f.c.diverts[0].policy.unmanaged = true;
			else
				f.c.diverts[0].policy.deletion = DECL_RETAIN;
		}
		plan_preflight_queue_delete(&np, &f.s.nodes[0], "orders", &ctx,
		    false);
		assert_int_equal(np.outcome, PLAN_OUT_REFUSED);
		assert_string_equal(np.refusal, k == 0 ? "PROTECTED"
		                                : k == 2
		                                    ? "UNMANAGED_DEPENDENT"
		                                    : "RETAINED_DEPENDENT");
		assert_non_null(strstr(np.message, "divert 'audit-copy'"));
		assert_int_equal(np.nremoved, 0);
		assert_int_equal(np.nkept, 1);
		assert_string_equal(np.kept[0].name, "audit-copy");
		assert_int_equal(np.nops, 1);
		assert_int_equal(np.ops[0].kind, RECON_OP_DESTROY_QUEUE);
		plan_step_release(&np);
		fx_free(&f);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_preflight__policy_keeps_dependent_divert),
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
	    cmocka_unit_test(
	        test_preflight__d1_dependent_diverts_removed_first_in_full),
	    cmocka_unit_test(
	        test_preflight__d2_only_the_declared_divert_is_named_declared),
	    cmocka_unit_test(
	        test_preflight__d2_recreated_queues_are_those_its_copies_reach),
	    cmocka_unit_test(
	        test_preflight__d4_source_divert_kept_beside_a_dependent_one),
	    cmocka_unit_test(test_preflight__d5_tap_unmatched_or_unowned),
	    cmocka_unit_test(test_preflight__d5_removed_capture_takes_its_tap),
	    cmocka_unit_test(test_preflight__d6_counts_consumers_and_messages),
	    cmocka_unit_test(
	        test_preflight__ctx_created_elsewhere_or_moved_away_does_not_remain),
	    cmocka_unit_test(test_preflight__ctx_deleted_queue_does_not_remain),
	    cmocka_unit_test(
	        test_preflight__ctx_deleted_divert_is_not_seen_again),
	    cmocka_unit_test(
	        test_preflight__ctx_repointed_divert_is_not_dependent),
	    cmocka_unit_test(
	        test_preflight__ctx_divert_pointed_at_the_address_is_dependent),
	    cmocka_unit_test(
	        test_preflight__recreate_judges_only_consumers_and_counts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
