/* reconcile/import/import-live.c: one node read live, as the candidates
 * of a declaration; what the broker or its clients made for themselves
 * is left out by rule here (docs/import.md). */
#include "import-int.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/xalloc.h"

/* Why queue q is left out by rule, or -1 when it is a candidate. */
static int
queue_rule(const struct recon_queue *q, const struct decl_settings *s,
    const struct import_opts *o)
{
	if (strncmp(q->name, s->capture_prefix, strlen(s->capture_prefix)) == 0)
		return IMPORT_CAPTURE;
	if (q->internal || strncmp(q->address, "$sys.", 5) == 0 ||
	    strcmp(q->address, "activemq.notifications") == 0)
		return IMPORT_BROKER_OWN;
	if (q->temporary)
		return IMPORT_TEMPORARY;
	if (q->auto_created && !o->include_auto_created)
		return IMPORT_AUTO_CREATED;
	return -1;
}

/* A queue as `artemis create` ships DLQ and ExpiryQueue: anycast, on an
 * address of its own name, every setting at its default. */
static bool
shipped_queue(const struct recon_queue *q)
{
	return q->routing == DECL_ANYCAST && q->durable && q->filter == NULL &&
	       q->max_consumers == -1 && !q->purge_on_no_consumers &&
	       !q->exclusive && q->ring_size == -1 && q->enabled &&
	       (q->last_value_key == NULL || q->last_value_key[0] == '\0') &&
	       q->consumers_before_dispatch == 0 &&
	       q->delay_before_dispatch == -1 && !q->auto_created &&
	       strcmp(q->name, q->address) == 0;
}

static bool
shipped_address(const struct recon_node_snapshot *n,
    const struct recon_address *a)
{
	const struct recon_queue *q;

	if (strcmp(a->name, "DLQ") != 0 && strcmp(a->name, "ExpiryQueue") != 0)
		return false;
	if (a->routing != DECL_ANYCAST || a->nqueue_names != 1 ||
	    strcmp(a->queue_names[0], a->name) != 0)
		return false;
	q = recon_node_find_queue(n, a->name);
	return q != NULL && shipped_queue(q);
}

static int
address_rule(const struct recon_address *a, const struct decl_settings *s)
{
	if (strncmp(a->name, s->capture_prefix, strlen(s->capture_prefix)) == 0)
		return IMPORT_CAPTURE;
	if (a->internal || strncmp(a->name, "$sys.", 5) == 0 ||
	    strcmp(a->name, "activemq.notifications") == 0)
		return IMPORT_BROKER_OWN;
	return -1;
}

static const char *
rule_state(int why)
{
	switch (why) {
	case IMPORT_BROKER_OWN:
		return "the broker's own";
	case IMPORT_AUTO_CREATED:
		return "auto-created";
	case IMPORT_TEMPORARY:
		return "temporary";
	default:
		return "a capture tap";
	}
}

static void
add_queue(struct decl_cluster *c, size_t ai, const struct recon_queue *q)
{
	struct decl_queue d;

	decl_queue_init(&d);
	d.name = q->name;
	d.routing = q->routing;
	d.durable = q->durable;
	d.filter = q->filter != NULL && q->filter[0] != '\0' ? q->filter : NULL;
	d.max_consumers = q->max_consumers;
	d.purge_on_no_consumers = q->purge_on_no_consumers;
	d.exclusive = q->exclusive;
	d.ring_size = q->ring_size;
	d.enabled = q->enabled;
	d.last_value_key =
	    q->last_value_key != NULL && q->last_value_key[0] != '\0'
	        ? q->last_value_key
	        : NULL;
	d.consumers_before_dispatch = q->consumers_before_dispatch;
	d.delay_before_dispatch = q->delay_before_dispatch;
	decl_cluster_add_queue(c, ai, &d);
}

static void
add_divert(struct decl_cluster *c, const struct recon_divert *v)
{
	struct decl_divert d;

	decl_divert_init(&d);
	d.name = v->name;
	d.address = v->address;
	d.forwarding_address = v->forwarding_address;
	d.exclusive = v->exclusive;
	d.filter = v->filter != NULL && v->filter[0] != '\0' ? v->filter : NULL;
	d.routing_type = v->routing_type;
	d.routing_name = v->routing_name;
	d.transformer_class_name = v->transformer_class_name != NULL &&
	                                   v->transformer_class_name[0] != '\0'
	                               ? v->transformer_class_name
	                               : NULL;
	d.transformer_properties = v->transformer_properties;
	d.ntransformer_properties = v->ntransformer_properties;
	decl_cluster_add_divert(c, &d);
}

void
import_node_from_live(struct import_node *out,
    const struct recon_node_snapshot *n, const struct decl_settings *s,
    const struct import_opts *o, struct import_left **ex, size_t *nex)
{
	int *qwhy = xcalloc(n->nqueues + 1, sizeof(*qwhy));
	size_t i, j, k, ntemp;
	int why;

	memset(out, 0, sizeof(*out));
	out->node = xstrdup(n->node);
	out->objects = decl_cluster_new(n->node, DECL_STUDIO_MANAGED);
	out->version =
	    n->broker_version != NULL ? xstrdup(n->broker_version) : NULL;
	out->source = n->url != NULL ? xstrdup(n->url) : NULL;
	for (i = 0; i < n->nqueues; i++)
		qwhy[i] = queue_rule(&n->queues[i], s, o);
	for (i = 0; i < n->naddresses; i++) {
		const struct recon_address *a = &n->addresses[i];
		const struct recon_queue *q;

		why = address_rule(a, s);
		ntemp = 0;
		for (j = 0; j < a->nqueue_names; j++) {
			q = recon_node_find_queue(n, a->queue_names[j]);
			if (q == NULL)
				continue;
			k = (size_t)(q - n->queues);
			if (why >= 0 && qwhy[k] < 0)
				qwhy[k] = why; /* a queue of the broker's own */
			ntemp += qwhy[k] == IMPORT_TEMPORARY;
		}
		if (why < 0 && shipped_address(n, a))
			why = IMPORT_BROKER_OWN;
		/* An auto-created address and its queues: the queue MBean
		 * does not say whether a queue was auto-created (QueueControl
		 * has no AutoCreated in 2.40 and 2.44), so a queue is taken
		 * for auto-created when its address is. A temporary queue's
		 * address goes with it. */
		if (why < 0 && a->auto_created && !o->include_auto_created)
			why = IMPORT_AUTO_CREATED;
		if (why < 0 && ntemp > 0 && ntemp == a->nqueue_names)
			why = IMPORT_TEMPORARY;
		if (why >= 0) {
			for (j = 0; j < a->nqueue_names; j++) {
				q = recon_node_find_queue(n, a->queue_names[j]);
				if (q != NULL && qwhy[q - n->queues] < 0)
					qwhy[q - n->queues] = why;
			}
			import_left_add1(ex, nex, IMPORT_ADDRESS, a->name,
			    (enum import_why)why, n->node, rule_state(why));
			continue;
		}
		decl_cluster_add_address(out->objects, a->name, a->routing);
	}
	for (i = 0; i < n->nqueues; i++) {
		const struct recon_queue *q = &n->queues[i];
		long at;

		if (qwhy[i] >= 0) {
			import_left_add1(ex, nex, IMPORT_QUEUE, q->name,
			    (enum import_why)qwhy[i], n->node,
			    rule_state(qwhy[i]));
			continue;
		}
		at = import_find_address(out->objects, q->address);
		if (at < 0) {
			import_left_add1(ex, nex, IMPORT_QUEUE, q->name,
			    IMPORT_ADDRESS_OUT, n->node,
			    "its address is not on the broker");
			continue;
		}
		add_queue(out->objects, (size_t)at, q);
	}
	for (i = 0; i < n->ndiverts; i++) {
		if (strncmp(n->diverts[i].name, s->capture_prefix,
		        strlen(s->capture_prefix)) == 0) {
			import_left_add1(ex, nex, IMPORT_DIVERT,
			    n->diverts[i].name, IMPORT_CAPTURE, n->node,
			    rule_state(IMPORT_CAPTURE));
			continue;
		}
		add_divert(out->objects, &n->diverts[i]);
	}
	free(qwhy);
}
