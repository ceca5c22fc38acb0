/* agent/web/graph-svg.c: a blast-radius graph (reconcile/plan/plan.h,
 * plan_graphs_build) drawn by Graphviz's dot as SVG, inlined in a page;
 * the one file that includes Graphviz (libgvc, libcgraph).
 *
 * The graph is built with cgraph's calls, never as DOT text: node names
 * are generated (n0, n1, ...) and labels are attribute values set
 * directly, so a name cannot add a DOT statement; in a label Graphviz
 * reads backslash escapes and HTML entities, so a name's backslashes and
 * ampersands are escaped (label_esc), and it escapes the text as it
 * writes the SVG, so a name cannot add markup. (Graphviz 2.42's HTML-like
 * labels would allow bold and small print, but leak memory at every
 * layout: plain labels.) What the
 * page gets is the <svg> element alone (no XML declaration, no DOCTYPE,
 * no comment before it), with no script and no link: the page's
 * Content-Security-Policy (html.c) allows neither.
 *
 * Graphviz is not thread-safe (global state in cgraph and in the layout)
 * and the web server runs a thread per connection: every call into it
 * holds one mutex. Its messages are kept from stderr and the first is
 * returned as the error.
 */
#include "web-int.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>
#include <graphviz/gvplugin.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/xalloc.h"
#include "../../reconcile/plan/plan.h"

/* Graphviz's plugins, linked in rather than loaded from its configuration:
 * the dot layout and the core renderers (svg) only. Without the pango
 * plugin the text is measured by Graphviz's own font metrics, so a drawing
 * is the same on every machine whatever fonts it has, and no fontconfig
 * or cairo runs in the server (Graphviz 2.42's pango plugin also reads a
 * font name freed with the context of the previous call). */
extern gvplugin_library_t gvplugin_dot_layout_LTX_library;
extern gvplugin_library_t gvplugin_core_LTX_library;
static const lt_symlist_t gv_builtins[] = {
    {"gvplugin_dot_layout_LTX_library", &gvplugin_dot_layout_LTX_library},
    {"gvplugin_core_LTX_library", &gvplugin_core_LTX_library},
    {NULL, NULL},
};

static pthread_mutex_t gv_lock = PTHREAD_MUTEX_INITIALIZER;
/* The first message Graphviz gave during the call that holds gv_lock. */
static char gv_msg[256];

static int
gv_err(char *msg)
{
	size_t n;

	if (gv_msg[0] == '\0' && msg != NULL) {
		snprintf(gv_msg, sizeof(gv_msg), "%s", msg);
		n = strlen(gv_msg);
		while (n > 0 && (gv_msg[n - 1] == '\n' || gv_msg[n - 1] == ' '))
			gv_msg[--n] = '\0';
	}
	return 0;
}

/* A name in a label: Graphviz reads "\\" escapes (\N, \n, ...) and
 * HTML entities in a label's text, so a backslash and an ampersand are
 * written as themselves escaped; the SVG writer escapes the text again. */
static void
label_esc(struct sbuf *b, const char *s)
{
	for (; s != NULL && *s != '\0'; s++) {
		if (*s == '\\')
			sbuf_adds(b, "\\\\");
		else if (*s == '&')
			sbuf_adds(b, "&amp;");
		else
			sbuf_addc(b, *s);
	}
}

/* cgraph takes char * everywhere: the name and value are copied. */
static void
set(void *obj, const char *name, const char *value)
{
	char *n = xstrdup(name), *v = xstrdup(value), def[1] = "";

	agsafeset(obj, n, v, def);
	free(n);
	free(v);
}

static void
set_label(void *obj, struct sbuf *b)
{
	set(obj, "label", sbuf_str(b));
}

/* Per mark: fill and line colours (PLAIN, GOES, STAYS, REFUSED, ABSENT). */
static const char *const fill[] = {"#ffffff", "#fde2e2", "#e3f4e6", "#fff1d6",
    "#eeeeee"};
static const char *const line[] = {"#555555", "#b00020", "#11722c", "#a86500",
    "#777777"};
#define MARKS 5

static unsigned
mark_of(enum plan_graph_mark m)
{
	return (unsigned)m < MARKS ? (unsigned)m : 0;
}

static Agnode_t *
add_vertex(Agraph_t *g, const struct plan_graph_vertex *v, size_t i)
{
	static const char *const shape[] = {"box", "cylinder", "component",
	    "note"};
	struct sbuf b = {0};
	char name[32];
	Agnode_t *n;
	unsigned m = mark_of(v->mark);

	snprintf(name, sizeof(name), "n%zu", i);
	n = agnode(g, name, 1);
	set(n, "shape", shape[(unsigned)v->kind < 4 ? v->kind : 0]);
	set(n, "fillcolor", fill[m]);
	set(n, "color", line[m]);
	set(n, "style",
	    v->mark == PLAN_GRAPH_ABSENT ? "filled,dashed" : "filled");
	if (v->kind != PLAN_GRAPH_MORE) {
		sbuf_adds(&b, plan_graph_vkind_word(v->kind));
		sbuf_adds(&b, "\\n");
		label_esc(&b, v->name);
	}
	if (v->note != NULL) {
		if (v->kind != PLAN_GRAPH_MORE)
			sbuf_adds(&b, "\\n");
		label_esc(&b, v->note);
	}
	set_label(n, &b);
	sbuf_release(&b);
	return n;
}

static void
add_edge(Agraph_t *g, Agnode_t **nodes, const struct plan_graph_edge *e)
{
	struct sbuf b = {0};
	Agedge_t *ed;
	unsigned m = mark_of(e->mark);

	ed = agedge(g, nodes[e->from], nodes[e->to], NULL, 1);
	set(ed, "color", line[m]);
	if (e->kind == PLAN_GRAPH_ELIDED) {
		set(ed, "style", "dotted");
		set(ed, "arrowhead", "none");
	} else if (e->kind != PLAN_GRAPH_BINDING &&
	           e->mark != PLAN_GRAPH_STAYS) {
		set(ed, "style", "dashed");
	}
	if (e->kind == PLAN_GRAPH_TAP)
		set(ed, "penwidth", "2");
	if (e->name == NULL && e->note == NULL)
		return;
	if (e->kind == PLAN_GRAPH_DIVERT)
		sbuf_adds(&b, "divert ");
	label_esc(&b, e->name);
	if (e->name != NULL && e->note != NULL)
		sbuf_adds(&b, "\\n");
	label_esc(&b, e->note);
	set(ed, "fontcolor", line[m]);
	set_label(ed, &b);
	sbuf_release(&b);
}

/* The graph as cgraph's, its SVG ids prefixed with id. Node defaults
 * first: each node's own attributes are set as it is added. */
static Agraph_t *
build(const struct plan_graph *pg, const char *id)
{
	char gname[] = "blast", font[] = "fontname", size[] = "fontsize";
	char helvetica[] = "Helvetica", s10[] = "10", s9[] = "9";
	Agnode_t **nodes;
	Agraph_t *g;
	size_t i;

	g = agopen(gname, Agdirected, NULL);
	agattr(g, AGNODE, font, helvetica);
	agattr(g, AGNODE, size, s10);
	agattr(g, AGEDGE, font, helvetica);
	agattr(g, AGEDGE, size, s9);
	set(g, "id", id);
	set(g, "rankdir", "LR");
	set(g, "bgcolor", "transparent");
	set(g, "nodesep", "0.3");
	nodes = xcalloc(pg->nv + 1, sizeof(Agnode_t *));
	for (i = 0; i < pg->nv; i++)
		nodes[i] = add_vertex(g, &pg->v[i], i);
	for (i = 0; i < pg->ne; i++)
		if (pg->e[i].from < pg->nv && pg->e[i].to < pg->nv)
			add_edge(g, nodes, &pg->e[i]);
	free(nodes);
	return g;
}

/* Graphviz's SVG from its <svg element on (the XML declaration, the
 * DOCTYPE and the comments before it dropped). */
static int
keep_svg(struct sbuf *out, const char *data, size_t len, struct err *err)
{
	const char *at = memmem(data, len, "<svg", 4);

	if (at == NULL)
		return err_setf(err, NULL, "graphviz wrote no <svg> element");
	sbuf_add(out, at, len - (size_t)(at - data));
	return 0;
}

int
web_graph_svg(struct sbuf *out, const struct plan_graph *pg, const char *id,
    struct err *err)
{
	char svg[] = "svg", dot[] = "dot", *data = NULL;
	unsigned int len = 0;
	GVC_t *gvc;
	Agraph_t *g;
	int rc = -1;

	pthread_mutex_lock(&gv_lock);
	gv_msg[0] = '\0';
	agseterrf(gv_err);
	gvc = gvContextPlugins(gv_builtins, 0);
	g = build(pg, id);
	if (gvLayout(gvc, g, dot) != 0) {
		err_setf(err, NULL, "graphviz could not lay out the graph: %s",
		    gv_msg[0] != '\0' ? gv_msg : "no reason given");
		goto done;
	}
	if (gvRenderData(gvc, g, svg, &data, &len) != 0 || data == NULL) {
		err_setf(err, NULL, "graphviz could not render SVG: %s",
		    gv_msg[0] != '\0' ? gv_msg : "no reason given");
		gvFreeLayout(gvc, g);
		goto done;
	}
	rc = keep_svg(out, data, len, err);
	gvFreeRenderData(data);
	gvFreeLayout(gvc, g);
done:
	agclose(g);
	gvFreeContext(gvc);
	pthread_mutex_unlock(&gv_lock);
	return rc;
}
