/* reconcile/plan/plan-comment-md.c: plan.md read as lines for the comment
 * splitter (plan-comment.c): which lie in a fenced code block or a table,
 * which are headings (an action's "### N. ..."), top-level list items,
 * and where a body may end. Sections start at headings of level 1 to 3; a
 * body may end only before one of them or, inside a section too large for
 * a body, before a top-level list item (a node), a level-4 heading or a
 * fence or paragraph at the margin, never inside a fence or a table. */
#include "plan-int.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/sbuf.h"
#include "../../lib/strv.h"
#include "../../lib/xalloc.h"

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
classify(struct plan_md_line *l, const char *s, bool *in_fence,
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

void
plan_comment_md_parse(struct plan_md *d, const char *text)
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
size_t
plan_comment_md_span(const struct plan_md *d, size_t a, size_t b)
{
	if (a >= b)
		return 0;
	return d->lines[b - 1].off + d->lines[b - 1].len - d->lines[a].off;
}

/* The next section start (a heading of level 1-3) at or after i. */
static size_t
next_section(const struct plan_md *d, size_t i)
{
	while (
	    i < d->n && (d->lines[i].heading == 0 || d->lines[i].heading > 3))
		i++;
	return i;
}

static bool
line_is(const struct plan_md *d, size_t i, const char *s)
{
	size_t n = strlen(s);

	return i < d->n && d->lines[i].len >= n &&
	       memcmp(d->text + d->lines[i].off, s, n) == 0 &&
	       (d->lines[i].len == n || d->text[d->lines[i].off + n] == '\n');
}

/* The head ends at the first level-2 section other than the declaration's
 * diagnostics and the Nodes table; the tail starts at "## Approve". */
void
plan_comment_md_bounds(const struct plan_md *d, size_t *head_end, size_t *tail)
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
size_t
plan_comment_md_unit_end(const struct plan_md *d, size_t i, size_t end)
{
	size_t e = next_section(d, i + 1);

	if (d->lines[i].heading <= 2 && e < end)
		e = next_section(d, e + 1);
	return e < end ? e : end;
}

/* The end of the chunk starting at i inside a unit ending at end: the next
 * item break, past the first non-blank line after a heading. */
size_t
plan_comment_md_chunk_end(const struct plan_md *d, size_t i, size_t end)
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

char *
plan_comment_md_heading(const struct plan_md *d, size_t i)
{
	const struct plan_md_line *l = &d->lines[i];
	size_t skip = (size_t)l->heading + 1;
	size_t n = l->len - skip - (d->text[l->off + l->len - 1] == '\n');

	return xstrndup(d->text + l->off + skip, n);
}

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
char *
plan_comment_md_counts(const struct plan_md *d, size_t max)
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
	for (k = 0; k < lost.n && k < DESTROYS_SHOWN &&
	            b.len + strlen(lost.v[k]) + 40 <= max;
	     k++)
		sbuf_addf(&b, "- %s\n", lost.v[k]);
	if (k < lost.n)
		sbuf_addf(&b, "- and %zu more\n", lost.n - k);
	free(counts);
	strv_release(&kinds);
	strv_release(&lost);
	return sbuf_take(&b);
}

void
plan_comment_md_release(struct plan_md *d)
{
	free(d->lines);
	memset(d, 0, sizeof(*d));
}
