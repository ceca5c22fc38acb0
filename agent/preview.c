/* agent/preview.c: shared by `plan` and `delete-queue`. */
#include "preview.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/afile.h"
#include "../lib/sha256.h"
#include "../lib/xalloc.h"
#include "../reconcile/live/live.h"
#include "agent.h"
#include "comment-dir.h"
#include "creds.h"
#include "git.h"
#include "plan-dir.h"
#include "render-plan.h"
#include "targets.h"
#include "tls.h"

void
agent_preview_print_diags(const struct errlist *diags)
{
	size_t i;

	for (i = 0; i < diags->n; i++) {
		char *s;

		s = errlist_render_item(diags, i);
		fprintf(stderr, "%s\n", s);
		free(s);
	}
	if (diags->dropped > 0)
		fprintf(stderr, "(%zu more diagnostics not shown)\n",
		    diags->dropped);
}

static int
print_err(const char *cmd, struct err *err)
{
	char *msg = err_render(err);

	fprintf(stderr, "artemis-gitops %s: %s\n", cmd, msg);
	free(msg);
	err_release(err);
	return -1;
}

static void *
prefetch_main(void *arg)
{
	struct agent_preview_prefetch *pf = arg;

	pf->rc = live_snapshot_read_file(&pf->s, pf->file, &pf->err);
	return NULL;
}

void
agent_preview_prefetch_start(struct agent_preview_prefetch *pf,
    const char *file)
{
	memset(pf, 0, sizeof(*pf));
	pf->file = file;
	if (file != NULL &&
	    pthread_create(&pf->thread, NULL, prefetch_main, pf) == 0)
		pf->running = true;
}

static void
prefetch_join(struct agent_preview_prefetch *pf)
{
	if (!pf->running)
		return;
	(void)pthread_join(pf->thread, NULL);
	pf->running = false;
}

void
agent_preview_prefetch_release(struct agent_preview_prefetch *pf)
{
	prefetch_join(pf);
	live_snapshot_free(pf->s);
	err_release(&pf->err);
	memset(pf, 0, sizeof(*pf));
}

static int
snapshot_file(struct recon_snapshot **out, const char *cmd, const char *file,
    struct agent_preview_prefetch *pf)
{
	struct err err = {0};

	if (pf != NULL && pf->file != NULL && strcmp(pf->file, file) == 0 &&
	    pf->running) {
		prefetch_join(pf);
		pf->file = NULL; /* taken */
		*out = pf->s;
		pf->s = NULL;
		if (pf->rc < 0)
			return print_err(cmd, &pf->err);
		return 0;
	}
	if (live_snapshot_read_file(out, file, &err) < 0)
		return print_err(cmd, &err);
	return 0;
}

int
agent_preview_snapshot_live(struct recon_snapshot **out,
    const struct decl_cluster *c, const char *node, const char *creds_dir,
    const struct agent_tls *tls, long timeout_ms,
    const struct live_scope *scope, const char *cmd, struct err *err)
{
	struct agent_targets t = {0};
	struct live_http_opts http = {0};

	if (creds_dir == NULL)
		return err_setf(err, NULL,
		    "no credentials folder: use --credentials DIR or set "
		    "CREDENTIALS_DIRECTORY (or plan against a recorded "
		    "--snapshot FILE)");
	if (agent_targets_load(&t, c, node != NULL ? &node : NULL,
	        node != NULL ? 1 : 0, creds_dir, NULL, err) < 0)
		return -1;
	agent_targets_warn_cleartext(&t, cmd, NULL);
	agent_tls_http(tls, &http);
	agent_http_timeout(&http, timeout_ms);
	*out = live_snapshot_fetch(c->name, t.v, t.n, &http, scope);
	agent_targets_release(&t);
	return 0;
}

static int
snapshot_live(struct recon_snapshot **out, const char *cmd,
    const struct decl_cluster *c, const char *creds,
    const struct agent_tls *tls, const struct live_scope *scope)
{
	struct err err = {0};

	if (agent_preview_snapshot_live(out, c, NULL, agent_creds_dir(creds),
	        tls, 0, scope, cmd, &err) < 0)
		return print_err(cmd, &err);
	return 0;
}

/* Every node of a recorded snapshot must be one the declaration names: the
 * planner looks nodes up by name, and would pass over the others in
 * silence (a snapshot of another declaration, or an edited one). The file
 * alone (snapshot-parse.c) refuses a node listed twice. */
static int
snapshot_nodes_declared(const char *cmd, const char *file,
    const struct recon_snapshot *s, const struct decl_cluster *c)
{
	size_t i;

	for (i = 0; i < s->nnodes; i++)
		if (decl_cluster_find_node(c, s->nodes[i].node) == NULL) {
			fprintf(stderr,
			    "artemis-gitops %s: %s: nodes[%zu].node: node '%s' is not declared in cluster '%s' (declared: ",
			    cmd, file, i, s->nodes[i].node, c->name);
			for (size_t j = 0; j < c->nnodes; j++)
				fprintf(stderr, "%s'%s'", j > 0 ? ", " : "",
				    c->nodes[j].name);
			fprintf(stderr, ")\n");
			return -1;
		}
	return 0;
}

int
agent_preview_snapshot(struct recon_snapshot **out, const char *cmd,
    const struct decl_cluster *c, const char *file, const char *creds,
    const struct agent_tls *tls, const struct agent_read *rd)
{
	struct recon_snapshot *s = NULL;
	size_t i;

	if (file == NULL)
		return snapshot_live(out, cmd, c, creds, tls,
		    rd->full ? NULL : rd->scope);
	if (snapshot_file(&s, cmd, file, rd->prefetch) < 0)
		return -1;
	if (s->cluster == NULL || strcmp(s->cluster, c->name) != 0) {
		fprintf(stderr,
		    "artemis-gitops %s: %s: a snapshot of cluster '%s', not of '%s'\n",
		    cmd, file, s->cluster != NULL ? s->cluster : "?", c->name);
		live_snapshot_free(s);
		return -1;
	}
	if (snapshot_nodes_declared(cmd, file, s, c) < 0) {
		live_snapshot_free(s);
		return -1;
	}
	/* --read scoped: the recording as a scoped read would have read it */
	for (i = 0; rd->narrow && i < s->nnodes; i++)
		live_node_narrow(&s->nodes[i], rd->scope);
	*out = s;
	return 0;
}

char *
agent_preview_capture_owned(const struct decl_cluster *c, const char *queue)
{
	const char *prefix = c->settings.capture_prefix;

	if (prefix[0] == '\0' || strncmp(queue, prefix, strlen(prefix)) != 0)
		return NULL;
	return xasprintf(
	    "'%s' has the reserved capture prefix '%s': it "
	    "belongs to a capture subscription; remove the capture "
	    "from the declaration instead",
	    queue, prefix);
}

int
agent_read_option(struct agent_read *rd, const char *cmd, const char *arg,
    const char *file)
{
	memset(rd, 0, sizeof(*rd));
	if (arg == NULL)
		return 0;
	if (strcmp(arg, "full") == 0) {
		rd->full = true;
		return 0;
	}
	if (strcmp(arg, "scoped") == 0 || strcmp(arg, "by-name") == 0 ||
	    strcmp(arg, "by-pattern") == 0) {
		rd->narrow = file != NULL;
		rd->shape = arg[0] == 's'   ? LIVE_SCOPE_CHOSEN
		            : arg[3] == 'n' ? LIVE_SCOPE_BY_NAME
		                            : LIVE_SCOPE_BY_PATTERN;
		return 0;
	}
	return agent_usage_error(cmd,
	    "--read takes 'full', 'scoped', 'by-name' or 'by-pattern', not '%s'",
	    arg);
}

const char *
agent_preview_snapshot_label(const char *file)
{
	const char *slash;

	if (file == NULL)
		return "live";
	slash = strrchr(file, '/');
	return slash != NULL ? slash + 1 : file;
}

static size_t
unreachable(const struct plan *p)
{
	size_t i, n = 0;

	/* a passive broker is said, and is not a failure: it was read */
	for (i = 0; i < p->nnodes; i++)
		if (!p->nodes[i].reachable) {
			fprintf(stderr, "node '%s': %s: %s\n", p->nodes[i].node,
			    p->nodes[i].refusal, p->nodes[i].message);
			n += !plan_node_passive(&p->nodes[i]);
		}
	return n;
}

int
agent_preview_finish(const char *cmd, const struct plan *p, const char *out_dir)
{
	char digest[SHA256_HEX], *first, *nl;
	struct err err = {0};
	size_t nbad;

	if (agent_plan_dir_write(p, out_dir, digest, &err) < 0) {
		print_err(cmd, &err);
		return AGENT_EXIT_FAIL;
	}
	first = plan_render_md_title(p); /* plan.md's first line */
	nl = strchr(first, '\n');
	if (nl != NULL)
		*nl = '\0';
	printf("%s\n", first + (first[0] == '#' ? 2 : 0));
	free(first);
	printf("plan: %s/plan.md (sha256 %s)\n", out_dir, digest);
	nbad = unreachable(p);
	if (p->outcome == PLAN_OUT_REFUSED) {
		fprintf(stderr, "artemis-gitops %s: refused (%s): %s; %s\n",
		    cmd, p->refusal, p->message, p->next_step);
		return AGENT_EXIT_FAIL;
	}
	if (nbad > 0)
		return AGENT_EXIT_FAIL;
	return p->outcome == PLAN_OUT_WOULD_APPLY ? AGENT_EXIT_CHANGES
	                                          : AGENT_EXIT_OK;
}

int
agent_preview_comments(const char *cmd, int code, const char *out_dir,
    const char *comment_dir, const struct agent_comment_opts *o)
{
	struct err err = {0};
	struct stat st;
	char *json;

	if (comment_dir == NULL)
		return code;
	json = xasprintf("%s/plan.json", out_dir);
	if (stat(json, &st) < 0) { /* the plan itself was not written */
		free(json);
		return code;
	}
	free(json);
	if (agent_comment_dir_write(out_dir, comment_dir, o, &err) < 0) {
		print_err(cmd, &err);
		return AGENT_EXIT_FAIL;
	}
	return code;
}

/* The *.yaml / *.yml files of a previous plan's declaration. */
static bool
is_yaml(const char *name, void *ctx)
{
	(void)ctx;
	return decl_is_yaml_name(name);
}

static void
writer_sink(void *ctx, const char *data, size_t len)
{
	afile_writer_add(ctx, data, len);
}

int
agent_preview_declaration_write(const struct decl_cluster *c,
    const char *out_dir, struct err *err)
{
	char *dir = xasprintf("%s/declaration", out_dir);
	char *file = xasprintf("%s/cluster.yaml", dir);
	struct afile_writer w;
	int rc = -1;

	/* streamed: 50 MB at 100,000 queues (bench/README.md) */
	if (afile_mkdirs(dir, 0750, err) < 0 ||
	    afile_unlink_matching(dir, is_yaml, NULL, err) < 0 ||
	    afile_writer_open(&w, file, 0640, err) < 0)
		goto done;
	decl_cluster_dump_stream(c, writer_sink, &w);
	if (afile_writer_commit(&w, err) < 0)
		goto done;
	rc = 0;
done:
	free(file);
	free(dir);
	return rc;
}

int
agent_preview_write_declaration(const char *cmd, const struct decl_cluster *c,
    const char *out_dir)
{
	struct err err = {0};

	if (agent_preview_declaration_write(c, out_dir, &err) < 0)
		return print_err(cmd, &err);
	return 0;
}

int
agent_preview_render(const char *cmd, struct plan *p,
    const struct decl_cluster *c, const struct decl_cluster *before,
    const struct agent_git_folder *gf, const struct recon_snapshot *s,
    const char *schema_dir, const char *out_dir)
{
	struct agent_render_bases bases = {0};
	struct agent_render_set r;
	struct err err = {0};
	char *label = NULL;
	int rc = 0;

	if (c->mode != DECL_CONFIG_MANAGED)
		return 0;
	if (gf != NULL && gf->dir != NULL) {
		bases.files = gf->bases;
		bases.n = gf->nbases;
		bases.in_memory = true;
	}
	if (before == c)
		label = xstrdup("the file rendered from the same declaration "
		                "(delete-queue changes no broker.xml)");
	else if (before != NULL)
		label = xasprintf("the broker.xml rendered from the base "
		                  "declaration ('%s') on the same base files",
		    p->base_revision != NULL ? p->base_revision : "?");
	agent_render_plan(&r, p, c, before, label, s, &bases, schema_dir);
	if (agent_render_write(&r, out_dir, &err) < 0)
		rc = print_err(cmd, &err);
	agent_render_release(&r);
	free(label);
	return rc;
}
