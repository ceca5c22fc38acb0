/* reconcile/plan/reload.c: predict what a reload of a rendered broker.xml does
 * on a live node (rules in plan.h, facts in docs/config-managed.md). */
#include "plan-int.h"

#include <assert.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/sbuf.h"
#include "../../lib/xalloc.h"

enum { SET_ADDRESSES, SET_QUEUES, SET_DIVERTS };

static const char *const set_names[] = {"config-delete-addresses",
    "config-delete-queues", "config-delete-diverts"};

static void
add_item(struct plan_reload *r, enum plan_reload_effect effect,
    enum plan_reload_object object, const char *name, const char *address,
    char *detail, int64_t messages)
{
	struct plan_reload_item *it;

	r->items = xreallocarray(r->items, r->n + 1, sizeof(*r->items));
	it = &r->items[r->n++];
	it->effect = effect;
	it->object = object;
	it->name = xstrdup(name);
	it->address = address != NULL ? xstrdup(address) : NULL;
	it->detail = detail;
	it->messages = messages;
}

static const char *
setting_of(const struct plan_reload *r, int which)
{
	return which == SET_ADDRESSES ? r->settings.addresses
	       : which == SET_QUEUES  ? r->settings.queues
	                              : r->settings.diverts;
}

/* For an entry the file does not carry: KEEPS or REMOVES by the setting,
 * with the reason. why_force says what FORCE removes. */
static enum plan_reload_effect
by_setting(struct plan_reload *r, int which, const char *why_force,
    const char *why_off, char **detail)
{
	const char *v = setting_of(r, which);

	if (v != NULL && strcmp(v, "FORCE") == 0) {
		*detail =
		    xasprintf("%s FORCE: %s", set_names[which], why_force);
		return PLAN_RELOAD_REMOVES;
	}
	if (v != NULL && strcmp(v, "OFF") == 0) {
		*detail = xasprintf("%s OFF: %s", set_names[which], why_off);
		return PLAN_RELOAD_KEEPS;
	}
	r->uncertain = true;
	*detail = xasprintf("%s not read: stays if OFF (the default); removed "
	                    "if FORCE (%s)",
	    set_names[which], why_force);
	return PLAN_RELOAD_KEEPS;
}

static bool
str_eq(const char *a, const char *b)
{
	return (a == NULL && b == NULL) ||
	       (a != NULL && b != NULL && strcmp(a, b) == 0);
}

static void
diff_str(struct sbuf *b, const char *field, const char *from, const char *to)
{
	if (str_eq(from, to))
		return;
	sbuf_addf(b, "%s%s %s%s%s -> %s%s%s", b->len ? ", " : "", field,
	    from ? "'" : "", from ? from : "none", from ? "'" : "",
	    to ? "'" : "", to ? to : "none", to ? "'" : "");
}

static void
diff_i64(struct sbuf *b, const char *field, int64_t from, int64_t to)
{
	if (from != to)
		sbuf_addf(b, "%s%s %" PRId64 " -> %" PRId64, b->len ? ", " : "",
		    field, from, to);
}

static void
diff_bool(struct sbuf *b, const char *field, bool from, bool to)
{
	if (from != to)
		sbuf_addf(b, "%s%s %s -> %s", b->len ? ", " : "", field,
		    from ? "true" : "false", to ? "true" : "false");
}

/* "field from -> to, ..." or NULL when the live queue matches. */
static char *
queue_changes(const struct recon_queue *l, const struct decl_queue *d)
{
	struct sbuf b = {0};

	assert((l->unread & RECON_QUEUE_NO_CONFIG) == 0); /* scope.c */

	diff_str(&b, "routing", decl_routing_name(l->routing),
	    decl_routing_name(d->routing));
	diff_str(&b, "address", l->address, d->address);
	diff_bool(&b, "durable", l->durable, d->durable);
	diff_str(&b, "filter", l->filter, d->filter);
	diff_i64(&b, "max-consumers", l->max_consumers, d->max_consumers);
	diff_bool(&b, "purge-on-no-consumers", l->purge_on_no_consumers,
	    d->purge_on_no_consumers);
	diff_bool(&b, "exclusive", l->exclusive, d->exclusive);
	diff_i64(&b, "ring-size", l->ring_size, d->ring_size);
	diff_bool(&b, "enabled", l->enabled, d->enabled);
	diff_str(&b, "last-value-key", l->last_value_key, d->last_value_key);
	diff_i64(&b, "consumers-before-dispatch", l->consumers_before_dispatch,
	    d->consumers_before_dispatch);
	diff_i64(&b, "delay-before-dispatch", l->delay_before_dispatch,
	    d->delay_before_dispatch);
	if (b.len == 0)
		return NULL;
	return sbuf_take(&b);
}

static bool
props_equal(const struct recon_divert *l, const struct decl_divert *d)
{
	size_t i;

	if (l->ntransformer_properties != d->ntransformer_properties)
		return false;
	for (i = 0; i < d->ntransformer_properties; i++)
		if (strcmp(l->transformer_properties[i].key,
		        d->transformer_properties[i].key) != 0 ||
		    strcmp(l->transformer_properties[i].value,
		        d->transformer_properties[i].value) != 0)
			return false;
	return true;
}

static char *
divert_changes(const struct recon_divert *l, const struct decl_divert *d)
{
	struct sbuf b = {0};
	char *s;

	diff_str(&b, "address", l->address, d->address);
	diff_bool(&b, "exclusive", l->exclusive, d->exclusive);
	diff_str(&b, "forwarding-address", l->forwarding_address,
	    d->forwarding_address);
	diff_str(&b, "routing-name", l->routing_name,
	    d->routing_name != NULL ? d->routing_name : d->name);
	diff_str(&b, "filter", l->filter, d->filter);
	diff_str(&b, "routing-type", decl_divert_routing_name(l->routing_type),
	    decl_divert_routing_name(d->routing_type));
	diff_str(&b, "transformer", l->transformer_class_name,
	    d->transformer_class_name);
	if (!props_equal(l, d))
		sbuf_addf(&b, "%stransformer properties", b.len ? ", " : "");
	if (b.len == 0)
		return NULL;
	/* deployReloadableConfigFromConfiguration: a new source address or
	 * exclusivity is a destroy and deploy, the rest updateDivert. */
	if (!str_eq(l->address, d->address) || l->exclusive != d->exclusive) {
		s = xasprintf("destroyed and deployed again: %s", sbuf_str(&b));
		sbuf_release(&b);
		return s;
	}
	return sbuf_take(&b);
}

static bool
is_off(const struct plan_reload *r, int which)
{
	const char *v = setting_of(r, which);

	return v != NULL && strcmp(v, "OFF") == 0;
}

/* The detail of a broker's own object (recon_broker_own) that the reload
 * removes: said, never left out (observed on 2.40.0, with every
 * config-delete-* FORCE: an undeclared DLQ and ExpiryQueue go, and so
 * does activemq.notifications). */
static char *
own_detail(char *detail, const char *name)
{
	char *s;

	s = xasprintf("%s; %s", detail,
	    strncmp(name, "activemq.", 9) == 0
	        ? "the broker's own address (management notifications, which cluster bridges subscribe to): gone until the broker creates it again at its next start"
	        : "the broker's own (artemis create puts it in broker.xml as the default dead-letter or expiry address): declare it to keep it");
	free(detail);
	return s;
}

static void
predict_addresses(struct plan_reload *r, const struct decl_cluster *c,
    const struct recon_node_snapshot *live)
{
	const struct recon_address *la;
	enum plan_reload_effect e;
	char *detail;
	size_t i;

	for (i = 0; i < c->naddresses; i++)
		if (recon_node_find_address(live, c->addresses[i].name) == NULL)
			add_item(r, PLAN_RELOAD_ADDS, PLAN_RELOAD_ADDRESS,
			    c->addresses[i].name, NULL, NULL, 0);
	for (i = 0; i < live->naddresses; i++) {
		la = &live->addresses[i];
		if (la->internal || la->auto_created ||
		    decl_cluster_find_address(c, la->name) != NULL)
			continue;
		/* the broker's own, kept: left out (docs/config-managed.md) */
		if (recon_broker_own(la->name) && is_off(r, SET_ADDRESSES))
			continue;
		e = by_setting(r, SET_ADDRESSES,
		    "every address the file does not carry is removed, "
		    "runtime-created ones included",
		    "it stays live, outside the file (a restart keeps it too)",
		    &detail);
		if (e == PLAN_RELOAD_REMOVES && recon_broker_own(la->name))
			detail = own_detail(detail, la->name);
		add_item(r, e, PLAN_RELOAD_ADDRESS, la->name, NULL, detail, 0);
	}
}

/* A live queue the file does not carry. */
static void
predict_gone_queue(struct plan_reload *r, const struct decl_cluster *c,
    const struct recon_queue *lq)
{
	enum plan_reload_effect e = PLAN_RELOAD_KEEPS;
	int64_t lost = 0;
	char *detail, *why;

	if (!lq->configuration_managed) {
		detail = xstrdup("created at runtime: config-delete-queues "
		                 "removes only configuration-managed queues");
	} else {
		why = xasprintf("removed with its %" PRId64 " message%s, which "
		                "%s lost",
		    lq->message_count, lq->message_count == 1 ? "" : "s",
		    lq->message_count == 1 ? "is" : "are");
		e = by_setting(r, SET_QUEUES, why,
		    "it stays live, outside the file (a restart keeps it too)",
		    &detail);
		free(why);
		if (e == PLAN_RELOAD_REMOVES)
			lost = lq->message_count;
	}
	if (decl_cluster_find_address(c, lq->address) == NULL &&
	    setting_of(r, SET_ADDRESSES) != NULL &&
	    strcmp(setting_of(r, SET_ADDRESSES), "FORCE") == 0 &&
	    e == PLAN_RELOAD_KEEPS) {
		why = detail;
		detail = xasprintf("%s; its address goes with "
		                   "config-delete-addresses FORCE, which was "
		                   "not observed with a queue still bound",
		    why);
		free(why);
	}
	if (e == PLAN_RELOAD_REMOVES &&
	    (recon_broker_own(lq->name) || recon_broker_own(lq->address)))
		detail = own_detail(detail, lq->address);
	add_item(r, e, PLAN_RELOAD_QUEUE, lq->name, lq->address, detail, lost);
	r->messages_lost += lost;
}

static void
predict_queues(struct plan_reload *r, const struct decl_cluster *c,
    const struct recon_node_snapshot *live)
{
	const struct recon_queue *lq;
	const struct decl_queue *dq;
	char *changes;
	size_t i, j;

	for (i = 0; i < c->naddresses; i++)
		for (j = 0; j < c->addresses[i].nqueues; j++) {
			dq = &c->addresses[i].queues[j];
			lq = recon_node_find_queue(live, dq->name);
			if (lq == NULL) {
				add_item(r, PLAN_RELOAD_ADDS, PLAN_RELOAD_QUEUE,
				    dq->name, dq->address, NULL, 0);
				continue;
			}
			changes = queue_changes(lq, dq);
			if (changes != NULL)
				add_item(r, PLAN_RELOAD_UPDATES,
				    PLAN_RELOAD_QUEUE, dq->name, dq->address,
				    changes, 0);
		}
	for (i = 0; i < live->nqueues; i++) {
		lq = &live->queues[i];
		if (lq->internal || lq->auto_created ||
		    decl_cluster_find_queue(c, lq->name) != NULL)
			continue;
		/* the broker's own, certainly kept: left out */
		if ((recon_broker_own(lq->name) ||
		        recon_broker_own(lq->address)) &&
		    (is_off(r, SET_QUEUES) || !lq->configuration_managed) &&
		    (is_off(r, SET_ADDRESSES) ||
		        decl_cluster_find_address(c, lq->address) != NULL))
			continue;
		predict_gone_queue(r, c, lq);
	}
}

static void
predict_diverts(struct plan_reload *r, const struct decl_cluster *c,
    const struct recon_node_snapshot *live)
{
	const struct recon_divert *ld;
	enum plan_reload_effect e;
	char *detail;
	size_t i;

	for (i = 0; i < c->ndiverts; i++) {
		ld = recon_node_find_divert(live, c->diverts[i].name);
		if (ld == NULL) {
			add_item(r, PLAN_RELOAD_ADDS, PLAN_RELOAD_DIVERT,
			    c->diverts[i].name, c->diverts[i].address,
			    xstrdup("deployed by the reload (so is a divert of "
			            "the file destroyed at runtime)"),
			    0);
			continue;
		}
		detail = divert_changes(ld, &c->diverts[i]);
		if (detail != NULL)
			add_item(r, PLAN_RELOAD_UPDATES, PLAN_RELOAD_DIVERT,
			    ld->name, c->diverts[i].address, detail, 0);
	}
	for (i = 0; i < live->ndiverts; i++) {
		ld = &live->diverts[i];
		if (decl_cluster_find_divert(c, ld->name) != NULL)
			continue;
		e = by_setting(r, SET_DIVERTS,
		    "every divert the file does not carry is removed, "
		    "runtime-created ones and capture taps included",
		    "it stays, and a restart recovers it from the journal",
		    &detail);
		add_item(r, e, PLAN_RELOAD_DIVERT, ld->name, ld->address,
		    detail, 0);
	}
}

void
plan_reload_predict(struct plan_reload *out, const struct decl_cluster *c,
    const struct recon_node_snapshot *live,
    const struct plan_reload_settings *settings)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	out->node = xstrdup(live->node);
	if (settings != NULL) {
		out->settings = *settings;
		out->settings_from_file = true;
	}
	for (i = 0; settings == NULL && i < live->naddress_settings; i++)
		if (live->address_settings[i].match != NULL &&
		    strcmp(live->address_settings[i].match, "#") == 0) {
			out->settings.addresses =
			    live->address_settings[i].config_delete_addresses;
			out->settings.queues =
			    live->address_settings[i].config_delete_queues;
			out->settings.diverts =
			    live->address_settings[i].config_delete_diverts;
		}
	predict_addresses(out, c, live);
	predict_queues(out, c, live);
	predict_diverts(out, c, live);
	if (c->naddress_settings > 0)
		out->address_matches =
		    xcalloc(c->naddress_settings, sizeof(char *));
	for (i = 0; i < c->naddress_settings; i++)
		out->address_matches[out->naddress_matches++] =
		    c->address_settings[i].match;
	if (c->nsecurity_settings > 0)
		out->security_matches =
		    xcalloc(c->nsecurity_settings, sizeof(char *));
	for (i = 0; i < c->nsecurity_settings; i++)
		out->security_matches[out->nsecurity_matches++] =
		    c->security_settings[i].match;
}

/* The matches, quoted, the first ten and a count of the rest. */
static void
matches_md(struct sbuf *b, const char *const *m, size_t n)
{
	size_t i;

	for (i = 0; i < n && i < 10; i++)
		sbuf_addf(b, "%s'%s'", i > 0 ? ", " : "", m[i]);
	if (n > 10)
		sbuf_addf(b, " and %zu more", n - 10);
}

/* What a reload does with the declared settings (Artemis's
 * deployReloadableConfigFromConfiguration: swap, then the stored ones). */
static void
settings_md(struct sbuf *b, const struct plan_reload *r)
{
	if (r->naddress_matches > 0) {
		sbuf_addf(b, "- address-settings: the file's %zu match%s (",
		    r->naddress_matches, r->naddress_matches == 1 ? "" : "es");
		matches_md(b, r->address_matches, r->naddress_matches);
		sbuf_addf(b, ") replace%s the broker's",
		    r->naddress_matches == 1 ? "s" : "");
		sbuf_adds(b, " configured ones at the "
		             "reload and apply to the next message; a match "
		             "the file no longer holds is gone, but one added "
		             "through management (kept in the journal) is "
		             "applied again over them\n");
	}
	if (r->nsecurity_matches > 0) {
		sbuf_addf(b, "- security-settings: the file's %zu match%s (",
		    r->nsecurity_matches,
		    r->nsecurity_matches == 1 ? "" : "es");
		matches_md(b, r->security_matches, r->nsecurity_matches);
		sbuf_addf(b, ") replace%s the broker's",
		    r->nsecurity_matches == 1 ? "s" : "");
		sbuf_adds(b, " configured ones at the "
		             "reload, as address-settings do; a session's "
		             "permissions already checked hold until the "
		             "broker's authorization cache expires "
		             "(security-invalidation-interval, 10 s by "
		             "default)\n");
	}
}

static const char *
object_name(enum plan_reload_object o)
{
	return o == PLAN_RELOAD_ADDRESS ? "address"
	       : o == PLAN_RELOAD_QUEUE ? "queue"
	                                : "divert";
}

static const char *const effect_names[] = {"adds", "updates", "keeps",
    "removes"};

char *
plan_reload_render_md(const struct plan_reload *r)
{
	const struct plan_reload_item *it;
	struct sbuf b = {0};
	size_t i;

	sbuf_addf(&b,
	    "#### Reload of the rendered broker.xml on node '%s'\n\n"
	    "config-delete-addresses %s, config-delete-queues %s, "
	    "config-delete-diverts %s (address-setting '#' %s; more specific "
	    "matches are not considered)\n\n",
	    r->node, r->settings.addresses ? r->settings.addresses : "unknown",
	    r->settings.queues ? r->settings.queues : "unknown",
	    r->settings.diverts ? r->settings.diverts : "unknown",
	    r->settings_from_file ? "of the new file" : "as read live");
	for (i = 0; i < r->n; i++) {
		it = &r->items[i];
		sbuf_addf(&b, "- %s %s '%s'", effect_names[it->effect],
		    object_name(it->object), it->name);
		if (it->address != NULL)
			sbuf_addf(&b, " %s address '%s'",
			    it->object == PLAN_RELOAD_DIVERT ? "from" : "on",
			    it->address);
		if (it->detail != NULL)
			sbuf_addf(&b, ": %s", it->detail);
		sbuf_addc(&b, '\n');
	}
	settings_md(&b, r);
	if (r->n == 0 && r->naddress_matches == 0 && r->nsecurity_matches == 0)
		sbuf_adds(&b, "- nothing changes\n");
	sbuf_addf(&b, "\nMessages lost by the reload: %" PRId64 "%s\n",
	    r->messages_lost,
	    r->uncertain ? " (more if an unread config-delete-* is FORCE)"
	                 : "");
	return sbuf_take(&b);
}

void
plan_reload_release(struct plan_reload *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		free(r->items[i].name);
		free(r->items[i].address);
		free(r->items[i].detail);
	}
	free(r->items);
	free(r->address_matches);
	free(r->security_matches);
	free(r->node);
	memset(r, 0, sizeof(*r));
}
