/* agent/daemon/drift.c: drift detection on its own timer. For every cluster of
 * the branch head that the agent applied before, the declaration of the
 * applied revision (the inventory says which) is planned against live
 * state; the plan is the drift (drift-report.c). The report replaces
 * OUTBOX/<cluster>/drift/drift.{md,json}. Before it, the capture pass
 * runs with the same declaration (capture-pass.c). Nothing else changes
 * unless auto-apply-creates is on and the only drift is missing objects. */
#define LOG_MODULE "drift"

#include "daemon-int.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/afile.h"
#include "../../lib/clock.h"
#include "../../lib/metrics.h"
#include "../../lib/sha256.h"
#include "../../lib/xalloc.h"
#include "../../reconcile/live/live.h"
#include "../../reconcile/plan/plan.h"
#include "../inventory.h"
#include "../log.h"
#include "../plan-dir.h"
#include "../state.h"

/* The folders of the applied revision, and which of them declares the
 * cluster: what drift compares with. */
struct applied {
	struct agent_git_folder *cs;
	size_t n;
	const struct agent_git_folder *folder; /* borrowed from cs */
	struct decl_cluster *decl;
};

static void
applied_release(struct applied *ap)
{
	decl_cluster_free(ap->decl);
	agent_git_folders_free(ap->cs, ap->n);
	memset(ap, 0, sizeof(*ap));
}

/* Find and parse the folder of commit rev that declares cluster name. */
static int
applied_load(struct applied *ap, struct daemon *a, const char *rev,
    const char *name)
{
	struct decl_cluster *c = NULL;
	struct errlist d = {0};
	struct err err = {0};
	size_t i;

	memset(ap, 0, sizeof(*ap));
	if (daemon_watch_read_clusters(a->watch, rev, &ap->cs, &ap->n, &err) <
	    0) {
		log_warn("cluster '%s': applied revision %.12s: %s", name, rev,
		    err.msg);
		err_release(&err);
		return -1;
	}
	for (i = 0; i < ap->n && ap->decl == NULL; i++) {
		if (decl_cluster_parse(&c, ap->cs[i].dir, ap->cs[i].files,
		        ap->cs[i].nfiles, &d) == 0 &&
		    strcmp(c->name, name) == 0) {
			ap->decl = c;
			ap->folder = &ap->cs[i];
		} else {
			decl_cluster_free(c);
		}
		c = NULL;
		errlist_release(&d);
	}
	return ap->decl != NULL ? 0 : -1;
}

/* artemis_gitops_drift_objects{cluster,kind} from a drift check's counts. */
static void
count_drift(struct daemon *a, const char *cluster,
    const struct daemon_drift_counts *c)
{
	struct metrics *m = daemon_metrics(a);
	const char *kind[] = {"missing", "changed", "unmanaged", "disagreeing"};
	const size_t n[] = {c->missing, c->changed, c->unmanaged,
	    c->disagreeing};
	size_t i;

	for (i = 0; i < 4; i++)
		metrics_set(m, "artemis_gitops_drift_objects",
		    (const char *[]){cluster, kind[i]}, (double)n[i]);
}

static void
write_report(struct daemon *a, const struct plan *p)
{
	char *dir = xasprintf("%s/%s/%s", a->conf->outbox, p->cluster,
	    AGENT_OUTBOX_DRIFT);
	char *now = clock_rfc3339_now();
	char *json = daemon_drift_render_json(p, a->head.head, now);
	char *md = daemon_drift_render_md(p, a->head.head, now);
	struct err err = {0};
	struct daemon_drift_counts c;

	daemon_drift_count(p, &c);
	count_drift(a, p->cluster, &c);
	daemon_event_drift(a, p, json);
	if (afile_mkdirs(dir, 0750, &err) < 0 ||
	    agent_outbox_put(dir, "drift.json", json, &err) < 0 ||
	    agent_outbox_put(dir, "drift.md", md, &err) < 0) {
		log_err("cluster '%s': cannot write the drift report: %s",
		    p->cluster, err.msg);
		daemon_fail(a, "cluster '%s': drift report not written: %s",
		    p->cluster, err.msg);
	} else if (daemon_drift_found(&c))
		log_warn(
		    "cluster '%s': drift: %zu missing, %zu changed, %zu "
		    "unmanaged, %zu disagreeing between nodes (%s/drift.md)",
		    p->cluster, c.missing, c.changed, c.unmanaged,
		    c.disagreeing, dir);
	else
		log_info("cluster '%s': no drift (%s/drift.md)", p->cluster,
		    dir);
	if (c.refused > 0) {
		log_err("cluster '%s': %zu node(s) refused for their HA state "
		        "(split brain, or not one pair): nothing is applied "
		        "on them (%s/drift.md)",
		    p->cluster, c.refused, dir);
		daemon_fail(a,
		    "cluster '%s': %zu node(s) refused for their HA state",
		    p->cluster, c.refused);
	}
	if (c.unreachable > 0) {
		log_warn("cluster '%s': %zu node(s) could not be read for the "
		         "drift check",
		    p->cluster, c.unreachable);
		daemon_fail(a,
		    "cluster '%s': %zu node(s) could not be read for the drift "
		    "check",
		    p->cluster, c.unreachable);
	}
	err_release(&err);
	free(dir);
	free(now);
	free(json);
	free(md);
}

/* auto-apply-creates: post the drift plan (only missing objects) as a
 * preview of the applied revision and apply it. It supersedes nothing: a
 * preview of a newer commit waiting for approval stays valid. */
static void
repair(struct daemon *a, const struct plan *p,
    const struct agent_git_folder *folder)
{
	struct err err = {0};
	char digest[SHA256_HEX];
	char *dir = NULL;

	if (agent_outbox_new_plan_dir(&dir, a->conf->outbox, p->cluster, NULL,
	        &err) < 0 ||
	    agent_plan_dir_write(p, dir, digest, &err) < 0 ||
	    daemon_post_declaration(dir, folder, &err) < 0) {
		log_err("cluster '%s': drift repair not posted: %s", p->cluster,
		    err.msg);
		daemon_fail(a, "cluster '%s': drift repair not posted: %s",
		    p->cluster, err.msg);
	} else {
		log_notice("cluster '%s': repairing missing objects (%s)",
		    p->cluster, dir);
		daemon_auto_apply(a, dir, "only creates objects");
	}
	err_release(&err);
	free(dir);
}

static void
check_cluster(struct daemon *a, const char *name)
{
	struct plan_managed m = {0};
	struct plan_opts po = {0};
	struct applied ap = {0};
	struct recon_snapshot *snap = NULL;
	struct plan *p = NULL;
	struct err err = {0};
	struct daemon_drift_counts dc;

	if (!daemon_ha_owns(a, name)) {
		log_debug("cluster '%s': no drift check here, owned by %s",
		    name, daemon_ha_owner(a, name));
		return;
	}
	if (agent_inventory_load(&m, a->conf->state, name, &err) < 0) {
		log_err("cluster '%s': %s", name, err.msg);
		daemon_fail(a, "cluster '%s': %s", name, err.msg);
		goto done;
	}
	if (!m.known || m.revision == NULL) {
		log_info("cluster '%s': nothing applied yet, no drift check",
		    name);
		goto done;
	}
	if (applied_load(&ap, a, m.revision, name) < 0) {
		log_warn("cluster '%s': the applied revision %.12s has no "
		         "loadable declaration of it, no drift check",
		    name, m.revision);
		daemon_fail(a,
		    "cluster '%s': no drift check (the applied revision %.12s "
		    "has no loadable declaration of it)",
		    name, m.revision);
		goto done;
	}
	snap = daemon_read_live(a, ap.decl, &m, NULL);
	if (a->sig.stop)
		goto stopped;
	if (!daemon_held(a, name, "the capture pass") &&
	    daemon_capture_pass(a, ap.decl, &m, snap)) {
		/* the pass changed the brokers (and maybe the inventory's
		 * captures): drift is what is left */
		live_snapshot_free(snap);
		snap = daemon_read_live(a, ap.decl, &m, NULL);
		if (a->sig.stop)
			goto stopped;
		plan_managed_release(&m);
		if (agent_inventory_load(&m, a->conf->state, name, &err) < 0) {
			log_err("cluster '%s': %s", name, err.msg);
			daemon_fail(a, "cluster '%s': %s", name, err.msg);
			goto done;
		}
	}
	po.revision = m.revision;
	po.snapshot_source = "live";
	p = plan_build(ap.decl, &m, snap, &po);
	write_report(a, p);
	daemon_drift_count(p, &dc);
	if (a->conf->auto_apply_creates && dc.unreachable == 0 &&
	    dc.refused == 0 && dc.missing > 0 && plan_creates_only(p) &&
	    !daemon_held(a, name, "drift repair"))
		repair(a, p, ap.folder);
	goto done;
stopped:
	log_info("cluster '%s': stopped while its nodes were read, no drift "
	         "check",
	    name);
done:
	plan_free(p);
	live_snapshot_free(snap);
	applied_release(&ap);
	plan_managed_release(&m);
	err_release(&err);
}

void
daemon_drift(struct daemon *a)
{
	struct agent_git_folder *cs = NULL;
	struct decl_cluster *c = NULL;
	struct errlist d = {0};
	struct err err = {0};
	const char *head = a->head.head[0] != '\0'
	                       ? a->head.head
	                       : daemon_watch_last_seen(a->watch);
	size_t n = 0, i;

	if (head[0] == '\0')
		return;
	if (daemon_watch_read_clusters(a->watch, head, &cs, &n, &err) < 0) {
		log_warn("drift check skipped: %s", err.msg);
		daemon_fail(a, "drift check skipped: %s", err.msg);
		err_release(&err);
		return;
	}
	for (i = 0; i < n && !daemon_stopping(a); i++) {
		/* An invalid head does not stop the check: drift compares
		 * with what was applied, not with the head. */
		if (decl_cluster_parse(&c, cs[i].dir, cs[i].files, cs[i].nfiles,
		        &d) < 0)
			c = NULL;
		check_cluster(a, daemon_cluster_name(a, c, cs[i].dir));
		decl_cluster_free(c);
		c = NULL;
		errlist_release(&d);
	}
	agent_git_folders_free(cs, n);
}
