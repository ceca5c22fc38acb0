/* reconcile/live/members.c: an HA node from its members' reads
 * (docs/ha-pairs.md). Each member of a node is read in the same round as
 * every other node, one bulk POST each; the member that is active is the
 * node: its contents are what is planned against, and it is the one acted
 * on. A passive member is kept with its state only. Members whose NodeIDs
 * differ are not one pair (NOT_A_PAIR); two active members are a split
 * brain (SPLIT_BRAIN); no active member leaves the node unread, with each
 * member's reason. */
#include "live-int.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/sbuf.h"
#include "../../lib/xalloc.h"

/* Is the member serving clients: read and active, or read on a release
 * the agent does not manage and not known to be passive (it is refused
 * as the node then, never skipped for its backup). */
static bool
member_active(const struct recon_member *m)
{
	if (m->refusal.kind == RECON_OK)
		return true;
	return m->refusal.kind == RECON_UNSUPPORTED_VERSION &&
	       (!m->ha.known || m->ha.active);
}

static void
refuse(struct recon_node_snapshot *out, enum recon_kind kind, char *text)
{
	out->refusal.kind = kind;
	out->refusal.text = text;
}

/* Two members reporting different NodeIDs, or -1 and -1. */
static int
node_id_mismatch(const struct recon_node_snapshot *out, size_t *a, size_t *b)
{
	size_t i, first = (size_t)-1;

	for (i = 0; i < out->nmembers; i++) {
		if (out->members[i].ha.node_id == NULL)
			continue;
		if (first == (size_t)-1) {
			first = i;
			continue;
		}
		if (strcmp(out->members[first].ha.node_id,
		        out->members[i].ha.node_id) != 0) {
			*a = first;
			*b = i;
			return 0;
		}
	}
	return -1;
}

/* "'primary' UNREACHABLE (connection refused), 'backup' PASSIVE (...)" */
static void
member_states(struct sbuf *b, const struct recon_node_snapshot *out)
{
	size_t i;
	const struct recon_member *m;

	for (i = 0; i < out->nmembers; i++) {
		m = &out->members[i];
		sbuf_addf(b, "%s'%s' %s", i > 0 ? ", " : "", m->name,
		    recon_member_state(m));
		if (m->refusal.kind == RECON_PASSIVE)
			sbuf_addf(b, " (%s)",
			    m->ha.policy != NULL ? m->ha.policy
			                         : "no HA policy");
		else if (m->refusal.text != NULL && *m->refusal.text != '\0')
			sbuf_addf(b, " (%.200s)", m->refusal.text);
	}
}

/* The verdict on out's members: the index of the one live member, or -1
 * with out refused. */
static long
verdict(struct recon_node_snapshot *out)
{
	struct sbuf b;
	size_t i, a = 0, z = 0, nactive = 0, live = 0;
	enum recon_kind common = RECON_OK;
	bool same = true;

	if (node_id_mismatch(out, &a, &z) == 0) {
		refuse(out, RECON_NOT_A_PAIR,
		    xasprintf(
		        "members '%s' (NodeID %s) and '%s' (NodeID %s) report different NodeIDs: the members of one HA node share their journal's NodeID, so they are not one pair; declare them as separate nodes, or fix the pair's HA configuration",
		        out->members[a].name, out->members[a].ha.node_id,
		        out->members[z].name, out->members[z].ha.node_id));
		return -1;
	}
	for (i = 0; i < out->nmembers; i++)
		if (member_active(&out->members[i]) && nactive++ == 0)
			live = i;
	if (nactive == 1)
		return (long)live;
	sbuf_init(&b, SBUF_UNBOUNDED);
	if (nactive > 1) {
		sbuf_adds(&b, "split brain: members ");
		for (i = 0, a = 0; i < out->nmembers; i++)
			if (member_active(&out->members[i]))
				sbuf_addf(&b, "%s'%s'",
				    a++ == 0       ? ""
				    : a == nactive ? " and "
				                   : ", ",
				    out->members[i].name);
		if (out->members[live].ha.node_id != NULL)
			sbuf_addf(&b, " (NodeID %s)",
			    out->members[live].ha.node_id);
		sbuf_adds(&b,
		    " are all active, each serving clients from its own journal; nothing is applied on this node until one member is live");
		refuse(out, RECON_SPLIT_BRAIN, sbuf_take(&b));
		return -1;
	}
	for (i = 0; i < out->nmembers; i++) {
		if (i == 0)
			common = out->members[i].refusal.kind;
		else if (out->members[i].refusal.kind != common)
			same = false;
	}
	sbuf_adds(&b, "no member is live: ");
	member_states(&b, out);
	/* every member refused alike (say UNAUTHORIZED): that kind, so the
	 * preview's advice fits; otherwise the node is not read */
	refuse(out,
	    same && common != RECON_PASSIVE ? common : RECON_UNREACHABLE,
	    sbuf_take(&b));
	return -1;
}

void
live_node_choose(struct recon_node_snapshot *out, const char *node,
    const struct live_member *members, struct recon_node_snapshot *reads,
    size_t n)
{
	struct recon_node_snapshot *r;
	struct recon_member *m;
	char *name;
	size_t i;
	long live;

	memset(out, 0, sizeof(*out));
	out->members = xcalloc(n + 1, sizeof(*out->members));
	out->nmembers = n;
	for (i = 0; i < n; i++) {
		m = &out->members[i];
		r = &reads[i];
		m->name = xstrdup(members[i].name);
		m->url = xstrdup(members[i].url);
		m->refusal.kind = r->refusal.kind;
		m->refusal.http_status = r->refusal.http_status;
		m->refusal.status = r->refusal.status;
		m->refusal.text =
		    r->refusal.text != NULL ? xstrdup(r->refusal.text) : NULL;
		m->broker_name =
		    r->broker_name != NULL ? xstrdup(r->broker_name) : NULL;
		m->broker_version = r->broker_version != NULL
		                        ? xstrdup(r->broker_version)
		                        : NULL;
		recon_ha_copy(&m->ha, &r->ha);
		m->requests = r->requests;
		out->requests += r->requests;
	}
	live = verdict(out);
	if (live >= 0) {
		/* the node is its live member's read: contents, broker,
		 * version, HA state (and an UNSUPPORTED_VERSION refusal) */
		struct recon_member *keep = out->members;
		unsigned req = out->requests;

		*out = reads[live];
		memset(&reads[live], 0, sizeof(reads[live]));
		out->members = keep;
		out->nmembers = n;
		out->requests = req;
		out->member = xstrdup(keep[live].name);
	}
	name = xstrdup(node);
	free(out->node);
	out->node = name;
}
