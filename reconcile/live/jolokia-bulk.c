/* reconcile/live/jolokia-bulk.c: building bulk requests and classifying
 * their replies, read with lib/json (no I/O: see jolokia.c for the
 * transport). */

#include "live-int.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/json.h"
#include "../../lib/jsonr.h"
#include "../../lib/jsonw.h"
#include "../../lib/xalloc.h"

void
live_bulk_release(struct live_bulk *b)
{
	size_t i;

	if (b == NULL)
		return;
	sbuf_release(&b->body);
	if (b->results != NULL)
		for (i = 0; i < b->n; i++)
			recon_refusal_release(&b->results[i].refusal);
	free(b->results);
	free(b->pattern);
	free(b->streamed);
	if (b->docs != NULL)
		for (i = 0; i <= b->n; i++)
			json_doc_free(b->docs[i]);
	free(b->docs);
	memset(b, 0, sizeof(*b));
}

static size_t
begin(struct live_bulk *b, const char *type, const char *mbean, bool pat)
{
	size_t cap = b->alloc;

	xgrow(&b->pattern, &b->alloc, b->n + 1, sizeof(*b->pattern));
	xgrow(&b->streamed, &cap, b->n + 1, sizeof(*b->streamed));
	b->pattern[b->n] = pat;
	b->streamed[b->n] = false;
	if (b->body.max == 0) /* a zeroed bulk: the bound of one POST */
		b->body.max = LIVE_JOLOKIA_MAX_REQUEST;
	sbuf_addc(&b->body, b->n == 0 ? '[' : ',');
	sbuf_adds(&b->body, "{\"type\":");
	jsonw_quote(&b->body, type);
	sbuf_adds(&b->body, ",\"mbean\":");
	jsonw_quote(&b->body, mbean);
	return b->n++;
}

static bool
is_pattern(const char *mbean)
{
	return strpbrk(mbean, "*?") != NULL;
}

static size_t
bulk_read(struct live_bulk *b, const char *mbean, bool pattern,
    const char *const *attrs, size_t nattrs)
{
	size_t i, idx = begin(b, "read", mbean, pattern);

	if (nattrs > 0) {
		sbuf_adds(&b->body, ",\"attribute\":[");
		for (i = 0; i < nattrs; i++) {
			if (i > 0)
				sbuf_addc(&b->body, ',');
			jsonw_quote(&b->body, attrs[i]);
		}
		sbuf_addc(&b->body, ']');
	}
	sbuf_addc(&b->body, '}');
	return idx;
}

void
live_bulk_stream(struct live_bulk *b, size_t i)
{
	b->streamed[i] = true;
}

size_t
live_bulk_read(struct live_bulk *b, const char *mbean, const char *const *attrs,
    size_t nattrs)
{
	return bulk_read(b, mbean, is_pattern(mbean), attrs, nattrs);
}

size_t
live_bulk_read_mbean(struct live_bulk *b, const char *mbean,
    const char *const *attrs, size_t nattrs)
{
	return bulk_read(b, mbean, false, attrs, nattrs);
}

/* A Map argument: Jolokia hands a JSON object to a java.util.Map
 * parameter as it is. */
static void
add_map(struct sbuf *body, const struct decl_kv *kv, size_t n)
{
	size_t i;

	sbuf_addc(body, '{');
	for (i = 0; i < n; i++) {
		if (i > 0)
			sbuf_addc(body, ',');
		jsonw_quote(body, kv[i].key);
		sbuf_addc(body, ':');
		jsonw_quote(body, kv[i].value);
	}
	sbuf_addc(body, '}');
}

size_t
live_bulk_exec(struct live_bulk *b, const char *mbean, const char *operation,
    const struct live_arg *args, size_t nargs)
{
	size_t i, idx = begin(b, "exec", mbean, false);

	sbuf_adds(&b->body, ",\"operation\":");
	jsonw_quote(&b->body, operation);
	sbuf_adds(&b->body, ",\"arguments\":[");
	for (i = 0; i < nargs; i++) {
		if (i > 0)
			sbuf_addc(&b->body, ',');
		if (args[i].type == LIVE_ARG_STR && args[i].s != NULL)
			jsonw_quote(&b->body, args[i].s);
		else if (args[i].type == LIVE_ARG_BOOL)
			sbuf_adds(&b->body, args[i].b ? "true" : "false");
		else if (args[i].type == LIVE_ARG_INT)
			sbuf_addf(&b->body, "%lld", (long long)args[i].i);
		else if (args[i].type == LIVE_ARG_MAP)
			add_map(&b->body, args[i].kv, args[i].nkv);
		else
			sbuf_adds(&b->body, "null");
	}
	sbuf_adds(&b->body, "]}");
	return idx;
}

struct amq_code {
	unsigned code;
	enum recon_kind kind;
};

static const struct amq_code amq_codes[] = {
    {229025, RECON_HAS_CONSUMERS},  /* cannot delete queue: consumers */
    {229017, RECON_NOT_FOUND},      /* queue does not exist */
    {229012, RECON_NOT_FOUND},      /* no binding for divert */
    {229203, RECON_NOT_FOUND},      /* address does not exist */
    {229231, RECON_NOT_FOUND},      /* divert does not exist */
    {229019, RECON_ALREADY_EXISTS}, /* queue already exists */
    {229204, RECON_ALREADY_EXISTS}, /* address already exists */
    {229235, RECON_ALREADY_EXISTS}, /* incompatible binding name taken */
};

/* The first `AMQnnnnnn:` code in text, 0 when none. */
static unsigned
amq_code(const char *text)
{
	const char *p = strstr(text, "AMQ");
	unsigned code;
	int i;

	for (; p != NULL; p = strstr(p, "AMQ")) {
		p += 3;
		code = 0;
		for (i = 0; i < 6 && p[i] >= '0' && p[i] <= '9'; i++)
			code = code * 10 + (unsigned)(p[i] - '0');
		if (i == 6 && p[6] == ':')
			return code;
	}
	return 0;
}

enum recon_kind
live_jolokia_classify(int status, const char *error, bool pattern)
{
	unsigned code = error != NULL ? amq_code(error) : 0;
	size_t i;

	if (status == 200)
		return RECON_OK;
	for (i = 0; code != 0 && i < sizeof(amq_codes) / sizeof(*amq_codes);
	     i++)
		if (amq_codes[i].code == code)
			return amq_codes[i].kind;
	if (status == 404)
		return pattern ? RECON_OK : RECON_NOT_FOUND;
	if (status == 403)
		return RECON_FORBIDDEN;
	if (status == 429)
		return RECON_THROTTLED;
	return RECON_BROKER_ERROR;
}

static char *
clip(const char *s, size_t len)
{
	if (len > LIVE_JOLOKIA_MAX_TEXT)
		len = LIVE_JOLOKIA_MAX_TEXT;
	return xstrndup(s, len);
}

static void
set_refusal(struct recon_refusal *r, enum recon_kind kind, int http, int status,
    char *text)
{
	recon_refusal_release(r);
	r->kind = kind;
	r->http_status = http;
	r->status = status;
	r->text = text;
}

/* What one reply element said: its status, error and error_type (owned),
 * whether it had a value (kept in its document, or given to the sink). */
struct elem {
	int64_t status;
	bool has_status, has_value;
	char *error, *error_type;
	const struct json *value;
};

static void
elem_release(struct elem *e)
{
	free(e->error);
	free(e->error_type);
	memset(e, 0, sizeof(*e));
}

/* Classify one reply element into res. */
static void
classify(struct live_bulk_result *res, const struct elem *e, bool pattern,
    int http)
{
	const char *text = e->error;
	int status;

	if (!e->has_status || e->status < 100 || e->status > 999) {
		set_refusal(&res->refusal, RECON_BAD_RESPONSE, http, 0,
		    xstrdup("reply element without a status"));
		return;
	}
	status = (int)e->status;
	if (status == 200) {
		res->value = e->value;
		if (!e->has_value)
			set_refusal(&res->refusal, RECON_BAD_RESPONSE, http,
			    status, xstrdup("reply element without a value"));
		return;
	}
	if (text == NULL)
		text = "";
	res->no_mbean = status == 404 && e->error_type != NULL &&
	                strcmp(e->error_type,
	                    "javax.management.InstanceNotFoundException") == 0;
	set_refusal(&res->refusal, live_jolokia_classify(status, text, pattern),
	    http, status,
	    text[0] ? clip(text, strlen(text))
	            : xasprintf("Jolokia status %d", status));
	if (res->refusal.kind == RECON_OK)
		recon_refusal_release(&res->refusal);
}

/* Give every element (and *out) the same whole-request refusal. */
static int
fail_all(struct live_bulk *b, struct recon_refusal *out, enum recon_kind kind,
    int status, char *text)
{
	size_t i;

	for (i = 0; i < b->n; i++)
		set_refusal(&b->results[i].refusal, kind, b->http_status,
		    status, xstrdup(text));
	set_refusal(out, kind, b->http_status, status, text);
	return -1;
}

static int
http_failure(struct live_bulk *b, const char *body, size_t len,
    struct recon_refusal *out)
{
	int h = b->http_status;

	if (h == 401 || h == 403)
		return fail_all(b, out, RECON_UNAUTHORIZED, 0,
		    xasprintf("HTTP %d: authentication refused", h));
	if (h == 429)
		return fail_all(b, out, RECON_THROTTLED, 0,
		    xasprintf("HTTP 429: too many failed logins, throttled"));
	if ((h >= 500 || h == 400) && len == 0)
		return fail_all(b, out, RECON_BROKER_ERROR, 0,
		    xasprintf("HTTP %d", h));
	if (h >= 500 || h == 400)
		return fail_all(b, out, RECON_BROKER_ERROR, 0,
		    xasprintf("HTTP %d: %.*s", h, (int)(len > 200 ? 200 : len),
		        body));
	return fail_all(b, out, RECON_BAD_RESPONSE, 0,
	    xasprintf("unexpected HTTP status %d", h));
}

/* The reader's bytes as a string: what jsonr holds after a JSONR_STR. */
static char *
tok_str(const struct jsonr *r)
{
	return xstrndup(sbuf_str(&r->str), r->str.len);
}

/* The members of the object value whose '{' was just pulled, each to the
 * sink as it is read. 0, or -1 (the reader stopped). */
static int
stream_members(struct live_bulk *b, size_t i, struct jsonr *r)
{
	struct json_doc *doc = NULL;
	struct err err = {0};
	enum jsonr_tok t;
	char *key;
	int rc;

	for (;;) {
		t = jsonr_next(r);
		if (t == JSONR_OBJ_END)
			return 0;
		if (t != JSONR_KEY)
			return -1;
		key = tok_str(r);
		rc = json_parse_next(&doc, r, jsonr_next(r), "reply", &err);
		if (rc == 0)
			b->sink->fn(b->sink->ctx, i, key, json_doc_root(doc));
		json_doc_free(doc);
		doc = NULL;
		free(key);
		err_release(&err);
		if (rc < 0)
			return -1;
	}
}

#define ELEM_KEYS 16 /* keys of an element told apart (more: refused) */

/* One element of the reply (its first token t pulled) into *e; element i
 * of b (i == b->n: a whole-request error object). 0, or -1 when the
 * reader stopped or a key came twice (JSON this reader refuses, as
 * lib/json does). */
static int
read_element(struct live_bulk *b, size_t i, struct jsonr *r, enum jsonr_tok t,
    struct elem *e)
{
	struct err err = {0};
	char *keys[ELEM_KEYS], *key;
	size_t nkeys = 0, k;
	int rc = 0;

	if (t != JSONR_OBJ_BEGIN)
		return jsonr_skip(r, t); /* no status: BAD_RESPONSE */
	while (rc == 0 && (t = jsonr_next(r)) == JSONR_KEY) {
		key = tok_str(r);
		for (k = 0; k < nkeys && strcmp(keys[k], key) != 0; k++)
			;
		if (k < nkeys || nkeys == ELEM_KEYS) {
			free(key);
			rc = -1;
			break;
		}
		keys[nkeys++] = key;
		t = jsonr_next(r);
		if (strcmp(key, "value") == 0) {
			e->has_value = true;
			if (i < b->n && b->streamed[i] && b->sink != NULL &&
			    t == JSONR_OBJ_BEGIN) {
				rc = stream_members(b, i, r);
				continue;
			}
			rc = json_parse_next(&b->docs[i], r, t, "reply", &err);
			err_release(&err);
			if (rc == 0)
				e->value = json_doc_root(b->docs[i]);
		} else if (strcmp(key, "status") == 0 && t == JSONR_NUM &&
		           r->is_int) {
			e->has_status = true;
			e->status = r->inum;
		} else if (strcmp(key, "error") == 0 && t == JSONR_STR) {
			e->error = tok_str(r);
		} else if (strcmp(key, "error_type") == 0 && t == JSONR_STR) {
			e->error_type = tok_str(r);
		} else {
			rc = jsonr_skip(r, t);
		}
	}
	for (k = 0; k < nkeys; k++)
		free(keys[k]);
	return rc == 0 && t == JSONR_OBJ_END ? 0 : -1;
}

/* b's results released and allocated again, empty. */
static void
results_fresh(struct live_bulk *b)
{
	size_t i;

	if (b->results != NULL)
		for (i = 0; i < b->n; i++)
			recon_refusal_release(&b->results[i].refusal);
	free(b->results);
	b->results = xcalloc(b->n + 1, sizeof(*b->results));
}

void
live_bulk_fail_all(struct live_bulk *b, const struct recon_refusal *out)
{
	size_t i;

	results_fresh(b);
	for (i = 0; i < b->n; i++) {
		b->results[i].refusal.kind = out->kind;
		b->results[i].refusal.text = xstrdup(out->text);
	}
}

/* The reset results of b, before a reply is read. */
static void
results_reset(struct live_bulk *b, long http_status)
{
	size_t i;

	results_fresh(b);
	if (b->docs != NULL)
		for (i = 0; i <= b->n; i++)
			json_doc_free(b->docs[i]);
	free(b->docs);
	b->docs = xcalloc(b->n + 1, sizeof(struct json_doc *));
	b->http_status =
	    http_status >= 0 && http_status < 1000 ? (int)http_status : 0;
}

/* The reply does not have the shape of b's (why, owned): unless what
 * follows is not JSON, which says more. */
static int
shape_error(struct live_bulk *b, struct jsonr *r, struct recon_refusal *out,
    char *why)
{
	enum jsonr_tok t;

	do
		t = jsonr_next(r);
	while (t != JSONR_END && t != JSONR_ERROR);
	if (t == JSONR_ERROR) {
		free(why);
		why = xstrdup("reply is not JSON");
	}
	return fail_all(b, out, RECON_BAD_RESPONSE, 0, why);
}

int
live_bulk_parse_stream(struct live_bulk *b, struct jsonr *r,
    struct recon_refusal *out)
{
	struct live_bulk_result *whole = &b->results[b->n];
	struct elem e = {0};
	enum jsonr_tok t;
	size_t i = 0;
	int rc;

	t = jsonr_next(r);
	if (t == JSONR_OBJ_BEGIN) {
		/* A whole-request error (e.g. the Origin check). */
		rc = read_element(b, b->n, r, t, &e);
		if (rc == 0 && jsonr_next(r) != JSONR_END)
			rc = -1;
		if (rc == 0)
			classify(whole, &e, false, b->http_status);
		elem_release(&e);
		if (rc < 0)
			return fail_all(b, out, RECON_BAD_RESPONSE, 0,
			    xstrdup("reply is not JSON"));
		if (whole->refusal.kind == RECON_OK)
			return fail_all(b, out, RECON_BAD_RESPONSE, 0,
			    xstrdup("expected a bulk reply (an array)"));
		rc = fail_all(b, out, whole->refusal.kind,
		    whole->refusal.status, xstrdup(whole->refusal.text));
		recon_refusal_release(&whole->refusal);
		return rc;
	}
	if (t == JSONR_ERROR)
		return fail_all(b, out, RECON_BAD_RESPONSE, 0,
		    xstrdup("reply is not JSON"));
	if (t != JSONR_ARR_BEGIN) {
		(void)jsonr_skip(r, t);
		return shape_error(b, r, out,
		    xasprintf("expected a bulk reply of %zu elements", b->n));
	}
	while ((t = jsonr_next(r)) != JSONR_ARR_END) {
		if (t == JSONR_ERROR)
			return fail_all(b, out, RECON_BAD_RESPONSE, 0,
			    xstrdup("reply is not JSON"));
		if (i == b->n) {
			(void)jsonr_skip(r, t);
			return shape_error(b, r, out,
			    xasprintf("expected a bulk reply of %zu elements",
			        b->n));
		}
		memset(&e, 0, sizeof(e));
		rc = read_element(b, i, r, t, &e);
		if (rc == 0)
			classify(&b->results[i], &e, b->pattern[i],
			    b->http_status);
		elem_release(&e);
		if (rc < 0)
			return fail_all(b, out, RECON_BAD_RESPONSE, 0,
			    xstrdup("reply is not JSON"));
		i++;
	}
	if (jsonr_next(r) != JSONR_END)
		return fail_all(b, out, RECON_BAD_RESPONSE, 0,
		    xstrdup("reply is not JSON"));
	if (i != b->n)
		return fail_all(b, out, RECON_BAD_RESPONSE, 0,
		    xasprintf("expected a bulk reply of %zu elements", b->n));
	recon_refusal_release(out);
	return 0;
}

int
live_bulk_reply_begin(struct live_bulk *b, long http_status, const char *body,
    size_t len, struct recon_refusal *out)
{
	results_reset(b, http_status);
	if (b->http_status != 200)
		return http_failure(b, body, len, out);
	return 1;
}

int
live_bulk_parse_reply(struct live_bulk *b, long http_status, const char *body,
    size_t len, struct recon_refusal *out)
{
	struct jsonr r;
	int rc;

	rc = live_bulk_reply_begin(b, http_status, body, len, out);
	if (rc <= 0)
		return rc;
	jsonr_init_mem(&r, body, len);
	jsonr_set_str_max(&r, len);
	rc = live_bulk_parse_stream(b, &r, out);
	jsonr_release(&r);
	return rc;
}
