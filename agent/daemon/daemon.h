/* agent/daemon.h: the daemon's state, shared by its parts:
 *   loop.c    the poll() loop: timers, signals, reload, watchdog, backoff
 *   cycle.c   one cycle: fetch, validate, plan, post previews, auto-apply
 *   approve-run.c  approvals found in the outbox, applied
 *   drift.c   drift detection and its report
 *   capture-pass.c  the capture pass of every drift cycle
 * Everything travels in struct daemon (style.md 2.6); signals only set
 * flags, which the parts check between steps through daemon_stopping().
 */
#ifndef AGENT_DAEMON_H
#define AGENT_DAEMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../conf.h"
#include "signal.h"
#include "watch.h"

struct agent_state;

/* What the daemon remembers about one cluster between cycles. */
struct daemon_cluster {
	char *name;
	char *dir;           /* the folder in the repository */
	char *last_plan_dir; /* the newest preview posted, or NULL */
	bool retry;          /* the last plan could not read every node */
	unsigned fails;      /* consecutive cycles with unreadable nodes */
	int64_t retry_at;    /* monotonic ms of the next replan */
};

struct daemon {
	struct agent_conf *conf; /* owned; never mutated, swapped on reload */
	const char *conf_path;
	struct agent_state *state; /* holds the lock on conf->state */
	struct daemon_watch *watch;
	int sigfd;
	struct daemon_signals sig;
	bool once;
	int64_t next_poll, next_drift; /* monotonic ms */
	unsigned git_fails;
	struct daemon_watch_update head; /* the commit the previews are of */
	struct daemon_cluster *clusters;
	size_t nclusters;
	int exit_code; /* --once: 1 when a step failed */
};

/* Monotonic clock in milliseconds. */
int64_t daemon_now_ms(void);
/* Read pending signals; true when SIGTERM/SIGINT arrived (finish the step
 * in progress and return). */
bool daemon_stopping(struct daemon *a);
/* The backoff before retry number `fails` (1-based): base doubled each
 * time, capped at conf->retry_max; in seconds. */
long daemon_backoff(const struct daemon *a, long base, unsigned fails);

/* cycle.c: fetch and plan new commits; replan clusters whose nodes could
 * not all be read. 0, or -1 when git failed (retried with backoff). */
int daemon_cycle(struct daemon *a);
/* approve-run.c: apply every approved preview not handled yet. */
void daemon_run_approvals(struct daemon *a);
/* drift.c: compare live state with the last applied declaration of every
 * cluster and write OUTBOX/<cluster>/drift/. */
void daemon_drift(struct daemon *a);
/* capture-pass.c: the capture pass of a drift cycle (docs/captures.md):
 * plan it from snap with decl (the applied declaration) and m (the
 * inventory), and when it has work run it on every node, append its audit
 * row, update the inventory's captures and log one line. True when it
 * ran an operation (the brokers changed: read them again). */
struct plan_managed;
struct recon_snapshot;
bool daemon_capture_pass(struct daemon *a, const struct decl_cluster *decl,
    const struct plan_managed *m, const struct recon_snapshot *snap);

void daemon_clusters_free(struct daemon *a);
struct daemon_cluster *daemon_cluster(struct daemon *a, const char *name);

/* The Jolokia endpoint and credentials of every node of c (credentials
 * from conf->credentials; a node whose file cannot be read is left out
 * and logged, never read anonymously). */
struct decl_cluster;
struct live_target;
struct agent_targets {
	struct live_target *v; /* node and url borrowed from c */
	char **secrets;
	size_t n;
};
void agent_targets_load(struct agent_targets *out, struct daemon *a,
    const struct decl_cluster *c);
void agent_targets_release(struct agent_targets *t);

/* Read every node of c (its targets, as above). */
struct recon_snapshot *daemon_read_live(struct daemon *a,
    const struct decl_cluster *c);

/* The outbox name of a cluster folder: its declared name when it loads
 * (c), else what the folder was called before, else its last component. */
const char *daemon_cluster_name(struct daemon *a, const struct decl_cluster *c,
    const char *dir);

/* Copy the YAML files of wc into DIR/declaration/, the declaration a
 * preview was planned from; apply reads the nodes' endpoints there. */
int daemon_post_declaration(const char *dir, const struct daemon_watch_cluster *wc,
    struct err *err);

/* True for a plan that would apply and only creates (or widens) objects:
 * what auto-apply-creates may apply without an approval. */
struct plan;
bool plan_creates_only(const struct plan *p);
/* approve-run.c: approve dir (a preview of plan p) as the daemon itself
 * and apply it, when auto-apply-creates allows. */
void daemon_auto_apply(struct daemon *a, const char *dir);

int daemon_loop_run(struct daemon *a);

#endif
