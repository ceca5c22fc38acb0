/* agent/import-files.c: what `import` reads and writes of its own: the
 * nodes file, and the cluster folder, written whole or not at all
 * (docs/import.md). */
#include "import-files.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/afile.h"
#include "../lib/xalloc.h"

/* Is name something an import writes into its folder? */
static bool
import_owned(const char *name, bool is_dir)
{
	if (is_dir)
		return strcmp(name, "broker") == 0;
	return decl_is_yaml_name(name) || strcmp(name, IMPORT_REPORT_MD) == 0 ||
	       strcmp(name, IMPORT_REPORT_JSON) == 0;
}

int
agent_import_out_check(const char *out, bool force, const char *cmd)
{
	struct stat st;
	struct dirent *e;
	DIR *d;
	char *path;
	int rc = 0;
	size_t n = 0;

	if (lstat(out, &st) < 0) {
		if (errno == ENOENT)
			return 0;
		fprintf(stderr, "artemis-gitops %s: --out %s: %s\n", cmd, out,
		    strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(stderr,
		    "artemis-gitops %s: --out %s: %s, not a folder\n", cmd, out,
		    afile_mode_name(st.st_mode));
		return -1;
	}
	d = opendir(out);
	if (d == NULL) {
		fprintf(stderr, "artemis-gitops %s: --out %s: %s\n", cmd, out,
		    strerror(errno));
		return -1;
	}
	while (rc == 0 && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		n++;
		path = xasprintf("%s/%s", out, e->d_name);
		if (lstat(path, &st) < 0)
			st.st_mode = 0;
		if (force && !import_owned(e->d_name, S_ISDIR(st.st_mode))) {
			fprintf(stderr,
			    "artemis-gitops %s: --out %s holds '%s', which an "
			    "import does not write; --force replaces only a "
			    "folder of *.yaml files, %s, %s and broker/\n",
			    cmd, out, e->d_name, IMPORT_REPORT_MD,
			    IMPORT_REPORT_JSON);
			rc = -1;
		}
		free(path);
	}
	closedir(d);
	if (rc == 0 && n > 0 && !force) {
		fprintf(stderr,
		    "artemis-gitops %s: --out %s is not empty; nothing written "
		    "(--force replaces an earlier import)\n",
		    cmd, out);
		rc = -1;
	}
	return rc;
}

int
agent_import_nodes_file(struct decl_cluster **out, const char *path,
    struct errlist *diags)
{
	struct decl_file f;
	struct decl_cluster *c = NULL;
	struct err err = {0};
	const struct pos *at = NULL;
	const char *what = NULL;
	char *data = NULL;
	size_t len = 0;

	if (afile_read(&data, &len, path, DECL_FILE_MAX, &err) < 0) {
		errlist_add_err(diags, &err);
		err_release(&err);
		return -1;
	}
	f.path = path;
	f.data = data;
	f.len = len;
	if (decl_cluster_parse(&c, path, &f, 1, diags) < 0) {
		free(data);
		return -1;
	}
	free(data);
	if (c->naddresses > 0) {
		at = &c->addresses[0].pos;
		what = "addresses";
	} else if (c->ndiverts > 0) {
		at = &c->diverts[0].pos;
		what = "diverts";
	} else if (c->ncaptures > 0) {
		at = &c->captures[0].pos;
		what = "captures";
	} else if (c->nnodes == 0) {
		at = &c->pos;
		what = "no nodes";
	}
	if (what != NULL) {
		errlist_add(diags, DIAG_ERROR, at,
		    "import reads a nodes file: version, cluster, mode, "
		    "settings and nodes only; this one declares %s (an import "
		    "writes the objects itself)",
		    what);
		decl_cluster_free(c);
		return -1;
	}
	*out = c;
	return 0;
}

static int
rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(p) : unlink(p);
}

static void
rm_tree(const char *dir)
{
	(void)nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static int
fsync_path(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int rc;

	if (fd < 0)
		return -1;
	rc = fsync(fd);
	close(fd);
	return rc;
}

/* Write file rel (may hold one '/') under dir. */
static int
put(const char *dir, const char *rel, const char *data, size_t len,
    struct err *err)
{
	char *path = xasprintf("%s/%s", dir, rel), *slash;
	int rc;

	slash = strrchr(path, '/');
	*slash = '\0';
	rc = afile_mkdirs(path, 0755, err);
	*slash = '/';
	if (rc == 0)
		rc = afile_write(path, data, len, 0644, err);
	free(path);
	return rc;
}

/* The parent folder of out and out's last component. */
static char *
parent_of(const char *out)
{
	char *p = xstrdup(out), *s;
	size_t n = strlen(p);

	while (n > 1 && p[n - 1] == '/')
		p[--n] = '\0';
	s = strrchr(p, '/');
	if (s == NULL) {
		free(p);
		return xstrdup(".");
	}
	if (s == p)
		s[1] = '\0';
	else
		*s = '\0';
	return p;
}

/* Parse the emitted files back: they must validate, and give the model
 * that was emitted (the dump without endpoints compares them). */
static int
check_round_trip(const struct import_result *r, const struct decl_emit_file *f,
    size_t n, const char *out, const char *cmd)
{
	struct decl_file *files = xcalloc(n, sizeof(*files));
	char **paths = xcalloc(n, sizeof(*paths));
	struct errlist diags = {0};
	struct decl_cluster *c = NULL;
	char *a, *b, *line;
	size_t i;
	int rc = -1;

	for (i = 0; i < n; i++) {
		paths[i] = xasprintf("%s/%s", out, f[i].name);
		files[i].path = paths[i];
		files[i].data = f[i].text;
		files[i].len = f[i].len;
	}
	if (decl_cluster_parse(&c, out, files, n, &diags) < 0) {
		for (i = 0; i < diags.n; i++) {
			line = errlist_render_item(&diags, i);
			fprintf(stderr, "%s\n", line);
			free(line);
		}
		fprintf(stderr,
		    "artemis-gitops %s: the declaration would not validate; "
		    "nothing written (a defect of import: please report it "
		    "with the lines above)\n",
		    cmd);
		goto done;
	}
	a = decl_cluster_dump_objects(c);
	b = decl_cluster_dump_objects(r->decl);
	rc = strcmp(a, b) == 0 ? 0 : -1;
	if (rc < 0)
		fprintf(stderr,
		    "artemis-gitops %s: the declaration read back differs from "
		    "what was imported; nothing written (a defect of import: "
		    "please report it)\n",
		    cmd);
	free(a);
	free(b);
done:
	for (i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
	free(files);
	errlist_release(&diags);
	decl_cluster_free(c);
	return rc;
}

int
agent_import_write(const struct import_result *r, const char *out, bool force,
    const char *cmd, const struct agent_import_extra *extra, size_t nextra)
{
	struct decl_emit_opts eo = {0};
	struct decl_emit_file *f = NULL;
	struct err err = {0};
	size_t nf = 0, i, total = import_left_total(r);
	char *header, *parent, *tmp = NULL, *md = NULL, *json = NULL;
	int code = AGENT_IMPORT_FAIL;
	bool placed = false;

	header = xasprintf(
	    "# Cluster %s, imported by artemis-gitops import from %s "
	    "(docs/import.md):\n# %zu addresses, %zu queues and %zu diverts "
	    "declared; %zu objects left out\n# (%s says which, and why).\n",
	    r->decl->name,
	    strcmp(r->source, "live") == 0 ? "its live brokers"
	                                   : "its broker.xml files",
	    r->declared[IMPORT_ADDRESS], r->declared[IMPORT_QUEUE],
	    r->declared[IMPORT_DIVERT], total, IMPORT_REPORT_MD);
	eo.header = header;
	if (r->declared[IMPORT_ADDRESS] + r->declared[IMPORT_QUEUE] +
	        r->declared[IMPORT_DIVERT] >
	    DECL_OBJECTS_MAX) {
		fprintf(stderr,
		    "artemis-gitops %s: cluster '%s' holds %zu addresses, "
		    "queues and diverts alike on every node, more than one "
		    "declaration may hold (%d); nothing written\n",
		    cmd, r->decl->name,
		    r->declared[IMPORT_ADDRESS] + r->declared[IMPORT_QUEUE] +
		        r->declared[IMPORT_DIVERT],
		    DECL_OBJECTS_MAX);
		goto done;
	}
	if (decl_cluster_emit(r->decl, &eo, &f, &nf, &err) < 0) {
		fprintf(stderr, "artemis-gitops %s: %s; nothing written\n", cmd,
		    err.msg);
		goto done;
	}
	if (check_round_trip(r, f, nf, out, cmd) < 0)
		goto done;
	md = import_report_md(r);
	json = import_report_json(r);
	parent = parent_of(out);
	if (afile_mkdirs(parent, 0755, &err) < 0) { /* --out a/b/c: a/b made */
		free(parent);
		goto failed;
	}
	tmp = xasprintf("%s/.artemis-gitops-import.XXXXXX", parent);
	free(parent);
	if (mkdtemp(tmp) == NULL) {
		fprintf(stderr,
		    "artemis-gitops %s: cannot make a folder beside "
		    "%s: %s\n",
		    cmd, out, strerror(errno));
		free(tmp);
		tmp = NULL;
		goto done;
	}
	(void)chmod(tmp, 0755);
	for (i = 0; i < nf; i++)
		if (put(tmp, f[i].name, f[i].text, f[i].len, &err) < 0)
			goto failed;
	for (i = 0; i < nextra; i++)
		if (put(tmp, extra[i].rel, extra[i].data, extra[i].len, &err) <
		    0)
			goto failed;
	if (put(tmp, IMPORT_REPORT_MD, md, strlen(md), &err) < 0 ||
	    put(tmp, IMPORT_REPORT_JSON, json, strlen(json), &err) < 0)
		goto failed;
	if (fsync_path(tmp) < 0) {
		err_setf(&err, NULL, "fsync %s: %s", tmp, strerror(errno));
		goto failed;
	}
	/* checked again: it may have changed while the brokers were read */
	if (agent_import_out_check(out, force, cmd) < 0)
		goto done;
	if (rename(tmp, out) == 0) {
		placed = true;
	} else if ((errno == ENOTEMPTY || errno == EEXIST) && force &&
	           renameat2(AT_FDCWD, tmp, AT_FDCWD, out, RENAME_EXCHANGE) ==
	               0) {
		rm_tree(tmp); /* the earlier import, now under tmp */
		placed = true;
	} else {
		err_setf(&err, NULL, "cannot rename %s to %s: %s", tmp, out,
		    strerror(errno));
		goto failed;
	}
	{
		char *parent2 = parent_of(out);
		(void)fsync_path(parent2);
		free(parent2);
	}
	printf("artemis-gitops %s: cluster '%s': %zu addresses, %zu queues, "
	       "%zu diverts declared in %zu file(s) under %s\n",
	    cmd, r->decl->name, r->declared[IMPORT_ADDRESS],
	    r->declared[IMPORT_QUEUE], r->declared[IMPORT_DIVERT], nf, out);
	{
		size_t rule = 0;

		for (i = 0; i < IMPORT_NWHY; i++)
			if (import_why_is_rule((enum import_why)i))
				rule += r->left_by_why[i];
		printf("artemis-gitops %s: %zu object(s) left out: %zu for you "
		       "to decide, %zu by rule (%s/%s)\n",
		    cmd, total, total - rule, rule, out, IMPORT_REPORT_MD);
	}
	code = AGENT_IMPORT_OK;
	goto done;
failed:
	fprintf(stderr, "artemis-gitops %s: %s; nothing written\n", cmd,
	    err.msg);
done:
	if (tmp != NULL && !placed)
		rm_tree(tmp);
	free(tmp);
	free(md);
	free(json);
	free(header);
	decl_emit_files_free(f, nf);
	err_release(&err);
	return code;
}
