/* tests/unit/test-render-build.c: declarations/render/render-build.c:
 * <addresses> and <diverts> serialized with libxml2, every value escaped. */
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
test_render_build__addresses_every_attribute_escaped(void **state)
{
	char *s = render_addresses_xml(&cluster, &fmt2);

	(void)state;
	assert_string_equal(s, expect_addresses);
	free(s);
}

static void
test_render_build__diverts_every_field_escaped(void **state)
{
	char *s = render_diverts_xml(&cluster, &fmt2);

	(void)state;
	assert_string_equal(s, expect_diverts);
	free(s);
}

static void
test_render_build__empty_lists_and_indent_base(void **state)
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(
	        test_render_build__addresses_every_attribute_escaped),
	    cmocka_unit_test(test_render_build__diverts_every_field_escaped),
	    cmocka_unit_test(test_render_build__empty_lists_and_indent_base),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
