/* agent/daemon/watch.c: the git watcher (daemon-int.h): the branch is
 * fetched into STATE/repo in a child process with a deadline; the
 * credentials, host-key and certificate policy of the fetch; the last
 * seen commit; and what a new head is (first, new, the same, a rewrite).
 * libgit2 itself is agent/git.c's. */
#include "daemon-int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/afile.h"
#include "../../lib/sbuf.h"
#include "../../lib/xalloc.h"
#include "../creds.h"
#include "../git.h"

#define REVWALK_MAX 10000 /* commits counted between two polls */

struct daemon_watch {
	const struct agent_conf *conf;
	struct agent_git_repo *repo;
	char *repo_dir;  /* STATE/repo */
	char *seen_path; /* STATE/last-seen */
	char seen[AGENT_GIT_OID_HEX + 1];
	int auth_tries;
};

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

/* Load STATE/last-seen; it only counts when URL and branch still match. */
static void
load_seen(struct daemon_watch *w)
{
	char *text = NULL, *line, *save = NULL;
	struct err err = {0};
	bool url_ok = false, branch_ok = false;
	char head[AGENT_GIT_OID_HEX + 1] = "";

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
		         strlen(line + 5) == AGENT_GIT_OID_HEX &&
		         strspn(line + 5, "0123456789abcdef") ==
		             AGENT_GIT_OID_HEX)
			memcpy(head, line + 5, sizeof(head));
	}
	if (url_ok && branch_ok)
		memcpy(w->seen, head, sizeof(w->seen));
	free(text);
}

int
daemon_watch_open(struct daemon_watch **out, const struct agent_conf *conf,
    struct err *err)
{
	struct daemon_watch *w;

	if (agent_git_set_ca_file(conf->tls_ca_file, err) < 0)
		return -1;
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
	agent_git_close(w->repo);
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

/* Read a secret file from the credentials folder, first line only, as
 * private as agent_creds_open_secret wants it. */
static char *
read_secret(const struct agent_conf *conf, const char *name, const char *key,
    char **why)
{
	struct err err = {0};
	char *text = NULL;

	if (agent_creds_read_secret(&text, conf->credentials, name, key, &err) <
	    0) {
		*why = err.msg;
		err.msg = NULL;
		err_release(&err);
		return NULL;
	}
	return text;
}

/* The SSH key files libgit2 reads by path: the private key as private as
 * agent_creds_open_secret wants it, the public one a regular file. */
static int
check_ssh_keys(const struct agent_conf *conf, char **why)
{
	struct err err = {0};
	char *path;
	int fd = -1, rc = 0;

	if (agent_creds_check_secret(conf->credentials, conf->git_ssh_key_file,
	        "repository.ssh-key-file", &err) < 0)
		rc = -1;
	if (rc == 0 && conf->git_ssh_pubkey_file != NULL) {
		path = xasprintf("%s/%s", conf->credentials,
		    conf->git_ssh_pubkey_file);
		if (afile_open(&fd, NULL, path, 0, &err) < 0)
			rc = -1;
		else
			(void)close(fd);
		free(path);
	}
	if (rc < 0) {
		*why = err.msg;
		err.msg = NULL;
	}
	err_release(&err);
	return rc;
}

/* The credentials libgit2 asks for, from the credentials folder: an HTTPS
 * token file (`token` or `user:token`) or an SSH key pair. Answered once:
 * a server that asks again refused them, and is not asked in a loop. A
 * request for the SSH user name alone is not a credential. */
static int
credentials(void *payload, unsigned allowed, const char *user_from_url,
    struct agent_git_auth *out, char **why)
{
	struct daemon_watch *w = payload;
	const struct agent_conf *conf = w->conf;
	const char *user =
	    user_from_url != NULL ? user_from_url : conf->git_ssh_user;
	char *secret, *colon;

	if (allowed == AGENT_GIT_AUTH_USERNAME) {
		out->kind = AGENT_GIT_AUTH_USERNAME;
		out->user = xstrdup(user);
		return 0;
	}
	if (w->auth_tries++ > 0) {
		*why = xasprintf("authentication refused with %s '%s' from the "
		                 "credentials folder",
		    (allowed & AGENT_GIT_AUTH_SSH_KEY) != 0
		        ? "repository.ssh-key-file"
		        : "repository.token-file",
		    (allowed & AGENT_GIT_AUTH_SSH_KEY) != 0
		        ? conf->git_ssh_key_file
		        : conf->git_token_file);
		return -1;
	}
	if ((allowed & AGENT_GIT_AUTH_SSH_KEY) != 0 &&
	    conf->git_ssh_key_file != NULL) {
		if (check_ssh_keys(conf, why) < 0)
			return -1;
		out->kind = AGENT_GIT_AUTH_SSH_KEY;
		out->user = xstrdup(user);
		out->private_key = xasprintf("%s/%s", conf->credentials,
		    conf->git_ssh_key_file);
		if (conf->git_ssh_pubkey_file != NULL)
			out->public_key = xasprintf("%s/%s", conf->credentials,
			    conf->git_ssh_pubkey_file);
		return 0;
	}
	if ((allowed & AGENT_GIT_AUTH_TOKEN) != 0 &&
	    conf->git_token_file != NULL) {
		secret = read_secret(conf, conf->git_token_file,
		    "repository.token-file", why);
		if (secret == NULL)
			return -1;
		out->kind = AGENT_GIT_AUTH_TOKEN;
		colon = strchr(secret, ':');
		if (colon != NULL) {
			*colon = '\0';
			out->user = xstrdup(secret);
			out->secret = xstrdup(colon + 1);
		} else {
			out->user = xstrdup("x-access-token");
			out->secret = xstrdup(secret);
		}
		explicit_bzero(secret,
		    strlen(secret) +
		        (colon != NULL ? strlen(colon + 1) + 1 : 0));
		free(secret);
		return 0;
	}
	if ((allowed & AGENT_GIT_AUTH_USERNAME) != 0) {
		out->kind = AGENT_GIT_AUTH_USERNAME;
		out->user = xstrdup(user);
		return 0;
	}
	*why = xstrdup("the repository asks for credentials and none are "
	               "configured (repository.token-file or "
	               "repository.ssh-key-file)");
	return -1;
}

/* The SSH server's host key must be in repository.ssh-known-hosts; an
 * unknown, changed or revoked key is refused (tls.insecure does not
 * apply to SSH). */
static int
ssh_host_key(void *payload, const char *host, const unsigned char *key,
    size_t len, char **why)
{
	struct daemon_watch *w = payload;
	const struct agent_conf *conf = w->conf;
	enum daemon_hostkey_result res = DAEMON_HOSTKEY_UNKNOWN;
	char fp[DAEMON_HOSTKEY_FP_MAX] = "?", *name;
	struct err err = {0};
	int port = daemon_hostkey_url_port(conf->repo_url);

	name = daemon_hostkey_name(host, port);
	if (key == NULL) {
		*why = xasprintf("SSH host key of '%s' refused: libgit2 did "
		                 "not show the key",
		    name);
		free(name);
		return -1;
	}
	daemon_hostkey_fingerprint(key, len, fp);
	if (conf->git_ssh_known_hosts == NULL)
		*why = xasprintf("SSH host key %s of '%s' refused: no "
		                 "repository.ssh-known-hosts configured",
		    fp, name);
	else if (daemon_hostkey_check(&res, conf->git_ssh_known_hosts, host,
	             port, key, len, &err) < 0)
		*why = xasprintf("SSH host key of '%s' refused: "
		                 "repository.ssh-known-hosts: %s",
		    name, err.msg);
	else if (res == DAEMON_HOSTKEY_UNKNOWN)
		*why =
		    xasprintf("SSH host key %s of '%s' refused: UNKNOWN "
		              "host, not in '%s' (check the fingerprint, then "
		              "add the key)",
		        fp, name, conf->git_ssh_known_hosts);
	else if (res == DAEMON_HOSTKEY_CHANGED)
		*why =
		    xasprintf("SSH host key %s of '%s' refused: host key "
		              "CHANGED, '%s' holds another key for this host "
		              "(a re-keyed server or a man in the middle)",
		        fp, name, conf->git_ssh_known_hosts);
	else if (res == DAEMON_HOSTKEY_REVOKED)
		*why = xasprintf("SSH host key %s of '%s' refused: it is "
		                 "marked @revoked in '%s'",
		    fp, name, conf->git_ssh_known_hosts);
	err_release(&err);
	free(name);
	return res == DAEMON_HOSTKEY_OK ? 0 : -1;
}

/* TLS: tls.insecure accepts any certificate; otherwise the TLS library's
 * verdict (tls.ca-file or the system store) stands. */
static int
tls_certificate(void *payload, const char *host, bool valid, char **why)
{
	const struct daemon_watch *w = payload;

	if (w->conf->tls_insecure || valid)
		return 0;
	*why = xasprintf("TLS certificate of '%s' not trusted (%s%s)", host,
	    w->conf->tls_ca_file != NULL ? "tls.ca-file " : "",
	    w->conf->tls_ca_file != NULL ? w->conf->tls_ca_file
	                                 : "the system store");
	return -1;
}

/* Open STATE/repo, creating the bare clone on first use. */
static int
open_repo(struct daemon_watch *w, struct err *err)
{
	if (w->repo != NULL)
		return 0;
	if (afile_mkdirs(w->conf->state, 0750, err) < 0)
		return -1;
	return agent_git_open_clone(&w->repo, w->repo_dir, err);
}

int
daemon_watch_repo(struct daemon_watch *w, struct agent_git_repo **out,
    struct err *err)
{
	if (open_repo(w, err) < 0)
		return -1;
	*out = w->repo;
	return 0;
}

/* The fetch proper; runs in a child process (daemon_child_run). */
static int
fetch_child(void *arg, struct sbuf *msg)
{
	struct daemon_watch *w = arg;
	struct agent_git_fetch f;
	char *spec;
	int rc;

	spec = xasprintf("+refs/heads/%s:refs/remotes/origin/%s",
	    w->conf->branch, w->conf->branch);
	memset(&f, 0, sizeof(f));
	f.url = w->conf->repo_url;
	f.refspec = spec;
	f.credentials = credentials;
	f.ssh_host_key = ssh_host_key;
	f.tls_certificate = tls_certificate;
	f.payload = w;
	w->auth_tries = 0;
	rc = agent_git_fetch(w->repo, &f, msg);
	free(spec);
	return rc;
}

int
daemon_watch_fetch_step(const char *input, size_t len, struct sbuf *msg)
{
	const char *nl1 = memchr(input, '\n', len), *nl2;
	struct agent_conf *conf = NULL;
	struct daemon_watch *w = NULL;
	struct errlist d = {0};
	struct err err = {0};
	char *path, *base, *line;
	int rc = -1;

	nl2 = nl1 != NULL
	          ? memchr(nl1 + 1, '\n', len - (size_t)(nl1 + 1 - input))
	          : NULL;
	if (nl2 == NULL) {
		sbuf_adds(msg, "the fetch process got no configuration");
		return -1;
	}
	path = xstrndup(input, (size_t)(nl1 - input));
	base = xstrndup(nl1 + 1, (size_t)(nl2 - nl1 - 1));
	if (agent_conf_parse(&conf, path, base, nl2 + 1,
	        len - (size_t)(nl2 + 1 - input), &d) < 0) {
		line = d.n > 0 ? errlist_render_item(&d, 0) : NULL;
		sbuf_addf(msg,
		    "the fetch process cannot read the configuration: %s",
		    line != NULL ? line : "?");
		free(line);
	} else if (daemon_watch_open(&w, conf, &err) < 0 ||
	           open_repo(w, &err) < 0) {
		sbuf_adds(msg, err.msg);
	} else {
		agent_log_set_level((enum agent_log_prio)conf->log_level);
		rc = fetch_child(w, msg);
	}
	daemon_watch_free(w);
	agent_conf_free(conf);
	errlist_release(&d);
	err_release(&err);
	free(path);
	free(base);
	return rc;
}

/* Fetch in a child with a deadline, then read the branch head from the
 * clone, opened afresh: the child wrote new refs and packs. */
static int
fetch(struct daemon_watch *w, const struct daemon_child_wait *cw,
    char head[AGENT_GIT_OID_HEX + 1], struct err *err)
{
	struct err cerr = {0};
	struct daemon_child_exec ex;
	char *ref, *input, *full = NULL;
	int r;

	memset(&ex, 0, sizeof(ex));
	input = xasprintf("%s\n%s\n", w->conf->path,
	    w->conf->basedir != NULL ? w->conf->basedir : ".");
	ex.step = "fetch";
	ex.input = NULL;
	if (w->conf->text != NULL) {
		full = xasprintf("%s%s", input, w->conf->text);
		ex.input = full;
		ex.len = strlen(full);
	}
	r = daemon_child_run(fetch_child, w, ex.input != NULL ? &ex : NULL, cw,
	    &cerr);
	free(full);
	free(input);
	agent_git_close(w->repo);
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
	if (open_repo(w, err) < 0)
		return -1;
	ref = xasprintf("refs/remotes/origin/%s", w->conf->branch);
	r = 0;
	if (agent_git_ref(w->repo, ref, head, &cerr) < 0)
		r = err_setf(err, NULL, "branch '%s' not found in %s",
		    w->conf->branch, w->conf->repo_url);
	err_release(&cerr);
	free(ref);
	return r;
}

int
daemon_watch_poll(struct daemon_watch *w, const struct daemon_child_wait *cw,
    struct daemon_watch_update *u, struct err *err)
{
	int r;

	memset(u, 0, sizeof(*u));
	if (open_repo(w, err) < 0)
		return -1;
	r = fetch(w, cw, u->head, err);
	if (r < 0)
		return r;
	snprintf(u->prev, sizeof(u->prev), "%s", w->seen);
	agent_git_describe(w->repo, u->head, &u->summary, &u->author);
	if (w->seen[0] == '\0') {
		u->event = DAEMON_WATCH_FIRST;
		return 0;
	}
	if (strcmp(u->head, w->seen) == 0) {
		u->event = DAEMON_WATCH_SAME;
		return 0;
	}
	/* An unknown prev counts as a rewrite: the safe side. */
	if (agent_git_descends(w->repo, u->head, w->seen)) {
		u->event = DAEMON_WATCH_NEW;
		u->ncommits =
		    agent_git_count_new(w->repo, u->head, w->seen, REVWALK_MAX);
	} else {
		u->event = DAEMON_WATCH_REWRITE;
	}
	return 0;
}

int
daemon_watch_read_clusters(struct daemon_watch *w, const char *oid,
    struct agent_git_folder **out, size_t *nout, struct err *err)
{
	if (open_repo(w, err) < 0)
		return -1;
	return agent_git_read_clusters(w->repo, oid, w->conf->clusters_path,
	    out, nout, err);
}
