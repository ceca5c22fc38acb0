/* tests/unit/test-fields.c: declarations/fields.c: the keys of one
 * mapping parsed through its table: types, numbers, optional strings, URLs,
 * credentials names, transformer properties. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/xalloc.h"
#include "decl-fixture.h"

/* One node whose jolokia (or credentials) is v; returns the load result. */
static void
node_refused(const char *key, const char *v, const char *sub)
{
	struct decl_cluster *c = NULL;
	struct errlist l = {0};
	char *y = xasprintf("version: 1\ncluster: c1\nmode: STUDIO_MANAGED\n"
	                    "nodes:\n  - name: n1\n    %s: '%s'\n%s",
	    key, v,
	    strcmp(key, "jolokia") == 0 ? "    credentials: n1\n"
	                                : "    jolokia: http://h/j\n");

	assert_int_equal(parse2(&c, y, NULL, &l), -1);
	T_ERR_AT(&l, "a.yaml", 6, 5 + (unsigned)strlen(key) + 2, sub);
	errlist_release(&l);
	free(y);
}

static void
node_accepted(const char *key, const char *v)
{
	struct decl_cluster *c = NULL;
	struct errlist l = {0};
	char *y = xasprintf("version: 1\ncluster: c1\nmode: STUDIO_MANAGED\n"
	                    "nodes:\n  - name: n1\n    %s: '%s'\n%s",
	    key, v,
	    strcmp(key, "jolokia") == 0 ? "    credentials: n1\n"
	                                : "    jolokia: http://h/j\n");

	assert_int_equal(parse2(&c, y, NULL, &l), 0);
	decl_cluster_free(c);
	errlist_release(&l);
	free(y);
}

static void
test_fields__empty_optional_strings_mean_none(void **state)
{
	struct decl_cluster *c = NULL;
	struct errlist l = {0};
	const struct decl_queue *q;

	(void)state;
	assert_int_equal(parse2(&c,
	                     HEAD
	                     "addresses:\n"
	                     "  - name: a\n"
	                     "    routing: [anycast]\n"
	                     "    queues:\n"
	                     "      - {name: q, filter: '', last-value-key: "
	                     "~, durable: false, exclusive: true}\n",
	                     NULL, &l),
	    0);
	q = decl_cluster_find_queue(c, "q");
	assert_non_null(q);
	assert_null(q->filter);
	assert_null(q->last_value_key);
	assert_false(q->durable);
	assert_true(q->exclusive);
	decl_cluster_free(c);
}

static void
test_fields__wrong_types_and_numbers(void **state)
{
	struct decl_cluster *c = NULL;
	struct errlist l = {0};

	(void)state;
	assert_int_equal(parse2(&c,
	                     HEAD "addresses: orders\n"
	                          "settings:\n"
	                          "  max-destroyed-messages: -3\n"
	                          "  capture-prefix: [a]\n"
	                          "captures:\n"
	                          "  - {name: c, pattern: p, ring-size: x1}\n",
	                     NULL, &l),
	    -1);
	T_ERR_AT(&l, "a.yaml", 8, 12,
	    "'addresses' must be a list, not a scalar");
	T_ERR_AT(&l, "a.yaml", 10, 27,
	    "'max-destroyed-messages' must be 0 or more, not -3");
	T_ERR_AT(&l, "a.yaml", 11, 19,
	    "'capture-prefix' must be a single value, not a list");
	T_ERR_AT(&l, "a.yaml", 13, 38,
	    "'ring-size' must be an integer, not 'x1'");
	assert_int_equal(l.nerrors, 4);
	errlist_release(&l);
}

static void
test_fields__jolokia_urls(void **state)
{
	(void)state;
	node_accepted("jolokia", "http://localhost:8161/console/jolokia");
	node_accepted("jolokia", "https://b.example/jolokia");
	node_accepted("jolokia", "https://[fe80::1]:8443/j");
	node_accepted("jolokia", "http://h:65535");
	node_refused("jolokia", "localhost:8161/j",
	    "must start with http:// or https://");
	node_refused("jolokia", "https:///j", "it has no host");
	node_refused("jolokia", "http://h:0/j",
	    "its port is not a number from 1 to 65535");
	node_refused("jolokia", "http://h:/j", "its port is not a number");
	node_refused("jolokia", "http://u:p@h/j",
	    "must not carry a user or password");
	node_refused("jolokia", "http://[::1]x/j", "text after the IPv6 host");
}

static void
test_fields__credentials_are_names_never_secrets(void **state)
{
	(void)state;
	node_accepted("credentials", "broker-a.cred");
	node_refused("credentials", "admin:s3cret",
	    "'credentials' looks like user:password; name a file of the "
	    "credentials folder instead, never put a secret in git");
	node_refused("credentials", "/etc/artemis/a",
	    "not a path ('/etc/artemis/a')");
	node_refused("credentials", "..", "must be a file name");
	node_refused("credentials", "", "must be a file name");
}

static void
test_fields__transformer_properties_are_sorted(void **state)
{
	struct decl_cluster *c = NULL;
	struct errlist l = {0};
	const struct decl_divert *d;

	(void)state;
	assert_int_equal(decl_cluster_load(&c, "examples/clusters/ledger", &l),
	    0);
	d = decl_cluster_find_divert(c, "entries-archive");
	assert_non_null(d);
	assert_int_equal(d->ntransformer_properties, 2);
	assert_string_equal(d->transformer_properties[0].key, "stamp");
	assert_string_equal(d->transformer_properties[1].key, "zone");
	assert_string_equal(d->transformer_properties[1].value, "eu");
	decl_cluster_free(c);
}

/* One address setting (key: value) under HEAD; *c set when it loads. */
static int
setting(struct decl_cluster **c, struct errlist *l, const char *key,
    const char *value)
{
	char *y = xasprintf(HEAD "address-settings:\n"
	                         "  - match: '#'\n"
	                         "    %s: %s\n",
	    key, value);
	int rc = parse2(c, y, NULL, l);

	free(y);
	return rc;
}

/* key: value loads, and gives the number the setting holds. */
static int64_t
setting_number(const char *key, const char *value)
{
	struct decl_cluster *c = NULL;
	struct errlist l = {0};
	const struct decl_address_setting *as;
	int64_t n;

	assert_int_equal(setting(&c, &l, key, value), 0);
	as = &c->address_settings[0];
	n = strcmp(key, "redelivery-delay") == 0 ? as->redelivery_delay
	    : strcmp(key, "max-size-bytes") == 0 ? as->max_size_bytes
	                                         : as->max_delivery_attempts;
	decl_cluster_free(c);
	errlist_release(&l);
	return n;
}

/* key: value is refused at the value (line HEAD_LINES + 3, column 7 +
 * the key's length + 2), with sub in the message. */
static void
setting_refused(const char *key, const char *value, const char *sub)
{
	struct decl_cluster *c = NULL;
	struct errlist l = {0};

	assert_int_equal(setting(&c, &l, key, value), -1);
	T_ERR_AT(&l, "a.yaml", HEAD_LINES + 3, 5 + (unsigned)strlen(key) + 2,
	    sub);
	errlist_release(&l);
}

static void
test_fields__durations_and_sizes(void **state)
{
	(void)state;
	assert_int_equal(setting_number("redelivery-delay", "250"), 250);
	assert_int_equal(setting_number("redelivery-delay", "500ms"), 500);
	assert_int_equal(setting_number("redelivery-delay", "5s"), 5000);
	assert_int_equal(setting_number("redelivery-delay", "2m"), 120000);
	assert_int_equal(setting_number("redelivery-delay", "1h"), 3600000);
	assert_int_equal(setting_number("redelivery-delay", "0"), 0);
	setting_refused("redelivery-delay", "5 sec", "must be a duration such");
	setting_refused("redelivery-delay", "5S", "must be a duration such");
	setting_refused("redelivery-delay", "-1",
	    "must be 0 or more milliseconds, not -1");
	setting_refused("redelivery-delay", "9999999999999999h",
	    "must be at most 9223372036854775807 milliseconds");
	/* Artemis's byte notation: powers of 1024, any case */
	assert_int_equal(setting_number("max-size-bytes", "-1"), -1);
	assert_int_equal(setting_number("max-size-bytes", "1024"), 1024);
	assert_int_equal(setting_number("max-size-bytes", "10MB"),
	    10 * 1024 * 1024);
	assert_int_equal(setting_number("max-size-bytes", "512KiB"),
	    512 * 1024);
	assert_int_equal(setting_number("max-size-bytes", "1g"),
	    1024 * 1024 * 1024);
	assert_int_equal(setting_number("max-size-bytes", "3Mi"),
	    3 * 1024 * 1024);
	assert_int_equal(setting_number("max-size-bytes", "7b"), 7);
	assert_int_equal(setting_number("max-size-bytes", "'2048'"), 2048);
	setting_refused("max-size-bytes", "10TB", "must be a size such as");
	setting_refused("max-size-bytes", "-2",
	    "must be -1 (no limit) or more bytes, not -2");
	setting_refused("max-size-bytes", "99999999999G",
	    "must be at most 9223372036854775807 bytes");
	setting_refused("max-size-bytes", "[1]", "must be a single value");
	assert_int_equal(setting_number("max-delivery-attempts", "-1"), -1);
	setting_refused("max-delivery-attempts", "-2",
	    "must be -1 (no limit) or more, not -2");
	setting_refused("max-delivery-attempts", "5s", "must be an integer");
}

static void
test_fields__settings_not_written_stay_unset(void **state)
{
	struct decl_cluster *c = NULL;
	struct errlist l = {0};
	const struct decl_address_setting *as;

	(void)state;
	assert_int_equal(setting(&c, &l, "auto-create-queues", "false"), 0);
	as = &c->address_settings[0];
	assert_string_equal(as->match, "#");
	assert_int_equal(as->auto_create_queues, DECL_TRI_FALSE);
	assert_int_equal(as->auto_create_addresses, DECL_TRI_UNSET);
	assert_int_equal(as->max_delivery_attempts, DECL_UNSET);
	assert_int_equal(as->redelivery_delay, DECL_UNSET);
	assert_int_equal(as->max_size_bytes, DECL_UNSET);
	assert_int_equal(as->address_full_policy, DECL_FULL_UNSET);
	assert_int_equal(as->config_delete_queues, DECL_CONFIG_DELETE_UNSET);
	assert_null(as->dead_letter_address);
	assert_null(as->expiry_address);
	assert_int_equal(as->match_at.line, HEAD_LINES + 2);
	assert_int_equal(as->match_at.col, 12);
	assert_string_equal(c->settings.wildcard_delimiter, ".");
	decl_cluster_free(c);
	errlist_release(&l);
	setting_refused("auto-create-queues", "yes", "must be true or false");
}

static void
test_fields__enums_name_their_words(void **state)
{
	struct decl_cluster *c = NULL;
	struct errlist l = {0};

	(void)state;
	assert_int_equal(setting(&c, &l, "address-full-policy", "BLOCK"), 0);
	assert_int_equal(c->address_settings[0].address_full_policy,
	    DECL_FULL_BLOCK);
	decl_cluster_free(c);
	c = NULL;
	assert_int_equal(setting(&c, &l, "config-delete-diverts", "FORCE"), 0);
	assert_int_equal(c->address_settings[0].config_delete_diverts,
	    DECL_CONFIG_DELETE_FORCE);
	decl_cluster_free(c);
	errlist_release(&l);
	setting_refused("address-full-policy", "page",
	    "unknown address-full-policy 'page' (expected PAGE, DROP, BLOCK "
	    "or FAIL)");
	setting_refused("config-delete-queues", "ON",
	    "unknown config-delete-queues 'ON' (expected OFF or FORCE)");
}

static void
test_fields__roles(void **state)
{
	struct decl_cluster *c = NULL;
	struct errlist l = {0};
	const struct decl_security_setting *ss;

	(void)state;
	assert_int_equal(parse2(&c,
	                     HEAD "security-settings:\n"
	                          "  - match: orders.#\n"
	                          "    send: [producer, admin]\n"
	                          "    consume: ~\n"
	                          "    manage: [admin]\n",
	                     NULL, &l),
	    0);
	ss = &c->security_settings[0];
	assert_int_equal(ss->perm[DECL_PERM_SEND].n, 2);
	assert_string_equal(ss->perm[DECL_PERM_SEND].v[0],
	    "admin"); /* sorted */
	assert_string_equal(ss->perm[DECL_PERM_SEND].v[1], "producer");
	assert_int_equal(ss->perm[DECL_PERM_CONSUME].n, 0);
	assert_int_equal(ss->perm[DECL_PERM_BROWSE].n, 0);
	assert_int_equal(ss->perm[DECL_PERM_MANAGE].n, 1);
	decl_cluster_free(c);
	errlist_release(&l);
	refuse_one(HEAD "security-settings:\n"
	                "  - match: a\n"
	                "    send: admin\n",
	    HEAD_LINES + 3, 11,
	    "'send' must be a list of roles such as [admin]");
	refuse_one(HEAD "security-settings:\n"
	                "  - match: a\n"
	                "    send: [a, b, a]\n",
	    HEAD_LINES + 3, 18,
	    "role 'a' is listed twice in 'send' (first at line 10, column 12)");
	refuse_one(HEAD "security-settings:\n"
	                "  - match: a\n"
	                "    browse: ['my role']\n",
	    HEAD_LINES + 3, 14, "role 'my role' in 'browse' contains a space");
	refuse_one(HEAD "security-settings:\n"
	                "  - match: a\n"
	                "    browse: [[a]]\n",
	    HEAD_LINES + 3, 14, "'browse' lists roles, each a single value");
	/* broker.xml's spelling of a permission is pointed at ours */
	refuse_one(HEAD "security-settings:\n"
	                "  - match: a\n"
	                "    deleteNonDurableQueue: [a]\n",
	    HEAD_LINES + 3, 5,
	    "unknown key 'deleteNonDurableQueue' in security-settings "
	    "(declarations spell it 'delete-non-durable-queue')");
}

static void
test_fields__wildcard_delimiter(void **state)
{
	struct decl_cluster *c = NULL;
	struct errlist l = {0};

	(void)state;
	assert_int_equal(
	    parse2(&c, HEAD "settings: {wildcard-delimiter: /}\n", NULL, &l),
	    0);
	assert_string_equal(c->settings.wildcard_delimiter, "/");
	decl_cluster_free(c);
	errlist_release(&l);
	refuse_one(HEAD "settings: {wildcard-delimiter: '::'}\n",
	    HEAD_LINES + 1, 32, "'wildcard-delimiter' must be one punctuation");
	refuse_one(HEAD "settings: {wildcard-delimiter: '#'}\n", HEAD_LINES + 1,
	    32, "other than '#' and '*'");
	refuse_one(HEAD "settings: {wildcard-delimiter: a}\n", HEAD_LINES + 1,
	    32, "one punctuation character");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fields__empty_optional_strings_mean_none),
	    cmocka_unit_test(test_fields__wrong_types_and_numbers),
	    cmocka_unit_test(test_fields__jolokia_urls),
	    cmocka_unit_test(test_fields__credentials_are_names_never_secrets),
	    cmocka_unit_test(test_fields__transformer_properties_are_sorted),
	    cmocka_unit_test(test_fields__durations_and_sizes),
	    cmocka_unit_test(test_fields__settings_not_written_stay_unset),
	    cmocka_unit_test(test_fields__enums_name_their_words),
	    cmocka_unit_test(test_fields__roles),
	    cmocka_unit_test(test_fields__wildcard_delimiter),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
