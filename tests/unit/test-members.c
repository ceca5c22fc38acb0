/* tests/unit/test-members.c: reconcile/live/members.c: an HA node from
 * its members' reads: the live member is the node (its contents, its
 * endpoint, its name in `member`), every member's state is kept; two live
 * members are SPLIT_BRAIN, differing NodeIDs NOT_A_PAIR, no live member
 * UNREACHABLE naming each member (or the kind they all share). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/xalloc.h"
#include "../../reconcile/live/live-int.h"

static const struct live_member members[] = {
    {"primary", "http://127.0.0.1:1/console/jolokia", "u:p"},
    {"backup", "http://127.0.0.1:2/console/jolokia", "u:p"},
};

/* A member's read: live (with one queue), passive, or refused. */
static void
read_of(struct recon_node_snapshot *r, enum recon_kind kind, bool active,
    const char *node_id)
{
	memset(r, 0, sizeof(*r));
	r->url = xstrdup("http://x");
	r->requests = 1;
	r->refusal.kind = kind;
	if (kind == RECON_UNREACHABLE) {
		r->refusal.text = xstrdup("Connection refused");
		return;
	}
	if (kind == RECON_UNAUTHORIZED) {
		r->refusal.text = xstrdup("HTTP 401");
		return;
	}
	r->broker_name = xstrdup(active ? "live-one" : "passive-one");
	r->broker_version = xstrdup("2.44.0");
	r->ha.known = true;
	r->ha.active = active;
	r->ha.backup = !active;
	r->ha.policy =
	    xstrdup(active ? "Shared Store Primary" : "Shared Store Backup");
	r->ha.node_id = node_id != NULL ? xstrdup(node_id) : NULL;
	r->ha.replica_sync = -1;
	if (kind == RECON_PASSIVE) {
		r->refusal.text = xstrdup("passive backup");
		return;
	}
	r->queues = xcalloc(1, sizeof(*r->queues));
	r->nqueues = 1;
	r->queues[0].name = xstrdup("orders");
	r->queues[0].address = xstrdup("orders");
}

static void
choose(struct recon_node_snapshot *out, struct recon_node_snapshot *reads)
{
	live_node_choose(out, "node1", members, reads, 2);
	live_node_release(&reads[0]);
	live_node_release(&reads[1]);
}

static void
test_members__primary_live_backup_passive(void **state)
{
	struct recon_node_snapshot r[2], n;

	(void)state;
	read_of(&r[0], RECON_OK, true, "id-1");
	read_of(&r[1], RECON_PASSIVE, false, "id-1");
	choose(&n, r);
	assert_int_equal(n.refusal.kind, RECON_OK);
	assert_string_equal(n.node, "node1");
	assert_string_equal(n.member, "primary");
	assert_string_equal(n.broker_name, "live-one");
	assert_int_equal(n.nqueues, 1);
	assert_int_equal(n.requests, 2);
	assert_int_equal(n.nmembers, 2);
	assert_string_equal(recon_member_state(&n.members[0]), "LIVE");
	assert_string_equal(recon_member_state(&n.members[1]), "PASSIVE");
	assert_string_equal(n.members[1].ha.policy, "Shared Store Backup");
	assert_string_equal(n.members[1].url, members[1].url);
	live_node_release(&n);
}

/* After a failover: the primary is gone, the backup is the node. */
static void
test_members__backup_live_after_failover(void **state)
{
	struct recon_node_snapshot r[2], n;

	(void)state;
	read_of(&r[0], RECON_UNREACHABLE, false, NULL);
	read_of(&r[1], RECON_OK, true, "id-1");
	choose(&n, r);
	assert_int_equal(n.refusal.kind, RECON_OK);
	assert_string_equal(n.member, "backup");
	assert_int_equal(n.nqueues, 1);
	assert_string_equal(recon_member_state(&n.members[0]), "UNREACHABLE");
	assert_string_equal(n.members[0].refusal.text, "Connection refused");
	live_node_release(&n);
}

static void
test_members__split_brain(void **state)
{
	struct recon_node_snapshot r[2], n;

	(void)state;
	read_of(&r[0], RECON_OK, true, "id-1");
	read_of(&r[1], RECON_OK, true, "id-1");
	choose(&n, r);
	assert_int_equal(n.refusal.kind, RECON_SPLIT_BRAIN);
	assert_null(n.member);
	assert_int_equal(n.nqueues, 0);
	assert_non_null(strstr(n.refusal.text, "'primary' and 'backup'"));
	assert_non_null(strstr(n.refusal.text, "id-1"));
	live_node_release(&n);
}

static void
test_members__not_a_pair(void **state)
{
	struct recon_node_snapshot r[2], n;

	(void)state;
	read_of(&r[0], RECON_OK, true, "id-1");
	read_of(&r[1], RECON_PASSIVE, false, "id-2");
	choose(&n, r);
	assert_int_equal(n.refusal.kind, RECON_NOT_A_PAIR);
	assert_non_null(strstr(n.refusal.text, "'primary' (NodeID id-1)"));
	assert_non_null(strstr(n.refusal.text, "'backup' (NodeID id-2)"));
	assert_int_equal(n.nqueues, 0);
	live_node_release(&n);
}

static void
test_members__none_live(void **state)
{
	struct recon_node_snapshot r[2], n;

	(void)state;
	read_of(&r[0], RECON_UNREACHABLE, false, NULL);
	read_of(&r[1], RECON_PASSIVE, false, "id-1");
	choose(&n, r);
	assert_int_equal(n.refusal.kind, RECON_UNREACHABLE);
	assert_null(n.member);
	assert_non_null(strstr(n.refusal.text, "no member is live"));
	assert_non_null(strstr(n.refusal.text,
	    "'primary' UNREACHABLE (Connection refused)"));
	assert_non_null(
	    strstr(n.refusal.text, "'backup' PASSIVE (Shared Store Backup)"));
	live_node_release(&n);
	/* both refused alike: that kind, so that the advice fits */
	read_of(&r[0], RECON_UNAUTHORIZED, false, NULL);
	read_of(&r[1], RECON_UNAUTHORIZED, false, NULL);
	choose(&n, r);
	assert_int_equal(n.refusal.kind, RECON_UNAUTHORIZED);
	live_node_release(&n);
	/* both passive: not read (no member serves) */
	read_of(&r[0], RECON_PASSIVE, false, "id-1");
	read_of(&r[1], RECON_PASSIVE, false, "id-1");
	choose(&n, r);
	assert_int_equal(n.refusal.kind, RECON_UNREACHABLE);
	live_node_release(&n);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_members__primary_live_backup_passive),
	    cmocka_unit_test(test_members__backup_live_after_failover),
	    cmocka_unit_test(test_members__split_brain),
	    cmocka_unit_test(test_members__not_a_pair),
	    cmocka_unit_test(test_members__none_live),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
