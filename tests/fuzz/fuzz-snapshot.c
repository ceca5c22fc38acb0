/* tests/fuzz/fuzz-snapshot.c: the strict snapshot JSON reader (recorded
 * snapshots for offline plans). Property: what it accepts renders to
 * canonical JSON that it accepts again, unchanged by a second round. */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "../../reconcile/live/live.h"
#include "../../reconcile/recon.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct recon_snapshot *s = NULL, *t = NULL;
	struct err err = {0};
	char *a, *b;

	if (size > 64 * 1024)
		return 0;
	if (live_snapshot_parse_json(&s, "fuzz.json", (const char *)data, size,
	        &err) < 0) {
		err_release(&err);
		return 0;
	}
	a = live_snapshot_render_json(s);
	if (live_snapshot_parse_json(&t, "fuzz.json", a, strlen(a), &err) < 0)
		abort();
	b = live_snapshot_render_json(t);
	if (strcmp(a, b) != 0)
		abort();
	free(a);
	free(b);
	live_snapshot_free(s);
	live_snapshot_free(t);
	return 0;
}
