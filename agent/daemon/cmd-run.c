/* agent/daemon/cmd-run.c: `artemis-gitops run --config FILE [--once]`,
 * the daemon (docs/daemon.md). */
#define LOG_MODULE "run"
#include "daemon-int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/afile.h"
#include "../../lib/sbuf.h"
#include "../../lib/strv.h"
#include "../../lib/xalloc.h"
#include "../agent.h"
#include "../conf.h"
#include "../log.h"
#include "../state.h"
#include "../verify.h"
#include "../webhook/webhook.h"
#include "../window.h"

static int
load_conf(struct agent_conf **out, const char *path)
{
	struct errlist d = {0};
	char *line;
	size_t i;
	int r;

	r = agent_conf_load(out, path, &d);
	for (i = 0; i < d.n; i++) {
		line = errlist_render_item(&d, i);
		if (d.items[i].severity == DIAG_ERROR)
			log_err("%s", line);
		else
			log_warn("%s", line);
		free(line);
	}
	errlist_release(&d);
	return r;
}

/* Lock the state folder, open the signalfd and the watcher, start the web
 * server (not with --once: it would stop again at once). */
static int
start(struct daemon *a, const char *config)
{
	struct err err = {0};
	char *what = xasprintf("run --config %s", config);
	const char *clock = getenv(AGENT_WINDOW_CLOCK_ENV);
	int r = -1;

	if (clock != NULL && clock[0] != '\0')
		log_warn("$" AGENT_WINDOW_CLOCK_ENV " is set: sync windows are "
		         "judged at the time written in %s, not the real one "
		         "(for tests only; docs/policy.md)",
		    clock);
	if (agent_state_open(&a->state, a->conf->state, what, &err) < 0 ||
	    daemon_signal_open(&a->sigfd, &err) < 0 ||
	    daemon_watch_open(&a->watch, a->conf, &err) < 0) {
		log_err("%s", err.msg);
	} else {
		web_board_set_locked(a->board, true);
		r = 0;
	}
	if (r == 0 && !a->once &&
	    web_start(&a->web, a->conf, a->board, &err) < 0) {
		log_err("web server: %s", err.msg);
		r = -1;
	} else if (r == 0 && a->web != NULL) {
		log_notice("web server on %s (port %u)%s", a->conf->http_listen,
		    web_port(a->web),
		    a->conf->http_tls_cert != NULL ? ", TLS" : "");
	} else if (r == 0 && a->once && a->conf->http_listen != NULL) {
		log_info("--once: the web server (http.listen) is not started");
	}
	if (r == 0 &&
	    webhook_start(&a->hooks, a->conf, daemon_metrics(a), &err) < 0) {
		log_err("notifications: %s", err.msg);
		r = -1;
	} else if (r == 0 && a->hooks != NULL) {
		log_notice("notifications: %zu target(s)", a->conf->targets.n);
		daemon_events_start(a);
	}
	if (r == 0 && daemon_ha_start(a) < 0)
		r = -1;
	err_release(&err);
	free(what);
	return r;
}

int
daemon_child_exec_main(int argc, char **argv)
{
	struct sbuf msg = {0};
	struct err err = {0};
	char *text = NULL;
	size_t len = 0;
	int rc = -1;

	daemon_child_step_begin();
	agent_log_init();
	sbuf_init(&msg, DAEMON_CHILD_MSG_MAX);
	if (argc != 3) {
		sbuf_adds(&msg, "the step process wants one step name");
	} else if (afile_read_fd(&text, &len, 0, "the step's input",
	               AGENT_CONF_FILE_MAX + 8192, &err) < 0) {
		sbuf_adds(&msg, err.msg);
	} else if (strcmp(argv[2], "fetch") == 0) {
		rc = daemon_watch_fetch_step(text, len, &msg);
	} else {
		sbuf_addf(&msg, "no step '%s'", argv[2]);
	}
	daemon_child_step_report(rc, &msg);
	free(text);
	sbuf_release(&msg);
	err_release(&err);
	/* as the forked child does (child.c): no atexit handlers, nothing of
	 * libgit2's or libssh2's torn down on the way out */
	_exit(rc == 0 ? 0 : 1);
}

enum { RUN_CONFIG, RUN_ONCE, RUN_DESCRIBE_CONFIG };

/* --describe-config: the table, then the command ends (as --help does). */
static int
describe_config(const char *value)
{
	struct sbuf b = {0};

	(void)value;
	agent_conf_describe(&b);
	fputs(sbuf_str(&b), stdout);
	sbuf_release(&b);
	return AGENT_EXIT_OK;
}

static int
run_exec(const struct agent_cmd_args *args)
{
	const char *config = args->opt[RUN_CONFIG];
	struct daemon a;
	int code = AGENT_EXIT_OK;

	if (config == NULL)
		return agent_usage_error("run", "--config FILE is required");
	agent_log_init();
	memset(&a, 0, sizeof(a));
	a.sigfd = -1;
	a.conf_path = config;
	a.once = args->opt[RUN_ONCE] != NULL;
	if (load_conf(&a.conf, config) < 0) {
		log_err("configuration %s refused", config);
		return AGENT_EXIT_FAIL;
	}
	if (daemon_verify_load(&a.verify, a.conf) < 0) {
		log_err("configuration %s refused", config);
		agent_conf_free(a.conf);
		return AGENT_EXIT_FAIL;
	}
	agent_log_set_level((enum agent_log_prio)a.conf->log_level);
	/* git fetches re-execute the binary: the web server's threads make a
	 * plain fork unsafe (daemon-int.h, "child.c") */
	daemon_child_use_exec(true);
	a.board = web_board_new();
	web_board_set_conf(a.board, a.conf);
	if (start(&a, config) < 0)
		code = AGENT_EXIT_FAIL;
	else
		code = daemon_loop_run(&a);
	/* --once: what is due goes out before the exit (what fails waits in
	 * the spool for the next run); a signal stops at once */
	if (a.once && !a.sig.stop)
		webhook_drain(a.hooks, 1000 * a.conf->notify_timeout + 1000);
	webhook_stop(a.hooks);
	strv_release(&a.told_down);
	strv_release(&a.told_drift);
	/* the server's threads read the board and the state folder: they
	 * end first */
	web_stop(a.web);
	web_board_free(a.board);
	/* the lease revoked: the clusters are free for the others now */
	daemon_ha_stop(&a);
	daemon_watch_free(a.watch);
	if (a.sigfd >= 0)
		daemon_signal_close(a.sigfd);
	agent_state_close(a.state);
	daemon_clusters_free(&a);
	strv_release(&a.cleartext_warned);
	daemon_watch_update_release(&a.head);
	strv_release(&a.fails);
	agent_verify_free(a.verify);
	agent_conf_free(a.conf);
	return code;
}

static const struct agent_cmd_option run_options[] = {
    [RUN_CONFIG] = {"config", 'c', "FILE",
        "the agent configuration (docs/agent-config.md)", NULL},
    [RUN_ONCE] = {"once", '\0', NULL,
        "one cycle (fetch, plan, approvals, drift), then exit", NULL},
    [RUN_DESCRIBE_CONFIG] = {"describe-config", '\0', NULL,
        "print the configuration keys as a Markdown table", describe_config},
    {NULL, '\0', NULL, NULL, NULL},
};

const struct agent_cmd_entry daemon_cmd_run_entry = {
    .name = "run",
    .summary = "the agent: watch git, post previews, apply approved plans, "
               "drift",
    .synopsis = "--config FILE [--once]",
    .description =
        "The agent: fetch the configured branch on a schedule, validate and "
        "plan every\nnew commit against the live brokers, post the preview "
        "to the outbox, apply\npreviews once approved (`artemis-gitops "
        "approve`), and write a drift report\non its own schedule. Runs in "
        "the foreground; logs to stderr.",
    .options = run_options,
    .help_col = 22,
    .notes = "Signals: SIGHUP reloads the configuration (a bad one is refused "
             "and the old one\nkept), SIGTERM/SIGINT give up a pending git "
             "fetch or broker read at once (an\napply under way runs to its "
             "end) and exit 0, SIGUSR1 runs a cycle and a drift\ncheck "
             "now.",
    .exit_codes =
        "Exit codes: 0 stopped by a signal (or --once and every step "
        "worked), 1 bad\nconfiguration, locked state folder, or with "
        "--once: a failed fetch, a node that\ncould not be read "
        "(unreachable, timed out, ...), an invalid or refused plan, a\n"
        "failed or refused apply, a failed drift check (its last log line "
        "says which),\n64 usage error.",
    .args_max = 0,
    .exec = run_exec,
};
