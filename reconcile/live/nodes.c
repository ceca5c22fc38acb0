/* reconcile/live/nodes.c: the nodes of one apply: snapshots read through
 * the Jolokia client, one bulk POST per node, several nodes at once (as
 * plan reads), and the operations of one node in one POST each, alone or
 * as a batch apply made of independent ones (reconcile/apply/operations.c:
 * what depends on a batch's outcome is sent after it, in another POST). */
#include "live-int.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/xalloc.h"

static size_t
target_index(const struct live_nodes *live, const char *node)
{
	size_t i;

	for (i = 0; i < live->ntargets; i++)
		if (strcmp(live->targets[i].node, node) == 0)
			return i;
	return (size_t)-1;
}

/* The index of the member named name in t (0 when t has no members). */
static size_t
member_index(const struct live_target *t, const char *name)
{
	size_t j;

	for (j = 0; name != NULL && j < t->nmembers; j++)
		if (strcmp(t->members[j].name, name) == 0)
			return j;
	return 0;
}

/* Read the nodes names[] concurrently, one bulk POST each (the snapshot
 * fetch of plan), into out[]; remember each broker name read. */
void
live_nodes_read(void *ctx, const char *const *names, size_t n,
    struct recon_node_snapshot *out)
{
	struct live_nodes *live = ctx;
	struct live_target *t = xcalloc(n + 1, sizeof(*t));
	size_t *at = xcalloc(n + 1, sizeof(*at));
	struct recon_snapshot *s;
	size_t i, j, k = 0;

	for (j = 0; j < n; j++) {
		i = target_index(live, names[j]);
		at[j] = i;
		if (i == (size_t)-1)
			continue;
		t[k] = live->targets[i];
		if (live->brokers[i] != NULL)
			t[k].broker_hint = live->brokers[i];
		if (live->queues[i] > 0)
			t[k].queues_hint = live->queues[i];
		k++;
	}
	s = k > 0 ? live_snapshot_fetch(live->cluster, t, k, live->http,
	                live->scope)
	          : NULL;
	for (j = 0, k = 0; j < n; j++) {
		i = at[j];
		if (i == (size_t)-1) {
			out[j].node = xstrdup(names[j]);
			out[j].refusal.kind = RECON_UNREACHABLE;
			out[j].refusal.text =
			    xstrdup("the node has no Jolokia endpoint");
			continue;
		}
		out[j] = s->nodes[k];
		memset(&s->nodes[k], 0, sizeof(s->nodes[k]));
		k++;
		if (out[j].refusal.kind == RECON_OK &&
		    out[j].broker_name != NULL) {
			free(live->brokers[i]);
			live->brokers[i] = xstrdup(out[j].broker_name);
			free(live->versions[i]);
			live->versions[i] = xstrdup(out[j].broker_version);
			live->queues[i] = out[j].nqueues;
			live->live_member[i] =
			    member_index(&live->targets[i], out[j].member);
		} else if (live->targets[i].nmembers > 0 ||
		           out[j].refusal.kind == RECON_PASSIVE ||
		           recon_kind_ha_refusal(out[j].refusal.kind)) {
			/* no member is live now, or the broker is passive
			 * (a passive replication backup accepts writes, and
			 * then fails to become live: docs/ha-pairs.md):
			 * nothing is sent until a read finds it live */
			free(live->brokers[i]);
			live->brokers[i] = NULL;
		}
	}
	if (s != NULL)
		live_snapshot_free(s);
	free(t);
	free(at);
}

/* Append op to b, in the overload the broker's version has; -1 when op
 * lacks what its kind needs, -2 for an updateDivert on a release whose
 * only updateDivert is the positional one (never sent: the planner makes
 * such a change a recreate). */
static int
build(struct live_bulk *b, const char *broker, const char *version,
    const struct recon_op *op)
{
	bool json = recon_version_divert_json(version);

	switch (op->kind) {
	case RECON_OP_CREATE_ADDRESS:
		live_bulk_create_address(b, broker, op->name, op->routing);
		return 0;
	case RECON_OP_UPDATE_ADDRESS:
		live_bulk_update_address(b, broker, op->name, op->routing);
		return 0;
	case RECON_OP_DELETE_ADDRESS:
		live_bulk_delete_address(b, broker, op->name, false);
		return 0;
	case RECON_OP_DESTROY_QUEUE:
		live_bulk_destroy_queue(b, broker, op->name,
		    op->remove_consumers, false);
		return 0;
	case RECON_OP_DESTROY_DIVERT:
		live_bulk_destroy_divert(b, broker, op->name);
		return 0;
	case RECON_OP_CREATE_QUEUE:
	case RECON_OP_UPDATE_QUEUE:
		if (op->queue == NULL)
			return -1;
		if (op->kind == RECON_OP_CREATE_QUEUE)
			live_bulk_create_queue(b, broker, op->queue);
		else
			live_bulk_update_queue(b, broker, op->queue);
		return 0;
	case RECON_OP_CREATE_DIVERT:
	case RECON_OP_UPDATE_DIVERT:
		if (op->divert == NULL)
			return -1;
		if (op->kind == RECON_OP_CREATE_DIVERT)
			live_bulk_create_divert(b, broker, op->divert, json);
		else if (json)
			live_bulk_update_divert(b, broker, op->divert);
		else
			return -2;
		return 0;
	}
	return -1;
}

/* Where node i's operations go: its url, or an HA node's member the last
 * read found live; the rest from live->http. */
static void
node_conf(const struct live_nodes *live, size_t i,
    struct live_jolokia_conf *conf)
{
	memset(conf, 0, sizeof(*conf));
	conf->url = live->targets[i].url;
	conf->userpass = live->targets[i].userpass;
	if (live->targets[i].nmembers > 0) {
		/* an HA node: the member the last read found live */
		conf->url = live->targets[i].members[live->live_member[i]].url;
		conf->userpass =
		    live->targets[i].members[live->live_member[i]].userpass;
	}
	conf->origin = live->http->origin;
	conf->ca_file = live->http->ca_file;
	conf->cert_file = live->http->cert_file;
	conf->key_pem = live->http->key_pem;
	conf->connect_timeout_ms = live->http->connect_timeout_ms;
	conf->timeout_ms = live->http->timeout_ms;
	conf->max_response = live->http->max_response;
	conf->tick = live->http->tick;
}

/* Append op to b; 0, or -1 with *refusal set (nothing appended). */
static int
build_op(struct live_bulk *b, const struct live_nodes *live, size_t i,
    const struct recon_op *op, struct recon_refusal *refusal)
{
	switch (build(b, live->brokers[i], live->versions[i], op)) {
	case 0:
		return 0;
	case -2:
		refusal->kind = RECON_UNSUPPORTED_VERSION;
		refusal->text = xasprintf(
		    "updateDivert is not sent to Artemis %s: its only updateDivert is the positional one, which journals the divert without its address (the broker then fails to start); plan again",
		    live->versions[i] != NULL ? live->versions[i] : "?");
		return -1;
	default:
		refusal->kind = RECON_BAD_RESPONSE;
		refusal->text =
		    xstrdup("the plan's operation lacks its configuration");
		return -1;
	}
}

int
live_nodes_exec(void *ctx, const char *node, const struct recon_op *op,
    struct recon_refusal *refusal)
{
	int rc = 0;

	if (live_nodes_exec_batch(ctx, node, op, 1, &rc, refusal) < 0)
		return -1;
	return rc;
}

/* One bulk POST of ops[0..n): Jolokia runs its elements in order, each
 * with its own status (a refused one does not stop the next), so each
 * operation's outcome is its element's. An operation that cannot be
 * built (it lacks its configuration, an updateDivert the release must
 * not get) is refused before anything is sent: the whole request is then
 * not sent, every operation refused with that reason (apply batches only
 * operations of one kind of one plan, built alike). */
int
live_nodes_exec_batch(void *ctx, const char *node, const struct recon_op *ops,
    size_t n, int *rcs, struct recon_refusal *refusals)
{
	struct live_nodes *live = ctx;
	struct live_jolokia_conf conf;
	struct recon_refusal whole = {0};
	struct live_bulk b;
	size_t i = target_index(live, node), j;
	int rc = -1;

	memset(&b, 0, sizeof(b));
	for (j = 0; j < n; j++)
		rcs[j] = -1;
	if (i == (size_t)-1 || live->brokers[i] == NULL) {
		whole.kind = RECON_UNREACHABLE;
		whole.text =
		    xstrdup("the node was not read before the operation");
		goto done;
	}
	node_conf(live, i, &conf);
	for (j = 0; j < n; j++)
		if (build_op(&b, live, i, &ops[j], &whole) < 0)
			goto done;
	if (live_jolokia_post(&conf, &b, &whole) < 0)
		goto done;
	for (j = 0; j < n; j++) {
		if (b.results[j].refusal.kind == RECON_OK) {
			rcs[j] = 0;
			continue;
		}
		refusals[j] = b.results[j].refusal;
		memset(&b.results[j].refusal, 0, sizeof(b.results[j].refusal));
	}
	rc = 0;
done:
	if (rc < 0)
		for (j = 0; j < n; j++) {
			refusals[j] = whole;
			refusals[j].text =
			    whole.text != NULL ? xstrdup(whole.text) : NULL;
		}
	recon_refusal_release(&whole);
	live_bulk_release(&b);
	return rc;
}

void
live_nodes_init(struct live_nodes *live)
{
	live->brokers = xcalloc(live->ntargets + 1, sizeof(*live->brokers));
	live->versions = xcalloc(live->ntargets + 1, sizeof(*live->versions));
	live->live_member =
	    xcalloc(live->ntargets + 1, sizeof(*live->live_member));
	live->queues = xcalloc(live->ntargets + 1, sizeof(*live->queues));
}

void
live_nodes_release(struct live_nodes *live)
{
	size_t i;

	for (i = 0; live->brokers != NULL && i < live->ntargets; i++) {
		free(live->brokers[i]);
		free(live->versions[i]);
	}
	free(live->brokers);
	free(live->versions);
	free(live->live_member);
	free(live->queues);
	live->queues = NULL;
	live->brokers = NULL;
	live->versions = NULL;
	live->live_member = NULL;
}
