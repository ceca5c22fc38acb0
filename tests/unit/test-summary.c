/* tests/unit/test-summary.c: reconcile/plan/summary.c: a plan's summary
 * line, the start of its confirmation text. */
#include "apply-fixture.h"

static void
test_summary__line_starts_the_confirmation(void **state)
{
	struct scen s;
	char *line, *c;
	size_t n;

	(void)state;
	scen_init(&s, false);
	line = plan_summary_line(s.p);
	assert_string_equal(line, "delete 1 queue, 1 divert");
	c = plan_confirmation(s.p);
	assert_true(strncmp(c, line, strlen(line)) == 0);
	assert_true(strncmp(c + strlen(line), " on shop-eu ", 12) == 0);
	free(c);
	free(line);
	/* nothing planned */
	n = s.p->nactions;
	s.p->nactions = 0;
	line = plan_summary_line(s.p);
	assert_string_equal(line, "no changes");
	free(line);
	s.p->nactions = n;
	scen_free(&s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_summary__line_starts_the_confirmation),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
