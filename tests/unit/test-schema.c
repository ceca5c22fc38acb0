/* tests/unit/test-schema.c: declarations/schema.c: the JSON Schema is the
 * loader's tables written out: every row of every table (walked from
 * decl_top_table) is a property with its description, required rows are
 * required, nothing else is allowed; the name and file-name patterns come
 * from the checks; defaults, bounds and enums from the rows and the name
 * tables. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../declarations/decl-int.h"
#include "../../lib/json.h"

static struct json_doc *
schema_doc(void)
{
	struct json_doc *doc = NULL;
	struct err e = {0};
	char *s = decl_schema_json();

	assert_int_equal(json_parse(&doc, "schema", s, strlen(s), &e), 0);
	free(s);
	return doc;
}

static bool
in_array(const struct json *arr, const char *s)
{
	const struct json *v;

	for (v = json_first(arr); v != NULL; v = json_next(v))
		if (json_is_string(v) && strcmp(json_str(v), s) == 0)
			return true;
	return false;
}

/* The object schema of a table: the items of a list, the first of a
 * mapping's oneOf. */
static const struct json *
sub_object(const struct json *prop, enum decl_field_type t)
{
	if (t == DECL_FIELD_LIST)
		return json_get(prop, "items");
	return json_first(json_get(prop, "oneOf"));
}

/* Walk table t against its object schema o; returns the rows seen. */
static size_t
walk(const struct decl_table *t, const struct json *o)
{
	const struct json *props = json_get(o, "properties"), *p, *req;
	size_t i, n = 0, nreq = 0;
	bool closed = true;

	assert_non_null(props);
	assert_int_equal(json_size(props), t->n);
	assert_int_equal(
	    json_bool(json_get(o, "additionalProperties"), &closed), 0);
	assert_false(closed);
	req = json_get(o, "required");
	for (i = 0; i < t->n; i++) {
		const struct decl_field *f = &t->fields[i];

		p = json_get(props, f->key);
		if (p == NULL)
			fail_msg("row '%s' of %s is not in the schema", f->key,
			    t->what);
		if (f->desc != NULL) {
			assert_non_null(json_get(p, "description"));
			assert_string_equal(
			    json_str(json_get(p, "description")), f->desc);
		}
		assert_true(
		    f->required == (req != NULL && in_array(req, f->key)));
		nreq += f->required;
		n++;
		if (f->type == DECL_FIELD_LIST || f->type == DECL_FIELD_MAP) {
			assert_non_null(f->sub);
			n += walk(f->sub, sub_object(p, f->type));
		}
	}
	if (req != NULL)
		assert_int_equal(json_size(req), nreq);
	return n;
}

static void
test_schema__every_row_of_every_table(void **state)
{
	struct json_doc *doc = schema_doc();
	const struct json *root = json_doc_root(doc);

	(void)state;
	assert_string_equal(json_str(json_get(root, "$schema")),
	    "https://json-schema.org/draft/2020-12/schema");
	/* the top level, settings, nodes, members, addresses, queues,
	 * diverts, captures: over 50 rows */
	assert_true(walk(&decl_top_table, root) > 50);
	json_doc_free(doc);
}

static const struct json *
at(const struct json *root, const char *const *path)
{
	const struct json *v = root;

	for (; *path != NULL; path++) {
		v = json_get(v, *path);
		assert_non_null(v);
	}
	return v;
}

static void
test_schema__types_defaults_bounds_enums(void **state)
{
	static const char *const queue[] = {"properties", "addresses", "items",
	    "properties", "queues", "items", "properties", NULL};
	static const char *const divert[] = {"properties", "diverts", "items",
	    "properties", "routing-type", NULL};
	struct json_doc *doc = schema_doc();
	const struct json *root = json_doc_root(doc), *q, *v;
	int64_t n;
	bool b;

	(void)state;
	q = at(root, queue);
	v = json_get(q, "durable");
	assert_string_equal(json_str(json_get(v, "type")), "boolean");
	assert_int_equal(json_bool(json_get(v, "default"), &b), 0);
	assert_true(b);
	v = json_get(q, "max-consumers");
	assert_int_equal(json_int(json_get(v, "minimum"), &n), 0);
	assert_int_equal(n, -1);
	assert_int_equal(json_int(json_get(v, "maximum"), &n), 0);
	assert_int_equal(n, INT32_MAX);
	/* ring-size: -1 or at least 1, never 0 */
	v = json_get(json_get(q, "ring-size"), "not");
	assert_int_equal(json_int(json_get(v, "const"), &n), 0);
	assert_int_equal(n, 0);
	assert_true(
	    in_array(json_get(json_get(q, "routing"), "enum"), "multicast"));
	v = at(root, divert);
	assert_int_equal(json_size(json_get(v, "enum")), 4);
	assert_true(in_array(json_get(v, "enum"), "PASS"));
	assert_string_equal(json_str(json_get(v, "default")), "STRIP");
	json_doc_free(doc);
}

static void
test_schema__patterns_from_the_checks(void **state)
{
	static const char *const name[] = {"$defs", "name", "pattern", NULL};
	static const char *const file[] = {"$defs", "file-name", "pattern",
	    NULL};
	struct json_doc *doc = schema_doc();
	const struct json *root = json_doc_root(doc);
	const char *p;

	(void)state;
	p = json_str(at(root, name));
	/* ',' and the bidirectional controls U+202A..U+202E (with the
	 * line separators and U+202F around them) are refused, the space
	 * is not refused inside */
	assert_non_null(strstr(p, "\\u002C"));
	assert_non_null(strstr(p, "\\u2028-\\u202F"));
	assert_null(strstr(p, "\\u0020"));
	assert_non_null(strstr(p, "(?!.*  )"));
	p = json_str(at(root, file));
	/* a file name does not start with '.', but holds one */
	assert_string_equal(p,
	    "^[\\u002D\\u0030-\\u0039\\u0041-\\u005A\\u005F\\u0061-\\u007A]"
	    "[\\u002D\\u002E\\u0030-\\u0039\\u0041-\\u005A\\u005F\\u0061-"
	    "\\u007A]*$");
	json_doc_free(doc);
}

/* decl_fields_defaults sets what the rows say, and only that. */
static void
test_schema__defaults_come_from_the_rows(void **state)
{
	struct decl_queue q;
	const struct decl_table *t = NULL;
	size_t i;

	(void)state;
	for (i = 0; i < decl_top_table.n; i++)
		if (strcmp(decl_top_table.fields[i].key, "addresses") == 0)
			t = decl_top_table.fields[i].sub;
	assert_non_null(t);
	for (i = 0; i < t->n; i++)
		if (strcmp(t->fields[i].key, "queues") == 0)
			t = t->fields[i].sub;
	assert_string_equal(t->what, "queue");
	memset(&q, 0, sizeof(q));
	decl_fields_defaults(&q, t->fields, t->n);
	assert_true(q.durable);
	assert_true(q.enabled);
	assert_int_equal(q.max_consumers, -1);
	assert_int_equal(q.ring_size, -1);
	assert_int_equal(q.delay_before_dispatch, -1);
	assert_false(q.exclusive);
	assert_null(q.name);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_schema__every_row_of_every_table),
	    cmocka_unit_test(test_schema__types_defaults_bounds_enums),
	    cmocka_unit_test(test_schema__patterns_from_the_checks),
	    cmocka_unit_test(test_schema__defaults_come_from_the_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
