/* agent/gpg.h: OpenPGP signatures of commits, through gpgme, which no
 * other file of the project includes.
 *
 * The configured keyring (a file of public keys as `gpg --export` writes
 * it, binary or armored, or a GnuPG home folder, whose public keys are
 * exported from it) is imported into a GnuPG home of the agent's own: a
 * fresh private folder (mode 0700) under $RUNTIME_DIRECTORY, $TMPDIR or
 * /tmp, with a gpg.conf that starts no agent, fetches no key and trusts
 * every key it holds (`trust-model always`). The verification sees those
 * keys and no other; nothing in ~/.gnupg counts. The folder is removed by
 * agent_gpg_free. Whether a signature is trusted is agent_gpg_judge's
 * decision, a pure function of what gpgme reported.
 */
#ifndef AGENT_GPG_H
#define AGENT_GPG_H

#include <stdbool.h>
#include <stddef.h>

#include "../lib/err.h"
#include "verify.h"

#define AGENT_GPG_ARMOR "-----BEGIN PGP SIGNATURE-----"

struct agent_gpg; /* opaque */

/* Import keyring (a file or a GnuPG home folder) into a new private home.
 * 0, *out and *nkeys (the keys imported); -1 (err set) when gpg cannot
 * run, the keyring cannot be read or holds no public key. */
int agent_gpg_open(struct agent_gpg **out, const char *keyring, size_t *nkeys,
    struct err *err);
void agent_gpg_free(struct agent_gpg *g); /* NULL is a no-op */

/* What gpgme says of a signature's status, by class. */
enum agent_gpg_status {
	AGENT_GPG_GOOD = 0,
	AGENT_GPG_BAD,         /* GPG_ERR_BAD_SIGNATURE */
	AGENT_GPG_NO_KEY,      /* GPG_ERR_NO_PUBKEY */
	AGENT_GPG_KEY_EXPIRED, /* GPG_ERR_KEY_EXPIRED */
	AGENT_GPG_SIG_EXPIRED, /* GPG_ERR_SIG_EXPIRED */
	AGENT_GPG_REVOKED,     /* GPG_ERR_CERT_REVOKED */
	AGENT_GPG_OTHER,
};

/* The facts of one verification, from gpgme's result and the key it
 * names (looked up in the agent's home). Strings are borrowed. */
struct agent_gpg_facts {
	size_t nsigs; /* signatures found */
	enum agent_gpg_status status;
	unsigned summary;        /* gpgme_sigsum_t bits */
	const char *fpr;         /* as the signature names its key */
	const char *status_text; /* gpgme_strerror of the status */
	bool key_found;          /* the keyring holds the key */
	bool key_revoked, key_expired, key_disabled, key_invalid;
	bool subkey_revoked, subkey_expired; /* the key that signed */
	const char *uid;                     /* the key's first user id */
};

#define AGENT_GPG_SUM_KEY_REVOKED 0x0010u /* GPGME_SIGSUM_KEY_REVOKED */
#define AGENT_GPG_SUM_KEY_EXPIRED 0x0020u /* GPGME_SIGSUM_KEY_EXPIRED */
#define AGENT_GPG_SUM_SIG_EXPIRED 0x0040u /* GPGME_SIGSUM_SIG_EXPIRED */
#define AGENT_GPG_SUM_KEY_MISSING 0x0080u /* GPGME_SIGSUM_KEY_MISSING */
#define AGENT_GPG_SUM_RED         0x0004u /* GPGME_SIGSUM_RED */

/* The verdict on f: good only for one good signature by a key of the
 * keyring that is neither revoked, expired nor disabled (nor its signing
 * subkey). */
void agent_gpg_judge(const struct agent_gpg_facts *f,
    struct agent_verify_sig *out);

/* Verify sig (armored, detached) over payload with g's keys and judge it.
 * -1 (err set) when gpg could not be run; else 0 and *out. */
int agent_gpg_check(struct agent_gpg *g, const char *sig, size_t siglen,
    const char *payload, size_t len, struct agent_verify_sig *out,
    struct err *err);

#endif
