/* agent/daemon/loop.c: the daemon's one loop (style.md 2.9). poll() waits on
 * the signalfd and the web server's job descriptor (web-jobs.c) until the
 * next timer (git poll, drift) or half the watchdog interval; signals
 * become flags handled between steps. The web server itself runs in its
 * own threads (agent/web/httpd.c): nothing a client does reaches this
 * loop but a job. */
#define LOG_MODULE "loop"

#include "daemon-int.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../lib/clock.h"
#include "../../lib/xalloc.h"
#include "../log.h"
#include "../state.h"
#include "../verify.h"
#include "../webhook/webhook.h"

static void
log_diags(const struct errlist *d)
{
	size_t i;
	char *line;

	for (i = 0; i < d->n; i++) {
		line = errlist_render_item(d, i);
		if (d->items[i].severity == DIAG_ERROR)
			log_err("%s", line);
		else
			log_warn("%s", line);
		free(line);
	}
}

static bool
same_str(const char *x, const char *y)
{
	return (x == NULL && y == NULL) ||
	       (x != NULL && y != NULL && strcmp(x, y) == 0);
}

static bool
same_strv(const struct strv *x, const struct strv *y)
{
	size_t i;

	if (x->n != y->n)
		return false;
	for (i = 0; i < x->n; i++)
		if (strcmp(x->v[i], y->v[i]) != 0)
			return false;
	return true;
}

/* The coordination (several agents, docs/ha.md) is fixed at the start:
 * its lease, its member key and the state's mirror. */
static bool
same_coordination(const struct agent_conf *o, const struct agent_conf *n)
{
	return same_strv(&o->coord_endpoints, &n->coord_endpoints) &&
	       same_str(o->coord_ca_file, n->coord_ca_file) &&
	       same_str(o->coord_client_cert, n->coord_client_cert) &&
	       same_str(o->coord_client_key_file, n->coord_client_key_file) &&
	       same_str(o->coord_user, n->coord_user) &&
	       same_str(o->coord_password_file, n->coord_password_file) &&
	       same_str(o->coord_prefix, n->coord_prefix) &&
	       same_str(o->coord_agent_id, n->coord_agent_id) &&
	       o->coord_lease_ttl == n->coord_lease_ttl &&
	       o->coord_lease_margin == n->coord_lease_margin &&
	       o->coord_timeout == n->coord_timeout &&
	       o->coord_shard_mode == n->coord_shard_mode &&
	       o->state_backend == n->state_backend;
}

/* The web server keeps its address, tokens and TLS until a restart. */
static void
warn_http_changed(const struct agent_conf *o, const struct agent_conf *n)
{
	if (!same_str(o->http_listen, n->http_listen) ||
	    !same_strv(&o->http_viewer_tokens, &n->http_viewer_tokens) ||
	    !same_strv(&o->http_approver_tokens, &n->http_approver_tokens) ||
	    o->http_anonymous_read != n->http_anonymous_read ||
	    !same_str(o->http_tls_cert, n->http_tls_cert) ||
	    !same_str(o->http_tls_key_file, n->http_tls_key_file) ||
	    !same_str(o->http_client_header, n->http_client_header) ||
	    o->http_session_ttl != n->http_session_ttl ||
	    o->http_ready_intervals != n->http_ready_intervals)
		log_warn("the http.* keys changed: the web server keeps the "
		         "running ones until the agent is restarted");
}

/* The webhook threads again with the reloaded targets (their secrets read
 * anew: a rotated secret takes effect); the spools stay on disk. */
static void
restart_hooks(struct daemon *a)
{
	struct err err = {0};
	bool had = a->hooks != NULL;

	webhook_stop(a->hooks);
	a->hooks = NULL;
	if (webhook_start(&a->hooks, a->conf, daemon_metrics(a), &err) < 0) {
		log_err("notifications: %s: none are sent until the next "
		        "reload",
		    err.msg);
		err_release(&err);
	} else if (a->hooks != NULL && !had) {
		daemon_events_start(a);
	}
}

/* SIGHUP: load the file again; keep the old configuration unless the new
 * one loads cleanly. The state folder (and its lock) cannot move. */
static void
reload(struct daemon *a)
{
	struct agent_conf *nc = NULL;
	struct errlist d = {0};
	struct daemon_watch *nw = NULL;
	struct agent_verify *nv = NULL;
	struct err err = {0};

	daemon_notify_reloading();
	log_info("reloading %s", a->conf_path);
	if (agent_conf_load(&nc, a->conf_path, &d) < 0) {
		log_diags(&d);
		log_err("configuration %s refused, keeping the running one",
		    a->conf_path);
	} else if (strcmp(nc->state, a->conf->state) != 0) {
		log_err(
		    "configuration %s refused: 'state' changed from '%s' "
		    "to '%s' (restart the agent to move its state), keeping "
		    "the running one",
		    a->conf_path, a->conf->state, nc->state);
	} else if (!same_coordination(a->conf, nc)) {
		log_err("configuration %s refused: 'coordination' or "
		        "'state-backend' changed (restart the agent: it leaves "
		        "etcd and joins again), keeping the running one",
		    a->conf_path);
	} else if (daemon_verify_load(&nv, nc) < 0) {
		log_err("configuration %s refused: repository.verify cannot be "
		        "read, keeping the running one (and what it trusts)",
		    a->conf_path);
	} else if (daemon_watch_open(&nw, nc, &err) < 0 ||
	           webhook_check(nc, &err) < 0) {
		log_err("configuration %s refused: %s, keeping the running one",
		    a->conf_path, err.msg);
		daemon_watch_free(nw);
		nw = NULL;
	} else {
		log_diags(&d);
		daemon_watch_free(a->watch);
		a->watch = nw;
		agent_verify_free(a->verify);
		a->verify = nv;
		nv = NULL;
		warn_http_changed(a->conf, nc);
		web_board_set_conf(a->board, nc);
		agent_conf_free(a->conf);
		a->conf = nc;
		nc = NULL;
		restart_hooks(a);
		agent_log_set_level((enum agent_log_prio)a->conf->log_level);
		a->next_poll = clock_monotonic_ms();
		a->git_fails = 0;
		daemon_verify_replan(a);
		log_notice("configuration reloaded: %s branch '%s', poll %lds, "
		           "drift %lds",
		    a->conf->repo_url, a->conf->branch, a->conf->poll_interval,
		    a->conf->drift_interval);
	}
	agent_verify_free(nv);
	agent_conf_free(nc);
	errlist_release(&d);
	err_release(&err);
	daemon_notify_ready("reloaded");
}

/* Milliseconds poll() may sleep: until the next timer, at most half the
 * watchdog interval, never negative. */
static int
sleep_ms(const struct daemon *a)
{
	int64_t now = clock_monotonic_ms(), until = a->next_poll, wd;

	/* A signal drained during the last step (daemon_stopping reads the
	 * signalfd between steps) is already pending: do not wait for the
	 * next timer to act on it. */
	if (a->sig.cycle || a->sig.reload || a->sig.stop)
		return 0;
	if (a->next_drift < until)
		until = a->next_drift;
	wd = (int64_t)(daemon_notify_watchdog_usec() / 2000);
	if (wd > 0 && now + wd < until)
		until = now + wd;
	if (until <= now)
		return 0;
	if (until - now > 3600000)
		return 3600000;
	return (int)(until - now);
}

/* The last line of a --once run: its exit code and why. */
static void
log_once(const struct daemon *a)
{
	struct sbuf b = {0};
	size_t i;

	if (a->fails.n == 0) {
		log_info("--once: exit 0, every step worked");
		return;
	}
	for (i = 0; i < a->fails.n; i++)
		sbuf_addf(&b, "%s%s", i > 0 ? "; " : "", a->fails.v[i]);
	log_err("--once: exit 1, %zu failure(s): %s", a->fails.n, sbuf_str(&b));
	sbuf_release(&b);
}

static void
run_cycle(struct daemon *a)
{
	a->sig.cycle = false;
	daemon_ha_refresh(a);
	if (daemon_cycle(a) < 0) {
		a->git_fails++;
		a->next_poll = clock_monotonic_ms() +
		               1000 * daemon_backoff(a, a->conf->poll_interval,
		                          a->git_fails);
	} else {
		a->git_fails = 0;
		a->next_poll =
		    clock_monotonic_ms() + 1000 * a->conf->poll_interval;
	}
	if (daemon_stopping(a))
		return;
	daemon_run_approvals(a);
}

/* The loop proper. Returns the exit code. */
int
daemon_loop_run(struct daemon *a)
{
	int64_t now;
	struct pollfd pfd[2];

	a->next_poll = clock_monotonic_ms();
	a->next_drift = clock_monotonic_ms();
	daemon_notify_ready("started");
	log_notice("watching %s branch '%s' (poll %lds, drift %lds), outbox %s",
	    a->conf->repo_url, a->conf->branch, a->conf->poll_interval,
	    a->conf->drift_interval, a->conf->outbox);
	for (;;) {
		daemon_notify_watchdog();
		if (daemon_stopping(a))
			break;
		if (a->sig.reload) {
			a->sig.reload = false;
			reload(a);
		}
		now = clock_monotonic_ms();
		/* SIGUSR1: a cycle and a drift check now */
		if (a->sig.cycle)
			a->next_drift = now;
		if (a->sig.cycle || now >= a->next_poll)
			run_cycle(a);
		if (daemon_stopping(a))
			break;
		if (clock_monotonic_ms() >= a->next_drift) {
			daemon_ha_refresh(a);
			daemon_drift(a);
			a->next_drift = clock_monotonic_ms() +
			                1000 * a->conf->drift_interval;
		}
		if (a->once)
			break;
		daemon_web_jobs(a);
		if (daemon_stopping(a))
			break;
		pfd[0].fd = a->sigfd;
		pfd[0].events = POLLIN;
		pfd[1].fd = a->web != NULL ? web_board_job_fd(a->board) : -1;
		pfd[1].events = POLLIN;
		if (poll(pfd, 2, sleep_ms(a)) < 0 && errno != EINTR)
			log_err("poll: %m");
	}
	daemon_notify_stopping();
	if (a->sig.stop)
		log_notice("signal %d: stopping", a->sig.last);
	if (!a->once)
		return 0;
	log_once(a);
	return a->fails.n > 0 ? 1 : 0;
}
