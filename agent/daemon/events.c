/* agent/daemon/events.c: what the daemon tells its notification targets
 * (docs/notifications.md, "Events"), made where it happens and handed to
 * the webhook threads (agent/webhook/). Only changes are told: a drift
 * report when what drifted differs from the last one told, a node when it
 * stops or starts answering, a preview when its plan differs from the
 * last one told for the cluster. The first two are remembered across a
 * restart (STATE/notifications/memory.json, written atomically), so that
 * a restart tells nothing twice. */
#define LOG_MODULE "notify"

#include "daemon-int.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/afile.h"
#include "../../lib/json.h"
#include "../../lib/jsonw.h"
#include "../../lib/sha256.h"
#include "../../lib/xalloc.h"
#include "../../reconcile/apply/apply.h"
#include "../../reconcile/plan/plan.h"
#include "../event.h"
#include "../log.h"
#include "../webhook/webhook.h"

#define MEMORY_FORMAT  "artemis-gitops/notification-memory"
#define MEMORY_VERSION 1
#define MEMORY_MAX     ((size_t)4 << 20)
#define LIST_MAX       20 /* objects or diagnostics listed in one event */

/* ---- the memory --------------------------------------------------------- */

static char *
pair(const char *x, const char *y)
{
	return xasprintf("%s\t%s", x, y);
}

/* The entry of v for cluster (its text before the tab), or -1. */
static long
find_cluster(const struct strv *v, const char *cluster)
{
	size_t i, n = strlen(cluster);

	for (i = 0; i < v->n; i++)
		if (strncmp(v->v[i], cluster, n) == 0 && v->v[i][n] == '\t')
			return (long)i;
	return -1;
}

static void
strv_remove_at(struct strv *v, size_t i)
{
	free(v->v[i]);
	memmove(v->v + i, v->v + i + 1, (v->n - i - 1) * sizeof(*v->v));
	v->n--;
	v->v[v->n] = NULL;
}

/* One array of the memory: [{"cluster": x, key: y}] from "x\ty" entries. */
static void
write_pairs(struct jsonw *w, const struct strv *v, const char *key)
{
	const char *tab;
	char *cluster;
	size_t i;

	jsonw_arr_begin(w);
	for (i = 0; i < v->n; i++) {
		tab = strchr(v->v[i], '\t');
		cluster = xstrndup(v->v[i], (size_t)(tab - v->v[i]));
		jsonw_obj_begin(w);
		jsonw_key_str(w, "cluster", cluster);
		jsonw_key_str(w, key, tab + 1);
		jsonw_obj_end(w);
		free(cluster);
	}
	jsonw_arr_end(w);
}

static void
memory_save(struct daemon *a)
{
	struct sbuf b = {0};
	struct jsonw w;
	struct err err = {0};
	char *dir = xasprintf("%s/notifications", a->conf->state);
	char *path = xasprintf("%s/memory.json", dir);

	jsonw_init(&w, &b, 2);
	jsonw_obj_begin(&w);
	jsonw_key(&w, "drift");
	write_pairs(&w, &a->told_drift, "fingerprint");
	jsonw_key_str(&w, "format", MEMORY_FORMAT);
	jsonw_key(&w, "nodes_down");
	write_pairs(&w, &a->told_down, "node");
	jsonw_key_int(&w, "version", MEMORY_VERSION);
	jsonw_obj_end(&w);
	sbuf_addc(&b, '\n');
	if (afile_mkdirs(dir, 0700, &err) < 0 ||
	    afile_write(path, sbuf_str(&b), b.len, 0600, &err) < 0) {
		log_err("%s: what was told is not remembered, a restart may "
		        "tell it again",
		    err.msg);
	}
	err_release(&err);
	sbuf_release(&b);
	free(path);
	free(dir);
}

static int
read_pairs(struct strv *out, struct json_reader *c, const struct json *root,
    const char *member, const char *key)
{
	const struct json *arr, *it;
	char *x = NULL, *y = NULL, *p;
	size_t n = 0;
	int r = 0;

	arr = json_read_array(c, root, "", member, &n);
	if (arr == NULL)
		return -1;
	for (it = json_first(arr); it != NULL && r == 0; it = json_next(it)) {
		r = json_read_str(c, it, member, "cluster", false, &x) < 0 ||
		            json_read_str(c, it, member, key, false, &y) < 0
		        ? -1
		        : 0;
		if (r == 0 && strchr(x, '\t') == NULL) {
			p = pair(x, y);
			strv_add(out, p);
			free(p);
		}
		free(x);
		free(y);
		x = y = NULL;
	}
	return r;
}

/* The memory of an earlier run; none is an empty one. A file that cannot
 * be read is said, and forgotten: at worst a change is told again. */
static void
memory_load(struct daemon *a)
{
	struct json_doc *doc = NULL;
	struct err err = {0};
	struct json_reader c = {NULL, &err};
	char *path = xasprintf("%s/notifications/memory.json", a->conf->state);
	char *text = NULL;
	size_t len = 0;

	c.path = path;
	if (access(path, F_OK) != 0)
		goto done;
	if (afile_read(&text, &len, path, MEMORY_MAX, &err) < 0 ||
	    json_parse(&doc, path, text, len, &err) < 0 ||
	    read_pairs(&a->told_drift, &c, json_doc_root(doc), "drift",
	        "fingerprint") < 0 ||
	    read_pairs(&a->told_down, &c, json_doc_root(doc), "nodes_down",
	        "node") < 0) {
		log_warn("%s, starting afresh: a change may be told again",
		    err.msg);
		strv_release(&a->told_drift);
		strv_release(&a->told_down);
	}
done:
	json_doc_free(doc);
	err_release(&err);
	free(text);
	free(path);
}

void
daemon_events_start(struct daemon *a)
{
	if (a->hooks != NULL)
		memory_load(a);
}

/* ---- making events ------------------------------------------------------ */

/* BASE/clusters/<cluster>[/previews/<id>], or NULL without
 * notifications.page-url (agent_outbox_page_link). Owned. */
static char *
page_link(const struct daemon *a, const char *cluster, const char *id)
{
	return agent_outbox_page_link(a->conf->notify_page_url, cluster, id);
}

/* The folder name of a preview (OUTBOX/<cluster>/<id>). */
static const char *
plan_id(const char *dir)
{
	const char *s = strrchr(dir, '/');

	return s != NULL ? s + 1 : dir;
}

static void
post(struct daemon *a, struct agent_event *e)
{
	webhook_post(a->hooks, e);
	agent_event_free(e);
}

/* The commit's members of a preview's data. */
static void
json_commit(struct jsonw *w, const struct daemon *a)
{
	jsonw_key_str(w, "author", a->head.author);
	jsonw_key_str(w, "branch", a->conf->branch);
	jsonw_key_str(w, "commit", a->head.head);
	jsonw_key_bool(w, "history_rewrite",
	    a->head.event == DAEMON_WATCH_REWRITE);
}

static void
json_nodes(struct jsonw *w, const struct plan *p)
{
	size_t i;

	jsonw_key(w, "nodes");
	jsonw_arr_begin(w);
	for (i = 0; i < p->nnodes; i++) {
		jsonw_obj_begin(w);
		jsonw_key_str(w, "message", p->nodes[i].message);
		jsonw_key_str(w, "node", p->nodes[i].node);
		jsonw_key_bool(w, "read", p->nodes[i].reachable);
		jsonw_key_str(w, "refusal", p->nodes[i].refusal);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

/* One line per action: "delete-queue 'orders': node1 WOULD_APPLY, ..." */
static void
add_actions(struct agent_event *e, const struct plan *p)
{
	struct sbuf b = {0};
	const struct plan_action *ac;
	size_t i, j;

	for (i = 0; i < p->nactions && i < LIST_MAX; i++) {
		ac = &p->actions[i];
		sbuf_reset(&b);
		for (j = 0; j < ac->nnodes; j++)
			sbuf_addf(&b, "%s%s %s", j > 0 ? ", " : "",
			    ac->nodes[j].node,
			    plan_outcome_name(ac->nodes[j].outcome));
		agent_event_addf(e, "%s '%s': %s",
		    plan_action_kind_name(ac->kind), ac->name, sbuf_str(&b));
	}
	if (p->nactions > LIST_MAX)
		agent_event_addf(e, "and %zu more action(s)",
		    p->nactions - LIST_MAX);
	sbuf_release(&b);
}

/* One line per node that could not be read, and why. */
static void
add_unread(struct agent_event *e, const struct plan *p)
{
	size_t i;

	for (i = 0; i < p->nnodes; i++)
		if (!p->nodes[i].reachable && !plan_node_passive(&p->nodes[i]))
			agent_event_addf(e, "node '%s': %s (%s)",
			    p->nodes[i].node,
			    p->nodes[i].refusal != NULL ? p->nodes[i].refusal
			                                : "UNREACHABLE",
			    p->nodes[i].message != NULL ? p->nodes[i].message
			                                : "");
}

static void
add_refusals(struct agent_event *e, const struct plan *p)
{
	size_t i;

	if (p->refusal != NULL)
		agent_event_addf(e, "%s: %s", p->refusal,
		    p->message != NULL ? p->message : "");
	for (i = 0; i < p->ndiagnostics && i < LIST_MAX; i++)
		agent_event_addf(e, "%s", p->diagnostics[i]);
	if (p->ndiagnostics > LIST_MAX)
		agent_event_addf(e, "and %zu more diagnostic(s)",
		    p->ndiagnostics - LIST_MAX);
	add_unread(e, p);
}

static char *
preview_data(const struct daemon *a, const struct plan *p, const char *dir,
    const char *digest, const char *summary)
{
	struct sbuf b = {0};
	struct jsonw w;
	size_t i;

	jsonw_init(&w, &b, 0);
	jsonw_obj_begin(&w);
	jsonw_key(&w, "actions");
	jsonw_arr_begin(&w);
	for (i = 0; i < p->nactions; i++) {
		jsonw_obj_begin(&w);
		jsonw_key_str(&w, "kind",
		    plan_action_kind_name(p->actions[i].kind));
		jsonw_key_str(&w, "name", p->actions[i].name);
		jsonw_obj_end(&w);
	}
	jsonw_arr_end(&w);
	jsonw_key_int(&w, "adopts", (int64_t)plan_adopts(p));
	json_commit(&w, a);
	jsonw_key(&w, "diagnostics");
	jsonw_arr_begin(&w);
	for (i = 0; i < p->ndiagnostics; i++)
		jsonw_str(&w, p->diagnostics[i]);
	jsonw_arr_end(&w);
	jsonw_key_str(&w, "message", p->message);
	json_nodes(&w, p);
	jsonw_key_str(&w, "outcome", plan_outcome_name(p->outcome));
	jsonw_key_str(&w, "plan_digest", digest);
	jsonw_key_str(&w, "plan_dir", dir);
	jsonw_key_str(&w, "plan_id", plan_id(dir));
	jsonw_key_str(&w, "refusal", p->refusal);
	jsonw_key_str(&w, "summary", summary);
	jsonw_obj_end(&w);
	return sbuf_take(&b);
}

/* Nodes p could not read (passive ones are read, and left alone). */
static size_t
unread(const struct plan *p)
{
	size_t i, n = 0;

	for (i = 0; i < p->nnodes; i++)
		if (!p->nodes[i].reachable && !plan_node_passive(&p->nodes[i]))
			n++;
	return n;
}

void
daemon_event_preview(struct daemon *a, struct daemon_cluster *mem,
    const struct plan *p, const char *dir, const char *digest)
{
	bool refused = p->outcome == PLAN_OUT_REFUSED;
	struct agent_event *e;
	char *summary, *title, *link;

	if (a->hooks == NULL)
		return;
	/* nothing to approve and nothing wrong: nobody needs to look */
	if (!refused && p->nactions == 0 && plan_adopts(p) == 0 &&
	    plan_forgets(p) == 0 && plan_policy_changes(p) == 0)
		return;
	/* a plan made again (nodes unreadable) that came out the same */
	if (mem->told_digest != NULL && strcmp(mem->told_digest, digest) == 0)
		return;
	free(mem->told_digest);
	mem->told_digest = xstrdup(digest);
	summary = plan_summary_line(p);
	if (refused && p->ndiagnostics > 0)
		title =
		    xasprintf("commit %.12s is invalid (%zu diagnostic(s)): "
		              "nothing changes",
		        a->head.head, p->ndiagnostics);
	else if (refused)
		title = xasprintf("commit %.12s: the plan is refused (%s)",
		    a->head.head, p->refusal != NULL ? p->refusal : "REFUSED");
	else if (unread(p) > 0)
		title = xasprintf("commit %.12s: %s; %zu node(s) could not be "
		                  "read, planned again once they answer",
		    a->head.head, summary, unread(p));
	else
		title = xasprintf("commit %.12s: %s, waiting for approval",
		    a->head.head, summary);
	e = agent_event_new(refused ? AGENT_EVENT_PREVIEW_REFUSED
	                            : AGENT_EVENT_PREVIEW_POSTED,
	    p->cluster, title);
	agent_event_addf(e, "commit %.12s by %s: %s", a->head.head,
	    a->head.author != NULL ? a->head.author : "?",
	    a->head.summary != NULL ? a->head.summary : "");
	if (refused) {
		add_refusals(e, p);
	} else {
		add_actions(e, p);
		add_unread(e, p);
	}
	agent_event_addf(e, "preview: %s", dir);
	link = page_link(a, p->cluster, plan_id(dir));
	agent_event_set_link(e, link);
	agent_event_set_data(e, preview_data(a, p, dir, digest, summary));
	post(a, e);
	free(link);
	free(title);
	free(summary);
}

void
daemon_event_rewrite(struct daemon *a)
{
	struct agent_event *e;
	struct sbuf b = {0};
	struct jsonw w;
	char *title;

	if (a->hooks == NULL)
		return;
	title = xasprintf("history of branch '%s' rewritten: %.12s does not "
	                  "descend from %.12s",
	    a->conf->branch, a->head.head, a->head.prev);
	e = agent_event_new(AGENT_EVENT_HISTORY_REWRITTEN, NULL, title);
	agent_event_addf(e, "earlier previews are withdrawn (superseded); "
	                    "the new head is planned but never applied "
	                    "without an approval");
	agent_event_addf(e, "new head %s by %s: %s", a->head.head,
	    a->head.author != NULL ? a->head.author : "?",
	    a->head.summary != NULL ? a->head.summary : "");
	jsonw_init(&w, &b, 0);
	jsonw_obj_begin(&w);
	jsonw_key_str(&w, "author", a->head.author);
	jsonw_key_str(&w, "branch", a->conf->branch);
	jsonw_key_str(&w, "head", a->head.head);
	jsonw_key_str(&w, "previous", a->head.prev);
	jsonw_key_str(&w, "repository", a->conf->repo_url);
	jsonw_obj_end(&w);
	agent_event_set_data(e, sbuf_take(&b));
	post(a, e);
	free(title);
}

/* The operations of node n that did not end DONE: "destroyQueue 'q'
 * FAILED (HAS_CONSUMERS)". */
static void
add_failed_ops(struct agent_event *e, const struct apply_node *n)
{
	const struct apply_op *op;
	size_t i, shown = 0;

	for (i = 0; i < n->nops && shown < LIST_MAX; i++) {
		op = &n->ops[i];
		if (op->state == APPLY_OP_DONE || op->state == APPLY_OP_NOT_RUN)
			continue;
		agent_event_addf(e, "  %s '%s' %s (%s)",
		    recon_op_kind_name(op->op.kind), op->action,
		    apply_op_state_name(op->state),
		    recon_kind_name(op->refusal.kind));
		shown++;
	}
}

static char *
apply_data(const struct apply_result *r, const char *dir)
{
	struct sbuf b = {0};
	struct jsonw w;
	size_t i, j;

	jsonw_init(&w, &b, 0);
	jsonw_obj_begin(&w);
	jsonw_key_str(&w, "apply_id", r->apply_id);
	jsonw_key_str(&w, "approver", r->approver);
	jsonw_key_str(&w, "finished_at", r->finished_at);
	jsonw_key(&w, "nodes");
	jsonw_arr_begin(&w);
	for (i = 0; i < r->nnodes; i++) {
		jsonw_obj_begin(&w);
		jsonw_key_str(&w, "detail", r->nodes[i].detail);
		jsonw_key(&w, "failed");
		jsonw_arr_begin(&w);
		for (j = 0; j < r->nodes[i].nops; j++) {
			const struct apply_op *op = &r->nodes[i].ops[j];

			if (op->state == APPLY_OP_DONE ||
			    op->state == APPLY_OP_NOT_RUN)
				continue;
			jsonw_obj_begin(&w);
			jsonw_key_str(&w, "kind",
			    recon_kind_name(op->refusal.kind));
			jsonw_key_str(&w, "object", op->action);
			jsonw_key_str(&w, "operation",
			    recon_op_kind_name(op->op.kind));
			jsonw_key_str(&w, "outcome",
			    apply_op_state_name(op->state));
			jsonw_obj_end(&w);
		}
		jsonw_arr_end(&w);
		jsonw_key_str(&w, "kind", r->nodes[i].kind);
		jsonw_key_str(&w, "node", r->nodes[i].node);
		jsonw_key_str(&w, "outcome",
		    apply_outcome_name(r->nodes[i].outcome));
		jsonw_obj_end(&w);
	}
	jsonw_arr_end(&w);
	jsonw_key_str(&w, "plan_digest", r->plan_digest);
	jsonw_key_str(&w, "plan_dir", dir);
	jsonw_key_str(&w, "plan_id", plan_id(dir));
	jsonw_key_str(&w, "result", apply_result_ok(r) ? "APPLIED" : "FAILED");
	jsonw_key_str(&w, "revision", r->revision);
	jsonw_obj_end(&w);
	return sbuf_take(&b);
}

void
daemon_event_applied(struct daemon *a, const char *dir,
    const struct apply_result *r)
{
	bool ok = apply_result_ok(r);
	struct agent_event *e;
	struct sbuf bad = {0};
	char *title, *link;
	size_t i, nbad = 0;

	if (a->hooks == NULL)
		return;
	for (i = 0; i < r->nnodes; i++) {
		if (r->nodes[i].outcome == APPLY_APPLIED ||
		    r->nodes[i].outcome == APPLY_SKIPPED)
			continue;
		sbuf_addf(&bad, "%s%s %s%s%s%s", nbad++ > 0 ? ", " : "",
		    r->nodes[i].node, apply_outcome_name(r->nodes[i].outcome),
		    r->nodes[i].kind != NULL ? " (" : "",
		    r->nodes[i].kind != NULL ? r->nodes[i].kind : "",
		    r->nodes[i].kind != NULL ? ")" : "");
	}
	if (ok)
		title = xasprintf("applied %s, approved by %s", plan_id(dir),
		    r->approver != NULL ? r->approver : "?");
	else
		title = xasprintf("apply of %s %s: %s", plan_id(dir),
		    nbad < r->nnodes ? "partial" : "failed", sbuf_str(&bad));
	e = agent_event_new(ok ? AGENT_EVENT_APPLY_SUCCEEDED
	                       : AGENT_EVENT_APPLY_FAILED,
	    r->cluster, title);
	for (i = 0; i < r->nnodes; i++) {
		agent_event_addf(e, "node '%s': %s%s%s", r->nodes[i].node,
		    apply_outcome_name(r->nodes[i].outcome),
		    r->nodes[i].detail != NULL ? ": " : "",
		    r->nodes[i].detail != NULL ? r->nodes[i].detail : "");
		add_failed_ops(e, &r->nodes[i]);
	}
	agent_event_addf(e, "result: %s/result.md (apply %s)", dir,
	    r->apply_id);
	link = page_link(a, r->cluster, plan_id(dir));
	agent_event_set_link(e, link);
	agent_event_set_data(e, apply_data(r, dir));
	post(a, e);
	free(link);
	free(title);
	sbuf_release(&bad);
}

void
daemon_event_approval_refused(struct daemon *a, const char *dir,
    const char *cluster, const char *why)
{
	struct agent_event *e;
	struct sbuf b = {0};
	struct jsonw w;
	char *title, *link;

	if (a->hooks == NULL)
		return;
	title = xasprintf("approval of %s not applied", plan_id(dir));
	e = agent_event_new(AGENT_EVENT_APPROVAL_REFUSED, cluster, title);
	agent_event_addf(e, "%s", why);
	agent_event_addf(e, "preview: %s (approval-refused.txt)", dir);
	jsonw_init(&w, &b, 0);
	jsonw_obj_begin(&w);
	jsonw_key_str(&w, "plan_dir", dir);
	jsonw_key_str(&w, "plan_id", plan_id(dir));
	jsonw_key_str(&w, "reason", why);
	jsonw_obj_end(&w);
	agent_event_set_data(e, sbuf_take(&b));
	link = page_link(a, cluster, plan_id(dir));
	agent_event_set_link(e, link);
	post(a, e);
	free(link);
	free(title);
}

/* The part of a drift report that says what of the agent's objects drifted
 * (never when it was checked, nor which nodes could be read), and its
 * SHA-256: the same drift gives the same fingerprint. */
static void
drift_fingerprint(const char *drift_json, char out[SHA256_HEX])
{
	static const char *const parts[] = {"missing", "changed"};
	struct json_doc *doc = NULL;
	struct err err = {0};
	struct sbuf b = {0};
	char *t;
	size_t i;

	out[0] = '\0';
	if (json_parse(&doc, "drift.json", drift_json, strlen(drift_json),
	        &err) < 0) {
		err_release(&err);
		return;
	}
	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		t = json_render(json_get(json_doc_root(doc), parts[i]));
		sbuf_addf(&b, "%s=%s\n", parts[i], t != NULL ? t : "null");
		free(t);
	}
	sha256_hex(sbuf_str(&b), b.len, out);
	sbuf_release(&b);
	json_doc_free(doc);
}

static void
drift_event(struct daemon *a, const struct plan *p,
    const struct daemon_drift_counts *c, bool found, const char *fp)
{
	struct agent_event *e;
	struct sbuf b = {0};
	struct jsonw w;
	char *title, *link;
	size_t i, n = 0;

	if (found)
		title = xasprintf("drift: %zu missing, %zu changed (%zu "
		                  "disagreeing between nodes)",
		    c->missing, c->changed, c->disagreeing);
	else
		title = xstrdup("no drift any more: every node matches what "
		                "was applied");
	e = agent_event_new(found ? AGENT_EVENT_DRIFT_DETECTED
	                          : AGENT_EVENT_DRIFT_CLEARED,
	    p->cluster, title);
	for (i = 0; found && i < p->nactions && n < LIST_MAX; i++, n++)
		agent_event_addf(e, "%s '%s'",
		    plan_action_kind_name(p->actions[i].kind),
		    p->actions[i].name);
	if (c->unmanaged > 0)
		agent_event_addf(e,
		    "(and %zu unmanaged object(s), never "
		    "declared: left alone)",
		    c->unmanaged);
	agent_event_addf(e, "report: %s/%s/%s/drift.md", a->conf->outbox,
	    p->cluster, AGENT_OUTBOX_DRIFT);
	jsonw_init(&w, &b, 0);
	jsonw_obj_begin(&w);
	jsonw_key_int(&w, "changed", (int64_t)c->changed);
	jsonw_key_int(&w, "disagreeing", (int64_t)c->disagreeing);
	jsonw_key_str(&w, "fingerprint", found ? fp : NULL);
	jsonw_key_int(&w, "missing", (int64_t)c->missing);
	jsonw_key_str(&w, "revision", p->revision);
	jsonw_key_int(&w, "unmanaged", (int64_t)c->unmanaged);
	jsonw_obj_end(&w);
	agent_event_set_data(e, sbuf_take(&b));
	link = page_link(a, p->cluster, NULL);
	agent_event_set_link(e, link);
	post(a, e);
	free(link);
	free(title);
}

void
daemon_event_drift(struct daemon *a, const struct plan *p,
    const char *drift_json)
{
	struct daemon_drift_counts c;
	char fp[SHA256_HEX], *entry;
	long at;
	bool found;

	if (a->hooks == NULL)
		return;
	daemon_drift_count(p, &c);
	/* with a node unread, what drifted there is not known: no change is
	 * told until every node is read again */
	if (c.unreachable > 0 || c.refused > 0)
		return;
	/* what is told is drift of the agent's own objects: an unmanaged
	 * one was never declared (an application's, another team's), and
	 * applications that create queues would make every check a change */
	found = c.missing + c.changed > 0;
	if (found)
		drift_fingerprint(drift_json, fp);
	at = find_cluster(&a->told_drift, p->cluster);
	if (!found && at < 0)
		return;
	if (found && at >= 0 &&
	    strcmp(strchr(a->told_drift.v[at], '\t') + 1, fp) == 0)
		return;
	if (at >= 0)
		strv_remove_at(&a->told_drift, (size_t)at);
	if (found) {
		entry = pair(p->cluster, fp);
		strv_add(&a->told_drift, entry);
		free(entry);
	}
	drift_event(a, p, &c, found, fp);
	memory_save(a);
}

void
daemon_event_node(struct daemon *a, const char *cluster, const char *node,
    bool up, const char *kind, const char *message)
{
	struct agent_event *e;
	struct sbuf b = {0};
	struct jsonw w;
	char *entry = pair(cluster, node), *title, *link;
	bool told_down = strv_has(&a->told_down, entry);
	size_t i;

	if (a->hooks == NULL || up != told_down) {
		free(entry);
		return;
	}
	if (up) {
		for (i = 0; i < a->told_down.n; i++)
			if (strcmp(a->told_down.v[i], entry) == 0)
				break;
		strv_remove_at(&a->told_down, i);
		title = xasprintf("node '%s' answers again", node);
	} else {
		strv_add(&a->told_down, entry);
		title = xasprintf("node '%s' cannot be read: %s", node, kind);
	}
	e = agent_event_new(up ? AGENT_EVENT_NODE_REACHABLE
	                       : AGENT_EVENT_NODE_UNREACHABLE,
	    cluster, title);
	if (!up && message != NULL)
		agent_event_addf(e, "%s", message);
	jsonw_init(&w, &b, 0);
	jsonw_obj_begin(&w);
	jsonw_key_str(&w, "kind", up ? NULL : kind);
	jsonw_key_str(&w, "message", up ? NULL : message);
	jsonw_key_str(&w, "node", node);
	jsonw_obj_end(&w);
	agent_event_set_data(e, sbuf_take(&b));
	link = page_link(a, cluster, NULL);
	agent_event_set_link(e, link);
	post(a, e);
	memory_save(a);
	free(link);
	free(title);
	free(entry);
}
