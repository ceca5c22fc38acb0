/* reconcile/apply/evidence.c: what a node read shows of one operation: its
 * object as the operation leaves it (done), as the operation finds it (not
 * done), or neither. Apply decides by it when an operation's reply was
 * lost (operations.c) and which operations an interrupted apply had done
 * when it resumes (resume.c). */
#include "apply-int.h"

#include <string.h>

#include "../../lib/xalloc.h"

static enum apply_seen
seen_address(const struct recon_op *op, const struct recon_node_snapshot *n)
{
	const struct recon_address *la = recon_node_find_address(n, op->name);

	switch (op->kind) {
	case RECON_OP_CREATE_ADDRESS:
		if (la == NULL)
			return APPLY_SEEN_BEFORE;
		return (la->routing & op->routing) == op->routing
		           ? APPLY_SEEN_AFTER
		           : APPLY_SEEN_OTHER;
	case RECON_OP_UPDATE_ADDRESS:
		if (la == NULL)
			return APPLY_SEEN_OTHER;
		return la->routing == op->routing ? APPLY_SEEN_AFTER
		                                  : APPLY_SEEN_BEFORE;
	default: /* RECON_OP_DELETE_ADDRESS */
		return la == NULL ? APPLY_SEEN_AFTER : APPLY_SEEN_BEFORE;
	}
}

static enum apply_seen
seen_queue(const struct recon_op *op, const struct recon_node_snapshot *n)
{
	const struct recon_queue *lq = recon_node_find_queue(n, op->name);
	bool same = lq != NULL &&
	            (op->queue == NULL || recon_queue_same(lq, op->queue));

	switch (op->kind) {
	case RECON_OP_CREATE_QUEUE:
		if (lq == NULL)
			return APPLY_SEEN_BEFORE;
		return same ? APPLY_SEEN_AFTER : APPLY_SEEN_OTHER;
	case RECON_OP_UPDATE_QUEUE:
		if (lq == NULL)
			return APPLY_SEEN_OTHER;
		return same ? APPLY_SEEN_AFTER : APPLY_SEEN_BEFORE;
	default: /* RECON_OP_DESTROY_QUEUE */
		return lq == NULL ? APPLY_SEEN_AFTER : APPLY_SEEN_BEFORE;
	}
}

static enum apply_seen
seen_divert(const struct recon_op *op, const struct recon_node_snapshot *n)
{
	const struct recon_divert *ld = recon_node_find_divert(n, op->name);
	bool same = ld != NULL &&
	            (op->divert == NULL || recon_divert_same(ld, op->divert));

	switch (op->kind) {
	case RECON_OP_CREATE_DIVERT:
		if (ld == NULL)
			return APPLY_SEEN_BEFORE;
		return same ? APPLY_SEEN_AFTER : APPLY_SEEN_OTHER;
	case RECON_OP_UPDATE_DIVERT:
		if (ld == NULL)
			return APPLY_SEEN_OTHER;
		return same ? APPLY_SEEN_AFTER : APPLY_SEEN_BEFORE;
	default: /* RECON_OP_DESTROY_DIVERT: the divert it was to remove */
		if (ld == NULL)
			return APPLY_SEEN_AFTER;
		return same ? APPLY_SEEN_BEFORE : APPLY_SEEN_OTHER;
	}
}

enum apply_seen
apply_op_seen(const struct recon_op *op, const struct recon_node_snapshot *n)
{
	switch (op->kind) {
	case RECON_OP_CREATE_ADDRESS:
	case RECON_OP_UPDATE_ADDRESS:
	case RECON_OP_DELETE_ADDRESS:
		return seen_address(op, n);
	case RECON_OP_CREATE_QUEUE:
	case RECON_OP_UPDATE_QUEUE:
	case RECON_OP_DESTROY_QUEUE:
		return seen_queue(op, n);
	case RECON_OP_CREATE_DIVERT:
	case RECON_OP_UPDATE_DIVERT:
	case RECON_OP_DESTROY_DIVERT:
		return seen_divert(op, n);
	}
	return APPLY_SEEN_OTHER;
}

static const char *
noun(enum recon_op_kind k)
{
	switch (k) {
	case RECON_OP_CREATE_ADDRESS:
	case RECON_OP_UPDATE_ADDRESS:
	case RECON_OP_DELETE_ADDRESS:
		return "address";
	case RECON_OP_CREATE_QUEUE:
	case RECON_OP_UPDATE_QUEUE:
	case RECON_OP_DESTROY_QUEUE:
		return "queue";
	default:
		return "divert";
	}
}

char *
apply_seen_text(const struct recon_op *op, enum apply_seen s)
{
	const char *what;
	bool destroy = op->kind == RECON_OP_DELETE_ADDRESS ||
	               op->kind == RECON_OP_DESTROY_QUEUE ||
	               op->kind == RECON_OP_DESTROY_DIVERT;
	bool create = op->kind == RECON_OP_CREATE_ADDRESS ||
	              op->kind == RECON_OP_CREATE_QUEUE ||
	              op->kind == RECON_OP_CREATE_DIVERT;

	if (destroy)
		what = s == APPLY_SEEN_AFTER    ? "is gone"
		       : s == APPLY_SEEN_BEFORE ? "is still there"
		                                : "is there with another "
		                                  "configuration";
	else if (create)
		what = s == APPLY_SEEN_AFTER    ? "is there as sent"
		       : s == APPLY_SEEN_BEFORE ? "is not there"
		                                : "is there with another "
		                                  "configuration";
	else
		what = s == APPLY_SEEN_AFTER    ? "is as sent"
		       : s == APPLY_SEEN_BEFORE ? "is not as sent"
		                                : "is not there";
	return xasprintf("the %s %s", noun(op->kind), what);
}
