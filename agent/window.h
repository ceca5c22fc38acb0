/* agent/window.h: sync windows (docs/policy.md "Sync windows"): cron
 * schedules read in an IANA time zone of the system's tz database, and
 * whether a cluster may be changed at a given instant.
 *
 * Pure but for the time zone conversion: "now" is always a parameter
 * (agent_window_now reads it, and a test clock can stand in), so every
 * edge and DST change is testable. Local times come from the C library:
 * localtime_r with TZ set to the window's zone (":Europe/Berlin", read
 * from /usr/share/zoneinfo by glibc). TZ is process-wide, so every
 * conversion holds one mutex, sets TZ and calls tzset, converts, and
 * puts TZ back before unlocking (window.c, zone_begin/zone_end). Another
 * thread's localtime_r during those microseconds would see the window's
 * zone: the agent's only other local-time user is the terminal log's
 * HH:MM:SS prefix (agent/log.c), which may then show that zone once.
 * Nothing else in the process reads local time. Other threads do read
 * the environment (libcurl looks up proxy variables on every request of
 * the webhook and web threads): main() calls agent_window_tz_pin before
 * any thread starts, so that TZ is always present and a conversion only
 * replaces its value, which glibc's setenv does by swapping one pointer
 * of environ in place (the old string is kept), never by moving the
 * array a concurrent getenv may be walking; zone_end never unsets it.
 *
 * Semantics (docs/policy.md): a window opens at every instant whose local
 * wall-clock minute (in its zone) matches its schedule, and stays open for
 * its duration in elapsed seconds. A local time that a spring-forward
 * skips never occurs, so it opens nothing; one that a fall-back repeats
 * occurs twice, and opens the window twice. A deny window in force closes;
 * with allow windows for the cluster, outside all of them closes; no
 * window at all is always open.
 */
#ifndef AGENT_WINDOW_H
#define AGENT_WINDOW_H

#include <stdbool.h>
#include <stdint.h>

#include "../lib/err.h"
#include "../lib/strv.h"

#define AGENT_WINDOW_ZONEINFO "/usr/share/zoneinfo"
/* For tests only (docs/policy.md): a file holding an RFC 3339 UTC time
 * that agent_window_now returns instead of the real time. */
#define AGENT_WINDOW_CLOCK_ENV    "ARTEMIS_GITOPS_WINDOW_CLOCK_FILE"
#define AGENT_WINDOW_DURATION_MAX (31L * 86400)      /* seconds */
#define AGENT_WINDOW_HORIZON      (5L * 366 * 86400) /* next opening */

/* A five-field cron schedule: minute hour day-of-month month day-of-week,
 * each field `*`, a value, a range `a-b`, a step `*` or `a-b` `/n`, or a
 * comma list of those; month and weekday also by name (jan, mon). */
struct agent_cron {
	uint64_t minute;         /* bit m: minute m (0-59) */
	uint32_t hour;           /* bit h (0-23) */
	uint32_t dom;            /* bit d (1-31) */
	uint16_t month;          /* bit m (1-12) */
	uint8_t dow;             /* bit d (0-6, Sunday 0; 7 is read as 0) */
	bool dom_star, dow_star; /* the field starts with '*' (cron's rule:
	                            both restricted, either one matches) */
};

/* Parse s into *out. -1 with err naming the field and why; *at is then
 * the byte offset in s where the bad field starts (for a column). */
int agent_cron_parse(struct agent_cron *out, const char *s, size_t *at,
    struct err *err);
/* Does the local time tm (tm_min, tm_hour, tm_mday, tm_mon, tm_wday)
 * match c? */
bool agent_cron_match(const struct agent_cron *c, int min, int hour, int mday,
    int mon1, int wday);

/* Once, at the start of the process and before any thread: make TZ
 * present in the environment (":/etc/localtime", what the C library reads
 * when it is unset, unless it is set already), so that the conversions
 * never add or remove it while other threads read the environment. */
void agent_window_tz_pin(void);

/* Is zone an IANA name of the system's tz database: a relative path
 * below AGENT_WINDOW_ZONEINFO without "..", naming a TZif file? */
bool agent_window_zone_ok(const char *zone);

enum agent_window_kind {
	AGENT_WINDOW_ALLOW = 0,
	AGENT_WINDOW_DENY,
};

struct agent_window {
	enum agent_window_kind kind;
	char *schedule; /* as written */
	struct agent_cron cron;
	long duration;        /* seconds, 1..AGENT_WINDOW_DURATION_MAX */
	char *zone;           /* IANA name */
	struct strv clusters; /* empty: every cluster */
	unsigned line, col;   /* where, in the configuration file */
};

struct agent_windows {
	struct agent_window *v;
	size_t n;
};

void agent_windows_release(struct agent_windows *w);

/* The earliest opening of w at or after t (a whole minute), or -1 when
 * none within AGENT_WINDOW_HORIZON. */
int64_t agent_window_next_start(const struct agent_window *w, int64_t t);
/* When w is open at t: true, and *end is when its opening closes (the
 * latest opening at or before t, plus the duration). */
bool agent_window_active(const struct agent_window *w, int64_t t, int64_t *end);

struct agent_window_verdict {
	bool open;
	bool any;      /* some window applies to the cluster */
	int64_t until; /* closed: the next instant it is open; -1: none
	                  within the horizon */
	/* closed: the deny window in force at that instant, or NULL (outside
	 * every allow window); borrowed from the windows evaluated */
	const struct agent_window *deny;
	/* closed: the window whose edge ends the wait (the zone `until` is
	 * shown in), or NULL */
	const struct agent_window *edge;
};

/* May cluster be changed at now (seconds since the epoch)? */
void agent_window_eval(const struct agent_windows *w, const char *cluster,
    int64_t now, struct agent_window_verdict *out);
/* A closed verdict for people: "waiting for sync window until
 * 2026-12-02T21:00:00Z (22:00 CET in Europe/Berlin): outside every allow
 * window". Owned. */
char *agent_window_text(const struct agent_window_verdict *v);

/* The time sync windows are evaluated at: time(), or, when
 * AGENT_WINDOW_CLOCK_ENV names a file, the RFC 3339 UTC time in it (for
 * tests; the daemon warns at start when it is set). -1 with err when that
 * file cannot be read or parsed. */
int agent_window_now(int64_t *out, struct err *err);
/* "2026-12-02T21:00:00Z"; owned. */
char *agent_window_utc(int64_t t);

#endif
