/* reconcile/live/live-int.h: shared by the files of reconcile/live/ only
 * (and the unit tests), grouped by the file that implements them.
 *
 * The Jolokia client: a request is a bulk, built with live_bulk_read /
 * live_bulk_exec or one of the operation helpers (each returns the
 * element's index), sent with live_jolokia_post (one HTTP POST) or
 * live_jolokia_post_all (several nodes concurrently), then read in
 * b->results[i]: a refusal (kind RECON_OK on success) and the element's
 * `value`. Every failure is classified here, once.
 */
#ifndef RECONCILE_LIVE_LIVE_INT_H
#define RECONCILE_LIVE_LIVE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../lib/sbuf.h"
#include "live.h"

struct json;
struct json_doc;

#define LIVE_JOLOKIA_ORIGIN          "http://localhost"
#define LIVE_JOLOKIA_CONNECT_TIMEOUT 5000  /* ms */
#define LIVE_JOLOKIA_TIMEOUT         30000 /* ms */
/* the default cap on one reply (a setting: broker-reply-max, --reply-max);
 * a reply is read as it arrives, so memory does not follow it */
#define LIVE_JOLOKIA_MAX_RESPONSE ((size_t)256 * 1024 * 1024)
/* The most one POST's body carries (a bulk past it is refused unsent,
 * never cut short): Artemis 2.44's Jolokia took a 20 MB bulk of 40,000
 * reads; a plan's read by name of 100,000 queues is about 38 MB. */
#define LIVE_JOLOKIA_MAX_REQUEST ((size_t)64 * 1024 * 1024)
#define LIVE_JOLOKIA_MAX_TEXT    2000 /* bytes of broker text kept */
/* bytes of one string of a reply (an address-settings JSON, a stack
 * trace): a reply is read as it arrives, never whole */
#define LIVE_JOLOKIA_MAX_STRING ((size_t)16 * 1024 * 1024)

/* Where and how to talk to one node. Strings are borrowed. */
struct live_jolokia_conf {
	const char *url;         /* http(s)://host:port/console/jolokia */
	const char *userpass;    /* "user:password" (HTTP Basic); NULL = none */
	const char *origin;      /* NULL = LIVE_JOLOKIA_ORIGIN */
	const char *ca_file;     /* NULL = the system trust store */
	const char *cert_file;   /* mutual TLS: the client certificate (PEM) */
	const char *key_pem;     /* and its key's PEM text; both or neither */
	long connect_timeout_ms; /* 0 = LIVE_JOLOKIA_CONNECT_TIMEOUT */
	long timeout_ms;         /* total; 0 = LIVE_JOLOKIA_TIMEOUT */
	size_t max_response;     /* 0 = LIVE_JOLOKIA_MAX_RESPONSE */
	const struct http_tick *tick; /* NULL = none (lib/http.h) */
};

enum live_arg_type {
	LIVE_ARG_STR = 0,
	LIVE_ARG_BOOL,
	LIVE_ARG_INT,
	LIVE_ARG_NULL,
	LIVE_ARG_MAP, /* a java.util.Map<String,String>: a JSON object */
};

/* One argument of an operation. */
struct live_arg {
	enum live_arg_type type;
	const char *s; /* LIVE_ARG_STR (NULL sends null) */
	bool b;
	int64_t i;
	const struct decl_kv *kv; /* LIVE_ARG_MAP: nkv pairs */
	size_t nkv;
};

/* The outcome of one bulk element. */
struct live_bulk_result {
	struct recon_refusal refusal; /* kind RECON_OK on success */
	/* The element's `value`, borrowed from the bulk; NULL on a refusal
	 * and for a pattern read that matched nothing. */
	const struct json *value;
	/* refused because no MBean has that name (Jolokia's status 404 with
	 * javax.management.InstanceNotFoundException), not for a missing
	 * attribute or operation */
	bool no_mbean;
};

/* Where the members of a streamed element's value go, as the reply is
 * read (live_bulk_stream): fn(ctx, i, key, value) for each member of
 * element i's value (an object), value borrowed for the call. */
struct live_member_sink {
	void (*fn)(void *ctx, size_t i, const char *key,
	    const struct json *value);
	void *ctx;
};

/* A bulk request and, once sent, its replies. Valid when zeroed. */
struct live_bulk {
	struct sbuf body; /* the JSON array being built */
	size_t n, alloc;
	bool *pattern;  /* per element: an MBean pattern read */
	bool *streamed; /* per element: its value's members go to sink */
	const struct live_member_sink *sink; /* borrowed; NULL: none */
	struct live_bulk_result *results;    /* n, after a reply was parsed */
	/* per element (and one more, a whole-request error's): the value
	 * read whole (owned); NULL for a streamed one */
	struct json_doc **docs;
	int http_status;   /* of the reply; 0 before */
	unsigned requests; /* HTTP requests sent for this bulk (by post) */
	double seconds;    /* how long they took (lib/http's), summed */
};

void live_bulk_release(struct live_bulk *b); /* leaves it zeroed */
/* Every element of b refused as *out is (its kind, a copy of its text):
 * a request never sent or never answered. */
void live_bulk_fail_all(struct live_bulk *b, const struct recon_refusal *out);

/* Append a `read` of attrs (nattrs == 0: every attribute). mbean may be a
 * pattern (contains '*' or '?'): its reply is {mbean: {attr: value}} and
 * "nothing matched" is success with value NULL. */
size_t live_bulk_read(struct live_bulk *b, const char *mbean,
    const char *const *attrs, size_t nattrs);
/* The same of one MBean by its name, never a pattern (a quoted value may
 * hold an escaped '*' or '?'). */
size_t live_bulk_read_mbean(struct live_bulk *b, const char *mbean,
    const char *const *attrs, size_t nattrs);
/* Append an `exec`; operation is the full signature,
 * e.g. "destroyQueue(java.lang.String,boolean,boolean)". */
size_t live_bulk_exec(struct live_bulk *b, const char *mbean,
    const char *operation, const struct live_arg *args, size_t nargs);

/* Operations on the broker named broker (the discovered broker name). */
size_t live_bulk_create_address(struct live_bulk *b, const char *broker,
    const char *name, unsigned routing);
size_t live_bulk_update_address(struct live_bulk *b, const char *broker,
    const char *name, unsigned routing);
size_t live_bulk_delete_address(struct live_bulk *b, const char *broker,
    const char *name, bool force);
/* createQueue(JSON) with every setting explicit (address, routing-type,
 * durable, auto-create-address=false, filter-string, ...). */
size_t live_bulk_create_queue(struct live_bulk *b, const char *broker,
    const struct recon_queue *q);
/* updateQueue(JSON), complete (an absent filter would clear it). */
size_t live_bulk_update_queue(struct live_bulk *b, const char *broker,
    const struct recon_queue *q);
size_t live_bulk_destroy_queue(struct live_bulk *b, const char *broker,
    const char *name, bool remove_consumers, bool auto_delete_address);
/* createDivert with the divert's whole configuration; routing-name
 * defaults to the divert's name. json: the JSON overload (Artemis 2.38+,
 * recon_version_divert_json), all eight keys; else the positional one
 * every supported release has, which takes the same settings.
 * createDivert on a taken name is a silent no-op on the broker: read back
 * to confirm. updateDivert: the JSON overload only (2.38+); before, a
 * change is a recreate (the positional updateDivert breaks the broker's
 * next start, jolokia-ops.c). */
size_t live_bulk_create_divert(struct live_bulk *b, const char *broker,
    const struct recon_divert *d, bool json);
size_t live_bulk_update_divert(struct live_bulk *b, const char *broker,
    const struct recon_divert *d);
size_t live_bulk_destroy_divert(struct live_bulk *b, const char *broker,
    const char *name);
/* The Jolokia signature those send for a divert create or update (NULL
 * for another kind, and for an update without json: never sent). */
const char *live_divert_signature(enum recon_op_kind kind, bool json);

/* MBean names (ObjectName.quote applied to every value); owned. */
char *live_mbean_quote(const char *value);
char *live_mbean_broker(const char *broker);
char *live_mbean_address(const char *broker, const char *address);
char *live_mbean_queue(const char *broker, const char *address,
    unsigned routing, const char *queue);
char *live_mbean_divert(const char *broker, const char *address,
    const char *divert);
/* The unquoted value of key in a (canonical) MBean name; -1 if absent or
 * malformed. *out is owned by the caller. */
int live_mbean_key(const char *mbean, const char *key, char **out);

/* Stream element i's value: each of its members goes to b->sink as the
 * reply is read (the value itself is not kept: results[i].value NULL);
 * for a reply read whole too. */
void live_bulk_stream(struct live_bulk *b, size_t i);

/* Parse an HTTP answer to b into b->results. Returns 0 when the body is a
 * bulk reply of the right length (elements may still be refused); -1 when
 * the whole request failed, with *out classified (UNAUTHORIZED,
 * THROTTLED, BAD_RESPONSE, ...) and every element given the same refusal.
 * No I/O: the fuzz target and the unit tests call it on recorded replies.
 * It is live_bulk_reply_begin, then live_bulk_parse_stream over body. */
int live_bulk_parse_reply(struct live_bulk *b, long http_status,
    const char *body, size_t len, struct recon_refusal *out);
/* The answer's status to b: results reset; a status other than 200 is the
 * whole request's failure, told from body (its first bytes; -1 then). 1
 * when the body is to be read with live_bulk_parse_stream. */
int live_bulk_reply_begin(struct live_bulk *b, long http_status,
    const char *body, size_t len, struct recon_refusal *out);
/* The bulk reply in r (a 200's body, as it arrives), as
 * live_bulk_parse_reply says. */
struct jsonr;
int live_bulk_parse_stream(struct live_bulk *b, struct jsonr *r,
    struct recon_refusal *out);

/* Classify one failed reply element (a Jolokia status != 200): AMQ codes
 * first, then the status. pattern: the element was a pattern read. */
enum recon_kind live_jolokia_classify(int status, const char *error,
    bool pattern);

/* One HTTP POST of b to conf. 0, or -1 with *out set as above. */
int live_jolokia_post(const struct live_jolokia_conf *conf, struct live_bulk *b,
    struct recon_refusal *out);
/* Post bulks[i] to confs[i] for every i < n concurrently (lib/http, one
 * thread); outs[i] as live_jolokia_post would set it. */
void live_jolokia_post_all(const struct live_jolokia_conf *confs,
    struct live_bulk *bulks, size_t n, struct recon_refusal *outs);

/* ---- snapshot-fetch.c ---------------------------------------------- */

struct live_bulk;
struct live_read;
/* The one bulk request of a node's read rd (snapshot-scope.c; scope NULL:
 * the node whole): [0] the broker, [1] addresses, [2] queues, [3]
 * diverts (their members streamed into rd as the reply is read), [4] the
 * address-settings of hint (the broker name: an exec takes no pattern),
 * then a scoped read's exact elements. Release rd with live_read_release
 * after the reply was read. */
void live_read_build(struct live_bulk *b, struct live_read *rd,
    const char *hint);
/* Fill n from the parsed reply of that request: contents, or a refusal
 * (the first refused element; BAD_RESPONSE for a wrong shape). */
void live_node_from_read(struct recon_node_snapshot *n,
    const struct live_bulk *b, struct live_read *rd);
/* A node read from a broker the agent does not manage (below
 * RECON_VERSION_FLOOR, or no release number) loses its contents and
 * becomes UNSUPPORTED_VERSION, keeping its broker name and version for
 * the preview: true then. False (n unchanged) for a supported version. */
bool live_node_check_version(struct recon_node_snapshot *n);
/* A node read from a broker that says it is not active (a passive backup,
 * or a primary waiting to fail back) loses its contents and becomes
 * PASSIVE, keeping its broker, version and HA state: true then. */
bool live_node_check_passive(struct recon_node_snapshot *n);

/* ---- snapshot-scope.c: a read shaped by a scope ----------------------- */

/* What one broker's read asks of its queues (live.h, struct live_scope):
 * the identity of every queue by pattern, and the scope's queues by their
 * MBean names (exact) or every queue with its configuration by pattern. */
#define LIVE_READ_HERE       255  /* a place: where the identity found it */
#define LIVE_READ_EXACT_COLD 1000 /* scope queues read by name, no hint */
/* What a read's streamed elements gave (snapshot-fetch.c's sink): the
 * broker's addresses, queues and diverts as their members came, and the
 * first problem met. */
struct live_got {
	char *broker; /* the broker element's name, once looked at */
	bool broker_known;
	struct recon_address *addresses;
	size_t naddresses, aaddresses;
	struct recon_queue *queues;
	size_t nqueues, aqueues;
	struct recon_divert *diverts;
	size_t ndiverts, adiverts;
	char *bad;
};
void live_read_got_release(struct live_got *g);

struct live_read {
	const struct live_scope *scope; /* NULL: the node whole */
	const struct live_bulk *bulk;   /* the bulk it was built into */
	struct live_member_sink sink;   /* the bulk's */
	struct live_got got;
	bool exact;
	char *broker; /* the broker name the exact reads name (owned) */
	/* the exact elements, from index first of the bulk: each the scope
	 * queue queue[i] at its place at[i] (or LIVE_READ_HERE) */
	size_t first, nexact, alloc;
	size_t *queue;
	unsigned char *at;
};
void live_read_release(struct live_read *rd); /* leaves it zeroed */
/* Read the scope's queues by name (true) or every queue whole, for a node
 * that held queues_hint queues at its last read (0: not known)? */
bool live_read_exact(const struct live_scope *scope, size_t queues_hint);
/* The queue element of rd's bulk (its index 2). */
void live_read_queues(struct live_bulk *b, const struct live_read *rd);
/* rd exact: an element for every place of every queue of the scope. */
void live_read_add_exact(struct live_bulk *b, struct live_read *rd);
/* The second request: elements reading every queue of rd's scope that n
 * holds unread, where n's identity read found it, on n's broker; again
 * (zeroed here) notes them. Returns how many. */
size_t live_read_add_misses(struct live_bulk *b, struct live_read *again,
    const struct recon_node_snapshot *n, const struct live_read *rd);
/* The exact elements' replies into n's queues (sorted, identity read).
 * 0, or -1 with *refusal set (text owned): an element refused other than
 * for no such MBean, or a reply of the wrong shape. */
int live_read_apply(struct recon_node_snapshot *n, const struct live_bulk *b,
    const struct live_read *rd, struct recon_refusal *refusal);
/* Drop the scope's queues n still holds unread: gone between the reads. */
void live_read_drop_unread(struct recon_node_snapshot *n,
    const struct live_scope *scope);

/* ---- members.c: an HA node from its members' reads ------------------------
 */

/* out (zeroed by the function) becomes node: the reads[0..n) of its
 * members[0..n) (taken: the live one's contents are moved into out, and
 * each read stays for the caller to release), every member's state in
 * out->members, and the node refused NOT_A_PAIR, SPLIT_BRAIN or, with no
 * live member, UNREACHABLE (or the kind every member was refused with). */
void live_node_choose(struct recon_node_snapshot *out, const char *node,
    const struct live_member *members, struct recon_node_snapshot *reads,
    size_t n);

/* ---- snapshot-attrs.c: one MBean's attributes ------------------------ */
struct live_attrs {
	const char *what; /* "queue '<mbean>'", for messages */
	char *bad;        /* the first problem, owned; NULL when none */
};
void live_attrs_address(struct live_attrs *r, const char *mbean,
    const struct json *attrs, struct recon_address *a);
/* A queue read whole: live_attrs_queue_id, then live_attrs_queue_config
 * on the same attributes. */
void live_attrs_queue(struct live_attrs *r, const char *mbean,
    const struct json *attrs, struct recon_queue *q);
/* Its identity: name, address and routing type (the attributes, else the
 * MBean name's keys), the flags (InternalQueue, Temporary,
 * ConfigurationManaged, AutoCreated) and MessageCount when present; the
 * configuration left unread (live_queue_unread). */
void live_attrs_queue_id(struct live_attrs *r, const char *mbean,
    const struct json *attrs, struct recon_queue *q);
/* Its configuration and counts (unread becomes 0). */
void live_attrs_queue_config(struct live_attrs *r, const struct json *attrs,
    struct recon_queue *q);
/* q's configuration and counts as a read without them leaves them: the
 * defaults a missing attribute keeps, 0, RECON_QUEUE_UNREAD (reload:
 * MessageCount, ConfigurationManaged and AutoCreated were read and stay). */
void live_queue_unread(struct recon_queue *q, bool reload);
void live_attrs_divert(struct live_attrs *r, const char *mbean,
    const struct json *attrs, struct recon_divert *d);

#endif
