/* declarations/dump.c: the normalised model as canonical JSON. Keys are
 * written in sorted order by hand; every field holds its effective value,
 * so loading the dump again yields the same model (and the same dump). */
#include "decl.h"

#include <stdlib.h>
#include <string.h>

#include "../lib/jsonw.h"
#include "../lib/sbuf.h"
#include "../lib/sha256.h"

static void
dump_routing_set(struct jsonw *w, unsigned set)
{
	unsigned r = 0;

	jsonw_arr_begin(w);
	while ((r = decl_routing_set_next(set, r)) != 0)
		jsonw_str(w, decl_routing_name(r));
	jsonw_arr_end(w);
}

/* The per-object policy, each key only where it is not the default, so
 * that the dump (and the digest) of a declaration without policies is
 * what it always was: a plan approved before stays bound to it. Keys
 * sorted: deletion-policy sorts after delay-… and delete-if-empty,
 * managed before max-… and name; the caller writes the keys around them. */
static void
dump_deletion(struct jsonw *w, const struct decl_policy *p,
    const struct decl_policy *inherited)
{
	/* a queue's own delete under a retained address is written, as the
	 * loader would otherwise give the queue its address's */
	if (p->deletion == DECL_DELETE &&
	    (inherited == NULL || inherited->deletion == DECL_DELETE))
		return;
	jsonw_key(w, "deletion-policy");
	jsonw_str(w, decl_deletion_policy_name(p->deletion));
}

static void
dump_managed(struct jsonw *w, const struct decl_policy *p)
{
	if (!p->unmanaged)
		return;
	jsonw_key(w, "managed");
	jsonw_bool(w, false);
}

/* A queue. Its delete-if-empty only where it differs from the cluster's
 * default (die_default), which the dump's settings carry: loading the
 * dump again gives every queue the same value, and the dump (and the
 * digest) of a cluster that sets no delete-if-empty is what it was before
 * the key existed. */
static void
dump_queue(struct jsonw *w, const struct decl_queue *q,
    const struct decl_address *a, bool die_default)
{
	jsonw_obj_begin(w);
	jsonw_key(w, "consumers-before-dispatch");
	jsonw_int(w, q->consumers_before_dispatch);
	jsonw_key(w, "delay-before-dispatch");
	jsonw_int(w, q->delay_before_dispatch);
	if (q->delete_if_empty != die_default) {
		jsonw_key(w, "delete-if-empty");
		jsonw_bool(w, q->delete_if_empty);
	}
	dump_deletion(w, &q->policy, &a->policy);
	jsonw_key(w, "durable");
	jsonw_bool(w, q->durable);
	jsonw_key(w, "enabled");
	jsonw_bool(w, q->enabled);
	jsonw_key(w, "exclusive");
	jsonw_bool(w, q->exclusive);
	jsonw_key(w, "filter");
	jsonw_str(w, q->filter);
	jsonw_key(w, "last-value-key");
	jsonw_str(w, q->last_value_key);
	dump_managed(w, &q->policy);
	jsonw_key(w, "max-consumers");
	jsonw_int(w, q->max_consumers);
	jsonw_key(w, "name");
	jsonw_str(w, q->name);
	jsonw_key(w, "purge-on-no-consumers");
	jsonw_bool(w, q->purge_on_no_consumers);
	jsonw_key(w, "ring-size");
	jsonw_int(w, q->ring_size);
	jsonw_key(w, "routing");
	jsonw_str(w, decl_routing_name(q->routing));
	jsonw_obj_end(w);
}

static void
dump_address(struct jsonw *w, const struct decl_address *a, bool die_default)
{
	size_t i;

	jsonw_obj_begin(w);
	dump_deletion(w, &a->policy, NULL);
	dump_managed(w, &a->policy);
	jsonw_key(w, "name");
	jsonw_str(w, a->name);
	jsonw_key(w, "queues");
	jsonw_arr_begin(w);
	for (i = 0; i < a->nqueues; i++)
		dump_queue(w, &a->queues[i], a, die_default);
	jsonw_arr_end(w);
	jsonw_key(w, "routing");
	dump_routing_set(w, a->routing);
	jsonw_obj_end(w);
}

static void
dump_divert(struct jsonw *w, const struct decl_divert *d)
{
	size_t i;

	jsonw_obj_begin(w);
	jsonw_key(w, "address");
	jsonw_str(w, d->address);
	dump_deletion(w, &d->policy, NULL);
	jsonw_key(w, "exclusive");
	jsonw_bool(w, d->exclusive);
	jsonw_key(w, "filter");
	jsonw_str(w, d->filter);
	jsonw_key(w, "forwarding-address");
	jsonw_str(w, d->forwarding_address);
	dump_managed(w, &d->policy);
	jsonw_key(w, "name");
	jsonw_str(w, d->name);
	jsonw_key(w, "routing-name");
	jsonw_str(w, d->routing_name);
	jsonw_key(w, "routing-type");
	jsonw_str(w, decl_divert_routing_name(d->routing_type));
	jsonw_key(w, "transformer-class-name");
	jsonw_str(w, d->transformer_class_name);
	jsonw_key(w, "transformer-properties");
	jsonw_obj_begin(w);
	for (i = 0; i < d->ntransformer_properties; i++) {
		jsonw_key(w, d->transformer_properties[i].key);
		jsonw_str(w, d->transformer_properties[i].value);
	}
	jsonw_obj_end(w);
	jsonw_obj_end(w);
}

/* An address setting: the keys it writes, none of the unset ones (the
 * loader leaves an absent key unset). */
static void
key_int_set(struct jsonw *w, const char *key, int64_t v)
{
	if (v == DECL_UNSET)
		return;
	jsonw_key(w, key);
	jsonw_int(w, v);
}

static void
key_tri(struct jsonw *w, const char *key, enum decl_tri v)
{
	if (v == DECL_TRI_UNSET)
		return;
	jsonw_key(w, key);
	jsonw_bool(w, v == DECL_TRI_TRUE);
}

static void
key_name(struct jsonw *w, const char *key, const char *name)
{
	if (name == NULL)
		return;
	jsonw_key(w, key);
	jsonw_str(w, name);
}

static void
dump_address_setting(struct jsonw *w, const struct decl_address_setting *as)
{
	jsonw_obj_begin(w);
	key_name(w, "address-full-policy",
	    decl_full_policy_name(as->address_full_policy));
	key_tri(w, "auto-create-addresses", as->auto_create_addresses);
	key_tri(w, "auto-create-queues", as->auto_create_queues);
	key_tri(w, "auto-delete-addresses", as->auto_delete_addresses);
	key_tri(w, "auto-delete-queues", as->auto_delete_queues);
	key_name(w, "config-delete-addresses",
	    decl_config_delete_name(as->config_delete_addresses));
	key_name(w, "config-delete-diverts",
	    decl_config_delete_name(as->config_delete_diverts));
	key_name(w, "config-delete-queues",
	    decl_config_delete_name(as->config_delete_queues));
	key_name(w, "dead-letter-address", as->dead_letter_address);
	key_name(w, "expiry-address", as->expiry_address);
	key_name(w, "match", as->match);
	key_int_set(w, "max-delivery-attempts", as->max_delivery_attempts);
	key_int_set(w, "max-size-bytes", as->max_size_bytes);
	key_int_set(w, "redelivery-delay", as->redelivery_delay);
	jsonw_obj_end(w);
}

/* A security setting: every permission, the empty ones too (a
 * permission not written is held by no role), keys in sorted order. */
static const enum decl_permission perm_sorted[DECL_PERM_COUNT] = {
    DECL_PERM_BROWSE, DECL_PERM_CONSUME, DECL_PERM_CREATE_ADDRESS,
    DECL_PERM_CREATE_DURABLE_QUEUE, DECL_PERM_CREATE_NON_DURABLE_QUEUE,
    DECL_PERM_DELETE_ADDRESS, DECL_PERM_DELETE_DURABLE_QUEUE,
    DECL_PERM_DELETE_NON_DURABLE_QUEUE, DECL_PERM_MANAGE,
    DECL_PERM_SEND, /* "match" goes between manage and send */
};

static void
dump_security_setting(struct jsonw *w, const struct decl_security_setting *ss)
{
	const struct decl_roles *r;
	size_t i, j;

	jsonw_obj_begin(w);
	for (i = 0; i < DECL_PERM_COUNT; i++) {
		if (perm_sorted[i] == DECL_PERM_SEND) {
			jsonw_key(w, "match");
			jsonw_str(w, ss->match);
		}
		r = &ss->perm[perm_sorted[i]];
		jsonw_key(w, decl_permission_name(perm_sorted[i]));
		jsonw_arr_begin(w);
		for (j = 0; j < r->n; j++)
			jsonw_str(w, r->v[j]);
		jsonw_arr_end(w);
	}
	jsonw_obj_end(w);
}

static void
dump_lists(struct jsonw *w, const struct decl_cluster *c)
{
	size_t i;

	/* only when declared, so that the dump (and the digest) of a cluster
	 * without settings is what it always was */
	if (c->naddress_settings > 0) {
		jsonw_key(w, "address-settings");
		jsonw_arr_begin(w);
		for (i = 0; i < c->naddress_settings; i++)
			dump_address_setting(w, &c->address_settings[i]);
		jsonw_arr_end(w);
	}

	jsonw_key(w, "addresses");
	jsonw_arr_begin(w);
	for (i = 0; i < c->naddresses; i++)
		dump_address(w, &c->addresses[i], c->settings.delete_if_empty);
	jsonw_arr_end(w);
	jsonw_key(w, "captures");
	jsonw_arr_begin(w);
	for (i = 0; i < c->ncaptures; i++) {
		jsonw_obj_begin(w);
		jsonw_key(w, "name");
		jsonw_str(w, c->captures[i].name);
		jsonw_key(w, "pattern");
		jsonw_str(w, c->captures[i].pattern);
		jsonw_key(w, "ring-size");
		jsonw_int(w, c->captures[i].ring_size);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_key(w, "cluster");
	jsonw_str(w, c->name);
	jsonw_key(w, "diverts");
	jsonw_arr_begin(w);
	for (i = 0; i < c->ndiverts; i++)
		dump_divert(w, &c->diverts[i]);
	jsonw_arr_end(w);
}

/* A string member when set (the dump is read back as a declaration, and
 * an absent key is what the loader takes for unset). */
static void
key_str_opt(struct jsonw *w, const char *key, const char *v)
{
	if (v == NULL)
		return;
	jsonw_key(w, key);
	jsonw_str(w, v);
}

/* A node; its members only when it has some, so that the dump (and the
 * digest) of a cluster without HA nodes is what it always was. */
static void
dump_node(struct jsonw *w, const struct decl_node *n, bool endpoints)
{
	size_t j;

	jsonw_obj_begin(w);
	if (endpoints) {
		key_str_opt(w, "credentials", n->credentials);
		key_str_opt(w, "jolokia", n->jolokia);
	}
	if (n->nmembers > 0) {
		jsonw_key(w, "members");
		jsonw_arr_begin(w);
		for (j = 0; j < n->nmembers; j++) {
			jsonw_obj_begin(w);
			if (endpoints) {
				key_str_opt(w, "credentials",
				    n->members[j].credentials);
				key_str_opt(w, "jolokia",
				    n->members[j].jolokia);
			}
			jsonw_key(w, "name");
			jsonw_str(w, n->members[j].name);
			jsonw_obj_end(w);
		}
		jsonw_arr_end(w);
	}
	jsonw_key(w, "name");
	jsonw_str(w, n->name);
	jsonw_obj_end(w);
}

/* The whole model; endpoints false leaves out each node's jolokia URL and
 * credentials file (decl_cluster_digest). */
static void
dump_into(struct sbuf *b, const struct decl_cluster *c, bool endpoints)
{
	struct jsonw w;
	size_t i;

	jsonw_init(&w, b, 2);
	jsonw_obj_begin(&w);
	dump_lists(&w, c);
	jsonw_key(&w, "mode");
	jsonw_str(&w, decl_mode_name(c->mode));
	jsonw_key(&w, "nodes");
	jsonw_arr_begin(&w);
	for (i = 0; i < c->nnodes; i++)
		dump_node(&w, &c->nodes[i], endpoints);
	jsonw_arr_end(&w);
	if (c->nsecurity_settings > 0) { /* as address-settings */
		jsonw_key(&w, "security-settings");
		jsonw_arr_begin(&w);
		for (i = 0; i < c->nsecurity_settings; i++)
			dump_security_setting(&w, &c->security_settings[i]);
		jsonw_arr_end(&w);
	}
	jsonw_key(&w, "settings");
	jsonw_obj_begin(&w);
	jsonw_key(&w, "capture-prefix");
	jsonw_str(&w, c->settings.capture_prefix);
	if (c->settings.delete_if_empty) { /* only when set: see dump_queue */
		jsonw_key(&w, "delete-if-empty");
		jsonw_bool(&w, true);
	}
	jsonw_key(&w, "max-destroyed-messages");
	jsonw_int(&w, c->settings.max_destroyed_messages);
	if (c->settings.nprotect > 0) { /* as dump_deletion: only when set */
		jsonw_key(&w, "protect");
		jsonw_arr_begin(&w);
		for (i = 0; i < c->settings.nprotect; i++)
			jsonw_str(&w, c->settings.protect[i]);
		jsonw_arr_end(&w);
	}
	if (c->settings.wildcard_delimiter != NULL &&
	    strcmp(c->settings.wildcard_delimiter, DECL_DEFAULT_DELIM) != 0) {
		jsonw_key(&w, "wildcard-delimiter"); /* only when not '.' */
		jsonw_str(&w, c->settings.wildcard_delimiter);
	}
	jsonw_obj_end(&w);
	jsonw_key(&w, "version");
	jsonw_int(&w, c->version);
	jsonw_obj_end(&w);
	sbuf_addc(b, '\n');
}

static char *
dump(const struct decl_cluster *c, bool endpoints)
{
	struct sbuf b = {0};

	sbuf_init(&b, SBUF_UNBOUNDED);
	dump_into(&b, c, endpoints);
	return sbuf_take(&b);
}

char *
decl_cluster_dump(const struct decl_cluster *c)
{
	return dump(c, true);
}

void
decl_cluster_dump_stream(const struct decl_cluster *c, sbuf_sink_fn sink,
    void *ctx)
{
	struct sbuf b;

	sbuf_stream(&b, sink, ctx);
	dump_into(&b, c, true);
	sbuf_flush(&b);
	sbuf_release(&b);
}

static void
hash_sink(void *ctx, const char *data, size_t len)
{
	sha256_update(ctx, data, len);
}

char *
decl_cluster_dump_objects(const struct decl_cluster *c)
{
	return dump(c, false);
}

void
decl_cluster_digest(const struct decl_cluster *c, char hex[SHA256_HEX])
{
	struct sha256 h;
	unsigned char md[SHA256_LEN];
	struct sbuf b;

	/* streamed through the hash: at 100,000 queues the text is 50 MB */
	sha256_init(&h);
	sbuf_stream(&b, hash_sink, &h);
	dump_into(&b, c, false);
	sbuf_flush(&b);
	sbuf_release(&b);
	sha256_final(&h, md);
	sha256_to_hex(md, hex);
}
