/* tests/unit/test-drift.c: agent/drift-report.c (and plan_creates_only
 * of agent/cycle.c) on hand-built plans. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../agent/daemon/daemon-int.h"
#include "../../reconcile/plan/plan.h"

static char n1[] = "node1", n2[] = "node2", n3[] = "node3";
static char unreach[] = "UNREACHABLE", refused[] = "connection refused";

/* Three nodes, node3 unreachable. */
static struct plan_node_status nodes[] = {
    {n1, true, NULL, NULL},
    {n2, true, NULL, NULL},
    {n3, false, unreach, refused},
};

static void
plan_init(struct plan *p, struct plan_action *acts, size_t nacts,
    struct plan_unmanaged *um, size_t num)
{
	static char cluster[] = "shop-eu", rev[] = "45fce5b7";

	memset(p, 0, sizeof(*p));
	p->cluster = cluster;
	p->revision = rev;
	p->nodes = nodes;
	p->nnodes = 3;
	p->actions = acts;
	p->nactions = nacts;
	p->unmanaged = um;
	p->nunmanaged = num;
}

static void
action_init(struct plan_action *a, enum plan_action_kind k, char *name,
    char *why, struct plan_step *np, enum plan_outcome o1, enum plan_outcome o2)
{
	memset(a, 0, sizeof(*a));
	memset(np, 0, 3 * sizeof(*np));
	a->kind = k;
	a->name = name;
	a->why = why;
	np[0].node = n1;
	np[0].outcome = o1;
	np[1].node = n2;
	np[1].outcome = o2;
	np[2].node = n3;
	np[2].outcome = PLAN_OUT_UNREACHABLE;
	a->nodes = np;
	a->nnodes = 3;
}

static void
test_drift__no_drift(void **state)
{
	struct plan p;
	struct daemon_drift_counts c;
	char *md, *json;

	(void)state;
	plan_init(&p, NULL, 0, NULL, 0);
	daemon_drift_count(&p, &c);
	assert_false(daemon_drift_found(&c));
	assert_int_equal(c.unreachable, 1);
	md = daemon_drift_render_md(&p, "b6834c2f", "2026-11-29T20:00:00Z");
	assert_non_null(strstr(md, "**No drift**"));
	assert_non_null(strstr(md, "Node `node3` could not be read: "
	                           "UNREACHABLE (connection refused)"));
	json = daemon_drift_render_json(&p, "b6834c2f", "2026-11-29T20:00:00Z");
	assert_non_null(strstr(json, "\"drift\": false"));
	free(md);
	free(json);
}

static void
test_drift__missing_changed_unmanaged_disagreeing(void **state)
{
	struct plan p;
	struct plan_action acts[2];
	struct plan_step np0[3], np1[3];
	struct plan_unmanaged um[2];
	char *um1nodes[] = {n1}, *um2nodes[] = {n1, n2};
	char q[] = "orders", d[] = "orders-to-audit", why0[] = "absent",
	     why1[] = "filter differs", kq[] = "queue", ka[] = "address",
	     x[] = "scratch", y[] = "tmp";
	struct daemon_drift_counts c;
	char *json, *md;

	(void)state;
	action_init(&acts[0], PLAN_ACT_CREATE_QUEUE, q, why0, np0,
	    PLAN_OUT_WOULD_APPLY, PLAN_OUT_NO_CHANGE);
	action_init(&acts[1], PLAN_ACT_CHANGE_DIVERT, d, why1, np1,
	    PLAN_OUT_WOULD_APPLY, PLAN_OUT_WOULD_APPLY);
	um[0].kind = kq;
	um[0].name = x;
	um[0].nodes = um1nodes;
	um[0].nnodes = 1;
	um[1].kind = ka;
	um[1].name = y;
	um[1].nodes = um2nodes;
	um[1].nnodes = 2;
	plan_init(&p, acts, 2, um, 2);
	daemon_drift_count(&p, &c);
	assert_int_equal(c.missing, 1);
	assert_int_equal(c.changed, 1);
	assert_int_equal(c.unmanaged, 2);
	/* orders on node1 only, and scratch on node1 only */
	assert_int_equal(c.disagreeing, 2);
	assert_true(daemon_drift_found(&c));
	json = daemon_drift_render_json(&p, "b6834c2f", "2026-11-29T20:00:00Z");
	assert_non_null(strstr(json, "\"missing\": [\n    {\n      \"action\": "
	                             "\"create-queue\",\n      \"kind\": "
	                             "\"queue\",\n      \"name\": \"orders\",\n"
	                             "      \"nodes\": [\n        \"node1\"\n"
	                             "      ],\n      \"why\": \"absent\"\n"));
	assert_non_null(strstr(json, "\"differs_on\": [\n        \"node1\"\n"
	                             "      ],\n      \"kind\": \"queue\",\n"
	                             "      \"matches_on\": [\n        "
	                             "\"node2\"\n      ],\n      \"name\": "
	                             "\"scratch\""));
	assert_non_null(strstr(json, "\"drift\": true"));
	assert_non_null(strstr(json, "\"format\": 1"));
	md = daemon_drift_render_md(&p, "b6834c2f", "2026-11-29T20:00:00Z");
	assert_non_null(strstr(md, "**Drift**: 1 missing, 1 changed, 2 "
	                           "unmanaged, 2 disagreeing between nodes."));
	assert_non_null(strstr(md, "| queue | `orders` | node1 | absent |"));
	assert_non_null(strstr(md, "| divert | `orders-to-audit` | node1, "
	                           "node2 | filter differs |"));
	assert_non_null(strstr(md, "- queue `orders`: differs on node1, as "
	                           "applied on node2"));
	assert_non_null(strstr(md, "- address `tmp` on node1, node2"));
	free(json);
	free(md);
}

/* The capture pass's actions in a drift plan (taps following the live
 * queues) are the pass's business: neither counted nor reported, not even
 * as a disagreement between nodes; a declared object beside them is. */
static void
test_drift__capture_actions_are_not_drift(void **state)
{
	struct plan p;
	struct plan_action acts[4];
	struct plan_step np0[3], np1[3], np2[3], np3[3];
	char q[] = "orders", why0[] = "absent",
	     tap[] = "__capture.dbg.orders.new", tap2[] = "__capture.dbg.gone",
	     ring[] = "__capture.dbg", why1[] = "a new matching queue",
	     why2[] = "no matching queue left", why3[] = "ring size differs";
	struct daemon_drift_counts c;
	char *json, *md;

	(void)state;
	action_init(&acts[0], PLAN_ACT_CREATE_TAP, tap, why1, np0,
	    PLAN_OUT_WOULD_APPLY, PLAN_OUT_NO_CHANGE);
	action_init(&acts[1], PLAN_ACT_DELETE_TAP, tap2, why2, np1,
	    PLAN_OUT_WOULD_APPLY, PLAN_OUT_WOULD_APPLY);
	action_init(&acts[2], PLAN_ACT_CHANGE_CAPTURE, ring, why3, np2,
	    PLAN_OUT_REFUSED, PLAN_OUT_NO_CHANGE);
	plan_init(&p, acts, 3, NULL, 0);
	daemon_drift_count(&p, &c);
	assert_int_equal(c.missing, 0);
	assert_int_equal(c.changed, 0);
	assert_int_equal(c.disagreeing, 0);
	assert_false(daemon_drift_found(&c));
	md = daemon_drift_render_md(&p, "b6834c2f", "2026-11-29T20:00:00Z");
	assert_non_null(strstr(md, "**No drift**"));
	assert_null(strstr(md, "__capture."));
	json = daemon_drift_render_json(&p, "b6834c2f", "2026-11-29T20:00:00Z");
	assert_non_null(strstr(json, "\"drift\": false"));
	assert_non_null(strstr(json, "\"missing\": [],"));
	assert_non_null(strstr(json, "\"changed\": [],"));
	assert_non_null(strstr(json, "\"disagreeing\": [],"));
	assert_null(strstr(json, "__capture."));
	free(md);
	free(json);

	action_init(&acts[3], PLAN_ACT_CREATE_QUEUE, q, why0, np3,
	    PLAN_OUT_WOULD_APPLY, PLAN_OUT_NO_CHANGE);
	plan_init(&p, acts, 4, NULL, 0);
	daemon_drift_count(&p, &c);
	assert_int_equal(c.missing, 1);
	assert_int_equal(c.changed, 0);
	assert_int_equal(c.disagreeing, 1);
	md = daemon_drift_render_md(&p, "b6834c2f", "2026-11-29T20:00:00Z");
	assert_non_null(strstr(md, "**Drift**: 1 missing, 0 changed, 0 "
	                           "unmanaged, 1 disagreeing between nodes."));
	assert_non_null(strstr(md, "| queue | `orders` | node1 | absent |"));
	assert_null(strstr(md, "__capture."));
	json = daemon_drift_render_json(&p, "b6834c2f", "2026-11-29T20:00:00Z");
	assert_non_null(strstr(json, "\"changed\": [],"));
	assert_null(strstr(json, "__capture."));
	free(md);
	free(json);
}

/* auto-apply-creates: a capture's address and ring and a tap are creates;
 * any other capture action (a tap removed, a ring changed) is not. */
static void
test_drift__creates_only_with_captures(void **state)
{
	struct plan p;
	struct plan_action acts[3];
	struct plan_step np0[3], np1[3], np2[3];
	char q[] = "orders", ring[] = "__capture.dbg",
	     tap[] = "__capture.dbg.orders", why[] = "absent";

	(void)state;
	action_init(&acts[0], PLAN_ACT_CREATE_QUEUE, q, why, np0,
	    PLAN_OUT_WOULD_APPLY, PLAN_OUT_WOULD_APPLY);
	action_init(&acts[1], PLAN_ACT_CREATE_CAPTURE, ring, why, np1,
	    PLAN_OUT_WOULD_APPLY, PLAN_OUT_WOULD_APPLY);
	action_init(&acts[2], PLAN_ACT_CREATE_TAP, tap, why, np2,
	    PLAN_OUT_WOULD_APPLY, PLAN_OUT_WOULD_APPLY);
	plan_init(&p, acts, 3, NULL, 0);
	p.outcome = PLAN_OUT_WOULD_APPLY;
	assert_true(plan_creates_only(&p));
	acts[2].kind = PLAN_ACT_DELETE_TAP;
	assert_false(plan_creates_only(&p));
	acts[2].kind = PLAN_ACT_CHANGE_CAPTURE;
	assert_false(plan_creates_only(&p));
	acts[2].kind = PLAN_ACT_CREATE_TAP;
	p.outcome = PLAN_OUT_NO_CHANGE;
	assert_false(plan_creates_only(&p));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_drift__no_drift),
	    cmocka_unit_test(test_drift__missing_changed_unmanaged_disagreeing),
	    cmocka_unit_test(test_drift__capture_actions_are_not_drift),
	    cmocka_unit_test(test_drift__creates_only_with_captures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
