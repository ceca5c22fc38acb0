/* declarations/build.c: a model built in memory rather than loaded, what
 * `import` makes from brokers or from broker.xml files (docs/import.md).
 * Every add copies what it is given; nothing is validated here: the
 * emitted YAML is parsed back for that (decl_cluster_emit). */
#include "decl-int.h"

#include <stdlib.h>
#include <string.h>

#include "../lib/xalloc.h"

static char *
dup_opt(const char *s)
{
	return s == NULL ? NULL : xstrdup(s);
}

struct decl_cluster *
decl_cluster_new(const char *name, enum decl_mode mode)
{
	struct decl_cluster *c = xcalloc(1, sizeof(*c));

	c->name = xstrdup(name);
	c->dir = xstrdup(name);
	c->version = DECL_VERSION_MAX;
	c->mode = mode;
	c->settings.capture_prefix = xstrdup(DECL_DEFAULT_CAPTURE_PREFIX);
	c->settings.max_destroyed_messages = DECL_DEFAULT_MAX_DESTROYED;
	c->settings.wildcard_delimiter = xstrdup(DECL_DEFAULT_DELIM);
	return c;
}

void
decl_queue_init(struct decl_queue *q)
{
	memset(q, 0, sizeof(*q));
	q->durable = true;
	q->max_consumers = -1;
	q->ring_size = -1;
	q->enabled = true;
	q->delay_before_dispatch = -1;
}

void
decl_divert_init(struct decl_divert *d)
{
	memset(d, 0, sizeof(*d));
	d->routing_type = DECL_DIVERT_STRIP;
}

void
decl_cluster_set_settings(struct decl_cluster *c, const struct decl_settings *s)
{
	size_t i;

	free(c->settings.capture_prefix);
	c->settings.capture_prefix =
	    xstrdup(s->capture_prefix != NULL ? s->capture_prefix
	                                      : DECL_DEFAULT_CAPTURE_PREFIX);
	c->settings.max_destroyed_messages = s->max_destroyed_messages;
	for (i = 0; i < c->settings.nprotect; i++)
		free(c->settings.protect[i]);
	free(c->settings.protect);
	free(c->settings.protect_at);
	c->settings.nprotect = s->nprotect;
	c->settings.protect = xcalloc(s->nprotect + 1, sizeof(char *));
	c->settings.protect_at = xcalloc(s->nprotect + 1, sizeof(struct pos));
	/* positions point into the other cluster's paths: not kept */
	for (i = 0; i < s->nprotect; i++)
		c->settings.protect[i] = xstrdup(s->protect[i]);
	c->settings.delete_if_empty = s->delete_if_empty;
	c->settings.delete_if_empty_at = s->delete_if_empty_at;
	free(c->settings.wildcard_delimiter);
	c->settings.wildcard_delimiter =
	    xstrdup(s->wildcard_delimiter != NULL ? s->wildcard_delimiter
	                                          : DECL_DEFAULT_DELIM);
}

void
decl_cluster_add_node(struct decl_cluster *c, const struct decl_node *n)
{
	struct decl_node *d;
	size_t i;

	c->nodes = xreallocarray(c->nodes, c->nnodes + 1, sizeof(*c->nodes));
	d = &c->nodes[c->nnodes++];
	memset(d, 0, sizeof(*d));
	d->pos = n->pos;
	d->name = xstrdup(n->name);
	d->jolokia = dup_opt(n->jolokia);
	d->credentials = dup_opt(n->credentials);
	if (n->nmembers == 0)
		return;
	d->members = xcalloc(n->nmembers, sizeof(*d->members));
	for (i = 0; i < n->nmembers; i++) {
		d->members[i].pos = n->members[i].pos;
		d->members[i].name = xstrdup(n->members[i].name);
		d->members[i].jolokia = dup_opt(n->members[i].jolokia);
		d->members[i].credentials = dup_opt(n->members[i].credentials);
	}
	d->nmembers = n->nmembers;
}

size_t
decl_cluster_add_address(struct decl_cluster *c, const char *name,
    unsigned routing)
{
	struct decl_address *a;

	c->addresses = xreallocarray(c->addresses, c->naddresses + 1,
	    sizeof(*c->addresses));
	a = &c->addresses[c->naddresses];
	memset(a, 0, sizeof(*a));
	a->name = xstrdup(name);
	a->routing = routing;
	decl_index_free(c->index);
	c->index = NULL;
	return c->naddresses++;
}

void
decl_cluster_add_queue(struct decl_cluster *c, size_t ai,
    const struct decl_queue *q)
{
	struct decl_address *a = &c->addresses[ai];
	struct decl_queue *d;

	a->queues =
	    xreallocarray(a->queues, a->nqueues + 1, sizeof(*a->queues));
	d = &a->queues[a->nqueues++];
	*d = *q;
	d->name = xstrdup(q->name);
	d->address = a->name;
	d->filter = dup_opt(q->filter);
	d->last_value_key = dup_opt(q->last_value_key);
	decl_index_free(c->index);
	c->index = NULL;
}

void
decl_cluster_add_divert(struct decl_cluster *c, const struct decl_divert *dv)
{
	struct decl_divert *d;
	size_t i;

	c->diverts =
	    xreallocarray(c->diverts, c->ndiverts + 1, sizeof(*c->diverts));
	d = &c->diverts[c->ndiverts++];
	*d = *dv;
	d->name = xstrdup(dv->name);
	d->address = dup_opt(dv->address);
	d->forwarding_address = dup_opt(dv->forwarding_address);
	d->filter = dup_opt(dv->filter);
	/* normalised as the loader does: no routing name is the name */
	d->routing_name =
	    xstrdup(dv->routing_name != NULL ? dv->routing_name : dv->name);
	d->transformer_class_name = dup_opt(dv->transformer_class_name);
	d->transformer_properties = NULL;
	if (dv->ntransformer_properties > 0)
		d->transformer_properties = xcalloc(dv->ntransformer_properties,
		    sizeof(*d->transformer_properties));
	for (i = 0; i < dv->ntransformer_properties; i++) {
		d->transformer_properties[i].key =
		    xstrdup(dv->transformer_properties[i].key);
		d->transformer_properties[i].value =
		    dup_opt(dv->transformer_properties[i].value);
	}
	decl_index_free(c->index);
	c->index = NULL;
}

static bool
str_eq(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return (a == NULL || a[0] == '\0') &&
		       (b == NULL || b[0] == '\0');
	return strcmp(a, b) == 0;
}

bool
decl_queue_same(const struct decl_queue *a, const struct decl_queue *b)
{
	return str_eq(a->name, b->name) && str_eq(a->address, b->address) &&
	       a->routing == b->routing && a->durable == b->durable &&
	       str_eq(a->filter, b->filter) &&
	       a->max_consumers == b->max_consumers &&
	       a->purge_on_no_consumers == b->purge_on_no_consumers &&
	       a->exclusive == b->exclusive && a->ring_size == b->ring_size &&
	       a->enabled == b->enabled &&
	       str_eq(a->last_value_key, b->last_value_key) &&
	       a->consumers_before_dispatch == b->consumers_before_dispatch &&
	       a->delay_before_dispatch == b->delay_before_dispatch;
}

bool
decl_divert_same(const struct decl_divert *a, const struct decl_divert *b)
{
	size_t i;

	if (!str_eq(a->name, b->name) || !str_eq(a->address, b->address) ||
	    !str_eq(a->forwarding_address, b->forwarding_address) ||
	    a->exclusive != b->exclusive || !str_eq(a->filter, b->filter) ||
	    a->routing_type != b->routing_type ||
	    !str_eq(a->routing_name != NULL ? a->routing_name : a->name,
	        b->routing_name != NULL ? b->routing_name : b->name) ||
	    !str_eq(a->transformer_class_name, b->transformer_class_name) ||
	    a->ntransformer_properties != b->ntransformer_properties)
		return false;
	for (i = 0; i < a->ntransformer_properties; i++)
		if (!str_eq(a->transformer_properties[i].key,
		        b->transformer_properties[i].key) ||
		    !str_eq(a->transformer_properties[i].value,
		        b->transformer_properties[i].value))
			return false;
	return true;
}

char *
decl_object_name_problem(const char *name)
{
	return decl_name_problem(name);
}
