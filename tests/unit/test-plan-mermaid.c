/* tests/unit/test-plan-mermaid.c: reconcile/plan/plan-mermaid.c: the
 * blast-radius graphs as Mermaid flowcharts in plan.md: generated ids,
 * every label escaped so that no name breaks the diagram or the Markdown
 * around it, and the blocks in plan.md. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/sbuf.h"
#include "plan-fixture.h"

/* Names that would break a diagram or its Markdown if written as they
 * are. */
static const char *const hostile[] = {
    "\"]; click n0 call alert(1) %%",
    "end",
    "subgraph",
    "style n0 fill:#f00;",
    "```",
    "a\nb\r```\n",
    "<script>alert(1)</script>",
    "#quot;&amp;&lt;",
    "x|y|z",
    "{curly}(round)[square]",
    "`tick`",
    "semi;colon:",
    "rl\xe2\x80\xaeo\xe2\x81\xa6x",
    "tab\there\x7f",
};
#define NHOSTILE (sizeof(hostile) / sizeof(hostile[0]))

/* A label's text, after the <br/> line breaks and the #NNN; entity codes
 * are taken out, holds only letters, digits, the safe punctuation and
 * UTF-8 bytes. */
static void
assert_label_safe(const char *s, size_t len)
{
	size_t i = 0, j;

	while (i < len) {
		if (strncmp(s + i, "<br/>", 5) == 0) {
			i += 5;
			continue;
		}
		if (s[i] == '#') {
			for (j = i + 1; j < len && isdigit((unsigned char)s[j]);
			     j++)
				;
			assert_true(j > i + 1 && j < len && s[j] == ';');
			i = j + 1;
			continue;
		}
		if ((unsigned char)s[i] < 0x80 && !isalnum((unsigned char)s[i]))
			assert_non_null(strchr(" .,-_/'+=@!?", s[i]));
		i++;
	}
}

/* Every line is one of the statements the renderer writes, each id is
 * generated (n and digits), and every label passes assert_label_safe. */
static void
assert_mermaid_well_formed(const char *text)
{
	const char *line = text, *nl, *q, *end;
	char id[32];
	int n;

	assert_true(strncmp(text, "flowchart LR\n", 13) == 0);
	assert_null(strstr(text, "```"));
	for (line = text + 13; *line != '\0'; line = nl + 1) {
		nl = strchr(line, '\n');
		assert_non_null(nl);
		assert_true(strncmp(line, "    ", 4) == 0);
		line += 4;
		if (strncmp(line, "classDef ", 9) == 0 ||
		    strncmp(line, "class n", 7) == 0 ||
		    strncmp(line, "linkStyle ", 10) == 0) {
			assert_null(memchr(line, '"', (size_t)(nl - line)));
			continue;
		}
		n = 0;
		assert_int_equal(sscanf(line, "%31[n0-9]%n", id, &n), 1);
		assert_true(id[0] == 'n' && strlen(id) > 1);
		q = memchr(line, '"', (size_t)(nl - line));
		if (q == NULL)
			continue;
		end = memchr(q + 1, '"', (size_t)(nl - q - 1));
		assert_non_null(end);
		assert_label_safe(q + 1, (size_t)(end - q - 1));
		/* nothing after the label but its closing bracket or the
		 * edge's `| nK` */
		assert_null(memchr(end + 1, '"', (size_t)(nl - end - 1)));
	}
}

/* Decode the entity codes of s (the label text, quotes excluded). */
static char *
decode(const char *s, size_t len)
{
	struct sbuf b = {0};
	size_t i;
	unsigned c;
	int n;

	for (i = 0; i < len; i++) {
		if (s[i] == '#' && sscanf(s + i, "#%u;%n", &c, &n) == 1) {
			sbuf_addc(&b, (char)c);
			i += (size_t)n - 1;
		} else {
			sbuf_addc(&b, s[i]);
		}
	}
	return sbuf_take(&b);
}

/* Hostile names of queues, diverts and addresses: the flowchart is well
 * formed, ids are generated, and each label decodes to the name as the
 * model shows it. */
static void
test_plan_mermaid__hostile_names_are_escaped(void **state)
{
	struct plan_graphs gs;
	struct plan *p;
	char *text, *label, *want, *at;
	struct fx f;
	size_t i;

	(void)state;
	for (i = 0; i < NHOSTILE; i++) {
		fx_init(&f, DECL_STUDIO_MANAGED, 1);
		fx_lqueue(&f, 0, hostile[i], hostile[i], 0, 0);
		fx_ldivert(&f, 0, hostile[(i + 1) % NHOSTILE],
		    hostile[(i + 2) % NHOSTILE], hostile[i]);
		p = plan_delete_queue(&f.c, NULL, hostile[i], &f.s, &no_opts);
		plan_graphs_build(&gs, &p->actions[0]);
		assert_int_equal(gs.n, 1);
		text = plan_graph_mermaid(&gs.v[0]);
		assert_mermaid_well_formed(text);
		/* the queue's label is n1's */
		at = strstr(text, "    n1[(\"queue<br/>");
		assert_non_null(at);
		at += strlen("    n1[(\"queue<br/>");
		label = decode(at, (size_t)(strstr(at, "<br/>") - at));
		want = gs.v[0].v[1].name;
		assert_string_equal(label, want);
		free(label);
		free(text);
		plan_graphs_release(&gs);
		plan_free(p);
		fx_free(&f);
	}
}

/* No name is ever an id: a queue called n0 is a label, and its vertex is
 * still n1. */
static void
test_plan_mermaid__ids_are_generated(void **state)
{
	struct plan_graphs gs;
	struct plan *p;
	struct fx f;
	char *text;

	(void)state;
	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	fx_lqueue(&f, 0, "n7", "n0", 0, 0);
	p = plan_delete_queue(&f.c, NULL, "n0", &f.s, &no_opts);
	plan_graphs_build(&gs, &p->actions[0]);
	text = plan_graph_mermaid(&gs.v[0]);
	assert_string_equal(text, "flowchart LR\n"
	                          "    n0[\"address<br/>n7\"]\n"
	                          "    n1[(\"queue<br/>n0<br/>deleted\")]\n"
	                          "    n0 --> n1\n"
	                          "    classDef goes "
	                          "fill:#fde2e2,stroke:#b00020,color:#000000\n"
	                          "    class n1 goes\n"
	                          "    linkStyle 0 stroke:#b00020\n");
	free(text);
	plan_graphs_release(&gs);
	plan_free(p);
	fx_free(&f);
}

/* plan.md holds, inside the delete-queue action's section, a line naming
 * the nodes of each graph and its ```mermaid block; other actions none. */
static void
test_plan_mermaid__blocks_in_plan_md(void **state)
{
	struct plan *p;
	struct fx f;
	char *md, *sect, *next;
	size_t i;

	(void)state;
	fx_init(&f, DECL_STUDIO_MANAGED, 3);
	for (i = 0; i < 3; i++)
		fx_lqueue(&f, i, "orders", "orders", i == 2 ? 1 : 0, 0);
	p = plan_delete_queue(&f.c, NULL, "orders", &f.s, &no_opts);
	md = plan_render_md(p, "out");
	sect = strstr(md, "### 1. delete-queue `orders`");
	assert_non_null(sect);
	next = strstr(sect, "Blast radius on **broker-a**, **broker-b**:\n\n"
	                    "```mermaid\nflowchart LR\n");
	assert_non_null(next);
	next = strstr(next, "Blast radius on **broker-c**:\n\n```mermaid\n");
	assert_non_null(next);
	assert_non_null(strstr(next, "refused#58; HAS_CONSUMERS"));
	assert_null(strstr(next + 1, "Blast radius on"));
	free(md);
	plan_free(p);
	fx_free(&f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_plan_mermaid__hostile_names_are_escaped),
	    cmocka_unit_test(test_plan_mermaid__ids_are_generated),
	    cmocka_unit_test(test_plan_mermaid__blocks_in_plan_md),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
