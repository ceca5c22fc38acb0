/* agent/daemon/ha.c: the daemon among several agents (docs/ha.md).
 *
 * With coordination.endpoints, a cluster is worked on by the one agent
 * that owns it in etcd (agent/coord.h): the others fetch and validate it
 * and serve the read-only pages, and never read or change its brokers nor
 * write its previews or state. Ownership is refreshed at the start of each
 * cycle and before drift; every apply and capture pass runs fenced. A
 * cluster taken over is planned again at once (its last commit), after its
 * state was read back from etcd (state-backend: etcd).
 */
#define LOG_MODULE "ha"

#include "daemon-int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/afile.h"
#include "../../lib/clock.h"
#include "../../lib/json.h"
#include "../../lib/sha256.h"
#include "../../lib/xalloc.h"
#include "../../reconcile/apply/apply.h"
#include "../../reconcile/plan/plan.h"
#include "../apply-plan.h"
#include "../coord.h"
#include "../log.h"
#include "../outbox.h"
#include "../plan-dir.h"
#include "../state.h"

int
daemon_ha_start(struct daemon *a)
{
	struct err err = {0};

	if (a->conf->coord_endpoints.n == 0)
		return 0;
	if (agent_coord_start(&a->coord, a->conf, a->conf->http_listen, &err) <
	    0) {
		log_err("coordination: %s", err.msg);
		err_release(&err);
		return -1;
	}
	log_notice("coordination: agent '%s' on %zu etcd endpoint(s), shard "
	           "mode %s, lease %lds (margin %lds), state in %s",
	    agent_coord_id(a->coord), a->conf->coord_endpoints.n,
	    agent_coord_mode(a->coord), a->conf->coord_lease_ttl,
	    a->conf->coord_lease_margin,
	    a->conf->state_backend == AGENT_CONF_BACKEND_ETCD ? "etcd"
	                                                      : "the folder");
	if (a->conf->state_backend == AGENT_CONF_BACKEND_ETCD)
		agent_state_set_mirror(a->state, daemon_ha_mirror, a);
	return 0;
}

void
daemon_ha_stop(struct daemon *a)
{
	if (a->state != NULL)
		agent_state_set_mirror(a->state, NULL, NULL);
	agent_coord_stop(a->coord);
	a->coord = NULL;
}

/* cluster was owned here under epoch and is no longer: its previews here
 * are withdrawn, saying why (an approval of one of them would never be
 * applied here; the owner posts its own). */
static void
withdraw(struct daemon *a, const char *cluster, int64_t epoch,
    const char *owner)
{
	struct err err = {0};
	char *why;
	int n;

	why =
	    xasprintf("cluster '%s' is no longer this agent's (%s; its "
	              "epoch %lld ended): %s plans the commit again and "
	              "posts its own preview; approve that one (docs/ha.md)\n",
	        cluster, agent_coord_id(a->coord), (long long)epoch,
	        owner != NULL ? owner : "the next owner");
	n = agent_outbox_supersede_others(a->conf->outbox, cluster, "", why,
	    &err);
	if (n < 0) {
		log_err("cluster '%s': %s", cluster, err.msg);
		err_release(&err);
	} else if (n > 0) {
		log_notice("cluster '%s': %d preview(s) of this agent "
		           "withdrawn: it lost the cluster",
		    cluster, n);
	}
	free(why);
}

static void
publish(struct daemon *a, const char *cluster)
{
	const char *owner = agent_coord_owner(a->coord, cluster);
	int64_t epoch = agent_coord_epoch(a->coord, cluster);
	struct metrics *m = daemon_metrics(a);
	struct daemon_cluster *mem = daemon_cluster(a, cluster);

	/* withdrawn once another agent holds it (not while etcd cannot
	 * say: this agent may well take it back, its approvals with it) */
	if (mem->ha_epoch > 0 && epoch == 0 && owner != NULL &&
	    strcmp(owner, agent_coord_id(a->coord)) != 0) {
		withdraw(a, cluster, mem->ha_epoch, owner);
		mem->ha_epoch = 0;
	} else if (epoch > 0) {
		mem->ha_epoch = epoch;
	}

	metrics_forget(m, "artemis_gitops_cluster_epoch", "cluster", cluster);
	metrics_set(m, "artemis_gitops_cluster_epoch",
	    (const char *[]){cluster, owner != NULL ? owner : "",
	        agent_coord_mode(a->coord)},
	    (double)epoch);
	metrics_set(m, "artemis_gitops_cluster_owned",
	    (const char *[]){cluster}, epoch > 0 ? 1 : 0);
	if (a->board != NULL)
		web_board_owner(a->board, cluster, owner, epoch,
		    agent_coord_mode(a->coord), epoch > 0);
}

/* The audit rows of cluster in etcd that the folder lacks, appended. */
static size_t
merge_audit(struct daemon *a, const char *cluster)
{
	struct err err = {0};
	struct strv rows = {0};
	size_t n;

	if (agent_coord_get_audit(a->coord, cluster, &rows, &err) < 0 ||
	    agent_state_audit_merge(a->state, (const char *const *)rows.v,
	        rows.n, &err) < 0) {
		log_err("cluster '%s': restoring its audit rows from etcd: %s",
		    cluster, err.msg);
		err_release(&err);
	}
	n = rows.n;
	strv_release(&rows);
	return n;
}

struct open_applies {
	const char *cluster;
	struct strv intents, results;
};

static int
scan_open(void *ctx, const char *row, size_t len)
{
	struct open_applies *o = ctx;
	struct json_doc *doc = NULL;
	struct err err = {0};
	const struct json *root;
	const char *c, *id, *ev;

	if (json_parse(&doc, "audit row", row, len, &err) == 0) {
		root = json_doc_root(doc);
		c = json_str(json_get(root, "cluster"));
		id = json_str(json_get(root, "apply_id"));
		ev = json_str(json_get(root, "event"));
		if (c != NULL && id != NULL && ev != NULL &&
		    strcmp(c, o->cluster) == 0)
			strv_add(strcmp(ev, "intent") == 0 ? &o->intents
			                                   : &o->results,
			    id);
	}
	json_doc_free(doc);
	err_release(&err);
	return 0;
}

/* The applies of cluster whose intent row has no result row: cut short by
 * the end of their agent's ownership (or its death). Said once at the
 * takeover: what they did stands, unrecorded in the inventory (their
 * creates are not managed, so never removed) until planned and applied
 * again; docs/ha.md. */
static void
warn_open_applies(struct daemon *a, const char *cluster)
{
	struct open_applies o = {cluster, {0}, {0}};
	struct err err = {0};
	size_t i;

	if (agent_state_audit_each(a->state, scan_open, &o, &err) < 0)
		err_release(&err);
	for (i = 0; i < o.intents.n; i++)
		if (!strv_has(&o.results, o.intents.v[i]))
			log_warn(
			    "cluster '%s': apply %s has an intent row and "
			    "no result: its agent lost the cluster (or "
			    "died) during it; what it did stands and is "
			    "not in the inventory (see its intent row); "
			    "this agent plans from the brokers as they are",
			    cluster, o.intents.v[i]);
	strv_release(&o.intents);
	strv_release(&o.results);
}

/* Read cluster's state back from etcd into the state folder: the
 * inventory, the suspension and the audit rows this folder lacks. */
static void
restore(struct daemon *a, const char *cluster)
{
	static const char *const names[] = {"inventory.json"};
	struct err err = {0};
	size_t i, n;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *data = NULL,
		     *name = xasprintf("%s/%s", cluster, names[i]);
		size_t len = 0;
		int rc = agent_coord_get_state(a->coord, cluster, names[i],
		    &data, &len, &err);

		if (rc == 0)
			rc = agent_state_write_local(a->state, name, data, len,
			    &err);
		else if (rc == 1)
			rc = agent_state_remove_local(a->state, name, &err);
		if (rc < 0) {
			log_err("cluster '%s': restoring %s from etcd: %s",
			    cluster, names[i], err.msg);
			err_release(&err);
		}
		free(data);
		free(name);
	}
	n = merge_audit(a, cluster);
	warn_open_applies(a, cluster);
	daemon_cluster(a, cluster)->ha_merge_at =
	    clock_monotonic_ms() + 2000 * a->conf->coord_lease_ttl;
	log_notice("cluster '%s': taken over (epoch %lld): its state read "
	           "back from etcd (%zu audit row(s))",
	    cluster, (long long)agent_coord_epoch(a->coord, cluster), n);
}

static void
taken(struct daemon *a, const char *cluster)
{
	struct daemon_cluster *mem = daemon_cluster(a, cluster);

	if (a->conf->state_backend == AGENT_CONF_BACKEND_ETCD)
		restore(a, cluster);
	/* planned again now: its last commit, against the nodes as they
	 * are (replan_due plans a cluster whose folder is known) */
	mem->retry = true;
	mem->retry_at = 0;
	mem->fails = 0;
}

/* Suspensions (`suspend`/`resume` with state-backend etcd write them to
 * `<prefix>suspended/<cluster>`, wherever they run): each owned cluster's
 * suspended.json made to say what etcd says, before anything is applied
 * this cycle. An etcd that cannot be read changes nothing (a suspension
 * already here stays: a brake is not released for want of an answer). */
static void
sync_suspensions(struct daemon *a)
{
	struct strv cl = {0}, val = {0};
	struct err err = {0};
	size_t i, j;

	if (agent_coord_intents(a->coord, "suspended", &cl, &val, &err) < 0) {
		log_warn("coordination: suspensions in etcd cannot be read: "
		         "%s",
		    err.msg);
		err_release(&err);
		return;
	}
	for (i = 0; i < a->nclusters; i++) {
		const char *c = a->clusters[i].name;
		char *name, *have = NULL;
		size_t len = 0;
		int rc;

		if (agent_coord_epoch(a->coord, c) == 0)
			continue;
		name = xasprintf("%s/suspended.json", c);
		for (j = 0; j < cl.n && strcmp(cl.v[j], c) != 0; j++)
			;
		rc = agent_state_read(a->state, name, &have, &len, &err);
		if (j < cl.n && (rc != 0 || strcmp(have, val.v[j]) != 0)) {
			err_release(&err);
			if (agent_state_write_local(a->state, name, val.v[j],
			        strlen(val.v[j]), &err) == 0)
				log_notice("cluster '%s': suspended (from "
				           "etcd)",
				    c);
		} else if (j == cl.n && rc == 0) {
			if (agent_state_remove_local(a->state, name, &err) == 0)
				log_notice("cluster '%s': resumed (its "
				           "suspension left etcd)",
				    c);
		}
		if (err.msg != NULL) {
			log_err("cluster '%s': %s", c, err.msg);
			err_release(&err);
		}
		free(have);
		free(name);
	}
	strv_release(&cl);
	strv_release(&val);
}

void
daemon_ha_refresh(struct daemon *a)
{
	struct err err = {0};
	const char **names;
	uint64_t n;
	size_t i;

	if (a->coord == NULL)
		return;
	names = xcalloc(a->nclusters + 1, sizeof(*names));
	for (i = 0; i < a->nclusters; i++)
		names[i] = a->clusters[i].name;
	if (agent_coord_refresh(a->coord, names, a->nclusters, &err) < 0) {
		log_warn("coordination: %s: this agent owns no cluster until "
		         "etcd answers",
		    err.msg);
		err_release(&err);
	}
	for (i = 0; i < a->nclusters; i++) {
		struct daemon_cluster *mem = &a->clusters[i];

		if (agent_coord_taken(a->coord, names[i]))
			taken(a, names[i]);
		else if (mem->ha_merge_at != 0 &&
		         clock_monotonic_ms() >= mem->ha_merge_at) {
			mem->ha_merge_at = 0;
			if (agent_coord_epoch(a->coord, names[i]) > 0 &&
			    a->conf->state_backend == AGENT_CONF_BACKEND_ETCD)
				merge_audit(a, names[i]);
		}
		publish(a, names[i]);
	}
	if (a->conf->state_backend == AGENT_CONF_BACKEND_ETCD)
		sync_suspensions(a);
	metrics_set(daemon_metrics(a), "artemis_gitops_coordination_members",
	    (const char *[]){agent_coord_id(a->coord)},
	    (double)agent_coord_members(a->coord)->n);
	n = agent_coord_requests(a->coord);
	metrics_add(daemon_metrics(a),
	    "artemis_gitops_coordination_requests_total",
	    (const char *[]){agent_coord_id(a->coord)},
	    (double)(n - a->ha_requests));
	a->ha_requests = n;
	free(names);
}

bool
daemon_ha_owns(struct daemon *a, const char *cluster)
{
	struct err err = {0};
	bool known = false;
	size_t i;

	if (a->coord == NULL)
		return true;
	if (agent_coord_epoch(a->coord, cluster) > 0)
		return true;
	for (i = 0; i < a->nclusters; i++)
		if (strcmp(a->clusters[i].name, cluster) == 0)
			known = true;
	if (!known) {
		/* a cluster this agent sees for the first time: asked now */
		daemon_cluster(a, cluster);
		if (agent_coord_claim(a->coord, cluster, &err) < 0) {
			log_warn("coordination: %s", err.msg);
			err_release(&err);
		}
		if (agent_coord_taken(a->coord, cluster) &&
		    a->conf->state_backend == AGENT_CONF_BACKEND_ETCD)
			restore(a, cluster);
		publish(a, cluster);
	}
	return agent_coord_epoch(a->coord, cluster) > 0;
}

const char *
daemon_ha_owner(struct daemon *a, const char *cluster)
{
	const char *o;

	if (a->coord == NULL)
		return NULL;
	o = agent_coord_owner(a->coord, cluster);
	if (o == NULL)
		return "no agent now";
	snprintf(a->ha_owner, sizeof(a->ha_owner), "agent '%s'", o);
	return a->ha_owner;
}

static int
check(void *ctx, const char *cluster, struct err *err)
{
	struct daemon *a = ctx;
	int rc = agent_coord_fence(a->coord, cluster, err);

	if (rc < 0) {
		log_err("cluster '%s': fenced: %s", cluster, err->msg);
		metrics_add(daemon_metrics(a), "artemis_gitops_fenced_total",
		    (const char *[]){cluster}, 1);
		publish(a, cluster);
	}
	return rc;
}

const struct agent_fence *
daemon_ha_fence(struct daemon *a, const char *cluster, struct agent_fence *f)
{
	if (a->coord == NULL)
		return NULL;
	f->check = check;
	f->ctx = a;
	f->epoch = agent_coord_epoch(a->coord, cluster);
	return f;
}

/* The cluster a state file or an audit row belongs to: the folder of
 * "<cluster>/name", or an audit row's "cluster" (and its "epoch"). */
static char *
cluster_of(const char *name, const char *data, size_t len, bool audit,
    int64_t *epoch)
{
	struct json_doc *doc = NULL;
	struct err err = {0};
	const char *s;
	char *c = NULL;

	*epoch = 0;
	if (!audit) {
		s = strchr(name, '/');
		return s != NULL ? xstrndup(name, (size_t)(s - name)) : NULL;
	}
	if (json_parse(&doc, "audit row", data, len, &err) == 0 &&
	    (s = json_str(json_get(json_doc_root(doc), "cluster"))) != NULL) {
		c = xstrdup(s);
		json_int(json_get(json_doc_root(doc), "epoch"), epoch);
	}
	json_doc_free(doc);
	err_release(&err);
	return c;
}

int
daemon_ha_mirror(void *ctx, const char *name, const void *data, size_t len,
    bool audit, struct err *err)
{
	struct daemon *a = ctx;
	int64_t epoch = 0;
	char *cluster = cluster_of(name, data, len, audit, &epoch);
	const char *base;
	int rc;

	if (cluster == NULL)
		return 0; /* not a cluster's: the agent's own */
	if (audit) {
		if (epoch == 0)
			epoch = agent_coord_epoch(a->coord, cluster);
		rc = agent_coord_put_audit(a->coord, cluster, epoch, data, err);
	} else {
		base = name + strlen(cluster) + 1;
		rc = agent_coord_put_state(a->coord, cluster, base, data, len,
		    err);
	}
	if (rc < 0)
		log_err("cluster '%s': %s not written: %s", cluster,
		    audit ? "audit row" : name, err->msg);
	free(cluster);
	return rc;
}

static bool
etcd_state(const struct daemon *a)
{
	return a->coord != NULL &&
	       a->conf->state_backend == AGENT_CONF_BACKEND_ETCD;
}

/* The plan of dir without the time its snapshot was taken: what two
 * previews of one commit against the same live state share, when their
 * plan.json (and so their digest and confirmation) differ by that time
 * only. Into hex; the plan read into *pd (released by the caller). */
static int
content_digest(struct agent_plan_dir *pd, const char *dir, char hex[SHA256_HEX],
    char **confirmation, struct err *err)
{
	char *json;

	if (agent_plan_dir_load(pd, dir, err) < 0)
		return -1;
	if (confirmation != NULL)
		*confirmation = plan_confirmation(pd->plan);
	free(pd->plan->snapshot_taken_at);
	pd->plan->snapshot_taken_at = NULL;
	json = plan_render_json(pd->plan);
	sha256_hex(json, strlen(json), hex);
	free(json);
	return 0;
}

static char *
approval_key(const char *hex)
{
	return xasprintf("approvals/%s.json", hex);
}

int
daemon_ha_keep_approval(struct daemon *a, const char *cluster, const char *dir)
{
	struct agent_plan_dir pd;
	struct err err = {0};
	char *path, *text = NULL, *name = NULL, hex[SHA256_HEX];
	size_t len = 0;
	int rc = 0;

	if (!etcd_state(a) || agent_outbox_has(dir, AGENT_APPLY_BEGUN))
		return 0;
	memset(&pd, 0, sizeof(pd));
	path = xasprintf("%s/%s", dir, AGENT_OUTBOX_APPROVAL);
	if (afile_read(&text, &len, path, (size_t)64 * 1024, &err) < 0 ||
	    content_digest(&pd, dir, hex, NULL, &err) < 0) {
		err_release(&err); /* the apply refuses it, saying why */
	} else {
		name = approval_key(hex);
		rc = agent_coord_put_state(a->coord, cluster, name, text, len,
		    &err);
		if (rc < 0) {
			log_err("approved %s: not applied now: its approval "
			        "cannot be kept in etcd: %s",
			    dir, err.msg);
			err_release(&err);
		}
	}
	agent_plan_dir_release(&pd);
	free(name);
	free(text);
	free(path);
	return rc;
}

void
daemon_ha_used_approval(struct daemon *a, const char *cluster, const char *dir)
{
	struct agent_plan_dir pd;
	struct err err = {0};
	char hex[SHA256_HEX], *name;

	if (!etcd_state(a))
		return;
	memset(&pd, 0, sizeof(pd));
	if (content_digest(&pd, dir, hex, NULL, &err) == 0) {
		name = approval_key(hex);
		if (agent_coord_delete_state(a->coord, cluster, name, &err) < 0)
			log_warn("%s: its approval stays in etcd: %s", dir,
			    err.msg);
		free(name);
	}
	err_release(&err);
	agent_plan_dir_release(&pd);
}

/* The approval.json of one of this agent's previews of cluster, approved
 * and not applied (a takeover's new preview replaced it), whose plan has
 * the content hex; owned text, or NULL. */
static char *
local_approval(struct daemon *a, const char *cluster, const char *dir,
    const char *hex, size_t *len)
{
	struct agent_plan_dir pd;
	struct err err = {0};
	char **list = NULL, *prefix, *text = NULL, *path, other[SHA256_HEX];
	size_t n = 0, i;

	if (agent_outbox_list_approved(&list, &n, a->conf->outbox, &err) < 0) {
		err_release(&err);
		return NULL;
	}
	prefix = xasprintf("%s/%s/", a->conf->outbox, cluster);
	for (i = n; i-- > 0 && text == NULL;) {
		if (strncmp(list[i], prefix, strlen(prefix)) != 0 ||
		    strcmp(list[i], dir) == 0 ||
		    agent_outbox_has(list[i], AGENT_APPLY_BEGUN))
			continue;
		memset(&pd, 0, sizeof(pd));
		if (content_digest(&pd, list[i], other, NULL, &err) == 0 &&
		    strcmp(other, hex) == 0) {
			path =
			    xasprintf("%s/%s", list[i], AGENT_OUTBOX_APPROVAL);
			if (afile_read(&text, len, path, (size_t)64 * 1024,
			        &err) < 0)
				text = NULL;
			free(path);
		}
		err_release(&err);
		agent_plan_dir_release(&pd);
	}
	free(prefix);
	agent_outbox_list_free(list, n);
	return text;
}

void
daemon_ha_carry_approval(struct daemon *a, const char *cluster, const char *dir,
    const char *digest)
{
	struct agent_plan_dir pd;
	struct apply_approval ap = {0};
	struct err err = {0};
	char *name = NULL, *text = NULL, *out = NULL, *conf = NULL;
	char hex[SHA256_HEX];
	size_t len = 0;
	int rc;

	if (a->coord == NULL || agent_outbox_has(dir, AGENT_OUTBOX_APPROVAL))
		return;
	memset(&pd, 0, sizeof(pd));
	if (content_digest(&pd, dir, hex, &conf, &err) < 0) {
		log_err("%s: %s", dir, err.msg);
		err_release(&err);
		return;
	}
	name = approval_key(hex);
	rc = etcd_state(a) ? agent_coord_get_state(a->coord, cluster, name,
	                         &text, &len, &err)
	                   : 1;
	if (rc < 0)
		log_warn("cluster '%s': approvals in etcd cannot be read: %s",
		    cluster, err.msg);
	err_release(&err);
	if (rc != 0) {
		/* not in etcd: an earlier preview of this agent's */
		text = local_approval(a, cluster, dir, hex, &len);
		rc = text != NULL ? 0 : 1;
	}
	if (rc == 0 && apply_approval_parse(&ap, name, text, len, &err) < 0) {
		log_err("cluster '%s': the approval to carry to %s is not "
		        "valid: %s",
		    cluster, dir, err.msg);
		err_release(&err);
	} else if (rc == 0) {
		/* bound to this very plan.json: the approver approved the
		 * same plan, read from the same live state */
		free(ap.via);
		ap.via = xstrdup(APPLY_APPROVAL_VIA_CARRIED);
		free(ap.plan_digest);
		ap.plan_digest = xstrdup(digest);
		free(ap.confirmation);
		ap.confirmation = conf;
		conf = NULL;
		out = apply_approval_render(&ap);
		if (agent_outbox_put(dir, AGENT_OUTBOX_APPROVAL, out, &err) <
		    0) {
			log_err("%s: the approval not carried: %s", dir,
			    err.msg);
			err_release(&err);
		} else {
			log_notice("cluster '%s': %s carries the approval by "
			           "'%s' (%s): the same plan (%.12s, its "
			           "snapshot time aside) was approved and not "
			           "applied before the takeover",
			    cluster, dir, ap.approved_by, ap.approved_at, hex);
		}
	}
	apply_approval_release(&ap);
	agent_plan_dir_release(&pd);
	free(conf);
	free(out);
	free(text);
	free(name);
}

void
daemon_ha_not_owned(struct daemon *a, const char *cluster, const char *dir)
{
	const char *owner = agent_coord_owner(a->coord, cluster);
	struct err err = {0};
	char *why;

	if (owner == NULL || strcmp(owner, agent_coord_id(a->coord)) == 0 ||
	    agent_outbox_has(dir, AGENT_APPLY_BEGUN)) {
		log_debug("approved %s: not applied here, cluster '%s' is "
		          "owned by %s",
		    dir, cluster, daemon_ha_owner(a, cluster));
		return;
	}
	why = xasprintf("cluster '%s' is owned by agent '%s', not by this "
	                "agent (%s): this preview is never applied here; the "
	                "owner plans the commit again and posts its own "
	                "preview, approve that one (docs/ha.md)\n",
	    cluster, owner, agent_coord_id(a->coord));
	if (agent_outbox_put(dir, AGENT_OUTBOX_SUPERSEDED, why, &err) < 0) {
		log_err("%s: %s", dir, err.msg);
		err_release(&err);
	} else {
		log_notice("approved %s withdrawn: cluster '%s' is owned by "
		           "agent '%s'",
		    dir, cluster, owner);
	}
	free(why);
}

struct epochs {
	const char *cluster, *apply_id;
	int64_t intent; /* the interrupted apply's epoch, 0: not found */
	int64_t other;  /* the greatest epoch of another apply's row */
};

static int
scan_epochs(void *ctx, const char *row, size_t len)
{
	struct epochs *e = ctx;
	struct json_doc *doc = NULL;
	struct err err = {0};
	const struct json *root;
	const char *c, *id;
	int64_t ep = 0;

	if (json_parse(&doc, "audit row", row, len, &err) == 0) {
		root = json_doc_root(doc);
		c = json_str(json_get(root, "cluster"));
		id = json_str(json_get(root, "apply_id"));
		json_int(json_get(root, "epoch"), &ep);
		if (c != NULL && id != NULL && strcmp(c, e->cluster) == 0) {
			if (strcmp(id, e->apply_id) == 0)
				e->intent = ep;
			else if (ep > e->other)
				e->other = ep;
		}
	}
	json_doc_free(doc);
	err_release(&err);
	return 0;
}

bool
daemon_ha_stale_resume(struct daemon *a, const char *cluster, const char *dir,
    struct err *why)
{
	struct epochs e = {0};
	struct err err = {0};
	char *path, *id = NULL;
	size_t len = 0;
	bool stale = false;

	if (a->coord == NULL || !agent_outbox_has(dir, AGENT_APPLY_BEGUN))
		return false;
	path = xasprintf("%s/%s", dir, AGENT_APPLY_BEGUN);
	if (afile_read(&id, &len, path, 4096, &err) < 0) {
		err_release(&err);
		free(path);
		return false; /* the apply says why */
	}
	free(path);
	e.cluster = cluster;
	e.apply_id = id;
	if (agent_state_audit_each(a->state, scan_epochs, &e, &err) < 0) {
		err_release(&err);
	} else if (e.intent > 0 && e.other > e.intent) {
		err_setf(why, NULL,
		    "its apply (%s) was interrupted under epoch %lld, and "
		    "another apply of cluster '%s' was recorded under epoch "
		    "%lld since: another agent acted on the cluster meanwhile, "
		    "so this one is not resumed; what it did is in its intent "
		    "row; plan again",
		    id, (long long)e.intent, cluster, (long long)e.other);
		stale = true;
	}
	free(id);
	return stale;
}
