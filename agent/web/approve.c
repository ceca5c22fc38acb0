/* agent/web/approve.c: an approval from the web (web-int.h "approve.c"):
 * the checks of `artemis-gitops approve` (agent/cmd-approve.c), in its
 * order, then approval.json written by the one writer both use
 * (agent/approve-write.h), naming the token's name as approved_by and
 * "http" as via, and the window override when asked for (as `approve
 * --override-window` writes it). The daemon acts on it like on any other
 * approval; the file is the daemon's own uid's (agent/daemon/approvals.c).
 *
 * One process serves, so a mutex makes "no approval yet, write one" one
 * step: of two approvers racing, one gets 200 and the other 409. */
#include "web-int.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/utf8.h"
#include "../../lib/xalloc.h"
#include "../../reconcile/apply/apply.h"
#include "../approve-write.h"
#include "../outbox.h"
#include "../plan-dir.h"

static pthread_mutex_t approve_mu = PTHREAD_MUTEX_INITIALIZER;

/* A status with err's message (rendered) into msg. */
static int
fail(struct sbuf *msg, int status, struct err *err)
{
	char *s = err_render(err);

	sbuf_adds(msg, s);
	free(s);
	err_release(err);
	return status;
}

static int
failf(struct sbuf *msg, int status, const char *text)
{
	sbuf_adds(msg, text);
	return status;
}

/* The folder's own markers, before the plan is read: 409 for a preview
 * that is already approved, applied, superseded or whose approval was
 * refused; 0 otherwise. */
static int
already(const char *dir, struct sbuf *msg)
{
	if (agent_outbox_has(dir, AGENT_OUTBOX_RESULT))
		return failf(msg, 409,
		    "the preview was already applied (result.json); plan again "
		    "for a new change");
	if (agent_outbox_has(dir, AGENT_OUTBOX_SUPERSEDED))
		return failf(msg, 409,
		    "the preview is superseded by a newer one; approve the "
		    "newer preview");
	if (agent_outbox_has(dir, AGENT_OUTBOX_REFUSED))
		return failf(msg, 409,
		    "the preview's approval was refused by the agent "
		    "(approval-refused.txt); plan again");
	if (agent_outbox_has(dir, AGENT_OUTBOX_APPROVAL))
		return failf(msg, 409, "the preview is already approved");
	return 0;
}

int
web_approve(const struct web_view *v, const char *cluster, const char *id,
    const char *confirm, bool override_window, const struct web_who *who,
    struct sbuf *msg)
{
	struct agent_plan_dir ap;
	struct err err = {0};
	char *dir = NULL;
	size_t at;
	uint32_t cp;
	int status;

	memset(&ap, 0, sizeof(ap));
	if (who == NULL || who->role != WEB_APPROVER)
		return failf(msg, 403, "approving takes an approver's token");
	if (who->name[0] == '\0' ||
	    utf8_find(who->name, utf8_line_problem, &at, &cp) != NULL)
		return failf(msg, 403,
		    "the token's name cannot be recorded as an approver");
	if (v->outbox == NULL || !web_id_ok(cluster) || !web_id_ok(id) ||
	    strcmp(id, AGENT_OUTBOX_DRIFT) == 0)
		return failf(msg, 404, "no such preview");
	if (confirm == NULL || confirm[0] == '\0')
		return failf(msg, 422,
		    "the confirmation is empty; type the text shown under the "
		    "approve command in plan.md");
	dir = xasprintf("%s/%s/%s", v->outbox, cluster, id);
	if (!agent_outbox_has(dir, AGENT_OUTBOX_PLAN)) {
		status = failf(msg, 404, "no such preview");
		goto done;
	}
	status = already(dir, msg);
	if (status != 0)
		goto done;
	/* the checks of `artemis-gitops approve`, in its order */
	if (agent_plan_dir_load(&ap, dir, &err) < 0) {
		status = fail(msg, 422, &err);
		goto done;
	}
	if (apply_approval_check_plan(ap.plan, confirm, &err) < 0 ||
	    agent_plan_dir_check_md(&ap, &err) < 0) {
		status = fail(msg, 422, &err);
		goto done;
	}
	if (agent_plan_dir_check_current(&ap, v->state, &err) < 0) {
		status = fail(msg, 409, &err);
		goto done;
	}
	pthread_mutex_lock(&approve_mu);
	status = already(dir, msg);
	if (status == 0 &&
	    agent_approve_write(&ap, confirm, who->name,
	        APPLY_APPROVAL_VIA_HTTP, override_window, 0640, NULL, &err) < 0)
		status = fail(msg, 500, &err);
	pthread_mutex_unlock(&approve_mu);
	if (status == 0) {
		sbuf_addf(msg, "approved by %s: %s/%s (plan.json SHA-256 %s)",
		    who->name, cluster, id, ap.digest);
		if (override_window)
			sbuf_adds(msg,
			    "; the approval overrides the cluster's sync "
			    "window: it is applied at the agent's next cycle "
			    "even outside the window");
		status = 200;
	}
done:
	agent_plan_dir_release(&ap);
	free(dir);
	return status;
}
