/* tests/unit/test-coord.c: agent/coord.c without etcd: rendezvous
 * hashing. What needs etcd (leases, owner keys, the fence's transaction) is
 * proved against a real one (tests/integration/83-etcd-client.sh,
 * 84-daemon-ha.sh, 85-daemon-shard.sh, 86-state-migrate.sh). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../agent/coord.h"

/* Rendezvous hashing: deterministic, every key to a member, and a member
 * leaving moves only its own keys. */
static void
test_coord__pick(void **state)
{
	const char *five[] = {"ag1", "ag2", "ag3", "ag4", "ag5"};
	const char *four[] = {"ag1", "ag2", "ag4", "ag5"}; /* ag3 gone */
	size_t count[5] = {0}, i, j, moved = 0, lost = 0;
	char key[32];

	(void)state;
	assert_null(agent_coord_pick(five, 0, "c"));
	assert_string_equal(agent_coord_pick(five, 1, "c"), "ag1");
	for (i = 0; i < 1000; i++) {
		const char *a, *b;

		snprintf(key, sizeof(key), "cluster-%04zu", i);
		a = agent_coord_pick(five, 5, key);
		assert_ptr_equal(a, agent_coord_pick(five, 5, key));
		for (j = 0; j < 5; j++)
			if (a == five[j])
				count[j]++;
		b = agent_coord_pick(four, 4, key);
		if (strcmp(a, "ag3") == 0)
			lost++;
		else if (strcmp(a, b) != 0)
			moved++;
	}
	/* only ag3's clusters move; the spread is even enough */
	assert_int_equal(moved, 0);
	assert_int_equal(lost, count[2]);
	for (j = 0; j < 5; j++) {
		assert_true(count[j] > 140);
		assert_true(count[j] < 260);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_coord__pick),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
