/* tests/unit/test-page-graph.c: agent/web/page-graph.c: a preview's plan.md
 * as HTML with each Mermaid block drawn as SVG in its place, from the
 * graphs of plan.json; a block no graph of plan.json has, or a plan.json
 * that cannot be read, leaves the code block. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../agent/web/web-int.h"
#include "../../lib/afile.h"
#include "../../lib/sbuf.h"
#include "../../lib/xalloc.h"

static char tmp[64];

static int
setup(void **state)
{
	(void)state;
	snprintf(tmp, sizeof(tmp), "/tmp/test-page-graph-XXXXXX");
	return mkdtemp(tmp) != NULL ? 0 : -1;
}

static int
teardown(void **state)
{
	char *cmd = xasprintf("rm -rf '%s'", tmp);
	int rc;

	(void)state;
	rc = system(cmd);
	free(cmd);
	return rc == 0 ? 0 : -1;
}

/* OUTBOX/shop-eu/ID holding the golden case's plan.json and plan.md (md
 * with extra appended); no plan.json when json is false. */
static void
preview(const char *id, const char *golden, const char *extra, bool json)
{
	struct err err = {0};
	char *src, *dst, *text;
	size_t len;

	dst = xasprintf("%s/outbox/shop-eu/%s", tmp, id);
	text = xasprintf("mkdir -p '%s'", dst);
	assert_int_equal(system(text), 0);
	free(text);
	free(dst);
	src = xasprintf("tests/golden/recon/%s/expect/plan.md", golden);
	assert_int_equal(afile_read(&text, &len, src, 1u << 24, &err), 0);
	free(src);
	dst = xasprintf("%s/outbox/shop-eu/%s/plan.md", tmp, id);
	src = xasprintf("%s%s", text, extra);
	assert_int_equal(afile_write(dst, src, strlen(src), 0644, &err), 0);
	free(src);
	free(dst);
	free(text);
	if (!json)
		return;
	src = xasprintf("tests/golden/recon/%s/expect/plan.json", golden);
	assert_int_equal(afile_read(&text, &len, src, 1u << 24, &err), 0);
	free(src);
	dst = xasprintf("%s/outbox/shop-eu/%s/plan.json", tmp, id);
	assert_int_equal(afile_write(dst, text, len, 0644, &err), 0);
	free(dst);
	free(text);
}

static size_t
count(const char *s, const char *what)
{
	size_t n = 0;

	while ((s = strstr(s, what)) != NULL) {
		n++;
		s += strlen(what);
	}
	return n;
}

static char *
page(const char *id)
{
	struct web_view v = {0};
	struct sbuf b = {0};

	v.outbox = xasprintf("%s/outbox", tmp);
	web_page_graph_plan_md(&b, &v, "shop-eu", id);
	free(v.outbox);
	return sbuf_take(&b);
}

/* Two delete-queue actions, three graphs: three SVGs where the blocks
 * were, each with its own ids, no Mermaid text left; the text around
 * them (the per-node bullets) still there. */
static void
test_page_graph__blocks_drawn_in_place(void **state)
{
	char *html, *svg;

	(void)state;
	preview("p1", "018-two-deletes-one-address", "", true);
	html = page("p1");
	assert_int_equal(count(html, "<figure class=\"graph\">\n<svg"), 3);
	assert_int_equal(count(html, "language-mermaid"), 0);
	assert_int_equal(count(html, "flowchart LR"), 0);
	assert_non_null(strstr(html, "id=\"blast1"));
	assert_non_null(strstr(html, "id=\"blast3"));
	assert_null(strstr(html, "<?xml"));
	assert_null(strstr(html, "<script"));
	svg = strstr(html, "<svg");
	assert_true(svg > strstr(html, "Blast radius on <strong>node1"));
	assert_non_null(strstr(html, "<strong>node1</strong>: WOULD_APPLY"));
	free(html);
}

/* A block no graph of plan.json draws stays a code block (and is
 * escaped); without plan.json every block stays one. */
static void
test_page_graph__unmatched_blocks_stay_code(void **state)
{
	char *html;

	(void)state;
	preview("p2", "001-d1-last-queue-removes-divert",
	    "\n```mermaid\nflowchart LR\n    x[\"<b>\"]\n```\n", true);
	html = page("p2");
	assert_int_equal(count(html, "<figure class=\"graph\">"), 1);
	assert_int_equal(count(html, "language-mermaid"), 1);
	assert_non_null(strstr(html, "x[&quot;&lt;b&gt;&quot;]"));
	free(html);
	preview("p3", "001-d1-last-queue-removes-divert", "", false);
	html = page("p3");
	assert_int_equal(count(html, "<figure"), 0);
	assert_int_equal(count(html, "language-mermaid"), 1);
	free(html);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_page_graph__blocks_drawn_in_place),
	    cmocka_unit_test(test_page_graph__unmatched_blocks_stay_code),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
