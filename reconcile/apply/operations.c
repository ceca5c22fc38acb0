/* reconcile/apply/operations.c: run one node's operations in order, read
 * creates back, word failures (ADR-0084 decision 3). */
#include "../live/live.h"
#include "apply-int.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/sbuf.h"
#include "../../lib/xalloc.h"

static bool
is_create(enum recon_op_kind k)
{
	return k == RECON_OP_CREATE_ADDRESS || k == RECON_OP_UPDATE_ADDRESS ||
	       k == RECON_OP_CREATE_QUEUE || k == RECON_OP_UPDATE_QUEUE ||
	       k == RECON_OP_CREATE_DIVERT || k == RECON_OP_UPDATE_DIVERT;
}

/* Is op's effect visible in n? NULL when yes, else why not (static). */
static const char *
read_back(const struct recon_op *op, const struct recon_node_snapshot *n)
{
	const struct recon_address *la;
	const struct recon_queue *lq;
	const struct recon_divert *ld;

	switch (op->kind) {
	case RECON_OP_CREATE_ADDRESS:
	case RECON_OP_UPDATE_ADDRESS:
		la = recon_node_find_address(n, op->name);
		if (la == NULL)
			return "the address is not there on read back";
		if ((la->routing & op->routing) != op->routing)
			return "the address lacks a routing type on read back";
		return NULL;
	case RECON_OP_CREATE_QUEUE:
	case RECON_OP_UPDATE_QUEUE:
		lq = recon_node_find_queue(n, op->name);
		if (lq == NULL)
			return "the queue is not there on read back";
		if (op->queue != NULL &&
		    strcmp(lq->address, op->queue->address) != 0)
			return "the queue is on another address on read back";
		return NULL;
	case RECON_OP_CREATE_DIVERT:
	case RECON_OP_UPDATE_DIVERT:
		ld = recon_node_find_divert(n, op->name);
		if (ld == NULL)
			return "the broker accepted the divert but it is not there on read back (a divert create is silently ignored when its name is taken or its source or forwarding address is missing: AMQ222006, AMQ222004, AMQ222005 in the broker log)";
		if (op->divert != NULL &&
		    (strcmp(ld->address, op->divert->address) != 0 ||
		        strcmp(ld->forwarding_address,
		            op->divert->forwarding_address) != 0 ||
		        ld->routing_type != op->divert->routing_type))
			return "the divert read back differs from the one sent";
		return NULL;
	default:
		return NULL;
	}
}

/* Check every create before index upto against n, the node read after
 * them. Returns the index of the first create not visible, upto when all
 * are, and (size_t)-1 when n could not be read (its refusal goes to *f). */
static size_t
verify(const struct recon_node_snapshot *n, struct apply_node *out, size_t upto,
    struct recon_refusal *f, const char **why)
{
	size_t j, bad = upto;

	if (n->refusal.kind != RECON_OK) {
		f->kind = n->refusal.kind;
		f->text =
		    n->refusal.text != NULL ? xstrdup(n->refusal.text) : NULL;
		return (size_t)-1;
	}
	for (j = 0; j < upto && bad == upto; j++) {
		if (out->ops[j].state != APPLY_OP_DONE ||
		    !is_create(out->ops[j].op.kind))
			continue;
		*why = read_back(&out->ops[j].op, n);
		if (*why != NULL)
			bad = j;
	}
	return bad;
}

/* "'a', 'b'": the diverts of action `action` already removed. */
static char *
removed_before(const struct apply_node *out, size_t k)
{
	const struct apply_op *f = &out->ops[k];
	struct sbuf b = {0};
	size_t j;

	for (j = 0; j < k; j++)
		if (out->ops[j].state == APPLY_OP_DONE &&
		    out->ops[j].op.kind == RECON_OP_DESTROY_DIVERT &&
		    out->ops[j].act == f->act &&
		    strcmp(out->ops[j].action, f->action) == 0)
			sbuf_addf(&b, "%s'%s'", b.len > 0 ? ", " : "",
			    out->ops[j].op.name);
	return b.len > 0 ? sbuf_take(&b) : NULL;
}

/* "; 3 later operation(s) not run": what became of the operations after
 * k. Those that shared k's request ran (Jolokia runs every element of a
 * bulk): their outcomes are each recorded, and said here. */
static void
later_outcomes(struct sbuf *b, const struct apply_node *out, size_t k)
{
	size_t j, n[APPLY_OP_UNKNOWN + 1] = {0};

	for (j = k + 1; j < out->nops; j++)
		n[out->ops[j].state]++;
	if (n[APPLY_OP_DONE] + n[APPLY_OP_FAILED] + n[APPLY_OP_UNKNOWN] > 0)
		sbuf_addf(b,
		    "; %zu later operation(s) of the same request ran (their outcomes are recorded each: %zu DONE, %zu FAILED, %zu UNKNOWN)",
		    n[APPLY_OP_DONE] + n[APPLY_OP_FAILED] + n[APPLY_OP_UNKNOWN],
		    n[APPLY_OP_DONE], n[APPLY_OP_FAILED], n[APPLY_OP_UNKNOWN]);
	if (n[APPLY_OP_NOT_RUN] > 0)
		sbuf_addf(b, "; %zu later operation(s) not run",
		    n[APPLY_OP_NOT_RUN]);
}

/* The node's detail when operation k failed (or its outcome is unknown:
 * read_fail is then why the node could not be read back); seen: what the
 * node read back shows of it, when its reply was lost. */
static char *
failure_detail(const struct apply_node *out, size_t k,
    const struct recon_refusal *read_fail, const char *seen)
{
	const struct apply_op *f = &out->ops[k];
	struct sbuf b = {0};
	char *gone;

	if (f->state == APPLY_OP_UNKNOWN && read_fail != NULL)
		sbuf_addf(&b,
		    "%s '%s': outcome unknown: its reply was lost (%s: %s) and the node could not be read back (%s: %s); read the node (snapshot) before planning again",
		    recon_op_kind_name(f->op.kind), f->op.name,
		    recon_kind_name(f->refusal.kind),
		    f->refusal.text != NULL ? f->refusal.text : "no detail",
		    recon_kind_name(read_fail->kind),
		    read_fail->text != NULL ? read_fail->text : "no detail");
	else
		sbuf_addf(&b, "%s '%s' failed: %s: %s",
		    recon_op_kind_name(f->op.kind), f->op.name,
		    recon_kind_name(f->refusal.kind),
		    f->refusal.text != NULL ? f->refusal.text : "no detail");
	if (seen != NULL)
		sbuf_addf(&b,
		    "; its reply was lost and the node, read back, shows it not done (%s)",
		    seen);
	if (f->op.kind == RECON_OP_DESTROY_DIVERT &&
	    f->act == PLAN_ACT_DELETE_QUEUE)
		sbuf_addf(&b, "; queue '%s' left in place", f->action);
	gone = f->op.kind == RECON_OP_DESTROY_QUEUE ? removed_before(out, k)
	                                            : NULL;
	if (gone != NULL)
		sbuf_addf(&b,
		    "; its dependent divert(s) %s were removed before it and stay removed (no rollback; the audit row holds their configuration)",
		    gone);
	if (f->refusal.kind == RECON_HAS_CONSUMERS)
		sbuf_adds(&b,
		    "; a consumer attached after the preflight: stop it, or plan again with --disconnect-consumers");
	later_outcomes(&b, out, k);
	free(gone);
	return sbuf_take(&b);
}

static void
fail_at(struct apply_node *out, size_t k)
{
	apply_node_set(out, APPLY_FAILED,
	    recon_kind_name(out->ops[k].refusal.kind),
	    failure_detail(out, k, NULL, NULL));
}

/* Verify the creates before index upto against n; false (node FAILED)
 * when one is missing or the node could not be read back. */
static bool
verify_creates_with(const struct recon_node_snapshot *n, struct apply_node *out,
    size_t upto)
{
	struct recon_refusal f = {0};
	const char *why = NULL;
	size_t bad = verify(n, out, upto, &f, &why);

	if (bad == upto)
		return true;
	if (bad == (size_t)-1) {
		apply_node_set(out, APPLY_FAILED, recon_kind_name(f.kind),
		    xasprintf(
		        "could not read the node back after its creates: %s: %s",
		        recon_kind_name(f.kind),
		        f.text != NULL ? f.text : "no detail"));
		recon_refusal_release(&f);
		return false;
	}
	out->ops[bad].state = APPLY_OP_FAILED;
	out->ops[bad].refusal.kind = RECON_NOT_FOUND;
	out->ops[bad].refusal.text = xstrdup(why);
	fail_at(out, bad);
	return false;
}

/* The same on the node read again now (one read). */
static bool
verify_creates(const struct apply_io *io, struct apply_node *out, size_t upto)
{
	struct recon_node_snapshot n;
	bool ok;

	memset(&n, 0, sizeof(n));
	io->read(io->ctx, out->node, &n);
	ok = verify_creates_with(&n, out, upto);
	live_node_release(&n);
	return ok;
}

static void
set_applied(struct apply_node *out)
{
	size_t i, nread_back = 0, nresumed = 0;
	struct sbuf b = {0};

	for (i = 0; i < out->nops; i++) {
		if (out->ops[i].established == APPLY_EST_READ_BACK)
			nread_back++;
		if (out->ops[i].established == APPLY_EST_RESUME_READ)
			nresumed++;
	}
	sbuf_addf(&b, "%zu operation(s) applied", out->nops);
	if (nresumed > 0)
		sbuf_addf(&b,
		    "; %zu of them by the interrupted apply this one resumes (the node read before acting shows them done)",
		    nresumed);
	if (nread_back > 0)
		sbuf_addf(&b,
		    "; %zu of them established by reading the node back after their reply was lost",
		    nread_back);
	apply_node_set(out, APPLY_APPLIED, NULL, sbuf_take(&b));
}

bool
apply_verify_creates(const struct recon_node_snapshot *n,
    struct apply_node *out)
{
	if (!verify_creates_with(n, out, out->nops))
		return false;
	set_applied(out);
	return true;
}

/* Operation k was sent and its reply lost: whether the broker did it is
 * unknown. Read the node once and decide by what it shows: done (DONE),
 * not done (FAILED), both established by read-back; the node could not be
 * read: UNKNOWN. The creates before k are checked on the same read. False
 * when the node stops here. */
static bool
lost_reply(const struct apply_io *io, struct apply_node *out, size_t k)
{
	struct recon_node_snapshot n;
	struct apply_op *ao = &out->ops[k];
	enum apply_seen seen;
	char *text = NULL;
	bool go_on = false;

	memset(&n, 0, sizeof(n));
	io->read(io->ctx, out->node, &n);
	if (n.refusal.kind != RECON_OK) {
		ao->state = APPLY_OP_UNKNOWN;
		apply_node_note(out,
		    "%s '%s': its reply was lost (%s) and the node could not be read back: outcome unknown",
		    recon_op_kind_name(ao->op.kind), ao->op.name,
		    recon_kind_name(ao->refusal.kind));
		apply_node_set(out, APPLY_FAILED,
		    recon_kind_name(ao->refusal.kind),
		    failure_detail(out, k, &n.refusal, NULL));
		goto done;
	}
	seen = apply_op_seen(&ao->op, &n);
	text = apply_seen_text(&ao->op, seen);
	ao->established = APPLY_EST_READ_BACK;
	ao->state = seen == APPLY_SEEN_AFTER ? APPLY_OP_DONE : APPLY_OP_FAILED;
	apply_node_note(out,
	    "%s '%s': its reply was lost (%s); the node read back: %s: %s",
	    recon_op_kind_name(ao->op.kind), ao->op.name,
	    recon_kind_name(ao->refusal.kind), text,
	    seen == APPLY_SEEN_AFTER ? "done" : "not done");
	if (!verify_creates_with(&n, out, k))
		goto done;
	if (ao->state == APPLY_OP_FAILED) {
		apply_node_set(out, APPLY_FAILED,
		    recon_kind_name(ao->refusal.kind),
		    failure_detail(out, k, NULL, text));
		goto done;
	}
	go_on = true;
done:
	free(text);
	live_node_release(&n);
	return go_on;
}

/* ---- batches ------------------------------------------------------------
 * Operations that follow each other in the plan's order and are of the same
 * class share one request (io->exec_batch: one Jolokia bulk POST): the
 * address creates and widenings, then the queue creates and changes, then
 * the divert creates and changes, as the plan's phases order them. What
 * they need is made by an earlier request of the node, whose failure stops
 * the node before this one is sent: a queue's address (createQueue never
 * auto-creates it: auto-create-address=false), a divert's source and
 * forwarding addresses. Within one request no operation depends on
 * another: no two act on the same object, and a failed one changes
 * nothing the others do, so each outcome is the broker's own for that
 * operation and is recorded as such. A destroy or a delete is never
 * batched: it goes alone, so that the first failed one stops the node
 * before the next removes anything (ADR-0084 decision 3). */

/* 0: sent alone; else the class of operations that may share a request. */
static int
batch_class(enum recon_op_kind k)
{
	switch (k) {
	case RECON_OP_CREATE_ADDRESS:
	case RECON_OP_UPDATE_ADDRESS:
		return 1;
	case RECON_OP_CREATE_QUEUE:
	case RECON_OP_UPDATE_QUEUE:
		return 2;
	case RECON_OP_CREATE_DIVERT:
	case RECON_OP_UPDATE_DIVERT:
		return 3;
	default:
		return 0;
	}
}

size_t
apply_batch_end(const struct apply_op *ops, size_t nops, size_t from,
    size_t max)
{
	int c = from < nops ? batch_class(ops[from].op.kind) : 0;
	size_t end, j;

	if (max == 0)
		max = APPLY_BATCH_MAX;
	if (c == 0)
		return from < nops ? from + 1 : nops;
	for (end = from + 1; end < nops && end - from < max; end++) {
		if (batch_class(ops[end].op.kind) != c)
			break;
		/* two operations on one object: the second in the next
		 * request (it may depend on the first) */
		for (j = from; j < end; j++)
			if (strcmp(ops[j].op.name, ops[end].op.name) == 0)
				break;
		if (j < end)
			break;
	}
	return end;
}

/* Operations [k, end) of out, sent as one request, got their outcomes;
 * those in lost[] (their reply lost, or the request's) are decided by one
 * read of the node, as lost_reply decides one. The creates before end
 * are checked on the same read. False when the node stops (FAILED). */
static bool
lost_batch(const struct apply_io *io, struct apply_node *out, size_t k,
    size_t end, const bool *lost)
{
	struct recon_node_snapshot n;
	struct apply_op *ao;
	enum apply_seen seen;
	size_t j, nlost = 0, ndone = 0, first = (size_t)-1, fl = k;
	char *text = NULL;
	bool go_on = false;

	while (!lost[fl - k])
		fl++; /* the first whose reply was lost: there is one */
	memset(&n, 0, sizeof(n));
	io->read(io->ctx, out->node, &n);
	for (j = k; j < end; j++) {
		if (!lost[j - k])
			continue;
		nlost++;
		ao = &out->ops[j];
		if (n.refusal.kind != RECON_OK) {
			ao->state = APPLY_OP_UNKNOWN;
			if (first == (size_t)-1)
				first = j;
			continue;
		}
		seen = apply_op_seen(&ao->op, &n);
		ao->established = APPLY_EST_READ_BACK;
		ao->state =
		    seen == APPLY_SEEN_AFTER ? APPLY_OP_DONE : APPLY_OP_FAILED;
		ndone += ao->state == APPLY_OP_DONE;
	}
	/* the node's failure: the first operation the broker refused, or
	 * that the read shows not done (or could not tell) */
	for (j = k; j < end && first == (size_t)-1; j++)
		if (out->ops[j].state != APPLY_OP_DONE)
			first = j;
	if (first != (size_t)-1 && lost[first - k] &&
	    n.refusal.kind == RECON_OK)
		text = apply_seen_text(&out->ops[first].op,
		    apply_op_seen(&out->ops[first].op, &n));
	if (n.refusal.kind != RECON_OK) {
		apply_node_note(out,
		    "%zu operation(s) sent in one request from %s '%s': the reply was lost (%s) and the node could not be read back: outcome unknown",
		    nlost, recon_op_kind_name(out->ops[k].op.kind),
		    out->ops[k].op.name,
		    recon_kind_name(out->ops[fl].refusal.kind));
		apply_node_set(out, APPLY_FAILED,
		    recon_kind_name(out->ops[first].refusal.kind),
		    failure_detail(out, first, &n.refusal, NULL));
		goto done;
	}
	apply_node_note(out,
	    "%zu operation(s) sent in one request from %s '%s': the reply was lost (%s); the node read back: %zu done, %zu not done",
	    nlost, recon_op_kind_name(out->ops[k].op.kind), out->ops[k].op.name,
	    recon_kind_name(out->ops[fl].refusal.kind), ndone, nlost - ndone);
	if (!verify_creates_with(&n, out, first != (size_t)-1 ? first : end))
		goto done;
	if (first != (size_t)-1) {
		apply_node_set(out, APPLY_FAILED,
		    recon_kind_name(out->ops[first].refusal.kind),
		    failure_detail(out, first, NULL, text));
		goto done;
	}
	go_on = true;
done:
	free(text);
	live_node_release(&n);
	return go_on;
}

/* Send operations [k, end) of out in one request. False when the node
 * stops (FAILED); else *created says whether a create ran. */
static bool
run_batch(const struct apply_io *io, struct apply_node *out, size_t k,
    size_t end, bool *created)
{
	size_t n = end - k, j, first = (size_t)-1;
	/* shallow copies: the request only reads them */
	struct recon_op *ops = xcalloc(n + 1, sizeof(*ops));
	struct recon_refusal *refusals = xcalloc(n + 1, sizeof(*refusals));
	int *rcs = xcalloc(n + 1, sizeof(*rcs));
	bool *lost = xcalloc(n + 1, sizeof(*lost));
	bool whole, any_lost = false, go_on = false;
	struct apply_op *ao;

	if (io->exec_batch == NULL) /* apply_run_ops checked: never */
		abort();
	for (j = 0; j < n; j++)
		ops[j] = out->ops[k + j].op;
	whole = io->exec_batch(io->ctx, out->node, ops, n, rcs, refusals) < 0;
	if (whole && !recon_refusal_reply_lost(&refusals[0])) {
		/* refused as a whole, before the broker ran any of it (an
		 * HTTP 401, a fence): the first fails, the rest are not run */
		out->ops[k].state = APPLY_OP_FAILED;
		recon_refusal_release(&out->ops[k].refusal);
		out->ops[k].refusal = refusals[0];
		memset(&refusals[0], 0, sizeof(refusals[0]));
		if (out->ops[k].refusal.kind == RECON_OK)
			out->ops[k].refusal.kind = RECON_BROKER_ERROR;
		if (io->progress != NULL)
			io->progress(io->hook_ctx, out->node, &out->ops[k]);
		fail_at(out, k);
		goto done;
	}
	for (j = 0; j < n; j++) {
		ao = &out->ops[k + j];
		recon_refusal_release(&ao->refusal);
		if (rcs[j] == 0 && !whole) {
			ao->state = APPLY_OP_DONE;
			continue;
		}
		ao->state = APPLY_OP_FAILED;
		ao->refusal = refusals[j];
		memset(&refusals[j], 0, sizeof(refusals[j]));
		if (ao->refusal.kind == RECON_OK)
			ao->refusal.kind = RECON_BROKER_ERROR;
		lost[j] = recon_refusal_reply_lost(&ao->refusal);
		any_lost |= lost[j];
		if (!lost[j] && first == (size_t)-1)
			first = k + j;
	}
	if (any_lost) {
		go_on = lost_batch(io, out, k, end, lost);
		*created = false; /* that read checked the creates */
	} else if (first != (size_t)-1) {
		fail_at(out, first);
	} else {
		go_on = true;
		for (j = k; j < end; j++)
			*created |= is_create(out->ops[j].op.kind);
	}
	for (j = k; j < end && io->progress != NULL; j++)
		io->progress(io->hook_ctx, out->node, &out->ops[j]);
done:
	for (j = 0; j < n; j++)
		recon_refusal_release(&refusals[j]);
	free(ops);
	free(refusals);
	free(rcs);
	free(lost);
	return go_on;
}

enum apply_ops_result
apply_run_ops(const struct apply_io *io, struct apply_node *out, size_t from,
    bool defer)
{
	struct apply_op *ao;
	bool unverified = false, lost, created;
	size_t k, end;

	for (k = from; k < out->nops; k++) {
		ao = &out->ops[k];
		if (!is_create(ao->op.kind) && unverified) {
			if (!verify_creates(io, out, k))
				return APPLY_OPS_FAILED;
			unverified = false;
		}
		end = io->exec_batch != NULL ? apply_batch_end(out->ops,
		                                   out->nops, k, io->batch_max)
		                             : k + 1;
		if (end - k > 1) {
			created = unverified;
			if (!run_batch(io, out, k, end, &created))
				return APPLY_OPS_FAILED;
			unverified = created;
			k = end - 1;
			continue;
		}
		lost = false;
		if (io->exec(io->ctx, out->node, &ao->op, &ao->refusal) < 0) {
			ao->state = APPLY_OP_FAILED;
			if (ao->refusal.kind == RECON_OK)
				ao->refusal.kind = RECON_BROKER_ERROR;
			lost = recon_refusal_reply_lost(&ao->refusal);
		} else {
			ao->state = APPLY_OP_DONE;
			recon_refusal_release(&ao->refusal);
		}
		if (lost && !lost_reply(io, out, k)) {
			if (io->progress != NULL)
				io->progress(io->hook_ctx, out->node, ao);
			return APPLY_OPS_FAILED;
		}
		if (io->progress != NULL)
			io->progress(io->hook_ctx, out->node, ao);
		if (lost) {
			unverified = false; /* that read checked the creates */
			continue;
		}
		if (ao->state == APPLY_OP_FAILED) {
			fail_at(out, k);
			return APPLY_OPS_FAILED;
		}
		unverified |= is_create(ao->op.kind);
	}
	if (unverified && defer)
		return APPLY_OPS_UNVERIFIED;
	if (unverified && !verify_creates(io, out, out->nops))
		return APPLY_OPS_FAILED;
	set_applied(out);
	return APPLY_OPS_DONE;
}

void
apply_read_nodes(const struct apply_io *io, const char *const *names, size_t n,
    struct recon_node_snapshot *out)
{
	size_t i;

	if (n == 0)
		return;
	if (io->read_all != NULL) {
		io->read_all(io->ctx, names, n, out);
		return;
	}
	for (i = 0; i < n; i++)
		io->read(io->ctx, names[i], &out[i]);
}
