/* tests/unit/hook-fixture.h: a webhook receiver for the unit tests of
 * agent/webhook/ (test-deliver, test-webhook): a thread serving HTTP/1.1 on
 * 127.0.0.1 one connection at a time, recording every request (headers and
 * body) and answering each with the next status of its script (the last
 * one repeated; 0 means: read the request, answer nothing, close; -1: read
 * it and hang until hook_stop). Include after cmocka.h. */
#ifndef TESTS_UNIT_HOOK_FIXTURE_H
#define TESTS_UNIT_HOOK_FIXTURE_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../../lib/sbuf.h"
#include "../../lib/xalloc.h"

#define HOOK_MAX 64

struct hook_req {
	char *head; /* request line and headers */
	char *body;
};

struct hook_rx {
	int fd;
	unsigned short port;
	pthread_t thread;
	pthread_mutex_t mu;
	int script[HOOK_MAX];
	size_t nscript;
	struct hook_req got[HOOK_MAX];
	size_t ngot;
	atomic_int stop;
};

/* The value of header name in head (owned), or NULL. */
static inline char *
hook_header(const char *head, const char *name)
{
	const char *p = head;
	size_t n = strlen(name);

	while ((p = strstr(p, "\r\n")) != NULL) {
		p += 2;
		if (strncasecmp(p, name, n) == 0 && p[n] == ':') {
			p += n + 1;
			while (*p == ' ')
				p++;
			return xstrndup(p, strcspn(p, "\r\n"));
		}
	}
	return NULL;
}

static inline void
hook_serve_one(struct hook_rx *rx, int c)
{
	struct sbuf b = {0};
	char buf[4096], *len_s, *end;
	size_t want = 0, head_len;
	ssize_t r;
	int status;

	while ((end = strstr(sbuf_str(&b), "\r\n\r\n")) == NULL) {
		r = read(c, buf, sizeof(buf));
		if (r <= 0)
			goto done;
		sbuf_add(&b, buf, (size_t)r);
	}
	head_len = (size_t)(end - sbuf_str(&b)) + 4;
	len_s = hook_header(sbuf_str(&b), "Content-Length");
	if (len_s != NULL)
		want = (size_t)strtoul(len_s, NULL, 10);
	free(len_s);
	while (b.len < head_len + want) {
		r = read(c, buf, sizeof(buf));
		if (r <= 0)
			goto done;
		sbuf_add(&b, buf, (size_t)r);
	}
	pthread_mutex_lock(&rx->mu);
	status =
	    rx->script[rx->ngot < rx->nscript ? rx->ngot : rx->nscript - 1];
	if (rx->ngot < HOOK_MAX) {
		rx->got[rx->ngot].head = xstrndup(sbuf_str(&b), head_len);
		rx->got[rx->ngot].body =
		    xstrndup(sbuf_str(&b) + head_len, want);
		rx->ngot++;
	}
	pthread_mutex_unlock(&rx->mu);
	while (status < 0 && !rx->stop)
		usleep(10000);
	if (status > 0) {
		snprintf(buf, sizeof(buf),
		    "HTTP/1.1 %d X\r\nContent-Length: 2\r\nConnection: "
		    "close\r\n\r\nok",
		    status);
		if (write(c, buf, strlen(buf)) < 0)
			status = -1; /* the sender went away: nothing to do */
	}
done:
	sbuf_release(&b);
}

static inline void *
hook_main(void *arg)
{
	struct hook_rx *rx = arg;
	int c;

	while (!rx->stop) {
		c = accept(rx->fd, NULL, NULL);
		if (c < 0)
			continue;
		hook_serve_one(rx, c);
		close(c);
	}
	return NULL;
}

/* Start rx answering with the statuses of script (n of them). */
static inline void
hook_start(struct hook_rx *rx, const int *script, size_t n)
{
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	struct timeval tv = {0, 200000};

	memset(rx, 0, sizeof(*rx));
	memcpy(rx->script, script, n * sizeof(*script));
	rx->nscript = n;
	pthread_mutex_init(&rx->mu, NULL);
	rx->fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(rx->fd >= 0);
	/* accept() wakes up to look at stop */
	setsockopt(rx->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(rx->fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(rx->fd, 16), 0);
	assert_int_equal(getsockname(rx->fd, (struct sockaddr *)&sa, &sl), 0);
	rx->port = ntohs(sa.sin_port);
	assert_int_equal(pthread_create(&rx->thread, NULL, hook_main, rx), 0);
}

static inline size_t
hook_count(struct hook_rx *rx)
{
	size_t n;

	pthread_mutex_lock(&rx->mu);
	n = rx->ngot;
	pthread_mutex_unlock(&rx->mu);
	return n;
}

/* Wait up to ms for rx to have n requests; its count. */
static inline size_t
hook_wait(struct hook_rx *rx, size_t n, int ms)
{
	while (hook_count(rx) < n && ms > 0) {
		usleep(10000);
		ms -= 10;
	}
	return hook_count(rx);
}

static inline void
hook_stop(struct hook_rx *rx)
{
	size_t i;

	rx->stop = 1;
	pthread_join(rx->thread, NULL);
	close(rx->fd);
	for (i = 0; i < rx->ngot; i++) {
		free(rx->got[i].head);
		free(rx->got[i].body);
	}
	pthread_mutex_destroy(&rx->mu);
}

#endif
