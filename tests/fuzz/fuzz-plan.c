/* tests/fuzz/fuzz-plan.c: plan.json parsing (what approve and apply read)
 * and the inventory parser. Inputs over 64 KiB are skipped; a parsed plan
 * is rendered again as JSON and Markdown and freed (a leak is a finding). */
#include "fuzz.h"

#include <stdlib.h>

#include "../../reconcile/plan/plan.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct plan_managed m = {0};
	struct plan *p = NULL;
	struct err err = {0};
	char *json, *md;

	if (size > 64 * 1024)
		return 0;
	if (plan_parse_json(&p, "fuzz.json", (const char *)data, size, &err) ==
	    0) {
		json = plan_render_json(p);
		md = plan_render_md(p, "out");
		free(json);
		free(md);
		plan_free(p);
	}
	err_release(&err);
	if (plan_inventory_parse(&m, "fuzz.json", (const char *)data, size,
	        "shop-eu", &err) == 0)
		plan_managed_release(&m);
	err_release(&err);
	return 0;
}
