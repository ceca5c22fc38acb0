/* reconcile/apply-io.h: the live broker side of apply (apply-io.c). */
#ifndef RECON_APPLY_IO_H
#define RECON_APPLY_IO_H

#include <stddef.h>

#include "apply.h"

/* The nodes to talk to. The caller fills cluster, targets (borrowed:
 * node, url, userpass per node) and http, then calls recon_live_io_init,
 * which points io at it; io->intent and io->progress stay the caller's.
 * Each read remembers the node's broker name for its operations. */
struct recon_live_io {
	const char *cluster;
	const struct recon_target *targets;
	size_t ntargets;
	const struct recon_http_opts *http;
	char **brokers; /* per target: the broker name last read; internal */
};

void recon_live_io_init(struct recon_live_io *live, struct recon_apply_io *io);
void recon_live_io_release(struct recon_live_io *live);

#endif
