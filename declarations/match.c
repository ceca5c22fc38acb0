/* declarations/match.c: the matches of address-settings and
 * security-settings: their syntax and what they match, as Artemis's
 * Match reads them. A match is words split by the wildcard delimiter;
 * the word '*' is any one word, the word '#' any words (none too), and
 * Artemis refuses '#' anywhere but last (Match.verify). "#" alone matches
 * every address. */
#include "decl-int.h"

#include <stdlib.h>
#include <string.h>

#include "../lib/xalloc.h"

char *
decl_match_problem(const char *match, char delim)
{
	const char *w, *end;
	size_t len;
	char *why;

	why = decl_name_problem(match);
	if (why != NULL)
		return why;
	for (w = match;; w = end + 1) {
		end = strchr(w, delim);
		len = end != NULL ? (size_t)(end - w) : strlen(w);
		if (len == 0)
			return xasprintf("has an empty word (words are split "
			                 "by '%c')",
			    delim);
		if (memchr(w, '#', len) != NULL) {
			if (len != 1)
				return xasprintf("has '#' inside a word ('#' "
				                 "is a word of its own: "
				                 "'orders%c#')",
				    delim);
			if (end != NULL)
				return xstrdup("has '#' before its last word "
				               "(Artemis refuses '#' anywhere "
				               "but last)");
		}
		if (memchr(w, '*', len) != NULL && len != 1)
			return xasprintf("has '*' inside a word ('*' is a "
			                 "word of its own: 'orders%c*')",
			    delim);
		if (end == NULL)
			return NULL;
	}
}

/* The words of m from w against the words of a from p. */
static bool
words_match(const char *m, const char *a, char delim)
{
	const char *me = strchr(m, delim), *ae;
	size_t ml = me != NULL ? (size_t)(me - m) : strlen(m), al;

	if (ml == 1 && m[0] == '#') /* last: the rest, none included */
		return true;
	ae = strchr(a, delim);
	al = ae != NULL ? (size_t)(ae - a) : strlen(a);
	if (ml == 1 && m[0] == '*' ? al == 0
	                           : ml != al || memcmp(m, a, ml) != 0)
		return false;
	if (me == NULL || ae == NULL) {
		/* "orders.#" matches "orders": the '#' word may be none */
		if (me != NULL && ae == NULL)
			return strcmp(me + 1, "#") == 0;
		return me == NULL && ae == NULL;
	}
	return words_match(me + 1, ae + 1, delim);
}

bool
decl_match_address(const char *match, const char *address, char delim)
{
	if (strcmp(match, "#") == 0)
		return true;
	return words_match(match, address, delim);
}
