/* reconcile/apply-int.h: shared by the apply files of reconcile/ only. */
#ifndef RECON_APPLY_INT_H
#define RECON_APPLY_INT_H

#include "apply.h"
#include "../plan/plan-int.h"

/* What one plan action becomes on one node against fresh state. */
enum recon_verdict {
	RECON_V_RUN = 0, /* the plan still holds: run its operations */
	RECON_V_NOOP,    /* already as planned: nothing to do */
	RECON_V_STALE,   /* live state changed: refuse the node */
};

/* The plan's effects so far on one node, in plan order: what the queue
 * delete preflight must know about earlier actions (as the planner does). */
struct recon_apply_ctx {
	struct recon_strv created_q, created_q_addr, deleted_q, deleted_d;
	struct recon_planned_diverts planned_d; /* the whole plan's, up front */
};
void recon_apply_ctx_release(struct recon_apply_ctx *c);

/* Check action a (np: its node step in the plan) against n, the node read
 * again. On RECON_V_RUN the operations to run are appended to out->ops;
 * a note for people is appended to out->notes in every case. c is updated
 * with the action's effects. */
enum recon_verdict recon_apply_check(const struct recon_plan *p,
    const struct recon_action *a, const struct recon_node_plan *np,
    const struct recon_node_snapshot *n, struct recon_apply_ctx *c,
    struct recon_node_apply *out);

/* A delete planned as NO_CHANGE on a node (the object was absent): still
 * absent is RECON_V_NOOP (nothing noted); present now is RECON_V_STALE. */
enum recon_verdict recon_apply_check_absent(const struct recon_action *a,
    const struct recon_node_plan *np, const struct recon_node_snapshot *n,
    struct recon_node_apply *out);

/* Verdict helpers of the checks: each appends a note; stale also sets
 * the node's detail (the first stale reason); run appends np's ops. */
enum recon_verdict recon_verdict_stale(struct recon_node_apply *out,
    const struct recon_action *a, const char *why);
enum recon_verdict recon_verdict_noop(struct recon_node_apply *out,
    const struct recon_action *a, const char *why);
enum recon_verdict recon_verdict_run(struct recon_node_apply *out,
    const struct recon_action *a, const struct recon_node_plan *np);
/* Append copies of np's operations for action a. */
void recon_np_add_ops_to(struct recon_node_apply *out,
    const struct recon_action *a, const struct recon_node_plan *np);
/* The first operation of kind k in np, or NULL. */
const struct recon_op *recon_np_find_op(const struct recon_node_plan *np,
    enum recon_opk k);
/* A queue delete and a queue recreate (apply-qdel.c). */
enum recon_verdict recon_apply_check_qdel(const struct recon_plan *p,
    const struct recon_action *a, const struct recon_node_plan *np,
    const struct recon_node_snapshot *n, const struct recon_apply_ctx *c,
    struct recon_node_apply *out);
enum recon_verdict recon_apply_check_requeue(const struct recon_plan *p,
    const struct recon_action *a, const struct recon_node_plan *np,
    const struct recon_node_snapshot *n, const struct recon_apply_ctx *c,
    struct recon_node_apply *out);

/* Append a note (printf-like) to a node result. */
void recon_node_apply_note(struct recon_node_apply *out, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Append a copy of op for action a; returns it. */
struct recon_applied_op *recon_node_apply_add(struct recon_node_apply *out,
    const struct recon_action *a, const struct recon_op *op);
void recon_node_apply_drop_ops(struct recon_node_apply *out);
/* Set outcome, kind (copied; may be NULL) and detail (taken). */
void recon_node_apply_set(struct recon_node_apply *out,
    enum recon_apply_outcome o, const char *kind, char *detail);
/* Read the n nodes names[] into out[0..n) (zeroed by the caller): with
 * io->read_all when there is one (one read per node, all at once), else
 * io->read node by node. */
void recon_apply_read_nodes(const struct recon_apply_io *io,
    const char *const *names, size_t n, struct recon_node_snapshot *out);

enum recon_run {
	RECON_RUN_FAILED = 0, /* an operation or a read back failed: FAILED */
	RECON_RUN_DONE,       /* every operation ran and was read back */
	RECON_RUN_UNVERIFIED, /* (defer only) every operation ran; creates
	                         after the last read back are still to check:
	                         recon_apply_verify_last */
};
/* Run out->ops from index `from` on, in order (apply-run.c). The creates
 * run so far are read back (one read of the node) before the first
 * operation that is not a create, and after the last operation; with
 * defer that last read is left to the caller (RECON_RUN_UNVERIFIED), who
 * can make it together with other nodes' and hand the same snapshot to
 * the capture pass. RECON_RUN_DONE sets the node APPLIED. */
enum recon_run recon_apply_run_ops(const struct recon_apply_io *io,
    struct recon_node_apply *out, size_t from, bool defer);
/* Check every create of out against n, the node read after the last
 * operation (n may carry a failed read): true (node APPLIED) when all are
 * there, false (node FAILED) otherwise. */
bool recon_apply_verify_last(const struct recon_node_snapshot *n,
    struct recon_node_apply *out);
/* The capture pass at apply time on one node (apply-capture.c): run the
 * pass with the plan's captures on n, the node as it is after the plan's
 * operations (the caller read it; it may carry a failed read), append its
 * operations to out (marked with their capture action) and run them (their
 * creates read back: one more read when there are any). Only for a node
 * APPLIED or SKIPPED. -1 when n could not be read (a note says why; nothing
 * ran). */
int recon_apply_capture_node(const struct recon_plan *p,
    const struct recon_apply_io *io, const struct recon_node_snapshot *n,
    struct recon_node_apply *out);
/* True when the capture pass of p cannot have anything to do on any node
 * (no capture prefix, or no capture declared and none removed): apply then
 * neither runs it nor reads a node for it. */
bool recon_apply_capture_idle(const struct recon_plan *p);
void recon_op_copy(struct recon_op *dst, const struct recon_op *src);
void recon_op_clear(struct recon_op *op);

bool recon_queue_same(const struct recon_queue *a, const struct recon_queue *b);
bool recon_divert_same(const struct recon_divert *a,
    const struct recon_divert *b);

#endif
