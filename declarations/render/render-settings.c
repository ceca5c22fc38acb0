/* declarations/render/render-settings.c: the config-delete-* settings a
 * rendered broker.xml carries, for the reload prediction
 * (reconcile/plan/reload.c).
 */
#include "render-int.h"

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <string.h>

static bool
named(const xmlNode *n, const char *name)
{
	return n->type == XML_ELEMENT_NODE &&
	       strcmp((const char *)n->name, name) == 0;
}

static const xmlNode *
child(const xmlNode *parent, const char *name)
{
	const xmlNode *n;

	for (n = parent != NULL ? parent->children : NULL; n != NULL;
	     n = n->next)
		if (named(n, name))
			return n;
	return NULL;
}

/* "FORCE" or "OFF" (Artemis's default, also for anything else: the schema
 * allows only these two). */
static const char *
value(const xmlNode *setting, const char *name)
{
	const xmlNode *e = child(setting, name);
	xmlChar *v;
	bool force;

	if (e == NULL)
		return "OFF";
	v = xmlNodeGetContent(e);
	force = v != NULL && strcmp((const char *)v, "FORCE") == 0;
	xmlFree(v);
	return force ? "FORCE" : "OFF";
}

int
render_config_delete(const char *text, size_t len,
    struct render_config_delete *out)
{
	xmlDocPtr doc = xmlReadMemory(text, (int)len, "broker.xml", NULL,
	    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	const xmlNode *root, *settings, *n, *hash = NULL;
	xmlChar *match;

	if (doc == NULL)
		return -1;
	root = xmlDocGetRootElement(doc);
	settings = child(child(root, "core"), "address-settings");
	for (n = settings != NULL ? settings->children : NULL;
	     n != NULL && hash == NULL; n = n->next) {
		if (!named(n, "address-setting"))
			continue;
		match = xmlGetProp(n, (const xmlChar *)"match");
		if (match != NULL && strcmp((const char *)match, "#") == 0)
			hash = n;
		xmlFree(match);
	}
	out->addresses = value(hash, "config-delete-addresses");
	out->queues = value(hash, "config-delete-queues");
	out->diverts = value(hash, "config-delete-diverts");
	xmlFreeDoc(doc);
	return 0;
}
