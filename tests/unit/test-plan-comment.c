/* tests/unit/test-plan-comment.c: reconcile/plan/plan-comment.c: plan.md
 * split into pull-request comment bodies: at actions, at the nodes of an
 * action too large, never inside a table or a code block, an item too
 * large cut, more bodies than allowed said in one, UTF-8 kept whole. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/sbuf.h"
#include "../../lib/utf8.h"
#include "../../lib/xalloc.h"
#include "../../reconcile/plan/plan-int.h"

#define DIGEST                                                                 \
	"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static const char head[] =
    "# shop-eu: WOULD_APPLY — create 2\n\n"
    "- kind: plan; mode: STUDIO_MANAGED\n\n"
    "## Nodes\n\n"
    "| node | Artemis | read |\n|---|---|---|\n| node1 | 2.44.0 | ok |\n"
    "| node2 | 2.44.0 | ok |\n\n";

static const char approve[] =
    "## Approve\n\nTo approve exactly this plan, type:\n\n```\n"
    "artemis-gitops approve out --confirm 'create 2 on shop-eu "
    "0123456789ab'\n```\n";

static struct plan_comment_opts
opts(size_t limit, size_t max)
{
	struct plan_comment_opts o;

	memset(&o, 0, sizeof(o));
	o.limit = limit;
	o.max_comments = max;
	o.cluster = "shop-eu";
	o.digest = DIGEST;
	o.plan_path = "out/plan.md";
	return o;
}

/* An action of about `bytes` bytes: nodes items of 2 lines each. */
static void
action(struct sbuf *b, size_t n, size_t nodes, size_t pad)
{
	size_t i, j;

	sbuf_addf(b, "### %zu. create-queue `q%zu`\n\nWhy: declared.\n\n", n,
	    n);
	for (i = 0; i < nodes; i++) {
		sbuf_addf(b, "- **node%zu**: WOULD_APPLY\n  - note: ", i + 1);
		for (j = 0; j < pad; j++)
			sbuf_addc(b, (char)('a' + j % 26));
		sbuf_addc(b, '\n');
	}
	sbuf_addc(b, '\n');
}

static char *
doc(size_t nactions, size_t nodes, size_t pad)
{
	struct sbuf b = {0};
	size_t i;

	sbuf_adds(&b, head);
	sbuf_adds(&b, "## Actions\n\n");
	for (i = 0; i < nactions; i++)
		action(&b, i + 1, nodes, pad);
	sbuf_adds(&b, approve);
	return sbuf_take(&b);
}

/* The body's content: the frame and a "(continued ...)" heading off. */
static const char *
content(const char *body, struct sbuf *skip)
{
	const char *s = strstr(body, " -->\n");
	const char *c;

	assert_non_null(s);
	s += 5;
	if (strncmp(s, "*Part ", 6) == 0)
		s = strstr(s, "\n\n") + 2;
	c = strstr(s, " (continued from part ");
	sbuf_reset(skip);
	if (c != NULL && strchr(s, '\n') > c) {
		sbuf_add(skip, s, (size_t)(strstr(c, "\n\n") + 2 - s));
		s = strstr(c, "\n\n") + 2;
	}
	return s;
}

/* Every body within the limit; put together (frames off) they are md. */
static void
assert_whole(const struct plan_comments *c, const char *md, size_t limit)
{
	struct sbuf all = {0}, skip = {0};
	size_t i;

	for (i = 0; i < c->n; i++) {
		assert_true(c->parts[i].len <= limit);
		assert_int_equal(c->parts[i].len, strlen(c->parts[i].body));
		sbuf_adds(&all, content(c->parts[i].body, &skip));
	}
	assert_string_equal(sbuf_str(&all), md);
	sbuf_release(&all);
	sbuf_release(&skip);
}

static void
test_plan_comment__one_body_when_it_fits(void **state)
{
	struct plan_comment_opts o = opts(PLAN_COMMENT_LIMIT, 10);
	struct plan_comments c;
	char *md = doc(3, 2, 10), *want;

	(void)state;
	plan_comment_split(&c, md, &o);
	assert_int_equal(c.n, 1);
	assert_int_equal(c.needed, 1);
	assert_false(c.too_large);
	want = xasprintf("<!-- artemis-gitops:plan-comment id=artemis-gitops "
	                 "cluster=shop-eu part=1/1 digest=0123456789ab -->\n%s",
	    md);
	assert_string_equal(c.parts[0].body, want);
	assert_string_equal(c.parts[0].first_action, "1. create-queue `q1`");
	assert_string_equal(c.parts[0].last_action, "3. create-queue `q3`");
	assert_string_equal(c.marker_prefix,
	    "<!-- artemis-gitops:plan-comment id=artemis-gitops "
	    "cluster=shop-eu ");
	free(want);
	free(md);
	plan_comments_release(&c);
}

/* Ten actions of about 1 KiB at 4096 bytes: each body after the first
 * starts at an action, the head in the first, Approve in the last. */
static void
test_plan_comment__split_at_actions(void **state)
{
	struct plan_comment_opts o = opts(4096, 10);
	struct plan_comments c;
	struct sbuf skip = {0};
	char *md = doc(10, 2, 450);
	size_t i;

	(void)state;
	plan_comment_split(&c, md, &o);
	assert_true(c.n > 2 && c.n <= 10);
	assert_whole(&c, md, 4096);
	assert_non_null(strstr(c.parts[0].body, "| node2 | 2.44.0 | ok |\n"));
	assert_non_null(strstr(c.parts[0].body, "\n## Actions\n\n### 1. "));
	for (i = 1; i < c.n; i++) {
		assert_true(
		    strncmp(content(c.parts[i].body, &skip), "### ", 4) == 0);
		assert_int_equal(skip.len, 0);
		assert_non_null(strstr(c.parts[i].body, "*Part "));
		assert_non_null(c.parts[i].first_action);
	}
	assert_non_null(strstr(c.parts[c.n - 1].body, "\n## Approve\n"));
	assert_null(strstr(c.parts[0].body, "## Approve"));
	sbuf_release(&skip);
	free(md);
	plan_comments_release(&c);
}

/* One action of 20 nodes, about 10 KiB: split before node items, each
 * continuation under the action's heading again. */
static void
test_plan_comment__oversized_action_split_at_nodes(void **state)
{
	struct plan_comment_opts o = opts(4096, 10);
	struct plan_comments c;
	struct sbuf skip = {0};
	char *md = doc(1, 20, 480), *want;
	const char *s;
	size_t i;

	(void)state;
	plan_comment_split(&c, md, &o);
	assert_true(c.n >= 3);
	assert_whole(&c, md, 4096);
	/* the action starts under the head, with the nodes that fit */
	assert_non_null(strstr(c.parts[0].body, "### 1. create-queue `q1`\n"));
	assert_non_null(strstr(c.parts[0].body, "- **node1**"));
	for (i = 1; i < c.n; i++) {
		s = content(c.parts[i].body, &skip);
		want = xasprintf(
		    "### 1. create-queue `q1` (continued from part %zu)\n\n",
		    i);
		assert_string_equal(sbuf_str(&skip), want);
		free(want);
		assert_true(strncmp(s, "- **node", 8) == 0);
		assert_string_equal(c.parts[i].first_action,
		    "1. create-queue `q1`");
	}
	free(md);
	sbuf_release(&skip);
	plan_comments_release(&c);
}

/* A table and a fenced block larger than the room left stay whole: they
 * move to the next body. */
static void
test_plan_comment__never_inside_table_or_fence(void **state)
{
	struct plan_comment_opts o = opts(4096, 10);
	struct plan_comments c;
	struct sbuf b = {0};
	char *md;
	size_t i, k;

	(void)state;
	sbuf_adds(&b, head);
	sbuf_adds(&b, "## Actions\n\n");
	action(&b, 1, 2, 1200);
	sbuf_adds(&b, "### 2. delete-queue `q`\n\nWhy: removed.\n\n```mermaid\n"
	              "flowchart LR\n");
	for (i = 0; i < 60; i++)
		sbuf_addf(&b, "  n%zu[\"divert d%zu\"] --> q\n", i, i);
	sbuf_adds(&b,
	    "```\n\n- **node1**: WOULD_APPLY\n\n"
	    "## Unmanaged (left alone)\n\n| kind | name |\n|---|---|\n");
	for (i = 0; i < 80; i++)
		sbuf_addf(&b, "| queue | left-%zu |\n", i);
	sbuf_adds(&b, "\n");
	sbuf_adds(&b, approve);
	md = sbuf_take(&b);
	plan_comment_split(&c, md, &o);
	assert_whole(&c, md, 4096);
	for (i = 0, k = 0; i < c.n; i++) {
		const char *m = strstr(c.parts[i].body, "```mermaid\n");

		if (m != NULL) {
			k++;
			assert_non_null(
			    strstr(m, "  n59[\"divert d59\"] --> q\n```\n"));
		}
		if (strstr(c.parts[i].body, "| queue | left-0 |") != NULL)
			assert_non_null(
			    strstr(c.parts[i].body, "| queue | left-79 |\n"));
	}
	assert_int_equal(k, 1);
	free(md);
	plan_comments_release(&c);
}

/* One node item with a 10 KiB diff: cut at a line, the fence closed, a
 * pointer to plan.md; the part says it was cut. */
static void
test_plan_comment__oversized_item_cut(void **state)
{
	struct plan_comment_opts o = opts(4096, 10);
	struct plan_comments c;
	struct sbuf b = {0};
	const char *s;
	char *md;
	size_t i, fences;

	(void)state;
	sbuf_adds(&b, head);
	sbuf_adds(&b,
	    "## broker.xml (CONFIG_MANAGED)\n\nThe rendered files.\n\n"
	    "### Node `node1`\n\n`broker/node1/broker.xml`:\n\n"
	    "```diff\n");
	for (i = 0; i < 400; i++)
		sbuf_addf(&b, "+   <queue name=\"q%03zu\"/>\n", i);
	sbuf_adds(&b, "```\n\n");
	sbuf_adds(&b, approve);
	md = sbuf_take(&b);
	plan_comment_split(&c, md, &o);
	assert_true(c.n >= 2);
	for (i = 0; i < c.n; i++) {
		assert_true(c.parts[i].len <= 4096);
		for (fences = 0, s = c.parts[i].body;
		     (s = strstr(s, "```")) != NULL; s += 3)
			fences++;
		assert_int_equal(fences % 2, 0);
	}
	s = NULL;
	for (i = 0; i < c.n; i++)
		if (c.parts[i].cut)
			s = c.parts[i].body;
	assert_non_null(s);
	assert_non_null(strstr(s, "+   <queue name=\"q000\"/>\n"));
	assert_non_null(
	    strstr(s, "\n```\n\n**Cut short:** the rest of this "
	              "part of the plan does not fit in one "
	              "comment; the full plan is `out/plan.md`.\n"));
	assert_null(strstr(s, "q399"));
	assert_non_null(strstr(c.parts[c.n - 1].body, "## Approve"));
	free(md);
	plan_comments_release(&c);
}

/* More bodies than max_comments: one body with the head, the note, the
 * counts and the Approve section. */
static void
test_plan_comment__too_many_parts_one_body(void **state)
{
	struct plan_comment_opts o = opts(4096, 10);
	struct plan_comments c;
	char *md = doc(40, 2, 800);

	(void)state;
	o.plan_url = "https://ci.example/runs/7";
	plan_comment_split(&c, md, &o);
	assert_true(c.too_large);
	assert_true(c.needed > 10);
	assert_int_equal(c.n, 1);
	assert_true(c.parts[0].len <= 4096);
	assert_non_null(
	    strstr(c.parts[0].body, "part=1/1 digest=0123456789ab"));
	assert_non_null(strstr(c.parts[0].body, head));
	assert_non_null(strstr(c.parts[0].body,
	    "more than the 10 allowed:** the full plan is "
	    "[plan.md](<https://ci.example/runs/7>). plan.md shows 40 "
	    "actions: 40 create-queue.\n"));
	assert_non_null(strstr(c.parts[0].body, approve));
	free(md);
	plan_comments_release(&c);
}

static bool
valid_utf8(const char *s)
{
	uint32_t cp;
	size_t n;

	for (; *s != '\0'; s += n) {
		n = utf8_decode(s, &cp);
		if (n == 0)
			return false;
	}
	return true;
}

/* A line longer than a body, of two-byte characters, is cut between
 * characters. */
static void
test_plan_comment__utf8_cut_at_a_character(void **state)
{
	struct plan_comment_opts o = opts(4096, 10);
	struct plan_comments c;
	struct sbuf b = {0};
	size_t i, cut = 0;
	char *md;

	(void)state;
	sbuf_adds(&b, head);
	sbuf_adds(&b,
	    "## Actions\n\n### 1. create-queue `q`\n\nWhy: x.\n\n- **n");
	for (i = 0; i < 5000; i++)
		sbuf_adds(&b, "é");
	sbuf_adds(&b, "**: WOULD_APPLY\n\n");
	sbuf_adds(&b, approve);
	md = sbuf_take(&b);
	plan_comment_split(&c, md, &o);
	for (i = 0; i < c.n; i++) {
		assert_true(c.parts[i].len <= 4096);
		assert_true(valid_utf8(c.parts[i].body));
		cut += c.parts[i].cut;
	}
	assert_int_equal(cut, 1);
	free(md);
	plan_comments_release(&c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_plan_comment__one_body_when_it_fits),
	    cmocka_unit_test(test_plan_comment__split_at_actions),
	    cmocka_unit_test(
	        test_plan_comment__oversized_action_split_at_nodes),
	    cmocka_unit_test(test_plan_comment__never_inside_table_or_fence),
	    cmocka_unit_test(test_plan_comment__oversized_item_cut),
	    cmocka_unit_test(test_plan_comment__too_many_parts_one_body),
	    cmocka_unit_test(test_plan_comment__utf8_cut_at_a_character),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
