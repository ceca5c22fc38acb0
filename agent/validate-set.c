/* agent/validate-set.c: the declarations `validate` loads, and its JSON
 * document (validate-set.h). */
#include "validate-set.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/xalloc.h"

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void
agent_validate_add(struct agent_validate *v, struct decl_cluster *c)
{
	xgrow(&v->clusters, &v->cap, v->n + 1, sizeof(struct decl_cluster *));
	v->clusters[v->n++] = c;
}

static void
load_cluster(struct agent_validate *v, const char *dir)
{
	struct decl_cluster *c = NULL;

	if (decl_cluster_load(&c, dir, &v->diags) < 0) {
		v->failed = true;
		return;
	}
	agent_validate_add(v, c);
}

/* A repository: every sub-folder holding YAML is a cluster, in name order. */
static void
load_repo(struct agent_validate *v, const char *dir)
{
	DIR *d;
	struct dirent *e;
	char **subs = NULL;
	size_t n = 0, cap = 0, i;
	struct pos at = {dir, 0, 0};

	d = opendir(dir);
	if (d == NULL) {
		errlist_add(&v->diags, DIAG_ERROR, &at,
		    "cannot read the folder (%s); PATH is a cluster folder or a "
		    "repository folder",
		    strerror(errno));
		v->failed = true;
		return;
	}
	while ((e = readdir(d)) != NULL) {
		char *sub;

		if (e->d_name[0] == '.')
			continue;
		sub = xasprintf("%s/%s", dir, e->d_name);
		if (decl_dir_is_cluster(sub)) {
			xgrow(&subs, &cap, n + 1, sizeof(*subs));
			subs[n++] = sub;
		} else {
			free(sub);
		}
	}
	closedir(d);
	if (n > 1)
		qsort(subs, n, sizeof(*subs), cmp_str);
	if (n == 0) {
		errlist_add(&v->diags, DIAG_ERROR, &at,
		    "no YAML files (*.yaml, *.yml) here, and no cluster "
		    "folders holding them");
		v->failed = true;
	}
	for (i = 0; i < n; i++) {
		load_cluster(v, subs[i]);
		free(subs[i]);
	}
	free(subs);
}

void
agent_validate_path(struct agent_validate *v, const char *path)
{
	char *p = xstrdup(path);
	size_t len = strlen(p);

	while (len > 1 && p[len - 1] == '/')
		p[--len] = '\0';
	if (decl_dir_is_cluster(p))
		load_cluster(v, p);
	else
		load_repo(v, p);
	free(p);
}

static int
cmp_cluster(const void *a, const void *b)
{
	const struct decl_cluster *x = *(struct decl_cluster *const *)a;
	const struct decl_cluster *y = *(struct decl_cluster *const *)b;

	return strcmp(x->name, y->name);
}

/* Two folders declaring the same cluster name would fight over it. */
void
agent_validate_check_names(struct agent_validate *v)
{
	bool skip = v->failed; /* a folder that failed to load: no check */
	size_t i, j;

	for (i = 1; !skip && i < v->n; i++)
		for (j = 0; j < i; j++)
			if (strcmp(v->clusters[i]->name,
			        v->clusters[j]->name) == 0) {
				errlist_add(&v->diags, DIAG_ERROR,
				    &v->clusters[i]->pos,
				    "cluster '%s' is also declared at %s:%u:%u",
				    v->clusters[i]->name,
				    v->clusters[j]->pos.path,
				    v->clusters[j]->pos.line,
				    v->clusters[j]->pos.col);
				v->failed = true;
				break;
			}
	if (v->n > 1)
		qsort(v->clusters, v->n, sizeof(struct decl_cluster *),
		    cmp_cluster);
}

bool
agent_validate_ok(const struct agent_validate *v)
{
	return !v->failed && !errlist_has_errors(&v->diags);
}

void
agent_validate_diag_json(struct jsonw *w, const struct diag *d)
{
	jsonw_obj_begin(w);
	jsonw_key(w, "col");
	if (d->col > 0)
		jsonw_int(w, d->col);
	else
		jsonw_null(w);
	jsonw_key(w, "line");
	if (d->line > 0)
		jsonw_int(w, d->line);
	else
		jsonw_null(w);
	jsonw_key_str(w, "message", d->msg);
	jsonw_key_str(w, "path", d->path);
	jsonw_key_str(w, "severity",
	    d->severity == DIAG_WARNING ? "warning" : "error");
	jsonw_obj_end(w);
}

void
agent_validate_json_members(struct jsonw *w, const struct agent_validate *v,
    bool quiet)
{
	size_t i;

	jsonw_key(w, "clusters");
	jsonw_arr_begin(w);
	for (i = 0; i < v->n; i++)
		jsonw_str(w, v->clusters[i]->name);
	jsonw_arr_end(w);
	jsonw_key(w, "counts");
	jsonw_obj_begin(w);
	jsonw_key_int(w, "errors", (int64_t)v->diags.nerrors);
	jsonw_key_int(w, "not_shown", (int64_t)v->diags.dropped);
	jsonw_key_int(w, "warnings", (int64_t)v->diags.nwarnings);
	jsonw_obj_end(w);
	jsonw_key(w, "diagnostics");
	jsonw_arr_begin(w);
	for (i = 0; i < v->diags.n; i++)
		if (!quiet || v->diags.items[i].severity != DIAG_WARNING)
			agent_validate_diag_json(w, &v->diags.items[i]);
	jsonw_arr_end(w);
	jsonw_key_int(w, "format", AGENT_VALIDATE_JSON_FORMAT);
	jsonw_key_bool(w, "valid", agent_validate_ok(v));
}

void
agent_validate_release(struct agent_validate *v)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		decl_cluster_free(v->clusters[i]);
	free(v->clusters);
	errlist_release(&v->diags);
	memset(v, 0, sizeof(*v));
}
