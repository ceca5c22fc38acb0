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

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_reload__unknown_settings_are_uncertain),
	    cmocka_unit_test(test_reload__force_from_the_file_counts_messages),
	};

	return cmocka_run_group_tests_name("reload", tests, NULL, NULL);
}
