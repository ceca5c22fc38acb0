/* reconcile/jolokia.c: HTTP transport of bulk requests (libcurl, multi
 * interface so that several nodes are read concurrently in one thread). */

#include "live-int.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/xalloc.h"

/* One transfer in flight. */
struct xfer {
	const struct live_jolokia_conf *conf;
	struct live_bulk *bulk;
	struct recon_refusal *out;
	CURL *easy;
	struct curl_slist *headers;
	struct sbuf reply;
	struct sbuf body; /* the bulk, closed */
	size_t max;
	bool too_large;
	bool done;
	char errbuf[CURL_ERROR_SIZE];
};

static size_t
on_data(char *data, size_t size, size_t nmemb, void *userdata)
{
	struct xfer *x = userdata;
	size_t n = size * nmemb;

	if (x->reply.len + n > x->max) {
		x->too_large = true;
		return 0; /* aborts the transfer: CURLE_WRITE_ERROR */
	}
	sbuf_add(&x->reply, data, n);
	return n;
}

static void
global_init(void)
{
	static bool done;

	if (!done) {
		curl_global_init(CURL_GLOBAL_DEFAULT);
		done = true;
	}
}

static long
or_default(long v, long def)
{
	return v > 0 ? v : def;
}

static void
xfer_setup(struct xfer *x)
{
	const struct live_jolokia_conf *c = x->conf;
	char *origin;

	x->max =
	    c->max_response > 0 ? c->max_response : LIVE_JOLOKIA_MAX_RESPONSE;
	sbuf_init(&x->reply, x->max + 1);
	x->easy = curl_easy_init();
	if (x->easy == NULL) {
		fprintf(stderr, "curl_easy_init failed\n");
		abort();
	}
	origin = xasprintf("Origin: %s",
	    c->origin != NULL ? c->origin : LIVE_JOLOKIA_ORIGIN);
	x->headers = curl_slist_append(NULL, "Content-Type: application/json");
	x->headers = curl_slist_append(x->headers, origin);
	x->headers = curl_slist_append(x->headers, "Expect:");
	free(origin);
	curl_easy_setopt(x->easy, CURLOPT_URL, c->url);
	curl_easy_setopt(x->easy, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(x->easy, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(x->easy, CURLOPT_HTTPHEADER, x->headers);
	sbuf_init(&x->body, 0);
	sbuf_add(&x->body, x->bulk->n > 0 ? x->bulk->body.buf : "[",
	    x->bulk->n > 0 ? x->bulk->body.len : 1);
	sbuf_addc(&x->body, ']');
	curl_easy_setopt(x->easy, CURLOPT_POSTFIELDS, sbuf_str(&x->body));
	curl_easy_setopt(x->easy, CURLOPT_POSTFIELDSIZE_LARGE,
	    (curl_off_t)x->body.len);
	curl_easy_setopt(x->easy, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(x->easy, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(x->easy, CURLOPT_ERRORBUFFER, x->errbuf);
	curl_easy_setopt(x->easy, CURLOPT_CONNECTTIMEOUT_MS,
	    or_default(c->connect_timeout_ms, LIVE_JOLOKIA_CONNECT_TIMEOUT));
	curl_easy_setopt(x->easy, CURLOPT_TIMEOUT_MS,
	    or_default(c->timeout_ms, LIVE_JOLOKIA_TIMEOUT));
	curl_easy_setopt(x->easy, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(x->easy, CURLOPT_SSL_VERIFYHOST, 2L);
	if (c->ca_file != NULL)
		curl_easy_setopt(x->easy, CURLOPT_CAINFO, c->ca_file);
	if (c->userpass != NULL) {
		curl_easy_setopt(x->easy, CURLOPT_HTTPAUTH,
		    (long)CURLAUTH_BASIC);
		curl_easy_setopt(x->easy, CURLOPT_USERPWD, c->userpass);
	}
}

static enum recon_kind
curl_kind(CURLcode rc, bool too_large)
{
	if (too_large)
		return RECON_BAD_RESPONSE;
	switch (rc) {
	case CURLE_OPERATION_TIMEDOUT:
		return RECON_TIMEOUT;
	case CURLE_PARTIAL_FILE:
	case CURLE_WEIRD_SERVER_REPLY:
	case CURLE_BAD_CONTENT_ENCODING:
	case CURLE_HTTP2:
		return RECON_BAD_RESPONSE;
	default:
		return RECON_UNREACHABLE;
	}
}

/* Turn a finished transfer into results. */
static void
xfer_finish(struct xfer *x, CURLcode rc)
{
	long http = 0;
	const char *why;
	size_t i;

	x->done = true;
	if (rc == CURLE_OK) {
		curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &http);
		(void)live_bulk_parse_reply(x->bulk, http, sbuf_str(&x->reply),
		    x->reply.len, x->out);
		return;
	}
	why = x->errbuf[0] ? x->errbuf : curl_easy_strerror(rc);
	recon_refusal_release(x->out);
	x->out->kind = curl_kind(rc, x->too_large);
	x->out->text = x->too_large
	                   ? xasprintf("response larger than %zu bytes", x->max)
	                   : xstrdup(why);
	free(x->bulk->results);
	x->bulk->results = xcalloc(x->bulk->n + 1, sizeof(*x->bulk->results));
	for (i = 0; i < x->bulk->n; i++) {
		x->bulk->results[i].refusal.kind = x->out->kind;
		x->bulk->results[i].refusal.text = xstrdup(x->out->text);
	}
}

static void
xfer_cleanup(struct xfer *x)
{
	curl_easy_cleanup(x->easy);
	curl_slist_free_all(x->headers);
	sbuf_release(&x->reply);
	sbuf_release(&x->body);
}

void
live_jolokia_post_all(const struct live_jolokia_conf *confs,
    struct live_bulk *bulks, size_t n, struct recon_refusal *outs)
{
	struct xfer *xs = xcalloc(n + 1, sizeof(*xs));
	CURLM *m;
	CURLMsg *msg;
	int running = 0, left;
	size_t i;

	global_init();
	m = curl_multi_init();
	for (i = 0; i < n; i++) {
		xs[i].conf = &confs[i];
		xs[i].bulk = &bulks[i];
		xs[i].out = &outs[i];
		xfer_setup(&xs[i]);
		curl_easy_setopt(xs[i].easy, CURLOPT_PRIVATE, &xs[i]);
		bulks[i].requests++;
		curl_multi_add_handle(m, xs[i].easy);
	}
	do {
		if (curl_multi_perform(m, &running) != CURLM_OK)
			break;
		while ((msg = curl_multi_info_read(m, &left)) != NULL) {
			struct xfer *x = NULL;

			if (msg->msg != CURLMSG_DONE)
				continue;
			curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE,
			    (char **)&x);
			xfer_finish(x, msg->data.result);
		}
		if (running > 0)
			curl_multi_poll(m, NULL, 0, 1000, NULL);
	} while (running > 0);
	for (i = 0; i < n; i++) {
		if (!xs[i].done)
			xfer_finish(&xs[i], CURLE_ABORTED_BY_CALLBACK);
		curl_multi_remove_handle(m, xs[i].easy);
		xfer_cleanup(&xs[i]);
	}
	curl_multi_cleanup(m);
	free(xs);
}

int
live_jolokia_post(const struct live_jolokia_conf *conf, struct live_bulk *b,
    struct recon_refusal *out)
{
	live_jolokia_post_all(conf, b, 1, out);
	return out->kind == RECON_OK ? 0 : -1;
}
