/* agent/cmd-apply.c: `artemis-gitops apply PLAN_DIR [--state DIR]
 * [--credentials DIR]`: apply an approved plan (ADR-0084 decisions 3 and
 * 6; design.md section 6): lock the state folder, check every node again,
 * append the intent row, run the operations, append the result row,
 * update the inventory, write result.json and result.md. */
#include "agent.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apply-plan.h"
#include "state.h"
#include "tls.h"

enum { APPLY_STATE, APPLY_CREDENTIALS, APPLY_CLUSTER, APPLY_TLS };

static int
apply_exec(const struct agent_cmd_args *args)
{
	struct agent_apply_plan_opts o;
	struct agent_tls tls;
	int code;

	memset(&o, 0, sizeof(o));
	o.dir = args->argv[0];
	o.state = agent_state_default(args->opt[APPLY_STATE]);
	o.credentials = args->opt[APPLY_CREDENTIALS];
	o.cluster = args->opt[APPLY_CLUSTER];
	o.tls = &tls;
	code = agent_tls_from_args(&tls, "apply", args, APPLY_TLS);
	if (code == AGENT_CMD_CONTINUE)
		code = agent_apply_plan(&o);
	agent_tls_release(&tls);
	return code;
}

static const struct agent_cmd_option apply_options[] = {
    [APPLY_STATE] = {"state", '\0', "DIR",
        "state folder (default: $STATE_DIRECTORY, else\n" AGENT_STATE_DEFAULT
        ")",
        NULL},
    [APPLY_CREDENTIALS] = {"credentials", '\0', "DIR",
        "credentials folder (default: $CREDENTIALS_DIRECTORY)", NULL},
    [APPLY_CLUSTER] = {"cluster", '\0', "DIR",
        "the cluster's declaration folder, for the nodes'\n"
        "endpoints (default: PLAN_DIR/declaration)",
        NULL},
    AGENT_TLS_OPTIONS(APPLY_TLS),
    {NULL, '\0', NULL, NULL, NULL},
};

const struct agent_cmd_entry agent_cmd_apply_entry = {
    .name = "apply",
    .summary = "apply an approved plan: nodes checked again, audited",
    .synopsis = "PLAN_DIR [--state DIR] [--credentials DIR]",
    .description =
        "Apply the approved plan in PLAN_DIR. Every node is read again and "
        "checked\nagainst what the plan recorded: a node whose state "
        "changed is refused as\nstale (or skipped when nothing is left to "
        "do); then, per node, creates run\nfirst, and for a queue delete "
        "its dependent diverts, then the queue. No\nrollback. Writes "
        "PLAN_DIR/result.json and result.md and one audit row\n(plus an "
        "intent row before the first operation) to STATE/audit.jsonl.",
    .options = apply_options,
    .help_col = 21,
    .exit_codes = "Exit codes: 0 every node applied or had nothing to do, 1 "
                  "otherwise (or the\nplan is not approved, or the state "
                  "folder is locked), 64 usage error.",
    .args_min = 1,
    .args_max = 1,
    .args_few = "expected one PLAN_DIR",
    .args_many = "expected one PLAN_DIR",
    .args_counted = true,
    .bad_option = "unknown option or missing value",
    .exec = apply_exec,
};
