/* agent/cmd-render.c: `artemis-gitops render CLUSTER_DIR --out DIR
 * [--schema-dir DIR]`: write broker.xml for each node of a CONFIG_MANAGED
 * cluster (docs/config-managed.md). Every node is rendered and validated
 * in memory first; files are written only when all of them succeed. */
#include "agent.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../declarations/decl.h"
#include "../declarations/render/render.h"
#include "../lib/afile.h"
#include "../lib/xalloc.h"
#include "../reconcile/live/live.h"
#include "../reconcile/plan/plan.h"
#include "preview.h"
#include "render-plan.h"
#include "tls.h"

struct render_opts {
	const char *out, *schema_dir, *prev;
	bool predict;
	const char *snapshot,
	    *creds; /* for predict: a recorded file, or live */
	struct agent_tls tls;
};

struct rendered {
	const char *node; /* borrowed from the cluster */
	char *base_path;
	char *text;
	size_t len;
};

/* Print diagnostics once each (nodes sharing a base give the same ones),
 * with control bytes escaped: names come from untrusted YAML. */
static void
print_diags(struct errlist *diags)
{
	char **seen;
	const char *p;
	size_t i, j, nseen = 0;
	bool dup;

	errlist_sort(diags);
	seen = xcalloc(diags->n + 1, sizeof(*seen));
	for (i = 0; i < diags->n; i++) {
		seen[nseen] = errlist_render_item(diags, i);
		for (dup = false, j = 0; j < nseen && !dup; j++)
			dup = strcmp(seen[j], seen[nseen]) == 0;
		if (dup) {
			free(seen[nseen]);
			continue;
		}
		for (p = seen[nseen]; *p != '\0'; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				fprintf(stderr, "\\x%02x", (unsigned char)*p);
			else
				fputc(*p, stderr);
		fputc('\n', stderr);
		nseen++;
	}
	for (j = 0; j < nseen; j++)
		free(seen[j]);
	free(seen);
	if (diags->dropped > 0)
		fprintf(stderr,
		    "artemis-gitops render: %zu more diagnostics not shown\n",
		    diags->dropped);
}

static int
load_schema(struct render_schema **out, const char *dir)
{
	struct err err = {0};
	char *msg;

	dir = agent_render_schema_dir(dir);
	if (render_schema_load(out, dir, &err) == 0)
		return 0;
	msg = err_render(&err);
	fprintf(stderr,
	    "artemis-gitops render: %s\n"
	    "Pass --schema-dir DIR or set %s to a folder holding the schema/ "
	    "files of\nartemis-server-<version>.jar (scripts/artemis-schema "
	    "extracts them).\n",
	    msg, RENDER_SCHEMA_ENV);
	free(msg);
	err_release(&err);
	return -1;
}

/* Render one node into r; problems go to diags. */
static void
render_node(struct rendered *r, const struct decl_cluster *c,
    const struct decl_node *n, const struct render_schema *schema,
    struct errlist *diags)
{
	struct err err = {0};
	struct render_base base;
	char *data = NULL;
	size_t len = 0;

	r->node = n->name;
	if (render_base_path(&r->base_path, c->dir, n->name, &err) != 0) {
		/* Point at the node's declaration. */
		errlist_add(diags, DIAG_ERROR, &n->pos, "%s", err.msg);
		err_release(&err);
		return;
	}
	if (afile_read(&data, &len, r->base_path, RENDER_BASE_MAX, &err) != 0) {
		errlist_add_err(diags, &err);
		return;
	}
	base.path = r->base_path;
	base.data = data;
	base.len = len;
	render_broker_xml(&r->text, &r->len, c, &base, schema, diags);
	free(data);
}

static int
write_all(const struct rendered *r, size_t n, const char *out_dir, bool list)
{
	struct err err = {0};
	char *msg;
	size_t i;
	int rc = 0;

	for (i = 0; i < n && rc == 0; i++) {
		char *dir, *path;

		dir = xasprintf("%s/%s", out_dir, r[i].node);
		path = xasprintf("%s/broker.xml", dir);
		if (afile_mkdirs(dir, 0755, &err) != 0 ||
		    afile_write(path, r[i].text, r[i].len, 0644, &err) != 0) {
			msg = err_render(&err);
			fprintf(stderr, "artemis-gitops render: %s\n", msg);
			free(msg);
			err_release(&err);
			rc = -1;
		} else if (list) {
			printf("%s (from %s)\n", path, r[i].base_path);
		}
		free(dir);
		free(path);
	}
	return rc;
}

/* Print each node's unified diff against prev_dir/<node>/broker.xml (a
 * missing file is an empty one, labelled /dev/null as diff -N does). */
static int
print_diffs(const struct rendered *r, size_t n, const char *prev_dir)
{
	struct err err = {0};
	char *path, *old, *la, *lb, *d, *msg;
	size_t i, len;

	for (i = 0; i < n; i++) {
		path = xasprintf("%s/%s/broker.xml", prev_dir, r[i].node);
		old = NULL;
		len = 0;
		if (access(path, F_OK) != 0) {
			la = xstrdup("/dev/null");
		} else if (afile_read(&old, &len, path, RENDER_BASE_MAX * 8,
		               &err) != 0) {
			msg = err_render(&err);
			fprintf(stderr, "artemis-gitops render: %s\n", msg);
			free(msg);
			err_release(&err);
			free(path);
			return -1;
		} else {
			la = xasprintf("a/%s/broker.xml", r[i].node);
		}
		lb = xasprintf("b/%s/broker.xml", r[i].node);
		d = render_udiff(old != NULL ? old : "", len, r[i].text,
		    r[i].len, la, lb);
		if (d != NULL)
			fputs(d, stdout);
		free(d);
		free(la);
		free(lb);
		free(old);
		free(path);
	}
	return 0;
}

/* Print each node's reload prediction against its live (or recorded)
 * state. Returns -1 when a node could not be read (its prediction is
 * missing). */
static int
print_predictions(const struct decl_cluster *c, const struct rendered *r,
    const struct render_opts *o)
{
	struct render_config_delete cd;
	struct plan_reload_settings file_settings;
	struct recon_snapshot *snap = NULL;
	const struct recon_node_snapshot *n;
	struct plan_reload pr;
	struct live_scope scope = {0};
	struct agent_read rd = {.scope = &scope};
	char *md;
	size_t i;
	int rc = 0;

	plan_scope_build(&scope, c, NULL, NULL, NULL, 0, NULL);
	rc = agent_preview_snapshot(&snap, "render", c, o->snapshot, o->creds,
	    &o->tls, &rd);
	live_scope_release(&scope);
	if (rc != 0)
		return -1;
	for (i = 0; i < c->nnodes; i++) {
		n = recon_snapshot_find_node(snap, c->nodes[i].name);
		if (n == NULL || n->refusal.kind != RECON_OK) {
			fprintf(stderr,
			    "artemis-gitops render: node '%s': %s, its reload "
			    "is not predicted\n",
			    c->nodes[i].name,
			    n == NULL ? "not in the snapshot"
			              : recon_kind_name(n->refusal.kind));
			rc = -1;
			continue;
		}
		if (render_config_delete(r[i].text, r[i].len, &cd) != 0)
			abort(); /* it was parsed and validated before */
		file_settings.addresses = cd.addresses;
		file_settings.queues = cd.queues;
		file_settings.diverts = cd.diverts;
		plan_reload_predict(&pr, c, n, &file_settings);
		md = plan_reload_render_md(&pr);
		printf("%s%s", i > 0 ? "\n" : "", md);
		free(md);
		plan_reload_release(&pr);
	}
	live_snapshot_free(snap);
	return rc;
}

static int
render_cluster(const char *cluster_dir, const struct render_opts *o)
{
	struct decl_cluster *c = NULL;
	struct render_schema *schema = NULL;
	struct errlist diags = {0};
	struct rendered *r = NULL;
	size_t i;
	int rc = AGENT_EXIT_FAIL;

	if (decl_cluster_load(&c, cluster_dir, &diags) != 0) {
		print_diags(&diags);
		goto done;
	}
	if (c->mode != DECL_CONFIG_MANAGED) {
		print_diags(&diags);
		fprintf(stderr,
		    "artemis-gitops render: cluster '%s' is %s; render writes "
		    "broker.xml for CONFIG_MANAGED clusters only (%s brokers "
		    "are changed at runtime: use plan and apply)\n",
		    c->name, decl_mode_name(c->mode), decl_mode_name(c->mode));
		goto done;
	}
	if (load_schema(&schema, o->schema_dir) != 0)
		goto done;
	r = xcalloc(c->nnodes + 1, sizeof(*r));
	for (i = 0; i < c->nnodes; i++)
		render_node(&r[i], c, &c->nodes[i], schema, &diags);
	print_diags(&diags);
	if (errlist_has_errors(&diags))
		goto done;
	if (o->prev != NULL && print_diffs(r, c->nnodes, o->prev) != 0)
		goto done;
	if (write_all(r, c->nnodes, o->out, o->prev == NULL && !o->predict) !=
	    0)
		goto done;
	rc = AGENT_EXIT_OK;
	if (o->predict && print_predictions(c, r, o) != 0)
		rc = AGENT_EXIT_FAIL;
done:
	for (i = 0; r != NULL && i < c->nnodes; i++) {
		free(r[i].base_path);
		free(r[i].text);
	}
	free(r);
	errlist_release(&diags);
	render_schema_free(schema);
	decl_cluster_free(c);
	return rc;
}

enum {
	RENDER_OUT,
	RENDER_SCHEMA_DIR,
	RENDER_DIFF_AGAINST,
	RENDER_PREDICT_RELOAD,
	RENDER_SNAPSHOT,
	RENDER_CREDENTIALS,
	RENDER_TLS,
};

static int
render_exec(const struct agent_cmd_args *args)
{
	struct render_opts o = {0};
	int code;

	o.out = args->opt[RENDER_OUT];
	o.schema_dir = args->opt[RENDER_SCHEMA_DIR];
	o.prev = args->opt[RENDER_DIFF_AGAINST];
	o.predict = args->opt[RENDER_PREDICT_RELOAD] != NULL;
	o.snapshot = args->opt[RENDER_SNAPSHOT];
	o.creds = args->opt[RENDER_CREDENTIALS];
	if (o.out == NULL)
		return agent_usage_error("render", "missing --out DIR");
	if (!o.predict && (o.snapshot != NULL || o.creds != NULL))
		return agent_usage_error("render",
		    "--snapshot and --credentials go with --predict-reload");
	if (!o.predict && agent_tls_given(args, RENDER_TLS))
		return agent_usage_error("render",
		    "--ca-file, --client-cert and --client-key go with "
		    "--predict-reload");
	code = agent_tls_from_args(&o.tls, "render", args, RENDER_TLS);
	if (code == AGENT_CMD_CONTINUE)
		code = render_cluster(args->argv[0], &o);
	agent_tls_release(&o.tls);
	return code;
}

static const struct agent_cmd_option render_options[] = {
    [RENDER_OUT] = {"out", 'o', "DIR",
        "where to write <node>/broker.xml (required)", NULL},
    [RENDER_SCHEMA_DIR] = {"schema-dir", 's', "DIR",
        "folder holding artemis-configuration.xsd and xml.xsd\n"
        "(default: $" RENDER_SCHEMA_ENV ",\n"
        "else ./.cache/artemis/schema)",
        NULL},
    [RENDER_DIFF_AGAINST] = {"diff-against", 'd', "DIR",
        "print, instead of the list of written files, each\n"
        "node's unified diff against DIR/<node>/broker.xml\n"
        "(the deployed files, or an earlier --out)",
        NULL},
    [RENDER_PREDICT_RELOAD] = {"predict-reload", '\0', NULL,
        "print, for each node, what a reload of the new file\n"
        "does on the live broker (its config-delete-* settings):\n"
        "what it adds, updates, keeps and removes, and the\n"
        "messages lost; reads every node like `snapshot`",
        NULL},
    [RENDER_SNAPSHOT] = {"snapshot", '\0', "FILE",
        "with --predict-reload: a recorded `snapshot --json`", NULL},
    [RENDER_CREDENTIALS] = {"credentials", '\0', "DIR",
        "with --predict-reload: the credentials folder\n"
        "(default: $CREDENTIALS_DIRECTORY)",
        NULL},
    AGENT_TLS_OPTIONS(RENDER_TLS),
    {NULL, '\0', NULL, NULL, NULL},
};

const struct agent_cmd_entry agent_cmd_render_entry = {
    .name = "render",
    .summary = "write broker.xml for each node of a CONFIG_MANAGED cluster",
    .synopsis = "CLUSTER_DIR --out DIR [--schema-dir DIR]\n"
                "[--diff-against DIR]\n"
                "[--predict-reload [--snapshot FILE | --credentials DIR]]",
    .description =
        "Write DIR/<node>/broker.xml for each node of a CONFIG_MANAGED "
        "cluster: the\nbase broker.xml of the cluster "
        "(CLUSTER_DIR/broker/broker.xml, or a node's\n"
        "CLUSTER_DIR/broker/nodes/<node>.xml) with its <addresses> and "
        "<diverts>\nreplaced by the declared ones, validated against "
        "Artemis's schema.\nNothing is written unless every node renders "
        "and validates.",
    .options = render_options,
    .help_col = 24,
    .exit_codes = "Exit codes: 0 written, 1 invalid declarations, base or "
                  "schema violation, or\na node whose reload could not be "
                  "predicted (the files are written), 64\nusage error.",
    .args_min = 1,
    .args_max = 1,
    .args_few = "missing CLUSTER_DIR",
    .args_many = "one CLUSTER_DIR only",
    .bad_option = "unknown option or missing argument",
    .exec = render_exec,
};
