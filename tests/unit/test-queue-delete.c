/* tests/unit/test-queue-delete.c: reconcile/apply/queue-delete.c: a queue
 * delete or recreate at apply time: the preflight run again on the node read
 * now and compared with the plan (stale, no-op, the operations sent). */
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
test_queue_delete__consumer_after_plan_is_stale(void **unused)
{
	struct scen s;
	struct err err = {0};

	(void)unused;
	scen_init(&s, false);
	fx_lqueue_get(&s.f, 1, "fwd")->consumer_count = 1;
	assert_int_equal(apply_run(s.r, s.p, &s.f.c, &s.io, &err), 0);
	assert_string_equal(sbuf_str(&s.k.log),
	    "broker-a destroyDivert d1\nbroker-a destroyQueue fwd\n");
	assert_int_equal(s.r->nodes[1].outcome, APPLY_REFUSED);
	assert_string_equal(s.r->nodes[1].kind, "STALE");
	assert_string_equal(s.r->nodes[1].detail,
	    "stale plan: delete-queue 'fwd': queue 'fwd' has 1 consumer on "
	    "this node (stop the consumers, or plan again with "
	    "--disconnect-consumers to close them)");
	assert_int_equal(s.r->nodes[1].nops, 0);
	assert_non_null(recon_node_find_divert(&s.f.s.nodes[1], "d1"));
	scen_free(&s);
}

static void
test_queue_delete__new_dependent_divert_is_stale(void **unused)
{
	struct scen s;
	struct err err = {0};

	(void)unused;
	scen_init(&s, false);
	fx_ldivert(&s.f, 0, "d2", "src", "fwd");
	assert_int_equal(apply_run(s.r, s.p, &s.f.c, &s.io, &err), 0);
	assert_int_equal(s.r->nodes[0].outcome, APPLY_REFUSED);
	assert_string_equal(s.r->nodes[0].detail,
	    "stale plan: delete-queue 'fwd': the diverts that depend on the "
	    "queue changed since the plan: planned 'd1', now 'd1', 'd2'; plan "
	    "again");
	assert_int_equal(s.r->nodes[1].outcome, APPLY_APPLIED);
	scen_free(&s);
}

/* H2: a queue the plan moves to another address is checked like a delete
 * on its old address at apply: a new dependent divert there is stale. */
static void
test_queue_delete__moved_queue_new_dependent_is_stale(void **unused)
{
	struct plan_opts opts = {.revision = "r", .snapshot_source = "l"};
	struct scen s;
	struct err err = {0};
	size_t i;

	(void)unused;
	memset(&s, 0, sizeof(s));
	fx_init(&s.f, DECL_STUDIO_MANAGED, 2);
	fx_queue(&s.f, "src", "src");
	fx_queue(&s.f, "fwd", "fwd");
	plan_managed_from_decl(&s.m, &s.f.c, "inventory", "rev1");
	s.f.c.addresses[1].queues[0].address = s.f.c.addresses[0].name;
	for (i = 0; i < 2; i++) {
		fx_lqueue(&s.f, i, "src", "src", 0, 0);
		fx_lqueue(&s.f, i, "fwd", "fwd", 0, 0);
		fx_ldivert(&s.f, i, "d1", "src", "fwd");
	}
	s.p = plan_build(&s.f.c, &s.m, &s.f.s, &opts);
	assert_int_equal(s.p->outcome, PLAN_OUT_WOULD_APPLY);
	assert_int_equal(s.p->actions[0].kind, PLAN_ACT_RECREATE_QUEUE);
	assert_int_equal(s.p->actions[0].nodes[0].nremoved, 1);
	fx_ldivert(&s.f, 0, "d2", "src", "fwd");
	s.k.f = &s.f;
	fake_io(&s.io, &s.k);
	s.r = xcalloc(1, sizeof(*s.r));
	s.r->apply_id = xstrdup("id1");
	s.r->cluster = xstrdup("shop-eu");
	assert_int_equal(apply_run(s.r, s.p, &s.f.c, &s.io, &err), 0);
	assert_int_equal(s.r->nodes[0].outcome, APPLY_REFUSED);
	assert_string_equal(s.r->nodes[0].detail,
	    "stale plan: recreate-queue 'fwd': the diverts that depend on the "
	    "queue changed since the plan: planned 'd1', now 'd1', 'd2'; plan "
	    "again");
	assert_int_equal(s.r->nodes[1].outcome, APPLY_APPLIED);
	assert_string_equal(sbuf_str(&s.k.log),
	    "broker-b destroyDivert d1\nbroker-b destroyQueue fwd\n"
	    "broker-b createQueue fwd\n");
	scen_free(&s);
}

static void
test_queue_delete__queue_already_gone_is_skipped(void **unused)
{
	struct scen s;
	struct recon_refusal f = {0};
	struct recon_op op = {0};
	struct err err = {0};
	char fwd[] = "fwd";

	(void)unused;
	scen_init(&s, false);
	op.name = fwd;
	assert_int_equal(destroy_divert(&s.f.s.nodes[0], "d1", &f), 0);
	assert_int_equal(destroy_queue(&s.k, &s.f.s.nodes[0], &op, &f), 0);
	/* on node b the queue is gone but its divert is still there */
	assert_int_equal(destroy_queue(&s.k, &s.f.s.nodes[1], &op, &f), 0);
	assert_int_equal(apply_run(s.r, s.p, &s.f.c, &s.io, &err), 0);
	assert_string_equal(sbuf_str(&s.k.log), "");
	assert_int_equal(s.r->nodes[0].outcome, APPLY_SKIPPED);
	assert_string_equal(s.r->nodes[0].notes[0],
	    "delete-queue 'fwd': skipped: the queue is already gone");
	assert_int_equal(s.r->nodes[1].outcome, APPLY_REFUSED);
	assert_string_equal(s.r->nodes[1].detail,
	    "stale plan: delete-queue 'fwd': the queue is already gone, but "
	    "divert 'd1' that the plan removes with it is still there; plan "
	    "again");
	scen_free(&s);
}

/* A plan made with --disconnect-consumers, consumers seen at plan time:
 * removeConsumers=true is sent. */
static void
test_queue_delete__disconnect_consumers_sends_remove_consumers(void **unused)
{
	struct plan_opts opts = {.disconnect_consumers = true,
	    .revision = "rev2",
	    .snapshot_source = "live"};
	struct scen s;
	struct err err = {0};

	(void)unused;
	scen_init(&s, true);
	fx_lqueue_get(&s.f, 0, "fwd")->consumer_count = 2;
	plan_free(s.p);
	s.p = plan_build(&s.f.c, &s.m, &s.f.s, &opts);
	assert_int_equal(s.p->actions[0].nodes[0].consumers, 2);
	assert_int_equal(apply_run(s.r, s.p, &s.f.c, &s.io, &err), 0);
	assert_int_equal(s.r->nodes[0].outcome, APPLY_APPLIED);
	assert_true(s.r->nodes[0].ops[1].op.remove_consumers);
	assert_null(recon_node_find_queue(&s.f.s.nodes[0], "fwd"));
	scen_free(&s);
}

/* Issue 5: a consumer that attached after the plan is stale even with
 * --disconnect-consumers: the flag covers the consumers the plan saw. */
static void
test_queue_delete__new_consumer_with_flag_is_stale(void **unused)
{
	struct scen s;
	struct err err = {0};

	(void)unused;
	scen_init(&s, true);
	fx_lqueue_get(&s.f, 0, "fwd")->consumer_count = 2;
	assert_int_equal(apply_run(s.r, s.p, &s.f.c, &s.io, &err), 0);
	assert_int_equal(s.r->nodes[0].outcome, APPLY_REFUSED);
	assert_string_equal(s.r->nodes[0].kind, "STALE");
	assert_string_equal(s.r->nodes[0].detail,
	    "stale plan: delete-queue 'fwd': queue 'fwd' now has 2 consumers, "
	    "0 when planned: --disconnect-consumers covers only the consumers "
	    "the plan saw; plan again");
	assert_non_null(recon_node_find_queue(&s.f.s.nodes[0], "fwd"));
	assert_int_equal(s.r->nodes[1].outcome, APPLY_APPLIED);
	scen_free(&s);
}

/* docs/policy.md: apply runs the preflight again with the plan's protect
 * patterns: a dependent divert that appeared after the plan and that a
 * pattern covers refuses the node, naming it and the pattern. */
static void
test_queue_delete__new_protected_dependent_is_refused(void **unused)
{
	struct scen s;
	struct err err = {0};

	(void)unused;
	scen_init(&s, false);
	s.p->protect = xcalloc(2, sizeof(char *));
	s.p->protect[0] = xstrdup("d2*");
	s.p->nprotect = 1;
	fx_ldivert(&s.f, 0, "d2", "src", "fwd");
	assert_int_equal(apply_run(s.r, s.p, &s.f.c, &s.io, &err), 0);
	assert_int_equal(s.r->nodes[0].outcome, APPLY_REFUSED);
	assert_non_null(strstr(s.r->nodes[0].detail,
	    "divert 'd2' would be removed with queue 'fwd' (a dependent "
	    "divert, ADR-0084 D1), but settings.protect pattern 'd2*' covers "
	    "it"));
	assert_int_equal(s.r->nodes[1].outcome, APPLY_APPLIED);
	scen_free(&s);
}

/* scen with queue fwd under delete-if-empty in the last applied
 * declaration, empty on both nodes when planned. */
static void
die_scen(struct scen *s)
{
	struct plan_opts opts = {.revision = "rev2", .snapshot_source = "live"};
	struct decl_queue *fwd;
	size_t i;

	memset(s, 0, sizeof(*s));
	fx_init(&s->f, DECL_STUDIO_MANAGED, 2);
	fx_queue(&s->f, "src", "src");
	fwd = fx_queue(&s->f, "fwd", "fwd");
	fwd->delete_if_empty = true;
	fwd->delete_if_empty_at = (struct pos){"c/a.yaml", 14, 9};
	plan_managed_from_decl(&s->m, &s->f.c, "inventory", "rev1");
	free(s->f.c.addresses[1].queues[0].name);
	s->f.c.addresses[1].nqueues = 0;
	for (i = 0; i < 2; i++) {
		fx_lqueue(&s->f, i, "src", "src", 0, 0);
		fx_lqueue(&s->f, i, "fwd", "fwd", 0, 0);
		fx_ldivert(&s->f, i, "d1", "src", "fwd")->routing_type =
		    DECL_DIVERT_ANYCAST;
	}
	s->p = plan_build(&s->f.c, &s->m, &s->f.s, &opts);
	assert_int_equal(s->p->outcome, PLAN_OUT_WOULD_APPLY);
	assert_string_equal(s->p->actions[0].delete_if_empty,
	    "delete-if-empty is set (c/a.yaml:14:9) in the last applied "
	    "declaration (revision rev1)");
	s->k.f = &s->f;
	fake_io(&s->io, &s->k);
	s->r = xcalloc(1, sizeof(*s->r));
	s->r->apply_id = xstrdup("id1");
	s->r->cluster = xstrdup("shop-eu");
}

/* delete-if-empty, checked again at apply: messages arrived on one node
 * after the plan. That node is refused HAS_MESSAGES with the count and
 * the key's place and nothing runs there (its dependent divert stays);
 * the other node deletes. The queue stays managed, with its policy. */
static void
test_queue_delete__messages_after_plan_refuse_the_node(void **unused)
{
	struct scen s;
	struct err err = {0};

	(void)unused;
	die_scen(&s);
	fx_lqueue_get(&s.f, 0, "fwd")->message_count = 5;
	assert_int_equal(apply_run(s.r, s.p, &s.f.c, &s.io, &err), 0);
	assert_string_equal(sbuf_str(&s.k.log),
	    "broker-b destroyDivert d1\nbroker-b destroyQueue fwd\n");
	assert_int_equal(s.r->nodes[0].outcome, APPLY_REFUSED);
	assert_string_equal(s.r->nodes[0].kind, "HAS_MESSAGES");
	assert_int_equal(s.r->nodes[0].nops, 0);
	assert_non_null(strstr(s.r->nodes[0].detail,
	    "queue 'fwd' holds 5 messages on broker-a; delete-if-empty is set "
	    "(c/a.yaml:14:9) in the last applied declaration (revision "
	    "rev1)"));
	assert_int_equal(s.r->nodes[1].outcome, APPLY_APPLIED);
	apply_update_managed(&s.m, s.p, s.r, &s.f.c);
	assert_true(plan_managed_has_queue(&s.m, "fwd"));
	assert_string_equal(plan_managed_delete_if_empty(&s.m, "fwd"),
	    "delete-if-empty is set (c/a.yaml:14:9)");
	scen_free(&s);

	/* still empty at apply: both nodes delete, the queue leaves the
	 * managed set and its policy with it */
	die_scen(&s);
	assert_int_equal(apply_run(s.r, s.p, &s.f.c, &s.io, &err), 0);
	assert_true(apply_result_ok(s.r));
	apply_update_managed(&s.m, s.p, s.r, &s.f.c);
	assert_false(plan_managed_has_queue(&s.m, "fwd"));
	assert_null(plan_managed_delete_if_empty(&s.m, "fwd"));
	scen_free(&s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(
	        test_queue_delete__new_protected_dependent_is_refused),
	    cmocka_unit_test(test_queue_delete__consumer_after_plan_is_stale),
	    cmocka_unit_test(test_queue_delete__new_dependent_divert_is_stale),
	    cmocka_unit_test(
	        test_queue_delete__moved_queue_new_dependent_is_stale),
	    cmocka_unit_test(test_queue_delete__queue_already_gone_is_skipped),
	    cmocka_unit_test(
	        test_queue_delete__disconnect_consumers_sends_remove_consumers),
	    cmocka_unit_test(
	        test_queue_delete__new_consumer_with_flag_is_stale),
	    cmocka_unit_test(
	        test_queue_delete__messages_after_plan_refuse_the_node),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
