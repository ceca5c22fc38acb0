/* tests/unit/test-jsonr.c: the pull JSON reader (lib/jsonr.c): tokens,
 * decoding, every syntax error with its line and column, and reading
 * from a file descriptor across buffer refills. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/jsonr.h"
#include "../../lib/sbuf.h"
#include "../../lib/xalloc.h"

/* The token stream of text as one line: "{ K:a S:b N:1 T F Z [ ] } $". */
static char *
tokens(struct jsonr *r)
{
	struct sbuf b = {0};
	enum jsonr_tok t;

	do {
		t = jsonr_next(r);
		switch (t) {
		case JSONR_OBJ_BEGIN:
			sbuf_adds(&b, "{ ");
			break;
		case JSONR_OBJ_END:
			sbuf_adds(&b, "} ");
			break;
		case JSONR_ARR_BEGIN:
			sbuf_adds(&b, "[ ");
			break;
		case JSONR_ARR_END:
			sbuf_adds(&b, "] ");
			break;
		case JSONR_KEY:
			sbuf_addf(&b, "K:%s ", sbuf_str(&r->str));
			break;
		case JSONR_STR:
			sbuf_addf(&b, "S:%s ", sbuf_str(&r->str));
			break;
		case JSONR_NUM:
			if (r->is_int)
				sbuf_addf(&b, "I:%lld ", (long long)r->inum);
			else
				sbuf_addf(&b, "D:%g ", r->num);
			break;
		case JSONR_TRUE:
			sbuf_adds(&b, "T ");
			break;
		case JSONR_FALSE:
			sbuf_adds(&b, "F ");
			break;
		case JSONR_NULL:
			sbuf_adds(&b, "Z ");
			break;
		case JSONR_END:
			sbuf_adds(&b, "$");
			break;
		case JSONR_ERROR:
			sbuf_addf(&b, "ERR %u:%u %s", r->err_line, r->err_col,
			    r->error);
			break;
		}
	} while (t != JSONR_END && t != JSONR_ERROR);
	return sbuf_take(&b);
}

static void
expect(const char *text, const char *want)
{
	struct jsonr r;
	char *got;

	jsonr_init_mem(&r, text, strlen(text));
	got = tokens(&r);
	assert_string_equal(got, want);
	/* A stopped reader stays stopped. */
	assert_true(
	    jsonr_next(&r) == JSONR_END || jsonr_next(&r) == JSONR_ERROR);
	free(got);
	jsonr_release(&r);
}

static void
test_jsonr__tokens(void **state)
{
	(void)state;
	expect("{\"a\": [1, -2.5, 3e2, true, false, null, \"x\"], \"b\": {}}",
	    "{ K:a [ I:1 D:-2.5 D:300 T F Z S:x ] K:b { } } $");
	expect("  [ ]  \n", "[ ] $");
	expect("\"only\"", "S:only $");
	expect("0", "I:0 $");
	expect("-0", "I:0 $");
	expect("9223372036854775807", "I:9223372036854775807 $");
	/* Out of int64: a double, never a wrapped integer. */
	expect("9223372036854775808", "D:9.22337e+18 $");
	/* inside the buffer (the fast paths for integers up to 18 digits,
	 * words and runs of spaces), as the byte-by-byte reader reads them */
	expect("[123456789012345678, -123456789012345678, "
	       "1234567890123456789, -1234567890123456789, 0, -0, 7e1, "
	       "12.5, 1E2, 10,          true,   false,  null]",
	    "[ I:123456789012345678 I:-123456789012345678 "
	    "I:1234567890123456789 I:-1234567890123456789 I:0 I:0 D:70 "
	    "D:12.5 D:100 I:10 T F Z ] $");
	expect("[01]", "[ I:0 ERR 1:3 expected ',' or ']'");
	expect("[-]", "[ ERR 1:3 bad number");
	expect("[-01]", "[ I:0 ERR 1:4 expected ',' or ']'");
	expect("[12a]", "[ I:12 ERR 1:4 expected ',' or ']'");
	expect("[tru]", "[ ERR 1:5 unexpected character");
	expect("[truex]", "[ T ERR 1:6 expected ',' or ']'");
	expect("[1,  \n   falsey]", "[ I:1 F ERR 2:9 expected ',' or ']'");
}

static void
test_jsonr__strings_are_decoded(void **state)
{
	(void)state;
	expect("\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"", "S:a\"b\\c/d\b\f\n\r\t $");
	expect("\"\\u00e9\\u20ac\"", "S:\xc3\xa9\xe2\x82\xac $");
	expect("\"\\ud83d\\ude00\"", "S:\xf0\x9f\x98\x80 $");
	expect("\"caf\xc3\xa9\"", "S:caf\xc3\xa9 $");
}

static void
test_jsonr__syntax_errors_name_line_and_column(void **state)
{
	(void)state;
	expect("{\"a\": 1,}", "{ K:a I:1 ERR 1:9 expected a key (a string)");
	expect("[1,]", "[ I:1 ERR 1:4 unexpected character");
	expect("[1 2]", "[ I:1 ERR 1:4 expected ',' or ']'");
	expect("{\"a\" 1}", "{ K:a ERR 1:6 expected ':'");
	expect("{\n  \"a\": tru\n}", "{ K:a ERR 2:11 unexpected character");
	expect("01", "I:0 ERR 1:2 unexpected data after the value");
	expect("[1] x", "[ I:1 ] ERR 1:5 unexpected data after the value");
	expect("-", "ERR 1:2 bad number");
	expect("1.", "ERR 1:3 bad number");
	expect("1e", "ERR 1:3 bad number");
	expect("\"abc", "ERR 1:5 unterminated string");
	expect("\"a\nb\"", "ERR 1:3 control character in a string");
	expect("\"\\x\"", "ERR 1:3 bad escape in a string");
	expect("\"\\u12g4\"", "ERR 1:6 bad \\u escape");
	expect("\"\\ud800\"", "ERR 1:8 lone surrogate in a \\u escape");
	expect("\"\\udc00\"", "ERR 1:8 lone surrogate in a \\u escape");
	expect("\"a\\u0000b\"", "ERR 1:9 \\u0000 is not allowed in a string");
	expect("", "ERR 1:1 unexpected end of input");
	expect("[", "[ ERR 1:2 unexpected end of input");
	expect("{\"a\":", "{ K:a ERR 1:6 unexpected end of input");
	expect("}", "ERR 1:1 unexpected character");
}

/* Strings must be UTF-8 (RFC 8259 8.1); the error names the first byte
 * that cannot belong to a valid sequence. */
static void
test_jsonr__strings_must_be_utf8(void **state)
{
	(void)state;
	expect("[\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf\"]",
	    "[ S:\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf ] $");
	expect("{\"k\xc3\xa9\": 1}", "{ K:k\xc3\xa9 I:1 } $");
	/* a continuation byte without a lead */
	expect("\"a\x80\"", "ERR 1:3 invalid UTF-8 in a string");
	/* overlong forms */
	expect("\"\xc0\xaf\"", "ERR 1:2 invalid UTF-8 in a string");
	expect("\"\xe0\x80\xaf\"", "ERR 1:3 invalid UTF-8 in a string");
	expect("\"\xf0\x80\x80\xaf\"", "ERR 1:3 invalid UTF-8 in a string");
	/* a surrogate, and past U+10FFFF */
	expect("\"\xed\xa0\x80\"", "ERR 1:3 invalid UTF-8 in a string");
	expect("\"\xf4\x90\x80\x80\"", "ERR 1:3 invalid UTF-8 in a string");
	expect("\"\xf5\x80\x80\x80\"", "ERR 1:2 invalid UTF-8 in a string");
	/* cut short, by the quote, by another lead, by the end */
	expect("\"\xe2\x82\"", "ERR 1:4 invalid UTF-8 in a string");
	expect("\"\xe2\xc3\xa9\"", "ERR 1:3 invalid UTF-8 in a string");
	expect("\"\xe2\x82", "ERR 1:4 invalid UTF-8 in a string");
	/* in a key, and where no string is */
	expect("{\"\xff\": 1}", "{ ERR 1:3 invalid UTF-8 in a string");
	expect("[\xc3\xa9]", "[ ERR 1:2 unexpected character");
}

/* Where each token starts (after white space). */
static void
test_jsonr__token_position(void **state)
{
	const char *text = "{\n  \"a\": [ 1,\n\t\"x\" ]}";
	static const unsigned want[][2] = {{1, 1}, {2, 3}, {2, 8}, {2, 10},
	    {3, 2}, {3, 6}, {3, 7}};
	struct jsonr r;
	size_t i;

	(void)state;
	jsonr_init_mem(&r, text, strlen(text));
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		assert_true(jsonr_next(&r) > JSONR_END);
		assert_int_equal(r.tok_line, want[i][0]);
		assert_int_equal(r.tok_col, want[i][1]);
	}
	assert_int_equal(jsonr_next(&r), JSONR_END);
	jsonr_release(&r);
}

static void
test_jsonr__depth_is_bounded(void **state)
{
	char deep[JSONR_DEPTH + 2];
	struct jsonr r;
	enum jsonr_tok t;
	int n = 0;

	(void)state;
	memset(deep, '[', sizeof(deep) - 1);
	deep[sizeof(deep) - 1] = '\0';
	jsonr_init_mem(&r, deep, strlen(deep));
	while ((t = jsonr_next(&r)) == JSONR_ARR_BEGIN)
		n++;
	assert_int_equal(t, JSONR_ERROR);
	assert_int_equal(n, JSONR_DEPTH);
	assert_non_null(strstr(r.error, "nested deeper than"));
	jsonr_release(&r);
}

static void
test_jsonr__skip(void **state)
{
	const char *text = "{\"x\": {\"y\": [1, {\"z\": []}]}, \"w\": 2}";
	struct jsonr r;

	(void)state;
	jsonr_init_mem(&r, text, strlen(text));
	assert_int_equal(jsonr_next(&r), JSONR_OBJ_BEGIN);
	assert_int_equal(jsonr_next(&r), JSONR_KEY);
	assert_int_equal(jsonr_skip(&r, jsonr_next(&r)), 0);
	assert_int_equal(jsonr_next(&r), JSONR_KEY);
	assert_string_equal(sbuf_str(&r.str), "w");
	assert_int_equal(jsonr_next(&r), JSONR_NUM);
	assert_int_equal(jsonr_next(&r), JSONR_OBJ_END);
	assert_int_equal(jsonr_next(&r), JSONR_END);
	jsonr_release(&r);
}

/* From a file: strings and whitespace that straddle the 256 KiB buffer,
 * and line numbers counted across refills. */
static void
test_jsonr__fd_across_refills(void **state)
{
	char path[] = "/tmp/test-jsonr-XXXXXX";
	size_t big = 700 * 1024, i, end;
	struct jsonr r;
	FILE *f;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs("[\"", f);
	for (i = 0; i < big; i++)
		fputc('a' + (int)(i % 26), f);
	fputs("\",", f);
	for (i = 0; i < 300000; i++)
		fputc(i % 1000 == 0 ? '\n' : ' ', f);
	fputs("\"\\u00e9\", 12345, ", f);
	/* a UTF-8 sequence cut by the end of a buffer (256 KiB) */
	end = ((size_t)ftell(f) / (256 * 1024) + 1) * 256 * 1024;
	for (i = (size_t)ftell(f); i < end - 3; i++)
		fputc(' ', f);
	fputs("\"a\xe2\x82\xac\", x]", f);
	assert_int_equal(fclose(f), 0);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	jsonr_init_fd(&r, fd);
	assert_int_equal(jsonr_next(&r), JSONR_ARR_BEGIN);
	assert_int_equal(jsonr_next(&r), JSONR_STR);
	assert_int_equal(r.str.len, big);
	assert_int_equal(sbuf_str(&r.str)[big - 1],
	    'a' + (int)((big - 1) % 26));
	assert_int_equal(jsonr_next(&r), JSONR_STR);
	assert_string_equal(sbuf_str(&r.str), "\xc3\xa9");
	assert_int_equal(jsonr_next(&r), JSONR_NUM);
	assert_true(r.is_int && r.inum == 12345);
	assert_int_equal(jsonr_next(&r), JSONR_STR);
	assert_string_equal(sbuf_str(&r.str), "a\xe2\x82\xac");
	assert_int_equal(jsonr_next(&r), JSONR_ERROR);
	assert_int_equal(r.err_line, 301);
	assert_string_equal(r.error, "unexpected character");
	jsonr_release(&r);
	close(fd);
	unlink(path);
}

/* A string over the cap is refused, never cut short: just over it, and
 * several MiB over it, from memory and from a file. */
static void
cap_case(size_t n, bool from_file)
{
	char *text = xmalloc(n + 3);
	char path[] = "/tmp/test-jsonr-cap-XXXXXX";
	struct jsonr r;
	int fd = -1;

	text[0] = '"';
	memset(text + 1, 'x', n);
	text[n + 1] = '"';
	text[n + 2] = '\0';
	if (from_file) {
		fd = mkstemp(path);
		assert_true(fd >= 0);
		assert_true(write(fd, text, n + 2) == (ssize_t)(n + 2));
		assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
		jsonr_init_fd(&r, fd);
	} else {
		jsonr_init_mem(&r, text, n + 2);
	}
	if (n <= JSONR_STR_MAX) {
		assert_int_equal(jsonr_next(&r), JSONR_STR);
		assert_int_equal(r.str.len, n);
	} else {
		assert_int_equal(jsonr_next(&r), JSONR_ERROR);
		assert_non_null(strstr(r.error, "string longer than"));
	}
	jsonr_release(&r);
	if (from_file) {
		close(fd);
		unlink(path);
	}
	free(text);
}

static void
test_jsonr__string_cap(void **state)
{
	struct jsonr r;
	int f;

	(void)state;
	for (f = 0; f <= 1; f++) {
		cap_case(JSONR_STR_MAX, f);
		cap_case(JSONR_STR_MAX + 1, f);
		cap_case(JSONR_STR_MAX + 17, f);
		cap_case(3 * JSONR_STR_MAX + 5, f);
	}
	/* a cap of one's own */
	jsonr_init_mem(&r, "[\"abcd\", \"abcde\"]", 17);
	jsonr_set_str_max(&r, 4);
	assert_int_equal(jsonr_next(&r), JSONR_ARR_BEGIN);
	assert_int_equal(jsonr_next(&r), JSONR_STR);
	assert_int_equal(jsonr_next(&r), JSONR_ERROR);
	assert_string_equal(r.error, "string longer than 4 bytes");
	jsonr_release(&r);
}

static void
test_jsonr__bom_and_long_numbers(void **state)
{
	char num[80];

	(void)state;
	expect("\xef\xbb\xbf{\"a\": 1}", "{ K:a I:1 } $");
	expect("\xef\xbb{}", "ERR 1:3 unexpected character");
	expect("{}\xef\xbb\xbf", "{ } ERR 1:3 unexpected data after the value");
	expect("[1e400]", "[ ERR 1:7 number out of range");
	expect("-1e400", "ERR 1:7 number out of range");
	expect("[1e-400]", "[ D:0 ] $");
	memset(num, '1', 70);
	num[70] = '\0';
	expect(num, "ERR 1:64 number longer than 63 characters");
}

struct chunks {
	const char *text;
	size_t at, step;
};

/* Two bytes at a time: every token crosses refills. */
static long
by_two(void *ctx, char *buf, size_t cap)
{
	struct chunks *c = ctx;
	size_t n = strlen(c->text + c->at);

	if (n > c->step)
		n = c->step;
	if (n > cap)
		n = cap;
	memcpy(buf, c->text + c->at, n);
	c->at += n;
	return (long)n;
}

static void
test_jsonr__from_a_function(void **state)
{
	struct chunks c = {"{\"k\": [\"ab\\u00e9\", 12, true]}", 0, 2};
	struct jsonr r;
	char *t;

	(void)state;
	jsonr_init_fn(&r, by_two, &c);
	t = tokens(&r);
	assert_string_equal(t, "{ K:k [ S:ab\xc3\xa9 I:12 T ] } $");
	free(t);
	jsonr_release(&r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_jsonr__from_a_function),
	    cmocka_unit_test(test_jsonr__tokens),
	    cmocka_unit_test(test_jsonr__strings_are_decoded),
	    cmocka_unit_test(test_jsonr__syntax_errors_name_line_and_column),
	    cmocka_unit_test(test_jsonr__strings_must_be_utf8),
	    cmocka_unit_test(test_jsonr__token_position),
	    cmocka_unit_test(test_jsonr__depth_is_bounded),
	    cmocka_unit_test(test_jsonr__skip),
	    cmocka_unit_test(test_jsonr__fd_across_refills),
	    cmocka_unit_test(test_jsonr__string_cap),
	    cmocka_unit_test(test_jsonr__bom_and_long_numbers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
