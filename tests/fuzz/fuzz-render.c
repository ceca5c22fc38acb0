/* tests/fuzz/fuzz-render.c: the broker.xml renderer on one base file.
 *
 * The input is the base; the declaration is fixed and holds every
 * character class the escaping must handle. Invariants (abort = finding):
 * a rendered file renders again to the same bytes (the splice found the
 * same elements and indentation in its own output), the diff of base and
 * rendering is empty only when they are equal, and everything is freed. Inputs
 * over 64 KiB are skipped; no schema (no disk access). The base's
 * config-delete settings are read too (render-settings.c), each "OFF" or
 * "FORCE" when the text parses. */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "../../declarations/render/render.h"

#define S(lit) ((char *)(uintptr_t)(lit))

static struct decl_queue queues[] = {
    {.name = S("q&<\"'>"),
        .routing = DECL_ANYCAST,
        .durable = true,
        .filter = S("a = 'x' AND b < 2 & \"c\""),
        .max_consumers = -1,
        .ring_size = -1,
        .enabled = true,
        .last_value_key = S("k"),
        .delay_before_dispatch = -1},
    {.name = S("m"),
        .routing = DECL_MULTICAST,
        .max_consumers = 3,
        .ring_size = 10,
        .delay_before_dispatch = 5},
};

static struct decl_address addresses[] = {
    {.name = S("a\nb"),
        .routing = DECL_ANYCAST | DECL_MULTICAST,
        .queues = queues,
        .nqueues = 2},
    {.name = S("empty"), .routing = DECL_MULTICAST},
};

static struct decl_kv props[] = {{S("k<"), S("v&")}};

static struct decl_divert diverts[] = {{.name = S("d-1"),
    .address = S("a\nb"),
    .forwarding_address = S("empty"),
    .filter = S("p > 4"),
    .routing_type = DECL_DIVERT_PASS,
    .transformer_class_name = S("T"),
    .transformer_properties = props,
    .ntransformer_properties = 1}};

static const struct decl_cluster cluster = {.name = S("fuzz"),
    .mode = DECL_CONFIG_MANAGED,
    .addresses = addresses,
    .naddresses = 2,
    .diverts = diverts,
    .ndiverts = 1};

static bool
setting_ok(const char *s)
{
	return s != NULL && (strcmp(s, "OFF") == 0 || strcmp(s, "FORCE") == 0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct render_config_delete cd = {0};
	struct render_base base = {"fuzz.xml", (const char *)data, size};
	struct errlist diags = {0};
	char *out = NULL, *again = NULL, *d;
	size_t len = 0, len2 = 0;

	if (size > 64 * 1024)
		return 0;
	if (render_broker_xml(&out, &len, &cluster, &base, NULL, &diags) == 0) {
		struct render_base b2 = {"fuzz2.xml", out, len};

		if (render_broker_xml(&again, &len2, &cluster, &b2, NULL,
		        &diags) != 0)
			abort();
		if (len2 != len || memcmp(out, again, len) != 0)
			abort();
		/* The diff of the base against its rendering is empty exactly
		 * when they are equal. */
		d = render_udiff((const char *)data, size, out, len, "a", "b");
		if ((d == NULL) != (size == len && memcmp(data, out, len) == 0))
			abort();
		free(d);
	}
	free(out);
	free(again);
	errlist_release(&diags);
	if (render_config_delete((const char *)data, size, &cd) == 0 &&
	    (!setting_ok(cd.addresses) || !setting_ok(cd.queues) ||
	        !setting_ok(cd.diverts)))
		abort();
	return 0;
}
