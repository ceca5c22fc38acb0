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
#include "../declarations/render/render.h"
#include "../lib/afile.h"
#include "../lib/xalloc.h"
#include "../reconcile/import/import.h"
#include "../reconcile/live/live.h"
#include "../reconcile/recon.h"
#include "creds.h"
#include "import-files.h"
#include "render-plan.h"
#include "snapshot-table.h"
#include "targets.h"
#include "tls.h"

#define CMD "import"

struct import_cli {
	const char *from_live, *from_xml, *out, *credentials, *origin;
	const char *schema_dir;
	bool force;
	struct import_opts io;
	struct agent_tls tls;
};

/* Each diagnostic once (nodes sharing a broker.xml give the same ones). */
static void
print_diags(const struct errlist *l)
{
	char **seen = xcalloc(l->n + 1, sizeof(*seen));
	size_t i, j, n = 0;

	for (i = 0; i < l->n; i++) {
		seen[n] = errlist_render_item(l, i);
		for (j = 0; j < n && strcmp(seen[j], seen[n]) != 0; j++)
			;
		if (j < n) {
			free(seen[n]);
			continue;
		}
		fprintf(stderr, "%s\n", seen[n++]);
	}
	for (j = 0; j < n; j++)
		free(seen[j]);
	free(seen);
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
	fprintf(stderr,
	    "artemis-gitops %s: reading %zu node(s) of cluster "
	    "'%s'\n",
	    CMD, t.n, shell->name);
	s = live_snapshot_fetch(shell->name, t.v, t.n, &http, NULL);
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

/* NODE=FILE for every node of shell, each once; files[i] is node i's. */
static int
node_files(const char **files, const struct decl_cluster *shell,
    const struct agent_cmd_args *args)
{
	const char *eq;
	size_t i, k;

	for (k = 0; k < (size_t)args->argc; k++) {
		eq = strchr(args->argv[k], '=');
		if (eq == NULL || eq == args->argv[k] || eq[1] == '\0')
			return agent_usage_error(CMD,
			    "expected NODE=FILE, got '%s'", args->argv[k]);
		for (i = 0; i < shell->nnodes; i++)
			if (strlen(shell->nodes[i].name) ==
			        (size_t)(eq - args->argv[k]) &&
			    strncmp(shell->nodes[i].name, args->argv[k],
			        (size_t)(eq - args->argv[k])) == 0)
				break;
		if (i == shell->nnodes)
			return agent_usage_error(CMD,
			    "'%s': no node '%.*s' in cluster '%s'",
			    args->argv[k], (int)(eq - args->argv[k]),
			    args->argv[k], shell->name);
		if (files[i] != NULL)
			return agent_usage_error(CMD,
			    "node '%s' is given twice", shell->nodes[i].name);
		files[i] = eq + 1;
	}
	for (i = 0; i < shell->nnodes; i++)
		if (files[i] == NULL)
			return agent_usage_error(CMD,
			    "no broker.xml for node '%s' (give %s=FILE)",
			    shell->nodes[i].name, shell->nodes[i].name);
	return AGENT_CMD_CONTINUE;
}

/* The bases to record: broker/broker.xml when every node's is the same,
 * else broker/nodes/<node>.xml each (docs/config-managed.md). */
static struct agent_import_extra *
bases_of(const struct decl_cluster *shell, const struct render_import *x,
    size_t *n)
{
	struct agent_import_extra *e;
	size_t i;
	bool same = true;

	for (i = 1; i < shell->nnodes; i++)
		same &= x[i].base_len == x[0].base_len &&
		        memcmp(x[i].base, x[0].base, x[0].base_len) == 0;
	*n = same ? 1 : shell->nnodes;
	e = xcalloc(*n, sizeof(*e));
	for (i = 0; i < *n; i++) {
		e[i].rel =
		    same ? xasprintf("%s/%s", RENDER_BASE_DIR, RENDER_BASE_FILE)
		         : xasprintf("%s/%s/%s.xml", RENDER_BASE_DIR,
		               RENDER_NODES_DIR, shell->nodes[i].name);
		e[i].data = xmalloc(x[i].base_len + 1);
		memcpy(e[i].data, x[i].base, x[i].base_len);
		e[i].data[x[i].base_len] = '\0';
		e[i].len = x[i].base_len;
	}
	return e;
}

/* Render every node of the imported declaration into its recorded base
 * and validate it against the schema, as `render` will: an import whose
 * render would fail is not written. */
static int
check_render(const struct import_result *r, const struct render_import *x,
    const char *const *files, const char *schema_dir)
{
	struct render_schema *schema = NULL;
	struct errlist diags = {0};
	struct err err = {0};
	struct render_base base;
	char *text, *msg;
	size_t i, len;
	int rc = 0;

	if (render_schema_load(&schema, agent_render_schema_dir(schema_dir),
	        &err) < 0) {
		msg = err_render(&err);
		fprintf(stderr,
		    "artemis-gitops %s: %s\nPass --schema-dir DIR or set %s "
		    "(scripts/artemis-schema extracts the schema).\n",
		    CMD, msg, RENDER_SCHEMA_ENV);
		free(msg);
		err_release(&err);
		return -1;
	}
	for (i = 0; i < r->decl->nnodes; i++) {
		base.path = files[i];
		base.data = x[i].base;
		base.len = x[i].base_len;
		text = NULL;
		if (render_broker_xml(&text, &len, r->decl, &base, schema,
		        &diags) < 0)
			rc = -1;
		free(text);
	}
	if (rc < 0) {
		print_diags(&diags);
		fprintf(stderr,
		    "artemis-gitops %s: the imported declaration does not "
		    "render into the recorded base; nothing written\n",
		    CMD);
	}
	errlist_release(&diags);
	render_schema_free(schema);
	return rc;
}

static int
read_xml(struct import_result *r, const struct import_cli *o,
    const struct decl_cluster *shell, const struct agent_cmd_args *args)
{
	const char **files = xcalloc(shell->nnodes + 1, sizeof(*files));
	struct render_import *x = xcalloc(shell->nnodes + 1, sizeof(*x));
	struct import_node *nodes = xcalloc(shell->nnodes + 1, sizeof(*nodes));
	struct agent_import_extra *extra = NULL;
	struct errlist diags = {0};
	size_t i, j, nextra = 0, bad = 0;
	int code;

	code = node_files(files, shell, args);
	if (code != AGENT_CMD_CONTINUE)
		goto done;
	code = AGENT_EXIT_FAIL;
	for (i = 0; i < shell->nnodes; i++)
		bad += render_import_read(&x[i], files[i], &diags) < 0;
	if (bad > 0) {
		print_diags(&diags);
		fprintf(stderr,
		    "artemis-gitops %s: a broker.xml could not be "
		    "imported; nothing written\n",
		    CMD);
		goto done;
	}
	for (i = 0; i < shell->nnodes; i++) {
		nodes[i].node = xstrdup(shell->nodes[i].name);
		nodes[i].objects = x[i].objects;
		x[i].objects = NULL;
		nodes[i].source = xstrdup(files[i]);
	}
	import_merge(r, shell, nodes, shell->nnodes, NULL, 0, "broker-xml");
	for (i = 0; i < shell->nnodes; i++)
		for (j = 0; j < x[i].nnotes; j++)
			import_note(r, "%s: %s", shell->nodes[i].name,
			    x[i].notes[j]);
	extra = bases_of(shell, x, &nextra);
	import_note(r, "%s: the base of %s",
	    nextra == 1 ? "broker/broker.xml" : "broker/nodes/<node>.xml",
	    nextra == 1 ? "every node (their files are the same)"
	                : "each node (their files differ)");
	if (check_render(r, x, files, o->schema_dir) < 0)
		goto done;
	code = agent_import_write(r, o->out, o->force, CMD, extra, nextra);
done:
	for (i = 0; i < shell->nnodes; i++) {
		render_import_release(&x[i]);
		import_node_release(&nodes[i]);
	}
	for (i = 0; i < nextra; i++) {
		free(extra[i].rel);
		free(extra[i].data);
	}
	free(extra);
	free(x);
	free(nodes);
	free(files);
	errlist_release(&diags);
	return code;
}

enum {
	IMPORT_FROM_LIVE,
	IMPORT_FROM_XML,
	IMPORT_OUT,
	IMPORT_FORCE,
	IMPORT_AUTO,
	IMPORT_CREDENTIALS,
	IMPORT_SCHEMA_DIR,
	IMPORT_TLS,
	IMPORT_ORIGIN = IMPORT_TLS + AGENT_TLS_NOPTIONS,
};

static int
import_exec(const struct agent_cmd_args *args)
{
	struct import_cli o = {0};
	struct decl_cluster *shell = NULL;
	struct import_result r = {0};
	struct errlist diags = {0};
	const char *nodes_file;
	int code;

	o.from_live = args->opt[IMPORT_FROM_LIVE];
	o.from_xml = args->opt[IMPORT_FROM_XML];
	o.out = args->opt[IMPORT_OUT];
	o.force = args->opt[IMPORT_FORCE] != NULL;
	o.io.include_auto_created = args->opt[IMPORT_AUTO] != NULL;
	o.credentials = args->opt[IMPORT_CREDENTIALS];
	o.origin = args->opt[IMPORT_ORIGIN];
	o.schema_dir = args->opt[IMPORT_SCHEMA_DIR];
	if ((o.from_live == NULL) == (o.from_xml == NULL))
		return agent_usage_error(CMD,
		    "expected one of --from-live NODES_FILE and "
		    "--from-broker-xml NODES_FILE");
	if (o.out == NULL)
		return agent_usage_error(CMD, "expected --out DIR");
	if (o.from_live != NULL && args->argc > 0)
		return agent_usage_error(CMD,
		    "unexpected argument '%s' (NODE=FILE arguments go with "
		    "--from-broker-xml)",
		    args->argv[0]);
	if (o.from_xml != NULL && o.io.include_auto_created)
		return agent_usage_error(CMD,
		    "--include-auto-created goes with --from-live");
	nodes_file = o.from_live != NULL ? o.from_live : o.from_xml;
	code = agent_tls_from_args(&o.tls, CMD, args, IMPORT_TLS);
	if (code != AGENT_CMD_CONTINUE)
		goto done;
	code = AGENT_EXIT_FAIL;
	if (agent_import_out_check(o.out, o.force, CMD) < 0)
		goto done;
	if (agent_import_nodes_file(&shell, nodes_file, &diags) < 0) {
		print_diags(&diags);
		goto done;
	}
	print_diags(&diags); /* warnings */
	if (o.from_xml != NULL) {
		if (shell->mode != DECL_CONFIG_MANAGED) {
			fprintf(stderr,
			    "artemis-gitops %s: %s: --from-broker-xml imports "
			    "a CONFIG_MANAGED cluster; the nodes file says "
			    "mode: %s\n",
			    CMD, nodes_file, decl_mode_name(shell->mode));
			goto done;
		}
		code = read_xml(&r, &o, shell, args);
		goto done;
	}
	if (read_live(&r, &o, shell) < 0)
		goto done;
	if (shell->mode == DECL_CONFIG_MANAGED)
		import_note(&r,
		    "mode CONFIG_MANAGED: render needs the nodes' base "
		    "broker.xml under broker/ (docs/config-managed.md); "
		    "import --from-broker-xml records it");
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
    [IMPORT_FROM_XML] = {"from-broker-xml", '\0', "NODES_FILE",
        "read the broker.xml of each node (NODE=FILE\n"
        "arguments) of a CONFIG_MANAGED cluster",
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
    [IMPORT_SCHEMA_DIR] = {"schema-dir", '\0', "DIR",
        "--from-broker-xml: Artemis's schema folder, as\n"
        "for `render`",
        NULL},
    AGENT_TLS_OPTIONS(IMPORT_TLS),
    [IMPORT_ORIGIN] = {"origin", '\0', "URL",
        "Origin header (default http://localhost)", NULL},
    {NULL, '\0', NULL, NULL, NULL},
};

const struct agent_cmd_entry agent_cmd_import_entry = {
    .name = "import",
    .summary = "write an existing cluster's objects as declarations",
    .synopsis = "[OPTIONS] --from-live NODES_FILE --out DIR\n"
                "[OPTIONS] --from-broker-xml NODES_FILE NODE=FILE... --out DIR",
    .description =
        "Read every node NODES_FILE declares (one Jolokia request per "
        "node, as\nsnapshot does) and write the cluster folder DIR: the "
        "addresses, queues and\ndiverts every node holds alike, as "
        "declarations that validate, and\nimport-report.md and "
        "import-report.json: every object left out, per node,\nand why "
        "(held by some nodes only, different between nodes, the broker's\n"
        "own, auto-created, temporary, a capture's tap). The first plan of "
        "DIR\nagainst the same brokers changes nothing; applying it "
        "adopts the declared\nobjects (docs/import.md).\n\nWith "
        "--from-broker-xml, each node's broker.xml (libxml2; xi:include\n"
        "resolved inside its folder) gives its <addresses> and <diverts>, "
        "written\nas a CONFIG_MANAGED cluster, the file recorded as the "
        "base that render\nsplices into (broker/).",
    .options = import_options,
    .help_col = 30,
    .exit_codes = "Exit codes: 0 imported, 1 a node could not be read, "
                  "invalid input or DIR\nnot written, 64 usage error.",
    .args_min = 0,
    .args_max = -1,
    .exec = import_exec,
};
