/* declarations/render/render.h: broker.xml for CONFIG_MANAGED clusters.
 *
 * The agent owns exactly two elements of each node's broker.xml: the
 * <addresses> and the <diverts> of <core>. Everything else comes from a
 * base file kept in the declarations repository:
 *
 *   <cluster>/broker/broker.xml          the base of every node
 *   <cluster>/broker/nodes/<node>.xml    a node's own base (optional; it
 *                                        replaces broker.xml for that node)
 *
 * Rendering replaces the two owned elements (or inserts them before
 * </core> when the base has none) and leaves every other byte of the base
 * as it was. The new elements are built and escaped by libxml2, then the
 * whole result is parsed again and its <core> validated against Artemis's
 * own artemis-configuration.xsd, as the broker does at startup.
 * docs/config-managed.md describes the layout for operators.
 */
#ifndef DECLARATIONS_RENDER_RENDER_H
#define DECLARATIONS_RENDER_RENDER_H

#include <stddef.h>

#include "../../lib/err.h"
#include "../decl.h"

#define RENDER_BASE_DIR    "broker"     /* <cluster>/broker/ */
#define RENDER_BASE_FILE   "broker.xml" /* <cluster>/broker/broker.xml */
#define RENDER_NODES_DIR   "nodes"      /* <cluster>/broker/nodes/<node>.xml */
#define RENDER_BASE_MAX    ((size_t)8 * 1024 * 1024) /* bytes of a base file */
#define RENDER_SCHEMA_FILE "artemis-configuration.xsd"
#define RENDER_SCHEMA_ENV  "ARTEMIS_GITOPS_SCHEMA_DIR"

/* Artemis's configuration schema, parsed once (opaque). */
struct render_schema;

/* Parse dir/artemis-configuration.xsd (it imports xml.xsd from the same
 * folder). On success *out is owned by the caller. */
int render_schema_load(struct render_schema **out, const char *dir,
    struct err *err);
void render_schema_free(struct render_schema *s); /* NULL is a no-op */

/* A base broker.xml held in memory. */
struct render_base {
	const char *path; /* used in diagnostics */
	const char *data;
	size_t len;
};

/* Render a node's broker.xml from its base. Every problem is appended to
 * diags: refused names and characters XML cannot carry (at the declared
 * object's YAML position), a base that cannot be spliced (at the base's
 * line), schema violations (at the declared object, naming the base, or
 * at the base's line). Messages do not name the node, so nodes sharing a
 * base give identical diagnostics. schema may be NULL to skip validation
 * (tests only; the command always validates; the result is parsed again
 * either way). Returns 0 and sets *out (NUL-terminated, owned by the
 * caller) and *out_len; otherwise -1 and *out is untouched. */
int render_broker_xml(char **out, size_t *out_len, const struct decl_cluster *c,
    const struct render_base *base, const struct render_schema *schema,
    struct errlist *diags);

/* The base file of node in cluster_dir: nodes/<node>.xml when it exists,
 * else broker/broker.xml. Returns 0 and the owned path in *out; -1 when
 * node is not usable as a file name or neither file exists. "Exists" is
 * anything there, a FIFO or a dangling link too: reading it then refuses
 * it by name, rather than a broken node file falling back to broker.xml. */
int render_base_path(char **out, const char *cluster_dir, const char *node,
    struct err *err);

/* True when name can be a folder and file name (non-empty, no '/', not
 * "." or ".."): rendered files go to <out>/<node>/broker.xml. */
bool render_node_name_ok(const char *name);

/* The config-delete-{addresses,queues,diverts} of the address-setting
 * match="#" in a broker.xml text: "OFF" or "FORCE" each (Artemis's default
 * OFF when absent). Static strings. Returns 0, or -1 when the text does
 * not parse. */
struct render_config_delete {
	const char *addresses, *queues, *diverts;
};
int render_config_delete(const char *text, size_t len,
    struct render_config_delete *out);

/* A unified diff of text a against b (`diff -u` hunks with 3 lines of
 * context, headers `--- label_a` and `+++ label_b`), for previews and
 * `render --diff-against`. NULL when they are equal. Owned by the caller. */
char *render_udiff(const char *a, size_t alen, const char *b, size_t blen,
    const char *label_a, const char *label_b);

/* One node's broker.xml read for `import --from-broker-xml` (import-xml.c;
 * docs/import-broker-xml-notes.md has the decisions and their evidence).
 *
 * The file is read through afile (at most RENDER_BASE_MAX bytes), parsed
 * without network, DTD or entity expansion (a DOCTYPE that declares
 * anything or names an external DTD is refused), and must be Artemis's:
 * <configuration> in urn:activemq with one <core> in urn:activemq:core.
 * Its xi:includes (XInclude 2001, parse="xml") are expanded only when each
 * href, nested ones too, names an existing regular file inside the top
 * file's folder (after realpath). ${...} references in <addresses>,
 * <diverts> and <queues> are refused (the broker substitutes them at
 * start); elsewhere they stay as written and a note names them. Every
 * setting the model has no field for is refused unless it holds Artemis's
 * default, as is every value the schema and Artemis would read apart
 * ("1" as a boolean, " 5" as a number). Legacy <queues> holding queues are
 * refused; an address without <anycast> or <multicast> is refused. */
struct render_import {
	/* The addresses (each with its queues), and the diverts of <core>,
	 * in file order; built with decl_cluster_new (named "imported",
	 * CONFIG_MANAGED, no nodes: the caller names it). Positions point
	 * at the broker.xml (or the included file) and its lines. */
	struct decl_cluster *objects;
	/* What render_broker_xml should splice into: the file's bytes as
	 * they were, or, when it had xi:includes, the document with them
	 * expanded as libxml2 writes it (expanded true). NUL-terminated. */
	char *base;
	size_t base_len;
	bool expanded;
	/* One line each for the import report: what was expanded, the
	 * ${...} kept as written, settings that give queues defaults, an
	 * empty legacy <queues>. */
	char **notes;
	size_t nnotes;
};

/* Read path into *out. Every problem is appended to diags as
 * `path:line: message` (the included file's path for what came from one;
 * a column only for malformed XML); all problems are reported, not just
 * the first. Returns 0 and fills *out (release it with
 * render_import_release); otherwise -1 and *out is untouched. */
int render_import_read(struct render_import *out, const char *path,
    struct errlist *diags);
/* Free what *r holds and zero it; NULL and a zeroed one are no-ops. */
void render_import_release(struct render_import *r);

#endif
