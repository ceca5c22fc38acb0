/* tests/unit/test-recon.c: reconcile/recon.c, the shared model: lookups
 * in a snapshot, the refusal kinds' names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "snapshot-fixture.h"

static void
test_recon__lookups(void **state)
{
	struct recon_snapshot *s = sample();
	const struct recon_node_snapshot *n;

	(void)state;
	n = recon_snapshot_find_node(s, "node1");
	assert_non_null(n);
	assert_null(recon_snapshot_find_node(s, "node3"));
	assert_string_equal(recon_node_find_queue(n, "orders")->address,
	    "orders");
	assert_null(recon_node_find_queue(n, "order"));
	assert_non_null(recon_node_find_address(n, "orders"));
	assert_string_equal(recon_node_find_divert(n, "audit")->routing_name,
	    "audit");
	assert_null(recon_node_find_divert(n, "orders"));
	assert_null(recon_node_find_queue(&s->nodes[1], "orders"));
	live_snapshot_free(s);
}

static void
test_recon__kind_names(void **state)
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

/* Issue 14.4: which failed operations lost their reply (the broker may
 * have done them) and which the broker refused. The refusals are as
 * reconcile/live builds them: a reply element carries its status, a
 * whole-request HTTP error its HTTP status, no answer neither. */
static void
test_recon__reply_lost(void **state)
{
	static const struct {
		enum recon_kind kind;
		int http, status;
		bool lost;
	} cases[] = {
	    {RECON_TIMEOUT, 0, 0, true},        /* stalled, dripping */
	    {RECON_UNREACHABLE, 0, 0, true},    /* reset, closed, refused */
	    {RECON_BAD_RESPONSE, 0, 0, true},   /* truncated, too large */
	    {RECON_BAD_RESPONSE, 200, 0, true}, /* not JSON, wrong shape */
	    {RECON_BROKER_ERROR, 502, 0, true}, /* a gateway's 5xx */
	    {RECON_BROKER_ERROR, 400, 0, true},
	    {RECON_BROKER_ERROR, 200, 500, false}, /* AMQ229205, ... */
	    {RECON_HAS_CONSUMERS, 200, 500, false},
	    {RECON_NOT_FOUND, 200, 404, false},
	    {RECON_ALREADY_EXISTS, 200, 500, false},
	    {RECON_FORBIDDEN, 200, 403, false},
	    {RECON_THROTTLED, 200, 429, false},
	    {RECON_UNAUTHORIZED, 401, 0, false},
	    {RECON_THROTTLED, 429, 0, false},
	    {RECON_OK, 200, 0, false},
	};
	struct recon_refusal r;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(&r, 0, sizeof(r));
		r.kind = cases[i].kind;
		r.http_status = cases[i].http;
		r.status = cases[i].status;
		if (recon_refusal_reply_lost(&r) != cases[i].lost)
			fail_msg("case %zu (%s, HTTP %d, status %d): expected "
			         "%s",
			    i, recon_kind_name(r.kind), r.http_status, r.status,
			    cases[i].lost ? "lost" : "refused");
	}
}

/* Release numbers: what parses, how they order, the floor, and the
 * version facts (docs/compatibility.md). */
static void
test_recon__versions(void **state)
{
	struct recon_version a, b;
	char *why;
	const char *bad[] = {"", "2", "2.40", "2.40.", "2.40.0x", "v2.40.0",
	    "2.040.0", "2.40.00001", "-2.40.0", "2..0", "2.40.0 "};
	size_t i;

	(void)state;
	assert_int_equal(recon_version_parse("2.31.2", &a), 0);
	assert_int_equal(a.major, 2);
	assert_int_equal(a.minor, 31);
	assert_int_equal(a.micro, 2);
	assert_int_equal(recon_version_parse("2.28.0.redhat-00012", &b), 0);
	assert_int_equal(b.minor, 28);
	assert_int_equal(recon_version_parse("2.45.0-SNAPSHOT", &b), 0);
	assert_int_equal(b.minor, 45);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(recon_version_parse(bad[i], &b), -1);
	assert_int_equal(recon_version_parse(NULL, &b), -1);
	assert_int_equal(recon_version_parse("2.9.0", &a), 0);
	assert_int_equal(recon_version_parse("2.10.0", &b), 0);
	assert_true(recon_version_cmp(&a, &b) < 0);
	assert_true(recon_version_cmp(&b, &a) > 0);
	assert_int_equal(recon_version_cmp(&a, &a), 0);

	assert_null(recon_version_unsupported("2.28.0"));
	assert_null(recon_version_unsupported("2.44.0"));
	assert_null(recon_version_unsupported("2.99.1"));
	why = recon_version_unsupported("2.27.1");
	assert_string_equal(why,
	    "Artemis 2.27.1 is older than 2.28.0, the oldest release the agent manages (docs/compatibility.md)");
	free(why);
	why = recon_version_unsupported("banana");
	assert_non_null(strstr(why, "'banana' is not an Artemis release"));
	free(why);
	why = recon_version_unsupported(NULL);
	assert_non_null(why);
	free(why);
	why = recon_version_unsupported("3.0.0");
	assert_non_null(strstr(why, "not a 2.x release"));
	free(why);

	assert_false(recon_version_divert_json("2.28.0"));
	assert_false(recon_version_divert_json("2.37.0"));
	assert_true(recon_version_divert_json("2.38.0"));
	assert_true(recon_version_divert_json("2.44.0"));
	assert_false(recon_version_divert_json("junk"));
	assert_true(recon_version_divert_destroy_kept("2.28.0"));
	assert_true(recon_version_divert_destroy_kept("2.31.2"));
	assert_false(recon_version_divert_destroy_kept("2.32.0"));
	assert_false(recon_version_divert_destroy_kept("2.27.0"));
	assert_false(recon_version_divert_destroy_kept("2.44.0"));
	assert_true(recon_version_divert_transformer_lost("2.28.0"));
	assert_true(recon_version_divert_transformer_lost("2.36.0"));
	assert_false(recon_version_divert_transformer_lost("2.37.0"));
	assert_false(recon_version_divert_transformer_lost("junk"));
	assert_false(recon_version_divert_into_nothing_harms("2.28.0"));
	assert_false(recon_version_divert_into_nothing_harms("2.31.2"));
	assert_true(recon_version_divert_into_nothing_harms("2.32.0"));
	assert_true(recon_version_divert_into_nothing_harms("2.37.0"));
	assert_true(recon_version_divert_into_nothing_harms("2.44.0"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_recon__lookups),
	    cmocka_unit_test(test_recon__kind_names),
	    cmocka_unit_test(test_recon__reply_lost),
	    cmocka_unit_test(test_recon__versions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
