/* tests/unit/test-conf-windows.c: agent/conf-windows.c, `sync-windows` of
 * the agent configuration: each window's keys, with positions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../agent/conf.h"
#include "../../lib/xalloc.h"
#include "conf-fixture.h"

#define HEAD "version: 1\nrepository: {url: file:///r}\nstate: /s\n"

static void
test_conf_windows__parsed(void **state)
{
	struct agent_conf *c;
	const struct agent_window *w;

	(void)state;
	c = parse_ok(HEAD "sync-windows:\n"
	                  "  - kind: allow\n"
	                  "    schedule: 0 22 * * mon-fri\n"
	                  "    duration: 6h\n"
	                  "    time-zone: Europe/Berlin\n"
	                  "  - kind: deny\n"
	                  "    schedule: '*/30 * 24-26 dec *'\n"
	                  "    duration: 30m\n"
	                  "    time-zone: UTC\n"
	                  "    clusters: [shop-eu, shop-us]\n");
	assert_int_equal(c->windows.n, 2);
	w = &c->windows.v[0];
	assert_int_equal(w->kind, AGENT_WINDOW_ALLOW);
	assert_string_equal(w->schedule, "0 22 * * mon-fri");
	assert_int_equal(w->duration, 6 * 3600);
	assert_string_equal(w->zone, "Europe/Berlin");
	assert_int_equal(w->clusters.n, 0);
	assert_int_equal(w->line, 5);
	w = &c->windows.v[1];
	assert_int_equal(w->kind, AGENT_WINDOW_DENY);
	assert_int_equal(w->duration, 1800);
	assert_int_equal(w->clusters.n, 2);
	assert_string_equal(w->clusters.v[1], "shop-us");
	agent_conf_free(c);
	/* none: no window, always open */
	c = parse_ok(HEAD);
	assert_int_equal(c->windows.n, 0);
	agent_conf_free(c);
}

static void
test_conf_windows__errors_at_their_positions(void **state)
{
	(void)state;
	/* a bad cron field at its own column, quoted or plain */
	T_BAD(HEAD "sync-windows:\n"
	           "  - kind: allow\n"
	           "    schedule: 0 25 * * *\n"
	           "    duration: 1h\n"
	           "    time-zone: UTC\n"
	           "  - kind: deny\n"
	           "    schedule: '0 0 * * * *'\n"
	           "    duration: 1h\n"
	           "    time-zone: UTC\n",
	    "c.yaml:6:17: 'sync-windows': 'schedule' hour: '25' is not "
	    "a value from 0 to 23, a range, a step or a list of them\n"
	    "c.yaml:10:26: 'sync-windows': 'schedule' a schedule has "
	    "five fields (minute hour day-of-month month day-of-week): "
	    "'0 0 * * * *' has more\n");
	T_BAD(HEAD "sync-windows:\n"
	           "  - kind: maybe\n"
	           "    schedule: 0 22 * * *\n"
	           "    duration: 0s\n"
	           "    time-zone: Europe/Atlantis\n"
	           "    clusters: []\n"
	           "    colour: red\n",
	    "c.yaml:5:11: 'sync-windows': 'kind' must be allow or deny, "
	    "not 'maybe'\n"
	    "c.yaml:7:15: 'sync-windows': 'duration' must be a duration "
	    "from 1s to 31d like 30m, 8h or 2d, not '0s'\n"
	    "c.yaml:8:16: 'sync-windows': 'time-zone' 'Europe/Atlantis' "
	    "is not a time zone of the system's tz database "
	    "(/usr/share/zoneinfo): use an IANA name like Europe/Berlin or "
	    "UTC\n"
	    "c.yaml:9:15: 'sync-windows': 'clusters' must be a list of "
	    "cluster names, not an empty list (leave it out for every "
	    "cluster)\n"
	    "c.yaml:10:5: 'sync-windows': unknown key 'colour' (kind, "
	    "schedule, duration, time-zone, clusters)\n");
	T_BAD(HEAD "sync-windows:\n"
	           "  - kind: allow\n"
	           "  - deny\n",
	    "c.yaml:5:5: 'sync-windows': a window needs 'schedule'\n"
	    "c.yaml:5:5: 'sync-windows': a window needs 'duration'\n"
	    "c.yaml:5:5: 'sync-windows': a window needs 'time-zone'\n"
	    "c.yaml:6:5: 'sync-windows': a window must be a mapping "
	    "(kind, schedule, duration, time-zone, clusters), not a scalar\n");
	T_BAD(HEAD "sync-windows: 0 22 * * *\n",
	    "c.yaml:4:15: 'sync-windows' must be a list of windows, not "
	    "a scalar\n");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_conf_windows__parsed),
	    cmocka_unit_test(test_conf_windows__errors_at_their_positions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
