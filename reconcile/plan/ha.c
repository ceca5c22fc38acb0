/* reconcile/plan/ha.c: HA nodes in a plan (docs/ha-pairs.md): each
 * member's state for the preview, the live member planned against, and
 * what a node's HA state makes of its steps: a passive broker's are
 * PASSIVE (never an operation), a split brain's and a false pair's are
 * refused with what to do. */
#include "plan-int.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/xalloc.h"

void
plan_node_members(struct plan_node_status *ns,
    const struct recon_node_snapshot *n)
{
	const struct recon_member *m;
	struct plan_member *pm;
	size_t i;

	if (n->nmembers == 0)
		return;
	ns->member = n->member != NULL ? xstrdup(n->member) : NULL;
	ns->members = xcalloc(n->nmembers + 1, sizeof(*ns->members));
	ns->nmembers = n->nmembers;
	for (i = 0; i < n->nmembers; i++) {
		m = &n->members[i];
		pm = &ns->members[i];
		pm->name = xstrdup(m->name);
		pm->state = xstrdup(recon_member_state(m));
		pm->policy = m->ha.known && m->ha.policy != NULL
		                 ? xstrdup(m->ha.policy)
		                 : NULL;
		pm->version = m->broker_version != NULL
		                  ? xstrdup(m->broker_version)
		                  : NULL;
		pm->replica_sync = m->ha.known ? m->ha.replica_sync : -1;
		if (m->refusal.kind != RECON_OK && m->refusal.text != NULL)
			pm->message = xstrdup(m->refusal.text);
	}
}

/* The node status's refusal is kind (its name, as plan.json holds it). */
static bool
refused_as(const struct plan_node_status *pn, enum recon_kind kind)
{
	enum recon_kind k;

	return !pn->reachable && pn->refusal != NULL &&
	       recon_kind_parse(pn->refusal, &k) == 0 && k == kind;
}

bool
plan_node_passive(const struct plan_node_status *pn)
{
	return refused_as(pn, RECON_PASSIVE);
}

bool
plan_node_ha_refused(const struct plan_node_status *pn)
{
	return refused_as(pn, RECON_SPLIT_BRAIN) ||
	       refused_as(pn, RECON_NOT_A_PAIR);
}

const char *
plan_ha_next_step(enum recon_kind kind)
{
	switch (kind) {
	case RECON_SPLIT_BRAIN:
		return "stop the member that should not be live (its clients reconnect to the other), check which journal holds the messages, then plan again";
	case RECON_NOT_A_PAIR:
		return "check the members' endpoints and HA configuration (the members of one node share one journal and its NodeID), or declare each broker as its own node, then plan again";
	default:
		return NULL;
	}
}

const struct plan_member *
plan_node_live_member(const struct plan_node_status *ns)
{
	size_t i;

	for (i = 0; ns->member != NULL && i < ns->nmembers; i++)
		if (strcmp(ns->members[i].name, ns->member) == 0)
			return &ns->members[i];
	return NULL;
}
