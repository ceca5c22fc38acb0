/* lib/strv.h: a growable array of owned strings, valid when zeroed. */
#ifndef LIB_STRV_H
#define LIB_STRV_H

#include <stdbool.h>
#include <stddef.h>

struct strv {
	char **v;
	size_t n, cap;
};

/* Append a copy of str. */
void strv_add(struct strv *s, const char *str);
void strv_addf(struct strv *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
bool strv_has(const struct strv *s, const char *str);
/* The same over n borrowed strings. */
bool strv_array_has(const char *const *v, size_t n, const char *str);
/* Ascending byte order. */
void strv_sort(struct strv *s);
/* Free every string and the array; leaves s zeroed. */
void strv_release(struct strv *s);

/* Free n owned strings and the array that holds them (NULL is a no-op). */
void strv_array_free(char **v, size_t n);

#endif
