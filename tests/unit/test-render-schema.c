/* tests/unit/test-render-schema.c: declarations/render/render-schema.c:
 * Artemis's schema loaded, and a rendered file validated against it with each
 * error mapped back to the declared object or the base file's line (needs the
 * extracted Artemis xsds: tests/run unit calls scripts/artemis-schema). */
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
#include "../../lib/xalloc.h"
#include "render-fixture.h"

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
test_render_schema__schema_missing_dir(void **state)
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

static void
test_render_schema__schema_valid_and_errors_mapped(void **state)
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
test_render_schema__schema_lines_across_two_splices(void **state)
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_render_schema__schema_missing_dir),
	    cmocka_unit_test(
	        test_render_schema__schema_valid_and_errors_mapped),
	    cmocka_unit_test(
	        test_render_schema__schema_lines_across_two_splices),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
