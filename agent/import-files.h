/* agent/import-files.h: the files of `import` (agent/import-files.c): the
 * nodes file read, the output folder checked, and the imported cluster
 * folder written whole or not at all (docs/import.md). */
#ifndef AGENT_IMPORT_FILES_H
#define AGENT_IMPORT_FILES_H

#include <stdbool.h>
#include <stddef.h>

#include "../declarations/decl.h"
#include "../lib/err.h"
#include "../reconcile/import/import.h"

#define AGENT_IMPORT_OK   0 /* AGENT_EXIT_OK */
#define AGENT_IMPORT_FAIL 1 /* AGENT_EXIT_FAIL */

/* A file to write beside the declarations: broker/broker.xml, ... */
struct agent_import_extra {
	char *rel; /* relative to the folder: "broker/broker.xml" */
	char *data;
	size_t len;
};

/* May out be written: absent, an empty folder, or (with force) a folder
 * holding only what an import writes? Prints why not (as cmd) and
 * returns -1. */
int agent_import_out_check(const char *out, bool force, const char *cmd);

/* The nodes file: a cluster file of version, cluster, mode, settings and
 * nodes, and nothing else (objects or captures are refused at their
 * line). -1 with diags; warnings in diags on success. */
int agent_import_nodes_file(struct decl_cluster **out, const char *path,
    struct errlist *diags);

/* Emit r's declaration, parse it back (it must validate and give the
 * same model), and write the folder out with the report and extra[]:
 * made under a temporary name beside out, then renamed into place
 * (exchanged with out under force). Prints the summary on stdout, or
 * what failed on stderr. Returns the exit code. */
int agent_import_write(const struct import_result *r, const char *out,
    bool force, const char *cmd, const struct agent_import_extra *extra,
    size_t nextra);

#endif
