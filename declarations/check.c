/* declarations/check.c: the cross-object rules, run on a cluster whose
 * files all loaded cleanly (docs/declarations.md lists them). */
#include "decl-int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/xalloc.h"

/* One named object in a namespace, for duplicate detection. */
struct named {
	const char *name;
	const char *kind; /* "queue", "divert", ... */
	const struct pos *pos;
	size_t order; /* declaration order */
};

struct names {
	struct named *v;
	size_t n, cap;
};

static void
names_add(struct names *ns, const char *name, const char *kind,
    const struct pos *pos)
{
	xgrow(&ns->v, &ns->cap, ns->n + 1, sizeof(*ns->v));
	ns->v[ns->n].name = name;
	ns->v[ns->n].kind = kind;
	ns->v[ns->n].pos = pos;
	ns->v[ns->n].order = ns->n;
	ns->n++;
}

static int
named_cmp(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c != 0)
		return c;
	return (x->order > y->order) - (x->order < y->order);
}

/* Report every later declaration of a name, naming the first; then free. */
static void
names_check(struct names *ns, struct errlist *diags)
{
	const struct named *first = NULL, *o;
	size_t i;

	if (ns->n > 1)
		qsort(ns->v, ns->n, sizeof(*ns->v), named_cmp);
	for (i = 0; i < ns->n; i++) {
		o = &ns->v[i];
		if (first == NULL || strcmp(first->name, o->name) != 0) {
			first = o;
			continue;
		}
		if (strcmp(first->kind, o->kind) == 0)
			errlist_add(diags, DIAG_ERROR, o->pos,
			    "duplicate %s '%s' (first declared at %s:%u:%u)",
			    o->kind, o->name, first->pos->path,
			    first->pos->line, first->pos->col);
		else
			errlist_add(diags, DIAG_ERROR, o->pos,
			    "%s '%s' has the name of the %s declared at "
			    "%s:%u:%u (queues and diverts share one namespace "
			    "on a broker)",
			    o->kind, o->name, first->kind, first->pos->path,
			    first->pos->line, first->pos->col);
	}
	free(ns->v);
	memset(ns, 0, sizeof(*ns));
}

static void
check_prefix(const struct decl_cluster *c, const char *kind, const char *name,
    const struct pos *pos, struct errlist *diags)
{
	const char *prefix = c->settings.capture_prefix;

	if (strncmp(name, prefix, strlen(prefix)) == 0)
		errlist_add(diags, DIAG_ERROR, pos,
		    "%s '%s' is inside the reserved capture prefix '%s' "
		    "(names starting with it belong to capture subscriptions)",
		    kind, name, prefix);
}

static void
check_unique(const struct decl_cluster *c, struct errlist *diags)
{
	struct names ns = {0};
	size_t i, j;

	for (i = 0; i < c->nnodes; i++)
		names_add(&ns, c->nodes[i].name, "node", &c->nodes[i].pos);
	names_check(&ns, diags);
	for (i = 0; i < c->nnodes; i++)
		names_add(&ns, c->nodes[i].jolokia, "jolokia URL",
		    &c->nodes[i].pos);
	names_check(&ns, diags);
	for (i = 0; i < c->naddresses; i++)
		names_add(&ns, c->addresses[i].name, "address",
		    &c->addresses[i].pos);
	names_check(&ns, diags);
	for (i = 0; i < c->ncaptures; i++)
		names_add(&ns, c->captures[i].name, "capture",
		    &c->captures[i].pos);
	names_check(&ns, diags);
	for (i = 0; i < c->naddresses; i++)
		for (j = 0; j < c->addresses[i].nqueues; j++)
			names_add(&ns, c->addresses[i].queues[j].name, "queue",
			    &c->addresses[i].queues[j].pos);
	for (i = 0; i < c->ndiverts; i++)
		names_add(&ns, c->diverts[i].name, "divert",
		    &c->diverts[i].pos);
	names_check(&ns, diags);
}

static void
check_queues(const struct decl_cluster *c, struct errlist *diags)
{
	const struct decl_address *a;
	const struct decl_queue *q;
	size_t i, j;

	for (i = 0; i < c->naddresses; i++) {
		a = &c->addresses[i];
		check_prefix(c, "address", a->name, &a->pos, diags);
		for (j = 0; j < a->nqueues; j++) {
			q = &a->queues[j];
			check_prefix(c, "queue", q->name, &q->pos, diags);
			if ((a->routing & q->routing) == 0)
				errlist_add(diags, DIAG_ERROR, &q->pos,
				    "queue '%s' is %s but address '%s' allows "
				    "only %s",
				    q->name, decl_routing_name(q->routing),
				    a->name, decl_routing_name(a->routing));
		}
	}
}

/* Whether a copy with routing type rt finds a queue on a. */
bool
decl_address_consumes(const struct decl_address *a, enum decl_divert_routing rt)
{
	size_t i;

	for (i = 0; i < a->nqueues; i++) {
		if (rt == DECL_DIVERT_ANYCAST &&
		    a->queues[i].routing != DECL_ANYCAST)
			continue;
		if (rt == DECL_DIVERT_MULTICAST &&
		    a->queues[i].routing != DECL_MULTICAST)
			continue;
		return true;
	}
	return false;
}

/* The "Nothing consumes at <address>" rule (issue 2, ADR-0084): an error
 * in STUDIO_MANAGED, a warning in CONFIG_MANAGED. */
static void
check_consumed(const struct decl_cluster *c, const struct decl_divert *d,
    const struct decl_address *t, struct errlist *diags)
{
	const char *why = "";

	if (decl_address_consumes(t, d->routing_type))
		return;
	if (t->nqueues > 0)
		why =
		    d->routing_type == DECL_DIVERT_ANYCAST
		        ? "; its copies are ANYCAST and the address has only "
		          "multicast queues"
		        : "; its copies are MULTICAST and the address has only "
		          "anycast queues";
	if (c->mode == DECL_STUDIO_MANAGED)
		errlist_add(diags, DIAG_ERROR, &d->pos,
		    "divert '%s' forwards to '%s': Nothing consumes at %s%s "
		    "(declare a queue on '%s' or remove the divert)",
		    d->name, t->name, t->name, why, t->name);
	else
		errlist_add(diags, DIAG_WARNING, &d->pos,
		    "divert '%s' forwards to '%s': Nothing consumes at %s%s; "
		    "the rendered broker.xml will carry the divert all the "
		    "same, and its copies are dropped until a queue is "
		    "declared on '%s'",
		    d->name, t->name, t->name, why, t->name);
}

static void
check_target(const struct decl_cluster *c, const struct decl_divert *d,
    const char *name, struct errlist *diags)
{
	const struct decl_address *t = decl_cluster_find_address(c, name);

	if (t == NULL)
		errlist_add(diags, DIAG_ERROR, &d->pos,
		    "divert '%s' forwards to address '%s', which is not "
		    "declared",
		    d->name, name);
	else
		check_consumed(c, d, t, diags);
}

/* Each comma-separated target of forwarding-address (Artemis trims them). */
static void
check_targets(const struct decl_cluster *c, const struct decl_divert *d,
    struct errlist *diags)
{
	const char *s = d->forwarding_address, *e;
	char *name;
	bool empty = false;

	for (;;) {
		size_t len;

		e = strchr(s, ',');
		len = e ? (size_t)(e - s) : strlen(s);
		while (len > 0 && isspace((unsigned char)*s)) {
			s++;
			len--;
		}
		while (len > 0 && isspace((unsigned char)s[len - 1]))
			len--;
		if (len == 0) {
			empty = true;
		} else {
			name = xstrndup(s, len);
			check_target(c, d, name, diags);
			free(name);
		}
		if (e == NULL)
			break;
		s = e + 1;
	}
	if (empty)
		errlist_add(diags, DIAG_ERROR, &d->pos,
		    "divert '%s' has an empty entry in 'forwarding-address' "
		    "('%s')",
		    d->name, d->forwarding_address);
}

static void
check_divert(const struct decl_cluster *c, const struct decl_divert *d,
    struct errlist *diags)
{
	check_prefix(c, "divert", d->name, &d->pos, diags);
	if (c->mode == DECL_CONFIG_MANAGED && !decl_is_ncname(d->name))
		errlist_add(diags, DIAG_ERROR, &d->pos,
		    "divert name '%s' is not an XML NCName, which broker.xml "
		    "needs in CONFIG_MANAGED (start with a letter or '_', then "
		    "letters, digits, '.', '-' or '_')",
		    d->name);
	if (d->ntransformer_properties > 0 && d->transformer_class_name == NULL)
		errlist_add(diags, DIAG_ERROR, &d->pos,
		    "divert '%s' has 'transformer-properties' but no "
		    "'transformer-class-name'",
		    d->name);
	if (decl_cluster_find_address(c, d->address) == NULL)
		errlist_add(diags, DIAG_ERROR, &d->pos,
		    "divert '%s' reads from address '%s', which is not "
		    "declared",
		    d->name, d->address);
	check_targets(c, d, diags);
}

static void
check_captures(const struct decl_cluster *c, struct errlist *diags)
{
	const struct decl_capture *cp;
	const char *p;
	size_t i;

	for (i = 0; i < c->ncaptures; i++) {
		cp = &c->captures[i];
		for (p = cp->name; *p != '\0'; p++)
			if (!isalnum((unsigned char)*p) && *p != '_' &&
			    *p != '-')
				break;
		if (*p != '\0' || strlen(cp->name) > DECL_NAME_MAX)
			errlist_add(diags, DIAG_ERROR, &cp->pos,
			    "capture name '%s' must be letters, digits, '_' "
			    "and '-' (it becomes part of the tap names "
			    "'%s%s.<address>')",
			    cp->name, c->settings.capture_prefix, cp->name);
	}
}

void
decl_check(const struct decl_cluster *c, struct errlist *diags)
{
	size_t i;

	check_unique(c, diags);
	check_queues(c, diags);
	for (i = 0; i < c->ndiverts; i++)
		check_divert(c, &c->diverts[i], diags);
	check_captures(c, diags);
}
