/* agent/mcp/tool-plan.c: the tools that prepare plans, and only prepare
 * them: plan_cluster (`plan` at a revision: the declaration, the
 * inventory's managed set, every node read, plan_build) and
 * plan_delete_queue (the operator's out-of-band delete of ADR-0084, as
 * `delete-queue` and the page's delete-queue run it: plan_delete_queue's
 * preflight, disconnect_consumers false unless asked, D6). Each posts a
 * preview to the outbox, as the page's delete-queue does, with a
 * request.txt saying it came through MCP; the result gives its folder, its
 * resources, its summary and the confirmation text a person types to
 * approve it. There is no tool that approves or applies: a person does,
 * with `artemis-gitops approve` or on the page. */
#include "mcp-int.h"

#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/clock.h"
#include "../../lib/xalloc.h"
#include "../../reconcile/live/live.h"
#include "../outbox.h"
#include "../preview.h"

const struct mcp_arg mcp_args_plan_cluster[] = {
    {"cluster", MCP_ARG_STRING, true, "the cluster's name", 0, 0, NULL},
    {"revision", MCP_ARG_STRING, false,
        "the git revision to plan (commit, branch, tag); default: the "
        "branch the agent follows",
        0, 0, NULL},
    {"disconnect_consumers", MCP_ARG_BOOLEAN, false,
        "queue deletes in the plan disconnect attached consumers "
        "(removeConsumers) instead of being refused on a node that has "
        "them (ADR-0084 D6); recorded in the plan",
        0, 0, "false"},
    {NULL, MCP_ARG_STRING, false, NULL, 0, 0, NULL},
};

const struct mcp_arg mcp_args_plan_delete_queue[] = {
    {"cluster", MCP_ARG_STRING, true, "the cluster's name", 0, 0, NULL},
    {"queue", MCP_ARG_STRING, true, "the queue to delete on every node", 0, 0,
        NULL},
    {"disconnect_consumers", MCP_ARG_BOOLEAN, false,
        "disconnect attached consumers (removeConsumers); without it a node "
        "where the queue has consumers is refused, naming their count and "
        "this flag (ADR-0084 D6)",
        0, 0, "false"},
    {"revision", MCP_ARG_STRING, false,
        "the revision of the declaration (the nodes, the policy); default: "
        "the branch the agent follows",
        0, 0, NULL},
    {NULL, MCP_ARG_STRING, false, NULL, 0, 0, NULL},
};

/* Who asked, for request.txt: the MCP client and the user it runs as. */
static char *
requester(const struct mcp_call *c)
{
	struct passwd *pw = getpwuid(geteuid());

	return xasprintf("mcp client '%s' as %s (uid %lu)",
	    c->client[0] != '\0' ? c->client : "unnamed",
	    pw != NULL ? pw->pw_name : "?", (unsigned long)geteuid());
}

static char *
request_text(const struct mcp_call *c, const char *what, bool disconnect,
    const char *commit)
{
	char *now = clock_rfc3339_now(), *by = requester(c), *t;

	t = xasprintf("%s\n"
	              "requested-by %s\n"
	              "requested-at %s\n"
	              "via mcp\n"
	              "disconnect-consumers %s\n"
	              "commit %s\n",
	    what, by, now, disconnect ? "true" : "false", commit);
	free(by);
	free(now);
	return t;
}

static void
nodes_json(struct jsonw *w, const struct plan *p)
{
	size_t i;

	jsonw_key(w, "nodes");
	jsonw_arr_begin(w);
	for (i = 0; i < p->nnodes; i++) {
		const struct plan_node_status *n = &p->nodes[i];

		jsonw_obj_begin(w);
		jsonw_key_str(w, "message", n->message);
		jsonw_key_str(w, "node", n->node);
		jsonw_key_bool(w, "reachable", n->reachable);
		jsonw_key_str(w, "refusal", n->refusal);
		jsonw_key_str(w, "version", n->version);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

/* Every node step of every action that is not WOULD_APPLY or NO_CHANGE,
 * and the warnings, as "node: ..." lines in the text and JSON. */
static void
steps_json(struct jsonw *w, struct sbuf *text, const struct plan *p)
{
	size_t i, j, k;

	jsonw_key(w, "steps");
	jsonw_arr_begin(w);
	for (i = 0; i < p->nactions; i++) {
		const struct plan_action *a = &p->actions[i];

		for (j = 0; j < a->nnodes; j++) {
			const struct plan_step *st = &a->nodes[j];

			jsonw_obj_begin(w);
			jsonw_key_str(w, "action",
			    plan_action_kind_name(a->kind));
			jsonw_key_int(w, "consumers", st->consumers);
			jsonw_key_int(w, "destroyed_messages",
			    st->destroyed_messages);
			jsonw_key_str(w, "message", st->message);
			jsonw_key_str(w, "name", a->name);
			jsonw_key_str(w, "next_step", st->next_step);
			jsonw_key_str(w, "node", st->node);
			jsonw_key_str(w, "outcome",
			    plan_outcome_name(st->outcome));
			jsonw_key_str(w, "refusal", st->refusal);
			jsonw_key(w, "removes_diverts");
			jsonw_arr_begin(w);
			for (k = 0; k < st->nremoved; k++)
				jsonw_str(w, st->removed[k].config.name);
			jsonw_arr_end(w);
			jsonw_key_strs(w, "warnings", st->warnings,
			    st->nwarnings);
			jsonw_obj_end(w);
			if (st->outcome == PLAN_OUT_REFUSED)
				sbuf_addf(text,
				    "\n- %s, %s '%s': REFUSED %s: %s", st->node,
				    plan_action_kind_name(a->kind), a->name,
				    st->refusal != NULL ? st->refusal : "",
				    st->message != NULL ? st->message : "");
			for (k = 0; k < st->nwarnings; k++)
				sbuf_addf(text, "\n- %s, %s '%s': warning: %s",
				    st->node, plan_action_kind_name(a->kind),
				    a->name, st->warnings[k]);
		}
	}
	jsonw_arr_end(w);
}

/* The result of a posted preview (dir), or of a plan with nothing to do
 * (dir NULL). */
static void
plan_result(struct mcp_result *res, const struct mcp_ctx *x,
    const struct plan *p, const char *dir)
{
	char *summary = plan_summary_line(p);
	char *confirm = plan_confirmation(p);
	const char *id = dir != NULL ? strrchr(dir, '/') + 1 : NULL;
	char *md = NULL, *json = NULL, *page = NULL, *cli = NULL;
	bool approvable = plan_approvable(p);

	jsonw_key_int(&res->w, "actions", (int64_t)p->nactions);
	jsonw_key_bool(&res->w, "approvable", dir != NULL && approvable);
	jsonw_key_str(&res->w, "cluster", p->cluster);
	jsonw_key_str(&res->w, "confirmation",
	    dir != NULL && approvable ? confirm : NULL);
	jsonw_key_int(&res->w, "destroyed_messages", p->destroyed_messages);
	jsonw_key_bool(&res->w, "disconnect_consumers",
	    p->disconnect_consumers);
	jsonw_key_str(&res->w, "kind", p->kind);
	jsonw_key_str(&res->w, "message", p->message);
	jsonw_key_str(&res->w, "next_step", p->next_step);
	nodes_json(&res->w, p);
	jsonw_key_str(&res->w, "outcome", plan_outcome_name(p->outcome));
	jsonw_key(&res->w, "preview");
	if (dir != NULL) {
		md = mcp_preview_uri(p->cluster, id, "plan.md");
		json = mcp_preview_uri(p->cluster, id, "plan.json");
		page = agent_outbox_page_link(x->conf->notify_page_url,
		    p->cluster, id);
		cli = xasprintf("artemis-gitops approve %s --confirm '%s'", dir,
		    confirm);
		jsonw_obj_begin(&res->w);
		jsonw_key_str(&res->w, "approve_with_cli",
		    approvable ? cli : NULL);
		jsonw_key_str(&res->w, "dir", dir);
		jsonw_key_str(&res->w, "id", id);
		jsonw_key_str(&res->w, "page", page);
		jsonw_key_str(&res->w, "plan_json", json);
		jsonw_key_str(&res->w, "plan_md", md);
		jsonw_obj_end(&res->w);
	} else {
		jsonw_null(&res->w);
	}
	jsonw_key_str(&res->w, "refusal", p->refusal);
	jsonw_key_str(&res->w, "revision", p->revision);
	sbuf_addf(&res->text, "%s '%s': %s (%s)", p->kind, p->cluster,
	    plan_outcome_name(p->outcome), summary);
	if (p->refusal != NULL)
		sbuf_addf(&res->text, ": %s: %s; %s", p->refusal,
		    p->message != NULL ? p->message : "",
		    p->next_step != NULL ? p->next_step : "");
	steps_json(&res->w, &res->text, p);
	jsonw_key_str(&res->w, "summary", summary);
	if (dir == NULL)
		sbuf_adds(&res->text,
		    "\nNothing to do: no preview was written.");
	else if (approvable)
		sbuf_addf(&res->text,
		    "\nPreview: %s (%s). Show this plan.md to a person: only "
		    "a person approves it, by typing the confirmation '%s' "
		    "with `artemis-gitops approve %s --confirm '...'` or on "
		    "the agent's page%s%s; this server can neither approve "
		    "nor apply.",
		    dir, md, confirm, dir, page != NULL ? " at " : "",
		    page != NULL ? page : "");
	else
		sbuf_addf(&res->text,
		    "\nPreview: %s (%s), written for the record; it cannot be "
		    "approved as it stands.",
		    dir, md);
	free(cli);
	free(page);
	free(json);
	free(md);
	free(confirm);
	free(summary);
}

struct planning {
	struct mcp_tree tree;
	const struct mcp_cluster *mc;
	struct plan_managed managed;
	struct live_scope scope;
	struct recon_snapshot *snap;
};

/* The cluster at the revision, its managed set and every node read, as
 * `plan` (queue NULL) or `delete-queue QUEUE` reads them (plan_scope_build).
 * 0, or -1 with res made an error. */
static int
prepare(struct planning *pl, const struct mcp_ctx *x, const struct json *args,
    const char *queue, struct mcp_result *res)
{
	struct err err = {0};
	char *why = NULL;

	memset(pl, 0, sizeof(*pl));
	if (mcp_tree_load(&pl->tree, x, mcp_arg_str(args, "revision"), &err) <
	    0)
		goto fail;
	pl->mc = mcp_tree_find(&pl->tree, mcp_arg_str(args, "cluster"), &why);
	if (pl->mc == NULL) {
		mcp_result_fail(res, "%s", why);
		free(why);
		return -1;
	}
	if (mcp_fleet_managed(&pl->managed, x, pl->mc->decl->name, &err) < 0)
		goto fail;
	plan_scope_build(&pl->scope, pl->mc->decl, NULL, &pl->managed,
	    queue != NULL ? &queue : NULL, queue != NULL ? 1 : 0, NULL);
	if (mcp_fleet_read(&pl->snap, x, pl->mc->decl, NULL, &pl->scope, &err) <
	    0)
		goto fail;
	return 0;
fail:
	mcp_result_fail(res, "%s", err.msg);
	err_release(&err);
	return -1;
}

static void
planning_release(struct planning *pl)
{
	live_snapshot_free(pl->snap);
	live_scope_release(&pl->scope);
	plan_managed_release(&pl->managed);
	mcp_tree_release(&pl->tree);
}

/* Post p unless it does nothing (and is not refused); the result. */
static void
post(struct mcp_result *res, const struct mcp_ctx *x, struct planning *pl,
    struct plan *p, const struct decl_cluster *before, const char *request)
{
	struct err err = {0};
	char *dir = NULL;

	if (p->nactions == 0 && p->outcome != PLAN_OUT_REFUSED) {
		plan_result(res, x, p, NULL);
		return;
	}
	if (mcp_fleet_post(&dir, x, p, pl->mc, before, pl->snap,
	        pl->tree.commit, request, &err) < 0) {
		mcp_result_fail(res, "the preview could not be written: %s",
		    err.msg);
		err_release(&err);
		return;
	}
	plan_result(res, x, p, dir);
	free(dir);
}

int
mcp_tool_plan_cluster(const struct mcp_ctx *x, const struct mcp_call *c,
    const struct json *args, struct mcp_result *res)
{
	struct planning pl;
	struct plan_opts po = {0};
	struct plan *p = NULL;
	char *req = NULL;

	if (prepare(&pl, x, args, NULL, res) < 0)
		goto done;
	po.disconnect_consumers =
	    mcp_arg_bool(args, "disconnect_consumers", false);
	po.revision = pl.tree.commit;
	po.snapshot_source = "live";
	p = plan_build(pl.mc->decl, &pl.managed, pl.snap, &po);
	plan_add_diagnostics(p, &pl.mc->diags);
	req = request_text(c, "plan", po.disconnect_consumers, pl.tree.commit);
	post(res, x, &pl, p, NULL, req);
done:
	free(req);
	plan_free(p);
	planning_release(&pl);
	return 0;
}

int
mcp_tool_plan_delete_queue(const struct mcp_ctx *x, const struct mcp_call *c,
    const struct json *args, struct mcp_result *res)
{
	struct planning pl;
	struct plan_opts po = {0};
	struct plan *p = NULL;
	const char *queue = mcp_arg_str(args, "queue");
	char *req = NULL, *what = NULL;

	if (prepare(&pl, x, args, queue, res) < 0)
		goto done;
	what = agent_preview_capture_owned(pl.mc->decl, queue);
	if (what != NULL) {
		mcp_result_fail(res, "%s", what);
		goto done;
	}
	po.disconnect_consumers =
	    mcp_arg_bool(args, "disconnect_consumers", false);
	po.revision = pl.tree.commit;
	po.snapshot_source = "live";
	p = plan_delete_queue(pl.mc->decl, &pl.managed, queue, pl.snap, &po);
	if (p->nactions == 0 && p->outcome != PLAN_OUT_REFUSED) {
		plan_result(res, x, p, NULL);
		sbuf_addf(&res->text, " No reachable node has queue '%s'.",
		    queue);
		goto done;
	}
	what = xasprintf("delete-queue %s", queue);
	req = request_text(c, what, po.disconnect_consumers, pl.tree.commit);
	post(res, x, &pl, p, pl.mc->decl, req);
done:
	free(what);
	free(req);
	plan_free(p);
	planning_release(&pl);
	return 0;
}
