/* reconcile/plan/plan-comment.c: plan.md split into pull-request comment
 * bodies (plan.h, "pull-request comments"): the head into the first body,
 * then unit by unit (plan-comment-md.c says where a body may end), a unit
 * too large for a body chunk by chunk, the Approve section into the last;
 * more bodies than allowed become one that says so. The texts around the
 * bodies (markers, notes) are plan-comment-out.c's. */
#include "plan-int.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/sbuf.h"
#include "../../lib/xalloc.h"

/* ---- packing ---------------------------------------------------------- */

struct packer {
	const struct plan_md *d;
	const struct plan_comment_opts *o;
	size_t cap; /* bytes of a body's content, the marker left out */
	struct sbuf cur;
	struct plan_comment_part *parts;
	size_t n, alloc;
	bool fresh; /* cur holds nothing the body must not start with */
	char *first, *last;
	bool cut;
};

static void
note_actions(struct packer *pk, size_t a, size_t b)
{
	size_t i;

	for (i = a; i < b; i++) {
		if (!pk->d->lines[i].action)
			continue;
		free(pk->last);
		pk->last = plan_comment_md_heading(pk->d, i);
		if (pk->first == NULL)
			pk->first = xstrdup(pk->last);
	}
}

static void
add_lines(struct packer *pk, size_t a, size_t b)
{
	sbuf_add(&pk->cur, pk->d->text + pk->d->lines[a].off,
	    plan_comment_md_span(pk->d, a, b));
	note_actions(pk, a, b);
	pk->fresh = false;
}

/* Close the body being filled (if it holds anything) and start another. */
static void
flush(struct packer *pk)
{
	struct plan_comment_part *p;

	if (pk->cur.len == 0)
		return;
	xgrow(&pk->parts, &pk->alloc, pk->n + 1, sizeof(*pk->parts));
	p = &pk->parts[pk->n++];
	memset(p, 0, sizeof(*p));
	p->len = pk->cur.len;
	p->body = sbuf_take(&pk->cur);
	p->first_action = pk->first;
	p->last_action = pk->last;
	p->cut = pk->cut;
	pk->first = pk->last = NULL;
	pk->cut = false;
	sbuf_init(&pk->cur, SBUF_UNBOUNDED);
	pk->fresh = true;
}

static size_t
room(const struct packer *pk)
{
	return pk->cur.len >= pk->cap ? 0 : pk->cap - pk->cur.len;
}

/* Lines [a, b) cut to fit what is left of the body (room), with the
 * pointer to plan.md. */
static void
add_cut(struct packer *pk, size_t a, size_t b)
{
	char *s = plan_comment_cut(pk->d->text + pk->d->lines[a].off,
	    plan_comment_md_span(pk->d, a, b), room(pk), pk->o);

	sbuf_adds(&pk->cur, s);
	free(s);
	note_actions(pk, a, b);
	pk->fresh = false;
	pk->cut = true;
}

/* The heading the chunk at i belongs to, again at the top of a new body. */
static void
add_continued(struct packer *pk, size_t unit, size_t i)
{
	size_t h = unit, j;
	char *s;

	for (j = unit; j < i; j++)
		if (pk->d->lines[j].heading != 0)
			h = j;
	s = plan_comment_continued(pk->d->text + pk->d->lines[h].off,
	    pk->d->lines[h].len, pk->n, pk->cap);
	sbuf_adds(&pk->cur, s);
	free(s);
	note_actions(pk, h, h + 1);
}

/* A unit too large for a body of its own, chunk by chunk. */
static void
add_chunks(struct packer *pk, size_t a, size_t b)
{
	size_t i, e, len;

	for (i = a; i < b; i = e) {
		e = plan_comment_md_chunk_end(pk->d, i, b);
		len = plan_comment_md_span(pk->d, i, e);
		if (len > room(pk) && !pk->fresh) {
			flush(pk);
			if (i > a)
				add_continued(pk, a, i);
		}
		if (len <= room(pk))
			add_lines(pk, i, e);
		else
			add_cut(pk, i, e);
	}
}

/* A unit that fits in what is left of the body goes there, one that fits
 * in a body of its own to the next; a larger one starts here and is split
 * at its chunks. */
static void
add_unit(struct packer *pk, size_t a, size_t b)
{
	size_t len = plan_comment_md_span(pk->d, a, b);

	if (len > room(pk) && len <= pk->cap)
		flush(pk);
	if (len <= room(pk))
		add_lines(pk, a, b);
	else
		add_chunks(pk, a, b);
}

/* The bodies' contents, markers not yet added. */
static void
pack(struct packer *pk, size_t head_end, size_t tail)
{
	size_t i, e;

	sbuf_init(&pk->cur, SBUF_UNBOUNDED);
	pk->fresh = true;
	if (head_end > 0) {
		if (plan_comment_md_span(pk->d, 0, head_end) <= pk->cap)
			add_lines(pk, 0, head_end);
		else
			add_cut(pk, 0, head_end);
	}
	/* A unit may follow the head in the first body. */
	pk->fresh = pk->cur.len == 0;
	for (i = head_end; i < tail; i = e) {
		e = plan_comment_md_unit_end(pk->d, i, tail);
		add_unit(pk, i, e);
	}
	if (tail < pk->d->n) {
		if (plan_comment_md_span(pk->d, tail, pk->d->n) > room(pk))
			flush(pk);
		if (plan_comment_md_span(pk->d, tail, pk->d->n) <= room(pk))
			add_lines(pk, tail, pk->d->n);
		else
			add_cut(pk, tail, pk->d->n);
	}
	flush(pk);
}

/* ---- the bodies ------------------------------------------------------- */

/* More bodies than allowed: one body with the head, a note that says so
 * and points at the full plan.md, and the tail. */
static void
too_large(struct packer *pk, size_t head_end, size_t tail, size_t needed)
{
	char *counts = plan_comment_md_counts(pk->d, pk->cap / 4);
	char *note = plan_comment_too_large(needed, counts, pk->o);
	size_t keep = plan_comment_md_span(pk->d, tail, pk->d->n);
	size_t full = pk->cap;
	/* the note is bounded (URL, counts) well below a body's room */
	size_t avail = full > strlen(note) ? full - strlen(note) : 0;

	sbuf_init(&pk->cur, SBUF_UNBOUNDED);
	pk->fresh = true;
	if (keep > avail / 2)
		keep = avail / 2;
	pk->cap = avail - keep;
	if (head_end > 0) {
		if (plan_comment_md_span(pk->d, 0, head_end) <= pk->cap)
			add_lines(pk, 0, head_end);
		else
			add_cut(pk, 0, head_end);
	}
	sbuf_adds(&pk->cur, note);
	pk->cap = full;
	if (tail < pk->d->n) {
		if (plan_comment_md_span(pk->d, tail, pk->d->n) <= room(pk))
			add_lines(pk, tail, pk->d->n);
		else
			add_cut(pk, tail, pk->d->n);
	}
	flush(pk);
	free(note);
	free(counts);
}

static void
parts_release(struct plan_comment_part *parts, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(parts[i].body);
		free(parts[i].first_action);
		free(parts[i].last_action);
	}
	free(parts);
}

/* Each body behind its marker (and "Part I of N"). */
static void
frame(struct plan_comments *out, const struct plan_comment_opts *o)
{
	struct plan_comment_part *p;
	char *m, *body;
	size_t i;

	for (i = 0; i < out->n; i++) {
		p = &out->parts[i];
		m = plan_comment_frame(o, i + 1, out->n);
		body = xasprintf("%s%s", m, p->body);
		free(p->body);
		free(m);
		p->body = body;
		p->len = strlen(body);
	}
}

void
plan_comment_split(struct plan_comments *out, const char *md,
    const struct plan_comment_opts *o)
{
	struct packer pk;
	struct plan_md d;
	size_t head_end, tail;

	memset(out, 0, sizeof(*out));
	plan_comment_md_parse(&d, md);
	plan_comment_md_bounds(&d, &head_end, &tail);
	memset(&pk, 0, sizeof(pk));
	pk.d = &d;
	pk.o = o;
	pk.cap = o->limit - plan_comment_reserve(o);
	pack(&pk, head_end, tail);
	out->needed = pk.n;
	if (pk.n > o->max_comments) {
		parts_release(pk.parts, pk.n);
		pk.parts = NULL;
		pk.n = pk.alloc = 0;
		too_large(&pk, head_end, tail, out->needed);
		out->too_large = true;
	}
	sbuf_release(&pk.cur);
	out->parts = pk.parts;
	out->n = pk.n;
	out->marker_prefix = plan_comment_marker_prefix(o);
	frame(out, o);
	plan_comment_md_release(&d);
}

void
plan_comments_release(struct plan_comments *c)
{
	if (c == NULL)
		return;
	parts_release(c->parts, c->n);
	free(c->marker_prefix);
	memset(c, 0, sizeof(*c));
}
