/* tests/unit/test-batch.c: reconcile/apply/operations.c's batches: which
 * operations may share one request (apply_batch_end: one class, the bound,
 * no two on one object, destroys alone), a first apply sent in
 * ceil(n/bound) requests per phase, a refused operation in the middle of a
 * request (the later ones of that request recorded as the broker did
 * them, the later requests not sent), a request refused whole, a batch
 * whose reply was lost decided by one read back, and the nodes at once
 * (io.parallel), their results in the plan's order. Against the fake
 * broker of apply-fixture.h, given an exec_batch that runs each operation
 * of a request as the fake's exec does. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "apply-fixture.h"

/* The fake's exec_batch: the request logged ("node batch n" in the trace),
 * then each operation as exec runs it; lose_all: the request's reply is
 * lost after the broker ran it; refuse_all: refused whole (nothing run). */
struct bfake {
	struct fake k;
	bool lose_all, refuse_all;
	size_t nbatches;
	pthread_mutex_t mu; /* io.parallel: one node's call at a time */
};

static int
bfake_exec(void *ctx, const char *node, const struct recon_op *op,
    struct recon_refusal *r)
{
	struct bfake *b = ctx;
	int rc;

	pthread_mutex_lock(&b->mu);
	rc = fake_exec(&b->k, node, op, r);
	pthread_mutex_unlock(&b->mu);
	return rc;
}

static int
bfake_exec_batch(void *ctx, const char *node, const struct recon_op *ops,
    size_t n, int *rcs, struct recon_refusal *refusals)
{
	struct bfake *b = ctx;
	size_t j;

	pthread_mutex_lock(&b->mu);
	b->nbatches++;
	sbuf_addf(&b->k.trace, "%s batch %zu\n", node, n);
	for (j = 0; j < n; j++) {
		if (b->refuse_all) {
			rcs[j] = -1;
			refusals[j].kind = RECON_UNAUTHORIZED;
			refusals[j].http_status = 401;
			refusals[j].text = xstrdup("HTTP 401");
			continue;
		}
		rcs[j] = fake_exec(&b->k, node, &ops[j], &refusals[j]);
		if (b->lose_all) {
			recon_refusal_release(&refusals[j]);
			rcs[j] = -1;
			refusals[j].kind = RECON_TIMEOUT;
			refusals[j].text = xstrdup("injected: no reply");
		}
	}
	pthread_mutex_unlock(&b->mu);
	return b->refuse_all || b->lose_all ? -1 : 0;
}

static void
bfake_read(void *ctx, const char *node, struct recon_node_snapshot *out)
{
	struct bfake *b = ctx;

	pthread_mutex_lock(&b->mu);
	fake_read(&b->k, node, out);
	pthread_mutex_unlock(&b->mu);
}

static void
bfake_read_all(void *ctx, const char *const *names, size_t n,
    struct recon_node_snapshot *out)
{
	struct bfake *b = ctx;

	pthread_mutex_lock(&b->mu);
	fake_read_all(&b->k, names, n, out);
	pthread_mutex_unlock(&b->mu);
}

/* nq queues q000.. on addresses a000.. (one each), and a divert dNNN from
 * each even address to the next, on nnodes empty nodes: a first apply. */
struct bscen {
	struct fx f;
	struct bfake b;
	struct plan_managed m;
	struct plan *p;
	struct apply_result *r;
	struct apply_io io;
};

static void
bscen_init(struct bscen *s, size_t nnodes, size_t nq, size_t bound)
{
	struct plan_opts opts = {.revision = "r", .snapshot_source = "l"};
	char a[32], q[32], d[32], a2[32];
	size_t i;

	memset(s, 0, sizeof(*s));
	fx_init(&s->f, DECL_STUDIO_MANAGED, nnodes);
	for (i = 0; i < nq; i++) {
		snprintf(a, sizeof(a), "a%03zu", i);
		snprintf(q, sizeof(q), "q%03zu", i);
		fx_queue(&s->f, a, q);
	}
	for (i = 0; i + 1 < nq; i += 2) {
		snprintf(a, sizeof(a), "a%03zu", i);
		snprintf(a2, sizeof(a2), "a%03zu", i + 1);
		snprintf(d, sizeof(d), "d%03zu", i);
		fx_divert(&s->f, d, a, a2);
	}
	s->p = plan_build(&s->f.c, &s->m, &s->f.s, &opts);
	assert_int_equal(s->p->outcome, PLAN_OUT_WOULD_APPLY);
	s->b.k.f = &s->f;
	pthread_mutex_init(&s->b.mu, NULL);
	fake_io(&s->io, &s->b.k);
	s->io.ctx = &s->b;
	s->io.read = bfake_read;
	s->io.read_all = bfake_read_all;
	s->io.exec = bfake_exec;
	s->io.exec_batch = bfake_exec_batch;
	s->io.batch_max = bound;
	s->r = xcalloc(1, sizeof(*s->r));
	s->r->apply_id = xstrdup("id1");
	s->r->cluster = xstrdup("shop-eu");
}

static void
bscen_free(struct bscen *s)
{
	apply_result_free(s->r);
	plan_free(s->p);
	plan_managed_release(&s->m);
	sbuf_release(&s->b.k.log);
	sbuf_release(&s->b.k.trace);
	free(s->b.k.intent_row);
	pthread_mutex_destroy(&s->b.mu);
	fx_free(&s->f);
}

static size_t
count_lines(const char *text, const char *what)
{
	size_t n = 0;

	for (; (text = strstr(text, what)) != NULL; text += strlen(what))
		n++;
	return n;
}

static void
op_set(struct apply_op *o, enum recon_op_kind kind, const char *name)
{
	memset(o, 0, sizeof(*o));
	o->op.kind = kind;
	o->op.name = (char *)(uintptr_t)name;
}

static void
test_batch__end(void **unused)
{
	struct apply_op ops[12];

	(void)unused;
	op_set(&ops[0], RECON_OP_CREATE_ADDRESS, "a");
	op_set(&ops[1], RECON_OP_UPDATE_ADDRESS, "b");
	op_set(&ops[2], RECON_OP_CREATE_ADDRESS, "c");
	op_set(&ops[3], RECON_OP_CREATE_QUEUE, "a");
	op_set(&ops[4], RECON_OP_CREATE_QUEUE, "b");
	op_set(&ops[5], RECON_OP_UPDATE_QUEUE, "a");
	op_set(&ops[6], RECON_OP_CREATE_DIVERT, "d");
	op_set(&ops[7], RECON_OP_UPDATE_DIVERT, "e");
	op_set(&ops[8], RECON_OP_DESTROY_DIVERT, "x");
	op_set(&ops[9], RECON_OP_DESTROY_DIVERT, "y");
	op_set(&ops[10], RECON_OP_DESTROY_QUEUE, "q");
	op_set(&ops[11], RECON_OP_DELETE_ADDRESS, "q");
	/* the address phase, whole */
	assert_int_equal(apply_batch_end(ops, 12, 0, 0), 3);
	/* bounded */
	assert_int_equal(apply_batch_end(ops, 12, 0, 2), 2);
	assert_int_equal(apply_batch_end(ops, 12, 2, 2), 3);
	/* the queue phase: a second operation on queue a goes next */
	assert_int_equal(apply_batch_end(ops, 12, 3, 0), 5);
	assert_int_equal(apply_batch_end(ops, 12, 5, 0), 6);
	/* the divert creates and changes together, never with a destroy */
	assert_int_equal(apply_batch_end(ops, 12, 6, 0), 8);
	/* destroys and deletes alone, even of one kind after another */
	assert_int_equal(apply_batch_end(ops, 12, 8, 0), 9);
	assert_int_equal(apply_batch_end(ops, 12, 9, 0), 10);
	assert_int_equal(apply_batch_end(ops, 12, 10, 0), 11);
	assert_int_equal(apply_batch_end(ops, 12, 11, 0), 12);
	/* the last one, and past the end */
	assert_int_equal(apply_batch_end(ops, 3, 2, 0), 3);
	assert_int_equal(apply_batch_end(ops, 3, 3, 0), 3);
	/* the bound defaults to APPLY_BATCH_MAX */
	assert_int_equal(APPLY_BATCH_MAX, 500);
}

/* 10 addresses, 10 queues, 5 diverts on one node, bound 4: the addresses
 * in 3 requests (4, 4, 2), the queues in 3, the diverts in 2; every
 * operation DONE and read back (one read after the last). */
static void
test_batch__first_apply_requests(void **unused)
{
	struct bscen s;
	struct err err = {0};
	const char *t;
	size_t i;

	(void)unused;
	bscen_init(&s, 1, 10, 4);
	assert_int_equal(apply_run(s.r, s.p, &s.f.c, &s.io, &err), 0);
	t = sbuf_str(&s.b.k.trace);
	/* 4+4+2 addresses, 4+4+2 queues, 4+1 diverts: the last alone, a
	 * request of one as without batches (exec) */
	assert_int_equal(s.b.nbatches, 7);
	assert_int_equal(count_lines(t, "batch 4\n"), 5);
	assert_int_equal(count_lines(t, "batch 2\n"), 2);
	assert_int_equal(count_lines(t, "createDivert d008"), 1);
	/* one read before acting, one after: no read between the phases
	 * (they are all creates) */
	assert_int_equal(count_lines(t, "read"), 2);
	/* the order: addresses, queues, diverts */
	assert_true(
	    strstr(t, "createAddress a009") < strstr(t, "createQueue q000"));
	assert_true(
	    strstr(t, "createQueue q009") < strstr(t, "createDivert d000"));
	assert_int_equal(s.r->nodes[0].outcome, APPLY_APPLIED);
	assert_int_equal(s.r->nodes[0].nops, 25);
	for (i = 0; i < s.r->nodes[0].nops; i++)
		assert_int_equal(s.r->nodes[0].ops[i].state, APPLY_OP_DONE);
	assert_string_equal(s.r->nodes[0].detail, "25 operation(s) applied");
	assert_non_null(recon_node_find_divert(&s.f.s.nodes[0], "d008"));
	bscen_free(&s);
}

/* Without exec_batch, one request per operation as before. */
static void
test_batch__no_exec_batch(void **unused)
{
	struct bscen s;
	struct err err = {0};

	(void)unused;
	bscen_init(&s, 1, 4, 0);
	s.io.exec_batch = NULL;
	assert_int_equal(apply_run(s.r, s.p, &s.f.c, &s.io, &err), 0);
	assert_int_equal(s.b.nbatches, 0);
	assert_int_equal(count_lines(sbuf_str(&s.b.k.log), "\n"), 10);
	assert_int_equal(s.r->nodes[0].outcome, APPLY_APPLIED);
	bscen_free(&s);
}

/* createQueue q005 refused in the middle of its request (bound 4: q004..
 * q007): q004 DONE, q005 FAILED with the broker's refusal, q006 and q007
 * DONE (they ran: Jolokia runs every element), the queues after and the
 * diverts not sent (NOT_RUN); the node FAILED, its detail saying so. */
static void
test_batch__middle_refused(void **unused)
{
	struct bscen s;
	struct err err = {0};
	struct apply_node *n;
	size_t i, k5 = 0;
	const char *t;

	(void)unused;
	bscen_init(&s, 2, 10, 4);
	s.b.k.fail = "createQueue q005";
	s.b.k.fail_kind = RECON_ALREADY_EXISTS;
	assert_int_equal(apply_run(s.r, s.p, &s.f.c, &s.io, &err), 0);
	t = sbuf_str(&s.b.k.log);
	for (i = 0; i < 2; i++) {
		n = &s.r->nodes[i];
		assert_int_equal(n->outcome, APPLY_FAILED);
		for (k5 = 0; k5 < n->nops; k5++)
			if (strcmp(n->ops[k5].op.name, "q005") == 0)
				break;
		assert_true(k5 < n->nops);
		assert_int_equal(n->ops[k5 - 1].state, APPLY_OP_DONE);
		assert_int_equal(n->ops[k5].state, APPLY_OP_FAILED);
		assert_int_equal(n->ops[k5].refusal.kind, RECON_ALREADY_EXISTS);
		assert_int_equal(n->ops[k5 + 1].state, APPLY_OP_DONE);
		assert_int_equal(n->ops[k5 + 2].state, APPLY_OP_DONE);
		assert_string_equal(n->ops[k5 + 2].op.name, "q007");
		assert_int_equal(n->ops[k5 + 3].state, APPLY_OP_NOT_RUN);
		assert_int_equal(n->ops[n->nops - 1].state, APPLY_OP_NOT_RUN);
		assert_non_null(strstr(n->detail,
		    "createQueue 'q005' failed: ALREADY_EXISTS: injected failure; 2 later operation(s) of the same request ran (their outcomes are recorded each: 2 DONE, 0 FAILED, 0 UNKNOWN); 7 later operation(s) not run"));
		/* recorded as the brokers are: q006 and q007 there */
		assert_non_null(recon_node_find_queue(&s.f.s.nodes[i], "q007"));
		assert_null(recon_node_find_queue(&s.f.s.nodes[i], "q008"));
	}
	/* nothing past the failed request was sent */
	assert_null(strstr(t, "createQueue q008"));
	assert_null(strstr(t, "createDivert"));
	bscen_free(&s);
}

/* The request refused whole (HTTP 401): nothing of it ran; its first
 * operation FAILED, the rest NOT_RUN. */
static void
test_batch__refused_whole(void **unused)
{
	struct bscen s;
	struct err err = {0};
	struct apply_node *n;
	size_t i;

	(void)unused;
	bscen_init(&s, 1, 6, 0);
	s.b.refuse_all = true;
	assert_int_equal(apply_run(s.r, s.p, &s.f.c, &s.io, &err), 0);
	n = &s.r->nodes[0];
	assert_int_equal(n->outcome, APPLY_FAILED);
	assert_int_equal(s.b.nbatches, 1);
	assert_int_equal(n->ops[0].state, APPLY_OP_FAILED);
	assert_int_equal(n->ops[0].refusal.kind, RECON_UNAUTHORIZED);
	for (i = 1; i < n->nops; i++)
		assert_int_equal(n->ops[i].state, APPLY_OP_NOT_RUN);
	assert_non_null(strstr(n->detail,
	    "createAddress 'a000' failed: UNAUTHORIZED: HTTP 401; 14 later operation(s) not run"));
	assert_int_equal(s.f.s.nodes[0].naddresses, 0);
	bscen_free(&s);
}

/* The reply of every request lost after the broker ran it: each request
 * decided by one read back (all done), the node APPLIED, each operation
 * established by read-back. */
static void
test_batch__lost_reply_read_back(void **unused)
{
	struct bscen s;
	struct err err = {0};
	struct apply_node *n;
	size_t i;

	(void)unused;
	bscen_init(&s, 1, 6, 0);
	s.b.lose_all = true;
	assert_int_equal(apply_run(s.r, s.p, &s.f.c, &s.io, &err), 0);
	n = &s.r->nodes[0];
	assert_int_equal(s.b.nbatches, 3);
	assert_int_equal(n->outcome, APPLY_APPLIED);
	for (i = 0; i < n->nops; i++) {
		assert_int_equal(n->ops[i].state, APPLY_OP_DONE);
		assert_int_equal(n->ops[i].established, APPLY_EST_READ_BACK);
	}
	assert_non_null(strstr(n->detail,
	    "15 operation(s) applied; 15 of them established by reading the node back after their reply was lost"));
	/* one read per request, the one before acting; none after (each
	 * read back checked the creates) */
	assert_int_equal(count_lines(sbuf_str(&s.b.k.trace), "read"), 4);
	bscen_free(&s);
}

/* A lost reply with one operation not done: that one FAILED (established
 * by read-back), the node FAILED, the request's others DONE. */
static void
test_batch__lost_reply_one_not_done(void **unused)
{
	struct bscen s;
	struct err err = {0};
	struct apply_node *n;

	(void)unused;
	bscen_init(&s, 1, 6, 0);
	s.b.lose_all = true;
	s.b.k.fail = "createQueue q002";
	assert_int_equal(apply_run(s.r, s.p, &s.f.c, &s.io, &err), 0);
	n = &s.r->nodes[0];
	assert_int_equal(n->outcome, APPLY_FAILED);
	assert_int_equal(n->ops[8].state, APPLY_OP_FAILED);
	assert_string_equal(n->ops[8].op.name, "q002");
	assert_int_equal(n->ops[8].established, APPLY_EST_READ_BACK);
	assert_int_equal(n->ops[9].state, APPLY_OP_DONE);
	assert_int_equal(n->ops[12].state, APPLY_OP_NOT_RUN);
	assert_non_null(
	    strstr(n->detail, "createQueue 'q002' failed: TIMEOUT"));
	assert_non_null(strstr(n->detail,
	    "its reply was lost and the node, read back, shows it not done"));
	bscen_free(&s);
}

/* io.parallel: both nodes' requests, in threads; the result in the plan's
 * order and the same as node after node. */
static void
test_batch__parallel_nodes(void **unused)
{
	struct bscen s, t;
	struct err err = {0};
	char *a, *b;

	(void)unused;
	bscen_init(&s, 3, 40, 7);
	s.io.parallel = true;
	assert_int_equal(apply_run(s.r, s.p, &s.f.c, &s.io, &err), 0);
	bscen_init(&t, 3, 40, 7);
	assert_int_equal(apply_run(t.r, t.p, &t.f.c, &t.io, &err), 0);
	assert_int_equal(s.b.nbatches, t.b.nbatches);
	assert_int_equal(s.b.nbatches, 3 * (6 + 6 + 3));
	assert_string_equal(s.r->nodes[0].node, "broker-a");
	assert_string_equal(s.r->nodes[2].node, "broker-c");
	assert_int_equal(s.r->nodes[1].outcome, APPLY_APPLIED);
	a = apply_result_render_json(s.r);
	b = apply_result_render_json(t.r);
	assert_string_equal(a, b);
	free(a);
	free(b);
	bscen_free(&s);
	bscen_free(&t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_batch__end),
	    cmocka_unit_test(test_batch__first_apply_requests),
	    cmocka_unit_test(test_batch__no_exec_batch),
	    cmocka_unit_test(test_batch__middle_refused),
	    cmocka_unit_test(test_batch__refused_whole),
	    cmocka_unit_test(test_batch__lost_reply_read_back),
	    cmocka_unit_test(test_batch__lost_reply_one_not_done),
	    cmocka_unit_test(test_batch__parallel_nodes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
