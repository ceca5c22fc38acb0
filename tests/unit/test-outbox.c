/* tests/unit/test-outbox.c: agent/outbox.c, the daemon's posting
 * folder. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../agent/outbox.h"
#include "../../lib/afile.h"
#include "../../lib/xalloc.h"

static char tmp[64];

static int
setup(void **state)
{
	(void)state;
	snprintf(tmp, sizeof(tmp), "/tmp/test-outbox-XXXXXX");
	return mkdtemp(tmp) == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	char *cmd = xasprintf("rm -rf %s", tmp);
	int r;

	(void)state;
	r = system(cmd);
	free(cmd);
	return r == 0 ? 0 : -1;
}

/* A posted preview: a plan folder with a plan.json. */
static char *
post(const char *outbox, const char *cluster, const char *commit)
{
	struct err err = {0};
	char *dir = NULL;

	assert_int_equal(
	    agent_outbox_new_plan_dir(&dir, outbox, cluster, commit, &err), 0);
	assert_int_equal(agent_outbox_put(dir, "plan.json", "{}\n", &err), 0);
	return dir;
}

static void
test_outbox__plan_ids_are_time_and_commit(void **state)
{
	char *ob = xasprintf("%s/ids", tmp);
	char *a, *b;
	const char *id;

	(void)state;
	a = post(ob, "eu", "0123456789abcdef0123456789abcdef01234567");
	b = post(ob, "eu", "0123456789abcdef0123456789abcdef01234567");
	id = strrchr(a, '/') + 1;
	assert_int_equal(strlen(id), strlen("20261129T201500Z-0123456789ab"));
	assert_int_equal(id[8], 'T');
	assert_int_equal(id[15], 'Z');
	assert_string_equal(id + 16, "-0123456789ab");
	/* the same second and commit: a second folder, never a shared one */
	assert_string_not_equal(a, b);
	assert_true(agent_outbox_has(a, "plan.json"));
	assert_false(agent_outbox_has(a, "approval.json"));
	free(a);
	free(b);
	free(ob);
}

static void
test_outbox__supersede_spares_applied_and_newest(void **state)
{
	char *ob = xasprintf("%s/sup", tmp);
	char *p1, *p2, *p3, *other, *text = NULL, *path;
	struct err err = {0};

	(void)state;
	p1 = post(ob, "eu", "1111111111111111111111111111111111111111");
	p2 = post(ob, "eu", "2222222222222222222222222222222222222222");
	assert_int_equal(agent_outbox_put(p2, "result.json", "{}\n", &err), 0);
	other = post(ob, "us", "4444444444444444444444444444444444444444");
	p3 = post(ob, "eu", "3333333333333333333333333333333333333333");
	assert_int_equal(agent_outbox_supersede_others(ob, "eu", p3,
	                     "superseded by p3\n", &err),
	    1);
	assert_true(agent_outbox_has(p1, "superseded"));
	assert_false(agent_outbox_has(p2, "superseded"));
	assert_false(agent_outbox_has(p3, "superseded"));
	assert_false(agent_outbox_has(other, "superseded"));
	assert_int_equal(
	    agent_outbox_supersede_others(ob, "eu", p3, "again\n", &err), 0);
	path = xasprintf("%s/superseded", p1);
	assert_int_equal(afile_read(&text, NULL, path, 100, &err), 0);
	assert_string_equal(text, "superseded by p3\n");
	free(text);
	free(path);
	free(p1);
	free(p2);
	free(p3);
	free(other);
	free(ob);
}

static void
test_outbox__approved_plans_not_yet_handled(void **state)
{
	char *ob = xasprintf("%s/appr", tmp);
	char *a, *b, *c, *d, **list = NULL;
	size_t n = 0;
	struct err err = {0};

	(void)state;
	assert_int_equal(agent_outbox_list_approved(&list, &n, ob, &err), 0);
	assert_int_equal(n, 0);
	a = post(ob, "eu", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
	b = post(ob, "eu", "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb");
	c = post(ob, "us", "cccccccccccccccccccccccccccccccccccccccc");
	d = post(ob, "us", "dddddddddddddddddddddddddddddddddddddddd");
	assert_int_equal(agent_outbox_put(a, "approval.json", "{}\n", &err), 0);
	assert_int_equal(agent_outbox_put(c, "approval.json", "{}\n", &err), 0);
	assert_int_equal(agent_outbox_put(d, "approval.json", "{}\n", &err), 0);
	assert_int_equal(
	    agent_outbox_put(d, "approval-refused.txt", "x\n", &err), 0);
	assert_int_equal(agent_outbox_list_approved(&list, &n, ob, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(list[0], a);
	assert_string_equal(list[1], c);
	agent_outbox_list_free(list, n);
	assert_int_equal(agent_outbox_put(a, "result.json", "{}\n", &err), 0);
	assert_int_equal(agent_outbox_list_approved(&list, &n, ob, &err), 0);
	assert_int_equal(n, 1);
	assert_string_equal(list[0], c);
	agent_outbox_list_free(list, n);
	free(a);
	free(b);
	free(c);
	free(d);
	free(ob);
}

static void
test_outbox__clusters_and_plans_by_name(void **state)
{
	char *ob = xasprintf("%s/names", tmp);
	char *a, *b, *c, *drift, **list = NULL;
	size_t n = 0;
	struct err err = {0};

	(void)state;
	assert_int_equal(agent_outbox_clusters(&list, &n, ob, &err), 0);
	assert_int_equal(n, 0);
	assert_int_equal(agent_outbox_plans(&list, &n, ob, "eu", &err), 0);
	assert_int_equal(n, 0);
	b = post(ob, "us", "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb");
	a = post(ob, "eu", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
	c = post(ob, "eu", "cccccccccccccccccccccccccccccccccccccccc");
	drift = xasprintf("%s/eu/drift", ob);
	assert_int_equal(afile_mkdirs(drift, 0750, &err), 0);
	assert_int_equal(agent_outbox_put(drift, "plan.json", "{}\n", &err), 0);
	assert_int_equal(agent_outbox_clusters(&list, &n, ob, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(list[0], "eu");
	assert_string_equal(list[1], "us");
	agent_outbox_list_free(list, n);
	assert_int_equal(agent_outbox_plans(&list, &n, ob, "eu", &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(list[0], strrchr(a, '/') + 1);
	assert_string_equal(list[1], strrchr(c, '/') + 1);
	agent_outbox_list_free(list, n);
	free(a);
	free(b);
	free(c);
	free(drift);
	free(ob);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_outbox__plan_ids_are_time_and_commit),
	    cmocka_unit_test(test_outbox__supersede_spares_applied_and_newest),
	    cmocka_unit_test(test_outbox__approved_plans_not_yet_handled),
	    cmocka_unit_test(test_outbox__clusters_and_plans_by_name),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
