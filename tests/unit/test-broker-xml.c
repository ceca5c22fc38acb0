/* tests/unit/test-broker-xml.c: reconcile/plan/broker-xml.c: the
 * broker_xml section of a CONFIG_MANAGED plan (plan_add_broker_xml,
 * plan_refuse_render). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/sha256.h"
#include "broker-xml-fixture.h"

static void
test_broker_xml__diff_digest_prediction(void **state)
{
	struct plan *p;
	char hex[SHA256_HEX];
	struct fx f;

	(void)state;
	p = fixture(&f);
	add(p, &f, before);
	assert_string_equal(p->broker_xml_before, "the base files");
	assert_int_equal(p->nbroker_xml, 2);
	sha256_hex(after, strlen(after), hex);
	assert_string_equal(p->broker_xml[0].sha256, hex);
	assert_string_equal(p->broker_xml[0].path,
	    "broker/broker-a/broker.xml");
	assert_non_null(strstr(p->broker_xml[0].diff,
	    "--- a/broker-a/broker.xml\n+++ b/broker-a/broker.xml\n"));
	assert_non_null(
	    strstr(p->broker_xml[0].diff, "-<address name=\"orders\"/>\n"));
	assert_null(p->broker_xml[1].diff); /* unchanged */
	assert_true(p->broker_xml[0].predicted);
	assert_string_equal(p->broker_xml[0].reload.settings.queues, "FORCE");
	assert_string_equal(p->broker_xml[0].reload.settings.addresses, "OFF");
	assert_int_equal(p->broker_xml[0].reload.messages_lost, 4);
	assert_false(p->broker_xml[1].predicted);
	assert_string_equal(p->broker_xml[1].not_predicted,
	    "node not read (UNREACHABLE)");
	assert_int_equal(p->broker_xml[0].ncarried, 1);
	assert_string_equal(p->broker_xml[0].carried_diverts[0], "keep");
	plan_free(p);
	fx_free(&f);
}

static void
test_broker_xml__no_before_diffs_against_dev_null(void **state)
{
	struct plan *p;
	struct fx f;

	(void)state;
	p = fixture(&f);
	add(p, &f, NULL);
	assert_non_null(strstr(p->broker_xml[0].diff,
	    "--- /dev/null\n+++ b/broker-a/broker.xml\n"));
	plan_free(p);
	fx_free(&f);
}

static void
test_broker_xml__render_failure_refuses(void **state)
{
	struct errlist diags = {0};
	struct plan *p;
	struct fx f;

	(void)state;
	p = fixture(&f);
	errlist_add(&diags, DIAG_ERROR, &(struct pos){"c/objects.yaml", 6, 5},
	    "divert '1st': name is not an XML NCName");
	plan_refuse_render(p, &diags);
	assert_int_equal(p->outcome, PLAN_OUT_REFUSED);
	assert_string_equal(p->refusal, "RENDER_FAILED");
	assert_string_equal(p->message,
	    "the nodes' broker.xml cannot be rendered: c/objects.yaml:6:5: "
	    "divert '1st': name is not an XML NCName");
	assert_null(p->broker_xml_before);
	errlist_release(&diags);
	plan_free(p);
	fx_free(&f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_broker_xml__diff_digest_prediction),
	    cmocka_unit_test(test_broker_xml__no_before_diffs_against_dev_null),
	    cmocka_unit_test(test_broker_xml__render_failure_refuses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
