/* lib/json.h: the project's one JSON tree reader, the only user of cJSON.
 *
 * A text is read with lib/jsonr (the strict reader recorded snapshots go
 * through: RFC 8259, valid UTF-8, at most JSONR_DEPTH levels, one value
 * and nothing after it, a syntax error at its line and column) into a
 * tree of cJSON nodes that lives in one document; cJSON's own parser is
 * not used. Duplicate keys in an object are refused too. Every JSON the
 * project reads whole goes through here: Jolokia replies, plan.json,
 * inventory.json, approval.json.
 *
 * A `const struct json *` is a value inside a document, borrowed from it
 * until json_doc_free. Every function taking one accepts NULL (a missing
 * member): the type tests are false for it, the lookups return NULL.
 */
#ifndef LIB_JSON_H
#define LIB_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "jsonr.h"

struct json_doc; /* a parsed document, owned */
struct json;     /* a value in a document, borrowed */

/* Parse text (len bytes; strings may be as long as the text) into *out,
 * owned by the caller. On failure *out is untouched and err holds
 * `path:line:col: not valid JSON: <why>` (or `duplicate key 'k'`). */
int json_parse(struct json_doc **out, const char *path, const char *text,
    size_t len, struct err *err);
/* The one value of r (lib/jsonr.h) whose first token first was just
 * pulled, and nothing more, into *out (the reader is left after it): a
 * part of a stream read whole. Errors as json_parse's, at r's positions;
 * the reader is stopped then. */
int json_parse_next(struct json_doc **out, struct jsonr *r,
    enum jsonr_tok first, const char *path, struct err *err);
void json_doc_free(struct json_doc *doc); /* NULL is a no-op */
const struct json *json_doc_root(const struct json_doc *doc);

bool json_is_object(const struct json *v);
bool json_is_array(const struct json *v);
bool json_is_string(const struct json *v);
bool json_is_number(const struct json *v);
bool json_is_bool(const struct json *v);
bool json_is_null(const struct json *v);

/* The member key of object o; NULL when absent or o is not an object. */
const struct json *json_get(const struct json *o, const char *key);
/* Elements of an array, members of an object; 0 for anything else. */
size_t json_size(const struct json *v);
/* The first element (member) of an array (object), then the next one, in
 * document order; NULL past the last and for other values:
 *   for (it = json_first(a); it != NULL; it = json_next(it))  */
const struct json *json_first(const struct json *v);
const struct json *json_next(const struct json *v);
/* The key of an object member; NULL for anything else. */
const char *json_key(const struct json *member);

/* The text of a string (borrowed); NULL when v is not a string. */
const char *json_str(const struct json *v);
/* An integral number, exactly: written as an integer within int64, or
 * (1e3, 2.0) as a number whose double is integral and within 2^53.
 * 0, or -1 (*out untouched) for anything else. */
int json_int(const struct json *v, int64_t *out);
/* 0 with *out, or -1 when v is not true or false. */
int json_bool(const struct json *v, bool *out);

/* The value as compact JSON (members in document order); owned. */
char *json_render(const struct json *v);

/* ---- strict member readers ---------------------------------------------
 * For a file of our own (plan.json): each reads member key of object o,
 * whose JSON path is where ("" at the top, "actions[0]", ...), and on a
 * problem records `path: where.key: problem` in the reader's err (the
 * first one only) and returns -1 (or NULL). Strings are copied, owned by
 * the caller; *out and *n are written only on success, except as
 * json_read_strings says. */
struct json_reader {
	const char *path; /* the file, for messages */
	struct err *err;
};

/* Record `path: where.key: what`; returns -1. */
int json_read_fail(struct json_reader *c, const char *where, const char *key,
    const char *what);
/* The member, or NULL with "missing" recorded. */
const struct json *json_read_member(struct json_reader *c, const struct json *o,
    const char *where, const char *key);
/* A string; null too (giving NULL) when nullable. */
int json_read_str(struct json_reader *c, const struct json *o,
    const char *where, const char *key, bool nullable, char **out);
/* An optional string: absent gives NULL. */
int json_read_optional(struct json_reader *c, const struct json *o,
    const char *where, const char *key, char **out);
/* An integer as json_int reads it. */
int json_read_int(struct json_reader *c, const struct json *o,
    const char *where, const char *key, int64_t *out);
int json_read_bool(struct json_reader *c, const struct json *o,
    const char *where, const char *key, bool *out);
/* An array and its size (*n); NULL on a problem. */
const struct json *json_read_array(struct json_reader *c, const struct json *o,
    const char *where, const char *key, size_t *n);
/* An object, or (when nullable) null; NULL on a problem. */
const struct json *json_read_object(struct json_reader *c, const struct json *o,
    const char *where, const char *key, bool nullable);
/* An array of strings: *out (n + 1 slots, NULL-terminated) and *n. On a
 * problem *out and *n still hold the strings read so far, for the caller
 * to free with its half-built object. */
int json_read_strings(struct json_reader *c, const struct json *o,
    const char *where, const char *key, char ***out, size_t *n);

#endif
