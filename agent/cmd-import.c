/* agent/cmd-import.c: `artemis-gitops import --from-live NODES_FILE --out
 * DIR`: an existing cluster's brokers read and written as a cluster
 * folder of declarations, with import-report.md / .json saying what was
 * left out and why (docs/import.md). Nothing is written unless everything
 * was read and the declaration written validates: the folder is made
 * under a temporary name beside DIR and renamed into place. */
#include "agent.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../declarations/decl.h"
#include "../lib/afile.h"
#include "../lib/xalloc.h"
#include "../reconcile/import/import.h"
#include "../reconcile/live/live.h"
#include "../reconcile/recon.h"
#include "creds.h"
#include "import-files.h"
#include "snapshot-table.h"
#include "targets.h"
#include "tls.h"

#define CMD "import"

struct import_cli {
	const char *from_live, *out, *credentials, *origin;
	bool force;
	struct import_opts io;
	struct agent_tls tls;
	long timeout_ms;
};

static void
print_diags(const struct errlist *l)
{
	size_t i;
	char *line;

	for (i = 0; i < l->n; i++) {
		line = errlist_render_item(l, i);
		fprintf(stderr, "%s\n", line);
		free(line);
	}
}

/* Read every node; -1 (and nothing imported) when one could not be read:
 * an import from part of a cluster would declare the wrong cluster. */
static int
read_live(struct import_result *r, const struct import_cli *o,
    const struct decl_cluster *shell)
{
	const char *dir = agent_creds_dir(o->credentials);
	struct agent_targets t = {0};
	struct live_http_opts http = {0};
	struct err err = {0};
	struct recon_snapshot *s = NULL;
	struct import_node *nodes = NULL;
	struct import_left *ex = NULL;
	size_t i, nex = 0, bad = 0;
	char *msg;
	int rc = -1;

	if (dir == NULL) {
		fprintf(stderr,
		    "artemis-gitops %s: no credentials folder: use "
		    "--credentials DIR or set CREDENTIALS_DIRECTORY\n",
		    CMD);
		return -1;
	}
	if (agent_targets_load(&t, shell, NULL, 0, dir, NULL, &err) < 0) {
		msg = err_render(&err);
		fprintf(stderr, "artemis-gitops %s: %s\n", CMD, msg);
		free(msg);
		goto done;
	}
	agent_targets_warn_cleartext(&t, CMD, NULL);
	http.origin = o->origin;
	agent_tls_http(&o->tls, &http);
	http.timeout_ms = o->timeout_ms;
	if (o->timeout_ms > 0 && o->timeout_ms < 5000)
		http.connect_timeout_ms = o->timeout_ms;
	fprintf(stderr,
	    "artemis-gitops %s: reading %zu node(s) of cluster "
	    "'%s'\n",
	    CMD, t.n, shell->name);
	s = live_snapshot_fetch(shell->name, t.v, t.n, &http);
	for (i = 0; i < s->nnodes; i++)
		if (s->nodes[i].refusal.kind != RECON_OK) {
			agent_snapshot_refusal_line(stderr, &s->nodes[i]);
			bad++;
		}
	if (bad > 0) {
		fprintf(stderr,
		    "artemis-gitops %s: %zu of %zu node(s) could not be read; "
		    "nothing imported (an import of part of a cluster would "
		    "declare another cluster)\n",
		    CMD, bad, s->nnodes);
		goto done;
	}
	nodes = xcalloc(s->nnodes + 1, sizeof(*nodes));
	for (i = 0; i < s->nnodes; i++)
		import_node_from_live(&nodes[i], &s->nodes[i], &shell->settings,
		    &o->io, &ex, &nex);
	import_merge(r, shell, nodes, s->nnodes, ex, nex, "live");
	for (i = 0; i < s->nnodes; i++)
		import_node_release(&nodes[i]);
	free(nodes);
	rc = 0;
done:
	agent_targets_release(&t);
	err_release(&err);
	live_snapshot_free(s);
	return rc;
}

enum {
	IMPORT_FROM_LIVE,
	IMPORT_OUT,
	IMPORT_FORCE,
	IMPORT_AUTO,
	IMPORT_CREDENTIALS,
	IMPORT_TIMEOUT,
	IMPORT_TLS,
	IMPORT_ORIGIN = IMPORT_TLS + AGENT_TLS_NOPTIONS,
};

static long
timeout_parse(const char *arg)
{
	char *end;
	double secs = strtod(arg, &end);

	if (end == arg || *end != '\0' || !(secs > 0) || secs > 3600)
		return -1;
	return (long)(secs * 1000.0 + 0.5);
}

static int
timeout_check(const char *arg)
{
	if (timeout_parse(arg) < 0)
		return agent_usage_error(CMD,
		    "--timeout: expected seconds in (0, 3600], got '%s'", arg);
	return AGENT_CMD_CONTINUE;
}

static int
import_exec(const struct agent_cmd_args *args)
{
	struct import_cli o = {0};
	struct decl_cluster *shell = NULL;
	struct import_result r = {0};
	struct errlist diags = {0};
	int code;

	o.from_live = args->opt[IMPORT_FROM_LIVE];
	o.out = args->opt[IMPORT_OUT];
	o.force = args->opt[IMPORT_FORCE] != NULL;
	o.io.include_auto_created = args->opt[IMPORT_AUTO] != NULL;
	o.credentials = args->opt[IMPORT_CREDENTIALS];
	o.origin = args->opt[IMPORT_ORIGIN];
	if (args->opt[IMPORT_TIMEOUT] != NULL)
		o.timeout_ms = timeout_parse(args->opt[IMPORT_TIMEOUT]);
	if (o.from_live == NULL)
		return agent_usage_error(CMD,
		    "expected --from-live NODES_FILE");
	if (o.out == NULL)
		return agent_usage_error(CMD, "expected --out DIR");
	if (args->argc > 0)
		return agent_usage_error(CMD,
		    "unexpected argument '%s' (NODE=FILE arguments go with "
		    "--from-broker-xml)",
		    args->argv[0]);
	code = agent_tls_from_args(&o.tls, CMD, args, IMPORT_TLS);
	if (code != AGENT_CMD_CONTINUE)
		goto done;
	code = AGENT_EXIT_FAIL;
	if (agent_import_out_check(o.out, o.force, CMD) < 0)
		goto done;
	if (agent_import_nodes_file(&shell, o.from_live, &diags) < 0) {
		print_diags(&diags);
		goto done;
	}
	print_diags(&diags); /* warnings */
	if (read_live(&r, &o, shell) < 0)
		goto done;
	code = agent_import_write(&r, o.out, o.force, CMD, NULL, 0);
done:
	import_result_release(&r);
	errlist_release(&diags);
	decl_cluster_free(shell);
	agent_tls_release(&o.tls);
	return code;
}

static const struct agent_cmd_option import_options[] = {
    [IMPORT_FROM_LIVE] = {"from-live", '\0', "NODES_FILE",
        "read the live brokers of the nodes NODES_FILE\n"
        "declares (version, cluster, mode, settings, nodes)",
        NULL},
    [IMPORT_OUT] = {"out", '\0', "DIR",
        "the cluster folder to write (new or empty)", NULL},
    [IMPORT_FORCE] = {"force", '\0', NULL,
        "replace DIR when it holds an earlier import\n"
        "(only *.yaml, import-report.* and broker/)",
        NULL},
    [IMPORT_AUTO] = {"include-auto-created", '\0', NULL,
        "declare auto-created queues and addresses too", NULL},
    [IMPORT_CREDENTIALS] = {"credentials", '\0', "DIR",
        "credentials folder (default: $CREDENTIALS_DIRECTORY)", NULL},
    [IMPORT_TIMEOUT] = {"timeout", '\0', "S",
        "total time per node in seconds (default 30)", timeout_check},
    AGENT_TLS_OPTIONS(IMPORT_TLS),
    [IMPORT_ORIGIN] = {"origin", '\0', "URL",
        "Origin header (default http://localhost)", NULL},
    {NULL, '\0', NULL, NULL, NULL},
};

const struct agent_cmd_entry agent_cmd_import_entry = {
    .name = "import",
    .summary = "write an existing cluster's objects as declarations",
    .synopsis = "[OPTIONS] --from-live NODES_FILE --out DIR",
    .description =
        "Read every node NODES_FILE declares (one Jolokia request per "
        "node, as\nsnapshot does) and write the cluster folder DIR: the "
        "addresses, queues and\ndiverts every node holds alike, as "
        "declarations that validate, and\nimport-report.md and "
        "import-report.json: every object left out, per node,\nand why "
        "(held by some nodes only, different between nodes, the broker's\n"
        "own, auto-created, temporary, a capture's tap). The first plan of "
        "DIR\nagainst the same brokers changes nothing; applying it "
        "adopts the declared\nobjects (docs/import.md).",
    .options = import_options,
    .help_col = 30,
    .exit_codes = "Exit codes: 0 imported, 1 a node could not be read, "
                  "invalid input or DIR\nnot written, 64 usage error.",
    .args_min = 0,
    .args_max = -1,
    .exec = import_exec,
};
