/* tests/unit/test-event.c: agent/event.c: the kinds and their one name
 * table, the `events:` patterns, detail lines kept one bounded line of
 * visible text, and the event's written form read back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../agent/event.h"
#include "../../lib/xalloc.h"

static void
test_event__names_and_patterns(void **state)
{
	enum agent_event_kind k;
	unsigned i;

	(void)state;
	for (i = 0; i < AGENT_EVENT_NKINDS; i++) {
		assert_non_null(
		    agent_event_kind_name((enum agent_event_kind)i));
		assert_int_equal(
		    agent_event_kind_parse(
		        agent_event_kind_name((enum agent_event_kind)i), &k),
		    0);
		assert_int_equal(k, i);
		assert_true(
		    agent_event_pattern_matches("*", (enum agent_event_kind)i));
	}
	assert_null(agent_event_kind_name(AGENT_EVENT_NKINDS));
	assert_int_equal(agent_event_kind_parse("apply", &k), -1);
	assert_true(
	    agent_event_pattern_matches("apply.*", AGENT_EVENT_APPLY_FAILED));
	assert_true(agent_event_pattern_matches("apply.*",
	    AGENT_EVENT_APPLY_SUCCEEDED));
	assert_false(agent_event_pattern_matches("apply.*",
	    AGENT_EVENT_APPROVAL_REFUSED));
	assert_true(agent_event_pattern_matches("node.unreachable",
	    AGENT_EVENT_NODE_UNREACHABLE));
	assert_false(agent_event_pattern_matches("node.unreachable",
	    AGENT_EVENT_NODE_REACHABLE));
	assert_true(agent_event_pattern_ok("drift.*"));
	assert_true(agent_event_pattern_ok("history.rewritten"));
	assert_false(agent_event_pattern_ok("drift"));
	assert_false(agent_event_pattern_ok("drif.*"));
	assert_false(agent_event_pattern_ok(".*"));
	assert_false(agent_event_pattern_ok("apply.**"));
	assert_int_equal(agent_event_kind_level(AGENT_EVENT_APPLY_FAILED),
	    AGENT_EVENT_DANGER);
	assert_int_equal(agent_event_kind_level(AGENT_EVENT_DRIFT_CLEARED),
	    AGENT_EVENT_GOOD);
}

static void
test_event__lines_are_one_bounded_visible_line(void **state)
{
	struct agent_event *e;
	char big[2000];
	size_t i;

	(void)state;
	e = agent_event_new(AGENT_EVENT_PREVIEW_REFUSED, "eu",
	    "title\nforged line");
	/* a newline or a bidi override from YAML or a broker cannot forge a
	 * line or disguise a name where the event is shown */
	assert_null(strchr(e->title, '\n'));
	agent_event_addf(e, "queue '%s'",
	    "a\xe2\x80\xae"
	    "b\r\nc");
	assert_string_equal(e->lines.v[0],
	    "queue 'a<U+202E>b<U+000D><U+000A>c'");
	/* at most AGENT_EVENT_LINE_MAX bytes, cut on a character */
	memset(big, 0, sizeof(big));
	for (i = 0; i + 2 < sizeof(big) - 1; i += 2)
		memcpy(big + i, "\xc3\xa9", 2);
	agent_event_addf(e, "%s", big);
	assert_true(strlen(e->lines.v[1]) <= AGENT_EVENT_LINE_MAX);
	assert_int_equal(strlen(e->lines.v[1]) % 2, 0);
	for (i = 2; i < 100; i++)
		agent_event_addf(e, "line %zu", i);
	assert_int_equal(e->lines.n, AGENT_EVENT_LINES_MAX + 1);
	assert_string_equal(e->lines.v[AGENT_EVENT_LINES_MAX],
	    "(more in the outbox)");
	agent_event_free(e);
}

static void
test_event__written_and_read_back(void **state)
{
	struct agent_event *e, *back = NULL;
	struct err err = {0};
	char *text, *again;

	(void)state;
	e = agent_event_new(AGENT_EVENT_NODE_UNREACHABLE, NULL, "node 'n'");
	agent_event_addf(e, "TIMEOUT \"quoted\" \\ %s", "é");
	agent_event_set_link(e, "https://g.example/clusters/eu");
	agent_event_set_data(e, xstrdup("{\"kind\":\"TIMEOUT\",\"n\":[1,2]}"));
	text = agent_event_render(e);
	assert_int_equal(
	    agent_event_parse(&back, "x.json", text, strlen(text), &err), 0);
	assert_null(back->cluster);
	assert_int_equal(back->kind, AGENT_EVENT_NODE_UNREACHABLE);
	assert_string_equal(back->lines.v[0], e->lines.v[0]);
	assert_string_equal(back->data, e->data);
	again = agent_event_render(back);
	assert_string_equal(again, text);
	free(again);
	agent_event_free(back);
	back = NULL;
	/* refused: an unknown kind, a missing member, data not an object */
	assert_int_equal(agent_event_parse(&back, "x.json",
	                     "{\"event\":\"nope\"}", 16, &err),
	    -1);
	assert_non_null(err.msg);
	err_release(&err);
	free(text);
	text = xstrdup("{\"cluster\":null,\"data\":[],\"event\":\"test\","
	               "\"lines\":[],\"link\":null,\"occurred_at\":\"t\","
	               "\"title\":\"x\"}");
	assert_int_equal(
	    agent_event_parse(&back, "x.json", text, strlen(text), &err), -1);
	assert_non_null(strstr(err.msg, "data"));
	err_release(&err);
	assert_null(back);
	free(text);
	agent_event_free(e);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_event__names_and_patterns),
	    cmocka_unit_test(test_event__lines_are_one_bounded_visible_line),
	    cmocka_unit_test(test_event__written_and_read_back),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
