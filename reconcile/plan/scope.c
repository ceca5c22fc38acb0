/* reconcile/plan/scope.c: what a plan reads of the nodes (plan.h,
 * plan_scope_build): the queues whose configuration and counts the diff,
 * the ADR-0084 preflight, delete-if-empty and the capture pass look at.
 * Every other live queue is read by its identity only (its name, address,
 * routing type and internal flag), which is all the unmanaged report, the
 * capture patterns and the preflight's bindings use of it. */
#include "plan-int.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/xalloc.h"

/* Every queue c declares, at its address. */
static void
add_declared(struct live_scope *s, const struct decl_cluster *c)
{
	const struct decl_address *da;
	size_t i, j;

	for (i = 0; i < c->naddresses; i++) {
		da = &c->addresses[i];
		for (j = 0; j < da->nqueues; j++)
			live_scope_add(s, da->queues[j].name, da->name,
			    da->queues[j].routing);
	}
}

/* The ring queue of capture name: the capture address <prefix><name>,
 * anycast, its own address (capture.c). */
static void
add_ring(struct live_scope *s, const struct decl_cluster *c, const char *name)
{
	char *ring = xasprintf("%s%s", c->settings.capture_prefix, name);

	live_scope_add(s, ring, ring, DECL_ANYCAST);
	free(ring);
}

static bool
queue_action(enum plan_action_kind k)
{
	return k == PLAN_ACT_CREATE_QUEUE || k == PLAN_ACT_CHANGE_QUEUE ||
	       k == PLAN_ACT_RECREATE_QUEUE || k == PLAN_ACT_DELETE_QUEUE ||
	       k == PLAN_ACT_CREATE_CAPTURE || k == PLAN_ACT_CHANGE_CAPTURE ||
	       k == PLAN_ACT_DELETE_CAPTURE;
}

/* The queues p acts on, where each node saw them (or is to create them). */
static void
add_plan(struct live_scope *s, const struct plan *p)
{
	const struct plan_action *a;
	const struct plan_step *np;
	size_t i, j, k;

	for (i = 0; i < p->nactions; i++) {
		a = &p->actions[i];
		if (!queue_action(a->kind))
			continue;
		live_scope_add(s, a->name, NULL, 0);
		for (j = 0; j < a->nnodes; j++) {
			np = &a->nodes[j];
			if (np->observed.queue != NULL)
				live_scope_add(s, a->name,
				    np->observed.queue->address,
				    np->observed.queue->routing);
			for (k = 0; k < np->nops; k++)
				if (np->ops[k].queue != NULL &&
				    strcmp(np->ops[k].name, a->name) == 0)
					live_scope_add(s, a->name,
					    np->ops[k].queue->address,
					    np->ops[k].queue->routing);
		}
	}
}

void
plan_scope_build(struct live_scope *out, const struct decl_cluster *decl,
    const struct decl_cluster *base, const struct plan_managed *managed,
    const char *const *extra, size_t nextra, const struct plan *p)
{
	const struct decl_queue *q;
	size_t i;

	memset(out, 0, sizeof(*out));
	out->reload = decl->mode == DECL_CONFIG_MANAGED;
	add_declared(out, decl);
	if (base != NULL)
		add_declared(out, base);
	for (i = 0; managed != NULL && i < managed->nqueues; i++) {
		q = base != NULL
		        ? decl_cluster_find_queue(base, managed->queues[i])
		        : NULL;
		live_scope_add(out, managed->queues[i],
		    q != NULL ? q->address : NULL, q != NULL ? q->routing : 0);
	}
	for (i = 0; i < decl->ncaptures; i++)
		add_ring(out, decl, decl->captures[i].name);
	for (i = 0; managed != NULL && i < managed->ncaptures; i++)
		add_ring(out, decl, managed->captures[i]);
	for (i = 0; i < nextra; i++) {
		q = decl_cluster_find_queue(decl, extra[i]);
		live_scope_add(out, extra[i], q != NULL ? q->address : NULL,
		    q != NULL ? q->routing : 0);
	}
	if (p != NULL) {
		char **removed;
		size_t n;

		add_plan(out, p);
		removed = plan_removed_captures(p, decl, &n);
		for (i = 0; i < n; i++) {
			add_ring(out, decl, removed[i]);
			free(removed[i]);
		}
		free(removed);
	}
	live_scope_finish(out);
}
