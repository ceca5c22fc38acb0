/* agent/child.h: run one blocking step (a git clone or fetch) in a forked
 * child process with a deadline, so that a server that never answers
 * cannot block the daemon (libgit2 1.5 has no network timeout).
 *
 * The parent waits in poll() on a pipe from the child and on the daemon's
 * signalfd: it keeps sending WATCHDOG=1 (at least every half WatchdogSec=),
 * records SIGHUP and SIGUSR1 in the flags for later, and on SIGTERM/SIGINT
 * or at the deadline kills the child (SIGKILL) and reaps it. The child
 * runs fn, sends its outcome and message through the pipe and leaves with
 * _exit() (no atexit handlers, no buffered stdio flushed twice).
 */
#ifndef AGENT_CHILD_H
#define AGENT_CHILD_H

#include "../../lib/err.h"
#include "../../lib/sbuf.h"
#include "signal.h"

#define DAEMON_CHILD_MSG_MAX 4096 /* bytes of the child's message */

enum {
	DAEMON_CHILD_ESTOPPED = -2, /* SIGTERM/SIGINT arrived; the child was killed */
	DAEMON_CHILD_ETIMEOUT = -3, /* the deadline passed; the child was killed */
};

struct daemon_child_wait {
	int sigfd;             /* the daemon's signalfd, -1 for none */
	struct daemon_signals *sig; /* where drained signals land */
	long timeout_s;        /* the deadline, in seconds from the start */
};

/* The step: 0 or -1, with its message (an error) in msg. Runs in the
 * child; whatever it changes in memory is lost, only files remain. */
typedef int (*daemon_child_fn)(void *arg, struct sbuf *msg);

/* Run fn(arg) in a child. 0 when it returned 0; -1 with its message in
 * err when it failed (or died); DAEMON_CHILD_ESTOPPED or DAEMON_CHILD_ETIMEOUT (err
 * set) when it was killed. The child's pid is logged nowhere: it lives
 * only as long as this call. */
int daemon_child_run(daemon_child_fn fn, void *arg, const struct daemon_child_wait *cw,
    struct err *err);

#endif
