/* lib/jsonr.c: see jsonr.h. */
#include "jsonr.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xalloc.h"

#define BUF_SIZE ((size_t)256 * 1024)
#define NUM_MAX  64 /* characters of one number */

enum state {
	S_VALUE,     /* a value */
	S_ARR_FIRST, /* a value or ']' */
	S_OBJ_FIRST, /* a key or '}' */
	S_OBJ_KEY,   /* a key */
	S_COLON,     /* ':' */
	S_AFTER,     /* ',' or the end of the container (or of the input) */
	S_DONE,
	S_ERR,
};

void
jsonr_init_mem(struct jsonr *r, const char *text, size_t len)
{
	memset(r, 0, sizeof(*r));
	r->fd = -1;
	r->mem = text;
	r->memlen = len;
	r->line = r->col = 1;
	r->str_max = JSONR_STR_MAX;
	sbuf_init(&r->str, JSONR_STR_MAX + 16);
}

void
jsonr_set_str_max(struct jsonr *r, size_t max)
{
	r->str_max = max;
	sbuf_release(&r->str);
	sbuf_init(&r->str, max + 16);
}

void
jsonr_init_fd(struct jsonr *r, int fd)
{
	jsonr_init_mem(r, NULL, 0);
	r->fd = fd;
	r->buf = xmalloc(BUF_SIZE);
	r->cap = BUF_SIZE;
}

void
jsonr_init_fn(struct jsonr *r, jsonr_read_fn fn, void *ctx)
{
	jsonr_init_fd(r, -1);
	r->read_fn = fn;
	r->read_ctx = ctx;
}

void
jsonr_release(struct jsonr *r)
{
	free(r->buf);
	sbuf_release(&r->str);
	free(r->error);
	memset(r, 0, sizeof(*r));
	r->fd = -1;
}

static enum jsonr_tok fail(struct jsonr *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static enum jsonr_tok
fail(struct jsonr *r, const char *fmt, ...)
{
	va_list ap;
	char *msg = NULL;

	if (r->state == S_ERR)
		return JSONR_ERROR;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	r->error = msg != NULL ? msg : xstrdup("error");
	r->err_line = r->line;
	r->err_col = r->col;
	r->state = S_ERR;
	return JSONR_ERROR;
}

static const char *
data(const struct jsonr *r)
{
	return r->buf != NULL ? r->buf : r->mem;
}

/* Make at least one byte available; false at the end of the input (or a
 * read error, which stops the reader). */
static bool
fill(struct jsonr *r)
{
	ssize_t n;

	if (r->pos < r->len)
		return true;
	if (r->buf == NULL) {
		if (r->mem != NULL && r->len == 0 && r->memlen > 0) {
			r->len = r->memlen;
			return true;
		}
		return false;
	}
	if (r->eof)
		return false;
	r->consumed += r->len;
	r->pos = r->len = 0;
	do
		n = r->read_fn != NULL ? r->read_fn(r->read_ctx, r->buf, r->cap)
		                       : read(r->fd, r->buf, r->cap);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		(void)fail(r, "%s", strerror(errno));
		r->io_error = true;
		r->eof = true;
		return false;
	}
	if (n == 0) {
		r->eof = true;
		return false;
	}
	r->len = (size_t)n;
	return true;
}

/* The current byte, or -1 at the end of the input. */
static int
peek(struct jsonr *r)
{
	if (r->pos >= r->len && !fill(r))
		return -1;
	return (unsigned char)data(r)[r->pos];
}

static void
advance(struct jsonr *r)
{
	if (data(r)[r->pos++] == '\n') {
		r->line++;
		r->col = 1;
	} else {
		r->col++;
	}
}

/* The end of the run of spaces from i (below len), 8 bytes at a time. */
static size_t
space_run(const char *d, size_t i, size_t len)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t x;

	while (len - i >= 8) {
		memcpy(&x, d + i, 8);
		x ^= UINT64_C(0x2020202020202020);
		if (x != 0) /* the lowest byte not a space is the first */
			return i + (size_t)__builtin_ctzll(x) / 8;
		i += 8;
	}
#endif
	while (i < len && d[i] == ' ')
		i++;
	return i;
}

static void
skip_ws(struct jsonr *r)
{
	const char *d;

	for (;;) {
		if (r->pos >= r->len && !fill(r))
			return;
		d = data(r);
		while (r->pos < r->len) {
			if (d[r->pos] == ' ') { /* indentation: a run at once */
				size_t e = r->pos + 1;

				e = space_run(d, e, r->len);
				r->col += (unsigned)(e - r->pos);
				r->pos = e;
				continue;
			}
			switch (d[r->pos]) {
			case ' ':
			case '\t':
			case '\r':
				r->pos++;
				r->col++;
				continue;
			case '\n':
				r->pos++;
				r->line++;
				r->col = 1;
				continue;
			default:
				return;
			}
		}
	}
}

static int
hex4(struct jsonr *r, unsigned *out)
{
	unsigned v = 0;
	int i, c;

	for (i = 0; i < 4; i++) {
		c = peek(r);
		if (c >= '0' && c <= '9')
			v = v * 16 + (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v = v * 16 + (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v = v * 16 + (unsigned)(c - 'A' + 10);
		else
			return -1;
		advance(r);
	}
	*out = v;
	return 0;
}

static void
put_utf8(struct sbuf *b, unsigned cp)
{
	char u[4];

	if (cp < 0x80) {
		u[0] = (char)cp;
		sbuf_add(b, u, 1);
	} else if (cp < 0x800) {
		u[0] = (char)(0xc0 | (cp >> 6));
		u[1] = (char)(0x80 | (cp & 0x3f));
		sbuf_add(b, u, 2);
	} else if (cp < 0x10000) {
		u[0] = (char)(0xe0 | (cp >> 12));
		u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[2] = (char)(0x80 | (cp & 0x3f));
		sbuf_add(b, u, 3);
	} else {
		u[0] = (char)(0xf0 | (cp >> 18));
		u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[3] = (char)(0x80 | (cp & 0x3f));
		sbuf_add(b, u, 4);
	}
}

static int
escape(struct jsonr *r)
{
	unsigned cp, lo;
	int c = peek(r);
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *e = c > 0 ? strchr(from, c) : NULL;

	if (e != NULL) {
		advance(r);
		sbuf_addc(&r->str, to[e - from]);
		return 0;
	}
	if (c != 'u')
		return fail(r, "bad escape in a string"), -1;
	advance(r);
	if (hex4(r, &cp) < 0)
		return fail(r, "bad \\u escape"), -1;
	if (cp >= 0xd800 && cp <= 0xdbff) {
		if (peek(r) != '\\')
			return fail(r, "lone surrogate in a \\u escape"), -1;
		advance(r);
		if (peek(r) != 'u')
			return fail(r, "lone surrogate in a \\u escape"), -1;
		advance(r);
		if (hex4(r, &lo) < 0 || lo < 0xdc00 || lo > 0xdfff)
			return fail(r, "lone surrogate in a \\u escape"), -1;
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
	} else if (cp >= 0xdc00 && cp <= 0xdfff) {
		return fail(r, "lone surrogate in a \\u escape"), -1;
	}
	if (cp == 0)
		return fail(r, "\\u0000 is not allowed in a string"), -1;
	put_utf8(&r->str, cp);
	return 0;
}

/* Bytes that end a run of plain string text: control characters, '"',
 * '\\', and the bytes >= 0x80, which start (or break) a UTF-8 sequence. */
static const unsigned char string_stop[256] = {
    [0x00 ... 0x1f] = 1,
    ['"'] = 1,
    ['\\'] = 1,
    [0x80 ... 0xff] = 1,
};

/* The length of the UTF-8 sequence that byte c starts (RFC 3629: no
 * overlong two-byte forms, nothing past U+10FFFF); 0 when none does. */
static size_t
utf8_len(unsigned char c)
{
	if (c < 0xc2)
		return 0;
	if (c < 0xe0)
		return 2;
	if (c < 0xf0)
		return 3;
	return c < 0xf5 ? 4 : 0;
}

/* Whether b may be byte i (1-based past the lead) of a sequence begun by
 * lead: the second byte also excludes overlong forms, surrogates and code
 * points past U+10FFFF. */
static bool
utf8_cont_ok(unsigned char lead, size_t i, unsigned char b)
{
	if (i == 1 && lead == 0xe0)
		return b >= 0xa0 && b <= 0xbf;
	if (i == 1 && lead == 0xed)
		return b >= 0x80 && b <= 0x9f;
	if (i == 1 && lead == 0xf0)
		return b >= 0x90 && b <= 0xbf;
	if (i == 1 && lead == 0xf4)
		return b >= 0x80 && b <= 0x8f;
	return (b & 0xc0) == 0x80;
}

/* The length of the valid sequence at p (avail bytes there); 0 when it is
 * invalid or does not end within avail. */
static size_t
utf8_seq(const unsigned char *p, size_t avail)
{
	size_t n = utf8_len(p[0]), i;

	if (n == 0 || n > avail)
		return 0;
	for (i = 1; i < n; i++)
		if (!utf8_cont_ok(p[0], i, p[i]))
			return 0;
	return n;
}

/* At a byte >= 0x80 that the fast path did not take (an invalid sequence,
 * or one cut by the end of the buffer): check it byte by byte, so that an
 * error names the offending byte, and append it. */
static int
utf8_slow(struct jsonr *r)
{
	unsigned char u[4];
	size_t n, i;
	int c = peek(r);

	n = utf8_len((unsigned char)c);
	if (n == 0)
		return fail(r, "invalid UTF-8 in a string"), -1;
	u[0] = (unsigned char)c;
	advance(r);
	for (i = 1; i < n; i++) {
		c = peek(r);
		if (c < 0 || !utf8_cont_ok(u[0], i, (unsigned char)c))
			return fail(r, "invalid UTF-8 in a string"), -1;
		u[i] = (unsigned char)c;
		advance(r);
	}
	sbuf_add(&r->str, u, n);
	return 0;
}

/* The end of the run of plain text (valid UTF-8 included) from pos. */
static size_t
plain_run(const char *d, size_t pos, size_t len)
{
	const unsigned char *u = (const unsigned char *)d;
	size_t run = pos, n;

	for (;;) {
		while (run < len && !string_stop[u[run]])
			run++;
		if (run >= len || u[run] < 0x80)
			return run;
		n = utf8_seq(u + run, len - run);
		if (n == 0)
			return run;
		run += n;
	}
}

/* At '"': the decoded string into r->str. */
static int
read_string(struct jsonr *r)
{
	const char *d;
	size_t run;
	int c;

	sbuf_reset(&r->str);
	advance(r);
	for (;;) {
		if (r->pos >= r->len && !fill(r))
			return fail(r, "unterminated string"), -1;
		d = data(r);
		run = plain_run(d, r->pos, r->len);
		if (run - r->pos > r->str_max - r->str.len)
			return fail(r, "string longer than %zu bytes",
			           r->str_max),
			       -1;
		if (run > r->pos) {
			sbuf_add(&r->str, d + r->pos, run - r->pos);
			r->col += (unsigned)(run - r->pos);
			r->pos = run;
		}
		if (r->pos >= r->len)
			continue;
		c = (unsigned char)d[r->pos];
		if (c == '"') {
			advance(r);
			return 0;
		}
		if (c < 0x20)
			return fail(r, "control character in a string"), -1;
		if (c >= 0x80) {
			if (utf8_slow(r) < 0)
				return -1;
		} else {
			advance(r);
			if (escape(r) < 0)
				return -1;
		}
		if (r->str.len > r->str_max || r->str.failed)
			return fail(r, "string longer than %zu bytes",
			           r->str_max),
			       -1;
	}
}

static int
digits(struct jsonr *r, char *num, size_t *n)
{
	int c;
	size_t start = *n;

	while ((c = peek(r)) >= '0' && c <= '9') {
		if (*n + 1 >= NUM_MAX)
			return fail(r, "number longer than %d characters",
			           NUM_MAX - 1),
			       -1;
		num[(*n)++] = (char)c;
		advance(r);
	}
	return *n > start ? 0 : -1;
}

/* An integer of 1 to 18 digits (an optional '-', no leading zero but
 * "0" itself) that ends within the buffer on a byte that cannot continue
 * a number: its value, as strtoll would give it; false for anything
 * else, which read_number's general path then reads. */
static bool
fast_integer(struct jsonr *r)
{
	const char *d = data(r);
	size_t i = r->pos, start;
	int64_t v = 0;
	bool neg = false;
	char c;

	if (i < r->len && d[i] == '-') {
		neg = true;
		i++;
	}
	start = i;
	while (i < r->len && d[i] >= '0' && d[i] <= '9' && i - start < 18)
		v = v * 10 + (d[i++] - '0');
	if (i == start || i >= r->len || (d[i] >= '0' && d[i] <= '9'))
		return false;
	if (d[start] == '0' && i - start > 1)
		return false;
	c = d[i];
	if (c == '.' || c == 'e' || c == 'E')
		return false;
	r->col += (unsigned)(i - r->pos);
	r->pos = i;
	r->is_int = true;
	r->inum = neg ? -v : v;
	r->num = (double)r->inum;
	r->state = S_AFTER;
	return true;
}

static enum jsonr_tok
read_number(struct jsonr *r)
{
	char num[NUM_MAX + 1], *end;
	size_t n = 0;
	bool integral = true;
	int c = peek(r);
	long long ll;

	if (fast_integer(r))
		return JSONR_NUM;

	if (c == '-') {
		num[n++] = '-';
		advance(r);
		c = peek(r);
	}
	if (c == '0') {
		num[n++] = '0';
		advance(r);
	} else if (c < '1' || c > '9' || digits(r, num, &n) < 0) {
		return fail(r, "bad number");
	}
	if (peek(r) == '.') {
		integral = false;
		num[n++] = '.';
		advance(r);
		if (digits(r, num, &n) < 0)
			return fail(r, "bad number");
	}
	c = peek(r);
	if (c == 'e' || c == 'E') {
		integral = false;
		num[n++] = 'e';
		advance(r);
		c = peek(r);
		if (c == '+' || c == '-') {
			num[n++] = (char)c;
			advance(r);
		}
		if (digits(r, num, &n) < 0)
			return fail(r, "bad number");
	}
	if (r->state == S_ERR) /* a read error met by a peek */
		return JSONR_ERROR;
	num[n] = '\0';
	r->is_int = false;
	if (integral) {
		errno = 0;
		ll = strtoll(num, &end, 10);
		if (errno == 0 && *end == '\0') {
			r->is_int = true;
			r->inum = (int64_t)ll;
			r->num = (double)ll;
		}
	}
	if (!r->is_int) {
		r->num = strtod(num, &end);
		if (isinf(r->num))
			return fail(r, "number out of range");
	}
	r->state = S_AFTER;
	return JSONR_NUM;
}

static enum jsonr_tok
literal(struct jsonr *r, const char *word, enum jsonr_tok t)
{
	size_t n = strlen(word);
	const char *p;

	/* the whole word in the buffer: compared at once */
	if (r->pos < r->len && r->len - r->pos >= n &&
	    memcmp(data(r) + r->pos, word, n) == 0) {
		r->pos += n;
		r->col += (unsigned)n;
		r->state = S_AFTER;
		return t;
	}
	for (p = word; *p != '\0'; p++) {
		if (peek(r) != (unsigned char)*p)
			return fail(r, "unexpected character");
		advance(r);
	}
	r->state = S_AFTER;
	return t;
}

static enum jsonr_tok
open_(struct jsonr *r, unsigned char c)
{
	if (r->depth >= JSONR_DEPTH)
		return fail(r, "nested deeper than %d", JSONR_DEPTH);
	advance(r);
	r->stack[r->depth++] = c;
	r->state = c == '{' ? S_OBJ_FIRST : S_ARR_FIRST;
	return c == '{' ? JSONR_OBJ_BEGIN : JSONR_ARR_BEGIN;
}

static enum jsonr_tok
close_(struct jsonr *r)
{
	unsigned char c = r->stack[--r->depth];

	advance(r);
	r->state = S_AFTER;
	return c == '{' ? JSONR_OBJ_END : JSONR_ARR_END;
}

static enum jsonr_tok
value(struct jsonr *r, int c)
{
	switch (c) {
	case '{':
	case '[':
		return open_(r, (unsigned char)c);
	case '"':
		if (read_string(r) < 0)
			return JSONR_ERROR;
		r->state = S_AFTER;
		return JSONR_STR;
	case 't':
		return literal(r, "true", JSONR_TRUE);
	case 'f':
		return literal(r, "false", JSONR_FALSE);
	case 'n':
		return literal(r, "null", JSONR_NULL);
	case -1:
		return fail(r, "unexpected end of input");
	default:
		if (c == '-' || (c >= '0' && c <= '9'))
			return read_number(r);
		return fail(r, "unexpected character");
	}
}

/* A UTF-8 byte order mark before the value (RFC 8259 8.1 lets a reader
 * ignore one; editors add them). */
static void
skip_bom(struct jsonr *r)
{
	static const unsigned char bom[] = {0xef, 0xbb, 0xbf};

	size_t i;

	r->started = true;
	if (peek(r) != bom[0])
		return;
	for (i = 0; i < sizeof(bom); i++) {
		if (peek(r) != bom[i]) {
			(void)fail(r, "unexpected character");
			return;
		}
		advance(r);
	}
	r->col = 1;
}

enum jsonr_tok
jsonr_next(struct jsonr *r)
{
	int c;

	for (;;) {
		if (r->state == S_ERR)
			return JSONR_ERROR;
		if (r->state == S_DONE)
			return JSONR_END;
		if (!r->started)
			skip_bom(r);
		skip_ws(r);
		if (r->state == S_ERR) /* a read error while skipping */
			return JSONR_ERROR;
		r->tok_line = r->line;
		r->tok_col = r->col;
		c = peek(r);
		switch (r->state) {
		case S_AFTER:
			if (r->depth == 0) {
				if (c != -1)
					return fail(r,
					    "unexpected data after the value");
				r->state = S_DONE;
				return JSONR_END;
			}
			if (c == ',') {
				advance(r);
				r->state = r->stack[r->depth - 1] == '{'
				               ? S_OBJ_KEY
				               : S_VALUE;
				continue;
			}
			if ((c == '}' && r->stack[r->depth - 1] == '{') ||
			    (c == ']' && r->stack[r->depth - 1] == '['))
				return close_(r);
			return fail(r, r->stack[r->depth - 1] == '{'
			                   ? "expected ',' or '}'"
			                   : "expected ',' or ']'");
		case S_OBJ_FIRST:
			if (c == '}')
				return close_(r);
			/* fall through */
		case S_OBJ_KEY:
			if (c != '"')
				return fail(r, "expected a key (a string)");
			if (read_string(r) < 0)
				return JSONR_ERROR;
			r->state = S_COLON;
			return JSONR_KEY;
		case S_COLON:
			if (c != ':')
				return fail(r, "expected ':'");
			advance(r);
			r->state = S_VALUE;
			continue;
		case S_ARR_FIRST:
			if (c == ']')
				return close_(r);
			return value(r, c);
		default:
			return value(r, c);
		}
	}
}

int
jsonr_skip(struct jsonr *r, enum jsonr_tok t)
{
	int depth;

	if (t == JSONR_ERROR)
		return -1;
	if (t != JSONR_OBJ_BEGIN && t != JSONR_ARR_BEGIN)
		return 0;
	for (depth = 1; depth > 0;) {
		switch (jsonr_next(r)) {
		case JSONR_ERROR:
		case JSONR_END:
			return -1;
		case JSONR_OBJ_BEGIN:
		case JSONR_ARR_BEGIN:
			depth++;
			break;
		case JSONR_OBJ_END:
		case JSONR_ARR_END:
			depth--;
			break;
		default:
			break;
		}
	}
	return 0;
}

const char *
jsonr_tok_name(enum jsonr_tok t)
{
	switch (t) {
	case JSONR_OBJ_BEGIN:
		return "an object";
	case JSONR_ARR_BEGIN:
		return "an array";
	case JSONR_STR:
		return "a string";
	case JSONR_NUM:
		return "a number";
	case JSONR_TRUE:
	case JSONR_FALSE:
		return "a boolean";
	case JSONR_NULL:
		return "null";
	default:
		return "no value";
	}
}
