/* agent/cli.c: the command line, written once for every command: argv
 * parsed against a command's entry (getopt_long), its --help, --version,
 * the usage errors (exit 64), and the top-level help and dispatch of
 * agent_cli_main (kept out of main.c so that unit tests, which link every
 * agent/ object but main.o, reach it). */
#include "agent.h"

#include <assert.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#ifndef AGENT_VERSION
#define AGENT_VERSION "0.0.0"
#endif

/* getopt_long returns LONG_BASE + i for the long form of option i, above
 * every short option character. */
#define LONG_BASE 256

#define MAIN_HELP_COL 17 /* of the option help in `artemis-gitops --help` */

/* Every command's -h and -V, after its own options in --help, and those of
 * artemis-gitops itself. */
static const struct agent_cmd_option implicit[] = {
    {"help", 'h', NULL, "show this help", NULL},
    {"version", 'V', NULL, "show the version", NULL},
};

/* What agent_cli_main was given: agent_cli_commands. */
static const struct agent_cmd_entry *const *cli_cmds;
static size_t cli_ncmds;

const struct agent_cmd_entry *const *
agent_cli_commands(size_t *n)
{
	*n = cli_ncmds;
	return cli_cmds;
}

static int
usage_verror(FILE *f, const char *cmd, const char *fmt, va_list ap)
{
	fprintf(f, "artemis-gitops %s: ", cmd);
	/* The callers' va_start initialises ap. */
	vfprintf(f, fmt, ap); /* NOLINT(clang-analyzer-valist.Uninitialized) */
	fprintf(f, "\nTry 'artemis-gitops %s --help'.\n", cmd);
	return AGENT_EXIT_USAGE;
}

static int usage_error(FILE *f, const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
usage_error(FILE *f, const char *cmd, const char *fmt, ...)
{
	va_list ap;
	int code;

	va_start(ap, fmt);
	code = usage_verror(f, cmd, fmt, ap);
	va_end(ap);
	return code;
}

long
agent_seconds_ms(const char *arg, double max)
{
	char *end;
	double secs = strtod(arg, &end);

	if (end == arg || *end != '\0' || !(secs > 0) || secs > max)
		return -1;
	return (long)(secs * 1000.0 + 0.5);
}

int
agent_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	int code;

	va_start(ap, fmt);
	code = usage_verror(stderr, cmd, fmt, ap);
	va_end(ap);
	return code;
}

static int
print_version(FILE *f)
{
	fprintf(f, "artemis-gitops %s\n", AGENT_VERSION);
	return AGENT_EXIT_OK;
}

/* Print text, every '\n' in it followed by indent spaces. */
static void
put_indented(FILE *f, const char *text, int indent)
{
	for (; *text != '\0'; text++) {
		fputc(*text, f);
		if (*text == '\n')
			fprintf(f, "%*s", indent, "");
	}
}

/* Print `--name ARG` (`-c, --name ARG` with a short form) after lead;
 * returns the width printed. */
static int
put_label(FILE *f, const char *lead, const struct agent_cmd_option *o)
{
	int w;

	w = fprintf(f, "%s", lead);
	if (o->short_name != '\0')
		w += fprintf(f, "-%c, ", o->short_name);
	w += fprintf(f, "--%s", o->name);
	if (o->arg != NULL)
		w += fprintf(f, " %s", o->arg);
	return w;
}

/* After a label of width w, the help text at column col: on the same line
 * when at least two spaces are left, else on the next one. */
static void
put_help(FILE *f, int col, int w, const char *help)
{
	if (w + 2 > col) {
		fputc('\n', f);
		w = 0;
	}
	fprintf(f, "%*s", col - w, "");
	put_indented(f, help, col);
	fputc('\n', f);
}

static void
print_help(FILE *f, const struct agent_cmd_entry *e)
{
	const struct agent_cmd_option *o, *next;
	size_t i;
	int w;

	w = fprintf(f, "Usage: artemis-gitops %s%s", e->name,
	    e->synopsis[0] != '\0' ? " " : "");
	put_indented(f, e->synopsis, w);
	fprintf(f, "\n\n%s\n\nOptions:\n", e->description);
	for (o = e->options; o->name != NULL; o = next) {
		w = put_label(f, "  ", o);
		for (next = o + 1; next->name != NULL && next->help == NULL;
		     next++)
			w += put_label(f, " ", next);
		put_help(f, e->help_col, w, o->help);
	}
	for (i = 0; i < sizeof(implicit) / sizeof(implicit[0]); i++)
		put_help(f, e->help_col, put_label(f, "  ", &implicit[i]),
		    implicit[i].help);
	fputc('\n', f);
	if (e->notes != NULL)
		fprintf(f, "%s\n\n", e->notes);
	fprintf(f, "%s\n", e->exit_codes);
}

/* getopt_long's tables for e; returns the number of e's options. */
static size_t
build_getopt(const struct agent_cmd_entry *e, struct option *longopts,
    char *shorts)
{
	const struct agent_cmd_option *o;
	size_t n, i;

	if (e->in_order)
		*shorts++ = '+';
	for (n = 0; e->options[n].name != NULL; n++) {
		o = &e->options[n];
		assert(n < AGENT_CMD_OPTIONS_MAX);
		assert(o->short_name != 'h' && o->short_name != 'V');
		longopts[n].name = o->name;
		longopts[n].has_arg =
		    o->arg != NULL ? required_argument : no_argument;
		longopts[n].flag = NULL;
		longopts[n].val = LONG_BASE + (int)n;
		if (o->short_name != '\0') {
			*shorts++ = o->short_name;
			if (o->arg != NULL)
				*shorts++ = ':';
		}
	}
	for (i = 0; i < sizeof(implicit) / sizeof(implicit[0]); i++) {
		longopts[n + i].name = implicit[i].name;
		longopts[n + i].has_arg = no_argument;
		longopts[n + i].flag = NULL;
		longopts[n + i].val = (unsigned char)implicit[i].short_name;
		*shorts++ = implicit[i].short_name;
	}
	memset(&longopts[n + i], 0, sizeof(longopts[0]));
	*shorts = '\0';
	return n;
}

/* The index in e->options of what getopt_long returned, or -1. */
static int
option_index(const struct agent_cmd_entry *e, size_t n, int ch)
{
	size_t i;

	if (ch >= LONG_BASE && (size_t)(ch - LONG_BASE) < n)
		return ch - LONG_BASE;
	for (i = 0; i < n; i++)
		if (e->options[i].short_name != '\0' &&
		    e->options[i].short_name == ch)
			return (int)i;
	return -1;
}

static int
check_count(const struct agent_cmd_args *args, const struct agent_cmd_entry *e,
    FILE *err)
{
	const char *msg;

	if (args->argc >= e->args_min &&
	    (e->args_max < 0 || args->argc <= e->args_max))
		return AGENT_CMD_CONTINUE;
	if (args->argc < e->args_min)
		msg = e->args_few;
	else if (e->args_many != NULL)
		msg = e->args_many;
	else
		return usage_error(err, e->name, "unexpected argument '%s'",
		    args->argv[e->args_max]);
	if (e->args_counted)
		return usage_error(err, e->name, "%s, got %d arguments", msg,
		    args->argc);
	return usage_error(err, e->name, "%s", msg);
}

int
agent_cli_parse(struct agent_cmd_args *args, const struct agent_cmd_entry *e,
    int argc, char **argv, FILE *out, FILE *err)
{
	struct option longopts[AGENT_CMD_OPTIONS_MAX + 3];
	char shorts[2 * AGENT_CMD_OPTIONS_MAX + 4];
	const struct agent_cmd_option *o;
	size_t n;
	int ch, i, code;

	memset(args, 0, sizeof(*args));
	n = build_getopt(e, longopts, shorts);
	/* 0 rather than 1: glibc reads a '+' in the option string (and
	 * resets its permutation) only when it starts afresh. */
	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, shorts, longopts, NULL)) != -1) {
		if (ch == 'h') {
			print_help(out, e);
			return AGENT_EXIT_OK;
		}
		if (ch == 'V')
			return print_version(out);
		i = option_index(e, n, ch);
		if (i < 0)
			return usage_error(err, e->name, "%s '%s'",
			    e->bad_option != NULL ? e->bad_option
			                          : "unknown option",
			    argv[optind - 1]);
		o = &e->options[i];
		args->opt[i] = o->arg != NULL ? optarg : "";
		if (o->on_parse != NULL) {
			code = o->on_parse(o->arg != NULL ? optarg : NULL);
			if (code != AGENT_CMD_CONTINUE)
				return code;
		}
	}
	args->argc = argc - optind;
	args->argv = argv + optind;
	return check_count(args, e, err);
}

static void
print_main_help(FILE *f, const struct agent_cmd_entry *const *cmds,
    size_t ncmds)
{
	size_t i;

	fprintf(f, "Usage: artemis-gitops COMMAND [OPTIONS] [ARGS]\n\n"
	           "Keep Apache ActiveMQ Artemis clusters in line with "
	           "declarations kept in git.\n\nCommands:\n");
	for (i = 0; i < ncmds; i++)
		fprintf(f, "  %-14s %s\n", cmds[i]->name, cmds[i]->summary);
	fprintf(f, "\nOptions:\n");
	for (i = 0; i < sizeof(implicit) / sizeof(implicit[0]); i++)
		put_help(f, MAIN_HELP_COL, put_label(f, "  ", &implicit[i]),
		    implicit[i].help);
	fprintf(f, "\n'artemis-gitops COMMAND --help' describes a command.\n"
	           "Exit codes: 0 ok (plan: nothing to do), 1 failure or "
	           "refusal, 2 plan has changes, 64 usage error.\n");
}

int
agent_cli_main(const struct agent_cmd_entry *const *cmds, size_t ncmds,
    int argc, char **argv)
{
	struct agent_cmd_args args;
	size_t i;
	int code;

	cli_cmds = cmds;
	cli_ncmds = ncmds;
	if (argc < 2) {
		print_main_help(stderr, cmds, ncmds);
		return AGENT_EXIT_USAGE;
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		print_main_help(stdout, cmds, ncmds);
		return AGENT_EXIT_OK;
	}
	if (strcmp(argv[1], "-V") == 0 || strcmp(argv[1], "--version") == 0)
		return print_version(stdout);
	for (i = 0; i < ncmds; i++) {
		if (strcmp(argv[1], cmds[i]->name) != 0)
			continue;
		code = agent_cli_parse(&args, cmds[i], argc - 1, argv + 1,
		    stdout, stderr);
		if (code != AGENT_CMD_CONTINUE)
			return code;
		return cmds[i]->exec(&args);
	}
	fprintf(stderr,
	    "artemis-gitops: unknown command '%s'\n"
	    "Try 'artemis-gitops --help'.\n",
	    argv[1]);
	return AGENT_EXIT_USAGE;
}
