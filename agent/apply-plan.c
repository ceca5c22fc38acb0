/* agent/apply-plan.c: apply an approved plan, end to end. */
#include "apply-plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../declarations/decl.h"
#include "../lib/afile.h"
#include "../lib/clock.h"
#include "../lib/jsonw.h"
#include "../lib/sbuf.h"
#include "../lib/sha256.h"
#include "../lib/xalloc.h"
#include "../reconcile/apply/apply.h"
#include "../reconcile/live/live.h"
#include "agent.h"
#include "creds.h"
#include "hold.h"
#include "inventory.h"
#include "plan-dir.h"
#include "state.h"
#include "targets.h"
#include "tls.h"

#define APPROVAL_MAX ((size_t)64 * 1024)

/* Everything one apply holds; released by run_release. */
struct run {
	const struct agent_apply_plan_opts *o;
	struct agent_plan_dir ap;
	struct apply_approval approval;
	struct agent_state *st;     /* o->st, or own_st */
	struct agent_state *own_st; /* opened (and locked) here */
	struct decl_cluster *decl;
	struct agent_targets targets;
	struct apply_result *r;
	/* the interrupted apply of this plan to resume (its intent row), or
	 * NULL */
	struct apply_result *was;
	/* a closed sync window overridden: the window's text, who, uid */
	char *window_state, *override_by;
	int64_t override_uid;
};

static void
run_release(struct run *x)
{
	agent_targets_release(&x->targets);
	decl_cluster_free(x->decl);
	apply_result_free(x->r);
	apply_result_free(x->was);
	agent_state_close(x->own_st);
	free(x->window_state);
	free(x->override_by);
	apply_approval_release(&x->approval);
	agent_plan_dir_release(&x->ap);
}

static int
load_approval(struct run *x, struct err *err)
{
	char *path = xasprintf("%s/approval.json", x->o->dir);
	char *text = NULL;
	size_t len = 0;
	struct stat st;
	int rc = -1;

	if (access(path, F_OK) != 0) {
		err_setf(err, NULL,
		    "the plan is not approved: read %s/plan.md, then run the approve command it shows",
		    x->o->dir);
		goto done;
	}
	if (afile_read_nofollow(&text, &len, &st, path, APPROVAL_MAX, err) <
	        0 ||
	    apply_approval_parse(&x->approval, path, text, len, err) < 0)
		goto done;
	if (x->o->check_approval != NULL &&
	    x->o->check_approval(x->o->check_ctx, &x->approval, &st, err) < 0)
		goto done;
	if (strcmp(x->approval.plan_digest, x->ap.digest) != 0) {
		err_setf(err, NULL,
		    "the approval is for another plan.json (approved SHA-256 %s, plan.json now %s); approve again",
		    x->approval.plan_digest, x->ap.digest);
		goto done;
	}
	if (apply_approval_check_plan(x->ap.plan, x->approval.confirmation,
	        err) < 0)
		goto done;
	rc = 0;
done:
	free(text);
	free(path);
	return rc;
}

/* The declaration apply uses must be the one that was planned and
 * approved: its objects become the managed set (the inventory), so a
 * declaration edited after the approval, or another one given with
 * --cluster, would record what nobody approved. plan.json carries the
 * planned declaration's digest (decl_cluster_digest: objects, node names,
 * mode, settings; not the nodes' endpoints, which may differ from one
 * machine to another), and plan.json is what the approval is bound to. */
static int
check_decl_digest(const struct run *x, const char *dir, struct err *err)
{
	const struct plan *p = x->ap.plan;
	char digest[SHA256_HEX];

	if (p->declaration_digest == NULL)
		return err_setf(err, NULL,
		    "plan.json records no declaration digest (nothing was planned), so no declaration can be applied with it; plan again");
	decl_cluster_digest(x->decl, digest);
	if (strcmp(digest, p->declaration_digest) != 0)
		return err_setf(err, NULL,
		    "the declaration in %s is not the one the plan was approved for (its declaration SHA-256 %s, plan.json's declaration_digest %s): it was changed after the plan was made, or --cluster names another declaration; nothing was applied; give --cluster the declaration that was planned, or plan and approve again",
		    dir, digest, p->declaration_digest);
	return 0;
}

/* The declaration that names the nodes' endpoints (plan.json does not
 * carry them): --cluster DIR, else PLAN_DIR/declaration (the daemon's
 * previews keep their declaration there). It must be the planned one
 * (check_decl_digest). */
static int
load_decl(struct run *x, struct err *err)
{
	const struct plan *p = x->ap.plan;
	struct errlist diags = {0};
	struct stat sb;
	char *dir, *first;
	int rc = -1;

	if (x->o->cluster != NULL)
		dir = xstrdup(x->o->cluster);
	else
		dir = xasprintf("%s/declaration", x->o->dir);
	if (x->o->cluster == NULL &&
	    (stat(dir, &sb) < 0 || !S_ISDIR(sb.st_mode))) {
		err_setf(err, NULL,
		    "the nodes' Jolokia endpoints are needed: give --cluster DIR (the declaration folder of cluster '%s')",
		    p->cluster);
		goto done;
	}
	/* PLAN_DIR/declaration is the agent's own dump (every default spelled
	 * out), read with the dump's limit; a --cluster folder is people's. */
	if (decl_cluster_load_max(&x->decl, dir,
	        x->o->cluster != NULL ? DECL_FILE_MAX : DECL_DUMP_FILE_MAX,
	        &diags) < 0) {
		first = diags.n > 0 ? errlist_render_item(&diags, 0)
		                    : xstrdup("invalid declaration");
		err_setf(err, NULL, "%s: %s", dir, first);
		free(first);
		goto done;
	}
	if (strcmp(x->decl->name, p->cluster) != 0) {
		err_setf(err, NULL,
		    "%s declares cluster '%s', the plan is for '%s'", dir,
		    x->decl->name, p->cluster);
		goto done;
	}
	if (check_decl_digest(x, dir, err) < 0)
		goto done;
	rc = 0;
done:
	errlist_release(&diags);
	free(dir);
	return rc;
}

/* The endpoint and credentials of every plan node. */
static int
load_targets(struct run *x, struct err *err)
{
	const struct plan *p = x->ap.plan;
	const char *cdir = agent_creds_dir(x->o->credentials);
	const char **names;
	size_t i;
	int rc;

	if (load_decl(x, err) < 0)
		return -1;
	if (cdir == NULL)
		return err_setf(err, NULL,
		    "no credentials folder: use --credentials DIR or set CREDENTIALS_DIRECTORY");
	names = xcalloc(p->nnodes + 1, sizeof(*names));
	for (i = 0; i < p->nnodes; i++)
		names[i] = p->nodes[i].node;
	rc = agent_targets_load(&x->targets, x->decl, names, p->nnodes, cdir,
	    NULL, err);
	free(names);
	if (rc == 0)
		agent_targets_warn_cleartext(&x->targets,
		    x->o->cleartext_warned != NULL ? NULL : "apply",
		    x->o->cleartext_warned);
	return rc;
}

/* What the audit log holds of one plan (by its digest). */
struct audit_scan {
	const char *digest;
	char *intent;    /* its last intent row, owned */
	char *result;    /* its last result row, owned */
	char *result_id; /* that row's apply_id, owned */
};

static int
scan_row(void *ctx, const char *row, size_t len)
{
	struct audit_scan *s = ctx;
	struct apply_result *r = NULL;
	struct err err = {0};
	char *event = NULL;

	if (strstr(row, s->digest) == NULL)
		return 0; /* another plan's (or a capture pass's) */
	if (apply_audit_parse(&r, &event, row, len, &err) < 0) {
		err_release(&err); /* a row torn by a crash: not apply's */
		return 0;
	}
	if (r->plan_digest != NULL && strcmp(r->plan_digest, s->digest) == 0) {
		if (strcmp(event, "intent") == 0) {
			free(s->intent);
			s->intent = xstrndup(row, len);
		} else if (strcmp(event, "result") == 0) {
			free(s->result);
			s->result = xstrndup(row, len);
			free(s->result_id);
			s->result_id = xstrdup(r->apply_id);
		}
	}
	apply_result_free(r);
	free(event);
	return 0;
}

static void
fence_read(void *ctx, const char *node, struct recon_node_snapshot *out)
{
	struct agent_fence_io *w = ctx;

	w->inner.read(w->inner.ctx, node, out);
}

static void
fence_read_all(void *ctx, const char *const *names, size_t n,
    struct recon_node_snapshot *out)
{
	struct agent_fence_io *w = ctx;

	w->inner.read_all(w->inner.ctx, names, n, out);
}

/* May a request be sent? The fence is checked before each (the nodes
 * run at once: one check at a time); false, with refusal FENCED, once it
 * said no. */
static bool
fence_pass(struct agent_fence_io *w, struct recon_refusal *refusal)
{
	struct err err = {0};
	bool ok;

	pthread_mutex_lock(&w->mu);
	if (w->why == NULL &&
	    w->fence->check(w->fence->ctx, w->cluster, &err) < 0) {
		w->why = xstrdup(err.msg ? err.msg : "ownership lost");
		err_release(&err);
	}
	ok = w->why == NULL;
	if (!ok) {
		recon_refusal_release(refusal);
		refusal->kind = RECON_FENCED;
		refusal->text = xasprintf("not sent: %s", w->why);
	}
	pthread_mutex_unlock(&w->mu);
	return ok;
}

static int
fence_exec(void *ctx, const char *node, const struct recon_op *op,
    struct recon_refusal *refusal)
{
	struct agent_fence_io *w = ctx;

	if (!fence_pass(w, refusal))
		return -1;
	return w->inner.exec(w->inner.ctx, node, op, refusal);
}

/* A batch is one request: the fence is checked once before it, and when
 * it says no nothing of it is sent (every operation FENCED). */
static int
fence_exec_batch(void *ctx, const char *node, const struct recon_op *ops,
    size_t n, int *rcs, struct recon_refusal *refusals)
{
	struct agent_fence_io *w = ctx;
	size_t j;

	if (!fence_pass(w, &refusals[0])) {
		for (j = 0; j < n; j++) {
			rcs[j] = -1;
			if (j > 0) {
				refusals[j].kind = RECON_FENCED;
				refusals[j].text = xstrdup(refusals[0].text);
			}
		}
		return -1;
	}
	return w->inner.exec_batch(w->inner.ctx, node, ops, n, rcs, refusals);
}

void
agent_fence_io(struct agent_fence_io *w, struct apply_io *io,
    const struct agent_fence *fence, const char *cluster)
{
	memset(w, 0, sizeof(*w));
	w->inner = *io;
	w->fence = fence;
	w->cluster = xstrdup(cluster);
	io->ctx = w;
	io->read = fence_read;
	io->read_all = w->inner.read_all != NULL ? fence_read_all : NULL;
	io->exec = fence_exec;
	io->exec_batch = w->inner.exec_batch != NULL ? fence_exec_batch : NULL;
	/* several agents (docs/ha.md): node after node, as before the nodes
	 * ran at once, so that an agent about to lose the cluster has
	 * changed as few nodes as it can when the fence stops it (the nodes
	 * it did not reach are NOT_RUN, planned again by the new owner) */
	io->parallel = false;
	pthread_mutex_init(&w->mu, NULL);
}

void
agent_fence_io_release(struct agent_fence_io *w)
{
	free(w->cluster);
	free(w->why);
	pthread_mutex_destroy(&w->mu);
	memset(w, 0, sizeof(*w));
}

/* The nodes of the plan, read through io, for apply: what the plan's
 * declaration and actions name (plan.h, plan_scope_build), into scope
 * (the caller's, released with the nodes). */
static void
live_setup(const struct run *x, struct live_http_opts *http,
    struct live_nodes *live, struct apply_io *io, struct live_scope *scope)
{
	memset(http, 0, sizeof(*http));
	agent_tls_http(x->o->tls, http);
	http->tick = x->o->tick;
	agent_http_timeout(http, x->o->timeout_ms);
	memset(live, 0, sizeof(*live));
	live->cluster = x->ap.plan->cluster;
	live->targets = x->targets.v;
	live->ntargets = x->targets.n;
	live->http = http;
	memset(scope, 0, sizeof(*scope));
	if (x->decl != NULL) {
		plan_scope_build(scope, x->decl, NULL, NULL, NULL, 0,
		    x->ap.plan);
		live->scope = scope;
	}
	live_nodes_init(live);
	apply_io_live(io, live);
}

/* The plan's result row (row) is in the audit log, and PLAN_DIR has no
 * result.json: an apply was interrupted after that row, before the
 * inventory and the result files. The inventory is brought up to date
 * from the row and the nodes read now (apply_update_managed counts what
 * the nodes show: a declared object found, a deleted one gone from every
 * node), which the interrupted apply may have done already (it gives the
 * same set again), and result.json becomes the marker of an applied plan
 * whose result is in the audit row (docs/audit.md). */
static int
recover_record(const struct run *x, const char *row, struct err *err)
{
	struct live_http_opts http;
	struct live_nodes live;
	struct live_scope scope;
	struct apply_io io;
	struct apply_result *r = NULL;
	const char **names;
	char *event = NULL, *path, *json;
	struct sbuf b = {0};
	struct jsonw w;
	size_t i;
	int rc = -1;

	if (apply_audit_parse(&r, &event, row, strlen(row), err) < 0)
		goto done;
	r->seen = xcalloc(r->nnodes + 1, sizeof(*r->seen));
	names = xcalloc(r->nnodes + 1, sizeof(*names));
	for (i = 0; i < r->nnodes; i++)
		names[i] = r->nodes[i].node;
	live_setup(x, &http, &live, &io, &scope);
	if (r->nnodes > 0)
		io.read_all(io.ctx, names, r->nnodes, r->seen);
	live_nodes_release(&live);
	live_scope_release(&scope);
	free(names);
	if (agent_inventory_update(x->st, x->ap.plan, r, x->decl, err) < 0)
		goto done;
	jsonw_init(&w, &b, 2);
	jsonw_obj_begin(&w);
	jsonw_key(&w, "apply_id");
	jsonw_str(&w, r->apply_id);
	jsonw_key(&w, "audit");
	jsonw_str(&w, "RECORDED");
	jsonw_key(&w, "plan_digest");
	jsonw_str(&w, r->plan_digest);
	jsonw_obj_end(&w);
	sbuf_adds(&b, "\n");
	json = sbuf_take(&b);
	path = xasprintf("%s/result.json", x->o->dir);
	rc = afile_write(path, json, strlen(json), 0644, err);
	free(path);
	free(json);
done:
	apply_result_free(r);
	free(event);
	return rc;
}

/* An earlier apply of this plan (docs/audit.md "Resuming an interrupted
 * apply"): one whose result row is in the audit log applied it, so it is
 * not applied again (its record is completed when it was interrupted
 * after that row); one whose intent row has no result row was
 * interrupted, and this apply resumes it (x->was). */
static int
find_interrupted(struct run *x, struct err *err)
{
	struct audit_scan s = {.digest = x->ap.digest};
	struct err e2 = {0};
	char *event = NULL, *why;
	int rc = -1;

	if (agent_state_audit_each(x->st, scan_row, &s, err) < 0)
		goto done;
	if (s.result_id != NULL) {
		if (recover_record(x, s.result, &e2) < 0) {
			why = err_render(&e2);
			err_setf(err, NULL,
			    "the plan was already applied (apply %s: its result row is in %s/" AGENT_STATE_AUDIT
			    "), but its apply was interrupted after that row and its record could not be completed: %s; do not apply this plan again",
			    s.result_id, agent_state_dir(x->st), why);
			free(why);
		} else {
			if (x->o->record_completed != NULL)
				*x->o->record_completed = true;
			err_setf(err, NULL,
			    "the plan was already applied (apply %s: its result row is in %s/" AGENT_STATE_AUDIT
			    "); its apply was interrupted after that row, so the inventory was brought up to date from the nodes read now and %s/result.json written; plan again for a new change",
			    s.result_id, agent_state_dir(x->st), x->o->dir);
		}
		err_release(&e2);
		goto done;
	}
	if (s.intent != NULL && apply_audit_parse(&x->was, &event, s.intent,
	                            strlen(s.intent), err) < 0)
		goto done;
	rc = 0;
done:
	free(event);
	free(s.intent);
	free(s.result);
	free(s.result_id);
	return rc;
}

char *
agent_apply_plan_id_new(void)
{
	unsigned char b[8];
	char *now = clock_rfc3339_now(), *id;

	if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b))
		memset(b, 0, sizeof(b));
	id = xasprintf("%s-%02x%02x%02x%02x%02x%02x%02x%02x", now, b[0], b[1],
	    b[2], b[3], b[4], b[5], b[6], b[7]);
	free(now);
	return id;
}

static struct apply_result *
result_new(const struct run *x)
{
	struct apply_result *r = xcalloc(1, sizeof(*r));
	const struct plan *p = x->ap.plan;

	r->apply_id = agent_apply_plan_id_new();
	r->plan_dir = xstrdup(x->o->dir);
	r->plan_digest = xstrdup(x->ap.digest);
	r->cluster = xstrdup(p->cluster);
	r->revision = p->revision != NULL ? xstrdup(p->revision) : NULL;
	r->approver = xstrdup(x->approval.approved_by);
	r->approver_uid = x->approval.approved_uid;
	r->approved_at = xstrdup(x->approval.approved_at);
	if (x->window_state != NULL) {
		r->window_override = xstrdup(x->override_by);
		r->window_override_uid = x->override_uid;
		r->window_state = xstrdup(x->window_state);
	}
	r->disconnect_consumers = p->disconnect_consumers;
	r->started_at = clock_rfc3339_now();
	if (x->o->fence != NULL)
		r->epoch = x->o->fence->epoch;
	return r;
}

static int
on_intent(void *ctx, const struct apply_result *r, struct err *err)
{
	struct run *x = ctx;
	char *row, *path;
	int rc;

	/* several agents: nothing is written nor sent unless this agent
	 * still owns the cluster (docs/ha.md) */
	if (x->o->fence != NULL &&
	    x->o->fence->check(x->o->fence->ctx, r->cluster, err) < 0)
		return -1;

	/* before the intent row: a preview whose apply has begun is never
	 * superseded by the daemon (its restart resumes the apply) */
	path = xasprintf("%s/%s", x->o->dir, AGENT_APPLY_BEGUN);
	rc = afile_write(path, r->apply_id, strlen(r->apply_id), 0644, err);
	free(path);
	if (rc < 0)
		return -1;
	row = apply_audit_render_intent(r);
	rc = agent_state_audit_append(x->st, row, err);
	free(row);
	return rc;
}

static void
on_progress(void *ctx, const char *node, const struct apply_op *op)
{
	const struct run *x = ctx;

	if (x->o->quiet)
		return;
	fprintf(stderr, "artemis-gitops apply: node '%s': %s '%s': %s%s%s%s\n",
	    node, recon_op_kind_name(op->op.kind), op->op.name,
	    apply_op_state_name(op->state),
	    op->refusal.kind != RECON_OK ? ": " : "",
	    op->refusal.kind != RECON_OK ? recon_kind_name(op->refusal.kind)
	                                 : "",
	    op->established == APPLY_EST_READ_BACK
	        ? " (its reply was lost; established by reading the node back)"
	        : "");
}

/* The result row could not be appended: the operations ran, so the plan
 * must not run again. PLAN_DIR/result.json becomes a marker that holds no
 * result (docs/audit.md), and err says what happened. */
static void
audit_failed(struct run *x, struct err *err)
{
	char *why = err_render(err), *path, *json;
	struct sbuf b = {0};
	struct jsonw w;
	struct err e2 = {0};
	int rc;

	jsonw_init(&w, &b, 2);
	jsonw_obj_begin(&w);
	jsonw_key(&w, "apply_id");
	jsonw_str(&w, x->r->apply_id);
	jsonw_key(&w, "audit");
	jsonw_str(&w, "FAILED");
	jsonw_key(&w, "error");
	jsonw_str(&w, why);
	jsonw_key(&w, "plan_digest");
	jsonw_str(&w, x->r->plan_digest);
	jsonw_obj_end(&w);
	sbuf_adds(&b, "\n");
	json = sbuf_take(&b);
	path = xasprintf("%s/result.json", x->o->dir);
	rc = afile_write(path, json, strlen(json), 0644, &e2);
	err_release(err);
	err_setf(err, NULL,
	    "the plan's operations ran (apply %s, its intent row is in the audit log), but the result row could not be appended: %s; %s; see the brokers with `snapshot`, then plan again",
	    x->r->apply_id, why,
	    rc == 0
	        ? "result.json marks the plan as applied, so it is not applied again"
	        : "result.json could not be written either: do not apply this plan again");
	err_release(&e2);
	free(path);
	free(json);
	free(why);
}

/* What this apply adopts, for its result row (the inventory as it is
 * before the update; unreadable: 0, and the update says why). */
static void
count_adopted(struct run *x)
{
	struct plan_managed m;
	struct err e = {0};

	memset(&m, 0, sizeof(m));
	if (agent_inventory_load(&m, agent_state_dir(x->st),
	        x->ap.plan->cluster, &e) == 0)
		x->r->adopted = apply_count_adopted(&m, x->r, x->decl);
	plan_managed_release(&m);
	err_release(&e);
}

/* Audit row, inventory, result files: in that order, so nothing is
 * reported that the audit log does not hold. -2: the result row could not
 * be appended (nothing else was done). */
static int
record(struct run *x, struct err *err)
{
	const struct plan *p = x->ap.plan;
	char *row, *json, *md, *jp, *mp;
	int rc;

	count_adopted(x);
	x->r->policy_changes = plan_policy_changes(p);
	row = apply_audit_render_result(x->r);
	rc = agent_state_audit_append(x->st, row, err);
	free(row);
	if (rc < 0) {
		audit_failed(x, err);
		return -2;
	}
	rc = agent_inventory_update(x->st, p, x->r, x->decl, err);
	json = apply_result_render_json(x->r);
	md = apply_result_render_md(x->r);
	jp = xasprintf("%s/result.json", x->o->dir);
	mp = xasprintf("%s/result.md", x->o->dir);
	if (afile_write(jp, json, strlen(json), 0644, err) < 0 ||
	    afile_write(mp, md, strlen(md), 0644, err) < 0)
		rc = -1;
	free(json);
	free(md);
	free(jp);
	free(mp);
	return rc;
}

static void
print_summary(const struct apply_result *r)
{
	size_t i;

	for (i = 0; i < r->nnodes; i++)
		printf("%-16s %-11s %s\n", r->nodes[i].node,
		    apply_outcome_name(r->nodes[i].outcome),
		    r->nodes[i].detail != NULL ? r->nodes[i].detail : "");
	printf("%s: result in %s/result.md, audit row %s\n",
	    apply_result_ok(r) ? "applied" : "not applied everywhere",
	    r->plan_dir, r->apply_id);
}

static int
execute(struct run *x, struct err *err)
{
	struct live_http_opts http;
	struct live_nodes live;
	struct live_scope scope;
	struct apply_io io;
	struct agent_fence_io fio;
	int rc;

	memset(&fio, 0, sizeof(fio));
	live_setup(x, &http, &live, &io, &scope);
	if (x->o->fence != NULL)
		agent_fence_io(&fio, &io, x->o->fence, x->ap.plan->cluster);
	io.hook_ctx = x;
	io.intent = on_intent;
	io.progress = on_progress;
	x->r = result_new(x);
	if (x->was != NULL && !x->o->quiet)
		fprintf(stderr,
		    "artemis-gitops apply: resuming the interrupted apply %s of this plan (its intent row has no result row)\n",
		    x->was->apply_id);
	rc = apply_run_resume(x->r, x->ap.plan, x->decl, &io, x->was, err);
	if (x->o->fence != NULL)
		agent_fence_io_release(&fio);
	live_nodes_release(&live);
	live_scope_release(&scope);
	if (rc == 0)
		x->r->finished_at = clock_rfc3339_now();
	return rc;
}

/* May the plan's cluster be changed now (hold.h)? 0, or
 * AGENT_APPLY_ESUSPENDED / AGENT_APPLY_EWINDOW with err; a closed window
 * overridden is recorded for the audit rows. */
static int
check_hold(struct run *x, struct err *err)
{
	const struct agent_apply_plan_opts *o = x->o;
	struct agent_hold h;
	int rc = 0;

	if (agent_hold_check(&h, o->windows, agent_state_dir(x->st),
	        x->ap.plan->cluster, err) < 0)
		return -1;
	if (h.kind == AGENT_HOLD_SUSPENDED) {
		rc = AGENT_APPLY_ESUSPENDED;
		err_setf(err, NULL, "%s", h.text);
	} else if (h.kind == AGENT_HOLD_WINDOW && x->was != NULL) {
		/* the interrupted apply began inside its window: it is
		 * finished rather than left half-done */
	} else if (h.kind == AGENT_HOLD_WINDOW && o->override_by != NULL) {
		x->window_state = xstrdup(h.window);
		x->override_by = xstrdup(o->override_by);
		x->override_uid = (int64_t)getuid();
	} else if (h.kind == AGENT_HOLD_WINDOW && x->approval.override_window) {
		x->window_state = xstrdup(h.window);
		x->override_by = xstrdup(x->approval.approved_by);
		x->override_uid = x->approval.approved_uid;
	} else if (h.kind == AGENT_HOLD_WINDOW) {
		rc = AGENT_APPLY_EWINDOW;
		err_setf(err, NULL, "%s", h.text);
	}
	agent_hold_release(&h);
	return rc;
}

/* Everything before the first operation; -1 (err) refuses the apply. */
static int
prepare(struct run *x, struct err *err)
{
	const struct agent_apply_plan_opts *o = x->o;
	char *cmd;
	int rc;

	if (agent_plan_dir_load(&x->ap, o->dir, err) < 0 ||
	    load_approval(x, err) < 0)
		return -1;
	if (o->st != NULL) {
		x->st = o->st;
	} else {
		cmd = xasprintf("apply %s", o->dir);
		rc = agent_state_open(&x->own_st, o->state, cmd, err);
		free(cmd);
		if (rc < 0)
			return -1;
		x->st = x->own_st;
	}
	if (agent_plan_dir_check_current(&x->ap, agent_state_dir(x->st), err) <
	        0 ||
	    load_targets(x, err) < 0 || find_interrupted(x, err) < 0)
		return -1;
	return check_hold(x, err);
}

int
agent_apply_plan_run(const struct agent_apply_plan_opts *o, struct err *err)
{
	struct run x;
	int code = -1, rc;

	memset(&x, 0, sizeof(x));
	x.o = o;
	rc = prepare(&x, err);
	if (rc < 0) {
		code = rc == AGENT_APPLY_EWINDOW || rc == AGENT_APPLY_ESUSPENDED
		           ? rc
		           : -1;
		goto done;
	}
	if (execute(&x, err) < 0)
		goto done;
	code = apply_result_ok(x.r) ? 0 : 1;
	rc = record(&x, err);
	if (rc < 0)
		code = 1;
	if (rc != -2 && !o->quiet)
		print_summary(x.r);
	if (o->result != NULL) {
		*o->result = x.r;
		x.r = NULL;
	}
done:
	run_release(&x);
	return code;
}

int
agent_apply_plan(const struct agent_apply_plan_opts *o)
{
	struct err err = {0};
	char *msg;
	int code = agent_apply_plan_run(o, &err);

	if (err_is_set(&err)) {
		msg = err_render(&err);
		fprintf(stderr, "artemis-gitops apply: %s%s\n", msg,
		    code == AGENT_APPLY_EWINDOW
		        ? "; nothing was applied (`apply --override-window`, "
		          "or `approve --override-window` for the agent, "
		          "applies it outside the window)"
		    : code == AGENT_APPLY_ESUSPENDED ? "; nothing was applied"
		                                     : "");
		free(msg);
	}
	err_release(&err);
	if (code == AGENT_APPLY_EWINDOW)
		return AGENT_EXIT_WINDOW;
	if (code == AGENT_APPLY_ESUSPENDED)
		return AGENT_EXIT_SUSPENDED;
	return code < 0 ? 1 : code;
}
