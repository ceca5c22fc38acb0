/* agent/daemon/cmd-notify-test.c: `artemis-gitops notify-test --config FILE
 * [--target NAME]`: one signed `test` event to each webhook target of the
 * agent configuration, now, to check a URL and a secret before anything
 * happens (docs/notifications.md). The spool is not touched: the running
 * agent owns it. */
#include "daemon-int.h"

#include <stdio.h>
#include <stdlib.h>

#include "../agent.h"
#include "../webhook/webhook.h"

enum { NT_CONFIG, NT_TARGET };

struct outcome {
	size_t sent, failed;
};

static void
report(void *ctx, const char *target, bool sent, const char *why)
{
	struct outcome *o = ctx;

	if (sent) {
		printf("%s: sent\n", target);
		o->sent++;
	} else {
		printf("%s: not sent: %s\n", target, why);
		o->failed++;
	}
}

static int
notify_test_exec(const struct agent_cmd_args *args)
{
	const char *config = args->opt[NT_CONFIG];
	struct agent_conf *conf = NULL;
	struct errlist d = {0};
	struct outcome o = {0, 0};
	struct err err = {0};
	char *line;
	size_t i;
	int code = AGENT_EXIT_FAIL;

	if (config == NULL)
		return agent_usage_error("notify-test",
		    "--config FILE is required");
	if (agent_conf_load(&conf, config, &d) < 0) {
		for (i = 0; i < d.n; i++) {
			line = errlist_render_item(&d, i);
			fprintf(stderr, "artemis-gitops notify-test: %s\n",
			    line);
			free(line);
		}
	} else if (webhook_send_test(conf, args->opt[NT_TARGET], report, &o,
	               &err) < 0) {
		fprintf(stderr, "artemis-gitops notify-test: %s\n", err.msg);
	} else {
		code = o.failed == 0 ? AGENT_EXIT_OK : AGENT_EXIT_FAIL;
	}
	agent_conf_free(conf);
	errlist_release(&d);
	err_release(&err);
	return code;
}

static const struct agent_cmd_option notify_test_options[] = {
    [NT_CONFIG] = {"config", 'c', "FILE",
        "the agent configuration (docs/agent-config.md)", NULL},
    [NT_TARGET] = {"target", 't', "NAME",
        "only the target of that name (default: every one)", NULL},
    {NULL, '\0', NULL, NULL, NULL},
};

const struct agent_cmd_entry daemon_cmd_notify_test_entry = {
    .name = "notify-test",
    .summary = "send a signed test notification to the webhook targets",
    .synopsis = "--config FILE [--target NAME]",
    .description =
        "Send one `test` event, signed like every notification, to each "
        "target of\n`notifications.targets` (or to the one named), once, "
        "now, and say for each\nwhether the receiver accepted it (2xx). "
        "The agent's spool is not touched.",
    .options = notify_test_options,
    .help_col = 22,
    .exit_codes = "Exit codes: 0 every target accepted it, 1 a target did "
                  "not, or its secret or URL\ncould not be read, or a bad "
                  "configuration, 64 usage error.",
    .args_max = 0,
    .exec = notify_test_exec,
};
