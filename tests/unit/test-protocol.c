/* tests/unit/test-protocol.c: agent/mcp/protocol.c, the protocol as lines
 * in and lines out: initialize's negotiation (every revision served, the
 * newest for any other, once a session), what tools/list and tools/call
 * carry per revision (annotations, titles, structuredContent, a wrong
 * argument as -32602 or isError), an unknown tool, requests before
 * initialize, 2026-07-28 without initialize (server/discover, resultType,
 * caching hints, -32022, -32602), 2025-03-26's batches, notifications
 * unanswered; and the resources of an outbox and a state folder
 * (resources.c): listed newest first, read, a path out refused, the last
 * audit rows of one cluster. The validate tool on a folder on disk shows
 * a diagnostic at its line and column. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../agent/mcp/mcp-int.h"
#include "../../lib/xalloc.h"

struct fixture {
	char dir[64];
	char *outbox, *state;
	struct agent_conf conf;
	struct mcp_ctx ctx;
	struct mcp_server srv;
	struct json_doc *last;
};

static int
setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "/tmp/test-protocol-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	f->outbox = xasprintf("%s/outbox", f->dir);
	f->state = xasprintf("%s/state", f->dir);
	mkdir(f->outbox, 0700);
	mkdir(f->state, 0700);
	f->conf.outbox = f->outbox;
	f->conf.state = f->state;
	f->conf.path = f->dir;
	f->ctx.conf = &f->conf;
	f->ctx.repo = xasprintf("%s/no-repo", f->dir);
	f->ctx.default_rev = xstrdup("HEAD");
	mcp_server_init(&f->srv, &f->ctx);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;
	char *cmd = xasprintf("rm -rf '%s'", f->dir);

	assert_int_equal(system(cmd), 0);
	free(cmd);
	mcp_server_release(&f->srv);
	json_doc_free(f->last);
	free(f->ctx.repo);
	free(f->ctx.default_rev);
	free(f->outbox);
	free(f->state);
	free(f);
	return 0;
}

/* Send line; the one answer line, parsed (borrowed until the next), or
 * NULL when there is none. */
static const struct json *
send_line(struct fixture *f, const char *line)
{
	struct sbuf out = {0};
	struct err err = {0};

	json_doc_free(f->last);
	f->last = NULL;
	mcp_server_handle(&f->srv, line, strlen(line), &out);
	if (out.len == 0)
		return NULL;
	/* exactly one line, ending in '\n', none inside */
	assert_int_equal(out.buf[out.len - 1], '\n');
	assert_null(memchr(out.buf, '\n', out.len - 1));
	assert_int_equal(
	    json_parse(&f->last, "answer", out.buf, out.len - 1, &err), 0);
	sbuf_release(&out);
	return json_doc_root(f->last);
}

static int64_t
code_of(const struct json *r)
{
	int64_t c = 0;

	assert_int_equal(json_int(json_get(json_get(r, "error"), "code"), &c),
	    0);
	return c;
}

static const struct json *
result_of(const struct json *r)
{
	assert_non_null(json_get(r, "result"));
	return json_get(r, "result");
}

static const struct json *
init(struct fixture *f, const char *version)
{
	char *line = xasprintf(
	    "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\","
	    "\"params\":{\"protocolVersion\":\"%s\",\"capabilities\":{},"
	    "\"clientInfo\":{\"name\":\"unit\",\"version\":\"1\"}}}",
	    version);
	const struct json *r = send_line(f, line);

	free(line);
	return r;
}

#define MODERN_META                                                            \
	"\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"              \
	"\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}"

static void
test_protocol__negotiation(void **state)
{
	static const char *const asked[] = {"2025-11-25", "2025-06-18",
	    "2025-03-26", "2024-11-05", "2024-10-07", "2026-07-28", "x"};
	static const char *const got[] = {"2025-11-25", "2025-06-18",
	    "2025-03-26", "2024-11-05", "2025-11-25", "2025-11-25",
	    "2025-11-25"};
	struct fixture *f = *state;
	const struct json *r;
	size_t i;

	for (i = 0; i < sizeof(asked) / sizeof(asked[0]); i++) {
		mcp_server_release(&f->srv);
		mcp_server_init(&f->srv, &f->ctx);
		r = result_of(init(f, asked[i]));
		assert_string_equal(json_str(json_get(r, "protocolVersion")),
		    got[i]);
		assert_non_null(json_get(json_get(r, "capabilities"), "tools"));
		assert_non_null(
		    json_get(json_get(r, "capabilities"), "resources"));
		assert_null(json_get(json_get(r, "capabilities"), "prompts"));
		assert_string_equal(
		    json_str(json_get(json_get(r, "serverInfo"), "name")),
		    "artemis-gitops");
	}
	assert_int_equal(code_of(init(f, "2025-11-25")), MCP_INVALID_REQUEST);
	assert_string_equal(f->srv.client, "unit 1");
}

static void
test_protocol__before_initialize(void **state)
{
	struct fixture *f = *state;
	const struct json *r;

	r = send_line(f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
	assert_non_null(json_get(r, "result"));
	r = send_line(f,
	    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}");
	assert_int_equal(code_of(r), MCP_INVALID_PARAMS);
	assert_non_null(
	    strstr(json_str(json_get(json_get(r, "error"), "message")),
	        "send initialize first"));
	r = send_line(f,
	    "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"initialize\","
	    "\"params\":{}}");
	assert_int_equal(code_of(r), MCP_INVALID_PARAMS);
	assert_null(send_line(f,
	    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"));
	r = send_line(f, "{\"jsonrpc\":\"2.0\",\"id\":4,");
	assert_int_equal(code_of(r), MCP_PARSE_ERROR);
	assert_null(json_get(r, "id"));
}

static void
test_protocol__tools_per_revision(void **state)
{
	struct fixture *f = *state;
	const struct json *r, *t;

	init(f, "2024-11-05");
	r = result_of(send_line(f,
	    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}"));
	assert_int_equal(json_size(json_get(r, "tools")), 6);
	t = json_first(json_get(r, "tools"));
	assert_null(json_get(t, "annotations"));
	assert_null(json_get(t, "title"));
	assert_null(json_get(r, "resultType"));
	r = send_line(f,
	    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\","
	    "\"params\":{\"name\":\"validate\",\"arguments\":{\"path\":1}}}");
	assert_int_equal(code_of(r), MCP_INVALID_PARAMS);
	mcp_server_release(&f->srv);
	mcp_server_init(&f->srv, &f->ctx);
	init(f, "2025-06-18");
	r = result_of(send_line(f,
	    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}"));
	t = json_first(json_get(r, "tools"));
	assert_non_null(json_get(t, "annotations"));
	assert_string_equal(json_str(json_get(t, "title")), "List clusters");
	mcp_server_release(&f->srv);
	mcp_server_init(&f->srv, &f->ctx);
	init(f, "2025-11-25");
	r = result_of(send_line(f,
	    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\","
	    "\"params\":{\"name\":\"validate\",\"arguments\":{\"path\":1}}}"));
	assert_true(json_is_bool(json_get(r, "isError")));
	assert_non_null(strstr(
	    json_str(json_get(json_first(json_get(r, "content")), "text")),
	    "argument 'path' must be a string"));
	r = send_line(f,
	    "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\","
	    "\"params\":{\"name\":\"approve\"}}");
	assert_int_equal(code_of(r), MCP_INVALID_PARAMS);
	assert_non_null(
	    strstr(json_str(json_get(json_get(r, "error"), "message")),
	        "Unknown tool: approve"));
	r = send_line(f,
	    "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\","
	    "\"params\":{\"arguments\":{}}}");
	assert_int_equal(code_of(r), MCP_INVALID_PARAMS);
	r = send_line(f,
	    "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\","
	    "\"params\":{\"name\":\"validate\",\"arguments\":[]}}");
	assert_int_equal(code_of(r), MCP_INVALID_PARAMS);
	r = send_line(f,
	    "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"prompts/list\"}");
	assert_int_equal(code_of(r), MCP_METHOD_NOT_FOUND);
}

static void
test_protocol__validate_a_folder_shows_line_and_column(void **state)
{
	struct fixture *f = *state;
	char *dir = xasprintf("%s/c", f->dir), *file, *line;
	const struct json *r, *d;
	FILE *fp;
	int64_t n = 0;
	bool is_error = true;

	mkdir(dir, 0700);
	file = xasprintf("%s/cluster.yaml", dir);
	fp = fopen(file, "w");
	fputs("version: 1\ncluster: c\nmode: STUDIO_MANAGED\nroutng: x\n", fp);
	fclose(fp);
	init(f, "2025-11-25");
	line = xasprintf("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
	                 "\"tools/call\",\"params\":{\"name\":\"validate\","
	                 "\"arguments\":{\"path\":\"%s\"}}}",
	    dir);
	r = result_of(send_line(f, line));
	assert_int_equal(json_bool(json_get(r, "isError"), &is_error), 0);
	assert_false(is_error);
	r = json_get(r, "structuredContent");
	assert_true(json_is_bool(json_get(r, "valid")));
	for (d = json_first(json_get(r, "diagnostics")); d != NULL;
	     d = json_next(d))
		if (strstr(json_str(json_get(d, "message")), "routng") != NULL)
			break;
	assert_non_null(d);
	assert_int_equal(json_int(json_get(d, "line"), &n), 0);
	assert_int_equal(n, 4);
	assert_int_equal(json_int(json_get(d, "col"), &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(json_str(json_get(d, "path")), file);
	free(line);
	free(file);
	free(dir);
}

static void
test_protocol__stateless_2026_07_28(void **state)
{
	struct fixture *f = *state;
	const struct json *r, *e;
	int64_t ttl = -1;

	r = result_of(send_line(f,
	    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\","
	    "\"params\":{" MODERN_META "}}"));
	assert_string_equal(json_str(json_get(r, "resultType")), "complete");
	assert_int_equal(json_size(json_get(r, "supportedVersions")),
	    mcp_nversions);
	assert_string_equal(
	    json_str(json_first(json_get(r, "supportedVersions"))),
	    "2026-07-28");
	assert_int_equal(json_int(json_get(r, "ttlMs"), &ttl), 0);
	assert_true(ttl >= 0);
	assert_non_null(json_get(json_get(r, "_meta"),
	    "io.modelcontextprotocol/serverInfo"));
	r = result_of(send_line(f,
	    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/list\","
	    "\"params\":{" MODERN_META "}}"));
	assert_int_equal(json_size(json_get(r, "resources")), 0);
	assert_string_equal(json_str(json_get(r, "cacheScope")), "private");
	r = send_line(f,
	    "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\","
	    "\"params\":{\"_meta\":{\"io.modelcontextprotocol/"
	    "protocolVersion\":\"2030-01-01\","
	    "\"io.modelcontextprotocol/clientCapabilities\":{}}}}");
	assert_int_equal(code_of(r), MCP_UNSUPPORTED_VERSION);
	e = json_get(json_get(r, "error"), "data");
	assert_string_equal(json_str(json_get(e, "requested")), "2030-01-01");
	assert_int_equal(json_size(json_get(e, "supported")), mcp_nversions);
	r = send_line(f,
	    "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/list\","
	    "\"params\":{\"_meta\":{\"io.modelcontextprotocol/"
	    "protocolVersion\":\"2026-07-28\"}}}");
	assert_int_equal(code_of(r), MCP_INVALID_PARAMS);
	r = send_line(f,
	    "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\",\"params\":{" MODERN_META
	    "}}");
	assert_int_equal(code_of(r), MCP_METHOD_NOT_FOUND);
	/* nothing of it opened a session */
	assert_false(f->srv.initialized);
}

static void
test_protocol__batches_in_2025_03_26_only(void **state)
{
	struct fixture *f = *state;
	struct sbuf out = {0};
	static const char batch[] =
	    "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"},"
	    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"},"
	    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"nope\"}]";

	init(f, "2025-11-25");
	assert_int_equal(code_of(send_line(f, batch)), MCP_INVALID_REQUEST);
	mcp_server_release(&f->srv);
	mcp_server_init(&f->srv, &f->ctx);
	init(f, "2025-03-26");
	mcp_server_handle(&f->srv, batch, strlen(batch), &out);
	assert_string_equal(sbuf_str(&out),
	    "[{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}},"
	    "{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-32601,"
	    "\"message\":\"Method not found: nope (revision 2025-03-26)\"}}]\n");
	sbuf_reset(&out);
	mcp_server_handle(&f->srv,
	    "[{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\"}]", 46, &out);
	assert_int_equal(out.len, 0);
	sbuf_release(&out);
	assert_int_equal(code_of(send_line(f, "[]")), MCP_INVALID_REQUEST);
}

static void
put(const char *dir, const char *name, const char *text)
{
	char *p = xasprintf("%s/%s", dir, name);
	FILE *fp = fopen(p, "w");

	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
	free(p);
}

static void
test_protocol__resources_of_the_outbox_and_the_audit(void **state)
{
	struct fixture *f = *state;
	char *c = xasprintf("%s/c1", f->outbox), *old, *new, *line, *drift;
	const struct json *r, *first;
	struct sbuf audit = {0};
	int i;

	mkdir(c, 0700);
	old = xasprintf("%s/20261201T000000Z-aaaaaaaaaaaa", c);
	new = xasprintf("%s/20261202T000000Z-bbbbbbbbbbbb", c);
	mkdir(old, 0700);
	mkdir(new, 0700);
	put(old, "plan.json", "{\"old\":true}");
	put(old, "plan.md", "# old");
	put(new, "plan.json", "{\"new\":true}");
	put(new, "plan.md", "# new plan");
	drift = xasprintf("%s/drift", c);
	mkdir(drift, 0700);
	put(drift, "drift.json", "{\"drift\":1}");
	for (i = 0; i < 60; i++)
		sbuf_addf(&audit, "{\"cluster\":\"%s\",\"n\":%d}\n",
		    i % 2 ? "c1" : "other", i);
	put(f->state, "audit.jsonl", sbuf_str(&audit));
	sbuf_release(&audit);
	init(f, "2025-11-25");
	r = result_of(send_line(f,
	    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/list\"}"));
	first = json_first(json_get(r, "resources"));
	assert_string_equal(json_str(json_get(first, "uri")),
	    "artemis-gitops://previews/c1/20261202T000000Z-bbbbbbbbbbbb/"
	    "plan.md");
	assert_string_equal(json_str(json_get(first, "mimeType")),
	    "text/markdown");
	/* 2 previews x 2 files, the drift report's one file, the audit */
	assert_int_equal(json_size(json_get(r, "resources")), 6);
	r = result_of(send_line(f,
	    "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"resources/read\","
	    "\"params\":{\"uri\":\"artemis-gitops://drift/c1/drift.json\"}}"));
	assert_string_equal(
	    json_str(json_get(json_first(json_get(r, "contents")), "mimeType")),
	    "application/json");
	assert_int_equal(
	    code_of(send_line(f, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":"
	                         "\"resources/read\",\"params\":{\"uri\":"
	                         "\"artemis-gitops://drift/c1/drift.md\"}}")),
	    MCP_RESOURCE_NOT_FOUND);
	r = result_of(send_line(f,
	    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/read\","
	    "\"params\":{\"uri\":\"artemis-gitops://previews/c1/"
	    "20261202T000000Z-bbbbbbbbbbbb/plan.md\"}}"));
	assert_string_equal(
	    json_str(json_get(json_first(json_get(r, "contents")), "text")),
	    "# new plan");
	for (i = 0; i < 4; i++) {
		static const char *const bad[] = {
		    "artemis-gitops://previews/c1/../c1/plan.md",
		    "artemis-gitops://previews/c1/20261202T000000Z-bbbbbbbbbbbb/"
		    "approval.json",
		    "artemis-gitops://previews/c1/nope/plan.md",
		    "file:///etc/passwd"};

		line =
		    xasprintf("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":"
		              "\"resources/read\",\"params\":{\"uri\":\"%s\"}}",
		        bad[i]);
		assert_int_equal(code_of(send_line(f, line)),
		    MCP_RESOURCE_NOT_FOUND);
		free(line);
	}
	r = result_of(send_line(f,
	    "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"resources/read\","
	    "\"params\":{\"uri\":\"artemis-gitops://audit/c1\"}}"));
	line = xstrdup(
	    json_str(json_get(json_first(json_get(r, "contents")), "text")));
	/* the 30 rows of c1, all of them, oldest first */
	assert_non_null(strstr(line, "{\"cluster\":\"c1\",\"n\":1}"));
	assert_non_null(strstr(line, "{\"cluster\":\"c1\",\"n\":59}"));
	assert_null(strstr(line, "other"));
	assert_true(strstr(line, "\"n\":1}") < strstr(line, "\"n\":59}"));
	free(line);
	r = send_line(f,
	    "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"resources/list\","
	    "\"params\":{\"cursor\":\"x\"}}");
	assert_int_equal(code_of(r), MCP_INVALID_PARAMS);
	free(drift);
	free(old);
	free(new);
	free(c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_protocol__negotiation, setup,
	        teardown),
	    cmocka_unit_test_setup_teardown(test_protocol__before_initialize,
	        setup, teardown),
	    cmocka_unit_test_setup_teardown(test_protocol__tools_per_revision,
	        setup, teardown),
	    cmocka_unit_test_setup_teardown(
	        test_protocol__validate_a_folder_shows_line_and_column, setup,
	        teardown),
	    cmocka_unit_test_setup_teardown(test_protocol__stateless_2026_07_28,
	        setup, teardown),
	    cmocka_unit_test_setup_teardown(
	        test_protocol__batches_in_2025_03_26_only, setup, teardown),
	    cmocka_unit_test_setup_teardown(
	        test_protocol__resources_of_the_outbox_and_the_audit, setup,
	        teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
