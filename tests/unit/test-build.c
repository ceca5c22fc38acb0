/* tests/unit/test-build.c: declarations/build.c: a model built in memory
 * (what import makes): the defaults a new cluster, queue and divert start
 * from, adds that copy what they are given, and the comparisons import
 * decides "alike" with. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../declarations/decl.h"
#include "../../lib/xalloc.h"

static void
test_build__new_cluster_has_the_defaults(void **state)
{
	struct decl_cluster *c =
	    decl_cluster_new("shop-eu", DECL_CONFIG_MANAGED);

	(void)state;
	assert_string_equal(c->name, "shop-eu");
	assert_string_equal(c->dir, "shop-eu");
	assert_int_equal(c->version, DECL_VERSION_MAX);
	assert_int_equal(c->mode, DECL_CONFIG_MANAGED);
	assert_string_equal(c->settings.capture_prefix,
	    DECL_DEFAULT_CAPTURE_PREFIX);
	assert_int_equal(c->settings.max_destroyed_messages,
	    DECL_DEFAULT_MAX_DESTROYED);
	assert_int_equal(c->nnodes + c->naddresses + c->ndiverts + c->ncaptures,
	    0);
	decl_cluster_free(c);
}

static void
test_build__queue_and_divert_init_are_the_defaults(void **state)
{
	struct decl_queue q;
	struct decl_divert d;

	(void)state;
	memset(&q, 0x5a, sizeof(q));
	decl_queue_init(&q);
	assert_null(q.name);
	assert_null(q.filter);
	assert_null(q.last_value_key);
	assert_true(q.durable);
	assert_int_equal(q.max_consumers, -1);
	assert_false(q.purge_on_no_consumers);
	assert_false(q.exclusive);
	assert_int_equal(q.ring_size, -1);
	assert_true(q.enabled);
	assert_int_equal(q.consumers_before_dispatch, 0);
	assert_int_equal(q.delay_before_dispatch, -1);
	memset(&d, 0x5a, sizeof(d));
	decl_divert_init(&d);
	assert_null(d.name);
	assert_null(d.address);
	assert_null(d.forwarding_address);
	assert_null(d.filter);
	assert_null(d.routing_name);
	assert_null(d.transformer_class_name);
	assert_null(d.transformer_properties);
	assert_int_equal(d.ntransformer_properties, 0);
	assert_false(d.exclusive);
	assert_int_equal(d.routing_type, DECL_DIVERT_STRIP);
}

static void
test_build__settings_copy_and_default_prefix(void **state)
{
	struct decl_cluster *c = decl_cluster_new("c", DECL_STUDIO_MANAGED);
	struct decl_settings s = {0};
	char prefix[] = "tap.";

	(void)state;
	s.capture_prefix = prefix;
	s.max_destroyed_messages = 7;
	decl_cluster_set_settings(c, &s);
	prefix[0] = 'X'; /* a copy was taken */
	assert_string_equal(c->settings.capture_prefix, "tap.");
	assert_int_equal(c->settings.max_destroyed_messages, 7);
	s.capture_prefix = NULL; /* NULL: the default prefix */
	decl_cluster_set_settings(c, &s);
	assert_string_equal(c->settings.capture_prefix,
	    DECL_DEFAULT_CAPTURE_PREFIX);
	decl_cluster_free(c);
}

static void
test_build__node_is_copied_with_its_members(void **state)
{
	struct decl_cluster *c = decl_cluster_new("c", DECL_STUDIO_MANAGED);
	struct decl_member m[2] = {
	    {{0}, xstrdup("a"), xstrdup("http://a/jolokia"), NULL},
	    {{0}, xstrdup("b"), xstrdup("http://b/jolokia"), xstrdup("b")},
	};
	struct decl_node n = {{0}, xstrdup("node1"), NULL, xstrdup("creds"), m,
	    2};
	struct decl_node plain = {{0}, xstrdup("node2"),
	    xstrdup("http://n2/jolokia"), xstrdup("n2"), NULL, 0};
	size_t i;

	(void)state;
	decl_cluster_add_node(c, &n);
	decl_cluster_add_node(c, &plain);
	/* what was given is freed: the cluster holds copies */
	for (i = 0; i < 2; i++) {
		free(m[i].name);
		free(m[i].jolokia);
		free(m[i].credentials);
	}
	free(n.name);
	free(n.credentials);
	free(plain.name);
	free(plain.jolokia);
	free(plain.credentials);
	assert_int_equal(c->nnodes, 2);
	assert_string_equal(c->nodes[0].name, "node1");
	assert_null(c->nodes[0].jolokia);
	assert_string_equal(c->nodes[0].credentials, "creds");
	assert_int_equal(c->nodes[0].nmembers, 2);
	assert_string_equal(c->nodes[0].members[0].name, "a");
	assert_string_equal(c->nodes[0].members[0].jolokia, "http://a/jolokia");
	assert_null(c->nodes[0].members[0].credentials);
	assert_string_equal(c->nodes[0].members[1].credentials, "b");
	assert_string_equal(c->nodes[1].jolokia, "http://n2/jolokia");
	assert_int_equal(c->nodes[1].nmembers, 0);
	assert_null(c->nodes[1].members);
	assert_non_null(decl_cluster_find_node(c, "node2"));
	assert_null(decl_cluster_find_node(c, "node3"));
	decl_cluster_free(c);
}

static void
test_build__queue_is_copied_into_its_address(void **state)
{
	struct decl_cluster *c = decl_cluster_new("c", DECL_STUDIO_MANAGED);
	struct decl_queue q;
	char name[] = "orders", filter[] = "region = 'EU'", lvk[] = "k";
	size_t a0, a1;

	(void)state;
	a0 = decl_cluster_add_address(c, "orders", DECL_ANYCAST);
	a1 =
	    decl_cluster_add_address(c, "audit", DECL_ANYCAST | DECL_MULTICAST);
	assert_int_equal(a0, 0);
	assert_int_equal(a1, 1);
	decl_queue_init(&q);
	q.name = name;
	q.address = "not-this-one"; /* ignored: the address's name */
	q.routing = DECL_ANYCAST;
	q.filter = filter;
	q.last_value_key = lvk;
	q.max_consumers = 3;
	decl_cluster_add_queue(c, a0, &q);
	name[0] = 'X';
	filter[0] = 'X';
	lvk[0] = 'X';
	assert_int_equal(c->addresses[0].nqueues, 1);
	assert_int_equal(c->addresses[1].nqueues, 0);
	assert_string_equal(c->addresses[0].queues[0].name, "orders");
	assert_ptr_equal(c->addresses[0].queues[0].address,
	    c->addresses[0].name);
	assert_string_equal(c->addresses[0].queues[0].filter, "region = 'EU'");
	assert_string_equal(c->addresses[0].queues[0].last_value_key, "k");
	assert_int_equal(c->addresses[0].queues[0].max_consumers, 3);
	assert_int_equal(c->addresses[1].routing,
	    DECL_ANYCAST | DECL_MULTICAST);
	decl_cluster_free(c);
}

/* Every add drops the lookup index, so a find after more adds still
 * sees them (and does not read a freed array). */
static void
test_build__finds_see_every_add(void **state)
{
	struct decl_cluster *c = decl_cluster_new("c", DECL_STUDIO_MANAGED);
	struct decl_queue q;
	struct decl_divert d;
	char name[32];
	size_t i, ai;

	(void)state;
	decl_queue_init(&q);
	q.routing = DECL_ANYCAST;
	decl_divert_init(&d);
	for (i = 0; i < 40; i++) {
		snprintf(name, sizeof(name), "a%02zu", 39 - i);
		ai = decl_cluster_add_address(c, name, DECL_ANYCAST);
		q.name = name;
		name[0] = 'q';
		decl_cluster_add_queue(c, ai, &q);
		name[0] = 'd';
		d.name = name;
		d.address = name;
		d.forwarding_address = name;
		decl_cluster_add_divert(c, &d);
		name[0] = 'a';
		assert_non_null(decl_cluster_find_address(c, name));
		name[0] = 'q';
		assert_non_null(decl_cluster_find_queue(c, name));
		assert_string_equal(decl_cluster_find_queue(c, name)->address,
		    c->addresses[ai].name);
		name[0] = 'd';
		assert_non_null(decl_cluster_find_divert(c, name));
	}
	assert_non_null(decl_cluster_find_address(c, "a39"));
	assert_non_null(decl_cluster_find_queue(c, "q00"));
	assert_null(decl_cluster_find_queue(c, "a00"));
	assert_null(decl_cluster_find_address(c, "a40"));
	assert_null(decl_cluster_find_divert(c, "q00"));
	decl_cluster_free(c);
}

static void
test_build__divert_is_copied_deeply(void **state)
{
	struct decl_cluster *c = decl_cluster_new("c", DECL_STUDIO_MANAGED);
	struct decl_kv kv[2] = {{xstrdup("k1"), xstrdup("v1")},
	    {xstrdup("k2"), NULL}};
	struct decl_divert d;
	const struct decl_divert *e;

	(void)state;
	decl_divert_init(&d);
	d.name = xstrdup("audit");
	d.address = xstrdup("orders");
	d.forwarding_address = xstrdup("audit");
	d.filter = xstrdup("a = 1");
	d.routing_name = xstrdup("r");
	d.transformer_class_name = xstrdup("com.example.T");
	d.transformer_properties = kv;
	d.ntransformer_properties = 2;
	d.exclusive = true;
	d.routing_type = DECL_DIVERT_PASS;
	decl_cluster_add_divert(c, &d);
	free(d.name);
	free(d.address);
	free(d.forwarding_address);
	free(d.filter);
	free(d.routing_name);
	free(d.transformer_class_name);
	free(kv[0].key);
	free(kv[0].value);
	free(kv[1].key);
	e = &c->diverts[0];
	assert_string_equal(e->name, "audit");
	assert_string_equal(e->address, "orders");
	assert_string_equal(e->forwarding_address, "audit");
	assert_string_equal(e->filter, "a = 1");
	assert_string_equal(e->routing_name, "r");
	assert_string_equal(e->transformer_class_name, "com.example.T");
	assert_true(e->exclusive);
	assert_int_equal(e->routing_type, DECL_DIVERT_PASS);
	assert_int_equal(e->ntransformer_properties, 2);
	assert_ptr_not_equal(e->transformer_properties, kv);
	assert_string_equal(e->transformer_properties[0].key, "k1");
	assert_string_equal(e->transformer_properties[0].value, "v1");
	assert_string_equal(e->transformer_properties[1].key, "k2");
	assert_null(e->transformer_properties[1].value);
	decl_cluster_free(c);
}

/* writable strings for the char * fields (-Wwrite-strings) */
static char S_A[] = "a";
static char S_B[] = "b";
static char S_D[] = "d";
static char S_DST[] = "dst";
static char S_E[] = "e";
static char S_EMPTY[] = "";
static char S_J[] = "j";
static char S_K[] = "k";
static char S_L[] = "l";
static char S_OTHER[] = "other";
static char S_Q[] = "q";
static char S_R[] = "r";
static char S_SRC[] = "src";
static char S_T[] = "T";
static char S_V[] = "v";
static char S_W[] = "w";
static char S_X1[] = "x = 1";
static char S_X2[] = "x = 2";

static void
queue_base(struct decl_queue *q)
{
	decl_queue_init(q);
	q->name = S_Q;
	q->address = S_A;
	q->routing = DECL_ANYCAST;
}

static void
test_build__queue_same_compares_every_setting(void **state)
{
	struct decl_queue a, b;
	int i;

	(void)state;
	queue_base(&a);
	queue_base(&b);
	assert_true(decl_queue_same(&a, &b));
	/* NULL and S_EMPTY alike */
	b.filter = S_EMPTY;
	b.last_value_key = S_EMPTY;
	assert_true(decl_queue_same(&a, &b));
	assert_true(decl_queue_same(&b, &a));
	for (i = 0; i < 13; i++) {
		queue_base(&b);
		switch (i) {
		case 0:
			b.name = S_R;
			break;
		case 1:
			b.address = S_B;
			break;
		case 2:
			b.routing = DECL_MULTICAST;
			break;
		case 3:
			b.durable = false;
			break;
		case 4:
			b.filter = S_X1;
			break;
		case 5:
			b.max_consumers = 1;
			break;
		case 6:
			b.purge_on_no_consumers = true;
			break;
		case 7:
			b.exclusive = true;
			break;
		case 8:
			b.ring_size = 10;
			break;
		case 9:
			b.enabled = false;
			break;
		case 10:
			b.last_value_key = S_K;
			break;
		case 11:
			b.consumers_before_dispatch = 2;
			break;
		default:
			b.delay_before_dispatch = 5;
			break;
		}
		if (decl_queue_same(&a, &b) || decl_queue_same(&b, &a))
			fail_msg("queues differing in setting %d taken alike",
			    i);
	}
	/* two filters, both set, that differ */
	a.filter = S_X1;
	b.filter = S_X2;
	assert_false(decl_queue_same(&a, &b));
}

static void
divert_base(struct decl_divert *d, struct decl_kv *kv)
{
	decl_divert_init(d);
	d->name = S_D;
	d->address = S_SRC;
	d->forwarding_address = S_DST;
	d->transformer_properties = kv;
	d->ntransformer_properties = 1;
}

static void
test_build__divert_same_compares_every_setting(void **state)
{
	struct decl_kv kv1 = {S_K, S_V}, kv2 = {S_K, S_W}, kv3 = {S_J, S_V},
	               kv4 = {S_K, NULL}, kv5 = {S_K, S_EMPTY};
	struct decl_kv two[2] = {{S_K, S_V}, {S_L, S_V}};
	struct decl_divert a, b;
	int i;

	(void)state;
	divert_base(&a, &kv1);
	divert_base(&b, &kv1);
	assert_true(decl_divert_same(&a, &b));
	/* the routing name defaults to the divert's name */
	b.routing_name = S_D;
	assert_true(decl_divert_same(&a, &b));
	assert_true(decl_divert_same(&b, &a));
	/* a property's NULL and S_EMPTY alike */
	a.transformer_properties = &kv4;
	b.transformer_properties = &kv5;
	assert_true(decl_divert_same(&a, &b));
	divert_base(&a, &kv1);
	for (i = 0; i < 12; i++) {
		divert_base(&b, &kv1);
		switch (i) {
		case 0:
			b.name = S_E;
			break;
		case 1:
			b.address = S_OTHER;
			break;
		case 2:
			b.forwarding_address = S_OTHER;
			break;
		case 3:
			b.exclusive = true;
			break;
		case 4:
			b.filter = S_X1;
			break;
		case 5:
			b.routing_type = DECL_DIVERT_PASS;
			break;
		case 6:
			b.routing_name = S_R;
			break;
		case 7:
			b.transformer_class_name = S_T;
			break;
		case 8:
			b.transformer_properties = &kv2;
			break;
		case 9:
			b.transformer_properties = &kv3;
			break;
		case 10:
			b.ntransformer_properties = 0;
			break;
		default:
			b.transformer_properties = two;
			b.ntransformer_properties = 2;
			break;
		}
		if (decl_divert_same(&a, &b) || decl_divert_same(&b, &a))
			fail_msg("diverts differing in setting %d taken alike",
			    i);
	}
	/* a renamed divert whose routing name stayed the old name */
	divert_base(&b, &kv1);
	b.name = S_E;
	b.routing_name = S_D;
	assert_false(decl_divert_same(&a, &b));
}

static void
test_build__object_name_problem_is_the_loaders_rule(void **state)
{
	static const char *const ok[] = {"orders", "a b", "a b c", "日本",
	    "x:y", "#", "-", "🎉", "a\"b"};
	static const char *const bad[] = {"", " a", "a ", "a  b", "a,b", "a\tb",
	    "a\nb", "a\x7f",
	    "a\xe2\x80\xa8"
	    "b",
	    "\xff"};
	char longest[257];
	char *p;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		p = decl_object_name_problem(ok[i]);
		if (p != NULL)
			fail_msg("'%s' refused: %s", ok[i], p);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		p = decl_object_name_problem(bad[i]);
		if (p == NULL)
			fail_msg("bad name %zu taken", i);
		free(p);
	}
	memset(longest, 'n', 255);
	longest[255] = '\0';
	assert_null(decl_object_name_problem(longest));
	longest[255] = 'n';
	longest[256] = '\0';
	p = decl_object_name_problem(longest);
	assert_non_null(p);
	assert_non_null(strstr(p, "255"));
	free(p);
	p = decl_object_name_problem("a  b");
	assert_string_equal(p, "contains two spaces in a row");
	free(p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_build__new_cluster_has_the_defaults),
	    cmocka_unit_test(
	        test_build__queue_and_divert_init_are_the_defaults),
	    cmocka_unit_test(test_build__settings_copy_and_default_prefix),
	    cmocka_unit_test(test_build__node_is_copied_with_its_members),
	    cmocka_unit_test(test_build__queue_is_copied_into_its_address),
	    cmocka_unit_test(test_build__finds_see_every_add),
	    cmocka_unit_test(test_build__divert_is_copied_deeply),
	    cmocka_unit_test(test_build__queue_same_compares_every_setting),
	    cmocka_unit_test(test_build__divert_same_compares_every_setting),
	    cmocka_unit_test(
	        test_build__object_name_problem_is_the_loaders_rule),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
