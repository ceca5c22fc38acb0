/* tests/unit/test-plan.c: the ADR-0084 queue-delete preflight and the
 * three-way diff, on hand-built declarations and snapshots. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/afile.h"
#include "../../reconcile/plan/plan.h"
#include "recon-fixture.h"

static struct plan_opts no_opts = {false, NULL, "test"};
static struct plan_opts dc_opts = {true, NULL, "test"};

static const struct plan_step *
step(const struct plan *p, enum plan_action_kind k, const char *name,
    size_t node)
{
	size_t i;

	for (i = 0; i < p->nactions; i++)
		if (p->actions[i].kind == k &&
		    strcmp(p->actions[i].name, name) == 0)
			return &p->actions[i].nodes[node];
	return NULL;
}

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
test_plan__d1_last_queue_removes_forwarding_divert(void **state)
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
test_plan__d1_other_queue_keeps_divert(void **state)
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
test_plan__d1_created_queue_counts_as_remaining(void **state)
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
test_plan__d2_studio_declared_with_queue_recreates(void **state)
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
test_plan__d2_studio_declared_without_queue_nothing_consumes(void **state)
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
test_plan__d2_config_managed_broker_xml_carries_it(void **state)
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
test_plan__d4_source_divert_kept_with_reason(void **state)
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
test_plan__d5_tap_fates(void **state)
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
test_plan__d6_consumers_refused_without_flag(void **state)
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
test_plan__d6_consumers_warned_with_flag(void **state)
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
test_plan__unreachable_and_absent(void **state)
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

static void
managed_of(struct plan_managed *m, struct fx *f)
{
	plan_managed_from_decl(m, &f->c, "inventory", "rev1");
}

static void
test_plan__no_inventory_deletes_nothing(void **state)
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
test_plan__managed_removed_is_deleted_order_creates_first(void **state)
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
test_plan__change_in_place_vs_recreate(void **state)
{
	const struct plan_step *np;
	struct plan_managed m = {0};
	struct plan *p;
	struct decl_queue *q;
	struct fx f;

	(void)state;
	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	q = fx_queue(&f, "a", "qa");
	q->max_consumers = 5;
	q = fx_queue(&f, "b", "qb");
	q->durable = false;
	fx_lqueue(&f, 0, "a", "qa", 0, 0);
	fx_lqueue(&f, 0, "b", "qb", 0, 7);
	p = plan_build(&f.c, &m, &f.s, &no_opts);
	np = step(p, PLAN_ACT_CHANGE_QUEUE, "qa", 0);
	assert_non_null(np);
	assert_string_equal(np->message, "differs: max-consumers");
	assert_int_equal(np->ops[0].kind, RECON_OP_UPDATE_QUEUE);
	assert_int_equal(np->ops[0].queue->max_consumers, 5);
	np = step(p, PLAN_ACT_RECREATE_QUEUE, "qb", 0);
	assert_non_null(np);
	assert_string_equal(np->message,
	    "differs in what updateQueue cannot change: durable");
	assert_int_equal(np->nops, 2);
	assert_int_equal(np->ops[0].kind, RECON_OP_DESTROY_QUEUE);
	assert_int_equal(np->ops[1].kind, RECON_OP_CREATE_QUEUE);
	assert_int_equal(p->destroyed_messages, 7);
	plan_free(p);
	fx_free(&f);
}

static void
test_plan__d7_bulk_cap(void **state)
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
test_plan__taps_never_touched_by_diff(void **state)
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
test_plan__confirmation_changes_with_plan(void **state)
{
	struct plan_managed m = {0};
	struct plan *p;
	struct fx f;
	char *c1, *c2;

	(void)state;
	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	fx_queue(&f, "orders", "orders");
	fx_lqueue(&f, 0, "orders", "orders", 0, 0);
	f.s.nodes[0].queues[0].max_consumers = 3;
	p = plan_build(&f.c, &m, &f.s, &no_opts);
	c1 = plan_confirmation(p);
	plan_free(p);
	f.s.nodes[0].queues[0].max_consumers = 4;
	p = plan_build(&f.c, &m, &f.s, &dc_opts);
	c2 = plan_confirmation(p);
	assert_true(strncmp(c1, "change 1 on shop-eu ", 20) == 0);
	assert_true(strncmp(c2, "change 1 on shop-eu ", 20) == 0);
	assert_string_not_equal(c1, c2);
	free(c1);
	free(c2);
	plan_free(p);
	fx_free(&f);
}

static void
test_plan__inventory_round_trip(void **state)
{
	struct plan_managed m = {0}, m2 = {0};
	struct err err = {0};
	struct fx f;
	char *text, *text2, *msg;

	(void)state;
	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	fx_queue(&f, "orders", "orders");
	fx_divert(&f, "d", "orders", "x");
	managed_of(&m, &f);
	text = plan_inventory_render(&m, "shop-eu");
	assert_int_equal(plan_inventory_parse(&m2, "inv.json", text,
	                     strlen(text), "shop-eu", &err),
	    0);
	text2 = plan_inventory_render(&m2, "shop-eu");
	assert_string_equal(text, text2);
	assert_true(plan_managed_has_queue(&m2, "orders"));
	assert_false(plan_managed_has_queue(&m2, "nope"));
	assert_int_equal(plan_inventory_parse(&m2, "inv.json", text,
	                     strlen(text), "ledger", &err),
	    -1);
	msg = err_render(&err);
	assert_string_equal(msg, "inv.json: 'cluster': expected 'ledger'");
	free(msg);
	err_release(&err);
	free(text);
	free(text2);
	plan_managed_release(&m);
	plan_managed_release(&m2);
	fx_free(&f);
}

/* plan.json of every golden case parses and renders to the same bytes. */
static void
test_plan__json_round_trip_goldens(void **state)
{
	struct plan *p = NULL;
	struct err err = {0};
	char *text, *again;
	glob_t g;
	size_t i, len;

	(void)state;
	assert_int_equal(
	    glob("tests/golden/recon/*/expect/plan.json", 0, NULL, &g), 0);
	assert_true(g.gl_pathc >= 10);
	for (i = 0; i < g.gl_pathc; i++) {
		assert_int_equal(
		    afile_read(&text, &len, g.gl_pathv[i], 1u << 24, &err), 0);
		assert_int_equal(
		    plan_parse_json(&p, g.gl_pathv[i], text, len, &err), 0);
		again = plan_render_json(p);
		assert_string_equal(again, text);
		free(again);
		free(text);
		plan_free(p);
	}
	globfree(&g);
}

/* plan.json carries the planned declaration's digest (so an approval of
 * plan.json covers it); it survives the round trip, and a plan of format
 * 1 (which had none) or with a malformed digest is refused. */
static void
test_plan__json_binds_the_declaration_digest(void **state)
{
	struct plan *p, *q = NULL;
	struct plan_managed m = {0};
	struct err err = {0};
	char hex[SHA256_HEX], *text, *again, *bad, *at, *msg;
	struct fx f;

	(void)state;
	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	fx_queue(&f, "orders", "orders");
	decl_cluster_digest(&f.c, hex);
	p = plan_build(&f.c, &m, &f.s, &no_opts);
	assert_non_null(p->declaration_digest);
	assert_string_equal(p->declaration_digest, hex);
	text = plan_render_json(p);
	assert_non_null(strstr(text, "\"format\": 2,\n"));
	at = strstr(text, "\"declaration_digest\": \"");
	assert_non_null(at);
	assert_memory_equal(at + 23, hex, SHA256_HEX - 1);
	assert_int_equal(
	    plan_parse_json(&q, "plan.json", text, strlen(text), &err), 0);
	assert_string_equal(q->declaration_digest, hex);
	again = plan_render_json(q);
	assert_string_equal(again, text);
	free(again);
	plan_free(q);
	/* the digest is part of what the confirmation text hashes */
	free(p->declaration_digest);
	p->declaration_digest = xstrdup(
	    "0000000000000000000000000000000000000000000000000000000000000000");
	again = plan_confirmation(p);
	q = plan_build(&f.c, &m, &f.s, &no_opts);
	msg = plan_confirmation(q);
	plan_free(q);
	/* the same snapshot, so only the digest differs */
	assert_non_null(strstr(msg, " on "));
	assert_string_not_equal(again, msg);
	free(again);
	free(msg);
	plan_free(p);
	/* format 1 */
	bad = xstrdup(text);
	at = strstr(bad, "\"format\": 2");
	at[10] = '1';
	assert_int_equal(
	    plan_parse_json(&q, "plan.json", bad, strlen(bad), &err), -1);
	msg = err_render(&err);
	assert_string_equal(msg,
	    "plan.json: format: unsupported plan format (this build reads 2; plan again)");
	free(msg);
	err_release(&err);
	free(bad);
	/* not a SHA-256 */
	bad = xstrdup(text);
	at = strstr(bad, "\"declaration_digest\": \"");
	at[23] = 'X';
	assert_int_equal(
	    plan_parse_json(&q, "plan.json", bad, strlen(bad), &err), -1);
	msg = err_render(&err);
	assert_string_equal(msg,
	    "plan.json: declaration_digest: expected a SHA-256 in lower-case hex");
	free(msg);
	err_release(&err);
	free(bad);
	free(text);
	fx_free(&f);
}

static void
test_plan__json_parse_errors_name_the_member(void **state)
{
	struct plan *p;
	struct plan_managed m = {0};
	struct err err = {0};
	struct fx f;
	char *text, *bad, *at, *msg;

	(void)state;
	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	fx_queue(&f, "orders", "orders");
	p = plan_build(&f.c, &m, &f.s, &no_opts);
	text = plan_render_json(p);
	plan_free(p);
	bad = xstrdup(text);
	at = strstr(bad, "\"outcome\": \"WOULD_APPLY\"");
	assert_non_null(at);
	memcpy(at + 12, "WOULD_APPLX", 11);
	assert_int_equal(
	    plan_parse_json(&p, "plan.json", bad, strlen(bad), &err), -1);
	msg = err_render(&err);
	assert_string_equal(msg,
	    "plan.json: actions[0].nodes[0].outcome: unknown outcome");
	free(msg);
	err_release(&err);
	assert_int_equal(plan_parse_json(&p, "plan.json", "[]", 2, &err), -1);
	msg = err_render(&err);
	assert_string_equal(msg, "plan.json: not a JSON object");
	free(msg);
	err_release(&err);
	free(bad);
	free(text);
	fx_free(&f);
}

/* Past PLAN_MD_MAX the actions are cut; the summary stays first and
 * the approval text last. */
static void
test_plan__md_truncated_with_pointer(void **state)
{
	struct plan_managed m = {0};
	struct plan *p;
	struct fx f;
	char name[32], *md, *c;
	size_t i;

	(void)state;
	fx_init(&f, DECL_STUDIO_MANAGED, 2);
	for (i = 0; i < 400; i++) {
		snprintf(name, sizeof(name), "queue-%03zu", i);
		fx_queue(&f, "orders", name);
	}
	p = plan_build(&f.c, &m, &f.s, &no_opts);
	md = plan_render_md(p, "out");
	c = plan_confirmation(p);
	assert_true(strlen(md) <= PLAN_MD_MAX);
	assert_true(
	    strncmp(md, "# shop-eu: WOULD_APPLY — create 401", 35) == 0);
	assert_non_null(strstr(md,
	    "more actions are not shown here; the full plan is in `out/plan.json`"));
	assert_non_null(strstr(md, c));
	free(c);
	free(md);
	plan_free(p);
	fx_free(&f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(
	        test_plan__d1_last_queue_removes_forwarding_divert),
	    cmocka_unit_test(test_plan__d1_other_queue_keeps_divert),
	    cmocka_unit_test(test_plan__d1_created_queue_counts_as_remaining),
	    cmocka_unit_test(
	        test_plan__d2_studio_declared_with_queue_recreates),
	    cmocka_unit_test(
	        test_plan__d2_studio_declared_without_queue_nothing_consumes),
	    cmocka_unit_test(
	        test_plan__d2_config_managed_broker_xml_carries_it),
	    cmocka_unit_test(test_plan__d4_source_divert_kept_with_reason),
	    cmocka_unit_test(test_plan__d5_tap_fates),
	    cmocka_unit_test(test_plan__d6_consumers_refused_without_flag),
	    cmocka_unit_test(test_plan__d6_consumers_warned_with_flag),
	    cmocka_unit_test(test_plan__unreachable_and_absent),
	    cmocka_unit_test(test_plan__no_inventory_deletes_nothing),
	    cmocka_unit_test(
	        test_plan__managed_removed_is_deleted_order_creates_first),
	    cmocka_unit_test(test_plan__change_in_place_vs_recreate),
	    cmocka_unit_test(test_plan__d7_bulk_cap),
	    cmocka_unit_test(test_plan__taps_never_touched_by_diff),
	    cmocka_unit_test(test_plan__confirmation_changes_with_plan),
	    cmocka_unit_test(test_plan__inventory_round_trip),
	    cmocka_unit_test(test_plan__json_round_trip_goldens),
	    cmocka_unit_test(test_plan__json_binds_the_declaration_digest),
	    cmocka_unit_test(test_plan__json_parse_errors_name_the_member),
	    cmocka_unit_test(test_plan__md_truncated_with_pointer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
