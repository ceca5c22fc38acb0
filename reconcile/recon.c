/* reconcile/recon.c: the shared model (recon.h): refusal kinds, the
 * snapshot objects (release, copies, comparison, lookups), operations. */
#include "recon.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/strv.h"
#include "../lib/xalloc.h"

static const char *const kind_names[] = {
    [RECON_OK] = "OK",
    [RECON_HAS_CONSUMERS] = "HAS_CONSUMERS",
    [RECON_NOT_FOUND] = "NOT_FOUND",
    [RECON_ALREADY_EXISTS] = "ALREADY_EXISTS",
    [RECON_UNAUTHORIZED] = "UNAUTHORIZED",
    [RECON_FORBIDDEN] = "FORBIDDEN",
    [RECON_THROTTLED] = "THROTTLED",
    [RECON_UNREACHABLE] = "UNREACHABLE",
    [RECON_TIMEOUT] = "TIMEOUT",
    [RECON_BAD_RESPONSE] = "BAD_RESPONSE",
    [RECON_BROKER_ERROR] = "BROKER_ERROR",
    [RECON_UNSUPPORTED_VERSION] = "UNSUPPORTED_VERSION",
    [RECON_PASSIVE] = "PASSIVE",
    [RECON_SPLIT_BRAIN] = "SPLIT_BRAIN",
    [RECON_NOT_A_PAIR] = "NOT_A_PAIR",
    [RECON_FENCED] = "FENCED",
};

#define NKINDS (sizeof(kind_names) / sizeof(kind_names[0]))

const char *
recon_kind_name(enum recon_kind k)
{
	if ((size_t)k >= NKINDS)
		return "BROKER_ERROR";
	return kind_names[k];
}

int
recon_kind_parse(const char *s, enum recon_kind *out)
{
	size_t i;

	for (i = 0; i < NKINDS; i++) {
		if (strcmp(s, kind_names[i]) == 0) {
			*out = (enum recon_kind)i;
			return 0;
		}
	}
	return -1;
}

void
recon_refusal_release(struct recon_refusal *r)
{
	if (r == NULL)
		return;
	free(r->text);
	memset(r, 0, sizeof(*r));
}

bool
recon_kind_ha_refusal(enum recon_kind k)
{
	return k == RECON_SPLIT_BRAIN || k == RECON_NOT_A_PAIR;
}

void
recon_ha_release(struct recon_ha *h)
{
	free(h->policy);
	free(h->node_id);
	memset(h, 0, sizeof(*h));
	h->replica_sync = -1;
}

void
recon_ha_copy(struct recon_ha *dst, const struct recon_ha *src)
{
	*dst = *src;
	dst->policy = src->policy != NULL ? xstrdup(src->policy) : NULL;
	dst->node_id = src->node_id != NULL ? xstrdup(src->node_id) : NULL;
}

void
recon_member_release(struct recon_member *m)
{
	free(m->name);
	free(m->url);
	recon_refusal_release(&m->refusal);
	free(m->broker_name);
	free(m->broker_version);
	recon_ha_release(&m->ha);
	memset(m, 0, sizeof(*m));
}

const char *
recon_member_state(const struct recon_member *m)
{
	return m->refusal.kind == RECON_OK ? "LIVE"
	                                   : recon_kind_name(m->refusal.kind);
}

bool
recon_refusal_reply_lost(const struct recon_refusal *r)
{
	switch (r->kind) {
	case RECON_TIMEOUT:
	case RECON_UNREACHABLE:
	case RECON_BAD_RESPONSE:
		return true;
	case RECON_BROKER_ERROR:
		return r->status == 0 && r->http_status >= 400;
	default:
		return false;
	}
}

void
recon_address_release(struct recon_address *a)
{
	if (a->pooled) {
		free(a->queue_names);
		free(a->binding_names);
	} else {
		free(a->name);
		strv_array_free(a->queue_names, a->nqueue_names);
		strv_array_free(a->binding_names, a->nbinding_names);
	}
	memset(a, 0, sizeof(*a));
}

int
recon_name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static const void *
find(const void *base, size_t n, size_t size, const char *name)
{
	const char *key = name;

	if (base == NULL || n == 0 || name == NULL)
		return NULL;
	return bsearch(&key, base, n, size, recon_name_cmp);
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

static char *
dup_or_null(const char *s)
{
	return s != NULL ? xstrdup(s) : NULL;
}

struct recon_queue *
recon_queue_dup(const struct recon_queue *q)
{
	struct recon_queue *c = xmalloc(sizeof(*c));

	*c = *q;
	c->pooled = false;
	c->name = dup_or_null(q->name);
	c->address = dup_or_null(q->address);
	c->filter = dup_or_null(q->filter);
	c->last_value_key = dup_or_null(q->last_value_key);
	return c;
}

void
recon_queue_release(struct recon_queue *q)
{
	if (q == NULL)
		return;
	if (!q->pooled) {
		free(q->name);
		free(q->address);
		free(q->filter);
		free(q->last_value_key);
	}
	memset(q, 0, sizeof(*q));
}

void
recon_divert_copy(struct recon_divert *dst, const struct recon_divert *d)
{
	size_t i;

	*dst = *d;
	dst->pooled = false;
	dst->name = dup_or_null(d->name);
	dst->routing_name = dup_or_null(d->routing_name);
	dst->address = dup_or_null(d->address);
	dst->forwarding_address = dup_or_null(d->forwarding_address);
	dst->filter = dup_or_null(d->filter);
	dst->transformer_class_name = dup_or_null(d->transformer_class_name);
	dst->transformer_properties = NULL;
	if (d->ntransformer_properties > 0)
		dst->transformer_properties =
		    xcalloc(d->ntransformer_properties,
		        sizeof(*dst->transformer_properties));
	for (i = 0; i < d->ntransformer_properties; i++) {
		dst->transformer_properties[i].key =
		    xstrdup(d->transformer_properties[i].key);
		dst->transformer_properties[i].value =
		    xstrdup(d->transformer_properties[i].value);
	}
}

struct recon_divert *
recon_divert_dup(const struct recon_divert *d)
{
	struct recon_divert *c = xmalloc(sizeof(*c));

	recon_divert_copy(c, d);
	return c;
}

void
recon_divert_release(struct recon_divert *d)
{
	size_t i;

	if (d == NULL)
		return;
	if (!d->pooled) {
		free(d->name);
		free(d->routing_name);
		free(d->address);
		free(d->forwarding_address);
		free(d->filter);
		free(d->transformer_class_name);
	}
	for (i = 0; i < d->ntransformer_properties; i++) {
		free(d->transformer_properties[i].key);
		free(d->transformer_properties[i].value);
	}
	free(d->transformer_properties);
	memset(d, 0, sizeof(*d));
}

void
recon_queue_from_decl(struct recon_queue *out, const struct decl_queue *q)
{
	memset(out, 0, sizeof(*out));
	out->name = q->name;
	out->address = (char *)(uintptr_t)q->address;
	out->routing = q->routing;
	out->durable = q->durable;
	out->filter = q->filter;
	out->max_consumers = q->max_consumers;
	out->purge_on_no_consumers = q->purge_on_no_consumers;
	out->exclusive = q->exclusive;
	out->ring_size = q->ring_size;
	out->enabled = q->enabled;
	out->last_value_key = q->last_value_key;
	out->consumers_before_dispatch = q->consumers_before_dispatch;
	out->delay_before_dispatch = q->delay_before_dispatch;
}

void
recon_divert_from_decl(struct recon_divert *out, const struct decl_divert *d)
{
	memset(out, 0, sizeof(*out));
	out->name = d->name;
	out->routing_name = d->routing_name != NULL ? d->routing_name : d->name;
	out->address = d->address;
	out->forwarding_address = d->forwarding_address;
	out->exclusive = d->exclusive;
	out->filter = d->filter;
	out->routing_type = d->routing_type;
	out->transformer_class_name = d->transformer_class_name;
	out->transformer_properties = d->transformer_properties;
	out->ntransformer_properties = d->ntransformer_properties;
}

bool
recon_str_eq(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return (a == NULL || a[0] == '\0') &&
		       (b == NULL || b[0] == '\0');
	return strcmp(a, b) == 0;
}

bool
recon_broker_own(const char *name)
{
	return strncmp(name, "activemq.", 9) == 0 || strcmp(name, "DLQ") == 0 ||
	       strcmp(name, "ExpiryQueue") == 0;
}

bool
recon_queue_same(const struct recon_queue *a, const struct recon_queue *b)
{
	/* a scoped read reads whole every queue a plan compares */
	assert((a->unread & RECON_QUEUE_NO_CONFIG) == 0 &&
	       (b->unread & RECON_QUEUE_NO_CONFIG) == 0);
	return recon_str_eq(a->name, b->name) &&
	       recon_str_eq(a->address, b->address) &&
	       a->routing == b->routing && a->durable == b->durable &&
	       recon_str_eq(a->filter, b->filter) &&
	       a->max_consumers == b->max_consumers &&
	       a->purge_on_no_consumers == b->purge_on_no_consumers &&
	       a->exclusive == b->exclusive && a->ring_size == b->ring_size &&
	       a->enabled == b->enabled &&
	       recon_str_eq(a->last_value_key, b->last_value_key) &&
	       a->consumers_before_dispatch == b->consumers_before_dispatch &&
	       a->delay_before_dispatch == b->delay_before_dispatch;
}

bool
recon_divert_same(const struct recon_divert *a, const struct recon_divert *b)
{
	size_t i;

	if (!recon_str_eq(a->name, b->name) ||
	    !recon_str_eq(a->routing_name, b->routing_name) ||
	    !recon_str_eq(a->address, b->address) ||
	    !recon_str_eq(a->forwarding_address, b->forwarding_address) ||
	    a->exclusive != b->exclusive ||
	    !recon_str_eq(a->filter, b->filter) ||
	    a->routing_type != b->routing_type ||
	    !recon_str_eq(a->transformer_class_name,
	        b->transformer_class_name) ||
	    a->ntransformer_properties != b->ntransformer_properties)
		return false;
	for (i = 0; i < a->ntransformer_properties; i++)
		if (!recon_str_eq(a->transformer_properties[i].key,
		        b->transformer_properties[i].key) ||
		    !recon_str_eq(a->transformer_properties[i].value,
		        b->transformer_properties[i].value))
			return false;
	return true;
}

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static const char *const opk_names[] = {"createAddress", "updateAddress",
    "createQueue", "updateQueue", "destroyQueue", "createDivert",
    "updateDivert", "destroyDivert", "deleteAddress"};

const char *
recon_op_kind_name(enum recon_op_kind k)
{
	return (unsigned)k < NELEM(opk_names) ? opk_names[k] : "?";
}

int
recon_op_kind_parse(const char *s, enum recon_op_kind *out)
{
	size_t i;

	for (i = 0; i < NELEM(opk_names); i++) {
		if (strcmp(opk_names[i], s) == 0) {
			*out = (enum recon_op_kind)i;
			return 0;
		}
	}
	return -1;
}

void
recon_op_copy(struct recon_op *dst, const struct recon_op *src)
{
	*dst = *src;
	dst->name = xstrdup(src->name);
	dst->queue = src->queue != NULL ? recon_queue_dup(src->queue) : NULL;
	dst->divert =
	    src->divert != NULL ? recon_divert_dup(src->divert) : NULL;
}

void
recon_op_release(struct recon_op *op)
{
	free(op->name);
	recon_queue_release(op->queue);
	free(op->queue);
	recon_divert_release(op->divert);
	free(op->divert);
	memset(op, 0, sizeof(*op));
}

/* ---- broker versions ------------------------------------------------ */

static const char *
version_number(const char *s, unsigned *out)
{
	unsigned v = 0;
	size_t n = 0;

	while (s[n] >= '0' && s[n] <= '9') {
		v = v * 10 + (unsigned)(s[n] - '0');
		if (++n > 4)
			return NULL;
	}
	if (n == 0 || (n > 1 && s[0] == '0'))
		return NULL;
	*out = v;
	return s + n;
}

int
recon_version_parse(const char *s, struct recon_version *out)
{
	struct recon_version v;
	const char *p = s;

	if (p == NULL || (p = version_number(p, &v.major)) == NULL ||
	    *p++ != '.' || (p = version_number(p, &v.minor)) == NULL ||
	    *p++ != '.' || (p = version_number(p, &v.micro)) == NULL)
		return -1;
	if (*p != '\0' && *p != '.' && *p != '-')
		return -1;
	*out = v;
	return 0;
}

int
recon_version_cmp(const struct recon_version *a, const struct recon_version *b)
{
	if (a->major != b->major)
		return a->major < b->major ? -1 : 1;
	if (a->minor != b->minor)
		return a->minor < b->minor ? -1 : 1;
	if (a->micro != b->micro)
		return a->micro < b->micro ? -1 : 1;
	return 0;
}

/* Is version at least major.minor.micro? False when it does not parse. */
static bool
at_least(const char *version, unsigned major, unsigned minor, unsigned micro)
{
	struct recon_version v, w = {major, minor, micro};

	return recon_version_parse(version, &v) == 0 &&
	       recon_version_cmp(&v, &w) >= 0;
}

/* Where version stands against the floor (v and floor filled when it
 * parses). */
enum verdict { SUPPORTED, NOT_A_RELEASE, OTHER_MAJOR, BELOW_FLOOR };

static enum verdict
verdict(const char *version, struct recon_version *v,
    struct recon_version *floor)
{
	if (recon_version_parse(RECON_VERSION_FLOOR, floor) < 0)
		abort();
	if (recon_version_parse(version, v) < 0)
		return NOT_A_RELEASE;
	if (v->major != floor->major)
		return OTHER_MAJOR;
	return recon_version_cmp(v, floor) < 0 ? BELOW_FLOOR : SUPPORTED;
}

static bool
supported(const char *version)
{
	struct recon_version v, floor;

	return verdict(version, &v, &floor) == SUPPORTED;
}

char *
recon_version_unsupported(const char *version)
{
	struct recon_version v, floor;

	switch (verdict(version, &v, &floor)) {
	case NOT_A_RELEASE:
		return xasprintf(
		    "the broker's Version '%.80s' is not an Artemis release number; the agent manages Artemis %s and later (docs/compatibility.md)",
		    version != NULL ? version : "", RECON_VERSION_FLOOR);
	case OTHER_MAJOR:
		return xasprintf(
		    "Artemis %.80s is not a %u.x release; the agent manages Artemis %s and later %u.x releases (docs/compatibility.md)",
		    version, floor.major, RECON_VERSION_FLOOR, floor.major);
	case BELOW_FLOOR:
		return xasprintf(
		    "Artemis %.80s is older than %s, the oldest release the agent manages (docs/compatibility.md)",
		    version, RECON_VERSION_FLOOR);
	case SUPPORTED:
		break;
	}
	return NULL;
}

bool
recon_version_divert_json(const char *version)
{
	return at_least(version, 2, 38, 0);
}

bool
recon_version_divert_destroy_kept(const char *version)
{
	return supported(version) && !at_least(version, 2, 32, 0);
}

bool
recon_version_divert_into_nothing_harms(const char *version)
{
	return !supported(version) || at_least(version, 2, 32, 0);
}

bool
recon_version_divert_transformer_lost(const char *version)
{
	return supported(version) && !at_least(version, 2, 37, 0);
}
