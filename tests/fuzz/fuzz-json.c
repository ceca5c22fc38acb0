/* tests/fuzz/fuzz-json.c: the JSON tree reader (lib/json.c) on arbitrary
 * bytes. Property: a text it accepts renders to compact JSON that it
 * accepts again and renders to the same bytes, with the same shape
 * (sizes, integers) at the top. */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/json.h"

static void
same_shape(const struct json *a, const struct json *b)
{
	int64_t x = 0, y = 0;

	if (json_size(a) != json_size(b))
		abort();
	if (json_int(a, &x) != json_int(b, &y) || x != y)
		abort();
	for (a = json_first(a), b = json_first(b); a != NULL || b != NULL;
	     a = json_next(a), b = json_next(b)) {
		if (a == NULL || b == NULL)
			abort();
		if ((json_key(a) == NULL) != (json_key(b) == NULL) ||
		    (json_key(a) != NULL &&
		        strcmp(json_key(a), json_key(b)) != 0))
			abort();
		if (json_int(a, &x) != json_int(b, &y) || x != y)
			abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_doc *d = NULL, *e = NULL;
	struct err err = {0};
	char *a, *b;

	if (size > 64 * 1024)
		return 0;
	if (json_parse(&d, "fuzz.json", (const char *)data, size, &err) < 0) {
		if (err.msg == NULL || err.line == 0)
			abort(); /* every refusal names its line and column */
		err_release(&err);
		return 0;
	}
	a = json_render(json_doc_root(d));
	if (json_parse(&e, "fuzz.json", a, strlen(a), &err) < 0)
		abort(); /* a rendered tree must read back */
	b = json_render(json_doc_root(e));
	if (strcmp(a, b) != 0)
		abort();
	same_shape(json_doc_root(d), json_doc_root(e));
	free(a);
	free(b);
	json_doc_free(d);
	json_doc_free(e);
	return 0;
}
