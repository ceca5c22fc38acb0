/* agent/plan-dir.h: a plan folder on disk (PLAN_DIR/plan.json, plan.md):
 * written by `plan`, `delete-queue` and the daemon; loaded with its digest
 * by `approve` and `apply`, which refuse a plan that was changed after it
 * was written, already applied, or superseded by a later apply. */
#ifndef AGENT_PLAN_DIR_H
#define AGENT_PLAN_DIR_H

#include "../lib/err.h"
#include "../lib/sha256.h"
#include "../reconcile/plan/plan.h"

#define AGENT_PLAN_DIR_MAX ((size_t)64 * 1024 * 1024) /* bytes of plan.json */

struct agent_plan_dir {
	char *dir;               /* PLAN_DIR as given */
	char *path;              /* PLAN_DIR/plan.json */
	char digest[SHA256_HEX]; /* SHA-256 of plan.json's bytes */
	struct plan *plan;
};

/* Read and parse DIR/plan.json and check that it is what the planner wrote
 * (its confirmation text still matches its content). */
int agent_plan_dir_load(struct agent_plan_dir *out, const char *dir,
    struct err *err);
void agent_plan_dir_release(struct agent_plan_dir *ap);

/* Is DIR/plan.md, which the approver read, still what the planner wrote
 * for plan.json? It is rendered again (with the plan folder its approve
 * command names) and compared byte for byte. */
int agent_plan_dir_check_md(const struct agent_plan_dir *ap, struct err *err);

/* When DIR/plan.md is what the planner wrote for plan.json (rendered again
 * with the plan folder its approve command names, a plan that cannot be
 * approved naming none: then DIR; compared byte for byte), the same text
 * cut past max bytes instead of plan.md's PLAN_MD_MAX (0: never) into
 * *out (owned): the whole plan for pull-request comments. 0, or -1 with
 * err. */
int agent_plan_dir_md_whole(const struct agent_plan_dir *ap, size_t max,
    char **out, struct err *err);

/* Refuse a plan that was applied already (DIR/result.json exists) or that
 * is superseded: the daemon marked it (DIR/superseded), or the state
 * folder's inventory for its cluster is no longer the one it was planned
 * against (another plan was applied since).
 * state_dir NULL skips the second check. */
int agent_plan_dir_check_current(const struct agent_plan_dir *ap,
    const char *state_dir, struct err *err);

/* Write DIR/plan.json and DIR/plan.md atomically (creating DIR); on
 * success digest_hex (SHA256_HEX bytes) holds the SHA-256 of plan.json. */
int agent_plan_dir_write(const struct plan *p, const char *dir,
    char *digest_hex, struct err *err);

#endif
