/* reconcile/live/snapshot-fetch.c: read a node's live state in one bulk
 * Jolokia request (docs/snapshot-format.md lists the elements) and turn
 * the reply into a struct recon_node_snapshot. */

#include "live-int.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../lib/clock.h"
#include "../../lib/json.h"
#include "../../lib/sbuf.h"
#include "../../lib/xalloc.h"

#define D "org.apache.activemq.artemis:"

/* Version, and the broker's HA state (docs/ha-pairs.md); every release
 * from 2.28.0 has them all (docs/compatibility.md). */
static const char *const broker_attrs[] = {"Version", "Active", "Backup",
    "HAPolicy", "NodeID", "ReplicaSync"};
static const char *const address_attrs[] = {"Address", "RoutingTypes",
    "QueueNames", "BindingNames", "AutoCreated", "Internal"};
static const char *const queue_attrs[] = {"Name", "Address", "RoutingType",
    "Durable", "Filter", "MaxConsumers", "PurgeOnNoConsumers", "Exclusive",
    "RingSize", "Enabled", "LastValueKey", "ConsumersBeforeDispatch",
    "DelayBeforeDispatch", "ConfigurationManaged", "AutoCreated",
    "InternalQueue", "Temporary", "ConsumerCount", "MessageCount"};
static const char *const divert_attrs[] = {"UniqueName", "RoutingName",
    "Address", "ForwardingAddress", "Exclusive", "Filter", "RoutingType",
    "TransformerClassName", "TransformerProperties"};

#define N(a) (sizeof(a) / sizeof((a)[0]))

#define ADDRESSES D "broker=*,component=addresses,address=*"
#define QUEUES                                                                 \
	D "broker=*,component=addresses,address=*,subcomponent=queues,"        \
	  "routing-type=*,queue=*"
#define DIVERTS                                                                \
	D "broker=*,component=addresses,address=*,subcomponent=diverts,"       \
	  "divert=*"

/* ---- the objects, member by member as the reply is read --------------- */

/* The broker name of the broker element (the first): its one MBean's key,
 * or NULL (element refused, or not one MBean: refused below). */
static const char *
sink_broker(struct live_read *rd)
{
	const struct live_bulk_result *res = &rd->bulk->results[0];
	char *b = NULL;

	if (rd->got.broker_known)
		return rd->got.broker;
	rd->got.broker_known = true;
	if (res->refusal.kind == RECON_OK && json_is_object(res->value) &&
	    json_size(res->value) == 1 &&
	    live_mbean_key(json_key(json_first(res->value)), "broker", &b) == 0)
		rd->got.broker = b;
	return rd->got.broker;
}

/* One member {mbean: {attribute: value}} of element i (1 addresses, 2
 * queues, 3 diverts): the broker's objects appended; another broker's
 * left out; the first problem kept. */
static void
sink(void *ctx, size_t i, const char *mbean, const struct json *attrs)
{
	static const char *const kinds[] = {"", "address", "queue", "divert"};
	struct live_read *rd = ctx;
	struct live_got *g = &rd->got;
	struct live_attrs r = {0};
	const char *broker = sink_broker(rd);
	char *b = NULL, *what;

	if (g->bad != NULL || broker == NULL || i < 1 || i > 3)
		return;
	if (live_mbean_key(mbean, "broker", &b) < 0 || !json_is_object(attrs)) {
		g->bad = xasprintf("%s read: unexpected entry '%.200s'",
		    kinds[i], mbean);
		free(b);
		return;
	}
	if (strcmp(b, broker) != 0) {
		free(b);
		return;
	}
	free(b);
	what = xasprintf("%s '%.200s'", kinds[i], mbean);
	r.what = what;
	if (i == 1) {
		xgrow(&g->addresses, &g->aaddresses, g->naddresses + 1,
		    sizeof(*g->addresses));
		memset(&g->addresses[g->naddresses], 0, sizeof(*g->addresses));
		live_attrs_address(&r, mbean, attrs,
		    &g->addresses[g->naddresses++]);
	} else if (i == 2) {
		xgrow(&g->queues, &g->aqueues, g->nqueues + 1,
		    sizeof(*g->queues));
		memset(&g->queues[g->nqueues], 0, sizeof(*g->queues));
		if (rd->scope != NULL && rd->exact)
			live_attrs_queue_id(&r, mbean, attrs,
			    &g->queues[g->nqueues++]);
		else
			live_attrs_queue(&r, mbean, attrs,
			    &g->queues[g->nqueues++]);
	} else {
		xgrow(&g->diverts, &g->adiverts, g->ndiverts + 1,
		    sizeof(*g->diverts));
		memset(&g->diverts[g->ndiverts], 0, sizeof(*g->diverts));
		live_attrs_divert(&r, mbean, attrs, &g->diverts[g->ndiverts++]);
	}
	free(what);
	g->bad = r.bad;
}

/* The objects the sink collected, into n (the collector emptied); the
 * problem of an element whose value was not an object. */
static char *
take_got(struct recon_node_snapshot *n, struct live_read *rd)
{
	static const char *const kinds[] = {"", "address", "queue", "divert"};
	struct live_got *g = &rd->got;
	char *why = g->bad;
	size_t i;

	g->bad = NULL;
	for (i = 1; why == NULL && i <= 3; i++)
		if (rd->bulk->results[i].value != NULL)
			why =
			    xasprintf("%s read: expected an object", kinds[i]);
	if (why != NULL)
		return why;
	n->addresses = g->addresses;
	n->naddresses = g->naddresses;
	n->queues = g->queues;
	n->nqueues = g->nqueues;
	n->diverts = g->diverts;
	n->ndiverts = g->ndiverts;
	g->addresses = NULL;
	g->queues = NULL;
	g->diverts = NULL;
	g->naddresses = g->nqueues = g->ndiverts = 0;
	return NULL;
}

void
live_read_build(struct live_bulk *b, struct live_read *rd, const char *hint)
{
	struct live_arg arg = {.s = "#"};
	char *m = live_mbean_broker(hint);

	live_read_got_release(&rd->got);
	rd->bulk = b;
	rd->sink.fn = sink;
	rd->sink.ctx = rd;
	b->sink = &rd->sink;
	live_bulk_read(b, D "broker=*", broker_attrs, N(broker_attrs));
	live_bulk_stream(b,
	    live_bulk_read(b, ADDRESSES, address_attrs, N(address_attrs)));
	if (rd->scope == NULL)
		live_bulk_read(b, QUEUES, queue_attrs, N(queue_attrs));
	else
		live_read_queues(b, rd);
	live_bulk_stream(b, 2);
	live_bulk_stream(b,
	    live_bulk_read(b, DIVERTS, divert_attrs, N(divert_attrs)));
	live_bulk_exec(b, m, "getAddressSettingsAsJSON(java.lang.String)", &arg,
	    1);
	free(m);
	if (rd->scope != NULL && rd->exact)
		live_read_add_exact(b, rd);
}

/* address_settings from getAddressSettingsAsJSON("#"): a JSON text in a
 * string. A text that cannot be read leaves the node without them. */
static void
to_settings(struct recon_node_snapshot *n, const struct live_bulk_result *res)
{
	struct recon_address_settings *s;
	const char *keys[3] = {"configDeleteAddresses", "configDeleteQueues",
	    "configDeleteDiverts"};
	const char *text = json_str(res->value), *v;
	struct json_doc *doc = NULL;
	struct err err = {0};
	char **vals[3];
	size_t i;

	if (res->refusal.kind != RECON_OK || text == NULL)
		return;
	if (json_parse(&doc, "address-settings", text, strlen(text), &err) <
	    0) {
		err_release(&err);
		return;
	}
	if (!json_is_object(json_doc_root(doc))) {
		json_doc_free(doc);
		return;
	}
	n->address_settings = s = xcalloc(1, sizeof(*s));
	n->naddress_settings = 1;
	s->match = xstrdup("#");
	vals[0] = &s->config_delete_addresses;
	vals[1] = &s->config_delete_queues;
	vals[2] = &s->config_delete_diverts;
	for (i = 0; i < 3; i++) {
		v = json_str(json_get(json_doc_root(doc), keys[i]));
		*vals[i] = xstrdup(v != NULL ? v : "OFF");
	}
	json_doc_free(doc);
}

/* The HA attributes of the broker MBean c. Active and Backup must be
 * booleans for the state to count as read (a broker without them is taken
 * as the one broker of its node); the strings are kept when present. */
static void
read_ha(struct recon_ha *h, const struct json *c)
{
	const char *v;
	bool b;

	memset(h, 0, sizeof(*h));
	h->replica_sync = -1;
	if (json_bool(json_get(c, "Active"), &h->active) < 0 ||
	    json_bool(json_get(c, "Backup"), &h->backup) < 0) {
		h->active = h->backup = false;
		return;
	}
	h->known = true;
	v = json_str(json_get(c, "HAPolicy"));
	if (v != NULL && *v != '\0')
		h->policy = xstrdup(v);
	v = json_str(json_get(c, "NodeID"));
	if (v != NULL && *v != '\0')
		h->node_id = xstrdup(v);
	/* ReplicaSync means something under a replication policy only
	 * ("Replication Primary w/quorum voting", 2.28's "Replicated" and
	 * "Replica"); a shared-store broker says false, always */
	if (h->policy != NULL && strstr(h->policy, "Replica") != NULL &&
	    json_bool(json_get(c, "ReplicaSync"), &b) == 0)
		h->replica_sync = b;
}

/* The broker name from the single broker MBean of the first element. */
static char *
find_broker(struct recon_node_snapshot *n, const struct json *value)
{
	const struct json *c;
	const char *v;

	if (!json_is_object(value) || json_size(value) == 0)
		return xstrdup("no broker MBean found");
	if (json_size(value) > 1)
		return xstrdup("several broker MBeans found");
	c = json_first(value);
	if (live_mbean_key(json_key(c), "broker", &n->broker_name) < 0)
		return xasprintf("unexpected broker MBean '%.200s'",
		    json_key(c));
	/* a node that was read has a version: a snapshot says null for a
	 * node that could not be read only */
	v = json_str(json_get(c, "Version"));
	if (v == NULL)
		return xstrdup("the broker MBean has no Version string");
	n->broker_version = xstrdup(v);
	read_ha(&n->ha, c);
	return NULL;
}

/* Free the objects of n; its name, endpoint, refusal, requests and HA
 * state stay. */
static void
drop_contents(struct recon_node_snapshot *n)
{
	char *node = n->node, *url = n->url;
	unsigned req = n->requests;
	struct recon_refusal ref = n->refusal;
	struct recon_ha ha = n->ha;

	n->node = n->url = NULL;
	memset(&n->refusal, 0, sizeof(n->refusal));
	memset(&n->ha, 0, sizeof(n->ha));
	live_node_release(n);
	n->node = node;
	n->url = url;
	n->requests = req;
	n->refusal = ref;
	n->ha = ha;
}

/* A node read and refused as a whole (kind, why: owned): its objects
 * dropped, its broker name, version and HA state kept for the preview. */
static void
refuse_read(struct recon_node_snapshot *n, enum recon_kind kind, char *why)
{
	char *name = n->broker_name, *version = n->broker_version;

	n->broker_name = n->broker_version = NULL;
	drop_contents(n);
	n->broker_name = name;
	n->broker_version = version;
	n->refusal.kind = kind;
	n->refusal.text = why;
}

bool
live_node_check_passive(struct recon_node_snapshot *n)
{
	struct sbuf b;

	if (n->refusal.kind != RECON_OK || !n->ha.known || n->ha.active)
		return false;
	sbuf_init(&b, SBUF_UNBOUNDED);
	sbuf_addf(&b, "passive %s (HAPolicy '%s'",
	    n->ha.backup ? "backup" : "broker",
	    n->ha.policy != NULL ? n->ha.policy : "none");
	if (n->ha.node_id != NULL)
		sbuf_addf(&b, ", NodeID %s", n->ha.node_id);
	if (n->ha.replica_sync >= 0)
		sbuf_addf(&b, ", %s",
		    n->ha.replica_sync ? "in sync with its live"
		                       : "not in sync with its live");
	sbuf_adds(&b,
	    "): it serves no client and holds no journal until it becomes live, so nothing is planned or applied on it");
	refuse_read(n, RECON_PASSIVE, sbuf_take(&b));
	return true;
}

bool
live_node_check_version(struct recon_node_snapshot *n)
{
	char *why = recon_version_unsupported(n->broker_version);

	if (why == NULL)
		return false;
	refuse_read(n, RECON_UNSUPPORTED_VERSION, why);
	return true;
}

/* The first name that appears twice in a sorted array, or NULL. */
static const char *
repeated(const void *arr, size_t n, size_t elsize)
{
	const char *a, *b;
	size_t i;

	for (i = 1; i < n; i++) {
		a = *(char *const *)(const void *)((const char *)arr +
		                                   (i - 1) * elsize);
		b = *(char *const *)(const void *)((const char *)arr +
		                                   i * elsize);
		if (strcmp(a, b) == 0)
			return b;
	}
	return NULL;
}

/* Names are unique per kind on a broker; a reply saying otherwise is
 * malformed (and could not be rendered and read back). */
static char *
duplicates(const struct recon_node_snapshot *n)
{
	const char *d;

	d = repeated(n->addresses, n->naddresses, sizeof(*n->addresses));
	if (d != NULL)
		return xasprintf("address '%.200s' listed twice", d);
	d = repeated(n->queues, n->nqueues, sizeof(*n->queues));
	if (d != NULL)
		return xasprintf("queue '%.200s' listed twice", d);
	d = repeated(n->diverts, n->ndiverts, sizeof(*n->diverts));
	if (d != NULL)
		return xasprintf("divert '%.200s' listed twice", d);
	return NULL;
}

void
live_node_from_read(struct recon_node_snapshot *n, const struct live_bulk *b,
    struct live_read *rd)
{
	struct recon_refusal ref = {0};
	char *why = NULL;
	size_t i;

	rd->bulk = b;
	for (i = 0; i < 4 && i < b->n; i++) {
		if (b->results[i].refusal.kind != RECON_OK) {
			n->refusal.kind = b->results[i].refusal.kind;
			n->refusal.http_status =
			    b->results[i].refusal.http_status;
			n->refusal.status = b->results[i].refusal.status;
			n->refusal.text =
			    xstrdup(b->results[i].refusal.text
			                ? b->results[i].refusal.text
			                : "");
			return;
		}
	}
	if (b->n < 5)
		why = xstrdup("short reply");
	if (why == NULL)
		why = find_broker(n, b->results[0].value);
	if (why == NULL && live_node_check_version(n))
		return;
	if (why == NULL && live_node_check_passive(n))
		return;
	if (why == NULL)
		why = take_got(n, rd);
	if (why != NULL) {
		n->refusal.kind = RECON_BAD_RESPONSE;
		n->refusal.http_status = b->http_status;
		n->refusal.text = why;
		drop_contents(n);
		return;
	}
	live_node_sort(n);
	why = duplicates(n);
	if (why != NULL) {
		n->refusal.kind = RECON_BAD_RESPONSE;
		n->refusal.http_status = b->http_status;
		n->refusal.text = why;
		drop_contents(n);
		return;
	}
	to_settings(n, &b->results[4]);
	if (rd->scope == NULL || !rd->exact ||
	    live_read_apply(n, b, rd, &ref) == 0)
		return;
	n->refusal = ref;
	n->refusal.http_status = b->http_status;
	drop_contents(n);
}

/* One POST of a fetch: a node's endpoint, or one member's. */
static void
conf_of(struct live_jolokia_conf *c, const char *url, const char *userpass,
    const struct live_http_opts *opts)
{
	c->url = url;
	c->userpass = userpass;
	c->origin = opts->origin;
	c->ca_file = opts->ca_file;
	c->cert_file = opts->cert_file;
	c->key_pem = opts->key_pem;
	c->connect_timeout_ms = opts->connect_timeout_ms;
	c->timeout_ms = opts->timeout_ms;
	c->max_response = opts->max_response;
	c->tick = opts->tick;
}

/* One broker to read: where (conf), what (the bulk, the read's shape),
 * and what came of it. */
struct one {
	struct live_jolokia_conf conf;
	struct live_bulk bulk;
	struct live_read rd;
	struct recon_refusal out;
	struct recon_node_snapshot node;
};

static void
plan_one(struct one *o, const char *url, const char *userpass, const char *hint,
    size_t queues_hint, const struct live_http_opts *opts,
    const struct live_scope *scope)
{
	conf_of(&o->conf, url, userpass, opts);
	o->rd.scope = scope;
	o->rd.exact = scope != NULL && live_read_exact(scope, queues_hint);
	o->rd.broker = xstrdup(hint);
	live_read_build(&o->bulk, &o->rd, hint);
}

/* The second request of the reads whose scope's queues were not all where
 * they were looked for (moved, or a broker name other than the hint):
 * each such queue read where the first request found it, the
 * address-settings again when the broker name was not the hint's. A
 * queue that is no longer there is dropped (gone between the reads). */
static void
read_again(struct one *ones, size_t n)
{
	struct live_jolokia_conf *confs = xcalloc(n + 1, sizeof(*confs));
	struct live_bulk *bulks = xcalloc(n + 1, sizeof(*bulks));
	struct live_read *again = xcalloc(n + 1, sizeof(*again));
	struct recon_refusal *outs = xcalloc(n + 1, sizeof(*outs));
	size_t *at = xcalloc(n + 1, sizeof(*at)),
	       *set = xcalloc(n + 1, sizeof(*set));
	struct live_arg arg = {.s = "#"};
	struct recon_node_snapshot *nd;
	size_t i, k = 0;
	char *m;

	for (i = 0; i < n; i++) {
		nd = &ones[i].node;
		if (ones[i].out.kind != RECON_OK ||
		    nd->refusal.kind != RECON_OK || ones[i].rd.scope == NULL)
			continue;
		if (!ones[i].rd.exact)
			continue;
		if (live_read_add_misses(&bulks[k], &again[k], nd,
		        &ones[i].rd) == 0) {
			live_read_release(&again[k]);
			live_bulk_release(&bulks[k]);
			continue;
		}
		set[k] = (size_t)-1;
		if (strcmp(ones[i].rd.broker, nd->broker_name) != 0) {
			m = live_mbean_broker(nd->broker_name);
			set[k] = live_bulk_exec(&bulks[k], m,
			    "getAddressSettingsAsJSON(java.lang.String)", &arg,
			    1);
			free(m);
		}
		confs[k] = ones[i].conf;
		at[k++] = i;
	}
	if (k > 0)
		live_jolokia_post_all(confs, bulks, k, outs);
	for (i = 0; i < k; i++) {
		nd = &ones[at[i]].node;
		nd->requests += bulks[i].requests;
		nd->read_seconds += bulks[i].seconds;
		if (outs[i].kind != RECON_OK) {
			recon_refusal_release(&nd->refusal);
			nd->refusal = outs[i];
			memset(&outs[i], 0, sizeof(outs[i]));
			drop_contents(nd);
		} else if (live_read_apply(nd, &bulks[i], &again[i],
		               &nd->refusal) < 0) {
			nd->refusal.http_status = bulks[i].http_status;
			drop_contents(nd);
		} else {
			if (set[i] != (size_t)-1 && nd->naddress_settings == 0)
				to_settings(nd, &bulks[i].results[set[i]]);
			live_read_drop_unread(nd, ones[at[i]].rd.scope);
			live_node_sort(nd);
		}
		live_read_release(&again[i]);
		live_bulk_release(&bulks[i]);
		recon_refusal_release(&outs[i]);
	}
	free(confs);
	free(bulks);
	free(again);
	free(outs);
	free(at);
	free(set);
}

struct recon_snapshot *
live_snapshot_fetch(const char *cluster, const struct live_target *targets,
    size_t n, const struct live_http_opts *opts, const struct live_scope *scope)
{
	struct recon_snapshot *s = xcalloc(1, sizeof(*s));
	struct live_jolokia_conf *confs;
	struct live_bulk *bulks;
	struct recon_refusal *outs;
	struct recon_node_snapshot *reads;
	struct one *ones;
	size_t i, j, k, nreads = 0;

	for (i = 0; i < n; i++)
		nreads += targets[i].nmembers > 0 ? targets[i].nmembers : 1;
	ones = xcalloc(nreads + 1, sizeof(*ones));
	confs = xcalloc(nreads + 1, sizeof(*confs));
	bulks = xcalloc(nreads + 1, sizeof(*bulks));
	outs = xcalloc(nreads + 1, sizeof(*outs));
	reads = xcalloc(nreads + 1, sizeof(*reads));
	s->cluster = xstrdup(cluster);
	s->taken_at = clock_rfc3339_now();
	s->nodes = xcalloc(n + 1, sizeof(*s->nodes));
	s->nnodes = n;
	/* every member of every node in one round, each its one POST */
	for (i = 0, k = 0; i < n; i++) {
		const struct live_target *t = &targets[i];
		const char *hint = t->broker_hint ? t->broker_hint : t->node;

		if (t->nmembers == 0) {
			plan_one(&ones[k++], t->url, t->userpass, hint,
			    t->queues_hint, opts, scope);
			continue;
		}
		/* each member's broker is asked for its address-settings by
		 * the member's name (docs/ha-pairs.md) */
		for (j = 0; j < t->nmembers; j++)
			plan_one(&ones[k++], t->members[j].url,
			    t->members[j].userpass, t->members[j].name,
			    t->queues_hint, opts, scope);
	}
	for (k = 0; k < nreads; k++) {
		confs[k] = ones[k].conf;
		bulks[k] = ones[k].bulk; /* moved: its sink is ones[k].rd's */
		memset(&ones[k].bulk, 0, sizeof(ones[k].bulk));
		ones[k].rd.bulk = &bulks[k];
	}
	live_jolokia_post_all(confs, bulks, nreads, outs);
	for (k = 0; k < nreads; k++) {
		struct recon_node_snapshot *nd = &ones[k].node;

		ones[k].out = outs[k];
		nd->url = xstrdup(confs[k].url);
		nd->requests = bulks[k].requests;
		nd->read_seconds = bulks[k].seconds;
		if (outs[k].kind != RECON_OK) {
			nd->refusal = outs[k];
			memset(&ones[k].out, 0, sizeof(ones[k].out));
			ones[k].out.kind = nd->refusal.kind;
		} else {
			live_node_from_read(nd, &bulks[k], &ones[k].rd);
		}
		live_bulk_release(&bulks[k]);
	}
	read_again(ones, nreads);
	for (k = 0; k < nreads; k++) {
		reads[k] = ones[k].node;
		live_read_release(&ones[k].rd);
	}
	for (i = 0, k = 0; i < n; i++) {
		const struct live_target *t = &targets[i];
		double slowest = 0;

		if (t->nmembers == 0) {
			s->nodes[i] = reads[k];
			memset(&reads[k++], 0, sizeof(reads[0]));
			s->nodes[i].node = xstrdup(t->node);
			continue;
		}
		for (j = 0; j < t->nmembers; j++)
			if (reads[k + j].read_seconds > slowest)
				slowest = reads[k + j].read_seconds;
		live_node_choose(&s->nodes[i], t->node, t->members, &reads[k],
		    t->nmembers);
		s->nodes[i].read_seconds = slowest;
		k += t->nmembers;
	}
	for (k = 0; k < nreads; k++)
		live_node_release(&reads[k]);
	free(reads);
	free(ones);
	free(confs);
	free(bulks);
	free(outs);
	return s;
}

size_t
live_snapshot_unreadable(const struct recon_snapshot *s)
{
	size_t i, k = 0;

	for (i = 0; i < s->nnodes; i++)
		if (s->nodes[i].refusal.kind != RECON_OK &&
		    s->nodes[i].refusal.kind != RECON_PASSIVE)
			k++;
	return k;
}
