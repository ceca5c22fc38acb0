/* reconcile/apply-io.c: the live side of apply: snapshots read through the
 * Jolokia client, one bulk POST per node, several nodes at once (as plan
 * reads), and one POST per operation, so that a failure is known before
 * the next operation is sent (ADR-0084 decision 3). */
#include "broker-io.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/xalloc.h"
#include "../live/jolokia.h"
#include "../recon-int.h"

static size_t
target_index(const struct recon_live_io *live, const char *node)
{
	size_t i;

	for (i = 0; i < live->ntargets; i++)
		if (strcmp(live->targets[i].node, node) == 0)
			return i;
	return (size_t)-1;
}

/* Read the nodes names[] concurrently, one bulk POST each (the snapshot
 * fetch of plan), into out[]; remember each broker name read. */
static void
live_read_all(void *ctx, const char *const *names, size_t n,
    struct recon_node_snapshot *out)
{
	struct recon_live_io *live = ctx;
	struct recon_target *t = xcalloc(n + 1, sizeof(*t));
	size_t *at = xcalloc(n + 1, sizeof(*at));
	struct recon_snapshot *s;
	size_t i, j, k = 0;

	for (j = 0; j < n; j++) {
		i = target_index(live, names[j]);
		at[j] = i;
		if (i == (size_t)-1)
			continue;
		t[k] = live->targets[i];
		if (live->brokers[i] != NULL)
			t[k].broker_hint = live->brokers[i];
		k++;
	}
	s = k > 0 ? recon_snapshot_fetch(live->cluster, t, k, live->http)
	          : NULL;
	for (j = 0, k = 0; j < n; j++) {
		i = at[j];
		if (i == (size_t)-1) {
			out[j].node = xstrdup(names[j]);
			out[j].refusal.kind = RECON_UNREACHABLE;
			out[j].refusal.text =
			    xstrdup("the node has no Jolokia endpoint");
			continue;
		}
		out[j] = s->nodes[k];
		memset(&s->nodes[k], 0, sizeof(s->nodes[k]));
		k++;
		if (out[j].refusal.kind == RECON_OK &&
		    out[j].broker_name != NULL) {
			free(live->brokers[i]);
			live->brokers[i] = xstrdup(out[j].broker_name);
		}
	}
	if (s != NULL)
		recon_snapshot_free(s);
	free(t);
	free(at);
}

static void
live_read(void *ctx, const char *node, struct recon_node_snapshot *out)
{
	live_read_all(ctx, &node, 1, out);
}

static void
queue_as_decl(struct decl_queue *dq, const struct recon_queue *q)
{
	memset(dq, 0, sizeof(*dq));
	dq->name = q->name;
	dq->address = q->address;
	dq->routing = q->routing;
	dq->durable = q->durable;
	dq->filter = q->filter;
	dq->max_consumers = q->max_consumers;
	dq->purge_on_no_consumers = q->purge_on_no_consumers;
	dq->exclusive = q->exclusive;
	dq->ring_size = q->ring_size;
	dq->enabled = q->enabled;
	dq->last_value_key = q->last_value_key;
	dq->consumers_before_dispatch = q->consumers_before_dispatch;
	dq->delay_before_dispatch = q->delay_before_dispatch;
}

static void
divert_as_decl(struct decl_divert *dd, const struct recon_divert *d)
{
	memset(dd, 0, sizeof(*dd));
	dd->name = d->name;
	dd->address = d->address;
	dd->forwarding_address = d->forwarding_address;
	dd->exclusive = d->exclusive;
	dd->filter = d->filter;
	dd->routing_type = d->routing_type;
	dd->routing_name = d->routing_name;
	dd->transformer_class_name = d->transformer_class_name;
	dd->transformer_properties = d->transformer_properties;
	dd->ntransformer_properties = d->ntransformer_properties;
}

/* Append op to b; -1 when op lacks what its kind needs. */
static int
build(struct recon_jbulk *b, const char *broker, const struct recon_op *op)
{
	struct decl_queue dq;
	struct decl_divert dd;

	switch (op->kind) {
	case RECON_OP_CREATE_ADDRESS:
		recon_jbulk_create_address(b, broker, op->name, op->routing);
		return 0;
	case RECON_OP_UPDATE_ADDRESS:
		recon_jbulk_update_address(b, broker, op->name, op->routing);
		return 0;
	case RECON_OP_DELETE_ADDRESS:
		recon_jbulk_delete_address(b, broker, op->name, false);
		return 0;
	case RECON_OP_DESTROY_QUEUE:
		recon_jbulk_destroy_queue(b, broker, op->name,
		    op->remove_consumers, false);
		return 0;
	case RECON_OP_DESTROY_DIVERT:
		recon_jbulk_destroy_divert(b, broker, op->name);
		return 0;
	case RECON_OP_CREATE_QUEUE:
	case RECON_OP_UPDATE_QUEUE:
		if (op->queue == NULL)
			return -1;
		queue_as_decl(&dq, op->queue);
		if (op->kind == RECON_OP_CREATE_QUEUE)
			recon_jbulk_create_queue(b, broker, &dq);
		else
			recon_jbulk_update_queue(b, broker, &dq);
		return 0;
	case RECON_OP_CREATE_DIVERT:
	case RECON_OP_UPDATE_DIVERT:
		if (op->divert == NULL)
			return -1;
		divert_as_decl(&dd, op->divert);
		if (op->kind == RECON_OP_CREATE_DIVERT)
			recon_jbulk_create_divert(b, broker, &dd);
		else
			recon_jbulk_update_divert(b, broker, &dd);
		return 0;
	}
	return -1;
}

static int
live_exec(void *ctx, const char *node, const struct recon_op *op,
    struct recon_refusal *refusal)
{
	struct recon_live_io *live = ctx;
	struct recon_jolokia_conf conf;
	struct recon_jbulk b;
	size_t i = target_index(live, node);
	int rc = -1;

	memset(&b, 0, sizeof(b));
	if (i == (size_t)-1 || live->brokers[i] == NULL) {
		refusal->kind = RECON_UNREACHABLE;
		refusal->text =
		    xstrdup("the node was not read before the operation");
		return -1;
	}
	memset(&conf, 0, sizeof(conf));
	conf.url = live->targets[i].url;
	conf.userpass = live->targets[i].userpass;
	conf.origin = live->http->origin;
	conf.ca_file = live->http->ca_file;
	conf.connect_timeout_ms = live->http->connect_timeout_ms;
	conf.timeout_ms = live->http->timeout_ms;
	conf.max_response = live->http->max_response;
	if (build(&b, live->brokers[i], op) < 0) {
		refusal->kind = RECON_BAD_RESPONSE;
		refusal->text =
		    xstrdup("the plan's operation lacks its configuration");
		goto done;
	}
	if (recon_jolokia_post(&conf, &b, refusal) < 0)
		goto done;
	if (b.results[0].refusal.kind != RECON_OK) {
		*refusal = b.results[0].refusal;
		memset(&b.results[0].refusal, 0, sizeof(b.results[0].refusal));
		goto done;
	}
	rc = 0;
done:
	recon_jbulk_release(&b);
	return rc;
}

void
recon_live_io_init(struct recon_live_io *live, struct recon_apply_io *io)
{
	live->brokers = xcalloc(live->ntargets + 1, sizeof(*live->brokers));
	memset(io, 0, sizeof(*io));
	io->ctx = live;
	io->read = live_read;
	io->read_all = live_read_all;
	io->exec = live_exec;
}

void
recon_live_io_release(struct recon_live_io *live)
{
	size_t i;

	for (i = 0; live->brokers != NULL && i < live->ntargets; i++)
		free(live->brokers[i]);
	free(live->brokers);
	live->brokers = NULL;
}
