/* agent/conf.h: the agent's own configuration (docs/agent-config.md).
 *
 * A YAML file read through the declarations' YAML layer, so every problem
 * is reported as `path:line:col: message`, all of them at once (up to the
 * errlist cap). The keys are one table in conf.c (name, type, offset,
 * bounds, default, required, help), which drives loading, validation and
 * agent_conf_describe(), the reference table of docs/agent-config.md.
 *
 * A loaded struct agent_conf is never mutated: SIGHUP builds a new one and
 * swaps the pointer only when it loaded cleanly (style.md 2.6).
 */
#ifndef AGENT_CONF_H
#define AGENT_CONF_H

#include <stdbool.h>
#include <stddef.h>

#include "../lib/err.h"
#include "../lib/sbuf.h"
#include "../lib/strv.h"
#include "log.h"
#include "window.h"

#define AGENT_CONF_VERSION_MAX 1 /* newest format this build reads */
#define AGENT_CONF_FILE_MAX    ((size_t)64 * 1024) /* bytes of the file */

/* One entry of `approvers:`. */
struct agent_conf_approver {
	char *name;         /* as written: "alice", or "@ops" for a group */
	unsigned line, col; /* where, in the configuration file */
	bool group;         /* "@name" */
	unsigned long id;   /* its uid or gid (agent_conf_load looks it up) */
};

struct agent_conf_approvers {
	struct agent_conf_approver *v;
	size_t n; /* 0: the key is absent, any user may approve */
};

/* The body a webhook target is sent (docs/notifications.md). */
enum agent_conf_body {
	AGENT_CONF_BODY_JSON = 0, /* ours, versioned */
	AGENT_CONF_BODY_SLACK,    /* Slack's incoming webhooks (Mattermost,
	                             Rocket.Chat) */
};

/* One entry of `notifications.targets`. */
struct agent_conf_target {
	char *name;        /* [A-Za-z0-9._-], unique: metrics, spool, logs */
	char *url;         /* http:// or https://, or NULL with url_file */
	char *url_file;    /* a file of the credentials folder holding it */
	char *secret_file; /* the HMAC key's file, credentials folder */
	char *ca_file;     /* absolute, or NULL: tls.ca-file */
	enum agent_conf_body body;
	struct strv events;   /* patterns (agent_event_pattern_ok); never
	                         empty: "*" when not given */
	struct strv clusters; /* empty: every cluster */
	unsigned line, col;   /* where, in the configuration file */
};

struct agent_conf_targets {
	struct agent_conf_target *v;
	size_t n;
};

#define AGENT_CONF_TARGETS_MAX 32 /* entries of notifications.targets */
#define AGENT_CONF_WINDOWS_MAX 64 /* entries of sync-windows */

struct agent_conf {
	char *path; /* the file it was loaded from */
	/* what it was parsed from, for a child process that parses it again
	 * (the daemon's fetch: agent/daemon/child.c) */
	char *basedir, *text;
	size_t text_len;
	long version;
	char *repo_url;            /* repository.url */
	char *branch;              /* repository.branch */
	char *clusters_path;       /* repository.path: "" = repository root */
	char *git_token_file;      /* repository.token-file: NULL = none */
	char *git_ssh_user;        /* repository.ssh-user */
	char *git_ssh_key_file;    /* repository.ssh-key-file: NULL = none */
	char *git_ssh_pubkey_file; /* repository.ssh-public-key-file */
	char *git_ssh_known_hosts; /* repository.ssh-known-hosts: absolute */
	long fetch_timeout;        /* seconds: repository.fetch-timeout */
	/* repository.verify.*: only signed commits (agent/verify.h) */
	long verify_mode;             /* enum agent_conf_verify */
	char *verify_allowed_signers; /* absolute, or NULL */
	char *verify_gpg_keyring;     /* absolute, or NULL */
	long poll_interval;           /* seconds */
	long drift_interval;          /* seconds */
	long retry_max;        /* seconds: ceiling of the outage backoff */
	long broker_timeout;   /* seconds: one Jolokia request to a broker */
	long broker_reply_max; /* bytes of one broker read's reply */
	char *state;           /* absolute */
	char *outbox;          /* absolute; default <state>/outbox */
	char *credentials;     /* absolute; NULL when none is configured */
	char *tls_ca_file;     /* absolute or NULL (system store) */
	char *tls_client_cert; /* tls.client-cert-file: absolute or NULL */
	char *tls_client_key_file; /* tls.client-key-file (credentials) */
	bool tls_insecure;         /* tls.insecure: git only */
	bool auto_apply_creates;
	long log_level; /* enum agent_log_prio */
	struct agent_conf_approvers approvers;
	/* sync-windows: when clusters may be changed (window.h,
	 * docs/policy.md); n 0: always */
	struct agent_windows windows;
	/* http.*: the web server (agent/web/, docs/http-api.md) */
	char *http_listen;                /* NULL: no server */
	struct strv http_viewer_tokens;   /* file names, credentials folder */
	struct strv http_approver_tokens; /* likewise */
	bool http_anonymous_read;
	char *http_tls_cert;       /* absolute, or NULL: plain HTTP */
	char *http_tls_key_file;   /* a file name, credentials folder */
	char *http_client_header;  /* a reverse proxy's, e.g. X-Forwarded-For */
	long http_session_ttl;     /* seconds */
	long http_ready_intervals; /* /readyz: within this many intervals */
	/* notifications.*: webhooks (agent/webhook/, docs/notifications.md) */
	struct agent_conf_targets targets;
	long notify_timeout;       /* seconds: one delivery attempt */
	long notify_attempts;      /* attempts before a delivery is dropped */
	long notify_retry_initial; /* seconds: the first retry's delay */
	long notify_retry_max;     /* seconds: the backoff's ceiling */
	long notify_spool_max;     /* deliveries kept per target */
	char *notify_page_url;     /* where people open the page, or NULL */
	/* coordination.*: several agents on etcd (agent/coord.h,
	 * docs/ha.md); no endpoints: one agent alone */
	struct strv coord_endpoints;
	char *coord_ca_file;         /* absolute, or NULL: system store */
	char *coord_client_cert;     /* absolute, or NULL */
	char *coord_client_key_file; /* credentials folder */
	char *coord_user;            /* etcd's authentication, or NULL */
	char *coord_password_file;   /* credentials folder */
	char *coord_prefix;          /* every key under it; ends in '/' */
	char *coord_agent_id;        /* this agent's name among the others */
	long coord_lease_ttl;        /* seconds */
	long coord_lease_margin;     /* seconds: no mutation with less left */
	long coord_timeout;          /* seconds: one etcd request */
	long coord_shard_mode;       /* enum agent_conf_shard */
	long state_backend;          /* enum agent_conf_backend */
};

/* coordination.shard.mode. */
enum agent_conf_shard {
	AGENT_CONF_SHARD_NONE = 0, /* one leader holds every cluster */
	AGENT_CONF_SHARD_HASH,     /* each cluster to one agent (rendezvous) */
};

/* state-backend. */
enum agent_conf_backend {
	AGENT_CONF_BACKEND_FILE = 0, /* the state folder */
	AGENT_CONF_BACKEND_ETCD,     /* etcd, under coordination.prefix */
};

/* repository.verify.mode. */
enum agent_conf_verify {
	AGENT_CONF_VERIFY_OFF = 0,
	AGENT_CONF_VERIFY_HEAD,          /* the head commit */
	AGENT_CONF_VERIFY_SINCE_APPLIED, /* every first-parent commit since the
	                                    cluster's applied revision */
};

/* "off", "head", "since-applied". */
const char *agent_conf_verify_mode_name(long mode);
/* The mode named s; -1 when s names none. */
int agent_conf_verify_mode_parse(const char *s, long *out);

/* Is s an http.listen address: "host:port", "[v6]:port", ":port" (every
 * address) or a bare "port" (the loopback address), port 0-65535? */
bool agent_conf_listen_ok(const char *s);

/* Is s an http:// or https:// URL with a host and no user part (a
 * webhook's, notifications.page-url)? */
bool agent_conf_http_url_ok(const char *s);

/* Parse a configuration held in memory. path names it in diagnostics;
 * relative paths in it are taken relative to basedir (the config file's
 * folder). Environment defaults ($STATE_DIRECTORY,
 * $CREDENTIALS_DIRECTORY) are read here. Returns 0 and sets *out (owned by
 * the caller) when diags received no error; else -1 and *out is
 * untouched. */
int agent_conf_parse(struct agent_conf **out, const char *path,
    const char *basedir, const char *text, size_t len, struct errlist *diags);
/* Read path (at most AGENT_CONF_FILE_MAX bytes) and parse it; then look
 * up every user and group of `approvers:` (getpwnam, getgrnam): one that
 * does not exist is an error at its position. (agent_conf_parse leaves
 * the ids 0: it reads no user database.) */
int agent_conf_load(struct agent_conf **out, const char *path,
    struct errlist *diags);
void agent_conf_free(struct agent_conf *c); /* NULL is a no-op */

/* The key reference as a Markdown table (docs/agent-config.md). */
void agent_conf_describe(struct sbuf *out);

/* Parse a duration: an integer followed by s, m, h or d ("30s", "5m");
 * a bare integer is seconds. */
int agent_conf_duration_parse(const char *s, long *out);
/* Parse a size: an integer followed by nothing or B (bytes), KiB, MiB or
 * GiB ("64MiB"). */
int agent_conf_size_parse(const char *s, long *out);

#endif
