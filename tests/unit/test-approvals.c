/* tests/unit/test-approvals.c: agent/daemon/approvals.c: whom the daemon
 * attributes an approval to, and whose it acts on (the owner of
 * approval.json, `approvers:`). Users and groups are the machine's own:
 * root (0), nobody (65534) and its group nogroup (65534), as on Debian. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../agent/daemon/daemon-int.h"
#include "../../lib/xalloc.h"
#include "../../reconcile/apply/apply.h"

#define NOBODY 65534

/* An approval recording uid, in a file owned by owner with nlink links. */
struct fixture {
	struct agent_conf conf;
	struct agent_conf_approver list[2];
	struct apply_approval ap;
	struct stat st;
};

static void
fixture(struct fixture *f, unsigned long uid, const char *user,
    unsigned long owner)
{
	memset(f, 0, sizeof(*f));
	f->conf.path = (char *)(uintptr_t) "agent.yaml";
	f->ap.approved_uid = (int64_t)uid;
	f->ap.approved_user = (char *)(uintptr_t)user;
	f->st.st_uid = (uid_t)owner;
	f->st.st_nlink = 1;
}

/* conf lists name (a user, or "@group") with that id, then maybe more. */
static void
list(struct fixture *f, const char *name, unsigned long id)
{
	struct agent_conf_approver *a = &f->list[f->conf.approvers.n];

	a->name = (char *)(uintptr_t)name;
	a->group = name[0] == '@';
	a->id = id;
	f->conf.approvers.v = f->list;
	f->conf.approvers.n++;
}

/* The check's verdict: NULL when accepted, else its text (owned). */
static char *
verdict(const struct fixture *f, bool own)
{
	struct err err = {0};
	char *msg;

	if (daemon_approval_check(&f->conf, &f->ap, &f->st, own, &err) == 0) {
		assert_null(err.msg);
		return NULL;
	}
	msg = xstrdup(err.msg);
	err_release(&err);
	return msg;
}

#define ACCEPTED(f, own) assert_null(verdict(f, own))
#define REFUSED(f, own, text)                                                  \
	do {                                                                   \
		char *got_ = verdict(f, own);                                  \
		assert_non_null(got_);                                         \
		assert_string_equal(got_, text);                               \
		free(got_);                                                    \
	} while (0)

/* The file must be owned by the uid it records, and be one file. */
static void
test_approvals__owner_must_be_the_recorded_uid(void **unused)
{
	struct fixture f;

	(void)unused;
	fixture(&f, 0, "root", 0);
	ACCEPTED(&f, false);
	fixture(&f, NOBODY, "nobody", NOBODY);
	ACCEPTED(&f, false);
	/* written (or chown'd, or copied) by someone else than it names */
	fixture(&f, 0, "root", NOBODY);
	REFUSED(&f, false,
	    "approval.json is owned by uid 65534 (nobody) but records uid 0 "
	    "(root): it was not written by the user it names, and the agent "
	    "acts only on approvals it can attribute; the approver approves "
	    "again, as themselves");
	/* the daemon's own approvals are checked the same way */
	REFUSED(&f, true,
	    "approval.json is owned by uid 65534 (nobody) but records uid 0 "
	    "(root): it was not written by the user it names, and the agent "
	    "acts only on approvals it can attribute; the approver approves "
	    "again, as themselves");
	/* a hard link to someone's approval elsewhere */
	fixture(&f, 0, "root", 0);
	f.st.st_nlink = 2;
	REFUSED(&f, false,
	    "approval.json (uid 0, root) has 2 hard links: the agent acts only "
	    "on an approval written into this folder; approve again");
	/* a uid without a user name is named by its number */
	fixture(&f, 4000000, "4000000", 3999999);
	REFUSED(&f, false,
	    "approval.json is owned by uid 3999999 (3999999) but records uid "
	    "4000000 (4000000): it was not written by the user it names, and "
	    "the agent acts only on approvals it can attribute; the approver "
	    "approves again, as themselves");
}

/* With approvers: a listed user, or a member of a listed group; the
 * daemon's own approval (auto-apply-creates) needs no listing. */
static void
test_approvals__approvers_users_and_groups(void **unused)
{
	struct fixture f;

	(void)unused;
	fixture(&f, NOBODY, "nobody", NOBODY);
	list(&f, "root", 0);
	REFUSED(&f, false,
	    "uid 65534 (nobody) may not approve: 'approvers' in agent.yaml "
	    "lists root, and nobody is neither one of the users nor a member "
	    "of one of the groups");
	ACCEPTED(&f, true);
	list(&f, "nobody", NOBODY);
	ACCEPTED(&f, false);
	/* nogroup is nobody's (primary) group, not root's */
	fixture(&f, NOBODY, "nobody", NOBODY);
	list(&f, "@nogroup", NOBODY);
	ACCEPTED(&f, false);
	fixture(&f, 0, "root", 0);
	list(&f, "@nogroup", NOBODY);
	REFUSED(&f, false,
	    "uid 0 (root) may not approve: 'approvers' in agent.yaml lists "
	    "@nogroup, and root is neither one of the users nor a member of "
	    "one of the groups");
	list(&f, "@root", 0);
	ACCEPTED(&f, false);
	/* the agent's own approval, found again after a restart (its apply
	 * interrupted): owned by the agent's uid (the test's), named so; the
	 * same name from another uid is anyone's text */
	fixture(&f, 0, "root", 0);
	list(&f, "@nogroup", NOBODY);
	f.ap.approved_by =
	    (char *)(uintptr_t) "artemis-gitops (auto-apply-creates)";
	if (getuid() == 0) {
		ACCEPTED(&f, false);
		f.ap.approved_by = (char *)(uintptr_t) "tester";
		REFUSED(&f, false,
		    "uid 0 (root) may not approve: 'approvers' in agent.yaml "
		    "lists @nogroup, and root is neither one of the users nor a "
		    "member of one of the groups");
	}
	fixture(&f, NOBODY, "nobody", NOBODY);
	list(&f, "root", 0);
	f.ap.approved_by =
	    (char *)(uintptr_t) "artemis-gitops (auto-apply-creates)";
	if (getuid() != NOBODY)
		REFUSED(&f, false,
		    "uid 65534 (nobody) may not approve: 'approvers' in agent.yaml "
		    "lists root, and nobody is neither one of the users nor a "
		    "member of one of the groups");
	/* a uid without a user has no groups */
	fixture(&f, 4000000, "4000000", 4000000);
	list(&f, "@nogroup", NOBODY);
	REFUSED(&f, false,
	    "uid 4000000 (4000000) may not approve: 'approvers' in agent.yaml "
	    "lists @nogroup, and 4000000 is neither one of the users nor a "
	    "member of one of the groups");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_approvals__owner_must_be_the_recorded_uid),
	    cmocka_unit_test(test_approvals__approvers_users_and_groups),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
