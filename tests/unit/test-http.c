/* tests/unit/test-http.c: the HTTP client (lib/http.c): what it refuses
 * to send, and against a small server on the loopback interface (forked
 * here, no network) what it sends, what it hands back and how it
 * classifies what goes wrong; against `openssl s_server` demanding a
 * client certificate, mutual TLS. Credentials and keys never appear in an
 * error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <arpa/inet.h>
#include <cmocka.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../lib/clock.h"
#include "../../lib/http.h"
#include "../../lib/xalloc.h"

#define SECRET "hunter2-secret"

static struct http_request
request(const char *url)
{
	struct http_request r = {.url = url,
	    .connect_timeout_ms = 5000,
	    .timeout_ms = 10000,
	    .max_response = 1 << 20};

	return r;
}

static void
test_http__check_refuses(void **state)
{
	const char *const bad_hdr[] = {"Origin: x", "X-A: b\r\nX-B: c"};
	const char *const auth_hdr[] = {"authorization: Basic eDp5"};
	const char *const no_name[] = {": v"};
	struct http_request r = request("http://127.0.0.1:1/x");

	(void)state;
	assert_null(http_check(&r));
	r.url = "http://user:" SECRET "@127.0.0.1:1/x";
	assert_string_equal(http_check(&r),
	    "the URL holds a user or password (credentials go in userpass)");
	r.url = "user@127.0.0.1/x";
	assert_non_null(http_check(&r));
	r.url = "http://127.0.0.1:1/x?to=a@b";
	assert_null(http_check(&r));
	r.url = "";
	assert_string_equal(http_check(&r), "no URL");
	r = request("http://127.0.0.1:1/x");
	r.headers = bad_hdr;
	r.nheaders = 2;
	assert_string_equal(http_check(&r), "a header line holds a line break");
	r.headers = auth_hdr;
	r.nheaders = 1;
	assert_string_equal(http_check(&r),
	    "credentials go in userpass, not in a header");
	r.headers = no_name;
	assert_string_equal(http_check(&r),
	    "a header line is not 'Name: value'");
	r = request("http://127.0.0.1:1/x");
	r.method = "post";
	assert_string_equal(http_check(&r),
	    "the method is not an upper-case word");
	r.method = "GET";
	r.body = "x";
	r.body_len = 1;
	assert_string_equal(http_check(&r),
	    "a GET or HEAD request with a body");
	r.method = NULL;
	r.body = NULL;
	assert_string_equal(http_check(&r), "a body length without a body");
	r = request("http://127.0.0.1:1/x");
	r.timeout_ms = 0;
	assert_string_equal(http_check(&r), "no timeout");
	r = request("http://127.0.0.1:1/x");
	r.max_response = 0;
	assert_string_equal(http_check(&r), "no cap on the response");
	r = request("https://127.0.0.1:1/x");
	r.cert_file = "/c.pem";
	assert_string_equal(http_check(&r),
	    "a client certificate without its key");
	r.cert_file = NULL;
	r.key_pem = "-----BEGIN PRIVATE KEY-----\n";
	assert_string_equal(http_check(&r),
	    "a client key without its certificate");
}

/* Plain http:// beyond loopback is what travels in clear. */
static void
test_http__cleartext(void **state)
{
	static const char *const clear[] = {
	    "http://192.0.2.2:8161/console/jolokia",
	    "http://broker-a.example.com:8161/console/jolokia",
	    "HTTP://10.0.0.1/x",
	    "http://[2001:db8::1]:8161/x",
	    "http://128.0.0.1/x",
	    "http://localhost.example.com/x",
	    "http://[::ffff:10.0.0.1]/x",
	};
	static const char *const not_clear[] = {
	    "https://broker-a.example.com:8443/console/jolokia",
	    "http://localhost:8161/console/jolokia",
	    "http://LocalHost/x",
	    "http://127.0.0.1:8161/x",
	    "http://127.8.9.10/x",
	    "http://[::1]:8161/x",
	    "http://[::ffff:127.0.0.1]/x",
	    "not a url",
	    "",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(clear) / sizeof(clear[0]); i++)
		if (!http_url_is_cleartext(clear[i]))
			fail_msg("'%s' is not cleartext", clear[i]);
	for (i = 0; i < sizeof(not_clear) / sizeof(not_clear[0]); i++)
		if (http_url_is_cleartext(not_clear[i]))
			fail_msg("'%s' is cleartext", not_clear[i]);
}

static void
test_http__invalid_is_not_sent(void **state)
{
	struct http_request r = request("http://u:" SECRET "@127.0.0.1:1/x");
	struct http_response resp = {0};

	(void)state;
	assert_int_equal(http_send(&r, &resp), -1);
	assert_int_equal(resp.fail, HTTP_INVALID);
	assert_int_equal(resp.status, 0);
	assert_null(strstr(resp.error, SECRET));
	assert_non_null(strstr(resp.error, "invalid request: "));
	http_response_release(&resp);
	assert_string_equal(http_fail_name(HTTP_TOO_LARGE), "HTTP_TOO_LARGE");
}

/* ---- a server on 127.0.0.1 ----------------------------------------------
 * Forked, one child per connection; it answers by the request's path:
 *   /echo       200, the request it read (head and body) as the body
 *   /status/N   status N, body "s"
 *   /big        200, 10000 bytes
 *   /huge       200, 3000000 bytes: byte i is 'a' + i % 26
 *   /cut        a Content-Length of 100 and 3 bytes, then closes
 *   /drop       closes without an answer
 *   /stall      says nothing for 5 s
 *   /redirect   302 to /echo
 * and to a TLS handshake a plain HTTP 400. */

struct server {
	pid_t pid;
	int port;
};

/* The request (head, and the body its Content-Length gives) into buf. */
static size_t
read_request(int fd, char *buf, size_t cap)
{
	size_t len = 0, want = 0;
	const char *end, *cl;
	ssize_t n;

	for (;;) {
		n = read(fd, buf + len, cap - 1 - len);
		if (n <= 0)
			break;
		len += (size_t)n;
		buf[len] = '\0';
		if ((unsigned char)buf[0] == 0x16)
			break; /* a TLS handshake */
		end = strstr(buf, "\r\n\r\n");
		if (end == NULL)
			continue;
		cl = strstr(buf, "Content-Length: ");
		want =
		    (size_t)(end + 4 - buf) +
		    (cl != NULL && cl < end ? strtoul(cl + 16, NULL, 10) : 0);
		if (len >= want)
			break;
	}
	buf[len] = '\0';
	return len;
}

static void
put(int fd, const char *s, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, s, n);

		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

static void
puts_(int fd, const char *s)
{
	put(fd, s, strlen(s));
}

static void
answer(int fd, const char *status, const char *body, size_t n)
{
	char head[256];
	int h = snprintf(head, sizeof(head),
	    "HTTP/1.1 %s\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n",
	    status, n);

	put(fd, head, (size_t)h);
	put(fd, body, n);
}

static void
serve(int fd)
{
	static char req[65536], big[10000];
	size_t len = read_request(fd, req, sizeof(req));
	const char *path = strchr(req, ' ');
	char status[16];

	path = path != NULL ? path + 1 : "";
	if (len > 0 && (unsigned char)req[0] == 0x16) {
		puts_(fd, "HTTP/1.1 400 Bad Request\r\n\r\n");
	} else if (strncmp(path, "/echo ", 6) == 0) {
		answer(fd, "200 OK", req, len);
	} else if (strncmp(path, "/status/", 8) == 0) {
		snprintf(status, sizeof(status), "%.3s X", path + 8);
		answer(fd, status, "s", 1);
	} else if (strncmp(path, "/big ", 5) == 0) {
		memset(big, 'b', sizeof(big));
		answer(fd, "200 OK", big, sizeof(big));
	} else if (strncmp(path, "/huge ", 6) == 0) {
		static char huge[3000000];
		size_t i;

		for (i = 0; i < sizeof(huge); i++)
			huge[i] = (char)('a' + i % 26);
		answer(fd, "200 OK", huge, sizeof(huge));
	} else if (strncmp(path, "/cut ", 5) == 0) {
		puts_(fd, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc");
	} else if (strncmp(path, "/stall ", 7) == 0) {
		sleep(5);
	} else if (strncmp(path, "/redirect ", 10) == 0) {
		puts_(fd, "HTTP/1.1 302 Found\r\nLocation: /echo\r\n"
		          "Content-Length: 0\r\n\r\n");
	}
	close(fd); /* /drop: nothing said */
}

static void
server_start(struct server *s)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t alen = sizeof(a);
	int ls, fd;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ls = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(ls >= 0);
	assert_int_equal(bind(ls, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(ls, 16), 0);
	assert_int_equal(getsockname(ls, (struct sockaddr *)&a, &alen), 0);
	s->port = ntohs(a.sin_port);
	s->pid = fork();
	assert_true(s->pid >= 0);
	if (s->pid > 0) {
		/* its own process group, which server_stop ends whole (also
		 * here: the child may not have run yet) */
		setpgid(s->pid, s->pid);
		close(ls);
		return;
	}
	setpgid(0, 0);
	signal(SIGCHLD, SIG_IGN);
	for (;;) {
		fd = accept(ls, NULL, NULL);
		if (fd < 0)
			continue;
		if (fork() == 0) {
			close(ls);
			serve(fd);
			_exit(0);
		}
		close(fd);
	}
}

static void
server_stop(struct server *s)
{
	kill(-s->pid, SIGKILL);
	waitpid(s->pid, NULL, 0);
}

static char *
url(const struct server *s, const char *path)
{
	return xasprintf("http://127.0.0.1:%d%s", s->port, path);
}

static int
setup(void **state)
{
	struct server *s = xcalloc(1, sizeof(*s));

	server_start(s);
	*state = s;
	return 0;
}

static int
teardown(void **state)
{
	server_stop(*state);
	free(*state);
	return 0;
}

/* What goes out: the method, the headers given, HTTP Basic from
 * userpass, the body; no Expect. */
static void
test_http__request_as_sent(void **state)
{
	const char *const hdrs[] = {"Content-Type: application/json",
	    "Origin: http://localhost"};
	char *u = url(*state, "/echo");
	struct http_request r = request(u);
	struct http_response resp = {0};
	const char *got;

	r.method = "POST";
	r.body = "[1,2]";
	r.body_len = 5;
	r.headers = hdrs;
	r.nheaders = 2;
	r.userpass = "user:" SECRET;
	assert_int_equal(http_send(&r, &resp), 0);
	assert_int_equal(resp.fail, HTTP_OK);
	assert_int_equal(resp.status, 200);
	assert_null(resp.error);
	got = sbuf_str(&resp.body);
	assert_true(strncmp(got, "POST /echo HTTP/1.1\r\n", 21) == 0);
	assert_non_null(strstr(got, "\r\nContent-Type: application/json\r\n"));
	assert_non_null(strstr(got, "\r\nOrigin: http://localhost\r\n"));
	/* base64("user:hunter2-secret") */
	assert_non_null(strstr(got,
	    "\r\nAuthorization: Basic dXNlcjpodW50ZXIyLXNlY3JldA==\r\n"));
	assert_null(strstr(got, "Expect:"));
	assert_non_null(strstr(got, "\r\nContent-Length: 5\r\n"));
	assert_string_equal(got + resp.body.len - 9, "\r\n\r\n[1,2]");
	http_response_release(&resp);
	/* no method and no body: GET */
	r = request(u);
	assert_int_equal(http_send(&r, &resp), 0);
	assert_true(strncmp(sbuf_str(&resp.body), "GET /echo ", 10) == 0);
	http_response_release(&resp);
	free(u);
}

/* Any status is an answer; a redirect is not followed. */
static void
test_http__statuses_and_no_redirects(void **state)
{
	char *u = url(*state, "/status/503");
	struct http_request r = request(u);
	struct http_response resp = {0};

	assert_int_equal(http_send(&r, &resp), 0);
	assert_int_equal(resp.status, 503);
	assert_string_equal(sbuf_str(&resp.body), "s");
	free(u);
	u = url(*state, "/redirect");
	r = request(u);
	assert_int_equal(http_send(&r, &resp), 0);
	assert_int_equal(resp.status, 302);
	assert_int_equal(resp.body.len, 0);
	http_response_release(&resp);
	free(u);
}

/* r sent to u fails with f and a text holding text_part, never the
 * password. */
static void
expect_url(char *u, struct http_request r, enum http_fail f,
    const char *text_part)
{
	struct http_response resp = {0};

	r.url = u;
	r.userpass = "user:" SECRET;
	assert_int_equal(http_send(&r, &resp), -1);
	assert_string_equal(http_fail_name(resp.fail), http_fail_name(f));
	assert_int_equal(resp.status, 0);
	assert_int_equal(resp.body.len, 0);
	assert_non_null(resp.error);
	if (strstr(resp.error, text_part) == NULL)
		fail_msg("'%s' not in '%s'", text_part, resp.error);
	assert_null(strstr(resp.error, SECRET));
	http_response_release(&resp);
	free(u);
}

static void
test_http__failures_classified(void **state)
{
	const struct server *s = *state;
	struct http_request r = request(NULL);
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t alen = sizeof(a);
	int fd;

	r.max_response = 100;
	expect_url(url(s, "/big"), r, HTTP_TOO_LARGE,
	    "response larger than 100 bytes");
	r.max_response = 1 << 20;
	expect_url(url(s, "/cut"), r, HTTP_BAD_REPLY,
	    "transfer closed with 97 bytes remaining to read");
	expect_url(url(s, "/drop"), r, HTTP_FAILED, "Empty reply from server");
	/* TLS spoken to a plain HTTP server; a CA file that is not there */
	expect_url(xasprintf("https://127.0.0.1:%d/echo", s->port), r, HTTP_TLS,
	    "");
	r.ca_file = "/nonexistent/ca.pem";
	expect_url(xasprintf("https://127.0.0.1:%d/echo", s->port), r, HTTP_TLS,
	    "");
	r.ca_file = NULL;
	r.timeout_ms = 300;
	expect_url(url(s, "/stall"), r, HTTP_TIMEOUT, "timed out after");
	r.timeout_ms = 10000;
	/* a port nobody listens on */
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &alen), 0);
	close(fd);
	expect_url(xasprintf("http://127.0.0.1:%d/echo", ntohs(a.sin_port)), r,
	    HTTP_REFUSED, "Failed to connect");
}

/* Several at once, each with its own answer. */
static void
test_http__send_all(void **state)
{
	const char *const paths[] = {"/status/201", "/stall", "/big", "/echo"};
	struct http_request reqs[5];
	struct http_response resps[5];
	char *urls[5];
	size_t i;

	memset(resps, 0, sizeof(resps));
	for (i = 0; i < 4; i++) {
		urls[i] = url(*state, paths[i]);
		reqs[i] = request(urls[i]);
		reqs[i].timeout_ms = 1500;
	}
	urls[4] = xstrdup("");
	reqs[4] = request(urls[4]);
	http_send_all(reqs, resps, 5);
	assert_int_equal(resps[0].status, 201);
	assert_int_equal(resps[1].fail, HTTP_TIMEOUT);
	assert_int_equal(resps[2].body.len, 10000);
	assert_int_equal(resps[3].status, 200);
	assert_int_equal(resps[4].fail, HTTP_INVALID);
	for (i = 0; i < 5; i++) {
		http_response_release(&resps[i]);
		free(urls[i]);
	}
}

/* ---- mutual TLS: `openssl s_server -Verify 1` ---------------------------
 * A CA, a server certificate for 127.0.0.1 and a client certificate signed
 * by it, and a client certificate of another CA, made with openssl(1) in a
 * temporary folder; the server demands a client certificate the CA
 * signed (-Verify, -verify_return_error) and answers `GET /` with a page
 * (-www). */

struct tls_server {
	char dir[64];
	pid_t pid;
	int port;
	char *key, *rogue_key; /* the client keys' PEM text */
};

static void
sh(const char *dir, const char *cmd)
{
	char *line =
	    xasprintf("cd '%s' && { %s; } >>openssl.log 2>&1", dir, cmd);

	if (system(line) != 0)
		fail_msg("failed: %s (see %s/openssl.log)", cmd, dir);
	free(line);
}

static char *
slurp(const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s", dir, name), *buf = xcalloc(1, 65536);
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	assert_true(fread(buf, 1, 65535, f) > 0);
	fclose(f);
	free(path);
	return buf;
}

#define EC_KEY "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"

/* NAME.key, NAME.pem with CN name signed by CA (extension file ext). */
static void
tls_leaf(const char *dir, const char *name, const char *ca, const char *ext)
{
	char *cmd = xasprintf(
	    "openssl req " EC_KEY " -keyout %s.key -out %s.csr -subj /CN=%s && "
	    "openssl x509 -req -in %s.csr -CA %s.pem -CAkey %s.key "
	    "-CAcreateserial -days 2 -extfile %s -out %s.pem",
	    name, name, name, name, ca, ca, ext, name);

	sh(dir, cmd);
	free(cmd);
}

static int
tls_setup(void **state)
{
	struct tls_server *s = xcalloc(1, sizeof(*s));
	int fds[2];
	char line[256];
	FILE *out;

	strcpy(s->dir, "/tmp/test-http-tls.XXXXXX");
	assert_non_null(mkdtemp(s->dir));
	sh(s->dir, "printf 'subjectAltName=IP:127.0.0.1\\n' >srv.ext && "
	           "printf 'extendedKeyUsage=clientAuth\\n' >cli.ext");
	sh(s->dir, "openssl req -x509 " EC_KEY " -keyout ca.key -out ca.pem "
	           "-days 2 -subj /CN=ca && "
	           "openssl req -x509 " EC_KEY " -keyout rogueca.key "
	           "-out rogueca.pem -days 2 -subj /CN=rogueca");
	tls_leaf(s->dir, "srv", "ca", "srv.ext");
	tls_leaf(s->dir, "cli", "ca", "cli.ext");
	tls_leaf(s->dir, "rogue", "rogueca", "cli.ext");
	s->key = slurp(s->dir, "cli.key");
	s->rogue_key = slurp(s->dir, "rogue.key");
	assert_int_equal(pipe(fds), 0);
	s->pid = fork();
	assert_true(s->pid >= 0);
	if (s->pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		if (chdir(s->dir) == 0 &&
		    freopen("s_server.log", "w", stderr) != NULL)
			execlp("openssl", "openssl", "s_server", "-accept",
			    "127.0.0.1:0", "-cert", "srv.pem", "-key",
			    "srv.key", "-CAfile", "ca.pem", "-Verify", "1",
			    "-verify_return_error", "-www", NULL);
		_exit(127);
	}
	close(fds[1]);
	out = fdopen(fds[0], "r");
	while (s->port == 0 && fgets(line, sizeof(line), out) != NULL)
		if (strncmp(line, "ACCEPT 127.0.0.1:", 17) == 0)
			s->port = atoi(line + 17);
	fclose(out);
	assert_true(s->port > 0);
	*state = s;
	return 0;
}

static int
tls_teardown(void **state)
{
	struct tls_server *s = *state;
	char *rm = xasprintf("rm -rf '%s'", s->dir);

	kill(s->pid, SIGKILL);
	waitpid(s->pid, NULL, 0);
	assert_int_equal(system(rm), 0);
	free(rm);
	free(s->key);
	free(s->rogue_key);
	free(s);
	return 0;
}

/* r sent to the server fails with f and a text holding text_part, never
 * the password nor a line of either key. */
static void
expect_tls(const struct tls_server *s, struct http_request r, enum http_fail f,
    const char *text_part)
{
	char *u = xasprintf("https://127.0.0.1:%d/", s->port);
	struct http_response resp = {0};

	r.url = u;
	r.userpass = "user:" SECRET;
	assert_int_equal(http_send(&r, &resp), -1);
	if (strstr(resp.error, text_part) == NULL)
		fail_msg("'%s' not in '%s'", text_part, resp.error);
	assert_string_equal(http_fail_name(resp.fail), http_fail_name(f));
	assert_null(strstr(resp.error, SECRET));
	assert_null(strstr(resp.error, "PRIVATE KEY"));
	assert_null(strstr(resp.error, strchr(s->key, '\n') + 1));
	assert_null(strstr(resp.error, strchr(s->rogue_key, '\n') + 1));
	http_response_release(&resp);
	free(u);
}

static void
test_http__client_certificate(void **state)
{
	const struct tls_server *s = *state;
	struct http_request r = request(NULL);
	struct http_response resp = {0};
	char *ca = xasprintf("%s/ca.pem", s->dir);
	char *cert = xasprintf("%s/cli.pem", s->dir);
	char *rogue = xasprintf("%s/rogue.pem", s->dir);
	char *want;

	r.ca_file = ca;
	want = xasprintf("https://127.0.0.1:%d requires a TLS client "
	                 "certificate and none was given (the server's TLS "
	                 "alert: ",
	    s->port);
	expect_tls(s, r, HTTP_TLS_CLIENT, want);
	free(want);
	r.cert_file = rogue;
	r.key_pem = s->rogue_key;
	want = xasprintf("https://127.0.0.1:%d refused the TLS client "
	                 "certificate '%s' (the server's TLS alert: ",
	    s->port, rogue);
	expect_tls(s, r, HTTP_TLS_CLIENT, want);
	free(want);
	/* a key that is not the certificate's */
	r.cert_file = cert;
	want = xasprintf("the client certificate '%s' or its key cannot be "
	                 "used: ",
	    cert);
	expect_tls(s, r, HTTP_TLS, want);
	free(want);
	/* the server's certificate is still verified */
	r.key_pem = s->key;
	r.ca_file = NULL;
	expect_tls(s, r, HTTP_TLS, "certificate");
	r.ca_file = ca;
	r.url = want = xasprintf("https://127.0.0.1:%d/", s->port);
	assert_int_equal(http_send(&r, &resp), 0);
	assert_int_equal(resp.status, 200);
	http_response_release(&resp);
	free(want);
	free(ca);
	free(cert);
	free(rogue);
}

/* A tick's calls: their times, and after how many it abandons (0: never). */
struct ticks {
	int64_t at[256];
	size_t n;
	size_t abandon_at;
};

static bool
on_tick(void *ctx)
{
	struct ticks *t = ctx;

	if (t->n < sizeof(t->at) / sizeof(t->at[0]))
		t->at[t->n] = clock_monotonic_ms();
	t->n++;
	return t->abandon_at > 0 && t->n >= t->abandon_at;
}

/* The longest time in ms from start through each call of t to end. */
static int64_t
longest_gap(const struct ticks *t, int64_t start, int64_t end)
{
	int64_t gap = 0, prev = start;
	size_t i;

	for (i = 0; i < t->n; i++) {
		if (t->at[i] - prev > gap)
			gap = t->at[i] - prev;
		prev = t->at[i];
	}
	return end - prev > gap ? end - prev : gap;
}

/* While requests are in flight the tick is called on time, once per
 * interval however many requests carry it; a request without it is not
 * waited on differently. */
static void
test_http__tick_called_while_waiting(void **state)
{
	struct ticks t = {0};
	struct http_tick tick = {on_tick, &t, 100};
	struct http_request reqs[3];
	struct http_response resps[3];
	char *stall = url(*state, "/stall"), *echo = url(*state, "/echo");
	int64_t start, end;
	size_t i;

	memset(resps, 0, sizeof(resps));
	for (i = 0; i < 3; i++) {
		reqs[i] = request(i < 2 ? stall : echo);
		reqs[i].timeout_ms = 1200;
	}
	reqs[0].tick = &tick;
	reqs[1].tick = &tick;
	start = clock_monotonic_ms();
	http_send_all(reqs, resps, 3);
	end = clock_monotonic_ms();
	assert_int_equal(resps[0].fail, HTTP_TIMEOUT);
	assert_int_equal(resps[1].fail, HTTP_TIMEOUT);
	assert_int_equal(resps[2].status, 200);
	/* 1.2 s at 100 ms: about 13 calls (one at the start, then one per
	 * interval), not one per request; never 200 ms without one (the
	 * machine is shared: slack) */
	if (t.n < 9 || t.n > 15)
		fail_msg("%zu calls in %lld ms", t.n, (long long)(end - start));
	if (longest_gap(&t, start, end) > 200)
		fail_msg("a gap of %lld ms between calls",
		    (long long)longest_gap(&t, start, end));
	/* the first as soon as the requests are out, before any wait */
	if (t.at[0] - start > 50)
		fail_msg("first call after %lld ms",
		    (long long)(t.at[0] - start));
	for (i = 0; i < 3; i++)
		http_response_release(&resps[i]);
	free(stall);
	free(echo);
}

/* A tick that asks for it abandons its requests at once, and only them. */
static void
test_http__tick_abandons_its_requests(void **state)
{
	struct ticks t = {.abandon_at = 3};
	struct http_tick tick = {on_tick, &t, 100};
	struct http_request reqs[3];
	struct http_response resps[3];
	char *stall = url(*state, "/stall"), *echo = url(*state, "/echo");
	int64_t start, took;
	size_t i;

	memset(resps, 0, sizeof(resps));
	reqs[0] = request(stall);
	reqs[0].tick = &tick;
	reqs[1] = request(echo);
	reqs[2] = request(stall);
	reqs[2].timeout_ms = 800;
	start = clock_monotonic_ms();
	http_send_all(reqs, resps, 3);
	took = clock_monotonic_ms() - start;
	assert_int_equal(t.n, 3);
	assert_int_equal(resps[0].fail, HTTP_FAILED);
	assert_string_equal(resps[0].error, "abandoned by the caller");
	assert_int_equal(resps[0].status, 0);
	assert_int_equal(resps[1].status, 200);
	assert_int_equal(resps[2].fail, HTTP_TIMEOUT);
	/* the abandoned request waited for the third call, not its 10 s
	 * timeout; the one without a tick its own 800 ms */
	if (took < 700 || took > 3000)
		fail_msg("took %lld ms", (long long)took);
	for (i = 0; i < 3; i++)
		http_response_release(&resps[i]);
	/* alone: http_send returns as soon as the tick asks */
	t.n = 0;
	reqs[0] = request(stall);
	reqs[0].tick = &tick;
	start = clock_monotonic_ms();
	assert_int_equal(http_send(&reqs[0], &resps[0]), -1);
	took = clock_monotonic_ms() - start;
	assert_int_equal(t.n, 3);
	assert_string_equal(resps[0].error, "abandoned by the caller");
	/* calls at once, after 100 ms, after 200 ms: abandoned */
	if (took < 180 || took > 1500)
		fail_msg("abandoned after %lld ms", (long long)took);
	http_response_release(&resps[0]);
	free(stall);
	free(echo);
}

/* A stream's reader: counts the bytes, checks /huge's pattern, slowly
 * (the transfer must wait for it: the ring holds 256 KiB). */
struct slow {
	struct http_stream *s;
	size_t n, wrong;
	int status;
	bool slow;
};

static void *
read_slowly(void *p)
{
	struct slow *r = p;
	char buf[65536];
	long n, i;

	while ((n = http_stream_read(r->s, buf, sizeof(buf))) > 0) {
		for (i = 0; i < n; i++)
			if (buf[i] != (char)('a' + (r->n + (size_t)i) % 26))
				r->wrong++;
		r->n += (size_t)n;
		if (r->status == 0)
			r->status = http_stream_status(r->s);
		if (r->slow)
			usleep(2000);
	}
	return NULL;
}

/* The body handed to a stream as it arrives, whole and in order, to a
 * reader slower than the server; not kept in the response; the cap
 * still holds; a request that is never answered ends its stream. */
static void
test_http__stream(void **state)
{
	const char *paths[] = {"/huge", "/huge", "/status/404", "/drop"};
	struct http_request reqs[4];
	struct http_response resps[4];
	struct slow rd[4];
	pthread_t th[4];
	char *urls[4];
	size_t i;

	memset(resps, 0, sizeof(resps));
	memset(rd, 0, sizeof(rd));
	for (i = 0; i < 4; i++) {
		urls[i] = url(*state, paths[i]);
		reqs[i] = request(urls[i]);
		rd[i].s = http_stream_new();
		rd[i].slow = i == 0;
		reqs[i].stream = rd[i].s;
		assert_int_equal(
		    pthread_create(&th[i], NULL, read_slowly, &rd[i]), 0);
	}
	reqs[0].max_response = 4000000;
	reqs[1].max_response = 1000000;
	http_send_all(reqs, resps, 4);
	for (i = 0; i < 4; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);
	assert_int_equal(resps[0].fail, HTTP_OK);
	assert_int_equal(resps[0].status, 200);
	assert_int_equal(rd[0].n, 3000000);
	assert_int_equal(rd[0].wrong, 0);
	assert_int_equal(rd[0].status, 200);
	assert_int_equal(resps[0].body.len, 0); /* streamed, not kept */
	assert_int_equal(resps[1].fail, HTTP_TOO_LARGE);
	assert_true(rd[1].n <= 1000000);
	assert_int_equal(resps[2].status, 404);
	assert_int_equal(rd[2].status, 404);
	assert_int_equal(rd[2].n, 1);
	assert_int_not_equal(resps[3].fail, HTTP_OK);
	assert_int_equal(rd[3].n, 0);
	for (i = 0; i < 4; i++) {
		http_stream_free(rd[i].s);
		http_response_release(&resps[i]);
		free(urls[i]);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_http__check_refuses),
	    cmocka_unit_test(test_http__cleartext),
	    cmocka_unit_test(test_http__invalid_is_not_sent),
	    cmocka_unit_test_setup_teardown(test_http__request_as_sent, setup,
	        teardown),
	    cmocka_unit_test_setup_teardown(
	        test_http__statuses_and_no_redirects, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_http__failures_classified,
	        setup, teardown),
	    cmocka_unit_test_setup_teardown(test_http__send_all, setup,
	        teardown),
	    cmocka_unit_test_setup_teardown(test_http__stream, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_http__client_certificate,
	        tls_setup, tls_teardown),
	    cmocka_unit_test_setup_teardown(
	        test_http__tick_called_while_waiting, setup, teardown),
	    cmocka_unit_test_setup_teardown(
	        test_http__tick_abandons_its_requests, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
