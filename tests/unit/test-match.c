/* tests/unit/test-match.c: declarations/match.c: the syntax of an
 * address-settings or security-settings match and what it matches, as
 * Artemis's Match does ('*' one word, '#' any words, last only). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "../../declarations/decl.h"

static void
accepted(const char *m, char delim)
{
	char *why = decl_match_problem(m, delim);

	if (why != NULL)
		print_error("'%s' refused: %s\n", m, why);
	assert_null(why);
}

static void
refused(const char *m, char delim, const char *sub)
{
	char *why = decl_match_problem(m, delim);

	if (why == NULL) {
		fail_msg("'%s' accepted", m);
		return;
	}
	if (strstr(why, sub) == NULL)
		print_error("'%s': '%s' lacks '%s'\n", m, why, sub);
	assert_non_null(strstr(why, sub));
	free(why);
}

static void
test_match__syntax(void **state)
{
	(void)state;
	accepted("#", '.');
	accepted("orders", '.');
	accepted("orders.#", '.');
	accepted("orders.*", '.');
	accepted("*.eu.#", '.');
	accepted("orders.*.eu", '.');
	accepted("orders/#", '/');
	accepted("orders.eu/#", '/'); /* '.' is a letter under '/' */
	refused("orders.#.eu", '.', "'#' before its last word");
	refused("#.orders", '.', "'#' before its last word");
	refused("orders#", '.', "'#' inside a word");
	refused("orders.##", '.', "'#' inside a word");
	refused("ord*.x", '.', "'*' inside a word");
	refused("orders..eu", '.', "an empty word");
	refused(".orders", '.', "an empty word");
	refused("orders.", '.', "an empty word");
	refused("orders/#", '.', "'#' inside a word");
	refused("", '.', "is empty");
	refused("a,b", '.', "contains ','");
	refused("a\xe2\x80\xae"
	        "b",
	    '.', "U+202E");
}

static void
test_match__addresses(void **state)
{
	(void)state;
	assert_true(decl_match_address("#", "orders", '.'));
	assert_true(decl_match_address("#", "a.b.c", '.'));
	assert_true(decl_match_address("orders", "orders", '.'));
	assert_false(decl_match_address("orders", "orders.eu", '.'));
	assert_false(decl_match_address("orders", "order", '.'));
	/* '#' may stand for no word at all */
	assert_true(decl_match_address("orders.#", "orders", '.'));
	assert_true(decl_match_address("orders.#", "orders.eu", '.'));
	assert_true(decl_match_address("orders.#", "orders.eu.x", '.'));
	assert_false(decl_match_address("orders.#", "ordersx", '.'));
	assert_false(decl_match_address("orders.#", "shop.orders", '.'));
	/* '*' is exactly one word */
	assert_true(decl_match_address("orders.*", "orders.eu", '.'));
	assert_false(decl_match_address("orders.*", "orders", '.'));
	assert_false(decl_match_address("orders.*", "orders.eu.x", '.'));
	assert_false(decl_match_address("orders.*", "orders.", '.'));
	assert_true(decl_match_address("*.eu", "orders.eu", '.'));
	assert_true(decl_match_address("*.eu.#", "orders.eu", '.'));
	assert_true(decl_match_address("*.eu.#", "orders.eu.a.b", '.'));
	/* another delimiter: '.' is then an ordinary character */
	assert_true(decl_match_address("orders/*", "orders/eu.x", '/'));
	assert_false(decl_match_address("orders.*", "orders.eu", '/'));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_match__syntax),
	    cmocka_unit_test(test_match__addresses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
