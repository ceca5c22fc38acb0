/* reconcile/plan/preflight-empty.c: which deletes run under delete-if-empty
 * and the refusal of a node where the queue holds messages (docs/policy.md).
 *
 * A queue still declared takes the new declaration's policy (its own key,
 * else settings.delete-if-empty); a queue removed from it takes the policy
 * of the declaration last applied (the managed set records it), else the
 * new settings.delete-if-empty: a default turned on protects every delete
 * of the plan that makes it. */
#include "plan-int.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/xalloc.h"

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Index of name in the sorted v[0..n), or n. */
static size_t
find(char *const *v, size_t n, const char *name)
{
	char *const *at;

	if (n == 0)
		return n;
	at = bsearch(&name, v, n, sizeof(*v), cmp_str);
	return at == NULL ? n : (size_t)(at - v);
}

const char *
plan_managed_delete_if_empty(const struct plan_managed *m, const char *queue)
{
	size_t i;

	if (m == NULL)
		return NULL;
	i = find(m->die_queues, m->ndie, queue);
	return i < m->ndie ? m->die_texts[i] : NULL;
}

char *
plan_delete_if_empty_declared(const struct decl_cluster *decl,
    const char *queue)
{
	const struct decl_queue *q = decl_cluster_find_queue(decl, queue);

	if (q != NULL)
		return decl_queue_delete_if_empty_text(decl, q);
	return decl_settings_delete_if_empty_text(decl);
}

char *
plan_delete_if_empty_removed(const struct plan_managed *m,
    const struct decl_cluster *decl, const char *queue)
{
	const char *was = plan_managed_delete_if_empty(m, queue);

	if (was == NULL)
		return decl_settings_delete_if_empty_text(decl);
	if (m->source != NULL && strcmp(m->source, "base") == 0)
		return m->revision != NULL
		           ? xasprintf("%s in the base declaration (%s)", was,
		                 m->revision)
		           : xasprintf("%s in the base declaration", was);
	return m->revision != NULL
	           ? xasprintf(
	                 "%s in the last applied declaration (revision %.12s)",
	                 was, m->revision)
	           : xasprintf("%s in the last applied declaration", was);
}

/* q is protected by its own key (not the default it inherits). */
static bool
own_key(const struct decl_cluster *decl, const struct decl_queue *q)
{
	const struct pos *a = &q->delete_if_empty_at,
	                 *s = &decl->settings.delete_if_empty_at;

	return q->delete_if_empty &&
	       !(decl->settings.delete_if_empty && a->path == s->path &&
	           a->line == s->line && a->col == s->col);
}

void
plan_delete_if_empty_record(struct plan *p, const struct decl_cluster *decl)
{
	const struct decl_queue *q;
	size_t i, j, n = 0;

	p->die_default = decl_settings_delete_if_empty_text(decl);
	for (i = 0; i < decl->naddresses; i++)
		for (j = 0; j < decl->addresses[i].nqueues; j++)
			n += own_key(decl, &decl->addresses[i].queues[j]);
	if (n == 0)
		return;
	p->die_queues = xcalloc(n + 1, sizeof(*p->die_queues));
	p->die_texts = xcalloc(n + 1, sizeof(*p->die_texts));
	for (i = 0; i < decl->naddresses; i++)
		for (j = 0; j < decl->addresses[i].nqueues; j++) {
			q = &decl->addresses[i].queues[j];
			if (!own_key(decl, q))
				continue;
			p->die_queues[p->ndie] = xstrdup(q->name);
			p->die_texts[p->ndie++] =
			    decl_queue_delete_if_empty_text(decl, q);
		}
	plan_delete_if_empty_sort(p->die_queues, p->die_texts, p->ndie);
}

struct pair {
	char *name, *text;
};

static int
cmp_pair(const void *a, const void *b)
{
	return strcmp(((const struct pair *)a)->name,
	    ((const struct pair *)b)->name);
}

void
plan_delete_if_empty_sort(char **names, char **texts, size_t n)
{
	struct pair *v;
	size_t i;

	if (n < 2)
		return;
	v = xcalloc(n, sizeof(*v));
	for (i = 0; i < n; i++) {
		v[i].name = names[i];
		v[i].text = texts[i];
	}
	qsort(v, n, sizeof(*v), cmp_pair);
	for (i = 0; i < n; i++) {
		names[i] = v[i].name;
		texts[i] = v[i].text;
	}
	free(v);
}

char *
plan_delete_if_empty_applied(const struct plan *p,
    const struct decl_cluster *decl, const struct decl_queue *q)
{
	size_t i;

	if (!q->delete_if_empty)
		return NULL;
	i = find(p->die_queues, p->ndie, q->name);
	if (i < p->ndie)
		return xstrdup(p->die_texts[i]);
	if (decl->settings.delete_if_empty && p->die_default != NULL)
		return xstrdup(p->die_default);
	/* a plan written before the policy was recorded */
	return decl_queue_delete_if_empty_text(decl, q);
}

bool
plan_preflight_delete_if_empty(struct plan_step *np,
    const struct recon_queue *q, const struct plan_queue_delete_ctx *ctx)
{
	assert((q->unread & RECON_QUEUE_NO_COUNTS) == 0);
	if (ctx->delete_if_empty == NULL || q->message_count <= 0)
		return false;
	plan_step_refuse(np, PLAN_REFUSAL_HAS_MESSAGES,
	    "consume or move the messages (the queue is deleted only when empty on every node), then plan again; to delete it with them, first apply delete-if-empty: false for it (docs/policy.md, \"Changing the policy\")",
	    "queue '%s' holds %lld message%s on %s; %s", q->name,
	    (long long)q->message_count, q->message_count == 1 ? "" : "s",
	    np->node != NULL ? np->node : "this node", ctx->delete_if_empty);
	return true;
}
