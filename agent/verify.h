/* agent/verify.h: only signed commits are applied (repository.verify,
 * docs/policy.md "Signed commits only").
 *
 * A verifier holds what the configuration trusts, read once: the allowed
 * signers file (SSH signatures, checked by OpenSSH's own ssh-keygen:
 * sshsig.c) and the OpenPGP keyring (gpgme: gpg.c). It is built at start
 * and again on SIGHUP, so a changed file takes effect on reload, and a
 * file that cannot be read refuses the reload (the running one is kept).
 *
 * A commit is trusted when its signature is good, made by a key the
 * configuration trusts that is neither expired nor revoked now (a key is
 * judged as of the check, not as of the commit's date, which its author
 * sets). Anything else (unsigned, a bad signature, a stranger's key, a
 * key expired or revoked, a signature format not configured, the check
 * failing to run) is untrusted: fail closed.
 */
#ifndef AGENT_VERIFY_H
#define AGENT_VERIFY_H

#include <stdbool.h>
#include <stddef.h>

#include "../lib/err.h"
#include "conf.h"
#include "git.h"

/* Why a signature is or is not trusted; agent_verify_why_name() names
 * them for messages. */
enum agent_verify_why {
	AGENT_VERIFY_GOOD = 0,    /* a good signature by a trusted key */
	AGENT_VERIFY_UNSIGNED,    /* no signature at all */
	AGENT_VERIFY_BAD,         /* the signature does not match the commit */
	AGENT_VERIFY_UNKNOWN_KEY, /* good, by a key the configuration lacks */
	AGENT_VERIFY_EXPIRED,     /* by a trusted key, expired (or not yet
	                             valid) */
	AGENT_VERIFY_REVOKED,     /* by a trusted key, revoked */
	AGENT_VERIFY_UNSUPPORTED, /* a format no trust is configured for */
	AGENT_VERIFY_ERROR,       /* the check could not be made */
};

/* "good signature", "unsigned", "bad signature", ... */
const char *agent_verify_why_name(enum agent_verify_why w);

/* One signature judged. Strings are owned, one line, and hold nothing
 * secret: a public key's fingerprint, a principal or user id, the tool's
 * words. */
struct agent_verify_sig {
	enum agent_verify_why why;
	char *key; /* "ED25519 key SHA256:…", "OpenPGP key <fpr>", or NULL */
	char *signer; /* the allowed signer's principal, the key's user id */
	char *detail; /* what the tool said, when it says more; or NULL */
};

void agent_verify_sig_release(struct agent_verify_sig *s);

/* What a long check does between its waits (the daemon: the watchdog and
 * its signals); NULL for nothing. */
struct agent_verify_tick {
	void (*fn)(void *arg);
	void *arg;
};

struct agent_verify; /* opaque */

/* Read the trust conf names (conf->verify_*): the allowed signers file
 * (its lines checked: `path:line: why`) and the keyring. NULL *out with 0
 * when conf->verify_mode is off. -1 (err set) when a file cannot be read
 * or holds no key. */
int agent_verify_new(struct agent_verify **out, const struct agent_conf *conf,
    struct err *err);
void agent_verify_free(struct agent_verify *v); /* NULL is a no-op */

/* The verdict on a head commit: the first commit found untrusted, or the
 * head's good signature. */
struct agent_verify_verdict {
	bool trusted;
	char commit[AGENT_GIT_OID_HEX + 1]; /* the commit the verdict names */
	struct agent_verify_sig sig;        /* that commit's signature */
	size_t checked;                     /* commits checked */
	char *note; /* owned: how the base was chosen, or NULL */
};

void agent_verify_verdict_release(struct agent_verify_verdict *vd);

#define AGENT_VERIFY_COMMITS_MAX 1000 /* commits checked for one head */

/* Judge head in r by v's mode: `head` checks head alone; `since-applied`
 * checks head and every first-parent commit since base (the cluster's
 * applied revision; NULL or not in r: head alone, said in vd->note).
 * Never fails: a check that cannot be made is AGENT_VERIFY_ERROR. */
void agent_verify_commit(struct agent_verify *v, struct agent_git_repo *r,
    const char *head, const char *base, const struct agent_verify_tick *tick,
    struct agent_verify_verdict *vd);

/* One line for logs and previews: "commit <id>: <why> (<key>, <signer>):
 * <detail>". Owned. */
char *agent_verify_verdict_line(const struct agent_verify_verdict *vd);
/* What to do about an untrusted verdict, for a preview's next step. Owned. */
char *agent_verify_next_step(const struct agent_verify *v,
    const struct agent_verify_verdict *vd);
/* The mode, and what is trusted, for the preview's signature.txt. */
char *agent_verify_describe(const struct agent_verify *v);

#endif
