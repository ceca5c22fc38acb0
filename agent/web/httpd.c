/* agent/web/httpd.c: libmicrohttpd behind web-int.h's small interface; the
 * one file that includes <microhttpd.h>.
 *
 * libmicrohttpd runs its own listening thread and one thread per
 * connection (MHD_USE_THREAD_PER_CONNECTION): a client that reads one byte
 * a second, or a handler that waits on the daemon for a delete-queue
 * preview, holds only its own thread. The daemon's loop never calls into
 * libmicrohttpd at all, so nothing a client does can delay a cycle or the
 * watchdog. The bounds: WEB_CONN_MAX connections at once (more are
 * refused at accept), http per-address connections, an idle timeout, a
 * per-connection memory pool (headers beyond it get 431), 256 KiB stacks,
 * and WEB_BODY_MAX bytes of body (413).
 */
#define LOG_MODULE "http"

#include "web-int.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "../../lib/clock.h"
#include "../../lib/xalloc.h"
#include "../log.h"

#define WEB_STACK_SIZE  ((size_t)256 * 1024)
#define WEB_CONN_MEMORY ((size_t)64 * 1024) /* headers and buffers */

struct web_httpd {
	struct MHD_Daemon *d;
	web_handler_fn fn;
	void *ctx;
	char *client_header;
	bool tls;
	unsigned port;
};

/* One request, from its first callback to its completion. */
struct conn_state {
	struct sbuf body;
	bool too_big;
	int64_t started;
};

const char *
web_req_header(const struct web_req *r, const char *name)
{
	return MHD_lookup_connection_value((struct MHD_Connection *)r->conn,
	    MHD_HEADER_KIND, name);
}

const char *
web_req_cookie(const struct web_req *r, const char *name)
{
	return MHD_lookup_connection_value((struct MHD_Connection *)r->conn,
	    MHD_COOKIE_KIND, name);
}

const char *
web_req_query(const struct web_req *r, const char *name)
{
	return MHD_lookup_connection_value((struct MHD_Connection *)r->conn,
	    MHD_GET_ARGUMENT_KIND, name);
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Decode one application/x-www-form-urlencoded component of n bytes. */
static char *
form_decode(const char *s, size_t n)
{
	char *out = xmalloc(n + 1);
	size_t i, j = 0;
	int hi, lo;

	for (i = 0; i < n; i++) {
		if (s[i] == '+') {
			out[j++] = ' ';
		} else if (s[i] == '%' && i + 2 < n &&
		           (hi = hexval(s[i + 1])) >= 0 &&
		           (lo = hexval(s[i + 2])) >= 0) {
			out[j++] = (char)(hi * 16 + lo);
			i += 2;
		} else {
			out[j++] = s[i];
		}
	}
	out[j] = '\0';
	return out;
}

char *
web_req_form(const struct web_req *r, const char *name)
{
	const char *p = r->body, *end = r->body + r->body_len, *amp, *eq;
	size_t nlen = strlen(name);

	while (p < end) {
		amp = memchr(p, '&', (size_t)(end - p));
		if (amp == NULL)
			amp = end;
		eq = memchr(p, '=', (size_t)(amp - p));
		if (eq != NULL && (size_t)(eq - p) == nlen &&
		    memcmp(p, name, nlen) == 0)
			return form_decode(eq + 1, (size_t)(amp - eq - 1));
		p = amp + 1;
	}
	return NULL;
}

static enum MHD_Result
count_header(void *cls, enum MHD_ValueKind kind, const char *key,
    const char *value)
{
	size_t *n = cls;

	(void)kind;
	(void)key;
	(void)value;
	(*n)++;
	return MHD_YES;
}

static enum MHD_Result
send_resp(struct MHD_Connection *conn, struct web_resp *out)
{
	struct MHD_Response *resp;
	enum MHD_Result rc;
	size_t len = out->body.len, i;
	char *body = sbuf_take(&out->body), *colon, *name;

	if (body == NULL)
		body = xstrdup("");
	resp =
	    MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (resp == NULL) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
	    out->type != NULL ? out->type : "text/plain; charset=utf-8");
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL,
	    "no-store");
	for (i = 0; i < out->headers.n; i++) {
		colon = strchr(out->headers.v[i], ':');
		if (colon == NULL)
			continue;
		name = xstrndup(out->headers.v[i],
		    (size_t)(colon - out->headers.v[i]));
		MHD_add_response_header(resp, name,
		    colon + 1 + (colon[1] == ' '));
		free(name);
	}
	rc = MHD_queue_response(conn, (unsigned)out->status, resp);
	MHD_destroy_response(resp);
	return rc;
}

static void
plain(struct web_resp *out, int status, const char *msg)
{
	out->status = status;
	out->type = "application/json";
	sbuf_reset(&out->body);
	sbuf_addf(&out->body,
	    "{\"error\":{\"message\":\"%s\",\"status\":%d}}\n", msg, status);
}

/* The client's address: the peer's, or the last entry of the proxy's
 * header when http.client-address-header is set. */
static void
client_of(const struct web_httpd *h, struct MHD_Connection *conn, char out[64])
{
	const union MHD_ConnectionInfo *ci;
	const char *v, *last;
	size_t n;

	snprintf(out, 64, "?");
	if (h->client_header != NULL) {
		v = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
		    h->client_header);
		if (v != NULL) {
			last = strrchr(v, ',');
			last = last != NULL ? last + 1 : v;
			last += strspn(last, " \t");
			n = strcspn(last, " \t");
			if (n > 0 && n < 64 &&
			    strspn(last, "0123456789abcdefABCDEF.:[]") >= n) {
				memcpy(out, last, n);
				out[n] = '\0';
				return;
			}
		}
	}
	ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	if (ci == NULL || ci->client_addr == NULL)
		return;
	if (getnameinfo(ci->client_addr,
	        ci->client_addr->sa_family == AF_INET6
	            ? sizeof(struct sockaddr_in6)
	            : sizeof(struct sockaddr_in),
	        out, 64, NULL, 0, NI_NUMERICHOST) != 0)
		snprintf(out, 64, "?");
}

static enum MHD_Result
on_request(void *cls, struct MHD_Connection *conn, const char *url,
    const char *method, const char *version, const char *upload,
    size_t *upload_size, void **con_cls)
{
	struct web_httpd *h = cls;
	struct conn_state *st = *con_cls;
	struct web_req r;
	struct web_resp out;
	const char *cl;
	size_t nheaders = 0;
	unsigned long long want;
	enum MHD_Result rc;

	(void)version;
	if (st == NULL) {
		st = xcalloc(1, sizeof(*st));
		sbuf_init(&st->body, WEB_BODY_MAX);
		st->started = clock_monotonic_ms();
		*con_cls = st;
		cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
		    MHD_HTTP_HEADER_CONTENT_LENGTH);
		want = cl != NULL ? strtoull(cl, NULL, 10) : 0;
		memset(&out, 0, sizeof(out));
		MHD_get_connection_values(conn, MHD_HEADER_KIND, count_header,
		    &nheaders);
		if (nheaders > WEB_HEADERS_MAX) {
			plain(&out, MHD_HTTP_REQUEST_HEADER_FIELDS_TOO_LARGE,
			    "too many request headers");
		} else if (want > WEB_BODY_MAX) {
			plain(&out, MHD_HTTP_CONTENT_TOO_LARGE,
			    "the request body is larger than 65536 bytes");
		} else {
			return MHD_YES;
		}
		st->too_big = true;
		log_info("%s %s: %d", method, url, out.status);
		rc = send_resp(conn, &out);
		strv_release(&out.headers);
		return rc;
	}
	if (*upload_size > 0) {
		if (st->too_big) {
			*upload_size = 0;
			return MHD_YES;
		}
		if (st->body.len + *upload_size > WEB_BODY_MAX) {
			/* chunked, longer than it may be: answer 413 and close
			 */
			st->too_big = true;
			*upload_size = 0;
			return MHD_YES;
		}
		sbuf_add(&st->body, upload, *upload_size);
		*upload_size = 0;
		return MHD_YES;
	}
	memset(&out, 0, sizeof(out));
	if (st->too_big) {
		plain(&out, MHD_HTTP_CONTENT_TOO_LARGE,
		    "the request body is larger than 65536 bytes");
	} else {
		memset(&r, 0, sizeof(r));
		r.method = method;
		r.path = url;
		r.body = sbuf_str(&st->body);
		r.body_len = st->body.len;
		r.tls = h->tls;
		r.conn = conn;
		client_of(h, conn, r.client);
		out.status = 500;
		h->fn(h->ctx, &r, &out);
	}
	rc = send_resp(conn, &out);
	strv_release(&out.headers);
	sbuf_release(&out.body);
	return rc;
}

static void
on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
    enum MHD_RequestTerminationCode toe)
{
	struct conn_state *st = *con_cls;

	(void)cls;
	(void)conn;
	(void)toe;
	if (st == NULL)
		return;
	sbuf_release(&st->body);
	free(st);
	*con_cls = NULL;
}

static void
on_mhd_log(void *cls, const char *fmt, va_list ap)
{
	char buf[512];
	size_t n;

	(void)cls;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	n = strlen(buf);
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		buf[--n] = '\0';
	log_info("libmicrohttpd: %s", buf);
}

/* Parse "host:port", "[v6]:port" or ":port" into ss (numeric hosts, or a
 * name resolved once at start). */
static int
parse_listen(const char *listen, struct sockaddr_storage *ss, socklen_t *sslen,
    bool *v6, struct err *err)
{
	struct addrinfo hints, *res = NULL;
	char host[256], port[8];
	const char *colon, *ps = NULL;
	size_t n;
	int e;

	if (listen[0] != '\0' &&
	    strspn(listen, "0123456789") == strlen(listen)) {
		/* a bare port: the loopback address, the safe default */
		snprintf(host, sizeof(host), "127.0.0.1");
		ps = listen;
	} else if (listen[0] == '[') {
		colon = strchr(listen, ']');
		if (colon == NULL || colon[1] != ':')
			return err_setf(err, NULL,
			    "http.listen '%s': bad address", listen);
		n = (size_t)(colon - listen - 1);
		colon++;
		if (n >= sizeof(host))
			return err_setf(err, NULL,
			    "http.listen: name too long");
		memcpy(host, listen + 1, n);
		host[n] = '\0';
	} else {
		colon = strrchr(listen, ':');
		if (colon == NULL)
			return err_setf(err, NULL, "http.listen '%s': no port",
			    listen);
		n = (size_t)(colon - listen);
		if (n >= sizeof(host))
			return err_setf(err, NULL,
			    "http.listen: name too long");
		memcpy(host, listen, n);
		host[n] = '\0';
	}
	if (ps == NULL)
		ps = colon + 1;
	snprintf(port, sizeof(port), "%s", ps);
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	e = getaddrinfo(host[0] != '\0' ? host : NULL, port, &hints, &res);
	if (e != 0 || res == NULL)
		return err_setf(err, NULL, "http.listen '%s': %s", listen,
		    e != 0 ? gai_strerror(e) : "no address");
	/* ":port": every address, IPv6 and IPv4 when the system has both */
	if (host[0] == '\0') {
		struct addrinfo *a;

		for (a = res; a != NULL; a = a->ai_next)
			if (a->ai_family == AF_INET6)
				break;
		if (a == NULL)
			a = res;
		memcpy(ss, a->ai_addr, a->ai_addrlen);
		*sslen = a->ai_addrlen;
	} else {
		memcpy(ss, res->ai_addr, res->ai_addrlen);
		*sslen = res->ai_addrlen;
	}
	*v6 = ss->ss_family == AF_INET6;
	freeaddrinfo(res);
	return 0;
}

int
web_httpd_start(struct web_httpd **out, const struct web_httpd_opts *o,
    web_handler_fn fn, void *ctx, struct err *err)
{
	struct web_httpd *h;
	struct sockaddr_storage ss;
	socklen_t sslen = 0;
	bool v6 = false;
	unsigned flags = MHD_USE_THREAD_PER_CONNECTION |
	                 MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL |
	                 MHD_USE_ERROR_LOG;
	const union MHD_DaemonInfo *di;
	struct MHD_OptionItem tls[3];
	uint16_t port;

	memset(&ss, 0, sizeof(ss));
	if (parse_listen(o->listen, &ss, &sslen, &v6, err) < 0)
		return -1;
	port = ntohs(ss.ss_family == AF_INET6
	                 ? ((struct sockaddr_in6 *)(void *)&ss)->sin6_port
	                 : ((struct sockaddr_in *)(void *)&ss)->sin_port);
	if (v6)
		flags |= MHD_USE_IPv6;
	if (o->cert_pem != NULL) {
		if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES)
			return err_setf(err, NULL,
			    "http.tls-cert-file: this libmicrohttpd has no TLS");
		flags |= MHD_USE_TLS;
	}
	h = xcalloc(1, sizeof(*h));
	h->fn = fn;
	h->ctx = ctx;
	h->tls = o->cert_pem != NULL;
	h->client_header =
	    o->client_header != NULL ? xstrdup(o->client_header) : NULL;
	/* the certificate and key when serving TLS, else nothing */
	memset(tls, 0, sizeof(tls));
	tls[0].option = MHD_OPTION_END;
	if (o->cert_pem != NULL) {
		tls[0].option = MHD_OPTION_HTTPS_MEM_CERT;
		tls[0].ptr_value = (void *)(uintptr_t)o->cert_pem;
		tls[1].option = MHD_OPTION_HTTPS_MEM_KEY;
		tls[1].ptr_value = (void *)(uintptr_t)o->key_pem;
		tls[2].option = MHD_OPTION_END;
	}
	h->d = MHD_start_daemon(flags, port, NULL, NULL, on_request, h,
	    MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, NULL, MHD_OPTION_SOCK_ADDR,
	    (struct sockaddr *)&ss, MHD_OPTION_CONNECTION_LIMIT,
	    (unsigned)WEB_CONN_MAX, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
	    o->per_ip_max, MHD_OPTION_CONNECTION_TIMEOUT, o->timeout_s,
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT, WEB_CONN_MEMORY,
	    MHD_OPTION_THREAD_STACK_SIZE, WEB_STACK_SIZE,
	    MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL, MHD_OPTION_ARRAY,
	    tls, MHD_OPTION_END);
	(void)sslen;
	if (h->d == NULL) {
		free(h->client_header);
		free(h);
		return err_setf(err, NULL,
		    "http.listen '%s': cannot listen (the address is in use, "
		    "not local, or the TLS certificate and key do not load)",
		    o->listen);
	}
	di = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
	h->port = di != NULL ? di->port : port;
	*out = h;
	return 0;
}

void
web_httpd_stop(struct web_httpd *h)
{
	if (h == NULL)
		return;
	MHD_stop_daemon(h->d);
	free(h->client_header);
	free(h);
}

unsigned
web_httpd_port(const struct web_httpd *h)
{
	return h->port;
}

unsigned
web_httpd_connections(const struct web_httpd *h)
{
	const union MHD_DaemonInfo *di =
	    MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);

	return di != NULL ? di->num_connections : 0;
}
