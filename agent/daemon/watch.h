/* agent/watch.h: the git watcher (libgit2 stays inside agent/).
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
 * (hostkey.h); a TLS certificate must verify against tls.ca-file or the
 * system store unless tls.insecure is on.
 */
#ifndef AGENT_WATCH_H
#define AGENT_WATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "../../declarations/decl.h"
#include "../../lib/err.h"
#include "child.h"
#include "../conf.h"

#define DAEMON_WATCH_OID_HEX      40
#define DAEMON_WATCH_CLUSTERS_MAX 256 /* cluster folders per commit */

struct daemon_watch; /* opaque */

enum daemon_watch_event {
	DAEMON_WATCH_SAME = 0, /* nothing new since the last seen commit */
	DAEMON_WATCH_FIRST,    /* no last seen commit (or URL/branch changed) */
	DAEMON_WATCH_NEW,      /* the head moved forward */
	DAEMON_WATCH_REWRITE,  /* the head does not descend from the last seen one */
};

const char *daemon_watch_event_name(enum daemon_watch_event e);

struct daemon_watch_update {
	enum daemon_watch_event event;
	char head[DAEMON_WATCH_OID_HEX + 1]; /* the branch head after the fetch */
	char prev[DAEMON_WATCH_OID_HEX + 1]; /* the last seen commit, "" if none */
	size_t ncommits; /* DAEMON_WATCH_NEW: commits since prev (first parents) */
	char *summary;   /* owned: the head commit's first line */
	char *author;    /* owned: "Name <email>" */
};

void daemon_watch_update_release(struct daemon_watch_update *u);

/* One cluster folder of a commit, its YAML files held in memory. */
struct daemon_watch_cluster {
	char *dir; /* path inside the repository, e.g. "clusters/prod-eu" */
	struct decl_file *files;
	size_t nfiles;
	char **paths;            /* owned storage behind files[].path */
	char **data;             /* owned storage behind files[].data */
	struct decl_file *bases; /* owned: base broker.xml files (render.h) */
	size_t nbases;
};

/* Prepare a watcher for conf (borrowed; it must outlive the watcher). No
 * network access here. */
int daemon_watch_open(struct daemon_watch **out, const struct agent_conf *conf,
    struct err *err);
void daemon_watch_free(struct daemon_watch *w); /* NULL is a no-op */

/* Fetch the branch (cloning on first use) and compare its head with the
 * last seen commit. The fetch runs in a child process (child.h) bounded
 * by cw->timeout_s. A network or authentication failure, a refused host
 * key or certificate, or the deadline is -1 with an error naming the URL
 * (never a secret); DAEMON_CHILD_ESTOPPED when SIGTERM/SIGINT arrived meanwhile
 * (the fetch was abandoned). */
int daemon_watch_poll(struct daemon_watch *w, const struct daemon_child_wait *cw,
    struct daemon_watch_update *u, struct err *err);
/* Record oid as handled (STATE/last-seen, written atomically). */
int daemon_watch_mark_seen(struct daemon_watch *w, const char *oid, struct err *err);
/* The last seen commit, "" if none. Borrowed. */
const char *daemon_watch_last_seen(const struct daemon_watch *w);

/* Read the cluster folders of commit oid below conf->clusters_path: the
 * folder itself when it holds YAML files, else each sub-folder that does.
 * *out (owned, free with daemon_watch_clusters_free) is sorted by dir. */
int daemon_watch_read_clusters(struct daemon_watch *w, const char *oid,
    struct daemon_watch_cluster **out, size_t *nout, struct err *err);
void daemon_watch_clusters_free(struct daemon_watch_cluster *c, size_t n);

#endif
