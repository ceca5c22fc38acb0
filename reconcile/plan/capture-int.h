/* reconcile/capture-int.h: shared by the capture pass's files only
 * (reconcile/capture.c, reconcile/capture-del.c). */
#ifndef RECON_CAPTURE_INT_H
#define RECON_CAPTURE_INT_H

#include "plan-int.h"

/* A queue of the node as the plan leaves it. */
struct recon_cqueue {
	const char *name;
	const char *address;
	bool internal;
};

struct recon_cnode {
	const struct recon_node_snapshot *n;
	const struct recon_capture_ctx *ctx;
	struct recon_cqueue *q;
	size_t nq;
	struct recon_capture_steps *out;
};

/* Append a step (outcome WOULD_APPLY) for node c->n; returns its step. */
struct recon_node_plan *recon_capture_add_step(struct recon_cnode *c,
    enum recon_act kind, const char *name, const char *address);
/* D6 for a ring queue about to be destroyed: refuse np when q has
 * consumers and flag is false, else warn. */
void recon_capture_ring_consumers(struct recon_node_plan *np,
    const struct recon_queue *q, bool flag);
/* A delete-tap step for the live tap d, why as its message. */
void recon_capture_tap_remove(struct recon_cnode *c,
    const struct recon_divert *d, const char *why);
/* A capture applied before and no longer declared: every tap of it, its
 * ring queue and its capture address (capture-del.c). */
void recon_capture_removed(struct recon_cnode *c, const char *name);

#endif
