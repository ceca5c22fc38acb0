/* lib/strpool.h: an interning pool of strings shared by the objects that
 * hold them.
 *
 * strpool_intern() gives one copy of each distinct string, kept in large
 * chunks without a malloc header each, until the pool is freed. A pool is
 * reference counted: every holder (a live node read from a recording,
 * reconcile/recon.h) takes a reference with strpool_ref() and drops it
 * with strpool_unref(); the last one frees every string at once. Interning
 * is not thread-safe (one thread fills a pool); the reference count is, so
 * holders may be released in any thread. */
#ifndef LIB_STRPOOL_H
#define LIB_STRPOOL_H

#include <stddef.h>

struct strpool;

/* A new empty pool holding one reference. */
struct strpool *strpool_new(void);
/* Another reference to p (NULL: none); returns p. */
struct strpool *strpool_ref(struct strpool *p);
/* Drop a reference; the last frees the pool and its strings. NULL: no-op. */
void strpool_unref(struct strpool *p);

/* The pool's copy of the len bytes at s (NUL-terminated; s need not be),
 * added when absent. Valid while the pool lives; never free it. */
char *strpool_intern(struct strpool *p, const char *s, size_t len);

/* Interning is over: the lookup table is freed (the strings stay). A
 * later strpool_intern() stores its string without looking for a copy. */
void strpool_done(struct strpool *p);

/* Distinct strings and the bytes the pool holds (tables and chunks). */
size_t strpool_count(const struct strpool *p);
size_t strpool_bytes(const struct strpool *p);

#endif
