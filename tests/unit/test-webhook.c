/* tests/unit/test-webhook.c: agent/webhook/webhook.c: the targets' queues
 * and threads against a receiver on a real socket: deliveries in order,
 * each target's events and clusters, retries up to the bound and then a
 * drop (counted), a 4xx dropped at once, the spool read back after a
 * restart, spool-max, a secret refused like every secret, and a stop that
 * does not wait for a hung receiver. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <cmocka.h>

#include "../../agent/conf.h"
#include "../../agent/event.h"
#include "../../agent/webhook/webhook-int.h"
#include "../../lib/afile.h"
#include "../../lib/clock.h"
#include "../../lib/metrics.h"
#include "hook-fixture.h"

struct fx {
	char tmp[64];
	struct agent_conf *conf;
	struct metrics *m;
};

static int
setup(void **state)
{
	struct fx *f = xcalloc(1, sizeof(*f));
	char *d;

	snprintf(f->tmp, sizeof(f->tmp), "/tmp/test-webhook-XXXXXX");
	if (mkdtemp(f->tmp) == NULL)
		return -1;
	d = xasprintf("%s/creds", f->tmp);
	mkdir(d, 0700);
	free(d);
	f->m = metrics_new();
	metrics_family(f->m, "artemis_gitops_notifications_sent_total",
	    METRICS_COUNTER, "s", (const char *[]){"channel", NULL}, NULL, 0);
	metrics_family(f->m, "artemis_gitops_notifications_dropped_total",
	    METRICS_COUNTER, "d", (const char *[]){"channel", NULL}, NULL, 0);
	metrics_family(f->m,
	    "artemis_gitops_notifications_failed_attempts_total",
	    METRICS_COUNTER, "f", (const char *[]){"channel", NULL}, NULL, 0);
	metrics_family(f->m, "artemis_gitops_notifications_pending",
	    METRICS_GAUGE, "p", (const char *[]){"channel", NULL}, NULL, 0);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fx *f = *state;
	char *cmd = xasprintf("rm -rf %s", f->tmp);
	int r = system(cmd);

	free(cmd);
	agent_conf_free(f->conf);
	metrics_free(f->m);
	free(f);
	return r == 0 ? 0 : -1;
}

static void
put_secret(struct fx *f, const char *name, const char *text, mode_t mode)
{
	char *p = xasprintf("%s/creds/%s", f->tmp, name);
	struct err err = {0};

	assert_int_equal(afile_write(p, text, strlen(text), mode, &err), 0);
	assert_int_equal(chmod(p, mode), 0);
	free(p);
}

/* The configuration with the targets' YAML (a list) and extra keys. */
static void
configure(struct fx *f, const char *targets, const char *extra)
{
	struct errlist d = {0};
	char *text = xasprintf("version: 1\nrepository: {url: file:///r}\n"
	                       "state: %s/state\ncredentials: %s/creds\n"
	                       "notifications:\n  targets: %s\n%s",
	    f->tmp, f->tmp, targets, extra);

	agent_conf_free(f->conf);
	f->conf = NULL;
	if (agent_conf_parse(&f->conf, "c.yaml", f->tmp, text, strlen(text),
	        &d) < 0)
		fail_msg("%s", d.items[0].msg);
	errlist_release(&d);
	free(text);
}

/* The value of family{channel="target"} in the text format, -1 when the
 * series is not there. */
static double
metric(struct fx *f, const char *family, const char *target)
{
	struct sbuf b = {0};
	char *want = xasprintf("\n%s{channel=\"%s\"} ", family, target);
	const char *at;
	double v = -1;

	metrics_render(f->m, &b);
	at = strstr(sbuf_str(&b), want);
	if (at != NULL)
		v = strtod(at + strlen(want), NULL);
	sbuf_release(&b);
	free(want);
	return v;
}

static struct agent_event *
ev(enum agent_event_kind k, const char *cluster, int i)
{
	char *t = xasprintf("event %d", i);
	struct agent_event *e = agent_event_new(k, cluster, t);

	free(t);
	return e;
}

static void
post(struct webhook *w, enum agent_event_kind k, const char *cluster, int i)
{
	struct agent_event *e = ev(k, cluster, i);

	webhook_post(w, e);
	agent_event_free(e);
}

/* Files left in target's spool. */
static size_t
spooled(struct fx *f, const char *target)
{
	struct webhook_spool_entry *v = NULL;
	struct err err = {0};
	char *dir =
	    xasprintf("%s/state/notifications/spool/%s", f->tmp, target);
	size_t n = 0;

	assert_int_equal(webhook_spool_list(&v, &n, dir, NULL, NULL, &err), 0);
	free(v);
	free(dir);
	return n;
}

static void
test_webhook__in_order_and_only_what_each_target_wants(void **state)
{
	static const int ok[] = {200};
	struct fx *f = *state;
	struct hook_rx a, b;
	struct webhook *w = NULL;
	struct err err = {0};
	char *targets;
	size_t i;

	hook_start(&a, ok, 1);
	hook_start(&b, ok, 1);
	put_secret(f, "a.secret", "alpha-secret\n", 0600);
	put_secret(f, "b.url", "http://127.0.0.1:1/never\n", 0600);
	targets = xasprintf(
	    "[{name: a, url: 'http://127.0.0.1:%u/a', secret-file: a.secret},"
	    " {name: b, url: 'http://127.0.0.1:%u/b', secret-file: a.secret,"
	    "  format: slack, events: [drift.*], clusters: [eu]}]",
	    a.port, b.port);
	configure(f, targets, "");
	assert_int_equal(webhook_start(&w, f->conf, f->m, &err), 0);
	for (i = 0; i < 10; i++)
		post(w, AGENT_EVENT_PREVIEW_POSTED, "eu", (int)i);
	post(w, AGENT_EVENT_DRIFT_DETECTED, "us", 10);
	post(w, AGENT_EVENT_DRIFT_DETECTED, "eu", 11);
	/* what has no cluster is everybody's, when its kind is wanted */
	post(w, AGENT_EVENT_HISTORY_REWRITTEN, NULL, 12);
	assert_int_equal(hook_wait(&a, 13, 10000), 13);
	assert_int_equal(hook_wait(&b, 1, 10000), 1);
	webhook_drain(w, 5000);
	for (i = 0; i < 10; i++) {
		char *want = xasprintf("\"title\":\"event %zu\"", i);

		assert_non_null(strstr(a.got[i].body, want));
		free(want);
	}
	assert_non_null(strstr(b.got[0].body, "event 11"));
	assert_non_null(strstr(b.got[0].body, "\"attachments\""));
	assert_true(
	    metric(f, "artemis_gitops_notifications_sent_total", "a") == 13);
	assert_true(
	    metric(f, "artemis_gitops_notifications_pending", "a") == 0);
	assert_int_equal(spooled(f, "a"), 0);
	webhook_stop(w);
	hook_stop(&a);
	hook_stop(&b);
	free(targets);
}

static void
test_webhook__retries_to_the_bound_then_drops(void **state)
{
	/* 503 twice (the first delivery's two attempts), then 404 (the
	 * second's: dropped at once), then 200 */
	static const int script[] = {503, 503, 404, 200};
	struct fx *f = *state;
	struct hook_rx rx;
	struct webhook *w = NULL;
	struct err err = {0};
	char *targets;
	int64_t t0;

	hook_start(&rx, script, 4);
	put_secret(f, "s", "k\n", 0600);
	targets = xasprintf(
	    "[{name: t, url: 'http://127.0.0.1:%u/', secret-file: s}]",
	    rx.port);
	configure(f, targets,
	    "  max-attempts: 2\n  retry-initial: 1s\n  retry-max: 1s\n");
	assert_int_equal(webhook_start(&w, f->conf, f->m, &err), 0);
	t0 = clock_monotonic_ms();
	post(w, AGENT_EVENT_APPLY_FAILED, "eu", 1);
	post(w, AGENT_EVENT_APPLY_FAILED, "eu", 2);
	post(w, AGENT_EVENT_APPLY_FAILED, "eu", 3);
	assert_int_equal(hook_wait(&rx, 4, 10000), 4);
	webhook_drain(w, 5000);
	/* one backoff of 0.5 to 1 s between the first two attempts */
	assert_true(clock_monotonic_ms() - t0 >= 500);
	assert_non_null(strstr(rx.got[0].body, "event 1"));
	assert_non_null(strstr(rx.got[1].body, "event 1"));
	assert_non_null(strstr(rx.got[2].body, "event 2"));
	assert_non_null(strstr(rx.got[3].body, "event 3"));
	/* the same delivery id on a retry, a new timestamp allowed */
	assert_memory_equal(strstr(rx.got[0].body, "\"delivery\""),
	    strstr(rx.got[1].body, "\"delivery\""), 50);
	assert_true(
	    metric(f, "artemis_gitops_notifications_dropped_total", "t") == 2);
	assert_true(
	    metric(f, "artemis_gitops_notifications_sent_total", "t") == 1);
	assert_true(
	    metric(f, "artemis_gitops_notifications_failed_attempts_total",
	        "t") == 3);
	assert_int_equal(spooled(f, "t"), 0);
	webhook_stop(w);
	hook_stop(&rx);
	free(targets);
}

static void
test_webhook__spool_survives_a_restart(void **state)
{
	static const int ok[] = {200};
	struct fx *f = *state;
	struct hook_rx rx;
	struct webhook *w = NULL;
	struct err err = {0};
	char *targets;
	int i;

	put_secret(f, "s", "k\n", 0600);
	/* nobody listens on port 1: every attempt refused, all kept */
	configure(f, "[{name: t, url: 'http://127.0.0.1:1/', secret-file: s}]",
	    "  retry-initial: 60s\n");
	assert_int_equal(webhook_start(&w, f->conf, f->m, &err), 0);
	for (i = 0; i < 5; i++)
		post(w, AGENT_EVENT_NODE_UNREACHABLE, "eu", i);
	webhook_drain(w, 5000);
	webhook_stop(w);
	w = NULL;
	assert_int_equal(spooled(f, "t"), 5);
	/* the next run delivers them, in order, then the new one */
	hook_start(&rx, ok, 1);
	targets = xasprintf(
	    "[{name: t, url: 'http://127.0.0.1:%u/', secret-file: s}]",
	    rx.port);
	configure(f, targets, "");
	assert_int_equal(webhook_start(&w, f->conf, f->m, &err), 0);
	post(w, AGENT_EVENT_NODE_REACHABLE, "eu", 5);
	assert_int_equal(hook_wait(&rx, 6, 10000), 6);
	for (i = 0; i < 6; i++) {
		char *want = xasprintf("\"title\":\"event %d\"", i);

		assert_non_null(strstr(rx.got[i].body, want));
		free(want);
	}
	webhook_drain(w, 5000);
	assert_int_equal(spooled(f, "t"), 0);
	webhook_stop(w);
	hook_stop(&rx);
	free(targets);
}

static void
test_webhook__spool_max_drops_the_oldest(void **state)
{
	struct fx *f = *state;
	struct webhook *w = NULL;
	struct err err = {0};
	int i;

	put_secret(f, "s", "k\n", 0600);
	configure(f, "[{name: t, url: 'http://127.0.0.1:1/', secret-file: s}]",
	    "  retry-initial: 60s\n  spool-max: 3\n");
	assert_int_equal(webhook_start(&w, f->conf, f->m, &err), 0);
	for (i = 0; i < 6; i++)
		post(w, AGENT_EVENT_DRIFT_DETECTED, "eu", i);
	webhook_drain(w, 5000);
	assert_true(
	    metric(f, "artemis_gitops_notifications_pending", "t") == 3);
	assert_int_equal(spooled(f, "t"), 3);
	assert_true(
	    metric(f, "artemis_gitops_notifications_dropped_total", "t") == 3);
	webhook_stop(w);
}

static void
test_webhook__secrets_are_checked(void **state)
{
	struct fx *f = *state;
	struct webhook *w = NULL;
	struct err err = {0};

	put_secret(f, "loose", "k\n", 0644);
	configure(f,
	    "[{name: t, url: 'http://127.0.0.1:1/', secret-file: loose}]", "");
	assert_int_equal(webhook_start(&w, f->conf, f->m, &err), -1);
	assert_null(w);
	assert_non_null(strstr(err.msg, "secret-file"));
	assert_non_null(strstr(err.msg, "mode 0644"));
	err_release(&err);
	configure(f, "[{name: t, url: 'http://127.0.0.1:1/', secret-file: no}]",
	    "");
	assert_int_equal(webhook_check(f->conf, &err), -1);
	assert_non_null(strstr(err.msg, "No such file"));
	err_release(&err);
	put_secret(f, "s", "k\n", 0600);
	put_secret(f, "u", "ftp://example.com/\n", 0600);
	configure(f, "[{name: t, url-file: u, secret-file: s}]", "");
	assert_int_equal(webhook_check(f->conf, &err), -1);
	assert_non_null(
	    strstr(err.msg, "does not hold an http:// or https://"));
	assert_null(strstr(err.msg, "example.com"));
	err_release(&err);
}

static void
test_webhook__a_stop_does_not_wait_for_a_hung_receiver(void **state)
{
	static const int hang[] = {-1};
	struct fx *f = *state;
	struct hook_rx rx;
	struct webhook *w = NULL;
	struct err err = {0};
	char *targets;
	int64_t t0;

	/* the receiver reads and never answers; the attempt would last the
	 * whole timeout (60 s) */
	hook_start(&rx, hang, 1);
	put_secret(f, "s", "k\n", 0600);
	targets = xasprintf(
	    "[{name: t, url: 'http://127.0.0.1:%u/', secret-file: s}]",
	    rx.port);
	configure(f, targets, "  timeout: 60s\n");
	assert_int_equal(webhook_start(&w, f->conf, f->m, &err), 0);
	post(w, AGENT_EVENT_APPLY_SUCCEEDED, "eu", 1);
	assert_int_equal(hook_wait(&rx, 1, 10000), 1);
	t0 = clock_monotonic_ms();
	webhook_stop(w);
	assert_true(clock_monotonic_ms() - t0 < 2000);
	/* abandoned, not an attempt: it is still there for the next run */
	assert_int_equal(spooled(f, "t"), 1);
	hook_stop(&rx);
	free(targets);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(
	        test_webhook__in_order_and_only_what_each_target_wants, setup,
	        teardown),
	    cmocka_unit_test_setup_teardown(
	        test_webhook__retries_to_the_bound_then_drops, setup, teardown),
	    cmocka_unit_test_setup_teardown(
	        test_webhook__spool_survives_a_restart, setup, teardown),
	    cmocka_unit_test_setup_teardown(
	        test_webhook__spool_max_drops_the_oldest, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_webhook__secrets_are_checked,
	        setup, teardown),
	    cmocka_unit_test_setup_teardown(
	        test_webhook__a_stop_does_not_wait_for_a_hung_receiver, setup,
	        teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
