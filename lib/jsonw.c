#include "jsonw.h"

#include <inttypes.h>
#include <stdio.h>
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

	static const char spaces[] = "                                ";
	int n;

	if (w->indent <= 0)
		return;
	sbuf_addc(w->out, '\n');
	for (i = w->depth * w->indent; i > 0; i -= n) {
		n = i < (int)sizeof(spaces) - 1 ? i : (int)sizeof(spaces) - 1;
		sbuf_add(w->out, spaces, (size_t)n);
	}
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
	const unsigned char *p = (const unsigned char *)s, *run;
	char esc[8];

	sbuf_addc(out, '"');
	for (;;) {
		/* The longest run that needs no escape, added at once. */
		for (run = p; *p != '\0' && *p != '"' && *p != '\\' &&
		              *p >= 0x20 && *p != 0x7f;
		     p++)
			;
		if (p > run)
			sbuf_add(out, run, (size_t)(p - run));
		if (*p == '\0')
			break;
		switch (*p) {
		case '"':
			sbuf_add(out, "\\\"", 2);
			break;
		case '\\':
			sbuf_add(out, "\\\\", 2);
			break;
		case '\n':
			sbuf_add(out, "\\n", 2);
			break;
		case '\r':
			sbuf_add(out, "\\r", 2);
			break;
		case '\t':
			sbuf_add(out, "\\t", 2);
			break;
		default:
			(void)snprintf(esc, sizeof(esc), "\\u%04x", *p);
			sbuf_add(out, esc, 6);
		}
		p++;
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
	char num[24];
	int n = snprintf(num, sizeof(num), "%" PRId64, v);

	sep(w);
	sbuf_add(w->out, num, (size_t)n);
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

void
jsonw_key_str(struct jsonw *w, const char *key, const char *s)
{
	jsonw_key(w, key);
	jsonw_str(w, s);
}

void
jsonw_key_strs(struct jsonw *w, const char *key, char *const *v, size_t n)
{
	size_t i;

	jsonw_key(w, key);
	jsonw_arr_begin(w);
	for (i = 0; i < n; i++)
		jsonw_str(w, v[i]);
	jsonw_arr_end(w);
}

void
jsonw_key_int(struct jsonw *w, const char *key, int64_t v)
{
	jsonw_key(w, key);
	jsonw_int(w, v);
}

void
jsonw_key_bool(struct jsonw *w, const char *key, bool v)
{
	jsonw_key(w, key);
	jsonw_bool(w, v);
}

void
jsonw_key_bool_opt(struct jsonw *w, const char *key, int v)
{
	jsonw_key(w, key);
	if (v < 0)
		jsonw_null(w);
	else
		jsonw_bool(w, v != 0);
}

void
jsonw_raw(struct jsonw *w, const char *json)
{
	sep(w);
	sbuf_adds(w->out, json);
}
