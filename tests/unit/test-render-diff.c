/* tests/unit/test-render-diff.c: declarations/render/render-diff.c: the unified
 * diff of previews (expectations are GNU diff -u's output). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../declarations/render/render-int.h"
#include "../../lib/xalloc.h"

static void
udiff_is(const char *a, const char *b, const char *hunks)
{
	char *d = render_udiff(a, strlen(a), b, strlen(b), "A", "B");
	char *want =
	    hunks != NULL ? xasprintf("--- A\n+++ B\n%s", hunks) : NULL;

	if (want == NULL)
		assert_null(d);
	else
		assert_string_equal(d, want);
	free(d);
	free(want);
}

static void
test_render_diff__udiff_context_and_merging(void **state)
{
	const char *a = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n"
	                "15\n16\n";

	(void)state;
	udiff_is(a, a, NULL);
	/* Changes 6 lines apart share a hunk ... */
	udiff_is(a, "1\n2\nX\n4\n5\n6\n7\n8\n9\nY\n11\n12\n13\n14\n15\n16\n",
	    "@@ -1,13 +1,13 @@\n 1\n 2\n-3\n+X\n 4\n 5\n 6\n 7\n 8\n 9\n"
	    "-10\n+Y\n 11\n 12\n 13\n");
	/* ... 7 apart they do not. */
	udiff_is(a, "1\n2\nX\n4\n5\n6\n7\n8\n9\n10\nY\n12\n13\n14\n15\n16\n",
	    "@@ -1,6 +1,6 @@\n 1\n 2\n-3\n+X\n 4\n 5\n 6\n"
	    "@@ -8,7 +8,7 @@\n 8\n 9\n 10\n-11\n+Y\n 12\n 13\n 14\n");
}

static void
test_render_diff__udiff_edges(void **state)
{
	(void)state;
	udiff_is("a\nb", "a\nc",
	    "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n"
	    "\\ No newline at end of file\n");
	udiff_is("a\nb\n", "a\nb",
	    "@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n");
	udiff_is("", "x\ny\n", "@@ -0,0 +1,2 @@\n+x\n+y\n");
	udiff_is("x\ny\n", "", "@@ -1,2 +0,0 @@\n-x\n-y\n");
}

static void
test_render_diff__udiff_past_the_distance_cap(void **state)
{
	struct sbuf a = {0}, b = {0};
	char *d;
	size_t i, minus = 0, plus = 0;
	const char *p;

	(void)state;
	/* Every line differs: more than RENDER_DIFF_MAX_D edits, shown as
	 * one change (all deletions, then all insertions). */
	for (i = 0; i < RENDER_DIFF_MAX_D; i++) {
		sbuf_addf(&a, "a%zu\n", i);
		sbuf_addf(&b, "b%zu\n", i);
	}
	d = render_udiff(a.buf, a.len, b.buf, b.len, "A", "B");
	assert_non_null(d);
	/* From the second line on: "--- A" is not counted. */
	for (p = strchr(d, '\n') + 1; *p != '\0'; p = strchr(p, '\n') + 1) {
		minus += *p == '-';
		plus += *p == '+';
	}
	assert_int_equal(minus, RENDER_DIFF_MAX_D);
	assert_int_equal(plus, RENDER_DIFF_MAX_D + 1); /* "+++ B" counted */
	assert_non_null(strstr(d, "-a999\n+b0\n"));
	free(d);
	sbuf_release(&a);
	sbuf_release(&b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_render_diff__udiff_context_and_merging),
	    cmocka_unit_test(test_render_diff__udiff_edges),
	    cmocka_unit_test(test_render_diff__udiff_past_the_distance_cap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
