/* lib/etcd.h: an etcd v3 client over etcd's JSON gateway (docs/ha.md).
 *
 * The project's one user of etcd, and a thin one: leases (grant, keep
 * alive, revoke, time to live), key ranges, puts, deletes and
 * transactions with compares, sent as JSON to `/v3/...` over lib/http
 * (libcurl). Keys and values travel base64-encoded, as the gateway wants;
 * callers see plain bytes. No coordination logic lives here: elections,
 * fencing and sharding are agent/coord.c's, built from these calls.
 *
 * A client knows several endpoints (the members of one etcd cluster) and
 * sends each call to the one that answered last, moving on to the next
 * when a member cannot be reached, times out or answers that it has no
 * leader, so one member down costs one timeout at most. With a user, the
 * client authenticates (`/v3/auth/authenticate`) and sends the token with
 * every call, authenticating again once when etcd says it expired. The
 * password and the token are secrets: never in an error.
 *
 * A client is not thread-safe: a thread that calls etcd has its own.
 */
#ifndef LIB_ETCD_H
#define LIB_ETCD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

struct etcd_opts {
	const char *const *endpoints; /* "http://127.0.0.1:2379", ... */
	size_t nendpoints;
	const char *ca_file;   /* NULL = the system store (https) */
	const char *cert_file; /* client certificate (PEM), or NULL */
	const char *key_pem;   /* its private key as PEM text, or NULL */
	const char *user;      /* etcd's authentication, or NULL */
	const char *password;
	long timeout_ms;         /* one call to one member */
	long connect_timeout_ms; /* 0 = timeout_ms */
};

struct etcd; /* a client */

/* A client for o (its strings are copied). Sends nothing yet. */
int etcd_open(struct etcd **out, const struct etcd_opts *o, struct err *err);
void etcd_close(struct etcd *e); /* NULL is a no-op */

/* The endpoint the last call went to (borrowed), for logs. */
const char *etcd_endpoint(const struct etcd *e);

/* Why the last failed call failed: ETCD_UNAVAILABLE when no member
 * answered in time (down, partitioned, without quorum), ETCD_REFUSED
 * when etcd answered with an error. */
enum etcd_fail { ETCD_NONE = 0, ETCD_UNAVAILABLE, ETCD_REFUSED };
enum etcd_fail etcd_last_fail(const struct etcd *e);

/* One key as read. */
struct etcd_kv {
	char *key;
	char *value; /* NUL-terminated too; value_len bytes */
	size_t value_len;
	int64_t create_revision, mod_revision, version, lease;
};

struct etcd_kvs {
	struct etcd_kv *v;
	size_t n, cap;
	int64_t revision; /* the store's revision when read */
};
void etcd_kvs_release(struct etcd_kvs *kvs);

/* Leases. grant: a new lease of ttl seconds (*id, *granted). keepalive:
 * renew id; *ttl is what is left (its full TTL), 0 when the lease no
 * longer exists (expired or revoked). ttl_left: what is left without
 * renewing (0: gone). revoke: the lease and every key attached to it. */
int etcd_lease_grant(struct etcd *e, long ttl, int64_t *id, long *granted,
    struct err *err);
int etcd_lease_keepalive(struct etcd *e, int64_t id, long *ttl,
    struct err *err);
int etcd_lease_ttl_left(struct etcd *e, int64_t id, long *ttl, struct err *err);
int etcd_lease_revoke(struct etcd *e, int64_t id, struct err *err);

/* The key, or every key under it with prefix, into *out (released first;
 * sorted by key, as etcd returns them). */
int etcd_range(struct etcd *e, const char *key, bool prefix,
    struct etcd_kvs *out, struct err *err);
/* Put value under key (lease 0: none). *revision (may be NULL): the
 * revision of the write. */
int etcd_put(struct etcd *e, const char *key, const void *value, size_t len,
    int64_t lease, int64_t *revision, struct err *err);
/* Delete the key (or every key under it). *deleted may be NULL. */
int etcd_delete(struct etcd *e, const char *key, bool prefix, int64_t *deleted,
    struct err *err);

/* Transactions: if every compare holds, the success operations run, else
 * the failure ones; atomically. */
enum etcd_target {
	ETCD_CREATE,
	ETCD_MOD,
	ETCD_VERSION,
	ETCD_VALUE,
	ETCD_LEASE
};
enum etcd_result { ETCD_EQUAL, ETCD_NOT_EQUAL, ETCD_GREATER, ETCD_LESS };
struct etcd_cmp {
	const char *key;
	enum etcd_target target;
	enum etcd_result result;
	int64_t num;       /* CREATE, MOD, VERSION, LEASE */
	const char *value; /* VALUE: value_len bytes */
	size_t value_len;
};
enum etcd_op_kind { ETCD_OP_GET, ETCD_OP_PUT, ETCD_OP_DELETE };
struct etcd_op {
	enum etcd_op_kind kind;
	const char *key;
	bool prefix; /* GET, DELETE */
	const void *value;
	size_t value_len;
	int64_t lease; /* PUT */
};
struct etcd_txn {
	const struct etcd_cmp *cmp;
	size_t ncmp;
	const struct etcd_op *success, *failure;
	size_t nsuccess, nfailure;
};
struct etcd_txn_result {
	bool succeeded;
	int64_t revision;
	struct etcd_kvs kvs; /* what the GETs of the branch taken read */
};
void etcd_txn_result_release(struct etcd_txn_result *r);
int etcd_txn(struct etcd *e, const struct etcd_txn *t,
    struct etcd_txn_result *r, struct err *err);

/* The key just past every key that starts with prefix (etcd's range end
 * for a prefix); owned. */
char *etcd_prefix_end(const char *prefix);

#endif
