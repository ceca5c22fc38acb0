/* agent/coord.h: several agents on one etcd (docs/ha.md).
 *
 * Every agent holds one lease (coordination.lease-ttl) and, under it, its
 * member key `<prefix>members/<id>`. A cluster is owned through an owner
 * key attached to the owner's lease, created only when absent (a
 * transaction comparing the key's create revision with 0):
 *
 *   shard.mode none   `<prefix>leader`: one leader owns every cluster
 *   shard.mode hash   `<prefix>owners/<cluster>`: one owner per cluster,
 *                     the agent that rendezvous hashing picks among the
 *                     members alive
 *
 * The owner key's create revision is the ownership's **epoch**: it is
 * written into every audit row and every state write, and every request
 * that changes a broker is preceded by agent_coord_fence, which confirms in
 * one etcd transaction that the key still has that create revision and is
 * still attached to this agent's lease, and refuses when the lease has less
 * than coordination.lease-margin left by the agent's own clock (its last
 * renewal's send time plus the TTL: conservative, and true across a
 * SIGSTOP, since the monotonic clock runs on). A thread renews the lease
 * every third of its TTL; a paused agent renews nothing.
 *
 * What a successor needs lives in etcd too (agent_coord_put_state ...):
 * the state files, the audit rows and the approvals, written only under
 * the epoch (a transaction comparing the owner key's create revision), read
 * back when an agent takes a cluster over.
 */
#ifndef AGENT_COORD_H
#define AGENT_COORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../lib/err.h"
#include "../lib/strv.h"

struct agent_conf;
struct metrics;

struct agent_coord; /* opaque */

/* Connect (the credentials folder's key and password files read), grant
 * the lease, write the member key and start the renewing thread. http: the
 * agent's web address or NULL, shown to the others. */
int agent_coord_start(struct agent_coord **out, const struct agent_conf *c,
    const char *http, struct err *err);
/* Stop renewing and revoke the lease: every key of this agent goes at once
 * (its clusters are free for the others without waiting for the TTL).
 * NULL is a no-op. */
void agent_coord_stop(struct agent_coord *co);

const char *agent_coord_id(const struct agent_coord *co);
/* "none" or "hash". */
const char *agent_coord_mode(const struct agent_coord *co);

/* The clusters' ownership for this cycle: the members alive read, the
 * owner keys taken (or, with hash, given up when another member is now
 * the choice: only here, between cycles, never during an apply). clusters
 * are every cluster the agent knows. A new lease is granted when the old
 * one was lost (its ownerships went with it). -1 when etcd could not be
 * asked: nothing is owned then. */
int agent_coord_refresh(struct agent_coord *co, const char *const *clusters,
    size_t n, struct err *err);

/* A cluster this agent has not seen before, claimed with the members as
 * last read: taken when rendezvous hashing picks this agent and nobody
 * holds it, else its owner read (one etcd request; refresh's work when
 * the lease must be renewed first, or with shard mode none). */
int agent_coord_claim(struct agent_coord *co, const char *cluster,
    struct err *err);

/* The epoch under which this agent owns cluster (as of the last refresh
 * or fence), or 0 when it does not. */
int64_t agent_coord_epoch(const struct agent_coord *co, const char *cluster);
/* The owner of cluster as last read (borrowed; NULL: none known). */
const char *agent_coord_owner(const struct agent_coord *co,
    const char *cluster);
/* The members alive as last read (sorted). */
const struct strv *agent_coord_members(const struct agent_coord *co);
/* True when cluster was taken over at the last refresh (it was not owned
 * before): the caller restores its state from etcd. Cleared by the call. */
bool agent_coord_taken(struct agent_coord *co, const char *cluster);

/* Before a request that changes a broker (or a state write) for cluster:
 * 0 when this agent still owns it under the same epoch with more than the
 * margin left on its lease; -1 with err otherwise (and the ownership is
 * dropped: the caller stops what it was doing). */
int agent_coord_fence(struct agent_coord *co, const char *cluster,
    struct err *err);

/* State in etcd (state-backend: etcd). A state file of cluster, written
 * under the epoch (fenced in the same transaction); read back. */
int agent_coord_put_state(struct agent_coord *co, const char *cluster,
    const char *name, const void *data, size_t len, struct err *err);
/* Delete a state file of cluster, under the epoch. */
int agent_coord_delete_state(struct agent_coord *co, const char *cluster,
    const char *name, struct err *err);
/* 0 with *out (owned), 1 when there is none, -1 on error. */
int agent_coord_get_state(struct agent_coord *co, const char *cluster,
    const char *name, char **out, size_t *len, struct err *err);
/* Append an audit row of cluster, under the epoch the row was written in
 * (its key: audit/<cluster>/<epoch>/...): append-only, and not fenced, so
 * that an agent that lost its cluster in the middle of an apply still
 * records what it did (the result row of an apply the fence cut short:
 * ADR-0084 D3). Nothing is sent to a broker after a failed fence. */
int agent_coord_put_audit(struct agent_coord *co, const char *cluster,
    int64_t epoch, const char *row, struct err *err);
/* Every audit row of cluster, in order, into *rows. */
int agent_coord_get_audit(struct agent_coord *co, const char *cluster,
    struct strv *rows, struct err *err);

/* An operator's word on a cluster kept in etcd for whichever agent owns
 * it: what is "suspended" (the suspension's JSON; NULL deletes it: resume).
 * Opens its own client from c; no lease, no ownership. */
int agent_coord_intent(const struct agent_conf *c, const char *what,
    const char *cluster, const char *data, struct err *err);
/* Every such word of kind what: the clusters and their values (in key
 * order), appended to clusters and values. */
int agent_coord_intents(struct agent_coord *co, const char *what,
    struct strv *clusters, struct strv *values, struct err *err);

/* state-migrate: the state folder dir's clusters (their inventory.json
 * and suspended.json) and audit rows (rows[i] of cluster row_clusters[i],
 * in the log's order, under epoch 0) put into etcd under c's prefix,
 * what was done (or, dry_run, would be) appended to report. Refused, with
 * nothing written, while an agent runs on the prefix or when etcd already
 * holds state of one of the clusters. */
struct sbuf;
int agent_coord_migrate(const struct agent_conf *c, const char *dir,
    const struct strv *clusters, const struct strv *rows,
    const struct strv *row_clusters, bool dry_run, struct sbuf *report,
    struct err *err);

/* The etcd requests sent since start (every kind), for the metrics. */
uint64_t agent_coord_requests(struct agent_coord *co);

/* Rendezvous hashing: the member of members[0..n) that owns key (the
 * highest SHA-256 of "member\nkey"); NULL when n is 0. */
const char *agent_coord_pick(const char *const *members, size_t n,
    const char *key);

#endif
