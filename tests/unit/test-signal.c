/* tests/unit/test-signal.c: agent/daemon/signal.c: signals through a
 * signalfd become flags. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>
#include <signal.h>

#include "../../agent/daemon/daemon-int.h"

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
	    cmocka_unit_test(test_signal__signals_become_flags),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
