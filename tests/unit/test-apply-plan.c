/* tests/unit/test-apply-plan.c: agent/apply-plan.c's fence around an
 * apply's operations (agent_fence_io, docs/ha.md); applying itself is
 * proved against real brokers (tests/integration/50-apply-*.sh,
 * 84-daemon-ha.sh). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../agent/apply-plan.h"
#include "../../reconcile/recon.h"

/* The fence: an operation is sent only when the check passes; once it
 * fails, neither that operation nor any later one is sent (FENCED). */
struct fake {
	int checks, fail_at, sent, reads;
};

static int
fake_check(void *ctx, const char *cluster, struct err *err)
{
	struct fake *f = ctx;

	assert_string_equal(cluster, "shop");
	if (++f->checks >= f->fail_at)
		return err_setf(err, NULL, "cluster 'shop': lease short");
	return 0;
}

static int
fake_exec(void *ctx, const char *node, const struct recon_op *op,
    struct recon_refusal *refusal)
{
	struct fake *f = ctx;

	(void)node;
	(void)op;
	(void)refusal;
	f->sent++;
	return 0;
}

static void
fake_read(void *ctx, const char *node, struct recon_node_snapshot *out)
{
	struct fake *f = ctx;

	(void)node;
	(void)out;
	f->reads++;
}

static void
test_apply_plan__fence_io(void **state)
{
	struct fake f = {0, 3, 0, 0};
	struct agent_fence fence = {fake_check, &f, 42};
	struct agent_fence_io w;
	struct apply_io io = {0};
	struct recon_refusal r = {0};
	struct recon_op op = {0};
	int i;

	(void)state;
	io.ctx = &f;
	io.read = fake_read;
	io.exec = fake_exec;
	agent_fence_io(&w, &io, &fence, "shop");
	assert_null(io.read_all);
	io.read(io.ctx, "node1", NULL);
	assert_int_equal(f.reads, 1);
	assert_int_equal(io.exec(io.ctx, "node1", &op, &r), 0);
	assert_int_equal(io.exec(io.ctx, "node1", &op, &r), 0);
	assert_int_equal(f.sent, 2);
	for (i = 0; i < 3; i++) {
		assert_int_equal(io.exec(io.ctx, "node2", &op, &r), -1);
		assert_int_equal(r.kind, RECON_FENCED);
		assert_non_null(
		    strstr(r.text, "not sent: cluster 'shop': lease "
		                   "short"));
		recon_refusal_release(&r);
	}
	assert_int_equal(f.sent, 2);
	assert_int_equal(f.checks, 3); /* not asked again once refused */
	assert_string_equal(recon_kind_name(RECON_FENCED), "FENCED");
	agent_fence_io_release(&w);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_apply_plan__fence_io),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
