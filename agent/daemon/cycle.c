/* agent/daemon/cycle.c: one cycle of the daemon: fetch the branch, and for a
 * new head validate every cluster folder, plan it against its live nodes and
 * post the preview; replan clusters whose nodes could not all be read. */
#define LOG_MODULE "cycle"

#include "daemon-int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/afile.h"
#include "../../lib/clock.h"
#include "../../lib/metrics.h"
#include "../../lib/sbuf.h"
#include "../../lib/sha256.h"
#include "../../lib/xalloc.h"
#include "../../reconcile/live/live.h"
#include "../../reconcile/plan/plan.h"
#include "../../reconcile/recon.h"
#include "../creds.h"
#include "../inventory.h"
#include "../log.h"
#include "../plan-dir.h"
#include "../render-plan.h"
#include "../verify.h"

/* Log every node that could not be read (a failure of --once); returns
 * how many. A passive broker was read, and is left alone: said, never a
 * failure, never a reason to plan again (docs/ha-pairs.md). */
static size_t
log_unreadable(struct daemon *a, const struct plan *p)
{
	struct sbuf b = {0};
	const char *kind;
	size_t i, n = 0;

	for (i = 0; i < p->nnodes; i++) {
		if (p->nodes[i].reachable)
			continue;
		if (plan_node_passive(&p->nodes[i])) {
			log_info("cluster '%s': node '%s' is passive, left "
			         "alone (%s)",
			    p->cluster, p->nodes[i].node,
			    p->nodes[i].message != NULL ? p->nodes[i].message
			                                : "");
			continue;
		}
		n++;
		kind = p->nodes[i].refusal != NULL ? p->nodes[i].refusal
		                                   : "UNREACHABLE";
		log_warn("cluster '%s': node '%s': %s (%s)", p->cluster,
		    p->nodes[i].node, kind,
		    p->nodes[i].message != NULL ? p->nodes[i].message : "");
		sbuf_addf(&b, "%snode '%s' %s", n > 1 ? ", " : "",
		    p->nodes[i].node, kind);
	}
	if (n > 0)
		daemon_fail(a,
		    "cluster '%s': %zu node(s) could not be read (%s)",
		    p->cluster, n, sbuf_str(&b));
	sbuf_release(&b);
	return n;
}

static char *
commit_text(const struct daemon *a, const char *dir)
{
	const struct daemon_watch_update *u = &a->head;
	struct sbuf b = {0};

	sbuf_addf(&b, "commit %s\n", u->head);
	sbuf_addf(&b, "branch %s\n", a->conf->branch);
	sbuf_addf(&b, "repository %s\n", a->conf->repo_url);
	sbuf_addf(&b, "folder %s\n", dir);
	sbuf_addf(&b, "author %s\n", u->author != NULL ? u->author : "");
	sbuf_addf(&b, "subject %s\n", u->summary != NULL ? u->summary : "");
	return sbuf_take(&b);
}

static char *
rewrite_text(const struct daemon *a)
{
	return xasprintf(
	    "The history of branch '%s' was rewritten: commit %s does not "
	    "descend from %s,\nthe last commit the agent had seen. Earlier "
	    "previews were withdrawn (superseded).\nThis preview is never "
	    "applied without an approval, even when auto-apply-creates is "
	    "on.\n",
	    a->conf->branch, a->head.head, a->head.prev);
}

/* DIR/signature.txt: the verdict on the commit's signature, and what is
 * trusted. */
static int
post_signature(struct daemon *a, const char *dir,
    const struct agent_verify_verdict *vd, struct err *err)
{
	char *line = agent_verify_verdict_line(vd),
	     *trust = agent_verify_describe(a->verify), *text;
	int rc;

	text = xasprintf("%s %s\n%s%s%s%s", vd->trusted ? "trusted" : "REFUSED",
	    line, vd->note != NULL ? "checked: " : "",
	    vd->note != NULL ? vd->note : "", vd->note != NULL ? "\n" : "",
	    trust);
	rc = agent_outbox_put(dir, AGENT_OUTBOX_SIGNATURE, text, err);
	free(text);
	free(trust);
	free(line);
	return rc;
}

/* The refused plan of an untrusted commit (vd). */
static struct plan *
untrusted_plan(struct daemon *a, const char *cluster,
    const struct agent_verify_verdict *vd, const struct plan_opts *po)
{
	char *line = agent_verify_verdict_line(vd), *msg, *next;
	struct plan *p;

	msg = xasprintf("%s; repository.verify.mode %s: nothing of this "
	                "commit is planned or applied",
	    line, agent_conf_verify_mode_name(a->conf->verify_mode));
	next = agent_verify_next_step(a->verify, vd);
	p = plan_untrusted(cluster, msg, next, po);
	free(next);
	free(msg);
	free(line);
	return p;
}

/* Why auto-apply-creates may apply p unapproved (plan_creates_only): a
 * policy change here only adds protection, a lift never gets this far. */
static const char *
auto_why(const struct plan *p)
{
	if (p->outcome != PLAN_OUT_NO_CHANGE)
		return plan_policy_changes(p) > 0
		           ? "only creates objects and adds protection"
		           : "only creates objects";
	if (plan_policy_changes(p) > 0)
		return "only adopts or forgets objects or adds protection "
		       "(nothing is sent to a broker)";
	return plan_forgets(p) > 0 ? "only adopts or forgets objects "
	                             "(nothing is sent to a broker)"
	                           : "only adopts objects (nothing is "
	                             "sent to a broker)";
}

/* Write the preview of p into a new plan folder and supersede the older
 * ones. Returns the folder (owned) or NULL. */
static char *
post_plan(struct daemon *a, const struct plan *p,
    const struct agent_git_folder *wc, const struct agent_render_set *rs,
    const struct agent_verify_verdict *vd, char digest[SHA256_HEX])
{
	const char *folder = wc->dir;
	struct err err = {0};
	char *dir = NULL, *text, *why;
	int n;

	if (agent_outbox_new_plan_dir(&dir, a->conf->outbox, p->cluster,
	        a->head.head, &err) < 0 ||
	    agent_plan_dir_write(p, dir, digest, &err) < 0) {
		log_err("cluster '%s': cannot post the preview: %s", p->cluster,
		    err.msg);
		err_release(&err);
		free(dir);
		return NULL;
	}
	text = commit_text(a, folder);
	/* an untrusted commit's files are not posted: nothing of it is
	 * ever applied */
	if (agent_render_write(rs, dir, &err) < 0 ||
	    agent_outbox_put(dir, AGENT_OUTBOX_COMMIT, text, &err) < 0 ||
	    (vd != NULL && post_signature(a, dir, vd, &err) < 0) ||
	    ((vd == NULL || vd->trusted) &&
	        daemon_post_declaration(dir, wc, &err) < 0)) {
		log_err("cluster '%s': %s", p->cluster, err.msg);
		daemon_fail(a, "cluster '%s': %s", p->cluster, err.msg);
	}
	err_release(&err);
	free(text);
	if (a->head.event == DAEMON_WATCH_REWRITE) {
		text = rewrite_text(a);
		if (agent_outbox_put(dir, AGENT_OUTBOX_REWRITE, text, &err) <
		    0) {
			log_err("cluster '%s': %s", p->cluster, err.msg);
			daemon_fail(a, "cluster '%s': %s", p->cluster, err.msg);
		}
		err_release(&err);
		free(text);
	}
	why = xasprintf("superseded by %s (commit %s)\n", dir, a->head.head);
	n = agent_outbox_supersede_others(a->conf->outbox, p->cluster, dir, why,
	    &err);
	if (n < 0) {
		log_err("cluster '%s': %s", p->cluster, err.msg);
		daemon_fail(a, "cluster '%s': %s", p->cluster, err.msg);
	} else if (n > 0)
		log_info("cluster '%s': %d older preview(s) superseded",
		    p->cluster, n);
	err_release(&err);
	free(why);
	return dir;
}

/* Plan one cluster folder of the head commit and post the preview. False
 * when SIGTERM/SIGINT gave the read of its nodes up: nothing was posted.
 * *failed is set when the preview could not be posted. */
/* A cluster another agent owns (docs/ha.md): validated, so that this
 * agent is warm, and remembered for a takeover; no broker is read, no
 * preview posted. */
static void
standby(struct daemon *a, const struct decl_cluster *c,
    const struct agent_git_folder *wc, const struct errlist *diags)
{
	const char *name = daemon_cluster_name(a, c, wc->dir);
	struct daemon_cluster *mem = daemon_cluster(a, name);

	free(mem->dir);
	mem->dir = xstrdup(wc->dir);
	mem->retry = false;
	if (c == NULL)
		log_warn("cluster '%s': commit %.12s is invalid (%zu errors); "
		         "its owner (%s) posts the preview",
		    name, a->head.head, diags->nerrors,
		    daemon_ha_owner(a, name));
	else
		log_info("cluster '%s': commit %.12s validated; standing by, "
		         "owned by %s",
		    name, a->head.head, daemon_ha_owner(a, name));
}

static bool
plan_cluster(struct daemon *a, const struct agent_git_folder *wc, bool *failed)
{
	struct decl_cluster *c = NULL;
	struct errlist diags = {0};
	struct plan_managed m = {0};
	struct recon_snapshot *snap = NULL;
	struct plan *p = NULL;
	struct plan_opts po = {0};
	struct agent_render_set rs = {0};
	struct daemon_cluster *mem;
	struct err err = {0};
	struct agent_verify_verdict vd;
	size_t bad;
	char *dir, digest[SHA256_HEX];
	bool planned = true, trusted, unchecked;
	int64_t t0 = clock_monotonic_ms();

	po.revision = a->head.head;
	po.snapshot_source = "live";
	memset(&vd, 0, sizeof(vd));
	/* c stays NULL when the declaration is invalid; the commit is
	 * judged first either way, and an untrusted one is not planned */
	if (decl_cluster_parse(&c, wc->dir, wc->files, wc->nfiles, &diags) < 0)
		c = NULL;
	if (!daemon_ha_owns(a, daemon_cluster_name(a, c, wc->dir))) {
		standby(a, c, wc, &diags);
		decl_cluster_free(c);
		errlist_release(&diags);
		return true;
	}
	trusted = daemon_verify_head(a, daemon_cluster_name(a, c, wc->dir),
	    a->head.head, &vd);
	if (!trusted) {
		p = untrusted_plan(a, daemon_cluster_name(a, c, wc->dir), &vd,
		    &po);
	} else if (c == NULL) {
		p = plan_invalid(daemon_cluster_name(a, NULL, wc->dir), &diags,
		    &po);
		log_err("cluster '%s': commit %.12s is invalid (%zu errors), "
		        "nothing changes; first: %s",
		    p->cluster, a->head.head, diags.nerrors,
		    p->ndiagnostics > 0 ? p->diagnostics[0] : "");
		daemon_fail(a,
		    "cluster '%s': commit %.12s is invalid (%zu errors)",
		    p->cluster, a->head.head, diags.nerrors);
	} else if (agent_inventory_load(&m, a->conf->state, c->name, &err) <
	           0) {
		log_err("cluster '%s': %s, not planning", c->name, err.msg);
		daemon_fail(a, "cluster '%s': not planned: %s", c->name,
		    err.msg);
	} else {
		snap = daemon_read_live(a, c, &m, NULL);
		planned = !a->sig.stop;
	}
	if (!planned) {
		log_info("cluster '%s': stopped while its nodes were read, "
		         "nothing posted",
		    c->name);
	} else if (snap != NULL) {
		p = plan_build(c, &m, snap, &po);
		agent_render_plan(&rs, p, c, NULL, NULL, snap,
		    &(struct agent_render_bases){wc->bases, wc->nbases, true},
		    NULL);
	}
	if (p != NULL) {
		mem = daemon_cluster(a, p->cluster);
		free(mem->dir);
		mem->dir = xstrdup(wc->dir);
		bad = log_unreadable(a, p);
		mem->untrusted = !trusted;
		dir = post_plan(a, p, wc, &rs, a->verify != NULL ? &vd : NULL,
		    digest);
		log_notice("cluster '%s': preview %s: %s, %zu action(s)",
		    p->cluster, dir != NULL ? dir : "(not posted)",
		    plan_outcome_name(p->outcome), p->nactions);
		if (dir != NULL)
			daemon_ha_carry_approval(a, p->cluster, dir, digest);
		if (dir != NULL)
			daemon_event_preview(a, mem, p, dir, digest);
		if (dir == NULL) {
			*failed = true;
			daemon_fail(a,
			    "cluster '%s': the preview was not posted",
			    p->cluster);
		}
		if (p->outcome == PLAN_OUT_REFUSED && p->refusal != NULL &&
		    strcmp(p->refusal, "INVALID_DECLARATION") != 0)
			daemon_fail(a,
			    "cluster '%s': the plan is refused (%s: %s)",
			    p->cluster, p->refusal,
			    p->message != NULL ? p->message : "no detail");
		/* a signature that could not be checked (ssh-keygen or gpg
		 * failing) is checked again, as unreadable nodes are read */
		unchecked = !trusted && vd.sig.why == AGENT_VERIFY_ERROR;
		mem->retry = (bad > 0 || unchecked) && dir != NULL;
		mem->fails = bad > 0 || unchecked ? mem->fails + 1 : 0;
		if (mem->retry) {
			mem->retry_at = clock_monotonic_ms() +
			                1000 * daemon_backoff(a, 5, mem->fails);
			if (unchecked)
				log_warn("cluster '%s': the signature could "
				         "not be checked, checking again in "
				         "%lds",
				    p->cluster,
				    daemon_backoff(a, 5, mem->fails));
			else
				log_warn("cluster '%s': %zu node(s) "
				         "unreadable, planning again in %lds",
				    p->cluster, bad,
				    daemon_backoff(a, 5, mem->fails));
		}
		free(mem->last_plan_dir);
		mem->last_plan_dir = dir;
		if (dir != NULL && bad == 0 && a->conf->auto_apply_creates &&
		    a->head.event != DAEMON_WATCH_REWRITE &&
		    plan_creates_only(p))
			daemon_auto_apply(a, dir, auto_why(p));
	}
	if (p != NULL && planned)
		metrics_observe(daemon_metrics(a),
		    "artemis_gitops_plan_duration_seconds",
		    (const char *[]){p->cluster}, daemon_seconds_since(t0));
	agent_render_release(&rs);
	agent_verify_verdict_release(&vd);
	plan_free(p);
	live_snapshot_free(snap);
	plan_managed_release(&m);
	decl_cluster_free(c);
	errlist_release(&diags);
	err_release(&err);
	return planned;
}

/* Plan the cluster folders of the head commit; only those named in only
 * (when not NULL) are planned. 0, 1 when SIGTERM/SIGINT stopped it before
 * every one was planned, -1 when the commit's folders cannot be read.
 * *failed is set when a preview could not be posted. */
static int
plan_head(struct daemon *a, const char *only, bool *failed)
{
	struct agent_git_folder *cs = NULL;
	struct err err = {0};
	size_t n = 0, i;
	int r = 0;

	if (daemon_watch_read_clusters(a->watch, a->head.head, &cs, &n, &err) <
	    0) {
		log_err("commit %.12s: %s, nothing planned", a->head.head,
		    err.msg);
		daemon_fail(a, "commit %.12s: %s", a->head.head, err.msg);
		err_release(&err);
		return -1;
	}
	if (n == 0)
		log_warn("commit %.12s: no cluster folder (a folder with "
		         "*.yaml files) under '%s'",
		    a->head.head, a->conf->clusters_path);
	for (i = 0; i < n && r == 0; i++) {
		if (only != NULL && strcmp(cs[i].dir, only) != 0)
			continue;
		if (daemon_stopping(a) || !plan_cluster(a, &cs[i], failed))
			r = 1;
	}
	agent_git_folders_free(cs, n);
	return r;
}

/* Clusters whose nodes could not all be read are planned again, with
 * backoff, until every node answers. *failed as plan_head's. */
static void
replan_due(struct daemon *a, bool *failed)
{
	int64_t now = clock_monotonic_ms();
	size_t i;
	char *dir;

	for (i = 0; i < a->nclusters && !daemon_stopping(a); i++) {
		if (!a->clusters[i].retry || a->clusters[i].retry_at > now ||
		    a->clusters[i].dir == NULL)
			continue;
		log_info("cluster '%s': planning commit %.12s again",
		    a->clusters[i].name, a->head.head);
		dir = xstrdup(a->clusters[i].dir);
		if (plan_head(a, dir, failed) < 0)
			*failed = true;
		free(dir);
	}
}

/* How many clusters wait to be planned again (nodes unreadable). */
static size_t
replans_due(const struct daemon *a)
{
	size_t i, n = 0;

	for (i = 0; i < a->nclusters; i++)
		if (a->clusters[i].retry)
			n++;
	return n;
}

static void
log_head(const struct daemon *a)
{
	const struct daemon_watch_update *u = &a->head;

	if (u->event == DAEMON_WATCH_REWRITE)
		log_err("history of branch '%s' rewritten: %.12s does not "
		        "descend from %.12s; earlier previews are withdrawn "
		        "and %.12s is planned but never applied without an "
		        "approval",
		    a->conf->branch, u->head, u->prev, u->head);
	else if (u->event == DAEMON_WATCH_FIRST)
		log_notice("branch '%s' at %.12s (%s): planning",
		    a->conf->branch, u->head,
		    u->summary != NULL ? u->summary : "");
	else
		log_notice(
		    "branch '%s' moved to %.12s (%s), %zu new commit(s): "
		    "planning",
		    a->conf->branch, u->head,
		    u->summary != NULL ? u->summary : "", u->ncommits);
}

/* Fetch the branch: daemon_watch_poll, timed, and told to the board. */
static int
fetch(struct daemon *a, struct daemon_watch_update *u, struct err *err)
{
	struct daemon_child_wait cw = {a->sigfd, &a->sig,
	    a->conf->fetch_timeout};
	int64_t t0 = clock_monotonic_ms();
	int r;

	r = daemon_watch_poll(a->watch, &cw, u, err);
	if (r == DAEMON_CHILD_ESTOPPED)
		return r; /* given up: says nothing of the repository */
	metrics_observe(daemon_metrics(a),
	    "artemis_gitops_fetch_duration_seconds", NULL,
	    daemon_seconds_since(t0));
	if (a->board != NULL)
		web_board_fetched(a->board, r == 0, r == 0 ? u->head : NULL,
		    r == 0 ? u->summary : NULL);
	return r;
}

/* The cycle; *failed is set when a step failed without making it -1 (a
 * preview not posted). */
static int
cycle_run(struct daemon *a, bool *failed)
{
	struct daemon_watch_update u;
	struct err err = {0};
	size_t n;
	int r;

	r = fetch(a, &u, &err);
	if (r == DAEMON_CHILD_ESTOPPED) {
		log_info("git: %s", err.msg);
		err_release(&err);
		return 0;
	}
	if (r < 0) {
		log_warn("git: %s, retrying in %lds", err.msg,
		    daemon_backoff(a, a->conf->poll_interval,
		        a->git_fails + 1));
		daemon_notify_status("git fetch failing: %s", err.msg);
		daemon_fail(a, "git: %s", err.msg);
		err_release(&err);
		return -1;
	}
	if (u.event == DAEMON_WATCH_SAME) {
		daemon_watch_update_release(&u);
		if (a->head.head[0] == '\0')
			snprintf(a->head.head, sizeof(a->head.head), "%s",
			    daemon_watch_last_seen(a->watch));
		replan_due(a, failed);
		return 0;
	}
	daemon_watch_update_release(&a->head);
	a->head = u;
	log_head(a);
	if (a->head.event == DAEMON_WATCH_REWRITE)
		daemon_event_rewrite(a);
	r = plan_head(a, NULL, failed);
	if (r < 0)
		*failed = true;
	if (r > 0) {
		/* not marked seen: the next start plans it again, whole */
		log_info("commit %.12s: stopped before every cluster was "
		         "planned; it is planned again at the next start",
		    a->head.head);
		return 0;
	}
	n = replans_due(a);
	if (a->once && n > 0) {
		/* a running agent replans with backoff; a --once run has no
		 * memory but last-seen: the next run plans the commit again */
		log_warn("commit %.12s: not marked seen, %zu cluster(s) could "
		         "not read every node; the next run plans it again",
		    a->head.head, n);
		return 0;
	}
	if (daemon_watch_mark_seen(a->watch, a->head.head, &err) < 0) {
		*failed = true;
		log_err("%s", err.msg);
		daemon_fail(a, "%s", err.msg);
		err_release(&err);
	}
	daemon_notify_status("commit %.12s planned (%s)", a->head.head,
	    daemon_watch_event_name(a->head.event));
	return 0;
}

int
daemon_cycle(struct daemon *a)
{
	int64_t t0 = clock_monotonic_ms();
	bool failed = false;
	int r;

	r = cycle_run(a, &failed);
	if (a->sig.stop)
		return r; /* cut short: neither a result nor a duration */
	failed = failed || r < 0;
	metrics_observe(daemon_metrics(a),
	    "artemis_gitops_cycle_duration_seconds", NULL,
	    daemon_seconds_since(t0));
	metrics_add(daemon_metrics(a), "artemis_gitops_cycles_total",
	    (const char *[]){failed ? "failed" : "ok"}, 1);
	if (a->board != NULL)
		web_board_cycled(a->board, !failed);
	return r;
}
