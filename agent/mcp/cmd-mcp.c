/* agent/mcp/cmd-mcp.c: `artemis-gitops mcp --config FILE`: the MCP server
 * over stdio (docs/mcp.md). It reads one JSON-RPC message a line from stdin
 * and answers on stdout, one request at a time, in order; stdout carries
 * nothing else. The log (every tool call, every refused message) goes to
 * stderr, as the daemon's does. It ends with exit 0 when stdin closes (a
 * message torn by the close is dropped and logged) or on SIGTERM/SIGINT,
 * exit 1 when stdout is gone or the configuration does not load. */
#define LOG_MODULE "mcp"

#include "mcp.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/xalloc.h"
#include "../creds.h"
#include "../log.h"
#include "mcp-int.h"

static volatile sig_atomic_t stop;

static void
on_signal(int sig)
{
	stop = sig;
}

static void
signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal; /* no SA_RESTART: read(2) returns EINTR */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
}

/* Write all of b to stdout; -1 when the client is gone. */
static int
put(const struct sbuf *b)
{
	size_t off = 0;
	ssize_t n;

	while (off < b->len) {
		n = write(STDOUT_FILENO, b->buf + off, b->len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		off += (size_t)n;
	}
	return 0;
}

/* The configuration; its diagnostics on stderr as a command prints them
 * (the server has not started). */
static int
load_conf(struct agent_conf **out, const char *path)
{
	struct errlist d = {0};
	size_t i;
	char *line;
	int r;

	r = agent_conf_load(out, path, &d);
	for (i = 0; i < d.n; i++) {
		line = errlist_render_item(&d, i);
		fprintf(stderr, "artemis-gitops mcp: %s\n", line);
		free(line);
	}
	errlist_release(&d);
	return r;
}

/* The loop: one line read, answered, written. Returns the exit code. */
static int
serve(struct mcp_server *srv)
{
	struct mcp_reader rd;
	struct sbuf out = {0};
	const char *line;
	size_t len;
	enum mcp_read r;
	int code = AGENT_EXIT_OK;
	char *msg;

	mcp_reader_init(&rd, STDIN_FILENO, MCP_MESSAGE_MAX);
	for (;;) {
		if (stop) {
			log_notice("signal %d: stopping", (int)stop);
			break;
		}
		r = mcp_reader_next(&rd, &line, &len);
		sbuf_reset(&out);
		if (r == MCP_READ_INTR)
			continue;
		if (r == MCP_READ_EOF) {
			log_info("stdin closed: stopping");
			break;
		}
		if (r == MCP_READ_TORN) {
			log_warn("stdin closed in the middle of a message (%zu "
			         "bytes), which is dropped: stopping",
			    len);
			break;
		}
		if (r == MCP_READ_ERROR) {
			log_err("reading stdin: %m");
			code = AGENT_EXIT_FAIL;
			break;
		}
		if (r == MCP_READ_OVERSIZED) {
			msg = xasprintf(
			    "Invalid Request: a message of %zu bytes, "
			    "past this server's cap of %zu bytes",
			    len, MCP_MESSAGE_MAX);
			log_warn("%s: dropped", msg);
			mcp_write_error(&out, NULL, MCP_INVALID_REQUEST, msg,
			    NULL);
			free(msg);
		} else {
			mcp_server_handle(srv, line, len, &out);
		}
		if (out.len > 0 && put(&out) < 0) {
			log_err("stdout is closed: stopping");
			code = AGENT_EXIT_FAIL;
			break;
		}
	}
	sbuf_release(&out);
	mcp_reader_release(&rd);
	return code;
}

enum { MCP_OPT_CONFIG, MCP_OPT_REPO, MCP_OPT_CREDENTIALS };

static int
mcp_exec(const struct agent_cmd_args *args)
{
	struct agent_conf *conf = NULL;
	struct mcp_ctx ctx;
	struct mcp_server srv;
	struct err err = {0};
	const char *repo = args->opt[MCP_OPT_REPO];
	int code = AGENT_EXIT_FAIL;

	memset(&ctx, 0, sizeof(ctx));
	if (args->opt[MCP_OPT_CONFIG] == NULL)
		return agent_usage_error("mcp", "missing --config FILE");
	agent_log_init();
	signals();
	if (load_conf(&conf, args->opt[MCP_OPT_CONFIG]) < 0)
		return AGENT_EXIT_FAIL;
	agent_log_set_level((enum agent_log_prio)conf->log_level);
	if (agent_tls_from_conf(&ctx.tls, conf, &err) < 0) {
		fprintf(stderr, "artemis-gitops mcp: %s\n", err.msg);
		goto done;
	}
	ctx.conf = conf;
	ctx.clone = repo == NULL;
	ctx.repo =
	    repo != NULL ? xstrdup(repo) : xasprintf("%s/repo", conf->state);
	ctx.default_rev =
	    repo != NULL ? xstrdup("HEAD")
	                 : xasprintf("refs/remotes/origin/%s", conf->branch);
	ctx.creds = args->opt[MCP_OPT_CREDENTIALS] != NULL
	                ? args->opt[MCP_OPT_CREDENTIALS]
	                : conf->credentials;
	ctx.timeout_ms = conf->broker_timeout * 1000;
	if (isatty(STDIN_FILENO))
		log_warn("stdin is a terminal: this server reads MCP messages "
		         "(JSON-RPC 2.0, one a line) from an MCP client");
	log_notice("serving MCP over stdio: declarations from %s at %s, "
	           "outbox %s, revisions %s, %s, %s, %s, %s",
	    ctx.repo, ctx.default_rev, conf->outbox, mcp_versions[0],
	    mcp_versions[1], mcp_versions[2], mcp_versions[3], mcp_versions[4]);
	mcp_server_init(&srv, &ctx);
	code = serve(&srv);
	mcp_server_release(&srv);
done:
	err_release(&err);
	agent_tls_release(&ctx.tls);
	free(ctx.repo);
	free(ctx.default_rev);
	agent_conf_free(conf);
	return code;
}

static const struct agent_cmd_option mcp_options[] = {
    [MCP_OPT_CONFIG] = {"config", 'c', "FILE",
        "the agent's configuration (docs/agent-config.md),\nas `run` reads "
        "it (required)",
        NULL},
    [MCP_OPT_REPO] = {"repo", '\0', "PATH",
        "read the declarations from this repository (a\nclone or a working "
        "copy; default revision HEAD)\ninstead of the daemon's clone "
        "STATE/repo",
        NULL},
    [MCP_OPT_CREDENTIALS] = {"credentials", '\0', "DIR",
        "the brokers' credentials folder (default: the\nconfiguration's "
        "`credentials`): give one of\nread-only users; every tool works "
        "with them",
        NULL},
    {NULL, '\0', NULL, NULL, NULL},
};

const struct agent_cmd_entry mcp_cmd_entry = {
    .name = "mcp",
    .summary = "serve MCP on stdio: assistants read and plan, never approve",
    .synopsis = "--config FILE [--repo PATH] [--credentials DIR]",
    .description =
        "Serve the Model Context Protocol (MCP) over stdin and stdout for an "
        "MCP\nclient (docs/mcp.md): revision 2026-07-28, and 2025-11-25, "
        "2025-06-18,\n2025-03-26 and 2024-11-05 through initialize. Tools: "
        "list_clusters,\nvalidate, snapshot, explain (all read-only), "
        "plan_cluster and\nplan_delete_queue (they write a preview to the "
        "outbox). Resources:\npreviews, drift reports, audit rows. Nothing "
        "approves or applies: a\nperson does, with `approve` or on the page. "
        "The log goes to stderr.",
    .options = mcp_options,
    .help_col = 23,
    .notes = "Register it in an MCP client as a stdio server whose command "
             "is\n`artemis-gitops mcp --config /etc/artemis-gitops/agent.yaml` "
             "(docs/mcp.md).",
    .exit_codes = "Exit codes: 0 stdin closed or a signal, 1 the "
                  "configuration does not load\nor stdout is gone, 64 usage "
                  "error.",
    .args_min = 0,
    .args_max = 0,
    .bad_option = "unknown or incomplete option",
    .exec = mcp_exec,
};
