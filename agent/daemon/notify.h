/* agent/notify.h: tell systemd how the daemon is doing (sd_notify(3)).
 *
 * Every call is a no-op when $NOTIFY_SOCKET is unset (not started by
 * systemd with Type=notify), so the daemon runs the same in a terminal.
 * Failures to notify are ignored: systemd's own services do the same.
 */
#ifndef AGENT_NOTIFY_H
#define AGENT_NOTIFY_H

#include <stdint.h>

/* READY=1 with a STATUS= line. */
void daemon_notify_ready(const char *status);
/* STATUS=<formatted>; newlines are replaced by spaces. */
void daemon_notify_status(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* RELOADING=1 and MONOTONIC_USEC=<now>; send daemon_notify_ready when done. */
void daemon_notify_reloading(void);
/* STOPPING=1. */
void daemon_notify_stopping(void);
/* The watchdog interval in microseconds when systemd expects WATCHDOG=1
 * pings (WatchdogSec= for this process), else 0. */
uint64_t daemon_notify_watchdog_usec(void);
/* WATCHDOG=1 when the watchdog is enabled. */
void daemon_notify_watchdog(void);

#endif
