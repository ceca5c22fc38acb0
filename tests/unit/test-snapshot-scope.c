/* tests/unit/test-snapshot-scope.c: reconcile/live/snapshot-scope.c: a
 * scope's queues merged; the shape a read takes (by name, or every queue by
 * pattern); the elements it sends; what the replies give the node (a
 * queue of the scope whole, the others by identity, unread); the queues a
 * second request reads (found elsewhere, or on a broker of another name);
 * refusals; a recording narrowed as a scoped read reads it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/json.h"
#include "../../lib/sbuf.h"
#include "jolokia-fixture.h"

#define D "org.apache.activemq.artemis:"
#define QMBEAN(addr, rt, q)                                                    \
	D "address=\\\"" addr "\\\",broker=\\\"node1\\\",component=addresses," \
	  "queue=\\\"" q "\\\",routing-type=\\\"" rt                           \
	  "\\\",subcomponent=queues"

static void
test_snapshot_scope__merged_and_found(void **state)
{
	struct live_scope s = {0};
	const struct live_scope_queue *q;

	(void)state;
	live_scope_add(&s, "b", "B", DECL_ANYCAST);
	live_scope_add(&s, "a", NULL, 0);
	live_scope_add(&s, "b", "B", DECL_ANYCAST); /* the same place */
	live_scope_add(&s, "b", "C", DECL_MULTICAST);
	live_scope_add(&s, "a", "A", DECL_ANYCAST);
	live_scope_add(&s, "b", "D", DECL_ANYCAST);
	live_scope_add(&s, "b", "E", DECL_ANYCAST); /* a fourth: dropped */
	live_scope_finish(&s);
	assert_int_equal(s.nqueues, 2);
	q = live_scope_find(&s, "a");
	assert_non_null(q);
	assert_int_equal(q->nat, 1);
	assert_string_equal(q->address[0], "A");
	q = live_scope_find(&s, "b");
	assert_int_equal(q->nat, LIVE_SCOPE_GUESSES);
	assert_string_equal(q->address[1], "C");
	assert_int_equal(q->routing[1], DECL_MULTICAST);
	assert_null(live_scope_find(&s, "c"));
	assert_null(live_scope_find(NULL, "a"));
	live_scope_release(&s);
	assert_int_equal(s.nqueues, 0);
}

static void
test_snapshot_scope__shape(void **state)
{
	struct live_scope s = {0};
	size_t i;
	char name[16];

	(void)state;
	for (i = 0; i < LIVE_READ_EXACT_COLD; i++) {
		snprintf(name, sizeof(name), "q%04zu", i);
		live_scope_add(&s, name, "a", DECL_ANYCAST);
	}
	live_scope_finish(&s);
	/* no hint: by name up to LIVE_READ_EXACT_COLD */
	assert_true(live_read_exact(&s, 0));
	/* a hint: by name while the scope is at most half of the queues */
	assert_true(live_read_exact(&s, 2 * LIVE_READ_EXACT_COLD));
	assert_false(live_read_exact(&s, 2 * LIVE_READ_EXACT_COLD - 1));
	live_scope_add(&s, "z", "a", DECL_ANYCAST);
	live_scope_finish(&s);
	assert_false(live_read_exact(&s, 0));
	assert_true(live_read_exact(&s, 100000));
	live_scope_release(&s);
}

/* The attribute list of element i of b, as one comma-separated line. */
static char *
attrs_of(const struct live_bulk *b, size_t i)
{
	struct json_doc *doc = NULL;
	struct err err = {0};
	struct sbuf out = {0};
	const struct json *e, *a;
	char *text = xasprintf("%s]", b->body.buf);
	size_t k = 0;

	assert_int_equal(json_parse(&doc, "body", text, strlen(text), &err), 0);
	for (e = json_first(json_doc_root(doc)); k < i; e = json_next(e))
		k++;
	sbuf_adds(&out, json_str(json_get(e, "mbean")));
	for (a = json_first(json_get(e, "attribute")); a != NULL;
	     a = json_next(a))
		sbuf_addf(&out, " %s", json_str(a));
	json_doc_free(doc);
	free(text);
	return sbuf_take(&out);
}

static void
test_snapshot_scope__elements(void **state)
{
	struct live_scope s = {0};
	struct live_read rd = {0};
	struct live_bulk b = {0};
	char *a;

	(void)state;
	live_scope_add(&s, "q1", "a1", DECL_ANYCAST);
	live_scope_add(&s, "q1", "a2", DECL_MULTICAST);
	live_scope_add(&s, "q2", NULL, 0); /* no place: not read by name */
	live_scope_add(&s, "x*?", "a\"", DECL_ANYCAST);
	live_scope_finish(&s);
	rd.scope = &s;
	rd.exact = true;
	rd.broker = xstrdup("node1");
	live_read_build(&b, &rd, "node1");
	assert_int_equal(b.n, 8);
	assert_int_equal(rd.first, 5);
	assert_int_equal(rd.nexact, 3);
	a = attrs_of(&b, 2);
	assert_string_equal(a, D "broker=*,component=addresses,address=*,"
	                         "subcomponent=queues,routing-type=*,queue=* "
	                         "InternalQueue Temporary");
	free(a);
	a = attrs_of(&b, 6);
	assert_string_equal(a,
	    D "broker=\"node1\",component=addresses,address=\"a2\","
	      "subcomponent=queues,routing-type=\"multicast\",queue=\"q1\" "
	      "Durable Filter MaxConsumers PurgeOnNoConsumers Exclusive "
	      "RingSize Enabled LastValueKey ConsumersBeforeDispatch "
	      "DelayBeforeDispatch ConsumerCount MessageCount");
	free(a);
	/* a name with the pattern characters is read by name, quoted */
	assert_false(b.pattern[7]);
	a = attrs_of(&b, 7);
	assert_non_null(strstr(a, "address=\"a\\\"\""));
	assert_non_null(strstr(a, "queue=\"x\\*\\?\""));
	free(a);
	live_bulk_release(&b);
	live_read_release(&rd);
	/* every queue by pattern, with what a reload prediction weighs */
	s.reload = true;
	rd.scope = &s;
	rd.exact = false;
	rd.broker = xstrdup("node1");
	live_read_build(&b, &rd, "node1");
	assert_int_equal(b.n, 5);
	a = attrs_of(&b, 2);
	assert_string_equal(a,
	    D "broker=*,component=addresses,address=*,"
	      "subcomponent=queues,routing-type=*,queue=* "
	      "InternalQueue Temporary ConfigurationManaged "
	      "MessageCount Durable Filter MaxConsumers "
	      "PurgeOnNoConsumers Exclusive RingSize Enabled "
	      "LastValueKey ConsumersBeforeDispatch "
	      "DelayBeforeDispatch ConsumerCount");
	free(a);
	live_bulk_release(&b);
	live_read_release(&rd);
	live_scope_release(&s);
}

/* The reply's first five elements: broker node1 2.44.0, addresses a1
 * and u, queues q1 (at a1) and u1 (at u) by identity, no divert, the
 * settings; then rest (the exact elements' replies). */
#define HEAD                                                                   \
	"[{\"status\":200,\"value\":{\"" D "broker=\\\"node1\\\"\":"           \
	"{\"Version\":\"2.44.0\",\"Active\":true,\"Backup\":false}}},"         \
	"{\"status\":200,\"value\":{}},"                                       \
	"{\"status\":200,\"value\":{\"" QMBEAN("a1", "anycast",                \
	    "q1") "\":{\"InternalQueue\":false,\"Temporary\":false},"          \
	          "\"" QMBEAN("u", "anycast",                                  \
	              "u1") "\":{\"InternalQueue\":true,"                      \
	                    "\"Temporary\":false}}},"                          \
	                    "{\"status\":404,\"error\":\"x\"},"                \
	                    "{\"status\":200,\"value\":\"{\\\"configDeleteQueues\\\":\\\"OFF\\\"}\"}"
#define Q1_WHOLE                                                               \
	"{\"status\":200,\"value\":{\"Durable\":false,\"Filter\":\"x > 1\","   \
	"\"MaxConsumers\":5,\"RingSize\":-1,\"ConsumerCount\":2,"              \
	"\"MessageCount\":7}}"
#define NO_MBEAN                                                               \
	"{\"status\":404,\"error_type\":"                                      \
	"\"javax.management.InstanceNotFoundException\",\"error\":\"x\"}"

/* n read by rd (scope s: q1 expected at a1 anycast, or at a2 when
 * moved; on the broker named hint) from reply. */
static void
read_node_of(struct recon_node_snapshot *n, struct live_read *rd,
    struct live_scope *s, bool moved, const char *hint, const char *reply)
{
	struct live_bulk b = {0};
	struct recon_refusal r = {0};
	char *text = xstrdup(reply);

	memset(s, 0, sizeof(*s));
	if (moved)
		live_scope_add(s, "q1", "a2", DECL_ANYCAST);
	else
		live_scope_add(s, "q1", "a1", DECL_ANYCAST);
	live_scope_finish(s);
	memset(rd, 0, sizeof(*rd));
	rd->scope = s;
	rd->exact = true;
	rd->broker = xstrdup(hint);
	live_read_build(&b, rd, hint);
	assert_int_equal(live_bulk_parse_reply(&b, 200, text, strlen(text), &r),
	    0);
	memset(n, 0, sizeof(*n));
	live_node_from_read(n, &b, rd);
	live_bulk_release(&b);
	free(text);
}

static void
read_node(struct recon_node_snapshot *n, struct live_read *rd,
    struct live_scope *s, bool moved, const char *reply)
{
	read_node_of(n, rd, s, moved, "node1", reply);
}

static void
test_snapshot_scope__scope_whole_others_identity(void **state)
{
	struct recon_node_snapshot n;
	struct live_scope s;
	struct live_read rd;
	struct live_bulk again = {0};
	struct live_read rd2;
	const struct recon_queue *q;

	(void)state;
	read_node(&n, &rd, &s, false, HEAD "," Q1_WHOLE "]");
	assert_int_equal(n.refusal.kind, RECON_OK);
	assert_int_equal(n.nqueues, 2);
	q = recon_node_find_queue(&n, "q1");
	assert_int_equal(q->unread, 0);
	assert_false(q->durable);
	assert_string_equal(q->filter, "x > 1");
	assert_int_equal(q->max_consumers, 5);
	assert_int_equal(q->consumer_count, 2);
	assert_int_equal(q->message_count, 7);
	assert_string_equal(q->address, "a1");
	q = recon_node_find_queue(&n, "u1");
	assert_int_equal(q->unread, RECON_QUEUE_UNREAD);
	assert_true(q->internal);
	assert_true(q->durable); /* the default, not read */
	assert_int_equal(q->max_consumers, -1);
	assert_int_equal(q->consumer_count, 0);
	assert_string_equal(q->address, "u");
	assert_int_equal(n.naddress_settings, 1);
	/* nothing to read again */
	assert_int_equal(live_read_add_misses(&again, &rd2, &n, &rd), 0);
	live_read_release(&rd2);
	live_bulk_release(&again);
	live_node_release(&n);
	live_read_release(&rd);
	live_scope_release(&s);
}

static void
test_snapshot_scope__elsewhere_read_again(void **state)
{
	struct recon_node_snapshot n;
	struct live_scope s;
	struct live_read rd, rd2;
	struct live_bulk again = {0};
	struct recon_refusal r = {0};
	char *a, *text;

	(void)state;
	/* looked for at a2, found at a1: no such MBean there */
	read_node(&n, &rd, &s, true, HEAD "," NO_MBEAN "]");
	assert_int_equal(n.refusal.kind, RECON_OK);
	assert_int_equal(recon_node_find_queue(&n, "q1")->unread,
	    RECON_QUEUE_UNREAD);
	assert_int_equal(live_read_add_misses(&again, &rd2, &n, &rd), 1);
	assert_int_equal(rd2.first, 0);
	a = attrs_of(&again, 0);
	assert_non_null(strstr(a, "address=\"a1\""));
	assert_non_null(strstr(a, "broker=\"node1\""));
	free(a);
	text = xstrdup("[" Q1_WHOLE "]");
	assert_int_equal(
	    live_bulk_parse_reply(&again, 200, text, strlen(text), &r), 0);
	assert_int_equal(live_read_apply(&n, &again, &rd2, &r), 0);
	assert_int_equal(recon_node_find_queue(&n, "q1")->unread, 0);
	assert_int_equal(recon_node_find_queue(&n, "q1")->message_count, 7);
	free(text);
	live_read_release(&rd2);
	live_bulk_release(&again);
	live_node_release(&n);
	live_read_release(&rd);
	live_scope_release(&s);
}

static void
test_snapshot_scope__gone_between_reads_dropped(void **state)
{
	struct recon_node_snapshot n;
	struct live_scope s;
	struct live_read rd;

	(void)state;
	/* at its place when the identity was read, gone for its read */
	read_node(&n, &rd, &s, false, HEAD "," NO_MBEAN "]");
	assert_non_null(recon_node_find_queue(&n, "q1"));
	live_read_drop_unread(&n, &s);
	live_node_sort(&n);
	assert_null(recon_node_find_queue(&n, "q1"));
	assert_non_null(recon_node_find_queue(&n, "u1")); /* not in scope */
	live_node_release(&n);
	live_read_release(&rd);
	live_scope_release(&s);
}

static void
test_snapshot_scope__refused_element_refuses_the_node(void **state)
{
	struct recon_node_snapshot n;
	struct live_scope s;
	struct live_read rd;

	(void)state;
	read_node(&n, &rd, &s, false,
	    HEAD ",{\"status\":403,\"error\":\"denied\"}]");
	assert_int_equal(n.refusal.kind, RECON_FORBIDDEN);
	assert_non_null(strstr(n.refusal.text, "queue 'q1'"));
	assert_int_equal(n.nqueues, 0);
	live_node_release(&n);
	live_read_release(&rd);
	live_scope_release(&s);
	/* a missing attribute (not a missing MBean) is the node's too */
	read_node(&n, &rd, &s, false,
	    HEAD ",{\"status\":404,\"error_type\":"
	         "\"javax.management.AttributeNotFoundException\","
	         "\"error\":\"No such attribute: Enabled\"}]");
	assert_int_equal(n.refusal.kind, RECON_NOT_FOUND);
	live_node_release(&n);
	live_read_release(&rd);
	live_scope_release(&s);
	/* an attribute of the wrong type */
	read_node(&n, &rd, &s, false,
	    HEAD ",{\"status\":200,\"value\":{\"Durable\":\"yes\"}}]");
	assert_int_equal(n.refusal.kind, RECON_BAD_RESPONSE);
	assert_non_null(strstr(n.refusal.text, "Durable"));
	live_node_release(&n);
	live_read_release(&rd);
	live_scope_release(&s);
}

static void
test_snapshot_scope__another_broker_name(void **state)
{
	struct recon_node_snapshot n;
	struct live_scope s;
	struct live_read rd, rd2;
	struct live_bulk again = {0};
	char *a;

	(void)state;
	/* asked of broker "nodeX" by the hint; the broker read is node1:
	 * whatever the exact element says is not the queue's */
	read_node_of(&n, &rd, &s, false, "nodeX", HEAD "," Q1_WHOLE "]");
	assert_int_equal(recon_node_find_queue(&n, "q1")->unread,
	    RECON_QUEUE_UNREAD);
	assert_int_equal(live_read_add_misses(&again, &rd2, &n, &rd), 1);
	a = attrs_of(&again, 0);
	assert_non_null(strstr(a, "broker=\"node1\""));
	free(a);
	live_read_release(&rd2);
	live_bulk_release(&again);
	live_node_release(&n);
	live_read_release(&rd);
	live_scope_release(&s);
}

static void
test_snapshot_scope__narrow(void **state)
{
	struct recon_node_snapshot n = {0};
	struct live_scope s = {0};
	struct recon_queue *q;

	(void)state;
	n.queues = xcalloc(3, sizeof(*n.queues));
	n.nqueues = 2;
	n.queues[0].name = xstrdup("a");
	n.queues[1].name = xstrdup("b");
	for (q = n.queues; q < n.queues + 2; q++) {
		q->address = xstrdup("x");
		q->filter = xstrdup("f > 1");
		q->durable = false;
		q->max_consumers = 3;
		q->consumer_count = 4;
		q->message_count = 5;
		q->configuration_managed = true;
	}
	live_scope_add(&s, "a", "x", DECL_ANYCAST);
	live_scope_finish(&s);
	live_node_narrow(&n, &s);
	assert_int_equal(n.queues[0].unread, 0);
	assert_string_equal(n.queues[0].filter, "f > 1");
	assert_int_equal(n.queues[1].unread, RECON_QUEUE_UNREAD);
	assert_null(n.queues[1].filter);
	assert_true(n.queues[1].durable);
	assert_int_equal(n.queues[1].max_consumers, -1);
	assert_int_equal(n.queues[1].consumer_count, 0);
	assert_int_equal(n.queues[1].message_count, 0);
	assert_false(n.queues[1].configuration_managed);
	assert_string_equal(n.queues[1].address, "x");
	/* a reload scope keeps what the prediction weighs of every queue */
	n.queues[1].message_count = 5;
	n.queues[1].configuration_managed = true;
	s.reload = true;
	live_node_narrow(&n, &s);
	assert_int_equal(n.queues[1].message_count, 5);
	assert_true(n.queues[1].configuration_managed);
	live_scope_release(&s);
	live_node_release(&n);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_snapshot_scope__merged_and_found),
	    cmocka_unit_test(test_snapshot_scope__shape),
	    cmocka_unit_test(test_snapshot_scope__elements),
	    cmocka_unit_test(test_snapshot_scope__scope_whole_others_identity),
	    cmocka_unit_test(test_snapshot_scope__elsewhere_read_again),
	    cmocka_unit_test(test_snapshot_scope__gone_between_reads_dropped),
	    cmocka_unit_test(
	        test_snapshot_scope__refused_element_refuses_the_node),
	    cmocka_unit_test(test_snapshot_scope__another_broker_name),
	    cmocka_unit_test(test_snapshot_scope__narrow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
