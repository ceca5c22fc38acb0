/* reconcile/plan/policy.c: the per-object policy of docs/policy.md in the
 * plan. A managed object removed from the declaration is deleted unless
 * the last applied declaration retained it (deletion-policy: retain, kept
 * in the managed set because the new declaration no longer holds it):
 * then it is forgotten. An object declared with managed: false is never
 * created, changed, deleted or drift; a managed one that becomes so is
 * forgotten. A plan that would delete an object a settings.protect
 * pattern covers (of the new declaration or of the last applied one) is
 * refused as a whole; so is a queue delete's dependent divert that is
 * protected, retained or unmanaged, on its node (ADR-0084 D1). */
#include "plan-int.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/xalloc.h"

static void
strv_take_array(struct strv *s, char ***v, size_t *n)
{
	strv_sort(s);
	*v = s->v;
	*n = s->n;
	memset(s, 0, sizeof(*s));
}

/* a and b as one sorted list without repeats, owned */
static void
union_sorted(char ***out, size_t *nout, char *const *a, size_t na,
    char *const *b, size_t nb)
{
	struct strv s = {0};
	size_t i;

	for (i = 0; i < na; i++)
		if (!strv_has(&s, a[i]))
			strv_add(&s, a[i]);
	for (i = 0; i < nb; i++)
		if (!strv_has(&s, b[i]))
			strv_add(&s, b[i]);
	strv_take_array(&s, out, nout);
}

void
plan_managed_set_policy(struct plan_managed *m, const struct decl_cluster *c)
{
	struct plan_managed now;
	struct strv keep = {0};
	size_t i;

	plan_managed_from_decl(&now, c, "declaration", NULL);
	strv_array_free(m->protect, m->nprotect);
	m->protect = now.protect;
	m->nprotect = now.nprotect;
	now.protect = NULL;
	now.nprotect = 0;
	/* retained before and not declared now: still never destroyed */
	for (i = 0; i < m->nretain_addresses; i++)
		if (decl_cluster_find_address(c, m->retain_addresses[i]) ==
		    NULL)
			strv_add(&keep, m->retain_addresses[i]);
	strv_array_free(m->retain_addresses, m->nretain_addresses);
	union_sorted(&m->retain_addresses, &m->nretain_addresses, keep.v,
	    keep.n, now.retain_addresses, now.nretain_addresses);
	strv_release(&keep);
	for (i = 0; i < m->nretain_queues; i++)
		if (decl_cluster_find_queue(c, m->retain_queues[i]) == NULL)
			strv_add(&keep, m->retain_queues[i]);
	strv_array_free(m->retain_queues, m->nretain_queues);
	union_sorted(&m->retain_queues, &m->nretain_queues, keep.v, keep.n,
	    now.retain_queues, now.nretain_queues);
	strv_release(&keep);
	for (i = 0; i < m->nretain_diverts; i++)
		if (decl_cluster_find_divert(c, m->retain_diverts[i]) == NULL)
			strv_add(&keep, m->retain_diverts[i]);
	strv_array_free(m->retain_diverts, m->nretain_diverts);
	union_sorted(&m->retain_diverts, &m->nretain_diverts, keep.v, keep.n,
	    now.retain_diverts, now.nretain_diverts);
	strv_release(&keep);
	plan_managed_release(&now);
}

void
plan_diff_policy_init(struct plan_diff *d)
{
	const struct decl_settings *s = &d->decl->settings;
	const struct plan_managed *m = d->managed;
	struct plan *p = d->plan;

	union_sorted(&p->protect, &p->nprotect, s->protect, s->nprotect,
	    m != NULL ? m->protect : NULL, m != NULL ? m->nprotect : 0);
	union_sorted(&p->retained_diverts, &p->nretained_diverts,
	    m != NULL ? m->retain_diverts : NULL,
	    m != NULL ? m->nretain_diverts : 0, NULL, 0);
}

static const struct decl_policy *
decl_policy_of(const struct decl_cluster *c, const char *kind, const char *name)
{
	const struct decl_address *a;
	const struct decl_queue *q;
	const struct decl_divert *v;

	if (strcmp(kind, "queue") == 0) {
		q = decl_cluster_find_queue(c, name);
		return q != NULL ? &q->policy : NULL;
	}
	if (strcmp(kind, "divert") == 0) {
		v = decl_cluster_find_divert(c, name);
		return v != NULL ? &v->policy : NULL;
	}
	a = decl_cluster_find_address(c, name);
	return a != NULL ? &a->policy : NULL;
}

bool
plan_decl_unmanaged(const struct decl_cluster *c, const char *kind,
    const char *name)
{
	const struct decl_policy *pol = decl_policy_of(c, kind, name);

	return pol != NULL && pol->unmanaged;
}

static bool
has(char *const *v, size_t n, const char *name)
{
	return strv_array_has((const char *const *)v, n, name);
}

static void
forget(struct plan_diff *d, const char *kind, const char *name, char *reason)
{
	struct plan *p = d->plan;
	struct plan_forgotten *f;

	p->forgotten = xreallocarray(p->forgotten, p->nforgotten + 1,
	    sizeof(*p->forgotten));
	f = &p->forgotten[p->nforgotten++];
	f->kind = xstrdup(kind);
	f->name = xstrdup(name);
	f->reason = reason;
	if (strcmp(kind, "queue") == 0)
		strv_add(&d->forgotten_q, name);
	else if (strcmp(kind, "divert") == 0)
		strv_add(&d->forgotten_d, name);
}

/* The retained binding (queue or divert) that keeps address name on some
 * node read, or NULL. */
static const char *
retained_binding(const struct plan_diff *d, const char *name)
{
	const struct plan_managed *m = d->managed;
	const struct recon_address *la;
	const char *b;
	size_t i, j;

	for (i = 0; i < d->decl->nnodes; i++) {
		if (!plan_diff_reachable(d, i))
			continue;
		la = recon_node_find_address(d->nodes[i], name);
		for (j = 0; la != NULL && j < la->nbinding_names; j++) {
			b = la->binding_names[j];
			if (strv_has(&d->forgotten_q, b) ||
			    strv_has(&d->forgotten_d, b) ||
			    has(m->retain_queues, m->nretain_queues, b) ||
			    has(m->retain_diverts, m->nretain_diverts, b))
				return b;
		}
		for (j = 0; la != NULL && j < la->nqueue_names; j++) {
			b = la->queue_names[j];
			if (strv_has(&d->forgotten_q, b) ||
			    has(m->retain_queues, m->nretain_queues, b))
				return b;
		}
	}
	return NULL;
}

bool
plan_diff_forgets(struct plan_diff *d, const char *kind, const char *name)
{
	const struct plan_managed *m = d->managed;
	const char *b;
	bool retained;

	if (plan_decl_unmanaged(d->decl, kind, name)) {
		forget(d, kind, name,
		    xstrdup(
		        "declared with managed: false: the agent leaves it alone from now on and never deletes it"));
		return true;
	}
	if (strcmp(kind, "queue") == 0)
		retained = has(m->retain_queues, m->nretain_queues, name);
	else if (strcmp(kind, "divert") == 0)
		retained = has(m->retain_diverts, m->nretain_diverts, name);
	else
		retained = has(m->retain_addresses, m->nretain_addresses, name);
	if (retained) {
		forget(d, kind, name,
		    xstrdup(
		        "removed from the declaration with deletion-policy: retain (the last applied declaration's): forgotten, never destroyed on any broker"));
		return true;
	}
	if (strcmp(kind, "address") != 0)
		return false;
	b = retained_binding(d, name);
	if (b == NULL)
		return false;
	forget(d, kind, name,
	    xasprintf(
	        "removed from the declaration, but '%s', retained (deletion-policy: retain), stays bound to it and a broker keeps an address while anything is bound to it: forgotten with it, never destroyed",
	        b));
	return true;
}

/* ---- protect ---------------------------------------------------------- */

static void
hit(struct plan *p, const char *kind, const char *name, const char *pattern,
    char *why)
{
	struct plan_protected *h;
	size_t i;

	for (i = 0; i < p->nprotected_hits; i++)
		if (strcmp(p->protected_hits[i].kind, kind) == 0 &&
		    strcmp(p->protected_hits[i].name, name) == 0) {
			free(why);
			return;
		}
	p->protected_hits = xreallocarray(p->protected_hits,
	    p->nprotected_hits + 1, sizeof(*p->protected_hits));
	h = &p->protected_hits[p->nprotected_hits++];
	h->kind = xstrdup(kind);
	h->name = xstrdup(name);
	h->pattern = xstrdup(pattern);
	h->why = why;
}

static const char *
deleted_kind(enum plan_action_kind k)
{
	switch (k) {
	case PLAN_ACT_DELETE_QUEUE:
	case PLAN_ACT_RECREATE_QUEUE:
		return "queue";
	case PLAN_ACT_DELETE_DIVERT:
	case PLAN_ACT_RECREATE_DIVERT:
		return "divert";
	case PLAN_ACT_DELETE_ADDRESS:
		return "address";
	default:
		return NULL;
	}
}

static char *
delete_why(const struct plan *p, enum plan_action_kind k)
{
	if (strcmp(p->kind, "delete-queue") == 0)
		return xstrdup("the operator's delete-queue");
	if (k == PLAN_ACT_RECREATE_QUEUE || k == PLAN_ACT_RECREATE_DIVERT)
		return xstrdup(
		    "recreated: destroyed and created again for a change its update cannot make");
	return xstrdup("removed from the declaration: deleted");
}

static void
protect_dependent(struct plan *p, const struct plan_action *a,
    const char *divert)
{
	const char *pat = decl_protect_match((const char *const *)p->protect,
	    p->nprotect, divert);

	if (pat != NULL)
		hit(p, "divert", divert, pat,
		    xasprintf(
		        "removed with queue '%s' (a dependent divert, ADR-0084 D1)",
		        a->name));
}

/* The object of action a, and the dependent diverts its steps remove. */
static void
protect_action(struct plan *p, const struct plan_action *a)
{
	const char *kind = deleted_kind(a->kind), *pat;
	const struct plan_step *np;
	size_t i, k;
	bool acts = false;

	if (kind == NULL)
		return;
	for (i = 0; i < a->nnodes; i++) {
		np = &a->nodes[i];
		acts |= np->outcome == PLAN_OUT_WOULD_APPLY ||
		        np->outcome == PLAN_OUT_REFUSED;
		/* the preflight keeps a protected dependent divert and
		 * refuses its node (PROTECTED): it is named here too */
		for (k = 0; k < np->nkept; k++)
			if (np->refusal != NULL &&
			    strcmp(np->refusal, "PROTECTED") == 0)
				protect_dependent(p, a, np->kept[k].name);
		for (k = 0; k < np->nremoved; k++)
			protect_dependent(p, a, np->removed[k].config.name);
	}
	pat = decl_protect_match((const char *const *)p->protect, p->nprotect,
	    a->name);
	if (acts && pat != NULL)
		hit(p, kind, a->name, pat, delete_why(p, a->kind));
}

void
plan_diff_protect(struct plan_diff *d)
{
	struct plan *p = d->plan;
	size_t i;

	if (p->nprotect == 0)
		return;
	for (i = 0; i < p->nactions; i++)
		protect_action(p, &p->actions[i]);
}

bool
plan_refuse_protected(struct plan *p)
{
	const struct plan_protected *h = p->protected_hits;

	if (p->nprotected_hits == 0)
		return false;
	p->outcome = PLAN_OUT_REFUSED;
	free(p->refusal);
	free(p->message);
	free(p->next_step);
	p->refusal = xstrdup("PROTECTED");
	if (p->nprotected_hits == 1)
		p->message = xasprintf(
		    "%s '%s' is protected by settings.protect pattern '%s', and the plan would delete it (%s)",
		    h->kind, h->name, h->pattern, h->why);
	else
		p->message = xasprintf(
		    "%s '%s' is protected by settings.protect pattern '%s', and the plan would delete it (%s); %zu more protected object%s listed under Protected",
		    h->kind, h->name, h->pattern, h->why,
		    p->nprotected_hits - 1,
		    p->nprotected_hits == 2 ? " is" : "s are");
	if (strncmp(h->why, "recreated", 9) == 0)
		p->next_step = xstrdup(
		    "declare the object as the brokers have it (no change its update cannot make), or first apply a declaration without the pattern (the last applied declaration's patterns count too), then plan again");
	else
		p->next_step = xstrdup(
		    "declare the object again (or keep what its delete removes), or first apply a declaration without the pattern (the last applied declaration's patterns count too), then plan again");
	return true;
}

/* ---- managed: false --------------------------------------------------- */

void
plan_note_declared_unmanaged(struct plan *p, const char *kind, const char *name,
    const char *node)
{
	struct plan_unmanaged *u = NULL;
	size_t i;

	for (i = 0; i < p->ndeclared_unmanaged; i++)
		if (strcmp(p->declared_unmanaged[i].kind, kind) == 0 &&
		    strcmp(p->declared_unmanaged[i].name, name) == 0)
			u = &p->declared_unmanaged[i];
	if (u == NULL) {
		p->declared_unmanaged = xreallocarray(p->declared_unmanaged,
		    p->ndeclared_unmanaged + 1, sizeof(*p->declared_unmanaged));
		u = &p->declared_unmanaged[p->ndeclared_unmanaged++];
		memset(u, 0, sizeof(*u));
		u->kind = xstrdup(kind);
		u->name = xstrdup(name);
	}
	u->nodes = xreallocarray(u->nodes, u->nnodes + 1, sizeof(*u->nodes));
	u->nodes[u->nnodes++] = xstrdup(node);
}

/* ---- a queue delete's dependent diverts (ADR-0084 D1) ----------------- */

/* " (path:line:col)" where a key was written, else "". Owned. */
static char *
pos_text(const struct pos *at)
{
	if (at->path == NULL || at->line == 0)
		return xstrdup("");
	return xasprintf(" (%s:%u:%u)", at->path, at->line, at->col);
}

bool
plan_policy_keeps_dependent(struct plan_step *np, const struct recon_divert *dv,
    const char *queue, const struct plan_queue_delete_ctx *ctx)
{
	const struct decl_divert *dd =
	    decl_cluster_find_divert(ctx->decl, dv->name);
	const char *pat;
	char *at;

	pat = decl_protect_match(ctx->protect, ctx->nprotect, dv->name);
	if (pat != NULL) {
		plan_step_refuse(np, "PROTECTED",
		    "keep a queue on the divert's forwarding address, or first apply a declaration without the pattern, then plan again",
		    "divert '%s' would be removed with queue '%s' (a dependent divert, ADR-0084 D1), but settings.protect pattern '%s' covers it",
		    dv->name, queue, pat);
		return true;
	}
	if (dd != NULL && dd->policy.unmanaged) {
		at = pos_text(&dd->policy.managed_at);
		plan_step_refuse(np, "UNMANAGED_DEPENDENT",
		    "keep a queue on the divert's forwarding address, or remove the divert yourself (it is not the agent's), then plan again",
		    "divert '%s' is declared with managed: false%s, but deleting queue '%s' would remove it as a dependent divert (ADR-0084 D1): the agent never deletes an object it does not manage",
		    dv->name, at, queue);
		free(at);
		return true;
	}
	if ((dd != NULL && dd->policy.deletion == DECL_RETAIN) ||
	    strv_array_has(ctx->retained_diverts, ctx->nretained_diverts,
	        dv->name)) {
		plan_step_refuse(np, "RETAINED_DEPENDENT",
		    "keep a queue on the divert's forwarding address, or declare the divert with deletion-policy: delete and apply that first, then plan again",
		    "divert '%s' has deletion-policy: retain, but deleting queue '%s' would remove it as a dependent divert (ADR-0084 D1): a retained object is never destroyed",
		    dv->name, queue);
		return true;
	}
	return false;
}
