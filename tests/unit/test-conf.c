/* tests/unit/test-conf.c: agent/conf.c, the agent's configuration: keys,
 * values, defaults, and every value one line of visible text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../agent/conf.h"
#include "../../lib/afile.h"
#include "../../lib/xalloc.h"
#include "conf-fixture.h"

static int
setup(void **state)
{
	(void)state;
	unsetenv("STATE_DIRECTORY");
	unsetenv("CREDENTIALS_DIRECTORY");
	return 0;
}

static void
test_conf__defaults(void **state)
{
	struct agent_conf *c;

	(void)state;
	c = parse_ok("version: 1\n"
	             "repository: {url: 'file:///srv/git/brokers.git'}\n"
	             "state: /var/lib/ag\n");
	assert_string_equal(c->repo_url, "file:///srv/git/brokers.git");
	assert_string_equal(c->branch, "main");
	assert_string_equal(c->clusters_path, "");
	assert_string_equal(c->git_ssh_user, "git");
	assert_null(c->git_token_file);
	assert_int_equal(c->poll_interval, 60);
	assert_int_equal(c->fetch_timeout, 120);
	assert_null(c->git_ssh_known_hosts);
	assert_int_equal(c->drift_interval, 600);
	assert_int_equal(c->retry_max, 300);
	assert_string_equal(c->state, "/var/lib/ag");
	assert_string_equal(c->outbox, "/var/lib/ag/outbox");
	assert_null(c->credentials);
	assert_null(c->tls_ca_file);
	assert_null(c->tls_client_cert);
	assert_null(c->tls_client_key_file);
	assert_false(c->tls_insecure);
	assert_false(c->auto_apply_creates);
	assert_int_equal(c->log_level, AGENT_LOG_INFO);
	agent_conf_free(c);
}

static void
test_conf__every_key(void **state)
{
	struct agent_conf *c;

	(void)state;
	c = parse_ok("version: 1\n"
	             "repository:\n"
	             "  url: https://git.example/ops/brokers.git\n"
	             "  branch: release/eu\n"
	             "  path: clusters/eu\n"
	             "  token-file: git-token\n"
	             "  ssh-user: deploy\n"
	             "  ssh-key-file: id_ed25519\n"
	             "  ssh-public-key-file: id_ed25519.pub\n"
	             "  ssh-known-hosts: known_hosts\n"
	             "  fetch-timeout: 45s\n"
	             "poll-interval: 30s\n"
	             "drift-interval: 2h\n"
	             "retry-max: 90\n"
	             "broker-timeout: 12s\n"
	             "state: state/\n"
	             "outbox: /srv/outbox\n"
	             "credentials: creds\n"
	             "tls: {ca-file: ca.pem, insecure: true, client-cert-file: "
	             "agent.pem, client-key-file: agent.key}\n"
	             "auto-apply-creates: true\n"
	             "log-level: debug\n");
	assert_string_equal(c->branch, "release/eu");
	assert_string_equal(c->clusters_path, "clusters/eu");
	assert_string_equal(c->git_token_file, "git-token");
	assert_string_equal(c->git_ssh_user, "deploy");
	assert_string_equal(c->git_ssh_key_file, "id_ed25519");
	assert_string_equal(c->git_ssh_pubkey_file, "id_ed25519.pub");
	assert_string_equal(c->git_ssh_known_hosts, "/etc/ag/known_hosts");
	assert_int_equal(c->fetch_timeout, 45);
	assert_int_equal(c->poll_interval, 30);
	assert_int_equal(c->drift_interval, 7200);
	assert_int_equal(c->retry_max, 90);
	assert_int_equal(c->broker_timeout, 12);
	assert_string_equal(c->state, "/etc/ag/state");
	assert_string_equal(c->outbox, "/srv/outbox");
	assert_string_equal(c->credentials, "/etc/ag/creds");
	assert_string_equal(c->tls_ca_file, "/etc/ag/ca.pem");
	assert_string_equal(c->tls_client_cert, "/etc/ag/agent.pem");
	assert_string_equal(c->tls_client_key_file, "agent.key");
	assert_true(c->tls_insecure);
	assert_true(c->auto_apply_creates);
	assert_int_equal(c->log_level, AGENT_LOG_DEBUG);
	agent_conf_free(c);
}

static void
test_conf__systemd_environment_defaults(void **state)
{
	struct agent_conf *c;

	(void)state;
	setenv("STATE_DIRECTORY", "/var/lib/artemis-gitops:/var/lib/other", 1);
	setenv("CREDENTIALS_DIRECTORY", "/run/credentials/ag.service", 1);
	c = parse_ok("version: 1\nrepository: {url: 'git@host:ops/b.git', "
	             "ssh-known-hosts: /etc/ag/known_hosts}\n");
	assert_string_equal(c->state, "/var/lib/artemis-gitops");
	assert_string_equal(c->credentials, "/run/credentials/ag.service");
	assert_string_equal(c->outbox, "/var/lib/artemis-gitops/outbox");
	assert_int_equal(c->broker_timeout, 30);
	agent_conf_free(c);
	unsetenv("STATE_DIRECTORY");
	unsetenv("CREDENTIALS_DIRECTORY");
}

static void
test_conf__missing_required_keys(void **state)
{
	(void)state;
	T_BAD("poll-interval: 5s\n",
	    "c.yaml:1:1: missing key 'version'\n"
	    "c.yaml:1:1: missing key 'repository.url'\n"
	    "c.yaml:1:1: missing key 'state' (and $STATE_DIRECTORY is not "
	    "set)\n");
	T_BAD("version: 1\nstate: /s\nrepository:\n  branch: main\n",
	    "c.yaml:4:3: missing key 'repository.url'\n");
}

static void
test_conf__unknown_keys_are_errors(void **state)
{
	(void)state;
	T_BAD("version: 1\nrepository: {url: 'file:///r', brnch: x}\n"
	      "state: /s\npoll-intervall: 5s\n",
	    "c.yaml:2:32: unknown key 'repository.brnch'\n"
	    "c.yaml:4:1: unknown key 'poll-intervall'\n");
}

static void
test_conf__values_are_checked(void **state)
{
	(void)state;
	T_BAD("version: 2\n"
	      "repository:\n"
	      "  url: ftp://x/y\n"
	      "  branch: 'a..b'\n"
	      "  path: ../up\n"
	      "  token-file: /etc/token\n"
	      "poll-interval: 0s\n"
	      "drift-interval: soon\n"
	      "state: ''\n"
	      "tls: {insecure: yes}\n"
	      "log-level: loud\n"
	      "broker-timeout: 11m\n",
	    "c.yaml:1:10: 'version' must be between 1 and 1, not 2\n"
	    "c.yaml:3:8: 'repository.url' is not a repository URL (use "
	    "file://, https://, http://, ssh:// or user@host:path): "
	    "'ftp://x/y'\n"
	    "c.yaml:4:11: 'repository.branch' is not a valid branch name: "
	    "'a..b'\n"
	    "c.yaml:5:9: 'repository.path' must be a relative path inside "
	    "the repository without '..': '../up'\n"
	    "c.yaml:6:15: 'repository.token-file' must be a file name in the "
	    "credentials folder, without '/': '/etc/token'\n"
	    "c.yaml:7:16: 'poll-interval' must be between 1s and 86400s, not "
	    "0s\n"
	    "c.yaml:8:17: 'drift-interval' must be a duration like 30s, 5m, "
	    "1h or 1d, not 'soon'\n"
	    "c.yaml:9:8: 'state' must not be empty\n"
	    "c.yaml:10:17: 'tls.insecure' must be true or false, not 'yes'\n"
	    "c.yaml:11:12: 'log-level' must be err, warning, notice, info or "
	    "debug, not 'loud'\n"
	    "c.yaml:12:17: 'broker-timeout' must be between 1s and 600s, not "
	    "660s\n");
}

/* Every value is one line of visible text (issue 14, defect 12): a
 * repository URL holding a newline would forge a log line. */
static void
test_conf__values_are_one_line(void **state)
{
	(void)state;
	T_BAD(
	    "version: 1\nstate: /s\n"
	    "repository: {url: \"file:///r\\n10:00:00 notice cycle: applied\"}\n",
	    "c.yaml:3:19: 'repository.url' contains U+000A (a control "
	    "character) at byte 9; a setting is one line of text "
	    "('file:///r<U+000A>10:00:00 notice cycle: applied')\n");
	T_BAD("version: 1\nrepository: {url: 'file:///r'}\n"
	      "state: \"/var/lib/\\tag\"\n"
	      "outbox: \"/o\\x85x\"\n"
	      "credentials: \"/c\\u2028d\"\n"
	      "tls: {ca-file: \"/ca\\u202Etxt.pem\"}\n"
	      "log-level: \"info\\r\"\n"
	      "poll-interval: \"5s\\e\"\n",
	    "c.yaml:3:8: 'state' contains U+0009 (a control character) at "
	    "byte 9; a setting is one line of text ('/var/lib/<U+0009>ag')\n"
	    "c.yaml:4:9: 'outbox' contains U+0085 (a control character) at "
	    "byte 2; a setting is one line of text ('/o<U+0085>x')\n"
	    "c.yaml:5:14: 'credentials' contains U+2028 (a line or paragraph "
	    "separator) at byte 2; a setting is one line of text "
	    "('/c<U+2028>d')\n"
	    "c.yaml:6:16: 'tls.ca-file' contains U+202E (a bidirectional "
	    "control) at byte 3; a setting is one line of text "
	    "('/ca<U+202E>txt.pem')\n"
	    "c.yaml:7:12: 'log-level' contains U+000D (a control character) "
	    "at byte 4; a setting is one line of text ('info<U+000D>')\n"
	    "c.yaml:8:16: 'poll-interval' contains U+001B (a control "
	    "character) at byte 2; a setting is one line of text "
	    "('5s<U+001B>')\n");
	/* an unknown key is echoed safely too */
	T_BAD("version: 1\nrepository: {url: 'file:///r'}\nstate: /s\n"
	      "\"a\\nb\": 1\n",
	    "c.yaml:4:1: unknown key 'a<U+000A>b'\n");
	/* $STATE_DIRECTORY is held to the same rule */
	setenv("STATE_DIRECTORY", "/var/lib/a\nb", 1);
	T_BAD("version: 1\nrepository: {url: 'file:///r'}\n",
	    "c.yaml:1:1: 'state' contains U+000A (a control character) at "
	    "byte 10; a setting is one line of text ('/var/lib/a<U+000A>b')\n");
	unsetenv("STATE_DIRECTORY");
}

static void
test_conf__shapes_are_checked(void **state)
{
	(void)state;
	T_BAD("version: 1\nrepository: file:///r\nstate: [a]\ntls:\n",
	    "c.yaml:2:13: 'repository' must be a mapping, not a scalar\n"
	    "c.yaml:3:8: 'state' must be a path, not a list\n"
	    "c.yaml:4:5: 'tls' must be a mapping, not a scalar\n");
	T_BAD("- a\n- b\n",
	    "c.yaml:1:1: the configuration must be a mapping, not a list\n"
	    "c.yaml:1:1: missing key 'version'\n"
	    "c.yaml:1:1: missing key 'repository.url'\n"
	    "c.yaml:1:1: missing key 'state' (and $STATE_DIRECTORY is not "
	    "set)\n");
}

static void
test_conf__cross_checks(void **state)
{
	(void)state;
	T_BAD("version: 1\nstate: /s\nrepository:\n  url: https://h/r\n"
	      "  token-file: t\n  ssh-public-key-file: k.pub\n",
	    "c.yaml:1:1: 'repository.ssh-public-key-file' needs "
	    "'repository.ssh-key-file'\n"
	    "c.yaml:1:1: git credentials are configured but there is no "
	    "credentials folder (set 'credentials' or $CREDENTIALS_DIRECTORY)\n");
	T_BAD("version: 1\nstate: /s\nrepository:\n  url: ssh://h/r\n"
	      "  fetch-timeout: 0s\n",
	    "c.yaml:1:1: 'repository.url' is an SSH URL: set "
	    "'repository.ssh-known-hosts' to a known_hosts file holding the "
	    "server's host key\n"
	    "c.yaml:5:18: 'repository.fetch-timeout' must be between 1s and "
	    "3600s, not 0s\n");
	T_BAD("version: 1\nstate: /s\nrepository:\n"
	      "  url: https://bot:s3cret@h/r.git\n",
	    "c.yaml:1:1: 'repository.url' holds a password or token: put it "
	    "in the credentials folder and name it in "
	    "'repository.token-file'\n");
	T_BAD("version: 1\nstate: /s\nrepository: {url: 'file:///r'}\n"
	      "tls: {client-cert-file: /a.pem}\n",
	    "c.yaml:1:1: 'tls.client-cert-file' needs 'tls.client-key-file'\n");
	T_BAD("version: 1\nstate: /s\nrepository: {url: 'file:///r'}\n"
	      "tls: {client-key-file: a.key}\n",
	    "c.yaml:1:1: 'tls.client-key-file' needs 'tls.client-cert-file'\n"
	    "c.yaml:1:1: 'tls.client-key-file' is configured but there is no "
	    "credentials folder (set 'credentials' or $CREDENTIALS_DIRECTORY)\n");
	T_BAD("version: 1\nstate: /s\nrepository: {url: 'file:///r'}\n"
	      "credentials: /c\ntls: {client-cert-file: /a.pem, "
	      "client-key-file: /etc/a.key}\n",
	    "c.yaml:1:1: 'tls.client-cert-file' needs 'tls.client-key-file'\n"
	    "c.yaml:5:50: 'tls.client-key-file' must be a file name in the "
	    "credentials folder, without '/': '/etc/a.key'\n");
	T_BAD("version: 1\nstate: /s\nrepository:\n  url: git@h:r\n"
	      "  fetch-timeout: 2x\n",
	    "c.yaml:1:1: 'repository.url' is an SSH URL: set "
	    "'repository.ssh-known-hosts' to a known_hosts file holding the "
	    "server's host key\n"
	    "c.yaml:5:18: 'repository.fetch-timeout' must be a duration like "
	    "30s, 5m, 1h or 1d, not '2x'\n");
}

/* tls.insecure does one thing, git's verification, and its warning says
 * so (it claimed "TLS certificates are not verified", brokers' included,
 * while brokers are always verified). */
static void
test_conf__insecure_warns_git_only(void **state)
{
	static const char text[] = "version: 1\nstate: /s\n"
	                           "repository: {url: 'https://h/r.git'}\n"
	                           "tls: {insecure: true}\n";
	struct agent_conf *c = NULL;
	struct errlist d = {0};
	char *s;

	(void)state;
	assert_int_equal(
	    agent_conf_parse(&c, "c.yaml", "/etc/ag", text, strlen(text), &d),
	    0);
	assert_true(c->tls_insecure);
	assert_int_equal(d.n, 1);
	assert_int_equal(d.items[0].severity, DIAG_WARNING);
	s = errlist_render_item(&d, 0);
	assert_string_equal(s,
	    "c.yaml:1:1: warning: 'tls.insecure' is on: the git server's TLS "
	    "certificate is not verified (it applies to git only: brokers' "
	    "certificates are still verified)");
	free(s);
	errlist_release(&d);
	agent_conf_free(c);
}

static void
test_conf__yaml_errors_keep_position(void **state)
{
	char *got;

	(void)state;
	got = parse_bad("version: 1\nstate: [\n");
	assert_non_null(strstr(got, "c.yaml:"));
	assert_int_equal(strncmp(got, "c.yaml:", 7), 0);
	free(got);
}

static void
test_conf__load_resolves_relative_to_file(void **state)
{
	char dir[] = "/tmp/test-conf-XXXXXX";
	char *path;
	struct agent_conf *c = NULL;
	struct errlist d = {0};
	struct err err = {0};
	const char *text = "version: 1\nrepository: {url: 'file:///r'}\n"
	                   "state: st\n";

	(void)state;
	assert_non_null(mkdtemp(dir));
	path = xasprintf("%s/agent.yaml", dir);
	assert_int_equal(afile_write(path, text, strlen(text), 0600, &err), 0);
	assert_int_equal(agent_conf_load(&c, path, &d), 0);
	assert_non_null(strstr(c->state, "/st"));
	assert_int_equal(strncmp(c->state, dir, strlen(dir)), 0);
	agent_conf_free(c);
	unlink(path);
	rmdir(dir);
	free(path);
	assert_int_equal(agent_conf_load(&c, "/nonexistent/agent.yaml", &d),
	    -1);
	assert_int_equal(d.n, 1);
	assert_null(d.items[0].path);
	assert_string_equal(d.items[0].msg,
	    "cannot open '/nonexistent/agent.yaml': "
	    "No such file or directory");
	errlist_release(&d);
}

/* approvers: a list of user names and @group names, each with where it
 * is written; the parser looks nothing up. */
static void
test_conf__approvers_parsed(void **state)
{
	struct agent_conf *c;

	(void)state;
	c = parse_ok("version: 1\nstate: /s\nrepository: {url: 'file:///r'}\n");
	assert_int_equal(c->approvers.n, 0);
	agent_conf_free(c);
	c = parse_ok("version: 1\nstate: /s\nrepository: {url: 'file:///r'}\n"
	             "approvers:\n  - alice\n  - '@ops'\n");
	assert_int_equal(c->approvers.n, 2);
	assert_string_equal(c->approvers.v[0].name, "alice");
	assert_false(c->approvers.v[0].group);
	assert_int_equal(c->approvers.v[0].line, 5);
	assert_int_equal(c->approvers.v[0].col, 5);
	assert_string_equal(c->approvers.v[1].name, "@ops");
	assert_true(c->approvers.v[1].group);
	assert_int_equal(c->approvers.v[1].line, 6);
	agent_conf_free(c);
	T_BAD("version: 1\nstate: /s\nrepository: {url: 'file:///r'}\n"
	      "approvers: alice\n",
	    "c.yaml:4:12: 'approvers' must be a list of user names and @group "
	    "names, not a scalar\n");
	T_BAD("version: 1\nstate: /s\nrepository: {url: 'file:///r'}\n"
	      "approvers: []\n",
	    "c.yaml:4:12: 'approvers' lists nobody: leave it out to accept an "
	    "approval from any user\n");
	T_BAD("version: 1\nstate: /s\nrepository: {url: 'file:///r'}\n"
	      "approvers: ['a b', '@', ~, [x], 'c:d']\n",
	    "c.yaml:4:13: 'approvers': 'a b' is not a user name or an @group "
	    "name\n"
	    "c.yaml:4:20: 'approvers': '@' is not a user name or an @group "
	    "name\n"
	    "c.yaml:4:25: 'approvers' must list user names and @group names, "
	    "not an empty entry\n"
	    "c.yaml:4:28: 'approvers' must list user names and @group names, "
	    "not a list\n"
	    "c.yaml:4:33: 'approvers': 'c:d' is not a user name or an @group "
	    "name\n");
}

/* agent_conf_load looks every approver up: users and groups that exist
 * get their ids, unknown ones are errors at their positions. */
static void
test_conf__load_looks_approvers_up(void **state)
{
	char dir[] = "/tmp/test-conf-XXXXXX";
	char *path, *s;
	struct agent_conf *c = NULL;
	struct errlist d = {0};
	struct err err = {0};
	const char *good = "version: 1\nrepository: {url: 'file:///r'}\n"
	                   "state: st\napprovers: [root, nobody, '@nogroup']\n";
	const char *bad = "version: 1\nrepository: {url: 'file:///r'}\n"
	                  "state: st\napprovers: [root, no-such-user-t,\n"
	                  "  '@no-such-group-t']\n";

	(void)state;
	assert_non_null(mkdtemp(dir));
	path = xasprintf("%s/agent.yaml", dir);
	assert_int_equal(afile_write(path, good, strlen(good), 0600, &err), 0);
	assert_int_equal(agent_conf_load(&c, path, &d), 0);
	assert_int_equal(c->approvers.n, 3);
	assert_int_equal(c->approvers.v[0].id, 0);
	assert_int_equal(c->approvers.v[1].id, 65534);
	assert_int_equal(c->approvers.v[2].id, 65534);
	agent_conf_free(c);
	c = NULL;
	assert_int_equal(afile_write(path, bad, strlen(bad), 0600, &err), 0);
	assert_int_equal(agent_conf_load(&c, path, &d), -1);
	assert_null(c);
	assert_int_equal(d.n, 2);
	s = errlist_render_item(&d, 0);
	assert_string_equal(s + strlen(dir),
	    "/agent.yaml:4:19: 'approvers': unknown user 'no-such-user-t'");
	free(s);
	s = errlist_render_item(&d, 1);
	assert_string_equal(s + strlen(dir),
	    "/agent.yaml:5:3: 'approvers': unknown group 'no-such-group-t'");
	free(s);
	errlist_release(&d);
	unlink(path);
	rmdir(dir);
	free(path);
}

static void
test_conf__http_keys(void **state)
{
	struct agent_conf *c;

	(void)state;
	c = parse_ok("version: 1\nrepository: {url: file:///r}\n"
	             "state: /s\ncredentials: /c\n"
	             "http:\n  listen: '[::1]:8080'\n"
	             "  viewer-tokens: [grafana.token, ci.token]\n"
	             "  approver-tokens: [alice.token]\n"
	             "  tls-cert-file: tls/cert.pem\n"
	             "  tls-key-file: http-key.pem\n"
	             "  client-address-header: X-Forwarded-For\n");
	assert_string_equal(c->http_listen, "[::1]:8080");
	assert_int_equal(c->http_viewer_tokens.n, 2);
	assert_string_equal(c->http_viewer_tokens.v[1], "ci.token");
	assert_string_equal(c->http_approver_tokens.v[0], "alice.token");
	assert_string_equal(c->http_tls_cert, "/etc/ag/tls/cert.pem");
	assert_string_equal(c->http_client_header, "X-Forwarded-For");
	assert_int_equal(c->http_session_ttl, 8 * 3600);
	assert_int_equal(c->http_ready_intervals, 3);
	assert_false(c->http_anonymous_read);
	agent_conf_free(c);
	c = parse_ok("version: 1\nrepository: {url: file:///r}\nstate: /s\n");
	assert_null(c->http_listen);
	assert_int_equal(c->http_viewer_tokens.n, 0);
	agent_conf_free(c);
	T_BAD("version: 1\nrepository: {url: file:///r}\nstate: /s\n"
	      "credentials: /c\n"
	      "http:\n"
	      "  listen: 'localhost'\n"
	      "  viewer-tokens: [a.token, a.token, ../b, {x: 1}]\n"
	      "  approver-tokens: alice.token\n"
	      "  tls-cert-file: /cert.pem\n"
	      "  client-address-header: 'X Forwarded'\n"
	      "  session-ttl: 1s\n",
	    "c.yaml:1:1: 'http.tls-cert-file' needs 'http.tls-key-file'\n"
	    "c.yaml:6:11: 'http.listen' must be port, host:port, [v6]:port or "
	    ":port with a port from 0 to 65535, not 'localhost'\n"
	    "c.yaml:7:28: 'http.viewer-tokens': 'a.token' is listed twice\n"
	    "c.yaml:7:37: 'http.viewer-tokens': '../b' must be a file name in "
	    "the credentials folder, without '/'\n"
	    "c.yaml:7:43: 'http.viewer-tokens' must list file names, not a "
	    "mapping\n"
	    "c.yaml:8:20: 'http.approver-tokens' must be a list of file names "
	    "in the credentials folder, not a scalar\n"
	    "c.yaml:10:26: 'http.client-address-header' must be an HTTP header "
	    "name (letters, digits and '-'), not 'X Forwarded'\n"
	    "c.yaml:11:16: 'http.session-ttl' must be between 60s and 604800s, "
	    "not 1s\n");
	T_BAD("version: 1\nrepository: {url: file:///r}\nstate: /s\n"
	      "http: {listen: ':99999', viewer-tokens: [v.token]}\n",
	    "c.yaml:1:1: http tokens or 'http.tls-key-file' are configured but "
	    "there is no credentials folder (set 'credentials' or "
	    "$CREDENTIALS_DIRECTORY)\n"
	    "c.yaml:4:16: 'http.listen' must be port, host:port, [v6]:port or "
	    ":port with a port from 0 to 65535, not ':99999'\n");
	assert_true(agent_conf_listen_ok("127.0.0.1:8080"));
	assert_true(agent_conf_listen_ok(":0"));
	assert_true(agent_conf_listen_ok("8080"));
	assert_false(agent_conf_listen_ok("99999"));
	assert_false(agent_conf_listen_ok("123456"));
	assert_true(agent_conf_listen_ok("agent.example.org:443"));
	assert_false(agent_conf_listen_ok("[::1]8080"));
	assert_false(agent_conf_listen_ok("::1:8080"));
	assert_false(agent_conf_listen_ok("host:"));
	assert_false(agent_conf_listen_ok("host:80a"));
}

static void
test_conf__docs_match_the_table(void **state)
{
	struct sbuf b = {0};
	struct err err = {0};
	char *doc = NULL;

	(void)state;
	agent_conf_describe(&b);
	assert_non_null(strstr(sbuf_str(&b), "| `repository.url` | URL | "
	                                     "required |"));
	assert_non_null(strstr(sbuf_str(&b), "| `poll-interval` | duration "
	                                     "(1..86400s) | `60s` |"));
	assert_int_equal(
	    afile_read(&doc, NULL, "docs/agent-config.md", 1u << 20, &err), 0);
	if (strstr(doc, sbuf_str(&b)) == NULL) {
		free(doc);
		fail_msg("docs/agent-config.md lacks the current key table; "
		         "paste `artemis-gitops run --describe-config`:\n%s",
		    sbuf_str(&b));
	}
	free(doc);
	sbuf_release(&b);
}

static void
test_conf__repository_verify(void **state)
{
	struct agent_conf *c;
	struct errlist d = {0};
	static const char warn[] = "version: 1\nstate: /s\n"
	                           "repository:\n  url: file:///r\n"
	                           "  verify: {allowed-signers: a}\n";

	(void)state;
	c = parse_ok("version: 1\nstate: /s\n"
	             "repository: {url: 'file:///r'}\n");
	assert_int_equal(c->verify_mode, AGENT_CONF_VERIFY_OFF);
	assert_null(c->verify_allowed_signers);
	assert_null(c->verify_gpg_keyring);
	agent_conf_free(c);
	c = parse_ok("version: 1\nstate: /s\n"
	             "repository:\n"
	             "  url: file:///r\n"
	             "  verify:\n"
	             "    mode: since-applied\n"
	             "    allowed-signers: allowed_signers\n"
	             "    gpg-keyring: /etc/ag/gnupg\n");
	assert_int_equal(c->verify_mode, AGENT_CONF_VERIFY_SINCE_APPLIED);
	assert_string_equal(c->verify_allowed_signers,
	    "/etc/ag/allowed_signers");
	assert_string_equal(c->verify_gpg_keyring, "/etc/ag/gnupg");
	assert_string_equal(agent_conf_verify_mode_name(c->verify_mode),
	    "since-applied");
	agent_conf_free(c);
	c = parse_ok("version: 1\nstate: /s\n"
	             "repository: {url: 'file:///r', verify: {mode: head, "
	             "gpg-keyring: k.gpg}}\n");
	assert_int_equal(c->verify_mode, AGENT_CONF_VERIFY_HEAD);
	agent_conf_free(c);
	T_BAD("version: 1\nstate: /s\n"
	      "repository:\n  url: file:///r\n"
	      "  verify:\n    mode: always\n    allowed-signrs: a\n",
	    "c.yaml:6:11: 'repository.verify.mode' must be off, head or "
	    "since-applied, not 'always'\n"
	    "c.yaml:7:5: unknown key 'repository.verify.allowed-signrs'\n");
	T_BAD("version: 1\nstate: /s\n"
	      "repository:\n  url: file:///r\n"
	      "  verify:\n    mode: head\n",
	    "c.yaml:6:5: 'repository.verify.mode' is head but no signer is "
	    "trusted: set 'repository.verify.allowed-signers' (SSH) or "
	    "'repository.verify.gpg-keyring' (OpenPGP), or both\n");
	T_BAD("version: 1\nstate: /s\n"
	      "repository: {url: 'file:///r', verify: head}\n",
	    "c.yaml:3:40: 'repository.verify' must be a mapping, not a "
	    "scalar\n");
	/* signers without a mode: loaded, with a warning */
	assert_int_equal(
	    agent_conf_parse(&c, "c.yaml", "/etc/ag", warn, strlen(warn), &d),
	    0);
	assert_int_equal(d.n, 1);
	assert_string_equal(d.items[0].msg,
	    "'repository.verify.mode' is off: the configured signers are not "
	    "checked, and unsigned commits are applied");
	assert_int_equal(d.items[0].line, 5);
	errlist_release(&d);
	agent_conf_free(c);
}

#define BASE                                                                   \
	"version: 1\nstate: /s\nrepository: {url: 'file:///r'}\n"              \
	"credentials: /c\n"

static void
test_conf__coordination(void **state)
{
	struct agent_conf *c;

	(void)state;
	c = parse_ok(BASE);
	assert_int_equal(c->coord_endpoints.n, 0);
	assert_int_equal(c->state_backend, AGENT_CONF_BACKEND_FILE);
	assert_int_equal(c->coord_lease_ttl, 15);
	assert_int_equal(c->coord_lease_margin, 5);
	assert_string_equal(c->coord_prefix, "/artemis-gitops/");
	agent_conf_free(c);
	c = parse_ok(BASE "coordination:\n"
	                  "  endpoints: [http://127.0.0.1:2379, "
	                  "https://etcd2.example:2379]\n"
	                  "  agent-id: gitops-a\n"
	                  "  prefix: /fleet/eu/\n"
	                  "  lease-ttl: 9s\n"
	                  "  lease-margin: 3s\n"
	                  "  request-timeout: 2s\n"
	                  "  user: gitops\n"
	                  "  password-file: etcd.password\n"
	                  "  shard: {mode: hash}\n"
	                  "state-backend: etcd\n");
	assert_int_equal(c->coord_endpoints.n, 2);
	assert_string_equal(c->coord_endpoints.v[1],
	    "https://etcd2.example:2379");
	assert_string_equal(c->coord_agent_id, "gitops-a");
	assert_string_equal(c->coord_prefix, "/fleet/eu/");
	assert_int_equal(c->coord_lease_ttl, 9);
	assert_int_equal(c->coord_lease_margin, 3);
	assert_int_equal(c->coord_timeout, 2);
	assert_int_equal(c->coord_shard_mode, AGENT_CONF_SHARD_HASH);
	assert_int_equal(c->state_backend, AGENT_CONF_BACKEND_ETCD);
	agent_conf_free(c);
	/* the agent id defaults to the host name */
	c = parse_ok(
	    BASE "coordination: {endpoints: [http://127.0.0.1:2379]}\n");
	assert_non_null(c->coord_agent_id);
	assert_true(strlen(c->coord_agent_id) > 0);
	agent_conf_free(c);
}

static void
test_conf__coordination_refused(void **state)
{
	(void)state;
	T_BAD(BASE "state-backend: etcd\n",
	    "c.yaml:1:1: 'state-backend' is etcd but there is no etcd: "
	    "set 'coordination.endpoints'\n");
	T_BAD(BASE "state-backend: sqlite\n",
	    "c.yaml:5:16: 'state-backend' must be file or etcd, not "
	    "'sqlite'\n");
	T_BAD(BASE "coordination: {endpoints: [ftp://x:1]}\n",
	    "c.yaml:5:28: 'coordination.endpoints': 'ftp://x:1' must be "
	    "an http:// or https:// URL with a host and without a user or "
	    "password\n");
	T_BAD(BASE "coordination: {endpoints: [http://u:pw@x:1]}\n",
	    "c.yaml:5:28: 'coordination.endpoints': 'http://u:pw@x:1' "
	    "must be an http:// or https:// URL with a host and without a "
	    "user or password\n");
	T_BAD(BASE "coordination: {endpoints: http://x:1}\n",
	    "c.yaml:5:27: 'coordination.endpoints' must be a list of "
	    "URLs, not a scalar\n");
	T_BAD(BASE
	    "coordination: {endpoints: [http://127.0.0.1:1], lease-ttl: 10s, "
	    "lease-margin: 6s}\n",
	    "c.yaml:1:1: 'coordination.lease-margin' (6s) must be at "
	    "most half of 'coordination.lease-ttl' (10s)\n");
	T_BAD(BASE
	    "coordination: {endpoints: [http://127.0.0.1:1], lease-ttl: 6s, lease-margin: 2s, "
	    "request-timeout: 3s}\n",
	    "c.yaml:1:1: 'coordination.request-timeout' (3s) must be at "
	    "most a third of 'coordination.lease-ttl' (6s): the lease is "
	    "renewed every third of it\n");
	T_BAD(BASE
	    "coordination: {endpoints: [http://127.0.0.1:1], prefix: fleet}\n",
	    "c.yaml:5:57: 'coordination.prefix' must be a key prefix "
	    "that starts and ends with '/', without empty, '.' or '..' parts or "
	    "white space, not 'fleet'\n");
	T_BAD(BASE
	    "coordination: {endpoints: [http://127.0.0.1:1], prefix: /a/../b/}\n",
	    "c.yaml:5:57: 'coordination.prefix' must be a key prefix "
	    "that starts and ends with '/', without empty, '.' or '..' parts or "
	    "white space, not '/a/../b/'\n");
	T_BAD(BASE
	    "coordination: {endpoints: [http://127.0.0.1:1], agent-id: 'a b'}\n",
	    "c.yaml:1:1: 'coordination.agent-id' must be letters, "
	    "digits, '.', '_' and '-', not 'a b'\n");
	T_BAD(BASE "coordination: {endpoints: [http://127.0.0.1:1], user: u}\n",
	    "c.yaml:1:1: 'coordination.user' needs "
	    "'coordination.password-file'\n");
	T_BAD(BASE
	    "coordination: {endpoints: [http://127.0.0.1:1], shard: {mode: "
	    "random}}\n",
	    "c.yaml:5:63: 'coordination.shard.mode' must be none or "
	    "hash, not 'random'\n");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_conf__defaults),
	    cmocka_unit_test(test_conf__http_keys),
	    cmocka_unit_test(test_conf__every_key),
	    cmocka_unit_test(test_conf__systemd_environment_defaults),
	    cmocka_unit_test(test_conf__missing_required_keys),
	    cmocka_unit_test(test_conf__unknown_keys_are_errors),
	    cmocka_unit_test(test_conf__values_are_checked),
	    cmocka_unit_test(test_conf__values_are_one_line),
	    cmocka_unit_test(test_conf__shapes_are_checked),
	    cmocka_unit_test(test_conf__cross_checks),
	    cmocka_unit_test(test_conf__insecure_warns_git_only),
	    cmocka_unit_test(test_conf__yaml_errors_keep_position),
	    cmocka_unit_test(test_conf__load_resolves_relative_to_file),
	    cmocka_unit_test(test_conf__approvers_parsed),
	    cmocka_unit_test(test_conf__load_looks_approvers_up),
	    cmocka_unit_test(test_conf__repository_verify),
	    cmocka_unit_test(test_conf__docs_match_the_table),
	    cmocka_unit_test(test_conf__coordination),
	    cmocka_unit_test(test_conf__coordination_refused),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
