/* tests/unit/test-web-metrics.c: agent/web/web-metrics.c, the table of
 * metric families: every family of docs/http-api.md "Metrics" declared
 * with its type and labels, and the registry's text, with a series of
 * each, accepted by the real promtool (its lint: help, _total counters,
 * base units). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../agent/web/web-int.h"
#include "../../lib/metrics.h"
#include "../../lib/sbuf.h"

static char *
render(struct metrics *m)
{
	struct sbuf b = {0};

	metrics_render(m, &b);
	assert_false(b.failed);
	return sbuf_take(&b);
}

static bool
has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	const char *p = text;

	while ((p = strstr(p, line)) != NULL) {
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return true;
		p++;
	}
	return false;
}

#define assert_line(text, line)                                                \
	do {                                                                   \
		if (!has_line((text), (line)))                                 \
			fail_msg("missing line '%s' in:\n%s", (line), (text)); \
	} while (0)

/* The contract's families (docs/http-api.md): name, type. */
static const char *const contract[][2] = {
    {"artemis_gitops_build_info", "gauge"},
    {"artemis_gitops_cycles_total", "counter"},
    {"artemis_gitops_cycle_duration_seconds", "histogram"},
    {"artemis_gitops_fetch_duration_seconds", "histogram"},
    {"artemis_gitops_plan_duration_seconds", "histogram"},
    {"artemis_gitops_apply_duration_seconds", "histogram"},
    {"artemis_gitops_previews", "gauge"},
    {"artemis_gitops_applies_total", "counter"},
    {"artemis_gitops_node_up", "gauge"},
    {"artemis_gitops_node_read_duration_seconds", "histogram"},
    {"artemis_gitops_node_last_read_timestamp_seconds", "gauge"},
    {"artemis_gitops_node_requests_total", "counter"},
    {"artemis_gitops_drift_objects", "gauge"},
    {"artemis_gitops_last_apply_success_timestamp_seconds", "gauge"},
    {"artemis_gitops_notifications_sent_total", "counter"},
    {"artemis_gitops_notifications_dropped_total", "counter"},
    {"artemis_gitops_notifications_failed_attempts_total", "counter"},
    {"artemis_gitops_notifications_pending", "gauge"},
    {"artemis_gitops_http_requests_total", "counter"},
    {"artemis_gitops_http_connections", "gauge"},
    {"artemis_gitops_cluster_epoch", "gauge"},
    {"artemis_gitops_cluster_owned", "gauge"},
    {"artemis_gitops_coordination_members", "gauge"},
    {"artemis_gitops_coordination_requests_total", "counter"},
    {"artemis_gitops_fenced_total", "counter"},
};

static void
test_web_metrics__every_family_declared(void **state)
{
	struct metrics *m = metrics_new();
	char line[160];
	size_t i, n = 0;
	const char *p;
	char *t;

	(void)state;
	web_metrics_declare(m);
	t = render(m);
	for (i = 0; i < sizeof(contract) / sizeof(contract[0]); i++) {
		snprintf(line, sizeof(line), "# TYPE %s %s", contract[i][0],
		    contract[i][1]);
		assert_line(t, line);
		snprintf(line, sizeof(line), "# HELP %s ", contract[i][0]);
		assert_non_null(strstr(t, line));
	}
	for (p = t; (p = strstr(p, "# TYPE ")) != NULL; p++)
		n++;
	assert_int_equal(n, sizeof(contract) / sizeof(contract[0]));
	assert_line(t,
	    "artemis_gitops_build_info{version=\"" AGENT_VERSION "\"} 1");
	assert_line(t, "artemis_gitops_cycles_total{result=\"ok\"} 0");
	assert_line(t, "artemis_gitops_cycles_total{result=\"failed\"} 0");
	assert_line(t, "artemis_gitops_cycle_duration_seconds_count 0");
	assert_line(t, "artemis_gitops_http_connections 0");
	free(t);
	/* declared twice: the second table is refused family by family */
	assert_int_equal(metrics_family(m, "artemis_gitops_node_up",
	                     METRICS_GAUGE, "", NULL, NULL, 0),
	    -1);
	metrics_free(m);
}

/* One series of every family, with the daemon's label names. */
static void
fill(struct metrics *m)
{
	const char *node[] = {"prod", "broker-a"};

	metrics_add(m, "artemis_gitops_cycles_total", (const char *[]){"ok"},
	    3);
	metrics_observe(m, "artemis_gitops_cycle_duration_seconds", NULL, 0.42);
	metrics_observe(m, "artemis_gitops_fetch_duration_seconds", NULL, 0.03);
	metrics_observe(m, "artemis_gitops_plan_duration_seconds",
	    (const char *[]){"prod"}, 0.2);
	metrics_observe(m, "artemis_gitops_apply_duration_seconds",
	    (const char *[]){"prod"}, 1.5);
	metrics_set(m, "artemis_gitops_previews",
	    (const char *[]){"prod", "pending"}, 1);
	metrics_add(m, "artemis_gitops_applies_total",
	    (const char *[]){"prod", "ok"}, 1);
	metrics_set(m, "artemis_gitops_node_up", node, 1);
	metrics_observe(m, "artemis_gitops_node_read_duration_seconds", node,
	    0.012);
	metrics_set(m, "artemis_gitops_node_last_read_timestamp_seconds", node,
	    1764630000);
	metrics_add(m, "artemis_gitops_node_requests_total",
	    (const char *[]){"prod", "broker-a", "none"}, 1);
	metrics_set(m, "artemis_gitops_drift_objects",
	    (const char *[]){"prod", "missing"}, 2);
	metrics_set(m, "artemis_gitops_last_apply_success_timestamp_seconds",
	    (const char *[]){"prod"}, 1764630001);
	metrics_touch(m, "artemis_gitops_notifications_sent_total",
	    (const char *[]){"mail"});
	metrics_touch(m, "artemis_gitops_notifications_dropped_total",
	    (const char *[]){"mail"});
	metrics_add(m, "artemis_gitops_http_requests_total",
	    (const char *[]){"200"}, 5);
}

static void
test_web_metrics__labels_as_the_daemon_sets_them(void **state)
{
	struct metrics *m = metrics_new();
	char *t;

	(void)state;
	web_metrics_declare(m);
	fill(m);
	t = render(m);
	assert_line(t, "artemis_gitops_cycles_total{result=\"ok\"} 3");
	assert_line(t, "artemis_gitops_plan_duration_seconds_count{cluster="
	               "\"prod\"} 1");
	assert_line(t, "artemis_gitops_previews{cluster=\"prod\",state="
	               "\"pending\"} 1");
	assert_line(t, "artemis_gitops_applies_total{cluster=\"prod\",result="
	               "\"ok\"} 1");
	assert_line(t, "artemis_gitops_node_up{cluster=\"prod\",node="
	               "\"broker-a\"} 1");
	assert_line(t, "artemis_gitops_node_read_duration_seconds_bucket{"
	               "cluster=\"prod\",node=\"broker-a\",le=\"0.025\"} 1");
	assert_line(t, "artemis_gitops_node_last_read_timestamp_seconds{"
	               "cluster=\"prod\",node=\"broker-a\"} 1764630000");
	assert_line(t, "artemis_gitops_node_requests_total{cluster=\"prod\","
	               "node=\"broker-a\",refusal=\"none\"} 1");
	assert_line(t, "artemis_gitops_drift_objects{cluster=\"prod\",kind="
	               "\"missing\"} 2");
	assert_line(t, "artemis_gitops_notifications_sent_total{channel="
	               "\"mail\"} 0");
	assert_line(t, "artemis_gitops_http_requests_total{code=\"200\"} 5");
	free(t);
	metrics_free(m);
}

static void
test_web_metrics__promtool_accepts_it(void **state)
{
	char path[] = "/tmp/test-web-metrics-XXXXXX";
	char cmd[256], buf[4096];
	struct metrics *m = metrics_new();
	struct sbuf out = {0};
	FILE *f, *p;
	char *t;
	size_t n;
	int fd, st;

	(void)state;
	web_metrics_declare(m);
	fill(m);
	t = render(m);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(t, f);
	assert_int_equal(fclose(f), 0);
	snprintf(cmd, sizeof(cmd), "promtool check metrics < %s 2>&1", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	while ((n = fread(buf, 1, sizeof(buf), p)) > 0)
		sbuf_add(&out, buf, n);
	st = pclose(p);
	unlink(path);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fail_msg("promtool check metrics (exit %d; 127: not installed, "
		         "Debian prometheus): %s\n%s",
		    WIFEXITED(st) ? WEXITSTATUS(st) : -1, sbuf_str(&out), t);
	sbuf_release(&out);
	free(t);
	metrics_free(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_web_metrics__every_family_declared),
	    cmocka_unit_test(test_web_metrics__labels_as_the_daemon_sets_them),
	    cmocka_unit_test(test_web_metrics__promtool_accepts_it),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
