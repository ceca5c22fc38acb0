/* agent/agent.h: the command line. Each command is a table entry (struct
 * agent_cmd_entry, tmux's cmd_entry is the model) defined in its
 * agent/cmd-<name>.c and listed in agent/main.c; agent/cli.c parses argv
 * against the entry, prints its --help and --version and the usage errors,
 * and calls the entry point with what it parsed.
 *
 * Exit codes (README "Exit codes"): */
#ifndef AGENT_AGENT_H
#define AGENT_AGENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define AGENT_EXIT_OK        0 /* success; for plan: nothing to do */
#define AGENT_EXIT_FAIL      1 /* invalid input, refused plan, failed apply */
#define AGENT_EXIT_CHANGES   2 /* plan: the plan has changes */
#define AGENT_EXIT_WINDOW    3 /* apply: outside the cluster's sync window */
#define AGENT_EXIT_SUSPENDED 4 /* apply: the cluster is suspended */
#define AGENT_EXIT_USAGE     64 /* command-line usage error (sysexits EX_USAGE) */

#define AGENT_CMD_OPTIONS_MAX 24 /* options of one command, -h and -V aside */
#define AGENT_CMD_CONTINUE    -1 /* parsing goes on (not an exit code) */

/* One option of a command, `--name` (and `-c` when short_name is set). */
struct agent_cmd_option {
	const char *name; /* the long name, without the dashes */
	char short_name;  /* '\0': no short form */
	const char *arg;  /* the value's placeholder in --help; NULL: a flag */
	const char *help; /* its --help text, a '\n' starts a line under it;
	                     NULL: shown on the line of the option before it */
	/* When set, called with the value (NULL for a flag) as the option is
	 * parsed: AGENT_CMD_CONTINUE goes on, any other value ends the command
	 * with that exit code, as -h and -V do (a bad value: the code of
	 * agent_usage_error). */
	int (*on_parse)(const char *value);
};

/* What the parser hands an entry point. */
struct agent_cmd_args {
	/* By option index: the last value given, "" for a flag given, NULL
	 * for an option not given. */
	const char *opt[AGENT_CMD_OPTIONS_MAX];
	int argc;    /* the positional arguments, in order */
	char **argv; /* borrowed from main()'s argv */
};

/* A command. `artemis-gitops NAME --help` prints
 *   Usage: artemis-gitops NAME SYNOPSIS
 *   <blank line> DESCRIPTION <blank line> Options: (the options, -h, -V)
 *   <blank line> [NOTES <blank line>] EXIT_CODES */
struct agent_cmd_entry {
	const char *name;
	const char *summary;  /* one line for `artemis-gitops --help` */
	const char *synopsis; /* a '\n' starts a line aligned under the first */
	const char *description;
	const struct agent_cmd_option *options; /* ends with a NULL name */
	int help_col;      /* the column where the options' help text starts */
	const char *notes; /* a paragraph after the options, or NULL */
	const char *exit_codes;
	bool in_order; /* options only before the first argument (getopt '+') */
	int args_min, args_max; /* positional arguments; args_max -1: any */
	/* The usage errors for fewer than args_min and more than args_max
	 * arguments (args_many NULL: "unexpected argument 'ARG'", the first
	 * one too many); args_counted appends ", got N arguments". */
	const char *args_few, *args_many;
	bool args_counted;
	/* The usage error for an unknown option or a missing value, followed
	 * by " 'ARG'"; NULL: "unknown option". */
	const char *bad_option;
	/* The entry point; returns the exit code. */
	int (*exec)(const struct agent_cmd_args *args);
};

/* Print `artemis-gitops CMD: msg` and a pointer to --help on stderr;
 * returns AGENT_EXIT_USAGE. */
int agent_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* An option's value in seconds, (0, max], as milliseconds; -1 when arg is
 * not such a number (--timeout of snapshot and import). */
long agent_seconds_ms(const char *arg, double max);

/* Parse argv (argv[0] is the command's name) against e into *args. Returns
 * AGENT_CMD_CONTINUE when *args is ready for e->exec, else the exit code
 * to end with: --help and --version (printed on out), an option's
 * on_parse, or a usage error (printed on err). */
int agent_cli_parse(struct agent_cmd_args *args,
    const struct agent_cmd_entry *e, int argc, char **argv, FILE *out,
    FILE *err);

/* main(): run the command argv[1] of cmds, or the top-level --help,
 * --version and usage errors; returns the exit code. */
int agent_cli_main(const struct agent_cmd_entry *const *cmds, size_t ncmds,
    int argc, char **argv);

/* The command table agent_cli_main was given (for `completion`); *n its
 * length. NULL before agent_cli_main runs. */
const struct agent_cmd_entry *const *agent_cli_commands(size_t *n);

extern const struct agent_cmd_entry agent_cmd_validate_entry;
extern const struct agent_cmd_entry agent_cmd_render_entry;
extern const struct agent_cmd_entry agent_cmd_snapshot_entry;
extern const struct agent_cmd_entry agent_cmd_import_entry;
extern const struct agent_cmd_entry agent_cmd_plan_entry;
extern const struct agent_cmd_entry agent_cmd_delete_queue_entry;
extern const struct agent_cmd_entry agent_cmd_approve_entry;
extern const struct agent_cmd_entry agent_cmd_apply_entry;
extern const struct agent_cmd_entry agent_cmd_comment_entry;
extern const struct agent_cmd_entry agent_cmd_suspend_entry;
extern const struct agent_cmd_entry agent_cmd_resume_entry;
extern const struct agent_cmd_entry agent_cmd_state_migrate_entry;
extern const struct agent_cmd_entry agent_cmd_schema_entry;
extern const struct agent_cmd_entry agent_cmd_completion_entry;

#endif
