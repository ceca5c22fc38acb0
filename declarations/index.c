/* declarations/index.c: sorted name indexes for the lookups, so that the
 * planner and the rules stay O(n log n) on clusters of DECL_OBJECTS_MAX. */
#include "decl-int.h"

#include <stdlib.h>
#include <string.h>

#include "../lib/xalloc.h"

struct entry {
	const char *name;
	const void *obj;
	size_t order; /* declaration order: the first of equal names wins */
};

struct decl_index {
	struct entry *addresses, *queues, *diverts;
	size_t naddresses, nqueues, ndiverts;
};

static int
entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c != 0)
		return c;
	return (x->order > y->order) - (x->order < y->order);
}

static void
entries_sort(struct entry *v, size_t n)
{
	if (n > 1)
		qsort(v, n, sizeof(*v), entry_cmp);
}

void
decl_index_build(struct decl_cluster *c)
{
	struct decl_index *ix = xcalloc(1, sizeof(*ix));
	size_t i, j, nq = 0;

	for (i = 0; i < c->naddresses; i++)
		nq += c->addresses[i].nqueues;
	ix->addresses = xcalloc(c->naddresses + 1, sizeof(struct entry));
	ix->queues = xcalloc(nq + 1, sizeof(struct entry));
	ix->diverts = xcalloc(c->ndiverts + 1, sizeof(struct entry));
	for (i = 0; i < c->naddresses; i++) {
		const struct decl_address *a = &c->addresses[i];

		ix->addresses[ix->naddresses] =
		    (struct entry){a->name, a, ix->naddresses};
		ix->naddresses++;
		for (j = 0; j < a->nqueues; j++) {
			ix->queues[ix->nqueues] = (struct entry){
			    a->queues[j].name, &a->queues[j], ix->nqueues};
			ix->nqueues++;
		}
	}
	for (i = 0; i < c->ndiverts; i++) {
		ix->diverts[ix->ndiverts] = (struct entry){c->diverts[i].name,
		    &c->diverts[i], ix->ndiverts};
		ix->ndiverts++;
	}
	entries_sort(ix->addresses, ix->naddresses);
	entries_sort(ix->queues, ix->nqueues);
	entries_sort(ix->diverts, ix->ndiverts);
	decl_index_free(c->index);
	c->index = ix;
}

void
decl_index_free(struct decl_index *ix)
{
	if (ix == NULL)
		return;
	free(ix->addresses);
	free(ix->queues);
	free(ix->diverts);
	free(ix);
}

/* The first entry named name (lowest declaration order), or NULL. */
static const void *
find(const struct entry *v, size_t n, const char *name)
{
	size_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (strcmp(v[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < n && strcmp(v[lo].name, name) == 0)
		return v[lo].obj;
	return NULL;
}

const struct decl_address *
decl_index_address(const struct decl_index *ix, const char *name)
{
	return find(ix->addresses, ix->naddresses, name);
}

const struct decl_queue *
decl_index_queue(const struct decl_index *ix, const char *name)
{
	return find(ix->queues, ix->nqueues, name);
}

const struct decl_divert *
decl_index_divert(const struct decl_index *ix, const char *name)
{
	return find(ix->diverts, ix->ndiverts, name);
}
