/* reconcile/live/broker-config.c: the one writer of a queue's and a
 * divert's configuration as the JSON that Artemis's createQueue(String) /
 * updateQueue(String) and createDivert(String) / updateDivert(String)
 * take (artemis-management.md 2.4, 2.5). plan.json carries exactly these
 * objects, the Jolokia operations send exactly these bytes, and the audit
 * records them: what an operator approved is what the broker receives and
 * what the audit shows.
 *
 * Keys are written in sorted order (plan.json is canonical). Every setting
 * is given: an omitted key would take an address-settings default, and a
 * partial updateDivert drops settings and persists the partial record.
 * An absent filter: a queue's `filter-string` is left out, a divert's is
 * "". Artemis reads both forms as "no filter" (QueueConfiguration and
 * DivertConfiguration treat a missing and an empty filter-string alike),
 * and updateQueue / updateDivert remove an existing filter for either;
 * tests/integration/50-apply-kinds.sh checks this on the real broker. A
 * divert without a routing name is sent its own name (Artemis would make
 * up a random UUID). The readers below take back exactly what the writers
 * wrote (plan.json round-trips to the same bytes). */
#include "live-int.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/json.h"
#include "../../lib/jsonw.h"
#include "../../lib/xalloc.h"

void
live_queue_config_write(struct jsonw *w, const struct recon_queue *q)
{
	jsonw_obj_begin(w);
	jsonw_key_str(w, "address", q->address);
	jsonw_key_bool(w, "auto-create-address", false);
	jsonw_key_int(w, "consumers-before-dispatch",
	    q->consumers_before_dispatch);
	jsonw_key_int(w, "delay-before-dispatch", q->delay_before_dispatch);
	jsonw_key_bool(w, "durable", q->durable);
	jsonw_key_bool(w, "enabled", q->enabled);
	jsonw_key_bool(w, "exclusive", q->exclusive);
	if (q->filter != NULL && q->filter[0] != '\0')
		jsonw_key_str(w, "filter-string", q->filter);
	jsonw_key_bool(w, "last-value", q->last_value_key != NULL);
	if (q->last_value_key != NULL)
		jsonw_key_str(w, "last-value-key", q->last_value_key);
	jsonw_key_int(w, "max-consumers", q->max_consumers);
	jsonw_key_str(w, "name", q->name);
	jsonw_key_bool(w, "purge-on-no-consumers", q->purge_on_no_consumers);
	jsonw_key_int(w, "ring-size", q->ring_size);
	jsonw_key_str(w, "routing-type", decl_routing_artemis_name(q->routing));
	jsonw_obj_end(w);
}

void
live_divert_config_write(struct jsonw *w, const struct recon_divert *d)
{
	jsonw_obj_begin(w);
	jsonw_key_str(w, "address", d->address);
	jsonw_key_bool(w, "exclusive", d->exclusive);
	jsonw_key_str(w, "filter-string", d->filter != NULL ? d->filter : "");
	jsonw_key_str(w, "forwarding-address", d->forwarding_address);
	jsonw_key_str(w, "name", d->name);
	jsonw_key_str(w, "routing-name",
	    d->routing_name != NULL ? d->routing_name : d->name);
	jsonw_key_str(w, "routing-type",
	    decl_divert_routing_name(d->routing_type));
	if (d->transformer_class_name != NULL) {
		size_t i;

		jsonw_key(w, "transformer-configuration");
		jsonw_obj_begin(w);
		jsonw_key_str(w, "class-name", d->transformer_class_name);
		jsonw_key(w, "properties");
		jsonw_obj_begin(w);
		for (i = 0; i < d->ntransformer_properties; i++)
			jsonw_key_str(w, d->transformer_properties[i].key,
			    d->transformer_properties[i].value);
		jsonw_obj_end(w);
		jsonw_obj_end(w);
	}
	jsonw_obj_end(w);
}

char *
live_queue_config_json(const struct recon_queue *q)
{
	struct sbuf s = {0};
	struct jsonw w;

	jsonw_init(&w, &s, 0);
	live_queue_config_write(&w, q);
	return sbuf_take(&s);
}

char *
live_divert_config_json(const struct recon_divert *d)
{
	struct sbuf s = {0};
	struct jsonw w;

	jsonw_init(&w, &s, 0);
	live_divert_config_write(&w, d);
	return sbuf_take(&s);
}

int
live_queue_config_read(struct json_reader *c, const struct json *o,
    const char *w, struct recon_queue *q)
{
	char *rt = NULL;
	int rc = -1;

	memset(q, 0, sizeof(*q));
	if (json_read_str(c, o, w, "address", false, &q->address) < 0 ||
	    json_read_int(c, o, w, "consumers-before-dispatch",
	        &q->consumers_before_dispatch) < 0 ||
	    json_read_int(c, o, w, "delay-before-dispatch",
	        &q->delay_before_dispatch) < 0 ||
	    json_read_bool(c, o, w, "durable", &q->durable) < 0 ||
	    json_read_bool(c, o, w, "enabled", &q->enabled) < 0 ||
	    json_read_bool(c, o, w, "exclusive", &q->exclusive) < 0 ||
	    json_read_optional(c, o, w, "filter-string", &q->filter) < 0 ||
	    json_read_optional(c, o, w, "last-value-key", &q->last_value_key) <
	        0 ||
	    json_read_int(c, o, w, "max-consumers", &q->max_consumers) < 0 ||
	    json_read_str(c, o, w, "name", false, &q->name) < 0 ||
	    json_read_bool(c, o, w, "purge-on-no-consumers",
	        &q->purge_on_no_consumers) < 0 ||
	    json_read_int(c, o, w, "ring-size", &q->ring_size) < 0 ||
	    json_read_str(c, o, w, "routing-type", false, &rt) < 0)
		goto done;
	/* as Artemis spells it: upper case */
	if (decl_routing_parse(rt, &q->routing) < 0 ||
	    strcmp(rt, decl_routing_artemis_name(q->routing)) != 0) {
		json_read_fail(c, w, "routing-type",
		    "expected ANYCAST or MULTICAST");
		goto done;
	}
	rc = 0;
done:
	free(rt);
	return rc;
}

static int
transformer_read(struct json_reader *c, const struct json *o, const char *w,
    struct recon_divert *d)
{
	const struct json *t = json_get(o, "transformer-configuration");
	const struct json *props, *it;
	size_t i = 0;

	if (t == NULL)
		return 0;
	if (json_read_str(c, t, w, "class-name", false,
	        &d->transformer_class_name) < 0)
		return -1;
	props = json_read_object(c, t, w, "properties", false);
	if (props == NULL)
		return -1;
	d->ntransformer_properties = json_size(props);
	d->transformer_properties =
	    xcalloc(d->ntransformer_properties + 1, sizeof(struct decl_kv));
	for (it = json_first(props); it != NULL; it = json_next(it)) {
		if (!json_is_string(it)) {
			d->ntransformer_properties = i;
			return json_read_fail(c, w, "transformer-configuration",
			    "property values must be strings");
		}
		d->transformer_properties[i].key = xstrdup(json_key(it));
		d->transformer_properties[i].value = xstrdup(json_str(it));
		i++;
	}
	return 0;
}

int
live_divert_config_read(struct json_reader *c, const struct json *o,
    const char *w, struct recon_divert *d)
{
	char *rt = NULL;
	int rc = -1;

	memset(d, 0, sizeof(*d));
	if (json_read_str(c, o, w, "address", false, &d->address) < 0 ||
	    json_read_bool(c, o, w, "exclusive", &d->exclusive) < 0 ||
	    json_read_str(c, o, w, "filter-string", false, &d->filter) < 0 ||
	    json_read_str(c, o, w, "forwarding-address", false,
	        &d->forwarding_address) < 0 ||
	    json_read_str(c, o, w, "name", false, &d->name) < 0 ||
	    json_read_str(c, o, w, "routing-name", true, &d->routing_name) <
	        0 ||
	    json_read_str(c, o, w, "routing-type", false, &rt) < 0 ||
	    transformer_read(c, o, w, d) < 0)
		goto done;
	if (d->filter[0] == '\0') {
		free(d->filter);
		d->filter = NULL;
	}
	if (decl_divert_routing_parse(rt, &d->routing_type) < 0) {
		json_read_fail(c, w, "routing-type",
		    "expected STRIP, PASS, ANYCAST or MULTICAST");
		goto done;
	}
	rc = 0;
done:
	free(rt);
	return rc;
}
