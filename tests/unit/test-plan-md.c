/* tests/unit/test-plan-md.c: reconcile/plan/plan-md.c: plan.md. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan-fixture.h"

/* Past PLAN_MD_MAX the actions are cut; the summary stays first and
 * the approval text last. */
static void
test_plan_md__md_truncated_with_pointer(void **state)
{
	struct plan_managed m = {0};
	struct plan *p;
	struct fx f;
	char name[32], *md, *c, *t;
	size_t i;

	(void)state;
	fx_init(&f, DECL_STUDIO_MANAGED, 2);
	for (i = 0; i < 400; i++) {
		snprintf(name, sizeof(name), "queue-%03zu", i);
		fx_queue(&f, "orders", name);
	}
	p = plan_build(&f.c, &m, &f.s, &no_opts);
	md = plan_render_md(p, "out");
	c = plan_confirmation(p);
	assert_true(strlen(md) <= PLAN_MD_MAX);
	assert_true(
	    strncmp(md, "# shop-eu: WOULD_APPLY — create 401", 35) == 0);
	assert_non_null(strstr(md,
	    "more actions are not shown here; the full plan is in `out/plan.json`"));
	assert_non_null(strstr(md, c));
	/* the title alone is plan.md's first lines (what plan prints) */
	t = plan_render_md_title(p);
	assert_true(strlen(t) > 4);
	assert_string_equal(t + strlen(t) - 2, "\n\n");
	assert_true(strncmp(md, t, strlen(t)) == 0);
	free(t);
	free(c);
	free(md);
	plan_free(p);
	fx_free(&f);
}

/* A name read from a broker can hold anything: every name is a code span
 * it cannot leave (a longer fence than its backticks, padding where a
 * backtick ends it), its line breaks and controls shown as <U+XXXX>, so
 * that it can neither end the span, start a fence (a fake diagram or
 * approve command) nor mention anyone. */
static void
test_plan_md__names_cannot_break_out(void **state)
{
	static char q1[] = "q`1", why[] = "test", unm[] = "queue";
	static char evil[] = "x\n```mermaid\ngraph", tick[] = "`end",
	            both[] = " s ", at[] = "@org/team <img src=x>";
	static char *on[] = {n1};
	struct plan_unmanaged um[] = {{unm, evil, on, 1}, {unm, tick, on, 1},
	    {unm, both, on, 1}, {unm, at, on, 1}};
	struct plan_action a;
	struct plan_step np[3];
	struct plan p;
	char *md;

	(void)state;
	action_init(&a, PLAN_ACT_CREATE_QUEUE, q1, why, np,
	    PLAN_OUT_WOULD_APPLY, PLAN_OUT_WOULD_APPLY);
	plan_init(&p, &a, 1, um, 4);
	md = plan_render_md(&p, "out");
	assert_non_null(strstr(md, "### 1. create-queue ``q`1``\n"));
	assert_non_null(strstr(md,
	    "- queue ````x<U+000A>```mermaid<U+000A>graph```` on node1\n"));
	assert_null(strstr(md, "\n```mermaid"));
	assert_non_null(strstr(md, "- queue `` `end `` on node1\n"));
	assert_non_null(strstr(md, "- queue `  s  ` on node1\n"));
	assert_non_null(
	    strstr(md, "- queue `@org/team <img src=x>` on node1\n"));
	free(md);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_plan_md__md_truncated_with_pointer),
	    cmocka_unit_test(test_plan_md__names_cannot_break_out),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
