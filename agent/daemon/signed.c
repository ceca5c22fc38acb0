/* agent/daemon/signed.c: only signed commits are applied (repository.verify;
 * daemon-int.h, "signed.c"). The judging is agent/verify.c's; here the
 * daemon's side: which base a cluster's check starts from, the log, the
 * watchdog while ssh-keygen runs, and the replan after a reload. */
#define LOG_MODULE "verify"

#include "daemon-int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/xalloc.h"
#include "../../reconcile/plan/plan.h"
#include "../inventory.h"
#include "../log.h"
#include "../verify.h"

/* While ssh-keygen runs: WATCHDOG=1, and signals recorded for later. */
static void
on_tick(void *arg)
{
	struct daemon *a = arg;

	daemon_notify_watchdog();
	daemon_signal_drain(a->sigfd, &a->sig);
}

bool
daemon_verify_head(struct daemon *a, const char *cluster, const char *head,
    struct agent_verify_verdict *vd)
{
	struct agent_verify_tick tick = {on_tick, a};
	struct plan_managed m = {0};
	struct agent_git_repo *r = NULL;
	struct err err = {0};
	char *line;

	if (a->verify == NULL)
		return true;
	if (daemon_watch_repo(a->watch, &r, &err) < 0 ||
	    (a->conf->verify_mode == AGENT_CONF_VERIFY_SINCE_APPLIED &&
	        agent_inventory_load(&m, a->conf->state, cluster, &err) < 0)) {
		memset(vd, 0, sizeof(*vd));
		snprintf(vd->commit, sizeof(vd->commit), "%s", head);
		vd->sig.why = AGENT_VERIFY_ERROR;
		vd->sig.detail = xstrdup(err.msg);
	} else {
		agent_verify_commit(a->verify, r, head, m.revision, &tick, vd);
	}
	line = agent_verify_verdict_line(vd);
	if (vd->trusted)
		log_info("cluster '%s': %s%s%s%s", cluster, line,
		    vd->note != NULL ? " (" : "",
		    vd->note != NULL ? vd->note : "",
		    vd->note != NULL ? ")" : "");
	else
		log_err("cluster '%s': %s%s%s%s: not applied", cluster, line,
		    vd->note != NULL ? " (" : "",
		    vd->note != NULL ? vd->note : "",
		    vd->note != NULL ? ")" : "");
	free(line);
	plan_managed_release(&m);
	err_release(&err);
	return vd->trusted;
}

int
daemon_verify_load(struct agent_verify **out, const struct agent_conf *conf)
{
	struct err err = {0};

	char *why;

	if (agent_verify_new(out, conf, &err) < 0) {
		why = err_render(&err);
		log_err("repository.verify: %s", why);
		free(why);
		err_release(&err);
		return -1;
	}
	return 0;
}

void
daemon_verify_replan(struct daemon *a)
{
	size_t i;

	for (i = 0; i < a->nclusters; i++) {
		if (!a->clusters[i].untrusted || a->clusters[i].dir == NULL)
			continue;
		log_info("cluster '%s': what is trusted was reloaded: commit "
		         "%.12s is checked again",
		    a->clusters[i].name, a->head.head);
		a->clusters[i].retry = true;
		a->clusters[i].retry_at = 0;
	}
}
