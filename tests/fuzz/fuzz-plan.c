/* tests/fuzz/fuzz-plan.c: plan.json parsing (what approve and apply read)
 * and the inventory parser. Inputs over 64 KiB are skipped; everything is
 * freed (a leak is a finding). Properties (abort = finding): a parsed plan
 * renders to a plan.json that plan_check_json accepts for it and that
 * parses again to the same rendering (plan.md is rendered too); a parsed
 * inventory renders to an inventory.json that parses again to the same
 * rendering. */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "../../reconcile/plan/plan.h"

static void
plan_round_trip(const struct plan *p)
{
	struct plan *q = NULL;
	struct err err = {0};
	char *a = plan_render_json(p), *b, *md;

	if (plan_check_json(p, "a.json", a, strlen(a), &err) < 0)
		abort(); /* its own plan.json is what the planner wrote */
	if (plan_parse_json(&q, "a.json", a, strlen(a), &err) < 0)
		abort(); /* a rendered plan.json must read back */
	b = plan_render_json(q);
	if (strcmp(a, b) != 0)
		abort();
	md = plan_render_md(p, "out");
	free(md);
	free(a);
	free(b);
	plan_free(q);
}

static void
inventory_round_trip(const struct plan_managed *m)
{
	struct plan_managed back = {0};
	struct err err = {0};
	char *a = plan_inventory_render(m, "shop-eu"), *b;

	if (plan_inventory_parse(&back, "a.json", a, strlen(a), "shop-eu",
	        &err) < 0)
		abort(); /* a rendered inventory.json must read back */
	b = plan_inventory_render(&back, "shop-eu");
	if (strcmp(a, b) != 0)
		abort();
	free(a);
	free(b);
	plan_managed_release(&back);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct plan_managed m = {0};
	struct plan *p = NULL;
	struct err err = {0};

	if (size > 64 * 1024)
		return 0;
	if (plan_parse_json(&p, "fuzz.json", (const char *)data, size, &err) ==
	    0) {
		plan_round_trip(p);
		plan_free(p);
	}
	err_release(&err);
	if (plan_inventory_parse(&m, "fuzz.json", (const char *)data, size,
	        "shop-eu", &err) == 0) {
		inventory_round_trip(&m);
		plan_managed_release(&m);
	}
	err_release(&err);
	return 0;
}
