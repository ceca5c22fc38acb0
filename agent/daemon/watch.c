/* agent/watch.c: see watch.h. */
#include "daemon-int.h"
#include "watch-int.h"

#include <errno.h>
#include <ftw.h>
#include <git2.h>
#include <git2/sys/repository.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../lib/afile.h"
#include "../../lib/sbuf.h"
#include "../../lib/xalloc.h"

#define REVWALK_MAX 10000 /* commits counted between two polls */
#define SECRET_MAX  16384 /* bytes of a token file */

static int git_inited;

const char *
daemon_watch_event_name(enum daemon_watch_event e)
{
	switch (e) {
	case DAEMON_WATCH_SAME:
		return "same";
	case DAEMON_WATCH_FIRST:
		return "first";
	case DAEMON_WATCH_NEW:
		return "new";
	case DAEMON_WATCH_REWRITE:
		return "rewrite";
	}
	return "?";
}

void
daemon_watch_update_release(struct daemon_watch_update *u)
{
	free(u->summary);
	free(u->author);
	memset(u, 0, sizeof(*u));
}

const char *
daemon_watch_git_msg(void)
{
	const git_error *e = git_error_last();

	return e != NULL && e->message != NULL ? e->message : "unknown error";
}

/* Load STATE/last-seen; it only counts when URL and branch still match. */
static void
load_seen(struct daemon_watch *w)
{
	char *text = NULL, *line, *save = NULL;
	struct err err = {0};
	bool url_ok = false, branch_ok = false;
	char head[DAEMON_WATCH_OID_HEX + 1] = "";

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
		         strlen(line + 5) == DAEMON_WATCH_OID_HEX)
			memcpy(head, line + 5, sizeof(head));
	}
	if (url_ok && branch_ok)
		memcpy(w->seen, head, sizeof(w->seen));
	free(text);
}

int
daemon_watch_open(struct daemon_watch **out, const struct agent_conf *conf, struct err *err)
{
	struct daemon_watch *w;

	if (!git_inited) {
		if (git_libgit2_init() < 0)
			return err_setf(err, NULL, "libgit2: %s",
			    daemon_watch_git_msg());
		git_inited = 1;
	}
	if (conf->tls_ca_file != NULL &&
	    git_libgit2_opts(GIT_OPT_SET_SSL_CERT_LOCATIONS, conf->tls_ca_file,
	        NULL) < 0)
		return err_setf(err, NULL, "tls.ca-file '%s': %s",
		    conf->tls_ca_file, daemon_watch_git_msg());
	w = xcalloc(1, sizeof(*w));
	w->conf = conf;
	w->repo_dir = xasprintf("%s/repo", conf->state);
	w->seen_path = xasprintf("%s/last-seen", conf->state);
	load_seen(w);
	*out = w;
	return 0;
}

void
daemon_watch_free(struct daemon_watch *w)
{
	if (w == NULL)
		return;
	git_repository_free(w->repo);
	free(w->fail_msg);
	free(w->repo_dir);
	free(w->seen_path);
	free(w);
}

const char *
daemon_watch_last_seen(const struct daemon_watch *w)
{
	return w->seen;
}

int
daemon_watch_mark_seen(struct daemon_watch *w, const char *oid, struct err *err)
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

/* Remember why a fetch was refused: libgit2 replaces a callback's error
 * with its own generic one. */
static void
set_fail(struct daemon_watch *w, char *msg)
{
	free(w->fail_msg);
	w->fail_msg = msg;
	git_error_set_str(GIT_ERROR_NET, msg);
}

/* libgit2 asks again after a refused credential: answer once, then fail
 * instead of looping. A request for the SSH user name alone is not a
 * credential. */
static int
cred_cb(git_credential **out, const char *url, const char *user_from_url,
    unsigned int allowed, void *payload)
{
	struct daemon_watch *w = payload;
	const struct agent_conf *conf = w->conf;

	(void)url;
	if (allowed == GIT_CREDENTIAL_USERNAME)
		return git_credential_username_new(out,
		    user_from_url != NULL ? user_from_url : conf->git_ssh_user);
	if (w->auth_tries++ > 0) {
		set_fail(w,
		    xasprintf("authentication refused with %s '%s' from the "
		              "credentials folder",
		        (allowed & GIT_CREDENTIAL_SSH_KEY) != 0
		            ? "repository.ssh-key-file"
		            : "repository.token-file",
		        (allowed & GIT_CREDENTIAL_SSH_KEY) != 0
		            ? conf->git_ssh_key_file
		            : conf->git_token_file));
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
	set_fail(w, xstrdup("the repository asks for credentials and none are "
	                    "configured (repository.token-file or "
	                    "repository.ssh-key-file)"));
	return GIT_EUSER;
}

/* The SSH server's host key must be in repository.ssh-known-hosts; an
 * unknown, changed or revoked key is refused (tls.insecure does not
 * apply to SSH). */
static int
check_hostkey(struct daemon_watch *w, const git_cert_hostkey *hk, const char *host)
{
	const struct agent_conf *conf = w->conf;
	enum daemon_hostkey_result res = DAEMON_HOSTKEY_UNKNOWN;
	char fp[DAEMON_HOSTKEY_FP_MAX] = "?", *name;
	struct err err = {0};
	int port = daemon_hostkey_url_port(conf->repo_url);

	name = daemon_hostkey_name(host, port);
	if ((hk->type & GIT_CERT_SSH_RAW) == 0 || hk->hostkey == NULL) {
		set_fail(w, xasprintf("SSH host key of '%s' refused: libgit2 "
		                      "did not show the key",
		                name));
		free(name);
		return GIT_ECERTIFICATE;
	}
	daemon_hostkey_fingerprint((const unsigned char *)hk->hostkey, hk->hostkey_len,
	    fp);
	if (conf->git_ssh_known_hosts == NULL) {
		set_fail(w, xasprintf("SSH host key %s of '%s' refused: no "
		                      "repository.ssh-known-hosts configured",
		                fp, name));
	} else if (daemon_hostkey_check(&res, conf->git_ssh_known_hosts, host, port,
	               (const unsigned char *)hk->hostkey, hk->hostkey_len,
	               &err) < 0) {
		set_fail(w, xasprintf("SSH host key of '%s' refused: "
		                      "repository.ssh-known-hosts: %s",
		                name, err.msg));
	} else if (res == DAEMON_HOSTKEY_UNKNOWN) {
		set_fail(w, xasprintf("SSH host key %s of '%s' refused: "
		                      "UNKNOWN host, not in '%s' (check the "
		                      "fingerprint, then add the key)",
		                fp, name, conf->git_ssh_known_hosts));
	} else if (res == DAEMON_HOSTKEY_CHANGED) {
		set_fail(w, xasprintf("SSH host key %s of '%s' refused: host "
		                      "key CHANGED, '%s' holds another key for "
		                      "this host (a re-keyed server or a "
		                      "man in the middle)",
		                fp, name, conf->git_ssh_known_hosts));
	} else if (res == DAEMON_HOSTKEY_REVOKED) {
		set_fail(w, xasprintf("SSH host key %s of '%s' refused: it is "
		                      "marked @revoked in '%s'",
		                fp, name, conf->git_ssh_known_hosts));
	}
	err_release(&err);
	free(name);
	return res == DAEMON_HOSTKEY_OK ? 0 : GIT_ECERTIFICATE;
}

/* SSH: our known_hosts check. TLS: tls.insecure accepts any certificate;
 * otherwise the TLS library's verdict (tls.ca-file) stands. */
static int
cert_cb(git_cert *cert, int valid, const char *host, void *payload)
{
	struct daemon_watch *w = payload;

	if (cert->cert_type == GIT_CERT_HOSTKEY_LIBSSH2)
		return check_hostkey(w, (const git_cert_hostkey *)(void *)cert,
		    host);
	if (w->conf->tls_insecure || valid)
		return 0;
	set_fail(w,
	    xasprintf("TLS certificate of '%s' not trusted (%s%s)", host,
	        w->conf->tls_ca_file != NULL ? "tls.ca-file " : "",
	        w->conf->tls_ca_file != NULL ? w->conf->tls_ca_file
	                                     : "the system store"));
	return GIT_ECERTIFICATE;
}

/* nftw: a lock or temporary file libgit2 left behind when its process
 * was killed. The daemon holds the state lock, so nothing else writes
 * STATE/repo: every such file is stale and would fail the next fetch. */
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

/* Open (or create) the bare clone. Its configuration is an empty
 * in-memory one: nothing from ~/.gitconfig or /etc/gitconfig (url
 * rewrites, proxies, hooks) changes what the agent fetches, and libgit2
 * 1.5 leaks a regex match block per config entry when it looks for url
 * rewrites, which a daemon fetching every minute cannot afford. The remote
 * is anonymous for the same reason: the URL comes from agent_conf only. */
int
daemon_watch_open_repo(struct daemon_watch *w, struct err *err)
{
	git_config *cfg = NULL;
	struct stat st;
	int r;

	if (w->repo != NULL)
		return 0;
	if (stat(w->repo_dir, &st) == 0) {
		(void)nftw(w->repo_dir, stale_unlink, 16, FTW_PHYS);
		r = git_repository_open_bare(&w->repo, w->repo_dir);
	} else if (afile_mkdirs(w->conf->state, 0750, err) < 0) {
		return -1;
	} else {
		r = git_repository_init(&w->repo, w->repo_dir, 1);
	}
	if (r < 0)
		return err_setf(err, NULL, "open %s: %s", w->repo_dir,
		    daemon_watch_git_msg());
	r = git_config_new(&cfg);
	if (r == 0)
		r = git_repository_set_config(w->repo, cfg);
	git_config_free(cfg);
	if (r < 0) {
		git_repository_free(w->repo);
		w->repo = NULL;
		return err_setf(err, NULL, "%s: %s", w->repo_dir,
		    daemon_watch_git_msg());
	}
	return 0;
}

/* The fetch proper; runs in a child process (child.h). */
static int
fetch_child(void *arg, struct sbuf *msg)
{
	struct daemon_watch *w = arg;
	git_remote *remote = NULL;
	git_fetch_options fo;
	char *spec;
	char *specs[1];
	git_strarray refspecs = {specs, 1};
	int r;

	spec = xasprintf("+refs/heads/%s:refs/remotes/origin/%s",
	    w->conf->branch, w->conf->branch);
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
	if (r < 0)
		sbuf_adds(msg,
		    w->fail_msg != NULL ? w->fail_msg : daemon_watch_git_msg());
	git_remote_free(remote);
	free(spec);
	return r < 0 ? -1 : 0;
}

/* Fetch in a child with a deadline, then read the branch head from the
 * clone, opened afresh: the child wrote new refs and packs. */
static int
fetch(struct daemon_watch *w, const struct daemon_child_wait *cw, git_oid *head,
    struct err *err)
{
	struct err cerr = {0};
	char *ref;
	int r;

	r = daemon_child_run(fetch_child, w, cw, &cerr);
	git_repository_free(w->repo);
	w->repo = NULL;
	if (r == DAEMON_CHILD_ESTOPPED) {
		err_setf(err, NULL, "fetch from %s: %s", w->conf->repo_url,
		    cerr.msg);
		err_release(&cerr);
		return DAEMON_CHILD_ESTOPPED;
	}
	if (r < 0) {
		err_setf(err, NULL, "fetch '%s' from %s: %s", w->conf->branch,
		    w->conf->repo_url, cerr.msg);
		err_release(&cerr);
		return -1;
	}
	if (daemon_watch_open_repo(w, err) < 0)
		return -1;
	ref = xasprintf("refs/remotes/origin/%s", w->conf->branch);
	r = 0;
	if (git_reference_name_to_id(head, w->repo, ref) < 0)
		r = err_setf(err, NULL, "branch '%s' not found in %s",
		    w->conf->branch, w->conf->repo_url);
	free(ref);
	return r;
}

static void
describe_head(struct daemon_watch *w, const git_oid *head, struct daemon_watch_update *u)
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
count_new(struct daemon_watch *w, const git_oid *head, const git_oid *prev)
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
daemon_watch_poll(struct daemon_watch *w, const struct daemon_child_wait *cw, struct daemon_watch_update *u,
    struct err *err)
{
	git_oid head, prev;
	int desc, r;

	memset(u, 0, sizeof(*u));
	if (daemon_watch_open_repo(w, err) < 0)
		return -1;
	r = fetch(w, cw, &head, err);
	if (r < 0)
		return r;
	git_oid_tostr(u->head, sizeof(u->head), &head);
	snprintf(u->prev, sizeof(u->prev), "%s", w->seen);
	describe_head(w, &head, u);
	if (w->seen[0] == '\0' || git_oid_fromstr(&prev, w->seen) < 0) {
		u->event = DAEMON_WATCH_FIRST;
		return 0;
	}
	if (git_oid_equal(&head, &prev)) {
		u->event = DAEMON_WATCH_SAME;
		return 0;
	}
	/* An unknown prev (an error) counts as a rewrite: the safe side. */
	desc = git_graph_descendant_of(w->repo, &head, &prev);
	if (desc == 1) {
		u->event = DAEMON_WATCH_NEW;
		u->ncommits = count_new(w, &head, &prev);
	} else {
		u->event = DAEMON_WATCH_REWRITE;
	}
	return 0;
}
