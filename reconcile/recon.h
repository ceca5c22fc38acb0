/* reconcile/recon.h: refusal kinds and the live snapshot model shared by the
 * Jolokia client, the snapshot reader, the planner and apply.
 *
 * Snapshot structs are plain data owned by struct recon_snapshot; other
 * modules read them through const pointers. They never carry a secret.
 */
#ifndef RECONCILE_RECON_H
#define RECONCILE_RECON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../declarations/decl.h"
#include "../lib/err.h"
#include "../lib/strpool.h"

/* How an operation or a read failed, classified once at the Jolokia
 * boundary (never by matching exception classes: by AMQ2290nn codes and
 * HTTP/JSON statuses). RECON_OK = no refusal. */
enum recon_kind {
	RECON_OK = 0,
	RECON_HAS_CONSUMERS,  /* AMQ229025 */
	RECON_NOT_FOUND,      /* AMQ229017, AMQ229012, 404 on a single MBean */
	RECON_ALREADY_EXISTS, /* AMQ229019, AMQ229204, AMQ229235 */
	RECON_UNAUTHORIZED,   /* HTTP 401/403 from the login layer */
	RECON_FORBIDDEN,      /* RBAC: JSON status 403 */
	RECON_THROTTLED,      /* HTTP 429 */
	RECON_UNREACHABLE,    /* connection refused, DNS, TLS handshake */
	RECON_TIMEOUT,
	RECON_BAD_RESPONSE, /* not JSON, wrong shape, too large */
	RECON_BROKER_ERROR, /* anything else */
	/* the broker's Version is older than RECON_VERSION_FLOOR, or not a
	 * release number: the node is not managed (docs/compatibility.md) */
	RECON_UNSUPPORTED_VERSION,
	/* HA (docs/ha-pairs.md). A broker that is not active: a backup
	 * waiting for its primary (or a primary waiting to fail back); read,
	 * never acted on, never drift. */
	RECON_PASSIVE,
	/* more than one member of an HA node is active */
	RECON_SPLIT_BRAIN,
	/* the members of an HA node report different NodeIDs */
	RECON_NOT_A_PAIR,
	/* not sent: the agent lost its ownership of the cluster (its etcd
	 * lease ran out or another agent holds the cluster: docs/ha.md) */
	RECON_FENCED,
};

/* Is k a node's HA state that refuses it as a whole: SPLIT_BRAIN or
 * NOT_A_PAIR (docs/ha-pairs.md)? Nothing is planned or sent there. */
bool recon_kind_ha_refusal(enum recon_kind k);

/* "HAS_CONSUMERS", ...; "OK" for RECON_OK. */
const char *recon_kind_name(enum recon_kind k);
int recon_kind_parse(const char *s, enum recon_kind *out);

/* A classified failure: kind plus the broker's (or curl's) text, kept for
 * the preview. Valid when zeroed (kind RECON_OK, no text). */
struct recon_refusal {
	enum recon_kind kind;
	int http_status; /* 0 when no HTTP answer */
	int status;      /* the Jolokia element's `status`, 0 when none */
	char *text;      /* owned; the broker's error text or curl's reason */
};
void recon_refusal_release(struct recon_refusal *r);
/* Did an operation that failed with r lose its reply, so that whether the
 * broker did it is unknown? True for no answer (TIMEOUT, UNREACHABLE: a
 * refused connection as well as one reset or closed after the request
 * went out), an answer that cannot be trusted (BAD_RESPONSE: cut short,
 * not JSON, the wrong shape, too large) and an HTTP error status that is
 * not Jolokia's (status 0: a 400 or 5xx of what stands in front of it).
 * False when the broker said no: a Jolokia reply element with its status
 * (HAS_CONSUMERS, NOT_FOUND, FORBIDDEN, a BROKER_ERROR such as
 * AMQ229205, ...) or the login layer's 401/403/429. */
bool recon_refusal_reply_lost(const struct recon_refusal *r);

/* What a read did not give of a live queue (struct recon_queue's
 * unread): a node read whole, or recorded, or built by hand, holds every
 * queue whole (0); a read scoped to what a plan needs
 * (reconcile/live/live.h, struct live_scope) gives every queue its name,
 * address, routing type and flags, and the configuration and counts only
 * of the queues its scope names: the others hold the defaults there and
 * are RECON_QUEUE_UNREAD. Whoever weighs a live queue's configuration or
 * counts asserts that they were read. */
enum recon_queue_unread {
	RECON_QUEUE_NO_CONFIG = 1 << 0, /* durable .. delay_before_dispatch */
	RECON_QUEUE_NO_COUNTS = 1 << 1, /* consumer_count, message_count */
	RECON_QUEUE_UNREAD = RECON_QUEUE_NO_CONFIG | RECON_QUEUE_NO_COUNTS,
};

/* A queue's strings are its own unless `pooled`: then name, address,
 * filter and last_value_key live in the strpool of the node that holds
 * the queue (struct recon_node_snapshot's pool) and recon_queue_release
 * leaves them. A copy (recon_queue_dup) is never pooled. The fields are
 * ordered to pack: 800,000 of them at 100k queues x 8 nodes. */
struct recon_queue {
	char *name;
	char *address;
	char *filter;         /* NULL = none */
	char *last_value_key; /* NULL = none */
	int64_t max_consumers;
	int64_t ring_size;
	int64_t consumers_before_dispatch;
	int64_t delay_before_dispatch;
	int64_t consumer_count;
	int64_t message_count;
	unsigned routing;     /* DECL_ANYCAST or DECL_MULTICAST */
	unsigned char unread; /* enum recon_queue_unread: 0 = read whole */
	bool pooled;
	bool durable;
	bool purge_on_no_consumers;
	bool exclusive;
	bool enabled;
	bool configuration_managed;
	bool auto_created;
	bool internal;
	bool temporary; /* a client's temporary queue (Temporary) */
};

/* pooled: name and every queue and binding name are the node's pool's
 * (the arrays themselves are the address's own). */
struct recon_address {
	char *name;
	unsigned routing; /* set of enum decl_routing (may be empty) */
	bool auto_created;
	bool internal;
	bool pooled;
	char **queue_names; /* local queues bound to the address, sorted */
	size_t nqueue_names;
	char *
	    *binding_names; /* every binding: queues and diverts sourced here */
	size_t nbinding_names;
};

/* pooled: the strings but the transformer's properties are the node's
 * pool's (as struct recon_queue's); a copy is never pooled. */
struct recon_divert {
	char *name; /* UniqueName */
	char *routing_name;
	char *address; /* source */
	char *forwarding_address;
	bool exclusive;
	char *filter; /* NULL = none */
	enum decl_divert_routing routing_type;
	char *transformer_class_name;           /* NULL = none */
	struct decl_kv *transformer_properties; /* sorted by key; owned */
	size_t ntransformer_properties;
	bool pooled;
};

/* Address-settings read for the CONFIG_MANAGED reload prediction. */
struct recon_address_settings {
	char *match; /* the address-setting's match, e.g. "#" */
	char *config_delete_addresses; /* "OFF" | "FORCE", NULL if unknown */
	char *config_delete_queues;
	char *config_delete_diverts;
};

/* One node's live state. When status != RECON_OK the node could not be read
 * and only node, url and refusal are meaningful. Arrays are sorted by name. */
struct live_node_index;

/* What a broker says of its high availability: the broker MBean's
 * Active, Backup, HAPolicy, NodeID and ReplicaSync (docs/ha-pairs.md). */
struct recon_ha {
	bool known;       /* read (false: a snapshot or reply without them) */
	bool active;      /* Active: serving clients, its journal loaded */
	bool backup;      /* Backup: configured as (or now acting as) backup */
	char *policy;     /* HAPolicy, e.g. "Shared Store Backup"; NULL: none */
	char *node_id;    /* NodeID: the journal's id a pair shares; NULL */
	int replica_sync; /* ReplicaSync: 1 in sync, 0 not, -1 not read (or
	                     not a replication policy) */
};
void recon_ha_release(struct recon_ha *h);
void recon_ha_copy(struct recon_ha *dst, const struct recon_ha *src);

/* One member of an HA node as the snapshot read it. */
struct recon_member {
	char *name;                   /* declared member name */
	char *url;                    /* its Jolokia URL */
	struct recon_refusal refusal; /* RECON_OK: read and active; PASSIVE */
	char *broker_name;
	char *broker_version;
	struct recon_ha ha;
	unsigned requests;
};
void recon_member_release(struct recon_member *m);
/* "LIVE" for a member read and active, else its refusal kind's name
 * ("PASSIVE", "UNREACHABLE", ...). */
const char *recon_member_state(const struct recon_member *m);

struct recon_node_snapshot {
	char *node;                   /* declared node name */
	char *url;                    /* the Jolokia URL read (an HA node's:
	                                 the live member's, or NULL) */
	struct recon_refusal refusal; /* kind RECON_OK when read */
	char *broker_name;    /* discovered: the broker MBean's broker="…" */
	char *broker_version; /* Version attribute */
	struct recon_ha ha;   /* the broker read's HA attributes */
	/* An HA node: every member's read, in declaration order, and the
	 * live one's name (NULL when none is live); the node's contents are
	 * that member's. nmembers 0: a node without members. */
	char *member;
	struct recon_member *members;
	size_t nmembers;
	struct recon_address *addresses;
	size_t naddresses;
	struct recon_queue *queues;
	size_t nqueues;
	struct recon_divert *diverts;
	size_t ndiverts;
	struct recon_address_settings *address_settings;
	size_t naddress_settings;
	unsigned requests; /* HTTP requests this read took (expected: 1) */
	/* How long the read took, in seconds (an HA node's: its slowest
	 * member's, all read at once); 0 in a recorded snapshot. Not data:
	 * never written to snapshot JSON. */
	double read_seconds;
	/* Lookups by address (reconcile/live/node-index.c), built once the node
	 * is complete; NULL in a snapshot assembled by hand. Not data. */
	struct live_node_index *index;
	/* The strings of the pooled queues and addresses (a recorded
	 * snapshot's nodes share one: the same names on every node); one
	 * reference, dropped by live_node_release. NULL: none pooled. */
	struct strpool *pool;
};

struct recon_snapshot {
	char *cluster;
	char *taken_at;                    /* RFC 3339 UTC */
	struct recon_node_snapshot *nodes; /* in declaration order */
	size_t nnodes;
};

/* Lookups in one node; NULL when absent. Borrowed from n: binary searches
 * over the name-sorted arrays. */
const struct recon_queue *recon_node_find_queue(
    const struct recon_node_snapshot *n, const char *name);
const struct recon_address *recon_node_find_address(
    const struct recon_node_snapshot *n, const char *name);
const struct recon_divert *recon_node_find_divert(
    const struct recon_node_snapshot *n, const char *name);
const struct recon_node_snapshot *recon_snapshot_find_node(
    const struct recon_snapshot *s, const char *node);
/* qsort/bsearch order of the objects above, whose first member is their
 * name: byte order of the names. */
int recon_name_cmp(const void *a, const void *b);

/* ---- broker versions (docs/compatibility.md) -----------------------
 * What differs between the Artemis releases the agent supports, each
 * measured on a real broker of that release
 * (tests/integration/90-versions.sh). A version is the broker MBean's
 * `Version` attribute: "2.31.2", or a vendor build of it such as
 * "2.28.0.redhat-00012" (the first three numbers count). */
#define RECON_VERSION_FLOOR "2.28.0" /* the oldest release supported */

struct recon_version {
	unsigned major, minor, micro;
};
/* 0 when s starts with MAJOR.MINOR.MICRO (decimal, each below 10000) and
 * what follows, if anything, starts with '.' or '-'; else -1. */
int recon_version_parse(const char *s, struct recon_version *out);
int recon_version_cmp(const struct recon_version *a,
    const struct recon_version *b);
/* NULL when version is supported; else why not, one line naming the
 * version and the floor (owned by the caller). */
char *recon_version_unsupported(const char *version);
/* Has the broker of this (supported) version the JSON overloads
 * createDivert(java.lang.String) / updateDivert(java.lang.String)
 * (2.38.0, ARTEMIS-5078)? Before, the positional ones are sent. */
bool recon_version_divert_json(const char *version);
/* Does destroyDivert leave the divert's journal record behind, so that the
 * divert comes back at the broker's next restart? (Measured on 2.28.0 and
 * 2.31.2; ARTEMIS-4521, fixed in 2.32.0.) */
bool recon_version_divert_destroy_kept(const char *version);
/* Is a divert with a transformer left out of the journal, so that it is
 * lost at the broker's next restart? (Measured on 2.28.0 and 2.31.2;
 * 2.37.0 keeps it; the releases between were not measured and count as
 * losing it.) */
bool recon_version_divert_transformer_lost(const char *version);
/* Does a divert into an address whose queue and address were deleted
 * harm, as ADR-0084 §17 measured on 2.44: the next message it forwards
 * creates them again (auto-create on), or sends to its source fail
 * (auto-create off)? Measured: yes from 2.37.0; no on 2.28.0 and 2.31.2,
 * where what it forwards is dropped. The releases between count as
 * harming. */
bool recon_version_divert_into_nothing_harms(const char *version);

/* ---- operations ----------------------------------------------------
 * What a plan sends to one node, in order; the live wing runs them. */
enum recon_op_kind {
	RECON_OP_CREATE_ADDRESS = 0, /* createAddress(name, routing types) */
	RECON_OP_UPDATE_ADDRESS,     /* updateAddress(name, routing types) */
	RECON_OP_CREATE_QUEUE,       /* createQueue(json) */
	RECON_OP_UPDATE_QUEUE,       /* updateQueue(json) */
	RECON_OP_DESTROY_QUEUE,      /* destroyQueue(name, removeConsumers) */
	RECON_OP_CREATE_DIVERT,      /* createDivert(json) */
	RECON_OP_UPDATE_DIVERT,      /* updateDivert(json) */
	RECON_OP_DESTROY_DIVERT,     /* destroyDivert(name) */
	RECON_OP_DELETE_ADDRESS,     /* deleteAddress(name) */
};
const char *recon_op_kind_name(enum recon_op_kind k); /* "createQueue", ... */
int recon_op_kind_parse(const char *s, enum recon_op_kind *out);

struct recon_op {
	enum recon_op_kind kind;
	char *name;
	unsigned routing;            /* address ops: set of decl_routing */
	struct recon_queue *queue;   /* queue create/update: the config */
	struct recon_divert *divert; /* divert ops: full config (destroy too) */
	bool remove_consumers;       /* destroyQueue */
};

/* Deep copy of src into dst (dst's old contents are not freed). */
void recon_op_copy(struct recon_op *dst, const struct recon_op *src);
/* Free what op holds; leaves it zeroed. */
void recon_op_release(struct recon_op *op);

/* ---- the objects: release, copies, comparison --------------------------
 * Every _release frees what the object holds and leaves it zeroed; NULL
 * is a no-op. Copies are deep and owned by the caller. */
void recon_queue_release(struct recon_queue *q);
void recon_address_release(struct recon_address *a);
void recon_divert_release(struct recon_divert *d);
struct recon_queue *recon_queue_dup(const struct recon_queue *q);
struct recon_divert *recon_divert_dup(const struct recon_divert *d);
void recon_divert_copy(struct recon_divert *dst, const struct recon_divert *d);
/* The configuration a declaration asks for, as objects whose strings are
 * borrowed from the declaration (a divert's routing name defaults to its
 * name): never release them. */
void recon_queue_from_decl(struct recon_queue *out, const struct decl_queue *q);
void recon_divert_from_decl(struct recon_divert *out,
    const struct decl_divert *d);

/* The one string equality of the model. NULL and "" are the same: every
 * optional string of an object (a filter, a last-value key, a routing
 * name, a transformer) is "not set" either way, as Artemis reads an empty
 * filter-string as no filter. */
bool recon_str_eq(const char *a, const char *b);
/* The broker's own objects: the DLQ and ExpiryQueue that `artemis create`
 * puts in broker.xml, and the broker's activemq.* addresses (management
 * notifications). The unmanaged report leaves them out; the reload
 * prediction lists them only when a reload removes them. */
bool recon_broker_own(const char *name);
/* The same configuration, counts (consumers, messages) and flags the
 * broker decides (auto-created, internal, configuration-managed) left
 * out. */
bool recon_queue_same(const struct recon_queue *a, const struct recon_queue *b);
bool recon_divert_same(const struct recon_divert *a,
    const struct recon_divert *b);

#endif
