/* agent/web/web-model.c: the outbox and the state folder as the API and
 * the page show them (web-int.h "model.c"): previews and their state, a
 * preview's files, a cluster's applied revision, the audit log paged.
 *
 * Everything is read from the files the daemon writes, each replaced
 * atomically, so a reader sees a whole old or a whole new file. Ids and
 * cluster names reach a path only after web_id_ok, and the folders of a
 * path below the outbox are refused when they are symbolic links.
 *
 * A preview's plan.json is parsed and checked (agent_plan_dir_load) once
 * per version of the file: what the list shows of it (outcome, summary,
 * confirmation) is kept in a small cache keyed by the folder and the
 * file's inode, size and modification time, so that a page or a scrape
 * over a large outbox does not parse every plan again. */
#include "web-int.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../../lib/afile.h"
#include "../../lib/json.h"
#include "../../lib/xalloc.h"
#include "../../reconcile/apply/apply.h"
#include "../inventory.h"
#include "../outbox.h"
#include "../plan-dir.h"
#include "../state.h"
#include "../suspend.h"

#define WEB_ID_MAX        128            /* bytes of an id or a cluster name */
#define WEB_SMALL_MAX     ((size_t)4096) /* bytes of commit.txt, ... */
#define WEB_MODEL_CACHE_N 4096           /* plans whose summary is kept */
#define WEB_MODEL_PROBE   8 /* slots a plan may take, from its hash's */

static const char *const state_names[WEB_PREVIEW_STATES] = {
    [WEB_PENDING] = "pending",
    [WEB_APPROVED] = "approved",
    [WEB_APPLIED] = "applied",
    [WEB_REFUSED] = "refused",
    [WEB_SUPERSEDED] = "superseded",
    [WEB_NOTHING] = "nothing",
};

const char *
web_preview_state_name(enum web_preview_state s)
{
	if ((unsigned)s >= WEB_PREVIEW_STATES)
		return "unknown";
	return state_names[s];
}

static bool
id_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

bool
web_id_ok(const char *id)
{
	size_t n;

	if (id == NULL || id[0] == '\0' || id[0] == '.')
		return false;
	for (n = 0; id[n] != '\0'; n++)
		if (n >= WEB_ID_MAX || !id_char(id[n]))
			return false;
	return strstr(id, "..") == NULL;
}

void
web_preview_release(struct web_preview *p)
{
	if (p == NULL)
		return;
	free(p->cluster);
	free(p->id);
	free(p->dir);
	free(p->commit);
	free(p->created);
	free(p->outcome);
	free(p->summary);
	free(p->confirmation);
	free(p->refused_why);
	free(p->result);
	free(p->approved_by);
	free(p->waiting);
	memset(p, 0, sizeof(*p));
}

void
web_model_previews_free(struct web_preview *v, size_t n)
{
	size_t i;

	if (v == NULL)
		return;
	for (i = 0; i < n; i++)
		web_preview_release(&v[i]);
	free(v);
}

/* ---- the plan cache -------------------------------------------------- */

/* What the model shows of one version of a plan.json. */
struct plan_info {
	char *dir; /* the key: the plan folder */
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	bool loaded;        /* agent_plan_dir_load succeeded */
	bool approvable;    /* plan_approvable */
	bool no_change;     /* NO_CHANGE (and not approvable) */
	char *outcome;      /* "WOULD_APPLY", ...; NULL when not loaded */
	char *summary;      /* the summary line, or the load error */
	char *confirmation; /* when approvable */
	char *created;      /* the snapshot's time, or NULL */
	char *refused_why;  /* a refused plan's refusal and message */
};

/* A plan's folder has WEB_MODEL_PROBE slots from its hash's on: a look-up
 * compares at most that many, whatever the outbox holds. */
static struct {
	pthread_mutex_t mu;
	struct plan_info v[WEB_MODEL_CACHE_N];
	size_t next; /* which of a full window's slots is replaced next */
} cache = {.mu = PTHREAD_MUTEX_INITIALIZER};

static size_t
slot_of(const char *dir)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */

	for (; *dir != '\0'; dir++)
		h = (h ^ (unsigned char)*dir) * 1099511628211ULL;
	return (size_t)(h % WEB_MODEL_CACHE_N);
}

static void
info_release(struct plan_info *pi)
{
	free(pi->dir);
	free(pi->outcome);
	free(pi->summary);
	free(pi->confirmation);
	free(pi->created);
	free(pi->refused_why);
	memset(pi, 0, sizeof(*pi));
}

static char *
dup_or_null(const char *s)
{
	return s != NULL ? xstrdup(s) : NULL;
}

static void
info_copy(struct plan_info *to, const struct plan_info *from)
{
	*to = *from;
	to->dir = dup_or_null(from->dir);
	to->outcome = dup_or_null(from->outcome);
	to->summary = dup_or_null(from->summary);
	to->confirmation = dup_or_null(from->confirmation);
	to->created = dup_or_null(from->created);
	to->refused_why = dup_or_null(from->refused_why);
}

static bool
info_matches(const struct plan_info *pi, const char *dir, const struct stat *st)
{
	return pi->dir != NULL && strcmp(pi->dir, dir) == 0 &&
	       pi->dev == st->st_dev && pi->ino == st->st_ino &&
	       pi->size == st->st_size &&
	       pi->mtime.tv_sec == st->st_mtim.tv_sec &&
	       pi->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

/* Load dir's plan into pi (not cached). */
static void
info_load(struct plan_info *pi, const char *dir, const struct stat *st)
{
	struct agent_plan_dir ap;
	struct err err = {0};
	const struct plan *p;

	memset(pi, 0, sizeof(*pi));
	pi->dir = xstrdup(dir);
	pi->dev = st->st_dev;
	pi->ino = st->st_ino;
	pi->size = st->st_size;
	pi->mtime = st->st_mtim;
	memset(&ap, 0, sizeof(ap));
	if (agent_plan_dir_load(&ap, dir, &err) < 0) {
		pi->summary = err_render(&err);
		pi->refused_why = xstrdup(pi->summary);
		err_release(&err);
		return;
	}
	p = ap.plan;
	pi->loaded = true;
	pi->approvable = plan_approvable(p);
	pi->no_change = !pi->approvable && p->outcome == PLAN_OUT_NO_CHANGE;
	pi->outcome = xstrdup(plan_outcome_name(p->outcome));
	pi->summary = plan_summary_line(p);
	if (pi->approvable)
		pi->confirmation = plan_confirmation(p);
	pi->created = dup_or_null(p->snapshot_taken_at);
	if (!pi->approvable && !pi->no_change)
		pi->refused_why = xasprintf("%s: %s",
		    p->refusal != NULL ? p->refusal
		                       : plan_outcome_name(p->outcome),
		    p->message != NULL ? p->message : "no detail");
	agent_plan_dir_release(&ap);
}

/* What dir's plan.json (whose stat is st) shows, into *out (owned). */
static void
plan_info_get(struct plan_info *out, const char *dir, const struct stat *st)
{
	struct plan_info fresh;
	size_t i, k, at = slot_of(dir), slot = WEB_MODEL_CACHE_N;

	pthread_mutex_lock(&cache.mu);
	for (i = 0; i < WEB_MODEL_PROBE; i++) {
		k = (at + i) % WEB_MODEL_CACHE_N;
		if (info_matches(&cache.v[k], dir, st)) {
			info_copy(out, &cache.v[k]);
			pthread_mutex_unlock(&cache.mu);
			return;
		}
	}
	pthread_mutex_unlock(&cache.mu);
	/* loaded outside the lock: two readers may load the same plan */
	info_load(&fresh, dir, st);
	info_copy(out, &fresh);
	pthread_mutex_lock(&cache.mu);
	/* its old version's slot, else a free one, else one in turn */
	for (i = 0; i < WEB_MODEL_PROBE && slot == WEB_MODEL_CACHE_N; i++) {
		k = (at + i) % WEB_MODEL_CACHE_N;
		if (cache.v[k].dir != NULL && strcmp(cache.v[k].dir, dir) == 0)
			slot = k;
	}
	for (i = 0; i < WEB_MODEL_PROBE && slot == WEB_MODEL_CACHE_N; i++) {
		k = (at + i) % WEB_MODEL_CACHE_N;
		if (cache.v[k].dir == NULL)
			slot = k;
	}
	if (slot == WEB_MODEL_CACHE_N) {
		slot = (at + cache.next) % WEB_MODEL_CACHE_N;
		cache.next = (cache.next + 1) % WEB_MODEL_PROBE;
	}
	info_release(&cache.v[slot]);
	cache.v[slot] = fresh;
	pthread_mutex_unlock(&cache.mu);
}

/* ---- a preview ------------------------------------------------------- */

/* Is path a folder itself (not a symbolic link to one)? */
static bool
is_dir(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* DIR/name's text when it is a small regular file, else NULL. */
static char *
small_file(const char *dir, const char *name)
{
	struct err err = {0};
	struct stat st;
	char *path = xasprintf("%s/%s", dir, name), *text = NULL;

	if (afile_read_nofollow(&text, NULL, &st, path, WEB_SMALL_MAX, &err) <
	    0) {
		err_release(&err);
		text = NULL;
	}
	free(path);
	return text;
}

/* Is cluster suspended (STATE/<cluster>/suspended.json; one that cannot
 * be read counts, as it holds the cluster)? */
static bool
suspended(const struct web_view *v, const char *cluster)
{
	struct agent_suspension s;
	struct err err = {0};
	int rc;

	if (v->state == NULL)
		return false;
	memset(&s, 0, sizeof(s));
	rc = agent_suspend_read(&s, v->state, cluster, &err);
	if (rc < 0)
		err_release(&err);
	if (rc > 0)
		agent_suspension_release(&s);
	return rc != 0;
}

/* s cut at its first line break (trailing white space too). */
static char *
first_line(char *s)
{
	size_t n;

	if (s == NULL)
		return NULL;
	n = strcspn(s, "\r\n");
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	s[n] = '\0';
	return s;
}

/* The commit a preview came from: commit.txt's `commit SHA` line (its
 * first line when it has none), else request.txt's (an operator's
 * delete-queue from the web); NULL when neither says. */
static char *
commit_of(const char *dir)
{
	static const char *const files[] = {AGENT_OUTBOX_COMMIT,
	    AGENT_OUTBOX_REQUEST};
	char *text, *line, *r = NULL;
	size_t i;

	for (i = 0; i < 2 && r == NULL; i++) {
		text = small_file(dir, files[i]);
		if (text == NULL)
			continue;
		line = strncmp(text, "commit ", 7) == 0
		           ? text
		           : strstr(text, "\ncommit ");
		if (line != NULL)
			r = xstrdup(first_line(line + (line == text ? 7 : 8)));
		else if (i == 0)
			r = xstrdup(first_line(text));
		free(text);
	}
	if (r != NULL && r[0] == '\0') {
		free(r);
		r = NULL;
	}
	return r;
}

/* result.json's `result`, or NULL. */
static char *
result_of(const char *dir)
{
	struct err err = {0};
	struct stat st;
	struct json_doc *doc = NULL;
	char *path = xasprintf("%s/%s", dir, AGENT_OUTBOX_RESULT);
	char *text = NULL, *r = NULL;
	size_t len = 0;
	const char *s;

	if (afile_read_nofollow(&text, &len, &st, path, AGENT_PLAN_DIR_MAX,
	        &err) == 0 &&
	    json_parse(&doc, path, text, len, &err) == 0) {
		s = json_str(json_get(json_doc_root(doc), "result"));
		r = dup_or_null(s);
	}
	json_doc_free(doc);
	err_release(&err);
	free(text);
	free(path);
	return r;
}

/* approval.json's approved_by, or NULL. */
static char *
approver_of(const char *dir)
{
	struct err err = {0};
	struct stat st;
	struct apply_approval a;
	char *path = xasprintf("%s/%s", dir, AGENT_OUTBOX_APPROVAL);
	char *text = NULL, *r = NULL;
	size_t len = 0;

	memset(&a, 0, sizeof(a));
	if (afile_read_nofollow(&text, &len, &st, path, WEB_SMALL_MAX * 4,
	        &err) == 0 &&
	    apply_approval_parse(&a, path, text, len, &err) == 0) {
		r = a.approved_by;
		a.approved_by = NULL;
	}
	apply_approval_release(&a);
	err_release(&err);
	free(text);
	free(path);
	return r;
}

/* Fill out for OUTBOX/cluster/id: 1 when it is not a preview. */
static int
preview_fill(const struct web_view *v, const char *cluster, const char *id,
    struct web_preview *out)
{
	struct plan_info pi;
	struct stat st;
	char *cdir, *dir, *pj;
	bool ok;

	memset(out, 0, sizeof(*out));
	if (v->outbox == NULL || !web_id_ok(cluster) || !web_id_ok(id) ||
	    strcmp(id, AGENT_OUTBOX_DRIFT) == 0)
		return 1;
	cdir = xasprintf("%s/%s", v->outbox, cluster);
	dir = xasprintf("%s/%s", cdir, id);
	pj = xasprintf("%s/%s", dir, AGENT_OUTBOX_PLAN);
	ok = is_dir(cdir) && is_dir(dir) && lstat(pj, &st) == 0 &&
	     S_ISREG(st.st_mode);
	free(pj);
	free(cdir);
	if (!ok) {
		free(dir);
		return 1;
	}
	out->cluster = xstrdup(cluster);
	out->id = xstrdup(id);
	out->dir = dir;
	plan_info_get(&pi, dir, &st);
	out->outcome = pi.outcome;
	out->summary = pi.summary;
	out->created = pi.created;
	pi.outcome = pi.summary = pi.created = NULL;
	out->commit = commit_of(dir);
	out->approved_by = approver_of(dir);
	if (agent_outbox_has(dir, AGENT_OUTBOX_SUPERSEDED)) {
		out->state = WEB_SUPERSEDED;
	} else if (agent_outbox_has(dir, AGENT_OUTBOX_RESULT)) {
		out->state = WEB_APPLIED;
		out->result = result_of(dir);
	} else if (agent_outbox_has(dir, AGENT_OUTBOX_REFUSED)) {
		out->state = WEB_REFUSED;
		out->refused_why = small_file(dir, AGENT_OUTBOX_REFUSED);
		if (out->refused_why == NULL)
			out->refused_why = xstrdup("the approval was refused");
	} else if (agent_outbox_has(dir, AGENT_OUTBOX_APPROVAL)) {
		out->state = WEB_APPROVED;
	} else if (pi.approvable) {
		out->state = WEB_PENDING;
		out->confirmation = pi.confirmation;
		pi.confirmation = NULL;
	} else if (pi.no_change) {
		out->state = WEB_NOTHING;
	} else {
		out->state = WEB_REFUSED;
		out->refused_why = pi.refused_why;
		pi.refused_why = NULL;
	}
	if (out->state == WEB_APPROVED)
		out->waiting = small_file(dir, AGENT_OUTBOX_WAITING);
	if (out->waiting == NULL &&
	    (out->state == WEB_APPROVED || out->state == WEB_PENDING))
		out->waiting = web_model_hold(v, cluster);
	if (out->state == WEB_PENDING && out->waiting != NULL)
		out->window_closed = !suspended(v, cluster);
	info_release(&pi);
	return 0;
}

char *
web_model_hold(const struct web_view *v, const char *cluster)
{
	char *dir, *text;

	if (!web_id_ok(cluster))
		return NULL;
	dir = xasprintf("%s/%s", v->outbox, cluster);
	text = small_file(dir, AGENT_OUTBOX_HOLD);
	free(dir);
	return text;
}

int
web_model_preview(const struct web_view *v, const char *cluster, const char *id,
    struct web_preview *out, struct err *err)
{
	(void)err;
	return preview_fill(v, cluster, id, out);
}

struct pv_ref {
	char *cluster, *id;
};

/* Newest first: ids start with their UTC time. */
static int
cmp_ref(const void *a, const void *b)
{
	const struct pv_ref *x = a, *y = b;
	int c = strcmp(y->id, x->id);

	return c != 0 ? c : strcmp(x->cluster, y->cluster);
}

int
web_model_previews(const struct web_view *v, const char *cluster, size_t max,
    struct web_preview **out, size_t *nout, struct err *err)
{
	char **clusters = NULL, **ids = NULL;
	size_t nc = 0, ni = 0, i, j, n = 0, cap = 0, nv = 0;
	struct pv_ref *refs = NULL;
	struct web_preview *pv = NULL;
	int rc = 0;

	*out = NULL;
	*nout = 0;
	if (v->outbox == NULL)
		return 0;
	if (cluster != NULL) {
		if (!web_id_ok(cluster))
			return 0;
		clusters = xcalloc(1, sizeof(*clusters));
		clusters[0] = xstrdup(cluster);
		nc = 1;
	} else if (agent_outbox_clusters(&clusters, &nc, v->outbox, err) < 0) {
		return -1;
	}
	for (i = 0; i < nc && rc == 0; i++) {
		if (!web_id_ok(clusters[i]))
			continue;
		if (agent_outbox_plans(&ids, &ni, v->outbox, clusters[i], err) <
		    0) {
			rc = -1;
			break;
		}
		for (j = 0; j < ni; j++) {
			if (!web_id_ok(ids[j]))
				continue;
			xgrow(&refs, &cap, n + 1, sizeof(*refs));
			refs[n].cluster = clusters[i];
			refs[n].id = ids[j];
			ids[j] = NULL;
			n++;
		}
		agent_outbox_list_free(ids, ni);
		ids = NULL;
	}
	if (rc == 0 && n > 0) {
		qsort(refs, n, sizeof(*refs), cmp_ref);
		pv = xcalloc(n < max ? n : max, sizeof(*pv));
		for (i = 0; i < n && nv < max; i++)
			if (preview_fill(v, refs[i].cluster, refs[i].id,
			        &pv[nv]) == 0)
				nv++;
	}
	for (i = 0; i < n; i++)
		free(refs[i].id);
	free(refs);
	agent_outbox_list_free(clusters, nc);
	if (rc < 0) {
		web_model_previews_free(pv, nv);
		return -1;
	}
	if (nv == 0) {
		free(pv);
		pv = NULL;
	}
	*out = pv;
	*nout = nv;
	return 0;
}

/* ---- files ----------------------------------------------------------- */

static const char *const preview_files[] = {
    AGENT_OUTBOX_PLAN,
    AGENT_OUTBOX_PLAN_MD,
    AGENT_OUTBOX_RESULT,
    AGENT_OUTBOX_RESULT_MD,
    AGENT_OUTBOX_REFUSED,
    AGENT_OUTBOX_APPROVAL,
    AGENT_OUTBOX_COMMIT,
    AGENT_OUTBOX_REQUEST,
    AGENT_OUTBOX_WAITING,
    NULL,
};
static const char *const drift_files[] = {
    AGENT_OUTBOX_DRIFT_JSON,
    AGENT_OUTBOX_DRIFT_MD,
    NULL,
};

static bool
listed(const char *const *list, const char *name)
{
	size_t i;

	for (i = 0; list[i] != NULL; i++)
		if (strcmp(list[i], name) == 0)
			return true;
	return false;
}

int
web_model_file(const struct web_view *v, const char *cluster, const char *id,
    const char *name, char **out, size_t *len, struct err *err)
{
	bool drift = id != NULL && strcmp(id, AGENT_OUTBOX_DRIFT) == 0;
	char *cdir, *dir, *path;
	struct stat st;
	int rc;

	*out = NULL;
	if (len != NULL)
		*len = 0;
	if (v->outbox == NULL || !web_id_ok(cluster) || !web_id_ok(id) ||
	    name == NULL || !listed(drift ? drift_files : preview_files, name))
		return 1;
	cdir = xasprintf("%s/%s", v->outbox, cluster);
	dir = xasprintf("%s/%s", cdir, id);
	path = xasprintf("%s/%s", dir, name);
	if (!is_dir(cdir) || !is_dir(dir) ||
	    (lstat(path, &st) < 0 && errno == ENOENT))
		rc = 1;
	else
		rc = afile_read_nofollow(out, len, &st, path,
		    AGENT_PLAN_DIR_MAX, err);
	free(path);
	free(dir);
	free(cdir);
	return rc;
}

/* ---- the state folder ------------------------------------------------ */

char *
web_model_applied(const struct web_view *v, const char *cluster,
    char **applied_at)
{
	struct plan_managed m;
	struct err err = {0};
	struct stat st;
	struct tm tm;
	char stamp[32], *path, *rev = NULL;

	if (applied_at != NULL)
		*applied_at = NULL;
	if (v->state == NULL || !web_id_ok(cluster))
		return NULL;
	memset(&m, 0, sizeof(m));
	if (agent_inventory_load(&m, v->state, cluster, &err) < 0) {
		err_release(&err);
		return NULL;
	}
	if (m.known && m.revision != NULL)
		rev = xstrdup(m.revision);
	plan_managed_release(&m);
	path = xasprintf("%s/%s/%s", v->state, cluster, AGENT_INVENTORY_FILE);
	if (rev != NULL && applied_at != NULL && stat(path, &st) == 0 &&
	    gmtime_r(&st.st_mtim.tv_sec, &tm) != NULL &&
	    strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm) > 0)
		*applied_at = xstrdup(stamp);
	free(path);
	return rev;
}

/* Two passes over the log: count the rows, then keep those of the page
 * (memory: `limit` rows, whatever the offset). Rows appended between the
 * passes come after the counted ones and are left out. */
struct audit_ctx {
	size_t seen;
	size_t lo, hi; /* the page: rows [lo, hi) in file order */
	char **keep;
	size_t nkeep;
};

static int
audit_count(void *ctx, const char *row, size_t len)
{
	struct audit_ctx *a = ctx;

	(void)row;
	(void)len;
	a->seen++;
	return 0;
}

static int
audit_keep(void *ctx, const char *row, size_t len)
{
	struct audit_ctx *a = ctx;

	(void)len;
	if (a->seen >= a->lo && a->seen < a->hi)
		a->keep[a->nkeep++] = xstrdup(row);
	a->seen++;
	return a->seen >= a->hi;
}

int
web_model_audit(const struct web_view *v, size_t offset, size_t limit,
    struct strv *rows, size_t *total, struct err *err)
{
	struct audit_ctx a;
	size_t i;
	int rc;

	*total = 0;
	if (v->state == NULL)
		return 0;
	memset(&a, 0, sizeof(a));
	if (agent_state_audit_each_dir(v->state, audit_count, &a, err) < 0)
		return -1;
	*total = a.seen;
	if (offset >= a.seen || limit == 0)
		return 0;
	a.hi = a.seen - offset;
	a.lo = a.hi > limit ? a.hi - limit : 0;
	a.keep = xcalloc(a.hi - a.lo, sizeof(*a.keep));
	a.seen = 0;
	rc = agent_state_audit_each_dir(v->state, audit_keep, &a, err);
	for (i = a.nkeep; i > 0; i--)
		if (rc == 0)
			strv_add(rows, a.keep[i - 1]);
	for (i = 0; i < a.nkeep; i++)
		free(a.keep[i]);
	free(a.keep);
	return rc;
}
