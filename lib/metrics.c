/* lib/metrics.c: a registry of Prometheus metrics and the text format
 * 0.0.4 (lib/metrics.h).
 *
 * A family keeps its series in an array sorted by label values (compared
 * value by value, byte order), so a lookup is a binary search and the
 * render needs no sort. Label values are stored as rendered: invalid
 * UTF-8 and control characters other than the line feed replaced by
 * U+FFFD first, so two values that would render alike are one series.
 * A histogram series keeps one count per bucket (not cumulative) and the
 * render sums them.
 */
#include "metrics.h"

#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"
#include "xalloc.h"

struct series {
	char **values; /* one per label name, sanitized */
	double value;  /* counter, gauge */
	double sum;    /* histogram */
	uint64_t count;
	uint64_t buckets[METRICS_BUCKETS_MAX + 1]; /* the last one: +Inf */
};

struct family {
	char *name, *help;
	enum metrics_type type;
	char *labels[METRICS_LABELS_MAX];
	size_t nlabels;
	double bounds[METRICS_BUCKETS_MAX];
	size_t nbounds;
	struct series *series;
	size_t nseries, cap;
	uint64_t dropped; /* new series refused at the cap */
};

struct metrics {
	pthread_mutex_t mu;
	struct family *fams;
	size_t nfams, cap;
};

struct metrics *
metrics_new(void)
{
	struct metrics *m = xcalloc(1, sizeof(*m));

	pthread_mutex_init(&m->mu, NULL);
	return m;
}

static void
series_release(struct series *s, size_t nlabels)
{
	size_t i;

	if (s->values != NULL)
		for (i = 0; i < nlabels; i++)
			free(s->values[i]);
	free(s->values);
	memset(s, 0, sizeof(*s));
}

static void
family_release(struct family *f)
{
	size_t i;

	for (i = 0; i < f->nseries; i++)
		series_release(&f->series[i], f->nlabels);
	free(f->series);
	for (i = 0; i < f->nlabels; i++)
		free(f->labels[i]);
	free(f->name);
	free(f->help);
	memset(f, 0, sizeof(*f));
}

void
metrics_free(struct metrics *m)
{
	size_t i;

	if (m == NULL)
		return;
	for (i = 0; i < m->nfams; i++)
		family_release(&m->fams[i]);
	free(m->fams);
	pthread_mutex_destroy(&m->mu);
	free(m);
}

/* [a-zA-Z_:][a-zA-Z0-9_:]* for a metric name (colon true), without the
 * colons for a label name. */
static bool
name_ok(const char *s, bool colon)
{
	size_t i;
	char c;

	if (s == NULL || s[0] == '\0' || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (i = 0; s[i] != '\0'; i++) {
		c = s[i];
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '_' || (colon && c == ':'))
			continue;
		return false;
	}
	return true;
}

static struct family *
family_find(struct metrics *m, const char *name)
{
	size_t i;

	if (name == NULL)
		return NULL;
	for (i = 0; i < m->nfams; i++)
		if (strcmp(m->fams[i].name, name) == 0)
			return &m->fams[i];
	return NULL;
}

/* The labels a family may have: valid names, none reserved ("__" prefix;
 * "le" on a histogram), no duplicates, at most METRICS_LABELS_MAX. */
static bool
labels_ok(enum metrics_type t, const char *const *labels, size_t *n)
{
	size_t i, j;

	*n = 0;
	if (labels == NULL)
		return true;
	for (i = 0; labels[i] != NULL; i++) {
		if (i >= METRICS_LABELS_MAX || !name_ok(labels[i], false) ||
		    strncmp(labels[i], "__", 2) == 0)
			return false;
		if (t == METRICS_HISTOGRAM && strcmp(labels[i], "le") == 0)
			return false;
		for (j = 0; j < i; j++)
			if (strcmp(labels[i], labels[j]) == 0)
				return false;
	}
	*n = i;
	return true;
}

static bool
buckets_ok(enum metrics_type t, const double *buckets, size_t n)
{
	size_t i;

	if (t != METRICS_HISTOGRAM)
		return buckets == NULL && n == 0;
	if (buckets == NULL || n == 0 || n > METRICS_BUCKETS_MAX)
		return false;
	for (i = 0; i < n; i++) {
		if (!isfinite(buckets[i]))
			return false;
		if (i > 0 && !(buckets[i] > buckets[i - 1]))
			return false;
	}
	return true;
}

int
metrics_family(struct metrics *m, const char *name, enum metrics_type t,
    const char *help, const char *const *labels, const double *buckets,
    size_t nbuckets)
{
	struct family *f;
	size_t nlabels, i;
	int rc = -1;

	if (m == NULL || !name_ok(name, true) ||
	    (t != METRICS_COUNTER && t != METRICS_GAUGE &&
	        t != METRICS_HISTOGRAM) ||
	    !labels_ok(t, labels, &nlabels) ||
	    !buckets_ok(t, buckets, nbuckets))
		return -1;
	pthread_mutex_lock(&m->mu);
	if (family_find(m, name) != NULL)
		goto done;
	xgrow(&m->fams, &m->cap, m->nfams + 1, sizeof(*m->fams));
	f = &m->fams[m->nfams++];
	memset(f, 0, sizeof(*f));
	f->name = xstrdup(name);
	f->help = xstrdup(help != NULL ? help : "");
	f->type = t;
	f->nlabels = nlabels;
	for (i = 0; i < nlabels; i++)
		f->labels[i] = xstrdup(labels[i]);
	f->nbounds = nbuckets;
	for (i = 0; i < nbuckets; i++)
		f->bounds[i] = buckets[i];
	rc = 0;
done:
	pthread_mutex_unlock(&m->mu);
	return rc;
}

/* v as it is stored and rendered: invalid UTF-8 and control characters
 * (C0 but the line feed, DEL, C1) as U+FFFD. Owned. */
static char *
value_clean(const char *v)
{
	struct sbuf b = {0};
	uint32_t cp;
	size_t i = 0, n;

	sbuf_init(&b, SBUF_UNBOUNDED);
	while (v[i] != '\0') {
		n = utf8_decode(v + i, &cp);
		if (n == 0) {
			sbuf_adds(&b, "\xef\xbf\xbd");
			i++;
			continue;
		}
		if ((cp < 0x20 && cp != '\n') || (cp >= 0x7f && cp <= 0x9f))
			sbuf_adds(&b, "\xef\xbf\xbd");
		else
			sbuf_add(&b, v + i, n);
		i += n;
	}
	return sbuf_take(&b);
}

static int
values_cmp(char *const *a, char *const *b, size_t n)
{
	size_t i;
	int c;

	for (i = 0; i < n; i++) {
		c = strcmp(a[i], b[i]);
		if (c != 0)
			return c;
	}
	return 0;
}

/* The index where values is, or would be inserted (*found says which). */
static size_t
series_search(const struct family *f, char *const *values, bool *found)
{
	size_t lo = 0, hi = f->nseries, mid;
	int c;

	*found = false;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		c = values_cmp(f->series[mid].values, values, f->nlabels);
		if (c == 0) {
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The series of f with values, created when missing; NULL past the cap
 * or for a NULL value. Called with the mutex held. */
static struct series *
series_get(struct family *f, const char *const *values)
{
	char *clean[METRICS_LABELS_MAX] = {0};
	struct series *s = NULL;
	size_t i, at;
	bool found;

	if (f->nlabels > 0 && values == NULL)
		return NULL;
	for (i = 0; i < f->nlabels; i++)
		if (values[i] == NULL)
			return NULL;
	for (i = 0; i < f->nlabels; i++)
		clean[i] = value_clean(values[i]);
	at = series_search(f, clean, &found);
	if (found) {
		s = &f->series[at];
		goto done;
	}
	if (f->nseries >= METRICS_SERIES_MAX) {
		f->dropped++;
		goto done;
	}
	xgrow(&f->series, &f->cap, f->nseries + 1, sizeof(*f->series));
	memmove(&f->series[at + 1], &f->series[at],
	    (f->nseries - at) * sizeof(*f->series));
	f->nseries++;
	s = &f->series[at];
	memset(s, 0, sizeof(*s));
	s->values = xcalloc(f->nlabels > 0 ? f->nlabels : 1, sizeof(char *));
	for (i = 0; i < f->nlabels; i++) {
		s->values[i] = clean[i];
		clean[i] = NULL;
	}
done:
	for (i = 0; i < f->nlabels; i++)
		free(clean[i]);
	return s;
}

/* Find family name of type t and the series of values, mutex held; NULL
 * when either is not there (the caller unlocks). */
static struct series *
lookup(struct metrics *m, const char *name, int t, const char *const *values,
    struct family **fout)
{
	struct family *f = family_find(m, name);

	if (f == NULL || (t >= 0 && (int)f->type != t))
		return NULL;
	*fout = f;
	return series_get(f, values);
}

void
metrics_add(struct metrics *m, const char *name, const char *const *values,
    double v)
{
	struct family *f = NULL;
	struct series *s;

	if (m == NULL || !(v >= 0) || !isfinite(v))
		return;
	pthread_mutex_lock(&m->mu);
	s = lookup(m, name, METRICS_COUNTER, values, &f);
	if (s != NULL)
		s->value += v;
	pthread_mutex_unlock(&m->mu);
}

void
metrics_set(struct metrics *m, const char *name, const char *const *values,
    double v)
{
	struct family *f = NULL;
	struct series *s;

	if (m == NULL)
		return;
	pthread_mutex_lock(&m->mu);
	s = lookup(m, name, METRICS_GAUGE, values, &f);
	if (s != NULL)
		s->value = v;
	pthread_mutex_unlock(&m->mu);
}

void
metrics_observe(struct metrics *m, const char *name, const char *const *values,
    double v)
{
	struct family *f = NULL;
	struct series *s;
	size_t i;

	if (m == NULL || isnan(v))
		return;
	pthread_mutex_lock(&m->mu);
	s = lookup(m, name, METRICS_HISTOGRAM, values, &f);
	if (s != NULL) {
		for (i = 0; i < f->nbounds && v > f->bounds[i]; i++)
			;
		s->buckets[i]++;
		s->count++;
		s->sum += v;
	}
	pthread_mutex_unlock(&m->mu);
}

void
metrics_touch(struct metrics *m, const char *name, const char *const *values)
{
	struct family *f = NULL;

	if (m == NULL)
		return;
	pthread_mutex_lock(&m->mu);
	(void)lookup(m, name, -1, values, &f);
	pthread_mutex_unlock(&m->mu);
}

void
metrics_forget(struct metrics *m, const char *name, const char *label,
    const char *value)
{
	struct family *f;
	char *clean;
	size_t li, i, j;

	if (m == NULL || label == NULL || value == NULL)
		return;
	clean = value_clean(value);
	pthread_mutex_lock(&m->mu);
	f = family_find(m, name);
	if (f == NULL)
		goto done;
	for (li = 0; li < f->nlabels; li++)
		if (strcmp(f->labels[li], label) == 0)
			break;
	if (li == f->nlabels)
		goto done;
	for (i = 0, j = 0; i < f->nseries; i++) {
		if (strcmp(f->series[i].values[li], clean) == 0)
			series_release(&f->series[i], f->nlabels);
		else
			f->series[j++] = f->series[i];
	}
	f->nseries = j;
done:
	pthread_mutex_unlock(&m->mu);
	free(clean);
}

/* ---- the text format ---------------------------------------------------- */

/* A sample value or bucket bound: "+Inf", "-Inf", "NaN", or the shortest
 * of %.15g and %.17g that reads back as v. */
static void
fmt_double(char buf[40], double v)
{
	if (isnan(v)) {
		snprintf(buf, 40, "NaN");
		return;
	}
	if (isinf(v)) {
		snprintf(buf, 40, "%s", v > 0 ? "+Inf" : "-Inf");
		return;
	}
	snprintf(buf, 40, "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, 40, "%.17g", v);
}

static void
add_escaped(struct sbuf *out, const char *s, bool quote)
{
	for (; *s != '\0'; s++) {
		if (*s == '\\')
			sbuf_adds(out, "\\\\");
		else if (*s == '\n')
			sbuf_adds(out, "\\n");
		else if (quote && *s == '"')
			sbuf_adds(out, "\\\"");
		else
			sbuf_addc(out, *s);
	}
}

/* name{a="x",b="y"[,le="bound"]} value */
static void
add_sample(struct sbuf *out, const struct family *f, const struct series *s,
    const char *suffix, const char *le, double v)
{
	char num[40];
	size_t i;

	sbuf_adds(out, f->name);
	sbuf_adds(out, suffix);
	if (f->nlabels > 0 || le != NULL) {
		sbuf_addc(out, '{');
		for (i = 0; i < f->nlabels; i++) {
			if (i > 0)
				sbuf_addc(out, ',');
			sbuf_adds(out, f->labels[i]);
			sbuf_adds(out, "=\"");
			add_escaped(out, s->values[i], true);
			sbuf_addc(out, '"');
		}
		if (le != NULL) {
			if (f->nlabels > 0)
				sbuf_addc(out, ',');
			sbuf_addf(out, "le=\"%s\"", le);
		}
		sbuf_addc(out, '}');
	}
	fmt_double(num, v);
	sbuf_addf(out, " %s\n", num);
}

static void
render_histogram(struct sbuf *out, const struct family *f,
    const struct series *s)
{
	char le[40];
	uint64_t cum = 0;
	size_t i;

	for (i = 0; i < f->nbounds; i++) {
		cum += s->buckets[i];
		fmt_double(le, f->bounds[i]);
		add_sample(out, f, s, "_bucket", le, (double)cum);
	}
	add_sample(out, f, s, "_bucket", "+Inf", (double)s->count);
	add_sample(out, f, s, "_sum", NULL, s->sum);
	add_sample(out, f, s, "_count", NULL, (double)s->count);
}

static const char *const type_names[] = {"counter", "gauge", "histogram"};

void
metrics_render(struct metrics *m, struct sbuf *out)
{
	const struct family *f;
	size_t i, j;

	if (m == NULL)
		return;
	pthread_mutex_lock(&m->mu);
	for (i = 0; i < m->nfams; i++) {
		f = &m->fams[i];
		sbuf_addf(out, "# HELP %s ", f->name);
		add_escaped(out, f->help, false);
		sbuf_addf(out, "\n# TYPE %s %s\n", f->name,
		    type_names[f->type]);
		for (j = 0; j < f->nseries; j++) {
			if (f->type == METRICS_HISTOGRAM)
				render_histogram(out, f, &f->series[j]);
			else
				add_sample(out, f, &f->series[j], "", NULL,
				    f->series[j].value);
		}
		if (f->dropped > 0)
			sbuf_addf(out, "# dropped %llu series of %s\n",
			    (unsigned long long)f->dropped, f->name);
	}
	pthread_mutex_unlock(&m->mu);
}
