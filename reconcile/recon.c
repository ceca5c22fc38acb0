/* reconcile/snapshot.c: the live snapshot model: freeing, sorting,
 * lookups, and the names of routing types used by its JSON form. */
#include "recon.h"

#include <stdlib.h>
#include <string.h>

#include "recon-int.h"

static const char *const divert_routing_names[] = {
    [DECL_DIVERT_STRIP] = "STRIP",
    [DECL_DIVERT_PASS] = "PASS",
    [DECL_DIVERT_ANYCAST] = "ANYCAST",
    [DECL_DIVERT_MULTICAST] = "MULTICAST",
};

const char *
recon_routing_name(unsigned one_routing)
{
	return one_routing == DECL_MULTICAST ? "multicast" : "anycast";
}

int
recon_routing_parse(const char *s, unsigned *out)
{
	if (strcasecmp(s, "anycast") == 0)
		*out = DECL_ANYCAST;
	else if (strcasecmp(s, "multicast") == 0)
		*out = DECL_MULTICAST;
	else
		return -1;
	return 0;
}

const char *
recon_divert_routing_name(enum decl_divert_routing r)
{
	if ((size_t)r >= sizeof(divert_routing_names) / sizeof(char *))
		return "STRIP";
	return divert_routing_names[r];
}

int
recon_divert_routing_parse(const char *s, enum decl_divert_routing *out)
{
	size_t i;

	for (i = 0; i < sizeof(divert_routing_names) / sizeof(char *); i++) {
		if (strcmp(s, divert_routing_names[i]) == 0) {
			*out = (enum decl_divert_routing)i;
			return 0;
		}
	}
	return -1;
}

static void
strv_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void
recon_queue_release(struct recon_queue *q)
{
	free(q->name);
	free(q->address);
	free(q->filter);
	free(q->last_value_key);
	memset(q, 0, sizeof(*q));
}

void
recon_address_release(struct recon_address *a)
{
	free(a->name);
	strv_free(a->queue_names, a->nqueue_names);
	strv_free(a->binding_names, a->nbinding_names);
	memset(a, 0, sizeof(*a));
}

void
recon_divert_release(struct recon_divert *d)
{
	size_t i;

	free(d->name);
	free(d->routing_name);
	free(d->address);
	free(d->forwarding_address);
	free(d->filter);
	free(d->transformer_class_name);
	for (i = 0; i < d->ntransformer_properties; i++) {
		free(d->transformer_properties[i].key);
		free(d->transformer_properties[i].value);
	}
	free(d->transformer_properties);
	memset(d, 0, sizeof(*d));
}

void
recon_node_snapshot_release(struct recon_node_snapshot *n)
{
	size_t i;

	free(n->node);
	free(n->url);
	recon_refusal_release(&n->refusal);
	free(n->broker_name);
	free(n->broker_version);
	for (i = 0; i < n->naddresses; i++)
		recon_address_release(&n->addresses[i]);
	free(n->addresses);
	for (i = 0; i < n->nqueues; i++)
		recon_queue_release(&n->queues[i]);
	free(n->queues);
	for (i = 0; i < n->ndiverts; i++)
		recon_divert_release(&n->diverts[i]);
	free(n->diverts);
	for (i = 0; i < n->naddress_settings; i++) {
		free(n->address_settings[i].match);
		free(n->address_settings[i].config_delete_addresses);
		free(n->address_settings[i].config_delete_queues);
		free(n->address_settings[i].config_delete_diverts);
	}
	free(n->address_settings);
	recon_node_index_free(n->index);
	memset(n, 0, sizeof(*n));
}

void
recon_snapshot_free(struct recon_snapshot *s)
{
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < s->nnodes; i++)
		recon_node_snapshot_release(&s->nodes[i]);
	free(s->nodes);
	free(s->cluster);
	free(s->taken_at);
	free(s);
}

/* Every element type starts with its `char *name` (or `key`/`match`). */
static int
cmp_first_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
sort_by_name(void *base, size_t n, size_t size)
{
	if (base != NULL && n > 1)
		qsort(base, n, size, cmp_first_str);
}

void
recon_node_snapshot_sort(struct recon_node_snapshot *n)
{
	size_t i;

	sort_by_name(n->addresses, n->naddresses, sizeof(*n->addresses));
	sort_by_name(n->queues, n->nqueues, sizeof(*n->queues));
	sort_by_name(n->diverts, n->ndiverts, sizeof(*n->diverts));
	sort_by_name(n->address_settings, n->naddress_settings,
	    sizeof(*n->address_settings));
	for (i = 0; i < n->naddresses; i++) {
		sort_by_name(n->addresses[i].queue_names,
		    n->addresses[i].nqueue_names, sizeof(char *));
		sort_by_name(n->addresses[i].binding_names,
		    n->addresses[i].nbinding_names, sizeof(char *));
	}
	for (i = 0; i < n->ndiverts; i++)
		sort_by_name(n->diverts[i].transformer_properties,
		    n->diverts[i].ntransformer_properties,
		    sizeof(struct decl_kv));
	recon_node_index_free(n->index);
	n->index = recon_node_index_build(n);
}

static const void *
find(const void *base, size_t n, size_t size, const char *name)
{
	const char *key = name;

	if (base == NULL || n == 0 || name == NULL)
		return NULL;
	return bsearch(&key, base, n, size, cmp_first_str);
}

const struct recon_queue *
recon_node_find_queue(const struct recon_node_snapshot *n, const char *name)
{
	return find(n->queues, n->nqueues, sizeof(*n->queues), name);
}

const struct recon_address *
recon_node_find_address(const struct recon_node_snapshot *n, const char *name)
{
	return find(n->addresses, n->naddresses, sizeof(*n->addresses), name);
}

const struct recon_divert *
recon_node_find_divert(const struct recon_node_snapshot *n, const char *name)
{
	return find(n->diverts, n->ndiverts, sizeof(*n->diverts), name);
}

const struct recon_node_snapshot *
recon_snapshot_find_node(const struct recon_snapshot *s, const char *node)
{
	size_t i;

	for (i = 0; i < s->nnodes; i++)
		if (s->nodes[i].node != NULL &&
		    strcmp(s->nodes[i].node, node) == 0)
			return &s->nodes[i];
	return NULL;
}
