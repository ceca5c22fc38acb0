/* agent/render-plan.h: the rendered broker.xml of a CONFIG_MANAGED plan
 * (docs/config-managed.md, "The plan preview"): `plan`, `delete-queue` and
 * the daemon render every node, add the diffs and reload predictions to
 * the plan (plan_add_broker_xml) and write the files as
 * PLAN_DIR/broker/<node>/broker.xml. */
#ifndef AGENT_RENDER_PLAN_H
#define AGENT_RENDER_PLAN_H

#include "../declarations/decl.h"
#include "../reconcile/plan/plan.h"

struct agent_render_set {
	size_t n;
	char **nodes, **texts;
	size_t *lens;
};

/* Where base files come from: files (git; paths as render.h lays them out
 * under the cluster folder) when in_memory, else the file system. */
struct agent_render_bases {
	const struct decl_file *files;
	size_t n;
	bool in_memory;
};

/* For a CONFIG_MANAGED p (others: nothing happens, 0): render every node
 * of c, and of before (the previous declaration; NULL: the diffs start
 * from the base files), validated against the schema in schema_dir (NULL:
 * $ARTEMIS_GITOPS_SCHEMA_DIR, else ./.cache/artemis/schema), or in its
 * subfolder named after the release the node's broker runs (snap) when
 * there is one (docs/compatibility.md). Adds the
 * broker_xml section to p, or refuses p (RENDER_FAILED) naming the
 * problem. The rendered texts go to *out (release them). */
void agent_render_plan(struct agent_render_set *out, struct plan *p,
    const struct decl_cluster *c, const struct decl_cluster *before,
    const char *before_label, const struct recon_snapshot *snap,
    const struct agent_render_bases *bases, const char *schema_dir);

/* The schema folder: dir, else $ARTEMIS_GITOPS_SCHEMA_DIR, else
 * ./.cache/artemis/schema (render, plan and import alike). */
const char *agent_render_schema_dir(const char *dir);

/* Write dir/broker/<node>/broker.xml for each rendered node. */
int agent_render_write(const struct agent_render_set *r, const char *dir,
    struct err *err);
void agent_render_release(struct agent_render_set *r);

#endif
