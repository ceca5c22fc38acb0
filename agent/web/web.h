/* agent/web/web.h: the daemon's HTTP server (docs/http-api.md,
 * docs/daemon.md "The web server"): the status page, the JSON API under
 * /api/v1/, /metrics, /healthz and /readyz.
 *
 * The server runs in libmicrohttpd's own threads (one per connection,
 * bounded): a slow or stalled client holds a thread of its own, never the
 * daemon's loop. It shares nothing with the loop but a struct web_board,
 * whose every member is behind one mutex: the daemon posts what it knows
 * (readiness, each node's last read, the branch head, metrics) and takes
 * the jobs only it may run (an operator's delete-queue preview, which
 * reads brokers and the repository); the server reads the outbox and the
 * state folder's files, which are always replaced atomically, and writes
 * one file of its own, an approval.json (agent/web/approve.c).
 */
#ifndef AGENT_WEB_WEB_H
#define AGENT_WEB_WEB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../lib/err.h"
#include "../../lib/metrics.h"
#include "../conf.h"

/* ---- the board: what the daemon and the server share (board.c) -------- */

struct web_board; /* opaque, thread-safe */

/* A board with every metric family declared (metrics.c's table). */
struct web_board *web_board_new(void);
void web_board_free(struct web_board *b); /* NULL is a no-op */

/* The registry (thread-safe itself): record with metrics_add & co. and the
 * names of docs/http-api.md "Metrics". Borrowed. */
struct metrics *web_board_metrics(struct web_board *b);

/* The configuration the server reads by: outbox, state folder, cluster
 * names, intervals. Copied (the daemon frees its own on reload). */
void web_board_set_conf(struct web_board *b, const struct agent_conf *conf);
/* The state folder's lock is held (true) or was given up. */
void web_board_set_locked(struct web_board *b, bool locked);
/* A fetch of the branch ended: ok, and its head when ok. */
void web_board_fetched(struct web_board *b, bool ok, const char *head,
    const char *summary);
/* A cycle ended: ok when every step worked. */
void web_board_cycled(struct web_board *b, bool ok);

/* One node's last read, as the page and /api/v1/clusters show it. */
struct web_node_read {
	const char *cluster, *node;
	bool up;             /* read and usable (live, or a passive pair) */
	const char *refusal; /* NULL when up; else its refusal kind's name */
	const char *member;  /* an HA node's live member, or NULL */
	const char *version; /* the broker's release, or NULL */
	double seconds;      /* how long the read took */
};
void web_board_node_read(struct web_board *b, const struct web_node_read *r);
/* Several agents (docs/ha.md): who owns cluster now (owner NULL: no
 * agent), under which epoch (0 unless here: this agent), and the shard
 * mode; the page and the API show it. */
void web_board_owner(struct web_board *b, const char *cluster,
    const char *owner, int64_t epoch, const char *shard, bool here);

/* ---- jobs the server asks the daemon to run (board.c) ----------------- */

/* An operator's out-of-band delete of one queue (ADR-0084), posted through
 * the API or the page: the daemon plans it (delete-queue's preflight) into
 * a preview of the outbox, approved like any other. */
struct web_job {
	uint64_t id;
	char *cluster, *queue;
	bool disconnect_consumers;
	char *by; /* the token's name */
	/* filled in by the daemon */
	bool done;
	int status; /* an HTTP status: 201 posted, 200 nothing to do, 4xx, 5xx
	             */
	char *preview; /* the preview's id (its folder's name), or NULL */
	char *message; /* what happened, one line */
};

/* A descriptor that is readable while jobs wait (an eventfd): the daemon
 * polls it with its signalfd. */
int web_board_job_fd(const struct web_board *b);
/* The oldest waiting job, or NULL; the daemon owns it until
 * web_board_job_done (then the board does). Drains the descriptor. */
struct web_job *web_board_job_take(struct web_board *b);
void web_board_job_done(struct web_board *b, struct web_job *j, int status,
    const char *preview, const char *message);
/* Something changed that the daemon should act on soon (an approval was
 * written): makes the job descriptor readable; web_board_job_take then
 * returns NULL and web_board_wanted true. */
void web_board_wake(struct web_board *b);
bool web_board_wanted(struct web_board *b);

/* ---- the server (server.c) -------------------------------------------- */

struct web; /* opaque */

/* Read the tokens (http.*-tokens: files of conf->credentials, each checked
 * as a secret), bind http.listen and start serving. A token file that
 * cannot be read or is too weak, an address that cannot be bound, a TLS
 * certificate or key that cannot be read: -1 with the reason in err, and
 * nothing listens. With http.listen unset: 0 and *out NULL. */
int web_start(struct web **out, const struct agent_conf *conf,
    struct web_board *b, struct err *err);
/* Stop serving: waits for the connections' threads, at most a few
 * seconds (libmicrohttpd closes them). NULL is a no-op. */
void web_stop(struct web *w);
/* The port bound (http.listen may say 0: any free one), for the log. */
unsigned web_port(const struct web *w);

#endif
