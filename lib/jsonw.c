#include "jsonw.h"

#include <inttypes.h>
#include <string.h>

void
jsonw_init(struct jsonw *w, struct sbuf *out, int indent)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
	w->indent = indent;
	w->first[0] = true;
}

static void
newline(struct jsonw *w)
{
	int i;

	if (w->indent <= 0)
		return;
	sbuf_addc(w->out, '\n');
	for (i = 0; i < w->depth * w->indent; i++)
		sbuf_addc(w->out, ' ');
}

/* Separator before a value (or a key) at the current level. */
static void
sep(struct jsonw *w)
{
	if (w->after_key) {
		w->after_key = false;
		return;
	}
	if (w->depth > 0) {
		if (!w->first[w->depth])
			sbuf_addc(w->out, ',');
		newline(w);
	}
	w->first[w->depth] = false;
}

static void
open_(struct jsonw *w, char c)
{
	sep(w);
	sbuf_addc(w->out, c);
	if (w->depth + 1 < JSONW_DEPTH)
		w->depth++;
	w->first[w->depth] = true;
}

static void
close_(struct jsonw *w, char c)
{
	bool empty = w->first[w->depth];

	if (w->depth > 0)
		w->depth--;
	if (!empty)
		newline(w);
	sbuf_addc(w->out, c);
}

void
jsonw_obj_begin(struct jsonw *w)
{
	open_(w, '{');
}

void
jsonw_obj_end(struct jsonw *w)
{
	close_(w, '}');
}

void
jsonw_arr_begin(struct jsonw *w)
{
	open_(w, '[');
}

void
jsonw_arr_end(struct jsonw *w)
{
	close_(w, ']');
}

void
jsonw_quote(struct sbuf *out, const char *s)
{
	const unsigned char *p;

	sbuf_addc(out, '"');
	for (p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':
			sbuf_adds(out, "\\\"");
			break;
		case '\\':
			sbuf_adds(out, "\\\\");
			break;
		case '\n':
			sbuf_adds(out, "\\n");
			break;
		case '\r':
			sbuf_adds(out, "\\r");
			break;
		case '\t':
			sbuf_adds(out, "\\t");
			break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				sbuf_addf(out, "\\u%04x", *p);
			else
				sbuf_addc(out, (char)*p);
		}
	}
	sbuf_addc(out, '"');
}

void
jsonw_key(struct jsonw *w, const char *key)
{
	sep(w);
	jsonw_quote(w->out, key);
	sbuf_adds(w->out, w->indent > 0 ? ": " : ":");
	w->after_key = true;
}

void
jsonw_str(struct jsonw *w, const char *s)
{
	if (s == NULL) {
		jsonw_null(w);
		return;
	}
	sep(w);
	jsonw_quote(w->out, s);
}

void
jsonw_int(struct jsonw *w, int64_t v)
{
	sep(w);
	sbuf_addf(w->out, "%" PRId64, v);
}

void
jsonw_bool(struct jsonw *w, bool v)
{
	sep(w);
	sbuf_adds(w->out, v ? "true" : "false");
}

void
jsonw_null(struct jsonw *w)
{
	sep(w);
	sbuf_adds(w->out, "null");
}
