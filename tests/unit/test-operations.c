/* tests/unit/test-operations.c: reconcile/apply/operations.c: running a node's
 * operations in order, the first failure stops the node without rollback
 * (ADR-0084 D3) and its detail says what was done, creates read back. */
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
test_operations__failed_divert_delete_leaves_queue(void **unused)
{
	struct scen s;
	struct err err = {0};

	(void)unused;
	scen_init(&s, false);
	s.k.fail = "destroyDivert d1";
	s.k.fail_kind = RECON_FORBIDDEN;
	assert_int_equal(apply_run(s.r, s.p, &s.f.c, &s.io, &err), 0);
	assert_string_equal(sbuf_str(&s.k.log),
	    "broker-a destroyDivert d1\nbroker-b destroyDivert d1\n");
	assert_int_equal(s.r->nodes[0].outcome, APPLY_FAILED);
	assert_string_equal(s.r->nodes[0].kind, "FORBIDDEN");
	assert_string_equal(s.r->nodes[0].detail,
	    "destroyDivert 'd1' failed: FORBIDDEN: injected failure; queue "
	    "'fwd' left in place; 1 later operation(s) not run");
	assert_int_equal(s.r->nodes[0].ops[1].state, APPLY_OP_NOT_RUN);
	assert_non_null(recon_node_find_queue(&s.f.s.nodes[0], "fwd"));
	assert_false(apply_result_ok(s.r));
	scen_free(&s);
}

static void
test_operations__failed_queue_delete_names_removed_diverts(void **unused)
{
	struct scen s;
	struct err err = {0};
	char *row;

	(void)unused;
	scen_init(&s, false);
	s.k.fail = "destroyQueue fwd";
	s.k.fail_kind = RECON_TIMEOUT;
	assert_int_equal(apply_run(s.r, s.p, &s.f.c, &s.io, &err), 0);
	assert_int_equal(s.r->nodes[1].outcome, APPLY_FAILED);
	/* a TIMEOUT is a lost reply: the node is read back, and the queue
	 * the fake did not destroy is still there: not done */
	assert_string_equal(s.r->nodes[1].detail,
	    "destroyQueue 'fwd' failed: TIMEOUT: injected failure; its reply "
	    "was lost and the node, read back, shows it not done (the queue "
	    "is still there); its dependent divert(s) 'd1' were removed "
	    "before it and stay removed (no rollback; the audit row holds "
	    "their configuration)");
	assert_int_equal(s.r->nodes[1].ops[1].established, APPLY_EST_READ_BACK);
	assert_null(recon_node_find_divert(&s.f.s.nodes[1], "d1"));
	row = apply_audit_render_result(s.r);
	assert_non_null(strstr(row, "\"outcome\":\"DONE\""));
	assert_non_null(strstr(row,
	    "\"error\":\"injected failure\",\"established\":\"read-back\","
	    "\"kind\":\"TIMEOUT\",\"name\":\"fwd\",\"op\":\"destroyQueue\","
	    "\"outcome\":\"FAILED\""));
	assert_non_null(strstr(row, "\"exit\":1"));
	free(row);
	row = apply_result_render_md(s.r);
	assert_non_null(strstr(row, "**2 node(s) did not apply** (nothing is "
	                            "rolled back; see each node below).\n"));
	assert_non_null(strstr(row,
	    "| 2 | destroyQueue | fwd | FAILED (read back: its reply was lost) "
	    "| TIMEOUT: injected failure |\n"));
	assert_non_null(strstr(row,
	    "- `d1` (source `src`, forwarding `fwd`): `{\"address\":\"src\","
	    "\"exclusive\":false,\"filter-string\":\"\","
	    "\"forwarding-address\":\"fwd\",\"name\":\"d1\","
	    "\"routing-name\":\"d1\",\"routing-type\":\"ANYCAST\"}`\n"));
	free(row);
	scen_free(&s);
}

static void
test_operations__has_consumers_at_call_names_the_flag(void **unused)
{
	struct scen s;
	struct err err = {0};

	(void)unused;
	scen_init(&s, false);
	s.k.attach_before_destroy = "fwd";
	assert_int_equal(apply_run(s.r, s.p, &s.f.c, &s.io, &err), 0);
	assert_int_equal(s.r->nodes[0].outcome, APPLY_FAILED);
	assert_string_equal(s.r->nodes[0].kind, "HAS_CONSUMERS");
	assert_non_null(strstr(s.r->nodes[0].detail,
	    "; a consumer attached after the preflight: stop it, or plan "
	    "again with --disconnect-consumers"));
	scen_free(&s);
}

/* Issue 14.4: the broker did the operation but its reply was lost (each
 * kind of lost reply): the node is read back once, right after; the
 * queue it shows gone is DONE, established by read-back, the next
 * operation runs, the audit row and result.md say how it is known. */
static void
test_operations__lost_reply_done_by_read_back(void **unused)
{
	static const enum recon_kind kinds[] = {RECON_TIMEOUT,
	    RECON_UNREACHABLE, RECON_BAD_RESPONSE};
	struct scen s;
	struct err err = {0};
	const struct apply_node *a;
	char *row;
	size_t i;

	(void)unused;
	for (i = 0; i < 3; i++) {
		scen_init(&s, false);
		s.k.lose = "destroyDivert d1";
		s.k.lost_kind = kinds[i];
		assert_int_equal(apply_run(s.r, s.p, &s.f.c, &s.io, &err), 0);
		assert_string_equal(sbuf_str(&s.k.trace),
		    "read broker-a broker-b\n"
		    "broker-a destroyDivert d1\n"
		    "read broker-a\n"
		    "broker-a destroyQueue fwd\n"
		    "broker-b destroyDivert d1\n"
		    "read broker-b\n"
		    "broker-b destroyQueue fwd\n");
		a = &s.r->nodes[0];
		assert_int_equal(a->outcome, APPLY_APPLIED);
		assert_int_equal(a->ops[0].state, APPLY_OP_DONE);
		assert_int_equal(a->ops[0].established, APPLY_EST_READ_BACK);
		assert_int_equal(a->ops[1].state, APPLY_OP_DONE);
		assert_int_equal(a->ops[1].established, APPLY_EST_REPLY);
		assert_string_equal(a->detail,
		    "2 operation(s) applied; 1 of them established by reading "
		    "the node back after their reply was lost");
		row = xasprintf("destroyDivert 'd1': its reply was lost (%s); "
		                "the node read back: the divert is gone: done",
		    recon_kind_name(kinds[i]));
		assert_string_equal(a->notes[1], row);
		free(row);
		assert_true(apply_result_ok(s.r));
		row = apply_audit_render_result(s.r);
		assert_non_null(strstr(row, "\"established\":\"read-back\""));
		assert_non_null(
		    strstr(row, "\"name\":\"d1\",\"op\":\"destroyDivert\","
		                "\"outcome\":\"DONE\""));
		free(row);
		scen_free(&s);
	}
}

/* A create whose reply was lost is DONE when the node read back has it
 * with the configuration sent, FAILED when it does not. */
static void
test_operations__lost_create_reply(void **unused)
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
		memset(&k, 0, sizeof(k));
		k.ignore_divert = ignore;
		k.lose = "createDivert ab";
		k.lost_kind = RECON_TIMEOUT;
		r = xcalloc(1, sizeof(*r));
		/* the read back right after is the create's read back */
		assert_string_equal(apply_traced(&f, &k, p, r),
		    "read broker-a\nbroker-a createDivert ab\nread broker-a\n");
		assert_int_equal(r->nodes[0].ops[0].established,
		    APPLY_EST_READ_BACK);
		if (ignore) {
			assert_int_equal(r->nodes[0].outcome, APPLY_FAILED);
			assert_int_equal(r->nodes[0].ops[0].state,
			    APPLY_OP_FAILED);
			assert_string_equal(r->nodes[0].detail,
			    "createDivert 'ab' failed: TIMEOUT: injected lost "
			    "reply; its reply was lost and the node, read back, "
			    "shows it not done (the divert is not there)");
		} else {
			assert_int_equal(r->nodes[0].outcome, APPLY_APPLIED);
			assert_int_equal(r->nodes[0].ops[0].state,
			    APPLY_OP_DONE);
		}
		apply_result_free(r);
		plan_free(p);
		sbuf_release(&k.log);
		sbuf_release(&k.trace);
		free(k.intent_row);
		fx_free(&f);
	}
}

/* The reply was lost and the node cannot be read back: the outcome is
 * UNKNOWN, and said so; the node stops there. */
static void
test_operations__lost_reply_unreadable_is_unknown(void **unused)
{
	struct scen s;
	struct err err = {0};
	const struct apply_node *a;
	char *row;

	(void)unused;
	scen_init(&s, false);
	s.k.lose = "destroyDivert d1";
	s.k.lost_kind = RECON_TIMEOUT;
	s.k.down_after_lost = true;
	assert_int_equal(apply_run(s.r, s.p, &s.f.c, &s.io, &err), 0);
	a = &s.r->nodes[0];
	assert_int_equal(a->outcome, APPLY_FAILED);
	assert_string_equal(a->kind, "TIMEOUT");
	assert_int_equal(a->ops[0].state, APPLY_OP_UNKNOWN);
	assert_int_equal(a->ops[0].established, APPLY_EST_REPLY);
	assert_int_equal(a->ops[1].state, APPLY_OP_NOT_RUN);
	assert_string_equal(a->detail,
	    "destroyDivert 'd1': outcome unknown: its reply was lost (TIMEOUT: "
	    "injected lost reply) and the node could not be read back "
	    "(UNREACHABLE: connection refused); read the node (snapshot) "
	    "before planning again; queue 'fwd' left in place; 1 later "
	    "operation(s) not run");
	row = apply_audit_render_result(s.r);
	assert_non_null(strstr(row, "\"outcome\":\"UNKNOWN\""));
	free(row);
	scen_free(&s);
}

/* A refusal in the broker's reply is not a lost reply: no read back. */
static void
test_operations__refusal_is_not_read_back(void **unused)
{
	struct scen s;
	struct err err = {0};

	(void)unused;
	scen_init(&s, false);
	s.k.fail = "destroyDivert d1";
	s.k.fail_kind = RECON_FORBIDDEN;
	assert_int_equal(apply_run(s.r, s.p, &s.f.c, &s.io, &err), 0);
	assert_string_equal(sbuf_str(&s.k.trace),
	    "read broker-a broker-b\nbroker-a destroyDivert d1\n"
	    "broker-b destroyDivert d1\n");
	assert_int_equal(s.r->nodes[0].ops[0].established, APPLY_EST_REPLY);
	scen_free(&s);
}

/* A declared divert created by the plan that the broker silently ignores
 * fails its node on read back, before any delete. */
static void
test_operations__create_read_back(void **unused)
{
	struct plan_opts opts = {.revision = "r", .snapshot_source = "l"};
	struct plan_managed m = {0};
	struct fx f;
	struct fake k;
	struct apply_io io;
	struct apply_result *r = xcalloc(1, sizeof(*r));
	struct plan *p;
	struct err err = {0};

	(void)unused;
	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	fx_queue(&f, "a", "a");
	fx_queue(&f, "b", "b");
	fx_divert(&f, "ab", "a", "b");
	fx_lqueue(&f, 0, "a", "a", 0, 0);
	fx_lqueue(&f, 0, "b", "b", 0, 0);
	p = plan_build(&f.c, &m, &f.s, &opts);
	assert_int_equal(p->outcome, PLAN_OUT_WOULD_APPLY);
	memset(&k, 0, sizeof(k));
	k.f = &f;
	k.ignore_divert = true;
	fake_io(&io, &k);
	assert_int_equal(apply_run(r, p, &f.c, &io, &err), 0);
	assert_int_equal(r->nodes[0].outcome, APPLY_FAILED);
	assert_string_equal(r->nodes[0].kind, "NOT_FOUND");
	assert_non_null(strstr(r->nodes[0].detail,
	    "createDivert 'ab' failed: NOT_FOUND: the broker accepted the "
	    "divert but it is not there on read back"));
	apply_result_free(r);
	plan_free(p);
	sbuf_release(&k.log);
	sbuf_release(&k.trace);
	free(k.intent_row);
	fx_free(&f);
}

/* Creates, then deletes: the creates are read back before the first
 * delete (a read of that node alone): 2 reads; with a capture declared the
 * node is read once more after the deletes for the capture pass: 3. */
static void
test_operations__reads_creates_then_deletes(void **unused)
{
	struct scen s;
	struct err err = {0};
	int capture;
	char *want;

	(void)unused;
	for (capture = 0; capture < 2; capture++) {
		scen_init(&s, false);
		fx_queue(&s.f, "fresh", "fresh");
		if (capture)
			scen_with_capture(&s);
		else
			scen_replan(&s);
		assert_int_equal(apply_run(s.r, s.p, &s.f.c, &s.io, &err), 0);
		assert_true(apply_result_ok(s.r));
		want = xasprintf("%s%s",
		    "read broker-a broker-b\n"
		    "broker-a createAddress fresh\n"
		    "broker-a createQueue fresh\n"
		    "read broker-a\n"
		    "broker-a destroyDivert d1\n"
		    "broker-a destroyQueue fwd\n"
		    "broker-b createAddress fresh\n"
		    "broker-b createQueue fresh\n"
		    "read broker-b\n"
		    "broker-b destroyDivert d1\n"
		    "broker-b destroyQueue fwd\n",
		    capture ? "read broker-a broker-b\n" : "");
		assert_string_equal(sbuf_str(&s.k.trace), want);
		assert_int_equal(s.k.reads[0], 2 + capture);
		assert_int_equal(s.k.reads[1], 2 + capture);
		free(want);
		scen_free(&s);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(
	        test_operations__failed_divert_delete_leaves_queue),
	    cmocka_unit_test(
	        test_operations__failed_queue_delete_names_removed_diverts),
	    cmocka_unit_test(
	        test_operations__has_consumers_at_call_names_the_flag),
	    cmocka_unit_test(test_operations__lost_reply_done_by_read_back),
	    cmocka_unit_test(test_operations__lost_create_reply),
	    cmocka_unit_test(test_operations__lost_reply_unreadable_is_unknown),
	    cmocka_unit_test(test_operations__refusal_is_not_read_back),
	    cmocka_unit_test(test_operations__create_read_back),
	    cmocka_unit_test(test_operations__reads_creates_then_deletes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
