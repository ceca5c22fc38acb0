/* tests/unit/test-render-files.c: declarations/render/render-files.c: node
 * names as file names, and which base file a node renders from. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../declarations/render/render-int.h"
#include "../../lib/xalloc.h"

static void
write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void
test_render_files__node_names_as_files(void **state)
{
	(void)state;
	assert_true(render_node_name_ok("broker-a"));
	assert_false(render_node_name_ok(""));
	assert_false(render_node_name_ok("."));
	assert_false(render_node_name_ok(".."));
	assert_false(render_node_name_ok("a/b"));
	assert_true(render_node_name_ok("..a"));
}

static void
test_render_files__base_path_precedence(void **state)
{
	char tmpl[] = "/tmp/test-render-XXXXXX";
	char *dir = mkdtemp(tmpl);
	char *p, *path = NULL;
	struct err err = {0};

	(void)state;
	assert_non_null(dir);
	p = xasprintf("%s/broker", dir);
	assert_int_equal(mkdir(p, 0755), 0);
	free(p);
	p = xasprintf("%s/broker/nodes", dir);
	assert_int_equal(mkdir(p, 0755), 0);
	free(p);

	/* Neither file: the message names both. */
	assert_int_equal(render_base_path(&path, dir, "a", &err), -1);
	p = xasprintf("node 'a': no base broker.xml (looked for "
	              "%s/broker/nodes/a.xml and %s/broker/broker.xml)",
	    dir, dir);
	assert_string_equal(err.msg, p);
	free(p);
	err_release(&err);

	p = xasprintf("%s/broker/broker.xml", dir);
	write_file(p, "<c/>");
	free(p);
	p = xasprintf("%s/broker/nodes/b.xml", dir);
	write_file(p, "<c/>");
	free(p);
	assert_int_equal(render_base_path(&path, dir, "a", &err), 0);
	p = xasprintf("%s/broker/broker.xml", dir);
	assert_string_equal(path, p);
	free(p);
	free(path);
	assert_int_equal(render_base_path(&path, dir, "b", &err), 0);
	p = xasprintf("%s/broker/nodes/b.xml", dir);
	assert_string_equal(path, p);
	free(p);
	free(path);
	assert_int_equal(render_base_path(&path, dir, "..", &err), -1);
	assert_string_equal(err.msg,
	    "node '..': the name cannot be used as a file name");
	err_release(&err);

	p = xasprintf("rm -rf '%s'", dir);
	assert_int_equal(system(p), 0);
	free(p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_render_files__node_names_as_files),
	    cmocka_unit_test(test_render_files__base_path_precedence),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
