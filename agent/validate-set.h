/* agent/validate-set.h: what `validate` checks and how it tells it, shared
 * by the command (cmd-validate.c) and the MCP server's validate tool
 * (agent/mcp/): the declarations of one or more folders (a cluster folder,
 * or a repository folder holding one folder per cluster), the rule that two
 * folders may not declare the same cluster, and the diagnostics as the
 * JSON document of `validate --format json` (docs/ci.md). */
#ifndef AGENT_VALIDATE_SET_H
#define AGENT_VALIDATE_SET_H

#include <stdbool.h>
#include <stddef.h>

#include "../declarations/decl.h"
#include "../lib/err.h"
#include "../lib/jsonw.h"

#define AGENT_VALIDATE_JSON_FORMAT 1 /* `format` of the JSON document */

/* The clusters loaded and every diagnostic; valid when zeroed. */
struct agent_validate {
	struct decl_cluster **clusters; /* owned */
	size_t n, cap;
	struct errlist diags;
	bool failed; /* a folder could not be loaded at all */
};

/* Load path: a cluster folder (it holds *.yaml or *.yml files), else a
 * repository folder whose sub-folders holding them are clusters, in name
 * order. Problems go to v->diags; a trailing '/' of path is ignored. */
void agent_validate_path(struct agent_validate *v, const char *path);
/* Add a cluster parsed elsewhere (from git): v owns it from now on. */
void agent_validate_add(struct agent_validate *v, struct decl_cluster *c);
/* Two of v's clusters with the same name: an error at the second one,
 * naming the first. Then the clusters are sorted by name. */
void agent_validate_check_names(struct agent_validate *v);
/* Did everything load without an error? */
bool agent_validate_ok(const struct agent_validate *v);
/* One diagnostic as an object (col, line, message, path, severity). */
void agent_validate_diag_json(struct jsonw *w, const struct diag *d);
/* The members of the `validate --format json` document into the object w
 * has open: clusters, counts, diagnostics (warnings left out when quiet),
 * format, valid. */
void agent_validate_json_members(struct jsonw *w,
    const struct agent_validate *v, bool quiet);
/* Free the clusters and the diagnostics; leaves v zeroed. */
void agent_validate_release(struct agent_validate *v);

#endif
