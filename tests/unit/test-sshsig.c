/* tests/unit/test-sshsig.c: agent/sshsig.c: the allowed signers file's
 * lines, and the verdict on ssh-keygen's outputs (the texts are what
 * OpenSSH 9.2's ssh-keygen prints; the runs themselves are in
 * test-verify.c and tests/integration/79-daemon-signed.sh). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../agent/sshsig.h"

#define FP "SHA256:VuCSzoRY0BcU21IueSq5n0mAPbiMWUHqSPyAwSLfdNo"
#define KEY                                                                    \
	"AAAAC3NzaC1lZDI1NTE5AAAAIN/f1Mw8DEvMBHZ7/Y6u0jH4AfilOYxAghS+7mK48XgL"

static void
test_sshsig__parse_good_with_and_without_principal(void **state)
{
	char *key = NULL, *who = NULL;

	(void)state;
	assert_int_equal(agent_sshsig_parse_good(
	                     "Good \"git\" signature for "
	                     "alice@example.com with ED25519 key " FP "\n",
	                     &key, &who),
	    0);
	assert_string_equal(key, "ED25519 key " FP);
	assert_string_equal(who, "alice@example.com");
	free(key);
	free(who);
	assert_int_equal(
	    agent_sshsig_parse_good("Good \"git\" signature with RSA key " FP,
	        &key, &who),
	    0);
	assert_string_equal(key, "RSA key " FP);
	assert_null(who);
	free(key);
	/* another namespace, or the words in the middle of a line */
	assert_int_equal(agent_sshsig_parse_good("Good \"file\" signature with "
	                                         "RSA key " FP,
	                     &key, &who),
	    -1);
	assert_int_equal(agent_sshsig_parse_good("x Good \"git\" signature "
	                                         "with RSA key " FP,
	                     &key, &who),
	    -1);
	assert_int_equal(agent_sshsig_parse_good(
	                     "Could not verify signature.\n", &key, &who),
	    -1);
}

static void
test_sshsig__judge_good(void **state)
{
	struct agent_sshsig_run nv = {0, "Good \"git\" signature with ED25519 "
	                                 "key " FP "\n"};
	struct agent_sshsig_run fp = {0, "alice@example.com\n"};
	struct agent_sshsig_run vf = {0,
	    "Good \"git\" signature for "
	    "alice@example.com with ED25519 key " FP "\n"};
	struct agent_verify_sig s;

	(void)state;
	agent_sshsig_judge(&nv, &fp, &vf, "/etc/ag/allowed", &s);
	assert_int_equal(s.why, AGENT_VERIFY_GOOD);
	assert_string_equal(s.key, "ED25519 key " FP);
	assert_string_equal(s.signer, "alice@example.com");
	assert_null(s.detail);
	agent_verify_sig_release(&s);
}

static void
test_sshsig__judge_stranger_names_its_key(void **state)
{
	struct agent_sshsig_run nv = {0, "Good \"git\" signature with ED25519 "
	                                 "key SHA256:yMtJ7FzjTk8Srjqk04cXVMn+"
	                                 "dnLnkJpGy2jRg59T29Y\n"};
	struct agent_sshsig_run fp = {255, "No principal matched.\n"};
	struct agent_verify_sig s;

	(void)state;
	agent_sshsig_judge(&nv, &fp, NULL, "/etc/ag/allowed", &s);
	assert_int_equal(s.why, AGENT_VERIFY_UNKNOWN_KEY);
	assert_string_equal(s.key, "ED25519 key SHA256:yMtJ7FzjTk8Srjqk04cXVMn+"
	                           "dnLnkJpGy2jRg59T29Y");
	assert_null(s.signer);
	assert_string_equal(s.detail, "No principal matched");
	agent_verify_sig_release(&s);
}

static void
test_sshsig__judge_expired_names_the_file_not_the_fd(void **state)
{
	struct agent_sshsig_run nv = {0, "Good \"git\" signature with ED25519 "
	                                 "key " FP "\n"};
	struct agent_sshsig_run fp = {255,
	    "/dev/fd/4:1: key has expired: verify time 2026-12-02T11:24:38 > "
	    "valid-before 2020-01-01T00:00:00\nNo principal matched.\n"};
	struct agent_verify_sig s;

	(void)state;
	agent_sshsig_judge(&nv, &fp, NULL, "/etc/ag/allowed", &s);
	assert_int_equal(s.why, AGENT_VERIFY_EXPIRED);
	assert_string_equal(s.key, "ED25519 key " FP);
	assert_string_equal(s.detail,
	    "/etc/ag/allowed:1: key has expired: verify time "
	    "2026-12-02T11:24:38 > valid-before 2020-01-01T00:00:00");
	agent_verify_sig_release(&s);
	/* the verify run says it */
	fp.status = 0;
	fp.out = "alice@example.com\n";
	{
		struct agent_sshsig_run vf = {255,
		    "/dev/fd/4:1: key has expired: verify time "
		    "2026-12-02T11:24:38 > valid-before 2020-01-01T00:00:00\n"};

		agent_sshsig_judge(&nv, &fp, &vf, "/etc/ag/allowed", &s);
	}
	assert_int_equal(s.why, AGENT_VERIFY_EXPIRED);
	assert_string_equal(s.detail,
	    "/etc/ag/allowed:1: key has expired: verify time "
	    "2026-12-02T11:24:38 > valid-before 2020-01-01T00:00:00");
	agent_verify_sig_release(&s);
}

static void
test_sshsig__judge_bad_signature(void **state)
{
	struct agent_sshsig_run nv = {255,
	    "Signature verification failed: incorrect signature\nCould not "
	    "verify signature.\n"};
	struct agent_verify_sig s;

	(void)state;
	agent_sshsig_judge(&nv, NULL, NULL, "/etc/ag/allowed", &s);
	assert_int_equal(s.why, AGENT_VERIFY_BAD);
	assert_null(s.key);
	assert_string_equal(s.detail, "Could not verify signature");
	agent_verify_sig_release(&s);
	/* exit 0 without the Good line is not good either */
	nv.status = 0;
	nv.out = "";
	agent_sshsig_judge(&nv, NULL, NULL, "/etc/ag/allowed", &s);
	assert_int_equal(s.why, AGENT_VERIFY_BAD);
	assert_null(s.detail);
	agent_verify_sig_release(&s);
}

static void
test_sshsig__judge_verify_failing_after_a_principal(void **state)
{
	struct agent_sshsig_run nv = {0, "Good \"git\" signature with ED25519 "
	                                 "key " FP "\n"};
	struct agent_sshsig_run fp = {0, "alice@example.com\n"};
	struct agent_sshsig_run vf = {255, "Couldn't verify signature: "
	                                   "namespace does not match\n"};
	struct agent_verify_sig s;

	(void)state;
	agent_sshsig_judge(&nv, &fp, &vf, "/etc/ag/allowed", &s);
	assert_int_equal(s.why, AGENT_VERIFY_UNKNOWN_KEY);
	assert_string_equal(s.detail,
	    "Couldn't verify signature: namespace does not match");
	agent_verify_sig_release(&s);
}

static void
test_sshsig__judge_escapes_the_tools_words(void **state)
{
	struct agent_sshsig_run nv = {255, "bad \x1b[31mred\n"};
	struct agent_verify_sig s;

	(void)state;
	agent_sshsig_judge(&nv, NULL, NULL, NULL, &s);
	assert_string_equal(s.detail, "bad <U+001B>[31mred");
	agent_verify_sig_release(&s);
}

static void
test_sshsig__allowed_lines(void **state)
{
	static const char good[] =
	    "# who may sign\n"
	    "\n"
	    "alice@example.com ssh-ed25519 " KEY " alice\n"
	    "bob@x,carol@x namespaces=\"git,file\",valid-after=\"20240101\" "
	    "ssh-ed25519 " KEY "\n"
	    "  dave@x cert-authority ssh-ed25519 " KEY "\n";
	struct err err = {0};
	size_t n = 0;

	(void)state;
	assert_int_equal(agent_sshsig_allowed_check("/etc/ag/allowed", good,
	                     strlen(good), &n, &err),
	    0);
	assert_int_equal(n, 3);
	assert_int_equal(agent_sshsig_allowed_check("/etc/ag/allowed",
	                     "alice@x ssh-ed25519\n", 20, &n, &err),
	    -1);
	assert_string_equal(err.path, "/etc/ag/allowed");
	assert_int_equal(err.line, 1);
	assert_string_equal(err.msg,
	    "allowed signers: the key after its type is not base64");
	err_release(&err);
	assert_int_equal(
	    agent_sshsig_allowed_check("/etc/ag/allowed",
	        "# ok\nalice@x ssh-ed25519 " KEY "\nbob@x " KEY "\n",
	        strlen("# ok\nalice@x ssh-ed25519 " KEY "\nbob@x " KEY "\n"),
	        &n, &err),
	    -1);
	assert_int_equal(err.line, 3);
	assert_non_null(strstr(err.msg, "expected principals"));
	err_release(&err);
	assert_int_equal(agent_sshsig_allowed_check("/etc/ag/allowed",
	                     "a namespaces=\"git ssh-ed25519 " KEY "\n",
	                     strlen("a namespaces=\"git ssh-ed25519 " KEY "\n"),
	                     &n, &err),
	    -1);
	assert_string_equal(err.msg,
	    "allowed signers: an unclosed quote in the options");
	err_release(&err);
	assert_int_equal(agent_sshsig_allowed_check("/etc/ag/allowed",
	                     "# nobody\n\n", 10, &n, &err),
	    -1);
	assert_string_equal(err.msg,
	    "allowed signers file /etc/ag/allowed lists no key");
	err_release(&err);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(
	        test_sshsig__parse_good_with_and_without_principal),
	    cmocka_unit_test(test_sshsig__judge_good),
	    cmocka_unit_test(test_sshsig__judge_stranger_names_its_key),
	    cmocka_unit_test(
	        test_sshsig__judge_expired_names_the_file_not_the_fd),
	    cmocka_unit_test(test_sshsig__judge_bad_signature),
	    cmocka_unit_test(
	        test_sshsig__judge_verify_failing_after_a_principal),
	    cmocka_unit_test(test_sshsig__judge_escapes_the_tools_words),
	    cmocka_unit_test(test_sshsig__allowed_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
