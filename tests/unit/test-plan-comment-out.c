/* tests/unit/test-plan-comment-out.c: reconcile/plan/plan-comment-out.c:
 * the marker and its escaping, "Part I of N", a cut item, and the
 * manifest comments.json. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/json.h"
#include "../../lib/xalloc.h"
#include "../../reconcile/plan/plan-int.h"

#define DIGEST                                                                 \
	"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static void
assert_escape(const char *in, const char *want)
{
	char *got = plan_comment_marker_escape(in);

	assert_string_equal(got, want);
	free(got);
}

/* Nothing in a marker can close the HTML comment or end a field. */
static void
test_plan_comment_out__marker_escape(void **state)
{
	(void)state;
	assert_escape("shop-eu", "shop-eu");
	assert_escape("a.b_c:d/e@f+g", "a.b_c:d/e@f+g");
	assert_escape("a--b", "a-%2Db");
	assert_escape("x-->y", "x-%2D%3Ey");
	assert_escape("---", "-%2D%2D");
	assert_escape("a b=c%", "a%20b%3Dc%25");
	assert_escape("<!--", "%3C%21-%2D");
	assert_escape("é\n", "%C3%A9%0A");
	assert_escape("", "");
}

static struct plan_comment_opts
opts(void)
{
	struct plan_comment_opts o;

	memset(&o, 0, sizeof(o));
	o.limit = 4096;
	o.max_comments = 10;
	o.cluster = "shop--eu>";
	o.marker_id = "ci one";
	o.digest = DIGEST;
	return o;
}

static void
test_plan_comment_out__frame(void **state)
{
	struct plan_comment_opts o = opts();
	char *one = plan_comment_frame(&o, 1, 1);
	char *two = plan_comment_frame(&o, 2, 3);

	(void)state;
	assert_string_equal(one,
	    "<!-- artemis-gitops:plan-comment id=ci%20one "
	    "cluster=shop-%2Deu%3E part=1/1 digest=0123456789ab -->\n");
	assert_string_equal(two,
	    "<!-- artemis-gitops:plan-comment id=ci%20one "
	    "cluster=shop-%2Deu%3E part=2/3 digest=0123456789ab -->\n"
	    "*Part 2 of 3 of this plan.*\n\n");
	/* the reserve holds any frame up to max_comments of max_comments */
	assert_true(plan_comment_reserve(&o) >= strlen(two) + 2);
	free(one);
	free(two);
}

/* A cut inside a fence closes it (with its own fence and indent), stays
 * within the room, and points at the plan. */
static void
test_plan_comment_out__cut_closes_the_fence(void **state)
{
	struct plan_comment_opts o = opts();
	const char text[] = "- **node1**: diff\n\n  ````diff\n  +a\n  +b\n"
	                    "  +c\n  ````\n- **node2**\n";
	char *s;

	(void)state;
	o.plan_path = "out/plan.md";
	/* room for the lines through "+a", the closing fence and the note
	 * (154 bytes), not for "+b" (5 more) */
	s = plan_comment_cut(text, strlen(text), 158, &o);
	assert_true(strlen(s) <= 158);
	assert_string_equal(s,
	    "- **node1**: diff\n\n  ````diff\n  +a\n  ````\n\n**Cut short:** "
	    "the rest of this part of the plan does not fit in one comment; "
	    "the full plan is `out/plan.md`.\n\n");
	free(s);
	o.plan_url = "https://ci.example/r/1";
	s = plan_comment_cut(text, strlen(text), 4000, &o);
	assert_non_null(strstr(s, "[plan.md](<https://ci.example/r/1>)"));
	free(s);
}

static void
test_plan_comment_out__manifest(void **state)
{
	struct plan_comment_opts o = opts();
	struct plan_comment_part parts[2];
	struct plan_comments c;
	struct json_doc *doc = NULL;
	const struct json *r, *p;
	struct err err = {0};
	char *json;
	int64_t v;
	bool b;

	(void)state;
	memset(parts, 0, sizeof(parts));
	parts[0].body = xstrdup("a");
	parts[0].len = 1;
	parts[0].first_action = xstrdup("1. create-queue `q`");
	parts[0].last_action = xstrdup("2. create-queue `r`");
	parts[1].body = xstrdup("bb");
	parts[1].len = 2;
	parts[1].cut = true;
	memset(&c, 0, sizeof(c));
	c.n = 2;
	c.needed = 2;
	c.parts = xcalloc(2, sizeof(*c.parts));
	memcpy(c.parts, parts, sizeof(parts));
	c.marker_prefix = plan_comment_marker_prefix(&o);
	json = plan_comment_manifest(&c, &o);
	assert_int_equal(
	    json_parse(&doc, "comments.json", json, strlen(json), &err), 0);
	r = json_doc_root(doc);
	assert_string_equal(json_str(json_get(r, "cluster")), "shop--eu>");
	assert_string_equal(json_str(json_get(r, "digest")), "0123456789ab");
	assert_string_equal(json_str(json_get(r, "marker_id")), "ci one");
	assert_string_equal(json_str(json_get(r, "marker_prefix")),
	    "<!-- artemis-gitops:plan-comment id=ci%20one "
	    "cluster=shop-%2Deu%3E ");
	assert_int_equal(json_int(json_get(r, "format"), &v), 0);
	assert_int_equal(v, PLAN_COMMENT_FORMAT);
	p = json_first(json_get(r, "parts"));
	assert_string_equal(json_str(json_get(p, "last_action")),
	    "2. create-queue `r`");
	p = json_next(p);
	assert_string_equal(json_str(json_get(p, "file")), "comment-2.md");
	assert_true(json_is_null(json_get(p, "first_action")));
	assert_int_equal(json_bool(json_get(p, "cut"), &b), 0);
	assert_true(b);
	assert_int_equal(json_bool(json_get(r, "too_large"), &b), 0);
	assert_false(b);
	json_doc_free(doc);
	free(json);
	plan_comments_release(&c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_plan_comment_out__marker_escape),
	    cmocka_unit_test(test_plan_comment_out__frame),
	    cmocka_unit_test(test_plan_comment_out__cut_closes_the_fence),
	    cmocka_unit_test(test_plan_comment_out__manifest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
