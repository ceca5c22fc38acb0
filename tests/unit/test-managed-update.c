/* tests/unit/test-managed-update.c: reconcile/apply/managed-update.c: the
 * managed set (inventory) after an apply: only what was applied, what was found
 * as declared, a removed capture until its pass finished everywhere. */
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
test_managed_update__managed_set_only_what_was_applied(void **unused)
{
	struct scen s;
	struct err err = {0};

	(void)unused;
	scen_init(&s, false);
	s.k.fail = "destroyQueue fwd";
	s.k.fail_kind = RECON_TIMEOUT;
	assert_int_equal(apply_run(s.r, s.p, &s.f.c, &s.io, &err), 0);
	apply_update_managed(&s.m, s.p, s.r, NULL);
	assert_true(plan_managed_has_queue(&s.m, "fwd"));
	assert_string_equal(s.m.revision, "rev1");
	scen_free(&s);

	scen_init(&s, false);
	assert_int_equal(apply_run(s.r, s.p, &s.f.c, &s.io, &err), 0);
	apply_update_managed(&s.m, s.p, s.r, NULL);
	assert_false(plan_managed_has_queue(&s.m, "fwd"));
	assert_true(plan_managed_has_queue(&s.m, "src"));
	assert_string_equal(s.m.revision, "rev2");
	scen_free(&s);
}

/* Declared objects apply found on a node enter the inventory even when the
 * plan had nothing to do for them; declared ones found nowhere do not. */
static void
test_managed_update__found_as_declared_enters_inventory(void **unused)
{
	struct scen s;
	struct err err = {0};

	(void)unused;
	scen_init(&s, false);
	fx_queue(&s.f, "src", "pre");
	fx_queue(&s.f, "src", "ghost");
	fx_lqueue(&s.f, 1, "src", "pre", 0, 0);
	assert_int_equal(apply_run(s.r, s.p, &s.f.c, &s.io, &err), 0);
	apply_update_managed(&s.m, s.p, s.r, &s.f.c);
	assert_true(plan_managed_has_queue(&s.m, "pre"));
	assert_false(plan_managed_has_queue(&s.m, "ghost"));
	assert_false(plan_managed_has_queue(&s.m, "fwd"));
	assert_true(plan_managed_has_queue(&s.m, "src"));
	assert_true(plan_managed_has_address(&s.m, "fwd"));
	scen_free(&s);
}

/* What is adopted is exactly what the update adds because a node held it
 * before the apply acted: "pre" (found) and not "ghost" (found nowhere),
 * nor anything already managed; counted before the update, zero after. */
static void
test_managed_update__adopted_counted_before_the_update(void **unused)
{
	struct scen s;
	struct err err = {0};
	size_t n;

	(void)unused;
	scen_init(&s, false);
	fx_queue(&s.f, "src", "pre");
	fx_queue(&s.f, "src", "ghost");
	fx_lqueue(&s.f, 1, "src", "pre", 0, 0);
	assert_int_equal(apply_run(s.r, s.p, &s.f.c, &s.io, &err), 0);
	n = apply_count_adopted(&s.m, s.r, &s.f.c);
	assert_false(plan_managed_has_queue(&s.m, "pre"));
	apply_update_managed(&s.m, s.p, s.r, &s.f.c);
	assert_true(plan_managed_has_queue(&s.m, "pre"));
	/* the managed set was the declaration before "pre" and "ghost" were
	 * declared: only "pre", held by node 2, is adopted */
	assert_int_equal(n, 1);
	assert_int_equal(apply_count_adopted(&s.m, s.r, &s.f.c), 0);
	assert_int_equal(apply_count_adopted(&s.m, s.r, NULL), 0);
	scen_free(&s);
}

/* Plan f against m, apply it on the fake broker (every node APPLIED) and
 * update m: the managed-set half of a drift-free apply. */
struct run {
	struct plan *p;
	struct apply_result *r;
	struct fake k;
};

static void
run_apply(struct run *x, struct fx *f, struct plan_managed *m)
{
	struct plan_opts opts = {.revision = "r2", .snapshot_source = "l"};
	struct apply_io io;
	struct err err = {0};

	x->r = xcalloc(1, sizeof(*x->r));
	x->p = plan_build(&f->c, m, &f->s, &opts);
	assert_int_equal(x->p->outcome, PLAN_OUT_WOULD_APPLY);
	memset(&x->k, 0, sizeof(x->k));
	x->k.f = f;
	fake_io(&io, &x->k);
	assert_int_equal(apply_run(x->r, x->p, &f->c, &io, &err), 0);
	assert_true(apply_result_ok(x->r));
	apply_update_managed(m, x->p, x->r, &f->c);
}

static void
run_free(struct run *x)
{
	apply_result_free(x->r);
	plan_free(x->p);
	sbuf_release(&x->k.log);
	sbuf_release(&x->k.trace);
	free(x->k.intent_row);
}

/* Issue 14.7: address fwd, no longer declared, is deleted on broker-a
 * and kept on broker-b, where an unmanaged queue is bound to it. The
 * inventory keeps it (a later plan deletes it once it is empty); the
 * queue, gone from both nodes, leaves. */
static void
test_managed_update__address_kept_on_a_node_stays_managed(void **unused)
{
	struct plan_managed m = {0};
	struct run x;
	struct fx f;
	size_t i;

	(void)unused;
	fx_init(&f, DECL_STUDIO_MANAGED, 2);
	fx_queue(&f, "src", "src");
	fx_queue(&f, "fwd", "fwd");
	plan_managed_from_decl(&m, &f.c, "inventory", "r1");
	f.c.naddresses = 1; /* the new declaration drops fwd */
	for (i = 0; i < 2; i++) {
		fx_lqueue(&f, i, "src", "src", 0, 0);
		fx_lqueue(&f, i, "fwd", "fwd", 0, 0);
	}
	fx_lqueue(&f, 1, "fwd", "theirs", 0, 0);
	run_apply(&x, &f, &m);
	assert_null(recon_node_find_address(&f.s.nodes[0], "fwd"));
	assert_non_null(recon_node_find_address(&f.s.nodes[1], "fwd"));
	assert_true(plan_managed_has_address(&m, "fwd"));
	assert_false(plan_managed_has_queue(&m, "fwd"));
	assert_false(plan_managed_has_queue(&m, "theirs"));
	assert_true(plan_managed_has_address(&m, "src"));
	run_free(&x);
	plan_managed_release(&m);
	f.c.naddresses = 2; /* the fixture frees what it built */
	fx_free(&f);
}

/* A divert deleted on a release that keeps its journal record (2.28 to
 * 2.31: the broker's next restart brings it back) stays managed, so the
 * plan after that restart deletes it again; deleted on releases that do
 * remove the record, it leaves the inventory. */
static void
kept_record_case(const char *version_b, bool stays)
{
	struct plan_managed m = {0};
	struct run x;
	struct fx f;
	size_t i;

	fx_init(&f, DECL_STUDIO_MANAGED, 2);
	fx_queue(&f, "src", "src");
	fx_divert(&f, "d", "src", "src");
	plan_managed_from_decl(&m, &f.c, "inventory", "r1");
	f.c.ndiverts = 0; /* the new declaration drops d */
	for (i = 0; i < 2; i++) {
		fx_lqueue(&f, i, "src", "src", 0, 0);
		fx_ldivert(&f, i, "d", "src", "src");
	}
	free(f.s.nodes[1].broker_version);
	f.s.nodes[1].broker_version = xstrdup(version_b);
	run_apply(&x, &f, &m);
	assert_int_equal(x.p->actions[0].kind, PLAN_ACT_DELETE_DIVERT);
	assert_null(recon_node_find_divert(&f.s.nodes[0], "d"));
	assert_null(recon_node_find_divert(&f.s.nodes[1], "d"));
	assert_int_equal(plan_managed_has_divert(&m, "d"), stays);
	run_free(&x);
	plan_managed_release(&m);
	f.c.ndiverts = 1; /* the fixture frees what it built */
	fx_free(&f);
}

static void
test_managed_update__divert_on_kept_record_release_stays_managed(void **unused)
{
	(void)unused;
	kept_record_case("2.31.2", true);
	kept_record_case("2.28.0", true);
	kept_record_case("2.32.0", false);
	kept_record_case("2.44.0", false);
}

/* A removed capture stays in the inventory until its capture pass has
 * finished on every node (here node b is down at apply). */
static void
test_managed_update__removed_capture_kept_until_done(void **unused)
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
	fx_init(&f, DECL_STUDIO_MANAGED, 2);
	fx_queue(&f, "fwd", "fwd");
	fx_capture(&f, "dbg", "fw*");
	plan_managed_from_decl(&m, &f.c, "inventory", "r0");
	f.c.ncaptures = 0; /* the new declaration drops the capture */
	for (i = 0; i < 2; i++) {
		fx_lqueue(&f, i, "fwd", "fwd", 0, 0);
		fx_ldivert(&f, i, "__capture.dbg.fwd", "fwd", "__capture.dbg");
	}
	p = plan_build(&f.c, &m, &f.s, &opts);
	memset(&k, 0, sizeof(k));
	k.f = &f;
	k.down = "broker-b";
	fake_io(&io, &k);
	assert_int_equal(apply_run(r, p, &f.c, &io, &err), 0);
	assert_int_equal(r->nodes[0].outcome, APPLY_APPLIED);
	assert_int_equal(r->nodes[1].outcome, APPLY_UNREACHABLE);
	apply_update_managed(&m, p, r, &f.c);
	assert_int_equal(m.ncaptures, 1);
	assert_string_equal(m.captures[0], "dbg");
	for (i = 0; i < m.ndiverts; i++)
		assert_null(strstr(m.diverts[i], "__capture."));
	apply_result_free(r);
	/* node b is back: the next apply finishes, and the capture goes */
	k.down = NULL;
	r = xcalloc(1, sizeof(*r));
	assert_int_equal(apply_run(r, p, &f.c, &io, &err), 0);
	assert_int_equal(r->nodes[1].outcome, APPLY_APPLIED);
	apply_update_managed(&m, p, r, &f.c);
	assert_int_equal(m.ncaptures, 0);
	apply_result_free(r);
	plan_free(p);
	plan_managed_release(&m);
	f.c.ncaptures = 1; /* the fixture frees what it built */
	sbuf_release(&k.log);
	sbuf_release(&k.trace);
	free(k.intent_row);
	fx_free(&f);
}

/* docs/policy.md: what the plan forgets (retained, or now managed: false)
 * leaves the set, nothing sent for it. (A forgotten object is never a
 * managed declared one, so add_found does not bring it back: the
 * fixture's declaration is left out here.) */
static void
test_managed_update__forgotten_leave_the_set(void **unused)
{
	struct scen s;
	struct err err = {0};

	(void)unused;
	scen_init(&s, false);
	s.p->forgotten = xcalloc(1, sizeof(*s.p->forgotten));
	s.p->forgotten[0].kind = xstrdup("queue");
	s.p->forgotten[0].name = xstrdup("src");
	s.p->forgotten[0].reason = xstrdup("deletion-policy: retain");
	s.p->nforgotten = 1;
	assert_int_equal(apply_run(s.r, s.p, &s.f.c, &s.io, &err), 0);
	apply_update_managed(&s.m, s.p, s.r, NULL);
	assert_false(plan_managed_has_queue(&s.m, "src"));
	scen_free(&s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_managed_update__forgotten_leave_the_set),
	    cmocka_unit_test(
	        test_managed_update__managed_set_only_what_was_applied),
	    cmocka_unit_test(
	        test_managed_update__found_as_declared_enters_inventory),
	    cmocka_unit_test(
	        test_managed_update__adopted_counted_before_the_update),
	    cmocka_unit_test(
	        test_managed_update__address_kept_on_a_node_stays_managed),
	    cmocka_unit_test(
	        test_managed_update__removed_capture_kept_until_done),
	    cmocka_unit_test(
	        test_managed_update__divert_on_kept_record_release_stays_managed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
