/* lib/etcd.c: an etcd v3 client over its JSON gateway (lib/etcd.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etcd.h"
#include "http.h"
#include "json.h"
#include "jsonw.h"
#include "sbuf.h"
#include "xalloc.h"

#define ETCD_MAX_REPLY ((size_t)256 * 1024 * 1024)

struct etcd {
	char **endpoints;
	size_t nendpoints, cur;
	char *ca_file, *cert_file, *key_pem;
	char *user, *password;
	char *token; /* a secret */
	long timeout_ms, connect_timeout_ms;
	enum etcd_fail last;
};

static const char b64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void
b64_encode(struct sbuf *out, const void *data, size_t len)
{
	const unsigned char *p = data;
	size_t i;

	for (i = 0; i + 2 < len; i += 3) {
		unsigned v =
		    (unsigned)p[i] << 16 | (unsigned)p[i + 1] << 8 | p[i + 2];
		sbuf_addc(out, b64[v >> 18 & 63]);
		sbuf_addc(out, b64[v >> 12 & 63]);
		sbuf_addc(out, b64[v >> 6 & 63]);
		sbuf_addc(out, b64[v & 63]);
	}
	if (i < len) {
		unsigned v = (unsigned)p[i] << 16;
		char third = '=';

		if (i + 1 < len) {
			v |= (unsigned)p[i + 1] << 8;
			third = b64[v >> 6 & 63];
		}
		sbuf_addc(out, b64[v >> 18 & 63]);
		sbuf_addc(out, b64[v >> 12 & 63]);
		sbuf_addc(out, third);
		sbuf_addc(out, '=');
	}
}

static int
b64_value(char c)
{
	const char *at;

	if (c == '\0')
		return -1;
	at = strchr(b64, c);
	return at == NULL ? -1 : (int)(at - b64);
}

/* base64 text -> bytes (NUL-terminated too); NULL when not base64. */
static char *
b64_decode(const char *s, size_t *len_out)
{
	size_t n = strlen(s), i, o = 0;
	char *out;

	if (n % 4 != 0)
		return NULL;
	out = xmalloc(n / 4 * 3 + 1);
	for (i = 0; i < n; i += 4) {
		bool pad2 = s[i + 2] == '=', pad3 = s[i + 3] == '=';
		int a = b64_value(s[i]), b = b64_value(s[i + 1]);
		int c = pad2 ? 0 : b64_value(s[i + 2]);
		int d = pad3 ? 0 : b64_value(s[i + 3]);
		unsigned v;

		if (a < 0 || b < 0 || c < 0 || d < 0 || (pad2 && !pad3) ||
		    ((pad2 || pad3) && i + 4 != n)) {
			free(out);
			return NULL;
		}
		v = (unsigned)a << 18 | (unsigned)b << 12 | (unsigned)c << 6 |
		    (unsigned)d;
		out[o++] = (char)(v >> 16 & 255);
		if (s[i + 2] != '=')
			out[o++] = (char)(v >> 8 & 255);
		if (s[i + 3] != '=')
			out[o++] = (char)(v & 255);
	}
	out[o] = '\0';
	*len_out = o;
	return out;
}

char *
etcd_prefix_end(const char *prefix)
{
	size_t n = strlen(prefix);
	char *end = xstrdup(prefix);

	while (n > 0) {
		unsigned char c = (unsigned char)end[n - 1];
		if (c < 0xff) {
			end[n - 1] = (char)(c + 1);
			end[n] = '\0';
			return end;
		}
		n--;
	}
	/* every byte 0xff (or empty): the whole key space */
	free(end);
	return xstrdup("\0");
}

int
etcd_open(struct etcd **out, const struct etcd_opts *o, struct err *err)
{
	struct etcd *e;
	size_t i;

	if (o->nendpoints == 0)
		return err_setf(err, NULL, "etcd: no endpoint");
	if (o->timeout_ms <= 0)
		return err_setf(err, NULL, "etcd: no timeout");
	for (i = 0; i < o->nendpoints; i++) {
		const char *u = o->endpoints[i];
		if (strncmp(u, "http://", 7) != 0 &&
		    strncmp(u, "https://", 8) != 0)
			return err_setf(err, NULL,
			    "etcd endpoint '%s': not an http:// or https:// URL",
			    u);
		/* not the URL itself: its user part may hold a password */
		if (strchr(u, '@') != NULL)
			return err_setf(err, NULL,
			    "etcd endpoint %zu ('%.*s...@%s'): credentials go "
			    "in the credentials folder, not in the URL",
			    i + 1, u[4] == 's' ? 8 : 7, u, strrchr(u, '@') + 1);
	}
	if ((o->cert_file == NULL) != (o->key_pem == NULL))
		return err_setf(err, NULL,
		    "etcd: a client certificate needs its key and a key its "
		    "certificate");
	e = xcalloc(1, sizeof(*e));
	e->endpoints = xcalloc(o->nendpoints, sizeof(char *));
	for (i = 0; i < o->nendpoints; i++) {
		size_t n = strlen(o->endpoints[i]);
		e->endpoints[i] = xstrdup(o->endpoints[i]);
		if (n > 0 && e->endpoints[i][n - 1] == '/')
			e->endpoints[i][n - 1] = '\0';
	}
	e->nendpoints = o->nendpoints;
	e->ca_file = o->ca_file ? xstrdup(o->ca_file) : NULL;
	e->cert_file = o->cert_file ? xstrdup(o->cert_file) : NULL;
	e->key_pem = o->key_pem ? xstrdup(o->key_pem) : NULL;
	e->user = o->user ? xstrdup(o->user) : NULL;
	e->password = o->password ? xstrdup(o->password) : NULL;
	e->timeout_ms = o->timeout_ms;
	e->connect_timeout_ms =
	    o->connect_timeout_ms > 0 ? o->connect_timeout_ms : o->timeout_ms;
	*out = e;
	return 0;
}

static void
wipe_free(char *s)
{
	if (s != NULL) {
		explicit_bzero(s, strlen(s));
		free(s);
	}
}

void
etcd_close(struct etcd *e)
{
	size_t i;

	if (e == NULL)
		return;
	for (i = 0; i < e->nendpoints; i++)
		free(e->endpoints[i]);
	free(e->endpoints);
	free(e->ca_file);
	free(e->cert_file);
	wipe_free(e->key_pem);
	free(e->user);
	wipe_free(e->password);
	wipe_free(e->token);
	free(e);
}

const char *
etcd_endpoint(const struct etcd *e)
{
	return e->endpoints[e->cur];
}

enum etcd_fail
etcd_last_fail(const struct etcd *e)
{
	return e->last;
}

/* The first line of body, at most 200 bytes, its control bytes as '?' (a
 * refusal's text for an error message), or "no body". Owned by the
 * caller. */
static char *
first_line(const struct sbuf *body)
{
	size_t n = 0, i;
	char *s;

	if (body->buf == NULL || body->len == 0)
		return xstrdup("no body");
	while (n < body->len && n < 200 && body->buf[n] != '\n' &&
	       body->buf[n] != '\r')
		n++;
	s = xstrndup(body->buf, n);
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			s[i] = '?';
	return s;
}

/* One POST to one member: 0 with *doc (an answer with status 200), 1 when
 * the member could not answer (try the next), -1 when etcd refused. */
static int
post_one(struct etcd *e, size_t at, const char *path, const struct sbuf *body,
    struct json_doc **doc, struct err *err)
{
	struct http_request req = {0};
	struct http_response resp = {0};
	const char *hdr[] = {"Content-Type: application/json"};
	char *url = xasprintf("%s%s", e->endpoints[at], path);
	const struct json *root, *msg;
	int rc;

	req.method = "POST";
	req.url = url;
	req.body = body->buf;
	req.body_len = body->len;
	req.headers = hdr;
	req.nheaders = 1;
	req.ca_file = e->ca_file;
	req.cert_file = e->cert_file;
	req.key_pem = e->key_pem;
	req.token = e->token;
	req.connect_timeout_ms = e->connect_timeout_ms;
	req.timeout_ms = e->timeout_ms;
	req.max_response = ETCD_MAX_REPLY;
	if (http_send(&req, &resp) < 0) {
		err_setf(err, NULL, "etcd %s: %s", url,
		    resp.error ? resp.error : http_fail_name(resp.fail));
		rc = resp.fail == HTTP_TLS || resp.fail == HTTP_TLS_CLIENT ||
		             resp.fail == HTTP_INVALID ||
		             resp.fail == HTTP_TOO_LARGE
		         ? -1
		         : 1;
		goto out;
	}
	if (json_parse(doc, url, resp.body.buf ? resp.body.buf : "",
	        resp.body.len, err) < 0) {
		if (resp.status != 200) {
			/* an answer that is not the gateway's JSON (etcd's
			 * own text refusals, a proxy's page): its status and
			 * first line say why, the JSON parser's error not */
			char *line = first_line(&resp.body);

			if (e->password != NULL && *e->password != '\0' &&
			    strstr(line, e->password) != NULL) {
				/* a proxy that echoes the request */
				free(line);
				line = xstrdup("(an answer that repeats the "
				               "password: not shown)");
			}
			err_release(err);
			err_setf(err, NULL, "etcd %s: HTTP %d: %s", url,
			    resp.status, line);
			free(line);
		}
		rc = resp.status >= 500 ? 1 : -1;
		goto out;
	}
	root = json_doc_root(*doc);
	msg = json_get(root, "error");
	if (resp.status != 200 || msg != NULL) {
		const char *m = json_str(msg)
		                    ? json_str(msg)
		                    : json_str(json_get(root, "message"));
		int64_t code = 0;

		json_int(json_get(root, "code"), &code);
		err_setf(err, NULL, "etcd %s: HTTP %d: %s", url, resp.status,
		    m ? m : "no error message");
		/* 14 UNAVAILABLE, 4 DEADLINE_EXCEEDED; no leader, timed out */
		rc =
		    code == 14 || code == 4 ||
		            (m != NULL && (strstr(m, "no leader") != NULL ||
		                              strstr(m, "timed out") != NULL ||
		                              strstr(m, "not capable") != NULL))
		        ? 1
		        : -1;
		if (rc < 0 && m != NULL && e->user != NULL &&
		    (strstr(m, "invalid auth token") != NULL ||
		        strstr(m, "user name is empty") != NULL))
			rc = 2;
		json_doc_free(*doc);
		*doc = NULL;
		goto out;
	}
	rc = 0;
out:
	http_response_release(&resp);
	free(url);
	return rc;
}

static int authenticate(struct etcd *e, size_t at, struct err *err);

/* POST body to path, member by member from the last good one. */
static int
call(struct etcd *e, const char *path, const struct sbuf *body,
    struct json_doc **doc, struct err *err)
{
	size_t tries, at;
	bool reauth = false;

	*doc = NULL;
	for (tries = 0; tries < e->nendpoints; tries++) {
		int rc;

		at = (e->cur + tries) % e->nendpoints;
		err_release(err);
		if (e->user != NULL && e->token == NULL) {
			rc = authenticate(e, at, err);
			if (rc > 0)
				continue;
			if (rc < 0) {
				e->last = ETCD_REFUSED;
				return -1;
			}
		}
		rc = post_one(e, at, path, body, doc, err);
		if (rc == 2 && !reauth) {
			wipe_free(e->token);
			e->token = NULL;
			reauth = true;
			tries--;
			continue;
		}
		if (rc == 0) {
			e->cur = at;
			e->last = ETCD_NONE;
			return 0;
		}
		if (rc < 0 || rc == 2) {
			e->cur = at;
			e->last = ETCD_REFUSED;
			return -1;
		}
	}
	e->last = ETCD_UNAVAILABLE;
	return -1;
}

static int
authenticate(struct etcd *e, size_t at, struct err *err)
{
	struct sbuf b;
	struct jsonw w;
	struct json_doc *doc = NULL;
	const char *tok;
	int rc;

	sbuf_init(&b, 0);
	jsonw_init(&w, &b, 0);
	jsonw_obj_begin(&w);
	jsonw_key_str(&w, "name", e->user);
	jsonw_key_str(&w, "password", e->password ? e->password : "");
	jsonw_obj_end(&w);
	rc = post_one(e, at, "/v3/auth/authenticate", &b, &doc, err);
	explicit_bzero(b.buf, b.len);
	sbuf_release(&b);
	if (rc < 0 && err_is_set(err) &&
	    strstr(err->msg, "authentication failed") != NULL) {
		/* whose password etcd refused (never the password) */
		char *why = xasprintf("%s (user '%s')", err->msg, e->user);

		err_release(err);
		err_setf(err, NULL, "%s", why);
		free(why);
	}
	if (rc != 0)
		return rc == 2 ? -1 : rc;
	tok = json_str(json_get(json_doc_root(doc), "token"));
	if (tok == NULL || *tok == '\0' || strpbrk(tok, "\r\n") != NULL) {
		json_doc_free(doc);
		err_setf(err, NULL,
		    "etcd %s: authenticate: no token in the "
		    "answer",
		    e->endpoints[at]);
		return -1;
	}
	e->token = xstrdup(tok);
	json_doc_free(doc);
	return 0;
}

/* An int64 the gateway writes as a string (or a number); 0 when absent. */
static int64_t
num(const struct json *v)
{
	int64_t n = 0;

	if (json_is_string(v)) {
		char *end;
		long long x = strtoll(json_str(v), &end, 10);
		return *end == '\0' ? (int64_t)x : 0;
	}
	if (json_int(v, &n) < 0)
		return 0;
	return n;
}

static void
w_bytes(struct jsonw *w, const char *key, const void *data, size_t len)
{
	struct sbuf b;

	sbuf_init(&b, 0);
	b64_encode(&b, data, len);
	jsonw_key_str(w, key, b.buf ? b.buf : "");
	sbuf_release(&b);
}

static void
w_num(struct jsonw *w, const char *key, int64_t n)
{
	char s[32];

	snprintf(s, sizeof(s), "%lld", (long long)n);
	jsonw_key_str(w, key, s);
}

static void
w_range(struct jsonw *w, const char *key, bool prefix)
{
	/* etcd refuses an empty key ("key is not provided"); the empty
	 * prefix is every key, from "\0" on */
	if (prefix && *key == '\0')
		w_bytes(w, "key", "", 1);
	else
		w_bytes(w, "key", key, strlen(key));
	if (prefix) {
		char *end = etcd_prefix_end(key);
		w_bytes(w, "range_end", end, *end ? strlen(end) : 1);
		free(end);
	}
}

void
etcd_kvs_release(struct etcd_kvs *kvs)
{
	size_t i;

	for (i = 0; i < kvs->n; i++) {
		free(kvs->v[i].key);
		free(kvs->v[i].value);
	}
	free(kvs->v);
	memset(kvs, 0, sizeof(*kvs));
}

static int
read_kvs(const struct json *arr, struct etcd_kvs *out, struct err *err)
{
	const struct json *kv;

	for (kv = json_first(arr); kv != NULL; kv = json_next(kv)) {
		struct etcd_kv x = {0};
		const char *k = json_str(json_get(kv, "key"));
		const char *v = json_str(json_get(kv, "value"));
		size_t n;

		x.key = k ? b64_decode(k, &n) : NULL;
		x.value = v ? b64_decode(v, &x.value_len) : xstrdup("");
		if (x.key == NULL || x.value == NULL) {
			free(x.key);
			free(x.value);
			return err_setf(err, NULL,
			    "etcd: a key or value that is not base64");
		}
		x.create_revision = num(json_get(kv, "create_revision"));
		x.mod_revision = num(json_get(kv, "mod_revision"));
		x.version = num(json_get(kv, "version"));
		x.lease = num(json_get(kv, "lease"));
		xgrow(&out->v, &out->cap, out->n + 1, sizeof(*out->v));
		out->v[out->n++] = x;
	}
	return 0;
}

static int64_t
header_rev(const struct json *root)
{
	return num(json_get(json_get(root, "header"), "revision"));
}

int
etcd_lease_grant(struct etcd *e, long ttl, int64_t *id, long *granted,
    struct err *err)
{
	struct sbuf b;
	struct jsonw w;
	struct json_doc *doc;
	int rc;

	sbuf_init(&b, 0);
	jsonw_init(&w, &b, 0);
	jsonw_obj_begin(&w);
	jsonw_key_int(&w, "TTL", ttl);
	jsonw_obj_end(&w);
	rc = call(e, "/v3/lease/grant", &b, &doc, err);
	sbuf_release(&b);
	if (rc < 0)
		return -1;
	*id = num(json_get(json_doc_root(doc), "ID"));
	if (granted != NULL)
		*granted = (long)num(json_get(json_doc_root(doc), "TTL"));
	json_doc_free(doc);
	if (*id == 0)
		return err_setf(err, NULL, "etcd %s: lease grant: no lease ID",
		    etcd_endpoint(e));
	return 0;
}

static int
lease_call(struct etcd *e, const char *path, int64_t id, struct json_doc **doc,
    struct err *err)
{
	struct sbuf b;
	struct jsonw w;
	int rc;

	sbuf_init(&b, 0);
	jsonw_init(&w, &b, 0);
	jsonw_obj_begin(&w);
	w_num(&w, "ID", id);
	jsonw_obj_end(&w);
	rc = call(e, path, &b, doc, err);
	sbuf_release(&b);
	return rc;
}

int
etcd_lease_keepalive(struct etcd *e, int64_t id, long *ttl, struct err *err)
{
	struct json_doc *doc;
	const struct json *res;

	if (lease_call(e, "/v3/lease/keepalive", id, &doc, err) < 0)
		return -1;
	/* a stream of one message: {"result": {...}} */
	res = json_get(json_doc_root(doc), "result");
	if (res == NULL) {
		json_doc_free(doc);
		return err_setf(err, NULL,
		    "etcd %s: lease keepalive: no result", etcd_endpoint(e));
	}
	*ttl = (long)num(json_get(res, "TTL"));
	json_doc_free(doc);
	return 0;
}

int
etcd_lease_ttl_left(struct etcd *e, int64_t id, long *ttl, struct err *err)
{
	struct json_doc *doc;

	if (lease_call(e, "/v3/kv/lease/timetolive", id, &doc, err) < 0)
		return -1;
	*ttl = (long)num(json_get(json_doc_root(doc), "TTL"));
	if (*ttl < 0)
		*ttl = 0;
	json_doc_free(doc);
	return 0;
}

int
etcd_lease_revoke(struct etcd *e, int64_t id, struct err *err)
{
	struct json_doc *doc;

	if (lease_call(e, "/v3/kv/lease/revoke", id, &doc, err) < 0) {
		/* a lease already gone is revoked */
		if (etcd_last_fail(e) == ETCD_REFUSED &&
		    strstr(err->msg ? err->msg : "", "lease not found") !=
		        NULL) {
			err_release(err);
			return 0;
		}
		return -1;
	}
	json_doc_free(doc);
	return 0;
}

int
etcd_range(struct etcd *e, const char *key, bool prefix, struct etcd_kvs *out,
    struct err *err)
{
	struct sbuf b;
	struct jsonw w;
	struct json_doc *doc;
	int rc;

	etcd_kvs_release(out);
	sbuf_init(&b, 0);
	jsonw_init(&w, &b, 0);
	jsonw_obj_begin(&w);
	w_range(&w, key, prefix);
	jsonw_obj_end(&w);
	rc = call(e, "/v3/kv/range", &b, &doc, err);
	sbuf_release(&b);
	if (rc < 0)
		return -1;
	out->revision = header_rev(json_doc_root(doc));
	rc = read_kvs(json_get(json_doc_root(doc), "kvs"), out, err);
	json_doc_free(doc);
	return rc;
}

int
etcd_put(struct etcd *e, const char *key, const void *value, size_t len,
    int64_t lease, int64_t *revision, struct err *err)
{
	struct sbuf b;
	struct jsonw w;
	struct json_doc *doc;
	int rc;

	sbuf_init(&b, 0);
	jsonw_init(&w, &b, 0);
	jsonw_obj_begin(&w);
	w_bytes(&w, "key", key, strlen(key));
	w_bytes(&w, "value", value, len);
	if (lease != 0)
		w_num(&w, "lease", lease);
	jsonw_obj_end(&w);
	rc = call(e, "/v3/kv/put", &b, &doc, err);
	sbuf_release(&b);
	if (rc < 0)
		return -1;
	if (revision != NULL)
		*revision = header_rev(json_doc_root(doc));
	json_doc_free(doc);
	return 0;
}

int
etcd_delete(struct etcd *e, const char *key, bool prefix, int64_t *deleted,
    struct err *err)
{
	struct sbuf b;
	struct jsonw w;
	struct json_doc *doc;
	int rc;

	sbuf_init(&b, 0);
	jsonw_init(&w, &b, 0);
	jsonw_obj_begin(&w);
	w_range(&w, key, prefix);
	jsonw_obj_end(&w);
	rc = call(e, "/v3/kv/deleterange", &b, &doc, err);
	sbuf_release(&b);
	if (rc < 0)
		return -1;
	if (deleted != NULL)
		*deleted = num(json_get(json_doc_root(doc), "deleted"));
	json_doc_free(doc);
	return 0;
}

static const char *const target_name[] = {
    [ETCD_CREATE] = "CREATE",
    [ETCD_MOD] = "MOD",
    [ETCD_VERSION] = "VERSION",
    [ETCD_VALUE] = "VALUE",
    [ETCD_LEASE] = "LEASE",
};
static const char *const target_key[] = {
    [ETCD_CREATE] = "create_revision",
    [ETCD_MOD] = "mod_revision",
    [ETCD_VERSION] = "version",
    [ETCD_VALUE] = "value",
    [ETCD_LEASE] = "lease",
};
static const char *const result_name[] = {
    [ETCD_EQUAL] = "EQUAL",
    [ETCD_NOT_EQUAL] = "NOT_EQUAL",
    [ETCD_GREATER] = "GREATER",
    [ETCD_LESS] = "LESS",
};

static void
w_ops(struct jsonw *w, const char *key, const struct etcd_op *ops, size_t n)
{
	size_t i;

	jsonw_key(w, key);
	jsonw_arr_begin(w);
	for (i = 0; i < n; i++) {
		const struct etcd_op *o = &ops[i];

		jsonw_obj_begin(w);
		if (o->kind == ETCD_OP_PUT) {
			jsonw_key(w, "request_put");
			jsonw_obj_begin(w);
			w_bytes(w, "key", o->key, strlen(o->key));
			w_bytes(w, "value", o->value, o->value_len);
			if (o->lease != 0)
				w_num(w, "lease", o->lease);
			jsonw_obj_end(w);
		} else {
			jsonw_key(w, o->kind == ETCD_OP_GET
			                 ? "request_range"
			                 : "request_delete_range");
			jsonw_obj_begin(w);
			w_range(w, o->key, o->prefix);
			jsonw_obj_end(w);
		}
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

void
etcd_txn_result_release(struct etcd_txn_result *r)
{
	etcd_kvs_release(&r->kvs);
	memset(r, 0, sizeof(*r));
}

int
etcd_txn(struct etcd *e, const struct etcd_txn *t, struct etcd_txn_result *r,
    struct err *err)
{
	struct sbuf b;
	struct jsonw w;
	struct json_doc *doc;
	const struct json *root, *resp;
	size_t i;
	int rc;

	etcd_txn_result_release(r);
	sbuf_init(&b, 0);
	jsonw_init(&w, &b, 0);
	jsonw_obj_begin(&w);
	jsonw_key(&w, "compare");
	jsonw_arr_begin(&w);
	for (i = 0; i < t->ncmp; i++) {
		const struct etcd_cmp *c = &t->cmp[i];

		jsonw_obj_begin(&w);
		w_bytes(&w, "key", c->key, strlen(c->key));
		jsonw_key_str(&w, "target", target_name[c->target]);
		jsonw_key_str(&w, "result", result_name[c->result]);
		if (c->target == ETCD_VALUE)
			w_bytes(&w, "value", c->value, c->value_len);
		else
			w_num(&w, target_key[c->target], c->num);
		jsonw_obj_end(&w);
	}
	jsonw_arr_end(&w);
	w_ops(&w, "success", t->success, t->nsuccess);
	w_ops(&w, "failure", t->failure, t->nfailure);
	jsonw_obj_end(&w);
	rc = call(e, "/v3/kv/txn", &b, &doc, err);
	sbuf_release(&b);
	if (rc < 0)
		return -1;
	root = json_doc_root(doc);
	json_bool(json_get(root, "succeeded"), &r->succeeded);
	r->revision = header_rev(root);
	r->kvs.revision = r->revision;
	rc = 0;
	for (resp = json_first(json_get(root, "responses"));
	     resp != NULL && rc == 0; resp = json_next(resp)) {
		const struct json *rr = json_get(resp, "response_range");
		if (rr != NULL)
			rc = read_kvs(json_get(rr, "kvs"), &r->kvs, err);
	}
	json_doc_free(doc);
	return rc;
}
