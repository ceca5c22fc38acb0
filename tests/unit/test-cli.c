/* tests/unit/test-cli.c: agent/cli.c, the command-line parser and --help,
 * on a made-up command. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../agent/agent.h"

enum { DEMO_OUT, DEMO_FORCE, DEMO_REPO, DEMO_REV, DEMO_STOP, DEMO_LEVEL };

static int
demo_stop(const char *value)
{
	assert_null(value);
	return 7;
}

/* Not 3: ends the command with 65 (a real check reports a usage error). */
static int
demo_level(const char *value)
{
	return strcmp(value, "3") == 0 ? AGENT_CMD_CONTINUE : 65;
}

static const struct agent_cmd_option demo_options[] = {
    [DEMO_OUT] = {"out", 'o', "DIR", "where to write\nthe files", NULL},
    [DEMO_FORCE] = {"force", '\0', NULL, "overwrite", NULL},
    [DEMO_REPO] = {"repo", '\0', "PATH", "read at REV", NULL},
    [DEMO_REV] = {"rev", '\0', "REV", NULL, NULL},
    [DEMO_STOP] = {"stop", '\0', NULL, "end at once", demo_stop},
    [DEMO_LEVEL] = {"level", '\0', "N", "only 3", demo_level},
    {NULL, '\0', NULL, NULL, NULL},
};

static const struct agent_cmd_entry demo = {
    .name = "demo",
    .summary = "a made-up command",
    .synopsis = "NAME --out DIR\n[--force]",
    .description = "Demo of the parser.",
    .options = demo_options,
    .help_col = 20,
    .notes = "Notes.",
    .exit_codes = "Exit codes: 0 ok, 64 usage error.",
    .args_min = 1,
    .args_max = 2,
    .args_few = "missing NAME",
};

static const char demo_help[] = "Usage: artemis-gitops demo NAME --out DIR\n"
                                "                           [--force]\n"
                                "\n"
                                "Demo of the parser.\n"
                                "\n"
                                "Options:\n"
                                "  -o, --out DIR     where to write\n"
                                "                    the files\n"
                                "  --force           overwrite\n"
                                "  --repo PATH --rev REV\n"
                                "                    read at REV\n"
                                "  --stop            end at once\n"
                                "  --level N         only 3\n"
                                "  -h, --help        show this help\n"
                                "  -V, --version     show the version\n"
                                "\n"
                                "Notes.\n"
                                "\n"
                                "Exit codes: 0 ok, 64 usage error.\n";

/* One parse: argv (owned copies, as getopt_long permutes them), what it
 * printed on out and err. */
struct run {
	struct agent_cmd_args args;
	char *argv[16];
	int argc;
	char *out, *err;
	size_t out_len, err_len;
	int code;
};

/* Parse "demo" and the NULL-terminated arguments against e. */
static int
run_parse(struct run *r, const struct agent_cmd_entry *e, ...)
{
	FILE *out, *err;
	const char *a;
	va_list ap;

	memset(r, 0, sizeof(*r));
	r->argv[r->argc++] = strdup("demo");
	va_start(ap, e);
	while ((a = va_arg(ap, const char *)) != NULL) {
		assert_true(r->argc < 15);
		r->argv[r->argc++] = strdup(a);
	}
	va_end(ap);
	out = open_memstream(&r->out, &r->out_len);
	err = open_memstream(&r->err, &r->err_len);
	assert_non_null(out);
	assert_non_null(err);
	r->code = agent_cli_parse(&r->args, e, r->argc, r->argv, out, err);
	fclose(out);
	fclose(err);
	return r->code;
}

static void
run_release(struct run *r)
{
	int i;

	for (i = 0; i < r->argc; i++)
		free(r->argv[i]);
	free(r->out);
	free(r->err);
}

static void
test_cli__options_with_and_without_values(void **state)
{
	struct run r;

	(void)state;
	assert_int_equal(run_parse(&r, &demo, "-o", "x", "--force", "N", NULL),
	    AGENT_CMD_CONTINUE);
	assert_string_equal(r.args.opt[DEMO_OUT], "x");
	assert_string_equal(r.args.opt[DEMO_FORCE], "");
	assert_null(r.args.opt[DEMO_REPO]);
	assert_int_equal(r.args.argc, 1);
	assert_string_equal(r.args.argv[0], "N");
	assert_string_equal(r.out, "");
	assert_string_equal(r.err, "");
	run_release(&r);
}

static void
test_cli__value_forms_and_abbreviations(void **state)
{
	struct run r;

	(void)state;
	run_parse(&r, &demo, "--out=a", "N", NULL);
	assert_string_equal(r.args.opt[DEMO_OUT], "a");
	run_release(&r);
	run_parse(&r, &demo, "-ob", "N", NULL);
	assert_string_equal(r.args.opt[DEMO_OUT], "b");
	run_release(&r);
	run_parse(&r, &demo, "--fo", "--rep", "c", "N", NULL);
	assert_int_equal(r.code, AGENT_CMD_CONTINUE);
	assert_non_null(r.args.opt[DEMO_FORCE]);
	assert_string_equal(r.args.opt[DEMO_REPO], "c");
	assert_null(r.args.opt[DEMO_REV]);
	run_release(&r);
	/* --re: --repo or --rev. */
	assert_int_equal(run_parse(&r, &demo, "--re", "c", "N", NULL),
	    AGENT_EXIT_USAGE);
	assert_string_equal(r.err, "artemis-gitops demo: unknown option "
	                           "'--re'\nTry 'artemis-gitops demo "
	                           "--help'.\n");
	run_release(&r);
}

static void
test_cli__repeated_option_keeps_the_last(void **state)
{
	struct run r;

	(void)state;
	run_parse(&r, &demo, "-o", "a", "N", "--out", "b", NULL);
	assert_int_equal(r.code, AGENT_CMD_CONTINUE);
	assert_string_equal(r.args.opt[DEMO_OUT], "b");
	run_release(&r);
}

static void
test_cli__options_after_arguments_and_double_dash(void **state)
{
	struct run r;

	(void)state;
	run_parse(&r, &demo, "N", "--force", "M", NULL);
	assert_int_equal(r.code, AGENT_CMD_CONTINUE);
	assert_non_null(r.args.opt[DEMO_FORCE]);
	assert_int_equal(r.args.argc, 2);
	assert_string_equal(r.args.argv[0], "N");
	assert_string_equal(r.args.argv[1], "M");
	run_release(&r);
	run_parse(&r, &demo, "--", "--force", NULL);
	assert_int_equal(r.code, AGENT_CMD_CONTINUE);
	assert_null(r.args.opt[DEMO_FORCE]);
	assert_int_equal(r.args.argc, 1);
	assert_string_equal(r.args.argv[0], "--force");
	run_release(&r);
}

static void
test_cli__in_order_stops_at_the_first_argument(void **state)
{
	struct agent_cmd_entry e = demo;
	struct run r;

	(void)state;
	e.in_order = true;
	run_parse(&r, &e, "--force", "N", "--out", NULL);
	assert_int_equal(r.code, AGENT_CMD_CONTINUE);
	assert_non_null(r.args.opt[DEMO_FORCE]);
	assert_null(r.args.opt[DEMO_OUT]);
	assert_int_equal(r.args.argc, 2);
	assert_string_equal(r.args.argv[1], "--out");
	run_release(&r);
}

static void
test_cli__unknown_option_is_a_usage_error(void **state)
{
	struct agent_cmd_entry e = demo;
	struct run r;

	(void)state;
	assert_int_equal(run_parse(&r, &demo, "N", "--bogus", "--help", NULL),
	    AGENT_EXIT_USAGE);
	assert_string_equal(r.err, "artemis-gitops demo: unknown option "
	                           "'--bogus'\nTry 'artemis-gitops demo "
	                           "--help'.\n");
	assert_string_equal(r.out, "");
	run_release(&r);
	e.bad_option = "unknown or incomplete option";
	assert_int_equal(run_parse(&r, &e, "-x", NULL), AGENT_EXIT_USAGE);
	assert_string_equal(r.err, "artemis-gitops demo: unknown or incomplete "
	                           "option '-x'\nTry 'artemis-gitops demo "
	                           "--help'.\n");
	run_release(&r);
}

static void
test_cli__missing_value_is_a_usage_error(void **state)
{
	struct run r;

	(void)state;
	assert_int_equal(run_parse(&r, &demo, "N", "--out", NULL),
	    AGENT_EXIT_USAGE);
	assert_string_equal(r.err, "artemis-gitops demo: unknown option "
	                           "'--out'\nTry 'artemis-gitops demo "
	                           "--help'.\n");
	run_release(&r);
	assert_int_equal(run_parse(&r, &demo, "N", "-o", NULL),
	    AGENT_EXIT_USAGE);
	assert_string_equal(r.err, "artemis-gitops demo: unknown option "
	                           "'-o'\nTry 'artemis-gitops demo --help'.\n");
	run_release(&r);
	assert_int_equal(run_parse(&r, &demo, "--force=1", "N", NULL),
	    AGENT_EXIT_USAGE);
	run_release(&r);
}

static void
test_cli__argument_counts(void **state)
{
	struct agent_cmd_entry e = demo;
	struct run r;

	(void)state;
	assert_int_equal(run_parse(&r, &demo, "--force", NULL),
	    AGENT_EXIT_USAGE);
	assert_string_equal(r.err, "artemis-gitops demo: missing NAME\n"
	                           "Try 'artemis-gitops demo --help'.\n");
	run_release(&r);
	assert_int_equal(run_parse(&r, &demo, "a", "b", "c", "d", NULL),
	    AGENT_EXIT_USAGE);
	assert_string_equal(r.err, "artemis-gitops demo: unexpected argument "
	                           "'c'\nTry 'artemis-gitops demo --help'.\n");
	run_release(&r);
	e.args_many = "one or two NAMEs";
	e.args_counted = true;
	run_parse(&r, &e, NULL);
	assert_string_equal(r.err, "artemis-gitops demo: missing NAME, got 0 "
	                           "arguments\nTry 'artemis-gitops demo "
	                           "--help'.\n");
	run_release(&r);
	run_parse(&r, &e, "a", "b", "c", NULL);
	assert_string_equal(r.err, "artemis-gitops demo: one or two NAMEs, "
	                           "got 3 arguments\nTry 'artemis-gitops demo "
	                           "--help'.\n");
	run_release(&r);
	e.args_max = -1;
	assert_int_equal(run_parse(&r, &e, "a", "b", "c", NULL),
	    AGENT_CMD_CONTINUE);
	assert_int_equal(r.args.argc, 3);
	run_release(&r);
}

static void
test_cli__help_on_out_before_anything_else(void **state)
{
	struct run r;

	(void)state;
	assert_int_equal(run_parse(&r, &demo, "--help", "--bogus", NULL),
	    AGENT_EXIT_OK);
	assert_string_equal(r.out, demo_help);
	assert_string_equal(r.err, "");
	run_release(&r);
	/* No argument, after one: still the help. */
	assert_int_equal(run_parse(&r, &demo, "a", "b", "c", "-h", NULL),
	    AGENT_EXIT_OK);
	assert_string_equal(r.out, demo_help);
	run_release(&r);
}

static void
test_cli__version(void **state)
{
	struct run r;

	(void)state;
	assert_int_equal(run_parse(&r, &demo, "-V", NULL), AGENT_EXIT_OK);
	assert_string_equal(r.out, "artemis-gitops " AGENT_VERSION "\n");
	assert_string_equal(r.err, "");
	run_release(&r);
	assert_int_equal(run_parse(&r, &demo, "--vers", NULL), AGENT_EXIT_OK);
	assert_string_equal(r.out, "artemis-gitops " AGENT_VERSION "\n");
	run_release(&r);
}

static void
test_cli__on_parse_runs_in_order_and_may_stop(void **state)
{
	struct run r;

	(void)state;
	assert_int_equal(run_parse(&r, &demo, "--stop", "--bogus", NULL), 7);
	assert_string_equal(r.err, "");
	run_release(&r);
	assert_int_equal(run_parse(&r, &demo, "--bogus", "--stop", NULL),
	    AGENT_EXIT_USAGE);
	run_release(&r);
	assert_int_equal(run_parse(&r, &demo, "--level", "3", "N", NULL),
	    AGENT_CMD_CONTINUE);
	assert_string_equal(r.args.opt[DEMO_LEVEL], "3");
	run_release(&r);
	/* The check's code, before the missing NAME is noticed. */
	assert_int_equal(run_parse(&r, &demo, "--level", "4", NULL), 65);
	assert_string_equal(r.err, "");
	run_release(&r);
}

/* getopt keeps state between calls: the ordering of one parse ('+' or
 * not) must not leak into the next. */
static void
test_cli__each_parse_starts_afresh(void **state)
{
	struct agent_cmd_entry in_order = demo;
	struct run r;
	int i;

	(void)state;
	in_order.in_order = true;
	for (i = 0; i < 2; i++) {
		run_parse(&r, &in_order, "N", "--force", NULL);
		assert_int_equal(r.code, AGENT_CMD_CONTINUE);
		assert_null(r.args.opt[DEMO_FORCE]);
		assert_int_equal(r.args.argc, 2);
		run_release(&r);
		run_parse(&r, &demo, "N", "--force", NULL);
		assert_int_equal(r.code, AGENT_CMD_CONTINUE);
		assert_non_null(r.args.opt[DEMO_FORCE]);
		assert_int_equal(r.args.argc, 1);
		run_release(&r);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cli__options_with_and_without_values),
	    cmocka_unit_test(test_cli__value_forms_and_abbreviations),
	    cmocka_unit_test(test_cli__repeated_option_keeps_the_last),
	    cmocka_unit_test(test_cli__options_after_arguments_and_double_dash),
	    cmocka_unit_test(test_cli__in_order_stops_at_the_first_argument),
	    cmocka_unit_test(test_cli__unknown_option_is_a_usage_error),
	    cmocka_unit_test(test_cli__missing_value_is_a_usage_error),
	    cmocka_unit_test(test_cli__argument_counts),
	    cmocka_unit_test(test_cli__help_on_out_before_anything_else),
	    cmocka_unit_test(test_cli__version),
	    cmocka_unit_test(test_cli__on_parse_runs_in_order_and_may_stop),
	    cmocka_unit_test(test_cli__each_parse_starts_afresh),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
