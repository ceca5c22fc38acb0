/* tests/unit/test-diff.c: reconcile/plan/diff.c: the three-way diff, declared
 * half: creates, changes in place, changes by recreate. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan-fixture.h"

static void
test_diff__change_in_place_vs_recreate(void **state)
{
	const struct plan_step *np;
	struct plan_managed m = {0};
	struct plan *p;
	struct decl_queue *q;
	struct fx f;

	(void)state;
	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	q = fx_queue(&f, "a", "qa");
	q->max_consumers = 5;
	q = fx_queue(&f, "b", "qb");
	q->durable = false;
	fx_lqueue(&f, 0, "a", "qa", 0, 0);
	fx_lqueue(&f, 0, "b", "qb", 0, 7);
	p = plan_build(&f.c, &m, &f.s, &no_opts);
	np = step(p, PLAN_ACT_CHANGE_QUEUE, "qa", 0);
	assert_non_null(np);
	assert_string_equal(np->message, "differs: max-consumers");
	assert_int_equal(np->ops[0].kind, RECON_OP_UPDATE_QUEUE);
	assert_int_equal(np->ops[0].queue->max_consumers, 5);
	np = step(p, PLAN_ACT_RECREATE_QUEUE, "qb", 0);
	assert_non_null(np);
	assert_string_equal(np->message,
	    "differs in what updateQueue cannot change: durable");
	assert_int_equal(np->nops, 2);
	assert_int_equal(np->ops[0].kind, RECON_OP_DESTROY_QUEUE);
	assert_int_equal(np->ops[1].kind, RECON_OP_CREATE_QUEUE);
	assert_int_equal(p->destroyed_messages, 7);
	plan_free(p);
	fx_free(&f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_diff__change_in_place_vs_recreate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
