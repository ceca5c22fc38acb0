/* tests/unit/test-snapshot.c: the snapshot model, its JSON form (render,
 * strict parse with JSON-path errors) and lookups. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/xalloc.h"
#include "../../reconcile/live/live-int.h"
#include "../../reconcile/recon.h"

static char **
strv(const char *a, const char *b)
{
	char **v = xcalloc(3, sizeof(*v));

	v[0] = xstrdup(a);
	if (b != NULL)
		v[1] = xstrdup(b);
	return v;
}

static struct recon_snapshot *
sample(void)
{
	struct recon_snapshot *s = xcalloc(1, sizeof(*s));
	struct recon_node_snapshot *n;
	struct recon_queue *q;
	struct recon_divert *d;

	s->cluster = xstrdup("local");
	s->taken_at = xstrdup("2026-11-29T20:00:00Z");
	s->nnodes = 2;
	s->nodes = xcalloc(2, sizeof(*s->nodes));
	n = &s->nodes[0];
	n->node = xstrdup("node1");
	n->url = xstrdup("http://localhost:8261/console/jolokia");
	n->broker_name = xstrdup("node1");
	n->broker_version = xstrdup("2.40.0");
	n->requests = 1;
	n->naddresses = 1;
	n->addresses = xcalloc(1, sizeof(*n->addresses));
	n->addresses[0].name = xstrdup("orders");
	n->addresses[0].routing = DECL_ANYCAST | DECL_MULTICAST;
	n->addresses[0].queue_names = strv("orders", NULL);
	n->addresses[0].nqueue_names = 1;
	n->addresses[0].binding_names = strv("audit", "orders");
	n->addresses[0].nbinding_names = 2;
	n->nqueues = 1;
	n->queues = q = xcalloc(1, sizeof(*n->queues));
	q->name = xstrdup("orders");
	q->address = xstrdup("orders");
	q->routing = DECL_ANYCAST;
	q->durable = true;
	q->filter = xstrdup("region = 'EU' \"x\"\n");
	q->max_consumers = -1;
	q->ring_size = -1;
	q->enabled = true;
	q->delay_before_dispatch = -1;
	q->consumer_count = 3;
	q->message_count = 9007199254740991LL;
	n->ndiverts = 1;
	n->diverts = d = xcalloc(1, sizeof(*n->diverts));
	d->name = xstrdup("audit");
	d->routing_name = xstrdup("audit");
	d->address = xstrdup("orders");
	d->forwarding_address = xstrdup("audit");
	d->routing_type = DECL_DIVERT_PASS;
	d->transformer_class_name = xstrdup("com.example.T");
	d->ntransformer_properties = 2;
	d->transformer_properties = xcalloc(2, sizeof(struct decl_kv));
	d->transformer_properties[0].key = xstrdup("a");
	d->transformer_properties[0].value = xstrdup("1");
	d->transformer_properties[1].key = xstrdup("b");
	d->transformer_properties[1].value = xstrdup("");
	n->naddress_settings = 1;
	n->address_settings = xcalloc(1, sizeof(*n->address_settings));
	n->address_settings[0].match = xstrdup("#");
	n->address_settings[0].config_delete_queues = xstrdup("OFF");
	n = &s->nodes[1];
	n->node = xstrdup("node2");
	n->url = xstrdup("http://localhost:8271/console/jolokia");
	n->refusal.kind = RECON_UNREACHABLE;
	n->refusal.text = xstrdup("Could not connect to server");
	n->requests = 1;
	return s;
}

static void
test_snapshot__render_parse_round_trip(void **state)
{
	struct recon_snapshot *s = sample(), *back = NULL;
	struct err err = {0};
	char *a, *b;

	(void)state;
	a = live_snapshot_render_json(s);
	assert_int_equal(
	    live_snapshot_parse_json(&back, "s.json", a, strlen(a), &err), 0);
	b = live_snapshot_render_json(back);
	assert_string_equal(a, b);
	assert_non_null(strstr(a, "\"format\": 1,"));
	assert_int_equal(back->nodes[1].refusal.kind, RECON_UNREACHABLE);
	assert_string_equal(back->nodes[0].queues[0].filter,
	    "region = 'EU' \"x\"\n");
	assert_true(
	    back->nodes[0].queues[0].message_count == 9007199254740991LL);
	assert_null(back->nodes[0].address_settings[0].config_delete_diverts);
	free(a);
	free(b);
	live_snapshot_free(s);
	live_snapshot_free(back);
}

static void
test_snapshot__lookups(void **state)
{
	struct recon_snapshot *s = sample();
	const struct recon_node_snapshot *n;

	(void)state;
	n = recon_snapshot_find_node(s, "node1");
	assert_non_null(n);
	assert_null(recon_snapshot_find_node(s, "node3"));
	assert_string_equal(recon_node_find_queue(n, "orders")->address,
	    "orders");
	assert_null(recon_node_find_queue(n, "order"));
	assert_non_null(recon_node_find_address(n, "orders"));
	assert_string_equal(recon_node_find_divert(n, "audit")->routing_name,
	    "audit");
	assert_null(recon_node_find_divert(n, "orders"));
	assert_null(recon_node_find_queue(&s->nodes[1], "orders"));
	live_snapshot_free(s);
}

/* Replace the first occurrence of from in the rendered sample. */
static char *
mutate(const char *from, const char *to)
{
	struct recon_snapshot *s = sample();
	char *a = live_snapshot_render_json(s), *p, *r;

	live_snapshot_free(s);
	p = strstr(a, from);
	assert_non_null(p);
	r = xasprintf("%.*s%s%s", (int)(p - a), a, to, p + strlen(from));
	free(a);
	return r;
}

static void
expect_error(const char *from, const char *to, const char *msg)
{
	struct recon_snapshot *s = NULL;
	struct err err = {0};
	char *text = mutate(from, to), *r;

	assert_int_equal(
	    live_snapshot_parse_json(&s, "snap.json", text, strlen(text), &err),
	    -1);
	assert_null(s);
	r = err_render(&err);
	assert_string_equal(r, msg);
	free(r);
	free(text);
	err_release(&err);
}

static void
test_snapshot__parse_errors_name_the_path(void **state)
{
	(void)state;
	expect_error("\"durable\": true", "\"durable\": 1",
	    "snap.json: nodes[0].queues[0].durable: expected a boolean");
	expect_error("\"format\": 1", "\"format\": 2",
	    "snap.json: format: unsupported snapshot format 2 (expected 1)");
	expect_error("\"exclusive\": false,\n          \"filter\": null",
	    "\"exclusive\": false, \"colour\": 1,\n          \"filter\": null",
	    "snap.json: nodes[0].diverts[0]: unknown key 'colour'");
	expect_error("\"routing\": \"anycast\"", "\"routing\": \"broadcast\"",
	    "snap.json: nodes[0].queues[0]: unknown routing type 'broadcast'");
	expect_error("\"routing_type\": \"PASS\"", "\"routing_type\": \"pass\"",
	    "snap.json: nodes[0].diverts[0]: unknown divert routing type "
	    "'pass'");
	expect_error("\"kind\": \"UNREACHABLE\"", "\"kind\": \"DOWN\"",
	    "snap.json: nodes[1].refusal: bad refusal (kind 'DOWN')");
	expect_error("\"message_count\": 9007199254740991",
	    "\"message_count\": 1.5",
	    "snap.json: nodes[0].queues[0].message_count: expected an integer");
	expect_error("\"cluster\": \"local\",", "",
	    "snap.json: $: missing key 'cluster'");
	expect_error("\"cluster\": \"local\",",
	    "\"cluster\": \"local\", \"cluster\": \"x\",",
	    "snap.json: $: duplicate key 'cluster'");
	expect_error("\"b\": \"\"", "\"a\": \"\"",
	    "snap.json: nodes[0].diverts[0].transformer_properties: key 'a' "
	    "duplicate or not sorted");
	expect_error("{", "[", "snap.json: $: expected an object");
	expect_error("\"durable\": true", "\"durable\": tru",
	    "snap.json:59:25: not valid JSON: unexpected character");
	expect_error("\"cluster\": \"local\",", "\"cluster\": \"local\"",
	    "snap.json:3:3: not valid JSON: expected ',' or '}'");
}

/* The file reader gives what the memory reader gives, and names a file
 * it cannot open. */
static void
test_snapshot__read_file(void **state)
{
	struct recon_snapshot *s = sample(), *back = NULL;
	char path[] = "/tmp/test-snapshot-XXXXXX";
	struct err err = {0};
	char *a, *b, *msg;
	FILE *f;
	int fd;

	(void)state;
	a = live_snapshot_render_json(s);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(a, f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(live_snapshot_read_file(&back, path, &err), 0);
	b = live_snapshot_render_json(back);
	assert_string_equal(a, b);
	assert_non_null(back->nodes[0].index);
	live_snapshot_free(back);
	back = NULL;
	unlink(path);
	assert_int_equal(
	    live_snapshot_read_file(&back, "/nonexistent/snap.json", &err), -1);
	assert_null(back);
	msg = err_render(&err);
	assert_string_equal(msg, "/nonexistent/snap.json: cannot open: No such "
	                         "file or directory");
	free(msg);
	err_release(&err);
	assert_int_equal(live_snapshot_read_file(&back, "/tmp", &err), -1);
	assert_null(back);
	msg = err_render(&err);
	assert_string_equal(msg, "/tmp: not a regular file");
	free(msg);
	err_release(&err);
	free(a);
	free(b);
	live_snapshot_free(s);
}

/* The targets of a forwarding address, trimmed, empty ones kept. */
static void
test_snapshot__forward_targets(void **state)
{
	const char *p = " a ,\t, b.c,,d\n", *t;
	const char *want[] = {"a", "", "b.c", "", "d"};
	size_t n, i = 0;

	(void)state;
	while (live_forward_target(&p, &t, &n)) {
		assert_true(i < 5);
		assert_int_equal(n, strlen(want[i]));
		assert_memory_equal(t, want[i], n);
		i++;
	}
	assert_int_equal(i, 5);
	p = NULL;
	assert_false(live_forward_target(&p, &t, &n));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_snapshot__render_parse_round_trip),
	    cmocka_unit_test(test_snapshot__lookups),
	    cmocka_unit_test(test_snapshot__parse_errors_name_the_path),
	    cmocka_unit_test(test_snapshot__read_file),
	    cmocka_unit_test(test_snapshot__forward_targets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
