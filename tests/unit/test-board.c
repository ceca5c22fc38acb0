/* tests/unit/test-board.c: agent/web/board.c: what the loop and the
 * server's threads share: the view's copies, jobs posted from a thread
 * and done by the loop, a job that outlives its wait, the wake-up. */
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../agent/web/web-int.h"
#include "../../lib/xalloc.h"

static void
test_board__view_copies_nodes_by_cluster(void **state)
{
	struct web_board *b = web_board_new();
	struct web_view v;
	struct web_node_read r = {"c1", "n1", true, NULL, NULL, "2.44.0", 0.5};

	(void)state;
	web_board_node_read(b, &r);
	r.node = "n2";
	r.up = false;
	r.refusal = "UNREACHABLE";
	web_board_node_read(b, &r);
	r.cluster = "c2";
	r.node = "m1";
	web_board_node_read(b, &r);
	/* a second read of n1 replaces the first */
	r.cluster = "c1";
	r.node = "n1";
	r.up = false;
	r.refusal = "TIMEOUT";
	web_board_node_read(b, &r);
	web_board_view(b, &v);
	assert_int_equal(v.nclusters, 2);
	assert_string_equal(v.clusters[0].name, "c1");
	assert_int_equal(v.clusters[0].nnodes, 2);
	assert_string_equal(v.clusters[0].nodes[0].node, "n1");
	assert_false(v.clusters[0].nodes[0].up);
	assert_string_equal(v.clusters[0].nodes[0].refusal, "TIMEOUT");
	assert_true(v.clusters[0].nodes[0].read_at > 0);
	assert_string_equal(v.clusters[1].nodes[0].node, "m1");
	assert_false(v.locked);
	assert_int_equal(v.fetch_ok_at, 0);
	web_view_release(&v);
	web_board_free(b);
}

struct poster {
	struct web_board *b;
	int wait_ms;
	bool done;
	struct web_job out;
};

static void *
post_one(void *arg)
{
	struct poster *p = arg;
	struct web_job j;

	memset(&j, 0, sizeof(j));
	j.cluster = xstrdup("c1");
	j.queue = xstrdup("orders");
	j.by = xstrdup("alice");
	p->done = web_board_job_post(p->b, &j, p->wait_ms, &p->out);
	return NULL;
}

static void
test_board__a_job_is_done_by_the_loop(void **state)
{
	struct web_board *b = web_board_new();
	struct poster p = {b, 5000, false, {0}};
	struct pollfd pfd;
	struct web_job *j, again;
	pthread_t t;

	(void)state;
	assert_null(web_board_job_take(b));
	assert_int_equal(pthread_create(&t, NULL, post_one, &p), 0);
	pfd.fd = web_board_job_fd(b);
	pfd.events = POLLIN;
	assert_int_equal(poll(&pfd, 1, 5000), 1);
	j = web_board_job_take(b);
	assert_non_null(j);
	assert_string_equal(j->queue, "orders");
	assert_string_equal(j->by, "alice");
	assert_false(j->disconnect_consumers);
	/* taken: not handed out twice */
	assert_null(web_board_job_take(b));
	web_board_job_done(b, j, 201, "20261201T000000Z-0123456789ab",
	    "preview posted");
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_true(p.done);
	assert_int_equal(p.out.status, 201);
	assert_string_equal(p.out.preview, "20261201T000000Z-0123456789ab");
	assert_true(web_board_job_get(b, p.out.id, &again));
	assert_true(again.done);
	assert_string_equal(again.message, "preview posted");
	web_job_release(&again);
	assert_false(web_board_job_get(b, p.out.id + 1, &again));
	web_job_release(&p.out);
	web_board_free(b);
}

static void
test_board__a_job_outlives_its_wait(void **state)
{
	struct web_board *b = web_board_new();
	struct poster p = {b, 100, true, {0}};
	struct web_job *j, got;

	(void)state;
	post_one(&p);
	assert_false(p.done);
	assert_true(p.out.id > 0);
	assert_true(web_board_job_get(b, p.out.id, &got));
	assert_false(got.done);
	web_job_release(&got);
	j = web_board_job_take(b);
	assert_non_null(j);
	web_board_job_done(b, j, 200, NULL, "nothing to do");
	assert_true(web_board_job_get(b, p.out.id, &got));
	assert_true(got.done);
	assert_int_equal(got.status, 200);
	assert_null(got.preview);
	web_job_release(&got);
	web_job_release(&p.out);
	web_board_free(b);
}

/* More waiting jobs than the board takes: 503 at once. */
static void
test_board__waiting_jobs_are_bounded(void **state)
{
	struct web_board *b = web_board_new();
	struct poster p = {b, 0, false, {0}};
	int i;

	(void)state;
	for (i = 0; i < 16; i++) {
		post_one(&p);
		assert_false(p.done);
		web_job_release(&p.out);
	}
	post_one(&p);
	assert_true(p.done);
	assert_int_equal(p.out.status, 503);
	web_job_release(&p.out);
	web_board_free(b);
}

static void
test_board__wake_makes_the_fd_readable_once(void **state)
{
	struct web_board *b = web_board_new();
	struct pollfd pfd;

	(void)state;
	pfd.fd = web_board_job_fd(b);
	pfd.events = POLLIN;
	assert_int_equal(poll(&pfd, 1, 0), 0);
	assert_false(web_board_wanted(b));
	web_board_wake(b);
	assert_int_equal(poll(&pfd, 1, 0), 1);
	assert_null(web_board_job_take(b)); /* drains */
	assert_int_equal(poll(&pfd, 1, 0), 0);
	assert_true(web_board_wanted(b));
	assert_false(web_board_wanted(b));
	web_board_free(b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_board__view_copies_nodes_by_cluster),
	    cmocka_unit_test(test_board__a_job_is_done_by_the_loop),
	    cmocka_unit_test(test_board__a_job_outlives_its_wait),
	    cmocka_unit_test(test_board__waiting_jobs_are_bounded),
	    cmocka_unit_test(test_board__wake_makes_the_fd_readable_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
