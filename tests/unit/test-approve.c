/* tests/unit/test-approve.c: agent/web/approve.c: an approval from the
 * web, with the checks of `artemis-gitops approve` and their statuses;
 * two approvers racing. */
#include "apply-fixture.h"

#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../agent/approve-write.h"
#include "../../agent/inventory.h"
#include "../../agent/outbox.h"
#include "../../agent/plan-dir.h"
#include "../../agent/web/web-int.h"
#include "../../lib/afile.h"
#include "../../lib/xalloc.h"

static char tmp[64];

static int
setup(void **state)
{
	(void)state;
	snprintf(tmp, sizeof(tmp), "/tmp/test-approve-XXXXXX");
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

static void
put(const char *dir, const char *name, const char *text)
{
	struct err err = {0};

	assert_int_equal(afile_mkdirs(dir, 0750, &err), 0);
	assert_int_equal(agent_outbox_put(dir, name, text, &err), 0);
}

/* The scenario's plan (against inventory rev1 of shop-eu) as
 * OUTBOX/shop-eu/id, with outcome; *confirm its confirmation text. */
static char *
post(const char *outbox, const char *id, enum plan_outcome outcome,
    char **confirm)
{
	struct scen s;
	struct err err = {0};
	char *dir = xasprintf("%s/shop-eu/%s", outbox, id);

	scen_init(&s, false);
	*confirm = plan_confirmation(s.p);
	s.p->outcome = outcome;
	if (outcome == PLAN_OUT_REFUSED) {
		s.p->refusal = xstrdup("BULK_CAP");
		s.p->message = xstrdup("too many messages");
	}
	assert_int_equal(agent_plan_dir_write(s.p, dir, NULL, &err), 0);
	scen_free(&s);
	return dir;
}

/* STATE/shop-eu/inventory.json at revision rev. */
static void
inventory(const char *state_dir, const char *rev)
{
	struct plan_managed m = {0};
	struct scen s;
	char *dir = xasprintf("%s/shop-eu", state_dir), *text;

	scen_init(&s, false);
	plan_managed_from_decl(&m, &s.f.c, "inventory", rev);
	text = plan_inventory_render(&m, "shop-eu");
	put(dir, AGENT_INVENTORY_FILE, text);
	free(text);
	free(dir);
	plan_managed_release(&m);
	scen_free(&s);
}

static bool
has(const char *dir, const char *name)
{
	return agent_outbox_has(dir, name);
}

static struct web_who approver = {WEB_APPROVER, "alice-token", false, ""};
static struct web_who viewer = {WEB_VIEWER, "bob-token", false, ""};

static void
expect(int status, int want, struct sbuf *msg, const char *part)
{
	if (status != want || strstr(sbuf_str(msg), part) == NULL)
		fail_msg("status %d (want %d): %s (want \"%s\")", status, want,
		    sbuf_str(msg), part);
	sbuf_release(msg);
}

static void
test_approve__checks_and_statuses(void **state)
{
	struct web_view v = {0};
	struct sbuf msg = {0};
	struct apply_approval a = {0};
	struct err err = {0};
	struct stat st;
	char *ob = xasprintf("%s/ob", tmp), *sd = xasprintf("%s/state", tmp);
	char *d, *c, *path, *text = NULL, *c2;
	size_t len = 0;
	const char *id = "20261201T000000Z-000000000000";

	(void)state;
	v.outbox = ob;
	v.state = sd;
	inventory(sd, "rev1");
	d = post(ob, id, PLAN_OUT_WOULD_APPLY, &c);

	expect(web_approve(&v, "shop-eu", id, c, false, &viewer, &msg), 403,
	    &msg, "approver");
	expect(web_approve(&v, "shop-eu", id, c, false, NULL, &msg), 403, &msg,
	    "approver");
	expect(web_approve(&v, "shop-eu", id, "delete 1 queue", false,
	           &approver, &msg),
	    422, &msg, "the confirmation text does not match");
	expect(web_approve(&v, "shop-eu", id, "", false, &approver, &msg), 422,
	    &msg, "empty");
	expect(
	    web_approve(&v, "shop-eu", "2026-nope", c, false, &approver, &msg),
	    404, &msg, "no such preview");
	expect(web_approve(&v, "shop-eu", "../shop-eu/x", c, false, &approver,
	           &msg),
	    404, &msg, "no such preview");
	expect(web_approve(&v, "..", id, c, false, &approver, &msg), 404, &msg,
	    "no such preview");
	expect(web_approve(&v, "shop-eu", "drift", c, false, &approver, &msg),
	    404, &msg, "no such preview");
	assert_false(has(d, AGENT_OUTBOX_APPROVAL));

	/* the inventory moved on since the plan: superseded */
	inventory(sd, "rev9");
	expect(web_approve(&v, "shop-eu", id, c, false, &approver, &msg), 409,
	    &msg, "superseded");
	assert_false(has(d, AGENT_OUTBOX_APPROVAL));
	inventory(sd, "rev1");

	/* plan.md edited */
	path = xasprintf("%s/plan.md", d);
	assert_int_equal(afile_read(&text, &len, path, 1 << 24, &err), 0);
	put(d, "plan.md", "# edited\n");
	expect(web_approve(&v, "shop-eu", id, c, false, &approver, &msg), 422,
	    &msg, "plan.md");
	assert_int_equal(afile_write(path, text, len, 0640, &err), 0);
	free(text);
	free(path);
	assert_false(has(d, AGENT_OUTBOX_APPROVAL));

	/* right: approval.json names the token, via http, the daemon's uid */
	expect(web_approve(&v, "shop-eu", id, c, false, &approver, &msg), 200,
	    &msg, "approved by alice-token");
	path = xasprintf("%s/%s", d, AGENT_OUTBOX_APPROVAL);
	assert_int_equal(
	    afile_read_nofollow(&text, &len, &st, path, 1 << 20, &err), 0);
	assert_int_equal(st.st_mode & 0777, 0640);
	assert_int_equal(st.st_uid, getuid());
	assert_int_equal(apply_approval_parse(&a, path, text, len, &err), 0);
	assert_string_equal(a.approved_by, "alice-token");
	assert_string_equal(a.via, "http");
	assert_string_equal(a.confirmation, c);
	assert_false(a.override_window);
	assert_int_equal(a.approved_uid, (int64_t)getuid());
	c2 = agent_user_name(getuid());
	assert_string_equal(a.approved_user, c2);
	free(c2);
	apply_approval_release(&a);
	free(text);
	free(path);
	/* never twice */
	expect(web_approve(&v, "shop-eu", id, c, false, &approver, &msg), 409,
	    &msg, "already approved");
	put(d, AGENT_OUTBOX_REFUSED, "no\n");
	expect(web_approve(&v, "shop-eu", id, c, false, &approver, &msg), 409,
	    &msg, "refused");
	put(d, AGENT_OUTBOX_RESULT, "{}\n");
	expect(web_approve(&v, "shop-eu", id, c, false, &approver, &msg), 409,
	    &msg, "already applied");
	free(d);
	free(c);

	d = post(ob, "20261201T000001Z-1", PLAN_OUT_WOULD_APPLY, &c);
	put(d, AGENT_OUTBOX_SUPERSEDED, "newer\n");
	expect(web_approve(&v, "shop-eu", "20261201T000001Z-1", c, false,
	           &approver, &msg),
	    409, &msg, "superseded");
	free(d);
	free(c);
	d = post(ob, "20261201T000002Z-2", PLAN_OUT_REFUSED, &c);
	expect(web_approve(&v, "shop-eu", "20261201T000002Z-2", c, false,
	           &approver, &msg),
	    422, &msg, "the plan is refused (BULK_CAP");
	assert_false(has(d, AGENT_OUTBOX_APPROVAL));
	free(d);
	free(c);
	d = post(ob, "20261201T000003Z-3", PLAN_OUT_NO_CHANGE, &c);
	expect(web_approve(&v, "shop-eu", "20261201T000003Z-3", c, false,
	           &approver, &msg),
	    422, &msg, "no changes");
	assert_false(has(d, AGENT_OUTBOX_APPROVAL));
	free(d);
	free(c);
	/* the window override (the page's checkbox, the API's
	 * override_window): written as `approve --override-window` writes it,
	 * by the token's name */
	d = post(ob, "20261201T000005Z-5", PLAN_OUT_WOULD_APPLY, &c);
	expect(web_approve(&v, "shop-eu", "20261201T000005Z-5", c, true,
	           &approver, &msg),
	    200, &msg, "overrides the cluster's sync window");
	path = xasprintf("%s/%s", d, AGENT_OUTBOX_APPROVAL);
	assert_int_equal(
	    afile_read_nofollow(&text, &len, &st, path, 1 << 20, &err), 0);
	assert_int_equal(apply_approval_parse(&a, path, text, len, &err), 0);
	assert_true(a.override_window);
	assert_string_equal(a.approved_by, "alice-token");
	assert_string_equal(a.via, "http");
	assert_non_null(strstr(text, "\"override_window\": true"));
	apply_approval_release(&a);
	free(text);
	free(path);
	free(d);
	free(c);
	/* a viewer cannot override either */
	d = post(ob, "20261201T000006Z-6", PLAN_OUT_WOULD_APPLY, &c);
	expect(web_approve(&v, "shop-eu", "20261201T000006Z-6", c, true,
	           &viewer, &msg),
	    403, &msg, "approver");
	assert_false(has(d, AGENT_OUTBOX_APPROVAL));
	free(d);
	free(c);
	/* plan.json edited by hand */
	d = post(ob, "20261201T000004Z-4", PLAN_OUT_WOULD_APPLY, &c);
	put(d, "plan.json", "{\"kind\": \"plan\"}\n");
	expect(web_approve(&v, "shop-eu", "20261201T000004Z-4", c, false,
	           &approver, &msg),
	    422, &msg, "plan.json");
	assert_false(has(d, AGENT_OUTBOX_APPROVAL));
	free(d);
	free(c);
	free(ob);
	free(sd);
}

struct racer {
	const struct web_view *v;
	const char *id, *confirm;
	struct web_who who;
	int status;
};

static void *
race(void *arg)
{
	struct racer *r = arg;
	struct sbuf msg = {0};

	r->status = web_approve(r->v, "shop-eu", r->id, r->confirm, false,
	    &r->who, &msg);
	sbuf_release(&msg);
	return NULL;
}

static void
test_approve__two_approvers_racing(void **state)
{
	struct web_view v = {0};
	struct racer r[8];
	pthread_t t[8];
	char *ob = xasprintf("%s/race", tmp), *sd = xasprintf("%s/rs", tmp);
	char *d, *c, id[64];
	int round, i, won, lost;

	(void)state;
	v.outbox = ob;
	v.state = sd;
	inventory(sd, "rev1");
	for (round = 0; round < 5; round++) {
		snprintf(id, sizeof(id), "20261201T00000%dZ-race", round);
		d = post(ob, id, PLAN_OUT_WOULD_APPLY, &c);
		for (i = 0; i < 8; i++) {
			r[i].v = &v;
			r[i].id = id;
			r[i].confirm = c;
			r[i].who = approver;
			snprintf(r[i].who.name, sizeof(r[i].who.name), "a%d",
			    i);
			assert_int_equal(
			    pthread_create(&t[i], NULL, race, &r[i]), 0);
		}
		won = lost = 0;
		for (i = 0; i < 8; i++) {
			pthread_join(t[i], NULL);
			won += r[i].status == 200;
			lost += r[i].status == 409;
		}
		assert_int_equal(won, 1);
		assert_int_equal(lost, 7);
		free(d);
		free(c);
	}
	free(ob);
	free(sd);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_approve__checks_and_statuses),
	    cmocka_unit_test(test_approve__two_approvers_racing),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
