/* agent/mcp/tools.c: the tools' table, tools/list and tools/call. Every call
 * is logged (the tool, its arguments with secrets left out, its outcome
 * and time); every result is a short text plus structured content, capped
 * at MCP_RESULT_MAX bytes. Which fields a result carries follows the
 * revision the call is served under: structuredContent, outputs' titles
 * from 2025-06-18, tool annotations from 2025-03-26; before 2025-06-18 the
 * structured result travels as a second text block instead. Arguments
 * that do not fit a tool's schema are a protocol error (-32602) up to
 * 2025-06-18 and a tool execution error (isError) from 2025-11-25 on, as
 * each revision says. */
#define LOG_MODULE "mcp"

#include "mcp-int.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/clock.h"
#include "../../lib/xalloc.h"
#include "../log.h"

#define TEXT_MAX ((size_t)16 * 1024) /* bytes of a result's short text */

struct tool {
	const char *name;
	const char *title;
	const char *description;
	const struct mcp_arg *args;
	bool read_only; /* false: it writes a preview (nothing else) */
	int (*run)(const struct mcp_ctx *x, const struct mcp_call *c,
	    const struct json *args, struct mcp_result *res);
};

static const struct tool tools[] = {
    {"list_clusters", "List clusters",
        "The clusters declared at a revision of the declarations "
        "repository (default: the branch the agent follows), each with its "
        "nodes and whether each node is reachable (read through Jolokia, "
        "read-only), and the folders that do not validate.",
        mcp_args_list_clusters, true, mcp_tool_list_clusters},
    {"validate", "Validate declarations",
        "Validate a cluster's declaration at a revision (or every cluster "
        "there), or a folder on disk, as `artemis-gitops validate` does: "
        "diagnostics as path:line:col with their message and severity.",
        mcp_args_validate, true, mcp_tool_validate},
    {"snapshot", "Snapshot a cluster",
        "Read a cluster's nodes (or one node) live, read-only: per node "
        "its queues (address, routing, messages, consumers, settings), "
        "addresses (routing, bound queues) and diverts (source, "
        "forwarding address), with totals; tables bounded by 'limit' rows "
        "and by the result's cap in bytes, filtered by a name glob.",
        mcp_args_snapshot, true, mcp_tool_snapshot},
    {"explain", "Explain a queue",
        "Explain one queue on every node: where it is declared, its "
        "address and the other queues there, the diverts that forward into "
        "that address and those that read from it, capture taps, messages "
        "and consumers, and what deleting it would do (ADR-0084's "
        "preflight, read-only): the dependent diverts removed with it, the "
        "diverts kept and why, refusals such as HAS_CONSUMERS. Writes "
        "nothing.",
        mcp_args_explain, true, mcp_tool_explain},
    {"plan_cluster", "Plan a cluster",
        "Plan a cluster at a revision against its live nodes and what the "
        "agent applied (the three-way diff of `artemis-gitops plan`, with "
        "the ADR-0084 preflight), and write the preview (plan.md, "
        "plan.json) to the agent's outbox. Returns the preview's folder and "
        "resource URIs, its summary and the confirmation text. It applies "
        "nothing: show plan.md to a person, who approves it with "
        "`artemis-gitops approve` or on the agent's page.",
        mcp_args_plan_cluster, false, mcp_tool_plan_cluster},
    {"plan_delete_queue", "Plan a queue delete",
        "Plan the out-of-band delete of one queue on every node (ADR-0084, "
        "as `artemis-gitops delete-queue`): per node, attached consumers "
        "refuse the delete unless disconnect_consumers is true (default "
        "false); diverts that forward into the queue's address and would "
        "lose their last queue are removed with it; diverts sourced there "
        "and capture taps are kept. Writes the preview to the agent's "
        "outbox and returns its folder, summary and confirmation text. It "
        "deletes nothing: show plan.md to a person, who approves it with "
        "`artemis-gitops approve` or on the agent's page.",
        mcp_args_plan_delete_queue, false, mcp_tool_plan_delete_queue},
};

#define NTOOLS (sizeof(tools) / sizeof(tools[0]))

static void
tool_json(struct jsonw *w, const struct mcp_call *c, const struct tool *t)
{
	jsonw_obj_begin(w);
	if (mcp_call_since(c, "2025-03-26")) {
		jsonw_key(w, "annotations");
		jsonw_obj_begin(w);
		jsonw_key_bool(w, "destructiveHint", false);
		jsonw_key_bool(w, "idempotentHint", t->read_only);
		jsonw_key_bool(w, "openWorldHint", false);
		jsonw_key_bool(w, "readOnlyHint", t->read_only);
		jsonw_key_str(w, "title", t->title);
		jsonw_obj_end(w);
	}
	jsonw_key_str(w, "description", t->description);
	jsonw_key(w, "inputSchema");
	mcp_args_schema(w, t->args);
	jsonw_key_str(w, "name", t->name);
	if (mcp_call_since(c, "2025-06-18"))
		jsonw_key_str(w, "title", t->title);
	jsonw_obj_end(w);
}

void
mcp_tools_list(const struct mcp_call *c, struct mcp_reply *r)
{
	size_t i;

	jsonw_key(&r->w, "tools");
	jsonw_arr_begin(&r->w);
	for (i = 0; i < NTOOLS; i++)
		tool_json(&r->w, c, &tools[i]);
	jsonw_arr_end(&r->w);
	/* the list is the build's: it never changes while the server runs */
	r->cacheable = true;
	r->ttl_ms = 3600000;
	r->public_scope = true;
}

static const struct tool *
find_tool(const char *name)
{
	size_t i;

	for (i = 0; i < NTOOLS; i++)
		if (strcmp(tools[i].name, name) == 0)
			return &tools[i];
	return NULL;
}

static void
text_block(struct jsonw *w, const char *text)
{
	jsonw_obj_begin(w);
	jsonw_key_str(w, "text", text);
	jsonw_key_str(w, "type", "text");
	jsonw_obj_end(w);
}

/* The result into r: content, structuredContent (or its text form before
 * 2025-06-18), isError; the structured part left out past the cap. */
static void
result_json(struct mcp_reply *r, const struct mcp_call *c,
    struct mcp_result *res)
{
	bool structured = mcp_call_since(c, "2025-06-18");
	size_t len;
	char *data;

	jsonw_obj_end(&res->w);
	len = res->data.len;
	if (len > MCP_RESULT_MAX) {
		sbuf_reset(&res->data);
		sbuf_addf(&res->data,
		    "{\"bytes\":%zu,\"cap_bytes\":%zu,\"truncated\":true}", len,
		    MCP_RESULT_MAX);
		sbuf_addf(&res->text,
		    " (the structured result, %zu bytes, is past the cap of "
		    "%zu bytes and is left out: narrow the request)",
		    len, MCP_RESULT_MAX);
	}
	if (res->text.len > TEXT_MAX) {
		res->text.len = TEXT_MAX;
		res->text.buf[TEXT_MAX] = '\0';
		sbuf_adds(&res->text, " ... (text cut at its cap)");
	}
	data = sbuf_take(&res->data);
	jsonw_key(&r->w, "content");
	jsonw_arr_begin(&r->w);
	text_block(&r->w, sbuf_str(&res->text));
	if (!structured)
		text_block(&r->w, data);
	jsonw_arr_end(&r->w);
	jsonw_key_bool(&r->w, "isError", res->is_error);
	if (structured) {
		jsonw_key(&r->w, "structuredContent");
		jsonw_raw(&r->w, data);
	}
	free(data);
}

int
mcp_tools_call(const struct mcp_ctx *x, const struct mcp_call *c,
    const struct json *params, struct mcp_reply *r)
{
	const struct json *name = json_get(params, "name");
	const struct json *args = json_get(params, "arguments");
	const struct tool *t;
	struct mcp_result res;
	char *why = NULL, *logged;
	int64_t t0;

	if (!json_is_string(name))
		return mcp_reply_fail(r, MCP_INVALID_PARAMS, NULL,
		    "tools/call needs params.name, the tool's name (a string)");
	if (args != NULL && !json_is_object(args))
		return mcp_reply_fail(r, MCP_INVALID_PARAMS, NULL,
		    "params.arguments must be an object");
	logged = mcp_args_log(args);
	log_info("tool %s %s (client %s)", json_str(name), logged,
	    c->client[0] != '\0' ? c->client : "unnamed");
	free(logged);
	t = find_tool(json_str(name));
	if (t == NULL) {
		log_warn("tool %s: unknown tool", json_str(name));
		return mcp_reply_fail(r, MCP_INVALID_PARAMS, NULL,
		    "Unknown tool: %s (tools: list_clusters, validate, snapshot, "
		    "explain, plan_cluster, plan_delete_queue)",
		    json_str(name));
	}
	mcp_result_init(&res);
	if (mcp_args_check(args, t->args, &why) < 0) {
		log_warn("tool %s: %s", t->name, why);
		if (!mcp_call_since(c, "2025-11-25")) {
			mcp_reply_fail(r, MCP_INVALID_PARAMS, NULL,
			    "Invalid arguments for tool %s: %s", t->name, why);
			free(why);
			mcp_result_release(&res);
			return -1;
		}
		mcp_result_fail(&res, "invalid arguments for tool %s: %s",
		    t->name, why);
		free(why);
	} else {
		t0 = clock_monotonic_ms();
		t->run(x, c, args, &res);
		log_info("tool %s: %s in %lld ms, %zu bytes", t->name,
		    res.is_error ? "failed" : "done",
		    (long long)(clock_monotonic_ms() - t0), res.data.len);
		if (res.is_error)
			log_warn("tool %s: %s", t->name, sbuf_str(&res.text));
	}
	result_json(r, c, &res);
	mcp_result_release(&res);
	return 0;
}
