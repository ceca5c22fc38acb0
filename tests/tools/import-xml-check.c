/* tests/tools/import-xml-check.c: the round trip of `import
 * --from-broker-xml` over broker.xml files (not part of the agent).
 *
 *   import-xml-check [--schema DIR] [--expect-ok] FILE...
 *   import-xml-check --dump FILE
 *
 * For each FILE: read it with render_import_read; render the objects into
 * the base it gave (validated against DIR/artemis-configuration.xsd with
 * --schema); read the rendered file again and compare the two models
 * (addresses and their routing, decl_queue_same, decl_divert_same). One
 * line per file: "FILE: ok A addresses, Q queues, D diverts", "FILE:
 * refused" (the diagnostics follow, indented), "FILE: render failed",
 * "FILE: differs: ...". Notes are printed indented with "note:". Exit 1
 * when a rendering fails or differs (or, with --expect-ok, a file is
 * refused), else 0. --dump prints the objects FILE declares as
 * decl_cluster_dump_objects writes them (for tests comparing two files). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../declarations/render/render.h"
#include "../../lib/afile.h"

static void
print_diags(const struct errlist *d)
{
	size_t i;
	char *s;

	for (i = 0; i < d->n; i++) {
		s = errlist_render_item(d, i);
		printf("    %s\n", s);
		free(s);
	}
}

static size_t
nqueues(const struct decl_cluster *c)
{
	size_t i, n = 0;

	for (i = 0; i < c->naddresses; i++)
		n += c->addresses[i].nqueues;
	return n;
}

/* NULL when a and b declare the same objects, else what differs. */
static const char *
compare(const struct decl_cluster *a, const struct decl_cluster *b)
{
	size_t i, j;

	if (a->naddresses != b->naddresses)
		return "number of addresses";
	if (a->ndiverts != b->ndiverts)
		return "number of diverts";
	for (i = 0; i < a->naddresses; i++) {
		const struct decl_address *x = &a->addresses[i];
		const struct decl_address *y = &b->addresses[i];

		if (strcmp(x->name, y->name) != 0 || x->routing != y->routing ||
		    x->nqueues != y->nqueues)
			return "an address";
		/* render groups an address's queues by routing type */
		for (j = 0; j < x->nqueues; j++) {
			size_t k;

			for (k = 0; k < y->nqueues; k++)
				if (decl_queue_same(&x->queues[j],
				        &y->queues[k]))
					break;
			if (k == y->nqueues)
				return "a queue";
		}
	}
	for (i = 0; i < a->ndiverts; i++)
		if (!decl_divert_same(&a->diverts[i], &b->diverts[i]))
			return "a divert";
	return NULL;
}

/* Render im into its base, read the result again, compare; 0 when the
 * same. */
static int
round_trip(const char *file, const struct render_import *im,
    const struct render_schema *schema)
{
	struct render_base base = {file, im->base, im->base_len};
	struct render_import again = {0};
	struct errlist diags = {0};
	struct err err = {0};
	char tmp[] = "/tmp/import-xml-check-XXXXXX";
	char *out = NULL;
	const char *why;
	size_t len = 0;
	int fd, rc = 1;

	if (render_broker_xml(&out, &len, im->objects, &base, schema, &diags) !=
	    0) {
		printf("%s: render failed\n", file);
		print_diags(&diags);
		goto done;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		perror("mkstemp");
		goto done;
	}
	(void)close(fd);
	if (afile_write(tmp, out, len, 0600, &err) != 0) {
		char *s = err_render(&err);

		printf("%s: %s\n", file, s);
		free(s);
		err_release(&err);
	} else if (render_import_read(&again, tmp, &diags) != 0) {
		printf("%s: the rendered file is refused\n", file);
		print_diags(&diags);
	} else if ((why = compare(im->objects, again.objects)) != NULL) {
		printf("%s: differs: %s\n", file, why);
	} else {
		printf("%s: ok %zu addresses, %zu queues, %zu diverts%s\n",
		    file, im->objects->naddresses, nqueues(im->objects),
		    im->objects->ndiverts, im->expanded ? " (expanded)" : "");
		rc = 0;
	}
	(void)unlink(tmp);
done:
	render_import_release(&again);
	errlist_release(&diags);
	free(out);
	return rc;
}

int
main(int argc, char **argv)
{
	struct render_schema *schema = NULL;
	bool expect_ok = false;
	int i = 1, rc = 0;
	size_t j;

	if (argc == 3 && strcmp(argv[1], "--dump") == 0) {
		struct render_import im = {0};
		struct errlist diags = {0};
		char *d;

		if (render_import_read(&im, argv[2], &diags) != 0) {
			print_diags(&diags);
			errlist_release(&diags);
			return 1;
		}
		d = decl_cluster_dump_objects(im.objects);
		fputs(d, stdout);
		free(d);
		render_import_release(&im);
		errlist_release(&diags);
		return 0;
	}
	for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
		if (strcmp(argv[i], "--schema") == 0 && i + 1 < argc) {
			struct err err = {0};

			if (render_schema_load(&schema, argv[++i], &err) != 0) {
				char *s = err_render(&err);

				fprintf(stderr, "%s\n", s);
				free(s);
				err_release(&err);
				return 2;
			}
		} else if (strcmp(argv[i], "--expect-ok") == 0) {
			expect_ok = true;
		} else {
			fprintf(stderr,
			    "usage: import-xml-check [--schema DIR] "
			    "[--expect-ok] FILE...\n");
			return 2;
		}
	}
	for (; i < argc; i++) {
		struct render_import im = {0};
		struct errlist diags = {0};

		if (render_import_read(&im, argv[i], &diags) != 0) {
			printf("%s: refused\n", argv[i]);
			print_diags(&diags);
			if (expect_ok)
				rc = 1;
		} else {
			if (round_trip(argv[i], &im, schema) != 0)
				rc = 1;
			for (j = 0; j < im.nnotes; j++)
				printf("    note: %s\n", im.notes[j]);
		}
		render_import_release(&im);
		errlist_release(&diags);
	}
	render_schema_free(schema);
	return rc;
}
