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
	if (k + 1 < out->nops)
		sbuf_addf(&b, "; %zu later operation(s) not run",
		    out->nops - k - 1);
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

enum apply_ops_result
apply_run_ops(const struct apply_io *io, struct apply_node *out, size_t from,
    bool defer)
{
	struct apply_op *ao;
	bool unverified = false, lost;
	size_t k;

	for (k = from; k < out->nops; k++) {
		ao = &out->ops[k];
		if (!is_create(ao->op.kind) && unverified) {
			if (!verify_creates(io, out, k))
				return APPLY_OPS_FAILED;
			unverified = false;
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
