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

/* Table-driven fields of one mapping (fields.c). The tables (load.c) are
 * the one description of the format: the loader parses and validates with
 * them, sets their defaults from them, and the JSON Schema of schema/ is
 * generated from them (schema.c, `artemis-gitops schema`). A new row
 * appears in the schema as it is; a new type needs its case in schema.c's
 * switch (the build fails until it has one: -Wswitch). */
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
	DECL_FIELD_TRI,      /* enum decl_tri: true or false, else unset */
	DECL_FIELD_ENUM,     /* an enum whose 0 is unset: enum_name's words */
	DECL_FIELD_DURATION, /* int64_t ms: an integer, or 500ms, 5s, 2m, 1h */
	DECL_FIELD_SIZE,     /* int64_t bytes: an integer, or 10MB, 512KiB */
	DECL_FIELD_ROLES,    /* struct decl_roles: a list of role names */
	DECL_FIELD_DELIM,    /* char *: one ASCII punctuation, not # or * */
	/* The caller parses these (decl_fields_parse only knows the key): */
	DECL_FIELD_MODE,      /* STUDIO_MANAGED or CONFIG_MANAGED */
	DECL_FIELD_LIST,      /* a list (null: empty) of mappings of `sub` */
	DECL_FIELD_MAP,       /* one mapping (or null) of `sub` */
	DECL_FIELD_NAME_LIST, /* a list of name patterns, none twice */
	DECL_FIELD_OUTER, /* known key, any value as far as the schema says */
};

struct decl_field;

/* The fields of one kind of mapping, as one unit: what it is called in
 * messages ("queue") and what the schema says of it. */
struct decl_table {
	const char *what;
	const char *desc; /* NULL: none */
	const struct decl_field *fields;
	size_t n;
};

/* One key. Everything after `range` is optional (zero: not set), so a row
 * written with the first members only keeps its meaning. */
struct decl_field {
	const char *key;
	enum decl_field_type type;
	size_t off;   /* offset in the object; unused when parsed outside */
	size_t off_n; /* DECL_FIELD_KEY_VALUES: offset of the count */
	bool required;
	int64_t min, max;
	bool no_zero;      /* DECL_FIELD_INT: 0 is refused */
	const char *range; /* DECL_FIELD_INT: the allowed range, for messages */
	/* The caller parses this key, whatever its type (the top level's
	 * version, cluster and mode); MODE, LIST, MAP, NAME_LIST and OUTER
	 * always are. */
	bool outer;
	const char *desc; /* the schema's description; NULL: none */
	/* The value when the key is absent, as written in YAML (for
	 * BOOL_NOT the key's value, not the field's): def for BOOL,
	 * BOOL_NOT, INT, ROUTING_ONE and the enums, def_str for strings.
	 * decl_fields_defaults sets it; the schema shows it. A default
	 * that depends on another object is said in desc instead. */
	bool has_default;
	int64_t def;
	const char *def_str;
	const struct decl_table *sub; /* LIST, MAP: the items' fields */
	size_t max_items; /* LIST, NAME_LIST, ROLES: 0 for no bound */
	/* INT, DURATION, SIZE: DECL_UNSET when the key is absent (an
	 * address setting, inherited from a less specific match) */
	bool unset;
	/* ENUM: the word of value i (1, 2, ...), NULL past the last */
	const char *(*enum_name)(int i);
};

/* The pattern of a role name (fields.c, beside its check) and of the
 * string forms of a duration, a size and a delimiter: the schema's. */
extern const char decl_duration_pattern[];
extern const char decl_size_pattern[];
extern const char decl_delim_pattern[];
/* Why s cannot be a role name (owned), or NULL when it can: a name
 * (decl_name_problem) without a space. */
char *decl_role_problem(const char *s);

/* The top level of a declaration file: every other table hangs below it
 * (load.c). */
extern const struct decl_table decl_top_table;

/* The pattern (ECMA-262 and Python re alike) of a URL that url_problem
 * accepts but for the port's range (fields.c, beside the check). */
extern const char decl_url_pattern[];

/* Set the default of every row of tab that has one (has_default) in obj:
 * done before decl_fields_parse. */
void decl_fields_defaults(void *obj, const struct decl_field *tab, size_t ntab);
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

/* decl_cluster_parse_max, freeing texts[i] (the heap copy of files[i]'s
 * data, then set to NULL) once file i is loaded: a folder's files are read
 * first (every read error reported before any is parsed), and their text
 * need not outlive their part of the model (dir.c). texts NULL: none is
 * freed. */
int decl_cluster_parse_taking(struct decl_cluster **out, const char *label,
    const struct decl_file *files, char **texts, size_t nfiles, size_t file_max,
    struct errlist *diags);

#endif
