/* tests/unit/test-log.c: agent/log.c and agent/signal.c. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#define LOG_MODULE "test"
#include "../../agent/daemon/daemon-int.h"
#include "../../agent/log.h"

static char *captured;
static size_t captured_len;
static FILE *cap;

static void
cap_begin(bool journal)
{
	captured = NULL;
	captured_len = 0;
	cap = open_memstream(&captured, &captured_len);
	assert_non_null(cap);
	agent_log_set_output(cap, journal);
	agent_log_set_level(AGENT_LOG_INFO);
}

static const char *
cap_end(void)
{
	fclose(cap);
	cap = NULL;
	agent_log_set_output(stderr, false);
	return captured;
}

static void
test_log__journal_prefix_and_no_timestamp(void **state)
{
	(void)state;
	cap_begin(true);
	log_err("node '%s': UNAUTHORIZED", "broker-a");
	log_warn("retrying in %ds", 30);
	log_notice("applied");
	log_info("routine");
	assert_string_equal(cap_end(),
	    "<3>test: node 'broker-a': UNAUTHORIZED\n"
	    "<4>test: retrying in 30s\n"
	    "<5>test: applied\n"
	    "<6>test: routine\n");
	free(captured);
}

static void
test_log__terminal_has_time_level_module(void **state)
{
	const char *s;

	(void)state;
	cap_begin(false);
	log_notice("commit %s applied", "abc123");
	s = cap_end();
	/* HH:MM:SS notice test: commit abc123 applied */
	assert_int_equal(strlen(s), 9 + strlen("notice test: commit abc123 "
	                                       "applied\n"));
	assert_true(s[2] == ':' && s[5] == ':' && s[8] == ' ');
	assert_string_equal(s + 9, "notice test: commit abc123 applied\n");
	free(captured);
}

static void
test_log__level_filters_debug(void **state)
{
	(void)state;
	cap_begin(true);
	log_debug("hidden");
	agent_log_set_level(AGENT_LOG_DEBUG);
	log_debug("shown");
	agent_log_set_level(AGENT_LOG_WARNING);
	log_notice("hidden too");
	assert_string_equal(cap_end(), "<7>test: shown\n");
	free(captured);
	agent_log_set_level(AGENT_LOG_INFO);
}

static void
test_log__control_bytes_are_escaped(void **state)
{
	(void)state;
	cap_begin(true);
	log_warn("name '%s'", "a\nb\tc\x1b[31m\\");
	assert_string_equal(cap_end(),
	    "<4>test: name 'a\\nb\\tc\\x1b[31m\\\\'\n");
	free(captured);
}

static void
test_log__errno_kept_for_m(void **state)
{
	(void)state;
	cap_begin(true);
	errno = ENOENT;
	log_err("open x: %m");
	assert_int_equal(errno, ENOENT);
	assert_string_equal(cap_end(), "<3>test: open x: No such file or "
	                               "directory\n");
	free(captured);
}

static void
test_log__level_parse(void **state)
{
	enum agent_log_prio p = AGENT_LOG_INFO;

	(void)state;
	assert_int_equal(agent_log_level_parse("debug", &p), 0);
	assert_int_equal(p, AGENT_LOG_DEBUG);
	assert_int_equal(agent_log_level_parse("warn", &p), 0);
	assert_int_equal(p, AGENT_LOG_WARNING);
	assert_int_equal(agent_log_level_parse("loud", &p), -1);
	assert_int_equal(p, AGENT_LOG_WARNING);
	assert_string_equal(agent_log_level_name(AGENT_LOG_NOTICE), "notice");
}

static void
test_log__escape_truncates_safely(void **state)
{
	char out[6];

	(void)state;
	assert_int_equal(agent_log_escape(out, sizeof(out), "ab\ncd"), 5);
	assert_string_equal(out, "ab\\nc");
	assert_int_equal(agent_log_escape(out, sizeof(out), "\x01\x02"), 4);
	assert_string_equal(out, "\\x01");
}

static void
test_signal__signals_become_flags(void **state)
{
	struct daemon_signals f = {0};
	struct err err = {0};
	int fd = -1;

	(void)state;
	assert_int_equal(daemon_signal_open(&fd, &err), 0);
	assert_int_equal(daemon_signal_drain(fd, &f), 0);
	raise(SIGUSR1);
	raise(SIGHUP);
	assert_int_equal(daemon_signal_drain(fd, &f), 2);
	assert_true(f.cycle);
	assert_true(f.reload);
	assert_false(f.stop);
	raise(SIGTERM);
	assert_int_equal(daemon_signal_drain(fd, &f), 1);
	assert_true(f.stop);
	assert_int_equal(f.last, SIGTERM);
	daemon_signal_close(fd);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_log__journal_prefix_and_no_timestamp),
	    cmocka_unit_test(test_log__terminal_has_time_level_module),
	    cmocka_unit_test(test_log__level_filters_debug),
	    cmocka_unit_test(test_log__control_bytes_are_escaped),
	    cmocka_unit_test(test_log__errno_kept_for_m),
	    cmocka_unit_test(test_log__level_parse),
	    cmocka_unit_test(test_log__escape_truncates_safely),
	    cmocka_unit_test(test_signal__signals_become_flags),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
