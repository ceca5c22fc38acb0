/* tests/unit/test-resume.c: reconcile/apply/resume.c: resuming an
 * interrupted apply of the same plan: the operations done recognised by
 * the evidence of the read (a prefix, and only a prefix), the rest checked
 * and run in the plan's order, a state that is no prefix refused as stale,
 * against the fake broker of apply-fixture.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "apply-fixture.h"

/* Apply s's plan and "crash" after `after` operations (0: before the
 * first, right after the intent row); the interrupted apply's intent row,
 * read back as apply reads it from the audit log. */
static struct apply_result *
interrupted(struct scen *s, size_t after)
{
	struct apply_result *was = NULL, *r = xcalloc(1, sizeof(*r));
	struct err err = {0};
	char *event = NULL;

	r->apply_id = xstrdup("id0");
	r->cluster = xstrdup("shop-eu");
	s->k.crash = true;
	s->k.crash_after = after;
	assert_int_equal(apply_run(r, s->p, &s->f.c, &s->io, &err), 0);
	apply_result_free(r);
	assert_non_null(s->k.intent_row);
	assert_int_equal(apply_audit_parse(&was, &event, s->k.intent_row,
	                     strlen(s->k.intent_row), &err),
	    0);
	assert_string_equal(event, "intent");
	free(event);
	s->k.crash = false;
	s->k.nexec = 0;
	sbuf_reset(&s->k.trace);
	sbuf_reset(&s->k.log);
	return was;
}

static void
resume(struct scen *s, const struct apply_result *was)
{
	struct err err = {0};

	assert_int_equal(
	    apply_run_resume(s->r, s->p, &s->f.c, &s->io, was, &err), 0);
}

/* Killed after the first operation (node a's divert removed): without
 * resuming, node a is refused as stale (the case of the 17 of 54 kill -9
 * runs); resuming, the divert's removal is recognised as done and only the
 * rest runs, in the plan's order. */
static void
test_resume__after_first_operation(void **unused)
{
	struct apply_result *was;
	struct scen s;
	struct err err = {0};
	const struct apply_node *a;
	char *row;

	(void)unused;
	scen_init(&s, false);
	was = interrupted(&s, 1);
	assert_null(recon_node_find_divert(&s.f.s.nodes[0], "d1"));
	assert_int_equal(apply_run(s.r, s.p, &s.f.c, &s.io, &err), 0);
	assert_int_equal(s.r->nodes[0].outcome, APPLY_REFUSED);
	assert_string_equal(sbuf_str(&s.k.log),
	    "broker-b destroyDivert d1\nbroker-b destroyQueue fwd\n");
	scen_free(&s);
	apply_result_free(was);

	scen_init(&s, false);
	was = interrupted(&s, 1);
	resume(&s, was);
	assert_string_equal(sbuf_str(&s.k.trace),
	    "read broker-a broker-b\n"
	    "broker-a destroyQueue fwd\n"
	    "broker-b destroyDivert d1\n"
	    "broker-b destroyQueue fwd\n");
	assert_true(apply_result_ok(s.r));
	assert_string_equal(s.r->resumes, "id0");
	a = &s.r->nodes[0];
	assert_int_equal(a->nops, 2);
	assert_int_equal(a->ops[0].state, APPLY_OP_DONE);
	assert_int_equal(a->ops[0].established, APPLY_EST_RESUME_READ);
	assert_int_equal(a->ops[1].state, APPLY_OP_DONE);
	assert_int_equal(a->ops[1].established, APPLY_EST_REPLY);
	assert_string_equal(a->detail,
	    "2 operation(s) applied; 1 of them by the interrupted apply this "
	    "one resumes (the node read before acting shows them done)");
	assert_string_equal(a->notes[0],
	    "delete-queue 'fwd': resumed: the interrupted apply id0 did its "
	    "first 1 of 2 operation(s) (the node read now shows it): as "
	    "planned");
	/* the intent row of the resuming apply marks what was done */
	row = apply_audit_render_intent(s.r);
	assert_non_null(strstr(row, "\"resumes\":\"id0\""));
	assert_non_null(
	    strstr(row, "\"established\":\"resume-read\",\"name\":\"d1\","
	                "\"op\":\"destroyDivert\",\"outcome\":\"DONE\""));
	free(row);
	row = apply_audit_render_result(s.r);
	assert_non_null(strstr(row, "\"resumes\":\"id0\""));
	free(row);
	apply_update_managed(&s.m, s.p, s.r, &s.f.c);
	assert_false(plan_managed_has_queue(&s.m, "fwd"));
	scen_free(&s);
	apply_result_free(was);
}

/* Killed at every boundary: before the first operation, between each two,
 * after the last. Each resumes to the plan's end; the operations already
 * done are not sent again. */
static void
test_resume__every_boundary(void **unused)
{
	static const char *const all[] = {
	    "broker-a destroyDivert d1\n",
	    "broker-a destroyQueue fwd\n",
	    "broker-b destroyDivert d1\n",
	    "broker-b destroyQueue fwd\n",
	};
	struct apply_result *was;
	struct sbuf want = {0};
	struct scen s;
	size_t after, i, done;

	(void)unused;
	for (after = 0; after <= 4; after++) {
		scen_init(&s, false);
		was = interrupted(&s, after);
		resume(&s, was);
		sbuf_reset(&want);
		for (i = after; i < 4; i++)
			sbuf_adds(&want, all[i]);
		assert_string_equal(sbuf_str(&s.k.log), sbuf_str(&want));
		assert_true(apply_result_ok(s.r));
		for (i = done = 0; i < 2; i++) {
			assert_int_equal(s.r->nodes[i].nops, 2);
			done += s.r->nodes[i].done_before;
		}
		assert_int_equal(done, after);
		assert_null(recon_node_find_queue(&s.f.s.nodes[0], "fwd"));
		assert_null(recon_node_find_queue(&s.f.s.nodes[1], "fwd"));
		scen_free(&s);
		apply_result_free(was);
	}
	sbuf_release(&want);
}

/* A node that is no prefix of the interrupted apply's operations (its
 * queue gone, its divert still there) is refused as stale; nothing runs
 * there; what the read shows is said. */
static void
test_resume__not_a_prefix_is_stale(void **unused)
{
	struct apply_result *was;
	struct recon_refusal f = {0};
	struct recon_op op = {0};
	struct scen s;
	char fwd[] = "fwd";

	(void)unused;
	scen_init(&s, false);
	was = interrupted(&s, 0);
	op.name = fwd;
	assert_int_equal(destroy_queue(&s.k, &s.f.s.nodes[0], &op, &f), 0);
	resume(&s, was);
	assert_int_equal(s.r->nodes[0].outcome, APPLY_REFUSED);
	assert_string_equal(s.r->nodes[0].kind, "STALE");
	assert_string_equal(s.r->nodes[0].detail,
	    "stale plan: the node is not as the interrupted apply id0 leaves "
	    "it after any number of its 2 operation(s) here (destroyDivert "
	    "'d1': the divert is still there; destroyQueue 'fwd': the queue is "
	    "gone); resuming would guess; nothing ran on this node; plan "
	    "again");
	assert_int_equal(s.r->nodes[0].ops[0].state, APPLY_OP_UNKNOWN);
	assert_int_equal(s.r->nodes[0].ops[1].state, APPLY_OP_UNKNOWN);
	assert_int_equal(s.r->nodes[1].outcome, APPLY_APPLIED);
	assert_string_equal(sbuf_str(&s.k.log),
	    "broker-b destroyDivert d1\nbroker-b destroyQueue fwd\n");
	/* the queue is gone from both nodes now (the read shows it on a):
	 * it leaves the inventory */
	apply_update_managed(&s.m, s.p, s.r, &s.f.c);
	assert_false(plan_managed_has_queue(&s.m, "fwd"));
	scen_free(&s);
	apply_result_free(was);
}

/* A prefix, but what is left no longer holds (a consumer attached to the
 * queue still to delete): refused as stale; the operation done stays DONE
 * in the record, the rest NOT_RUN; the notes say nothing ran here. */
static void
test_resume__rest_checked_again(void **unused)
{
	struct apply_result *was;
	struct scen s;
	const struct apply_node *a;
	size_t i;

	(void)unused;
	scen_init(&s, false);
	was = interrupted(&s, 1);
	fx_lqueue_get(&s.f, 0, "fwd")->consumer_count = 1;
	resume(&s, was);
	a = &s.r->nodes[0];
	assert_int_equal(a->outcome, APPLY_REFUSED);
	assert_non_null(strstr(a->detail, "stale plan: delete-queue 'fwd': "));
	assert_int_equal(a->nops, 2);
	assert_int_equal(a->ops[0].state, APPLY_OP_DONE);
	assert_int_equal(a->ops[0].established, APPLY_EST_RESUME_READ);
	assert_int_equal(a->ops[1].state, APPLY_OP_NOT_RUN);
	for (i = 0; i < a->nnotes; i++)
		assert_null(strstr(a->notes[i], "as planned"));
	assert_string_equal(sbuf_str(&s.k.log),
	    "broker-b destroyDivert d1\nbroker-b destroyQueue fwd\n");
	scen_free(&s);
	apply_result_free(was);
}

/* Resuming, a node that cannot be read is UNREACHABLE and what the
 * interrupted apply did there is unknown, said so; an intent row whose
 * operations are not the plan's refuses its node. */
static void
test_resume__unreadable_or_not_the_plans(void **unused)
{
	struct apply_result *was;
	struct scen s;
	const struct apply_node *a;

	(void)unused;
	scen_init(&s, false);
	was = interrupted(&s, 1);
	s.k.down = "broker-a";
	resume(&s, was);
	a = &s.r->nodes[0];
	assert_int_equal(a->outcome, APPLY_UNREACHABLE);
	assert_int_equal(a->nops, 2);
	assert_int_equal(a->ops[0].state, APPLY_OP_UNKNOWN);
	assert_int_equal(a->ops[1].state, APPLY_OP_UNKNOWN);
	assert_string_equal(a->notes[0],
	    "the interrupted apply id0 was to run 2 operation(s) here; the "
	    "node could not be read, so which of them ran is unknown");
	assert_int_equal(s.r->nodes[1].outcome, APPLY_APPLIED);
	scen_free(&s);
	apply_result_free(was);

	scen_init(&s, false);
	was = interrupted(&s, 1);
	free(was->nodes[0].ops[1].op.name);
	was->nodes[0].ops[1].op.name = xstrdup("other");
	resume(&s, was);
	a = &s.r->nodes[0];
	assert_int_equal(a->outcome, APPLY_REFUSED);
	assert_string_equal(a->detail,
	    "stale plan: the interrupted apply id0's operations on this node "
	    "are not the plan's (see the note): which of them ran is unknown; "
	    "nothing ran on this node; plan again");
	assert_string_equal(a->notes[0],
	    "the interrupted apply's intent row lists destroyQueue 'other' "
	    "(delete-queue 'fwd') where plan.json holds no such operation for "
	    "this node");
	assert_int_equal(a->ops[1].state, APPLY_OP_UNKNOWN);
	assert_string_equal(sbuf_str(&s.k.log),
	    "broker-b destroyDivert d1\nbroker-b destroyQueue fwd\n");
	scen_free(&s);
	apply_result_free(was);
}

/* Creates, then deletes, killed after the first create on node a: the
 * address is there, the queue not yet: resumed from the queue's create. */
static void
test_resume__creates_then_deletes(void **unused)
{
	struct apply_result *was;
	struct scen s;

	(void)unused;
	scen_init(&s, false);
	fx_queue(&s.f, "fresh", "fresh");
	scen_replan(&s);
	was = interrupted(&s, 1);
	resume(&s, was);
	assert_true(apply_result_ok(s.r));
	assert_string_equal(sbuf_str(&s.k.trace),
	    "read broker-a broker-b\n"
	    "broker-a createQueue fresh\n"
	    "read broker-a\n"
	    "broker-a destroyDivert d1\n"
	    "broker-a destroyQueue fwd\n"
	    "broker-b createAddress fresh\n"
	    "broker-b createQueue fresh\n"
	    "read broker-b\n"
	    "broker-b destroyDivert d1\n"
	    "broker-b destroyQueue fwd\n");
	assert_int_equal(s.r->nodes[0].done_before, 1);
	assert_string_equal(s.r->nodes[0].notes[0],
	    "create-address 'fresh': done by the interrupted apply id0 (the "
	    "node read now shows it)");
	scen_free(&s);
	apply_result_free(was);
}

/* The prefix of a divert recreate (destroy, then create the same name):
 * the divert with its old configuration is 0 done, gone is 1, with the
 * new one 2; with a third configuration there is no prefix. */
static void
test_resume__prefix_of_a_recreate(void **unused)
{
	struct apply_op ops[2];
	struct recon_divert *was, *want;
	struct recon_divert *ld;
	struct fx f;

	(void)unused;
	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	fx_lqueue(&f, 0, "a", "a", 0, 0);
	ld = fx_ldivert(&f, 0, "d", "a", "a");
	was = recon_divert_dup(ld);
	want = recon_divert_dup(ld);
	want->exclusive = true;
	memset(ops, 0, sizeof(ops));
	ops[0].op.kind = RECON_OP_DESTROY_DIVERT;
	ops[0].op.name = xstrdup("d");
	ops[0].op.divert = was;
	ops[1].op.kind = RECON_OP_CREATE_DIVERT;
	ops[1].op.name = xstrdup("d");
	ops[1].op.divert = want;
	assert_int_equal(apply_resume_prefix(ops, 2, &f.s.nodes[0]), 0);
	ld->exclusive = true;
	assert_int_equal(apply_resume_prefix(ops, 2, &f.s.nodes[0]), 2);
	ld->filter = xstrdup("x = 1");
	assert_int_equal(apply_resume_prefix(ops, 2, &f.s.nodes[0]),
	    (size_t)-1);
	f.s.nodes[0].ndiverts = 0;
	assert_int_equal(apply_resume_prefix(ops, 2, &f.s.nodes[0]), 1);
	f.s.nodes[0].ndiverts = 1;
	recon_op_release(&ops[0].op);
	recon_op_release(&ops[1].op);
	fx_free(&f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_resume__after_first_operation),
	    cmocka_unit_test(test_resume__every_boundary),
	    cmocka_unit_test(test_resume__not_a_prefix_is_stale),
	    cmocka_unit_test(test_resume__rest_checked_again),
	    cmocka_unit_test(test_resume__unreadable_or_not_the_plans),
	    cmocka_unit_test(test_resume__creates_then_deletes),
	    cmocka_unit_test(test_resume__prefix_of_a_recreate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
