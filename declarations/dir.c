/* declarations/dir.c: reading a cluster folder's YAML files. */
#include "decl.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/afile.h"
#include "../lib/xalloc.h"
#include "decl-int.h"

bool
decl_is_yaml_name(const char *name)
{
	size_t n = strlen(name);

	if (name[0] == '.')
		return false; /* hidden: .gitlab-ci.yml is no declaration */
	return (n > 5 && strcmp(name + n - 5, ".yaml") == 0) ||
	       (n > 4 && strcmp(name + n - 4, ".yml") == 0);
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The sorted paths of dir's *.yaml / *.yml entries, whatever they are: an
 * entry that is no regular file (a dangling link, a FIFO, a folder) is
 * still listed, so that reading it refuses it by name instead of the
 * cluster silently losing what it declared. */
static int
list_yaml(const char *dir, char ***out, size_t *n_out)
{
	DIR *d;
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0;

	d = opendir(dir);
	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL) {
		if (!decl_is_yaml_name(e->d_name))
			continue;
		xgrow(&names, &cap, n + 1, sizeof(*names));
		names[n++] = xasprintf("%s/%s", dir, e->d_name);
	}
	closedir(d);
	if (n > 1)
		qsort(names, n, sizeof(*names), cmp_str);
	*out = names;
	*n_out = n;
	return 0;
}

bool
decl_dir_is_cluster(const char *dir)
{
	char **names = NULL;
	size_t n = 0, i;

	if (list_yaml(dir, &names, &n) < 0)
		return false;
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return n > 0;
}

/* Read one file into f (data owned through *data_out): a regular file
 * (lib/afile.h's rule, a link to one followed), at most max bytes; what
 * cannot be read so is an error at its path, and a file over the cap is
 * reported the way the parser reports an over-long buffer. */
static int
read_one(struct decl_file *f, char **data_out, const char *path, size_t max,
    struct errlist *diags)
{
	struct err err = {0};
	struct pos at = {path, 1, 1};
	struct stat st;
	size_t len = 0;
	int fd = -1, rc;

	f->path = path;
	if (afile_open(&fd, &st, path, AFILE_AT_PATH, &err) < 0) {
		errlist_add_err(diags, &err);
		return -1;
	}
	if ((unsigned long long)st.st_size > max) {
		(void)close(fd);
		return errlist_add(diags, DIAG_ERROR, &at,
		    "file is %lld bytes, over the limit of %zu bytes",
		    (long long)st.st_size, max);
	}
	rc = afile_read_fd(data_out, &len, fd, path, max, &err);
	(void)close(fd);
	if (rc < 0) {
		errlist_add(diags, DIAG_ERROR, &at, "%s", err.msg);
		err_release(&err);
		return -1;
	}
	f->data = *data_out;
	f->len = len;
	return 0;
}

int
decl_cluster_load(struct decl_cluster **out, const char *dir,
    struct errlist *diags)
{
	return decl_cluster_load_max(out, dir, DECL_FILE_MAX, diags);
}

int
decl_cluster_load_max(struct decl_cluster **out, const char *dir,
    size_t file_max, struct errlist *diags)
{
	struct pos at = {dir, 0, 0};
	struct decl_file *files;
	char **names = NULL, **datas;
	size_t n = 0, nread, i;
	int rc = 0;

	if (list_yaml(dir, &names, &n) < 0)
		return errlist_add(diags, DIAG_ERROR, &at,
		    "cannot read the folder: %s", strerror(errno));
	nread = n;
	if (n > DECL_FILES_MAX) {
		rc = errlist_add(diags, DIAG_ERROR, &at,
		    "%zu YAML files, over the limit of %d per cluster", n,
		    DECL_FILES_MAX);
		nread = 0;
	}
	files = xcalloc(nread ? nread : 1, sizeof(*files));
	datas = xcalloc(nread ? nread : 1, sizeof(*datas));
	for (i = 0; i < nread; i++)
		if (read_one(&files[i], &datas[i], names[i], file_max, diags) <
		    0)
			rc = -1;
	if (rc == 0)
		rc = decl_cluster_parse_taking(out, dir, files, datas, nread,
		    file_max, diags);
	else
		errlist_sort(diags);
	for (i = 0; i < nread; i++)
		free(datas[i]);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(datas);
	free(files);
	return rc;
}
