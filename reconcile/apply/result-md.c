/* reconcile/apply/result-md.c: result.md, the apply result for people (and
 * pull-request comments): the per-node table (NodeOutcomeSummary), then per
 * node its notes, operations and every removed divert with what recreates
 * it. */
#include "apply-int.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/jsonw.h"
#include "../../lib/sbuf.h"
#include "../../lib/xalloc.h"

/* Append s as one Markdown table cell: '|' escaped, newlines flattened. */
static void
cell(struct sbuf *b, const char *s)
{
	if (s == NULL)
		return;
	for (; *s != '\0'; s++) {
		if (*s == '|')
			sbuf_adds(b, "\\|");
		else if (*s == '\n' || *s == '\r')
			sbuf_addc(b, ' ');
		else
			sbuf_addc(b, *s);
	}
}

static void
summary(struct sbuf *b, const struct apply_result *r)
{
	size_t i;

	sbuf_adds(b, "| node | outcome | detail |\n|---|---|---|\n");
	for (i = 0; i < r->nnodes; i++) {
		sbuf_adds(b, "| ");
		cell(b, r->nodes[i].node);
		sbuf_addf(b, " | %s | ",
		    apply_outcome_name(r->nodes[i].outcome));
		cell(b, r->nodes[i].detail);
		sbuf_adds(b, " |\n");
	}
}

static void
ops_table(struct sbuf *b, const struct apply_node *n)
{
	const struct apply_op *a;
	size_t i;

	sbuf_adds(b, "\n| # | operation | object | outcome | error |\n"
	             "|---|---|---|---|---|\n");
	for (i = 0; i < n->nops; i++) {
		a = &n->ops[i];
		sbuf_addf(b, "| %zu | %s | ", i + 1,
		    recon_op_kind_name(a->op.kind));
		cell(b, a->op.name);
		sbuf_addf(b, " | %s%s | ", apply_op_state_name(a->state),
		    a->established == APPLY_EST_READ_BACK ? " (read back: its "
		                                            "reply was lost)"
		    : a->established == APPLY_EST_RESUME_READ
		        ? " (by the interrupted apply, as read now)"
		        : "");
		if (a->refusal.kind != RECON_OK) {
			sbuf_addf(b, "%s: ", recon_kind_name(a->refusal.kind));
			cell(b, a->refusal.text);
		}
		sbuf_adds(b, " |\n");
	}
}

static void
removed_diverts(struct sbuf *b, const struct apply_node *n)
{
	const struct apply_op *a;
	struct sbuf js = {0};
	struct jsonw w;
	size_t i;
	bool any = false;

	for (i = 0; i < n->nops; i++) {
		a = &n->ops[i];
		if (a->op.kind != RECON_OP_DESTROY_DIVERT ||
		    a->state != APPLY_OP_DONE || a->op.divert == NULL)
			continue;
		if (!any)
			sbuf_adds(b,
			    "\nRemoved diverts; each is recreated "
			    "exactly by `createDivert(java.lang.String)` "
			    "with its configuration:\n\n");
		any = true;
		sbuf_reset(&js);
		jsonw_init(&w, &js, 0);
		live_divert_config_write(&w, a->op.divert);
		sbuf_addf(b, "- `%s` (source `%s`, forwarding `%s`): `%s`\n",
		    a->op.divert->name, a->op.divert->address,
		    a->op.divert->forwarding_address, sbuf_str(&js));
	}
	sbuf_release(&js);
}

static void
node_section(struct sbuf *b, const struct apply_node *n)
{
	size_t i;

	sbuf_addf(b, "\n## %s: %s\n\n", n->node,
	    apply_outcome_name(n->outcome));
	if (n->member != NULL)
		sbuf_addf(b,
		    "HA member acted on: **%s** (the live one)%s%s%s\n\n",
		    n->member,
		    n->planned_member != NULL ? "; the plan was made against "
		                              : "",
		    n->planned_member != NULL ? n->planned_member : "",
		    n->planned_member != NULL
		        ? ": a failover since the plan, and every action was checked again against what the new live member holds"
		        : "");
	if (n->detail != NULL)
		sbuf_addf(b, "%s\n", n->detail);
	if (n->nnotes > 0)
		sbuf_adds(b, "\n");
	for (i = 0; i < n->nnotes; i++)
		sbuf_addf(b, "- %s\n", n->notes[i]);
	if (n->nops > 0)
		ops_table(b, n);
	removed_diverts(b, n);
}

char *
apply_result_render_md(const struct apply_result *r)
{
	struct sbuf b = {0};
	size_t i, bad = 0;

	for (i = 0; i < r->nnodes; i++)
		if (r->nodes[i].outcome != APPLY_APPLIED &&
		    r->nodes[i].outcome != APPLY_SKIPPED)
			bad++;
	sbuf_addf(&b, "# Apply result: %s%s%s\n\n", r->cluster,
	    r->revision != NULL ? " at " : "",
	    r->revision != NULL ? r->revision : "");
	sbuf_addf(&b,
	    "Plan `%s` (SHA-256 `%s`), approved by %s (uid %lld) at %s.\n"
	    "Started %s, finished %s. disconnect-consumers: %s.\n\n",
	    r->plan_dir, r->plan_digest, r->approver,
	    (long long)r->approver_uid, r->approved_at, r->started_at,
	    r->finished_at != NULL ? r->finished_at : "-",
	    r->disconnect_consumers ? "yes" : "no");
	if (r->resumes != NULL)
		sbuf_addf(&b,
		    "Resumes the interrupted apply `%s` of this plan (its intent "
		    "row has no result row): the operations it had done, as each "
		    "node read before acting shows, are marked done by it; this "
		    "apply ran the rest.\n\n",
		    r->resumes);
	if (bad == 0)
		sbuf_adds(&b,
		    "**Every node applied or had nothing to do.**\n\n");
	else
		sbuf_addf(&b,
		    "**%zu node(s) did not apply** (nothing is rolled back; "
		    "see each node below).\n\n",
		    bad);
	if (r->adopted > 0)
		sbuf_addf(&b,
		    "**Adopted %zu object%s**: declared and already on the "
		    "brokers, now in the inventory (nothing was sent for "
		    "them); removing one from the declaration is now planned "
		    "as a delete.\n\n",
		    r->adopted, r->adopted == 1 ? "" : "s");
	if (r->policy_changes > 0)
		sbuf_addf(&b,
		    "**Updated the policy (%zu change%s)**: the inventory now "
		    "records the applied declaration's policy, which judges "
		    "what later plans may delete (nothing was sent for it; "
		    "docs/policy.md).\n\n",
		    r->policy_changes, r->policy_changes == 1 ? "" : "s");
	summary(&b, r);
	for (i = 0; i < r->nnodes; i++)
		node_section(&b, &r->nodes[i]);
	sbuf_addf(&b,
	    "\nAudit: apply `%s` in the state folder's audit.jsonl.\n",
	    r->apply_id);
	return sbuf_take(&b);
}
