/* tests/unit/web-fixture.h: what the web server's tests share (test-server,
 * test-api, test-page): a temporary folder with a credentials folder of
 * token files, and one HTTP request over a plain socket (lib/http refuses
 * an Authorization header by design: its credentials go in userpass). */
#ifndef TESTS_UNIT_WEB_FIXTURE_H
#define TESTS_UNIT_WEB_FIXTURE_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../lib/afile.h"
#include "../../lib/sbuf.h"
#include "../../lib/xalloc.h"

#define WEB_FIXTURE_VIEWER   "viewer-token-0123456789abcdef"
#define WEB_FIXTURE_APPROVER "approver-token-0123456789abcdef"

/* TMP/creds/name with text, mode mode. */
static inline void
web_fixture_put(const char *tmp, const char *name, const char *text,
    mode_t mode)
{
	char *p = xasprintf("%s/creds/%s", tmp, name);
	struct err err = {0};

	assert_int_equal(afile_write(p, text, strlen(text), mode, &err), 0);
	assert_int_equal(chmod(p, mode), 0);
	free(p);
}

/* A fresh /tmp/test-NAME-XXXXXX in tmp with creds/ (0700) holding
 * grafana.token (viewer) and alice.token (approver) unless tokens is
 * false. 0, or -1 (for a cmocka setup). */
static inline int
web_fixture_setup(char tmp[64], const char *name, bool tokens)
{
	char *d;
	int r;

	snprintf(tmp, 64, "/tmp/test-%s-XXXXXX", name);
	if (mkdtemp(tmp) == NULL)
		return -1;
	d = xasprintf("%s/creds", tmp);
	r = mkdir(d, 0700);
	free(d);
	if (r < 0)
		return -1;
	if (tokens) {
		web_fixture_put(tmp, "grafana.token", WEB_FIXTURE_VIEWER "\n",
		    0600);
		web_fixture_put(tmp, "alice.token", WEB_FIXTURE_APPROVER "\n",
		    0600);
	}
	return 0;
}

static inline int
web_fixture_teardown(const char *tmp)
{
	char *cmd = xasprintf("rm -rf %s", tmp);
	int r = system(cmd);

	free(cmd);
	return r == 0 ? 0 : -1;
}

struct web_got {
	int status;
	char *head; /* the status line and headers, each ending "\r\n" */
	char *body;
};

static inline void
web_got_release(struct web_got *g)
{
	free(g->head);
	free(g->body);
	memset(g, 0, sizeof(*g));
}

/* One request to 127.0.0.1:port (Host: 127.0.0.1, Connection: close);
 * hdrs: header lines each ending "\r\n", or NULL; body with its
 * Content-Length, or NULL. The whole answer is read. */
static inline struct web_got
web_fixture_http(unsigned port, const char *method, const char *path,
    const char *hdrs, const char *body)
{
	struct sockaddr_in sa;
	struct sbuf q = {0}, a = {0};
	char buf[4096];
	const char *p, *end;
	ssize_t n;
	size_t off = 0;
	struct web_got g = {0, NULL, NULL};
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	sbuf_addf(&q,
	    "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n%s",
	    method, path, hdrs != NULL ? hdrs : "");
	if (body != NULL)
		sbuf_addf(&q, "Content-Length: %zu\r\n", strlen(body));
	sbuf_adds(&q, "\r\n");
	if (body != NULL)
		sbuf_adds(&q, body);
	while (off < q.len) {
		n = send(fd, q.buf + off, q.len - off, MSG_NOSIGNAL);
		if (n <= 0)
			break; /* the server answered early and closed */
		off += (size_t)n;
	}
	while ((n = recv(fd, buf, sizeof(buf), 0)) > 0)
		sbuf_add(&a, buf, (size_t)n);
	close(fd);
	p = sbuf_str(&a) != NULL ? sbuf_str(&a) : "";
	if (strncmp(p, "HTTP/1.1 ", 9) == 0)
		g.status = atoi(p + 9);
	end = strstr(p, "\r\n\r\n");
	g.head = end != NULL ? xstrndup(p, (size_t)(end - p + 2)) : xstrdup(p);
	g.body = xstrdup(end != NULL ? end + 4 : "");
	sbuf_release(&q);
	sbuf_release(&a);
	return g;
}

#endif
