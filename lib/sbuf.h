/* lib/sbuf.h: one growable string buffer (style.md 2.5).
 *
 * `struct sbuf b = {0}` is empty and sbuf_str() returns "" for it. A buffer
 * has a ceiling (sbuf_init; 16 MiB when 0): going past it sets the sticky
 * `failed` flag and drops the append, so a chain of appends is checked once.
 */
#ifndef LIB_SBUF_H
#define LIB_SBUF_H

#include <stdbool.h>
#include <stddef.h>

#define SBUF_DEFAULT_MAX ((size_t)16 * 1024 * 1024)
/* The ceiling of a text rendered from a model already in memory (plan.json,
 * a snapshot, a declaration dump, the inventory, a report, an audit row):
 * memory is its only bound (xalloc exits when it runs out), so such a text
 * is never cut short at a ceiling. */
#define SBUF_UNBOUNDED ((size_t)-1 / 4)

/* Where a streamed buffer's bytes go (sbuf_stream). */
typedef void (*sbuf_sink_fn)(void *ctx, const char *data, size_t len);

struct sbuf {
	char *buf;
	size_t len, cap, max;
	bool failed;
	sbuf_sink_fn sink; /* NULL: the bytes stay in the buffer */
	void *sink_ctx;
};

void sbuf_init(struct sbuf *b, size_t max);
void sbuf_add(struct sbuf *b, const void *data, size_t len);
void sbuf_adds(struct sbuf *b, const char *s);
void sbuf_addc(struct sbuf *b, char c);
void sbuf_addf(struct sbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Borrowed, always NUL-terminated, "" for an empty buffer. */
const char *sbuf_str(const struct sbuf *b);
/* Hand the bytes over (never NULL) and reset the buffer. */
char *sbuf_take(struct sbuf *b);
void sbuf_reset(struct sbuf *b); /* keeps the allocation and the ceiling */
void sbuf_release(struct sbuf *b);

/* A buffer of unbounded text (SBUF_UNBOUNDED) that hands its bytes to
 * sink in pieces of about SBUF_STREAM_PIECE as it fills, so a large text
 * rendered from a model (a declaration dump) is never whole in memory.
 * sbuf_flush hands over what is left; sbuf_release frees the buffer. The
 * bytes the sink got are no longer in the buffer (sbuf_str gives only
 * the rest). */
#define SBUF_STREAM_PIECE ((size_t)64 * 1024)
void sbuf_stream(struct sbuf *b, sbuf_sink_fn sink, void *ctx);
void sbuf_flush(struct sbuf *b);

#endif
