/* tests/unit/test-body.c: agent/webhook/body.c: the json body (ours,
 * versioned, the delivery id and the attempt's time inside, so that the
 * signature covers them) and the slack body (text and one attachment; no
 * name can mention anyone or inject markup). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../agent/webhook/webhook-int.h"
#include "../../lib/json.h"
#include "../../lib/xalloc.h"

static const struct webhook_sender from = {"agent-host", "1.2.3"};

static struct agent_event *
sample(void)
{
	struct agent_event *e = agent_event_new(AGENT_EVENT_APPLY_FAILED,
	    "shop-eu", "apply of 2026-x partial: node2 FAILED (FORBIDDEN)");

	agent_event_addf(e, "node 'node2': FAILED: %s",
	    "queue '<!channel> @here &amp;'");
	agent_event_set_link(e, "https://g.example/clusters/shop-eu");
	agent_event_set_data(e, xstrdup("{\"result\":\"FAILED\"}"));
	free(e->occurred_at);
	e->occurred_at = xstrdup("2026-12-02T03:00:00Z");
	return e;
}

static void
test_body__json(void **state)
{
	struct agent_event *e = sample();
	char *b;

	(void)state;
	b = webhook_body_render(AGENT_CONF_BODY_JSON, e,
	    "0b4e1a52-7a5e-4a8e-9d36-3d5ba3b1c7f0", 1764644400, &from);
	assert_string_equal(b,
	    "{\"agent\":{\"host\":\"agent-host\",\"version\":\"1.2.3\"},"
	    "\"cluster\":\"shop-eu\",\"data\":{\"result\":\"FAILED\"},"
	    "\"delivery\":\"0b4e1a52-7a5e-4a8e-9d36-3d5ba3b1c7f0\","
	    "\"event\":\"apply.failed\","
	    "\"format\":\"artemis-gitops/notification\","
	    "\"lines\":[\"node 'node2': FAILED: queue '<!channel> @here "
	    "&amp;'\"],\"link\":\"https://g.example/clusters/shop-eu\","
	    "\"occurred_at\":\"2026-12-02T03:00:00Z\","
	    "\"timestamp\":1764644400,"
	    "\"title\":\"apply of 2026-x partial: node2 FAILED (FORBIDDEN)\","
	    "\"version\":1}");
	free(b);
	agent_event_free(e);
}

static void
test_body__slack(void **state)
{
	struct agent_event *e = sample();
	struct json_doc *doc = NULL;
	struct err err = {0};
	const struct json *att;
	char *b;

	(void)state;
	b = webhook_body_render(AGENT_CONF_BODY_SLACK, e,
	    "0b4e1a52-7a5e-4a8e-9d36-3d5ba3b1c7f0", 1764644400, &from);
	assert_int_equal(json_parse(&doc, "b", b, strlen(b), &err), 0);
	assert_string_equal(json_str(json_get(json_doc_root(doc), "text")),
	    "[shop-eu] apply of 2026-x partial: node2 FAILED (FORBIDDEN)");
	att = json_first(json_get(json_doc_root(doc), "attachments"));
	assert_string_equal(json_str(json_get(att, "color")), "#a30200");
	/* Slack's three entities; an @ cannot mention (U+2060 after it) */
	assert_string_equal(json_str(json_get(att, "text")),
	    "node 'node2': FAILED: queue '&lt;!channel&gt; "
	    "@\xe2\x81\xa0here &amp;amp;'");
	assert_string_equal(json_str(json_get(att, "title_link")),
	    "https://g.example/clusters/shop-eu");
	assert_non_null(strstr(json_str(json_get(att, "footer")),
	    "delivery 0b4e1a52-7a5e-4a8e-9d36-3d5ba3b1c7f0"));
	assert_int_equal(json_int(json_get(att, "ts"), &(int64_t){0}), 0);
	json_doc_free(doc);
	free(b);
	agent_event_free(e);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_body__json),
	    cmocka_unit_test(test_body__slack),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
