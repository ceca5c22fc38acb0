/* agent/creds.h: broker credentials (agent/creds.c). */
#ifndef AGENT_CREDS_H
#define AGENT_CREDS_H

#include "../lib/err.h"

/* The credentials folder: opt when given, else $CREDENTIALS_DIRECTORY;
 * NULL when neither is set. Borrowed. */
const char *agent_creds_dir(const char *opt);

/* Open path, a secret of the credentials folder, as sshd wants a private
 * key: a regular file, not a symbolic link (afile_open, AFILE_NOFOLLOW),
 * owned by the agent's user (the effective uid) or root, with no
 * permission at all for its group or others (mode 0600 or 0400; systemd's
 * LoadCredential= gives 0400 files owned by the service's user), in a
 * folder owned by the same and writable by its owner only (no group or
 * other write bit, sticky or not: a writer there could replace the file).
 * 0 with *fd_out open; -1 with *why (owned, without the path): "a FIFO,
 * not a regular file", "cannot open: No such file or directory", "mode
 * 0640: its group can read it; a secret must be readable by its owner only
 * (chmod 600 'P')", "owned by uid 1000, not by the agent's user (uid 0) or
 * root", "its folder 'D' has mode 0777: its group can write it, others can
 * write it, and so replace the file; ...". POSIX ACLs are not read: a file
 * whose ACL grants more than its mode shows is not refused for it. */
int agent_creds_open_secret(int *fd_out, const char *path, char **why);

/* Read <dir>/<name>, the credentials of node: one line `user:password`
 * (a trailing newline is allowed). Refuses a name with '/', a file
 * agent_creds_open_secret refuses, an empty, oversized or malformed file,
 * with `node 'N': credentials file 'PATH': ...` (`... 'PATH' is empty`) in
 * err. *out is owned; free it with agent_creds_free. The secret never
 * enters err. */
int agent_creds_read(char **out, const char *dir, const char *node,
    const char *name, struct err *err);
/* Read path, the private key of mutual TLS with brokers (`--client-key`,
 * `tls.client-key-file`), under the rules of a credentials file: refuses a
 * file agent_creds_open_secret refuses, an oversized (64 KiB) or empty
 * file and one that holds no unencrypted PEM private key, with `WHAT: key
 * file 'PATH'...` in err (what names the
 * option or key). *out is the PEM text, owned; free it with
 * agent_creds_free. No byte of the key enters err. */
int agent_creds_read_key(char **out, const char *path, const char *what,
    struct err *err);
/* The first line of the secret file <dir>/<name> (the git token), owned
 * (wipe it with agent_creds_free); the file as agent_creds_open_secret
 * wants it, at most 16 KiB. err: "KEY 'PATH': why" (KEY names the setting,
 * e.g. repository.token-file). */
int agent_creds_read_secret(char **out, const char *dir, const char *name,
    const char *key, struct err *err);
/* Check <dir>/<name> as agent_creds_open_secret does, for a secret another
 * library reads by path (the SSH private key libgit2 hands to libssh2). */
int agent_creds_check_secret(const char *dir, const char *name, const char *key,
    struct err *err);

/* Wipe and free. NULL is a no-op. */
void agent_creds_free(char *s);

#endif
