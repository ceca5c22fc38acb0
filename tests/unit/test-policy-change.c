/* tests/unit/test-policy-change.c: reconcile/plan/policy-change.c: the
 * policy the inventory records against the one an apply of the new
 * declaration records (docs/policy.md "Changing the policy"), and what a
 * plan of such changes may be: approved, auto-applied, confirmed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../reconcile/plan/plan-int.h"
#include "plan-fixture.h"

#define HEAD                                                                   \
	"version: 1\ncluster: shop-eu\nmode: STUDIO_MANAGED\n"                 \
	"nodes: [{name: broker-a, jolokia: 'http://h:1/j', credentials: n1}]\n"

static struct decl_cluster *
parse(const char *yaml)
{
	struct decl_cluster *c = NULL;
	struct errlist l = {0};
	struct decl_file f = {"a.yaml", yaml, strlen(yaml)};

	assert_int_equal(decl_cluster_parse(&c, "c", &f, 1, &l), 0);
	errlist_release(&l);
	return c;
}

/* The changes from the policy of `was` (as its apply recorded it) to the
 * one of `now`, in a fresh plan (free it). */
static struct plan *
changes(const char *was, const char *now)
{
	struct decl_cluster *a = parse(was), *b = parse(now);
	struct plan_managed m;
	struct plan *p = xcalloc(1, sizeof(*p));

	plan_managed_from_decl(&m, a, "inventory", "rev1");
	plan_policy_changes_find(p, b, &m);
	plan_managed_release(&m);
	decl_cluster_free(a);
	decl_cluster_free(b);
	return p;
}

/* The same policy, or policies only of objects not yet managed: nothing. */
static void
test_policy_change__none_for_the_same_policy(void **state)
{
	struct plan *p;

	(void)state;
	p = changes(HEAD
	    "settings: {protect: [\"orders*\"]}\n"
	    "addresses:\n"
	    "  - {name: orders, routing: [anycast],\n"
	    "     queues: [{name: orders, delete-if-empty: true}]}\n",
	    HEAD
	    "settings: {protect: [\"orders*\"]}\n"
	    "addresses:\n"
	    "  - {name: orders, routing: [anycast],\n"
	    "     queues: [{name: orders, delete-if-empty: true}]}\n"
	    "  - {name: new, routing: [anycast], deletion-policy: retain,\n"
	    "     queues: [{name: new, delete-if-empty: true}]}\n");
	assert_int_equal(p->npolicy_changes, 0);
	plan_free(p);
}

/* A pattern removed lifts protection (no place: the key is gone) and
 * names the managed objects no pattern covers any more; one added is
 * placed where it is written. */
static void
test_policy_change__protect_removed_and_added(void **state)
{
	const struct plan_policy_change *c;
	struct plan *p;

	(void)state;
	p = changes(HEAD "settings: {protect: [\"orders*\"]}\n"
	                 "addresses:\n"
	                 "  - {name: orders, routing: [anycast],\n"
	                 "     queues: [{name: orders}]}\n",
	    HEAD "settings: {protect: [\"billing\"]}\n"
	         "addresses:\n"
	         "  - {name: orders, routing: [anycast],\n"
	         "     queues: [{name: orders}]}\n");
	assert_int_equal(p->npolicy_changes, 2);
	c = &p->policy_changes[0];
	assert_string_equal(c->setting, "settings.protect");
	assert_string_equal(c->name, "billing");
	assert_false(c->lifts);
	assert_string_equal(c->from, "absent");
	assert_string_equal(c->to, "present");
	assert_string_equal(c->at, "a.yaml:5:22");
	assert_non_null(strstr(c->effect, "no managed object matches it now"));
	c = &p->policy_changes[1];
	assert_string_equal(c->name, "orders*");
	assert_true(c->lifts);
	assert_null(c->at);
	assert_string_equal(c->effect,
	    "after this apply, removing one of queue 'orders', address 'orders' from the declaration deletes it: no pattern refuses that any more");
	plan_free(p);
	/* a pattern that stays covers the objects: they are not named */
	p = changes(HEAD "settings: {protect: [\"orders*\", \"ord*\"]}\n"
	                 "addresses:\n"
	                 "  - {name: orders, routing: [anycast],\n"
	                 "     queues: [{name: orders}]}\n",
	    HEAD "settings: {protect: [\"ord*\"]}\n"
	         "addresses:\n"
	         "  - {name: orders, routing: [anycast],\n"
	         "     queues: [{name: orders}]}\n");
	assert_int_equal(p->npolicy_changes, 1);
	assert_true(p->policy_changes[0].lifts);
	assert_non_null(
	    strstr(p->policy_changes[0].effect, "refuses no delete any more"));
	plan_free(p);
}

/* deletion-policy: retain back to delete lifts (the queue inherits its
 * address's); delete to retain of a managed object adds protection; an
 * object now managed: false is forgotten, not a change; a retained object
 * the declaration no longer holds stays retained: no change. */
static void
test_policy_change__retain(void **state)
{
	struct plan *p;
	size_t i;

	(void)state;
	p = changes(HEAD "addresses:\n"
	                 "  - {name: orders, routing: [anycast],\n"
	                 "     deletion-policy: retain,\n"
	                 "     queues: [{name: orders}]}\n"
	                 "  - {name: keep, routing: [anycast],\n"
	                 "     queues: [{name: keep}]}\n"
	                 "  - {name: gone, routing: [anycast],\n"
	                 "     deletion-policy: retain,\n"
	                 "     queues: [{name: gone}]}\n"
	                 "  - {name: legacy, routing: [anycast],\n"
	                 "     deletion-policy: retain,\n"
	                 "     queues: [{name: legacy}]}\n",
	    HEAD "addresses:\n"
	         "  - {name: orders, routing: [anycast],\n"
	         "     deletion-policy: delete,\n"
	         "     queues: [{name: orders}]}\n"
	         "  - {name: keep, routing: [anycast],\n"
	         "     queues: [{name: keep, deletion-policy: retain}]}\n"
	         "  - {name: legacy, routing: [anycast], managed: false,\n"
	         "     queues: [{name: legacy}]}\n");
	assert_int_equal(p->npolicy_changes, 3);
	for (i = 0; i < p->npolicy_changes; i++)
		assert_string_equal(p->policy_changes[i].setting,
		    "deletion-policy");
	assert_string_equal(p->policy_changes[0].kind, "address");
	assert_string_equal(p->policy_changes[0].name, "orders");
	assert_true(p->policy_changes[0].lifts);
	assert_string_equal(p->policy_changes[0].from, "retain");
	assert_string_equal(p->policy_changes[0].to, "delete");
	assert_string_equal(p->policy_changes[0].at, "a.yaml:7:23");
	assert_string_equal(p->policy_changes[1].kind, "queue");
	assert_string_equal(p->policy_changes[1].name, "keep");
	assert_false(p->policy_changes[1].lifts);
	assert_non_null(strstr(p->policy_changes[1].effect, "forgets it"));
	assert_string_equal(p->policy_changes[2].kind, "queue");
	assert_string_equal(p->policy_changes[2].name, "orders");
	assert_true(p->policy_changes[2].lifts);
	assert_string_equal(p->policy_changes[2].effect,
	    "after this apply, removing queue 'orders' from the declaration deletes it on every broker, with its messages");
	plan_free(p);
}

/* delete-if-empty off (its own key, placed) lifts; on through the default
 * adds; a lift a pattern still covers says so. */
static void
test_policy_change__delete_if_empty(void **state)
{
	struct plan *p;

	(void)state;
	p = changes(HEAD
	    "settings: {protect: [\"keep\"]}\n"
	    "addresses:\n"
	    "  - {name: orders, routing: [anycast],\n"
	    "     queues: [{name: orders, delete-if-empty: true},\n"
	    "              {name: keep, delete-if-empty: true},\n"
	    "              {name: loose}]}\n",
	    HEAD "settings: {protect: [\"keep\"], delete-if-empty: true}\n"
	         "addresses:\n"
	         "  - {name: orders, routing: [anycast],\n"
	         "     queues: [{name: orders, delete-if-empty: false},\n"
	         "              {name: keep, delete-if-empty: false},\n"
	         "              {name: loose}]}\n");
	assert_int_equal(p->npolicy_changes, 3);
	assert_string_equal(p->policy_changes[0].name, "keep");
	assert_true(p->policy_changes[0].lifts);
	assert_non_null(strstr(p->policy_changes[0].effect,
	    "(settings.protect pattern 'keep' still refuses that)"));
	assert_string_equal(p->policy_changes[1].name, "loose");
	assert_false(p->policy_changes[1].lifts);
	assert_string_equal(p->policy_changes[1].at, "a.yaml:5:31");
	assert_string_equal(p->policy_changes[2].name, "orders");
	assert_true(p->policy_changes[2].lifts);
	assert_string_equal(p->policy_changes[2].from, "true");
	assert_string_equal(p->policy_changes[2].to, "false");
	assert_string_equal(p->policy_changes[2].at, "a.yaml:8:30");
	plan_free(p);
}

/* No inventory: the first apply records everything, nothing to compare. */
static void
test_policy_change__unknown_managed_set(void **state)
{
	struct decl_cluster *c = parse(HEAD "settings: {protect: [\"x\"]}\n");
	struct plan_managed m = {0};
	struct plan *p = xcalloc(1, sizeof(*p));

	(void)state;
	plan_policy_changes_find(p, c, &m);
	assert_int_equal(p->npolicy_changes, 0);
	plan_policy_changes_find(p, c, NULL);
	assert_int_equal(p->npolicy_changes, 0);
	plan_free(p);
	decl_cluster_free(c);
}

/* A plan whose only difference is the policy: NO_CHANGE, approvable with
 * its own confirmation; a lift is never auto-applied, added protection
 * may be; a refused plan records (and counts) nothing. */
static void
test_policy_change__plan_approvable_never_auto_lifted(void **state)
{
	struct decl_cluster *was, *lift, *add;
	struct plan_managed m;
	struct plan *p;
	struct fx f;
	char *c;

	(void)state;
	was = parse(HEAD "settings: {protect: [\"orders*\"]}\n"
	                 "addresses:\n"
	                 "  - {name: orders, routing: [anycast],\n"
	                 "     queues: [{name: orders}]}\n");
	lift = parse(HEAD "addresses:\n"
	                  "  - {name: orders, routing: [anycast],\n"
	                  "     queues: [{name: orders}]}\n");
	add = parse(HEAD "settings: {protect: [\"orders*\", \"x\"]}\n"
	                 "addresses:\n"
	                 "  - {name: orders, routing: [anycast],\n"
	                 "     queues: [{name: orders}]}\n");
	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	fx_lqueue(&f, 0, "orders", "orders", 0, 0);
	plan_managed_from_decl(&m, was, "inventory", "rev1");

	p = plan_build(lift, &m, &f.s, &no_opts);
	assert_int_equal(p->outcome, PLAN_OUT_NO_CHANGE);
	assert_int_equal(p->nactions, 0);
	assert_int_equal(plan_policy_changes(p), 1);
	assert_int_equal(plan_policy_lifts(p), 1);
	assert_true(plan_approvable(p));
	assert_false(plan_creates_only(p));
	c = plan_confirmation(p);
	assert_int_equal(
	    strncmp(c,
	        "update policy (1 change, 1 lifting protection) on shop-eu ",
	        58),
	    0);
	free(c);
	c = plan_summary_line(p);
	assert_string_equal(c, "update policy (1 change, lifting protection)");
	free(c);
	/* refused: nothing counts, nothing approvable */
	free(p->refusal);
	p->refusal = xstrdup("PROTECTED");
	p->outcome = PLAN_OUT_REFUSED;
	assert_int_equal(plan_policy_changes(p), 0);
	assert_int_equal(plan_policy_lifts(p), 0);
	assert_false(plan_approvable(p));
	plan_free(p);

	p = plan_build(add, &m, &f.s, &no_opts);
	assert_int_equal(p->outcome, PLAN_OUT_NO_CHANGE);
	assert_int_equal(plan_policy_changes(p), 1);
	assert_int_equal(plan_policy_lifts(p), 0);
	assert_true(plan_approvable(p));
	assert_true(plan_creates_only(p));
	c = plan_confirmation(p);
	assert_int_equal(strncmp(c, "update policy (1 change) on shop-eu ", 36),
	    0);
	free(c);
	plan_free(p);

	/* the same policy: NO_CHANGE and nothing to approve, as before */
	p = plan_build(was, &m, &f.s, &no_opts);
	assert_int_equal(p->npolicy_changes, 0);
	assert_false(plan_approvable(p));
	plan_free(p);

	plan_managed_release(&m);
	fx_free(&f);
	decl_cluster_free(was);
	decl_cluster_free(lift);
	decl_cluster_free(add);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_policy_change__none_for_the_same_policy),
	    cmocka_unit_test(test_policy_change__protect_removed_and_added),
	    cmocka_unit_test(test_policy_change__retain),
	    cmocka_unit_test(test_policy_change__delete_if_empty),
	    cmocka_unit_test(test_policy_change__unknown_managed_set),
	    cmocka_unit_test(
	        test_policy_change__plan_approvable_never_auto_lifted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
