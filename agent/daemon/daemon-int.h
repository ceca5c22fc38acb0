/* agent/daemon/daemon-int.h: shared by the files of agent/daemon/ only
 * (and the unit tests), grouped by the file that implements them, lowest
 * first. Everything travels in struct daemon (style.md 2.6); signals only
 * set flags, which the parts check between steps (daemon_stopping) and
 * while they wait on git (child.c) or a broker (struct daemon_tick).
 *
 *   daemon.c        what every part shares: clock, stop check, backoff,
 *                   the memory of each cluster, reading its nodes
 *   loop.c          the poll() loop: timers, signals, reload, watchdog
 *   cycle.c         one cycle: fetch, validate, plan, post previews
 *   signed.c        only signed commits (repository.verify)
 *   approvals.c     approvals found in the outbox, applied; auto-apply
 *   holds.c         what waits for a sync window or a suspension
 *   drift.c         drift detection (drift-report.c renders it)
 *   capture-pass.c  the capture pass of every drift cycle
 *   events.c        what the notification targets are told
 *   web-jobs.c      what the web server asks of the loop
 *   cmd-run.c       the `run` command: configuration, state lock, loop
 */
#ifndef AGENT_DAEMON_DAEMON_INT_H
#define AGENT_DAEMON_DAEMON_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../declarations/decl.h"
#include "../../lib/err.h"
#include "../../lib/http.h"
#include "../../lib/sbuf.h"
#include "../../lib/strv.h"
#include "../conf.h"
#include "../git.h"
#include "../outbox.h"
#include "../targets.h"
#include "../tls.h"
#include "../web/web.h"
#include "daemon.h"

/* ==== signal.c: signals through a signalfd ==== */

/* the daemon's signals, delivered through a signalfd so
 * that poll() wakes up for them and nothing runs in a handler
 * (style.md 2.9). daemon_signal_open blocks SIGHUP, SIGTERM, SIGINT and SIGUSR1
 * for the process; daemon_signal_drain turns pending signals into flags that
 * the loop checks between steps. */

struct daemon_signals {
	bool reload; /* SIGHUP */
	bool stop;   /* SIGTERM or SIGINT */
	bool cycle;  /* SIGUSR1 */
	int last;    /* number of the last signal read, 0 if none */
};

/* Block the signals and open a non-blocking signalfd; *fd_out owns it. */
int daemon_signal_open(int *fd_out, struct err *err);
/* Read every pending signal from fd into f (flags are only ever set).
 * Returns the number of signals read. */
int daemon_signal_drain(int fd, struct daemon_signals *f);
/* Close fd and unblock the signals (for tests and before exec). */
void daemon_signal_close(int fd);

/* ==== notify.c: sd_notify ==== */

/* tell systemd how the daemon is doing (sd_notify(3)).
 *
 * Every call is a no-op when $NOTIFY_SOCKET is unset (not started by
 * systemd with Type=notify), so the daemon runs the same in a terminal.
 * Failures to notify are ignored: systemd's own services do the same.
 */

/* READY=1 with a STATUS= line. */
void daemon_notify_ready(const char *status);
/* STATUS=<formatted>; newlines are replaced by spaces. */
void daemon_notify_status(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
/* RELOADING=1 and MONOTONIC_USEC=<now>; send daemon_notify_ready when done. */
void daemon_notify_reloading(void);
/* STOPPING=1. */
void daemon_notify_stopping(void);
/* The watchdog interval in microseconds when systemd expects WATCHDOG=1
 * pings (WatchdogSec= for this process), else 0. */
uint64_t daemon_notify_watchdog_usec(void);
/* WATCHDOG=1 when the watchdog is enabled. */
void daemon_notify_watchdog(void);

/* ==== child.c: a blocking step in a child process with a deadline ==== */

/* run one blocking step (a git clone or fetch) in a forked
 * child process with a deadline, so that a server that never answers
 * cannot block the daemon (libgit2 1.5 has no network timeout).
 *
 * The parent waits in poll() on a pipe from the child and on the daemon's
 * signalfd: it keeps sending WATCHDOG=1 (at least every half WatchdogSec=),
 * records SIGHUP and SIGUSR1 in the flags for later, and on SIGTERM/SIGINT
 * or at the deadline kills the child (SIGKILL) and reaps it. The child
 * runs fn, sends its outcome and message through the pipe and leaves with
 * _exit() (no atexit handlers, no buffered stdio flushed twice).
 */

#define DAEMON_CHILD_MSG_MAX 4096 /* bytes of the child's message */

enum {
	DAEMON_CHILD_ESTOPPED =
	    -2, /* SIGTERM/SIGINT arrived; the child was killed */
	DAEMON_CHILD_ETIMEOUT =
	    -3, /* the deadline passed; the child was killed */
};

struct daemon_child_wait {
	int sigfd;                  /* the daemon's signalfd, -1 for none */
	struct daemon_signals *sig; /* where drained signals land */
	long timeout_s; /* the deadline, in seconds from the start */
};

/* The step: 0 or -1, with its message (an error) in msg. Runs in the
 * child; whatever it changes in memory is lost, only files remain. */
typedef int (*daemon_child_fn)(void *arg, struct sbuf *msg);

/* A step's exec form. Once the web server runs, the daemon has threads,
 * and a fork copies only the forking one: a lock another thread held at
 * that moment (the allocator's under ASan, stdio's, a resolver's) stays
 * held in the child forever, and the child hangs until its deadline. So
 * the run command (daemon_child_use_exec) has the forked child re-execute
 * the binary at once, `artemis-gitops DAEMON_CHILD_ARGV1 STEP`, with
 * input on its standard input (an anonymous file) and the result pipe on
 * DAEMON_CHILD_RESULT_FD: a fresh process with one thread, which runs the
 * step (daemon_child_exec_main in cmd-run.c) and reports as child_main
 * does. Without daemon_child_use_exec (unit tests, whose binary is not
 * artemis-gitops) fn runs in the fork, as before. */
#define DAEMON_CHILD_RESULT_FD 3
struct daemon_child_exec {
	const char *step;  /* "fetch" */
	const char *input; /* what the step reads on its standard input */
	size_t len;
};
void daemon_child_use_exec(bool on);

/* Run fn(arg) in a child (or, with ex and daemon_child_use_exec, the
 * binary again for step ex). 0 when it returned 0; -1 with its message in
 * err when it failed (or died); DAEMON_CHILD_ESTOPPED or DAEMON_CHILD_ETIMEOUT
 * (err set) when it was killed. The child's pid is logged nowhere: it lives
 * only as long as this call. */
int daemon_child_run(daemon_child_fn fn, void *arg,
    const struct daemon_child_exec *ex, const struct daemon_child_wait *cw,
    struct err *err);
/* In the re-executed child: SIGTERM and SIGINT kill it again; then its
 * outcome and message on DAEMON_CHILD_RESULT_FD. */
void daemon_child_step_begin(void);
void daemon_child_step_report(int rc, const struct sbuf *msg);

/* ==== hostkey.c: SSH host keys ==== */

/* SSH host key checking against an OpenSSH known_hosts
 * file (repository.ssh-known-hosts). No libgit2 here: watch.c hands over
 * the raw key blob the server offered (the SSH wire format, which is what
 * the base64 field of a known_hosts line decodes to).
 *
 * Supported: plain host patterns (`host`, `[host]:port`, `*` and `?`
 * wildcards, `!` negation, comma-separated lists) and the `@revoked`
 * marker. Hashed host names (`|1|...`, ssh-keygen -H) and
 * `@cert-authority` lines never match: the key is then unknown.
 */

#define DAEMON_HOSTKEY_FILE_MAX                                                \
	((size_t)1 << 20)        /* bytes of a known_hosts file */
#define DAEMON_HOSTKEY_FP_MAX 64 /* "SHA256:" + 43 base64 characters + NUL */

enum daemon_hostkey_result {
	DAEMON_HOSTKEY_OK = 0,  /* a line for the host holds this key */
	DAEMON_HOSTKEY_UNKNOWN, /* no line names the host */
	DAEMON_HOSTKEY_CHANGED, /* lines name the host, none holds this key */
	DAEMON_HOSTKEY_REVOKED, /* the key is marked @revoked */
};

/* The key's fingerprint as `ssh-keygen -l` prints it: "SHA256:" and the
 * unpadded base64 of the SHA-256 of the blob. */
void daemon_hostkey_fingerprint(const unsigned char *key, size_t len,
    char out[DAEMON_HOSTKEY_FP_MAX]);

/* The name known_hosts uses: "host" on port 22, else "[host]:port".
 * Owned by the caller. */
char *daemon_hostkey_name(const char *host, int port);

/* The port of an ssh:// URL (22 when it names none, and for scp-like
 * user@host:path URLs). */
int daemon_hostkey_url_port(const char *url);

/* Look key up for host:port in the known_hosts file at path. -1 (err set)
 * when the file cannot be read; else 0 and *out is the result. */
int daemon_hostkey_check(enum daemon_hostkey_result *out, const char *path,
    const char *host, int port, const unsigned char *key, size_t len,
    struct err *err);

/* ==== watch.c: the git watcher ==== */

/* The git watcher (libgit2 itself is agent/git.c's).
 *
 * The watched branch is fetched into a bare clone in STATE/repo (created
 * on the first poll) as refs/remotes/origin/<branch>. The last commit the
 * daemon handled is kept in STATE/last-seen (lines `url URL`, `branch B`,
 * `head OID`), so a restart neither replans old commits nor misses new
 * ones; a changed URL or branch starts afresh.
 * A new head that does not descend from the last seen one is a history
 * rewrite (a force-push): reported as such, never treated as an ordinary
 * new commit.
 *
 * Credentials come from files in the credentials folder (agent_conf): an
 * HTTPS token (`token` or `user:token`) or an SSH key pair. They are read
 * when libgit2 asks for them (in the fetch's child process) and never
 * logged. An SSH server's host key must be in repository.ssh-known-hosts
 * (hostkey.c); a TLS certificate must verify against tls.ca-file or the
 * system store unless tls.insecure is on.
 */

struct daemon_watch; /* opaque */

enum daemon_watch_event {
	DAEMON_WATCH_SAME = 0, /* nothing new since the last seen commit */
	DAEMON_WATCH_FIRST,    /* no last seen commit (or URL/branch changed) */
	DAEMON_WATCH_NEW,      /* the head moved forward */
	DAEMON_WATCH_REWRITE,  /* the head does not descend from the last seen
	                          one */
};

const char *daemon_watch_event_name(enum daemon_watch_event e);

struct daemon_watch_update {
	enum daemon_watch_event event;
	char head[AGENT_GIT_OID_HEX + 1]; /* the branch head after the fetch */
	char prev[AGENT_GIT_OID_HEX + 1]; /* the last seen commit, "" if none */
	size_t
	    ncommits; /* DAEMON_WATCH_NEW: commits since prev (first parents) */
	char *summary; /* owned: the head commit's first line */
	char *author;  /* owned: "Name <email>" */
};

void daemon_watch_update_release(struct daemon_watch_update *u);

/* Prepare a watcher for conf (borrowed; it must outlive the watcher). No
 * network access here. */
int daemon_watch_open(struct daemon_watch **out, const struct agent_conf *conf,
    struct err *err);
void daemon_watch_free(struct daemon_watch *w); /* NULL is a no-op */

/* Fetch the branch (cloning on first use) and compare its head with the
 * last seen commit. The fetch runs in a child process (child.c) bounded
 * by cw->timeout_s. A network or authentication failure, a refused host
 * key or certificate, or the deadline is -1 with an error naming the URL
 * (never a secret); DAEMON_CHILD_ESTOPPED when SIGTERM/SIGINT arrived meanwhile
 * (the fetch was abandoned). */
int daemon_watch_poll(struct daemon_watch *w,
    const struct daemon_child_wait *cw, struct daemon_watch_update *u,
    struct err *err);
/* The fetch as an exec step (child.c): input is what
 * daemon_watch_poll hands the child: the configuration's path, its
 * folder and its text, each parsed again there. */
int daemon_watch_fetch_step(const char *input, size_t len, struct sbuf *msg);

/* The bare clone (opened on first use), borrowed; -1 (err set). */
int daemon_watch_repo(struct daemon_watch *w, struct agent_git_repo **out,
    struct err *err);

/* Record oid as handled (STATE/last-seen, written atomically). */
int daemon_watch_mark_seen(struct daemon_watch *w, const char *oid,
    struct err *err);
/* The last seen commit, "" if none. Borrowed. */
const char *daemon_watch_last_seen(const struct daemon_watch *w);

/* The cluster folders of commit oid below conf->clusters_path
 * (agent_git_read_clusters; free with agent_git_folders_free). */
int daemon_watch_read_clusters(struct daemon_watch *w, const char *oid,
    struct agent_git_folder **out, size_t *nout, struct err *err);

/* ==== drift-report.c: the drift report ==== */

/* a drift report from a plan of the last applied
 * declaration against live state (drift.c; docs/daemon.md).
 *
 * Planning what was applied against what is live says exactly what
 * drifted: an object the plan would create is missing, one it would change
 * or recreate was changed behind the agent's back, the plan's unmanaged
 * list is what nobody declared, and an action that is needed on some nodes
 * but not on others means the nodes of the cluster disagree.
 */

struct plan;

#define DAEMON_DRIFT_FORMAT 1 /* `format` of drift.json */

struct daemon_drift_counts {
	size_t missing, changed, unmanaged, disagreeing, unreachable;
	/* nodes read and refused as a whole: a split brain, members that
	 * are not one pair (an error: nothing is applied there); passive
	 * brokers (left alone, never drift) */
	size_t refused, passive;
};

/* Count the findings of drift plan p. */
void daemon_drift_count(const struct plan *p, struct daemon_drift_counts *out);
/* True when anything drifted (unreachable nodes alone are not drift). */
bool daemon_drift_found(const struct daemon_drift_counts *c);
/* drift.json (canonical, 2-space indent, trailing newline) and drift.md;
 * head is the branch head, checked_at an RFC 3339 time. Owned. */
char *daemon_drift_render_json(const struct plan *p, const char *head,
    const char *checked_at);
char *daemon_drift_render_md(const struct plan *p, const char *head,
    const char *checked_at);

/* ==== daemon.c: the daemon's state and what every part shares ==== */

struct agent_coord;
struct agent_state;
struct plan_managed;
struct recon_snapshot;

/* What the daemon remembers about one cluster between cycles. */
/* What the last read of a node found: the hints of its next read. */
struct daemon_node_hint {
	char *node;
	char *broker; /* its broker name (an HA node: the live member's) */
	size_t queues;
};

struct daemon_cluster {
	char *name;
	char *dir;           /* the folder in the repository */
	char *last_plan_dir; /* the newest preview posted, or NULL */
	bool retry;          /* the last plan could not read every node */
	unsigned fails;      /* consecutive cycles with unreadable nodes */
	int64_t retry_at;    /* monotonic ms of the next replan */
	char *told_digest;   /* the last preview told (events.c), or NULL */
	bool untrusted; /* its last preview was refused: UNTRUSTED_COMMIT */
	/* several agents (ha.c): when to read its audit rows from etcd once
	 * more after a takeover (the agent before may still write the
	 * result row of an apply its fence cut short); 0: never */
	int64_t ha_merge_at;
	int64_t ha_epoch; /* the epoch it was owned under here, or 0 */
	struct daemon_node_hint *hints;
	size_t nhints;
};

struct daemon {
	struct agent_conf *conf; /* owned; never mutated, swapped on reload */
	const char *conf_path;
	struct agent_state *state; /* holds the lock on conf->state */
	struct daemon_watch *watch;
	int sigfd;
	struct daemon_signals sig;
	bool once;
	int64_t next_poll, next_drift; /* monotonic ms */
	unsigned git_fails;
	struct daemon_watch_update head; /* the commit the previews are of */
	struct daemon_cluster *clusters;
	size_t nclusters;
	struct strv fails; /* --once: why it exits 1 (daemon_fail) */
	/* `node url` of the nodes warned about for credentials sent in
	 * clear: once per node and endpoint per run */
	struct strv cleartext_warned;
	/* what the web server reads and the metrics (always there, served
	 * only with http.listen); the server itself, or NULL */
	struct web_board *board;
	struct web *web;
	/* webhook notifications (agent/webhook/), or NULL without targets;
	 * what was told of nodes down and of drift ("cluster\tnode",
	 * "cluster\tfingerprint": events.c) */
	struct webhook *hooks;
	struct strv told_down, told_drift;
	/* repository.verify: what is trusted (read at start and on SIGHUP),
	 * or NULL when the mode is off */
	struct agent_verify *verify;
	/* several agents (coordination.*, ha.c), or NULL: alone */
	struct agent_coord *coord;
	char ha_owner[160];   /* daemon_ha_owner's words */
	uint64_t ha_requests; /* agent_coord_requests() as last published */
};

/* ha.c: the daemon among several agents (docs/ha.md). Without
 * coordination.endpoints every function is a no-op and every cluster is
 * this agent's. */
struct agent_fence;
/* Join etcd (coordination.*); -1 logged. */
int daemon_ha_start(struct daemon *a);
void daemon_ha_stop(struct daemon *a);
/* Ownership for this cycle; clusters taken over are read back from etcd
 * (state-backend etcd) and planned again. */
void daemon_ha_refresh(struct daemon *a);
/* Does this agent own cluster now (asked of etcd when it is new)? */
bool daemon_ha_owns(struct daemon *a, const char *cluster);
/* Who does, for the logs: "agent 'ID'", "no agent now", or NULL when
 * alone (valid until the next call). */
const char *daemon_ha_owner(struct daemon *a, const char *cluster);
/* The fence of cluster's mutations into *f; NULL when alone. */
const struct agent_fence *daemon_ha_fence(struct daemon *a, const char *cluster,
    struct agent_fence *f);
/* state-backend etcd: keep dir's approval.json in etcd under its plan
 * digest (fenced) before it is applied; -1 logged (not applied now). And
 * a preview just posted as dir whose plan digest an approval in etcd names
 * gets that approval (via "etcd"): the agent before approved exactly this
 * plan. */
int daemon_ha_keep_approval(struct daemon *a, const char *cluster,
    const char *dir);
void daemon_ha_carry_approval(struct daemon *a, const char *cluster,
    const char *dir, const char *digest);
/* An approved preview dir of a cluster another agent (or none) owns now:
 * withdrawn (superseded, saying why) once another agent holds the cluster,
 * unless its apply had begun; logged once. */
void daemon_ha_not_owned(struct daemon *a, const char *cluster,
    const char *dir);
/* dir's apply was interrupted (apply-begun) under an epoch, and an apply
 * of another epoch has been recorded for the cluster since: true, with
 * why in *why, when it must not be resumed (another agent acted on the
 * cluster meanwhile; docs/ha.md). */
bool daemon_ha_stale_resume(struct daemon *a, const char *cluster,
    const char *dir, struct err *why);
/* dir's apply ran: its approval leaves etcd (it is never carried again). */
void daemon_ha_used_approval(struct daemon *a, const char *cluster,
    const char *dir);
/* The state folder's mirror into etcd (agent_state_set_mirror). */
int daemon_ha_mirror(void *ctx, const char *name, const void *data, size_t len,
    bool audit, struct err *err);

/* The board's metrics registry (docs/http-api.md "Metrics"), or NULL
 * without a board (unit tests): every metrics_* call takes NULL as a
 * no-op. */
struct metrics *daemon_metrics(struct daemon *a);
/* Seconds since t0_ms, a clock_monotonic_ms() reading. */
double daemon_seconds_since(int64_t t0_ms);

/* WATCHDOG=1 (the daemon is between two steps), then read pending signals;
 * true when SIGTERM/SIGINT arrived (finish the step in progress and
 * return). */
bool daemon_stopping(struct daemon *a);

/* What the daemon does while it waits on brokers (lib/http's tick): at
 * least every half WatchdogSec= and every second, WATCHDOG=1 and the
 * signals drained into a->sig, so that a stalled broker neither starves
 * the watchdog nor hides a SIGTERM. With abandon (the daemon's own reads,
 * whose result is thrown away on a stop) SIGTERM/SIGINT give the requests
 * up at once; without (an apply, the capture pass: they finish what they
 * started, bounded by the HTTP timeouts) never. */
struct daemon_tick {
	struct http_tick http; /* hand &t->http to struct live_http_opts */
	struct daemon *a;
	bool abandon;
};

void daemon_tick_init(struct daemon_tick *t, struct daemon *a, bool abandon);
/* With --once: the run exits 1, and the reason (already logged where it
 * happened) is repeated in its last log line. Without: nothing. */
void daemon_fail(struct daemon *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The backoff before retry number `fails` (1-based): base doubled each
 * time, capped at conf->retry_max; in seconds. */
long daemon_backoff(const struct daemon *a, long base, unsigned fails);
/* The memory of cluster name (added when new). */
struct daemon_cluster *daemon_cluster(struct daemon *a, const char *name);
void daemon_clusters_free(struct daemon *a);
/* The outbox name of a cluster folder: its declared name when it loads
 * (c), else what the folder was called before, else its last component. */
const char *daemon_cluster_name(struct daemon *a, const struct decl_cluster *c,
    const char *dir);
/* The targets of every node of c (agent_targets_load with the configured
 * credentials folder); a node whose credentials cannot be read is logged
 * and left out; credentials that would go in clear are warned about, once
 * a run. Release with agent_targets_release. */
void daemon_targets(struct agent_targets *out, struct daemon *a,
    const struct decl_cluster *c);
/* The brokers' TLS of the configuration (agent_tls_from_conf) into *out,
 * for cluster; false, logged, when the client certificate or its key
 * cannot be read: the caller then reads no node (never one without the
 * configured certificate). Release *out either way. */
bool daemon_tls(struct daemon *a, const char *cluster, struct agent_tls *out);
/* Read every node of c (its targets, as above, and daemon_tls; none when
 * that fails: the plan shows every node UNREACHABLE), with an abandoning
 * tick: when a->sig.stop is set afterwards the read may have been given
 * up, and the snapshot must not be used. Each declared node's read goes
 * to the metrics (artemis_gitops_node_*) and the board (the page). */
/* What is read of each node is what a plan of c with the managed set m
 * (NULL: none) and the queue delete-queue names (NULL: none) weighs
 * (plan_scope_build); each node's broker name and queue count at its last
 * read shape the next (live.h, struct live_scope). */
struct plan_managed;
struct recon_snapshot *daemon_read_live(struct daemon *a,
    const struct decl_cluster *c, const struct plan_managed *m,
    const char *queue);
/* Copy the YAML files of wc into DIR/declaration/, the declaration a
 * preview was planned from; apply reads the nodes' endpoints there. */
int daemon_post_declaration(const char *dir, const struct agent_git_folder *wc,
    struct err *err);

/* ==== holds.c ==== */

/* OUTBOX/<cluster>/DAEMON_HOLD_FILE: why the cluster's changes wait, and
 * until when; absent when nothing holds it. In an approved preview that
 * waits, the same text (AGENT_OUTBOX_WAITING). */
#define DAEMON_HOLD_FILE AGENT_OUTBOX_HOLD

/* Is cluster held (suspended, outside its sync window, or its clock
 * unreadable)? When it is, what (e.g. "drift repair") waits: logged at
 * info, and true. */
bool daemon_held(struct daemon *a, const char *cluster, const char *what);
/* Bring every cluster folder's hold.txt up to date; log each change. */
void daemon_holds_refresh(struct daemon *a);
/* ==== signed.c: only signed commits (repository.verify) ==== */

struct agent_verify_verdict;

/* Judge commit head of cluster by a->verify (the base of since-applied:
 * the cluster's applied revision, from its inventory). True when
 * verification is off (vd untouched) or head is trusted; false with the
 * verdict logged at err. While ssh-keygen runs, the watchdog is fed and
 * signals are recorded. Release vd either way. */
bool daemon_verify_head(struct daemon *a, const char *cluster, const char *head,
    struct agent_verify_verdict *vd);
/* Read the trust of conf into *out (NULL when the mode is off): each
 * problem logged; -1 when it cannot be read. */
int daemon_verify_load(struct agent_verify **out,
    const struct agent_conf *conf);
/* After a reload changed what is trusted: every cluster whose last
 * preview was refused as untrusted is planned again at once. */
void daemon_verify_replan(struct daemon *a);

/* ==== approvals.c ==== */

struct apply_approval;
struct stat;

/* May the daemon act on approval ap, read from a file of which st is the
 * fstat? Only when the file is owned by the uid it records (ap's
 * approved_uid), has one link, and, when conf lists approvers and the
 * approval is not the daemon's own (own), that uid is a listed user or a
 * member of a listed group. 0, or -1 with who and why in err (the text
 * of approval-refused.txt). */
int daemon_approval_check(const struct agent_conf *conf,
    const struct apply_approval *ap, const struct stat *st, bool own,
    struct err *err);

/* Apply every approved preview not handled yet. */
void daemon_run_approvals(struct daemon *a);
/* Approve dir (a preview that only creates, or only adopts: what says
 * which, for the log) as the daemon itself and apply it, when
 * auto-apply-creates allows. */
void daemon_auto_apply(struct daemon *a, const char *dir, const char *what);

/* ==== capture-pass.c ==== */

/* The capture pass of a drift cycle (docs/captures.md): plan it from snap
 * with decl (the applied declaration) and m (the inventory), and when it
 * has work run it on every node, append its audit row, update the
 * inventory's captures and log one line. True when it ran an operation
 * (the brokers changed: read them again). */
bool daemon_capture_pass(struct daemon *a, const struct decl_cluster *decl,
    const struct plan_managed *m, const struct recon_snapshot *snap);

/* ==== drift.c ==== */

/* Compare live state with the last applied declaration of every cluster
 * and write OUTBOX/<cluster>/drift/. */
void daemon_drift(struct daemon *a);

/* ==== events.c ==== */

struct apply_result;

/* Read what an earlier run told (STATE/notifications/memory.json). */
void daemon_events_start(struct daemon *a);
/* A preview posted in dir (plan.json's SHA-256 digest) for the cluster
 * mem remembers: preview.posted when it has something to approve,
 * preview.refused when refused; not when it is the same plan as the last
 * one told for the cluster (mem->told_digest). */
void daemon_event_preview(struct daemon *a, struct daemon_cluster *mem,
    const struct plan *p, const char *dir, const char *digest);
/* The branch's history was rewritten (a->head). */
void daemon_event_rewrite(struct daemon *a);
/* The apply of dir ended with r. */
void daemon_event_applied(struct daemon *a, const char *dir,
    const struct apply_result *r);
/* The approval in dir was not acted on, and why. */
void daemon_event_approval_refused(struct daemon *a, const char *dir,
    const char *cluster, const char *why);
/* A drift check's plan p and its drift.json: told when what drifted
 * changed since the last one told (and every node was read). */
void daemon_event_drift(struct daemon *a, const struct plan *p,
    const char *drift_json);
/* One read of node: told when it stops or starts answering. */
void daemon_event_node(struct daemon *a, const char *cluster, const char *node,
    bool up, const char *kind, const char *message);

/* ==== cycle.c ==== */

/* Fetch and plan new commits; replan clusters whose nodes could not all
 * be read. 0, or -1 when git failed (retried with backoff). */
int daemon_cycle(struct daemon *a);

/* ==== web-jobs.c ==== */

/* Run the jobs the web server posted (an operator's delete-queue
 * previews) and, when it wrote an approval, the approvals. */
void daemon_web_jobs(struct daemon *a);

/* ==== loop.c ==== */

/* The loop proper. Returns the exit code. */
int daemon_loop_run(struct daemon *a);

#endif
