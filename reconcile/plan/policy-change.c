/* reconcile/plan/policy-change.c: the policy changes of a plan
 * (docs/policy.md "Changing the policy"). The inventory records the policy
 * of the last applied declaration, and a removed object is judged by it;
 * a commit that changes only the policy sends nothing to a broker, yet
 * its apply must record the new policy, or a protection the operator
 * removed would hold for ever. So the plan compares what the inventory
 * records with what an apply of the new declaration records there:
 * settings.protect, deletion-policy: retain (plan_managed_set_policy) and
 * delete-if-empty of every managed queue still declared. Each difference
 * is a change, and one that removes a protection lifts it. */
#include "plan-int.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/sbuf.h"
#include "../../lib/xalloc.h"

#define EFFECT_NAMES 5 /* objects an effect names before "and N more" */

struct found {
	struct plan_policy_change *v;
	size_t n;
};

static char *
at_text(const struct pos *at)
{
	if (at == NULL || at->path == NULL || at->line == 0)
		return NULL;
	return xasprintf("%s:%u:%u", at->path, at->line, at->col);
}

static void
add(struct found *f, const char *setting, const char *kind, const char *name,
    bool lifts, const struct pos *at, char *effect)
{
	struct plan_policy_change *c;
	bool prot = strcmp(setting, "settings.protect") == 0;
	bool die = strcmp(setting, "delete-if-empty") == 0;

	f->v = xreallocarray(f->v, f->n + 1, sizeof(*f->v));
	c = &f->v[f->n++];
	memset(c, 0, sizeof(*c));
	c->setting = xstrdup(setting);
	c->kind = xstrdup(kind);
	c->name = xstrdup(name);
	if (prot) {
		c->from = xstrdup(lifts ? "present" : "absent");
		c->to = xstrdup(lifts ? "absent" : "present");
	} else if (die) {
		c->from = xstrdup(lifts ? "true" : "false");
		c->to = xstrdup(lifts ? "false" : "true");
	} else {
		c->from = xstrdup(lifts ? "retain" : "delete");
		c->to = xstrdup(lifts ? "delete" : "retain");
	}
	c->at = at_text(at);
	c->lifts = lifts;
	c->effect = effect;
}

/* " (settings.protect pattern 'P' still refuses that)" when a pattern of
 * the new declaration covers name, else "". Owned. */
static char *
still_protected(const struct decl_cluster *decl, const char *name)
{
	const char *pat =
	    decl_protect_match((const char *const *)decl->settings.protect,
	        decl->settings.nprotect, name);

	if (pat == NULL)
		return xstrdup("");
	return xasprintf(" (settings.protect pattern '%s' still refuses that)",
	    pat);
}

/* ---- settings.protect ------------------------------------------------- */

/* The managed objects pattern matches ("queue 'orders', address 'orders'
 * and 2 more"), those a pattern of decl also covers left out when lifted;
 * NULL when none. Owned. */
static char *
covered(const struct plan_managed *m, const struct decl_cluster *decl,
    const char *pattern, bool lifted)
{
	struct {
		const char *kind;
		char *const *v;
		size_t n;
	} lists[] = {
	    {"queue", m->queues, m->nqueues},
	    {"address", m->addresses, m->naddresses},
	    {"divert", m->diverts, m->ndiverts},
	};
	const char *const *pats = (const char *const *)decl->settings.protect;
	struct sbuf b = {0};
	size_t i, j, n = 0;

	for (i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
		for (j = 0; j < lists[i].n; j++) {
			if (!decl_glob_match(pattern, lists[i].v[j]))
				continue;
			if (lifted &&
			    decl_protect_match(pats, decl->settings.nprotect,
			        lists[i].v[j]) != NULL)
				continue;
			if (n++ < EFFECT_NAMES)
				sbuf_addf(&b, "%s%s '%s'", n > 1 ? ", " : "",
				    lists[i].kind, lists[i].v[j]);
		}
	if (n == 0)
		return NULL;
	if (n > EFFECT_NAMES)
		sbuf_addf(&b, " and %zu more", n - EFFECT_NAMES);
	return sbuf_take(&b);
}

static const struct pos *
pattern_at(const struct decl_cluster *decl, const char *pattern)
{
	size_t i;

	for (i = 0; i < decl->settings.nprotect; i++)
		if (strcmp(decl->settings.protect[i], pattern) == 0)
			return decl->settings.protect_at != NULL
			           ? &decl->settings.protect_at[i]
			           : NULL;
	return NULL;
}

static void
protect_changes(struct found *f, const struct plan_managed *m,
    const struct decl_cluster *decl)
{
	const char *pat;
	char *objs, *effect;
	size_t i;

	for (i = 0; i < m->nprotect; i++) {
		pat = m->protect[i];
		if (strv_array_has((const char *const *)decl->settings.protect,
		        decl->settings.nprotect, pat))
			continue;
		objs = covered(m, decl, pat, true);
		effect =
		    objs != NULL
		        ? xasprintf(
		              "after this apply, removing one of %s from the declaration deletes it: no pattern refuses that any more",
		              objs)
		        : xstrdup(
		              "after this apply, the pattern refuses no delete any more (no managed object it alone covers now)");
		add(f, "settings.protect", "pattern", pat, true, NULL, effect);
		free(objs);
	}
	for (i = 0; i < decl->settings.nprotect; i++) {
		pat = decl->settings.protect[i];
		if (strv_array_has((const char *const *)m->protect, m->nprotect,
		        pat))
			continue;
		objs = covered(m, decl, pat, false);
		effect =
		    objs != NULL
		        ? xasprintf(
		              "after this apply, a plan that would delete %s is refused (PROTECTED), even one that removes the pattern again",
		              objs)
		        : xstrdup(
		              "after this apply, a plan that would delete an object it matches is refused (PROTECTED); no managed object matches it now");
		add(f, "settings.protect", "pattern", pat, false,
		    pattern_at(decl, pat), effect);
		free(objs);
	}
}

/* ---- deletion-policy: retain ------------------------------------------ */

static const struct decl_policy *
policy_of(const struct decl_cluster *decl, const char *kind, const char *name)
{
	const struct decl_address *a;
	const struct decl_queue *q;
	const struct decl_divert *v;

	if (strcmp(kind, "queue") == 0) {
		q = decl_cluster_find_queue(decl, name);
		return q != NULL ? &q->policy : NULL;
	}
	if (strcmp(kind, "divert") == 0) {
		v = decl_cluster_find_divert(decl, name);
		return v != NULL ? &v->policy : NULL;
	}
	a = decl_cluster_find_address(decl, name);
	return a != NULL ? &a->policy : NULL;
}

/* The recorded retained names before (was) and after (now) of one kind;
 * managed: the names m manages of it. */
static void
retain_kind(struct found *f, const struct decl_cluster *decl, const char *kind,
    char *const *was, size_t nwas, char *const *now, size_t nnow,
    char *const *managed, size_t nmanaged)
{
	const struct decl_policy *pol;
	const char *what = strcmp(kind, "queue") == 0
	                       ? " on every broker, with its messages"
	                       : " on every broker";
	char *still;
	size_t i;

	for (i = 0; i < nwas; i++) {
		if (strv_array_has((const char *const *)now, nnow, was[i]))
			continue;
		pol = policy_of(decl, kind, was[i]);
		if (pol == NULL || pol->unmanaged)
			continue; /* forgotten by the plan, not deleted */
		still = still_protected(decl, was[i]);
		add(f, "deletion-policy", kind, was[i], true, &pol->deletion_at,
		    xasprintf(
		        "after this apply, removing %s '%s' from the declaration deletes it%s%s",
		        kind, was[i], what, still));
		free(still);
	}
	for (i = 0; i < nnow; i++) {
		if (strv_array_has((const char *const *)was, nwas, now[i]) ||
		    !strv_array_has((const char *const *)managed, nmanaged,
		        now[i]))
			continue;
		pol = policy_of(decl, kind, now[i]);
		add(f, "deletion-policy", kind, now[i], false,
		    pol != NULL ? &pol->deletion_at : NULL,
		    xasprintf(
		        "after this apply, removing %s '%s' from the declaration forgets it: never destroyed on any broker",
		        kind, now[i]));
	}
}

static void
retain_changes(struct found *f, const struct plan_managed *m,
    const struct decl_cluster *decl)
{
	struct plan_managed after;
	size_t i;

	/* what apply_update_managed records: plan_managed_set_policy */
	memset(&after, 0, sizeof(after));
	after.retain_addresses =
	    xcalloc(m->nretain_addresses + 1, sizeof(char *));
	for (i = 0; i < m->nretain_addresses; i++)
		after.retain_addresses[i] = xstrdup(m->retain_addresses[i]);
	after.nretain_addresses = m->nretain_addresses;
	after.retain_queues = xcalloc(m->nretain_queues + 1, sizeof(char *));
	for (i = 0; i < m->nretain_queues; i++)
		after.retain_queues[i] = xstrdup(m->retain_queues[i]);
	after.nretain_queues = m->nretain_queues;
	after.retain_diverts = xcalloc(m->nretain_diverts + 1, sizeof(char *));
	for (i = 0; i < m->nretain_diverts; i++)
		after.retain_diverts[i] = xstrdup(m->retain_diverts[i]);
	after.nretain_diverts = m->nretain_diverts;
	plan_managed_set_policy(&after, decl);
	retain_kind(f, decl, "address", m->retain_addresses,
	    m->nretain_addresses, after.retain_addresses,
	    after.nretain_addresses, m->addresses, m->naddresses);
	retain_kind(f, decl, "queue", m->retain_queues, m->nretain_queues,
	    after.retain_queues, after.nretain_queues, m->queues, m->nqueues);
	retain_kind(f, decl, "divert", m->retain_diverts, m->nretain_diverts,
	    after.retain_diverts, after.nretain_diverts, m->diverts,
	    m->ndiverts);
	plan_managed_release(&after);
}

/* ---- delete-if-empty -------------------------------------------------- */

static void
die_changes(struct found *f, const struct plan_managed *m,
    const struct decl_cluster *decl)
{
	const struct decl_queue *dq;
	bool was;
	char *still;
	size_t i;

	/* apply records a managed queue decl declares with decl's value;
	 * one it does not declare keeps what it had */
	for (i = 0; i < m->nqueues; i++) {
		dq = decl_cluster_find_queue(decl, m->queues[i]);
		if (dq == NULL || dq->policy.unmanaged)
			continue;
		was = plan_managed_delete_if_empty(m, m->queues[i]) != NULL;
		if (was == dq->delete_if_empty)
			continue;
		if (was) {
			still = still_protected(decl, dq->name);
			add(f, "delete-if-empty", "queue", dq->name, true,
			    &dq->delete_if_empty_at,
			    xasprintf(
			        "after this apply, removing queue '%s' from the declaration deletes it on every node, with the messages it holds%s",
			        dq->name, still));
			free(still);
		} else {
			add(f, "delete-if-empty", "queue", dq->name, false,
			    &dq->delete_if_empty_at,
			    xasprintf(
			        "after this apply, a delete of queue '%s' is refused on a node where it holds messages (HAS_MESSAGES)",
			        dq->name));
		}
	}
}

static int
cmp_change(const void *a, const void *b)
{
	const struct plan_policy_change *x = a, *y = b;
	int c = strcmp(x->setting, y->setting);

	if (c == 0)
		c = strcmp(x->kind, y->kind);
	if (c == 0)
		c = strcmp(x->name, y->name);
	return c;
}

void
plan_policy_changes_find(struct plan *p, const struct decl_cluster *decl,
    const struct plan_managed *m)
{
	struct found f = {0};

	if (m == NULL || !m->known)
		return;
	protect_changes(&f, m, decl);
	retain_changes(&f, m, decl);
	die_changes(&f, m, decl);
	if (f.n > 1)
		qsort(f.v, f.n, sizeof(*f.v), cmp_change);
	p->policy_changes = f.v;
	p->npolicy_changes = f.n;
}
