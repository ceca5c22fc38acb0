/* agent/cmd-validate.c: `artemis-gitops validate [--dump] [--quiet]
 * [--format text|github|json] PATH...`: load and validate declarations (a
 * cluster folder, or a repository folder holding one folder per cluster)
 * and print the diagnostics as text (stderr), as GitHub Actions workflow
 * commands or as a JSON document (stdout). */
#include "agent.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../declarations/decl.h"
#include "../lib/jsonw.h"
#include "../lib/sbuf.h"
#include "../lib/xalloc.h"

enum validate_format { FORMAT_TEXT, FORMAT_GITHUB, FORMAT_JSON };

#define VALIDATE_JSON_FORMAT 1 /* `format` of the --format json document */

struct validate {
	bool dump, quiet;
	enum validate_format format;
	struct decl_cluster **clusters;
	size_t n, cap;
	struct errlist diags;
	bool failed;
};

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
load_cluster(struct validate *v, const char *dir)
{
	struct decl_cluster *c = NULL;

	if (decl_cluster_load(&c, dir, &v->diags) < 0) {
		v->failed = true;
		return;
	}
	xgrow(&v->clusters, &v->cap, v->n + 1, sizeof(struct decl_cluster *));
	v->clusters[v->n++] = c;
}

/* A repository: every sub-folder holding YAML is a cluster, in name order. */
static void
load_repo(struct validate *v, const char *dir)
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

/* Two folders declaring the same cluster name would fight over it. */
static void
check_names(struct validate *v)
{
	size_t i, j;

	for (i = 1; i < v->n; i++)
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
}

static bool
shown(const struct validate *v, size_t i)
{
	return !v->quiet || v->diags.items[i].severity != DIAG_WARNING;
}

/* One workflow command per diagnostic on stdout, where the runner reads
 * them; what the cap left out as a notice without a file. */
static void
print_github(const struct validate *v)
{
	size_t i;
	char *line;

	for (i = 0; i < v->diags.n; i++) {
		if (!shown(v, i))
			continue;
		line = errlist_render_github(&v->diags, i, "artemis-gitops");
		printf("%s\n", line);
		free(line);
	}
	if (v->diags.dropped > 0)
		printf(
		    "::notice title=artemis-gitops::%zu more diagnostics not "
		    "shown (the first %zu are)\n",
		    v->diags.dropped, v->diags.n);
}

static void
json_diag(struct jsonw *w, const struct diag *d)
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

/* The diagnostics as one canonical JSON document on stdout (docs/ci.md,
 * "validate --format json"). */
static void
print_json(const struct validate *v, bool valid)
{
	struct sbuf b;
	struct jsonw w;
	size_t i;

	sbuf_init(&b, SBUF_UNBOUNDED);
	jsonw_init(&w, &b, 2);
	jsonw_obj_begin(&w);
	jsonw_key(&w, "clusters");
	jsonw_arr_begin(&w);
	for (i = 0; i < v->n; i++)
		jsonw_str(&w, v->clusters[i]->name);
	jsonw_arr_end(&w);
	jsonw_key(&w, "counts");
	jsonw_obj_begin(&w);
	jsonw_key_int(&w, "errors", (int64_t)v->diags.nerrors);
	jsonw_key_int(&w, "not_shown", (int64_t)v->diags.dropped);
	jsonw_key_int(&w, "warnings", (int64_t)v->diags.nwarnings);
	jsonw_obj_end(&w);
	jsonw_key(&w, "diagnostics");
	jsonw_arr_begin(&w);
	for (i = 0; i < v->diags.n; i++)
		if (shown(v, i))
			json_diag(&w, &v->diags.items[i]);
	jsonw_arr_end(&w);
	jsonw_key_int(&w, "format", VALIDATE_JSON_FORMAT);
	jsonw_key_bool(&w, "valid", valid);
	jsonw_obj_end(&w);
	sbuf_addc(&b, '\n');
	fputs(sbuf_str(&b), stdout);
	sbuf_release(&b);
}

static void
print_diags(const struct validate *v, bool valid)
{
	size_t i;
	char *line;

	if (v->format == FORMAT_GITHUB) {
		print_github(v);
		return;
	}
	if (v->format == FORMAT_JSON) {
		print_json(v, valid);
		return;
	}
	for (i = 0; i < v->diags.n; i++) {
		if (!shown(v, i))
			continue;
		line = errlist_render_item(&v->diags, i);
		fprintf(stderr, "%s\n", line);
		free(line);
	}
	if (v->diags.dropped > 0)
		fprintf(stderr,
		    "artemis-gitops validate: %zu more diagnostics not shown\n",
		    v->diags.dropped);
}

static void
print_dump(const struct validate *v)
{
	struct sbuf b = {0};
	char *one;
	size_t i;

	if (v->n == 1) {
		one = decl_cluster_dump(v->clusters[0]);
		fputs(one, stdout);
		free(one);
		return;
	}
	/* Several clusters: {"name": <dump>, ...} sorted by name. */
	sbuf_adds(&b, "{");
	for (i = 0; i < v->n; i++) {
		sbuf_adds(&b, i ? ",\n  " : "\n  ");
		jsonw_quote(&b, v->clusters[i]->name);
		sbuf_adds(&b, ": ");
		one = decl_cluster_dump(v->clusters[i]);
		one[strlen(one) - 1] = '\0';
		for (const char *p = one; *p != '\0'; p++) {
			sbuf_addc(&b, *p);
			if (*p == '\n')
				sbuf_adds(&b, "  ");
		}
		free(one);
	}
	sbuf_adds(&b, v->n ? "\n}\n" : "}\n");
	fputs(sbuf_str(&b), stdout);
	sbuf_release(&b);
}

static int
cmp_cluster(const void *a, const void *b)
{
	const struct decl_cluster *x = *(struct decl_cluster *const *)a;
	const struct decl_cluster *y = *(struct decl_cluster *const *)b;

	return strcmp(x->name, y->name);
}

static void
load_path(struct validate *v, char *path)
{
	size_t len = strlen(path);

	while (len > 1 && path[len - 1] == '/')
		path[--len] = '\0';
	if (decl_dir_is_cluster(path))
		load_cluster(v, path);
	else
		load_repo(v, path);
}

enum { VALIDATE_DUMP, VALIDATE_QUIET, VALIDATE_FORMAT };

static int
parse_format(const char *arg, enum validate_format *out)
{
	if (strcmp(arg, "text") == 0)
		*out = FORMAT_TEXT;
	else if (strcmp(arg, "github") == 0)
		*out = FORMAT_GITHUB;
	else if (strcmp(arg, "json") == 0)
		*out = FORMAT_JSON;
	else
		return -1;
	return 0;
}

static int
check_format(const char *arg)
{
	enum validate_format f;

	if (parse_format(arg, &f) < 0)
		return agent_usage_error("validate",
		    "unknown --format '%s' (text, github or json)", arg);
	return AGENT_CMD_CONTINUE;
}

static int
validate_exec(const struct agent_cmd_args *args)
{
	struct validate v;
	int i, rc;

	memset(&v, 0, sizeof(v));
	v.dump = args->opt[VALIDATE_DUMP] != NULL;
	v.quiet = args->opt[VALIDATE_QUIET] != NULL;
	if (args->opt[VALIDATE_FORMAT] != NULL)
		(void)parse_format(args->opt[VALIDATE_FORMAT], &v.format);
	if (v.dump && v.format == FORMAT_JSON)
		return agent_usage_error("validate",
		    "--dump and --format json both print JSON on stdout; use "
		    "one of them");
	for (i = 0; i < args->argc; i++)
		load_path(&v, args->argv[i]);
	if (!v.failed)
		check_names(&v);
	rc = v.failed || errlist_has_errors(&v.diags) ? AGENT_EXIT_FAIL
	                                              : AGENT_EXIT_OK;
	if (v.n > 1)
		qsort(v.clusters, v.n, sizeof(struct decl_cluster *),
		    cmp_cluster);
	print_diags(&v, rc == AGENT_EXIT_OK);
	if (rc == AGENT_EXIT_OK && v.dump)
		print_dump(&v);
	for (i = 0; (size_t)i < v.n; i++)
		decl_cluster_free(v.clusters[i]);
	free(v.clusters);
	errlist_release(&v.diags);
	return rc;
}

static const struct agent_cmd_option validate_options[] = {
    [VALIDATE_DUMP] = {"dump", '\0', NULL,
        "print the normalised model as canonical JSON on stdout:\n"
        "one cluster: its model; several: an object keyed by cluster",
        NULL},
    [VALIDATE_QUIET] = {"quiet", 'q', NULL, "print errors only, not warnings",
        NULL},
    [VALIDATE_FORMAT] = {"format", '\0', "FMT",
        "how diagnostics are printed: text (on stderr, the\n"
        "default); github (GitHub Actions workflow commands,\n"
        "annotating the lines that cause them) or json (one\n"
        "document), both on stdout",
        check_format},
    {NULL, '\0', NULL, NULL, NULL},
};

const struct agent_cmd_entry agent_cmd_validate_entry = {
    .name = "validate",
    .summary = "load and validate declarations (a cluster or repository "
               "folder)",
    .synopsis = "[--dump] [--quiet] [--format FMT] PATH...",
    .description =
        "Load and validate declarations. PATH is a cluster folder (it holds "
        "*.yaml\nor *.yml files) or a repository folder (one sub-folder per "
        "cluster).\nDiagnostics go to stderr as 'path:line:col: message'; "
        "--format github\nprints them as '::error file=F,line=L,col=C::"
        "message' for a CI job.",
    .options = validate_options,
    .help_col = 17,
    .exit_codes = "Exit codes: 0 valid (warnings may be printed), 1 invalid, "
                  "64 usage error.",
    .in_order = true,
    .args_min = 1,
    .args_max = -1,
    .args_few = "missing PATH",
    .exec = validate_exec,
};
