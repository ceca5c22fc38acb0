/* agent/daemon/notify.c: sd_notify for systemd (daemon-int.h,
 * "notify.c"); the only file that includes libsystemd. */

#include "daemon-int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>
#include <time.h>

#define STATUS_MAX 256

static void
clean_line(char *s)
{
	for (; *s != '\0'; s++)
		if (*s == '\n' || *s == '\r')
			*s = ' ';
}

void
daemon_notify_ready(const char *status)
{
	char line[STATUS_MAX];

	snprintf(line, sizeof(line), "%s", status);
	clean_line(line);
	sd_notifyf(0, "READY=1\nSTATUS=%s", line);
}

static void vstatus(const char *fmt, va_list ap)
    __attribute__((format(printf, 1, 0)));

static void
vstatus(const char *fmt, va_list ap)
{
	char line[STATUS_MAX];
	char *s = NULL;

	/* vasprintf: see log.c on clang-analyzer and va_list parameters */
	if (vasprintf(&s, fmt, ap) < 0)
		return;
	snprintf(line, sizeof(line), "%s", s);
	free(s);
	clean_line(line);
	sd_notifyf(0, "STATUS=%s", line);
}

void
daemon_notify_status(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vstatus(fmt, ap);
	va_end(ap);
}

void
daemon_notify_reloading(void)
{
	struct timespec ts;
	unsigned long long usec;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	usec = (unsigned long long)ts.tv_sec * 1000000ull +
	       (unsigned long long)ts.tv_nsec / 1000ull;
	sd_notifyf(0, "RELOADING=1\nMONOTONIC_USEC=%llu", usec);
}

void
daemon_notify_stopping(void)
{
	sd_notify(0, "STOPPING=1");
}

uint64_t
daemon_notify_watchdog_usec(void)
{
	uint64_t usec = 0;

	if (sd_watchdog_enabled(0, &usec) <= 0)
		return 0;
	return usec;
}

void
daemon_notify_watchdog(void)
{
	if (daemon_notify_watchdog_usec() > 0)
		sd_notify(0, "WATCHDOG=1");
}
