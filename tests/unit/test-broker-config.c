/* tests/unit/test-broker-config.c: reconcile/live/broker-config.c, the one
 * writer of the createQueue/createDivert configuration JSON. */
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
test_broker_config__queue_json_is_complete(void **state)
{
	char name[] = "orders", filter[] = "a = \"b\"";
	struct recon_queue q = {.name = name,
	    .address = name,
	    .routing = DECL_ANYCAST,
	    .durable = true,
	    .filter = filter,
	    .max_consumers = -1,
	    .ring_size = -1,
	    .enabled = true,
	    .delay_before_dispatch = -1};
	char *json;

	(void)state;
	json = live_queue_config_json(&q);
	assert_string_equal(json,
	    "{\"address\":\"orders\",\"auto-create-address\":false,"
	    "\"consumers-before-dispatch\":0,\"delay-before-dispatch\":-1,"
	    "\"durable\":true,\"enabled\":true,\"exclusive\":false,"
	    "\"filter-string\":\"a = \\\"b\\\"\",\"last-value\":false,"
	    "\"max-consumers\":-1,\"name\":\"orders\","
	    "\"purge-on-no-consumers\":false,\"ring-size\":-1,"
	    "\"routing-type\":\"ANYCAST\"}");
	free(json);
}

static void
test_broker_config__divert_json_is_complete(void **state)
{
	char k[] = "k", v[] = "v", tap[] = "tap", a[] = "a", b[] = "b",
	     t[] = "T";
	struct decl_kv props[1] = {{k, v}};
	struct recon_divert d = {.name = tap,
	    .address = a,
	    .forwarding_address = b,
	    .routing_type = DECL_DIVERT_PASS,
	    .transformer_class_name = t,
	    .transformer_properties = props,
	    .ntransformer_properties = 1};
	char *json = live_divert_config_json(&d);

	(void)state;
	assert_string_equal(json,
	    "{\"address\":\"a\",\"exclusive\":false,\"filter-string\":\"\","
	    "\"forwarding-address\":\"b\",\"name\":\"tap\","
	    "\"routing-name\":\"tap\",\"routing-type\":\"PASS\","
	    "\"transformer-configuration\":{\"class-name\":\"T\","
	    "\"properties\":{\"k\":\"v\"}}}");
	free(json);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_broker_config__queue_json_is_complete),
	    cmocka_unit_test(test_broker_config__divert_json_is_complete),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
