/* agent/agent.h: the command line. Each subcommand lives in
 * agent/cmd-<name>.c and is listed in the table of agent/main.c.
 *
 * Exit codes (README "Exit codes"): */
#ifndef AGENT_AGENT_H
#define AGENT_AGENT_H

#define AGENT_EXIT_OK      0  /* success; for plan: nothing to do */
#define AGENT_EXIT_FAIL    1  /* invalid input, refused plan, failed apply */
#define AGENT_EXIT_CHANGES 2  /* plan: the plan has changes */
#define AGENT_EXIT_USAGE   64 /* command-line usage error (sysexits EX_USAGE) */

/* A subcommand: argv[0] is the subcommand's name. Returns an exit code. */
typedef int (*agent_cmd_fn)(int argc, char **argv);

struct agent_cmd {
	const char *name;
	agent_cmd_fn fn;
	const char *summary; /* one line for `artemis-gitops --help` */
};

/* Print `artemis-gitops CMD: msg` and a pointer to --help on stderr;
 * returns AGENT_EXIT_USAGE. */
int agent_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Print `artemis-gitops <version>` on stdout; returns AGENT_EXIT_OK. */
int agent_print_version(void);

int agent_cmd_validate(int argc, char **argv);
int agent_cmd_render(int argc, char **argv);
int agent_cmd_approve(int argc, char **argv);
int agent_cmd_apply(int argc, char **argv);
int agent_cmd_snapshot(int argc, char **argv);
int agent_cmd_plan(int argc, char **argv);
int agent_cmd_delete_queue(int argc, char **argv);
int daemon_cmd_run(int argc, char **argv);

#endif
