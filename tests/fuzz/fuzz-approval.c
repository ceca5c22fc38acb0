/* tests/fuzz/fuzz-approval.c: approval.json, read by apply from a folder an
 * operator (or anyone with write access to the outbox) can edit. Property
 * (abort = finding): what it accepts renders to an approval.json that it
 * accepts again and renders to the same bytes. */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "../../reconcile/apply/apply.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct apply_approval a = {0}, b = {0};
	struct err err = {0};
	char *json, *again;

	if (size > 64 * 1024)
		return 0;
	if (apply_approval_parse(&a, "approval.json", (const char *)data, size,
	        &err) == 0) {
		json = apply_approval_render(&a);
		if (apply_approval_parse(&b, "a.json", json, strlen(json),
		        &err) < 0)
			abort(); /* a rendered approval.json must read back */
		again = apply_approval_render(&b);
		if (strcmp(json, again) != 0)
			abort();
		free(json);
		free(again);
		apply_approval_release(&b);
	}
	apply_approval_release(&a);
	err_release(&err);
	return 0;
}
