/* reconcile/recon-int.h: helpers shared inside reconcile/ only. */
#ifndef RECON_RECON_INT_H
#define RECON_RECON_INT_H

#include "recon.h"

/* "anycast" / "multicast" (lower case, as in declarations). */
const char *recon_routing_name(unsigned one_routing);
/* Accepts either case; -1 when s is neither. */
int recon_routing_parse(const char *s, unsigned *out);
/* "STRIP", "PASS", "ANYCAST", "MULTICAST". */
const char *recon_divert_routing_name(enum decl_divert_routing r);
int recon_divert_routing_parse(const char *s, enum decl_divert_routing *out);

void recon_queue_release(struct recon_queue *q);
void recon_address_release(struct recon_address *a);
void recon_divert_release(struct recon_divert *d);
void recon_node_snapshot_release(struct recon_node_snapshot *n);
/* Sort every array of n by name (the order lookups and JSON rely on). */
void recon_node_snapshot_sort(struct recon_node_snapshot *n);

/* Lookups by address in one node (node-index.c). The index of a complete
 * snapshot is n->index, built by recon_node_snapshot_sort() and by the
 * snapshot parser; a snapshot assembled by hand has none (build one). It
 * gives the indices (into n->queues / n->diverts, ascending, so in name
 * order) of the queues bound to address, and of the diverts whose source
 * is address or whose forwarding address names it. *out is the caller's. */
struct recon_node_index *recon_node_index_build(
    const struct recon_node_snapshot *n);
size_t recon_node_queues_at(const struct recon_node_index *x,
    const char *address, size_t **out);
size_t recon_node_diverts_around(const struct recon_node_index *x,
    const char *address, size_t **out);
void recon_node_index_free(struct recon_node_index *x);
/* The next target of a comma-separated forwarding address, trimmed of
 * white space as Artemis and validation (declarations/check.c) trim it:
 * *target and *len (0 for an empty one); *p moves past it. False when
 * *p is NULL (no more targets). */
bool recon_forward_target(const char **p, const char **target, size_t *len);
/* Sort v ascending and drop repeats. */
void recon_index_sort_unique(size_t *v, size_t *n);

struct recon_jbulk;
/* The one bulk request of a snapshot read (hint: broker name for the
 * address-settings exec). */
void recon_snapshot_build_request(struct recon_jbulk *b, const char *hint);
/* Fill n from the parsed reply of that request: contents, or a refusal
 * (the first refused element; BAD_RESPONSE for a wrong shape). */
void recon_node_snapshot_from_reply(struct recon_node_snapshot *n,
    const struct recon_jbulk *b);

/* Reading one MBean's attributes (snapshot-attrs.c). */
struct recon_rd {
	const char *what; /* "queue '<mbean>'", for messages */
	char *bad;        /* the first problem, owned; NULL when none */
};
struct cJSON;
void recon_to_address(struct recon_rd *r, const char *mbean,
    const struct cJSON *attrs, struct recon_address *a);
void recon_to_queue(struct recon_rd *r, const char *mbean,
    const struct cJSON *attrs, struct recon_queue *q);
void recon_to_divert(struct recon_rd *r, const char *mbean,
    const struct cJSON *attrs, struct recon_divert *d);

#endif
