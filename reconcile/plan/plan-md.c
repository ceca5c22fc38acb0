/* reconcile/plan/plan-md.c: plan.md, the preview for people and pull-request
 * comments: the summary line first, then per action and per node what
 * happens, what is removed with it, what is kept and why (for a queue
 * delete also drawn: plan-mermaid.c), every warning, and the exact text
 * to type to approve. Past PLAN_MD_MAX characters
 * the actions are cut with a pointer to plan.json. */
#include "plan-int.h"

#include <assert.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/sbuf.h"
#include "../../lib/utf8.h"
#include "../../lib/xalloc.h"

/* The headline of an UNREACHABLE plan: how many nodes were not read, and
 * what the others showed. */
static char *
unread_phrase(const struct plan *p)
{
	size_t i, n = 0;

	for (i = 0; i < p->nnodes; i++)
		n += !p->nodes[i].reachable && !plan_node_passive(&p->nodes[i]);
	if (n == p->nnodes)
		return xasprintf("no node could be read (%zu of %zu)", n,
		    p->nnodes);
	return xasprintf(
	    "%zu of %zu node%s could not be read; the others are as declared",
	    n, p->nnodes, p->nnodes == 1 ? "" : "s");
}

static void
summary_line(struct sbuf *b, const struct plan *p)
{
	struct plan_summary s;
	char *phrase;

	plan_summarize(p, &s);
	if (p->outcome == PLAN_OUT_UNREACHABLE)
		phrase = unread_phrase(p);
	else if (p->refusal != NULL &&
	         strcmp(p->refusal, "INVALID_DECLARATION") == 0)
		phrase = xstrdup("the declaration fails validation");
	else if (p->refusal != NULL &&
	         strcmp(p->refusal, PLAN_REFUSAL_UNTRUSTED) == 0)
		phrase = xstrdup("the commit's signature is not trusted");
	else if (p->outcome == PLAN_OUT_NO_CHANGE && plan_policy_changes(p) > 0)
		phrase = xstrdup("nothing sent to a broker");
	else
		phrase = plan_summary_phrase(&s);
	sbuf_addf(b, "# %s: %s — %s", p->cluster, plan_outcome_name(p->outcome),
	    phrase);
	/* docs/policy.md: less protection is said where every reviewer
	 * reads */
	if (plan_policy_lifts(p) > 0)
		sbuf_addf(b, "; LIFTS PROTECTION (%zu of %zu policy change%s)",
		    plan_policy_lifts(p), plan_policy_changes(p),
		    plan_policy_changes(p) == 1 ? "" : "s");
	else if (plan_policy_changes(p) > 0)
		sbuf_addf(b, "; updates the policy (%zu change%s)",
		    plan_policy_changes(p),
		    plan_policy_changes(p) == 1 ? "" : "s");
	if (p->destroyed_messages > 0)
		sbuf_addf(b, "; destroys %lld message%s (cap %lld)",
		    (long long)p->destroyed_messages,
		    p->destroyed_messages == 1 ? "" : "s",
		    (long long)p->max_destroyed_messages);
	sbuf_adds(b, "\n\n");
	free(phrase);
}

/* docs/policy.md: what applying a plan that changes the policy does. */
static void
policy_note(struct sbuf *b, const struct plan *p)
{
	size_t n = plan_policy_changes(p), l = plan_policy_lifts(p);

	sbuf_addf(b,
	    "**Updates the policy (%zu change%s)** (listed under Policy "
	    "changes): applying this plan records the new declaration's "
	    "policy in the inventory, which judges what later plans may "
	    "delete; nothing is sent to a broker for it.",
	    n, n == 1 ? "" : "s");
	if (l > 0)
		sbuf_addf(b,
		    " **It lifts protection (%zu change%s):** after it, the "
		    "plans delete what the recorded policy refused to delete "
		    "or would only have forgotten; read each effect under "
		    "Policy changes.",
		    l, l == 1 ? "" : "s");
	sbuf_adds(b, "\n\n");
}

static void
header(struct sbuf *b, const struct plan *p)
{
	summary_line(b, p);
	sbuf_addf(b, "- kind: %s; mode: %s\n", p->kind,
	    decl_mode_name(p->mode));
	sbuf_addf(b, "- revision: %s; base: %s%s%s\n",
	    p->revision != NULL ? p->revision : "(working tree)",
	    p->base_source, p->base_revision != NULL ? " at " : "",
	    p->base_revision != NULL ? p->base_revision : "");
	if (p->declaration_digest != NULL)
		sbuf_addf(b, "- declaration: sha256 %s\n",
		    p->declaration_digest);
	sbuf_addf(b, "- snapshot: %s%s%s\n", p->snapshot_source,
	    p->snapshot_taken_at != NULL ? ", taken at " : "",
	    p->snapshot_taken_at != NULL ? p->snapshot_taken_at : "");
	sbuf_addf(b, "- disconnect consumers: %s\n\n",
	    p->disconnect_consumers ? "yes (--disconnect-consumers)" : "no");
	if (plan_adopts(p) > 0)
		sbuf_addf(b,
		    "**Adopts %zu object%s** (%zu addresses, %zu queues, %zu "
		    "diverts): declared, already on the brokers and not yet "
		    "managed. Applying this plan records them in the "
		    "inventory, sending nothing to a broker for them; removing "
		    "one from the declaration later is planned as a delete.\n\n",
		    plan_adopts(p), plan_adopts(p) == 1 ? "" : "s",
		    p->adopts_addresses, p->adopts_queues, p->adopts_diverts);
	if (plan_forgets(p) > 0)
		sbuf_addf(b,
		    "**Forgets %zu object%s** (listed under Forgotten): "
		    "applying this plan takes them out of the inventory and "
		    "sends nothing to a broker for them; they stay on every "
		    "broker, never destroyed (docs/policy.md).\n\n",
		    plan_forgets(p), plan_forgets(p) == 1 ? "" : "s");
	if (plan_policy_changes(p) > 0)
		policy_note(b, p);
	if (p->refusal != NULL)
		sbuf_addf(b, "**%s (%s):** %s.\n**Next step:** %s.\n\n",
		    p->outcome == PLAN_OUT_UNREACHABLE ? "Not compared"
		                                       : "Refused",
		    p->refusal, p->message,
		    p->next_step != NULL ? p->next_step
		                         : "fix the cause and plan again");
	if (p->ndiagnostics > 0) {
		size_t i;

		sbuf_adds(b, "## Declaration diagnostics\n\n```\n");
		for (i = 0; i < p->ndiagnostics; i++)
			sbuf_addf(b, "%s\n", p->diagnostics[i]);
		sbuf_adds(b, "```\n\n");
	}
}

/* What a node not read as a whole is, by its refusal kind. */
static const char *
unread_verb(const struct plan_node_status *pn)
{
	if (strcmp(pn->refusal, "UNSUPPORTED_VERSION") == 0)
		return "is not managed";
	if (plan_node_passive(pn))
		return "is passive, and left alone";
	if (plan_node_ha_refused(pn))
		return "is refused";
	return "could not be read";
}

/* The HA nodes' members: which one is live (planned against, acted on)
 * and what each other one is. */
static void
members_md(struct sbuf *b, const struct plan *p)
{
	const struct plan_member *m;
	size_t i, j, n = 0;

	for (i = 0; i < p->nnodes; i++)
		n += p->nodes[i].nmembers;
	if (n == 0)
		return;
	sbuf_adds(b,
	    "### HA members\n\n| node | member | state | HA policy | Artemis | replica in sync |\n|---|---|---|---|---|---|\n");
	for (i = 0; i < p->nnodes; i++)
		for (j = 0; j < p->nodes[i].nmembers; j++) {
			m = &p->nodes[i].members[j];
			sbuf_addf(b, "| %s | %s | %s%s | %s | %s | %s |\n",
			    p->nodes[i].node, m->name, m->state,
			    p->nodes[i].member != NULL &&
			            strcmp(p->nodes[i].member, m->name) == 0
			        ? " (planned against)"
			        : "",
			    m->policy != NULL ? m->policy : "-",
			    m->version != NULL ? m->version : "-",
			    m->replica_sync < 0   ? "-"
			    : m->replica_sync > 0 ? "yes"
			                          : "no");
		}
	sbuf_adds(b, "\n");
	for (i = 0; i < p->nnodes; i++)
		for (j = 0; j < p->nodes[i].nmembers; j++) {
			m = &p->nodes[i].members[j];
			if (m->message != NULL)
				sbuf_addf(b, "- **%s/%s** %s: %s\n",
				    p->nodes[i].node, m->name, m->state,
				    m->message);
		}
	sbuf_adds(b,
	    "\nOnly the live member of an HA node is planned against and acted on; a passive member gets no operation (docs/ha-pairs.md).\n\n");
}

/* NodeOutcomeSummary: per node, how many steps end how. */
static void
node_table(struct sbuf *b, const struct plan *p)
{
	size_t i, j, k, n[PLAN_OUT_PASSIVE + 1];

	if (p->nnodes == 0)
		return;
	sbuf_adds(b,
	    "## Nodes\n\n| node | Artemis | read | WOULD_APPLY | REFUSED | NO_CHANGE | UNREACHABLE | PASSIVE |\n|---|---|---|---|---|---|---|---|\n");
	for (i = 0; i < p->nnodes; i++) {
		memset(n, 0, sizeof(n));
		for (j = 0; j < p->nactions; j++)
			for (k = 0; k < p->actions[j].nnodes; k++)
				if (strcmp(p->actions[j].nodes[k].node,
				        p->nodes[i].node) == 0)
					n[p->actions[j].nodes[k].outcome]++;
		sbuf_addf(b, "| %s | %s | %s | %zu | %zu | %zu | %zu | %zu |\n",
		    p->nodes[i].node,
		    p->nodes[i].version != NULL ? p->nodes[i].version : "-",
		    p->nodes[i].reachable ? "ok" : p->nodes[i].refusal,
		    n[PLAN_OUT_WOULD_APPLY], n[PLAN_OUT_REFUSED],
		    n[PLAN_OUT_NO_CHANGE], n[PLAN_OUT_UNREACHABLE],
		    n[PLAN_OUT_PASSIVE]);
	}
	sbuf_adds(b, "\n");
	for (i = 0, j = 0; i < p->nnodes; i++) {
		if (p->nodes[i].reachable)
			continue;
		sbuf_addf(b, "- **%s** %s (%s): %s\n", p->nodes[i].node,
		    unread_verb(&p->nodes[i]), p->nodes[i].refusal,
		    p->nodes[i].message);
		j++;
	}
	if (j > 0)
		sbuf_adds(b, "\n");
	members_md(b, p);
}

/* Names as Markdown code spans that no name can break out of (a name read
 * from a broker can hold anything): control, line-break and bidirectional
 * characters shown as <U+XXXX>, and a fence of one backtick more than the
 * longest run inside, padded with a space when the name starts or ends
 * with a backtick or both starts and ends with a space (CommonMark's code
 * span rules). At most
 * SPANS_MAX a line; released with spans_release. */
#define SPANS_MAX 4
struct spans {
	char *v[SPANS_MAX];
	size_t n;
};

static const char *
span(struct spans *sp, const char *name)
{
	struct sbuf b = {0};
	char *t = utf8_escape(name != NULL ? name : "", utf8_line_problem);
	size_t run = 0, longest = 0, i, n = strlen(t);
	/* CommonMark strips one space from each end when both ends have one */
	bool pad = n > 0 && (t[0] == '`' || t[n - 1] == '`' ||
	                        (t[0] == ' ' && t[n - 1] == ' '));

	assert(sp->n < SPANS_MAX);
	for (i = 0; i < n; i++) {
		run = t[i] == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	for (i = 0; i <= longest; i++)
		sbuf_addc(&b, '`');
	sbuf_addf(&b, "%s%s%s", pad ? " " : "", t, pad ? " " : "");
	for (i = 0; i <= longest; i++)
		sbuf_addc(&b, '`');
	free(t);
	sp->v[sp->n] = sbuf_take(&b);
	return sp->v[sp->n++];
}

static void
spans_release(struct spans *sp)
{
	size_t i;

	for (i = 0; i < sp->n; i++)
		free(sp->v[i]);
	sp->n = 0;
}

/* A divert create or update on a release without the JSON overloads is
 * sent in the positional ones: said on its line. */
static void
op_md(struct sbuf *b, const struct recon_op *op, size_t i, const char *version)
{
	struct spans sp = {0};
	char *rt;

	sbuf_addf(b, "    %zu. `%s` %s", i + 1, recon_op_kind_name(op->kind),
	    span(&sp, op->name));
	spans_release(&sp);
	if (op->kind == RECON_OP_DESTROY_QUEUE)
		sbuf_addf(b, " (removeConsumers=%s)",
		    op->remove_consumers ? "true" : "false");
	if (op->kind == RECON_OP_CREATE_ADDRESS ||
	    op->kind == RECON_OP_UPDATE_ADDRESS) {
		rt = decl_routing_set_join(op->routing, true, ",");
		sbuf_addf(b, " (%s)", rt);
		free(rt);
	}
	if ((op->kind == RECON_OP_CREATE_DIVERT ||
	        op->kind == RECON_OP_UPDATE_DIVERT) &&
	    version != NULL && !recon_version_divert_json(version))
		sbuf_addf(b,
		    " (the positional overload: Artemis %s has no %s(java.lang.String))",
		    version, recon_op_kind_name(op->kind));
	sbuf_adds(b, "\n");
}

/* ADR-0084 D1: wherever a divert goes, its name, source and forwarding
 * address are shown; here for the divert (or tap) an action of its own
 * removes or recreates, as observed on the node. */
static void
own_divert(struct sbuf *b, enum plan_action_kind k, const struct plan_step *np)
{
	const struct recon_divert *d = np->observed.divert;
	struct spans sp = {0};
	const char *what;

	if (d == NULL || (np->outcome != PLAN_OUT_WOULD_APPLY &&
	                     np->outcome != PLAN_OUT_REFUSED))
		return;
	if (k == PLAN_ACT_DELETE_DIVERT || k == PLAN_ACT_DELETE_TAP)
		what = "removed";
	else if (k == PLAN_ACT_RECREATE_DIVERT)
		what = "destroyed, then created again as declared";
	else
		return;
	sbuf_addf(b, "  - %s: divert %s (source %s, forwarding to %s)\n", what,
	    span(&sp, d->name), span(&sp, d->address),
	    span(&sp, d->forwarding_address));
	spans_release(&sp);
}

static void
node_details(struct sbuf *b, enum plan_action_kind k,
    const struct plan_step *np, const char *version)
{
	struct spans sp = {0};
	size_t i;

	own_divert(b, k, np);
	for (i = 0; i < np->nremoved; i++) {
		const struct recon_divert *d;

		d = &np->removed[i].config;
		sbuf_addf(b,
		    "  - removed with the queue: divert %s (source %s, forwarding to %s)%s\n",
		    span(&sp, d->name), span(&sp, d->address),
		    span(&sp, d->forwarding_address),
		    np->removed[i].declared
		        ? " — **declared** in the cluster's declaration"
		        : "");
		spans_release(&sp);
	}
	for (i = 0; i < np->nkept; i++) {
		sbuf_addf(b,
		    "  - kept: divert %s (source %s, forwarding to %s): %s\n",
		    span(&sp, np->kept[i].name), span(&sp, np->kept[i].address),
		    span(&sp, np->kept[i].forwarding_address),
		    np->kept[i].reason);
		spans_release(&sp);
	}
	for (i = 0; i < np->ntaps; i++) {
		sbuf_addf(b, "  - capture tap %s%s%s%s: %s — %s\n",
		    span(&sp, np->taps[i].name),
		    np->taps[i].capture != NULL ? " (capture " : "",
		    np->taps[i].capture != NULL ? span(&sp, np->taps[i].capture)
		                                : "",
		    np->taps[i].capture != NULL ? ")" : "",
		    np->taps[i].fate == PLAN_TAP_KEPT
		        ? "kept"
		        : "removed by its capture subscription",
		    np->taps[i].reason);
		spans_release(&sp);
	}
	for (i = 0; i < np->nwarnings; i++)
		sbuf_addf(b, "  - **warning:** %s\n", np->warnings[i]);
	if (np->nops > 0)
		sbuf_adds(b, "  - operations, in order:\n");
	for (i = 0; i < np->nops; i++)
		op_md(b, &np->ops[i], i, version);
}

static void
node_md(struct sbuf *b, enum plan_action_kind k, const struct plan_step *np,
    const char *version)
{
	sbuf_addf(b, "- **%s**: %s", np->node, plan_outcome_name(np->outcome));
	if (np->refusal != NULL)
		sbuf_addf(b, " (%s)", np->refusal);
	if (np->message != NULL)
		sbuf_addf(b, " — %s", np->message);
	if (np->observed.queue != NULL)
		sbuf_addf(b, " [%lld consumer%s, %lld message%s]",
		    (long long)np->consumers, np->consumers == 1 ? "" : "s",
		    (long long)np->observed.queue->message_count,
		    np->observed.queue->message_count == 1 ? "" : "s");
	sbuf_adds(b, "\n");
	if (np->next_step != NULL)
		sbuf_addf(b, "  - **next step:** %s\n", np->next_step);
	if (np->outcome == PLAN_OUT_UNREACHABLE ||
	    np->outcome == PLAN_OUT_PASSIVE)
		return;
	node_details(b, k, np, version);
}

static void
action_md(struct sbuf *b, const struct plan *p, const struct plan_action *a,
    size_t idx)
{
	struct spans sp = {0};
	size_t i;

	sbuf_addf(b, "### %zu. %s %s", idx + 1, plan_action_kind_name(a->kind),
	    span(&sp, a->name));
	if (a->address != NULL && strcmp(a->address, a->name) != 0)
		sbuf_addf(b, " (address %s)", span(&sp, a->address));
	if (a->destroys_messages)
		sbuf_adds(b, " — **destroys messages**");
	sbuf_addf(b, "\n\nWhy: %s.\n\n", a->why);
	if (a->delete_if_empty != NULL)
		sbuf_addf(b,
		    "Delete-if-empty: a node where the queue holds messages is refused, here and again at apply (%s).\n\n",
		    span(&sp, a->delete_if_empty));
	spans_release(&sp);
	plan_graph_md(b, a);
	for (i = 0; i < a->nnodes; i++)
		node_md(b, a->kind, &a->nodes[i],
		    plan_node_version(p, a->nodes[i].node));
	sbuf_adds(b, "\n");
}

static void
unmanaged_md(struct sbuf *b, const struct plan *p)
{
	struct spans sp = {0};
	size_t i, j;

	if (p->nunmanaged == 0)
		return;
	sbuf_adds(b,
	    "## Unmanaged (left alone)\n\nLive objects the agent never declared; a plan never removes them.\n\n");
	for (i = 0; i < p->nunmanaged; i++) {
		sbuf_addf(b, "- %s %s on ", p->unmanaged[i].kind,
		    span(&sp, p->unmanaged[i].name));
		spans_release(&sp);
		for (j = 0; j < p->unmanaged[i].nnodes; j++)
			sbuf_addf(b, "%s%s", j > 0 ? ", " : "",
			    p->unmanaged[i].nodes[j]);
		sbuf_adds(b, "\n");
	}
	sbuf_adds(b, "\n");
}

/* docs/policy.md "Changing the policy": each change, old → new, where the
 * new key is written and what it allows next; a lift in words a reviewer
 * cannot miss. */
static void
changes_md(struct sbuf *b, const struct plan *p)
{
	const struct plan_policy_change *c;
	struct spans sp = {0};
	size_t i;

	if (plan_policy_changes(p) == 0)
		return;
	sbuf_adds(b,
	    "## Policy changes\n\nThe policy the inventory records (the "
	    "last applied declaration's) against the one this apply "
	    "records. Nothing is sent to a broker for them.\n\n");
	for (i = 0; i < p->npolicy_changes; i++) {
		c = &p->policy_changes[i];
		sbuf_addf(b, "- %s %s%s%s %s: %s → %s",
		    c->lifts ? "**lifts protection:**" : "adds protection:",
		    c->setting, strcmp(c->kind, "pattern") == 0 ? " " : " of ",
		    c->kind, span(&sp, c->name), c->from, c->to);
		spans_release(&sp);
		if (c->at != NULL)
			sbuf_addf(b, " (%s)", c->at);
		sbuf_addf(b, "; %s\n", c->effect);
	}
	sbuf_adds(b, "\n");
}

/* docs/policy.md: what the policy does in this plan. */
static void
policy_md(struct sbuf *b, const struct plan *p)
{
	struct spans sp = {0};
	size_t i, j;

	changes_md(b, p);
	if (p->nprotected_hits > 0) {
		sbuf_adds(b,
		    "## Protected (refused)\n\nObjects a settings.protect pattern covers that this plan would delete; the plan is refused as a whole.\n\n");
		for (i = 0; i < p->nprotected_hits; i++) {
			sbuf_addf(b, "- %s %s: pattern %s; %s\n",
			    p->protected_hits[i].kind,
			    span(&sp, p->protected_hits[i].name),
			    span(&sp, p->protected_hits[i].pattern),
			    p->protected_hits[i].why);
			spans_release(&sp);
		}
		sbuf_adds(b, "\n");
	}
	if (p->nforgotten > 0) {
		sbuf_adds(b,
		    "## Forgotten (retained)\n\nThe agent stops managing these objects: they leave the managed set and are never destroyed on any broker.\n\n");
		for (i = 0; i < p->nforgotten; i++) {
			sbuf_addf(b, "- forget %s %s: %s\n",
			    p->forgotten[i].kind,
			    span(&sp, p->forgotten[i].name),
			    p->forgotten[i].reason);
			spans_release(&sp);
		}
		sbuf_adds(b, "\n");
	}
	if (p->ndeclared_unmanaged > 0) {
		sbuf_adds(b,
		    "## Unmanaged by declaration\n\nDeclared with `managed: false`: never created, changed, deleted or reported as drift.\n\n");
		for (i = 0; i < p->ndeclared_unmanaged; i++) {
			sbuf_addf(b, "- %s %s on ",
			    p->declared_unmanaged[i].kind,
			    span(&sp, p->declared_unmanaged[i].name));
			spans_release(&sp);
			for (j = 0; j < p->declared_unmanaged[i].nnodes; j++)
				sbuf_addf(b, "%s%s", j > 0 ? ", " : "",
				    p->declared_unmanaged[i].nodes[j]);
			sbuf_adds(b, "\n");
		}
		sbuf_adds(b, "\n");
	}
	if (p->ncapture_skipped > 0) {
		sbuf_adds(b,
		    "## Capture pass: left out\n\nQueues a capture's pattern matches that are, or are on an address, declared with `managed: false`: the capture pass puts no tap on their address for them.\n\n");
		for (i = 0; i < p->ncapture_skipped; i++) {
			sbuf_addf(b, "- %s\n",
			    span(&sp, p->capture_skipped[i]));
			spans_release(&sp);
		}
		sbuf_adds(b, "\n");
	}
	if (p->nprotect > 0) {
		sbuf_adds(b, "Protected patterns in force: ");
		for (i = 0; i < p->nprotect; i++) {
			sbuf_addf(b, "%s%s", i > 0 ? ", " : "",
			    span(&sp, p->protect[i]));
			spans_release(&sp);
		}
		sbuf_adds(b,
		    " (this declaration's with the last applied one's).\n\n");
	}
}

static void
approve_md(struct sbuf *b, const struct plan *p, const char *dir, char **conf)
{

	sbuf_adds(b, "## Approve\n\n");
	if (p->outcome == PLAN_OUT_NO_CHANGE && !plan_approvable(p)) {
		sbuf_adds(b,
		    "Nothing to approve: the cluster is as declared.\n");
		return;
	}
	if (p->outcome == PLAN_OUT_UNREACHABLE) {
		sbuf_addf(b,
		    "Nothing to approve yet: %s. The cluster is not known to be as declared; plan again when every node answers.\n",
		    p->message != NULL ? p->message
		                       : "a node could not be read");
		return;
	}
	if (!plan_approvable(p)) {
		sbuf_addf(b,
		    "This plan is refused and cannot be approved: %s.\n",
		    p->message != NULL ? p->message : "see above");
		return;
	}
	/* rendered once per plan.md: it renders the whole plan.json */
	if (*conf == NULL)
		*conf = plan_confirmation(p);
	sbuf_addf(b,
	    "To approve exactly this plan, type:\n\n```\nartemis-gitops approve %s --confirm '%s'\n```\n",
	    dir, *conf);
}

char *
plan_render_md_title(const struct plan *p)
{
	struct sbuf b = {0};

	summary_line(&b, p);
	return sbuf_take(&b);
}

char *
plan_render_md(const struct plan *p, const char *plan_dir)
{
	return plan_render_md_max(p, plan_dir, PLAN_MD_MAX);
}

char *
plan_render_md_max(const struct plan *p, const char *plan_dir, size_t max)
{
	struct sbuf out = {0}, tail = {0}, act = {0};
	char *conf = NULL;
	size_t i, budget;

	header(&out, p);
	node_table(&out, p);
	policy_md(&tail, p);
	unmanaged_md(&tail, p);
	approve_md(&tail, p, plan_dir, &conf);
	if (p->nactions > 0)
		sbuf_adds(&out, "## Actions\n\n");
	budget = max == 0 ? SIZE_MAX : max > 400 ? max - 400 : 0;
	for (i = 0; i < p->nactions; i++) {
		sbuf_reset(&act);
		action_md(&act, p, &p->actions[i], i);
		if (out.len + act.len + tail.len > budget) {
			sbuf_addf(&out,
			    "**Preview truncated:** %zu more action%s not shown here; the full plan is in `%s/plan.json`.\n\n",
			    p->nactions - i,
			    p->nactions - i == 1 ? " is" : "s are", plan_dir);
			break;
		}
		sbuf_add(&out, act.buf, act.len);
	}
	sbuf_reset(&act);
	plan_broker_xml_md(&act, p);
	if (out.len + act.len + tail.len <= budget)
		sbuf_add(&out, act.buf, act.len);
	else
		sbuf_addf(&out,
		    "**Preview truncated:** the broker.xml diffs and reload predictions are in `%s/plan.json`, the rendered files in `%s/broker/`.\n\n",
		    plan_dir, plan_dir);
	if (out.len + tail.len > budget) {
		sbuf_reset(&tail);
		sbuf_addf(&tail,
		    "**Preview truncated:** unmanaged objects are listed in `%s/plan.json`.\n\n",
		    plan_dir);
		if (plan_has_policy(p))
			sbuf_addf(&tail,
			    "**Preview truncated:** what the per-object policy does (policy changes, protected, forgotten, unmanaged by declaration) is under `policy` in `%s/plan.json`.\n\n",
			    plan_dir);
		approve_md(&tail, p, plan_dir, &conf);
	}
	sbuf_add(&out, tail.buf, tail.len);
	sbuf_release(&tail);
	sbuf_release(&act);
	free(conf);
	return sbuf_take(&out);
}
