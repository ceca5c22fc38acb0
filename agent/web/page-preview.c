/* agent/web/page-preview.c: one preview (GET /clusters/C/previews/ID):
 * its state, what its folder says (commit, approval, result, a refusal),
 * plan.md as HTML (its per-node table and blast radius are plan.md's own;
 * its Mermaid blocks drawn as SVG by page-graph.c),
 * result.md once applied, and the approve form asking for the typed
 * confirmation; and the approve form's POST, after page.c's checks.
 */
#include "web-int.h"

#include <stdlib.h>
#include <string.h>

static void
add_row(struct sbuf *b, const char *k, const char *val, bool code)
{
	if (val == NULL)
		return;
	sbuf_adds(b, "<tr><th>");
	sbuf_adds(b, k);
	sbuf_adds(b, code ? "</th><td><code>" : "</th><td>");
	web_html_esc(b, val);
	sbuf_adds(b, code ? "</code></td></tr>\n" : "</td></tr>\n");
}

static void
preview_approve_form(struct sbuf *b, const struct web_who *who,
    const struct web_preview *p)
{
	if (p->state != WEB_PENDING || p->confirmation == NULL)
		return;
	sbuf_adds(b,
	    "<section id=\"approve\"><h2>Approve from this page</h2>\n");
	if (who->role != WEB_APPROVER) {
		sbuf_adds(b, "<p>Approving needs the approver role; you are "
		             "signed in as a ");
		web_html_esc(b, web_role_name(who->role));
		sbuf_adds(b, ".</p></section>\n");
		return;
	}
	sbuf_adds(b, "<p>To approve exactly this plan, type:</p>\n"
	             "<pre id=\"confirmation\">");
	web_html_esc(b, p->confirmation);
	sbuf_adds(b, "</pre>\n<form method=\"post\" action=\"/clusters/");
	web_html_esc(b, p->cluster);
	sbuf_adds(b, "/previews/");
	web_html_esc(b, p->id);
	sbuf_adds(b, "/approve\">");
	web_html_csrf(b, who);
	sbuf_adds(b, "\n<label>Confirmation <input type=\"text\" "
	             "name=\"confirmation\" required autocomplete=\"off\" "
	             "spellcheck=\"false\"></label>\n");
	/* offered only while the sync window holds the cluster (a
	 * suspension is never overridden); off unless ticked */
	if (p->window_closed)
		sbuf_adds(b,
		    "<label id=\"override\"><input type=\"checkbox\" "
		    "name=\"override_window\" value=\"1\"> Override "
		    "the sync window: apply at the next cycle, outside "
		    "the window (recorded as yours in the audit "
		    "log)</label>\n");
	sbuf_adds(b, "<button type=\"submit\">Approve</button>\n</form>"
	             "</section>\n");
}

void
web_page_preview(struct web_ctx *c, const struct web_who *who,
    struct web_resp *out, const char *cluster, const char *id, int status,
    const char *msg)
{
	struct sbuf *b = &out->body, title = {0};
	struct web_preview p = {0};
	struct web_view v = {0};
	struct err err = {0};
	int rc;

	web_board_view(c->board, &v);
	rc = web_model_preview(&v, cluster, id, &p, &err);
	if (rc != 0) {
		web_html_message(out, who, rc == 1 ? 404 : 500, "Preview",
		    rc == 1 ? "no such preview" : err.msg, "/");
		goto done;
	}
	web_html_page(out, status);
	sbuf_reset(b);
	sbuf_addf(&title, "%s / %s", cluster, id);
	web_html_begin(b, sbuf_str(&title), who);
	if (msg != NULL) {
		sbuf_addf(b, "<p class=\"msg%s\" id=\"message\">",
		    status >= 400 ? " error" : "");
		if (status >= 400)
			sbuf_addf(b, "<b>%d</b> ", status);
		web_html_esc(b, msg);
		sbuf_adds(b, "</p>\n");
	}
	sbuf_adds(b, "<table class=\"facts\"><tr><th>state</th><td>");
	web_html_state(b, web_preview_state_name(p.state));
	sbuf_adds(b, "</td></tr>\n");
	add_row(b, "outcome", p.outcome, false);
	add_row(b, "summary", p.summary, false);
	add_row(b, "commit", p.commit, true);
	add_row(b, "created", p.created, false);
	add_row(b, "approved by", p.approved_by, false);
	add_row(b, "result", p.result, false);
	sbuf_adds(b, "</table>\n");
	if (p.refused_why != NULL) {
		sbuf_adds(b, "<section class=\"msg error\"><h2>Approval "
		             "refused</h2>\n<pre>");
		web_html_esc(b, p.refused_why);
		sbuf_adds(b, "</pre></section>\n");
	}
	if (p.waiting != NULL) {
		sbuf_adds(b, "<section class=\"msg\" id=\"waiting\"><h2>"
		             "Waiting</h2>\n<pre>");
		web_html_esc(b, p.waiting);
		sbuf_adds(b, "</pre></section>\n");
	}
	web_page_graph_plan_md(b, &v, cluster, id);
	if (p.state == WEB_APPLIED) {
		sbuf_adds(b, "<h2>Result</h2>\n");
		web_html_md_file(b, &v, cluster, id, "result.md");
	}
	preview_approve_form(b, who, &p);
	sbuf_adds(b, "<p><a href=\"/api/v1/clusters/");
	web_html_esc(b, cluster);
	sbuf_adds(b, "/previews/");
	web_html_esc(b, id);
	sbuf_adds(b, "/plan.json\">plan.json</a> &middot; <a href=\"/\">"
	             "status</a></p>\n");
	web_html_end(b);
done:
	sbuf_release(&title);
	err_release(&err);
	web_preview_release(&p);
	web_view_release(&v);
}

void
web_page_preview_approve(struct web_ctx *c, const struct web_req *r,
    const struct web_who *who, struct web_resp *out, const char *cluster,
    const char *id, const char *back)
{
	struct sbuf msg = {0};
	struct web_view v = {0};
	char *confirm, *override;
	bool ovr;
	int st;

	if (who->role != WEB_APPROVER) {
		web_page_preview(c, who, out, cluster, id, 403,
		    "approving needs the approver role: nothing was done");
		return;
	}
	confirm = web_req_form(r, "confirmation");
	/* a checkbox: sent ("1") only when ticked */
	override = web_req_form(r, "override_window");
	ovr = override != NULL && strcmp(override, "1") == 0;
	if (override != NULL && !ovr) {
		free(confirm);
		free(override);
		web_page_preview(c, who, out, cluster, id, 400,
		    "override_window: a ticked checkbox sends 1; nothing was "
		    "done");
		return;
	}
	web_board_view(c->board, &v);
	st = web_approve(&v, cluster, id, confirm != NULL ? confirm : "", ovr,
	    who, &msg);
	web_view_release(&v);
	free(confirm);
	free(override);
	if (st == 200) {
		web_board_wake(c->board);
		web_html_redirect(out, back);
	} else {
		web_page_preview(c, who, out, cluster, id, st,
		    msg.len > 0 ? sbuf_str(&msg) : "not approved");
	}
	sbuf_release(&msg);
}
