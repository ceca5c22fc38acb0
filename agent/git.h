/* agent/git.h: git repositories, through libgit2, which no other file of
 * the project includes. What the command line (`plan --repo PATH --rev
 * REV`) and the daemon's watcher (agent/daemon/watch.c) need: opening a
 * repository, resolving a revision, reading the cluster folders of a
 * commit (their YAML files and base broker.xml files) into memory, what a
 * commit says of itself and of its ancestry, and fetching one branch. The
 * policy of a fetch (which credentials, which host keys and certificates
 * are trusted) is the caller's, through callbacks in the project's own
 * terms. Errors name the repository, the revision and the folder; never a
 * secret.
 */
#ifndef AGENT_GIT_H
#define AGENT_GIT_H

#include <stdbool.h>
#include <stddef.h>

#include "../declarations/decl.h"
#include "../lib/err.h"
#include "../lib/sbuf.h"
#include "../lib/strv.h"

#define AGENT_GIT_OID_HEX     40   /* hex digits of a commit id */
#define AGENT_GIT_FOLDERS_MAX 4096 /* cluster folders per commit */

/* One folder of a commit's tree, held in memory: its *.yaml / *.yml files
 * (decl_is_yaml_name) and, for CONFIG_MANAGED clusters, the base broker.xml
 * files below it (broker/broker.xml, broker/nodes/<node>.xml;
 * declarations/render/render.h). Paths are "<dir>/<name>" ("<name>" for
 * the root); every path and data is owned and NUL-terminated. Each such
 * entry must be a regular file (mode 100644 or 100755): a symbolic link, a
 * submodule or a folder named *.yaml, *.yml, broker/broker.xml or
 * broker/nodes/<node>.xml fails the read, naming it, as the same entry in
 * a folder on disk fails decl_cluster_load. */
struct agent_git_folder {
	char *dir; /* path inside the repository; "" for the root */
	struct decl_file *files;
	size_t nfiles;
	struct decl_file *bases;
	size_t nbases;
};

void agent_git_folder_release(struct agent_git_folder *f);
/* Release n folders and free the array. NULL is a no-op. */
void agent_git_folders_free(struct agent_git_folder *v, size_t n);

struct agent_git_repo; /* opaque */

/* The repository at or above path (as git finds it from a folder). */
int agent_git_open(struct agent_git_repo **out, const char *path,
    struct err *err);
/* The daemon's bare clone at path, created (mode 0750 parents) when
 * missing. Lock and temporary files that a killed fetch left are removed
 * (the caller holds the state lock, so nothing else writes there). The
 * configuration is an empty in-memory one: nothing from ~/.gitconfig or
 * /etc/gitconfig (url rewrites, proxies, hooks) changes what is fetched. */
int agent_git_open_clone(struct agent_git_repo **out, const char *path,
    struct err *err);
void agent_git_close(struct agent_git_repo *r); /* NULL is a no-op */

/* The CA certificates TLS verifies git servers with (NULL: the system's);
 * process-wide, as libgit2 keeps it. */
int agent_git_set_ca_file(const char *path, struct err *err);

/* The commit that rev names (anything git rev-parse takes), as hex. */
int agent_git_resolve(struct agent_git_repo *r, const char *rev,
    char oid[AGENT_GIT_OID_HEX + 1], struct err *err);

/* Folder dir ("" or "." for the root) of commit oid. */
int agent_git_read_folder(struct agent_git_repo *r, const char *oid,
    const char *dir, struct agent_git_folder *out, struct err *err);
/* The cluster folders of commit oid below base ("" for the root): base
 * itself when it directly holds YAML files, else each sub-folder that
 * does. *out (owned) is sorted by dir; at most AGENT_GIT_FOLDERS_MAX. */
int agent_git_read_clusters(struct agent_git_repo *r, const char *oid,
    const char *base, struct agent_git_folder **out, size_t *nout,
    struct err *err);

/* The first line of commit oid's message and its author ("Name <email>"),
 * owned; both NULL when the commit cannot be read. */
void agent_git_describe(struct agent_git_repo *r, const char *oid,
    char **summary, char **author);
/* Does commit head descend from commit prev? An unknown commit answers
 * false. */
bool agent_git_descends(struct agent_git_repo *r, const char *head,
    const char *prev);
/* First-parent commits from head back to (excluding) prev, at most max. */
size_t agent_git_count_new(struct agent_git_repo *r, const char *head,
    const char *prev, size_t max);
/* The commit a reference (e.g. "refs/remotes/origin/main") points to. */
int agent_git_ref(struct agent_git_repo *r, const char *name,
    char oid[AGENT_GIT_OID_HEX + 1], struct err *err);

/* What agent_git_commit_signature answers for an unsigned commit. */
#define AGENT_GIT_EUNSIGNED (-2)

/* The signature of commit oid (its gpgsig header: an OpenPGP or SSH
 * armored signature) into sig, and the text it signs (the commit without
 * that header) into payload, both appended; 0. AGENT_GIT_EUNSIGNED when
 * the commit carries no signature; -1 (err set) when it cannot be read,
 * or sig or payload went past its ceiling (sbuf_init). */
int agent_git_commit_signature(struct agent_git_repo *r, const char *oid,
    struct sbuf *sig, struct sbuf *payload, struct err *err);
/* The commits `git rev-list --first-parent HEAD ^BASE` lists: from head
 * back along first parents, leaving out every commit base reaches (base
 * NULL: back to the root), newest first, into *out (owned; written only
 * on success). -1 (err set) when a commit cannot be read or there are
 * more than max. */
int agent_git_first_parents(struct agent_git_repo *r, const char *head,
    const char *base, size_t max, struct strv *out, struct err *err);
/* Is commit oid in the repository? */
bool agent_git_has_commit(struct agent_git_repo *r, const char *oid);

/* ---- fetching ---------------------------------------------------------- */

/* What a server may ask for (a set). */
enum agent_git_auth_kind {
	AGENT_GIT_AUTH_USERNAME = 1 << 0, /* an SSH user name alone */
	AGENT_GIT_AUTH_TOKEN = 1 << 1,    /* HTTPS: user name and token */
	AGENT_GIT_AUTH_SSH_KEY = 1 << 2,  /* an SSH key pair from files */
};

/* One answer of the credentials callback. Strings are owned by the fetch
 * once returned; secret is wiped after use. */
struct agent_git_auth {
	enum agent_git_auth_kind kind; /* exactly one bit */
	char *user;
	char *secret;      /* TOKEN: the token */
	char *public_key;  /* SSH_KEY: path of the public key, or NULL */
	char *private_key; /* SSH_KEY: path of the private key */
};

struct agent_git_fetch {
	const char *url;
	const char *refspec; /* e.g. "+refs/heads/B:refs/remotes/origin/B" */
	/* The server asks for credentials: allowed is a set of
	 * agent_git_auth_kind, user_from_url the URL's user or NULL. Fill
	 * *out and return 0, or return -1 with *why (owned) to refuse. */
	int (*credentials)(void *payload, unsigned allowed,
	    const char *user_from_url, struct agent_git_auth *out, char **why);
	/* An SSH server offered its host key (the raw SSH wire blob): 0 to
	 * trust it, -1 with *why (owned) to refuse. NULL refuses every key. */
	int (*ssh_host_key)(void *payload, const char *host,
	    const unsigned char *key, size_t len, char **why);
	/* A TLS server's certificate, valid as the TLS library judged it: 0
	 * to go on, -1 with *why (owned) to refuse. NULL keeps the verdict. */
	int (*tls_certificate)(void *payload, const char *host, bool valid,
	    char **why);
	void *payload;
};

/* Fetch f->refspec from f->url into r (an anonymous remote: the URL comes
 * from the caller only; no tags, no pruning). -1 with the reason in msg:
 * the callbacks' why when one refused, else libgit2's. */
int agent_git_fetch(struct agent_git_repo *r, const struct agent_git_fetch *f,
    struct sbuf *msg);

#endif
