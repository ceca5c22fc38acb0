/* reconcile/plan-node.c: building and freeing node plans and plans. */
#include "plan-int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/xalloc.h"

struct recon_op *
plan_step_add_op(struct plan_step *np, enum recon_op_kind kind,
    const char *name)
{
	struct recon_op *op;

	np->ops = xreallocarray(np->ops, np->nops + 1, sizeof(*np->ops));
	op = &np->ops[np->nops++];
	memset(op, 0, sizeof(*op));
	op->kind = kind;
	op->name = xstrdup(name);
	return op;
}

static char *
vformat(const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0)
		return xstrdup("?");
	return s;
}

void
plan_step_warn(struct plan_step *np, const char *fmt, ...)
{
	va_list ap;

	np->warnings = xreallocarray(np->warnings, np->nwarnings + 1,
	    sizeof(*np->warnings));
	va_start(ap, fmt);
	np->warnings[np->nwarnings++] = vformat(fmt, ap);
	va_end(ap);
}

void
plan_step_refuse(struct plan_step *np, const char *refusal,
    const char *next_step, const char *fmt, ...)
{
	va_list ap;

	np->outcome = PLAN_OUT_REFUSED;
	free(np->refusal);
	free(np->next_step);
	free(np->message);
	np->refusal = xstrdup(refusal);
	np->next_step = next_step != NULL ? xstrdup(next_step) : NULL;
	va_start(ap, fmt);
	np->message = vformat(fmt, ap);
	va_end(ap);
}

static void
observed_release(struct plan_observed *o)
{
	size_t i;

	recon_queue_release(o->queue);
	free(o->queue);
	recon_divert_release(o->divert);
	free(o->divert);
	for (i = 0; i < o->nbindings; i++)
		free(o->bindings[i]);
	free(o->bindings);
	memset(o, 0, sizeof(*o));
}

static void
op_release(struct recon_op *op)
{
	free(op->name);
	recon_queue_release(op->queue);
	free(op->queue);
	recon_divert_release(op->divert);
	free(op->divert);
}

void
plan_step_release(struct plan_step *np)
{
	size_t i;

	free(np->node);
	free(np->refusal);
	free(np->message);
	free(np->next_step);
	observed_release(&np->observed);
	for (i = 0; i < np->nops; i++)
		op_release(&np->ops[i]);
	free(np->ops);
	for (i = 0; i < np->nremoved; i++)
		recon_divert_release(&np->removed[i].config);
	free(np->removed);
	for (i = 0; i < np->nkept; i++) {
		free(np->kept[i].name);
		free(np->kept[i].address);
		free(np->kept[i].forwarding_address);
		free(np->kept[i].reason);
	}
	free(np->kept);
	for (i = 0; i < np->ntaps; i++) {
		free(np->taps[i].name);
		free(np->taps[i].capture);
		free(np->taps[i].reason);
	}
	free(np->taps);
	for (i = 0; i < np->nwarnings; i++)
		free(np->warnings[i]);
	free(np->warnings);
	memset(np, 0, sizeof(*np));
}

static void
strs_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void
action_release(struct plan_action *a)
{
	size_t i;

	free(a->name);
	free(a->address);
	free(a->why);
	for (i = 0; i < a->nnodes; i++)
		plan_step_release(&a->nodes[i]);
	free(a->nodes);
}

void
plan_free(struct plan *p)
{
	size_t i;

	if (p == NULL)
		return;
	free(p->kind);
	free(p->cluster);
	free(p->revision);
	free(p->declaration_digest);
	free(p->base_source);
	free(p->base_revision);
	free(p->snapshot_source);
	free(p->snapshot_taken_at);
	free(p->capture_prefix);
	strs_free(p->capture_names, p->ncaptures);
	strs_free(p->capture_patterns, p->ncaptures);
	free(p->capture_ring_sizes);
	free(p->refusal);
	free(p->message);
	free(p->next_step);
	for (i = 0; i < p->nnodes; i++) {
		free(p->nodes[i].node);
		free(p->nodes[i].refusal);
		free(p->nodes[i].message);
	}
	free(p->nodes);
	for (i = 0; i < p->nactions; i++)
		action_release(&p->actions[i]);
	free(p->actions);
	for (i = 0; i < p->nunmanaged; i++) {
		free(p->unmanaged[i].kind);
		free(p->unmanaged[i].name);
		strs_free(p->unmanaged[i].nodes, p->unmanaged[i].nnodes);
	}
	free(p->unmanaged);
	strs_free(p->diagnostics, p->ndiagnostics);
	for (i = 0; i < p->nbroker_xml; i++)
		plan_broker_xml_release(&p->broker_xml[i]);
	free(p->broker_xml);
	free(p->broker_xml_before);
	free(p);
}
