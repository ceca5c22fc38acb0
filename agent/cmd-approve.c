/* agent/cmd-approve.c: `artemis-gitops approve PLAN_DIR --confirm TEXT
 * [--by NAME] [--state DIR]`: write PLAN_DIR/approval.json, bound to the
 * SHA-256 of plan.json, after checking the typed confirmation (ADR-0084
 * ConfirmByTyping; design.md section 5). */
#include "agent.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/utf8.h"
#include "../lib/xalloc.h"
#include "../reconcile/apply/apply.h"
#include "approve-write.h"
#include "plan-dir.h"
#include "state.h"

struct approve_opts {
	const char *dir, *confirm, *by, *state;
	bool override_window;
};

/* The state folder to check a superseded plan against: --state, else the
 * default one when it exists (approving on a workstation that has no
 * state folder leaves that check to apply). */
static const char *
state_of(const struct approve_opts *o)
{
	const char *dir = agent_state_default(o->state);
	struct stat sb;

	if (o->state != NULL || (stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode)))
		return dir;
	return NULL;
}

static int
write_approval(const struct agent_plan_dir *ap, const struct approve_opts *o,
    struct err *err)
{
	struct apply_approval a;
	char *by = o->by != NULL ? xstrdup(o->by) : agent_invoker_name();
	int rc;

	memset(&a, 0, sizeof(a));
	rc = agent_approve_write(ap, o->confirm, by, NULL, o->override_window,
	    0644, &a, err);
	if (rc == 0 && o->override_window)
		printf(
		    "the approval overrides the cluster's sync window: it is "
		    "applied even outside it, and the audit row says so\n");
	if (rc == 0)
		printf("approved: %s (plan.json SHA-256 %s) by %s (uid %lld "
		       "%s)\n"
		       "apply it with: artemis-gitops apply %s\n",
		    ap->dir, ap->digest, a.approved_by,
		    (long long)a.approved_uid, a.approved_user, ap->dir);
	apply_approval_release(&a);
	free(by);
	return rc;
}

enum { APPROVE_CONFIRM, APPROVE_BY, APPROVE_STATE, APPROVE_OVERRIDE_WINDOW };

static int
approve_exec(const struct agent_cmd_args *args)
{
	struct approve_opts o;
	struct agent_plan_dir ap;
	struct err err = {0};
	char *msg;
	uint32_t cp;
	size_t at;
	int code;

	memset(&o, 0, sizeof(o));
	memset(&ap, 0, sizeof(ap));
	o.dir = args->argv[0];
	o.confirm = args->opt[APPROVE_CONFIRM];
	o.by = args->opt[APPROVE_BY];
	o.state = args->opt[APPROVE_STATE];
	o.override_window = args->opt[APPROVE_OVERRIDE_WINDOW] != NULL;
	if (o.confirm == NULL)
		return agent_usage_error("approve",
		    "--confirm TEXT is required (the text shown in plan.md)");
	if (o.by != NULL && o.by[0] == '\0')
		return agent_usage_error("approve", "--by: empty name");
	if (o.by != NULL &&
	    utf8_find(o.by, utf8_line_problem, &at, &cp) != NULL)
		return agent_usage_error("approve",
		    "--by: the name holds a control, line-break or "
		    "bidirectional character (or invalid UTF-8)");
	if (agent_plan_dir_load(&ap, o.dir, &err) < 0 ||
	    apply_approval_check_plan(ap.plan, o.confirm, &err) < 0 ||
	    agent_plan_dir_check_md(&ap, &err) < 0 ||
	    agent_plan_dir_check_current(&ap, state_of(&o), &err) < 0 ||
	    write_approval(&ap, &o, &err) < 0) {
		msg = err_render(&err);
		fprintf(stderr, "artemis-gitops approve: %s\n", msg);
		free(msg);
		code = AGENT_EXIT_FAIL;
	} else {
		code = AGENT_EXIT_OK;
	}
	err_release(&err);
	agent_plan_dir_release(&ap);
	return code;
}

static const struct agent_cmd_option approve_options[] = {
    [APPROVE_CONFIRM] = {"confirm", '\0', "TEXT",
        "the confirmation text (required)", NULL},
    [APPROVE_BY] = {"by", '\0', "NAME",
        "who approves, as free text (default: $SUDO_USER,\n"
        "$USER, the login name); the real uid is recorded too",
        NULL},
    [APPROVE_STATE] = {"state", '\0', "DIR",
        "state folder (default: $STATE_DIRECTORY, else\n" AGENT_STATE_DEFAULT
        ")",
        NULL},
    [APPROVE_OVERRIDE_WINDOW] = {"override-window", '\0', NULL,
        "this plan may be applied outside the cluster's\n"
        "sync window (recorded in approval.json and the audit)",
        NULL},
    {NULL, '\0', NULL, NULL, NULL},
};

const struct agent_cmd_entry agent_cmd_approve_entry = {
    .name = "approve",
    .summary = "approve a written plan with its typed confirmation text",
    .synopsis =
        "PLAN_DIR --confirm TEXT [--by NAME]\n[--state DIR] [--override-window]",
    .description =
        "Approve exactly the plan written in PLAN_DIR: TEXT must be the "
        "confirmation\ntext shown in PLAN_DIR/plan.md. Writes "
        "PLAN_DIR/approval.json, bound to the\nSHA-256 of plan.json and "
        "naming your real uid (the agent acts only on an\napproval whose "
        "file that uid owns); `artemis-gitops apply PLAN_DIR` then\n"
        "applies it.\n\n"
        "Refused: a wrong text, a plan.json changed since it was written, "
        "a refused\nplan, a plan without changes, a plan already applied "
        "or superseded by a\nlater apply.",
    .options = approve_options,
    .help_col = 21,
    .exit_codes = "Exit codes: 0 approved, 1 refused, 64 usage error.",
    .args_min = 1,
    .args_max = 1,
    .args_few = "expected one PLAN_DIR",
    .args_many = "expected one PLAN_DIR",
    .args_counted = true,
    .bad_option = "unknown option or missing value",
    .exec = approve_exec,
};
