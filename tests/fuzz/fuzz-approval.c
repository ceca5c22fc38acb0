/* tests/fuzz/fuzz-approval.c: approval.json, read by apply from a folder an
 * operator (or anyone with write access to the outbox) can edit. */
#include "fuzz.h"

#include <stdlib.h>

#include "../../reconcile/apply/apply.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct apply_approval a = {0};
	struct err err = {0};
	char *json;

	if (size > 64 * 1024)
		return 0;
	if (apply_approval_parse(&a, "approval.json", (const char *)data, size,
	        &err) == 0) {
		json = apply_approval_render(&a);
		free(json);
	}
	apply_approval_release(&a);
	err_release(&err);
	return 0;
}
