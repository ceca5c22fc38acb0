/* declarations/render/render-build.c: the <addresses> and <diverts> elements of
 * broker.xml, built and escaped by libxml2.
 *
 * Shapes follow artemis-configuration.xsd (2.40.0): queue settings other
 * than filter, durable and user are attributes of <queue>; a divert's
 * transformer is always written as <transformer><class-name/><property
 * key= value=/>...</transformer>. Every setting of the normalised model is
 * written, defaults included, so the file states the declaration whole and
 * no address-setting default can stand in for a declared value.
 */
#include "render-int.h"

#include <inttypes.h>
#include <libxml/tree.h>
#include <libxml/xmlstring.h>
#include <stdio.h>
#include <string.h>

#include "../../lib/xalloc.h"

#define X(s) ((const xmlChar *)(s))

static const char *
bool_str(bool b)
{
	return b ? "true" : "false";
}

static void
add_prop(xmlNodePtr n, const char *name, const char *value)
{
	xmlNewProp(n, X(name), X(value));
}

static void
add_prop_i64(xmlNodePtr n, const char *name, int64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRId64, v);
	add_prop(n, name, buf);
}

/* A line break and the indentation of nesting level `level` under
 * fmt->base, as a text node (libxml2 escapes nothing in it). */
static void
add_indent(xmlNodePtr parent, const struct render_fmt *fmt, unsigned level)
{
	struct sbuf b = {0};
	unsigned i;

	sbuf_addc(&b, '\n');
	sbuf_adds(&b, fmt->base);
	for (i = 0; i < level; i++)
		sbuf_adds(&b, fmt->unit);
	xmlAddChild(parent, xmlNewText(X(sbuf_str(&b))));
	sbuf_release(&b);
}

/* Append <name> to parent at nesting level `level`; text may be NULL. */
static xmlNodePtr
add_elem(xmlNodePtr parent, const struct render_fmt *fmt, unsigned level,
    const char *name, const char *text)
{
	add_indent(parent, fmt, level);
	return xmlNewTextChild(parent, NULL, X(name), X(text));
}

/* Close a parent at `level` whose children were added: the line break
 * before its end tag. */
static void
close_elem(xmlNodePtr parent, const struct render_fmt *fmt, unsigned level)
{
	if (parent->children != NULL)
		add_indent(parent, fmt, level);
}

static void
add_filter(xmlNodePtr parent, const struct render_fmt *fmt, unsigned level,
    const char *filter)
{
	xmlNodePtr f;

	if (filter == NULL)
		return;
	f = add_elem(parent, fmt, level, "filter", NULL);
	add_prop(f, "string", filter);
}

static void
add_queue(xmlNodePtr parent, const struct render_fmt *fmt, unsigned level,
    const struct decl_queue *q)
{
	xmlNodePtr n = add_elem(parent, fmt, level, "queue", NULL);

	add_prop(n, "name", q->name);
	add_prop_i64(n, "max-consumers", q->max_consumers);
	add_prop(n, "purge-on-no-consumers",
	    bool_str(q->purge_on_no_consumers));
	add_prop(n, "exclusive", bool_str(q->exclusive));
	if (q->last_value_key != NULL) {
		/* The key alone leaves QueueControl's LastValue false. */
		add_prop(n, "last-value", "true");
		add_prop(n, "last-value-key", q->last_value_key);
	}
	add_prop_i64(n, "consumers-before-dispatch",
	    q->consumers_before_dispatch);
	add_prop_i64(n, "delay-before-dispatch", q->delay_before_dispatch);
	add_prop_i64(n, "ring-size", q->ring_size);
	add_prop(n, "enabled", bool_str(q->enabled));
	add_elem(n, fmt, level + 1, "durable", bool_str(q->durable));
	add_filter(n, fmt, level + 1, q->filter);
	close_elem(n, fmt, level);
}

/* <anycast> or <multicast> with the address's queues of that routing. */
static void
add_routing(xmlNodePtr addr, const struct render_fmt *fmt, unsigned level,
    const struct decl_address *a, unsigned routing)
{
	xmlNodePtr r;
	size_t i;

	if ((a->routing & routing) == 0)
		return;
	r = add_elem(addr, fmt, level, decl_routing_name(routing), NULL);
	for (i = 0; i < a->nqueues; i++)
		if (a->queues[i].routing == routing)
			add_queue(r, fmt, level + 1, &a->queues[i]);
	close_elem(r, fmt, level);
}

/* Dump root (a document element of its own) and free its document. */
static char *
dump(xmlDocPtr doc, xmlNodePtr root)
{
	xmlBufferPtr buf = xmlBufferCreate();
	char *s;

	xmlNodeDump(buf, doc, root, 0, 0);
	s = xstrdup((const char *)xmlBufferContent(buf));
	xmlBufferFree(buf);
	xmlFreeDoc(doc);
	return s;
}

char *
render_addresses_xml(const struct decl_cluster *c, const struct render_fmt *fmt)
{
	xmlDocPtr doc = xmlNewDoc(X("1.0"));
	xmlNodePtr root = xmlNewDocNode(doc, NULL, X("addresses"), NULL);
	xmlNodePtr n;
	size_t i;

	xmlDocSetRootElement(doc, root);
	for (i = 0; i < c->naddresses; i++) {
		n = add_elem(root, fmt, 1, "address", NULL);
		add_prop(n, "name", c->addresses[i].name);
		add_routing(n, fmt, 2, &c->addresses[i], DECL_ANYCAST);
		add_routing(n, fmt, 2, &c->addresses[i], DECL_MULTICAST);
		close_elem(n, fmt, 1);
	}
	close_elem(root, fmt, 0);
	return dump(doc, root);
}

static void
add_transformer(xmlNodePtr parent, const struct render_fmt *fmt, unsigned level,
    const struct decl_divert *d)
{
	xmlNodePtr t, p;
	size_t i;

	if (d->transformer_class_name == NULL)
		return;
	t = add_elem(parent, fmt, level, "transformer", NULL);
	add_elem(t, fmt, level + 1, "class-name", d->transformer_class_name);
	for (i = 0; i < d->ntransformer_properties; i++) {
		p = add_elem(t, fmt, level + 1, "property", NULL);
		add_prop(p, "key", d->transformer_properties[i].key);
		add_prop(p, "value", d->transformer_properties[i].value);
	}
	close_elem(t, fmt, level);
}

static void
add_divert(xmlNodePtr root, const struct render_fmt *fmt,
    const struct decl_divert *d)
{
	xmlNodePtr n = add_elem(root, fmt, 1, "divert", NULL);

	add_prop(n, "name", d->name);
	add_elem(n, fmt, 2, "address", d->address);
	add_elem(n, fmt, 2, "forwarding-address", d->forwarding_address);
	add_elem(n, fmt, 2, "routing-name",
	    d->routing_name != NULL ? d->routing_name : d->name);
	add_elem(n, fmt, 2, "exclusive", bool_str(d->exclusive));
	add_filter(n, fmt, 2, d->filter);
	add_transformer(n, fmt, 2, d);
	add_elem(n, fmt, 2, "routing-type",
	    decl_divert_routing_name(d->routing_type));
	close_elem(n, fmt, 1);
}

char *
render_diverts_xml(const struct decl_cluster *c, const struct render_fmt *fmt)
{
	xmlDocPtr doc = xmlNewDoc(X("1.0"));
	xmlNodePtr root = xmlNewDocNode(doc, NULL, X("diverts"), NULL);
	size_t i;

	xmlDocSetRootElement(doc, root);
	for (i = 0; i < c->ndiverts; i++)
		add_divert(root, fmt, &c->diverts[i]);
	close_elem(root, fmt, 0);
	return dump(doc, root);
}

static void
add_i64_elem(xmlNodePtr parent, const struct render_fmt *fmt, unsigned level,
    const char *name, int64_t v)
{
	char num[32];

	if (v == DECL_UNSET)
		return;
	snprintf(num, sizeof(num), "%" PRId64, v);
	add_elem(parent, fmt, level, name, num);
}

static void
add_tri_elem(xmlNodePtr parent, const struct render_fmt *fmt, unsigned level,
    const char *name, enum decl_tri v)
{
	if (v != DECL_TRI_UNSET)
		add_elem(parent, fmt, level, name,
		    bool_str(v == DECL_TRI_TRUE));
}

static void
add_str_elem(xmlNodePtr parent, const struct render_fmt *fmt, unsigned level,
    const char *name, const char *v)
{
	if (v != NULL)
		add_elem(parent, fmt, level, name, v);
}

/* One <address-setting>: its keys in the declaration's order of the
 * field table (the xsd's all group takes any). */
static void
add_address_setting(xmlNodePtr root, const struct render_fmt *fmt,
    const struct decl_address_setting *as)
{
	xmlNodePtr n = add_elem(root, fmt, 1, "address-setting", NULL);

	add_prop(n, "match", as->match);
	add_str_elem(n, fmt, 2, "dead-letter-address", as->dead_letter_address);
	add_str_elem(n, fmt, 2, "expiry-address", as->expiry_address);
	add_i64_elem(n, fmt, 2, "max-delivery-attempts",
	    as->max_delivery_attempts);
	add_i64_elem(n, fmt, 2, "redelivery-delay", as->redelivery_delay);
	add_i64_elem(n, fmt, 2, "max-size-bytes", as->max_size_bytes);
	add_str_elem(n, fmt, 2, "address-full-policy",
	    decl_full_policy_name(as->address_full_policy));
	add_tri_elem(n, fmt, 2, "auto-create-queues", as->auto_create_queues);
	add_tri_elem(n, fmt, 2, "auto-create-addresses",
	    as->auto_create_addresses);
	add_tri_elem(n, fmt, 2, "auto-delete-queues", as->auto_delete_queues);
	add_tri_elem(n, fmt, 2, "auto-delete-addresses",
	    as->auto_delete_addresses);
	add_str_elem(n, fmt, 2, "config-delete-queues",
	    decl_config_delete_name(as->config_delete_queues));
	add_str_elem(n, fmt, 2, "config-delete-addresses",
	    decl_config_delete_name(as->config_delete_addresses));
	add_str_elem(n, fmt, 2, "config-delete-diverts",
	    decl_config_delete_name(as->config_delete_diverts));
	close_elem(n, fmt, 1);
}

char *
render_address_settings_xml(const struct decl_cluster *c,
    const struct render_fmt *fmt)
{
	xmlDocPtr doc = xmlNewDoc(X("1.0"));
	xmlNodePtr root = xmlNewDocNode(doc, NULL, X("address-settings"), NULL);
	size_t i;

	xmlDocSetRootElement(doc, root);
	for (i = 0; i < c->naddress_settings; i++)
		add_address_setting(root, fmt, &c->address_settings[i]);
	close_elem(root, fmt, 0);
	return dump(doc, root);
}

/* One <security-setting>: a <permission> for each permission some role
 * holds, in Artemis's order; one no role holds is left out. */
static void
add_security_setting(xmlNodePtr root, const struct render_fmt *fmt,
    const struct decl_security_setting *ss)
{
	xmlNodePtr n = add_elem(root, fmt, 1, "security-setting", NULL), p;
	struct sbuf roles;
	size_t k, i;

	add_prop(n, "match", ss->match);
	for (k = 0; k < DECL_PERM_COUNT; k++) {
		if (ss->perm[k].n == 0)
			continue;
		sbuf_init(&roles, SBUF_UNBOUNDED);
		for (i = 0; i < ss->perm[k].n; i++)
			sbuf_addf(&roles, "%s%s", i > 0 ? "," : "",
			    ss->perm[k].v[i]);
		p = add_elem(n, fmt, 2, "permission", NULL);
		add_prop(p, "type",
		    decl_permission_artemis_name((enum decl_permission)k));
		add_prop(p, "roles", sbuf_str(&roles));
		sbuf_release(&roles);
	}
	close_elem(n, fmt, 1);
}

char *
render_security_settings_xml(const struct decl_cluster *c,
    const struct render_fmt *fmt)
{
	xmlDocPtr doc = xmlNewDoc(X("1.0"));
	xmlNodePtr root =
	    xmlNewDocNode(doc, NULL, X("security-settings"), NULL);
	size_t i;

	xmlDocSetRootElement(doc, root);
	for (i = 0; i < c->nsecurity_settings; i++)
		add_security_setting(root, fmt, &c->security_settings[i]);
	close_elem(root, fmt, 0);
	return dump(doc, root);
}
