/* lib/jsonr.h: a strict pull reader of JSON (RFC 8259), from memory or
 * from a file descriptor through a fixed buffer.
 *
 * It holds one token at a time, so a reader's memory does not grow with
 * the input: it is what lets a recorded snapshot of hundreds of megabytes
 * be read without its text or a DOM in memory
 * (reconcile/live/snapshot-parse.c). The grammar is checked as tokens are
 * pulled (commas, colons, nesting, one top-level value, nothing after it); a
 * syntax error stops the reader and names the line and column (in bytes). A
 * leading UTF-8 byte order mark is skipped. Strings are decoded to UTF-8 and
 * must be valid UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing past
 * U+10FFFF), as RFC 8259 8.1 asks; "\u0000" is refused (names are C strings),
 * and so is a string over the cap (JSONR_STR_MAX unless jsonr_set_str_max
 * says). A number past the range of a double (1e400) is refused, not read as
 * infinity.
 */
#ifndef LIB_JSONR_H
#define LIB_JSONR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sbuf.h"

#define JSONR_DEPTH   64
#define JSONR_STR_MAX ((size_t)1 << 20) /* bytes of one string or key */

enum jsonr_tok {
	JSONR_ERROR = -1, /* see jsonr.error; the reader stays stopped */
	JSONR_END = 0,    /* the top-level value is complete */
	JSONR_OBJ_BEGIN,
	JSONR_OBJ_END,
	JSONR_ARR_BEGIN,
	JSONR_ARR_END,
	JSONR_KEY, /* text in jsonr.str */
	JSONR_STR, /* text in jsonr.str */
	JSONR_NUM, /* jsonr.num; jsonr.is_int and jsonr.inum when integral */
	JSONR_TRUE,
	JSONR_FALSE,
	JSONR_NULL,
};

/* A source of bytes for jsonr_init_fn: up to cap of them into buf; their
 * number, 0 at the end of the input, -1 (errno set) on a read error. */
typedef long (*jsonr_read_fn)(void *ctx, char *buf, size_t cap);

struct jsonr {
	/* source */
	int fd; /* -1: memory, or read_fn */
	jsonr_read_fn read_fn;
	void *read_ctx;
	const char *mem;
	size_t memlen;
	char *buf;
	size_t pos, len, cap;
	uint64_t consumed; /* bytes before buf[0] */
	bool eof;
	bool started; /* past a leading byte order mark, if any */
	/* position of the current byte, for errors */
	unsigned line, col;
	/* grammar */
	unsigned char stack[JSONR_DEPTH]; /* '{' or '[' */
	int depth;
	int state;
	/* the token, and where it starts (line, and column in bytes) */
	unsigned tok_line, tok_col;
	size_t str_max; /* bytes of one string or key */
	struct sbuf str;
	double num;
	int64_t inum;
	bool is_int;
	/* the first error, where it was met (line, and column in bytes) */
	char *error;
	unsigned err_line, err_col;
	bool io_error; /* reading the file failed: not a syntax error */
};

void jsonr_init_mem(struct jsonr *r, const char *text, size_t len);
void jsonr_init_fd(struct jsonr *r, int fd);
/* Read what fn gives (a stream: an HTTP body as it arrives, lib/http.h
 * http_stream_read), through the same fixed buffer as a descriptor. */
void jsonr_init_fn(struct jsonr *r, jsonr_read_fn fn, void *ctx);
void jsonr_release(struct jsonr *r);
/* Allow strings and keys of up to max bytes (before the first token). */
void jsonr_set_str_max(struct jsonr *r, size_t max);

enum jsonr_tok jsonr_next(struct jsonr *r);
/* Skip the value whose first token t was just returned (a scalar is
 * already complete). 0, or -1 on a syntax error. */
int jsonr_skip(struct jsonr *r, enum jsonr_tok t);
/* "an object", "a string", ... for messages. */
const char *jsonr_tok_name(enum jsonr_tok t);

#endif
