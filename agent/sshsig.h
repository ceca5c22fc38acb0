/* agent/sshsig.h: SSH signatures of commits (gpg.format=ssh), checked
 * the way git checks them, by OpenSSH's own `ssh-keygen -Y`:
 *
 *   ssh-keygen -Y check-novalidate -n git -s SIG < PAYLOAD
 *       is it a good signature at all, and by which key;
 *   ssh-keygen -Y find-principals -f ALLOWED -s SIG
 *       which principals of the allowed signers file hold that key (its
 *       valid-after / valid-before / namespaces options judged now);
 *   ssh-keygen -Y verify -f ALLOWED -I PRINCIPAL -n git -s SIG < PAYLOAD
 *       the verification proper.
 *
 * Each run is a child process with a deadline (AGENT_SSHSIG_TIMEOUT_MS),
 * killed past it. The signature, the payload and the allowed signers
 * (held in memory, as read at start or reload) reach it as anonymous
 * files (/dev/fd/N): nothing is written to disk. The outputs are judged by
 * agent_sshsig_judge, a pure function.
 */
#ifndef AGENT_SSHSIG_H
#define AGENT_SSHSIG_H

#include <stddef.h>

#include "../lib/err.h"
#include "verify.h"

#define AGENT_SSHSIG_TIMEOUT_MS  10000 /* one ssh-keygen run */
#define AGENT_SSHSIG_OUT_MAX     8192  /* bytes of its output kept */
#define AGENT_SSHSIG_ALLOWED_MAX ((size_t)1 << 20) /* the file's bytes */
#define AGENT_SSHSIG_ARMOR       "-----BEGIN SSH SIGNATURE-----"

/* The allowed signers file's lines checked: `principals [options] keytype
 * base64 [comment]`, `#` comments and blank lines. 0 and *nkeys; -1 with
 * `path:line: why` in err (the first bad line), or when it holds no key. */
int agent_sshsig_allowed_check(const char *path, const char *text, size_t len,
    size_t *nkeys, struct err *err);

/* One ssh-keygen run: its exit status (-1 when it was killed or did not
 * run) and its standard output and error, together. */
struct agent_sshsig_run {
	int status;
	const char *out;
};

/* From a `Good "git" signature [for P] with T key FP` line of out: the
 * key ("T key FP") and the principal (NULL without `for`), owned. -1
 * when out holds no such line. */
int agent_sshsig_parse_good(const char *out, char **key, char **principal);

/* The verdict of the runs: novalidate (check-novalidate), find
 * (find-principals; NULL when not run) and verify (NULL when not run).
 * allowed_path replaces the anonymous file's name in the tool's words. */
void agent_sshsig_judge(const struct agent_sshsig_run *novalidate,
    const struct agent_sshsig_run *find, const struct agent_sshsig_run *verify,
    const char *allowed_path, struct agent_verify_sig *out);

/* Check sig (armored) over payload against the allowed signers text
 * (read from allowed_path): the runs above, then the judge. -1 (err set)
 * when ssh-keygen could not be run or timed out; else 0 and *out. */
int agent_sshsig_check(const char *allowed_path, const char *allowed,
    size_t allowed_len, const char *sig, size_t siglen, const char *payload,
    size_t len, const struct agent_verify_tick *tick,
    struct agent_verify_sig *out, struct err *err);

#endif
