/* lib/jsonw.h: a small streaming JSON writer into a struct sbuf.
 *
 * The project's one JSON writer (lib/json.h and lib/jsonr.h read). Output
 * is canonical where it must be: the caller writes object keys in sorted
 * order; the writer adds commas, escapes strings (control bytes as \u00XX,
 * non-ASCII UTF-8 passed through) and, with indent > 0, pretty-prints.
 */
#ifndef LIB_JSONW_H
#define LIB_JSONW_H

#include <stdbool.h>
#include <stdint.h>

#include "sbuf.h"

#define JSONW_DEPTH 64

struct jsonw {
	struct sbuf *out;
	int indent; /* spaces per level; 0 = compact */
	int depth;
	bool first[JSONW_DEPTH];
	bool after_key;
};

void jsonw_init(struct jsonw *w, struct sbuf *out, int indent);
void jsonw_obj_begin(struct jsonw *w);
void jsonw_obj_end(struct jsonw *w);
void jsonw_arr_begin(struct jsonw *w);
void jsonw_arr_end(struct jsonw *w);
void jsonw_key(struct jsonw *w, const char *key);
void jsonw_str(struct jsonw *w, const char *s); /* NULL writes null */
void jsonw_int(struct jsonw *w, int64_t v);
void jsonw_bool(struct jsonw *w, bool v);
void jsonw_null(struct jsonw *w);
/* A member: key, then its value (the three calls above in one). */
void jsonw_key_str(struct jsonw *w, const char *key, const char *s);
void jsonw_key_int(struct jsonw *w, const char *key, int64_t v);
void jsonw_key_bool(struct jsonw *w, const char *key, bool v);
/* A member whose value is an array of the n strings of v. */
void jsonw_key_strs(struct jsonw *w, const char *key, char *const *v, size_t n);
/* A boolean that may be unknown: v < 0 writes null, 0 false, else true. */
void jsonw_key_bool_opt(struct jsonw *w, const char *key, int v);
/* A value that is JSON text already (one value, e.g. a row of a JSON
 * Lines file the caller has parsed), written as it is, with the
 * separator before it. */
void jsonw_raw(struct jsonw *w, const char *json);
/* Append s as a quoted JSON string to out (no separators). */
void jsonw_quote(struct sbuf *out, const char *s);

#endif
