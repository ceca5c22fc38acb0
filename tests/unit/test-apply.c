/* tests/unit/test-apply.c: the apply engine against a fake broker: order
 * (diverts, then the queue), failures without rollback, stale and no-op
 * nodes, HAS_CONSUMERS at call time, read back of creates, audit rows, the
 * managed set, approvals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/sbuf.h"
#include "../../reconcile/apply/apply-int.h"
#include "recon-fixture.h"

/* ---- a fake broker over the fixture's snapshot ---- */

struct fake {
	struct fx *f;
	struct sbuf log;  /* one line per exec: "node op name" */
	const char *fail; /* "opName name": that exec fails */
	enum recon_kind fail_kind;
	const char *down;   /* a node whose reads fail */
	bool ignore_divert; /* createDivert silently does nothing */
	bool refuse_intent;
	char *intent_row;
	/* a consumer attaches to this queue right before its destroy */
	const char *attach_before_destroy;
	/* reads and execs in order: "read a b" per read (all the nodes it
	 * read at once), "node op name" per exec */
	struct sbuf trace;
	size_t reads[4]; /* per fixture node: how many times it was read */
};

static struct recon_node_snapshot *
fake_node(struct fake *k, const char *node)
{
	size_t i;

	for (i = 0; i < k->f->s.nnodes; i++)
		if (strcmp(k->f->s.nodes[i].node, node) == 0)
			return &k->f->s.nodes[i];
	return NULL;
}

static char **
strs_dup(char *const *v, size_t n)
{
	char **c = xcalloc(n + 1, sizeof(*c));
	size_t i;

	for (i = 0; i < n; i++)
		c[i] = xstrdup(v[i]);
	return c;
}

static void
read_one(struct fake *k, const char *node, struct recon_node_snapshot *out)
{
	const struct recon_node_snapshot *n = fake_node(k, node);
	size_t j;

	if (n != NULL && (size_t)(n - k->f->s.nodes) < 4)
		k->reads[n - k->f->s.nodes]++;
	out->node = xstrdup(node);
	if (n == NULL || (k->down != NULL && strcmp(k->down, node) == 0)) {
		out->refusal.kind = RECON_UNREACHABLE;
		out->refusal.text = xstrdup("connection refused");
		return;
	}
	out->broker_name = xstrdup(node);
	out->naddresses = n->naddresses;
	out->addresses = xcalloc(n->naddresses + 1, sizeof(*out->addresses));
	for (j = 0; j < n->naddresses; j++) {
		out->addresses[j] = n->addresses[j];
		out->addresses[j].name = xstrdup(n->addresses[j].name);
		out->addresses[j].queue_names = strs_dup(
		    n->addresses[j].queue_names, n->addresses[j].nqueue_names);
		out->addresses[j].binding_names =
		    strs_dup(n->addresses[j].binding_names,
		        n->addresses[j].nbinding_names);
	}
	out->nqueues = n->nqueues;
	out->queues = xcalloc(n->nqueues + 1, sizeof(*out->queues));
	for (j = 0; j < n->nqueues; j++) {
		struct recon_queue *q = recon_queue_dup(&n->queues[j]);

		out->queues[j] = *q;
		free(q);
	}
	out->ndiverts = n->ndiverts;
	out->diverts = xcalloc(n->ndiverts + 1, sizeof(*out->diverts));
	for (j = 0; j < n->ndiverts; j++)
		recon_divert_copy(&out->diverts[j], &n->diverts[j]);
}

static void
fake_read(void *ctx, const char *node, struct recon_node_snapshot *out)
{
	struct fake *k = ctx;

	sbuf_addf(&k->trace, "read %s\n", node);
	read_one(k, node, out);
}

static void
fake_read_all(void *ctx, const char *const *names, size_t n,
    struct recon_node_snapshot *out)
{
	struct fake *k = ctx;
	size_t i;

	sbuf_adds(&k->trace, "read");
	for (i = 0; i < n; i++)
		sbuf_addf(&k->trace, " %s", names[i]);
	sbuf_adds(&k->trace, "\n");
	for (i = 0; i < n; i++)
		read_one(k, names[i], &out[i]);
}

static void
strs_remove(char **v, size_t *n, const char *name)
{
	size_t i;

	for (i = 0; i < *n; i++) {
		if (strcmp(v[i], name) != 0)
			continue;
		free(v[i]);
		memmove(v + i, v + i + 1, (*n - i - 1) * sizeof(*v));
		(*n)--;
		return;
	}
}

static void
unbind(struct recon_node_snapshot *n, const char *address, const char *name)
{
	size_t j;

	for (j = 0; j < n->naddresses; j++) {
		if (strcmp(n->addresses[j].name, address) != 0)
			continue;
		strs_remove(n->addresses[j].binding_names,
		    &n->addresses[j].nbinding_names, name);
		strs_remove(n->addresses[j].queue_names,
		    &n->addresses[j].nqueue_names, name);
	}
}

static int
refuse(struct recon_refusal *r, enum recon_kind k, const char *text)
{
	r->kind = k;
	r->text = xstrdup(text);
	return -1;
}

static int
destroy_divert(struct recon_node_snapshot *n, const char *name,
    struct recon_refusal *r)
{
	size_t j;

	for (j = 0; j < n->ndiverts; j++) {
		if (strcmp(n->diverts[j].name, name) != 0)
			continue;
		unbind(n, n->diverts[j].address, name);
		recon_divert_release(&n->diverts[j]);
		memmove(n->diverts + j, n->diverts + j + 1,
		    (n->ndiverts - j - 1) * sizeof(*n->diverts));
		n->ndiverts--;
		return 0;
	}
	return refuse(r, RECON_NOT_FOUND, "AMQ229012: No binding for divert");
}

static int
destroy_queue(struct fake *k, struct recon_node_snapshot *n,
    const struct recon_op *op, struct recon_refusal *r)
{
	size_t j;

	for (j = 0; j < n->nqueues; j++) {
		if (strcmp(n->queues[j].name, op->name) != 0)
			continue;
		if (k->attach_before_destroy != NULL &&
		    strcmp(k->attach_before_destroy, op->name) == 0)
			n->queues[j].consumer_count++;
		if (n->queues[j].consumer_count > 0 && !op->remove_consumers)
			return refuse(r, RECON_HAS_CONSUMERS,
			    "AMQ229025: Cannot delete queue - it has consumers");
		unbind(n, n->queues[j].address, op->name);
		recon_queue_release(&n->queues[j]);
		memmove(n->queues + j, n->queues + j + 1,
		    (n->nqueues - j - 1) * sizeof(*n->queues));
		n->nqueues--;
		return 0;
	}
	return refuse(r, RECON_NOT_FOUND, "AMQ229017: Queue does not exist");
}

static int
update_divert(struct recon_node_snapshot *n, const struct recon_op *op,
    struct recon_refusal *r)
{
	size_t j;

	for (j = 0; j < n->ndiverts; j++) {
		if (strcmp(n->diverts[j].name, op->name) != 0)
			continue;
		recon_divert_release(&n->diverts[j]);
		recon_divert_copy(&n->diverts[j], op->divert);
		return 0;
	}
	return refuse(r, RECON_NOT_FOUND, "AMQ229012: No binding for divert");
}

static int
fake_exec(void *ctx, const char *node, const struct recon_op *op,
    struct recon_refusal *r)
{
	struct fake *k = ctx;
	struct recon_node_snapshot *n = fake_node(k, node);
	char *what = xasprintf("%s %s", recon_op_kind_name(op->kind), op->name);
	size_t i = (size_t)(n - k->f->s.nodes);
	bool fail = k->fail != NULL && strcmp(k->fail, what) == 0;
	struct recon_queue *q;

	sbuf_addf(&k->log, "%s %s\n", node, what);
	sbuf_addf(&k->trace, "%s %s\n", node, what);
	free(what);
	if (fail)
		return refuse(r, k->fail_kind, "injected failure");
	switch (op->kind) {
	case RECON_OP_DESTROY_DIVERT:
		return destroy_divert(n, op->name, r);
	case RECON_OP_DESTROY_QUEUE:
		return destroy_queue(k, n, op, r);
	case RECON_OP_CREATE_QUEUE:
		q = fx_lqueue(k->f, i, op->queue->address, op->name, 0, 0);
		q->durable = op->queue->durable;
		q->ring_size = op->queue->ring_size;
		q->routing = op->queue->routing;
		return 0;
	case RECON_OP_CREATE_DIVERT:
		if (!k->ignore_divert)
			fx_ldivert(k->f, i, op->name, op->divert->address,
			    op->divert->forwarding_address)
			    ->routing_type = op->divert->routing_type;
		return 0;
	case RECON_OP_CREATE_ADDRESS:
		fx_laddress(k->f, i, op->name, op->routing);
		return 0;
	case RECON_OP_UPDATE_DIVERT:
		return update_divert(n, op, r);
	default:
		return 0;
	}
}

static int
fake_intent(void *ctx, const struct apply_result *r, struct err *err)
{
	struct fake *k = ctx;

	free(k->intent_row);
	k->intent_row = apply_audit_render_intent(r);
	if (k->refuse_intent)
		return err_setf(err, NULL, "cannot append the audit row");
	return 0;
}

static void
fake_io(struct apply_io *io, struct fake *k)
{
	memset(io, 0, sizeof(*io));
	io->ctx = k;
	io->hook_ctx = k;
	io->read = fake_read;
	io->read_all = fake_read_all;
	io->exec = fake_exec;
	io->intent = fake_intent;
}

/* ---- the scenario: two nodes; queue `fwd` removed from the declaration;
 * runtime divert `d1` forwards `src` -> `fwd` on both nodes. ---- */

struct scen {
	struct fx f;
	struct fake k;
	struct plan_managed m;
	struct plan *p;
	struct apply_result *r;
	struct apply_io io;
};

static void
scen_init(struct scen *s, bool disconnect)
{
	struct plan_opts opts = {0};
	size_t i;

	memset(s, 0, sizeof(*s));
	fx_init(&s->f, DECL_STUDIO_MANAGED, 2);
	fx_queue(&s->f, "src", "src");
	fx_queue(&s->f, "fwd", "fwd");
	plan_managed_from_decl(&s->m, &s->f.c, "inventory", "rev1");
	/* the new declaration drops queue fwd (its address stays) */
	free(s->f.c.addresses[1].queues[0].name);
	s->f.c.addresses[1].nqueues = 0;
	for (i = 0; i < 2; i++) {
		fx_lqueue(&s->f, i, "src", "src", 0, 0);
		fx_lqueue(&s->f, i, "fwd", "fwd", 0, 3);
		fx_ldivert(&s->f, i, "d1", "src", "fwd")->routing_type =
		    DECL_DIVERT_ANYCAST;
	}
	opts.disconnect_consumers = disconnect;
	opts.revision = "rev2";
	opts.snapshot_source = "live";
	s->p = plan_build(&s->f.c, &s->m, &s->f.s, &opts);
	assert_int_equal(s->p->outcome, PLAN_OUT_WOULD_APPLY);
	s->k.f = &s->f;
	fake_io(&s->io, &s->k);
	s->r = xcalloc(1, sizeof(*s->r));
	s->r->apply_id = xstrdup("id1");
	s->r->cluster = xstrdup("shop-eu");
}

static void
scen_free(struct scen *s)
{
	apply_result_free(s->r);
	plan_free(s->p);
	plan_managed_release(&s->m);
	sbuf_release(&s->k.log);
	sbuf_release(&s->k.trace);
	free(s->k.intent_row);
	fx_free(&s->f);
}

static void
test_apply__divert_first_then_queue(void **unused)
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

static void
test_apply__failed_divert_delete_leaves_queue(void **unused)
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
test_apply__failed_queue_delete_names_removed_diverts(void **unused)
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
	assert_string_equal(s.r->nodes[1].detail,
	    "destroyQueue 'fwd' failed: TIMEOUT: injected failure; its "
	    "dependent divert(s) 'd1' were removed before it and stay removed "
	    "(no rollback; the audit row holds their configuration)");
	assert_null(recon_node_find_divert(&s.f.s.nodes[1], "d1"));
	row = apply_audit_render_result(s.r);
	assert_non_null(strstr(row, "\"outcome\":\"DONE\""));
	assert_non_null(strstr(row, "\"kind\":\"TIMEOUT\""));
	assert_non_null(strstr(row, "\"exit\":1"));
	free(row);
	row = apply_result_render_md(s.r);
	assert_non_null(strstr(row, "**2 node(s) did not apply** (nothing is "
	                            "rolled back; see each node below).\n"));
	assert_non_null(strstr(row,
	    "| 2 | destroyQueue | fwd | FAILED | TIMEOUT: injected failure |\n"));
	assert_non_null(strstr(row,
	    "- `d1` (source `src`, forwarding `fwd`): `{\"address\":\"src\","
	    "\"exclusive\":false,\"filter-string\":\"\","
	    "\"forwarding-address\":\"fwd\",\"name\":\"d1\","
	    "\"routing-name\":\"d1\",\"routing-type\":\"ANYCAST\"}`\n"));
	free(row);
	scen_free(&s);
}

static void
test_apply__consumer_after_plan_is_stale(void **unused)
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
test_apply__new_dependent_divert_is_stale(void **unused)
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

/* Issue 4: a divert the same plan points away from the queue's address is
 * not dependent at apply either: updated, then the queue goes, divert kept. */
static void
test_apply__repointed_divert_not_dependent(void **unused)
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

/* H2: a queue the plan moves to another address is checked like a delete
 * on its old address at apply: a new dependent divert there is stale. */
static void
test_apply__moved_queue_new_dependent_is_stale(void **unused)
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
test_apply__queue_already_gone_is_skipped(void **unused)
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

/* M3: a queue absent on a node when planned (NO_CHANGE there) but present
 * at apply refuses that node as stale, and stays in the inventory. */
static void
test_apply__absent_when_planned_present_now_is_stale(void **unused)
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

static void
test_apply__unreachable_node_others_go_on(void **unused)
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

static void
test_apply__has_consumers_at_call_names_the_flag(void **unused)
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

/* A plan made with --disconnect-consumers, consumers seen at plan time:
 * removeConsumers=true is sent. */
static void
test_apply__disconnect_consumers_sends_remove_consumers(void **unused)
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
test_apply__new_consumer_with_flag_is_stale(void **unused)
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

static void
test_apply__refused_intent_runs_nothing(void **unused)
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

static void
test_apply__managed_set_only_what_was_applied(void **unused)
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
test_apply__found_as_declared_enters_inventory(void **unused)
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

static void
test_apply__cap_past_on_apply_is_stale(void **unused)
{
	struct scen s;
	struct err err = {0};

	(void)unused;
	scen_init(&s, false);
	fx_lqueue_get(&s.f, 0, "fwd")->message_count = 2000;
	assert_int_equal(apply_run(s.r, s.p, &s.f.c, &s.io, &err), 0);
	assert_int_equal(s.r->nodes[0].outcome, APPLY_REFUSED);
	assert_string_equal(s.r->nodes[0].detail,
	    "stale plan: the queue deletes on this node now destroy 2000 "
	    "messages (3 when planned); the plan's total of 2003 is past the "
	    "cap of 1000 (settings.max-destroyed-messages); plan again");
	assert_int_equal(s.r->nodes[1].outcome, APPLY_APPLIED);
	scen_free(&s);
}

/* A declared divert created by the plan that the broker silently ignores
 * fails its node on read back, before any delete. */
static void
test_apply__create_read_back(void **unused)
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

/* The whole result row of a one-node apply, pinned: the audit format is
 * a contract (docs/audit.md). */
static void
test_apply__result_row_format(void **unused)
{
	struct scen s;
	struct err err = {0};
	char *row;

	(void)unused;
	scen_init(&s, true);
	s.k.down = "broker-b";
	s.r->approver = xstrdup("alice");
	s.r->plan_digest = xstrdup("d1g");
	assert_int_equal(apply_run(s.r, s.p, &s.f.c, &s.io, &err), 0);
	row = apply_audit_render_result(s.r);
	assert_string_equal(row,
	    "{\"apply_id\":\"id1\",\"approved_at\":null,\"approver\":\"alice\","
	    "\"cluster\":\"shop-eu\",\"event\":\"result\",\"exit\":1,"
	    "\"finished_at\":null,\"format\":1,\"nodes\":[{\"detail\":"
	    "\"2 operation(s) applied\",\"kind\":null,\"node\":\"broker-a\","
	    "\"notes\":[\"delete-queue 'fwd': as planned\"],\"operations\":[{"
	    "\"act\":\"delete-queue\",\"action\":\"fwd\",\"divert\":{"
	    "\"address\":\"src\",\"exclusive\":false,\"filter-string\":\"\","
	    "\"forwarding-address\":\"fwd\",\"name\":\"d1\","
	    "\"routing-name\":\"d1\",\"routing-type\":"
	    "\"ANYCAST\"},\"name\":\"d1\",\"op\":\"destroyDivert\",\"outcome\":"
	    "\"DONE\"},{\"act\":\"delete-queue\",\"action\":\"fwd\",\"name\":"
	    "\"fwd\",\"op\":\"destroyQueue\",\"outcome\":\"DONE\","
	    "\"remove_consumers\":true}],\"outcome\":\"APPLIED\"},{\"detail\":"
	    "\"UNREACHABLE: connection refused\",\"kind\":\"UNREACHABLE\","
	    "\"node\":\"broker-b\",\"notes\":[],\"operations\":[],\"outcome\":"
	    "\"UNREACHABLE\"}],\"parameters\":{\"disconnect_consumers\":true},"
	    "\"plan_digest\":\"d1g\",\"plan_dir\":null,\"revision\":null,"
	    "\"started_at\":null}");
	free(row);
	scen_free(&s);
}

/* A capture tap on the queue's address is named by the preflight, never
 * removed; apply re-runs it with the plan's capture subscriptions and
 * finds the same plan. */
/* D5: the queue delete never removes the tap; the capture pass that apply
 * runs after the plan's operations does, on the node as read again, and
 * its operations are in the result (not in the intent row: they are
 * decided after the plan's operations). */
static void
test_apply__capture_pass_removes_tap_after_queue(void **unused)
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
	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	fx_queue(&f, "fwd", "fwd");
	fx_capture(&f, "dbg", "fw*");
	plan_managed_from_decl(&m, &f.c, "inventory", "r0");
	f.c.addresses[0].nqueues = 0;
	free(f.c.addresses[0].queues[0].name);
	fx_lqueue(&f, 0, "fwd", "fwd", 0, 0);
	fx_ldivert(&f, 0, "__capture.dbg.fwd", "fwd", "__capture.dbg");
	p = plan_build(&f.c, &m, &f.s, &opts);
	assert_int_equal(p->outcome, PLAN_OUT_WOULD_APPLY);
	assert_int_equal(p->ncaptures, 1);
	memset(&k, 0, sizeof(k));
	k.f = &f;
	fake_io(&io, &k);
	assert_int_equal(apply_run(r, p, &f.c, &io, &err), 0);
	assert_int_equal(r->nodes[0].outcome, APPLY_APPLIED);
	assert_string_equal(sbuf_str(&k.log),
	    "broker-a destroyQueue fwd\n"
	    "broker-a createAddress __capture.dbg\n"
	    "broker-a createQueue __capture.dbg\n"
	    "broker-a destroyDivert __capture.dbg.fwd\n");
	assert_null(recon_node_find_divert(&f.s.nodes[0], "__capture.dbg.fwd"));
	assert_int_equal(r->nodes[0].nops, 4);
	for (i = 0; i < r->nodes[0].nops; i++)
		if (r->nodes[0].ops[i].act == PLAN_ACT_DELETE_QUEUE)
			assert_int_equal(r->nodes[0].ops[i].op.kind,
			    RECON_OP_DESTROY_QUEUE);
	assert_int_equal(r->nodes[0].ops[3].act, PLAN_ACT_DELETE_TAP);
	assert_int_equal(r->nodes[0].ops[3].state, APPLY_OP_DONE);
	assert_string_equal(r->nodes[0].ops[3].op.divert->forwarding_address,
	    "__capture.dbg");
	assert_null(strstr(k.intent_row, "__capture.dbg.fwd"));
	apply_result_free(r);
	plan_free(p);
	plan_managed_release(&m);
	sbuf_release(&k.log);
	sbuf_release(&k.trace);
	free(k.intent_row);
	fx_free(&f);
}

/* A plan with only capture actions (a capture removed): the node has no
 * plan operation to check, and the capture pass still runs. */
static void
test_apply__capture_removed_everything_goes(void **unused)
{
	struct plan_opts opts = {.revision = "r", .snapshot_source = "l"};
	struct plan_managed m = {0};
	struct apply_result *r = xcalloc(1, sizeof(*r));
	struct apply_io io;
	struct plan *p;
	struct err err = {0};
	struct fake k;
	struct fx f;

	(void)unused;
	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	fx_queue(&f, "fwd", "fwd");
	fx_capture(&f, "dbg", "fw*");
	plan_managed_from_decl(&m, &f.c, "inventory", "r0");
	f.c.ncaptures = 0; /* the new declaration drops the capture */
	fx_lqueue(&f, 0, "fwd", "fwd", 0, 0);
	fx_ldivert(&f, 0, "__capture.dbg.fwd", "fwd", "__capture.dbg");
	fx_lqueue(&f, 0, "__capture.dbg", "__capture.dbg", 0, 12);
	p = plan_build(&f.c, &m, &f.s, &opts);
	assert_int_equal(p->outcome, PLAN_OUT_WOULD_APPLY);
	memset(&k, 0, sizeof(k));
	k.f = &f;
	fake_io(&io, &k);
	assert_int_equal(apply_run(r, p, &f.c, &io, &err), 0);
	assert_int_equal(r->nodes[0].outcome, APPLY_APPLIED);
	assert_string_equal(sbuf_str(&k.log),
	    "broker-a destroyDivert __capture.dbg.fwd\n"
	    "broker-a destroyQueue __capture.dbg\n"
	    "broker-a deleteAddress __capture.dbg\n");
	assert_int_equal(r->nodes[0].ops[1].act, PLAN_ACT_DELETE_CAPTURE);
	apply_result_free(r);
	plan_free(p);
	plan_managed_release(&m);
	f.c.ncaptures = 1; /* the fixture frees what it built */
	sbuf_release(&k.log);
	sbuf_release(&k.trace);
	free(k.intent_row);
	fx_free(&f);
}

/* A removed capture stays in the inventory until its capture pass has
 * finished on every node (here node b is down at apply). */
static void
test_apply__removed_capture_kept_until_done(void **unused)
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

/* Drift: the daemon's cycle plans the capture pass alone and runs it; a
 * second cycle finds nothing to do; an unreadable node is UNREACHABLE. */
static void
test_apply__drift_capture_cycle(void **unused)
{
	struct plan_opts opts = {.snapshot_source = "live"};
	struct apply_result *r;
	struct apply_io io;
	struct plan *p;
	struct fake k;
	struct fx f;
	int cycle;

	(void)unused;
	fx_init(&f, DECL_STUDIO_MANAGED, 2);
	fx_capture(&f, "dbg", "ord*");
	fx_lqueue(&f, 0, "orders", "orders", 0, 0);
	fx_lqueue(&f, 1, "billing", "billing", 0, 0);
	memset(&k, 0, sizeof(k));
	k.f = &f;
	fake_io(&io, &k);
	for (cycle = 0; cycle < 2; cycle++) {
		p = plan_captures(&f.c, NULL, &f.s, &opts);
		assert_string_equal(p->kind, "capture");
		r = xcalloc(1, sizeof(*r));
		assert_int_equal(apply_capture_pass(r, p, &f.c, &io), 0);
		if (cycle == 0) {
			assert_int_equal(p->outcome, PLAN_OUT_WOULD_APPLY);
			assert_int_equal(r->nodes[0].outcome, APPLY_APPLIED);
			assert_int_equal(r->nodes[0].nops, 3);
			assert_int_equal(r->nodes[0].ops[2].act,
			    PLAN_ACT_CREATE_TAP);
			assert_int_equal(r->nodes[1].nops, 2);
		} else {
			assert_int_equal(r->nodes[0].outcome, APPLY_SKIPPED);
			assert_int_equal(r->nodes[1].outcome, APPLY_SKIPPED);
		}
		apply_result_free(r);
		plan_free(p);
	}
	assert_string_equal(sbuf_str(&k.log),
	    "broker-a createAddress __capture.dbg\n"
	    "broker-a createQueue __capture.dbg\n"
	    "broker-a createDivert __capture.dbg.orders\n"
	    "broker-b createAddress __capture.dbg\n"
	    "broker-b createQueue __capture.dbg\n");
	k.down = "broker-b";
	p = plan_captures(&f.c, NULL, &f.s, &opts);
	r = xcalloc(1, sizeof(*r));
	assert_int_equal(apply_capture_pass(r, p, &f.c, &io), 0);
	assert_int_equal(r->nodes[1].outcome, APPLY_UNREACHABLE);
	apply_result_free(r);
	plan_free(p);
	sbuf_release(&k.log);
	sbuf_release(&k.trace);
	free(k.intent_row);
	fx_free(&f);
}

/* ---- reads per node (docs/audit.md "Reads per node") ---- */

/* scen with capture `dbg` declared (pattern zz*: it taps nothing) and its
 * ring queue already on both nodes, so that the capture pass has nothing
 * to do but must look. */
static void
scen_replan(struct scen *s)
{
	struct plan_opts opts = {.revision = "rev2", .snapshot_source = "live"};

	plan_free(s->p);
	s->p = plan_build(&s->f.c, &s->m, &s->f.s, &opts);
	assert_int_equal(s->p->outcome, PLAN_OUT_WOULD_APPLY);
}

static void
scen_with_capture(struct scen *s)
{
	struct recon_queue *q;
	size_t i;

	fx_capture(&s->f, "dbg", "zz*");
	for (i = 0; i < 2; i++) {
		q = fx_lqueue(&s->f, i, "__capture.dbg", "__capture.dbg", 0, 0);
		q->ring_size = 1000;
		q->durable = false;
	}
	scen_replan(s);
}

/* Deletes only, two nodes: every node is read once before anything runs
 * (all at once) and the operations run. Without captures the capture pass
 * has nothing to look for: 1 read per node. With a capture declared, every
 * node is read once more after the operations (all at once) for the pass:
 * 2 reads per node. Without read_all the same reads are made one node at a
 * time. */
static void
test_apply__reads_deletes_only(void **unused)
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
test_apply__reads_skipped_node_once(void **unused)
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

/* One node, plan p, fake k with the fixture f: apply and return the trace
 * (owned by k). */
static const char *
apply_traced(struct fx *f, struct fake *k, struct plan *p,
    struct apply_result *r)
{
	struct apply_io io;
	struct err err = {0};

	k->f = f;
	fake_io(&io, k);
	assert_int_equal(apply_run(r, p, &f->c, &io, &err), 0);
	return sbuf_str(&k->trace);
}

/* Creates only: the read after the last create reads it back (and would
 * feed the capture pass): 2 reads. A divert the broker ignored still fails
 * the node on that read. */
static void
test_apply__reads_creates_only(void **unused)
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

/* Creates, then deletes: the creates are read back before the first
 * delete (a read of that node alone): 2 reads; with a capture declared the
 * node is read once more after the deletes for the capture pass: 3. */
static void
test_apply__reads_creates_then_deletes(void **unused)
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

/* The capture pass of a drift cycle reads every node once, all at once. */
static void
test_apply__reads_drift_capture_once(void **unused)
{
	struct plan_opts opts = {.snapshot_source = "live"};
	struct apply_result *r;
	struct apply_io io;
	struct plan *p;
	struct fake k;
	struct fx f;

	(void)unused;
	fx_init(&f, DECL_STUDIO_MANAGED, 2);
	fx_capture(&f, "dbg", "ord*");
	fx_lqueue(&f, 0, "orders", "orders", 0, 0);
	fx_lqueue(&f, 1, "billing", "billing", 0, 0);
	memset(&k, 0, sizeof(k));
	k.f = &f;
	fake_io(&io, &k);
	p = plan_captures(&f.c, NULL, &f.s, &opts);
	r = xcalloc(1, sizeof(*r));
	assert_int_equal(apply_capture_pass(r, p, &f.c, &io), 0);
	/* the creates of the pass are read back: one more read of each */
	assert_string_equal(sbuf_str(&k.trace),
	    "read broker-a broker-b\n"
	    "broker-a createAddress __capture.dbg\n"
	    "broker-a createQueue __capture.dbg\n"
	    "broker-a createDivert __capture.dbg.orders\n"
	    "read broker-a\n"
	    "broker-b createAddress __capture.dbg\n"
	    "broker-b createQueue __capture.dbg\n"
	    "read broker-b\n");
	apply_result_free(r);
	plan_free(p);
	sbuf_release(&k.log);
	sbuf_release(&k.trace);
	free(k.intent_row);
	fx_free(&f);
}

/* ---- approvals ---- */

static void
test_apply__approval_round_trip_and_checks(void **unused)
{
	struct apply_approval a = {0}, b = {0};
	struct scen s;
	struct err err = {0};
	char *json, *want;

	(void)unused;
	a.plan_digest = xstrdup("0123456789abcdef0123456789abcdef"
	                        "0123456789abcdef0123456789abcdef");
	a.confirmation = xstrdup("delete 1 queue on shop-eu 0123456789ab");
	a.approved_by = xstrdup("alice");
	a.approved_at = xstrdup("2026-11-29T20:00:00Z");
	json = apply_approval_render(&a);
	assert_int_equal(
	    apply_approval_parse(&b, "approval.json", json, strlen(json), &err),
	    0);
	assert_string_equal(b.approved_by, "alice");
	assert_string_equal(b.plan_digest, a.plan_digest);
	free(json);
	apply_approval_release(&b);
	json = xstrdup("{\"approved_at\":\"x\",\"approved_by\":\"a\","
	               "\"confirmation\":\"c\",\"format\":1,"
	               "\"plan_digest\":\"ABC\"}");
	assert_int_equal(
	    apply_approval_parse(&b, "approval.json", json, strlen(json), &err),
	    -1);
	assert_string_equal(err.msg,
	    "plan_digest: expected 64 lower-case hex digits");
	assert_string_equal(err.path, "approval.json");
	err_release(&err);
	free(json);
	apply_approval_release(&a);

	scen_init(&s, false);
	want = plan_confirmation(s.p);
	assert_int_equal(apply_approval_check_plan(s.p, want, &err), 0);
	assert_int_equal(apply_approval_check_plan(s.p, "yes", &err), -1);
	assert_string_equal(err.msg,
	    "the confirmation text does not match this plan; type the text "
	    "shown under the approve command in plan.md, exactly");
	err_release(&err);
	s.p->outcome = PLAN_OUT_REFUSED;
	s.p->refusal = xstrdup("BULK_CAP");
	s.p->message = xstrdup("too many messages");
	s.p->next_step = xstrdup("consume them");
	assert_int_equal(apply_approval_check_plan(s.p, want, &err), -1);
	assert_string_equal(err.msg,
	    "the plan is refused (BULK_CAP: too many messages) and cannot be "
	    "approved; consume them");
	err_release(&err);
	free(want);
	scen_free(&s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_apply__divert_first_then_queue),
	    cmocka_unit_test(test_apply__failed_divert_delete_leaves_queue),
	    cmocka_unit_test(
	        test_apply__failed_queue_delete_names_removed_diverts),
	    cmocka_unit_test(test_apply__consumer_after_plan_is_stale),
	    cmocka_unit_test(test_apply__new_dependent_divert_is_stale),
	    cmocka_unit_test(test_apply__repointed_divert_not_dependent),
	    cmocka_unit_test(test_apply__moved_queue_new_dependent_is_stale),
	    cmocka_unit_test(test_apply__queue_already_gone_is_skipped),
	    cmocka_unit_test(
	        test_apply__absent_when_planned_present_now_is_stale),
	    cmocka_unit_test(test_apply__unreachable_node_others_go_on),
	    cmocka_unit_test(test_apply__has_consumers_at_call_names_the_flag),
	    cmocka_unit_test(
	        test_apply__disconnect_consumers_sends_remove_consumers),
	    cmocka_unit_test(test_apply__new_consumer_with_flag_is_stale),
	    cmocka_unit_test(test_apply__refused_intent_runs_nothing),
	    cmocka_unit_test(test_apply__managed_set_only_what_was_applied),
	    cmocka_unit_test(test_apply__found_as_declared_enters_inventory),
	    cmocka_unit_test(test_apply__cap_past_on_apply_is_stale),
	    cmocka_unit_test(test_apply__create_read_back),
	    cmocka_unit_test(test_apply__result_row_format),
	    cmocka_unit_test(test_apply__capture_pass_removes_tap_after_queue),
	    cmocka_unit_test(test_apply__capture_removed_everything_goes),
	    cmocka_unit_test(test_apply__drift_capture_cycle),
	    cmocka_unit_test(test_apply__removed_capture_kept_until_done),
	    cmocka_unit_test(test_apply__approval_round_trip_and_checks),
	    cmocka_unit_test(test_apply__reads_deletes_only),
	    cmocka_unit_test(test_apply__reads_skipped_node_once),
	    cmocka_unit_test(test_apply__reads_creates_only),
	    cmocka_unit_test(test_apply__reads_creates_then_deletes),
	    cmocka_unit_test(test_apply__reads_drift_capture_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
