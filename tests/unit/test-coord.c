/* tests/unit/test-coord.c: several agents (docs/ha.md) without etcd: the
 * coordination keys of the configuration, rendezvous hashing, and the
 * fence around an apply's operations (agent_fence_io). What needs etcd is
 * proved against a real one (tests/integration/83-etcd-client.sh,
 * 84-daemon-ha.sh, 85-daemon-shard.sh). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../agent/apply-plan.h"
#include "../../agent/conf.h"
#include "../../agent/coord.h"
#include "../../lib/xalloc.h"
#include "conf-fixture.h"

#define BASE                                                                   \
	"version: 1\nstate: /s\nrepository: {url: 'file:///r'}\n"            \
	"credentials: /c\n"

static void
test_coord__conf(void **state)
{
	struct agent_conf *c;

	(void)state;
	c = parse_ok(BASE);
	assert_int_equal(c->coord_endpoints.n, 0);
	assert_int_equal(c->state_backend, AGENT_CONF_BACKEND_FILE);
	assert_int_equal(c->coord_lease_ttl, 15);
	assert_int_equal(c->coord_lease_margin, 5);
	assert_string_equal(c->coord_prefix, "/artemis-gitops/");
	agent_conf_free(c);
	c = parse_ok(BASE "coordination:\n"
	                  "  endpoints: [http://127.0.0.1:2379, "
	                  "https://etcd2.example:2379]\n"
	                  "  agent-id: gitops-a\n"
	                  "  prefix: /fleet/eu/\n"
	                  "  lease-ttl: 9s\n"
	                  "  lease-margin: 3s\n"
	                  "  request-timeout: 2s\n"
	                  "  user: gitops\n"
	                  "  password-file: etcd.password\n"
	                  "  shard: {mode: hash}\n"
	                  "state-backend: etcd\n");
	assert_int_equal(c->coord_endpoints.n, 2);
	assert_string_equal(c->coord_endpoints.v[1], "https://etcd2.example:2379");
	assert_string_equal(c->coord_agent_id, "gitops-a");
	assert_string_equal(c->coord_prefix, "/fleet/eu/");
	assert_int_equal(c->coord_lease_ttl, 9);
	assert_int_equal(c->coord_lease_margin, 3);
	assert_int_equal(c->coord_timeout, 2);
	assert_int_equal(c->coord_shard_mode, AGENT_CONF_SHARD_HASH);
	assert_int_equal(c->state_backend, AGENT_CONF_BACKEND_ETCD);
	agent_conf_free(c);
	/* the agent id defaults to the host name */
	c = parse_ok(BASE "coordination: {endpoints: [http://127.0.0.1:2379]}\n");
	assert_non_null(c->coord_agent_id);
	assert_true(strlen(c->coord_agent_id) > 0);
	agent_conf_free(c);
}

static void
test_coord__conf_refused(void **state)
{
	(void)state;
	T_BAD(BASE "state-backend: etcd\n",
	    "c.yaml:1:1: 'state-backend' is etcd but there is no etcd: "
	    "set 'coordination.endpoints'\n");
	T_BAD(BASE "state-backend: sqlite\n",
	    "c.yaml:5:16: 'state-backend' must be file or etcd, not "
	    "'sqlite'\n");
	T_BAD(BASE "coordination: {endpoints: [ftp://x:1]}\n",
	    "c.yaml:5:28: 'coordination.endpoints': 'ftp://x:1' must be "
	    "an http:// or https:// URL with a host and without a user or "
	    "password\n");
	T_BAD(BASE "coordination: {endpoints: [http://u:pw@x:1]}\n",
	    "c.yaml:5:28: 'coordination.endpoints': 'http://u:pw@x:1' "
	    "must be an http:// or https:// URL with a host and without a "
	    "user or password\n");
	T_BAD(BASE "coordination: {endpoints: http://x:1}\n",
	    "c.yaml:5:27: 'coordination.endpoints' must be a list of "
	    "URLs, not a scalar\n");
	T_BAD(BASE "coordination: {endpoints: [http://127.0.0.1:1], lease-ttl: 10s, "
	           "lease-margin: 6s}\n",
	    "c.yaml:1:1: 'coordination.lease-margin' (6s) must be at "
	    "most half of 'coordination.lease-ttl' (10s)\n");
	T_BAD(BASE "coordination: {endpoints: [http://127.0.0.1:1], lease-ttl: 6s, lease-margin: 2s, "
	           "request-timeout: 3s}\n",
	    "c.yaml:1:1: 'coordination.request-timeout' (3s) must be at "
	    "most a third of 'coordination.lease-ttl' (6s): the lease is "
	    "renewed every third of it\n");
	T_BAD(BASE "coordination: {endpoints: [http://127.0.0.1:1], prefix: fleet}\n",
	    "c.yaml:5:57: 'coordination.prefix' must be a key prefix "
	    "that starts and ends with '/', without empty, '.' or '..' parts or "
	    "white space, not 'fleet'\n");
	T_BAD(BASE "coordination: {endpoints: [http://127.0.0.1:1], prefix: /a/../b/}\n",
	    "c.yaml:5:57: 'coordination.prefix' must be a key prefix "
	    "that starts and ends with '/', without empty, '.' or '..' parts or "
	    "white space, not '/a/../b/'\n");
	T_BAD(BASE "coordination: {endpoints: [http://127.0.0.1:1], agent-id: 'a b'}\n",
	    "c.yaml:1:1: 'coordination.agent-id' must be letters, "
	    "digits, '.', '_' and '-', not 'a b'\n");
	T_BAD(BASE "coordination: {endpoints: [http://127.0.0.1:1], user: u}\n",
	    "c.yaml:1:1: 'coordination.user' needs "
	    "'coordination.password-file'\n");
	T_BAD(BASE "coordination: {endpoints: [http://127.0.0.1:1], shard: {mode: "
	           "random}}\n",
	    "c.yaml:5:63: 'coordination.shard.mode' must be none or "
	    "hash, not 'random'\n");
}

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

/* The fence: an operation is sent only when the check passes; once it
 * fails, neither that operation nor any later one is sent (FENCED). */
struct fake {
	int checks, fail_at, sent, reads;
};

static int
fake_check(void *ctx, const char *cluster, struct err *err)
{
	struct fake *f = ctx;

	assert_string_equal(cluster, "shop");
	if (++f->checks >= f->fail_at)
		return err_setf(err, NULL, "cluster 'shop': lease short");
	return 0;
}

static int
fake_exec(void *ctx, const char *node, const struct recon_op *op,
    struct recon_refusal *refusal)
{
	struct fake *f = ctx;

	(void)node;
	(void)op;
	(void)refusal;
	f->sent++;
	return 0;
}

static void
fake_read(void *ctx, const char *node, struct recon_node_snapshot *out)
{
	struct fake *f = ctx;

	(void)node;
	(void)out;
	f->reads++;
}

static void
test_coord__fence_io(void **state)
{
	struct fake f = {0, 3, 0, 0};
	struct agent_fence fence = {fake_check, &f, 42};
	struct agent_fence_io w;
	struct apply_io io = {0};
	struct recon_refusal r = {0};
	struct recon_op op = {0};
	int i;

	(void)state;
	io.ctx = &f;
	io.read = fake_read;
	io.exec = fake_exec;
	agent_fence_io(&w, &io, &fence, "shop");
	assert_null(io.read_all);
	io.read(io.ctx, "node1", NULL);
	assert_int_equal(f.reads, 1);
	assert_int_equal(io.exec(io.ctx, "node1", &op, &r), 0);
	assert_int_equal(io.exec(io.ctx, "node1", &op, &r), 0);
	assert_int_equal(f.sent, 2);
	for (i = 0; i < 3; i++) {
		assert_int_equal(io.exec(io.ctx, "node2", &op, &r), -1);
		assert_int_equal(r.kind, RECON_FENCED);
		assert_non_null(strstr(r.text, "not sent: cluster 'shop': lease "
		                                "short"));
		recon_refusal_release(&r);
	}
	assert_int_equal(f.sent, 2);
	assert_int_equal(f.checks, 3); /* not asked again once refused */
	assert_string_equal(recon_kind_name(RECON_FENCED), "FENCED");
	agent_fence_io_release(&w);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_coord__conf),
	    cmocka_unit_test(test_coord__conf_refused),
	    cmocka_unit_test(test_coord__pick),
	    cmocka_unit_test(test_coord__fence_io),
	};

	unsetenv("STATE_DIRECTORY");
	unsetenv("CREDENTIALS_DIRECTORY");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
