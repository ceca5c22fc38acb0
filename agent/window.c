/* agent/window.c: see window.h. */
#include "window.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../lib/afile.h"
#include "../lib/xalloc.h"

#define CLOCK_FILE_MAX ((size_t)256)

/* ---- cron ------------------------------------------------------------ */

struct field {
	const char *name; /* for messages */
	int lo, hi;
	const char *const *names; /* NULL, or names for lo.. */
};

static const char *const month_names[] = {"jan", "feb", "mar", "apr", "may",
    "jun", "jul", "aug", "sep", "oct", "nov", "dec", NULL};
static const char *const dow_names[] = {"sun", "mon", "tue", "wed", "thu",
    "fri", "sat", NULL};

static const struct field fields[5] = {
    {"minute", 0, 59, NULL},
    {"hour", 0, 23, NULL},
    {"day of month", 1, 31, NULL},
    {"month", 1, 12, month_names},
    /* 7 is Sunday too, as in cron */
    {"day of week", 0, 7, dow_names},
};

/* One value of field f at *p: a number or (month, weekday) a name. */
static int
parse_value(const struct field *f, const char **p, int *out)
{
	const char *s = *p;
	long v;
	char *end;
	size_t i;

	if (f->names != NULL) {
		for (i = 0; f->names[i] != NULL; i++) {
			if (strncasecmp(s, f->names[i], 3) == 0) {
				*out = f->lo + (int)i;
				*p = s + 3;
				return 0;
			}
		}
	}
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || v < f->lo || v > f->hi)
		return -1;
	*out = (int)v;
	*p = end;
	return 0;
}

/* One field (its text is [s, e)) into a bit set. */
static int
parse_field(const struct field *f, const char *s, const char *e, uint64_t *bits,
    bool *star, struct err *err)
{
	const char *p = s;
	int a, b, step, v;
	char *end;
	long n;

	*bits = 0;
	*star = *s == '*';
	for (;;) {
		step = 1;
		if (*p == '*') {
			a = f->lo;
			b = f->hi;
			p++;
		} else {
			if (parse_value(f, &p, &a) < 0)
				goto bad;
			b = a;
			if (*p == '-') {
				p++;
				if (parse_value(f, &p, &b) < 0)
					goto bad;
				if (b < a)
					return err_setf(err, NULL,
					    "%s: the range '%.*s' runs backwards",
					    f->name, (int)(e - s), s);
			}
		}
		if (*p == '/') {
			p++;
			if (*p < '0' || *p > '9')
				goto bad;
			errno = 0;
			n = strtol(p, &end, 10);
			if (errno != 0 || n < 1 || n > f->hi)
				return err_setf(err, NULL,
				    "%s: step '/%.*s' must be 1 to %d", f->name,
				    (int)(end - p), p, f->hi);
			step = (int)n;
			p = end;
		}
		for (v = a; v <= b; v += step)
			*bits |=
			    (uint64_t)1
			    << (f->lo == 0 && f->hi == 7 && v == 7 ? 0 : v);
		if (p == e)
			return 0;
		if (*p != ',')
			goto bad;
		p++;
	}
bad:
	return err_setf(err, NULL,
	    "%s: '%.*s' is not a value from %d to %d%s, a range, a step or a "
	    "list of them",
	    f->name, (int)(e - s), s, f->lo, f->hi,
	    f->names == month_names ? " or jan..dec"
	    : f->names == dow_names ? " or sun..sat"
	                            : "");
}

int
agent_cron_parse(struct agent_cron *out, const char *s, size_t *at,
    struct err *err)
{
	struct agent_cron c;
	const char *p = s, *e;
	uint64_t bits[5];
	bool star[5];
	int i;

	memset(&c, 0, sizeof(c));
	for (i = 0; i < 5; i++) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0') {
			*at = (size_t)(p - s);
			return err_setf(err, NULL,
			    "a schedule has five fields (minute hour "
			    "day-of-month month day-of-week), '%s' has %d",
			    s, i);
		}
		e = p + strcspn(p, " \t");
		if (parse_field(&fields[i], p, e, &bits[i], &star[i], err) <
		    0) {
			*at = (size_t)(p - s);
			return -1;
		}
		p = e;
	}
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p != '\0') {
		*at = (size_t)(p - s);
		return err_setf(err, NULL,
		    "a schedule has five fields (minute hour day-of-month "
		    "month day-of-week): '%s' has more",
		    s);
	}
	c.minute = bits[0];
	c.hour = (uint32_t)bits[1];
	c.dom = (uint32_t)bits[2];
	c.month = (uint16_t)bits[3];
	c.dow = (uint8_t)bits[4];
	c.dom_star = star[2];
	c.dow_star = star[4];
	*out = c;
	return 0;
}

bool
agent_cron_match(const struct agent_cron *c, int min, int hour, int mday,
    int mon1, int wday)
{
	bool d, w;

	if (!(c->minute >> min & 1) || !(c->hour >> hour & 1) ||
	    !(c->month >> mon1 & 1))
		return false;
	d = c->dom >> mday & 1;
	w = c->dow >> wday & 1;
	if (c->dom_star || c->dow_star)
		return d && w;
	return d || w; /* both restricted: either one (cron's rule) */
}

/* ---- time zones ------------------------------------------------------ */

static pthread_mutex_t zone_mu = PTHREAD_MUTEX_INITIALIZER;
static char *zone_saved; /* TZ before zone_begin, or NULL */
static bool zone_had;    /* TZ was set */

/* Take the zone lock and make zone the C library's local time zone. */
static void
zone_begin(const char *zone)
{
	const char *old;
	char *tz = xasprintf(":%s", zone);

	pthread_mutex_lock(&zone_mu);
	old = getenv("TZ");
	zone_had = old != NULL;
	zone_saved = old != NULL ? xstrdup(old) : NULL;
	setenv("TZ", tz, 1);
	tzset();
	free(tz);
}

/* Put TZ back and release the lock. */
static void
zone_end(void)
{
	if (zone_had)
		setenv("TZ", zone_saved, 1);
	else /* not pinned (a test): no other thread runs */
		unsetenv("TZ");
	tzset();
	free(zone_saved);
	zone_saved = NULL;
	pthread_mutex_unlock(&zone_mu);
}

void
agent_window_tz_pin(void)
{
	/* what glibc reads when TZ is unset */
	if (getenv("TZ") == NULL)
		setenv("TZ", ":/etc/localtime", 1);
}

/* t in the zone set by zone_begin. */
static void
local(int64_t t, struct tm *tm)
{
	time_t tt = (time_t)t;

	localtime_r(&tt, tm);
}

bool
agent_window_zone_ok(const char *zone)
{
	char *path, head[4];
	const char *p;
	FILE *f;
	bool ok = false;

	if (zone[0] == '\0' || zone[0] == '/' || zone[0] == '.' ||
	    strlen(zone) > 128 || strstr(zone, "..") != NULL)
		return false;
	for (p = zone; *p != '\0'; p++)
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		        (*p >= '0' && *p <= '9') || *p == '/' || *p == '_' ||
		        *p == '-' || *p == '+'))
			return false;
	path = xasprintf("%s/%s", AGENT_WINDOW_ZONEINFO, zone);
	f = fopen(path, "rbe");
	if (f != NULL) {
		ok = fread(head, 1, 4, f) == 4 && memcmp(head, "TZif", 4) == 0;
		fclose(f);
	}
	free(path);
	return ok;
}

/* ---- windows --------------------------------------------------------- */

void
agent_windows_release(struct agent_windows *w)
{
	size_t i;

	for (i = 0; i < w->n; i++) {
		free(w->v[i].schedule);
		free(w->v[i].zone);
		strv_release(&w->v[i].clusters);
	}
	free(w->v);
	memset(w, 0, sizeof(*w));
}

static bool
date_ok(const struct agent_cron *c, const struct tm *tm)
{
	return agent_cron_match(c, tm->tm_min, tm->tm_hour, tm->tm_mday,
	    tm->tm_mon + 1, tm->tm_wday);
}

/* The same without the minute and the hour: does the day match? */
static bool
day_ok(const struct agent_cron *c, const struct tm *tm)
{
	struct agent_cron d = *c;

	d.minute = ~(uint64_t)0;
	d.hour = ~(uint32_t)0;
	return agent_cron_match(&d, 0, 0, tm->tm_mday, tm->tm_mon + 1,
	    tm->tm_wday);
}

/* How far to step over a day, an hour or a minute that cannot match,
 * without stepping over one that can. Offsets change at most a few hours
 * at once, and at whole local minutes, so a day is left 3 hours short of
 * its local midnight, and an hour at its local end. In minutes; 0 when t's
 * minute matches. */
static int64_t
skip_forward(const struct agent_cron *c, const struct tm *tm)
{
	int64_t left = 24 * 60 - (tm->tm_hour * 60 + tm->tm_min);
	int m;

	if (!day_ok(c, tm))
		return left > 180 ? left - 180 : 60 - tm->tm_min;
	if (!(c->hour >> tm->tm_hour & 1))
		return 60 - tm->tm_min;
	for (m = tm->tm_min; m < 60; m++)
		if (c->minute >> m & 1)
			return m - tm->tm_min;
	return 60 - tm->tm_min;
}

/* The same backwards: how many minutes back to the latest minute that
 * may match (0: t's minute matches). */
static int64_t
skip_back(const struct agent_cron *c, const struct tm *tm)
{
	int64_t into = tm->tm_hour * 60 + tm->tm_min + 1;
	int m;

	if (!day_ok(c, tm))
		return into > 180 ? into - 180 : tm->tm_min + 1;
	if (!(c->hour >> tm->tm_hour & 1))
		return tm->tm_min + 1;
	for (m = tm->tm_min; m >= 0; m--)
		if (c->minute >> m & 1)
			return tm->tm_min - m;
	return tm->tm_min + 1;
}

/* next_start in the zone already set. */
static int64_t
next_start_in(const struct agent_window *w, int64_t t)
{
	int64_t s = (t + 59) / 60 * 60, step;
	struct tm tm;

	if (t < 0)
		return -1;
	while (s <= t + AGENT_WINDOW_HORIZON) {
		local(s, &tm);
		step = skip_forward(&w->cron, &tm);
		if (step == 0 && date_ok(&w->cron, &tm))
			return s;
		s += (step > 0 ? step : 1) * 60;
	}
	return -1;
}

int64_t
agent_window_next_start(const struct agent_window *w, int64_t t)
{
	int64_t s;

	zone_begin(w->zone);
	s = next_start_in(w, t);
	zone_end();
	return s;
}

/* active in the zone already set. */
static bool
active_in(const struct agent_window *w, int64_t t, int64_t *end)
{
	int64_t s = t / 60 * 60, step;
	struct tm tm;

	while (s > t - w->duration && s >= 0) {
		local(s, &tm);
		step = skip_back(&w->cron, &tm);
		if (step == 0 && date_ok(&w->cron, &tm)) {
			*end = s + w->duration;
			return true;
		}
		s -= (step > 0 ? step : 1) * 60;
	}
	return false;
}

bool
agent_window_active(const struct agent_window *w, int64_t t, int64_t *end)
{
	bool on;

	zone_begin(w->zone);
	on = active_in(w, t, end);
	zone_end();
	return on;
}

static bool
applies(const struct agent_window *w, const char *cluster)
{
	return w->clusters.n == 0 || strv_has(&w->clusters, cluster);
}

void
agent_window_eval(const struct agent_windows *ws, const char *cluster,
    int64_t now, struct agent_window_verdict *out)
{
	const struct agent_window *w, *edge = NULL, *deny = NULL;
	int64_t t = now, end, best, s;
	bool has_allow = false, denied, allowed;
	size_t i;
	int iter;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < ws->n; i++) {
		if (!applies(&ws->v[i], cluster))
			continue;
		out->any = true;
		has_allow |= ws->v[i].kind == AGENT_WINDOW_ALLOW;
	}
	/* Deny wins: move past every deny window in force, then to the next
	 * allow window's opening, until neither holds t back. Each step
	 * moves t forward; a few dozen are plenty for any real setting. */
	for (iter = 0; iter < 256; iter++) {
		denied = false;
		best = -1;
		for (i = 0; i < ws->n; i++) {
			w = &ws->v[i];
			if (w->kind != AGENT_WINDOW_DENY ||
			    !applies(w, cluster))
				continue;
			if (agent_window_active(w, t, &end) && end > best) {
				best = end;
				edge = w;
				if (t == now && deny == NULL)
					deny = w;
				denied = true;
			}
		}
		if (denied) {
			t = best;
			continue;
		}
		if (!has_allow)
			break;
		allowed = false;
		best = -1;
		for (i = 0; i < ws->n && !allowed; i++) {
			w = &ws->v[i];
			if (w->kind != AGENT_WINDOW_ALLOW ||
			    !applies(w, cluster))
				continue;
			if (agent_window_active(w, t, &end)) {
				allowed = true;
				continue;
			}
			s = agent_window_next_start(w, t);
			if (s >= 0 && (best < 0 || s < best)) {
				best = s;
				edge = w;
			}
		}
		if (allowed)
			break;
		if (best < 0 || best > now + AGENT_WINDOW_HORIZON) {
			t = -1;
			break;
		}
		t = best;
	}
	if (iter == 256)
		t = -1;
	out->open = t == now;
	if (!out->open) {
		out->until = t;
		out->deny = deny;
		out->edge = t >= 0 ? edge : NULL;
	}
}

char *
agent_window_utc(int64_t t)
{
	char buf[32];
	time_t tt = (time_t)t;
	struct tm tm;

	gmtime_r(&tt, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	return xstrdup(buf);
}

char *
agent_window_text(const struct agent_window_verdict *v)
{
	char when[64] = "", *utc, *why, *s;
	time_t tt;
	struct tm tm;

	if (v->deny != NULL)
		why = xasprintf("deny window '%s' (%s) in force",
		    v->deny->schedule, v->deny->zone);
	else
		why = xstrdup("outside every allow window");
	if (v->until < 0) {
		s = xasprintf("waiting for sync window: none opens within %ld "
		              "days: %s",
		    AGENT_WINDOW_HORIZON / 86400, why);
		free(why);
		return s;
	}
	utc = agent_window_utc(v->until);
	if (v->edge != NULL && strcmp(v->edge->zone, "UTC") != 0) {
		tt = (time_t)v->until;
		zone_begin(v->edge->zone);
		localtime_r(&tt, &tm);
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M %Z", &tm);
		zone_end();
		s = xasprintf("waiting for sync window until %s (%s in %s): %s",
		    utc, when, v->edge->zone, why);
	} else {
		s = xasprintf("waiting for sync window until %s: %s", utc, why);
	}
	free(utc);
	free(why);
	return s;
}

int
agent_window_now(int64_t *out, struct err *err)
{
	const char *path = getenv(AGENT_WINDOW_CLOCK_ENV);
	char *text = NULL, *end;
	size_t len = 0;
	struct tm tm;
	int rc = -1;

	if (path == NULL || path[0] == '\0') {
		*out = (int64_t)time(NULL);
		return 0;
	}
	if (afile_read(&text, &len, path, CLOCK_FILE_MAX, err) < 0)
		return -1;
	memset(&tm, 0, sizeof(tm));
	end = strptime(text, "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (end == NULL || strspn(end, "\n") != strlen(end)) {
		err_setf(err, NULL,
		    "%s (%s): expected an RFC 3339 UTC time like "
		    "2026-12-02T21:00:00Z",
		    path, AGENT_WINDOW_CLOCK_ENV);
		goto done;
	}
	*out = (int64_t)timegm(&tm);
	rc = 0;
done:
	free(text);
	return rc;
}
