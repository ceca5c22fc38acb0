/* lib/utf8.c: see utf8.h. */
#include "utf8.h"

#include <stdbool.h>

#include "sbuf.h"

size_t
utf8_decode(const char *str, uint32_t *cp)
{
	const unsigned char *s = (const unsigned char *)str;
	uint32_t c, min;
	size_t n, i;

	if (s[0] < 0x80) {
		*cp = s[0];
		return s[0] != 0 ? 1 : 0;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		c = s[0] & 0x1fu;
		min = 0x80;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		c = s[0] & 0x0fu;
		min = 0x800;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		c = s[0] & 0x07u;
		min = 0x10000;
	} else {
		return 0; /* a continuation byte, 0xc0, 0xc1, 0xf5.. */
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0; /* also stops at the NUL */
		c = (c << 6) | (s[i] & 0x3fu);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

struct range {
	uint32_t lo, hi;
};

static bool
in(const struct range *r, size_t n, uint32_t cp)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (cp >= r[i].lo && cp <= r[i].hi)
			return true;
	return false;
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct range controls[] = {{0x0000, 0x001f}, {0x007f, 0x009f}};
static const struct range spaces[] = {{0x0020, 0x0020}, {0x00a0, 0x00a0},
    {0x1680, 0x1680}, {0x2000, 0x200a}, {0x202f, 0x202f}, {0x205f, 0x205f},
    {0x3000, 0x3000}};
static const struct range breaks[] = {{0x2028, 0x2029}};
static const struct range bidi[] = {{0x061c, 0x061c}, {0x200e, 0x200f},
    {0x202a, 0x202e}, {0x2066, 0x2069}};
static const struct range invisible[] = {{0x00ad, 0x00ad}, {0x034f, 0x034f},
    {0x115f, 0x1160}, {0x17b4, 0x17b5}, {0x180b, 0x180f}, {0x200b, 0x200d},
    {0x2060, 0x2065}, {0x206a, 0x206f}, {0x3164, 0x3164}, {0xfe00, 0xfe0f},
    {0xfeff, 0xfeff}, {0xffa0, 0xffa0}, {0xfff9, 0xfffb}, {0x1d173, 0x1d17a},
    {0xe0000, 0xe007f}, {0xe0100, 0xe01ef}};

const char *
utf8_line_problem(uint32_t cp)
{
	if (in(controls, N(controls), cp))
		return "a control character";
	if (in(breaks, N(breaks), cp))
		return "a line or paragraph separator";
	if (in(bidi, N(bidi), cp))
		return "a bidirectional control";
	return NULL;
}

const char *
utf8_name_problem(uint32_t cp)
{
	const char *why = utf8_line_problem(cp);

	if (why != NULL)
		return why;
	if (in(spaces, N(spaces), cp))
		return "whitespace";
	if (in(invisible, N(invisible), cp))
		return "an invisible character";
	if ((cp >= 0xfdd0 && cp <= 0xfdef) || (cp & 0xfffe) == 0xfffe)
		return "a noncharacter";
	return NULL;
}

const char *
utf8_find(const char *s, const char *(*problem)(uint32_t), size_t *at,
    uint32_t *cp)
{
	const char *why;
	size_t i = 0, n;
	uint32_t c;

	while (s[i] != '\0') {
		n = utf8_decode(s + i, &c);
		if (n == 0) {
			*at = i;
			*cp = 0xffffffffu;
			return "invalid UTF-8";
		}
		why = problem(c);
		if (why != NULL) {
			*at = i;
			*cp = c;
			return why;
		}
		i += n;
	}
	return NULL;
}

char *
utf8_escape(const char *s, const char *(*problem)(uint32_t))
{
	struct sbuf b = {0};
	size_t i = 0, n;
	uint32_t c;

	while (s[i] != '\0') {
		n = utf8_decode(s + i, &c);
		if (n == 0) {
			sbuf_addf(&b, "<0x%02X>", (unsigned char)s[i]);
			i++;
			continue;
		}
		if (problem(c) != NULL)
			sbuf_addf(&b, "<U+%04X>", (unsigned)c);
		else
			sbuf_add(&b, s + i, n);
		i += n;
	}
	return sbuf_take(&b);
}
