/* declarations/decl-int.h: shared only inside declarations/.
 *
 * yaml.c turns one YAML buffer into a small tree of decl_yaml_node (scalars,
 * sequences, mappings, each with its position; yaml-tree.h); load.c maps trees
 * onto the model; check.c runs the cross-object rules; model.c frees and looks
 * up.
 */
#ifndef DECLARATIONS_DECL_INT_H
#define DECLARATIONS_DECL_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "../lib/err.h"
#include "decl.h"
#include "yaml-tree.h"

#define DECL_NAME_MAX 255 /* bytes in a name */

/* The YAML tree (struct decl_yaml_node, decl_yaml_parse, ...) is declared in
 * yaml-tree.h, which agent/conf.c shares. */

/* Table-driven fields of one mapping (fields.c). */
enum decl_field_type {
	DECL_FIELD_STR,         /* char *: non-empty string */
	DECL_FIELD_STR_OPT,     /* char *: string, or null/absent for NULL */
	DECL_FIELD_NAME,        /* char *: an object name (decl_name_problem) */
	DECL_FIELD_FILENAME,    /* char *: a node name (decl_is_file_name) */
	DECL_FIELD_CREDENTIALS, /* char *: a credentials name, never a secret */
	DECL_FIELD_URL,         /* char *: http(s) URL with a host */
	DECL_FIELD_BOOL,        /* bool */
	DECL_FIELD_BOOL_NOT,    /* bool: the value's negation */
	DECL_FIELD_INT,         /* int64_t within [min, max], maybe not 0 */
	DECL_FIELD_ROUTING_SET, /* unsigned: list of anycast/multicast */
	DECL_FIELD_ROUTING_ONE, /* unsigned: anycast or multicast */
	DECL_FIELD_DIVERT_ROUTING, /* enum decl_divert_routing */
	DECL_FIELD_KEY_VALUES, /* transformer-properties: mapping of strings */
	DECL_FIELD_DELETION_POLICY, /* enum decl_deletion_policy */
	DECL_FIELD_OUTER,           /* known key, parsed by the caller */
};

struct decl_field {
	const char *key;
	enum decl_field_type type;
	size_t off;   /* offset in the object; unused for DECL_FIELD_OUTER */
	size_t off_n; /* DECL_FIELD_KEY_VALUES: offset of the count */
	bool required;
	int64_t min, max;
	bool no_zero;      /* DECL_FIELD_INT: 0 is refused */
	const char *range; /* DECL_FIELD_INT: the allowed range, for messages */
};

/* Parse the keys of map into obj through tab. `what` names the object in
 * messages ("queue"). Unknown keys, wrong types and missing required keys
 * are errors. Returns -1 when any error was added. */
int decl_fields_parse(void *obj, const struct decl_yaml_node *map,
    const char *what, const struct decl_field *tab, size_t ntab,
    struct errlist *diags);
/* The value of key in map, or NULL. */
const struct decl_yaml_node *decl_yaml_map_get(const struct decl_yaml_node *map,
    const char *key);

/* The lookup index behind decl_cluster_find_* (index.c). Built on a
 * cluster whose objects all have names; without one, lookups scan. */
void decl_index_build(struct decl_cluster *c);
void decl_index_free(struct decl_index *ix);
const struct decl_address *decl_index_address(const struct decl_index *ix,
    const char *name);
const struct decl_queue *decl_index_queue(const struct decl_index *ix,
    const char *name);
const struct decl_divert *decl_index_divert(const struct decl_index *ix,
    const char *name);

/* delete-if-empty (delete-if-empty.c). Record in *at where map (a queue
 * or `settings`) writes the key, when it does. */
void decl_delete_if_empty_key(struct pos *at, const struct decl_yaml_node *map);
/* Give every queue that does not write the key the cluster's default
 * (settings.delete-if-empty) and its place: once every file is loaded. */
void decl_delete_if_empty_resolve(struct decl_cluster *c);

/* Cross-object rules on a fully loaded cluster; diagnostics into diags. */
void decl_check(const struct decl_cluster *c, struct errlist *diags);

/* The endpoint a Jolokia URL (one that passed the URL check) reaches, as
 * check.c compares nodes' endpoints: "loopback:8161/console/jolokia",
 * "10.0.0.1:443/jolokia?x=1". Owned. */
char *decl_endpoint_key(const char *url);

/* Helpers shared by load.c and check.c. */
/* Why s cannot be an object name (owned: "is empty", "contains ','",
 * "contains whitespace or a control character", "contains U+202E (a
 * bidirectional control) at byte 5"), or NULL when it can: 1 to 255
 * bytes, no ',', nothing lib/utf8.h's utf8_name_problem refuses. */
char *decl_name_problem(const char *s);
bool decl_is_file_name(const char *s);

#endif
