/* reconcile/plan/plan.c: the plan model: the names of its enums, building
 * node steps, the refused plan of an invalid declaration, diagnostics, and
 * freeing. */
#include "plan-int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/strv.h"
#include "../../lib/xalloc.h"

static const char *const act_names[PLAN_ACT_COUNT] = {
    "create-address",
    "widen-address",
    "create-queue",
    "create-divert",
    "change-queue",
    "change-divert",
    "recreate-queue",
    "recreate-divert",
    "delete-divert",
    "delete-queue",
    "narrow-address",
    "delete-address",
    "create-capture",
    "change-capture",
    "create-tap",
    "change-tap",
    "delete-tap",
    "delete-capture",
};

static const char *const outcome_names[] = {"NO_CHANGE", "WOULD_APPLY",
    "REFUSED", "UNREACHABLE", "PASSIVE"};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static int
name_index(const char *const *names, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(names[i], s) == 0)
			return (int)i;
	return -1;
}

const char *
plan_action_kind_name(enum plan_action_kind a)
{
	return (unsigned)a < PLAN_ACT_COUNT ? act_names[a] : "?";
}

int
plan_action_kind_parse(const char *s, enum plan_action_kind *out)
{
	int i = name_index(act_names, NELEM(act_names), s);

	if (i < 0)
		return -1;
	*out = (enum plan_action_kind)i;
	return 0;
}

const char *
plan_outcome_name(enum plan_outcome o)
{
	return (unsigned)o < NELEM(outcome_names) ? outcome_names[o] : "?";
}

int
plan_outcome_parse(const char *s, enum plan_outcome *out)
{
	int i = name_index(outcome_names, NELEM(outcome_names), s);

	if (i < 0)
		return -1;
	*out = (enum plan_outcome)i;
	return 0;
}

bool
plan_has_prefix(const char *s, const char *prefix)
{
	return prefix != NULL && prefix[0] != '\0' &&
	       strncmp(s, prefix, strlen(prefix)) == 0;
}

bool
plan_action_kind_is_capture(enum plan_action_kind a)
{
	return a >= PLAN_ACT_FIRST_CAPTURE && a < PLAN_ACT_COUNT;
}

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
		recon_op_release(&np->ops[i]);
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
action_release(struct plan_action *a)
{
	size_t i;

	free(a->name);
	free(a->address);
	free(a->why);
	free(a->delete_if_empty);
	for (i = 0; i < a->nnodes; i++)
		plan_step_release(&a->nodes[i]);
	free(a->nodes);
}

void
plan_member_release(struct plan_member *m)
{
	free(m->name);
	free(m->state);
	free(m->policy);
	free(m->version);
	free(m->message);
	memset(m, 0, sizeof(*m));
}

void
plan_free(struct plan *p)
{
	size_t i, j;

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
	for (i = 0; i < p->ncaptures; i++) {
		free(p->captures[i].name);
		free(p->captures[i].pattern);
	}
	free(p->captures);
	free(p->die_default);
	strv_array_free(p->die_queues, p->ndie);
	strv_array_free(p->die_texts, p->ndie);
	free(p->refusal);
	free(p->message);
	free(p->next_step);
	for (i = 0; i < p->nnodes; i++) {
		free(p->nodes[i].node);
		free(p->nodes[i].version);
		free(p->nodes[i].refusal);
		free(p->nodes[i].message);
		free(p->nodes[i].member);
		for (j = 0; j < p->nodes[i].nmembers; j++)
			plan_member_release(&p->nodes[i].members[j]);
		free(p->nodes[i].members);
	}
	free(p->nodes);
	for (i = 0; i < p->nactions; i++)
		action_release(&p->actions[i]);
	free(p->actions);
	for (i = 0; i < p->nunmanaged; i++) {
		free(p->unmanaged[i].kind);
		free(p->unmanaged[i].name);
		strv_array_free(p->unmanaged[i].nodes, p->unmanaged[i].nnodes);
	}
	free(p->unmanaged);
	plan_policy_release(p);
	strv_array_free(p->diagnostics, p->ndiagnostics);
	strv_array_free(p->capture_skipped, p->ncapture_skipped);
	for (i = 0; i < p->nbroker_xml; i++)
		plan_broker_xml_release(&p->broker_xml[i]);
	free(p->broker_xml);
	free(p->broker_xml_before);
	free(p);
}

void
plan_broker_xml_set_settings(struct plan_broker_xml *bx, const char *a,
    const char *q, const char *d)
{
	bx->settings_owned[0] = a != NULL ? xstrdup(a) : NULL;
	bx->settings_owned[1] = q != NULL ? xstrdup(q) : NULL;
	bx->settings_owned[2] = d != NULL ? xstrdup(d) : NULL;
	bx->reload.settings.addresses = bx->settings_owned[0];
	bx->reload.settings.queues = bx->settings_owned[1];
	bx->reload.settings.diverts = bx->settings_owned[2];
}

void
plan_broker_xml_release(struct plan_broker_xml *bx)
{
	size_t i;

	free(bx->node);
	free(bx->path);
	free(bx->sha256);
	free(bx->diff);
	for (i = 0; i < bx->ncarried; i++)
		free(bx->carried_diverts[i]);
	free(bx->carried_diverts);
	free(bx->not_predicted);
	plan_reload_release(&bx->reload);
	for (i = 0; i < 3; i++)
		free(bx->settings_owned[i]);
	memset(bx, 0, sizeof(*bx));
}

/* A refused plan of cluster with nothing planned: no base, no snapshot,
 * the default settings; the caller says why. */
static struct plan *
refused_unplanned(const char *cluster, const struct plan_opts *opts)
{
	struct plan *p = xcalloc(1, sizeof(*p));

	p->kind = xstrdup("plan");
	p->cluster = xstrdup(cluster);
	p->revision = opts->revision != NULL ? xstrdup(opts->revision) : NULL;
	p->base_source = xstrdup("none");
	p->snapshot_source = xstrdup("none");
	p->disconnect_consumers = opts->disconnect_consumers;
	p->capture_prefix = xstrdup(DECL_DEFAULT_CAPTURE_PREFIX);
	p->max_destroyed_messages = DECL_DEFAULT_MAX_DESTROYED;
	p->outcome = PLAN_OUT_REFUSED;
	return p;
}

struct plan *
plan_invalid(const char *cluster, const struct errlist *diags,
    const struct plan_opts *opts)
{
	struct plan *p = refused_unplanned(cluster, opts);

	p->refusal = xstrdup("INVALID_DECLARATION");
	p->message = xasprintf(
	    "the declaration fails validation (%zu error%s); nothing is planned",
	    diags->nerrors, diags->nerrors == 1 ? "" : "s");
	p->next_step = xstrdup(
	    "fix the declaration (for \"Nothing consumes at …\": drop the named divert with the queue, or declare a queue on its forwarding address) and plan again");
	plan_add_diagnostics(p, diags);
	return p;
}

struct plan *
plan_untrusted(const char *cluster, const char *message, const char *next_step,
    const struct plan_opts *opts)
{
	struct plan *p = refused_unplanned(cluster, opts);

	p->refusal = xstrdup(PLAN_REFUSAL_UNTRUSTED);
	p->message = xstrdup(message);
	p->next_step = xstrdup(next_step);
	return p;
}

void
plan_add_diagnostics(struct plan *p, const struct errlist *diags)
{
	size_t i;

	p->diagnostics = xreallocarray(p->diagnostics,
	    p->ndiagnostics + diags->n + 1, sizeof(char *));
	for (i = 0; i < diags->n; i++)
		p->diagnostics[p->ndiagnostics++] =
		    errlist_render_item(diags, i);
}

const struct recon_op *
plan_step_find_op(const struct plan_step *np, enum recon_op_kind k)
{
	size_t i;

	for (i = 0; i < np->nops; i++)
		if (np->ops[i].kind == k)
			return &np->ops[i];
	return NULL;
}

/* True for a plan whose every action only creates (or widens) objects; a
 * capture's address and ring, and a tap, are creates too. */
bool
plan_creates_only(const struct plan *p)
{
	size_t i;

	/* docs/policy.md: less protection is never applied unapproved */
	if (plan_policy_lifts(p) > 0)
		return false;
	if (p->outcome == PLAN_OUT_NO_CHANGE)
		return plan_approvable(p); /* adopts: nothing sent */
	if (p->outcome != PLAN_OUT_WOULD_APPLY)
		return false;
	for (i = 0; i < p->nactions; i++)
		if (p->actions[i].kind != PLAN_ACT_CREATE_ADDRESS &&
		    p->actions[i].kind != PLAN_ACT_WIDEN_ADDRESS &&
		    p->actions[i].kind != PLAN_ACT_CREATE_QUEUE &&
		    p->actions[i].kind != PLAN_ACT_CREATE_DIVERT &&
		    p->actions[i].kind != PLAN_ACT_CREATE_CAPTURE &&
		    p->actions[i].kind != PLAN_ACT_CREATE_TAP)
			return false;
	return p->nactions > 0;
}

size_t
plan_adopts(const struct plan *p)
{
	/* a plan that cannot be approved adopts nothing */
	if (p->outcome != PLAN_OUT_WOULD_APPLY &&
	    p->outcome != PLAN_OUT_NO_CHANGE)
		return 0;
	if (p->refusal != NULL)
		return 0;
	return p->adopts_addresses + p->adopts_queues + p->adopts_diverts;
}

bool
plan_approvable(const struct plan *p)
{
	if (p->outcome == PLAN_OUT_WOULD_APPLY)
		return true;
	return p->outcome == PLAN_OUT_NO_CHANGE && p->nactions == 0 &&
	       strcmp(p->kind, "plan") == 0 &&
	       plan_adopts(p) + plan_forgets(p) + plan_policy_changes(p) > 0;
}

size_t
plan_forgets(const struct plan *p)
{
	/* as plan_adopts: a plan that cannot be approved forgets nothing */
	if ((p->outcome != PLAN_OUT_WOULD_APPLY &&
	        p->outcome != PLAN_OUT_NO_CHANGE) ||
	    p->refusal != NULL)
		return 0;
	return p->nforgotten;
}

size_t
plan_policy_changes(const struct plan *p)
{
	/* as plan_forgets: a plan that cannot be approved records nothing */
	if ((p->outcome != PLAN_OUT_WOULD_APPLY &&
	        p->outcome != PLAN_OUT_NO_CHANGE) ||
	    p->refusal != NULL)
		return 0;
	return p->npolicy_changes;
}

size_t
plan_policy_lifts(const struct plan *p)
{
	size_t i, n = 0;

	if (plan_policy_changes(p) == 0)
		return 0;
	for (i = 0; i < p->npolicy_changes; i++)
		n += p->policy_changes[i].lifts;
	return n;
}

const char *
plan_node_version(const struct plan *p, const char *node)
{
	size_t i;

	for (i = 0; i < p->nnodes; i++)
		if (strcmp(p->nodes[i].node, node) == 0)
			return p->nodes[i].version;
	return NULL;
}
