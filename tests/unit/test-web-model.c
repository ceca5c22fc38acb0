/* tests/unit/test-web-model.c: agent/web/web-model.c: previews of a
 * temporary outbox and their states, a preview's files, ids, the applied
 * revision and the audit log paged. */
#include "apply-fixture.h"

#include <sys/stat.h>
#include <unistd.h>

#include "../../agent/approve-write.h"
#include "../../agent/inventory.h"
#include "../../agent/outbox.h"
#include "../../agent/plan-dir.h"
#include "../../agent/state.h"
#include "../../agent/web/web-int.h"
#include "../../lib/afile.h"
#include "../../lib/xalloc.h"

static char tmp[64];

static int
setup(void **state)
{
	(void)state;
	snprintf(tmp, sizeof(tmp), "/tmp/test-web-model-XXXXXX");
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

/* put into base/sub */
static void
put_in(const char *base, const char *sub, const char *name, const char *text)
{
	char *dir = xasprintf("%s/%s", base, sub);

	put(dir, name, text);
	free(dir);
}

static void
mkdir_in(const char *base, const char *sub)
{
	char *dir = xasprintf("%s/%s", base, sub);

	assert_int_equal(mkdir(dir, 0750), 0);
	free(dir);
}

/* OUTBOX/shop-eu/id holding the scenario's plan, its outcome changed to
 * outcome (WOULD_APPLY as built); the folder's path, owned. */
static char *
post(const char *outbox, const char *id, enum plan_outcome outcome)
{
	struct scen s;
	struct err err = {0};
	char *dir = xasprintf("%s/shop-eu/%s", outbox, id);

	scen_init(&s, false);
	s.p->outcome = outcome;
	if (outcome == PLAN_OUT_REFUSED) {
		s.p->refusal = xstrdup("BULK_CAP");
		s.p->message = xstrdup("too many messages");
	}
	assert_int_equal(agent_plan_dir_write(s.p, dir, NULL, &err), 0);
	put(dir, AGENT_OUTBOX_COMMIT,
	    "commit 0123456789abcdef\nbranch main\nfolder clusters/shop-eu\n");
	scen_free(&s);
	return dir;
}

static void
test_web_model__ids(void **state)
{
	char big[200];

	(void)state;
	assert_true(web_id_ok("20261129T201500Z-0123456789ab"));
	assert_true(web_id_ok("shop-eu"));
	assert_true(web_id_ok("a.b_c-1"));
	assert_true(web_id_ok("drift"));
	assert_false(web_id_ok(NULL));
	assert_false(web_id_ok(""));
	assert_false(web_id_ok("."));
	assert_false(web_id_ok(".."));
	assert_false(web_id_ok(".hidden"));
	assert_false(web_id_ok("a..b"));
	assert_false(web_id_ok("../etc"));
	assert_false(web_id_ok("a/b"));
	assert_false(web_id_ok("/etc"));
	assert_false(web_id_ok("a%2fb"));
	assert_false(web_id_ok("a b"));
	assert_false(web_id_ok("a\\b"));
	assert_false(web_id_ok("\xc3\xa9t\xc3\xa9"));
	memset(big, 'a', sizeof(big));
	big[128] = '\0';
	assert_true(web_id_ok(big));
	big[128] = 'a';
	big[129] = '\0';
	assert_false(web_id_ok(big));
	assert_string_equal(web_preview_state_name(WEB_PENDING), "pending");
	assert_string_equal(web_preview_state_name(WEB_NOTHING), "nothing");
	assert_string_equal(web_preview_state_name(WEB_SUPERSEDED),
	    "superseded");
}

static void
test_web_model__states(void **state)
{
	struct web_view v = {0};
	struct web_preview *pv = NULL, one = {0};
	struct agent_plan_dir ap = {0};
	struct err err = {0};
	char *ob = xasprintf("%s/states", tmp), *d[8], *want, *edit, *text, *at;
	size_t n = 0, i;

	(void)state;
	v.outbox = ob;
	/* no outbox yet: nothing, no error */
	assert_int_equal(web_model_previews(&v, NULL, SIZE_MAX, &pv, &n, &err),
	    0);
	assert_int_equal(n, 0);
	d[0] = post(ob, "20261201T000000Z-000000000000", PLAN_OUT_WOULD_APPLY);
	d[1] = post(ob, "20261201T000001Z-111111111111", PLAN_OUT_WOULD_APPLY);
	d[2] = post(ob, "20261201T000002Z-222222222222", PLAN_OUT_WOULD_APPLY);
	d[3] = post(ob, "20261201T000003Z-333333333333", PLAN_OUT_WOULD_APPLY);
	d[4] = post(ob, "20261201T000004Z-444444444444", PLAN_OUT_WOULD_APPLY);
	d[5] = post(ob, "20261201T000005Z-555555555555", PLAN_OUT_REFUSED);
	d[6] = post(ob, "20261201T000006Z-666666666666", PLAN_OUT_NO_CHANGE);
	d[7] = post(ob, "20261201T000007Z-777777777777", PLAN_OUT_WOULD_APPLY);
	/* an operator's delete-queue: no commit.txt, request.txt says */
	edit = xasprintf("%s/%s", d[5], AGENT_OUTBOX_COMMIT);
	assert_int_equal(unlink(edit), 0);
	free(edit);
	put(d[5], AGENT_OUTBOX_REQUEST,
	    "delete-queue q\nrequested-by alice\nvia http\ncommit feedface\n");
	put(d[0], AGENT_OUTBOX_SUPERSEDED, "20261201T000007Z-777777777777\n");
	put(d[1], AGENT_OUTBOX_RESULT, "{\"result\": \"APPLIED\"}\n");
	put(d[2], AGENT_OUTBOX_REFUSED, "uid 1 may not approve\n");
	assert_int_equal(agent_plan_dir_load(&ap, d[3], &err), 0);
	want = plan_confirmation(ap.plan);
	assert_int_equal(agent_approve_write(&ap, want, "alice",
	                     APPLY_APPROVAL_VIA_HTTP, false, 0640, NULL, &err),
	    0);
	agent_plan_dir_release(&ap);
	free(want);
	/* not previews: the drift report, a hidden folder, a folder without
	 * a plan.json, a cluster name the web cannot show */
	put_in(ob, "shop-eu/drift", "drift.json", "{}\n");
	mkdir_in(ob, "shop-eu/empty");
	mkdir_in(ob, "shop-eu/.tmp");
	mkdir_in(ob, "bad name");
	put_in(ob, "bad name/20261201T000009Z-9", "plan.json", "{}\n");

	assert_int_equal(web_model_previews(&v, NULL, SIZE_MAX, &pv, &n, &err),
	    0);
	assert_int_equal(n, 8);
	/* newest first */
	assert_string_equal(pv[0].id, "20261201T000007Z-777777777777");
	assert_string_equal(pv[7].id, "20261201T000000Z-000000000000");
	assert_int_equal(pv[0].state, WEB_PENDING);
	assert_string_equal(pv[0].cluster, "shop-eu");
	assert_string_equal(pv[0].outcome, "WOULD_APPLY");
	assert_string_equal(pv[0].summary, "delete 1 queue, 1 divert");
	assert_string_equal(pv[0].commit, "0123456789abcdef");
	assert_non_null(pv[0].confirmation);
	assert_true(strncmp(pv[0].confirmation,
	                "delete 1 queue, 1 divert on shop-eu ", 36) == 0);
	assert_null(pv[0].refused_why);
	assert_int_equal(pv[1].state, WEB_NOTHING);
	assert_null(pv[1].confirmation);
	assert_int_equal(pv[2].state, WEB_REFUSED);
	assert_string_equal(pv[2].outcome, "REFUSED");
	assert_string_equal(pv[2].refused_why, "BULK_CAP: too many messages");
	assert_string_equal(pv[2].commit, "feedface");
	assert_null(pv[2].confirmation);
	assert_int_equal(pv[3].state, WEB_PENDING);
	assert_int_equal(pv[4].state, WEB_APPROVED);
	assert_string_equal(pv[4].approved_by, "alice");
	assert_null(pv[4].confirmation);
	assert_int_equal(pv[5].state, WEB_REFUSED);
	assert_string_equal(pv[5].refused_why, "uid 1 may not approve\n");
	assert_int_equal(pv[6].state, WEB_APPLIED);
	assert_string_equal(pv[6].result, "APPLIED");
	assert_int_equal(pv[7].state, WEB_SUPERSEDED);
	for (i = 0; i < n; i++)
		assert_non_null(strstr(pv[i].dir, pv[i].id));
	web_model_previews_free(pv, n);

	/* at most max, of one cluster */
	assert_int_equal(web_model_previews(&v, "shop-eu", 2, &pv, &n, &err),
	    0);
	assert_int_equal(n, 2);
	assert_string_equal(pv[1].id, "20261201T000006Z-666666666666");
	web_model_previews_free(pv, n);
	assert_int_equal(web_model_previews(&v, "nope", 9, &pv, &n, &err), 0);
	assert_int_equal(n, 0);
	assert_int_equal(web_model_previews(&v, "..", 9, &pv, &n, &err), 0);
	assert_int_equal(n, 0);

	/* one; a changed plan.json is refused with its reason, once the
	 * cache sees the new file */
	assert_int_equal(web_model_preview(&v, "shop-eu",
	                     "20261201T000004Z-444444444444", &one, &err),
	    0);
	assert_int_equal(one.state, WEB_PENDING);
	web_preview_release(&one);
	/* an edit by hand: the confirmation no longer matches */
	edit = xasprintf("%s/plan.json", d[4]);
	assert_int_equal(afile_read(&text, NULL, edit, 1 << 24, &err), 0);
	free(edit);
	at = strstr(text, "\"confirmation\": \"");
	assert_non_null(at);
	at[strlen("\"confirmation\": \"")] = 'X';
	put(d[4], "plan.json", text); /* written afresh: a new inode */
	free(text);
	assert_int_equal(web_model_preview(&v, "shop-eu",
	                     "20261201T000004Z-444444444444", &one, &err),
	    0);
	assert_int_equal(one.state, WEB_REFUSED);
	assert_null(one.confirmation);
	assert_non_null(strstr(one.refused_why, "plan.json"));
	web_preview_release(&one);
	assert_int_equal(web_model_preview(&v, "shop-eu", "empty", &one, &err),
	    1);
	assert_int_equal(web_model_preview(&v, "shop-eu", "drift", &one, &err),
	    1);
	assert_int_equal(
	    web_model_preview(&v, "shop-eu", "../shop-eu/x", &one, &err), 1);
	assert_int_equal(web_model_preview(&v, "x", "y", &one, &err), 1);
	for (i = 0; i < 8; i++)
		free(d[i]);
	free(ob);
}

/* The approve form's window override is offered only while the sync
 * window alone holds a pending preview: hold.txt there and no suspension in
 * the state folder (an override never lifts a suspension). */
static void
test_web_model__window_closed(void **state)
{
	struct web_view v = {0};
	struct web_preview one = {0};
	struct err err = {0};
	char *ob = xasprintf("%s/hold/outbox", tmp);
	char *sd = xasprintf("%s/hold/state", tmp);
	char *cl = xasprintf("%s/shop-eu", ob), *d;

	(void)state;
	v.outbox = ob;
	v.state = sd;
	d = post(ob, "20261201T000000Z-0123456789ab", PLAN_OUT_WOULD_APPLY);
	/* nothing holds the cluster */
	assert_int_equal(web_model_preview(&v, "shop-eu",
	                     "20261201T000000Z-0123456789ab", &one, &err),
	    0);
	assert_int_equal(one.state, WEB_PENDING);
	assert_null(one.waiting);
	assert_false(one.window_closed);
	web_preview_release(&one);
	/* the window holds it */
	put(cl, AGENT_OUTBOX_HOLD,
	    "waiting for sync window until 2026-12-02T21:00:00Z: outside "
	    "every allow window\n");
	assert_int_equal(web_model_preview(&v, "shop-eu",
	                     "20261201T000000Z-0123456789ab", &one, &err),
	    0);
	assert_non_null(one.waiting);
	assert_true(one.window_closed);
	web_preview_release(&one);
	/* suspended: held, no override offered */
	put_in(sd, "shop-eu", "suspended.json",
	    "{\"format\": 1, \"reason\": \"incident\", \"by\": \"alice\", "
	    "\"uid\": 1000, \"user\": \"alice\", \"at\": "
	    "\"2026-12-02T10:00:00Z\"}\n");
	assert_int_equal(web_model_preview(&v, "shop-eu",
	                     "20261201T000000Z-0123456789ab", &one, &err),
	    0);
	assert_non_null(one.waiting);
	assert_false(one.window_closed);
	web_preview_release(&one);
	/* a suspension file that cannot be read holds too */
	put_in(sd, "shop-eu", "suspended.json", "{not json\n");
	assert_int_equal(web_model_preview(&v, "shop-eu",
	                     "20261201T000000Z-0123456789ab", &one, &err),
	    0);
	assert_false(one.window_closed);
	web_preview_release(&one);
	free(d);
	free(cl);
	free(sd);
	free(ob);
}

static void
test_web_model__files(void **state)
{
	struct web_view v = {0};
	struct err err = {0};
	char *ob = xasprintf("%s/files", tmp), *d, *text = NULL, *want, *p;
	size_t len = 0;

	(void)state;
	v.outbox = ob;
	d = post(ob, "20261201T000000Z-000000000000", PLAN_OUT_WOULD_APPLY);
	p = xasprintf("%s/plan.json", d);
	assert_int_equal(afile_read(&want, NULL, p, 1 << 24, &err), 0);
	free(p);
	assert_int_equal(web_model_file(&v, "shop-eu",
	                     "20261201T000000Z-000000000000", "plan.json",
	                     &text, &len, &err),
	    0);
	assert_string_equal(text, want);
	assert_int_equal(len, strlen(want));
	free(text);
	free(want);
	assert_int_equal(web_model_file(&v, "shop-eu",
	                     "20261201T000000Z-000000000000", "plan.md", &text,
	                     &len, &err),
	    0);
	assert_non_null(strstr(text, "artemis-gitops approve"));
	free(text);
	/* absent, or not one of a preview's files */
	assert_int_equal(web_model_file(&v, "shop-eu",
	                     "20261201T000000Z-000000000000", "result.json",
	                     &text, &len, &err),
	    1);
	assert_null(text);
	assert_int_equal(web_model_file(&v, "shop-eu",
	                     "20261201T000000Z-000000000000", "declaration",
	                     &text, &len, &err),
	    1);
	assert_int_equal(web_model_file(&v, "shop-eu",
	                     "20261201T000000Z-000000000000", "../../../etc",
	                     &text, &len, &err),
	    1);
	assert_int_equal(
	    web_model_file(&v, "..", "..", "plan.json", &text, &len, &err), 1);
	assert_int_equal(web_model_file(&v, "shop-eu", "drift", "plan.json",
	                     &text, &len, &err),
	    1);
	/* the drift report */
	p = xasprintf("%s/shop-eu/drift", ob);
	put(p, "drift.json", "{\"missing\": []}\n");
	free(p);
	assert_int_equal(web_model_file(&v, "shop-eu", "drift", "drift.json",
	                     &text, &len, &err),
	    0);
	assert_string_equal(text, "{\"missing\": []}\n");
	free(text);
	assert_int_equal(web_model_file(&v, "shop-eu", "drift", "drift.md",
	                     &text, &len, &err),
	    1);
	/* a symbolic link is not followed out of the outbox: a preview
	 * folder, a file */
	p = xasprintf("%s/shop-eu/linked", ob);
	assert_int_equal(symlink(d, p), 0);
	free(p);
	assert_int_equal(web_model_file(&v, "shop-eu", "linked", "plan.json",
	                     &text, &len, &err),
	    1);
	p = xasprintf("%s/result.md", d);
	assert_int_equal(symlink("/etc/passwd", p), 0);
	free(p);
	assert_int_equal(web_model_file(&v, "shop-eu",
	                     "20261201T000000Z-000000000000", "result.md",
	                     &text, &len, &err),
	    -1);
	assert_non_null(strstr(err.msg, "symbolic link"));
	assert_null(text);
	err_release(&err);
	free(d);
	free(ob);
}

static void
test_web_model__applied(void **state)
{
	struct web_view v = {0};
	struct plan_managed m = {0};
	struct err err = {0};
	struct fx f;
	char *st = xasprintf("%s/state-applied", tmp), *inv, *at = NULL, *rev;

	(void)state;
	v.state = st;
	assert_null(web_model_applied(&v, "shop-eu", &at));
	assert_null(at);
	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	fx_queue(&f, "src", "src");
	plan_managed_from_decl(&m, &f.c, "inventory", "rev7");
	inv = plan_inventory_render(&m, "shop-eu");
	put_in(st, "shop-eu", AGENT_INVENTORY_FILE, inv);
	rev = web_model_applied(&v, "shop-eu", &at);
	assert_string_equal(rev, "rev7");
	assert_non_null(at);
	assert_int_equal(strlen(at), 20); /* 2026-12-01T00:00:00Z */
	assert_int_equal(at[19], 'Z');
	free(rev);
	free(at);
	assert_null(web_model_applied(&v, "../shop-eu", &at));
	assert_null(web_model_applied(&v, "other", NULL));
	free(inv);
	plan_managed_release(&m);
	fx_free(&f);
	(void)err;
	free(st);
}

static void
test_web_model__audit(void **state)
{
	struct web_view v = {0};
	struct strv rows = {0};
	struct err err = {0};
	struct sbuf b = {0};
	char *st = xasprintf("%s/state-audit", tmp), *p;
	size_t total = 0, i;

	(void)state;
	v.state = st;
	assert_int_equal(web_model_audit(&v, 0, 10, &rows, &total, &err), 0);
	assert_int_equal(total, 0);
	assert_int_equal(rows.n, 0);
	sbuf_init(&b, SBUF_UNBOUNDED);
	for (i = 0; i < 7; i++)
		sbuf_addf(&b, "{\"n\":%zu}\n", i);
	sbuf_adds(&b, "{\"torn\":"); /* a crash during an append: no row */
	assert_int_equal(afile_mkdirs(st, 0700, &err), 0);
	p = xasprintf("%s/%s", st, AGENT_STATE_AUDIT);
	assert_int_equal(afile_write(p, b.buf, b.len, 0600, &err), 0);
	free(p);
	sbuf_release(&b);

	assert_int_equal(web_model_audit(&v, 0, 3, &rows, &total, &err), 0);
	assert_int_equal(total, 7);
	assert_int_equal(rows.n, 3);
	assert_string_equal(rows.v[0], "{\"n\":6}");
	assert_string_equal(rows.v[2], "{\"n\":4}");
	strv_release(&rows);
	assert_int_equal(web_model_audit(&v, 5, 3, &rows, &total, &err), 0);
	assert_int_equal(rows.n, 2);
	assert_string_equal(rows.v[0], "{\"n\":1}");
	assert_string_equal(rows.v[1], "{\"n\":0}");
	strv_release(&rows);
	assert_int_equal(web_model_audit(&v, 7, 3, &rows, &total, &err), 0);
	assert_int_equal(rows.n, 0);
	assert_int_equal(total, 7);
	assert_int_equal(
	    web_model_audit(&v, (size_t)-1, 500, &rows, &total, &err), 0);
	assert_int_equal(rows.n, 0);
	assert_int_equal(web_model_audit(&v, 0, 500, &rows, &total, &err), 0);
	assert_int_equal(rows.n, 7);
	assert_string_equal(rows.v[6], "{\"n\":0}");
	strv_release(&rows);
	free(st);
}

/* Many plans, read twice (the second time from the cache): the same
 * states and confirmations. */
static void
test_web_model__many_plans_cached(void **state)
{
	struct web_view v = {0};
	struct web_preview *a = NULL, *b = NULL;
	struct err err = {0};
	char *ob = xasprintf("%s/many", tmp), *d, id[64];
	size_t na = 0, nb = 0, i;

	(void)state;
	v.outbox = ob;
	for (i = 0; i < 30; i++) {
		snprintf(id, sizeof(id), "20261201T0000%02zuZ-%012zu", i, i);
		d = post(ob, id,
		    i % 3 == 0 ? PLAN_OUT_NO_CHANGE : PLAN_OUT_WOULD_APPLY);
		free(d);
	}
	assert_int_equal(web_model_previews(&v, NULL, SIZE_MAX, &a, &na, &err),
	    0);
	assert_int_equal(web_model_previews(&v, NULL, SIZE_MAX, &b, &nb, &err),
	    0);
	assert_int_equal(na, 30);
	assert_int_equal(nb, 30);
	for (i = 0; i < na; i++) {
		assert_string_equal(a[i].id, b[i].id);
		assert_int_equal(a[i].state, b[i].state);
		assert_int_equal(a[i].state,
		    (29 - i) % 3 == 0 ? WEB_NOTHING : WEB_PENDING);
		if (a[i].state == WEB_PENDING)
			assert_string_equal(a[i].confirmation,
			    b[i].confirmation);
	}
	web_model_previews_free(a, na);
	web_model_previews_free(b, nb);
	free(ob);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_web_model__ids),
	    cmocka_unit_test(test_web_model__states),
	    cmocka_unit_test(test_web_model__window_closed),
	    cmocka_unit_test(test_web_model__files),
	    cmocka_unit_test(test_web_model__applied),
	    cmocka_unit_test(test_web_model__audit),
	    cmocka_unit_test(test_web_model__many_plans_cached),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
