/* tests/unit/test-decl.c: the declarations loader and its rules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../declarations/decl.h"
#include "../../lib/sbuf.h"
#include "../../lib/xalloc.h"

/* Assert that list holds a diagnostic at path:line:col whose message
 * contains sub; print the whole list when it does not. */
#define T_ERR_AT(list, path, line, col, sub)                                   \
	t_err_at((list), (path), (line), (col), (sub), __FILE__, __LINE__)

static void
t_err_at(const struct errlist *l, const char *path, unsigned line, unsigned col,
    const char *sub, const char *file, int fline)
{
	size_t i;
	char *s;

	for (i = 0; i < l->n; i++) {
		const struct diag *d = &l->items[i];

		if (d->path != NULL && strcmp(d->path, path) == 0 &&
		    d->line == line && d->col == col && strstr(d->msg, sub))
			return;
	}
	print_error("no diagnostic %s:%u:%u containing \"%s\"; have:\n", path,
	    line, col, sub);
	for (i = 0; i < l->n; i++) {
		s = errlist_render_item(l, i);
		print_error("  %s\n", s);
		free(s);
	}
	_fail(file, fline);
}

#define HEAD                                                                   \
	"version: 1\n"                                                         \
	"cluster: c1\n"                                                        \
	"mode: STUDIO_MANAGED\n"                                               \
	"nodes:\n"                                                             \
	"  - name: node1\n"                                                    \
	"    jolokia: http://localhost:8161/console/jolokia\n"                 \
	"    credentials: node1\n"
#define HEAD_LINES 7

/* Parse one in-memory file "a.yaml" (or two, when b is not NULL). */
static int
parse2(struct decl_cluster **c, const char *a, const char *b, struct errlist *l)
{
	struct decl_file f[2] = {
	    {"a.yaml", a, strlen(a)},
	    {"b.yaml", b ? b : "", b ? strlen(b) : 0},
	};

	return decl_cluster_parse(c, "c1", f, b ? 2 : 1, l);
}

/* Expect a refusal of a, with exactly the one diagnostic given. */
static void
refuse_one(const char *a, unsigned line, unsigned col, const char *sub)
{
	struct decl_cluster *c = NULL;
	struct errlist l = {0};

	assert_int_equal(parse2(&c, a, NULL, &l), -1);
	assert_null(c);
	T_ERR_AT(&l, "a.yaml", line, col, sub);
	assert_int_equal(l.nerrors, 1);
	errlist_release(&l);
}

static void
test_decl__minimal_cluster_gets_defaults(void **state)
{
	struct decl_cluster *c = NULL;
	struct errlist l = {0};
	const struct decl_queue *q;
	const struct decl_divert *d;

	(void)state;
	assert_int_equal(parse2(&c,
	                     HEAD "addresses:\n"
	                          "  - name: orders\n"
	                          "    routing: [anycast]\n"
	                          "    queues: [{name: orders}]\n"
	                          "diverts:\n"
	                          "  - {name: d1, address: orders, "
	                          "forwarding-address: orders}\n"
	                          "captures:\n"
	                          "  - {name: cap, pattern: \"o*\"}\n",
	                     NULL, &l),
	    0);
	assert_int_equal(l.n, 0);
	assert_string_equal(c->name, "c1");
	assert_int_equal(c->version, 1);
	assert_int_equal(c->mode, DECL_STUDIO_MANAGED);
	assert_string_equal(c->settings.capture_prefix, "__capture.");
	assert_int_equal(c->settings.max_destroyed_messages, 1000);
	q = decl_cluster_find_queue(c, "orders");
	assert_non_null(q);
	assert_string_equal(q->address, "orders");
	assert_int_equal(q->routing, DECL_ANYCAST);
	assert_true(q->durable);
	assert_true(q->enabled);
	assert_false(q->exclusive);
	assert_int_equal(q->max_consumers, -1);
	assert_int_equal(q->ring_size, -1);
	assert_int_equal(q->delay_before_dispatch, -1);
	assert_int_equal(q->consumers_before_dispatch, 0);
	assert_null(q->filter);
	assert_int_equal(q->pos.line, HEAD_LINES + 4);
	d = decl_cluster_find_divert(c, "d1");
	assert_non_null(d);
	assert_int_equal(d->routing_type, DECL_DIVERT_STRIP);
	assert_string_equal(d->routing_name, "d1");
	assert_int_equal(c->captures[0].ring_size, 1000);
	assert_string_equal(c->nodes[0].pos.path, "a.yaml");
	decl_cluster_free(c);
}

static void
test_decl__empty_optional_strings_mean_none(void **state)
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
test_decl__files_concatenate_lists(void **state)
{
	struct decl_cluster *c = NULL;
	struct errlist l = {0};

	(void)state;
	assert_int_equal(parse2(&c,
	                     HEAD "addresses:\n"
	                          "  - {name: a1, routing: [anycast], queues: "
	                          "[{name: q1}]}\n",
	                     "version: 1\n"
	                     "mode: STUDIO_MANAGED\n"
	                     "nodes:\n"
	                     "  - name: node2\n"
	                     "    jolokia: https://[::1]:8443/console/jolokia\n"
	                     "    credentials: node2\n"
	                     "addresses:\n"
	                     "  - {name: a2, routing: [multicast], queues: "
	                     "[{name: q2}]}\n",
	                     &l),
	    0);
	assert_int_equal(c->nnodes, 2);
	assert_int_equal(c->naddresses, 2);
	assert_string_equal(c->addresses[1].name, "a2");
	assert_string_equal(c->addresses[1].pos.path, "b.yaml");
	assert_int_equal(c->addresses[1].queues[0].routing, DECL_MULTICAST);
	assert_non_null(decl_cluster_find_node(c, "node2"));
	assert_null(decl_cluster_find_node(c, "node3"));
	assert_null(decl_cluster_find_address(c, "a3"));
	decl_cluster_free(c);
}

static void
test_decl__same_queue_in_two_files_names_the_other(void **state)
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
test_decl__queue_and_divert_share_a_namespace(void **state)
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
test_decl__nothing_consumes_is_an_error_in_studio_managed(void **state)
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
test_decl__nothing_consumes_is_a_warning_in_config_managed(void **state)
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
test_decl__each_forwarding_target_is_checked(void **state)
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
test_decl__config_managed_divert_names_are_ncnames(void **state)
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
test_decl__queue_routing(void **state)
{
	struct decl_cluster *c = NULL;
	struct errlist l = {0};

	(void)state;
	assert_int_equal(parse2(&c,
	                     HEAD "addresses:\n"
	                          "  - name: a\n"
	                          "    routing: [anycast, multicast]\n"
	                          "    queues:\n"
	                          "      - {name: q1}\n"
	                          "      - {name: q2, routing: multicast}\n"
	                          "  - name: b\n"
	                          "    routing: [anycast]\n"
	                          "    queues:\n"
	                          "      - {name: q3, routing: multicast}\n",
	                     NULL, &l),
	    -1);
	T_ERR_AT(&l, "a.yaml", 12, 9,
	    "queue 'q1' needs 'routing': address 'a' allows anycast and "
	    "multicast");
	assert_int_equal(l.nerrors, 1); /* rules wait for a clean load */
	errlist_release(&l);
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
test_decl__reserved_capture_prefix(void **state)
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

static void
test_decl__bad_input_is_refused_with_position(void **state)
{
	(void)state;
	refuse_one("", 1, 1, "empty file: expected a mapping");
	refuse_one("# only a comment\n", 1, 1, "empty file");
	refuse_one("---\n", 2, 1, "empty document");
	refuse_one("hello\n", 1, 1,
	    "expected a mapping with 'version' at the top of the file, found "
	    "a scalar");
	refuse_one("version: 1\n---\nversion: 1\n", 2, 1,
	    "several YAML documents in one file");
	refuse_one("version: 1\nnodes:\n\t- name: x\n", 3, 1,
	    "tab character where YAML expects indentation");
	refuse_one("version: 1\nversion: 1\n", 2, 1,
	    "duplicate key 'version' (first at line 1, column 1)");
	refuse_one("version: &v 1\n", 1, 10,
	    "anchors and aliases are not supported (found anchor '&v')");
	refuse_one("version: 1\ncluster: [*x]\n", 2, 11,
	    "anchors and aliases are not supported (found alias '*x')");
	refuse_one("version: 1\ncluster: \"a\xff\"\n", 2, 12,
	    "invalid UTF-8 (byte 0xff)");
	refuse_one("version: 1\ncluster: \"\xc3\xa9\xed\xa0\x80\"\n", 2, 12,
	    "invalid UTF-8 (byte 0xed)"); /* a UTF-16 surrogate */
	refuse_one("version: 1\ncluster: \"\xc0\xaf\"\n", 2, 11,
	    "invalid UTF-8 (byte 0xc0)"); /* overlong '/' */
	refuse_one("version: 1\ncluster: !!str c1\n", 2, 10,
	    "YAML tags are not supported");
	refuse_one("version: 1\n{a: 1}: 2\n", 2, 1,
	    "mapping keys must be scalars, not a mapping");
	refuse_one("version: 2\n", 1, 10,
	    "unsupported version '2' (this build reads version 1)");
	refuse_one("version: 1.0\n", 1, 10,
	    "unsupported version '1.0' (this build reads version 1)");
	refuse_one("version: \"1\"\n", 1, 10,
	    "'version' must be an integer such as 1, not '1'");
	refuse_one("cluster: c\n", 1, 1,
	    "missing required key 'version' (every file declares the format "
	    "version it is written in)");
	refuse_one("version: 1\naddresses: [\n", 3, 1, "invalid YAML: ");
}

static void
test_decl__alias_bomb_is_refused_at_the_first_anchor(void **state)
{
	char *s, *prev;
	int i;

	(void)state;
	s = xstrdup("version: 1\na0: &a0 [x, x, x, x, x, x, x, x, x]\n");
	for (i = 1; i < 10; i++) {
		prev = s;
		s = xasprintf(
		    "%sa%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, "
		    "*a%d, *a%d, *a%d]\n",
		    prev, i, i, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1,
		    i - 1, i - 1);
		free(prev);
	}
	refuse_one(s, 2, 5, "found anchor '&a0'");
	free(s);
}

static void
test_decl__file_over_the_cap_is_refused(void **state)
{
	char *big = xmalloc(DECL_FILE_MAX + 2);

	(void)state;
	memset(big, '#', DECL_FILE_MAX + 1);
	big[DECL_FILE_MAX + 1] = '\0';
	refuse_one(big, 1, 1,
	    "file is 1048577 bytes, over the limit of 1048576 bytes");
	free(big);
}

static void
test_decl__deep_nesting_is_refused(void **state)
{
	(void)state;
	refuse_one("version: 1\ncluster: "
	           "[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]\n",
	    2, 25, "nesting deeper than 16 levels");
}

static void
test_decl__wrong_types_and_numbers(void **state)
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
test_decl__unknown_mode_and_keys(void **state)
{
	struct decl_cluster *c = NULL;
	struct errlist l = {0};

	(void)state;
	assert_int_equal(parse2(&c,
	                     "version: 1\ncluster: c1\nmode: MANAGED\n"
	                     "nodes: [{name: n, jolokia: 'http://h/j', "
	                     "credentials: n, password: x}]\n",
	                     NULL, &l),
	    -1);
	T_ERR_AT(&l, "a.yaml", 3, 7,
	    "unknown mode 'MANAGED' (expected STUDIO_MANAGED or "
	    "CONFIG_MANAGED)");
	T_ERR_AT(&l, "a.yaml", 4, 58, "unknown key 'password' in node");
	errlist_release(&l);
}

static void
test_decl__no_files_is_an_error_at_the_folder(void **state)
{
	struct decl_cluster *c = NULL;
	struct errlist l = {0};
	char *s;

	(void)state;
	assert_int_equal(decl_cluster_parse(&c, "clusters/x", NULL, 0, &l), -1);
	s = errlist_render_item(&l, 0);
	assert_string_equal(s,
	    "clusters/x: no YAML files (*.yaml, *.yml) in this cluster folder");
	free(s);
	errlist_release(&l);
	assert_int_equal(
	    decl_cluster_load(&c, "tests/golden/decl/016-no-yaml", &l), -1);
	T_ERR_AT(&l, "tests/golden/decl/016-no-yaml", 0, 0, "no YAML files");
	errlist_release(&l);
	assert_false(decl_dir_is_cluster("tests/golden/decl/016-no-yaml"));
	assert_false(decl_dir_is_cluster("no/such/folder"));
	assert_true(decl_dir_is_cluster("examples/clusters/ledger"));
}

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
test_decl__jolokia_urls(void **state)
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
test_decl__credentials_are_names_never_secrets(void **state)
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
test_decl__ncname(void **state)
{
	(void)state;
	assert_true(decl_is_ncname("orders-to-audit"));
	assert_true(decl_is_ncname("_x.1"));
	assert_true(decl_is_ncname("\xc3\xa9t\xc3\xa9"));
	assert_false(decl_is_ncname(""));
	assert_false(decl_is_ncname("1x"));
	assert_false(decl_is_ncname("-x"));
	assert_false(decl_is_ncname(".x"));
	assert_false(decl_is_ncname("a:b"));
	assert_false(decl_is_ncname("a b"));
	assert_false(decl_is_ncname(NULL));
}

static void
test_decl__glob(void **state)
{
	(void)state;
	assert_true(decl_glob_match("orders*", "orders"));
	assert_true(decl_glob_match("orders*", "orders.eu"));
	assert_true(decl_glob_match("*", ""));
	assert_true(decl_glob_match("o?ders", "orders"));
	assert_true(decl_glob_match("*.dlq", "a.b.dlq"));
	assert_true(decl_glob_match("a*b*c", "aXbYbZc"));
	assert_false(decl_glob_match("orders*", "order"));
	assert_false(decl_glob_match("?", ""));
	assert_false(decl_glob_match("a*b", "aXc"));
	/* Backtracking stays linear-ish: this must return at once. */
	assert_false(decl_glob_match("a*a*a*a*a*a*a*a*a*a*b",
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));
}

static void
test_decl__enum_names(void **state)
{
	enum decl_divert_routing r;
	int i;

	(void)state;
	for (i = DECL_DIVERT_STRIP; i <= DECL_DIVERT_MULTICAST; i++) {
		assert_int_equal(
		    decl_divert_routing_parse(
		        decl_divert_routing_name((enum decl_divert_routing)i),
		        &r),
		    0);
		assert_int_equal(r, i);
	}
	assert_int_equal(decl_divert_routing_parse("strip", &r), -1);
	assert_string_equal(decl_routing_name(DECL_ANYCAST), "anycast");
	assert_string_equal(decl_routing_name(DECL_MULTICAST), "multicast");
	assert_string_equal(decl_mode_name(DECL_CONFIG_MANAGED),
	    "CONFIG_MANAGED");
	assert_string_equal(decl_mode_name(DECL_STUDIO_MANAGED),
	    "STUDIO_MANAGED");
}

static void
test_decl__dump_round_trips(void **state)
{
	struct decl_cluster *c = NULL, *c2 = NULL;
	struct errlist l = {0};
	char *d1, *d2;
	struct decl_file f;

	(void)state;
	assert_int_equal(decl_cluster_load(&c, "examples/clusters/ledger", &l),
	    0);
	d1 = decl_cluster_dump(c);
	assert_non_null(strstr(d1, "\"mode\": \"CONFIG_MANAGED\""));
	f.path = "dump.yaml";
	f.data = d1;
	f.len = strlen(d1);
	assert_int_equal(decl_cluster_parse(&c2, "dump", &f, 1, &l), 0);
	d2 = decl_cluster_dump(c2);
	assert_string_equal(d1, d2);
	assert_int_equal(l.n, 0);
	decl_cluster_free(c);
	decl_cluster_free(c2);
	free(d1);
	free(d2);
}

/* The digest bound to a plan (decl_cluster_digest) covers the objects,
 * node names, mode and settings, not the nodes' endpoints: the same
 * declaration checked out on another machine, with other URLs and
 * credentials files, has the same digest; any declared object changed
 * gives another. */
static void
digest_of(const char *yaml, char hex[SHA256_HEX])
{
	struct decl_cluster *c = NULL;
	struct errlist l = {0};

	assert_int_equal(parse2(&c, yaml, NULL, &l), 0);
	decl_cluster_digest(c, hex);
	decl_cluster_free(c);
	errlist_release(&l);
}

#define DIGEST_BODY                                                            \
	"addresses:\n"                                                         \
	"  - name: orders\n"                                                   \
	"    routing: [anycast]\n"                                             \
	"    queues:\n"                                                        \
	"      - {name: orders, routing: anycast}\n"

/* A dump bigger than the default sbuf ceiling (16 MiB) is whole: a
 * 100,000-queue declaration's dump is about 50 MB, and it once came out
 * cut at 16 MiB (plan --out's declaration/cluster.yaml, and the digest
 * of the part that fit). */
static void
test_decl__big_dump_is_never_cut_short(void **state)
{
	struct decl_cluster *c = NULL;
	struct errlist l = {0};
	struct decl_address *a;
	char filter[1001], *dump, d1[SHA256_HEX], d2[SHA256_HEX];
	size_t i, n = 24000;

	(void)state;
	assert_int_equal(parse2(&c, HEAD DIGEST_BODY, NULL, &l), 0);
	memset(filter, 'f', sizeof(filter) - 1);
	filter[sizeof(filter) - 1] = '\0';
	a = &c->addresses[0];
	a->queues = xreallocarray(a->queues, n, sizeof(*a->queues));
	for (i = a->nqueues; i < n; i++) {
		a->queues[i] = a->queues[0];
		a->queues[i].name = xasprintf("orders.%06zu", i);
		a->queues[i].filter = xstrdup(filter);
		a->queues[i].last_value_key = NULL;
	}
	a->nqueues = n;
	dump = decl_cluster_dump(c);
	assert_true(strlen(dump) > SBUF_DEFAULT_MAX);
	assert_non_null(strstr(dump, "orders.023999"));
	assert_string_equal(dump + strlen(dump) - 2, "}\n");
	free(dump);
	decl_cluster_digest(c, d1);
	free(a->queues[n - 1].filter);
	a->queues[n - 1].filter = xstrdup("g");
	decl_cluster_digest(c, d2);
	assert_string_not_equal(d1, d2);
	decl_cluster_free(c);
	errlist_release(&l);
}

/* plan --out's declaration/cluster.yaml spells out every default, so it
 * outgrows the 1 MiB limit of people's files from about 2,000 queues:
 * apply reads it with DECL_DUMP_FILE_MAX and gets the same declaration. */
static void
test_decl__dump_file_loads_with_the_dump_limit(void **state)
{
	char dir[] = "/tmp/test-decl-dump-XXXXXX", *file, *dump, *msg;
	char d1[SHA256_HEX], d2[SHA256_HEX];
	struct decl_cluster *c = NULL, *back = NULL;
	struct errlist l = {0};
	struct decl_address *a;
	size_t i, n = 6000;
	FILE *f;

	(void)state;
	assert_int_equal(parse2(&c, HEAD DIGEST_BODY, NULL, &l), 0);
	a = &c->addresses[0];
	a->queues = xreallocarray(a->queues, n, sizeof(*a->queues));
	for (i = a->nqueues; i < n; i++) {
		a->queues[i] = a->queues[0];
		a->queues[i].name = xasprintf("orders.%06zu", i);
		a->queues[i].filter = NULL;
		a->queues[i].last_value_key = NULL;
	}
	a->nqueues = n;
	dump = decl_cluster_dump(c);
	assert_true(strlen(dump) > DECL_FILE_MAX);
	assert_non_null(mkdtemp(dir));
	file = xasprintf("%s/cluster.yaml", dir);
	f = fopen(file, "w");
	assert_non_null(f);
	fputs(dump, f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(decl_cluster_load(&back, dir, &l), -1);
	msg = errlist_render_item(&l, 0);
	assert_non_null(strstr(msg, "over the limit of 1048576 bytes"));
	free(msg);
	errlist_release(&l);
	assert_int_equal(
	    decl_cluster_load_max(&back, dir, DECL_DUMP_FILE_MAX, &l), 0);
	decl_cluster_digest(c, d1);
	decl_cluster_digest(back, d2);
	assert_string_equal(d1, d2);
	unlink(file);
	rmdir(dir);
	free(file);
	free(dump);
	decl_cluster_free(back);
	decl_cluster_free(c);
	errlist_release(&l);
}

static void
test_decl__digest_ignores_endpoints_only(void **state)
{
	char base[SHA256_HEX], other[SHA256_HEX], *dump;
	struct decl_cluster *c = NULL;
	struct errlist l = {0};

	(void)state;
	digest_of(HEAD DIGEST_BODY, base);
	assert_int_equal(strlen(base), SHA256_HEX - 1);
	/* another URL and credentials file: the same declaration */
	digest_of("version: 1\ncluster: c1\nmode: STUDIO_MANAGED\nnodes:\n"
	          "  - name: node1\n"
	          "    jolokia: https://b1.example:8443/console/jolokia\n"
	          "    credentials: other-file\n" DIGEST_BODY,
	    other);
	assert_string_equal(base, other);
	/* a queue attribute, an added queue, a node name, the mode, a
	 * setting, a capture: each changes it */
	digest_of(HEAD
	    "addresses:\n  - name: orders\n    routing: [anycast]\n"
	    "    queues:\n"
	    "      - {name: orders, routing: anycast, durable: false}\n",
	    other);
	assert_string_not_equal(base, other);
	digest_of(HEAD DIGEST_BODY
	    "      - {name: orders.b, routing: anycast}\n",
	    other);
	assert_string_not_equal(base, other);
	digest_of("version: 1\ncluster: c1\nmode: STUDIO_MANAGED\nnodes:\n"
	          "  - name: node9\n"
	          "    jolokia: http://localhost:8161/console/jolokia\n"
	          "    credentials: node1\n" DIGEST_BODY,
	    other);
	assert_string_not_equal(base, other);
	digest_of("version: 1\ncluster: c1\nmode: CONFIG_MANAGED\nnodes:\n"
	          "  - name: node1\n"
	          "    jolokia: http://localhost:8161/console/jolokia\n"
	          "    credentials: node1\n" DIGEST_BODY,
	    other);
	assert_string_not_equal(base, other);
	digest_of(HEAD DIGEST_BODY "settings:\n  max-destroyed-messages: 5\n",
	    other);
	assert_string_not_equal(base, other);
	digest_of(HEAD DIGEST_BODY
	    "captures:\n  - {name: dbg, pattern: \"o*\"}\n",
	    other);
	assert_string_not_equal(base, other);
	/* what is hashed: the dump without endpoints */
	assert_int_equal(parse2(&c, HEAD DIGEST_BODY, NULL, &l), 0);
	dump = decl_cluster_dump_objects(c);
	assert_null(strstr(dump, "jolokia"));
	assert_null(strstr(dump, "credentials"));
	assert_non_null(strstr(dump, "\"name\": \"node1\""));
	assert_non_null(strstr(dump, "\"name\": \"orders\""));
	free(dump);
	decl_cluster_free(c);
	errlist_release(&l);
}

static void
test_decl__transformer_properties_are_sorted(void **state)
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

static void
test_decl__diagnostics_are_sorted_and_capped(void **state)
{
	struct decl_cluster *c = NULL;
	struct errlist l = {0};
	char *y = xstrdup(HEAD "addresses:\n"), *prev;
	int i;

	(void)state;
	for (i = 0; i < 80; i++) {
		prev = y;
		y = xasprintf("%s  - {name: a%d, routing: [anycst]}\n", prev,
		    i);
		free(prev);
	}
	assert_int_equal(parse2(&c, "version: 1\nbogus: 1\n", y, &l), -1);
	/* b.yaml's 80 errors come first in load order, a.yaml's after; the
	 * cap keeps the first 50 found, then sorts them. */
	assert_int_equal(l.n, ERRLIST_CAP);
	assert_int_equal(l.nerrors, 81);
	assert_int_equal(l.dropped, 81 - ERRLIST_CAP);
	for (i = 1; i < (int)l.n; i++)
		assert_true(
		    strcmp(l.items[i - 1].path, l.items[i].path) < 0 ||
		    (strcmp(l.items[i - 1].path, l.items[i].path) == 0 &&
		        l.items[i - 1].line <= l.items[i].line));
	T_ERR_AT(&l, "a.yaml", 2, 1, "unknown key 'bogus' in the top level");
	errlist_release(&l);
	free(y);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_decl__minimal_cluster_gets_defaults),
	    cmocka_unit_test(test_decl__empty_optional_strings_mean_none),
	    cmocka_unit_test(test_decl__files_concatenate_lists),
	    cmocka_unit_test(
	        test_decl__same_queue_in_two_files_names_the_other),
	    cmocka_unit_test(test_decl__queue_and_divert_share_a_namespace),
	    cmocka_unit_test(
	        test_decl__nothing_consumes_is_an_error_in_studio_managed),
	    cmocka_unit_test(
	        test_decl__nothing_consumes_is_a_warning_in_config_managed),
	    cmocka_unit_test(test_decl__each_forwarding_target_is_checked),
	    cmocka_unit_test(
	        test_decl__config_managed_divert_names_are_ncnames),
	    cmocka_unit_test(test_decl__queue_routing),
	    cmocka_unit_test(test_decl__reserved_capture_prefix),
	    cmocka_unit_test(test_decl__bad_input_is_refused_with_position),
	    cmocka_unit_test(
	        test_decl__alias_bomb_is_refused_at_the_first_anchor),
	    cmocka_unit_test(test_decl__file_over_the_cap_is_refused),
	    cmocka_unit_test(test_decl__deep_nesting_is_refused),
	    cmocka_unit_test(test_decl__wrong_types_and_numbers),
	    cmocka_unit_test(test_decl__unknown_mode_and_keys),
	    cmocka_unit_test(test_decl__no_files_is_an_error_at_the_folder),
	    cmocka_unit_test(test_decl__jolokia_urls),
	    cmocka_unit_test(test_decl__credentials_are_names_never_secrets),
	    cmocka_unit_test(test_decl__ncname),
	    cmocka_unit_test(test_decl__glob),
	    cmocka_unit_test(test_decl__enum_names),
	    cmocka_unit_test(test_decl__dump_round_trips),
	    cmocka_unit_test(test_decl__digest_ignores_endpoints_only),
	    cmocka_unit_test(test_decl__big_dump_is_never_cut_short),
	    cmocka_unit_test(test_decl__dump_file_loads_with_the_dump_limit),
	    cmocka_unit_test(test_decl__transformer_properties_are_sorted),
	    cmocka_unit_test(test_decl__diagnostics_are_sorted_and_capped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
