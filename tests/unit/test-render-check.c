/* tests/unit/test-render-check.c: declarations/render/render-check.c: what
 * broker.xml cannot carry, refused at the declared object. */
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

static void
test_render_check__non_ncname_divert_refused(void **state)
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
test_render_check__characters_xml_cannot_carry(void **state)
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
test_render_check__system_property_syntax_refused(void **state)
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_render_check__non_ncname_divert_refused),
	    cmocka_unit_test(test_render_check__characters_xml_cannot_carry),
	    cmocka_unit_test(test_render_check__system_property_syntax_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
