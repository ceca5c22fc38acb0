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

#include <stdlib.h>
#include <string.h>

#include "../../lib/afile.h"
#include "../../lib/json.h"
#include "../../lib/xalloc.h"
#include "../../reconcile/apply/apply.h"
#include "../apply-plan.h"
#include "../coord.h"
#include "../log.h"
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

static void
publish(struct daemon *a, const char *cluster)
{
	const char *owner = agent_coord_owner(a->coord, cluster);
	int64_t epoch = agent_coord_epoch(a->coord, cluster);
	struct metrics *m = daemon_metrics(a);

	metrics_forget(m, "artemis_gitops_cluster_epoch", "cluster", cluster);
	metrics_set(m, "artemis_gitops_cluster_epoch",
	    (const char *[]){cluster, owner != NULL ? owner : "",
	        agent_coord_mode(a->coord)},
	    (double)epoch);
	metrics_set(m, "artemis_gitops_cluster_owned", (const char *[]){cluster},
	    epoch > 0 ? 1 : 0);
}

/* Read cluster's state back from etcd into the state folder: the
 * inventory, the suspension and the audit rows this folder lacks. */
static void
restore(struct daemon *a, const char *cluster)
{
	static const char *const names[] = {"inventory.json",
	    "suspended.json"};
	struct err err = {0};
	struct strv rows = {0};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *data = NULL, *name = xasprintf("%s/%s", cluster, names[i]);
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
	if (agent_coord_get_audit(a->coord, cluster, &rows, &err) < 0 ||
	    agent_state_audit_merge(a->state, (const char *const *)rows.v,
	        rows.n, &err) < 0) {
		log_err("cluster '%s': restoring its audit rows from etcd: %s",
		    cluster, err.msg);
		err_release(&err);
	}
	log_notice("cluster '%s': taken over (epoch %lld): its state read "
	           "back from etcd (%zu audit row(s))",
	    cluster, (long long)agent_coord_epoch(a->coord, cluster), rows.n);
	strv_release(&rows);
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

void
daemon_ha_refresh(struct daemon *a)
{
	struct err err = {0};
	const char **names;
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
		if (agent_coord_taken(a->coord, names[i]))
			taken(a, names[i]);
		publish(a, names[i]);
	}
	metrics_set(daemon_metrics(a), "artemis_gitops_coordination_members",
	    (const char *[]){agent_coord_id(a->coord)},
	    (double)agent_coord_members(a->coord)->n);
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
		if (agent_coord_refresh(a->coord, &cluster, 1, &err) < 0) {
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
	return o != NULL ? o : "nobody";
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
 * "<cluster>/name", or an audit row's "cluster". */
static char *
cluster_of(const char *name, const char *data, size_t len, bool audit)
{
	struct json_doc *doc = NULL;
	struct err err = {0};
	const char *s;
	char *c = NULL;

	if (!audit) {
		s = strchr(name, '/');
		return s != NULL ? xstrndup(name, (size_t)(s - name)) : NULL;
	}
	if (json_parse(&doc, "audit row", data, len, &err) == 0 &&
	    (s = json_str(json_get(json_doc_root(doc), "cluster"))) != NULL)
		c = xstrdup(s);
	json_doc_free(doc);
	err_release(&err);
	return c;
}

int
daemon_ha_mirror(void *ctx, const char *name, const void *data, size_t len,
    bool audit, struct err *err)
{
	struct daemon *a = ctx;
	char *cluster = cluster_of(name, data, len, audit);
	const char *base;
	int rc;

	if (cluster == NULL)
		return 0; /* not a cluster's: the agent's own */
	if (audit) {
		rc = agent_coord_put_audit(a->coord, cluster, data, err);
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

int
daemon_ha_keep_approval(struct daemon *a, const char *cluster,
    const char *dir)
{
	struct apply_approval ap = {0};
	struct err err = {0};
	char *path, *text = NULL, *name = NULL;
	size_t len = 0;
	int rc = 0;

	if (!etcd_state(a))
		return 0;
	path = xasprintf("%s/%s", dir, AGENT_OUTBOX_APPROVAL);
	if (afile_read(&text, &len, path, (size_t)64 * 1024, &err) < 0 ||
	    apply_approval_parse(&ap, path, text, len, &err) < 0) {
		err_release(&err); /* the apply refuses it, saying why */
	} else {
		name = xasprintf("approvals/%s.json", ap.plan_digest);
		rc = agent_coord_put_state(a->coord, cluster, name, text, len,
		    &err);
		if (rc < 0) {
			log_err("approved %s: not applied now: its approval "
			        "cannot be kept in etcd: %s",
			    dir, err.msg);
			err_release(&err);
		}
	}
	apply_approval_release(&ap);
	free(name);
	free(text);
	free(path);
	return rc;
}

void
daemon_ha_carry_approval(struct daemon *a, const char *cluster,
    const char *dir, const char *digest)
{
	struct apply_approval ap = {0};
	struct err err = {0};
	char *name, *text = NULL, *out = NULL;
	size_t len = 0;
	int rc;

	if (!etcd_state(a) || agent_outbox_has(dir, AGENT_OUTBOX_APPROVAL))
		return;
	name = xasprintf("approvals/%s.json", digest);
	rc = agent_coord_get_state(a->coord, cluster, name, &text, &len, &err);
	if (rc < 0) {
		log_warn("cluster '%s': approvals in etcd cannot be read: %s",
		    cluster, err.msg);
		err_release(&err);
	} else if (rc == 0 &&
	           apply_approval_parse(&ap, name, text, len, &err) == 0 &&
	           strcmp(ap.plan_digest, digest) == 0) {
		free(ap.via);
		ap.via = xstrdup(APPLY_APPROVAL_VIA_ETCD);
		out = apply_approval_render(&ap);
		if (agent_outbox_put(dir, AGENT_OUTBOX_APPROVAL, out, &err) < 0) {
			log_err("%s: the approval in etcd not carried: %s", dir,
			    err.msg);
			err_release(&err);
		} else {
			log_notice("cluster '%s': %s carries the approval by "
			           "'%s' (%s): the same plan (digest %.12s) was "
			           "approved before the takeover",
			    cluster, dir, ap.approved_by, ap.approved_at, digest);
		}
	} else if (rc == 0) {
		log_err("cluster '%s': the approval in etcd for %.12s is not "
		        "valid: %s",
		    cluster, digest, err.msg ? err.msg : "another digest");
		err_release(&err);
	}
	apply_approval_release(&ap);
	free(out);
	free(text);
	free(name);
}
