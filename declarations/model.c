/* declarations/model.c: freeing, lookups, enum names, NCName and glob. */
#include "decl-int.h"

#include <stdlib.h>
#include <string.h>

#include "../lib/xalloc.h"

static void
queue_release(struct decl_queue *q)
{
	free(q->name);
	free(q->filter);
	free(q->last_value_key);
}

static void
address_release(struct decl_address *a)
{
	size_t i;

	for (i = 0; i < a->nqueues; i++)
		queue_release(&a->queues[i]);
	free(a->queues);
	free(a->name);
}

static void
divert_release(struct decl_divert *d)
{
	size_t i;

	for (i = 0; i < d->ntransformer_properties; i++) {
		free(d->transformer_properties[i].key);
		free(d->transformer_properties[i].value);
	}
	free(d->transformer_properties);
	free(d->name);
	free(d->address);
	free(d->forwarding_address);
	free(d->filter);
	free(d->routing_name);
	free(d->transformer_class_name);
}

static void
security_setting_release(struct decl_security_setting *s)
{
	size_t p, i;

	free(s->match);
	for (p = 0; p < DECL_PERM_COUNT; p++) {
		for (i = 0; i < s->perm[p].n; i++)
			free(s->perm[p].v[i]);
		free(s->perm[p].v);
	}
}

void
decl_cluster_free(struct decl_cluster *c)
{
	size_t i, j;

	if (c == NULL)
		return;
	for (i = 0; i < c->nnodes; i++) {
		free(c->nodes[i].name);
		free(c->nodes[i].jolokia);
		free(c->nodes[i].credentials);
		for (j = 0; j < c->nodes[i].nmembers; j++) {
			free(c->nodes[i].members[j].name);
			free(c->nodes[i].members[j].jolokia);
			free(c->nodes[i].members[j].credentials);
		}
		free(c->nodes[i].members);
	}
	free(c->nodes);
	for (i = 0; i < c->naddresses; i++)
		address_release(&c->addresses[i]);
	free(c->addresses);
	for (i = 0; i < c->ndiverts; i++)
		divert_release(&c->diverts[i]);
	free(c->diverts);
	for (i = 0; i < c->ncaptures; i++) {
		free(c->captures[i].name);
		free(c->captures[i].pattern);
	}
	free(c->captures);
	for (i = 0; i < c->naddress_settings; i++) {
		free(c->address_settings[i].match);
		free(c->address_settings[i].dead_letter_address);
		free(c->address_settings[i].expiry_address);
	}
	free(c->address_settings);
	for (i = 0; i < c->nsecurity_settings; i++)
		security_setting_release(&c->security_settings[i]);
	free(c->security_settings);
	free(c->settings.capture_prefix);
	free(c->settings.wildcard_delimiter);
	for (i = 0; i < c->settings.nprotect; i++)
		free(c->settings.protect[i]);
	free(c->settings.protect);
	free(c->settings.protect_at);
	for (i = 0; i < c->npaths; i++)
		free(c->paths[i]);
	free(c->paths);
	decl_index_free(c->index);
	free(c->name);
	free(c->dir);
	free(c);
}

static bool
eq(const char *a, const char *b)
{
	return a != NULL && strcmp(a, b) == 0;
}

const struct decl_address *
decl_cluster_find_address(const struct decl_cluster *c, const char *name)
{
	size_t i;

	if (c->index != NULL)
		return decl_index_address(c->index, name);
	for (i = 0; i < c->naddresses; i++)
		if (eq(c->addresses[i].name, name))
			return &c->addresses[i];
	return NULL;
}

const struct decl_queue *
decl_cluster_find_queue(const struct decl_cluster *c, const char *name)
{
	size_t i, j;

	if (c->index != NULL)
		return decl_index_queue(c->index, name);
	for (i = 0; i < c->naddresses; i++)
		for (j = 0; j < c->addresses[i].nqueues; j++)
			if (eq(c->addresses[i].queues[j].name, name))
				return &c->addresses[i].queues[j];
	return NULL;
}

const struct decl_divert *
decl_cluster_find_divert(const struct decl_cluster *c, const char *name)
{
	size_t i;

	if (c->index != NULL)
		return decl_index_divert(c->index, name);
	for (i = 0; i < c->ndiverts; i++)
		if (eq(c->diverts[i].name, name))
			return &c->diverts[i];
	return NULL;
}

const struct decl_node *
decl_cluster_find_node(const struct decl_cluster *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->nnodes; i++)
		if (eq(c->nodes[i].name, name))
			return &c->nodes[i];
	return NULL;
}

const char *
decl_mode_name(enum decl_mode m)
{
	return m == DECL_CONFIG_MANAGED ? "CONFIG_MANAGED" : "STUDIO_MANAGED";
}

/* The one name table of enum decl_routing: declarations and snapshots
 * spell a routing type in lower case, Artemis (its management API, and so
 * plan.json and the audit) in upper case. */
static const struct {
	unsigned bit;
	const char *lower, *upper;
} routings[] = {
    {DECL_ANYCAST, "anycast", "ANYCAST"},
    {DECL_MULTICAST, "multicast", "MULTICAST"},
};

#define NROUTINGS (sizeof(routings) / sizeof(routings[0]))

const char *
decl_routing_name(unsigned one_routing)
{
	size_t i;

	for (i = 0; i < NROUTINGS; i++)
		if (routings[i].bit == one_routing)
			return routings[i].lower;
	return "?";
}

const char *
decl_routing_artemis_name(unsigned one_routing)
{
	size_t i;

	for (i = 0; i < NROUTINGS; i++)
		if (routings[i].bit == one_routing)
			return routings[i].upper;
	return "?";
}

int
decl_routing_parse(const char *s, unsigned *out)
{
	size_t i;

	for (i = 0; i < NROUTINGS; i++) {
		if (strcmp(s, routings[i].lower) == 0 ||
		    strcmp(s, routings[i].upper) == 0) {
			*out = routings[i].bit;
			return 0;
		}
	}
	return -1;
}

char *
decl_routing_set_join(unsigned set, bool artemis, const char *sep)
{
	char *out = xstrdup(""), *next;
	size_t i;

	for (i = 0; i < NROUTINGS; i++) {
		if ((set & routings[i].bit) == 0)
			continue;
		next = xasprintf("%s%s%s", out, out[0] != '\0' ? sep : "",
		    artemis ? routings[i].upper : routings[i].lower);
		free(out);
		out = next;
	}
	return out;
}

unsigned
decl_routing_set_next(unsigned set, unsigned after)
{
	size_t i;
	bool past = after == 0;

	for (i = 0; i < NROUTINGS; i++) {
		if (past && (set & routings[i].bit) != 0)
			return routings[i].bit;
		if (routings[i].bit == after)
			past = true;
	}
	return 0;
}

/* enum decl_divert_routing's names, as Artemis spells them: the one table
 * behind decl_divert_routing_name/_parse. */
static const char *const divert_rt_names[] = {
    [DECL_DIVERT_STRIP] = "STRIP",
    [DECL_DIVERT_PASS] = "PASS",
    [DECL_DIVERT_ANYCAST] = "ANYCAST",
    [DECL_DIVERT_MULTICAST] = "MULTICAST",
};

const char *
decl_divert_routing_name(enum decl_divert_routing r)
{
	if ((unsigned)r >= sizeof(divert_rt_names) / sizeof(divert_rt_names[0]))
		return "?";
	return divert_rt_names[r];
}

int
decl_divert_routing_parse(const char *s, enum decl_divert_routing *out)
{
	size_t i;

	for (i = 0; i < sizeof(divert_rt_names) / sizeof(divert_rt_names[0]);
	     i++) {
		if (strcmp(s, divert_rt_names[i]) == 0) {
			*out = (enum decl_divert_routing)i;
			return 0;
		}
	}
	return -1;
}

/* enum decl_deletion_policy's names: the one table behind
 * decl_deletion_policy_name/_parse. */
static const char *const deletion_names[] = {
    [DECL_DELETE] = "delete",
    [DECL_RETAIN] = "retain",
};

const char *
decl_deletion_policy_name(enum decl_deletion_policy p)
{
	if ((unsigned)p >= sizeof(deletion_names) / sizeof(deletion_names[0]))
		return "?";
	return deletion_names[p];
}

int
decl_deletion_policy_parse(const char *s, enum decl_deletion_policy *out)
{
	size_t i;

	for (i = 0; i < sizeof(deletion_names) / sizeof(deletion_names[0]);
	     i++) {
		if (strcmp(s, deletion_names[i]) == 0) {
			*out = (enum decl_deletion_policy)i;
			return 0;
		}
	}
	return -1;
}

/* The address-settings enums' names: the one table of each, index 0
 * (unset) without a name. */
static const char *const full_policy_names[] = {
    [DECL_FULL_PAGE] = "PAGE",
    [DECL_FULL_DROP] = "DROP",
    [DECL_FULL_BLOCK] = "BLOCK",
    [DECL_FULL_FAIL] = "FAIL",
};

static const char *const config_delete_names[] = {
    [DECL_CONFIG_DELETE_OFF] = "OFF",
    [DECL_CONFIG_DELETE_FORCE] = "FORCE",
};

#define NAMES(t) (sizeof(t) / sizeof((t)[0]))

static int
name_index(const char *const *names, size_t n, const char *s)
{
	size_t i;

	for (i = 1; i < n; i++)
		if (strcmp(s, names[i]) == 0)
			return (int)i;
	return -1;
}

const char *
decl_full_policy_name(enum decl_full_policy p)
{
	return (unsigned)p < NAMES(full_policy_names) ? full_policy_names[p]
	                                              : NULL;
}

int
decl_full_policy_parse(const char *s, enum decl_full_policy *out)
{
	int i = name_index(full_policy_names, NAMES(full_policy_names), s);

	if (i < 0)
		return -1;
	*out = (enum decl_full_policy)i;
	return 0;
}

const char *
decl_config_delete_name(enum decl_config_delete p)
{
	return (unsigned)p < NAMES(config_delete_names) ? config_delete_names[p]
	                                                : NULL;
}

int
decl_config_delete_parse(const char *s, enum decl_config_delete *out)
{
	int i = name_index(config_delete_names, NAMES(config_delete_names), s);

	if (i < 0)
		return -1;
	*out = (enum decl_config_delete)i;
	return 0;
}

/* The permissions: a declaration's key and Artemis's type, one table. */
static const struct {
	const char *key, *artemis;
} permission_names[DECL_PERM_COUNT] = {
    [DECL_PERM_SEND] = {"send", "send"},
    [DECL_PERM_CONSUME] = {"consume", "consume"},
    [DECL_PERM_CREATE_DURABLE_QUEUE] = {"create-durable-queue",
        "createDurableQueue"},
    [DECL_PERM_DELETE_DURABLE_QUEUE] = {"delete-durable-queue",
        "deleteDurableQueue"},
    [DECL_PERM_CREATE_NON_DURABLE_QUEUE] = {"create-non-durable-queue",
        "createNonDurableQueue"},
    [DECL_PERM_DELETE_NON_DURABLE_QUEUE] = {"delete-non-durable-queue",
        "deleteNonDurableQueue"},
    [DECL_PERM_MANAGE] = {"manage", "manage"},
    [DECL_PERM_BROWSE] = {"browse", "browse"},
    [DECL_PERM_CREATE_ADDRESS] = {"create-address", "createAddress"},
    [DECL_PERM_DELETE_ADDRESS] = {"delete-address", "deleteAddress"},
};

const char *
decl_permission_name(enum decl_permission p)
{
	return (unsigned)p < DECL_PERM_COUNT ? permission_names[p].key : "?";
}

const char *
decl_permission_artemis_name(enum decl_permission p)
{
	return (unsigned)p < DECL_PERM_COUNT ? permission_names[p].artemis
	                                     : "?";
}

const struct decl_address_setting *
decl_cluster_find_address_setting(const struct decl_cluster *c,
    const char *match)
{
	size_t i;

	for (i = 0; i < c->naddress_settings; i++)
		if (eq(c->address_settings[i].match, match))
			return &c->address_settings[i];
	return NULL;
}

const struct decl_security_setting *
decl_cluster_find_security_setting(const struct decl_cluster *c,
    const char *match)
{
	size_t i;

	for (i = 0; i < c->nsecurity_settings; i++)
		if (eq(c->security_settings[i].match, match))
			return &c->security_settings[i];
	return NULL;
}

const char *
decl_protect_match(const char *const *patterns, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (decl_glob_match(patterns[i], name))
			return patterns[i];
	return NULL;
}

/* NCName (XML Namespaces): a Name without ':'. ASCII is checked exactly;
 * non-ASCII bytes (UTF-8 letters) are accepted, as the XML NameChar ranges
 * cover nearly all of them. */
bool
decl_is_ncname(const char *name)
{
	const unsigned char *p = (const unsigned char *)name;

	if (name == NULL || *p == '\0')
		return false;
	if (!(*p >= 0x80 || *p == '_' || (*p >= 'A' && *p <= 'Z') ||
	        (*p >= 'a' && *p <= 'z')))
		return false;
	for (p++; *p != '\0'; p++)
		if (!(*p >= 0x80 || *p == '_' || *p == '-' || *p == '.' ||
		        (*p >= '0' && *p <= '9') || (*p >= 'A' && *p <= 'Z') ||
		        (*p >= 'a' && *p <= 'z')))
			return false;
	return true;
}

/* Iterative glob with one backtrack point: linear in practice, never
 * exponential on patterns like "a*a*a*a*b". */
bool
decl_glob_match(const char *pattern, const char *s)
{
	const char *p = pattern, *star = NULL, *back = NULL;

	while (*s != '\0') {
		if (*p == '*') {
			star = p++;
			back = s;
		} else if (*p == '?' || *p == *s) {
			p++;
			s++;
		} else if (star != NULL) {
			p = star + 1;
			s = ++back;
		} else {
			return false;
		}
	}
	while (*p == '*')
		p++;
	return *p == '\0';
}
