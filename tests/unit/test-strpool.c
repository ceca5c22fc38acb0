/* tests/unit/test-strpool.c: lib/strpool.c: one copy of each distinct
 * string, kept while any reference lives, past the table's growth and
 * after strpool_done; lib/sbuf.c's streamed buffer hands every byte over,
 * in order, in bounded pieces; lib/afile.c's writer replaces a file whole
 * or leaves it untouched. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/afile.h"
#include "../../lib/sbuf.h"
#include "../../lib/strpool.h"
#include "../../lib/xalloc.h"

static void
test_strpool__one_copy_of_each_string(void **unused)
{
	struct strpool *p = strpool_new();
	char name[32], *first[5000], *big, *a, *b;
	size_t i, n = sizeof(first) / sizeof(first[0]);

	(void)unused;
	for (i = 0; i < n; i++) { /* past several growths of the table */
		snprintf(name, sizeof(name), "g%06zu.q%zu", i / 10, i % 10);
		first[i] = strpool_intern(p, name, strlen(name));
		assert_string_equal(first[i], name);
	}
	assert_int_equal(strpool_count(p), n);
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "g%06zu.q%zu", i / 10, i % 10);
		assert_ptr_equal(strpool_intern(p, name, strlen(name)),
		    first[i]);
	}
	assert_int_equal(strpool_count(p), n);
	/* the length counts, not a NUL: "ab" of "abc" is its own string */
	a = strpool_intern(p, "abc", 3);
	b = strpool_intern(p, "abc", 2);
	assert_string_equal(a, "abc");
	assert_string_equal(b, "ab");
	assert_ptr_not_equal(a, b);
	assert_string_equal(strpool_intern(p, "", 0), "");
	/* larger than a chunk */
	big = xmalloc(200000);
	memset(big, 'x', 199999);
	big[199999] = '\0';
	a = strpool_intern(p, big, 199999);
	assert_string_equal(a, big);
	assert_ptr_equal(strpool_intern(p, big, 199999), a);
	/* the chunk being filled still is */
	b = strpool_intern(p, "after-big", 9);
	assert_string_equal(b, "after-big");
	assert_true(strpool_bytes(p) > 199999);
	/* a second holder keeps every string alive */
	assert_ptr_equal(strpool_ref(p), p);
	strpool_unref(p);
	assert_string_equal(first[n - 1], "g000499.q9");
	strpool_done(p);
	assert_string_equal(first[0], "g000000.q0");
	/* after done: stored, not shared */
	a = strpool_intern(p, "g000000.q0", 10);
	assert_string_equal(a, "g000000.q0");
	assert_ptr_not_equal(a, first[0]);
	strpool_unref(p);
	strpool_unref(NULL);
	assert_null(strpool_ref(NULL));
	free(big);
}

struct collect {
	struct sbuf all;
	size_t pieces, largest;
};

static void
collect_sink(void *ctx, const char *data, size_t len)
{
	struct collect *c = ctx;

	sbuf_add(&c->all, data, len);
	c->pieces++;
	if (len > c->largest)
		c->largest = len;
}

static void
test_strpool__sbuf_stream_hands_every_byte_over(void **unused)
{
	struct collect c = {{0}, 0, 0};
	struct sbuf b, whole = {0};
	size_t i;

	(void)unused;
	sbuf_init(&c.all, SBUF_UNBOUNDED);
	sbuf_init(&whole, SBUF_UNBOUNDED);
	sbuf_stream(&b, collect_sink, &c);
	for (i = 0; i < 100000; i++) {
		sbuf_addf(&b, "line %zu\n", i);
		sbuf_addf(&whole, "line %zu\n", i);
	}
	assert_true(b.len < SBUF_STREAM_PIECE);
	sbuf_flush(&b);
	assert_int_equal(b.len, 0);
	sbuf_flush(&b); /* nothing left: no empty piece */
	sbuf_release(&b);
	assert_string_equal(sbuf_str(&c.all), sbuf_str(&whole));
	assert_true(c.pieces > 10);
	assert_true(c.largest <= SBUF_STREAM_PIECE);
	sbuf_release(&c.all);
	sbuf_release(&whole);
}

static void
test_strpool__afile_writer_replaces_whole_or_not_at_all(void **unused)
{
	char tmpl[] = "/tmp/ag-strpool-XXXXXX";
	struct afile_writer w;
	struct err err = {0};
	char *dir, *path, *text = NULL, *r;
	size_t len = 0;

	(void)unused;
	dir = mkdtemp(tmpl);
	assert_non_null(dir);
	path = xasprintf("%s/out.json", dir);
	assert_int_equal(afile_write(path, "old\n", 4, 0640, &err), 0);
	/* aborted: the old file stays, no temporary is left */
	assert_int_equal(afile_writer_open(&w, path, 0640, &err), 0);
	afile_writer_add(&w, "new", 3);
	afile_writer_abort(&w);
	assert_int_equal(afile_read(&text, &len, path, 1024, &err), 0);
	assert_string_equal(text, "old\n");
	free(text);
	/* committed: the pieces, whole */
	assert_int_equal(afile_writer_open(&w, path, 0640, &err), 0);
	afile_writer_add(&w, "new ", 4);
	afile_writer_add(&w, "text\n", 5);
	assert_int_equal(afile_writer_commit(&w, &err), 0);
	assert_int_equal(afile_read(&text, &len, path, 1024, &err), 0);
	assert_string_equal(text, "new text\n");
	free(text);
	/* a folder that does not exist: named */
	free(path);
	path = xasprintf("%s/missing/out.json", dir);
	assert_int_equal(afile_writer_open(&w, path, 0640, &err), -1);
	r = err_render(&err);
	assert_non_null(strstr(r, "cannot create"));
	assert_non_null(strstr(r, "missing/out.json.tmp."));
	free(r);
	err_release(&err);
	free(path);
	path = xasprintf("%s/out.json", dir);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
	free(path);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_strpool__one_copy_of_each_string),
	    cmocka_unit_test(test_strpool__sbuf_stream_hands_every_byte_over),
	    cmocka_unit_test(
	        test_strpool__afile_writer_replaces_whole_or_not_at_all),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
