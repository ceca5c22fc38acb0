/* tests/unit/test-import-xml.c: declarations/render/import-xml.c: one
 * node's broker.xml read into the model for `import --from-broker-xml`:
 * what is mapped, what is refused at its line, XIncludes checked and
 * expanded, ${...} refused or noted, and the fixtures rendered and read
 * again to the same objects. */
#include "decl-fixture.h"

#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../declarations/render/render.h"
#include "../../lib/afile.h"

#define FX "tests/fixtures/broker-xml/"
#define CFG                                                                    \
	"<configuration xmlns=\"urn:activemq\" "                               \
	"xmlns:xi=\"http://www.w3.org/2001/XInclude\">\n"                      \
	"<core xmlns=\"urn:activemq:core\">\n"
#define END "</core>\n</configuration>\n"

static char dir[] = "/tmp/test-import-xml-XXXXXX";

static int
setup(void **state)
{
	(void)state;
	return mkdtemp(dir) == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	char *cmd = NULL;

	(void)state;
	if (asprintf(&cmd, "rm -rf '%s'", dir) < 0)
		return -1;
	if (system(cmd) != 0) {
		free(cmd);
		return -1;
	}
	free(cmd);
	return 0;
}

/* dir/name (owned), written with text (folders made). */
static char *
wr(const char *name, const char *text)
{
	char *p = NULL, *slash;
	FILE *f;

	assert_true(asprintf(&p, "%s/%s", dir, name) > 0);
	for (slash = strchr(p + strlen(dir) + 1, '/'); slash != NULL;
	     slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		(void)mkdir(p, 0700);
		*slash = '/';
	}
	f = fopen(p, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	return p;
}

/* Read path; it must succeed. */
static void
read_ok(struct render_import *im, const char *path)
{
	struct errlist l = {0};
	size_t i;
	char *s;

	if (render_import_read(im, path, &l) != 0) {
		for (i = 0; i < l.n; i++) {
			s = errlist_render_item(&l, i);
			print_error("  %s\n", s);
			free(s);
		}
		fail_msg("%s refused", path);
	}
	assert_int_equal(l.n, 0);
	errlist_release(&l);
}

/* A broker.xml of body (between <core> and </core>) written as name;
 * reading it must fail with a diagnostic at line containing sub. */
static void
refused_at(const char *name, const char *text, unsigned line, unsigned col,
    const char *sub)
{
	struct render_import im = {0};
	struct errlist l = {0};
	char *p = wr(name, text);

	assert_int_equal(render_import_read(&im, p, &l), -1);
	T_ERR_AT(&l, p, line, col, sub);
	assert_null(im.objects);
	errlist_release(&l);
	free(p);
}

static void
test_import_xml__every_setting(void **state)
{
	struct render_import im = {0};
	const struct decl_cluster *c;
	const struct decl_queue *q;
	const struct decl_divert *d;

	(void)state;
	read_ok(&im, FX "every-setting/broker.xml");
	c = im.objects;
	assert_false(im.expanded);
	assert_int_equal(c->naddresses, 5);
	assert_string_equal(c->addresses[2].name, "orders");
	assert_int_equal(c->addresses[2].routing,
	    DECL_ANYCAST | DECL_MULTICAST);
	assert_int_equal(c->addresses[2].pos.line, 96);
	assert_string_equal(c->addresses[2].pos.path,
	    FX "every-setting/broker.xml");
	q = &c->addresses[2].queues[0];
	assert_string_equal(q->name, "orders");
	assert_int_equal(q->pos.line, 102); /* the start tag's end */
	assert_int_equal(q->routing, DECL_ANYCAST);
	assert_false(q->durable);
	assert_string_equal(q->filter, "region = 'EU' AND amount > 100");
	assert_int_equal(q->max_consumers, 10);
	assert_true(q->purge_on_no_consumers);
	assert_true(q->exclusive);
	assert_int_equal(q->ring_size, 500);
	assert_false(q->enabled);
	assert_string_equal(q->last_value_key, "orderId");
	assert_int_equal(q->consumers_before_dispatch, 2);
	assert_int_equal(q->delay_before_dispatch, 1500);
	/* last-value="true" without a key: Message.HDR_LAST_VALUE_NAME */
	q = &c->addresses[2].queues[1];
	assert_int_equal(q->routing, DECL_MULTICAST);
	assert_string_equal(q->last_value_key, "_AMQ_LVQ_NAME");
	assert_true(q->durable);
	assert_int_equal(q->max_consumers, -1);
	assert_int_equal(c->addresses[3].nqueues, 0);
	assert_int_equal(c->addresses[3].routing, DECL_MULTICAST);
	assert_true(c->addresses[4].queues[0].durable); /* " true " */
	assert_int_equal(c->ndiverts, 2);
	d = &c->diverts[0];
	assert_string_equal(d->name, "order-audit");
	assert_string_equal(d->routing_name, "audit");
	assert_string_equal(d->address, "orders");
	assert_string_equal(d->forwarding_address, "archive");
	assert_string_equal(d->filter, "priority < 5");
	assert_string_equal(d->transformer_class_name, "org.example.AddHeader");
	assert_int_equal(d->ntransformer_properties, 2);
	assert_string_equal(d->transformer_properties[0].key, "alpha");
	assert_string_equal(d->transformer_properties[0].value,
	    "first & foremost");
	assert_string_equal(d->transformer_properties[1].key, "zeta");
	assert_true(d->exclusive);
	assert_int_equal(d->routing_type, DECL_DIVERT_ANYCAST);
	d = &c->diverts[1];
	assert_string_equal(d->routing_name, d->name); /* normalised */
	assert_null(d->filter);
	assert_false(d->exclusive);
	assert_int_equal(d->routing_type, DECL_DIVERT_STRIP);
	assert_string_equal(d->transformer_class_name, "org.example.Upper");
	assert_int_equal(d->ntransformer_properties, 0);
	/* ${...} outside the imported elements: kept, one note */
	assert_int_equal(im.nnotes, 1);
	assert_non_null(strstr(im.notes[0], "${broker.name:orders-1}, "
	                                    "${upstream.host:localhost}, "
	                                    "${udp-address:231.7.7.7}"));
	render_import_release(&im);
	render_import_release(&im);
	assert_null(im.objects);
}

/* The base is the file's bytes, unchanged. */
static void
test_import_xml__base_is_the_bytes(void **state)
{
	struct render_import im = {0};
	char *want = NULL;
	size_t len = 0;
	struct err err = {0};

	(void)state;
	read_ok(&im, FX "crlf/broker.xml");
	assert_int_equal(
	    afile_read(&want, &len, FX "crlf/broker.xml", 1 << 20, &err), 0);
	assert_int_equal(im.base_len, len);
	assert_memory_equal(im.base, want, len);
	assert_non_null(strstr(im.base, "\r\n"));
	assert_string_equal(im.objects->diverts[0].forwarding_address,
	    "inbox.copy");
	assert_int_equal(im.objects->diverts[0].routing_type, DECL_DIVERT_PASS);
	assert_int_equal(im.nnotes, 0);
	free(want);
	render_import_release(&im);
}

static void
test_import_xml__odd_names(void **state)
{
	struct render_import im = {0};
	const struct decl_cluster *c;

	(void)state;
	read_ok(&im, FX "odd-names/broker.xml");
	c = im.objects;
	assert_string_equal(c->addresses[0].name, "caf\xc3\xa9"
	                                          ".commandes");
	assert_string_equal(c->addresses[0].queues[0].name,
	    "l'\xc3\xa9t\xc3\xa9-\"2024\"");
	assert_string_equal(c->addresses[0].queues[1].name, "a&b<c>");
	assert_string_equal(c->addresses[1].queues[0].filter,
	    "color = 'r\xc3\xb6"
	    "d' AND x <> 'y&z'");
	assert_string_equal(c->diverts[0].filter, "say = \"hi\"");
	render_import_release(&im);
}

static void
test_import_xml__xinclude_expanded(void **state)
{
	struct render_import im = {0};
	const struct decl_cluster *c;

	(void)state;
	read_ok(&im, FX "xinclude/broker.xml");
	c = im.objects;
	assert_true(im.expanded);
	assert_int_equal(c->naddresses, 2);
	assert_string_equal(c->addresses[1].name, "a2");
	assert_int_equal(c->addresses[1].queues[0].max_consumers, 3);
	/* positions point into the file the object came from */
	assert_string_equal(c->addresses[0].pos.path,
	    FX "xinclude/fragments/addresses.xml");
	assert_int_equal(c->addresses[0].pos.line, 2);
	assert_string_equal(c->addresses[1].pos.path,
	    FX "xinclude/fragments/more/a2.xml");
	assert_int_equal(c->addresses[1].pos.line, 1);
	assert_string_equal(c->diverts[0].pos.path, FX "xinclude/broker.xml");
	assert_null(strstr(im.base, "xi:include"));
	assert_non_null(strstr(im.base, "tcp://0.0.0.0:61616"));
	assert_int_equal(im.nnotes, 1);
	assert_non_null(strstr(im.notes[0], "fragments/acceptors.xml, "
	                                    "fragments/addresses.xml, "
	                                    "more/a2.xml"));
	render_import_release(&im);
}

static void
test_import_xml__xinclude_escapes_refused(void **state)
{
	char *outside, *p, *link = NULL;

	(void)state;
	outside = wr("outside.xml", "<addresses xmlns=\"urn:activemq:core\"/>");
	refused_at("esc/broker.xml",
	    CFG "<xi:include href=\"../outside.xml\"/>\n" END, 3, 0,
	    "xi:include href '../outside.xml' resolves to");
	assert_true(
	    asprintf(&p, CFG "<xi:include href=\"%s\"/>\n" END, outside) > 0);
	refused_at("abs/broker.xml", p, 3, 0, "outside the folder of");
	free(p);
	p = wr("sym/broker.xml", CFG "<!-- a link leaving the folder -->\n"
	                             "<xi:include href=\"f.xml\"/>\n" END);
	free(p);
	assert_true(asprintf(&link, "%s/sym/f.xml", dir) > 0);
	assert_int_equal(symlink(outside, link), 0);
	refused_at("sym/broker.xml",
	    CFG "<!-- a link leaving the folder -->\n"
	        "<xi:include href=\"f.xml\"/>\n" END,
	    4, 0, "resolves to");
	free(link);
	free(outside);
	refused_at("miss/broker.xml",
	    CFG "<xi:include href=\"nothere.xml\"/>\n" END, 3, 0,
	    "xi:include href 'nothere.xml': no such file");
	refused_at("loop/broker.xml",
	    CFG "\n<xi:include href=\"broker.xml\"/>\n" END, 4, 0,
	    "includes itself");
	refused_at("text/broker.xml",
	    CFG "<xi:include href=\"broker.xml\" parse=\"text\"/>\n" END, 3, 0,
	    "parse='text'");
	refused_at("url/broker.xml",
	    CFG "<xi:include href=\"http://example.com/a.xml\"/>\n" END, 3, 0,
	    "is not a plain file path");
	refused_at("prop/broker.xml",
	    CFG "<xi:include href=\"${dir}/a.xml\"/>\n" END, 3, 0,
	    "holds a ${...}");
	/* a nested include is checked against the top file's folder, at
	 * its own line in its own file */
	free(wr("nest/frag.xml",
	    "<addresses xmlns=\"urn:activemq:core\" "
	    "xmlns:xi=\"http://www.w3.org/2001/XInclude\">\n"
	    "<xi:include href=\"../outside.xml\"/>\n</addresses>\n"));
	{
		struct render_import im = {0};
		struct errlist l = {0};
		char *top = wr("nest/broker.xml",
		    CFG "<xi:include href=\"frag.xml\"/>\n" END);
		char *frag = NULL;

		assert_true(asprintf(&frag, "%s/nest/frag.xml", dir) > 0);
		assert_int_equal(render_import_read(&im, top, &l), -1);
		T_ERR_AT(&l, frag, 2, 0, "outside the folder of");
		errlist_release(&l);
		free(top);
		free(frag);
	}
}

static void
test_import_xml__malformed_and_doctype(void **state)
{
	(void)state;
	refused_at("bad.xml",
	    CFG "<addresses>\n  <address name=\"a\"></adress>\n" END, 4, 30,
	    "not well-formed XML: Opening and ending tag mismatch");
	refused_at("laughs.xml",
	    "<?xml version=\"1.0\"?>\n"
	    "<!DOCTYPE configuration [\n"
	    "<!ENTITY a \"aaaaaaaaaa\">\n"
	    "<!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\">\n]>\n" CFG
	    "<name>&b;</name>\n" END,
	    2, 0, "the DOCTYPE declares entities or elements");
	refused_at("xxe.xml",
	    "<!DOCTYPE configuration SYSTEM \"http://example.com/x.dtd\">\n" CFG
	        END,
	    1, 0, "names an external DTD");
	refused_at("empty.xml", "", 1, 1, "not well-formed XML");
}

static void
test_import_xml__not_artemis(void **state)
{
	(void)state;
	refused_at("root.xml", "<beans xmlns=\"urn:spring\"/>\n", 1, 0,
	    "not an Artemis broker.xml: root element <beans> in namespace "
	    "urn:spring");
	refused_at("rootns.xml", "<configuration><core/></configuration>\n", 1,
	    0, "in namespace (none)");
	refused_at("nocore.xml", "<configuration xmlns=\"urn:activemq\"/>\n", 1,
	    0, "no <core> element");
	refused_at("twocore.xml",
	    "<configuration xmlns=\"urn:activemq\">\n"
	    "<core xmlns=\"urn:activemq:core\"/>\n"
	    "<core xmlns=\"urn:activemq:core\"/>\n</configuration>\n",
	    2, 0, "more than one <core>");
	refused_at("corens.xml",
	    "<configuration xmlns=\"urn:activemq\">\n"
	    "<core xmlns=\"urn:other\"/>\n</configuration>\n",
	    2, 0, "must be in the default namespace urn:activemq:core");
}

static void
test_import_xml__properties(void **state)
{
	struct render_import im = {0};
	struct errlist l = {0};

	(void)state;
	assert_int_equal(
	    render_import_read(&im, FX "refused-props/broker.xml", &l), -1);
	T_ERR_AT(&l, FX "refused-props/broker.xml", 8, 0,
	    "${env.MAX} is substituted by the broker at start; import cannot "
	    "know its value");
	T_ERR_AT(&l, FX "refused-props/broker.xml", 9, 0, "${region}");
	assert_int_equal(l.n, 2); /* <name>'s is not refused */
	errlist_release(&l);
	refused_at("divert-prop.xml",
	    CFG "<diverts><divert name=\"d\">\n<address>a</address>\n"
	        "<forwarding-address>${fwd}</forwarding-address>\n"
	        "</divert></diverts>\n" END,
	    5, 0, "${fwd} is substituted");
}

static void
test_import_xml__routing_and_legacy(void **state)
{
	struct render_import im = {0};
	char *p;

	(void)state;
	refused_at("none.xml",
	    CFG "<addresses>\n<address name=\"a\">\n <!-- nothing -->\n"
	        "</address>\n</addresses>\n" END,
	    4, 0, "address 'a' has neither <anycast> nor <multicast>");
	refused_at("empty-addr.xml",
	    CFG "<addresses><address name=\"a\"/></addresses>\n" END, 3, 0,
	    "neither <anycast> nor <multicast>");
	refused_at("legacy.xml",
	    CFG "<queues>\n<queue name=\"q\"><address>q</address></queue>\n"
	        "</queues>\n" END,
	    4, 0, "legacy <queues> (Artemis 1.x)");
	p = wr("legacy-empty.xml", CFG "<queues/>\n" END);
	read_ok(&im, p);
	assert_int_equal(im.nnotes, 1);
	assert_string_equal(im.notes[0],
	    "an empty legacy <queues> (line 3) is kept in the base");
	render_import_release(&im);
	free(p);
	refused_at("twice.xml",
	    CFG "<addresses><address name=\"a\"><anycast/>\n<anycast/>"
	        "</address></addresses>\n" END,
	    4, 0, "a second <anycast>");
}

#define QUEUE(attrs)                                                           \
	CFG "<addresses><address name=\"a\"><anycast>\n"                       \
	    "<queue name=\"q\" " attrs                                         \
	    "/>\n</anycast></address></addresses>\n" END

static void
test_import_xml__queue_values(void **state)
{
	struct render_import im = {0};
	const struct decl_queue *q;
	char *p;

	(void)state;
	refused_at("b1.xml", QUEUE("exclusive=\"1\""), 4, 0,
	    "queue 'q': exclusive '1' is true to the schema but false to "
	    "Artemis");
	refused_at("b2.xml", QUEUE("enabled=\" true\""), 4, 0,
	    "enabled ' true' is not a boolean");
	refused_at("b3.xml", QUEUE("exclusive=\"TRUE\""), 4, 0,
	    "is not a boolean");
	refused_at("i1.xml", QUEUE("max-consumers=\" 5\""), 4, 0,
	    "max-consumers ' 5' is not an integer from -1 (unlimited) up");
	refused_at("i2.xml", QUEUE("max-consumers=\"2147483648\""), 4, 0,
	    "is not an integer");
	refused_at("i3.xml", QUEUE("ring-size=\"0\""), 4, 0,
	    "ring-size '0' is not an integer -1 (unbounded) or from 1 up");
	refused_at("i4.xml", QUEUE("consumers-before-dispatch=\"-1\""), 4, 0,
	    "is not an integer from 0 up");
	refused_at("i5.xml",
	    QUEUE("delay-before-dispatch=\"9223372036854775808\""), 4, 0,
	    "is not an integer");
	refused_at("u1.xml", QUEUE("non-destructive=\"true\""), 4, 0,
	    "non-destructive 'true' cannot be declared (the declaration "
	    "format has no non-destructive; only Artemis's default 'false' "
	    "can be imported)");
	refused_at("u2.xml", QUEUE("group-buckets=\"8\""), 4, 0,
	    "group-buckets '8' cannot be declared");
	refused_at("u3.xml", QUEUE("group-first-key=\"k\""), 4, 0,
	    "group-first-key 'k' cannot be declared");
	refused_at("u4.xml", QUEUE("auto-delete=\"true\""), 4, 0,
	    "unknown attribute 'auto-delete'");
	refused_at("u5.xml",
	    CFG "<addresses><address name=\"a\"><anycast>\n"
	        "<queue name=\"q\">\n<user>bob</user></queue>\n"
	        "</anycast></address></addresses>\n" END,
	    5, 0, "<user> 'bob' cannot be declared");
	refused_at("n1.xml",
	    CFG "<addresses><address name=\"a\"><anycast>\n"
	        "<queue name=\"\"/>\n</anycast></address></addresses>\n" END,
	    4, 0, "queue '' cannot be declared");
	p = wr("ok.xml", QUEUE("max-consumers=\"+5\" exclusive=\"0\" "
	                       "group-rebalance=\"false\" group-buckets=\"-1\" "
	                       "last-value=\"false\" last-value-key=\"k\" "
	                       "xml:lang=\"en\""));
	read_ok(&im, p);
	q = &im.objects->addresses[0].queues[0];
	assert_int_equal(q->max_consumers, 5);
	assert_false(q->exclusive);
	/* the key alone makes a last-value queue (QueueFactoryImpl) */
	assert_string_equal(q->last_value_key, "k");
	assert_int_equal(q->pos.line, 4);
	render_import_release(&im);
	free(p);
}

#define DIVERT(body)                                                           \
	CFG "<diverts>\n<divert name=\"d\">\n<address>a</address>\n"           \
	    "<forwarding-address>b</forwarding-address>\n" body                \
	    "</divert>\n</diverts>\n" END

static void
test_import_xml__divert_values(void **state)
{
	(void)state;
	refused_at("d1.xml", DIVERT("<routing-type>strip</routing-type>\n"), 7,
	    0, "routing-type 'strip' is not STRIP, PASS, ANYCAST or MULTICAST");
	refused_at("d2.xml", DIVERT("<exclusive>1</exclusive>\n"), 7, 0,
	    "exclusive '1' is true to the schema");
	refused_at("d3.xml",
	    DIVERT("<transformer><class-name>T</class-name>\n"
	           "<property key=\"k\" value=\"1\"/><property key=\"k\" "
	           "value=\"2\"/></transformer>\n"),
	    7, 0, "transformer property 'k' given twice");
	refused_at("d4.xml",
	    DIVERT("<transformer-class-name>A</transformer-class-name>\n"
	           "<transformer><class-name>B</class-name></transformer>\n"),
	    4, 0, "both <transformer-class-name> and <transformer>");
	refused_at("d5.xml",
	    DIVERT("<filter string=\"a\"/><filter string=\"b\"/>\n"), 7, 0,
	    "a second <filter>");
	refused_at("d6.xml",
	    CFG "<diverts>\n<divert name=\"d\">\n<address>a</address>\n"
	        "</divert>\n</diverts>\n" END,
	    4, 0, "divert 'd': no <forwarding-address>");
	refused_at("d7.xml", DIVERT("<foo/>\n"), 7, 0,
	    "divert 'd': unknown element <foo>");
	refused_at("d8.xml", DIVERT("<address>x</address>\n"), 7, 0,
	    "a second <address>");
}

static void
test_import_xml__unreadable(void **state)
{
	struct render_import im = {0};
	struct errlist l = {0};
	char *p = NULL;

	(void)state;
	assert_int_equal(render_import_read(&im, "/nonexistent/broker.xml", &l),
	    -1);
	assert_int_equal(l.nerrors, 1);
	errlist_release(&l);
	assert_true(asprintf(&p, "%s/fifo.xml", dir) > 0);
	assert_int_equal(mkfifo(p, 0600), 0);
	assert_int_equal(render_import_read(&im, p, &l), -1);
	assert_non_null(strstr(l.items[0].msg, "FIFO"));
	errlist_release(&l);
	free(p);
}

/* Render each fixture's objects into its base (with the schema when
 * ARTEMIS_GITOPS_SCHEMA_DIR names it), read the rendering again, and get
 * the same objects. */
static void
round_trip(const char *path, const struct render_schema *schema)
{
	struct render_import a = {0}, b = {0};
	struct render_base base;
	struct errlist l = {0};
	char *out = NULL, *p;
	size_t len = 0, i, j, k;

	read_ok(&a, path);
	base.path = path;
	base.data = a.base;
	base.len = a.base_len;
	if (render_broker_xml(&out, &len, a.objects, &base, schema, &l) != 0) {
		for (i = 0; i < l.n; i++)
			print_error("  %s\n", l.items[i].msg);
		fail_msg("%s: render failed", path);
	}
	p = wr("rendered.xml", out);
	read_ok(&b, p);
	assert_int_equal(a.objects->naddresses, b.objects->naddresses);
	for (i = 0; i < a.objects->naddresses; i++) {
		const struct decl_address *x = &a.objects->addresses[i];
		const struct decl_address *y = &b.objects->addresses[i];

		assert_string_equal(x->name, y->name);
		assert_int_equal(x->routing, y->routing);
		assert_int_equal(x->nqueues, y->nqueues);
		for (j = 0; j < x->nqueues; j++) {
			for (k = 0; k < y->nqueues; k++)
				if (decl_queue_same(&x->queues[j],
				        &y->queues[k]))
					break;
			assert_true(k < y->nqueues);
		}
	}
	assert_int_equal(a.objects->ndiverts, b.objects->ndiverts);
	for (i = 0; i < a.objects->ndiverts; i++)
		assert_true(decl_divert_same(&a.objects->diverts[i],
		    &b.objects->diverts[i]));
	render_import_release(&a);
	render_import_release(&b);
	errlist_release(&l);
	free(out);
	free(p);
}

static void
test_import_xml__fixtures_round_trip(void **state)
{
	static const char *const ok[] = {"every-setting", "crlf", "odd-names",
	    "xinclude"};
	const char *sd = getenv("ARTEMIS_GITOPS_SCHEMA_DIR");
	struct render_schema *schema = NULL;
	struct err err = {0};
	char *path = NULL;
	size_t i;

	(void)state;
	if (sd != NULL && render_schema_load(&schema, sd, &err) != 0)
		fail_msg("%s", err.msg);
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_true(asprintf(&path, FX "%s/broker.xml", ok[i]) > 0);
		round_trip(path, schema);
		free(path);
	}
	render_schema_free(schema);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_import_xml__every_setting),
	    cmocka_unit_test(test_import_xml__base_is_the_bytes),
	    cmocka_unit_test(test_import_xml__odd_names),
	    cmocka_unit_test(test_import_xml__xinclude_expanded),
	    cmocka_unit_test(test_import_xml__xinclude_escapes_refused),
	    cmocka_unit_test(test_import_xml__malformed_and_doctype),
	    cmocka_unit_test(test_import_xml__not_artemis),
	    cmocka_unit_test(test_import_xml__properties),
	    cmocka_unit_test(test_import_xml__routing_and_legacy),
	    cmocka_unit_test(test_import_xml__queue_values),
	    cmocka_unit_test(test_import_xml__divert_values),
	    cmocka_unit_test(test_import_xml__unreadable),
	    cmocka_unit_test(test_import_xml__fixtures_round_trip),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
