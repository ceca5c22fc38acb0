/* tests/unit/test-scope.c: reconcile/plan/scope.c: what a plan reads of
 * the nodes: the declared queues at their addresses, the base's places of
 * managed queues, managed queues no declaration places, capture rings
 * (declared, managed, removed by a plan), delete-queue's target, the
 * queues a plan acts on, and CONFIG_MANAGED's reload. */
#include "decl-fixture.h"

#include <stdio.h>

#include "../../lib/xalloc.h"
#include "../../reconcile/live/live.h"
#include "../../reconcile/plan/plan.h"

static struct decl_cluster *
parse(const char *text)
{
	struct decl_cluster *c = NULL;
	struct errlist l = {0};

	assert_int_equal(parse2(&c, text, NULL, &l), 0);
	errlist_release(&l);
	return c;
}

/* "name@address/routing ..." of every place of q, or "name" without. */
static char *
places(const struct live_scope *s, const char *name)
{
	const struct live_scope_queue *q = live_scope_find(s, name);
	struct sbuf_like {
		char b[512];
		size_t n;
	} o = {{0}, 0};
	size_t k;

	if (q == NULL)
		return xstrdup("<absent>");
	o.n = (size_t)snprintf(o.b, sizeof(o.b), "%s", q->name);
	for (k = 0; k < q->nat; k++)
		o.n += (size_t)snprintf(o.b + o.n, sizeof(o.b) - o.n, " %s/%s",
		    q->address[k], decl_routing_name(q->routing[k]));
	return xstrdup(o.b);
}

#define ASSERT_PLACES(s, name, want)                                           \
	do {                                                                   \
		char *got_ = places((s), (name));                              \
		assert_string_equal(got_, (want));                             \
		free(got_);                                                    \
	} while (0)

static void
test_scope__declarations_managed_captures_extra(void **state)
{
	struct decl_cluster *c, *base;
	struct plan_managed m = {0};
	struct live_scope s;
	const char *extra[] = {"ops.x", "orders"};

	(void)state;
	c = parse(HEAD "addresses:\n"
	               "  - name: orders\n"
	               "    routing: [anycast]\n"
	               "    queues: [{name: orders}, {name: moved}]\n"
	               "  - name: audit\n"
	               "    routing: [multicast]\n"
	               "    queues: [{name: audit, routing: multicast}]\n"
	               "captures:\n"
	               "  - {name: dbg, pattern: 'orders*'}\n");
	base = parse(HEAD "addresses:\n"
	                  "  - name: old\n"
	                  "    routing: [anycast]\n"
	                  "    queues: [{name: moved}, {name: gone}]\n");
	char q1[] = "gone", q2[] = "kept-by-inventory", q3[] = "orders";
	char cap[] = "old-capture";
	char *mq[] = {q1, q2, q3}, *mc[] = {cap};

	m.queues = mq;
	m.nqueues = 3;
	m.captures = mc;
	m.ncaptures = 1;
	plan_scope_build(&s, c, base, &m, extra, 2, NULL);
	assert_false(s.reload);
	ASSERT_PLACES(&s, "orders", "orders orders/anycast");
	ASSERT_PLACES(&s, "audit", "audit audit/multicast");
	/* declared at one address, at another in the base: both looked at */
	ASSERT_PLACES(&s, "moved", "moved orders/anycast old/anycast");
	ASSERT_PLACES(&s, "gone", "gone old/anycast");
	/* managed, placed by no declaration: the second request finds it */
	ASSERT_PLACES(&s, "kept-by-inventory", "kept-by-inventory");
	ASSERT_PLACES(&s, "ops.x", "ops.x");
	/* the rings: <prefix><capture>, anycast, on their own address */
	ASSERT_PLACES(&s, "__capture.dbg",
	    "__capture.dbg __capture.dbg/anycast");
	ASSERT_PLACES(&s, "__capture.old-capture",
	    "__capture.old-capture __capture.old-capture/anycast");
	assert_int_equal(s.nqueues, 8);
	live_scope_release(&s);
	decl_cluster_free(base);
	decl_cluster_free(c);
}

static void
test_scope__config_managed_reload(void **state)
{
	struct decl_cluster *c;
	struct live_scope s;

	(void)state;
	c = parse("version: 1\n"
	          "cluster: c1\n"
	          "mode: CONFIG_MANAGED\n"
	          "nodes:\n"
	          "  - name: node1\n"
	          "    jolokia: http://localhost:8161/console/jolokia\n"
	          "    credentials: node1\n");
	plan_scope_build(&s, c, NULL, NULL, NULL, 0, NULL);
	assert_true(s.reload);
	assert_int_equal(s.nqueues, 0);
	live_scope_release(&s);
	decl_cluster_free(c);
}

static void
test_scope__plan_actions(void **state)
{
	struct decl_cluster *c;
	struct live_scope s;
	struct plan p = {0};
	struct plan_action a = {0};
	struct plan_step np[2];
	struct recon_queue seen = {0}, want = {0};
	struct recon_op op = {0};
	char qname[] = "q1", node[] = "node1";

	(void)state;
	c = parse(HEAD);
	memset(np, 0, sizeof(np));
	seen.name = qname;
	seen.address = (char *)(uintptr_t) "where-seen";
	seen.routing = DECL_MULTICAST;
	want.name = qname;
	want.address = (char *)(uintptr_t) "where-wanted";
	want.routing = DECL_ANYCAST;
	op.kind = RECON_OP_CREATE_QUEUE;
	op.name = qname;
	op.queue = &want;
	np[0].node = node;
	np[0].observed.queue = &seen;
	np[1].node = node;
	np[1].ops = &op;
	np[1].nops = 1;
	a.kind = PLAN_ACT_RECREATE_QUEUE;
	a.name = qname;
	a.nodes = np;
	a.nnodes = 2;
	p.actions = &a;
	p.nactions = 1;
	plan_scope_build(&s, c, NULL, NULL, NULL, 0, &p);
	ASSERT_PLACES(&s, "q1", "q1 where-seen/multicast where-wanted/anycast");
	live_scope_release(&s);
	decl_cluster_free(c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_scope__declarations_managed_captures_extra),
	    cmocka_unit_test(test_scope__config_managed_reload),
	    cmocka_unit_test(test_scope__plan_actions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
