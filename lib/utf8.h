/* lib/utf8.h: decoding UTF-8 and telling which code points must not appear
 * in a name or a one-line setting.
 *
 * A name (an address, queue or divert of a declaration) is shown in plan.md,
 * in logs and to the broker; a character that is not seen, that reorders
 * what follows, or that breaks a line lets two names look alike or a name
 * pass for another ("audit<U+202E>sredro" shows as "auditorders"). These are
 * refused (utf8_name_problem), each class for its reason:
 *
 *   control      C0 U+0000-U+001F, DEL U+007F, C1 U+0080-U+009F (U+0085
 *                NEXT LINE among them): terminal and log control
 *   whitespace   U+0020, U+00A0, U+1680, U+2000-U+200A, U+202F, U+205F,
 *                U+3000: the documented "no whitespace"
 *   line break   U+2028 LINE SEPARATOR, U+2029 PARAGRAPH SEPARATOR: break
 *                a log line or a Markdown table row where shown
 *   bidi         U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069:
 *                reorder the text around them (a right-to-left override
 *                disguises a name)
 *   invisible    U+00AD, U+034F, U+115F, U+1160, U+17B4, U+17B5,
 *                U+180B-U+180F, U+200B-U+200D, U+2060-U+2065,
 *                U+206A-U+206F, U+3164, U+FE00-U+FE0F, U+FEFF, U+FFA0,
 *                U+FFF9-U+FFFB, U+1D173-U+1D17A, U+E0000-U+E007F (tags),
 *                U+E0100-U+E01EF: zero-width, joiners, fillers, variation
 *                selectors and format characters, shown as nothing
 *   noncharacter U+FDD0-U+FDEF and U+xFFFE, U+xFFFF of every plane
 *
 * Letters, digits, punctuation and symbols of any script stay allowed:
 * the check is of what cannot be seen, not of what is foreign. A one-line
 * setting (utf8_line_problem) refuses the control, line-break and bidi
 * classes only.
 */
#ifndef LIB_UTF8_H
#define LIB_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* The code point at s (NUL-terminated) into *cp and its length in bytes,
 * 1 to 4; 0 when s does not start with a valid sequence (RFC 3629:
 * overlong forms, surrogates and values past U+10FFFF are invalid) or
 * starts with the NUL. */
size_t utf8_decode(const char *s, uint32_t *cp);

/* Why cp may not be in a name: "a control character", "whitespace", "a
 * line or paragraph separator", "a bidirectional control", "an invisible
 * character", "a noncharacter"; NULL when it may. Static. */
const char *utf8_name_problem(uint32_t cp);

/* Why cp may not be in a one-line setting (a URL, a path, a branch): the
 * control, line-break and bidi classes of utf8_name_problem; else NULL. */
const char *utf8_line_problem(uint32_t cp);

/* The first code point of s that problem (utf8_name_problem or
 * utf8_line_problem) refuses, or of an invalid sequence: its byte offset
 * in *at, the code point in *cp (0xFFFFFFFF for an invalid sequence) and
 * the reason ("invalid UTF-8" for one). NULL when s has none. */
const char *utf8_find(const char *s, const char *(*problem)(uint32_t),
    size_t *at, uint32_t *cp);

/* s with every code point problem refuses written as <U+XXXX> (and an
 * invalid byte as <0xNN>), for echoing a refused value safely. Owned. */
char *utf8_escape(const char *s, const char *(*problem)(uint32_t));

#endif
