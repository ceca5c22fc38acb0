/* agent/outbox.h: the outbox, where the daemon posts what it found and
 * the web server (agent/web/) reads it (agent/outbox.c). */
#ifndef AGENT_OUTBOX_H
#define AGENT_OUTBOX_H

#include <stdbool.h>
#include <stddef.h>

#include "../lib/err.h"

/* where the daemon posts what it found (docs/daemon.md).
 *
 *   OUTBOX/<cluster>/<plan-id>/plan.json, plan.md   the preview (reconcile/)
 *                             commit.txt            the commit it came from
 *                             declaration/          its YAML files, as planned
 *                             history-rewrite.txt   the branch was rewritten
 *                             superseded            a newer preview exists:
 *                                                   this one is never applied
 *                             approval.json         written by `approve`
 *                             approval-refused.txt  why the daemon did not
 *                                                   act on the approval
 *                             waiting.txt           approved, waiting for
 *                                                   a sync window or a
 *                                                   resume: why, until when
 *                             result.json, .md      written by the apply
 *                             request.txt           a preview asked
 *                                                   for: an operator's
 *                                                   delete-queue from the
 *                                                   web (via http), or a
 *                                                   plan of the MCP server
 *                                                   (via mcp): who asked,
 *                                                   when
 *   OUTBOX/<cluster>/drift/drift.md, drift.json     the last drift report
 *   OUTBOX/<cluster>/hold.txt      the cluster is suspended or outside its
 *                                  sync window: why, until when
 *
 * A plan id is `<UTC time>-<12 hex of the commit>`, e.g.
 * `20261129T201500Z-0123456789ab`, so folders sort by age. Every file is
 * written atomically.
 */

#define AGENT_OUTBOX_PLAN        "plan.json"
#define AGENT_OUTBOX_PLAN_MD     "plan.md"
#define AGENT_OUTBOX_RESULT_MD   "result.md"
#define AGENT_OUTBOX_COMMIT      "commit.txt"
#define AGENT_OUTBOX_DECLARATION "declaration"
#define AGENT_OUTBOX_REWRITE     "history-rewrite.txt"
/* repository.verify: the verdict on the commit's signature */
#define AGENT_OUTBOX_SIGNATURE  "signature.txt"
#define AGENT_OUTBOX_SUPERSEDED "superseded"
#define AGENT_OUTBOX_APPROVAL   "approval.json"
#define AGENT_OUTBOX_REFUSED    "approval-refused.txt"
#define AGENT_OUTBOX_RESULT     "result.json"
/* a preview asked for (the web's delete-queue, the MCP server's plans):
 * who, when, through what */
#define AGENT_OUTBOX_REQUEST "request.txt"
/* an approved preview that waits (a suspension, a sync window): why and
 * until when (docs/policy.md); removed once it is applied or refused */
#define AGENT_OUTBOX_WAITING "waiting.txt"
/* OUTBOX/<cluster>/hold.txt: the cluster is suspended or outside its sync
 * window, why and until when (the daemon keeps it current) */
#define AGENT_OUTBOX_HOLD "hold.txt"
/* how the agent's own approvals name their approver */
#define AGENT_OWN_APPROVER_PREFIX "artemis-gitops ("
#define AGENT_OUTBOX_DRIFT        "drift"

/* Create a new, empty plan folder OUTBOX/<cluster>/<plan-id> for commit
 * (NULL: "drift" plans use "drift-repair" in place of the commit). *out
 * owns its path. */
int agent_outbox_new_plan_dir(char **out, const char *outbox,
    const char *cluster, const char *commit, struct err *err);

/* Write text to DIR/name atomically (mode 0640). */
int agent_outbox_put(const char *dir, const char *name, const char *text,
    struct err *err);
/* True when DIR/name exists. */
bool agent_outbox_has(const char *dir, const char *name);

/* Mark every preview of cluster except keep_dir superseded (a file naming
 * the newer one), unless it was applied (has a result) or is already
 * marked. Returns how many were marked, or -1. */
int agent_outbox_supersede_others(const char *outbox, const char *cluster,
    const char *keep_dir, const char *reason, struct err *err);

/* Plan folders of every cluster holding an approval the daemon has not
 * handled yet (no result, no approval-refused.txt), oldest first. *out is
 * an owned array of owned paths. */
int agent_outbox_list_approved(char ***out, size_t *nout, const char *outbox,
    struct err *err);
void agent_outbox_list_free(char **list, size_t n);

/* The names of the cluster folders of outbox (none when it does not
 * exist), sorted; release with agent_outbox_list_free. */
int agent_outbox_clusters(char ***out, size_t *nout, const char *outbox,
    struct err *err);
/* The names (plan ids) of cluster's plan folders, those holding a
 * plan.json, sorted, so oldest first; the drift report's folder is not
 * one. Release with agent_outbox_list_free. */
int agent_outbox_plans(char ***out, size_t *nout, const char *outbox,
    const char *cluster, struct err *err);

/* Where people open a cluster (id NULL) or one of its previews on the
 * page: BASE/clusters/<cluster>[/previews/<id>], the names
 * percent-encoded; NULL when base (notifications.page-url) is. Owned. */
char *agent_outbox_page_link(const char *base, const char *cluster,
    const char *id);

/* The drift report's files in OUTBOX/<cluster>/drift/ */
#define AGENT_OUTBOX_DRIFT_JSON "drift.json"
#define AGENT_OUTBOX_DRIFT_MD   "drift.md"

#endif
