/* agent/daemon/child.c: run a blocking step in a child process
 * with a deadline (daemon-int.h, "child.c"). */

#include "daemon-int.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../lib/clock.h"
#include "../../lib/xalloc.h"

static void
write_all(int fd, const char *p, size_t n)
{
	ssize_t r;

	while (n > 0) {
		r = write(fd, p, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return;
		p += r;
		n -= (size_t)r;
	}
}

/* The child: SIGTERM and SIGINT kill it again (the daemon blocks them for
 * its signalfd); run fn; one status byte, then the message. */
static void __attribute__((noreturn))
child_main(daemon_child_fn fn, void *arg, int fd)
{
	struct sbuf msg = {0};
	sigset_t set;
	char status;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	sbuf_init(&msg, DAEMON_CHILD_MSG_MAX);
	status = fn(arg, &msg) == 0 ? '0' : '1';
	write_all(fd, &status, 1);
	write_all(fd, msg.buf != NULL ? msg.buf : "", msg.len);
	_exit(0);
}

/* The run command turns this on: a step with an exec form re-executes the
 * binary rather than running in the fork (see daemon-int.h). */
static bool reexec;

void
daemon_child_use_exec(bool on)
{
	reexec = on;
}

/* The forked child of an exec step: the input on 0, the result pipe on
 * DAEMON_CHILD_RESULT_FD, then the binary again. Only async-signal-safe
 * calls between fork and exec: the web server's threads may have held
 * any lock (the allocator's, stdio's) at the fork. */
static void __attribute__((noreturn))
exec_child(int in, int out, char *const argv[])
{
	static const char fail[] = "1cannot re-execute /proc/self/exe";

	if (dup2(in, 0) < 0 || dup2(out, DAEMON_CHILD_RESULT_FD) < 0)
		_exit(127);
	fcntl(0, F_SETFD, 0);
	fcntl(DAEMON_CHILD_RESULT_FD, F_SETFD, 0);
	execv("/proc/self/exe", argv);
	if (write(DAEMON_CHILD_RESULT_FD, fail, sizeof(fail) - 1) < 0) {
		/* nobody to tell */
	}
	_exit(127);
}

/* The input of an exec step in an anonymous file the child reads as its
 * standard input; -1 (err set) when it cannot be made. */
static int
input_fd(const struct daemon_child_exec *ex, struct err *err)
{
	int fd = memfd_create("artemis-gitops-step", MFD_CLOEXEC);
	size_t off = 0;
	ssize_t r;

	if (fd < 0)
		return err_setf(err, NULL, "memfd_create: %s", strerror(errno));
	while (off < ex->len) {
		r = write(fd, ex->input + off, ex->len - off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			close(fd);
			return err_setf(err, NULL, "memfd: %s",
			    strerror(errno));
		}
		off += (size_t)r;
	}
	if (lseek(fd, 0, SEEK_SET) < 0) {
		close(fd);
		return err_setf(err, NULL, "memfd: %s", strerror(errno));
	}
	return fd;
}

void
daemon_child_step_begin(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

void
daemon_child_step_report(int rc, const struct sbuf *msg)
{
	char status = rc == 0 ? '0' : '1';

	write_all(DAEMON_CHILD_RESULT_FD, &status, 1);
	write_all(DAEMON_CHILD_RESULT_FD, msg->buf != NULL ? msg->buf : "",
	    msg->len);
}

/* Read what is there (non-blocking); true at end of file. */
static bool
drain_pipe(int fd, char *buf, size_t *len, size_t cap)
{
	char sink[512];
	ssize_t r;

	for (;;) {
		if (*len < cap)
			r = read(fd, buf + *len, cap - *len);
		else
			r = read(fd, sink, sizeof(sink));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return errno != EAGAIN;
		if (r == 0)
			return true;
		if (*len < cap)
			*len += (size_t)r;
	}
}

static void
kill_and_reap(pid_t pid)
{
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/* Wait for the child's pipe to close, a stop signal or the deadline. */
static int
wait_child(pid_t pid, int fd, const struct daemon_child_wait *cw, char *buf,
    size_t *len, struct err *err)
{
	int64_t deadline = clock_monotonic_ms() + 1000 * (int64_t)cw->timeout_s,
	        left;
	struct pollfd pfd[2];
	int wd = (int)(daemon_notify_watchdog_usec() / 2000), ms;

	for (;;) {
		daemon_notify_watchdog();
		left = deadline - clock_monotonic_ms();
		if (left <= 0) {
			kill_and_reap(pid);
			err_setf(err, NULL,
			    "no answer within %lds (repository.fetch-timeout), "
			    "stopped",
			    cw->timeout_s);
			return DAEMON_CHILD_ETIMEOUT;
		}
		ms = left > 1000 ? 1000 : (int)left;
		if (wd > 0 && wd < ms)
			ms = wd;
		pfd[0].fd = fd;
		pfd[0].events = POLLIN;
		pfd[1].fd = cw->sigfd;
		pfd[1].events = POLLIN;
		if (poll(pfd, cw->sigfd >= 0 ? 2 : 1, ms) < 0 &&
		    errno != EINTR) {
			err_setf(err, NULL, "poll: %s", strerror(errno));
			kill_and_reap(pid);
			return -1;
		}
		if (cw->sigfd >= 0 && cw->sig != NULL) {
			daemon_signal_drain(cw->sigfd, cw->sig);
			if (cw->sig->stop) {
				kill_and_reap(pid);
				err_setf(err, NULL, "stopped by signal %d",
				    cw->sig->last);
				return DAEMON_CHILD_ESTOPPED;
			}
		}
		if ((pfd[0].revents & (POLLIN | POLLHUP | POLLERR)) != 0 &&
		    drain_pipe(fd, buf, len, DAEMON_CHILD_MSG_MAX + 1))
			return 0;
	}
}

int
daemon_child_run(daemon_child_fn fn, void *arg,
    const struct daemon_child_exec *ex, const struct daemon_child_wait *cw,
    struct err *err)
{
	char *buf = NULL, *argv[4];
	size_t len = 0;
	int fds[2], r, status = 0, in = -1;
	pid_t pid;

	if (ex != NULL && reexec && (in = input_fd(ex, err)) < 0)
		return -1;
	argv[0] = (char *)(uintptr_t) "artemis-gitops";
	argv[1] = (char *)(uintptr_t)DAEMON_CHILD_ARGV1;
	argv[2] = ex != NULL ? (char *)(uintptr_t)ex->step : NULL;
	argv[3] = NULL;
	if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) < 0) {
		r = err_setf(err, NULL, "pipe: %s", strerror(errno));
		if (in >= 0)
			close(in);
		return r;
	}
	pid = fork();
	if (pid < 0) {
		r = err_setf(err, NULL, "fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		if (in >= 0)
			close(in);
		return r;
	}
	if (pid == 0) {
		if (in >= 0)
			exec_child(in, fds[1], argv);
		close(fds[0]);
		child_main(fn, arg, fds[1]);
	}
	if (in >= 0)
		close(in);
	close(fds[1]);
	buf = xcalloc(1, DAEMON_CHILD_MSG_MAX + 2);
	r = wait_child(pid, fds[0], cw, buf, &len, err);
	close(fds[0]);
	if (r == 0) {
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		buf[len] = '\0';
		if (len > 0 && buf[0] == '0')
			r = 0;
		else if (len > 0)
			r = err_setf(err, NULL, "%s", buf + 1);
		else if (WIFSIGNALED(status))
			r = err_setf(err, NULL,
			    "the fetch process died (signal %d)",
			    WTERMSIG(status));
		else
			r = err_setf(err, NULL,
			    "the fetch process exited %d without a result",
			    WEXITSTATUS(status));
	}
	free(buf);
	return r;
}
