/* agent/web/page-graph.c: plan.md of a preview as HTML with its blast
 * radius drawn: each ```mermaid block of plan.md (plan-mermaid.c) is
 * replaced, where it stands, by the same graph drawn as SVG on the server
 * (graph-svg.c). The page has no script (its Content-Security-Policy
 * allows none), so Mermaid itself cannot draw there, and a code block of
 * flowchart text is for machines, not for the operator.
 *
 * Both drawings come from the one model: the graphs are built again from
 * plan.json (plan_graphs_build), and a block is replaced only by the SVG
 * of the graph whose Mermaid text it is, character for character. A block
 * that matches no graph (a plan.md edited by hand), or a plan.json that
 * cannot be read, leaves the code block as it is.
 */
#include "web-int.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/xalloc.h"
#include "../../reconcile/plan/plan.h"

#define BLOCK_OPEN  "<pre><code class=\"language-mermaid\">"
#define BLOCK_CLOSE "</code></pre>"

/* Every delete-queue graph of plan.json and its Mermaid text. */
struct page_graphs {
	struct plan_graphs *sets;
	size_t nsets;
	const struct plan_graph **g;
	char **text;
	size_t n;
};

static void
graphs_load(struct page_graphs *pg, const struct plan *p)
{
	size_t i, j;

	memset(pg, 0, sizeof(*pg));
	pg->sets = xcalloc(p->nactions + 1, sizeof(*pg->sets));
	for (i = 0; i < p->nactions; i++) {
		plan_graphs_build(&pg->sets[pg->nsets], &p->actions[i]);
		for (j = 0; j < pg->sets[pg->nsets].n; j++) {
			pg->g = xreallocarray(pg->g, pg->n + 1,
			    sizeof(const struct plan_graph *));
			pg->text =
			    xreallocarray(pg->text, pg->n + 1, sizeof(char *));
			pg->g[pg->n] = &pg->sets[pg->nsets].v[j];
			pg->text[pg->n] =
			    plan_graph_mermaid(&pg->sets[pg->nsets].v[j]);
			pg->n++;
		}
		pg->nsets++;
	}
}

static void
graphs_release(struct page_graphs *pg)
{
	size_t i;

	for (i = 0; i < pg->nsets; i++)
		plan_graphs_release(&pg->sets[i]);
	free(pg->sets);
	strv_array_free(pg->text, pg->n);
	free(pg->g);
	memset(pg, 0, sizeof(*pg));
}

/* The code block's text as Mermaid wrote it: md4c-html escapes & < > "
 * in code, and nothing else. */
static char *
unescape(const char *s, size_t len)
{
	static const char *const ent[] = {"&amp;", "&lt;", "&gt;", "&quot;"};
	static const char ch[] = "&<>\"";
	struct sbuf b = {0};
	size_t i, k, n;

	for (i = 0; i < len; i++) {
		for (k = 0; k < 4; k++) {
			n = strlen(ent[k]);
			if (len - i >= n && memcmp(s + i, ent[k], n) == 0)
				break;
		}
		if (k < 4) {
			sbuf_addc(&b, ch[k]);
			i += n - 1;
		} else {
			sbuf_addc(&b, s[i]);
		}
	}
	return sbuf_take(&b);
}

/* The SVG for the block holding text: true when drawn into out. */
static bool
draw_block(struct sbuf *out, const struct page_graphs *pg, const char *text,
    size_t ordinal)
{
	struct sbuf svg = {0};
	struct err err = {0};
	char id[32];
	size_t i;
	bool ok = false;

	for (i = 0; i < pg->n; i++)
		if (strcmp(pg->text[i], text) == 0)
			break;
	if (i == pg->n)
		return false;
	snprintf(id, sizeof(id), "blast%zu", ordinal);
	if (web_graph_svg(&svg, pg->g[i], id, &err) == 0) {
		sbuf_adds(out, "<figure class=\"graph\">\n");
		sbuf_add(out, svg.buf, svg.len);
		sbuf_adds(out, "</figure>\n");
		ok = true;
	}
	sbuf_release(&svg);
	err_release(&err);
	return ok;
}

/* html (md4c's) into out, each Mermaid code block drawn when it can be. */
static void
splice(struct sbuf *out, const char *html, const struct page_graphs *pg)
{
	const char *at = html, *open, *body, *close;
	size_t k = 0;
	char *text;

	for (;;) {
		open = strstr(at, BLOCK_OPEN);
		close = open != NULL ? strstr(open, BLOCK_CLOSE) : NULL;
		if (close == NULL)
			break;
		body = open + strlen(BLOCK_OPEN);
		sbuf_add(out, at, (size_t)(open - at));
		text = unescape(body, (size_t)(close - body));
		at = close + strlen(BLOCK_CLOSE);
		if (!draw_block(out, pg, text, ++k))
			sbuf_add(out, open, (size_t)(at - open));
		free(text);
	}
	sbuf_adds(out, at);
}

/* plan.json's graphs; false when it cannot be read. */
static bool
plan_graphs_of(struct page_graphs *pg, const struct web_view *v,
    const char *cluster, const char *id)
{
	struct plan *p = NULL;
	struct err err = {0};
	char *json = NULL;
	size_t len = 0;
	bool ok = false;

	if (web_model_file(v, cluster, id, "plan.json", &json, &len, &err) ==
	        0 &&
	    plan_parse_json(&p, "plan.json", json, len, &err) == 0) {
		graphs_load(pg, p);
		ok = true;
	}
	plan_free(p);
	free(json);
	err_release(&err);
	return ok;
}

void
web_page_graph_plan_md(struct sbuf *b, const struct web_view *v,
    const char *cluster, const char *id)
{
	struct page_graphs pg;
	struct sbuf html = {0};
	struct err err = {0};
	char *md = NULL;
	size_t len = 0;

	if (web_model_file(v, cluster, id, "plan.md", &md, &len, &err) != 0 ||
	    !plan_graphs_of(&pg, v, cluster, id)) {
		/* says what is missing, as for any other file */
		web_html_md_file(b, v, cluster, id, "plan.md");
		goto done;
	}
	sbuf_adds(b, "<div class=\"plan\">\n");
	if (web_md_html(md, len, &html) == 0) {
		splice(b, sbuf_str(&html), &pg);
	} else {
		sbuf_adds(b, "<pre>");
		web_html_esc(b, md);
		sbuf_adds(b, "</pre>\n");
	}
	sbuf_adds(b, "</div>\n");
	graphs_release(&pg);
done:
	sbuf_release(&html);
	err_release(&err);
	free(md);
}
