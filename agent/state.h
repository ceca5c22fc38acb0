/* agent/state.h: the state folder (docs/state.md, docs/audit.md).
 *
 * A state folder holds what the agent remembers between runs: the
 * inventory (what it applied), the audit log `audit.jsonl` and the lock
 * file `lock`. Every command that may change brokers or state files opens
 * it through agent_state_open, which takes an exclusive flock(2) on
 * STATE/lock for the life of the handle, so a second apply (or the daemon)
 * is refused with a message naming the holder. The kernel drops the lock
 * when the holder dies, even by SIGKILL.
 *
 * Every state file is written atomically (lib/afile.h: temporary file,
 * fsync, rename, fsync of the folder); the audit log is append-only and
 * each row is fsync'd before the call returns.
 */
#ifndef AGENT_STATE_H
#define AGENT_STATE_H

#include <stdbool.h>
#include <stddef.h>

#include "../lib/err.h"

#define AGENT_STATE_LOCK  "lock"
#define AGENT_STATE_AUDIT "audit.jsonl"
#define AGENT_STATE_FILEMAX                                                    \
	((size_t)64 * 1024 * 1024) /* bytes per state file */
#define AGENT_STATE_DEFAULT "/var/lib/artemis-gitops"

/* The state folder: opt when given, else $STATE_DIRECTORY (systemd's
 * StateDirectory=; the first of a colon-separated list), else
 * AGENT_STATE_DEFAULT. Borrowed (a static copy for the environment). */
const char *agent_state_default(const char *opt);

struct agent_state; /* opaque: an open, locked state folder */

/* Create dir (mode 0700) if needed and take its lock without waiting.
 * command describes the holder (e.g. "apply /srv/plans/p1"); it is written
 * into the lock file with the pid and the start time. When another process
 * holds the lock the error reads
 *   state folder 'DIR' is locked by pid N (COMMAND, since TIME)
 * On success *out owns the handle; on failure *out is untouched. */
int agent_state_open(struct agent_state **out, const char *dir,
    const char *command, struct err *err);

/* Release the lock and free the handle. NULL is a no-op. */
void agent_state_close(struct agent_state *st);

/* The folder, as given to agent_state_open. Borrowed. */
const char *agent_state_dir(const struct agent_state *st);

/* DIR/name; owned by the caller. */
char *agent_state_path(const struct agent_state *st, const char *name);

/* Atomically replace DIR/name (mode 0600). */
int agent_state_write(struct agent_state *st, const char *name,
    const void *data, size_t len, struct err *err);

/* Several agents with state-backend etcd (docs/ha.md): fn is called with
 * every state file written (name as given) and every audit row (audit
 * true, name AGENT_STATE_AUDIT) BEFORE it is written to the folder; -1
 * from fn (the write refused: this agent no longer owns the cluster, or
 * etcd cannot be reached) fails the write with fn's err, and nothing is
 * written. NULL: none. */
typedef int agent_state_mirror_fn(void *ctx, const char *name, const void *data,
    size_t len, bool audit, struct err *err);
void agent_state_set_mirror(struct agent_state *st, agent_state_mirror_fn *fn,
    void *ctx);

/* agent_state_write without the mirror (what was read back from etcd),
 * its folder made when missing; and the removal of DIR/name (none: 0). */
int agent_state_write_local(struct agent_state *st, const char *name,
    const void *data, size_t len, struct err *err);
int agent_state_remove_local(struct agent_state *st, const char *name,
    struct err *err);

/* Append, without the mirror, every row of rows[0..n) that the audit log
 * does not hold yet (in their order): the rows etcd holds of a cluster
 * taken over. */
int agent_state_audit_merge(struct agent_state *st, const char *const *rows,
    size_t n, struct err *err);

/* Read DIR/name. Returns 0 and sets *out (owned), 1 when the file does not
 * exist (*out untouched), -1 on any other error. */
int agent_state_read(const struct agent_state *st, const char *name, char **out,
    size_t *len_out, struct err *err);

/* Append one JSON Lines row (row must be one line of JSON without the
 * newline) to DIR/audit.jsonl and fsync it. A torn last line left by a
 * crash is terminated first, so the new row always starts a line. */
int agent_state_audit_append(struct agent_state *st, const char *row,
    struct err *err);

/* Call fn(ctx, row, len) for every row of DIR/audit.jsonl, in order: row
 * is one line without its newline, NUL-terminated, borrowed for the call.
 * A last line without its newline (torn by a crash during its append) is
 * not a row; a log that does not exist has none. fn returns non-zero to
 * stop the scan. Returns 0, or -1 when the log cannot be read (or a line
 * is longer than AGENT_STATE_FILEMAX). */
int agent_state_audit_each(const struct agent_state *st,
    int (*fn)(void *ctx, const char *row, size_t len), void *ctx,
    struct err *err);

/* The same for the state folder dir, without its lock: a reader that
 * does not change the state (the web server). Rows are appended whole
 * (O_APPEND, fsync), so a concurrent append shows as a whole row or a
 * torn last line, which is not a row. */
int agent_state_audit_each_dir(const char *dir,
    int (*fn)(void *ctx, const char *row, size_t len), void *ctx,
    struct err *err);

/* Who holds the lock of dir, as written by the holder ("pid N (COMMAND,
 * since TIME)"), or NULL when the lock is free or dir has no lock file.
 * Owned by the caller. Does not take the lock. */
char *agent_state_lock_holder(const char *dir);

#endif
