/* agent/web/page-status.c: the status page (GET /): every cluster with its
 * nodes (up, last read), the branch head, the applied revision, drift,
 * the recent previews with the pending ones, the last applies from the
 * audit log and the delete-queue form; and a cluster's drift report (GET
 * /clusters/C/drift). Every name is escaped.
 */
#include "web-int.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/json.h"
#include "../../lib/xalloc.h"

#define AUDIT_ROWS     200 /* audit rows read for the last applies */
#define APPLIES_SHOWN  5   /* per cluster */
#define PREVIEWS_SHOWN 10  /* per cluster */

static const char caveat[] =
    "Consumers disconnected by removeConsumers may reconnect and re-create "
    "an auto-created queue.";

struct apply_row {
	char *cluster, *finished, *revision, *approver, *plan_id;
	bool ok;
};

/* The audit's result rows, newest first (web_model_audit's order). */
static size_t
applies_load(const struct web_view *v, struct apply_row **out,
    struct sbuf *problem)
{
	struct strv rows = {0};
	struct apply_row *a;
	struct err err = {0};
	size_t total = 0, i, n = 0;

	*out = NULL;
	if (web_model_audit(v, 0, AUDIT_ROWS, &rows, &total, &err) < 0) {
		sbuf_adds(problem, err.msg != NULL ? err.msg : "unreadable");
		err_release(&err);
		return 0;
	}
	a = xcalloc(rows.n + 1, sizeof(*a));
	for (i = 0; i < rows.n; i++) {
		struct json_doc *d = NULL;
		const struct json *o, *dir;
		const char *ev, *slash;
		int64_t ex = 1;

		if (json_parse(&d, "audit", rows.v[i], strlen(rows.v[i]),
		        &err) < 0) {
			err_release(&err);
			continue;
		}
		o = json_doc_root(d);
		ev = json_str(json_get(o, "event"));
		if (ev != NULL && strcmp(ev, "result") == 0 &&
		    json_str(json_get(o, "cluster")) != NULL) {
			a[n].cluster =
			    xstrdup(json_str(json_get(o, "cluster")));
			a[n].finished =
			    xstrdup(json_str(json_get(o, "finished_at")) != NULL
			                ? json_str(json_get(o, "finished_at"))
			                : "");
			a[n].revision =
			    xstrdup(json_str(json_get(o, "revision")) != NULL
			                ? json_str(json_get(o, "revision"))
			                : "");
			a[n].approver =
			    xstrdup(json_str(json_get(o, "approver")) != NULL
			                ? json_str(json_get(o, "approver"))
			                : "");
			dir = json_get(o, "plan_dir");
			if (json_str(dir) != NULL) {
				slash = strrchr(json_str(dir), '/');
				slash =
				    slash != NULL ? slash + 1 : json_str(dir);
				if (web_id_ok(slash))
					a[n].plan_id = xstrdup(slash);
			}
			(void)json_int(json_get(o, "exit"), &ex);
			a[n].ok = ex == 0;
			n++;
		}
		json_doc_free(d);
	}
	strv_release(&rows);
	*out = a;
	return n;
}

static void
applies_free(struct apply_row *a, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(a[i].cluster);
		free(a[i].finished);
		free(a[i].revision);
		free(a[i].approver);
		free(a[i].plan_id);
	}
	free(a);
}

static void
status_agent(struct sbuf *b, const struct web_view *v)
{
	sbuf_adds(b, "<section><p>Branch head: ");
	if (v->head != NULL) {
		sbuf_adds(b, "<code>");
		web_html_esc(b, v->head);
		sbuf_adds(b, "</code> ");
		web_html_esc(b, v->head_summary);
	} else {
		sbuf_adds(b, "not fetched yet");
	}
	sbuf_adds(b, "</p>\n<p>Last good fetch: ");
	web_html_time(b, v->fetch_ok_at);
	if (v->fetch_failed)
		sbuf_adds(b,
		    " <span class=\"down\">the last fetch failed</span>");
	sbuf_adds(b, "; last good cycle: ");
	web_html_time(b, v->cycle_ok_at);
	if (v->cycle_failed)
		sbuf_adds(b,
		    " <span class=\"down\">the last cycle failed</span>");
	sbuf_addf(b, "; state lock %s.</p></section>\n",
	    v->locked ? "held" : "<span class=\"down\">not held</span>");
}

static void
status_nodes(struct sbuf *b, const struct web_cluster_view *cv)
{
	size_t i;

	sbuf_adds(b, "<h3>Nodes</h3>\n<table><tr><th>node</th><th>state</th>"
	             "<th>live member</th><th>Artemis</th><th>last read</th>"
	             "<th>read took</th></tr>\n");
	for (i = 0; i < cv->nnodes; i++) {
		const struct web_node_view *n = &cv->nodes[i];

		sbuf_adds(b, "<tr><td>");
		web_html_esc(b, n->node);
		sbuf_adds(b, "</td><td>");
		if (!n->read)
			sbuf_adds(b, "not read yet");
		else if (n->up)
			sbuf_adds(b, "<span class=\"up\">up</span>");
		else {
			sbuf_adds(b, "<span class=\"down\">down</span> ");
			web_html_esc(b, n->refusal);
		}
		sbuf_adds(b, "</td><td>");
		web_html_esc(b, n->member != NULL ? n->member : "-");
		sbuf_adds(b, "</td><td>");
		web_html_esc(b, n->version != NULL ? n->version : "-");
		sbuf_adds(b, "</td><td>");
		web_html_time(b, n->read ? n->read_at : 0);
		sbuf_addf(b, "</td><td>%.3f s</td></tr>\n",
		    n->read ? n->seconds : 0.0);
	}
	sbuf_adds(b, "</table>\n");
}

/* Several agents (docs/ha.md): who works on the cluster. */
static void
status_owner(struct sbuf *b, const struct web_cluster_view *cv)
{
	if (!cv->coordinated)
		return;
	sbuf_adds(b, "<p class=\"owner\">");
	if (cv->here) {
		sbuf_addf(b, "Owned by this agent (");
		web_html_esc(b, cv->owner);
		sbuf_addf(b, "), epoch %lld", (long long)cv->epoch);
	} else if (cv->owner != NULL) {
		sbuf_adds(b, "Standing by: owned by agent ");
		web_html_esc(b, cv->owner);
		sbuf_adds(b, ", whose page shows its previews; nothing here "
		             "reads or changes its brokers");
	} else {
		sbuf_adds(b, "No agent owns it now: the next to take it plans "
		             "it again");
	}
	sbuf_adds(b, "; shard mode ");
	web_html_esc(b, cv->shard != NULL ? cv->shard : "none");
	sbuf_adds(b, ".</p>\n");
}

static void
status_applied(struct sbuf *b, const struct web_view *v, const char *cluster)
{
	char *at = NULL, *rev = web_model_applied(v, cluster, &at);

	sbuf_adds(b, "<p>Applied revision: ");
	if (rev != NULL) {
		sbuf_adds(b, "<code>");
		web_html_esc(b, rev);
		sbuf_adds(b, "</code>");
		if (at != NULL) {
			sbuf_adds(b, " at ");
			web_html_esc(b, at);
		}
	} else {
		sbuf_adds(b, "nothing applied yet");
	}
	sbuf_adds(b, "</p>\n");
	free(rev);
	free(at);
}

static void
status_drift(struct sbuf *b, const struct web_view *v, const char *cluster)
{
	static const char *const kinds[] = {"missing", "changed", "unmanaged",
	    "disagreeing", "unreachable", "refused"};
	struct json_doc *d = NULL;
	struct err err = {0};
	const struct json *o;
	char *text = NULL, *hold;
	size_t len = 0, i, any = 0;
	bool drift = false;
	int rc;

	hold = web_model_hold(v, cluster);
	if (hold != NULL) {
		sbuf_adds(b, "<p class=\"msg\" id=\"hold\">Held: ");
		web_html_esc(b, hold);
		sbuf_adds(b, "</p>\n");
		free(hold);
	}
	sbuf_adds(b, "<p>Drift: ");
	rc = web_model_file(v, cluster, "drift", "drift.json", &text, &len,
	    &err);
	if (rc == 1) {
		sbuf_adds(b, "no drift report yet</p>\n");
		return;
	}
	if (rc < 0 || json_parse(&d, "drift.json", text, len, &err) < 0) {
		sbuf_adds(b, "<span class=\"down\">unreadable</span>: ");
		web_html_esc(b, err.msg);
		sbuf_adds(b, "</p>\n");
		err_release(&err);
		free(text);
		return;
	}
	o = json_doc_root(d);
	(void)json_bool(json_get(o, "drift"), &drift);
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		size_t k = json_size(json_get(o, kinds[i]));

		if (k == 0)
			continue;
		sbuf_addf(b, "%s%zu %s", any++ > 0 ? ", " : "", k, kinds[i]);
	}
	if (any == 0)
		sbuf_adds(b, drift ? "found" : "none");
	sbuf_adds(b, " (checked ");
	web_html_esc(b, json_str(json_get(o, "checked_at")) != NULL
	                    ? json_str(json_get(o, "checked_at"))
	                    : "?");
	sbuf_adds(b, ") &mdash; <a href=\"/clusters/");
	web_html_esc(b, cluster);
	sbuf_adds(b, "/drift\">the report</a></p>\n");
	json_doc_free(d);
	free(text);
}

static void
status_previews(struct sbuf *b, const struct web_view *v, const char *cluster)
{
	struct web_preview *pv = NULL;
	struct err err = {0};
	size_t n = 0, i, pending = 0;

	if (web_model_previews(v, cluster, PREVIEWS_SHOWN, &pv, &n, &err) < 0) {
		sbuf_adds(b, "<p class=\"msg error\">previews unreadable: ");
		web_html_esc(b, err.msg);
		sbuf_adds(b, "</p>\n");
		err_release(&err);
		return;
	}
	for (i = 0; i < n; i++)
		pending += pv[i].state == WEB_PENDING;
	sbuf_addf(b, "<h3>Previews (%zu pending)</h3>\n", pending);
	if (n == 0) {
		sbuf_adds(b, "<p>none yet</p>\n");
		return;
	}
	sbuf_adds(b, "<table><tr><th>preview</th><th>state</th><th>created"
	             "</th><th>commit</th><th>summary</th><th>approved by"
	             "</th><th>result</th></tr>\n");
	for (i = 0; i < n; i++) {
		sbuf_adds(b, "<tr><td>");
		web_html_preview_link(b, cluster, pv[i].id);
		sbuf_adds(b, "</td><td>");
		web_html_state(b, web_preview_state_name(pv[i].state));
		sbuf_adds(b, "</td><td>");
		web_html_esc(b, pv[i].created);
		sbuf_adds(b, "</td><td><code>");
		web_html_esc(b, pv[i].commit);
		sbuf_adds(b, "</code></td><td>");
		web_html_esc(b, pv[i].summary);
		sbuf_adds(b, "</td><td>");
		web_html_esc(b, pv[i].approved_by);
		sbuf_adds(b, "</td><td>");
		web_html_esc(b, pv[i].result);
		sbuf_adds(b, "</td></tr>\n");
	}
	sbuf_adds(b, "</table>\n");
	web_model_previews_free(pv, n);
}

static void
status_applies(struct sbuf *b, const char *cluster, const struct apply_row *a,
    size_t n)
{
	size_t i, shown = 0;

	sbuf_adds(b, "<h3>Last applies</h3>\n");
	for (i = 0; i < n && shown < APPLIES_SHOWN; i++) {
		if (strcmp(a[i].cluster, cluster) != 0)
			continue;
		if (shown++ == 0)
			sbuf_adds(b, "<table><tr><th>finished</th><th>result"
			             "</th><th>revision</th><th>approver</th>"
			             "<th>preview</th></tr>\n");
		sbuf_adds(b, "<tr><td>");
		web_html_esc(b, a[i].finished);
		sbuf_addf(b,
		    "</td><td><span class=\"%s\">%s</span></td><td>"
		    "<code>",
		    a[i].ok ? "up" : "down", a[i].ok ? "ok" : "failed");
		web_html_esc(b, a[i].revision);
		sbuf_adds(b, "</code></td><td>");
		web_html_esc(b, a[i].approver);
		sbuf_adds(b, "</td><td>");
		if (a[i].plan_id != NULL)
			web_html_preview_link(b, cluster, a[i].plan_id);
		sbuf_adds(b, "</td></tr>\n");
	}
	sbuf_adds(b, shown > 0 ? "</table>\n" : "<p>none yet</p>\n");
}

static void
status_delete_form(struct sbuf *b, const struct web_who *who,
    const char *cluster)
{
	sbuf_adds(b, "<h3>Delete a queue</h3>\n");
	if (who->role != WEB_APPROVER) {
		sbuf_adds(b,
		    "<p>Posting a delete needs the approver role.</p>\n");
		return;
	}
	sbuf_adds(b, "<form method=\"post\" action=\"/clusters/");
	web_html_esc(b, cluster);
	sbuf_adds(b, "/delete-queue\">");
	web_html_csrf(b, who);
	sbuf_addf(b,
	    "\n<label>Queue <input type=\"text\" name=\"queue\" required "
	    "maxlength=\"%d\" autocomplete=\"off\"></label>\n"
	    "<label><input type=\"checkbox\" name=\"disconnect_consumers\" "
	    "value=\"1\"> disconnect its consumers "
	    "(removeConsumers)</label>\n"
	    "<p class=\"caveat\">%s</p>\n"
	    "<button type=\"submit\">Preview the delete</button>\n</form>\n"
	    "<p>This posts a delete-queue preview through the same "
	    "preflight as <code>artemis-gitops delete-queue</code>; nothing "
	    "changes on a broker until the preview is approved.</p>\n",
	    WEB_QUEUE_MAX, caveat);
}

void
web_page_status(struct web_ctx *c, const struct web_who *who,
    struct web_resp *out)
{
	struct sbuf *b = &out->body, problem = {0};
	struct web_view v = {0};
	struct apply_row *applies = NULL;
	size_t napplies, i;

	web_board_view(c->board, &v);
	web_html_page(out, 200);
	sbuf_reset(b);
	web_html_begin(b, "Status", who);
	status_agent(b, &v);
	napplies = applies_load(&v, &applies, &problem);
	if (problem.len > 0) {
		sbuf_adds(b, "<p class=\"msg error\">the audit log is "
		             "unreadable: ");
		web_html_esc(b, sbuf_str(&problem));
		sbuf_adds(b, "</p>\n");
	}
	if (v.nclusters == 0)
		sbuf_adds(b, "<p>No cluster is configured.</p>\n");
	for (i = 0; i < v.nclusters; i++) {
		const char *name = v.clusters[i].name;

		sbuf_adds(b, "<section id=\"cluster-");
		web_html_esc(b, name);
		sbuf_adds(b, "\"><h2>Cluster ");
		web_html_esc(b, name);
		sbuf_adds(b, "</h2>\n");
		status_owner(b, &v.clusters[i]);
		status_nodes(b, &v.clusters[i]);
		status_applied(b, &v, name);
		status_drift(b, &v, name);
		status_previews(b, &v, name);
		status_applies(b, name, applies, napplies);
		status_delete_form(b, who, name);
		sbuf_adds(b, "</section>\n");
	}
	web_html_end(b);
	applies_free(applies, napplies);
	sbuf_release(&problem);
	web_view_release(&v);
}

bool
web_page_status_cluster_known(struct web_ctx *c, const char *cluster)
{
	struct web_view v = {0};
	size_t i;
	bool known = false;

	web_board_view(c->board, &v);
	for (i = 0; i < v.nclusters && !known; i++)
		known = strcmp(v.clusters[i].name, cluster) == 0;
	web_view_release(&v);
	return known;
}

void
web_page_status_drift(struct web_ctx *c, const struct web_who *who,
    struct web_resp *out, const char *cluster)
{
	struct web_view v = {0};
	struct sbuf title = {0};

	if (!web_page_status_cluster_known(c, cluster)) {
		web_html_message(out, who, 404, "Drift", "no such cluster",
		    "/");
		return;
	}
	web_board_view(c->board, &v);
	web_html_page(out, 200);
	sbuf_reset(&out->body);
	sbuf_addf(&title, "%s / drift", cluster);
	web_html_begin(&out->body, sbuf_str(&title), who);
	web_html_md_file(&out->body, &v, cluster, "drift", "drift.md");
	web_html_end(&out->body);
	sbuf_release(&title);
	web_view_release(&v);
}
