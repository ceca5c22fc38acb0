/* reconcile/live/jolokia.c: the transport of bulk requests: one HTTP POST
 * each through lib/http (several nodes concurrently, one thread), and the
 * mapping of its failures onto enum recon_kind. */

#include "live-int.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/http.h"
#include "../../lib/jsonr.h"
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
	sbuf_init(&p->body, SBUF_UNBOUNDED); /* b's body is bounded */
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

/* The reply to one bulk, read as it arrives, in a thread of its own: a
 * 200's body through the pull reader (lib/jsonr) straight into b's results
 * and its sink (live_bulk_parse_stream), so that neither the body nor a
 * tree of it is ever held whole; another status's body kept up to
 * HEAD_MAX for the message. Whatever the answer, the reader drains the
 * stream to its end (http.h). */
#define HEAD_MAX  ((size_t)64 * 1024)
#define FIRST_MAX ((size_t)64 * 1024)
struct reader {
	struct live_bulk *b;
	struct http_stream *s;
	pthread_t th;
	bool started;
	char first[FIRST_MAX]; /* the body's first bytes, read to learn the
	                          status */
	size_t nfirst, given;
	struct sbuf head; /* another status's body (its first bytes) */
	bool parsed;      /* a 200's body was read by the reader */
	int rc;           /* live_bulk_parse_stream's */
	struct recon_refusal out;
};

/* jsonr's source: the first bytes, then the stream. */
static long
reader_bytes(void *ctx, char *buf, size_t cap)
{
	struct reader *x = ctx;
	size_t n;

	if (x->given < x->nfirst) {
		n = x->nfirst - x->given < cap ? x->nfirst - x->given : cap;
		memcpy(buf, x->first + x->given, n);
		x->given += n;
		return (long)n;
	}
	return http_stream_read(x->s, buf, cap);
}

static void *
read_reply(void *p)
{
	struct reader *x = p;
	struct jsonr r;
	char drain[4096];
	long n;

	n = http_stream_read(x->s, x->first, sizeof(x->first));
	x->nfirst = n > 0 ? (size_t)n : 0;
	if (x->nfirst == 0)
		return NULL; /* no body: the response says why */
	if (http_stream_status(x->s) != 200) {
		sbuf_init(&x->head, HEAD_MAX + 1);
		sbuf_add(&x->head, x->first, x->nfirst);
		while ((n = http_stream_read(x->s, drain, sizeof(drain))) > 0)
			if (x->head.len + (size_t)n <= HEAD_MAX)
				sbuf_add(&x->head, drain, (size_t)n);
		return NULL;
	}
	x->parsed = true;
	(void)live_bulk_reply_begin(x->b, 200, NULL, 0, &x->out);
	jsonr_init_fn(&r, reader_bytes, x);
	/* a value's strings: the broker's texts (an address-settings JSON,
	 * a stack trace) are bounded by the reply's cap, not by jsonr's */
	jsonr_set_str_max(&r, LIVE_JOLOKIA_MAX_STRING);
	x->rc = live_bulk_parse_stream(x->b, &r, &x->out);
	jsonr_release(&r);
	while (reader_bytes(x, drain, sizeof(drain)) > 0)
		;
	return NULL;
}

/* Turn the answer (or its absence) into b's results and *out; x: its
 * reader, joined. */
static void
finish(struct live_bulk *b, const struct http_response *resp,
    struct recon_refusal *out, struct reader *x)
{
	b->seconds += resp->seconds;
	if (resp->fail == HTTP_OK && x->parsed && resp->status == 200) {
		recon_refusal_release(out);
		*out = x->out;
		memset(&x->out, 0, sizeof(x->out));
		return;
	}
	if (resp->fail == HTTP_OK) {
		(void)live_bulk_parse_reply(b, resp->status, sbuf_str(&x->head),
		    x->head.len, out);
		return;
	}
	recon_refusal_release(out);
	out->kind = kind_of(resp->fail);
	if (resp->fail == HTTP_TOO_LARGE)
		out->text =
		    xasprintf("%s: the cap is broker-reply-max (the "
		              "agent configuration) or --reply-max (the "
		              "command line)",
		        resp->error != NULL ? resp->error
		                            : "the reply is too large");
	else
		out->text = xstrdup(resp->error != NULL ? resp->error : "");
	live_bulk_fail_all(b, out);
}

/* A bulk whose body outgrew LIVE_JOLOKIA_MAX_REQUEST (its buffer dropped
 * the appends past it): never sent, since a request cut short is not JSON
 * and one cut at a request's end would silently read or do less. */
static void
refuse_unsent(struct live_bulk *b, struct recon_refusal *out)
{
	recon_refusal_release(out);
	out->kind = RECON_BROKER_ERROR;
	out->text = xasprintf(
	    "the request (%zu operations) would be larger than %zu MiB, "
	    "the most one POST to a broker carries; nothing was sent",
	    b->n, LIVE_JOLOKIA_MAX_REQUEST / ((size_t)1024 * 1024));
	live_bulk_fail_all(b, out);
}

void
live_jolokia_post_all(const struct live_jolokia_conf *confs,
    struct live_bulk *bulks, size_t n, struct recon_refusal *outs)
{
	struct http_request *reqs = xcalloc(n + 1, sizeof(*reqs));
	struct http_response *resps = xcalloc(n + 1, sizeof(*resps));
	struct post *posts = xcalloc(n + 1, sizeof(*posts));
	struct reader *rs = xcalloc(n + 1, sizeof(*rs));
	size_t *of = xcalloc(n + 1, sizeof(*of)); /* sent j is bulk of[j] */
	size_t i, j, m = 0;

	for (i = 0; i < n; i++) {
		if (bulks[i].body.failed) {
			refuse_unsent(&bulks[i], &outs[i]);
			continue;
		}
		j = m++;
		of[j] = i;
		post_init(&posts[j], &reqs[j], &confs[i], &bulks[i]);
		bulks[i].requests++;
		rs[j].b = &bulks[i];
		rs[j].s = http_stream_new();
		reqs[j].stream = rs[j].s;
		if (pthread_create(&rs[j].th, NULL, read_reply, &rs[j]) != 0) {
			fprintf(stderr, "pthread_create failed\n");
			abort();
		}
		rs[j].started = true;
	}
	if (m > 0)
		http_send_all(reqs, resps, m);
	for (j = 0; j < m; j++) {
		i = of[j];
		pthread_join(rs[j].th, NULL);
		finish(&bulks[i], &resps[j], &outs[i], &rs[j]);
		http_response_release(&resps[j]);
		post_release(&posts[j]);
		http_stream_free(rs[j].s);
		sbuf_release(&rs[j].head);
		recon_refusal_release(&rs[j].out);
	}
	free(of);
	free(reqs);
	free(resps);
	free(posts);
	free(rs);
}

int
live_jolokia_post(const struct live_jolokia_conf *conf, struct live_bulk *b,
    struct recon_refusal *out)
{
	live_jolokia_post_all(conf, b, 1, out);
	return out->kind == RECON_OK ? 0 : -1;
}
