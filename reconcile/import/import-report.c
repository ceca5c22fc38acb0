/* reconcile/import/import-report.c: import-report.json and
 * import-report.md (docs/import.md): what was declared, and every object
 * left out, per node, with why. Deterministic: no clock, no host. */
#include "import-int.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/jsonw.h"
#include "../../lib/sbuf.h"
#include "../../lib/utf8.h"
#include "../../lib/xalloc.h"

#define MD_NAMES_MAX 50 /* names listed per rule in the Markdown */

char *
import_report_json(const struct import_result *r)
{
	struct sbuf b;
	struct jsonw w;
	size_t i, j, k;

	sbuf_init(&b, SBUF_UNBOUNDED);
	jsonw_init(&w, &b, 2);
	jsonw_obj_begin(&w);
	jsonw_key_str(&w, "cluster", r->decl->name);
	jsonw_key(&w, "declared");
	jsonw_obj_begin(&w);
	jsonw_key_int(&w, "addresses", (int64_t)r->declared[IMPORT_ADDRESS]);
	jsonw_key_int(&w, "diverts", (int64_t)r->declared[IMPORT_DIVERT]);
	jsonw_key_int(&w, "queues", (int64_t)r->declared[IMPORT_QUEUE]);
	jsonw_obj_end(&w);
	jsonw_key_str(&w, "format", IMPORT_REPORT_FORMAT);
	jsonw_key(&w, "left_out");
	jsonw_arr_begin(&w);
	for (i = 0; i < r->nleft; i++) {
		const struct import_left *l = &r->left[i];

		jsonw_obj_begin(&w);
		jsonw_key_str(&w, "detail", l->detail);
		jsonw_key_str(&w, "kind", import_kind_name(l->kind));
		jsonw_key_str(&w, "name", l->name);
		jsonw_key(&w, "nodes");
		jsonw_arr_begin(&w);
		for (j = 0; j < l->nseen; j++) {
			jsonw_obj_begin(&w);
			jsonw_key_str(&w, "node", l->seen[j].node);
			jsonw_key_str(&w, "state", l->seen[j].state);
			jsonw_obj_end(&w);
		}
		jsonw_arr_end(&w);
		jsonw_key_str(&w, "reason", import_why_name(l->why));
		jsonw_obj_end(&w);
	}
	jsonw_arr_end(&w);
	jsonw_key(&w, "left_out_by_reason");
	jsonw_obj_begin(&w);
	{
		/* sorted keys: the names in alphabetical order */
		const char *names[IMPORT_NWHY];
		size_t order[IMPORT_NWHY];

		for (i = 0; i < IMPORT_NWHY; i++) {
			names[i] = import_why_name((enum import_why)i);
			order[i] = i;
		}
		for (i = 1; i < IMPORT_NWHY; i++)
			for (k = i; k > 0 && strcmp(names[order[k - 1]],
			                         names[order[k]]) > 0;
			     k--) {
				size_t t = order[k];
				order[k] = order[k - 1];
				order[k - 1] = t;
			}
		for (i = 0; i < IMPORT_NWHY; i++)
			jsonw_key_int(&w, names[order[i]],
			    (int64_t)r->left_by_why[order[i]]);
	}
	jsonw_obj_end(&w);
	jsonw_key_int(&w, "left_out_total", (int64_t)import_left_total(r));
	jsonw_key_str(&w, "mode", decl_mode_name(r->decl->mode));
	jsonw_key(&w, "nodes");
	jsonw_arr_begin(&w);
	for (i = 0; i < r->nnodes; i++) {
		jsonw_obj_begin(&w);
		jsonw_key_str(&w, "name", r->nodes[i]);
		jsonw_key_str(&w, "source", r->sources[i]);
		jsonw_key_str(&w, "version", r->versions[i]);
		jsonw_obj_end(&w);
	}
	jsonw_arr_end(&w);
	jsonw_key(&w, "notes");
	jsonw_arr_begin(&w);
	for (i = 0; i < r->nnotes; i++)
		jsonw_str(&w, r->notes[i]);
	jsonw_arr_end(&w);
	jsonw_key_str(&w, "source", r->source);
	jsonw_key_int(&w, "version", IMPORT_REPORT_VERSION);
	jsonw_obj_end(&w);
	sbuf_addc(&b, '\n');
	return sbuf_take(&b);
}

/* Text from a broker, safe in a Markdown table cell: what is not one
 * line's (controls, line breaks, bidi) as <U+XXXX>, Markdown's own
 * characters escaped. */
static void
md_text(struct sbuf *b, const char *s)
{
	char *e = utf8_escape(s, utf8_line_problem);
	const char *p;

	for (p = e; *p != '\0'; p++) {
		if (strchr("\\`*_[]<>|#!~", *p) != NULL)
			sbuf_addc(b, '\\');
		if (*p == '&')
			sbuf_adds(b, "&amp;");
		else
			sbuf_addc(b, *p);
	}
	free(e);
}

static void
rule_table(struct sbuf *b, const struct import_result *r)
{
	size_t n[IMPORT_NWHY][IMPORT_NKINDS], i, w, shown;
	bool any = false;

	memset(n, 0, sizeof(n));
	for (i = 0; i < r->nleft; i++)
		if (import_why_is_rule(r->left[i].why)) {
			n[r->left[i].why][r->left[i].kind]++;
			any = true;
		}
	if (!any)
		return;
	sbuf_adds(b, "## Left out by rule\n\n"
	             "| reason | addresses | queues | diverts | what |\n"
	             "|---|---|---|---|---|\n");
	for (w = 0; w < IMPORT_NWHY; w++) {
		if (!import_why_is_rule((enum import_why)w) ||
		    n[w][0] + n[w][1] + n[w][2] == 0)
			continue;
		sbuf_addf(b, "| %s | %zu | %zu | %zu | %s |\n",
		    import_why_name((enum import_why)w), n[w][IMPORT_ADDRESS],
		    n[w][IMPORT_QUEUE], n[w][IMPORT_DIVERT],
		    import_why_text((enum import_why)w));
	}
	sbuf_adds(b, "\n");
	for (w = 0; w < IMPORT_NWHY; w++) {
		size_t total = n[w][0] + n[w][1] + n[w][2];

		if (!import_why_is_rule((enum import_why)w) || total == 0)
			continue;
		sbuf_addf(b, "%s:", import_why_name((enum import_why)w));
		for (i = shown = 0; i < r->nleft && shown < MD_NAMES_MAX; i++) {
			if (r->left[i].why != (enum import_why)w)
				continue;
			sbuf_addf(b, "%s %s ", shown > 0 ? "," : "",
			    import_kind_name(r->left[i].kind));
			md_text(b, r->left[i].name);
			shown++;
		}
		if (total > shown)
			sbuf_addf(b, ", and %zu more (%s lists them all)",
			    total - shown, IMPORT_REPORT_JSON);
		sbuf_adds(b, "\n\n");
	}
}

static void
decisions(struct sbuf *b, const struct import_result *r)
{
	size_t i, j, n = 0;

	for (i = 0; i < r->nleft; i++)
		n += !import_why_is_rule(r->left[i].why);
	if (n == 0)
		return;
	sbuf_addf(b, "## Left out for you to decide (%zu)\n\n", n);
	if (strcmp(r->source, "live") == 0)
		sbuf_adds(b,
		    "Each of these is on the brokers but not in the "
		    "declaration. Until it is declared, the agent "
		    "leaves it alone (unmanaged); declare it once it is "
		    "alike on every node.\n\n");
	else
		sbuf_adds(b,
		    "Each of these is in a node's broker.xml but not in "
		    "the declaration. `render` writes `<addresses>` and "
		    "`<diverts>` whole, so a rendered broker.xml no "
		    "longer holds them: declare each one (alike on every "
		    "node) or decide to drop it before rendering.\n\n");
	for (i = 0; i < r->nleft; i++) {
		const struct import_left *l = &r->left[i];

		if (import_why_is_rule(l->why))
			continue;
		sbuf_addf(b, "### %s ", import_kind_name(l->kind));
		md_text(b, l->name);
		sbuf_addf(b, ": %s\n\n", import_why_name(l->why));
		sbuf_adds(b, import_why_text(l->why));
		if (l->detail != NULL) {
			sbuf_adds(b, ": ");
			md_text(b, l->detail);
		}
		sbuf_adds(b, ".\n\n| node | on the broker |\n|---|---|\n");
		for (j = 0; j < l->nseen; j++) {
			sbuf_adds(b, "| ");
			md_text(b, l->seen[j].node);
			sbuf_adds(b, " | ");
			md_text(b, l->seen[j].state);
			sbuf_adds(b, " |\n");
		}
		sbuf_adds(b, "\n");
	}
}

char *
import_report_md(const struct import_result *r)
{
	struct sbuf b;
	size_t i, total = import_left_total(r), rule = 0;

	for (i = 0; i < IMPORT_NWHY; i++)
		if (import_why_is_rule((enum import_why)i))
			rule += r->left_by_why[i];
	sbuf_init(&b, SBUF_UNBOUNDED);
	sbuf_adds(&b, "# Import of cluster ");
	md_text(&b, r->decl->name);
	sbuf_addf(&b, " (%s)\n\n",
	    strcmp(r->source, "live") == 0 ? "from the live brokers"
	                                   : "from broker.xml files");
	sbuf_addf(&b,
	    "Declared: **%zu addresses, %zu queues, %zu diverts**. Left out: "
	    "**%zu objects**: %zu for you to decide, %zu by rule.\n\n",
	    r->declared[IMPORT_ADDRESS], r->declared[IMPORT_QUEUE],
	    r->declared[IMPORT_DIVERT], total, total - rule, rule);
	sbuf_adds(&b, "| node | Artemis | read from |\n|---|---|---|\n");
	for (i = 0; i < r->nnodes; i++) {
		sbuf_adds(&b, "| ");
		md_text(&b, r->nodes[i]);
		sbuf_adds(&b, " | ");
		md_text(&b, r->versions[i] != NULL ? r->versions[i] : "-");
		sbuf_adds(&b, " | ");
		md_text(&b, r->sources[i] != NULL ? r->sources[i] : "-");
		sbuf_adds(&b, " |\n");
	}
	sbuf_adds(&b, "\n");
	decisions(&b, r);
	rule_table(&b, r);
	if (r->nnotes > 0) {
		sbuf_adds(&b, "## Notes\n\n");
		for (i = 0; i < r->nnotes; i++) {
			sbuf_adds(&b, "- ");
			md_text(&b, r->notes[i]);
			sbuf_adds(&b, "\n");
		}
		sbuf_adds(&b, "\n");
	}
	sbuf_adds(&b, "The first plan of this declaration against the same "
	              "brokers is NO_CHANGE on every node; applying it adopts "
	              "the declared objects (docs/import.md).\n");
	return sbuf_take(&b);
}
