/* agent/daemon/approvals.c: the daemon's side of approvals. An operator runs
 * `artemis-gitops approve PLAN_DIR --confirm TEXT`, which writes
 * PLAN_DIR/approval.json; the next cycle finds it here and runs the same
 * apply as `artemis-gitops apply` (result.json, result.md, audit rows,
 * inventory), under the daemon's own lock on the state folder, once it
 * has attributed the approval: approval.json must be owned by the uid it
 * records, and that uid must be one of `approvers:` when they are set. */
#define LOG_MODULE "approve"

#include "daemon-int.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../lib/afile.h"
#include "../../lib/clock.h"
#include "../../lib/metrics.h"
#include "../../lib/xalloc.h"
#include "../../reconcile/apply/apply.h"
#include "../apply-plan.h"
#include "../hold.h"
#include "../log.h"
#include "../plan-dir.h"
#include "../state.h"
#include "../tls.h"
#include "../verify.h"

/* The cluster of preview dir (OUTBOX/<cluster>/<id>), for a label. Owned. */
static char *
cluster_of(const char *dir)
{
	const char *end = strrchr(dir, '/'), *start;

	if (end == NULL)
		return xstrdup(dir);
	for (start = end; start > dir && start[-1] != '/'; start--)
		;
	return xstrndup(start, (size_t)(end - start));
}

/* An apply of dir ended with result (ok, failed, refused). */
static void
count_apply(struct daemon *a, const char *dir, const char *result)
{
	char *cluster = cluster_of(dir);

	metrics_add(daemon_metrics(a), "artemis_gitops_applies_total",
	    (const char *[]){cluster, result}, 1);
	if (strcmp(result, "ok") == 0)
		metrics_set(daemon_metrics(a),
		    "artemis_gitops_last_apply_success_timestamp_seconds",
		    (const char *[]){cluster}, (double)time(NULL));
	free(cluster);
}

/* Record why an approval is not acted on, once (the file stops the
 * daemon from looking at it again). */
static void
refuse(struct daemon *a, const char *dir, const char *why)
{
	struct err err = {0};
	char *text = xasprintf("%s\n", why), *cluster = cluster_of(dir);

	count_apply(a, dir, "refused");
	log_warn("approval in %s not applied: %s", dir, why);
	daemon_event_approval_refused(a, dir, cluster, why);
	free(cluster);
	daemon_fail(a, "approval in %s not applied: %s", dir, why);
	if (agent_outbox_put(dir, AGENT_OUTBOX_REFUSED, text, &err) < 0) {
		log_err("%s", err.msg);
		err_release(&err);
	}
	free(text);
}

/* The name of uid, or its decimal value when it has none; owned. */
static char *
user_name(uid_t uid)
{
	struct passwd *pw = getpwuid(uid);

	if (pw != NULL && pw->pw_name != NULL && pw->pw_name[0] != '\0')
		return xstrdup(pw->pw_name);
	return xasprintf("%lu", (unsigned long)uid);
}

/* Is uid listed in conf's approvers, or a member (getgrouplist: its
 * primary group and every group that lists it) of a listed group? */
static bool
is_approver(const struct agent_conf *conf, uid_t uid)
{
	const struct agent_conf_approvers *ap = &conf->approvers;
	struct passwd *pw;
	gid_t *groups = NULL, gid;
	char *name;
	int ng = 32, had, i;
	size_t j;
	bool yes = false;

	for (j = 0; j < ap->n; j++)
		if (!ap->v[j].group && ap->v[j].id == (unsigned long)uid)
			return true;
	pw = getpwuid(uid);
	if (pw == NULL || pw->pw_name == NULL)
		return false; /* no name, no groups */
	name = xstrdup(pw->pw_name);
	gid = pw->pw_gid;
	for (;;) {
		groups = xreallocarray(groups, (size_t)ng, sizeof(*groups));
		had = ng;
		if (getgrouplist(name, gid, groups, &ng) >= 0)
			break;
		if (ng <= had) { /* it said no more than it had: give up */
			ng = 0;
			break;
		}
	}
	for (j = 0; j < ap->n && !yes; j++)
		for (i = 0; i < ng && !yes; i++)
			yes = ap->v[j].group &&
			      ap->v[j].id == (unsigned long)groups[i];
	free(groups);
	free(name);
	return yes;
}

/* An approval the agent wrote itself (auto-apply-creates), found again
 * after a restart (its apply interrupted): owned by the agent's own uid,
 * approver AGENT_OWN_APPROVER_PREFIX. Only that uid (or root) can own
 * such a file, and it controls the agent anyway. */
static bool
agents_own(const struct apply_approval *ap, const struct stat *st)
{
	return st->st_uid == getuid() && ap->approved_by != NULL &&
	       strncmp(ap->approved_by, AGENT_OWN_APPROVER_PREFIX,
	           strlen(AGENT_OWN_APPROVER_PREFIX)) == 0;
}

/* An approval the web server wrote for a token of the approver role
 * (agent/web/approve.c): the role was checked there, and only the agent's
 * own uid (or root) can write a file it owns. `approvers:` lists Unix
 * users, which a token is not. */
static bool
web_approval(const struct apply_approval *ap, const struct stat *st)
{
	return st->st_uid == getuid() && ap->via != NULL &&
	       strcmp(ap->via, APPLY_APPROVAL_VIA_HTTP) == 0;
}

/* An approval the daemon carried to an identical plan (docs/ha.md): the
 * agent that first acted on it checked it, and only the agent's own uid
 * (or root) can write a file it owns here. */
static bool
carried(const struct apply_approval *ap, const struct stat *st)
{
	return st->st_uid == getuid() && ap->via != NULL &&
	       strcmp(ap->via, APPLY_APPROVAL_VIA_CARRIED) == 0;
}

int
daemon_approval_check(const struct agent_conf *conf,
    const struct apply_approval *ap, const struct stat *st, bool own,
    struct err *err)
{
	char *owner = user_name(st->st_uid);
	struct sbuf list = {0};
	size_t i;
	int rc = 0;

	if (carried(ap, st) && st->st_nlink == 1) {
		free(owner);
		return 0;
	}
	if ((int64_t)st->st_uid != ap->approved_uid) {
		rc = err_setf(err, NULL,
		    "approval.json is owned by uid %lu (%s) but records uid "
		    "%lld (%s): it was not written by the user it names, and "
		    "the agent acts only on approvals it can attribute; the "
		    "approver approves again, as themselves",
		    (unsigned long)st->st_uid, owner,
		    (long long)ap->approved_uid, ap->approved_user);
	} else if (st->st_nlink != 1) {
		rc = err_setf(err, NULL,
		    "approval.json (uid %lu, %s) has %lu hard links: the agent "
		    "acts only on an approval written into this folder; approve "
		    "again",
		    (unsigned long)st->st_uid, owner,
		    (unsigned long)st->st_nlink);
	} else if (!own && !agents_own(ap, st) && !web_approval(ap, st) &&
	           conf->approvers.n > 0 && !is_approver(conf, st->st_uid)) {
		for (i = 0; i < conf->approvers.n; i++)
			sbuf_addf(&list, "%s%s", i > 0 ? ", " : "",
			    conf->approvers.v[i].name);
		rc = err_setf(err, NULL,
		    "uid %lu (%s) may not approve: 'approvers' in %s lists %s, "
		    "and %s is neither one of the users nor a member of one of "
		    "the groups",
		    (unsigned long)st->st_uid, owner, conf->path,
		    sbuf_str(&list), owner);
	}
	sbuf_release(&list);
	free(owner);
	return rc;
}

struct check_ctx {
	struct daemon *a;
	bool own; /* the daemon's own approval (auto-apply-creates) */
};

static int
on_check(void *ctx, const struct apply_approval *ap, const struct stat *st,
    struct err *err)
{
	const struct check_ctx *c = ctx;

	if (daemon_approval_check(c->a->conf, ap, st, c->own, err) < 0)
		return -1;
	log_info("approval by uid %lld (%s), approved_by '%s'",
	    (long long)ap->approved_uid, ap->approved_user, ap->approved_by);
	return 0;
}

/* dir's apply waits (a suspension, a sync window): its waiting.txt says
 * why and until when; logged once per change. */
static void
wait_dir(const char *dir, const struct err *why)
{
	char *path = xasprintf("%s/%s", dir, AGENT_OUTBOX_WAITING);
	char *text = xasprintf("%s\n", why->msg), *old = NULL;
	struct err err = {0};
	size_t len = 0;

	if (access(path, F_OK) == 0 &&
	    afile_read(&old, &len, path, (size_t)64 * 1024, &err) < 0)
		err_release(&err);
	if (old == NULL || strcmp(old, text) != 0) {
		log_notice("approved %s waits: %s", dir, why->msg);
		if (agent_outbox_put(dir, AGENT_OUTBOX_WAITING, text, &err) <
		    0) {
			log_err("%s", err.msg);
			err_release(&err);
		}
	}
	daemon_notify_status("approved %s waits: %s", dir, why->msg);
	free(old);
	free(text);
	free(path);
}

/* dir's apply no longer waits: its waiting.txt goes. */
static void
unwait_dir(const char *dir)
{
	char *path = xasprintf("%s/%s", dir, AGENT_OUTBOX_WAITING);

	if (unlink(path) < 0 && errno != ENOENT)
		log_err("cannot remove %s: %m", path);
	free(path);
}

/* Does dir's cluster hold its apply (hold.h)? Judged here first so that a
 * plan waiting for hours is not read and logged as "applying" every
 * cycle; agent_apply_plan_run judges again and is the gate. A closed
 * window that dir's approval.json overrides does not hold. *why gets the
 * text when it holds. */
static bool
held(struct daemon *a, const char *dir, struct err *why)
{
	struct apply_approval ap = {0};
	struct agent_hold h;
	struct err err = {0};
	char *cluster = cluster_of(dir), *path = NULL, *text = NULL;
	size_t len = 0;
	bool yes = false;

	if (agent_hold_check(&h, &a->conf->windows, a->conf->state, cluster,
	        &err) < 0) {
		err_release(&err);
		free(cluster);
		return false; /* the apply says why */
	}
	if (h.kind == AGENT_HOLD_WINDOW) {
		path = xasprintf("%s/%s", dir, AGENT_OUTBOX_APPROVAL);
		yes = afile_read(&text, &len, path, (size_t)64 * 1024, &err) <
		          0 ||
		      apply_approval_parse(&ap, path, text, len, &err) < 0 ||
		      !ap.override_window;
		err_release(&err);
	} else {
		yes = h.kind == AGENT_HOLD_SUSPENDED;
	}
	if (yes)
		err_setf(why, NULL, "%s", h.text);
	apply_approval_release(&ap);
	agent_hold_release(&h);
	free(text);
	free(path);
	free(cluster);
	return yes;
}

/* repository.verify at the apply: the commit of dir's plan is judged again
 * with what is trusted now (a key removed and reloaded since the preview
 * was posted is no longer trusted). True when it may be applied; else the
 * approval is refused, naming the commit, the key and why. An apply
 * already begun (resumed after a crash) is finished, not judged again. */
static bool
verified(struct daemon *a, const char *dir)
{
	struct agent_plan_dir pd;
	struct agent_verify_verdict vd;
	struct err err = {0};
	char *line, *why;
	bool ok = true;

	if (a->verify == NULL || agent_outbox_has(dir, AGENT_APPLY_BEGUN))
		return true;
	memset(&pd, 0, sizeof(pd));
	memset(&vd, 0, sizeof(vd));
	if (agent_plan_dir_load(&pd, dir, &err) < 0) {
		err_release(&err);
		return true; /* the apply refuses it, saying why */
	}
	if (pd.plan->revision != NULL && pd.plan->kind != NULL &&
	    strcmp(pd.plan->kind, "plan") == 0 &&
	    !daemon_verify_head(a, pd.plan->cluster, pd.plan->revision, &vd)) {
		line = agent_verify_verdict_line(&vd);
		why = xasprintf("%s (repository.verify.mode %s): an untrusted "
		                "commit is never applied",
		    line, agent_conf_verify_mode_name(a->conf->verify_mode));
		refuse(a, dir, why);
		free(why);
		free(line);
		ok = false;
	}
	agent_verify_verdict_release(&vd);
	agent_plan_dir_release(&pd);
	return ok;
}

/* Apply dir, approved by someone (own: by the daemon itself). */
static void
apply_dir(struct daemon *a, const char *dir, bool own)
{
	struct agent_apply_plan_opts o;
	struct agent_tls tls;
	struct check_ctx cc = {a, own};
	struct daemon_tick tick;
	struct apply_result *res = NULL;
	struct err err = {0};
	char *decl, *cluster;
	bool recorded = false;
	struct agent_fence fence;
	int64_t t0;
	int code;

	cluster = cluster_of(dir);
	if (!daemon_ha_owns(a, cluster)) {
		daemon_ha_not_owned(a, cluster, dir);
		free(cluster);
		return;
	}
	if (daemon_ha_stale_resume(a, cluster, dir, &err)) {
		refuse(a, dir, err.msg);
		err_release(&err);
		free(cluster);
		return;
	}
	if (daemon_ha_keep_approval(a, cluster, dir) < 0) {
		free(cluster);
		return;
	}
	free(cluster);
	if (held(a, dir, &err)) {
		wait_dir(dir, &err);
		err_release(&err);
		return;
	}
	if (agent_tls_from_conf(&tls, a->conf, &err) < 0) {
		refuse(a, dir, err.msg);
		err_release(&err);
		agent_tls_release(&tls);
		return;
	}
	decl = xasprintf("%s/%s", dir, AGENT_OUTBOX_DECLARATION);
	/* an apply is never abandoned: it runs to its end, each
	 * call bounded by the HTTP timeouts */
	daemon_tick_init(&tick, a, false);
	memset(&o, 0, sizeof(o));
	o.tick = &tick.http;
	o.timeout_ms = 1000 * a->conf->broker_timeout;
	o.check_approval = on_check;
	o.check_ctx = &cc;
	o.dir = dir;
	o.state = a->conf->state;
	o.st = a->state;
	o.credentials = a->conf->credentials;
	o.tls = &tls;
	o.cleartext_warned = &a->cleartext_warned;
	o.cluster = decl;
	o.quiet = true;
	o.record_completed = &recorded;
	o.result = &res;
	o.windows = &a->conf->windows;
	cluster = cluster_of(dir);
	o.fence = daemon_ha_fence(a, cluster, &fence);
	free(cluster);
	log_info("applying %s", dir);
	t0 = clock_monotonic_ms();
	code = agent_apply_plan_run(&o, &err);
	agent_tls_release(&tls);
	free(decl);
	if (code == AGENT_APPLY_EWINDOW || code == AGENT_APPLY_ESUSPENDED) {
		/* not a refusal: applied once nothing holds it */
		wait_dir(dir, &err);
		err_release(&err);
		return;
	}
	unwait_dir(dir);
	if (code >= 0) {
		cluster = cluster_of(dir);
		daemon_ha_used_approval(a, cluster, dir);
		metrics_observe(daemon_metrics(a),
		    "artemis_gitops_apply_duration_seconds",
		    (const char *[]){cluster}, daemon_seconds_since(t0));
		free(cluster);
		count_apply(a, dir, code == 0 ? "ok" : "failed");
	}
	if (res != NULL)
		daemon_event_applied(a, dir, res);
	apply_result_free(res);
	if (code < 0 && recorded) {
		/* applied before, killed after its result row: not a refusal */
		log_notice("%s: %s", dir, err.msg);
		err_release(&err);
		return;
	}
	if (code < 0) {
		/* rendered: a plan.json error carries its file as a position */
		char *why = err_render(&err);

		refuse(a, dir, why);
		free(why);
		err_release(&err);
		return;
	}
	if (code == 0)
		log_notice("applied %s: every node APPLIED or SKIPPED (see "
		           "%s/result.md)",
		    dir, dir);
	else
		log_err("applied %s with failures: see %s/result.md", dir, dir);
	if (code != 0)
		daemon_fail(a, "applied %s with failures (see its result.md)",
		    dir);
	daemon_notify_status("applied %s (%s)", dir,
	    code == 0 ? "ok" : "failures");
}

void
daemon_run_approvals(struct daemon *a)
{
	char **list = NULL;
	size_t n = 0, i;
	struct err err = {0};

	daemon_holds_refresh(a);
	if (agent_outbox_list_approved(&list, &n, a->conf->outbox, &err) < 0) {
		log_err("%s", err.msg);
		daemon_fail(a, "approvals: %s", err.msg);
		err_release(&err);
		return;
	}
	for (i = 0; i < n && !daemon_stopping(a); i++) {
		if (agent_outbox_has(list[i], AGENT_OUTBOX_SUPERSEDED))
			refuse(a, list[i],
			    "this preview was superseded by a newer commit (see "
			    "its 'superseded' file); approve the newer preview");
		else if (verified(a, list[i]))
			apply_dir(a, list[i], false);
	}
	agent_outbox_list_free(list, n);
}

void
daemon_auto_apply(struct daemon *a, const char *dir, const char *what)
{
	struct agent_plan_dir ap;
	struct apply_approval ra = {0};
	struct err err = {0};
	char *text = NULL;

	memset(&ap, 0, sizeof(ap));
	if (agent_plan_dir_load(&ap, dir, &err) < 0) {
		log_err("auto-apply %s: %s", dir, err.msg);
		daemon_fail(a, "auto-apply %s: %s", dir, err.msg);
		goto done;
	}
	ra.plan_digest = xstrdup(ap.digest);
	ra.confirmation = plan_confirmation(ap.plan);
	ra.approved_by =
	    xstrdup(AGENT_OWN_APPROVER_PREFIX "auto-apply-creates)");
	ra.approved_at = clock_rfc3339_now();
	ra.approved_uid = (int64_t)getuid();
	ra.approved_user = user_name(getuid());
	text = apply_approval_render(&ra);
	if (agent_outbox_put(dir, AGENT_OUTBOX_APPROVAL, text, &err) < 0) {
		log_err("auto-apply %s: %s", dir, err.msg);
		daemon_fail(a, "auto-apply %s: %s", dir, err.msg);
		goto done;
	}
	log_notice("auto-apply-creates: %s %s, applying without an approval",
	    dir, what);
	apply_dir(a, dir, true);
done:
	free(text);
	apply_approval_release(&ra);
	agent_plan_dir_release(&ap);
	err_release(&err);
}
