/* tests/unit/test-render-splice.c: declarations/render/render-splice.c:
 * locating an element in a document's text (comments, CDATA, processing
 * instructions and quoted '>' skipped) and a line's indent. */
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

static void
locate_ok(const char *text, const size_t *path, size_t depth,
    const char *expect)
{
	struct xml_span s;

	assert_int_equal(render_xml_locate(text, strlen(text), path, depth, &s),
	    0);
	assert_int_equal(s.end - s.start, strlen(expect));
	assert_memory_equal(text + s.start, expect, strlen(expect));
}

static void
test_render_splice__locate_document_element(void **state)
{
	const char *t =
	    "<?xml version='1.0'?>\n<!-- <a> -->\n<a x='1'><b/></a>\n";

	(void)state;
	locate_ok(t, NULL, 0, "<a x='1'><b/></a>");
}

static void
test_render_splice__locate_skips_comments_cdata_pi(void **state)
{
	const char *t = "<r><!-- <x></x> --><?pi <y> ?><a><![CDATA[</a><b>]]>"
	                "</a><c>t</c></r>";
	size_t p1[] = {1};
	size_t p0[] = {0};

	(void)state;
	locate_ok(t, p1, 1, "<c>t</c>");
	locate_ok(t, p0, 1, "<a><![CDATA[</a><b>]]></a>");
}

static void
test_render_splice__locate_quoted_gt_and_nesting(void **state)
{
	const char *t = "<r a=\"x>y\"><s k='>'><t/><u v=\"/>\">in</u></s></r>";
	size_t path[] = {0, 1};
	struct xml_span s;

	(void)state;
	locate_ok(t, path, 2, "<u v=\"/>\">in</u>");
	assert_int_equal(render_xml_locate(t, strlen(t), path, 2, &s), 0);
	assert_false(s.empty);
	assert_memory_equal(t + s.stag_end, "in</u>", 6);
	assert_memory_equal(t + s.etag_start, "</u>", 4);
}

static void
test_render_splice__locate_empty_element(void **state)
{
	const char *t = "<r>\n  <a/>\n  <b  x='1' />\n</r>";
	size_t path[] = {1};
	struct xml_span s;

	(void)state;
	assert_int_equal(render_xml_locate(t, strlen(t), path, 1, &s), 0);
	assert_true(s.empty);
	assert_int_equal(s.stag_end, s.end);
	assert_int_equal(s.etag_start, s.end);
	assert_memory_equal(t + s.start, "<b  x='1' />", 12);
}

static void
test_render_splice__locate_counts_only_elements_of_the_parent(void **state)
{
	/* <a> has children of its own; the index counts siblings only. */
	const char *t = "<r><a><x/><y/></a>text<b><z/></b><c/></r>";
	size_t path[] = {2};
	size_t deep[] = {1, 0};

	(void)state;
	locate_ok(t, path, 1, "<c/>");
	locate_ok(t, deep, 2, "<z/>");
}

static void
test_render_splice__locate_missing_path_fails(void **state)
{
	const char *t = "<r><a/><b></b></r>";
	size_t past_end[] = {2};
	size_t into_empty[] = {0, 0};
	size_t into_b[] = {1, 0};
	struct xml_span s;

	(void)state;
	assert_int_equal(render_xml_locate(t, strlen(t), past_end, 1, &s), -1);
	assert_int_equal(render_xml_locate(t, strlen(t), into_empty, 2, &s),
	    -1);
	assert_int_equal(render_xml_locate(t, strlen(t), into_b, 2, &s), -1);
}

static void
test_render_splice__locate_refuses_markup_decl_and_truncation(void **state)
{
	const char *d = "<!ELEMENT r><r/>";
	const char *u = "<r><!-- never closed </r>";
	struct xml_span s;

	(void)state;
	assert_int_equal(render_xml_locate(d, strlen(d), NULL, 0, &s), -1);
	assert_int_equal(render_xml_locate(u, strlen(u), NULL, 0, &s), -1);
}

static void
test_render_splice__line_indent(void **state)
{
	const char *t = "a\n \t <x> <y>";
	size_t start = 99;

	(void)state;
	assert_int_equal(render_line_indent(t, 5, &start), 3);
	assert_int_equal(start, 2);
	assert_int_equal(render_line_indent(t, 9, &start), (size_t)-1);
	assert_int_equal(render_line_indent(t, 0, &start), 0);
	assert_int_equal(start, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_render_splice__locate_document_element),
	    cmocka_unit_test(
	        test_render_splice__locate_skips_comments_cdata_pi),
	    cmocka_unit_test(test_render_splice__locate_quoted_gt_and_nesting),
	    cmocka_unit_test(test_render_splice__locate_empty_element),
	    cmocka_unit_test(
	        test_render_splice__locate_counts_only_elements_of_the_parent),
	    cmocka_unit_test(test_render_splice__locate_missing_path_fails),
	    cmocka_unit_test(
	        test_render_splice__locate_refuses_markup_decl_and_truncation),
	    cmocka_unit_test(test_render_splice__line_indent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
