/* reconcile/plan/graph.c: the blast radius of a queue delete as a graph
 * (plan.h, "the blast radius ... as a graph"): one drawing per node from
 * its step, then the nodes whose drawings are the same grouped. Pure: the
 * renderings are plan-mermaid.c's and agent/web/graph-svg.c's.
 */
#include "plan-int.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/sbuf.h"
#include "../../lib/utf8.h"
#include "../../lib/xalloc.h"

static const char *const vkind_words[] = {"address", "queue", "capture",
    "more"};

const char *
plan_graph_vkind_word(enum plan_graph_vkind k)
{
	return (unsigned)k < sizeof(vkind_words) / sizeof(vkind_words[0])
	           ? vkind_words[k]
	           : "?";
}

/* s cut to at most max code points, "…" marking a cut. */
static char *
bounded(char *s, size_t max)
{
	size_t i = 0, k = 0, n;
	uint32_t c;
	char *out;

	while (s[i] != '\0' && k < max) {
		n = utf8_decode(s + i, &c);
		i += n > 0 ? n : 1;
		k++;
	}
	if (s[i] == '\0')
		return s;
	out = xasprintf("%.*s\xe2\x80\xa6", (int)i, s);
	free(s);
	return out;
}

/* A name as drawn: what may not be in a name made visible, bounded. */
static char *
shown_name(const char *s)
{
	return bounded(utf8_escape(s != NULL ? s : "", utf8_name_problem),
	    PLAN_GRAPH_NAME_MAX);
}

/* A reason as drawn: its head (up to the first ": " or "; "), the
 * control, line-break and bidi characters made visible, bounded. */
static char *
short_reason(const char *prefix, const char *reason)
{
	const char *r = reason != NULL ? reason : "";
	const char *c = strstr(r, ": "), *sc = strstr(r, "; ");
	char *head, *safe, *out;

	if (sc != NULL && (c == NULL || sc < c))
		c = sc;
	head = c != NULL ? xasprintf("%.*s", (int)(c - r), r) : xstrdup(r);
	safe = utf8_escape(head, utf8_line_problem);
	out = xasprintf("%s%s%s", prefix, safe[0] != '\0' ? ": " : "", safe);
	free(head);
	free(safe);
	return bounded(out, PLAN_GRAPH_NOTE_MAX);
}

/* A drawing being made: the graph, and each vertex's kind and full name
 * (two names alike in their first PLAN_GRAPH_NAME_MAX characters are two
 * vertices). */
struct draw {
	struct plan_graph *g;
	struct strv keys;
};

/* The vertex of kind k named name (raw), added when new. */
static size_t
vertex(struct draw *d, enum plan_graph_vkind k, const char *name,
    enum plan_graph_mark mark, char *note)
{
	struct plan_graph *g = d->g;
	struct plan_graph_vertex *v;
	char *key = xasprintf("%d:%s", (int)k, name != NULL ? name : "");
	size_t i;

	for (i = 0; i < d->keys.n && k != PLAN_GRAPH_MORE; i++)
		if (strcmp(d->keys.v[i], key) == 0) {
			free(key);
			free(note);
			return i;
		}
	strv_add(&d->keys, key);
	free(key);
	g->v = xreallocarray(g->v, g->nv + 1, sizeof(*g->v));
	v = &g->v[g->nv];
	v->kind = k;
	v->mark = mark;
	v->name = name != NULL ? shown_name(name) : NULL;
	v->note = note;
	return g->nv++;
}

static void
edge(struct draw *d, enum plan_graph_ekind k, enum plan_graph_mark mark,
    size_t from, size_t to, const char *name, char *note)
{
	struct plan_graph *g = d->g;
	struct plan_graph_edge *e;

	g->e = xreallocarray(g->e, g->ne + 1, sizeof(*g->e));
	e = &g->e[g->ne++];
	e->kind = k;
	e->mark = mark;
	e->from = from;
	e->to = to;
	e->name = name != NULL ? shown_name(name) : NULL;
	e->note = note;
}

/* How many of the removed, kept and taps are drawn: a share of
 * PLAN_GRAPH_EDGES_MAX each (half, a quarter, a quarter), what one does
 * not use going to the others in that order. */
static void
quotas(const struct plan_step *np, size_t q[3])
{
	size_t want[3] = {np->nremoved, np->nkept, np->ntaps};
	size_t share[3] = {PLAN_GRAPH_EDGES_MAX / 2, PLAN_GRAPH_EDGES_MAX / 4,
	    PLAN_GRAPH_EDGES_MAX / 4};
	size_t left = PLAN_GRAPH_EDGES_MAX, i, more;

	for (i = 0; i < 3; i++) {
		q[i] = want[i] < share[i] ? want[i] : share[i];
		left -= q[i];
	}
	for (i = 0; i < 3; i++) {
		more = want[i] - q[i] < left ? want[i] - q[i] : left;
		q[i] += more;
		left -= more;
	}
}

/* Why nothing is drawn around the queue on this node. */
static char *
absent_note(const struct plan_step *np)
{
	if (np->outcome == PLAN_OUT_PASSIVE)
		return xstrdup("passive broker: left alone");
	if (np->outcome == PLAN_OUT_UNREACHABLE)
		return short_reason("not read",
		    np->refusal != NULL ? np->refusal : "UNREACHABLE");
	return xstrdup("not on this node: nothing to delete");
}

/* The edges of one divert: to each target of its forwarding address
 * (a comma-separated list, trimmed as Artemis trims it), in name order
 * (the order of a list does not change where a divert forwards, so it
 * does not part two nodes' drawings), at most TARGETS_MAX, the rest
 * counted in one MORE vertex. */
#define TARGETS_MAX 4

static void
divert_edges(struct draw *dr, enum plan_graph_mark mark, const char *name,
    const char *source, const char *forwarding, const char *note)
{
	const char *p = forwarding, *t;
	struct strv targets = {0};
	size_t s, n, i, rest;

	s = vertex(dr, PLAN_GRAPH_ADDRESS, source, PLAN_GRAPH_PLAIN, NULL);
	while (live_forward_target(&p, &t, &n))
		if (n > 0)
			strv_addf(&targets, "%.*s", (int)n, t);
	if (targets.n == 0)
		strv_add(&targets, forwarding != NULL ? forwarding : "");
	strv_sort(&targets);
	for (i = 0; i < targets.n && i < TARGETS_MAX; i++)
		edge(dr, PLAN_GRAPH_DIVERT, mark, s,
		    vertex(dr, PLAN_GRAPH_ADDRESS, targets.v[i],
		        PLAN_GRAPH_PLAIN, NULL),
		    name, xstrdup(note));
	rest = targets.n - i;
	if (rest > 0)
		edge(dr, PLAN_GRAPH_DIVERT, mark, s,
		    vertex(dr, PLAN_GRAPH_MORE, NULL, PLAN_GRAPH_PLAIN,
		        xasprintf("and %zu more target%s", rest,
		            rest == 1 ? "" : "s")),
		    name, xstrdup(note));
	strv_release(&targets);
}

static void
draw_removed(struct draw *dr, const struct plan_step *np, size_t n)
{
	const struct recon_divert *d;
	bool refused = np->outcome == PLAN_OUT_REFUSED;
	size_t i;

	for (i = 0; i < n; i++) {
		d = &np->removed[i].config;
		divert_edges(dr, refused ? PLAN_GRAPH_REFUSED : PLAN_GRAPH_GOES,
		    d->name, d->address, d->forwarding_address,
		    refused ? "would go with the queue"
		    : np->removed[i].declared
		        ? "removed; declared: can come back"
		        : "removed with the queue");
	}
}

static void
draw_kept(struct draw *dr, const struct plan_step *np, size_t n)
{
	const struct plan_kept_divert *k;
	size_t i;
	char *why;

	for (i = 0; i < n; i++) {
		k = &np->kept[i];
		why = short_reason("kept", k->reason);
		divert_edges(dr, PLAN_GRAPH_STAYS, k->name, k->address,
		    k->forwarding_address, why);
		free(why);
	}
}

/* A tap's source is the queue's address (the preflight names only
 * those); it forwards into its capture's address. */
static void
draw_taps(struct draw *dr, const struct plan_step *np, size_t n, size_t addr)
{
	const struct plan_tap *t;
	size_t i, c;
	bool kept;

	for (i = 0; i < n; i++) {
		t = &np->taps[i];
		kept = t->fate == PLAN_TAP_KEPT;
		c = vertex(dr, PLAN_GRAPH_CAPTURE,
		    t->capture != NULL ? t->capture : "", PLAN_GRAPH_PLAIN,
		    t->capture != NULL
		        ? NULL
		        : xstrdup("no declared capture owns it"));
		edge(dr, PLAN_GRAPH_TAP,
		    kept ? PLAN_GRAPH_STAYS : PLAN_GRAPH_GOES, addr, c, t->name,
		    xstrdup(
		        kept ? "tap kept" : "tap removed by its subscription"));
	}
}

static void
draw_more(struct draw *dr, const struct plan_step *np, const size_t q[3],
    size_t addr)
{
	size_t m[3] = {np->nremoved - q[0], np->nkept - q[1], np->ntaps - q[2]};
	struct sbuf b = {0};
	size_t v;

	if (m[0] + m[1] + m[2] == 0)
		return;
	sbuf_addf(&b, "and %zu more:", m[0] + m[1] + m[2]);
	if (m[0] > 0)
		sbuf_addf(&b, " %zu removed", m[0]);
	if (m[1] > 0)
		sbuf_addf(&b, "%s %zu kept", m[0] > 0 ? "," : "", m[1]);
	if (m[0] + m[1] > 0)
		sbuf_addf(&b, " divert%s", m[0] + m[1] == 1 ? "" : "s");
	if (m[2] > 0)
		sbuf_addf(&b, "%s %zu tap%s", m[0] + m[1] > 0 ? "," : "", m[2],
		    m[2] == 1 ? "" : "s");
	sbuf_adds(&b, " (listed below)");
	v = vertex(dr, PLAN_GRAPH_MORE, NULL, PLAN_GRAPH_PLAIN, sbuf_take(&b));
	edge(dr, PLAN_GRAPH_ELIDED, PLAN_GRAPH_PLAIN, addr, v, NULL, NULL);
}

/* The drawing of one node's step of a. */
static void
draw_step(struct draw *dr, const struct plan_action *a,
    const struct plan_step *np)
{
	const char *address = a->address;
	enum plan_graph_mark mark;
	size_t q[3], addr, queue;

	if (np->observed.queue != NULL && np->observed.queue->address != NULL)
		address = np->observed.queue->address;
	if (np->outcome != PLAN_OUT_WOULD_APPLY &&
	    np->outcome != PLAN_OUT_REFUSED) {
		vertex(dr, PLAN_GRAPH_QUEUE, a->name, PLAN_GRAPH_ABSENT,
		    absent_note(np));
		return;
	}
	mark = np->outcome == PLAN_OUT_REFUSED ? PLAN_GRAPH_REFUSED
	                                       : PLAN_GRAPH_GOES;
	addr = vertex(dr, PLAN_GRAPH_ADDRESS, address != NULL ? address : "",
	    PLAN_GRAPH_PLAIN, NULL);
	queue = vertex(dr, PLAN_GRAPH_QUEUE, a->name, mark,
	    np->outcome == PLAN_OUT_REFUSED
	        ? short_reason("refused",
	              np->refusal != NULL ? np->refusal : "REFUSED")
	        : xstrdup("deleted"));
	edge(dr, PLAN_GRAPH_BINDING, mark, addr, queue, NULL, NULL);
	quotas(np, q);
	draw_removed(dr, np, q[0]);
	draw_kept(dr, np, q[1]);
	draw_taps(dr, np, q[2], addr);
	draw_more(dr, np, q, addr);
}

static bool
same_drawing(const struct plan_graph *x, const struct plan_graph *y)
{
	size_t i;

	if (x->nv != y->nv || x->ne != y->ne)
		return false;
	for (i = 0; i < x->nv; i++)
		if (x->v[i].kind != y->v[i].kind ||
		    x->v[i].mark != y->v[i].mark ||
		    !recon_str_eq(x->v[i].name, y->v[i].name) ||
		    !recon_str_eq(x->v[i].note, y->v[i].note))
			return false;
	for (i = 0; i < x->ne; i++)
		if (x->e[i].kind != y->e[i].kind ||
		    x->e[i].mark != y->e[i].mark ||
		    x->e[i].from != y->e[i].from || x->e[i].to != y->e[i].to ||
		    !recon_str_eq(x->e[i].name, y->e[i].name) ||
		    !recon_str_eq(x->e[i].note, y->e[i].note))
			return false;
	return true;
}

static void
graph_release(struct plan_graph *g)
{
	size_t i;

	strv_array_free(g->nodes, g->nnodes);
	for (i = 0; i < g->nv; i++) {
		free(g->v[i].name);
		free(g->v[i].note);
	}
	free(g->v);
	for (i = 0; i < g->ne; i++) {
		free(g->e[i].name);
		free(g->e[i].note);
	}
	free(g->e);
	memset(g, 0, sizeof(*g));
}

static void
add_node(struct plan_graph *g, const char *node)
{
	g->nodes = xreallocarray(g->nodes, g->nnodes + 1, sizeof(*g->nodes));
	g->nodes[g->nnodes++] = xstrdup(node != NULL ? node : "");
}

void
plan_graphs_build(struct plan_graphs *out, const struct plan_action *a)
{
	struct plan_graph g;
	struct draw dr;
	size_t i, j;

	memset(out, 0, sizeof(*out));
	if (a->kind != PLAN_ACT_DELETE_QUEUE)
		return;
	for (i = 0; i < a->nnodes; i++) {
		memset(&g, 0, sizeof(g));
		dr.g = &g;
		memset(&dr.keys, 0, sizeof(dr.keys));
		draw_step(&dr, a, &a->nodes[i]);
		strv_release(&dr.keys);
		for (j = 0; j < out->n; j++)
			if (same_drawing(&out->v[j], &g))
				break;
		if (j < out->n) {
			add_node(&out->v[j], a->nodes[i].node);
			graph_release(&g);
			continue;
		}
		add_node(&g, a->nodes[i].node);
		out->v = xreallocarray(out->v, out->n + 1, sizeof(*out->v));
		out->v[out->n++] = g;
	}
}

void
plan_graphs_release(struct plan_graphs *g)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		graph_release(&g->v[i]);
	free(g->v);
	memset(g, 0, sizeof(*g));
}
