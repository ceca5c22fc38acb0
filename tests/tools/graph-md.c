/* tests/tools/graph-md.c: the blast-radius Mermaid blocks, as plan.md
 * holds them (plan_graph_md), of queue deletes no golden case can hold,
 * for tests/golden/mermaid/run.sh to render with the Mermaid CLI:
 *
 *   graph-md > FILE.md
 *
 * hostile names (Mermaid's keywords, its delimiters, entity codes, the
 * Markdown fence, HTML, control, line-break and bidi characters, invalid
 * UTF-8) of queues, addresses, diverts and captures; a large case (300
 * dependent diverts, 40 kept, 10 taps: drawn up to the cap, "and N more").
 * Each case is a "## " heading and its blocks: three diagrams, as each
 * costs the test a page of Chromium (the goldens have the rest: nodes
 * that differ, refused, without the queue).
 */
#include <stdio.h>
#include <stdlib.h>

#include "../../lib/sbuf.h"
#include "../../reconcile/plan/plan-int.h"
#include "../unit/plan-fixture.h"

static const char *const hostile[] = {
    "end",
    "subgraph",
    "style n0 fill:#f00;",
    "click n0 call alert(1)",
    "\"]; n9[(\"x\")] %% c",
    "```",
    "`md` **b**",
    "<script>alert(1)</script><br/>",
    "#quot;#35;&amp;&#60;",
    "a|b|c{d}(e)[f]",
    "x;y:z",
    "line\nbreak\r\n```mermaid",
    "rl\xe2\x80\xaeo\xe2\x81\xa6x\xe2\x80\x8b",
    "tab\tdel\x7f\xc2\x85",
    "bad\xff\xfeutf8",
    "%%{init: {\"theme\":\"dark\"}}%%",
};
#define NHOSTILE (sizeof(hostile) / sizeof(hostile[0]))

static void
print_case(const char *title, struct plan *p)
{
	struct sbuf b = {0};
	size_t i;

	printf("## %s\n\n", title);
	for (i = 0; i < p->nactions; i++)
		plan_graph_md(&b, &p->actions[i]);
	fputs(sbuf_str(&b), stdout);
	sbuf_release(&b);
	plan_free(p);
}

/* Queue hostile[q] on address hostile[a]; every other name a dependent
 * divert from another hostile address, and a kept one sourced at it. */
static void
hostile_case(size_t q, size_t a)
{
	struct fx f;
	char name[64];
	size_t i;

	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	fx_lqueue(&f, 0, hostile[a], hostile[q], 0, 0);
	fx_lqueue(&f, 0, "kept", "kept", 0, 0);
	for (i = 0; i < NHOSTILE; i++) {
		if (i == q || i == a)
			continue;
		fx_ldivert(&f, 0, hostile[i], hostile[(i + 1) % NHOSTILE],
		    hostile[a]);
		snprintf(name, sizeof(name), "k-%zu", i);
		if (i % 4 == 0)
			fx_ldivert(&f, 0, name, hostile[a], hostile[i]);
	}
	print_case("hostile names",
	    plan_delete_queue(&f.c, NULL, hostile[q], &f.s, &no_opts));
	fx_free(&f);
}

static void
large_case(void)
{
	struct fx f;
	char src[32], name[32];
	size_t i;

	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	fx_capture(&f, "debug", "orders*");
	fx_lqueue(&f, 0, "orders", "orders", 0, 0);
	fx_lqueue(&f, 0, "orders", "orders.2", 0, 0);
	fx_lqueue(&f, 0, "out", "out", 0, 0);
	for (i = 0; i < 300; i++) {
		snprintf(src, sizeof(src), "in-%03zu", i);
		snprintf(name, sizeof(name), "d-%03zu", i);
		fx_ldivert(&f, 0, name, src, "orders");
	}
	for (i = 0; i < 40; i++) {
		snprintf(name, sizeof(name), "k-%03zu", i);
		fx_ldivert(&f, 0, name, "orders", "out");
	}
	for (i = 0; i < 10; i++) {
		snprintf(name, sizeof(name), "__capture.c%zu.orders", i);
		fx_ldivert(&f, 0, name, "orders", "__capture.c");
	}
	print_case("300 removed, 40 kept, 10 taps",
	    plan_delete_queue(&f.c, NULL, "orders.2", &f.s, &no_opts));
	fx_free(&f);
}

int
main(void)
{
	/* every name in each: as the queue or its address, a divert, a
	 * divert's source or forwarding address */
	hostile_case(0, 1);
	hostile_case(4, 11);
	large_case();
	return 0;
}
