/* reconcile/plan/diff.c: the three-way diff, declared half: what the new
 * declaration asks for against each node's live state (creates, changes in
 * place, changes by recreate). Removals are in diff-delete.c. */
#include "plan-int.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/sbuf.h"
#include "../../lib/xalloc.h"

static void
plan_address(struct plan_diff *d, const struct decl_address *da)
{
	const struct recon_address *la;
	struct plan_step *np;
	struct recon_op *op;
	size_t i;

	if (da->policy.unmanaged) /* managed: false: left alone */
		return;
	plan_diff_object_begin(d);
	for (i = 0; i < d->decl->nnodes; i++) {
		if (!plan_diff_reachable(d, i))
			continue;
		la = recon_node_find_address(d->nodes[i], da->name);
		if (la == NULL) {
			np = plan_diff_step(d, PLAN_ACT_CREATE_ADDRESS,
			    da->name, NULL, i);
			np->outcome = PLAN_OUT_WOULD_APPLY;
			op = plan_step_add_op(np, RECON_OP_CREATE_ADDRESS,
			    da->name);
			op->routing = da->routing;
		} else if ((la->routing & da->routing) != da->routing) {
			np = plan_diff_step(d, PLAN_ACT_WIDEN_ADDRESS, da->name,
			    NULL, i);
			np->outcome = PLAN_OUT_WOULD_APPLY;
			np->observed.present = true;
			np->observed.address_routing = la->routing;
			op = plan_step_add_op(np, RECON_OP_UPDATE_ADDRESS,
			    da->name);
			op->routing = la->routing | da->routing;
		}
	}
	plan_diff_object_end(d);
}

/* Fields updateQueue cannot change (artemis-management.md 2.4). */
static void
queue_recreate_diffs(struct sbuf *b, const struct recon_queue *want,
    const struct recon_queue *live)
{
	if (strcmp(want->address, live->address) != 0)
		sbuf_adds(b, ", address");
	if (want->durable != live->durable)
		sbuf_adds(b, ", durable");
	if (!recon_str_eq(want->last_value_key, live->last_value_key))
		sbuf_adds(b, ", last-value-key");
}

static void
queue_update_diffs(struct sbuf *b, const struct recon_queue *want,
    const struct recon_queue *live)
{
	if (want->routing != live->routing)
		sbuf_adds(b, ", routing-type");
	if (!recon_str_eq(want->filter, live->filter))
		sbuf_adds(b, ", filter");
	if (want->max_consumers != live->max_consumers)
		sbuf_adds(b, ", max-consumers");
	if (want->purge_on_no_consumers != live->purge_on_no_consumers)
		sbuf_adds(b, ", purge-on-no-consumers");
	if (want->exclusive != live->exclusive)
		sbuf_adds(b, ", exclusive");
	if (want->ring_size != live->ring_size)
		sbuf_adds(b, ", ring-size");
	if (want->enabled != live->enabled)
		sbuf_adds(b, ", enabled");
	if (want->consumers_before_dispatch != live->consumers_before_dispatch)
		sbuf_adds(b, ", consumers-before-dispatch");
	if (want->delay_before_dispatch != live->delay_before_dispatch)
		sbuf_adds(b, ", delay-before-dispatch");
}

static void
node_created_queue(struct plan_diff *d, size_t i, const struct decl_queue *q)
{
	strv_add(&d->ctx[i].created_q, q->name);
	strv_add(&d->ctx[i].created_q_addr, q->address);
}

static void
recreate_message(struct plan_step *np, const struct sbuf *re,
    const struct sbuf *up)
{
	char *m;

	m = xasprintf("differs in what updateQueue cannot change: %s%s%s%s",
	    sbuf_str(re) + 2, sbuf_str(up), np->message != NULL ? "; " : "",
	    np->message != NULL ? np->message : "");
	free(np->message);
	np->message = m;
}

static void
plan_queue_node(struct plan_diff *d, const struct decl_queue *dq, size_t i)
{
	const struct recon_queue *lq =
	    recon_node_find_queue(d->nodes[i], dq->name);
	struct plan_queue_delete_ctx ctx;
	struct plan_step *np;
	struct recon_queue want;
	struct sbuf re = {0}, up = {0};
	struct recon_op *op;
	char *die = NULL;
	size_t k;

	recon_queue_from_decl(&want, dq);
	assert(lq == NULL || lq->unread == 0); /* scope.c: declared */
	if (lq == NULL) {
		np = plan_diff_step(d, PLAN_ACT_CREATE_QUEUE, dq->name,
		    dq->address, i);
		np->outcome = PLAN_OUT_WOULD_APPLY;
		op = plan_step_add_op(np, RECON_OP_CREATE_QUEUE, dq->name);
		op->queue = recon_queue_dup(&want);
		node_created_queue(d, i, dq);
		return;
	}
	queue_recreate_diffs(&re, &want, lq);
	queue_update_diffs(&up, &want, lq);
	if (re.len > 0) {
		np = plan_diff_step(d, PLAN_ACT_RECREATE_QUEUE, dq->name,
		    dq->address, i);
		plan_diff_queue_delete_ctx(&ctx, d, i);
		/* the new declaration's policy: the queue is still declared */
		die = decl_queue_delete_if_empty_text(d->decl, dq);
		ctx.delete_if_empty = die;
		plan_diff_set_delete_if_empty(d, PLAN_ACT_RECREATE_QUEUE, die);
		/* Moved to another address: its old address loses it, so
		 * D1/D4/D5 run there as for a delete. */
		plan_preflight_queue_delete(np, d->nodes[i], dq->name, &ctx,
		    strcmp(want.address, lq->address) == 0);
		for (k = 0; k < np->nremoved; k++)
			strv_add(&d->ctx[i].deleted_d,
			    np->removed[k].config.name);
		recreate_message(np, &re, &up);
		op = plan_step_add_op(np, RECON_OP_CREATE_QUEUE, dq->name);
		op->queue = recon_queue_dup(&want);
		node_created_queue(d, i, dq);
	} else if (up.len > 0) {
		np = plan_diff_step(d, PLAN_ACT_CHANGE_QUEUE, dq->name,
		    dq->address, i);
		np->outcome = PLAN_OUT_WOULD_APPLY;
		np->observed.present = true;
		np->observed.queue = recon_queue_dup(lq);
		np->message = xasprintf("differs: %s", sbuf_str(&up) + 2);
		op = plan_step_add_op(np, RECON_OP_UPDATE_QUEUE, dq->name);
		op->queue = recon_queue_dup(&want);
	}
	free(die);
	sbuf_release(&re);
	sbuf_release(&up);
}

static void
plan_queue(struct plan_diff *d, const struct decl_queue *dq)
{
	size_t i;

	if (dq->policy.unmanaged) /* managed: false: left alone */
		return;
	plan_diff_object_begin(d);
	for (i = 0; i < d->decl->nnodes; i++)
		if (plan_diff_reachable(d, i))
			plan_queue_node(d, dq, i);
	plan_diff_object_end(d);
}

static const struct recon_node_snapshot *
snap_node(const struct recon_snapshot *s, const char *name)
{
	size_t i;

	for (i = 0; s != NULL && i < s->nnodes; i++)
		if (s->nodes[i].node != NULL &&
		    strcmp(s->nodes[i].node, name) == 0)
			return &s->nodes[i];
	return NULL;
}

static char *
dup_or_null(const char *s)
{
	return s != NULL ? xstrdup(s) : NULL;
}

/* The plan's header and node table; d is ready for the diff. */
static void
diff_init(struct plan_diff *d, const struct decl_cluster *decl,
    const struct recon_snapshot *snap, const struct plan_opts *opts,
    const char *kind)
{
	struct plan *p = xcalloc(1, sizeof(*p));
	const struct recon_node_snapshot *n;
	char digest[SHA256_HEX];
	size_t i;

	memset(d, 0, sizeof(*d));
	d->decl = decl;
	d->opts = opts;
	d->plan = p;
	p->kind = xstrdup(kind);
	p->cluster = xstrdup(decl->name);
	p->mode = decl->mode;
	p->revision = dup_or_null(opts->revision);
	decl_cluster_digest(decl, digest);
	p->declaration_digest = xstrdup(digest);
	p->snapshot_source = xstrdup(
	    opts->snapshot_source != NULL ? opts->snapshot_source : "live");
	p->snapshot_taken_at =
	    dup_or_null(snap != NULL ? snap->taken_at : NULL);
	p->disconnect_consumers = opts->disconnect_consumers;
	p->capture_prefix = xstrdup(decl->settings.capture_prefix);
	p->max_destroyed_messages = decl->settings.max_destroyed_messages;
	p->ncaptures = decl->ncaptures;
	p->captures = xcalloc(decl->ncaptures + 1, sizeof(*p->captures));
	for (i = 0; i < decl->ncaptures; i++) {
		p->captures[i].name = xstrdup(decl->captures[i].name);
		p->captures[i].pattern = xstrdup(decl->captures[i].pattern);
		p->captures[i].ring_size = decl->captures[i].ring_size;
	}
	plan_delete_if_empty_record(p, decl);
	d->nodes = xcalloc(decl->nnodes + 1,
	    sizeof(const struct recon_node_snapshot *));
	d->ctx = xcalloc(decl->nnodes + 1, sizeof(*d->ctx));
	p->nnodes = decl->nnodes;
	p->nodes = xcalloc(decl->nnodes + 1, sizeof(*p->nodes));
	for (i = 0; i < decl->nnodes; i++) {
		n = snap_node(snap, decl->nodes[i].name);
		d->nodes[i] = n;
		p->nodes[i].node = xstrdup(decl->nodes[i].name);
		p->nodes[i].reachable =
		    n != NULL && n->refusal.kind == RECON_OK;
		if (n != NULL && n->broker_version != NULL)
			p->nodes[i].version = xstrdup(n->broker_version);
		if (n != NULL)
			plan_node_members(&p->nodes[i], n);
		if (p->nodes[i].reachable)
			continue;
		p->nodes[i].refusal = xstrdup(recon_kind_name(
		    n != NULL ? n->refusal.kind : RECON_UNREACHABLE));
		p->nodes[i].message =
		    xstrdup(n != NULL && n->refusal.text != NULL
		                ? n->refusal.text
		                : "the node is not in the snapshot");
	}
}

static struct plan *
diff_done(struct plan_diff *d)
{
	struct plan *p = d->plan;
	size_t i;

	plan_diff_versions(d);
	plan_diff_finish(d);
	for (i = 0; i < d->decl->nnodes; i++) {
		strv_release(&d->ctx[i].created_q);
		strv_release(&d->ctx[i].created_q_addr);
		strv_release(&d->ctx[i].deleted_q);
		strv_release(&d->ctx[i].deleted_d);
		plan_planned_diverts_release(&d->ctx[i].planned_d);
	}
	strv_release(&d->removed_captures);
	strv_release(&d->forgotten_q);
	strv_release(&d->forgotten_d);
	free(d->ctx);
	free(d->nodes);
	return p;
}

/* Is the declared object named name (a queue when q, a divert when v,
 * else an address) on a node read? */
static bool
on_some_node(const struct plan_diff *d, const char *name, bool q, bool v)
{
	size_t i;

	for (i = 0; i < d->decl->nnodes; i++) {
		if (!plan_diff_reachable(d, i))
			continue;
		if (q   ? recon_node_find_queue(d->nodes[i], name) != NULL
		    : v ? recon_node_find_divert(d->nodes[i], name) != NULL
		        : recon_node_find_address(d->nodes[i], name) != NULL)
			return true;
	}
	return false;
}

/* What an apply adds to the managed set without creating it: the
 * declared objects found on a node (apply_update_managed's "found as
 * declared"), counted for the preview. */
static void
plan_diff_adopts(struct plan_diff *d)
{
	const struct decl_cluster *c = d->decl;
	struct plan *p = d->plan;
	size_t i, j;

	for (i = 0; i < c->naddresses; i++) {
		const struct decl_address *a = &c->addresses[i];

		if (!a->policy.unmanaged &&
		    !plan_managed_has_address(d->managed, a->name) &&
		    on_some_node(d, a->name, false, false))
			p->adopts_addresses++;
		for (j = 0; j < a->nqueues; j++)
			if (!a->queues[j].policy.unmanaged &&
			    !plan_managed_has_queue(d->managed,
			        a->queues[j].name) &&
			    on_some_node(d, a->queues[j].name, true, false))
				p->adopts_queues++;
	}
	for (i = 0; i < c->ndiverts; i++)
		if (!c->diverts[i].policy.unmanaged &&
		    !plan_managed_has_divert(d->managed, c->diverts[i].name) &&
		    on_some_node(d, c->diverts[i].name, false, true))
			p->adopts_diverts++;
}

struct plan *
plan_build(const struct decl_cluster *decl, const struct plan_managed *managed,
    const struct recon_snapshot *snap, const struct plan_opts *opts)
{
	struct plan_diff d;
	struct plan *p;
	size_t i, j;

	diff_init(&d, decl, snap, opts, "plan");
	d.managed = managed;
	d.plan->base_source =
	    xstrdup(managed->source != NULL ? managed->source : "none");
	d.plan->base_revision = dup_or_null(managed->revision);
	plan_diff_policy_init(&d);
	plan_diff_removed_captures(&d);
	for (i = 0; i < decl->naddresses; i++)
		plan_address(&d, &decl->addresses[i]);
	/* Diverts before queues: a queue recreate's preflight sees every
	 * divert as the plan leaves it (actions are sorted afterwards). */
	for (i = 0; i < decl->ndiverts; i++)
		plan_diff_divert(&d, &decl->diverts[i]);
	for (i = 0; i < decl->naddresses; i++)
		for (j = 0; j < decl->addresses[i].nqueues; j++)
			plan_queue(&d, &decl->addresses[i].queues[j]);
	plan_diff_deletes(&d);
	plan_diff_captures(&d);
	plan_diff_unmanaged(&d);
	plan_diff_adopts(&d);
	plan_diff_protect(&d);
	p = diff_done(&d);
	/* a refused plan records nothing: its changes are not listed */
	if (p->refusal == NULL && (p->outcome == PLAN_OUT_WOULD_APPLY ||
	                              p->outcome == PLAN_OUT_NO_CHANGE))
		plan_policy_changes_find(p, decl, managed);
	return p;
}

struct plan *
plan_delete_queue(const struct decl_cluster *decl,
    const struct plan_managed *managed, const char *queue,
    const struct recon_snapshot *snap, const struct plan_opts *opts)
{
	struct plan_queue_delete_ctx ctx;
	struct plan_step *np;
	struct plan_diff d;
	/* declared: its own key, else the default; not declared: what the
	 * last applied declaration recorded for it, else the default */
	char *die = decl_cluster_find_queue(decl, queue) != NULL
	                ? plan_delete_if_empty_declared(decl, queue)
	                : plan_delete_if_empty_removed(managed, decl, queue);
	size_t i;

	diff_init(&d, decl, snap, opts, "delete-queue");
	d.managed = managed; /* its protect and retain count too */
	d.plan->base_source =
	    xstrdup(managed != NULL && managed->source != NULL ? managed->source
	                                                       : "none");
	d.plan->base_revision =
	    dup_or_null(managed != NULL ? managed->revision : NULL);
	plan_diff_policy_init(&d);
	plan_diff_object_begin(&d);
	for (i = 0; i < decl->nnodes; i++) {
		if (!plan_diff_reachable(&d, i))
			continue;
		np = plan_diff_step(&d, PLAN_ACT_DELETE_QUEUE, queue, NULL, i);
		plan_diff_queue_delete_ctx(&ctx, &d, i);
		ctx.delete_if_empty = die;
		plan_preflight_queue_delete(np, d.nodes[i], queue, &ctx, false);
		if (np->outcome != PLAN_OUT_NO_CHANGE)
			strv_add(&d.ctx[i].deleted_q, queue);
	}
	plan_diff_set_delete_if_empty(&d, PLAN_ACT_DELETE_QUEUE, die);
	free(die);
	plan_diff_object_end(&d);
	plan_diff_captures(&d);
	plan_diff_protect(&d);
	return diff_done(&d);
}

struct plan *
plan_captures(const struct decl_cluster *decl,
    const struct plan_managed *managed, const struct recon_snapshot *snap,
    const struct plan_opts *opts)
{
	struct plan_diff d;

	diff_init(&d, decl, snap, opts, "capture");
	d.managed = managed;
	d.plan->base_source =
	    xstrdup(managed != NULL && managed->source != NULL ? managed->source
	                                                       : "none");
	d.plan->base_revision =
	    dup_or_null(managed != NULL ? managed->revision : NULL);
	plan_diff_removed_captures(&d);
	plan_diff_captures(&d);
	return diff_done(&d);
}
