/* reconcile/apply/apply-int.h: shared by the files of reconcile/apply/ only
 * (and the unit tests), grouped by the file that implements them, lowest
 * first. */
#ifndef RECONCILE_APPLY_APPLY_INT_H
#define RECONCILE_APPLY_APPLY_INT_H

#include "../../lib/strv.h"
#include "../live/live.h"
#include "apply.h"

/* ---- result.c: building a node's result; the verdicts of the checks ---- */

/* What one plan action becomes on one node against fresh state. */
enum apply_verdict {
	APPLY_VERDICT_RUN = 0, /* the plan still holds: run its operations */
	APPLY_VERDICT_NOOP,    /* already as planned: nothing to do */
	APPLY_VERDICT_STALE,   /* live state changed: refuse the node */
};

/* Append a note (printf-like) to a node result. */
void apply_node_note(struct apply_node *out, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Append a copy of op for action a; returns it. */
struct apply_op *apply_node_add_op(struct apply_node *out,
    const struct plan_action *a, const struct recon_op *op);
/* Append copies of np's operations for action a. */
void apply_node_add_step_ops(struct apply_node *out,
    const struct plan_action *a, const struct plan_step *np);
void apply_node_drop_ops(struct apply_node *out);
/* Set outcome, kind (copied; may be NULL) and detail (taken). */
void apply_node_set(struct apply_node *out, enum apply_outcome o,
    const char *kind, char *detail);
/* Note that action a was checked and runs as planned; _with says more
 * first ("X 'a': what: as planned"). */
void apply_node_note_run(struct apply_node *out, const struct plan_action *a);
void apply_node_note_run_with(struct apply_node *out,
    const struct plan_action *a, const char *what);
/* Refuse the node before anything ran on it: its operations dropped, the
 * notes of the actions that were to run say "not run: " not_run instead,
 * outcome REFUSED with kind (copied) and detail (taken). */
void apply_node_refuse(struct apply_node *out, const char *kind, char *detail,
    const char *not_run);
/* Each appends a note; stale also sets the node's detail (the first
 * stale reason); run appends np's operations. */
enum apply_verdict apply_verdict_stale(struct apply_node *out,
    const struct plan_action *a, const char *why);
enum apply_verdict apply_verdict_noop(struct apply_node *out,
    const struct plan_action *a, const char *why);
enum apply_verdict apply_verdict_run(struct apply_node *out,
    const struct plan_action *a, const struct plan_step *np);

/* ---- evidence.c: what a node read shows of one operation -------------- */

enum apply_seen {
	APPLY_SEEN_AFTER,  /* its object is as the operation leaves it: done */
	APPLY_SEEN_BEFORE, /* as the operation finds it: not done */
	APPLY_SEEN_OTHER,  /* neither (another configuration, or missing) */
};
/* What n (a node read) shows of op: a destroy is done when its object is
 * gone, and not done when it is still there (a divert: with the
 * configuration op records); a create is done when its object is there
 * with op's configuration, not done when it is absent; an update is done
 * when the object has op's configuration, not done when it has another. */
enum apply_seen apply_op_seen(const struct recon_op *op,
    const struct recon_node_snapshot *n);
/* "the queue is gone", ...: what s says of op's object, for people. */
char *apply_seen_text(const struct recon_op *op, enum apply_seen s);

/* ---- node-check.c: does each action still hold on the node read now? -- */

/* The plan's effects so far on one node, in plan order: what the queue
 * delete preflight must know about earlier actions (as the planner does),
 * and the declaration that was planned. */
struct apply_ctx {
	const struct decl_cluster *decl;
	struct strv created_q, created_q_addr, deleted_q, deleted_d;
	struct plan_planned_diverts planned_d; /* the whole plan's, up front */
};
/* The context of node `node` before the plan's first action: decl and
 * every divert as the whole plan leaves it. */
void apply_ctx_init(struct apply_ctx *c, const struct plan *p,
    const struct decl_cluster *decl, const char *node);
/* Record action a's effects on the node (np: its step), as apply_check
 * does after checking it. */
void apply_ctx_record(struct apply_ctx *c, const struct plan_action *a,
    const struct plan_step *np);
void apply_ctx_release(struct apply_ctx *c);
/* Action a's step on node, or NULL. */
const struct plan_step *apply_node_step(const struct plan_action *a,
    const char *node);

/* Check action a (np: its node step in the plan) against n, the node read
 * again. On APPLY_VERDICT_RUN the operations to run are appended to
 * out->ops; a note for people is appended to out->notes in every case. c
 * is updated with the action's effects. */
enum apply_verdict apply_check(const struct plan *p,
    const struct plan_action *a, const struct plan_step *np,
    const struct recon_node_snapshot *n, struct apply_ctx *c,
    struct apply_node *out);
/* A delete planned as NO_CHANGE on a node (the object was absent): still
 * absent is APPLY_VERDICT_NOOP (nothing noted); present now is
 * APPLY_VERDICT_STALE. */
enum apply_verdict apply_check_absent(const struct plan_action *a,
    const struct plan_step *np, const struct recon_node_snapshot *n,
    struct apply_node *out);

/* ---- queue-delete.c: a queue delete and a queue recreate ----------------
 * The planner's preflight (ADR-0084 D1-D6) run again on the node read now,
 * compared with what the plan recorded. */

enum apply_verdict apply_check_queue_delete(const struct plan *p,
    const struct plan_action *a, const struct plan_step *np,
    const struct recon_node_snapshot *n, const struct apply_ctx *c,
    struct apply_node *out);
enum apply_verdict apply_check_queue_recreate(const struct plan *p,
    const struct plan_action *a, const struct plan_step *np,
    const struct recon_node_snapshot *n, const struct apply_ctx *c,
    struct apply_node *out);
/* Resuming a queue delete or recreate that an interrupted apply began (it
 * removed some of the dependent diverts): rest[0..nrest) are the action's
 * operations still to run, the queue's destroy among them. The preflight
 * run again must find the queue deletable as planned (no more consumers
 * than planned) and the dependent diverts still to remove exactly those
 * of rest; then the operations appended to out are its (with the live
 * configuration of each divert) and, for a recreate, the create after. A
 * note (why) says what the interrupted apply did. */
enum apply_verdict apply_check_queue_delete_rest(const struct plan *p,
    const struct plan_action *a, const struct plan_step *np,
    const struct recon_node_snapshot *n, const struct apply_ctx *c,
    const struct apply_op *rest, size_t nrest, const char *why,
    struct apply_node *out);

/* ---- resume.c: resuming an interrupted apply ---------------------------- */

/* The one k in [0, nops] such that n (a node read) is as ops[0..nops) leave
 * it after exactly their first k: every object they act on as the last of
 * the first k acting on it leaves it (apply_op_seen: done), or, when none
 * of the first k acts on it, as the first operation on it finds it (not
 * done). (size_t)-1 when there is no such k, or more than one. */
size_t apply_resume_prefix(const struct apply_op *ops, size_t nops,
    const struct recon_node_snapshot *n);
/* Decide node out (its name set) against n, read now, and was, the node's
 * entry in the interrupted apply's intent row (was_id), which lists
 * operations: see apply_run_resume. On success out->ops holds every
 * operation of the plan on the node in order, the first out->done_before
 * DONE; otherwise out is REFUSED (stale) or UNREACHABLE, its operations
 * listed with what is known of them (DONE, UNKNOWN, NOT_RUN). */
void apply_resume_check(const struct plan *p, const struct decl_cluster *decl,
    const struct recon_node_snapshot *n, const struct apply_node *was,
    const char *was_id, struct apply_node *out);

/* ---- operations.c: running a node's operations, reading creates back -- */

/* Read the n nodes names[] into out[0..n) (zeroed by the caller): with
 * io->read_all when there is one (one read per node, all at once), else
 * io->read node by node. */
void apply_read_nodes(const struct apply_io *io, const char *const *names,
    size_t n, struct recon_node_snapshot *out);

enum apply_ops_result {
	APPLY_OPS_FAILED = 0, /* an operation or a read back failed: FAILED */
	APPLY_OPS_DONE,       /* every operation ran and was read back */
	APPLY_OPS_UNVERIFIED, /* (defer only) every operation ran; creates
	                         after the last read back are still to check:
	                         apply_verify_creates */
};
/* The end (exclusive) of the request that starts with ops[from] when
 * operations are batched (io->exec_batch): the longest run from `from`
 * of operations of one batchable class (address creates and changes,
 * queue creates and changes, divert creates and changes), at most max
 * (0: APPLY_BATCH_MAX), no two on the same object; from + 1 for any other
 * operation (a destroy or a delete goes alone). operations.c says why
 * such operations are independent. */
size_t apply_batch_end(const struct apply_op *ops, size_t nops, size_t from,
    size_t max);
/* Run out->ops from index `from` on, in order: one request each, or, with
 * io->exec_batch, the runs apply_batch_end gives in one request each. The
 * first failed operation stops the node (the later ones of its request
 * ran and keep their outcomes). The creates run so far are
 * read back (one read of the node) before the first operation that is not
 * a create, and after the last operation; with defer that last read is
 * left to the caller (APPLY_OPS_UNVERIFIED), who can make it together with
 * other nodes' and hand the same snapshot to the capture pass.
 * APPLY_OPS_DONE sets the node APPLIED. */
enum apply_ops_result apply_run_ops(const struct apply_io *io,
    struct apply_node *out, size_t from, bool defer);
/* Check every create of out against n, the node read after the last
 * operation (n may carry a failed read): true (node APPLIED) when all are
 * there, false (node FAILED) otherwise. */
bool apply_verify_creates(const struct recon_node_snapshot *n,
    struct apply_node *out);

/* ---- capture-run.c: the capture pass at apply time ------------------------
 */

/* Run the pass with decl's captures on n, the node as it is after the
 * plan's operations (the caller read it; it may carry a failed read),
 * append its operations to out (marked with their capture action) and run
 * them (their creates read back: one more read when there are any). Only
 * for a node APPLIED or SKIPPED. -1 when n could not be read (a note says
 * why; nothing ran). */
int apply_capture_node(const struct plan *p, const struct decl_cluster *decl,
    const struct apply_io *io, const struct recon_node_snapshot *n,
    struct apply_node *out);
/* True when the capture pass cannot have anything to do on any node (no
 * capture prefix, or no capture declared and none removed): apply then
 * neither runs it nor reads a node for it. */
bool apply_capture_idle(const struct plan *p, const struct decl_cluster *decl);

#endif
