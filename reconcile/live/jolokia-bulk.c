/* reconcile/live/jolokia-bulk.c: building bulk requests and classifying
 * their replies, read with lib/json (no I/O: see jolokia.c for the
 * transport). */

#include "live-int.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/json.h"
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
	json_doc_free(b->reply);
	memset(b, 0, sizeof(*b));
}

static size_t
begin(struct live_bulk *b, const char *type, const char *mbean, bool pat)
{
	xgrow(&b->pattern, &b->alloc, b->n + 1, sizeof(*b->pattern));
	b->pattern[b->n] = pat;
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

/* Classify one reply element into res. */
static void
element(struct live_bulk_result *res, const struct json *e, bool pattern,
    int http)
{
	const char *text = json_str(json_get(e, "error")), *type;
	int64_t st = 0;
	int status;

	if (!json_is_object(e) || json_int(json_get(e, "status"), &st) < 0 ||
	    st < 100 || st > 999) {
		set_refusal(&res->refusal, RECON_BAD_RESPONSE, http, 0,
		    xstrdup("reply element without a status"));
		return;
	}
	status = (int)st;
	if (status == 200) {
		res->value = json_get(e, "value");
		if (res->value == NULL)
			set_refusal(&res->refusal, RECON_BAD_RESPONSE, http,
			    status, xstrdup("reply element without a value"));
		return;
	}
	if (text == NULL)
		text = "";
	type = json_str(json_get(e, "error_type"));
	res->no_mbean =
	    status == 404 && type != NULL &&
	    strcmp(type, "javax.management.InstanceNotFoundException") == 0;
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

int
live_bulk_parse_reply(struct live_bulk *b, long http_status, const char *body,
    size_t len, struct recon_refusal *out)
{
	const struct json *root, *e;
	struct err err = {0};
	size_t i = 0, n;

	json_doc_free(b->reply);
	b->reply = NULL;
	if (b->results != NULL)
		for (i = 0; i < b->n; i++)
			recon_refusal_release(&b->results[i].refusal);
	free(b->results);
	b->results = xcalloc(b->n + 1, sizeof(*b->results));
	b->http_status =
	    http_status >= 0 && http_status < 1000 ? (int)http_status : 0;
	if (b->http_status != 200)
		return http_failure(b, body, len, out);
	if (json_parse(&b->reply, "reply", body, len, &err) < 0) {
		err_release(&err);
		return fail_all(b, out, RECON_BAD_RESPONSE, 0,
		    xstrdup("reply is not JSON"));
	}
	root = json_doc_root(b->reply);
	if (json_is_object(root)) {
		/* A whole-request error (e.g. the Origin check). */
		element(&b->results[0], root, false, b->http_status);
		if (b->results[0].refusal.kind == RECON_OK)
			return fail_all(b, out, RECON_BAD_RESPONSE, 0,
			    xstrdup("expected a bulk reply (an array)"));
		return fail_all(b, out, b->results[0].refusal.kind,
		    b->results[0].refusal.status,
		    xstrdup(b->results[0].refusal.text));
	}
	n = json_size(root);
	if (!json_is_array(root) || n != b->n)
		return fail_all(b, out, RECON_BAD_RESPONSE, 0,
		    xasprintf("expected a bulk reply of %zu elements", b->n));
	i = 0;
	for (e = json_first(root); e != NULL; e = json_next(e), i++)
		element(&b->results[i], e, b->pattern[i], b->http_status);
	recon_refusal_release(out);
	return 0;
}
