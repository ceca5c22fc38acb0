/* agent/approve-run.c: the daemon's side of approvals. An operator runs
 * `artemis-gitops approve PLAN_DIR --confirm TEXT`, which writes
 * PLAN_DIR/approval.json; the next cycle finds it here and runs the same
 * apply as `artemis-gitops apply` (result.json, result.md, audit rows,
 * inventory), under the daemon's own lock on the state folder. */
#define LOG_MODULE "approve"
#include "daemon.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/xalloc.h"
#include "../../reconcile/apply/apply.h"
#include "../apply-plan.h"
#include "../plan-dir.h"
#include "../log.h"
#include "notify.h"
#include "outbox.h"
#include "../state.h"

/* Record why an approval is not acted on, once (the file stops the
 * daemon from looking at it again). */
static void
refuse(const char *dir, const char *why)
{
	struct err err = {0};
	char *text = xasprintf("%s\n", why);

	log_warn("approval in %s not applied: %s", dir, why);
	if (outbox_put(dir, OUTBOX_REFUSED, text, &err) < 0) {
		log_err("%s", err.msg);
		err_release(&err);
	}
	free(text);
}

static void
apply_dir(struct agent *a, const char *dir)
{
	struct agent_apply_opts o;
	struct err err = {0};
	char *decl = xasprintf("%s/%s", dir, OUTBOX_DECLARATION);
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
		refuse(dir, err.msg);
		err_release(&err);
		return;
	}
	if (code == 0)
		log_notice("applied %s: every node APPLIED or SKIPPED (see "
		           "%s/result.md)",
		    dir, dir);
	else
		log_err("applied %s with failures: see %s/result.md", dir, dir);
	notify_status("applied %s (%s)", dir, code == 0 ? "ok" : "failures");
}

void
agent_run_approvals(struct agent *a)
{
	char **list = NULL;
	size_t n = 0, i;
	struct err err = {0};

	if (outbox_list_approved(&list, &n, a->conf->outbox, &err) < 0) {
		log_err("%s", err.msg);
		err_release(&err);
		return;
	}
	for (i = 0; i < n && !agent_stopping(a); i++) {
		if (outbox_has(list[i], OUTBOX_SUPERSEDED))
			refuse(list[i],
			    "this preview was superseded by a newer commit (see "
			    "its 'superseded' file); approve the newer preview");
		else
			apply_dir(a, list[i]);
	}
	outbox_list_free(list, n);
}

void
agent_auto_apply(struct agent *a, const char *dir)
{
	struct agent_plan ap;
	struct recon_approval ra = {0};
	struct err err = {0};
	char *text = NULL;

	memset(&ap, 0, sizeof(ap));
	if (agent_plan_load(&ap, dir, &err) < 0) {
		log_err("auto-apply %s: %s", dir, err.msg);
		goto done;
	}
	ra.plan_digest = xstrdup(ap.digest);
	ra.confirmation = recon_plan_confirmation(ap.plan);
	ra.approved_by = xstrdup("artemis-gitops (auto-apply-creates)");
	ra.approved_at = agent_now_rfc3339();
	text = recon_approval_render(&ra);
	if (outbox_put(dir, OUTBOX_APPROVAL, text, &err) < 0) {
		log_err("auto-apply %s: %s", dir, err.msg);
		goto done;
	}
	log_notice("auto-apply-creates: %s only creates objects, applying "
	           "without an approval",
	    dir);
	apply_dir(a, dir);
done:
	free(text);
	recon_approval_release(&ra);
	agent_plan_release(&ap);
	err_release(&err);
}
