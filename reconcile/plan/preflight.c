/* reconcile/plan/preflight.c: the queue-delete preflight of ADR-0084, per node.
 *
 * One pure function serves the preview and apply: apply calls it again on
 * a fresh snapshot with the same context and compares the outcome. */
#include "plan-int.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/sbuf.h"
#include "../../lib/xalloc.h"
#include "../live/live.h"

/* True when d forwards into address: one of the comma-separated targets
 * of its forwarding address (live_forward_target) is address. */
static bool
forwards_into(const struct recon_divert *d, const char *address)
{
	const char *p = d->forwarding_address, *t;
	size_t len = strlen(address), n;

	while (live_forward_target(&p, &t, &n))
		if (n == len && n > 0 && strncmp(t, address, len) == 0)
			return true;
	return false;
}

/* The plan recreates queue under an address other than address. */
static bool
moved_away(const struct plan_queue_delete_ctx *ctx, const char *queue,
    const char *address)
{
	size_t i;

	for (i = 0; i < ctx->ncreated; i++)
		if (strcmp(ctx->created_queues[i], queue) == 0 &&
		    strcmp(ctx->created_queue_addresses[i], address) != 0)
			return true;
	return false;
}

/* The queues bound to address on the node once this queue is gone: live
 * ones (but those the plan moves to another address) plus the plan's
 * creates, minus the plan's earlier deletes. */
static void
remaining_queues(struct strv *out, const struct recon_node_snapshot *n,
    const struct live_node_index *x, const char *address, const char *queue,
    const struct plan_queue_delete_ctx *ctx)
{
	size_t *at, nat, i;

	nat = live_node_queues_at(x, address, &at);
	for (i = 0; i < nat; i++)
		if (!moved_away(ctx, n->queues[at[i]].name, address) &&
		    !strv_has(out, n->queues[at[i]].name))
			strv_add(out, n->queues[at[i]].name);
	free(at);
	for (i = 0; i < ctx->ncreated; i++)
		if (strcmp(ctx->created_queue_addresses[i], address) == 0 &&
		    !strv_has(out, ctx->created_queues[i]))
			strv_add(out, ctx->created_queues[i]);
	for (i = 0; i < out->n;) {
		if (strcmp(out->v[i], queue) == 0 ||
		    strv_array_has(ctx->deleted_queues, ctx->ndeleted_queues,
		        out->v[i])) {
			free(out->v[i]);
			memmove(out->v + i, out->v + i + 1,
			    (out->n - i - 1) * sizeof(*out->v));
			out->n--;
			continue;
		}
		i++;
	}
	strv_sort(out);
}

/* "'a', 'b'" */
static char *
quoted_list(char *const *v, size_t n)
{
	struct sbuf b = {0};
	size_t i;

	for (i = 0; i < n; i++)
		sbuf_addf(&b, "%s'%s'", i > 0 ? ", " : "", v[i]);
	return sbuf_take(&b);
}

static void
add_kept(struct plan_step *np, const struct recon_divert *d, char *reason)
{
	struct plan_kept_divert *k;

	np->kept = xreallocarray(np->kept, np->nkept + 1, sizeof(*np->kept));
	k = &np->kept[np->nkept++];
	k->name = xstrdup(d->name);
	k->address = xstrdup(d->address);
	k->forwarding_address = xstrdup(d->forwarding_address);
	k->reason = reason;
}

/* A divert copy of routing type rt reaches a queue of routing qr (the
 * rule of decl_address_consumes). */
static bool
copy_reaches(enum decl_divert_routing rt, unsigned qr)
{
	if (rt == DECL_DIVERT_ANYCAST)
		return qr == DECL_ANYCAST;
	if (rt == DECL_DIVERT_MULTICAST)
		return qr == DECL_MULTICAST;
	return true;
}

/* D2: a declared dependent divert is still removed, with the mode's
 * "does not stick" warning. address: the target of its forwarding
 * address that loses its last queue; whether the next apply re-creates
 * follows validation's rule (decl_address_consumes). */
static void
warn_declared(struct plan_step *np, const struct recon_divert *d,
    const struct decl_divert *dd, const char *address,
    const struct decl_cluster *decl)
{
	struct strv qs = {0};
	const struct decl_address *fa;
	char *list;
	size_t i;

	if (decl->mode == DECL_CONFIG_MANAGED) {
		plan_step_warn(np,
		    "divert '%s' is declared in the cluster's declaration: the broker.xml rendered from it still carries the divert, so the next deployment and restart bring it back; remove the divert from the declaration",
		    d->name);
		return;
	}
	fa = decl_cluster_find_address(decl, address);
	if (fa == NULL || !decl_address_consumes(fa, dd->routing_type)) {
		plan_step_warn(np,
		    "divert '%s' is declared in the cluster's declaration: the removal does not stick; validation refuses the next apply (\"Nothing consumes at %s\") until the declaration drops the divert; remove the divert from the declaration",
		    d->name, address);
		return;
	}
	for (i = 0; i < fa->nqueues; i++)
		if (copy_reaches(dd->routing_type, fa->queues[i].routing))
			strv_add(&qs, fa->queues[i].name);
	list = quoted_list(qs.v, qs.n);
	plan_step_warn(np,
	    "divert '%s' is declared in the cluster's declaration: the removal does not stick; the next apply acts on the declaration again and re-creates queue %s on '%s' and the divert; remove the divert from the declaration",
	    d->name, list, address);
	free(list);
	strv_release(&qs);
}

static void
remove_divert(struct plan_step *np, const struct recon_divert *d,
    const char *address, const struct decl_cluster *decl)
{
	const struct decl_divert *dd = decl_cluster_find_divert(decl, d->name);
	struct plan_removed_divert *r;
	struct recon_op *op;

	np->removed =
	    xreallocarray(np->removed, np->nremoved + 1, sizeof(*np->removed));
	r = &np->removed[np->nremoved++];
	recon_divert_copy(&r->config, d);
	r->declared = dd != NULL;
	op = plan_step_add_op(np, RECON_OP_DESTROY_DIVERT, d->name);
	op->divert = recon_divert_dup(d);
	if (dd != NULL)
		warn_declared(np, d, dd, address, decl);
}

static const struct decl_capture *
tap_owner(const struct decl_cluster *decl, const char *tap, const char *address)
{
	const char *prefix = decl->settings.capture_prefix;
	const char *rest = tap + strlen(prefix);
	size_t i;

	for (i = 0; i < decl->ncaptures; i++) {
		size_t len;

		len = strlen(decl->captures[i].name);
		if (strncmp(rest, decl->captures[i].name, len) == 0 &&
		    rest[len] == '.' && strcmp(rest + len + 1, address) == 0)
			return &decl->captures[i];
	}
	return NULL;
}

/* A capture no longer declared that the same plan's capture pass
 * removes; NULL when the tap is not one of theirs. */
static const char *
tap_removed_owner(const struct plan_queue_delete_ctx *ctx, const char *tap)
{
	const char *rest = tap + strlen(ctx->decl->settings.capture_prefix);
	size_t i, len;

	for (i = 0; i < ctx->nremoved_captures; i++) {
		len = strlen(ctx->removed_captures[i]);
		if (strncmp(rest, ctx->removed_captures[i], len) == 0 &&
		    rest[len] == '.')
			return ctx->removed_captures[i];
	}
	return NULL;
}

static struct plan_tap *
new_tap(struct plan_step *np, const char *name)
{
	struct plan_tap *t;

	np->taps = xreallocarray(np->taps, np->ntaps + 1, sizeof(*np->taps));
	t = &np->taps[np->ntaps++];
	memset(t, 0, sizeof(*t));
	t->name = xstrdup(name);
	t->fate = PLAN_TAP_KEPT;
	return t;
}

/* The remaining queues c covers, with the capture pass's own rule. */
static void
still_covered(struct strv *out, const struct recon_node_snapshot *n,
    const struct decl_capture *c, const char *address,
    const struct strv *remaining, const char *prefix)
{
	const struct recon_queue *lq;
	size_t i;

	for (i = 0; i < remaining->n; i++) {
		lq = recon_node_find_queue(n, remaining->v[i]);
		if (plan_capture_covers(prefix, c->pattern, remaining->v[i],
		        address, lq != NULL && lq->internal))
			strv_add(out, remaining->v[i]);
	}
}

/* The deleted queue is internal (the capture pass never covers one). */
static bool
deleted_internal(const struct recon_node_snapshot *n, const char *queue)
{
	const struct recon_queue *q = recon_node_find_queue(n, queue);

	return q != NULL && q->internal;
}

/* D5: taps are never removed here; name each with its fate, as the
 * capture pass that follows the plan's actions decides it. */
static void
add_tap(struct plan_step *np, const struct recon_node_snapshot *n,
    const struct recon_divert *d, const char *queue,
    const struct strv *remaining, const struct plan_queue_delete_ctx *ctx)
{
	const char *prefix = ctx->decl->settings.capture_prefix;
	const struct decl_capture *c =
	    tap_owner(ctx->decl, d->name, d->address);
	const char *gone = c == NULL ? tap_removed_owner(ctx, d->name) : NULL;
	struct plan_tap *t = new_tap(np, d->name);
	struct strv matched = {0};
	char *list;

	if (gone != NULL) {
		t->capture = xstrdup(gone);
		t->fate = PLAN_TAP_REMOVED_BY_SUBSCRIPTION;
		t->reason = xasprintf(
		    "capture '%s' is no longer declared: the capture pass of this plan removes every tap of it",
		    gone);
		return;
	}
	if (c == NULL) {
		t->reason = xstrdup(
		    "no declared capture subscription owns this tap; a queue delete never removes a tap (the capture pass does)");
		return;
	}
	t->capture = xstrdup(c->name);
	still_covered(&matched, n, c, d->address, remaining, prefix);
	if (matched.n > 0) {
		list = quoted_list(matched.v, matched.n);
		t->reason = xasprintf(
		    "kept: capture '%s' still covers '%s' through queue %s",
		    c->name, d->address, list);
		free(list);
	} else if (plan_capture_covers(prefix, c->pattern, queue, d->address,
	               deleted_internal(n, queue))) {
		t->fate = PLAN_TAP_REMOVED_BY_SUBSCRIPTION;
		t->reason = xasprintf(
		    "'%s' is the last queue on '%s' that capture '%s' (pattern '%s') matches: the capture pass that follows the delete removes the tap",
		    queue, d->address, c->name, c->pattern);
	} else {
		t->fate = PLAN_TAP_REMOVED_BY_SUBSCRIPTION;
		t->reason = xasprintf(
		    "no queue left on '%s' matches capture '%s' (pattern '%s'; %s '%s' either): the capture pass that follows the delete removes the tap",
		    d->address, c->name, c->pattern,
		    deleted_internal(n, queue)
		        ? "a capture never covers internal queue"
		        : "it does not match",
		    queue);
	}
	strv_release(&matched);
}

void
plan_planned_diverts_add(struct plan_planned_diverts *pd,
    const struct recon_divert *d)
{
	size_t i;

	for (i = 0; i < pd->n; i++)
		if (strcmp(pd->v[i]->name, d->name) == 0) {
			pd->v[i] = d;
			return;
		}
	pd->v = xreallocarray(pd->v, pd->n + 1,
	    sizeof(const struct recon_divert *));
	pd->v[pd->n++] = d;
}

void
plan_planned_diverts_add_ops(struct plan_planned_diverts *pd,
    const struct plan_step *np)
{
	size_t i;

	for (i = 0; i < np->nops; i++)
		if ((np->ops[i].kind == RECON_OP_CREATE_DIVERT ||
		        np->ops[i].kind == RECON_OP_UPDATE_DIVERT) &&
		    np->ops[i].divert != NULL)
			plan_planned_diverts_add(pd, np->ops[i].divert);
}

void
plan_planned_diverts_release(struct plan_planned_diverts *pd)
{
	free(pd->v);
	memset(pd, 0, sizeof(*pd));
}

static const struct recon_divert *
planned_divert(const struct plan_queue_delete_ctx *ctx, const char *name)
{
	size_t i;

	for (i = 0; i < ctx->nplanned_diverts; i++)
		if (strcmp(ctx->planned_diverts[i]->name, name) == 0)
			return ctx->planned_diverts[i];
	return NULL;
}

/* D1, D4, D5 for one divert as the plan leaves it. */
static void
scan_divert(struct plan_step *np, const struct recon_node_snapshot *n,
    const struct recon_divert *d, const char *queue, const char *address,
    const struct strv *rest, const struct plan_queue_delete_ctx *ctx)
{
	const char *prefix = ctx->decl->settings.capture_prefix;
	char *list;

	if (plan_has_prefix(d->name, prefix)) {
		if (strcmp(d->address, address) == 0)
			add_tap(np, n, d, queue, rest, ctx);
	} else if (forwards_into(d, address) && rest->n == 0) {
		/* docs/policy.md: protected, unmanaged or retained: it stays,
		 * and the node is refused */
		if (plan_policy_keeps_dependent(np, d, queue, ctx))
			add_kept(np, d,
			    xasprintf("never removed: %s (the node's refusal)",
			        np->refusal));
		else
			remove_divert(np, d, address, ctx->decl);
	} else if (forwards_into(d, address)) {
		list = quoted_list(rest->v, rest->n);
		add_kept(np, d,
		    xasprintf(
		        "not dependent: it forwards into '%s', which still has queue %s on this node when '%s' goes",
		        address, list, queue));
		free(list);
	} else if (strcmp(d->address, address) == 0) {
		add_kept(np, d,
		    xasprintf(
		        "its source is the queue's address: it still routes what producers send to '%s'; deleting it would change where live traffic goes, so that stays the divert's own delete",
		        address));
	}
}

/* D1, D4, D5: walk the node's diverts around the queue's address, each
 * as the plan leaves it (its planned configuration when the plan creates
 * or changes it), in name order. Only the diverts whose source is the
 * address or whose forwarding address names it, live or planned, can
 * matter (scan_divert() ignores the others), so the node's index gives
 * the live ones without a walk of every divert. */
static void
scan_diverts(struct plan_step *np, const struct recon_node_snapshot *n,
    const char *queue, const char *address,
    const struct plan_queue_delete_ctx *ctx)
{
	const struct recon_divert *d, *pd;
	struct strv rest = {0};
	struct live_node_index *own = NULL;
	const struct live_node_index *x = n->index;
	size_t *around, naround, *cand, ncand = 0, i, k;

	if (x == NULL)
		x = own = live_node_index_build(n);
	remaining_queues(&rest, n, x, address, queue, ctx);
	/* Candidates: live diverts around the address, and the live
	 * position of every planned divert that replaces a live one. */
	naround = live_node_diverts_around(x, address, &around);
	cand = xcalloc(naround + ctx->nplanned_diverts + 1, sizeof(*cand));
	for (i = 0; i < naround; i++)
		cand[ncand++] = around[i];
	free(around);
	for (i = 0; i < ctx->nplanned_diverts; i++) {
		d = recon_node_find_divert(n, ctx->planned_diverts[i]->name);
		if (d != NULL)
			cand[ncand++] = (size_t)(d - n->diverts);
	}
	live_index_sort_unique(cand, &ncand);
	for (k = 0; k < ncand; k++) {
		d = &n->diverts[cand[k]];
		if (strv_array_has(ctx->deleted_diverts, ctx->ndeleted_diverts,
		        d->name))
			continue;
		pd = planned_divert(ctx, d->name);
		scan_divert(np, n, pd != NULL ? pd : d, queue, address, &rest,
		    ctx);
	}
	free(cand);
	for (i = 0; i < ctx->nplanned_diverts; i++) {
		pd = ctx->planned_diverts[i];
		if (recon_node_find_divert(n, pd->name) == NULL &&
		    !strv_array_has(ctx->deleted_diverts, ctx->ndeleted_diverts,
		        pd->name))
			scan_divert(np, n, pd, queue, address, &rest, ctx);
	}
	strv_release(&rest);
	live_node_index_free(own);
}

/* D6: consumers refuse the node unless the operator asked to close them. */
static void
check_consumers(struct plan_step *np, const struct recon_queue *q,
    const struct plan_queue_delete_ctx *ctx)
{
	if (q->consumer_count <= 0)
		return;
	if (!ctx->disconnect_consumers && np->outcome == PLAN_OUT_REFUSED) {
		/* refused already (docs/policy.md): say this too */
		plan_step_warn(np,
		    "queue '%s' also has %lld consumer%s on this node", q->name,
		    (long long)q->consumer_count,
		    q->consumer_count == 1 ? "" : "s");
		return;
	}
	if (!ctx->disconnect_consumers) {
		plan_step_refuse(np, "HAS_CONSUMERS",
		    "stop the consumers, or plan again with --disconnect-consumers to close them",
		    "queue '%s' has %lld consumer%s on this node", q->name,
		    (long long)q->consumer_count,
		    q->consumer_count == 1 ? "" : "s");
		np->refusal_kind = RECON_HAS_CONSUMERS;
		return;
	}
	plan_step_warn(np,
	    "--disconnect-consumers: %lld consumer%s of queue '%s' will be disconnected; a client that reconnects can create the queue again if auto-create is on for address '%s', and the agent cannot stop that",
	    (long long)q->consumer_count, q->consumer_count == 1 ? "" : "s",
	    q->name, q->address);
}

void
plan_preflight_queue_delete(struct plan_step *np,
    const struct recon_node_snapshot *n, const char *queue,
    const struct plan_queue_delete_ctx *ctx, bool recreate)
{
	const struct recon_queue *q;
	struct recon_op *op;

	if (n == NULL || n->refusal.kind != RECON_OK) {
		plan_step_not_read(np, n);
		return;
	}
	q = recon_node_find_queue(n, queue);
	if (q == NULL) {
		np->outcome = PLAN_OUT_NO_CHANGE;
		np->message =
		    xasprintf("queue '%s' does not exist on this node", queue);
		return;
	}
	assert(q->unread == 0); /* scope.c: what a plan may delete */
	np->outcome = PLAN_OUT_WOULD_APPLY;
	np->observed.present = true;
	np->observed.queue = recon_queue_dup(q);
	np->consumers = q->consumer_count;
	np->destroyed_messages = q->message_count;
	if (!recreate)
		scan_diverts(np, n, queue, q->address, ctx);
	if (np->nremoved > 0)
		plan_step_warn(np,
		    "if a removed divert is in this node's broker.xml, the broker creates it again at the next restart, and the queue can come back with it (a broker.xml divert cannot be told from a runtime one)");
	if (np->nremoved > 0 &&
	    !recon_version_divert_into_nothing_harms(n->broker_version))
		plan_step_warn(np,
		    "on Artemis %s a divert into an address that has lost its queue does not create it again, nor make sends to its source fail: the broker drops what it forwards (measured; ADR-0084 §17 measured both on 2.44); the divert is removed with the queue all the same, so that nothing forwards into an address that is gone",
		    n->broker_version);
	/* delete-if-empty first: draining the queue takes consumers */
	if (!plan_preflight_delete_if_empty(np, q, ctx))
		check_consumers(np, q, ctx);
	op = plan_step_add_op(np, RECON_OP_DESTROY_QUEUE, queue);
	op->remove_consumers = ctx->disconnect_consumers;
}
