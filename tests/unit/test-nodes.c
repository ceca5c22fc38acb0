/* tests/unit/test-nodes.c: reconcile/live/nodes.c: the nodes of one apply
 * talk through the HTTP settings they are given. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "jolokia-fixture.h"

/* An operation on a node that never answers is given up when the tick
 * of the settings asks (its read, through the snapshot fetch, too). */
static void
test_nodes__tick_reaches_reads_and_operations(void **state)
{
	unsigned calls = 0;
	struct http_tick tick = {tick_abandon_second, &calls, 50};
	struct live_http_opts http = {.tick = &tick};
	struct live_target t = {.node = "node1", .userpass = "u:p"};
	struct live_nodes live;
	struct recon_node_snapshot snap;
	struct recon_refusal r = {0};
	char divert[] = "d";
	struct recon_op op = {.kind = RECON_OP_DESTROY_DIVERT, .name = divert};
	const char *names[] = {"node1"};
	int fd;
	char *u = silent_url(&fd);

	(void)state;
	t.url = u;
	memset(&live, 0, sizeof(live));
	live.cluster = "c";
	live.targets = &t;
	live.ntargets = 1;
	live.http = &http;
	live_nodes_init(&live);
	memset(&snap, 0, sizeof(snap));
	live_nodes_read(&live, names, 1, &snap);
	assert_int_equal(calls, 2);
	assert_int_equal(snap.refusal.kind, RECON_UNREACHABLE);
	assert_string_equal(snap.refusal.text, "abandoned by the caller");
	live_node_release(&snap);
	/* as if the read had worked: the broker name operations need */
	live.brokers[0] = xstrdup("node1");
	calls = 0;
	assert_int_equal(live_nodes_exec(&live, "node1", &op, &r), -1);
	assert_int_equal(calls, 2);
	assert_int_equal(r.kind, RECON_UNREACHABLE);
	assert_string_equal(r.text, "abandoned by the caller");
	recon_refusal_release(&r);
	live_nodes_release(&live);
	close(fd);
	free(u);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_nodes__tick_reaches_reads_and_operations),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
