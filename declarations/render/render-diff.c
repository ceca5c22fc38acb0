/* declarations/render/render-diff.c: unified diffs of rendered files.
 *
 * Myers' O(ND) greedy algorithm on lines, after trimming the common head
 * and tail; hunks as `diff -u` prints them (3 lines of context, deletions
 * before insertions in a change, "\ No newline at end of file"). Past
 * RENDER_DIFF_MAX_D differing lines the middle is shown as one change.
 */
#include "render-int.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/xalloc.h"

#define CONTEXT ((size_t)3)

struct lines {
	const char **s; /* starts */
	size_t *n;      /* lengths, '\n' included */
	size_t count;
	bool last_nl; /* the last line ends with '\n' */
};

enum op { OP_EQ, OP_DEL, OP_INS };

static void
split(struct lines *l, const char *t, size_t len)
{
	size_t i = 0, cap = 64;

	memset(l, 0, sizeof(*l));
	l->s = xreallocarray(NULL, cap, sizeof(*l->s));
	l->n = xreallocarray(NULL, cap, sizeof(*l->n));
	l->last_nl = true;
	while (i < len) {
		const char *nl = memchr(t + i, '\n', len - i);
		size_t end = nl != NULL ? (size_t)(nl - t) + 1 : len;

		if (l->count == cap) {
			cap *= 2;
			l->s = xreallocarray(l->s, cap, sizeof(*l->s));
			l->n = xreallocarray(l->n, cap, sizeof(*l->n));
		}
		l->s[l->count] = t + i;
		l->n[l->count] = end - i;
		l->count++;
		l->last_nl = nl != NULL;
		i = end;
	}
}

static bool
same(const struct lines *a, size_t i, const struct lines *b, size_t j)
{
	return a->n[i] == b->n[j] && memcmp(a->s[i], b->s[j], a->n[i]) == 0;
}

/* Append the edit script of a[a0, a1) against b[b0, b1) to ops. */
struct script {
	enum op *ops;
	size_t n, cap;
};

static void
push(struct script *sc, enum op op, size_t times)
{
	while (times-- > 0) {
		if (sc->n == sc->cap) {
			sc->cap = sc->cap ? sc->cap * 2 : 256;
			sc->ops =
			    xreallocarray(sc->ops, sc->cap, sizeof(*sc->ops));
		}
		sc->ops[sc->n++] = op;
	}
}

/* From the end (n, m) back to (0, 0) through the V arrays of every round
 * (hist[d][k + d] = furthest x on diagonal k after round d), pushing the
 * edit script in order. */
static void
backtrack(long **hist, size_t nd, long n, long m, struct script *sc)
{
	enum op *rev = xmalloc((size_t)(n + m + 1) * sizeof(*rev));
	size_t nrev = 0;
	long x = n, y = m, d;

	for (d = (long)nd - 1; d > 0; d--) {
		const long *pv = hist[d - 1] + (d - 1); /* pv[k] */
		long k = x - y, pk, px, py;

		if (k == -d || (k != d && pv[k - 1] < pv[k + 1]))
			pk = k + 1;
		else
			pk = k - 1;
		px = pv[pk];
		py = px - pk;
		while (x > px && y > py) {
			rev[nrev++] = OP_EQ;
			x--;
			y--;
		}
		rev[nrev++] = pk == k + 1 ? OP_INS : OP_DEL;
		x = px;
		y = py;
	}
	while (x > 0 && y > 0) {
		rev[nrev++] = OP_EQ;
		x--;
		y--;
	}
	while (nrev > 0)
		push(sc, rev[--nrev], 1);
	free(rev);
}

/* Myers on a[a0, a1) against b[b0, b1), keeping the V array of every round
 * for the way back. Returns false when the distance exceeds
 * RENDER_DIFF_MAX_D (nothing pushed then). */
static bool
myers(const struct lines *a, size_t a0, size_t a1, const struct lines *b,
    size_t b0, size_t b1, struct script *sc)
{
	long n = (long)(a1 - a0), m = (long)(b1 - b0), max = n + m, d, k;
	long off, **hist, *v, x, y;
	size_t nd = 0;
	bool found = false;

	if (max > RENDER_DIFF_MAX_D)
		max = RENDER_DIFF_MAX_D;
	off = max + 1;
	hist = xcalloc((size_t)max + 1, sizeof(*hist));
	v = xcalloc((size_t)(2 * off + 1), sizeof(*v));
	for (d = 0; d <= max && !found; d++) {
		for (k = -d; k <= d; k += 2) {
			if (k == -d ||
			    (k != d && v[off + k - 1] < v[off + k + 1]))
				x = v[off + k + 1];
			else
				x = v[off + k - 1] + 1;
			y = x - k;
			while (x < n && y < m &&
			       same(a, a0 + (size_t)x, b, b0 + (size_t)y)) {
				x++;
				y++;
			}
			v[off + k] = x;
			if (x >= n && y >= m) {
				found = true;
				break;
			}
		}
		/* Only diagonals -d..d matter for round d. */
		hist[d] = xmalloc((size_t)(2 * d + 1) * sizeof(*v));
		memcpy(hist[d], v + off - d, (size_t)(2 * d + 1) * sizeof(*v));
		nd = (size_t)d + 1;
	}
	if (found)
		backtrack(hist, nd, n, m, sc);
	for (size_t i = 0; i < nd; i++)
		free(hist[i]);
	free(hist);
	free(v);
	return found;
}

/* The whole edit script of a against b. */
static void
diff_script(const struct lines *a, const struct lines *b, struct script *sc)
{
	size_t head = 0, tail = 0;

	while (head < a->count && head < b->count && same(a, head, b, head))
		head++;
	while (tail < a->count - head && tail < b->count - head &&
	       same(a, a->count - 1 - tail, b, b->count - 1 - tail))
		tail++;
	push(sc, OP_EQ, head);
	if (!myers(a, head, a->count - tail, b, head, b->count - tail, sc)) {
		push(sc, OP_DEL, a->count - tail - head);
		push(sc, OP_INS, b->count - tail - head);
	}
	push(sc, OP_EQ, tail);
}

/* One line with its prefix, and the marker when it is the file's last
 * line and lacks a newline. */
static void
put_line(struct sbuf *o, char prefix, const struct lines *l, size_t i)
{
	sbuf_addc(o, prefix);
	sbuf_add(o, l->s[i], l->n[i]);
	if (i + 1 == l->count && !l->last_nl)
		sbuf_adds(o, "\n\\ No newline at end of file\n");
}

/* `-start,count` as diff -u writes it: the count is left out when 1, and
 * an empty range names the line before it. */
static void
put_range(struct sbuf *o, char sign, size_t start, size_t count)
{
	if (count == 1)
		sbuf_addf(o, "%c%zu", sign, start + 1);
	else
		sbuf_addf(o, "%c%zu,%zu", sign, count == 0 ? start : start + 1,
		    count);
}

/* Emit ops [from, to) as one hunk; ai/bi are the line numbers at from. */
static void
put_hunk(struct sbuf *o, const struct script *sc, size_t from, size_t to,
    const struct lines *a, size_t ai, const struct lines *b, size_t bi)
{
	size_t na = 0, nb = 0, i, j;

	for (i = from; i < to; i++) {
		na += sc->ops[i] != OP_INS;
		nb += sc->ops[i] != OP_DEL;
	}
	sbuf_adds(o, "@@ ");
	put_range(o, '-', ai, na);
	sbuf_addc(o, ' ');
	put_range(o, '+', bi, nb);
	sbuf_adds(o, " @@\n");
	for (i = from; i < to;) {
		if (sc->ops[i] == OP_EQ) {
			put_line(o, ' ', a, ai++);
			bi++;
			i++;
			continue;
		}
		/* A change: its deletions, then its insertions. */
		for (j = i; j < to && sc->ops[j] != OP_EQ; j++)
			if (sc->ops[j] == OP_DEL)
				put_line(o, '-', a, ai++);
		for (j = i; j < to && sc->ops[j] != OP_EQ; j++)
			if (sc->ops[j] == OP_INS)
				put_line(o, '+', b, bi++);
		i = j;
	}
}

char *
render_udiff(const char *a, size_t alen, const char *b, size_t blen,
    const char *label_a, const char *label_b)
{
	struct lines la, lb;
	struct script sc = {0};
	struct sbuf o = {0};
	size_t i = 0, ai = 0, bi = 0;

	split(&la, a, alen);
	split(&lb, b, blen);
	diff_script(&la, &lb, &sc);
	sbuf_init(&o, RENDER_OUT_MAX);
	while (i < sc.n) {
		size_t start, end, eq = 0, k;

		for (; i < sc.n && sc.ops[i] == OP_EQ; i++, ai++, bi++)
			;
		if (i == sc.n)
			break;
		/* Back up over up to CONTEXT lines of context. */
		start = i;
		for (k = 0; k < CONTEXT && start > 0; k++, start--, ai--, bi--)
			;
		/* Extend while gaps of equal lines are at most 2 * CONTEXT. */
		for (end = i; end < sc.n; end++) {
			if (sc.ops[end] != OP_EQ) {
				eq = 0;
				continue;
			}
			if (++eq > 2 * CONTEXT) {
				eq--; /* the one at `end` is not in the hunk */
				break;
			}
		}
		end -= eq > CONTEXT ? eq - CONTEXT : 0;
		if (o.len == 0)
			sbuf_addf(&o, "--- %s\n+++ %s\n", label_a, label_b);
		put_hunk(&o, &sc, start, end, &la, ai, &lb, bi);
		for (k = start; k < end; k++) {
			ai += sc.ops[k] != OP_INS;
			bi += sc.ops[k] != OP_DEL;
		}
		i = end;
	}
	free(la.s);
	free(la.n);
	free(lb.s);
	free(lb.n);
	free(sc.ops);
	if (o.failed || o.len == 0) {
		sbuf_release(&o);
		return NULL;
	}
	return sbuf_take(&o);
}
