/* tests/unit/plan-fixture.h: plans for the unit tests.
 *
 * Built by plan_build from the hand-built declarations and snapshots of
 * recon-fixture.h: options, the managed set of a declaration, a node step
 * of a plan.
 *
 * Assembled by hand: three nodes (node3 unreachable), actions with one
 * step per node; the strings are the fixture's, never freed. */
#ifndef TESTS_UNIT_PLAN_FIXTURE_H
#define TESTS_UNIT_PLAN_FIXTURE_H

#include <string.h>

#include "../../reconcile/plan/plan.h"
#include "recon-fixture.h"

/* ---- built by plan_build ---- */

/* (not every includer plans with it) */
static struct plan_opts no_opts __attribute__((unused)) = {false, NULL, "test"};

static inline const struct plan_step *
step(const struct plan *p, enum plan_action_kind k, const char *name,
    size_t node)
{
	size_t i;

	for (i = 0; i < p->nactions; i++)
		if (p->actions[i].kind == k &&
		    strcmp(p->actions[i].name, name) == 0)
			return &p->actions[i].nodes[node];
	return NULL;
}

static inline void
managed_of(struct plan_managed *m, struct fx *f)
{
	plan_managed_from_decl(m, &f->c, "inventory", "rev1");
}

/* ---- assembled by hand ---- */

static char n1[] = "node1", n2[] = "node2", n3[] = "node3";
static char unreach[] = "UNREACHABLE", refused[] = "connection refused";
static char v244[] = "2.44.0", v231[] = "2.31.2";

/* Three nodes, node3 unreachable; node2 runs an older release. */
static struct plan_node_status nodes[] = {
    {n1, v244, true, NULL, NULL, NULL, NULL, 0},
    {n2, v231, true, NULL, NULL, NULL, NULL, 0},
    {n3, NULL, false, unreach, refused, NULL, NULL, 0},
};

static inline void
plan_init(struct plan *p, struct plan_action *acts, size_t nacts,
    struct plan_unmanaged *um, size_t num)
{
	static char cluster[] = "shop-eu", rev[] = "45fce5b7";

	memset(p, 0, sizeof(*p));
	p->cluster = cluster;
	p->revision = rev;
	p->nodes = nodes;
	p->nnodes = 3;
	p->actions = acts;
	p->nactions = nacts;
	p->unmanaged = um;
	p->nunmanaged = num;
}

static inline void
action_init(struct plan_action *a, enum plan_action_kind k, char *name,
    char *why, struct plan_step *np, enum plan_outcome o1, enum plan_outcome o2)
{
	memset(a, 0, sizeof(*a));
	memset(np, 0, 3 * sizeof(*np));
	a->kind = k;
	a->name = name;
	a->why = why;
	np[0].node = n1;
	np[0].outcome = o1;
	np[1].node = n2;
	np[1].outcome = o2;
	np[2].node = n3;
	np[2].outcome = PLAN_OUT_UNREACHABLE;
	a->nodes = np;
	a->nnodes = 3;
}

#endif
