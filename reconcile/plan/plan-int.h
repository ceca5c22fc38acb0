/* reconcile/plan-int.h: helpers shared by the plan files of reconcile/
 * (not part of the module's interface). */
#ifndef RECON_PLAN_INT_H
#define RECON_PLAN_INT_H

#include "plan.h"

/* A growable array of owned strings. */
struct recon_strv {
	char **v;
	size_t n, cap;
};
void recon_strv_add(struct recon_strv *s, const char *str);
void recon_strv_addf(struct recon_strv *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
bool recon_strv_has(const struct recon_strv *s, const char *str);
void recon_strv_sort(struct recon_strv *s);
void recon_strv_release(struct recon_strv *s);
bool recon_names_has(const char *const *v, size_t n, const char *str);

/* Deep copies and releases of snapshot objects (plans own their copies). */
struct recon_queue *recon_queue_dup(const struct recon_queue *q);
void recon_queue_clear(struct recon_queue *q);
struct recon_divert *recon_divert_dup(const struct recon_divert *d);
void recon_divert_copy(struct recon_divert *dst, const struct recon_divert *d);
void recon_divert_clear(struct recon_divert *d);
/* The configuration a declaration asks for, as snapshot objects. */
void recon_queue_from_decl(struct recon_queue *out, const struct decl_queue *q);
void recon_divert_from_decl(struct recon_divert *out,
    const struct decl_divert *d);

/* Snapshot lookups: recon_node_find_queue/_divert/_address (recon.h),
 * binary searches over the name-sorted snapshot arrays. */

/* Append to a node plan. */
struct recon_op *recon_np_add_op(struct recon_node_plan *np,
    enum recon_opk kind, const char *name);
void recon_np_warn(struct recon_node_plan *np, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void recon_np_refuse(struct recon_node_plan *np, const char *refusal,
    const char *next_step, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* True when s starts with prefix. */
bool recon_has_prefix(const char *s, const char *prefix);
/* "1 queue" / "2 queues". Owned. */
char *recon_count(int64_t n, const char *one, const char *many);

/* The Artemis JSON of a queue (createQueue/updateQueue) and of a divert
 * (createDivert/updateDivert, all keys), as plan.json carries them. */
struct jsonw;
void recon_json_queue_config(struct jsonw *w, const struct recon_queue *q);
void recon_json_divert_config(struct jsonw *w, const struct recon_divert *d);

/* Counts behind the summary line and the confirmation text. */
struct recon_summary {
	size_t creates, changes, recreates;
	size_t del_queues, del_diverts, del_addresses; /* distinct names */
	size_t refused, unreachable;                   /* node steps */
};
void recon_plan_summary(const struct recon_plan *p, struct recon_summary *s);
/* "create 2, delete 1 queue, 2 diverts" ("no changes" when empty). Owned. */
char *recon_summary_phrase(const struct recon_summary *s);

/* The diff's working state (reconcile/diff*.c). */
/* The diverts a plan creates or changes on one node, as it leaves them
 * (pointers into the plan's operations; a later one replaces an earlier
 * one of the same name). */
struct recon_planned_diverts {
	const struct recon_divert **v;
	size_t n;
};
void recon_planned_diverts_add(struct recon_planned_diverts *pd,
    const struct recon_divert *d);
/* Record the createDivert/updateDivert operations of np. */
void recon_planned_diverts_add_ops(struct recon_planned_diverts *pd,
    const struct recon_node_plan *np);
void recon_planned_diverts_release(struct recon_planned_diverts *pd);

struct recon_node_ctx {
	struct recon_strv created_q,
	    created_q_addr;                     /* created before deletes */
	struct recon_strv deleted_q, deleted_d; /* removed so far, in order */
	struct recon_planned_diverts planned_d; /* created/changed diverts */
};

struct recon_diff {
	const struct decl_cluster *decl;
	const struct recon_managed *managed;
	const struct recon_plan_opts *opts;
	const struct recon_node_snapshot **nodes; /* per declared node; NULL */
	struct recon_node_ctx *ctx;               /* per declared node */
	struct recon_plan *plan;
	struct recon_action *obj[RECON_ACT_COUNT]; /* the current object's */
	/* Captures the managed set holds and the declaration no longer does
	 * (recon_diff_removed_captures fills it). */
	struct recon_strv removed_captures;
};

/* Start the actions of one object, get (or add) the one of kind k, and
 * finish them: emitted when a node would change, is refused or warns. */
void recon_diff_obj_begin(struct recon_diff *d);
struct recon_node_plan *recon_diff_node(struct recon_diff *d, enum recon_act k,
    const char *name, const char *address, size_t node);
void recon_diff_obj_end(struct recon_diff *d);
/* The preflight context of node i (pointers into d->ctx[i]). */
void recon_diff_qdel_ctx(struct recon_qdel_ctx *out, const struct recon_diff *d,
    size_t i);
/* Node i was read. */
bool recon_diff_reachable(const struct recon_diff *d, size_t i);
/* Equal strings, NULL and "" being the same (no filter). */
bool recon_str_eq(const char *a, const char *b);
/* The actions of one declared divert (reconcile/diff-divert.c). */
void recon_diff_divert(struct recon_diff *d, const struct decl_divert *dd);
/* The removal half of the diff (reconcile/diff-delete.c). */
void recon_diff_deletes(struct recon_diff *d);
void recon_diff_unmanaged(struct recon_diff *d);
/* The capture pass over every reachable node, against the state the
 * plan's other actions leave (reconcile/capture-plan.c). */
void recon_diff_captures(struct recon_diff *d);
void recon_diff_removed_captures(struct recon_diff *d);
/* D7 and the plan's outcome (reconcile/diff-delete.c). */
void recon_diff_finish(struct recon_diff *d);

/* plan-broker.c: the broker_xml section. */
struct sbuf;
void recon_broker_xml_set_settings(struct recon_broker_xml *bx, const char *a,
    const char *q, const char *d);
void recon_broker_xml_release(struct recon_broker_xml *bx);
void recon_plan_broker_md(struct sbuf *b, const struct recon_plan *p);
/* plan-broker-json.c */
void recon_plan_broker_json(struct jsonw *w, const struct recon_plan *p);

#endif
