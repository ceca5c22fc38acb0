/* tests/unit/test-jolokia-ops.c: reconcile/live/jolokia-ops.c: the
 * operations' request bodies and MBean names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "../../reconcile/live/live-int.h"

static void
test_jolokia_ops__request_body(void **state)
{
	struct live_bulk b = {0};

	(void)state;
	live_bulk_destroy_queue(&b, "0.0.0.0", "orders", false, false);
	live_bulk_delete_address(&b, "n\"1", "a", true);
	assert_string_equal(sbuf_str(&b.body),
	    "[{\"type\":\"exec\",\"mbean\":\"org.apache.activemq.artemis:"
	    "broker=\\\"0.0.0.0\\\"\",\"operation\":\"destroyQueue(java.lang."
	    "String,boolean,boolean)\",\"arguments\":[\"orders\",false,false]},"
	    "{\"type\":\"exec\",\"mbean\":\"org.apache.activemq.artemis:broker="
	    "\\\"n\\\\\\\"1\\\"\",\"operation\":\"deleteAddress(java.lang."
	    "String,boolean)\",\"arguments\":[\"a\",true]}");
	assert_int_equal(b.n, 2);
	live_bulk_release(&b);
}

static void
test_jolokia_ops__mbean_names(void **state)
{
	char *m, *v = NULL;

	(void)state;
	m = live_mbean_queue("b*1", "a,b", DECL_MULTICAST, "q\\\"x\n");
	assert_string_equal(m,
	    "org.apache.activemq.artemis:broker=\"b\\*1\",component=addresses,"
	    "address=\"a,b\",subcomponent=queues,routing-type=\"multicast\","
	    "queue=\"q\\\\\\\"x\\n\"");
	assert_int_equal(live_mbean_key(m, "queue", &v), 0);
	assert_string_equal(v, "q\\\"x\n");
	free(v);
	assert_int_equal(live_mbean_key(m, "address", &v), 0);
	assert_string_equal(v, "a,b");
	free(v);
	assert_int_equal(live_mbean_key(m, "subcomponent", &v), 0);
	assert_string_equal(v, "queues");
	free(v);
	assert_int_equal(live_mbean_key(m, "divert", &v), -1);
	assert_int_equal(live_mbean_key("nocolon", "a", &v), -1);
	assert_int_equal(live_mbean_key("d:a=\"open", "a", &v), -1);
	free(m);
	m = live_mbean_divert("n", "src", "d");
	assert_string_equal(m, "org.apache.activemq.artemis:broker=\"n\","
	                       "component=addresses,address=\"src\","
	                       "subcomponent=diverts,divert=\"d\"");
	free(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_jolokia_ops__request_body),
	    cmocka_unit_test(test_jolokia_ops__mbean_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
