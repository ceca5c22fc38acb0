/* tests/unit/test-creds.c: agent/creds.c: agent_creds_read, the reader of a
 * node's credentials file. Its refusal of a name that is not a file name is a
 * second line behind validation (declarations/fields.c refuses the same
 * names first), so no command reaches it with a declaration that
 * validates: 12-snapshot-cli.sh checks validation's refusal, this test
 * the reader's own. Every secret file must be as private as sshd wants a
 * private key: modes, owners, the folder, links, FIFOs. And
 * agent_creds_read_key, the reader of the private key of mutual TLS, under
 * the same rules (14-jolokia-mtls.sh runs it from the command line and the
 * daemon). */
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

/* agent_creds_read's error for node1's file after cmd ran in f->top. */
static char *
read_error(const struct fixture *f, const char *cmd)
{
	struct err err = {0};
	char *secret = NULL, *full, *msg;

	full = xasprintf("cd '%s' && %s", f->top, cmd);
	assert_int_equal(system(full), 0);
	free(full);
	if (agent_creds_read(&secret, f->creds, "node1", "node1", &err) == 0) {
		agent_creds_free(secret);
		return xstrdup("");
	}
	assert_null(secret);
	msg = xstrdup(err.msg);
	err_release(&err);
	return msg;
}

#define assert_read_error(f, cmd, fmt, ...)                                    \
	do {                                                                   \
		char *got_ = read_error(f, cmd);                               \
		char *want_ = xasprintf(fmt, __VA_ARGS__);                     \
		assert_string_equal(got_, want_);                              \
		free(got_);                                                    \
		free(want_);                                                   \
	} while (0)

/* As sshd wants a private key: the file for its owner only, owned by the
 * agent's user or root, in a folder only its owner can write. */
static void
test_creds__file_and_folder_must_be_private(void **state)
{
	struct fixture *f = *state;
	char *p = xasprintf("%s/node1", f->creds);

	/* systemd LoadCredential=: 0400, owned by the service's user */
	assert_read_error(f, "chmod 400 creds/node1", "%s", "");
	assert_read_error(f, "chmod 600 creds/node1", "%s", "");
	assert_read_error(f, "chmod 640 creds/node1",
	    "node 'node1': credentials file '%s': mode 0640: its group can "
	    "read it; a secret must be readable by its owner only (chmod 600 "
	    "'%s')",
	    p, p);
	assert_read_error(f, "chmod 620 creds/node1",
	    "node 'node1': credentials file '%s': mode 0620: its group can "
	    "write it; a secret must be readable by its owner only (chmod 600 "
	    "'%s')",
	    p, p);
	assert_read_error(f, "chmod 604 creds/node1",
	    "node 'node1': credentials file '%s': mode 0604: others can read "
	    "it; a secret must be readable by its owner only (chmod 600 '%s')",
	    p, p);
	assert_read_error(f, "chmod 677 creds/node1",
	    "node 'node1': credentials file '%s': mode 0677: its group can "
	    "read and write and execute it, others can read and write and "
	    "execute it; a secret must be readable by its owner only (chmod "
	    "600 '%s')",
	    p, p);
	/* another user's file (the tests run as root, so chown works) */
	assert_read_error(f, "chmod 600 creds/node1 && chown 65534 creds/node1",
	    "node 'node1': credentials file '%s': owned by uid 65534, not by "
	    "the agent's user (uid %lu) or root",
	    p, (unsigned long)geteuid());
	assert_read_error(f, "chown 0 creds/node1", "%s", "");
	/* the folder: writable by others (sticky or not) or its group, or
	 * another user's */
	assert_read_error(f, "chmod 777 creds",
	    "node 'node1': credentials file '%s': its folder '%s' has mode "
	    "0777: its group can write it, others can write it, and so "
	    "replace the file; the folder must be writable by its owner only "
	    "(chmod 700 '%s')",
	    p, f->creds, f->creds);
	assert_read_error(f, "chmod 1777 creds",
	    "node 'node1': credentials file '%s': its folder '%s' has mode "
	    "1777: its group can write it, others can write it, and so "
	    "replace the file; the folder must be writable by its owner only "
	    "(chmod 700 '%s')",
	    p, f->creds, f->creds);
	assert_read_error(f, "chmod 770 creds",
	    "node 'node1': credentials file '%s': its folder '%s' has mode "
	    "0770: its group can write it, and so replace the file; the folder "
	    "must be writable by its owner only (chmod 700 '%s')",
	    p, f->creds, f->creds);
	assert_read_error(f, "chmod 755 creds", "%s", "");
	assert_read_error(f, "chmod 700 creds && chown 65534 creds",
	    "node 'node1': credentials file '%s': its folder '%s' is owned by "
	    "uid 65534, not by the agent's user (uid %lu) or root",
	    p, f->creds, (unsigned long)geteuid());
	assert_read_error(f, "chown 0 creds", "%s", "");
	/* a link, even to a private file; a FIFO */
	assert_read_error(f,
	    "mv creds/node1 creds/real && ln -s real creds/node1",
	    "node 'node1': credentials file '%s': a symbolic link, not a "
	    "regular file",
	    p);
	assert_read_error(f, "rm creds/node1 && mkfifo -m 600 creds/node1",
	    "node 'node1': credentials file '%s': a FIFO, not a regular file",
	    p);
	free(p);
}

/* The git token and SSH key files pass the same rule. */
static void
test_creds__secret_read_and_check(void **state)
{
	struct fixture *f = *state;
	char *p = xasprintf("%s/token", f->creds), *cmd, *want, *text = NULL;
	struct err err = {0};

	cmd = xasprintf("printf 'tok123\\nsecond\\n' > '%s' && chmod 600 '%s'",
	    p, p);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	assert_int_equal(agent_creds_read_secret(&text, f->creds, "token",
	                     "repository.token-file", &err),
	    0);
	assert_string_equal(text, "tok123");
	agent_creds_free(text);
	assert_int_equal(agent_creds_check_secret(f->creds, "token",
	                     "repository.ssh-key-file", &err),
	    0);
	assert_int_equal(chmod(p, 0644), 0);
	text = NULL;
	assert_int_equal(agent_creds_read_secret(&text, f->creds, "token",
	                     "repository.token-file", &err),
	    -1);
	assert_null(text);
	want = xasprintf("repository.token-file '%s': mode 0644: its group "
	                 "can read it, others can read it; a secret must be "
	                 "readable by its owner only (chmod 600 '%s')",
	    p, p);
	assert_string_equal(err.msg, want);
	free(want);
	err_release(&err);
	assert_int_equal(agent_creds_check_secret(f->creds, "token",
	                     "repository.ssh-key-file", &err),
	    -1);
	want = xasprintf("repository.ssh-key-file '%s': mode 0644: its group "
	                 "can read it, others can read it; a secret must be "
	                 "readable by its owner only (chmod 600 '%s')",
	    p, p);
	assert_string_equal(err.msg, want);
	free(want);
	err_release(&err);
	free(p);
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
	    {"others.key", KEY_PEM, 0604, "mode 0604: others can read it"},
	    {"group.key", KEY_PEM, 0640, "mode 0640: its group can read it"},
	    {"empty.key", "", 0600, " is empty"},
	    {"cert.pem",
	        "-----BEGIN CERTIFICATE-----\n" KEY_BODY
	        "\n-----END CERTIFICATE-----\n",
	        0600,
	        " holds no PEM private key ('-----BEGIN ... PRIVATE "
	        "KEY-----')"},
	    {"enc.key",
	        "-----BEGIN ENCRYPTED PRIVATE KEY-----\n" KEY_BODY
	        "\n-----END ENCRYPTED PRIVATE KEY-----\n",
	        0600,
	        " holds an encrypted key: the agent reads unencrypted PEM keys "
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
		if (strncmp(cases[i].why, "mode ", 5) == 0)
			want = xasprintf("tls.client-key-file: key file '%s': "
			                 "%s; a secret must be readable by its "
			                 "owner only (chmod 600 '%s')",
			    path, cases[i].why, path);
		else
			want = xasprintf("tls.client-key-file: key file '%s'%s",
			    path, cases[i].why);
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
	want = xasprintf("--client-key: key file '%s': a symbolic link, not a "
	                 "regular file",
	    link);
	assert_string_equal(err.msg, want);
	err_release(&err);
	free(want);
	assert_int_equal(
	    agent_creds_read_key(&key, f->creds, "--client-key", &err), -1);
	want = xasprintf("--client-key: key file '%s': a folder, not a regular "
	                 "file",
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
	    cmocka_unit_test_setup_teardown(
	        test_creds__file_and_folder_must_be_private, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_creds__secret_read_and_check,
	        setup, teardown),
	    cmocka_unit_test_setup_teardown(test_creds__key_read, setup,
	        teardown),
	    cmocka_unit_test_setup_teardown(test_creds__key_refused, setup,
	        teardown),
	};

	return cmocka_run_group_tests_name("creds", tests, NULL, NULL);
}
