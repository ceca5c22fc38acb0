/* agent/git.c: see git.h. The only file that includes libgit2. */
#include "git.h"

#include <ftw.h>
#include <git2.h>
#include <git2/sys/repository.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../declarations/render/render.h"
#include "../lib/afile.h"
#include "../lib/strv.h"
#include "../lib/xalloc.h"

struct agent_git_repo {
	git_repository *repo;
	char *path; /* as given, for messages */
};

/* libgit2's last error message (borrowed), never NULL. */
static const char *
git_msg(void)
{
	const git_error *e = git_error_last();

	return e != NULL && e->message != NULL ? e->message : "unknown error";
}

/* libgit2 is initialised once for the process and never shut down: the
 * daemon and the commands use it until they exit. */
static int
git_init(struct err *err)
{
	static int inited;

	if (inited)
		return 0;
	if (git_libgit2_init() < 0)
		return err_setf(err, NULL, "libgit2: %s", git_msg());
	inited = 1;
	return 0;
}

int
agent_git_set_ca_file(const char *path, struct err *err)
{
	int fd = -1;

	if (git_init(err) < 0)
		return -1;
	/* the TLS library reads the file; it must pass the regular-file rule
	 * first (a FIFO would block every fetch) */
	if (path != NULL && afile_open(&fd, NULL, path, 0, err) < 0)
		return -1;
	if (path != NULL)
		(void)close(fd);
	if (path != NULL &&
	    git_libgit2_opts(GIT_OPT_SET_SSL_CERT_LOCATIONS, path, NULL) < 0)
		return err_setf(err, NULL, "tls.ca-file '%s': %s", path,
		    git_msg());
	return 0;
}

static struct agent_git_repo *
repo_new(git_repository *r, const char *path)
{
	struct agent_git_repo *g = xcalloc(1, sizeof(*g));

	g->repo = r;
	g->path = xstrdup(path);
	return g;
}

int
agent_git_open(struct agent_git_repo **out, const char *path, struct err *err)
{
	git_repository *r = NULL;

	if (git_init(err) < 0)
		return -1;
	if (git_repository_open_ext(&r, path, 0, NULL) < 0)
		return err_setf(err, NULL, "cannot open: repository '%s': %s",
		    path, git_msg());
	*out = repo_new(r, path);
	return 0;
}

/* nftw: a lock or temporary file libgit2 left behind when its process
 * was killed; every such file is stale and would fail the next fetch. */
static int
stale_unlink(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	const char *base = path + ftw->base;
	size_t n = strlen(base);

	(void)st;
	if (flag == FTW_F && ((n > 5 && strcmp(base + n - 5, ".lock") == 0) ||
	                         strstr(base, "_git2_") != NULL))
		(void)unlink(path);
	return 0;
}

/* The empty in-memory configuration (git.h). libgit2 1.5 also leaks a
 * regex match block per config entry when it looks for url rewrites,
 * which a daemon fetching every minute cannot afford. */
static int
empty_config(git_repository *r)
{
	git_config *cfg = NULL;
	int rc = git_config_new(&cfg);

	if (rc == 0)
		rc = git_repository_set_config(r, cfg);
	git_config_free(cfg);
	return rc;
}

int
agent_git_open_clone(struct agent_git_repo **out, const char *path,
    struct err *err)
{
	git_repository *r = NULL;
	struct stat st;
	char *parent;
	int rc;

	if (git_init(err) < 0)
		return -1;
	if (stat(path, &st) == 0) {
		(void)nftw(path, stale_unlink, 16, FTW_PHYS);
		rc = git_repository_open_bare(&r, path);
	} else {
		parent = xstrdup(path);
		if (strrchr(parent, '/') != NULL)
			*strrchr(parent, '/') = '\0';
		rc = afile_mkdirs(parent, 0750, err);
		free(parent);
		if (rc < 0)
			return -1;
		rc = git_repository_init(&r, path, 1);
	}
	if (rc < 0)
		return err_setf(err, NULL, "open %s: %s", path, git_msg());
	if (empty_config(r) < 0) {
		git_repository_free(r);
		return err_setf(err, NULL, "%s: %s", path, git_msg());
	}
	*out = repo_new(r, path);
	return 0;
}

void
agent_git_close(struct agent_git_repo *r)
{
	if (r == NULL)
		return;
	git_repository_free(r->repo);
	free(r->path);
	free(r);
}

int
agent_git_resolve(struct agent_git_repo *r, const char *rev,
    char oid[AGENT_GIT_OID_HEX + 1], struct err *err)
{
	git_object *obj = NULL, *commit = NULL;
	int rc = 0;

	if (git_revparse_single(&obj, r->repo, rev) < 0 ||
	    git_object_peel(&commit, obj, GIT_OBJECT_COMMIT) < 0)
		rc = err_setf(err, NULL,
		    "cannot resolve revision: repository '%s' at '%s': %s",
		    r->path, rev, git_msg());
	else
		git_oid_tostr(oid, AGENT_GIT_OID_HEX + 1,
		    git_object_id(commit));
	git_object_free(commit);
	git_object_free(obj);
	return rc;
}

int
agent_git_ref(struct agent_git_repo *r, const char *name,
    char oid[AGENT_GIT_OID_HEX + 1], struct err *err)
{
	git_oid id;

	if (git_reference_name_to_id(&id, r->repo, name) < 0)
		return err_setf(err, NULL, "%s: %s", name, git_msg());
	git_oid_tostr(oid, AGENT_GIT_OID_HEX + 1, &id);
	return 0;
}

/* ---- folders of a tree ------------------------------------------------- */

void
agent_git_folder_release(struct agent_git_folder *f)
{
	size_t i;

	for (i = 0; i < f->nfiles; i++) {
		free((void *)(uintptr_t)f->files[i].path);
		free((void *)(uintptr_t)f->files[i].data);
	}
	for (i = 0; i < f->nbases; i++) {
		free((void *)(uintptr_t)f->bases[i].path);
		free((void *)(uintptr_t)f->bases[i].data);
	}
	free(f->files);
	free(f->bases);
	free(f->dir);
	memset(f, 0, sizeof(*f));
}

void
agent_git_folders_free(struct agent_git_folder *v, size_t n)
{
	size_t i;

	if (v == NULL)
		return;
	for (i = 0; i < n; i++)
		agent_git_folder_release(&v[i]);
	free(v);
}

/* "<dir>/<name>", or name alone for the root. Owned. */
static char *
join(const char *dir, const char *name)
{
	return dir[0] != '\0' ? xasprintf("%s/%s", dir, name) : xstrdup(name);
}

/* What entry e is when it is not a regular file (a blob of mode 100644 or
 * 100755), else NULL: git records a symbolic link as a blob holding the
 * link's target, and a submodule as a commit of another repository; neither
 * is the file its name says. */
static const char *
not_regular(const git_tree_entry *e)
{
	switch (git_tree_entry_filemode(e)) {
	case GIT_FILEMODE_BLOB:
	case GIT_FILEMODE_BLOB_EXECUTABLE:
		return NULL;
	case GIT_FILEMODE_LINK:
		return "a symbolic link";
	case GIT_FILEMODE_COMMIT:
		return "a submodule";
	case GIT_FILEMODE_TREE:
		return "a folder";
	default:
		return "an unknown kind of entry";
	}
}

/* Append the blob of entry e as a file path of at most max bytes. */
static int
add_blob(struct decl_file **files, size_t *n, git_repository *r,
    const git_tree_entry *e, char *path, size_t max, struct err *err)
{
	git_blob *b = NULL;
	struct decl_file *f;
	const char *what = not_regular(e);
	char *data;
	size_t len;

	if (what != NULL) {
		err_setf(err, NULL, "%s: %s in the commit, not a regular file",
		    path, what);
		free(path);
		return -1;
	}
	if (git_blob_lookup(&b, r, git_tree_entry_id(e)) < 0) {
		err_setf(err, NULL, "%s: %s", path, git_msg());
		free(path);
		return -1;
	}
	len = (size_t)git_blob_rawsize(b);
	if (len > max) {
		git_blob_free(b);
		err_setf(err, NULL, "%s: larger than %zu bytes", path, max);
		free(path);
		return -1;
	}
	data = xmalloc(len + 1);
	memcpy(data, git_blob_rawcontent(b), len);
	data[len] = '\0';
	git_blob_free(b);
	*files = xreallocarray(*files, *n + 1, sizeof(**files));
	f = &(*files)[(*n)++];
	f->path = path;
	f->data = data;
	f->len = len;
	return 0;
}

static bool
tree_has_yaml(const git_tree *t)
{
	size_t i, n = git_tree_entrycount(t);
	const git_tree_entry *e;

	/* any kind of entry: one that is not a regular file is refused when
	 * the folder is read, not passed over */
	for (i = 0; i < n; i++) {
		e = git_tree_entry_byindex(t, i);
		if (decl_is_yaml_name(git_tree_entry_name(e)))
			return true;
	}
	return false;
}

/* The base broker.xml files below tree t (the folder f->dir). */
static int
add_bases(struct agent_git_folder *f, git_repository *r, const git_tree *t,
    struct err *err)
{
	git_tree_entry *e = NULL;
	git_tree *nodes = NULL;
	const git_tree_entry *ne;
	const char *name;
	size_t i, len;
	char *rel, *where = NULL;
	int rc = 0;

	rel = xasprintf("%s/%s", RENDER_BASE_DIR, RENDER_BASE_FILE);
	if (git_tree_entry_bypath(&e, t, rel) == 0)
		rc = add_blob(&f->bases, &f->nbases, r, e, join(f->dir, rel),
		    RENDER_BASE_MAX, err);
	git_tree_entry_free(e);
	e = NULL;
	free(rel);
	rel = xasprintf("%s/%s", RENDER_BASE_DIR, RENDER_NODES_DIR);
	if (rc == 0 && git_tree_entry_bypath(&e, t, rel) == 0 &&
	    git_tree_entry_type(e) == GIT_OBJECT_TREE &&
	    git_tree_lookup(&nodes, r, git_tree_entry_id(e)) == 0) {
		where = join(f->dir, rel);
		for (i = 0; i < git_tree_entrycount(nodes) && rc == 0; i++) {
			ne = git_tree_entry_byindex(nodes, i);
			name = git_tree_entry_name(ne);
			len = strlen(name);
			if (len <= 4 || strcmp(name + len - 4, ".xml") != 0)
				continue;
			rc = add_blob(&f->bases, &f->nbases, r, ne,
			    xasprintf("%s/%s", where, name), RENDER_BASE_MAX,
			    err);
		}
	}
	git_tree_free(nodes);
	git_tree_entry_free(e);
	free(where);
	free(rel);
	return rc;
}

/* Fill f (dir already set) from tree t. */
static int
load_folder(struct agent_git_folder *f, git_repository *r, const git_tree *t,
    struct err *err)
{
	size_t i, n = git_tree_entrycount(t);
	const git_tree_entry *e;

	for (i = 0; i < n; i++) {
		e = git_tree_entry_byindex(t, i);
		if (!decl_is_yaml_name(git_tree_entry_name(e)))
			continue;
		if (f->nfiles >= DECL_FILES_MAX)
			return err_setf(err, NULL,
			    "%s: more than %zu YAML files", f->dir,
			    (size_t)DECL_FILES_MAX);
		if (add_blob(&f->files, &f->nfiles, r, e,
		        join(f->dir, git_tree_entry_name(e)), DECL_FILE_MAX,
		        err) < 0)
			return -1;
	}
	return add_bases(f, r, t, err);
}

/* The tree of folder dir of commit oid (dir "" or "." for the root). */
static int
folder_tree(git_tree **out, struct agent_git_repo *r, const char *oid,
    const char *dir, struct err *err)
{
	git_oid id;
	git_commit *c = NULL;
	git_tree *t = NULL;
	git_tree_entry *e = NULL;
	int rc = -1;

	if (git_oid_fromstr(&id, oid) < 0 ||
	    git_commit_lookup(&c, r->repo, &id) < 0 ||
	    git_commit_tree(&t, c) < 0) {
		err_setf(err, NULL, "commit %s: %s", oid, git_msg());
		goto done;
	}
	if (dir[0] == '\0' || strcmp(dir, ".") == 0) {
		*out = t;
		t = NULL;
		rc = 0;
		goto done;
	}
	if (git_tree_entry_bypath(&e, t, dir) < 0 ||
	    git_tree_entry_type(e) != GIT_OBJECT_TREE) {
		err_setf(err, NULL, "commit %s has no folder '%s'", oid, dir);
		goto done;
	}
	if (git_tree_lookup(out, r->repo, git_tree_entry_id(e)) < 0)
		err_setf(err, NULL, "%s: %s", dir, git_msg());
	else
		rc = 0;
done:
	git_tree_entry_free(e);
	git_tree_free(t);
	git_commit_free(c);
	return rc;
}

int
agent_git_read_folder(struct agent_git_repo *r, const char *oid,
    const char *dir, struct agent_git_folder *out, struct err *err)
{
	struct agent_git_folder f;
	git_tree *t = NULL;
	int rc;

	memset(&f, 0, sizeof(f));
	if (folder_tree(&t, r, oid, dir, err) < 0)
		return -1;
	f.dir = xstrdup(strcmp(dir, ".") == 0 ? "" : dir);
	rc = load_folder(&f, r->repo, t, err);
	git_tree_free(t);
	if (rc < 0) {
		agent_git_folder_release(&f);
		return -1;
	}
	*out = f;
	return 0;
}

int
agent_git_read_clusters(struct agent_git_repo *r, const char *oid,
    const char *base, struct agent_git_folder **out, size_t *nout,
    struct err *err)
{
	git_tree *root = NULL, *sub = NULL;
	struct agent_git_folder *v = NULL;
	const git_tree_entry *e;
	size_t n = 0, cap = 0, i, ne;
	int rc = 0;

	if (folder_tree(&root, r, oid, base, err) < 0)
		return -1;
	if (tree_has_yaml(root)) {
		v = xcalloc(1, sizeof(*v));
		n = 1;
		v[0].dir = xstrdup(base);
		rc = load_folder(&v[0], r->repo, root, err);
	}
	ne = n > 0 ? 0 : git_tree_entrycount(root);
	for (i = 0; i < ne && rc == 0; i++) {
		e = git_tree_entry_byindex(root, i);
		if (git_tree_entry_type(e) != GIT_OBJECT_TREE ||
		    git_tree_lookup(&sub, r->repo, git_tree_entry_id(e)) < 0)
			continue;
		if (tree_has_yaml(sub) && n >= AGENT_GIT_FOLDERS_MAX) {
			rc = err_setf(err, NULL, "more than %d cluster folders",
			    AGENT_GIT_FOLDERS_MAX);
		} else if (tree_has_yaml(sub)) {
			xgrow(&v, &cap, n + 1, sizeof(*v));
			memset(&v[n], 0, sizeof(*v));
			v[n].dir = join(base, git_tree_entry_name(e));
			rc = load_folder(&v[n++], r->repo, sub, err);
		}
		git_tree_free(sub);
		sub = NULL;
	}
	git_tree_free(root);
	if (rc < 0) {
		agent_git_folders_free(v, n);
		return -1;
	}
	*out = v;
	*nout = n;
	return 0;
}

/* ---- commits ----------------------------------------------------------- */

void
agent_git_describe(struct agent_git_repo *r, const char *oid, char **summary,
    char **author)
{
	git_commit *c = NULL;
	const git_signature *a;
	const char *s;
	git_oid id;

	*summary = NULL;
	*author = NULL;
	if (git_oid_fromstr(&id, oid) < 0 ||
	    git_commit_lookup(&c, r->repo, &id) < 0)
		return;
	s = git_commit_summary(c);
	*summary = xstrdup(s != NULL ? s : "");
	a = git_commit_author(c);
	*author = xasprintf("%s <%s>", a->name, a->email);
	git_commit_free(c);
}

bool
agent_git_descends(struct agent_git_repo *r, const char *head, const char *prev)
{
	git_oid h, p;

	return git_oid_fromstr(&h, head) == 0 &&
	       git_oid_fromstr(&p, prev) == 0 &&
	       git_graph_descendant_of(r->repo, &h, &p) == 1;
}

size_t
agent_git_count_new(struct agent_git_repo *r, const char *head,
    const char *prev, size_t max)
{
	git_revwalk *walk = NULL;
	git_oid h, p, oid;
	size_t n = 0;

	if (git_oid_fromstr(&h, head) < 0 || git_oid_fromstr(&p, prev) < 0 ||
	    git_revwalk_new(&walk, r->repo) < 0)
		return 0;
	git_revwalk_simplify_first_parent(walk);
	if (git_revwalk_push(walk, &h) == 0 && git_revwalk_hide(walk, &p) == 0)
		while (n < max && git_revwalk_next(&oid, walk) == 0)
			n++;
	git_revwalk_free(walk);
	return n;
}

int
agent_git_commit_signature(struct agent_git_repo *r, const char *oid,
    struct sbuf *sig, struct sbuf *payload, struct err *err)
{
	git_buf s = {0}, d = {0};
	git_oid id;
	int rc;

	if (git_oid_fromstr(&id, oid) < 0)
		return err_setf(err, NULL, "'%s' is not a commit id", oid);
	rc = git_commit_extract_signature(&s, &d, r->repo, &id, NULL);
	if (rc == GIT_ENOTFOUND) {
		/* unsigned, or not a commit: tell them apart */
		git_commit *c = NULL;

		if (git_commit_lookup(&c, r->repo, &id) < 0)
			return err_setf(err, NULL, "%s: commit %s: %s", r->path,
			    oid, git_msg());
		git_commit_free(c);
		return AGENT_GIT_EUNSIGNED;
	}
	if (rc < 0)
		return err_setf(err, NULL, "%s: commit %s: %s", r->path, oid,
		    git_msg());
	sbuf_add(sig, s.ptr, s.size);
	sbuf_add(payload, d.ptr, d.size);
	git_buf_dispose(&s);
	git_buf_dispose(&d);
	if (sig->failed || payload->failed)
		return err_setf(err, NULL,
		    "%s: commit %s: its signature or text is too large",
		    r->path, oid);
	return 0;
}

int
agent_git_first_parents(struct agent_git_repo *r, const char *head,
    const char *base, size_t max, struct strv *out, struct err *err)
{
	git_revwalk *walk = NULL;
	git_oid h, b, oid;
	char hex[AGENT_GIT_OID_HEX + 1];
	struct strv v = {0};
	int rc = -1, n;

	if (git_oid_fromstr(&h, head) < 0)
		return err_setf(err, NULL, "'%s' is not a commit id", head);
	if (git_revwalk_new(&walk, r->repo) < 0) {
		err_setf(err, NULL, "%s: %s", r->path, git_msg());
		goto done;
	}
	git_revwalk_simplify_first_parent(walk);
	if (git_revwalk_push(walk, &h) < 0) {
		err_setf(err, NULL, "%s: commit %s: %s", r->path, head,
		    git_msg());
		goto done;
	}
	if (base != NULL &&
	    (git_oid_fromstr(&b, base) < 0 || git_revwalk_hide(walk, &b) < 0)) {
		err_setf(err, NULL, "%s: commit %s: %s", r->path, base,
		    git_msg());
		goto done;
	}
	while ((n = git_revwalk_next(&oid, walk)) == 0) {
		if (v.n == max) {
			err_setf(err, NULL,
			    "more than %zu commits from %.12s back to %s", max,
			    head, base != NULL ? base : "the root");
			goto done;
		}
		git_oid_tostr(hex, sizeof(hex), &oid);
		strv_add(&v, hex);
	}
	if (n != GIT_ITEROVER) {
		err_setf(err, NULL, "%s: walking back from %.12s: %s", r->path,
		    head, git_msg());
		goto done;
	}
	*out = v;
	memset(&v, 0, sizeof(v));
	rc = 0;
done:
	strv_release(&v);
	git_revwalk_free(walk);
	return rc;
}

bool
agent_git_has_commit(struct agent_git_repo *r, const char *oid)
{
	git_commit *c = NULL;
	git_oid id;

	if (git_oid_fromstr(&id, oid) < 0 ||
	    git_commit_lookup(&c, r->repo, &id) < 0)
		return false;
	git_commit_free(c);
	return true;
}

/* ---- fetching ---------------------------------------------------------- */

struct fetch_ctx {
	const struct agent_git_fetch *f;
	char *why; /* the first refusal of a callback: libgit2 replaces a
	              callback's error with a generic one of its own */
};

static void
refused(struct fetch_ctx *x, char *why)
{
	if (x->why == NULL)
		x->why = why != NULL ? why : xstrdup("refused");
	else
		free(why);
	git_error_set_str(GIT_ERROR_NET, x->why);
}

static unsigned
allowed_kinds(unsigned allowed)
{
	unsigned k = 0;

	if (allowed & GIT_CREDENTIAL_USERNAME)
		k |= AGENT_GIT_AUTH_USERNAME;
	if (allowed & GIT_CREDENTIAL_USERPASS_PLAINTEXT)
		k |= AGENT_GIT_AUTH_TOKEN;
	if (allowed & GIT_CREDENTIAL_SSH_KEY)
		k |= AGENT_GIT_AUTH_SSH_KEY;
	return k;
}

static void
auth_release(struct agent_git_auth *a)
{
	if (a->secret != NULL)
		explicit_bzero(a->secret, strlen(a->secret));
	free(a->secret);
	free(a->user);
	free(a->public_key);
	free(a->private_key);
	memset(a, 0, sizeof(*a));
}

static int
cred_cb(git_credential **out, const char *url, const char *user_from_url,
    unsigned int allowed, void *payload)
{
	struct fetch_ctx *x = payload;
	struct agent_git_auth a;
	char *why = NULL;
	int rc = GIT_EUSER;

	(void)url;
	memset(&a, 0, sizeof(a));
	if (x->f->credentials == NULL ||
	    x->f->credentials(x->f->payload, allowed_kinds(allowed),
	        user_from_url, &a, &why) < 0) {
		refused(x, why);
		return GIT_EUSER;
	}
	if (a.kind == AGENT_GIT_AUTH_USERNAME)
		rc = git_credential_username_new(out, a.user);
	else if (a.kind == AGENT_GIT_AUTH_TOKEN)
		rc = git_credential_userpass_plaintext_new(out, a.user,
		    a.secret);
	else if (a.kind == AGENT_GIT_AUTH_SSH_KEY)
		rc = git_credential_ssh_key_new(out, a.user, a.public_key,
		    a.private_key, NULL);
	auth_release(&a);
	return rc;
}

static int
cert_cb(git_cert *cert, int valid, const char *host, void *payload)
{
	struct fetch_ctx *x = payload;
	const git_cert_hostkey *hk;
	char *why = NULL;

	if (cert->cert_type == GIT_CERT_HOSTKEY_LIBSSH2) {
		hk = (const git_cert_hostkey *)(void *)cert;
		if (x->f->ssh_host_key != NULL &&
		    x->f->ssh_host_key(x->f->payload, host,
		        (hk->type & GIT_CERT_SSH_RAW) != 0
		            ? (const unsigned char *)hk->hostkey
		            : NULL,
		        (hk->type & GIT_CERT_SSH_RAW) != 0 ? hk->hostkey_len
		                                           : 0,
		        &why) == 0)
			return 0;
		refused(x,
		    why != NULL
		        ? why
		        : xasprintf("SSH host key of '%s' refused", host));
		return GIT_ECERTIFICATE;
	}
	if (x->f->tls_certificate == NULL)
		return valid ? 0 : GIT_ECERTIFICATE;
	if (x->f->tls_certificate(x->f->payload, host, valid != 0, &why) == 0)
		return 0;
	refused(x, why);
	return GIT_ECERTIFICATE;
}

int
agent_git_fetch(struct agent_git_repo *r, const struct agent_git_fetch *f,
    struct sbuf *msg)
{
	struct fetch_ctx x = {f, NULL};
	git_remote *remote = NULL;
	git_fetch_options fo;
	char *specs[1];
	git_strarray refspecs = {specs, 1};
	int rc;

	specs[0] = (char *)(uintptr_t)f->refspec;
	git_fetch_options_init(&fo, GIT_FETCH_OPTIONS_VERSION);
	fo.callbacks.credentials = cred_cb;
	fo.callbacks.certificate_check = cert_cb;
	fo.callbacks.payload = &x;
	fo.prune = GIT_FETCH_NO_PRUNE;
	fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	rc = git_remote_create_anonymous(&remote, r->repo, f->url);
	if (rc == 0)
		rc = git_remote_fetch(remote, &refspecs, &fo, "fetch");
	if (rc < 0)
		sbuf_adds(msg, x.why != NULL ? x.why : git_msg());
	git_remote_free(remote);
	free(x.why);
	return rc < 0 ? -1 : 0;
}
