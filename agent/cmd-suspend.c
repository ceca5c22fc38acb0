/* agent/cmd-suspend.c: `artemis-gitops suspend CLUSTER --reason TEXT
 * [--by NAME] [--state DIR | --config FILE]` and `artemis-gitops resume
 * CLUSTER [--state DIR | --config FILE]`: STATE/<cluster>/suspended.json
 * written or removed (suspend.h; docs/policy.md "Suspending a cluster"). */
#include "agent.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/afile.h"
#include "../lib/clock.h"
#include "../lib/utf8.h"
#include "../lib/xalloc.h"
#include "approve-write.h"
#include "conf.h"
#include "coord.h"
#include "state.h"
#include "suspend.h"

enum { SUS_REASON, SUS_BY, SUS_STATE, SUS_CONFIG };
enum { RES_STATE, RES_CONFIG };

/* The state folder: --state, else --config's `state`, else the default.
 * NULL (printed) when --config cannot be loaded. Owned. *etcd: the loaded
 * configuration when its state-backend is etcd (docs/ha.md: the
 * suspension goes to etcd too, for whichever agent owns the cluster),
 * else NULL. */
static char *
state_dir(const char *cmd, const char *state, const char *config,
    struct agent_conf **etcd)
{
	struct agent_conf *c = NULL;
	struct errlist d = {0};
	char *s, *dir;
	size_t i;

	*etcd = NULL;
	if (state != NULL || config == NULL)
		return xstrdup(agent_state_default(state));
	if (agent_conf_load(&c, config, &d) < 0) {
		for (i = 0; i < d.n; i++) {
			s = errlist_render_item(&d, i);
			fprintf(stderr, "artemis-gitops %s: %s\n", cmd, s);
			free(s);
		}
		errlist_release(&d);
		return NULL;
	}
	dir = xstrdup(c->state);
	if (c->state_backend == AGENT_CONF_BACKEND_ETCD)
		*etcd = c;
	else
		agent_conf_free(c);
	errlist_release(&d);
	return dir;
}

/* A usage error for CLUSTER, or AGENT_CMD_CONTINUE. */
static int
check_cluster(const char *cmd, const char *cluster)
{
	if (!agent_suspend_name_ok(cluster))
		return agent_usage_error(cmd,
		    "'%s' is not a cluster name (letters, digits, '.', '_' "
		    "and '-', not starting with '.')",
		    cluster);
	return AGENT_CMD_CONTINUE;
}

static int
one_line(const char *cmd, const char *opt, const char *v)
{
	uint32_t cp;
	size_t at;

	if (v[0] == '\0')
		return agent_usage_error(cmd, "--%s: empty", opt);
	if (utf8_find(v, utf8_line_problem, &at, &cp) != NULL)
		return agent_usage_error(cmd,
		    "--%s: the text holds a control, line-break or "
		    "bidirectional character (or invalid UTF-8)",
		    opt);
	if (strlen(v) > AGENT_SUSPEND_REASON_MAX)
		return agent_usage_error(cmd, "--%s: longer than %d bytes", opt,
		    AGENT_SUSPEND_REASON_MAX);
	return AGENT_CMD_CONTINUE;
}

/* The suspension just written, put into etcd. */
static int
to_etcd(const struct agent_conf *c, const char *state, const char *cluster,
    struct err *err)
{
	char *path = xasprintf("%s/%s/%s", state, cluster, AGENT_SUSPEND_FILE);
	char *text = NULL;
	int rc;

	rc = afile_read(&text, NULL, path, (size_t)64 * 1024, err);
	if (rc == 0)
		rc = agent_coord_intent(c, "suspended", cluster, text, err);
	free(text);
	free(path);
	return rc;
}

static int
suspend_exec(const struct agent_cmd_args *args)
{
	const char *cluster = args->argv[0];
	struct agent_suspension s = {0}, was = {0};
	struct agent_conf *conf = NULL;
	struct err err = {0};
	char *state = NULL, *text;
	int code, r;

	code = check_cluster("suspend", cluster);
	if (code != AGENT_CMD_CONTINUE)
		return code;
	if (args->opt[SUS_REASON] == NULL)
		return agent_usage_error("suspend",
		    "--reason TEXT is required (it is shown in every preview "
		    "and log line while the cluster is suspended)");
	code = one_line("suspend", "reason", args->opt[SUS_REASON]);
	if (code == AGENT_CMD_CONTINUE && args->opt[SUS_BY] != NULL)
		code = one_line("suspend", "by", args->opt[SUS_BY]);
	if (code != AGENT_CMD_CONTINUE)
		return code;
	state = state_dir("suspend", args->opt[SUS_STATE],
	    args->opt[SUS_CONFIG], &conf);
	if (state == NULL)
		return AGENT_EXIT_FAIL;
	code = AGENT_EXIT_FAIL;
	r = agent_suspend_read(&was, state, cluster, &err);
	if (r > 0) {
		text = agent_suspend_text(cluster, &was);
		fprintf(stderr,
		    "artemis-gitops suspend: already suspended: %s (resume "
		    "first to suspend it anew)\n",
		    text);
		free(text);
		goto done;
	}
	err_release(&err); /* an unreadable file is replaced */
	s.reason = xstrdup(args->opt[SUS_REASON]);
	s.by = args->opt[SUS_BY] != NULL ? xstrdup(args->opt[SUS_BY])
	                                 : agent_invoker_name();
	s.uid = (int64_t)getuid();
	s.user = agent_user_name(getuid());
	s.at = clock_rfc3339_now();
	if (agent_suspend_write(state, cluster, &s, &err) < 0) {
		fprintf(stderr, "artemis-gitops suspend: %s\n", err.msg);
		goto done;
	}
	if (conf != NULL && to_etcd(conf, state, cluster, &err) < 0) {
		fprintf(stderr,
		    "artemis-gitops suspend: %s/%s/%s is written but etcd is "
		    "not: %s; the agent that owns the cluster does not see "
		    "the suspension: suspend again\n",
		    state, cluster, AGENT_SUSPEND_FILE, err.msg);
		goto done;
	}
	text = agent_suspend_text(cluster, &s);
	printf("suspended: %s (%s/%s/%s%s)\n", text, state, cluster,
	    AGENT_SUSPEND_FILE, conf != NULL ? ", and in etcd" : "");
	free(text);
	code = AGENT_EXIT_OK;
done:
	agent_suspension_release(&s);
	agent_suspension_release(&was);
	err_release(&err);
	agent_conf_free(conf);
	free(state);
	return code;
}

static int
resume_exec(const struct agent_cmd_args *args)
{
	const char *cluster = args->argv[0];
	struct agent_suspension was = {0};
	struct agent_conf *conf = NULL;
	struct err err = {0};
	char *state;
	int code, r;

	code = check_cluster("resume", cluster);
	if (code != AGENT_CMD_CONTINUE)
		return code;
	state = state_dir("resume", args->opt[RES_STATE], args->opt[RES_CONFIG],
	    &conf);
	if (state == NULL)
		return AGENT_EXIT_FAIL;
	/* who suspended it and why, for the message; a damaged file is
	 * removed all the same */
	if (agent_suspend_read(&was, state, cluster, &err) < 0)
		err_release(&err);
	r = agent_suspend_remove(state, cluster, &err);
	if (r >= 0 && conf != NULL &&
	    agent_coord_intent(conf, "suspended", cluster, NULL, &err) < 0) {
		fprintf(stderr,
		    "artemis-gitops resume: %s/%s/%s is removed but etcd "
		    "still holds the suspension: %s; resume again\n",
		    state, cluster, AGENT_SUSPEND_FILE, err.msg);
		code = AGENT_EXIT_FAIL;
	} else if (r == 0 && conf != NULL) {
		printf("resumed: cluster '%s' (its suspension removed from "
		       "etcd); the agent applies what waits at its next "
		       "cycle\n",
		    cluster);
		code = AGENT_EXIT_OK;
	} else if (r < 0) {
		fprintf(stderr, "artemis-gitops resume: %s\n", err.msg);
		code = AGENT_EXIT_FAIL;
	} else if (r == 0) {
		printf("cluster '%s' was not suspended (%s/%s/%s absent): "
		       "nothing to do\n",
		    cluster, state, cluster, AGENT_SUSPEND_FILE);
		code = AGENT_EXIT_OK;
	} else {
		if (was.by != NULL)
			printf("resumed: cluster '%s' (suspended by %s at %s: "
			       "%s); the agent applies what waits at its next "
			       "cycle\n",
			    cluster, was.by, was.at, was.reason);
		else
			printf("resumed: cluster '%s'; the agent applies what "
			       "waits at its next cycle\n",
			    cluster);
		code = AGENT_EXIT_OK;
	}
	agent_suspension_release(&was);
	err_release(&err);
	agent_conf_free(conf);
	free(state);
	return code;
}

#define STATE_OPTION                                                           \
	{                                                                      \
		"state", '\0', "DIR",                                          \
		    "state folder (default: --config's `state`, else\n"        \
		    "$STATE_DIRECTORY, else " AGENT_STATE_DEFAULT ")",         \
		    NULL                                                       \
	}
#define CONFIG_OPTION                                                          \
	{                                                                      \
		"config", '\0', "FILE",                                        \
		    "the agent's configuration, for its state folder", NULL    \
	}

static const struct agent_cmd_option suspend_options[] = {
    [SUS_REASON] = {"reason", '\0', "TEXT",
        "why (required): shown in previews, the page and logs", NULL},
    [SUS_BY] = {"by", '\0', "NAME",
        "who suspends, as free text (default: $SUDO_USER,\n"
        "$USER, the login name); the real uid is recorded too",
        NULL},
    [SUS_STATE] = STATE_OPTION,
    [SUS_CONFIG] = CONFIG_OPTION,
    {NULL, '\0', NULL, NULL, NULL},
};

static const struct agent_cmd_option resume_options[] = {
    [RES_STATE] = STATE_OPTION,
    [RES_CONFIG] = CONFIG_OPTION,
    {NULL, '\0', NULL, NULL, NULL},
};

const struct agent_cmd_entry agent_cmd_suspend_entry = {
    .name = "suspend",
    .summary = "suspend a cluster: previews and drift reports, no applies",
    .synopsis = "CLUSTER --reason TEXT [--by NAME]\n"
                "[--state DIR | --config FILE]",
    .description =
        "Suspend CLUSTER: STATE/CLUSTER/suspended.json is written "
        "(atomically) with\nthe reason, who and when. While it exists the "
        "agent still plans every\ncommit and reports drift, but applies "
        "nothing to the cluster: approved\nplans, drift repair and the "
        "capture pass wait, and `apply` refuses (exit\n4). `artemis-gitops "
        "resume CLUSTER` lifts it. Takes no lock: the daemon\nreads the "
        "file before each apply.",
    .options = suspend_options,
    .help_col = 19,
    .exit_codes = "Exit codes: 0 suspended, 1 already suspended or not "
                  "written, 64 usage error.",
    .args_min = 1,
    .args_max = 1,
    .args_few = "expected one CLUSTER",
    .args_many = "expected one CLUSTER",
    .args_counted = true,
    .bad_option = "unknown option or missing value",
    .exec = suspend_exec,
};

const struct agent_cmd_entry agent_cmd_resume_entry = {
    .name = "resume",
    .summary = "resume a suspended cluster",
    .synopsis = "CLUSTER [--state DIR | --config FILE]",
    .description =
        "Resume CLUSTER: STATE/CLUSTER/suspended.json is removed (and the "
        "removal\nsynced). The agent applies what waits (approved plans) "
        "at its next cycle\n(SIGUSR1: now).",
    .options = resume_options,
    .help_col = 19,
    .exit_codes = "Exit codes: 0 resumed or not suspended, 1 not removed, "
                  "64 usage error.",
    .args_min = 1,
    .args_max = 1,
    .args_few = "expected one CLUSTER",
    .args_many = "expected one CLUSTER",
    .args_counted = true,
    .bad_option = "unknown option or missing value",
    .exec = resume_exec,
};
