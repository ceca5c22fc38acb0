/* reconcile/live/jolokia.c: the transport of bulk requests: one HTTP POST
 * each through lib/http (several nodes concurrently, one thread), and the
 * mapping of its failures onto enum recon_kind. */

#include "live-int.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/http.h"
#include "../../lib/xalloc.h"

/* One bulk as an HTTP request: its body (the array, closed), headers. */
struct post {
	struct sbuf body;
	char *origin; /* the Origin header line */
	const char *headers[2];
};

static long
or_default(long v, long def)
{
	return v > 0 ? v : def;
}

static void
post_init(struct post *p, struct http_request *req,
    const struct live_jolokia_conf *c, const struct live_bulk *b)
{
	sbuf_init(&p->body, 0);
	sbuf_add(&p->body, b->n > 0 ? b->body.buf : "[",
	    b->n > 0 ? b->body.len : 1);
	sbuf_addc(&p->body, ']');
	p->origin = xasprintf("Origin: %s",
	    c->origin != NULL ? c->origin : LIVE_JOLOKIA_ORIGIN);
	p->headers[0] = "Content-Type: application/json";
	p->headers[1] = p->origin;
	memset(req, 0, sizeof(*req));
	req->method = "POST";
	req->url = c->url;
	req->body = sbuf_str(&p->body);
	req->body_len = p->body.len;
	req->headers = p->headers;
	req->nheaders = 2;
	req->userpass = c->userpass;
	req->ca_file = c->ca_file;
	req->cert_file = c->cert_file;
	req->key_pem = c->key_pem;
	req->connect_timeout_ms =
	    or_default(c->connect_timeout_ms, LIVE_JOLOKIA_CONNECT_TIMEOUT);
	req->timeout_ms = or_default(c->timeout_ms, LIVE_JOLOKIA_TIMEOUT);
	req->max_response =
	    c->max_response > 0 ? c->max_response : LIVE_JOLOKIA_MAX_RESPONSE;
	req->tick = c->tick;
}

static void
post_release(struct post *p)
{
	sbuf_release(&p->body);
	free(p->origin);
}

/* No answer came: a timeout is TIMEOUT, an answer too large or malformed
 * is BAD_RESPONSE, anything else (refused, DNS, TLS, ...) UNREACHABLE. */
static enum recon_kind
kind_of(enum http_fail f)
{
	switch (f) {
	case HTTP_TIMEOUT:
		return RECON_TIMEOUT;
	case HTTP_TOO_LARGE:
	case HTTP_BAD_REPLY:
		return RECON_BAD_RESPONSE;
	default:
		return RECON_UNREACHABLE;
	}
}

/* Turn the answer (or its absence) into b's results and *out. */
static void
finish(struct live_bulk *b, const struct http_response *resp,
    struct recon_refusal *out)
{
	size_t i;

	b->seconds += resp->seconds;
	if (resp->fail == HTTP_OK) {
		(void)live_bulk_parse_reply(b, resp->status,
		    sbuf_str(&resp->body), resp->body.len, out);
		return;
	}
	recon_refusal_release(out);
	out->kind = kind_of(resp->fail);
	out->text = xstrdup(resp->error != NULL ? resp->error : "");
	if (b->results != NULL)
		for (i = 0; i < b->n; i++)
			recon_refusal_release(&b->results[i].refusal);
	free(b->results);
	b->results = xcalloc(b->n + 1, sizeof(*b->results));
	for (i = 0; i < b->n; i++) {
		b->results[i].refusal.kind = out->kind;
		b->results[i].refusal.text = xstrdup(out->text);
	}
}

void
live_jolokia_post_all(const struct live_jolokia_conf *confs,
    struct live_bulk *bulks, size_t n, struct recon_refusal *outs)
{
	struct http_request *reqs = xcalloc(n + 1, sizeof(*reqs));
	struct http_response *resps = xcalloc(n + 1, sizeof(*resps));
	struct post *posts = xcalloc(n + 1, sizeof(*posts));
	size_t i;

	for (i = 0; i < n; i++) {
		post_init(&posts[i], &reqs[i], &confs[i], &bulks[i]);
		bulks[i].requests++;
	}
	http_send_all(reqs, resps, n);
	for (i = 0; i < n; i++) {
		finish(&bulks[i], &resps[i], &outs[i]);
		http_response_release(&resps[i]);
		post_release(&posts[i]);
	}
	free(reqs);
	free(resps);
	free(posts);
}

int
live_jolokia_post(const struct live_jolokia_conf *conf, struct live_bulk *b,
    struct recon_refusal *out)
{
	live_jolokia_post_all(conf, b, 1, out);
	return out->kind == RECON_OK ? 0 : -1;
}
