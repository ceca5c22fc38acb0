/* declarations/render/render-schema.c: validate a rendered broker.xml as
 * Artemis does at startup, and say which declared object a violation belongs
 * to.
 *
 * Artemis (FileDeploymentManager) validates only the <core> element, with
 * artemis-configuration.xsd; the root schema artemis-server.xsd imports a
 * JMS schema that is not part of artemis-server.jar, and its root element
 * accepts any foreign element anyway. So only artemis-configuration.xsd
 * (and the xml.xsd it imports) is needed, and only <core> is validated.
 */
#include "render-int.h"

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlschemas.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/afile.h"
#include "../../lib/xalloc.h"

struct render_schema {
	xmlSchemaPtr schema;
};

char *
render_trim_msg(const char *m)
{
	size_t n;

	if (m == NULL)
		return xstrdup("?");
	n = strlen(m);
	while (n > 0 && (m[n - 1] == '\n' || m[n - 1] == ' '))
		n--;
	return xstrndup(m, n);
}

void
render_on_xml_error(void *ctx, xmlErrorPtr e)
{
	const struct render_xml_sink *sink = ctx;
	struct pos pos = {e->file, e->line > 0 ? (unsigned)e->line : 0, 0};
	char *m;

	if (e->level < XML_ERR_ERROR)
		return;
	m = render_trim_msg(e->message);
	err_setf(sink->err, &pos, "%s: %s", sink->what, m);
	free(m);
}

int
render_schema_load(struct render_schema **out, const char *dir, struct err *err)
{
	char *path = xasprintf("%s/%s", dir, RENDER_SCHEMA_FILE);
	struct render_xml_sink sink = {err, "cannot load the Artemis schema"};
	xmlSchemaParserCtxtPtr pctx = NULL;
	xmlSchemaPtr schema = NULL;
	int fd = -1, rc = -1;

	/* libxml2 reads the file: it must pass the regular-file rule first
	 * (a FIFO would block it) */
	if (access(path, R_OK) != 0) {
		err_setf(err, NULL, "no readable %s in '%s'",
		    RENDER_SCHEMA_FILE, dir);
		goto done;
	}
	if (afile_open(&fd, NULL, path, 0, err) < 0)
		goto done;
	(void)close(fd);
	pctx = xmlSchemaNewParserCtxt(path);
	xmlSchemaSetParserStructuredErrors(pctx, render_on_xml_error, &sink);
	schema = xmlSchemaParse(pctx);
	if (schema == NULL) {
		err_setf(err, NULL, "cannot load the Artemis schema '%s'",
		    path);
		goto done;
	}
	*out = xcalloc(1, sizeof(**out));
	(*out)->schema = schema;
	rc = 0;
done:
	xmlSchemaFreeParserCtxt(pctx);
	free(path);
	return rc;
}

void
render_schema_free(struct render_schema *s)
{
	if (s == NULL)
		return;
	xmlSchemaFree(s->schema);
	free(s);
}

struct vctx {
	const struct render_map *map;
	struct errlist *diags;
	int rc;
};

/* Index of n among its parent's element children named like n. */
static size_t
elem_index(const xmlNode *n)
{
	const xmlNode *p;
	size_t i = 0;

	for (p = n->prev; p != NULL; p = p->prev)
		if (p->type == XML_ELEMENT_NODE &&
		    strcmp((const char *)p->name, (const char *)n->name) == 0)
			i++;
	return i;
}

/* The queue of a with routing `routing` at index i in its <anycast> or
 * <multicast>, as render-build.c wrote them. */
static const struct decl_queue *
queue_at(const struct decl_address *a, unsigned routing, size_t i)
{
	size_t k;

	for (k = 0; k < a->nqueues; k++)
		if (a->queues[k].routing == routing && i-- == 0)
			return &a->queues[k];
	return NULL;
}

/* The owned elements along the path from core down to n. */
struct owned_path {
	const xmlNode *top;   /* <addresses> or <diverts>, or NULL */
	const xmlNode *item;  /* <address> or <divert> */
	const xmlNode *route; /* <anycast> / <multicast> */
	const xmlNode *queue;
};

static void
owned_path(const struct decl_cluster *c, const xmlNode *n,
    struct owned_path *op)
{
	const xmlNode *chain[64];
	size_t depth = 0, core = 0, i;

	memset(op, 0, sizeof(*op));
	for (; n != NULL && n->type == XML_ELEMENT_NODE && depth < 64;
	     n = n->parent)
		chain[depth++] = n;
	for (i = 0; i < depth; i++)
		if (strcmp((const char *)chain[i]->name, "core") == 0)
			core = i;
	if (core < 1)
		return;
	op->top = chain[core - 1];
	if (strcmp((const char *)op->top->name, "addresses") != 0 &&
	    strcmp((const char *)op->top->name, "diverts") != 0 &&
	    !(strcmp((const char *)op->top->name, "address-settings") == 0 &&
	        c->naddress_settings > 0) &&
	    !(strcmp((const char *)op->top->name, "security-settings") == 0 &&
	        c->nsecurity_settings > 0)) {
		op->top = NULL;
		return;
	}
	op->item = core >= 2 ? chain[core - 2] : NULL;
	op->route = core >= 3 ? chain[core - 3] : NULL;
	op->queue = core >= 4 ? chain[core - 4] : NULL;
}

static size_t
count_nl(const char *s, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (s[i] == '\n')
			k++;
	return k;
}

/* The base line that rendered line `line` came from. */
static unsigned
base_line(const struct render_map *m, long line)
{
	long delta = 0;
	size_t i;

	if (line <= 0)
		return 0;
	for (i = 0; i < m->nsplices; i++) {
		long start, nl_ins;

		start = 1 + (long)count_nl(m->base, m->splices[i].off) + delta;
		nl_ins = (long)count_nl(m->splices[i].ins,
		    strlen(m->splices[i].ins));
		if (line <= start + nl_ins)
			break;
		delta += nl_ins - (long)count_nl(m->base + m->splices[i].off,
		                      m->splices[i].del);
	}
	return (unsigned)(line - delta);
}

/* Name the declared object that the owned element path leads to; returns
 * its position in *pos. Owned by the caller. */
static char *
object_label(const struct render_map *m, const struct owned_path *op,
    struct pos *pos)
{
	const struct decl_cluster *c = m->c;
	const struct decl_address *a;
	const struct decl_queue *q = NULL;
	size_t i;

	*pos = c->pos;
	if (op->item == NULL)
		return xasprintf("<%s>", (const char *)op->top->name);
	i = elem_index(op->item);
	if (strcmp((const char *)op->top->name, "address-settings") == 0) {
		if (i >= c->naddress_settings)
			return xstrdup("<address-settings>");
		*pos = c->address_settings[i].pos;
		return xasprintf("address-settings '%s'",
		    c->address_settings[i].match);
	}
	if (strcmp((const char *)op->top->name, "security-settings") == 0) {
		if (i >= c->nsecurity_settings)
			return xstrdup("<security-settings>");
		*pos = c->security_settings[i].pos;
		return xasprintf("security-settings '%s'",
		    c->security_settings[i].match);
	}
	if (strcmp((const char *)op->top->name, "diverts") == 0) {
		if (i >= c->ndiverts)
			return xstrdup("<diverts>");
		*pos = c->diverts[i].pos;
		return xasprintf("divert '%s'", c->diverts[i].name);
	}
	if (i >= c->naddresses)
		return xstrdup("<addresses>");
	a = &c->addresses[i];
	*pos = a->pos;
	if (op->queue != NULL)
		q = queue_at(a,
		    strcmp((const char *)op->route->name,
		        decl_routing_name(DECL_ANYCAST)) == 0
		        ? DECL_ANYCAST
		        : DECL_MULTICAST,
		    elem_index(op->queue));
	if (q == NULL)
		return xasprintf("address '%s'", a->name);
	*pos = q->pos;
	return xasprintf("queue '%s' of address '%s'", q->name, a->name);
}

static void
on_valid_error(void *ctx, xmlErrorPtr e)
{
	struct vctx *v = ctx;
	const xmlNode *n = e->node;
	struct owned_path op;
	struct pos pos = {v->map->base_path, 0, 0};
	char *msg, *what;

	if (e->level < XML_ERR_ERROR)
		return;
	if (n != NULL && n->type == XML_ATTRIBUTE_NODE)
		n = n->parent;
	owned_path(v->map->c, n, &op);
	msg = render_trim_msg(e->message);
	if (strstr(msg, "'xs:ID'") != NULL) {
		/* libxml2 says the same for a duplicate as for a bad name. */
		what = msg;
		msg = xasprintf("%s (an xsd:ID must be an NCName that no other "
		                "ID-typed name in the file uses, e.g. a "
		                "bridge's or a cluster-connection's)",
		    what);
		free(what);
	}
	if (op.top == NULL) {
		pos.line = base_line(v->map, e->line);
		v->rc = errlist_add(v->diags, DIAG_ERROR, &pos,
		    "broker.xml schema: %s", msg);
	} else {
		what = object_label(v->map, &op, &pos);
		v->rc = errlist_add(v->diags, DIAG_ERROR, &pos,
		    "%s: not valid in broker.xml rendered from '%s': %s", what,
		    v->map->base_path, msg);
		free(what);
	}
	free(msg);
}

static xmlNodePtr
core_of(xmlDocPtr doc)
{
	xmlNodePtr n, root = xmlDocGetRootElement(doc);

	for (n = root != NULL ? root->children : NULL; n != NULL; n = n->next)
		if (n->type == XML_ELEMENT_NODE &&
		    strcmp((const char *)n->name, "core") == 0)
			return n;
	return NULL;
}

int
render_validate(const struct render_schema *schema, const char *text,
    size_t len, const struct render_map *map, struct errlist *diags)
{
	struct vctx v = {map, diags, 0};
	struct pos pos = {map->base_path, 0, 0};
	xmlSchemaValidCtxtPtr vctx;
	xmlDocPtr doc;
	xmlNodePtr core;
	int r;

	doc = xmlReadMemory(text, (int)len, map->base_path, NULL,
	    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING |
	        XML_PARSE_BIG_LINES);
	core = doc != NULL ? core_of(doc) : NULL;
	if (core == NULL) {
		xmlFreeDoc(doc);
		return errlist_add(diags, DIAG_ERROR, &pos,
		    "rendered broker.xml does not parse again (%s)",
		    "a renderer bug");
	}
	if (schema == NULL) {
		xmlFreeDoc(doc);
		return 0;
	}
	vctx = xmlSchemaNewValidCtxt(schema->schema);
	xmlSchemaSetValidStructuredErrors(vctx, on_valid_error, &v);
	r = xmlSchemaValidateOneElement(vctx, core);
	if (r != 0 && v.rc == 0)
		v.rc = errlist_add(diags, DIAG_ERROR, &pos,
		    "broker.xml schema validation failed (libxml2 code %d)", r);
	xmlSchemaFreeValidCtxt(vctx);
	xmlFreeDoc(doc);
	return v.rc;
}
