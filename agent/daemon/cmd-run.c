/* agent/cmd-run.c: `artemis-gitops run --config FILE [--once]`, the daemon
 * (docs/daemon.md). */
#define LOG_MODULE "run"
#include "daemon-int.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/sbuf.h"
#include "../../lib/xalloc.h"
#include "../agent.h"
#include "../conf.h"
#include "../log.h"
#include "../state.h"

struct run_opts {
	const char *config;
	bool once;
};

static void
usage(FILE *f)
{
	fprintf(f,
	    "Usage: artemis-gitops run --config FILE [--once]\n\n"
	    "The agent: fetch the configured branch on a schedule, validate "
	    "and plan every\nnew commit against the live brokers, post the "
	    "preview to the outbox, apply\npreviews once approved "
	    "(`artemis-gitops approve`), and write a drift report\non its own "
	    "schedule. Runs in the foreground; logs to stderr.\n\n"
	    "Options:\n"
	    "  -c, --config FILE   the agent configuration "
	    "(docs/agent-config.md)\n"
	    "  --once              one cycle (fetch, plan, approvals, drift), "
	    "then exit\n"
	    "  --describe-config   print the configuration keys as a "
	    "Markdown table\n"
	    "  -h, --help          show this help\n"
	    "  -V, --version       show the version\n\n"
	    "Signals: SIGHUP reloads the configuration (a bad one is refused "
	    "and the old one\nkept), SIGTERM/SIGINT finish the current step "
	    "and exit 0, SIGUSR1 runs a\ncycle and a drift check now.\n\n"
	    "Exit codes: 0 stopped by a signal (or --once and every step "
	    "worked), 1 bad\nconfiguration, locked state folder, or a failed "
	    "step with --once, 64 usage error.\n");
}

static int
parse_args(struct run_opts *o, int argc, char **argv, int *code)
{
	static const struct option longopts[] = {
	    {"config", required_argument, NULL, 'c'},
	    {"once", no_argument, NULL, 'o'},
	    {"describe-config", no_argument, NULL, 'd'},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {NULL, 0, NULL, 0},
	};
	struct sbuf b = {0};
	int c;

	opterr = 0;
	optind = 1;
	for (;;) {
		c = getopt_long(argc, argv, "c:hV", longopts, NULL);
		if (c == -1)
			break;
		switch (c) {
		case 'c':
			o->config = optarg;
			break;
		case 'o':
			o->once = true;
			break;
		case 'd':
			agent_conf_describe(&b);
			fputs(sbuf_str(&b), stdout);
			sbuf_release(&b);
			*code = AGENT_EXIT_OK;
			return 1;
		case 'h':
			usage(stdout);
			*code = AGENT_EXIT_OK;
			return 1;
		case 'V':
			*code = agent_print_version();
			return 1;
		default:
			*code = agent_usage_error("run", "unknown option '%s'",
			    argv[optind - 1]);
			return 1;
		}
	}
	if (optind < argc) {
		*code = agent_usage_error("run", "unexpected argument '%s'",
		    argv[optind]);
		return 1;
	}
	if (o->config == NULL) {
		*code = agent_usage_error("run", "--config FILE is required");
		return 1;
	}
	return 0;
}

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

/* Lock the state folder, open the signalfd and the watcher. */
static int
start(struct daemon *a, const char *config)
{
	struct err err = {0};
	char *what = xasprintf("run --config %s", config);
	int r = -1;

	if (agent_state_open(&a->state, a->conf->state, what, &err) < 0 ||
	    daemon_signal_open(&a->sigfd, &err) < 0 ||
	    daemon_watch_open(&a->watch, a->conf, &err) < 0)
		log_err("%s", err.msg);
	else
		r = 0;
	err_release(&err);
	free(what);
	return r;
}

int
daemon_cmd_run(int argc, char **argv)
{
	struct run_opts o = {0};
	struct daemon a;
	int code = AGENT_EXIT_OK;

	if (parse_args(&o, argc, argv, &code) != 0)
		return code;
	agent_log_init();
	memset(&a, 0, sizeof(a));
	a.sigfd = -1;
	a.conf_path = o.config;
	a.once = o.once;
	if (load_conf(&a.conf, o.config) < 0) {
		log_err("configuration %s refused", o.config);
		return AGENT_EXIT_FAIL;
	}
	agent_log_set_level((enum agent_log_prio)a.conf->log_level);
	if (start(&a, o.config) < 0)
		code = AGENT_EXIT_FAIL;
	else
		code = daemon_loop_run(&a);
	daemon_watch_free(a.watch);
	if (a.sigfd >= 0)
		daemon_signal_close(a.sigfd);
	agent_state_close(a.state);
	daemon_clusters_free(&a);
	daemon_watch_update_release(&a.head);
	agent_conf_free(a.conf);
	return code;
}
