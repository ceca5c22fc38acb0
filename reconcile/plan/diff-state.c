/* reconcile/plan/diff-state.c: the diff's working state: the actions of
 * the object being planned, one step per declared node, kept when some
 * node would change, is refused or warns; the queue-delete context of a
 * node (what the plan did there before). */
#include "plan-int.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/xalloc.h"

void
plan_diff_object_begin(struct plan_diff *d)
{
	memset(d->obj, 0, sizeof(d->obj));
}

struct plan_step *
plan_diff_step(struct plan_diff *d, enum plan_action_kind k, const char *name,
    const char *address, size_t node)
{
	struct plan_action *a = d->obj[k];

	if (a == NULL) {
		size_t i;

		a = xcalloc(1, sizeof(*a));
		a->kind = k;
		a->name = xstrdup(name);
		a->address = address != NULL ? xstrdup(address) : NULL;
		a->nnodes = d->decl->nnodes;
		a->nodes = xcalloc(a->nnodes, sizeof(*a->nodes));
		for (i = 0; i < a->nnodes; i++) {
			a->nodes[i].node = xstrdup(d->decl->nodes[i].name);
			if (d->nodes[i] == NULL ||
			    d->nodes[i]->refusal.kind != RECON_OK)
				plan_step_not_read(&a->nodes[i], d->nodes[i]);
		}
		d->obj[k] = a;
	}
	return &a->nodes[node];
}

static bool
action_matters(const struct plan_action *a)
{
	size_t i;

	for (i = 0; i < a->nnodes; i++)
		if (a->nodes[i].outcome == PLAN_OUT_WOULD_APPLY ||
		    a->nodes[i].outcome == PLAN_OUT_REFUSED ||
		    a->nodes[i].nwarnings > 0)
			return true;
	return false;
}

void
plan_diff_object_end(struct plan_diff *d)
{
	struct plan *p = d->plan;
	struct plan_action *a;
	size_t k, i;

	for (k = 0; k < PLAN_ACT_COUNT; k++) {
		a = d->obj[k];
		if (a == NULL)
			continue;
		d->obj[k] = NULL;
		if (!action_matters(a)) {
			for (i = 0; i < a->nnodes; i++)
				plan_step_release(&a->nodes[i]);
			free(a->nodes);
			free(a->name);
			free(a->address);
			free(a->delete_if_empty);
			free(a);
			continue;
		}
		for (i = 0; i < a->nnodes; i++)
			if (a->nodes[i].outcome == PLAN_OUT_NO_CHANGE &&
			    a->nodes[i].message == NULL)
				a->nodes[i].message =
				    xstrdup("nothing to do on this node");
		p->actions = xreallocarray(p->actions, p->nactions + 1,
		    sizeof(*p->actions));
		p->actions[p->nactions++] = *a;
		free(a);
	}
}

void
plan_diff_queue_delete_ctx(struct plan_queue_delete_ctx *out,
    const struct plan_diff *d, size_t i)
{
	const struct plan_node_ctx *c = &d->ctx[i];

	memset(out, 0, sizeof(*out));
	out->decl = d->decl;
	out->disconnect_consumers = d->opts->disconnect_consumers;
	out->created_queues = (const char *const *)c->created_q.v;
	out->created_queue_addresses = (const char *const *)c->created_q_addr.v;
	out->ncreated = c->created_q.n;
	out->deleted_queues = (const char *const *)c->deleted_q.v;
	out->ndeleted_queues = c->deleted_q.n;
	out->deleted_diverts = (const char *const *)c->deleted_d.v;
	out->ndeleted_diverts = c->deleted_d.n;
	out->removed_captures = (const char *const *)d->removed_captures.v;
	out->nremoved_captures = d->removed_captures.n;
	out->planned_diverts =
	    (const struct recon_divert *const *)c->planned_d.v;
	out->nplanned_diverts = c->planned_d.n;
	out->protect = (const char *const *)d->plan->protect;
	out->nprotect = d->plan->nprotect;
	out->retained_diverts = (const char *const *)d->plan->retained_diverts;
	out->nretained_diverts = d->plan->nretained_diverts;
}

bool
plan_diff_reachable(const struct plan_diff *d, size_t i)
{
	return d->nodes[i] != NULL && d->nodes[i]->refusal.kind == RECON_OK;
}

void
plan_diff_set_delete_if_empty(struct plan_diff *d, enum plan_action_kind k,
    const char *die)
{
	if (d->obj[k] == NULL || die == NULL ||
	    d->obj[k]->delete_if_empty != NULL)
		return;
	d->obj[k]->delete_if_empty = xstrdup(die);
}
