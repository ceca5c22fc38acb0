/* agent/hostkey.h: SSH host key checking against an OpenSSH known_hosts
 * file (repository.ssh-known-hosts). No libgit2 here: watch.c hands over
 * the raw key blob the server offered (the SSH wire format, which is what
 * the base64 field of a known_hosts line decodes to).
 *
 * Supported: plain host patterns (`host`, `[host]:port`, `*` and `?`
 * wildcards, `!` negation, comma-separated lists) and the `@revoked`
 * marker. Hashed host names (`|1|...`, ssh-keygen -H) and
 * `@cert-authority` lines never match: the key is then unknown.
 */
#ifndef AGENT_HOSTKEY_H
#define AGENT_HOSTKEY_H

#include <stddef.h>

#include "../../lib/err.h"

#define DAEMON_HOSTKEY_FILE_MAX ((size_t)1 << 20) /* bytes of a known_hosts file */
#define DAEMON_HOSTKEY_FP_MAX   64 /* "SHA256:" + 43 base64 characters + NUL */

enum daemon_hostkey_result {
	DAEMON_HOSTKEY_OK = 0,  /* a line for the host holds this key */
	DAEMON_HOSTKEY_UNKNOWN, /* no line names the host */
	DAEMON_HOSTKEY_CHANGED, /* lines name the host, none holds this key */
	DAEMON_HOSTKEY_REVOKED, /* the key is marked @revoked */
};

/* The key's fingerprint as `ssh-keygen -l` prints it: "SHA256:" and the
 * unpadded base64 of the SHA-256 of the blob. */
void daemon_hostkey_fingerprint(const unsigned char *key, size_t len,
    char out[DAEMON_HOSTKEY_FP_MAX]);

/* The name known_hosts uses: "host" on port 22, else "[host]:port".
 * Owned by the caller. */
char *daemon_hostkey_name(const char *host, int port);

/* The port of an ssh:// URL (22 when it names none, and for scp-like
 * user@host:path URLs). */
int daemon_hostkey_url_port(const char *url);

/* Look key up for host:port in the known_hosts file at path. -1 (err set)
 * when the file cannot be read; else 0 and *out is the result. */
int daemon_hostkey_check(enum daemon_hostkey_result *out, const char *path, const char *host,
    int port, const unsigned char *key, size_t len, struct err *err);

#endif
