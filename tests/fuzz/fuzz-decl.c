/* tests/fuzz/fuzz-decl.c: the declarations loader on one YAML buffer.
 * Inputs over 64 KiB are skipped; everything is freed (a leak is a
 * finding); a successful load is also dumped, which walks the model. */
#include "fuzz.h"

#include <stdlib.h>

#include "../../declarations/decl.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct decl_cluster *c = NULL;
	struct errlist diags = {0};
	struct decl_file f;
	char *dump;

	if (size > 64 * 1024)
		return 0;
	f.path = "fuzz.yaml";
	f.data = (const char *)data;
	f.len = size;
	if (decl_cluster_parse(&c, "fuzz", &f, 1, &diags) == 0) {
		dump = decl_cluster_dump(c);
		free(dump);
		decl_cluster_free(c);
	}
	errlist_release(&diags);
	return 0;
}
