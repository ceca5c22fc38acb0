/* lib/http.c: see http.h. Every request goes through curl's multi
 * interface, so one request and several concurrent ones share one path. */
#include "http.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <limits.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "clock.h"
#include "xalloc.h"

/* A body handed to its reader as it arrives (http.h): a ring the
 * transfer's thread fills and the reader's thread empties, one mutex.
 * When the ring has no room for a chunk, the transfer pauses
 * (CURL_WRITEFUNC_PAUSE: curl delivers the same chunk again once it is
 * resumed); the reader wakes the transfer's multi handle when it has made
 * room, and run() resumes it. */
#define STREAM_RING ((size_t)256 * 1024) /* > CURL_MAX_WRITE_SIZE */
struct http_stream {
	pthread_mutex_t mu;
	pthread_cond_t cv; /* data came, or the end */
	char ring[STREAM_RING];
	size_t head, len; /* the bytes waiting: ring[head..], len of them */
	bool done;        /* the transfer is over: no more bytes */
	bool paused;      /* the transfer waits for room */
	bool room;        /* the reader made room since it paused */
	CURLM *multi;     /* the transfer's, while it runs */
	int status;       /* the answer's HTTP status, once a byte came */
};

/* One transfer in flight. */
struct xfer {
	const struct http_request *req;
	struct http_response *resp;
	CURL *easy;
	struct curl_slist *headers;
	struct curl_blob key; /* the client key, not copied by curl */
	size_t received;      /* bytes of body, kept or streamed */
	bool too_large;
	bool done;
	bool paused; /* returned CURL_WRITEFUNC_PAUSE: run() resumes it */
	char errbuf[CURL_ERROR_SIZE];
	/* https: the last TLS alert the server sent ("bad certificate"), as
	 * curl's trace names it; "" when none */
	char server_alert[48];
	bool cert_requested; /* the server's handshake asked for a client
	                        certificate (CertificateRequest) */
};

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static CURLcode global_rc = CURLE_FAILED_INIT;

/* curl_global_init is not thread-safe and must run before any other curl
 * call: once, whoever asks first. */
static void
global_init(void)
{
	global_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

const char *
http_fail_name(enum http_fail f)
{
	static const char *const names[] = {"HTTP_OK", "HTTP_INVALID",
	    "HTTP_REFUSED", "HTTP_DNS", "HTTP_TLS", "HTTP_TLS_CLIENT",
	    "HTTP_TIMEOUT", "HTTP_TOO_LARGE", "HTTP_BAD_REPLY", "HTTP_FAILED"};

	if ((size_t)f >= sizeof(names) / sizeof(names[0]))
		return "HTTP_FAILED";
	return names[f];
}

/* The URL's authority (between "scheme://" and the path) holds a '@'. */
static bool
url_has_userinfo(const char *url)
{
	const char *host = strstr(url, "://");
	size_t n;

	host = host != NULL ? host + 3 : url;
	n = strcspn(host, "/?#");
	return memchr(host, '@', n) != NULL;
}

static bool
is_method(const char *m)
{
	size_t i;

	for (i = 0; m[i] != '\0'; i++)
		if (m[i] < 'A' || m[i] > 'Z' || i >= 16)
			return false;
	return i > 0;
}

/* A header line "Name: value": a name, no line breaks, no credentials. */
static const char *
header_problem(const char *h)
{
	size_t name = strcspn(h, ":");

	if (name == 0 || h[name] != ':')
		return "a header line is not 'Name: value'";
	if (strpbrk(h, "\r\n") != NULL)
		return "a header line holds a line break";
	if ((name == 13 && strncasecmp(h, "Authorization", 13) == 0) ||
	    (name == 19 && strncasecmp(h, "Proxy-Authorization", 19) == 0))
		return "credentials go in userpass, not in a header";
	return NULL;
}

const char *
http_check(const struct http_request *req)
{
	const char *why;
	size_t i;

	if (req->url == NULL || req->url[0] == '\0')
		return "no URL";
	if (url_has_userinfo(req->url))
		return "the URL holds a user or password (credentials go in "
		       "userpass)";
	if (req->method != NULL && !is_method(req->method))
		return "the method is not an upper-case word";
	if (req->body == NULL && req->body_len > 0)
		return "a body length without a body";
	if (req->token != NULL &&
	    (req->userpass != NULL || req->token[0] == '\0' ||
	        strpbrk(req->token, "\r\n") != NULL))
		return "a token that is empty, holds a line break or comes "
		       "with userpass";
	if (req->method != NULL && req->body != NULL &&
	    (strcmp(req->method, "GET") == 0 ||
	        strcmp(req->method, "HEAD") == 0))
		return "a GET or HEAD request with a body";
	for (i = 0; i < req->nheaders; i++) {
		why = header_problem(req->headers[i]);
		if (why != NULL)
			return why;
	}
	if ((req->cert_file == NULL) != (req->key_pem == NULL))
		return req->cert_file != NULL
		           ? "a client certificate without its key"
		           : "a client key without its certificate";
	if (req->connect_timeout_ms <= 0 || req->timeout_ms <= 0)
		return "no timeout";
	if (req->max_response == 0 || req->max_response >= SIZE_MAX / 2)
		return "no cap on the response";
	return NULL;
}

/* host as curl's URL parser gives it ("[::1]" for IPv6) names this host's
 * loopback interface. */
static bool
is_loopback(const char *host)
{
	struct in6_addr a6;
	struct in_addr a4;
	char buf[INET6_ADDRSTRLEN];
	size_t n = strlen(host);

	if (strcasecmp(host, "localhost") == 0)
		return true;
	if (inet_pton(AF_INET, host, &a4) == 1)
		return (ntohl(a4.s_addr) >> 24) == 127;
	if (n < 3 || host[0] != '[' || host[n - 1] != ']' ||
	    n - 2 >= sizeof(buf))
		return false;
	memcpy(buf, host + 1, n - 2);
	buf[n - 2] = '\0';
	if (inet_pton(AF_INET6, buf, &a6) != 1)
		return false;
	return IN6_IS_ADDR_LOOPBACK(&a6) ||
	       (IN6_IS_ADDR_V4MAPPED(&a6) && a6.s6_addr[12] == 127);
}

bool
http_url_is_cleartext(const char *url)
{
	CURLU *u = curl_url();
	char *scheme = NULL, *host = NULL;
	bool clear = false;

	if (u == NULL) {
		fprintf(stderr, "curl_url failed\n");
		abort();
	}
	if (curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK)
		clear = strcasecmp(scheme, "http") == 0 && !is_loopback(host);
	curl_free(scheme);
	curl_free(host);
	curl_url_cleanup(u);
	return clear;
}

void
http_response_release(struct http_response *resp)
{
	if (resp == NULL)
		return;
	sbuf_release(&resp->body);
	free(resp->error);
	memset(resp, 0, sizeof(*resp));
}

static void
set_fail(struct http_response *resp, enum http_fail f, char *error)
{
	sbuf_release(&resp->body);
	free(resp->error);
	resp->fail = f;
	resp->status = 0;
	resp->error = error;
}

struct http_stream *
http_stream_new(void)
{
	struct http_stream *s = xcalloc(1, sizeof(*s));

	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	return s;
}

int
http_stream_status(struct http_stream *s)
{
	int status;

	pthread_mutex_lock(&s->mu);
	status = s->status;
	pthread_mutex_unlock(&s->mu);
	return status;
}

void
http_stream_free(struct http_stream *s)
{
	if (s == NULL)
		return;
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->cv);
	free(s);
}

long
http_stream_read(struct http_stream *s, char *buf, size_t cap)
{
	size_t n, first;
	CURLM *wake = NULL;

	pthread_mutex_lock(&s->mu);
	while (s->len == 0 && !s->done)
		pthread_cond_wait(&s->cv, &s->mu);
	n = s->len < cap ? s->len : cap;
	first = STREAM_RING - s->head < n ? STREAM_RING - s->head : n;
	memcpy(buf, s->ring + s->head, first);
	memcpy(buf + first, s->ring, n - first);
	s->head = (s->head + n) % STREAM_RING;
	s->len -= n;
	if (s->paused && !s->room &&
	    STREAM_RING - s->len >= CURL_MAX_WRITE_SIZE) {
		s->room = true;
		wake = s->multi;
	}
	pthread_mutex_unlock(&s->mu);
	if (wake != NULL)
		curl_multi_wakeup(wake);
	return (long)n;
}

/* The stream of x ends: its reader reads what is left, then 0. */
static void
stream_end(struct xfer *x)
{
	struct http_stream *s = x->req->stream;

	if (s == NULL)
		return;
	pthread_mutex_lock(&s->mu);
	s->done = true;
	s->multi = NULL;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
}

/* Hand n bytes to x's stream: all of them, or none and pause. */
static size_t
stream_put(struct xfer *x, const char *data, size_t n)
{
	struct http_stream *s = x->req->stream;
	size_t tail, first;

	pthread_mutex_lock(&s->mu);
	if (s->status == 0) {
		long code = 0;

		curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &code);
		s->status = code > 0 && code < 1000 ? (int)code : 0;
	}
	if (STREAM_RING - s->len < n) {
		s->paused = true;
		s->room = false;
		x->paused = true;
		pthread_mutex_unlock(&s->mu);
		return CURL_WRITEFUNC_PAUSE;
	}
	tail = (s->head + s->len) % STREAM_RING;
	first = STREAM_RING - tail < n ? STREAM_RING - tail : n;
	memcpy(s->ring + tail, data, first);
	memcpy(s->ring, data + first, n - first);
	s->len += n;
	pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->mu);
	return n;
}

/* Resume x when its reader made room. */
static void
stream_resume(struct xfer *x)
{
	struct http_stream *s = x->req->stream;
	bool go;

	pthread_mutex_lock(&s->mu);
	go = s->room;
	if (go)
		s->paused = s->room = false;
	pthread_mutex_unlock(&s->mu);
	if (go) {
		x->paused = false;
		curl_easy_pause(x->easy, CURLPAUSE_CONT);
	}
}

static size_t
on_data(char *data, size_t size, size_t nmemb, void *userdata)
{
	struct xfer *x = userdata;
	size_t n = size * nmemb, took;

	if (x->received + n > x->req->max_response) {
		x->too_large = true;
		return 0; /* aborts the transfer: CURLE_WRITE_ERROR */
	}
	if (x->req->stream == NULL) {
		sbuf_add(&x->resp->body, data, n);
		x->received += n;
		return n;
	}
	took = stream_put(x, data, n);
	if (took == n)
		x->received += n;
	return took;
}

static void
set_method(CURL *e, const struct http_request *r)
{
	const char *m = r->method;

	if (m == NULL)
		m = r->body != NULL ? "POST" : "GET";
	if (strcmp(m, "GET") == 0) {
		curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
		return;
	}
	if (strcmp(m, "HEAD") == 0) {
		curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
		return;
	}
	curl_easy_setopt(e, CURLOPT_POSTFIELDS, r->body != NULL ? r->body : "");
	curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE,
	    (curl_off_t)(r->body != NULL ? r->body_len : 0));
	if (strcmp(m, "POST") != 0)
		curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, m);
}

/* The client certificate from its file and the key from memory (PEM).
 * CURL_BLOB_NOCOPY: curl reads the caller's key where it is, so no copy
 * of the secret is left in memory curl frees without wiping. An empty
 * key password: OpenSSL never prompts on a terminal for an encrypted
 * key, it fails. */
static void
set_client_cert(CURL *e, const struct http_request *r, struct curl_blob *key)
{
	/* curl's blob is not const; with NOCOPY it only reads it */
	key->data = (void *)(uintptr_t)r->key_pem;
	key->len = strlen(r->key_pem);
	key->flags = CURL_BLOB_NOCOPY;
	curl_easy_setopt(e, CURLOPT_SSLCERT, r->cert_file);
	curl_easy_setopt(e, CURLOPT_SSLCERTTYPE, "PEM");
	curl_easy_setopt(e, CURLOPT_SSLKEY_BLOB, key);
	curl_easy_setopt(e, CURLOPT_SSLKEYTYPE, "PEM");
	curl_easy_setopt(e, CURLOPT_KEYPASSWD, "");
}

static int on_trace(CURL *e, curl_infotype type, char *data, size_t size,
    void *p);

static void
xfer_setup(struct xfer *x)
{
	const struct http_request *r = x->req;
	CURL *e;
	size_t i;

	http_response_release(x->resp);
	sbuf_init(&x->resp->body, r->max_response + 1);
	x->easy = e = curl_easy_init();
	if (e == NULL) {
		fprintf(stderr, "curl_easy_init failed\n");
		abort();
	}
	for (i = 0; i < r->nheaders; i++)
		x->headers = curl_slist_append(x->headers, r->headers[i]);
	x->headers = curl_slist_append(x->headers, "Expect:");
	if (r->token != NULL) {
		char *line = xasprintf("Authorization: %s", r->token);
		x->headers = curl_slist_append(x->headers, line);
		explicit_bzero(line, strlen(line));
		free(line);
	}
	if (x->headers == NULL) {
		fprintf(stderr, "curl_slist_append failed\n");
		abort();
	}
	curl_easy_setopt(e, CURLOPT_URL, r->url);
	curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_HTTPHEADER, x->headers);
	set_method(e, r);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(e, CURLOPT_ERRORBUFFER, x->errbuf);
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, r->connect_timeout_ms);
	curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, r->timeout_ms);
	curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 2L);
	if (r->ca_file != NULL)
		curl_easy_setopt(e, CURLOPT_CAINFO, r->ca_file);
	if (r->cert_file != NULL)
		set_client_cert(e, r, &x->key);
	if (r->userpass != NULL) {
		curl_easy_setopt(e, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		curl_easy_setopt(e, CURLOPT_USERPWD, r->userpass);
	}
	curl_easy_setopt(e, CURLOPT_PRIVATE, x);
	x->server_alert[0] = '\0';
	x->cert_requested = false;
	if (strncmp(r->url, "https:", 6) == 0) {
		/* the server's TLS alerts: a broker that refuses a client
		 * certificate may close the connection so fast that curl's
		 * error names the closed socket, not the alert (Jetty 12.1 in
		 * Artemis 2.44). The trace is read for alerts only. */
		curl_easy_setopt(e, CURLOPT_DEBUGFUNCTION, on_trace);
		curl_easy_setopt(e, CURLOPT_DEBUGDATA, x);
		curl_easy_setopt(e, CURLOPT_VERBOSE, 1L);
	}
}

/* curl's trace of one transfer: only the text lines, and of those only
 * the server's "TLSv1.3 (IN), TLS alert, bad certificate (554):" (its
 * alert name is kept) and "(IN), TLS handshake, Request CERT (13):" (a
 * flag); nothing else (headers, data) is looked at or kept. */
static int
on_trace(CURL *e, curl_infotype type, char *data, size_t size, void *p)
{
	static const char mark[] = "(IN), TLS alert, ";
	static const char request[] = "(IN), TLS handshake, Request CERT";
	struct xfer *x = p;
	const char *at;
	size_t n = 0, left;

	(void)e;
	if (type != CURLINFO_TEXT || size < sizeof(mark))
		return 0;
	if (memmem(data, size, request, sizeof(request) - 1) != NULL) {
		x->cert_requested = true;
		return 0;
	}
	at = memmem(data, size, mark, sizeof(mark) - 1);
	if (at == NULL)
		return 0;
	at += sizeof(mark) - 1;
	left = size - (size_t)(at - data);
	while (n < left && n + 1 < sizeof(x->server_alert) && at[n] != '(' &&
	       at[n] != '\n' && at[n] != ':')
		n++;
	while (n > 0 && at[n - 1] == ' ')
		n--;
	memcpy(x->server_alert, at, n);
	x->server_alert[n] = '\0';
	return 0;
}

static enum http_fail
curl_fail(CURLcode rc)
{
	switch (rc) {
	case CURLE_OPERATION_TIMEDOUT:
		return HTTP_TIMEOUT;
	case CURLE_PARTIAL_FILE:
	case CURLE_WEIRD_SERVER_REPLY:
	case CURLE_BAD_CONTENT_ENCODING:
	case CURLE_HTTP2:
		return HTTP_BAD_REPLY;
	case CURLE_COULDNT_CONNECT:
		return HTTP_REFUSED;
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
		return HTTP_DNS;
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_SSL_ENGINE_NOTFOUND:
	case CURLE_SSL_ENGINE_SETFAILED:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_CIPHER:
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_USE_SSL_FAILED:
	case CURLE_SSL_ENGINE_INITFAILED:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_SHUTDOWN_FAILED:
	case CURLE_SSL_CRL_BADFILE:
	case CURLE_SSL_ISSUER_ERROR:
	case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
	case CURLE_SSL_INVALIDCERTSTATUS:
	case CURLE_SSL_CLIENTCERT:
		return HTTP_TLS;
	default:
		return HTTP_FAILED;
	}
}

/* The server's TLS alerts that judge the client's certificate, as
 * OpenSSL names them in curl's error text (curl reports a peer's alert in
 * no other way; an alert the client receives is about its own certificate,
 * since the server's was judged here). With TLS 1.3 the alert comes after
 * the handshake, on the first read or write. A JDK server (Jetty, in
 * Artemis) answers a missing certificate with "bad certificate" and an
 * untrusted one with "certificate unknown"; OpenSSL's s_server with
 * "certificate required" and "unknown ca". The alert's name, or NULL. */
static const char *const cert_alerts[] = {"bad certificate",
    "certificate unknown", "unknown ca", "certificate required",
    "unsupported certificate", "certificate revoked", "certificate expired"};

/* The certificate alert at the start of at, NULL when it names none. */
static const char *
cert_alert_at(const char *at)
{
	size_t i, n;

	for (i = 0; i < sizeof(cert_alerts) / sizeof(cert_alerts[0]); i++) {
		n = strlen(cert_alerts[i]);
		if (strncmp(at, cert_alerts[i], n) == 0 &&
		    (at[n] == '\0' || at[n] == ',' || at[n] == ' '))
			return cert_alerts[i];
	}
	return NULL;
}

static const char *
client_cert_alert(CURLcode rc, const char *text, const char *server_alert)
{
	const char *at;

	if (rc == CURLE_OK)
		return NULL;
	/* the alert the server sent, whatever curl's error says of the
	 * connection it then closed */
	if (server_alert[0] != '\0' && cert_alert_at(server_alert) != NULL)
		return cert_alert_at(server_alert);
	if (rc != CURLE_SSL_CONNECT_ERROR && rc != CURLE_RECV_ERROR &&
	    rc != CURLE_SEND_ERROR)
		return NULL;
	at = strstr(text, " alert ");
	if (at == NULL)
		return NULL;
	return cert_alert_at(at + 7);
}

/* The scheme, host and port of url (it holds no user or password: see
 * http_check). Owned by the caller. */
static char *
endpoint(const char *url)
{
	const char *host = strstr(url, "://");

	host = host != NULL ? host + 3 : url;
	return xstrndup(url, (size_t)(host - url) + strcspn(host, "/?#"));
}

/* A connection that broke (not a timeout, not a certificate the client
 * refused: those say so themselves). Over HTTP/2 (etcd's gateway) a reset
 * while the connection preface is sent is CURLE_HTTP2 ("Send failure:
 * Connection reset by peer"). */
static bool
closed_early(CURLcode rc)
{
	return rc == CURLE_SSL_CONNECT_ERROR || rc == CURLE_SEND_ERROR ||
	       rc == CURLE_RECV_ERROR || rc == CURLE_GOT_NOTHING ||
	       rc == CURLE_COULDNT_CONNECT || rc == CURLE_HTTP2;
}

/* Did the transfer end before any HTTP answer? */
static bool
no_reply(const struct xfer *x)
{
	long code = 0;

	return curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &code) ==
	           CURLE_OK &&
	       code == 0;
}

/* Why a transfer that ended with rc failed, as resp->fail and a text. */
static void
fail_curl(struct xfer *x, CURLcode rc)
{
	const char *text =
	    x->errbuf[0] != '\0' ? x->errbuf : curl_easy_strerror(rc);
	const char *alert = client_cert_alert(rc, text, x->server_alert);
	char *where;

	if (alert == NULL && rc == CURLE_SSL_CERTPROBLEM &&
	    x->req->cert_file != NULL) {
		set_fail(x->resp, HTTP_TLS,
		    xasprintf("the client certificate '%s' or its key cannot "
		              "be used: %s",
		        x->req->cert_file, text));
		return;
	}
	if (alert == NULL && x->cert_requested && closed_early(rc) &&
	    no_reply(x)) {
		/* the server asked for a client certificate, then closed the
		 * connection before any answer, too fast for its alert to be
		 * read (Jetty 12.1 in Artemis 2.44): its refusal */
		where = endpoint(x->req->url);
		if (x->req->cert_file == NULL)
			set_fail(x->resp, HTTP_TLS_CLIENT,
			    xasprintf(
			        "%s requires a TLS client certificate and "
			        "none was given (it asked for one in the "
			        "TLS handshake, then closed the connection: %s)",
			        where, text));
		else
			set_fail(x->resp, HTTP_TLS_CLIENT,
			    xasprintf(
			        "%s refused the TLS client certificate '%s' "
			        "(it closed the connection after the TLS "
			        "handshake that asked for it, with no alert "
			        "read: %s): is it signed by a CA the server "
			        "trusts?",
			        where, x->req->cert_file, text));
		free(where);
		return;
	}
	if (alert == NULL && rc == CURLE_PEER_FAILED_VERIFICATION) {
		/* curl's text first (what callers match), then whose
		 * certificate and which trust */
		where = endpoint(x->req->url);
		set_fail(x->resp, HTTP_TLS,
		    xasprintf("%s (certificate verify failed: the TLS "
		              "certificate of %s is not trusted by %s%s%s)",
		        text, where,
		        x->req->ca_file != NULL ? "the CA file '"
		                                : "the system trust store",
		        x->req->ca_file != NULL ? x->req->ca_file : "",
		        x->req->ca_file != NULL ? "'" : ""));
		free(where);
		return;
	}
	if (alert == NULL) {
		set_fail(x->resp, curl_fail(rc), xstrdup(text));
		return;
	}
	where = endpoint(x->req->url);
	if (x->req->cert_file == NULL)
		set_fail(x->resp, HTTP_TLS_CLIENT,
		    xasprintf("%s requires a TLS client certificate and none "
		              "was given (the server's TLS alert: %s)",
		        where, alert));
	else
		set_fail(x->resp, HTTP_TLS_CLIENT,
		    xasprintf("%s refused the TLS client certificate '%s' "
		              "(the server's TLS alert: %s)%s",
		        where, x->req->cert_file, alert,
		        strstr(alert, "expired") != NULL ||
		                strstr(alert, "revoked") != NULL
		            ? ""
		            : ": is it signed by a CA the server trusts?"));
	free(where);
}

static void
xfer_finish(struct xfer *x, CURLcode rc)
{
	long code = 0;

	x->done = true;
	stream_end(x);
	if (curl_easy_getinfo(x->easy, CURLINFO_TOTAL_TIME,
	        &x->resp->seconds) != CURLE_OK)
		x->resp->seconds = 0;
	if (rc == CURLE_OK) {
		curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &code);
		x->resp->fail = HTTP_OK;
		x->resp->status = code >= 0 && code <= INT_MAX ? (int)code : 0;
		return;
	}
	if (x->too_large)
		set_fail(x->resp, HTTP_TOO_LARGE,
		    xasprintf("response larger than %zu bytes",
		        x->req->max_response));
	else
		fail_curl(x, rc);
}

static void
xfer_cleanup(struct xfer *x)
{
	curl_easy_cleanup(x->easy);
	curl_slist_free_all(x->headers);
}

/* True while x is sent and not finished. */
static bool
in_flight(const struct xfer *x)
{
	return x->easy != NULL && !x->done;
}

/* The shortest interval of the ticks that requests in flight carry, in
 * ms; 0 when none carries one. */
static long
tick_interval(const struct xfer *xs, size_t n)
{
	long ms = 0, v;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!in_flight(&xs[i]) || xs[i].req->tick == NULL)
			continue;
		v = xs[i].req->tick->interval_ms > 0
		        ? xs[i].req->tick->interval_ms
		        : 1000;
		if (ms == 0 || v < ms)
			ms = v;
	}
	return ms;
}

/* Call each tick of a request in flight once; the requests of a tick that
 * asks for it are abandoned (taken out of m, failed). */
static void
tick_all(CURLM *m, struct xfer *xs, size_t n)
{
	const struct http_tick *t;
	size_t i, j;

	for (i = 0; i < n; i++) {
		t = xs[i].req->tick;
		if (!in_flight(&xs[i]) || t == NULL)
			continue;
		for (j = 0; j < i; j++)
			if (in_flight(&xs[j]) && xs[j].req->tick == t)
				break;
		if (j < i || !t->fn(t->ctx))
			continue; /* called already, or carry on */
		for (j = i; j < n; j++) {
			if (!in_flight(&xs[j]) || xs[j].req->tick != t)
				continue;
			if (curl_easy_getinfo(xs[j].easy, CURLINFO_TOTAL_TIME,
			        &xs[j].resp->seconds) != CURLE_OK)
				xs[j].resp->seconds = 0;
			curl_multi_remove_handle(m, xs[j].easy);
			xs[j].done = true;
			stream_end(&xs[j]);
			set_fail(xs[j].resp, HTTP_FAILED,
			    xstrdup("abandoned by the caller"));
		}
	}
}

/* Drive the transfers added to m until none is running, calling the
 * requests' ticks on time. */
static void
run(CURLM *m, struct xfer *xs, size_t n)
{
	struct xfer *x;
	CURLMsg *msg;
	int running = 0, left, wait;
	long every = tick_interval(xs, n);
	size_t i;
	int64_t now, next = clock_monotonic_ms(); /* once at the start */

	for (;;) {
		if (curl_multi_perform(m, &running) != CURLM_OK)
			break;
		while ((msg = curl_multi_info_read(m, &left)) != NULL) {
			if (msg->msg != CURLMSG_DONE)
				continue;
			x = NULL;
			curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE,
			    (char **)&x);
			xfer_finish(x, msg->data.result);
		}
		if (running == 0)
			break;
		now = clock_monotonic_ms();
		if (every > 0 && now >= next) {
			tick_all(m, xs, n);
			every = tick_interval(xs, n);
			next = clock_monotonic_ms() + every;
			continue; /* abandoned transfers are out of m now */
		}
		wait = 1000;
		if (every > 0 && next - now < wait)
			wait = (int)(next - now);
		curl_multi_poll(m, NULL, 0, wait, NULL);
		/* a stream's reader made room (and woke the poll) */
		for (i = 0; i < n; i++)
			if (in_flight(&xs[i]) && xs[i].paused)
				stream_resume(&xs[i]);
	}
}

void
http_send_all(const struct http_request *reqs, struct http_response *resps,
    size_t n)
{
	struct xfer *xs = xcalloc(n + 1, sizeof(*xs));
	const char *why;
	CURLM *m = NULL;
	size_t i;

	pthread_once(&global_once, global_init);
	for (i = 0; i < n; i++) {
		xs[i].req = &reqs[i];
		xs[i].resp = &resps[i];
		why = http_check(&reqs[i]);
		if (why != NULL) {
			set_fail(&resps[i], HTTP_INVALID,
			    xasprintf("invalid request: %s", why));
			continue;
		}
		if (global_rc != CURLE_OK) {
			set_fail(&resps[i], HTTP_FAILED,
			    xasprintf("curl_global_init failed: %s",
			        curl_easy_strerror(global_rc)));
			continue;
		}
		if (m == NULL)
			m = curl_multi_init();
		xfer_setup(&xs[i]);
		if (reqs[i].stream != NULL) {
			pthread_mutex_lock(&reqs[i].stream->mu);
			reqs[i].stream->multi = m;
			pthread_mutex_unlock(&reqs[i].stream->mu);
		}
		curl_multi_add_handle(m, xs[i].easy);
	}
	if (m != NULL)
		run(m, xs, n);
	for (i = 0; i < n; i++) {
		stream_end(&xs[i]); /* never sent, or over */
		if (xs[i].easy == NULL)
			continue;
		if (!xs[i].done)
			xfer_finish(&xs[i], CURLE_ABORTED_BY_CALLBACK);
		curl_multi_remove_handle(m, xs[i].easy);
		xfer_cleanup(&xs[i]);
	}
	if (m != NULL)
		curl_multi_cleanup(m);
	free(xs);
}

int
http_send(const struct http_request *req, struct http_response *resp)
{
	http_send_all(req, resp, 1);
	return resp->fail == HTTP_OK ? 0 : -1;
}
