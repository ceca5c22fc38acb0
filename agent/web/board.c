/* agent/web/board.c: what the daemon's loop and the web server's threads
 * share (web.h). One mutex guards every member; the server takes copies
 * (web_board_view) and never holds the lock while it reads files or
 * answers a client. Jobs wake the loop through an eventfd. */
#include "web-int.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "../../lib/xalloc.h"

#define WEB_JOBS_KEPT    64 /* finished jobs remembered for GET /jobs/ID */
#define WEB_JOBS_WAITING 16 /* jobs waiting at once (more: 503) */

struct node_entry {
	char *cluster;
	struct web_node_view v;
};

struct owner_entry {
	char *cluster, *owner, *shard;
	int64_t epoch;
	bool here;
};

struct job_slot {
	struct web_job *j;
};

struct web_board {
	pthread_mutex_t mu;
	pthread_cond_t job_cv;
	struct metrics *metrics;
	int efd;
	/* the configuration's copy */
	char *outbox, *state, *conf_path;
	long poll_interval, drift_interval;
	bool conf_loaded, locked;
	struct strv clusters; /* cluster names seen, in first-seen order */
	int64_t fetch_ok_at, cycle_ok_at;
	bool fetch_failed, cycle_failed;
	char *head, *head_summary;
	struct node_entry *nodes;
	size_t nnodes;
	struct owner_entry *owners;
	size_t nowners;
	/* jobs: waiting ones first in, and the last finished ones */
	struct job_slot *jobs;
	size_t njobs;
	uint64_t next_job;
	bool wanted;
};

struct web_board *
web_board_new(void)
{
	struct web_board *b = xcalloc(1, sizeof(*b));

	pthread_mutex_init(&b->mu, NULL);
	pthread_cond_init(&b->job_cv, NULL);
	b->metrics = metrics_new();
	web_metrics_declare(b->metrics);
	b->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	b->next_job = 1;
	return b;
}

static void
node_view_release(struct web_node_view *v)
{
	free(v->node);
	free(v->refusal);
	free(v->member);
	free(v->version);
	memset(v, 0, sizeof(*v));
}

void
web_job_release(struct web_job *j)
{
	if (j == NULL)
		return;
	free(j->cluster);
	free(j->queue);
	free(j->by);
	free(j->preview);
	free(j->message);
	memset(j, 0, sizeof(*j));
}

void
web_board_free(struct web_board *b)
{
	size_t i;

	if (b == NULL)
		return;
	for (i = 0; i < b->nnodes; i++) {
		free(b->nodes[i].cluster);
		node_view_release(&b->nodes[i].v);
	}
	free(b->nodes);
	for (i = 0; i < b->nowners; i++) {
		free(b->owners[i].cluster);
		free(b->owners[i].owner);
		free(b->owners[i].shard);
	}
	free(b->owners);
	for (i = 0; i < b->njobs; i++) {
		web_job_release(b->jobs[i].j);
		free(b->jobs[i].j);
	}
	free(b->jobs);
	strv_release(&b->clusters);
	free(b->outbox);
	free(b->state);
	free(b->conf_path);
	free(b->head);
	free(b->head_summary);
	metrics_free(b->metrics);
	if (b->efd >= 0)
		close(b->efd);
	pthread_cond_destroy(&b->job_cv);
	pthread_mutex_destroy(&b->mu);
	free(b);
}

struct metrics *
web_board_metrics(struct web_board *b)
{
	return b->metrics;
}

static char *
dup_or_null(const char *s)
{
	return s != NULL ? xstrdup(s) : NULL;
}

void
web_board_set_conf(struct web_board *b, const struct agent_conf *conf)
{
	pthread_mutex_lock(&b->mu);
	free(b->outbox);
	free(b->state);
	free(b->conf_path);
	b->outbox = dup_or_null(conf->outbox);
	b->state = dup_or_null(conf->state);
	b->conf_path = dup_or_null(conf->path);
	b->poll_interval = conf->poll_interval;
	b->drift_interval = conf->drift_interval;
	b->conf_loaded = true;
	pthread_mutex_unlock(&b->mu);
}

void
web_board_set_locked(struct web_board *b, bool locked)
{
	pthread_mutex_lock(&b->mu);
	b->locked = locked;
	pthread_mutex_unlock(&b->mu);
}

void
web_board_fetched(struct web_board *b, bool ok, const char *head,
    const char *summary)
{
	pthread_mutex_lock(&b->mu);
	b->fetch_failed = !ok;
	if (ok) {
		b->fetch_ok_at = (int64_t)time(NULL);
		if (head != NULL && head[0] != '\0') {
			free(b->head);
			free(b->head_summary);
			b->head = xstrdup(head);
			b->head_summary = dup_or_null(summary);
		}
	}
	pthread_mutex_unlock(&b->mu);
}

void
web_board_cycled(struct web_board *b, bool ok)
{
	pthread_mutex_lock(&b->mu);
	b->cycle_failed = !ok;
	if (ok)
		b->cycle_ok_at = (int64_t)time(NULL);
	pthread_mutex_unlock(&b->mu);
}

void
web_board_node_read(struct web_board *b, const struct web_node_read *r)
{
	struct node_entry *e = NULL;
	size_t i;

	pthread_mutex_lock(&b->mu);
	if (!strv_has(&b->clusters, r->cluster))
		strv_add(&b->clusters, r->cluster);
	for (i = 0; i < b->nnodes; i++)
		if (strcmp(b->nodes[i].cluster, r->cluster) == 0 &&
		    strcmp(b->nodes[i].v.node, r->node) == 0)
			e = &b->nodes[i];
	if (e == NULL) {
		b->nodes =
		    xreallocarray(b->nodes, b->nnodes + 1, sizeof(*b->nodes));
		e = &b->nodes[b->nnodes++];
		memset(e, 0, sizeof(*e));
		e->cluster = xstrdup(r->cluster);
	}
	node_view_release(&e->v);
	e->v.node = xstrdup(r->node);
	e->v.refusal = dup_or_null(r->refusal);
	e->v.member = dup_or_null(r->member);
	e->v.version = dup_or_null(r->version);
	e->v.up = r->up;
	e->v.read = true;
	e->v.read_at = (int64_t)time(NULL);
	e->v.seconds = r->seconds;
	pthread_mutex_unlock(&b->mu);
}

void
web_board_owner(struct web_board *b, const char *cluster, const char *owner,
    int64_t epoch, const char *shard, bool here)
{
	struct owner_entry *e = NULL;
	size_t i;

	pthread_mutex_lock(&b->mu);
	if (!strv_has(&b->clusters, cluster))
		strv_add(&b->clusters, cluster);
	for (i = 0; i < b->nowners; i++)
		if (strcmp(b->owners[i].cluster, cluster) == 0)
			e = &b->owners[i];
	if (e == NULL) {
		b->owners = xreallocarray(b->owners, b->nowners + 1,
		    sizeof(*b->owners));
		e = &b->owners[b->nowners++];
		memset(e, 0, sizeof(*e));
		e->cluster = xstrdup(cluster);
	}
	free(e->owner);
	free(e->shard);
	e->owner = dup_or_null(owner);
	e->shard = dup_or_null(shard);
	e->epoch = epoch;
	e->here = here;
	pthread_mutex_unlock(&b->mu);
}

void
web_board_view(struct web_board *b, struct web_view *out)
{
	struct web_cluster_view *cv;
	struct web_node_view *nv;
	size_t i, j;

	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&b->mu);
	out->outbox = dup_or_null(b->outbox);
	out->state = dup_or_null(b->state);
	out->conf_path = dup_or_null(b->conf_path);
	out->poll_interval = b->poll_interval;
	out->drift_interval = b->drift_interval;
	out->conf_loaded = b->conf_loaded;
	out->locked = b->locked;
	out->fetch_ok_at = b->fetch_ok_at;
	out->cycle_ok_at = b->cycle_ok_at;
	out->fetch_failed = b->fetch_failed;
	out->cycle_failed = b->cycle_failed;
	out->head = dup_or_null(b->head);
	out->head_summary = dup_or_null(b->head_summary);
	out->clusters = xcalloc(b->clusters.n + 1, sizeof(*out->clusters));
	out->nclusters = b->clusters.n;
	for (i = 0; i < b->clusters.n; i++) {
		cv = &out->clusters[i];
		cv->name = xstrdup(b->clusters.v[i]);
		for (j = 0; j < b->nnodes; j++) {
			if (strcmp(b->nodes[j].cluster, cv->name) != 0)
				continue;
			cv->nodes = xreallocarray(cv->nodes, cv->nnodes + 1,
			    sizeof(*cv->nodes));
			nv = &cv->nodes[cv->nnodes++];
			*nv = b->nodes[j].v;
			nv->node = xstrdup(b->nodes[j].v.node);
			nv->refusal = dup_or_null(b->nodes[j].v.refusal);
			nv->member = dup_or_null(b->nodes[j].v.member);
			nv->version = dup_or_null(b->nodes[j].v.version);
		}
		for (j = 0; j < b->nowners; j++) {
			if (strcmp(b->owners[j].cluster, cv->name) != 0)
				continue;
			cv->coordinated = true;
			cv->here = b->owners[j].here;
			cv->owner = dup_or_null(b->owners[j].owner);
			cv->shard = dup_or_null(b->owners[j].shard);
			cv->epoch = b->owners[j].epoch;
		}
	}
	pthread_mutex_unlock(&b->mu);
}

void
web_view_release(struct web_view *v)
{
	size_t i, j;

	for (i = 0; i < v->nclusters; i++) {
		for (j = 0; j < v->clusters[i].nnodes; j++)
			node_view_release(&v->clusters[i].nodes[j]);
		free(v->clusters[i].nodes);
		free(v->clusters[i].name);
		free(v->clusters[i].owner);
		free(v->clusters[i].shard);
	}
	free(v->clusters);
	free(v->outbox);
	free(v->state);
	free(v->conf_path);
	free(v->head);
	free(v->head_summary);
	memset(v, 0, sizeof(*v));
}

/* ---- jobs ---------------------------------------------------------------- */

int
web_board_job_fd(const struct web_board *b)
{
	return b->efd;
}

static void
kick(struct web_board *b)
{
	uint64_t one = 1;

	if (b->efd >= 0 && write(b->efd, &one, sizeof(one)) < 0 &&
	    errno != EAGAIN) {
		/* the counter is full: it is readable anyway */
	}
}

static void
drain(struct web_board *b)
{
	uint64_t v;

	if (b->efd >= 0 && read(b->efd, &v, sizeof(v)) < 0) {
		/* EAGAIN: nothing pending */
	}
}

void
web_board_wake(struct web_board *b)
{
	pthread_mutex_lock(&b->mu);
	b->wanted = true;
	kick(b);
	pthread_mutex_unlock(&b->mu);
}

bool
web_board_wanted(struct web_board *b)
{
	bool w;

	pthread_mutex_lock(&b->mu);
	w = b->wanted;
	b->wanted = false;
	pthread_mutex_unlock(&b->mu);
	return w;
}

static void
job_copy(struct web_job *dst, const struct web_job *src)
{
	memset(dst, 0, sizeof(*dst));
	dst->id = src->id;
	dst->cluster = dup_or_null(src->cluster);
	dst->queue = dup_or_null(src->queue);
	dst->by = dup_or_null(src->by);
	dst->disconnect_consumers = src->disconnect_consumers;
	dst->done = src->done;
	dst->status = src->status;
	dst->preview = dup_or_null(src->preview);
	dst->message = dup_or_null(src->message);
}

/* Forget the oldest finished jobs beyond WEB_JOBS_KEPT. */
static void
trim_jobs(struct web_board *b)
{
	size_t i, done = 0;

	for (i = 0; i < b->njobs; i++)
		done += b->jobs[i].j->done;
	for (i = 0; i < b->njobs && done > WEB_JOBS_KEPT;) {
		if (!b->jobs[i].j->done) {
			i++;
			continue;
		}
		web_job_release(b->jobs[i].j);
		free(b->jobs[i].j);
		memmove(&b->jobs[i], &b->jobs[i + 1],
		    (b->njobs - i - 1) * sizeof(*b->jobs));
		b->njobs--;
		done--;
	}
}

static struct web_job *
find_job(struct web_board *b, uint64_t id)
{
	size_t i;

	for (i = 0; i < b->njobs; i++)
		if (b->jobs[i].j->id == id)
			return b->jobs[i].j;
	return NULL;
}

bool
web_board_job_post(struct web_board *b, struct web_job *j, int wait_ms,
    struct web_job *out)
{
	struct web_job *mine = xcalloc(1, sizeof(*mine));
	struct timespec until;
	size_t i, waiting = 0;
	uint64_t id;
	bool done;

	*mine = *j;
	memset(j, 0, sizeof(*j));
	memset(out, 0, sizeof(*out));
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += wait_ms / 1000;
	until.tv_nsec += (long)(wait_ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&b->mu);
	for (i = 0; i < b->njobs; i++)
		waiting += !b->jobs[i].j->done;
	if (waiting >= WEB_JOBS_WAITING) {
		pthread_mutex_unlock(&b->mu);
		mine->done = true;
		mine->status = 503;
		mine->message = xstrdup("too many jobs are waiting for the "
		                        "daemon; try again in a minute");
		*out = *mine;
		free(mine);
		return true;
	}
	mine->id = id = b->next_job++;
	mine->done = false;
	b->jobs = xreallocarray(b->jobs, b->njobs + 1, sizeof(*b->jobs));
	b->jobs[b->njobs++].j = mine;
	kick(b);
	for (;;) {
		mine = find_job(b, id);
		if (mine == NULL || mine->done)
			break;
		if (pthread_cond_timedwait(&b->job_cv, &b->mu, &until) ==
		    ETIMEDOUT)
			break;
	}
	mine = find_job(b, id);
	done = mine != NULL && mine->done;
	if (mine != NULL)
		job_copy(out, mine);
	else
		out->id = id;
	pthread_mutex_unlock(&b->mu);
	return done;
}

bool
web_board_job_get(struct web_board *b, uint64_t id, struct web_job *out)
{
	struct web_job *j;

	pthread_mutex_lock(&b->mu);
	j = find_job(b, id);
	if (j != NULL)
		job_copy(out, j);
	pthread_mutex_unlock(&b->mu);
	return j != NULL;
}

struct web_job *
web_board_job_take(struct web_board *b)
{
	struct web_job *j = NULL;
	size_t i;

	pthread_mutex_lock(&b->mu);
	drain(b);
	for (i = 0; i < b->njobs; i++) {
		if (!b->jobs[i].j->done && b->jobs[i].j->status == 0) {
			j = b->jobs[i].j;
			j->status = -1; /* taken */
			break;
		}
	}
	pthread_mutex_unlock(&b->mu);
	return j;
}

void
web_board_job_done(struct web_board *b, struct web_job *j, int status,
    const char *preview, const char *message)
{
	pthread_mutex_lock(&b->mu);
	j->done = true;
	j->status = status;
	free(j->preview);
	free(j->message);
	j->preview = dup_or_null(preview);
	j->message = dup_or_null(message);
	trim_jobs(b);
	pthread_cond_broadcast(&b->job_cv);
	pthread_mutex_unlock(&b->mu);
}
