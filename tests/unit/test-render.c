/* tests/unit/test-render.c: the broker.xml renderer (declarations/render*). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "../../declarations/render/render-int.h"
#include "../../lib/xalloc.h"

/* A string literal for the model's char * fields (read-only here). */
#define S(lit) ((char *)(uintptr_t)(lit))

/* --- render_xml_locate ------------------------------------------------ */

static void
locate_ok(const char *text, const size_t *path, size_t depth,
    const char *expect)
{
	struct xml_span s;

	assert_int_equal(render_xml_locate(text, strlen(text), path, depth, &s),
	    0);
	assert_int_equal(s.end - s.start, strlen(expect));
	assert_memory_equal(text + s.start, expect, strlen(expect));
}

static void
test_render__locate_document_element(void **state)
{
	const char *t =
	    "<?xml version='1.0'?>\n<!-- <a> -->\n<a x='1'><b/></a>\n";

	(void)state;
	locate_ok(t, NULL, 0, "<a x='1'><b/></a>");
}

static void
test_render__locate_skips_comments_cdata_pi(void **state)
{
	const char *t = "<r><!-- <x></x> --><?pi <y> ?><a><![CDATA[</a><b>]]>"
	                "</a><c>t</c></r>";
	size_t p1[] = {1};
	size_t p0[] = {0};

	(void)state;
	locate_ok(t, p1, 1, "<c>t</c>");
	locate_ok(t, p0, 1, "<a><![CDATA[</a><b>]]></a>");
}

static void
test_render__locate_quoted_gt_and_nesting(void **state)
{
	const char *t = "<r a=\"x>y\"><s k='>'><t/><u v=\"/>\">in</u></s></r>";
	size_t path[] = {0, 1};
	struct xml_span s;

	(void)state;
	locate_ok(t, path, 2, "<u v=\"/>\">in</u>");
	assert_int_equal(render_xml_locate(t, strlen(t), path, 2, &s), 0);
	assert_false(s.empty);
	assert_memory_equal(t + s.stag_end, "in</u>", 6);
	assert_memory_equal(t + s.etag_start, "</u>", 4);
}

static void
test_render__locate_empty_element(void **state)
{
	const char *t = "<r>\n  <a/>\n  <b  x='1' />\n</r>";
	size_t path[] = {1};
	struct xml_span s;

	(void)state;
	assert_int_equal(render_xml_locate(t, strlen(t), path, 1, &s), 0);
	assert_true(s.empty);
	assert_int_equal(s.stag_end, s.end);
	assert_int_equal(s.etag_start, s.end);
	assert_memory_equal(t + s.start, "<b  x='1' />", 12);
}

static void
test_render__locate_counts_only_elements_of_the_parent(void **state)
{
	/* <a> has children of its own; the index counts siblings only. */
	const char *t = "<r><a><x/><y/></a>text<b><z/></b><c/></r>";
	size_t path[] = {2};
	size_t deep[] = {1, 0};

	(void)state;
	locate_ok(t, path, 1, "<c/>");
	locate_ok(t, deep, 2, "<z/>");
}

static void
test_render__locate_missing_path_fails(void **state)
{
	const char *t = "<r><a/><b></b></r>";
	size_t past_end[] = {2};
	size_t into_empty[] = {0, 0};
	size_t into_b[] = {1, 0};
	struct xml_span s;

	(void)state;
	assert_int_equal(render_xml_locate(t, strlen(t), past_end, 1, &s), -1);
	assert_int_equal(render_xml_locate(t, strlen(t), into_empty, 2, &s),
	    -1);
	assert_int_equal(render_xml_locate(t, strlen(t), into_b, 2, &s), -1);
}

static void
test_render__locate_refuses_markup_decl_and_truncation(void **state)
{
	const char *d = "<!ELEMENT r><r/>";
	const char *u = "<r><!-- never closed </r>";
	struct xml_span s;

	(void)state;
	assert_int_equal(render_xml_locate(d, strlen(d), NULL, 0, &s), -1);
	assert_int_equal(render_xml_locate(u, strlen(u), NULL, 0, &s), -1);
}

static void
test_render__line_indent(void **state)
{
	const char *t = "a\n \t <x> <y>";
	size_t start = 99;

	(void)state;
	assert_int_equal(render_line_indent(t, 5, &start), 3);
	assert_int_equal(start, 2);
	assert_int_equal(render_line_indent(t, 9, &start), (size_t)-1);
	assert_int_equal(render_line_indent(t, 0, &start), 0);
	assert_int_equal(start, 0);
}

/* --- a hand-built cluster --------------------------------------------- */

static struct decl_queue q_orders[] = {{
    .pos = {"c/a.yaml", 7, 9},
    .name = S("orders"),
    .address = "orders",
    .routing = DECL_ANYCAST,
    .durable = true,
    .filter = S("region = 'EU' AND \"x\" < 3 & y > 1"),
    .max_consumers = 10,
    .purge_on_no_consumers = true,
    .exclusive = true,
    .ring_size = 500,
    .enabled = false,
    .last_value_key = S("k&<\""),
    .consumers_before_dispatch = 2,
    .delay_before_dispatch = 1500,
}};

static struct decl_address addrs[] = {
    {.pos = {"c/a.yaml", 5, 5},
        .name = S("orders"),
        .routing = DECL_ANYCAST,
        .queues = q_orders,
        .nqueues = 1},
    {.pos = {"c/a.yaml", 20, 5}, .name = S("audit"), .routing = DECL_MULTICAST},
};

static struct decl_kv props[] = {{S("a"), S("1")}, {S("b&"), S("<2>")}};

static struct decl_divert diverts[] = {{
    .pos = {"c/a.yaml", 30, 5},
    .name = S("orders-audit"),
    .address = S("orders"),
    .forwarding_address = S("audit"),
    .exclusive = true,
    .filter = S("p > 4"),
    .routing_type = DECL_DIVERT_MULTICAST,
    .routing_name = S("rn"),
    .transformer_class_name = S("com.example.T"),
    .transformer_properties = props,
    .ntransformer_properties = 2,
}};

static struct decl_cluster cluster = {
    .dir = S("c"),
    .name = S("c"),
    .pos = {"c/a.yaml", 2, 10},
    .version = 1,
    .mode = DECL_CONFIG_MANAGED,
    .addresses = addrs,
    .naddresses = 2,
    .diverts = diverts,
    .ndiverts = 1,
};

static const char expect_addresses[] =
    "<addresses>\n"
    "  <address name=\"orders\">\n"
    "    <anycast>\n"
    "      <queue name=\"orders\" max-consumers=\"10\" "
    "purge-on-no-consumers=\"true\" exclusive=\"true\" last-value=\"true\" "
    "last-value-key=\"k&amp;&lt;&quot;\" consumers-before-dispatch=\"2\" "
    "delay-before-dispatch=\"1500\" ring-size=\"500\" enabled=\"false\">\n"
    "        <durable>true</durable>\n"
    "        <filter string=\"region = 'EU' AND &quot;x&quot; &lt; 3 &amp; "
    "y &gt; 1\"/>\n"
    "      </queue>\n"
    "    </anycast>\n"
    "  </address>\n"
    "  <address name=\"audit\">\n"
    "    <multicast/>\n"
    "  </address>\n"
    "</addresses>";

static const char expect_diverts[] =
    "<diverts>\n"
    "  <divert name=\"orders-audit\">\n"
    "    <address>orders</address>\n"
    "    <forwarding-address>audit</forwarding-address>\n"
    "    <routing-name>rn</routing-name>\n"
    "    <exclusive>true</exclusive>\n"
    "    <filter string=\"p &gt; 4\"/>\n"
    "    <transformer>\n"
    "      <class-name>com.example.T</class-name>\n"
    "      <property key=\"a\" value=\"1\"/>\n"
    "      <property key=\"b&amp;\" value=\"&lt;2&gt;\"/>\n"
    "    </transformer>\n"
    "    <routing-type>MULTICAST</routing-type>\n"
    "  </divert>\n"
    "</diverts>";

static const struct render_fmt fmt2 = {"", "  "};

static void
test_render__addresses_every_attribute_escaped(void **state)
{
	char *s = render_addresses_xml(&cluster, &fmt2);

	(void)state;
	assert_string_equal(s, expect_addresses);
	free(s);
}

static void
test_render__diverts_every_field_escaped(void **state)
{
	char *s = render_diverts_xml(&cluster, &fmt2);

	(void)state;
	assert_string_equal(s, expect_diverts);
	free(s);
}

static void
test_render__empty_lists_and_indent_base(void **state)
{
	struct decl_cluster empty = {.name = S("e")};
	struct render_fmt f = {"\t", "\t"};
	char *a = render_addresses_xml(&empty, &f);
	char *d = render_diverts_xml(&empty, &f);
	char *b = render_addresses_xml(&cluster, &f);

	(void)state;
	assert_string_equal(a, "<addresses/>");
	assert_string_equal(d, "<diverts/>");
	assert_non_null(
	    strstr(b, "\n\t\t<address name=\"orders\">\n\t\t\t<any"));
	assert_non_null(strstr(b, "\n\t</addresses>"));
	free(a);
	free(d);
	free(b);
}

/* Render cluster into base (no schema); returns the text or NULL and
 * leaves the first diagnostic in *diag (owned). */
static char *
render(const struct decl_cluster *c, const char *base, char **diag)
{
	struct render_base b = {"c/broker/broker.xml", base, strlen(base)};
	struct errlist diags = {0};
	char *out = NULL;
	size_t len = 0;

	*diag = NULL;
	if (render_broker_xml(&out, &len, c, &b, NULL, &diags) != 0) {
		assert_true(diags.n > 0);
		*diag = errlist_render_item(&diags, 0);
		out = NULL;
	} else {
		assert_int_equal(strlen(out), len);
		assert_int_equal(diags.n, 0);
	}
	errlist_release(&diags);
	return out;
}

static const struct decl_cluster small = {.name = S("s"), .naddresses = 0};

static void
test_render__replace_keeps_other_bytes(void **state)
{
	const char *base =
	    "<?xml version='1.0'?>\n<!-- head -->\n"
	    "<configuration xmlns=\"urn:activemq\">\n"
	    "  <core xmlns=\"urn:activemq:core\">\n"
	    "    <name  >x</name>\n"
	    "    <diverts><divert name='old'><address>a</address>"
	    "<forwarding-address>b</forwarding-address></divert></diverts>\n"
	    "\t<acceptors><acceptor name='a'>tcp://h:1?x=1&amp;y=2</acceptor>"
	    "</acceptors>   <!-- odd -->\n"
	    "    <addresses>\n      <address name='old'><anycast/></address>\n"
	    "    </addresses>\n"
	    "  </core>\n</configuration>\n<!-- tail -->\n";
	const char *want =
	    "<?xml version='1.0'?>\n<!-- head -->\n"
	    "<configuration xmlns=\"urn:activemq\">\n"
	    "  <core xmlns=\"urn:activemq:core\">\n"
	    "    <name  >x</name>\n"
	    "    <diverts/>\n"
	    "\t<acceptors><acceptor name='a'>tcp://h:1?x=1&amp;y=2</acceptor>"
	    "</acceptors>   <!-- odd -->\n"
	    "    <addresses/>\n"
	    "  </core>\n</configuration>\n<!-- tail -->\n";
	char *diag, *out = render(&small, base, &diag);

	(void)state;
	assert_null(diag);
	assert_string_equal(out, want);
	free(out);
}

static void
test_render__insert_before_core_end_with_detected_unit(void **state)
{
	const char *base = "<configuration xmlns=\"urn:activemq\">\n"
	                   " <core xmlns=\"urn:activemq:core\">\n"
	                   "    <name>x</name>\n"
	                   " </core>\n"
	                   "</configuration>\n";
	const char *want = "<configuration xmlns=\"urn:activemq\">\n"
	                   " <core xmlns=\"urn:activemq:core\">\n"
	                   "    <name>x</name>\n"
	                   "    <addresses>\n"
	                   "       <address name=\"audit\">\n"
	                   "          <multicast/>\n"
	                   "       </address>\n"
	                   "    </addresses>\n"
	                   "    <diverts/>\n"
	                   " </core>\n"
	                   "</configuration>\n";
	struct decl_cluster c = {.name = S("c"),
	    .addresses = &addrs[1],
	    .naddresses = 1};
	char *diag, *out = render(&c, base, &diag);

	(void)state;
	assert_null(diag);
	assert_string_equal(out, want);
	free(out);
}

static void
test_render__empty_core_is_opened(void **state)
{
	const char *base = "<configuration xmlns=\"urn:activemq\">\n"
	                   "  <core xmlns=\"urn:activemq:core\" />\n"
	                   "</configuration>";
	const char *want = "<configuration xmlns=\"urn:activemq\">\n"
	                   "  <core xmlns=\"urn:activemq:core\" >\n"
	                   "     <addresses/>\n"
	                   "     <diverts/>\n"
	                   "  </core>\n"
	                   "</configuration>";
	char *diag, *out = render(&small, base, &diag);

	(void)state;
	assert_null(diag);
	assert_string_equal(out, want);
	free(out);
}

static void
test_render__one_line_core(void **state)
{
	const char *base = "<configuration xmlns=\"urn:activemq\"><core "
	                   "xmlns=\"urn:activemq:core\"><diverts></diverts>"
	                   "<name>n</name></core></configuration>";
	const char *want = "<configuration xmlns=\"urn:activemq\"><core "
	                   "xmlns=\"urn:activemq:core\"><diverts/>"
	                   "<name>n</name><addresses/></core></configuration>";
	char *diag, *out = render(&small, base, &diag);

	(void)state;
	assert_null(diag);
	assert_string_equal(out, want);
	free(out);
}

static void
test_render__bare_doctype_is_kept(void **state)
{
	const char *base = "<!DOCTYPE configuration SYSTEM \"a>b.dtd\" []>\n"
	                   "<configuration><core "
	                   "xmlns=\"urn:activemq:core\"><addresses/></core>"
	                   "</configuration>";
	const char *want = "<!DOCTYPE configuration SYSTEM \"a>b.dtd\" []>\n"
	                   "<configuration><core "
	                   "xmlns=\"urn:activemq:core\"><addresses/>"
	                   "<diverts/></core></configuration>";
	char *diag, *out = render(&small, base, &diag);

	(void)state;
	assert_null(diag);
	assert_string_equal(out, want);
	free(out);
}

static void
test_render__crlf_base_keeps_crlf(void **state)
{
	const char *base = "<configuration xmlns=\"urn:activemq\">\r\n"
	                   "  <core xmlns=\"urn:activemq:core\">\r\n"
	                   "    <diverts>\r\n    </diverts>\r\n"
	                   "  </core>\r\n"
	                   "</configuration>\r\n";
	const char *want = "<configuration xmlns=\"urn:activemq\">\r\n"
	                   "  <core xmlns=\"urn:activemq:core\">\r\n"
	                   "    <diverts/>\r\n"
	                   "    <addresses>\r\n"
	                   "      <address name=\"audit\">\r\n"
	                   "        <multicast/>\r\n"
	                   "      </address>\r\n"
	                   "    </addresses>\r\n"
	                   "  </core>\r\n"
	                   "</configuration>\r\n";
	struct decl_cluster c = {.name = S("c"),
	    .addresses = &addrs[1],
	    .naddresses = 1};
	char *diag, *out = render(&c, base, &diag);

	(void)state;
	assert_null(diag);
	assert_string_equal(out, want);
	free(out);
}

static void
test_render__diverts_before_addresses_in_base(void **state)
{
	const char *base = "<c>\n <core xmlns='urn:activemq:core'>\n"
	                   "  <diverts><divert name='x'/></diverts>\n"
	                   "  <name>n</name>\n"
	                   "  <addresses><address name='y'/></addresses>\n"
	                   " </core>\n</c>\n";
	const char *want = "<c>\n <core xmlns='urn:activemq:core'>\n"
	                   "  <diverts/>\n"
	                   "  <name>n</name>\n"
	                   "  <addresses/>\n"
	                   " </core>\n</c>\n";
	char *diag, *out = render(&small, base, &diag);

	(void)state;
	assert_null(diag);
	assert_string_equal(out, want);
	free(out);
}

static void
base_refused(const char *base, const char *expect)
{
	char *diag, *out = render(&small, base, &diag);

	assert_null(out);
	assert_string_equal(diag, expect);
	free(diag);
}

static void
test_render__base_refusals(void **state)
{
	(void)state;
	base_refused("<configuration>\n<core>",
	    "c/broker/broker.xml:2: base is "
	    "not well-formed XML: Premature end of data in tag core line 2");
	base_refused("<configuration>\n  <jms/>\n</configuration>",
	    "c/broker/broker.xml:1: base has no <core> element under "
	    "<configuration>");
	base_refused("<c><core xmlns='urn:activemq:core'/>\n"
	             "<core xmlns='urn:activemq:core'/></c>",
	    "c/broker/broker.xml:1: base has more than one <core> element "
	    "under <c>");
	base_refused("<c>\n<x:core xmlns:x='urn:activemq:core'/></c>",
	    "c/broker/broker.xml:2: base's <core> must be in the default "
	    "namespace urn:activemq:core (Artemis does not find a prefixed "
	    "one and fails to start)");
	base_refused("<c><core xmlns='urn:activemq:core'>\n<addresses/>\n"
	             "<addresses/></core></c>",
	    "c/broker/broker.xml:3: base's <core> has a second <addresses>");
	base_refused("<!DOCTYPE c [<!ENTITY x 'y'>]><c><core "
	             "xmlns='urn:activemq:core'/></c>",
	    "c/broker/broker.xml: base's DOCTYPE declares entities or "
	    "elements, which the renderer does not support");
	base_refused("<?xml version='1.0' encoding='ISO-8859-1'?>\n<c><core "
	             "xmlns='urn:activemq:core'/></c>",
	    "c/broker/broker.xml:1: base is encoded in ISO-8859-1; only UTF-8 "
	    "is supported");
}

static void
test_render__non_ncname_divert_refused(void **state)
{
	struct decl_divert d[3] = {
	    {.pos = {"c/d.yaml", 3, 5},
	        .name = S("1st"),
	        .address = S("a"),
	        .forwarding_address = S("b")},
	    {.pos = {"c/d.yaml", 9, 5},
	        .name = S("ok_name-1.x"),
	        .address = S("a"),
	        .forwarding_address = S("b")},
	    {.pos = {"c/d.yaml", 12, 5},
	        .name = S("a:b"),
	        .address = S("a"),
	        .forwarding_address = S("b")},
	};
	struct decl_cluster c = {.name = S("c"), .diverts = d, .ndiverts = 3};
	struct errlist diags = {0};
	char *s;

	(void)state;
	assert_int_equal(render_check_strings(&c, &diags), -1);
	assert_int_equal(diags.n, 2);
	s = errlist_render_item(&diags, 0);
	assert_string_equal(s, "c/d.yaml:3:5: divert '1st': name is not an XML "
	                       "NCName, and broker.xml types divert names as "
	                       "xsd:ID; rename the divert");
	free(s);
	s = errlist_render_item(&diags, 1);
	assert_non_null(strstr(s, "c/d.yaml:12:5: divert 'a:b': name is not"));
	free(s);
	errlist_release(&diags);
}

static void
test_render__characters_xml_cannot_carry(void **state)
{
	struct decl_queue q = {.pos = {"c/q.yaml", 4, 7},
	    .name = S("q"),
	    .routing = DECL_ANYCAST,
	    .filter = S("a\x01")};
	struct decl_address a = {.pos = {"c/q.yaml", 2, 3},
	    .name = S("bad\xff"),
	    .routing = DECL_ANYCAST,
	    .queues = &q,
	    .nqueues = 1};
	struct decl_cluster c = {.name = S("c"),
	    .addresses = &a,
	    .naddresses = 1};
	struct errlist diags = {0};
	char *s;

	(void)state;
	assert_int_equal(render_check_strings(&c, &diags), -1);
	assert_int_equal(diags.n, 2);
	s = errlist_render_item(&diags, 0);
	assert_string_equal(s,
	    "c/q.yaml:2:3: address 'bad\xff': the name is "
	    "not valid UTF-8, so broker.xml cannot carry it");
	free(s);
	s = errlist_render_item(&diags, 1);
	assert_string_equal(s, "c/q.yaml:4:7: queue 'q' of address 'bad\xff': "
	                       "the filter holds U+0001, which XML 1.0 cannot "
	                       "carry");
	free(s);
	errlist_release(&diags);
}

static void
test_render__system_property_syntax_refused(void **state)
{
	struct decl_queue q = {.pos = {"c/q.yaml", 4, 7},
	    .name = S("q"),
	    .routing = DECL_ANYCAST,
	    .filter = S("a = '${user.home}'")};
	struct decl_address a = {.pos = {"c/q.yaml", 2, 3},
	    .name = S("price$"),
	    .routing = DECL_ANYCAST,
	    .queues = &q,
	    .nqueues = 1};
	struct decl_cluster c = {.name = S("c"),
	    .addresses = &a,
	    .naddresses = 1};
	struct errlist diags = {0};
	char *s;

	(void)state;
	assert_int_equal(render_check_strings(&c, &diags), -1);
	assert_int_equal(diags.n, 1);
	s = errlist_render_item(&diags, 0);
	assert_string_equal(s,
	    "c/q.yaml:4:7: queue 'q' of address 'price$': "
	    "the filter holds '${', which Artemis replaces "
	    "with a system property when it reads "
	    "broker.xml, so it cannot be carried as declared");
	free(s);
	errlist_release(&diags);
}

static void
test_render__node_names_as_files(void **state)
{
	(void)state;
	assert_true(render_node_name_ok("broker-a"));
	assert_false(render_node_name_ok(""));
	assert_false(render_node_name_ok("."));
	assert_false(render_node_name_ok(".."));
	assert_false(render_node_name_ok("a/b"));
	assert_true(render_node_name_ok("..a"));
}

/* --- schema validation (needs the extracted Artemis xsds) -------------- */

static struct render_schema *
schema_or_skip(void)
{
	const char *dir = getenv(RENDER_SCHEMA_ENV);
	const char *top = getenv("AG_TOP");
	struct render_schema *s = NULL;
	struct err err = {0};
	char *path;

	path = dir != NULL ? xstrdup(dir)
	                   : xasprintf("%s/.cache/artemis/schema",
	                         top != NULL ? top : ".");
	if (render_schema_load(&s, path, &err) != 0)
		fprintf(stderr, "# no Artemis schema in %s: %s\n", path,
		    err.msg);
	err_release(&err);
	free(path);
	if (s == NULL)
		skip();
	return s;
}

static void
test_render__schema_missing_dir(void **state)
{
	struct render_schema *s = NULL;
	struct err err = {0};

	(void)state;
	assert_int_equal(render_schema_load(&s, "/nonexistent", &err), -1);
	assert_null(s);
	assert_string_equal(err.msg, "no readable artemis-configuration.xsd in "
	                             "'/nonexistent'");
	err_release(&err);
}

static bool
has_diag(const struct errlist *l, const char *want)
{
	bool found = false;
	size_t i;

	for (i = 0; i < l->n && !found; i++) {
		char *s = errlist_render_item(l, i);

		found = strcmp(s, want) == 0;
		if (!found)
			fprintf(stderr, "# have: %s\n", s);
		free(s);
	}
	return found;
}

static char *
render_valid(const struct render_schema *schema, const struct decl_cluster *c,
    const char *base, struct errlist *diags)
{
	struct render_base b = {"c/broker/broker.xml", base, strlen(base)};
	char *out = NULL;
	size_t len;

	if (render_broker_xml(&out, &len, c, &b, schema, diags) != 0)
		return NULL;
	return out;
}

static void
test_render__schema_valid_and_errors_mapped(void **state)
{
	struct render_schema *schema = schema_or_skip();
	const char *base =
	    "<configuration xmlns=\"urn:activemq\">\n"
	    "  <core xmlns=\"urn:activemq:core\">\n"
	    "    <addresses/>\n"
	    "    <bridges><bridge name=\"orders-audit\">"
	    "<queue-name>q</queue-name><forwarding-address>f"
	    "</forwarding-address><static-connectors>"
	    "<connector-ref>c</connector-ref></static-connectors>"
	    "</bridge></bridges>\n"
	    "    <journal-min-files>many</journal-min-files>\n"
	    "  </core>\n"
	    "</configuration>\n";
	const char *good = "<configuration xmlns=\"urn:activemq\">\n"
	                   "  <core xmlns=\"urn:activemq:core\">\n"
	                   "  </core>\n"
	                   "</configuration>\n";
	struct errlist diags = {0};
	char *out;

	(void)state;
	out = render_valid(schema, &cluster, good, &diags);
	assert_non_null(out);
	assert_int_equal(diags.n, 0);
	free(out);

	out = render_valid(schema, &cluster, base, &diags);
	assert_null(out);
	assert_int_equal(diags.n, 2);
	/* The duplicate xsd:ID lands on the divert's YAML line ... */
	assert_true(has_diag(&diags,
	    "c/a.yaml:30:5: divert 'orders-audit': not valid in broker.xml "
	    "rendered from 'c/broker/broker.xml': Element "
	    "'{urn:activemq:core}divert', attribute 'name': 'orders-audit' is "
	    "not a valid value of the atomic type 'xs:ID'. (an xsd:ID must be "
	    "an NCName that no other ID-typed name in the file uses, e.g. a "
	    "bridge's or a cluster-connection's)"));
	/* ... and the base's own mistake on the base's line, not the
	 * rendered file's (<addresses/> grew by 13 lines above it). */
	assert_true(has_diag(&diags,
	    "c/broker/broker.xml:5: broker.xml schema: Element "
	    "'{urn:activemq:core}journal-min-files': 'many' is not a valid "
	    "value of the atomic type 'xs:int'."));
	errlist_release(&diags);
	render_schema_free(schema);
}

static void
test_render__schema_lines_across_two_splices(void **state)
{
	struct render_schema *schema = schema_or_skip();
	const char *base = "<configuration xmlns=\"urn:activemq\">\n"
	                   "  <core xmlns=\"urn:activemq:core\">\n"
	                   "    <diverts>\n\n\n\n    </diverts>\n"
	                   "    <journal-min-files>x</journal-min-files>\n"
	                   "    <addresses/>\n"
	                   "    <journal-pool-files>y</journal-pool-files>\n"
	                   "  </core>\n"
	                   "</configuration>\n";
	struct errlist diags = {0};
	char *out;

	(void)state;
	/* <diverts> (5 lines in the base) and <addresses/> (1) both change
	 * size; errors after each report the base's line numbers. */
	out = render_valid(schema, &cluster, base, &diags);
	assert_null(out);
	assert_int_equal(diags.n, 2);
	assert_true(has_diag(&diags,
	    "c/broker/broker.xml:8: broker.xml schema: Element "
	    "'{urn:activemq:core}journal-min-files': 'x' is not a valid value "
	    "of the atomic type 'xs:int'."));
	assert_true(has_diag(&diags,
	    "c/broker/broker.xml:10: broker.xml schema: Element "
	    "'{urn:activemq:core}journal-pool-files': 'y' is not a valid value "
	    "of the atomic type 'xs:int'."));
	errlist_release(&diags);
	render_schema_free(schema);
}

static void
write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void
test_render__base_path_precedence(void **state)
{
	char tmpl[] = "/tmp/test-render-XXXXXX";
	char *dir = mkdtemp(tmpl);
	char *p, *path = NULL;
	struct err err = {0};

	(void)state;
	assert_non_null(dir);
	p = xasprintf("%s/broker", dir);
	assert_int_equal(mkdir(p, 0755), 0);
	free(p);
	p = xasprintf("%s/broker/nodes", dir);
	assert_int_equal(mkdir(p, 0755), 0);
	free(p);

	/* Neither file: the message names both. */
	assert_int_equal(render_base_path(&path, dir, "a", &err), -1);
	p = xasprintf("node 'a': no base broker.xml (looked for "
	              "%s/broker/nodes/a.xml and %s/broker/broker.xml)",
	    dir, dir);
	assert_string_equal(err.msg, p);
	free(p);
	err_release(&err);

	p = xasprintf("%s/broker/broker.xml", dir);
	write_file(p, "<c/>");
	free(p);
	p = xasprintf("%s/broker/nodes/b.xml", dir);
	write_file(p, "<c/>");
	free(p);
	assert_int_equal(render_base_path(&path, dir, "a", &err), 0);
	p = xasprintf("%s/broker/broker.xml", dir);
	assert_string_equal(path, p);
	free(p);
	free(path);
	assert_int_equal(render_base_path(&path, dir, "b", &err), 0);
	p = xasprintf("%s/broker/nodes/b.xml", dir);
	assert_string_equal(path, p);
	free(p);
	free(path);
	assert_int_equal(render_base_path(&path, dir, "..", &err), -1);
	assert_string_equal(err.msg,
	    "node '..': the name cannot be used as a file name");
	err_release(&err);

	p = xasprintf("rm -rf '%s'", dir);
	assert_int_equal(system(p), 0);
	free(p);
}

/* --- render_udiff (expectations are GNU diff -u's output) --------------- */

static void
udiff_is(const char *a, const char *b, const char *hunks)
{
	char *d = render_udiff(a, strlen(a), b, strlen(b), "A", "B");
	char *want =
	    hunks != NULL ? xasprintf("--- A\n+++ B\n%s", hunks) : NULL;

	if (want == NULL)
		assert_null(d);
	else
		assert_string_equal(d, want);
	free(d);
	free(want);
}

static void
test_render__udiff_context_and_merging(void **state)
{
	const char *a = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n"
	                "15\n16\n";

	(void)state;
	udiff_is(a, a, NULL);
	/* Changes 6 lines apart share a hunk ... */
	udiff_is(a, "1\n2\nX\n4\n5\n6\n7\n8\n9\nY\n11\n12\n13\n14\n15\n16\n",
	    "@@ -1,13 +1,13 @@\n 1\n 2\n-3\n+X\n 4\n 5\n 6\n 7\n 8\n 9\n"
	    "-10\n+Y\n 11\n 12\n 13\n");
	/* ... 7 apart they do not. */
	udiff_is(a, "1\n2\nX\n4\n5\n6\n7\n8\n9\n10\nY\n12\n13\n14\n15\n16\n",
	    "@@ -1,6 +1,6 @@\n 1\n 2\n-3\n+X\n 4\n 5\n 6\n"
	    "@@ -8,7 +8,7 @@\n 8\n 9\n 10\n-11\n+Y\n 12\n 13\n 14\n");
}

static void
test_render__udiff_edges(void **state)
{
	(void)state;
	udiff_is("a\nb", "a\nc",
	    "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n"
	    "\\ No newline at end of file\n");
	udiff_is("a\nb\n", "a\nb",
	    "@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n");
	udiff_is("", "x\ny\n", "@@ -0,0 +1,2 @@\n+x\n+y\n");
	udiff_is("x\ny\n", "", "@@ -1,2 +0,0 @@\n-x\n-y\n");
}

static void
test_render__udiff_past_the_distance_cap(void **state)
{
	struct sbuf a = {0}, b = {0};
	char *d;
	size_t i, minus = 0, plus = 0;
	const char *p;

	(void)state;
	/* Every line differs: more than RENDER_DIFF_MAX_D edits, shown as
	 * one change (all deletions, then all insertions). */
	for (i = 0; i < RENDER_DIFF_MAX_D; i++) {
		sbuf_addf(&a, "a%zu\n", i);
		sbuf_addf(&b, "b%zu\n", i);
	}
	d = render_udiff(a.buf, a.len, b.buf, b.len, "A", "B");
	assert_non_null(d);
	/* From the second line on: "--- A" is not counted. */
	for (p = strchr(d, '\n') + 1; *p != '\0'; p = strchr(p, '\n') + 1) {
		minus += *p == '-';
		plus += *p == '+';
	}
	assert_int_equal(minus, RENDER_DIFF_MAX_D);
	assert_int_equal(plus, RENDER_DIFF_MAX_D + 1); /* "+++ B" counted */
	assert_non_null(strstr(d, "-a999\n+b0\n"));
	free(d);
	sbuf_release(&a);
	sbuf_release(&b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_render__locate_document_element),
	    cmocka_unit_test(test_render__locate_skips_comments_cdata_pi),
	    cmocka_unit_test(test_render__locate_quoted_gt_and_nesting),
	    cmocka_unit_test(test_render__locate_empty_element),
	    cmocka_unit_test(
	        test_render__locate_counts_only_elements_of_the_parent),
	    cmocka_unit_test(test_render__locate_missing_path_fails),
	    cmocka_unit_test(
	        test_render__locate_refuses_markup_decl_and_truncation),
	    cmocka_unit_test(test_render__line_indent),
	    cmocka_unit_test(test_render__addresses_every_attribute_escaped),
	    cmocka_unit_test(test_render__diverts_every_field_escaped),
	    cmocka_unit_test(test_render__empty_lists_and_indent_base),
	    cmocka_unit_test(test_render__replace_keeps_other_bytes),
	    cmocka_unit_test(
	        test_render__insert_before_core_end_with_detected_unit),
	    cmocka_unit_test(test_render__empty_core_is_opened),
	    cmocka_unit_test(test_render__one_line_core),
	    cmocka_unit_test(test_render__bare_doctype_is_kept),
	    cmocka_unit_test(test_render__crlf_base_keeps_crlf),
	    cmocka_unit_test(test_render__diverts_before_addresses_in_base),
	    cmocka_unit_test(test_render__base_refusals),
	    cmocka_unit_test(test_render__non_ncname_divert_refused),
	    cmocka_unit_test(test_render__characters_xml_cannot_carry),
	    cmocka_unit_test(test_render__system_property_syntax_refused),
	    cmocka_unit_test(test_render__node_names_as_files),
	    cmocka_unit_test(test_render__schema_missing_dir),
	    cmocka_unit_test(test_render__schema_valid_and_errors_mapped),
	    cmocka_unit_test(test_render__schema_lines_across_two_splices),
	    cmocka_unit_test(test_render__base_path_precedence),
	    cmocka_unit_test(test_render__udiff_context_and_merging),
	    cmocka_unit_test(test_render__udiff_edges),
	    cmocka_unit_test(test_render__udiff_past_the_distance_cap),
	};

	return cmocka_run_group_tests_name("render", tests, NULL, NULL);
}
