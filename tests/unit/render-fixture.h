/* tests/unit/render-fixture.h: the renderer's unit tests: a cluster built
 * by hand (CONFIG_MANAGED; one address with a queue that sets every
 * attribute, one without queues, one divert that sets every field), from
 * string literals. Not every includer uses all of it. */
#ifndef TESTS_UNIT_RENDER_FIXTURE_H
#define TESTS_UNIT_RENDER_FIXTURE_H

#include <stdint.h>

#include "../../declarations/decl.h"

/* A string literal for the model's char * fields (read-only here). */
#define S(lit) ((char *)(uintptr_t)(lit))

static struct decl_queue q_orders[] __attribute__((unused)) = {{
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

static struct decl_address addrs[] __attribute__((unused)) = {
    {.pos = {"c/a.yaml", 5, 5},
        .name = S("orders"),
        .routing = DECL_ANYCAST,
        .queues = q_orders,
        .nqueues = 1},
    {.pos = {"c/a.yaml", 20, 5}, .name = S("audit"), .routing = DECL_MULTICAST},
};

static struct decl_kv props[]
    __attribute__((unused)) = {{S("a"), S("1")}, {S("b&"), S("<2>")}};

static struct decl_divert diverts[] __attribute__((unused)) = {{
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

static struct decl_cluster cluster __attribute__((unused)) = {
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

#endif
