/* lib/xalloc.h: allocation that never returns NULL (style.md 2.5).
 *
 * On out-of-memory these write one line to stderr and abort: under
 * Restart=on-failure a clean crash beats error paths nobody exercises.
 * Every input the program reads has a size cap instead.
 */
#ifndef LIB_XALLOC_H
#define LIB_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *ptr, size_t size);
void *xreallocarray(void *ptr, size_t nmemb, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* Like asprintf(3); the result is owned by the caller. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Grow *arr (of *cap elements of size elsize) so that it holds at least
 * need elements; doubles the capacity. */
void xgrow(void *arr, size_t *cap, size_t need, size_t elsize);

#endif
