/* tests/fuzz/fuzz-decl.c: the declarations loader on one YAML buffer.
 * A line `#8<` (a YAML comment, so the whole input is still one valid
 * file) cuts the input into up to FILES_MAX files of one cluster, which
 * reaches the rules between files (version, cluster and mode agree,
 * settings once, a queue in two files). Inputs over 64 KiB are skipped;
 * everything is freed (a leak is a finding); a successful load is also
 * dumped, which walks the model. */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "../../declarations/decl.h"

#define FILES_MAX 4
#define CUT       "\n#8<\n"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const paths[FILES_MAX] = {"fuzz.yaml", "b.yaml",
	    "c.yaml", "d.yaml"};
	struct decl_cluster *c = NULL;
	struct errlist diags = {0};
	struct decl_file f[FILES_MAX];
	const char *p = (const char *)data, *end = p + size, *cut;
	size_t n = 0;
	char *dump;

	if (size > 64 * 1024)
		return 0;
	while (n < FILES_MAX - 1 &&
	       (cut = memmem(p, (size_t)(end - p), CUT, strlen(CUT))) != NULL) {
		f[n].path = paths[n];
		f[n].data = p;
		f[n].len = (size_t)(cut - p) + 1; /* up to its newline */
		n++;
		p = cut + strlen(CUT);
	}
	f[n].path = paths[n];
	f[n].data = p;
	f[n].len = (size_t)(end - p);
	n++;
	if (decl_cluster_parse(&c, "fuzz", f, n, &diags) == 0) {
		dump = decl_cluster_dump(c);
		free(dump);
		decl_cluster_free(c);
	}
	errlist_release(&diags);
	return 0;
}
