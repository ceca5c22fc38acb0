/* agent/watch-tree.c: the cluster folders of a commit (watch.h). */
#include "daemon-int.h"
#include "watch-int.h"

#include <git2.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/xalloc.h"
#include "../git-bases.h"

static bool
is_yaml_name(const char *name)
{
	size_t n = strlen(name);

	return (n > 5 && strcmp(name + n - 5, ".yaml") == 0) ||
	       (n > 4 && strcmp(name + n - 4, ".yml") == 0);
}

static bool
tree_has_yaml(const git_tree *t)
{
	size_t i, n = git_tree_entrycount(t);
	const git_tree_entry *e;

	for (i = 0; i < n; i++) {
		e = git_tree_entry_byindex(t, i);
		if (git_tree_entry_type(e) == GIT_OBJECT_BLOB &&
		    is_yaml_name(git_tree_entry_name(e)))
			return true;
	}
	return false;
}

static void
cluster_add_file(struct daemon_watch_cluster *c, const char *path, const char *data,
    size_t len)
{
	size_t cap = c->nfiles;

	xgrow(&c->files, &cap, c->nfiles + 1, sizeof(*c->files));
	cap = c->nfiles;
	xgrow(&c->paths, &cap, c->nfiles + 1, sizeof(*c->paths));
	cap = c->nfiles;
	xgrow(&c->data, &cap, c->nfiles + 1, sizeof(*c->data));
	c->paths[c->nfiles] = xstrdup(path);
	c->data[c->nfiles] = xmalloc(len + 1);
	memcpy(c->data[c->nfiles], data, len);
	c->data[c->nfiles][len] = '\0';
	c->files[c->nfiles].path = c->paths[c->nfiles];
	c->files[c->nfiles].data = c->data[c->nfiles];
	c->files[c->nfiles].len = len;
	c->nfiles++;
}

/* Load the YAML blobs of tree t (the folder dir) into c. */
static int
load_cluster(struct daemon_watch *w, const git_tree *t, const char *dir,
    struct daemon_watch_cluster *c, struct err *err)
{
	size_t i, n = git_tree_entrycount(t);
	const git_tree_entry *e;
	git_blob *b = NULL;
	char *path;
	int r = 0;

	c->dir = xstrdup(dir);
	for (i = 0; i < n && r == 0; i++) {
		e = git_tree_entry_byindex(t, i);
		if (git_tree_entry_type(e) != GIT_OBJECT_BLOB ||
		    !is_yaml_name(git_tree_entry_name(e)))
			continue;
		path = dir[0] != '\0'
		           ? xasprintf("%s/%s", dir, git_tree_entry_name(e))
		           : xstrdup(git_tree_entry_name(e));
		if (c->nfiles >= DECL_FILES_MAX)
			r = err_setf(err, NULL, "%s: more than %zu YAML files",
			    dir, (size_t)DECL_FILES_MAX);
		else if (git_blob_lookup(&b, w->repo, git_tree_entry_id(e)) < 0)
			r = err_setf(err, NULL, "%s: %s", path,
			    daemon_watch_git_msg());
		else if (git_blob_rawsize(b) > DECL_FILE_MAX)
			r = err_setf(err, NULL, "%s: larger than %zu bytes",
			    path, (size_t)DECL_FILE_MAX);
		else
			cluster_add_file(c, path, git_blob_rawcontent(b),
			    (size_t)git_blob_rawsize(b));
		git_blob_free(b);
		b = NULL;
		free(path);
	}
	if (r == 0)
		r = agent_git_add_bases(&c->bases, &c->nbases, w->repo, t, dir,
		    err);
	return r;
}

static int
root_tree(struct daemon_watch *w, const char *oid, git_tree **out, struct err *err)
{
	git_oid id;
	git_commit *c = NULL;
	git_tree *t = NULL;
	git_tree_entry *e = NULL;
	const char *p = w->conf->clusters_path;
	int r = -1;

	if (git_oid_fromstr(&id, oid) < 0 ||
	    git_commit_lookup(&c, w->repo, &id) < 0 ||
	    git_commit_tree(&t, c) < 0) {
		err_setf(err, NULL, "commit %s: %s", oid, daemon_watch_git_msg());
		goto done;
	}
	if (p[0] == '\0') {
		*out = t;
		t = NULL;
		r = 0;
		goto done;
	}
	if (git_tree_entry_bypath(&e, t, p) < 0 ||
	    git_tree_entry_type(e) != GIT_OBJECT_TREE) {
		err_setf(err, NULL, "commit %s has no folder '%s'", oid, p);
		goto done;
	}
	if (git_tree_lookup(out, w->repo, git_tree_entry_id(e)) < 0)
		err_setf(err, NULL, "%s: %s", p, daemon_watch_git_msg());
	else
		r = 0;
done:
	git_tree_entry_free(e);
	git_tree_free(t);
	git_commit_free(c);
	return r;
}

int
daemon_watch_read_clusters(struct daemon_watch *w, const char *oid,
    struct daemon_watch_cluster **out, size_t *nout, struct err *err)
{
	git_tree *root = NULL, *sub = NULL;
	struct daemon_watch_cluster *cs = NULL;
	size_t n = 0, cap = 0, i, ne;
	const git_tree_entry *e;
	const char *base = w->conf->clusters_path;
	char *dir;
	int r = 0;

	if (daemon_watch_open_repo(w, err) < 0 || root_tree(w, oid, &root, err) < 0)
		return -1;
	if (tree_has_yaml(root)) {
		cs = xcalloc(1, sizeof(*cs));
		n = 1;
		r = load_cluster(w, root, base, &cs[0], err);
	}
	ne = tree_has_yaml(root) ? 0 : git_tree_entrycount(root);
	for (i = 0; i < ne && r == 0; i++) {
		e = git_tree_entry_byindex(root, i);
		if (git_tree_entry_type(e) != GIT_OBJECT_TREE ||
		    git_tree_lookup(&sub, w->repo, git_tree_entry_id(e)) < 0)
			continue;
		if (tree_has_yaml(sub) && n >= DAEMON_WATCH_CLUSTERS_MAX) {
			r = err_setf(err, NULL, "more than %d cluster folders",
			    DAEMON_WATCH_CLUSTERS_MAX);
		} else if (tree_has_yaml(sub)) {
			xgrow(&cs, &cap, n + 1, sizeof(*cs));
			memset(&cs[n], 0, sizeof(*cs));
			dir = base[0] != '\0' ? xasprintf("%s/%s", base,
			                            git_tree_entry_name(e))
			                      : xstrdup(git_tree_entry_name(e));
			r = load_cluster(w, sub, dir, &cs[n++], err);
			free(dir);
		}
		git_tree_free(sub);
		sub = NULL;
	}
	git_tree_free(root);
	if (r < 0) {
		daemon_watch_clusters_free(cs, n);
		return -1;
	}
	*out = cs;
	*nout = n;
	return 0;
}

void
daemon_watch_clusters_free(struct daemon_watch_cluster *c, size_t n)
{
	size_t i, j;

	if (c == NULL)
		return;
	for (i = 0; i < n; i++) {
		for (j = 0; j < c[i].nfiles; j++) {
			free(c[i].paths[j]);
			free(c[i].data[j]);
		}
		free(c[i].paths);
		free(c[i].data);
		free(c[i].files);
		free(c[i].dir);
		agent_git_bases_free(c[i].bases, c[i].nbases);
	}
	free(c);
}
