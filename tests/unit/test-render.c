/* tests/unit/test-render.c: declarations/render/render.c: a node's broker.xml
 * rendered from its base: the two owned elements replaced or inserted,
 * every other byte kept; bases that cannot be spliced refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../declarations/render/render-int.h"
#include "render-fixture.h"

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
base_refused(const char *base, const char *expect)
{
	char *diag, *out = render(&small, base, &diag);

	assert_null(out);
	assert_string_equal(diag, expect);
	free(diag);
}

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
test_render__settings_owned_only_when_declared(void **state)
{
	const char *base = "<c><core xmlns=\"urn:activemq:core\">\n"
	                   "  <addresses/>\n"
	                   "  <address-settings><address-setting match='#'>"
	                   "<max-delivery-attempts>7</max-delivery-attempts>"
	                   "</address-setting></address-settings>\n"
	                   "  <diverts/>\n"
	                   "</core></c>\n";
	/* the base's line keeps its indent, the unit is Artemis's three
	 * spaces (core shares its line); the insert goes before </core> */
	const char *want =
	    "<c><core xmlns=\"urn:activemq:core\">\n"
	    "  <addresses/>\n"
	    "  <address-settings>\n"
	    "     <address-setting match=\"orders.#\">\n"
	    "        <redelivery-delay>5000</redelivery-delay>\n"
	    "        <auto-create-queues>false"
	    "</auto-create-queues>\n"
	    "     </address-setting>\n"
	    "  </address-settings>\n"
	    "  <diverts/>\n"
	    "   <security-settings>\n"
	    "      <security-setting match=\"orders.#\">\n"
	    "         <permission type=\"send\" roles=\"a,b\"/>\n"
	    "         <permission type=\"deleteAddress\" "
	    "roles=\"b\"/>\n"
	    "      </security-setting>\n"
	    "   </security-settings>\n"
	    "</core></c>\n";
	char *send[] = {S("a"), S("b")}, *del[] = {S("b")};
	struct decl_address_setting as = {.match = S("orders.#"),
	    .max_delivery_attempts = DECL_UNSET,
	    .redelivery_delay = 5000,
	    .max_size_bytes = DECL_UNSET,
	    .auto_create_queues = DECL_TRI_FALSE};
	struct decl_security_setting ss = {.match = S("orders.#")};
	struct decl_cluster c = {.name = S("c")};
	char *diag, *out;

	(void)state;
	/* nothing declared: the base's settings stay byte for byte */
	out = render(&small, base, &diag);
	assert_null(diag);
	assert_non_null(strstr(out, "<address-settings><address-setting "
	                            "match='#'><max-delivery-attempts>7"));
	assert_null(strstr(out, "security-settings"));
	free(out);
	/* declared: the base's replaced, a missing one inserted */
	ss.perm[DECL_PERM_SEND].v = send;
	ss.perm[DECL_PERM_SEND].n = 2;
	ss.perm[DECL_PERM_DELETE_ADDRESS].v = del;
	ss.perm[DECL_PERM_DELETE_ADDRESS].n = 1;
	c.address_settings = &as;
	c.naddress_settings = 1;
	c.security_settings = &ss;
	c.nsecurity_settings = 1;
	out = render(&c, base, &diag);
	assert_null(diag);
	assert_string_equal(out, want);
	free(out);
	/* a plugin in the base's security-settings is never dropped */
	out = render(&c,
	    "<c><core xmlns=\"urn:activemq:core\">\n<security-settings>\n"
	    "<security-setting-plugin class-name='x'/>\n"
	    "</security-settings></core></c>\n",
	    &diag);
	assert_null(out);
	assert_string_equal(diag,
	    "c/broker/broker.xml:3: base's <security-settings> holds a "
	    "<security-setting-plugin>, which the declared security-settings "
	    "would replace with the rest of the element; declare them or keep "
	    "the plugin, not both");
	free(diag);
	/* without declared security-settings the plugin stays */
	c.nsecurity_settings = 0;
	out = render(&c,
	    "<c><core xmlns=\"urn:activemq:core\">\n<security-settings>\n"
	    "<security-setting-plugin class-name='x'/>\n"
	    "</security-settings></core></c>\n",
	    &diag);
	assert_null(diag);
	assert_non_null(
	    strstr(out, "<security-setting-plugin class-name='x'/>"));
	free(out);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_render__replace_keeps_other_bytes),
	    cmocka_unit_test(
	        test_render__insert_before_core_end_with_detected_unit),
	    cmocka_unit_test(test_render__empty_core_is_opened),
	    cmocka_unit_test(test_render__one_line_core),
	    cmocka_unit_test(test_render__bare_doctype_is_kept),
	    cmocka_unit_test(test_render__crlf_base_keeps_crlf),
	    cmocka_unit_test(test_render__diverts_before_addresses_in_base),
	    cmocka_unit_test(test_render__base_refusals),
	    cmocka_unit_test(test_render__settings_owned_only_when_declared),
	};

	return cmocka_run_group_tests_name("render", tests, NULL, NULL);
}
