/* tests/unit/test-dump.c: declarations/dump.c: the normalised model as
 * canonical JSON, and the digest of its objects. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/sbuf.h"
#include "../../lib/xalloc.h"
#include "decl-fixture.h"

/* The digest bound to a plan (decl_cluster_digest) covers the objects,
 * node names, mode and settings, not the nodes' endpoints: the same
 * declaration checked out on another machine, with other URLs and
 * credentials files, has the same digest; any declared object changed
 * gives another. */
static void
digest_of(const char *yaml, char hex[SHA256_HEX])
{
	struct decl_cluster *c = NULL;
	struct errlist l = {0};

	assert_int_equal(parse2(&c, yaml, NULL, &l), 0);
	decl_cluster_digest(c, hex);
	decl_cluster_free(c);
	errlist_release(&l);
}

static void
test_dump__dump_round_trips(void **state)
{
	struct decl_cluster *c = NULL, *c2 = NULL;
	struct errlist l = {0};
	char *d1, *d2;
	struct decl_file f;

	(void)state;
	assert_int_equal(decl_cluster_load(&c, "examples/clusters/ledger", &l),
	    0);
	d1 = decl_cluster_dump(c);
	assert_non_null(strstr(d1, "\"mode\": \"CONFIG_MANAGED\""));
	f.path = "dump.yaml";
	f.data = d1;
	f.len = strlen(d1);
	assert_int_equal(decl_cluster_parse(&c2, "dump", &f, 1, &l), 0);
	d2 = decl_cluster_dump(c2);
	assert_string_equal(d1, d2);
	assert_int_equal(l.n, 0);
	decl_cluster_free(c);
	decl_cluster_free(c2);
	free(d1);
	free(d2);
}

static void
test_dump__digest_ignores_endpoints_only(void **state)
{
	char base[SHA256_HEX], other[SHA256_HEX], *dump;
	struct decl_cluster *c = NULL;
	struct errlist l = {0};

	(void)state;
	digest_of(HEAD DIGEST_BODY, base);
	assert_int_equal(strlen(base), SHA256_HEX - 1);
	/* another URL and credentials file: the same declaration */
	digest_of("version: 1\ncluster: c1\nmode: STUDIO_MANAGED\nnodes:\n"
	          "  - name: node1\n"
	          "    jolokia: https://b1.example:8443/console/jolokia\n"
	          "    credentials: other-file\n" DIGEST_BODY,
	    other);
	assert_string_equal(base, other);
	/* a queue attribute, an added queue, a node name, the mode, a
	 * setting, a capture: each changes it */
	digest_of(HEAD
	    "addresses:\n  - name: orders\n    routing: [anycast]\n"
	    "    queues:\n"
	    "      - {name: orders, routing: anycast, durable: false}\n",
	    other);
	assert_string_not_equal(base, other);
	digest_of(HEAD DIGEST_BODY
	    "      - {name: orders.b, routing: anycast}\n",
	    other);
	assert_string_not_equal(base, other);
	digest_of("version: 1\ncluster: c1\nmode: STUDIO_MANAGED\nnodes:\n"
	          "  - name: node9\n"
	          "    jolokia: http://localhost:8161/console/jolokia\n"
	          "    credentials: node1\n" DIGEST_BODY,
	    other);
	assert_string_not_equal(base, other);
	digest_of("version: 1\ncluster: c1\nmode: CONFIG_MANAGED\nnodes:\n"
	          "  - name: node1\n"
	          "    jolokia: http://localhost:8161/console/jolokia\n"
	          "    credentials: node1\n" DIGEST_BODY,
	    other);
	assert_string_not_equal(base, other);
	digest_of(HEAD DIGEST_BODY "settings:\n  max-destroyed-messages: 5\n",
	    other);
	assert_string_not_equal(base, other);
	digest_of(HEAD DIGEST_BODY
	    "captures:\n  - {name: dbg, pattern: \"o*\"}\n",
	    other);
	assert_string_not_equal(base, other);
	/* what is hashed: the dump without endpoints */
	assert_int_equal(parse2(&c, HEAD DIGEST_BODY, NULL, &l), 0);
	dump = decl_cluster_dump_objects(c);
	assert_null(strstr(dump, "jolokia"));
	assert_null(strstr(dump, "credentials"));
	assert_non_null(strstr(dump, "\"name\": \"node1\""));
	assert_non_null(strstr(dump, "\"name\": \"orders\""));
	free(dump);
	decl_cluster_free(c);
	errlist_release(&l);
}

/* A dump bigger than the default sbuf ceiling (16 MiB) is whole: a
 * 100,000-queue declaration's dump is about 50 MB, and it once came out
 * cut at 16 MiB (plan --out's declaration/cluster.yaml, and the digest
 * of the part that fit). */
static void
test_dump__big_dump_is_never_cut_short(void **state)
{
	struct decl_cluster *c = NULL;
	struct errlist l = {0};
	struct decl_address *a;
	char filter[1001], *dump, d1[SHA256_HEX], d2[SHA256_HEX];
	size_t i, n = 24000;

	(void)state;
	assert_int_equal(parse2(&c, HEAD DIGEST_BODY, NULL, &l), 0);
	memset(filter, 'f', sizeof(filter) - 1);
	filter[sizeof(filter) - 1] = '\0';
	a = &c->addresses[0];
	a->queues = xreallocarray(a->queues, n, sizeof(*a->queues));
	for (i = a->nqueues; i < n; i++) {
		a->queues[i] = a->queues[0];
		a->queues[i].name = xasprintf("orders.%06zu", i);
		a->queues[i].filter = xstrdup(filter);
		a->queues[i].last_value_key = NULL;
	}
	a->nqueues = n;
	dump = decl_cluster_dump(c);
	assert_true(strlen(dump) > SBUF_DEFAULT_MAX);
	assert_non_null(strstr(dump, "orders.023999"));
	assert_string_equal(dump + strlen(dump) - 2, "}\n");
	free(dump);
	decl_cluster_digest(c, d1);
	free(a->queues[n - 1].filter);
	a->queues[n - 1].filter = xstrdup("g");
	decl_cluster_digest(c, d2);
	assert_string_not_equal(d1, d2);
	decl_cluster_free(c);
	errlist_release(&l);
}

/* docs/policy.md: the policy keys are dumped only where they are not
 * the default (a digest of a declaration without them is unchanged, an
 * explicit default changes nothing), and the dump loads back to the same
 * model: a queue's own delete under a retained address stays its own. */
static void
test_dump__policy_only_where_set_and_round_trips(void **state)
{
	struct decl_cluster *c = NULL, *c2 = NULL;
	struct errlist l = {0};
	char h1[SHA256_HEX], h2[SHA256_HEX], *d1, *d2;
	struct decl_file f;

	(void)state;
	digest_of(HEAD DIGEST_BODY, h1);
	digest_of(HEAD "settings:\n  protect: []\n" DIGEST_BODY
	               "    deletion-policy: delete\n    managed: true\n",
	    h2);
	assert_string_equal(h1, h2);
	digest_of(HEAD DIGEST_BODY "    deletion-policy: retain\n", h2);
	assert_string_not_equal(h1, h2);
	assert_int_equal(parse2(&c,
	                     HEAD
	                     "settings:\n  protect: [\"o*\"]\n"
	                     "addresses:\n"
	                     "  - name: a1\n"
	                     "    routing: [anycast]\n"
	                     "    deletion-policy: retain\n"
	                     "    queues:\n"
	                     "      - {name: q1, deletion-policy: delete}\n"
	                     "      - {name: q2}\n"
	                     "  - name: a2\n"
	                     "    routing: [anycast]\n"
	                     "    managed: false\n"
	                     "    queues: [{name: q3}]\n",
	                     NULL, &l),
	    0);
	d1 = decl_cluster_dump(c);
	assert_non_null(strstr(d1, "\"protect\": [\n      \"o*\"\n    ]"));
	assert_non_null(strstr(d1, "\"managed\": false"));
	f.path = "dump.yaml";
	f.data = d1;
	f.len = strlen(d1);
	assert_int_equal(decl_cluster_parse(&c2, "dump", &f, 1, &l), 0);
	assert_int_equal(decl_cluster_find_queue(c2, "q1")->policy.deletion,
	    DECL_DELETE);
	assert_int_equal(decl_cluster_find_queue(c2, "q2")->policy.deletion,
	    DECL_RETAIN);
	assert_true(decl_cluster_find_queue(c2, "q3")->policy.unmanaged);
	d2 = decl_cluster_dump(c2);
	assert_string_equal(d1, d2);
	decl_cluster_free(c);
	decl_cluster_free(c2);
	free(d1);
	free(d2);
	errlist_release(&l);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_dump__policy_only_where_set_and_round_trips),
	    cmocka_unit_test(test_dump__dump_round_trips),
	    cmocka_unit_test(test_dump__digest_ignores_endpoints_only),
	    cmocka_unit_test(test_dump__big_dump_is_never_cut_short),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
