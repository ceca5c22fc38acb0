/* agent/mcp/fleet.c: what the MCP tools read and where they write, through
 * what the command line and the daemon already use: the declarations from
 * git (agent/git.h: the daemon's clone STATE/repo, or a repository given
 * with --repo) parsed by decl_cluster_parse, the nodes read with the
 * targets of agent/targets.h (preview.c's agent_preview_snapshot_live), the
 * inventory (agent/inventory.h), and the outbox a preview is posted to as
 * the page's delete-queue posts one (agent/outbox.h, agent/plan-dir.h). */
#include "mcp-int.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/sha256.h"
#include "../../lib/xalloc.h"
#include "../../reconcile/live/live.h"
#include "../inventory.h"
#include "../outbox.h"
#include "../plan-dir.h"
#include "../preview.h"

static void
cluster_release(struct mcp_cluster *mc)
{
	agent_git_folder_release(&mc->files);
	decl_cluster_free(mc->decl);
	errlist_release(&mc->diags);
}

void
mcp_tree_release(struct mcp_tree *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		cluster_release(&t->v[i]);
	free(t->v);
	free(t->rev);
	memset(t, 0, sizeof(*t));
}

int
mcp_tree_load(struct mcp_tree *out, const struct mcp_ctx *x, const char *rev,
    struct err *err)
{
	struct agent_git_repo *r = NULL;
	struct agent_git_folder *fs = NULL;
	size_t n = 0, i;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	out->rev = xstrdup(rev != NULL ? rev : x->default_rev);
	if (x->clone && access(x->repo, F_OK) < 0) {
		err_setf(err, NULL,
		    "the daemon's clone '%s' does not exist yet (the daemon "
		    "makes it at its first fetch): start `artemis-gitops run "
		    "--config %s`, or give `mcp --repo PATH`",
		    x->repo, x->conf->path);
		goto done;
	}
	if (agent_git_open(&r, x->repo, err) < 0 ||
	    agent_git_resolve(r, out->rev, out->commit, err) < 0 ||
	    agent_git_read_clusters(r, out->commit, x->conf->clusters_path, &fs,
	        &n, err) < 0)
		goto done;
	out->v = xcalloc(n > 0 ? n : 1, sizeof(*out->v));
	for (i = 0; i < n; i++) {
		struct mcp_cluster *mc = &out->v[i];

		mc->files = fs[i];
		memset(&fs[i], 0, sizeof(fs[i]));
		if (decl_cluster_parse(&mc->decl, mc->files.dir,
		        mc->files.files, mc->files.nfiles, &mc->diags) < 0)
			mc->decl = NULL;
	}
	out->n = n;
	rc = 0;
done:
	agent_git_folders_free(fs, n);
	agent_git_close(r);
	if (rc < 0)
		mcp_tree_release(out);
	return rc;
}

static const char *
base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash != NULL ? slash + 1 : path;
}

const struct mcp_cluster *
mcp_tree_find(const struct mcp_tree *t, const char *name, char **why)
{
	struct sbuf names = {0};
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->v[i].decl != NULL &&
		    strcmp(t->v[i].decl->name, name) == 0)
			return &t->v[i];
	for (i = 0; i < t->n; i++)
		if (t->v[i].decl == NULL &&
		    strcmp(base_name(t->v[i].files.dir), name) == 0) {
			char *first =
			    t->v[i].diags.n > 0
			        ? errlist_render_item(&t->v[i].diags, 0)
			        : xstrdup("?");

			*why = xasprintf(
			    "the folder '%s' at %s (commit %.12s) does not "
			    "validate (%zu error(s); the first: %s): run the "
			    "validate tool on it",
			    t->v[i].files.dir, t->rev, t->commit,
			    t->v[i].diags.nerrors, first);
			free(first);
			return NULL;
		}
	for (i = 0; i < t->n; i++)
		if (t->v[i].decl != NULL)
			sbuf_addf(&names, "%s'%s'", names.len > 0 ? ", " : "",
			    t->v[i].decl->name);
	*why = xasprintf("no cluster '%s' at %s (commit %.12s); the clusters "
	                 "there: %s",
	    name, t->rev, t->commit, names.len > 0 ? sbuf_str(&names) : "none");
	sbuf_release(&names);
	return NULL;
}

int
mcp_fleet_read(struct recon_snapshot **out, const struct mcp_ctx *x,
    const struct decl_cluster *c, const char *node,
    const struct live_scope *scope, struct err *err)
{
	return agent_preview_snapshot_live(out, c, node, x->creds, &x->tls,
	    x->timeout_ms, scope, NULL, err);
}

int
mcp_fleet_managed(struct plan_managed *out, const struct mcp_ctx *x,
    const char *cluster, struct err *err)
{
	return agent_inventory_load(out, x->conf->state, cluster, err);
}

int
mcp_fleet_post(char **dir_out, const struct mcp_ctx *x, struct plan *p,
    const struct mcp_cluster *mc, const struct decl_cluster *before,
    const struct recon_snapshot *s, const char *commit, const char *request,
    struct err *err)
{
	char digest[SHA256_HEX];
	char *dir = NULL;

	/* plan.json last: a folder is a preview once it holds one
	 * (agent_outbox_plans), so the page never shows half of it */
	if (agent_outbox_new_plan_dir(&dir, x->conf->outbox, p->cluster, commit,
	        err) < 0)
		return -1;
	if (agent_outbox_put(dir, AGENT_OUTBOX_REQUEST, request, err) < 0 ||
	    agent_preview_declaration_write(mc->decl, dir, err) < 0)
		goto fail;
	if (agent_preview_render("mcp", p, mc->decl, before, &mc->files, s,
	        NULL, dir) < 0) {
		err_setf(err, NULL,
		    "the broker.xml files of CONFIG_MANAGED cluster '%s' could "
		    "not be written into '%s' (the agent's log says why)",
		    p->cluster, dir);
		goto fail;
	}
	if (agent_plan_dir_write(p, dir, digest, err) < 0)
		goto fail;
	*dir_out = dir;
	return 0;
fail:
	free(dir);
	return -1;
}

char *
mcp_preview_uri(const char *cluster, const char *id, const char *file)
{
	return xasprintf(MCP_URI_SCHEME "previews/%s/%s/%s", cluster, id, file);
}
