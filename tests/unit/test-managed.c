/* tests/unit/test-managed.c: reconcile/plan/managed.c: the managed set and
 * inventory.json. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan-fixture.h"

static void
test_managed__inventory_round_trip(void **state)
{
	struct plan_managed m = {0}, m2 = {0};
	struct err err = {0};
	struct fx f;
	char *text, *text2, *msg;

	(void)state;
	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	fx_queue(&f, "orders", "orders");
	fx_divert(&f, "d", "orders", "x");
	managed_of(&m, &f);
	text = plan_inventory_render(&m, "shop-eu");
	assert_int_equal(plan_inventory_parse(&m2, "inv.json", text,
	                     strlen(text), "shop-eu", &err),
	    0);
	text2 = plan_inventory_render(&m2, "shop-eu");
	assert_string_equal(text, text2);
	assert_true(plan_managed_has_queue(&m2, "orders"));
	assert_false(plan_managed_has_queue(&m2, "nope"));
	assert_int_equal(plan_inventory_parse(&m2, "inv.json", text,
	                     strlen(text), "ledger", &err),
	    -1);
	msg = err_render(&err);
	assert_string_equal(msg, "inv.json: 'cluster': expected 'ledger'");
	free(msg);
	err_release(&err);
	free(text);
	free(text2);
	plan_managed_release(&m);
	plan_managed_release(&m2);
	fx_free(&f);
}

/* docs/state.md: retain and protect are written only when set, read
 * back; managed: false objects never enter the set; a retained object
 * the declaration no longer holds stays retained after an apply. */
static void
test_managed__policy_in_the_inventory(void **state)
{
	struct plan_managed m = {0}, m2 = {0};
	struct decl_cluster *c = NULL, *c2 = NULL;
	struct errlist l = {0};
	struct err err = {0};
	char *text, *text2;
	struct decl_file f;
	const char *y1 =
	    "version: 1\ncluster: shop-eu\nmode: STUDIO_MANAGED\n"
	    "nodes: [{name: n1, jolokia: 'http://h:1/j', credentials: n1}]\n"
	    "settings: {protect: [\"orders*\"]}\n"
	    "addresses:\n"
	    "  - {name: orders, routing: [anycast], deletion-policy: retain,\n"
	    "     queues: [{name: orders}]}\n"
	    "  - {name: legacy, routing: [anycast], managed: false,\n"
	    "     queues: [{name: legacy}]}\n";
	const char *y2 =
	    "version: 1\ncluster: shop-eu\nmode: STUDIO_MANAGED\n"
	    "nodes: [{name: n1, jolokia: 'http://h:1/j', credentials: n1}]\n"
	    "addresses:\n"
	    "  - {name: keep, routing: [anycast], queues: [{name: keep}]}\n";

	(void)state;
	f = (struct decl_file){"a.yaml", y1, strlen(y1)};
	assert_int_equal(decl_cluster_parse(&c, "c", &f, 1, &l), 0);
	plan_managed_from_decl(&m, c, "declaration", NULL);
	assert_true(plan_managed_has_queue(&m, "orders"));
	assert_false(plan_managed_has_queue(&m, "legacy"));
	assert_false(plan_managed_has_address(&m, "legacy"));
	assert_int_equal(m.nretain_queues, 1);
	assert_int_equal(m.nretain_addresses, 1);
	text = plan_inventory_render(&m, "shop-eu");
	assert_non_null(strstr(text, "\"protect\": [\n    \"orders*\"\n  ]"));
	assert_non_null(strstr(text, "\"retain\": {"));
	assert_int_equal(plan_inventory_parse(&m2, "inv.json", text,
	                     strlen(text), "shop-eu", &err),
	    0);
	text2 = plan_inventory_render(&m2, "shop-eu");
	assert_string_equal(text, text2);
	free(text2);
	/* the next applied declaration drops both: retained stays, the
	 * patterns are the new declaration's (none), and then the file is
	 * what it was before policies */
	f = (struct decl_file){"a.yaml", y2, strlen(y2)};
	assert_int_equal(decl_cluster_parse(&c2, "c", &f, 1, &l), 0);
	plan_managed_set_policy(&m2, c2);
	assert_int_equal(m2.nprotect, 0);
	assert_int_equal(m2.nretain_queues, 1);
	assert_string_equal(m2.retain_queues[0], "orders");
	plan_managed_release(&m);
	plan_managed_from_decl(&m, c2, "declaration", NULL);
	text2 = plan_inventory_render(&m, "shop-eu");
	assert_null(strstr(text2, "retain"));
	assert_null(strstr(text2, "protect"));
	free(text);
	free(text2);
	plan_managed_release(&m);
	plan_managed_release(&m2);
	decl_cluster_free(c);
	decl_cluster_free(c2);
	errlist_release(&l);
}

/* delete-if-empty: the managed set of a declaration records the queues it
 * protects with their clauses; inventory.json carries them only when there
 * are some (an inventory without the member reads as none), and a member
 * of the wrong shape is refused. */
static void
test_managed__delete_if_empty_in_the_inventory(void **state)
{
	struct plan_managed m = {0}, m2 = {0};
	struct err err = {0};
	struct decl_queue *q;
	struct fx f;
	char *text, *text2, *msg;
	static const char bad[] =
	    "{\"addresses\": [], \"captures\": [], \"cluster\": \"shop-eu\", "
	    "\"delete_if_empty\": {\"orders\": 1}, \"diverts\": [], "
	    "\"format\": 1, \"queues\": [], \"revision\": null}";

	(void)state;
	fx_init(&f, DECL_STUDIO_MANAGED, 1);
	fx_queue(&f, "orders", "plain");
	managed_of(&m, &f);
	text = plan_inventory_render(&m, "shop-eu");
	assert_null(strstr(text, "delete_if_empty"));
	free(text);
	plan_managed_release(&m);

	q = fx_queue(&f, "orders", "orders");
	q->delete_if_empty = true;
	q->delete_if_empty_at = (struct pos){"c/a.yaml", 14, 9};
	managed_of(&m, &f);
	assert_string_equal(plan_managed_delete_if_empty(&m, "orders"),
	    "delete-if-empty is set (c/a.yaml:14:9)");
	assert_null(plan_managed_delete_if_empty(&m, "plain"));
	text = plan_inventory_render(&m, "shop-eu");
	assert_non_null(
	    strstr(text, "\"delete_if_empty\": {\n    \"orders\": "
	                 "\"delete-if-empty is set (c/a.yaml:14:9)\""));
	assert_int_equal(plan_inventory_parse(&m2, "inv.json", text,
	                     strlen(text), "shop-eu", &err),
	    0);
	text2 = plan_inventory_render(&m2, "shop-eu");
	assert_string_equal(text, text2);
	assert_int_equal(plan_inventory_parse(&m2, "inv.json", bad, strlen(bad),
	                     "shop-eu", &err),
	    -1);
	msg = err_render(&err);
	assert_string_equal(msg, "inv.json: 'delete_if_empty': expected an "
	                         "object of queue names to strings");
	free(msg);
	err_release(&err);
	free(text);
	free(text2);
	plan_managed_release(&m);
	plan_managed_release(&m2);
	fx_free(&f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_managed__inventory_round_trip),
	    cmocka_unit_test(test_managed__policy_in_the_inventory),
	    cmocka_unit_test(test_managed__delete_if_empty_in_the_inventory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
