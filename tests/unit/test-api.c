/* tests/unit/test-api.c: agent/web/api.c through a real socket (web_start,
 * a temporary outbox and state folder): routes and methods, ids refused
 * before a path is built, strict request bodies, approving with its
 * statuses and the board woken, the audit paged, a delete-queue job
 * answered by a thread standing in for the daemon's loop. */
#include "apply-fixture.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../agent/conf.h"
#include "../../agent/log.h"
#include "../../agent/outbox.h"
#include "../../agent/plan-dir.h"
#include "../../agent/state.h"
#include "../../agent/web/web.h"
#include "../../lib/afile.h"
#include "../../lib/xalloc.h"
#include "web-fixture.h"

#define VIEWER   WEB_FIXTURE_VIEWER
#define APPROVER WEB_FIXTURE_APPROVER
#define ID       "20261201T000000Z-0123456789ab"
#define PV       "/api/v1/clusters/shop-eu/previews/" ID

static char tmp[64];

static void
put(const char *dir, const char *name, const char *text, mode_t mode)
{
	char *p = xasprintf("%s/%s", dir, name);
	struct err err = {0};

	assert_int_equal(afile_mkdirs(dir, 0700, &err), 0);
	assert_int_equal(afile_write(p, text, strlen(text), mode, &err), 0);
	assert_int_equal(chmod(p, mode), 0);
	free(p);
}

static int
setup(void **state)
{
	(void)state;
	if (web_fixture_setup(tmp, "api", false) < 0)
		return -1;
	web_fixture_put(tmp, "vera.token", VIEWER "\n", 0600);
	web_fixture_put(tmp, "alice.token", APPROVER "\n", 0600);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	return web_fixture_teardown(tmp);
}

static struct agent_conf *
conf_new(void)
{
	struct agent_conf *c = NULL;
	struct errlist d = {0};
	char *text = xasprintf("version: 1\n"
	                       "repository:\n  url: file:///nowhere\n"
	                       "state: %s/state\n"
	                       "credentials: %s/creds\n"
	                       "http:\n  listen: 127.0.0.1:0\n"
	                       "  viewer-tokens: [vera.token]\n"
	                       "  approver-tokens: [alice.token]\n",
	    tmp, tmp);

	assert_int_equal(
	    agent_conf_parse(&c, "agent.yaml", tmp, text, strlen(text), &d), 0);
	errlist_release(&d);
	free(text);
	return c;
}

/* A request with a bearer token (or none); ct the body's Content-Type
 * (NULL: application/json). */
static struct web_got
req(unsigned port, const char *method, const char *path, const char *token,
    const char *body, const char *ct)
{
	struct sbuf h = {0};
	struct web_got g;

	if (token != NULL)
		sbuf_addf(&h, "Authorization: Bearer %s\r\n", token);
	if (body != NULL)
		sbuf_addf(&h, "Content-Type: %s\r\n",
		    ct != NULL ? ct : "application/json");
	g = web_fixture_http(port, method, path, sbuf_str(&h), body);
	sbuf_release(&h);
	return g;
}

/* status and a part of the body (and of the head, when head_part) */
static void
expect(unsigned port, const char *method, const char *path, const char *token,
    const char *body, int status, const char *part, const char *head_part)
{
	struct web_got g = req(port, method, path, token, body, NULL);

	if (g.status != status)
		fail_msg("%s %s: %d, expected %d: %s", method, path, g.status,
		    status, g.body);
	if (part != NULL && strstr(g.body, part) == NULL)
		fail_msg("%s %s: '%s' not in: %s", method, path, part, g.body);
	if (head_part != NULL && strstr(g.head, head_part) == NULL)
		fail_msg("%s %s: '%s' not in the head: %s", method, path,
		    head_part, g.head);
	web_got_release(&g);
}

struct env {
	struct agent_conf *c;
	struct web_board *b;
	struct web *w;
	unsigned port;
	char *dir, *confirm;
};

/* The scenario's plan as OUTBOX/shop-eu/ID, the state folder's inventory
 * it was planned against, the server started. */
static void
env_start(struct env *e)
{
	struct err err = {0};
	struct plan_managed m = {0};
	struct scen s;
	char *inv, *sdir;

	memset(e, 0, sizeof(*e));
	e->c = conf_new();
	e->dir = xasprintf("%s/state/outbox/shop-eu/" ID, tmp);
	scen_init(&s, false);
	assert_int_equal(agent_plan_dir_write(s.p, e->dir, NULL, &err), 0);
	e->confirm = plan_confirmation(s.p);
	plan_managed_from_decl(&m, &s.f.c, "inventory", "rev1");
	inv = plan_inventory_render(&m, "shop-eu");
	sdir = xasprintf("%s/state/shop-eu", tmp);
	put(sdir, "inventory.json", inv, 0600);
	free(sdir);
	free(inv);
	plan_managed_release(&m);
	scen_free(&s);
	e->b = web_board_new();
	web_board_set_conf(e->b, e->c);
	assert_int_equal(web_start(&e->w, e->c, e->b, &err), 0);
	e->port = web_port(e->w);
}

static void
env_stop(struct env *e)
{
	char *cmd = xasprintf("rm -rf %s/state", tmp);

	web_stop(e->w);
	web_board_free(e->b);
	agent_conf_free(e->c);
	free(e->dir);
	free(e->confirm);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

static void
test_api__routes_methods_and_ids(void **state)
{
	struct env e;
	struct web_got g;
	char *text = NULL, *path;
	size_t len = 0;
	struct err err = {0};

	(void)state;
	env_start(&e);
	expect(e.port, "GET", "/api/v1/clusters", VIEWER, NULL, 200,
	    "\"name\": \"shop-eu\"", "Content-Type: application/json");
	expect(e.port, "GET", "/api/v1/clusters/shop-eu", VIEWER, NULL, 200,
	    "\"latest_previews\"", NULL);
	expect(e.port, "GET", "/api/v1/clusters/nope", VIEWER, NULL, 404,
	    "no cluster 'nope'", NULL);
	expect(e.port, "GET", "/api/v1/clusters/shop-eu/previews", VIEWER, NULL,
	    200, "\"state\": \"pending\"", NULL);
	expect(e.port, "GET", "/api/v1/previews?state=pending", VIEWER, NULL,
	    200, "\"id\": \"" ID "\"", NULL);
	expect(e.port, "GET", "/api/v1/previews?state=approved", VIEWER, NULL,
	    200, "\"previews\": []", NULL);
	expect(e.port, "GET", "/api/v1/previews?state=x", VIEWER, NULL, 400,
	    "state: expected one of", NULL);
	expect(e.port, "GET", PV, VIEWER, NULL, 200,
	    "\"approve\": \"" PV "/approve\"", NULL);
	/* a file as written */
	path = xasprintf("%s/plan.json", e.dir);
	assert_int_equal(afile_read(&text, &len, path, 1 << 24, &err), 0);
	g = req(e.port, "GET", PV "/plan.json", VIEWER, NULL, NULL);
	assert_int_equal(g.status, 200);
	assert_string_equal(g.body, text);
	web_got_release(&g);
	free(text);
	free(path);
	expect(e.port, "HEAD", PV "/plan.md", VIEWER, NULL, 200, NULL,
	    "Content-Type: text/markdown; charset=utf-8");
	expect(e.port, "GET", PV "/result", VIEWER, NULL, 404, "not applied",
	    NULL);
	expect(e.port, "GET", "/api/v1/clusters/shop-eu/drift", VIEWER, NULL,
	    404, "no drift report", NULL);
	/* ids: refused before any path is built */
	expect(e.port, "GET", "/api/v1/clusters/%2e%2e/previews", VIEWER, NULL,
	    400, "not a cluster name", NULL);
	expect(e.port, "GET", "/api/v1/clusters/shop-eu/previews/.x", VIEWER,
	    NULL, 400, "not a preview id", NULL);
	expect(e.port, "GET",
	    "/api/v1/clusters/shop-eu/previews/..%2f..%2fx/plan.json", VIEWER,
	    NULL, 404, NULL, NULL);
	expect(e.port, "GET", "/api/v1/clusters/shop-eu/previews/a%20b", VIEWER,
	    NULL, 400, "not a preview id", NULL);
	/* routes and methods */
	expect(e.port, "GET", "/api/v1/nope", VIEWER, NULL, 404,
	    "no such route: GET /api/v1/nope", NULL);
	expect(e.port, "GET", "/api/v1/clusters/", VIEWER, NULL, 404, NULL,
	    NULL);
	expect(e.port, "GET", "/api/v1//clusters", VIEWER, NULL, 404, NULL,
	    NULL);
	expect(e.port, "PUT", "/api/v1/clusters", VIEWER, NULL, 405,
	    "takes GET, HEAD", "Allow: GET, HEAD");
	expect(e.port, "GET", PV "/approve", VIEWER, NULL, 405, NULL,
	    "Allow: POST");
	expect(e.port, "GET", "/api/v1/clusters/shop-eu/delete-queue", VIEWER,
	    NULL, 405, NULL, "Allow: POST");
	expect(e.port, "GET", "/api/v1/jobs/1x", VIEWER, NULL, 400,
	    "a job id is a number", NULL);
	expect(e.port, "GET", "/api/v1/jobs/7", VIEWER, NULL, 404, "no job 7",
	    NULL);
	env_stop(&e);
}

static void
test_api__approve(void **state)
{
	struct env e;
	char *body, *ok;

	(void)state;
	env_start(&e);
	ok = xasprintf("{\"confirmation\": \"%s\"}", e.confirm);
	expect(e.port, "POST", PV "/approve", VIEWER, ok, 403,
	    "approving takes an approver's token; vera is a viewer", NULL);
	/* bodies, strictly */
	body = xasprintf("{\"confirmation\": \"%s\",\n \"x\" 1}", e.confirm);
	expect(e.port, "POST", PV "/approve", APPROVER, body, 400,
	    "request body:2:6: not valid JSON", NULL);
	free(body);
	body =
	    xasprintf("{\"confirmation\": \"%s\", \"by\": \"m\"}", e.confirm);
	expect(e.port, "POST", PV "/approve", APPROVER, body, 400,
	    "request body: unknown member 'by'", NULL);
	free(body);
	expect(e.port, "POST", PV "/approve", APPROVER, "{\"confirmation\": 1}",
	    400, "'confirmation' must be a string", NULL);
	expect(e.port, "POST", PV "/approve", APPROVER, "{}", 400,
	    "member 'confirmation' is required", NULL);
	expect(e.port, "POST", PV "/approve", APPROVER, "[]", 400,
	    "expected a JSON object", NULL);
	expect(e.port, "POST", PV "/approve", APPROVER, "", 400, "no body",
	    NULL);
	{
		struct web_got g = req(e.port, "POST", PV "/approve", APPROVER,
		    ok, "text/plain");

		assert_int_equal(g.status, 415);
		web_got_release(&g);
	}
	expect(e.port, "POST", PV "/approve", APPROVER,
	    "{\"confirmation\": \"nope\"}", 422,
	    "the confirmation text does not match", NULL);
	expect(e.port, "POST",
	    "/api/v1/clusters/shop-eu/previews/20990101T000000Z-x/approve",
	    APPROVER, ok, 404, "no such preview", NULL);
	assert_false(agent_outbox_has(e.dir, AGENT_OUTBOX_APPROVAL));
	assert_false(web_board_wanted(e.b));
	/* right: approved by the token's name, the loop woken */
	expect(e.port, "POST", PV "/approve", APPROVER, ok, 200,
	    "\"approved_by\": \"alice\"", NULL);
	assert_true(agent_outbox_has(e.dir, AGENT_OUTBOX_APPROVAL));
	assert_true(web_board_wanted(e.b));
	expect(e.port, "GET", PV, VIEWER, NULL, 200, "\"state\": \"approved\"",
	    NULL);
	expect(e.port, "POST", PV "/approve", APPROVER, ok, 409,
	    "already approved", NULL);
	free(ok);
	env_stop(&e);
}

static void
test_api__audit_paged(void **state)
{
	struct env e;
	struct sbuf b = {0};
	char *sdir;
	size_t i;

	(void)state;
	env_start(&e);
	expect(e.port, "GET", "/api/v1/audit", VIEWER, NULL, 200,
	    "\"total\": 0", NULL);
	sbuf_init(&b, SBUF_UNBOUNDED);
	for (i = 0; i < 60; i++)
		sbuf_addf(&b, "{\"n\":%zu}\n", i);
	sbuf_adds(&b, "not json\n");
	sdir = xasprintf("%s/state", tmp);
	put(sdir, AGENT_STATE_AUDIT, sbuf_str(&b), 0600);
	free(sdir);
	sbuf_release(&b);
	/* default 50, newest first; a line that is not JSON as a string */
	expect(e.port, "GET", "/api/v1/audit", VIEWER, NULL, 200,
	    "\"limit\": 50,\n  \"offset\": 0,\n  \"rows\": [\n    \"not "
	    "json\",\n    {\"n\":59},",
	    NULL);
	expect(e.port, "GET", "/api/v1/audit?offset=59&limit=5", VIEWER, NULL,
	    200,
	    "\"rows\": [\n    {\"n\":1},\n    {\"n\":0}\n  ],\n  \"total\": 61",
	    NULL);
	expect(e.port, "GET", "/api/v1/audit?limit=0", VIEWER, NULL, 200,
	    "\"rows\": []", NULL);
	expect(e.port, "GET", "/api/v1/audit?limit=501", VIEWER, NULL, 400,
	    "limit: expected", NULL);
	expect(e.port, "GET", "/api/v1/audit?offset=-1", VIEWER, NULL, 400,
	    "offset: expected", NULL);
	expect(e.port, "GET", "/api/v1/audit?offset=1e3", VIEWER, NULL, 400,
	    "offset: expected", NULL);
	env_stop(&e);
}

/* The daemon's side of a job: take it, answer status. */
struct loop {
	struct web_board *b;
	int status;
	const char *preview;
	bool disconnect;
	char queue[64];
};

static void *
loop_run(void *arg)
{
	struct loop *l = arg;
	struct web_job *j = NULL;
	int i;

	for (i = 0; i < 500 && j == NULL; i++) {
		j = web_board_job_take(l->b);
		if (j == NULL)
			usleep(10000);
	}
	if (j == NULL)
		return NULL;
	l->disconnect = j->disconnect_consumers;
	snprintf(l->queue, sizeof(l->queue), "%s", j->queue);
	web_board_job_done(l->b, j, l->status, l->preview, "as the loop said");
	return NULL;
}

static void
test_api__delete_queue(void **state)
{
	struct env e;
	struct loop l;
	pthread_t t;
	const char *dq = "/api/v1/clusters/shop-eu/delete-queue";

	(void)state;
	env_start(&e);
	expect(e.port, "POST", dq, VIEWER, "{\"queue\": \"q\"}", 403,
	    "approver's token", NULL);
	expect(e.port, "POST", dq, APPROVER, "{\"queue\": \"\"}", 400,
	    "1 to 255 bytes", NULL);
	expect(e.port, "POST", dq, APPROVER, "{\"queue\": \"a\\u202eb\"}", 400,
	    "queue 'a<U+202E>b': a bidirectional control at byte 1", NULL);
	expect(e.port, "POST", dq, APPROVER,
	    "{\"queue\": \"q\", \"disconnect_consumers\": 1}", 400,
	    "'disconnect_consumers' must be true or false", NULL);
	expect(e.port, "POST", "/api/v1/clusters/..%2fx/delete-queue", APPROVER,
	    "{\"queue\": \"q\"}", 400, NULL, NULL);
	/* nothing to do: 200; disconnect_consumers false unless asked */
	memset(&l, 0, sizeof(l));
	l.b = e.b;
	l.status = 200;
	assert_int_equal(pthread_create(&t, NULL, loop_run, &l), 0);
	expect(e.port, "POST", dq, APPROVER, "{\"queue\": \"orders\"}", 200,
	    "\"message\": \"as the loop said\"", NULL);
	pthread_join(t, NULL);
	assert_false(l.disconnect);
	assert_string_equal(l.queue, "orders");
	/* posted: 201 with the preview */
	memset(&l, 0, sizeof(l));
	l.b = e.b;
	l.status = 201;
	l.preview = ID;
	assert_int_equal(pthread_create(&t, NULL, loop_run, &l), 0);
	expect(e.port, "POST", dq, APPROVER,
	    "{\"disconnect_consumers\": true, \"queue\": \"orders\"}", 201,
	    "\"preview\": {\n    \"approved_by\": null,", NULL);
	pthread_join(t, NULL);
	assert_true(l.disconnect);
	expect(e.port, "GET", "/api/v1/jobs/2", VIEWER, NULL, 200,
	    "\"preview\": \"" ID "\"", NULL);
	/* refused by the loop: its status and message */
	memset(&l, 0, sizeof(l));
	l.b = e.b;
	l.status = 404;
	assert_int_equal(pthread_create(&t, NULL, loop_run, &l), 0);
	expect(e.port, "POST", dq, APPROVER, "{\"queue\": \"orders\"}", 404,
	    "as the loop said", NULL);
	pthread_join(t, NULL);
	env_stop(&e);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_api__routes_methods_and_ids),
	    cmocka_unit_test(test_api__approve),
	    cmocka_unit_test(test_api__audit_paged),
	    cmocka_unit_test(test_api__delete_queue),
	};

	agent_log_set_level(AGENT_LOG_ERR);
	return cmocka_run_group_tests(tests, setup, teardown);
}
