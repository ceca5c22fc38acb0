/* agent/signal.h: the daemon's signals, delivered through a signalfd so
 * that poll() wakes up for them and nothing runs in a handler
 * (style.md 2.9). daemon_signal_open blocks SIGHUP, SIGTERM, SIGINT and SIGUSR1 for
 * the process; daemon_signal_drain turns pending signals into flags that the loop
 * checks between steps. */
#ifndef AGENT_SIGNAL_H
#define AGENT_SIGNAL_H

#include <stdbool.h>

#include "../../lib/err.h"

struct daemon_signals {
	bool reload; /* SIGHUP */
	bool stop;   /* SIGTERM or SIGINT */
	bool cycle;  /* SIGUSR1 */
	int last;    /* number of the last signal read, 0 if none */
};

/* Block the signals and open a non-blocking signalfd; *fd_out owns it. */
int daemon_signal_open(int *fd_out, struct err *err);
/* Read every pending signal from fd into f (flags are only ever set).
 * Returns the number of signals read. */
int daemon_signal_drain(int fd, struct daemon_signals *f);
/* Close fd and unblock the signals (for tests and before exec). */
void daemon_signal_close(int fd);

#endif
