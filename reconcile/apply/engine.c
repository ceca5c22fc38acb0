/* reconcile/apply.c: the apply engine: check every node again, write the
 * intent, run each node's operations in order, read creates back. */
#include "apply-int.h"
#include "../recon-int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/sbuf.h"
#include "../../lib/xalloc.h"

void
recon_node_apply_note(struct recon_node_apply *out, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = xstrdup("?");
	va_end(ap);
	out->notes =
	    xreallocarray(out->notes, out->nnotes + 1, sizeof(*out->notes));
	out->notes[out->nnotes++] = s;
}

void
recon_op_copy(struct recon_op *dst, const struct recon_op *src)
{
	*dst = *src;
	dst->name = xstrdup(src->name);
	dst->queue = src->queue != NULL ? recon_queue_dup(src->queue) : NULL;
	dst->divert =
	    src->divert != NULL ? recon_divert_dup(src->divert) : NULL;
}

void
recon_op_clear(struct recon_op *op)
{
	free(op->name);
	recon_queue_clear(op->queue);
	free(op->queue);
	recon_divert_clear(op->divert);
	free(op->divert);
	memset(op, 0, sizeof(*op));
}

struct recon_applied_op *
recon_node_apply_add(struct recon_node_apply *out, const struct recon_action *a,
    const struct recon_op *op)
{
	struct recon_applied_op *ao;

	out->ops = xreallocarray(out->ops, out->nops + 1, sizeof(*out->ops));
	ao = &out->ops[out->nops++];
	memset(ao, 0, sizeof(*ao));
	ao->act = a->kind;
	ao->action = xstrdup(a->name);
	recon_op_copy(&ao->op, op);
	return ao;
}

void
recon_node_apply_drop_ops(struct recon_node_apply *out)
{
	size_t i;

	for (i = 0; i < out->nops; i++) {
		free(out->ops[i].action);
		recon_op_clear(&out->ops[i].op);
		recon_refusal_release(&out->ops[i].refusal);
	}
	free(out->ops);
	out->ops = NULL;
	out->nops = 0;
}

void
recon_node_apply_set(struct recon_node_apply *out, enum recon_apply_outcome o,
    const char *kind, char *detail)
{
	out->outcome = o;
	free(out->kind);
	out->kind = kind != NULL ? xstrdup(kind) : NULL;
	free(out->detail);
	out->detail = detail;
}

static const struct recon_node_plan *
node_step(const struct recon_action *a, const char *node)
{
	size_t i;

	for (i = 0; i < a->nnodes; i++)
		if (strcmp(a->nodes[i].node, node) == 0)
			return &a->nodes[i];
	return NULL;
}

/* Decide one node against its fresh snapshot n. */
static void
check_node(const struct recon_plan *p, const struct recon_node_status *ns,
    const struct recon_node_snapshot *n, struct recon_node_apply *out)
{
	struct recon_apply_ctx c;
	const struct recon_node_plan *np;
	bool any_stale = false, any_run = false;
	enum recon_verdict v;
	char *stale_why;
	size_t k;

	out->verdicts = xmalloc(p->nactions + 1);
	memset(out->verdicts, -1, p->nactions + 1);
	if (n->refusal.kind != RECON_OK) {
		recon_node_apply_set(out, RECON_APPLY_UNREACHABLE,
		    recon_kind_name(n->refusal.kind),
		    xasprintf("%s: %s", recon_kind_name(n->refusal.kind),
		        n->refusal.text != NULL ? n->refusal.text
		                                : "not read"));
		return;
	}
	if (!ns->reachable) {
		recon_node_apply_set(out, RECON_APPLY_REFUSED, "STALE",
		    xstrdup(
		        "stale plan: the node was unreachable when the plan was made, so nothing was planned for it; plan again"));
		return;
	}
	memset(&c, 0, sizeof(c));
	/* Dependency checks see every divert as the plan leaves it. */
	for (k = 0; k < p->nactions; k++) {
		np = node_step(&p->actions[k], ns->node);
		if (np != NULL && np->outcome == RECON_OUT_WOULD_APPLY &&
		    !recon_act_is_capture(p->actions[k].kind))
			recon_planned_diverts_add_ops(&c.planned_d, np);
	}
	for (k = 0; k < p->nactions; k++) {
		np = node_step(&p->actions[k], ns->node);
		if (np == NULL || recon_act_is_capture(p->actions[k].kind))
			continue; /* the capture pass runs again after */
		if (np->outcome == RECON_OUT_NO_CHANGE) {
			if (recon_apply_check_absent(&p->actions[k], np, n,
			        out) == RECON_V_STALE) {
				out->verdicts[k] = (signed char)RECON_V_STALE;
				any_stale = true;
			}
			continue;
		}
		v = recon_apply_check(p, &p->actions[k], np, n, &c, out);
		out->verdicts[k] = (signed char)v;
		any_stale |= v == RECON_V_STALE;
		any_run |= v == RECON_V_RUN;
	}
	recon_apply_ctx_release(&c);
	if (any_stale) {
		/* detail already holds the first stale reason */
		stale_why = out->detail;
		out->detail = NULL;
		recon_node_apply_drop_ops(out);
		recon_node_apply_set(out, RECON_APPLY_REFUSED, "STALE",
		    stale_why);
	} else if (!any_run) {
		recon_node_apply_set(out, RECON_APPLY_SKIPPED, NULL,
		    xstrdup(
		        out->nnotes > 0
		            ? "nothing to do: the node is already as planned"
		            : "nothing was planned on this node"));
	}
}

/* D7 again: the cap holds on the counts read now. A node whose deletes now
 * destroy more than planned is refused when the total is past the cap. */
static void
check_cap(const struct recon_plan *p, struct recon_apply_result *r)
{
	int64_t total = 0;
	struct recon_node_apply *n;
	size_t i;

	for (i = 0; i < r->nnodes; i++)
		if (r->nodes[i].outcome == RECON_APPLY_APPLIED)
			total += r->nodes[i].destroyed_messages;
	if (total <= p->max_destroyed_messages)
		return;
	for (i = 0; i < r->nnodes; i++) {
		n = &r->nodes[i];
		if (n->outcome != RECON_APPLY_APPLIED ||
		    n->destroyed_messages <= n->planned_messages)
			continue;
		recon_node_apply_drop_ops(n);
		recon_node_apply_set(n, RECON_APPLY_REFUSED, "STALE",
		    xasprintf(
		        "stale plan: the queue deletes on this node now destroy %lld messages (%lld when planned); the plan's total of %lld is past the cap of %lld (settings.max-destroyed-messages); plan again",
		        (long long)n->destroyed_messages,
		        (long long)n->planned_messages, (long long)total,
		        (long long)p->max_destroyed_messages));
	}
}

void
recon_apply_read_nodes(const struct recon_apply_io *io,
    const char *const *names, size_t n, struct recon_node_snapshot *out)
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

/* After the plan's operations: read again, all at once, every node that
 * needs it: where creates were left to read back by this read
 * (unverified[i]), and, when the capture pass can have work, where an
 * operation ran (ran[i]). Check those creates; then run the capture pass of
 * every node APPLIED or SKIPPED on the node as it is now: the read just
 * made, or, where no operation ran, the read apply made before acting. */
static void
after_ops(struct recon_apply_result *r, const struct recon_plan *p,
    const struct recon_apply_io *io, const bool *ran, const bool *unverified)
{
	struct recon_node_snapshot *again =
	    xcalloc(r->nnodes + 1, sizeof(*again));
	const char **names = xcalloc(r->nnodes + 1, sizeof(*names));
	size_t *at = xcalloc(r->nnodes + 1, sizeof(*at));
	bool pass = !recon_apply_capture_idle(p);
	const struct recon_node_snapshot *n;
	size_t i, k = 0;

	for (i = 0; i < r->nnodes; i++) {
		at[i] = (size_t)-1; /* not read again: r->seen[i] */
		if (unverified[i] ||
		    (pass && ran[i] &&
		        r->nodes[i].outcome == RECON_APPLY_APPLIED)) {
			at[i] = k;
			names[k++] = r->nodes[i].node;
		}
	}
	recon_apply_read_nodes(io, names, k, again);
	for (i = 0; i < r->nnodes; i++) {
		/* read again, or no operation ran (else no pass runs here) */
		n = at[i] != (size_t)-1 ? &again[at[i]] : &r->seen[i];
		if (unverified[i] && !recon_apply_verify_last(n, &r->nodes[i]))
			continue;
		if (pass && (r->nodes[i].outcome == RECON_APPLY_APPLIED ||
		                r->nodes[i].outcome == RECON_APPLY_SKIPPED))
			recon_apply_capture_node(p, io, n, &r->nodes[i]);
	}
	for (i = 0; i < k; i++)
		recon_node_snapshot_release(&again[i]);
	free(again);
	free(names);
	free(at);
}

int
recon_apply(struct recon_apply_result *r, const struct recon_plan *p,
    const struct recon_apply_io *io, struct err *err)
{
	const char **names;
	bool *ran, *unverified;
	size_t i;

	r->disconnect_consumers = p->disconnect_consumers;
	r->nnodes = p->nnodes;
	r->nodes = xcalloc(p->nnodes, sizeof(*r->nodes));
	r->seen = xcalloc(p->nnodes + 1, sizeof(*r->seen));
	names = xcalloc(p->nnodes + 1, sizeof(*names));
	for (i = 0; i < p->nnodes; i++)
		names[i] = p->nodes[i].node;
	/* Every node is read at once, one read each. */
	recon_apply_read_nodes(io, names, p->nnodes, r->seen);
	free(names);
	for (i = 0; i < p->nnodes; i++) {
		r->nodes[i].node = xstrdup(p->nodes[i].node);
		check_node(p, &p->nodes[i], &r->seen[i], &r->nodes[i]);
	}
	check_cap(p, r);
	if (io->intent != NULL && io->intent(io->hook_ctx, r, err) != 0)
		return -1;
	ran = xcalloc(r->nnodes + 1, sizeof(*ran));
	unverified = xcalloc(r->nnodes + 1, sizeof(*unverified));
	for (i = 0; i < r->nnodes; i++) {
		if (r->nodes[i].outcome != RECON_APPLY_APPLIED)
			continue;
		ran[i] = r->nodes[i].nops > 0;
		unverified[i] = recon_apply_run_ops(io, &r->nodes[i], 0,
		                    true) == RECON_RUN_UNVERIFIED;
	}
	after_ops(r, p, io, ran, unverified);
	free(ran);
	free(unverified);
	return 0;
}
