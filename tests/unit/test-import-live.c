/* tests/unit/test-import-live.c: reconcile/import/import-live.c: one node
 * read live as candidates, and what is left out by rule: the broker's own
 * objects, auto-created and temporary ones, capture taps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "../../reconcile/import/import.h"
#include "recon-fixture.h"

struct run {
	struct import_node node;
	struct import_left *ex;
	size_t nex;
};

static void
run_live(struct run *r, struct fx *f, const char *prefix, bool include_auto)
{
	struct decl_settings s = {0};
	struct import_opts o = {include_auto};
	char def[] = DECL_DEFAULT_CAPTURE_PREFIX, *p = NULL;

	s.capture_prefix = def;
	if (prefix != NULL)
		s.capture_prefix = p = xstrdup(prefix);
	s.max_destroyed_messages = DECL_DEFAULT_MAX_DESTROYED;
	memset(r, 0, sizeof(*r));
	import_node_from_live(&r->node, &f->s.nodes[0], &s, &o, &r->ex,
	    &r->nex);
	free(p);
}

static void
run_release(struct run *r)
{
	size_t i;

	import_node_release(&r->node);
	for (i = 0; i < r->nex; i++)
		import_left_release(&r->ex[i]);
	free(r->ex);
}

/* Why kind/name was left out, or -1 when it was not (asserting it was
 * left out once only, by node broker-a). */
static int
why_of(const struct run *r, enum import_kind kind, const char *name)
{
	size_t i;
	int why = -1;

	for (i = 0; i < r->nex; i++) {
		if (r->ex[i].kind != kind || strcmp(r->ex[i].name, name) != 0)
			continue;
		assert_int_equal(why, -1);
		assert_int_equal(r->ex[i].nseen, 1);
		assert_string_equal(r->ex[i].seen[0].node, "broker-a");
		why = (int)r->ex[i].why;
	}
	return why;
}

static const struct decl_address *
cand_address(const struct run *r, const char *name)
{
	return decl_cluster_find_address(r->node.objects, name);
}

static const struct decl_queue *
cand_queue(const struct run *r, const char *name)
{
	return decl_cluster_find_queue(r->node.objects, name);
}

static void
test_import_live__shipped_dlq_and_expiry_are_the_brokers(void **state)
{
	struct fx f;
	struct run r;
	struct recon_queue *q;

	(void)state;
	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	fx_lqueue(&f, 0, "DLQ", "DLQ", 0, 0);
	fx_lqueue(&f, 0, "ExpiryQueue", "ExpiryQueue", 0, 0);
	fx_lqueue(&f, 0, "orders", "orders", 0, 0);
	run_live(&r, &f, NULL, false);
	assert_int_equal(why_of(&r, IMPORT_ADDRESS, "DLQ"), IMPORT_BROKER_OWN);
	assert_int_equal(why_of(&r, IMPORT_QUEUE, "DLQ"), IMPORT_BROKER_OWN);
	assert_int_equal(why_of(&r, IMPORT_ADDRESS, "ExpiryQueue"),
	    IMPORT_BROKER_OWN);
	assert_int_equal(why_of(&r, IMPORT_QUEUE, "ExpiryQueue"),
	    IMPORT_BROKER_OWN);
	assert_int_equal(why_of(&r, IMPORT_ADDRESS, "orders"), -1);
	assert_int_equal(r.nex, 4);
	assert_null(cand_address(&r, "DLQ"));
	assert_non_null(cand_queue(&r, "orders"));
	assert_string_equal(r.ex[0].seen[0].state, "the broker's own");
	run_release(&r);
	fx_free(&f);

	/* a DLQ with a filter (or any other setting changed) is the
	 * operator's: a candidate */
	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	q = fx_lqueue(&f, 0, "DLQ", "DLQ", 0, 0);
	q->filter = xstrdup("x = 1");
	q = fx_lqueue(&f, 0, "ExpiryQueue", "ExpiryQueue", 0, 0);
	q->max_consumers = 1;
	run_live(&r, &f, NULL, false);
	assert_int_equal(r.nex, 0);
	assert_non_null(cand_address(&r, "DLQ"));
	assert_non_null(cand_queue(&r, "DLQ"));
	assert_string_equal(cand_queue(&r, "DLQ")->filter, "x = 1");
	assert_non_null(cand_queue(&r, "ExpiryQueue"));
	run_release(&r);
	fx_free(&f);

	/* a DLQ address that also routes multicast, or holds a second
	 * queue, is not the shipped one either */
	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	fx_lqueue(&f, 0, "DLQ", "DLQ", 0, 0);
	fx_lqueue(&f, 0, "DLQ", "DLQ.mine", 0, 0);
	fx_laddress(&f, 0, "ExpiryQueue", DECL_ANYCAST | DECL_MULTICAST);
	fx_lqueue(&f, 0, "ExpiryQueue", "ExpiryQueue", 0, 0);
	run_live(&r, &f, NULL, false);
	assert_int_equal(r.nex, 0);
	assert_non_null(cand_queue(&r, "DLQ.mine"));
	assert_non_null(cand_queue(&r, "ExpiryQueue"));
	run_release(&r);
	fx_free(&f);
}

static void
test_import_live__notifications_sys_and_internal_are_the_brokers(void **state)
{
	struct fx f;
	struct run r;

	(void)state;
	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	fx_lqueue(&f, 0, "activemq.notifications", "notif-q", 0, 0);
	fx_lqueue(&f, 0, "$sys.mqtt.sessions", "$sys.mqtt.sessions", 0, 0);
	fx_lqueue(&f, 0, "orders", "orders", 0, 0);
	fx_lqueue(&f, 0, "orders", "orders.internal", 0, 0)->internal = true;
	fx_lqueue(&f, 0, "store", "store.q", 0, 0);
	fx_laddr_get(&f, 0, "store")->internal = true;
	run_live(&r, &f, NULL, false);
	assert_int_equal(why_of(&r, IMPORT_ADDRESS, "activemq.notifications"),
	    IMPORT_BROKER_OWN);
	assert_int_equal(why_of(&r, IMPORT_QUEUE, "notif-q"),
	    IMPORT_BROKER_OWN);
	assert_int_equal(why_of(&r, IMPORT_ADDRESS, "$sys.mqtt.sessions"),
	    IMPORT_BROKER_OWN);
	assert_int_equal(why_of(&r, IMPORT_QUEUE, "$sys.mqtt.sessions"),
	    IMPORT_BROKER_OWN);
	/* an internal queue goes; its address stays */
	assert_int_equal(why_of(&r, IMPORT_QUEUE, "orders.internal"),
	    IMPORT_BROKER_OWN);
	assert_int_equal(why_of(&r, IMPORT_ADDRESS, "orders"), -1);
	assert_non_null(cand_queue(&r, "orders"));
	/* an internal address goes with its queues */
	assert_int_equal(why_of(&r, IMPORT_ADDRESS, "store"),
	    IMPORT_BROKER_OWN);
	assert_int_equal(why_of(&r, IMPORT_QUEUE, "store.q"),
	    IMPORT_BROKER_OWN);
	assert_int_equal(r.nex, 7);
	assert_int_equal(r.node.objects->naddresses, 1);
	assert_int_equal(r.node.objects->addresses[0].nqueues, 1);
	run_release(&r);
	fx_free(&f);
}

static void
test_import_live__capture_taps_by_the_settings_prefix(void **state)
{
	struct fx f;
	struct run r;
	size_t i;

	(void)state;
	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	fx_lqueue(&f, 0, "orders", "orders", 0, 0);
	fx_lqueue(&f, 0, "orders", "__capture.k.orders", 0, 0);
	fx_lqueue(&f, 0, "orders", "tap.k.orders", 0, 0);
	fx_lqueue(&f, 0, "__capture.addr", "__capture.addr", 0, 0);
	fx_ldivert(&f, 0, "__capture.d", "orders", "orders");
	fx_ldivert(&f, 0, "tap.d", "orders", "orders");
	run_live(&r, &f, NULL, false);
	assert_int_equal(why_of(&r, IMPORT_QUEUE, "__capture.k.orders"),
	    IMPORT_CAPTURE);
	assert_int_equal(why_of(&r, IMPORT_ADDRESS, "__capture.addr"),
	    IMPORT_CAPTURE);
	assert_int_equal(why_of(&r, IMPORT_QUEUE, "__capture.addr"),
	    IMPORT_CAPTURE);
	assert_int_equal(why_of(&r, IMPORT_DIVERT, "__capture.d"),
	    IMPORT_CAPTURE);
	assert_int_equal(why_of(&r, IMPORT_QUEUE, "tap.k.orders"), -1);
	assert_int_equal(why_of(&r, IMPORT_DIVERT, "tap.d"), -1);
	assert_non_null(cand_queue(&r, "tap.k.orders"));
	assert_non_null(decl_cluster_find_divert(r.node.objects, "tap.d"));
	for (i = 0; i < r.nex; i++)
		assert_string_equal(r.ex[i].seen[0].state, "a capture tap");
	run_release(&r);

	/* a prefix of the cluster's own settings */
	run_live(&r, &f, "tap.", false);
	assert_int_equal(why_of(&r, IMPORT_QUEUE, "tap.k.orders"),
	    IMPORT_CAPTURE);
	assert_int_equal(why_of(&r, IMPORT_DIVERT, "tap.d"), IMPORT_CAPTURE);
	assert_int_equal(why_of(&r, IMPORT_QUEUE, "__capture.k.orders"), -1);
	assert_int_equal(why_of(&r, IMPORT_ADDRESS, "__capture.addr"), -1);
	assert_non_null(cand_queue(&r, "__capture.k.orders"));
	assert_non_null(
	    decl_cluster_find_divert(r.node.objects, "__capture.d"));
	assert_int_equal(r.nex, 2);
	run_release(&r);
	fx_free(&f);
}

static void
test_import_live__temporary_queues_and_their_addresses(void **state)
{
	struct fx f;
	struct run r;

	(void)state;
	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	fx_lqueue(&f, 0, "reply.1", "reply.1", 0, 0)->temporary = true;
	fx_lqueue(&f, 0, "reply.2", "reply.2a", 0, 0)->temporary = true;
	fx_lqueue(&f, 0, "reply.2", "reply.2b", 0, 0)->temporary = true;
	fx_lqueue(&f, 0, "mixed", "mixed.q", 0, 0);
	fx_lqueue(&f, 0, "mixed", "mixed.tmp", 0, 0)->temporary = true;
	run_live(&r, &f, NULL, false);
	assert_int_equal(why_of(&r, IMPORT_QUEUE, "reply.1"), IMPORT_TEMPORARY);
	assert_int_equal(why_of(&r, IMPORT_ADDRESS, "reply.1"),
	    IMPORT_TEMPORARY);
	assert_int_equal(why_of(&r, IMPORT_ADDRESS, "reply.2"),
	    IMPORT_TEMPORARY);
	assert_int_equal(why_of(&r, IMPORT_QUEUE, "reply.2a"),
	    IMPORT_TEMPORARY);
	assert_int_equal(why_of(&r, IMPORT_QUEUE, "reply.2b"),
	    IMPORT_TEMPORARY);
	/* one lasting queue keeps the address */
	assert_int_equal(why_of(&r, IMPORT_QUEUE, "mixed.tmp"),
	    IMPORT_TEMPORARY);
	assert_int_equal(why_of(&r, IMPORT_ADDRESS, "mixed"), -1);
	assert_non_null(cand_queue(&r, "mixed.q"));
	assert_null(cand_queue(&r, "mixed.tmp"));
	assert_int_equal(r.nex, 6);
	assert_string_equal(r.ex[0].seen[0].state, "temporary");
	run_release(&r);
	fx_free(&f);
}

static void
test_import_live__auto_created_unless_included(void **state)
{
	struct fx f;
	struct run r;
	size_t i;

	(void)state;
	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	fx_lqueue(&f, 0, "auto", "auto", 0, 0);
	fx_lqueue(&f, 0, "auto", "auto.2", 0, 0);
	fx_laddr_get(&f, 0, "auto")->auto_created = true;
	fx_lqueue(&f, 0, "orders", "orders", 0, 0);
	fx_lqueue(&f, 0, "orders", "orders.auto", 0, 0)->auto_created = true;
	fx_laddress(&f, 0, "empty.auto", DECL_MULTICAST);
	fx_laddr_get(&f, 0, "empty.auto")->auto_created = true;
	run_live(&r, &f, NULL, false);
	assert_int_equal(why_of(&r, IMPORT_ADDRESS, "auto"),
	    IMPORT_AUTO_CREATED);
	/* a queue is auto-created when its address is */
	assert_int_equal(why_of(&r, IMPORT_QUEUE, "auto"), IMPORT_AUTO_CREATED);
	assert_int_equal(why_of(&r, IMPORT_QUEUE, "auto.2"),
	    IMPORT_AUTO_CREATED);
	assert_int_equal(why_of(&r, IMPORT_QUEUE, "orders.auto"),
	    IMPORT_AUTO_CREATED);
	assert_int_equal(why_of(&r, IMPORT_ADDRESS, "empty.auto"),
	    IMPORT_AUTO_CREATED);
	assert_int_equal(why_of(&r, IMPORT_ADDRESS, "orders"), -1);
	assert_int_equal(r.nex, 5);
	for (i = 0; i < r.nex; i++)
		assert_string_equal(r.ex[i].seen[0].state, "auto-created");
	run_release(&r);

	run_live(&r, &f, NULL, true);
	assert_int_equal(r.nex, 0);
	assert_non_null(cand_address(&r, "auto"));
	assert_non_null(cand_address(&r, "empty.auto"));
	assert_non_null(cand_queue(&r, "auto.2"));
	assert_non_null(cand_queue(&r, "orders.auto"));
	run_release(&r);
	fx_free(&f);
}

static void
test_import_live__candidates_copy_the_settings(void **state)
{
	struct fx f;
	struct run r;
	struct recon_queue *q;
	struct recon_divert *d;
	const struct decl_queue *c;
	const struct decl_divert *cd;

	(void)state;
	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	q = fx_lqueue(&f, 0, "orders", "orders", 0, 0);
	q->filter = xstrdup(""); /* an empty filter is none */
	q->last_value_key = xstrdup("");
	q = fx_lqueue(&f, 0, "orders", "orders.lv", 0, 0);
	q->routing = DECL_MULTICAST;
	q->durable = false;
	q->filter = xstrdup("a = 'b'");
	q->max_consumers = 4;
	q->purge_on_no_consumers = true;
	q->exclusive = true;
	q->ring_size = 10;
	q->enabled = false;
	q->last_value_key = xstrdup("k");
	q->consumers_before_dispatch = 2;
	q->delay_before_dispatch = 30;
	fx_laddr_get(&f, 0, "orders")->routing = DECL_ANYCAST | DECL_MULTICAST;
	d = fx_ldivert(&f, 0, "audit", "orders", "orders");
	d->filter = xstrdup("");
	d->routing_type = DECL_DIVERT_PASS;
	d->exclusive = true;
	free(f.s.nodes[0].broker_version);
	f.s.nodes[0].broker_version = xstrdup("2.44.0");
	run_live(&r, &f, NULL, false);
	assert_int_equal(r.nex, 0);
	assert_string_equal(r.node.node, "broker-a");
	assert_string_equal(r.node.version, "2.44.0");
	assert_string_equal(r.node.source, "http://localhost/jolokia");
	assert_int_equal(cand_address(&r, "orders")->routing,
	    DECL_ANYCAST | DECL_MULTICAST);
	c = cand_queue(&r, "orders");
	assert_non_null(c);
	assert_null(c->filter);
	assert_null(c->last_value_key);
	assert_string_equal(c->address, "orders");
	c = cand_queue(&r, "orders.lv");
	assert_non_null(c);
	assert_int_equal(c->routing, DECL_MULTICAST);
	assert_false(c->durable);
	assert_string_equal(c->filter, "a = 'b'");
	assert_int_equal(c->max_consumers, 4);
	assert_true(c->purge_on_no_consumers);
	assert_true(c->exclusive);
	assert_int_equal(c->ring_size, 10);
	assert_false(c->enabled);
	assert_string_equal(c->last_value_key, "k");
	assert_int_equal(c->consumers_before_dispatch, 2);
	assert_int_equal(c->delay_before_dispatch, 30);
	cd = decl_cluster_find_divert(r.node.objects, "audit");
	assert_non_null(cd);
	assert_null(cd->filter);
	assert_null(cd->transformer_class_name);
	assert_int_equal(cd->routing_type, DECL_DIVERT_PASS);
	assert_true(cd->exclusive);
	assert_string_equal(cd->routing_name, "audit");
	run_release(&r);
	fx_free(&f);
}

/* A queue whose address the read does not list (a read between two
 * changes) cannot be declared. */
static void
test_import_live__queue_without_its_address(void **state)
{
	struct fx f;
	struct run r;
	struct recon_node_snapshot *n;

	(void)state;
	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	fx_lqueue(&f, 0, "gone", "orphan", 0, 0);
	fx_lqueue(&f, 0, "kept", "kept", 0, 0);
	n = &f.s.nodes[0];
	/* drop the address "gone" (the first, in name order) */
	free(n->addresses[0].name);
	fx_strs_free(n->addresses[0].queue_names, n->addresses[0].nqueue_names);
	fx_strs_free(n->addresses[0].binding_names,
	    n->addresses[0].nbinding_names);
	memmove(&n->addresses[0], &n->addresses[1], sizeof(n->addresses[0]));
	n->naddresses = 1;
	run_live(&r, &f, NULL, false);
	assert_int_equal(why_of(&r, IMPORT_QUEUE, "orphan"),
	    IMPORT_ADDRESS_OUT);
	assert_int_equal(r.nex, 1);
	assert_string_equal(r.ex[0].seen[0].state,
	    "its address is not on the broker");
	assert_non_null(cand_queue(&r, "kept"));
	run_release(&r);
	fx_free(&f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(
	        test_import_live__shipped_dlq_and_expiry_are_the_brokers),
	    cmocka_unit_test(
	        test_import_live__notifications_sys_and_internal_are_the_brokers),
	    cmocka_unit_test(
	        test_import_live__capture_taps_by_the_settings_prefix),
	    cmocka_unit_test(
	        test_import_live__temporary_queues_and_their_addresses),
	    cmocka_unit_test(test_import_live__auto_created_unless_included),
	    cmocka_unit_test(test_import_live__candidates_copy_the_settings),
	    cmocka_unit_test(test_import_live__queue_without_its_address),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
