/* agent/git-bases.h: a CONFIG_MANAGED cluster's base broker.xml files
 * (broker/broker.xml, broker/nodes/<node>.xml; declarations/render.h) out
 * of a git tree, for `plan --repo` and the daemon. */
#ifndef AGENT_GIT_BASES_H
#define AGENT_GIT_BASES_H

#include <git2.h>

#include "../declarations/decl.h"
#include "../lib/err.h"

/* Append the base files below tree (the cluster folder dir) to *files
 * (paths "<dir>/broker/broker.xml", "<dir>/broker/nodes/<n>.xml"; data
 * and path owned, NUL-terminated). A cluster without them adds nothing. */
int agent_git_add_bases(struct decl_file **files, size_t *n, git_repository *r,
    const git_tree *tree, const char *dir, struct err *err);
void agent_git_bases_free(struct decl_file *files, size_t n);

#endif
