/* reconcile/live/snapshot-parse.c: read back what live_snapshot_render_json
 * wrote. Strict: every key must be present with its type, unknown and
 * duplicate keys are refused, and each error names its JSON path, e.g.
 * `snap.json: nodes[0].queues[2].durable: expected a boolean`; a syntax
 * error names its line and column.
 *
 * It pulls tokens from lib/jsonr.c straight into the model: neither the
 * text nor a DOM is held, so a recording of many nodes costs the model's
 * memory only (bench/README.md). */

#include "live-int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/afile.h"
#include "../../lib/jsonr.h"
#include "../../lib/xalloc.h"

/* Where a value sits, built on the stack as the reader descends and
 * rendered only for an error: "nodes[0].queues[2]". */
struct jpath {
	const struct jpath *up;
	const char *key; /* NULL at the top */
	long idx;        /* -1: no index */
};

struct jp {
	const char *file;
	struct err *err;
	struct jsonr r;
	bool failed;
	/* the names every node shares (a reference held by each node) */
	struct strpool *pool;
};

static void
path_render(struct sbuf *b, const struct jpath *at)
{
	if (at == NULL || at->key == NULL)
		return;
	path_render(b, at->up);
	if (b->len > 0)
		sbuf_addc(b, '.');
	sbuf_adds(b, at->key);
	if (at->idx >= 0)
		sbuf_addf(b, "[%ld]", at->idx);
}

static int fail(struct jp *p, const struct jpath *at, const char *key,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* "file: path[.key]: message"; the reader's syntax error instead when
 * there is one (then at line and column). Returns -1. */
static int
fail(struct jp *p, const struct jpath *at, const char *key, const char *fmt,
    ...)
{
	struct pos pos = {p->file, 0, 0};
	struct sbuf path = {0};
	char *msg = NULL;
	va_list ap;

	if (p->failed)
		return -1;
	p->failed = true;
	if (p->r.error != NULL) {
		pos.line = p->r.err_line;
		pos.col = p->r.err_col;
		return err_setf(p->err, &pos, "not valid JSON: %s", p->r.error);
	}
	path_render(&path, at);
	if (key != NULL) {
		if (path.len > 0)
			sbuf_addc(&path, '.');
		sbuf_adds(&path, key);
	}
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	(void)err_setf(p->err, &pos, "%s: %s",
	    path.len > 0 ? sbuf_str(&path) : "$", msg != NULL ? msg : "error");
	free(msg);
	sbuf_release(&path);
	return -1;
}

/* ---- typed values: t is the value's first token, already pulled ---- */

static int
val_str(struct jp *p, enum jsonr_tok t, const struct jpath *at, const char *key,
    bool nullable, char **out)
{
	if (nullable && t == JSONR_NULL) {
		*out = NULL;
		return 0;
	}
	if (t != JSONR_STR)
		return fail(p, at, key, "expected a string%s",
		    nullable ? " or null" : "");
	*out = xstrdup(sbuf_str(&p->r.str));
	return 0;
}

/* val_str into the pool: for the pooled fields of queues and addresses. */
static int
val_pstr(struct jp *p, enum jsonr_tok t, const struct jpath *at,
    const char *key, bool nullable, char **out)
{
	const char *s;

	if (nullable && t == JSONR_NULL) {
		*out = NULL;
		return 0;
	}
	if (t != JSONR_STR)
		return fail(p, at, key, "expected a string%s",
		    nullable ? " or null" : "");
	s = sbuf_str(&p->r.str);
	*out = strpool_intern(p->pool, s, strlen(s));
	return 0;
}

static int
val_bool(struct jp *p, enum jsonr_tok t, const struct jpath *at,
    const char *key, bool *out)
{
	if (t != JSONR_TRUE && t != JSONR_FALSE)
		return fail(p, at, key, "expected a boolean");
	*out = t == JSONR_TRUE;
	return 0;
}

/* An integral number of magnitude at most 2^53 (LIVE_INT_MAX): an int64
 * written as an integer, or an integral double. */
static int
val_int(struct jp *p, enum jsonr_tok t, const struct jpath *at, const char *key,
    int64_t *out)
{
	double d = t == JSONR_NUM ? p->r.num : 0.5;

	if (t == JSONR_NUM && p->r.is_int) {
		if (p->r.inum < -LIVE_INT_MAX || p->r.inum > LIVE_INT_MAX)
			return fail(p, at, key,
			    "%lld is past 2^53 (integers must be within "
			    "+-9007199254740992)",
			    (long long)p->r.inum);
		*out = p->r.inum;
		return 0;
	}
	if (d != floor(d))
		return fail(p, at, key, "expected an integer");
	if (fabs(d) > (double)LIVE_INT_MAX)
		return fail(p, at, key,
		    "%.17g is past 2^53 (integers must be within "
		    "+-9007199254740992)",
		    d);
	*out = (int64_t)d;
	return 0;
}

/* val_int, within lo..hi. */
static int
val_int_in(struct jp *p, enum jsonr_tok t, const struct jpath *at,
    const char *key, int64_t lo, int64_t hi, int64_t *out)
{
	int64_t v = 0;

	if (val_int(p, t, at, key, &v) < 0)
		return -1;
	if (v < lo || v > hi)
		return fail(p, at, key, "%lld is out of range (%lld to %lld)",
		    (long long)v, (long long)lo, (long long)hi);
	*out = v;
	return 0;
}

/* An array of strings; pooled: each the pool's (else owned). */
static int
val_strv_in(struct jp *p, enum jsonr_tok t, const struct jpath *at,
    const char *key, bool pooled, char ***out, size_t *nout)
{
	size_t cap = 0;
	const char *s;

	*out = NULL;
	*nout = 0;
	if (t != JSONR_ARR_BEGIN)
		return fail(p, at, key, "expected an array of strings");
	for (;;) {
		t = jsonr_next(&p->r);
		if (t == JSONR_ARR_END)
			break;
		if (t != JSONR_STR)
			return fail(p, at, key, "expected an array of strings");
		xgrow(out, &cap, *nout + 2, sizeof(**out));
		s = sbuf_str(&p->r.str);
		(*out)[(*nout)++] =
		    pooled ? strpool_intern(p->pool, s, strlen(s)) : xstrdup(s);
		(*out)[*nout] = NULL;
	}
	if (*out == NULL)
		*out = xcalloc(1, sizeof(**out));
	else if (cap > *nout + 1)
		*out = xrealloc(*out, (*nout + 1) * sizeof(**out));
	return 0;
}

static int
val_strv(struct jp *p, enum jsonr_tok t, const struct jpath *at,
    const char *key, char ***out, size_t *nout)
{
	return val_strv_in(p, t, at, key, false, out, nout);
}

/* ---- objects ---------------------------------------------------------
 * An object reader pulls each key, finds it in the sorted table `keys`
 * (the canonical order makes the next key the likely one) and hands its
 * value to `field`; unknown, repeated and missing keys are refused. */

typedef int (*field_fn)(struct jp *p, const struct jpath *at, size_t key,
    enum jsonr_tok t, void *out);

/* An object of keys[0..nkeys), each required unless its bit is set in
 * optional (keys added to the format later: absent in older snapshots). */
static int
read_object_opt(struct jp *p, enum jsonr_tok t, const struct jpath *at,
    const char *const *keys, size_t nkeys, uint32_t optional, field_fn field,
    void *out)
{
	uint32_t seen = 0;
	size_t hint = 0, k;
	const char *name;

	if (t != JSONR_OBJ_BEGIN)
		return fail(p, at, NULL, "expected an object");
	for (;;) {
		t = jsonr_next(&p->r);
		if (t == JSONR_OBJ_END)
			break;
		if (t != JSONR_KEY)
			return fail(p, at, NULL, "expected a key");
		name = sbuf_str(&p->r.str);
		k = hint < nkeys && strcmp(keys[hint], name) == 0 ? hint
		                                                  : nkeys;
		for (size_t i = 0; k == nkeys && i < nkeys; i++)
			if (strcmp(keys[i], name) == 0)
				k = i;
		if (k == nkeys)
			return fail(p, at, NULL, "unknown key '%s'", name);
		if (seen & (UINT32_C(1) << k))
			return fail(p, at, NULL, "duplicate key '%s'", name);
		seen |= UINT32_C(1) << k;
		hint = k + 1;
		if (field(p, at, k, jsonr_next(&p->r), out) < 0)
			return -1;
	}
	for (k = 0; k < nkeys; k++)
		if (!((seen | optional) & (UINT32_C(1) << k)))
			return fail(p, at, NULL, "missing key '%s'", keys[k]);
	return 0;
}

static int
read_object(struct jp *p, enum jsonr_tok t, const struct jpath *at,
    const char *const *keys, size_t nkeys, field_fn field, void *out)
{
	return read_object_opt(p, t, at, keys, nkeys, 0, field, out);
}

typedef int (*elem_fn)(struct jp *p, const struct jpath *at, enum jsonr_tok t,
    void *elem);

/* The array at key of `at` into *arr of elsize-byte elements, each zeroed
 * and counted before it is read (so a failure still frees it). */
static int
read_array(struct jp *p, enum jsonr_tok t, const struct jpath *at,
    const char *key, size_t elsize, void **arr, size_t *n, elem_fn fn)
{
	struct jpath el = {at, key, 0};
	size_t cap = 0;

	if (t != JSONR_ARR_BEGIN)
		return fail(p, at, key, "expected an array");
	for (;;) {
		t = jsonr_next(&p->r);
		if (t == JSONR_ARR_END)
			break;
		xgrow(arr, &cap, *n + 1, elsize);
		memset((char *)*arr + *n * elsize, 0, elsize);
		el.idx = (long)*n;
		(*n)++;
		if (fn(p, &el, t, (char *)*arr + (*n - 1) * elsize) < 0)
			return -1;
	}
	if (*arr == NULL)
		*arr = xcalloc(1, elsize);
	else if (cap > *n + 1)
		*arr = xrealloc(*arr, (*n + 1) * elsize);
	return 0;
}

/* ---- addresses ---- */

static const char *const address_keys[] = {"auto_created", "binding_names",
    "internal", "name", "queue_names", "routing"};

static int
routing_set(struct jp *p, enum jsonr_tok t, const struct jpath *at,
    unsigned *out)
{
	char **v = NULL;
	size_t n = 0, i;
	unsigned r, set = 0;
	int rc;

	rc = val_strv(p, t, at, "routing", &v, &n);
	for (i = 0; rc == 0 && i < n; i++) {
		/* a snapshot file spells it in lower case only */
		if (decl_routing_parse(v[i], &r) < 0 ||
		    strcmp(v[i], decl_routing_name(r)) != 0) {
			rc = fail(p, at, NULL, "unknown routing type '%s'",
			    v[i]);
			break;
		}
		set |= r;
	}
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
	*out = set;
	return rc;
}

static int
address_field(struct jp *p, const struct jpath *at, size_t k, enum jsonr_tok t,
    void *out)
{
	struct recon_address *a = out;

	switch (k) {
	case 0:
		return val_bool(p, t, at, "auto_created", &a->auto_created);
	case 1:
		return val_strv_in(p, t, at, "binding_names", true,
		    &a->binding_names, &a->nbinding_names);
	case 2:
		return val_bool(p, t, at, "internal", &a->internal);
	case 3:
		return val_pstr(p, t, at, "name", false, &a->name);
	case 4:
		return val_strv_in(p, t, at, "queue_names", true,
		    &a->queue_names, &a->nqueue_names);
	default:
		return routing_set(p, t, at, &a->routing);
	}
}

static int
parse_address(struct jp *p, const struct jpath *at, enum jsonr_tok t, void *out)
{
	((struct recon_address *)out)->pooled = true;
	return read_object(p, t, at, address_keys, 6, address_field, out);
}

/* ---- queues ---- */

static const char *const queue_keys[] = {"address", "auto_created",
    "configuration_managed", "consumer_count", "consumers_before_dispatch",
    "delay_before_dispatch", "durable", "enabled", "exclusive", "filter",
    "internal", "last_value_key", "max_consumers", "message_count", "name",
    "purge_on_no_consumers", "ring_size", "routing", "temporary"};

static int
queue_routing(struct jp *p, enum jsonr_tok t, const struct jpath *at,
    struct recon_queue *q)
{
	const char *s;

	if (t != JSONR_STR)
		return fail(p, at, "routing", "expected a string");
	s = sbuf_str(&p->r.str);
	if (decl_routing_parse(s, &q->routing) < 0 ||
	    strcmp(s, decl_routing_name(q->routing)) != 0)
		return fail(p, at, NULL, "unknown routing type '%s'", s);
	return 0;
}

static int
queue_field(struct jp *p, const struct jpath *at, size_t k, enum jsonr_tok t,
    void *out)
{
	struct recon_queue *q = out;

	switch (k) {
	case 0:
		return val_pstr(p, t, at, "address", false, &q->address);
	case 1:
		return val_bool(p, t, at, "auto_created", &q->auto_created);
	case 2:
		return val_bool(p, t, at, "configuration_managed",
		    &q->configuration_managed);
	case 3:
		return val_int_in(p, t, at, "consumer_count", 0,
		    LIVE_CONSUMERS_MAX, &q->consumer_count);
	case 4:
		return val_int(p, t, at, "consumers_before_dispatch",
		    &q->consumers_before_dispatch);
	case 5:
		return val_int(p, t, at, "delay_before_dispatch",
		    &q->delay_before_dispatch);
	case 6:
		return val_bool(p, t, at, "durable", &q->durable);
	case 7:
		return val_bool(p, t, at, "enabled", &q->enabled);
	case 8:
		return val_bool(p, t, at, "exclusive", &q->exclusive);
	case 9:
		return val_pstr(p, t, at, "filter", true, &q->filter);
	case 10:
		return val_bool(p, t, at, "internal", &q->internal);
	case 11:
		return val_pstr(p, t, at, "last_value_key", true,
		    &q->last_value_key);
	case 12:
		return val_int(p, t, at, "max_consumers", &q->max_consumers);
	case 13:
		return val_int_in(p, t, at, "message_count", 0, LIVE_INT_MAX,
		    &q->message_count);
	case 14:
		return val_pstr(p, t, at, "name", false, &q->name);
	case 15:
		return val_bool(p, t, at, "purge_on_no_consumers",
		    &q->purge_on_no_consumers);
	case 16:
		return val_int(p, t, at, "ring_size", &q->ring_size);
	case 17:
		return queue_routing(p, t, at, q);
	default:
		return val_bool(p, t, at, "temporary", &q->temporary);
	}
}

static int
parse_queue(struct jp *p, const struct jpath *at, enum jsonr_tok t, void *out)
{
	((struct recon_queue *)out)->pooled = true;
	/* temporary: written only when true (issue 17) */
	return read_object_opt(p, t, at, queue_keys, 19, UINT32_C(1) << 18,
	    queue_field, out);
}

/* ---- diverts ---- */

static const char *const divert_keys[] = {"address", "exclusive", "filter",
    "forwarding_address", "name", "routing_name", "routing_type",
    "transformer_class_name", "transformer_properties"};

/* An object of string values with sorted, unique keys. */
static int
divert_props(struct jp *p, enum jsonr_tok t, const struct jpath *at,
    struct recon_divert *d)
{
	const char *key = "transformer_properties";
	struct decl_kv *kv;
	size_t cap = 0;
	char *name;

	if (t != JSONR_OBJ_BEGIN)
		return fail(p, at, key, "expected an object");
	for (;;) {
		t = jsonr_next(&p->r);
		if (t == JSONR_OBJ_END)
			break;
		if (t != JSONR_KEY)
			return fail(p, at, key, "expected a key");
		if (d->ntransformer_properties > 0 &&
		    strcmp(
		        d->transformer_properties[d->ntransformer_properties -
		                                  1]
		            .key,
		        sbuf_str(&p->r.str)) >= 0)
			return fail(p, at, key,
			    "key '%s' duplicate or not sorted",
			    sbuf_str(&p->r.str));
		name = xstrdup(sbuf_str(&p->r.str));
		if (jsonr_next(&p->r) != JSONR_STR) {
			fail(p, at, key, "value of '%s' is not a string", name);
			free(name);
			return -1;
		}
		xgrow(&d->transformer_properties, &cap,
		    d->ntransformer_properties + 1, sizeof(struct decl_kv));
		kv = &d->transformer_properties[d->ntransformer_properties++];
		kv->key = name;
		kv->value = xstrdup(sbuf_str(&p->r.str));
	}
	if (d->transformer_properties == NULL)
		d->transformer_properties = xcalloc(1, sizeof(struct decl_kv));
	return 0;
}

static int
divert_routing(struct jp *p, enum jsonr_tok t, const struct jpath *at,
    struct recon_divert *d)
{
	if (t != JSONR_STR)
		return fail(p, at, "routing_type", "expected a string");
	if (decl_divert_routing_parse(sbuf_str(&p->r.str), &d->routing_type) <
	    0)
		return fail(p, at, NULL, "unknown divert routing type '%s'",
		    sbuf_str(&p->r.str));
	return 0;
}

static int
divert_field(struct jp *p, const struct jpath *at, size_t k, enum jsonr_tok t,
    void *out)
{
	struct recon_divert *d = out;

	switch (k) {
	case 0:
		return val_pstr(p, t, at, "address", false, &d->address);
	case 1:
		return val_bool(p, t, at, "exclusive", &d->exclusive);
	case 2:
		return val_pstr(p, t, at, "filter", true, &d->filter);
	case 3:
		return val_pstr(p, t, at, "forwarding_address", false,
		    &d->forwarding_address);
	case 4:
		return val_pstr(p, t, at, "name", false, &d->name);
	case 5:
		return val_pstr(p, t, at, "routing_name", true,
		    &d->routing_name);
	case 6:
		return divert_routing(p, t, at, d);
	case 7:
		return val_pstr(p, t, at, "transformer_class_name", true,
		    &d->transformer_class_name);
	default:
		return divert_props(p, t, at, d);
	}
}

static int
parse_divert(struct jp *p, const struct jpath *at, enum jsonr_tok t, void *out)
{
	((struct recon_divert *)out)->pooled = true;
	return read_object(p, t, at, divert_keys, 9, divert_field, out);
}

/* ---- address-settings, refusal ---- */

static const char *const settings_keys[] = {"config_delete_addresses",
    "config_delete_diverts", "config_delete_queues", "match"};

static int
settings_field(struct jp *p, const struct jpath *at, size_t k, enum jsonr_tok t,
    void *out)
{
	struct recon_address_settings *s = out;

	switch (k) {
	case 0:
		return val_str(p, t, at, "config_delete_addresses", true,
		    &s->config_delete_addresses);
	case 1:
		return val_str(p, t, at, "config_delete_diverts", true,
		    &s->config_delete_diverts);
	case 2:
		return val_str(p, t, at, "config_delete_queues", true,
		    &s->config_delete_queues);
	default:
		return val_str(p, t, at, "match", false, &s->match);
	}
}

static int
parse_settings(struct jp *p, const struct jpath *at, enum jsonr_tok t,
    void *out)
{
	return read_object(p, t, at, settings_keys, 4, settings_field, out);
}

static const char *const refusal_keys[] = {"http_status", "kind", "status",
    "text"};

struct refusal_in {
	struct recon_refusal *r;
	char *kind;
	int64_t hs, st;
};

static int
refusal_field(struct jp *p, const struct jpath *at, size_t k, enum jsonr_tok t,
    void *out)
{
	struct refusal_in *in = out;

	switch (k) {
	case 0:
		return val_int(p, t, at, "http_status", &in->hs);
	case 1:
		return val_str(p, t, at, "kind", false, &in->kind);
	case 2:
		return val_int(p, t, at, "status", &in->st);
	default:
		return val_str(p, t, at, "text", false, &in->r->text);
	}
}

static int
parse_refusal(struct jp *p, enum jsonr_tok t, const struct jpath *node,
    struct recon_refusal *r)
{
	struct jpath at = {node, "refusal", -1};
	struct refusal_in in = {r, NULL, 0, 0};
	int rc;

	if (t == JSONR_NULL)
		return 0;
	rc = read_object(p, t, &at, refusal_keys, 4, refusal_field, &in);
	if (rc == 0 &&
	    (recon_kind_parse(in.kind, &r->kind) < 0 || r->kind == RECON_OK ||
	        in.hs < 0 || in.hs > 999 || in.st < 0 || in.st > 999))
		rc = fail(p, &at, NULL, "bad refusal (kind '%s')", in.kind);
	r->http_status = (int)in.hs;
	r->status = (int)in.st;
	free(in.kind);
	return rc;
}

/* ---- HA: a broker's state, an HA node's members ---- */

static const char *const ha_keys[] = {"active", "backup", "node_id", "policy",
    "replica_sync"};

static int
ha_field(struct jp *p, const struct jpath *at, size_t k, enum jsonr_tok t,
    void *out)
{
	struct recon_ha *h = out;
	bool b = false;

	switch (k) {
	case 0:
		return val_bool(p, t, at, "active", &h->active);
	case 1:
		return val_bool(p, t, at, "backup", &h->backup);
	case 2:
		return val_str(p, t, at, "node_id", true, &h->node_id);
	case 3:
		return val_str(p, t, at, "policy", true, &h->policy);
	default:
		if (t == JSONR_NULL) {
			h->replica_sync = -1;
			return 0;
		}
		if (val_bool(p, t, at, "replica_sync", &b) < 0)
			return -1;
		h->replica_sync = b;
		return 0;
	}
}

static int
parse_ha(struct jp *p, enum jsonr_tok t, const struct jpath *owner,
    struct recon_ha *h)
{
	struct jpath at = {owner, "ha", -1};

	if (read_object(p, t, &at, ha_keys, 5, ha_field, h) < 0)
		return -1;
	h->known = true;
	return 0;
}

static const char *const member_keys[] = {"broker_name", "broker_version", "ha",
    "name", "refusal", "requests", "url"};

static int
member_field(struct jp *p, const struct jpath *at, size_t k, enum jsonr_tok t,
    void *out)
{
	struct recon_member *m = out;
	int64_t req = 0;

	switch (k) {
	case 0:
		return val_str(p, t, at, "broker_name", true, &m->broker_name);
	case 1:
		return val_str(p, t, at, "broker_version", true,
		    &m->broker_version);
	case 2:
		return parse_ha(p, t, at, &m->ha);
	case 3:
		return val_str(p, t, at, "name", false, &m->name);
	case 4:
		return parse_refusal(p, t, at, &m->refusal);
	case 5:
		if (val_int_in(p, t, at, "requests", 0, 1000000, &req) < 0)
			return -1;
		m->requests = (unsigned)req;
		return 0;
	default:
		return val_str(p, t, at, "url", false, &m->url);
	}
}

static int
parse_member(struct jp *p, const struct jpath *at, enum jsonr_tok t, void *out)
{
	struct recon_member *m = out;

	m->ha.replica_sync = -1;
	/* "ha" is absent for a member whose broker was not read */
	return read_object_opt(p, t, at, member_keys, 7, UINT32_C(1) << 2,
	    member_field, out);
}

/* An HA node's members and its live member agree: names unique, the live
 * member (named when the node was read) a member whose state is LIVE, and
 * no member LIVE but that one. */
static int
check_members(struct jp *p, const struct jpath *at,
    const struct recon_node_snapshot *n)
{
	size_t i, j, live = 0;
	bool named = false;

	for (i = 0; i < n->nmembers; i++) {
		for (j = 0; j < i; j++)
			if (strcmp(n->members[i].name, n->members[j].name) == 0)
				return fail(p, at, "members",
				    "member '%s' is listed twice",
				    n->members[i].name);
		if (n->members[i].refusal.kind == RECON_OK)
			live++;
		if (n->member != NULL &&
		    strcmp(n->member, n->members[i].name) == 0)
			named = true;
	}
	if (n->nmembers == 0 && n->member != NULL)
		return fail(p, at, "member",
		    "set, but the node has no members");
	if (n->member != NULL && !named)
		return fail(p, at, "member", "'%s' is not one of the members",
		    n->member);
	if (n->nmembers > 0 && n->refusal.kind == RECON_OK &&
	    (n->member == NULL || live != 1))
		return fail(p, at, "members",
		    "the node was read, so exactly one member is live and named by 'member'");
	return 0;
}

/* ---- nodes ---- */

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

#define READ_ARRAY(p, t, at, key, arr, n, fn)                                  \
	read_array(p, t, at, key, sizeof(*(arr)), (void **)&(arr), &(n), fn)

static const char *const node_keys[] = {"address_settings", "addresses",
    "broker_name", "broker_version", "diverts", "ha", "member", "members",
    "node", "queues", "refusal", "requests", "url"};
/* ha, member and members: absent for a node without members, or one read
 * before they were */
#define NODE_OPTIONAL                                                          \
	((UINT32_C(1) << 5) | (UINT32_C(1) << 6) | (UINT32_C(1) << 7))

static int
node_field(struct jp *p, const struct jpath *at, size_t k, enum jsonr_tok t,
    void *out)
{
	struct recon_node_snapshot *n = out;
	int64_t req = 0;

	switch (k) {
	case 0:
		return READ_ARRAY(p, t, at, "address_settings",
		    n->address_settings, n->naddress_settings, parse_settings);
	case 1:
		return READ_ARRAY(p, t, at, "addresses", n->addresses,
		    n->naddresses, parse_address);
	case 2:
		return val_str(p, t, at, "broker_name", true, &n->broker_name);
	case 3:
		return val_str(p, t, at, "broker_version", true,
		    &n->broker_version);
	case 4:
		return READ_ARRAY(p, t, at, "diverts", n->diverts, n->ndiverts,
		    parse_divert);
	case 5:
		return parse_ha(p, t, at, &n->ha);
	case 6:
		return val_str(p, t, at, "member", true, &n->member);
	case 7:
		return READ_ARRAY(p, t, at, "members", n->members, n->nmembers,
		    parse_member);
	case 8:
		return val_str(p, t, at, "node", false, &n->node);
	case 9:
		return READ_ARRAY(p, t, at, "queues", n->queues, n->nqueues,
		    parse_queue);
	case 10:
		return parse_refusal(p, t, at, &n->refusal);
	case 11:
		if (val_int(p, t, at, "requests", &req) < 0)
			return -1;
		if (req < 0 || req > 1000000)
			return fail(p, at, NULL, "requests out of range");
		n->requests = (unsigned)req;
		return 0;
	default:
		return val_str(p, t, at, "url", true, &n->url);
	}
}

static int
parse_node(struct jp *p, const struct jpath *at, enum jsonr_tok t, void *out)
{
	struct recon_node_snapshot *n = out;

	n->ha.replica_sync = -1;
	n->pool = strpool_ref(p->pool);
	if (read_object_opt(p, t, at, node_keys, 13, NODE_OPTIONAL, node_field,
	        n) < 0)
		return -1;
	if (check_members(p, at, n) < 0)
		return -1;
	if (n->refusal.kind == RECON_OK && n->url == NULL)
		return fail(p, at, "url",
		    "null, but the node was read (its refusal is null)");
	/* a node that was read names its broker and its version (the
	 * writer's rule: only a refused node has them null) */
	if (n->refusal.kind == RECON_OK && n->broker_name == NULL)
		return fail(p, at, "broker_name",
		    "null, but the node was read (its refusal is null)");
	if (n->refusal.kind == RECON_OK && n->broker_version == NULL)
		return fail(p, at, "broker_version",
		    "null, but the node was read (its refusal is null)");
	/* a recorded read of a broker the agent does not manage is planned
	 * as a live one would be: UNSUPPORTED_VERSION */
	if (n->refusal.kind == RECON_OK && live_node_check_version(n))
		return 0;
	/* and a recorded passive broker as PASSIVE */
	if (n->refusal.kind == RECON_OK && live_node_check_passive(n))
		return 0;
	if (!sorted_unique(n->addresses, n->naddresses, sizeof(*n->addresses)))
		return fail(p, at, NULL,
		    "addresses not sorted by name or repeated");
	if (!sorted_unique(n->queues, n->nqueues, sizeof(*n->queues)))
		return fail(p, at, NULL,
		    "queues not sorted by name or repeated");
	if (!sorted_unique(n->diverts, n->ndiverts, sizeof(*n->diverts)))
		return fail(p, at, NULL,
		    "diverts not sorted by name or repeated");
	n->index = live_node_index_build(n);
	return 0;
}

/* ---- the top ---- */

struct node_ref {
	const char *name;
	size_t i;
};

static int
node_ref_cmp(const void *a, const void *b)
{
	const struct node_ref *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c != 0 ? c : (x->i > y->i) - (x->i < y->i);
}

/* Each node once: a second entry of a node would leave the planner the
 * first and hide the other. */
static int
nodes_unique(struct jp *p, const struct jpath *top,
    const struct recon_snapshot *s)
{
	struct node_ref *v = xcalloc(s->nnodes + 1, sizeof(*v));
	struct jpath at = {top, "nodes", 0};
	size_t i;
	int rc = 0;

	for (i = 0; i < s->nnodes; i++) {
		v[i].name = s->nodes[i].node;
		v[i].i = i;
	}
	if (s->nnodes > 1)
		qsort(v, s->nnodes, sizeof(*v), node_ref_cmp);
	for (i = 1; i < s->nnodes && rc == 0; i++)
		if (strcmp(v[i - 1].name, v[i].name) == 0) {
			at.idx = (long)v[i].i;
			rc = fail(p, &at, "node",
			    "node '%s' is listed twice (first at nodes[%zu])",
			    v[i].name, v[i - 1].i);
		}
	free(v);
	return rc;
}

static const char *const top_keys[] = {"cluster", "format", "nodes",
    "taken_at"};

static int
top_field(struct jp *p, const struct jpath *at, size_t k, enum jsonr_tok t,
    void *out)
{
	struct recon_snapshot *s = out;
	int64_t format = 0;

	switch (k) {
	case 0:
		return val_str(p, t, at, "cluster", false, &s->cluster);
	case 1:
		if (val_int(p, t, at, "format", &format) < 0)
			return -1;
		if (format != LIVE_SNAPSHOT_FORMAT)
			return fail(p, at, "format",
			    "unsupported snapshot format %lld (expected %d)",
			    (long long)format, LIVE_SNAPSHOT_FORMAT);
		return 0;
	case 2:
		if (READ_ARRAY(p, t, at, "nodes", s->nodes, s->nnodes,
		        parse_node) < 0)
			return -1;
		return nodes_unique(p, at, s);
	default:
		return val_str(p, t, at, "taken_at", false, &s->taken_at);
	}
}

static int
parse(struct jp *p, struct recon_snapshot **out)
{
	struct jpath top = {NULL, NULL, -1};
	struct recon_snapshot *s = xcalloc(1, sizeof(*s));
	int rc;

	rc = read_object(p, jsonr_next(&p->r), &top, top_keys, 4, top_field, s);
	if (rc == 0 && jsonr_next(&p->r) != JSONR_END)
		rc = fail(p, &top, NULL, "unexpected data after the snapshot");
	if (rc < 0) {
		if (!p->failed) /* a read error surfaced by the reader */
			(void)fail(p, &top, NULL, "not valid JSON");
		live_snapshot_free(s);
		return -1;
	}
	*out = s;
	return 0;
}

int
live_snapshot_parse_json(struct recon_snapshot **out, const char *path,
    const char *text, size_t len, struct err *err)
{
	struct jp p = {path, err, {0}, false, strpool_new()};
	int rc;

	jsonr_init_mem(&p.r, text, len);
	rc = parse(&p, out);
	jsonr_release(&p.r);
	strpool_done(p.pool);
	strpool_unref(p.pool);
	return rc;
}

int
live_snapshot_read_file(struct recon_snapshot **out, const char *path,
    struct err *err)
{
	struct jp p = {path, err, {0}, false, NULL};
	int fd = -1, rc;

	if (afile_open(&fd, NULL, path, AFILE_AT_PATH, err) < 0)
		return -1;
	p.pool = strpool_new();
	jsonr_init_fd(&p.r, fd);
	rc = parse(&p, out);
	jsonr_release(&p.r);
	strpool_done(p.pool);
	strpool_unref(p.pool);
	(void)close(fd);
	return rc;
}
