/* reconcile/snapshot-parse.c: read back what recon_snapshot_render_json
 * wrote. Strict: every key must be present with its type, unknown and
 * duplicate keys are refused, and each error names its JSON path, e.g.
 * `snap.json: nodes[0].queues[2].durable: expected a boolean`. */
#include "recon.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/xalloc.h"
#include "recon-int.h"

struct jp {
	const char *file;
	struct err *err;
};

static int fail(struct jp *p, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
fail(struct jp *p, const char *path, const char *fmt, ...)
{
	struct pos pos = {p->file, 0, 0};
	char *msg = NULL;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	rc = err_setf(p->err, &pos, "%s: %s", path[0] ? path : "$",
	    msg != NULL ? msg : "error");
	free(msg);
	return rc;
}

/* Exactly the keys of `keys` (sorted or not), each once. */
static int
check_keys(struct jp *p, const cJSON *obj, const char *path,
    const char *const *keys, size_t nkeys)
{
	const cJSON *c, *d;
	size_t i;

	if (!cJSON_IsObject(obj))
		return fail(p, path, "expected an object");
	for (c = obj->child; c != NULL; c = c->next) {
		i = 0;
		while (i < nkeys && strcmp(keys[i], c->string) != 0)
			i++;
		if (i == nkeys)
			return fail(p, path, "unknown key '%s'", c->string);
		for (d = obj->child; d != c; d = d->next)
			if (strcmp(d->string, c->string) == 0)
				return fail(p, path, "duplicate key '%s'",
				    c->string);
	}
	for (i = 0; i < nkeys; i++) {
		if (cJSON_GetObjectItemCaseSensitive(obj, keys[i]) == NULL) {
			return fail(p, path, "missing key '%s'", keys[i]);
		}
	}
	return 0;
}

static const cJSON *
item(const cJSON *obj, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(obj, key);
}

static int
get_str(struct jp *p, const cJSON *obj, const char *path, const char *key,
    bool nullable, char **out)
{
	const cJSON *v = item(obj, key);
	char *sub;

	if (nullable && cJSON_IsNull(v)) {
		*out = NULL;
		return 0;
	}
	if (!cJSON_IsString(v)) {
		sub = xasprintf("%s.%s", path, key);
		fail(p, sub, "expected a string%s", nullable ? " or null" : "");
		free(sub);
		return -1;
	}
	*out = xstrdup(v->valuestring);
	return 0;
}

static int
get_bool(struct jp *p, const cJSON *obj, const char *path, const char *key,
    bool *out)
{
	const cJSON *v = item(obj, key);
	char *sub;

	if (!cJSON_IsBool(v)) {
		sub = xasprintf("%s.%s", path, key);
		fail(p, sub, "expected a boolean");
		free(sub);
		return -1;
	}
	*out = cJSON_IsTrue(v);
	return 0;
}

static int
get_int(struct jp *p, const cJSON *obj, const char *path, const char *key,
    int64_t *out)
{
	const cJSON *v = item(obj, key);
	char *sub;
	double d;

	d = cJSON_IsNumber(v) ? v->valuedouble : 0.5;
	if (d != floor(d) || fabs(d) > 9007199254740992.0) {
		sub = xasprintf("%s.%s", path, key);
		fail(p, sub, "expected an integer");
		free(sub);
		return -1;
	}
	*out = (int64_t)d;
	return 0;
}

static int
get_strv(struct jp *p, const cJSON *obj, const char *path, const char *key,
    char ***out, size_t *nout)
{
	const cJSON *v = item(obj, key), *c;
	char *sub = xasprintf("%s.%s", path, key);
	size_t n = 0, i = 0;
	char **arr;

	if (!cJSON_IsArray(v)) {
		fail(p, sub, "expected an array of strings");
		free(sub);
		return -1;
	}
	for (c = v->child; c != NULL; c = c->next)
		n++;
	arr = xcalloc(n + 1, sizeof(*arr));
	for (c = v->child; c != NULL; c = c->next, i++) {
		if (!cJSON_IsString(c)) {
			fail(p, sub, "expected an array of strings");
			break;
		}
		arr[i] = xstrdup(c->valuestring);
	}
	free(sub);
	*out = arr;
	*nout = i;
	return c == NULL ? 0 : -1;
}

static int
parse_routing_set(struct jp *p, const cJSON *obj, const char *path,
    unsigned *out)
{
	char **v = NULL;
	size_t n = 0, i;
	unsigned r, set = 0;
	int rc;

	rc = get_strv(p, obj, path, "routing", &v, &n);
	for (i = 0; rc == 0 && i < n; i++) {
		if (strcmp(v[i], "anycast") != 0 &&
		    strcmp(v[i], "multicast") != 0) {
			rc = fail(p, path, "unknown routing type '%s'", v[i]);
			break;
		}
		(void)recon_routing_parse(v[i], &r);
		set |= r;
	}
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
	*out = set;
	return rc;
}

static const char *const address_keys[] = {"auto_created", "binding_names",
    "internal", "name", "queue_names", "routing"};

static int
parse_address(struct jp *p, const cJSON *o, const char *path, void *vout)
{
	struct recon_address *a = vout;
	if (check_keys(p, o, path, address_keys, 6) < 0 ||
	    get_str(p, o, path, "name", false, &a->name) < 0 ||
	    get_bool(p, o, path, "auto_created", &a->auto_created) < 0 ||
	    get_bool(p, o, path, "internal", &a->internal) < 0 ||
	    get_strv(p, o, path, "binding_names", &a->binding_names,
	        &a->nbinding_names) < 0 ||
	    get_strv(p, o, path, "queue_names", &a->queue_names,
	        &a->nqueue_names) < 0)
		return -1;
	return parse_routing_set(p, o, path, &a->routing);
}

static const char *const queue_keys[] = {"address", "auto_created",
    "configuration_managed", "consumer_count", "consumers_before_dispatch",
    "delay_before_dispatch", "durable", "enabled", "exclusive", "filter",
    "internal", "last_value_key", "max_consumers", "message_count", "name",
    "purge_on_no_consumers", "ring_size", "routing"};

static int
parse_queue(struct jp *p, const cJSON *o, const char *path, void *vout)
{
	struct recon_queue *q = vout;
	char *routing = NULL;
	int rc;

	if (check_keys(p, o, path, queue_keys, 18) < 0 ||
	    get_str(p, o, path, "name", false, &q->name) < 0 ||
	    get_str(p, o, path, "address", false, &q->address) < 0 ||
	    get_bool(p, o, path, "auto_created", &q->auto_created) < 0 ||
	    get_bool(p, o, path, "configuration_managed",
	        &q->configuration_managed) < 0 ||
	    get_int(p, o, path, "consumer_count", &q->consumer_count) < 0 ||
	    get_int(p, o, path, "consumers_before_dispatch",
	        &q->consumers_before_dispatch) < 0 ||
	    get_int(p, o, path, "delay_before_dispatch",
	        &q->delay_before_dispatch) < 0 ||
	    get_bool(p, o, path, "durable", &q->durable) < 0 ||
	    get_bool(p, o, path, "enabled", &q->enabled) < 0 ||
	    get_bool(p, o, path, "exclusive", &q->exclusive) < 0 ||
	    get_str(p, o, path, "filter", true, &q->filter) < 0 ||
	    get_bool(p, o, path, "internal", &q->internal) < 0 ||
	    get_str(p, o, path, "last_value_key", true, &q->last_value_key) <
	        0 ||
	    get_int(p, o, path, "max_consumers", &q->max_consumers) < 0 ||
	    get_int(p, o, path, "message_count", &q->message_count) < 0 ||
	    get_bool(p, o, path, "purge_on_no_consumers",
	        &q->purge_on_no_consumers) < 0 ||
	    get_int(p, o, path, "ring_size", &q->ring_size) < 0 ||
	    get_str(p, o, path, "routing", false, &routing) < 0)
		return -1;
	rc = 0;
	if (strcmp(routing, "anycast") != 0 &&
	    strcmp(routing, "multicast") != 0)
		rc = fail(p, path, "unknown routing type '%s'", routing);
	else
		(void)recon_routing_parse(routing, &q->routing);
	free(routing);
	return rc;
}

static int
parse_props(struct jp *p, const cJSON *o, const char *path,
    struct recon_divert *d)
{
	const cJSON *v = item(o, "transformer_properties"), *c;
	char *sub = xasprintf("%s.transformer_properties", path);
	size_t n = 0;
	int rc = 0;

	if (!cJSON_IsObject(v))
		rc = fail(p, sub, "expected an object");
	for (c = rc == 0 ? v->child : NULL; c != NULL; c = c->next)
		n++;
	d->transformer_properties = xcalloc(n + 1, sizeof(struct decl_kv));
	for (c = rc == 0 ? v->child : NULL; c != NULL; c = c->next) {
		if (!cJSON_IsString(c)) {
			rc = fail(p, sub, "value of '%s' is not a string",
			    c->string);
			break;
		}
		if (d->ntransformer_properties > 0 &&
		    strcmp(
		        d->transformer_properties[d->ntransformer_properties -
		                                  1]
		            .key,
		        c->string) >= 0) {
			rc = fail(p, sub, "key '%s' duplicate or not sorted",
			    c->string);
			break;
		}
		d->transformer_properties[d->ntransformer_properties].key =
		    xstrdup(c->string);
		d->transformer_properties[d->ntransformer_properties++].value =
		    xstrdup(c->valuestring);
	}
	free(sub);
	return rc;
}

static const char *const divert_keys[] = {"address", "exclusive", "filter",
    "forwarding_address", "name", "routing_name", "routing_type",
    "transformer_class_name", "transformer_properties"};

static int
parse_divert(struct jp *p, const cJSON *o, const char *path, void *vout)
{
	struct recon_divert *d = vout;
	char *rt = NULL;
	int rc = 0;

	if (check_keys(p, o, path, divert_keys, 9) < 0 ||
	    get_str(p, o, path, "name", false, &d->name) < 0 ||
	    get_str(p, o, path, "address", false, &d->address) < 0 ||
	    get_bool(p, o, path, "exclusive", &d->exclusive) < 0 ||
	    get_str(p, o, path, "filter", true, &d->filter) < 0 ||
	    get_str(p, o, path, "forwarding_address", false,
	        &d->forwarding_address) < 0 ||
	    get_str(p, o, path, "routing_name", true, &d->routing_name) < 0 ||
	    get_str(p, o, path, "transformer_class_name", true,
	        &d->transformer_class_name) < 0 ||
	    parse_props(p, o, path, d) < 0 ||
	    get_str(p, o, path, "routing_type", false, &rt) < 0)
		return -1;
	if (recon_divert_routing_parse(rt, &d->routing_type) < 0)
		rc = fail(p, path, "unknown divert routing type '%s'", rt);
	free(rt);
	return rc;
}

static const char *const settings_keys[] = {"config_delete_addresses",
    "config_delete_diverts", "config_delete_queues", "match"};

static int
parse_settings(struct jp *p, const cJSON *o, const char *path, void *vout)
{
	struct recon_address_settings *s = vout;
	if (check_keys(p, o, path, settings_keys, 4) < 0 ||
	    get_str(p, o, path, "match", false, &s->match) < 0 ||
	    get_str(p, o, path, "config_delete_addresses", true,
	        &s->config_delete_addresses) < 0 ||
	    get_str(p, o, path, "config_delete_diverts", true,
	        &s->config_delete_diverts) < 0 ||
	    get_str(p, o, path, "config_delete_queues", true,
	        &s->config_delete_queues) < 0)
		return -1;
	return 0;
}

static const char *const refusal_keys[] = {"http_status", "kind", "status",
    "text"};

static int
parse_refusal(struct jp *p, const cJSON *o, const char *path,
    struct recon_refusal *r)
{
	const cJSON *v = item(o, "refusal");
	char *sub = xasprintf("%s.refusal", path), *kind = NULL;
	int64_t hs = 0, st = 0;
	int rc = 0;

	if (cJSON_IsNull(v))
		goto done;
	if (check_keys(p, v, sub, refusal_keys, 4) < 0 ||
	    get_str(p, v, sub, "kind", false, &kind) < 0 ||
	    get_int(p, v, sub, "http_status", &hs) < 0 ||
	    get_int(p, v, sub, "status", &st) < 0 ||
	    get_str(p, v, sub, "text", false, &r->text) < 0) {
		rc = -1;
		goto done;
	}
	if (recon_kind_parse(kind, &r->kind) < 0 || r->kind == RECON_OK ||
	    hs < 0 || hs > 999 || st < 0 || st > 999)
		rc = fail(p, sub, "bad refusal (kind '%s')", kind);
	r->http_status = (int)hs;
	r->status = (int)st;
done:
	free(kind);
	free(sub);
	return rc;
}

typedef int (*item_fn)(struct jp *, const cJSON *, const char *, void *);

/* Parse the array obj[key] into *arr of elsize-byte elements. *n counts
 * the elements touched (so a failure still frees them). */
static int
parse_array(struct jp *p, const cJSON *obj, const char *path, const char *key,
    size_t elsize, void **arr, size_t *n, item_fn fn)
{
	const cJSON *v = item(obj, key), *c;
	char *sub;
	size_t cnt = 0;
	int rc = 0;

	if (!cJSON_IsArray(v)) {
		sub = xasprintf("%s%s%s", path, path[0] ? "." : "", key);
		rc = fail(p, sub, "expected an array");
		free(sub);
		return rc;
	}
	for (c = v->child; c != NULL; c = c->next)
		cnt++;
	*arr = xcalloc(cnt + 1, elsize);
	for (c = v->child; c != NULL && rc == 0; c = c->next) {
		sub =
		    xasprintf("%s%s%s[%zu]", path, path[0] ? "." : "", key, *n);
		rc = fn(p, c, sub, (char *)*arr + *n * elsize);
		(*n)++;
		free(sub);
	}
	return rc;
}

/* True when the array is sorted by the leading name, without repeats. */
static bool
sorted_unique(const void *arr, size_t n, size_t elsize)
{
	size_t i;
	const char *a, *b;

	for (i = 1; i < n; i++) {
		a = *(char *const *)(const void *)((const char *)arr +
		                                   (i - 1) * elsize);
		b = *(char *const *)(const void *)((const char *)arr +
		                                   i * elsize);
		if (strcmp(a, b) >= 0)
			return false;
	}
	return true;
}

#define PARSE_ARRAY(p, o, path, key, arr, n, fn)                               \
	parse_array(p, o, path, key, sizeof(*(arr)), (void **)&(arr), &(n), fn)

static const char *const node_keys[] = {"address_settings", "addresses",
    "broker_name", "broker_version", "diverts", "node", "queues", "refusal",
    "requests", "url"};

static int
parse_node(struct jp *p, const cJSON *o, const char *path, void *vout)
{
	struct recon_node_snapshot *n = vout;
	int64_t req = 0;

	if (check_keys(p, o, path, node_keys, 10) < 0 ||
	    get_str(p, o, path, "node", false, &n->node) < 0 ||
	    get_str(p, o, path, "url", false, &n->url) < 0 ||
	    get_str(p, o, path, "broker_name", true, &n->broker_name) < 0 ||
	    get_str(p, o, path, "broker_version", true, &n->broker_version) <
	        0 ||
	    get_int(p, o, path, "requests", &req) < 0 ||
	    parse_refusal(p, o, path, &n->refusal) < 0 ||
	    PARSE_ARRAY(p, o, path, "addresses", n->addresses, n->naddresses,
	        parse_address) < 0 ||
	    PARSE_ARRAY(p, o, path, "queues", n->queues, n->nqueues,
	        parse_queue) < 0 ||
	    PARSE_ARRAY(p, o, path, "diverts", n->diverts, n->ndiverts,
	        parse_divert) < 0 ||
	    PARSE_ARRAY(p, o, path, "address_settings", n->address_settings,
	        n->naddress_settings, parse_settings) < 0)
		return -1;
	if (req < 0 || req > 1000000)
		return fail(p, path, "requests out of range");
	n->requests = (unsigned)req;
	if (!sorted_unique(n->addresses, n->naddresses, sizeof(*n->addresses)))
		return fail(p, path,
		    "addresses not sorted by name or repeated");
	if (!sorted_unique(n->queues, n->nqueues, sizeof(*n->queues)))
		return fail(p, path, "queues not sorted by name or repeated");
	if (!sorted_unique(n->diverts, n->ndiverts, sizeof(*n->diverts)))
		return fail(p, path, "diverts not sorted by name or repeated");
	n->index = recon_node_index_build(n);
	return 0;
}

static const char *const top_keys[] = {"cluster", "format", "nodes",
    "taken_at"};

static int
parse_top(struct jp *p, const cJSON *root, struct recon_snapshot *s)
{
	int64_t format = 0;

	if (check_keys(p, root, "", top_keys, 4) < 0 ||
	    get_int(p, root, "", "format", &format) < 0)
		return -1;
	if (format != RECON_SNAPSHOT_FORMAT)
		return fail(p, "format",
		    "unsupported snapshot format %lld (expected %d)",
		    (long long)format, RECON_SNAPSHOT_FORMAT);
	if (get_str(p, root, "", "cluster", false, &s->cluster) < 0 ||
	    get_str(p, root, "", "taken_at", false, &s->taken_at) < 0)
		return -1;
	return PARSE_ARRAY(p, root, "", "nodes", s->nodes, s->nnodes,
	    parse_node);
}

int
recon_snapshot_parse_json(struct recon_snapshot **out, const char *path,
    const char *text, size_t len, struct err *err)
{
	struct jp p = {path, err};
	struct recon_snapshot *s;
	cJSON *root;
	const char *end = NULL;
	int rc;

	root = cJSON_ParseWithLengthOpts(text, len, &end, false);
	if (root == NULL) {
		struct pos pos = {path, 0, 0};

		return err_setf(err, &pos, "not valid JSON near byte %zu",
		    end != NULL && end >= text ? (size_t)(end - text) : 0);
	}
	s = xcalloc(1, sizeof(*s));
	rc = parse_top(&p, root, s);
	cJSON_Delete(root);
	if (rc < 0) {
		recon_snapshot_free(s);
		return -1;
	}
	*out = s;
	return 0;
}
