/* tests/unit/test-metrics.c: lib/metrics.c, the registry and its text
 * format; the rendered text is also checked by the real promtool
 * (Debian prometheus, scripts/install-deps). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* Does text contain line (a whole line)? */
static bool
has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	const char *p = text;

	while ((p = strstr(p, line)) != NULL) {
		if ((p == text || p[-1] == '\n') && (p[n] == '\n'))
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

/* `promtool check metrics` on text: its exit status; its output (the
 * lint's complaints) in *out. */
static int
promtool(const char *text, char **out)
{
	char path[] = "/tmp/test-metrics-XXXXXX";
	char cmd[256], buf[4096];
	struct sbuf b = {0};
	size_t n;
	FILE *f, *p;
	int fd, st;

	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	snprintf(cmd, sizeof(cmd), "promtool check metrics < %s 2>&1", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	while ((n = fread(buf, 1, sizeof(buf), p)) > 0)
		sbuf_add(&b, buf, n);
	st = pclose(p);
	unlink(path);
	*out = sbuf_take(&b);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
		fail_msg("promtool is not installed (Debian prometheus, "
		         "scripts/install-deps): %s",
		    *out);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void
test_metrics__counter_with_labels(void **state)
{
	static const char *const labels[] = {"cluster", "result", NULL};
	const char *a[] = {"prod", "ok"}, *b[] = {"prod", "failed"};
	struct metrics *m = metrics_new();
	char *t;

	(void)state;
	assert_int_equal(metrics_family(m, "x_applies_total", METRICS_COUNTER,
	                     "Applies by cluster and result.", labels, NULL, 0),
	    0);
	metrics_add(m, "x_applies_total", a, 1);
	metrics_add(m, "x_applies_total", a, 2);
	metrics_touch(m, "x_applies_total", b);
	metrics_add(m, "x_applies_total", a, -1);  /* ignored */
	metrics_add(m, "x_applies_total", a, NAN); /* ignored */
	t = render(m);
	assert_string_equal(t,
	    "# HELP x_applies_total Applies by cluster and result.\n"
	    "# TYPE x_applies_total counter\n"
	    "x_applies_total{cluster=\"prod\",result=\"failed\"} 0\n"
	    "x_applies_total{cluster=\"prod\",result=\"ok\"} 3\n");
	free(t);
	metrics_free(m);
}

static void
test_metrics__gauge_without_labels(void **state)
{
	struct metrics *m = metrics_new();
	char *t;

	(void)state;
	assert_int_equal(metrics_family(m, "x_connections", METRICS_GAUGE,
	                     "Open connections.", NULL, NULL, 0),
	    0);
	t = render(m);
	assert_string_equal(t, "# HELP x_connections Open connections.\n"
	                       "# TYPE x_connections gauge\n");
	free(t);
	metrics_set(m, "x_connections", NULL, 7);
	metrics_set(m, "x_connections", NULL, -2.5);
	t = render(m);
	assert_line(t, "x_connections -2.5");
	free(t);
	metrics_set(m, "x_connections", NULL, 1764630000.25);
	t = render(m);
	assert_line(t, "x_connections 1764630000.25");
	free(t);
	metrics_set(m, "x_connections", NULL, 0.1);
	t = render(m);
	assert_line(t, "x_connections 0.1");
	free(t);
	metrics_set(m, "x_connections", NULL, INFINITY);
	t = render(m);
	assert_line(t, "x_connections +Inf");
	free(t);
	metrics_set(m, "x_connections", NULL, NAN);
	t = render(m);
	assert_line(t, "x_connections NaN");
	free(t);
	metrics_free(m);
}

static void
test_metrics__histogram_cumulative(void **state)
{
	static const char *const labels[] = {"cluster", NULL};
	static const double b[] = {0.1, 1, 10};
	const char *v[] = {"prod"};
	struct metrics *m = metrics_new();
	char *t;

	(void)state;
	assert_int_equal(metrics_family(m, "x_plan_duration_seconds",
	                     METRICS_HISTOGRAM, "Plans.", labels, b, 3),
	    0);
	metrics_observe(m, "x_plan_duration_seconds", v, 0.05);
	metrics_observe(m, "x_plan_duration_seconds", v, 0.1); /* le is <= */
	metrics_observe(m, "x_plan_duration_seconds", v, 5);
	metrics_observe(m, "x_plan_duration_seconds", v, 100);
	metrics_observe(m, "x_plan_duration_seconds", v, NAN); /* ignored */
	t = render(m);
	assert_string_equal(t,
	    "# HELP x_plan_duration_seconds Plans.\n"
	    "# TYPE x_plan_duration_seconds histogram\n"
	    "x_plan_duration_seconds_bucket{cluster=\"prod\",le=\"0.1\"} 2\n"
	    "x_plan_duration_seconds_bucket{cluster=\"prod\",le=\"1\"} 2\n"
	    "x_plan_duration_seconds_bucket{cluster=\"prod\",le=\"10\"} 3\n"
	    "x_plan_duration_seconds_bucket{cluster=\"prod\",le=\"+Inf\"} 4\n"
	    "x_plan_duration_seconds_sum{cluster=\"prod\"} 105.15\n"
	    "x_plan_duration_seconds_count{cluster=\"prod\"} 4\n");
	free(t);
	metrics_free(m);
}

static void
test_metrics__histogram_touch_is_zero(void **state)
{
	static const double b[] = {1};
	struct metrics *m = metrics_new();
	char *t;

	(void)state;
	assert_int_equal(metrics_family(m, "x_cycle_duration_seconds",
	                     METRICS_HISTOGRAM, "Cycles.", NULL, b, 1),
	    0);
	metrics_touch(m, "x_cycle_duration_seconds", NULL);
	t = render(m);
	assert_line(t, "x_cycle_duration_seconds_bucket{le=\"1\"} 0");
	assert_line(t, "x_cycle_duration_seconds_bucket{le=\"+Inf\"} 0");
	assert_line(t, "x_cycle_duration_seconds_sum 0");
	assert_line(t, "x_cycle_duration_seconds_count 0");
	free(t);
	metrics_free(m);
}

static void
test_metrics__wrong_type_or_name_ignored(void **state)
{
	static const char *const labels[] = {"node", NULL};
	const char *v[] = {"a"};
	struct metrics *m = metrics_new();
	char *t;

	(void)state;
	assert_int_equal(
	    metrics_family(m, "x_up", METRICS_GAUGE, "Up.", labels, NULL, 0),
	    0);
	metrics_add(m, "x_up", v, 1);     /* a gauge is set, not added */
	metrics_observe(m, "x_up", v, 1); /* nor observed */
	metrics_set(m, "x_nope", v, 1);   /* never declared */
	metrics_set(m, "x_up", NULL, 1);  /* values missing */
	metrics_set(m, NULL, v, 1);
	t = render(m);
	assert_string_equal(t, "# HELP x_up Up.\n# TYPE x_up gauge\n");
	free(t);
	metrics_set(m, "x_up", v, 1);
	t = render(m);
	assert_line(t, "x_up{node=\"a\"} 1");
	free(t);
	metrics_free(m);
}

static void
test_metrics__label_values_escaped(void **state)
{
	static const char *const labels[] = {"queue", NULL};
	const char *v1[] = {"a\\b\"c\nd"};
	const char *v2[] = {"tab\there"};
	const char *v3[] = {"bad\xff\xfe utf8 \xc3\xa9"};
	const char *v4[] = {"esc\x1b[31m del\x7f c1\xc2\x85"};
	struct metrics *m = metrics_new();
	char *t, *out = NULL;

	(void)state;
	assert_int_equal(metrics_family(m, "x_depth", METRICS_GAUGE,
	                     "Help with \\ and\nnewline.", labels, NULL, 0),
	    0);
	metrics_set(m, "x_depth", v1, 1);
	metrics_set(m, "x_depth", v2, 2);
	metrics_set(m, "x_depth", v3, 3);
	metrics_set(m, "x_depth", v4, 4);
	t = render(m);
	assert_line(t, "# HELP x_depth Help with \\\\ and\\nnewline.");
	assert_line(t, "x_depth{queue=\"a\\\\b\\\"c\\nd\"} 1");
	assert_line(t, "x_depth{queue=\"tab\xef\xbf\xbdhere\"} 2");
	assert_line(t, "x_depth{queue=\"bad\xef\xbf\xbd\xef\xbf\xbd utf8 "
	               "\xc3\xa9\"} 3");
	assert_line(t, "x_depth{queue=\"esc\xef\xbf\xbd[31m "
	               "del\xef\xbf\xbd c1\xef\xbf\xbd\"} 4");
	if (promtool(t, &out) != 0)
		fail_msg("promtool refused:\n%s\n%s", t, out);
	free(out);
	free(t);
	/* the cleaned value is the series: the same one again */
	metrics_set(m, "x_depth", (const char *[]){"tab\rhere"}, 5);
	t = render(m);
	assert_line(t, "x_depth{queue=\"tab\xef\xbf\xbdhere\"} 5");
	free(t);
	metrics_free(m);
}

static void
test_metrics__series_sorted(void **state)
{
	static const char *const labels[] = {"cluster", "node", NULL};
	struct metrics *m = metrics_new();
	const char *p;
	char *t;

	(void)state;
	assert_int_equal(
	    metrics_family(m, "x_up", METRICS_GAUGE, "Up.", labels, NULL, 0),
	    0);
	metrics_set(m, "x_up", (const char *[]){"b", "n1"}, 1);
	metrics_set(m, "x_up", (const char *[]){"a", "n2"}, 1);
	metrics_set(m, "x_up", (const char *[]){"a", "n1"}, 0);
	t = render(m);
	p = strstr(t, "x_up{cluster=\"a\",node=\"n1\"} 0\n"
	              "x_up{cluster=\"a\",node=\"n2\"} 1\n"
	              "x_up{cluster=\"b\",node=\"n1\"} 1\n");
	assert_non_null(p);
	free(t);
	metrics_free(m);
}

static void
test_metrics__series_cap(void **state)
{
	static const char *const labels[] = {"node", NULL};
	struct metrics *m = metrics_new();
	char name[32], line[64];
	const char *v[] = {name};
	size_t i, n = 0;
	const char *p;
	char *t;

	(void)state;
	assert_int_equal(
	    metrics_family(m, "x_up", METRICS_GAUGE, "Up.", labels, NULL, 0),
	    0);
	for (i = 0; i < METRICS_SERIES_MAX + 10; i++) {
		snprintf(name, sizeof(name), "n%05zu", i);
		metrics_set(m, "x_up", v, 1);
	}
	/* an existing series still takes values past the cap */
	snprintf(name, sizeof(name), "n%05d", 0);
	metrics_set(m, "x_up", v, 2);
	t = render(m);
	for (p = t; (p = strstr(p, "\nx_up{")) != NULL; p++)
		n++;
	assert_int_equal(n, METRICS_SERIES_MAX);
	assert_line(t, "x_up{node=\"n00000\"} 2");
	snprintf(line, sizeof(line), "x_up{node=\"n%05d\"} 1",
	    METRICS_SERIES_MAX - 1);
	assert_line(t, line);
	snprintf(line, sizeof(line), "x_up{node=\"n%05d\"} 1",
	    METRICS_SERIES_MAX);
	assert_false(has_line(t, line));
	assert_line(t, "# dropped 10 series of x_up");
	free(t);
	/* forgetting makes room again */
	metrics_forget(m, "x_up", "node", "n00001");
	snprintf(name, sizeof(name), "n%05d", METRICS_SERIES_MAX + 1);
	metrics_set(m, "x_up", v, 3);
	t = render(m);
	snprintf(line, sizeof(line), "x_up{node=\"n%05d\"} 3",
	    METRICS_SERIES_MAX + 1);
	assert_line(t, line);
	assert_false(has_line(t, "x_up{node=\"n00001\"} 1"));
	free(t);
	metrics_free(m);
}

static void
test_metrics__forget(void **state)
{
	static const char *const labels[] = {"cluster", "node", NULL};
	static const double b[] = {1};
	struct metrics *m = metrics_new();
	char *t;

	(void)state;
	assert_int_equal(
	    metrics_family(m, "x_up", METRICS_GAUGE, "Up.", labels, NULL, 0),
	    0);
	assert_int_equal(metrics_family(m, "x_read_seconds", METRICS_HISTOGRAM,
	                     "Reads.", labels, b, 1),
	    0);
	metrics_set(m, "x_up", (const char *[]){"a", "n1"}, 1);
	metrics_set(m, "x_up", (const char *[]){"a", "n2"}, 1);
	metrics_set(m, "x_up", (const char *[]){"b", "n1"}, 1);
	metrics_observe(m, "x_read_seconds", (const char *[]){"a", "n1"}, 0.5);
	metrics_forget(m, "x_up", "cluster", "a");
	metrics_forget(m, "x_up", "nolabel", "b"); /* nothing */
	metrics_forget(m, "x_nope", "cluster", "b");
	t = render(m);
	assert_false(has_line(t, "x_up{cluster=\"a\",node=\"n1\"} 1"));
	assert_false(has_line(t, "x_up{cluster=\"a\",node=\"n2\"} 1"));
	assert_line(t, "x_up{cluster=\"b\",node=\"n1\"} 1");
	assert_line(t, "x_read_seconds_count{cluster=\"a\",node=\"n1\"} 1");
	free(t);
	metrics_forget(m, "x_read_seconds", "node", "n1");
	t = render(m);
	assert_null(strstr(t, "x_read_seconds_count"));
	free(t);
	metrics_free(m);
}

static void
test_metrics__declaration_errors(void **state)
{
	static const char *const ok[] = {"cluster", NULL};
	static const char *const bad[] = {"1cluster", NULL};
	static const char *const colon[] = {"a:b", NULL};
	static const char *const dup[] = {"a", "a", NULL};
	static const char *const reserved[] = {"__name", NULL};
	static const char *const le[] = {"le", NULL};
	static const char *const five[] = {"a", "b", "c", "d", "e", NULL};
	static const double inc[] = {1, 2}, flat[] = {1, 1}, down[] = {2, 1};
	static const double inf[] = {1, INFINITY};
	double many[METRICS_BUCKETS_MAX + 1];
	struct metrics *m = metrics_new();
	size_t i;

	(void)state;
	for (i = 0; i < METRICS_BUCKETS_MAX + 1; i++)
		many[i] = (double)i;
	assert_int_equal(
	    metrics_family(m, "x_a", METRICS_GAUGE, "", ok, NULL, 0), 0);
	assert_int_equal(
	    metrics_family(m, "x_a", METRICS_GAUGE, "", ok, NULL, 0), -1);
	assert_int_equal(
	    metrics_family(m, "x:ns_b", METRICS_COUNTER, "", NULL, NULL, 0), 0);
	assert_int_equal(
	    metrics_family(m, "9x", METRICS_GAUGE, "", NULL, NULL, 0), -1);
	assert_int_equal(
	    metrics_family(m, "x-y", METRICS_GAUGE, "", NULL, NULL, 0), -1);
	assert_int_equal(
	    metrics_family(m, "", METRICS_GAUGE, "", NULL, NULL, 0), -1);
	assert_int_equal(
	    metrics_family(m, NULL, METRICS_GAUGE, "", NULL, NULL, 0), -1);
	assert_int_equal(
	    metrics_family(m, "x_c", METRICS_GAUGE, "", bad, NULL, 0), -1);
	assert_int_equal(
	    metrics_family(m, "x_c", METRICS_GAUGE, "", colon, NULL, 0), -1);
	assert_int_equal(
	    metrics_family(m, "x_c", METRICS_GAUGE, "", dup, NULL, 0), -1);
	assert_int_equal(
	    metrics_family(m, "x_c", METRICS_GAUGE, "", reserved, NULL, 0), -1);
	assert_int_equal(
	    metrics_family(m, "x_c", METRICS_GAUGE, "", five, NULL, 0), -1);
	assert_int_equal(
	    metrics_family(m, "x_c", METRICS_HISTOGRAM, "", le, inc, 2), -1);
	assert_int_equal(
	    metrics_family(m, "x_c", METRICS_GAUGE, "", NULL, inc, 2), -1);
	assert_int_equal(
	    metrics_family(m, "x_c", METRICS_HISTOGRAM, "", NULL, NULL, 0), -1);
	assert_int_equal(
	    metrics_family(m, "x_c", METRICS_HISTOGRAM, "", NULL, flat, 2), -1);
	assert_int_equal(
	    metrics_family(m, "x_c", METRICS_HISTOGRAM, "", NULL, down, 2), -1);
	assert_int_equal(
	    metrics_family(m, "x_c", METRICS_HISTOGRAM, "", NULL, inf, 2), -1);
	assert_int_equal(metrics_family(m, "x_c", METRICS_HISTOGRAM, "", NULL,
	                     many, METRICS_BUCKETS_MAX + 1),
	    -1);
	assert_int_equal(metrics_family(m, "x_c", METRICS_HISTOGRAM, "", NULL,
	                     many, METRICS_BUCKETS_MAX),
	    0);
	assert_int_equal(
	    metrics_family(m, "x_d", (enum metrics_type)7, "", NULL, NULL, 0),
	    -1);
	metrics_free(m);
	metrics_free(NULL);
}

static void
test_metrics__declaration_order(void **state)
{
	struct metrics *m = metrics_new();
	char *t;

	(void)state;
	assert_int_equal(
	    metrics_family(m, "x_z", METRICS_GAUGE, "Z.", NULL, NULL, 0), 0);
	assert_int_equal(
	    metrics_family(m, "x_a", METRICS_GAUGE, "A.", NULL, NULL, 0), 0);
	t = render(m);
	assert_true(strstr(t, "x_z") < strstr(t, "x_a"));
	free(t);
	metrics_free(m);
}

struct worker {
	struct metrics *m;
	int id;
};

static void *
work(void *arg)
{
	const struct worker *w = arg;
	char node[16];
	const char *v[] = {node};
	struct sbuf b = {0};
	int i;

	snprintf(node, sizeof(node), "n%d", w->id % 4);
	for (i = 0; i < 2000; i++) {
		metrics_add(w->m, "x_reads_total", v, 1);
		metrics_observe(w->m, "x_read_seconds", v, 0.01 * (i % 7));
		if (i % 100 == 0) {
			sbuf_reset(&b);
			metrics_render(w->m, &b);
		}
	}
	sbuf_release(&b);
	return NULL;
}

static void
test_metrics__threads(void **state)
{
	static const char *const labels[] = {"node", NULL};
	static const double b[] = {0.01, 0.1};
	struct worker w[8];
	pthread_t th[8];
	struct metrics *m = metrics_new();
	char *t, *out = NULL;
	int i;

	(void)state;
	assert_int_equal(metrics_family(m, "x_reads_total", METRICS_COUNTER,
	                     "Reads.", labels, NULL, 0),
	    0);
	assert_int_equal(metrics_family(m, "x_read_seconds", METRICS_HISTOGRAM,
	                     "Read time.", labels, b, 2),
	    0);
	for (i = 0; i < 8; i++) {
		w[i].m = m;
		w[i].id = i;
		assert_int_equal(pthread_create(&th[i], NULL, work, &w[i]), 0);
	}
	for (i = 0; i < 8; i++)
		pthread_join(th[i], NULL);
	t = render(m);
	assert_line(t, "x_reads_total{node=\"n0\"} 4000");
	assert_line(t, "x_reads_total{node=\"n3\"} 4000");
	assert_line(t, "x_read_seconds_count{node=\"n2\"} 4000");
	assert_line(t, "x_read_seconds_bucket{node=\"n2\",le=\"+Inf\"} 4000");
	if (promtool(t, &out) != 0)
		fail_msg("promtool refused:\n%s\n%s", t, out);
	free(out);
	free(t);
	metrics_free(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_metrics__counter_with_labels),
	    cmocka_unit_test(test_metrics__gauge_without_labels),
	    cmocka_unit_test(test_metrics__histogram_cumulative),
	    cmocka_unit_test(test_metrics__histogram_touch_is_zero),
	    cmocka_unit_test(test_metrics__wrong_type_or_name_ignored),
	    cmocka_unit_test(test_metrics__label_values_escaped),
	    cmocka_unit_test(test_metrics__series_sorted),
	    cmocka_unit_test(test_metrics__series_cap),
	    cmocka_unit_test(test_metrics__forget),
	    cmocka_unit_test(test_metrics__declaration_errors),
	    cmocka_unit_test(test_metrics__declaration_order),
	    cmocka_unit_test(test_metrics__threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
