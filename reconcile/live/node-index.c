/* reconcile/live/node-index.c: per-node lookups by address (live.h).
 *
 * Built once per snapshot when it is complete (fetched and sorted, or
 * parsed), so a plan with many queue deletes costs O(n log n) per node
 * instead of one walk of every queue and divert per delete. */

#include "live-int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/xalloc.h"

struct live_key_ref {
	const char *key; /* not NUL-terminated at len */
	uint32_t len;
	uint32_t idx; /* into the node's queues or diverts */
};

struct live_node_index {
	struct live_key_ref *q_by_address; /* queues by address */
	size_t nq;
	struct live_key_ref *d_by_source; /* diverts by source address */
	size_t nsrc;
	struct live_key_ref *d_by_target; /* one per forwarding target */
	size_t ntgt;
};

static int
key_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
	int c = memcmp(a, b, alen < blen ? alen : blen);

	if (c != 0)
		return c;
	return alen < blen ? -1 : alen > blen ? 1 : 0;
}

static int
ref_cmp(const void *va, const void *vb)
{
	const struct live_key_ref *a = va, *b = vb;
	int c = key_cmp(a->key, a->len, b->key, b->len);

	if (c != 0)
		return c;
	return a->idx < b->idx ? -1 : a->idx > b->idx ? 1 : 0;
}

/* The first ref whose key is not below key, and the count equal to it. */
static size_t
ref_range(const struct live_key_ref *v, size_t n, const char *key,
    size_t *count)
{
	size_t lo = 0, hi = n, len = strlen(key), first;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (key_cmp(v[mid].key, v[mid].len, key, len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	first = lo;
	while (lo < n && key_cmp(v[lo].key, v[lo].len, key, len) == 0)
		lo++;
	*count = lo - first;
	return first;
}

static void
add_ref(struct live_key_ref **v, size_t *n, size_t *cap, const char *key,
    size_t len, size_t idx)
{
	xgrow(v, cap, *n + 1, sizeof(**v));
	(*v)[*n].key = key;
	(*v)[*n].len = (uint32_t)len;
	(*v)[*n].idx = (uint32_t)idx;
	(*n)++;
}

bool
live_forward_target(const char **p, const char **target, size_t *len)
{
	const char *s = *p, *end;
	size_t n;

	if (s == NULL)
		return false;
	end = strchr(s, ',');
	n = end != NULL ? (size_t)(end - s) : strlen(s);
	while (n > 0 && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		n--;
	*target = s;
	*len = n;
	*p = end != NULL ? end + 1 : NULL;
	return true;
}

static void
add_targets(struct live_node_index *x, size_t *cap, const char *p, size_t idx)
{
	const char *t;
	size_t n;

	while (live_forward_target(&p, &t, &n))
		if (n > 0)
			add_ref(&x->d_by_target, &x->ntgt, cap, t, n, idx);
}

struct live_node_index *
live_node_index_build(const struct recon_node_snapshot *n)
{
	struct live_node_index *x = xcalloc(1, sizeof(*x));
	size_t i, cap = 0;

	x->q_by_address = xcalloc(n->nqueues + 1, sizeof(*x->q_by_address));
	for (i = 0; i < n->nqueues; i++) {
		const char *a =
		    n->queues[i].address != NULL ? n->queues[i].address : "";

		x->q_by_address[x->nq++] =
		    (struct live_key_ref){a, (uint32_t)strlen(a), (uint32_t)i};
	}
	x->d_by_source = xcalloc(n->ndiverts + 1, sizeof(*x->d_by_source));
	for (i = 0; i < n->ndiverts; i++) {
		const char *a =
		    n->diverts[i].address != NULL ? n->diverts[i].address : "";

		x->d_by_source[x->nsrc++] =
		    (struct live_key_ref){a, (uint32_t)strlen(a), (uint32_t)i};
		add_targets(x, &cap, n->diverts[i].forwarding_address, i);
	}
	qsort(x->q_by_address, x->nq, sizeof(*x->q_by_address), ref_cmp);
	qsort(x->d_by_source, x->nsrc, sizeof(*x->d_by_source), ref_cmp);
	if (x->ntgt > 1)
		qsort(x->d_by_target, x->ntgt, sizeof(*x->d_by_target),
		    ref_cmp);
	return x;
}

void
live_node_index_free(struct live_node_index *x)
{
	if (x == NULL)
		return;
	free(x->q_by_address);
	free(x->d_by_source);
	free(x->d_by_target);
	free(x);
}

size_t
live_node_queues_at(const struct live_node_index *x, const char *address,
    size_t **out)
{
	size_t count, i;
	size_t first = ref_range(x->q_by_address, x->nq, address, &count);

	*out = xcalloc(count + 1, sizeof(**out));
	for (i = 0; i < count; i++)
		(*out)[i] = x->q_by_address[first + i].idx;
	return count;
}

static int
idx_cmp(const void *va, const void *vb)
{
	size_t a = *(const size_t *)va, b = *(const size_t *)vb;

	return a < b ? -1 : a > b ? 1 : 0;
}

size_t
live_node_diverts_around(const struct live_node_index *x, const char *address,
    size_t **out)
{
	size_t c1, f1 = ref_range(x->d_by_source, x->nsrc, address, &c1);
	size_t c2, f2 = ref_range(x->d_by_target, x->ntgt, address, &c2);
	size_t i, m = 0;
	size_t *v = xcalloc(c1 + c2 + 1, sizeof(*v));

	for (i = 0; i < c1; i++)
		v[m++] = x->d_by_source[f1 + i].idx;
	for (i = 0; i < c2; i++)
		v[m++] = x->d_by_target[f2 + i].idx;
	live_index_sort_unique(v, &m);
	*out = v;
	return m;
}

void
live_index_sort_unique(size_t *v, size_t *n)
{
	size_t i, k;

	if (*n > 1)
		qsort(v, *n, sizeof(*v), idx_cmp);
	for (i = k = 0; i < *n; i++)
		if (k == 0 || v[k - 1] != v[i])
			v[k++] = v[i];
	*n = k;
}
