/* tests/unit/test-model.c: declarations/model.c: enum names, NCName and
 * glob. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>

#include "../../declarations/decl.h"

static void
test_model__ncname(void **state)
{
	(void)state;
	assert_true(decl_is_ncname("orders-to-audit"));
	assert_true(decl_is_ncname("_x.1"));
	assert_true(decl_is_ncname("\xc3\xa9t\xc3\xa9"));
	assert_false(decl_is_ncname(""));
	assert_false(decl_is_ncname("1x"));
	assert_false(decl_is_ncname("-x"));
	assert_false(decl_is_ncname(".x"));
	assert_false(decl_is_ncname("a:b"));
	assert_false(decl_is_ncname("a b"));
	assert_false(decl_is_ncname(NULL));
}

static void
test_model__glob(void **state)
{
	(void)state;
	assert_true(decl_glob_match("orders*", "orders"));
	assert_true(decl_glob_match("orders*", "orders.eu"));
	assert_true(decl_glob_match("*", ""));
	assert_true(decl_glob_match("o?ders", "orders"));
	assert_true(decl_glob_match("*.dlq", "a.b.dlq"));
	assert_true(decl_glob_match("a*b*c", "aXbYbZc"));
	assert_false(decl_glob_match("orders*", "order"));
	assert_false(decl_glob_match("?", ""));
	assert_false(decl_glob_match("a*b", "aXc"));
	/* Backtracking stays linear-ish: this must return at once. */
	assert_false(decl_glob_match("a*a*a*a*a*a*a*a*a*a*b",
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));
}

static void
test_model__enum_names(void **state)
{
	enum decl_divert_routing r;
	int i;

	(void)state;
	for (i = DECL_DIVERT_STRIP; i <= DECL_DIVERT_MULTICAST; i++) {
		assert_int_equal(
		    decl_divert_routing_parse(
		        decl_divert_routing_name((enum decl_divert_routing)i),
		        &r),
		    0);
		assert_int_equal(r, i);
	}
	assert_int_equal(decl_divert_routing_parse("strip", &r), -1);
	assert_string_equal(decl_routing_name(DECL_ANYCAST), "anycast");
	assert_string_equal(decl_routing_name(DECL_MULTICAST), "multicast");
	assert_string_equal(decl_mode_name(DECL_CONFIG_MANAGED),
	    "CONFIG_MANAGED");
	assert_string_equal(decl_mode_name(DECL_STUDIO_MANAGED),
	    "STUDIO_MANAGED");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_model__ncname),
	    cmocka_unit_test(test_model__glob),
	    cmocka_unit_test(test_model__enum_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
