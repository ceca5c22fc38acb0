/* tests/unit/test-emit.c: declarations/emit.c: a model written as the
 * declaration format's YAML files (what import writes): parsing the files
 * back gives the same model, whatever its names hold; settings at their
 * defaults are left out; the files are sorted, deterministic and split
 * under the limits; decl_yaml_scalar's quoting. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../declarations/decl.h"
#include "../../lib/sbuf.h"
#include "../../lib/xalloc.h"

/* A cluster of one node, as import's shell holds it. */
static struct decl_cluster *
cluster_new(void)
{
	struct decl_cluster *c = decl_cluster_new("c1", DECL_STUDIO_MANAGED);
	struct decl_node n = {{0}, NULL, NULL, NULL, NULL, 0};
	char name[] = "node1", url[] = "http://localhost:8161/console/jolokia";

	n.name = name;
	n.jolokia = url;
	n.credentials = name;
	decl_cluster_add_node(c, &n);
	return c;
}

static void
add_queue(struct decl_cluster *c, size_t ai, const char *name, unsigned routing,
    const char *filter)
{
	struct decl_queue q;

	decl_queue_init(&q);
	q.name = xstrdup(name);
	q.routing = routing;
	q.filter = filter != NULL ? xstrdup(filter) : NULL;
	decl_cluster_add_queue(c, ai, &q);
	free(q.name);
	free(q.filter);
}

static void
add_divert(struct decl_cluster *c, const char *name, const char *src,
    const char *fwd, enum decl_divert_routing rt, const char *filter)
{
	struct decl_divert d;

	decl_divert_init(&d);
	d.name = xstrdup(name);
	d.address = xstrdup(src);
	d.forwarding_address = xstrdup(fwd);
	d.routing_name = xstrdup(name);
	d.routing_type = rt;
	d.filter = filter != NULL ? xstrdup(filter) : NULL;
	decl_cluster_add_divert(c, &d);
	free(d.name);
	free(d.address);
	free(d.forwarding_address);
	free(d.routing_name);
	free(d.filter);
}

static void
divert_fields_free(struct decl_divert *d)
{
	size_t i;

	free(d->name);
	free(d->address);
	free(d->forwarding_address);
	free(d->filter);
	free(d->routing_name);
	free(d->transformer_class_name);
	for (i = 0; i < d->ntransformer_properties; i++) {
		free(d->transformer_properties[i].key);
		free(d->transformer_properties[i].value);
	}
}

static int
cmp_str(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* Emit c, parse the files back, and compare the objects' dumps with
 * those of want (c itself when NULL); the diagnostics and both dumps are
 * printed when they differ. */
static void
round_trip_as(const struct decl_cluster *c, const struct decl_cluster *want_c,
    const struct decl_emit_opts *o)
{
	struct decl_emit_file *f = NULL;
	struct decl_file *in;
	struct decl_cluster *back = NULL;
	struct errlist l = {0};
	struct err err = {0};
	size_t nf = 0, i;
	char *want, *got, *s;
	int rc;

	assert_int_equal(decl_cluster_emit(c, o, &f, &nf, &err), 0);
	assert_null(err.msg);
	in = xcalloc(nf, sizeof(*in));
	for (i = 0; i < nf; i++) {
		in[i].path = f[i].name;
		in[i].data = f[i].text;
		in[i].len = f[i].len;
		assert_int_equal(f[i].len, strlen(f[i].text));
	}
	rc = decl_cluster_parse(&back, "c1", in, nf, &l);
	if (rc != 0 || errlist_has_errors(&l)) {
		for (i = 0; i < l.n; i++) {
			s = errlist_render_item(&l, i);
			print_error("  %s\n", s);
			free(s);
		}
		for (i = 0; i < nf && rc != 0; i++)
			fprintf(stderr, "--- %s\n%s", f[i].name, f[i].text);
		fail_msg("the emitted files do not parse back");
	}
	want = decl_cluster_dump_objects(want_c != NULL ? want_c : c);
	got = decl_cluster_dump_objects(back);
	if (strcmp(want, got) != 0) {
		for (i = 0; i < nf; i++)
			fprintf(stderr, "--- %s\n%s", f[i].name, f[i].text);
		/* whole: print_error cuts long texts short */
		fprintf(stderr, "built:\n%s\nparsed back:\n%s\n", want, got);
		fail_msg("the parsed model differs from the built one");
	}
	free(want);
	free(got);
	decl_cluster_free(back);
	errlist_release(&l);
	free(in);
	decl_emit_files_free(f, nf);
}

static void
round_trip(const struct decl_cluster *c, const struct decl_emit_opts *o)
{
	round_trip_as(c, NULL, o);
}

/* Names YAML gives a meaning of its own, each one an address with a queue
 * of the same name. */
static const char *const tricky[] = {"orders", "a.b-c/d_e", "a b", "x y z",
    "a:b", "a: b", ":", "a:", "#", "a#b", "a #b", "'", "\"", "it's",
    "say \"hi\"", "'q'", "\"q\"", "-", "-x", "- x", "--", "---", "...", "*",
    "*a", "&", "&a", "!", "!!str", "%", "%TAG", "@", "`", "|", "|-", ">", ">-",
    "?", "? x", "[", "]", "{", "}", "[a]", "{a: b}", "=", "<<", "\\", "a\\b",
    "\\n", "é", "日本", "🎉", "a😀b", "true", "True", "TRUE", "false", "False",
    "FALSE", "yes", "Yes", "YES", "no", "No", "NO", "on", "On", "ON", "off",
    "Off", "OFF", "null", "Null", "NULL", "~", "y", "Y", "n", "N", "123", "0",
    "007", "0x1F", "1e3", ".5", "-1", "+1", "0o7", "0b101", "1_000", "12:30",
    "2024-01-01", ".inf", "-.inf", ".Inf", ".nan", ".NaN", "nan", "inf",
    "zz settings"};

/* Filters and transformer settings: quotes, line breaks, tabs,
 * backslashes, characters outside the BMP. */
static const char *const filters[] = {"color = 'red' AND size <> \"XL\"",
    "a = 1\nAND b = 2", "tab\there", "back\\slash \\\\ \\n", "emoji 🎉 clef 𝄞",
    "it''s # not a comment", "  leading and trailing  ", "cr\r\nlf",
    "ctl \x01\x1f\x7f", "nel \xc2\x85 bom \xef\xbb\xbf"};

static void
test_emit__tricky_names_round_trip(void **state)
{
	struct decl_cluster *c = cluster_new();
	struct decl_settings s = {0};
	struct decl_kv kv[5];
	struct decl_divert d;
	struct decl_queue q;
	const char *names[sizeof(tricky) / sizeof(tricky[0]) + 2];
	char long1[256], long2[256];
	size_t n = 0, i, ai, nf;
	char *p;

	(void)state;
	memset(long1, 'x', 255);
	long1[255] = '\0';
	for (i = 0; i < 85; i++) /* 85 x 3 bytes */
		memcpy(long2 + 3 * i, "日", 3);
	long2[255] = '\0';
	for (i = 0; i < sizeof(tricky) / sizeof(tricky[0]); i++) {
		p = decl_object_name_problem(tricky[i]);
		if (p != NULL) /* the list holds only names the format takes */
			fail_msg("'%s' %s", tricky[i], p);
		names[n++] = tricky[i];
	}
	names[n++] = long1;
	names[n++] = long2;
	assert_null(decl_object_name_problem(long2));
	assert_int_equal(strlen(long2), 255);
	qsort(names, n, sizeof(*names), cmp_str);
	for (i = 0; i < n; i++) {
		/* a third each: anycast, multicast, both */
		unsigned r = i % 3 == 0   ? DECL_ANYCAST
		             : i % 3 == 1 ? DECL_MULTICAST
		                          : DECL_ANYCAST | DECL_MULTICAST;

		if (strcmp(names[i], "zz settings") == 0)
			r = DECL_ANYCAST;
		ai = decl_cluster_add_address(c, names[i], r);
		if (strcmp(names[i], "zz settings") != 0) {
			add_queue(c, ai, names[i],
			    r == DECL_MULTICAST ? r : DECL_ANYCAST,
			    filters[i %
			            (sizeof(filters) / sizeof(filters[0]))]);
			continue;
		}
		/* every other setting of a queue, away from its default */
		decl_queue_init(&q);
		q.name = xstrdup("zz settings");
		q.routing = DECL_ANYCAST;
		q.durable = false;
		q.max_consumers = 5;
		q.purge_on_no_consumers = true;
		q.exclusive = true;
		q.ring_size = 100;
		q.enabled = false;
		q.last_value_key = xstrdup("key: \"#\"");
		q.consumers_before_dispatch = 2;
		q.delay_before_dispatch = 1000;
		decl_cluster_add_queue(c, ai, &q);
		free(q.name);
		free(q.last_value_key);
	}
	/* diverts with such names, filters and transformer settings; their
	 * target has an anycast queue (the anycast third) */
	add_divert(c, "d #1", "a: b", names[0], DECL_DIVERT_ANYCAST,
	    filters[0]);
	add_divert(c, "d\"3", "'", names[6], DECL_DIVERT_STRIP, filters[4]);
	add_divert(c, "d: 2", "#", names[3], DECL_DIVERT_PASS, filters[1]);
	decl_divert_init(&d);
	d.name = xstrdup("d🎉4");
	d.address = xstrdup("orders");
	d.forwarding_address = xstrdup("zz settings");
	d.routing_name = xstrdup("route: #x");
	d.exclusive = true;
	d.filter = xstrdup(filters[3]);
	d.transformer_class_name = xstrdup("com.example.My$Transformer");
	kv[0] = (struct decl_kv){xstrdup("#k"), xstrdup("")};
	kv[1] = (struct decl_kv){xstrdup("a b"), xstrdup("v: w")};
	kv[2] = (struct decl_kv){xstrdup("key: 1"), xstrdup("multi\nline\t\\")};
	kv[3] = (struct decl_kv){xstrdup("true"), xstrdup("123")};
	kv[4] = (struct decl_kv){xstrdup("é"), xstrdup("\"𝄞\"")};
	d.transformer_properties = kv;
	d.ntransformer_properties = 5;
	decl_cluster_add_divert(c, &d);
	divert_fields_free(&d);
	/* settings away from their defaults */
	s.capture_prefix = xstrdup("tap: #");
	s.max_destroyed_messages = 5;
	decl_cluster_set_settings(c, &s);
	free(s.capture_prefix);
	round_trip(c, NULL);
	/* and split into files of a few addresses each */
	{
		struct decl_emit_opts o = {7, "# imported\n# by a test\n"};
		struct decl_emit_file *f = NULL;
		struct err err = {0};

		round_trip(c, &o);
		assert_int_equal(decl_cluster_emit(c, &o, &f, &nf, &err), 0);
		assert_true(
		    strncmp(f[0].text, "# imported\n# by a test\nversion: 1\n",
		        34) == 0);
		decl_emit_files_free(f, nf);
	}
	decl_cluster_free(c);
}

/* Deterministic random names from the tricky characters: every one the
 * name rule takes survives the trip. */
static const char *const pool[] = {" ", " ", ":", "#", "'", "\"", "-", "*", "&",
    "!", "%", "@", "`", "|", ">", "?", "[", "]", "{", "}", "=", "\\", ",", "\t",
    ".", "/", "_", "~", "é", "日", "🎉", "a", "b", "Z", "0", "1", "x",
    "\xc2\xa0", "\x7f", "+", "$"};

static uint32_t
lcg(uint32_t *s)
{
	*s = *s * 1103515245u + 12345u;
	return (*s >> 16) & 0x7fff;
}

static void
test_emit__random_names_round_trip(void **state)
{
	struct decl_cluster *c = cluster_new();
	char *names[300], buf[64], *p;
	size_t n = 0, i, j, len, ai, kept = 0, tries;
	uint32_t seed = 17;
	struct decl_emit_opts o = {37, NULL};

	(void)state;
	for (i = 0; i < 2000 && n < 300; i++) {
		buf[0] = '\0';
		len = 1 + lcg(&seed) % 10;
		for (j = 0; j < len; j++)
			strcat(buf, pool[lcg(&seed) %
			                 (sizeof(pool) / sizeof(pool[0]))]);
		p = decl_object_name_problem(buf);
		if (p != NULL) {
			free(p);
			continue;
		}
		names[n++] = xstrdup(buf);
	}
	tries = i;
	qsort(names, n, sizeof(*names), cmp_str);
	for (i = 0; i < n; i++) {
		if (kept > 0 && strcmp(names[i], names[kept - 1]) == 0) {
			free(names[i]);
			continue;
		}
		names[kept++] = names[i];
	}
	/* a few hundred names, and the rule refused some on the way */
	assert_true(kept >= 250);
	assert_true(tries > n + 50);
	for (i = 0; i < kept; i++) {
		unsigned r = lcg(&seed) % 3 + 1;

		ai = decl_cluster_add_address(c, names[i], r);
		add_queue(c, ai, names[i],
		    r == DECL_MULTICAST ? r : DECL_ANYCAST,
		    i % 5 == 0 ? names[(i * 7) % kept] : NULL);
	}
	/* diverts between them, named by them (prefixed, so no queue has
	 * the name), into anycast-consuming addresses */
	for (i = 0; i + 1 < kept; i += 9) {
		unsigned r = c->addresses[i + 1].queues[0].routing;

		snprintf(buf, sizeof(buf), "d%s", names[i]);
		add_divert(c, buf, names[i], names[i + 1],
		    r == DECL_ANYCAST ? DECL_DIVERT_ANYCAST
		                      : DECL_DIVERT_MULTICAST,
		    names[i]);
	}
	round_trip(c, &o);
	round_trip(c, NULL);
	for (i = 0; i < kept; i++)
		free(names[i]);
	decl_cluster_free(c);
}

/* ---- what the files hold ---- */

static char *
emit_file(const struct decl_cluster *c, const char *name)
{
	struct decl_emit_file *f = NULL;
	struct err err = {0};
	size_t nf = 0, i;
	char *t = NULL;

	assert_int_equal(decl_cluster_emit(c, NULL, &f, &nf, &err), 0);
	for (i = 0; i < nf; i++)
		if (strcmp(f[i].name, name) == 0)
			t = xstrdup(f[i].text);
	decl_emit_files_free(f, nf);
	if (t == NULL)
		fail_msg("no %s emitted", name);
	return t;
}

static void
test_emit__defaults_are_left_out(void **state)
{
	struct decl_cluster *c = cluster_new();
	struct decl_queue q;
	char *t;
	size_t ai;

	(void)state;
	ai = decl_cluster_add_address(c, "a", DECL_ANYCAST);
	add_queue(c, ai, "a", DECL_ANYCAST, NULL);
	add_queue(c, ai, "b", DECL_ANYCAST, ""); /* "" is no filter */
	t = emit_file(c, "addresses.yaml");
	assert_string_equal(t, "version: 1\n"
	                       "addresses:\n"
	                       "  - name: a\n"
	                       "    routing: [anycast]\n"
	                       "    queues:\n"
	                       "      - name: a\n"
	                       "      - name: b\n");
	free(t);
	t = emit_file(c, "cluster.yaml");
	assert_string_equal(t, "version: 1\n"
	                       "cluster: c1\n"
	                       "mode: STUDIO_MANAGED\n"
	                       "nodes:\n"
	                       "  - name: node1\n"
	                       "    jolokia: "
	                       "\"http://localhost:8161/console/jolokia\"\n"
	                       "    credentials: node1\n");
	free(t);
	decl_cluster_free(c);

	/* each setting away from its default, one queue each */
	c = cluster_new();
	ai = decl_cluster_add_address(c, "a", DECL_ANYCAST);
	{
		static const char *const want[] = {"durable: false",
		    "filter: \"x = 1\"", "max-consumers: 0",
		    "purge-on-no-consumers: true", "exclusive: true",
		    "ring-size: 0", "enabled: false", "last-value-key: k",
		    "consumers-before-dispatch: 3", "delay-before-dispatch: 0"};
		char name[8], line[64];
		size_t i;

		for (i = 0; i < 10; i++) {
			decl_queue_init(&q);
			snprintf(name, sizeof(name), "q%zu", i);
			q.name = name;
			q.routing = DECL_ANYCAST;
			switch (i) {
			case 0:
				q.durable = false;
				break;
			case 1:
				q.filter = xstrdup("x = 1");
				break;
			case 2:
				q.max_consumers = 0;
				break;
			case 3:
				q.purge_on_no_consumers = true;
				break;
			case 4:
				q.exclusive = true;
				break;
			case 5:
				q.ring_size = 0;
				break;
			case 6:
				q.enabled = false;
				break;
			case 7:
				q.last_value_key = xstrdup("k");
				break;
			case 8:
				q.consumers_before_dispatch = 3;
				break;
			default:
				q.delay_before_dispatch = 0;
				break;
			}
			decl_cluster_add_queue(c, ai, &q);
			free(q.filter);
			free(q.last_value_key);
		}
		t = emit_file(c, "addresses.yaml");
		for (i = 0; i < 10; i++) {
			/* the queue's name, then its one setting, then the
			 * next queue */
			snprintf(line, sizeof(line),
			    "      - name: q%zu\n        %s\n%s", i, want[i],
			    i < 9 ? "      - name: q" : "");
			if (strstr(t, line) == NULL)
				fail_msg("no '%s' in\n%s", line, t);
		}
		free(t);
	}
	decl_cluster_free(c);
}

static void
test_emit__divert_defaults_are_left_out(void **state)
{
	struct decl_cluster *c = cluster_new();
	struct decl_divert d;
	char *t;

	(void)state;
	decl_cluster_add_address(c, "a", DECL_ANYCAST);
	add_divert(c, "plain", "a", "a", DECL_DIVERT_STRIP, "");
	decl_divert_init(&d);
	d.name = xstrdup("named");
	d.address = xstrdup("a");
	d.forwarding_address = xstrdup("a");
	d.routing_name = NULL; /* NULL: the divert's name */
	decl_cluster_add_divert(c, &d);
	free(d.name);
	d.name = xstrdup("routed");
	d.routing_name = xstrdup("other");
	d.routing_type = DECL_DIVERT_PASS;
	d.exclusive = true;
	d.transformer_class_name = xstrdup("");
	decl_cluster_add_divert(c, &d);
	free(d.name);
	free(d.address);
	free(d.forwarding_address);
	free(d.routing_name);
	free(d.transformer_class_name);
	t = emit_file(c, "diverts.yaml");
	assert_string_equal(t, "version: 1\n"
	                       "diverts:\n"
	                       "  - name: named\n"
	                       "    address: a\n"
	                       "    forwarding-address: a\n"
	                       "  - name: plain\n"
	                       "    address: a\n"
	                       "    forwarding-address: a\n"
	                       "  - name: routed\n"
	                       "    address: a\n"
	                       "    forwarding-address: a\n"
	                       "    routing-name: other\n"
	                       "    exclusive: true\n"
	                       "    routing-type: PASS\n");
	free(t);
	decl_cluster_free(c);
}

static void
test_emit__queue_routing_only_when_the_address_has_both(void **state)
{
	struct decl_cluster *c = cluster_new();
	char *t;
	size_t ai;

	(void)state;
	ai = decl_cluster_add_address(c, "any", DECL_ANYCAST);
	add_queue(c, ai, "qa", DECL_ANYCAST, NULL);
	ai = decl_cluster_add_address(c, "both", DECL_ANYCAST | DECL_MULTICAST);
	add_queue(c, ai, "qb1", DECL_MULTICAST, NULL);
	add_queue(c, ai, "qb2", DECL_ANYCAST, NULL);
	ai = decl_cluster_add_address(c, "multi", DECL_MULTICAST);
	add_queue(c, ai, "qm", DECL_MULTICAST, NULL);
	t = emit_file(c, "addresses.yaml");
	assert_string_equal(t, "version: 1\n"
	                       "addresses:\n"
	                       "  - name: any\n"
	                       "    routing: [anycast]\n"
	                       "    queues:\n"
	                       "      - name: qa\n"
	                       "  - name: both\n"
	                       "    routing: [anycast, multicast]\n"
	                       "    queues:\n"
	                       "      - name: qb1\n"
	                       "        routing: multicast\n"
	                       "      - name: qb2\n"
	                       "        routing: anycast\n"
	                       "  - name: multi\n"
	                       "    routing: [multicast]\n"
	                       "    queues:\n"
	                       "      - name: qm\n");
	free(t);
	round_trip(c, NULL);
	decl_cluster_free(c);
}

/* The same objects added in another order: the same bytes. */
static struct decl_cluster *
ordered(bool reverse)
{
	static const char *const an[] = {"b", "a b", "Z", "日本", "-1", "a"};
	static const char *const keys[] = {"a", "m", "z"};
	static const char *const values[] = {"3", "2", "1"};
	struct decl_cluster *c = cluster_new();
	struct decl_divert d;
	struct decl_kv kv[3];
	size_t i, j, k, ai;
	char *qn;

	for (k = 0; k < 6; k++) {
		i = reverse ? 5 - k : k;
		ai = decl_cluster_add_address(c, an[i],
		    DECL_ANYCAST | DECL_MULTICAST);
		for (j = 0; j < 2; j++) {
			size_t one = reverse ? 1 - j : j;

			qn = xasprintf("%s.%zu", an[i], one);
			add_queue(c, ai, qn,
			    one == 0 ? DECL_ANYCAST : DECL_MULTICAST,
			    one == 0 ? NULL : "f");
			free(qn);
		}
	}
	for (k = 0; k < 3; k++) {
		i = reverse ? 2 - k : k;
		decl_divert_init(&d);
		d.name = xasprintf("d%zu", i);
		d.address = xstrdup("a");
		d.forwarding_address = xstrdup("b");
		d.routing_name = xstrdup(d.name);
		d.transformer_class_name = xstrdup("T");
		for (j = 0; j < 3; j++) {
			size_t one = reverse ? 2 - j : j;

			kv[j].key = xstrdup(keys[one]);
			kv[j].value = xstrdup(values[one]);
		}
		d.transformer_properties = kv;
		d.ntransformer_properties = 3;
		decl_cluster_add_divert(c, &d);
		divert_fields_free(&d);
	}
	return c;
}

static void
test_emit__same_model_same_bytes(void **state)
{
	struct decl_cluster *a = ordered(false), *b = ordered(true);
	struct decl_emit_file *fa = NULL, *fb = NULL;
	struct err err = {0};
	size_t na = 0, nb = 0, i;
	const char *p, *q;

	(void)state;
	assert_int_equal(decl_cluster_emit(a, NULL, &fa, &na, &err), 0);
	assert_int_equal(decl_cluster_emit(b, NULL, &fb, &nb, &err), 0);
	assert_int_equal(na, 3);
	assert_int_equal(nb, 3);
	for (i = 0; i < na; i++) {
		assert_string_equal(fa[i].name, fb[i].name);
		assert_int_equal(fa[i].len, fb[i].len);
		assert_memory_equal(fa[i].text, fb[i].text, fa[i].len);
	}
	assert_string_equal(fa[0].name, "cluster.yaml");
	assert_string_equal(fa[1].name, "addresses.yaml");
	assert_string_equal(fa[2].name, "diverts.yaml");
	/* sorted by bytes: "-1" < "Z" < "a" < "a b" < "b" < "日本" */
	p = strstr(fa[1].text, "name: \"-1\"");
	assert_non_null(p);
	assert_non_null(q = strstr(p, "name: Z\n"));
	assert_non_null(p = strstr(q, "name: a\n"));
	assert_non_null(q = strstr(p, "name: \"a b\"\n"));
	assert_non_null(p = strstr(q, "name: b\n"));
	assert_non_null(strstr(p, "name: \"日本\"\n"));
	/* properties by key */
	p = strstr(fa[2].text,
	    "      a: \"3\"\n      m: \"2\"\n      z: \"1\"\n");
	assert_non_null(p);
	decl_emit_files_free(fa, na);
	decl_emit_files_free(fb, nb);
	decl_cluster_free(a);
	decl_cluster_free(b);
}

static size_t
count(const char *s, const char *sub)
{
	size_t n = 0;

	while ((s = strstr(s, sub)) != NULL) {
		n++;
		s += strlen(sub);
	}
	return n;
}

static void
test_emit__split_into_files(void **state)
{
	struct decl_cluster *c = cluster_new(), *sorted;
	struct decl_emit_opts o = {3, NULL};
	struct decl_emit_file *f = NULL;
	struct err err = {0};
	size_t nf = 0, i, ai, k;
	char name[32], last[16] = "";
	const char *p;
	static const int order[10] = {7, 2, 9, 0, 4, 1, 8, 3, 6, 5};

	(void)state;
	for (i = 0; i < 10; i++) {
		snprintf(name, sizeof(name), "addr-%02d", order[i]);
		ai = decl_cluster_add_address(c, name, DECL_ANYCAST);
		add_queue(c, ai, name, DECL_ANYCAST, NULL);
	}
	for (i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "div-%02zu", 3 - i);
		add_divert(c, name, "addr-00", "addr-01", DECL_DIVERT_STRIP,
		    NULL);
	}
	assert_int_equal(decl_cluster_emit(c, &o, &f, &nf, &err), 0);
	assert_int_equal(nf, 1 + 4 + 2);
	assert_string_equal(f[0].name, "cluster.yaml");
	for (i = 1; i <= 4; i++) {
		snprintf(name, sizeof(name), "addresses-%03zu.yaml", i);
		assert_string_equal(f[i].name, name);
	}
	assert_string_equal(f[5].name, "diverts-001.yaml");
	assert_string_equal(f[6].name, "diverts-002.yaml");
	for (i = 0; i < nf; i++) {
		if (strncmp(f[i].text, "version: 1\n", 11) != 0)
			fail_msg("%s does not begin with version: 1",
			    f[i].name);
	}
	/* at most 3 each, 10 in all, in name order across the files */
	for (i = 1, k = 0; i <= 4; i++) {
		size_t here = count(f[i].text, "\n  - name: ");

		assert_true(here >= 1 && here <= 3);
		assert_non_null(strstr(f[i].text, "version: 1\naddresses:\n"));
		k += here;
		for (p = f[i].text; (p = strstr(p, "\n  - name: ")) != NULL;) {
			p += strlen("\n  - name: ");
			assert_true(strncmp(last, p, 7) < 0);
			memcpy(last, p, 7);
			last[7] = '\0';
		}
	}
	assert_int_equal(k, 10);
	assert_int_equal(count(f[5].text, "\n  - name: "), 3);
	assert_int_equal(count(f[6].text, "\n  - name: "), 1);
	assert_non_null(strstr(f[5].text, "name: div-00\n"));
	assert_non_null(strstr(f[6].text, "name: div-03\n"));
	decl_emit_files_free(f, nf);
	/* read back: the model in name order */
	sorted = cluster_new();
	for (i = 0; i < 10; i++) {
		snprintf(name, sizeof(name), "addr-%02zu", i);
		ai = decl_cluster_add_address(sorted, name, DECL_ANYCAST);
		add_queue(sorted, ai, name, DECL_ANYCAST, NULL);
	}
	for (i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "div-%02zu", i);
		add_divert(sorted, name, "addr-00", "addr-01",
		    DECL_DIVERT_STRIP, NULL);
	}
	round_trip_as(c, sorted, &o);
	decl_cluster_free(sorted);
	decl_cluster_free(c);
}

static void
test_emit__object_larger_than_a_file_is_refused(void **state)
{
	struct decl_cluster *c = cluster_new();
	struct decl_emit_file *f = NULL;
	struct err err = {0};
	size_t nf = 0, ai;
	char *big = xmalloc(DECL_FILE_MAX + 1);

	(void)state;
	memset(big, 'x', DECL_FILE_MAX);
	big[DECL_FILE_MAX] = '\0';
	ai = decl_cluster_add_address(c, "a", DECL_ANYCAST);
	add_queue(c, ai, "a", DECL_ANYCAST, big);
	assert_int_equal(decl_cluster_emit(c, NULL, &f, &nf, &err), -1);
	assert_null(f);
	assert_int_equal(nf, 0);
	assert_non_null(err.msg);
	assert_non_null(strstr(err.msg, "more than a file may hold"));
	err_release(&err);
	/* a divert alike */
	decl_cluster_free(c);
	c = cluster_new();
	decl_cluster_add_address(c, "a", DECL_ANYCAST);
	add_divert(c, "d", "a", "a", DECL_DIVERT_STRIP, big);
	assert_int_equal(decl_cluster_emit(c, NULL, &f, &nf, &err), -1);
	assert_non_null(err.msg);
	assert_non_null(strstr(err.msg, "more than a file may hold"));
	err_release(&err);
	/* just under: written, and the file holds it */
	decl_cluster_free(c);
	c = cluster_new();
	big[DECL_FILE_MAX - 4096] = '\0';
	ai = decl_cluster_add_address(c, "a", DECL_ANYCAST);
	add_queue(c, ai, "a", DECL_ANYCAST, big);
	assert_int_equal(decl_cluster_emit(c, NULL, &f, &nf, &err), 0);
	assert_int_equal(nf, 2);
	assert_true(f[1].len > DECL_FILE_MAX - 4096);
	assert_true(f[1].len <= DECL_FILE_MAX);
	decl_emit_files_free(f, nf);
	free(big);
	decl_cluster_free(c);
}

static void
test_emit__too_many_files_are_refused(void **state)
{
	struct decl_cluster *c = cluster_new();
	struct decl_emit_opts o = {1, NULL};
	struct decl_emit_file *f = NULL;
	struct err err = {0};
	size_t nf = 0, i;
	char name[16];

	(void)state;
	/* cluster.yaml and 255 address files: the most a cluster holds */
	for (i = 0; i < DECL_FILES_MAX - 1; i++) {
		snprintf(name, sizeof(name), "a%03zu", i);
		decl_cluster_add_address(c, name, DECL_ANYCAST);
	}
	assert_int_equal(decl_cluster_emit(c, &o, &f, &nf, &err), 0);
	assert_int_equal(nf, DECL_FILES_MAX);
	assert_string_equal(f[nf - 1].name, "addresses-255.yaml");
	decl_emit_files_free(f, nf);
	/* one more */
	decl_cluster_add_address(c, "b", DECL_ANYCAST);
	f = NULL;
	nf = 0;
	assert_int_equal(decl_cluster_emit(c, &o, &f, &nf, &err), -1);
	assert_null(f);
	assert_int_equal(nf, 0);
	assert_non_null(err.msg);
	assert_non_null(strstr(err.msg, "257 files"));
	err_release(&err);
	decl_cluster_free(c);
}

static char *
scalar(const char *s)
{
	struct sbuf b;

	sbuf_init(&b, 0);
	decl_yaml_scalar(&b, s);
	return sbuf_take(&b);
}

static void
test_emit__yaml_scalar_quotes_what_yaml_reads_otherwise(void **state)
{
	static const char *const cases[][2] = {
	    {"orders", "orders"}, {"a.b-c/d_e9", "a.b-c/d_e9"}, {"_x", "_x"},
	    {"true", "\"true\""}, {"NULL", "\"NULL\""}, {"Off", "\"Off\""},
	    {"y", "\"y\""}, {"~", "\"~\""}, {"123", "\"123\""},
	    {"-x", "\"-x\""}, {".5", "\".5\""}, {"a b", "\"a b\""},
	    {"a:b", "\"a:b\""}, {"a#b", "\"a#b\""}, {"", "\"\""},
	    {"say \"hi\"", "\"say \\\"hi\\\"\""}, {"a\\b", "\"a\\\\b\""},
	    {"t\tn\nr\r", "\"t\\tn\\nr\\r\""}, {"\x01\x7f", "\"\\x01\\x7f\""},
	    {"\xc2\x85", "\"\\x85\""},                   /* NEL */
	    {"\xef\xbb\xbf", "\"\\ufeff\""},             /* BOM */
	    {"\xef\xbf\xbe", "\"\\ufffe\""},             /* a noncharacter */
	    {"\xed\x9f\xbf", "\"\xed\x9f\xbf\""},        /* U+D7FF stays */
	    {"é日🎉", "\"é日🎉\""}, {"\xff", "\"\\xff\""}, /* not UTF-8 */
	};
	size_t i;
	char *got;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		got = scalar(cases[i][0]);
		if (strcmp(got, cases[i][1]) != 0)
			fail_msg("case %zu: %s, want %s", i, got, cases[i][1]);
		free(got);
	}
}

/* U+2028 LINE SEPARATOR and U+2029 PARAGRAPH SEPARATOR are line breaks
 * to libyaml even inside a double-quoted scalar, folded with the white
 * space around them into one space ("ls \u2028 ps \u2029 x" read back as
 * "ls ps x") unless escaped: decl_yaml_scalar escapes them, as it does
 * NEL (U+0085). Found by this test, fixed in emit.c. */
static void
test_emit__line_and_paragraph_separators_round_trip(void **state)
{
	static const char filter[] = "ls \xe2\x80\xa8 ps \xe2\x80\xa9 x";
	struct decl_cluster *c = cluster_new(), *back = NULL;
	struct decl_emit_file *f = NULL;
	struct decl_file in[2];
	struct errlist l = {0};
	struct err err = {0};
	const struct decl_queue *q;
	char *got, *read = NULL;
	size_t nf = 0, ai;
	bool scalar_ok;

	(void)state;
	/* checked at the end, so that a failure leaks nothing */
	got = scalar("\xe2\x80\xa8\xe2\x80\xa9");
	scalar_ok = strcmp(got, "\"\\u2028\\u2029\"") == 0;
	ai = decl_cluster_add_address(c, "a", DECL_ANYCAST);
	add_queue(c, ai, "a", DECL_ANYCAST, filter);
	assert_int_equal(decl_cluster_emit(c, NULL, &f, &nf, &err), 0);
	assert_int_equal(nf, 2);
	in[0] = (struct decl_file){f[0].name, f[0].text, f[0].len};
	in[1] = (struct decl_file){f[1].name, f[1].text, f[1].len};
	assert_int_equal(decl_cluster_parse(&back, "c1", in, 2, &l), 0);
	q = decl_cluster_find_queue(back, "a");
	assert_non_null(q);
	assert_non_null(q->filter);
	read = xstrdup(q->filter);
	decl_cluster_free(back);
	decl_emit_files_free(f, nf);
	decl_cluster_free(c);
	errlist_release(&l);
	if (!scalar_ok || strcmp(read, filter) != 0) {
		print_error("decl_yaml_scalar gave %s; the filter read back is "
		            "\"%s\", want \"%s\"\n",
		    got, read, filter);
		free(got);
		free(read);
		fail_msg("U+2028/U+2029 do not survive emit and parse");
	}
	free(got);
	free(read);
}

/* The nodes file's side: an HA node's members (one with credentials of
 * its own), a node of one broker, settings away from their defaults; the
 * whole dump (endpoints and credentials too) comes back. */
static void
test_emit__nodes_members_settings_round_trip(void **state)
{
	struct decl_cluster *c = decl_cluster_new("ha-x", DECL_STUDIO_MANAGED);
	struct decl_member m[2] = {{{0}, NULL, NULL, NULL},
	    {{0}, NULL, NULL, NULL}};
	struct decl_node ha = {{0}, NULL, NULL, NULL, NULL, 0};
	struct decl_node one = {{0}, NULL, NULL, NULL, NULL, 0};
	struct decl_settings st = {0};
	struct decl_emit_file *f = NULL;
	struct decl_file in[4];
	struct decl_cluster *back = NULL;
	struct errlist l = {0};
	struct err err = {0};
	char n1[] = "ha1", n2[] = "plain-2", c1[] = "shared", c2[] = "own.cred";
	char m1[] = "ha1-primary", m2[] = "ha1-backup";
	char u1[] = "https://b1.example:8443/console/jolokia?x=1#f";
	char u2[] = "http://[::1]:8161/console/jolokia";
	char u3[] = "http://localhost:8171/console/jolokia";
	char pfx[] = "cap: #";
	char *want, *got;
	size_t nf = 0, i;

	(void)state;
	m[0].name = m1;
	m[0].jolokia = u1;
	m[1].name = m2;
	m[1].jolokia = u2;
	m[1].credentials = c2;
	ha.name = n1;
	ha.credentials = c1;
	ha.members = m;
	ha.nmembers = 2;
	decl_cluster_add_node(c, &ha);
	one.name = n2;
	one.jolokia = u3;
	one.credentials = c1;
	decl_cluster_add_node(c, &one);
	st.capture_prefix = pfx;
	st.max_destroyed_messages = 12;
	decl_cluster_set_settings(c, &st);
	assert_int_equal(decl_cluster_emit(c, NULL, &f, &nf, &err), 0);
	assert_int_equal(nf, 1); /* no object: cluster.yaml alone */
	for (i = 0; i < nf; i++) {
		in[i].path = f[i].name;
		in[i].data = f[i].text;
		in[i].len = f[i].len;
	}
	assert_int_equal(decl_cluster_parse(&back, "ha-x", in, nf, &l), 0);
	want = decl_cluster_dump(c);
	got = decl_cluster_dump(back);
	assert_string_equal(want, got);
	assert_non_null(strstr(f[0].text, "    members:\n"));
	assert_non_null(strstr(f[0].text, "  capture-prefix: \"cap: #\"\n"));
	free(want);
	free(got);
	decl_cluster_free(back);
	decl_cluster_free(c);
	errlist_release(&l);
	decl_emit_files_free(f, nf);
}

/* docs/policy.md: the policy is written where it is not the default or
 * not its address's (a queue's own delete under a retained address), and
 * reads back to the same model; settings.protect with it. */
static void
test_emit__policy_round_trip(void **state)
{
	struct decl_cluster *c = cluster_new();
	struct decl_settings st = {0};
	char p1[] = "orders*", p2[] = "b?";
	char *pats[] = {p1, p2};
	size_t ai;

	(void)state;
	st.capture_prefix = NULL;
	st.max_destroyed_messages = DECL_DEFAULT_MAX_DESTROYED;
	st.protect = pats;
	st.nprotect = 2;
	decl_cluster_set_settings(c, &st);
	/* in name order, as emit writes them */
	ai = decl_cluster_add_address(c, "legacy", DECL_ANYCAST);
	c->addresses[ai].policy.unmanaged = true;
	add_queue(c, ai, "legacy", DECL_ANYCAST, NULL);
	c->addresses[ai].queues[0].policy.unmanaged = true;
	ai = decl_cluster_add_address(c, "orders", DECL_ANYCAST);
	c->addresses[ai].policy.deletion = DECL_RETAIN;
	add_queue(c, ai, "orders", DECL_ANYCAST, NULL);
	c->addresses[ai].queues[0].policy.deletion = DECL_RETAIN;
	add_queue(c, ai, "scratch", DECL_ANYCAST, NULL); /* its own delete */
	add_divert(c, "d1", "orders", "orders", DECL_DIVERT_STRIP, NULL);
	c->diverts[0].policy.deletion = DECL_RETAIN;
	round_trip(c, NULL);
	decl_cluster_free(c);
}

/* delete-if-empty: the default in settings when on, a queue's key when
 * true; parsed back, every queue has the policy the model gave it or the
 * default (import's queues never say false). */
static void
test_emit__delete_if_empty(void **state)
{
	struct decl_cluster *c = cluster_new(), *back = NULL;
	struct decl_settings st = {0};
	struct decl_emit_file *f = NULL;
	struct decl_file in[2];
	struct errlist l = {0};
	struct err err = {0};
	struct decl_queue q;
	char pfx[] = "__capture.", plain[] = "plain", kept[] = "kept";
	size_t nf = 0, i, ai;

	(void)state;
	ai = decl_cluster_add_address(c, "orders", DECL_ANYCAST);
	decl_queue_init(&q);
	q.name = plain;
	q.routing = DECL_ANYCAST;
	decl_cluster_add_queue(c, ai, &q);
	q.name = kept;
	q.delete_if_empty = true;
	decl_cluster_add_queue(c, ai, &q);
	assert_int_equal(decl_cluster_emit(c, NULL, &f, &nf, &err), 0);
	assert_int_equal(nf, 2);
	assert_null(strstr(f[0].text, "delete-if-empty"));
	assert_non_null(strstr(f[1].text, "      - name: kept\n"
	                                  "        delete-if-empty: true\n"));
	decl_emit_files_free(f, nf);

	st.capture_prefix = pfx;
	st.max_destroyed_messages = DECL_DEFAULT_MAX_DESTROYED;
	st.delete_if_empty = true;
	decl_cluster_set_settings(c, &st);
	assert_int_equal(decl_cluster_emit(c, NULL, &f, &nf, &err), 0);
	assert_non_null(
	    strstr(f[0].text, "settings:\n  delete-if-empty: true\n"));
	for (i = 0; i < nf; i++) {
		in[i].path = f[i].name;
		in[i].data = f[i].text;
		in[i].len = f[i].len;
	}
	assert_int_equal(decl_cluster_parse(&back, "c1", in, nf, &l), 0);
	assert_true(back->settings.delete_if_empty);
	assert_true(decl_cluster_find_queue(back, "plain")->delete_if_empty);
	assert_true(decl_cluster_find_queue(back, "kept")->delete_if_empty);
	decl_cluster_free(back);
	decl_cluster_free(c);
	errlist_release(&l);
	decl_emit_files_free(f, nf);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_emit__nodes_members_settings_round_trip),
	    cmocka_unit_test(test_emit__tricky_names_round_trip),
	    cmocka_unit_test(test_emit__policy_round_trip),
	    cmocka_unit_test(test_emit__random_names_round_trip),
	    cmocka_unit_test(test_emit__defaults_are_left_out),
	    cmocka_unit_test(test_emit__divert_defaults_are_left_out),
	    cmocka_unit_test(
	        test_emit__queue_routing_only_when_the_address_has_both),
	    cmocka_unit_test(test_emit__same_model_same_bytes),
	    cmocka_unit_test(test_emit__split_into_files),
	    cmocka_unit_test(test_emit__object_larger_than_a_file_is_refused),
	    cmocka_unit_test(test_emit__too_many_files_are_refused),
	    cmocka_unit_test(
	        test_emit__yaml_scalar_quotes_what_yaml_reads_otherwise),
	    cmocka_unit_test(
	        test_emit__line_and_paragraph_separators_round_trip),
	    cmocka_unit_test(test_emit__delete_if_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
