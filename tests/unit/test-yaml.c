/* tests/unit/test-yaml.c: declarations/yaml.c: one YAML buffer to a tree,
 * and the guards against hostile input, each refusal at its position. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/xalloc.h"
#include "decl-fixture.h"

static void
test_yaml__bad_input_is_refused_with_position(void **state)
{
	(void)state;
	refuse_one("", 1, 1, "empty file: expected a mapping");
	refuse_one("# only a comment\n", 1, 1, "empty file");
	refuse_one("version: 1\n---\nversion: 1\n", 2, 1,
	    "several YAML documents in one file");
	refuse_one("version: 1\nnodes:\n\t- name: x\n", 3, 1,
	    "tab character where YAML expects indentation");
	refuse_one("version: 1\nversion: 1\n", 2, 1,
	    "duplicate key 'version' (first at line 1, column 1)");
	refuse_one("version: &v 1\n", 1, 10,
	    "anchors and aliases are not supported (found anchor '&v')");
	refuse_one("version: 1\ncluster: [*x]\n", 2, 11,
	    "anchors and aliases are not supported (found alias '*x')");
	refuse_one("version: 1\ncluster: \"a\xff\"\n", 2, 12,
	    "invalid UTF-8 (byte 0xff)");
	refuse_one("version: 1\ncluster: \"\xc3\xa9\xed\xa0\x80\"\n", 2, 12,
	    "invalid UTF-8 (byte 0xed)"); /* a UTF-16 surrogate */
	refuse_one("version: 1\ncluster: \"\xc0\xaf\"\n", 2, 11,
	    "invalid UTF-8 (byte 0xc0)"); /* overlong '/' */
	refuse_one("version: 1\ncluster: !!str c1\n", 2, 10,
	    "YAML tags are not supported");
	refuse_one("version: 1\n{a: 1}: 2\n", 2, 1,
	    "mapping keys must be scalars, not a mapping");
	refuse_one("version: 1\naddresses: [\n", 3, 1, "invalid YAML: ");
}

static void
test_yaml__alias_bomb_is_refused_at_the_first_anchor(void **state)
{
	char *s, *prev;
	int i;

	(void)state;
	s = xstrdup("version: 1\na0: &a0 [x, x, x, x, x, x, x, x, x]\n");
	for (i = 1; i < 10; i++) {
		prev = s;
		s = xasprintf(
		    "%sa%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, "
		    "*a%d, *a%d, *a%d]\n",
		    prev, i, i, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1,
		    i - 1, i - 1);
		free(prev);
	}
	refuse_one(s, 2, 5, "found anchor '&a0'");
	free(s);
}

static void
test_yaml__file_over_the_cap_is_refused(void **state)
{
	char *big = xmalloc(DECL_FILE_MAX + 2);

	(void)state;
	memset(big, '#', DECL_FILE_MAX + 1);
	big[DECL_FILE_MAX + 1] = '\0';
	refuse_one(big, 1, 1,
	    "file is 1048577 bytes, over the limit of 1048576 bytes");
	free(big);
}

static void
test_yaml__deep_nesting_is_refused(void **state)
{
	(void)state;
	refuse_one("version: 1\ncluster: "
	           "[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]\n",
	    2, 25, "nesting deeper than 16 levels");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_yaml__bad_input_is_refused_with_position),
	    cmocka_unit_test(
	        test_yaml__alias_bomb_is_refused_at_the_first_anchor),
	    cmocka_unit_test(test_yaml__file_over_the_cap_is_refused),
	    cmocka_unit_test(test_yaml__deep_nesting_is_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
