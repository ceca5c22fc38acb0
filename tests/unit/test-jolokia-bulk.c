/* tests/unit/test-jolokia-bulk.c: reconcile/live/jolokia-bulk.c: parsing
 * and classifying bulk replies recorded from a real Artemis 2.40.0 broker
 * (tests/unit/data/jolokia/). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include <stdio.h>

#include "../../lib/json.h"
#include "jolokia-fixture.h"

/* Parse the recorded reply to a one-element bulk; check its refusal. */
static void
expect_element(const char *file, bool pattern, enum recon_kind kind, int status,
    const char *text_part)
{
	struct live_bulk b = {0};
	struct recon_refusal whole = {0};
	size_t len;
	char *data = load(file, &len);

	live_bulk_read(&b, pattern ? "d:k=*" : "d:k=v", NULL, 0);
	assert_int_equal(live_bulk_parse_reply(&b, 200, data, len, &whole), 0);
	assert_int_equal(whole.kind, RECON_OK);
	assert_string_equal(recon_kind_name(b.results[0].refusal.kind),
	    recon_kind_name(kind));
	assert_int_equal(b.results[0].refusal.status, status);
	assert_int_equal(b.results[0].refusal.http_status,
	    kind == RECON_OK ? 0 : 200);
	if (text_part != NULL)
		assert_non_null(strstr(b.results[0].refusal.text, text_part));
	else
		assert_null(b.results[0].refusal.text);
	live_bulk_release(&b);
	free(data);
}

static void
test_jolokia_bulk__recorded_refusals(void **state)
{
	(void)state;
	expect_element("destroy-with-consumers.json", false,
	    RECON_HAS_CONSUMERS, 500,
	    "AMQ229025: Cannot delete queue rec.orders on binding "
	    "rec.orders - it has consumers = ");
	expect_element("destroy-unknown-queue.json", false, RECON_NOT_FOUND,
	    500, "AMQ229017: Queue rec.nope does not exist");
	expect_element("destroy-unknown-divert.json", false, RECON_NOT_FOUND,
	    500, "AMQ229012: No binding for divert rec.nope");
	expect_element("create-existing-address.json", false,
	    RECON_ALREADY_EXISTS, 500,
	    "AMQ229204: Address already exists: rec.orders");
	expect_element("create-existing-queue.json", false,
	    RECON_ALREADY_EXISTS, 500,
	    "AMQ229019: Queue rec.orders already exists on address rec.orders");
	expect_element("delete-address-with-bindings.json", false,
	    RECON_BROKER_ERROR, 500,
	    "AMQ229205: Address rec.orders has bindings");
	expect_element("missing-signature.json", false, RECON_BROKER_ERROR, 400,
	    "java.lang.IllegalArgumentException : ");
	expect_element("read-missing-mbean.json", false, RECON_NOT_FOUND, 404,
	    "javax.management.InstanceNotFoundException");
	expect_element("read-pattern-no-match.json", true, RECON_OK, 0, NULL);
}

static void
test_jolokia_bulk__whole_request_error_object(void **state)
{
	struct live_bulk b = {0};
	struct recon_refusal whole = {0};
	size_t len;
	char *data = load("origin-refused.json", &len);

	(void)state;
	live_bulk_read(&b, "d:k=v", NULL, 0);
	live_bulk_read(&b, "d:k=w", NULL, 0);
	assert_int_equal(live_bulk_parse_reply(&b, 200, data, len, &whole), -1);
	assert_int_equal(whole.kind, RECON_FORBIDDEN);
	assert_int_equal(whole.status, 403);
	assert_string_equal(whole.text, "java.lang.Exception : Origin "
	                                "http://127.0.0.1 is not allowed to "
	                                "call this agent");
	assert_int_equal(b.results[1].refusal.kind, RECON_FORBIDDEN);
	recon_refusal_release(&whole);
	live_bulk_release(&b);
	free(data);
}

/* A two-element bulk answered with HTTP status http and body. */
static enum recon_kind
whole(long http, const char *body, char **text)
{
	struct live_bulk b = {0};
	struct recon_refusal r = {0};
	enum recon_kind k;

	live_bulk_read(&b, "d:k=v", NULL, 0);
	live_bulk_exec(&b, "d:k=v", "op()", NULL, 0);
	(void)live_bulk_parse_reply(&b, http, body, strlen(body), &r);
	k = r.kind;
	assert_int_equal(b.results[0].refusal.kind, k);
	assert_int_equal(b.results[1].refusal.kind, k);
	*text = r.text ? xstrdup(r.text) : NULL;
	recon_refusal_release(&r);
	live_bulk_release(&b);
	return k;
}

static void
expect_whole(long http, const char *body, enum recon_kind kind,
    const char *text)
{
	char *t = NULL;

	assert_string_equal(recon_kind_name(whole(http, body, &t)),
	    recon_kind_name(kind));
	if (text != NULL)
		assert_string_equal(t, text);
	free(t);
}

static void
test_jolokia_bulk__http_and_shape_failures(void **state)
{
	(void)state;
	expect_whole(403, "", RECON_UNAUTHORIZED,
	    "HTTP 403: authentication refused");
	expect_whole(401, "", RECON_UNAUTHORIZED,
	    "HTTP 401: authentication refused");
	expect_whole(429, "", RECON_THROTTLED,
	    "HTTP 429: too many failed logins, throttled");
	expect_whole(500, "boom", RECON_BROKER_ERROR, "HTTP 500: boom");
	expect_whole(400, "", RECON_BROKER_ERROR, "HTTP 400");
	expect_whole(302, "", RECON_BAD_RESPONSE, "unexpected HTTP status 302");
	expect_whole(200, "<html>", RECON_BAD_RESPONSE, "reply is not JSON");
	expect_whole(200, "[{\"status\":200,\"value\":1}]", RECON_BAD_RESPONSE,
	    "expected a bulk reply of 2 elements");
	expect_whole(200, "{\"status\":200,\"value\":1}", RECON_BAD_RESPONSE,
	    "expected a bulk reply (an array)");
	expect_whole(200, "\"x\"", RECON_BAD_RESPONSE,
	    "expected a bulk reply of 2 elements");
	expect_whole(200,
	    "[{\"status\":200,\"value\":1},{\"status\":200,\"value\":null}]",
	    RECON_OK, NULL);
	/* the strict reader: data after the value, invalid UTF-8, a repeated
	 * key, a non-integral status */
	expect_whole(200,
	    "[{\"status\":200,\"value\":1},{\"status\":200,\"value\":2}] x",
	    RECON_BAD_RESPONSE, "reply is not JSON");
	expect_whole(200,
	    "[{\"status\":200,\"value\":\"\xc3\"},{\"status\":200,"
	    "\"value\":2}]",
	    RECON_BAD_RESPONSE, "reply is not JSON");
	expect_whole(200,
	    "[{\"status\":200,\"value\":1,\"status\":500},{\"status\":200,"
	    "\"value\":2}]",
	    RECON_BAD_RESPONSE, "reply is not JSON");
	expect_whole(200,
	    "{\"status\":403.5,\"error\":\"java.lang.Exception : Origin\"}",
	    RECON_BAD_RESPONSE, "reply element without a status");
}

static void
test_jolokia_bulk__element_shapes(void **state)
{
	struct live_bulk b = {0};
	struct recon_refusal r = {0};
	const char *body = "[{\"value\":1},{\"status\":200},"
	                   "{\"status\":429,\"error\":\"slow down\"},"
	                   "{\"status\":403,\"error\":\"java.lang.Exception : "
	                   "User not authorized to access operation: "
	                   "destroyQueue\"},{\"status\":500}]";

	(void)state;
	live_bulk_read(&b, "d:k=v", NULL, 0);
	live_bulk_read(&b, "d:k=v", NULL, 0);
	live_bulk_read(&b, "d:k=v", NULL, 0);
	live_bulk_read(&b, "d:k=v", NULL, 0);
	live_bulk_read(&b, "d:k=v", NULL, 0);
	assert_int_equal(live_bulk_parse_reply(&b, 200, body, strlen(body), &r),
	    0);
	assert_int_equal(b.results[0].refusal.kind, RECON_BAD_RESPONSE);
	assert_string_equal(b.results[0].refusal.text,
	    "reply element without a status");
	assert_int_equal(b.results[1].refusal.kind, RECON_BAD_RESPONSE);
	assert_string_equal(b.results[1].refusal.text,
	    "reply element without a value");
	assert_int_equal(b.results[2].refusal.kind, RECON_THROTTLED);
	assert_int_equal(b.results[3].refusal.kind, RECON_FORBIDDEN);
	assert_int_equal(b.results[4].refusal.kind, RECON_BROKER_ERROR);
	assert_string_equal(b.results[4].refusal.text, "Jolokia status 500");
	live_bulk_release(&b);
}

struct got {
	size_t n[3];
	char keys[256];
};

static void
collect(void *ctx, size_t i, const char *key, const struct json *v)
{
	struct got *g = ctx;

	g->n[i]++;
	snprintf(g->keys + strlen(g->keys), sizeof(g->keys) - strlen(g->keys),
	    "%zu:%s=%lld ", i, key,
	    (long long)(json_int(v, &(int64_t){0}) == 0 ? 1 : 0));
}

/* A streamed element's members go to the sink one by one (its value is
 * not kept); the others' values are; a key twice in an element is JSON
 * the reader refuses, and so is one twice in a kept value. */
static void
test_jolokia_bulk__streamed_members(void **state)
{
	struct live_bulk b = {0};
	struct recon_refusal r = {0};
	struct got g = {{0}, ""};
	struct live_member_sink sink = {collect, &g};
	const char *body =
	    "[{\"value\":{\"a\":1,\"b\":\"x\"},\"status\":200},"
	    "{\"status\":200,\"value\":{\"c\":2}},"
	    "{\"request\":{\"m\":1},\"value\":{},\"status\":200}]";
	const char *dup = "[{\"value\":{},\"status\":200,\"status\":404},"
	                  "{\"status\":200,\"value\":1},{\"status\":200,"
	                  "\"value\":1}]";
	const char *dupv = "[{\"value\":{},\"status\":200},{\"status\":200,"
	                   "\"value\":{\"k\":1,\"k\":2}},{\"status\":200,"
	                   "\"value\":1}]";

	(void)state;
	live_bulk_stream(&b, live_bulk_read(&b, "d:k=*", NULL, 0));
	live_bulk_read(&b, "d:k=*", NULL, 0);
	live_bulk_stream(&b, live_bulk_read(&b, "d:k=*", NULL, 0));
	b.sink = &sink;
	assert_int_equal(live_bulk_parse_reply(&b, 200, body, strlen(body), &r),
	    0);
	assert_string_equal(g.keys, "0:a=1 0:b=0 ");
	assert_int_equal(b.results[0].refusal.kind, RECON_OK);
	assert_null(b.results[0].value);
	assert_non_null(json_get(b.results[1].value, "c"));
	assert_int_equal(b.results[2].refusal.kind, RECON_OK);
	assert_int_equal(live_bulk_parse_reply(&b, 200, dup, strlen(dup), &r),
	    -1);
	assert_string_equal(r.text, "reply is not JSON");
	recon_refusal_release(&r);
	assert_int_equal(live_bulk_parse_reply(&b, 200, dupv, strlen(dupv), &r),
	    -1);
	assert_string_equal(r.text, "reply is not JSON");
	recon_refusal_release(&r);
	live_bulk_release(&b);
}

static void
test_jolokia_bulk__classify_by_code_not_class(void **state)
{
	(void)state;
	assert_int_equal(live_jolokia_classify(500,
	                     "java.lang.IllegalStateException : AMQ229025: x",
	                     false),
	    RECON_HAS_CONSUMERS);
	assert_int_equal(live_jolokia_classify(500,
	                     "org.apache.activemq.artemis.api.core."
	                     "ActiveMQNonExistentQueueException : no code",
	                     false),
	    RECON_BROKER_ERROR);
	assert_int_equal(live_jolokia_classify(404,
	                     "AMQ229203: Address Does Not Exist", false),
	    RECON_NOT_FOUND);
	assert_int_equal(live_jolokia_classify(500, "AMQ22923: short", false),
	    RECON_BROKER_ERROR);
	assert_int_equal(live_jolokia_classify(500, "AMQ229235: x", false),
	    RECON_ALREADY_EXISTS);
	assert_int_equal(live_jolokia_classify(500, "AMQ229231: x", false),
	    RECON_NOT_FOUND);
	assert_int_equal(live_jolokia_classify(404, "", true), RECON_OK);
	assert_int_equal(live_jolokia_classify(200, "AMQ229025: x", false),
	    RECON_OK);
}

/* A bulk past LIVE_JOLOKIA_MAX_REQUEST is refused unsent (it once went out
 * cut at 16 MiB, not JSON, and the broker answered 400); one under it is
 * sent (to a closed port here: UNREACHABLE, one request counted). */
static void
test_jolokia_bulk__request_over_the_bound_unsent(void **state)
{
	struct live_jolokia_conf conf = {.url = "http://127.0.0.1:9/jolokia",
	    .connect_timeout_ms = 2000,
	    .timeout_ms = 2000};
	struct recon_refusal out = {0};
	struct live_bulk b = {0}, small = {0};
	size_t len = 1024 * 1024, i;
	char *mbean = malloc(len + 1);
	const char *attr = "Name";

	(void)state;
	assert_non_null(mbean);
	memset(mbean, 'q', len);
	mbean[len] = '\0';
	for (i = 0; i * len <= LIVE_JOLOKIA_MAX_REQUEST; i++)
		live_bulk_read(&b, mbean, &attr, 1);
	assert_true(b.body.failed);
	assert_int_equal(live_jolokia_post(&conf, &b, &out), -1);
	assert_int_equal(out.kind, RECON_BROKER_ERROR);
	assert_non_null(strstr(out.text, "nothing was sent"));
	assert_non_null(strstr(out.text, "64 MiB"));
	assert_int_equal(b.requests, 0);
	assert_int_equal(b.results[0].refusal.kind, RECON_BROKER_ERROR);
	assert_int_equal(b.results[b.n - 1].refusal.kind, RECON_BROKER_ERROR);
	recon_refusal_release(&out);

	live_bulk_read(&small, "a:b=c", &attr, 1);
	assert_int_equal(live_jolokia_post(&conf, &small, &out), -1);
	assert_int_equal(out.kind, RECON_UNREACHABLE);
	assert_int_equal(small.requests, 1);
	recon_refusal_release(&out);
	live_bulk_release(&small);
	live_bulk_release(&b);
	free(mbean);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_jolokia_bulk__recorded_refusals),
	    cmocka_unit_test(test_jolokia_bulk__whole_request_error_object),
	    cmocka_unit_test(test_jolokia_bulk__http_and_shape_failures),
	    cmocka_unit_test(test_jolokia_bulk__element_shapes),
	    cmocka_unit_test(test_jolokia_bulk__streamed_members),
	    cmocka_unit_test(test_jolokia_bulk__classify_by_code_not_class),
	    cmocka_unit_test(test_jolokia_bulk__request_over_the_bound_unsent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
