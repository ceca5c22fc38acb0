/* tests/unit/test-broker-xml-json.c: reconcile/plan/broker-xml-json.c:
 * the broker_xml section in plan.json, written and read back (and what
 * plan.md shows of the plan read back). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "broker-xml-fixture.h"

static void
test_broker_xml_json__json_round_trip_and_md(void **state)
{
	struct plan *p, *q = NULL;
	struct err err = {0};
	char *json, *again, *md;
	struct fx f;

	(void)state;
	p = fixture(&f);
	add(p, &f, before);
	json = plan_render_json(p);
	assert_non_null(strstr(json, "\"broker_xml\": {"));
	assert_int_equal(
	    plan_parse_json(&q, "plan.json", json, strlen(json), &err), 0);
	again = plan_render_json(q);
	assert_string_equal(again, json);
	md = plan_render_md(q, "P");
	assert_non_null(strstr(md, "## broker.xml (CONFIG_MANAGED)\n"));
	assert_non_null(strstr(md,
	    "- removes queue 'orders' on address 'orders': config-delete-queues "
	    "FORCE: removed with its 4 messages, which are lost\n"));
	assert_non_null(strstr(md,
	    "**divert `keep` is carried by the rendered broker.xml**"));
	assert_non_null(strstr(md, "so the next deployment and restart bring "
	                           "it back"));
	assert_non_null(strstr(md, "**A reload of the rendered files loses 4 "
	                           "messages**"));
	assert_non_null(strstr(md, "`broker/broker-b/broker.xml` (sha256 "));
	free(md);
	free(again);
	free(json);
	plan_free(q);
	plan_free(p);
	fx_free(&f);
}

static void
test_broker_xml_json__parse_errors_name_the_member(void **state)
{
	struct plan *p, *q = NULL;
	struct err err = {0};
	char *json, *bad, *at;
	struct fx f;

	(void)state;
	p = fixture(&f);
	add(p, &f, before);
	json = plan_render_json(p);
	bad = xstrdup(json);
	at = strstr(bad, "\"effect\": \"removes\"");
	assert_non_null(at);
	memcpy(at, "\"effect\": \"zapping\"", 19);
	assert_int_equal(
	    plan_parse_json(&q, "plan.json", bad, strlen(bad), &err), -1);
	assert_string_equal(err.msg,
	    "broker_xml.nodes[].reload.items[].effect: unknown value");
	err_release(&err);
	free(bad);
	free(json);
	plan_free(p);
	fx_free(&f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_broker_xml_json__json_round_trip_and_md),
	    cmocka_unit_test(
	        test_broker_xml_json__parse_errors_name_the_member),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
