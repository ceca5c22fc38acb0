/* agent/mcp/tool-explain.c: explain, one queue across the cluster's nodes:
 * where it is declared, its address and the other queues there, the
 * diverts that forward into that address and those that read from it, the
 * capture taps on it, its messages and consumers; and what deleting it
 * would do, node by node: ADR-0084's preflight as `delete-queue` runs it
 * (plan_delete_queue, with the inventory's policy), dependent diverts
 * removed with it, diverts kept and why, taps, refusals. Nothing is
 * written and nothing is sent but the reads. */
#include "mcp-int.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/xalloc.h"
#include "../../reconcile/live/live.h"

const struct mcp_arg mcp_args_explain[] = {
    {"cluster", MCP_ARG_STRING, true, "the cluster's name", 0, 0, NULL},
    {"queue", MCP_ARG_STRING, true, "the queue's name", 0, 0, NULL},
    {"node", MCP_ARG_STRING, false, "read this node only; default: every node",
        0, 0, NULL},
    {"revision", MCP_ARG_STRING, false,
        "the revision of the declaration to judge against; default: the "
        "branch the agent follows",
        0, 0, NULL},
    {NULL, MCP_ARG_STRING, false, NULL, 0, 0, NULL},
};

/* Does forwarding (a comma-separated list) name address? */
static bool
forwards_to(const char *forwarding, const char *address)
{
	const char *p = forwarding, *t;
	size_t len;

	while (live_forward_target(&p, &t, &len))
		if (len == strlen(address) && strncmp(t, address, len) == 0)
			return true;
	return false;
}

static const struct plan_step *
step_of(const struct plan *p, const char *queue, const char *node)
{
	size_t i, j;

	for (i = 0; i < p->nactions; i++) {
		const struct plan_action *a = &p->actions[i];

		if (a->kind != PLAN_ACT_DELETE_QUEUE ||
		    strcmp(a->name, queue) != 0)
			continue;
		for (j = 0; j < a->nnodes; j++)
			if (strcmp(a->nodes[j].node, node) == 0)
				return &a->nodes[j];
	}
	return NULL;
}

static bool
removed_by(const struct plan_step *st, const char *divert)
{
	size_t i;

	for (i = 0; st != NULL && i < st->nremoved; i++)
		if (strcmp(st->removed[i].config.name, divert) == 0)
			return true;
	return false;
}

/* The diverts around address on n: into (forwarding there) or from
 * (sourced there). */
static void
diverts_json(struct jsonw *w, const struct recon_node_snapshot *n,
    const char *address, const char *prefix, const struct plan_step *st,
    size_t *ninto, size_t *nfrom)
{
	size_t *idx = NULL, k, i;
	int pass;

	k = n->index != NULL ? live_node_diverts_around(n->index, address, &idx)
	                     : 0;
	*ninto = *nfrom = 0;
	for (pass = 0; pass < 2; pass++) {
		jsonw_key(w, pass == 0 ? "diverts_forwarding_into"
		                       : "diverts_reading_from");
		jsonw_arr_begin(w);
		for (i = 0; i < k; i++) {
			const struct recon_divert *d = &n->diverts[idx[i]];
			bool into = forwards_to(d->forwarding_address, address);
			bool from = recon_str_eq(d->address, address);

			if ((pass == 0 && !into) || (pass == 1 && !from))
				continue;
			if (i > 0 && idx[i] == idx[i - 1])
				continue; /* listed by source and by target */
			jsonw_obj_begin(w);
			jsonw_key_bool(w, "capture_tap",
			    prefix[0] != '\0' &&
			        strncmp(d->name, prefix, strlen(prefix)) == 0);
			jsonw_key_str(w, "forwarding_address",
			    d->forwarding_address);
			jsonw_key_str(w, "name", d->name);
			if (pass == 0)
				jsonw_key_bool(w, "removed_with_a_delete",
				    removed_by(st, d->name));
			jsonw_key_str(w, "source", d->address);
			jsonw_obj_end(w);
			*(pass == 0 ? ninto : nfrom) += 1;
		}
		jsonw_arr_end(w);
	}
	free(idx);
}

static void
step_json(struct jsonw *w, const struct plan_step *st)
{
	size_t i;

	jsonw_key(w, "delete");
	if (st == NULL) {
		jsonw_null(w);
		return;
	}
	jsonw_obj_begin(w);
	jsonw_key_int(w, "consumers", st->consumers);
	jsonw_key_int(w, "destroyed_messages", st->destroyed_messages);
	jsonw_key(w, "keeps_diverts");
	jsonw_arr_begin(w);
	for (i = 0; i < st->nkept; i++) {
		jsonw_obj_begin(w);
		jsonw_key_str(w, "name", st->kept[i].name);
		jsonw_key_str(w, "reason", st->kept[i].reason);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_key_str(w, "message", st->message);
	jsonw_key_str(w, "next_step", st->next_step);
	jsonw_key_str(w, "outcome", plan_outcome_name(st->outcome));
	jsonw_key_str(w, "refusal", st->refusal);
	jsonw_key(w, "removes_diverts");
	jsonw_arr_begin(w);
	for (i = 0; i < st->nremoved; i++) {
		const struct recon_divert *d = &st->removed[i].config;

		jsonw_obj_begin(w);
		jsonw_key_bool(w, "declared", st->removed[i].declared);
		jsonw_key_str(w, "forwarding_address", d->forwarding_address);
		jsonw_key_str(w, "name", d->name);
		jsonw_key_str(w, "source", d->address);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_key(w, "capture_taps");
	jsonw_arr_begin(w);
	for (i = 0; i < st->ntaps; i++) {
		jsonw_obj_begin(w);
		jsonw_key_str(w, "capture", st->taps[i].capture);
		jsonw_key_str(w, "fate",
		    st->taps[i].fate == PLAN_TAP_KEPT
		        ? "kept"
		        : "removed by its capture "
		          "subscription");
		jsonw_key_str(w, "name", st->taps[i].name);
		jsonw_key_str(w, "reason", st->taps[i].reason);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_key_strs(w, "warnings", st->warnings, st->nwarnings);
	jsonw_obj_end(w);
}

/* One node: the queue, its address, the diverts around it and the delete
 * step; a line of the text. */
static void
node_json(struct jsonw *w, struct sbuf *text,
    const struct recon_node_snapshot *n, const char *queue, const char *prefix,
    const struct plan *p)
{
	const struct recon_queue *q = NULL;
	const struct recon_address *a = NULL;
	const struct plan_step *st = step_of(p, queue, n->node);
	size_t into = 0, from = 0;

	jsonw_obj_begin(w);
	mcp_node_status_json(w, n);
	if (n->refusal.kind == RECON_OK || n->refusal.kind == RECON_PASSIVE)
		q = recon_node_find_queue(n, queue);
	if (q != NULL)
		a = recon_node_find_address(n, q->address);
	jsonw_key_bool(w, "has_queue", q != NULL);
	if (q != NULL) {
		jsonw_key_str(w, "address", q->address);
		jsonw_key_int(w, "consumers", q->consumer_count);
		jsonw_key_int(w, "messages", q->message_count);
		jsonw_key_str(w, "routing", decl_routing_name(q->routing));
		jsonw_key_strs(w, "queues_on_address",
		    a != NULL ? a->queue_names : NULL,
		    a != NULL ? a->nqueue_names : 0);
		diverts_json(w, n, q->address, prefix, st, &into, &from);
	}
	step_json(w, st);
	jsonw_obj_end(w);
	sbuf_addf(text, "; %s: ", n->node);
	if (n->refusal.kind != RECON_OK && n->refusal.kind != RECON_PASSIVE)
		sbuf_addf(text, "not read (%s)",
		    recon_kind_name(n->refusal.kind));
	else if (q == NULL)
		sbuf_adds(text, "no such queue");
	else
		sbuf_addf(text,
		    "address '%s', %lld message(s), %lld consumer(s), %zu "
		    "divert(s) forwarding into the address (%zu removed with a "
		    "delete), %zu reading from it; a delete: %s%s%s",
		    q->address, (long long)q->message_count,
		    (long long)q->consumer_count, into,
		    st != NULL ? st->nremoved : 0, from,
		    st != NULL ? plan_outcome_name(st->outcome) : "nothing",
		    st != NULL && st->message != NULL ? " - " : "",
		    st != NULL && st->message != NULL ? st->message : "");
}

int
mcp_tool_explain(const struct mcp_ctx *x, const struct mcp_call *c,
    const struct json *args, struct mcp_result *res)
{
	struct mcp_tree t = {0};
	struct plan_managed m = {0};
	struct recon_snapshot *s = NULL;
	struct plan *p = NULL;
	struct plan_opts po = {0};
	struct live_scope scope = {0};
	struct err err = {0};
	const struct mcp_cluster *mc;
	const struct decl_queue *dq;
	const char *queue = mcp_arg_str(args, "queue");
	char *why = NULL, *summary;
	size_t i;

	(void)c;
	if (mcp_tree_load(&t, x, mcp_arg_str(args, "revision"), &err) < 0) {
		mcp_result_fail(res, "%s", err.msg);
		goto done;
	}
	mc = mcp_tree_find(&t, mcp_arg_str(args, "cluster"), &why);
	if (mc == NULL) {
		mcp_result_fail(res, "%s", why);
		goto done;
	}
	if (mcp_fleet_managed(&m, x, mc->decl->name, &err) < 0) {
		mcp_result_fail(res, "%s", err.msg);
		goto done;
	}
	/* what delete-queue reads: its preflight's scope */
	plan_scope_build(&scope, mc->decl, NULL, &m, &queue, 1, NULL);
	if (mcp_fleet_read(&s, x, mc->decl, mcp_arg_str(args, "node"), &scope,
	        &err) < 0) {
		mcp_result_fail(res, "%s", err.msg);
		goto done;
	}
	po.revision = t.commit;
	po.snapshot_source = "live";
	p = plan_delete_queue(mc->decl, &m, queue, s, &po);
	dq = decl_cluster_find_queue(mc->decl, queue);
	jsonw_key_str(&res->w, "cluster", mc->decl->name);
	jsonw_key_str(&res->w, "commit", t.commit);
	jsonw_key(&res->w, "declared");
	if (dq != NULL) {
		char *at = xasprintf("%s:%u:%u", dq->pos.path, dq->pos.line,
		    dq->pos.col);

		jsonw_obj_begin(&res->w);
		jsonw_key_str(&res->w, "address", dq->address);
		jsonw_key_str(&res->w, "at", at);
		jsonw_obj_end(&res->w);
		free(at);
	} else {
		jsonw_null(&res->w);
	}
	summary = plan_summary_line(p);
	jsonw_key(&res->w, "delete_preflight");
	jsonw_obj_begin(&res->w);
	jsonw_key_bool(&res->w, "disconnect_consumers", false);
	jsonw_key_str(&res->w, "message", p->message);
	jsonw_key_str(&res->w, "next_step", p->next_step);
	jsonw_key_str(&res->w, "outcome", plan_outcome_name(p->outcome));
	jsonw_key_str(&res->w, "refusal", p->refusal);
	jsonw_key_str(&res->w, "summary", summary);
	jsonw_obj_end(&res->w);
	jsonw_key(&res->w, "nodes");
	jsonw_arr_begin(&res->w);
	sbuf_addf(&res->text, "queue '%s' of cluster '%s'%s%s", queue,
	    mc->decl->name, dq != NULL ? ", declared at " : " (not declared)",
	    dq != NULL ? dq->pos.path : "");
	for (i = 0; i < s->nnodes; i++)
		node_json(&res->w, &res->text, &s->nodes[i], queue,
		    mc->decl->settings.capture_prefix, p);
	jsonw_arr_end(&res->w);
	jsonw_key_str(&res->w, "queue", queue);
	jsonw_key_str(&res->w, "revision", t.rev);
	sbuf_addf(&res->text,
	    ". A delete (disconnect_consumers false) would be %s%s%s; this "
	    "is the preflight only: nothing was written",
	    plan_outcome_name(p->outcome), p->refusal != NULL ? ": " : "",
	    p->refusal != NULL ? p->refusal : "");
	free(summary);
done:
	free(why);
	err_release(&err);
	plan_free(p);
	live_snapshot_free(s);
	live_scope_release(&scope);
	plan_managed_release(&m);
	mcp_tree_release(&t);
	return 0;
}
