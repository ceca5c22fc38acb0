/* tests/unit/test-evidence.c: reconcile/apply/evidence.c: what a node read
 * shows of one operation (done, not done, neither), for every kind of
 * operation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "apply-fixture.h"

/* One node: address a (anycast) with queue q; divert d from a into a. */
static void
node_init(struct fx *f)
{
	fx_init(f, DECL_STUDIO_MANAGED, 1);
	fx_lqueue(f, 0, "a", "q", 0, 0);
	fx_ldivert(f, 0, "d", "a", "a")->routing_type = DECL_DIVERT_ANYCAST;
}

static void
test_evidence__destroys(void **unused)
{
	struct recon_op op = {0};
	struct fx f;
	char q[] = "q", d[] = "d", a[] = "a", x[] = "x";

	(void)unused;
	node_init(&f);
	op.kind = RECON_OP_DESTROY_QUEUE;
	op.name = q;
	assert_int_equal(apply_op_seen(&op, &f.s.nodes[0]), APPLY_SEEN_BEFORE);
	op.name = x;
	assert_int_equal(apply_op_seen(&op, &f.s.nodes[0]), APPLY_SEEN_AFTER);
	op.kind = RECON_OP_DELETE_ADDRESS;
	op.name = a;
	assert_int_equal(apply_op_seen(&op, &f.s.nodes[0]), APPLY_SEEN_BEFORE);
	op.name = x;
	assert_int_equal(apply_op_seen(&op, &f.s.nodes[0]), APPLY_SEEN_AFTER);
	/* a divert destroy: not done only when the divert it was to remove
	 * is there with the configuration it recorded */
	op.kind = RECON_OP_DESTROY_DIVERT;
	op.name = d;
	assert_int_equal(apply_op_seen(&op, &f.s.nodes[0]), APPLY_SEEN_BEFORE);
	op.divert = recon_divert_dup(&f.s.nodes[0].diverts[0]);
	assert_int_equal(apply_op_seen(&op, &f.s.nodes[0]), APPLY_SEEN_BEFORE);
	op.divert->exclusive = true;
	assert_int_equal(apply_op_seen(&op, &f.s.nodes[0]), APPLY_SEEN_OTHER);
	recon_divert_release(op.divert);
	free(op.divert);
	op.divert = NULL;
	op.name = x;
	assert_int_equal(apply_op_seen(&op, &f.s.nodes[0]), APPLY_SEEN_AFTER);
	fx_free(&f);
}

static void
test_evidence__creates_and_updates(void **unused)
{
	struct recon_op op = {0};
	struct fx f;
	char q[] = "q", a[] = "a", x[] = "x", d[] = "d";
	char *text;

	(void)unused;
	node_init(&f);
	op.kind = RECON_OP_CREATE_QUEUE;
	op.name = x;
	op.queue = recon_queue_dup(&f.s.nodes[0].queues[0]);
	assert_int_equal(apply_op_seen(&op, &f.s.nodes[0]), APPLY_SEEN_BEFORE);
	op.name = q;
	free(op.queue->name);
	op.queue->name = xstrdup("q");
	assert_int_equal(apply_op_seen(&op, &f.s.nodes[0]), APPLY_SEEN_AFTER);
	op.queue->max_consumers = 7;
	assert_int_equal(apply_op_seen(&op, &f.s.nodes[0]), APPLY_SEEN_OTHER);
	op.kind = RECON_OP_UPDATE_QUEUE;
	assert_int_equal(apply_op_seen(&op, &f.s.nodes[0]), APPLY_SEEN_BEFORE);
	text = apply_seen_text(&op, APPLY_SEEN_BEFORE);
	assert_string_equal(text, "the queue is not as sent");
	free(text);
	recon_queue_release(op.queue);
	free(op.queue);
	op.queue = NULL;

	op.kind = RECON_OP_CREATE_ADDRESS;
	op.name = a;
	op.routing = DECL_ANYCAST;
	assert_int_equal(apply_op_seen(&op, &f.s.nodes[0]), APPLY_SEEN_AFTER);
	op.routing = DECL_ANYCAST | DECL_MULTICAST;
	assert_int_equal(apply_op_seen(&op, &f.s.nodes[0]), APPLY_SEEN_OTHER);
	op.kind = RECON_OP_UPDATE_ADDRESS;
	assert_int_equal(apply_op_seen(&op, &f.s.nodes[0]), APPLY_SEEN_BEFORE);
	op.name = x;
	assert_int_equal(apply_op_seen(&op, &f.s.nodes[0]), APPLY_SEEN_OTHER);

	op.kind = RECON_OP_CREATE_DIVERT;
	op.name = d;
	op.divert = recon_divert_dup(&f.s.nodes[0].diverts[0]);
	assert_int_equal(apply_op_seen(&op, &f.s.nodes[0]), APPLY_SEEN_AFTER);
	text = apply_seen_text(&op, APPLY_SEEN_AFTER);
	assert_string_equal(text, "the divert is there as sent");
	free(text);
	op.divert->routing_type = DECL_DIVERT_PASS;
	assert_int_equal(apply_op_seen(&op, &f.s.nodes[0]), APPLY_SEEN_OTHER);
	op.kind = RECON_OP_UPDATE_DIVERT;
	assert_int_equal(apply_op_seen(&op, &f.s.nodes[0]), APPLY_SEEN_BEFORE);
	op.name = x;
	op.kind = RECON_OP_CREATE_DIVERT;
	assert_int_equal(apply_op_seen(&op, &f.s.nodes[0]), APPLY_SEEN_BEFORE);
	recon_divert_release(op.divert);
	free(op.divert);
	fx_free(&f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_evidence__destroys),
	    cmocka_unit_test(test_evidence__creates_and_updates),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
