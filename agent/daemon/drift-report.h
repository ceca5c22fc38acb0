/* agent/drift.h: a drift report from a plan of the last applied
 * declaration against live state (agent/drift.c; docs/daemon.md).
 *
 * Planning what was applied against what is live says exactly what
 * drifted: an object the plan would create is missing, one it would change
 * or recreate was changed behind the agent's back, the plan's unmanaged
 * list is what nobody declared, and an action that is needed on some nodes
 * but not on others means the nodes of the cluster disagree.
 */
#ifndef AGENT_DRIFT_H
#define AGENT_DRIFT_H

#include <stdbool.h>
#include <stddef.h>

struct plan;

#define DAEMON_DRIFT_FORMAT 1 /* `format` of drift.json */

struct daemon_drift_counts {
	size_t missing, changed, unmanaged, disagreeing, unreachable;
};

/* Count the findings of drift plan p. */
void daemon_drift_count(const struct plan *p, struct daemon_drift_counts *out);
/* True when anything drifted (unreachable nodes alone are not drift). */
bool daemon_drift_found(const struct daemon_drift_counts *c);
/* drift.json (canonical, 2-space indent, trailing newline) and drift.md;
 * head is the branch head, checked_at an RFC 3339 time. Owned. */
char *daemon_drift_render_json(const struct plan *p, const char *head,
    const char *checked_at);
char *daemon_drift_render_md(const struct plan *p, const char *head,
    const char *checked_at);

#endif
