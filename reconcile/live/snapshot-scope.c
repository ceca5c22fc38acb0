/* reconcile/live/snapshot-scope.c: a read shaped by what a plan needs
 * (live.h, struct live_scope; docs/snapshot-format.md, "A plan's read"):
 * the scope itself, the elements a node's bulk read gets for it, what
 * their replies give the node, the second request for the queues found
 * elsewhere than expected, and a recorded node narrowed to a scope. */
#include "live-int.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/json.h"
#include "../../lib/xalloc.h"

/* Every queue by pattern: the identity and the flags. Temporary is there
 * because a pattern read of attributes no queue has is refused as a whole
 * (HTTP 400 "No matching attributes"), and InternalQueue is only on
 * 2.34.0 and later (ARTEMIS-4498; before, internal queues have no MBean). */
static const char *const id_attrs[] = {"InternalQueue", "Temporary",
    "ConfigurationManaged", "MessageCount"};
#define ID_ATTRS        2 /* a plan's read */
#define ID_RELOAD_ATTRS 4 /* and what a reload prediction weighs */
/* A queue of the scope: its configuration and counts, every attribute on
 * every supported release (an exact read of a missing one is refused). */
static const char *const config_attrs[] = {"Durable", "Filter", "MaxConsumers",
    "PurgeOnNoConsumers", "Exclusive", "RingSize", "Enabled", "LastValueKey",
    "ConsumersBeforeDispatch", "DelayBeforeDispatch", "ConsumerCount",
    "MessageCount"};
#define N(a) (sizeof(a) / sizeof((a)[0]))

#define D "org.apache.activemq.artemis:"
#define QUEUES                                                                 \
	D "broker=*,component=addresses,address=*,subcomponent=queues,"        \
	  "routing-type=*,queue=*"

/* ---- the scope ---------------------------------------------------------- */

static int
cmp_queue(const void *a, const void *b)
{
	return strcmp(((const struct live_scope_queue *)a)->name,
	    ((const struct live_scope_queue *)b)->name);
}

static void
add_place(struct live_scope_queue *q, const char *address, unsigned routing)
{
	size_t i;

	if (address == NULL || routing == 0)
		return;
	for (i = 0; i < q->nat; i++)
		if (q->routing[i] == routing &&
		    strcmp(q->address[i], address) == 0)
			return;
	if (q->nat == LIVE_SCOPE_GUESSES)
		return; /* the second request finds it */
	q->address[q->nat] = xstrdup(address);
	q->routing[q->nat++] = routing;
}

void
live_scope_add(struct live_scope *s, const char *name, const char *address,
    unsigned routing)
{
	struct live_scope_queue *q;

	xgrow(&s->queues, &s->alloc, s->nqueues + 1, sizeof(*s->queues));
	q = &s->queues[s->nqueues++];
	memset(q, 0, sizeof(*q));
	q->name = xstrdup(name);
	add_place(q, address, routing);
}

void
live_scope_finish(struct live_scope *s)
{
	size_t i, j, k, n = 0;

	if (s->nqueues > 1)
		qsort(s->queues, s->nqueues, sizeof(*s->queues), cmp_queue);
	for (i = 0; i < s->nqueues; i = j) {
		s->queues[n] = s->queues[i];
		for (j = i + 1; j < s->nqueues && strcmp(s->queues[j].name,
		                                      s->queues[i].name) == 0;
		     j++) {
			for (k = 0; k < s->queues[j].nat; k++) {
				add_place(&s->queues[n],
				    s->queues[j].address[k],
				    s->queues[j].routing[k]);
				free(s->queues[j].address[k]);
			}
			free(s->queues[j].name);
		}
		n++;
	}
	s->nqueues = n;
}

static int
cmp_key(const void *key, const void *q)
{
	return strcmp(key, ((const struct live_scope_queue *)q)->name);
}

const struct live_scope_queue *
live_scope_find(const struct live_scope *s, const char *name)
{
	if (s == NULL || s->nqueues == 0)
		return NULL;
	return bsearch(name, s->queues, s->nqueues, sizeof(*s->queues),
	    cmp_key);
}

void
live_scope_release(struct live_scope *s)
{
	size_t i, k;

	for (i = 0; i < s->nqueues; i++) {
		free(s->queues[i].name);
		for (k = 0; k < s->queues[i].nat; k++)
			free(s->queues[i].address[k]);
	}
	free(s->queues);
	memset(s, 0, sizeof(*s));
}

void
live_node_narrow(struct recon_node_snapshot *n, const struct live_scope *scope)
{
	size_t i;

	for (i = 0; i < n->nqueues; i++)
		if (live_scope_find(scope, n->queues[i].name) == NULL)
			live_queue_unread(&n->queues[i], scope->reload);
}

/* ---- the elements of a read --------------------------------------------- */

void
live_read_got_release(struct live_got *g)
{
	size_t i;

	for (i = 0; i < g->naddresses; i++)
		recon_address_release(&g->addresses[i]);
	free(g->addresses);
	for (i = 0; i < g->nqueues; i++)
		recon_queue_release(&g->queues[i]);
	free(g->queues);
	for (i = 0; i < g->ndiverts; i++)
		recon_divert_release(&g->diverts[i]);
	free(g->diverts);
	free(g->broker);
	free(g->bad);
	memset(g, 0, sizeof(*g));
}

bool
live_read_exact(const struct live_scope *scope, size_t queues_hint)
{
	/* Measured on 2.44.0 with 10,000 queues (bench/README.md, "The
	 * read"): a queue read by its name costs about 1.5 times its share of
	 * a pattern read of the same attributes, and the pattern read of the
	 * identity a tenth of it. Unknown (the first read of a node): by
	 * name up to LIVE_READ_EXACT_COLD queues, whose extra cost at worst
	 * is small against what reading thousands of others costs. */
	if (scope->shape != LIVE_SCOPE_CHOSEN)
		return scope->shape == LIVE_SCOPE_BY_NAME;
	if (queues_hint == 0)
		return scope->nqueues <= LIVE_READ_EXACT_COLD;
	return scope->nqueues * 2 <= queues_hint;
}

void
live_read_queues(struct live_bulk *b, const struct live_read *rd)
{
	const char *attrs[N(id_attrs) + N(config_attrs)];
	size_t i, n = rd->scope->reload ? ID_RELOAD_ATTRS : ID_ATTRS;

	for (i = 0; i < n; i++)
		attrs[i] = id_attrs[i];
	if (!rd->exact)
		for (i = 0; i < N(config_attrs); i++)
			if (strcmp(config_attrs[i], "MessageCount") != 0 ||
			    !rd->scope->reload)
				attrs[n++] = config_attrs[i];
	live_bulk_read(b, QUEUES, attrs, n);
}

/* The exact read of a queue at (address, routing) on broker, noted as
 * element of scope queue qi, place at. */
static void
read_at(struct live_bulk *b, struct live_read *rd, const char *broker,
    const char *address, unsigned routing, size_t qi, unsigned char at)
{
	char *m = live_mbean_queue(broker, address, routing,
	    rd->scope->queues[qi].name);

	if (rd->nexact == 0)
		rd->first = b->n;
	live_bulk_read_mbean(b, m, config_attrs, N(config_attrs));
	free(m);
	if (rd->nexact == rd->alloc) {
		rd->alloc = rd->alloc > 0 ? 2 * rd->alloc : 64;
		rd->queue =
		    xreallocarray(rd->queue, rd->alloc, sizeof(*rd->queue));
		rd->at = xreallocarray(rd->at, rd->alloc, sizeof(*rd->at));
	}
	rd->queue[rd->nexact] = qi;
	rd->at[rd->nexact++] = at;
}

void
live_read_add_exact(struct live_bulk *b, struct live_read *rd)
{
	const struct live_scope_queue *q;
	size_t i, k;

	for (i = 0; i < rd->scope->nqueues; i++) {
		q = &rd->scope->queues[i];
		for (k = 0; k < q->nat; k++)
			read_at(b, rd, rd->broker, q->address[k], q->routing[k],
			    i, (unsigned char)k);
	}
}

size_t
live_read_add_misses(struct live_bulk *b, struct live_read *again,
    const struct recon_node_snapshot *n, const struct live_read *rd)
{
	const struct recon_queue *q;
	size_t i;

	memset(again, 0, sizeof(*again));
	again->scope = rd->scope;
	again->exact = true;
	again->broker = xstrdup(n->broker_name);
	for (i = 0; i < rd->scope->nqueues; i++) {
		q = recon_node_find_queue(n, rd->scope->queues[i].name);
		if (q != NULL && (q->unread & RECON_QUEUE_NO_CONFIG) != 0)
			read_at(b, again, n->broker_name, q->address,
			    q->routing, i, LIVE_READ_HERE);
	}
	return again->nexact;
}

void
live_read_release(struct live_read *rd)
{
	live_read_got_release(&rd->got);
	free(rd->broker);
	free(rd->queue);
	free(rd->at);
	memset(rd, 0, sizeof(*rd));
}

/* ---- what the replies give ---------------------------------------------- */

/* Fill q from the exact reply res. 0; 1 when there was no such MBean (q
 * left unread); -1 for a refusal or a reply of the wrong shape: the
 * node's, in *refusal (its text owned). */
static int
take(struct recon_queue *q, const struct live_bulk_result *res,
    struct recon_refusal *refusal)
{
	struct live_attrs r = {0};
	char *what;

	if (res->refusal.kind != RECON_OK) {
		if (res->no_mbean)
			return 1;
		refusal->kind = res->refusal.kind;
		refusal->http_status = res->refusal.http_status;
		refusal->status = res->refusal.status;
		refusal->text = xasprintf("queue '%.200s': %s", q->name,
		    res->refusal.text != NULL ? res->refusal.text : "");
		return -1;
	}
	if (!json_is_object(res->value)) {
		refusal->kind = RECON_BAD_RESPONSE;
		refusal->text = xasprintf(
		    "queue '%.200s' read: expected an object", q->name);
		return -1;
	}
	what = xasprintf("queue '%.200s'", q->name);
	r.what = what;
	live_attrs_queue_config(&r, res->value, q);
	free(what);
	if (r.bad == NULL)
		return 0;
	refusal->kind = RECON_BAD_RESPONSE;
	refusal->text = r.bad;
	return -1;
}

int
live_read_apply(struct recon_node_snapshot *n, const struct live_bulk *b,
    const struct live_read *rd, struct recon_refusal *refusal)
{
	const struct live_scope_queue *sq;
	struct recon_queue key = {0}, *q;
	unsigned char at;
	size_t i;

	for (i = 0; i < rd->nexact; i++) {
		sq = &rd->scope->queues[rd->queue[i]];
		at = rd->at[i];
		key.name = sq->name;
		q = n->nqueues > 0 ? bsearch(&key, n->queues, n->nqueues,
		                         sizeof(*n->queues), recon_name_cmp)
		                   : NULL;
		/* Not there when the identity was read (created since:
		 * read as before it), or not at this place: what the element
		 * says is not this queue's. A queue found where it was
		 * looked for but gone since stays unread. */
		if (q == NULL || (q->unread & RECON_QUEUE_NO_CONFIG) == 0)
			continue;
		if (at != LIVE_READ_HERE &&
		    (n->broker_name == NULL ||
		        strcmp(rd->broker, n->broker_name) != 0 ||
		        q->routing != sq->routing[at] ||
		        strcmp(q->address, sq->address[at]) != 0))
			continue;
		if (take(q, &b->results[rd->first + i], refusal) < 0)
			return -1;
	}
	return 0;
}

void
live_read_drop_unread(struct recon_node_snapshot *n,
    const struct live_scope *scope)
{
	size_t i, k = 0;

	for (i = 0; i < n->nqueues; i++) {
		if ((n->queues[i].unread & RECON_QUEUE_NO_CONFIG) != 0 &&
		    live_scope_find(scope, n->queues[i].name) != NULL) {
			/* gone between the reads of its identity and of
			 * its configuration: as if read after */
			recon_queue_release(&n->queues[i]);
			continue;
		}
		n->queues[k++] = n->queues[i];
	}
	n->nqueues = k;
}
