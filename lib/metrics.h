/* lib/metrics.h: a registry of Prometheus metrics (lib/metrics.c) and its
 * text exposition format, version 0.0.4
 * (https://prometheus.io/docs/instrumenting/exposition_formats/).
 *
 * A family is declared once (name, type, help, label names, and for a
 * histogram its bucket bounds); its series are created on first use, one
 * per set of label values. Every call takes the registry's mutex: the
 * daemon's thread records, the web server's threads render. A family holds
 * at most METRICS_SERIES_MAX series (label values are cluster, node and
 * the like, bounded by the configuration; past the cap new series are
 * dropped, and a comment line `# dropped N series of NAME` says so), so
 * memory stays bounded whatever a broker reports.
 *
 * Names and label names must match [a-zA-Z_:][a-zA-Z0-9_:]* and
 * [a-zA-Z_][a-zA-Z0-9_]* (metrics_family refuses others: a programming
 * error, -1). Label values are any UTF-8 text: `\`, `"` and line feeds are
 * escaped on output; invalid UTF-8 and control characters are replaced by
 * U+FFFD so that the output always parses.
 */
#ifndef LIB_METRICS_H
#define LIB_METRICS_H

#include <stddef.h>

#include "sbuf.h"

#define METRICS_LABELS_MAX  4    /* label names of a family */
#define METRICS_BUCKETS_MAX 16   /* bucket bounds of a histogram (+Inf added) */
#define METRICS_SERIES_MAX  4096 /* series of one family */

enum metrics_type {
	METRICS_COUNTER = 0,
	METRICS_GAUGE,
	METRICS_HISTOGRAM,
};

struct metrics; /* opaque */

struct metrics *metrics_new(void);
void metrics_free(struct metrics *m); /* NULL is a no-op */

/* Declare family name. labels: NULL or a NULL-terminated list of label
 * names (at most METRICS_LABELS_MAX). buckets: a histogram's upper bounds,
 * strictly increasing (nbuckets at most METRICS_BUCKETS_MAX; +Inf is
 * implied); NULL and 0 for the others. 0, or -1 for a bad name, a
 * duplicate or bad buckets. Families are rendered in declaration order. */
int metrics_family(struct metrics *m, const char *name, enum metrics_type t,
    const char *help, const char *const *labels, const double *buckets,
    size_t nbuckets);

/* The series of family name with label values `values` (as many as the
 * family has label names; NULL when it has none). A name that was never
 * declared, or a call of the wrong type, is ignored (a programming error,
 * caught by the unit tests, never a crash in production). */
void metrics_add(struct metrics *m, const char *name, const char *const *values,
    double v); /* counter += v (v >= 0) */
void metrics_set(struct metrics *m, const char *name, const char *const *values,
    double v); /* gauge = v */
void metrics_observe(struct metrics *m, const char *name,
    const char *const *values, double v); /* histogram */
/* Create the series with value 0 if it does not exist yet, so that a
 * counter shows 0 before its first event (a rate() needs it). */
void metrics_touch(struct metrics *m, const char *name,
    const char *const *values);
/* Drop every series of family name whose label `label` has value `value`
 * (a cluster or node that left the configuration). */
void metrics_forget(struct metrics *m, const char *name, const char *label,
    const char *value);

/* Append the whole registry in the text format: for each family `# HELP`,
 * `# TYPE` and its series sorted by label values; histograms as _bucket
 * (cumulative, le="+Inf" last), _sum and _count. */
void metrics_render(struct metrics *m, struct sbuf *out);

#endif
