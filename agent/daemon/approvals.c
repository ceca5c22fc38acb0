/* agent/daemon/approvals.c: the daemon's side of approvals. An operator runs
 * `artemis-gitops approve PLAN_DIR --confirm TEXT`, which writes
 * PLAN_DIR/approval.json; the next cycle finds it here and runs the same
 * apply as `artemis-gitops apply` (result.json, result.md, audit rows,
 * inventory), under the daemon's own lock on the state folder. */
#define LOG_MODULE "approve"

#include "daemon-int.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/clock.h"
#include "../../lib/xalloc.h"
#include "../../reconcile/apply/apply.h"
#include "../apply-plan.h"
#include "../log.h"
#include "../plan-dir.h"
#include "../state.h"

/* Record why an approval is not acted on, once (the file stops the
 * daemon from looking at it again). */
static void
refuse(const char *dir, const char *why)
{
	struct err err = {0};
	char *text = xasprintf("%s\n", why);

	log_warn("approval in %s not applied: %s", dir, why);
	if (daemon_outbox_put(dir, DAEMON_OUTBOX_REFUSED, text, &err) < 0) {
		log_err("%s", err.msg);
		err_release(&err);
	}
	free(text);
}

static void
apply_dir(struct daemon *a, const char *dir)
{
	struct agent_apply_plan_opts o;
	struct err err = {0};
	char *decl = xasprintf("%s/%s", dir, DAEMON_OUTBOX_DECLARATION);
	int code;

	memset(&o, 0, sizeof(o));
	o.dir = dir;
	o.state = a->conf->state;
	o.st = a->state;
	o.credentials = a->conf->credentials;
	o.ca_file = a->conf->tls_ca_file;
	o.cluster = decl;
	o.quiet = true;
	log_info("applying %s", dir);
	code = agent_apply_plan_run(&o, &err);
	free(decl);
	if (code < 0) {
		/* rendered: a plan.json error carries its file as a position */
		char *why = err_render(&err);

		refuse(dir, why);
		free(why);
		err_release(&err);
		return;
	}
	if (code == 0)
		log_notice("applied %s: every node APPLIED or SKIPPED (see "
		           "%s/result.md)",
		    dir, dir);
	else
		log_err("applied %s with failures: see %s/result.md", dir, dir);
	daemon_notify_status("applied %s (%s)", dir,
	    code == 0 ? "ok" : "failures");
}

void
daemon_run_approvals(struct daemon *a)
{
	char **list = NULL;
	size_t n = 0, i;
	struct err err = {0};

	if (daemon_outbox_list_approved(&list, &n, a->conf->outbox, &err) < 0) {
		log_err("%s", err.msg);
		err_release(&err);
		return;
	}
	for (i = 0; i < n && !daemon_stopping(a); i++) {
		if (daemon_outbox_has(list[i], DAEMON_OUTBOX_SUPERSEDED))
			refuse(list[i],
			    "this preview was superseded by a newer commit (see "
			    "its 'superseded' file); approve the newer preview");
		else
			apply_dir(a, list[i]);
	}
	daemon_outbox_list_free(list, n);
}

void
daemon_auto_apply(struct daemon *a, const char *dir)
{
	struct agent_plan_dir ap;
	struct apply_approval ra = {0};
	struct err err = {0};
	char *text = NULL;

	memset(&ap, 0, sizeof(ap));
	if (agent_plan_dir_load(&ap, dir, &err) < 0) {
		log_err("auto-apply %s: %s", dir, err.msg);
		goto done;
	}
	ra.plan_digest = xstrdup(ap.digest);
	ra.confirmation = plan_confirmation(ap.plan);
	ra.approved_by = xstrdup("artemis-gitops (auto-apply-creates)");
	ra.approved_at = clock_rfc3339_now();
	text = apply_approval_render(&ra);
	if (daemon_outbox_put(dir, DAEMON_OUTBOX_APPROVAL, text, &err) < 0) {
		log_err("auto-apply %s: %s", dir, err.msg);
		goto done;
	}
	log_notice("auto-apply-creates: %s only creates objects, applying "
	           "without an approval",
	    dir);
	apply_dir(a, dir);
done:
	free(text);
	apply_approval_release(&ra);
	agent_plan_dir_release(&ap);
	err_release(&err);
}
