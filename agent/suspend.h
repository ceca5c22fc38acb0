/* agent/suspend.h: a suspended cluster (docs/policy.md "Suspending a
 * cluster"): STATE/<cluster>/suspended.json, its one reader and writer.
 *
 * While the file exists the cluster still gets previews and drift
 * reports, but nothing is applied to it: approved plans, drift repair and
 * the capture pass wait, and `apply` refuses. `suspend` writes the file
 * atomically (afile_write: a temporary file, fsync, rename, fsync of the
 * folder), `resume` removes it (and fsyncs the folder); neither takes the
 * state lock, which the daemon holds: like `approve`, they only write one
 * file the daemon reads before each apply. */
#ifndef AGENT_SUSPEND_H
#define AGENT_SUSPEND_H

#include <stdbool.h>
#include <stdint.h>

#include "../lib/err.h"

#define AGENT_SUSPEND_FILE       "suspended.json"
#define AGENT_SUSPEND_FORMAT     1
#define AGENT_SUSPEND_REASON_MAX 1024 /* bytes of the reason */

struct agent_suspension {
	char *reason; /* --reason: one line of text */
	char *by;     /* who, as free text (--by, $SUDO_USER, $USER) */
	int64_t uid;  /* the real uid of the process that suspended */
	char *user;   /* that uid's name then */
	char *at;     /* RFC 3339 UTC */
};

void agent_suspension_release(struct agent_suspension *s);

/* Is name a cluster name (letters, digits, '.', '_', '-', not starting
 * with '.'): a folder name of the state folder? */
bool agent_suspend_name_ok(const char *name);

/* Read STATE/<cluster>/suspended.json: 1 and *out (owned) when the
 * cluster is suspended, 0 when not (no file), -1 with err naming the file
 * when it cannot be read or parsed (callers treat that as suspended: a
 * brake that cannot be read is not released). */
int agent_suspend_read(struct agent_suspension *out, const char *state,
    const char *cluster, struct err *err);
/* Write it (the folder made when missing). */
int agent_suspend_write(const char *state, const char *cluster,
    const struct agent_suspension *s, struct err *err);
/* Remove it: 1 when it was there, 0 when not, -1 with err. */
int agent_suspend_remove(const char *state, const char *cluster,
    struct err *err);

/* For previews, the page and the log: "cluster 'shop-eu' is suspended
 * (by alice, uid 1000 alice, at 2026-12-02T10:00:00Z): REASON; nothing is
 * applied until `artemis-gitops resume shop-eu`". Owned. */
char *agent_suspend_text(const char *cluster, const struct agent_suspension *s);

#endif
