/* tests/unit/test-plan-parse.c: reconcile/plan/plan-parse.c: plan.json read
 * back (apply): every golden plan round trips, the declaration digest is bound,
 * errors name the member. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/afile.h"
#include "plan-fixture.h"

/* plan.json of every golden case parses and renders to the same bytes. */
static void
test_plan_parse__json_round_trip_goldens(void **state)
{
	struct plan *p = NULL;
	struct err err = {0};
	char *text, *again;
	glob_t g;
	size_t i, len;

	(void)state;
	assert_int_equal(
	    glob("tests/golden/recon/*/expect/plan.json", 0, NULL, &g), 0);
	assert_true(g.gl_pathc >= 10);
	for (i = 0; i < g.gl_pathc; i++) {
		assert_int_equal(
		    afile_read(&text, &len, g.gl_pathv[i], 1u << 24, &err), 0);
		assert_int_equal(
		    plan_parse_json(&p, g.gl_pathv[i], text, len, &err), 0);
		again = plan_render_json(p);
		assert_string_equal(again, text);
		free(again);
		free(text);
		plan_free(p);
	}
	globfree(&g);
}

/* plan.json carries the planned declaration's digest (so an approval of
 * plan.json covers it); it survives the round trip, and a plan of format
 * 1 (which had none) or with a malformed digest is refused. */
static void
test_plan_parse__json_binds_the_declaration_digest(void **state)
{
	struct plan *p, *q = NULL;
	struct plan_managed m = {0};
	struct err err = {0};
	char hex[SHA256_HEX], *text, *again, *bad, *at, *msg;
	struct fx f;

	(void)state;
	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	fx_queue(&f, "orders", "orders");
	decl_cluster_digest(&f.c, hex);
	p = plan_build(&f.c, &m, &f.s, &no_opts);
	assert_non_null(p->declaration_digest);
	assert_string_equal(p->declaration_digest, hex);
	text = plan_render_json(p);
	assert_non_null(strstr(text, "\"format\": 2,\n"));
	at = strstr(text, "\"declaration_digest\": \"");
	assert_non_null(at);
	assert_memory_equal(at + 23, hex, SHA256_HEX - 1);
	assert_int_equal(
	    plan_parse_json(&q, "plan.json", text, strlen(text), &err), 0);
	assert_string_equal(q->declaration_digest, hex);
	again = plan_render_json(q);
	assert_string_equal(again, text);
	free(again);
	plan_free(q);
	/* the digest is part of what the confirmation text hashes */
	free(p->declaration_digest);
	p->declaration_digest = xstrdup(
	    "0000000000000000000000000000000000000000000000000000000000000000");
	again = plan_confirmation(p);
	q = plan_build(&f.c, &m, &f.s, &no_opts);
	msg = plan_confirmation(q);
	plan_free(q);
	/* the same snapshot, so only the digest differs */
	assert_non_null(strstr(msg, " on "));
	assert_string_not_equal(again, msg);
	free(again);
	free(msg);
	plan_free(p);
	/* format 1 */
	bad = xstrdup(text);
	at = strstr(bad, "\"format\": 2");
	at[10] = '1';
	assert_int_equal(
	    plan_parse_json(&q, "plan.json", bad, strlen(bad), &err), -1);
	msg = err_render(&err);
	assert_string_equal(msg,
	    "plan.json: format: unsupported plan format (this build reads 2; plan again)");
	free(msg);
	err_release(&err);
	free(bad);
	/* not a SHA-256 */
	bad = xstrdup(text);
	at = strstr(bad, "\"declaration_digest\": \"");
	at[23] = 'X';
	assert_int_equal(
	    plan_parse_json(&q, "plan.json", bad, strlen(bad), &err), -1);
	msg = err_render(&err);
	assert_string_equal(msg,
	    "plan.json: declaration_digest: expected a SHA-256 in lower-case hex");
	free(msg);
	err_release(&err);
	free(bad);
	free(text);
	fx_free(&f);
}

static void
test_plan_parse__json_parse_errors_name_the_member(void **state)
{
	struct plan *p;
	struct plan_managed m = {0};
	struct err err = {0};
	struct fx f;
	char *text, *bad, *at, *msg;

	(void)state;
	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	fx_queue(&f, "orders", "orders");
	p = plan_build(&f.c, &m, &f.s, &no_opts);
	text = plan_render_json(p);
	plan_free(p);
	bad = xstrdup(text);
	at = strstr(bad, "\"outcome\": \"WOULD_APPLY\"");
	assert_non_null(at);
	memcpy(at + 12, "WOULD_APPLX", 11);
	assert_int_equal(
	    plan_parse_json(&p, "plan.json", bad, strlen(bad), &err), -1);
	msg = err_render(&err);
	assert_string_equal(msg,
	    "plan.json: actions[0].nodes[0].outcome: unknown outcome");
	free(msg);
	err_release(&err);
	assert_int_equal(plan_parse_json(&p, "plan.json", "[]", 2, &err), -1);
	msg = err_render(&err);
	assert_string_equal(msg, "plan.json: not a JSON object");
	free(msg);
	err_release(&err);
	free(bad);
	free(text);
	fx_free(&f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_plan_parse__json_round_trip_goldens),
	    cmocka_unit_test(
	        test_plan_parse__json_binds_the_declaration_digest),
	    cmocka_unit_test(
	        test_plan_parse__json_parse_errors_name_the_member),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
