/* tests/unit/test-json.c: the JSON tree reader (lib/json.c): the tree
 * API, exact integers, what the strict reader refuses (with line and
 * column), duplicate keys, and the member readers with their messages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/json.h"
#include "../../lib/jsonr.h"
#include "../../lib/sbuf.h"
#include "../../lib/xalloc.h"

static struct json_doc *
parse_ok(const char *text)
{
	struct json_doc *d = NULL;
	struct err err = {0};

	if (json_parse(&d, "t.json", text, strlen(text), &err) < 0)
		fail_msg("%s: %s", text, err.msg);
	assert_non_null(json_doc_root(d));
	return d;
}

/* text is refused with the rendered error want. */
static void
refused(const char *text, size_t len, const char *want)
{
	static char sentinel;
	struct json_doc *const before = (struct json_doc *)(void *)&sentinel;
	struct json_doc *d = before; /* must stay untouched */
	struct err err = {0};
	char *msg;

	assert_int_equal(json_parse(&d, "t.json", text, len, &err), -1);
	assert_ptr_equal(d, before);
	msg = err_render(&err);
	assert_string_equal(msg, want);
	free(msg);
	err_release(&err);
}

static void
test_json__tree(void **state)
{
	struct json_doc *d = parse_ok(
	    "{\"s\": \"t\\u00e9\", \"i\": -3, \"b\": true, \"f\": false,"
	    " \"z\": null, \"a\": [1, \"x\", {}], \"o\": {\"k\": []}}");
	const struct json *root = json_doc_root(d), *a, *it;
	static const char *const keys[] = {"s", "i", "b", "f", "z", "a", "o"};
	int64_t i = 0;
	bool b = false;
	size_t n = 0;

	(void)state;
	assert_true(json_is_object(root));
	assert_int_equal(json_size(root), 7);
	for (it = json_first(root); it != NULL; it = json_next(it))
		assert_string_equal(json_key(it), keys[n++]);
	assert_int_equal(n, 7);
	assert_string_equal(json_str(json_get(root, "s")), "t\xc3\xa9");
	assert_int_equal(json_int(json_get(root, "i"), &i), 0);
	assert_int_equal(i, -3);
	assert_int_equal(json_bool(json_get(root, "b"), &b), 0);
	assert_true(b);
	assert_int_equal(json_bool(json_get(root, "f"), &b), 0);
	assert_false(b);
	assert_true(json_is_null(json_get(root, "z")));
	assert_true(json_is_number(json_get(root, "i")));
	assert_true(json_is_bool(json_get(root, "f")));
	a = json_get(root, "a");
	assert_true(json_is_array(a));
	assert_int_equal(json_size(a), 3);
	it = json_first(a);
	assert_null(json_key(it));
	assert_true(json_is_number(it));
	assert_true(json_is_string(json_next(it)));
	assert_true(json_is_object(json_next(json_next(it))));
	assert_null(json_next(json_next(json_next(it))));
	assert_int_equal(json_size(json_get(json_get(root, "o"), "k")), 0);
	/* wrong types and absent members answer NULL, false, -1 */
	assert_null(json_get(root, "nope"));
	assert_null(json_get(a, "s"));
	assert_null(json_get(NULL, "s"));
	assert_null(json_first(json_get(root, "s")));
	assert_int_equal(json_size(json_get(root, "s")), 0);
	assert_null(json_str(json_get(root, "i")));
	assert_int_equal(json_int(json_get(root, "s"), &i), -1);
	assert_int_equal(json_bool(json_get(root, "z"), &b), -1);
	assert_false(json_is_object(NULL));
	assert_false(json_is_null(NULL));
	assert_null(json_key(root));
	json_doc_free(d);
	json_doc_free(NULL);
}

/* Integers come back exactly, or not at all. */
static void
int_is(const char *text, int rc, int64_t want)
{
	struct json_doc *d = parse_ok(text);
	int64_t v = 42;

	assert_int_equal(json_int(json_first(json_doc_root(d)), &v), rc);
	assert_true(v == (rc == 0 ? want : 42));
	json_doc_free(d);
}

static void
test_json__integers_are_exact(void **state)
{
	(void)state;
	int_is("[0]", 0, 0);
	int_is("[-0]", 0, 0);
	int_is("[9007199254740993]", 0, INT64_C(9007199254740993));
	int_is("[-9007199254740993]", 0, -INT64_C(9007199254740993));
	int_is("[9223372036854775807]", 0, INT64_MAX);
	int_is("[-9223372036854775808]", 0, INT64_MIN);
	/* integral doubles within 2^53 */
	int_is("[1e3]", 0, 1000);
	int_is("[2.0]", 0, 2);
	int_is("[-9007199254740992.0]", 0, -INT64_C(9007199254740992));
	/* past int64, past 2^53 as a double, not integral */
	int_is("[9223372036854775808]", -1, 0);
	int_is("[1e300]", -1, 0);
	int_is("[9007199254740994.0]", -1, 0);
	int_is("[1.5]", -1, 0);
	int_is("[\"1\"]", -1, 0);
}

static void
test_json__render(void **state)
{
	const char *text = "{\"a\":[1,-2.5,\"x\\\"\\n\",true,false,null,{}],"
	                   "\"b\":9007199254740993,\"c\":[]}";
	struct json_doc *d = parse_ok(text);
	char *s = json_render(json_doc_root(d));

	(void)state;
	assert_string_equal(s, text);
	free(s);
	json_doc_free(d);
	/* doubles read back as the same double, never as an integer */
	d = parse_ok("[1e20, 19007199254740993.5, 0.1, -0.0, 1e3]");
	s = json_render(json_doc_root(d));
	assert_string_equal(s,
	    "[1e+20,19007199254740992.0,0.10000000000000001,0,1000]");
	free(s);
	json_doc_free(d);
}

static void
test_json__strict_refusals(void **state)
{
	(void)state;
	refused("{} x", 4,
	    "t.json:1:4: not valid JSON: unexpected data after "
	    "the value");
	refused("{\"a\": 1}{}", 10,
	    "t.json:1:9: not valid JSON: unexpected data after the value");
	refused("[\"a\xff\"]", 6,
	    "t.json:1:4: not valid JSON: invalid UTF-8 in a string");
	refused("{\n  \"a\": [1,]\n}", 15,
	    "t.json:2:11: not valid JSON: unexpected character");
	refused("", 0, "t.json:1:1: not valid JSON: unexpected end of input");
	refused("[1] \0", 5,
	    "t.json:1:5: not valid JSON: unexpected data after the value");
	refused("{'a': 1}", 8,
	    "t.json:1:2: not valid JSON: expected a key (a string)");
	refused("[NaN]", 5, "t.json:1:2: not valid JSON: unexpected character");
	refused("[\"\\u0000\"]", 10,
	    "t.json:1:9: not valid JSON: \\u0000 is not allowed in a string");
}

/* n arrays inside each other. */
static char *
nested(size_t n)
{
	char *s = xmalloc(2 * n + 1);

	memset(s, '[', n);
	memset(s + n, ']', n);
	s[2 * n] = '\0';
	return s;
}

static void
test_json__depth_is_bounded(void **state)
{
	char *ok = nested(JSONR_DEPTH), *deep = nested(JSONR_DEPTH + 1);

	(void)state;
	json_doc_free(parse_ok(ok));
	refused(deep, strlen(deep),
	    "t.json:1:65: not valid JSON: nested deeper than 64");
	free(ok);
	free(deep);
}

static void
test_json__duplicate_keys(void **state)
{
	struct sbuf big = {0};
	struct json_doc *d;
	char *want;
	int i;

	(void)state;
	refused("{\"a\": 1, \"b\": 2, \"a\": 3}", 24,
	    "t.json:1:18: duplicate key 'a'");
	refused("[{\"x\": {\"k\": 1,\n \"k\": {}}}]", 27,
	    "t.json:2:2: duplicate key 'k'");
	/* the same key in different objects, and keys that differ only in
	 * the middle, are fine */
	d = parse_ok("{\"a\": {\"a\": 1}, \"b\": {\"a\": 2}, \"axxb\": 1, "
	             "\"ayyb\": 2}");
	json_doc_free(d);
	/* a large object (hashed): the first repeat in document order */
	sbuf_addc(&big, '{');
	for (i = 0; i < 500; i++)
		sbuf_addf(&big,
		    "%s\"org.example:broker=\\\"n\\\",queue=q%03d\": %d",
		    i > 0 ? ",\n" : "", i, i);
	sbuf_addc(&big, '}');
	d = parse_ok(sbuf_str(&big));
	assert_int_equal(json_size(json_doc_root(d)), 500);
	json_doc_free(d);
	big.len--;
	sbuf_adds(&big, ",\n\"org.example:broker=\\\"n\\\",queue=q007\": 1,\n"
	                "\"org.example:broker=\\\"n\\\",queue=q003\": 1}");
	want = xasprintf("t.json:501:1: duplicate key "
	                 "'org.example:broker=\"n\",queue=q007'");
	refused(sbuf_str(&big), big.len, want);
	free(want);
	sbuf_release(&big);
}

/* A long string (past jsonr's default cap) is read whole. */
static void
test_json__long_strings(void **state)
{
	size_t n = (size_t)3 << 20;
	char *text = xmalloc(n + 5);
	struct json_doc *d;

	(void)state;
	text[0] = '[';
	text[1] = '"';
	memset(text + 2, 'x', n);
	memcpy(text + 2 + n, "\"]", 3);
	d = parse_ok(text);
	assert_int_equal(strlen(json_str(json_first(json_doc_root(d)))), n);
	json_doc_free(d);
	free(text);
}

/* ---- member readers ---------------------------------------------------- */

struct rd {
	struct json_doc *doc;
	const struct json *o;
	struct err err;
	struct json_reader c;
};

static void
rd_init(struct rd *r, const char *text)
{
	memset(r, 0, sizeof(*r));
	r->doc = parse_ok(text);
	r->o = json_doc_root(r->doc);
	r->c.path = "plan.json";
	r->c.err = &r->err;
}

/* The recorded message, then reset for the next case. */
static void
rd_msg(struct rd *r, const char *want)
{
	char *msg = err_render(&r->err);

	assert_string_equal(msg, want);
	free(msg);
	err_release(&r->err);
}

static void
rd_release(struct rd *r)
{
	assert_false(err_is_set(&r->err));
	json_doc_free(r->doc);
}

static const char *const members =
    "{\"s\": \"x\", \"n\": null, \"i\": 7, \"d\": 1.5, \"b\": false, "
    "\"a\": [\"p\", \"q\"], \"m\": [\"p\", 2, \"r\"], \"o\": {\"k\": 1}}";

static void
test_json__read_strings(void **state)
{
	static char untouched[] = "untouched";
	struct rd r;
	char *s = untouched;

	(void)state;
	rd_init(&r, members);
	assert_int_equal(json_read_str(&r.c, r.o, "", "s", false, &s), 0);
	assert_string_equal(s, "x");
	free(s);
	assert_int_equal(json_read_str(&r.c, r.o, "", "n", true, &s), 0);
	assert_null(s);
	assert_int_equal(json_read_optional(&r.c, r.o, "", "absent", &s), 0);
	assert_null(s);
	assert_int_equal(json_read_optional(&r.c, r.o, "top", "s", &s), 0);
	assert_string_equal(s, "x");
	free(s);
	s = untouched;
	assert_int_equal(json_read_str(&r.c, r.o, "", "n", false, &s), -1);
	rd_msg(&r, "plan.json: n: expected a string");
	assert_int_equal(json_read_str(&r.c, r.o, "x.y[2]", "i", true, &s), -1);
	rd_msg(&r, "plan.json: x.y[2].i: expected a string or null");
	assert_int_equal(json_read_str(&r.c, r.o, "w", "absent", true, &s), -1);
	rd_msg(&r, "plan.json: w.absent: missing");
	assert_int_equal(json_read_optional(&r.c, r.o, "w", "i", &s), -1);
	rd_msg(&r, "plan.json: w.i: expected a string");
	assert_ptr_equal(s, untouched);
	/* the first problem is the one kept */
	assert_null(json_read_member(&r.c, r.o, "", "p1"));
	assert_null(json_read_member(&r.c, r.o, "", "p2"));
	rd_msg(&r, "plan.json: p1: missing");
	/* a member of something that is not an object is missing */
	assert_null(json_read_member(&r.c, json_get(r.o, "a"), "a", "s"));
	rd_msg(&r, "plan.json: a.s: missing");
	rd_release(&r);
}

static void
test_json__read_scalars(void **state)
{
	struct rd r;
	int64_t i = 0;
	bool b = true;

	(void)state;
	rd_init(&r, members);
	assert_int_equal(json_read_int(&r.c, r.o, "", "i", &i), 0);
	assert_int_equal(i, 7);
	assert_int_equal(json_read_bool(&r.c, r.o, "", "b", &b), 0);
	assert_false(b);
	assert_int_equal(json_read_int(&r.c, r.o, "q", "d", &i), -1);
	rd_msg(&r, "plan.json: q.d: expected an integer");
	assert_int_equal(json_read_int(&r.c, r.o, "q", "s", &i), -1);
	rd_msg(&r, "plan.json: q.s: expected an integer");
	assert_int_equal(json_read_int(&r.c, r.o, "q", "none", &i), -1);
	rd_msg(&r, "plan.json: q.none: missing");
	assert_int_equal(i, 7);
	assert_int_equal(json_read_bool(&r.c, r.o, "", "n", &b), -1);
	rd_msg(&r, "plan.json: n: expected a boolean");
	assert_false(b);
	rd_release(&r);
}

static void
test_json__read_containers(void **state)
{
	struct rd r;
	char **v = NULL;
	size_t n = 99, k;

	(void)state;
	rd_init(&r, members);
	assert_non_null(json_read_array(&r.c, r.o, "", "a", &n));
	assert_int_equal(n, 2);
	assert_non_null(json_read_object(&r.c, r.o, "", "o", false));
	assert_true(json_is_null(json_read_object(&r.c, r.o, "", "n", true)));
	assert_int_equal(json_read_strings(&r.c, r.o, "", "a", &v, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(v[0], "p");
	assert_string_equal(v[1], "q");
	assert_null(v[2]);
	for (k = 0; k < n; k++)
		free(v[k]);
	free(v);
	n = 99;
	assert_null(json_read_array(&r.c, r.o, "", "o", &n));
	rd_msg(&r, "plan.json: o: expected an array");
	assert_int_equal(n, 99);
	assert_null(json_read_object(&r.c, r.o, "", "a", true));
	rd_msg(&r, "plan.json: a: expected an object");
	assert_null(json_read_object(&r.c, r.o, "", "n", false));
	rd_msg(&r, "plan.json: n: expected an object");
	/* a non-string element: the strings read so far are the caller's */
	assert_int_equal(json_read_strings(&r.c, r.o, "settings", "m", &v, &n),
	    -1);
	rd_msg(&r, "plan.json: settings.m: expected an array of strings");
	assert_int_equal(n, 1);
	assert_string_equal(v[0], "p");
	free(v[0]);
	free(v);
	rd_release(&r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_json__tree),
	    cmocka_unit_test(test_json__integers_are_exact),
	    cmocka_unit_test(test_json__render),
	    cmocka_unit_test(test_json__strict_refusals),
	    cmocka_unit_test(test_json__depth_is_bounded),
	    cmocka_unit_test(test_json__duplicate_keys),
	    cmocka_unit_test(test_json__long_strings),
	    cmocka_unit_test(test_json__read_strings),
	    cmocka_unit_test(test_json__read_scalars),
	    cmocka_unit_test(test_json__read_containers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
