/* tests/unit/test-jolokia.c: the Jolokia reply parser and classifier on
 * replies recorded from a real Artemis 2.40.0 broker
 * (tests/unit/data/jolokia/), request building and MBean names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/afile.h"
#include "../../lib/xalloc.h"
#include "../../reconcile/live/live-int.h"

#define DATA "tests/unit/data/jolokia/"

static char *
load(const char *name, size_t *len)
{
	struct err err = {0};
	char *path = xasprintf(DATA "%s", name), *data = NULL;

	if (afile_read(&data, len, path, 1 << 20, &err) < 0)
		fail_msg("%s", err.msg);
	free(path);
	return data;
}

/* Parse the recorded reply to a one-element bulk; check its refusal. */
static void
expect_element(const char *file, bool pattern, enum recon_kind kind, int status,
    const char *text_part)
{
	struct live_bulk b = {0};
	struct recon_refusal whole = {0};
	size_t len;
	char *data = load(file, &len);

	live_bulk_read(&b, pattern ? "d:k=*" : "d:k=v", NULL, 0);
	assert_int_equal(live_bulk_parse_reply(&b, 200, data, len, &whole), 0);
	assert_int_equal(whole.kind, RECON_OK);
	assert_string_equal(recon_kind_name(b.results[0].refusal.kind),
	    recon_kind_name(kind));
	assert_int_equal(b.results[0].refusal.status, status);
	assert_int_equal(b.results[0].refusal.http_status,
	    kind == RECON_OK ? 0 : 200);
	if (text_part != NULL)
		assert_non_null(strstr(b.results[0].refusal.text, text_part));
	else
		assert_null(b.results[0].refusal.text);
	live_bulk_release(&b);
	free(data);
}

static void
test_jolokia__recorded_refusals(void **state)
{
	(void)state;
	expect_element("destroy-with-consumers.json", false,
	    RECON_HAS_CONSUMERS, 500,
	    "AMQ229025: Cannot delete queue rec.orders on binding "
	    "rec.orders - it has consumers = ");
	expect_element("destroy-unknown-queue.json", false, RECON_NOT_FOUND,
	    500, "AMQ229017: Queue rec.nope does not exist");
	expect_element("destroy-unknown-divert.json", false, RECON_NOT_FOUND,
	    500, "AMQ229012: No binding for divert rec.nope");
	expect_element("create-existing-address.json", false,
	    RECON_ALREADY_EXISTS, 500,
	    "AMQ229204: Address already exists: rec.orders");
	expect_element("create-existing-queue.json", false,
	    RECON_ALREADY_EXISTS, 500,
	    "AMQ229019: Queue rec.orders already exists on address rec.orders");
	expect_element("delete-address-with-bindings.json", false,
	    RECON_BROKER_ERROR, 500,
	    "AMQ229205: Address rec.orders has bindings");
	expect_element("missing-signature.json", false, RECON_BROKER_ERROR, 400,
	    "java.lang.IllegalArgumentException : ");
	expect_element("read-missing-mbean.json", false, RECON_NOT_FOUND, 404,
	    "javax.management.InstanceNotFoundException");
	expect_element("read-pattern-no-match.json", true, RECON_OK, 0, NULL);
}

static void
test_jolokia__whole_request_error_object(void **state)
{
	struct live_bulk b = {0};
	struct recon_refusal whole = {0};
	size_t len;
	char *data = load("origin-refused.json", &len);

	(void)state;
	live_bulk_read(&b, "d:k=v", NULL, 0);
	live_bulk_read(&b, "d:k=w", NULL, 0);
	assert_int_equal(live_bulk_parse_reply(&b, 200, data, len, &whole), -1);
	assert_int_equal(whole.kind, RECON_FORBIDDEN);
	assert_int_equal(whole.status, 403);
	assert_string_equal(whole.text, "java.lang.Exception : Origin "
	                                "http://127.0.0.1 is not allowed to "
	                                "call this agent");
	assert_int_equal(b.results[1].refusal.kind, RECON_FORBIDDEN);
	recon_refusal_release(&whole);
	live_bulk_release(&b);
	free(data);
}

/* A two-element bulk answered with HTTP status http and body. */
static enum recon_kind
whole(long http, const char *body, char **text)
{
	struct live_bulk b = {0};
	struct recon_refusal r = {0};
	enum recon_kind k;

	live_bulk_read(&b, "d:k=v", NULL, 0);
	live_bulk_exec(&b, "d:k=v", "op()", NULL, 0);
	(void)live_bulk_parse_reply(&b, http, body, strlen(body), &r);
	k = r.kind;
	assert_int_equal(b.results[0].refusal.kind, k);
	assert_int_equal(b.results[1].refusal.kind, k);
	*text = r.text ? xstrdup(r.text) : NULL;
	recon_refusal_release(&r);
	live_bulk_release(&b);
	return k;
}

static void
expect_whole(long http, const char *body, enum recon_kind kind,
    const char *text)
{
	char *t = NULL;

	assert_string_equal(recon_kind_name(whole(http, body, &t)),
	    recon_kind_name(kind));
	if (text != NULL)
		assert_string_equal(t, text);
	free(t);
}

static void
test_jolokia__http_and_shape_failures(void **state)
{
	(void)state;
	expect_whole(403, "", RECON_UNAUTHORIZED,
	    "HTTP 403: authentication refused");
	expect_whole(401, "", RECON_UNAUTHORIZED,
	    "HTTP 401: authentication refused");
	expect_whole(429, "", RECON_THROTTLED,
	    "HTTP 429: too many failed logins, throttled");
	expect_whole(500, "boom", RECON_BROKER_ERROR, "HTTP 500: boom");
	expect_whole(400, "", RECON_BROKER_ERROR, "HTTP 400");
	expect_whole(302, "", RECON_BAD_RESPONSE, "unexpected HTTP status 302");
	expect_whole(200, "<html>", RECON_BAD_RESPONSE, "reply is not JSON");
	expect_whole(200, "[{\"status\":200,\"value\":1}]", RECON_BAD_RESPONSE,
	    "expected a bulk reply of 2 elements");
	expect_whole(200, "{\"status\":200,\"value\":1}", RECON_BAD_RESPONSE,
	    "expected a bulk reply (an array)");
	expect_whole(200, "\"x\"", RECON_BAD_RESPONSE,
	    "expected a bulk reply of 2 elements");
	expect_whole(200,
	    "[{\"status\":200,\"value\":1},{\"status\":200,\"value\":null}]",
	    RECON_OK, NULL);
	/* the strict reader: data after the value, invalid UTF-8, a repeated
	 * key, a non-integral status */
	expect_whole(200,
	    "[{\"status\":200,\"value\":1},{\"status\":200,\"value\":2}] x",
	    RECON_BAD_RESPONSE, "reply is not JSON");
	expect_whole(200,
	    "[{\"status\":200,\"value\":\"\xc3\"},{\"status\":200,"
	    "\"value\":2}]",
	    RECON_BAD_RESPONSE, "reply is not JSON");
	expect_whole(200,
	    "[{\"status\":200,\"value\":1,\"status\":500},{\"status\":200,"
	    "\"value\":2}]",
	    RECON_BAD_RESPONSE, "reply is not JSON");
	expect_whole(200,
	    "{\"status\":403.5,\"error\":\"java.lang.Exception : Origin\"}",
	    RECON_BAD_RESPONSE, "reply element without a status");
}

static void
test_jolokia__element_shapes(void **state)
{
	struct live_bulk b = {0};
	struct recon_refusal r = {0};
	const char *body = "[{\"value\":1},{\"status\":200},"
	                   "{\"status\":429,\"error\":\"slow down\"},"
	                   "{\"status\":403,\"error\":\"java.lang.Exception : "
	                   "User not authorized to access operation: "
	                   "destroyQueue\"},{\"status\":500}]";

	(void)state;
	live_bulk_read(&b, "d:k=v", NULL, 0);
	live_bulk_read(&b, "d:k=v", NULL, 0);
	live_bulk_read(&b, "d:k=v", NULL, 0);
	live_bulk_read(&b, "d:k=v", NULL, 0);
	live_bulk_read(&b, "d:k=v", NULL, 0);
	assert_int_equal(live_bulk_parse_reply(&b, 200, body, strlen(body), &r),
	    0);
	assert_int_equal(b.results[0].refusal.kind, RECON_BAD_RESPONSE);
	assert_string_equal(b.results[0].refusal.text,
	    "reply element without a status");
	assert_int_equal(b.results[1].refusal.kind, RECON_BAD_RESPONSE);
	assert_string_equal(b.results[1].refusal.text,
	    "reply element without a value");
	assert_int_equal(b.results[2].refusal.kind, RECON_THROTTLED);
	assert_int_equal(b.results[3].refusal.kind, RECON_FORBIDDEN);
	assert_int_equal(b.results[4].refusal.kind, RECON_BROKER_ERROR);
	assert_string_equal(b.results[4].refusal.text, "Jolokia status 500");
	live_bulk_release(&b);
}

static void
test_jolokia__classify_by_code_not_class(void **state)
{
	(void)state;
	assert_int_equal(live_jolokia_classify(500,
	                     "java.lang.IllegalStateException : AMQ229025: x",
	                     false),
	    RECON_HAS_CONSUMERS);
	assert_int_equal(live_jolokia_classify(500,
	                     "org.apache.activemq.artemis.api.core."
	                     "ActiveMQNonExistentQueueException : no code",
	                     false),
	    RECON_BROKER_ERROR);
	assert_int_equal(live_jolokia_classify(404,
	                     "AMQ229203: Address Does Not Exist", false),
	    RECON_NOT_FOUND);
	assert_int_equal(live_jolokia_classify(500, "AMQ22923: short", false),
	    RECON_BROKER_ERROR);
	assert_int_equal(live_jolokia_classify(500, "AMQ229235: x", false),
	    RECON_ALREADY_EXISTS);
	assert_int_equal(live_jolokia_classify(500, "AMQ229231: x", false),
	    RECON_NOT_FOUND);
	assert_int_equal(live_jolokia_classify(404, "", true), RECON_OK);
	assert_int_equal(live_jolokia_classify(200, "AMQ229025: x", false),
	    RECON_OK);
}

static void
test_jolokia__kind_names(void **state)
{
	enum recon_kind k, back;

	(void)state;
	for (k = RECON_OK; k <= RECON_BROKER_ERROR; k++) {
		assert_int_equal(recon_kind_parse(recon_kind_name(k), &back),
		    0);
		assert_int_equal(back, k);
	}
	assert_int_equal(recon_kind_parse("has_consumers", &back), -1);
	assert_string_equal(recon_kind_name(RECON_HAS_CONSUMERS),
	    "HAS_CONSUMERS");
}

static void
test_jolokia__request_body(void **state)
{
	struct live_bulk b = {0};
	char name[] = "orders", filter[] = "a = \"b\"";
	struct recon_queue q = {.name = name,
	    .address = name,
	    .routing = DECL_ANYCAST,
	    .durable = true,
	    .filter = filter,
	    .max_consumers = -1,
	    .ring_size = -1,
	    .enabled = true,
	    .delay_before_dispatch = -1};
	char *json;

	(void)state;
	live_bulk_destroy_queue(&b, "0.0.0.0", "orders", false, false);
	live_bulk_delete_address(&b, "n\"1", "a", true);
	assert_string_equal(sbuf_str(&b.body),
	    "[{\"type\":\"exec\",\"mbean\":\"org.apache.activemq.artemis:"
	    "broker=\\\"0.0.0.0\\\"\",\"operation\":\"destroyQueue(java.lang."
	    "String,boolean,boolean)\",\"arguments\":[\"orders\",false,false]},"
	    "{\"type\":\"exec\",\"mbean\":\"org.apache.activemq.artemis:broker="
	    "\\\"n\\\\\\\"1\\\"\",\"operation\":\"deleteAddress(java.lang."
	    "String,boolean)\",\"arguments\":[\"a\",true]}");
	assert_int_equal(b.n, 2);
	live_bulk_release(&b);
	json = live_queue_config_json(&q);
	assert_string_equal(json,
	    "{\"address\":\"orders\",\"auto-create-address\":false,"
	    "\"consumers-before-dispatch\":0,\"delay-before-dispatch\":-1,"
	    "\"durable\":true,\"enabled\":true,\"exclusive\":false,"
	    "\"filter-string\":\"a = \\\"b\\\"\",\"last-value\":false,"
	    "\"max-consumers\":-1,\"name\":\"orders\","
	    "\"purge-on-no-consumers\":false,\"ring-size\":-1,"
	    "\"routing-type\":\"ANYCAST\"}");
	free(json);
}

static void
test_jolokia__divert_json_is_complete(void **state)
{
	char k[] = "k", v[] = "v", tap[] = "tap", a[] = "a", b[] = "b",
	     t[] = "T";
	struct decl_kv props[1] = {{k, v}};
	struct recon_divert d = {.name = tap,
	    .address = a,
	    .forwarding_address = b,
	    .routing_type = DECL_DIVERT_PASS,
	    .transformer_class_name = t,
	    .transformer_properties = props,
	    .ntransformer_properties = 1};
	char *json = live_divert_config_json(&d);

	(void)state;
	assert_string_equal(json,
	    "{\"address\":\"a\",\"exclusive\":false,\"filter-string\":\"\","
	    "\"forwarding-address\":\"b\",\"name\":\"tap\","
	    "\"routing-name\":\"tap\",\"routing-type\":\"PASS\","
	    "\"transformer-configuration\":{\"class-name\":\"T\","
	    "\"properties\":{\"k\":\"v\"}}}");
	free(json);
}

static void
test_jolokia__mbean_names(void **state)
{
	char *m, *v = NULL;

	(void)state;
	m = live_mbean_queue("b*1", "a,b", DECL_MULTICAST, "q\\\"x\n");
	assert_string_equal(m,
	    "org.apache.activemq.artemis:broker=\"b\\*1\",component=addresses,"
	    "address=\"a,b\",subcomponent=queues,routing-type=\"multicast\","
	    "queue=\"q\\\\\\\"x\\n\"");
	assert_int_equal(live_mbean_key(m, "queue", &v), 0);
	assert_string_equal(v, "q\\\"x\n");
	free(v);
	assert_int_equal(live_mbean_key(m, "address", &v), 0);
	assert_string_equal(v, "a,b");
	free(v);
	assert_int_equal(live_mbean_key(m, "subcomponent", &v), 0);
	assert_string_equal(v, "queues");
	free(v);
	assert_int_equal(live_mbean_key(m, "divert", &v), -1);
	assert_int_equal(live_mbean_key("nocolon", "a", &v), -1);
	assert_int_equal(live_mbean_key("d:a=\"open", "a", &v), -1);
	free(m);
	m = live_mbean_divert("n", "src", "d");
	assert_string_equal(m, "org.apache.activemq.artemis:broker=\"n\","
	                       "component=addresses,address=\"src\","
	                       "subcomponent=diverts,divert=\"d\"");
	free(m);
}

/* The recorded snapshot reply of node1 (a consumer on rec.orders). */
static void
from_file(struct recon_node_snapshot *n, const char *file, const char *body)
{
	struct live_bulk b = {0};
	struct recon_refusal r = {0};
	size_t len = body ? strlen(body) : 0;
	char *data = body ? xstrdup(body) : load(file, &len);

	live_snapshot_build_request(&b, "node1");
	assert_int_equal(b.n, 5);
	assert_int_equal(live_bulk_parse_reply(&b, 200, data, len, &r), 0);
	memset(n, 0, sizeof(*n));
	live_node_from_reply(n, &b);
	live_bulk_release(&b);
	free(data);
}

static void
test_jolokia__snapshot_from_recorded_reply(void **state)
{
	struct recon_node_snapshot n;
	const struct recon_queue *q;
	const struct recon_address *a;
	const struct recon_divert *d;

	(void)state;
	from_file(&n, "snapshot-node1.json", NULL);
	assert_int_equal(n.refusal.kind, RECON_OK);
	assert_string_equal(n.broker_name, "node1");
	assert_string_equal(n.broker_version, "2.40.0");
	q = recon_node_find_queue(&n, "rec.orders");
	assert_non_null(q);
	assert_int_equal(q->consumer_count, 1);
	assert_int_equal(q->max_consumers, 10);
	assert_string_equal(q->filter, "region = 'EU'");
	assert_int_equal(q->routing, DECL_ANYCAST);
	q = recon_node_find_queue(&n, "rec.audit");
	assert_int_equal(q->routing, DECL_MULTICAST);
	assert_false(q->durable);
	assert_null(q->filter);
	assert_true(recon_node_find_queue(&n, "DLQ")->configuration_managed);
	a = recon_node_find_address(&n, "rec.orders");
	assert_int_equal(a->routing, DECL_ANYCAST | DECL_MULTICAST);
	assert_int_equal(a->nbinding_names, 3);
	assert_string_equal(a->binding_names[0], "rec.audit");
	assert_string_equal(a->binding_names[2], "rec.tap");
	assert_int_equal(a->nqueue_names, 2);
	d = recon_node_find_divert(&n, "rec.tap");
	assert_string_equal(d->forwarding_address, "DLQ");
	assert_int_equal(d->routing_type, DECL_DIVERT_PASS);
	assert_int_equal(d->ntransformer_properties, 1);
	assert_string_equal(d->transformer_properties[0].value, "1");
	assert_int_equal(n.naddress_settings, 1);
	assert_string_equal(n.address_settings[0].config_delete_diverts, "OFF");
	live_node_release(&n);
}

#define EMPTY_REST                                                             \
	"{\"status\":404,\"error\":\"x\"},{\"status\":404,\"error\":\"x\"},"   \
	"{\"status\":404,\"error\":\"x\"},{\"status\":404,\"error\":\"x\"}]"

static void
test_jolokia__snapshot_shape_errors(void **state)
{
	struct recon_node_snapshot n;

	(void)state;
	from_file(&n, NULL,
	    "[{\"status\":200,\"value\":{\"d:broker=\\\"a\\\"\":{},"
	    "\"d:broker=\\\"b\\\"\":{}}}," EMPTY_REST);
	assert_int_equal(n.refusal.kind, RECON_BAD_RESPONSE);
	assert_string_equal(n.refusal.text, "several broker MBeans found");
	live_node_release(&n);
	from_file(&n, NULL, "[{\"status\":404,\"error\":\"x\"}," EMPTY_REST);
	assert_string_equal(n.refusal.text, "no broker MBean found");
	live_node_release(&n);
	from_file(&n, NULL,
	    "[{\"status\":200,\"value\":{\"d:broker=\\\"a\\\"\":{}}},"
	    "{\"status\":404,\"error\":\"x\"},{\"status\":200,\"value\":{"
	    "\"d:broker=\\\"a\\\",queue=\\\"q\\\",address=\\\"x\\\"\":"
	    "{\"RoutingType\":\"ANYCAST\",\"Durable\":\"yes\"}}},"
	    "{\"status\":404,\"error\":\"x\"},{\"status\":404,\"error\":\"x\"}]");
	assert_int_equal(n.refusal.kind, RECON_BAD_RESPONSE);
	assert_string_equal(n.refusal.text,
	    "queue 'd:broker=\"a\",queue=\"q\",address=\"x\"': attribute "
	    "Durable: expected a boolean");
	assert_int_equal(n.nqueues, 0);
	live_node_release(&n);
	from_file(&n, NULL,
	    "[{\"status\":200,\"value\":{\"d:broker=\\\"a\\\"\":{}}},"
	    "{\"status\":403,\"error\":\"java.lang.Exception : User not "
	    "authorized to access attribute: Address\"},"
	    "{\"status\":404,\"error\":\"x\"},{\"status\":404,\"error\":\"x\"},"
	    "{\"status\":404,\"error\":\"x\"}]");
	assert_int_equal(n.refusal.kind, RECON_FORBIDDEN);
	assert_int_equal(n.refusal.status, 403);
	live_node_release(&n);
}

static void
test_jolokia__snapshot_other_brokers_ignored(void **state)
{
	struct recon_node_snapshot n;

	(void)state;
	from_file(&n, NULL,
	    "[{\"status\":200,\"value\":{\"d:broker=\\\"a\\\"\":{\"Version\":"
	    "\"2.40.0\"}}},{\"status\":200,\"value\":{"
	    "\"d:address=\\\"x\\\",broker=\\\"a\\\",component=addresses\":"
	    "{\"Address\":\"x\",\"RoutingTypes\":[\"MULTICAST\"]},"
	    "\"d:address=\\\"y\\\",broker=\\\"other\\\",component=addresses\":"
	    "{\"Address\":\"y\"}}},"
	    "{\"status\":404,\"error\":\"x\"},{\"status\":404,\"error\":\"x\"},"
	    "{\"status\":404,\"error\":\"x\"}]");
	assert_int_equal(n.refusal.kind, RECON_OK);
	assert_int_equal(n.naddresses, 1);
	assert_string_equal(n.addresses[0].name, "x");
	assert_int_equal(n.addresses[0].routing, DECL_MULTICAST);
	assert_int_equal(n.nqueues, 0);
	assert_int_equal(n.naddress_settings, 0);
	live_node_release(&n);
}

/* Counts arrive as Java longs: read exactly, past 2^53 too; a count that
 * is not an integer is the reply's problem. */
static void
test_jolokia__snapshot_counts_are_exact(void **state)
{
	struct recon_node_snapshot n;
	const char *head =
	    "[{\"status\":200,\"value\":{\"d:broker=\\\"a\\\"\":{}}},"
	    "{\"status\":404,\"error\":\"x\"},{\"status\":200,\"value\":{"
	    "\"d:broker=\\\"a\\\",queue=\\\"q\\\",address=\\\"x\\\"\":"
	    "{\"RoutingType\":\"ANYCAST\",\"MessageCount\":";
	const char *tail = "}}},{\"status\":404,\"error\":\"x\"},"
	                   "{\"status\":404,\"error\":\"x\"}]";
	struct recon_snapshot snap = {.cluster = (char[]){"c"},
	    .taken_at = (char[]){"2026-01-01T00:00:00Z"},
	    .nnodes = 1};
	struct recon_snapshot *back = NULL;
	struct err err = {0};
	char *body, *text;

	(void)state;
	body = xasprintf("%s9007199254740993%s", head, tail);
	from_file(&n, NULL, body);
	assert_int_equal(n.refusal.kind, RECON_OK);
	assert_int_equal(n.nqueues, 1);
	assert_true(n.queues[0].message_count == INT64_C(9007199254740993));
	/* and a recorded snapshot keeps it */
	n.node = xstrdup("node1");
	n.url = xstrdup("http://localhost:8161/console/jolokia");
	snap.nodes = &n;
	text = live_snapshot_render_json(&snap);
	if (live_snapshot_parse_json(&back, "s.json", text, strlen(text),
	        &err) < 0)
		fail_msg("%s", err.msg);
	assert_true(back->nodes[0].queues[0].message_count ==
	            INT64_C(9007199254740993));
	live_snapshot_free(back);
	free(text);
	live_node_release(&n);
	free(body);
	body = xasprintf("%s1.5%s", head, tail);
	from_file(&n, NULL, body);
	assert_int_equal(n.refusal.kind, RECON_BAD_RESPONSE);
	assert_string_equal(n.refusal.text,
	    "queue 'd:broker=\"a\",queue=\"q\",address=\"x\"': attribute "
	    "MessageCount: expected an integer");
	live_node_release(&n);
	free(body);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_jolokia__recorded_refusals),
	    cmocka_unit_test(test_jolokia__whole_request_error_object),
	    cmocka_unit_test(test_jolokia__http_and_shape_failures),
	    cmocka_unit_test(test_jolokia__element_shapes),
	    cmocka_unit_test(test_jolokia__classify_by_code_not_class),
	    cmocka_unit_test(test_jolokia__kind_names),
	    cmocka_unit_test(test_jolokia__request_body),
	    cmocka_unit_test(test_jolokia__divert_json_is_complete),
	    cmocka_unit_test(test_jolokia__mbean_names),
	    cmocka_unit_test(test_jolokia__snapshot_from_recorded_reply),
	    cmocka_unit_test(test_jolokia__snapshot_shape_errors),
	    cmocka_unit_test(test_jolokia__snapshot_other_brokers_ignored),
	    cmocka_unit_test(test_jolokia__snapshot_counts_are_exact),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
