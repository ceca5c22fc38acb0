/* agent/watch.c: see watch.h. */
#include "watch.h"

#include <errno.h>
#include <git2.h>
#include <git2/sys/repository.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../lib/afile.h"
#include "../lib/sbuf.h"
#include "../lib/xalloc.h"

#define REVWALK_MAX 10000 /* commits counted between two polls */
#define SECRET_MAX  16384 /* bytes of a token file */

struct watch {
	const struct agent_conf *conf;
	git_repository *repo;
	char *repo_dir;  /* STATE/repo */
	char *seen_path; /* STATE/last-seen */
	char seen[WATCH_OID_HEX + 1];
	int auth_tries;
};

static int git_inited;

const char *
watch_event_name(enum watch_event e)
{
	switch (e) {
	case WATCH_SAME:
		return "same";
	case WATCH_FIRST:
		return "first";
	case WATCH_NEW:
		return "new";
	case WATCH_REWRITE:
		return "rewrite";
	}
	return "?";
}

void
watch_update_release(struct watch_update *u)
{
	free(u->summary);
	free(u->author);
	memset(u, 0, sizeof(*u));
}

/* libgit2's last error as an owned string. */
static const char *
git_msg(void)
{
	const git_error *e = git_error_last();

	return e != NULL && e->message != NULL ? e->message : "unknown error";
}

/* Load STATE/last-seen; it only counts when URL and branch still match. */
static void
load_seen(struct watch *w)
{
	char *text = NULL, *line, *save = NULL;
	struct err err = {0};
	bool url_ok = false, branch_ok = false;
	char head[WATCH_OID_HEX + 1] = "";

	w->seen[0] = '\0';
	if (afile_read(&text, NULL, w->seen_path, 4096, &err) < 0) {
		err_release(&err);
		return;
	}
	for (line = strtok_r(text, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "url ", 4) == 0)
			url_ok = strcmp(line + 4, w->conf->repo_url) == 0;
		else if (strncmp(line, "branch ", 7) == 0)
			branch_ok = strcmp(line + 7, w->conf->branch) == 0;
		else if (strncmp(line, "head ", 5) == 0 &&
		         strlen(line + 5) == WATCH_OID_HEX)
			memcpy(head, line + 5, sizeof(head));
	}
	if (url_ok && branch_ok)
		memcpy(w->seen, head, sizeof(w->seen));
	free(text);
}

int
watch_open(struct watch **out, const struct agent_conf *conf, struct err *err)
{
	struct watch *w;

	if (!git_inited) {
		if (git_libgit2_init() < 0)
			return err_setf(err, NULL, "libgit2: %s", git_msg());
		git_inited = 1;
	}
	if (conf->tls_ca_file != NULL &&
	    git_libgit2_opts(GIT_OPT_SET_SSL_CERT_LOCATIONS, conf->tls_ca_file,
	        NULL) < 0)
		return err_setf(err, NULL, "tls.ca-file '%s': %s",
		    conf->tls_ca_file, git_msg());
	w = xcalloc(1, sizeof(*w));
	w->conf = conf;
	w->repo_dir = xasprintf("%s/repo", conf->state);
	w->seen_path = xasprintf("%s/last-seen", conf->state);
	load_seen(w);
	*out = w;
	return 0;
}

void
watch_free(struct watch *w)
{
	if (w == NULL)
		return;
	git_repository_free(w->repo);
	free(w->repo_dir);
	free(w->seen_path);
	free(w);
}

const char *
watch_last_seen(const struct watch *w)
{
	return w->seen;
}

int
watch_mark_seen(struct watch *w, const char *oid, struct err *err)
{
	char *text;
	int r;

	text = xasprintf("url %s\nbranch %s\nhead %s\n", w->conf->repo_url,
	    w->conf->branch, oid);
	r = afile_write(w->seen_path, text, strlen(text), 0640, err);
	free(text);
	if (r == 0)
		snprintf(w->seen, sizeof(w->seen), "%s", oid);
	return r;
}

/* Read a secret file from the credentials folder, first line only. */
static char *
read_secret(const struct agent_conf *conf, const char *name)
{
	char *path, *text = NULL;
	struct err err = {0};

	path = xasprintf("%s/%s", conf->credentials, name);
	if (afile_read(&text, NULL, path, SECRET_MAX, &err) < 0) {
		git_error_set_str(GIT_ERROR_NET, err.msg);
		err_release(&err);
		free(path);
		return NULL;
	}
	free(path);
	text[strcspn(text, "\r\n")] = '\0';
	return text;
}

static int
cred_token(git_credential **out, const struct agent_conf *conf)
{
	char *secret, *colon;
	int r;

	secret = read_secret(conf, conf->git_token_file);
	if (secret == NULL)
		return -1;
	colon = strchr(secret, ':');
	if (colon != NULL) {
		*colon = '\0';
		r = git_credential_userpass_plaintext_new(out, secret,
		    colon + 1);
	} else {
		r = git_credential_userpass_plaintext_new(out, "x-access-token",
		    secret);
	}
	explicit_bzero(secret, strlen(secret) + (colon != NULL ? 1 : 0));
	free(secret);
	return r;
}

static int
cred_ssh(git_credential **out, const struct agent_conf *conf,
    const char *user_from_url)
{
	char *priv, *pub = NULL;
	const char *user;
	int r;

	user = user_from_url != NULL ? user_from_url : conf->git_ssh_user;
	priv = xasprintf("%s/%s", conf->credentials, conf->git_ssh_key_file);
	if (conf->git_ssh_pubkey_file != NULL)
		pub = xasprintf("%s/%s", conf->credentials,
		    conf->git_ssh_pubkey_file);
	r = git_credential_ssh_key_new(out, user, pub, priv, NULL);
	free(priv);
	free(pub);
	return r;
}

/* libgit2 asks again after a refused credential: answer once, then fail
 * instead of looping. */
static int
cred_cb(git_credential **out, const char *url, const char *user_from_url,
    unsigned int allowed, void *payload)
{
	struct watch *w = payload;
	const struct agent_conf *conf = w->conf;

	(void)url;
	if (w->auth_tries++ > 0) {
		git_error_set_str(GIT_ERROR_NET,
		    "authentication refused with the configured credentials");
		return GIT_EUSER;
	}
	if ((allowed & GIT_CREDENTIAL_SSH_KEY) != 0 &&
	    conf->git_ssh_key_file != NULL)
		return cred_ssh(out, conf, user_from_url);
	if ((allowed & GIT_CREDENTIAL_USERPASS_PLAINTEXT) != 0 &&
	    conf->git_token_file != NULL)
		return cred_token(out, conf);
	if ((allowed & GIT_CREDENTIAL_USERNAME) != 0)
		return git_credential_username_new(out,
		    user_from_url != NULL ? user_from_url : conf->git_ssh_user);
	git_error_set_str(GIT_ERROR_NET,
	    "the repository asks for credentials and none are configured "
	    "(repository.token-file or repository.ssh-key-file)");
	return GIT_EUSER;
}

/* tls.insecure accepts any certificate; otherwise libgit2 decides. */
static int
cert_cb(git_cert *cert, int valid, const char *host, void *payload)
{
	struct watch *w = payload;

	(void)cert;
	(void)host;
	if (w->conf->tls_insecure)
		return 0;
	return valid ? 0 : GIT_PASSTHROUGH;
}

/* Open (or create) the bare clone. Its configuration is an empty
 * in-memory one: nothing from ~/.gitconfig or /etc/gitconfig (url
 * rewrites, proxies, hooks) changes what the agent fetches, and libgit2
 * 1.5 leaks a regex match block per config entry when it looks for url
 * rewrites, which a daemon fetching every minute cannot afford. The remote
 * is anonymous for the same reason: the URL comes from agent_conf only. */
static int
open_repo(struct watch *w, struct err *err)
{
	git_config *cfg = NULL;
	struct stat st;
	int r;

	if (w->repo != NULL)
		return 0;
	if (stat(w->repo_dir, &st) == 0)
		r = git_repository_open_bare(&w->repo, w->repo_dir);
	else if (afile_mkdirs(w->conf->state, 0750, err) < 0)
		return -1;
	else
		r = git_repository_init(&w->repo, w->repo_dir, 1);
	if (r < 0)
		return err_setf(err, NULL, "open %s: %s", w->repo_dir,
		    git_msg());
	r = git_config_new(&cfg);
	if (r == 0)
		r = git_repository_set_config(w->repo, cfg);
	git_config_free(cfg);
	if (r < 0) {
		git_repository_free(w->repo);
		w->repo = NULL;
		return err_setf(err, NULL, "%s: %s", w->repo_dir, git_msg());
	}
	return 0;
}

static int
fetch(struct watch *w, git_oid *head, struct err *err)
{
	git_remote *remote = NULL;
	git_fetch_options fo;
	char *spec, *ref;
	char *specs[1];
	git_strarray refspecs = {specs, 1};
	int r;

	spec = xasprintf("+refs/heads/%s:refs/remotes/origin/%s",
	    w->conf->branch, w->conf->branch);
	ref = xasprintf("refs/remotes/origin/%s", w->conf->branch);
	specs[0] = spec;
	git_fetch_options_init(&fo, GIT_FETCH_OPTIONS_VERSION);
	fo.callbacks.credentials = cred_cb;
	fo.callbacks.certificate_check = cert_cb;
	fo.callbacks.payload = w;
	fo.prune = GIT_FETCH_NO_PRUNE;
	fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	w->auth_tries = 0;
	r = git_remote_create_anonymous(&remote, w->repo, w->conf->repo_url);
	if (r == 0)
		r = git_remote_fetch(remote, &refspecs, &fo, "fetch");
	if (r < 0) {
		err_setf(err, NULL, "fetch '%s' from %s: %s", w->conf->branch,
		    w->conf->repo_url, git_msg());
	} else if (git_reference_name_to_id(head, w->repo, ref) < 0) {
		r = err_setf(err, NULL, "branch '%s' not found in %s",
		    w->conf->branch, w->conf->repo_url);
	}
	git_remote_free(remote);
	free(spec);
	free(ref);
	return r < 0 ? -1 : 0;
}

static void
describe_head(struct watch *w, const git_oid *head, struct watch_update *u)
{
	git_commit *c = NULL;
	const git_signature *a;
	const char *summary;

	if (git_commit_lookup(&c, w->repo, head) < 0)
		return;
	summary = git_commit_summary(c);
	u->summary = xstrdup(summary != NULL ? summary : "");
	a = git_commit_author(c);
	u->author = xasprintf("%s <%s>", a->name, a->email);
	git_commit_free(c);
}

/* First-parent commits from head back to (excluding) prev. */
static size_t
count_new(struct watch *w, const git_oid *head, const git_oid *prev)
{
	git_revwalk *walk = NULL;
	git_oid oid;
	size_t n = 0;

	if (git_revwalk_new(&walk, w->repo) < 0)
		return 0;
	git_revwalk_simplify_first_parent(walk);
	if (git_revwalk_push(walk, head) == 0 &&
	    git_revwalk_hide(walk, prev) == 0)
		while (n < REVWALK_MAX && git_revwalk_next(&oid, walk) == 0)
			n++;
	git_revwalk_free(walk);
	return n;
}

int
watch_poll(struct watch *w, struct watch_update *u, struct err *err)
{
	git_oid head, prev;
	int desc;

	memset(u, 0, sizeof(*u));
	if (open_repo(w, err) < 0 || fetch(w, &head, err) < 0)
		return -1;
	git_oid_tostr(u->head, sizeof(u->head), &head);
	snprintf(u->prev, sizeof(u->prev), "%s", w->seen);
	describe_head(w, &head, u);
	if (w->seen[0] == '\0' || git_oid_fromstr(&prev, w->seen) < 0) {
		u->event = WATCH_FIRST;
		return 0;
	}
	if (git_oid_equal(&head, &prev)) {
		u->event = WATCH_SAME;
		return 0;
	}
	/* An unknown prev (an error) counts as a rewrite: the safe side. */
	desc = git_graph_descendant_of(w->repo, &head, &prev);
	if (desc == 1) {
		u->event = WATCH_NEW;
		u->ncommits = count_new(w, &head, &prev);
	} else {
		u->event = WATCH_REWRITE;
	}
	return 0;
}

static bool
is_yaml_name(const char *name)
{
	size_t n = strlen(name);

	return (n > 5 && strcmp(name + n - 5, ".yaml") == 0) ||
	       (n > 4 && strcmp(name + n - 4, ".yml") == 0);
}

static bool
tree_has_yaml(const git_tree *t)
{
	size_t i, n = git_tree_entrycount(t);
	const git_tree_entry *e;

	for (i = 0; i < n; i++) {
		e = git_tree_entry_byindex(t, i);
		if (git_tree_entry_type(e) == GIT_OBJECT_BLOB &&
		    is_yaml_name(git_tree_entry_name(e)))
			return true;
	}
	return false;
}

static void
cluster_add_file(struct watch_cluster *c, const char *path, const char *data,
    size_t len)
{
	size_t cap = c->nfiles;

	xgrow(&c->files, &cap, c->nfiles + 1, sizeof(*c->files));
	cap = c->nfiles;
	xgrow(&c->paths, &cap, c->nfiles + 1, sizeof(*c->paths));
	cap = c->nfiles;
	xgrow(&c->data, &cap, c->nfiles + 1, sizeof(*c->data));
	c->paths[c->nfiles] = xstrdup(path);
	c->data[c->nfiles] = xmalloc(len + 1);
	memcpy(c->data[c->nfiles], data, len);
	c->data[c->nfiles][len] = '\0';
	c->files[c->nfiles].path = c->paths[c->nfiles];
	c->files[c->nfiles].data = c->data[c->nfiles];
	c->files[c->nfiles].len = len;
	c->nfiles++;
}

/* Load the YAML blobs of tree t (the folder dir) into c. */
static int
load_cluster(struct watch *w, const git_tree *t, const char *dir,
    struct watch_cluster *c, struct err *err)
{
	size_t i, n = git_tree_entrycount(t);
	const git_tree_entry *e;
	git_blob *b = NULL;
	char *path;
	int r = 0;

	c->dir = xstrdup(dir);
	for (i = 0; i < n && r == 0; i++) {
		e = git_tree_entry_byindex(t, i);
		if (git_tree_entry_type(e) != GIT_OBJECT_BLOB ||
		    !is_yaml_name(git_tree_entry_name(e)))
			continue;
		path = dir[0] != '\0'
		           ? xasprintf("%s/%s", dir, git_tree_entry_name(e))
		           : xstrdup(git_tree_entry_name(e));
		if (c->nfiles >= DECL_FILES_MAX)
			r = err_setf(err, NULL, "%s: more than %zu YAML files",
			    dir, (size_t)DECL_FILES_MAX);
		else if (git_blob_lookup(&b, w->repo, git_tree_entry_id(e)) < 0)
			r = err_setf(err, NULL, "%s: %s", path, git_msg());
		else if (git_blob_rawsize(b) > DECL_FILE_MAX)
			r = err_setf(err, NULL, "%s: larger than %zu bytes",
			    path, (size_t)DECL_FILE_MAX);
		else
			cluster_add_file(c, path, git_blob_rawcontent(b),
			    (size_t)git_blob_rawsize(b));
		git_blob_free(b);
		b = NULL;
		free(path);
	}
	return r;
}

static int
root_tree(struct watch *w, const char *oid, git_tree **out, struct err *err)
{
	git_oid id;
	git_commit *c = NULL;
	git_tree *t = NULL;
	git_tree_entry *e = NULL;
	const char *p = w->conf->clusters_path;
	int r = -1;

	if (git_oid_fromstr(&id, oid) < 0 ||
	    git_commit_lookup(&c, w->repo, &id) < 0 ||
	    git_commit_tree(&t, c) < 0) {
		err_setf(err, NULL, "commit %s: %s", oid, git_msg());
		goto done;
	}
	if (p[0] == '\0') {
		*out = t;
		t = NULL;
		r = 0;
		goto done;
	}
	if (git_tree_entry_bypath(&e, t, p) < 0 ||
	    git_tree_entry_type(e) != GIT_OBJECT_TREE) {
		err_setf(err, NULL, "commit %s has no folder '%s'", oid, p);
		goto done;
	}
	if (git_tree_lookup(out, w->repo, git_tree_entry_id(e)) < 0)
		err_setf(err, NULL, "%s: %s", p, git_msg());
	else
		r = 0;
done:
	git_tree_entry_free(e);
	git_tree_free(t);
	git_commit_free(c);
	return r;
}

int
watch_read_clusters(struct watch *w, const char *oid,
    struct watch_cluster **out, size_t *nout, struct err *err)
{
	git_tree *root = NULL, *sub = NULL;
	struct watch_cluster *cs = NULL;
	size_t n = 0, cap = 0, i, ne;
	const git_tree_entry *e;
	const char *base = w->conf->clusters_path;
	char *dir;
	int r = 0;

	if (open_repo(w, err) < 0 || root_tree(w, oid, &root, err) < 0)
		return -1;
	if (tree_has_yaml(root)) {
		cs = xcalloc(1, sizeof(*cs));
		n = 1;
		r = load_cluster(w, root, base, &cs[0], err);
	}
	ne = tree_has_yaml(root) ? 0 : git_tree_entrycount(root);
	for (i = 0; i < ne && r == 0; i++) {
		e = git_tree_entry_byindex(root, i);
		if (git_tree_entry_type(e) != GIT_OBJECT_TREE ||
		    git_tree_lookup(&sub, w->repo, git_tree_entry_id(e)) < 0)
			continue;
		if (tree_has_yaml(sub) && n >= WATCH_CLUSTERS_MAX) {
			r = err_setf(err, NULL, "more than %d cluster folders",
			    WATCH_CLUSTERS_MAX);
		} else if (tree_has_yaml(sub)) {
			xgrow(&cs, &cap, n + 1, sizeof(*cs));
			memset(&cs[n], 0, sizeof(*cs));
			dir = base[0] != '\0' ? xasprintf("%s/%s", base,
			                            git_tree_entry_name(e))
			                      : xstrdup(git_tree_entry_name(e));
			r = load_cluster(w, sub, dir, &cs[n++], err);
			free(dir);
		}
		git_tree_free(sub);
		sub = NULL;
	}
	git_tree_free(root);
	if (r < 0) {
		watch_clusters_free(cs, n);
		return -1;
	}
	*out = cs;
	*nout = n;
	return 0;
}

void
watch_clusters_free(struct watch_cluster *c, size_t n)
{
	size_t i, j;

	if (c == NULL)
		return;
	for (i = 0; i < n; i++) {
		for (j = 0; j < c[i].nfiles; j++) {
			free(c[i].paths[j]);
			free(c[i].data[j]);
		}
		free(c[i].paths);
		free(c[i].data);
		free(c[i].files);
		free(c[i].dir);
	}
	free(c);
}
