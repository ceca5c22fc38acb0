/* agent/approve-write.h: approval.json written for a loaded plan folder,
 * bound to plan.json's digest: one writer for `artemis-gitops approve`
 * (agent/cmd-approve.c) and the web server (agent/web/approve.c), which
 * both check the plan first (agent/plan-dir.h, apply_approval_check_plan).
 */
#ifndef AGENT_APPROVE_WRITE_H
#define AGENT_APPROVE_WRITE_H

#include <stdbool.h>
#include <sys/types.h>

#include "../lib/err.h"
#include "../reconcile/apply/apply.h"
#include "plan-dir.h"

/* The name of uid (getpwuid_r: safe in any thread), or its decimal value
 * when it has none. Owned. */
char *agent_user_name(uid_t uid);
/* Who runs this command, as free text: $SUDO_USER, $USER, the login
 * name, or the real uid's name (its number when it has none). Owned.
 * (approve's, suspend's and apply --override-window's default --by.) */
char *agent_invoker_name(void);

/* Write ap->dir/approval.json atomically (mode) for the typed confirm:
 * the plan's digest, approved_by by, the real uid and its name, now, via
 * (NULL for the command line, APPLY_APPROVAL_VIA_HTTP) and
 * override_window (approve --override-window). On success
 * *out (when not NULL) holds what was written (release with
 * apply_approval_release). */
int agent_approve_write(const struct agent_plan_dir *ap, const char *confirm,
    const char *by, const char *via, bool override_window, mode_t mode,
    struct apply_approval *out, struct err *err);

#endif
