/* tests/unit/test-check.c: declarations/check.c: the cross-object rules
 * (docs/declarations.md). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../declarations/decl-int.h"
#include "../../lib/xalloc.h"
#include "decl-fixture.h"

static void
test_check__same_queue_in_two_files_names_the_other(void **state)
{
	struct decl_cluster *c = NULL;
	struct errlist l = {0};

	(void)state;
	assert_int_equal(parse2(&c,
	                     HEAD "addresses:\n"
	                          "  - {name: a1, routing: [anycast], queues: "
	                          "[{name: q1}]}\n",
	                     "version: 1\n"
	                     "addresses:\n"
	                     "  - name: a2\n"
	                     "    routing: [anycast]\n"
	                     "    queues:\n"
	                     "      - name: q1\n",
	                     &l),
	    -1);
	T_ERR_AT(&l, "b.yaml", 6, 9,
	    "duplicate queue 'q1' (first declared at a.yaml:9:45)");
	errlist_release(&l);
}

static void
test_check__queue_and_divert_share_a_namespace(void **state)
{
	struct decl_cluster *c = NULL;
	struct errlist l = {0};

	(void)state;
	assert_int_equal(parse2(&c,
	                     HEAD "addresses:\n"
	                          "  - {name: a1, routing: [anycast], queues: "
	                          "[{name: x}]}\n"
	                          "diverts:\n"
	                          "  - {name: x, address: a1, "
	                          "forwarding-address: a1}\n",
	                     NULL, &l),
	    -1);
	T_ERR_AT(&l, "a.yaml", 11, 5,
	    "divert 'x' has the name of the queue declared at a.yaml:9:45 "
	    "(queues and diverts share one namespace on a broker)");
	errlist_release(&l);
}

static void
test_check__nothing_consumes_is_an_error_in_studio_managed(void **state)
{
	struct decl_cluster *c = NULL;
	struct errlist l = {0};

	(void)state;
	assert_int_equal(parse2(&c,
	                     HEAD "addresses:\n"
	                          "  - {name: orders, routing: [anycast], "
	                          "queues: [{name: orders}]}\n"
	                          "  - {name: audit, routing: [anycast]}\n"
	                          "diverts:\n"
	                          "  - name: orders-to-audit\n"
	                          "    address: orders\n"
	                          "    forwarding-address: audit\n",
	                     NULL, &l),
	    -1);
	T_ERR_AT(&l, "a.yaml", 12, 5,
	    "divert 'orders-to-audit' forwards to 'audit': Nothing consumes "
	    "at audit (declare a queue on 'audit' or remove the divert)");
	assert_int_equal(l.items[0].severity, DIAG_ERROR);
	errlist_release(&l);
}

static void
test_check__nothing_consumes_is_a_warning_in_config_managed(void **state)
{
	struct decl_cluster *c = NULL;
	struct errlist l = {0};
	char *y = xasprintf("%s",
	    HEAD "addresses:\n"
	         "  - {name: orders, routing: [anycast], queues: [{name: "
	         "orders}]}\n"
	         "  - {name: audit, routing: [anycast]}\n"
	         "diverts:\n"
	         "  - name: orders_to_audit\n"
	         "    address: orders\n"
	         "    forwarding-address: audit\n");

	(void)state;
	memcpy(strstr(y, "STUDIO"), "CONFIG", 6);
	assert_int_equal(parse2(&c, y, NULL, &l), 0);
	T_ERR_AT(&l, "a.yaml", 12, 5,
	    "Nothing consumes at audit; the rendered broker.xml will carry "
	    "the divert");
	assert_int_equal(l.items[0].severity, DIAG_WARNING);
	assert_int_equal(l.nerrors, 0);
	assert_int_equal(c->mode, DECL_CONFIG_MANAGED);
	decl_cluster_free(c);
	errlist_release(&l);
	free(y);
}

static void
test_check__each_forwarding_target_is_checked(void **state)
{
	struct decl_cluster *c = NULL;
	struct errlist l = {0};

	(void)state;
	assert_int_equal(parse2(&c,
	                     HEAD "addresses:\n"
	                          "  - {name: o, routing: [anycast], queues: "
	                          "[{name: o}]}\n"
	                          "  - {name: b, routing: [anycast], queues: "
	                          "[{name: b}]}\n"
	                          "  - {name: e, routing: [anycast]}\n"
	                          "diverts:\n"
	                          "  - {name: d, address: o, "
	                          "forwarding-address: \"b, e,x\"}\n",
	                     NULL, &l),
	    -1);
	T_ERR_AT(&l, "a.yaml", 13, 5, "Nothing consumes at e ");
	T_ERR_AT(&l, "a.yaml", 13, 5,
	    "divert 'd' forwards to address 'x', which is not declared");
	assert_int_equal(l.nerrors, 2);
	errlist_release(&l);
}

static void
test_check__config_managed_divert_names_are_ncnames(void **state)
{
	struct decl_cluster *c = NULL;
	struct errlist l = {0};

	(void)state;
	assert_int_equal(
	    parse2(&c,
	        "version: 1\ncluster: c1\nmode: CONFIG_MANAGED\n"
	        "nodes: [{name: n, jolokia: 'http://h/j', "
	        "credentials: n}]\n"
	        "addresses: [{name: o, routing: [anycast], queues: "
	        "[{name: o}]}]\n"
	        "diverts: [{name: 9d, address: o, "
	        "forwarding-address: o}]\n",
	        NULL, &l),
	    -1);
	T_ERR_AT(&l, "a.yaml", 6, 11,
	    "divert name '9d' is not an XML NCName, which broker.xml needs in "
	    "CONFIG_MANAGED");
	errlist_release(&l);
}

static void
test_check__queue_routing(void **state)
{
	struct decl_cluster *c = NULL;
	struct errlist l = {0};

	(void)state;
	assert_int_equal(parse2(&c,
	                     HEAD "addresses:\n"
	                          "  - name: b\n"
	                          "    routing: [anycast]\n"
	                          "    queues:\n"
	                          "      - {name: q3, routing: multicast}\n",
	                     NULL, &l),
	    -1);
	T_ERR_AT(&l, "a.yaml", 12, 9,
	    "queue 'q3' is multicast but address 'b' allows only anycast");
	errlist_release(&l);
}

static void
test_check__reserved_capture_prefix(void **state)
{
	struct decl_cluster *c = NULL;
	struct errlist l = {0};

	(void)state;
	assert_int_equal(parse2(&c,
	                     HEAD "addresses:\n"
	                          "  - {name: a, routing: [anycast], queues: "
	                          "[{name: __capture.q}]}\n"
	                          "diverts:\n"
	                          "  - {name: __capture.x.a, address: a, "
	                          "forwarding-address: a}\n",
	                     NULL, &l),
	    -1);
	T_ERR_AT(&l, "a.yaml", 9, 44,
	    "queue '__capture.q' is inside the reserved capture prefix "
	    "'__capture.'");
	T_ERR_AT(&l, "a.yaml", 11, 5,
	    "divert '__capture.x.a' is inside the reserved capture prefix");
	errlist_release(&l);
}

/* Jolokia URLs compared as endpoints (issue 14, defect 12). */
static void
test_check__endpoint_keys(void **state)
{
	static const struct {
		const char *url, *key;
	} cases[] = {
	    {"http://localhost:8161/console/jolokia",
	        "loopback:8161/console/jolokia"},
	    {"http://LocalHost.:8161/console/jolokia/",
	        "loopback:8161/console/jolokia"},
	    {"http://127.0.0.1:8161/console/jolokia",
	        "loopback:8161/console/jolokia"},
	    {"http://127.1:8161/console/jolokia",
	        "loopback:8161/console/jolokia"},
	    {"http://127.9.9.9:8161/console/jolokia",
	        "loopback:8161/console/jolokia"},
	    {"http://0x7f.0.0.1:8161/console/jolokia",
	        "loopback:8161/console/jolokia"},
	    {"http://[::1]:8161/console/jolokia",
	        "loopback:8161/console/jolokia"},
	    {"http://[0:0:0:0:0:0:0:1]:8161/console/jolokia",
	        "loopback:8161/console/jolokia"},
	    {"http://[::ffff:127.0.0.1]:8161/x", "loopback:8161/x"},
	    {"http://0.0.0.0:8161/x", "loopback:8161/x"},
	    {"http://broker.localhost:8161/x", "loopback:8161/x"},
	    {"http://Broker-A.Example.COM/x", "broker-a.example.com:80/x"},
	    {"https://broker-a.example.com/x", "broker-a.example.com:443/x"},
	    {"https://broker-a.example.com:443/x//",
	        "broker-a.example.com:443/x"},
	    {"http://10.0.0.1:8161", "10.0.0.1:8161/"},
	    {"http://10.0.0.1:8161/", "10.0.0.1:8161/"},
	    {"http://[::ffff:10.0.0.1]:8161/", "10.0.0.1:8161/"},
	    {"http://[2001:DB8:0:0::1]:8161/j", "[2001:db8::1]:8161/j"},
	    {"http://h:1/console/./x/../jolokia", "h:1/console/jolokia"},
	    {"http://h:1/%63onsole/jolokia%2fx", "h:1/console/jolokia%2Fx"},
	    {"http://h:1/console/Jolokia?a=1#frag", "h:1/console/Jolokia?a=1"},
	    {"http://h:1/j#frag", "h:1/j"},
	};
	size_t i;
	char *k;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		k = decl_endpoint_key(cases[i].url);
		if (strcmp(k, cases[i].key) != 0)
			fail_msg("%s: got %s, want %s", cases[i].url, k,
			    cases[i].key);
		free(k);
	}
}

static void
test_check__duplicate_endpoints_refused(void **state)
{
	struct decl_cluster *c = NULL;
	struct errlist l = {0};

	(void)state;
	assert_int_equal(
	    parse2(&c,
	        HEAD "  - name: node2\n"
	             "    jolokia: http://127.0.0.1:8161/console/jolokia/\n"
	             "    credentials: node2\n"
	             "  - name: node3\n"
	             "    jolokia: http://localhost:8161/console/jolokia\n"
	             "    credentials: node3\n"
	             "  - name: node4\n"
	             "    jolokia: http://localhost:8171/console/jolokia\n"
	             "    credentials: node4\n",
	        NULL, &l),
	    -1);
	assert_int_equal(l.nerrors, 2);
	T_ERR_AT(&l, "a.yaml", 8, 5,
	    "jolokia URL 'http://127.0.0.1:8161/console/jolokia/' is the "
	    "endpoint of node 'node1' ('http://localhost:8161/console/jolokia', "
	    "declared at a.yaml:5:5): both reach loopback:8161/console/jolokia, "
	    "and two nodes on one endpoint would get every operation twice");
	T_ERR_AT(&l, "a.yaml", 11, 5,
	    "duplicate jolokia URL 'http://localhost:8161/console/jolokia' "
	    "(first declared at a.yaml:5:5)");
	errlist_release(&l);
}

/* docs/policy.md: contradictions refused where they are written. */
static void
test_check__policy_contradictions(void **state)
{
	struct decl_cluster *c = NULL;
	struct errlist l = {0};

	(void)state;
	assert_int_equal(parse2(&c,
	                     HEAD
	                     "addresses:\n"
	                     "  - name: a1\n"
	                     "    routing: [anycast]\n"
	                     "    deletion-policy: delete\n"
	                     "    queues:\n"
	                     "      - {name: q1, deletion-policy: retain}\n"
	                     "      - {name: q2}\n"
	                     "  - name: a2\n"
	                     "    routing: [anycast]\n"
	                     "    managed: false\n"
	                     "    queues:\n"
	                     "      - {name: q3, managed: true}\n"
	                     "diverts:\n"
	                     "  - name: d1\n"
	                     "    address: a1\n"
	                     "    forwarding-address: a1\n"
	                     "    managed: false\n"
	                     "    deletion-policy: retain\n",
	                     NULL, &l),
	    -1);
	T_ERR_AT(&l, "a.yaml", HEAD_LINES + 6, 37,
	    "queue 'q1' has deletion-policy: retain but its address 'a1' has "
	    "deletion-policy: delete (a.yaml:11:22): an address cannot be "
	    "deleted while a retained queue stays bound to it");
	T_ERR_AT(&l, "a.yaml", HEAD_LINES + 12, 29,
	    "queue 'q3' has managed: true but its address 'a2' has managed: "
	    "false (a.yaml:17:14)");
	T_ERR_AT(&l, "a.yaml", HEAD_LINES + 18, 22,
	    "divert 'd1' has 'deletion-policy' and 'managed: false' (line 24): "
	    "the agent never deletes an object it does not manage");
	assert_int_equal(l.nerrors, 3);
	errlist_release(&l);
}

/* A retained address's queue may say delete; an unmanaged divert's
 * addresses are not checked (it is the broker's, not the agent's). */
static void
test_check__policy_allowed(void **state)
{
	struct decl_cluster *c = NULL;
	struct errlist l = {0};

	(void)state;
	assert_int_equal(parse2(&c,
	                     HEAD
	                     "addresses:\n"
	                     "  - name: a1\n"
	                     "    routing: [anycast]\n"
	                     "    deletion-policy: retain\n"
	                     "    queues:\n"
	                     "      - {name: q1, deletion-policy: delete}\n"
	                     "diverts:\n"
	                     "  - name: d1\n"
	                     "    address: elsewhere\n"
	                     "    forwarding-address: nowhere\n"
	                     "    managed: false\n",
	                     NULL, &l),
	    0);
	assert_int_equal(l.n, 0);
	decl_cluster_free(c);
	errlist_release(&l);
}

/* CONFIG_MANAGED: broker.xml's reload decides, not the agent. */
static void
test_check__policy_config_managed(void **state)
{
	struct decl_cluster *c = NULL;
	struct errlist l = {0};
	const char *yaml =
	    "version: 1\n"
	    "cluster: c1\n"
	    "mode: CONFIG_MANAGED\n"
	    "nodes:\n"
	    "  - name: node1\n"
	    "    jolokia: http://localhost:8161/console/jolokia\n"
	    "    credentials: node1\n"
	    "addresses:\n"
	    "  - name: a1\n"
	    "    routing: [anycast]\n"
	    "    deletion-policy: retain\n"
	    "    queues:\n"
	    "      - {name: q1, managed: false}\n";

	(void)state;
	assert_int_equal(parse2(&c, yaml, NULL, &l), -1);
	T_ERR_AT(&l, "a.yaml", 11, 22,
	    "address 'a1': deletion-policy: retain is for STUDIO_MANAGED "
	    "clusters");
	T_ERR_AT(&l, "a.yaml", 13, 29,
	    "queue 'q1': 'managed' is for STUDIO_MANAGED clusters");
	errlist_release(&l);
}

#define SETTINGS_BODY                                                          \
	"addresses:\n"                                                         \
	"  - {name: orders, routing: [anycast], queues: [{name: orders}]}\n"   \
	"address-settings:\n"                                                  \
	"  - match: '#'\n"                                                     \
	"    dead-letter-address: DLQ\n"                                       \
	"    expiry-address: orders\n"

static void
test_check__settings_addresses_are_declared(void **state)
{
	struct decl_cluster *c = NULL;
	struct errlist l = {0};
	char *y;

	(void)state;
	/* STUDIO_MANAGED: an error at the value; expiry-address is fine */
	refuse_one(HEAD SETTINGS_BODY, HEAD_LINES + 5, 26,
	    "address-settings '#' names dead-letter-address 'DLQ', which is "
	    "not declared (declare the address and a queue on it");
	/* CONFIG_MANAGED: a warning, the load passes */
	y = xstrdup(HEAD SETTINGS_BODY);
	memcpy(strstr(y, "STUDIO_MANAGED"), "CONFIG_MANAGED", 14);
	assert_int_equal(parse2(&c, y, NULL, &l), 0);
	assert_int_equal(l.nerrors, 0);
	T_ERR_AT(&l, "a.yaml", HEAD_LINES + 5, 26,
	    "which is not declared; the rendered broker.xml names it all the "
	    "same");
	decl_cluster_free(c);
	errlist_release(&l);
	free(y);
}

static void
test_check__settings_matches(void **state)
{
	struct decl_cluster *c = NULL;
	struct errlist l = {0};

	(void)state;
	refuse_one(HEAD "address-settings:\n"
	                "  - {match: 'orders.#'}\n"
	                "  - {match: 'orders.#', max-delivery-attempts: 3}\n",
	    HEAD_LINES + 3, 13,
	    "duplicate address-settings match 'orders.#' (first declared at "
	    "a.yaml:9:13)");
	refuse_one(HEAD "security-settings:\n"
	                "  - {match: 'orders.#.eu'}\n",
	    HEAD_LINES + 2, 13,
	    "security-settings match 'orders.#.eu' has '#' before its last "
	    "word");
	/* one match in each list is no duplicate; STUDIO_MANAGED is told
	 * that they are not applied, once per kind, at the first */
	assert_int_equal(parse2(&c,
	                     HEAD "address-settings: [{match: 'a.*'}]\n"
	                          "security-settings: [{match: 'a.*'}]\n",
	                     NULL, &l),
	    0);
	T_ERR_AT(&l, "a.yaml", HEAD_LINES + 1, 20,
	    "address-settings are not applied in STUDIO_MANAGED by this build");
	T_ERR_AT(&l, "a.yaml", HEAD_LINES + 2, 21,
	    "security-settings are not applied in STUDIO_MANAGED by this build");
	assert_int_equal(l.n, 2);
	errlist_release(&l);
	decl_cluster_free(c);
	c = NULL;
	/* the delimiter is the cluster's, declared in another file */
	assert_int_equal(parse2(&c, HEAD "address-settings: [{match: 'a/*'}]\n",
	                     "version: 1\nsettings: {wildcard-delimiter: /}\n",
	                     &l),
	    0);
	decl_cluster_free(c);
	c = NULL;
	assert_int_equal(parse2(&c, HEAD "address-settings: [{match: 'a.#'}]\n",
	                     "version: 1\nsettings: {wildcard-delimiter: /}\n",
	                     &l),
	    -1);
	T_ERR_AT(&l, "a.yaml", HEAD_LINES + 1, 28,
	    "address-settings match 'a.#' has '#' inside a word ('#' is a word "
	    "of its own: 'orders/#')");
	errlist_release(&l);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(
	        test_check__same_queue_in_two_files_names_the_other),
	    cmocka_unit_test(test_check__queue_and_divert_share_a_namespace),
	    cmocka_unit_test(
	        test_check__nothing_consumes_is_an_error_in_studio_managed),
	    cmocka_unit_test(
	        test_check__nothing_consumes_is_a_warning_in_config_managed),
	    cmocka_unit_test(test_check__each_forwarding_target_is_checked),
	    cmocka_unit_test(
	        test_check__config_managed_divert_names_are_ncnames),
	    cmocka_unit_test(test_check__queue_routing),
	    cmocka_unit_test(test_check__reserved_capture_prefix),
	    cmocka_unit_test(test_check__endpoint_keys),
	    cmocka_unit_test(test_check__duplicate_endpoints_refused),
	    cmocka_unit_test(test_check__policy_contradictions),
	    cmocka_unit_test(test_check__policy_allowed),
	    cmocka_unit_test(test_check__policy_config_managed),
	    cmocka_unit_test(test_check__settings_addresses_are_declared),
	    cmocka_unit_test(test_check__settings_matches),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
