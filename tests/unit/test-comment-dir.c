/* tests/unit/test-comment-dir.c: agent/comment-dir.c: the options checked
 * (usage errors), a plan folder's comment bodies written with their
 * manifest, the parts an earlier, larger plan left removed and nothing
 * else, a plan.md changed after it was written refused. */
#include "apply-fixture.h"

#include <sys/stat.h>
#include <unistd.h>

#include "../../agent/comment-dir.h"
#include "../../agent/plan-dir.h"
#include "../../lib/afile.h"
#include "../../lib/xalloc.h"

static char tmp[64];

static int
setup(void **state)
{
	(void)state;
	snprintf(tmp, sizeof(tmp), "/tmp/test-comment-dir-XXXXXX");
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

/* args->opt[0 ..] as the four options, NULL for one not given. */
static int
parse(struct agent_comment_opts *o, const char *limit, const char *max,
    const char *id, const char *url)
{
	struct agent_cmd_args args;

	memset(&args, 0, sizeof(args));
	args.opt[1] = limit;
	args.opt[2] = max;
	args.opt[3] = id;
	args.opt[4] = url;
	return agent_comment_from_args(o, "comment", &args, 1);
}

static void
test_comment_dir__options(void **state)
{
	struct agent_comment_opts o;

	(void)state;
	assert_int_equal(parse(&o, NULL, NULL, NULL, NULL), AGENT_CMD_CONTINUE);
	assert_int_equal(o.limit, 65000);
	assert_int_equal(o.max_comments, 10);
	assert_null(o.marker_id);
	assert_int_equal(
	    parse(&o, "4096", "100", "ci-1", "https://ci.example/r/1?a=(b)"),
	    AGENT_CMD_CONTINUE);
	assert_int_equal(o.limit, 4096);
	assert_string_equal(o.marker_id, "ci-1");
	assert_int_equal(parse(&o, "4095", NULL, NULL, NULL), AGENT_EXIT_USAGE);
	assert_int_equal(parse(&o, "1000001", NULL, NULL, NULL),
	    AGENT_EXIT_USAGE);
	assert_int_equal(parse(&o, "65k", NULL, NULL, NULL), AGENT_EXIT_USAGE);
	assert_int_equal(parse(&o, NULL, "0", NULL, NULL), AGENT_EXIT_USAGE);
	assert_int_equal(parse(&o, NULL, NULL, "", NULL), AGENT_EXIT_USAGE);
	assert_int_equal(parse(&o, NULL, NULL, "a\nb", NULL), AGENT_EXIT_USAGE);
	assert_int_equal(parse(&o, NULL, NULL, NULL, "ftp://x"),
	    AGENT_EXIT_USAGE);
	assert_int_equal(parse(&o, NULL, NULL, NULL, "https://x/a b"),
	    AGENT_EXIT_USAGE);
	assert_int_equal(parse(&o, NULL, NULL, NULL, "https://x/<a>"),
	    AGENT_EXIT_USAGE);
	assert_int_equal(agent_comment_given(&(struct agent_cmd_args){0}, 1),
	    false);
}

static bool
exists(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);
	bool r = access(p, F_OK) == 0;

	free(p);
	return r;
}

static void
touch(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);
	struct err err = {0};

	assert_int_equal(afile_write(p, "old\n", 4, 0644, &err), 0);
	free(p);
}

static void
test_comment_dir__write_and_remove_stale(void **state)
{
	struct agent_comment_opts o = {65000, 10, NULL, NULL};
	char *plan = xasprintf("%s/plan", tmp), *out = xasprintf("%s/c", tmp);
	char *text = NULL, *path;
	struct err err = {0};
	struct scen s;

	(void)state;
	scen_init(&s, false);
	assert_int_equal(agent_plan_dir_write(s.p, plan, NULL, &err), 0);
	assert_int_equal(afile_mkdirs(out, 0755, &err), 0);
	touch(out, "comment-2.md");
	touch(out, "comment-01.md");
	touch(out, "comment-x.md");
	touch(out, "notes.txt");
	assert_int_equal(agent_comment_dir_write(plan, out, &o, &err), 0);
	assert_true(exists(out, "comment-1.md"));
	assert_true(exists(out, "comments.json"));
	assert_false(exists(out, "comment-2.md"));
	assert_false(exists(out, "comment-01.md"));
	assert_true(exists(out, "comment-x.md"));
	assert_true(exists(out, "notes.txt"));
	path = xasprintf("%s/comment-1.md", out);
	assert_int_equal(afile_read(&text, NULL, path, 1 << 20, &err), 0);
	assert_true(strncmp(text,
	                "<!-- artemis-gitops:plan-comment id=artemis-gitops "
	                "cluster=shop-eu part=1/1 digest=",
	                80) == 0);
	free(text);
	free(path);
	/* plan.md edited after it was written: refused, nothing written */
	path = xasprintf("%s/plan.md", plan);
	assert_int_equal(afile_write(path, "# edited\n", 9, 0644, &err), 0);
	assert_int_equal(agent_comment_dir_write(plan, out, &o, &err), -1);
	assert_non_null(strstr(err.msg, "was changed after it was written"));
	err_release(&err);
	free(path);
	scen_free(&s);
	free(plan);
	free(out);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_comment_dir__options),
	    cmocka_unit_test_setup_teardown(
	        test_comment_dir__write_and_remove_stale, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
