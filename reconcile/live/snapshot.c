/* reconcile/live/snapshot.c: the lifetime of the snapshots the live wing
 * makes (fetched, or read from a file): sorting a node once it is complete
 * (which builds its lookup index) and freeing. */
#include "live-int.h"

#include <stdlib.h>
#include <string.h>

void
live_node_release(struct recon_node_snapshot *n)
{
	size_t i;

	free(n->node);
	free(n->url);
	recon_refusal_release(&n->refusal);
	free(n->broker_name);
	free(n->broker_version);
	recon_ha_release(&n->ha);
	free(n->member);
	for (i = 0; i < n->nmembers; i++)
		recon_member_release(&n->members[i]);
	free(n->members);
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
	live_node_index_free(n->index);
	strpool_unref(n->pool);
	memset(n, 0, sizeof(*n));
}

void
live_snapshot_free(struct recon_snapshot *s)
{
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < s->nnodes; i++)
		live_node_release(&s->nodes[i]);
	free(s->nodes);
	free(s->cluster);
	free(s->taken_at);
	free(s);
}

static void
sort_by_name(void *base, size_t n, size_t size)
{
	if (base != NULL && n > 1)
		qsort(base, n, size, recon_name_cmp);
}

void
live_node_sort(struct recon_node_snapshot *n)
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
	live_node_index_free(n->index);
	n->index = live_node_index_build(n);
}
