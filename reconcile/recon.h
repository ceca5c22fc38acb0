/* reconcile/recon.h: refusal kinds and the live snapshot model shared by the
 * Jolokia client, the snapshot reader, the planner and apply.
 *
 * Snapshot structs are plain data owned by struct recon_snapshot; other
 * modules read them through const pointers. They never carry a secret.
 */
#ifndef RECON_RECON_H
#define RECON_RECON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../declarations/decl.h"
#include "../lib/err.h"

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
};

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

struct recon_queue {
	char *name;
	char *address;
	unsigned routing; /* DECL_ANYCAST or DECL_MULTICAST */
	bool durable;
	char *filter; /* NULL = none */
	int64_t max_consumers;
	bool purge_on_no_consumers;
	bool exclusive;
	int64_t ring_size;
	bool enabled;
	char *last_value_key; /* NULL = none */
	int64_t consumers_before_dispatch;
	int64_t delay_before_dispatch;
	bool configuration_managed;
	bool auto_created;
	bool internal;
	int64_t consumer_count;
	int64_t message_count;
};

struct recon_address {
	char *name;
	unsigned routing; /* set of enum decl_routing (may be empty) */
	bool auto_created;
	bool internal;
	char **queue_names; /* local queues bound to the address, sorted */
	size_t nqueue_names;
	char *
	    *binding_names; /* every binding: queues and diverts sourced here */
	size_t nbinding_names;
};

struct recon_divert {
	char *name; /* UniqueName */
	char *routing_name;
	char *address; /* source */
	char *forwarding_address;
	bool exclusive;
	char *filter; /* NULL = none */
	enum decl_divert_routing routing_type;
	char *transformer_class_name;           /* NULL = none */
	struct decl_kv *transformer_properties; /* sorted by key */
	size_t ntransformer_properties;
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
struct recon_node_index;

struct recon_node_snapshot {
	char *node;                   /* declared node name */
	char *url;                    /* the Jolokia URL read */
	struct recon_refusal refusal; /* kind RECON_OK when read */
	char *broker_name;    /* discovered: the broker MBean's broker="…" */
	char *broker_version; /* Version attribute */
	struct recon_address *addresses;
	size_t naddresses;
	struct recon_queue *queues;
	size_t nqueues;
	struct recon_divert *diverts;
	size_t ndiverts;
	struct recon_address_settings *address_settings;
	size_t naddress_settings;
	unsigned requests; /* HTTP requests this read took (expected: 1) */
	/* Lookups by address (reconcile/node-index.c), built once the node
	 * is complete; NULL in a snapshot assembled by hand. Not data. */
	struct recon_node_index *index;
};

#define RECON_SNAPSHOT_FORMAT 1 /* `format` of snapshot --json */

struct recon_snapshot {
	char *cluster;
	char *taken_at;                    /* RFC 3339 UTC */
	struct recon_node_snapshot *nodes; /* in declaration order */
	size_t nnodes;
};

void recon_snapshot_free(struct recon_snapshot *s); /* NULL is a no-op */

/* Lookups in one node; NULL when absent. Borrowed from n. */
const struct recon_queue *recon_node_find_queue(
    const struct recon_node_snapshot *n, const char *name);
const struct recon_address *recon_node_find_address(
    const struct recon_node_snapshot *n, const char *name);
const struct recon_divert *recon_node_find_divert(
    const struct recon_node_snapshot *n, const char *name);
const struct recon_node_snapshot *recon_snapshot_find_node(
    const struct recon_snapshot *s, const char *node);

/* The versioned JSON form of `snapshot --json` (canonical: sorted keys).
 * Owned by the caller. */
char *recon_snapshot_render_json(const struct recon_snapshot *s);
/* Parse what recon_snapshot_render_json wrote (a recorded snapshot for
 * offline plans and golden tests). Errors name the JSON path. */
int recon_snapshot_parse_json(struct recon_snapshot **out, const char *path,
    const char *text, size_t len, struct err *err);
/* The same from a file, read through a fixed buffer: memory follows the
 * snapshot's model, not the size of its text. */
int recon_snapshot_read_file(struct recon_snapshot **out, const char *path,
    struct err *err);

/* Reading live snapshots (reconcile/snapshot-fetch.c). */

/* A node to read; strings are borrowed. */
struct recon_target {
	const char *node;     /* declared node name */
	const char *url;      /* its Jolokia endpoint */
	const char *userpass; /* "user:password" for HTTP Basic */
	/* Broker name to ask for address-settings (an exec cannot take a
	 * pattern); NULL = node. A wrong hint only loses address_settings. */
	const char *broker_hint;
};

/* HTTP settings shared by every node; zero = defaults (Origin
 * http://localhost, system CAs, 5 s connect, 30 s total, 32 MiB cap). */
struct recon_http_opts {
	const char *origin;
	const char *ca_file;
	long connect_timeout_ms;
	long timeout_ms;
	size_t max_response;
};

/* Read every target concurrently, one bulk POST per node. Never fails as
 * a whole: a node that cannot be read carries its refusal (UNREACHABLE,
 * UNAUTHORIZED, TIMEOUT, BAD_RESPONSE, ...) and the others are read.
 * Returns the snapshot, owned by the caller; nodes in target order. */
struct recon_snapshot *recon_snapshot_fetch(const char *cluster,
    const struct recon_target *targets, size_t n,
    const struct recon_http_opts *opts);

/* Number of nodes whose refusal kind is not RECON_OK. */
size_t recon_snapshot_unreadable(const struct recon_snapshot *s);

#endif
