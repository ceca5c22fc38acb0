/* agent/cmd-apply.c: `artemis-gitops apply PLAN_DIR [--state DIR]
 * [--credentials DIR]`: apply an approved plan (ADR-0084 decisions 3 and
 * 6; design.md section 6): lock the state folder, check every node again,
 * append the intent row, run the operations, append the result row,
 * update the inventory, write result.json and result.md. */
#include "agent.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apply-plan.h"
#include "approve-write.h"
#include "conf.h"
#include "state.h"
#include "tls.h"

/* The installed unit's configuration: its sync windows bind `apply` on
 * that host when --config is not given. */
#define APPLY_CONFIG_DEFAULT "/etc/artemis-gitops/agent.yaml"

enum {
	APPLY_STATE,
	APPLY_CREDENTIALS,
	APPLY_CLUSTER,
	APPLY_CONFIG,
	APPLY_OVERRIDE_WINDOW,
	APPLY_TLS
};

/* The agent configuration whose sync windows (and state folder) apply:
 * --config, else APPLY_CONFIG_DEFAULT when it exists; *out NULL when
 * none. AGENT_CMD_CONTINUE, or AGENT_EXIT_FAIL (printed). */
static int
load_config(struct agent_conf **out, const char *path)
{
	struct errlist d = {0};
	size_t i;
	char *s;

	*out = NULL;
	if (path == NULL && access(APPLY_CONFIG_DEFAULT, F_OK) == 0)
		path = APPLY_CONFIG_DEFAULT;
	if (path == NULL)
		return AGENT_CMD_CONTINUE;
	if (agent_conf_load(out, path, &d) < 0) {
		for (i = 0; i < d.n; i++) {
			s = errlist_render_item(&d, i);
			fprintf(stderr, "artemis-gitops apply: %s\n", s);
			free(s);
		}
		fprintf(stderr,
		    "artemis-gitops apply: the configuration %s is refused, "
		    "so its sync windows cannot be checked; nothing was "
		    "applied\n",
		    path);
		errlist_release(&d);
		return AGENT_EXIT_FAIL;
	}
	errlist_release(&d);
	return AGENT_CMD_CONTINUE;
}

static int
apply_exec(const struct agent_cmd_args *args)
{
	struct agent_apply_plan_opts o;
	struct agent_conf *conf = NULL;
	struct agent_tls tls;
	char *by = NULL;
	int code;

	memset(&o, 0, sizeof(o));
	memset(&tls, 0, sizeof(tls));
	code = load_config(&conf, args->opt[APPLY_CONFIG]);
	if (code != AGENT_CMD_CONTINUE)
		return code;
	o.dir = args->argv[0];
	o.state = args->opt[APPLY_STATE] == NULL && conf != NULL
	              ? conf->state
	              : agent_state_default(args->opt[APPLY_STATE]);
	o.credentials = args->opt[APPLY_CREDENTIALS] == NULL && conf != NULL
	                    ? conf->credentials
	                    : args->opt[APPLY_CREDENTIALS];
	o.cluster = args->opt[APPLY_CLUSTER];
	o.tls = &tls;
	o.windows = conf != NULL ? &conf->windows : NULL;
	if (args->opt[APPLY_OVERRIDE_WINDOW] != NULL) {
		by = agent_invoker_name();
		o.override_by = by;
	}
	code = agent_tls_from_args(&tls, "apply", args, APPLY_TLS);
	if (code == AGENT_CMD_CONTINUE)
		code = agent_apply_plan(&o);
	agent_tls_release(&tls);
	agent_conf_free(conf);
	free(by);
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
    [APPLY_CONFIG] = {"config", '\0', "FILE",
        "the agent configuration whose sync windows apply\n"
        "(and its state and credentials folders); default:\n" APPLY_CONFIG_DEFAULT
        " when it exists",
        NULL},
    [APPLY_OVERRIDE_WINDOW] = {"override-window", '\0', NULL,
        "apply outside the cluster's sync window (recorded\n"
        "in the audit rows with who ran it)",
        NULL},
    AGENT_TLS_OPTIONS(APPLY_TLS),
    {NULL, '\0', NULL, NULL, NULL},
};

const struct agent_cmd_entry agent_cmd_apply_entry = {
    .name = "apply",
    .summary = "apply an approved plan: nodes checked again, audited",
    .synopsis = "PLAN_DIR [--state DIR] [--credentials DIR]\n"
                "[--config FILE] [--override-window]",
    .description =
        "Apply the approved plan in PLAN_DIR. Every node is read again and "
        "checked\nagainst what the plan recorded: a node whose state "
        "changed is refused as\nstale (or skipped when nothing is left to "
        "do); then, per node, creates run\nfirst, and for a queue delete "
        "its dependent diverts, then the queue. No\nrollback. Writes "
        "PLAN_DIR/result.json and result.md and one audit row\n(plus an "
        "intent row before the first operation) to STATE/audit.jsonl.\n\n"
        "Refused, nothing done: a suspended cluster (`artemis-gitops "
        "suspend`), and\none outside its sync window (the configuration's "
        "`sync-windows`) unless\n--override-window, or the approval was "
        "made with --override-window.",
    .options = apply_options,
    .help_col = 21,
    .exit_codes = "Exit codes: 0 every node applied or had nothing to do, 1 "
                  "otherwise (or the\nplan is not approved, or the state "
                  "folder is locked), 3 outside the sync\nwindow, 4 the "
                  "cluster is suspended, 64 usage error.",
    .args_min = 1,
    .args_max = 1,
    .args_few = "expected one PLAN_DIR",
    .args_many = "expected one PLAN_DIR",
    .args_counted = true,
    .bad_option = "unknown option or missing value",
    .exec = apply_exec,
};
