/* tests/unit/test-jsonw.c: lib/jsonw.c: separators, indentation, escapes
 * and a value written as it is (jsonw_raw). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>

#include "../../lib/jsonw.h"

static void
test_jsonw__compact_and_indented(void **state)
{
	struct sbuf b = {0};
	struct jsonw w;

	(void)state;
	jsonw_init(&w, &b, 0);
	jsonw_obj_begin(&w);
	jsonw_key_str(&w, "a", "x\"\n\x01");
	jsonw_key(&w, "b");
	jsonw_arr_begin(&w);
	jsonw_int(&w, -3);
	jsonw_bool(&w, true);
	jsonw_null(&w);
	jsonw_str(&w, NULL);
	jsonw_arr_end(&w);
	jsonw_key_bool_opt(&w, "c", -1);
	jsonw_obj_end(&w);
	assert_string_equal(sbuf_str(&b),
	    "{\"a\":\"x\\\"\\n\\u0001\",\"b\":[-3,true,null,null],\"c\":null}");
	sbuf_reset(&b);
	jsonw_init(&w, &b, 2);
	jsonw_obj_begin(&w);
	jsonw_key(&w, "e");
	jsonw_arr_begin(&w);
	jsonw_arr_end(&w);
	jsonw_key_int(&w, "n", 1);
	jsonw_obj_end(&w);
	assert_string_equal(sbuf_str(&b), "{\n  \"e\": [],\n  \"n\": 1\n}");
	sbuf_release(&b);
}

static void
test_jsonw__raw_values_take_their_separators(void **state)
{
	struct sbuf b = {0};
	struct jsonw w;

	(void)state;
	jsonw_init(&w, &b, 0);
	jsonw_obj_begin(&w);
	jsonw_key(&w, "rows");
	jsonw_arr_begin(&w);
	jsonw_raw(&w, "{\"a\":1}");
	jsonw_raw(&w, "[2]");
	jsonw_int(&w, 3);
	jsonw_arr_end(&w);
	jsonw_key(&w, "x");
	jsonw_raw(&w, "true");
	jsonw_obj_end(&w);
	assert_string_equal(sbuf_str(&b),
	    "{\"rows\":[{\"a\":1},[2],3],\"x\":true}");
	sbuf_reset(&b);
	jsonw_init(&w, &b, 2);
	jsonw_arr_begin(&w);
	jsonw_raw(&w, "{\"a\":1}");
	jsonw_raw(&w, "2");
	jsonw_arr_end(&w);
	assert_string_equal(sbuf_str(&b), "[\n  {\"a\":1},\n  2\n]");
	sbuf_release(&b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_jsonw__compact_and_indented),
	    cmocka_unit_test(test_jsonw__raw_values_take_their_separators),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
