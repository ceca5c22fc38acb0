/* reconcile/plan/plan-mermaid.c: the blast-radius graphs (graph.c) as
 * Mermaid flowcharts, for plan.md: GitHub and GitLab draw a ```mermaid
 * block in place.
 *
 * Node ids are generated (n0, n1, ...), never made from names, and every
 * label is a double-quoted string in which each character outside a small
 * safe set is written as Mermaid's entity code (#35; for '#', #34; for
 * '"', ...): a name cannot end the string, start a statement (end,
 * subgraph, style, click are only words inside a string), open a Markdown
 * string (a backtick), close the fenced block (```), nor hide anything
 * (the model has made every invisible or reordering character visible).
 * The ':' is escaped too: Mermaid strips the ';' of a "style...:...#...;"
 * line before it parses, which would break an entity code of a label that
 * holds the word "style".
 */
#include "plan-int.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/sbuf.h"
#include "../../lib/xalloc.h"

/* ASCII characters written as they are: letters, digits and these. */
static const char safe_punct[] = " .,-_/'+=@!?";

static void
esc(struct sbuf *b, const char *s)
{
	const unsigned char *u = (const unsigned char *)(s != NULL ? s : "");

	for (; *u != '\0'; u++) {
		if (*u >= 0x80 || (*u >= 'a' && *u <= 'z') ||
		    (*u >= 'A' && *u <= 'Z') || (*u >= '0' && *u <= '9') ||
		    strchr(safe_punct, *u) != NULL)
			sbuf_addc(b, (char)*u);
		else
			sbuf_addf(b, "#%u;", (unsigned)*u);
	}
}

/* The label of vertex v: its kind, its name, its note, a line each. */
static void
vertex_label(struct sbuf *b, const struct plan_graph_vertex *v)
{
	sbuf_addc(b, '"');
	if (v->kind != PLAN_GRAPH_MORE) {
		sbuf_adds(b, plan_graph_vkind_word(v->kind));
		sbuf_adds(b, "<br/>");
		esc(b, v->name);
	}
	if (v->note != NULL) {
		if (v->kind != PLAN_GRAPH_MORE)
			sbuf_adds(b, "<br/>");
		esc(b, v->note);
	}
	sbuf_addc(b, '"');
}

/* Shapes: an address a box, the queue a cylinder, a capture a
 * subroutine box, the rest a stadium. */
static void
vertex_md(struct sbuf *b, const struct plan_graph_vertex *v, size_t i)
{
	static const char *const open[] = {"[", "[(", "[[", "(["};
	static const char *const close[] = {"]", ")]", "]]", "])"};
	unsigned k = (unsigned)v->kind < 4 ? (unsigned)v->kind : 0;

	sbuf_addf(b, "    n%zu%s", i, open[k]);
	vertex_label(b, v);
	sbuf_addf(b, "%s\n", close[k]);
}

/* A divert or tap that goes is dotted, one that stays solid, a tap thick;
 * a binding is a plain arrow, the elided rest a dotted line. */
static void
edge_md(struct sbuf *b, const struct plan_graph_edge *e)
{
	const char *arrow;

	if (e->kind == PLAN_GRAPH_ELIDED)
		arrow = "-.-";
	else if (e->kind == PLAN_GRAPH_BINDING || e->mark == PLAN_GRAPH_STAYS)
		arrow = e->kind == PLAN_GRAPH_TAP ? "==>" : "-->";
	else
		arrow = "-.->";
	sbuf_addf(b, "    n%zu %s", e->from, arrow);
	if (e->name != NULL || e->note != NULL) {
		sbuf_adds(b, "|\"");
		if (e->kind == PLAN_GRAPH_DIVERT)
			sbuf_adds(b, "divert ");
		esc(b, e->name);
		if (e->name != NULL && e->note != NULL)
			sbuf_adds(b, "<br/>");
		esc(b, e->note);
		sbuf_adds(b, "\"|");
	}
	sbuf_addf(b, " n%zu\n", e->to);
}

/* Per mark (but PLAIN): its class name, its style, its edges' colour. */
static const char *const mark_class[] = {NULL, "goes", "stays", "refused",
    "absent"};
static const char *const mark_style[] = {NULL,
    "fill:#fde2e2,stroke:#b00020,color:#000000",
    "fill:#e3f4e6,stroke:#11722c,color:#000000",
    "fill:#fff1d6,stroke:#a86500,color:#000000",
    "fill:#eeeeee,stroke:#777777,color:#000000,stroke-dasharray:4 3"};
static const char *const mark_colour[] = {NULL, "#b00020", "#11722c", "#a86500",
    "#777777"};
#define MARKS 5

/* The classes the vertices use, each vertex's class, each edge's
 * colour. */
static void
styles_md(struct sbuf *b, const struct plan_graph *g)
{
	bool used[MARKS] = {false};
	size_t i, m;

	for (i = 0; i < g->nv; i++)
		if ((size_t)g->v[i].mark < MARKS)
			used[g->v[i].mark] = true;
	for (m = 1; m < MARKS; m++)
		if (used[m])
			sbuf_addf(b, "    classDef %s %s\n", mark_class[m],
			    mark_style[m]);
	for (i = 0; i < g->nv; i++) {
		m = (size_t)g->v[i].mark;
		if (m > 0 && m < MARKS)
			sbuf_addf(b, "    class n%zu %s\n", i, mark_class[m]);
	}
	for (i = 0; i < g->ne; i++) {
		m = (size_t)g->e[i].mark;
		if (m > 0 && m < MARKS)
			sbuf_addf(b, "    linkStyle %zu stroke:%s\n", i,
			    mark_colour[m]);
	}
}

char *
plan_graph_mermaid(const struct plan_graph *g)
{
	struct sbuf b;
	size_t i;

	sbuf_init(&b, SBUF_UNBOUNDED);
	sbuf_adds(&b, "flowchart LR\n");
	for (i = 0; i < g->nv; i++)
		vertex_md(&b, &g->v[i], i);
	for (i = 0; i < g->ne; i++)
		edge_md(&b, &g->e[i]);
	styles_md(&b, g);
	return sbuf_take(&b);
}

void
plan_graph_md(struct sbuf *b, const struct plan_action *a)
{
	struct plan_graphs gs;
	size_t i, j;
	char *text;

	plan_graphs_build(&gs, a);
	for (i = 0; i < gs.n; i++) {
		sbuf_adds(b, "Blast radius on ");
		for (j = 0; j < gs.v[i].nnodes; j++)
			sbuf_addf(b, "%s**%s**", j > 0 ? ", " : "",
			    gs.v[i].nodes[j]);
		text = plan_graph_mermaid(&gs.v[i]);
		sbuf_addf(b, ":\n\n```mermaid\n%s```\n\n", text);
		free(text);
	}
	plan_graphs_release(&gs);
}
