/* tests/unit/test-import.c: reconcile/import/import.c: the nodes'
 * candidates compared into one declaration: declared only when every
 * node holds an object alike and the format can declare it; every other
 * object left out with its reason, per node, and counted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/xalloc.h"
#include "../../reconcile/import/import-int.h"

#define NMAX 3

struct t {
	struct decl_cluster *shell;
	struct import_node nodes[NMAX];
	size_t n;
	struct import_left *ex;
	size_t nex;
	struct import_result r;
};

static void
t_init(struct t *t, enum decl_mode mode, size_t n)
{
	struct decl_node dn = {{0}, NULL, NULL, NULL, NULL, 0};
	size_t i;

	memset(t, 0, sizeof(*t));
	t->shell = decl_cluster_new("shop", mode);
	t->n = n;
	for (i = 0; i < n; i++) {
		dn.name = xasprintf("node%zu", i + 1);
		dn.jolokia = xasprintf("http://n%zu/jolokia", i + 1);
		dn.credentials = xstrdup("c");
		decl_cluster_add_node(t->shell, &dn);
		t->nodes[i].node = dn.name;
		t->nodes[i].objects =
		    decl_cluster_new(dn.name, DECL_STUDIO_MANAGED);
		t->nodes[i].version = xstrdup("2.44.0");
		t->nodes[i].source = dn.jolokia;
		free(dn.credentials);
	}
}

static void
t_free(struct t *t)
{
	size_t i;

	import_result_release(&t->r);
	for (i = 0; i < t->n; i++)
		import_node_release(&t->nodes[i]);
	decl_cluster_free(t->shell);
}

static struct decl_cluster *
N(struct t *t, size_t i)
{
	return t->nodes[i].objects;
}

static size_t
addr(struct decl_cluster *c, const char *name, unsigned routing)
{
	return decl_cluster_add_address(c, name, routing);
}

static struct decl_queue *
queue(struct decl_cluster *c, size_t ai, const char *name, unsigned routing)
{
	struct decl_queue q;
	char *nm = xstrdup(name);

	decl_queue_init(&q);
	q.name = nm;
	q.routing = routing;
	decl_cluster_add_queue(c, ai, &q);
	free(nm);
	return &c->addresses[ai].queues[c->addresses[ai].nqueues - 1];
}

static struct decl_divert *
divert(struct decl_cluster *c, const char *name, const char *src,
    const char *fwd, enum decl_divert_routing rt)
{
	struct decl_divert d;

	decl_divert_init(&d);
	d.name = xstrdup(name);
	d.address = xstrdup(src);
	d.forwarding_address = xstrdup(fwd);
	d.routing_name = xstrdup(name);
	d.routing_type = rt;
	decl_cluster_add_divert(c, &d);
	free(d.name);
	free(d.address);
	free(d.forwarding_address);
	free(d.routing_name);
	return &c->diverts[c->ndiverts - 1];
}

/* The same address with one queue of its name on every node. */
static void
everywhere(struct t *t, const char *name, unsigned routing)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		queue(N(t, i), addr(N(t, i), name, routing), name,
		    routing == DECL_MULTICAST ? DECL_MULTICAST : DECL_ANYCAST);
}

static bool
in_decl(const struct decl_cluster *c, enum import_kind k, const char *name)
{
	if (k == IMPORT_ADDRESS)
		return decl_cluster_find_address(c, name) != NULL;
	if (k == IMPORT_QUEUE)
		return decl_cluster_find_queue(c, name) != NULL;
	return decl_cluster_find_divert(c, name) != NULL;
}

/* Merge, then check what holds for every result: the left-out entries
 * sorted by kind and name, one state per node in node order, counted by
 * reason, none of them declared, and the declared counts those of the
 * declaration. */
static void
merge(struct t *t)
{
	const struct import_result *r = &t->r;
	size_t i, j, by[IMPORT_NWHY] = {0}, nq = 0;

	import_merge(&t->r, t->shell, t->nodes, t->n, t->ex, t->nex, "live");
	t->ex = NULL;
	t->nex = 0;
	assert_string_equal(r->source, "live");
	assert_int_equal(r->nnodes, t->n);
	for (i = 0; i < r->nleft; i++) {
		const struct import_left *l = &r->left[i];

		if (i > 0 && (l[-1].kind > l->kind ||
		                 (l[-1].kind == l->kind &&
		                     strcmp(l[-1].name, l->name) >= 0)))
			fail_msg("left out not sorted at %zu (%s)", i, l->name);
		assert_int_equal(l->nseen, t->n);
		for (j = 0; j < t->n; j++) {
			assert_string_equal(l->seen[j].node, t->nodes[j].node);
			assert_non_null(l->seen[j].state);
		}
		if (in_decl(r->decl, l->kind, l->name))
			fail_msg("%s '%s' is left out and declared",
			    import_kind_name(l->kind), l->name);
		by[l->why]++;
	}
	for (i = 0; i < IMPORT_NWHY; i++)
		assert_int_equal(r->left_by_why[i], by[i]);
	assert_int_equal(import_left_total(r), r->nleft);
	for (i = 0; i < r->decl->naddresses; i++) {
		nq += r->decl->addresses[i].nqueues;
		if (i > 0)
			assert_true(strcmp(r->decl->addresses[i - 1].name,
			                r->decl->addresses[i].name) < 0);
	}
	assert_int_equal(r->declared[IMPORT_ADDRESS], r->decl->naddresses);
	assert_int_equal(r->declared[IMPORT_QUEUE], nq);
	assert_int_equal(r->declared[IMPORT_DIVERT], r->decl->ndiverts);
}

static const struct import_left *
left(const struct t *t, enum import_kind k, const char *name)
{
	size_t i;

	for (i = 0; i < t->r.nleft; i++)
		if (t->r.left[i].kind == k &&
		    strcmp(t->r.left[i].name, name) == 0)
			return &t->r.left[i];
	fail_msg("%s '%s' is not left out", import_kind_name(k), name);
	return NULL;
}

static void
test_import__alike_everywhere_is_declared(void **state)
{
	struct t t;
	struct decl_settings s = {0};
	char pfx[] = "tap.";
	size_t i;

	(void)state;
	t_init(&t, DECL_STUDIO_MANAGED, 3);
	s.capture_prefix = pfx;
	s.max_destroyed_messages = 9;
	decl_cluster_set_settings(t.shell, &s);
	/* added in other orders on each node */
	for (i = 0; i < 3; i++) {
		struct decl_cluster *c = N(&t, i);
		size_t a, b;

		if (i == 1) {
			b = addr(c, "billing", DECL_ANYCAST | DECL_MULTICAST);
			a = addr(c, "audit", DECL_ANYCAST);
		} else {
			a = addr(c, "audit", DECL_ANYCAST);
			b = addr(c, "billing", DECL_ANYCAST | DECL_MULTICAST);
		}
		queue(c, a, "audit", DECL_ANYCAST);
		/* NULL and "" alike */
		queue(c, b, "billing.all", DECL_MULTICAST)->filter =
		    i == 2 ? xstrdup("") : NULL;
		queue(c, b, "billing.one", DECL_ANYCAST);
		divert(c, "copy", "billing", "audit", DECL_DIVERT_ANYCAST);
	}
	merge(&t);
	assert_int_equal(t.r.nleft, 0);
	assert_int_equal(t.r.declared[IMPORT_ADDRESS], 2);
	assert_int_equal(t.r.declared[IMPORT_QUEUE], 3);
	assert_int_equal(t.r.declared[IMPORT_DIVERT], 1);
	assert_string_equal(t.r.decl->addresses[0].name, "audit");
	assert_string_equal(t.r.decl->addresses[1].name, "billing");
	assert_int_equal(t.r.decl->addresses[1].routing,
	    DECL_ANYCAST | DECL_MULTICAST);
	assert_non_null(decl_cluster_find_divert(t.r.decl, "copy"));
	/* the shell's name, mode, nodes and settings */
	assert_string_equal(t.r.decl->name, "shop");
	assert_int_equal(t.r.decl->mode, DECL_STUDIO_MANAGED);
	assert_int_equal(t.r.decl->nnodes, 3);
	assert_string_equal(t.r.decl->nodes[2].jolokia, "http://n3/jolokia");
	assert_string_equal(t.r.decl->settings.capture_prefix, "tap.");
	assert_int_equal(t.r.decl->settings.max_destroyed_messages, 9);
	/* the nodes, their releases and sources */
	assert_string_equal(t.r.nodes[1], "node2");
	assert_string_equal(t.r.versions[1], "2.44.0");
	assert_string_equal(t.r.sources[1], "http://n2/jolokia");
	t_free(&t);
}

static void
test_import__not_on_every_node(void **state)
{
	struct t t;
	const struct import_left *l;

	(void)state;
	t_init(&t, DECL_STUDIO_MANAGED, 2);
	everywhere(&t, "orders", DECL_ANYCAST);
	queue(N(&t, 0), 0, "only1", DECL_ANYCAST)->filter =
	    xstrdup("a = \"b\"");
	addr(N(&t, 1), "only2", DECL_MULTICAST);
	divert(N(&t, 1), "d2", "orders", "orders", DECL_DIVERT_STRIP);
	merge(&t);
	l = left(&t, IMPORT_QUEUE, "only1");
	assert_int_equal(l->why, IMPORT_NOT_EVERYWHERE);
	assert_string_equal(l->detail, "held by 1 of 2 nodes");
	assert_string_equal(l->seen[0].state,
	    "address=\"orders\" routing=anycast filter=\"a = \\\"b\\\"\"");
	assert_string_equal(l->seen[1].state, "absent");
	l = left(&t, IMPORT_ADDRESS, "only2");
	assert_int_equal(l->why, IMPORT_NOT_EVERYWHERE);
	assert_string_equal(l->seen[0].state, "absent");
	assert_string_equal(l->seen[1].state, "routing=[multicast]");
	l = left(&t, IMPORT_DIVERT, "d2");
	assert_int_equal(l->why, IMPORT_NOT_EVERYWHERE);
	assert_string_equal(l->seen[0].state, "absent");
	assert_string_equal(l->seen[1].state,
	    "address=\"orders\" forwarding-address=\"orders\" "
	    "routing-type=STRIP");
	assert_int_equal(t.r.nleft, 3);
	assert_int_equal(t.r.left_by_why[IMPORT_NOT_EVERYWHERE], 3);
	assert_int_equal(t.r.declared[IMPORT_QUEUE], 1);
	t_free(&t);
}

static void
test_import__differs_names_the_settings(void **state)
{
	struct t t;
	const struct import_left *l;
	struct decl_queue *q;
	struct decl_divert *d;
	struct decl_kv kv = {NULL, NULL};
	size_t i;

	(void)state;
	t_init(&t, DECL_STUDIO_MANAGED, 3);
	everywhere(&t, "orders", DECL_ANYCAST);
	for (i = 0; i < 3; i++) {
		q = queue(N(&t, i), 0, "q", DECL_ANYCAST);
		if (i == 1) {
			q->filter = xstrdup("x = 1");
			q->max_consumers = 2;
		}
		if (i == 2)
			q->filter = xstrdup("x = 2");
		addr(N(&t, i), "routed",
		    i == 0 ? DECL_ANYCAST : DECL_MULTICAST);
		d = divert(N(&t, i), "d", "orders", "orders",
		    DECL_DIVERT_STRIP);
		if (i == 2) { /* only its transformer's properties */
			kv.key = xstrdup("k");
			kv.value = xstrdup("v");
			d->transformer_properties = xcalloc(1, sizeof(kv));
			d->transformer_properties[0] = kv;
			d->ntransformer_properties = 1;
		}
		q = queue(N(&t, i), 0, "r", DECL_ANYCAST);
		q->ring_size = i == 0 ? -1 : 100;
		q->exclusive = i == 2;
	}
	merge(&t);
	l = left(&t, IMPORT_QUEUE, "q");
	assert_int_equal(l->why, IMPORT_DIFFERS);
	assert_string_equal(l->detail, "differs in filter, max-consumers");
	assert_string_equal(l->seen[0].state,
	    "address=\"orders\" routing=anycast");
	assert_string_equal(l->seen[1].state,
	    "address=\"orders\" routing=anycast filter=\"x = 1\" "
	    "max-consumers=2");
	l = left(&t, IMPORT_QUEUE, "r");
	assert_string_equal(l->detail, "differs in ring-size, exclusive");
	l = left(&t, IMPORT_ADDRESS, "routed");
	assert_int_equal(l->why, IMPORT_DIFFERS);
	assert_string_equal(l->detail, "differs in routing");
	assert_string_equal(l->seen[0].state, "routing=[anycast]");
	assert_string_equal(l->seen[2].state, "routing=[multicast]");
	l = left(&t, IMPORT_DIVERT, "d");
	assert_int_equal(l->why, IMPORT_DIFFERS);
	assert_string_equal(l->detail, "differs in transformer-properties");
	assert_non_null(strstr(l->seen[2].state, "property: k=\"v\""));
	assert_int_equal(t.r.nleft, 4);
	assert_int_equal(t.r.left_by_why[IMPORT_DIFFERS], 4);
	t_free(&t);
}

static void
test_import__bad_names(void **state)
{
	struct t t;
	const struct import_left *l;
	size_t i;

	(void)state;
	t_init(&t, DECL_STUDIO_MANAGED, 2);
	everywhere(&t, "orders", DECL_ANYCAST);
	everywhere(&t, "a  b", DECL_ANYCAST);
	everywhere(&t, "a,b", DECL_ANYCAST);
	for (i = 0; i < 2; i++) {
		queue(N(&t, i), 0, "__capture.k.orders", DECL_ANYCAST);
		queue(N(&t, i), 0, "a b", DECL_ANYCAST); /* one space: fine */
	}
	merge(&t);
	l = left(&t, IMPORT_ADDRESS, "a  b");
	assert_int_equal(l->why, IMPORT_BAD_NAME);
	assert_string_equal(l->detail, "the name contains two spaces in a row");
	assert_string_equal(left(&t, IMPORT_ADDRESS, "a,b")->detail,
	    "the name contains ','");
	l = left(&t, IMPORT_QUEUE, "__capture.k.orders");
	assert_int_equal(l->why, IMPORT_BAD_NAME);
	assert_string_equal(l->detail,
	    "the name is inside the capture prefix '__capture.'");
	/* the queues of an address left out go with it */
	assert_int_equal(left(&t, IMPORT_QUEUE, "a  b")->why, IMPORT_BAD_NAME);
	assert_int_equal(left(&t, IMPORT_QUEUE, "a,b")->why, IMPORT_BAD_NAME);
	assert_non_null(decl_cluster_find_queue(t.r.decl, "a b"));
	assert_int_equal(t.r.left_by_why[IMPORT_BAD_NAME], 5);
	t_free(&t);
}

/* A queue whose address is left out, and a divert whose source or target
 * is, cannot be declared. */
static void
test_import__address_left_out(void **state)
{
	struct t t;
	const struct import_left *l;
	size_t i;

	(void)state;
	t_init(&t, DECL_STUDIO_MANAGED, 2);
	everywhere(&t, "orders", DECL_ANYCAST);
	for (i = 0; i < 2; i++) {
		size_t a = addr(N(&t, i), "x",
		    i == 0 ? DECL_ANYCAST : DECL_ANYCAST | DECL_MULTICAST);

		queue(N(&t, i), a, "x.q", DECL_ANYCAST);
		divert(N(&t, i), "from-x", "x", "orders", DECL_DIVERT_STRIP);
		divert(N(&t, i), "to-x", "orders", "x", DECL_DIVERT_STRIP);
		divert(N(&t, i), "to-both", "orders", "orders, x",
		    DECL_DIVERT_STRIP);
		divert(N(&t, i), "to-none", "orders", "nowhere",
		    DECL_DIVERT_STRIP);
	}
	merge(&t);
	assert_int_equal(left(&t, IMPORT_ADDRESS, "x")->why, IMPORT_DIFFERS);
	l = left(&t, IMPORT_QUEUE, "x.q");
	assert_int_equal(l->why, IMPORT_ADDRESS_OUT);
	assert_string_equal(l->detail, "its address 'x' is left out");
	assert_string_equal(l->seen[0].state, "address=\"x\" routing=anycast");
	l = left(&t, IMPORT_DIVERT, "from-x");
	assert_int_equal(l->why, IMPORT_ADDRESS_OUT);
	assert_string_equal(l->detail,
	    "reads from address 'x', which is not declared");
	l = left(&t, IMPORT_DIVERT, "to-x");
	assert_int_equal(l->why, IMPORT_ADDRESS_OUT);
	assert_string_equal(l->detail,
	    "forwards to address 'x', which is not declared");
	l = left(&t, IMPORT_DIVERT, "to-both");
	assert_int_equal(l->why, IMPORT_ADDRESS_OUT);
	assert_string_equal(l->detail,
	    "forwards to address 'x', which is not declared");
	assert_int_equal(left(&t, IMPORT_DIVERT, "to-none")->why,
	    IMPORT_ADDRESS_OUT);
	assert_int_equal(t.r.left_by_why[IMPORT_ADDRESS_OUT], 5);
	assert_int_equal(t.r.declared[IMPORT_DIVERT], 0);
	t_free(&t);
}

static void
test_import__nothing_consumes(void **state)
{
	struct t t;
	const struct import_left *l;
	size_t i;

	(void)state;
	t_init(&t, DECL_STUDIO_MANAGED, 2);
	everywhere(&t, "any", DECL_ANYCAST);
	everywhere(&t, "multi", DECL_MULTICAST);
	for (i = 0; i < 2; i++) {
		size_t a = addr(N(&t, i), "lonely", DECL_ANYCAST);

		/* its only queue is on one node: left out */
		if (i == 0)
			queue(N(&t, i), a, "lonely.q", DECL_ANYCAST);
		addr(N(&t, i), "empty", DECL_ANYCAST);
		divert(N(&t, i), "any-to-multi", "any", "multi",
		    DECL_DIVERT_ANYCAST);
		divert(N(&t, i), "multi-to-any", "any", "any",
		    DECL_DIVERT_MULTICAST);
		divert(N(&t, i), "pass-to-multi", "any", "multi",
		    DECL_DIVERT_PASS);
		divert(N(&t, i), "strip-to-multi", "any", "multi",
		    DECL_DIVERT_STRIP);
		divert(N(&t, i), "to-lonely", "any", "lonely",
		    DECL_DIVERT_STRIP);
		divert(N(&t, i), "to-empty", "any", "empty", DECL_DIVERT_PASS);
		divert(N(&t, i), "to-any-and-empty", "any", "any,empty",
		    DECL_DIVERT_STRIP);
	}
	merge(&t);
	l = left(&t, IMPORT_DIVERT, "any-to-multi");
	assert_int_equal(l->why, IMPORT_NOTHING_CONSUMES);
	assert_string_equal(l->detail, "forwards to 'multi': Nothing consumes "
	                               "at multi among the declared queues");
	assert_int_equal(left(&t, IMPORT_DIVERT, "multi-to-any")->why,
	    IMPORT_NOTHING_CONSUMES);
	assert_int_equal(left(&t, IMPORT_DIVERT, "to-lonely")->why,
	    IMPORT_NOTHING_CONSUMES);
	assert_int_equal(left(&t, IMPORT_DIVERT, "to-empty")->why,
	    IMPORT_NOTHING_CONSUMES);
	l = left(&t, IMPORT_DIVERT, "to-any-and-empty");
	assert_int_equal(l->why, IMPORT_NOTHING_CONSUMES);
	assert_non_null(strstr(l->detail, "forwards to 'empty'"));
	/* PASS and STRIP copies reach any queue */
	assert_non_null(decl_cluster_find_divert(t.r.decl, "pass-to-multi"));
	assert_non_null(decl_cluster_find_divert(t.r.decl, "strip-to-multi"));
	assert_int_equal(t.r.left_by_why[IMPORT_NOTHING_CONSUMES], 5);
	assert_int_equal(t.r.declared[IMPORT_DIVERT], 2);
	t_free(&t);
}

/* CONFIG_MANAGED renders broker.xml: a divert's name must be an NCName,
 * and the Nothing-consumes rule is a warning there, not a refusal. */
static void
test_import__config_managed_divert_names(void **state)
{
	struct t t;
	const struct import_left *l;
	enum decl_mode m;
	size_t i;
	int k;

	(void)state;
	for (k = 0; k < 2; k++) {
		m = k == 0 ? DECL_STUDIO_MANAGED : DECL_CONFIG_MANAGED;
		t_init(&t, m, 2);
		everywhere(&t, "any", DECL_ANYCAST);
		everywhere(&t, "multi", DECL_MULTICAST);
		for (i = 0; i < 2; i++) {
			divert(N(&t, i), "a:b", "any", "any",
			    DECL_DIVERT_STRIP);
			divert(N(&t, i), "1st", "any", "any",
			    DECL_DIVERT_STRIP);
			divert(N(&t, i), "ok_name-1.x", "any", "multi",
			    DECL_DIVERT_ANYCAST);
		}
		merge(&t);
		if (m == DECL_STUDIO_MANAGED) {
			assert_non_null(
			    decl_cluster_find_divert(t.r.decl, "a:b"));
			assert_non_null(
			    decl_cluster_find_divert(t.r.decl, "1st"));
			assert_int_equal(
			    left(&t, IMPORT_DIVERT, "ok_name-1.x")->why,
			    IMPORT_NOTHING_CONSUMES);
		} else {
			l = left(&t, IMPORT_DIVERT, "a:b");
			assert_int_equal(l->why, IMPORT_BAD_NAME);
			assert_non_null(strstr(l->detail, "not an XML NCName"));
			assert_int_equal(left(&t, IMPORT_DIVERT, "1st")->why,
			    IMPORT_BAD_NAME);
			assert_non_null(
			    decl_cluster_find_divert(t.r.decl, "ok_name-1.x"));
			assert_int_equal(t.r.decl->mode, DECL_CONFIG_MANAGED);
		}
		t_free(&t);
	}
}

static void
test_import__not_declarable(void **state)
{
	struct t t;
	const struct import_left *l;
	size_t i;

	(void)state;
	t_init(&t, DECL_STUDIO_MANAGED, 2);
	everywhere(&t, "orders", DECL_ANYCAST);
	for (i = 0; i < 2; i++) {
		/* a divert named as a declared queue */
		divert(N(&t, i), "orders", "orders", "orders",
		    DECL_DIVERT_STRIP);
		/* a queue whose routing type is not its address's */
		queue(N(&t, i), 0, "wrong", DECL_MULTICAST);
		addr(N(&t, i), "none", 0);
		divert(N(&t, i), "gap", "orders", "orders,,orders",
		    DECL_DIVERT_STRIP);
	}
	merge(&t);
	l = left(&t, IMPORT_DIVERT, "orders");
	assert_int_equal(l->why, IMPORT_NOT_DECLARABLE);
	assert_string_equal(l->detail, "a declared queue has its name");
	l = left(&t, IMPORT_QUEUE, "wrong");
	assert_int_equal(l->why, IMPORT_NOT_DECLARABLE);
	assert_string_equal(l->detail, "its routing type is not its address's");
	l = left(&t, IMPORT_ADDRESS, "none");
	assert_int_equal(l->why, IMPORT_NOT_DECLARABLE);
	assert_string_equal(l->detail, "no routing type");
	l = left(&t, IMPORT_DIVERT, "gap");
	assert_int_equal(l->why, IMPORT_NOT_DECLARABLE);
	assert_string_equal(l->detail,
	    "an empty entry in its forwarding-address");
	assert_int_equal(t.r.left_by_why[IMPORT_NOT_DECLARABLE], 4);
	t_free(&t);
}

/* Objects left out by rule on several nodes: one entry, each node's
 * state; an object a rule leaves out on one node only is not on every
 * node. */
static void
test_import__excluded_by_rule_are_merged(void **state)
{
	struct t t;
	const struct import_left *l;

	(void)state;
	t_init(&t, DECL_STUDIO_MANAGED, 3);
	everywhere(&t, "orders", DECL_ANYCAST);
	import_left_add1(&t.ex, &t.nex, IMPORT_QUEUE, "DLQ", IMPORT_BROKER_OWN,
	    "node3", "the broker's own");
	import_left_add1(&t.ex, &t.nex, IMPORT_ADDRESS, "DLQ",
	    IMPORT_BROKER_OWN, "node1", "the broker's own");
	import_left_add1(&t.ex, &t.nex, IMPORT_QUEUE, "DLQ", IMPORT_BROKER_OWN,
	    "node1", "the broker's own");
	import_left_add1(&t.ex, &t.nex, IMPORT_ADDRESS, "DLQ",
	    IMPORT_BROKER_OWN, "node3", "the broker's own");
	/* auto-created on node 1, made by hand on nodes 2 and 3 */
	import_left_add1(&t.ex, &t.nex, IMPORT_QUEUE, "auto.q",
	    IMPORT_AUTO_CREATED, "node1", "auto-created");
	queue(N(&t, 1), 0, "auto.q", DECL_ANYCAST);
	queue(N(&t, 2), 0, "auto.q", DECL_ANYCAST);
	/* temporary on node 2, auto-created on node 3 */
	import_left_add1(&t.ex, &t.nex, IMPORT_QUEUE, "tmp", IMPORT_TEMPORARY,
	    "node2", "temporary");
	import_left_add1(&t.ex, &t.nex, IMPORT_QUEUE, "tmp",
	    IMPORT_AUTO_CREATED, "node3", "auto-created");
	import_left_add1(&t.ex, &t.nex, IMPORT_DIVERT, "__capture.d",
	    IMPORT_CAPTURE, "node2", "a capture tap");
	merge(&t);
	assert_int_equal(t.r.nleft, 5);
	l = left(&t, IMPORT_ADDRESS, "DLQ");
	assert_int_equal(l->why, IMPORT_BROKER_OWN);
	assert_null(l->detail);
	assert_string_equal(l->seen[0].state, "the broker's own");
	assert_string_equal(l->seen[1].state, "absent");
	assert_string_equal(l->seen[2].state, "the broker's own");
	l = left(&t, IMPORT_QUEUE, "DLQ");
	assert_int_equal(l->why, IMPORT_BROKER_OWN);
	assert_string_equal(l->seen[0].state, "the broker's own");
	assert_string_equal(l->seen[1].state, "absent");
	assert_string_equal(l->seen[2].state, "the broker's own");
	l = left(&t, IMPORT_QUEUE, "auto.q");
	assert_int_equal(l->why, IMPORT_NOT_EVERYWHERE);
	assert_string_equal(l->detail, "held by 2 of 3 nodes");
	assert_string_equal(l->seen[0].state, "auto-created");
	assert_string_equal(l->seen[1].state,
	    "address=\"orders\" routing=anycast");
	l = left(&t, IMPORT_QUEUE, "tmp");
	assert_int_equal(l->why, IMPORT_TEMPORARY); /* the first node's */
	assert_string_equal(l->seen[0].state, "absent");
	assert_string_equal(l->seen[1].state, "temporary");
	assert_string_equal(l->seen[2].state, "auto-created");
	l = left(&t, IMPORT_DIVERT, "__capture.d");
	assert_int_equal(l->why, IMPORT_CAPTURE);
	assert_true(import_why_is_rule(l->why));
	assert_int_equal(t.r.left_by_why[IMPORT_BROKER_OWN], 2);
	assert_int_equal(t.r.left_by_why[IMPORT_NOT_EVERYWHERE], 1);
	assert_int_equal(t.r.declared[IMPORT_QUEUE], 1);
	t_free(&t);
}

/* Many objects, some of each kind of fate, over three nodes: the sums
 * hold and the declaration is sorted (merge checks both). */
static void
test_import__counts_add_up(void **state)
{
	struct t t;
	char name[32];
	size_t i, k, a;

	(void)state;
	t_init(&t, DECL_STUDIO_MANAGED, 3);
	for (k = 0; k < 60; k++) {
		snprintf(name, sizeof(name), "a%02zu", (k * 37) % 60);
		for (i = 0; i < 3; i++) {
			if (k % 7 == 3 && i == 2)
				continue; /* not everywhere */
			a = addr(N(&t, i), name,
			    k % 11 == 5 && i == 1 ? DECL_MULTICAST
			                          : DECL_ANYCAST);
			queue(N(&t, i), a, name, DECL_ANYCAST)->max_consumers =
			    k % 13 == 4 && i == 0 ? 1 : -1;
			if (k % 5 == 0)
				divert(N(&t, i),
				    name[0] == 'a' ? name + 1 : name, name,
				    "a00", DECL_DIVERT_STRIP);
		}
		if (k % 9 == 2) { /* 7 of them */
			snprintf(name, sizeof(name), "t%02zu", k);
			import_left_add1(&t.ex, &t.nex, IMPORT_QUEUE, name,
			    IMPORT_TEMPORARY, "node2", "temporary");
		}
	}
	merge(&t);
	assert_true(t.r.declared[IMPORT_ADDRESS] > 30);
	assert_true(t.r.declared[IMPORT_DIVERT] > 0);
	assert_true(t.r.left_by_why[IMPORT_NOT_EVERYWHERE] > 0);
	assert_true(t.r.left_by_why[IMPORT_DIFFERS] > 0);
	assert_true(t.r.left_by_why[IMPORT_ADDRESS_OUT] > 0);
	assert_int_equal(t.r.declared[IMPORT_ADDRESS] +
	                     t.r.declared[IMPORT_QUEUE] +
	                     t.r.declared[IMPORT_DIVERT] + t.r.nleft,
	    60 + 60 + 12 + 7);
	assert_int_equal(t.r.left_by_why[IMPORT_TEMPORARY], 7);
	t_free(&t);
}

static void
test_import__names_and_notes(void **state)
{
	struct import_result r;
	size_t w;

	(void)state;
	assert_string_equal(import_kind_name(IMPORT_ADDRESS), "address");
	assert_string_equal(import_kind_name(IMPORT_DIVERT), "divert");
	assert_string_equal(import_why_name(IMPORT_NOT_EVERYWHERE),
	    "NOT_ON_EVERY_NODE");
	assert_string_equal(import_why_name(IMPORT_ADDRESS_OUT),
	    "ADDRESS_LEFT_OUT");
	assert_string_equal(import_why_name((enum import_why)IMPORT_NWHY), "?");
	for (w = 0; w < IMPORT_NWHY; w++) {
		assert_string_not_equal(import_why_name((enum import_why)w),
		    "?");
		assert_non_null(import_why_text((enum import_why)w));
		assert_int_equal(import_why_is_rule((enum import_why)w),
		    w <= IMPORT_CAPTURE);
	}
	memset(&r, 0, sizeof(r));
	import_note(&r, "node%d: %s", 1, "base expanded");
	import_note(&r, "second");
	assert_int_equal(r.nnotes, 2);
	assert_string_equal(r.notes[0], "node1: base expanded");
	import_result_release(&r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_import__alike_everywhere_is_declared),
	    cmocka_unit_test(test_import__not_on_every_node),
	    cmocka_unit_test(test_import__differs_names_the_settings),
	    cmocka_unit_test(test_import__bad_names),
	    cmocka_unit_test(test_import__address_left_out),
	    cmocka_unit_test(test_import__nothing_consumes),
	    cmocka_unit_test(test_import__config_managed_divert_names),
	    cmocka_unit_test(test_import__not_declarable),
	    cmocka_unit_test(test_import__excluded_by_rule_are_merged),
	    cmocka_unit_test(test_import__counts_add_up),
	    cmocka_unit_test(test_import__names_and_notes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
