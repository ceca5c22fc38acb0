/* agent/web/web-metrics.c (not metrics.c: lib/ has one): the metric
 * families of docs/http-api.md "Metrics", one table (names, types, help,
 * labels, buckets; base units), and the gauges computed at scrape time
 * from the outbox (the previews by state).
 *
 * The daemon records the others where they happen (agent/daemon/cycle.c,
 * daemon.c, approvals.c, drift.c) with metrics_add & co. and these names;
 * the server counts its own requests and connections.
 */
#include "web-int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/metrics.h"
#include "../../lib/xalloc.h"

#ifndef AGENT_VERSION
#define AGENT_VERSION "0.0.0"
#endif

/* Seconds: a cycle, a fetch, planning a cluster, an apply. */
static const double steps[] = {0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
    60, 120, 300, 600};
/* Seconds: one node read (one bulk POST, or an HA node's members). */
static const double reads[] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
    5, 10, 30};

static const char *const no_labels[] = {NULL};
static const char *const l_version[] = {"version", NULL};
static const char *const l_result[] = {"result", NULL};
static const char *const l_cluster[] = {"cluster", NULL};
static const char *const l_cluster_state[] = {"cluster", "state", NULL};
static const char *const l_cluster_result[] = {"cluster", "result", NULL};
static const char *const l_node[] = {"cluster", "node", NULL};
static const char *const l_node_refusal[] = {"cluster", "node", "refusal",
    NULL};
static const char *const l_cluster_kind[] = {"cluster", "kind", NULL};
static const char *const l_channel[] = {"channel", NULL};
static const char *const l_code[] = {"code", NULL};
static const char *const l_owner[] = {"cluster", "owner", "shard", NULL};
static const char *const l_agent[] = {"agent", NULL};

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Previews counted at a scrape, at most (the outbox keeps every one). */
#define PREVIEWS_MAX ((size_t)1 << 16)

static const struct family {
	const char *name;
	enum metrics_type type;
	const char *help;
	const char *const *labels;
	const double *buckets;
	size_t nbuckets;
} families[] = {
    {"artemis_gitops_build_info", METRICS_GAUGE,
        "The agent's version, as a label; always 1.", l_version, NULL, 0},
    {"artemis_gitops_cycles_total", METRICS_COUNTER,
        "Cycles run (fetch, plan new commits, replan), by result: ok, or "
        "failed (the fetch failed, a commit's folders could not be read, or "
        "a preview could not be posted).",
        l_result, NULL, 0},
    {"artemis_gitops_cycle_duration_seconds", METRICS_HISTOGRAM,
        "How long a cycle took, fetch included.", no_labels, steps, N(steps)},
    {"artemis_gitops_fetch_duration_seconds", METRICS_HISTOGRAM,
        "How long a fetch of the watched branch took, failed ones included.",
        no_labels, steps, N(steps)},
    {"artemis_gitops_plan_duration_seconds", METRICS_HISTOGRAM,
        "How long planning one cluster folder took: validating it, reading "
        "its nodes, planning and posting the preview.",
        l_cluster, steps, N(steps)},
    {"artemis_gitops_apply_duration_seconds", METRICS_HISTOGRAM,
        "How long applying an approved preview took.", l_cluster, steps,
        N(steps)},
    {"artemis_gitops_previews", METRICS_GAUGE,
        "Previews in the outbox by cluster and state (pending, approved, "
        "applied, refused, superseded, nothing), counted at scrape time.",
        l_cluster_state, NULL, 0},
    {"artemis_gitops_applies_total", METRICS_COUNTER,
        "Applies by cluster and result: ok (every node applied or "
        "skipped), failed (some node not), refused (the approval was not "
        "acted on: approval-refused.txt says why).",
        l_cluster_result, NULL, 0},
    {"artemis_gitops_node_up", METRICS_GAUGE,
        "1 when the node's last read worked (live, or a passive HA pair), "
        "else 0.",
        l_node, NULL, 0},
    {"artemis_gitops_node_read_duration_seconds", METRICS_HISTOGRAM,
        "How long a read of the node took (its HA members read at once: the "
        "slowest).",
        l_node, reads, N(reads)},
    {"artemis_gitops_node_last_read_timestamp_seconds", METRICS_GAUGE,
        "Unix time of the node's last read that worked.", l_node, NULL, 0},
    {"artemis_gitops_node_requests_total", METRICS_COUNTER,
        "HTTP requests sent to read the node, by the read's refusal kind "
        "(none for a read that worked, else the kind in lower case: "
        "unreachable, unauthorized, timeout, ...).",
        l_node_refusal, NULL, 0},
    {"artemis_gitops_drift_objects", METRICS_GAUGE,
        "Objects found drifted at the last drift check, by cluster and kind "
        "(missing, changed, unmanaged, disagreeing).",
        l_cluster_kind, NULL, 0},
    {"artemis_gitops_last_apply_success_timestamp_seconds", METRICS_GAUGE,
        "Unix time of the cluster's last apply that succeeded.", l_cluster,
        NULL, 0},
    {"artemis_gitops_notifications_sent_total", METRICS_COUNTER,
        "Webhook deliveries the receiver accepted (2xx), by channel (the "
        "target's name).",
        l_channel, NULL, 0},
    {"artemis_gitops_notifications_dropped_total", METRICS_COUNTER,
        "Webhook deliveries given up, by channel: every attempt failed "
        "(notifications.max-attempts), the receiver refused it (4xx), its "
        "spool was full or could not be written.",
        l_channel, NULL, 0},
    {"artemis_gitops_notifications_failed_attempts_total", METRICS_COUNTER,
        "Webhook delivery attempts that failed (each retry counts), by "
        "channel.",
        l_channel, NULL, 0},
    {"artemis_gitops_notifications_pending", METRICS_GAUGE,
        "Webhook deliveries waiting in the channel's spool, the one being "
        "sent included.",
        l_channel, NULL, 0},
    {"artemis_gitops_http_requests_total", METRICS_COUNTER,
        "Requests the web server answered, by HTTP status code.", l_code, NULL,
        0},
    {"artemis_gitops_http_connections", METRICS_GAUGE,
        "Connections the web server holds open now.", no_labels, NULL, 0},
    {"artemis_gitops_cluster_epoch", METRICS_GAUGE,
        "Several agents (docs/ha.md): the epoch under which this agent owns "
        "the cluster (the etcd owner key's create revision), 0 when another "
        "agent (owner) or none (owner \"\") owns it; shard is the "
        "coordination.shard.mode.",
        l_owner, NULL, 0},
    {"artemis_gitops_cluster_owned", METRICS_GAUGE,
        "Several agents: 1 when this agent owns the cluster now, else 0.",
        l_cluster, NULL, 0},
    {"artemis_gitops_coordination_members", METRICS_GAUGE,
        "Several agents: the agents alive in etcd as this agent last read "
        "them (each with its own lease), by this agent's id.",
        l_agent, NULL, 0},
    {"artemis_gitops_coordination_requests_total", METRICS_COUNTER,
        "Several agents: requests this agent sent to etcd (leases, "
        "ownership, fences, state).",
        l_agent, NULL, 0},
    {"artemis_gitops_fenced_total", METRICS_COUNTER,
        "Several agents: mutations this agent did not send because it could "
        "not confirm its ownership (lease short or gone, key taken, etcd "
        "unreachable).",
        l_cluster, NULL, 0},
};

void
web_metrics_declare(struct metrics *m)
{
	const char *version[] = {AGENT_VERSION};
	size_t i;

	for (i = 0; i < N(families); i++)
		if (metrics_family(m, families[i].name, families[i].type,
		        families[i].help,
		        families[i].labels[0] != NULL ? families[i].labels
		                                      : NULL,
		        families[i].buckets, families[i].nbuckets) < 0) {
			fprintf(stderr, "metric family '%s' refused\n",
			    families[i].name);
			abort(); /* the table is wrong: caught by the tests */
		}
	metrics_set(m, "artemis_gitops_build_info", version, 1);
	metrics_touch(m, "artemis_gitops_cycles_total", (const char *[]){"ok"});
	metrics_touch(m, "artemis_gitops_cycles_total",
	    (const char *[]){"failed"});
	metrics_touch(m, "artemis_gitops_cycle_duration_seconds", NULL);
	metrics_touch(m, "artemis_gitops_fetch_duration_seconds", NULL);
	metrics_set(m, "artemis_gitops_http_connections", NULL, 0);
}

/* The previews of the outbox counted by state for one cluster. */
struct tally {
	const char *cluster; /* borrowed from the view or the previews */
	size_t n[WEB_PREVIEW_STATES];
};

static struct tally *
tally_of(struct tally **t, size_t *n, size_t *cap, const char *cluster)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (strcmp((*t)[i].cluster, cluster) == 0)
			return &(*t)[i];
	xgrow(t, cap, *n + 1, sizeof(**t));
	memset(&(*t)[*n], 0, sizeof(**t));
	(*t)[*n].cluster = cluster;
	return &(*t)[(*n)++];
}

void
web_metrics_previews(struct metrics *m, const struct web_view *v)
{
	struct web_preview *p = NULL;
	struct tally *t = NULL, *x;
	struct err err = {0};
	const char *values[2];
	size_t np = 0, nt = 0, cap = 0, i, s;

	if (web_model_previews(v, NULL, PREVIEWS_MAX, &p, &np, &err) < 0) {
		/* the gauges keep their last values; the page says why */
		err_release(&err);
		return;
	}
	for (i = 0; i < v->nclusters; i++)
		(void)tally_of(&t, &nt, &cap, v->clusters[i].name);
	for (i = 0; i < np; i++) {
		x = tally_of(&t, &nt, &cap, p[i].cluster);
		if ((unsigned)p[i].state < WEB_PREVIEW_STATES)
			x->n[p[i].state]++;
	}
	for (i = 0; i < nt; i++) {
		values[0] = t[i].cluster;
		for (s = 0; s < WEB_PREVIEW_STATES; s++) {
			values[1] =
			    web_preview_state_name((enum web_preview_state)s);
			metrics_set(m, "artemis_gitops_previews", values,
			    (double)t[i].n[s]);
		}
	}
	free(t);
	web_model_previews_free(p, np);
	err_release(&err);
}
