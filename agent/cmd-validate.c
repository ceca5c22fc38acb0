/* agent/cmd-validate.c: `artemis-gitops validate [--dump] [--quiet]
 * [--format text|github|json] PATH...`: load and validate declarations (a
 * cluster folder, or a repository folder holding one folder per cluster)
 * and print the diagnostics as text (stderr), as GitHub Actions workflow
 * commands or as a JSON document (stdout). */
#include "agent.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../declarations/decl.h"
#include "../lib/jsonw.h"
#include "../lib/sbuf.h"
#include "validate-set.h"

enum validate_format { FORMAT_TEXT, FORMAT_GITHUB, FORMAT_JSON };

struct validate {
	bool dump, quiet;
	enum validate_format format;
	struct agent_validate set; /* the clusters and the diagnostics */
};

static bool
shown(const struct validate *v, size_t i)
{
	return !v->quiet || v->set.diags.items[i].severity != DIAG_WARNING;
}

/* One workflow command per diagnostic on stdout, where the runner reads
 * them; what the cap left out as a notice without a file. */
static void
print_github(const struct validate *v)
{
	size_t i;
	char *line;

	for (i = 0; i < v->set.diags.n; i++) {
		if (!shown(v, i))
			continue;
		line =
		    errlist_render_github(&v->set.diags, i, "artemis-gitops");
		printf("%s\n", line);
		free(line);
	}
	if (v->set.diags.dropped > 0)
		printf(
		    "::notice title=artemis-gitops::%zu more diagnostics not "
		    "shown (the first %zu are)\n",
		    v->set.diags.dropped, v->set.diags.n);
}

/* The diagnostics as one canonical JSON document on stdout (docs/ci.md,
 * "validate --format json"). */
static void
print_json(const struct validate *v)
{
	struct sbuf b;
	struct jsonw w;

	sbuf_init(&b, SBUF_UNBOUNDED);
	jsonw_init(&w, &b, 2);
	jsonw_obj_begin(&w);
	agent_validate_json_members(&w, &v->set, v->quiet);
	jsonw_obj_end(&w);
	sbuf_addc(&b, '\n');
	fputs(sbuf_str(&b), stdout);
	sbuf_release(&b);
}

static void
print_diags(const struct validate *v)
{
	size_t i;
	char *line;

	if (v->format == FORMAT_GITHUB) {
		print_github(v);
		return;
	}
	if (v->format == FORMAT_JSON) {
		print_json(v);
		return;
	}
	for (i = 0; i < v->set.diags.n; i++) {
		if (!shown(v, i))
			continue;
		line = errlist_render_item(&v->set.diags, i);
		fprintf(stderr, "%s\n", line);
		free(line);
	}
	if (v->set.diags.dropped > 0)
		fprintf(stderr,
		    "artemis-gitops validate: %zu more diagnostics not shown\n",
		    v->set.diags.dropped);
}

static void
print_dump(const struct validate *v)
{
	struct sbuf b = {0};
	char *one;
	size_t i;

	if (v->set.n == 1) {
		one = decl_cluster_dump(v->set.clusters[0]);
		fputs(one, stdout);
		free(one);
		return;
	}
	/* Several clusters: {"name": <dump>, ...} sorted by name. */
	sbuf_adds(&b, "{");
	for (i = 0; i < v->set.n; i++) {
		sbuf_adds(&b, i ? ",\n  " : "\n  ");
		jsonw_quote(&b, v->set.clusters[i]->name);
		sbuf_adds(&b, ": ");
		one = decl_cluster_dump(v->set.clusters[i]);
		one[strlen(one) - 1] = '\0';
		for (const char *p = one; *p != '\0'; p++) {
			sbuf_addc(&b, *p);
			if (*p == '\n')
				sbuf_adds(&b, "  ");
		}
		free(one);
	}
	sbuf_adds(&b, v->set.n ? "\n}\n" : "}\n");
	fputs(sbuf_str(&b), stdout);
	sbuf_release(&b);
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
		agent_validate_path(&v.set, args->argv[i]);
	agent_validate_check_names(&v.set);
	rc = agent_validate_ok(&v.set) ? AGENT_EXIT_OK : AGENT_EXIT_FAIL;
	print_diags(&v);
	if (rc == AGENT_EXIT_OK && v.dump)
		print_dump(&v);
	agent_validate_release(&v.set);
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
