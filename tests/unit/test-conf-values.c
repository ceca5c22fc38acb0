/* tests/unit/test-conf-values.c: agent/conf-values.c: the values of the
 * agent's configuration (durations). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>

#include "../../agent/conf.h"

static void
test_conf_values__duration_parse(void **state)
{
	long v = -1;

	(void)state;
	assert_int_equal(agent_conf_duration_parse("45", &v), 0);
	assert_int_equal(v, 45);
	assert_int_equal(agent_conf_duration_parse("3d", &v), 0);
	assert_int_equal(v, 259200);
	assert_int_equal(agent_conf_duration_parse("-3s", &v), -1);
	assert_int_equal(agent_conf_duration_parse("3 s", &v), -1);
	assert_int_equal(agent_conf_duration_parse("99999999999999999999s", &v),
	    -1);
	assert_int_equal(v, 259200);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_conf_values__duration_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
