/* tests/unit/test-import-report.c: reconcile/import/import-report.c:
 * import-report.json (canonical, deterministic, the documented keys) and
 * import-report.md, where names from the brokers are untrusted text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/json.h"
#include "../../lib/xalloc.h"
#include "../../reconcile/import/import-int.h"

/* Names a broker may hold that Markdown (or a terminal) reads otherwise. */
#define N_PIPE "a|b`c<d>e*f_g#h[i]j!k~l\\m&n"
#define N_LS   "x\xe2\x80\xa8y"
#define N_CTL  "c\x01\x1b[31m\x7f"
#define N_LF   "l1\nl2|"
#define N_BIDI                                                                 \
	"r\xe2\x80\xae"                                                        \
	"evil"
#define N_EMOJI "日本🎉"

/* Two nodes: one address and queue declared, a queue on one node only
 * (with an untrusted name and filter), rule entries with untrusted
 * names, a node without a known release, notes. */
static void
build(struct import_result *r, size_t nrule)
{
	struct decl_cluster *shell =
	    decl_cluster_new("shop|eu", DECL_STUDIO_MANAGED);
	struct import_node nodes[2];
	struct import_left *ex = NULL;
	struct decl_queue q;
	size_t nex = 0, i, a;
	char name[32];

	for (i = 0; i < 2; i++) {
		memset(&nodes[i], 0, sizeof(nodes[i]));
		nodes[i].node = xasprintf("node%zu", i + 1);
		nodes[i].objects =
		    decl_cluster_new(nodes[i].node, DECL_STUDIO_MANAGED);
		nodes[i].version = i == 0 ? xstrdup("2.44.0") : NULL;
		nodes[i].source = xasprintf("http://n%zu/jolokia", i + 1);
		a = decl_cluster_add_address(nodes[i].objects, "orders",
		    DECL_ANYCAST);
		decl_queue_init(&q);
		q.name = xstrdup("orders");
		q.routing = DECL_ANYCAST;
		decl_cluster_add_queue(nodes[i].objects, a, &q);
		free(q.name);
	}
	decl_queue_init(&q);
	q.name = xstrdup(N_PIPE);
	q.routing = DECL_ANYCAST;
	q.filter = xstrdup("k = '|' AND `x` <> \"<b>\"\n" N_LS);
	decl_cluster_add_queue(nodes[0].objects, 0, &q);
	free(q.name);
	free(q.filter);
	import_left_add1(&ex, &nex, IMPORT_QUEUE, N_LS, IMPORT_TEMPORARY,
	    "node1", "temporary");
	import_left_add1(&ex, &nex, IMPORT_QUEUE, N_CTL, IMPORT_AUTO_CREATED,
	    "node2", "auto-created");
	import_left_add1(&ex, &nex, IMPORT_ADDRESS, N_LF, IMPORT_BROKER_OWN,
	    "node1", "the broker's own");
	import_left_add1(&ex, &nex, IMPORT_DIVERT, N_BIDI, IMPORT_CAPTURE,
	    "node2", "a capture tap");
	import_left_add1(&ex, &nex, IMPORT_QUEUE, N_EMOJI, IMPORT_CAPTURE,
	    "node2", "a capture tap");
	for (i = 0; i < nrule; i++) {
		snprintf(name, sizeof(name), "DLQ.%03zu", i);
		import_left_add1(&ex, &nex, IMPORT_QUEUE, name,
		    IMPORT_BROKER_OWN, "node1", "the broker's own");
	}
	import_merge(r, shell, nodes, 2, ex, nex, "live");
	import_note(r, "node1: note with | and `tick` and " N_LS);
	import_note(r, "second note");
	for (i = 0; i < 2; i++)
		import_node_release(&nodes[i]);
	decl_cluster_free(shell);
}

static const struct json *
get(const struct json *o, const char *key)
{
	const struct json *v = json_get(o, key);

	if (v == NULL)
		fail_msg("no key '%s'", key);
	return v;
}

static int64_t
get_int(const struct json *o, const char *key)
{
	int64_t v = -1;

	assert_int_equal(json_int(get(o, key), &v), 0);
	return v;
}

/* Every object's keys in sorted order, all the way down. */
static void
keys_sorted(const struct json *v)
{
	const struct json *it;
	const char *prev = NULL;

	for (it = json_first(v); it != NULL; it = json_next(it)) {
		if (json_is_object(v)) {
			if (prev != NULL && strcmp(prev, json_key(it)) >= 0)
				fail_msg("key '%s' after '%s'", json_key(it),
				    prev);
			prev = json_key(it);
		}
		keys_sorted(it);
	}
}

static void
test_import_report__json_has_the_documented_keys(void **state)
{
	static const char *const keys[] = {"cluster", "declared", "format",
	    "left_out", "left_out_by_reason", "left_out_total", "mode", "nodes",
	    "notes", "source", "version"};
	struct import_result r;
	struct json_doc *doc = NULL;
	struct err err = {0};
	const struct json *root, *v, *it, *n;
	char *j1, *j2;
	size_t i, nleft = 0;
	int64_t total = 0;

	(void)state;
	build(&r, 0);
	j1 = import_report_json(&r);
	j2 = import_report_json(&r);
	assert_string_equal(j1, j2);
	assert_int_equal(j1[strlen(j1) - 1], '\n');
	if (json_parse(&doc, "import-report.json", j1, strlen(j1), &err) != 0)
		fail_msg("%s", err.msg);
	root = json_doc_root(doc);
	assert_true(json_is_object(root));
	assert_int_equal(json_size(root), sizeof(keys) / sizeof(keys[0]));
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		get(root, keys[i]);
	keys_sorted(root);
	assert_string_equal(json_str(get(root, "format")),
	    IMPORT_REPORT_FORMAT);
	assert_int_equal(get_int(root, "version"), IMPORT_REPORT_VERSION);
	assert_string_equal(json_str(get(root, "cluster")), "shop|eu");
	assert_string_equal(json_str(get(root, "source")), "live");
	assert_string_equal(json_str(get(root, "mode")), "STUDIO_MANAGED");
	v = get(root, "declared");
	assert_int_equal(get_int(v, "addresses"), 1);
	assert_int_equal(get_int(v, "queues"), 1);
	assert_int_equal(get_int(v, "diverts"), 0);
	/* every reason, with its count */
	v = get(root, "left_out_by_reason");
	assert_int_equal(json_size(v), IMPORT_NWHY);
	for (i = 0; i < IMPORT_NWHY; i++) {
		int64_t k = get_int(v, import_why_name((enum import_why)i));

		assert_int_equal(k, (int64_t)r.left_by_why[i]);
		total += k;
	}
	assert_int_equal(get_int(v, "CAPTURE"), 2);
	assert_int_equal(get_int(v, "NOT_ON_EVERY_NODE"), 1);
	assert_int_equal(get_int(root, "left_out_total"), total);
	assert_int_equal(total, 6);
	/* the entries, untrusted names intact */
	v = get(root, "left_out");
	assert_int_equal(json_size(v), r.nleft);
	for (it = json_first(v); it != NULL; it = json_next(it), nleft++) {
		assert_int_equal(json_size(it), 5);
		assert_true(json_is_string(get(it, "kind")));
		assert_true(json_is_string(get(it, "name")));
		assert_true(json_is_string(get(it, "reason")));
		assert_true(json_is_array(get(it, "nodes")));
		assert_int_equal(json_size(get(it, "nodes")), 2);
		get(it, "detail"); /* a string or null */
		if (strcmp(json_str(get(it, "name")), N_PIPE) == 0) {
			assert_string_equal(json_str(get(it, "reason")),
			    "NOT_ON_EVERY_NODE");
			assert_string_equal(json_str(get(it, "kind")), "queue");
			assert_string_equal(json_str(get(it, "detail")),
			    "held by 1 of 2 nodes");
			n = json_first(get(it, "nodes"));
			assert_string_equal(json_str(get(n, "node")), "node1");
			assert_non_null(
			    strstr(json_str(get(n, "state")), "\n" N_LS));
			n = json_next(n);
			assert_string_equal(json_str(get(n, "state")),
			    "absent");
		}
	}
	assert_int_equal(nleft, 6);
	/* the nodes; an unknown release is null */
	v = get(root, "nodes");
	assert_int_equal(json_size(v), 2);
	n = json_next(json_first(v));
	assert_string_equal(json_str(get(n, "name")), "node2");
	assert_true(json_is_null(get(n, "version")));
	assert_string_equal(json_str(get(n, "source")), "http://n2/jolokia");
	assert_string_equal(json_str(get(json_first(v), "version")), "2.44.0");
	v = get(root, "notes");
	assert_int_equal(json_size(v), 2);
	assert_string_equal(json_str(json_next(json_first(v))), "second note");
	json_doc_free(doc);
	free(j1);
	free(j2);
	import_result_release(&r);
}

/* The number of '|' not preceded by a backslash. */
static size_t
pipes(const char *s, size_t len)
{
	size_t i, n = 0;

	for (i = 0; i < len; i++)
		if (s[i] == '|' && (i == 0 || s[i - 1] != '\\'))
			n++;
	return n;
}

static void
test_import_report__markdown_escapes_untrusted_text(void **state)
{
	struct import_result r;
	char *md, *md2;
	const char *line, *end;
	size_t i, len;

	(void)state;
	build(&r, 0);
	md = import_report_md(&r);
	md2 = import_report_md(&r);
	assert_string_equal(md, md2);
	/* nothing raw: no control bytes but line ends, no U+2028, no bidi
	 * override */
	for (i = 0; md[i] != '\0'; i++)
		if ((unsigned char)md[i] < 0x20 && md[i] != '\n')
			fail_msg("control byte 0x%02x at %zu", md[i], i);
	assert_null(strstr(md, "\xe2\x80\xa8"));
	assert_null(strstr(md, "\xe2\x80\xae"));
	assert_null(strstr(md, "\x7f"));
	/* Markdown's characters escaped, invisible ones spelled out */
	assert_non_null(strstr(md, "# Import of cluster shop\\|eu (from the "
	                           "live brokers)\n"));
	assert_non_null(
	    strstr(md, "### queue a\\|b\\`c\\<d\\>e\\*f\\_g\\#h\\[i\\]"
	               "j\\!k\\~l\\\\m&amp;n: NOT_ON_EVERY_NODE\n"));
	assert_non_null(strstr(md, "x\\<U+2028\\>y"));
	assert_non_null(
	    strstr(md, "c\\<U+0001\\>\\<U+001B\\>\\[31m\\<U+007F\\>"));
	assert_non_null(strstr(md, "l1\\<U+000A\\>l2\\|"));
	assert_non_null(strstr(md, "r\\<U+202E\\>evil"));
	assert_non_null(strstr(md, N_EMOJI));
	assert_non_null(strstr(md, "note with \\| and \\`tick\\`"));
	/* every table row keeps its columns whatever the cells hold */
	for (line = md; *line != '\0'; line = *end ? end + 1 : end) {
		end = strchr(line, '\n');
		if (end == NULL)
			end = line + strlen(line);
		len = (size_t)(end - line);
		if (len == 0 || line[0] != '|')
			continue;
		if (strncmp(line, "| reason |", 10) == 0 ||
		    strncmp(line, "|---|---|---|---|---|", 21) == 0 ||
		    strncmp(line, "| BROKER_OWN", 12) == 0 ||
		    strncmp(line, "| AUTO_CREATED", 14) == 0 ||
		    strncmp(line, "| TEMPORARY", 11) == 0 ||
		    strncmp(line, "| CAPTURE", 9) == 0)
			assert_int_equal(pipes(line, len), 6);
		else if (strncmp(line, "| node | Artemis", 16) == 0 ||
		         strncmp(line, "|---|---|---|", 13) == 0 ||
		         strncmp(line, "| node1 | 2.44.0", 16) == 0 ||
		         strncmp(line, "| node2 | -", 11) == 0)
			assert_int_equal(pipes(line, len), 4);
		else if (pipes(line, len) != 3)
			fail_msg("row with %zu columns: %.*s",
			    pipes(line, len) - 1, (int)len, line);
	}
	/* the counts, the unknown release, the decision and the rules */
	assert_non_null(strstr(md, "Declared: **1 addresses, 1 queues, 0 "
	                           "diverts**. Left out: **6 objects**: 1 for "
	                           "you to decide, 5 by rule.\n"));
	assert_non_null(strstr(md, "| node2 | - | http://n2/jolokia |\n"));
	assert_non_null(strstr(md, "## Left out for you to decide (1)\n"));
	assert_non_null(strstr(md, "held by some nodes only: held by 1 of 2 "
	                           "nodes.\n"));
	assert_non_null(strstr(md, "| node2 | absent |\n"));
	assert_non_null(strstr(md, "| CAPTURE | 0 | 1 | 1 |"));
	assert_non_null(strstr(md, "| TEMPORARY | 0 | 1 | 0 |"));
	assert_non_null(strstr(md, "## Notes\n\n- node1: note with"));
	free(md);
	free(md2);
	import_result_release(&r);
}

/* Past 50 names a rule's list points at the JSON for the rest. */
static void
test_import_report__markdown_caps_the_lists(void **state)
{
	struct import_result r;
	char *md, *p;

	(void)state;
	build(&r, 55);
	md = import_report_md(&r);
	p = strstr(md, "\nBROKER_OWN:");
	assert_non_null(p);
	/* 56 of them: the address and 55 queues */
	assert_non_null(strstr(p, ", and 6 more (import-report.json lists "
	                          "them all)\n"));
	assert_null(strstr(md, "DLQ.054"));
	assert_non_null(strstr(md, "DLQ.048"));
	assert_non_null(strstr(md, "| BROKER_OWN | 1 | 55 | 0 |"));
	free(md);
	import_result_release(&r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_import_report__json_has_the_documented_keys),
	    cmocka_unit_test(
	        test_import_report__markdown_escapes_untrusted_text),
	    cmocka_unit_test(test_import_report__markdown_caps_the_lists),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
