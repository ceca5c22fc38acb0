/* agent/cmd-plan.c: `artemis-gitops plan CLUSTER_DIR --out DIR`: the
 * three-way diff of the new declaration, the managed set (an inventory, a
 * base folder or a base revision) and the live snapshot, with the ADR-0084
 * preflight, written as plan.json and plan.md. */
#include "agent.h"

#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/xalloc.h"
#include "../reconcile/live/live.h"
#include "comment-dir.h"
#include "git.h"
#include "inventory.h"
#include "preview.h"
#include "tls.h"

struct plan_args {
	const char *dir, *out, *state, *base_dir, *repo, *rev, *base;
	const char *snapshot, *credentials, *schema_dir, *comment, *read;
	struct agent_tls tls;
	struct agent_comment_opts comments;
	bool disconnect;
};

static int
check_args(const struct plan_args *a)
{
	if (a->out == NULL)
		return agent_usage_error("plan", "missing --out DIR");
	if ((a->repo == NULL) != (a->rev == NULL))
		return agent_usage_error("plan",
		    "--repo and --rev go together");
	if (a->base != NULL && a->repo == NULL)
		return agent_usage_error("plan", "--base needs --repo");
	if ((a->base != NULL) + (a->base_dir != NULL) + (a->state != NULL) > 1)
		return agent_usage_error("plan",
		    "use one of --state, --base-dir and --base");
	return 0;
}

/* Load a declaration from a folder, or from git at rev; keep (when not
 * NULL) receives the files read from git (its base broker.xml files). */
static int
load_decl_keep(struct decl_cluster **out, const struct plan_args *a,
    const char *dir, const char *rev, char **commit, struct errlist *diags,
    struct agent_git_folder *keep)
{
	struct agent_git_folder gf;
	struct agent_git_repo *r = NULL;
	char oid[AGENT_GIT_OID_HEX + 1];
	struct err err = {0};
	int rc;

	*commit = NULL;
	if (rev == NULL)
		return decl_cluster_load(out, dir, diags);
	if (agent_git_open(&r, a->repo, &err) < 0 ||
	    agent_git_resolve(r, rev, oid, &err) < 0 ||
	    agent_git_read_folder(r, oid, dir, &gf, &err) < 0) {
		agent_git_close(r);
		errlist_add_err(diags, &err);
		return -1;
	}
	agent_git_close(r);
	*commit = xstrdup(oid);
	rc = decl_cluster_parse(out, dir, gf.files, gf.nfiles, diags);
	if (keep != NULL)
		*keep = gf;
	else
		agent_git_folder_release(&gf);
	return rc;
}

/* Load a declaration from a folder, or from git at rev. *commit gets the
 * revision's commit id (git) or NULL. */
static int
load_decl(struct decl_cluster **out, const struct plan_args *a, const char *dir,
    const char *rev, char **commit, struct errlist *diags)
{
	return load_decl_keep(out, a, dir, rev, commit, diags, NULL);
}

static int
base_error(const char *what, struct errlist *diags)
{
	fprintf(stderr,
	    "artemis-gitops plan: the base declaration (%s) cannot be read:\n",
	    what);
	agent_preview_print_diags(diags);
	return -1;
}

/* The managed set: a base revision, a base folder, the inventory, or
 * nothing (then nothing is deleted). 0 or -1 (message printed). */
static int
load_managed(struct plan_managed *m, const struct plan_args *a,
    const char *cluster, struct decl_cluster **base_out)
{
	struct decl_cluster *base = NULL;
	struct errlist diags = {0};
	struct err err = {0};
	char *commit = NULL, *msg;
	int rc = 0;

	memset(m, 0, sizeof(*m));
	if (a->base != NULL || a->base_dir != NULL) {
		if (load_decl(&base, a, a->base != NULL ? a->dir : a->base_dir,
		        a->base, &commit, &diags) < 0)
			rc = base_error(a->base != NULL ? a->base : a->base_dir,
			    &diags);
		else
			plan_managed_from_decl(m, base, "base",
			    commit != NULL ? commit : a->base_dir);
		*base_out = base;
		base = NULL;
	} else if (a->state != NULL) {
		rc = agent_inventory_load(m, a->state, cluster, &err);
		if (rc < 0) {
			msg = err_render(&err);
			fprintf(stderr, "artemis-gitops plan: %s\n", msg);
			free(msg);
			err_release(&err);
		}
	} else {
		m->source = xstrdup("none");
	}
	decl_cluster_free(base);
	errlist_release(&diags);
	free(commit);
	return rc;
}

/* The declaration failed validation: print it, write a refused preview
 * (nothing destructive), exit 1. */
static int
invalid(const struct plan_args *a, const struct errlist *diags,
    const char *commit)
{
	struct plan_opts opts = {a->disconnect, commit, NULL};
	struct plan *p;
	char *copy = xstrdup(a->dir), *name;

	agent_preview_print_diags(diags);
	name = basename(copy);
	p = plan_invalid(name, diags, &opts);
	agent_preview_finish("plan", p, a->out);
	plan_free(p);
	free(copy);
	return agent_preview_comments("plan", AGENT_EXIT_FAIL, a->out,
	    a->comment, &a->comments);
}

static int
run(const struct plan_args *a)
{
	struct plan_opts opts = {a->disconnect, NULL, NULL};
	struct plan_managed m = {0};
	struct decl_cluster *c = NULL;
	struct recon_snapshot *s = NULL;
	struct plan *p = NULL;
	struct decl_cluster *before = NULL;
	struct agent_git_folder gf = {0};
	struct errlist diags = {0};
	struct live_scope scope = {0};
	struct agent_read rd;
	struct agent_preview_prefetch pf;
	char *commit = NULL;
	int code = AGENT_EXIT_FAIL;

	/* the recording is read on another core while the declarations load */
	agent_preview_prefetch_start(&pf, a->snapshot);
	if (load_decl_keep(&c, a, a->dir, a->rev, &commit, &diags, &gf) < 0) {
		code = invalid(a, &diags, commit);
		goto done;
	}
	agent_preview_print_diags(&diags); /* warnings */
	opts.revision = commit;
	opts.snapshot_source = agent_preview_snapshot_label(a->snapshot);
	if (load_managed(&m, a, c->name, &before) < 0)
		goto done;
	(void)agent_read_option(&rd, "plan", a->read, a->snapshot);
	/* the scope is what a read asks for; a recording uses it only when
	 * narrowed (--read scoped) */
	if (a->snapshot == NULL || rd.narrow)
		plan_scope_build(&scope, c, before, &m, NULL, 0, NULL);
	scope.shape = (enum live_scope_shape)rd.shape;
	rd.scope = &scope;
	rd.prefetch = &pf;
	if (agent_preview_snapshot(&s, "plan", c, a->snapshot, a->credentials,
	        &a->tls, &rd) < 0)
		goto done;
	p = plan_build(c, &m, s, &opts);
	plan_add_diagnostics(p, &diags);
	if (agent_preview_write_declaration("plan", c, a->out) < 0 ||
	    agent_preview_render("plan", p, c, before, &gf, s, a->schema_dir,
	        a->out) < 0)
		goto done;
	code = agent_preview_finish("plan", p, a->out);
	code = agent_preview_comments("plan", code, a->out, a->comment,
	    &a->comments);
done:
	agent_preview_prefetch_release(&pf);
	live_scope_release(&scope);
	decl_cluster_free(before);
	agent_git_folder_release(&gf);
	plan_free(p);
	live_snapshot_free(s);
	plan_managed_release(&m);
	decl_cluster_free(c);
	errlist_release(&diags);
	free(commit);
	return code;
}

enum {
	PLAN_OUT,
	PLAN_STATE,
	PLAN_BASE_DIR,
	PLAN_REPO,
	PLAN_REV,
	PLAN_BASE,
	PLAN_SNAPSHOT,
	PLAN_CREDENTIALS,
	PLAN_TLS,
	PLAN_SCHEMA_DIR = PLAN_TLS + AGENT_TLS_NOPTIONS,
	PLAN_DISCONNECT,
	PLAN_READ,
	PLAN_COMMENT,
	PLAN_COMMENT_OPTS,
};

static int
plan_exec(const struct agent_cmd_args *args)
{
	struct plan_args a = {0};
	int code;

	a.dir = args->argv[0];
	a.out = args->opt[PLAN_OUT];
	a.state = args->opt[PLAN_STATE];
	a.base_dir = args->opt[PLAN_BASE_DIR];
	a.repo = args->opt[PLAN_REPO];
	a.rev = args->opt[PLAN_REV];
	a.base = args->opt[PLAN_BASE];
	a.snapshot = args->opt[PLAN_SNAPSHOT];
	a.credentials = args->opt[PLAN_CREDENTIALS];
	a.schema_dir = args->opt[PLAN_SCHEMA_DIR];
	a.disconnect = args->opt[PLAN_DISCONNECT] != NULL;
	a.comment = args->opt[PLAN_COMMENT];
	a.read = args->opt[PLAN_READ];
	code = check_args(&a);
	if (code != 0)
		return code;
	code = agent_read_option(&(struct agent_read){0}, "plan", a.read,
	    a.snapshot);
	if (code != 0)
		return code;
	if (a.comment == NULL && agent_comment_given(args, PLAN_COMMENT_OPTS))
		return agent_usage_error("plan",
		    "--limit, --max-comments, --marker-id and --plan-url go "
		    "with --comment DIR");
	code = agent_comment_from_args(&a.comments, "plan", args,
	    PLAN_COMMENT_OPTS);
	if (code != AGENT_CMD_CONTINUE)
		return code;
	code = agent_tls_from_args(&a.tls, "plan", args, PLAN_TLS);
	if (code == AGENT_CMD_CONTINUE)
		code = run(&a);
	agent_tls_release(&a.tls);
	return code;
}

static const struct agent_cmd_option plan_options[] = {
    [PLAN_OUT] = {"out", '\0', "DIR", "where to write the preview (required)",
        NULL},
    [PLAN_STATE] = {"state", '\0', "DIR",
        "state folder: DIR/<cluster>/inventory.json is what\n"
        "the agent applied (absent: nothing is deleted)",
        NULL},
    [PLAN_BASE_DIR] = {"base-dir", '\0', "DIR",
        "the previous declaration, as a folder", NULL},
    [PLAN_REPO] = {"repo", '\0', "PATH",
        "read CLUSTER_DIR (a path in the repository) at REV", NULL},
    [PLAN_REV] = {"rev", '\0', "REV", NULL, NULL},
    [PLAN_BASE] = {"base", '\0', "REV",
        "with --repo: the previous declaration at REV\n(pull requests)", NULL},
    [PLAN_SNAPSHOT] = {"snapshot", '\0', "FILE",
        "plan against a recorded `snapshot --json` file", NULL},
    [PLAN_CREDENTIALS] = {"credentials", '\0', "DIR",
        "broker credentials folder (default:\n$CREDENTIALS_DIRECTORY)", NULL},
    AGENT_TLS_OPTIONS(PLAN_TLS),
    [PLAN_SCHEMA_DIR] = {"schema-dir", '\0', "DIR",
        "CONFIG_MANAGED: Artemis's schema folder, as for\n"
        "`render` (default: $ARTEMIS_GITOPS_SCHEMA_DIR,\n"
        "else ./.cache/artemis/schema)",
        NULL},
    [PLAN_DISCONNECT] = {"disconnect-consumers", '\0', NULL,
        "delete queues even if consumers are attached\n"
        "(they are disconnected); recorded in the plan",
        NULL},
    [PLAN_READ] = {"read", '\0', "HOW",
        "what is read of the nodes: scoped (the default\n"
        "for live nodes) reads every queue's identity and\n"
        "whole only the queues the plan weighs, by name or\n"
        "by pattern, whichever costs the broker less\n"
        "(by-name, by-pattern: that shape); full reads\n"
        "every queue whole; with --snapshot, scoped narrows\n"
        "the recording alike (docs/snapshot-format.md)",
        NULL},
    [PLAN_COMMENT] = {"comment", '\0', "DIR",
        "also write plan.md as pull-request comment bodies\n"
        "in DIR, as `comment` does (docs/ci.md); with:",
        NULL},
    AGENT_COMMENT_OPTIONS(PLAN_COMMENT_OPTS),
    {NULL, '\0', NULL, NULL, NULL},
};

const struct agent_cmd_entry agent_cmd_plan_entry = {
    .name = "plan",
    .summary = "plan a cluster against its live nodes; write plan.json and "
               "plan.md",
    .synopsis = "CLUSTER_DIR --out DIR [OPTIONS]",
    .description =
        "Plan the cluster declared in CLUSTER_DIR against its live nodes: "
        "creates\nfirst, then changes, then deletes of what the agent "
        "applied before and\nthe declaration no longer has (queue deletes "
        "per ADR-0084). Writes\nDIR/plan.json (docs/plan-format.md), "
        "DIR/plan.md and the planned\ndeclaration, normalised, as "
        "DIR/declaration/cluster.yaml (apply reads\nthe nodes' endpoints "
        "there).",
    .options = plan_options,
    .help_col = 26,
    .exit_codes = "Exit codes: 0 nothing to do, 2 the plan has changes, 1 "
                  "refused, invalid\ndeclaration, unreadable node or "
                  "error, 64 usage error.",
    .args_min = 1,
    .args_max = 1,
    .args_few = "missing CLUSTER_DIR",
    .bad_option = "unknown or incomplete option",
    .exec = plan_exec,
};
