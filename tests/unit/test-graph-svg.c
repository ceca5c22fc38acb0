/* tests/unit/test-graph-svg.c: agent/web/graph-svg.c: a blast-radius graph
 * drawn by Graphviz as inline SVG: well-formed XML (parsed by libxml2),
 * one <svg> element and nothing before it, names as text (no element,
 * script, link or event handler made of one), ids prefixed, and calls
 * from many threads at once serialized. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../agent/web/web-int.h"
#include "../../lib/sbuf.h"
#include "plan-fixture.h"

static const char *const hostile[] = {
    "<script>alert(1)</script>",
    "\"><a xlink:href=\"http://x/\">",
    "&amp;&#60;]]>",
    "x' onload='alert(1)",
    "a\nb\xe2\x80\xaeltr",
    "end",
};
#define NHOSTILE (sizeof(hostile) / sizeof(hostile[0]))

/* A plan deleting queue hostile[i] on one node, with a dependent divert
 * and a kept one named by the others. */
static struct plan *
hostile_plan(struct fx *f, size_t i)
{
	fx_init(f, DECL_STUDIO_MANAGED, 1);
	fx_lqueue(f, 0, hostile[i], hostile[i], 0, 0);
	fx_lqueue(f, 0, "other", "other", 0, 0);
	fx_ldivert(f, 0, hostile[(i + 1) % NHOSTILE],
	    hostile[(i + 2) % NHOSTILE], hostile[i]);
	fx_ldivert(f, 0, hostile[(i + 3) % NHOSTILE], hostile[i], "other");
	return plan_delete_queue(&f->c, NULL, hostile[i], &f->s, &no_opts);
}

/* Every element and attribute of the tree: no script, no foreign object,
 * no link, no event handler; the text of every <text> element appended
 * to texts (one a line). */
static void
walk(xmlNode *n, struct sbuf *texts)
{
	xmlAttr *a;
	xmlChar *c;

	for (; n != NULL; n = n->next) {
		if (n->type != XML_ELEMENT_NODE)
			continue;
		assert_true(
		    xmlStrcasecmp(n->name, (const xmlChar *)"script") != 0);
		assert_true(xmlStrcasecmp(n->name,
		                (const xmlChar *)"foreignObject") != 0);
		assert_true(xmlStrcasecmp(n->name, (const xmlChar *)"a") != 0);
		for (a = n->properties; a != NULL; a = a->next) {
			assert_true(xmlStrcasecmp(a->name,
			                (const xmlChar *)"href") != 0);
			assert_true(xmlStrncasecmp(a->name,
			                (const xmlChar *)"on", 2) != 0);
		}
		if (xmlStrcmp(n->name, (const xmlChar *)"text") == 0) {
			c = xmlNodeGetContent(n);
			sbuf_addf(texts, "%s\n", (const char *)c);
			xmlFree(c);
		}
		walk(n->children, texts);
	}
}

/* Hostile names: the SVG is one well-formed <svg> element whose texts
 * hold each name as the model shows it. */
static void
test_graph_svg__hostile_names_are_text(void **state)
{
	struct plan_graphs gs;
	struct sbuf svg = {0}, texts = {0};
	struct err err = {0};
	struct plan *p;
	xmlDoc *doc;
	struct fx f;
	char *line;
	size_t i, j;

	(void)state;
	for (i = 0; i < NHOSTILE; i++) {
		p = hostile_plan(&f, i);
		plan_graphs_build(&gs, &p->actions[0]);
		assert_int_equal(gs.n, 1);
		sbuf_reset(&svg);
		assert_int_equal(web_graph_svg(&svg, &gs.v[0], "g1", &err), 0);
		assert_true(strncmp(sbuf_str(&svg), "<svg", 4) == 0);
		assert_null(strstr(sbuf_str(&svg), "<?xml"));
		assert_null(strstr(sbuf_str(&svg), "<!DOCTYPE"));
		doc = xmlReadMemory(svg.buf, (int)svg.len, "graph.svg", NULL,
		    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
		if (doc == NULL)
			fail_msg("not well-formed XML:\n%s", sbuf_str(&svg));
		assert_string_equal(
		    (const char *)xmlDocGetRootElement(doc)->name, "svg");
		sbuf_reset(&texts);
		walk(xmlDocGetRootElement(doc), &texts);
		for (j = 0; j < gs.v[0].nv; j++) {
			if (gs.v[0].v[j].name == NULL)
				continue;
			line = xasprintf("\n%s\n", gs.v[0].v[j].name);
			if (strstr(sbuf_str(&texts), line) == NULL)
				fail_msg("'%s' not a text of:\n%s",
				    gs.v[0].v[j].name, sbuf_str(&texts));
			free(line);
		}
		assert_non_null(strstr(sbuf_str(&svg), "id=\"g1"));
		xmlFreeDoc(doc);
		plan_graphs_release(&gs);
		plan_free(p);
		fx_free(&f);
	}
	sbuf_release(&texts);
	sbuf_release(&svg);
}

struct job {
	const struct plan_graph *g;
	char *first;
	bool same;
};

static void *
draw_many(void *arg)
{
	struct job *j = arg;
	struct sbuf b = {0};
	struct err err = {0};
	int i;

	j->same = true;
	for (i = 0; i < 8; i++) {
		sbuf_reset(&b);
		if (web_graph_svg(&b, j->g, "t", &err) != 0) {
			j->same = false;
			break;
		}
		if (j->first == NULL)
			j->first = xstrdup(sbuf_str(&b));
		else if (strcmp(j->first, sbuf_str(&b)) != 0)
			j->same = false;
	}
	sbuf_release(&b);
	err_release(&err);
	return NULL;
}

/* The server draws from a thread per connection: four threads drawing at
 * once all get the same, whole SVG. */
static void
test_graph_svg__threads_are_serialized(void **state)
{
	struct plan_graphs gs;
	struct job jobs[4];
	pthread_t t[4];
	struct plan *p;
	struct fx f;
	size_t i;

	(void)state;
	p = hostile_plan(&f, 0);
	plan_graphs_build(&gs, &p->actions[0]);
	memset(jobs, 0, sizeof(jobs));
	for (i = 0; i < 4; i++) {
		jobs[i].g = &gs.v[0];
		assert_int_equal(
		    pthread_create(&t[i], NULL, draw_many, &jobs[i]), 0);
	}
	for (i = 0; i < 4; i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);
	for (i = 0; i < 4; i++) {
		assert_true(jobs[i].same);
		assert_non_null(jobs[i].first);
		assert_string_equal(jobs[i].first, jobs[0].first);
	}
	for (i = 0; i < 4; i++)
		free(jobs[i].first);
	plan_graphs_release(&gs);
	plan_free(p);
	fx_free(&f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_graph_svg__hostile_names_are_text),
	    cmocka_unit_test(test_graph_svg__threads_are_serialized),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
