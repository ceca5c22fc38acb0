/* tests/unit/snapshot-fixture.h: a recorded snapshot built by hand: two
 * nodes, the first read (one address, queue and divert, every optional
 * field set), the second unreachable. Free it with live_snapshot_free. */
#ifndef TESTS_UNIT_SNAPSHOT_FIXTURE_H
#define TESTS_UNIT_SNAPSHOT_FIXTURE_H

#include "../../lib/xalloc.h"
#include "../../reconcile/live/live.h"
#include "../../reconcile/recon.h"

static inline char **
strv(const char *a, const char *b)
{
	char **v = xcalloc(3, sizeof(*v));

	v[0] = xstrdup(a);
	if (b != NULL)
		v[1] = xstrdup(b);
	return v;
}

static inline struct recon_snapshot *
sample(void)
{
	struct recon_snapshot *s = xcalloc(1, sizeof(*s));
	struct recon_node_snapshot *n;
	struct recon_queue *q;
	struct recon_divert *d;

	s->cluster = xstrdup("local");
	s->taken_at = xstrdup("2026-11-29T20:00:00Z");
	s->nnodes = 2;
	s->nodes = xcalloc(2, sizeof(*s->nodes));
	n = &s->nodes[0];
	n->node = xstrdup("node1");
	n->url = xstrdup("http://localhost:8261/console/jolokia");
	n->broker_name = xstrdup("node1");
	n->broker_version = xstrdup("2.40.0");
	n->requests = 1;
	n->naddresses = 1;
	n->addresses = xcalloc(1, sizeof(*n->addresses));
	n->addresses[0].name = xstrdup("orders");
	n->addresses[0].routing = DECL_ANYCAST | DECL_MULTICAST;
	n->addresses[0].queue_names = strv("orders", NULL);
	n->addresses[0].nqueue_names = 1;
	n->addresses[0].binding_names = strv("audit", "orders");
	n->addresses[0].nbinding_names = 2;
	n->nqueues = 1;
	n->queues = q = xcalloc(1, sizeof(*n->queues));
	q->name = xstrdup("orders");
	q->address = xstrdup("orders");
	q->routing = DECL_ANYCAST;
	q->durable = true;
	q->filter = xstrdup("region = 'EU' \"x\"\n");
	q->max_consumers = -1;
	q->ring_size = -1;
	q->enabled = true;
	q->delay_before_dispatch = -1;
	q->consumer_count = 3;
	q->message_count = 9007199254740991LL;
	n->ndiverts = 1;
	n->diverts = d = xcalloc(1, sizeof(*n->diverts));
	d->name = xstrdup("audit");
	d->routing_name = xstrdup("audit");
	d->address = xstrdup("orders");
	d->forwarding_address = xstrdup("audit");
	d->routing_type = DECL_DIVERT_PASS;
	d->transformer_class_name = xstrdup("com.example.T");
	d->ntransformer_properties = 2;
	d->transformer_properties = xcalloc(2, sizeof(struct decl_kv));
	d->transformer_properties[0].key = xstrdup("a");
	d->transformer_properties[0].value = xstrdup("1");
	d->transformer_properties[1].key = xstrdup("b");
	d->transformer_properties[1].value = xstrdup("");
	n->naddress_settings = 1;
	n->address_settings = xcalloc(1, sizeof(*n->address_settings));
	n->address_settings[0].match = xstrdup("#");
	n->address_settings[0].config_delete_queues = xstrdup("OFF");
	n = &s->nodes[1];
	n->node = xstrdup("node2");
	n->url = xstrdup("http://localhost:8271/console/jolokia");
	n->refusal.kind = RECON_UNREACHABLE;
	n->refusal.text = xstrdup("Could not connect to server");
	n->requests = 1;
	return s;
}

#endif
