/* tests/unit/test-load.c: declarations/load.c: YAML trees of a cluster's
 * files to the model: defaults, files concatenated, the head keys, the
 * rules only after a clean load. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decl-fixture.h"

static void
test_load__minimal_cluster_gets_defaults(void **state)
{
	struct decl_cluster *c = NULL;
	struct errlist l = {0};
	const struct decl_queue *q;
	const struct decl_divert *d;

	(void)state;
	assert_int_equal(parse2(&c,
	                     HEAD "addresses:\n"
	                          "  - name: orders\n"
	                          "    routing: [anycast]\n"
	                          "    queues: [{name: orders}]\n"
	                          "diverts:\n"
	                          "  - {name: d1, address: orders, "
	                          "forwarding-address: orders}\n"
	                          "captures:\n"
	                          "  - {name: cap, pattern: \"o*\"}\n",
	                     NULL, &l),
	    0);
	assert_int_equal(l.n, 0);
	assert_string_equal(c->name, "c1");
	assert_int_equal(c->version, 1);
	assert_int_equal(c->mode, DECL_STUDIO_MANAGED);
	assert_string_equal(c->settings.capture_prefix, "__capture.");
	assert_int_equal(c->settings.max_destroyed_messages, 1000);
	q = decl_cluster_find_queue(c, "orders");
	assert_non_null(q);
	assert_string_equal(q->address, "orders");
	assert_int_equal(q->routing, DECL_ANYCAST);
	assert_true(q->durable);
	assert_true(q->enabled);
	assert_false(q->exclusive);
	assert_int_equal(q->max_consumers, -1);
	assert_int_equal(q->ring_size, -1);
	assert_int_equal(q->delay_before_dispatch, -1);
	assert_int_equal(q->consumers_before_dispatch, 0);
	assert_null(q->filter);
	assert_int_equal(q->pos.line, HEAD_LINES + 4);
	d = decl_cluster_find_divert(c, "d1");
	assert_non_null(d);
	assert_int_equal(d->routing_type, DECL_DIVERT_STRIP);
	assert_string_equal(d->routing_name, "d1");
	assert_int_equal(c->captures[0].ring_size, 1000);
	assert_string_equal(c->nodes[0].pos.path, "a.yaml");
	decl_cluster_free(c);
}

static void
test_load__files_concatenate_lists(void **state)
{
	struct decl_cluster *c = NULL;
	struct errlist l = {0};

	(void)state;
	assert_int_equal(parse2(&c,
	                     HEAD "addresses:\n"
	                          "  - {name: a1, routing: [anycast], queues: "
	                          "[{name: q1}]}\n",
	                     "version: 1\n"
	                     "mode: STUDIO_MANAGED\n"
	                     "nodes:\n"
	                     "  - name: node2\n"
	                     "    jolokia: https://[::1]:8443/console/jolokia\n"
	                     "    credentials: node2\n"
	                     "addresses:\n"
	                     "  - {name: a2, routing: [multicast], queues: "
	                     "[{name: q2}]}\n",
	                     &l),
	    0);
	assert_int_equal(c->nnodes, 2);
	assert_int_equal(c->naddresses, 2);
	assert_string_equal(c->addresses[1].name, "a2");
	assert_string_equal(c->addresses[1].pos.path, "b.yaml");
	assert_int_equal(c->addresses[1].queues[0].routing, DECL_MULTICAST);
	assert_non_null(decl_cluster_find_node(c, "node2"));
	assert_null(decl_cluster_find_node(c, "node3"));
	assert_null(decl_cluster_find_address(c, "a3"));
	decl_cluster_free(c);
}

static void
test_load__queue_routing(void **state)
{
	struct decl_cluster *c = NULL;
	struct errlist l = {0};

	(void)state;
	assert_int_equal(parse2(&c,
	                     HEAD "addresses:\n"
	                          "  - name: a\n"
	                          "    routing: [anycast, multicast]\n"
	                          "    queues:\n"
	                          "      - {name: q1}\n"
	                          "      - {name: q2, routing: multicast}\n"
	                          "  - name: b\n"
	                          "    routing: [anycast]\n"
	                          "    queues:\n"
	                          "      - {name: q3, routing: multicast}\n",
	                     NULL, &l),
	    -1);
	T_ERR_AT(&l, "a.yaml", 12, 9,
	    "queue 'q1' needs 'routing': address 'a' allows anycast and "
	    "multicast");
	assert_int_equal(l.nerrors, 1); /* rules wait for a clean load */
	errlist_release(&l);
}

static void
test_load__bad_input_is_refused_with_position(void **state)
{
	(void)state;
	refuse_one("---\n", 2, 1, "empty document");
	refuse_one("hello\n", 1, 1,
	    "expected a mapping with 'version' at the top of the file, found "
	    "a scalar");
	refuse_one("version: 2\n", 1, 10,
	    "unsupported version '2' (this build reads version 1)");
	refuse_one("version: 1.0\n", 1, 10,
	    "unsupported version '1.0' (this build reads version 1)");
	refuse_one("version: \"1\"\n", 1, 10,
	    "'version' must be an integer such as 1, not '1'");
	refuse_one("cluster: c\n", 1, 1,
	    "missing required key 'version' (every file declares the format "
	    "version it is written in)");
}

static void
test_load__unknown_mode_and_keys(void **state)
{
	struct decl_cluster *c = NULL;
	struct errlist l = {0};

	(void)state;
	assert_int_equal(parse2(&c,
	                     "version: 1\ncluster: c1\nmode: MANAGED\n"
	                     "nodes: [{name: n, jolokia: 'http://h/j', "
	                     "credentials: n, password: x}]\n",
	                     NULL, &l),
	    -1);
	T_ERR_AT(&l, "a.yaml", 3, 7,
	    "unknown mode 'MANAGED' (expected STUDIO_MANAGED or "
	    "CONFIG_MANAGED)");
	T_ERR_AT(&l, "a.yaml", 4, 58, "unknown key 'password' in node");
	errlist_release(&l);
}

static void
test_load__no_files_is_an_error_at_the_folder(void **state)
{
	struct decl_cluster *c = NULL;
	struct errlist l = {0};
	char *s;

	(void)state;
	assert_int_equal(decl_cluster_parse(&c, "clusters/x", NULL, 0, &l), -1);
	s = errlist_render_item(&l, 0);
	assert_string_equal(s,
	    "clusters/x: no YAML files (*.yaml, *.yml) in this cluster folder");
	free(s);
	errlist_release(&l);
	assert_int_equal(
	    decl_cluster_load(&c, "tests/golden/decl/016-no-yaml", &l), -1);
	T_ERR_AT(&l, "tests/golden/decl/016-no-yaml", 0, 0, "no YAML files");
	errlist_release(&l);
}

/* docs/policy.md: deletion-policy and managed on each object, a queue
 * inheriting its address's; settings.protect kept in order. */
static void
test_load__policy_keys_and_inheritance(void **state)
{
	struct decl_cluster *c = NULL;
	struct errlist l = {0};
	const struct decl_queue *q;
	const struct decl_divert *d;

	(void)state;
	assert_int_equal(parse2(&c,
	                     HEAD "settings:\n"
	                          "  protect: [\"orders.*\", audit]\n"
	                          "addresses:\n"
	                          "  - name: orders\n"
	                          "    routing: [anycast]\n"
	                          "    deletion-policy: retain\n"
	                          "    queues:\n"
	                          "      - name: orders\n"
	                          "      - name: tmp\n"
	                          "        deletion-policy: delete\n"
	                          "  - name: legacy\n"
	                          "    routing: [anycast]\n"
	                          "    managed: false\n"
	                          "    queues: [{name: legacy}]\n"
	                          "diverts:\n"
	                          "  - name: d1\n"
	                          "    address: orders\n"
	                          "    forwarding-address: orders\n"
	                          "    managed: true\n",
	                     NULL, &l),
	    0);
	assert_int_equal(c->settings.nprotect, 2);
	assert_string_equal(c->settings.protect[0], "orders.*");
	assert_string_equal(c->settings.protect[1], "audit");
	assert_int_equal(c->settings.protect_at[1].line, HEAD_LINES + 2);
	assert_int_equal(c->addresses[0].policy.deletion, DECL_RETAIN);
	assert_int_equal(c->addresses[0].policy.deletion_at.line,
	    HEAD_LINES + 6);
	q = decl_cluster_find_queue(c, "orders");
	assert_int_equal(q->policy.deletion, DECL_RETAIN); /* inherited */
	assert_int_equal(q->policy.deletion_at.line, 0);
	assert_false(q->policy.unmanaged);
	q = decl_cluster_find_queue(c, "tmp");
	assert_int_equal(q->policy.deletion, DECL_DELETE); /* its own */
	assert_int_equal(q->policy.deletion_at.line, HEAD_LINES + 10);
	assert_int_equal(q->policy.deletion_at.col, 26);
	q = decl_cluster_find_queue(c, "legacy");
	assert_true(q->policy.unmanaged); /* its address's */
	assert_true(c->addresses[1].policy.unmanaged);
	d = decl_cluster_find_divert(c, "d1");
	assert_false(d->policy.unmanaged);
	assert_int_equal(d->policy.deletion, DECL_DELETE);
	decl_cluster_free(c);
	errlist_release(&l);
}

/* Bad policy values and protect entries, each at its value. */
static void
test_load__policy_bad_values_with_positions(void **state)
{
	struct decl_cluster *c = NULL;
	struct errlist l = {0};

	(void)state;
	assert_int_equal(parse2(&c,
	                     HEAD
	                     "settings:\n"
	                     "  protect: [a, \"\", a, [b], \"x  y\", ~]\n"
	                     "addresses:\n"
	                     "  - name: orders\n"
	                     "    routing: [anycast]\n"
	                     "    deletion-policy: keep\n"
	                     "    queues:\n"
	                     "      - {name: q1, managed: \"no\"}\n"
	                     "      - {name: q2, deletion-policy: [retain]}\n",
	                     NULL, &l),
	    -1);
	T_ERR_AT(&l, "a.yaml", HEAD_LINES + 2, 16,
	    "'protect' pattern '' is empty");
	T_ERR_AT(&l, "a.yaml", HEAD_LINES + 2, 20,
	    "'protect' pattern 'a' is listed twice (first at a.yaml:9:13)");
	T_ERR_AT(&l, "a.yaml", HEAD_LINES + 2, 23,
	    "'protect' entries must be patterns such as 'orders.*', not a list");
	T_ERR_AT(&l, "a.yaml", HEAD_LINES + 2, 28,
	    "'protect' pattern 'x  y' contains two spaces in a row");
	T_ERR_AT(&l, "a.yaml", HEAD_LINES + 2, 36,
	    "'protect' entries must be patterns such as 'orders.*', not null");
	T_ERR_AT(&l, "a.yaml", HEAD_LINES + 6, 22,
	    "unknown deletion-policy 'keep' (expected delete or retain)");
	T_ERR_AT(&l, "a.yaml", HEAD_LINES + 8, 29,
	    "'managed' must be true or false, not 'no'");
	T_ERR_AT(&l, "a.yaml", HEAD_LINES + 9, 37,
	    "'deletion-policy' must be a single value, not a list");
	assert_int_equal(l.nerrors, 8);
	errlist_release(&l);
}

/* protect must be a list of at most DECL_PROTECT_MAX patterns. */
static void
test_load__protect_must_be_a_list(void **state)
{
	(void)state;
	refuse_one(HEAD "settings:\n  protect: orders\n", HEAD_LINES + 2, 12,
	    "'protect' must be a list, not a scalar");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_load__minimal_cluster_gets_defaults),
	    cmocka_unit_test(test_load__files_concatenate_lists),
	    cmocka_unit_test(test_load__queue_routing),
	    cmocka_unit_test(test_load__bad_input_is_refused_with_position),
	    cmocka_unit_test(test_load__policy_keys_and_inheritance),
	    cmocka_unit_test(test_load__policy_bad_values_with_positions),
	    cmocka_unit_test(test_load__protect_must_be_a_list),
	    cmocka_unit_test(test_load__unknown_mode_and_keys),
	    cmocka_unit_test(test_load__no_files_is_an_error_at_the_folder),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
