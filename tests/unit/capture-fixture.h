/* tests/unit/capture-fixture.h: the capture pass's unit tests: the pass's
 * context from a hand-built declaration (recon-fixture.h), and a node as
 * the pass leaves it. */
#ifndef TESTS_UNIT_CAPTURE_FIXTURE_H
#define TESTS_UNIT_CAPTURE_FIXTURE_H

#include <stdlib.h>
#include <string.h>

#include "../../reconcile/plan/plan.h"
#include "recon-fixture.h"

static inline void
ctx_of(struct plan_capture_ctx *ctx, const struct fx *f)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->prefix = f->c.settings.capture_prefix;
	ctx->captures = f->c.captures;
	ctx->ncaptures = f->c.ncaptures;
}

/* The node as the pass leaves it for capture 'dbg' on address 'orders'. */
static inline void
applied(struct fx *f, size_t i, const char *address)
{
	struct recon_queue *q;
	struct recon_divert *d;
	char *tap;

	q = fx_lqueue(f, i, "__capture.dbg", "__capture.dbg", 0, 0);
	q->durable = false;
	q->ring_size = 1000;
	tap = xasprintf("__capture.dbg.%s", address);
	d = fx_ldivert(f, i, tap, address, "__capture.dbg");
	d->routing_type = DECL_DIVERT_ANYCAST;
	free(tap);
}

#endif
