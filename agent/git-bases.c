/* agent/git-bases.c: base broker.xml files out of a git tree. */
#include "git-bases.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../declarations/render/render.h"
#include "../lib/xalloc.h"

static int
add(struct decl_file **files, size_t *n, git_repository *r,
    const git_tree_entry *e, const char *path, struct err *err)
{
	git_blob *b = NULL;
	struct decl_file *f;
	char *data;
	size_t len;

	if (git_tree_entry_type(e) != GIT_OBJECT_BLOB)
		return 0;
	if (git_blob_lookup(&b, r, git_tree_entry_id(e)) < 0)
		return err_setf(err, NULL, "cannot read '%s'", path);
	len = (size_t)git_blob_rawsize(b);
	if (len > RENDER_BASE_MAX) {
		git_blob_free(b);
		return err_setf(err, NULL, "'%s': larger than %zu bytes", path,
		    (size_t)RENDER_BASE_MAX);
	}
	data = xmalloc(len + 1);
	memcpy(data, git_blob_rawcontent(b), len);
	data[len] = '\0';
	git_blob_free(b);
	*files = xreallocarray(*files, *n + 1, sizeof(**files));
	f = &(*files)[(*n)++];
	f->path = xstrdup(path);
	f->data = data;
	f->len = len;
	return 0;
}

static int
add_nodes(struct decl_file **files, size_t *n, git_repository *r,
    const git_tree *t, const char *dir, struct err *err)
{
	const git_tree_entry *e;
	const char *name;
	char *path;
	size_t i, len;
	int rc = 0;

	for (i = 0; i < git_tree_entrycount(t) && rc == 0; i++) {
		e = git_tree_entry_byindex(t, i);
		name = git_tree_entry_name(e);
		len = strlen(name);
		if (len <= 4 || strcmp(name + len - 4, ".xml") != 0)
			continue;
		path = xasprintf("%s%s%s/%s/%s", dir, dir[0] != '\0' ? "/" : "",
		    RENDER_BASE_DIR, RENDER_NODES_DIR, name);
		rc = add(files, n, r, e, path, err);
		free(path);
	}
	return rc;
}

int
agent_git_add_bases(struct decl_file **files, size_t *n, git_repository *r,
    const git_tree *tree, const char *dir, struct err *err)
{
	git_tree_entry *e = NULL;
	git_tree *nodes = NULL;
	char *rel, *path;
	int rc = 0;

	rel = xasprintf("%s/%s", RENDER_BASE_DIR, RENDER_BASE_FILE);
	if (git_tree_entry_bypath(&e, tree, rel) == 0) {
		path = xasprintf("%s%s%s", dir, dir[0] != '\0' ? "/" : "", rel);
		rc = add(files, n, r, e, path, err);
		free(path);
	}
	git_tree_entry_free(e);
	e = NULL;
	free(rel);
	rel = xasprintf("%s/%s", RENDER_BASE_DIR, RENDER_NODES_DIR);
	if (rc == 0 && git_tree_entry_bypath(&e, tree, rel) == 0 &&
	    git_tree_entry_type(e) == GIT_OBJECT_TREE &&
	    git_tree_lookup(&nodes, r, git_tree_entry_id(e)) == 0)
		rc = add_nodes(files, n, r, nodes, dir, err);
	git_tree_free(nodes);
	git_tree_entry_free(e);
	free(rel);
	return rc;
}

void
agent_git_bases_free(struct decl_file *files, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free((void *)(uintptr_t)files[i].path);
		free((void *)(uintptr_t)files[i].data);
	}
	free(files);
}
