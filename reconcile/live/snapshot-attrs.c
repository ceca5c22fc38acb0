/* reconcile/live/snapshot-attrs.c: MBean attribute values of a snapshot
 * read into the model (from the reply tree, lib/json). A missing attribute
 * keeps Artemis's default; a present one of the wrong type, or an integer
 * out of its range (live.h: a negative MessageCount or ConsumerCount,
 * anything past 2^53), is recorded as the reply's problem (BAD_RESPONSE,
 * naming the attribute). */

#include "live-int.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/json.h"
#include "../../lib/xalloc.h"

/* Reading attribute values: a missing attribute keeps the default, a
 * present one of the wrong type makes the reply BAD_RESPONSE. */

static const struct json *
attr(const struct json *o, const char *name)
{
	return json_get(o, name);
}

static void
bad(struct live_attrs *r, const char *name, const char *expected)
{
	if (r->bad == NULL)
		r->bad = xasprintf("%s: attribute %s: expected %s", r->what,
		    name, expected);
}

static bool
rd_bool(struct live_attrs *r, const struct json *o, const char *name, bool def)
{
	const struct json *v = attr(o, name);
	bool out = def;

	if (v == NULL || json_is_null(v))
		return def;
	if (json_bool(v, &out) < 0)
		bad(r, name, "a boolean");
	return out;
}

/* An integer, exactly (a Java long arrives as an integer literal), from lo
 * to hi; every one within +-2^53 (LIVE_INT_MAX, what a recorded snapshot
 * can hold). */
static int64_t
rd_int_in(struct live_attrs *r, const struct json *o, const char *name,
    int64_t def, int64_t lo, int64_t hi)
{
	const struct json *v = attr(o, name);
	int64_t out = def;
	char *range;

	if (v == NULL || json_is_null(v))
		return def;
	if (json_int(v, &out) < 0) {
		bad(r, name, "an integer");
		return def;
	}
	if (out < lo || out > hi) {
		range = xasprintf("an integer from %lld to %lld, not %lld",
		    (long long)lo, (long long)hi, (long long)out);
		bad(r, name, range);
		free(range);
		return def;
	}
	return out;
}

static int64_t
rd_int(struct live_attrs *r, const struct json *o, const char *name,
    int64_t def)
{
	return rd_int_in(r, o, name, def, -LIVE_INT_MAX, LIVE_INT_MAX);
}

/* NULL for missing, null or (when empty_is_null) "". */
static char *
rd_str(struct live_attrs *r, const struct json *o, const char *name,
    bool empty_is_null)
{
	const struct json *v = attr(o, name);

	if (v == NULL || json_is_null(v))
		return NULL;
	if (!json_is_string(v)) {
		bad(r, name, "a string");
		return NULL;
	}
	if (empty_is_null && json_str(v)[0] == '\0')
		return NULL;
	return xstrdup(json_str(v));
}

static char **
rd_strv(struct live_attrs *r, const struct json *o, const char *name, size_t *n)
{
	const struct json *v = attr(o, name), *c;
	char **out;
	size_t i = 0;

	*n = 0;
	if (v == NULL || json_is_null(v))
		return NULL;
	if (!json_is_array(v)) {
		bad(r, name, "an array of strings");
		return NULL;
	}
	out = xcalloc(json_size(v) + 1, sizeof(*out));
	for (c = json_first(v); c != NULL; c = json_next(c)) {
		if (!json_is_string(c)) {
			bad(r, name, "an array of strings");
			continue;
		}
		out[i++] = xstrdup(json_str(c));
	}
	*n = i;
	return out;
}

static unsigned
rd_routing_set(struct live_attrs *r, const struct json *o)
{
	char **v;
	size_t n, i;
	unsigned set = 0, one;

	v = rd_strv(r, o, "RoutingTypes", &n);
	for (i = 0; i < n; i++) {
		if (decl_routing_parse(v[i], &one) == 0)
			set |= one;
		else
			bad(r, "RoutingTypes", "ANYCAST or MULTICAST");
		free(v[i]);
	}
	free(v);
	return set;
}

void
live_attrs_address(struct live_attrs *r, const char *mbean,
    const struct json *o, struct recon_address *a)
{
	a->name = rd_str(r, o, "Address", false);
	if (a->name == NULL && live_mbean_key(mbean, "address", &a->name) < 0)
		bad(r, "Address", "a string");
	a->routing = rd_routing_set(r, o);
	a->queue_names = rd_strv(r, o, "QueueNames", &a->nqueue_names);
	a->binding_names = rd_strv(r, o, "BindingNames", &a->nbinding_names);
	a->auto_created = rd_bool(r, o, "AutoCreated", false);
	a->internal = rd_bool(r, o, "Internal", false);
}

void
live_queue_unread(struct recon_queue *q, bool reload)
{
	free(q->filter);
	free(q->last_value_key);
	q->durable = true;
	q->filter = NULL;
	q->max_consumers = -1;
	q->purge_on_no_consumers = false;
	q->exclusive = false;
	q->ring_size = -1;
	q->enabled = true;
	q->last_value_key = NULL;
	q->consumers_before_dispatch = 0;
	q->delay_before_dispatch = -1;
	q->consumer_count = 0;
	if (!reload) {
		q->message_count = 0;
		q->configuration_managed = false;
		q->auto_created = false;
	}
	q->unread = RECON_QUEUE_UNREAD;
}

void
live_attrs_queue_id(struct live_attrs *r, const char *mbean,
    const struct json *o, struct recon_queue *q)
{
	char *rt;

	q->name = rd_str(r, o, "Name", false);
	if (q->name == NULL && live_mbean_key(mbean, "queue", &q->name) < 0)
		bad(r, "Name", "a string");
	q->address = rd_str(r, o, "Address", false);
	if (q->address == NULL &&
	    live_mbean_key(mbean, "address", &q->address) < 0)
		bad(r, "Address", "a string");
	rt = rd_str(r, o, "RoutingType", false);
	if (rt == NULL && live_mbean_key(mbean, "routing-type", &rt) < 0)
		rt = NULL;
	if (rt == NULL || decl_routing_parse(rt, &q->routing) < 0)
		bad(r, "RoutingType", "ANYCAST or MULTICAST");
	free(rt);
	live_queue_unread(q, false);
	q->configuration_managed = rd_bool(r, o, "ConfigurationManaged", false);
	q->auto_created = rd_bool(r, o, "AutoCreated", false);
	q->internal = rd_bool(r, o, "InternalQueue", false);
	q->temporary = rd_bool(r, o, "Temporary", false);
	q->message_count = rd_int_in(r, o, "MessageCount", 0, 0, LIVE_INT_MAX);
}

void
live_attrs_queue_config(struct live_attrs *r, const struct json *o,
    struct recon_queue *q)
{
	live_queue_unread(q, true);
	q->durable = rd_bool(r, o, "Durable", true);
	q->filter = rd_str(r, o, "Filter", true);
	q->max_consumers = rd_int(r, o, "MaxConsumers", -1);
	q->purge_on_no_consumers = rd_bool(r, o, "PurgeOnNoConsumers", false);
	q->exclusive = rd_bool(r, o, "Exclusive", false);
	q->ring_size = rd_int(r, o, "RingSize", -1);
	q->enabled = rd_bool(r, o, "Enabled", true);
	q->last_value_key = rd_str(r, o, "LastValueKey", true);
	q->consumers_before_dispatch =
	    rd_int(r, o, "ConsumersBeforeDispatch", 0);
	q->delay_before_dispatch = rd_int(r, o, "DelayBeforeDispatch", -1);
	q->consumer_count =
	    rd_int_in(r, o, "ConsumerCount", 0, 0, LIVE_CONSUMERS_MAX);
	q->message_count = rd_int_in(r, o, "MessageCount", 0, 0, LIVE_INT_MAX);
	q->unread = 0;
}

void
live_attrs_queue(struct live_attrs *r, const char *mbean, const struct json *o,
    struct recon_queue *q)
{
	live_attrs_queue_id(r, mbean, o, q);
	live_attrs_queue_config(r, o, q);
}

static void
to_props(struct live_attrs *r, const struct json *o, struct recon_divert *d)
{
	const struct json *v = attr(o, "TransformerProperties"), *c;
	size_t i = 0;

	if (v == NULL || json_is_null(v))
		return;
	if (!json_is_object(v)) {
		bad(r, "TransformerProperties", "an object");
		return;
	}
	d->transformer_properties =
	    xcalloc(json_size(v) + 1, sizeof(struct decl_kv));
	for (c = json_first(v); c != NULL; c = json_next(c)) {
		if (!json_is_string(c)) {
			bad(r, "TransformerProperties", "string values");
			continue;
		}
		d->transformer_properties[i].key = xstrdup(json_key(c));
		d->transformer_properties[i++].value = xstrdup(json_str(c));
	}
	d->ntransformer_properties = i;
}

void
live_attrs_divert(struct live_attrs *r, const char *mbean, const struct json *o,
    struct recon_divert *d)
{
	char *rt;

	d->name = rd_str(r, o, "UniqueName", false);
	if (d->name == NULL && live_mbean_key(mbean, "divert", &d->name) < 0)
		bad(r, "UniqueName", "a string");
	d->routing_name = rd_str(r, o, "RoutingName", false);
	d->address = rd_str(r, o, "Address", false);
	if (d->address == NULL &&
	    live_mbean_key(mbean, "address", &d->address) < 0)
		bad(r, "Address", "a string");
	d->forwarding_address = rd_str(r, o, "ForwardingAddress", false);
	if (d->forwarding_address == NULL)
		d->forwarding_address = xstrdup("");
	d->exclusive = rd_bool(r, o, "Exclusive", false);
	d->filter = rd_str(r, o, "Filter", true);
	rt = rd_str(r, o, "RoutingType", false);
	if (rt != NULL && decl_divert_routing_parse(rt, &d->routing_type) < 0)
		bad(r, "RoutingType", "STRIP, PASS, ANYCAST or MULTICAST");
	free(rt);
	d->transformer_class_name = rd_str(r, o, "TransformerClassName", true);
	to_props(r, o, d);
}
