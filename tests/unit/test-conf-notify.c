/* tests/unit/test-conf-notify.c: agent/conf-notify.c, the webhook targets of
 * `notifications.targets`, and the notifications.* keys around them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../agent/conf.h"
#include "../../lib/xalloc.h"
#include "conf-fixture.h"

#define HEAD "version: 1\nrepository: {url: file:///r}\nstate: /s\n"

static void
test_conf_notify__targets_parsed(void **state)
{
	struct agent_conf *c;
	const struct agent_conf_target *t;

	(void)state;
	c = parse_ok(HEAD "credentials: /c\n"
	                  "notifications:\n"
	                  "  targets:\n"
	                  "    - name: ops-chat\n"
	                  "      url-file: slack.url\n"
	                  "      secret-file: slack.secret\n"
	                  "      format: slack\n"
	                  "      events: [apply.*, drift.detected]\n"
	                  "      clusters: [shop-eu]\n"
	                  "    - name: pager\n"
	                  "      url: https://hooks.example.com/artemis?x=1\n"
	                  "      secret-file: pager.secret\n"
	                  "      ca-file: tls/ca.pem\n"
	                  "  retry-initial: 2s\n"
	                  "  page-url: https://gitops.example.com/\n");
	assert_int_equal(c->targets.n, 2);
	t = &c->targets.v[0];
	assert_string_equal(t->name, "ops-chat");
	assert_null(t->url);
	assert_string_equal(t->url_file, "slack.url");
	assert_string_equal(t->secret_file, "slack.secret");
	assert_int_equal(t->body, AGENT_CONF_BODY_SLACK);
	assert_int_equal(t->events.n, 2);
	assert_string_equal(t->events.v[0], "apply.*");
	assert_int_equal(t->clusters.n, 1);
	assert_int_equal(t->line, 7);
	t = &c->targets.v[1];
	assert_string_equal(t->url, "https://hooks.example.com/artemis?x=1");
	assert_int_equal(t->body, AGENT_CONF_BODY_JSON);
	/* no events: every one */
	assert_int_equal(t->events.n, 1);
	assert_string_equal(t->events.v[0], "*");
	assert_string_equal(t->ca_file, "/etc/ag/tls/ca.pem");
	assert_int_equal(c->notify_retry_initial, 2);
	assert_int_equal(c->notify_retry_max, 600);
	assert_int_equal(c->notify_attempts, 8);
	assert_int_equal(c->notify_timeout, 10);
	assert_int_equal(c->notify_spool_max, 1000);
	assert_string_equal(c->notify_page_url, "https://gitops.example.com/");
	agent_conf_free(c);
	c = parse_ok(HEAD);
	assert_int_equal(c->targets.n, 0);
	assert_null(c->notify_page_url);
	agent_conf_free(c);
}

static void
test_conf_notify__targets_checked_at_their_position(void **state)
{
	(void)state;
	T_BAD(HEAD "credentials: /c\n"
	           "notifications:\n"
	           "  targets:\n"
	           "    - name: 'a b'\n"
	           "      url: ftp://x\n"
	           "      secret-file: ../s\n"
	           "      format: teams\n"
	           "      events: [apply.done, apply.*, apply.*]\n"
	           "      colour: red\n"
	           "    - {name: x, url: 'https://u:p@h/', url-file: f, "
	           "secret-file: s}\n"
	           "    - {name: x, url: 'http://h/', secret-file: s}\n"
	           "    - just-a-string\n",
	    "c.yaml:7:7: 'notifications.targets': a target needs a 'name'\n"
	    "c.yaml:7:7: 'notifications.targets': target '?' needs one of "
	    "'url' and 'url-file'\n"
	    "c.yaml:7:7: 'notifications.targets': target '?' needs a "
	    "'secret-file' (every delivery is signed with it)\n"
	    "c.yaml:7:13: 'notifications.targets': 'name' must be 1 to 64 "
	    "letters, digits, '.', '_' or '-' (it names the target's metrics "
	    "and spool folder), not 'a b'\n"
	    "c.yaml:8:12: 'notifications.targets': 'url' must be an http:// or "
	    "https:// URL with a host and without a user or password (a URL "
	    "that is itself a secret goes in 'url-file')\n"
	    "c.yaml:9:20: 'notifications.targets': 'secret-file' must be a "
	    "file name in the credentials folder, without '/': '../s'\n"
	    "c.yaml:10:15: 'notifications.targets': 'format' must be json or "
	    "slack, not 'teams'\n"
	    "c.yaml:11:16: 'notifications.targets': 'events': 'apply.done' is "
	    "not an event (preview.posted, apply.*, *, ...: "
	    "docs/notifications.md)\n"
	    "c.yaml:11:37: 'notifications.targets': 'events': 'apply.*' is "
	    "listed twice\n"
	    "c.yaml:12:7: 'notifications.targets': unknown key 'colour' (name, "
	    "url, url-file, secret-file, format, events, clusters, ca-file)\n"
	    "c.yaml:13:22: 'notifications.targets': 'url' must be an http:// "
	    "or https:// URL with a host and without a user or password (a "
	    "URL that is itself a secret goes in 'url-file')\n"
	    "c.yaml:14:7: 'notifications.targets': two targets are named 'x'\n"
	    "c.yaml:15:7: 'notifications.targets': a target must be a "
	    "mapping, not a scalar\n");
}

static void
test_conf_notify__keys_around_the_targets(void **state)
{
	(void)state;
	/* secrets need a credentials folder; the backoff's ceiling is not
	 * below its start; the page's URL is a URL */
	T_BAD(HEAD "notifications:\n"
	           "  targets: [{name: a, url: 'http://h', secret-file: s}]\n"
	           "  retry-initial: 1m\n"
	           "  retry-max: 30s\n"
	           "  page-url: gitops.example.com\n"
	           "  max-attempts: 0\n",
	    "c.yaml:1:1: 'notifications.targets' are configured but there is "
	    "no credentials folder for their secrets (set 'credentials' or "
	    "$CREDENTIALS_DIRECTORY)\n"
	    "c.yaml:1:1: 'notifications.retry-max' (30s) is shorter than "
	    "'notifications.retry-initial' (60s)\n"
	    "c.yaml:8:13: 'notifications.page-url' must be an http:// or "
	    "https:// URL with a host and without a user or password, not "
	    "'gitops.example.com'\n"
	    "c.yaml:9:17: 'notifications.max-attempts' must be between 1 and "
	    "100, not 0\n");
	T_BAD(HEAD "notifications: {targets: {name: a}}\n",
	    "c.yaml:4:26: 'notifications.targets' must be a list of targets, "
	    "not a mapping\n");
	T_BAD(HEAD "credentials: /c\nnotifications:\n  targets:\n"
	           "    - {name: a, url: 'http://h', secret-file: s, "
	           "events: [], clusters: x}\n",
	    "c.yaml:7:58: 'notifications.targets': 'events' must be a list of "
	    "events (preview.posted, apply.*, *, ...: docs/notifications.md), "
	    "not an empty list\n"
	    "c.yaml:7:72: 'notifications.targets': 'clusters' must be a list "
	    "of cluster names, not a scalar\n");
}

static void
test_conf_notify__http_urls(void **state)
{
	(void)state;
	assert_true(agent_conf_http_url_ok("https://h"));
	assert_true(agent_conf_http_url_ok("http://h:8080/p?q=a@b"));
	assert_true(agent_conf_http_url_ok("https://[::1]:9/x"));
	assert_false(agent_conf_http_url_ok("https://"));
	assert_false(agent_conf_http_url_ok("https:///p"));
	assert_false(agent_conf_http_url_ok("https://u:p@h/"));
	assert_false(agent_conf_http_url_ok("https://u@h"));
	assert_false(agent_conf_http_url_ok("file:///etc/passwd"));
	assert_false(agent_conf_http_url_ok("https://h/a b"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_conf_notify__targets_parsed),
	    cmocka_unit_test(
	        test_conf_notify__targets_checked_at_their_position),
	    cmocka_unit_test(test_conf_notify__keys_around_the_targets),
	    cmocka_unit_test(test_conf_notify__http_urls),
	};

	unsetenv("STATE_DIRECTORY");
	unsetenv("CREDENTIALS_DIRECTORY");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
