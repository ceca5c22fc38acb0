/* reconcile/plan/versions.c: what each node's Artemis release changes in
 * its steps (docs/compatibility.md): a node below the floor is refused
 * (plan_step_not_read); a divert destroyed on a release that keeps its
 * journal record (before 2.32) is said to come back at the broker's
 * restart, beside the broker.xml caveat; a divert with a transformer
 * created on a release that does not journal it (before 2.37) is said to
 * be lost then. The operations' overloads follow the version at apply
 * (reconcile/live); plan.md names the positional ones; a divert change
 * before 2.38 is a recreate (diff-divert.c). */
#include "plan-int.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/xalloc.h"

void
plan_step_not_read(struct plan_step *np, const struct recon_node_snapshot *n)
{
	np->refusal_kind = n != NULL ? n->refusal.kind : RECON_UNREACHABLE;
	np->refusal = xstrdup(recon_kind_name(np->refusal_kind));
	np->message = xstrdup(n != NULL && n->refusal.text != NULL
	                          ? n->refusal.text
	                          : "the node is not in the snapshot");
	if (np->refusal_kind == RECON_PASSIVE) {
		/* a passive broker: nothing is planned on it (ha.c) */
		np->outcome = PLAN_OUT_PASSIVE;
		return;
	}
	if (recon_kind_ha_refusal(np->refusal_kind)) {
		/* read, and refused: a split brain, or not one pair */
		np->outcome = PLAN_OUT_REFUSED;
		np->next_step = xstrdup(plan_ha_next_step(np->refusal_kind));
		return;
	}
	if (np->refusal_kind != RECON_UNSUPPORTED_VERSION) {
		np->outcome = PLAN_OUT_UNREACHABLE;
		return;
	}
	/* read, and refused: the agent does not act on that release */
	np->outcome = PLAN_OUT_REFUSED;
	np->next_step = xstrdup(
	    "upgrade the broker to Artemis " RECON_VERSION_FLOOR
	    " or later, or take the node out of the cluster's declaration");
}

/* Has the step an operation of that kind on that name? */
static bool
has_op(const struct plan_step *np, enum recon_op_kind kind, const char *name)
{
	size_t i;

	for (i = 0; i < np->nops; i++)
		if (np->ops[i].kind == kind &&
		    strcmp(np->ops[i].name, name) == 0)
			return true;
	return false;
}

static void
step_notes(struct plan_step *np, enum plan_action_kind k, const char *version)
{
	const struct recon_op *op;
	size_t i;

	for (i = 0; i < np->nops; i++) {
		op = &np->ops[i];
		/* a recreate's createDivert journals the divert anew
		 * (measured on 2.31.2: the new configuration is what a
		 * restart deploys), unless it has a transformer */
		if (op->kind == RECON_OP_DESTROY_DIVERT &&
		    recon_version_divert_destroy_kept(version) &&
		    !has_op(np, RECON_OP_CREATE_DIVERT, op->name))
			plan_step_warn(np,
			    "Artemis %s does not remove a destroyed divert from its journal (ARTEMIS-4521, fixed in 2.32.0): divert '%s' comes back at this broker's next restart, and can bring back what it forwards to; %s, or upgrade the broker to 2.32.0 or later",
			    version, op->name,
			    k == PLAN_ACT_DELETE_DIVERT
			        ? "it stays managed, so the first plan after that restart removes it again"
			        : "destroy it again after a restart");
		if (op->kind == RECON_OP_CREATE_DIVERT && op->divert != NULL &&
		    op->divert->transformer_class_name != NULL &&
		    recon_version_divert_transformer_lost(version))
			plan_step_warn(np,
			    "Artemis %s does not write a divert with a transformer to its journal: divert '%s' is gone after this broker's next restart%s; declare it in broker.xml as well, or upgrade the broker to 2.37.0 or later",
			    version, op->name,
			    recon_version_divert_destroy_kept(version) &&
			            has_op(np, RECON_OP_DESTROY_DIVERT,
			                op->name)
			        ? ", and the configuration it replaces comes back in its place"
			        : "");
	}
}

void
plan_diff_versions(struct plan_diff *d)
{
	struct plan *p = d->plan;
	size_t i, k;

	for (i = 0; i < p->nactions; i++)
		for (k = 0; k < p->actions[i].nnodes && k < d->decl->nnodes;
		     k++)
			if (d->nodes[k] != NULL &&
			    d->nodes[k]->refusal.kind == RECON_OK)
				step_notes(&p->actions[i].nodes[k],
				    p->actions[i].kind,
				    d->nodes[k]->broker_version);
}
