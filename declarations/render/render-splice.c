/* declarations/render/render-splice.c: byte offsets of elements in XML text.
 *
 * libxml2 keeps line numbers but no byte offsets, and a round trip through
 * its tree rewrites attribute quotes, whitespace inside tags and character
 * references. The renderer therefore finds the elements it replaces with
 * this scan over the original bytes and splices there; libxml2 has already
 * parsed the same text, so the scan can rely on well-formedness.
 */
#include "render-int.h"

#include <string.h>

static bool
has_prefix(const char *text, size_t len, size_t i, const char *lit)
{
	size_t n = strlen(lit);

	return len - i >= n && memcmp(text + i, lit, n) == 0;
}

/* Offset just past the first `term` at or after i; 0 when there is none
 * (0 can never be a valid answer: a term is found after an opener). */
static size_t
past(const char *text, size_t len, size_t i, const char *term)
{
	const char *p;
	size_t n = strlen(term);

	if (i > len)
		return 0;
	p = memmem(text + i, len - i, term, n);
	if (p == NULL)
		return 0;
	return (size_t)(p - text) + n;
}

/* Offset just past the '>' closing the tag whose name starts at i;
 * quoted attribute values may contain '>'. 0 when unterminated. */
static size_t
tag_end(const char *text, size_t len, size_t i)
{
	char quote = 0;

	for (; i < len; i++) {
		if (quote != 0) {
			if (text[i] == quote)
				quote = 0;
		} else if (text[i] == '"' || text[i] == '\'') {
			quote = text[i];
		} else if (text[i] == '>') {
			return i + 1;
		}
	}
	return 0;
}

/* Offset just past the DOCTYPE declaration at i: quoted strings and an
 * internal subset in brackets may hold '>'. 0 when unterminated. */
static size_t
doctype_end(const char *text, size_t len, size_t i)
{
	char quote = 0;
	int depth = 0;

	for (; i < len; i++) {
		if (quote != 0) {
			if (text[i] == quote)
				quote = 0;
		} else if (text[i] == '"' || text[i] == '\'') {
			quote = text[i];
		} else if (text[i] == '[') {
			depth++;
		} else if (text[i] == ']') {
			depth--;
		} else if (text[i] == '>' && depth == 0) {
			return i + 1;
		}
	}
	return 0;
}

/* Skip the comment, CDATA section, PI or DOCTYPE at i (is_misc). Returns
 * the offset past it, or 0 when it is unterminated or another markup
 * declaration. */
static size_t
skip_misc(const char *text, size_t len, size_t i)
{
	if (has_prefix(text, len, i, "<!DOCTYPE"))
		return doctype_end(text, len, i + 9);
	if (has_prefix(text, len, i, "<!--"))
		return past(text, len, i + 4, "-->");
	if (has_prefix(text, len, i, "<![CDATA["))
		return past(text, len, i + 9, "]]>");
	if (has_prefix(text, len, i, "<?"))
		return past(text, len, i + 2, "?>");
	return 0;
}

static bool
is_misc(const char *text, size_t len, size_t i)
{
	return has_prefix(text, len, i, "<!") || has_prefix(text, len, i, "<?");
}

struct walk {
	const size_t *path;
	size_t depth;
	size_t open;    /* elements open at the scan position */
	size_t matched; /* levels of the path open (document element = 1) */
	size_t seen;    /* children of the last matched element seen so far */
	bool found;
	struct xml_span span;
};

/* A start tag [i, gt). Returns 1 when it completes the search, 0 to go on,
 * -1 when the path cannot be followed. */
static int
walk_start(struct walk *w, size_t i, size_t gt, bool empty)
{
	bool hit;

	if (w->found || w->open != w->matched) {
		if (!empty)
			w->open++;
		return 0;
	}
	hit = w->matched == 0 || w->seen == w->path[w->matched - 1];
	if (w->matched > 0 && !hit) {
		w->seen++;
		if (!empty)
			w->open++;
		return 0;
	}
	w->matched++;
	w->seen = 0;
	if (w->matched == w->depth + 1) {
		w->found = true;
		w->span.start = i;
		w->span.stag_end = gt;
		w->span.empty = empty;
		if (empty) {
			w->span.etag_start = gt;
			w->span.end = gt;
			return 1;
		}
	} else if (empty) {
		return -1;
	}
	w->open++;
	return 0;
}

/* An end tag [i, gt). Same results as walk_start. */
static int
walk_end(struct walk *w, size_t i, size_t gt)
{
	if (w->open == 0)
		return -1;
	w->open--;
	if (w->found && w->open == w->depth) {
		w->span.etag_start = i;
		w->span.end = gt;
		return 1;
	}
	if (!w->found && w->open < w->matched)
		return -1;
	return 0;
}

int
render_xml_locate(const char *text, size_t len, const size_t *path,
    size_t depth, struct xml_span *out)
{
	struct walk w = {.path = path, .depth = depth};
	size_t i = 0, next, gt;
	int rc;

	for (;;) {
		const char *lt;

		lt = i < len ? memchr(text + i, '<', len - i) : NULL;
		if (lt == NULL)
			return -1;
		i = (size_t)(lt - text);
		if (is_misc(text, len, i)) {
			next = skip_misc(text, len, i);
			if (next == 0)
				return -1;
			i = next;
			continue;
		}
		if (has_prefix(text, len, i, "</")) {
			gt = past(text, len, i + 2, ">");
			rc = gt == 0 ? -1 : walk_end(&w, i, gt);
		} else {
			gt = tag_end(text, len, i + 1);
			rc = gt == 0
			         ? -1
			         : walk_start(&w, i, gt, text[gt - 2] == '/');
		}
		if (rc < 0)
			return -1;
		if (rc > 0) {
			*out = w.span;
			return 0;
		}
		i = gt;
	}
}

size_t
render_line_indent(const char *text, size_t off, size_t *start)
{
	size_t s = off;

	while (s > 0 && text[s - 1] != '\n') {
		if (text[s - 1] != ' ' && text[s - 1] != '\t')
			return (size_t)-1;
		s--;
	}
	*start = s;
	return off - s;
}
