/* declarations/render/import-xml.c: one node's broker.xml read into the
 * declaration model, for `import --from-broker-xml` (docs/import.md; the
 * decisions are in docs/import-broker-xml-notes.md).
 *
 * The file is read as Artemis reads it (FileConfigurationParser), and
 * whatever the model cannot carry exactly is refused at its line rather
 * than dropped, since rendering the import would otherwise change the
 * broker. XIncludes are expanded by libxml2, but only after every href was
 * checked to name a regular file inside the top file's folder, and the
 * files it reads are the ones checked (an entity loader that serves them
 * from memory).
 */
#include "render-int.h"

#include <errno.h>
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/tree.h>
#include <libxml/uri.h>
#include <libxml/xinclude.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../../lib/afile.h"
#include "../../lib/strv.h"
#include "../../lib/xalloc.h"

#define ROOT_NS      "urn:activemq"
#define XI_NS        "http://www.w3.org/2001/XInclude"
#define XI_NS_2003   "http://www.w3.org/2003/XInclude"
#define INCLUDES_MAX 64 /* xi:include instances, nested ones each time */
#define DEPTH_MAX    8  /* includes within includes */
#define PROPS_LISTED 10 /* ${...} named in the note */
#define TOKEN_MAX    80 /* bytes of a ${...} quoted in a message */
#define LVQ_KEY      "_AMQ_LVQ_NAME" /* Message.HDR_LAST_VALUE_NAME */
#define READ_OPTS                                                              \
	(XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING |           \
	    XML_PARSE_BIG_LINES)
#define XI_OPTS (READ_OPTS | XML_PARSE_NOXINCNODE)
#define X(s)    ((const xmlChar *)(s))

/* A file an xi:include was checked to name, held for the loader. */
struct vfile {
	char *real; /* realpath */
	char *data; /* NUL-terminated */
	size_t len;
};

struct rd {
	const char *top;
	char *topdir; /* realpath of the top file's folder */
	struct errlist *diags;
	size_t nerrors0; /* diags->nerrors on entry */
	struct vfile *files;
	size_t nfiles;
	size_t nincludes, total; /* instances, bytes with repetition */
	bool expanded;
	const char *vetting; /* the file whose includes are checked */
	xmlDocPtr doc;
	struct strv hrefs; /* as written, for the note */
	struct strv props; /* ${...} outside the imported elements */
	struct strv notes;
	struct decl_cluster *c;
};

static void rd_err(struct rd *r, const char *path, long line, unsigned col,
    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void
rd_err(struct rd *r, const char *path, long line, unsigned col, const char *fmt,
    ...)
{
	struct pos pos = {path, line > 0 ? (unsigned)line : 0, col};
	va_list ap;

	va_start(ap, fmt);
	(void)errlist_vadd(r->diags, DIAG_ERROR, &pos, fmt, ap);
	va_end(ap);
}

static bool
failed(const struct rd *r)
{
	return r->diags->nerrors > r->nerrors0;
}

/* The file a node of the document came from, owned: the top file unless
 * XIncludes brought the node (then libxml2's xml:base says which). */
static char *
node_file(const struct rd *r, const xmlNode *n)
{
	xmlChar *b;
	char *s;

	if (r->vetting != NULL)
		return xstrdup(r->vetting);
	if (!r->expanded)
		return xstrdup(r->top);
	b = xmlNodeGetBase(r->doc, n);
	if (b == NULL)
		return xstrdup(r->top);
	s = xmlURIUnescapeString((const char *)b, 0, NULL);
	xmlFree(b);
	if (s == NULL)
		return xstrdup(r->top);
	b = (xmlChar *)xstrdup(s);
	xmlFree(s);
	return (char *)b;
}

static void at(struct rd *r, const xmlNode *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A refusal at node n's line. */
static void
at(struct rd *r, const xmlNode *n, const char *fmt, ...)
{
	char *path = node_file(r, n), *msg;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		abort();
	va_end(ap);
	rd_err(r, path, xmlGetLineNo(n), 0, "%s", msg);
	free(msg);
	free(path);
}

/* Where node n's positions point: an owned copy kept in the cluster. */
static const char *
keep_path(struct rd *r, const xmlNode *n)
{
	char *p = node_file(r, n);
	size_t i;

	for (i = 0; i < r->c->npaths; i++)
		if (strcmp(r->c->paths[i], p) == 0) {
			free(p);
			return r->c->paths[i];
		}
	r->c->paths =
	    xreallocarray(r->c->paths, r->c->npaths + 1, sizeof(char *));
	r->c->paths[r->c->npaths++] = p;
	return p;
}

static struct pos
node_pos(struct rd *r, const xmlNode *n)
{
	long line = xmlGetLineNo(n);
	struct pos p = {keep_path(r, n), line > 0 ? (unsigned)line : 0, 0};

	return p;
}

static bool
ns_is(const xmlNode *n, const char *ns)
{
	return n->ns != NULL && strcmp((const char *)n->ns->href, ns) == 0;
}

static bool
is_el(const xmlNode *n, const char *name)
{
	return n->type == XML_ELEMENT_NODE &&
	       strcmp((const char *)n->name, name) == 0 &&
	       ns_is(n, RENDER_CORE_NS);
}

/* The 1-based line of offset off in text. */
static long
line_of(const char *text, size_t off)
{
	long line = 1;
	size_t i;

	for (i = 0; i < off; i++)
		line += text[i] == '\n';
	return line;
}

/* A parser error, the first one copied into ctx (an xmlError). */
static void
on_parse_error(void *ctx, xmlErrorPtr e)
{
	xmlError *first = ctx;

	if (first->code == 0 && e->level >= XML_ERR_ERROR)
		(void)xmlCopyError(e, first);
}

/* Parse one file's bytes. NULL (diagnosed at path) when it is not
 * well-formed UTF-8 XML or its DOCTYPE declares or loads anything. */
static xmlDocPtr
parse_bytes(struct rd *r, const char *path, const char *data, size_t len)
{
	const unsigned char *u = (const unsigned char *)data;
	xmlParserCtxtPtr ctxt;
	xmlDocPtr doc;
	const char *dt;
	char *m;
	xmlError first = {0};
	xmlStructuredErrorFunc prev_fn = xmlStructuredError;
	void *prev_ctx = xmlStructuredErrorContext;

	if (memchr(data, '\0', len) != NULL ||
	    (len >= 2 && ((u[0] == 0xFE && u[1] == 0xFF) ||
	                     (u[0] == 0xFF && u[1] == 0xFE)))) {
		rd_err(r, path, 0, 0, "not %s", "UTF-8");
		return NULL;
	}
	ctxt = xmlNewParserCtxt();
	if (ctxt == NULL)
		abort();
	/* the first error says where it went wrong; lastError, the last */
	xmlSetStructuredErrorFunc(&first, on_parse_error);
	doc = xmlCtxtReadMemory(ctxt, data, (int)len, path, NULL, READ_OPTS);
	xmlSetStructuredErrorFunc(prev_ctx, prev_fn);
	if (doc == NULL) {
		const xmlError *e = first.code != 0 ? &first : &ctxt->lastError;

		m = render_trim_msg(e->message);
		rd_err(r, path, e->line, e->int2 > 0 ? (unsigned)e->int2 : 0,
		    "not well-formed XML: %s", m);
		free(m);
		xmlResetError(&first);
		xmlFreeParserCtxt(ctxt);
		return NULL;
	}
	xmlResetError(&first);
	xmlFreeParserCtxt(ctxt);
	dt = strstr(data, "<!DOCTYPE");
	if (doc->intSubset != NULL && (doc->intSubset->children != NULL ||
	                                  doc->intSubset->ExternalID != NULL ||
	                                  doc->intSubset->SystemID != NULL)) {
		/* entities would make the file say what the broker does
		 * not read (or, expanded, a billion laughs); an external
		 * DTD would be a file or URL read behind our back */
		rd_err(r, path,
		    dt != NULL ? line_of(data, (size_t)(dt - data)) : 0, 0,
		    "the DOCTYPE %s, which import does not support",
		    doc->intSubset->children != NULL
		        ? "declares entities or elements"
		        : "names an external DTD");
	} else if (doc->encoding != NULL &&
	           strcasecmp((const char *)doc->encoding, "UTF-8") != 0 &&
	           strcasecmp((const char *)doc->encoding, "UTF8") != 0) {
		rd_err(r, path, 1, 0, "encoded in %s; only UTF-8 is supported",
		    (const char *)doc->encoding);
	} else {
		return doc;
	}
	xmlFreeDoc(doc);
	return NULL;
}

/* ---- XInclude: every href checked before libxml2 reads it ---- */

static const struct vfile *
vfile_find(const struct rd *r, const char *real)
{
	size_t i;

	for (i = 0; i < r->nfiles; i++)
		if (strcmp(r->files[i].real, real) == 0)
			return &r->files[i];
	return NULL;
}

static char *
dir_of(const char *path)
{
	const char *s = strrchr(path, '/');

	if (s == NULL)
		return xstrdup(".");
	if (s == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(s - path));
}

/* href must be a plain relative or absolute file path: no URI scheme,
 * escapes, fragment or query, which libxml2 and Java would each read in
 * their own way. */
static bool
href_plain(const char *h)
{
	const char *colon = strchr(h, ':'), *slash = strchr(h, '/');

	return h[0] != '\0' && strpbrk(h, "%#?\\") == NULL &&
	       (colon == NULL || (slash != NULL && slash < colon));
}

/* The checked, read file href names from a file in folder dir_real, or
 * NULL (diagnosed at inc). */
static const struct vfile *
include_target(struct rd *r, const xmlNode *inc, const char *href,
    const char *dir_real)
{
	char *cand, *real;
	size_t n = strlen(r->topdir);
	struct err err = {0};
	struct vfile f = {0};
	const struct vfile *have;

	cand =
	    href[0] == '/' ? xstrdup(href) : xasprintf("%s/%s", dir_real, href);
	real = realpath(cand, NULL);
	if (real == NULL) {
		at(r, inc, "xi:include href '%s': %s", href,
		    errno == ENOENT ? "no such file" : strerror(errno));
		free(cand);
		return NULL;
	}
	free(cand);
	if (strncmp(real, r->topdir, n) != 0 ||
	    (real[n] != '/' && strcmp(r->topdir, "/") != 0)) {
		at(r, inc,
		    "xi:include href '%s' resolves to '%s', outside the "
		    "folder of %s ('%s')",
		    href, real, r->top, r->topdir);
		free(real);
		return NULL;
	}
	have = vfile_find(r, real);
	if (have != NULL) {
		free(real);
		return have;
	}
	if (afile_read(&f.data, &f.len, real, RENDER_BASE_MAX, &err) != 0) {
		at(r, inc, "xi:include href '%s': %s", href, err.msg);
		err_release(&err);
		free(real);
		return NULL;
	}
	f.real = real;
	r->files = xreallocarray(r->files, r->nfiles + 1, sizeof(*r->files));
	r->files[r->nfiles] = f;
	return &r->files[r->nfiles++];
}

static void vet_tree(struct rd *r, xmlNodePtr n, const char *path,
    const char *dir_real, struct strv *stack);

/* One xi:include element: its attributes, its file, and the file's own
 * includes (stack: the files being included, for loops). */
static void
vet_include(struct rd *r, xmlNodePtr inc, const char *path,
    const char *dir_real, struct strv *stack)
{
	xmlChar *href = xmlGetNoNsProp(inc, X("href"));
	xmlChar *parse = xmlGetNoNsProp(inc, X("parse"));
	xmlChar *xptr = xmlGetNoNsProp(inc, X("xpointer"));
	const char *h = (const char *)href;
	const struct vfile *f;
	char *shown = NULL, *dir = NULL;
	xmlDocPtr frag;

	if (ns_is(inc, XI_NS_2003)) {
		at(r, inc, "xi:include in namespace %s: Artemis only reads %s",
		    XI_NS_2003, XI_NS);
	} else if (parse != NULL && strcmp((const char *)parse, "xml") != 0) {
		at(r, inc, "xi:include parse='%s': import only expands xml",
		    (const char *)parse);
	} else if (xptr != NULL) {
		at(r, inc, "xi:include xpointer: import does not support it");
	} else if (h == NULL || h[0] == '\0') {
		at(r, inc, "xi:include without an href");
	} else if (strstr(h, "${") != NULL) {
		at(r, inc,
		    "xi:include href '%s' holds a ${...}, which the broker "
		    "substitutes at start; import cannot know its value",
		    h);
	} else if (!href_plain(h)) {
		at(r, inc, "xi:include href '%s' is not a plain file path", h);
	} else if (++r->nincludes > INCLUDES_MAX) {
		at(r, inc, "more than %d xi:includes", INCLUDES_MAX);
	} else if (stack->n >= DEPTH_MAX) {
		at(r, inc, "xi:includes nested deeper than %d", DEPTH_MAX);
	} else if ((f = include_target(r, inc, h, dir_real)) != NULL) {
		if (strv_has(stack, f->real)) {
			at(r, inc, "xi:include href '%s' includes itself", h);
			goto done;
		}
		r->total += f->len;
		if (r->total > RENDER_BASE_MAX) {
			at(r, inc, "the file and its xi:includes exceed %s",
			    "8 MiB");
			goto done;
		}
		if (!strv_has(&r->hrefs, h))
			strv_add(&r->hrefs, h);
		if (h[0] == '/') {
			shown = xstrdup(h);
		} else {
			dir = dir_of(path);
			shown = strcmp(dir, ".") == 0
			            ? xstrdup(h)
			            : xasprintf("%s/%s", dir, h);
		}
		frag = parse_bytes(r, shown, f->data, f->len);
		if (frag != NULL) {
			char *fdir = dir_of(f->real);

			strv_add(stack, f->real);
			vet_tree(r, xmlDocGetRootElement(frag), shown, fdir,
			    stack);
			free(stack->v[--stack->n]);
			free(fdir);
			xmlFreeDoc(frag);
		}
	}
done:
	free(shown);
	free(dir);
	xmlFree(href);
	xmlFree(parse);
	xmlFree(xptr);
}

static void
vet_tree(struct rd *r, xmlNodePtr n, const char *path, const char *dir_real,
    struct strv *stack)
{
	xmlNodePtr k;

	if (n == NULL || n->type != XML_ELEMENT_NODE)
		return;
	if ((ns_is(n, XI_NS) || ns_is(n, XI_NS_2003)) &&
	    strcmp((const char *)n->name, "include") == 0) {
		r->vetting = path;
		vet_include(r, n, path, dir_real, stack);
		r->vetting = NULL;
		return;
	}
	for (k = n->children; k != NULL && !failed(r); k = k->next)
		vet_tree(r, k, path, dir_real, stack);
}

/* libxml2 2.9 gives XInclude no loader of its own: for the time of one
 * xmlXIncludeProcessFlags the global entity loader serves the files
 * checked above and nothing else. NEEDSWORK: libxml2 2.14's
 * xmlXIncludeSetResourceLoader takes a context instead of this static. */
static const struct rd *loader_rd;

static xmlParserInputPtr
checked_loader(const char *url, const char *id, xmlParserCtxtPtr ctxt)
{
	const char *p = url;
	char *unesc, *real;
	const struct vfile *f = NULL;
	xmlParserInputPtr in;

	(void)id;
	if (url == NULL || loader_rd == NULL)
		return NULL;
	if (strncmp(p, "file://", 7) == 0)
		p += 7;
	unesc = xmlURIUnescapeString(p, 0, NULL);
	if (unesc == NULL)
		return NULL;
	real = realpath(unesc, NULL);
	xmlFree(unesc);
	if (real != NULL)
		f = vfile_find(loader_rd, real);
	free(real);
	if (f == NULL)
		return NULL;
	in = xmlNewStringInputStream(ctxt, (const xmlChar *)f->data);
	/* its URL is the base of the includes it holds itself */
	if (in != NULL)
		in->filename = (const char *)xmlStrdup((const xmlChar *)url);
	return in;
}

static void
expand_includes(struct rd *r)
{
	xmlExternalEntityLoader prev = xmlGetExternalEntityLoader();
	xmlStructuredErrorFunc prev_fn = xmlStructuredError;
	void *prev_ctx = xmlStructuredErrorContext;
	struct err err = {0};
	struct render_xml_sink sink = {&err,
	    "the xi:includes could not be expanded"};
	int n;

	loader_rd = r;
	xmlSetExternalEntityLoader(checked_loader);
	/* libxml2's XInclude errors, kept instead of printed */
	xmlSetStructuredErrorFunc(&sink, render_on_xml_error);
	n = xmlXIncludeProcessFlags(r->doc, XI_OPTS);
	xmlSetStructuredErrorFunc(prev_ctx, prev_fn);
	xmlSetExternalEntityLoader(prev);
	loader_rd = NULL;
	if (n < 0 || err_is_set(&err)) {
		if (!err_is_set(&err))
			err_setf(&err, NULL,
			    "the xi:includes could not be "
			    "expanded");
		if (err.path == NULL)
			err.path = xstrdup(r->top);
		errlist_add_err(r->diags, &err);
		return;
	}
	r->expanded = true;
}

/* ---- ${...}: what the broker substitutes at start ---- */

/* The first ${...} of s (owned, at most TOKEN_MAX bytes), or NULL. Like
 * Artemis's XMLUtil.replaceSystemPropsInString, a "${" without a later
 * "}" is no reference. */
static char *
prop_token(const char *s)
{
	const char *a = s != NULL ? strstr(s, "${") : NULL;
	const char *b = a != NULL ? strchr(a, '}') : NULL;
	size_t n;

	if (b == NULL)
		return NULL;
	n = (size_t)(b - a) + 1;
	if (n > TOKEN_MAX)
		return xasprintf("%.*s...}", TOKEN_MAX - 4, a);
	return xstrndup(a, n);
}

/* Refuse a ${...} in the attributes and text of an imported element's
 * subtree (comments go with the element when it is rendered). */
static void
props_refuse(struct rd *r, xmlNodePtr n)
{
	xmlAttrPtr a;
	xmlNodePtr k;
	xmlChar *v;
	char *t;

	for (a = n->properties; a != NULL; a = a->next) {
		v = xmlNodeListGetString(r->doc, a->children, 1);
		t = prop_token((const char *)v);
		if (t != NULL)
			at(r, n,
			    "%s is substituted by the broker at start; import "
			    "cannot know its value",
			    t);
		free(t);
		xmlFree(v);
	}
	for (k = n->children; k != NULL; k = k->next) {
		if (k->type == XML_ELEMENT_NODE) {
			props_refuse(r, k);
		} else if (k->type == XML_TEXT_NODE ||
		           k->type == XML_CDATA_SECTION_NODE) {
			t = prop_token((const char *)k->content);
			if (t != NULL)
				at(r, k,
				    "%s is substituted by the broker at start; "
				    "import cannot know its value",
				    t);
			free(t);
		}
	}
}

static bool
imported_el(const xmlNode *n, const xmlNode *core)
{
	return n->parent == core &&
	       (is_el(n, "addresses") || is_el(n, "diverts") ||
	           is_el(n, "queues"));
}

static void
props_collect_str(struct rd *r, const char *s)
{
	char *t;

	while (s != NULL && (t = prop_token(s)) != NULL) {
		if (!strv_has(&r->props, t))
			strv_add(&r->props, t);
		s = strstr(s, "${") + 2;
		free(t);
	}
}

/* Gather the ${...} everywhere but in the imported elements. */
static void
props_collect(struct rd *r, xmlNodePtr n, const xmlNode *core)
{
	xmlAttrPtr a;
	xmlChar *v;

	for (; n != NULL; n = n->next) {
		if (imported_el(n, core))
			continue;
		if (n->type == XML_ELEMENT_NODE) {
			for (a = n->properties; a != NULL; a = a->next) {
				v = xmlNodeListGetString(r->doc, a->children,
				    1);
				props_collect_str(r, (const char *)v);
				xmlFree(v);
			}
			props_collect(r, n->children, core);
		} else if (n->content != NULL) {
			props_collect_str(r, (const char *)n->content);
		}
	}
}

/* ---- values, read as Artemis reads them ---- */

static bool
is_space(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n';
}

/* An element's text with surrounding whitespace removed (Artemis trims),
 * owned; NULL (diagnosed) when it holds elements. */
static char *
el_text(struct rd *r, xmlNodePtr n, const char *what)
{
	xmlNodePtr k;
	xmlChar *v;
	char *s;
	size_t a = 0, b;

	for (k = n->children; k != NULL; k = k->next)
		if (k->type == XML_ELEMENT_NODE) {
			at(r, k, "%s: <%s> holds an element <%s>", what,
			    (const char *)n->name, (const char *)k->name);
			return NULL;
		}
	v = xmlNodeGetContent(n);
	s = xstrdup(v != NULL ? (const char *)v : "");
	xmlFree(v);
	b = strlen(s);
	while (b > 0 && is_space(s[b - 1]))
		b--;
	while (a < b && is_space(s[a]))
		a++;
	memmove(s, s + a, b - a);
	s[b - a] = '\0';
	return s;
}

static char *
attr_val(struct rd *r, xmlAttrPtr a)
{
	xmlChar *v = xmlNodeListGetString(r->doc, a->children, 1);
	char *s = xstrdup(v != NULL ? (const char *)v : "");

	xmlFree(v);
	return s;
}

/* xsd:boolean as both the schema and Artemis read it: "true", "false",
 * and "0"; "1" is true to the schema but false to Java's
 * Boolean.parseBoolean, so it is refused. */
static int
parse_bool(struct rd *r, const xmlNode *n, const char *what, const char *key,
    const char *v, bool *out)
{
	if (strcmp(v, "true") == 0) {
		*out = true;
	} else if (strcmp(v, "false") == 0 || strcmp(v, "0") == 0) {
		*out = false;
	} else if (strcmp(v, "1") == 0) {
		at(r, n,
		    "%s: %s '1' is true to the schema but false to Artemis "
		    "(Boolean.parseBoolean); write true or false",
		    what, key);
		return -1;
	} else {
		at(r, n, "%s: %s '%s' is not a boolean (true or false)", what,
		    key, v);
		return -1;
	}
	return 0;
}

/* An integer as Java's Integer/Long.parseLong reads it: an optional sign
 * and digits, nothing around them, within [min, max] (0 refused when
 * no_zero). */
static int
parse_int(struct rd *r, const xmlNode *n, const char *what, const char *key,
    const char *v, int64_t min, int64_t max, bool no_zero, const char *range,
    int64_t *out)
{
	const char *p = v + (v[0] == '+' || v[0] == '-');
	char *end;
	long long x;

	errno = 0;
	x = *p >= '0' && *p <= '9' ? strtoll(v, &end, 10) : 0;
	if (*p < '0' || *p > '9' || errno != 0 || *end != '\0' || x < min ||
	    x > max || (no_zero && x == 0)) {
		at(r, n, "%s: %s '%s' is not an integer %s", what, key, v,
		    range);
		return -1;
	}
	*out = x;
	return 0;
}

/* A name the declaration format can carry, else diagnosed. */
static bool
name_ok(struct rd *r, const xmlNode *n, const char *kind, const char *name)
{
	char *why;

	if (name == NULL) {
		at(r, n, "<%s> without a name", kind);
		return false;
	}
	why = decl_object_name_problem(name);
	if (why == NULL)
		return true;
	at(r, n, "%s '%s' cannot be declared: %s", kind, name, why);
	free(why);
	return false;
}

/* Text nodes of n other than whitespace, and elements outside the core
 * namespace, are not Artemis's; diagnosed. */
static void
check_text(struct rd *r, xmlNodePtr n, const char *what)
{
	xmlNodePtr k;
	const char *s;

	for (k = n->children; k != NULL; k = k->next) {
		if (k->type == XML_ELEMENT_NODE && !ns_is(k, RENDER_CORE_NS)) {
			at(r, k, "%s: unexpected element <%s>", what,
			    (const char *)k->name);
		} else if (k->type == XML_TEXT_NODE ||
		           k->type == XML_CDATA_SECTION_NODE) {
			for (s = (const char *)k->content; s != NULL && *s; s++)
				if (!is_space(*s)) {
					at(r, k, "%s: unexpected text in <%s>",
					    what, (const char *)n->name);
					break;
				}
		}
	}
}

/* xml:base, xml:lang, xml:space, xml:id: the schema's specialAttrs. */
static bool
xml_attr(const xmlAttr *a)
{
	return a->ns != NULL &&
	       strcmp((const char *)a->ns->href,
	           "http://www.w3.org/XML/1998/namespace") == 0;
}

/* ---- queues ---- */

/* Attributes of a queue the model has no field for, with the one value
 * that may be ignored: Artemis's default (FileConfigurationParser,
 * QueueConfiguration). NULL: none may. */
static const struct {
	const char *name, *dflt;
	bool is_bool;
} q_unsupported[] = {
    {"group-rebalance", "false", true},
    {"group-rebalance-pause-dispatch", "false", true},
    {"group-buckets", "-1", false},
    {"group-first-key", "", false},
    {"non-destructive", "false", true},
};

static char lvq_key[] = LVQ_KEY;

struct lvq {
	int set; /* last-value: -1 absent, 0 false, 1 true */
	char *key;
};

static int
q_unsupported_attr(struct rd *r, const xmlNode *n, const char *what,
    const char *key, const char *v)
{
	size_t i;
	bool b;

	for (i = 0; i < sizeof(q_unsupported) / sizeof(q_unsupported[0]); i++) {
		if (strcmp(key, q_unsupported[i].name) != 0)
			continue;
		if (q_unsupported[i].is_bool) {
			if (parse_bool(r, n, what, key, v, &b) != 0)
				return -1;
			if (!b)
				return 0;
		} else if (strcmp(v, q_unsupported[i].dflt) == 0) {
			return 0;
		}
		at(r, n,
		    "%s: %s '%s' cannot be declared (the declaration format "
		    "has no %s; only Artemis's default '%s' can be imported)",
		    what, key, v, key, q_unsupported[i].dflt);
		return -1;
	}
	return 1;
}

static void
q_attr(struct rd *r, const xmlNode *n, const char *what, xmlAttrPtr a,
    struct decl_queue *q, struct lvq *lv)
{
	const char *k = (const char *)a->name;
	char *v = attr_val(r, a);
	bool b;

	if (xml_attr(a) || strcmp(k, "name") == 0) {
		/* nothing to import */
	} else if (strcmp(k, "max-consumers") == 0) {
		(void)parse_int(r, n, what, k, v, -1, INT32_MAX, false,
		    "from -1 (unlimited) up", &q->max_consumers);
	} else if (strcmp(k, "consumers-before-dispatch") == 0) {
		(void)parse_int(r, n, what, k, v, 0, INT32_MAX, false,
		    "from 0 up", &q->consumers_before_dispatch);
	} else if (strcmp(k, "delay-before-dispatch") == 0) {
		(void)parse_int(r, n, what, k, v, -1, INT64_MAX, false,
		    "from -1 (none) up", &q->delay_before_dispatch);
	} else if (strcmp(k, "ring-size") == 0) {
		(void)parse_int(r, n, what, k, v, -1, INT64_MAX, true,
		    "-1 (unbounded) or from 1 up", &q->ring_size);
	} else if (strcmp(k, "purge-on-no-consumers") == 0) {
		(void)parse_bool(r, n, what, k, v, &q->purge_on_no_consumers);
	} else if (strcmp(k, "exclusive") == 0) {
		(void)parse_bool(r, n, what, k, v, &q->exclusive);
	} else if (strcmp(k, "enabled") == 0) {
		(void)parse_bool(r, n, what, k, v, &q->enabled);
	} else if (strcmp(k, "last-value") == 0) {
		if (parse_bool(r, n, what, k, v, &b) == 0)
			lv->set = b;
	} else if (strcmp(k, "last-value-key") == 0) {
		free(lv->key);
		lv->key = xstrdup(v);
	} else if (q_unsupported_attr(r, n, what, k, v) > 0) {
		at(r, n, "%s: unknown attribute '%s' (not in Artemis's schema)",
		    what, k);
	}
	free(v);
}

/* The <filter string=...> of n into *out (owned). */
static void
read_filter(struct rd *r, xmlNodePtr f, const char *what, char **out)
{
	xmlChar *v = xmlGetNoNsProp(f, X("string"));

	if (*out != NULL) {
		at(r, f, "%s: a second <filter>", what);
	} else if (v == NULL) {
		at(r, f, "%s: <filter> without a string", what);
	} else {
		*out = xstrdup((const char *)v);
	}
	xmlFree(v);
}

static void
q_children(struct rd *r, xmlNodePtr n, const char *what, struct decl_queue *q)
{
	xmlNodePtr k;
	bool seen_durable = false, seen_user = false;
	char *t;

	check_text(r, n, what);
	for (k = n->children; k != NULL; k = k->next) {
		if (k->type != XML_ELEMENT_NODE || !ns_is(k, RENDER_CORE_NS))
			continue;
		if (is_el(k, "filter")) {
			read_filter(r, k, what, &q->filter);
		} else if (is_el(k, "durable") || is_el(k, "user")) {
			bool *seen =
			    is_el(k, "durable") ? &seen_durable : &seen_user;

			if (*seen)
				at(r, k, "%s: a second <%s>", what,
				    (const char *)k->name);
			*seen = true;
			t = el_text(r, k, what);
			if (t != NULL && seen == &seen_durable)
				(void)parse_bool(r, k, what, "durable", t,
				    &q->durable);
			else if (t != NULL && t[0] != '\0')
				at(r, k,
				    "%s: <user> '%s' cannot be declared (the "
				    "declaration format has no queue user)",
				    what, t);
			free(t);
		} else {
			at(r, k, "%s: unknown element <%s>", what,
			    (const char *)k->name);
		}
	}
}

static void
read_queue(struct rd *r, xmlNodePtr n, size_t ai, unsigned routing)
{
	xmlChar *name = xmlGetNoNsProp(n, X("name"));
	struct decl_queue q;
	struct lvq lv = {-1, NULL};
	xmlAttrPtr a;
	char *what;
	size_t before = r->diags->nerrors;

	decl_queue_init(&q);
	if (!name_ok(r, n, "queue", (const char *)name)) {
		xmlFree(name);
		return;
	}
	what = xasprintf("queue '%s'", (const char *)name);
	for (a = n->properties; a != NULL; a = a->next)
		q_attr(r, n, what, a, &q, &lv);
	q_children(r, n, what, &q);
	/* QueueFactoryImpl.lastValueKey: a key makes a last-value queue;
	 * last-value="true" alone uses Message.HDR_LAST_VALUE_NAME. */
	if (lv.key != NULL && lv.key[0] != '\0')
		q.last_value_key = lv.key;
	else if (lv.set == 1)
		q.last_value_key = lvq_key;
	q.name = (char *)name;
	q.routing = routing;
	q.pos = node_pos(r, n);
	if (r->diags->nerrors == before)
		decl_cluster_add_queue(r->c, ai, &q);
	free(q.filter);
	free(lv.key);
	free(what);
	xmlFree(name);
}

/* ---- addresses ---- */

static void
read_routing(struct rd *r, xmlNodePtr n, const char *what, size_t ai,
    unsigned routing)
{
	xmlNodePtr k;

	check_text(r, n, what);
	for (k = n->children; k != NULL; k = k->next) {
		if (k->type != XML_ELEMENT_NODE || !ns_is(k, RENDER_CORE_NS))
			continue;
		if (is_el(k, "queue"))
			read_queue(r, k, ai, routing);
		else
			at(r, k, "%s: unknown element <%s> in <%s>", what,
			    (const char *)k->name, (const char *)n->name);
	}
}

static void
read_address(struct rd *r, xmlNodePtr n)
{
	xmlChar *name = xmlGetNoNsProp(n, X("name"));
	xmlNodePtr k;
	xmlAttrPtr a;
	unsigned routing = 0, one;
	char *what;
	size_t ai, before = r->diags->nerrors;

	if (!name_ok(r, n, "address", (const char *)name)) {
		xmlFree(name);
		return;
	}
	what = xasprintf("address '%s'", (const char *)name);
	for (a = n->properties; a != NULL; a = a->next)
		if (!xml_attr(a) && strcmp((const char *)a->name, "name") != 0)
			at(r, n,
			    "%s: unknown attribute '%s' (not in Artemis's "
			    "schema)",
			    what, (const char *)a->name);
	check_text(r, n, what);
	for (k = n->children; k != NULL; k = k->next) {
		if (k->type != XML_ELEMENT_NODE || !ns_is(k, RENDER_CORE_NS))
			continue;
		one = is_el(k, "anycast")     ? DECL_ANYCAST
		      : is_el(k, "multicast") ? DECL_MULTICAST
		                              : 0;
		if (one == 0)
			at(r, k, "%s: unknown element <%s>", what,
			    (const char *)k->name);
		else if (routing & one)
			at(r, k, "%s: a second <%s>", what,
			    (const char *)k->name);
		routing |= one;
	}
	if (routing == 0) {
		/* Artemis refuses an empty <address/> at start
		 * (addressWithNoRoutingType); with only whitespace or
		 * comments inside it deploys no routing type at all. */
		at(r, n,
		    "%s has neither <anycast> nor <multicast>; a declared "
		    "address needs a routing type",
		    what);
	} else if (r->diags->nerrors == before) {
		ai =
		    decl_cluster_add_address(r->c, (const char *)name, routing);
		r->c->addresses[ai].pos = node_pos(r, n);
		for (k = n->children; k != NULL; k = k->next)
			if (is_el(k, "anycast") || is_el(k, "multicast"))
				read_routing(r, k, what, ai,
				    is_el(k, "anycast") ? DECL_ANYCAST
				                        : DECL_MULTICAST);
	}
	free(what);
	xmlFree(name);
}

/* ---- diverts ---- */

static int
kv_cmp(const void *a, const void *b)
{
	return strcmp(((const struct decl_kv *)a)->key,
	    ((const struct decl_kv *)b)->key);
}

static void
read_transformer(struct rd *r, xmlNodePtr n, const char *what,
    struct decl_divert *d)
{
	xmlNodePtr k;
	xmlChar *key, *val;
	size_t i;

	check_text(r, n, what);
	for (k = n->children; k != NULL; k = k->next) {
		if (k->type != XML_ELEMENT_NODE || !ns_is(k, RENDER_CORE_NS))
			continue;
		if (is_el(k, "class-name")) {
			if (d->transformer_class_name != NULL)
				at(r, k, "%s: a second <class-name>", what);
			free(d->transformer_class_name);
			d->transformer_class_name = el_text(r, k, what);
		} else if (is_el(k, "property")) {
			key = xmlGetNoNsProp(k, X("key"));
			val = xmlGetNoNsProp(k, X("value"));
			if (key == NULL || val == NULL) {
				at(r, k, "%s: <property> without a %s", what,
				    key == NULL ? "key" : "value");
			} else {
				d->transformer_properties =
				    xreallocarray(d->transformer_properties,
				        d->ntransformer_properties + 1,
				        sizeof(struct decl_kv));
				d->transformer_properties
				    [d->ntransformer_properties]
				        .key = xstrdup((const char *)key);
				d->transformer_properties
				    [d->ntransformer_properties++]
				        .value = xstrdup((const char *)val);
			}
			xmlFree(key);
			xmlFree(val);
		} else {
			at(r, k, "%s: unknown element <%s> in <transformer>",
			    what, (const char *)k->name);
		}
	}
	if (d->transformer_class_name == NULL)
		at(r, n, "%s: <transformer> without a <class-name>", what);
	if (d->ntransformer_properties > 1)
		qsort(d->transformer_properties, d->ntransformer_properties,
		    sizeof(struct decl_kv), kv_cmp);
	for (i = 1; i < d->ntransformer_properties; i++)
		if (strcmp(d->transformer_properties[i - 1].key,
		        d->transformer_properties[i].key) == 0)
			at(r, n, "%s: transformer property '%s' given twice",
			    what, d->transformer_properties[i].key);
}

enum {
	DV_ADDRESS,
	DV_FWD,
	DV_ROUTING_NAME,
	DV_EXCLUSIVE,
	DV_ROUTING_TYPE,
	DV_TCLASS,
	DV_TRANSFORMER,
	DV_FILTER,
	DV_N
};
static const char *const dv_names[DV_N] = {"address", "forwarding-address",
    "routing-name", "exclusive", "routing-type", "transformer-class-name",
    "transformer", "filter"};

static void
dv_child(struct rd *r, xmlNodePtr k, const char *what, int i,
    struct decl_divert *d, char **tclass)
{
	char *t;

	if (i == DV_TRANSFORMER) {
		read_transformer(r, k, what, d);
		return;
	}
	if (i == DV_FILTER) {
		read_filter(r, k, what, &d->filter);
		return;
	}
	t = el_text(r, k, what);
	if (t == NULL)
		return;
	if (i == DV_EXCLUSIVE) {
		(void)parse_bool(r, k, what, "exclusive", t, &d->exclusive);
	} else if (i == DV_ROUTING_TYPE) {
		if (decl_divert_routing_parse(t, &d->routing_type) != 0)
			at(r, k,
			    "%s: routing-type '%s' is not STRIP, PASS, "
			    "ANYCAST or MULTICAST",
			    what, t);
	} else if ((i == DV_ADDRESS || i == DV_FWD) && t[0] == '\0') {
		at(r, k, "%s: <%s> is empty", what, dv_names[i]);
	} else {
		char **slot = i == DV_ADDRESS        ? &d->address
		              : i == DV_FWD          ? &d->forwarding_address
		              : i == DV_ROUTING_NAME ? &d->routing_name
		                                     : tclass;

		*slot = t;
		return;
	}
	free(t);
}

static void
read_divert(struct rd *r, xmlNodePtr n)
{
	xmlChar *name = xmlGetNoNsProp(n, X("name"));
	struct decl_divert d;
	bool seen[DV_N] = {false};
	char *what = NULL, *tclass = NULL;
	size_t before = r->diags->nerrors, j;
	xmlNodePtr k;
	xmlAttrPtr a;
	int i;

	decl_divert_init(&d);
	if (!name_ok(r, n, "divert", (const char *)name))
		goto done;
	what = xasprintf("divert '%s'", (const char *)name);
	if (!decl_is_ncname((const char *)name))
		at(r, n,
		    "%s: the name is not an XML NCName (the schema's "
		    "xsd:ID)",
		    what);
	for (a = n->properties; a != NULL; a = a->next)
		if (!xml_attr(a) && strcmp((const char *)a->name, "name") != 0)
			at(r, n,
			    "%s: unknown attribute '%s' (not in Artemis's "
			    "schema)",
			    what, (const char *)a->name);
	check_text(r, n, what);
	for (k = n->children; k != NULL; k = k->next) {
		if (k->type != XML_ELEMENT_NODE || !ns_is(k, RENDER_CORE_NS))
			continue;
		for (i = 0; i < DV_N && !is_el(k, dv_names[i]); i++)
			;
		if (i == DV_N) {
			at(r, k, "%s: unknown element <%s>", what,
			    (const char *)k->name);
			continue;
		}
		if (seen[i]) {
			at(r, k, "%s: a second <%s>", what, dv_names[i]);
			continue;
		}
		seen[i] = true;
		dv_child(r, k, what, i, &d, &tclass);
	}
	if (!seen[DV_ADDRESS] || !seen[DV_FWD])
		at(r, n, "%s: no <%s>", what,
		    !seen[DV_ADDRESS] ? "address" : "forwarding-address");
	/* FileConfigurationParser: <transformer> wins over the class name */
	if (tclass != NULL && seen[DV_TRANSFORMER])
		at(r, n,
		    "%s: both <transformer-class-name> and <transformer> "
		    "(Artemis ignores the first); keep one",
		    what);
	else if (tclass != NULL)
		d.transformer_class_name = xstrdup(tclass);
	d.name = (char *)name;
	d.pos = node_pos(r, n);
	if (r->diags->nerrors == before)
		decl_cluster_add_divert(r->c, &d);
done:
	free(d.address);
	free(d.forwarding_address);
	free(d.filter);
	free(d.routing_name);
	free(d.transformer_class_name);
	for (j = 0; j < d.ntransformer_properties; j++) {
		free(d.transformer_properties[j].key);
		free(d.transformer_properties[j].value);
	}
	free(d.transformer_properties);
	free(tclass);
	free(what);
	xmlFree(name);
}

/* Each <item> of <list> (<addresses>, <diverts>) read by one; anything
 * else in it refused. */
static void
read_list(struct rd *r, xmlNodePtr n, const char *list, const char *item,
    void (*one)(struct rd *, xmlNodePtr))
{
	xmlNodePtr k;
	char *what = xasprintf("<%s>", list);

	check_text(r, n, what);
	for (k = n->children; k != NULL; k = k->next) {
		if (k->type != XML_ELEMENT_NODE || !ns_is(k, RENDER_CORE_NS))
			continue;
		if (is_el(k, item))
			one(r, k);
		else
			at(r, k, "unknown element <%s> in %s",
			    (const char *)k->name, what);
	}
	free(what);
}

/* ---- the document ---- */

/* The one <core> of the root, in urn:activemq:core; NULL (diagnosed). */
static xmlNodePtr
find_core(struct rd *r)
{
	xmlNodePtr root = xmlDocGetRootElement(r->doc), n, core = NULL;
	size_t count = 0;

	if (root == NULL ||
	    strcmp((const char *)root->name, "configuration") != 0 ||
	    !ns_is(root, ROOT_NS)) {
		at(r, root != NULL ? root : (xmlNodePtr)r->doc,
		    "not an Artemis broker.xml: root element <%s> in "
		    "namespace %s (Artemis's is <configuration> in %s)",
		    root != NULL ? (const char *)root->name : "",
		    root != NULL && root->ns != NULL
		        ? (const char *)root->ns->href
		        : "(none)",
		    ROOT_NS);
		return NULL;
	}
	for (n = root->children; n != NULL; n = n->next)
		if (n->type == XML_ELEMENT_NODE &&
		    strcmp((const char *)n->name, "core") == 0 && count++ == 0)
			core = n;
	if (count != 1) {
		at(r, count == 0 ? root : core,
		    "not an Artemis broker.xml: %s <core> element under "
		    "<configuration>",
		    count == 0 ? "no" : "more than one");
		return NULL;
	}
	if (!ns_is(core, RENDER_CORE_NS) || core->ns->prefix != NULL) {
		at(r, core,
		    "<core> must be in the default namespace %s (Artemis does "
		    "not find a prefixed one)",
		    RENDER_CORE_NS);
		return NULL;
	}
	return core;
}

/* Queue defaults an address-setting gives the queues that leave them out
 * (QueueConfigurationUtils.applyDynamicQueueDefaults). */
static const char *const as_queue_defaults[] = {"default-exclusive-queue",
    "default-last-value-queue", "default-last-value-key",
    "default-non-destructive", "default-consumers-before-dispatch",
    "default-delay-before-dispatch", "default-ring-size",
    "default-purge-on-no-consumers", "default-max-consumers",
    "default-group-rebalance", "default-group-rebalance-pause-dispatch",
    "default-group-buckets", "default-group-first-key"};

static void
note_address_settings(struct rd *r, xmlNodePtr as)
{
	xmlNodePtr s, k;
	struct strv seen = {0};
	size_t i;
	char *list = NULL, *next;

	for (s = as->children; s != NULL; s = s->next) {
		if (!is_el(s, "address-setting"))
			continue;
		for (k = s->children; k != NULL; k = k->next)
			for (i = 0; i < sizeof(as_queue_defaults) /
			                    sizeof(as_queue_defaults[0]);
			     i++)
				if (is_el(k, as_queue_defaults[i]) &&
				    !strv_has(&seen, as_queue_defaults[i]))
					strv_add(&seen, as_queue_defaults[i]);
	}
	for (i = 0; i < seen.n; i++) {
		next = xasprintf("%s%s%s", list != NULL ? list : "",
		    i > 0 ? ", " : "", seen.v[i]);
		free(list);
		list = next;
	}
	if (list != NULL)
		strv_addf(&r->notes,
		    "address-settings set %s: a queue that leaves such a "
		    "setting out was imported with the declaration format's "
		    "default, which render writes explicitly",
		    list);
	free(list);
	strv_release(&seen);
}

/* Artemis 1.x's <core><queues>: still read by Artemis (deprecated, every
 * queue MULTICAST on the address its <address> names), but outside what
 * render owns, so its queues would stay in the base undeclared. */
static void
legacy_queues(struct rd *r, xmlNodePtr n)
{
	xmlNodePtr q;

	for (q = n->children; q != NULL; q = q->next)
		if (q->type == XML_ELEMENT_NODE) {
			at(r, q,
			    "legacy <queues> (Artemis 1.x): import reads queues "
			    "only under <addresses>; move them there");
			return;
		}
	strv_addf(&r->notes,
	    "an empty legacy <queues> (line %ld) is kept in "
	    "the base",
	    xmlGetLineNo(n));
}

static void
read_core(struct rd *r, xmlNodePtr core)
{
	xmlNodePtr n, own[2] = {NULL, NULL};
	int k;

	for (n = core->children; n != NULL; n = n->next) {
		k = is_el(n, "addresses") ? 0 : is_el(n, "diverts") ? 1 : -1;
		if (k >= 0 && own[k] != NULL)
			at(r, n, "a second <%s> in <core>",
			    (const char *)n->name);
		else if (k >= 0)
			own[k] = n;
		if (imported_el(n, core))
			props_refuse(r, n);
		if (is_el(n, "address-settings"))
			note_address_settings(r, n);
		if (is_el(n, "queues"))
			legacy_queues(r, n);
	}
	if (failed(r))
		return;
	if (own[0] != NULL)
		read_list(r, own[0], "addresses", "address", read_address);
	if (own[1] != NULL)
		read_list(r, own[1], "diverts", "divert", read_divert);
}

static void
add_notes(struct rd *r)
{
	struct sbuf b;
	size_t i;

	if (r->hrefs.n > 0) {
		sbuf_init(&b, 0);
		for (i = 0; i < r->hrefs.n; i++)
			sbuf_addf(&b, "%s%s", i > 0 ? ", " : "", r->hrefs.v[i]);
		strv_addf(&r->notes,
		    "xi:include expanded (%s): the base is the expanded "
		    "document, as libxml2 writes it",
		    sbuf_str(&b));
		sbuf_release(&b);
	}
	if (r->props.n > 0) {
		sbuf_init(&b, 0);
		for (i = 0; i < r->props.n && i < PROPS_LISTED; i++)
			sbuf_addf(&b, "%s%s", i > 0 ? ", " : "", r->props.v[i]);
		if (r->props.n > PROPS_LISTED)
			sbuf_addf(&b, " and %zu more",
			    r->props.n - PROPS_LISTED);
		strv_addf(&r->notes,
		    "kept as written, for the broker to substitute at start: "
		    "%s",
		    sbuf_str(&b));
		sbuf_release(&b);
	}
}

/* The document read, its includes checked and expanded; diagnosed when
 * not (r->doc NULL). */
static void
read_doc(struct rd *r, const char *data, size_t len)
{
	struct strv stack = {0};
	char *real = realpath(r->top, NULL);

	r->doc = parse_bytes(r, r->top, data, len);
	if (r->doc == NULL || real == NULL) {
		free(real);
		return;
	}
	r->topdir = dir_of(real);
	r->total = len;
	strv_add(&stack, real);
	vet_tree(r, xmlDocGetRootElement(r->doc), r->top, r->topdir, &stack);
	strv_release(&stack);
	free(real);
	if (!failed(r) && r->nincludes > 0)
		expand_includes(r);
}

static void
rd_release(struct rd *r)
{
	size_t i;

	for (i = 0; i < r->nfiles; i++) {
		free(r->files[i].real);
		free(r->files[i].data);
	}
	free(r->files);
	free(r->topdir);
	xmlFreeDoc(r->doc);
	strv_release(&r->hrefs);
	strv_release(&r->props);
	strv_release(&r->notes);
	decl_cluster_free(r->c);
}

/* The base render splices into: the bytes as read, or the expanded
 * document. -1 (diagnosed) when the latter outgrows RENDER_BASE_MAX. */
static int
take_base(struct rd *r, char **data, size_t len, struct render_import *out)
{
	xmlChar *mem = NULL;
	int size = 0;

	if (!r->expanded) {
		out->base = *data;
		out->base_len = len;
		*data = NULL;
		return 0;
	}
	xmlDocDumpMemoryEnc(r->doc, &mem, &size, "UTF-8");
	if (mem == NULL || size < 0 || (size_t)size > RENDER_BASE_MAX) {
		rd_err(r, r->top, 0, 0,
		    "the document with its xi:includes expanded is larger "
		    "than %s",
		    "8 MiB");
		xmlFree(mem);
		return -1;
	}
	out->base = xstrndup((const char *)mem, (size_t)size);
	out->base_len = (size_t)size;
	out->expanded = true;
	xmlFree(mem);
	return 0;
}

int
render_import_read(struct render_import *out, const char *path,
    struct errlist *diags)
{
	struct rd r = {0};
	struct err err = {0};
	char *data = NULL;
	size_t len = 0;
	xmlNodePtr core;
	int rc = -1;

	r.top = path;
	r.diags = diags;
	r.nerrors0 = diags->nerrors;
	if (afile_read(&data, &len, path, RENDER_BASE_MAX, &err) != 0) {
		errlist_add_err(diags, &err);
		return -1;
	}
	read_doc(&r, data, len);
	if (r.doc == NULL || failed(&r))
		goto done;
	core = find_core(&r);
	if (core == NULL)
		goto done;
	r.c = decl_cluster_new("imported", DECL_CONFIG_MANAGED);
	props_collect(&r, r.doc->children, core);
	read_core(&r, core);
	if (failed(&r))
		goto done;
	add_notes(&r);
	memset(out, 0, sizeof(*out));
	if (take_base(&r, &data, len, out) != 0)
		goto done;
	out->objects = r.c;
	r.c = NULL;
	out->notes = r.notes.v;
	out->nnotes = r.notes.n;
	memset(&r.notes, 0, sizeof(r.notes));
	rc = 0;
done:
	rd_release(&r);
	free(data);
	return rc;
}

void
render_import_release(struct render_import *r)
{
	if (r == NULL)
		return;
	decl_cluster_free(r->objects);
	free(r->base);
	strv_array_free(r->notes, r->nnotes);
	memset(r, 0, sizeof(*r));
}
