/* tests/unit/conf-fixture.h: what the agent configuration's tests share
 * (test-conf, test-conf-notify): a text parsed as c.yaml in /etc/ag, to
 * success (parse_ok) or to its diagnostics, one a line (parse_bad, T_BAD).
 * Include after cmocka.h. */
#ifndef TESTS_UNIT_CONF_FIXTURE_H
#define TESTS_UNIT_CONF_FIXTURE_H

#include <stdlib.h>
#include <string.h>

#include "../../agent/conf.h"
#include "../../lib/sbuf.h"

static inline struct agent_conf *
parse_ok(const char *text)
{
	struct agent_conf *c = NULL;
	struct errlist d = {0};
	size_t i;
	char *s;

	if (agent_conf_parse(&c, "c.yaml", "/etc/ag", text, strlen(text), &d) <
	    0) {
		for (i = 0; i < d.n; i++) {
			s = errlist_render_item(&d, i);
			print_message("%s\n", s);
			free(s);
		}
		fail_msg("parse failed");
	}
	errlist_release(&d);
	return c;
}

/* Parse text expecting failure; the rendered diagnostics, one a line. */
static inline char *
parse_bad(const char *text)
{
	struct agent_conf *c = NULL;
	struct errlist d = {0};
	struct sbuf b = {0};
	size_t i;
	char *s;

	assert_int_equal(
	    agent_conf_parse(&c, "c.yaml", "/etc/ag", text, strlen(text), &d),
	    -1);
	assert_null(c);
	errlist_sort(&d);
	for (i = 0; i < d.n; i++) {
		s = errlist_render_item(&d, i);
		sbuf_addf(&b, "%s\n", s);
		free(s);
	}
	errlist_release(&d);
	return sbuf_take(&b);
}

#define T_BAD(text, expect)                                                    \
	do {                                                                   \
		char *got_ = parse_bad(text);                                  \
		assert_string_equal(got_, expect);                             \
		free(got_);                                                    \
	} while (0)

#endif
