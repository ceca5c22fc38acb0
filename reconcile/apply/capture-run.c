/* reconcile/apply/capture-run.c: the capture pass at apply time and on
 * drift (ADR-0084 decision 5; docs/captures.md). The plan's own capture
 * actions are a prediction: apply does not replay them. After the plan's
 * operations it runs the pass on each node as read after them (engine.c
 * reads the nodes), with the declaration's captures, and runs the pass's
 * operations. */
#include "../live/live.h"
#include "apply-int.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/strv.h"
#include "../../lib/xalloc.h"

/* What pass_ctx allocates, freed by pass_release. */
struct pass_own {
	char **removed, **ua, **uq;
};

/* The pass's context: the declaration's captures, the captures the plan
 * removes and what the declaration leaves alone (managed: false). */
static void
pass_ctx(struct plan_capture_ctx *ctx, struct pass_own *own,
    const struct plan *p, const struct decl_cluster *decl)
{
	size_t n = 0;

	memset(ctx, 0, sizeof(*ctx));
	plan_capture_unmanaged(decl, &own->ua, &ctx->nunmanaged_addresses,
	    &own->uq, &ctx->nunmanaged_queues);
	ctx->unmanaged_addresses = (const char *const *)own->ua;
	ctx->unmanaged_queues = (const char *const *)own->uq;
	own->removed = plan_removed_captures(p, decl, &n);
	ctx->prefix = decl->settings.capture_prefix;
	ctx->captures = decl->captures;
	ctx->ncaptures = decl->ncaptures;
	ctx->removed = (const char *const *)own->removed;
	ctx->nremoved = n;
	ctx->disconnect_consumers = p->disconnect_consumers;
}

static void
pass_release(const struct plan_capture_ctx *ctx, struct pass_own *own)
{
	strv_array_free(own->removed, ctx->nremoved);
	strv_array_free(own->ua, ctx->nunmanaged_addresses);
	strv_array_free(own->uq, ctx->nunmanaged_queues);
}

/* Append the steps' operations to out; refused steps become notes, and so
 * does what the pass left out (managed: false). */
static void
take_steps(struct apply_node *out, const struct plan_capture_steps *s)
{
	struct plan_action a;
	size_t i, j;

	for (i = 0; i < s->nskipped; i++)
		apply_node_note(out, "capture pass: %s", s->skipped[i]);
	for (i = 0; i < s->n; i++) {
		memset(&a, 0, sizeof(a));
		a.kind = s->v[i].kind;
		a.name = s->v[i].name;
		if (s->v[i].np.outcome != PLAN_OUT_WOULD_APPLY) {
			out->capture_incomplete = true;
			apply_node_note(out,
			    "capture pass: %s '%s' not run: %s",
			    plan_action_kind_name(a.kind), a.name,
			    s->v[i].np.message != NULL ? s->v[i].np.message
			                               : "refused");
			continue;
		}
		apply_node_note(out, "capture pass: %s '%s': %s",
		    plan_action_kind_name(a.kind), a.name,
		    s->v[i].np.message != NULL ? s->v[i].np.message : "");
		for (j = 0; j < s->v[i].np.nops; j++)
			apply_node_add_op(out, &a, &s->v[i].np.ops[j]);
	}
}

bool
apply_capture_idle(const struct plan *p, const struct decl_cluster *decl)
{
	struct plan_capture_ctx ctx;
	struct pass_own own;
	bool idle;

	pass_ctx(&ctx, &own, p, decl);
	/* plan_capture_pass: no prefix, or nothing declared and nothing
	 * removed, gives no step whatever the node holds */
	idle = ctx.prefix == NULL || ctx.prefix[0] == '\0' ||
	       (ctx.ncaptures == 0 && ctx.nremoved == 0);
	pass_release(&ctx, &own);
	return idle;
}

int
apply_capture_node(const struct plan *p, const struct decl_cluster *decl,
    const struct apply_io *io, const struct recon_node_snapshot *n,
    struct apply_node *out)
{
	struct plan_capture_steps steps = {0};
	struct plan_capture_ctx ctx;
	enum apply_outcome was = out->outcome;
	struct pass_own own;
	size_t from = out->nops;
	int rc = 0;

	pass_ctx(&ctx, &own, p, decl);
	if (n->refusal.kind != RECON_OK) {
		rc = -1;
		out->capture_incomplete = true;
		apply_node_note(out,
		    "capture pass: the node could not be read again: %s: %s",
		    recon_kind_name(n->refusal.kind),
		    n->refusal.text != NULL ? n->refusal.text : "no detail");
	} else {
		plan_capture_pass(&steps, n, &ctx);
	}
	take_steps(out, &steps);
	if (out->nops > from &&
	    apply_run_ops(io, out, from, false) == APPLY_OPS_FAILED) {
		out->capture_incomplete = true;
		if (was == APPLY_APPLIED)
			apply_node_note(out,
			    "the plan's own operations on this node were applied before the capture pass failed");
	}
	plan_capture_steps_release(&steps);
	pass_release(&ctx, &own);
	return rc;
}

/* Every node is read at once (one read each), then each runs its pass. */
int
apply_capture_pass(struct apply_result *r, const struct plan *p,
    const struct decl_cluster *decl, const struct apply_io *io)
{
	struct recon_node_snapshot *snaps;
	struct apply_node *out;
	const char **names;
	size_t i;

	r->disconnect_consumers = p->disconnect_consumers;
	r->nnodes = p->nnodes;
	r->nodes = xcalloc(p->nnodes + 1, sizeof(*r->nodes));
	names = xcalloc(p->nnodes + 1, sizeof(*names));
	snaps = xcalloc(p->nnodes + 1, sizeof(*snaps));
	for (i = 0; i < p->nnodes; i++)
		names[i] = p->nodes[i].node;
	apply_read_nodes(io, names, p->nnodes, snaps);
	for (i = 0; i < p->nnodes; i++) {
		out = &r->nodes[i];
		out->node = xstrdup(p->nodes[i].node);
		apply_node_set(out, APPLY_SKIPPED, NULL,
		    xstrdup("nothing to do: the captures are as declared"));
		if (apply_capture_node(p, decl, io, &snaps[i], out) < 0)
			apply_node_set(out, APPLY_UNREACHABLE, "UNREACHABLE",
			    xstrdup("the node could not be read (see notes)"));
		live_node_release(&snaps[i]);
	}
	free(snaps);
	free(names);
	return 0;
}
