/* reconcile/apply/apply.h: applying an approved plan, its result, its audit
 * rows and the approval that allows it (ADR-0084 decisions 3 and 6; design.md
 * sections 5 and 6; docs/audit.md).
 *
 * Apply works per node. It reads every node of the plan again, all at once
 * (one snapshot each), checks each action of the plan against that fresh state
 * (for a queue delete: the planner's own preflight, run again) and decides:
 *   - the node cannot be read                  -> UNREACHABLE;
 *   - the state changed so that the plan no
 *     longer holds (a new consumer, a new
 *     dependent divert, ...)                   -> REFUSED as stale; nothing
 *                                                 is done on that node;
 *   - every action already holds               -> SKIPPED (no-op);
 *   - the queue deletes of the nodes about to act destroy more messages
 *     than the cluster's cap (ADR-0084 D7)     -> the whole apply is
 *                                                 refused: every node that
 *                                                 was to act, or SKIPPED,
 *                                                 REFUSED as stale;
 *   - otherwise the operations run in plan order: creates first; for a
 *     queue delete its dependent diverts, then the queue. The first failed
 *     operation stops the node (FAILED); later ones are NOT_RUN. There is
 *     no rollback. Other nodes go on (with io->parallel, at the same time:
 *     one thread per node). Creates and changes of one phase that do not
 *     depend on each other share one request (io->exec_batch, at most
 *     APPLY_BATCH_MAX; operations.c, docs/audit.md "Batches"): when one of
 *     them fails, the later ones of that request ran and are recorded
 *     with their own outcomes; the later requests are NOT_RUN. A destroy
 *     or a delete always goes alone.
 * Creates are read back before any delete of that node runs: a divert
 * create the broker silently ignored fails the node.
 * Then the capture pass runs on every node APPLIED or SKIPPED, on the node
 * as it is after the operations: every node where an operation ran is read
 * again (all at once; that read also checks the creates of the node's last
 * operations); a node where none ran is not read again. When the plan has
 * no capture (declared or removed) the pass cannot do anything and is not
 * run: the nodes are read again only to check creates.
 * Reads per node: docs/audit.md "Reads per node".
 *
 * reconcile/ never prints: agent/ writes approval.json, result.json,
 * result.md and the audit rows that the functions below render.
 */
#ifndef RECONCILE_APPLY_APPLY_H
#define RECONCILE_APPLY_APPLY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../lib/err.h"
#include "../plan/plan.h"
#include "../recon.h"

#define APPLY_AUDIT_FORMAT    1 /* `format` of audit rows and result.json */
#define APPLY_APPROVAL_FORMAT 2 /* `format` of approval.json */
#define APPLY_APPROVAL_UID_MAX                                                 \
	((int64_t)4294967294) /* the largest uid (not (uid_t)-1) */

/* ---- approval ---------------------------------------------------------- */

/* Who approved: approved_uid is the real uid of the process that wrote
 * approval.json, approved_user its user name then (the decimal uid when
 * it had none); approved_by is free text (--by, $SUDO_USER, ...). The
 * daemon acts only on an approval whose file that uid owns. */
struct apply_approval {
	char *plan_digest;  /* SHA-256 of plan.json, lower-case hex */
	char *confirmation; /* the text the approver typed */
	char *approved_by;
	char *approved_at; /* RFC 3339 UTC */
	int64_t approved_uid;
	char *approved_user;
	/* NULL: written by `artemis-gitops approve`; APPLY_APPROVAL_VIA_HTTP:
	 * by the daemon's web server for a signed-in token, whose name is
	 * approved_by (the file is then the daemon's own uid's) */
	char *via;
	/* `approve --override-window`: this plan may be applied outside its
	 * cluster's sync window (docs/policy.md); the audit rows then record
	 * the override with the approver */
	bool override_window;
};
#define APPLY_APPROVAL_VIA_HTTP "http"
/* carried by the daemon (docs/ha.md) from an approval of the same plan (the
 * same content, its snapshot time aside) that was not applied: given to
 * the agent that owned the cluster before (kept in etcd), or to an earlier
 * preview of this agent's that a takeover replaced. Written by this agent
 * (its own uid's file); approved_* are the first approval's. */
#define APPLY_APPROVAL_VIA_CARRIED "carried"

void apply_approval_release(struct apply_approval *a);
/* approval.json: canonical, 2-space indent, trailing newline. Owned. */
char *apply_approval_render(const struct apply_approval *a);
/* Errors name path and the member; a syntax error is `path:line:col: not
 * valid JSON: why` (lib/json.h). Format 1 (before the uid was recorded)
 * is refused: "approve again". */
int apply_approval_parse(struct apply_approval *out, const char *path,
    const char *text, size_t len, struct err *err);

/* May plan p (whose plan.json hashes to digest) be approved with the text
 * confirm? 0 when yes; otherwise -1 with the reason in err: a refused plan,
 * a plan without changes, a wrong confirmation text. */
int apply_approval_check_plan(const struct plan *p, const char *confirm,
    struct err *err);

/* ---- the result -------------------------------------------------------- */

enum apply_op_state {
	APPLY_OP_NOT_RUN = 0, /* not reached: an earlier operation failed */
	APPLY_OP_DONE,        /* accepted (a create: and read back) */
	APPLY_OP_FAILED,
	APPLY_OP_UNKNOWN, /* sent, its reply lost, and the node could not be
	                     read back to tell */
};
/* "NOT_RUN", "DONE", "FAILED", "UNKNOWN". */
const char *apply_op_state_name(enum apply_op_state s);

/* How an operation's outcome is known. */
enum apply_established {
	APPLY_EST_REPLY = 0,  /* the broker's reply (or it did not run) */
	APPLY_EST_READ_BACK,  /* its reply was lost (recon_refusal_reply_lost):
	                         the node read back right after shows it done,
	                         or not done (apply_op_seen) */
	APPLY_EST_RESUME_READ /* resuming: the interrupted apply ran it; the
	                         read of the node before acting shows it done */
};
/* NULL for APPLY_EST_REPLY, "read-back", "resume-read". */
const char *apply_established_name(enum apply_established e);

/* One operation as run (or not) on one node. */
struct apply_op {
	enum plan_action_kind act; /* the plan action it belongs to */
	char *action;              /* that action's object name */
	struct recon_op op;        /* owned copy; a divert destroy carries the
	                              divert's live configuration at apply time */
	enum apply_op_state state;
	enum apply_established established;
	/* FAILED: the classified cause; UNKNOWN, or established by read-back:
	 * the lost reply's */
	struct recon_refusal refusal;
};

enum apply_outcome {
	APPLY_APPLIED = 0,
	APPLY_FAILED,
	APPLY_SKIPPED,
	APPLY_REFUSED,
	APPLY_UNREACHABLE,
};
/* "APPLIED", "FAILED", "SKIPPED", "REFUSED", "UNREACHABLE". */
const char *apply_outcome_name(enum apply_outcome o);

struct apply_node {
	char *node;
	/* An HA node (docs/ha-pairs.md): the member live when apply read the
	 * node, the one every operation went to (NULL: none, or no members),
	 * and the member the plan was made against when that is another (a
	 * failover between plan and apply; NULL otherwise). */
	char *member;
	char *planned_member;
	enum apply_outcome outcome;
	char *detail; /* owned: why, one line for people */
	char *kind;   /* REFUSED/FAILED/UNREACHABLE: "STALE", "HAS_CONSUMERS",
	                 "NOT_FOUND", ...; NULL otherwise */
	char **notes; /* per action: what was found and done */
	size_t nnotes;
	struct apply_op *ops; /* in run order */
	size_t nops;
	int64_t destroyed_messages; /* queue deletes: MessageCount at apply */
	int64_t planned_messages;   /* the same, as the plan recorded it */
	signed char *verdicts;      /* per plan action: -1 nothing planned here,
	                               0 run, 1 no-op, 2 stale (apply_verdict) */
	size_t *run_notes;          /* the notes of actions checked to run ("as
	                               planned"), rewritten when the node is refused */
	size_t nrun_notes;
	/* The capture pass did not finish here: the node could not be read
	 * again, a step was refused, or an operation failed. */
	bool capture_incomplete;
	/* Resuming: the first done_before operations were done by the
	 * interrupted apply (DONE, established resume-read); this apply runs
	 * the rest. */
	size_t done_before;
	/* The kind a stale node is refused with instead of "STALE", set by
	 * the check that found it (HAS_MESSAGES: delete-if-empty); NULL. */
	char *refuse_kind;
};

struct apply_result {
	char *apply_id;    /* links the intent row and the result row */
	char *plan_dir;    /* as given on the command line */
	char *plan_digest; /* SHA-256 of plan.json, lower-case hex */
	char *cluster;
	char *revision;       /* the plan's revision; NULL when not from git */
	char *approver;       /* approval.json's approved_by */
	int64_t approver_uid; /* its approved_uid (the daemon's own uid for
	                         the capture pass) */
	char *approved_at;
	/* The ownership's epoch under which it ran (docs/ha.md: the etcd
	 * owner key's create revision); 0: one agent alone (not written). */
	int64_t epoch;
	/* The apply ran outside its cluster's sync window, by an override
	 * (docs/policy.md "Sync windows"): who overrode it (approval.json's
	 * approver, or who ran `apply --override-window`), their uid, and
	 * the window's verdict then. NULL: no override was needed. */
	char *window_override;
	int64_t window_override_uid;
	char *window_state;
	/* The apply_id of the interrupted apply of the same plan this one
	 * resumes (docs/audit.md "Resuming"), or NULL. */
	char *resumes;
	bool disconnect_consumers;
	char *started_at; /* RFC 3339 UTC */
	char *finished_at;
	struct apply_node *nodes; /* in plan order */
	size_t nnodes;
	/* What apply read of each node before acting (nnodes; a node that
	 * could not be read carries its refusal). */
	struct recon_node_snapshot *seen;
	/* Declared objects a node held before apply acted and the managed
	 * set did not: adopted (apply_count_adopted; the result row's
	 * "adopted", docs/import.md). */
	size_t adopted;
	/* The plan's policy changes the inventory now records (the result
	 * row's "policy_changes", docs/policy.md). */
	size_t policy_changes;
};

void apply_result_free(struct apply_result *r); /* NULL ok */
/* True when every node APPLIED or SKIPPED (exit 0). */
bool apply_result_ok(const struct apply_result *r);

/* ---- the engine -------------------------------------------------------- */

/* The most operations apply sends in one request (one Jolokia bulk POST)
 * to one node: 500 creates are about 200 KB of JSON, and the broker
 * answers them in well under its 30 s request timeout (docs/audit.md
 * "Batches"). */
#define APPLY_BATCH_MAX 500

/* The broker side, so that tests can stand in a fake. */
struct apply_io {
	void *ctx;      /* for read and exec */
	void *hook_ctx; /* for intent and progress */
	/* Read node (name from the plan) whole into *out (zeroed by the
	 * caller); a failed read sets out->refusal. */
	void (*read)(void *ctx, const char *node,
	    struct recon_node_snapshot *out);
	/* Optional: read the n nodes names[] into out[0..n) (zeroed by the
	 * caller), each as read would, all at once (the live side: one bulk
	 * POST per node, concurrently, as plan reads). Without it apply calls
	 * read node by node. */
	void (*read_all)(void *ctx, const char *const *names, size_t n,
	    struct recon_node_snapshot *out);
	/* Run op on node. 0 on success; -1 with *refusal classified. */
	int (*exec)(void *ctx, const char *node, const struct recon_op *op,
	    struct recon_refusal *refusal);
	/* Optional: run ops[0..n) on node in one request (the live side: one
	 * Jolokia bulk POST; Jolokia runs a bulk's elements in order, each
	 * with its own status, and one failing does not stop the next):
	 * rcs[i] is 0, or -1 with refusals[i] classified, as exec would say
	 * of ops[i] alone. When the request failed as a whole (nothing was
	 * read of its reply) every refusals[i] is that failure and the
	 * function returns -1 (else 0). apply_run_ops only hands it
	 * operations that are independent of each other (apply_batch_end);
	 * without it apply calls exec operation by operation. */
	int (*exec_batch)(void *ctx, const char *node,
	    const struct recon_op *ops, size_t n, int *rcs,
	    struct recon_refusal *refusals);
	/* The most operations one exec_batch request carries; 0:
	 * APPLY_BATCH_MAX. */
	size_t batch_max;
	/* read, exec and exec_batch may be called for different nodes at
	 * once: apply then runs each node's operations in a thread of its
	 * own (the live side: each request has its own connection). False:
	 * node after node. */
	bool parallel;
	/* Called once every node was checked, before the first operation
	 * (the intent row). Non-zero aborts the apply before any operation;
	 * err then says why. */
	int (*intent)(void *ctx, const struct apply_result *r, struct err *err);
	/* Optional: after each operation (progress, crash tests); after a
	 * batch, once for each of its operations, in order. With parallel,
	 * calls for different nodes never overlap (apply holds a lock around
	 * each) but interleave in any order. */
	void (
	    *progress)(void *ctx, const char *node, const struct apply_op *op);
};

/* Point io at the live brokers of nodes (live_nodes_init done): read,
 * read_all and exec; intent, progress and hook_ctx stay zero for the
 * caller to set. */
struct live_nodes;
void apply_io_live(struct apply_io *io, struct live_nodes *nodes);

/* Apply plan p. decl is the declaration that was planned: the caller has
 * checked that its digest (decl_cluster_digest) is p->declaration_digest,
 * so what the plan's approval covers is what apply reads: the capture
 * subscriptions and settings, and what the queue-delete preflight takes
 * from a declaration. r has its header set by the caller (ids, times,
 * approver); apply_run fills r->nodes and r->disconnect_consumers (the
 * plan's). Returns 0 when the apply ran (whatever the node outcomes), -1
 * when io->intent refused (no operation ran). */
int apply_run(struct apply_result *r, const struct plan *p,
    const struct decl_cluster *decl, const struct apply_io *io,
    struct err *err);

/* apply_run, resuming `was`, an interrupted apply of the same plan (its
 * intent row, read back with apply_audit_parse; docs/audit.md "Resuming
 * an interrupted apply"). A node for which was lists operations is
 * resumed: the node read now must be as those operations leave it after
 * exactly k of them (a prefix done, by the evidence of the read, the rest
 * not done), else it is REFUSED as stale; the first k are recorded DONE
 * (established resume-read), the rest are checked as any action is and
 * run. A node for which was lists none is checked and run as apply_run
 * does. r->resumes is set to was's apply_id. was NULL is apply_run. */
int apply_run_resume(struct apply_result *r, const struct plan *p,
    const struct decl_cluster *decl, const struct apply_io *io,
    const struct apply_result *was, struct err *err);

/* The capture pass of a drift cycle (ADR-0084 D5; docs/captures.md): for
 * every node of p (a plan of kind "capture" from plan_captures, or
 * any plan: its captures and the captures it removes are used) read the
 * node (all at once, one read each), run plan_capture_pass on it and run
 * its operations, creates read back. r's header is the caller's; r->nodes is
 * filled: SKIPPED (nothing to do), APPLIED, FAILED (the first failed operation
 * stops the node) or UNREACHABLE. io->intent is not called (each node's
 * operations are decided when it is read); io->progress is. apply runs the same
 * pass on each node after the plan's operations (apply_run). Returns 0. */
int apply_capture_pass(struct apply_result *r, const struct plan *p,
    const struct decl_cluster *decl, const struct apply_io *io);

/* The managed set after the apply (docs/state.md): m (the inventory
 * before) plus every object an action really made (its operations DONE,
 * or already as planned, on some node) and, when decl is not NULL (the
 * declaration that was planned and applied), every object of decl apply
 * found on some node; minus every object of a delete action that is gone
 * from every node (deleted there: its operations DONE; or absent when
 * apply read the node). An object a node keeps (an address kept because an
 * unmanaged queue is bound to it, a failed, refused or unreachable
 * delete) stays. The captures
 * become the declared ones, plus every capture the plan removes whose
 * capture pass did not finish on every node (it is removed again by the
 * next plan). */
void apply_update_managed(struct plan_managed *m, const struct plan *p,
    const struct apply_result *r, const struct decl_cluster *decl);
/* How many objects of decl apply_update_managed adds to m because a node
 * held them before apply acted (not because this apply created them):
 * the objects the apply adopts. */
size_t apply_count_adopted(const struct plan_managed *m,
    const struct apply_result *r, const struct decl_cluster *decl);

/* ---- rendering --------------------------------------------------------- */

/* The audit rows: one line of compact canonical JSON without newline,
 * owned by the caller. The intent row lists every operation about to run,
 * with the full configuration of each divert about to be removed; the
 * result row adds every outcome. */
char *apply_audit_render_intent(const struct apply_result *r);
char *apply_audit_render_result(const struct apply_result *r);
/* An audit row (len bytes) read back into *out (owned): its apply_id,
 * plan_digest, cluster, resumes, started_at and, per node, its name and
 * outcome (an intent row's null: APPLIED) and operations (act, action, op
 * and their configurations, outcome and established when the row has
 * them), and *event ("intent", "result"; owned). A capture pass's row
 * (plan_digest null) reads too. Errors name the member: `audit row:
 * nodes[0].node: missing`; *out and *event are written only on success. */
int apply_audit_parse(struct apply_result **out, char **event, const char *row,
    size_t len, struct err *err);

/* result.json (canonical, 2-space indent, trailing newline) and result.md.
 * Owned by the caller. */
char *apply_result_render_json(const struct apply_result *r);
char *apply_result_render_md(const struct apply_result *r);

#endif
