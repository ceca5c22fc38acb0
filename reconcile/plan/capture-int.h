/* reconcile/capture-int.h: shared by the capture pass's files only
 * (reconcile/capture.c, reconcile/capture-del.c). */
#ifndef RECON_CAPTURE_INT_H
#define RECON_CAPTURE_INT_H

#include "plan-int.h"

/* A queue of the node as the plan leaves it. */
struct plan_capture_queue {
	const char *name;
	const char *address;
	bool internal;
};

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
 * ring queue and its capture address (capture-del.c). */
void plan_capture_removed(struct plan_capture_node *c, const char *name);

#endif
