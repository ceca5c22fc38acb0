/* declarations/render/render-int.h: the pieces of the broker.xml renderer,
 * shared by render*.c and the unit tests. Not for other modules. */
#ifndef DECLARATIONS_RENDER_RENDER_INT_H
#define DECLARATIONS_RENDER_RENDER_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "../../lib/err.h"
#include "../../lib/sbuf.h"
#include "../decl.h"
#include "render.h"

#define RENDER_CORE_NS    "urn:activemq:core"
#define RENDER_INDENT_DEF "   " /* Artemis's own files indent by three */
#define RENDER_DIFF_MAX_D 1000  /* differing lines diffed exactly */
#define RENDER_OUT_MAX    ((size_t)64 * 1024 * 1024) /* a rendered file */

/* Byte offsets of one element in a document's text. */
struct xml_span {
	size_t start;      /* the '<' of its start tag */
	size_t stag_end;   /* just past the start tag's '>' */
	size_t etag_start; /* the '<' of "</name>"; == stag_end when empty */
	size_t end;        /* just past the element */
	bool empty;        /* an empty-element tag: <name .../> */
};

/* Locate the element reached from the document element by following
 * element-child indexes path[0..depth) (depth 0: the document element
 * itself). Comments, CDATA sections and processing instructions are
 * skipped, quoted attribute values may hold '>'. text must be well-formed
 * XML without a DOCTYPE (the caller parsed it first). Returns 0, or -1
 * when the path leads nowhere or the text is not what was promised. */
int render_xml_locate(const char *text, size_t len, const size_t *path,
    size_t depth, struct xml_span *out);

/* The whitespace that starts the line holding offset off, when only
 * whitespace precedes off on that line: returns its length and sets
 * *start. Returns (size_t)-1 when other text precedes off. */
size_t render_line_indent(const char *text, size_t off, size_t *start);

/* One replacement of base bytes [off, off + del) by ins. */
struct splice {
	size_t off, del;
	char *ins; /* owned */
};

/* How the owned elements are laid out: each nested level is indented by
 * `unit` more than its parent; the element itself starts at `base`. */
struct render_fmt {
	const char *base;
	const char *unit;
};

/* Serialize <addresses> / <diverts> of c with libxml2 (no trailing
 * newline). Strings were checked with render_check_strings first. */
char *render_addresses_xml(const struct decl_cluster *c,
    const struct render_fmt *fmt);
char *render_diverts_xml(const struct decl_cluster *c,
    const struct render_fmt *fmt);
/* <address-settings> / <security-settings> of c: what the file holds of
 * them when c declares any (render.c owns the element then). Each
 * <address-setting> carries the keys the declaration writes, no other
 * (Artemis merges the rest from less specific matches); each
 * <security-setting> a <permission> per permission with roles. */
char *render_address_settings_xml(const struct decl_cluster *c,
    const struct render_fmt *fmt);
char *render_security_settings_xml(const struct decl_cluster *c,
    const struct render_fmt *fmt);

/* Refuse what broker.xml cannot carry: divert names that are not NCNames,
 * strings that are not UTF-8 or hold characters XML 1.0 forbids. One
 * diagnostic per problem, at the object's position. Returns -1 if any. */
int render_check_strings(const struct decl_cluster *c, struct errlist *diags);

/* Maps lines of the rendered text back to the base (lines outside the
 * splices) and to declared objects (lines inside them). */
struct render_map {
	const struct decl_cluster *c;
	const char *base_path;
	const struct splice *splices; /* sorted by offset */
	size_t nsplices;
	const char *base; /* the base text */
};

/* Parse text again and validate its <core> against schema (NULL: only
 * check that it parses). Every violation goes to diags, mapped back to
 * the declared object or the base file's line. Returns 0 or -1. */
/* A libxml2 message without its trailing newline ("?" for NULL); owned. */
char *render_trim_msg(const char *msg);
/* A structured error handler for libxml2 (xmlStructuredErrorFunc; its
 * error is a struct _xmlError): an error of level ERROR or worse is set
 * in sink->err as "<what>: <message>" at the error's file and line. */
struct _xmlError;
struct render_xml_sink {
	struct err *err;
	const char *what; /* "cannot load the Artemis schema", ... */
};
void render_on_xml_error(void *sink, struct _xmlError *e);

int render_validate(const struct render_schema *schema, const char *text,
    size_t len, const struct render_map *map, struct errlist *diags);

#endif
