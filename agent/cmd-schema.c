/* agent/cmd-schema.c: `artemis-gitops schema`, the JSON Schema (2020-12)
 * of a declaration file as this build reads it (decl_schema_json,
 * generated from the loader's tables). schema/declarations.schema.json is
 * its output, kept in git for editors (docs/declarations.md). */
#include "agent.h"

#include <stdlib.h>

#include "../declarations/decl.h"

static int
schema_exec(const struct agent_cmd_args *args)
{
	char *s = decl_schema_json();
	int rc;

	(void)args;
	rc = fputs(s, stdout) >= 0 && fflush(stdout) == 0 ? AGENT_EXIT_OK
	                                                  : AGENT_EXIT_FAIL;
	free(s);
	return rc;
}

static const struct agent_cmd_option schema_options[] = {
    {NULL, '\0', NULL, NULL, NULL},
};

const struct agent_cmd_entry agent_cmd_schema_entry = {
    .name = "schema",
    .summary = "print the JSON Schema of the declaration format",
    .synopsis = "",
    .description =
        "Print the JSON Schema (draft 2020-12) of one declaration file, as "
        "this build\nreads it: every key with its type, allowed values, "
        "default and description,\ngenerated from the loader's own tables. "
        "Editors that read JSON Schema\n(yaml-language-server) complete "
        "and check declarations with it\n(docs/declarations.md); the "
        "package installs it as\n"
        "/usr/share/artemis-gitops/schema/declarations.schema.json.",
    .options = schema_options,
    .help_col = 17,
    .exit_codes = "Exit codes: 0 printed, 1 not written, 64 usage error.",
    .args_min = 0,
    .args_max = 0,
    .exec = schema_exec,
};
