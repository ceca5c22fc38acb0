/* declarations/yaml-tree.h: one YAML document as a small tree of
 * positioned nodes (scalars, lists, mappings).
 *
 * This is the YAML layer the declarations loader is built on, exposed so
 * that agent/conf.c can read the agent's own configuration with the same
 * guards and the same `path:line:col` positions without linking libyaml
 * outside declarations/ (style.md 2.1, 2.8). Implemented in yaml.c.
 */
#ifndef DECLARATIONS_YAML_TREE_H
#define DECLARATIONS_YAML_TREE_H

#include <stdbool.h>
#include <stddef.h>

#include "../lib/err.h"

#define DECL_YAML_DEPTH_MAX 16  /* nesting of collections in one file */
#define DECL_YAML_KEYS_MAX  256 /* keys in one mapping */

enum decl_yaml_kind {
	DECL_YAML_SCALAR,
	DECL_YAML_SEQ,
	DECL_YAML_MAP,
};

struct decl_yaml_node {
	enum decl_yaml_kind kind;
	struct pos pos;
	char *str;  /* DECL_YAML_SCALAR: the value, NUL-terminated */
	bool plain; /* DECL_YAML_SCALAR: written without quotes */
	struct decl_yaml_node **keys; /* DECL_YAML_MAP: scalar keys */
	struct decl_yaml_node *
	    *vals; /* DECL_YAML_MAP: values; DECL_YAML_SEQ: items */
	size_t n, alloc;
};

/* Parse one YAML document into a tree. Refuses (one diagnostic into diags,
 * returns -1): empty input, input over DECL_FILE_MAX, invalid UTF-8,
 * libyaml errors (tabs in indentation get their own text), several
 * documents, anchors, aliases, tags, non-scalar or duplicate mapping keys,
 * mappings over DECL_YAML_KEYS_MAX keys, nesting over DECL_YAML_DEPTH_MAX.
 * path is borrowed into every pos of the tree. */
int decl_yaml_parse(struct decl_yaml_node **out, const char *path,
    const char *data, size_t len, struct errlist *diags);
/* The same with max bytes instead of DECL_FILE_MAX. */
int decl_yaml_parse_max(struct decl_yaml_node **out, const char *path,
    const char *data, size_t len, size_t max, struct errlist *diags);
void decl_yaml_node_free(struct decl_yaml_node *n);
/* "a scalar", "a list", "a mapping" (for messages). */
const char *decl_yaml_kind_name(const struct decl_yaml_node *n);
/* True for a plain `~`, `null`, `Null`, `NULL` or empty plain scalar. */
bool decl_yaml_node_is_null(const struct decl_yaml_node *n);

#endif
