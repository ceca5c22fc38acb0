/* agent/preview.h: what `plan` and `delete-queue` share: reading the live
 * (or recorded) snapshot, printing diagnostics, writing the preview and
 * choosing the exit code. */
#ifndef AGENT_PREVIEW_H
#define AGENT_PREVIEW_H

#include <pthread.h>
#include <stdbool.h>

#include "../declarations/decl.h"
#include "../reconcile/plan/plan.h"
#include "../reconcile/recon.h"

/* Every diagnostic on stderr, one `path:line:col: message` per line. */
void agent_preview_print_diags(const struct errlist *diags);

/* What a plan reads of the nodes (`--read full|scoped`, docs/snapshot-
 * format.md "A plan's read"): by default a live read asks for scope only
 * (reconcile/live/live.h) and a recording is taken whole; full: the live
 * nodes whole; narrow (`--read scoped` with a recording): the recording as
 * a scoped read would have read it. scope is the caller's (plan.h,
 * plan_scope_build). */
struct live_scope;
struct agent_preview_prefetch;
struct agent_read {
	bool full, narrow;
	int shape; /* enum live_scope_shape (by-name, by-pattern) */
	const struct live_scope *scope;
	/* the recording, already being read (NULL: read it when asked) */
	struct agent_preview_prefetch *prefetch;
};
/* rd from the value of --read (NULL: not given) of cmd: full, scoped,
 * or scoped by-name / by-pattern (the shape forced); file: the recording,
 * or NULL. 0, or the usage error's exit code (64, printed). */
int agent_read_option(struct agent_read *rd, const char *cmd, const char *arg,
    const char *file);

/* The snapshot to plan against: the recorded `snapshot --json` file when
 * file is not NULL, else every node read live with the credentials of
 * creds (or $CREDENTIALS_DIRECTORY) and the TLS settings tls (tls.h; NULL:
 * the system store, no client certificate), as rd says (above). A
 * recording must be of cluster c and hold only nodes c declares
 * (nodes[i].node named otherwise). 0, or -1 with a message printed. */
struct agent_tls;
int agent_preview_snapshot(struct recon_snapshot **out, const char *cmd,
    const struct decl_cluster *c, const char *file, const char *creds,
    const struct agent_tls *tls, const struct agent_read *rd);

/* A recording read in a thread of its own while the caller loads the
 * declarations (the machine's cores: bench/README.md). start never fails:
 * without a thread the recording is read when agent_preview_snapshot asks
 * for it. agent_preview_snapshot takes what was read (and reports its
 * error then, as a read at that point would); release waits for the
 * thread and frees what was not taken. Valid when zeroed. */
struct agent_preview_prefetch {
	const char *file; /* borrowed */
	pthread_t thread;
	bool running;
	int rc;
	struct recon_snapshot *s;
	struct err err;
};
void agent_preview_prefetch_start(struct agent_preview_prefetch *pf,
    const char *file);
void agent_preview_prefetch_release(struct agent_preview_prefetch *pf);

/* The nodes of c read live (node not NULL: that one only, which c must
 * declare): their targets with the credentials of the folder creds_dir,
 * the TLS settings tls (NULL: the system store), a bound of timeout_ms on
 * each request (0: the defaults), what scope says (NULL: every node whole,
 * reconcile/live/live.h). Credentials that would cross the network
 * unencrypted are warned about as agent_targets_warn_cleartext does for
 * cmd (NULL: logged). Prints nothing else. 0 with *out (every node there,
 * a node that could not be read with its refusal), or -1 with err: no
 * credentials folder, a credentials file refused, an unknown node. */
int agent_preview_snapshot_live(struct recon_snapshot **out,
    const struct decl_cluster *c, const char *node, const char *creds_dir,
    const struct agent_tls *tls, long timeout_ms,
    const struct live_scope *scope, const char *cmd, struct err *err);

/* A queue whose name starts with c's capture prefix belongs to a capture
 * subscription (ADR-0079 D3): the refusal of its delete-queue (owned), the
 * same for the command, the page and the MCP server; NULL for any other
 * queue. */
char *agent_preview_capture_owned(const struct decl_cluster *c,
    const char *queue);

/* How plan.json names the snapshot: "live", or the recorded file's base
 * name (so that a plan does not depend on where the file lies). Borrowed. */
const char *agent_preview_snapshot_label(const char *file);

/* Write DIR/plan.json and DIR/plan.md, print the summary, and return the
 * exit code: 1 refused, failed to write, or a node unreadable; 2 changes;
 * 0 nothing to do. */
int agent_preview_finish(const char *cmd, const struct plan *p,
    const char *out_dir);

/* After agent_preview_finish returned code: when comment_dir is not NULL
 * and the plan folder out_dir was written, its plan.md as pull-request
 * comment bodies in comment_dir (comment-dir.h). Returns code, or 1 when
 * the comments could not be written (the message printed). */
struct agent_comment_opts;
int agent_preview_comments(const char *cmd, int code, const char *out_dir,
    const char *comment_dir, const struct agent_comment_opts *o);

/* Write the planned declaration, normalised (decl_cluster_dump, which the
 * loader reads back), as DIR/declaration/cluster.yaml, replacing any YAML
 * left there, so that `apply DIR` finds the nodes' endpoints and the
 * declared objects without --cluster. 0, or -1 with a message printed. */
int agent_preview_write_declaration(const char *cmd,
    const struct decl_cluster *c, const char *out_dir);
/* The same without printing: 0, or -1 with err. */
int agent_preview_declaration_write(const struct decl_cluster *c,
    const char *out_dir, struct err *err);

/* CONFIG_MANAGED (others: 0, nothing done): render c's broker.xml per
 * node into p (diffs from before, the previous declaration, or the base
 * files when NULL; reload predictions against s) and write them as
 * out_dir/broker/<node>/broker.xml; a render failure refuses p. gf: the
 * files `--repo` read (its base files), or NULL for the file system.
 * 0, or -1 with a message printed. */
struct agent_git_folder;
int agent_preview_render(const char *cmd, struct plan *p,
    const struct decl_cluster *c, const struct decl_cluster *before,
    const struct agent_git_folder *gf, const struct recon_snapshot *s,
    const char *schema_dir, const char *out_dir);

#endif
