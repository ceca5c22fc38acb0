/* tests/unit/test-tls.c: agent/tls.c, the one TLS option set of the
 * commands that read brokers: the options parsed into struct agent_tls
 * (the key read, a certificate checked), their pairing, and what reaches
 * struct live_http_opts; the daemon's tls.* keys read the same way. The
 * key's refusals are agent/creds.c's
 * (test-creds.c); the options against a real broker demanding a client
 * certificate are 14-jolokia-mtls.sh's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../agent/tls.h"
#include "../../lib/afile.h"
#include "../../lib/xalloc.h"

#define KEY_PEM                                                                \
	"-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49\n"      \
	"-----END PRIVATE KEY-----\n"
#define CERT_PEM                                                               \
	"-----BEGIN CERTIFICATE-----\nMIIBfzCCASWgAwIBAgIUJ\n"                 \
	"-----END CERTIFICATE-----\n"

/* The options of a made-up command: --x, then the TLS set. */
enum { T_X, T_TLS };

struct fixture {
	char dir[32];
	char *key, *cert;
};

static char *
put(const struct fixture *f, const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", f->dir, name);
	struct err err = {0};

	assert_int_equal(afile_write(path, text, strlen(text), 0600, &err), 0);
	return path;
}

static int
setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof(*f));

	strcpy(f->dir, "/tmp/test-tls-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	f->key = put(f, "agent.key", KEY_PEM);
	f->cert = put(f, "agent.pem", CERT_PEM);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;
	char *cmd = xasprintf("rm -rf '%s'", f->dir);

	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(f->key);
	free(f->cert);
	free(f);
	return 0;
}

static struct agent_cmd_args
args_of(const char *ca, const char *cert, const char *key)
{
	struct agent_cmd_args a;

	memset(&a, 0, sizeof(a));
	a.opt[T_TLS] = ca;
	a.opt[T_TLS + 1] = cert;
	a.opt[T_TLS + 2] = key;
	return a;
}

static void
test_tls__none_and_ca_only(void **state)
{
	struct agent_cmd_args a = args_of(NULL, NULL, NULL);
	struct live_http_opts http;
	struct agent_tls t;

	(void)state;
	assert_false(agent_tls_given(&a, T_TLS));
	assert_int_equal(agent_tls_from_args(&t, "demo", &a, T_TLS),
	    AGENT_CMD_CONTINUE);
	assert_null(t.ca_file);
	assert_null(t.cert_file);
	assert_null(t.key);
	agent_tls_release(&t);
	a = args_of("/etc/ca.pem", NULL, NULL);
	assert_true(agent_tls_given(&a, T_TLS));
	assert_int_equal(agent_tls_from_args(&t, "demo", &a, T_TLS),
	    AGENT_CMD_CONTINUE);
	memset(&http, 0, sizeof(http));
	agent_tls_http(&t, &http);
	assert_string_equal(http.ca_file, "/etc/ca.pem");
	assert_null(http.cert_file);
	assert_null(http.key_pem);
	agent_tls_release(&t);
	agent_tls_http(NULL, &http);
	assert_null(http.ca_file);
}

static void
test_tls__certificate_and_key(void **state)
{
	struct fixture *f = *state;
	struct agent_cmd_args a = args_of(NULL, f->cert, f->key);
	struct live_http_opts http;
	struct agent_tls t;

	assert_true(agent_tls_given(&a, T_TLS));
	assert_int_equal(agent_tls_from_args(&t, "demo", &a, T_TLS),
	    AGENT_CMD_CONTINUE);
	assert_string_equal(t.cert_file, f->cert);
	assert_string_equal(t.key, KEY_PEM);
	memset(&http, 0, sizeof(http));
	agent_tls_http(&t, &http);
	assert_string_equal(http.cert_file, f->cert);
	assert_string_equal(http.key_pem, KEY_PEM);
	agent_tls_release(&t);
	assert_null(t.key);
}

/* Each one alone is a usage error; a certificate file that holds a key,
 * a missing one, or a refused key fail. */
static void
test_tls__refused(void **state)
{
	struct fixture *f = *state;
	struct agent_cmd_args a;
	struct agent_tls t;
	char *open_key, *fifo;

	a = args_of(NULL, f->cert, NULL);
	assert_int_equal(agent_tls_from_args(&t, "demo", &a, T_TLS),
	    AGENT_EXIT_USAGE);
	agent_tls_release(&t);
	a = args_of(NULL, NULL, f->key);
	assert_int_equal(agent_tls_from_args(&t, "demo", &a, T_TLS),
	    AGENT_EXIT_USAGE);
	agent_tls_release(&t);
	a = args_of(NULL, f->key, f->key);
	assert_int_equal(agent_tls_from_args(&t, "demo", &a, T_TLS),
	    AGENT_EXIT_FAIL);
	assert_null(t.key);
	agent_tls_release(&t);
	a = args_of(NULL, "/nonexistent/agent.pem", f->key);
	assert_int_equal(agent_tls_from_args(&t, "demo", &a, T_TLS),
	    AGENT_EXIT_FAIL);
	agent_tls_release(&t);
	open_key = put(f, "open.key", KEY_PEM);
	assert_int_equal(chmod(open_key, 0644), 0);
	a = args_of(NULL, f->cert, open_key);
	assert_int_equal(agent_tls_from_args(&t, "demo", &a, T_TLS),
	    AGENT_EXIT_FAIL);
	assert_null(t.key);
	assert_null(t.cert_file);
	agent_tls_release(&t);
	free(open_key);
	/* a CA file that is no regular file is refused before curl could
	 * block on it (a FIFO) */
	fifo = xasprintf("%s/ca.fifo", f->dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	a = args_of(fifo, NULL, NULL);
	assert_int_equal(agent_tls_from_args(&t, "demo", &a, T_TLS),
	    AGENT_EXIT_FAIL);
	agent_tls_release(&t);
	a = args_of(f->dir, NULL, NULL);
	assert_int_equal(agent_tls_from_args(&t, "demo", &a, T_TLS),
	    AGENT_EXIT_FAIL);
	agent_tls_release(&t);
	a = args_of(f->cert, NULL, NULL);
	assert_int_equal(agent_tls_from_args(&t, "demo", &a, T_TLS),
	    AGENT_CMD_CONTINUE);
	agent_tls_release(&t);
	free(fifo);
}

/* The daemon's keys: the certificate's path, the key in the credentials
 * folder (here the fixture's folder). */
static void
test_tls__from_conf(void **state)
{
	struct fixture *f = *state;
	char ca[] = "/etc/ca.pem", key[] = "agent.key", nokey[] = "nosuch.key";
	struct agent_conf conf;
	struct err err = {0};
	struct agent_tls t;
	char *want;

	memset(&conf, 0, sizeof(conf));
	conf.tls_ca_file = ca;
	assert_int_equal(agent_tls_from_conf(&t, &conf, &err), 0);
	assert_string_equal(t.ca_file, "/etc/ca.pem");
	assert_null(t.cert_file);
	assert_null(t.key);
	agent_tls_release(&t);
	conf.credentials = f->dir;
	conf.tls_client_cert = f->cert;
	conf.tls_client_key_file = key;
	assert_int_equal(agent_tls_from_conf(&t, &conf, &err), 0);
	assert_string_equal(t.cert_file, f->cert);
	assert_string_equal(t.key, KEY_PEM);
	agent_tls_release(&t);
	conf.tls_client_key_file = nokey;
	assert_int_equal(agent_tls_from_conf(&t, &conf, &err), -1);
	want = xasprintf("tls.client-key-file: key file '%s/nosuch.key': "
	                 "cannot open: No such file or directory",
	    f->dir);
	assert_string_equal(err.msg, want);
	assert_null(t.key);
	assert_null(t.cert_file);
	agent_tls_release(&t);
	err_release(&err);
	free(want);
	conf.tls_client_key_file = key;
	conf.tls_client_cert = f->key;
	assert_int_equal(agent_tls_from_conf(&t, &conf, &err), -1);
	assert_non_null(strstr(err.msg, "tls.client-cert-file: '"));
	assert_non_null(strstr(err.msg, "' holds no PEM certificate"));
	agent_tls_release(&t);
	err_release(&err);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tls__none_and_ca_only),
	    cmocka_unit_test_setup_teardown(test_tls__certificate_and_key,
	        setup, teardown),
	    cmocka_unit_test_setup_teardown(test_tls__refused, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_tls__from_conf, setup,
	        teardown),
	};

	return cmocka_run_group_tests_name("tls", tests, NULL, NULL);
}
