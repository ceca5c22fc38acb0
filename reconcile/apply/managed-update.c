/* reconcile/apply/managed-update.c: the managed set after an apply holds only
 * what was really applied, per object (docs/state.md). */
#include "apply-int.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/xalloc.h"

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
names_sort(char **v, size_t n)
{
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_str);
}

/* v is sorted (apply_update_managed sorts it first; every change
 * below keeps it so). Index of name in v, or (size_t)-1; *at is where it
 * would go. */
static size_t
names_find(char **v, size_t n, const char *name, size_t *at)
{
	size_t lo = 0, hi = n, mid;
	int c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		c = strcmp(v[mid], name);
		if (c == 0) {
			*at = mid;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*at = lo;
	return (size_t)-1;
}

static void
names_add(char ***v, size_t *n, const char *name)
{
	size_t at;

	if (names_find(*v, *n, name, &at) != (size_t)-1)
		return;
	*v = xreallocarray(*v, *n + 1, sizeof(**v));
	memmove(*v + at + 1, *v + at, (*n - at) * sizeof(**v));
	(*v)[at] = xstrdup(name);
	(*n)++;
}

/* Add names[0..k) at once: one sort, duplicates dropped. */
static void
names_add_all(char ***v, size_t *n, char *const *names, size_t k)
{
	size_t i, j;

	if (k == 0)
		return;
	*v = xreallocarray(*v, *n + k + 1, sizeof(**v));
	for (i = 0; i < k; i++)
		(*v)[*n + i] = xstrdup(names[i]);
	*n += k;
	names_sort(*v, *n);
	for (i = j = 0; i < *n; i++) {
		if (j > 0 && strcmp((*v)[j - 1], (*v)[i]) == 0) {
			free((*v)[i]);
			continue;
		}
		(*v)[j++] = (*v)[i];
	}
	*n = j;
}

static void
names_remove(char ***v, size_t *n, const char *name)
{
	size_t i, at;

	i = names_find(*v, *n, name, &at);
	if (i == (size_t)-1)
		return;
	free((*v)[i]);
	memmove(*v + i, *v + i + 1, (*n - i - 1) * sizeof(**v));
	(*n)--;
}

/* Did action k's operations on node result n all run (at least one)? */
static bool
ops_done(const struct plan_action *a, const struct apply_node *n)
{
	size_t j, ran = 0;

	for (j = 0; j < n->nops; j++) {
		if (n->ops[j].act != a->kind ||
		    strcmp(n->ops[j].action, a->name) != 0)
			continue;
		if (n->ops[j].state != APPLY_OP_DONE)
			return false;
		ran++;
	}
	return ran > 0;
}

/* Did action k really take effect on node result n (all its operations
 * done, or nothing left to do)? */
static bool
took_effect(const struct plan_action *a, size_t k, const struct apply_node *n)
{
	if (n->verdicts == NULL)
		return false;
	if (n->verdicts[k] == APPLY_VERDICT_NOOP)
		return true;
	if (n->verdicts[k] != APPLY_VERDICT_RUN || n->outcome == APPLY_REFUSED)
		return false;
	return ops_done(a, n);
}

/* Is the object of delete action a gone from node i once the apply is
 * over: absent when apply read the node, or deleted there by this apply
 * (every operation of the action DONE)? Not known, so false, when the
 * node could not be read. */
static bool
gone_from(const struct plan_action *a, const struct apply_result *r, size_t i)
{
	const struct recon_node_snapshot *n;
	bool present;

	if (r->seen == NULL || r->seen[i].refusal.kind != RECON_OK)
		return false;
	n = &r->seen[i];
	if (a->kind == PLAN_ACT_DELETE_QUEUE)
		present = recon_node_find_queue(n, a->name) != NULL;
	else if (a->kind == PLAN_ACT_DELETE_DIVERT)
		present = recon_node_find_divert(n, a->name) != NULL;
	else
		present = recon_node_find_address(n, a->name) != NULL;
	/* A release that keeps a destroyed divert's journal record (before
	 * 2.32) brings it back at its next restart: the divert stays managed,
	 * so the plan after that restart deletes it again
	 * (docs/compatibility.md). */
	if (present && a->kind == PLAN_ACT_DELETE_DIVERT &&
	    recon_version_divert_destroy_kept(n->broker_version))
		return false;
	return !present || ops_done(a, &r->nodes[i]);
}

static const struct plan_step *
step(const struct plan_action *a, const char *node)
{
	size_t i;

	for (i = 0; i < a->nnodes; i++)
		if (strcmp(a->nodes[i].node, node) == 0)
			return &a->nodes[i];
	return NULL;
}

static bool
is_delete(enum plan_action_kind k)
{
	return k == PLAN_ACT_DELETE_DIVERT || k == PLAN_ACT_DELETE_QUEUE ||
	       k == PLAN_ACT_DELETE_ADDRESS;
}

static void
update_one(struct plan_managed *m, const struct plan_action *a, bool add)
{
	char ***v;
	size_t *n;

	switch (a->kind) {
	case PLAN_ACT_CREATE_ADDRESS:
	case PLAN_ACT_WIDEN_ADDRESS:
	case PLAN_ACT_NARROW_ADDRESS:
	case PLAN_ACT_DELETE_ADDRESS:
		v = &m->addresses;
		n = &m->naddresses;
		break;
	case PLAN_ACT_CREATE_QUEUE:
	case PLAN_ACT_CHANGE_QUEUE:
	case PLAN_ACT_RECREATE_QUEUE:
	case PLAN_ACT_DELETE_QUEUE:
		v = &m->queues;
		n = &m->nqueues;
		break;
	default:
		v = &m->diverts;
		n = &m->ndiverts;
		break;
	}
	if (add)
		names_add(v, n, a->name);
	else
		names_remove(v, n, a->name);
}

static void
forget_one(struct plan_managed *m, const struct plan_forgotten *f)
{
	if (strcmp(f->kind, "address") == 0)
		names_remove(&m->addresses, &m->naddresses, f->name);
	else if (strcmp(f->kind, "queue") == 0)
		names_remove(&m->queues, &m->nqueues, f->name);
	else if (strcmp(f->kind, "divert") == 0)
		names_remove(&m->diverts, &m->ndiverts, f->name);
}

/* Is name (of the kind of list v) on some node apply read? */
static bool
seen_somewhere(const struct apply_result *r, char **const *v,
    const struct plan_managed *m, const char *name)
{
	const struct recon_node_snapshot *n;
	size_t i;

	for (i = 0; r->seen != NULL && i < r->nnodes; i++) {
		n = &r->seen[i];
		if (n->refusal.kind != RECON_OK)
			continue;
		if (v == &m->addresses && recon_node_find_address(n, name))
			return true;
		if (v == &m->queues && recon_node_find_queue(n, name))
			return true;
		if (v == &m->diverts && recon_node_find_divert(n, name))
			return true;
	}
	return false;
}

size_t
apply_count_adopted(const struct plan_managed *m, const struct apply_result *r,
    const struct decl_cluster *decl)
{
	struct plan_managed declared;
	size_t i, n = 0;

	if (decl == NULL)
		return 0;
	plan_managed_from_decl(&declared, decl, "declaration", NULL);
	for (i = 0; i < declared.naddresses; i++)
		n += !plan_managed_has_address(m, declared.addresses[i]) &&
		     seen_somewhere(r, &m->addresses, m, declared.addresses[i]);
	for (i = 0; i < declared.nqueues; i++)
		n += !plan_managed_has_queue(m, declared.queues[i]) &&
		     seen_somewhere(r, &m->queues, m, declared.queues[i]);
	for (i = 0; i < declared.ndiverts; i++)
		n += !plan_managed_has_divert(m, declared.diverts[i]) &&
		     seen_somewhere(r, &m->diverts, m, declared.diverts[i]);
	plan_managed_release(&declared);
	return n;
}

/* Declared objects found on some node enter the set ("found as declared",
 * docs/state.md); the captures become the declared ones. */
static void
add_found(struct plan_managed *m, const struct apply_result *r,
    const struct plan_managed *declared)
{
	size_t i, k, most;
	char **found;

	most = declared->naddresses;
	if (declared->nqueues > most)
		most = declared->nqueues;
	if (declared->ndiverts > most)
		most = declared->ndiverts;
	found = xcalloc(most + 1, sizeof(*found));
	for (i = k = 0; i < declared->naddresses; i++)
		if (seen_somewhere(r, &m->addresses, m, declared->addresses[i]))
			found[k++] = declared->addresses[i];
	names_add_all(&m->addresses, &m->naddresses, found, k);
	for (i = k = 0; i < declared->nqueues; i++)
		if (seen_somewhere(r, &m->queues, m, declared->queues[i]))
			found[k++] = declared->queues[i];
	names_add_all(&m->queues, &m->nqueues, found, k);
	for (i = k = 0; i < declared->ndiverts; i++)
		if (seen_somewhere(r, &m->diverts, m, declared->diverts[i]))
			found[k++] = declared->diverts[i];
	names_add_all(&m->diverts, &m->ndiverts, found, k);
	free(found);
	for (i = 0; i < m->ncaptures; i++)
		free(m->captures[i]);
	m->ncaptures = 0;
	names_add_all(&m->captures, &m->ncaptures, declared->captures,
	    declared->ncaptures);
}

/* The captures the plan removes stay managed until their capture pass
 * finished on every node. */
static void
keep_unfinished_captures(struct plan_managed *m, const struct plan *p,
    const struct decl_cluster *decl, const struct apply_result *r)
{
	bool done = true;
	char **rm;
	size_t i, n;

	for (i = 0; i < r->nnodes; i++)
		if ((r->nodes[i].outcome != APPLY_APPLIED &&
		        r->nodes[i].outcome != APPLY_SKIPPED) ||
		    r->nodes[i].capture_incomplete)
			done = false;
	rm = plan_removed_captures(p, decl, &n);
	for (i = 0; i < n; i++) {
		if (!done)
			names_add(&m->captures, &m->ncaptures, rm[i]);
		free(rm[i]);
	}
	free(rm);
}

/* delete-if-empty of the managed queues after the apply (m->queues
 * sorted): a queue decl declares takes decl's policy, named with the
 * places p recorded from the declaration's own files; one decl no longer
 * declares (still managed: its delete did not finish everywhere) keeps
 * the policy it had, so the next plan's delete is still under it. */
static void
update_delete_if_empty(struct plan_managed *m, const struct plan *p,
    const struct decl_cluster *decl)
{
	struct strv q = {0}, t = {0};
	const struct decl_queue *dq;
	const char *was;
	char *text;
	size_t i;

	for (i = 0; i < m->nqueues; i++) {
		dq = decl != NULL ? decl_cluster_find_queue(decl, m->queues[i])
		                  : NULL;
		was = plan_managed_delete_if_empty(m, m->queues[i]);
		if (dq != NULL)
			text = plan_delete_if_empty_applied(p, decl, dq);
		else
			text = was != NULL ? xstrdup(was) : NULL;
		if (text == NULL)
			continue;
		strv_add(&q, m->queues[i]);
		strv_add(&t, text);
		free(text);
	}
	strv_array_free(m->die_queues, m->ndie);
	strv_array_free(m->die_texts, m->ndie);
	m->die_queues = q.v;
	m->die_texts = t.v;
	m->ndie = q.n;
}

void
apply_update_managed(struct plan_managed *m, const struct plan *p,
    const struct apply_result *r, const struct decl_cluster *decl)
{
	struct plan_managed declared;
	const struct plan_step *np;
	bool some, all;
	size_t k, i;

	names_sort(m->addresses, m->naddresses);
	names_sort(m->queues, m->nqueues);
	names_sort(m->diverts, m->ndiverts);
	names_sort(m->captures, m->ncaptures);
	for (k = 0; k < p->nactions; k++) {
		const struct plan_action *a = &p->actions[k];

		if (plan_action_kind_is_capture(a->kind))
			continue; /* captures are names, not objects */
		if (is_delete(a->kind)) {
			/* forgotten only once gone from every node: a node
			 * that keeps it (not empty, refused, failed,
			 * unreachable) keeps it managed, so a later plan
			 * deletes it there */
			all = r->nnodes > 0;
			for (i = 0; i < r->nnodes; i++)
				all &= gone_from(a, r, i);
			if (all)
				update_one(m, a, false);
			continue;
		}
		some = false;
		for (i = 0; i < r->nnodes; i++) {
			np = step(a, r->nodes[i].node);
			if (np != NULL && np->outcome != PLAN_OUT_NO_CHANGE &&
			    took_effect(a, k, &r->nodes[i]))
				some = true;
		}
		if (some)
			update_one(m, a, true);
	}
	/* docs/policy.md: what the plan forgets leaves the set, whatever
	 * the nodes did (nothing is sent for it) */
	for (i = 0; i < p->nforgotten; i++)
		forget_one(m, &p->forgotten[i]);
	if (decl != NULL) {
		plan_managed_from_decl(&declared, decl, "declaration", NULL);
		add_found(m, r, &declared);
		plan_managed_release(&declared);
		keep_unfinished_captures(m, p, decl, r);
		plan_managed_set_policy(m, decl);
	}
	update_delete_if_empty(m, p, decl);
	m->known = true;
	if (apply_result_ok(r) && p->revision != NULL) {
		free(m->revision);
		m->revision = xstrdup(p->revision);
	}
}
