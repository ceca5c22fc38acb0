/* agent/cmd-snapshot.c: `artemis-gitops snapshot CLUSTER_DIR`: read every
 * node of a cluster (one Jolokia request per node, or per member of an HA
 * node, all concurrently) and print the live state as tables, or as
 * versioned JSON with --json (docs/snapshot-format.md). Exit 1 when a node
 * could not be read (a passive broker was read); the others are still
 * printed. */
#include "agent.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../declarations/decl.h"
#include "../lib/xalloc.h"
#include "../reconcile/live/live.h"
#include "../reconcile/recon.h"
#include "creds.h"
#include "snapshot-table.h"
#include "targets.h"
#include "tls.h"

struct snap_opts {
	bool json;
	const char *credentials, *node, *origin;
	struct agent_tls tls;
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

static int
run(const struct snap_opts *o, const struct decl_cluster *c)
{
	const char *dir = agent_creds_dir(o->credentials);
	struct agent_targets t = {0};
	struct live_http_opts http = {0};
	struct err err = {0};
	struct recon_snapshot *s = NULL;
	size_t i;
	char *json, *msg;
	int code = AGENT_EXIT_FAIL;

	if (dir == NULL) {
		fprintf(stderr,
		    "artemis-gitops snapshot: no credentials folder: "
		    "use --credentials DIR or set "
		    "CREDENTIALS_DIRECTORY\n");
		goto done;
	}
	if (agent_targets_load(&t, c, o->node != NULL ? &o->node : NULL,
	        o->node != NULL ? 1 : 0, dir, NULL, &err) < 0) {
		msg = err_render(&err);
		fprintf(stderr, "artemis-gitops snapshot: %s\n", msg);
		free(msg);
		goto done;
	}
	agent_targets_warn_cleartext(&t, "snapshot", NULL);
	http.origin = o->origin;
	agent_tls_http(&o->tls, &http);
	s = live_snapshot_fetch(c->name, t.v, t.n, &http, NULL);
	if (o->json) {
		json = live_snapshot_render_json(s);
		fputs(json, stdout);
		free(json);
	} else {
		agent_snapshot_table(stdout, s);
	}
	for (i = 0; i < s->nnodes; i++)
		if (s->nodes[i].refusal.kind != RECON_OK)
			agent_snapshot_refusal_line(stderr, &s->nodes[i]);
	code =
	    live_snapshot_unreadable(s) > 0 ? AGENT_EXIT_FAIL : AGENT_EXIT_OK;
done:
	agent_targets_release(&t);
	err_release(&err);
	live_snapshot_free(s);
	return code;
}

enum {
	SNAPSHOT_JSON,
	SNAPSHOT_CREDENTIALS,
	SNAPSHOT_NODE,
	SNAPSHOT_TLS,
	SNAPSHOT_ORIGIN = SNAPSHOT_TLS + AGENT_TLS_NOPTIONS,
};

static int
snapshot_exec(const struct agent_cmd_args *args)
{
	struct snap_opts o = {0};
	struct decl_cluster *c = NULL;
	struct errlist diags = {0};
	int code;

	o.json = args->opt[SNAPSHOT_JSON] != NULL;
	o.credentials = args->opt[SNAPSHOT_CREDENTIALS];
	o.node = args->opt[SNAPSHOT_NODE];
	o.origin = args->opt[SNAPSHOT_ORIGIN];
	code = agent_tls_from_args(&o.tls, "snapshot", args, SNAPSHOT_TLS);
	if (code != AGENT_CMD_CONTINUE)
		goto done;
	code = AGENT_EXIT_FAIL;
	if (decl_cluster_load(&c, args->argv[0], &diags) < 0) {
		print_diags(&diags);
		goto done;
	}
	if (o.node != NULL && decl_cluster_find_node(c, o.node) == NULL) {
		code = agent_usage_error("snapshot",
		    "--node: no node '%s' in cluster '%s'", o.node, c->name);
		goto done;
	}
	code = run(&o, c);
done:
	errlist_release(&diags);
	decl_cluster_free(c);
	agent_tls_release(&o.tls);
	return code;
}

static const struct agent_cmd_option snapshot_options[] = {
    [SNAPSHOT_JSON] = {"json", '\0', NULL,
        "print versioned JSON (docs/snapshot-format.md)", NULL},
    [SNAPSHOT_CREDENTIALS] = {"credentials", '\0', "DIR",
        "credentials folder (default: $CREDENTIALS_DIRECTORY);\n"
        "a node's `credentials: NAME` is the file DIR/NAME,\n"
        "one line user:password",
        NULL},
    [SNAPSHOT_NODE] = {"node", '\0', "NAME", "read only this node", NULL},
    AGENT_TLS_OPTIONS(SNAPSHOT_TLS),
    [SNAPSHOT_ORIGIN] = {"origin", '\0', "URL",
        "Origin header (default http://localhost)", NULL},
    {NULL, '\0', NULL, NULL, NULL},
};

const struct agent_cmd_entry agent_cmd_snapshot_entry = {
    .name = "snapshot",
    .summary = "print the live state of a cluster's brokers (tables or "
               "--json)",
    .synopsis = "[OPTIONS] CLUSTER_DIR",
    .description =
        "Read the live state of every node of the cluster declared in "
        "CLUSTER_DIR\n(one Jolokia request per node, all nodes at once) "
        "and print it per node:\nqueues, addresses and diverts. An HA node "
        "(docs/ha-pairs.md) is read on\nevery member, one request each; "
        "its live member's objects are printed, and\neach member's state.",
    .options = snapshot_options,
    .help_col = 22,
    .exit_codes = "Exit codes: 0 every node read, 1 a node could not be "
                  "read or invalid input,\n64 usage error.",
    .args_min = 1,
    .args_max = 1,
    .args_few = "expected one CLUSTER_DIR",
    .args_many = "expected one CLUSTER_DIR",
    .args_counted = true,
    .exec = snapshot_exec,
};
