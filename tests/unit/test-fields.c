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

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fields__empty_optional_strings_mean_none),
	    cmocka_unit_test(test_fields__wrong_types_and_numbers),
	    cmocka_unit_test(test_fields__jolokia_urls),
	    cmocka_unit_test(test_fields__credentials_are_names_never_secrets),
	    cmocka_unit_test(test_fields__transformer_properties_are_sorted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
