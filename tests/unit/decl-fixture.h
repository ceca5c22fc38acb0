/* tests/unit/decl-fixture.h: the declarations' unit tests: T_ERR_AT
 * (style.md 2.11), a cluster head (version, cluster, mode, one node), one
 * or two in-memory files parsed as a cluster, a refusal with exactly one
 * diagnostic, and the body the digest and dump tests declare. */
#ifndef TESTS_UNIT_DECL_FIXTURE_H
#define TESTS_UNIT_DECL_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "../../declarations/decl.h"

/* Assert that list holds a diagnostic at path:line:col whose message
 * contains sub; print the whole list when it does not. */
#define T_ERR_AT(list, path, line, col, sub)                                   \
	t_err_at((list), (path), (line), (col), (sub), __FILE__, __LINE__)

static inline void
t_err_at(const struct errlist *l, const char *path, unsigned line, unsigned col,
    const char *sub, const char *file, int fline)
{
	size_t i;
	char *s;

	for (i = 0; i < l->n; i++) {
		const struct diag *d = &l->items[i];

		if (d->path != NULL && strcmp(d->path, path) == 0 &&
		    d->line == line && d->col == col && strstr(d->msg, sub))
			return;
	}
	print_error("no diagnostic %s:%u:%u containing \"%s\"; have:\n", path,
	    line, col, sub);
	for (i = 0; i < l->n; i++) {
		s = errlist_render_item(l, i);
		print_error("  %s\n", s);
		free(s);
	}
	_fail(file, fline);
}

#define HEAD                                                                   \
	"version: 1\n"                                                         \
	"cluster: c1\n"                                                        \
	"mode: STUDIO_MANAGED\n"                                               \
	"nodes:\n"                                                             \
	"  - name: node1\n"                                                    \
	"    jolokia: http://localhost:8161/console/jolokia\n"                 \
	"    credentials: node1\n"
#define HEAD_LINES 7

/* Parse one in-memory file "a.yaml" (or two, when b is not NULL). */
static inline int
parse2(struct decl_cluster **c, const char *a, const char *b, struct errlist *l)
{
	struct decl_file f[2] = {
	    {"a.yaml", a, strlen(a)},
	    {"b.yaml", b ? b : "", b ? strlen(b) : 0},
	};

	return decl_cluster_parse(c, "c1", f, b ? 2 : 1, l);
}

/* Expect a refusal of a, with exactly the one diagnostic given. */
static inline void
refuse_one(const char *a, unsigned line, unsigned col, const char *sub)
{
	struct decl_cluster *c = NULL;
	struct errlist l = {0};

	assert_int_equal(parse2(&c, a, NULL, &l), -1);
	assert_null(c);
	T_ERR_AT(&l, "a.yaml", line, col, sub);
	assert_int_equal(l.nerrors, 1);
	errlist_release(&l);
}

#define DIGEST_BODY                                                            \
	"addresses:\n"                                                         \
	"  - name: orders\n"                                                   \
	"    routing: [anycast]\n"                                             \
	"    queues:\n"                                                        \
	"      - {name: orders, routing: anycast}\n"

#endif
