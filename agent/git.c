/* agent/git.c: a cluster folder at a revision, read with libgit2. */
#include "git.h"

#include <git2.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/xalloc.h"
#include "git-bases.h"

static int
git_fail(struct err *err, const char *what, const char *repo, const char *rev)
{
	const git_error *e = git_error_last();

	return err_setf(err, NULL, "%s: repository '%s' at '%s': %s", what,
	    repo, rev,
	    e != NULL && e->message != NULL ? e->message : "unknown error");
}

static bool
is_yaml(const char *name)
{
	size_t n = strlen(name);

	return (n > 5 && strcmp(name + n - 5, ".yaml") == 0) ||
	       (n > 4 && strcmp(name + n - 4, ".yml") == 0);
}

static int
add_blob(struct agent_git_files *f, git_repository *r, const char *dir,
    const git_tree_entry *e, struct err *err)
{
	git_blob *blob = NULL;
	struct decl_file *df;
	char *data;
	size_t len;

	if (git_blob_lookup(&blob, r, git_tree_entry_id(e)) < 0)
		return err_setf(err, NULL, "cannot read '%s/%s'", dir,
		    git_tree_entry_name(e));
	len = (size_t)git_blob_rawsize(blob);
	if (len > DECL_FILE_MAX || f->nfiles >= DECL_FILES_MAX) {
		git_blob_free(blob);
		return err_setf(err, NULL,
		    "'%s/%s': file too large or too many files", dir,
		    git_tree_entry_name(e));
	}
	data = xmalloc(len + 1);
	memcpy(data, git_blob_rawcontent(blob), len);
	data[len] = '\0';
	git_blob_free(blob);
	f->files = xreallocarray(f->files, f->nfiles + 1, sizeof(*f->files));
	df = &f->files[f->nfiles++];
	df->path = xasprintf("%s/%s", dir, git_tree_entry_name(e));
	df->data = data;
	df->len = len;
	return 0;
}

static int
read_tree(struct agent_git_files *f, git_repository *r, git_tree *root,
    const char *dir, struct err *err)
{
	git_tree_entry *ent = NULL;
	git_tree *tree = NULL;
	const git_tree_entry *e;
	size_t i;
	int rc = -1;

	if (strcmp(dir, ".") == 0 || dir[0] == '\0') {
		tree = root;
	} else if (git_tree_entry_bypath(&ent, root, dir) < 0 ||
	           git_tree_entry_type(ent) != GIT_OBJECT_TREE ||
	           git_tree_lookup(&tree, r, git_tree_entry_id(ent)) < 0) {
		err_setf(err, NULL, "no folder '%s' in the revision", dir);
		goto done;
	}
	for (i = 0; i < git_tree_entrycount(tree); i++) {
		e = git_tree_entry_byindex(tree, i);
		if (git_tree_entry_type(e) == GIT_OBJECT_BLOB &&
		    is_yaml(git_tree_entry_name(e)) &&
		    add_blob(f, r, dir, e, err) < 0)
			goto done;
	}
	if (agent_git_add_bases(&f->bases, &f->nbases, r, tree, dir, err) < 0)
		goto done;
	rc = 0;
done:
	if (tree != root)
		git_tree_free(tree);
	git_tree_entry_free(ent);
	return rc;
}

int
agent_git_read_dir(struct agent_git_files *out, const char *repo,
    const char *rev, const char *dir, struct err *err)
{
	struct agent_git_files f;
	git_repository *r = NULL;
	git_object *obj = NULL, *commit = NULL;
	git_tree *tree = NULL;
	int rc = -1;

	memset(&f, 0, sizeof(f));
	git_libgit2_init();
	if (git_repository_open_ext(&r, repo, 0, NULL) < 0) {
		git_fail(err, "cannot open", repo, rev);
		goto done;
	}
	if (git_revparse_single(&obj, r, rev) < 0 ||
	    git_object_peel(&commit, obj, GIT_OBJECT_COMMIT) < 0 ||
	    git_commit_tree(&tree, (git_commit *)commit) < 0) {
		git_fail(err, "cannot resolve revision", repo, rev);
		goto done;
	}
	git_oid_tostr(f.commit, sizeof(f.commit), git_object_id(commit));
	if (read_tree(&f, r, tree, dir, err) < 0)
		goto done;
	*out = f;
	memset(&f, 0, sizeof(f));
	rc = 0;
done:
	agent_git_files_release(&f);
	git_tree_free(tree);
	git_object_free(commit);
	git_object_free(obj);
	git_repository_free(r);
	git_libgit2_shutdown();
	return rc;
}

void
agent_git_files_release(struct agent_git_files *f)
{
	size_t i;

	for (i = 0; i < f->nfiles; i++) {
		free((void *)(uintptr_t)f->files[i].path);
		free((void *)(uintptr_t)f->files[i].data);
	}
	free(f->files);
	agent_git_bases_free(f->bases, f->nbases);
	memset(f, 0, sizeof(*f));
}
