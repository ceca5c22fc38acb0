/* tests/unit/test-gpg.c: agent/gpg.c's judge: what gpgme reports of a
 * verification (its status class, summary bits, the key looked up in the
 * agent's keyring) and the verdict. Real keys and signatures made by gpg
 * are in test-verify.c and tests/integration/79-daemon-signed.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../agent/gpg.h"

#define FPR "0123456789ABCDEF0123456789ABCDEF01234567"

/* A good signature by a key of the keyring, valid. */
static struct agent_gpg_facts
good(void)
{
	struct agent_gpg_facts f;

	memset(&f, 0, sizeof(f));
	f.nsigs = 1;
	f.status = AGENT_GPG_GOOD;
	f.fpr = FPR;
	f.status_text = "Success";
	f.key_found = true;
	f.uid = "Gus Signer <gus@example.com>";
	return f;
}

static void
judge(const struct agent_gpg_facts *f, enum agent_verify_why want,
    const char *detail)
{
	struct agent_verify_sig s;

	agent_gpg_judge(f, &s);
	assert_int_equal(s.why, want);
	if (f->fpr != NULL)
		assert_string_equal(s.key, "OpenPGP key " FPR);
	if (detail == NULL)
		assert_null(s.detail);
	else
		assert_string_equal(s.detail, detail);
	agent_verify_sig_release(&s);
}

static void
test_gpg__good_signature_by_a_keyring_key(void **state)
{
	struct agent_gpg_facts f = good();
	struct agent_verify_sig s;

	(void)state;
	agent_gpg_judge(&f, &s);
	assert_int_equal(s.why, AGENT_VERIFY_GOOD);
	assert_string_equal(s.key, "OpenPGP key " FPR);
	assert_string_equal(s.signer, "Gus Signer <gus@example.com>");
	agent_verify_sig_release(&s);
}

static void
test_gpg__a_strangers_good_signature_is_untrusted(void **state)
{
	struct agent_gpg_facts f = good();

	(void)state;
	f.status = AGENT_GPG_NO_KEY;
	f.key_found = false;
	f.summary = AGENT_GPG_SUM_KEY_MISSING;
	judge(&f, AGENT_VERIFY_UNKNOWN_KEY,
	    "the keyring does not hold this key");
	/* status good but the key not found in the keyring: still a stranger */
	f = good();
	f.key_found = false;
	judge(&f, AGENT_VERIFY_UNKNOWN_KEY,
	    "the keyring does not hold this key");
}

static void
test_gpg__bad_signature(void **state)
{
	struct agent_gpg_facts f = good();

	(void)state;
	f.status = AGENT_GPG_BAD;
	f.summary = AGENT_GPG_SUM_RED;
	judge(&f, AGENT_VERIFY_BAD, "the signature does not match the commit");
	f = good();
	f.summary = AGENT_GPG_SUM_RED;
	judge(&f, AGENT_VERIFY_BAD, "the signature does not match the commit");
}

static void
test_gpg__revoked_key_or_subkey(void **state)
{
	struct agent_gpg_facts f = good();

	(void)state;
	f.status = AGENT_GPG_REVOKED;
	judge(&f, AGENT_VERIFY_REVOKED, "the key is revoked");
	f = good();
	f.key_revoked = true;
	judge(&f, AGENT_VERIFY_REVOKED, "the key is revoked");
	f = good();
	f.subkey_revoked = true;
	judge(&f, AGENT_VERIFY_REVOKED, "the key is revoked");
	f = good();
	f.summary = AGENT_GPG_SUM_KEY_REVOKED;
	judge(&f, AGENT_VERIFY_REVOKED, "the key is revoked");
}

static void
test_gpg__expired_key_or_signature(void **state)
{
	struct agent_gpg_facts f = good();

	(void)state;
	f.status = AGENT_GPG_KEY_EXPIRED;
	judge(&f, AGENT_VERIFY_EXPIRED, "the key has expired");
	f = good();
	f.subkey_expired = true;
	judge(&f, AGENT_VERIFY_EXPIRED, "the key has expired");
	f = good();
	f.status = AGENT_GPG_SIG_EXPIRED;
	f.summary = AGENT_GPG_SUM_SIG_EXPIRED;
	judge(&f, AGENT_VERIFY_EXPIRED, "the signature has expired");
}

static void
test_gpg__disabled_key_and_odd_results(void **state)
{
	struct agent_gpg_facts f = good();

	(void)state;
	f.key_disabled = true;
	judge(&f, AGENT_VERIFY_UNKNOWN_KEY,
	    "the key is disabled in the keyring");
	f = good();
	f.nsigs = 2;
	judge(&f, AGENT_VERIFY_BAD, "2 signatures where one was expected");
	f = good();
	f.nsigs = 0;
	f.fpr = NULL;
	judge(&f, AGENT_VERIFY_BAD, "0 signatures where one was expected");
	f = good();
	f.status = AGENT_GPG_OTHER;
	f.status_text = "General error";
	judge(&f, AGENT_VERIFY_ERROR, "gpg: General error");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_gpg__good_signature_by_a_keyring_key),
	    cmocka_unit_test(test_gpg__a_strangers_good_signature_is_untrusted),
	    cmocka_unit_test(test_gpg__bad_signature),
	    cmocka_unit_test(test_gpg__revoked_key_or_subkey),
	    cmocka_unit_test(test_gpg__expired_key_or_signature),
	    cmocka_unit_test(test_gpg__disabled_key_and_odd_results),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
