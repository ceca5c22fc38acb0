/* tests/unit/test-snapshot-fetch.c: reconcile/live/snapshot-fetch.c: a
 * node read from one bulk reply recorded from a real Artemis 2.40.0 broker
 * (tests/unit/data/jolokia/); replies of the wrong shape, a broker without
 * a version and integers out of range are BAD_RESPONSE. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "jolokia-fixture.h"

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

#define EMPTY_REST                                                             \
	"{\"status\":404,\"error\":\"x\"},{\"status\":404,\"error\":\"x\"},"   \
	"{\"status\":404,\"error\":\"x\"},{\"status\":404,\"error\":\"x\"}]"

static void
test_snapshot_fetch__from_recorded_reply(void **state)
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

static void
test_snapshot_fetch__shape_errors(void **state)
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
	/* a broker that was read names its version: a snapshot has null
	 * there for a node that could not be read only */
	from_file(&n, NULL,
	    "[{\"status\":200,\"value\":{\"d:broker=\\\"a\\\"\":{}}}," EMPTY_REST);
	assert_int_equal(n.refusal.kind, RECON_BAD_RESPONSE);
	assert_string_equal(n.refusal.text,
	    "the broker MBean has no Version string");
	assert_null(n.broker_name);
	live_node_release(&n);
	from_file(&n, NULL,
	    "[{\"status\":200,\"value\":{\"d:broker=\\\"a\\\"\":{"
	    "\"Version\":\"2.40.0\"}}},"
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

/* A broker below the floor is read (its name and version kept) and
 * managed no further: UNSUPPORTED_VERSION, its objects dropped; one
 * without a release number too. */
static void
test_snapshot_fetch__below_the_floor(void **state)
{
	static const char *const versions[] = {"2.27.1", "x", "3.0.0"};
	struct recon_node_snapshot n;
	char *body;
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++) {
		body = xasprintf(
		    "[{\"status\":200,\"value\":{\"d:broker=\\\"a\\\"\":{"
		    "\"Version\":\"%s\"}}},{\"status\":200,\"value\":{"
		    "\"d:address=\\\"x\\\",broker=\\\"a\\\",component=addresses\":"
		    "{\"Address\":\"x\",\"RoutingTypes\":[\"ANYCAST\"]}}},"
		    "{\"status\":404,\"error\":\"x\"},{\"status\":404,"
		    "\"error\":\"x\"},{\"status\":404,\"error\":\"x\"}]",
		    versions[i]);
		from_file(&n, NULL, body);
		free(body);
		assert_int_equal(n.refusal.kind, RECON_UNSUPPORTED_VERSION);
		assert_string_equal(n.broker_name, "a");
		assert_string_equal(n.broker_version, versions[i]);
		assert_int_equal(n.naddresses, 0);
		assert_non_null(strstr(n.refusal.text, "2.28.0"));
		live_node_release(&n);
	}
	from_file(&n, NULL,
	    "[{\"status\":200,\"value\":{\"d:broker=\\\"a\\\"\":{\"Version\":"
	    "\"2.28.0\"}}}," EMPTY_REST);
	assert_int_equal(n.refusal.kind, RECON_OK);
	live_node_release(&n);
}

/* A broker that says it is not active (a passive backup, as a real 2.44.0
 * shared-store backup answers) is PASSIVE: read, its HA state kept, its
 * contents dropped; an active one keeps its objects and its HA state. */
static void
test_snapshot_fetch__passive_backup(void **state)
{
	struct recon_node_snapshot n;

	(void)state;
	from_file(&n, NULL,
	    "[{\"status\":200,\"value\":{\"d:broker=\\\"b\\\"\":{\"Version\":"
	    "\"2.44.0\",\"Active\":false,\"Backup\":true,\"HAPolicy\":"
	    "\"Shared Store Backup\",\"NodeID\":\"id-1\",\"ReplicaSync\":"
	    "false}}},{\"status\":200,\"value\":{"
	    "\"d:address=\\\"x\\\",broker=\\\"b\\\",component=addresses\":"
	    "{\"Address\":\"x\",\"RoutingTypes\":[\"ANYCAST\"]}}},"
	    "{\"status\":404,\"error\":\"x\"},{\"status\":404,"
	    "\"error\":\"x\"},{\"status\":404,\"error\":\"x\"}]");
	assert_int_equal(n.refusal.kind, RECON_PASSIVE);
	assert_true(n.ha.known);
	assert_false(n.ha.active);
	assert_true(n.ha.backup);
	assert_string_equal(n.ha.policy, "Shared Store Backup");
	assert_string_equal(n.ha.node_id, "id-1");
	/* a shared-store broker's ReplicaSync (always false) means nothing */
	assert_int_equal(n.ha.replica_sync, -1);
	assert_string_equal(n.broker_version, "2.44.0");
	assert_int_equal(n.naddresses, 0);
	assert_non_null(strstr(n.refusal.text, "Shared Store Backup"));
	live_node_release(&n);
	from_file(&n, NULL,
	    "[{\"status\":200,\"value\":{\"d:broker=\\\"a\\\"\":{\"Version\":"
	    "\"2.44.0\",\"Active\":true,\"Backup\":false,\"HAPolicy\":"
	    "\"Shared Store Primary\",\"NodeID\":\"id-1\"}}},"
	    "{\"status\":200,\"value\":{"
	    "\"d:address=\\\"x\\\",broker=\\\"a\\\",component=addresses\":"
	    "{\"Address\":\"x\",\"RoutingTypes\":[\"ANYCAST\"]}}},"
	    "{\"status\":404,\"error\":\"x\"},{\"status\":404,"
	    "\"error\":\"x\"},{\"status\":404,\"error\":\"x\"}]");
	assert_int_equal(n.refusal.kind, RECON_OK);
	assert_true(n.ha.known && n.ha.active && !n.ha.backup);
	assert_int_equal(n.ha.replica_sync, -1);
	assert_int_equal(n.naddresses, 1);
	live_node_release(&n);
	/* a replication backup in sync (2.28.0 names its policy "Replica") */
	from_file(&n, NULL,
	    "[{\"status\":200,\"value\":{\"d:broker=\\\"b\\\"\":{\"Version\":"
	    "\"2.28.0\",\"Active\":false,\"Backup\":true,\"HAPolicy\":"
	    "\"Replica\",\"NodeID\":\"id-1\",\"ReplicaSync\":true}}},"
	    "{\"status\":404,\"error\":\"x\"},{\"status\":404,"
	    "\"error\":\"x\"},{\"status\":404,\"error\":\"x\"},{\"status\":404,"
	    "\"error\":\"x\"}]");
	assert_int_equal(n.refusal.kind, RECON_PASSIVE);
	assert_int_equal(n.ha.replica_sync, 1);
	assert_non_null(strstr(n.refusal.text, "in sync with its live"));
	live_node_release(&n);
}

static void
test_snapshot_fetch__other_brokers_ignored(void **state)
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

/* Counts arrive as Java longs, read exactly; every integer must be within
 * +-2^53 (what a recorded snapshot holds, so the node can be recorded and
 * read back), a message count 0 or more, a consumer count a Java int 0 or
 * more: anything else is the reply's problem, naming the attribute. */
static void
test_snapshot_fetch__counts_in_range(void **state)
{
	static const struct {
		const char *attrs, *why;
	} bad[] = {
	    {"\"MessageCount\":9007199254740993",
	        "MessageCount: expected an integer from 0 to "
	        "9007199254740992, not 9007199254740993"},
	    {"\"MessageCount\":-1",
	        "MessageCount: expected an integer from 0 to "
	        "9007199254740992, not -1"},
	    {"\"ConsumerCount\":-3",
	        "ConsumerCount: expected an integer from 0 to 2147483647, not "
	        "-3"},
	    {"\"ConsumerCount\":2147483648",
	        "ConsumerCount: expected an integer from 0 to 2147483647, not "
	        "2147483648"},
	    {"\"MaxConsumers\":-9007199254740993",
	        "MaxConsumers: expected an integer from -9007199254740992 to "
	        "9007199254740992, not -9007199254740993"},
	    {"\"MessageCount\":1.5", "MessageCount: expected an integer"},
	};
	struct recon_node_snapshot n;
	const char *head =
	    "[{\"status\":200,\"value\":{\"d:broker=\\\"a\\\"\":{"
	    "\"Version\":\"2.40.0\"}}},"
	    "{\"status\":404,\"error\":\"x\"},{\"status\":200,\"value\":{"
	    "\"d:broker=\\\"a\\\",queue=\\\"q\\\",address=\\\"x\\\"\":"
	    "{\"RoutingType\":\"ANYCAST\",";
	const char *tail = "}}},{\"status\":404,\"error\":\"x\"},"
	                   "{\"status\":404,\"error\":\"x\"}]";
	struct recon_snapshot snap = {.cluster = (char[]){"c"},
	    .taken_at = (char[]){"2026-01-01T00:00:00Z"},
	    .nnodes = 1};
	struct recon_snapshot *back = NULL;
	struct err err = {0};
	char *body, *text, *want;
	size_t i;

	(void)state;
	body = xasprintf("%s\"MessageCount\":9007199254740992,"
	                 "\"ConsumerCount\":2147483647%s",
	    head, tail);
	from_file(&n, NULL, body);
	assert_int_equal(n.refusal.kind, RECON_OK);
	assert_int_equal(n.nqueues, 1);
	assert_true(n.queues[0].message_count == INT64_C(9007199254740992));
	assert_true(n.queues[0].consumer_count == INT64_C(2147483647));
	/* and a recorded snapshot keeps them */
	n.node = xstrdup("node1");
	n.url = xstrdup("http://localhost:8161/console/jolokia");
	snap.nodes = &n;
	text = live_snapshot_render_json(&snap);
	if (live_snapshot_parse_json(&back, "s.json", text, strlen(text),
	        &err) < 0)
		fail_msg("%s", err.msg);
	assert_true(back->nodes[0].queues[0].message_count ==
	            INT64_C(9007199254740992));
	live_snapshot_free(back);
	free(text);
	live_node_release(&n);
	free(body);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		body = xasprintf("%s%s%s", head, bad[i].attrs, tail);
		from_file(&n, NULL, body);
		assert_int_equal(n.refusal.kind, RECON_BAD_RESPONSE);
		want = xasprintf("queue 'd:broker=\"a\",queue=\"q\",address="
		                 "\"x\"': attribute %s",
		    bad[i].why);
		assert_string_equal(n.refusal.text, want);
		assert_int_equal(n.nqueues, 0);
		free(want);
		live_node_release(&n);
		free(body);
	}
}

/* The tick of the options reaches the HTTP client: a node that never
 * answers is given up when it asks, well before the 30 s timeout. */
static void
test_snapshot_fetch__tick_abandons_a_stalled_node(void **state)
{
	unsigned calls = 0;
	struct http_tick tick = {tick_abandon_second, &calls, 50};
	struct live_http_opts o = {.tick = &tick};
	struct live_target t = {.node = "node1", .userpass = "u:p"};
	struct recon_snapshot *s;
	int fd;
	char *u = silent_url(&fd);

	(void)state;
	t.url = u;
	s = live_snapshot_fetch("c", &t, 1, &o, NULL);
	assert_int_equal(calls, 2);
	assert_int_equal(s->nodes[0].refusal.kind, RECON_UNREACHABLE);
	assert_string_equal(s->nodes[0].refusal.text,
	    "abandoned by the caller");
	/* the read's time is kept, given up or not: a tick at the start,
	 * the one 50 ms later gives it up */
	assert_true(s->nodes[0].read_seconds > 0.02);
	assert_true(s->nodes[0].read_seconds < 30);
	live_snapshot_free(s);
	close(fd);
	free(u);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_snapshot_fetch__from_recorded_reply),
	    cmocka_unit_test(test_snapshot_fetch__shape_errors),
	    cmocka_unit_test(test_snapshot_fetch__other_brokers_ignored),
	    cmocka_unit_test(test_snapshot_fetch__below_the_floor),
	    cmocka_unit_test(test_snapshot_fetch__passive_backup),
	    cmocka_unit_test(test_snapshot_fetch__counts_in_range),
	    cmocka_unit_test(test_snapshot_fetch__tick_abandons_a_stalled_node),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
