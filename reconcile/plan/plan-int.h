/* reconcile/plan/plan-int.h: shared by the files of reconcile/plan/ only
 * (and the unit tests), grouped by the file that implements them. */
#ifndef RECONCILE_PLAN_PLAN_INT_H
#define RECONCILE_PLAN_PLAN_INT_H

#include "../../lib/strv.h"
#include "../live/live.h"
#include "plan.h"

struct json;
struct json_reader;
struct jsonw;
struct sbuf;

/* ---- plan.c: the model ------------------------------------------------- */

/* Append to a node step. */
struct recon_op *plan_step_add_op(struct plan_step *np, enum recon_op_kind kind,
    const char *name);
void plan_step_warn(struct plan_step *np, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void plan_step_refuse(struct plan_step *np, const char *refusal,
    const char *next_step, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* True when s starts with prefix (never for an empty prefix). */
bool plan_has_prefix(const char *s, const char *prefix);
void plan_broker_xml_set_settings(struct plan_broker_xml *bx, const char *a,
    const char *q, const char *d);
void plan_broker_xml_release(struct plan_broker_xml *bx);

/* ---- plan-comment-out.c: the texts around pull-request comments ------- */

/* A fenced code block's fence: its character, length and indentation. */
struct plan_md_fence {
	char c;
	size_t n, indent;
};
/* The fence the line s (len bytes) opens or may close (``` or ~~~, at
 * least three, after spaces): its length, 0 when none (*f untouched). */
size_t plan_comment_fence(const char *s, size_t len, struct plan_md_fence *f);
/* Does the line close the open fence f: its character at least as often,
 * then blanks only (CommonMark)? */
bool plan_comment_fence_closes(const char *s, size_t len,
    const struct plan_md_fence *f);
/* Bytes a body's frame (marker and part line) can take, at most. */
size_t plan_comment_reserve(const struct plan_comment_opts *o);
/* The marker line of body i of n, and "Part i of n" when n > 1. Owned. */
char *plan_comment_frame(const struct plan_comment_opts *o, size_t i, size_t n);
/* The marker's first fields, up to the part: plan_comments.marker_prefix.
 */
char *plan_comment_marker_prefix(const struct plan_comment_opts *o);
/* The len bytes at s cut to at most room bytes: whole lines (one line
 * longer than room at a UTF-8 boundary), a fence left open closed, and a
 * note that points at the full plan.md. Owned. */
char *plan_comment_cut(const char *s, size_t len, size_t room,
    const struct plan_comment_opts *o);
/* A heading line (len bytes, its '\n' included) again at the top of body
 * part + 1: "... (continued from part N)"; a line too long for cap / 8
 * is left out for a short note. Owned. */
char *plan_comment_continued(const char *heading, size_t len, size_t part,
    size_t cap);
/* The note of a plan that needs more bodies than max_comments, with the
 * action counts. Owned. */
char *plan_comment_too_large(size_t needed, const char *counts,
    const struct plan_comment_opts *o);

/* ---- plan-comment-md.c: plan.md as lines, for the comment splitter ---- */

struct plan_md_line {
	size_t off, len; /* the line with its '\n' */
	bool item;       /* a break inside a section may come before it */
	int heading;     /* 1-6 outside fences, else 0 */
	bool action;     /* "### N. ..." */
};

struct plan_md {
	const char *text; /* borrowed */
	struct plan_md_line *lines;
	size_t n;
};

/* text's lines into *d (release it). */
void plan_comment_md_parse(struct plan_md *d, const char *text);
void plan_comment_md_release(struct plan_md *d);
/* Bytes of lines [a, b). */
size_t plan_comment_md_span(const struct plan_md *d, size_t a, size_t b);
/* The head (through the Nodes table and the HA members) ends before line
 * *head_end, the tail ("## Approve" to the end) starts at *tail. */
void plan_comment_md_bounds(const struct plan_md *d, size_t *head_end,
    size_t *tail);
/* The end of the unit that starts at line i (< end): a section, a level-2
 * section with the one after it, so that a part's heading never ends a
 * body. */
size_t plan_comment_md_unit_end(const struct plan_md *d, size_t i, size_t end);
/* The end of the chunk that starts at i inside a unit ending at end: the
 * next break at a node item, a level-4 heading, a fence or a paragraph at
 * the margin, after the first line that is no heading. */
size_t plan_comment_md_chunk_end(const struct plan_md *d, size_t i, size_t end);
/* Heading line i's text without its #s, owned. */
char *plan_comment_md_heading(const struct plan_md *d, size_t i);
/* "plan.md shows 3 actions: 2 create-queue, 1 delete-queue.", then the
 * headings of the actions that destroy messages (the first 20, as many as
 * keep the text near max bytes; "and N more"). Owned. */
char *plan_comment_md_counts(const struct plan_md *d, size_t max);

/* ---- summary.c: counts behind the summary line and the confirmation ---- */

struct plan_summary {
	size_t creates, changes, recreates;
	size_t del_queues, del_diverts, del_addresses; /* distinct names */
	size_t refused, unreachable;                   /* node steps */
};
void plan_summarize(const struct plan *p, struct plan_summary *s);
/* "create 2, delete 1 queue, 2 diverts" ("no changes" when empty). Owned. */
char *plan_summary_phrase(const struct plan_summary *s);

/* ---- preflight-empty.c: delete-if-empty ------------------------------- */

/* Sort names[0..n) with texts[] alongside (pairs of a table). */
void plan_delete_if_empty_sort(char **names, char **texts, size_t n);
/* The queue-delete preflight's check: q holds messages and
 * ctx->delete_if_empty is set: np is refused HAS_MESSAGES with the count
 * and the clause (true); else nothing (false). */
bool plan_preflight_delete_if_empty(struct plan_step *np,
    const struct recon_queue *q, const struct plan_queue_delete_ctx *ctx);

/* ---- diff-state.c: the diff's working state ---------------------------- */

struct plan_node_ctx {
	struct strv created_q, created_q_addr; /* created before deletes */
	struct strv deleted_q, deleted_d;      /* removed so far, in order */
	struct plan_planned_diverts planned_d; /* created/changed diverts */
};

struct plan_diff {
	const struct decl_cluster *decl;
	const struct plan_managed *managed;
	const struct plan_opts *opts;
	const struct recon_node_snapshot **nodes; /* per declared node; NULL */
	struct plan_node_ctx *ctx;                /* per declared node */
	struct plan *plan;
	struct plan_action *obj[PLAN_ACT_COUNT]; /* the current object's */
	/* Captures the managed set holds and the declaration no longer does
	 * (plan_diff_removed_captures fills it). */
	struct strv removed_captures;
	/* policy.c: queues and diverts the plan forgets (retained), whose
	 * addresses stay with them */
	struct strv forgotten_q, forgotten_d;
};

/* Start the actions of one object, get (or add) the one of kind k, and
 * finish them: emitted when a node would change, is refused or warns. */
void plan_diff_object_begin(struct plan_diff *d);
struct plan_step *plan_diff_step(struct plan_diff *d, enum plan_action_kind k,
    const char *name, const char *address, size_t node);
void plan_diff_object_end(struct plan_diff *d);
/* The preflight context of node i (pointers into d->ctx[i]). */
void plan_diff_queue_delete_ctx(struct plan_queue_delete_ctx *out,
    const struct plan_diff *d, size_t i);
/* Node i was read. */
bool plan_diff_reachable(const struct plan_diff *d, size_t i);
/* The current object's action of kind k (when it has one) runs under
 * delete-if-empty clause die (copied; NULL: it does not). */
void plan_diff_set_delete_if_empty(struct plan_diff *d, enum plan_action_kind k,
    const char *die);

/* ---- policy.c: per-object policy (docs/policy.md) ---------------------- */

/* The plan's protect patterns (the declaration's with the managed set's)
 * and retained diverts; before any preflight. */
void plan_diff_policy_init(struct plan_diff *d);
/* Is the declared object (kind "queue", "address", "divert") one the
 * agent leaves alone: declared with managed: false? */
bool plan_decl_unmanaged(const struct decl_cluster *c, const char *kind,
    const char *name);
/* The managed object (kind, name), removed from the declaration or now
 * declared with managed: false: true, recorded as forgotten, when it is
 * not to be deleted (retained, unmanaged, or an address a forgotten queue
 * or divert stays bound to); false when the diff deletes it. */
bool plan_diff_forgets(struct plan_diff *d, const char *kind, const char *name);
/* Every object a delete of the plan would destroy that a protect pattern
 * covers, in p->protected_hits; after the diff, before plan_diff_finish. */
void plan_diff_protect(struct plan_diff *d);
/* Refuse p as a whole for its protected_hits (PROTECTED); false when it
 * has none. */
bool plan_refuse_protected(struct plan *p);
/* A declared-unmanaged live object (kind, name) seen on node. */
void plan_note_declared_unmanaged(struct plan *p, const char *kind,
    const char *name, const char *node);
/* The D1 check of docs/policy.md on a divert about to be removed with a
 * queue (preflight.c): refuses np and returns true when it must stay. */
bool plan_policy_keeps_dependent(struct plan_step *np,
    const struct recon_divert *dv, const char *queue,
    const struct plan_queue_delete_ctx *ctx);

/* ---- policy-change.c: what an apply changes of the recorded policy ---- */

/* Fill p->policy_changes: the policy the managed set m records (the
 * inventory, or a base) against the one an apply of decl records there
 * (plan_managed_set_policy, and delete-if-empty per managed queue decl
 * declares). Only objects m manages count: a new object's policy comes
 * with its create or adopt. Nothing when m is not known. */
void plan_policy_changes_find(struct plan *p, const struct decl_cluster *decl,
    const struct plan_managed *m);

/* ---- policy-json.c: plan.json's `policy` ------------------------------- */

/* Has p anything of docs/policy.md to show? */
bool plan_has_policy(const struct plan *p);
/* The member, when plan_has_policy; else nothing. */
void plan_policy_json(struct jsonw *w, const struct plan *p);
/* The optional member of plan.json's root (absent: none). */
int plan_policy_parse(struct json_reader *c, const struct json *root,
    struct plan *p);
/* Free what p holds of it (plan_free). */
void plan_policy_release(struct plan *p);

/* ---- diff-divert.c: the actions of one declared divert ----------------- */

void plan_diff_divert(struct plan_diff *d, const struct decl_divert *dd);

/* ---- diff-delete.c: the removal half, D7 and the plan's outcome -------- */

void plan_diff_deletes(struct plan_diff *d);
void plan_diff_unmanaged(struct plan_diff *d);
void plan_diff_finish(struct plan_diff *d);
/* versions.c: each node's release in its steps (the 2.31 divert
 * caveat); before plan_diff_finish. */
void plan_diff_versions(struct plan_diff *d);
/* np on a node that was not read (n NULL: not in the snapshot):
 * UNREACHABLE with the read's kind and text; REFUSED, with the floor as
 * its next step, for a release the agent does not manage, and with what
 * to do for a split brain or a false pair (ha.c); PASSIVE for a passive
 * broker. */
void plan_step_not_read(struct plan_step *np,
    const struct recon_node_snapshot *n);

/* ---- ha.c: HA nodes (docs/ha-pairs.md) ------------------------------ */

/* ns's member and members from an HA node's read n (nothing for a node
 * without members). */
void plan_node_members(struct plan_node_status *ns,
    const struct recon_node_snapshot *n);
/* What to do about a node refused SPLIT_BRAIN or NOT_A_PAIR; NULL for any
 * other kind. */
const char *plan_ha_next_step(enum recon_kind kind);

/* ---- capture-diff.c: the capture pass over every reachable node, against
 * the state the plan's other actions leave ------------------------------ */

void plan_diff_captures(struct plan_diff *d);
void plan_diff_removed_captures(struct plan_diff *d);

/* ---- capture-steps.c: the steps of the capture pass -------------------- */

/* A queue of the node as the plan leaves it. */
struct plan_capture_queue {
	const char *name;
	const char *address;
	bool internal;
};

/* The pass on one node (capture.c). */
struct plan_capture_node {
	const struct recon_node_snapshot *n;
	const struct plan_capture_ctx *ctx;
	struct plan_capture_queue *q;
	size_t nq;
	struct plan_capture_steps *out;
};

/* Append a step (outcome WOULD_APPLY) for node c->n; returns its step. */
struct plan_step *plan_capture_add_step(struct plan_capture_node *c,
    enum plan_action_kind kind, const char *name, const char *address);
/* D6 for a ring queue about to be destroyed: refuse np when q has
 * consumers and flag is false, else warn. */
void plan_capture_ring_consumers(struct plan_step *np,
    const struct recon_queue *q, bool flag);
/* A delete-tap step for the live tap d, why as its message. */
void plan_capture_tap_remove(struct plan_capture_node *c,
    const struct recon_divert *d, const char *why);
/* A capture applied before and no longer declared: every tap of it, its
 * ring queue and its capture address. */
void plan_capture_removed(struct plan_capture_node *c, const char *name);

/* ---- plan-mermaid.c: the blast-radius graphs in plan.md ---------------- */

/* Per graph of a (plan_graphs_build): a line naming its nodes and its
 * ```mermaid block; nothing for an action that is not a queue delete. */
void plan_graph_md(struct sbuf *b, const struct plan_action *a);

/* ---- broker-xml.c, broker-xml-json.c: the broker_xml section ----------- */

void plan_broker_xml_md(struct sbuf *b, const struct plan *p);
void plan_broker_xml_json(struct jsonw *w, const struct plan *p);
/* The optional broker_xml member of plan.json's root (absent: none). */
int plan_broker_xml_parse(struct json_reader *c, const struct json *root,
    struct plan *p);

#endif
