/* agent/cmd-state-migrate.c: `artemis-gitops state-migrate`, a state
 * folder copied into etcd (docs/ha.md "Moving to several agents"). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../lib/json.h"
#include "../lib/sbuf.h"
#include "../lib/strv.h"
#include "../lib/xalloc.h"
#include "agent.h"
#include "conf.h"
#include "coord.h"
#include "state.h"
#include "suspend.h"

enum { MIG_CONFIG, MIG_STATE, MIG_DRY_RUN };

struct rows {
	struct strv rows, clusters;
	size_t bad;
};

static int
take_row(void *ctx, const char *row, size_t len)
{
	struct rows *r = ctx;
	struct json_doc *doc = NULL;
	struct err err = {0};
	const char *c;

	if (json_parse(&doc, "audit row", row, len, &err) == 0 &&
	    (c = json_str(json_get(json_doc_root(doc), "cluster"))) != NULL) {
		strv_add(&r->rows, row);
		strv_add(&r->clusters, c);
	} else {
		r->bad++;
	}
	json_doc_free(doc);
	err_release(&err);
	return 0;
}

/* The clusters of dir: its folders named like a cluster that hold an
 * inventory.json or a suspended.json, and every cluster an audit row
 * names; sorted. */
static void
list_clusters(struct strv *out, const char *dir, const struct rows *r)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t i;

	while (d != NULL && (de = readdir(d)) != NULL) {
		char *a, *b;
		struct stat st;
		bool has;

		if (!agent_suspend_name_ok(de->d_name))
			continue;
		a = xasprintf("%s/%s/inventory.json", dir, de->d_name);
		b = xasprintf("%s/%s/%s", dir, de->d_name, AGENT_SUSPEND_FILE);
		has = stat(a, &st) == 0 || stat(b, &st) == 0;
		if (has && !strv_has(out, de->d_name))
			strv_add(out, de->d_name);
		free(a);
		free(b);
	}
	if (d != NULL)
		closedir(d);
	for (i = 0; i < r->clusters.n; i++)
		if (!strv_has(out, r->clusters.v[i]))
			strv_add(out, r->clusters.v[i]);
	strv_sort(out);
}

static int
migrate_exec(const struct agent_cmd_args *args)
{
	struct agent_conf *c = NULL;
	struct agent_state *st = NULL;
	struct errlist d = {0};
	struct err err = {0};
	struct rows r = {0};
	struct strv clusters = {0};
	struct sbuf report = {0};
	bool dry = args->opt[MIG_DRY_RUN] != NULL;
	const char *dir;
	char *s;
	size_t i;
	int code = AGENT_EXIT_FAIL;

	if (args->opt[MIG_CONFIG] == NULL)
		return agent_usage_error("state-migrate",
		    "--config FILE is required (its coordination.* name the "
		    "etcd and the prefix)");
	if (agent_conf_load(&c, args->opt[MIG_CONFIG], &d) < 0) {
		for (i = 0; i < d.n; i++) {
			s = errlist_render_item(&d, i);
			fprintf(stderr, "artemis-gitops state-migrate: %s\n",
			    s);
			free(s);
		}
		goto done;
	}
	if (c->coord_endpoints.n == 0) {
		fprintf(stderr,
		    "artemis-gitops state-migrate: %s has no "
		    "'coordination.endpoints': there is no etcd to copy into\n",
		    args->opt[MIG_CONFIG]);
		goto done;
	}
	dir = args->opt[MIG_STATE] != NULL ? args->opt[MIG_STATE] : c->state;
	/* the folder's lock: no agent or apply changes it meanwhile */
	if (agent_state_open(&st, dir, "state-migrate", &err) < 0 ||
	    agent_state_audit_each(st, take_row, &r, &err) < 0) {
		fprintf(stderr, "artemis-gitops state-migrate: %s\n", err.msg);
		goto done;
	}
	if (r.bad > 0) {
		fprintf(stderr,
		    "artemis-gitops state-migrate: %s/%s: %zu row(s) without "
		    "a cluster or not JSON: nothing is copied\n",
		    dir, AGENT_STATE_AUDIT, r.bad);
		goto done;
	}
	list_clusters(&clusters, dir, &r);
	if (clusters.n == 0) {
		fprintf(stderr,
		    "artemis-gitops state-migrate: %s holds no cluster's "
		    "state: nothing to copy\n",
		    dir);
		goto done;
	}
	sbuf_init(&report, 0);
	if (agent_coord_migrate(c, dir, &clusters, &r.rows, &r.clusters, dry,
	        &report, &err) < 0) {
		fprintf(stderr, "artemis-gitops state-migrate: %s\n", err.msg);
		goto done;
	}
	printf("%s", sbuf_str(&report));
	printf("%s %zu cluster(s) of %s into etcd under '%s'%s\n",
	    dry ? "would copy" : "copied", clusters.n, dir, c->coord_prefix,
	    dry ? " (--dry-run: nothing written)"
	        : "; set 'state-backend: etcd' and start the agents");
	code = AGENT_EXIT_OK;
done:
	sbuf_release(&report);
	strv_release(&clusters);
	strv_release(&r.rows);
	strv_release(&r.clusters);
	agent_state_close(st);
	agent_conf_free(c);
	errlist_release(&d);
	err_release(&err);
	return code;
}

static const struct agent_cmd_option migrate_options[] = {
    [MIG_CONFIG] = {"config", 'c', "FILE",
        "the agent configuration: coordination.* (required)", NULL},
    [MIG_STATE] = {"state", '\0', "DIR",
        "the state folder to copy (default: the configuration's\n`state`)",
        NULL},
    [MIG_DRY_RUN] = {"dry-run", 'n', NULL,
        "say what would be copied, write nothing", NULL},
    {NULL, '\0', NULL, NULL, NULL},
};

const struct agent_cmd_entry agent_cmd_state_migrate_entry = {
    .name = "state-migrate",
    .summary = "copy a state folder into etcd, for several agents",
    .synopsis = "--config FILE [--state DIR] [--dry-run]",
    .description =
        "Copy what a successor needs of a state folder into the etcd of "
        "the\nconfiguration's coordination.* (docs/ha.md): each "
        "cluster's inventory.json\nand suspension, and the audit log's "
        "rows (under epoch 0, in their order).\nThe folder is locked "
        "while it is read. Refused, with nothing written, while\nan agent "
        "runs on the prefix or when etcd already holds a cluster's "
        "state.",
    .options = migrate_options,
    .help_col = 22,
    .exit_codes = "Exit codes: 0 copied (or --dry-run), 1 refused or "
                  "failed, 64 usage error.",
    .args_max = 0,
    .exec = migrate_exec,
};
