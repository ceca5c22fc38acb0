/* reconcile/live/snapshot-render.c: the versioned JSON form of a snapshot
 * (`snapshot --json`, docs/snapshot-format.md). Keys are written in sorted
 * order so the text is canonical. */

#include "live-int.h"

#include "../../lib/jsonw.h"
#include "../../lib/sbuf.h"

static void
render_routing_set(struct jsonw *w, unsigned set)
{
	unsigned r = 0;

	jsonw_arr_begin(w);
	while ((r = decl_routing_set_next(set, r)) != 0)
		jsonw_str(w, decl_routing_name(r));
	jsonw_arr_end(w);
}

static void
render_address(struct jsonw *w, const struct recon_address *a)
{
	jsonw_obj_begin(w);
	jsonw_key(w, "auto_created");
	jsonw_bool(w, a->auto_created);
	jsonw_key_strs(w, "binding_names", a->binding_names, a->nbinding_names);
	jsonw_key(w, "internal");
	jsonw_bool(w, a->internal);
	jsonw_key(w, "name");
	jsonw_str(w, a->name);
	jsonw_key_strs(w, "queue_names", a->queue_names, a->nqueue_names);
	jsonw_key(w, "routing");
	render_routing_set(w, a->routing);
	jsonw_obj_end(w);
}

static void
render_queue(struct jsonw *w, const struct recon_queue *q)
{
	jsonw_obj_begin(w);
	jsonw_key_str(w, "address", q->address);
	jsonw_key_bool(w, "auto_created", q->auto_created);
	jsonw_key_bool(w, "configuration_managed", q->configuration_managed);
	jsonw_key_int(w, "consumer_count", q->consumer_count);
	jsonw_key_int(w, "consumers_before_dispatch",
	    q->consumers_before_dispatch);
	jsonw_key_int(w, "delay_before_dispatch", q->delay_before_dispatch);
	jsonw_key_bool(w, "durable", q->durable);
	jsonw_key_bool(w, "enabled", q->enabled);
	jsonw_key_bool(w, "exclusive", q->exclusive);
	jsonw_key_str(w, "filter", q->filter);
	jsonw_key_bool(w, "internal", q->internal);
	jsonw_key_str(w, "last_value_key", q->last_value_key);
	jsonw_key_int(w, "max_consumers", q->max_consumers);
	jsonw_key_int(w, "message_count", q->message_count);
	jsonw_key_str(w, "name", q->name);
	jsonw_key_bool(w, "purge_on_no_consumers", q->purge_on_no_consumers);
	jsonw_key_int(w, "ring_size", q->ring_size);
	jsonw_key_str(w, "routing", decl_routing_name(q->routing));
	if (q->temporary) /* absent when false: older readers' format */
		jsonw_key_bool(w, "temporary", true);
	jsonw_obj_end(w);
}

static void
render_divert(struct jsonw *w, const struct recon_divert *d)
{
	size_t i;

	jsonw_obj_begin(w);
	jsonw_key_str(w, "address", d->address);
	jsonw_key_bool(w, "exclusive", d->exclusive);
	jsonw_key_str(w, "filter", d->filter);
	jsonw_key_str(w, "forwarding_address", d->forwarding_address);
	jsonw_key_str(w, "name", d->name);
	jsonw_key_str(w, "routing_name", d->routing_name);
	jsonw_key_str(w, "routing_type",
	    decl_divert_routing_name(d->routing_type));
	jsonw_key_str(w, "transformer_class_name", d->transformer_class_name);
	jsonw_key(w, "transformer_properties");
	jsonw_obj_begin(w);
	for (i = 0; i < d->ntransformer_properties; i++)
		jsonw_key_str(w, d->transformer_properties[i].key,
		    d->transformer_properties[i].value);
	jsonw_obj_end(w);
	jsonw_obj_end(w);
}

static void
render_settings(struct jsonw *w, const struct recon_address_settings *s)
{
	jsonw_obj_begin(w);
	jsonw_key_str(w, "config_delete_addresses", s->config_delete_addresses);
	jsonw_key_str(w, "config_delete_diverts", s->config_delete_diverts);
	jsonw_key_str(w, "config_delete_queues", s->config_delete_queues);
	jsonw_key_str(w, "match", s->match);
	jsonw_obj_end(w);
}

static void
render_refusal(struct jsonw *w, const struct recon_refusal *r)
{
	jsonw_key(w, "refusal");
	if (r->kind == RECON_OK) {
		jsonw_null(w);
		return;
	}
	jsonw_obj_begin(w);
	jsonw_key_int(w, "http_status", r->http_status);
	jsonw_key_str(w, "kind", recon_kind_name(r->kind));
	jsonw_key_int(w, "status", r->status);
	jsonw_key_str(w, "text", r->text != NULL ? r->text : "");
	jsonw_obj_end(w);
}

/* "ha": the broker's HA attributes, when they were read. */
static void
render_ha(struct jsonw *w, const struct recon_ha *h)
{
	if (!h->known)
		return;
	jsonw_key(w, "ha");
	jsonw_obj_begin(w);
	jsonw_key_bool(w, "active", h->active);
	jsonw_key_bool(w, "backup", h->backup);
	jsonw_key_str(w, "node_id", h->node_id);
	jsonw_key_str(w, "policy", h->policy);
	jsonw_key_bool_opt(w, "replica_sync", h->replica_sync);
	jsonw_obj_end(w);
}

/* An HA node's "member" (the live one, or null) and "members". */
static void
render_members(struct jsonw *w, const struct recon_node_snapshot *n)
{
	const struct recon_member *m;
	size_t i;

	if (n->nmembers == 0)
		return;
	jsonw_key_str(w, "member", n->member);
	jsonw_key(w, "members");
	jsonw_arr_begin(w);
	for (i = 0; i < n->nmembers; i++) {
		m = &n->members[i];
		jsonw_obj_begin(w);
		jsonw_key_str(w, "broker_name", m->broker_name);
		jsonw_key_str(w, "broker_version", m->broker_version);
		render_ha(w, &m->ha);
		jsonw_key_str(w, "name", m->name);
		render_refusal(w, &m->refusal);
		jsonw_key_int(w, "requests", m->requests);
		jsonw_key_str(w, "url", m->url);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

static void
render_node(struct jsonw *w, const struct recon_node_snapshot *n)
{
	size_t i;

	jsonw_obj_begin(w);
	jsonw_key(w, "address_settings");
	jsonw_arr_begin(w);
	for (i = 0; i < n->naddress_settings; i++)
		render_settings(w, &n->address_settings[i]);
	jsonw_arr_end(w);
	jsonw_key(w, "addresses");
	jsonw_arr_begin(w);
	for (i = 0; i < n->naddresses; i++)
		render_address(w, &n->addresses[i]);
	jsonw_arr_end(w);
	jsonw_key_str(w, "broker_name", n->broker_name);
	jsonw_key_str(w, "broker_version", n->broker_version);
	jsonw_key(w, "diverts");
	jsonw_arr_begin(w);
	for (i = 0; i < n->ndiverts; i++)
		render_divert(w, &n->diverts[i]);
	jsonw_arr_end(w);
	render_ha(w, &n->ha);
	render_members(w, n);
	jsonw_key_str(w, "node", n->node);
	jsonw_key(w, "queues");
	jsonw_arr_begin(w);
	for (i = 0; i < n->nqueues; i++)
		render_queue(w, &n->queues[i]);
	jsonw_arr_end(w);
	render_refusal(w, &n->refusal);
	jsonw_key_int(w, "requests", n->requests);
	jsonw_key_str(w, "url", n->url);
	jsonw_obj_end(w);
}

char *
live_snapshot_render_json(const struct recon_snapshot *s)
{
	struct sbuf b = {0};
	struct jsonw w;
	size_t i;

	sbuf_init(&b, SBUF_UNBOUNDED);
	jsonw_init(&w, &b, 2);
	jsonw_obj_begin(&w);
	jsonw_key_str(&w, "cluster", s->cluster);
	jsonw_key_int(&w, "format", LIVE_SNAPSHOT_FORMAT);
	jsonw_key(&w, "nodes");
	jsonw_arr_begin(&w);
	for (i = 0; i < s->nnodes; i++)
		render_node(&w, &s->nodes[i]);
	jsonw_arr_end(&w);
	jsonw_key_str(&w, "taken_at", s->taken_at);
	jsonw_obj_end(&w);
	sbuf_addc(&b, '\n');
	return sbuf_take(&b);
}
