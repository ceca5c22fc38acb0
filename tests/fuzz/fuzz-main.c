/* tests/fuzz/fuzz-main.c: replay corpus files through a fuzz target under
 * gcc and the sanitizers (`make check`), as libgit2's standalone driver and
 * systemd's fuzz-main.c do. Arguments are files or folders; each file is
 * one TAP case, a folder that cannot be read a failed one. The plan line
 * `1..N` comes last (tests/run requires it there); a crash or a sanitizer
 * report stops the run non-zero before it. */
#include "fuzz.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../lib/afile.h"
#include "../../lib/xalloc.h"

static unsigned n;

static void
replay_file(const char *path)
{
	struct err err = {0};
	char *data = NULL;
	size_t len = 0;

	n++;
	if (afile_read(&data, &len, path, 1024 * 1024, &err) < 0) {
		printf("not ok %u - %s: %s\n", n, path, err.msg);
		fflush(stdout);
		err_release(&err);
		return;
	}
	LLVMFuzzerTestOneInput((const uint8_t *)data, len);
	free(data);
	printf("ok %u - %s\n", n, path);
	fflush(stdout);
}

static int
cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
replay(const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *e;
	char **names = NULL;
	size_t nn = 0, cap = 0, i;

	if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode)) {
		replay_file(path);
		return;
	}
	d = opendir(path);
	if (d == NULL) {
		printf("not ok %u - %s: cannot open the folder\n", ++n, path);
		fflush(stdout);
		return;
	}
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		xgrow(&names, &cap, nn + 1, sizeof(*names));
		names[nn++] = xasprintf("%s/%s", path, e->d_name);
	}
	closedir(d);
	if (nn > 0) /* qsort(NULL, 0, ...) is undefined */
		qsort(names, nn, sizeof(*names), cmp);
	for (i = 0; i < nn; i++) {
		replay(names[i]);
		free(names[i]);
	}
	free(names);
}

int
main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		replay(argv[i]);
	printf("1..%u\n", n);
	return 0;
}
