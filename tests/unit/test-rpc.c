/* tests/unit/test-rpc.c: agent/mcp/rpc.c: JSON-RPC 2.0 messages as MCP
 * frames them: classification (requests, notifications, responses, what is
 * invalid and with which code), the bounded line reader (CRLF, blank
 * lines, a line past the cap dropped whole, a torn last line) and the
 * answers written. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../agent/mcp/mcp-int.h"

/* Classify text (one JSON value) into *m; the document is freed. */
static void
classify(struct mcp_msg *m, const char *text)
{
	struct json_doc *d = NULL;
	char *why = NULL;

	assert_int_equal(mcp_doc_parse(&d, text, strlen(text), &why), 0);
	mcp_msg_classify(m, json_doc_root(d));
	/* method and params are borrowed from the document: keep only kind,
	 * id, code and why past it */
	m->method = NULL;
	m->params = NULL;
	json_doc_free(d);
}

static void
test_rpc__classify_requests_notifications_responses(void **state)
{
	struct mcp_msg m;
	struct json_doc *d = NULL;
	char *why = NULL;
	const char *req =
	    "{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"tools/list\","
	    "\"params\":{\"cursor\":\"1\"}}";

	(void)state;
	assert_int_equal(mcp_doc_parse(&d, req, strlen(req), &why), 0);
	mcp_msg_classify(&m, json_doc_root(d));
	assert_int_equal(m.kind, MCP_REQUEST);
	assert_string_equal(m.id, "\"a\"");
	assert_string_equal(m.method, "tools/list");
	assert_string_equal(json_str(json_get(m.params, "cursor")), "1");
	mcp_msg_release(&m);
	json_doc_free(d);

	classify(&m, "{\"jsonrpc\":\"2.0\",\"id\":42,\"method\":\"ping\"}");
	assert_int_equal(m.kind, MCP_REQUEST);
	assert_string_equal(m.id, "42");
	mcp_msg_release(&m);
	classify(&m,
	    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
	assert_int_equal(m.kind, MCP_NOTIFICATION);
	assert_null(m.id);
	mcp_msg_release(&m);
	classify(&m, "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}");
	assert_int_equal(m.kind, MCP_RESPONSE);
	mcp_msg_release(&m);
	classify(&m, "{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":1}}");
	assert_int_equal(m.kind, MCP_RESPONSE);
	mcp_msg_release(&m);
}

static void
test_rpc__classify_refuses_what_is_not_json_rpc(void **state)
{
	static const struct {
		const char *text;
		int code;
		const char *id; /* NULL: none readable */
		const char *why;
	} cases[] = {
	    {"[1]", MCP_INVALID_REQUEST, NULL, "a JSON object"},
	    {"\"x\"", MCP_INVALID_REQUEST, NULL, "a JSON object"},
	    {"{\"id\":1,\"method\":\"ping\"}", MCP_INVALID_REQUEST, "1",
	        "'jsonrpc' must be \"2.0\""},
	    {"{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}",
	        MCP_INVALID_REQUEST, "1", "'jsonrpc' must be \"2.0\""},
	    {"{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}",
	        MCP_INVALID_REQUEST, NULL, "no null id"},
	    {"{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}",
	        MCP_INVALID_REQUEST, NULL, "a string or an integer"},
	    {"{\"jsonrpc\":\"2.0\",\"id\":true,\"method\":\"ping\"}",
	        MCP_INVALID_REQUEST, NULL, "a string or an integer"},
	    {"{\"jsonrpc\":\"2.0\",\"id\":2}", MCP_INVALID_REQUEST, "2",
	        "'method' is missing"},
	    {"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":{}}",
	        MCP_INVALID_REQUEST, "2", "'method' must be a string"},
	    {"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"x\",\"params\":[]}",
	        MCP_INVALID_PARAMS, "2", "'params' must be an object"},
	};
	struct mcp_msg m;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		classify(&m, cases[i].text);
		assert_int_equal(m.kind, MCP_INVALID);
		assert_int_equal(m.code, cases[i].code);
		if (cases[i].id == NULL)
			assert_null(m.id);
		else
			assert_string_equal(m.id, cases[i].id);
		assert_non_null(strstr(m.why, cases[i].why));
		mcp_msg_release(&m);
	}
}

static void
test_rpc__parse_error_names_line_and_column(void **state)
{
	struct json_doc *d = NULL;
	char *why = NULL;

	(void)state;
	assert_int_equal(mcp_doc_parse(&d, "{\"a\":1,", 7, &why), -1);
	assert_null(d);
	assert_non_null(strstr(why, "line 1, column"));
	free(why);
	why = NULL;
	assert_int_equal(mcp_doc_parse(&d, "{\"a\":1,\"a\":2}", 13, &why), -1);
	assert_non_null(strstr(why, "duplicate key 'a'"));
	free(why);
}

/* A reader over a file holding text. */
static FILE *
file_of(const char *text, size_t len)
{
	FILE *f = tmpfile();

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	fflush(f);
	rewind(f);
	return f;
}

static void
test_rpc__reader_lines_crlf_blank_and_torn(void **state)
{
	static const char text[] = "one\r\n\n  \t\ntwo\nthr";
	FILE *f = file_of(text, sizeof(text) - 1);
	struct mcp_reader r;
	const char *line;
	size_t len;

	(void)state;
	mcp_reader_init(&r, fileno(f), 64);
	assert_int_equal(mcp_reader_next(&r, &line, &len), MCP_READ_LINE);
	assert_int_equal(len, 3);
	assert_string_equal(line, "one");
	assert_int_equal(mcp_reader_next(&r, &line, &len), MCP_READ_LINE);
	assert_string_equal(line, "two");
	assert_int_equal(mcp_reader_next(&r, &line, &len), MCP_READ_TORN);
	assert_int_equal(len, 3);
	mcp_reader_release(&r);
	fclose(f);

	f = file_of("a\n", 2);
	mcp_reader_init(&r, fileno(f), 64);
	assert_int_equal(mcp_reader_next(&r, &line, &len), MCP_READ_LINE);
	assert_int_equal(mcp_reader_next(&r, &line, &len), MCP_READ_EOF);
	mcp_reader_release(&r);
	fclose(f);
}

static void
test_rpc__reader_drops_a_line_past_the_cap_whole(void **state)
{
	size_t big = 300000, len;
	char *text = malloc(big + 16);
	struct mcp_reader r;
	const char *line;
	FILE *f;

	(void)state;
	/* one short line past the cap, in one read */
	f = file_of("0123456789\nok\n", 14);
	mcp_reader_init(&r, fileno(f), 8);
	assert_int_equal(mcp_reader_next(&r, &line, &len), MCP_READ_OVERSIZED);
	assert_int_equal(len, 10);
	assert_int_equal(mcp_reader_next(&r, &line, &len), MCP_READ_LINE);
	assert_string_equal(line, "ok");
	mcp_reader_release(&r);
	fclose(f);
	/* one longer than the buffer: dropped as it comes, then the next */
	memset(text, 'x', big);
	memcpy(text + big, "\nnext\n", 6);
	f = file_of(text, big + 6);
	mcp_reader_init(&r, fileno(f), 1000);
	assert_int_equal(mcp_reader_next(&r, &line, &len), MCP_READ_OVERSIZED);
	assert_int_equal(len, big);
	assert_int_equal(mcp_reader_next(&r, &line, &len), MCP_READ_LINE);
	assert_string_equal(line, "next");
	assert_int_equal(mcp_reader_next(&r, &line, &len), MCP_READ_EOF);
	mcp_reader_release(&r);
	fclose(f);
	/* and one the input ends in */
	f = file_of(text, big);
	mcp_reader_init(&r, fileno(f), 1000);
	assert_int_equal(mcp_reader_next(&r, &line, &len), MCP_READ_TORN);
	assert_int_equal(len, big);
	mcp_reader_release(&r);
	fclose(f);
	free(text);
}

static void
test_rpc__answers_one_line_each(void **state)
{
	struct sbuf out = {0};
	struct mcp_reply r;

	(void)state;
	mcp_write_result(&out, "7", "{\"a\":[1]}");
	mcp_write_error(&out, NULL, MCP_PARSE_ERROR, "Parse error: x\ny", NULL);
	mcp_write_error(&out, "\"q\"", MCP_RESOURCE_NOT_FOUND, "not found",
	    "{\"uri\":\"u\"}");
	assert_string_equal(sbuf_str(&out),
	    "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"a\":[1]}}\n"
	    "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32700,\"message\":"
	    "\"Parse error: x\\ny\"}}\n"
	    "{\"jsonrpc\":\"2.0\",\"id\":\"q\",\"error\":{\"code\":-32002,"
	    "\"message\":\"not found\",\"data\":{\"uri\":\"u\"}}}\n");
	sbuf_release(&out);
	mcp_reply_init(&r);
	assert_int_equal(
	    mcp_reply_fail(&r, MCP_INVALID_PARAMS, NULL, "a %d", 1), -1);
	assert_int_equal(mcp_reply_fail(&r, MCP_INTERNAL_ERROR, NULL, "b"), -1);
	assert_int_equal(r.code, MCP_INVALID_PARAMS); /* the first one counts */
	assert_string_equal(r.message, "a 1");
	mcp_reply_release(&r);
}

static void
test_rpc__revisions_compare_as_dates(void **state)
{
	struct mcp_call c = {"2025-06-18", false, ""};

	(void)state;
	assert_true(mcp_call_since(&c, "2025-03-26"));
	assert_true(mcp_call_since(&c, "2025-06-18"));
	assert_false(mcp_call_since(&c, "2025-11-25"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(
	        test_rpc__classify_requests_notifications_responses),
	    cmocka_unit_test(test_rpc__classify_refuses_what_is_not_json_rpc),
	    cmocka_unit_test(test_rpc__parse_error_names_line_and_column),
	    cmocka_unit_test(test_rpc__reader_lines_crlf_blank_and_torn),
	    cmocka_unit_test(test_rpc__reader_drops_a_line_past_the_cap_whole),
	    cmocka_unit_test(test_rpc__answers_one_line_each),
	    cmocka_unit_test(test_rpc__revisions_compare_as_dates),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
