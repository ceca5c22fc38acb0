/* tests/unit/jolokia-fixture.h: replies recorded from a real Artemis
 * 2.40.0 broker (tests/unit/data/jolokia/), for the tests of the Jolokia
 * client's files. */
#ifndef TESTS_UNIT_JOLOKIA_FIXTURE_H
#define TESTS_UNIT_JOLOKIA_FIXTURE_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../../lib/afile.h"
#include "../../lib/http.h"
#include "../../lib/xalloc.h"
#include "../../reconcile/live/live-int.h"

#define DATA "tests/unit/data/jolokia/"

static inline char *
load(const char *name, size_t *len)
{
	struct err err = {0};
	char *path = xasprintf(DATA "%s", name), *data = NULL;

	if (afile_read(&data, len, path, 1 << 20, &err) < 0)
		fail_msg("%s", err.msg);
	free(path);
	return data;
}

/* A Jolokia URL on 127.0.0.1 where connections are taken (the kernel's
 * backlog) and nothing ever answers: a stalled broker. *fd is the socket
 * to close. Owned. */
static inline char *
silent_url(int *fd)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t alen = sizeof(a);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	*fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(*fd >= 0);
	assert_int_equal(bind(*fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(*fd, 8), 0);
	assert_int_equal(getsockname(*fd, (struct sockaddr *)&a, &alen), 0);
	return xasprintf("http://127.0.0.1:%d/console/jolokia",
	    ntohs(a.sin_port));
}

/* A tick that counts its calls and abandons at the second. */
static inline bool
tick_abandon_second(void *ctx)
{
	unsigned *calls = ctx;

	return ++*calls >= 2;
}

#endif
