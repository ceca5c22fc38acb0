/* lib/http.h: the project's one HTTP client, the only user of libcurl.
 *
 * Generic: a request is a method, a URL, a body and header lines; the
 * answer is an HTTP status and a body, or a transport failure classified
 * into enum http_fail. It knows nothing of Jolokia or JSON; callers map
 * the failures onto their own kinds (reconcile/live/jolokia.c).
 *
 * Policy, the same for every caller: http and https only; TLS peers and
 * host names are verified (against ca_file or the system store), never
 * skipped; a client certificate is sent when one is given; redirects
 * are not followed (a 3xx is an answer); no "Expect: 100-continue"; every
 * request has a connect timeout, a total timeout and a cap on the body it
 * accepts. Credentials travel only as HTTP Basic from `userpass` or as the
 * opaque `token`: a URL with a user or password and an Authorization
 * header line are refused,
 * and no error text ever holds them.
 */
#ifndef LIB_HTTP_H
#define LIB_HTTP_H

#include <stdbool.h>
#include <stddef.h>

#include "sbuf.h"

/* What a caller does while its requests are in flight: http_send_all calls
 * fn(ctx) from its own thread once the requests are sent, then at least
 * every interval_ms (0: every 1000 ms) for as long as a request that
 * carries this tick is in flight, so that a
 * single-threaded caller keeps its promises (a watchdog, its signals)
 * whatever the servers do. fn returns true to abandon the requests that
 * carry this tick: they fail at once with HTTP_FAILED ("abandoned by the
 * caller"); whatever the server does with what it received is not known. */
struct http_tick {
	bool (*fn)(void *ctx);
	void *ctx;
	long interval_ms;
};

/* A request; strings are borrowed. Zero timeouts and cap are refused: a
 * caller states its bounds. */
struct http_request {
	const char *method; /* "GET", "POST", ...; NULL = POST with a body,
	                       GET without */
	const char *url;    /* http:// or https://, no user:password@ */
	const char *body;   /* NULL = none */
	size_t body_len;
	const char *const *headers; /* "Name: value" lines (no CR, LF) */
	size_t nheaders;
	const char *userpass; /* "user:password" for HTTP Basic; NULL = none */
	/* an opaque token sent as the whole value of the Authorization
	 * header (etcd's, lib/etcd.c); a secret like userpass; NULL = none.
	 * Not with userpass. */
	const char *token;
	const char *ca_file; /* NULL = the system trust store */
	/* Mutual TLS, both or neither: the client certificate (a PEM file,
	 * its chain after it) and its private key as PEM text in memory
	 * (unencrypted; a secret: never copied, never in an error). */
	const char *cert_file;
	const char *key_pem;
	long connect_timeout_ms;
	long timeout_ms;     /* the whole request */
	size_t max_response; /* bytes of body accepted */
	/* called while the request is in flight (above); NULL = none */
	const struct http_tick *tick;
	/* the body handed to this stream as it arrives, for another thread
	 * to read (below), instead of kept in the response; max_response
	 * still bounds it. NULL = kept. */
	struct http_stream *stream;
};

/* Why no answer came (HTTP_OK: one did, whatever its status). */
enum http_fail {
	HTTP_OK = 0,
	HTTP_INVALID,    /* the request itself is wrong (see http_check) */
	HTTP_REFUSED,    /* could not connect (refused, no route) */
	HTTP_DNS,        /* the host (or proxy) name did not resolve */
	HTTP_TLS,        /* handshake, certificate, CA file */
	HTTP_TLS_CLIENT, /* the server refused the connection over the client
	                    certificate: none was given, or one it does not
	                    trust (its TLS alert is named in the error) */
	HTTP_TIMEOUT,    /* connect or total timeout */
	HTTP_TOO_LARGE,  /* the body passed max_response */
	HTTP_BAD_REPLY,  /* a malformed answer: cut short, not HTTP, a bad
	                    content encoding, broken HTTP/2 framing */
	HTTP_FAILED,     /* anything else (empty reply, reset, ...) */
};

/* The answer to one request. Valid when zeroed. */
struct http_response {
	enum http_fail fail;
	int status;       /* the HTTP status; 0 without an answer */
	struct sbuf body; /* the body (on HTTP_OK) */
	char *error;      /* owned: why it failed (curl's words, or "response
	                     larger than N bytes"); NULL on HTTP_OK */
	double seconds;   /* how long it took, answered or not (curl's total
	                     time); 0 when it was never sent */
};

/* "HTTP_OK", "HTTP_REFUSED", ... */
const char *http_fail_name(enum http_fail f);

/* NULL when req can be sent, else why not (a static text). */
const char *http_check(const struct http_request *req);

/* True when what is sent to url travels unencrypted beyond this host: a
 * plain http:// URL whose host is not loopback (by its text, not by what
 * a name resolves to: `localhost`, 127.0.0.0/8, ::1 and ::ffff:127.x are
 * loopback; curl resolves `localhost` itself). Loopback traffic never
 * leaves the host, where whoever can read it can read the agent's
 * secrets anyway. False for https:// and for what curl cannot parse. */
bool http_url_is_cleartext(const char *url);

/* Send req and wait for the answer, into *resp (released first). 0 when
 * an answer came (any status), -1 with resp->fail and resp->error. */
int http_send(const struct http_request *req, struct http_response *resp);
/* Send reqs[i] for every i < n concurrently (one thread; curl's multi
 * interface) and wait for all: resps[i] as http_send would set it. */
void http_send_all(const struct http_request *reqs, struct http_response *resps,
    size_t n);

void http_response_release(struct http_response *resp); /* zeroes it */

/* A response body read while it arrives: a caller gives a request one,
 * sends it (http_send_all, which returns once the transfer is over) and
 * reads the body from another thread with http_stream_read, which waits
 * for bytes: it returns up to cap of them, and 0 once the transfer is over
 * (answered, failed, abandoned or never sent: the response says which)
 * and every byte was read. Its memory is fixed (a 256 KiB ring): the
 * transfer waits while the reader is behind. The reader must read to the
 * 0 (a reader that stops early leaves the transfer waiting until its
 * timeout); free the stream once both sides are done. */
struct http_stream;
struct http_stream *http_stream_new(void);
long http_stream_read(struct http_stream *s, char *buf, size_t cap);
/* The HTTP status of the answer whose body s carries, once a byte of it
 * came (0 before, and for an answer without a body). */
int http_stream_status(struct http_stream *s);
void http_stream_free(struct http_stream *s); /* NULL is a no-op */

#endif
