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

/* Below 2.38 a divert is created with the positional overload, every
 * setting in its place (the transformer's properties as a JSON object for
 * the java.util.Map); from 2.38 with the JSON. */
static void
test_jolokia_ops__divert_overloads(void **state)
{
	struct live_bulk b = {0};
	char k1[] = "a", v1[] = "1", k2[] = "b\"", v2[] = "2";
	char dn[] = "d", src[] = "src", fw[] = "fw1,fw2", flt[] = "p > 1",
	     tc[] = "T", en[] = "e", es[] = "s", ef[] = "f";
	struct decl_kv props[] = {{k1, v1}, {k2, v2}};
	struct recon_divert d = {.name = dn,
	    .address = src,
	    .forwarding_address = fw,
	    .exclusive = true,
	    .filter = flt,
	    .routing_type = DECL_DIVERT_PASS,
	    .transformer_class_name = tc,
	    .transformer_properties = props,
	    .ntransformer_properties = 2};
	struct recon_divert plain = {.name = en,
	    .address = es,
	    .forwarding_address = ef};

	(void)state;
	live_bulk_create_divert(&b, "n", &d, false);
	assert_string_equal(sbuf_str(&b.body),
	    "[{\"type\":\"exec\",\"mbean\":\"org.apache.activemq.artemis:"
	    "broker=\\\"n\\\"\",\"operation\":\"createDivert(java.lang.String,"
	    "java.lang.String,java.lang.String,java.lang.String,boolean,"
	    "java.lang.String,java.lang.String,java.util.Map,java.lang.String)"
	    "\",\"arguments\":[\"d\",\"d\",\"src\",\"fw1,fw2\",true,\"p > 1\","
	    "\"T\",{\"a\":\"1\",\"b\\\"\":\"2\"},\"PASS\"]}");
	live_bulk_release(&b);
	memset(&b, 0, sizeof(b));
	live_bulk_create_divert(&b, "n", &plain, false);
	assert_non_null(strstr(sbuf_str(&b.body),
	    "\"arguments\":[\"e\",\"e\",\"s\",\"f\",false,\"\",\"\",{},"
	    "\"STRIP\"]"));
	live_bulk_release(&b);
	memset(&b, 0, sizeof(b));
	live_bulk_create_divert(&b, "n", &plain, true);
	assert_non_null(strstr(sbuf_str(&b.body),
	    "\"operation\":\"createDivert(java.lang.String)\""));
	assert_non_null(
	    strstr(sbuf_str(&b.body), "\\\"routing-name\\\":\\\"e\\\""));
	live_bulk_release(&b);
	assert_string_equal(live_divert_signature(RECON_OP_UPDATE_DIVERT, true),
	    "updateDivert(java.lang.String)");
	assert_null(live_divert_signature(RECON_OP_DESTROY_DIVERT, false));
	/* the positional updateDivert is never sent */
	assert_null(live_divert_signature(RECON_OP_UPDATE_DIVERT, false));
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
	    cmocka_unit_test(test_jolokia_ops__divert_overloads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
