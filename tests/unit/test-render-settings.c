/* tests/unit/test-render-settings.c: declarations/render/render-settings.c:
 * the config-delete-* settings of a rendered broker.xml. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>
#include <string.h>

#include "../../declarations/render/render.h"

static void
test_render_settings__config_delete_of_a_file(void **state)
{
	const char *xml =
	    "<configuration xmlns='urn:activemq'><core "
	    "xmlns='urn:activemq:core'><address-settings>"
	    "<address-setting match='x.#'><config-delete-queues>FORCE"
	    "</config-delete-queues></address-setting>"
	    "<address-setting match='#'><config-delete-diverts>FORCE"
	    "</config-delete-diverts><config-delete-addresses>OFF"
	    "</config-delete-addresses></address-setting>"
	    "</address-settings></core></configuration>";
	struct render_config_delete cd;

	(void)state;
	assert_int_equal(render_config_delete(xml, strlen(xml), &cd), 0);
	assert_string_equal(cd.addresses, "OFF");
	assert_string_equal(cd.queues, "OFF"); /* only '#' is read */
	assert_string_equal(cd.diverts, "FORCE");
	assert_int_equal(render_config_delete("<a>", 3, &cd), -1);
	xml = "<configuration><core/></configuration>";
	assert_int_equal(render_config_delete(xml, strlen(xml), &cd), 0);
	assert_string_equal(cd.queues, "OFF");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_render_settings__config_delete_of_a_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
