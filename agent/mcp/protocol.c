/* agent/mcp/protocol.c: the Model Context Protocol (docs/mcp.md), dual-era as
 * revision 2026-07-28 names it ("Versioning and Compatibility"):
 *
 *   - 2026-07-28, the current revision, is stateless: every request
 *     carries its revision and the client's capabilities in _meta
 *     (io.modelcontextprotocol/protocolVersion, .../clientCapabilities),
 *     the server answers server/discover, every result carries
 *     resultType "complete" and the server's identity in _meta, and the
 *     cacheable ones ttlMs and cacheScope. A revision it does not serve
 *     is answered UnsupportedProtocolVersionError (-32022) naming those it
 *     does; a request without the required fields, -32602.
 *   - 2025-11-25, 2025-06-18, 2025-03-26 and 2024-11-05 open a session
 *     with initialize: the client's revision when it is one of these, else
 *     the newest of them (lifecycle, "Version Negotiation"); the session
 *     is this process's (stdio). 2025-03-26's JSON-RPC batches are read
 *     when that revision was negotiated.
 *
 * The capabilities are tools and resources, without list changes or
 * subscriptions: the tools are the build's, and resources are read when
 * asked. */
#define LOG_MODULE "mcp"

#include "mcp-int.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/xalloc.h"
#include "../log.h"

#ifndef AGENT_VERSION
#define AGENT_VERSION "0.0.0"
#endif

#define META_VERSION      "io.modelcontextprotocol/protocolVersion"
#define META_CAPABILITIES "io.modelcontextprotocol/clientCapabilities"
#define META_CLIENT       "io.modelcontextprotocol/clientInfo"
#define META_SERVER       "io.modelcontextprotocol/serverInfo"

const char *const mcp_versions[] = {MCP_MODERN_VERSION, "2025-11-25",
    "2025-06-18", "2025-03-26", "2024-11-05"};
const size_t mcp_nversions = sizeof(mcp_versions) / sizeof(mcp_versions[0]);

#define LEGACY_LATEST "2025-11-25" /* what initialize falls back to */

static const char instructions[] =
    "artemis-gitops keeps ActiveMQ Artemis broker clusters as declared in "
    "git. These tools read the fleet (list_clusters, validate, snapshot, "
    "explain: the brokers are only read, with a read-only user being "
    "enough) and prepare plans (plan_cluster, plan_delete_queue), which are "
    "written as previews and never applied here. There is no tool that "
    "approves or applies: after a plan tool, show the preview (its plan.md "
    "resource) to a person, who approves exactly that plan by typing its "
    "confirmation with `artemis-gitops approve` or on the agent's page. A "
    "queue delete leaves attached consumers alone unless "
    "disconnect_consumers is true (default false).";

void
mcp_server_init(struct mcp_server *s, const struct mcp_ctx *ctx)
{
	memset(s, 0, sizeof(*s));
	s->ctx = ctx;
}

void
mcp_server_release(struct mcp_server *s)
{
	free(s->client);
	memset(s, 0, sizeof(*s));
}

/* "name version" of an Implementation object, or "". Owned. */
static char *
implementation(const struct json *info)
{
	const char *name = json_str(json_get(info, "name"));
	const char *version = json_str(json_get(info, "version"));

	if (name == NULL)
		return xstrdup("");
	return xasprintf("%s%s%s", name, version != NULL ? " " : "",
	    version != NULL ? version : "");
}

static void
server_info(struct jsonw *w, const char *version)
{
	jsonw_obj_begin(w);
	jsonw_key_str(w, "name", "artemis-gitops");
	if (strcmp(version, "2025-06-18") >= 0)
		jsonw_key_str(w, "title", "artemis-gitops");
	jsonw_key_str(w, "version", AGENT_VERSION);
	jsonw_obj_end(w);
}

static void
capabilities(struct jsonw *w)
{
	jsonw_obj_begin(w);
	jsonw_key(w, "resources");
	jsonw_obj_begin(w);
	jsonw_obj_end(w);
	jsonw_key(w, "tools");
	jsonw_obj_begin(w);
	jsonw_obj_end(w);
	jsonw_obj_end(w);
}

static bool
legacy_version(const char *v)
{
	size_t i;

	for (i = 1; i < mcp_nversions; i++)
		if (strcmp(mcp_versions[i], v) == 0)
			return true;
	return false;
}

static int
initialize(struct mcp_server *s, const struct json *params, struct mcp_reply *r)
{
	const char *asked = json_str(json_get(params, "protocolVersion"));
	const char *v;

	if (s->initialized)
		return mcp_reply_fail(r, MCP_INVALID_REQUEST, NULL,
		    "initialize was answered already (revision %s): a session "
		    "is one server process",
		    s->version);
	if (asked == NULL)
		return mcp_reply_fail(r, MCP_INVALID_PARAMS, NULL,
		    "initialize needs params.protocolVersion (a string); this "
		    "server speaks 2026-07-28 (no initialize: _meta on every "
		    "request) and, through initialize, 2025-11-25, 2025-06-18, "
		    "2025-03-26 and 2024-11-05");
	v = legacy_version(asked) ? asked : LEGACY_LATEST;
	snprintf(s->version, sizeof(s->version), "%s", v);
	s->initialized = true;
	free(s->client);
	s->client = implementation(json_get(params, "clientInfo"));
	log_notice("client %s: initialized, revision %s (asked for %s)",
	    s->client[0] != '\0' ? s->client : "unnamed", v, asked);
	jsonw_key(&r->w, "capabilities");
	capabilities(&r->w);
	jsonw_key_str(&r->w, "instructions", instructions);
	jsonw_key_str(&r->w, "protocolVersion", v);
	jsonw_key(&r->w, "serverInfo");
	server_info(&r->w, v);
	return 0;
}

static int
discover(struct mcp_reply *r)
{
	size_t i;

	jsonw_key(&r->w, "capabilities");
	capabilities(&r->w);
	jsonw_key_str(&r->w, "instructions", instructions);
	jsonw_key(&r->w, "supportedVersions");
	jsonw_arr_begin(&r->w);
	for (i = 0; i < mcp_nversions; i++)
		jsonw_str(&r->w, mcp_versions[i]);
	jsonw_arr_end(&r->w);
	r->cacheable = true;
	r->ttl_ms = 3600000;
	r->public_scope = true;
	return 0;
}

/* The methods of an operating session, legacy or modern. */
static int
method(struct mcp_server *s, const struct mcp_call *c, const char *name,
    const struct json *params, struct mcp_reply *r)
{
	if (strcmp(name, "tools/list") == 0) {
		mcp_tools_list(c, r);
		return 0;
	}
	if (strcmp(name, "tools/call") == 0)
		return mcp_tools_call(s->ctx, c, params, r);
	if (strcmp(name, "resources/list") == 0)
		return mcp_resources_list(s->ctx, c, params, r);
	if (strcmp(name, "resources/templates/list") == 0) {
		mcp_resources_templates(c, r);
		return 0;
	}
	if (strcmp(name, "resources/read") == 0)
		return mcp_resources_read(s->ctx, c, params, r);
	if (c->modern && strcmp(name, "server/discover") == 0)
		return discover(r);
	if (!c->modern && strcmp(name, "ping") == 0)
		return 0;
	return mcp_reply_fail(r, MCP_METHOD_NOT_FOUND, NULL,
	    "Method not found: %s (revision %s)", name, c->version);
}

static int
unsupported(struct mcp_reply *r, const char *asked)
{
	struct sbuf d = {0};
	struct jsonw w;
	size_t i;
	int rc;

	jsonw_init(&w, &d, 0);
	jsonw_obj_begin(&w);
	jsonw_key_str(&w, "requested", asked);
	jsonw_key(&w, "supported");
	jsonw_arr_begin(&w);
	for (i = 0; i < mcp_nversions; i++)
		jsonw_str(&w, mcp_versions[i]);
	jsonw_arr_end(&w);
	jsonw_obj_end(&w);
	rc = mcp_reply_fail(r, MCP_UNSUPPORTED_VERSION, sbuf_str(&d),
	    "Unsupported protocol version: %s in _meta (served there: %s; "
	    "2025-11-25 and older open a session with initialize)",
	    asked, MCP_MODERN_VERSION);
	sbuf_release(&d);
	return rc;
}

/* A request: served as a modern one when its _meta names a revision,
 * else within the session initialize opened. */
static void
request(struct mcp_server *s, const struct mcp_msg *m, struct sbuf *out)
{
	const struct json *meta = json_get(m->params, "_meta");
	const struct json *pv = json_get(meta, META_VERSION);
	struct mcp_call c = {0};
	struct mcp_reply r;
	char *client = NULL;
	int rc;

	mcp_reply_init(&r);
	if (strcmp(m->method, "initialize") == 0) {
		rc = initialize(s, m->params, &r);
	} else if (pv != NULL) {
		if (!json_is_string(pv))
			rc = mcp_reply_fail(&r, MCP_INVALID_PARAMS, NULL,
			    "_meta." META_VERSION " must be a string");
		else if (strcmp(json_str(pv), MCP_MODERN_VERSION) != 0)
			rc = unsupported(&r, json_str(pv));
		else if (!json_is_object(json_get(meta, META_CAPABILITIES)))
			rc = mcp_reply_fail(&r, MCP_INVALID_PARAMS, NULL,
			    "_meta." META_CAPABILITIES
			    " is required (an object: {} for none)");
		else {
			client = implementation(json_get(meta, META_CLIENT));
			c.version = MCP_MODERN_VERSION;
			c.modern = true;
			c.client = client;
			rc = method(s, &c, m->method, m->params, &r);
		}
	} else if (strcmp(m->method, "ping") == 0) {
		rc = 0; /* allowed before initialize too */
	} else if (!s->initialized) {
		rc = mcp_reply_fail(&r, MCP_INVALID_PARAMS, NULL,
		    "%s: no session and no _meta." META_VERSION
		    ": send initialize first (revisions 2025-11-25 and "
		    "older), or give the revision and the client's "
		    "capabilities in _meta (2026-07-28)",
		    m->method);
	} else {
		c.version = s->version;
		c.client = s->client != NULL ? s->client : "";
		rc = method(s, &c, m->method, m->params, &r);
	}
	if (rc < 0 || r.code != 0) {
		mcp_write_error(out, m->id,
		    r.code != 0 ? r.code : MCP_INTERNAL_ERROR,
		    r.message != NULL ? r.message : "internal error", r.data);
	} else {
		if (c.modern) {
			jsonw_key(&r.w, "_meta");
			jsonw_obj_begin(&r.w);
			jsonw_key(&r.w, META_SERVER);
			server_info(&r.w, MCP_MODERN_VERSION);
			jsonw_obj_end(&r.w);
			jsonw_key_str(&r.w, "resultType", "complete");
			if (r.cacheable) {
				jsonw_key_str(&r.w, "cacheScope",
				    r.public_scope ? "public" : "private");
				jsonw_key_int(&r.w, "ttlMs", r.ttl_ms);
			}
		}
		jsonw_obj_end(&r.w);
		mcp_write_result(out, m->id, sbuf_str(&r.body));
	}
	mcp_reply_release(&r);
	free(client);
}

static void
notification(struct mcp_server *s, const struct mcp_msg *m)
{
	if (strcmp(m->method, "notifications/initialized") == 0)
		log_debug("client %s: initialized notification",
		    s->client != NULL ? s->client : "unnamed");
	else if (strcmp(m->method, "notifications/cancelled") == 0)
		/* requests are answered one at a time, in order: what it
		 * cancels is answered already or not read yet */
		log_debug("a cancellation, of a request answered already");
	else
		log_debug("notification %s ignored", m->method);
}

/* One message (a line's value, or an element of a batch). */
static void
one(struct mcp_server *s, const struct json *v, struct sbuf *out)
{
	struct mcp_msg m;

	mcp_msg_classify(&m, v);
	switch (m.kind) {
	case MCP_REQUEST:
		request(s, &m, out);
		break;
	case MCP_NOTIFICATION:
		notification(s, &m);
		break;
	case MCP_RESPONSE:
		log_debug("a response, to no request of the server's: ignored");
		break;
	case MCP_INVALID:
		log_warn("message refused (%d): %s", m.code, m.why);
		/* a notification gets no answer, even an error */
		if (json_get(v, "id") != NULL ||
		    !json_is_string(json_get(v, "method")) ||
		    !json_is_string(json_get(v, "jsonrpc"))) {
			char *msg = xasprintf("%s: %s",
			    m.code == MCP_INVALID_PARAMS ? "Invalid params"
			                                 : "Invalid Request",
			    m.why);

			mcp_write_error(out, m.id, m.code, msg, NULL);
			free(msg);
		}
		break;
	}
	mcp_msg_release(&m);
}

static void
batch(struct mcp_server *s, const struct json *v, struct sbuf *out)
{
	struct sbuf all = {0}, each = {0};
	const struct json *e;

	if (!s->initialized || strcmp(s->version, "2025-03-26") != 0) {
		mcp_write_error(out, NULL, MCP_INVALID_REQUEST,
		    "Invalid Request: JSON-RPC batches belong to revision "
		    "2025-03-26 alone, which this session did not negotiate",
		    NULL);
		return;
	}
	if (json_size(v) == 0) {
		mcp_write_error(out, NULL, MCP_INVALID_REQUEST,
		    "Invalid Request: an empty batch", NULL);
		return;
	}
	for (e = json_first(v); e != NULL; e = json_next(e)) {
		sbuf_reset(&each);
		one(s, e, &each);
		if (each.len == 0)
			continue; /* a notification */
		sbuf_addc(&all, all.len == 0 ? '[' : ',');
		sbuf_add(&all, each.buf, each.len - 1); /* without its '\n' */
	}
	if (all.len > 0) {
		sbuf_add(out, all.buf, all.len);
		sbuf_adds(out, "]\n");
	}
	sbuf_release(&each);
	sbuf_release(&all);
}

void
mcp_server_handle(struct mcp_server *s, const char *line, size_t len,
    struct sbuf *out)
{
	struct json_doc *doc = NULL;
	const struct json *root;
	char *why = NULL, *msg;

	if (mcp_doc_parse(&doc, line, len, &why) < 0) {
		msg = xasprintf("Parse error: %s", why);
		log_warn("message refused: %s", msg);
		mcp_write_error(out, NULL, MCP_PARSE_ERROR, msg, NULL);
		free(msg);
		free(why);
		return;
	}
	root = json_doc_root(doc);
	if (json_is_array(root))
		batch(s, root, out);
	else
		one(s, root, out);
	json_doc_free(doc);
}
