/* tests/unit/test-delete-if-empty.c: declarations/delete-if-empty.c: the
 * queue's own key wins over settings.delete-if-empty, in any file order;
 * the key that decided is named with its place; bad values are refused
 * at their position; the dump carries the policy and loads back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "decl-fixture.h"

#define ADDRS                                                                  \
	"addresses:\n"                                                         \
	"  - name: orders\n"                                                   \
	"    routing: [anycast]\n"                                             \
	"    queues:\n"                                                        \
	"      - name: kept\n"                                                 \
	"        delete-if-empty: true\n"                                      \
	"      - name: loose\n"                                                \
	"        delete-if-empty: false\n"                                     \
	"      - name: plain\n"

static void
test_delete_if_empty__default_is_off(void **state)
{
	struct decl_cluster *c = NULL;
	struct errlist l = {0};
	const struct decl_queue *q;

	(void)state;
	assert_int_equal(parse2(&c, HEAD ADDRS, NULL, &l), 0);
	assert_false(c->settings.delete_if_empty);
	q = decl_cluster_find_queue(c, "kept");
	assert_true(q->delete_if_empty);
	assert_int_equal(q->delete_if_empty_at.line, HEAD_LINES + 6);
	assert_int_equal(q->delete_if_empty_at.col, 9);
	assert_false(decl_cluster_find_queue(c, "loose")->delete_if_empty);
	assert_false(decl_cluster_find_queue(c, "plain")->delete_if_empty);
	decl_cluster_free(c);
	errlist_release(&l);
}

/* settings in a later file than the queues still reach them. */
static void
test_delete_if_empty__queue_key_wins_over_the_default(void **state)
{
	struct decl_cluster *c = NULL;
	struct errlist l = {0};
	char *t;

	(void)state;
	assert_int_equal(parse2(&c, HEAD ADDRS,
	                     "version: 1\n"
	                     "settings:\n"
	                     "  delete-if-empty: true\n",
	                     &l),
	    0);
	assert_true(c->settings.delete_if_empty);
	assert_true(decl_cluster_find_queue(c, "kept")->delete_if_empty);
	assert_false(decl_cluster_find_queue(c, "loose")->delete_if_empty);
	assert_true(decl_cluster_find_queue(c, "plain")->delete_if_empty);
	t = decl_queue_delete_if_empty_text(c,
	    decl_cluster_find_queue(c, "kept"));
	assert_string_equal(t, "delete-if-empty is set (a.yaml:13:9)");
	free(t);
	t = decl_queue_delete_if_empty_text(c,
	    decl_cluster_find_queue(c, "plain"));
	assert_string_equal(t, "settings.delete-if-empty is set (b.yaml:3:3)");
	free(t);
	assert_null(decl_queue_delete_if_empty_text(c,
	    decl_cluster_find_queue(c, "loose")));
	t = decl_settings_delete_if_empty_text(c);
	assert_string_equal(t, "settings.delete-if-empty is set (b.yaml:3:3)");
	free(t);
	decl_cluster_free(c);
	errlist_release(&l);
}

static void
test_delete_if_empty__bad_values_are_refused_at_their_position(void **state)
{
	(void)state;
	refuse_one(HEAD "addresses:\n"
	                "  - name: orders\n"
	                "    routing: [anycast]\n"
	                "    queues:\n"
	                "      - {name: q, delete-if-empty: yes}\n",
	    HEAD_LINES + 5, 36,
	    "'delete-if-empty' must be true or false, not 'yes'");
	refuse_one(HEAD "settings:\n"
	                "  delete-if-empty: \"true\"\n",
	    HEAD_LINES + 2, 20,
	    "'delete-if-empty' must be true or false, not 'true'");
	refuse_one(HEAD "settings:\n"
	                "  delete-if-empty: [true]\n",
	    HEAD_LINES + 2, 20, "'delete-if-empty' must be a single value");
	refuse_one(HEAD "addresses:\n"
	                "  - name: orders\n"
	                "    routing: [anycast]\n"
	                "    queues:\n"
	                "      - {name: q, delete-if-emtpy: true}\n",
	    HEAD_LINES + 5, 19,
	    "unknown key 'delete-if-emtpy' in queue (did you mean 'delete-if-empty'?)");
}

/* The dump writes the default once and a queue's key only where it
 * differs; loaded again it gives the same policy (and the same dump). */
static void
test_delete_if_empty__dump_round_trips(void **state)
{
	struct decl_cluster *c = NULL, *back = NULL;
	struct errlist l = {0};
	struct decl_file f;
	char *d1, *d2;

	(void)state;
	assert_int_equal(parse2(&c, HEAD ADDRS,
	                     "version: 1\n"
	                     "settings: {delete-if-empty: true}\n",
	                     &l),
	    0);
	d1 = decl_cluster_dump(c);
	assert_non_null(strstr(d1, "\"delete-if-empty\": true"));
	assert_non_null(strstr(d1, "\"delete-if-empty\": false"));
	f.path = "dump.yaml";
	f.data = d1;
	f.len = strlen(d1);
	assert_int_equal(decl_cluster_parse(&back, "c1", &f, 1, &l), 0);
	assert_true(decl_cluster_find_queue(back, "plain")->delete_if_empty);
	assert_false(decl_cluster_find_queue(back, "loose")->delete_if_empty);
	assert_true(decl_cluster_find_queue(back, "kept")->delete_if_empty);
	d2 = decl_cluster_dump(back);
	assert_string_equal(d1, d2);
	free(d1);
	free(d2);
	decl_cluster_free(back);
	decl_cluster_free(c);
	errlist_release(&l);
}

/* A cluster that sets no delete-if-empty dumps (and digests) as before
 * the key existed; setting it changes the digest. */
static void
test_delete_if_empty__digest_covers_the_policy(void **state)
{
	struct decl_cluster *a = NULL, *b = NULL;
	struct errlist l = {0};
	char ha[SHA256_HEX], hb[SHA256_HEX], *d;

	(void)state;
	assert_int_equal(parse2(&a,
	                     HEAD "addresses:\n"
	                          "  - {name: o, routing: [anycast], "
	                          "queues: [{name: o}]}\n",
	                     NULL, &l),
	    0);
	assert_int_equal(parse2(&b,
	                     HEAD "addresses:\n"
	                          "  - {name: o, routing: [anycast], "
	                          "queues: [{name: o, delete-if-empty: "
	                          "true}]}\n",
	                     NULL, &l),
	    0);
	d = decl_cluster_dump(a);
	assert_null(strstr(d, "delete-if-empty"));
	free(d);
	decl_cluster_digest(a, ha);
	decl_cluster_digest(b, hb);
	assert_string_not_equal(ha, hb);
	decl_cluster_free(a);
	decl_cluster_free(b);
	errlist_release(&l);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_delete_if_empty__default_is_off),
	    cmocka_unit_test(
	        test_delete_if_empty__queue_key_wins_over_the_default),
	    cmocka_unit_test(
	        test_delete_if_empty__bad_values_are_refused_at_their_position),
	    cmocka_unit_test(test_delete_if_empty__dump_round_trips),
	    cmocka_unit_test(test_delete_if_empty__digest_covers_the_policy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
