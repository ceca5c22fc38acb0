/* declarations/load.c: YAML trees of one cluster's files to the model.
 *
 * Every file needs `version`; `cluster` and `mode` must appear in at least
 * one file and agree wherever they appear; `settings` appears at most once
 * per cluster; `nodes`, `addresses`, `diverts` and `captures` concatenate
 * in file order. The cross-object rules (check.c) run only once every file
 * loaded without error, so that a broken object never cascades into
 * misleading findings. */
#include "decl-int.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/xalloc.h"

/* A head key seen in an earlier file (each file's tree is freed once it
 * is loaded, so the value and its place are copied). */
struct yseen {
	bool set;
	char *str;
	struct pos pos;
};

struct load {
	struct decl_cluster *c;
	struct errlist *diags;
	struct yseen cluster_at, mode_at, settings_at;
	size_t nobjects;
	bool too_many;
	bool cluster_seen, mode_seen; /* present, even if invalid */
};

/* A row: FLD(struct, key, type, member, required, extras...) and FINT
 * for integers; the extras are designated members of struct decl_field
 * (DESC, DEF, DEF_STR, SUB, ...), each optional. */
#define FLD(s, k, t, m, req, ...)                                              \
	{                                                                      \
		.key = (k), .type = (t), .off = offsetof(struct s, m),         \
		.required = (req), __VA_ARGS__                                 \
	}
#define FINT(s, k, m, lo, hi, nz, txt, ...)                                    \
	{                                                                      \
		.key = (k), .type = DECL_FIELD_INT,                            \
		.off = offsetof(struct s, m), .min = (lo), .max = (hi),        \
		.no_zero = (nz), .range = (txt), __VA_ARGS__                   \
	}
/* A key its caller parses: a list or mapping of sub-table t, or a value
 * of type ty. */
#define FLIST(k, t, ...)                                                       \
	{                                                                      \
		.key = (k), .type = DECL_FIELD_LIST, .outer = true,            \
		.sub = (t), __VA_ARGS__                                        \
	}
#define FMAP(k, t, ...)                                                        \
	{                                                                      \
		.key = (k), .type = DECL_FIELD_MAP, .outer = true, .sub = (t), \
		__VA_ARGS__                                                    \
	}
#define FOUTER(k, ty, ...)                                                     \
	{                                                                      \
		.key = (k), .type = (ty), .outer = true, __VA_ARGS__           \
	}
#define DESC(d)    .desc = (d)
#define DEF(v)     .has_default = true, .def = (v)
#define DEF_STR(v) .has_default = true, .def_str = (v)
#define TABLE(name, what, d, tab)                                              \
	static const struct decl_table name = {what, d, tab,                   \
	    sizeof(tab) / sizeof((tab)[0])}

#define POLICY_DESC                                                            \
	"What a plan does when this object leaves the declaration: delete "    \
	"it (ADR-0084 for queues) or retain it (forgotten, never "             \
	"destroyed). docs/policy.md."
#define MANAGED_DESC                                                           \
	"false: the agent neither creates, changes nor deletes this object "   \
	"(and, on an address, its queues that say nothing else). "             \
	"docs/policy.md."

static const struct decl_field member_tab[] = {
    FLD(decl_member, "name", DECL_FIELD_FILENAME, name, true,
        DESC("The member's name, unique in its node: letters, digits, '.', "
             "'_' and '-'.")),
    FLD(decl_member, "jolokia", DECL_FIELD_URL, jolokia, true,
        DESC("The member broker's Jolokia endpoint, "
             "http(s)://host[:port]/path; no user or password in it.")),
    FLD(decl_member, "credentials", DECL_FIELD_CREDENTIALS, credentials, false,
        DESC("The name of a file of the credentials folder holding "
             "user:password for this member; default: the node's. Never a "
             "secret itself.")),
};
TABLE(member_table, "member",
    "One broker of an HA node (a primary and its backups).", member_tab);

/* jolokia and credentials are required of a node without members; with
 * members the node has no endpoint of its own, and credentials is the
 * default of the members that name none (load_members). */
static const struct decl_field node_tab[] = {
    FLD(decl_node, "name", DECL_FIELD_FILENAME, name, true,
        DESC("The node's name, unique in the cluster: letters, digits, '.', "
             "'_' and '-' (not starting with '.').")),
    FLD(decl_node, "jolokia", DECL_FIELD_URL, jolokia, false,
        DESC("The broker's Jolokia endpoint, http(s)://host[:port]/path; no "
             "user or password in it. Required unless the node has "
             "members, refused when it has.")),
    FLD(decl_node, "credentials", DECL_FIELD_CREDENTIALS, credentials, false,
        DESC("The name of a file of the credentials folder holding "
             "user:password (never the secret itself). Required unless the "
             "node has members, and then the members' default.")),
    FLIST("members", &member_table,
        DESC("An HA node: its 2 to 4 brokers sharing one NodeID, each read "
             "on its own; the live one is the node. docs/ha-pairs.md."),
        .max_items = DECL_MEMBERS_MAX),
};
TABLE(node_table, "node",
    "One node of the cluster: a broker, or an HA node of members.", node_tab);

static const struct decl_field queue_tab[] = {
    FLD(decl_queue, "name", DECL_FIELD_NAME, name, true,
        DESC("The queue's name, unique in the cluster.")),
    FLD(decl_queue, "routing", DECL_FIELD_ROUTING_ONE, routing, false,
        DESC("anycast or multicast; default: the address's routing type "
             "when it has one only (required when it allows both).")),
    FLD(decl_queue, "durable", DECL_FIELD_BOOL, durable, false,
        DESC("Messages survive a broker restart."), DEF(1)),
    FLD(decl_queue, "filter", DECL_FIELD_STR_OPT, filter, false,
        DESC("A message selector (filter expression); null or empty: "
             "none.")),
    FINT(decl_queue, "max-consumers", max_consumers, -1, INT32_MAX, false,
        "-1 (unlimited) or more",
        DESC("Consumers the queue accepts at once; -1: unlimited."), DEF(-1)),
    FLD(decl_queue, "purge-on-no-consumers", DECL_FIELD_BOOL,
        purge_on_no_consumers, false,
        DESC("Messages are removed when the last consumer leaves."), DEF(0)),
    FLD(decl_queue, "exclusive", DECL_FIELD_BOOL, exclusive, false,
        DESC("One consumer at a time receives every message."), DEF(0)),
    FINT(decl_queue, "ring-size", ring_size, -1, INT64_MAX, true,
        "-1 (unbounded) or at least 1",
        DESC("A ring queue of this many messages; -1: not a ring."), DEF(-1)),
    FLD(decl_queue, "enabled", DECL_FIELD_BOOL, enabled, false,
        DESC("false: the queue takes no messages from its address."), DEF(1)),
    FLD(decl_queue, "last-value-key", DECL_FIELD_STR_OPT, last_value_key, false,
        DESC("A last-value queue on this property; null or empty: not "
             "one.")),
    FINT(decl_queue, "consumers-before-dispatch", consumers_before_dispatch, 0,
        INT32_MAX, false, "0 or more",
        DESC("Consumers that must attach before messages are dispatched."),
        DEF(0)),
    FINT(decl_queue, "delay-before-dispatch", delay_before_dispatch, -1,
        INT64_MAX, false, "-1 (none) or more",
        DESC("Milliseconds to wait for consumers-before-dispatch before "
             "dispatching anyway; -1: no delay."),
        DEF(-1)),
    FLD(decl_queue, "delete-if-empty", DECL_FIELD_BOOL, delete_if_empty, false,
        DESC("A plan deletes this queue only while it holds no message; "
             "default: settings.delete-if-empty. docs/policy.md.")),
    /* per-object policy (docs/policy.md) */
    FLD(decl_queue, "deletion-policy", DECL_FIELD_DELETION_POLICY,
        policy.deletion, false, DESC(POLICY_DESC " Default: the address's.")),
    FLD(decl_queue, "managed", DECL_FIELD_BOOL_NOT, policy.unmanaged, false,
        DESC(MANAGED_DESC " Default: the address's.")),
};
TABLE(queue_table, "queue", "A queue bound to its address.", queue_tab);

static const struct decl_field address_tab[] = {
    FLD(decl_address, "name", DECL_FIELD_NAME, name, true,
        DESC("The address's name, unique in the cluster.")),
    FLD(decl_address, "routing", DECL_FIELD_ROUTING_SET, routing, true,
        DESC("The routing types the address allows: [anycast], "
             "[multicast] or both.")),
    FLIST("queues", &queue_table, DESC("The queues bound to this address.")),
    /* per-object policy (docs/policy.md) */
    FLD(decl_address, "deletion-policy", DECL_FIELD_DELETION_POLICY,
        policy.deletion, false, DESC(POLICY_DESC), DEF(DECL_DELETE)),
    FLD(decl_address, "managed", DECL_FIELD_BOOL_NOT, policy.unmanaged, false,
        DESC(MANAGED_DESC), DEF(1)),
};
TABLE(address_table, "address", "An address and its queues.", address_tab);

static const struct decl_field divert_tab[] = {
    FLD(decl_divert, "name", DECL_FIELD_NAME, name, true,
        DESC("The divert's name, unique in the cluster.")),
    FLD(decl_divert, "address", DECL_FIELD_NAME, address, true,
        DESC("The address whose messages are diverted.")),
    FLD(decl_divert, "forwarding-address", DECL_FIELD_STR, forwarding_address,
        true, DESC("The address the messages are forwarded to.")),
    FLD(decl_divert, "exclusive", DECL_FIELD_BOOL, exclusive, false,
        DESC("The messages go to the forwarding address only, not to the "
             "original one."),
        DEF(0)),
    FLD(decl_divert, "filter", DECL_FIELD_STR_OPT, filter, false,
        DESC("Only messages matching this filter expression are diverted; "
             "null or empty: all.")),
    FLD(decl_divert, "routing-type", DECL_FIELD_DIVERT_ROUTING, routing_type,
        false, DESC("The routing type of the diverted messages."),
        DEF(DECL_DIVERT_STRIP)),
    FLD(decl_divert, "routing-name", DECL_FIELD_STR_OPT, routing_name, false,
        DESC("The divert's routing name; default: its name.")),
    FLD(decl_divert, "transformer-class-name", DECL_FIELD_STR_OPT,
        transformer_class_name, false,
        DESC("A Transformer class applied to diverted messages; null or "
             "empty: none.")),
    {.key = "transformer-properties",
        .type = DECL_FIELD_KEY_VALUES,
        .off = offsetof(struct decl_divert, transformer_properties),
        .off_n = offsetof(struct decl_divert, ntransformer_properties),
        DESC("The transformer's properties: a mapping of names to single "
             "values.")},
    /* per-object policy (docs/policy.md) */
    FLD(decl_divert, "deletion-policy", DECL_FIELD_DELETION_POLICY,
        policy.deletion, false, DESC(POLICY_DESC), DEF(DECL_DELETE)),
    FLD(decl_divert, "managed", DECL_FIELD_BOOL_NOT, policy.unmanaged, false,
        DESC(MANAGED_DESC), DEF(1)),
};
TABLE(divert_table, "divert",
    "A divert: messages of one address forwarded to another.", divert_tab);

static const struct decl_field capture_tab[] = {
    FLD(decl_capture, "name", DECL_FIELD_STR, name, true,
        DESC("The capture's name.")),
    FLD(decl_capture, "pattern", DECL_FIELD_STR, pattern, true,
        DESC("The addresses whose messages are captured (a glob: '*' any "
             "run, '?' one character). docs/captures.md.")),
    FINT(decl_capture, "ring-size", ring_size, 1, INT64_MAX, false,
        "at least 1", DESC("Messages the capture keeps, newest last."),
        DEF(DECL_DEFAULT_CAPTURE_RING)),
};
TABLE(capture_table, "capture",
    "A capture tap: copies of an address's messages kept in a ring queue "
    "(docs/captures.md).",
    capture_tab);

/* Address settings (docs/declarations.md, "address-settings"): each key
 * optional and kept unset when not written (Artemis merges the matches of
 * an address, the most specific first), so no row has a default: each
 * description says Artemis's. */
#define FMEASURE(s, k, t, m, lo, hi, txt, ...)                                 \
	{                                                                      \
		.key = (k), .type = (t), .off = offsetof(struct s, m),         \
		.min = (lo), .max = (hi), .range = (txt), .unset = true,       \
		__VA_ARGS__                                                    \
	}
#define FENUM(s, k, m, names, ...)                                             \
	{                                                                      \
		.key = (k), .type = DECL_FIELD_ENUM,                           \
		.off = offsetof(struct s, m), .enum_name = (names),            \
		__VA_ARGS__                                                    \
	}
#define INHERITED                                                              \
	" Not written: inherited from a less specific match, else Artemis's "  \
	"default, "

static const char *
full_policy_at(int i)
{
	return decl_full_policy_name((enum decl_full_policy)i);
}

static const char *
config_delete_at(int i)
{
	return decl_config_delete_name((enum decl_config_delete)i);
}

static const struct decl_field address_setting_tab[] = {
    FLD(decl_address_setting, "match", DECL_FIELD_STR, match, true,
        DESC("The addresses these settings apply to: an address, or words "
             "split by the wildcard delimiter with '*' any one word and "
             "'#' any words (last only); '#' alone is every address. "
             "Unique among address-settings.")),
    FLD(decl_address_setting, "dead-letter-address", DECL_FIELD_NAME,
        dead_letter_address, false,
        DESC("Where a message goes after max-delivery-attempts failed "
             "deliveries; a declared address." INHERITED "none.")),
    FLD(decl_address_setting, "expiry-address", DECL_FIELD_NAME, expiry_address,
        false,
        DESC("Where an expired message goes; a declared "
             "address." INHERITED "none.")),
    FMEASURE(decl_address_setting, "max-delivery-attempts", DECL_FIELD_INT,
        max_delivery_attempts, -1, INT32_MAX, "-1 (no limit) or more",
        DESC("Deliveries of a message before it goes to the "
             "dead-letter-address; -1: no limit." INHERITED "10.")),
    FMEASURE(decl_address_setting, "redelivery-delay", DECL_FIELD_DURATION,
        redelivery_delay, 0, INT64_MAX, "0 or more milliseconds",
        DESC("The wait before a message is delivered again: an integer "
             "of milliseconds, or 500ms, 5s, 2m, 1h." INHERITED "0.")),
    FMEASURE(decl_address_setting, "max-size-bytes", DECL_FIELD_SIZE,
        max_size_bytes, -1, INT64_MAX, "-1 (no limit) or more bytes",
        DESC("The memory an address may hold before address-full-policy "
             "applies: an integer of bytes, or 10MB, 512KiB, 1G (powers "
             "of 1024, as Artemis reads them); -1: no limit." INHERITED "-1.")),
    FENUM(decl_address_setting, "address-full-policy", address_full_policy,
        full_policy_at,
        DESC("What happens past max-size-bytes: PAGE to disk, DROP the "
             "messages, BLOCK the producers, FAIL the sends." INHERITED
             "PAGE.")),
    FLD(decl_address_setting, "auto-create-queues", DECL_FIELD_TRI,
        auto_create_queues, false,
        DESC("A queue is created when a client sends or consumes on one "
             "that does not exist." INHERITED "true.")),
    FLD(decl_address_setting, "auto-create-addresses", DECL_FIELD_TRI,
        auto_create_addresses, false,
        DESC("An address is created when a client sends or consumes on one "
             "that does not exist." INHERITED "true.")),
    FLD(decl_address_setting, "auto-delete-queues", DECL_FIELD_TRI,
        auto_delete_queues, false,
        DESC("An auto-created queue is deleted once it has no consumer "
             "and no message." INHERITED "true.")),
    FLD(decl_address_setting, "auto-delete-addresses", DECL_FIELD_TRI,
        auto_delete_addresses, false,
        DESC("An auto-created address is deleted once it has no "
             "queue." INHERITED "true.")),
    FENUM(decl_address_setting, "config-delete-queues", config_delete_queues,
        config_delete_at,
        DESC("FORCE: a broker.xml reload deletes the configured queues the "
             "file no longer holds; OFF: it keeps them." INHERITED "OFF.")),
    FENUM(decl_address_setting, "config-delete-addresses",
        config_delete_addresses, config_delete_at,
        DESC("FORCE: a broker.xml reload deletes the addresses the file no "
             "longer holds; OFF: it keeps them." INHERITED "OFF.")),
    FENUM(decl_address_setting, "config-delete-diverts", config_delete_diverts,
        config_delete_at,
        DESC("FORCE: a broker.xml reload deletes the diverts the file no "
             "longer holds; OFF: they come back from the journal." INHERITED
             "OFF.")),
};
TABLE(address_setting_table, "address-settings",
    "Address settings for one match (Artemis <address-setting>).",
    address_setting_tab);

/* Security settings: a permission not written is held by no role. */
#define FPERM(p, k, txt)                                                       \
	{                                                                      \
		.key = (k), .type = DECL_FIELD_ROLES,                          \
		.off = offsetof(struct decl_security_setting, perm[p]),        \
		.max_items = DECL_ROLES_MAX,                                   \
		DESC("The roles that may " txt "; none when not written."),    \
	}
static const struct decl_field security_setting_tab[] = {
    FLD(decl_security_setting, "match", DECL_FIELD_STR, match, true,
        DESC("The addresses these permissions apply to: an address, or "
             "words split by the wildcard delimiter with '*' any one word "
             "and '#' any words (last only). The most specific match of "
             "an address holds all of its permissions. Unique among "
             "security-settings.")),
    FPERM(DECL_PERM_SEND, "send", "send messages (Artemis send)"),
    FPERM(DECL_PERM_CONSUME, "consume", "consume messages (consume)"),
    FPERM(DECL_PERM_CREATE_DURABLE_QUEUE, "create-durable-queue",
        "create durable queues (createDurableQueue)"),
    FPERM(DECL_PERM_DELETE_DURABLE_QUEUE, "delete-durable-queue",
        "delete durable queues (deleteDurableQueue)"),
    FPERM(DECL_PERM_CREATE_NON_DURABLE_QUEUE, "create-non-durable-queue",
        "create non-durable queues (createNonDurableQueue)"),
    FPERM(DECL_PERM_DELETE_NON_DURABLE_QUEUE, "delete-non-durable-queue",
        "delete non-durable queues (deleteNonDurableQueue)"),
    FPERM(DECL_PERM_CREATE_ADDRESS, "create-address",
        "create addresses (createAddress)"),
    FPERM(DECL_PERM_DELETE_ADDRESS, "delete-address",
        "delete addresses (deleteAddress)"),
    FPERM(DECL_PERM_MANAGE, "manage", "send management messages (manage)"),
    FPERM(DECL_PERM_BROWSE, "browse", "browse queues (browse)"),
};
TABLE(security_setting_table, "security-settings",
    "The roles of each permission for one match (Artemis "
    "<security-setting>).",
    security_setting_tab);

static const struct decl_field settings_tab[] = {
    FLD(decl_settings, "capture-prefix", DECL_FIELD_NAME, capture_prefix, false,
        DESC("The prefix of the capture taps' addresses and queues, which "
             "plans leave alone."),
        DEF_STR(DECL_DEFAULT_CAPTURE_PREFIX)),
    FINT(decl_settings, "max-destroyed-messages", max_destroyed_messages, 0,
        INT64_MAX, false, "0 or more",
        DESC("A plan whose queue deletes would destroy more messages than "
             "this is refused (ADR-0084)."),
        DEF(DECL_DEFAULT_MAX_DESTROYED)),
    FLD(decl_settings, "delete-if-empty", DECL_FIELD_BOOL, delete_if_empty,
        false,
        DESC("The default of every queue's delete-if-empty: queues are "
             "deleted only while they hold no message."),
        DEF(0)),
    /* names no plan may delete (docs/policy.md): load_protect */
    FOUTER("protect", DECL_FIELD_NAME_LIST,
        DESC("Names no plan may delete: globs ('*' any run, '?' one "
             "character), each at most once. docs/policy.md."),
        .max_items = DECL_PROTECT_MAX),
    FLD(decl_settings, "wildcard-delimiter", DECL_FIELD_DELIM,
        wildcard_delimiter, false,
        DESC("The wildcard delimiter the brokers are configured with "
             "(broker.xml <wildcard-addresses><delimiter>): what splits "
             "the words of an address-settings or security-settings match. "
             "One punctuation character other than '#' and '*'."),
        DEF_STR(DECL_DEFAULT_DELIM)),
};
TABLE(settings_table, "settings",
    "The cluster's settings, declared once per cluster.", settings_tab);

static const struct decl_field top_tab[] = {
    FOUTER("version", DECL_FIELD_INT, .required = true, .min = 1,
        .max = DECL_VERSION_MAX,
        DESC("The format version this file is written in; every file "
             "declares it.")),
    FOUTER("cluster", DECL_FIELD_FILENAME,
        DESC("The cluster's name: letters, digits, '.', '_' and '-'. "
             "Declared in at least one of its files, the same wherever "
             "it is.")),
    FOUTER("mode", DECL_FIELD_MODE,
        DESC("STUDIO_MANAGED: the agent changes the brokers through "
             "Jolokia; CONFIG_MANAGED: it renders broker.xml "
             "(docs/config-managed.md). Declared in at least one file.")),
    FMAP("settings", &settings_table, DESC("Declared in one file at most.")),
    FLIST("nodes", &node_table,
        DESC("The cluster's nodes; the files' lists are joined."),
        .max_items = DECL_NODES_MAX),
    FLIST("addresses", &address_table,
        DESC("Addresses and their queues; the files' lists are joined.")),
    FLIST("diverts", &divert_table,
        DESC("Diverts; the files' lists are joined.")),
    FLIST("captures", &capture_table,
        DESC("Capture taps; the files' lists are joined.")),
    FLIST("address-settings", &address_setting_table,
        DESC("Address settings per match; the files' lists are joined."),
        .max_items = DECL_SETTINGS_MAX),
    FLIST("security-settings", &security_setting_table,
        DESC("Security settings per match; the files' lists are joined."),
        .max_items = DECL_SETTINGS_MAX),
};
const struct decl_table decl_top_table = {"the top level",
    "One file of a cluster's declaration (docs/declarations.md). A cluster "
    "is the folder of its *.yaml and *.yml files.",
    top_tab, sizeof(top_tab) / sizeof(top_tab[0])};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* The items of a list-valued key; null counts as empty. Returns -1 when v
 * is not a list. */
static int
want_list(struct load *l, const struct decl_yaml_node *v, const char *key)
{
	if (v == NULL || decl_yaml_node_is_null(v))
		return 0;
	if (v->kind != DECL_YAML_SEQ)
		return errlist_add(l->diags, DIAG_ERROR, &v->pos,
		    "'%s' must be a list, not %s", key, decl_yaml_kind_name(v));
	return 0;
}

static size_t
nitems(const struct decl_yaml_node *v)
{
	return v == NULL || v->kind != DECL_YAML_SEQ ? 0 : v->n;
}

/* Count declared objects against DECL_OBJECTS_MAX; -1 past it. */
static int
count_object(struct load *l, const struct decl_yaml_node *at)
{
	if (++l->nobjects <= DECL_OBJECTS_MAX)
		return 0;
	if (!l->too_many)
		errlist_add(l->diags, DIAG_ERROR, &at->pos,
		    "more than %d addresses, queues and diverts in one cluster",
		    DECL_OBJECTS_MAX);
	l->too_many = true;
	return -1;
}

/* The members of node nd (map v): an HA node, or a node with an endpoint
 * of its own; never both, never neither. */
static void
load_members(struct load *l, struct decl_node *nd,
    const struct decl_yaml_node *v)
{
	const struct decl_yaml_node *ms = decl_yaml_map_get(v, "members");
	const char *who = nd->name != NULL ? nd->name : "?";
	struct decl_member *m;
	size_t i, j;

	if (ms == NULL) {
		if (decl_yaml_map_get(v, "jolokia") == NULL)
			errlist_add(l->diags, DIAG_ERROR, &v->pos,
			    "missing required key 'jolokia' in node (or 'members', for an HA pair)");
		if (decl_yaml_map_get(v, "credentials") == NULL)
			errlist_add(l->diags, DIAG_ERROR, &v->pos,
			    "missing required key 'credentials' in node");
		return;
	}
	if (decl_yaml_map_get(v, "jolokia") != NULL) {
		errlist_add(l->diags, DIAG_ERROR,
		    &decl_yaml_map_get(v, "jolokia")->pos,
		    "node '%s' has both 'jolokia' and 'members': an HA node is reached through its members' endpoints only",
		    who);
		return;
	}
	if (want_list(l, ms, "members") < 0)
		return;
	if (ms->n < 2 || ms->n > DECL_MEMBERS_MAX) {
		errlist_add(l->diags, DIAG_ERROR, &ms->pos,
		    "node '%s' has %zu member%s: an HA node has 2 to %d (a primary and its backups)",
		    who, ms->n, ms->n == 1 ? "" : "s", DECL_MEMBERS_MAX);
		return;
	}
	nd->members = xcalloc(ms->n, sizeof(*nd->members));
	for (i = 0; i < ms->n; i++) {
		m = &nd->members[nd->nmembers++];
		m->pos = ms->vals[i]->pos;
		decl_fields_defaults(m, member_tab, NELEM(member_tab));
		if (decl_fields_parse(m, ms->vals[i], "member", member_tab,
		        NELEM(member_tab), l->diags) == 0 &&
		    m->credentials == NULL && nd->credentials == NULL)
			errlist_add(l->diags, DIAG_ERROR, &m->pos,
			    "member '%s' of node '%s' has no 'credentials' and neither has the node",
			    m->name, who);
		for (j = 0; m->name != NULL && j + 1 < nd->nmembers; j++)
			if (nd->members[j].name != NULL &&
			    strcmp(nd->members[j].name, m->name) == 0)
				errlist_add(l->diags, DIAG_ERROR, &m->pos,
				    "duplicate member name '%s' in node '%s' (first declared at %s:%u:%u)",
				    m->name, who, nd->members[j].pos.path,
				    nd->members[j].pos.line,
				    nd->members[j].pos.col);
	}
}

static void
load_nodes(struct load *l, const struct decl_yaml_node *v)
{
	struct decl_cluster *c = l->c;
	size_t i;

	if (want_list(l, v, "nodes") < 0 || nitems(v) == 0)
		return;
	c->nodes = xreallocarray(c->nodes, c->nnodes + v->n, sizeof(*c->nodes));
	for (i = 0; i < v->n; i++) {
		struct decl_node *nd;

		if (c->nnodes == DECL_NODES_MAX) {
			errlist_add(l->diags, DIAG_ERROR, &v->vals[i]->pos,
			    "more than %d nodes in one cluster",
			    DECL_NODES_MAX);
			return;
		}
		nd = &c->nodes[c->nnodes++];
		memset(nd, 0, sizeof(*nd));
		nd->pos = v->vals[i]->pos;
		decl_fields_defaults(nd, node_tab, NELEM(node_tab));
		if (decl_fields_parse(nd, v->vals[i], "node", node_tab,
		        NELEM(node_tab), l->diags) < 0 &&
		    v->vals[i]->kind != DECL_YAML_MAP)
			continue;
		load_members(l, nd, v->vals[i]);
	}
}

/* Where the object's own policy keys were written (map v). */
static void
policy_at(struct decl_policy *p, const struct decl_yaml_node *v)
{
	const struct decl_yaml_node *k;

	k = decl_yaml_map_get(v, "deletion-policy");
	if (k != NULL)
		p->deletion_at = k->pos;
	k = decl_yaml_map_get(v, "managed");
	if (k != NULL)
		p->managed_at = k->pos;
}

static void
load_queue(struct load *l, struct decl_address *a, struct decl_queue *q,
    const struct decl_yaml_node *v)
{
	memset(q, 0, sizeof(*q));
	q->pos = v->pos;
	q->address = a->name;
	decl_fields_defaults(q, queue_tab, NELEM(queue_tab));
	/* a queue takes its address's policy unless it writes its own */
	q->policy.deletion = a->policy.deletion;
	q->policy.unmanaged = a->policy.unmanaged;
	if (decl_fields_parse(q, v, "queue", queue_tab, NELEM(queue_tab),
	        l->diags) < 0)
		return;
	policy_at(&q->policy, v);
	decl_delete_if_empty_key(&q->delete_if_empty_at, v);
	if (q->routing != 0 || a->routing == 0 || a->name == NULL)
		return;
	if (a->routing == DECL_ANYCAST || a->routing == DECL_MULTICAST)
		q->routing = a->routing;
	else
		errlist_add(l->diags, DIAG_ERROR, &v->pos,
		    "queue '%s' needs 'routing': address '%s' allows anycast "
		    "and multicast",
		    q->name, a->name);
}

static void
load_address(struct load *l, struct decl_address *a,
    const struct decl_yaml_node *v)
{
	const struct decl_yaml_node *qs;
	size_t i;

	memset(a, 0, sizeof(*a));
	a->pos = v->pos;
	decl_fields_defaults(a, address_tab, NELEM(address_tab));
	if (decl_fields_parse(a, v, "address", address_tab, NELEM(address_tab),
	        l->diags) < 0 &&
	    v->kind != DECL_YAML_MAP)
		return;
	policy_at(&a->policy, v);
	qs = decl_yaml_map_get(v, "queues");
	if (want_list(l, qs, "queues") < 0 || nitems(qs) == 0)
		return;
	a->queues = xcalloc(qs->n, sizeof(*a->queues));
	for (i = 0; i < qs->n; i++) {
		if (count_object(l, qs->vals[i]) < 0)
			return;
		load_queue(l, a, &a->queues[a->nqueues++], qs->vals[i]);
	}
}

static void
load_addresses(struct load *l, const struct decl_yaml_node *v)
{
	struct decl_cluster *c = l->c;
	size_t i;

	if (want_list(l, v, "addresses") < 0 || nitems(v) == 0)
		return;
	c->addresses = xreallocarray(c->addresses, c->naddresses + v->n,
	    sizeof(*c->addresses));
	for (i = 0; i < v->n; i++) {
		if (count_object(l, v->vals[i]) < 0)
			return;
		load_address(l, &c->addresses[c->naddresses++], v->vals[i]);
	}
}

static void
load_diverts(struct load *l, const struct decl_yaml_node *v)
{
	struct decl_cluster *c = l->c;
	size_t i;

	if (want_list(l, v, "diverts") < 0 || nitems(v) == 0)
		return;
	c->diverts =
	    xreallocarray(c->diverts, c->ndiverts + v->n, sizeof(*c->diverts));
	for (i = 0; i < v->n; i++) {
		struct decl_divert *d;

		if (count_object(l, v->vals[i]) < 0)
			return;
		d = &c->diverts[c->ndiverts++];
		memset(d, 0, sizeof(*d));
		d->pos = v->vals[i]->pos;
		decl_fields_defaults(d, divert_tab, NELEM(divert_tab));
		decl_fields_parse(d, v->vals[i], "divert", divert_tab,
		    NELEM(divert_tab), l->diags);
		policy_at(&d->policy, v->vals[i]);
		if (d->routing_name == NULL && d->name != NULL)
			d->routing_name = xstrdup(d->name);
	}
}

static void
load_captures(struct load *l, const struct decl_yaml_node *v)
{
	struct decl_cluster *c = l->c;
	size_t i;

	if (want_list(l, v, "captures") < 0 || nitems(v) == 0)
		return;
	c->captures = xreallocarray(c->captures, c->ncaptures + v->n,
	    sizeof(*c->captures));
	for (i = 0; i < v->n; i++) {
		struct decl_capture *cp;

		cp = &c->captures[c->ncaptures++];
		memset(cp, 0, sizeof(*cp));
		cp->pos = v->vals[i]->pos;
		decl_fields_defaults(cp, capture_tab, NELEM(capture_tab));
		decl_fields_parse(cp, v->vals[i], "capture", capture_tab,
		    NELEM(capture_tab), l->diags);
	}
}

/* The list item v's match: where its value was written (the item when
 * it has none: its missing key is reported there). */
static struct pos
match_pos(const struct decl_yaml_node *v)
{
	const struct decl_yaml_node *m = decl_yaml_map_get(v, "match");

	return m != NULL ? m->pos : v->pos;
}

/* Where map v writes key's value, when it does. */
static void
key_at(struct pos *at, const struct decl_yaml_node *v, const char *key)
{
	const struct decl_yaml_node *k = decl_yaml_map_get(v, key);

	if (k != NULL)
		*at = k->pos;
}

/* More than DECL_SETTINGS_MAX of one kind: -1, said once. */
static int
settings_room(struct load *l, size_t have, size_t more,
    const struct decl_yaml_node *v, const char *key)
{
	if (have + more <= DECL_SETTINGS_MAX)
		return 0;
	return errlist_add(l->diags, DIAG_ERROR, &v->pos,
	    "more than %d %s in one cluster", DECL_SETTINGS_MAX, key);
}

static void
load_address_settings(struct load *l, const struct decl_yaml_node *v)
{
	struct decl_cluster *c = l->c;
	struct decl_address_setting *as;
	size_t i;

	if (want_list(l, v, "address-settings") < 0 || nitems(v) == 0 ||
	    settings_room(l, c->naddress_settings, v->n, v,
	        "address-settings") < 0)
		return;
	c->address_settings = xreallocarray(c->address_settings,
	    c->naddress_settings + v->n, sizeof(*c->address_settings));
	for (i = 0; i < v->n; i++) {
		as = &c->address_settings[c->naddress_settings++];
		memset(as, 0, sizeof(*as));
		as->pos = v->vals[i]->pos;
		as->match_at = match_pos(v->vals[i]);
		decl_fields_defaults(as, address_setting_tab,
		    NELEM(address_setting_tab));
		decl_fields_parse(as, v->vals[i], "address-settings",
		    address_setting_tab, NELEM(address_setting_tab), l->diags);
		key_at(&as->dead_letter_at, v->vals[i], "dead-letter-address");
		key_at(&as->expiry_at, v->vals[i], "expiry-address");
	}
}

static void
load_security_settings(struct load *l, const struct decl_yaml_node *v)
{
	struct decl_cluster *c = l->c;
	struct decl_security_setting *ss;
	size_t i;

	if (want_list(l, v, "security-settings") < 0 || nitems(v) == 0 ||
	    settings_room(l, c->nsecurity_settings, v->n, v,
	        "security-settings") < 0)
		return;
	c->security_settings = xreallocarray(c->security_settings,
	    c->nsecurity_settings + v->n, sizeof(*c->security_settings));
	for (i = 0; i < v->n; i++) {
		ss = &c->security_settings[c->nsecurity_settings++];
		memset(ss, 0, sizeof(*ss));
		ss->pos = v->vals[i]->pos;
		ss->match_at = match_pos(v->vals[i]);
		decl_fields_parse(ss, v->vals[i], "security-settings",
		    security_setting_tab, NELEM(security_setting_tab),
		    l->diags);
	}
}

static int
load_version(struct load *l, const struct decl_yaml_node *v)
{
	char *end;
	long long n;

	if (v->kind != DECL_YAML_SCALAR || !v->plain ||
	    !(v->str[0] >= '0' && v->str[0] <= '9'))
		return errlist_add(l->diags, DIAG_ERROR, &v->pos,
		    "'version' must be an integer such as 1, not %s%s%s",
		    v->kind == DECL_YAML_SCALAR ? "'" : decl_yaml_kind_name(v),
		    v->kind == DECL_YAML_SCALAR ? v->str : "",
		    v->kind == DECL_YAML_SCALAR ? "'" : "");
	n = strtoll(v->str, &end, 10);
	if (*end != '\0' || n < 1 || n > DECL_VERSION_MAX)
		return errlist_add(l->diags, DIAG_ERROR, &v->pos,
		    "unsupported version '%s' (this build reads version %d)",
		    v->str, DECL_VERSION_MAX);
	if (l->c->version != 0 && l->c->version != (unsigned)n)
		return errlist_add(l->diags, DIAG_ERROR, &v->pos,
		    "version %lld disagrees with version %u of the other files",
		    n, l->c->version);
	l->c->version = (unsigned)n;
	return 0;
}

/* `cluster` and `mode`: once, or repeated with the same value. */
static int
load_agreeing(struct load *l, const struct decl_yaml_node *v, const char *key,
    struct yseen *first)
{
	if (v->kind != DECL_YAML_SCALAR || decl_yaml_node_is_null(v))
		return errlist_add(l->diags, DIAG_ERROR, &v->pos,
		    "'%s' must be a single value, not %s", key,
		    decl_yaml_kind_name(v));
	if (first->set && strcmp(first->str, v->str) != 0)
		return errlist_add(l->diags, DIAG_ERROR, &v->pos,
		    "%s '%s' disagrees with %s '%s' declared at %s:%u:%u", key,
		    v->str, key, first->str, first->pos.path, first->pos.line,
		    first->pos.col);
	if (!first->set) {
		first->set = true;
		first->str = xstrdup(v->str);
		first->pos = v->pos;
	}
	return 0;
}

/* settings.protect: a list of globs ('*' any run, '?' one character),
 * each spelled as a name may be, none twice. */
static void
load_protect(struct load *l, const struct decl_yaml_node *v)
{
	struct decl_settings *st = &l->c->settings;
	const struct decl_yaml_node *it;
	char *bad;
	size_t i, j;

	if (v == NULL || want_list(l, v, "protect") < 0 || nitems(v) == 0)
		return;
	if (v->n > DECL_PROTECT_MAX) {
		errlist_add(l->diags, DIAG_ERROR, &v->pos,
		    "'protect' lists %zu patterns, over the limit of %d", v->n,
		    DECL_PROTECT_MAX);
		return;
	}
	st->protect = xcalloc(v->n, sizeof(*st->protect));
	st->protect_at = xcalloc(v->n, sizeof(*st->protect_at));
	for (i = 0; i < v->n; i++) {
		it = v->vals[i];
		if (it->kind != DECL_YAML_SCALAR ||
		    decl_yaml_node_is_null(it)) {
			errlist_add(l->diags, DIAG_ERROR, &it->pos,
			    "'protect' entries must be patterns such as "
			    "'orders.*', not %s",
			    decl_yaml_node_is_null(it)
			        ? "null"
			        : decl_yaml_kind_name(it));
			continue;
		}
		bad = decl_name_problem(it->str);
		if (bad != NULL) {
			errlist_add(l->diags, DIAG_ERROR, &it->pos,
			    "'protect' pattern '%s' %s", it->str, bad);
			free(bad);
			continue;
		}
		for (j = 0; j < st->nprotect; j++)
			if (strcmp(st->protect[j], it->str) == 0)
				break;
		if (j < st->nprotect) {
			errlist_add(l->diags, DIAG_ERROR, &it->pos,
			    "'protect' pattern '%s' is listed twice (first at "
			    "%s:%u:%u)",
			    it->str, st->protect_at[j].path,
			    st->protect_at[j].line, st->protect_at[j].col);
			continue;
		}
		st->protect_at[st->nprotect] = it->pos;
		st->protect[st->nprotect++] = xstrdup(it->str);
	}
}

static void
load_head(struct load *l, const struct decl_yaml_node *root)
{
	const struct decl_yaml_node *v;

	v = decl_yaml_map_get(root, "cluster");
	l->cluster_seen |= v != NULL;
	if (v != NULL && load_agreeing(l, v, "cluster", &l->cluster_at) == 0 &&
	    !decl_is_file_name(v->str))
		errlist_add(l->diags, DIAG_ERROR, &v->pos,
		    "cluster name '%s' must be letters, digits, '.', '_' and "
		    "'-' (not starting with '.')",
		    v->str);
	v = decl_yaml_map_get(root, "mode");
	l->mode_seen |= v != NULL;
	if (v != NULL && load_agreeing(l, v, "mode", &l->mode_at) == 0 &&
	    strcmp(v->str, "STUDIO_MANAGED") != 0 &&
	    strcmp(v->str, "CONFIG_MANAGED") != 0)
		errlist_add(l->diags, DIAG_ERROR, &v->pos,
		    "unknown mode '%s' (expected STUDIO_MANAGED or "
		    "CONFIG_MANAGED)",
		    v->str);
	v = decl_yaml_map_get(root, "settings");
	if (v == NULL)
		return;
	if (l->settings_at.set) {
		errlist_add(l->diags, DIAG_ERROR, &v->pos,
		    "'settings' already declared at %s:%u:%u; declare them "
		    "once per cluster",
		    l->settings_at.pos.path, l->settings_at.pos.line,
		    l->settings_at.pos.col);
		return;
	}
	l->settings_at.set = true;
	l->settings_at.pos = v->pos;
	if (decl_yaml_node_is_null(v))
		return;
	if (decl_fields_parse(&l->c->settings, v, "settings", settings_tab,
	        NELEM(settings_tab), l->diags) == 0)
		decl_delete_if_empty_key(&l->c->settings.delete_if_empty_at, v);
	load_protect(l, decl_yaml_map_get(v, "protect"));
}

/* Returns false when the file is not a mapping or has no version this
 * build reads: the rest of such a file is not interpreted. */
static bool
load_file(struct load *l, const struct decl_yaml_node *root)
{
	const struct decl_yaml_node *v;

	if (root->kind != DECL_YAML_MAP) {
		errlist_add(l->diags, DIAG_ERROR, &root->pos,
		    "expected a mapping with 'version' at the top of the file, "
		    "found %s",
		    decl_yaml_kind_name(root));
		return false;
	}
	v = decl_yaml_map_get(root, "version");
	if (v == NULL) {
		errlist_add(l->diags, DIAG_ERROR, &root->pos,
		    "missing required key 'version' (every file declares the "
		    "format version it is written in)");
		return false;
	}
	if (load_version(l, v) < 0)
		return false;
	decl_fields_parse(NULL, root, "the top level", top_tab, NELEM(top_tab),
	    l->diags);
	load_head(l, root);
	load_nodes(l, decl_yaml_map_get(root, "nodes"));
	load_addresses(l, decl_yaml_map_get(root, "addresses"));
	load_diverts(l, decl_yaml_map_get(root, "diverts"));
	load_captures(l, decl_yaml_map_get(root, "captures"));
	load_address_settings(l, decl_yaml_map_get(root, "address-settings"));
	load_security_settings(l, decl_yaml_map_get(root, "security-settings"));
	return true;
}

/* After every file: the keys needed once per cluster, then the rules. */
static void
load_finish(struct load *l, bool all_parsed)
{
	struct decl_cluster *c = l->c;
	struct pos first = {c->npaths ? c->paths[0] : c->dir, 1, 1};

	if (l->cluster_at.set) {
		c->name = xstrdup(l->cluster_at.str);
		c->pos = l->cluster_at.pos;
	} else if (all_parsed && !l->cluster_seen) {
		errlist_add(l->diags, DIAG_ERROR, &first,
		    "missing required key 'cluster' (declare it in one of the "
		    "cluster's files)");
	}
	if (l->mode_at.set)
		c->mode = strcmp(l->mode_at.str, "CONFIG_MANAGED") == 0
		              ? DECL_CONFIG_MANAGED
		              : DECL_STUDIO_MANAGED;
	else if (all_parsed && !l->mode_seen)
		errlist_add(l->diags, DIAG_ERROR, &first,
		    "missing required key 'mode' (STUDIO_MANAGED or "
		    "CONFIG_MANAGED)");
	if (c->nnodes == 0 && all_parsed)
		errlist_add(l->diags, DIAG_ERROR,
		    l->cluster_at.set ? &c->pos : &first,
		    "the cluster declares no nodes (add a 'nodes' list)");
}

/* A document holding only `---` or a null. Returns false (not parsed). */
static bool
empty_doc(const struct decl_yaml_node *root, struct errlist *diags)
{
	errlist_add(diags, DIAG_ERROR, &root->pos,
	    "empty document: expected a mapping with at least 'version'");
	return false;
}

static struct decl_cluster *
cluster_new(const char *label, const struct decl_file *files, size_t nfiles)
{
	struct decl_cluster *c = xcalloc(1, sizeof(*c));
	size_t i;

	c->dir = xstrdup(label);
	decl_fields_defaults(&c->settings, settings_tab, NELEM(settings_tab));
	c->paths = xcalloc(nfiles ? nfiles : 1, sizeof(*c->paths));
	for (i = 0; i < nfiles; i++)
		c->paths[c->npaths++] = xstrdup(files[i].path);
	return c;
}

int
decl_cluster_parse(struct decl_cluster **out, const char *label,
    const struct decl_file *files, size_t nfiles, struct errlist *diags)
{
	return decl_cluster_parse_max(out, label, files, nfiles, DECL_FILE_MAX,
	    diags);
}

int
decl_cluster_parse_max(struct decl_cluster **out, const char *label,
    const struct decl_file *files, size_t nfiles, size_t file_max,
    struct errlist *diags)
{
	return decl_cluster_parse_taking(out, label, files, NULL, nfiles,
	    file_max, diags);
}

int
decl_cluster_parse_taking(struct decl_cluster **out, const char *label,
    const struct decl_file *files, char **texts, size_t nfiles, size_t file_max,
    struct errlist *diags)
{
	struct load l;
	struct decl_yaml_node *tree;
	struct pos at = {label, 0, 0};
	size_t i, nerrors = diags->nerrors;
	bool all_parsed = true, ok;

	if (nfiles == 0)
		return errlist_add(diags, DIAG_ERROR, &at,
		    "no YAML files (*.yaml, *.yml) in this cluster folder");
	if (nfiles > DECL_FILES_MAX)
		return errlist_add(diags, DIAG_ERROR, &at,
		    "%zu YAML files, over the limit of %d per cluster", nfiles,
		    DECL_FILES_MAX);
	memset(&l, 0, sizeof(l));
	l.c = cluster_new(label, files, nfiles);
	l.diags = diags;
	/* One file's tree at a time: the model copies what it keeps, and
	 * the head keys are copied into l (yseen). */
	for (i = 0; i < nfiles; i++) {
		tree = NULL;
		ok = decl_yaml_parse_max(&tree, l.c->paths[i], files[i].data,
		         files[i].len, file_max, diags) == 0;
		if (ok && decl_yaml_node_is_null(tree))
			ok = empty_doc(tree, diags);
		else if (ok)
			ok = load_file(&l, tree);
		all_parsed = all_parsed && ok;
		decl_yaml_node_free(tree);
		if (texts != NULL) { /* the text is no longer needed */
			free(texts[i]);
			texts[i] = NULL;
		}
	}
	load_finish(&l, all_parsed);
	free(l.cluster_at.str);
	free(l.mode_at.str);
	if (diags->nerrors == nerrors) {
		decl_delete_if_empty_resolve(l.c);
		decl_index_build(l.c);
		decl_check(l.c, diags);
	}
	errlist_sort(diags);
	if (diags->nerrors != nerrors) {
		decl_cluster_free(l.c);
		return -1;
	}
	*out = l.c;
	return 0;
}
