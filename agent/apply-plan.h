/* agent/apply-plan.h: applying an approved plan (apply-plan.c), for
 * `apply` and the daemon. */
#ifndef AGENT_APPLY_PLAN_H
#define AGENT_APPLY_PLAN_H

#include <pthread.h>
#include <stdbool.h>

#include "../lib/err.h"
#include "../reconcile/apply/apply.h"

struct agent_state;
struct agent_windows;
struct agent_tls;
struct apply_approval;
struct apply_result;
struct http_tick;
struct stat;
struct strv;

struct agent_apply_plan_opts {
	const char *dir;         /* PLAN_DIR */
	const char *state;       /* the state folder (resolved) */
	struct agent_state *st;  /* an open, locked state folder (the
	                            daemon's), or NULL: lock state here */
	const char *credentials; /* NULL: $CREDENTIALS_DIRECTORY */
	const char *cluster;     /* declaration folder for the endpoints;
	                            NULL: PLAN_DIR/declaration */
	/* the brokers' TLS (tls.h); NULL: the system trust store, no
	 * client certificate */
	const struct agent_tls *tls;
	/* the daemon's memory of the nodes warned about for credentials in
	 * clear (agent_targets_warn_cleartext), logged; NULL: printed */
	struct strv *cleartext_warned;
	bool quiet; /* no progress on stderr, no summary */
	/* called while brokers are waited on (lib/http.h); NULL: none */
	const struct http_tick *tick;
	/* one request to one broker, in ms (its connection included when
	 * under the 5 s connect default); 0: lib/live's 30 s */
	long timeout_ms;
	/* May this approval be acted on? Called with approval.json as read
	 * and what fstat said of that very file (it is read without following
	 * a symbolic link), before the approval is checked against the plan;
	 * -1 with err refuses the apply. NULL: none (the command line). */
	int (*check_approval)(void *ctx, const struct apply_approval *a,
	    const struct stat *st, struct err *err);
	void *check_ctx;
	/* out, may be NULL: set when the plan had been applied already and
	 * this run only completed its record (an apply killed after its
	 * result row); the run still returns -1, saying so in err */
	bool *record_completed;
	/* The cluster's sync windows (window.h; NULL: none), and an override
	 * of a closed one for this apply by override_by (`apply
	 * --override-window`; an approval.json with override_window overrides
	 * too, by its approver). A suspended cluster is never overridden. */
	const struct agent_windows *windows;
	const char *override_by; /* NULL: no override from the caller */
	/* Several agents (docs/ha.md): called before the intent row and
	 * before every operation sent to a broker; -1 with err stops the apply
	 * there (the operation is not sent: FENCED, the node FAILED as any
	 * failed operation leaves it, ADR-0084 D3). epoch goes into the audit
	 * rows. NULL: one agent alone. */
	const struct agent_fence *fence;
	/* out, may be NULL: the result of an apply that ran (0 or 1), owned
	 * by the caller; untouched otherwise (the notifications: which nodes
	 * failed, and with what) */
	struct apply_result **result;
};

/* The fence of several agents (docs/ha.md; agent/coord.h). */
struct agent_fence {
	int (*check)(void *ctx, const char *cluster, struct err *err);
	void *ctx;
	int64_t epoch;
};

/* io's exec checked by fence first (io is changed in place; w holds what
 * the wrapper needs, and lives as long as io is used). An operation that
 * the fence stops is not sent: it fails FENCED with the fence's words, and
 * so does every later one of this io; a batch is checked once, before its
 * request. The nodes run one after another (io->parallel false). */
struct agent_fence_io {
	struct apply_io inner;
	const struct agent_fence *fence;
	char *cluster;
	char *why;          /* the first refusal */
	pthread_mutex_t mu; /* the nodes run at once: one check at a time */
};
void agent_fence_io(struct agent_fence_io *w, struct apply_io *io,
    const struct agent_fence *fence, const char *cluster);
void agent_fence_io_release(struct agent_fence_io *w);

/* agent_apply_plan_run's refusals that are waits (docs/policy.md): err
 * holds the reason (the window's or the suspension's text). */
#define AGENT_APPLY_EWINDOW    -2 /* outside the cluster's sync window */
#define AGENT_APPLY_ESUSPENDED -3 /* the cluster is suspended */

/* The file an apply writes into PLAN_DIR just before its intent row (it
 * holds the apply id): the plan's apply has begun there. The daemon never
 * supersedes such a preview without a result: a restart resumes it
 * (docs/daemon.md). */
#define AGENT_APPLY_BEGUN "apply-begun"

/* Check the approval, take the state lock (unless o->st), look in the
 * audit log for an earlier apply of the same plan (one with a result row
 * refuses it; one interrupted, an intent row without a result row, is
 * resumed: docs/audit.md "Resuming an interrupted apply"), check every
 * node again, append the intent row, apply, append the result row, update
 * the inventory, write result.json and result.md, print the summary.
 * A suspended cluster, or one outside its sync window (not overridden),
 * is AGENT_APPLY_ESUSPENDED or AGENT_APPLY_EWINDOW with err, nothing done;
 * an interrupted apply of the plan is resumed outside the window (it
 * began inside it), never while the cluster is suspended.
 * Returns -1 with err when nothing was applied (not approved, changed,
 * superseded, applied already, locked, no endpoints, the intent row not
 * written); 0 when
 * every node APPLIED or SKIPPED; 1 otherwise (err is then set only when
 * recording the result failed). */
int agent_apply_plan_run(const struct agent_apply_plan_opts *o,
    struct err *err);

/* A new apply id: "<RFC 3339 time>-<16 random hex>" (links audit rows).
 * Owned by the caller. */
char *agent_apply_plan_id_new(void);

/* The command line's wrapper: prints err, returns the exit code (0 or 1;
 * AGENT_EXIT_WINDOW, AGENT_EXIT_SUSPENDED for those refusals). */
int agent_apply_plan(const struct agent_apply_plan_opts *o);

#endif
