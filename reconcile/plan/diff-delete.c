/* reconcile/plan/diff-delete.c: the three-way diff, removal half. Only objects
 * the managed set says the agent declared, and the new declaration no
 * longer does, are deleted; capture taps (the reserved prefix) are never
 * touched; live objects never declared are reported as unmanaged. Then the
 * bulk cap (ADR-0084 D7) and the plan's outcome. */
#include "plan-int.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/xalloc.h"

static const char broker_xml_caveat[] =
    "if a removed divert is in this node's broker.xml, the broker creates it again at the next restart, and the queue can come back with it (a broker.xml divert cannot be told from a runtime one)";

static bool
reserved(const struct plan_diff *d, const char *name)
{
	return plan_has_prefix(name, d->decl->settings.capture_prefix);
}

static void
delete_divert(struct plan_diff *d, const char *name)
{
	const struct recon_divert *ld;
	struct plan_step *np;
	struct recon_op *op;
	size_t i;

	plan_diff_object_begin(d);
	for (i = 0; i < d->decl->nnodes; i++) {
		if (!plan_diff_reachable(d, i))
			continue;
		ld = recon_node_find_divert(d->nodes[i], name);
		np = plan_diff_step(d, PLAN_ACT_DELETE_DIVERT, name,
		    ld != NULL ? ld->address : NULL, i);
		if (ld == NULL) {
			np->message = xasprintf(
			    "divert '%s' does not exist on this node", name);
			continue;
		}
		np->outcome = PLAN_OUT_WOULD_APPLY;
		np->observed.present = true;
		np->observed.divert = recon_divert_dup(ld);
		op = plan_step_add_op(np, RECON_OP_DESTROY_DIVERT, name);
		op->divert = recon_divert_dup(ld);
		plan_step_warn(np, "%s", broker_xml_caveat);
		strv_add(&d->ctx[i].deleted_d, name);
	}
	plan_diff_object_end(d);
}

static void
delete_queue(struct plan_diff *d, const char *name)
{
	struct plan_queue_delete_ctx ctx;
	struct plan_step *np;
	char *die = plan_delete_if_empty_removed(d->managed, d->decl, name);
	size_t i, j;

	plan_diff_object_begin(d);
	for (i = 0; i < d->decl->nnodes; i++) {
		if (!plan_diff_reachable(d, i))
			continue;
		np = plan_diff_step(d, PLAN_ACT_DELETE_QUEUE, name, NULL, i);
		plan_diff_queue_delete_ctx(&ctx, d, i);
		ctx.delete_if_empty = die;
		plan_preflight_queue_delete(np, d->nodes[i], name, &ctx, false);
		if (np->outcome == PLAN_OUT_NO_CHANGE)
			continue;
		strv_add(&d->ctx[i].deleted_q, name);
		for (j = 0; j < np->nremoved; j++)
			strv_add(&d->ctx[i].deleted_d,
			    np->removed[j].config.name);
	}
	plan_diff_set_delete_if_empty(d, PLAN_ACT_DELETE_QUEUE, die);
	free(die);
	plan_diff_object_end(d);
}

/* The bindings an address keeps on node i after the plan's deletes. */
static void
kept_bindings(struct strv *out, const struct plan_diff *d, size_t i,
    const struct recon_address *la)
{
	const struct plan_node_ctx *c = &d->ctx[i];
	size_t j;

	for (j = 0; j < la->nbinding_names; j++)
		if (!strv_has(&c->deleted_q, la->binding_names[j]) &&
		    !strv_has(&c->deleted_d, la->binding_names[j]))
			strv_add(out, la->binding_names[j]);
	for (j = 0; j < la->nqueue_names; j++)
		if (!strv_has(&c->deleted_q, la->queue_names[j]) &&
		    !strv_has(out, la->queue_names[j]))
			strv_add(out, la->queue_names[j]);
	strv_sort(out);
}

static void
keep_warning(const struct plan_diff *d, struct plan_step *np, const char *name,
    const char *binding)
{
	if (reserved(d, binding))
		plan_step_warn(np,
		    "address '%s' kept on this node: capture tap '%s' is bound to it until the capture pass removes it (after this plan's other actions); the next plan deletes the address",
		    name, binding);
	else
		plan_step_warn(np,
		    "address '%s' kept on this node: binding '%s' stays on it (not removed by this plan)",
		    name, binding);
}

static void
delete_address(struct plan_diff *d, const char *name)
{
	const struct recon_address *la;
	struct plan_step *np;
	struct strv keep;
	size_t i, j;

	plan_diff_object_begin(d);
	for (i = 0; i < d->decl->nnodes; i++) {
		if (!plan_diff_reachable(d, i))
			continue;
		la = recon_node_find_address(d->nodes[i], name);
		np = plan_diff_step(d, PLAN_ACT_DELETE_ADDRESS, name, NULL, i);
		if (la == NULL) {
			np->message = xasprintf(
			    "address '%s' does not exist on this node", name);
			continue;
		}
		np->observed.present = true;
		np->observed.address_routing = la->routing;
		np->observed.nbindings = la->nbinding_names;
		np->observed.bindings =
		    xcalloc(la->nbinding_names + 1, sizeof(char *));
		for (j = 0; j < la->nbinding_names; j++)
			np->observed.bindings[j] =
			    xstrdup(la->binding_names[j]);
		memset(&keep, 0, sizeof(keep));
		kept_bindings(&keep, d, i, la);
		if (keep.n == 0) {
			np->outcome = PLAN_OUT_WOULD_APPLY;
			plan_step_add_op(np, RECON_OP_DELETE_ADDRESS, name);
		} else {
			np->message = xstrdup(
			    "kept: the address is not empty after the plan");
			for (j = 0; j < keep.n; j++)
				keep_warning(d, np, name, keep.v[j]);
		}
		strv_release(&keep);
	}
	plan_diff_object_end(d);
}

static void
narrow_address(struct plan_diff *d, const struct decl_address *da)
{
	const struct recon_address *la;
	const struct recon_queue *q;
	struct plan_step *np;
	struct recon_op *op;
	unsigned extra, used;
	size_t i, j;

	plan_diff_object_begin(d);
	for (i = 0; i < d->decl->nnodes; i++) {
		if (!plan_diff_reachable(d, i))
			continue;
		la = recon_node_find_address(d->nodes[i], da->name);
		extra = la != NULL ? la->routing & ~da->routing : 0;
		if (extra == 0 || da->policy.unmanaged ||
		    !plan_managed_has_address(d->managed, da->name))
			continue;
		used = 0;
		for (j = 0; j < d->nodes[i]->nqueues; j++) {
			q = &d->nodes[i]->queues[j];
			if (strcmp(q->address, da->name) == 0 &&
			    !strv_has(&d->ctx[i].deleted_q, q->name))
				used |= q->routing;
		}
		if ((extra & used) != 0)
			continue;
		np = plan_diff_step(d, PLAN_ACT_NARROW_ADDRESS, da->name, NULL,
		    i);
		np->outcome = PLAN_OUT_WOULD_APPLY;
		np->observed.present = true;
		np->observed.address_routing = la->routing;
		op = plan_step_add_op(np, RECON_OP_UPDATE_ADDRESS, da->name);
		op->routing = da->routing;
	}
	plan_diff_object_end(d);
}

void
plan_diff_deletes(struct plan_diff *d)
{
	const struct plan_managed *m = d->managed;
	const struct decl_cluster *c = d->decl;
	size_t i;

	/* removed from the declaration, or now declared managed: false;
	 * forgotten rather than deleted where docs/policy.md says so */
	for (i = 0; i < m->ndiverts; i++)
		if (!reserved(d, m->diverts[i]) &&
		    (decl_cluster_find_divert(c, m->diverts[i]) == NULL ||
		        plan_decl_unmanaged(c, "divert", m->diverts[i])) &&
		    !plan_diff_forgets(d, "divert", m->diverts[i]))
			delete_divert(d, m->diverts[i]);
	for (i = 0; i < m->nqueues; i++)
		if (!reserved(d, m->queues[i]) &&
		    (decl_cluster_find_queue(c, m->queues[i]) == NULL ||
		        plan_decl_unmanaged(c, "queue", m->queues[i])) &&
		    !plan_diff_forgets(d, "queue", m->queues[i]))
			delete_queue(d, m->queues[i]);
	for (i = 0; i < c->naddresses; i++)
		narrow_address(d, &c->addresses[i]);
	for (i = 0; i < m->naddresses; i++)
		if (!reserved(d, m->addresses[i]) &&
		    (decl_cluster_find_address(c, m->addresses[i]) == NULL ||
		        plan_decl_unmanaged(c, "address", m->addresses[i])) &&
		    !plan_diff_forgets(d, "address", m->addresses[i]))
			delete_address(d, m->addresses[i]);
}

/* Objects the report leaves out: the broker's own (internal, activemq.*,
 * the default DLQ and ExpiryQueue, and $sys.*: the MQTT protocol's own,
 * whose address comes back from an HA failover without its internal flag,
 * measured on 2.44.0, docs/ha-pairs.md) and capture taps.
 * docs/plan-format.md */
static bool
ignored(const struct plan_diff *d, const char *name, bool internal)
{
	return internal || reserved(d, name) || recon_broker_own(name) ||
	       strncmp(name, "$sys.", 5) == 0;
}

static void
note_unmanaged(struct plan_diff *d, const char *kind, const char *name,
    const char *node)
{
	struct plan *p = d->plan;
	struct plan_unmanaged *u;
	size_t i;

	for (i = 0; i < p->nunmanaged; i++) {
		u = &p->unmanaged[i];
		if (strcmp(u->kind, kind) == 0 && strcmp(u->name, name) == 0)
			break;
	}
	if (i == p->nunmanaged) {
		p->unmanaged = xreallocarray(p->unmanaged, p->nunmanaged + 1,
		    sizeof(*p->unmanaged));
		u = &p->unmanaged[p->nunmanaged++];
		memset(u, 0, sizeof(*u));
		u->kind = xstrdup(kind);
		u->name = xstrdup(name);
	}
	u = &p->unmanaged[i];
	u->nodes = xreallocarray(u->nodes, u->nnodes + 1, sizeof(*u->nodes));
	u->nodes[u->nnodes++] = xstrdup(node);
}

/* Live objects declared with managed: false on node n: listed apart,
 * never drift (docs/policy.md). */
static void
declared_unmanaged_node(struct plan_diff *d,
    const struct recon_node_snapshot *n)
{
	const struct decl_cluster *c = d->decl;
	size_t j;

	for (j = 0; j < n->naddresses; j++)
		if (plan_decl_unmanaged(c, "address", n->addresses[j].name))
			plan_note_declared_unmanaged(d->plan, "address",
			    n->addresses[j].name, n->node);
	for (j = 0; j < n->nqueues; j++)
		if (plan_decl_unmanaged(c, "queue", n->queues[j].name))
			plan_note_declared_unmanaged(d->plan, "queue",
			    n->queues[j].name, n->node);
	for (j = 0; j < n->ndiverts; j++)
		if (plan_decl_unmanaged(c, "divert", n->diverts[j].name))
			plan_note_declared_unmanaged(d->plan, "divert",
			    n->diverts[j].name, n->node);
}

/* Live objects neither declared nor managed, on node i; a divert the plan
 * removes there (with a queue it depends on) is not left alone, so it is
 * not listed. */
static void
unmanaged_node(struct plan_diff *d, size_t i)
{
	const struct recon_node_snapshot *n = d->nodes[i];
	const struct plan_managed *m = d->managed;
	size_t j;

	declared_unmanaged_node(d, n);
	for (j = 0; j < n->naddresses; j++)
		if (!ignored(d, n->addresses[j].name,
		        n->addresses[j].internal) &&
		    decl_cluster_find_address(d->decl, n->addresses[j].name) ==
		        NULL &&
		    !plan_managed_has_address(m, n->addresses[j].name))
			note_unmanaged(d, "address", n->addresses[j].name,
			    n->node);
	for (j = 0; j < n->nqueues; j++)
		if (!ignored(d, n->queues[j].name, n->queues[j].internal) &&
		    decl_cluster_find_queue(d->decl, n->queues[j].name) ==
		        NULL &&
		    !plan_managed_has_queue(m, n->queues[j].name))
			note_unmanaged(d, "queue", n->queues[j].name, n->node);
	for (j = 0; j < n->ndiverts; j++)
		if (!ignored(d, n->diverts[j].name, false) &&
		    !strv_has(&d->ctx[i].deleted_d, n->diverts[j].name) &&
		    decl_cluster_find_divert(d->decl, n->diverts[j].name) ==
		        NULL &&
		    !plan_managed_has_divert(m, n->diverts[j].name))
			note_unmanaged(d, "divert", n->diverts[j].name,
			    n->node);
}

static int
cmp_unmanaged(const void *a, const void *b)
{
	const struct plan_unmanaged *x = a, *y = b;
	int c = strcmp(x->kind, y->kind);

	return c != 0 ? c : strcmp(x->name, y->name);
}

void
plan_diff_unmanaged(struct plan_diff *d)
{
	size_t i;

	for (i = 0; i < d->decl->nnodes; i++)
		if (plan_diff_reachable(d, i))
			unmanaged_node(d, i);
	if (d->plan->nunmanaged > 1)
		qsort(d->plan->unmanaged, d->plan->nunmanaged,
		    sizeof(*d->plan->unmanaged), cmp_unmanaged);
	if (d->plan->ndeclared_unmanaged > 1)
		qsort(d->plan->declared_unmanaged, d->plan->ndeclared_unmanaged,
		    sizeof(*d->plan->declared_unmanaged), cmp_unmanaged);
}

static int
cmp_action(const void *a, const void *b)
{
	const struct plan_action *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return strcmp(x->name, y->name);
}

static const char *
action_why(enum plan_action_kind k, bool operator_delete)
{
	static const char *const why[PLAN_ACT_COUNT] = {
	    "declared, and absent on the node",
	    "the declared routing types are missing on the node: added before the queues are created",
	    "declared, and absent on the node",
	    "declared, and absent on the node",
	    "the declared configuration differs: changed in place with updateQueue (complete configuration)",
	    "the declared configuration differs: changed in place with updateDivert (complete configuration)",
	    "the declared configuration differs in what updateQueue cannot change: the queue is destroyed and created again, and its messages with it",
	    "the declared configuration differs in what updateDivert cannot change: the divert is destroyed and created again",
	    "removed from the declaration, and applied by the agent before",
	    "removed from the declaration, and applied by the agent before",
	    "routing types no longer declared and no longer used: dropped after the deletes",
	    "removed from the declaration, applied by the agent before, and empty after the plan",
	    "capture pass: a declared capture's address and ring queue are missing on the node",
	    "capture pass: the capture's ring queue differs from the declaration",
	    "capture pass: an address holds a queue the capture's pattern matches, and has no tap",
	    "capture pass: the tap differs from what the capture asks for: destroyed and created again",
	    "capture pass: its address holds no queue the capture's pattern matches any more, or the capture is no longer declared",
	    "capture pass: the capture was applied before and is no longer declared",
	};

	if (operator_delete && !plan_action_kind_is_capture(k))
		return "the operator's out-of-band delete (delete-queue)";
	return why[k];
}

/* Fill action fields derived from its nodes; sum D7's count. */
static void
finish_action(struct plan *p, struct plan_action *a)
{
	size_t i;

	a->why =
	    xstrdup(action_why(a->kind, strcmp(p->kind, "delete-queue") == 0));
	for (i = 0; i < a->nnodes; i++) {
		const struct plan_step *np;

		np = &a->nodes[i];
		if (a->address == NULL && np->observed.queue != NULL)
			a->address = xstrdup(np->observed.queue->address);
		if ((a->kind == PLAN_ACT_DELETE_QUEUE ||
		        a->kind == PLAN_ACT_RECREATE_QUEUE) &&
		    (np->outcome == PLAN_OUT_WOULD_APPLY ||
		        np->outcome == PLAN_OUT_REFUSED)) {
			p->destroyed_messages += np->destroyed_messages;
			if (np->destroyed_messages > 0)
				a->destroys_messages = true;
		}
	}
}

static size_t
refused_nodes(const struct plan *p)
{
	size_t i, j, n = 0;

	for (i = 0; i < p->nactions; i++)
		for (j = 0; j < p->actions[i].nnodes; j++)
			if (p->actions[i].nodes[j].outcome == PLAN_OUT_REFUSED)
				n++;
	return n;
}

/* Nothing would change on the nodes that were read, and some node was
 * not: the cluster was not compared with its declaration there, so the
 * plan is UNREACHABLE, not NO_CHANGE (docs/plan-format.md). Its refusal
 * is the reads' kind when they share one (TIMEOUT, ...), else
 * UNREACHABLE. */
/* A node read and refused as a whole refuses the plan, even when nothing
 * would change elsewhere: a release the agent does not manage
 * (UNSUPPORTED_VERSION), a split brain (SPLIT_BRAIN), members that are
 * not one pair (NOT_A_PAIR). The plan's refusal is the nodes' kind when
 * they share one, else NODE_REFUSED. */
static bool
node_refuses(const struct plan_node_status *pn, enum recon_kind *kind)
{
	if (pn->reachable || pn->refusal == NULL ||
	    recon_kind_parse(pn->refusal, kind) < 0)
		return false;
	return *kind == RECON_UNSUPPORTED_VERSION ||
	       recon_kind_ha_refusal(*kind);
}

static bool
nodes_refuse_plan(struct plan *p)
{
	const struct plan_node_status *first = NULL;
	enum recon_kind k, kind = RECON_OK;
	bool same = true;
	size_t i, n = 0;

	for (i = 0; i < p->nnodes; i++) {
		if (!node_refuses(&p->nodes[i], &k))
			continue;
		if (n++ == 0) {
			first = &p->nodes[i];
			kind = k;
		} else if (k != kind) {
			same = false;
		}
	}
	if (n == 0)
		return false;
	p->outcome = PLAN_OUT_REFUSED;
	p->refusal = xstrdup(same ? recon_kind_name(kind) : "NODE_REFUSED");
	if (n == 1)
		p->message = xasprintf("node '%s' %s: %s", first->node,
		    kind == RECON_UNSUPPORTED_VERSION ? "is not managed"
		                                      : "is refused",
		    first->message);
	else if (same && kind == RECON_UNSUPPORTED_VERSION)
		p->message = xasprintf(
		    "%zu nodes run a release the agent does not manage (each node's reason is under Nodes)",
		    n);
	else
		p->message = xasprintf(
		    "%zu nodes are refused as a whole (each node's reason is under Nodes)",
		    n);
	if (same && kind != RECON_UNSUPPORTED_VERSION)
		p->next_step = xstrdup(plan_ha_next_step(kind));
	else if (same)
		p->next_step = xstrdup(
		    "upgrade the broker to Artemis " RECON_VERSION_FLOOR
		    " or later, or take the node out of the cluster's declaration, then plan again");
	else
		p->next_step = xstrdup(
		    "follow each refused node's reason under Nodes, then plan again");
	return true;
}

static size_t
passive_nodes(const struct plan *p)
{
	size_t i, n = 0;

	for (i = 0; i < p->nnodes; i++)
		n += plan_node_passive(&p->nodes[i]);
	return n;
}

static void
unreachable(struct plan *p)
{
	const struct plan_node_status *first = NULL;
	const char *kind = NULL;
	size_t i, n = 0;

	for (i = 0; i < p->nnodes; i++) {
		const struct plan_node_status *pn = &p->nodes[i];
		const char *k =
		    pn->refusal != NULL ? pn->refusal : "UNREACHABLE";

		if (pn->reachable || plan_node_passive(pn))
			continue;
		if (n++ == 0) {
			first = pn;
			kind = k;
		} else if (strcmp(kind, k) != 0) {
			kind = "UNREACHABLE";
		}
	}
	if (n == 0)
		return;
	p->outcome = PLAN_OUT_UNREACHABLE;
	p->refusal = xstrdup(kind);
	if (n == 1)
		p->message = xasprintf(
		    "node '%s' could not be read (%s), so it was not compared with the declaration",
		    first->node,
		    first->message != NULL ? first->message : "no answer");
	else
		p->message = xasprintf(
		    "%zu of %zu nodes could not be read, so they were not compared with the declaration",
		    n, p->nnodes - passive_nodes(p));
	p->next_step = xstrdup(
	    "plan again when every node answers (each node's reason is under Nodes)");
}

static bool
any_step_applies(const struct plan *p)
{
	size_t i, j;

	for (i = 0; i < p->nactions; i++)
		for (j = 0; j < p->actions[i].nnodes; j++)
			if (p->actions[i].nodes[j].outcome ==
			    PLAN_OUT_WOULD_APPLY)
				return true;
	return false;
}

void
plan_diff_finish(struct plan_diff *d)
{
	struct plan *p = d->plan;
	size_t i, nref;

	if (p->nactions > 1)
		qsort(p->actions, p->nactions, sizeof(*p->actions), cmp_action);
	for (i = 0; i < p->nactions; i++)
		finish_action(p, &p->actions[i]);
	nref = refused_nodes(p);
	p->outcome =
	    any_step_applies(p) ? PLAN_OUT_WOULD_APPLY : PLAN_OUT_NO_CHANGE;
	/* refused as a whole first: docs/policy.md, protect */
	if (plan_refuse_protected(p))
		return;
	if (p->destroyed_messages > p->max_destroyed_messages) {
		p->outcome = PLAN_OUT_REFUSED;
		p->refusal = xstrdup("BULK_CAP");
		p->message = xasprintf(
		    "the plan destroys %lld messages across its nodes, %lld over the cap of %lld (settings.max-destroyed-messages)",
		    (long long)p->destroyed_messages,
		    (long long)(p->destroyed_messages -
		                p->max_destroyed_messages),
		    (long long)p->max_destroyed_messages);
		p->next_step = xasprintf(
		    "consume or move the messages first and plan again, or raise settings.max-destroyed-messages to at least %lld in the cluster's declaration",
		    (long long)p->destroyed_messages);
	} else if (nodes_refuse_plan(p)) {
		/* refused as a whole: UNSUPPORTED_VERSION, SPLIT_BRAIN, … */
	} else if (nref > 0) {
		p->outcome = PLAN_OUT_REFUSED;
		p->refusal = xstrdup("NODE_REFUSED");
		p->message = xasprintf("%zu node step%s refused", nref,
		    nref == 1 ? " is" : "s are");
		p->next_step = xstrdup(
		    "follow each refused node's next step, then plan again");
	} else if (p->outcome == PLAN_OUT_NO_CHANGE) {
		unreachable(p);
	}
}
