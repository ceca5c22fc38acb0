/* tests/unit/test-plan-broker.c: the broker_xml section of a CONFIG_MANAGED
 * plan (plan_add_broker_xml, plan_refuse_render) and its
 * plan.json round trip. */
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
#include "../../reconcile/plan/plan.h"
#include "recon-fixture.h"

static struct plan_opts opts = {false, NULL, "test"};

#define XML_HEAD                                                               \
	"<configuration xmlns=\"urn:activemq\">\n"                             \
	"<core xmlns=\"urn:activemq:core\">\n"                                 \
	"<address-settings><address-setting match=\"#\">"                      \
	"<config-delete-queues>FORCE</config-delete-queues>"                   \
	"</address-setting></address-settings>\n"
static const char before[] =
    XML_HEAD "<addresses>\n<address name=\"orders\"/>\n"
             "</addresses>\n</core>\n</configuration>\n";
static const char after[] =
    XML_HEAD "<addresses/>\n</core>\n</configuration>\n";

/* Two nodes, the second unreadable; queue 'orders' (configuration-managed,
 * 4 messages) live on the first, declared nowhere; a divert 'keep' from
 * 'audit-in' into 'orders' declared and live. */
static struct plan *
fixture(struct fx *f)
{
	struct plan_managed m = {0};
	struct recon_queue *q;
	struct plan *p;

	fx_init(f, DECL_CONFIG_MANAGED, 2);
	fx_address(f, "audit-in", DECL_ANYCAST);
	fx_queue(f, "audit-in", "audit-in");
	fx_divert(f, "keep", "audit-in", "orders");
	q = fx_lqueue(f, 0, "orders", "orders", 0, 4);
	q->configuration_managed = true;
	fx_lqueue(f, 0, "audit-in", "audit-in", 0, 0);
	fx_ldivert(f, 0, "keep", "audit-in", "orders");
	fx_unreachable(f, 1, "connection refused");
	m.known = true;
	m.source = xstrdup("inventory");
	m.queues = xcalloc(1, sizeof(char *));
	m.queues[0] = xstrdup("orders");
	m.nqueues = 1;
	p = plan_build(&f->c, &m, &f->s, &opts);
	plan_managed_release(&m);
	return p;
}

static void
add(struct plan *p, struct fx *f, const char *b0)
{
	struct plan_rendered r[2] = {
	    {"broker-a", b0, b0 != NULL ? strlen(b0) : 0, after, strlen(after)},
	    {"broker-b", after, strlen(after), after, strlen(after)},
	};

	plan_add_broker_xml(p, &f->c, &f->s, "the base files", r, 2);
}

static void
test_broker__diff_digest_prediction(void **state)
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
test_broker__no_before_diffs_against_dev_null(void **state)
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
test_broker__json_round_trip_and_md(void **state)
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
test_broker__parse_errors_name_the_member(void **state)
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

static void
test_broker__render_failure_refuses(void **state)
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
	    cmocka_unit_test(test_broker__diff_digest_prediction),
	    cmocka_unit_test(test_broker__no_before_diffs_against_dev_null),
	    cmocka_unit_test(test_broker__json_round_trip_and_md),
	    cmocka_unit_test(test_broker__parse_errors_name_the_member),
	    cmocka_unit_test(test_broker__render_failure_refuses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
