/* agent/render-plan.c: render a CONFIG_MANAGED plan's broker.xml files
 * (render-plan.h). */
#include "render-plan.h"

#include <sys/stat.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../declarations/render/render.h"
#include "../lib/afile.h"
#include "../lib/xalloc.h"

#define SCHEMA_DEV_DIR ".cache/artemis/schema"

/* The first of want[0], want[1] among files, copied into b. */
static bool
from_files(struct render_base *b, char **owned, char *const want[2],
    const struct agent_render_bases *bases)
{
	const struct decl_file *f;
	char *data;
	size_t i, k;

	for (k = 0; k < 2; k++)
		for (i = 0; i < bases->n; i++) {
			f = &bases->files[i];
			if (strcmp(f->path, want[k]) != 0)
				continue;
			*owned = xstrdup(want[k]);
			data = xmalloc(f->len + 1);
			memcpy(data, f->data, f->len);
			data[f->len] = '\0';
			b->path = *owned;
			b->data = data;
			b->len = f->len;
			return true;
		}
	return false;
}

/* The base text of node: from files (git) or the file system. */
static int
base_of(struct render_base *b, char **owned, const struct decl_cluster *c,
    const char *node, const struct agent_render_bases *bases, struct err *err)
{
	const char *dir = c->dir != NULL ? c->dir : "";
	const char *sep = dir[0] != '\0' ? "/" : "";
	char *want[2], *data = NULL;
	int rc;

	*owned = NULL;
	if (bases == NULL || !bases->in_memory) {
		if (render_base_path(owned, dir, node, err) < 0)
			return -1;
		b->path = *owned;
		rc = afile_read(&data, &b->len, *owned, RENDER_BASE_MAX, err);
		b->data = data;
		return rc;
	}
	if (!render_node_name_ok(node))
		return err_setf(err, NULL,
		    "node '%s': the name cannot be used as a file name", node);
	want[0] = xasprintf("%s%s%s/%s/%s.xml", dir, sep, RENDER_BASE_DIR,
	    RENDER_NODES_DIR, node);
	want[1] =
	    xasprintf("%s%s%s/%s", dir, sep, RENDER_BASE_DIR, RENDER_BASE_FILE);
	rc = from_files(b, owned, want, bases) ? 0 : -1;
	if (rc < 0)
		err_setf(err, NULL,
		    "node '%s': no base broker.xml (looked for %s and %s)",
		    node, want[0], want[1]);
	free(want[0]);
	free(want[1]);
	return rc;
}

/* Render c's nodes, node i validated against schemas[i] (from the folder
 * dirs[i]: a release's own when versions[i] is not NULL); texts[i] NULL
 * where a node failed (diags say why, and which release's schema the node
 * was held to). */
static void
render_all(char **texts, size_t *lens, const struct decl_cluster *c,
    const struct agent_render_bases *bases,
    struct render_schema *const *schemas, char *const *dirs,
    const char *const *versions, struct errlist *diags)
{
	struct render_base b;
	struct err err = {0};
	char *path;
	size_t i;

	for (i = 0; i < c->nnodes; i++) {
		memset(&b, 0, sizeof(b));
		if (base_of(&b, &path, c, c->nodes[i].name, bases, &err) < 0) {
			errlist_add(diags, DIAG_ERROR, &c->nodes[i].pos, "%s",
			    err.msg);
			err_release(&err);
		} else {
			if (render_broker_xml(&texts[i], &lens[i], c, &b,
			        schemas[i], diags) < 0 &&
			    versions != NULL && versions[i] != NULL)
				errlist_add(diags, DIAG_ERROR, &c->nodes[i].pos,
				    "node '%s': its broker.xml was checked against the schema of Artemis %s, the release it runs (%s)",
				    c->nodes[i].name, versions[i], dirs[i]);
		}
		free((void *)(uintptr_t)b.data);
		free(path);
	}
}

const char *
agent_render_schema_dir(const char *dir)
{
	if (dir == NULL)
		dir = getenv(RENDER_SCHEMA_ENV);
	if (dir == NULL || dir[0] == '\0')
		dir = SCHEMA_DEV_DIR;
	return dir;
}

static bool
same_nodes(const struct decl_cluster *a, const struct decl_cluster *b)
{
	size_t i;

	if (a->nnodes != b->nnodes)
		return false;
	for (i = 0; i < a->nnodes; i++)
		if (strcmp(a->nodes[i].name, b->nodes[i].name) != 0)
			return false;
	return true;
}

/* The before texts: before rendered (a node it does not have, or a
 * failure, falls back to the base file), else the base files. */
static void
befores(char **bt, size_t *bl, const struct decl_cluster *c,
    const struct decl_cluster *before, const struct agent_render_bases *bases,
    struct render_schema *const *schemas)
{
	struct errlist ignored = {0};
	struct render_base b;
	struct err err = {0};
	char *path;
	size_t i;

	if (before != NULL && same_nodes(c, before)) {
		struct decl_cluster shifted = *before;

		/* The previous declaration on the current base files. */
		shifted.dir = c->dir;
		render_all(bt, bl, &shifted, bases, schemas, NULL, NULL,
		    &ignored);
		errlist_release(&ignored);
	}
	for (i = 0; i < c->nnodes; i++) {
		if (bt[i] != NULL)
			continue;
		memset(&b, 0, sizeof(b));
		if (base_of(&b, &path, c, c->nodes[i].name, bases, &err) == 0) {
			bt[i] = (char *)(uintptr_t)b.data;
			bl[i] = b.len;
		} else {
			err_release(&err);
		}
		free(path);
	}
}

static void
add_section(struct plan *p, const struct agent_render_set *out, char **bt,
    const size_t *bl, const struct recon_snapshot *snap,
    const struct decl_cluster *c, const char *label)
{
	struct plan_rendered *r = xcalloc(out->n + 1, sizeof(*r));
	size_t i;

	for (i = 0; i < out->n; i++) {
		r[i].node = out->nodes[i];
		r[i].before = bt[i];
		r[i].before_len = bl[i];
		r[i].text = out->texts[i];
		r[i].len = out->lens[i];
	}
	plan_add_broker_xml(p, c, snap, label, r, out->n);
	free(r);
}

/* The schema a node's broker.xml is checked against follows the broker's
 * release: DIR/<Version>/ when it holds artemis-configuration.xsd
 * (scripts/artemis-schema --all makes one per release), else DIR itself.
 * A node not read uses DIR. Owned. */
static char *
node_schema_dir(const char *dir, const struct recon_snapshot *snap,
    const char *node, const char **version)
{
	const struct recon_node_snapshot *n =
	    snap != NULL ? recon_snapshot_find_node(snap, node) : NULL;
	const char *v = n != NULL ? n->broker_version : NULL;
	struct recon_version parsed;
	char *sub, *xsd;
	struct stat st;
	bool ok;

	if (v == NULL || recon_version_parse(v, &parsed) < 0 ||
	    strchr(v, '/') != NULL || v[0] == '.')
		return xstrdup(dir);
	sub = xasprintf("%s/%s", dir, v);
	xsd = xasprintf("%s/artemis-configuration.xsd", sub);
	ok = stat(xsd, &st) == 0 && S_ISREG(st.st_mode);
	free(xsd);
	if (ok) {
		*version = v;
		return sub;
	}
	free(sub);
	return xstrdup(dir);
}

/* One schema per node (loaded once per folder); -1 with diags on a
 * folder that does not load. */
static int
load_schemas(struct render_schema **schemas, char **dirs, const char **versions,
    const struct decl_cluster *c, const struct recon_snapshot *snap,
    const char *dir, struct errlist *diags)
{
	struct err err = {0};
	size_t i, j;
	int rc = 0;

	for (i = 0; i < c->nnodes; i++) {
		dirs[i] =
		    node_schema_dir(dir, snap, c->nodes[i].name, &versions[i]);
		for (j = 0; j < i; j++)
			if (strcmp(dirs[j], dirs[i]) == 0)
				break;
		if (j < i) {
			schemas[i] = schemas[j];
			continue;
		}
		if (render_schema_load(&schemas[i], dirs[i], &err) < 0) {
			errlist_add_err(diags, &err);
			schemas[i] = NULL;
			rc = -1;
		}
	}
	return rc;
}

static void
free_schemas(struct render_schema **schemas, char **dirs, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < i; j++)
			if (schemas[j] == schemas[i])
				break;
		if (j == i)
			render_schema_free(schemas[i]);
		free(dirs[i]);
	}
	free(schemas);
	free(dirs);
}

void
agent_render_plan(struct agent_render_set *out, struct plan *p,
    const struct decl_cluster *c, const struct decl_cluster *before,
    const char *before_label, const struct recon_snapshot *snap,
    const struct agent_render_bases *bases, const char *schema_dir)
{
	struct render_schema **schemas;
	struct errlist diags = {0};
	const char **versions;
	char **bt, **dirs;
	size_t *bl, i;

	memset(out, 0, sizeof(*out));
	if (c->mode != DECL_CONFIG_MANAGED)
		return;
	out->n = c->nnodes;
	out->nodes = xcalloc(c->nnodes + 1, sizeof(char *));
	out->texts = xcalloc(c->nnodes + 1, sizeof(char *));
	out->lens = xcalloc(c->nnodes + 1, sizeof(size_t));
	bt = xcalloc(c->nnodes + 1, sizeof(char *));
	bl = xcalloc(c->nnodes + 1, sizeof(size_t));
	for (i = 0; i < c->nnodes; i++)
		out->nodes[i] = xstrdup(c->nodes[i].name);
	schemas = xcalloc(c->nnodes + 1, sizeof(struct render_schema *));
	dirs = xcalloc(c->nnodes + 1, sizeof(*dirs));
	versions = xcalloc(c->nnodes + 1, sizeof(*versions));
	if (load_schemas(schemas, dirs, versions, c, snap,
	        agent_render_schema_dir(schema_dir), &diags) == 0) {
		render_all(out->texts, out->lens, c, bases, schemas, dirs,
		    versions, &diags);
		befores(bt, bl, c, before, bases, schemas);
	}
	errlist_sort(&diags);
	if (errlist_has_errors(&diags)) {
		plan_refuse_render(p, &diags);
		agent_render_release(out);
	} else {
		add_section(p, out, bt, bl, snap, c,
		    before_label != NULL
		        ? before_label
		        : "each node's base broker.xml in the repository");
	}
	for (i = 0; i < c->nnodes; i++)
		free(bt[i]);
	free(bt);
	free(bl);
	errlist_release(&diags);
	free_schemas(schemas, dirs, c->nnodes);
	free(versions);
}

int
agent_render_write(const struct agent_render_set *r, const char *dir,
    struct err *err)
{
	char *d, *path;
	size_t i;
	int rc = 0;

	for (i = 0; i < r->n && rc == 0; i++) {
		if (r->texts[i] == NULL)
			continue;
		d = xasprintf("%s/broker/%s", dir, r->nodes[i]);
		path = xasprintf("%s/broker.xml", d);
		if (afile_mkdirs(d, 0750, err) < 0 ||
		    afile_write(path, r->texts[i], r->lens[i], 0640, err) < 0)
			rc = -1;
		free(path);
		free(d);
	}
	return rc;
}

void
agent_render_release(struct agent_render_set *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		free(r->nodes[i]);
		free(r->texts[i]);
	}
	free(r->nodes);
	free(r->texts);
	free(r->lens);
	memset(r, 0, sizeof(*r));
}
