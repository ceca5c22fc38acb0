/* tests/unit/test-md.c: agent/web/md.c, plan.md as HTML with md4c: tables,
 * names escaped wherever they stand, raw HTML shown as text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../agent/web/web-int.h"

static char *
render(const char *md)
{
	struct sbuf out = {0};

	assert_int_equal(web_md_html(md, strlen(md), &out), 0);
	return sbuf_take(&out);
}

static void
assert_has(const char *html, const char *want)
{
	if (strstr(html, want) == NULL)
		fail_msg("'%s' not in:\n%s", want, html);
}

static void
assert_lacks(const char *html, const char *bad)
{
	if (strstr(html, bad) != NULL)
		fail_msg("'%s' in:\n%s", bad, html);
}

/* The golden plan.md of a recreate that removes a dependent divert: its
 * node table becomes a <table>, its blast radius a list. */
static void
test_md__golden_plan(void **state)
{
	const char *path =
	    "tests/golden/recon/"
	    "103-recreate-moved-removes-dependent/expect/plan.md";
	char buf[16384], *html;
	size_t n;
	FILE *f;

	(void)state;
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	html = render(buf);
	assert_has(html, "<table>");
	assert_has(html, "<th>node</th>");
	assert_has(html, "<td>node1</td>");
	assert_has(html, "<h2>Nodes</h2>");
	assert_has(html,
	    "removed with the queue: divert <code>audit-copy</code>");
	assert_has(html, "kept: divert <code>orders-archive</code>");
	assert_has(html, "<pre><code>artemis-gitops approve plan --confirm "
	                 "'create 1, recreate 1, delete 1 divert on shop-eu "
	                 "8bd93e22821d'");
	free(html);
}

/* A queue name is user data: in a code span, in a table cell, in a
 * heading, in a list item, it comes out as text. */
static void
test_md__names_escaped(void **state)
{
	char *html;

	(void)state;
	html = render("### 1. delete-queue `<script>alert(1)</script>`\n\n"
	              "| node | queue |\n|---|---|\n"
	              "| n1 | <script>x</script> |\n"
	              "| n2 | a\"b&c'd |\n\n"
	              "- removed: divert `\"><img src=x onerror=alert(1)>`\n"
	              "- kept: `a&b`, `&amp;`\n");
	assert_lacks(html, "<script");
	assert_lacks(html, "<img");
	assert_has(html, "<code>&lt;script&gt;alert(1)&lt;/script&gt;</code>");
	assert_has(html, "<td>&lt;script&gt;x&lt;/script&gt;</td>");
	assert_has(html, "<td>a&quot;b&amp;c'd</td>");
	assert_has(html,
	    "<code>&quot;&gt;&lt;img src=x onerror=alert(1)&gt;</code>");
	assert_has(html, "<code>a&amp;b</code>");
	/* in a code span an entity is not one: shown as typed */
	assert_has(html, "<code>&amp;amp;</code>");
	free(html);
}

/* Raw HTML, a block or inline, is shown as text (MD_FLAG_NOHTML). */
static void
test_md__raw_html_is_text(void **state)
{
	char *html;

	(void)state;
	html = render("<div onclick=\"steal()\">\n<script>alert(1)</script>\n"
	              "</div>\n\nsome <b>bold</b> and <!-- hidden --> and "
	              "<a href=\"javascript:x\">link</a>\n");
	assert_lacks(html, "<div");
	assert_lacks(html, "<script");
	assert_lacks(html, "<b>");
	assert_lacks(html, "<!--");
	assert_lacks(html, "<a ");
	assert_has(html, "&lt;div onclick=&quot;steal()&quot;&gt;");
	assert_has(html, "&lt;script&gt;alert(1)&lt;/script&gt;");
	assert_has(html, "&lt;b&gt;bold&lt;/b&gt;");
	assert_has(html, "&lt;!-- hidden --&gt;");
	free(html);
}

/* A name that looks like a URL stays a name: no autolink. */
static void
test_md__no_autolinks(void **state)
{
	char *html;

	(void)state;
	html = render("queue www.example.com and http://example.com/x\n");
	assert_lacks(html, "<a");
	assert_has(html, "www.example.com and http://example.com/x");
	free(html);
}

/* Appends to what out holds; empty input renders nothing. */
static void
test_md__appends(void **state)
{
	struct sbuf out = {0};

	(void)state;
	sbuf_adds(&out, "<main>");
	assert_int_equal(web_md_html("", 0, &out), 0);
	assert_string_equal(sbuf_str(&out), "<main>");
	assert_int_equal(web_md_html("*x*", 3, &out), 0);
	assert_string_equal(sbuf_str(&out), "<main><p><em>x</em></p>\n");
	sbuf_release(&out);
}

/* Past out's ceiling: -1, and out holds nothing new. */
static void
test_md__ceiling(void **state)
{
	struct sbuf out;
	char md[4096];

	(void)state;
	memset(md, 'a', sizeof(md) - 1);
	md[sizeof(md) - 1] = '\0';
	sbuf_init(&out, 1024);
	sbuf_adds(&out, "head");
	assert_int_equal(web_md_html(md, strlen(md), &out), -1);
	assert_string_equal(sbuf_str(&out), "head");
	sbuf_release(&out);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_md__golden_plan),
	    cmocka_unit_test(test_md__names_escaped),
	    cmocka_unit_test(test_md__raw_html_is_text),
	    cmocka_unit_test(test_md__no_autolinks),
	    cmocka_unit_test(test_md__appends),
	    cmocka_unit_test(test_md__ceiling),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
