/* tests/fuzz/fuzz-import-xml.c: the broker.xml reader of `import
 * --from-broker-xml` on one file.
 *
 * The input is written to a file of its own folder (the reader reads
 * through afile, and its xi:includes resolve inside that folder, where
 * nothing else is: any include is refused or names the file itself).
 * Invariants (abort = finding): a refusal leaves a diagnostic and no
 * objects; a success gives a base, and a base of the input's bytes when
 * nothing was expanded. Inputs over 64 KiB are skipped; everything is
 * freed. */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../declarations/render/render.h"

static char dir[] = "/tmp/fuzz-import-xml-XXXXXX";
static char *path;

static void
cleanup(void)
{
	(void)unlink(path);
	(void)rmdir(dir);
	free(path);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct render_import im = {0};
	struct errlist diags = {0};
	FILE *f;
	int rc;

	if (size > 64 * 1024)
		return 0;
	if (path == NULL) {
		if (mkdtemp(dir) == NULL)
			abort();
		if (asprintf(&path, "%s/broker.xml", dir) < 0)
			abort();
		(void)atexit(cleanup);
	}
	f = fopen(path, "wb");
	if (f == NULL || fwrite(data, 1, size, f) != size || fclose(f) != 0)
		abort();
	rc = render_import_read(&im, path, &diags);
	if (rc != 0 && (diags.nerrors == 0 || im.objects != NULL))
		abort();
	if (rc == 0 && (im.objects == NULL || im.base == NULL ||
	                   (!im.expanded && (im.base_len != size ||
	                                        memcmp(im.base, data, size)))))
		abort();
	render_import_release(&im);
	errlist_release(&diags);
	(void)unlink(path);
	return 0;
}
