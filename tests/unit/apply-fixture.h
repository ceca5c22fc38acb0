/* tests/unit/apply-fixture.h: the apply engine's unit tests: a fake broker
 * over the fixture's snapshot (recon-fixture.h) that logs every read and
 * exec, and the scenario most of them start from. */
#ifndef TESTS_UNIT_APPLY_FIXTURE_H
#define TESTS_UNIT_APPLY_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
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
	/* "opName name": that exec is done, then its reply is lost
	 * (lost_kind); with down_after_lost the node cannot be read after */
	const char *lose;
	enum recon_kind lost_kind;
	bool down_after_lost;
	/* with crash, apply "crashes" after crash_after execs: later execs
	 * do nothing and fail (as if never sent) */
	bool crash;
	size_t crash_after, nexec;
	const char *down; /* a node whose reads fail */
	/* an HA node: its reads name member ha_member as live, or (ha_kind
	 * not RECON_OK) are refused so: PASSIVE, SPLIT_BRAIN */
	const char *ha_node, *ha_member;
	enum recon_kind ha_kind;
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

static inline struct recon_node_snapshot *
fake_node(struct fake *k, const char *node)
{
	size_t i;

	for (i = 0; i < k->f->s.nnodes; i++)
		if (strcmp(k->f->s.nodes[i].node, node) == 0)
			return &k->f->s.nodes[i];
	return NULL;
}

static inline char **
strs_dup(char *const *v, size_t n)
{
	char **c = xcalloc(n + 1, sizeof(*c));
	size_t i;

	for (i = 0; i < n; i++)
		c[i] = xstrdup(v[i]);
	return c;
}

static inline void
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
	if (k->ha_node != NULL && strcmp(k->ha_node, node) == 0) {
		if (k->ha_kind != RECON_OK) {
			out->refusal.kind = k->ha_kind;
			out->refusal.text = xstrdup("the HA state");
			return;
		}
		out->member = xstrdup(k->ha_member);
	}
	out->broker_name = xstrdup(node);
	if (n->broker_version != NULL)
		out->broker_version = xstrdup(n->broker_version);
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

static inline void
fake_read(void *ctx, const char *node, struct recon_node_snapshot *out)
{
	struct fake *k = ctx;

	sbuf_addf(&k->trace, "read %s\n", node);
	read_one(k, node, out);
}

static inline void
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

static inline void
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

static inline void
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

static inline int
refuse(struct recon_refusal *r, enum recon_kind k, const char *text)
{
	r->kind = k;
	r->text = xstrdup(text);
	return -1;
}

static inline int
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

static inline int
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

static inline int
delete_address(struct recon_node_snapshot *n, const char *name,
    struct recon_refusal *r)
{
	size_t j;

	for (j = 0; j < n->naddresses; j++) {
		if (strcmp(n->addresses[j].name, name) != 0)
			continue;
		if (n->addresses[j].nbinding_names > 0)
			return refuse(r, RECON_BROKER_ERROR,
			    "AMQ229205: Address has bindings");
		recon_address_release(&n->addresses[j]);
		memmove(n->addresses + j, n->addresses + j + 1,
		    (n->naddresses - j - 1) * sizeof(*n->addresses));
		n->naddresses--;
		return 0;
	}
	return refuse(r, RECON_NOT_FOUND, "AMQ229203: Address does not exist");
}

static inline int
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

static inline int fake_exec_do(struct fake *k, const char *node,
    const struct recon_op *op, struct recon_refusal *r);

/* Every exec: logged, then failed, or done (and its reply lost). */
static inline int
fake_exec(void *ctx, const char *node, const struct recon_op *op,
    struct recon_refusal *r)
{
	struct fake *k = ctx;
	char *what = xasprintf("%s %s", recon_op_kind_name(op->kind), op->name);
	bool lose = k->lose != NULL && strcmp(k->lose, what) == 0;
	int rc;

	free(what);
	if (k->crash && k->nexec++ >= k->crash_after)
		return refuse(r, RECON_BROKER_ERROR, "crashed before");
	rc = fake_exec_do(k, node, op, r);
	if (!lose || rc < 0)
		return rc;
	if (k->down_after_lost)
		k->down = node;
	return refuse(r, k->lost_kind, "injected lost reply");
}

static inline int
fake_exec_do(struct fake *k, const char *node, const struct recon_op *op,
    struct recon_refusal *r)
{
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
	case RECON_OP_DELETE_ADDRESS:
		return delete_address(n, op->name, r);
	default:
		return 0;
	}
}

static inline int
fake_intent(void *ctx, const struct apply_result *r, struct err *err)
{
	struct fake *k = ctx;

	free(k->intent_row);
	k->intent_row = apply_audit_render_intent(r);
	if (k->refuse_intent)
		return err_setf(err, NULL, "cannot append the audit row");
	return 0;
}

static inline void
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

static inline void
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

static inline void
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

/* scen with capture `dbg` declared (pattern zz*: it taps nothing) and its
 * ring queue already on both nodes, so that the capture pass has nothing
 * to do but must look. */
static inline void
scen_replan(struct scen *s)
{
	struct plan_opts opts = {.revision = "rev2", .snapshot_source = "live"};

	plan_free(s->p);
	s->p = plan_build(&s->f.c, &s->m, &s->f.s, &opts);
	assert_int_equal(s->p->outcome, PLAN_OUT_WOULD_APPLY);
}

static inline void
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

/* One node, plan p, fake k with the fixture f: apply and return the trace
 * (owned by k). */
static inline const char *
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

#endif
