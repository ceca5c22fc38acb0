/* agent/git.h: reading a cluster folder out of a git repository at a
 * revision (libgit2), for `plan --repo PATH --rev REV [--base REV]`. */
#ifndef AGENT_GIT_H
#define AGENT_GIT_H

#include <stddef.h>

#include "../declarations/decl.h"
#include "../lib/err.h"

/* The YAML files of one folder of a tree, held in memory. */
struct agent_git_files {
	struct decl_file *files; /* path = "<dir>/<name>", sorted by name */
	size_t nfiles;
	char commit[41];         /* the revision's commit id, hex */
	struct decl_file *bases; /* broker/broker.xml, broker/nodes/<n>.xml */
	size_t nbases;
};

/* Read every *.yaml / *.yml blob directly under dir in the tree of rev
 * (anything git rev-parse accepts) of the repository at repo. Errors name
 * the repository, revision and folder. */
int agent_git_read_dir(struct agent_git_files *out, const char *repo,
    const char *rev, const char *dir, struct err *err);
void agent_git_files_release(struct agent_git_files *f);

#endif
