/* tests/unit/test-graph.c: reconcile/plan/graph.c: the blast radius of a
 * queue delete as a graph: what is drawn per node, nodes that agree
 * grouped, names shown safely and bounded, large cases capped, and the
 * same graphs from a plan parsed back from plan.json. */
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

/* The index of the vertex of kind k shown as name, or -1. */
static int
find_vertex(const struct plan_graph *g, enum plan_graph_vkind k,
    const char *name)
{
	size_t i;

	for (i = 0; i < g->nv; i++)
		if (g->v[i].kind == k && g->v[i].name != NULL &&
		    strcmp(g->v[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* The edge named name from vertex `from` to vertex `to`, or NULL. */
static const struct plan_graph_edge *
find_edge(const struct plan_graph *g, const char *name, int from, int to)
{
	size_t i;

	for (i = 0; i < g->ne; i++)
		if ((int)g->e[i].from == from && (int)g->e[i].to == to &&
		    recon_str_eq(g->e[i].name, name))
			return &g->e[i];
	return NULL;
}

/* A queue delete on two nodes that hold the same: one graph "on
 * broker-a, broker-b": the address, the queue deleted, the dependent
 * divert removed from its source into the queue's address. */
static void
test_graph__nodes_that_agree_share_one_graph(void **state)
{
	struct plan_graphs gs;
	const struct plan_graph *g;
	const struct plan_graph_edge *e;
	struct plan *p;
	struct fx f;
	int a, q, s;
	size_t i;

	(void)state;
	fx_init(&f, DECL_STUDIO_MANAGED, 2);
	for (i = 0; i < 2; i++) {
		fx_lqueue(&f, i, "orders", "orders", 0, 3);
		fx_lqueue(&f, i, "audit-in", "audit-in", 0, 0);
		fx_ldivert(&f, i, "audit-copy", "audit-in", "orders");
	}
	p = plan_delete_queue(&f.c, NULL, "orders", &f.s, &no_opts);
	plan_graphs_build(&gs, &p->actions[0]);
	assert_int_equal(gs.n, 1);
	g = &gs.v[0];
	assert_int_equal(g->nnodes, 2);
	assert_string_equal(g->nodes[0], "broker-a");
	assert_string_equal(g->nodes[1], "broker-b");
	a = find_vertex(g, PLAN_GRAPH_ADDRESS, "orders");
	q = find_vertex(g, PLAN_GRAPH_QUEUE, "orders");
	s = find_vertex(g, PLAN_GRAPH_ADDRESS, "audit-in");
	assert_true(a >= 0 && q >= 0 && s >= 0);
	assert_int_equal(g->v[q].mark, PLAN_GRAPH_GOES);
	assert_string_equal(g->v[q].note, "deleted");
	assert_non_null(find_edge(g, NULL, a, q));
	e = find_edge(g, "audit-copy", s, a);
	assert_non_null(e);
	assert_int_equal(e->kind, PLAN_GRAPH_DIVERT);
	assert_int_equal(e->mark, PLAN_GRAPH_GOES);
	assert_string_equal(e->note, "removed with the queue");
	assert_int_equal(g->ne, 2);
	plan_graphs_release(&gs);
	plan_free(p);
	fx_free(&f);
}

/* Nodes that differ get a graph each: consumers refuse broker-a, broker-b
 * deletes, broker-c has no such queue, broker-d was not read. */
static void
test_graph__nodes_that_differ_get_one_graph_each(void **state)
{
	struct plan_graphs gs;
	struct plan *p;
	struct fx f;
	int q;

	(void)state;
	fx_init(&f, DECL_STUDIO_MANAGED, 4);
	fx_lqueue(&f, 0, "orders", "orders", 2, 0);
	fx_lqueue(&f, 1, "orders", "orders", 0, 0);
	fx_lqueue(&f, 2, "other", "other", 0, 0);
	fx_unreachable(&f, 3, "connection refused");
	p = plan_delete_queue(&f.c, NULL, "orders", &f.s, &no_opts);
	assert_int_equal(p->nactions, 1);
	plan_graphs_build(&gs, &p->actions[0]);
	assert_int_equal(gs.n, 4);
	q = find_vertex(&gs.v[0], PLAN_GRAPH_QUEUE, "orders");
	assert_int_equal(gs.v[0].v[q].mark, PLAN_GRAPH_REFUSED);
	assert_string_equal(gs.v[0].v[q].note, "refused: HAS_CONSUMERS");
	q = find_vertex(&gs.v[1], PLAN_GRAPH_QUEUE, "orders");
	assert_int_equal(gs.v[1].v[q].mark, PLAN_GRAPH_GOES);
	assert_int_equal(gs.v[2].nv, 1);
	assert_int_equal(gs.v[2].v[0].mark, PLAN_GRAPH_ABSENT);
	assert_string_equal(gs.v[2].v[0].note,
	    "not on this node: nothing to delete");
	assert_int_equal(gs.v[3].nv, 1);
	assert_int_equal(gs.v[3].v[0].mark, PLAN_GRAPH_ABSENT);
	assert_string_equal(gs.v[3].v[0].note, "not read: UNREACHABLE");
	assert_string_equal(gs.v[3].nodes[0], "broker-d");
	plan_graphs_release(&gs);
	plan_free(p);
	fx_free(&f);
}

/* A divert sourced at the queue's address is kept (D4) with its reason
 * shortened; a divert into the address that keeps another queue is kept
 * as not dependent; a capture tap on the address goes to its capture,
 * removed by its subscription (the deleted queue was the last it
 * matched). */
static void
test_graph__kept_diverts_and_taps(void **state)
{
	const struct plan_graph_edge *e;
	const struct plan_graph *g;
	struct plan_graphs gs;
	struct plan *p;
	struct fx f;
	int a, c, x, s;

	(void)state;
	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	fx_capture(&f, "debug", "orders");
	fx_lqueue(&f, 0, "orders", "orders", 0, 0);
	fx_lqueue(&f, 0, "orders", "orders.slow", 0, 0);
	fx_lqueue(&f, 0, "archive", "archive", 0, 0);
	fx_lqueue(&f, 0, "in", "in", 0, 0);
	fx_ldivert(&f, 0, "to-archive", "orders", "archive");
	fx_ldivert(&f, 0, "feed", "in", "orders");
	fx_ldivert(&f, 0, "__capture.debug.orders", "orders",
	    "__capture.debug");
	p = plan_delete_queue(&f.c, NULL, "orders", &f.s, &no_opts);
	plan_graphs_build(&gs, &p->actions[0]);
	assert_int_equal(gs.n, 1);
	g = &gs.v[0];
	a = find_vertex(g, PLAN_GRAPH_ADDRESS, "orders");
	x = find_vertex(g, PLAN_GRAPH_ADDRESS, "archive");
	s = find_vertex(g, PLAN_GRAPH_ADDRESS, "in");
	c = find_vertex(g, PLAN_GRAPH_CAPTURE, "debug");
	assert_true(a >= 0 && x >= 0 && s >= 0 && c >= 0);
	e = find_edge(g, "to-archive", a, x);
	assert_non_null(e);
	assert_int_equal(e->mark, PLAN_GRAPH_STAYS);
	assert_string_equal(e->note, "kept: its source is the queue's address");
	e = find_edge(g, "feed", s, a);
	assert_non_null(e);
	assert_string_equal(e->note, "kept: not dependent");
	e = find_edge(g, "__capture.debug.orders", a, c);
	assert_non_null(e);
	assert_int_equal(e->kind, PLAN_GRAPH_TAP);
	assert_int_equal(e->mark, PLAN_GRAPH_GOES);
	assert_string_equal(e->note, "tap removed by its subscription");
	plan_graphs_release(&gs);
	plan_free(p);
	fx_free(&f);
}

/* Hundreds of dependent diverts: at most PLAN_GRAPH_EDGES_MAX drawn, the
 * rest counted in one "and N more" vertex. */
static void
test_graph__large_case_is_capped(void **state)
{
	const struct plan_graph *g;
	struct plan_graphs gs;
	struct plan *p;
	char src[32], name[32];
	struct fx f;
	size_t i, diverts = 0, more = 0;

	(void)state;
	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	fx_lqueue(&f, 0, "orders", "orders", 0, 0);
	for (i = 0; i < 300; i++) {
		snprintf(src, sizeof(src), "in-%03zu", i);
		snprintf(name, sizeof(name), "d-%03zu", i);
		fx_ldivert(&f, 0, name, src, "orders");
	}
	p = plan_delete_queue(&f.c, NULL, "orders", &f.s, &no_opts);
	assert_int_equal(p->actions[0].nodes[0].nremoved, 300);
	plan_graphs_build(&gs, &p->actions[0]);
	g = &gs.v[0];
	for (i = 0; i < g->ne; i++)
		diverts += g->e[i].kind == PLAN_GRAPH_DIVERT;
	for (i = 0; i < g->nv; i++)
		if (g->v[i].kind == PLAN_GRAPH_MORE) {
			more++;
			assert_string_equal(g->v[i].note,
			    "and 284 more: 284 removed diverts (listed below)");
		}
	assert_int_equal(diverts, PLAN_GRAPH_EDGES_MAX);
	assert_int_equal(more, 1);
	assert_true(g->nv <= PLAN_GRAPH_EDGES_MAX + 3);
	plan_graphs_release(&gs);
	plan_free(p);
	fx_free(&f);
}

/* A name is drawn as shown: a right-to-left override, a line break and
 * a space written as <U+XXXX>, cut to PLAN_GRAPH_NAME_MAX characters with
 * "…"; two long names alike in their first characters stay two vertices;
 * a comma-separated forwarding address is one edge per target. */
static void
test_graph__names_shown_safely_and_bounded(void **state)
{
	const struct plan_graph *g;
	struct plan_graphs gs;
	struct plan *p;
	char l1[128], l2[128];
	struct fx f;
	size_t i, n, addresses = 0;

	(void)state;
	memset(l1, 'x', 100);
	l1[100] = '\0';
	memcpy(l2, l1, 101);
	l1[99] = '1';
	l2[99] = '2';
	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	fx_lqueue(&f, 0, "orders", "orders", 0, 0);
	fx_ldivert(&f, 0, "audit\xe2\x80\xaesredro\nx y", l1, "orders");
	fx_ldivert(&f, 0, "long", l2, " orders , billing");
	p = plan_delete_queue(&f.c, NULL, "orders", &f.s, &no_opts);
	plan_graphs_build(&gs, &p->actions[0]);
	g = &gs.v[0];
	assert_non_null(find_edge(g, "audit<U+202E>sredro<U+000A>x<U+0020>y", 2,
	    find_vertex(g, PLAN_GRAPH_ADDRESS, "orders")));
	for (i = 0; i < g->nv; i++) {
		if (g->v[i].kind != PLAN_GRAPH_ADDRESS)
			continue;
		addresses++;
		n = strlen(g->v[i].name);
		if (n > 40)
			assert_string_equal(g->v[i].name + 40, "\xe2\x80\xa6");
	}
	/* orders, billing, and the two long sources */
	assert_int_equal(addresses, 4);
	assert_true(find_vertex(g, PLAN_GRAPH_ADDRESS, "billing") >= 0);
	plan_graphs_release(&gs);
	plan_free(p);
	fx_free(&f);
}

/* Only a queue delete is drawn. */
static void
test_graph__other_actions_have_none(void **state)
{
	struct plan_graphs gs;
	struct plan_action a = {0};

	(void)state;
	a.kind = PLAN_ACT_DELETE_DIVERT;
	plan_graphs_build(&gs, &a);
	assert_int_equal(gs.n, 0);
	plan_graphs_release(&gs);
}

/* The web page draws from plan.json: for every golden case, the graphs
 * of the plan parsed back are the ones plan.md holds (its Mermaid blocks
 * were rendered from the plan in memory). */
static void
test_graph__same_graphs_from_plan_json(void **state)
{
	struct plan_graphs gs;
	struct plan *p = NULL;
	struct err err = {0};
	char *json, *md, *path, *text, *block;
	size_t i, j, k, len, found = 0;
	glob_t gl;

	(void)state;
	assert_int_equal(
	    glob("tests/golden/recon/*/expect/plan.json", 0, NULL, &gl), 0);
	for (i = 0; i < gl.gl_pathc; i++) {
		assert_int_equal(
		    afile_read(&json, &len, gl.gl_pathv[i], 1u << 24, &err), 0);
		assert_int_equal(
		    plan_parse_json(&p, gl.gl_pathv[i], json, len, &err), 0);
		path = xstrdup(gl.gl_pathv[i]);
		strcpy(path + strlen(path) - 4, "md");
		assert_int_equal(afile_read(&md, &len, path, 1u << 24, &err),
		    0);
		for (j = 0; j < p->nactions; j++) {
			plan_graphs_build(&gs, &p->actions[j]);
			for (k = 0; k < gs.n; k++) {
				text = plan_graph_mermaid(&gs.v[k]);
				block = xasprintf("```mermaid\n%s```\n", text);
				if (strstr(md, block) == NULL)
					fail_msg("%s: action %zu: no block\n%s",
					    path, j + 1, block);
				found++;
				free(block);
				free(text);
			}
			plan_graphs_release(&gs);
		}
		free(path);
		free(md);
		free(json);
		plan_free(p);
	}
	globfree(&gl);
	assert_true(found >= 30);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_graph__nodes_that_agree_share_one_graph),
	    cmocka_unit_test(test_graph__nodes_that_differ_get_one_graph_each),
	    cmocka_unit_test(test_graph__kept_diverts_and_taps),
	    cmocka_unit_test(test_graph__large_case_is_capped),
	    cmocka_unit_test(test_graph__names_shown_safely_and_bounded),
	    cmocka_unit_test(test_graph__other_actions_have_none),
	    cmocka_unit_test(test_graph__same_graphs_from_plan_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
