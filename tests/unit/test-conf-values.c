/* tests/unit/test-conf-values.c: agent/conf-values.c: the values of the
 * agent's configuration (durations, sizes). */
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

static void
test_conf_values__size_parse(void **state)
{
	long v = -1;

	(void)state;
	assert_int_equal(agent_conf_size_parse("4096", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(agent_conf_size_parse("10B", &v), 0);
	assert_int_equal(v, 10);
	assert_int_equal(agent_conf_size_parse("512KiB", &v), 0);
	assert_int_equal(v, 512 * 1024);
	assert_int_equal(agent_conf_size_parse("256MiB", &v), 0);
	assert_int_equal(v, 256L << 20);
	assert_int_equal(agent_conf_size_parse("4GiB", &v), 0);
	assert_int_equal(v, 4L << 30);
	assert_int_equal(agent_conf_size_parse("1MB", &v), -1);
	assert_int_equal(agent_conf_size_parse("1 MiB", &v), -1);
	assert_int_equal(agent_conf_size_parse("-1MiB", &v), -1);
	assert_int_equal(agent_conf_size_parse("MiB", &v), -1);
	assert_int_equal(agent_conf_size_parse("99999999999GiB", &v), -1);
	assert_int_equal(v, 4L << 30);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_conf_values__duration_parse),
	    cmocka_unit_test(test_conf_values__size_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
