/* reconcile/live/jolokia-ops.c: MBean names and the management operations the
 * agent uses, each with its full Java signature (overloads are refused
 * by Jolokia without one). */

#include "live-int.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/xalloc.h"

#define DOMAIN "org.apache.activemq.artemis"

/* javax.management.ObjectName.quote. */
char *
live_mbean_quote(const char *value)
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
live_mbean_broker(const char *broker)
{
	char *q = live_mbean_quote(broker), *r;

	r = xasprintf(DOMAIN ":broker=%s", q);
	free(q);
	return r;
}

char *
live_mbean_address(const char *broker, const char *address)
{
	char *b = live_mbean_broker(broker), *a = live_mbean_quote(address);
	char *r = xasprintf("%s,component=addresses,address=%s", b, a);

	free(b);
	free(a);
	return r;
}

char *
live_mbean_queue(const char *broker, const char *address, unsigned routing,
    const char *queue)
{
	char *a = live_mbean_address(broker, address);
	char *q = live_mbean_quote(queue);
	char *r = xasprintf("%s,subcomponent=queues,routing-type=\"%s\","
	                    "queue=%s",
	    a, decl_routing_name(routing), q);

	free(a);
	free(q);
	return r;
}

char *
live_mbean_divert(const char *broker, const char *address, const char *divert)
{
	char *a = live_mbean_address(broker, address);
	char *d = live_mbean_quote(divert);
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
live_mbean_key(const char *mbean, const char *key, char **out)
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
exec_on(struct live_bulk *b, const char *broker, const char *op,
    const struct live_arg *args, size_t nargs)
{
	char *m = live_mbean_broker(broker);
	size_t i = live_bulk_exec(b, m, op, args, nargs);

	free(m);
	return i;
}

/* createAddress/updateAddress take the routing types as one string. */
static char *
routing_list(unsigned routing)
{
	return decl_routing_set_join(routing, true, ",");
}

size_t
live_bulk_create_address(struct live_bulk *b, const char *broker,
    const char *name, unsigned routing)
{
	char *rt = routing_list(routing);
	struct live_arg a[2] = {{.s = name}, {.s = rt}};
	size_t i = exec_on(b, broker,
	    "createAddress(java.lang.String,java.lang.String)", a, 2);

	free(rt);
	return i;
}

size_t
live_bulk_update_address(struct live_bulk *b, const char *broker,
    const char *name, unsigned routing)
{
	char *rt = routing_list(routing);
	struct live_arg a[2] = {{.s = name}, {.s = rt}};
	size_t i = exec_on(b, broker,
	    "updateAddress(java.lang.String,java.lang.String)", a, 2);

	free(rt);
	return i;
}

size_t
live_bulk_delete_address(struct live_bulk *b, const char *broker,
    const char *name, bool force)
{
	struct live_arg a[2] = {{.s = name},
	    {.type = LIVE_ARG_BOOL, .b = force}};

	return exec_on(b, broker, "deleteAddress(java.lang.String,boolean)", a,
	    2);
}

size_t
live_bulk_destroy_queue(struct live_bulk *b, const char *broker,
    const char *name, bool remove_consumers, bool auto_delete_address)
{
	struct live_arg a[3] = {{.s = name},
	    {.type = LIVE_ARG_BOOL, .b = remove_consumers},
	    {.type = LIVE_ARG_BOOL, .b = auto_delete_address}};

	return exec_on(b, broker,
	    "destroyQueue(java.lang.String,boolean,boolean)", a, 3);
}

size_t
live_bulk_destroy_divert(struct live_bulk *b, const char *broker,
    const char *name)
{
	struct live_arg a[1] = {{.s = name}};

	return exec_on(b, broker, "destroyDivert(java.lang.String)", a, 1);
}

/* An operation whose one argument is a configuration JSON (taken). */
static size_t
exec_json(struct live_bulk *b, const char *broker, const char *op, char *json)
{
	struct live_arg a[1] = {{.s = json}};
	size_t i = exec_on(b, broker, op, a, 1);

	free(json);
	return i;
}

size_t
live_bulk_create_queue(struct live_bulk *b, const char *broker,
    const struct recon_queue *q)
{
	return exec_json(b, broker, "createQueue(java.lang.String)",
	    live_queue_config_json(q));
}

size_t
live_bulk_update_queue(struct live_bulk *b, const char *broker,
    const struct recon_queue *q)
{
	return exec_json(b, broker, "updateQueue(java.lang.String)",
	    live_queue_config_json(q));
}

/* The positional createDivert (deprecated, present in every supported
 * release): createDivert(name, routingName, address, forwardingAddress,
 * exclusive, filterString, transformerClassName, transformerProperties,
 * routingType), the settings of the JSON form in order; "" is no filter
 * and no transformer, as in the JSON form (artemis-management.md 2.5).
 * Its String-properties twin journals the values with their JSON quotes:
 * the Map one is named. The positional updateDivert is never sent: it
 * journals the divert without its address, and the broker then fails to
 * start (measured on 2.28.0 to 2.44.0, docs/compatibility.md). */
#define DIVERT_CREATE_POSITIONAL                                               \
	"createDivert(java.lang.String,java.lang.String,java.lang.String,"     \
	"java.lang.String,boolean,java.lang.String,java.lang.String,"          \
	"java.util.Map,java.lang.String)"

const char *
live_divert_signature(enum recon_op_kind kind, bool json)
{
	if (kind == RECON_OP_CREATE_DIVERT)
		return json ? "createDivert(java.lang.String)"
		            : DIVERT_CREATE_POSITIONAL;
	if (kind == RECON_OP_UPDATE_DIVERT && json)
		return "updateDivert(java.lang.String)";
	return NULL;
}

static const char *
or_empty(const char *s)
{
	return s != NULL ? s : "";
}

size_t
live_bulk_create_divert(struct live_bulk *b, const char *broker,
    const struct recon_divert *d, bool json)
{
	struct live_arg a[9];

	if (json)
		return exec_json(b, broker,
		    live_divert_signature(RECON_OP_CREATE_DIVERT, true),
		    live_divert_config_json(d));
	memset(a, 0, sizeof(a));
	a[0].s = d->name;
	a[1].s = d->routing_name != NULL ? d->routing_name : d->name;
	a[2].s = d->address;
	a[3].s = d->forwarding_address;
	a[4].type = LIVE_ARG_BOOL;
	a[4].b = d->exclusive;
	a[5].s = or_empty(d->filter);
	a[6].s = or_empty(d->transformer_class_name);
	a[7].type = LIVE_ARG_MAP;
	a[7].kv = d->transformer_properties;
	a[7].nkv = d->ntransformer_properties;
	a[8].s = decl_divert_routing_name(d->routing_type);
	return exec_on(b, broker, DIVERT_CREATE_POSITIONAL, a, 9);
}

size_t
live_bulk_update_divert(struct live_bulk *b, const char *broker,
    const struct recon_divert *d)
{
	return exec_json(b, broker,
	    live_divert_signature(RECON_OP_UPDATE_DIVERT, true),
	    live_divert_config_json(d));
}
