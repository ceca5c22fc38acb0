/* agent/mcp/mcp-int.h: what the MCP server's files share, grouped by the
 * file that implements it, lowest first: the JSON-RPC messages (rpc.c),
 * the tools' arguments (args.c), the fleet the tools read (fleet.c), the
 * tools (tool-read.c, tool-explain.c, tool-plan.c, tools.c), the resources
 * (resources.c) and the protocol itself (protocol.c). cmd-mcp.c is the
 * command. Messages are read with lib/json.h and written with lib/jsonw.h,
 * never by hand. */
#ifndef AGENT_MCP_MCP_INT_H
#define AGENT_MCP_MCP_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../declarations/decl.h"
#include "../../lib/err.h"
#include "../../lib/json.h"
#include "../../lib/jsonw.h"
#include "../../lib/sbuf.h"
#include "../../reconcile/plan/plan.h"
#include "../../reconcile/recon.h"
#include "../conf.h"
#include "../git.h"
#include "../tls.h"

/* ---- rpc.c: JSON-RPC 2.0 messages, one a line ------------------------ */

/* Bytes of one message the server reads (a line without its newline); a
 * longer one is answered MCP_INVALID_REQUEST and skipped. */
#define MCP_MESSAGE_MAX ((size_t)1024 * 1024)
/* Bytes of a tool's structured result; past it the tool says so instead
 * (docs/mcp.md, "Limits"). */
#define MCP_RESULT_MAX ((size_t)256 * 1024)

/* JSON-RPC 2.0's error codes, and MCP's. */
#define MCP_PARSE_ERROR      (-32700)
#define MCP_INVALID_REQUEST  (-32600)
#define MCP_METHOD_NOT_FOUND (-32601)
#define MCP_INVALID_PARAMS   (-32602)
#define MCP_INTERNAL_ERROR   (-32603)
/* a resource not found, up to 2025-11-25 (since 2026-07-28: INVALID_PARAMS) */
#define MCP_RESOURCE_NOT_FOUND (-32002)
/* 2026-07-28: UnsupportedProtocolVersionError */
#define MCP_UNSUPPORTED_VERSION (-32022)

enum mcp_kind {
	MCP_REQUEST,      /* method and id */
	MCP_NOTIFICATION, /* method, no id */
	MCP_RESPONSE,     /* result or error: the server sends no request */
	MCP_INVALID,      /* not a JSON-RPC 2.0 message: code, why */
};

/* One message of a line (a batch element, for 2025-03-26), borrowed from
 * the document it was read from, but for id and why. */
struct mcp_msg {
	enum mcp_kind kind;
	char *id; /* the id as JSON text ("7", "\"a\""), owned; NULL when
	             there is none or it is not a string or an integer */
	const char *method;
	const struct json *params; /* an object, or NULL when absent */
	int code;                  /* MCP_INVALID: the error to answer */
	char *why;                 /* owned */
};

/* Parse one line: 0 with *out (owned), or -1 with *why (owned): "line 1,
 * column 5: ..." as lib/json.h says, for MCP_PARSE_ERROR. */
int mcp_doc_parse(struct json_doc **out, const char *text, size_t len,
    char **why);
/* Classify v, one value of a parsed line, into *out (zeroed first). */
void mcp_msg_classify(struct mcp_msg *out, const struct json *v);
void mcp_msg_release(struct mcp_msg *m);

/* A line reader over a file descriptor, bounded by max bytes a line. */
struct mcp_reader {
	int fd;
	size_t max;
	char *buf;
	size_t start, len, cap; /* unread bytes: buf[start, len) */
	bool eof;
	bool skipping;  /* inside a line past max: dropped until its end */
	size_t dropped; /* bytes of that line so far */
};

enum mcp_read {
	MCP_READ_LINE,      /* *line, *len: one line, its newline (and a
	                       '\r' before it) removed, NUL-terminated */
	MCP_READ_OVERSIZED, /* a line past max was dropped whole; *len: its
	                       size */
	MCP_READ_EOF,       /* the input ended after a whole line */
	MCP_READ_TORN,      /* the input ended inside a line (*len bytes),
	                       which is dropped */
	MCP_READ_INTR,      /* a signal interrupted the read; call again */
	MCP_READ_ERROR,     /* read(2) failed (errno) */
};

void mcp_reader_init(struct mcp_reader *r, int fd, size_t max);
/* The next line; *line lives until the next call. Blank lines are
 * skipped. */
enum mcp_read mcp_reader_next(struct mcp_reader *r, const char **line,
    size_t *len);
void mcp_reader_release(struct mcp_reader *r);

/* What a request is answered with: a result object's members, written
 * through w (the object is open), or an error (code != 0). */
struct mcp_reply {
	struct sbuf body;
	struct jsonw w;
	int code;
	char *message; /* owned */
	char *data;    /* owned JSON text, or NULL */
	/* 2026-07-28's caching hints, for the results it names
	 * (CacheableResult) */
	bool cacheable;
	int64_t ttl_ms;
	bool public_scope;
};

void mcp_reply_init(struct mcp_reply *r);
/* Make r an error (the first one counts); data is JSON text or NULL.
 * Returns -1. */
int mcp_reply_fail(struct mcp_reply *r, int code, const char *data,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void mcp_reply_release(struct mcp_reply *r);

/* Append one line to out: a response to id (JSON text) with the result
 * object result (JSON text), or an error; id NULL leaves the id out, as
 * MCP's schema has it for a message whose id could not be read. */
void mcp_write_result(struct sbuf *out, const char *id, const char *result);
void mcp_write_error(struct sbuf *out, const char *id, int code,
    const char *message, const char *data);

/* ---- the revision a request is served under (protocol.c fills it; rpc.c
 * compares) -------------------------------------------------------------- */

#define MCP_MODERN_VERSION "2026-07-28" /* the current revision */

struct mcp_call {
	const char *version; /* of this request */
	bool modern;         /* 2026-07-28 and later: per-request _meta */
	const char *client;  /* the client's name and version, for logs and
	                        request.txt; "" when it gave none */
};

/* Is c's revision v or later? (Revisions are dates, so they compare as
 * strings.) */
bool mcp_call_since(const struct mcp_call *c, const char *v);

/* ---- args.c: a tool's arguments (one table drives the schema and the
 * checks) and its result ------------------------------------------------ */

enum mcp_arg_type { MCP_ARG_STRING, MCP_ARG_BOOLEAN, MCP_ARG_INTEGER };

#define MCP_ARG_STR_MAX 1024 /* bytes of a string argument */

struct mcp_arg {
	const char *name; /* NULL ends a table */
	enum mcp_arg_type type;
	bool required;
	const char *description;
	int64_t min, max; /* integers: the range */
	const char *def;  /* the default, as JSON, for the schema; or NULL */
};

/* The JSON Schema (2020-12) of the arguments spec, as one value into w:
 * an object of these properties, `required`, no other properties. */
void mcp_args_schema(struct jsonw *w, const struct mcp_arg *spec);
/* Check args (an object, or NULL for none) against spec: 0, or -1 with
 * *why (owned) naming the argument and what is wrong with it. */
int mcp_args_check(const struct json *args, const struct mcp_arg *spec,
    char **why);
/* The argument's value; absent: NULL, def. */
const char *mcp_arg_str(const struct json *args, const char *name);
bool mcp_arg_bool(const struct json *args, const char *name, bool def);
int64_t mcp_arg_int(const struct json *args, const char *name, int64_t def);
/* args as JSON text for the log, string values past 200 bytes cut and
 * those of a key that names a secret (password, secret, token,
 * credential, key) replaced by "<redacted>". Owned. */
char *mcp_args_log(const struct json *args);

/* What a tool answers: structured content (an object whose members are
 * written through w) and a short text; both empty, not an error, after
 * mcp_result_init. */
struct mcp_result {
	struct sbuf data; /* structuredContent's members, through w */
	struct jsonw w;
	struct sbuf text; /* the short text for people and models */
	bool is_error;
};

/* Make res a tool execution error: the text, and {"error": text}. */
void mcp_result_fail(struct mcp_result *res, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void mcp_result_init(struct mcp_result *res);
void mcp_result_release(struct mcp_result *res);

/* ---- fleet.c: what the tools read and where they write ---------------- */

#define MCP_URI_SCHEME "artemis-gitops://"

struct mcp_ctx {
	const struct agent_conf *conf; /* borrowed */
	char *repo;        /* the repository the declarations are read from */
	bool clone;        /* it is the daemon's clone, STATE/repo */
	char *default_rev; /* refs/remotes/origin/<branch>, or HEAD */
	const char *creds; /* the credentials folder of the brokers */
	struct agent_tls tls;
	long timeout_ms; /* broker-timeout */
};

/* One cluster folder of a commit: its files, the declaration parsed from
 * them (NULL when invalid) and the diagnostics. */
struct mcp_cluster {
	struct agent_git_folder files;
	struct decl_cluster *decl;
	struct errlist diags;
};

struct mcp_tree {
	char *rev; /* as asked */
	char commit[AGENT_GIT_OID_HEX + 1];
	struct mcp_cluster *v;
	size_t n;
};

/* The cluster folders of rev (NULL: x->default_rev) under
 * repository.path, each parsed. 0, or -1 with err. */
int mcp_tree_load(struct mcp_tree *out, const struct mcp_ctx *x,
    const char *rev, struct err *err);
void mcp_tree_release(struct mcp_tree *t);
/* The folder that declares cluster name validly; NULL when none does
 * (*why, owned, says which clusters there are, or that the folder of
 * that name does not validate). */
const struct mcp_cluster *mcp_tree_find(const struct mcp_tree *t,
    const char *name, char **why);
/* The nodes of c read live (node not NULL: that one), read-only: what
 * scope says (NULL: every node whole; reconcile/live/live.h, "A plan's
 * read"), as the command line reads them. */
struct live_scope;
int mcp_fleet_read(struct recon_snapshot **out, const struct mcp_ctx *x,
    const struct decl_cluster *c, const char *node,
    const struct live_scope *scope, struct err *err);
/* The managed set of cluster: STATE/<cluster>/inventory.json, or none. */
int mcp_fleet_managed(struct plan_managed *out, const struct mcp_ctx *x,
    const char *cluster, struct err *err);
/* Post p as a preview in the outbox: OUTBOX/<cluster>/<plan-id>/ with
 * plan.json, plan.md, the declaration, CONFIG_MANAGED's broker.xml files
 * (before: the declaration they are compared with) and request.txt
 * (request). *dir_out (owned) is its folder. 0, or -1 with err. */
int mcp_fleet_post(char **dir_out, const struct mcp_ctx *x, struct plan *p,
    const struct mcp_cluster *mc, const struct decl_cluster *before,
    const struct recon_snapshot *s, const char *commit, const char *request,
    struct err *err);
/* The URI of a preview's file (plan.md, plan.json; resources.c reads
 * them), owned. */
char *mcp_preview_uri(const char *cluster, const char *id, const char *file);

/* ---- the tools (tool-read.c, tool-explain.c, tool-plan.c) ------------ */

/* A node's read as tools show it (tool-read.c): node, reachable, state
 * (OK or the refusal's kind), message, version, broker, member. */
void mcp_node_status_json(struct jsonw *w, const struct recon_node_snapshot *n);

/* The tools, each in its file. */
int mcp_tool_list_clusters(const struct mcp_ctx *x, const struct mcp_call *c,
    const struct json *args, struct mcp_result *res);
int mcp_tool_validate(const struct mcp_ctx *x, const struct mcp_call *c,
    const struct json *args, struct mcp_result *res);
int mcp_tool_snapshot(const struct mcp_ctx *x, const struct mcp_call *c,
    const struct json *args, struct mcp_result *res);
int mcp_tool_explain(const struct mcp_ctx *x, const struct mcp_call *c,
    const struct json *args, struct mcp_result *res);
int mcp_tool_plan_cluster(const struct mcp_ctx *x, const struct mcp_call *c,
    const struct json *args, struct mcp_result *res);
int mcp_tool_plan_delete_queue(const struct mcp_ctx *x,
    const struct mcp_call *c, const struct json *args, struct mcp_result *res);

/* The argument tables (each beside its tool). */
extern const struct mcp_arg mcp_args_list_clusters[];
extern const struct mcp_arg mcp_args_validate[];
extern const struct mcp_arg mcp_args_snapshot[];
extern const struct mcp_arg mcp_args_explain[];
extern const struct mcp_arg mcp_args_plan_cluster[];
extern const struct mcp_arg mcp_args_plan_delete_queue[];

/* ---- tools.c: tools/list and tools/call ------------------------------- */

/* The members of tools/list's result into r. */
void mcp_tools_list(const struct mcp_call *c, struct mcp_reply *r);
/* tools/call with params: the call logged, the tool run, its result
 * (capped) into r; an unknown tool or malformed params are errors of r. */
int mcp_tools_call(const struct mcp_ctx *x, const struct mcp_call *c,
    const struct json *params, struct mcp_reply *r);

/* ---- resources.c: previews, drift reports, audit rows ----------------- */

#define MCP_AUDIT_ROWS   50 /* the rows of an audit resource: the last ones */
#define MCP_RESOURCE_MAX ((size_t)1024 * 1024) /* bytes of a resource read */
#define MCP_PAGE_SIZE    100 /* resources a resources/list page holds */

int mcp_resources_list(const struct mcp_ctx *x, const struct mcp_call *c,
    const struct json *params, struct mcp_reply *r);
void mcp_resources_templates(const struct mcp_call *c, struct mcp_reply *r);
int mcp_resources_read(const struct mcp_ctx *x, const struct mcp_call *c,
    const struct json *params, struct mcp_reply *r);

/* ---- protocol.c: the protocol ------------------------------------------- */

/* The revisions served: the current one first, then those of the
 * initialize handshake, newest first. */
extern const char *const mcp_versions[];
extern const size_t mcp_nversions;

struct mcp_server {
	const struct mcp_ctx *ctx; /* borrowed */
	bool initialized;          /* an initialize was answered */
	char version[16];          /* the revision it negotiated */
	char *client;              /* clientInfo's name and version */
};

void mcp_server_init(struct mcp_server *s, const struct mcp_ctx *ctx);
void mcp_server_release(struct mcp_server *s);
/* Handle one line read from the client: what to write back (zero or more
 * lines, each ending in '\n') is appended to out. */
void mcp_server_handle(struct mcp_server *s, const char *line, size_t len,
    struct sbuf *out);

#endif
