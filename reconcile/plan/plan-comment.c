/* reconcile/plan/plan-comment.c: plan.md split into pull-request comment
 * bodies (plan.h, "pull-request comments"). plan.md is read as lines: which
 * lie in a fenced code block or a table, which are headings and top-level
 * list items. Sections start at headings of level 1 to 3; a body may end
 * only before one of them (an action, a broker.xml node, a part of the
 * plan) or, inside a section too large for a body, before a top-level list
 * item (a node), a level-4 heading or a fence or paragraph at the margin,
 * never inside a fence or a table. The texts around the bodies (markers,
 * notes) are plan-comment-out.c's. */
#include "plan-int.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/sbuf.h"
#include "../../lib/xalloc.h"

struct md_line {
	size_t off, len; /* the line with its '\n' */
	bool item;       /* a break inside a section may come before it */
	int heading;     /* 1-6 outside fences, else 0 */
	bool action;     /* "### N. ..." */
};

struct md {
	const char *text;
	struct md_line *lines;
	size_t n;
};

static int
heading_level(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len && i < 7 && s[i] == '#')
		i++;
	return i >= 1 && i <= 6 && i < len && s[i] == ' ' ? (int)i : 0;
}

static bool
is_blank(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r')
			return false;
	return true;
}

/* "### 12. kind `name`": an action's heading. */
static bool
is_action(const char *s, size_t len, int level)
{
	size_t i = 4;

	if (level != 3 || len < 7 || s[i] < '0' || s[i] > '9')
		return false;
	while (i < len && s[i] >= '0' && s[i] <= '9')
		i++;
	return i + 1 < len && s[i] == '.' && s[i + 1] == ' ';
}

/* One line's flags: in_fence and prev_table carry the state of the lines
 * before it. */
static void
classify(struct md_line *l, const char *s, bool *in_fence,
    struct plan_md_fence *f, bool *prev_table, bool prev_blank)
{
	struct plan_md_fence g = {0, 0, 0};
	bool table, safe, opens;

	if (*in_fence) {
		if (plan_comment_fence_closes(s, l->len, f))
			*in_fence = false;
		*prev_table = false;
		return;
	}
	table = l->len > 0 && s[0] == '|';
	safe = !(table && *prev_table);
	*prev_table = table;
	l->heading = heading_level(s, l->len);
	l->action = is_action(s, l->len, l->heading);
	opens = plan_comment_fence(s, l->len, &g) > 0;
	if (opens) {
		*in_fence = true;
		*f = g;
	}
	l->item =
	    safe && !is_blank(s, l->len) &&
	    (l->heading >= 4 || (s[0] == '-' && l->len > 1 && s[1] == ' ') ||
	        (opens && g.indent == 0) ||
	        (prev_blank && s[0] != ' ' && s[0] != '\t'));
}

static void
md_parse(struct md *d, const char *text)
{
	struct plan_md_fence f = {0, 0, 0};
	bool in_fence = false, prev_table = false, prev_blank = true;
	size_t off = 0, cap = 0, len;
	const char *nl;

	memset(d, 0, sizeof(*d));
	d->text = text;
	while (text[off] != '\0') {
		nl = strchr(text + off, '\n');
		len = nl != NULL ? (size_t)(nl - text - (ptrdiff_t)off) + 1
		                 : strlen(text + off);
		xgrow(&d->lines, &cap, d->n + 1, sizeof(*d->lines));
		memset(&d->lines[d->n], 0, sizeof(*d->lines));
		d->lines[d->n].off = off;
		d->lines[d->n].len = len;
		classify(&d->lines[d->n], text + off, &in_fence, &f,
		    &prev_table, prev_blank);
		prev_blank = is_blank(text + off, len);
		d->n++;
		off += len;
	}
}

/* Bytes of lines [a, b). */
static size_t
span(const struct md *d, size_t a, size_t b)
{
	if (a >= b)
		return 0;
	return d->lines[b - 1].off + d->lines[b - 1].len - d->lines[a].off;
}

/* The next section start (a heading of level 1-3) at or after i. */
static size_t
next_section(const struct md *d, size_t i)
{
	while (
	    i < d->n && (d->lines[i].heading == 0 || d->lines[i].heading > 3))
		i++;
	return i;
}

static bool
line_is(const struct md *d, size_t i, const char *s)
{
	size_t n = strlen(s);

	return i < d->n && d->lines[i].len >= n &&
	       memcmp(d->text + d->lines[i].off, s, n) == 0 &&
	       (d->lines[i].len == n || d->text[d->lines[i].off + n] == '\n');
}

/* The head ends at the first level-2 section other than the declaration's
 * diagnostics and the Nodes table; the tail starts at "## Approve". */
static void
md_bounds(const struct md *d, size_t *head_end, size_t *tail)
{
	size_t i;

	*head_end = *tail = d->n;
	for (i = next_section(d, 0); i < d->n; i = next_section(d, i + 1))
		if (d->lines[i].heading == 2 &&
		    !line_is(d, i, "## Declaration diagnostics") &&
		    !line_is(d, i, "## Nodes")) {
			*head_end = i;
			break;
		}
	for (i = *head_end; i < d->n; i = next_section(d, i + 1))
		if (line_is(d, i, "## Approve")) {
			*tail = i;
			break;
		}
}

/* The end of the unit starting at i (< end): a section, and a level-2
 * section together with the one after it, so that a part's heading never
 * ends a body. */
static size_t
unit_end(const struct md *d, size_t i, size_t end)
{
	size_t e = next_section(d, i + 1);

	if (d->lines[i].heading <= 2 && e < end)
		e = next_section(d, e + 1);
	return e < end ? e : end;
}

/* The end of the chunk starting at i inside a unit ending at end: the next
 * item break, past the first non-blank line after a heading. */
static size_t
chunk_end(const struct md *d, size_t i, size_t end)
{
	bool body = d->lines[i].heading == 0;
	size_t j;

	for (j = i + 1; j < end; j++) {
		if (body && (d->lines[j].item || d->lines[j].heading != 0))
			return j;
		if (d->lines[j].heading == 0 &&
		    !is_blank(d->text + d->lines[j].off, d->lines[j].len))
			body = true;
	}
	return end;
}

/* ---- packing ---------------------------------------------------------- */

struct packer {
	const struct md *d;
	const struct plan_comment_opts *o;
	size_t cap; /* bytes of a body's content, the marker left out */
	struct sbuf cur;
	struct plan_comment_part *parts;
	size_t n, alloc;
	bool fresh; /* cur holds nothing the body must not start with */
	char *first, *last;
	bool cut;
};

static char *
heading_text(const struct md *d, size_t i)
{
	const struct md_line *l = &d->lines[i];
	size_t skip = (size_t)l->heading + 1;
	size_t n = l->len - skip - (d->text[l->off + l->len - 1] == '\n');

	return xstrndup(d->text + l->off + skip, n);
}

static void
note_actions(struct packer *pk, size_t a, size_t b)
{
	size_t i;

	for (i = a; i < b; i++) {
		if (!pk->d->lines[i].action)
			continue;
		free(pk->last);
		pk->last = heading_text(pk->d, i);
		if (pk->first == NULL)
			pk->first = xstrdup(pk->last);
	}
}

static void
add_lines(struct packer *pk, size_t a, size_t b)
{
	sbuf_add(&pk->cur, pk->d->text + pk->d->lines[a].off,
	    span(pk->d, a, b));
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
	    span(pk->d, a, b), room(pk), pk->o);

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
		e = chunk_end(pk->d, i, b);
		len = span(pk->d, i, e);
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
	size_t len = span(pk->d, a, b);

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
		if (span(pk->d, 0, head_end) <= pk->cap)
			add_lines(pk, 0, head_end);
		else
			add_cut(pk, 0, head_end);
	}
	/* A unit may follow the head in the first body. */
	pk->fresh = pk->cur.len == 0;
	for (i = head_end; i < tail; i = e) {
		e = unit_end(pk->d, i, tail);
		add_unit(pk, i, e);
	}
	if (tail < pk->d->n) {
		if (span(pk->d, tail, pk->d->n) > room(pk))
			flush(pk);
		if (span(pk->d, tail, pk->d->n) <= room(pk))
			add_lines(pk, tail, pk->d->n);
		else
			add_cut(pk, tail, pk->d->n);
	}
	flush(pk);
}

/* ---- the bodies ------------------------------------------------------- */

#define DESTROYS_SHOWN 20 /* actions that destroy messages, listed */

/* A kind seen in the action headings, and how often. */
static void
count_kind(struct strv *kinds, size_t **counts, size_t *cap, const char *s,
    size_t n)
{
	size_t k;

	for (k = 0; k < kinds->n; k++)
		if (strlen(kinds->v[k]) == n && memcmp(kinds->v[k], s, n) == 0)
			break;
	if (k == kinds->n) {
		strv_addf(kinds, "%.*s", (int)n, s);
		xgrow(counts, cap, kinds->n, sizeof(**counts));
		(*counts)[k] = 0;
	}
	(*counts)[k]++;
}

/* "plan.md shows 3 actions: 2 create-queue, 1 delete-queue.", then the
 * actions that destroy messages, from the headings. Owned. */
static char *
action_counts(const struct md *d)
{
	static const char destroys[] = "— **destroys messages**";
	struct strv kinds = {0}, lost = {0};
	size_t *counts = NULL, cap = 0, i, k, total = 0;
	const char *s;
	struct sbuf b = {0};

	for (i = 0; i < d->n; i++) {
		if (!d->lines[i].action)
			continue;
		s = strchr(d->text + d->lines[i].off + 4, ' ') + 1;
		count_kind(&kinds, &counts, &cap, s, strcspn(s, " \n"));
		total++;
		if (memmem(d->text + d->lines[i].off, d->lines[i].len, destroys,
		        sizeof(destroys) - 1) != NULL)
			strv_addf(&lost, "%.*s", (int)d->lines[i].len - 5,
			    d->text + d->lines[i].off + 4);
	}
	sbuf_addf(&b, "plan.md shows %zu action%s", total,
	    total == 1 ? "" : "s");
	for (k = 0; k < kinds.n; k++)
		sbuf_addf(&b, "%s%zu %s", k == 0 ? ": " : ", ", counts[k],
		    kinds.v[k]);
	sbuf_adds(&b, ".\n");
	if (lost.n > 0)
		sbuf_addf(&b, "\n%zu of them destroy%s messages:\n\n", lost.n,
		    lost.n == 1 ? "s" : "");
	for (k = 0; k < lost.n && k < DESTROYS_SHOWN; k++)
		sbuf_addf(&b, "- %s\n", lost.v[k]);
	if (lost.n > DESTROYS_SHOWN)
		sbuf_addf(&b, "- and %zu more\n", lost.n - DESTROYS_SHOWN);
	free(counts);
	strv_release(&kinds);
	strv_release(&lost);
	return sbuf_take(&b);
}

/* More bodies than allowed: one body with the head, a note that says so
 * and points at the full plan.md, and the tail. */
static void
too_large(struct packer *pk, size_t head_end, size_t tail, size_t needed)
{
	char *counts = action_counts(pk->d);
	char *note = plan_comment_too_large(needed, counts, pk->o);
	size_t keep = span(pk->d, tail, pk->d->n);
	size_t full = pk->cap;

	sbuf_init(&pk->cur, SBUF_UNBOUNDED);
	pk->fresh = true;
	if (keep > (full - strlen(note)) / 2)
		keep = (full - strlen(note)) / 2;
	pk->cap = full - strlen(note) - keep;
	if (head_end > 0) {
		if (span(pk->d, 0, head_end) <= pk->cap)
			add_lines(pk, 0, head_end);
		else
			add_cut(pk, 0, head_end);
	}
	sbuf_adds(&pk->cur, note);
	pk->cap = full;
	if (tail < pk->d->n) {
		if (span(pk->d, tail, pk->d->n) <= room(pk))
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
	struct md d;
	size_t head_end, tail;

	memset(out, 0, sizeof(*out));
	md_parse(&d, md);
	md_bounds(&d, &head_end, &tail);
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
	free(d.lines);
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
