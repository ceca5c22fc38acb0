/* declarations/decl.h: the cluster model, its YAML loader and validation.
 *
 * A repository folder holds one folder per cluster; a cluster folder holds
 * one or more YAML files (*.yaml, *.yml) that together declare it. The
 * loader keeps the position of every object, so a refusal found later (by
 * reconcile/) still points at the YAML line that declared it.
 *
 * The model structs are read-only outside declarations/: other modules walk
 * them through `const` pointers and never allocate or free their members.
 * (They are visible rather than opaque because the planner walks every
 * field; accessor functions for each would only add noise.)
 *
 * Normalisation: after a successful load every optional field holds its
 * effective value (the defaults below), so consumers never see "unset".
 */
#ifndef DECLARATIONS_DECL_H
#define DECLARATIONS_DECL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../lib/err.h"
#include "../lib/sbuf.h"
#include "../lib/sha256.h"

#define DECL_VERSION_MAX 1 /* newest format this build reads */
#define DECL_FILE_MAX    ((size_t)1024 * 1024) /* bytes per file */
/* bytes of the one file the agent writes itself (decl_cluster_dump into
 * PLAN_DIR/declaration): a dump of DECL_OBJECTS_MAX objects fits */
#define DECL_DUMP_FILE_MAX          ((size_t)512 * 1024 * 1024)
#define DECL_FILES_MAX              256    /* YAML files per cluster */
#define DECL_NODES_MAX              64     /* nodes per cluster */
#define DECL_MEMBERS_MAX            4      /* brokers of one HA node */
#define DECL_OBJECTS_MAX            200000 /* addresses + queues + diverts */
#define DECL_DEFAULT_CAPTURE_PREFIX "__capture."
#define DECL_DEFAULT_MAX_DESTROYED  1000 /* settings.max-destroyed-messages */
#define DECL_DEFAULT_CAPTURE_RING   1000 /* captures[].ring-size */
#define DECL_PROTECT_MAX            256  /* settings.protect patterns */

enum decl_mode {
	DECL_STUDIO_MANAGED = 0,
	DECL_CONFIG_MANAGED = 1,
};

/* Routing types of an address (a set) or of a queue (exactly one bit). */
enum decl_routing {
	DECL_ANYCAST = 1 << 0,
	DECL_MULTICAST = 1 << 1,
};

/* A divert's routing type (Artemis ComponentConfigurationRoutingType). */
enum decl_divert_routing {
	DECL_DIVERT_STRIP = 0, /* Artemis's default */
	DECL_DIVERT_PASS,
	DECL_DIVERT_ANYCAST,
	DECL_DIVERT_MULTICAST,
};

struct decl_index; /* opaque */

/* deletion-policy of a queue, an address or a divert (docs/policy.md). */
enum decl_deletion_policy {
	DECL_DELETE = 0, /* removed from the declaration: deleted */
	DECL_RETAIN,     /* removed: forgotten, never destroyed */
};

/* The per-object policy (docs/policy.md, "Per-object policy"). Effective
 * values: a queue without its own takes its address's deletion-policy and,
 * when the address is unmanaged, its managed: false. The positions are of
 * the values written on the object itself (line 0: inherited or default). */
struct decl_policy {
	enum decl_deletion_policy deletion; /* default DECL_DELETE */
	bool unmanaged; /* managed: false; default false, so that a zeroed
	                   policy is the default one */
	struct pos deletion_at;
	struct pos managed_at;
};

struct decl_kv {
	char *key;
	char *value;
};

/* One broker of an HA node (docs/ha-pairs.md): a primary or a backup,
 * of a shared-store or replication group that is one node of the cluster. */
struct decl_member {
	struct pos pos; /* the list item */
	char *name;
	char *jolokia;     /* http(s) URL of its Jolokia endpoint */
	char *credentials; /* its own file; NULL: the node's */
};

struct decl_node {
	struct pos pos; /* the list item */
	char *name;
	char *jolokia;     /* http(s) URL of the Jolokia endpoint; NULL when
	                      the node has members */
	char *credentials; /* a file name in the credentials folder; NULL only
	                      when every member names its own */
	/* An HA node: 2..DECL_MEMBERS_MAX brokers sharing one NodeID, of
	 * which the live one is planned against and acted on; 0 members: the
	 * node is the one broker at jolokia. */
	struct decl_member *members;
	size_t nmembers;
};

/* Fields ordered to pack (200,000 of them in a plan of two declarations
 * of 100,000 queues). */
struct decl_queue {
	struct pos pos;
	char *name;
	struct decl_policy policy;
	const char *address;   /* borrowed: the enclosing address's name */
	char *filter;          /* NULL = no filter */
	char *last_value_key;  /* NULL = not a last-value queue */
	int64_t max_consumers; /* default -1 (unlimited) */
	int64_t ring_size;     /* default -1 (unbounded) */
	int64_t consumers_before_dispatch; /* default 0 */
	int64_t delay_before_dispatch;     /* default -1 */
	unsigned routing;                  /* DECL_ANYCAST or DECL_MULTICAST */
	bool durable;                      /* default true */
	bool purge_on_no_consumers;        /* default false */
	bool exclusive;                    /* default false */
	bool enabled;                      /* default true */
	/* delete-if-empty (docs/policy.md): a delete of the queue is refused
	 * on a node where it holds messages. Effective value: the queue's
	 * own key, else settings.delete-if-empty. delete_if_empty_at is the
	 * key that decided it (the queue's or the settings' one); line 0
	 * when neither was written (the default, false). */
	bool delete_if_empty;
	struct pos delete_if_empty_at;
};

struct decl_address {
	struct pos pos;
	char *name;
	struct decl_policy policy;
	unsigned routing; /* set of enum decl_routing, never empty */
	struct decl_queue *queues;
	size_t nqueues;
};

struct decl_divert {
	struct pos pos;
	char *name;
	struct decl_policy policy;
	char *address; /* source */
	char *forwarding_address;
	bool exclusive;                         /* default false */
	char *filter;                           /* NULL = no filter */
	enum decl_divert_routing routing_type;  /* default STRIP */
	char *routing_name;                     /* default: the divert's name */
	char *transformer_class_name;           /* NULL = none */
	struct decl_kv *transformer_properties; /* sorted by key */
	size_t ntransformer_properties;
};

/* A capture subscription (ADR-0084 decision 5): taps named
 * <capture-prefix><name>.<address> on every address holding a live queue
 * whose name matches pattern (a glob: '*' any run, '?' one character). */
struct decl_capture {
	struct pos pos;
	char *name;
	char *pattern;
	int64_t ring_size; /* ring of the capture queue; default 1000 */
};

/* Address settings and security settings (docs/declarations.md,
 * "address-settings", "security-settings"). A match is an address, or a
 * pattern of words split by the cluster's wildcard delimiter ('.' unless
 * settings.wildcard-delimiter says otherwise) with '*' one word and '#'
 * any words, last only.
 *
 * Artemis merges the address settings of every match of an address, the
 * most specific first: a key a match does not write is inherited from a
 * less specific one, and from the broker's default last. So these keys
 * keep "not written" apart from every value: DECL_UNSET for the numbers,
 * 0 (the _UNSET member) for the enums and the tri-state booleans, NULL for
 * the strings. Security settings do not merge: the most specific match
 * holds every permission, and a permission it does not list no role has. */
#define DECL_UNSET         INT64_MIN /* an address setting not written */
#define DECL_SETTINGS_MAX  4096      /* address- or security-settings */
#define DECL_ROLES_MAX     256       /* roles of one permission */
#define DECL_DEFAULT_DELIM "."       /* settings.wildcard-delimiter */

/* A boolean address setting: not written, false or true. */
enum decl_tri {
	DECL_TRI_UNSET = 0,
	DECL_TRI_FALSE,
	DECL_TRI_TRUE,
};

/* address-full-policy (Artemis AddressFullMessagePolicy). */
enum decl_full_policy {
	DECL_FULL_UNSET = 0,
	DECL_FULL_PAGE, /* Artemis's default */
	DECL_FULL_DROP,
	DECL_FULL_BLOCK,
	DECL_FULL_FAIL,
};

/* config-delete-queues, -addresses, -diverts (Artemis DeletionPolicy). */
enum decl_config_delete {
	DECL_CONFIG_DELETE_UNSET = 0,
	DECL_CONFIG_DELETE_OFF, /* Artemis's default */
	DECL_CONFIG_DELETE_FORCE,
};

struct decl_address_setting {
	struct pos pos;      /* the list item */
	struct pos match_at; /* the match's value */
	char *match;
	char *dead_letter_address;            /* NULL: not written */
	char *expiry_address;                 /* NULL: not written */
	struct pos dead_letter_at, expiry_at; /* their values; line 0: none */
	int64_t max_delivery_attempts; /* -1 (no limit) or more; DECL_UNSET */
	int64_t redelivery_delay;      /* milliseconds; DECL_UNSET */
	int64_t max_size_bytes;        /* bytes, -1: no limit; DECL_UNSET */
	enum decl_full_policy address_full_policy;
	enum decl_tri auto_create_queues;
	enum decl_tri auto_create_addresses;
	enum decl_tri auto_delete_queues;
	enum decl_tri auto_delete_addresses;
	enum decl_config_delete config_delete_queues;
	enum decl_config_delete config_delete_addresses;
	enum decl_config_delete config_delete_diverts;
};

/* The permissions of a security setting, in Artemis's order of
 * addSecuritySettings' arguments. */
enum decl_permission {
	DECL_PERM_SEND = 0,
	DECL_PERM_CONSUME,
	DECL_PERM_CREATE_DURABLE_QUEUE,
	DECL_PERM_DELETE_DURABLE_QUEUE,
	DECL_PERM_CREATE_NON_DURABLE_QUEUE,
	DECL_PERM_DELETE_NON_DURABLE_QUEUE,
	DECL_PERM_MANAGE,
	DECL_PERM_BROWSE,
	DECL_PERM_CREATE_ADDRESS,
	DECL_PERM_DELETE_ADDRESS,
	DECL_PERM_COUNT,
};

/* The roles that hold one permission: sorted, none twice. */
struct decl_roles {
	char **v;
	size_t n;
};

struct decl_security_setting {
	struct pos pos;      /* the list item */
	struct pos match_at; /* the match's value */
	char *match;
	struct decl_roles perm[DECL_PERM_COUNT];
};

struct decl_settings {
	char *capture_prefix; /* default DECL_DEFAULT_CAPTURE_PREFIX */
	int64_t max_destroyed_messages; /* the bulk cap (ADR-0084 decision 7) */
	/* protect: globs of names no plan may delete (docs/policy.md) */
	char **protect;
	size_t nprotect;
	struct pos *protect_at; /* where each was written */
	/* settings.delete-if-empty: every queue's default (docs/policy.md);
	 * delete_if_empty_at is the key, line 0 when not written. */
	bool delete_if_empty;
	struct pos delete_if_empty_at;
	/* the brokers' wildcard delimiter, one character; default "." */
	char *wildcard_delimiter;
};

struct decl_cluster {
	char *dir;      /* the folder it was loaded from (or a label) */
	char *name;     /* `cluster` */
	struct pos pos; /* where `cluster` was declared */
	unsigned version;
	enum decl_mode mode;
	struct decl_settings settings;
	struct decl_node *nodes;
	size_t nnodes;
	struct decl_address *addresses; /* in declaration order */
	size_t naddresses;
	struct decl_divert *diverts;
	size_t ndiverts;
	struct decl_capture *captures;
	size_t ncaptures;
	struct decl_address_setting *address_settings; /* declaration order */
	size_t naddress_settings;
	struct decl_security_setting *security_settings;
	size_t nsecurity_settings;
	char **paths; /* owned copies of the file paths every pos points to */
	size_t npaths;
	struct decl_index *index; /* private to declarations/: name lookups */
};

/* One YAML file held in memory (for git blobs, tests, fuzzing). */
struct decl_file {
	const char *path; /* used in diagnostics */
	const char *data;
	size_t len;
};

/* Parse and validate the files that together declare one cluster. label
 * names the cluster folder in diagnostics. Every problem (up to the
 * errlist cap) is appended to diags; warnings do not fail the load.
 * Returns 0 and sets *out (owned by the caller) when there is no error;
 * otherwise -1 and *out is untouched. */
int decl_cluster_parse(struct decl_cluster **out, const char *label,
    const struct decl_file *files, size_t nfiles, struct errlist *diags);
/* The same with file_max bytes allowed per file (decl_cluster_load_max). */
int decl_cluster_parse_max(struct decl_cluster **out, const char *label,
    const struct decl_file *files, size_t nfiles, size_t file_max,
    struct errlist *diags);

/* decl_cluster_load with another limit of bytes per file: the agent's own
 * dump (PLAN_DIR/declaration/cluster.yaml) is read with DECL_DUMP_FILE_MAX,
 * as it spells out every default and outgrows DECL_FILE_MAX from about
 * 2,000 queues. */
int decl_cluster_load_max(struct decl_cluster **out, const char *dir,
    size_t file_max, struct errlist *diags);
/* Read every *.yaml / *.yml of dir (sorted by name) and parse them. Each
 * such entry must be a regular file (a symbolic link to one is followed):
 * a dangling link, a link loop, a FIFO, a folder or a device named *.yaml
 * is an error at its path ("c/old.yaml: a FIFO, not a regular file"), and
 * then nothing is parsed, so that nothing is planned without what it
 * declared. */
int decl_cluster_load(struct decl_cluster **out, const char *dir,
    struct errlist *diags);

/* True for a file name that declares a cluster: *.yaml or *.yml, not
 * hidden (a leading '.': .gitlab-ci.yml is no declaration). The one test
 * of it: a folder, a git tree and a plan folder use it alike. */
bool decl_is_yaml_name(const char *name);
/* True when dir directly holds at least one *.yaml / *.yml entry (of any
 * kind: one that is not a regular file is then refused by the load). */
bool decl_dir_is_cluster(const char *dir);

void decl_cluster_free(struct decl_cluster *c); /* NULL is a no-op */

/* Lookups by name; NULL when absent. Pointers are borrowed from c. On a
 * loaded cluster they take O(log n) (a sorted index built by the loader). */
const struct decl_address *decl_cluster_find_address(
    const struct decl_cluster *c, const char *name);
const struct decl_queue *decl_cluster_find_queue(const struct decl_cluster *c,
    const char *name);
/* Whether a divert copy with routing type rt finds a queue on a (the rule
 * behind validation's "Nothing consumes at <address>"). */
bool decl_address_consumes(const struct decl_address *a,
    enum decl_divert_routing rt);
const struct decl_divert *decl_cluster_find_divert(const struct decl_cluster *c,
    const char *name);
const struct decl_node *decl_cluster_find_node(const struct decl_cluster *c,
    const char *name);

/* The JSON Schema (draft 2020-12) of one declaration file, generated from
 * the loader's tables (schema.c): what `artemis-gitops schema` prints and
 * schema/declarations.schema.json holds. Owned, ends with a newline. */
char *decl_schema_json(void);

/* The normalised model as canonical JSON (sorted keys, 2-space indent,
 * trailing newline). Owned by the caller. */
char *decl_cluster_dump(const struct decl_cluster *c);
/* The same text handed to sink in pieces (sbuf_stream), never whole in
 * memory: PLAN_DIR/declaration at 100,000 queues is 50 MB. */
void decl_cluster_dump_stream(const struct decl_cluster *c, sbuf_sink_fn sink,
    void *ctx);

/* The same dump without the nodes' endpoints (each node keeps only its
 * name): what a plan is made from. The Jolokia URLs and credentials file
 * names may differ from one machine to the next (the agent's host, an
 * operator's workstation) without changing the plan; the objects, the
 * node names, the mode and the settings may not. Owned by the caller. */
char *decl_cluster_dump_objects(const struct decl_cluster *c);

/* The declaration's digest: SHA-256 (lower-case hex) of
 * decl_cluster_dump_objects(c). plan.json records it, so an approval
 * covers the declaration apply records as managed. */
void decl_cluster_digest(const struct decl_cluster *c, char hex[SHA256_HEX]);

/* Where delete-if-empty is set for q, as the refusals name it: "delete-if-empty
 * is set (c/orders.yaml:14:7)" for the queue's own key,
 * "settings.delete-if-empty is set (c/cluster.yaml:9:3)" for the cluster's
 * default; NULL when q's effective value is false. Owned. */
char *decl_queue_delete_if_empty_text(const struct decl_cluster *c,
    const struct decl_queue *q);
/* The same for a queue c does not declare: the cluster's default, or
 * NULL when settings.delete-if-empty is false. Owned. */
char *decl_settings_delete_if_empty_text(const struct decl_cluster *c);

/* Building a model in memory (build.c): what `import` makes from brokers
 * or broker.xml files (docs/import.md). Each add copies what it is given;
 * nothing is validated: emit the model and parse the files back for that.
 * A built cluster is freed with decl_cluster_free. */
struct decl_cluster *decl_cluster_new(const char *name, enum decl_mode mode);
/* q and d with every field at its default (names NULL). */
void decl_queue_init(struct decl_queue *q);
void decl_divert_init(struct decl_divert *d);
void decl_cluster_set_settings(struct decl_cluster *c,
    const struct decl_settings *s);
void decl_cluster_add_node(struct decl_cluster *c, const struct decl_node *n);
/* The new address's index in c->addresses. */
size_t decl_cluster_add_address(struct decl_cluster *c, const char *name,
    unsigned routing);
/* A copy of q into address ai (q->address is ignored: the address's). */
void decl_cluster_add_queue(struct decl_cluster *c, size_t ai,
    const struct decl_queue *q);
void decl_cluster_add_divert(struct decl_cluster *c,
    const struct decl_divert *d);
/* Is every setting of a and b the same (names and addresses included;
 * NULL and "" alike; a divert's routing name defaults to its name)? */
bool decl_queue_same(const struct decl_queue *a, const struct decl_queue *b);
bool decl_divert_same(const struct decl_divert *a, const struct decl_divert *b);
/* Why name cannot be an object's name in a declaration (owned: "contains
 * ','", ...), or NULL when it can: the loader's own rule. */
char *decl_object_name_problem(const char *name);

/* Writing a model as YAML (emit.c). */
#define DECL_EMIT_PER_FILE   1000                 /* addresses or diverts */
#define DECL_EMIT_FILE_BYTES ((size_t)256 * 1024) /* a file's soft size */
struct decl_emit_opts {
	size_t addresses_per_file; /* 0: DECL_EMIT_PER_FILE */
	const char *header; /* comment lines atop cluster.yaml, or NULL */
};
struct decl_emit_file {
	char *name; /* "cluster.yaml", "addresses.yaml", "diverts-002.yaml" */
	char *text;
	size_t len;
};
/* c as the files of a cluster folder: cluster.yaml (version, cluster,
 * mode, nodes, and settings and captures where they differ from their
 * defaults), then addresses*.yaml and diverts*.yaml, every list sorted by
 * name and every setting written only where it differs from its default.
 * Deterministic: the same model gives the same bytes. -1 (err set) when
 * one object alone outgrows DECL_FILE_MAX or the files outnumber
 * DECL_FILES_MAX. */
struct sbuf;
int decl_cluster_emit(const struct decl_cluster *c,
    const struct decl_emit_opts *o, struct decl_emit_file **out, size_t *nout,
    struct err *err);
void decl_emit_files_free(struct decl_emit_file *f, size_t n);
/* s as a YAML scalar the loader reads back as s: plain when that is
 * unambiguous (a letter or '_', then letters, digits and "_.-/", and not
 * a word such as true or null), else double-quoted with escapes. */
void decl_yaml_scalar(struct sbuf *b, const char *s);

/* Names and parsing of the enums, shared with reconcile/. */
const char *decl_mode_name(enum decl_mode m);
/* One routing type as declarations and snapshots spell it ("anycast",
 * "multicast"), and as Artemis does ("ANYCAST", "MULTICAST"); "?" for
 * anything but one of the two. */
const char *decl_routing_name(unsigned one_routing);
const char *decl_routing_artemis_name(unsigned one_routing);
/* Either spelling ("anycast" or "ANYCAST"); -1 for anything else. A
 * declaration takes the lower case only: compare with decl_routing_name. */
int decl_routing_parse(const char *s, unsigned *out);
/* The routing types of a set, anycast first, in either spelling, joined
 * by sep ("ANYCAST,MULTICAST"; "" for the empty set). Owned. */
char *decl_routing_set_join(unsigned set, bool artemis, const char *sep);
/* The routing type of set that follows after (0: the first), 0 after the
 * last: for (r = 0; (r = decl_routing_set_next(set, r)) != 0;) ... */
unsigned decl_routing_set_next(unsigned set, unsigned after);
const char *decl_divert_routing_name(enum decl_divert_routing r); /* "STRIP" */
/* "delete", "retain"; parse: -1 for anything else. */
const char *decl_deletion_policy_name(enum decl_deletion_policy p);
int decl_deletion_policy_parse(const char *s, enum decl_deletion_policy *out);
/* The first of patterns[0..n) (settings.protect globs) that name matches,
 * or NULL. */
const char *decl_protect_match(const char *const *patterns, size_t n,
    const char *name);
int decl_divert_routing_parse(const char *s, enum decl_divert_routing *out);

/* The address-settings enums as declarations and Artemis spell them
 * ("PAGE", "FORCE"), NULL for _UNSET and anything out of range; parse:
 * -1 for anything but a name. */
const char *decl_full_policy_name(enum decl_full_policy p);
int decl_full_policy_parse(const char *s, enum decl_full_policy *out);
const char *decl_config_delete_name(enum decl_config_delete p);
int decl_config_delete_parse(const char *s, enum decl_config_delete *out);
/* A permission's key in a declaration ("create-durable-queue") and its
 * Artemis type, as broker.xml's <permission type> spells it
 * ("createDurableQueue"); "?" out of range. */
const char *decl_permission_name(enum decl_permission p);
const char *decl_permission_artemis_name(enum decl_permission p);

/* Why match cannot be an address-settings or security-settings match
 * with wildcard delimiter delim (owned: "has an empty word", "'#' is
 * not its last word", ...), or NULL when it can. */
char *decl_match_problem(const char *match, char delim);
/* Whether match (one decl_match_problem accepts) matches address. */
bool decl_match_address(const char *match, const char *address, char delim);
/* The address setting of c whose match is match, or NULL. */
const struct decl_address_setting *decl_cluster_find_address_setting(
    const struct decl_cluster *c, const char *match);
const struct decl_security_setting *decl_cluster_find_security_setting(
    const struct decl_cluster *c, const char *match);

/* True when name is an XML NCName (what broker.xml's xsd:ID demands). */
bool decl_is_ncname(const char *name);
/* Glob match used by captures: '*' any run, '?' one character. */
bool decl_glob_match(const char *pattern, const char *s);

#endif
