/* tests/unit/test-window.c: agent/window.c: cron schedules, time zones
 * and sync windows, with the clock injected: window edges to the second,
 * Europe/Berlin's spring-forward and fall-back, America/New_York. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../agent/window.h"
#include "../../lib/xalloc.h"

/* "2026-03-29T01:00:00Z" as seconds since the epoch. */
static int64_t
at(const char *s)
{
	struct tm tm;
	char *end;

	memset(&tm, 0, sizeof(tm));
	end = strptime(s, "%Y-%m-%dT%H:%M:%SZ", &tm);
	assert_non_null(end);
	assert_int_equal(*end, '\0');
	return (int64_t)timegm(&tm);
}

static void
win(struct agent_window *w, enum agent_window_kind kind, const char *sched,
    long duration, const char *zone)
{
	struct err err = {0};
	size_t off = 0;

	memset(w, 0, sizeof(*w));
	w->kind = kind;
	w->schedule = xstrdup(sched);
	w->duration = duration;
	w->zone = xstrdup(zone);
	if (agent_cron_parse(&w->cron, sched, &off, &err) < 0)
		fail_msg("%s: %s", sched, err.msg);
}

static void
add(struct agent_windows *ws, enum agent_window_kind kind, const char *sched,
    long duration, const char *zone)
{
	ws->v = xreallocarray(ws->v, ws->n + 1, sizeof(*ws->v));
	win(&ws->v[ws->n++], kind, sched, duration, zone);
}

/* The verdict at now, as "open" or the until time in UTC. */
static char *
verdict(const struct agent_windows *ws, const char *cluster, const char *now)
{
	struct agent_window_verdict v;

	agent_window_eval(ws, cluster, at(now), &v);
	if (v.open)
		return xstrdup("open");
	if (v.until < 0)
		return xstrdup("never");
	return agent_window_utc(v.until);
}

#define T_VERDICT(ws, cluster, now, expect)                                    \
	do {                                                                   \
		char *got_ = verdict((ws), (cluster), (now));                  \
		assert_string_equal(got_, (expect));                           \
		free(got_);                                                    \
	} while (0)

static void
cron_bad(const char *s, size_t want_at, const char *want)
{
	struct agent_cron c;
	struct err err = {0};
	size_t off = 99;

	assert_int_equal(agent_cron_parse(&c, s, &off, &err), -1);
	assert_int_equal(off, want_at);
	if (strstr(err.msg, want) == NULL)
		fail_msg("'%s': got '%s', want '%s'", s, err.msg, want);
	err_release(&err);
}

static void
test_window__cron_fields(void **state)
{
	struct agent_cron c;
	struct err err = {0};
	size_t off = 0;

	(void)state;
	assert_int_equal(
	    agent_cron_parse(&c, "*/15 9-17 * * mon-fri", &off, &err), 0);
	assert_true(c.minute ==
	            ((1ull << 0) | (1ull << 15) | (1ull << 30) | (1ull << 45)));
	assert_int_equal(c.hour, 0x3fe00); /* 9..17 */
	assert_int_equal(c.dow, 0x3e);     /* 1..5 */
	assert_int_equal(c.month, 0x1ffe); /* 1..12 */
	assert_true(c.dom_star);
	assert_false(c.dow_star);
	assert_int_equal(
	    agent_cron_parse(&c, "0 0 1,15 JAN,jul-sep/2 7", &off, &err), 0);
	assert_int_equal(c.dom, (1u << 1) | (1u << 15));
	assert_int_equal(c.month, (1u << 1) | (1u << 7) | (1u << 9));
	assert_int_equal(c.dow, 1); /* 7 is Sunday, 0 */
	assert_int_equal(agent_cron_parse(&c, "5-10/5 0 * * *", &off, &err), 0);
	assert_true(c.minute == ((1ull << 5) | (1ull << 10)));
	/* both days restricted: either one matches (cron's rule) */
	assert_int_equal(agent_cron_parse(&c, "0 0 1 * mon", &off, &err), 0);
	assert_true(agent_cron_match(&c, 0, 0, 1, 4, 3));  /* the 1st, Wed */
	assert_true(agent_cron_match(&c, 0, 0, 6, 4, 1));  /* a Monday */
	assert_false(agent_cron_match(&c, 0, 0, 7, 4, 2)); /* neither */
	assert_false(agent_cron_match(&c, 1, 0, 1, 4, 3)); /* minute */
	cron_bad("0 22 * *", 8, "five fields");
	cron_bad("0 22 * * * *", 11, "has more");
	cron_bad("60 * * * *", 0, "minute: '60' is not a value from 0 to 59");
	cron_bad("0 24 * * *", 2, "hour: '24'");
	cron_bad("0 0 0 * *", 4, "day of month: '0'");
	cron_bad("0 0 * 13 *", 6,
	    "month: '13' is not a value from 1 to 12 or "
	    "jan..dec");
	cron_bad("0 0 * * fri-mon", 8,
	    "day of week: the range 'fri-mon' runs "
	    "backwards");
	cron_bad("*/0 * * * *", 0, "minute: step '/0' must be 1 to 59");
	cron_bad("1,,2 * * * *", 0, "minute: '1,,2'");
	cron_bad("0 0 * * funday", 8, "day of week");
}

static void
test_window__zone_ok(void **state)
{
	(void)state;
	assert_true(agent_window_zone_ok("Europe/Berlin"));
	assert_true(agent_window_zone_ok("America/New_York"));
	assert_true(agent_window_zone_ok("UTC"));
	assert_false(agent_window_zone_ok("Europe/Nowhere"));
	assert_false(agent_window_zone_ok("Europe")); /* a folder */
	assert_false(agent_window_zone_ok("../../etc/passwd"));
	assert_false(agent_window_zone_ok("/etc/localtime"));
	assert_false(agent_window_zone_ok(""));
	assert_false(agent_window_zone_ok("Europe/Berlin\n"));
}

/* An allow window opens at the second its schedule names and closes
 * exactly duration seconds later. */
static void
test_window__edges(void **state)
{
	struct agent_windows ws = {0};
	struct agent_window_verdict v;
	char *text;

	(void)state;
	add(&ws, AGENT_WINDOW_ALLOW, "0 22 * * *", 2 * 3600, "UTC");
	T_VERDICT(&ws, "shop", "2026-12-02T21:59:59Z", "2026-12-02T22:00:00Z");
	T_VERDICT(&ws, "shop", "2026-12-02T22:00:00Z", "open");
	T_VERDICT(&ws, "shop", "2026-12-02T23:59:59Z", "open");
	T_VERDICT(&ws, "shop", "2026-12-03T00:00:00Z", "2026-12-03T22:00:00Z");
	agent_window_eval(&ws, "shop", at("2026-12-02T21:59:59Z"), &v);
	text = agent_window_text(&v);
	assert_string_equal(text, "waiting for sync window until "
	                          "2026-12-02T22:00:00Z: outside every allow "
	                          "window");
	free(text);
	agent_windows_release(&ws);
	/* no window: always open */
	T_VERDICT(&ws, "shop", "2026-12-02T21:59:59Z", "open");
}

/* Deny wins over allow; the wait ends when the deny window ends inside
 * an allow window, or at the next allow window after it. */
static void
test_window__deny_wins(void **state)
{
	struct agent_windows ws = {0};
	struct agent_window_verdict v;
	char *text;

	(void)state;
	add(&ws, AGENT_WINDOW_ALLOW, "0 8 * * *", 10 * 3600, "UTC");
	add(&ws, AGENT_WINDOW_DENY, "0 12 * * *", 3600, "UTC");
	T_VERDICT(&ws, "shop", "2026-12-02T11:59:59Z", "open");
	T_VERDICT(&ws, "shop", "2026-12-02T12:00:00Z", "2026-12-02T13:00:00Z");
	T_VERDICT(&ws, "shop", "2026-12-02T12:59:59Z", "2026-12-02T13:00:00Z");
	T_VERDICT(&ws, "shop", "2026-12-02T13:00:00Z", "open");
	T_VERDICT(&ws, "shop", "2026-12-02T18:00:00Z", "2026-12-03T08:00:00Z");
	agent_window_eval(&ws, "shop", at("2026-12-02T12:30:00Z"), &v);
	text = agent_window_text(&v);
	assert_string_equal(text, "waiting for sync window until "
	                          "2026-12-02T13:00:00Z: deny window "
	                          "'0 12 * * *' (UTC) in force");
	free(text);
	agent_windows_release(&ws);
	/* a deny window ending after the allow window closes: the next one */
	add(&ws, AGENT_WINDOW_ALLOW, "0 8 * * *", 10 * 3600, "UTC");
	add(&ws, AGENT_WINDOW_DENY, "0 17 * * *", 2 * 3600, "UTC");
	T_VERDICT(&ws, "shop", "2026-12-02T17:30:00Z", "2026-12-03T08:00:00Z");
	agent_windows_release(&ws);
	/* deny only: open outside it; the weekend (48 h from Saturday) */
	add(&ws, AGENT_WINDOW_DENY, "0 0 * * sat", 48 * 3600, "UTC");
	T_VERDICT(&ws, "shop", "2026-12-04T23:59:59Z", "open"); /* Friday */
	T_VERDICT(&ws, "shop", "2026-12-05T00:00:00Z", "2026-12-07T00:00:00Z");
	T_VERDICT(&ws, "shop", "2026-12-07T00:00:00Z", "open");
	agent_windows_release(&ws);
	/* overlapping deny openings: the wait lasts until the last ends */
	add(&ws, AGENT_WINDOW_DENY, "0,30 * * * *", 45 * 60, "UTC");
	T_VERDICT(&ws, "shop", "2026-12-02T10:10:00Z", "never");
	agent_windows_release(&ws);
}

/* A window for some clusters leaves the others alone. */
static void
test_window__per_cluster(void **state)
{
	struct agent_windows ws = {0};

	(void)state;
	add(&ws, AGENT_WINDOW_ALLOW, "0 22 * * *", 3600, "UTC");
	strv_add(&ws.v[0].clusters, "shop-eu");
	T_VERDICT(&ws, "shop-eu", "2026-12-02T12:00:00Z",
	    "2026-12-02T22:00:00Z");
	T_VERDICT(&ws, "shop-us", "2026-12-02T12:00:00Z", "open");
	agent_windows_release(&ws);
}

/* Europe/Berlin, 2026-03-29: at 01:00Z the clock goes from 02:00 CET to
 * 03:00 CEST. 02:30 does not exist that day: a window at 02:30 does not
 * open; one at 03:00 opens at 01:00Z; a duration is elapsed time. */
static void
test_window__berlin_spring_forward(void **state)
{
	struct agent_window w;
	int64_t end = 0;

	(void)state;
	win(&w, AGENT_WINDOW_ALLOW, "30 2 * * *", 3600, "Europe/Berlin");
	assert_int_equal(
	    agent_window_next_start(&w, at("2026-03-28T12:00:00Z")),
	    at("2026-03-30T00:30:00Z")); /* not the 29th */
	assert_int_equal(
	    agent_window_next_start(&w, at("2026-03-27T12:00:00Z")),
	    at("2026-03-28T01:30:00Z")); /* CET, the day before */
	free(w.schedule);
	free(w.zone);
	win(&w, AGENT_WINDOW_ALLOW, "0 3 * * *", 3600, "Europe/Berlin");
	assert_int_equal(
	    agent_window_next_start(&w, at("2026-03-28T12:00:00Z")),
	    at("2026-03-29T01:00:00Z"));
	free(w.schedule);
	free(w.zone);
	/* 01:00 CET + 2 h elapsed = 04:00 CEST = 02:00Z */
	win(&w, AGENT_WINDOW_ALLOW, "0 1 * * *", 2 * 3600, "Europe/Berlin");
	assert_false(agent_window_active(&w, at("2026-03-28T23:59:59Z"), &end));
	assert_true(agent_window_active(&w, at("2026-03-29T00:00:00Z"), &end));
	assert_int_equal(end, at("2026-03-29T02:00:00Z"));
	assert_true(agent_window_active(&w, at("2026-03-29T01:59:59Z"), &end));
	assert_false(agent_window_active(&w, at("2026-03-29T02:00:00Z"), &end));
	/* the next day it opens at 01:00 CEST, an hour earlier in UTC */
	assert_int_equal(
	    agent_window_next_start(&w, at("2026-03-29T02:00:00Z")),
	    at("2026-03-29T23:00:00Z"));
	free(w.schedule);
	free(w.zone);
}

/* Europe/Berlin, 2026-10-25: at 01:00Z the clock goes from 03:00 CEST
 * back to 02:00 CET. 02:30 occurs twice, 00:30Z and 01:30Z: the window
 * opens at both. */
static void
test_window__berlin_fall_back(void **state)
{
	struct agent_windows ws = {0};
	int64_t end = 0;

	(void)state;
	add(&ws, AGENT_WINDOW_ALLOW, "30 2 * * *", 30 * 60, "Europe/Berlin");
	assert_int_equal(
	    agent_window_next_start(&ws.v[0], at("2026-10-24T12:00:00Z")),
	    at("2026-10-25T00:30:00Z"));
	assert_true(
	    agent_window_active(&ws.v[0], at("2026-10-25T00:59:59Z"), &end));
	assert_int_equal(end, at("2026-10-25T01:00:00Z"));
	T_VERDICT(&ws, "shop", "2026-10-25T01:00:00Z", "2026-10-25T01:30:00Z");
	T_VERDICT(&ws, "shop", "2026-10-25T01:30:00Z", "open");
	T_VERDICT(&ws, "shop", "2026-10-25T02:00:00Z", "2026-10-26T01:30:00Z");
	agent_windows_release(&ws);
	/* a deny window at 02:00 for 3 h: the first 02:00 (CEST, 00:00Z)
	 * denies until 03:00Z, the second (CET, 01:00Z) until 04:00Z */
	add(&ws, AGENT_WINDOW_DENY, "0 2 * * *", 3 * 3600, "Europe/Berlin");
	T_VERDICT(&ws, "shop", "2026-10-25T00:00:00Z", "2026-10-25T04:00:00Z");
	T_VERDICT(&ws, "shop", "2026-10-25T02:30:00Z", "2026-10-25T04:00:00Z");
	agent_windows_release(&ws);
}

/* America/New_York: weekday mornings, EST then EDT (2026-03-08). */
static void
test_window__new_york(void **state)
{
	struct agent_windows ws = {0};
	struct agent_window_verdict v;
	char *text;

	(void)state;
	add(&ws, AGENT_WINDOW_ALLOW, "0 9 * * mon-fri", 8 * 3600,
	    "America/New_York");
	/* Friday 2026-03-06, EST: 09:00 is 14:00Z */
	T_VERDICT(&ws, "shop", "2026-03-06T13:59:59Z", "2026-03-06T14:00:00Z");
	T_VERDICT(&ws, "shop", "2026-03-06T14:00:00Z", "open");
	T_VERDICT(&ws, "shop", "2026-03-06T21:59:59Z", "open");
	/* the weekend, then Monday 2026-03-09 in EDT: 13:00Z */
	T_VERDICT(&ws, "shop", "2026-03-06T22:00:00Z", "2026-03-09T13:00:00Z");
	agent_window_eval(&ws, "shop", at("2026-03-07T12:00:00Z"), &v);
	text = agent_window_text(&v);
	assert_string_equal(text, "waiting for sync window until "
	                          "2026-03-09T13:00:00Z (2026-03-09 09:00 EDT "
	                          "in America/New_York): outside every allow "
	                          "window");
	free(text);
	/* the fall-back, 2026-11-01 (Sunday): Monday 09:00 EST is 14:00Z */
	T_VERDICT(&ws, "shop", "2026-10-30T20:59:59Z", "open"); /* EDT */
	T_VERDICT(&ws, "shop", "2026-10-30T21:00:00Z", "2026-11-02T14:00:00Z");
	T_VERDICT(&ws, "shop", "2026-10-31T12:00:00Z", "2026-11-02T14:00:00Z");
	agent_windows_release(&ws);
	/* the process's own TZ is left as it was */
	assert_null(getenv("TZ"));
}

/* agent/window.h: once pinned (main() does it before any thread), TZ is
 * present for good: a conversion replaces its value and puts it back,
 * never removes it, so no thread's getenv walks an array that moves. A
 * TZ set before is kept as it is. */
static void
test_window__tz_pinned(void **state)
{
	struct agent_windows ws = {0};

	(void)state;
	unsetenv("TZ");
	agent_window_tz_pin();
	assert_string_equal(getenv("TZ"), ":/etc/localtime");
	agent_window_tz_pin();
	assert_string_equal(getenv("TZ"), ":/etc/localtime");
	add(&ws, AGENT_WINDOW_ALLOW, "0 22 * * *", 7200, "Europe/Berlin");
	T_VERDICT(&ws, "shop", "2026-12-02T21:00:00Z", "open"); /* 22:00 CET */
	T_VERDICT(&ws, "shop", "2026-12-02T20:59:59Z", "2026-12-02T21:00:00Z");
	assert_string_equal(getenv("TZ"), ":/etc/localtime");
	agent_windows_release(&ws);
	memset(&ws, 0, sizeof(ws));
	setenv("TZ", "UTC0", 1);
	agent_window_tz_pin();
	assert_string_equal(getenv("TZ"), "UTC0");
	add(&ws, AGENT_WINDOW_DENY, "0 * * * *", 60, "Asia/Tokyo");
	T_VERDICT(&ws, "shop", "2026-12-02T21:00:00Z", "2026-12-02T21:01:00Z");
	assert_string_equal(getenv("TZ"), "UTC0");
	agent_windows_release(&ws);
	unsetenv("TZ");
}

/* A yearly window (29 February) is found years ahead; none within the
 * horizon is -1. */
static void
test_window__far(void **state)
{
	struct agent_window w;

	(void)state;
	win(&w, AGENT_WINDOW_ALLOW, "0 0 29 2 *", 3600, "UTC");
	assert_int_equal(
	    agent_window_next_start(&w, at("2026-12-02T00:00:00Z")),
	    at("2028-02-29T00:00:00Z"));
	free(w.schedule);
	free(w.zone);
	win(&w, AGENT_WINDOW_ALLOW, "0 0 31 2 *", 3600, "UTC");
	assert_int_equal(
	    agent_window_next_start(&w, at("2026-12-02T00:00:00Z")), -1);
	free(w.schedule);
	free(w.zone);
}

/* The test clock: the file's time, or an error naming it. */
static void
test_window__clock_file(void **state)
{
	char path[] = "/tmp/test-window-XXXXXX";
	struct err err = {0};
	int64_t now = 0;
	int fd;

	(void)state;
	unsetenv(AGENT_WINDOW_CLOCK_ENV);
	assert_int_equal(agent_window_now(&now, &err), 0);
	assert_true(now > at("2026-01-01T00:00:00Z"));
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "2026-03-29T01:00:00Z\n", 21), 21);
	close(fd);
	setenv(AGENT_WINDOW_CLOCK_ENV, path, 1);
	assert_int_equal(agent_window_now(&now, &err), 0);
	assert_int_equal(now, at("2026-03-29T01:00:00Z"));
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_int_equal(write(fd, "tomorrow\n", 9), 9);
	close(fd);
	assert_int_equal(agent_window_now(&now, &err), -1);
	assert_non_null(strstr(err.msg, "expected an RFC 3339 UTC time"));
	err_release(&err);
	unsetenv(AGENT_WINDOW_CLOCK_ENV);
	unlink(path);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_window__cron_fields),
	    cmocka_unit_test(test_window__zone_ok),
	    cmocka_unit_test(test_window__edges),
	    cmocka_unit_test(test_window__deny_wins),
	    cmocka_unit_test(test_window__per_cluster),
	    cmocka_unit_test(test_window__berlin_spring_forward),
	    cmocka_unit_test(test_window__berlin_fall_back),
	    cmocka_unit_test(test_window__new_york),
	    cmocka_unit_test(test_window__far),
	    cmocka_unit_test(test_window__clock_file),
	    cmocka_unit_test(test_window__tz_pinned),
	};

	unsetenv("TZ");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
