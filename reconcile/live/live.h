/* reconcile/live/live.h: the live wing: everything that talks to a broker
 * or reads what one said. A node is read whole in one bulk Jolokia POST
 * (several nodes concurrently) into the shared model of recon.h; a
 * recorded snapshot (`snapshot --json`) is read back into the same model;
 * each node gets a lookup index by address; the operations of a plan run
 * one HTTP POST each. The wing also writes the one JSON form of a queue's
 * and a divert's configuration that plan.json carries and the broker is
 * sent.
 *
 * Every failure is classified once, here, into enum recon_kind (by HTTP
 * status, Jolokia status and AMQ2290nn code, never by exception class);
 * the broker's text rides along. Credentials never appear in any text.
 */
#ifndef RECONCILE_LIVE_LIVE_H
#define RECONCILE_LIVE_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../lib/err.h"
#include "../recon.h"

struct http_tick;

#define LIVE_SNAPSHOT_FORMAT 1 /* `format` of snapshot --json */

/* The ranges of a node's integers, the same when a broker's reply is read
 * (snapshot-attrs.c: outside is BAD_RESPONSE) and when a recorded snapshot
 * is (snapshot-parse.c: outside is refused), so that what was read can be
 * recorded and read back: every integer within +-2^53 (exact in any JSON
 * reader's double); a message count 0 or more; a consumer count 0 to
 * 2^31-1 (a Java int). The bulk cap sums message counts (ADR-0084 D7): a
 * negative one would let a plan destroy more than it says. */
#define LIVE_INT_MAX       INT64_C(9007199254740992)
#define LIVE_CONSUMERS_MAX INT64_C(2147483647)

/* ---- reading nodes (snapshot-fetch.c) ---------------------------------- */

/* A node to read; strings are borrowed. */
/* One broker of an HA node (docs/ha-pairs.md). */
struct live_member {
	const char *name;     /* declared member name */
	const char *url;      /* its Jolokia endpoint */
	const char *userpass; /* "user:password" for HTTP Basic */
};

struct live_target {
	const char *node;     /* declared node name */
	const char *url;      /* its Jolokia endpoint; NULL for an HA node */
	const char *userpass; /* "user:password" for HTTP Basic */
	/* The broker name the node's MBean names carry, as a read found it
	 * before; NULL = node. A scoped read names the queues it reads whole
	 * by their MBeans; a wrong hint costs a second request (below). */
	const char *broker_hint;
	/* The number of queues the node held when it was last read; 0 = not
	 * known. It picks the shape of a scoped read (below). */
	size_t queues_hint;
	/* An HA node: its brokers, each read in the same round, the one that
	 * is active taken as the node (live_node_choose); 0: the node is the
	 * one broker at url. Borrowed. */
	const struct live_member *members;
	size_t nmembers;
};

/* HTTP settings shared by every node; zero = defaults (Origin
 * http://localhost, system CAs, no client certificate, 5 s connect, 30 s
 * total, a 256 MiB cap on a reply, no tick). Strings are borrowed. tick
 * (lib/http.h, borrowed) is called while the requests are in flight; when it
 * abandons them the nodes are refused UNREACHABLE ("abandoned by the caller").
 */
struct live_http_opts {
	const char *origin;
	const char *ca_file;
	/* Mutual TLS, both or neither (lib/http.h): the client certificate's
	 * PEM file and the key's PEM text (a secret). */
	const char *cert_file;
	const char *key_pem;
	long connect_timeout_ms;
	long timeout_ms;
	size_t max_response;
	const struct http_tick *tick;
};

/* ---- what a read asks for (snapshot-scope.c) ---------------------------
 * A plan needs every live queue's identity (its name, address, routing
 * type and internal flag: the unmanaged report, the capture patterns, the
 * ADR-0084 bindings) but the configuration and the counts only of the
 * queues its declarations and managed set name. A scope lists those; a
 * read given one asks the broker for no more (docs/snapshot-format.md, "A
 * plan's read"): every queue by pattern with two attributes, and each
 * queue of the scope by its MBean name with its configuration and counts,
 * or, when the scope holds more than half of the queues the node held at
 * its last read (queues_hint), every queue by pattern with them. Either
 * way one bulk request per node; a queue of the scope found under another
 * MBean than the one expected (moved, another broker name) is read in a
 * second request. The others' configuration is not read: they hold the
 * defaults (enum recon_queue_unread says what was not read). */
#define LIVE_SCOPE_GUESSES 3
struct live_scope_queue {
	char *name;
	/* where the queue is expected (the addresses and routing types the
	 * declarations give it); nat 0: unknown, found by the second
	 * request */
	char *address[LIVE_SCOPE_GUESSES];
	unsigned routing[LIVE_SCOPE_GUESSES];
	size_t nat;
};
struct live_scope {
	struct live_scope_queue *queues; /* sorted by name, unique */
	size_t nqueues, alloc;
	/* every queue's ConfigurationManaged and MessageCount too: what a
	 * CONFIG_MANAGED reload prediction weighs (reconcile/plan/reload.c) */
	bool reload;
	/* the shape: chosen as above, or the scope's queues by name, or
	 * every queue by pattern with its configuration (`--read`) */
	enum live_scope_shape {
		LIVE_SCOPE_CHOSEN = 0,
		LIVE_SCOPE_BY_NAME,
		LIVE_SCOPE_BY_PATTERN,
	} shape;
};
/* Add queue name, expected at address with routing (NULL/0: unknown);
 * a name added again gains the place if it is new. Strings are copied. */
void live_scope_add(struct live_scope *s, const char *name, const char *address,
    unsigned routing);
/* Sort and merge what was added; call before the scope is used. */
void live_scope_finish(struct live_scope *s);
const struct live_scope_queue *live_scope_find(const struct live_scope *s,
    const char *name);
void live_scope_release(struct live_scope *s); /* leaves it zeroed */
/* A node read whole (a recording) as a read of scope would have read it:
 * every queue scope does not name loses its configuration and counts
 * (the defaults, 0, RECON_QUEUE_UNREAD). Used by `--read scoped` on a recorded
 * snapshot, so that a plan proves it needs no more. */
void live_node_narrow(struct recon_node_snapshot *n,
    const struct live_scope *scope);

/* Read every target concurrently, one bulk POST per node (scope NULL: the
 * node whole, as `snapshot`; else what scope says, above). Never fails as
 * a whole: a node that cannot be read carries its refusal (UNREACHABLE,
 * UNAUTHORIZED, TIMEOUT, BAD_RESPONSE, ...) and the others are read.
 * Returns the snapshot, owned by the caller; nodes in target order. */
struct recon_snapshot *live_snapshot_fetch(const char *cluster,
    const struct live_target *targets, size_t n,
    const struct live_http_opts *opts, const struct live_scope *scope);
/* Number of nodes whose refusal kind is not RECON_OK (a passive broker,
 * read and left alone, is not counted). */
size_t live_snapshot_unreadable(const struct recon_snapshot *s);

/* A snapshot and its nodes, as the live wing made them (fetched, parsed or
 * read from a file). NULL is a no-op. */
void live_snapshot_free(struct recon_snapshot *s);
/* Free what node n holds (its index too); leaves it zeroed. */
void live_node_release(struct recon_node_snapshot *n);
/* Sort every array of n by name (the order lookups and JSON rely on) and
 * build its index (snapshot.c). */
void live_node_sort(struct recon_node_snapshot *n);

/* ---- recorded snapshots (snapshot-render.c, snapshot-parse.c) ---------- */

/* The versioned JSON form of `snapshot --json` (canonical: sorted keys).
 * Owned by the caller. */
char *live_snapshot_render_json(const struct recon_snapshot *s);
/* Parse what live_snapshot_render_json wrote (a recorded snapshot for
 * offline plans and golden tests). Errors name the JSON path. */
int live_snapshot_parse_json(struct recon_snapshot **out, const char *path,
    const char *text, size_t len, struct err *err);
/* The same from a file, read through a fixed buffer: memory follows the
 * snapshot's model, not the size of its text. */
int live_snapshot_read_file(struct recon_snapshot **out, const char *path,
    struct err *err);

/* ---- lookups by address (node-index.c) ---------------------------------
 * The index of a complete snapshot is n->index, built by live_node_sort()
 * and by the snapshot parser; a snapshot assembled by hand has none (build
 * one). It gives the indices (into n->queues / n->diverts, ascending, so
 * in name order) of the queues bound to address, and of the diverts whose
 * source is address or whose forwarding address names it. *out is the
 * caller's. */
struct live_node_index *live_node_index_build(
    const struct recon_node_snapshot *n);
size_t live_node_queues_at(const struct live_node_index *x, const char *address,
    size_t **out);
size_t live_node_diverts_around(const struct live_node_index *x,
    const char *address, size_t **out);
void live_node_index_free(struct live_node_index *x);
/* The next target of a comma-separated forwarding address, trimmed of
 * white space as Artemis and validation (declarations/check.c) trim it:
 * *target and *len (0 for an empty one); *p moves past it. False when
 * *p is NULL (no more targets). */
bool live_forward_target(const char **p, const char **target, size_t *len);
/* Sort v ascending and drop repeats. */
void live_index_sort_unique(size_t *v, size_t *n);

/* ---- the configuration JSON (broker-config.c) --------------------------
 * A queue as createQueue/updateQueue take it, a divert as createDivert/
 * updateDivert take it: every setting, keys sorted. The one writer of
 * both, for plan.json, the audit and the broker, and its reader. */
struct json;
struct json_reader;
struct jsonw;
void live_queue_config_write(struct jsonw *w, const struct recon_queue *q);
void live_divert_config_write(struct jsonw *w, const struct recon_divert *d);
/* The same as a text (owned by the caller). */
char *live_queue_config_json(const struct recon_queue *q);
char *live_divert_config_json(const struct recon_divert *d);
/* Read object o (at JSON path where, for messages) as the writers above
 * wrote it into *q / *d, which is zeroed first and owns what it holds
 * (also when half-built on failure: release it with the plan). 0, or -1
 * with `path: where.key: problem` recorded in c (lib/json.h). A divert's
 * "" filter reads back as none. */
int live_queue_config_read(struct json_reader *c, const struct json *o,
    const char *where, struct recon_queue *q);
int live_divert_config_read(struct json_reader *c, const struct json *o,
    const char *where, struct recon_divert *d);

/* ---- talking to the nodes of one apply (nodes.c) -----------------------
 * The caller fills cluster, targets (borrowed: node, url, userpass per
 * node) and http, then calls live_nodes_init. Each read remembers the
 * node's broker name and version, which its operations need. */
struct live_nodes {
	const char *cluster;
	const struct live_target *targets;
	size_t ntargets;
	const struct live_http_opts *http;
	/* what each read asks (borrowed; NULL: every node whole) */
	const struct live_scope *scope;
	char **brokers;  /* per target: the broker name last read; internal */
	size_t *queues;  /* per target: its queues at the last read; internal */
	char **versions; /* per target: its Version then; internal */
	/* per target: an HA node's member found live at the last read (its
	 * index in members), which operations go to; internal */
	size_t *live_member;
};

void live_nodes_init(struct live_nodes *nodes);
void live_nodes_release(struct live_nodes *nodes);
/* Read the nodes names[] concurrently, one bulk POST each, into out[]
 * (zeroed by the caller); a node without an endpoint is UNREACHABLE. ctx
 * is the struct live_nodes (the signature of apply's io). */
void live_nodes_read(void *ctx, const char *const *names, size_t n,
    struct recon_node_snapshot *out);
/* Run op on node (one POST). 0, or -1 with *refusal classified. */
int live_nodes_exec(void *ctx, const char *node, const struct recon_op *op,
    struct recon_refusal *refusal);
/* Run ops[0..n) on node in one bulk POST (apply_io's exec_batch): rcs[i]
 * 0, or -1 with refusals[i] classified; -1 when the request failed as a
 * whole (every refusals[i] then that failure). Safe to call for
 * different nodes at once. */
int live_nodes_exec_batch(void *ctx, const char *node,
    const struct recon_op *ops, size_t n, int *rcs,
    struct recon_refusal *refusals);

#endif
