/* tests/unit/test-creds.c: agent/creds.c: agent_creds_read, the reader of a
 * node's credentials file. Its refusal of a name that is not a file name is a
 * second line behind validation (declarations/fields.c refuses the same
 * names first), so no command reaches it with a declaration that
 * validates: 12-snapshot-cli.sh checks validation's refusal, this test
 * the reader's own. And agent_creds_read_key, the reader of the private
 * key of mutual TLS, under the same rules (14-jolokia-mtls.sh runs it from
 * the command line and the daemon). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../agent/creds.h"
#include "../../lib/afile.h"
#include "../../lib/xalloc.h"

/* A folder with creds/node1 and, next to creds/, a file outside, both
 * readable credentials files (mode 0600). */
struct fixture {
	char top[32];
	char *creds;
};

static int
setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof(*f));
	struct err err = {0};
	char *path;

	snprintf(f->top, sizeof(f->top), "/tmp/test-creds-XXXXXX");
	assert_non_null(mkdtemp(f->top));
	f->creds = xasprintf("%s/creds", f->top);
	assert_int_equal(mkdir(f->creds, 0700), 0);
	path = xasprintf("%s/node1", f->creds);
	assert_int_equal(afile_write(path, "gitops:inside\n", 14, 0600, &err),
	    0);
	free(path);
	path = xasprintf("%s/outside", f->top);
	assert_int_equal(afile_write(path, "gitops:outside\n", 15, 0600, &err),
	    0);
	free(path);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;
	char *cmd = xasprintf("rm -rf '%s'", f->top);

	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(f->creds);
	free(f);
	return 0;
}

static void
test_creds__reads_a_file_of_the_folder(void **state)
{
	struct fixture *f = *state;
	struct err err = {0};
	char *secret = NULL;

	assert_int_equal(
	    agent_creds_read(&secret, f->creds, "node1", "node1", &err), 0);
	assert_string_equal(secret, "gitops:inside");
	assert_null(err.msg);
	agent_creds_free(secret);
}

static void
test_creds__name_not_a_file_name_refused(void **state)
{
	static const char *const names[] = {"../outside", "..", ".", "",
	    "sub/node1"};
	struct fixture *f = *state;
	char *secret, *want;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct err err = {0};

		secret = NULL;
		assert_int_equal(agent_creds_read(&secret, f->creds, "node1",
		                     names[i], &err),
		    -1);
		assert_null(secret);
		want = xasprintf(
		    "node 'node1': credentials name '%s' is not a file name",
		    names[i]);
		assert_string_equal(err.msg, want);
		free(want);
		err_release(&err);
	}
}

#define KEY_BODY "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg"
#define KEY_PEM                                                                \
	"-----BEGIN PRIVATE KEY-----\n" KEY_BODY "\n"                          \
	"-----END PRIVATE KEY-----\n"

/* Write text as f->top/name with mode; returns the path (owned). */
static char *
put_file(const struct fixture *f, const char *name, const char *text,
    mode_t mode)
{
	char *path = xasprintf("%s/%s", f->top, name);
	struct err err = {0};

	assert_int_equal(afile_write(path, text, strlen(text), mode, &err), 0);
	assert_int_equal(chmod(path, mode), 0);
	return path;
}

static void
test_creds__key_read(void **state)
{
	struct fixture *f = *state;
	char *path = put_file(f, "agent.key", KEY_PEM, 0600), *key = NULL;
	struct err err = {0};

	assert_int_equal(agent_creds_read_key(&key, path, "--client-key", &err),
	    0);
	assert_string_equal(key, KEY_PEM);
	assert_null(err.msg);
	agent_creds_free(key);
	free(path);
	/* group-readable is allowed, as for credentials files */
	path = put_file(f, "group.key", KEY_PEM, 0640);
	assert_int_equal(agent_creds_read_key(&key, path, "--client-key", &err),
	    0);
	agent_creds_free(key);
	free(path);
}

/* Each refused file: its name, mode, text and the reason in the error. */
static void
test_creds__key_refused(void **state)
{
	static const struct {
		const char *name, *text;
		mode_t mode;
		const char *why;
	} cases[] = {
	    {"others.key", KEY_PEM, 0604,
	        "is readable by others (chmod 600 it)"},
	    {"empty.key", "", 0600, "is empty"},
	    {"cert.pem",
	        "-----BEGIN CERTIFICATE-----\n" KEY_BODY
	        "\n-----END CERTIFICATE-----\n",
	        0600,
	        "holds no PEM private key ('-----BEGIN ... PRIVATE "
	        "KEY-----')"},
	    {"enc.key",
	        "-----BEGIN ENCRYPTED PRIVATE KEY-----\n" KEY_BODY
	        "\n-----END ENCRYPTED PRIVATE KEY-----\n",
	        0600,
	        "holds an encrypted key: the agent reads unencrypted PEM keys "
	        "only (openssl pkey -in KEY -out PLAIN)"},
	};
	struct fixture *f = *state;
	char *path, *key, *want, *link, *big;
	struct err err = {0};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		path = put_file(f, cases[i].name, cases[i].text, cases[i].mode);
		key = NULL;
		assert_int_equal(agent_creds_read_key(&key, path,
		                     "tls.client-key-file", &err),
		    -1);
		assert_null(key);
		want = xasprintf("tls.client-key-file: key file '%s' %s", path,
		    cases[i].why);
		assert_string_equal(err.msg, want);
		assert_null(strstr(err.msg, KEY_BODY));
		err_release(&err);
		free(want);
		free(path);
	}
	/* a symbolic link, a folder, a missing file, a large one */
	path = put_file(f, "real.key", KEY_PEM, 0600);
	link = xasprintf("%s/link.key", f->top);
	assert_int_equal(symlink(path, link), 0);
	assert_int_equal(agent_creds_read_key(&key, link, "--client-key", &err),
	    -1);
	want = xasprintf("--client-key: cannot read key file '%s': ", link);
	assert_true(strncmp(err.msg, want, strlen(want)) == 0);
	err_release(&err);
	free(want);
	assert_int_equal(
	    agent_creds_read_key(&key, f->creds, "--client-key", &err), -1);
	want = xasprintf("--client-key: key file '%s' is not a regular file",
	    f->creds);
	assert_string_equal(err.msg, want);
	err_release(&err);
	free(want);
	free(link);
	free(path);
	big = xcalloc(1, 70000);
	memset(big, 'k', 69999);
	path = put_file(f, "big.key", big, 0600);
	assert_int_equal(agent_creds_read_key(&key, path, "--client-key", &err),
	    -1);
	assert_non_null(strstr(err.msg, "' is too large"));
	err_release(&err);
	free(path);
	free(big);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(
	        test_creds__reads_a_file_of_the_folder, setup, teardown),
	    cmocka_unit_test_setup_teardown(
	        test_creds__name_not_a_file_name_refused, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_creds__key_read, setup,
	        teardown),
	    cmocka_unit_test_setup_teardown(test_creds__key_refused, setup,
	        teardown),
	};

	return cmocka_run_group_tests_name("creds", tests, NULL, NULL);
}
