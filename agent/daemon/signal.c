/* agent/daemon/signal.c: signals through a signalfd (daemon-int.h,
 * "signal.c"). */

#include "daemon-int.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

static void
sig_set(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGUSR1);
}

int
daemon_signal_open(int *fd_out, struct err *err)
{
	sigset_t set;
	int fd;

	sig_set(&set);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return err_setf(err, NULL, "sigprocmask: %s", strerror(errno));
	fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (fd < 0)
		return err_setf(err, NULL, "signalfd: %s", strerror(errno));
	*fd_out = fd;
	return 0;
}

int
daemon_signal_drain(int fd, struct daemon_signals *f)
{
	struct signalfd_siginfo si;
	ssize_t r;
	int n = 0;

	for (;;) {
		r = read(fd, &si, sizeof(si));
		if (r != (ssize_t)sizeof(si))
			break;
		n++;
		f->last = (int)si.ssi_signo;
		if (si.ssi_signo == SIGHUP)
			f->reload = true;
		else if (si.ssi_signo == SIGTERM || si.ssi_signo == SIGINT)
			f->stop = true;
		else if (si.ssi_signo == SIGUSR1)
			f->cycle = true;
	}
	return n;
}

void
daemon_signal_close(int fd)
{
	sigset_t set;

	if (fd >= 0)
		close(fd);
	sig_set(&set);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}
