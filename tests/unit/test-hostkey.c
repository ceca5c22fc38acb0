/* tests/unit/test-hostkey.c: known_hosts matching (agent/hostkey.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../agent/daemon/daemon-int.h"
#include "../../lib/xalloc.h"

/* Two ed25519 public keys (ssh-keygen), as SSH wire blobs and base64. */
#define KEY_A_B64                                                              \
	"AAAAC3NzaC1lZDI1NTE5AAAAIOb1uTxbS4bzWJEY6tVd5T4Lqem1lvyitizTrzjbqwDu"
#define KEY_B_B64                                                              \
	"AAAAC3NzaC1lZDI1NTE5AAAAIICvf8J1XCSekHa1VUCUmiDFC1PaDY+1lFebsdEeFXrk"
static const unsigned char key_a[] =
    "\x00\x00\x00\x0b\x73\x73\x68\x2d\x65\x64\x32\x35\x35\x31\x39\x00\x00"
    "\x00\x20\xe6\xf5\xb9\x3c\x5b\x4b\x86\xf3\x58\x91\x18\xea\xd5\x5d\xe5"
    "\x3e\x0b\xa9\xe9\xb5\x96\xfc\xa2\xb6\x2c\xd3\xaf\x38\xdb\xab\x00\xee";
static const unsigned char key_b[] =
    "\x00\x00\x00\x0b\x73\x73\x68\x2d\x65\x64\x32\x35\x35\x31\x39\x00\x00"
    "\x00\x20\x80\xaf\x7f\xc2\x75\x5c\x24\x9e\x90\x76\xb5\x55\x40\x94\x9a"
    "\x20\xc5\x0b\x53\xda\x0d\x8f\xb5\x94\x57\x9b\xb1\xd1\x1e\x15\x7a\xe4";
#define KEY_LEN 51

static char *
write_kh(const char *text)
{
	char *path = xstrdup("/tmp/test-hostkey-XXXXXX");
	int fd = mkstemp(path);
	FILE *f;

	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static enum daemon_hostkey_result
check(const char *text, const char *host, int port, const unsigned char *key)
{
	enum daemon_hostkey_result r = DAEMON_HOSTKEY_OK;
	struct err err = {0};
	char *path = write_kh(text);

	if (daemon_hostkey_check(&r, path, host, port, key, KEY_LEN, &err) < 0)
		fail_msg("%s", err.msg);
	unlink(path);
	free(path);
	return r;
}

static void
test_hostkey__fingerprint_as_ssh_keygen(void **state)
{
	char fp[DAEMON_HOSTKEY_FP_MAX];

	(void)state;
	daemon_hostkey_fingerprint(key_a, KEY_LEN, fp);
	assert_string_equal(fp,
	    "SHA256:CXQpr4SOvD8WGuKTDhK0ddtUxzcV1qY83KmZRLzZwS4");
	daemon_hostkey_fingerprint(key_b, KEY_LEN, fp);
	assert_string_equal(fp,
	    "SHA256:XddSRWYzx2erogWjbB3oPCj0+jZlexVsVB+kW+ou0Ug");
}

static void
test_hostkey__names_and_ports(void **state)
{
	char *n;

	(void)state;
	n = daemon_hostkey_name("git.example", 22);
	assert_string_equal(n, "git.example");
	free(n);
	n = daemon_hostkey_name("127.0.0.1", 2222);
	assert_string_equal(n, "[127.0.0.1]:2222");
	free(n);
	assert_int_equal(daemon_hostkey_url_port("ssh://git@h:2222/r.git"),
	    2222);
	assert_int_equal(daemon_hostkey_url_port("ssh://h:10022/r.git"), 10022);
	assert_int_equal(daemon_hostkey_url_port("ssh://git@h/r.git"), 22);
	assert_int_equal(daemon_hostkey_url_port("ssh://[::1]:2200/r"), 2200);
	assert_int_equal(daemon_hostkey_url_port("git@h:ops/r.git"), 22);
}

static void
test_hostkey__results(void **state)
{
	(void)state;
	/* plain, with a port, in a list, with a comment */
	assert_int_equal(check("[127.0.0.1]:2222 ssh-ed25519 " KEY_A_B64 "\n",
	                     "127.0.0.1", 2222, key_a),
	    DAEMON_HOSTKEY_OK);
	assert_int_equal(check("# c\nother,git.example ssh-ed25519 " KEY_A_B64
	                       " me@x\r\n",
	                     "git.example", 22, key_a),
	    DAEMON_HOSTKEY_OK);
	/* another key for the host: changed; another host: unknown */
	assert_int_equal(check("[127.0.0.1]:2222 ssh-ed25519 " KEY_B_B64 "\n",
	                     "127.0.0.1", 2222, key_a),
	    DAEMON_HOSTKEY_CHANGED);
	assert_int_equal(check("127.0.0.1 ssh-ed25519 " KEY_A_B64 "\n",
	                     "127.0.0.1", 2222, key_a),
	    DAEMON_HOSTKEY_UNKNOWN);
	assert_int_equal(check("", "h", 22, key_a), DAEMON_HOSTKEY_UNKNOWN);
	/* one of several keys of the host matches */
	assert_int_equal(check("h ssh-ed25519 " KEY_B_B64 "\n"
	                       "h ssh-ed25519 " KEY_A_B64 "\n",
	                     "h", 22, key_a),
	    DAEMON_HOSTKEY_OK);
	/* wildcards and negation */
	assert_int_equal(check("*.example ssh-ed25519 " KEY_A_B64 "\n",
	                     "git.example", 22, key_a),
	    DAEMON_HOSTKEY_OK);
	assert_int_equal(check("*.example,!git.example ssh-ed25519 " KEY_A_B64
	                       "\n",
	                     "git.example", 22, key_a),
	    DAEMON_HOSTKEY_UNKNOWN);
	/* revoked wins; hashed and cert-authority lines never match */
	assert_int_equal(check("h ssh-ed25519 " KEY_A_B64 "\n"
	                       "@revoked h ssh-ed25519 " KEY_A_B64 "\n",
	                     "h", 22, key_a),
	    DAEMON_HOSTKEY_REVOKED);
	assert_int_equal(check("|1|abc=|def= ssh-ed25519 " KEY_A_B64 "\n"
	                       "@cert-authority h ssh-ed25519 " KEY_A_B64 "\n",
	                     "h", 22, key_a),
	    DAEMON_HOSTKEY_UNKNOWN);
	/* garbage base64 is no match, and no crash */
	assert_int_equal(check("h ssh-ed25519 !!!notbase64\n", "h", 22, key_a),
	    DAEMON_HOSTKEY_UNKNOWN);
}

static void
test_hostkey__missing_file_is_an_error(void **state)
{
	enum daemon_hostkey_result r = DAEMON_HOSTKEY_OK;
	struct err err = {0};

	(void)state;
	assert_int_equal(daemon_hostkey_check(&r, "/nonexistent/known_hosts",
	                     "h", 22, key_a, KEY_LEN, &err),
	    -1);
	assert_non_null(strstr(err.msg, "/nonexistent/known_hosts"));
	err_release(&err);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hostkey__fingerprint_as_ssh_keygen),
	    cmocka_unit_test(test_hostkey__names_and_ports),
	    cmocka_unit_test(test_hostkey__results),
	    cmocka_unit_test(test_hostkey__missing_file_is_an_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
