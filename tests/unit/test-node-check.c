/* tests/unit/test-node-check.c: reconcile/apply/node-check.c: does each planned
 * action still hold on the node read now. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "apply-fixture.h"

/* M3: a queue absent on a node when planned (NO_CHANGE there) but present
 * at apply refuses that node as stale, and stays in the inventory. */
static void
test_node_check__absent_when_planned_present_now_is_stale(void **unused)
{
	struct plan_opts opts = {.revision = "rev2", .snapshot_source = "live"};
	struct recon_refusal f = {0};
	struct recon_op op = {0};
	struct scen s;
	struct err err = {0};
	char fwd[] = "fwd";

	(void)unused;
	scen_init(&s, false);
	op.name = fwd;
	assert_int_equal(destroy_divert(&s.f.s.nodes[1], "d1", &f), 0);
	assert_int_equal(destroy_queue(&s.k, &s.f.s.nodes[1], &op, &f), 0);
	plan_free(s.p);
	s.p = plan_build(&s.f.c, &s.m, &s.f.s, &opts);
	assert_int_equal(s.p->actions[0].kind, PLAN_ACT_DELETE_QUEUE);
	assert_int_equal(s.p->actions[0].nodes[1].outcome, PLAN_OUT_NO_CHANGE);
	fx_lqueue(&s.f, 1, "fwd", "fwd", 0, 0);
	assert_int_equal(apply_run(s.r, s.p, &s.f.c, &s.io, &err), 0);
	assert_int_equal(s.r->nodes[0].outcome, APPLY_APPLIED);
	assert_int_equal(s.r->nodes[1].outcome, APPLY_REFUSED);
	assert_string_equal(s.r->nodes[1].kind, "STALE");
	assert_string_equal(s.r->nodes[1].detail,
	    "stale plan: delete-queue 'fwd': it did not exist on this node "
	    "when the plan was made, and exists now; plan again");
	assert_non_null(recon_node_find_queue(&s.f.s.nodes[1], "fwd"));
	apply_update_managed(&s.m, s.p, s.r, NULL);
	assert_true(plan_managed_has_queue(&s.m, "fwd"));
	scen_free(&s);
}

/* A broker upgraded between plan and apply is stale: the plan's
 * operations and warnings were chosen for the release it read; the
 * other node, on the planned release, is applied. */
static void
test_node_check__release_moved_is_stale(void **unused)
{
	struct scen s;
	struct err err = {0};

	(void)unused;
	scen_init(&s, false);
	free(s.f.s.nodes[1].broker_version);
	s.f.s.nodes[1].broker_version = xstrdup("2.45.0");
	assert_int_equal(apply_run(s.r, s.p, &s.f.c, &s.io, &err), 0);
	assert_int_equal(s.r->nodes[0].outcome, APPLY_APPLIED);
	assert_int_equal(s.r->nodes[1].outcome, APPLY_REFUSED);
	assert_string_equal(s.r->nodes[1].kind, "STALE");
	assert_non_null(strstr(s.r->nodes[1].detail,
	    "the broker ran Artemis 2.44.0 when the plan was made and runs "
	    "2.45.0 now; plan again"));
	/* nothing was sent to it */
	assert_non_null(recon_node_find_queue(&s.f.s.nodes[1], "fwd"));
	scen_free(&s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(
	        test_node_check__absent_when_planned_present_now_is_stale),
	    cmocka_unit_test(test_node_check__release_moved_is_stale),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
