/* tests/unit/test-etcd.c: the etcd client (lib/etcd.c) without a server:
 * the range end of a prefix, and what etcd_open refuses before anything is
 * sent (a client against real members: tests/integration/83-etcd-client.sh).
 * A password never appears in an error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/etcd.h"

#define SECRET "hunter2-etcd-secret"

static void
prefix_end_is(const char *prefix, const char *want)
{
	char *end = etcd_prefix_end(prefix);

	assert_non_null(end);
	assert_string_equal(end, want);
	free(end);
}

static void
test_etcd__prefix_end(void **state)
{
	(void)state;
	/* the last byte goes up by one */
	prefix_end_is("a", "b");
	prefix_end_is("/agent/", "/agent0");
	prefix_end_is("ab\xfe", "ab\xff");
	/* trailing 0xff bytes are dropped, the byte before goes up */
	prefix_end_is("a\xff", "b");
	prefix_end_is("a\xff\xff", "b");
	prefix_end_is("a\x7f\xff", "a\x80");
	/* nothing to go up (every byte 0xff, or no byte): "" stands for
	 * etcd's "\0", every key from the key on */
	prefix_end_is("\xff", "");
	prefix_end_is("\xff\xff\xff", "");
	prefix_end_is("", "");
}

/* etcd_open(o) fails, its error holds want, *out is untouched. */
static void
open_refused(const struct etcd_opts *o, const char *want)
{
	struct etcd *e = (struct etcd *)&e; /* not NULL: must stay as is */
	struct etcd *const before = e;
	struct err err = {0};

	assert_int_equal(etcd_open(&e, o, &err), -1);
	assert_ptr_equal(e, before);
	assert_non_null(err.msg);
	if (strstr(err.msg, want) == NULL)
		fail_msg("error '%s' lacks '%s'", err.msg, want);
	assert_null(strstr(err.msg, SECRET));
	err_release(&err);
}

static void
test_etcd__open_refusals(void **state)
{
	const char *one[] = {"http://127.0.0.1:2379"};
	const char *user_only[] = {"https://agent@127.0.0.1:2379"};
	const char *scheme[] = {"127.0.0.1:2379"};
	const char *unix_sock[] = {"unix:///run/etcd.sock"};
	struct etcd_opts o = {.endpoints = one,
	    .nendpoints = 1,
	    .timeout_ms = 1000,
	    .user = "agent",
	    .password = SECRET};

	(void)state;
	o.nendpoints = 0;
	open_refused(&o, "no endpoint");
	o.nendpoints = 1;
	o.timeout_ms = 0;
	open_refused(&o, "no timeout");
	o.timeout_ms = 1000;
	/* a user in a URL (its password: below) */
	o.endpoints = user_only;
	open_refused(&o, "credentials go in the credentials folder");
	o.endpoints = scheme;
	open_refused(&o, "not an http:// or https:// URL");
	o.endpoints = unix_sock;
	open_refused(&o, "not an http:// or https:// URL");
	o.endpoints = one;
	o.cert_file = "client.pem";
	open_refused(&o, "a client certificate needs its key");
	o.cert_file = NULL;
	o.key_pem = "-----BEGIN PRIVATE KEY-----\n" SECRET "\n";
	open_refused(&o, "a client certificate needs its key");
}

/* A URL with user:password@ is refused; the message must not carry the
 * password it was given in the URL. */
static void
test_etcd__open_url_password_not_echoed(void **state)
{
	const char *creds[] = {"http://127.0.0.1:2379",
	    "http://agent:" SECRET "@127.0.0.1:2380"};
	struct etcd_opts o = {.endpoints = creds,
	    .nendpoints = 2,
	    .timeout_ms = 1000};

	(void)state;
	open_refused(&o, "credentials go in the credentials folder");
	/* which endpoint, by its place and its host */
	open_refused(&o, "endpoint 2 ('http://...@127.0.0.1:2380')");
}

static void
test_etcd__open_copies(void **state)
{
	char ep[] = "http://127.0.0.1:2379/";
	const char *eps[] = {ep, "https://etcd.example:2379"};
	char pw[] = SECRET;
	struct etcd_opts o = {.endpoints = eps,
	    .nendpoints = 2,
	    .timeout_ms = 1000,
	    .user = "agent",
	    .password = pw};
	struct etcd *e = NULL;
	struct err err = {0};

	(void)state;
	assert_int_equal(etcd_open(&e, &o, &err), 0);
	assert_null(err.msg);
	/* the strings were copied (the trailing '/' dropped) */
	memset(ep, 'x', sizeof(ep) - 1);
	memset(pw, 'x', sizeof(pw) - 1);
	assert_string_equal(etcd_endpoint(e), "http://127.0.0.1:2379");
	assert_int_equal(etcd_last_fail(e), ETCD_NONE);
	etcd_close(e);
	etcd_close(NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_etcd__prefix_end),
	    cmocka_unit_test(test_etcd__open_refusals),
	    cmocka_unit_test(test_etcd__open_url_password_not_echoed),
	    cmocka_unit_test(test_etcd__open_copies),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
