/* agent/creds.h: broker credentials (agent/creds.c). */
#ifndef AGENT_CREDS_H
#define AGENT_CREDS_H

#include "../lib/err.h"

/* The credentials folder: opt when given, else $CREDENTIALS_DIRECTORY;
 * NULL when neither is set. Borrowed. */
const char *agent_creds_dir(const char *opt);

/* Read <dir>/<name>, the credentials of node: one line `user:password`
 * (a trailing newline is allowed). Refuses a name with '/', a missing,
 * unreadable, non-regular, world-readable, empty, oversized or malformed
 * file, with `node 'N': credentials file 'PATH' ...` in err. *out is owned;
 * free it with agent_creds_free. The secret never enters err. */
int agent_creds_read(char **out, const char *dir, const char *node,
    const char *name, struct err *err);
/* Read path, the private key of mutual TLS with brokers (`--client-key`,
 * `tls.client-key-file`), under the rules of a credentials file: refuses a
 * missing, unreadable, symbolic-link, non-regular, world-readable,
 * oversized (64 KiB) or empty file and one that holds no unencrypted PEM
 * private key, with `WHAT: key file 'PATH' ...` in err (what names the
 * option or key). *out is the PEM text, owned; free it with
 * agent_creds_free. No byte of the key enters err. */
int agent_creds_read_key(char **out, const char *path, const char *what,
    struct err *err);
/* Wipe and free. NULL is a no-op. */
void agent_creds_free(char *s);

#endif
