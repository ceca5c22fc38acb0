/* reconcile/plan-int.h: helpers shared by the plan files of reconcile/
 * (not part of the module's interface). */
#ifndef RECON_PLAN_INT_H
#define RECON_PLAN_INT_H

#include "../../lib/strv.h"
#include "../live/live.h"
#include "plan.h"

/* Append to a node plan. */
struct recon_op *plan_step_add_op(struct plan_step *np,
    enum recon_op_kind kind, const char *name);
void plan_step_warn(struct plan_step *np, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void plan_step_refuse(struct plan_step *np, const char *refusal,
    const char *next_step, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* True when s starts with prefix. */
bool plan_has_prefix(const char *s, const char *prefix);
/* "1 queue" / "2 queues". Owned. */
char *plan_count(int64_t n, const char *one, const char *many);

/* Counts behind the summary line and the confirmation text. */
struct plan_summary {
	size_t creates, changes, recreates;
	size_t del_queues, del_diverts, del_addresses; /* distinct names */
	size_t refused, unreachable;                   /* node steps */
};
void plan_summarize(const struct plan *p, struct plan_summary *s);
/* "create 2, delete 1 queue, 2 diverts" ("no changes" when empty). Owned. */
char *plan_summary_phrase(const struct plan_summary *s);

/* The diff's working state (reconcile/diff*.c). */
/* The diverts a plan creates or changes on one node, as it leaves them
 * (pointers into the plan's operations; a later one replaces an earlier
 * one of the same name). */
struct plan_planned_diverts {
	const struct recon_divert **v;
	size_t n;
};
void plan_planned_diverts_add(struct plan_planned_diverts *pd,
    const struct recon_divert *d);
/* Record the createDivert/updateDivert operations of np. */
void plan_planned_diverts_add_ops(struct plan_planned_diverts *pd,
    const struct plan_step *np);
void plan_planned_diverts_release(struct plan_planned_diverts *pd);

struct plan_node_ctx {
	struct strv created_q,
	    created_q_addr;                     /* created before deletes */
	struct strv deleted_q, deleted_d; /* removed so far, in order */
	struct plan_planned_diverts planned_d; /* created/changed diverts */
};

struct plan_diff {
	const struct decl_cluster *decl;
	const struct plan_managed *managed;
	const struct plan_opts *opts;
	const struct recon_node_snapshot **nodes; /* per declared node; NULL */
	struct plan_node_ctx *ctx;               /* per declared node */
	struct plan *plan;
	struct plan_action *obj[PLAN_ACT_COUNT]; /* the current object's */
	/* Captures the managed set holds and the declaration no longer does
	 * (plan_diff_removed_captures fills it). */
	struct strv removed_captures;
};

/* Start the actions of one object, get (or add) the one of kind k, and
 * finish them: emitted when a node would change, is refused or warns. */
void plan_diff_object_begin(struct plan_diff *d);
struct plan_step *plan_diff_step(struct plan_diff *d, enum plan_action_kind k,
    const char *name, const char *address, size_t node);
void plan_diff_object_end(struct plan_diff *d);
/* The preflight context of node i (pointers into d->ctx[i]). */
void plan_diff_queue_delete_ctx(struct plan_queue_delete_ctx *out, const struct plan_diff *d,
    size_t i);
/* Node i was read. */
bool plan_diff_reachable(const struct plan_diff *d, size_t i);
/* The actions of one declared divert (reconcile/diff-divert.c). */
void plan_diff_divert(struct plan_diff *d, const struct decl_divert *dd);
/* The removal half of the diff (reconcile/diff-delete.c). */
void plan_diff_deletes(struct plan_diff *d);
void plan_diff_unmanaged(struct plan_diff *d);
/* The capture pass over every reachable node, against the state the
 * plan's other actions leave (reconcile/capture-plan.c). */
void plan_diff_captures(struct plan_diff *d);
void plan_diff_removed_captures(struct plan_diff *d);
/* D7 and the plan's outcome (reconcile/diff-delete.c). */
void plan_diff_finish(struct plan_diff *d);

/* plan-broker.c: the broker_xml section. */
struct sbuf;
void plan_broker_xml_set_settings(struct plan_broker_xml *bx, const char *a,
    const char *q, const char *d);
void plan_broker_xml_release(struct plan_broker_xml *bx);
void plan_broker_xml_md(struct sbuf *b, const struct plan *p);
/* plan-broker-json.c */
void plan_broker_xml_json(struct jsonw *w, const struct plan *p);

#endif
