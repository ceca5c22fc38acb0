/* tests/unit/test-engine.c: reconcile/apply/engine.c: checking every node
 * again, the intent row before any operation, nodes apart (one unreachable, the
 * others go on), D7 again on fresh counts, the plan's diverts as it leaves
 * them, and the reads per node (docs/audit.md "Reads per node"), against the
 * fake broker of apply-fixture.h. */
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
test_engine__divert_first_then_queue(void **unused)
{
	struct scen s;
	struct err err = {0};

	(void)unused;
	scen_init(&s, false);
	assert_int_equal(apply_run(s.r, s.p, &s.f.c, &s.io, &err), 0);
	assert_string_equal(sbuf_str(&s.k.log),
	    "broker-a destroyDivert d1\nbroker-a destroyQueue fwd\n"
	    "broker-b destroyDivert d1\nbroker-b destroyQueue fwd\n");
	assert_int_equal(s.r->nodes[0].outcome, APPLY_APPLIED);
	assert_int_equal(s.r->nodes[1].outcome, APPLY_APPLIED);
	assert_true(apply_result_ok(s.r));
	assert_false(s.r->nodes[0].ops[1].op.remove_consumers);
	/* the intent row was written before any operation, with d1's full
	 * configuration */
	assert_non_null(s.k.intent_row);
	assert_non_null(strstr(s.k.intent_row,
	    "\"divert\":{\"address\":\"src\",\"exclusive\":false,"
	    "\"filter-string\":\"\",\"forwarding-address\":\"fwd\","
	    "\"name\":\"d1\","
	    "\"routing-name\":\"d1\",\"routing-type\":\"ANYCAST\"}"));
	assert_non_null(strstr(s.k.intent_row, "\"event\":\"intent\""));
	assert_null(strstr(s.k.intent_row, "\"outcome\":\"DONE\""));
	scen_free(&s);
}

/* Issue 4: a divert the same plan points away from the queue's address is
 * not dependent at apply either: updated, then the queue goes, divert kept. */
static void
test_engine__repointed_divert_not_dependent(void **unused)
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
	fx_queue(&s.f, "other", "other");
	fx_divert(&s.f, "d1", "src", "fwd");
	plan_managed_from_decl(&s.m, &s.f.c, "inventory", "rev1");
	free(s.f.c.addresses[1].queues[0].name);
	s.f.c.addresses[1].nqueues = 0;
	free(s.f.c.diverts[0].forwarding_address);
	s.f.c.diverts[0].forwarding_address = xstrdup("other");
	for (i = 0; i < 2; i++) {
		fx_lqueue(&s.f, i, "src", "src", 0, 0);
		fx_lqueue(&s.f, i, "fwd", "fwd", 0, 0);
		fx_lqueue(&s.f, i, "other", "other", 0, 0);
		fx_ldivert(&s.f, i, "d1", "src", "fwd");
	}
	s.p = plan_build(&s.f.c, &s.m, &s.f.s, &opts);
	assert_int_equal(s.p->outcome, PLAN_OUT_WOULD_APPLY);
	s.k.f = &s.f;
	fake_io(&s.io, &s.k);
	s.r = xcalloc(1, sizeof(*s.r));
	s.r->apply_id = xstrdup("id1");
	s.r->cluster = xstrdup("shop-eu");
	assert_int_equal(apply_run(s.r, s.p, &s.f.c, &s.io, &err), 0);
	assert_string_equal(sbuf_str(&s.k.log),
	    "broker-a updateDivert d1\nbroker-a destroyQueue fwd\n"
	    "broker-b updateDivert d1\nbroker-b destroyQueue fwd\n");
	assert_int_equal(s.r->nodes[0].outcome, APPLY_APPLIED);
	assert_int_equal(s.r->nodes[1].outcome, APPLY_APPLIED);
	assert_non_null(recon_node_find_divert(&s.f.s.nodes[0], "d1"));
	scen_free(&s);
}

static void
test_engine__unreachable_node_others_go_on(void **unused)
{
	struct scen s;
	struct err err = {0};

	(void)unused;
	scen_init(&s, false);
	s.k.down = "broker-a";
	assert_int_equal(apply_run(s.r, s.p, &s.f.c, &s.io, &err), 0);
	assert_int_equal(s.r->nodes[0].outcome, APPLY_UNREACHABLE);
	assert_string_equal(s.r->nodes[0].detail,
	    "UNREACHABLE: connection refused");
	assert_int_equal(s.r->nodes[1].outcome, APPLY_APPLIED);
	scen_free(&s);
}

/* An HA node (docs/ha-pairs.md): planned against one member, another live
 * at apply (a failover since the plan): checked and applied there, the
 * result naming both. */
static void
test_engine__ha_failover_since_the_plan(void **unused)
{
	struct scen s;
	struct err err = {0};

	(void)unused;
	scen_init(&s, false);
	s.p->nodes[0].member = xstrdup("primary");
	s.k.ha_node = "broker-a";
	s.k.ha_member = "backup";
	assert_int_equal(apply_run(s.r, s.p, &s.f.c, &s.io, &err), 0);
	assert_int_equal(s.r->nodes[0].outcome, APPLY_APPLIED);
	assert_string_equal(s.r->nodes[0].member, "backup");
	assert_string_equal(s.r->nodes[0].planned_member, "primary");
	assert_null(s.r->nodes[1].member);
	/* the same member live: no planned_member */
	scen_free(&s);
	scen_init(&s, false);
	s.p->nodes[0].member = xstrdup("primary");
	s.k.ha_node = "broker-a";
	s.k.ha_member = "primary";
	assert_int_equal(apply_run(s.r, s.p, &s.f.c, &s.io, &err), 0);
	assert_string_equal(s.r->nodes[0].member, "primary");
	assert_null(s.r->nodes[0].planned_member);
	scen_free(&s);
}

/* A split brain at apply refuses the node with nothing sent to it; the
 * other node goes on. */
static void
test_engine__ha_split_brain_refused(void **unused)
{
	struct scen s;
	struct err err = {0};

	(void)unused;
	scen_init(&s, false);
	s.k.ha_node = "broker-a";
	s.k.ha_kind = RECON_SPLIT_BRAIN;
	assert_int_equal(apply_run(s.r, s.p, &s.f.c, &s.io, &err), 0);
	assert_int_equal(s.r->nodes[0].outcome, APPLY_REFUSED);
	assert_string_equal(s.r->nodes[0].kind, "SPLIT_BRAIN");
	assert_int_equal(s.r->nodes[0].nops, 0);
	assert_null(strstr(sbuf_str(&s.k.log), "broker-a "));
	assert_int_equal(s.r->nodes[1].outcome, APPLY_APPLIED);
	scen_free(&s);
}

/* A broker passive when planned and at apply is SKIPPED: nothing sent, no
 * capture pass; passive when planned and live now: STALE (plan again). */
static void
test_engine__ha_passive_node(void **unused)
{
	struct scen s;
	struct err err = {0};

	(void)unused;
	scen_init(&s, false);
	s.p->nodes[0].reachable = false;
	s.p->nodes[0].refusal = xstrdup("PASSIVE");
	s.k.ha_node = "broker-a";
	s.k.ha_kind = RECON_PASSIVE;
	assert_int_equal(apply_run(s.r, s.p, &s.f.c, &s.io, &err), 0);
	assert_int_equal(s.r->nodes[0].outcome, APPLY_SKIPPED);
	assert_non_null(
	    strstr(s.r->nodes[0].detail, "passive, as when planned"));
	assert_null(strstr(sbuf_str(&s.k.log), "broker-a "));
	scen_free(&s);
	scen_init(&s, false);
	s.p->nodes[0].reachable = false;
	s.p->nodes[0].refusal = xstrdup("PASSIVE");
	assert_int_equal(apply_run(s.r, s.p, &s.f.c, &s.io, &err), 0);
	assert_int_equal(s.r->nodes[0].outcome, APPLY_REFUSED);
	assert_string_equal(s.r->nodes[0].kind, "STALE");
	assert_non_null(
	    strstr(s.r->nodes[0].detail, "passive (it is live now)"));
	scen_free(&s);
}

static void
test_engine__refused_intent_runs_nothing(void **unused)
{
	struct scen s;
	struct err err = {0};

	(void)unused;
	scen_init(&s, false);
	s.k.refuse_intent = true;
	assert_int_equal(apply_run(s.r, s.p, &s.f.c, &s.io, &err), -1);
	assert_string_equal(err.msg, "cannot append the audit row");
	assert_string_equal(sbuf_str(&s.k.log), "");
	err_release(&err);
	scen_free(&s);
}

/* Issue 14.5: D7 is a cluster-wide cap. Past it on the counts read at
 * apply, the whole apply is refused before any node acts: the node whose
 * deletes grew and the node that still deletes what was planned alike. */
static void
test_engine__cap_past_on_apply_refuses_whole_apply(void **unused)
{
	struct scen s;
	struct err err = {0};

	(void)unused;
	scen_init(&s, false);
	fx_lqueue_get(&s.f, 0, "fwd")->message_count = 2000;
	assert_int_equal(apply_run(s.r, s.p, &s.f.c, &s.io, &err), 0);
	assert_string_equal(sbuf_str(&s.k.log), "");
	assert_int_equal(s.r->nodes[0].outcome, APPLY_REFUSED);
	assert_string_equal(s.r->nodes[0].detail,
	    "stale plan: the plan's queue deletes now destroy 2003 messages "
	    "across the nodes (6 when planned; on this node 2000, 3 when "
	    "planned), past the cap of 1000 (settings.max-destroyed-messages): "
	    "the whole apply is refused and nothing ran on any node; plan "
	    "again");
	assert_int_equal(s.r->nodes[1].outcome, APPLY_REFUSED);
	assert_string_equal(s.r->nodes[1].kind, "STALE");
	assert_non_null(strstr(s.r->nodes[1].detail, "on this node 3, 3 when "
	                                             "planned"));
	assert_int_equal(s.r->nodes[1].nops, 0);
	assert_string_equal(s.r->nodes[1].notes[0],
	    "delete-queue 'fwd': not run: nothing ran on this node: the whole "
	    "apply is refused (the bulk cap, see the detail)");
	assert_false(apply_result_ok(s.r));
	scen_free(&s);
}

/* Issue 14.15: a node refused as stale says what is true: nothing ran on
 * it, which action was stale and why; no note says another action runs as
 * planned. */
static void
test_engine__stale_node_notes_say_nothing_ran(void **unused)
{
	struct scen s;
	struct err err = {0};
	const struct apply_node *a;
	size_t i, notrun = 0;

	(void)unused;
	scen_init(&s, false);
	fx_queue(&s.f, "fresh", "fresh");
	scen_replan(&s);
	fx_lqueue_get(&s.f, 0, "fwd")->consumer_count = 1;
	assert_int_equal(apply_run(s.r, s.p, &s.f.c, &s.io, &err), 0);
	a = &s.r->nodes[0];
	assert_int_equal(a->outcome, APPLY_REFUSED);
	assert_int_equal(a->nops, 0);
	assert_int_equal(a->nnotes, 3);
	for (i = 0; i < a->nnotes; i++) {
		assert_null(strstr(a->notes[i], "as planned"));
		if (strstr(a->notes[i], ": not run: nothing ran on this node"))
			notrun++;
	}
	assert_int_equal(notrun, 2);
	assert_string_equal(a->notes[0],
	    "create-address 'fresh': not run: nothing ran on this node: an "
	    "action of the plan is stale here (see the stale note)");
	assert_non_null(strstr(a->notes[2], "delete-queue 'fwd': stale: "));
	assert_non_null(strstr(a->detail, "stale plan: delete-queue 'fwd'"));
	/* the other node runs as planned */
	assert_int_equal(s.r->nodes[1].outcome, APPLY_APPLIED);
	assert_string_equal(s.r->nodes[1].notes[0],
	    "create-address 'fresh': as planned");
	scen_free(&s);
}

/* Deletes only, two nodes: every node is read once before anything runs
 * (all at once) and the operations run. Without captures the capture pass
 * has nothing to look for: 1 read per node. With a capture declared, every
 * node is read once more after the operations (all at once) for the pass:
 * 2 reads per node. Without read_all the same reads are made one node at a
 * time. */
static void
test_engine__reads_deletes_only(void **unused)
{
	static const char ops[] = "broker-a destroyDivert d1\n"
	                          "broker-a destroyQueue fwd\n"
	                          "broker-b destroyDivert d1\n"
	                          "broker-b destroyQueue fwd\n";
	struct scen s;
	struct err err = {0};
	int bulk, capture;
	char *want;

	(void)unused;
	for (capture = 0; capture < 2; capture++)
		for (bulk = 1; bulk >= 0; bulk--) {
			scen_init(&s, false);
			if (capture)
				scen_with_capture(&s);
			if (!bulk)
				s.io.read_all = NULL;
			assert_int_equal(
			    apply_run(s.r, s.p, &s.f.c, &s.io, &err), 0);
			assert_true(apply_result_ok(s.r));
			want = xasprintf("%s%s%s",
			    bulk ? "read broker-a broker-b\n"
			         : "read broker-a\nread broker-b\n",
			    ops,
			    !capture ? ""
			    : bulk   ? "read broker-a broker-b\n"
			             : "read broker-a\nread broker-b\n");
			assert_string_equal(sbuf_str(&s.k.trace), want);
			assert_int_equal(s.k.reads[0], 1 + capture);
			assert_int_equal(s.k.reads[1], 1 + capture);
			free(want);
			scen_free(&s);
		}
}

/* A node with nothing to run (its queue already gone) is read once, also
 * when the capture pass runs: the pass uses that read. The other node is
 * read again after its operations. */
static void
test_engine__reads_skipped_node_once(void **unused)
{
	struct scen s;
	struct err err = {0};
	struct recon_refusal f = {0};
	struct recon_op op = {0};
	char fwd[] = "fwd";

	(void)unused;
	scen_init(&s, false);
	scen_with_capture(&s);
	op.name = fwd;
	assert_int_equal(destroy_divert(&s.f.s.nodes[1], "d1", &f), 0);
	assert_int_equal(destroy_queue(&s.k, &s.f.s.nodes[1], &op, &f), 0);
	assert_int_equal(apply_run(s.r, s.p, &s.f.c, &s.io, &err), 0);
	assert_int_equal(s.r->nodes[0].outcome, APPLY_APPLIED);
	assert_int_equal(s.r->nodes[1].outcome, APPLY_SKIPPED);
	assert_string_equal(sbuf_str(&s.k.trace), "read broker-a broker-b\n"
	                                          "broker-a destroyDivert d1\n"
	                                          "broker-a destroyQueue fwd\n"
	                                          "read broker-a\n");
	assert_int_equal(s.k.reads[0], 2);
	assert_int_equal(s.k.reads[1], 1);
	scen_free(&s);
}

/* Creates only: the read after the last create reads it back (and would
 * feed the capture pass): 2 reads. A divert the broker ignored still fails
 * the node on that read. */
static void
test_engine__reads_creates_only(void **unused)
{
	struct plan_opts opts = {.revision = "r", .snapshot_source = "l"};
	struct plan_managed m = {0};
	struct apply_result *r;
	struct plan *p;
	struct fake k;
	struct fx f;
	int ignore;

	(void)unused;
	for (ignore = 0; ignore < 2; ignore++) {
		fx_init(&f, DECL_STUDIO_MANAGED, 1);
		fx_queue(&f, "a", "a");
		fx_queue(&f, "b", "b");
		fx_divert(&f, "ab", "a", "b");
		fx_lqueue(&f, 0, "a", "a", 0, 0);
		fx_lqueue(&f, 0, "b", "b", 0, 0);
		p = plan_build(&f.c, &m, &f.s, &opts);
		assert_int_equal(p->outcome, PLAN_OUT_WOULD_APPLY);
		memset(&k, 0, sizeof(k));
		k.ignore_divert = ignore;
		r = xcalloc(1, sizeof(*r));
		assert_string_equal(apply_traced(&f, &k, p, r),
		    "read broker-a\nbroker-a createDivert ab\nread broker-a\n");
		assert_int_equal(k.reads[0], 2);
		assert_int_equal(r->nodes[0].outcome,
		    ignore ? APPLY_FAILED : APPLY_APPLIED);
		if (ignore)
			assert_non_null(strstr(r->nodes[0].detail,
			    "createDivert 'ab' failed: NOT_FOUND"));
		else
			assert_string_equal(r->nodes[0].detail,
			    "1 operation(s) applied");
		apply_result_free(r);
		plan_free(p);
		sbuf_release(&k.log);
		sbuf_release(&k.trace);
		free(k.intent_row);
		fx_free(&f);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_engine__divert_first_then_queue),
	    cmocka_unit_test(test_engine__repointed_divert_not_dependent),
	    cmocka_unit_test(test_engine__unreachable_node_others_go_on),
	    cmocka_unit_test(test_engine__ha_failover_since_the_plan),
	    cmocka_unit_test(test_engine__ha_split_brain_refused),
	    cmocka_unit_test(test_engine__ha_passive_node),
	    cmocka_unit_test(test_engine__refused_intent_runs_nothing),
	    cmocka_unit_test(
	        test_engine__cap_past_on_apply_refuses_whole_apply),
	    cmocka_unit_test(test_engine__stale_node_notes_say_nothing_ran),
	    cmocka_unit_test(test_engine__reads_deletes_only),
	    cmocka_unit_test(test_engine__reads_skipped_node_once),
	    cmocka_unit_test(test_engine__reads_creates_only),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
