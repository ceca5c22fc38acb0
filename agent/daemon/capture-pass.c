/* agent/daemon/capture-pass.c: the capture pass of a drift cycle (ADR-0084
 * decision 5; docs/captures.md, docs/daemon.md). With the declaration the
 * cluster was last applied at and its inventory, the pass is planned on
 * the drift check's snapshot; when some node has work, it runs on every
 * node (each read again) without an approval, under the daemon's state
 * lock: one audit row, the inventory's captures, one log line. A pass with
 * nothing to do leaves no trace but a debug line. */
#define LOG_MODULE "capture"

#include "daemon-int.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/afile.h"
#include "../../lib/clock.h"
#include "../../lib/sbuf.h"
#include "../../lib/sha256.h"
#include "../../lib/xalloc.h"
#include "../../reconcile/apply/apply.h"
#include "../../reconcile/live/live.h"
#include "../../reconcile/plan/plan.h"
#include "../apply-plan.h"
#include "../inventory.h"
#include "../log.h"
#include "../state.h"

#define CAPTURE_APPROVER AGENT_OWN_APPROVER_PREFIX "capture pass)"

/* True when some node of p has a step to run; a refused step (a ring
 * queue with consumers, ...) is logged and left for the next cycle. */
static bool
has_work(const struct plan *p)
{
	const struct plan_step *np;
	bool work = false;
	size_t i, j;

	for (i = 0; i < p->nactions; i++) {
		for (j = 0; j < p->actions[i].nnodes; j++) {
			np = &p->actions[i].nodes[j];
			if (np->outcome == PLAN_OUT_WOULD_APPLY)
				work = true;
			else if (np->outcome == PLAN_OUT_REFUSED)
				log_warn("cluster '%s': capture pass: %s '%s' "
				         "on node '%s' not run: %s",
				    p->cluster,
				    plan_action_kind_name(p->actions[i].kind),
				    p->actions[i].name, np->node,
				    np->message != NULL ? np->message
				                        : "refused");
		}
	}
	return work;
}

static struct apply_result *
result_new(struct daemon *a, const struct plan *p)
{
	struct apply_result *r = xcalloc(1, sizeof(*r));
	char *json = plan_render_json(p);
	char digest[SHA256_HEX];

	sha256_hex(json, strlen(json), digest);
	free(json);
	r->apply_id = agent_apply_plan_id_new();
	r->plan_digest = xstrdup(digest);
	r->cluster = xstrdup(p->cluster);
	r->revision = p->revision != NULL ? xstrdup(p->revision) : NULL;
	r->approver = xstrdup(CAPTURE_APPROVER);
	r->approver_uid = (int64_t)getuid();
	r->started_at = clock_rfc3339_now();
	r->approved_at = xstrdup(r->started_at);
	if (a->coord != NULL) {
		struct agent_fence f;
		r->epoch = daemon_ha_fence(a, p->cluster, &f)->epoch;
	}
	return r;
}

/* Run the pass of plan p on every node of decl. */
static struct apply_result *
run_pass(struct daemon *a, const struct decl_cluster *decl,
    const struct plan *p)
{
	struct agent_targets t = {0};
	struct live_http_opts http;
	struct daemon_tick tick;
	struct live_nodes live;
	struct live_scope scope;
	struct agent_tls tls;
	struct apply_io io;
	struct agent_fence fence;
	struct agent_fence_io fio;
	const struct agent_fence *f = daemon_ha_fence(a, p->cluster, &fence);
	struct apply_result *r = result_new(a, p);

	/* the pass finishes what it started, as an apply does */
	daemon_tick_init(&tick, a, false);
	memset(&http, 0, sizeof(http));
	if (daemon_tls(a, p->cluster, &tls))
		daemon_targets(&t, a, decl);
	agent_tls_http(&tls, &http);
	agent_http_timeout(&http, 1000 * a->conf->broker_timeout);
	http.tick = &tick.http;
	memset(&live, 0, sizeof(live));
	live.cluster = p->cluster;
	live.targets = t.v;
	live.ntargets = t.n;
	live.http = &http;
	plan_scope_build(&scope, decl, NULL, NULL, NULL, 0, p);
	live.scope = &scope;
	live_nodes_init(&live);
	apply_io_live(&io, &live);
	if (f != NULL)
		agent_fence_io(&fio, &io, f, p->cluster);
	apply_capture_pass(r, p, decl, &io);
	if (f != NULL)
		agent_fence_io_release(&fio);
	live_nodes_release(&live);
	live_scope_release(&scope);
	agent_targets_release(&t);
	agent_tls_release(&tls);
	r->finished_at = clock_rfc3339_now();
	return r;
}

static size_t
ops_run(const struct apply_result *r)
{
	size_t i, n = 0;

	for (i = 0; i < r->nnodes; i++)
		n += r->nodes[i].nops;
	return n;
}

/* One line: every node's operations, "node: create-tap 'x', ...". */
static void
log_pass(const struct apply_result *r)
{
	const struct apply_node *n;
	struct sbuf b = {0};
	size_t i, j;
	bool ok = apply_result_ok(r);

	for (i = 0; i < r->nnodes; i++) {
		n = &r->nodes[i];
		if (n->nops == 0 && n->outcome == APPLY_SKIPPED)
			continue;
		sbuf_addf(&b, "%snode '%s' %s", b.len > 0 ? "; " : "", n->node,
		    apply_outcome_name(n->outcome));
		for (j = 0; j < n->nops; j++)
			if (j == 0 || n->ops[j].act != n->ops[j - 1].act ||
			    strcmp(n->ops[j].action, n->ops[j - 1].action) != 0)
				sbuf_addf(&b, "%s%s '%s'", j == 0 ? ": " : ", ",
				    plan_action_kind_name(n->ops[j].act),
				    n->ops[j].action);
	}
	if (ok)
		log_notice("cluster '%s': capture pass: %s (audit row %s)",
		    r->cluster, sbuf_str(&b), r->apply_id);
	else
		log_warn("cluster '%s': capture pass not finished: %s (audit "
		         "row %s)",
		    r->cluster, sbuf_str(&b), r->apply_id);
	sbuf_release(&b);
}

bool
daemon_capture_pass(struct daemon *a, const struct decl_cluster *decl,
    const struct plan_managed *m, const struct recon_snapshot *snap)
{
	struct plan_opts po = {0};
	struct plan *p;
	struct apply_result *r = NULL;
	struct err err = {0};
	char *row;
	bool ran = false;

	po.revision = m->revision;
	po.snapshot_source = "live";
	p = plan_captures(decl, m, snap, &po);
	if (!has_work(p)) {
		log_debug("cluster '%s': capture pass: nothing to do",
		    p->cluster);
		goto done;
	}
	r = run_pass(a, decl, p);
	if (ops_run(r) == 0) {
		log_info("cluster '%s': capture pass: nothing left to do when "
		         "the nodes were read again",
		    p->cluster);
		goto done;
	}
	ran = true;
	row = apply_audit_render_result(r);
	if (agent_state_audit_append(a->state, row, &err) < 0) {
		log_err("cluster '%s': capture pass: the audit row was not "
		        "written: %s",
		    p->cluster, err.msg);
		daemon_fail(a,
		    "cluster '%s': capture pass: audit row not "
		    "written: %s",
		    p->cluster, err.msg);
		err_release(&err);
	}
	free(row);
	if (agent_inventory_update(a->state, p, r, decl, &err) < 0) {
		log_err("cluster '%s': the inventory after the capture pass: "
		        "%s",
		    p->cluster, err.msg);
		daemon_fail(a,
		    "cluster '%s': the inventory after the capture pass: %s",
		    p->cluster, err.msg);
		err_release(&err);
	}
	log_pass(r);
	if (!apply_result_ok(r))
		daemon_fail(a,
		    "cluster '%s': capture pass not finished (audit "
		    "row %s)",
		    p->cluster, r->apply_id);
done:
	apply_result_free(r);
	plan_free(p);
	return ran;
}
