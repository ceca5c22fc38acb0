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
	char name[32], *md, *c;
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
	free(c);
	free(md);
	plan_free(p);
	fx_free(&f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_plan_md__md_truncated_with_pointer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
