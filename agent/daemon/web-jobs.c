/* agent/daemon/web-jobs.c: what the web server asks of the loop
 * (agent/web/web.h "jobs"). The server's threads never read a broker or
 * the repository: an operator's delete-queue posted through the API or
 * the page becomes a job, which the loop runs between two steps, as
 * `artemis-gitops delete-queue` runs: the cluster's declaration at the
 * branch head, every node read, plan_delete_queue's preflight (ADR-0084)
 * with the cluster's inventory (its settings.protect patterns count), and
 * a preview in the outbox, approved like any other. An approval
 * written by the server wakes the loop too, so that it is applied at once
 * rather than at the next poll. */
#define LOG_MODULE "web"

#include "daemon-int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/clock.h"
#include "../../lib/sha256.h"
#include "../../lib/xalloc.h"
#include "../../reconcile/live/live.h"
#include "../../reconcile/plan/plan.h"
#include "../inventory.h"
#include "../log.h"
#include "../plan-dir.h"
#include "../preview.h"

/* The folder of the head commit that declares cluster `name`, parsed
 * into *c; 1 when none does, -1 (msg set) when the commit cannot be
 * read. */
static int
find_cluster(struct daemon *a, const char *name, struct agent_git_folder **cs,
    size_t *n, size_t *at, struct decl_cluster **c, struct sbuf *msg)
{
	struct errlist diags = {0};
	struct err err = {0};
	size_t i;

	if (daemon_watch_read_clusters(a->watch, a->head.head, cs, n, &err) <
	    0) {
		sbuf_addf(msg, "commit %.12s: %s", a->head.head, err.msg);
		err_release(&err);
		return -1;
	}
	for (i = 0; i < *n; i++) {
		if (decl_cluster_parse(c, (*cs)[i].dir, (*cs)[i].files,
		        (*cs)[i].nfiles, &diags) < 0) {
			errlist_release(&diags);
			continue;
		}
		errlist_release(&diags);
		if (strcmp((*c)->name, name) == 0) {
			*at = i;
			return 0;
		}
		decl_cluster_free(*c);
		*c = NULL;
	}
	return 1;
}

static char *
request_text(const struct daemon *a, const struct web_job *j)
{
	char *now = clock_rfc3339_now(), *t;

	t = xasprintf("delete-queue %s\n"
	              "requested-by %s\n"
	              "requested-at %s\n"
	              "via http\n"
	              "disconnect-consumers %s\n"
	              "commit %s\n",
	    j->queue, j->by, now, j->disconnect_consumers ? "true" : "false",
	    a->head.head);
	free(now);
	return t;
}

/* Post the preview of p; its folder's name in *id (owned). */
static int
post(struct daemon *a, const struct web_job *j, const struct plan *p,
    const struct agent_git_folder *wc, char **id, struct sbuf *msg)
{
	struct err err = {0};
	char digest[SHA256_HEX];
	char *dir = NULL, *text = request_text(a, j);
	const char *slash;
	int rc = -1;

	if (agent_outbox_new_plan_dir(&dir, a->conf->outbox, p->cluster,
	        a->head.head, &err) < 0 ||
	    agent_plan_dir_write(p, dir, digest, &err) < 0 ||
	    agent_outbox_put(dir, AGENT_OUTBOX_REQUEST, text, &err) < 0 ||
	    daemon_post_declaration(dir, wc, &err) < 0) {
		sbuf_addf(msg, "the preview could not be posted: %s", err.msg);
	} else {
		slash = strrchr(dir, '/');
		*id = xstrdup(slash != NULL ? slash + 1 : dir);
		rc = 0;
	}
	err_release(&err);
	free(text);
	free(dir);
	return rc;
}

static void
run_job(struct daemon *a, struct web_job *j)
{
	struct agent_git_folder *cs = NULL;
	struct decl_cluster *c = NULL;
	struct recon_snapshot *snap = NULL;
	struct plan *p = NULL;
	struct plan_opts po = {0};
	struct plan_managed m = {0};
	struct err err = {0};
	struct sbuf msg = {0};
	size_t n = 0, at = 0;
	char *id = NULL, *why;
	int status = 500, r;

	if (a->head.head[0] == '\0') {
		status = 503;
		sbuf_adds(&msg, "the agent has not read the branch yet; try "
		                "again after its first cycle");
		goto done;
	}
	r = find_cluster(a, j->cluster, &cs, &n, &at, &c, &msg);
	if (r != 0) {
		status = r < 0 ? 503 : 404;
		if (r > 0)
			sbuf_addf(&msg,
			    "no valid declaration of cluster '%s' at commit "
			    "%.12s",
			    j->cluster, a->head.head);
		goto done;
	}
	why = agent_preview_capture_owned(c, j->queue);
	if (why != NULL) {
		status = 422;
		sbuf_adds(&msg, why);
		free(why);
		goto done;
	}
	if (!daemon_ha_owns(a, c->name)) {
		/* several agents: only the owner reads the brokers */
		status = 409;
		sbuf_addf(&msg,
		    "this agent stands by for cluster '%s', owned by %s: open "
		    "the owner's page",
		    c->name, daemon_ha_owner(a, c->name));
		goto done;
	}
	if (agent_inventory_load(&m, a->conf->state, c->name, &err) < 0) {
		why = err_render(&err);
		sbuf_addf(&msg, "the inventory cannot be read: %s", why);
		free(why);
		goto done;
	}
	snap = daemon_read_live(a, c, &m, j->queue);
	if (a->sig.stop) {
		status = 503;
		sbuf_adds(&msg, "the agent is stopping");
		goto done;
	}
	po.disconnect_consumers = j->disconnect_consumers;
	po.revision = a->head.head;
	po.snapshot_source = "live";
	p = plan_delete_queue(c, &m, j->queue, snap, &po);
	if (p->nactions == 0 && p->outcome != PLAN_OUT_REFUSED) {
		status = 200;
		sbuf_addf(&msg,
		    "nothing to do: no reachable node has queue '%s'",
		    j->queue);
		goto done;
	}
	if (post(a, j, p, &cs[at], &id, &msg) < 0)
		goto done;
	status = 201;
	sbuf_addf(&msg, "preview %s: %s, %zu action(s)", id,
	    plan_outcome_name(p->outcome), p->nactions);
done:
	if (status >= 500)
		log_err("delete-queue '%s' on cluster '%s' for %s: %s",
		    j->queue, j->cluster, j->by, sbuf_str(&msg));
	else
		log_notice("delete-queue '%s' on cluster '%s' for %s: %s",
		    j->queue, j->cluster, j->by, sbuf_str(&msg));
	web_board_job_done(a->board, j, status, id, sbuf_str(&msg));
	free(id);
	sbuf_release(&msg);
	plan_free(p);
	plan_managed_release(&m);
	err_release(&err);
	live_snapshot_free(snap);
	decl_cluster_free(c);
	agent_git_folders_free(cs, n);
}

void
daemon_web_jobs(struct daemon *a)
{
	struct web_job *j;

	if (a->board == NULL)
		return;
	while (
	    !daemon_stopping(a) && (j = web_board_job_take(a->board)) != NULL)
		run_job(a, j);
	if (!a->sig.stop && web_board_wanted(a->board))
		daemon_run_approvals(a);
}
