/* declarations/render/render.c: splice the owned elements into a base
 * broker.xml.
 */
#include "render-int.h"

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../../lib/xalloc.h"

#define PARSE_OPTS                                                             \
	(XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING |           \
	    XML_PARSE_BIG_LINES)

/* The elements of <core> the declaration owns: <addresses> and
 * <diverts> always, <address-settings> and <security-settings> when it
 * declares any (otherwise the base's stay as they are, byte for byte). */
enum {
	OWN_ADDRESSES,
	OWN_DIVERTS,
	OWN_ADDRESS_SETTINGS,
	OWN_SECURITY_SETTINGS,
	OWN_N
};
static const char *const own_names[OWN_N] = {"addresses", "diverts",
    "address-settings", "security-settings"};

static bool
owns(const struct decl_cluster *c, int k)
{
	if (k == OWN_ADDRESS_SETTINGS)
		return c->naddress_settings > 0;
	if (k == OWN_SECURITY_SETTINGS)
		return c->nsecurity_settings > 0;
	return true;
}

/* Where the base's <core> and the owned elements are. */
struct base_loc {
	struct xml_span core;
	size_t core_idx;
	bool has[OWN_N];
	struct xml_span own[OWN_N];
	bool has_child; /* core has an element child; first_child is it */
	struct xml_span first_child;
	/* the line of a <security-setting-plugin> in the base's
	 * <security-settings>, 0 when none: owning the element would drop
	 * it */
	long security_plugin_line;
};

static int base_err(struct errlist *diags, const struct render_base *b,
    long line, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int
base_err(struct errlist *diags, const struct render_base *b, long line,
    const char *fmt, ...)
{
	struct pos pos = {b->path, line > 0 ? (unsigned)line : 0, 0};
	va_list ap;

	va_start(ap, fmt);
	(void)errlist_vadd(diags, DIAG_ERROR, &pos, fmt, ap);
	va_end(ap);
	return -1;
}

static bool
is_elem(const xmlNode *n, const char *name)
{
	return n->type == XML_ELEMENT_NODE &&
	       strcmp((const char *)n->name, name) == 0;
}

/* The only <core> element child of root, and its index among root's
 * element children. NULL (diagnosed) when there is none or several. */
static xmlNodePtr
find_core(xmlNodePtr root, const struct render_base *b, size_t *idx,
    struct errlist *diags)
{
	xmlNodePtr n, core = NULL;
	size_t i = 0, count = 0;

	for (n = root->children; n != NULL; n = n->next) {
		if (n->type != XML_ELEMENT_NODE)
			continue;
		if (is_elem(n, "core")) {
			if (count++ == 0) {
				core = n;
				*idx = i;
			}
		}
		i++;
	}
	if (count != 1) {
		base_err(diags, b, xmlGetLineNo(root),
		    "base has %s <core> element under <%s>",
		    count == 0 ? "no" : "more than one",
		    (const char *)root->name);
		return NULL;
	}
	if (core->ns == NULL || core->ns->prefix != NULL ||
	    strcmp((const char *)core->ns->href, RENDER_CORE_NS) != 0) {
		base_err(diags, b, xmlGetLineNo(core),
		    "base's <core> must be in the default namespace %s "
		    "(Artemis does not find a prefixed one and fails to start)",
		    RENDER_CORE_NS);
		return NULL;
	}
	return core;
}

static bool
name_at(const char *text, size_t len, const struct xml_span *s,
    const char *name)
{
	size_t n = strlen(name);

	return s->start + 1 + n < len &&
	       memcmp(text + s->start + 1, name, n) == 0 &&
	       strchr(" \t\r\n/>", text[s->start + 1 + n]) != NULL;
}

/* Find the owned elements among core's children (at most one of each). */
static int
find_owned(xmlNodePtr core, const struct render_base *b, size_t *idx,
    struct base_loc *loc, struct errlist *diags)
{
	xmlNodePtr n;
	size_t i = 0;
	int k, rc = 0;

	for (n = core->children; n != NULL; n = n->next) {
		if (n->type != XML_ELEMENT_NODE)
			continue;
		loc->has_child = true;
		for (k = 0; k < OWN_N; k++) {
			if (!is_elem(n, own_names[k]))
				continue;
			if (loc->has[k])
				rc = base_err(diags, b, xmlGetLineNo(n),
				    "base's <core> has a second <%s>",
				    own_names[k]);
			loc->has[k] = true;
			idx[k] = i;
		}
		if (is_elem(n, own_names[OWN_SECURITY_SETTINGS]))
			for (xmlNodePtr p = n->children; p != NULL; p = p->next)
				if (is_elem(p, "security-setting-plugin") &&
				    loc->security_plugin_line == 0)
					loc->security_plugin_line =
					    xmlGetLineNo(p);
		i++;
	}
	return rc;
}

static int
locate_spans(const struct render_base *b, const size_t *idx,
    struct base_loc *loc, struct errlist *diags)
{
	size_t path[2] = {loc->core_idx, 0};
	int k;

	if (render_xml_locate(b->data, b->len, path, 1, &loc->core) != 0 ||
	    !name_at(b->data, b->len, &loc->core, "core"))
		return base_err(diags, b, 0,
		    "could not locate <%s> in the base", "core");
	if (loc->has_child &&
	    render_xml_locate(b->data, b->len, path, 2, &loc->first_child) != 0)
		return base_err(diags, b, 0,
		    "could not locate <%s> in the base", "core");
	for (k = 0; k < OWN_N; k++) {
		if (!loc->has[k])
			continue;
		path[1] = idx[k];
		if (render_xml_locate(b->data, b->len, path, 2, &loc->own[k]) !=
		        0 ||
		    !name_at(b->data, b->len, &loc->own[k], own_names[k]))
			return base_err(diags, b, 0,
			    "could not locate <%s> in the base", own_names[k]);
	}
	return 0;
}

/* Parse the base and find where to splice. */
static int
base_locate(const struct render_base *b, struct base_loc *loc,
    struct errlist *diags)
{
	const unsigned char *u = (const unsigned char *)b->data;
	xmlDocPtr doc;
	xmlNodePtr root, core;
	size_t idx[OWN_N] = {0};
	int rc = -1;

	memset(loc, 0, sizeof(*loc));
	if (b->len > RENDER_BASE_MAX)
		return base_err(diags, b, 0, "base is larger than %s bytes",
		    "8 MiB");
	if (memchr(b->data, '\0', b->len) != NULL ||
	    (b->len >= 2 && ((u[0] == 0xFE && u[1] == 0xFF) ||
	                        (u[0] == 0xFF && u[1] == 0xFE))))
		return base_err(diags, b, 0, "base is not %s", "UTF-8");
	doc = xmlReadMemory(b->data, (int)b->len, b->path, NULL, PARSE_OPTS);
	if (doc == NULL) {
		const xmlError *e = xmlGetLastError();
		char *msg;

		msg = render_trim_msg(e != NULL ? e->message : NULL);
		base_err(diags, b, e != NULL ? e->line : 0,
		    "base is not well-formed XML: %s", msg);
		free(msg);
		return -1;
	}
	root = xmlDocGetRootElement(doc);
	if (doc->intSubset != NULL && doc->intSubset->children != NULL) {
		/* Entities would change what the broker reads and what the
		 * schema sees; a bare DOCTYPE is harmless (Artemis takes it).
		 */
		base_err(diags, b, 0,
		    "base's DOCTYPE declares %s, which the renderer does not "
		    "support",
		    "entities or elements");
	} else if (doc->encoding != NULL &&
	           strcasecmp((const char *)doc->encoding, "UTF-8") != 0 &&
	           strcasecmp((const char *)doc->encoding, "UTF8") != 0) {
		base_err(diags, b, 1,
		    "base is encoded in %s; only UTF-8 is "
		    "supported",
		    (const char *)doc->encoding);
	} else {
		core = find_core(root, b, &loc->core_idx, diags);
		if (core != NULL && find_owned(core, b, idx, loc, diags) == 0)
			rc = locate_spans(b, idx, loc, diags);
	}
	xmlFreeDoc(doc);
	return rc;
}

/* The whitespace before offset off on its line, or NULL when other text
 * precedes it there. Owned by the caller. */
static char *
indent_at(const char *text, size_t off)
{
	size_t start, n = render_line_indent(text, off, &start);

	return n == (size_t)-1 ? NULL : xstrndup(text + start, n);
}

/* The indentation step of the base: how much deeper core's first child
 * sits than <core> itself, or Artemis's three spaces. */
static char *
indent_unit(const struct render_base *b, const struct base_loc *loc)
{
	char *core = indent_at(b->data, loc->core.start);
	char *child = NULL, *unit = NULL;

	if (loc->has_child)
		child = indent_at(b->data, loc->first_child.start);
	if (core != NULL && child != NULL) {
		size_t n = strlen(core);

		if (strlen(child) > n && strncmp(child, core, n) == 0)
			unit = xstrdup(child + n);
	}
	free(core);
	free(child);
	return unit != NULL ? unit : xstrdup(RENDER_INDENT_DEF);
}

static char *
build(const struct decl_cluster *c, int k, const struct render_fmt *fmt)
{
	switch (k) {
	case OWN_ADDRESSES:
		return render_addresses_xml(c, fmt);
	case OWN_ADDRESS_SETTINGS:
		return render_address_settings_xml(c, fmt);
	case OWN_SECURITY_SETTINGS:
		return render_security_settings_xml(c, fmt);
	default:
		return render_diverts_xml(c, fmt);
	}
}

/* Replace an owned element in place; it keeps the indentation of its
 * line (or core's plus one step when it shares its line with others). */
static void
splice_replace(struct splice *s, const struct decl_cluster *c, int k,
    const struct render_base *b, const struct base_loc *loc, const char *unit)
{
	char *ind = indent_at(b->data, loc->own[k].start);
	char *core_ind = NULL;
	struct render_fmt fmt = {ind, unit};

	if (ind == NULL) {
		core_ind = indent_at(b->data, loc->core.start);
		ind = xasprintf("%s%s", core_ind != NULL ? core_ind : "", unit);
		fmt.base = ind;
	}
	s->off = loc->own[k].start;
	s->del = loc->own[k].end - loc->own[k].start;
	s->ins = build(c, k, &fmt);
	free(ind);
	free(core_ind);
}

/* Insert the missing owned elements just before </core>, indented like
 * core's children (so that rendering the result again changes nothing).
 * When </core> starts its line, the splice takes over that line's
 * indentation and writes it back after the elements. */
static void
splice_insert(struct splice *s, const struct decl_cluster *c,
    const struct render_base *b, const struct base_loc *loc, const char *unit)
{
	size_t start,
	    wn = render_line_indent(b->data, loc->core.etag_start, &start);
	char *core_ind = indent_at(b->data, loc->core.start);
	char *w = wn == (size_t)-1 ? NULL : xstrndup(b->data + start, wn);
	struct render_fmt fmt;
	char *ind, *el, *acc = xstrdup(""), *next;

	ind = xasprintf("%s%s",
	    core_ind != NULL ? core_ind
	    : w != NULL      ? w
	                     : "",
	    unit);
	fmt.base = ind;
	fmt.unit = unit;
	for (int k = 0; k < OWN_N; k++) {
		if (loc->has[k] || !owns(c, k))
			continue;
		el = build(c, k, &fmt);
		if (w != NULL)
			next = xasprintf("%s%s%s\n", acc, ind, el);
		else
			next = xasprintf("%s%s", acc, el);
		free(acc);
		acc = next;
		free(el);
	}
	if (w != NULL) {
		s->ins = xasprintf("%s%s", acc, w);
		free(acc);
		s->off = start;
		s->del = wn;
	} else {
		s->ins = acc;
		s->off = loc->core.etag_start;
		s->del = 0;
	}
	free(ind);
	free(w);
	free(core_ind);
}

/* <core .../> becomes <core ...>, the owned elements, </core>. */
static void
splice_open_core(struct splice *s, const struct decl_cluster *c,
    const struct render_base *b, const struct base_loc *loc, const char *unit)
{
	char *w = indent_at(b->data, loc->core.start);
	char *ind = xasprintf("%s%s", w != NULL ? w : "", unit);
	struct render_fmt fmt = {ind, unit};
	size_t slash = loc->core.stag_end - 2;
	struct sbuf out;
	char *el;

	/* Whitespace between the last attribute and "/>" stays. */
	sbuf_init(&out, SBUF_UNBOUNDED);
	sbuf_adds(&out, ">");
	for (int k = 0; k < OWN_N; k++) {
		if (!owns(c, k))
			continue;
		el = build(c, k, &fmt);
		sbuf_addf(&out, "\n%s%s", ind, el);
		free(el);
	}
	sbuf_addf(&out, "\n%s</core>", w != NULL ? w : "");
	s->off = slash;
	s->del = 2;
	s->ins = sbuf_take(&out);
	free(ind);
	free(w);
}

/* True when the base ends its lines with CRLF (judged by its first). */
static bool
uses_crlf(const struct render_base *b)
{
	const char *nl = memchr(b->data, '\n', b->len);

	return nl != NULL && nl > b->data && nl[-1] == '\r';
}

/* s with every LF made CRLF; frees s. The only line breaks in a splice are
 * ours, or raw ones in element text, which XML parsers read back as LF
 * either way (XML 1.0 section 2.11). */
static char *
to_crlf(char *s)
{
	size_t n = 0;
	const char *p;
	char *out, *o;

	for (p = s; *p != '\0'; p++)
		n += *p == '\n';
	out = xmalloc(strlen(s) + n + 1);
	for (p = s, o = out; *p != '\0'; p++) {
		if (*p == '\n')
			*o++ = '\r';
		*o++ = *p;
	}
	*o = '\0';
	free(s);
	return out;
}

/* The splices for c into the base, in offset order; returns how many. */
static size_t
plan_splices(struct splice *sp, const struct decl_cluster *c,
    const struct render_base *b, const struct base_loc *loc)
{
	char *unit = indent_unit(b, loc);
	size_t n = 0;

	if (loc->core.empty) {
		splice_open_core(&sp[n++], c, b, loc, unit);
	} else {
		bool missing = false;

		for (int k = 0; k < OWN_N; k++) {
			if (!owns(c, k))
				continue;
			if (loc->has[k])
				splice_replace(&sp[n++], c, k, b, loc, unit);
			else
				missing = true;
		}
		if (missing)
			splice_insert(&sp[n++], c, b, loc, unit);
		/* in offset order (at most OWN_N: an insert only when an
		 * owned element is missing) */
		for (size_t i = 1; i < n; i++)
			for (size_t j = i; j > 0 && sp[j - 1].off > sp[j].off;
			     j--) {
				struct splice t = sp[j];

				sp[j] = sp[j - 1];
				sp[j - 1] = t;
			}
	}
	if (uses_crlf(b))
		for (size_t i = 0; i < n; i++)
			sp[i].ins = to_crlf(sp[i].ins);
	free(unit);
	return n;
}

static char *
apply_splices(const struct render_base *b, const struct splice *sp, size_t n,
    size_t *len_out)
{
	struct sbuf out;
	size_t i, at = 0;

	sbuf_init(&out, RENDER_OUT_MAX);
	for (i = 0; i < n; i++) {
		sbuf_add(&out, b->data + at, sp[i].off - at);
		sbuf_adds(&out, sp[i].ins);
		at = sp[i].off + sp[i].del;
	}
	sbuf_add(&out, b->data + at, b->len - at);
	if (out.failed) {
		sbuf_release(&out);
		return NULL;
	}
	*len_out = out.len;
	return sbuf_take(&out);
}

int
render_broker_xml(char **out, size_t *out_len, const struct decl_cluster *c,
    const struct render_base *base, const struct render_schema *schema,
    struct errlist *diags)
{
	struct base_loc loc;
	struct splice sp[OWN_N] = {{0}};
	struct render_map map = {0};
	size_t n, i, len = 0;
	char *text;
	int rc = -1;

	if (render_check_strings(c, diags) != 0)
		return -1;
	if (base_locate(base, &loc, diags) != 0)
		return -1;
	if (owns(c, OWN_SECURITY_SETTINGS) && loc.security_plugin_line > 0)
		return base_err(diags, base, loc.security_plugin_line,
		    "base's <security-settings> holds a "
		    "<security-setting-plugin>, which the declared "
		    "security-settings would replace with the rest of the "
		    "element; declare them or keep the plugin, not both");
	n = plan_splices(sp, c, base, &loc);
	text = apply_splices(base, sp, n, &len);
	if (text == NULL) {
		base_err(diags, base, 0, "rendered file is larger than %s",
		    "64 MiB");
		goto done;
	}
	map.c = c;
	map.base_path = base->path;
	map.base = base->data;
	map.splices = sp;
	map.nsplices = n;
	if (render_validate(schema, text, len, &map, diags) != 0) {
		free(text);
		goto done;
	}
	*out = text;
	*out_len = len;
	rc = 0;
done:
	for (i = 0; i < n; i++)
		free(sp[i].ins);
	return rc;
}
