/* tests/unit/test-plan-comment-md.c: reconcile/plan/plan-comment-md.c:
 * plan.md as lines: what lies in a fence or a table, headings and
 * actions, where a body may end, the head and the tail, the counts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "../../reconcile/plan/plan-int.h"

static const char doc[] =
    "# c: WOULD_APPLY\n"                                /* 0 */
    "\n"                                                /* 1 */
    "## Nodes\n"                                        /* 2 */
    "\n"                                                /* 3 */
    "| a |\n"                                           /* 4 */
    "|---|\n"                                           /* 5 */
    "| b |\n"                                           /* 6 */
    "\n"                                                /* 7 */
    "## Actions\n"                                      /* 8 */
    "\n"                                                /* 9 */
    "### 1. delete-queue `q` — **destroys messages**\n" /* 10 */
    "\n"                                                /* 11 */
    "Why: x.\n"                                         /* 12 */
    "\n"                                                /* 13 */
    "````mermaid\n"                                     /* 14 */
    "### 2. not a heading\n"                            /* 15 */
    "```\n"                                             /* 16 */
    "- **not an item**\n"                               /* 17 */
    "````\n"                                            /* 18 */
    "- **node1**: WOULD_APPLY\n"                        /* 19 */
    "  - sub\n"                                         /* 20 */
    "#### Reload\n"                                     /* 21 */
    "### 2. create-queue `r`\n"                         /* 22 */
    "\n"                                                /* 23 */
    "## Approve\n"                                      /* 24 */
    "\n"                                                /* 25 */
    "```\n"                                             /* 26 */
    "## not a heading\n"                                /* 27 */
    "```\n";                                            /* 28 */

static void
test_plan_comment_md__lines(void **state)
{
	struct plan_md d;
	size_t i;

	(void)state;
	plan_comment_md_parse(&d, doc);
	assert_int_equal(d.n, 29);
	assert_int_equal(d.lines[0].heading, 1);
	assert_int_equal(d.lines[2].heading, 2);
	assert_true(d.lines[10].action);
	assert_true(d.lines[22].action);
	assert_int_equal(d.lines[21].heading, 4);
	/* inside the 4-backtick fence: no heading, no item (``` does not
	 * close it) */
	for (i = 15; i <= 18; i++) {
		assert_int_equal(d.lines[i].heading, 0);
		assert_false(d.lines[i].item);
	}
	assert_int_equal(d.lines[27].heading, 0);
	/* a body may end before the table, not inside it */
	assert_true(d.lines[4].item);
	assert_false(d.lines[5].item);
	assert_false(d.lines[6].item);
	/* before a node, a level-4 heading, a fence at the margin; not
	 * before a sub-item */
	assert_true(d.lines[19].item);
	assert_false(d.lines[20].item);
	assert_true(d.lines[21].item);
	assert_true(d.lines[14].item);
	assert_int_equal(plan_comment_md_span(&d, 0, 2),
	    strlen("# c: WOULD_APPLY\n\n"));
	plan_comment_md_release(&d);
}

static void
test_plan_comment_md__bounds_units_chunks(void **state)
{
	struct plan_md d;
	size_t head, tail;
	char *h;

	(void)state;
	plan_comment_md_parse(&d, doc);
	plan_comment_md_bounds(&d, &head, &tail);
	assert_int_equal(head, 8);
	assert_int_equal(tail, 24);
	/* "## Actions" goes with the first action */
	assert_int_equal(plan_comment_md_unit_end(&d, 8, tail), 22);
	assert_int_equal(plan_comment_md_unit_end(&d, 22, tail), 24);
	/* the first chunk keeps the headings with the text after them */
	assert_int_equal(plan_comment_md_chunk_end(&d, 8, 22), 14);
	assert_int_equal(plan_comment_md_chunk_end(&d, 14, 22), 19);
	assert_int_equal(plan_comment_md_chunk_end(&d, 19, 22), 21);
	h = plan_comment_md_heading(&d, 10);
	assert_string_equal(h, "1. delete-queue `q` — **destroys messages**");
	free(h);
	h = plan_comment_md_counts(&d, 4096);
	assert_string_equal(h,
	    "plan.md shows 2 actions: 1 delete-queue, 1 create-queue.\n\n"
	    "1 of them destroys messages:\n\n"
	    "- 1. delete-queue `q` — **destroys messages**\n");
	free(h);
	/* no room for the headings: counted */
	h = plan_comment_md_counts(&d, 100);
	assert_non_null(
	    strstr(h, "1 of them destroys messages:\n\n- and 1 more\n"));
	free(h);
	plan_comment_md_release(&d);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_plan_comment_md__lines),
	    cmocka_unit_test(test_plan_comment_md__bounds_units_chunks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
