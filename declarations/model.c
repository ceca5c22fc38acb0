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
	free(c->settings.capture_prefix);
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
