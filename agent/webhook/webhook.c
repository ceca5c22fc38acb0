/* agent/webhook/webhook.c: see webhook.h. One thread per target sends its
 * deliveries in order; the loop only writes them to the spool and wakes
 * the thread. One mutex guards every queue; it is never held across a
 * request or a file write, so webhook_post waits at most for a copy. */
#define LOG_MODULE "notify"
#include "webhook-int.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../lib/clock.h"
#include "../../lib/metrics.h"
#include "../../lib/xalloc.h"
#include "../creds.h"
#include "../log.h"

#ifndef AGENT_VERSION
#define AGENT_VERSION "0.0.0"
#endif

#define TICK_MS 200 /* how soon a stop ends an attempt in flight */

struct wh_target {
	struct webhook *w;
	char *name, *url, *secret, *ca_file, *dir;
	size_t secret_len;
	enum agent_conf_body body;
	struct strv events, clusters;
	pthread_t thread;
	bool started;
	/* under w->mu */
	struct webhook_spool_entry *q; /* pending, by seq; q[0] is next */
	size_t n, cap;
	int64_t next_ms; /* q[0] is not sent before (monotonic) */
	uint64_t seq;    /* the next delivery's */
	bool busy;       /* q[0] is being sent */
	bool failing;    /* the last attempt failed (said once) */
	bool full;       /* spool-max reached (said once) */
};

struct webhook {
	pthread_mutex_t mu;
	pthread_cond_t cv; /* a queue changed, or stop */
	atomic_bool stop;
	struct metrics *m;
	long timeout_s, attempts, initial_s, max_s, spool_max;
	char host[256];
	struct webhook_sender from;
	struct wh_target *t;
	size_t n;
};

static const char *
url_of(const struct agent_conf *conf, const struct agent_conf_target *ct,
    char **owned, struct err *err)
{
	char *key;
	int r;

	*owned = NULL;
	if (ct->url != NULL)
		return ct->url;
	key = xasprintf("notifications.targets '%s' url-file", ct->name);
	r = agent_creds_read_secret(owned, conf->credentials, ct->url_file, key,
	    err);
	free(key);
	if (r < 0)
		return NULL;
	if (!agent_conf_http_url_ok(*owned)) {
		err_setf(err, NULL,
		    "notifications.targets '%s': the url-file '%s' does not "
		    "hold an http:// or https:// URL",
		    ct->name, ct->url_file);
		agent_creds_free(*owned);
		*owned = NULL;
		return NULL;
	}
	return *owned;
}

/* Read target ct's secret and URL into t (t may be NULL: only checked). */
static int
load_target(struct wh_target *t, const struct agent_conf *conf,
    const struct agent_conf_target *ct, struct err *err)
{
	char *secret = NULL, *url_owned = NULL, *key;
	const char *url;
	size_t i;
	int r;

	key = xasprintf("notifications.targets '%s' secret-file", ct->name);
	r = agent_creds_read_secret(&secret, conf->credentials, ct->secret_file,
	    key, err);
	free(key);
	if (r < 0)
		return -1;
	url = url_of(conf, ct, &url_owned, err);
	if (url == NULL) {
		agent_creds_free(secret);
		return -1;
	}
	if (t == NULL) {
		agent_creds_free(secret);
		agent_creds_free(url_owned);
		return 0;
	}
	t->name = xstrdup(ct->name);
	t->secret = secret;
	t->secret_len = strlen(secret);
	t->url = url_owned != NULL ? url_owned : xstrdup(url);
	t->ca_file = ct->ca_file != NULL         ? xstrdup(ct->ca_file)
	             : conf->tls_ca_file != NULL ? xstrdup(conf->tls_ca_file)
	                                         : NULL;
	t->body = ct->body;
	for (i = 0; i < ct->events.n; i++)
		strv_add(&t->events, ct->events.v[i]);
	for (i = 0; i < ct->clusters.n; i++)
		strv_add(&t->clusters, ct->clusters.v[i]);
	t->dir = xasprintf("%s/notifications/spool/%s", conf->state, ct->name);
	return 0;
}

int
webhook_check(const struct agent_conf *conf, struct err *err)
{
	size_t i;

	for (i = 0; i < conf->targets.n; i++)
		if (load_target(NULL, conf, &conf->targets.v[i], err) < 0)
			return -1;
	return 0;
}

static void
count(struct wh_target *t, const char *family, double v)
{
	metrics_add(t->w->m, family, (const char *[]){t->name}, v);
}

static void
gauge_pending(struct wh_target *t)
{
	metrics_set(t->w->m, "artemis_gitops_notifications_pending",
	    (const char *[]){t->name}, (double)t->n);
}

/* Drop q[i] (mu held): its file goes, the drop is counted. */
static void
drop_at(struct wh_target *t, size_t i)
{
	struct err err = {0};

	if (webhook_spool_remove(t->dir, t->q[i].seq, t->q[i].id, &err) < 0) {
		log_err("target '%s': %s", t->name, err.msg);
		err_release(&err);
	}
	memmove(t->q + i, t->q + i + 1, (t->n - i - 1) * sizeof(*t->q));
	t->n--;
	count(t, "artemis_gitops_notifications_dropped_total", 1);
	gauge_pending(t);
}

static bool
tick_stop(void *ctx)
{
	const struct webhook *w = ctx;

	return atomic_load(&w->stop);
}

/* The verdict of one attempt at q[0], applied (mu held). */
static void
settle(struct wh_target *t, enum webhook_verdict v, const char *why)
{
	struct webhook *w = t->w;
	struct webhook_spool_entry *h = &t->q[0];

	if (v == WEBHOOK_SENT) {
		if (t->failing)
			log_notice("target '%s': delivering again (delivery "
			           "%s sent)",
			    t->name, h->id);
		t->failing = false;
		(void)webhook_spool_remove(t->dir, h->seq, h->id,
		    &(struct err){0});
		memmove(t->q, t->q + 1, (t->n - 1) * sizeof(*t->q));
		t->n--;
		count(t, "artemis_gitops_notifications_sent_total", 1);
		gauge_pending(t);
		t->next_ms = 0;
		return;
	}
	count(t, "artemis_gitops_notifications_failed_attempts_total", 1);
	h->attempts++;
	if (v == WEBHOOK_PERMANENT || h->attempts >= (unsigned)w->attempts) {
		log_warn("target '%s': delivery %s dropped after %u "
		         "attempt(s): %s%s",
		    t->name, h->id, h->attempts, why,
		    v == WEBHOOK_PERMANENT ? " (the receiver refused it: "
		                             "retrying cannot help)"
		                           : "");
		drop_at(t, 0);
		t->next_ms = 0;
		return;
	}
	if (!t->failing)
		log_warn("target '%s': delivery %s failed: %s; retrying with "
		         "backoff, at most %ld attempts",
		    t->name, h->id, why, w->attempts);
	else
		log_debug("target '%s': delivery %s attempt %u failed: %s",
		    t->name, h->id, h->attempts, why);
	t->failing = true;
	t->next_ms = clock_monotonic_ms() +
	             webhook_backoff_ms(h->attempts, w->initial_s, w->max_s);
}

/* Record the attempts of head in its file (so that the bound holds across
 * a restart). Called without mu: the file is the thread's own. */
static void
record_attempts(struct wh_target *t, const struct webhook_spool_entry *h)
{
	struct webhook_spooled s;
	struct err err = {0};
	char *path = webhook_spool_path(t->dir, h->seq, h->id);

	memset(&s, 0, sizeof(s));
	if (webhook_spool_read(&s, path, &err) == 0) {
		s.attempts = h->attempts;
		(void)webhook_spool_write(t->dir, &s, s.event, &err);
	}
	if (err.msg != NULL)
		log_err("target '%s': %s", t->name, err.msg);
	webhook_spooled_release(&s);
	err_release(&err);
	free(path);
}

/* Send head once (mu not held). */
static enum webhook_verdict
attempt(struct wh_target *t, const struct webhook_spool_entry *h, char **why)
{
	struct http_tick tick = {tick_stop, t->w, TICK_MS};
	struct webhook_attempt at = {t->url, t->secret, t->secret_len,
	    t->ca_file, t->body, t->w->timeout_s * 1000, &t->w->from, &tick};
	struct webhook_spooled s;
	struct err err = {0};
	enum webhook_verdict v;
	char *path = webhook_spool_path(t->dir, h->seq, h->id);

	memset(&s, 0, sizeof(s));
	if (webhook_spool_read(&s, path, &err) < 0) {
		/* nothing can send it: it goes, said once */
		*why = xasprintf("its spool file cannot be read: %s", err.msg);
		v = WEBHOOK_PERMANENT;
	} else {
		v = webhook_deliver(&at, &s, why);
	}
	webhook_spooled_release(&s);
	err_release(&err);
	free(path);
	return v;
}

/* Wait (mu held) until q[0] is due or a stop; false on a stop. */
static bool
wait_due(struct wh_target *t)
{
	struct webhook *w = t->w;
	struct timespec ts;
	int64_t now, left;

	for (;;) {
		if (atomic_load(&w->stop))
			return false;
		now = clock_monotonic_ms();
		if (t->n > 0 && t->next_ms <= now)
			return true;
		if (t->n == 0) {
			pthread_cond_wait(&w->cv, &w->mu);
			continue;
		}
		left = t->next_ms - now;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_sec += (time_t)(left / 1000);
		ts.tv_nsec += (long)(left % 1000) * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&w->cv, &w->mu, &ts);
	}
}

static void *
target_main(void *arg)
{
	struct wh_target *t = arg;
	struct webhook *w = t->w;
	struct webhook_spool_entry head;
	enum webhook_verdict v;
	char *why = NULL;

	pthread_mutex_lock(&w->mu);
	while (wait_due(t)) {
		head = t->q[0];
		t->busy = true;
		pthread_mutex_unlock(&w->mu);
		v = attempt(t, &head, &why);
		pthread_mutex_lock(&w->mu);
		if (v != WEBHOOK_ABANDONED)
			settle(t, v, why != NULL ? why : "");
		if (v == WEBHOOK_RETRY && t->n > 0 && t->q[0].seq == head.seq) {
			/* still busy: spool-max must not drop the file while
			 * it is rewritten */
			head = t->q[0];
			pthread_mutex_unlock(&w->mu);
			record_attempts(t, &head);
			pthread_mutex_lock(&w->mu);
		}
		t->busy = false;
		free(why);
		why = NULL;
		pthread_cond_broadcast(&w->cv);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

/* A spool file that cannot be read stays where it is, said once. */
static void
bad_file(void *ctx, const char *path, const char *why)
{
	const struct wh_target *t = ctx;

	log_err("target '%s': spool file %s left alone: %s", t->name, path,
	    why);
}

/* What t's spool holds from before, queued in order. */
static int
load_spool(struct wh_target *t, struct err *err)
{
	size_t i;

	if (webhook_spool_list(&t->q, &t->n, t->dir, bad_file, t, err) < 0)
		return -1;
	t->cap = t->n;
	for (i = 0; i < t->n; i++)
		if (t->q[i].seq >= t->seq)
			t->seq = t->q[i].seq + 1;
	if (t->n > 0)
		log_notice("target '%s': %zu delivery(ies) spooled before, "
		           "sending them first",
		    t->name, t->n);
	gauge_pending(t);
	return 0;
}

static void
target_release(struct wh_target *t)
{
	free(t->name);
	free(t->url);
	agent_creds_free(t->secret);
	free(t->ca_file);
	free(t->dir);
	strv_release(&t->events);
	strv_release(&t->clusters);
	free(t->q);
}

/* Spools of targets no longer configured (renamed, removed) are left
 * alone, and said once at start: their deliveries wait for the name. */
static void
say_orphans(const struct agent_conf *conf)
{
	char *dir = xasprintf("%s/notifications/spool", conf->state);
	struct dirent *de;
	size_t i;
	bool known;
	DIR *d = opendir(dir);

	while (d != NULL && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		known = false;
		for (i = 0; i < conf->targets.n && !known; i++)
			known =
			    strcmp(conf->targets.v[i].name, de->d_name) == 0;
		if (!known)
			log_warn("%s/%s: the spool of a target that is not "
			         "configured now, left alone",
			    dir, de->d_name);
	}
	if (d != NULL)
		closedir(d);
	free(dir);
}

int
webhook_start(struct webhook **out, const struct agent_conf *conf,
    struct metrics *m, struct err *err)
{
	struct webhook *w;
	pthread_condattr_t ca;
	size_t i;

	*out = NULL;
	if (conf->targets.n == 0)
		return 0;
	w = xcalloc(1, sizeof(*w));
	pthread_mutex_init(&w->mu, NULL);
	pthread_condattr_init(&ca);
	/* the waits are on the monotonic clock, as every deadline here */
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->cv, &ca);
	pthread_condattr_destroy(&ca);
	atomic_init(&w->stop, false);
	w->m = m;
	w->timeout_s = conf->notify_timeout;
	w->attempts = conf->notify_attempts;
	w->initial_s = conf->notify_retry_initial;
	w->max_s = conf->notify_retry_max;
	w->spool_max = conf->notify_spool_max;
	if (gethostname(w->host, sizeof(w->host) - 1) < 0)
		strcpy(w->host, "unknown");
	w->from.host = w->host;
	w->from.version = AGENT_VERSION;
	w->t = xcalloc(conf->targets.n, sizeof(*w->t));
	for (i = 0; i < conf->targets.n; i++, w->n++) {
		w->t[i].w = w;
		if (load_target(&w->t[i], conf, &conf->targets.v[i], err) < 0 ||
		    load_spool(&w->t[i], err) < 0)
			goto fail;
	}
	say_orphans(conf);
	for (i = 0; i < w->n; i++) {
		if (pthread_create(&w->t[i].thread, NULL, target_main,
		        &w->t[i]) != 0) {
			err_setf(err, NULL,
			    "cannot start the thread of target "
			    "'%s'",
			    w->t[i].name);
			goto fail;
		}
		w->t[i].started = true;
	}
	*out = w;
	return 0;
fail:
	webhook_stop(w);
	return -1;
}

static bool
wants(const struct wh_target *t, const struct agent_event *e)
{
	size_t i;
	bool yes = false;

	for (i = 0; i < t->events.n && !yes; i++)
		yes = agent_event_pattern_matches(t->events.v[i], e->kind);
	if (!yes || t->clusters.n == 0 || e->cluster == NULL)
		return yes;
	return strv_has(&t->clusters, e->cluster);
}

/* Make room for one more in t's queue (mu held): past spool-max the
 * oldest delivery that is not in flight goes, counted and said. */
static void
make_room(struct wh_target *t)
{
	size_t i = t->busy ? 1 : 0;

	if (t->n < (size_t)t->w->spool_max || t->n <= i) {
		t->full = false;
		return;
	}
	if (!t->full)
		log_warn("target '%s': %zu deliveries pending "
		         "(notifications.spool-max): the oldest are dropped "
		         "(counted) while it stays full",
		    t->name, t->n);
	t->full = true;
	drop_at(t, i);
	if (i == 0)
		t->next_ms = 0;
}

static void
post_one(struct wh_target *t, const struct agent_event *e)
{
	struct webhook *w = t->w;
	struct webhook_spooled s;
	struct err err = {0};

	memset(&s, 0, sizeof(s));
	pthread_mutex_lock(&w->mu);
	s.seq = t->seq++;
	pthread_mutex_unlock(&w->mu);
	webhook_new_id(s.id);
	s.queued_at = xstrdup(e->occurred_at);
	if (webhook_spool_write(t->dir, &s, e, &err) < 0) {
		log_err("target '%s': %s: the %s event is not delivered",
		    t->name, err.msg, agent_event_kind_name(e->kind));
		count(t, "artemis_gitops_notifications_dropped_total", 1);
		err_release(&err);
		free(s.queued_at);
		return;
	}
	free(s.queued_at);
	pthread_mutex_lock(&w->mu);
	make_room(t);
	xgrow(&t->q, &t->cap, t->n + 1, sizeof(*t->q));
	t->q[t->n].seq = s.seq;
	memcpy(t->q[t->n].id, s.id, sizeof(s.id));
	t->q[t->n].attempts = 0;
	t->n++;
	gauge_pending(t);
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	log_debug("target '%s': %s queued as delivery %s", t->name,
	    agent_event_kind_name(e->kind), s.id);
}

void
webhook_post(struct webhook *w, const struct agent_event *e)
{
	size_t i;

	if (w == NULL)
		return;
	for (i = 0; i < w->n; i++)
		if (wants(&w->t[i], e))
			post_one(&w->t[i], e);
}

/* Is any delivery due or in flight (mu held)? */
static bool
any_due(const struct webhook *w)
{
	int64_t now = clock_monotonic_ms();
	size_t i;

	for (i = 0; i < w->n; i++)
		if (w->t[i].busy || (w->t[i].n > 0 && w->t[i].next_ms <= now))
			return true;
	return false;
}

void
webhook_drain(struct webhook *w, long timeout_ms)
{
	int64_t until = clock_monotonic_ms() + timeout_ms;
	struct timespec ts;

	if (w == NULL)
		return;
	pthread_mutex_lock(&w->mu);
	while (any_due(w) && clock_monotonic_ms() < until) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += 100 * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&w->cv, &w->mu, &ts);
	}
	pthread_mutex_unlock(&w->mu);
}

void
webhook_stop(struct webhook *w)
{
	size_t i;

	if (w == NULL)
		return;
	pthread_mutex_lock(&w->mu);
	atomic_store(&w->stop, true);
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	for (i = 0; i < w->n; i++)
		if (w->t[i].started)
			pthread_join(w->t[i].thread, NULL);
	for (i = 0; i < w->n; i++)
		target_release(&w->t[i]);
	free(w->t);
	pthread_cond_destroy(&w->cv);
	pthread_mutex_destroy(&w->mu);
	free(w);
}

/* One `test` delivery to t, reported. */
static void
send_test(struct wh_target *t, const struct webhook_sender *from, long tmo,
    void (*report)(void *ctx, const char *target, bool sent, const char *why),
    void *ctx)
{
	struct webhook_attempt at = {t->url, t->secret, t->secret_len,
	    t->ca_file, t->body, tmo * 1000, from, NULL};
	struct webhook_spooled s;
	enum webhook_verdict v;
	char *why = NULL;

	memset(&s, 0, sizeof(s));
	webhook_new_id(s.id);
	s.event = agent_event_new(AGENT_EVENT_TEST, NULL,
	    "a test notification (artemis-gitops notify-test)");
	agent_event_addf(s.event, "target '%s' of %s", t->name, from->host);
	v = webhook_deliver(&at, &s, &why);
	report(ctx, t->name, v == WEBHOOK_SENT, why != NULL ? why : "");
	free(why);
	webhook_spooled_release(&s);
}

int
webhook_send_test(const struct agent_conf *conf, const char *only,
    void (*report)(void *ctx, const char *target, bool sent, const char *why),
    void *ctx, struct err *err)
{
	struct webhook_sender from = {NULL, AGENT_VERSION};
	struct wh_target t;
	char host[256] = "unknown";
	size_t i, n = 0;
	int rc = 0;

	if (gethostname(host, sizeof(host) - 1) < 0)
		strcpy(host, "unknown");
	from.host = host;
	for (i = 0; i < conf->targets.n && rc == 0; i++) {
		if (only != NULL && strcmp(conf->targets.v[i].name, only) != 0)
			continue;
		memset(&t, 0, sizeof(t));
		rc = load_target(&t, conf, &conf->targets.v[i], err);
		if (rc == 0)
			send_test(&t, &from, conf->notify_timeout, report, ctx);
		target_release(&t);
		n++;
	}
	if (rc == 0 && n == 0)
		rc = err_setf(err, NULL, "%s",
		    only != NULL ? "no target of "
		                   "notifications.targets "
		                   "has that name"
		                 : "notifications.targets "
		                   "lists no target");
	return rc;
}
