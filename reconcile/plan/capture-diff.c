/* reconcile/plan/capture-diff.c: the capture pass in a plan. Every reachable
 * node's steps (capture.c) become actions like any other, one per
 * kind and object, with a node step for every declared node. */
#include "plan-int.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/xalloc.h"

/* The action of kind k for name, added (every node NO_CHANGE or
 * UNREACHABLE) when the plan has none yet. */
static struct plan_action *
find_action(struct plan_diff *d, enum plan_action_kind k, const char *name,
    const char *address)
{
	struct plan *p = d->plan;
	const struct recon_node_snapshot *n;
	struct plan_step *np;
	struct plan_action *a;
	size_t i;

	for (i = 0; i < p->nactions; i++)
		if (p->actions[i].kind == k &&
		    strcmp(p->actions[i].name, name) == 0)
			return &p->actions[i];
	p->actions =
	    xreallocarray(p->actions, p->nactions + 1, sizeof(*p->actions));
	a = &p->actions[p->nactions++];
	memset(a, 0, sizeof(*a));
	a->kind = k;
	a->name = xstrdup(name);
	a->address = xstrdup(address);
	a->nnodes = d->decl->nnodes;
	a->nodes = xcalloc(a->nnodes + 1, sizeof(*a->nodes));
	for (i = 0; i < a->nnodes; i++) {
		np = &a->nodes[i];
		n = d->nodes[i];
		np->node = xstrdup(d->decl->nodes[i].name);
		if (plan_diff_reachable(d, i)) {
			np->message = xstrdup("nothing to do on this node");
			continue;
		}
		plan_step_not_read(np, n);
	}
	return a;
}

void
plan_diff_removed_captures(struct plan_diff *d)
{
	struct strv *out = &d->removed_captures;
	const struct plan_managed *m = d->managed;
	size_t i, j;

	for (i = 0; m != NULL && m->known && i < m->ncaptures; i++) {
		for (j = 0; j < d->decl->ncaptures; j++)
			if (strcmp(d->decl->captures[j].name, m->captures[i]) ==
			    0)
				break;
		if (j == d->decl->ncaptures)
			strv_add(out, m->captures[i]);
	}
}

void
plan_diff_captures(struct plan_diff *d)
{
	struct plan_capture_steps steps;
	struct plan_capture_ctx ctx;
	const struct strv *removed = &d->removed_captures;
	struct plan_action *a;
	struct plan *p = d->plan;
	char **ua, **uq;
	size_t i, j, nua, nuq;

	memset(&ctx, 0, sizeof(ctx));
	plan_capture_unmanaged(d->decl, &ua, &nua, &uq, &nuq);
	ctx.unmanaged_addresses = (const char *const *)ua;
	ctx.nunmanaged_addresses = nua;
	ctx.unmanaged_queues = (const char *const *)uq;
	ctx.nunmanaged_queues = nuq;
	ctx.prefix = d->decl->settings.capture_prefix;
	ctx.captures = d->decl->captures;
	ctx.ncaptures = d->decl->ncaptures;
	ctx.removed = (const char *const *)removed->v;
	ctx.nremoved = removed->n;
	ctx.disconnect_consumers = d->opts->disconnect_consumers;
	for (i = 0; i < d->decl->nnodes; i++) {
		if (!plan_diff_reachable(d, i))
			continue;
		ctx.created_queues = (const char *const *)d->ctx[i].created_q.v;
		ctx.created_queue_addresses =
		    (const char *const *)d->ctx[i].created_q_addr.v;
		ctx.ncreated = d->ctx[i].created_q.n;
		ctx.deleted_queues = (const char *const *)d->ctx[i].deleted_q.v;
		ctx.ndeleted_queues = d->ctx[i].deleted_q.n;
		memset(&steps, 0, sizeof(steps));
		plan_capture_pass(&steps, d->nodes[i], &ctx);
		for (j = 0; j < steps.n; j++) {
			a = find_action(d, steps.v[j].kind, steps.v[j].name,
			    steps.v[j].address);
			plan_step_release(&a->nodes[i]);
			a->nodes[i] = steps.v[j].np;
			memset(&steps.v[j].np, 0, sizeof(steps.v[j].np));
		}
		for (j = 0; j < steps.nskipped; j++) {
			p->capture_skipped = xreallocarray(p->capture_skipped,
			    p->ncapture_skipped + 2,
			    sizeof(*p->capture_skipped));
			p->capture_skipped[p->ncapture_skipped++] = xasprintf(
			    "%s: %s", d->decl->nodes[i].name, steps.skipped[j]);
			p->capture_skipped[p->ncapture_skipped] = NULL;
		}
		plan_capture_steps_release(&steps);
	}
	strv_array_free(ua, nua);
	strv_array_free(uq, nuq);
}

/* The capture a tap or capture-address name belongs to; NULL if none. */
static char *
owner(const char *prefix, const char *name)
{
	const char *rest, *dot;

	if (!plan_has_prefix(name, prefix))
		return NULL;
	rest = name + strlen(prefix);
	dot = strchr(rest, '.');
	return dot != NULL ? xstrndup(rest, (size_t)(dot - rest))
	                   : xstrdup(rest);
}

static bool
declared(const struct decl_cluster *decl, const char *capture)
{
	size_t i;

	for (i = 0; i < decl->ncaptures; i++)
		if (strcmp(decl->captures[i].name, capture) == 0)
			return true;
	return false;
}

char **
plan_removed_captures(const struct plan *p, const struct decl_cluster *decl,
    size_t *n)
{
	struct strv v = {0};
	const struct plan_action *a;
	char *c;
	size_t i;

	for (i = 0; i < p->nactions; i++) {
		a = &p->actions[i];
		if (a->kind != PLAN_ACT_DELETE_TAP &&
		    a->kind != PLAN_ACT_DELETE_CAPTURE)
			continue;
		c = owner(decl->settings.capture_prefix, a->name);
		if (c != NULL && !declared(decl, c) && !strv_has(&v, c))
			strv_add(&v, c);
		free(c);
	}
	strv_sort(&v);
	*n = v.n;
	if (v.v == NULL)
		return xcalloc(1, sizeof(char *));
	return v.v;
}
