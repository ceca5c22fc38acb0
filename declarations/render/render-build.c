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
