/* reconcile/plan/diff-divert.c: the three-way diff for declared diverts:
 * create, change in place (what updateDivert can change) or recreate. */
#include "plan-int.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/sbuf.h"
#include "../../lib/xalloc.h"

static bool
props_eq(const struct recon_divert *a, const struct recon_divert *b)
{
	size_t i;

	if (a->ntransformer_properties != b->ntransformer_properties)
		return false;
	for (i = 0; i < a->ntransformer_properties; i++)
		if (strcmp(a->transformer_properties[i].key,
		        b->transformer_properties[i].key) != 0 ||
		    strcmp(a->transformer_properties[i].value,
		        b->transformer_properties[i].value) != 0)
			return false;
	return true;
}

/* updateDivert cannot change address, exclusive or routing-name, and
 * cannot remove a transformer (artemis-management.md 2.5). */
static void
divert_diffs(struct sbuf *re, struct sbuf *up, const struct recon_divert *w,
    const struct recon_divert *l)
{
	if (!recon_str_eq(w->address, l->address))
		sbuf_adds(re, ", address");
	if (w->exclusive != l->exclusive)
		sbuf_adds(re, ", exclusive");
	if (!recon_str_eq(w->routing_name, l->routing_name))
		sbuf_adds(re, ", routing-name");
	if (w->transformer_class_name == NULL &&
	    l->transformer_class_name != NULL)
		sbuf_adds(re, ", transformer (removed)");
	if (!recon_str_eq(w->forwarding_address, l->forwarding_address))
		sbuf_adds(up, ", forwarding-address");
	if (!recon_str_eq(w->filter, l->filter))
		sbuf_adds(up, ", filter");
	if (w->routing_type != l->routing_type)
		sbuf_adds(up, ", routing-type");
	if (w->transformer_class_name != NULL &&
	    (!recon_str_eq(w->transformer_class_name,
	         l->transformer_class_name) ||
	        !props_eq(w, l)))
		sbuf_adds(up, ", transformer");
}

static struct plan_step *
divert_node(struct plan_diff *d, enum plan_action_kind k,
    const struct decl_divert *dd, size_t i, const struct recon_divert *live)
{
	struct plan_step *np;

	np = plan_diff_step(d, k, dd->name, dd->address, i);
	np->outcome = PLAN_OUT_WOULD_APPLY;
	if (live != NULL) {
		np->observed.present = true;
		np->observed.divert = recon_divert_dup(live);
	}
	return np;
}

static void
plan_divert_node(struct plan_diff *d, const struct decl_divert *dd, size_t i)
{
	const struct recon_divert *ld =
	    recon_node_find_divert(d->nodes[i], dd->name);
	struct plan_step *np = NULL;
	struct recon_divert want;
	struct sbuf re = {0}, up = {0};
	struct recon_op *op;

	recon_divert_from_decl(&want, dd);
	if (ld == NULL) {
		np = divert_node(d, PLAN_ACT_CREATE_DIVERT, dd, i, NULL);
		op = plan_step_add_op(np, RECON_OP_CREATE_DIVERT, dd->name);
		op->divert = recon_divert_dup(&want);
		plan_planned_diverts_add_ops(&d->ctx[i].planned_d, np);
		return;
	}
	divert_diffs(&re, &up, &want, ld);
	if (re.len == 0 && up.len > 0 &&
	    !recon_version_divert_json(d->nodes[i]->broker_version)) {
		/* No updateDivert(JSON) before 2.38, and the positional one
		 * journals the divert without its address: the broker then
		 * fails to start (measured on every release from 2.28 to
		 * 2.44, docs/compatibility.md). A change is a recreate. */
		np = divert_node(d, PLAN_ACT_RECREATE_DIVERT, dd, i, ld);
		np->message = xasprintf(
		    "differs: %s; Artemis %s has no updateDivert(java.lang.String), and its positional updateDivert journals the divert without its address (the broker then fails to start), so the divert is destroyed and created again",
		    sbuf_str(&up) + 2, d->nodes[i]->broker_version);
		op = plan_step_add_op(np, RECON_OP_DESTROY_DIVERT, dd->name);
		op->divert = recon_divert_dup(ld);
		op = plan_step_add_op(np, RECON_OP_CREATE_DIVERT, dd->name);
		op->divert = recon_divert_dup(&want);
	} else if (re.len > 0) {
		np = divert_node(d, PLAN_ACT_RECREATE_DIVERT, dd, i, ld);
		np->message = xasprintf(
		    "differs in what updateDivert cannot change: %s%s",
		    sbuf_str(&re) + 2, sbuf_str(&up));
		op = plan_step_add_op(np, RECON_OP_DESTROY_DIVERT, dd->name);
		op->divert = recon_divert_dup(ld);
		op = plan_step_add_op(np, RECON_OP_CREATE_DIVERT, dd->name);
		op->divert = recon_divert_dup(&want);
	} else if (up.len > 0) {
		np = divert_node(d, PLAN_ACT_CHANGE_DIVERT, dd, i, ld);
		np->message = xasprintf("differs: %s", sbuf_str(&up) + 2);
		op = plan_step_add_op(np, RECON_OP_UPDATE_DIVERT, dd->name);
		op->divert = recon_divert_dup(&want);
	}
	sbuf_release(&re);
	sbuf_release(&up);
	if (np != NULL)
		plan_planned_diverts_add_ops(&d->ctx[i].planned_d, np);
}

void
plan_diff_divert(struct plan_diff *d, const struct decl_divert *dd)
{
	size_t i;

	if (dd->policy.unmanaged) /* managed: false: left alone */
		return;
	plan_diff_object_begin(d);
	for (i = 0; i < d->decl->nnodes; i++)
		if (plan_diff_reachable(d, i))
			plan_divert_node(d, dd, i);
	plan_diff_object_end(d);
}
