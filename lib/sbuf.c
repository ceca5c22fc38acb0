#include "sbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

void
sbuf_init(struct sbuf *b, size_t max)
{
	memset(b, 0, sizeof(*b));
	b->max = max;
}

static bool
reserve(struct sbuf *b, size_t extra)
{
	size_t max = b->max ? b->max : SBUF_DEFAULT_MAX;
	size_t need;

	if (b->failed)
		return false;
	if (b->sink != NULL && b->len > 0 &&
	    b->len + extra >= SBUF_STREAM_PIECE)
		sbuf_flush(b);
	if (extra > max || b->len > max - extra) {
		b->failed = true;
		return false;
	}
	need = b->len + extra + 1;
	if (need > b->cap) {
		size_t ncap = b->cap ? b->cap : 64;

		while (ncap < need)
			ncap *= 2;
		b->buf = xrealloc(b->buf, ncap);
		b->cap = ncap;
	}
	return true;
}

void
sbuf_stream(struct sbuf *b, sbuf_sink_fn sink, void *ctx)
{
	sbuf_init(b, SBUF_UNBOUNDED);
	b->sink = sink;
	b->sink_ctx = ctx;
}

void
sbuf_flush(struct sbuf *b)
{
	if (b->sink == NULL || b->len == 0)
		return;
	b->sink(b->sink_ctx, b->buf, b->len);
	b->len = 0;
	b->buf[0] = '\0';
}

void
sbuf_add(struct sbuf *b, const void *data, size_t len)
{
	if (!reserve(b, len))
		return;
	if (len > 0)
		memcpy(b->buf + b->len, data, len);
	b->len += len;
	b->buf[b->len] = '\0';
}

void
sbuf_adds(struct sbuf *b, const char *s)
{
	sbuf_add(b, s, strlen(s));
}

void
sbuf_addc(struct sbuf *b, char c)
{
	sbuf_add(b, &c, 1);
}

void
sbuf_addf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->failed = true;
		return;
	}
	sbuf_add(b, s, (size_t)n);
	free(s);
}

const char *
sbuf_str(const struct sbuf *b)
{
	return b->buf ? b->buf : "";
}

char *
sbuf_take(struct sbuf *b)
{
	char *s = b->buf ? b->buf : xstrdup("");
	size_t max = b->max;

	memset(b, 0, sizeof(*b));
	b->max = max;
	return s;
}

void
sbuf_reset(struct sbuf *b)
{
	b->len = 0;
	b->failed = false;
	if (b->buf)
		b->buf[0] = '\0';
}

void
sbuf_release(struct sbuf *b)
{
	free(b->buf);
	memset(b, 0, sizeof(*b));
}
