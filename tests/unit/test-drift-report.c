/* tests/unit/test-drift-report.c: agent/daemon/drift-report.c, the drift
 * report (counts, drift.md, drift.json), on plans assembled by hand
 * (plan-fixture.h); HA nodes: the live member named, a passive broker not
 * unreachable, a split brain an error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../agent/daemon/daemon-int.h"
#include "plan-fixture.h"

static void
test_drift_report__no_drift(void **state)
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
test_drift_report__missing_changed_unmanaged_disagreeing(void **state)
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
test_drift_report__capture_actions_are_not_drift(void **state)
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

/* node1 an HA pair failed over to its backup, node2 a passive broker
 * declared as a node, node3 a split brain. */
static void
test_drift_report__ha_nodes(void **state)
{
	static char pm[] = "node1-primary", bm[] = "node1-backup",
	            live[] = "LIVE", unr[] = "UNREACHABLE",
	            ssb[] = "Shared Store Backup", cr[] = "connection refused",
	            pas[] = "PASSIVE", pmsg[] = "passive backup",
	            sb[] = "SPLIT_BRAIN",
	            sbmsg[] = "split brain: members 'a' and 'b'";
	struct plan_member mem[] = {
	    {pm, unr, NULL, NULL, -1, cr},
	    {bm, live, ssb, v244, -1, NULL},
	};
	struct plan_node_status ns[] = {
	    {n1, v244, true, NULL, NULL, bm, mem, 2},
	    {n2, v244, false, pas, pmsg, NULL, NULL, 0},
	    {n3, NULL, false, sb, sbmsg, NULL, NULL, 0},
	};
	struct plan p;
	struct daemon_drift_counts c;
	char *md, *json;

	(void)state;
	plan_init(&p, NULL, 0, NULL, 0);
	p.nodes = ns;
	daemon_drift_count(&p, &c);
	assert_false(daemon_drift_found(&c));
	assert_int_equal(c.unreachable, 0);
	assert_int_equal(c.passive, 1);
	assert_int_equal(c.refused, 1);
	md = daemon_drift_render_md(&p, "b6834c2f", "2026-11-29T20:00:00Z");
	assert_non_null(
	    strstr(md, "**Error**: 1 node(s) refused for their HA state"));
	assert_non_null(strstr(md,
	    "- `node1`: live member **node1-backup** (checked); node1-primary UNREACHABLE\n"));
	assert_non_null(strstr(md,
	    "Node `node2` is passive (left alone, never drift): PASSIVE"));
	assert_non_null(strstr(md,
	    "Node `node3` is refused, and nothing is applied on it: SPLIT_BRAIN"));
	json = daemon_drift_render_json(&p, "b6834c2f", "2026-11-29T20:00:00Z");
	assert_non_null(strstr(json, "\"live_member\": \"node1-backup\""));
	assert_non_null(strstr(json, "\"unreachable\": []"));
	assert_non_null(strstr(json,
	    "\"node\": \"node2\",\n      \"refusal\": \"PASSIVE\""));
	free(md);
	free(json);
}

/* docs/policy.md: an object declared with managed: false is listed apart,
 * never drift, never counted. */
static void
test_drift_report__unmanaged_by_declaration_is_no_drift(void **state)
{
	struct plan p;
	struct plan_unmanaged du;
	char *on[] = {n1}, kq[] = "queue", name[] = "legacy";
	struct daemon_drift_counts c;
	char *md, *json;

	(void)state;
	plan_init(&p, NULL, 0, NULL, 0);
	du.kind = kq;
	du.name = name;
	du.nodes = on;
	du.nnodes = 1;
	p.declared_unmanaged = &du;
	p.ndeclared_unmanaged = 1;
	daemon_drift_count(&p, &c);
	assert_false(daemon_drift_found(&c));
	assert_int_equal(c.unmanaged, 0);
	md = daemon_drift_render_md(&p, "b6834c2f", "2026-11-29T20:00:00Z");
	assert_non_null(strstr(md, "**No drift**"));
	assert_non_null(strstr(md,
	    "## Unmanaged by declaration (managed: false; never drift, never "
	    "repaired)\n\n- queue `legacy` on node1\n"));
	json = daemon_drift_render_json(&p, "b6834c2f", "2026-11-29T20:00:00Z");
	assert_non_null(strstr(json, "\"drift\": false"));
	assert_non_null(strstr(json,
	    "\"unmanaged_by_declaration\": [\n    {\n      \"kind\": "
	    "\"queue\",\n      \"name\": \"legacy\",\n      \"nodes\": [\n"
	    "        \"node1\"\n      ]\n    }\n  ]"));
	free(md);
	free(json);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(
	        test_drift_report__unmanaged_by_declaration_is_no_drift),
	    cmocka_unit_test(test_drift_report__no_drift),
	    cmocka_unit_test(test_drift_report__ha_nodes),
	    cmocka_unit_test(
	        test_drift_report__missing_changed_unmanaged_disagreeing),
	    cmocka_unit_test(test_drift_report__capture_actions_are_not_drift),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
