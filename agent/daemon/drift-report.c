/* agent/daemon/drift-report.c: counting and rendering drift
 * (daemon-int.h, "drift-report.c"). */

#include "daemon-int.h"

#include <string.h>

#include "../../lib/jsonw.h"
#include "../../lib/sbuf.h"
#include "../../reconcile/plan/plan.h"

enum finding {
	F_NONE = 0, /* not drift: the capture pass's business */
	F_MISSING,
	F_CHANGED,
};

/* The capture pass's actions (taps following the live queues, a capture's
 * ring) are not drift: the drift cycle runs the pass itself
 * (capture-pass.c), so they are not reported. */
static enum finding
finding_of(enum plan_action_kind k)
{
	if (plan_action_kind_is_capture(k))
		return F_NONE;
	if (k == PLAN_ACT_CREATE_ADDRESS || k == PLAN_ACT_CREATE_QUEUE ||
	    k == PLAN_ACT_CREATE_DIVERT)
		return F_MISSING;
	return F_CHANGED;
}

/* "queue" for "create-queue", "address" for "narrow-address", ... */
static const char *
object_kind(enum plan_action_kind k)
{
	const char *n = plan_action_kind_name(k);
	const char *dash = strchr(n, '-');

	return dash != NULL ? dash + 1 : n;
}

static bool
node_drifted(const struct plan_step *np)
{
	return np->outcome == PLAN_OUT_WOULD_APPLY ||
	       np->outcome == PLAN_OUT_REFUSED;
}

/* Some nodes need the action and some do not (never a capture pass's). */
static bool
action_disagrees(const struct plan_action *ac)
{
	size_t i, need = 0, fine = 0;

	if (finding_of(ac->kind) == F_NONE)
		return false;

	for (i = 0; i < ac->nnodes; i++) {
		if (node_drifted(&ac->nodes[i]))
			need++;
		else if (ac->nodes[i].outcome == PLAN_OUT_NO_CHANGE)
			fine++;
	}
	return need > 0 && fine > 0;
}

static size_t
reachable_nodes(const struct plan *p)
{
	size_t i, n = 0;

	for (i = 0; i < p->nnodes; i++)
		if (p->nodes[i].reachable)
			n++;
	return n;
}

void
daemon_drift_count(const struct plan *p, struct daemon_drift_counts *out)
{
	size_t i, reach = reachable_nodes(p);

	memset(out, 0, sizeof(*out));
	for (i = 0; i < p->nactions; i++) {
		if (finding_of(p->actions[i].kind) == F_NONE)
			continue;
		if (finding_of(p->actions[i].kind) == F_MISSING)
			out->missing++;
		else
			out->changed++;
		if (action_disagrees(&p->actions[i]))
			out->disagreeing++;
	}
	out->unmanaged = p->nunmanaged;
	for (i = 0; i < p->nunmanaged; i++)
		if (p->unmanaged[i].nnodes < reach)
			out->disagreeing++;
	for (i = 0; i < p->nnodes; i++) {
		if (p->nodes[i].reachable)
			continue;
		if (plan_node_passive(&p->nodes[i]))
			out->passive++;
		else if (plan_node_ha_refused(&p->nodes[i]))
			out->refused++;
		else
			out->unreachable++;
	}
}

bool
daemon_drift_found(const struct daemon_drift_counts *c)
{
	return c->missing + c->changed + c->unmanaged + c->disagreeing > 0;
}

/* The nodes of ac that drifted (want true) or are fine (want false). */
static void
json_nodes(struct jsonw *w, const struct plan_action *ac, bool want)
{
	size_t i;

	jsonw_arr_begin(w);
	for (i = 0; i < ac->nnodes; i++) {
		if (want ? node_drifted(&ac->nodes[i])
		         : ac->nodes[i].outcome == PLAN_OUT_NO_CHANGE)
			jsonw_str(w, ac->nodes[i].node);
	}
	jsonw_arr_end(w);
}

static void
json_actions(struct jsonw *w, const struct plan *p, enum finding f)
{
	const struct plan_action *ac;
	size_t i;

	jsonw_arr_begin(w);
	for (i = 0; i < p->nactions; i++) {
		ac = &p->actions[i];
		if (finding_of(ac->kind) != f)
			continue;
		jsonw_obj_begin(w);
		jsonw_key(w, "action");
		jsonw_str(w, plan_action_kind_name(ac->kind));
		jsonw_key(w, "kind");
		jsonw_str(w, object_kind(ac->kind));
		jsonw_key(w, "name");
		jsonw_str(w, ac->name);
		jsonw_key(w, "nodes");
		json_nodes(w, ac, true);
		jsonw_key(w, "why");
		jsonw_str(w, ac->why);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

static void
json_disagreeing(struct jsonw *w, const struct plan *p)
{
	const struct plan_action *ac;
	size_t i, j, k, reach = reachable_nodes(p);
	const struct plan_unmanaged *u;

	jsonw_arr_begin(w);
	for (i = 0; i < p->nactions; i++) {
		ac = &p->actions[i];
		if (!action_disagrees(ac))
			continue;
		jsonw_obj_begin(w);
		jsonw_key(w, "differs_on");
		json_nodes(w, ac, true);
		jsonw_key(w, "kind");
		jsonw_str(w, object_kind(ac->kind));
		jsonw_key(w, "matches_on");
		json_nodes(w, ac, false);
		jsonw_key(w, "name");
		jsonw_str(w, ac->name);
		jsonw_obj_end(w);
	}
	for (i = 0; i < p->nunmanaged; i++) {
		u = &p->unmanaged[i];
		if (u->nnodes >= reach)
			continue;
		/* present (unmanaged) on some nodes only */
		jsonw_obj_begin(w);
		jsonw_key(w, "differs_on");
		jsonw_arr_begin(w);
		for (j = 0; j < u->nnodes; j++)
			jsonw_str(w, u->nodes[j]);
		jsonw_arr_end(w);
		jsonw_key(w, "kind");
		jsonw_str(w, u->kind);
		jsonw_key(w, "matches_on");
		jsonw_arr_begin(w);
		for (j = 0; j < p->nnodes; j++) {
			for (k = 0; k < u->nnodes; k++)
				if (strcmp(u->nodes[k], p->nodes[j].node) == 0)
					break;
			if (k == u->nnodes && p->nodes[j].reachable)
				jsonw_str(w, p->nodes[j].node);
		}
		jsonw_arr_end(w);
		jsonw_key(w, "name");
		jsonw_str(w, u->name);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

static void
json_unmanaged(struct jsonw *w, const struct plan_unmanaged *u, size_t n)
{
	size_t i, j;

	jsonw_arr_begin(w);
	for (i = 0; i < n; i++) {
		jsonw_obj_begin(w);
		jsonw_key(w, "kind");
		jsonw_str(w, u[i].kind);
		jsonw_key(w, "name");
		jsonw_str(w, u[i].name);
		jsonw_key(w, "nodes");
		jsonw_arr_begin(w);
		for (j = 0; j < u[i].nnodes; j++)
			jsonw_str(w, u[i].nodes[j]);
		jsonw_arr_end(w);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

/* The nodes not read as a whole: unreachable ones, passive brokers, or
 * those refused for their HA state. */
static void
json_unread(struct jsonw *w, const struct plan *p, bool want_passive,
    bool want_refused)
{
	size_t i;

	jsonw_arr_begin(w);
	for (i = 0; i < p->nnodes; i++) {
		if (p->nodes[i].reachable ||
		    plan_node_passive(&p->nodes[i]) != want_passive ||
		    (!want_passive &&
		        plan_node_ha_refused(&p->nodes[i]) != want_refused))
			continue;
		jsonw_obj_begin(w);
		jsonw_key(w, "message");
		jsonw_str(w, p->nodes[i].message);
		jsonw_key(w, "node");
		jsonw_str(w, p->nodes[i].node);
		jsonw_key(w, "refusal");
		jsonw_str(w, p->nodes[i].refusal);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

/* Every HA node: the member live now (null: none) and each member's
 * state, so that a failover shows in the report. */
static void
json_ha(struct jsonw *w, const struct plan *p)
{
	const struct plan_node_status *n;
	size_t i, j;

	jsonw_arr_begin(w);
	for (i = 0; i < p->nnodes; i++) {
		n = &p->nodes[i];
		if (n->nmembers == 0)
			continue;
		jsonw_obj_begin(w);
		jsonw_key_str(w, "live_member", n->member);
		jsonw_key(w, "members");
		jsonw_arr_begin(w);
		for (j = 0; j < n->nmembers; j++) {
			jsonw_obj_begin(w);
			jsonw_key_str(w, "ha_policy", n->members[j].policy);
			jsonw_key_str(w, "name", n->members[j].name);
			jsonw_key_str(w, "state", n->members[j].state);
			jsonw_obj_end(w);
		}
		jsonw_arr_end(w);
		jsonw_key_str(w, "node", n->node);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

char *
daemon_drift_render_json(const struct plan *p, const char *head,
    const char *checked_at)
{
	struct sbuf b = {0};
	struct jsonw w;
	struct daemon_drift_counts c;

	daemon_drift_count(p, &c);
	sbuf_init(&b, SBUF_UNBOUNDED);
	jsonw_init(&w, &b, 2);
	jsonw_obj_begin(&w);
	jsonw_key(&w, "applied_revision");
	jsonw_str(&w, p->revision);
	jsonw_key(&w, "changed");
	json_actions(&w, p, F_CHANGED);
	jsonw_key(&w, "checked_at");
	jsonw_str(&w, checked_at);
	jsonw_key(&w, "cluster");
	jsonw_str(&w, p->cluster);
	jsonw_key(&w, "disagreeing");
	json_disagreeing(&w, p);
	jsonw_key(&w, "drift");
	jsonw_bool(&w, daemon_drift_found(&c));
	jsonw_key(&w, "format");
	jsonw_int(&w, DAEMON_DRIFT_FORMAT);
	jsonw_key(&w, "ha");
	json_ha(&w, p);
	jsonw_key(&w, "head");
	jsonw_str(&w, head);
	jsonw_key(&w, "passive");
	json_unread(&w, p, true, false);
	jsonw_key(&w, "refused");
	json_unread(&w, p, false, true);
	jsonw_key(&w, "missing");
	json_actions(&w, p, F_MISSING);
	jsonw_key(&w, "unmanaged");
	json_unmanaged(&w, p->unmanaged, p->nunmanaged);
	/* docs/policy.md: declared with managed: false; never drift, never
	 * repaired; only when there are some (older reports' format) */
	if (p->ndeclared_unmanaged > 0) {
		jsonw_key(&w, "unmanaged_by_declaration");
		json_unmanaged(&w, p->declared_unmanaged,
		    p->ndeclared_unmanaged);
	}
	jsonw_key(&w, "unreachable");
	json_unread(&w, p, false, false);
	jsonw_obj_end(&w);
	sbuf_addc(&b, '\n');
	return sbuf_take(&b);
}

static void
md_nodes(struct sbuf *b, const struct plan_action *ac, bool want)
{
	size_t i;
	bool first = true;

	for (i = 0; i < ac->nnodes; i++) {
		if (want ? !node_drifted(&ac->nodes[i])
		         : ac->nodes[i].outcome != PLAN_OUT_NO_CHANGE)
			continue;
		sbuf_addf(b, "%s%s", first ? "" : ", ", ac->nodes[i].node);
		first = false;
	}
	if (first)
		sbuf_adds(b, "-");
}

static void
md_section(struct sbuf *b, const struct plan *p, enum finding f)
{
	const struct plan_action *ac;
	size_t i;
	bool any = false;

	sbuf_adds(b,
	    f == F_MISSING
	        ? "\n## Missing (declared and applied, gone from the broker)\n\n"
	        : "\n## Changed (differs from what was applied)\n\n");
	for (i = 0; i < p->nactions; i++) {
		ac = &p->actions[i];
		if (finding_of(ac->kind) != f)
			continue;
		if (!any)
			sbuf_adds(b, "| object | name | on nodes | why |\n"
			             "|---|---|---|---|\n");
		any = true;
		sbuf_addf(b, "| %s | `%s` | ", object_kind(ac->kind), ac->name);
		md_nodes(b, ac, true);
		sbuf_addf(b, " | %s |\n", ac->why != NULL ? ac->why : "");
	}
	if (!any)
		sbuf_adds(b, "None.\n");
}

/* The HA nodes: which member is live (what was checked), and the rest. */
static void
md_ha(struct sbuf *b, const struct plan *p)
{
	const struct plan_node_status *n;
	size_t i, j, k = 0;

	for (i = 0; i < p->nnodes; i++) {
		n = &p->nodes[i];
		if (n->nmembers == 0)
			continue;
		if (k++ == 0)
			sbuf_adds(b, "\n## HA nodes\n\n");
		if (n->member != NULL)
			sbuf_addf(b, "- `%s`: live member **%s** (checked)",
			    n->node, n->member);
		else
			sbuf_addf(b, "- `%s`: no live member (%s)", n->node,
			    n->refusal != NULL ? n->refusal : "UNREACHABLE");
		for (j = 0; j < n->nmembers; j++)
			if (n->member == NULL ||
			    strcmp(n->members[j].name, n->member) != 0)
				sbuf_addf(b, "; %s %s", n->members[j].name,
				    n->members[j].state);
		sbuf_addc(b, '\n');
	}
}

static void
md_others(struct sbuf *b, const struct plan *p)
{
	size_t i, j;

	sbuf_adds(b, "\n## Unmanaged (live, never declared; left alone)\n\n");
	for (i = 0; i < p->nunmanaged; i++) {
		sbuf_addf(b, "- %s `%s` on ", p->unmanaged[i].kind,
		    p->unmanaged[i].name);
		for (j = 0; j < p->unmanaged[i].nnodes; j++)
			sbuf_addf(b, "%s%s", j > 0 ? ", " : "",
			    p->unmanaged[i].nodes[j]);
		sbuf_addc(b, '\n');
	}
	if (p->nunmanaged == 0)
		sbuf_adds(b, "None.\n");
	if (p->ndeclared_unmanaged > 0)
		sbuf_adds(b, "\n## Unmanaged by declaration (managed: false; "
		             "never drift, never repaired)\n\n");
	for (i = 0; i < p->ndeclared_unmanaged; i++) {
		sbuf_addf(b, "- %s `%s` on ", p->declared_unmanaged[i].kind,
		    p->declared_unmanaged[i].name);
		for (j = 0; j < p->declared_unmanaged[i].nnodes; j++)
			sbuf_addf(b, "%s%s", j > 0 ? ", " : "",
			    p->declared_unmanaged[i].nodes[j]);
		sbuf_addc(b, '\n');
	}
	sbuf_adds(b, "\n## Nodes that disagree\n\n");
	j = 0;
	for (i = 0; i < p->nactions; i++) {
		if (!action_disagrees(&p->actions[i]))
			continue;
		j++;
		sbuf_addf(b, "- %s `%s`: differs on ",
		    object_kind(p->actions[i].kind), p->actions[i].name);
		md_nodes(b, &p->actions[i], true);
		sbuf_adds(b, ", as applied on ");
		md_nodes(b, &p->actions[i], false);
		sbuf_addc(b, '\n');
	}
	if (j == 0)
		sbuf_adds(b, "None among the declared objects (see drift.json "
		             "for unmanaged objects present on some nodes "
		             "only).\n");
	for (i = 0; i < p->nnodes; i++)
		if (!p->nodes[i].reachable)
			sbuf_addf(b, "\nNode `%s` %s: %s (%s)\n",
			    p->nodes[i].node,
			    plan_node_passive(&p->nodes[i])
			        ? "is passive (left alone, never drift)"
			    : plan_node_ha_refused(&p->nodes[i])
			        ? "is refused, and nothing is applied on it"
			        : "could not be read",
			    p->nodes[i].refusal != NULL ? p->nodes[i].refusal
			                                : "UNREACHABLE",
			    p->nodes[i].message != NULL ? p->nodes[i].message
			                                : "");
	md_ha(b, p);
}

char *
daemon_drift_render_md(const struct plan *p, const char *head,
    const char *checked_at)
{
	struct sbuf b = {0};
	struct daemon_drift_counts c;

	daemon_drift_count(p, &c);
	sbuf_addf(&b, "# Drift report: cluster `%s`\n\n", p->cluster);
	sbuf_addf(&b,
	    "Checked %s: live state against the declaration last "
	    "applied (commit `%s`); the branch head is `%s`.\n\n",
	    checked_at, p->revision != NULL ? p->revision : "unknown",
	    head != NULL ? head : "unknown");
	if (c.refused > 0)
		sbuf_addf(&b,
		    "**Error**: %zu node(s) refused for their HA state (a split brain, or members that are not one pair): nothing is applied on them until it is resolved (see below).\n",
		    c.refused);
	if (daemon_drift_found(&c))
		sbuf_addf(&b,
		    "**Drift**: %zu missing, %zu changed, %zu "
		    "unmanaged, %zu disagreeing between nodes.\n",
		    c.missing, c.changed, c.unmanaged, c.disagreeing);
	else
		sbuf_adds(&b, "**No drift**: every node matches what was "
		              "applied.\n");
	sbuf_adds(&b, "Nothing was changed by this check (unless "
	              "`auto-apply-creates` repaired missing objects: see the "
	              "log and the outbox).\n");
	md_section(&b, p, F_MISSING);
	md_section(&b, p, F_CHANGED);
	md_others(&b, p);
	return sbuf_take(&b);
}
