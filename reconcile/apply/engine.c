/* reconcile/apply/engine.c: the apply engine: check every node again, write the
 * intent, run each node's operations in order, read creates back. */
#include "../live/live.h"
#include "apply-int.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/sbuf.h"
#include "../../lib/xalloc.h"

/* Decide one node against its fresh snapshot n. */
static void
check_node(const struct plan *p, const struct decl_cluster *decl,
    const struct plan_node_status *ns, const struct recon_node_snapshot *n,
    struct apply_node *out)
{
	struct apply_ctx c;
	const struct plan_step *np;
	bool any_stale = false, any_run = false;
	enum apply_verdict v;
	char *stale_why;
	size_t k;

	out->verdicts = xmalloc(p->nactions + 1);
	memset(out->verdicts, -1, p->nactions + 1);
	if (n->refusal.kind == RECON_PASSIVE && plan_node_passive(ns)) {
		apply_node_set(out, APPLY_SKIPPED, NULL,
		    xasprintf(
		        "passive, as when planned: nothing is applied on a passive broker (%s)",
		        n->refusal.text != NULL ? n->refusal.text
		                                : "not active"));
		return;
	}
	if (recon_kind_ha_refusal(n->refusal.kind)) {
		/* read, and refused as a whole: nothing is sent */
		apply_node_set(out, APPLY_REFUSED,
		    recon_kind_name(n->refusal.kind),
		    xasprintf("%s: %s; nothing ran on this node",
		        recon_kind_name(n->refusal.kind),
		        n->refusal.text != NULL ? n->refusal.text : "refused"));
		return;
	}
	if (n->refusal.kind != RECON_OK) {
		apply_node_set(out, APPLY_UNREACHABLE,
		    recon_kind_name(n->refusal.kind),
		    xasprintf("%s: %s", recon_kind_name(n->refusal.kind),
		        n->refusal.text != NULL ? n->refusal.text
		                                : "not read"));
		return;
	}
	if (!ns->reachable) {
		apply_node_set(out, APPLY_REFUSED, "STALE",
		    xasprintf(
		        "stale plan: the node was %s when the plan was made, so nothing was planned for it; plan again",
		        plan_node_passive(ns) ? "passive (it is live now)"
		                              : "unreachable"));
		return;
	}
	apply_ctx_init(&c, p, decl, ns->node);
	for (k = 0; k < p->nactions; k++) {
		np = apply_node_step(&p->actions[k], ns->node);
		if (np == NULL ||
		    plan_action_kind_is_capture(p->actions[k].kind))
			continue; /* the capture pass runs again after */
		if (np->outcome == PLAN_OUT_NO_CHANGE) {
			if (apply_check_absent(&p->actions[k], np, n, out) ==
			    APPLY_VERDICT_STALE) {
				out->verdicts[k] =
				    (signed char)APPLY_VERDICT_STALE;
				any_stale = true;
			}
			continue;
		}
		v = apply_check(p, &p->actions[k], np, n, &c, out);
		out->verdicts[k] = (signed char)v;
		any_stale |= v == APPLY_VERDICT_STALE;
		any_run |= v == APPLY_VERDICT_RUN;
	}
	apply_ctx_release(&c);
	if (any_stale) {
		/* detail already holds the first stale reason */
		stale_why = out->detail;
		out->detail = NULL;
		apply_node_refuse(out,
		    out->refuse_kind != NULL ? out->refuse_kind : "STALE",
		    stale_why,
		    "nothing ran on this node: an action of the plan is stale here (see the stale note)");
	} else if (!any_run) {
		apply_node_set(out, APPLY_SKIPPED, NULL,
		    xstrdup(
		        out->nnotes > 0
		            ? "nothing to do: the node is already as planned"
		            : "nothing was planned on this node"));
	}
}

/* D7 again, on the counts read now: the cap is the cluster's, so it holds
 * on the messages the plan's queue deletes destroy summed over every node
 * about to act. Past it the whole apply is refused before any node acts:
 * every node that was to act or had nothing to do is refused (no
 * operation and no capture pass runs anywhere). */
static void
check_cap(const struct decl_cluster *decl, struct apply_result *r)
{
	int64_t total = 0, planned = 0;
	struct apply_node *n;
	char *why;
	size_t i;

	for (i = 0; i < r->nnodes; i++)
		if (r->nodes[i].outcome == APPLY_APPLIED) {
			total += r->nodes[i].destroyed_messages;
			planned += r->nodes[i].planned_messages;
		}
	if (total <= decl->settings.max_destroyed_messages)
		return;
	for (i = 0; i < r->nnodes; i++) {
		n = &r->nodes[i];
		if (n->outcome != APPLY_APPLIED && n->outcome != APPLY_SKIPPED)
			continue;
		why = xasprintf(
		    "stale plan: the plan's queue deletes now destroy %lld messages across the nodes (%lld when planned; on this node %lld, %lld when planned), past the cap of %lld (settings.max-destroyed-messages): the whole apply is refused and nothing ran on any node; plan again",
		    (long long)total, (long long)planned,
		    (long long)n->destroyed_messages,
		    (long long)n->planned_messages,
		    (long long)decl->settings.max_destroyed_messages);
		apply_node_refuse(n, "STALE", why,
		    "nothing ran on this node: the whole apply is refused (the bulk cap, see the detail)");
	}
}

/* After the plan's operations: read again, all at once, every node that
 * needs it: where creates were left to read back by this read
 * (unverified[i]), and, when the capture pass can have work, where an
 * operation ran (ran[i]). Check those creates; then run the capture pass of
 * every node APPLIED or SKIPPED on the node as it is now: the read just
 * made, or, where no operation ran, the read apply made before acting. */
static void
after_ops(struct apply_result *r, const struct plan *p,
    const struct decl_cluster *decl, const struct apply_io *io, const bool *ran,
    const bool *unverified)
{
	struct recon_node_snapshot *again =
	    xcalloc(r->nnodes + 1, sizeof(*again));
	const char **names = xcalloc(r->nnodes + 1, sizeof(*names));
	size_t *at = xcalloc(r->nnodes + 1, sizeof(*at));
	bool pass = !apply_capture_idle(p, decl);
	const struct recon_node_snapshot *n;
	size_t i, k = 0;

	for (i = 0; i < r->nnodes; i++) {
		at[i] = (size_t)-1; /* not read again: r->seen[i] */
		if (unverified[i] ||
		    (pass && ran[i] && r->nodes[i].outcome == APPLY_APPLIED)) {
			at[i] = k;
			names[k++] = r->nodes[i].node;
		}
	}
	apply_read_nodes(io, names, k, again);
	for (i = 0; i < r->nnodes; i++) {
		/* read again, or no operation ran (else no pass runs here) */
		n = at[i] != (size_t)-1 ? &again[at[i]] : &r->seen[i];
		if (unverified[i] && !apply_verify_creates(n, &r->nodes[i]))
			continue;
		if (pass && n->refusal.kind == RECON_OK &&
		    (r->nodes[i].outcome == APPLY_APPLIED ||
		        r->nodes[i].outcome == APPLY_SKIPPED))
			apply_capture_node(p, decl, io, n, &r->nodes[i]);
	}
	for (i = 0; i < k; i++)
		live_node_release(&again[i]);
	free(again);
	free(names);
	free(at);
}

/* An HA node's member now live, and the one planned against when that is
 * another: the operations go to the member live now (reconcile/live), and
 * every action is checked against what it holds, as on any node. */
static void
ha_member(struct apply_node *out, const struct plan_node_status *ns,
    const struct recon_node_snapshot *n)
{
	if (n->member != NULL)
		out->member = xstrdup(n->member);
	if (ns->member != NULL && n->member != NULL &&
	    strcmp(ns->member, n->member) != 0)
		out->planned_member = xstrdup(ns->member);
}

/* The interrupted apply's entry for node, when it lists operations. */
static const struct apply_node *
was_node(const struct apply_result *was, const char *node)
{
	size_t i;

	for (i = 0; was != NULL && i < was->nnodes; i++)
		if (strcmp(was->nodes[i].node, node) == 0)
			return was->nodes[i].nops > 0 ? &was->nodes[i] : NULL;
	return NULL;
}

/* ---- the nodes at once --------------------------------------------------
 * Each node's operations depend on nothing another node does, so with
 * io->parallel every node that acts runs in a thread of its own (its
 * requests on connections of its own); each writes only its own
 * apply_node, and the result keeps the plan's node order whatever order
 * the threads end in, so result.json and the audit rows are the same as
 * node after node. Only the progress hook is shared: a lock keeps its
 * calls apart. */

struct node_job {
	struct apply_io io; /* the caller's, its progress through the lock */
	const struct apply_io *outer;
	pthread_mutex_t *mu;
	struct apply_node *node;
	bool unverified;
	pthread_t th;
};

static void
locked_progress(void *ctx, const char *node, const struct apply_op *op)
{
	struct node_job *j = ctx;

	pthread_mutex_lock(j->mu);
	j->outer->progress(j->outer->hook_ctx, node, op);
	pthread_mutex_unlock(j->mu);
}

static void *
node_job_run(void *arg)
{
	struct node_job *j = arg;

	j->unverified = apply_run_ops(&j->io, j->node, j->node->done_before,
	                    true) == APPLY_OPS_UNVERIFIED;
	return NULL;
}

/* Run the operations of every node APPLIED (the checks said act): at
 * once when io->parallel and more than one acts, else node after node.
 * ran[i]: an operation was to run on node i; unverified[i]: its creates
 * after the last read back are still to check (apply_run_ops, defer). */
static void
run_nodes(struct apply_result *r, const struct apply_io *io, bool *ran,
    bool *unverified)
{
	struct node_job *jobs = xcalloc(r->nnodes + 1, sizeof(*jobs));
	pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	size_t i, nact = 0;

	for (i = 0; i < r->nnodes; i++)
		if (r->nodes[i].outcome == APPLY_APPLIED) {
			ran[i] = r->nodes[i].nops > r->nodes[i].done_before;
			nact += ran[i];
		}
	for (i = 0; i < r->nnodes; i++) {
		jobs[i].node = &r->nodes[i];
		jobs[i].io = *io;
		jobs[i].outer = io;
		jobs[i].mu = &mu;
		if (io->progress != NULL) {
			jobs[i].io.progress = locked_progress;
			jobs[i].io.hook_ctx = &jobs[i];
		}
		if (r->nodes[i].outcome != APPLY_APPLIED)
			continue;
		if (io->parallel && nact > 1 && ran[i]) {
			if (pthread_create(&jobs[i].th, NULL, node_job_run,
			        &jobs[i]) != 0) {
				fprintf(stderr, "pthread_create failed\n");
				abort();
			}
			continue;
		}
		node_job_run(&jobs[i]);
	}
	for (i = 0; i < r->nnodes; i++) {
		if (r->nodes[i].outcome == APPLY_APPLIED && io->parallel &&
		    nact > 1 && ran[i])
			pthread_join(jobs[i].th, NULL);
		unverified[i] = jobs[i].unverified;
	}
	pthread_mutex_destroy(&mu);
	free(jobs);
}

int
apply_run(struct apply_result *r, const struct plan *p,
    const struct decl_cluster *decl, const struct apply_io *io, struct err *err)
{
	return apply_run_resume(r, p, decl, io, NULL, err);
}

int
apply_run_resume(struct apply_result *r, const struct plan *p,
    const struct decl_cluster *decl, const struct apply_io *io,
    const struct apply_result *was, struct err *err)
{
	const struct apply_node *wn;
	const char **names;
	bool *ran, *unverified;
	size_t i;

	r->disconnect_consumers = p->disconnect_consumers;
	r->nnodes = p->nnodes;
	r->nodes = xcalloc(p->nnodes, sizeof(*r->nodes));
	r->seen = xcalloc(p->nnodes + 1, sizeof(*r->seen));
	names = xcalloc(p->nnodes + 1, sizeof(*names));
	for (i = 0; i < p->nnodes; i++)
		names[i] = p->nodes[i].node;
	/* Every node is read at once, one read each. */
	apply_read_nodes(io, names, p->nnodes, r->seen);
	free(names);
	if (was != NULL) {
		free(r->resumes);
		r->resumes = xstrdup(was->apply_id);
	}
	for (i = 0; i < p->nnodes; i++) {
		r->nodes[i].node = xstrdup(p->nodes[i].node);
		ha_member(&r->nodes[i], &p->nodes[i], &r->seen[i]);
		wn = was_node(was, p->nodes[i].node);
		if (wn != NULL)
			apply_resume_check(p, decl, &r->seen[i], wn,
			    was->apply_id, &r->nodes[i]);
		else
			check_node(p, decl, &p->nodes[i], &r->seen[i],
			    &r->nodes[i]);
	}
	check_cap(decl, r);
	if (io->intent != NULL && io->intent(io->hook_ctx, r, err) != 0)
		return -1;
	ran = xcalloc(r->nnodes + 1, sizeof(*ran));
	unverified = xcalloc(r->nnodes + 1, sizeof(*unverified));
	run_nodes(r, io, ran, unverified);
	after_ops(r, p, decl, io, ran, unverified);
	free(ran);
	free(unverified);
	return 0;
}

static void
live_read_one(void *ctx, const char *node, struct recon_node_snapshot *out)
{
	live_nodes_read(ctx, &node, 1, out);
}

void
apply_io_live(struct apply_io *io, struct live_nodes *nodes)
{
	memset(io, 0, sizeof(*io));
	io->ctx = nodes;
	io->read = live_read_one;
	io->read_all = live_nodes_read;
	io->exec = live_nodes_exec;
	io->exec_batch = live_nodes_exec_batch;
	io->parallel = true;
}
