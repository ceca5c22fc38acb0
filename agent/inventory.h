/* agent/inventory.h: STATE/<cluster>/inventory.json, the managed set
 * (docs/state.md): what the agent applied, so what a plan may delete. This
 * module is the file's one reader and one writer; its format is
 * reconcile/plan's (plan_inventory_render/_parse). */
#ifndef AGENT_INVENTORY_H
#define AGENT_INVENTORY_H

#include "../declarations/decl.h"
#include "../lib/err.h"
#include "../reconcile/apply/apply.h"
#include "../reconcile/plan/plan.h"

struct agent_state;

#define AGENT_INVENTORY_FILE "inventory.json"
#define AGENT_INVENTORY_MAX  ((size_t)64 * 1024 * 1024) /* bytes */

/* Read STATE_DIR/<cluster>/inventory.json into *out; a missing file gives
 * an empty set with known = false (nothing applied yet). Errors name the
 * file and the JSON member. */
int agent_inventory_load(struct plan_managed *out, const char *state_dir,
    const char *cluster, struct err *err);

/* After an apply (or a drift cycle's capture pass) of plan p with result
 * r: load the cluster's inventory from the open state folder st, update it
 * (apply_update_managed, with decl, the declaration that was applied) and
 * write it back atomically. */
int agent_inventory_update(struct agent_state *st, const struct plan *p,
    const struct apply_result *r, const struct decl_cluster *decl,
    struct err *err);

#endif
