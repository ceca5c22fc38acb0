/* tests/unit/test-args.c: agent/mcp/args.c: one table gives a tool's JSON
 * Schema and its checks (unknown, missing, wrong type, out of range, empty
 * or control characters, each named), the values with their defaults, the
 * arguments as logged (secrets left out, long values cut), and a tool's
 * result made an error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "../../agent/mcp/mcp-int.h"

static const struct mcp_arg spec[] = {
    {"cluster", MCP_ARG_STRING, true, "the cluster", 0, 0, NULL},
    {"limit", MCP_ARG_INTEGER, false, "rows", 1, 10, "5"},
    {"flag", MCP_ARG_BOOLEAN, false, "a flag", 0, 0, "false"},
    {NULL, MCP_ARG_STRING, false, NULL, 0, 0, NULL},
};

static struct json_doc *
doc(const char *text)
{
	struct json_doc *d = NULL;
	struct err err = {0};

	assert_int_equal(json_parse(&d, "t", text, strlen(text), &err), 0);
	return d;
}

static void
test_args__schema_from_the_table(void **state)
{
	struct sbuf b = {0};
	struct jsonw w;

	(void)state;
	jsonw_init(&w, &b, 0);
	mcp_args_schema(&w, spec);
	assert_string_equal(sbuf_str(&b),
	    "{\"additionalProperties\":false,\"properties\":{"
	    "\"cluster\":{\"description\":\"the cluster\",\"maxLength\":1024,"
	    "\"minLength\":1,\"type\":\"string\"},"
	    "\"limit\":{\"default\":5,\"description\":\"rows\",\"maximum\":10,"
	    "\"minimum\":1,\"type\":\"integer\"},"
	    "\"flag\":{\"default\":false,\"description\":\"a flag\","
	    "\"type\":\"boolean\"}},"
	    "\"required\":[\"cluster\"],\"type\":\"object\"}");
	sbuf_release(&b);
}

static void
test_args__checks_name_the_argument(void **state)
{
	static const struct {
		const char *args, *why;
	} bad[] = {
	    {"{}", "missing required argument 'cluster' (string: the cluster)"},
	    {"{\"cluster\":\"c\",\"x\":1}",
	        "unknown argument 'x' (known: 'cluster', 'limit', 'flag')"},
	    {"{\"cluster\":5}", "argument 'cluster' must be a string"},
	    {"{\"cluster\":\"\"}", "argument 'cluster' must not be empty"},
	    {"{\"cluster\":\"a\\u0007b\"}", "argument 'cluster' holds"},
	    {"{\"cluster\":\"a\\u202eb\"}", "argument 'cluster' holds"},
	    {"{\"cluster\":\"c\",\"limit\":\"3\"}",
	        "argument 'limit' must be an integer"},
	    {"{\"cluster\":\"c\",\"limit\":2.5}",
	        "argument 'limit' must be an integer"},
	    {"{\"cluster\":\"c\",\"limit\":11}",
	        "argument 'limit' must be from 1 to 10, not 11"},
	    {"{\"cluster\":\"c\",\"flag\":\"true\"}",
	        "argument 'flag' must be a boolean (true or false)"},
	};
	struct json_doc *d;
	char *why = NULL;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		d = doc(bad[i].args);
		assert_int_equal(mcp_args_check(json_doc_root(d), spec, &why),
		    -1);
		assert_non_null(strstr(why, bad[i].why));
		free(why);
		why = NULL;
		json_doc_free(d);
	}
	d = doc("{\"cluster\":\"c\",\"limit\":3,\"flag\":true}");
	assert_int_equal(mcp_args_check(json_doc_root(d), spec, &why), 0);
	assert_string_equal(mcp_arg_str(json_doc_root(d), "cluster"), "c");
	assert_int_equal(mcp_arg_int(json_doc_root(d), "limit", 5), 3);
	assert_true(mcp_arg_bool(json_doc_root(d), "flag", false));
	json_doc_free(d);
	/* absent: the defaults; no arguments at all is an empty object */
	assert_int_equal(mcp_args_check(NULL, spec + 1, &why), 0);
	assert_int_equal(mcp_arg_int(NULL, "limit", 5), 5);
	assert_false(mcp_arg_bool(NULL, "flag", false));
	assert_null(mcp_arg_str(NULL, "cluster"));
}

static void
test_args__logged_without_secrets(void **state)
{
	struct json_doc *d;
	char *s, *long_value = malloc(400), *text;

	(void)state;
	memset(long_value, 'v', 300);
	long_value[300] = '\0';
	text = malloc(600);
	snprintf(text, 600,
	    "{\"cluster\":\"c\",\"password\":\"hunter2\",\"api_token\":\"t\","
	    "\"long\":\"%s\",\"n\":[1,2]}",
	    long_value);
	d = doc(text);
	s = mcp_args_log(json_doc_root(d));
	assert_null(strstr(s, "hunter2"));
	assert_non_null(strstr(s, "\"password\":\"<redacted>\""));
	assert_non_null(strstr(s, "\"api_token\":\"<redacted>\""));
	assert_non_null(strstr(s, "\"n\":[1,2]"));
	assert_null(strstr(s, long_value));
	assert_non_null(strstr(s, "vvv..."));
	free(s);
	json_doc_free(d);
	s = mcp_args_log(NULL);
	assert_string_equal(s, "{}");
	free(s);
	free(text);
	free(long_value);
}

static void
test_args__a_failed_result_is_the_error_alone(void **state)
{
	struct mcp_result res;

	(void)state;
	mcp_result_init(&res);
	jsonw_key_str(&res.w, "half", "written");
	sbuf_adds(&res.text, "some text");
	mcp_result_fail(&res, "no cluster '%s'", "x");
	jsonw_obj_end(&res.w);
	assert_true(res.is_error);
	assert_string_equal(sbuf_str(&res.data),
	    "{\"error\":\"no cluster 'x'\"}");
	assert_string_equal(sbuf_str(&res.text), "no cluster 'x'");
	mcp_result_release(&res);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_args__schema_from_the_table),
	    cmocka_unit_test(test_args__checks_name_the_argument),
	    cmocka_unit_test(test_args__logged_without_secrets),
	    cmocka_unit_test(test_args__a_failed_result_is_the_error_alone),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
