/* reconcile/plan/plan.h: the managed set (inventory), the three-way diff, the
 * ADR-0084 queue-delete preflight, and the plan with its preview files.
 *
 * Everything here is pure: declarations, the managed set and snapshots in,
 * a plan out. The network is the Jolokia client's; git is agent/'s. The
 * plan owns every string it holds (copies), so the inputs may be freed once
 * a plan is built.
 *
 * plan.json is documented in docs/plan-format.md, the inventory in
 * docs/state.md.
 */
#ifndef RECONCILE_PLAN_PLAN_H
#define RECONCILE_PLAN_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../declarations/decl.h"
#include "../../lib/err.h"
#include "../recon.h"

#define PLAN_FORMAT           2     /* `format` of plan.json */
#define PLAN_FORMAT_S         "2"   /* the same, for messages */
#define PLAN_INVENTORY_FORMAT 1     /* `format` of inventory.json */
#define PLAN_MD_MAX           60000 /* plan.md is truncated past this */
#define PLAN_CONFIRM_HEX      12    /* digest characters in the text */

/* ---- the managed set ---------------------------------------------------
 * What the agent declared before: read from STATE/<cluster>/inventory.json
 * (written by apply) or derived from a base declaration. Name arrays are
 * sorted and owned. `known` is false when there is no inventory yet: then
 * nothing is deleted. */
struct plan_managed {
	bool known;
	char *source;   /* "inventory", "base", "none" */
	char *revision; /* the applied or base revision; NULL when unknown */
	char **addresses;
	size_t naddresses;
	char **queues;
	size_t nqueues;
	char **diverts;
	size_t ndiverts;
	char **captures;
	size_t ncaptures;
	/* The policy in force (docs/policy.md), read from the last applied
	 * declaration since a removed object's own is gone from the new one:
	 * names never to destroy (declared with deletion-policy: retain, or
	 * forgotten by it and not declared since), and settings.protect.
	 * Sorted, owned; in inventory.json only when set. */
	char **retain_addresses;
	size_t nretain_addresses;
	char **retain_queues;
	size_t nretain_queues;
	char **retain_diverts;
	size_t nretain_diverts;
	char **protect;
	size_t nprotect;
	/* delete-if-empty of the declaration last applied (or the base):
	 * the managed queues it protects, sorted, each with the clause that
	 * says where it is set ("delete-if-empty is set (c/a.yaml:14:7)");
	 * inventory.json's `delete_if_empty` (docs/policy.md). */
	char **die_queues;
	char **die_texts;
	size_t ndie;
};

/* The managed set of a declaration (a base, or what apply just applied):
 * every object but those declared with managed: false, and its policy. */
void plan_managed_from_decl(struct plan_managed *out,
    const struct decl_cluster *c, const char *source, const char *revision);
/* m's retain and protect from the declaration c just applied: its
 * patterns; the names it retains, with those retained before that c does
 * not declare (policy.c). */
void plan_managed_set_policy(struct plan_managed *m,
    const struct decl_cluster *c);
bool plan_managed_has_address(const struct plan_managed *m, const char *n);
bool plan_managed_has_queue(const struct plan_managed *m, const char *n);
bool plan_managed_has_divert(const struct plan_managed *m, const char *n);
void plan_managed_release(struct plan_managed *m);

/* inventory.json: render (canonical, owned by the caller) and parse. Parse
 * errors name path and the JSON member (a syntax error its line and
 * column); a cluster other than `cluster` is an error. */
char *plan_inventory_render(const struct plan_managed *m, const char *cluster);
int plan_inventory_parse(struct plan_managed *out, const char *path,
    const char *text, size_t len, const char *cluster, struct err *err);

/* ---- plan model -------------------------------------------------------- */

/* Action kinds, in plan order (phase). */
enum plan_action_kind {
	PLAN_ACT_CREATE_ADDRESS = 0,
	PLAN_ACT_WIDEN_ADDRESS, /* add routing types before queue creates */
	PLAN_ACT_CREATE_QUEUE,
	PLAN_ACT_CREATE_DIVERT,
	PLAN_ACT_CHANGE_QUEUE,
	PLAN_ACT_CHANGE_DIVERT,
	PLAN_ACT_RECREATE_QUEUE,
	PLAN_ACT_RECREATE_DIVERT,
	PLAN_ACT_DELETE_DIVERT,
	PLAN_ACT_DELETE_QUEUE,
	PLAN_ACT_NARROW_ADDRESS, /* drop routing types after the deletes */
	PLAN_ACT_DELETE_ADDRESS,
	/* The capture pass (capture.c), after every other action:
	 * it sees the state the plan leaves. */
	PLAN_ACT_CREATE_CAPTURE, /* a capture's address and ring queue */
	PLAN_ACT_CHANGE_CAPTURE, /* the ring queue differs (ring size, ...) */
	PLAN_ACT_CREATE_TAP,
	PLAN_ACT_CHANGE_TAP, /* a tap differs: destroyed and created again */
	PLAN_ACT_DELETE_TAP,
	PLAN_ACT_DELETE_CAPTURE, /* a capture no longer declared */
	PLAN_ACT_COUNT,
};
#define PLAN_ACT_FIRST_CAPTURE PLAN_ACT_CREATE_CAPTURE
const char *plan_action_kind_name(
    enum plan_action_kind a); /* "create-queue", ... */
int plan_action_kind_parse(const char *s, enum plan_action_kind *out);

enum plan_outcome {
	PLAN_OUT_NO_CHANGE = 0,
	PLAN_OUT_WOULD_APPLY,
	PLAN_OUT_REFUSED,
	PLAN_OUT_UNREACHABLE,
	/* the node is a passive broker (docs/ha-pairs.md): never an
	 * operation, never drift */
	PLAN_OUT_PASSIVE,
};
const char *plan_outcome_name(enum plan_outcome o); /* "WOULD_APPLY" */
int plan_outcome_parse(const char *s, enum plan_outcome *out);

/* A divert removed with a queue (ADR-0084 D1, D2). */
struct plan_removed_divert {
	struct recon_divert config; /* the live configuration, in full */
	bool declared;              /* named in the new declaration */
};

/* A divert on the queue's address that stays, and why (D4, or not
 * dependent). */
struct plan_kept_divert {
	char *name;
	char *address;
	char *forwarding_address;
	char *reason;
};

enum plan_tap_fate {
	PLAN_TAP_KEPT = 0,
	PLAN_TAP_REMOVED_BY_SUBSCRIPTION,
};

struct plan_tap {
	char *name;
	char *capture; /* owning capture subscription; NULL when none */
	enum plan_tap_fate fate;
	char *reason;
};

/* What a node looked like when planned: apply compares these. */
struct plan_observed {
	bool present;              /* the action's object exists there */
	struct recon_queue *queue; /* the live queue (counts included) */
	struct recon_divert *divert;
	unsigned address_routing; /* address actions */
	char **bindings;          /* address actions: binding names */
	size_t nbindings;
};

/* One action on one node. */
struct plan_step {
	char *node;
	enum plan_outcome outcome;
	enum recon_kind refusal_kind; /* RECON_OK unless broker-classified */
	char *refusal;                /* REFUSED/UNREACHABLE: a kind name, e.g.
	                                 "HAS_CONSUMERS", "UNREACHABLE" */
	char *message;                /* why, one line */
	char *next_step;              /* REFUSED: what to do */
	struct plan_observed observed;
	int64_t consumers;          /* queue deletes: ConsumerCount */
	int64_t destroyed_messages; /* MessageCount destroyed here */
	struct recon_op *ops;
	size_t nops;
	struct plan_removed_divert *removed;
	size_t nremoved;
	struct plan_kept_divert *kept;
	size_t nkept;
	struct plan_tap *taps;
	size_t ntaps;
	char **warnings;
	size_t nwarnings;
};

struct plan_action {
	enum plan_action_kind kind;
	char *name;             /* the object's name */
	char *address;          /* queues: their address; diverts: source */
	bool destroys_messages; /* a queue delete/recreate holding messages */
	char *why;              /* one line: what differs, or why it goes */
	/* A queue delete or recreate under delete-if-empty: the clause
	 * naming where it is set (docs/policy.md); NULL when it is not. What
	 * the preflight checks again at apply. */
	char *delete_if_empty;
	struct plan_step *nodes; /* one per declared node, in order */
	size_t nnodes;
};

/* docs/policy.md: a managed object the plan forgets (it leaves the managed
 * set, never destroyed), and an object a delete of the plan would destroy
 * that a settings.protect pattern covers. */
struct plan_forgotten {
	char *kind; /* "address", "queue", "divert" */
	char *name;
	char *reason; /* "deletion-policy: retain", "managed: false", ... */
};

struct plan_protected {
	char *kind;
	char *name;
	char *pattern;
	char *why; /* how the plan would delete it */
};

/* docs/policy.md "Changing the policy": one difference between the policy
 * the inventory records (the last applied declaration's) and the one an
 * apply of the plan records (policy-change.c). */
struct plan_policy_change {
	char *setting; /* "settings.protect", "deletion-policy",
	                  "delete-if-empty" */
	char *kind;    /* "pattern", "address", "queue", "divert" */
	char *name;    /* the pattern, or the object's name */
	char *from;    /* settings.protect: "absent", "present"; deletion- */
	char *to;      /* policy: "delete", "retain"; delete-if-empty:
	                  "false", "true" */
	char *at;      /* "path:line:col" of the new key; NULL: not written */
	bool lifts;    /* less protection: a delete it refused or forgot
	                  before is made after the apply */
	char *effect;  /* what the apply allows, or stops, next */
};

/* A live object left alone (never declared by the agent). */
struct plan_unmanaged {
	char *kind; /* "address", "queue", "divert" */
	char *name;
	char **nodes; /* where it was seen */
	size_t nnodes;
};

/* One member of an HA node as the plan read it (docs/ha-pairs.md). */
struct plan_member {
	char *name;
	char *state;      /* "LIVE", "PASSIVE", or its read's refusal kind */
	char *policy;     /* HAPolicy; NULL when not read */
	char *version;    /* Version; NULL when not read */
	int replica_sync; /* ReplicaSync: 1, 0, or -1 not read */
	char *message;    /* why, when it is not LIVE; NULL */
};

struct plan_node_status {
	char *node;
	char *version; /* the broker's Version when read; NULL when not */
	bool reachable;
	char *refusal; /* kind name when unreachable */
	char *message;
	/* An HA node: the member planned against (NULL when none is live)
	 * and every member's state. */
	char *member;
	struct plan_member *members;
	size_t nmembers;
};
/* Release what m holds. */
void plan_member_release(struct plan_member *m);
/* Is the node a passive broker, read and left alone? Refused for its HA
 * state (SPLIT_BRAIN, NOT_A_PAIR)? (ha.c) */
bool plan_node_passive(const struct plan_node_status *pn);
bool plan_node_ha_refused(const struct plan_node_status *pn);
/* The member an HA node was planned against, or NULL (ha.c). */
const struct plan_member *plan_node_live_member(
    const struct plan_node_status *ns);

/* ---- the reload prediction (reload.c) ---------------------------------
 * What a broker does when it reloads a rendered
 * broker.xml (CONFIG_MANAGED), predicted from its live snapshot.
 *
 * The rules are what Artemis 2.40.0 was observed to do
 * (tests/integration/40-render-boot.sh, docs/config-managed.md):
 * entries missing from the file stay unless the matching address-setting
 * has config-delete-{addresses,queues,diverts} FORCE; FORCE on queues
 * removes only configuration-managed queues, with their messages; FORCE
 * on addresses and on diverts removes runtime-created ones too; a changed
 * queue is updated in place; a divert in the file that is not live is
 * deployed by any reload.
 *
 * The snapshot reads the address-settings of match "#" only, so the
 * prediction applies those to every object (said in the rendering).
 */
enum plan_reload_effect {
	PLAN_RELOAD_ADDS,    /* in the file, not live: created */
	PLAN_RELOAD_UPDATES, /* in the file and live, settings differ */
	PLAN_RELOAD_KEEPS,   /* live, not in the file: stays */
	PLAN_RELOAD_REMOVES, /* live, not in the file: removed */
};

enum plan_reload_object {
	PLAN_RELOAD_ADDRESS,
	PLAN_RELOAD_QUEUE,
	PLAN_RELOAD_DIVERT,
};

struct plan_reload_item {
	enum plan_reload_effect effect;
	enum plan_reload_object object;
	char *name;       /* owned */
	char *address;    /* owned; a queue's address, a divert's source */
	char *detail;     /* owned; what changes, or why it stays / goes */
	int64_t messages; /* REMOVES of a queue: its MessageCount, lost */
};

/* The config-delete-* values in force: "OFF", "FORCE" or NULL when the
 * snapshot did not read them. */
struct plan_reload_settings {
	const char *addresses, *queues, *diverts;
};

struct plan_reload {
	char *node;                           /* owned */
	struct plan_reload_settings settings; /* borrowed */
	bool settings_from_file;              /* else read from the live node */
	struct plan_reload_item *items;       /* addresses, queues, diverts */
	size_t n;
	int64_t messages_lost; /* sum over removed queues */
	bool uncertain; /* some config-delete-* unknown: FORCE not ruled out */
	/* the declared matches (borrowed from c; none: the base file's
	 * settings are rendered as they are and nothing is said of them).
	 * A reload swaps the broker's configured address-settings and
	 * security-settings for the file's whole, then applies again the ones
	 * stored in the journal (added through management). */
	const char **address_matches, **security_matches;
	size_t naddress_matches, nsecurity_matches;
};

/* Predict the reload of the file rendered from c on the live node (which
 * must have been read: refusal kind RECON_OK). settings are the
 * config-delete-* values of the new file: a reload applies the file's
 * address-settings before its addresses and diverts (observed: the reload
 * that turns FORCE on already removes); NULL uses the live node's. Items
 * are in the order addresses, queues, diverts. Internal and auto-created
 * objects are left out (the file never names them). *out is owned by the
 * caller (plan_reload_release); settings strings must outlive it. */
void plan_reload_predict(struct plan_reload *out, const struct decl_cluster *c,
    const struct recon_node_snapshot *live,
    const struct plan_reload_settings *settings);

/* Markdown: one heading for the node, one bullet per item, the messages
 * lost. Owned by the caller. */
char *plan_reload_render_md(const struct plan_reload *r);

void plan_reload_release(struct plan_reload *r); /* leaves it zeroed */

/* CONFIG_MANAGED: one node's rendered broker.xml in the preview
 * (docs/plan-format.md, `broker_xml`). */
struct plan_broker_xml {
	char *node;
	char *path;   /* the rendered file, relative to the plan folder */
	char *sha256; /* of the rendered file, hex */
	char *diff;   /* unified diff before -> rendered; NULL: unchanged */
	char **carried_diverts; /* removed by the plan, still in the file */
	size_t ncarried;
	bool predicted;            /* reload holds the prediction */
	char *not_predicted;       /* else why not (the node was not read) */
	struct plan_reload reload; /* settings point into settings_owned */
	char *settings_owned[3];   /* addresses, queues, diverts */
};

/* One capture subscription as plan.json records it. */
struct plan_capture {
	char *name;
	char *pattern;
	int64_t ring_size;
};

struct plan {
	char *kind; /* "plan" or "delete-queue" */
	char *cluster;
	enum decl_mode mode;
	char *revision; /* the planned revision, NULL when not from git */
	/* decl_cluster_digest() of the planned declaration (hex): apply
	 * refuses to record another declaration's objects as managed. NULL
	 * when nothing was planned (an invalid declaration). */
	char *declaration_digest;
	char *base_source;
	char *base_revision;
	char *snapshot_source; /* "live" or the recorded file's name */
	char *snapshot_taken_at;
	bool disconnect_consumers;
	char *capture_prefix;
	int64_t max_destroyed_messages;
	/* What plan.json shows of the declaration's capture subscriptions,
	 * for people and reviews. Apply takes the captures (and every other
	 * setting) from the declaration itself, whose digest is
	 * declaration_digest. */
	struct plan_capture *captures;
	size_t ncaptures;
	/* delete-if-empty of the planned declaration, for the inventory
	 * apply writes (its positions are the declaration's files, which
	 * apply's own copy, a dump, does not have): the clause of
	 * settings.delete-if-empty (NULL when off) and the queues whose own
	 * key sets it to true, sorted, with their clauses. */
	char *die_default;
	char **die_queues;
	char **die_texts;
	size_t ndie;
	enum plan_outcome outcome; /* NO_CHANGE, WOULD_APPLY or REFUSED */
	char *refusal; /* plan-wide: "BULK_CAP", "NODE_REFUSED", ... */
	char *message;
	char *next_step;
	int64_t destroyed_messages; /* summed across nodes (D7) */
	/* Declared objects not yet managed that a node read holds already:
	 * an apply of this plan adopts them, recording them in the managed
	 * set ("found as declared", docs/state.md) so that removing one
	 * later is planned as a delete (docs/import.md). */
	size_t adopts_addresses, adopts_queues, adopts_diverts;
	struct plan_node_status *nodes;
	size_t nnodes;
	struct plan_action *actions;
	size_t nactions;
	struct plan_unmanaged *unmanaged;
	size_t nunmanaged;
	/* docs/policy.md: plan.json's `policy`, written when any is set.
	 * protect: the patterns in force (the declaration's with those of the
	 * last applied one); retained_diverts: never removed as a dependent
	 * divert (apply checks again with them). */
	char **protect;
	size_t nprotect;
	char **retained_diverts;
	size_t nretained_diverts;
	struct plan_forgotten *forgotten;
	size_t nforgotten;
	struct plan_protected *protected_hits;
	size_t nprotected_hits;
	struct plan_unmanaged *declared_unmanaged; /* managed: false, live */
	size_t ndeclared_unmanaged;
	/* "node: ..." lines of the capture pass's skipped (managed: false),
	 * in node order; plan.json policy.capture_skipped, absent when none */
	char **capture_skipped;
	size_t ncapture_skipped;
	/* the policy an apply records differs from the inventory's: sorted
	 * by setting, kind, name; found for plans that can be approved */
	struct plan_policy_change *policy_changes;
	size_t npolicy_changes;
	char **diagnostics; /* invalid declaration: the rendered diagnostics */
	size_t ndiagnostics;
	/* CONFIG_MANAGED: what the diffs compare with (NULL: no broker_xml
	 * section), and each node's rendered file. */
	char *broker_xml_before;
	struct plan_broker_xml *broker_xml;
	size_t nbroker_xml;
};

/* The Artemis release node ran when p was planned; NULL when it was not
 * read, is not one of p's nodes, or p predates the recorded versions. */
const char *plan_node_version(const struct plan *p, const char *node);

struct plan_opts {
	bool disconnect_consumers;
	const char *revision;        /* may be NULL */
	const char *snapshot_source; /* "live" or a file name */
};

/* The three-way diff plus preflights: new declaration x managed set x live
 * snapshot. Nodes are the declaration's; a node missing from the snapshot
 * or read with a refusal is UNREACHABLE. Returns the plan (never fails on
 * live state; refusals are outcomes). */
struct plan *plan_build(const struct decl_cluster *decl,
    const struct plan_managed *managed, const struct recon_snapshot *snap,
    const struct plan_opts *opts);

/* The operator's out-of-band delete (ADR-0084 as written): one delete-queue
 * action for queue on every node, declared or not. managed (NULL: none) is
 * the inventory: its settings.protect patterns and retained diverts count
 * as in plan_build, and its delete-if-empty for a queue decl does not
 * declare. */
struct plan *plan_delete_queue(const struct decl_cluster *decl,
    const struct plan_managed *managed, const char *queue,
    const struct recon_snapshot *snap, const struct plan_opts *opts);

/* What a plan of decl reads of the nodes (reconcile/live/live.h, struct
 * live_scope; docs/snapshot-format.md, "A plan's read"): the queues decl
 * and base (NULL: none) declare, at their declared addresses; the managed
 * set's queues (managed NULL: none), at base's address when base declares
 * them; the ring queue of every capture decl declares or the managed set
 * names; the queues extra[] names (delete-queue's); the queues of every
 * action of p (NULL: none; apply's reads), where p saw them. CONFIG_MANAGED
 * adds what the reload prediction weighs of every queue. out is zeroed
 * first; release it with live_scope_release. */
struct live_scope;
void plan_scope_build(struct live_scope *out, const struct decl_cluster *decl,
    const struct decl_cluster *base, const struct plan_managed *managed,
    const char *const *extra, size_t nextra, const struct plan *p);

/* A refused plan for a declaration that failed validation: diags are
 * rendered into it; nothing is planned. */
struct plan *plan_invalid(const char *cluster, const struct errlist *diags,
    const struct plan_opts *opts);

/* The refusal of a commit whose signature is not trusted (repository.verify,
 * docs/policy.md "Signed commits only"). */
#define PLAN_REFUSAL_UNTRUSTED "UNTRUSTED_COMMIT"

/* A refused plan for a commit that is not trusted: message says which
 * commit, which key and why; nothing is planned or read. */
struct plan *plan_untrusted(const char *cluster, const char *message,
    const char *next_step, const struct plan_opts *opts);

/* Record the declaration's diagnostics (warnings of a valid one) in p. */
void plan_add_diagnostics(struct plan *p, const struct errlist *diags);

void plan_free(struct plan *p); /* NULL is a no-op */

/* True for a plan that would apply and only creates (or widens) objects,
 * a capture's address, ring and taps included, or that changes nothing
 * and adopts or forgets objects or changes the policy: what
 * auto-apply-creates may apply without an approval. Never for a plan
 * that lifts protection (plan_policy_lifts). */
bool plan_creates_only(const struct plan *p);
/* The objects an apply of p adopts (the three adopts_ counts summed). */
size_t plan_adopts(const struct plan *p);
/* The objects an apply of p forgets (docs/policy.md): retained or now
 * declared with managed: false; 0 for a plan that cannot be approved. */
size_t plan_forgets(const struct plan *p);
/* The policy changes an apply of p records (docs/policy.md), and those of
 * them that lift protection; 0 for a plan that cannot be approved. */
size_t plan_policy_changes(const struct plan *p);
size_t plan_policy_lifts(const struct plan *p);
/* May p be approved: it would apply, or it changes nothing on any broker
 * and adopts or forgets objects (an imported cluster's first plan,
 * docs/import.md; a retained object removed, docs/policy.md) or changes
 * the policy the inventory records (docs/policy.md)? */
bool plan_approvable(const struct plan *p);
/* The plan's summary line, as its confirmation text starts: "create 2,
 * delete 1 queue, 2 diverts", "no changes". Owned. */
char *plan_summary_line(const struct plan *p);

/* ---- the queue-delete preflight (ADR-0084 D1-D6) ------------------------
 * One pure function for the preview and for apply: apply calls it again
 * against a fresh snapshot with the same context and compares. */
/* The diverts a plan creates or changes on one node, as it leaves them
 * (pointers into the plan's operations; a later one replaces an earlier
 * one of the same name): dependency is judged on them (preflight.c). */
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

struct plan_queue_delete_ctx {
	const struct decl_cluster *decl; /* the declaration in force */
	bool disconnect_consumers;
	/* Queues the plan creates on this node before its deletes (name,
	 * address pairs), and queues/diverts the plan removes on this node
	 * before this delete: together "the state after the plan". */
	const char *const *created_queues; /* names */
	const char *const *created_queue_addresses;
	size_t ncreated;
	const char *const *deleted_queues; /* deleted by earlier actions */
	size_t ndeleted_queues;
	const char *const *deleted_diverts; /* removed by earlier actions */
	size_t ndeleted_diverts;
	/* Captures applied before and no longer declared: the capture pass
	 * of the same plan removes every tap of theirs (D5). */
	const char *const *removed_captures;
	size_t nremoved_captures;
	/* The configuration the plan gives each divert it creates or changes
	 * on this node (createDivert/updateDivert): dependency is judged on
	 * the divert as the plan leaves it (issue 4). */
	const struct recon_divert *const *planned_diverts;
	size_t nplanned_diverts;
	/* docs/policy.md: a dependent divert that matches a protect pattern,
	 * is retained (retained_diverts, or deletion-policy: retain in decl)
	 * or declared with managed: false is never removed: the node is
	 * refused (PROTECTED, RETAINED_DEPENDENT, UNMANAGED_DEPENDENT). */
	const char *const *protect;
	size_t nprotect;
	const char *const *retained_diverts;
	size_t nretained_diverts;
	/* The clause naming where delete-if-empty is set for this queue
	 * (plan_action's delete_if_empty), or NULL: a node where the queue
	 * holds messages is refused HAS_MESSAGES. */
	const char *delete_if_empty;
};

/* ---- delete-if-empty (preflight-empty.c; docs/policy.md) -------------- */
#define PLAN_REFUSAL_HAS_MESSAGES "HAS_MESSAGES"

/* The clause of a managed queue protected in m, or NULL. Borrowed. */
const char *plan_managed_delete_if_empty(const struct plan_managed *m,
    const char *queue);
/* The clause a delete of queue runs under, owned, or NULL:
 * _declared for a queue decl declares (its own key, else
 * settings.delete-if-empty); _removed for a queue decl does not declare
 * (a managed one removed, or one of the `delete-queue` command): the last
 * applied (or base) declaration's, as m (NULL: none) recorded it, else
 * decl's settings.delete-if-empty. */
char *plan_delete_if_empty_declared(const struct decl_cluster *decl,
    const char *queue);
char *plan_delete_if_empty_removed(const struct plan_managed *m,
    const struct decl_cluster *decl, const char *queue);
/* Record decl's delete-if-empty in p (die_default, die_queues). */
void plan_delete_if_empty_record(struct plan *p,
    const struct decl_cluster *decl);
/* The clause for queue q of decl (the declaration p was planned from,
 * as apply loaded it), with the places p recorded; NULL when q is not
 * protected. Owned. */
char *plan_delete_if_empty_applied(const struct plan *p,
    const struct decl_cluster *decl, const struct decl_queue *q);

/* Fill np (zeroed by the caller; np->node set) for deleting queue on the
 * node n: outcome, ops, removed/kept diverts, taps, warnings, counts.
 * recreate: the queue comes back on the same address in the same node
 * step (change-by-recreate), so no divert depends on it; only D6 and the
 * counts apply. A recreate that moves the queue to another address passes
 * false: its old address loses it. */
void plan_preflight_queue_delete(struct plan_step *np,
    const struct recon_node_snapshot *n, const char *queue,
    const struct plan_queue_delete_ctx *ctx, bool recreate);
/* The first operation of kind k in np, or NULL. */
const struct recon_op *plan_step_find_op(const struct plan_step *np,
    enum recon_op_kind k);
/* Free what a node plan holds; leaves it zeroed. */
void plan_step_release(struct plan_step *np);

/* ---- the capture pass (ADR-0084 D5; docs/captures.md) -----------------
 * The only code that creates or removes an object with the capture prefix.
 * Per node, against the node as the plan leaves it: each declared capture
 * gets its capture address <prefix><capture> (anycast) with a non-durable
 * ring queue of that name (ring-size as declared), and a tap, the
 * non-exclusive divert <prefix><capture>.<address> (routing type ANYCAST,
 * forwarding into the capture address), on every address holding a queue
 * its pattern matches; a tap whose address no longer holds a matching
 * queue is removed. A capture no longer declared (removed) loses its taps,
 * its ring queue and its address. Pure: no network. */
struct plan_capture_ctx {
	const char *prefix;
	const struct decl_capture *captures; /* declared */
	size_t ncaptures;
	const char *const *removed; /* applied before, no longer declared */
	size_t nremoved;
	bool disconnect_consumers; /* a ring queue with consumers goes too */
	/* The plan's effect on the node (all NULL/0: the node as read). */
	const char *const *created_queues;
	const char *const *created_queue_addresses;
	size_t ncreated;
	const char *const *deleted_queues;
	size_t ndeleted_queues;
	/* docs/policy.md, managed: false: the addresses and queues the
	 * declaration leaves alone (plan_capture_unmanaged); their queues
	 * cover nothing, so no tap goes on such an address. Sorted. */
	const char *const *unmanaged_addresses;
	size_t nunmanaged_addresses;
	const char *const *unmanaged_queues;
	size_t nunmanaged_queues;
};

/* One thing the pass does on one node: an action kind and object, and
 * its node step (outcome WOULD_APPLY or REFUSED, ops in order). */
struct plan_capture_step {
	enum plan_action_kind kind;
	char *name;    /* the tap, or the capture address (= its queue) */
	char *address; /* a tap's source; the capture address */
	struct plan_step np;
};

struct plan_capture_steps {
	struct plan_capture_step *v; /* in kind order, then name */
	size_t n;
	/* What the pass left out on the node, one line each, sorted: a
	 * queue a capture's pattern matches that is, or is on an address,
	 * declared with managed: false. */
	char **skipped;
	size_t nskipped;
};

/* The pass on node n (read without a refusal); appends to out. */
void plan_capture_pass(struct plan_capture_steps *out,
    const struct recon_node_snapshot *n, const struct plan_capture_ctx *ctx);
void plan_capture_steps_release(struct plan_capture_steps *s);
/* The addresses and the queues decl declares with managed: false (the
 * queues of such an address included), for plan_capture_ctx. Sorted,
 * owned: strv_array_free each. */
void plan_capture_unmanaged(const struct decl_cluster *decl, char ***addresses,
    size_t *naddresses, char ***queues, size_t *nqueues);
/* True for the action kinds of the capture pass. */
bool plan_action_kind_is_capture(enum plan_action_kind a);
/* Does a capture with pattern cover queue (name, address)? Never for a
 * name or address inside the prefix, nor for the broker's internal
 * queues. */
bool plan_capture_covers(const char *prefix, const char *pattern,
    const char *queue, const char *address, bool internal);
/* The capture names a plan removes (its delete-capture and delete-tap
 * actions of captures decl, the planned declaration, does not declare): what
 * apply's own pass removes again. Sorted, owned by the caller (free each and
 * the array). */
char **plan_removed_captures(const struct plan *p,
    const struct decl_cluster *decl, size_t *n);

/* The capture pass alone, as a plan of kind "capture" (drift: the daemon
 * calls it every cycle on a fresh snapshot; its actions are what
 * plan_capture_pass gives each node). managed gives the removed captures
 * (NULL: none). */
struct plan *plan_captures(const struct decl_cluster *decl,
    const struct plan_managed *managed, const struct recon_snapshot *snap,
    const struct plan_opts *opts);

/* ---- CONFIG_MANAGED: the rendered broker.xml -------------------------
 * The agent renders (declarations/render/render.h); these pure functions take
 * the texts. One input per declared node, in the declaration's order. */
struct plan_rendered {
	const char *node;
	const char *before; /* the file the diff starts from; NULL: none */
	size_t before_len;
	const char *text; /* the rendered broker.xml */
	size_t len;
};

/* Add the broker_xml section to p: per node the rendered file's SHA-256,
 * the unified diff from before, the diverts the plan removes that the
 * file still carries (ADR-0084: the next deployment and restart bring
 * them back), and the prediction of a reload of the new file on the live
 * node (its config-delete-* taken from the new file's address-setting
 * "#"), when the node was read. before_label says what the diffs start
 * from. */
void plan_add_broker_xml(struct plan *p, const struct decl_cluster *decl,
    const struct recon_snapshot *snap, const char *before_label,
    const struct plan_rendered *r, size_t n);

/* The nodes' broker.xml could not be rendered: p becomes REFUSED
 * (RENDER_FAILED) naming the first problem; every diagnostic is recorded
 * in p->diagnostics. */
void plan_refuse_render(struct plan *p, const struct errlist *diags);

/* ---- the blast radius of a queue delete as a graph (graph.c) ----------
 * What one delete-queue action does around its queue, per node: the queue
 * and its address, each divert removed with it (source -> forwarding
 * address), each divert kept (and why, shortened), each capture tap (its
 * capture and its fate), or why nothing happens there (refused, not on
 * the node, not read). Nodes whose drawings are the same share one graph.
 *
 * One model, two renderings: plan.md's Mermaid flowchart (plan-mermaid.c)
 * and the web page's SVG (agent/web/graph-svg.c, Graphviz). The model
 * decides what is drawn: labels hold names as they are shown (bounded to
 * PLAN_GRAPH_NAME_MAX characters, every character utf8_name_problem
 * refuses written as <U+XXXX>, so nothing invisible or reordering reaches
 * a picture), and at most PLAN_GRAPH_EDGES_MAX diverts and taps are drawn,
 * the rest counted in one "and N more" vertex. The renderers only escape
 * for their syntax and pick shapes and colours by kind and mark. Built
 * equally from a plan of plan_build / plan_delete_queue and from one
 * parsed back from plan.json (the web page's). */
#define PLAN_GRAPH_EDGES_MAX 16 /* diverts and taps drawn in one graph */
#define PLAN_GRAPH_NAME_MAX  40 /* characters of a name in a label */
#define PLAN_GRAPH_NOTE_MAX  44 /* characters of a reason in a label */

enum plan_graph_vkind {
	PLAN_GRAPH_ADDRESS = 0,
	PLAN_GRAPH_QUEUE,   /* the queue the action deletes */
	PLAN_GRAPH_CAPTURE, /* a capture subscription (its address, ring) */
	PLAN_GRAPH_MORE,    /* what is not drawn: "and N more ..." */
};

/* What happens to a vertex or an edge. */
enum plan_graph_mark {
	PLAN_GRAPH_PLAIN = 0, /* only there to connect the others */
	PLAN_GRAPH_GOES,      /* deleted, removed */
	PLAN_GRAPH_STAYS,     /* kept */
	PLAN_GRAPH_REFUSED,   /* the node is refused: nothing happens */
	PLAN_GRAPH_ABSENT,    /* not on the node, or the node not read */
};

struct plan_graph_vertex {
	enum plan_graph_vkind kind;
	enum plan_graph_mark mark;
	char *name; /* shown form (see above); NULL for MORE */
	char *note; /* a line under the name; NULL */
};

enum plan_graph_ekind {
	PLAN_GRAPH_BINDING = 0, /* an address to its queue */
	PLAN_GRAPH_DIVERT,      /* source address to forwarding address */
	PLAN_GRAPH_TAP,         /* the queue's address to a capture */
	PLAN_GRAPH_ELIDED,      /* the queue's address to the MORE vertex */
};

struct plan_graph_edge {
	enum plan_graph_ekind kind;
	enum plan_graph_mark mark;
	size_t from, to; /* vertex indexes */
	char *name;      /* the divert or tap, shown form; NULL */
	char *note;      /* "removed with the queue", "kept: ..."; NULL */
};

/* One drawing, and the nodes (names, in the plan's order) it is of. */
struct plan_graph {
	char **nodes;
	size_t nnodes;
	struct plan_graph_vertex *v;
	size_t nv;
	struct plan_graph_edge *e;
	size_t ne;
};

struct plan_graphs {
	struct plan_graph *v; /* in the order of each one's first node */
	size_t n;
};

/* The graphs of action a (a delete-queue action; none for another kind),
 * one per distinct drawing. *out is owned by the caller. */
void plan_graphs_build(struct plan_graphs *out, const struct plan_action *a);
void plan_graphs_release(struct plan_graphs *g); /* leaves it zeroed */
/* The word a vertex kind is labelled with: "address", "queue", ... */
const char *plan_graph_vkind_word(enum plan_graph_vkind k);

/* g as a Mermaid flowchart (`flowchart LR`, node ids n0, n1, ...), the
 * text of plan.md's ```mermaid block without the fences. Every label is
 * written with Mermaid's entity codes for each character outside a small
 * safe set, so no name can end a label, a statement, the block or the
 * Markdown around it. Owned (plan-mermaid.c). */
char *plan_graph_mermaid(const struct plan_graph *g);

/* ---- preview files ----------------------------------------------------- */

/* plan.json, canonical (sorted keys, 2-space indent, trailing newline),
 * with the confirmation text; owned by the caller. */
char *plan_render_json(const struct plan *p);
/* The same text handed to sink in pieces (lib/sbuf.h, sbuf_stream). */
void plan_render_json_stream(const struct plan *p, sbuf_sink_fn sink,
    void *ctx);
/* The confirmation text ("" for a plan that cannot be approved); owned. */
char *plan_confirmation(const struct plan *p);
/* plan.md; plan_dir is shown in the approve command. Owned. */
char *plan_render_md(const struct plan *p, const char *plan_dir);
/* plan.md's first lines alone (its title, "# cluster: OUTCOME — ...",
 * then an empty line), without rendering the rest, whose approve command
 * renders the whole plan.json again for its confirmation. Owned. */
char *plan_render_md_title(const struct plan *p);
/* The same, cut past max bytes instead of PLAN_MD_MAX (0: never): the
 * whole plan for pull-request comments, which split it into bodies
 * (agent/comment-dir.c). plan_render_md is this with PLAN_MD_MAX. */
char *plan_render_md_max(const struct plan *p, const char *plan_dir,
    size_t max);
/* Is the plan.json text (path for messages) still what the planner wrote
 * for p, its parse? Its confirmation text is derived from its content, so
 * an edit after writing shows. 0 when yes, else -1 with err. */
int plan_check_json(const struct plan *p, const char *path, const char *text,
    size_t len, struct err *err);
/* Parse plan.json back into a plan (apply). Errors name the member, a
 * syntax error its line and column (lib/json.h). */
int plan_parse_json(struct plan **out, const char *path, const char *text,
    size_t len, struct err *err);

/* ---- pull-request comments (plan-comment.c, plan-comment-out.c) --------
 * plan.md's text split into comment bodies for a pull or merge request
 * (docs/ci.md). Each body starts with a hidden marker
 *   <!-- artemis-gitops:plan-comment id=ID cluster=NAME part=I/N digest=D -->
 * (ID and NAME escaped: plan_comment_marker_escape; D the first 12 hex of
 * plan.json's SHA-256) by which a bot finds and updates its own earlier
 * comments, then "Part I of N" when N > 1. The first body holds the
 * header and the Nodes table, the last the Approve section; bodies are
 * split at action (### heading) boundaries, an action too large for one
 * body at its per-node items, never inside a fenced code block (a
 * Mermaid diagram, a diff) or a table; a body that starts inside an action
 * repeats its heading, "(continued from part I)". A single item still too
 * large is cut at a line, its fence closed, with a pointer to the full
 * plan.md. Sizes are counted in bytes: UTF-8 text has at least as many
 * bytes as characters or UTF-16 units, so a body within the limit is
 * within GitHub's (65,536 characters) and GitLab's (1,000,000
 * characters) alike. */
#define PLAN_COMMENT_LIMIT     65000   /* default bytes of one body */
#define PLAN_COMMENT_LIMIT_MIN 4096    /* bytes; room for the notes */
#define PLAN_COMMENT_LIMIT_MAX 1000000 /* GitLab's note limit */
#define PLAN_COMMENT_MAX       10      /* default comments of one plan */
#define PLAN_COMMENT_MAX_MAX   100
#define PLAN_COMMENT_URL_MAX   1024             /* bytes of plan_url */
#define PLAN_COMMENT_ID        "artemis-gitops" /* the default marker id */
#define PLAN_COMMENT_FORMAT    1                /* `format` of comments.json */
#define PLAN_COMMENT_DIGEST    12 /* hex digits of the digest shown */

struct plan_comment_opts {
	size_t limit;          /* bytes of a body, marker included; >= _MIN */
	size_t max_comments;   /* past it: one body that says so */
	const char *marker_id; /* NULL: PLAN_COMMENT_ID */
	const char *cluster;
	const char *digest;   /* plan.json's SHA-256 in hex */
	const char *plan_url; /* where the full plan.md is, or NULL */
	/* How a body names the full plan.md without plan_url (the plan
	 * folder's path); NULL: "plan.md". */
	const char *plan_path;
};

struct plan_comment_part {
	char *body; /* owned */
	size_t len; /* bytes, <= limit */
	/* The headings ("3. delete-queue `orders` ...") of the first and
	 * last action the body shows, owned; NULL when it shows none. */
	char *first_action, *last_action;
	bool cut; /* an item was cut short in this body */
};

struct plan_comments {
	struct plan_comment_part *parts;
	size_t n;
	size_t needed;  /* bodies plan.md needs at the limit */
	bool too_large; /* needed > max_comments: parts[0] says so */
	/* "<!-- artemis-gitops:plan-comment id=ID cluster=NAME ": every
	 * body of this plan's cluster starts with it. Owned. */
	char *marker_prefix;
};

/* Split md (plan.md's text) into *out (zeroed first; release it). */
void plan_comment_split(struct plan_comments *out, const char *md,
    const struct plan_comment_opts *o);
void plan_comments_release(struct plan_comments *c);
/* comments.json: format, cluster, digest, marker id and prefix, limit,
 * parts (file comment-I.md, bytes, first and last action, cut), needed,
 * too_large. Canonical JSON, owned. */
char *plan_comment_manifest(const struct plan_comments *c,
    const struct plan_comment_opts *o);
/* s with every byte outside [A-Za-z0-9._:/@+-] as %XX, and a '-' that
 * follows a '-' too, so that nothing in a marker can close the HTML
 * comment ("--", ">") or end a field (" ", "="). Owned. */
char *plan_comment_marker_escape(const char *s);

#endif
