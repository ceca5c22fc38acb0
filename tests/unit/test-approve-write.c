/* tests/unit/test-approve-write.c: agent/approve-write.c: approval.json
 * for a loaded plan folder, and the user name of a uid. */
#include "apply-fixture.h"

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../agent/approve-write.h"
#include "../../agent/plan-dir.h"
#include "../../lib/afile.h"
#include "../../lib/xalloc.h"

static void
test_approve_write__user_name(void **state)
{
	struct passwd *pw = getpwuid(0);
	char *s;

	(void)state;
	s = agent_user_name(0);
	assert_string_equal(s, pw != NULL ? pw->pw_name : "0");
	free(s);
	/* a uid without a name: its number */
	s = agent_user_name((uid_t)4000000001u);
	assert_string_equal(s, "4000000001");
	free(s);
}

static void
test_approve_write__approval_bound_to_the_digest(void **state)
{
	char tmp[64] = "/tmp/test-approve-write-XXXXXX";
	struct agent_plan_dir ap = {0};
	struct apply_approval a = {0}, b = {0};
	struct err err = {0};
	struct stat st;
	struct scen s;
	char *dir, *path, *text = NULL, *cmd, *c;
	size_t len = 0;

	(void)state;
	assert_non_null(mkdtemp(tmp));
	dir = xasprintf("%s/p1", tmp);
	scen_init(&s, false);
	assert_int_equal(agent_plan_dir_write(s.p, dir, NULL, &err), 0);
	c = plan_confirmation(s.p);
	scen_free(&s);
	assert_int_equal(agent_plan_dir_load(&ap, dir, &err), 0);
	assert_int_equal(
	    agent_approve_write(&ap, c, "carol", NULL, false, 0644, &a, &err),
	    0);
	assert_string_equal(a.approved_by, "carol");
	assert_null(a.via);
	assert_string_equal(a.plan_digest, ap.digest);
	path = xasprintf("%s/approval.json", dir);
	assert_int_equal(
	    afile_read_nofollow(&text, &len, &st, path, 1 << 20, &err), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	assert_null(strstr(text, "\"via\""));
	assert_int_equal(apply_approval_parse(&b, path, text, len, &err), 0);
	assert_string_equal(b.confirmation, c);
	assert_string_equal(b.approved_at, a.approved_at);
	assert_int_equal(b.approved_uid, (int64_t)getuid());
	apply_approval_release(&a);
	apply_approval_release(&b);
	free(text);
	/* by the web server: via http, and what it asked for */
	assert_int_equal(
	    agent_approve_write(&ap, c, "tok", "http", false, 0640, NULL, &err),
	    0);
	assert_int_equal(
	    afile_read_nofollow(&text, &len, &st, path, 1 << 20, &err), 0);
	assert_int_equal(st.st_mode & 0777, 0640);
	assert_int_equal(apply_approval_parse(&b, path, text, len, &err), 0);
	assert_string_equal(b.via, "http");
	assert_string_equal(b.approved_by, "tok");
	apply_approval_release(&b);
	free(text);
	free(path);
	free(c);
	agent_plan_dir_release(&ap);
	free(dir);
	cmd = xasprintf("rm -rf %s", tmp);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_approve_write__user_name),
	    cmocka_unit_test(test_approve_write__approval_bound_to_the_digest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
