/* tests/fuzz/fuzz-decl.c: the declarations loader on one YAML buffer.
 * A line `#8<` (a YAML comment, so the whole input is still one valid
 * file) cuts the input into up to FILES_MAX files of one cluster, which
 * reaches the rules between files (version, cluster and mode agree,
 * settings once, a queue in two files). Inputs over 64 KiB are skipped;
 * everything is freed (a leak is a finding); a successful load is also
 * dumped, which walks the model, and written as YAML the way `import`
 * writes a declaration (decl_cluster_emit): those files must load again
 * and emit the same bytes (emit writes every setting that is not its
 * default, sorted: equal files are equal models), or the fuzzer aborts. */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "../../declarations/decl.h"

#define FILES_MAX 4
#define CUT       "\n#8<\n"

/* c emitted as YAML, loaded again and emitted again gives the same
 * files. */
static void
round_trip(const struct decl_cluster *c)
{
	struct decl_emit_file *e = NULL, *e2 = NULL;
	struct decl_file *in;
	struct decl_cluster *back = NULL;
	struct errlist diags = {0};
	struct err err = {0};
	size_t ne = 0, ne2 = 0, i;

	if (decl_cluster_emit(c, NULL, &e, &ne, &err) < 0) {
		err_release(&err); /* an object too large to write alone */
		return;
	}
	in = calloc(ne, sizeof(*in));
	if (in == NULL)
		abort();
	for (i = 0; i < ne; i++) {
		in[i].path = e[i].name;
		in[i].data = e[i].text;
		in[i].len = e[i].len;
	}
	if (decl_cluster_parse(&back, "fuzz", in, ne, &diags) < 0)
		abort(); /* what was emitted does not load */
	if (decl_cluster_emit(back, NULL, &e2, &ne2, &err) < 0 || ne2 != ne)
		abort();
	for (i = 0; i < ne; i++)
		if (strcmp(e[i].name, e2[i].name) != 0 ||
		    strcmp(e[i].text, e2[i].text) != 0)
			abort(); /* it loads as another model */
	decl_emit_files_free(e2, ne2);
	decl_cluster_free(back);
	errlist_release(&diags);
	free(in);
	decl_emit_files_free(e, ne);
}

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
		round_trip(c);
		free(dump);
		decl_cluster_free(c);
	}
	errlist_release(&diags);
	return 0;
}
