#include "err.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbuf.h"
#include "xalloc.h"

static char *
vformat(const char *fmt, va_list ap)
{
	char *s = NULL;

	if (vasprintf(&s, fmt, ap) < 0)
		return xstrdup("(out of memory formatting message)");
	return s;
}

int
err_setf(struct err *err, const struct pos *pos, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || err->msg != NULL)
		return -1;
	va_start(ap, fmt);
	err->msg = vformat(fmt, ap);
	va_end(ap);
	if (pos != NULL) {
		err->path = pos->path ? xstrdup(pos->path) : NULL;
		err->line = pos->line;
		err->col = pos->col;
	}
	return -1;
}

bool
err_is_set(const struct err *err)
{
	return err != NULL && err->msg != NULL;
}

void
err_release(struct err *err)
{
	if (err == NULL)
		return;
	free(err->path);
	free(err->msg);
	memset(err, 0, sizeof(*err));
}

static char *
render(const char *path, unsigned line, unsigned col, const char *prefix,
    const char *msg)
{
	if (path == NULL)
		return xasprintf("%s%s", prefix, msg);
	if (line == 0)
		return xasprintf("%s: %s%s", path, prefix, msg);
	if (col == 0)
		return xasprintf("%s:%u: %s%s", path, line, prefix, msg);
	return xasprintf("%s:%u:%u: %s%s", path, line, col, prefix, msg);
}

char *
err_render(const struct err *err)
{
	return render(err->path, err->line, err->col, "",
	    err->msg ? err->msg : "unknown error");
}

static void
push(struct errlist *l, enum diag_severity sev, const char *path, unsigned line,
    unsigned col, char *msg)
{
	size_t cap = l->cap ? l->cap : ERRLIST_CAP;
	struct diag *d;

	if (sev == DIAG_ERROR)
		l->nerrors++;
	else
		l->nwarnings++;
	if (l->n >= cap) {
		l->dropped++;
		free(msg);
		return;
	}
	xgrow(&l->items, &l->alloc, l->n + 1, sizeof(*l->items));
	d = &l->items[l->n++];
	d->severity = sev;
	d->path = path ? xstrdup(path) : NULL;
	d->line = line;
	d->col = col;
	d->msg = msg;
}

int
errlist_add(struct errlist *l, enum diag_severity sev, const struct pos *pos,
    const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = errlist_vadd(l, sev, pos, fmt, ap);
	va_end(ap);
	return rc;
}

int
errlist_vadd(struct errlist *l, enum diag_severity sev, const struct pos *pos,
    const char *fmt, va_list ap)
{
	push(l, sev, pos ? pos->path : NULL, pos ? pos->line : 0,
	    pos ? pos->col : 0, vformat(fmt, ap));
	return sev == DIAG_ERROR ? -1 : 0;
}

void
errlist_add_err(struct errlist *l, struct err *err)
{
	if (!err_is_set(err))
		return;
	push(l, DIAG_ERROR, err->path, err->line, err->col, err->msg);
	err->msg = NULL;
	err_release(err);
}

static int
strcmp_null(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return (a != NULL) - (b != NULL);
	return strcmp(a, b);
}

void
errlist_sort(struct errlist *l)
{
	size_t i, j;

	/* Insertion sort: stable, and lists are capped at a few dozen. */
	for (i = 1; i < l->n; i++) {
		struct diag d = l->items[i];

		for (j = i; j > 0; j--) {
			const struct diag *p = &l->items[j - 1];
			int c = strcmp_null(p->path, d.path);

			if (c == 0)
				c = (p->line > d.line) - (p->line < d.line);
			if (c == 0)
				c = (p->col > d.col) - (p->col < d.col);
			if (c <= 0)
				break;
			l->items[j] = l->items[j - 1];
		}
		l->items[j] = d;
	}
}

bool
errlist_has_errors(const struct errlist *l)
{
	return l->nerrors > 0;
}

char *
errlist_render_item(const struct errlist *l, size_t i)
{
	const struct diag *d = &l->items[i];

	return render(d->path, d->line, d->col,
	    d->severity == DIAG_WARNING ? "warning: " : "", d->msg);
}

/* GitHub's escaping of workflow command data; a property also escapes the
 * two characters that delimit properties. */
static void
github_escape(struct sbuf *b, const char *s, bool property)
{
	for (; *s != '\0'; s++) {
		if (*s == '%')
			sbuf_adds(b, "%25");
		else if (*s == '\r')
			sbuf_adds(b, "%0D");
		else if (*s == '\n')
			sbuf_adds(b, "%0A");
		else if (property && *s == ':')
			sbuf_adds(b, "%3A");
		else if (property && *s == ',')
			sbuf_adds(b, "%2C");
		else
			sbuf_addc(b, *s);
	}
}

char *
errlist_render_github(const struct errlist *l, size_t i, const char *title)
{
	const struct diag *d = &l->items[i];
	struct sbuf b;
	const char *sep = " ";

	sbuf_init(&b, SBUF_UNBOUNDED);
	sbuf_adds(&b, d->severity == DIAG_WARNING ? "::warning" : "::error");
	if (d->path != NULL) {
		sbuf_adds(&b, " file=");
		github_escape(&b, d->path, true);
		sep = ",";
		if (d->line > 0) {
			sbuf_addf(&b, ",line=%u", d->line);
			if (d->col > 0)
				sbuf_addf(&b, ",col=%u", d->col);
		}
	}
	if (title != NULL) {
		sbuf_addf(&b, "%stitle=", sep);
		github_escape(&b, title, true);
	}
	sbuf_adds(&b, "::");
	github_escape(&b, d->msg, false);
	return sbuf_take(&b);
}

void
errlist_release(struct errlist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->items[i].path);
		free(l->items[i].msg);
	}
	free(l->items);
	memset(l, 0, sizeof(*l));
}
