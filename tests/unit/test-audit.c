/* tests/unit/test-audit.c: reconcile/apply/audit.c: the audit rows
 * (docs/audit.md). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "apply-fixture.h"

/* The whole result row of a one-node apply, pinned: the audit format is
 * a contract (docs/audit.md). */
static void
test_audit__result_row_format(void **unused)
{
	struct scen s;
	struct err err = {0};
	char *row;

	(void)unused;
	scen_init(&s, true);
	s.k.down = "broker-b";
	s.r->approver = xstrdup("alice");
	s.r->approver_uid = 1000;
	s.r->plan_digest = xstrdup("d1g");
	assert_int_equal(apply_run(s.r, s.p, &s.f.c, &s.io, &err), 0);
	row = apply_audit_render_result(s.r);
	assert_string_equal(row,
	    "{\"apply_id\":\"id1\",\"approved_at\":null,\"approver\":\"alice\","
	    "\"approver_uid\":1000,\"cluster\":\"shop-eu\",\"event\":\"result\",\"exit\":1,"
	    "\"finished_at\":null,\"format\":1,\"nodes\":[{\"detail\":"
	    "\"2 operation(s) applied\",\"kind\":null,\"node\":\"broker-a\","
	    "\"notes\":[\"delete-queue 'fwd': as planned\"],\"operations\":[{"
	    "\"act\":\"delete-queue\",\"action\":\"fwd\",\"divert\":{"
	    "\"address\":\"src\",\"exclusive\":false,\"filter-string\":\"\","
	    "\"forwarding-address\":\"fwd\",\"name\":\"d1\","
	    "\"routing-name\":\"d1\",\"routing-type\":"
	    "\"ANYCAST\"},\"name\":\"d1\",\"op\":\"destroyDivert\",\"outcome\":"
	    "\"DONE\"},{\"act\":\"delete-queue\",\"action\":\"fwd\",\"name\":"
	    "\"fwd\",\"op\":\"destroyQueue\",\"outcome\":\"DONE\","
	    "\"remove_consumers\":true}],\"outcome\":\"APPLIED\"},{\"detail\":"
	    "\"UNREACHABLE: connection refused\",\"kind\":\"UNREACHABLE\","
	    "\"node\":\"broker-b\",\"notes\":[],\"operations\":[],\"outcome\":"
	    "\"UNREACHABLE\"}],\"parameters\":{\"disconnect_consumers\":true},"
	    "\"plan_digest\":\"d1g\",\"plan_dir\":null,\"revision\":null,"
	    "\"started_at\":null}");
	free(row);
	scen_free(&s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_audit__result_row_format),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
