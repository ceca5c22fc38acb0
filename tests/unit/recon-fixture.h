/* tests/unit/recon-fixture.h: hand-built declarations and snapshots for
 * the planner's unit tests. Everything is heap-owned by the fixture and
 * freed by fx_free (the loaders' own free functions are not used, so the
 * tests do not depend on how they allocate). */
#ifndef TESTS_UNIT_RECON_FIXTURE_H
#define TESTS_UNIT_RECON_FIXTURE_H

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "../../declarations/decl.h"
#include "../../lib/xalloc.h"
#include "../../reconcile/recon.h"

struct fx {
	struct decl_cluster c;
	struct recon_snapshot s;
};

static inline void
fx_init(struct fx *f, enum decl_mode mode, size_t nnodes)
{
	size_t i;

	memset(f, 0, sizeof(*f));
	f->c.name = xstrdup("shop-eu");
	f->c.dir = xstrdup("shop-eu");
	f->c.version = 1;
	f->c.mode = mode;
	f->c.settings.capture_prefix = xstrdup(DECL_DEFAULT_CAPTURE_PREFIX);
	f->c.settings.max_destroyed_messages = DECL_DEFAULT_MAX_DESTROYED;
	f->c.nnodes = nnodes;
	f->c.nodes = xcalloc(nnodes, sizeof(*f->c.nodes));
	f->s.cluster = xstrdup("shop-eu");
	f->s.taken_at = xstrdup("2026-11-29T20:00:00Z");
	f->s.nnodes = nnodes;
	f->s.nodes = xcalloc(nnodes, sizeof(*f->s.nodes));
	for (i = 0; i < nnodes; i++) {
		f->c.nodes[i].name = xasprintf("broker-%c", (char)('a' + i));
		f->c.nodes[i].jolokia = xstrdup("http://localhost/jolokia");
		f->c.nodes[i].credentials = xstrdup("c");
		f->s.nodes[i].node = xstrdup(f->c.nodes[i].name);
		f->s.nodes[i].url = xstrdup("http://localhost/jolokia");
		/* a node that was read has its release */
		f->s.nodes[i].broker_version = xstrdup("2.44.0");
	}
}

/* ---- declaration ---- */
static inline void
fx_address(struct fx *f, const char *name, unsigned routing)
{
	struct decl_address *a;

	f->c.addresses =
	    xreallocarray(f->c.addresses, f->c.naddresses + 1, sizeof(*a));
	a = &f->c.addresses[f->c.naddresses++];
	memset(a, 0, sizeof(*a));
	a->name = xstrdup(name);
	a->routing = routing;
}

static inline struct decl_queue *
fx_queue(struct fx *f, const char *address, const char *name)
{
	struct decl_address *a = NULL;
	struct decl_queue *q;
	size_t i;

	for (i = 0; i < f->c.naddresses; i++)
		if (strcmp(f->c.addresses[i].name, address) == 0)
			a = &f->c.addresses[i];
	if (a == NULL) {
		fx_address(f, address, DECL_ANYCAST);
		a = &f->c.addresses[f->c.naddresses - 1];
	}
	a->queues = xreallocarray(a->queues, a->nqueues + 1, sizeof(*q));
	q = &a->queues[a->nqueues++];
	memset(q, 0, sizeof(*q));
	q->name = xstrdup(name);
	q->address = a->name;
	q->routing = DECL_ANYCAST;
	q->durable = true;
	q->max_consumers = -1;
	q->ring_size = -1;
	q->enabled = true;
	q->delay_before_dispatch = -1;
	return q;
}

static inline struct decl_divert *
fx_divert(struct fx *f, const char *name, const char *src, const char *fwd)
{
	struct decl_divert *d;

	f->c.diverts =
	    xreallocarray(f->c.diverts, f->c.ndiverts + 1, sizeof(*d));
	d = &f->c.diverts[f->c.ndiverts++];
	memset(d, 0, sizeof(*d));
	d->name = xstrdup(name);
	d->address = xstrdup(src);
	d->forwarding_address = xstrdup(fwd);
	d->routing_name = xstrdup(name);
	return d;
}

static inline void
fx_capture(struct fx *f, const char *name, const char *pattern)
{
	struct decl_capture *k;

	f->c.captures =
	    xreallocarray(f->c.captures, f->c.ncaptures + 1, sizeof(*k));
	k = &f->c.captures[f->c.ncaptures++];
	memset(k, 0, sizeof(*k));
	k->name = xstrdup(name);
	k->pattern = xstrdup(pattern);
	k->ring_size = 1000;
}

/* ---- live state of node i ---- */
/* Snapshots keep their arrays sorted by name (the planner binary-searches
 * them), so the builders insert in place. Every element type starts with
 * its `char *name`. Returns the new, zeroed slot; earlier pointers into the
 * array are invalid afterwards (as after any realloc). */
static inline void *
fx_slot(void *arr, size_t *n, size_t size, const char *name)
{
	char **base = arr;
	char *p;
	size_t at = 0;

	*base = xreallocarray(*base, *n + 1, size);
	p = *base;
	while (at < *n && strcmp(*(char **)(void *)(p + at * size), name) < 0)
		at++;
	memmove(p + (at + 1) * size, p + at * size, (*n - at) * size);
	memset(p + at * size, 0, size);
	(*n)++;
	return p + at * size;
}

static inline void
fx_laddress(struct fx *f, size_t i, const char *name, unsigned routing)
{
	struct recon_node_snapshot *n = &f->s.nodes[i];
	struct recon_address *a;

	a = fx_slot(&n->addresses, &n->naddresses, sizeof(*a), name);
	a->name = xstrdup(name);
	a->routing = routing;
}

static inline struct recon_address *
fx_laddr_get(struct fx *f, size_t i, const char *name)
{
	struct recon_node_snapshot *n = &f->s.nodes[i];
	size_t j;

	for (j = 0; j < n->naddresses; j++)
		if (strcmp(n->addresses[j].name, name) == 0)
			return &n->addresses[j];
	fx_laddress(f, i, name, DECL_ANYCAST);
	return fx_laddr_get(f, i, name);
}

static inline void
fx_bind(struct recon_address *a, const char *name, bool queue)
{
	a->binding_names = xreallocarray(a->binding_names,
	    a->nbinding_names + 1, sizeof(char *));
	a->binding_names[a->nbinding_names++] = xstrdup(name);
	if (!queue)
		return;
	a->queue_names =
	    xreallocarray(a->queue_names, a->nqueue_names + 1, sizeof(char *));
	a->queue_names[a->nqueue_names++] = xstrdup(name);
}

static inline struct recon_queue *
fx_lqueue(struct fx *f, size_t i, const char *address, const char *name,
    int64_t consumers, int64_t messages)
{
	struct recon_node_snapshot *n = &f->s.nodes[i];
	struct recon_queue *q;

	fx_bind(fx_laddr_get(f, i, address), name, true);
	q = fx_slot(&n->queues, &n->nqueues, sizeof(*q), name);
	q->name = xstrdup(name);
	q->address = xstrdup(address);
	q->routing = DECL_ANYCAST;
	q->durable = true;
	q->max_consumers = -1;
	q->ring_size = -1;
	q->enabled = true;
	q->delay_before_dispatch = -1;
	q->consumer_count = consumers;
	q->message_count = messages;
	return q;
}

/* The live queue `name` of node i (it must exist). */
static inline struct recon_queue *
fx_lqueue_get(struct fx *f, size_t i, const char *name)
{
	struct recon_node_snapshot *n = &f->s.nodes[i];
	size_t j;

	for (j = 0; j < n->nqueues; j++)
		if (strcmp(n->queues[j].name, name) == 0)
			return &n->queues[j];
	assert(!"fx_lqueue_get: no such queue");
	return NULL;
}

static inline struct recon_divert *
fx_ldivert(struct fx *f, size_t i, const char *name, const char *src,
    const char *fwd)
{
	struct recon_node_snapshot *n = &f->s.nodes[i];
	struct recon_divert *d;

	fx_bind(fx_laddr_get(f, i, src), name, false);
	d = fx_slot(&n->diverts, &n->ndiverts, sizeof(*d), name);
	d->name = xstrdup(name);
	d->routing_name = xstrdup(name);
	d->address = xstrdup(src);
	d->forwarding_address = xstrdup(fwd);
	return d;
}

static inline void
fx_unreachable(struct fx *f, size_t i, const char *why)
{
	f->s.nodes[i].refusal.kind = RECON_UNREACHABLE;
	f->s.nodes[i].refusal.text = xstrdup(why);
}

/* ---- freeing ---- */
static inline void
fx_strs_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static inline void
fx_free_decl(struct decl_cluster *c)
{
	size_t i, j;

	for (i = 0; i < c->nnodes; i++) {
		free(c->nodes[i].name);
		free(c->nodes[i].jolokia);
		free(c->nodes[i].credentials);
	}
	for (i = 0; i < c->naddresses; i++) {
		for (j = 0; j < c->addresses[i].nqueues; j++) {
			free(c->addresses[i].queues[j].name);
			free(c->addresses[i].queues[j].filter);
			free(c->addresses[i].queues[j].last_value_key);
		}
		free(c->addresses[i].queues);
		free(c->addresses[i].name);
	}
	for (i = 0; i < c->ndiverts; i++) {
		free(c->diverts[i].name);
		free(c->diverts[i].address);
		free(c->diverts[i].forwarding_address);
		free(c->diverts[i].filter);
		free(c->diverts[i].routing_name);
	}
	for (i = 0; i < c->ncaptures; i++) {
		free(c->captures[i].name);
		free(c->captures[i].pattern);
	}
	free(c->nodes);
	free(c->addresses);
	free(c->diverts);
	free(c->captures);
	free(c->name);
	free(c->dir);
	free(c->settings.capture_prefix);
}

static inline void
fx_free_node(struct recon_node_snapshot *n)
{
	size_t j;

	free(n->node);
	free(n->url);
	free(n->broker_version);
	free(n->refusal.text);
	for (j = 0; j < n->naddresses; j++) {
		free(n->addresses[j].name);
		fx_strs_free(n->addresses[j].queue_names,
		    n->addresses[j].nqueue_names);
		fx_strs_free(n->addresses[j].binding_names,
		    n->addresses[j].nbinding_names);
	}
	for (j = 0; j < n->nqueues; j++) {
		free(n->queues[j].name);
		free(n->queues[j].address);
		free(n->queues[j].filter);
		free(n->queues[j].last_value_key);
	}
	for (j = 0; j < n->ndiverts; j++) {
		free(n->diverts[j].name);
		free(n->diverts[j].routing_name);
		free(n->diverts[j].address);
		free(n->diverts[j].forwarding_address);
		free(n->diverts[j].filter);
	}
	free(n->addresses);
	free(n->queues);
	free(n->diverts);
}

static inline void
fx_free(struct fx *f)
{
	size_t i;

	fx_free_decl(&f->c);
	for (i = 0; i < f->s.nnodes; i++)
		fx_free_node(&f->s.nodes[i]);
	free(f->s.nodes);
	free(f->s.cluster);
	free(f->s.taken_at);
}

#endif
