/* agent/conf.c: see conf.h. One row per key drives everything. */
#include "conf.h"

#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../declarations/yaml-tree.h"
#include "../lib/afile.h"
#include "../lib/http.h"
#include "../lib/utf8.h"
#include "../lib/xalloc.h"
#include "conf-int.h"

enum conf_type {
	CT_INT,
	CT_DURATION,
	CT_BOOL,
	CT_STR,
	CT_URL,
	CT_BRANCH,
	CT_RELPATH,  /* a folder inside the repository */
	CT_PATH,     /* a local path; relative to the config file's folder */
	CT_FILENAME, /* a file name in the credentials folder */
	CT_LOGLEVEL,
	CT_NAMES,   /* a list of user names and @group names */
	CT_FILES,   /* a list of file names in the credentials folder */
	CT_LISTEN,  /* host:port */
	CT_HEADER,  /* an HTTP header name */
	CT_TARGETS, /* notifications.targets (conf-notify.c) */
	CT_HTTPURL, /* an http:// or https:// URL */
	CT_WINDOWS, /* sync-windows (conf-windows.c) */
	CT_VERIFY,  /* repository.verify.mode: off, head, since-applied */
	CT_URLS,    /* a list of http:// or https:// URLs */
	CT_SHARD,   /* coordination.shard.mode: none, hash */
	CT_BACKEND, /* state-backend: file, etcd */
	CT_PREFIX,  /* an etcd key prefix: /name/.../ */
	CT_SIZE,    /* bytes: 512KiB, 64MiB, 1GiB (a bare number: bytes) */
};

struct conf_key {
	const char *name; /* dotted: "repository.url" */
	const char *def;  /* as written in YAML; "$VAR" = environment; NULL */
	const char *help;
	size_t off;
	long min, max; /* CT_INT, CT_DURATION, CT_SIZE */
	enum conf_type type;
	bool required;
};

/* One row: name, type, field, bounds, default, required, help. */
#define KEY(n, t, f, lo, hi, d, req, h)                                        \
	{                                                                      \
		.name = (n), .def = (d), .help = (h),                          \
		.off = offsetof(struct agent_conf, f), .min = (lo),            \
		.max = (hi), .type = (t), .required = (req)                    \
	}

static const struct conf_key keys[] = {
    KEY("version", CT_INT, version, 1, AGENT_CONF_VERSION_MAX, NULL, true,
        "format version of this file; `1`"),
    KEY("repository.url", CT_URL, repo_url, 0, 0, NULL, true,
        "the declarations repository: `file://`, `https://`, `http://`, "
        "`ssh://` or `user@host:path`"),
    KEY("repository.branch", CT_BRANCH, branch, 0, 0, "main", false,
        "the branch watched; each new commit on it is planned"),
    KEY("repository.path", CT_RELPATH, clusters_path, 0, 0, "", false,
        "folder inside the repository that holds one folder per cluster "
        "(empty: the repository root)"),
    KEY("repository.token-file", CT_FILENAME, git_token_file, 0, 0, NULL, false,
        "HTTPS: file in the credentials folder holding `token` or "
        "`user:token`"),
    KEY("repository.ssh-user", CT_STR, git_ssh_user, 0, 0, "git", false,
        "SSH: user name when the URL names none"),
    KEY("repository.ssh-key-file", CT_FILENAME, git_ssh_key_file, 0, 0, NULL,
        false, "SSH: private key file in the credentials folder"),
    KEY("repository.ssh-public-key-file", CT_FILENAME, git_ssh_pubkey_file, 0,
        0, NULL, false,
        "SSH: its public key file in the credentials folder (optional)"),
    KEY("repository.ssh-known-hosts", CT_PATH, git_ssh_known_hosts, 0, 0, NULL,
        false,
        "SSH: OpenSSH `known_hosts` file holding the server's host key "
        "(`ssh-keyscan -p PORT HOST`); required for SSH URLs, an unknown or "
        "changed host key is refused"),
    KEY("repository.fetch-timeout", CT_DURATION, fetch_timeout, 1, 3600, "120s",
        false,
        "a clone or fetch taking longer is stopped and retried with backoff "
        "(a git server that accepts and never answers)"),
    KEY("repository.verify.mode", CT_VERIFY, verify_mode, 0, 0, "off", false,
        "apply only signed commits: `off`, `head` (the head commit's "
        "signature) or `since-applied` (every first-parent commit since the "
        "cluster's applied revision, and the head); an unsigned or untrusted "
        "commit gets a refused preview (docs/policy.md, \"Signed commits "
        "only\")"),
    KEY("repository.verify.allowed-signers", CT_PATH, verify_allowed_signers, 0,
        0, NULL, false,
        "SSH signatures: an allowed signers file (`ssh-keygen(1)`, "
        "\"ALLOWED SIGNERS\"; git's `gpg.ssh.allowedSignersFile`), checked "
        "with `ssh-keygen -Y verify -n git`; read at start and on SIGHUP"),
    KEY("repository.verify.gpg-keyring", CT_PATH, verify_gpg_keyring, 0, 0,
        NULL, false,
        "OpenPGP signatures: a keyring file (`gpg --export`, binary or "
        "armored) or a GnuPG home folder whose public keys are trusted, and "
        "no other key; read at start and on SIGHUP"),
    KEY("poll-interval", CT_DURATION, poll_interval, 1, 86400, "60s", false,
        "how often the branch is fetched (`30s`, `5m`, `1h`)"),
    KEY("drift-interval", CT_DURATION, drift_interval, 10, 604800, "10m", false,
        "how often live state is compared with the last apply"),
    KEY("retry-max", CT_DURATION, retry_max, 1, 86400, "5m", false,
        "ceiling of the backoff after a git or broker outage"),
    KEY("broker-timeout", CT_DURATION, broker_timeout, 1, 600, "30s", false,
        "one Jolokia request to one broker, its connection included, is "
        "given up after this long: a read makes the node TIMEOUT in the "
        "preview, an operation fails the node in the apply (ADR-0084 D3)"),
    KEY("broker-reply-max", CT_SIZE, broker_reply_max, 1L << 20, 4L << 30,
        "256MiB", false,
        "the largest reply one read of one broker may send (it is read as "
        "it arrives, never held whole): a node whose reply is larger is "
        "BAD_RESPONSE, naming this key; a full read of 10,000 queues is "
        "about 6 MB"),
    KEY("state", CT_PATH, state, 0, 0, "$STATE_DIRECTORY", true,
        "state folder: clone, inventory, audit, lock (systemd: "
        "`StateDirectory=`)"),
    KEY("outbox", CT_PATH, outbox, 0, 0, NULL, false,
        "where previews and drift reports are posted (default: "
        "`<state>/outbox`)"),
    KEY("credentials", CT_PATH, credentials, 0, 0, "$CREDENTIALS_DIRECTORY",
        false, "folder of broker and git secrets (systemd: `LoadCredential=`)"),
    KEY("tls.ca-file", CT_PATH, tls_ca_file, 0, 0, NULL, false,
        "PEM bundle trusted for HTTPS to brokers, git and webhook targets "
        "(default: the system store)"),
    KEY("tls.client-cert-file", CT_PATH, tls_client_cert, 0, 0, NULL, false,
        "brokers only: the client certificate (PEM, its chain after it) "
        "sent to brokers whose Jolokia requires mutual TLS; with "
        "`tls.client-key-file`"),
    KEY("tls.client-key-file", CT_FILENAME, tls_client_key_file, 0, 0, NULL,
        false,
        "brokers only: its private key, a file in the credentials folder "
        "(unencrypted PEM, readable by its owner only, as every secret: "
        "\"Secrets\")"),
    KEY("tls.insecure", CT_BOOL, tls_insecure, 0, 0, "false", false,
        "git only: skip TLS verification of the git server (never in "
        "production); brokers are always verified: give them "
        "`tls.ca-file`; SSH host keys are always checked"),
    KEY("auto-apply-creates", CT_BOOL, auto_apply_creates, 0, 0, "false", false,
        "apply plans that only create objects without an approval; drift "
        "repair of missing objects too"),
    KEY("log-level", CT_LOGLEVEL, log_level, 0, 0, "info", false,
        "`err`, `warning`, `notice`, `info` or `debug`"),
    KEY("approvers", CT_NAMES, approvers, 0, 0, NULL, false,
        "who may approve: Unix user names and `@group` names "
        "(`[alice, '@ops']`); the agent acts only on an approval written "
        "by one of them, or by a member of one of the groups (default: "
        "any user; every approval must still be owned by the uid it "
        "records)"),
    KEY("sync-windows", CT_WINDOWS, windows, 0, 0, NULL, false,
        "when the agent may change the brokers: a list of windows, each a "
        "mapping: `kind` (`allow` or `deny`), `schedule` (cron, 5 fields, "
        "local time of the zone), `duration` (1s..31d), `time-zone` (an "
        "IANA name of /usr/share/zoneinfo), `clusters` (default: all); "
        "deny wins, with allow windows outside all of them is closed, "
        "none: always open (docs/policy.md)"),
    KEY("http.listen", CT_LISTEN, http_listen, 0, 0, NULL, false,
        "the web server's address: `8080` (the loopback address, "
        "127.0.0.1), `127.0.0.1:8080`, `[::1]:8080`, `:8080` (every "
        "address); unset: no server (docs/http-api.md)"),
    KEY("http.viewer-tokens", CT_FILES, http_viewer_tokens, 0, 0, NULL, false,
        "files in the credentials folder, each holding one token of the "
        "`viewer` role (read); the token's name is the file name without "
        "`.token`"),
    KEY("http.approver-tokens", CT_FILES, http_approver_tokens, 0, 0, NULL,
        false,
        "likewise, tokens of the `approver` role (read, approve, post an "
        "operator's delete-queue preview)"),
    KEY("http.anonymous-read", CT_BOOL, http_anonymous_read, 0, 0, "false",
        false,
        "serve the page and the API's reads without a token (approving "
        "always takes one)"),
    KEY("http.tls-cert-file", CT_PATH, http_tls_cert, 0, 0, NULL, false,
        "serve HTTPS: the server's certificate (PEM, its chain after it), "
        "with `http.tls-key-file`"),
    KEY("http.tls-key-file", CT_FILENAME, http_tls_key_file, 0, 0, NULL, false,
        "its private key, a file in the credentials folder"),
    KEY("http.client-address-header", CT_HEADER, http_client_header, 0, 0, NULL,
        false,
        "behind a reverse proxy: the header that carries the client's "
        "address (`X-Forwarded-For`: its last entry), logged in place of "
        "the proxy's"),
    KEY("http.session-ttl", CT_DURATION, http_session_ttl, 60, 604800, "8h",
        false, "a browser's sign-in expires after this long"),
    KEY("http.ready-intervals", CT_INT, http_ready_intervals, 1, 100, "3",
        false,
        "`/readyz` fails when the last good fetch or cycle is older than "
        "this many poll intervals"),
    KEY("notifications.targets", CT_TARGETS, targets, 0, 0, NULL, false,
        "webhook targets, each a mapping: `name`, `url` (or `url-file`, a "
        "file in the credentials folder holding it), `secret-file` (the "
        "HMAC-SHA256 key, credentials folder), `format` (`json` or "
        "`slack`), `events` (default `[\"*\"]`), `clusters` (default: "
        "all), `ca-file` (default `tls.ca-file`) (docs/notifications.md)"),
    KEY("notifications.timeout", CT_DURATION, notify_timeout, 1, 300, "10s",
        false, "one delivery attempt is given up after this long"),
    KEY("notifications.max-attempts", CT_INT, notify_attempts, 1, 100, "8",
        false,
        "attempts of one delivery before it is dropped (counted in "
        "`artemis_gitops_notifications_dropped_total`, logged once)"),
    KEY("notifications.retry-initial", CT_DURATION, notify_retry_initial, 1,
        3600, "10s", false,
        "the delay before the first retry; doubled after each failed "
        "attempt, with jitter"),
    KEY("notifications.retry-max", CT_DURATION, notify_retry_max, 1, 86400,
        "10m", false, "the ceiling of the retry delay"),
    KEY("notifications.spool-max", CT_INT, notify_spool_max, 1, 100000, "1000",
        false,
        "deliveries kept per target (`STATE/notifications/`); past it the "
        "oldest is dropped"),
    KEY("notifications.page-url", CT_HTTPURL, notify_page_url, 0, 0, NULL,
        false,
        "the web page's address as people open it "
        "(`https://gitops.example.com/`): messages link to the preview's "
        "page"),
    KEY("coordination.endpoints", CT_URLS, coord_endpoints, 0, 0, NULL, false,
        "etcd's client URLs (http:// or https://): with them, several "
        "agents share the clusters, one owner each at a time, fenced "
        "(docs/ha.md); without, the agent is alone"),
    KEY("coordination.ca-file", CT_PATH, coord_ca_file, 0, 0, NULL, false,
        "the CA etcd's certificate is checked against (default: the "
        "system's)"),
    KEY("coordination.client-cert-file", CT_PATH, coord_client_cert, 0, 0, NULL,
        false,
        "a client certificate for etcd (PEM), with "
        "`coordination.client-key-file`"),
    KEY("coordination.client-key-file", CT_FILENAME, coord_client_key_file, 0,
        0, NULL, false, "its key's file in the credentials folder"),
    KEY("coordination.user", CT_STR, coord_user, 0, 0, NULL, false,
        "etcd's user (etcd authentication), with "
        "`coordination.password-file`"),
    KEY("coordination.password-file", CT_FILENAME, coord_password_file, 0, 0,
        NULL, false, "its password's file in the credentials folder"),
    KEY("coordination.prefix", CT_PREFIX, coord_prefix, 0, 0,
        "/artemis-gitops/", false,
        "every key the agents write lives under it (one prefix per fleet)"),
    KEY("coordination.agent-id", CT_STR, coord_agent_id, 0, 0, NULL, false,
        "this agent's name among the others (`[A-Za-z0-9._-]`; default: "
        "the host name); unique per agent"),
    KEY("coordination.lease-ttl", CT_DURATION, coord_lease_ttl, 5, 300, "15s",
        false,
        "the agent's lease: an agent that stops renewing it loses "
        "its clusters this long after its last renewal"),
    KEY("coordination.lease-margin", CT_DURATION, coord_lease_margin, 1, 150,
        "5s", false,
        "no request that changes a broker is sent when the "
        "lease has less than this left"),
    KEY("coordination.request-timeout", CT_DURATION, coord_timeout, 1, 60, "3s",
        false, "one request to one etcd member"),
    KEY("coordination.shard.mode", CT_SHARD, coord_shard_mode, 0, 0, "none",
        false,
        "`none`: one leader holds every cluster, the others stand "
        "by; `hash`: each cluster has its own owner, chosen by rendezvous "
        "hashing over the agents alive"),
    KEY("state-backend", CT_BACKEND, state_backend, 0, 0, "file", false,
        "`file`: the state folder; `etcd`: what a successor needs (the "
        "inventory, suspensions, approvals, the audit) lives in etcd "
        "(needs `coordination.endpoints`)"),
};

#define NKEYS (sizeof(keys) / sizeof(keys[0]))

static const char *const type_names[] = {
    "integer",
    "duration",
    "boolean",
    "string",
    "URL",
    "branch name",
    "relative path",
    "path",
    "file name",
    "log level",
    "list of users and @groups",
    "list of file names",
    "host:port",
    "header name",
    "list of targets",
    "http(s) URL",
    "list of windows",
    "verify mode",
    "list of URLs",
    "shard mode",
    "state backend",
    "key prefix",
    "size",
};

struct loader {
	struct agent_conf *c;
	const char *basedir;
	struct errlist *diags;
	bool seen[NKEYS];
	struct pos section_pos[NKEYS]; /* where a key's section was, if any */
};

static char **
str_field(struct agent_conf *c, const struct conf_key *k)
{
	return (char **)(void *)((char *)c + k->off);
}

static long *
long_field(struct agent_conf *c, const struct conf_key *k)
{
	return (long *)(void *)((char *)c + k->off);
}

static bool *
bool_field(struct agent_conf *c, const struct conf_key *k)
{
	return (bool *)(void *)((char *)c + k->off);
}

static struct agent_conf_approvers *
names_field(struct agent_conf *c, const struct conf_key *k)
{
	return (struct agent_conf_approvers *)(void *)((char *)c + k->off);
}

static int check_line(struct loader *L, const struct conf_key *k, const char *v,
    const struct pos *pos);

static struct strv *
strv_field(struct agent_conf *c, const struct conf_key *k)
{
	return (struct strv *)(void *)((char *)c + k->off);
}

/* A list of file names of the credentials folder (http.*-tokens). */
static void
set_files(struct loader *L, const struct conf_key *k,
    const struct decl_yaml_node *vn)
{
	struct strv *v = strv_field(L->c, k);
	const struct decl_yaml_node *it;
	size_t i;

	if (vn->kind != DECL_YAML_SEQ) {
		errlist_add(L->diags, DIAG_ERROR, &vn->pos,
		    "'%s' must be a list of %s, not %s", k->name,
		    k->type == CT_URLS ? "URLs"
		                       : "file names in the credentials folder",
		    decl_yaml_node_is_null(vn) ? "empty"
		                               : decl_yaml_kind_name(vn));
		return;
	}
	for (i = 0; i < vn->n; i++) {
		it = vn->vals[i];
		if (it->kind != DECL_YAML_SCALAR ||
		    decl_yaml_node_is_null(it)) {
			errlist_add(L->diags, DIAG_ERROR, &it->pos,
			    "'%s' must list %s, not %s", k->name,
			    k->type == CT_URLS ? "URLs" : "file names",
			    decl_yaml_node_is_null(it)
			        ? "an empty entry"
			        : decl_yaml_kind_name(it));
			continue;
		}
		if (check_line(L, k, it->str, &it->pos) < 0)
			continue;
		if (k->type == CT_URLS && !agent_conf_http_url_ok(it->str)) {
			errlist_add(L->diags, DIAG_ERROR, &it->pos,
			    "'%s': '%s' must be an http:// or https:// URL with "
			    "a host and without a user or password",
			    k->name, it->str);
			continue;
		}
		if (k->type != CT_URLS && !agent_conf_filename_ok(it->str)) {
			errlist_add(L->diags, DIAG_ERROR, &it->pos,
			    "'%s': '%s' must be a file name in the credentials "
			    "folder, without '/'",
			    k->name, it->str);
			continue;
		}
		if (strv_has(v, it->str)) {
			errlist_add(L->diags, DIAG_ERROR, &it->pos,
			    "'%s': '%s' is listed twice", k->name, it->str);
			continue;
		}
		strv_add(v, it->str);
	}
}

/* A user or group name as written: no white space, ':' or ','. */
static bool
name_ok(const char *s)
{
	size_t i;

	for (i = 0; s[i] != '\0'; i++)
		if ((unsigned char)s[i] <= ' ' || s[i] == ':' || s[i] == ',' ||
		    s[i] == 0x7f)
			return false;
	return i > 0;
}

/* `approvers:`: a list of scalars, each a user name or "@group". */
static void
set_names(struct loader *L, const struct conf_key *k,
    const struct decl_yaml_node *vn)
{
	struct agent_conf_approvers *a = names_field(L->c, k);
	const struct decl_yaml_node *it;
	const char *name;
	size_t i;

	if (vn->kind != DECL_YAML_SEQ) {
		errlist_add(L->diags, DIAG_ERROR, &vn->pos,
		    "'%s' must be a list of user names and @group names, not %s",
		    k->name,
		    decl_yaml_node_is_null(vn) ? "empty"
		                               : decl_yaml_kind_name(vn));
		return;
	}
	if (vn->n == 0) {
		errlist_add(L->diags, DIAG_ERROR, &vn->pos,
		    "'%s' lists nobody: leave it out to accept an approval "
		    "from any user",
		    k->name);
		return;
	}
	a->v = xcalloc(vn->n, sizeof(*a->v));
	for (i = 0; i < vn->n; i++) {
		it = vn->vals[i];
		if (it->kind != DECL_YAML_SCALAR ||
		    decl_yaml_node_is_null(it)) {
			errlist_add(L->diags, DIAG_ERROR, &it->pos,
			    "'%s' must list user names and @group names, not %s",
			    k->name,
			    decl_yaml_node_is_null(it)
			        ? "an empty entry"
			        : decl_yaml_kind_name(it));
			continue;
		}
		name = it->str[0] == '@' ? it->str + 1 : it->str;
		if (!name_ok(name)) {
			errlist_add(L->diags, DIAG_ERROR, &it->pos,
			    "'%s': '%s' is not a user name or an @group name",
			    k->name, it->str);
			continue;
		}
		a->v[a->n].name = xstrdup(it->str);
		a->v[a->n].group = it->str[0] == '@';
		a->v[a->n].line = it->pos.line;
		a->v[a->n].col = it->pos.col;
		a->n++;
	}
}

static bool
is_string_type(enum conf_type t)
{
	return t == CT_STR || t == CT_URL || t == CT_BRANCH ||
	       t == CT_RELPATH || t == CT_PATH || t == CT_FILENAME ||
	       t == CT_LISTEN || t == CT_HEADER || t == CT_HTTPURL ||
	       t == CT_PREFIX;
}

/* A coordination.prefix: starts and ends with '/', no empty or dot
 * segment, printable ASCII without white space. */
static bool
prefix_ok(const char *v)
{
	size_t n = strlen(v), i;

	if (n < 2 || v[0] != '/' || v[n - 1] != '/' || strstr(v, "//") ||
	    strstr(v, "/./") || strstr(v, "/../"))
		return false;
	for (i = 0; i < n; i++)
		if ((unsigned char)v[i] <= ' ' || (unsigned char)v[i] >= 0x7f)
			return false;
	return true;
}

static int
set_number(struct loader *L, const struct conf_key *k, const char *v,
    const struct pos *pos)
{
	long n = 0;
	char *end = NULL;
	enum agent_log_prio p;

	if (k->type == CT_SHARD || k->type == CT_BACKEND) {
		const char *a = k->type == CT_SHARD ? "none" : "file";
		const char *b = k->type == CT_SHARD ? "hash" : "etcd";

		if (strcmp(v, a) != 0 && strcmp(v, b) != 0)
			return errlist_add(L->diags, DIAG_ERROR, pos,
			    "'%s' must be %s or %s, not '%s'", k->name, a, b,
			    v);
		*long_field(L->c, k) = strcmp(v, b) == 0;
		return 0;
	}
	if (k->type == CT_VERIFY) {
		if (agent_conf_verify_mode_parse(v, &n) < 0)
			return errlist_add(L->diags, DIAG_ERROR, pos,
			    "'%s' must be off, head or since-applied, not '%s'",
			    k->name, v);
		*long_field(L->c, k) = n;
		return 0;
	}
	if (k->type == CT_LOGLEVEL) {
		if (agent_log_level_parse(v, &p) < 0)
			return errlist_add(L->diags, DIAG_ERROR, pos,
			    "'%s' must be err, warning, notice, info or debug, "
			    "not '%s'",
			    k->name, v);
		*long_field(L->c, k) = (long)p;
		return 0;
	}
	if (k->type == CT_DURATION) {
		if (agent_conf_duration_parse(v, &n) < 0)
			return errlist_add(L->diags, DIAG_ERROR, pos,
			    "'%s' must be a duration like 30s, 5m, 1h or 1d, "
			    "not '%s'",
			    k->name, v);
	} else if (k->type == CT_SIZE) {
		if (agent_conf_size_parse(v, &n) < 0)
			return errlist_add(L->diags, DIAG_ERROR, pos,
			    "'%s' must be a size like 512KiB, 64MiB or 1GiB, "
			    "not '%s'",
			    k->name, v);
	} else {
		errno = 0;
		n = strtol(v, &end, 10);
		if (errno != 0 || end == v || *end != '\0')
			return errlist_add(L->diags, DIAG_ERROR, pos,
			    "'%s' must be an integer, not '%s'", k->name, v);
	}
	if (n < k->min || n > k->max) {
		if (k->type == CT_SIZE)
			return errlist_add(L->diags, DIAG_ERROR, pos,
			    "'%s' must be between %ldMiB and %ldMiB, not '%s'",
			    k->name, k->min >> 20, k->max >> 20, v);
		if (k->type == CT_DURATION)
			return errlist_add(L->diags, DIAG_ERROR, pos,
			    "'%s' must be between %lds and %lds, not %lds",
			    k->name, k->min, k->max, n);
		return errlist_add(L->diags, DIAG_ERROR, pos,
		    "'%s' must be between %ld and %ld, not %ld", k->name,
		    k->min, k->max, n);
	}
	*long_field(L->c, k) = n;
	return 0;
}

/* Every value is one line of text, whatever its type: a newline in
 * repository.url would forge a log line (every log line and preview
 * names the URL), a bidirectional control disguise a path; and no value
 * is echoed in a message with such a character in it. */
static int
check_line(struct loader *L, const struct conf_key *k, const char *v,
    const struct pos *pos)
{
	const char *why;
	char *shown;
	size_t at = 0;
	uint32_t cp = 0;

	why = utf8_find(v, utf8_line_problem, &at, &cp);
	if (why == NULL)
		return 0;
	shown = utf8_escape(v, utf8_line_problem);
	if (cp == 0xffffffffu)
		errlist_add(L->diags, DIAG_ERROR, pos,
		    "'%s' holds invalid UTF-8 at byte %zu ('%s')", k->name, at,
		    shown);
	else
		errlist_add(L->diags, DIAG_ERROR, pos,
		    "'%s' contains U+%04X (%s) at byte %zu; a setting is one "
		    "line of text ('%s')",
		    k->name, (unsigned)cp, why, at, shown);
	free(shown);
	return -1;
}

static int
check_string(struct loader *L, const struct conf_key *k, const char *v,
    const struct pos *pos)
{
	if (v[0] == '\0' && k->type != CT_RELPATH)
		return errlist_add(L->diags, DIAG_ERROR, pos,
		    "'%s' must not be empty", k->name);
	if (k->type == CT_URL && !agent_conf_url_ok(v))
		return errlist_add(L->diags, DIAG_ERROR, pos,
		    "'%s' is not a repository URL (use file://, https://, "
		    "http://, ssh:// or user@host:path): '%s'",
		    k->name, v);
	if (k->type == CT_BRANCH && !agent_conf_branch_ok(v))
		return errlist_add(L->diags, DIAG_ERROR, pos,
		    "'%s' is not a valid branch name: '%s'", k->name, v);
	if (k->type == CT_RELPATH && !agent_conf_relpath_ok(v))
		return errlist_add(L->diags, DIAG_ERROR, pos,
		    "'%s' must be a relative path inside the repository "
		    "without '..': '%s'",
		    k->name, v);
	if (k->type == CT_PREFIX && !prefix_ok(v))
		return errlist_add(L->diags, DIAG_ERROR, pos,
		    "'%s' must be a key prefix that starts and ends with '/', "
		    "without empty, '.' or '..' parts or white space, not "
		    "'%s'",
		    k->name, v);
	if (k->type == CT_HTTPURL && !agent_conf_http_url_ok(v))
		return errlist_add(L->diags, DIAG_ERROR, pos,
		    "'%s' must be an http:// or https:// URL with a host and "
		    "without a user or password, not '%s'",
		    k->name, v);
	if (k->type == CT_LISTEN && !agent_conf_listen_ok(v))
		return errlist_add(L->diags, DIAG_ERROR, pos,
		    "'%s' must be port, host:port, [v6]:port or :port with a "
		    "port from 0 to 65535, not '%s'",
		    k->name, v);
	if (k->type == CT_HEADER && strspn(v, "abcdefghijklmnopqrstuvwxyz"
	                                      "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	                                      "0123456789-") != strlen(v))
		return errlist_add(L->diags, DIAG_ERROR, pos,
		    "'%s' must be an HTTP header name (letters, digits and "
		    "'-'), not '%s'",
		    k->name, v);
	if (k->type == CT_FILENAME && !agent_conf_filename_ok(v))
		return errlist_add(L->diags, DIAG_ERROR, pos,
		    "'%s' must be a file name in the credentials folder, "
		    "without '/': '%s'",
		    k->name, v);
	return 0;
}

/* Store value v (from pos, or a default when pos is NULL) into key k. */
static int
set_value(struct loader *L, const struct conf_key *k, const char *v,
    const struct pos *pos)
{
	char **sp;

	if (check_line(L, k, v, pos) < 0)
		return -1;
	if (k->type == CT_BOOL) {
		if (strcmp(v, "true") != 0 && strcmp(v, "false") != 0)
			return errlist_add(L->diags, DIAG_ERROR, pos,
			    "'%s' must be true or false, not '%s'", k->name, v);
		*bool_field(L->c, k) = strcmp(v, "true") == 0;
		return 0;
	}
	if (!is_string_type(k->type))
		return set_number(L, k, v, pos);
	if (check_string(L, k, v, pos) < 0)
		return -1;
	sp = str_field(L->c, k);
	free(*sp);
	if (k->type == CT_PATH)
		*sp = agent_conf_resolve_path(L->basedir, v);
	else
		*sp = xstrdup(v);
	return 0;
}

static const struct conf_key *
find_key(const char *name, size_t *idx)
{
	size_t i;

	for (i = 0; i < NKEYS; i++) {
		if (strcmp(keys[i].name, name) == 0) {
			*idx = i;
			return &keys[i];
		}
	}
	return NULL;
}

/* True when some key lives in section `name.`. */
static bool
is_section(const char *name)
{
	size_t i, n = strlen(name);

	for (i = 0; i < NKEYS; i++)
		if (strncmp(keys[i].name, name, n) == 0 &&
		    keys[i].name[n] == '.')
			return true;
	return false;
}

/* A malformed section was reported: its keys are not also missing. */
static void
mark_section_seen(struct loader *L, const char *section)
{
	size_t i, n = strlen(section);

	for (i = 0; i < NKEYS; i++)
		if (strncmp(keys[i].name, section, n) == 0 &&
		    keys[i].name[n] == '.')
			L->seen[i] = true;
}

static void walk_map(struct loader *L, const struct decl_yaml_node *map,
    const char *prefix);

static void
walk_entry(struct loader *L, const struct decl_yaml_node *kn,
    const struct decl_yaml_node *vn, const char *prefix)
{
	char *name = xasprintf("%s%s", prefix, kn->str);
	const struct conf_key *k;
	size_t idx = 0, i;

	if (is_section(name)) {
		if (vn->kind != DECL_YAML_MAP) {
			errlist_add(L->diags, DIAG_ERROR, &vn->pos,
			    "'%s' must be a mapping, not %s", name,
			    decl_yaml_kind_name(vn));
			mark_section_seen(L, name);
		} else {
			for (i = 0; i < NKEYS; i++)
				if (strncmp(keys[i].name, name, strlen(name)) ==
				    0)
					L->section_pos[i] = vn->pos;
			free(name);
			name = xasprintf("%s%s.", prefix, kn->str);
			walk_map(L, vn, name);
		}
		free(name);
		return;
	}
	k = find_key(name, &idx);
	if (k == NULL) {
		char *shown = utf8_escape(name, utf8_line_problem);

		errlist_add(L->diags, DIAG_ERROR, &kn->pos, "unknown key '%s'",
		    shown);
		free(shown);
	} else if (k->type == CT_NAMES) {
		set_names(L, k, vn);
		L->seen[idx] = true;
	} else if (k->type == CT_FILES || k->type == CT_URLS) {
		set_files(L, k, vn);
		L->seen[idx] = true;
	} else if (k->type == CT_WINDOWS) {
		agent_conf_windows_parse(&L->c->windows, vn, L->diags);
		L->seen[idx] = true;
	} else if (k->type == CT_TARGETS) {
		agent_conf_targets_parse(&L->c->targets, vn, L->basedir,
		    L->diags);
		L->seen[idx] = true;
	} else if (vn->kind != DECL_YAML_SCALAR || decl_yaml_node_is_null(vn)) {
		errlist_add(L->diags, DIAG_ERROR, &vn->pos,
		    "'%s' must be a %s, not %s", name, type_names[k->type],
		    decl_yaml_node_is_null(vn) ? "empty"
		                               : decl_yaml_kind_name(vn));
		L->seen[idx] = true;
	} else {
		/* a bad value is reported; no default goes on top */
		set_value(L, k, vn->str, &vn->pos);
		L->seen[idx] = true;
	}
	free(name);
}

static void
walk_map(struct loader *L, const struct decl_yaml_node *map, const char *prefix)
{
	size_t i;

	for (i = 0; i < map->n; i++)
		walk_entry(L, map->keys[i], map->vals[i], prefix);
}

/* The environment variable's value for a "$VAR" default; systemd passes
 * several folders colon-separated in $STATE_DIRECTORY: the first counts. */
static char *
env_default(const char *def)
{
	const char *e = getenv(def + 1);
	size_t n;

	if (e == NULL || e[0] == '\0')
		return NULL;
	n = strcspn(e, ":");
	return xstrndup(e, n);
}

static void
apply_defaults(struct loader *L, const struct pos *root)
{
	const struct conf_key *k;
	const struct pos *at;
	char *v;
	size_t i;

	for (i = 0; i < NKEYS; i++) {
		k = &keys[i];
		if (L->seen[i])
			continue;
		at = L->section_pos[i].path != NULL ? &L->section_pos[i] : root;
		v = NULL;
		if (k->def != NULL && k->def[0] == '$')
			v = env_default(k->def);
		else if (k->def != NULL)
			v = xstrdup(k->def);
		if (v != NULL)
			set_value(L, k, v, at);
		else if (k->required && k->def != NULL)
			errlist_add(L->diags, DIAG_ERROR, at,
			    "missing key '%s' (and %s is not set)", k->name,
			    k->def);
		else if (k->required)
			errlist_add(L->diags, DIAG_ERROR, at,
			    "missing key '%s'", k->name);
		free(v);
	}
}

/* Where the repository.verify mapping is (root when there is none). */
static const struct pos *
verify_pos(const struct loader *L, const struct pos *root)
{
	size_t i = 0;

	if (find_key("repository.verify.mode", &i) == NULL ||
	    L->section_pos[i].path == NULL)
		return root;
	return &L->section_pos[i];
}

static const char *const verify_modes[] = {"off", "head", "since-applied"};

const char *
agent_conf_verify_mode_name(long mode)
{
	if (mode < 0 ||
	    (size_t)mode >= sizeof(verify_modes) / sizeof(verify_modes[0]))
		return "?";
	return verify_modes[mode];
}

int
agent_conf_verify_mode_parse(const char *s, long *out)
{
	size_t i;

	for (i = 0; i < sizeof(verify_modes) / sizeof(verify_modes[0]); i++)
		if (strcmp(s, verify_modes[i]) == 0) {
			*out = (long)i;
			return 0;
		}
	return -1;
}

/* coordination.* and state-backend together (docs/ha.md). */
static void
coord_check(struct loader *L, const struct pos *root)
{
	struct agent_conf *c = L->c;
	char host[256];
	size_t i;

	if (c->coord_endpoints.n == 0) {
		if (c->state_backend == AGENT_CONF_BACKEND_ETCD)
			errlist_add(L->diags, DIAG_ERROR, root,
			    "'state-backend' is etcd but there is no etcd: set "
			    "'coordination.endpoints'");
		return;
	}
	if ((c->coord_client_cert == NULL) !=
	    (c->coord_client_key_file == NULL))
		errlist_add(L->diags, DIAG_ERROR, root, "'%s' needs '%s'",
		    c->coord_client_cert != NULL
		        ? "coordination.client-cert-file"
		        : "coordination.client-key-file",
		    c->coord_client_cert != NULL
		        ? "coordination.client-key-file"
		        : "coordination.client-cert-file");
	if ((c->coord_user == NULL) != (c->coord_password_file == NULL))
		errlist_add(L->diags, DIAG_ERROR, root, "'%s' needs '%s'",
		    c->coord_user != NULL ? "coordination.user"
		                          : "coordination.password-file",
		    c->coord_user != NULL ? "coordination.password-file"
		                          : "coordination.user");
	if ((c->coord_client_key_file != NULL ||
	        c->coord_password_file != NULL) &&
	    c->credentials == NULL)
		errlist_add(L->diags, DIAG_ERROR, root,
		    "etcd credentials are configured but there is no "
		    "credentials folder (set 'credentials' or "
		    "$CREDENTIALS_DIRECTORY)");
	if (c->coord_lease_margin * 2 > c->coord_lease_ttl)
		errlist_add(L->diags, DIAG_ERROR, root,
		    "'coordination.lease-margin' (%lds) must be at most half "
		    "of 'coordination.lease-ttl' (%lds)",
		    c->coord_lease_margin, c->coord_lease_ttl);
	if (c->coord_timeout * 3 > c->coord_lease_ttl)
		errlist_add(L->diags, DIAG_ERROR, root,
		    "'coordination.request-timeout' (%lds) must be at most a "
		    "third of 'coordination.lease-ttl' (%lds): the lease is "
		    "renewed every third of it",
		    c->coord_timeout, c->coord_lease_ttl);
	for (i = 0; i < c->coord_endpoints.n; i++)
		if (http_url_is_cleartext(c->coord_endpoints.v[i]))
			errlist_add(L->diags, DIAG_WARNING, root,
			    "'coordination.endpoints': '%s' is plain http "
			    "beyond this host: what the agents store in etcd "
			    "travels in clear",
			    c->coord_endpoints.v[i]);
	if (c->coord_agent_id == NULL) {
		if (gethostname(host, sizeof(host)) < 0)
			snprintf(host, sizeof(host), "agent");
		host[sizeof(host) - 1] = '\0';
		c->coord_agent_id = xstrdup(host);
	}
	if (!agent_conf_filename_ok(c->coord_agent_id) ||
	    strspn(c->coord_agent_id,
	        "abcdefghijklmnopqrstuvwxyz"
	        "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") !=
	        strlen(c->coord_agent_id))
		errlist_add(L->diags, DIAG_ERROR, root,
		    "'coordination.agent-id' must be letters, digits, '.', "
		    "'_' and '-', not '%s'",
		    c->coord_agent_id);
}

static void
cross_check(struct loader *L, const struct pos *root)
{
	struct agent_conf *c = L->c;

	if (c->outbox == NULL && c->state != NULL)
		c->outbox = xasprintf("%s/outbox", c->state);
	if (c->git_ssh_pubkey_file != NULL && c->git_ssh_key_file == NULL)
		errlist_add(L->diags, DIAG_ERROR, root,
		    "'repository.ssh-public-key-file' needs "
		    "'repository.ssh-key-file'");
	if ((c->git_token_file != NULL || c->git_ssh_key_file != NULL) &&
	    c->credentials == NULL)
		errlist_add(L->diags, DIAG_ERROR, root,
		    "git credentials are configured but there is no "
		    "credentials folder (set 'credentials' or "
		    "$CREDENTIALS_DIRECTORY)");
	if (c->repo_url != NULL && c->git_token_file != NULL &&
	    strncmp(c->repo_url, "http://", 7) == 0)
		errlist_add(L->diags, DIAG_WARNING, root,
		    "'repository.token-file' is sent unencrypted over http://");
	if (c->repo_url != NULL && agent_conf_url_has_password(c->repo_url))
		errlist_add(L->diags, DIAG_ERROR, root,
		    "'repository.url' holds a password or token: put it in "
		    "the credentials folder and name it in "
		    "'repository.token-file'");
	if (c->repo_url != NULL && agent_conf_url_is_ssh(c->repo_url) &&
	    c->git_ssh_known_hosts == NULL)
		errlist_add(L->diags, DIAG_ERROR, root,
		    "'repository.url' is an SSH URL: set "
		    "'repository.ssh-known-hosts' to a known_hosts file holding "
		    "the server's host key");
	if ((c->tls_client_cert == NULL) != (c->tls_client_key_file == NULL))
		errlist_add(L->diags, DIAG_ERROR, root, "'%s' needs '%s'",
		    c->tls_client_cert != NULL ? "tls.client-cert-file"
		                               : "tls.client-key-file",
		    c->tls_client_cert != NULL ? "tls.client-key-file"
		                               : "tls.client-cert-file");
	if (c->tls_client_key_file != NULL && c->credentials == NULL)
		errlist_add(L->diags, DIAG_ERROR, root,
		    "'tls.client-key-file' is configured but there is no "
		    "credentials folder (set 'credentials' or "
		    "$CREDENTIALS_DIRECTORY)");
	if ((c->http_tls_cert == NULL) != (c->http_tls_key_file == NULL))
		errlist_add(L->diags, DIAG_ERROR, root, "'%s' needs '%s'",
		    c->http_tls_cert != NULL ? "http.tls-cert-file"
		                             : "http.tls-key-file",
		    c->http_tls_cert != NULL ? "http.tls-key-file"
		                             : "http.tls-cert-file");
	if ((c->http_viewer_tokens.n > 0 || c->http_approver_tokens.n > 0 ||
	        c->http_tls_key_file != NULL) &&
	    c->credentials == NULL)
		errlist_add(L->diags, DIAG_ERROR, root,
		    "http tokens or 'http.tls-key-file' are configured but "
		    "there is no credentials folder (set 'credentials' or "
		    "$CREDENTIALS_DIRECTORY)");
	if (c->http_listen != NULL && c->http_viewer_tokens.n == 0 &&
	    c->http_approver_tokens.n == 0 && !c->http_anonymous_read)
		errlist_add(L->diags, DIAG_WARNING, root,
		    "'http.listen' is set without tokens and without "
		    "'http.anonymous-read': every request but /healthz, "
		    "/readyz and /metrics gets 401");
	if (c->targets.n > 0 && c->credentials == NULL)
		errlist_add(L->diags, DIAG_ERROR, root,
		    "'notifications.targets' are configured but there is no "
		    "credentials folder for their secrets (set 'credentials' "
		    "or $CREDENTIALS_DIRECTORY)");
	if (c->notify_retry_max < c->notify_retry_initial)
		errlist_add(L->diags, DIAG_ERROR, root,
		    "'notifications.retry-max' (%lds) is shorter than "
		    "'notifications.retry-initial' (%lds)",
		    c->notify_retry_max, c->notify_retry_initial);
	if (c->verify_mode != AGENT_CONF_VERIFY_OFF &&
	    c->verify_allowed_signers == NULL && c->verify_gpg_keyring == NULL)
		errlist_add(L->diags, DIAG_ERROR, verify_pos(L, root),
		    "'repository.verify.mode' is %s but no signer is trusted: "
		    "set 'repository.verify.allowed-signers' (SSH) or "
		    "'repository.verify.gpg-keyring' (OpenPGP), or both",
		    agent_conf_verify_mode_name(c->verify_mode));
	if (c->verify_mode == AGENT_CONF_VERIFY_OFF &&
	    (c->verify_allowed_signers != NULL ||
	        c->verify_gpg_keyring != NULL))
		errlist_add(L->diags, DIAG_WARNING, verify_pos(L, root),
		    "'repository.verify.mode' is off: the configured signers "
		    "are not checked, and unsigned commits are applied");
	coord_check(L, root);
	if (c->tls_insecure)
		errlist_add(L->diags, DIAG_WARNING, root,
		    "'tls.insecure' is on: the git server's TLS certificate "
		    "is not verified (it applies to git only: brokers' "
		    "certificates are still verified)");
}

int
agent_conf_parse(struct agent_conf **out, const char *path, const char *basedir,
    const char *text, size_t len, struct errlist *diags)
{
	struct decl_yaml_node *root = NULL;
	struct loader L;
	struct pos rootpos = {path, 1, 1};
	size_t before = diags->nerrors;

	memset(&L, 0, sizeof(L));
	if (decl_yaml_parse(&root, path, text, len, diags) < 0)
		return -1;
	L.c = xcalloc(1, sizeof(*L.c));
	L.c->path = xstrdup(path);
	L.c->basedir = xstrdup(basedir);
	L.c->text = xstrndup(text, len);
	L.c->text_len = strlen(L.c->text);
	L.basedir = basedir;
	L.diags = diags;
	if (root->kind != DECL_YAML_MAP)
		errlist_add(diags, DIAG_ERROR, &root->pos,
		    "the configuration must be a mapping, not %s",
		    decl_yaml_kind_name(root));
	else
		walk_map(&L, root, "");
	apply_defaults(&L, &rootpos);
	cross_check(&L, &rootpos);
	decl_yaml_node_free(root);
	if (diags->nerrors > before) {
		agent_conf_free(L.c);
		return -1;
	}
	*out = L.c;
	return 0;
}

/* Look up every user and group of `approvers:`; -1 when one is unknown
 * (each reported at its position). */
static int
resolve_approvers(struct agent_conf *c, struct errlist *diags)
{
	struct agent_conf_approver *a;
	struct passwd *pw;
	struct group *gr;
	struct pos pos;
	size_t i;
	int rc = 0;

	for (i = 0; i < c->approvers.n; i++) {
		a = &c->approvers.v[i];
		pos.path = c->path;
		pos.line = a->line;
		pos.col = a->col;
		errno = 0;
		if (a->group) {
			gr = getgrnam(a->name + 1);
			if (gr != NULL) {
				a->id = (unsigned long)gr->gr_gid;
				continue;
			}
		} else {
			pw = getpwnam(a->name);
			if (pw != NULL) {
				a->id = (unsigned long)pw->pw_uid;
				continue;
			}
		}
		rc = -1;
		if (errno != 0 && errno != ENOENT && errno != ESRCH)
			errlist_add(diags, DIAG_ERROR, &pos,
			    "'approvers': cannot look up %s '%s': %s",
			    a->group ? "group" : "user",
			    a->group ? a->name + 1 : a->name, strerror(errno));
		else
			errlist_add(diags, DIAG_ERROR, &pos,
			    "'approvers': unknown %s '%s'",
			    a->group ? "group" : "user",
			    a->group ? a->name + 1 : a->name);
	}
	return rc;
}

int
agent_conf_load(struct agent_conf **out, const char *path,
    struct errlist *diags)
{
	struct agent_conf *c = NULL;
	struct err err = {0};
	char *text = NULL, *dir, *slash, *abs;
	size_t len = 0;
	int r;

	if (afile_read(&text, &len, path, AGENT_CONF_FILE_MAX, &err) < 0) {
		/* afile's message names the file already */
		errlist_add(diags, DIAG_ERROR, NULL, "%s", err.msg);
		err_release(&err);
		return -1;
	}
	dir = xstrdup(path);
	slash = strrchr(dir, '/');
	if (slash == NULL) {
		free(dir);
		dir = xstrdup(".");
	} else if (slash == dir) {
		dir[1] = '\0';
	} else {
		*slash = '\0';
	}
	/* Relative paths in the file become absolute: the daemon's log and
	 * the posted previews name folders an operator can paste. */
	abs = realpath(dir, NULL);
	r = agent_conf_parse(&c, path, abs != NULL ? abs : dir, text, len,
	    diags);
	if (r == 0 && resolve_approvers(c, diags) < 0) {
		agent_conf_free(c);
		r = -1;
	} else if (r == 0) {
		*out = c;
	}
	free(abs);
	free(dir);
	free(text);
	return r;
}

void
agent_conf_free(struct agent_conf *c)
{
	size_t i;

	if (c == NULL)
		return;
	for (i = 0; i < NKEYS; i++)
		if (is_string_type(keys[i].type))
			free(*str_field(c, &keys[i]));
	for (i = 0; i < NKEYS; i++)
		if (keys[i].type == CT_FILES || keys[i].type == CT_URLS)
			strv_release(strv_field(c, &keys[i]));
	agent_conf_targets_release(&c->targets);
	agent_windows_release(&c->windows);
	for (i = 0; i < c->approvers.n; i++)
		free(c->approvers.v[i].name);
	free(c->approvers.v);
	free(c->path);
	free(c->basedir);
	free(c->text);
	free(c);
}

void
agent_conf_describe(struct sbuf *out)
{
	const struct conf_key *k;
	size_t i;

	sbuf_adds(out, "| key | type | default | description |\n"
	               "|---|---|---|---|\n");
	for (i = 0; i < NKEYS; i++) {
		k = &keys[i];
		sbuf_addf(out, "| `%s` | %s", k->name, type_names[k->type]);
		if (k->type == CT_INT || k->type == CT_DURATION)
			sbuf_addf(out, " (%ld..%ld%s)", k->min, k->max,
			    k->type == CT_DURATION ? "s" : "");
		if (k->type == CT_SIZE)
			sbuf_addf(out, " (%ldMiB..%ldMiB)", k->min >> 20,
			    k->max >> 20);
		if (k->def != NULL && k->def[0] != '\0')
			sbuf_addf(out, " | `%s`", k->def);
		else if (k->def != NULL)
			sbuf_adds(out, " | empty");
		else
			sbuf_adds(out, k->required ? " | required" : " | none");
		sbuf_addf(out, " | %s |\n", k->help);
	}
}
