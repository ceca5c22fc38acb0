/* reconcile/jolokia-ops.c: MBean names and the management operations the
 * agent uses, each with its full Java signature (overloads are refused
 * by Jolokia without one). */
#include "jolokia.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/jsonw.h"
#include "../../lib/xalloc.h"
#include "../recon-int.h"

#define DOMAIN "org.apache.activemq.artemis"

/* javax.management.ObjectName.quote. */
char *
recon_mbean_quote(const char *value)
{
	struct sbuf b = {0};
	const char *p;

	sbuf_addc(&b, '"');
	for (p = value; *p; p++) {
		if (*p == '"' || *p == '*' || *p == '?' || *p == '\\')
			sbuf_addc(&b, '\\');
		if (*p == '\n') {
			sbuf_adds(&b, "\\n");
			continue;
		}
		sbuf_addc(&b, *p);
	}
	sbuf_addc(&b, '"');
	return sbuf_take(&b);
}

char *
recon_mbean_broker(const char *broker)
{
	char *q = recon_mbean_quote(broker), *r;

	r = xasprintf(DOMAIN ":broker=%s", q);
	free(q);
	return r;
}

char *
recon_mbean_address(const char *broker, const char *address)
{
	char *b = recon_mbean_broker(broker), *a = recon_mbean_quote(address);
	char *r = xasprintf("%s,component=addresses,address=%s", b, a);

	free(b);
	free(a);
	return r;
}

char *
recon_mbean_queue(const char *broker, const char *address, unsigned routing,
    const char *queue)
{
	char *a = recon_mbean_address(broker, address);
	char *q = recon_mbean_quote(queue);
	char *r = xasprintf("%s,subcomponent=queues,routing-type=\"%s\","
	                    "queue=%s",
	    a, recon_routing_name(routing), q);

	free(a);
	free(q);
	return r;
}

char *
recon_mbean_divert(const char *broker, const char *address, const char *divert)
{
	char *a = recon_mbean_address(broker, address);
	char *d = recon_mbean_quote(divert);
	char *r = xasprintf("%s,subcomponent=diverts,divert=%s", a, d);

	free(a);
	free(d);
	return r;
}

/* The value starting at p (quoted or not); sets *end past it. */
static char *
mbean_value(const char *p, const char **end)
{
	struct sbuf b = {0};

	if (*p != '"') {
		*end = p + strcspn(p, ",");
		return xstrndup(p, (size_t)(*end - p));
	}
	for (p++; *p && *p != '"'; p++) {
		if (*p == '\\' && p[1] != '\0') {
			p++;
			if (*p == 'n')
				sbuf_addc(&b, '\n');
			else
				sbuf_addc(&b, *p);
			continue;
		}
		sbuf_addc(&b, *p);
	}
	if (*p != '"') {
		sbuf_release(&b);
		return NULL;
	}
	*end = p + 1;
	return sbuf_take(&b);
}

int
recon_mbean_key(const char *mbean, const char *key, char **out)
{
	const char *p = strchr(mbean, ':'), *end;
	size_t klen = strlen(key);
	char *v;

	if (p == NULL)
		return -1;
	p++;
	while (*p) {
		const char *eq = strchr(p, '=');

		if (eq == NULL)
			return -1;
		v = mbean_value(eq + 1, &end);
		if (v == NULL)
			return -1;
		if ((size_t)(eq - p) == klen && strncmp(p, key, klen) == 0) {
			*out = v;
			return 0;
		}
		free(v);
		if (*end != ',')
			return -1;
		p = end + 1;
	}
	return -1;
}

static size_t
exec_on(struct recon_jbulk *b, const char *broker, const char *op,
    const struct recon_jarg *args, size_t nargs)
{
	char *m = recon_mbean_broker(broker);
	size_t i = recon_jbulk_exec(b, m, op, args, nargs);

	free(m);
	return i;
}

static char *
routing_list(unsigned routing)
{
	if (routing == (DECL_ANYCAST | DECL_MULTICAST))
		return xstrdup("ANYCAST,MULTICAST");
	return xstrdup(routing & DECL_MULTICAST ? "MULTICAST" : "ANYCAST");
}

size_t
recon_jbulk_create_address(struct recon_jbulk *b, const char *broker,
    const char *name, unsigned routing)
{
	char *rt = routing_list(routing);
	struct recon_jarg a[2] = {{.s = name}, {.s = rt}};
	size_t i = exec_on(b, broker,
	    "createAddress(java.lang.String,java.lang.String)", a, 2);

	free(rt);
	return i;
}

size_t
recon_jbulk_update_address(struct recon_jbulk *b, const char *broker,
    const char *name, unsigned routing)
{
	char *rt = routing_list(routing);
	struct recon_jarg a[2] = {{.s = name}, {.s = rt}};
	size_t i = exec_on(b, broker,
	    "updateAddress(java.lang.String,java.lang.String)", a, 2);

	free(rt);
	return i;
}

size_t
recon_jbulk_delete_address(struct recon_jbulk *b, const char *broker,
    const char *name, bool force)
{
	struct recon_jarg a[2] = {{.s = name},
	    {.type = RECON_JARG_BOOL, .b = force}};

	return exec_on(b, broker, "deleteAddress(java.lang.String,boolean)", a,
	    2);
}

size_t
recon_jbulk_destroy_queue(struct recon_jbulk *b, const char *broker,
    const char *name, bool remove_consumers, bool auto_delete_address)
{
	struct recon_jarg a[3] = {{.s = name},
	    {.type = RECON_JARG_BOOL, .b = remove_consumers},
	    {.type = RECON_JARG_BOOL, .b = auto_delete_address}};

	return exec_on(b, broker,
	    "destroyQueue(java.lang.String,boolean,boolean)", a, 3);
}

size_t
recon_jbulk_destroy_divert(struct recon_jbulk *b, const char *broker,
    const char *name)
{
	struct recon_jarg a[1] = {{.s = name}};

	return exec_on(b, broker, "destroyDivert(java.lang.String)", a, 1);
}

/* Keys in QueueConfiguration's names; every setting explicit, because
 * omitted keys take address-settings defaults (and updateQueue clears an
 * absent filter). */
char *
recon_queue_config_json(const struct decl_queue *q)
{
	struct sbuf s = {0};
	struct jsonw w;

	jsonw_init(&w, &s, 0);
	jsonw_obj_begin(&w);
	jsonw_key(&w, "name");
	jsonw_str(&w, q->name);
	jsonw_key(&w, "address");
	jsonw_str(&w, q->address);
	jsonw_key(&w, "routing-type");
	jsonw_str(&w, q->routing == DECL_MULTICAST ? "MULTICAST" : "ANYCAST");
	jsonw_key(&w, "durable");
	jsonw_bool(&w, q->durable);
	jsonw_key(&w, "auto-create-address");
	jsonw_bool(&w, false);
	jsonw_key(&w, "filter-string");
	jsonw_str(&w, q->filter != NULL ? q->filter : "");
	jsonw_key(&w, "max-consumers");
	jsonw_int(&w, q->max_consumers);
	jsonw_key(&w, "purge-on-no-consumers");
	jsonw_bool(&w, q->purge_on_no_consumers);
	jsonw_key(&w, "exclusive");
	jsonw_bool(&w, q->exclusive);
	jsonw_key(&w, "ring-size");
	jsonw_int(&w, q->ring_size);
	jsonw_key(&w, "enabled");
	jsonw_bool(&w, q->enabled);
	jsonw_key(&w, "last-value");
	jsonw_bool(&w, q->last_value_key != NULL);
	if (q->last_value_key != NULL) {
		jsonw_key(&w, "last-value-key");
		jsonw_str(&w, q->last_value_key);
	}
	jsonw_key(&w, "consumers-before-dispatch");
	jsonw_int(&w, q->consumers_before_dispatch);
	jsonw_key(&w, "delay-before-dispatch");
	jsonw_int(&w, q->delay_before_dispatch);
	jsonw_obj_end(&w);
	return sbuf_take(&s);
}

size_t
recon_jbulk_create_queue(struct recon_jbulk *b, const char *broker,
    const struct decl_queue *q)
{
	char *json = recon_queue_config_json(q);
	struct recon_jarg a[1] = {{.s = json}};
	size_t i = exec_on(b, broker, "createQueue(java.lang.String)", a, 1);

	free(json);
	return i;
}

size_t
recon_jbulk_update_queue(struct recon_jbulk *b, const char *broker,
    const struct decl_queue *q)
{
	char *json = recon_queue_config_json(q);
	struct recon_jarg a[1] = {{.s = json}};
	size_t i = exec_on(b, broker, "updateQueue(java.lang.String)", a, 1);

	free(json);
	return i;
}

/* DivertConfiguration's JSON keys, all eight (a partial updateDivert drops
 * the filter, resets the routing type and persists the partial record). */
char *
recon_divert_config_json(const struct decl_divert *d)
{
	struct sbuf s = {0};
	struct jsonw w;
	size_t i;

	jsonw_init(&w, &s, 0);
	jsonw_obj_begin(&w);
	jsonw_key(&w, "name");
	jsonw_str(&w, d->name);
	jsonw_key(&w, "routing-name");
	jsonw_str(&w, d->routing_name != NULL ? d->routing_name : d->name);
	jsonw_key(&w, "address");
	jsonw_str(&w, d->address);
	jsonw_key(&w, "forwarding-address");
	jsonw_str(&w, d->forwarding_address);
	jsonw_key(&w, "exclusive");
	jsonw_bool(&w, d->exclusive);
	jsonw_key(&w, "filter-string");
	jsonw_str(&w, d->filter != NULL ? d->filter : "");
	jsonw_key(&w, "routing-type");
	jsonw_str(&w, recon_divert_routing_name(d->routing_type));
	if (d->transformer_class_name != NULL) {
		jsonw_key(&w, "transformer-configuration");
		jsonw_obj_begin(&w);
		jsonw_key(&w, "class-name");
		jsonw_str(&w, d->transformer_class_name);
		jsonw_key(&w, "properties");
		jsonw_obj_begin(&w);
		for (i = 0; i < d->ntransformer_properties; i++) {
			jsonw_key(&w, d->transformer_properties[i].key);
			jsonw_str(&w, d->transformer_properties[i].value);
		}
		jsonw_obj_end(&w);
		jsonw_obj_end(&w);
	}
	jsonw_obj_end(&w);
	return sbuf_take(&s);
}

size_t
recon_jbulk_create_divert(struct recon_jbulk *b, const char *broker,
    const struct decl_divert *d)
{
	char *json = recon_divert_config_json(d);
	struct recon_jarg a[1] = {{.s = json}};
	size_t i = exec_on(b, broker, "createDivert(java.lang.String)", a, 1);

	free(json);
	return i;
}

size_t
recon_jbulk_update_divert(struct recon_jbulk *b, const char *broker,
    const struct decl_divert *d)
{
	char *json = recon_divert_config_json(d);
	struct recon_jarg a[1] = {{.s = json}};
	size_t i = exec_on(b, broker, "updateDivert(java.lang.String)", a, 1);

	free(json);
	return i;
}
