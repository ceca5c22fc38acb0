/* agent/daemon/daemon.c: what every part of the daemon shares, below the
 * loop and the steps it runs: the clock, the stop check, the backoff, the
 * memory of each cluster, reading a cluster's nodes, and the declaration
 * a preview keeps. */
#define LOG_MODULE "daemon"
#include "daemon-int.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../lib/afile.h"
#include "../../lib/clock.h"
#include "../../lib/metrics.h"
#include "../../lib/xalloc.h"
#include "../../reconcile/plan/plan.h"
#include "../../reconcile/recon.h"
#include "../log.h"

struct metrics *
daemon_metrics(struct daemon *a)
{
	return a->board != NULL ? web_board_metrics(a->board) : NULL;
}

double
daemon_seconds_since(int64_t t0_ms)
{
	return (double)(clock_monotonic_ms() - t0_ms) / 1000.0;
}

bool
daemon_stopping(struct daemon *a)
{
	daemon_notify_watchdog();
	daemon_signal_drain(a->sigfd, &a->sig);
	return a->sig.stop;
}

static bool
on_tick(void *ctx)
{
	struct daemon_tick *t = ctx;

	daemon_notify_watchdog();
	daemon_signal_drain(t->a->sigfd, &t->a->sig);
	return t->abandon && t->a->sig.stop;
}

void
daemon_tick_init(struct daemon_tick *t, struct daemon *a, bool abandon)
{
	long wd = (long)(daemon_notify_watchdog_usec() / 2000);

	memset(t, 0, sizeof(*t));
	t->a = a;
	t->abandon = abandon;
	t->http.fn = on_tick;
	t->http.ctx = t;
	t->http.interval_ms = wd > 0 && wd < 1000 ? wd : 1000;
}

void
daemon_fail(struct daemon *a, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int r;

	if (!a->once)
		return;
	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (r < 0) {
		fprintf(stderr, "vasprintf failed\n");
		abort();
	}
	strv_add(&a->fails, s);
	free(s);
}

long
daemon_backoff(const struct daemon *a, long base, unsigned fails)
{
	long d = base < 1 ? 1 : base;
	unsigned i;

	for (i = 1; i < fails && d < a->conf->retry_max; i++)
		d *= 2;
	return d < a->conf->retry_max ? d : a->conf->retry_max;
}

void
daemon_clusters_free(struct daemon *a)
{
	size_t i, j;

	for (i = 0; i < a->nclusters; i++) {
		free(a->clusters[i].name);
		free(a->clusters[i].dir);
		free(a->clusters[i].last_plan_dir);
		free(a->clusters[i].told_digest);
		for (j = 0; j < a->clusters[i].nhints; j++) {
			free(a->clusters[i].hints[j].node);
			free(a->clusters[i].hints[j].broker);
		}
		free(a->clusters[i].hints);
	}
	free(a->clusters);
	a->clusters = NULL;
	a->nclusters = 0;
}

struct daemon_cluster *
daemon_cluster(struct daemon *a, const char *name)
{
	size_t i, cap = a->nclusters;

	for (i = 0; i < a->nclusters; i++)
		if (strcmp(a->clusters[i].name, name) == 0)
			return &a->clusters[i];
	xgrow(&a->clusters, &cap, a->nclusters + 1, sizeof(*a->clusters));
	memset(&a->clusters[a->nclusters], 0, sizeof(*a->clusters));
	a->clusters[a->nclusters].name = xstrdup(name);
	return &a->clusters[a->nclusters++];
}

/* The outbox name of a cluster folder: its declared name when it loads,
 * else what it was called last time, else the folder's last component. */
const char *
daemon_cluster_name(struct daemon *a, const struct decl_cluster *c,
    const char *dir)
{
	const char *slash = strrchr(dir, '/');
	size_t i;

	if (c != NULL)
		return c->name;
	for (i = 0; i < a->nclusters; i++)
		if (a->clusters[i].dir != NULL &&
		    strcmp(a->clusters[i].dir, dir) == 0)
			return a->clusters[i].name;
	return slash != NULL ? slash + 1 : dir;
}

/* The targets of every node of c (credentials from conf->credentials). A
 * node whose credentials cannot be read is left out and logged: it is
 * then not read (UNREACHABLE in the plan), never read anonymously. */
void
daemon_targets(struct agent_targets *out, struct daemon *a,
    const struct decl_cluster *c)
{
	struct errlist skipped = {0};
	struct err err = {0};
	size_t i;

	agent_targets_load(out, c, NULL, 0, a->conf->credentials, &skipped,
	    &err);
	for (i = 0; i < skipped.n; i++)
		log_err("cluster '%s': %s", c->name, skipped.items[i].msg);
	agent_targets_warn_cleartext(out, NULL, &a->cleartext_warned);
	errlist_release(&skipped);
	err_release(&err);
}

bool
daemon_tls(struct daemon *a, const char *cluster, struct agent_tls *out)
{
	struct err err = {0};

	if (agent_tls_from_conf(out, a->conf, &err) == 0)
		return true;
	log_err("cluster '%s': %s: no node is read", cluster, err.msg);
	err_release(&err);
	return false;
}

/* kind's name in lower case ("none" for RECON_OK), for a label. */
static void
refusal_label(char out[32], enum recon_kind k)
{
	size_t i;

	snprintf(out, 32, "%s", k == RECON_OK ? "none" : recon_kind_name(k));
	for (i = 0; out[i] != '\0'; i++)
		out[i] = (char)tolower((unsigned char)out[i]);
}

/* One declared node's read: its metrics and what the page shows. A node
 * missing from s (its credentials could not be read) was not read: the
 * plan says UNREACHABLE, so do they. */
static void
record_read(struct daemon *a, const char *cluster,
    const struct recon_node_snapshot *n, const char *node)
{
	struct metrics *m = daemon_metrics(a);
	enum recon_kind k = n != NULL ? n->refusal.kind : RECON_UNREACHABLE;
	bool up = k == RECON_OK || k == RECON_PASSIVE;
	struct web_node_read r = {0};
	const char *labels[3] = {cluster, node, NULL};
	char refusal[32];

	refusal_label(refusal, k);
	metrics_set(m, "artemis_gitops_node_up", labels, up ? 1 : 0);
	if (n != NULL)
		metrics_observe(m, "artemis_gitops_node_read_duration_seconds",
		    labels, n->read_seconds);
	if (up)
		metrics_set(m,
		    "artemis_gitops_node_last_read_timestamp_seconds", labels,
		    (double)time(NULL));
	labels[2] = refusal;
	metrics_add(m, "artemis_gitops_node_requests_total", labels,
	    n != NULL ? (double)n->requests : 0);
	daemon_event_node(a, cluster, node, up, recon_kind_name(k),
	    n != NULL ? n->refusal.text : "its credentials could not be read");
	if (a->board == NULL)
		return;
	r.cluster = cluster;
	r.node = node;
	r.up = up;
	r.refusal = up ? NULL : recon_kind_name(k);
	r.member = n != NULL ? n->member : NULL;
	r.version = n != NULL ? n->broker_version : NULL;
	r.seconds = n != NULL ? n->read_seconds : 0;
	web_board_node_read(a->board, &r);
}

static struct daemon_node_hint *
node_hint(struct daemon_cluster *mem, const char *node, bool add)
{
	size_t i, cap = mem->nhints;

	for (i = 0; i < mem->nhints; i++)
		if (strcmp(mem->hints[i].node, node) == 0)
			return &mem->hints[i];
	if (!add)
		return NULL;
	xgrow(&mem->hints, &cap, mem->nhints + 1, sizeof(*mem->hints));
	memset(&mem->hints[mem->nhints], 0, sizeof(*mem->hints));
	mem->hints[mem->nhints].node = xstrdup(node);
	return &mem->hints[mem->nhints++];
}

/* The targets' hints from the cluster's last reads. */
static void
give_hints(struct daemon_cluster *mem, struct agent_targets *t)
{
	struct daemon_node_hint *h;
	size_t i;

	for (i = 0; i < t->n; i++) {
		h = node_hint(mem, t->v[i].node, false);
		if (h == NULL)
			continue;
		/* an HA node's members are asked by their own names */
		if (t->v[i].nmembers == 0 && h->broker != NULL)
			t->v[i].broker_hint = h->broker;
		t->v[i].queues_hint = h->queues;
	}
}

static void
take_hint(struct daemon_cluster *mem, const struct recon_node_snapshot *n)
{
	struct daemon_node_hint *h;

	if (n == NULL || n->refusal.kind != RECON_OK || n->broker_name == NULL)
		return;
	h = node_hint(mem, n->node, true);
	free(h->broker);
	h->broker = xstrdup(n->broker_name);
	h->queues = n->nqueues;
}

/* The live snapshot of c. */
struct recon_snapshot *
daemon_read_live(struct daemon *a, const struct decl_cluster *c,
    const struct plan_managed *m, const char *queue)
{
	struct agent_targets t = {0};
	struct live_http_opts ho = {0};
	struct live_scope scope;
	struct agent_tls tls;
	struct daemon_tick tick;
	struct recon_snapshot *s;
	const struct recon_node_snapshot *n;
	size_t i;

	daemon_tick_init(&tick, a, true);
	if (daemon_tls(a, c->name, &tls))
		daemon_targets(&t, a, c);
	give_hints(daemon_cluster(a, c->name), &t);
	agent_tls_http(&tls, &ho);
	agent_http_timeout(&ho, 1000 * a->conf->broker_timeout);
	ho.tick = &tick.http;
	plan_scope_build(&scope, c, NULL, m, &queue, queue != NULL ? 1 : 0,
	    NULL);
	s = live_snapshot_fetch(c->name, t.v, t.n, &ho, &scope);
	live_scope_release(&scope);
	/* a read given up on a stop says nothing of the nodes */
	for (i = 0; i < c->nnodes && !a->sig.stop; i++) {
		n = recon_snapshot_find_node(s, c->nodes[i].name);
		record_read(a, c->name, n, c->nodes[i].name);
		take_hint(daemon_cluster(a, c->name), n);
	}
	agent_targets_release(&t);
	agent_tls_release(&tls);
	return s;
}

int
daemon_post_declaration(const char *dir, const struct agent_git_folder *wc,
    struct err *err)
{
	char *ddir = xasprintf("%s/%s", dir, AGENT_OUTBOX_DECLARATION);
	const char *base;
	size_t i;
	int r;

	r = afile_mkdirs(ddir, 0750, err);
	for (i = 0; i < wc->nfiles && r == 0; i++) {
		base = strrchr(wc->files[i].path, '/');
		base = base != NULL ? base + 1 : wc->files[i].path;
		r = agent_outbox_put(ddir, base, wc->files[i].data, err);
	}
	free(ddir);
	return r;
}
