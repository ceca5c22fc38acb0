/* tests/unit/test-reload.c: the reload prediction
 * (reconcile/plan/reload.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../reconcile/plan/plan.h"

#define S(lit) ((char *)(uintptr_t)(lit))

static struct recon_queue live_queues[] = {
    {.name = S("gone"),
        .address = S("a"),
        .routing = DECL_ANYCAST,
        .configuration_managed = true,
        .message_count = 4},
    {.name = S("sys"),
        .address = S("a"),
        .routing = DECL_ANYCAST,
        .configuration_managed = true,
        .internal = true},
};

static struct recon_node_snapshot live = {
    .node = S("n1"),
    .queues = live_queues,
    .nqueues = 2,
};

static struct decl_cluster declared = {.name = S("c")};

/* A node as `artemis create` makes it: DLQ and ExpiryQueue from its
 * broker.xml, activemq.notifications from the broker itself; none of
 * them declared. */
static struct recon_queue own_queues[] = {
    {.name = S("DLQ"),
        .address = S("DLQ"),
        .routing = DECL_ANYCAST,
        .configuration_managed = true,
        .message_count = 2},
    {.name = S("ExpiryQueue"),
        .address = S("ExpiryQueue"),
        .routing = DECL_ANYCAST,
        .configuration_managed = true},
};

static struct recon_address own_addresses[] = {
    {.name = S("DLQ")},
    {.name = S("ExpiryQueue")},
    {.name = S("activemq.notifications")},
};

static struct recon_node_snapshot own = {
    .node = S("n1"),
    .queues = own_queues,
    .nqueues = 2,
    .addresses = own_addresses,
    .naddresses = 3,
};

static void
test_reload__unknown_settings_are_uncertain(void **state)
{
	struct plan_reload r;
	char *md;

	(void)state;
	plan_reload_predict(&r, &declared, &live, NULL);
	assert_int_equal(r.n, 1); /* the internal queue is left out */
	assert_int_equal(r.items[0].effect, PLAN_RELOAD_KEEPS);
	assert_true(r.uncertain);
	assert_int_equal(r.messages_lost, 0);
	md = plan_reload_render_md(&r);
	assert_string_equal(md,
	    "#### Reload of the rendered broker.xml on node 'n1'\n\n"
	    "config-delete-addresses unknown, config-delete-queues unknown, "
	    "config-delete-diverts unknown (address-setting '#' as read live; "
	    "more specific matches are not considered)\n\n"
	    "- keeps queue 'gone' on address 'a': config-delete-queues not "
	    "read: stays if OFF (the default); removed if FORCE (removed with "
	    "its 4 messages, which are lost)\n\n"
	    "Messages lost by the reload: 0 (more if an unread config-delete-* "
	    "is FORCE)\n");
	free(md);
	plan_reload_release(&r);
}

static void
test_reload__force_from_the_file_counts_messages(void **state)
{
	struct plan_reload_settings force = {"OFF", "FORCE", "OFF"};
	struct plan_reload r;

	(void)state;
	plan_reload_predict(&r, &declared, &live, &force);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.items[0].effect, PLAN_RELOAD_REMOVES);
	assert_int_equal(r.items[0].messages, 4);
	assert_int_equal(r.messages_lost, 4);
	assert_false(r.uncertain);
	assert_true(r.settings_from_file);
	plan_reload_release(&r);
	assert_null(r.items);
}

static void
test_reload__broker_own_left_out_when_kept(void **state)
{
	struct plan_reload_settings off = {"OFF", "OFF", "OFF"};
	struct plan_reload_settings queues = {"OFF", "FORCE", "OFF"};
	struct plan_reload r;
	char *md;

	(void)state;
	plan_reload_predict(&r, &declared, &own, &off);
	assert_int_equal(r.n, 0);
	md = plan_reload_render_md(&r);
	assert_non_null(strstr(md, "- nothing changes\n"));
	free(md);
	plan_reload_release(&r);
	/* config-delete-queues FORCE removes DLQ's queue and its messages:
	 * said, with what it is; the addresses stay and are left out */
	plan_reload_predict(&r, &declared, &own, &queues);
	assert_int_equal(r.n, 2);
	assert_string_equal(r.items[0].name, "DLQ");
	assert_int_equal(r.items[0].object, PLAN_RELOAD_QUEUE);
	assert_int_equal(r.items[0].effect, PLAN_RELOAD_REMOVES);
	assert_non_null(strstr(r.items[0].detail, "the broker's own"));
	assert_non_null(strstr(r.items[0].detail, "declare it to keep it"));
	assert_int_equal(r.messages_lost, 2);
	plan_reload_release(&r);
}

static void
test_reload__broker_own_removed_is_said(void **state)
{
	struct plan_reload_settings force = {"FORCE", "FORCE", "FORCE"};
	struct plan_reload r;
	size_t i, naddr = 0;

	(void)state;
	plan_reload_predict(&r, &declared, &own, &force);
	for (i = 0; i < r.n; i++) {
		assert_int_equal(r.items[i].effect, PLAN_RELOAD_REMOVES);
		if (r.items[i].object != PLAN_RELOAD_ADDRESS)
			continue;
		naddr++;
		if (strcmp(r.items[i].name, "activemq.notifications") == 0)
			assert_non_null(strstr(r.items[i].detail,
			    "management notifications"));
		else
			assert_non_null(
			    strstr(r.items[i].detail, "declare it to keep it"));
	}
	assert_int_equal(naddr, 3);
	plan_reload_release(&r);
}

static void
test_reload__declared_settings_are_said(void **state)
{
	struct decl_address_setting as[2] = {{.match = S("#")},
	    {.match = S("orders")}};
	struct decl_security_setting ss = {.match = S("#")};
	struct decl_cluster c = {.name = S("c"),
	    .address_settings = as,
	    .naddress_settings = 2,
	    .security_settings = &ss,
	    .nsecurity_settings = 1};
	struct plan_reload r;
	char *md;

	(void)state;
	plan_reload_predict(&r, &c, &own, NULL);
	assert_int_equal(r.naddress_matches, 2);
	assert_string_equal(r.address_matches[1], "orders");
	assert_int_equal(r.nsecurity_matches, 1);
	md = plan_reload_render_md(&r);
	assert_non_null(strstr(md,
	    "- address-settings: the file's 2 matches ('#', 'orders') replace "
	    "the broker's configured ones at the reload"));
	assert_non_null(strstr(md,
	    "- security-settings: the file's 1 match ('#') replaces the "
	    "broker's configured ones"));
	assert_null(strstr(md, "nothing changes"));
	free(md);
	plan_reload_release(&r);
	/* none declared: nothing said of them */
	c.naddress_settings = c.nsecurity_settings = 0;
	plan_reload_predict(&r, &c, &own, NULL);
	md = plan_reload_render_md(&r);
	assert_null(strstr(md, "-settings:"));
	free(md);
	plan_reload_release(&r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_reload__unknown_settings_are_uncertain),
	    cmocka_unit_test(test_reload__force_from_the_file_counts_messages),
	    cmocka_unit_test(test_reload__broker_own_left_out_when_kept),
	    cmocka_unit_test(test_reload__broker_own_removed_is_said),
	    cmocka_unit_test(test_reload__declared_settings_are_said),
	};

	return cmocka_run_group_tests_name("reload", tests, NULL, NULL);
}
