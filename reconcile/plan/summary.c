/* reconcile/plan/summary.c: the counts behind a plan's summary line and
 * its confirmation text (docs/plan-format.md, "The confirmation text"). */
#include "plan-int.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/sbuf.h"
#include "../../lib/xalloc.h"

static bool
acts(const struct plan_action *a)
{
	size_t i;

	for (i = 0; i < a->nnodes; i++)
		if (a->nodes[i].outcome == PLAN_OUT_WOULD_APPLY ||
		    a->nodes[i].outcome == PLAN_OUT_REFUSED)
			return true;
	return false;
}

static void
count_action(const struct plan_action *a, struct plan_summary *s,
    struct strv *diverts)
{
	size_t i, j;

	for (i = 0; i < a->nnodes; i++) {
		s->refused += a->nodes[i].outcome == PLAN_OUT_REFUSED;
		s->unreachable += a->nodes[i].outcome == PLAN_OUT_UNREACHABLE;
		for (j = 0; j < a->nodes[i].nremoved; j++)
			if (!strv_has(diverts,
			        a->nodes[i].removed[j].config.name))
				strv_add(diverts,
				    a->nodes[i].removed[j].config.name);
	}
	if (!acts(a))
		return;
	switch (a->kind) {
	case PLAN_ACT_CREATE_ADDRESS:
	case PLAN_ACT_CREATE_QUEUE:
	case PLAN_ACT_CREATE_DIVERT:
	case PLAN_ACT_CREATE_CAPTURE:
	case PLAN_ACT_CREATE_TAP:
		s->creates++;
		break;
	case PLAN_ACT_RECREATE_QUEUE:
	case PLAN_ACT_RECREATE_DIVERT:
		s->recreates++;
		break;
	case PLAN_ACT_DELETE_QUEUE:
		s->del_queues++;
		break;
	case PLAN_ACT_DELETE_CAPTURE:
		s->del_queues++;
		s->del_addresses++;
		break;
	case PLAN_ACT_DELETE_TAP:
	case PLAN_ACT_DELETE_DIVERT:
		if (!strv_has(diverts, a->name))
			strv_add(diverts, a->name);
		break;
	case PLAN_ACT_DELETE_ADDRESS:
		s->del_addresses++;
		break;
	default:
		s->changes++;
		break;
	}
}

void
plan_summarize(const struct plan *p, struct plan_summary *s)
{
	struct strv diverts = {0};
	size_t i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < p->nactions; i++)
		count_action(&p->actions[i], s, &diverts);
	s->del_diverts = diverts.n;
	strv_release(&diverts);
}

static void
phrase_add(struct sbuf *b, bool *first, size_t n, const char *one,
    const char *many)
{
	if (n == 0)
		return;
	sbuf_addf(b, "%s%zu %s", *first ? "" : ", ", n, n == 1 ? one : many);
	*first = false;
}

char *
plan_summary_phrase(const struct plan_summary *s)
{
	struct sbuf b = {0};
	bool first = true;

	if (s->creates > 0)
		sbuf_addf(&b, "create %zu", s->creates);
	if (s->changes > 0)
		sbuf_addf(&b, "%schange %zu", b.len > 0 ? ", " : "",
		    s->changes);
	if (s->recreates > 0)
		sbuf_addf(&b, "%srecreate %zu", b.len > 0 ? ", " : "",
		    s->recreates);
	if (s->del_queues + s->del_diverts + s->del_addresses > 0) {
		sbuf_adds(&b, b.len > 0 ? ", delete " : "delete ");
		phrase_add(&b, &first, s->del_queues, "queue", "queues");
		phrase_add(&b, &first, s->del_diverts, "divert", "diverts");
		phrase_add(&b, &first, s->del_addresses, "address",
		    "addresses");
	}
	if (b.len == 0)
		sbuf_adds(&b, "no changes");
	return sbuf_take(&b);
}

char *
plan_summary_line(const struct plan *p)
{
	struct plan_summary s;

	size_t n = plan_policy_changes(p), l = plan_policy_lifts(p);
	char *phrase, *out;

	plan_summarize(p, &s);
	phrase = plan_summary_phrase(&s);
	if (n == 0)
		return phrase;
	/* docs/policy.md: a policy change, and a lift above all, is named
	 * wherever the plan is summed up */
	out = xasprintf("%s%supdate policy (%zu change%s%s)",
	    p->nactions > 0 ? phrase : "", p->nactions > 0 ? ", " : "", n,
	    n == 1 ? "" : "s", l > 0 ? ", lifting protection" : "");
	free(phrase);
	return out;
}
