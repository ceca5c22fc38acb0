/* tests/unit/test-utf8.c: lib/utf8.c: decoding (RFC 3629's invalid forms
 * refused) and the classes of code points refused in names and one-line
 * settings, each range at both ends and its allowed neighbours. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "../../lib/utf8.h"

static void
test_utf8__decode(void **state)
{
	static const struct {
		const char *s;
		size_t n;
		uint32_t cp;
	} ok[] = {
	    {"A", 1, 0x41},
	    {"\xc2\x85", 2, 0x85},
	    {"\xc3\xa9", 2, 0xe9},
	    {"\xe2\x80\xae", 3, 0x202e},
	    {"\xef\xbb\xbf", 3, 0xfeff},
	    {"\xf0\x9f\x98\x80", 4, 0x1f600},
	    {"\xf4\x8f\xbf\xbf", 4, 0x10ffff},
	};
	static const char *const bad[] = {
	    "",                 /* the NUL */
	    "\x80",             /* a lone continuation byte */
	    "\xc0\xaf",         /* overlong '/' */
	    "\xc1\xbf",         /* overlong */
	    "\xe0\x80\xaf",     /* overlong, 3 bytes */
	    "\xed\xa0\x80",     /* a surrogate */
	    "\xf4\x90\x80\x80", /* past U+10FFFF */
	    "\xf5\x80\x80\x80", /* never a lead byte */
	    "\xe2\x80",         /* cut short by the NUL */
	    "\xe2\x41\x80",     /* not a continuation byte */
	};
	uint32_t cp;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		cp = 0;
		assert_int_equal(utf8_decode(ok[i].s, &cp), ok[i].n);
		assert_int_equal(cp, ok[i].cp);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(utf8_decode(bad[i], &cp), 0);
}

/* Every class at the ends of each of its ranges; what lies next to them is
 * allowed. */
static void
test_utf8__name_classes(void **state)
{
	static const struct {
		uint32_t lo, hi;
		const char *why;
	} refused[] = {
	    {0x0000, 0x001f, "a control character"},
	    {0x007f, 0x009f, "a control character"},
	    {0x0020, 0x0020, "whitespace"},
	    {0x00a0, 0x00a0, "whitespace"},
	    {0x1680, 0x1680, "whitespace"},
	    {0x2000, 0x200a, "whitespace"},
	    {0x202f, 0x202f, "whitespace"},
	    {0x205f, 0x205f, "whitespace"},
	    {0x3000, 0x3000, "whitespace"},
	    {0x2028, 0x2029, "a line or paragraph separator"},
	    {0x061c, 0x061c, "a bidirectional control"},
	    {0x200e, 0x200f, "a bidirectional control"},
	    {0x202a, 0x202e, "a bidirectional control"},
	    {0x2066, 0x2069, "a bidirectional control"},
	    {0x00ad, 0x00ad, "an invisible character"},
	    {0x034f, 0x034f, "an invisible character"},
	    {0x115f, 0x1160, "an invisible character"},
	    {0x17b4, 0x17b5, "an invisible character"},
	    {0x180b, 0x180f, "an invisible character"},
	    {0x200b, 0x200d, "an invisible character"},
	    {0x2060, 0x2065, "an invisible character"},
	    {0x206a, 0x206f, "an invisible character"},
	    {0x3164, 0x3164, "an invisible character"},
	    {0xfe00, 0xfe0f, "an invisible character"},
	    {0xfeff, 0xfeff, "an invisible character"},
	    {0xffa0, 0xffa0, "an invisible character"},
	    {0xfff9, 0xfffb, "an invisible character"},
	    {0x1d173, 0x1d17a, "an invisible character"},
	    {0xe0000, 0xe007f, "an invisible character"},
	    {0xe0100, 0xe01ef, "an invisible character"},
	    {0xfdd0, 0xfdef, "a noncharacter"},
	    {0xfffe, 0xffff, "a noncharacter"},
	    {0x1fffe, 0x1ffff, "a noncharacter"},
	    {0x10fffe, 0x10ffff, "a noncharacter"},
	};
	static const uint32_t allowed[] = {'!', 'a', '~', 0x00a1, 0x00ac,
	    0x00ae, 0x00e9, 0x034e, 0x0350, 0x061b, 0x061d, 0x167f, 0x1681,
	    0x180a, 0x1810, 0x1fff, 0x2010, 0x2027, 0x2030, 0x205e, 0x2070,
	    0x2fff, 0x3001, 0x3163, 0x3165, 0xfdcf, 0xfdf0, 0xfdff, 0xfe10,
	    0xfefe, 0xff00, 0xfff8, 0xfffc, 0xfffd, 0x1d172, 0x1d17b, 0x1f600,
	    0xdfffd, 0xe0080, 0xe01f0, 0x10fffd};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		assert_string_equal(utf8_name_problem(refused[i].lo),
		    refused[i].why);
		assert_string_equal(utf8_name_problem(refused[i].hi),
		    refused[i].why);
	}
	for (i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++)
		if (utf8_name_problem(allowed[i]) != NULL)
			fail_msg("U+%04X refused as %s", (unsigned)allowed[i],
			    utf8_name_problem(allowed[i]));
}

/* One-line settings: controls, line breaks and bidi controls only. */
static void
test_utf8__line_classes(void **state)
{
	(void)state;
	assert_string_equal(utf8_line_problem('\n'), "a control character");
	assert_string_equal(utf8_line_problem('\t'), "a control character");
	assert_string_equal(utf8_line_problem(0x85), "a control character");
	assert_string_equal(utf8_line_problem(0x2028),
	    "a line or paragraph separator");
	assert_string_equal(utf8_line_problem(0x202e),
	    "a bidirectional control");
	assert_null(utf8_line_problem(' '));
	assert_null(utf8_line_problem(0xa0));
	assert_null(utf8_line_problem(0x200b));
	assert_null(utf8_line_problem(0xe9));
}

static void
test_utf8__find_and_escape(void **state)
{
	size_t at = 99;
	uint32_t cp = 0;
	char *e;

	(void)state;
	assert_null(utf8_find("caf\xc3\xa9 ok", utf8_line_problem, &at, &cp));
	assert_string_equal(
	    utf8_find("caf\xc3\xa9 ok", utf8_name_problem, &at, &cp),
	    "whitespace");
	assert_int_equal(at, 5);
	assert_int_equal(cp, 0x20);
	assert_string_equal(utf8_find("ab\xe2\x80\xae"
	                              "cd",
	                        utf8_name_problem, &at, &cp),
	    "a bidirectional control");
	assert_int_equal(at, 2);
	assert_int_equal(cp, 0x202e);
	assert_string_equal(
	    utf8_find("ab\xc0\xaf", utf8_name_problem, &at, &cp),
	    "invalid UTF-8");
	assert_int_equal(at, 2);
	assert_int_equal(cp, 0xffffffffu);
	e = utf8_escape("audit\xe2\x80\xae"
	                "sredro\n\xff\xc3\xa9",
	    utf8_name_problem);
	assert_string_equal(e, "audit<U+202E>sredro<U+000A><0xFF>\xc3\xa9");
	free(e);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_utf8__decode),
	    cmocka_unit_test(test_utf8__name_classes),
	    cmocka_unit_test(test_utf8__line_classes),
	    cmocka_unit_test(test_utf8__find_and_escape),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
