/* lib/strv.c: a growable array of owned strings. */
#include "strv.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

void
strv_add(struct strv *s, const char *str)
{
	xgrow(&s->v, &s->cap, s->n + 1, sizeof(*s->v));
	s->v[s->n++] = xstrdup(str);
}

void
strv_addf(struct strv *s, const char *fmt, ...)
{
	va_list ap;
	char *str;

	va_start(ap, fmt);
	if (vasprintf(&str, fmt, ap) < 0)
		str = NULL;
	va_end(ap);
	if (str == NULL)
		str = xstrdup("?");
	xgrow(&s->v, &s->cap, s->n + 1, sizeof(*s->v));
	s->v[s->n++] = str;
}

bool
strv_array_has(const char *const *v, size_t n, const char *str)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(v[i], str) == 0)
			return true;
	return false;
}

bool
strv_has(const struct strv *s, const char *str)
{
	return strv_array_has((const char *const *)s->v, s->n, str);
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void
strv_sort(struct strv *s)
{
	if (s->n > 1)
		qsort(s->v, s->n, sizeof(*s->v), cmp_str);
}

void
strv_release(struct strv *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

void
strv_array_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}
