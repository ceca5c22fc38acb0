/* tests/unit/test-deliver.c: agent/webhook/deliver.c: delivery ids, the
 * backoff and its jitter, the signature, the verdict of an answer, and one
 * attempt against a receiver on a real socket (its headers, and the
 * signature checked again here over the bytes it received). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "../../agent/webhook/webhook-int.h"
#include "../../lib/sha256.h"
#include "hook-fixture.h"

static void
test_deliver__ids_are_random_uuids(void **state)
{
	char a[WEBHOOK_ID_LEN + 1], b[WEBHOOK_ID_LEN + 1];
	size_t i;

	(void)state;
	webhook_new_id(a);
	webhook_new_id(b);
	assert_int_equal(strlen(a), WEBHOOK_ID_LEN);
	assert_string_not_equal(a, b);
	for (i = 0; i < WEBHOOK_ID_LEN; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23)
			assert_int_equal(a[i], '-');
		else
			assert_non_null(strchr("0123456789abcdef", a[i]));
	}
	assert_int_equal(a[14], '4');
	assert_non_null(strchr("89ab", a[19]));
}

static void
test_deliver__backoff_doubles_to_its_ceiling_with_jitter(void **state)
{
	int64_t d;
	unsigned k;
	int i;

	(void)state;
	for (i = 0; i < 200; i++) {
		/* attempt 1: 10 s, between half and all of it */
		d = webhook_backoff_ms(1, 10, 600);
		assert_true(d >= 5000 && d <= 10000);
		d = webhook_backoff_ms(3, 10, 600);
		assert_true(d >= 20000 && d <= 40000);
		/* the ceiling holds however many attempts */
		for (k = 7; k < 40; k += 11) {
			d = webhook_backoff_ms(k, 10, 600);
			assert_true(d >= 300000 && d <= 600000);
		}
	}
}

static void
test_deliver__signature_is_hmac_sha256_of_the_body(void **state)
{
	char sig[WEBHOOK_SIG_LEN + 1];

	(void)state;
	/* RFC 4231 case 2 */
	webhook_sign("Jefe", 4, "what do ya want for nothing?", 28, sig);
	assert_string_equal(sig, "sha256=5bdcc146bf60754e6a042426089575c75a003f"
	                         "089d2739839dec58b964ec3843");
}

static void
test_deliver__verdicts(void **state)
{
	(void)state;
	assert_int_equal(webhook_status_verdict(200), WEBHOOK_SENT);
	assert_int_equal(webhook_status_verdict(204), WEBHOOK_SENT);
	assert_int_equal(webhook_status_verdict(301), WEBHOOK_RETRY);
	assert_int_equal(webhook_status_verdict(400), WEBHOOK_PERMANENT);
	assert_int_equal(webhook_status_verdict(401), WEBHOOK_PERMANENT);
	assert_int_equal(webhook_status_verdict(404), WEBHOOK_PERMANENT);
	assert_int_equal(webhook_status_verdict(408), WEBHOOK_RETRY);
	assert_int_equal(webhook_status_verdict(429), WEBHOOK_RETRY);
	assert_int_equal(webhook_status_verdict(500), WEBHOOK_RETRY);
	assert_int_equal(webhook_status_verdict(503), WEBHOOK_RETRY);
}

static bool
stop_now(void *ctx)
{
	return *(const bool *)ctx;
}

/* One spooled delivery of a small event. */
static void
spooled(struct webhook_spooled *s)
{
	memset(s, 0, sizeof(*s));
	s->seq = 7;
	webhook_new_id(s->id);
	s->event = agent_event_new(AGENT_EVENT_APPLY_FAILED, "shop-eu",
	    "apply of p failed");
	agent_event_addf(s->event, "node 'node2': FAILED");
}

static void
test_deliver__one_attempt_signed_and_stamped(void **state)
{
	static const int script[] = {202, 500, 404, 0};
	struct webhook_sender from = {"h1", "9.9.9"};
	struct webhook_spooled s;
	struct hook_rx rx;
	bool stop = false;
	struct http_tick tick = {stop_now, &stop, 100};
	struct webhook_attempt at = {NULL, "k3y", 3, NULL, AGENT_CONF_BODY_JSON,
	    2000, &from, &tick};
	char *url, *why = NULL, *h, sig[WEBHOOK_SIG_LEN + 1];
	time_t before = time(NULL);

	(void)state;
	hook_start(&rx, script, 4);
	url = xasprintf("http://127.0.0.1:%u/hook", rx.port);
	at.url = url;
	spooled(&s);
	assert_int_equal(webhook_deliver(&at, &s, &why), WEBHOOK_SENT);
	assert_null(why);
	assert_int_equal(hook_count(&rx), 1);
	/* the signature is over the exact bytes received */
	webhook_sign("k3y", 3, rx.got[0].body, strlen(rx.got[0].body), sig);
	h = hook_header(rx.got[0].head, "X-Artemis-Gitops-Signature");
	assert_string_equal(h, sig);
	free(h);
	h = hook_header(rx.got[0].head, "X-Artemis-Gitops-Delivery");
	assert_string_equal(h, s.id);
	free(h);
	h = hook_header(rx.got[0].head, "X-Artemis-Gitops-Event");
	assert_string_equal(h, "apply.failed");
	free(h);
	h = hook_header(rx.got[0].head, "X-Artemis-Gitops-Timestamp");
	assert_true(strtoll(h, NULL, 10) >= (long long)before);
	assert_non_null(strstr(rx.got[0].body, h)); /* and in the body */
	free(h);
	h = hook_header(rx.got[0].head, "User-Agent");
	assert_string_equal(h, "artemis-gitops/9.9.9");
	free(h);
	assert_non_null(strstr(rx.got[0].body, s.id));
	/* 500: again later; 404: never */
	assert_int_equal(webhook_deliver(&at, &s, &why), WEBHOOK_RETRY);
	assert_string_equal(why, "HTTP 500");
	free(why);
	assert_int_equal(webhook_deliver(&at, &s, &why), WEBHOOK_PERMANENT);
	assert_string_equal(why, "HTTP 404");
	free(why);
	/* no answer at all: the transport's words, not the URL's path */
	assert_int_equal(webhook_deliver(&at, &s, &why), WEBHOOK_RETRY);
	assert_null(strstr(why, "/hook"));
	free(why);
	hook_stop(&rx);
	/* nobody listens: refused, retried */
	assert_int_equal(webhook_deliver(&at, &s, &why), WEBHOOK_RETRY);
	assert_non_null(strstr(why, "HTTP_REFUSED"));
	free(why);
	/* a stop during the attempt: given up, not an attempt */
	stop = true;
	assert_int_equal(webhook_deliver(&at, &s, &why), WEBHOOK_ABANDONED);
	assert_null(why);
	free(url);
	webhook_spooled_release(&s);
}

static void
test_deliver__hung_receiver_times_out(void **state)
{
	struct webhook_sender from = {"h1", "9.9.9"};
	struct webhook_spooled s;
	struct webhook_attempt at = {NULL, "k", 1, NULL, AGENT_CONF_BODY_SLACK,
	    1000, &from, NULL};
	char *url, *why = NULL;
	int sock;
	struct sockaddr_in sa;

	(void)state;
	/* a socket that listens and never accepts: the request hangs */
	sock = socket(AF_INET, SOCK_STREAM, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(sock, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(sock, 1), 0);
	assert_int_equal(
	    getsockname(sock, (struct sockaddr *)&sa, &(socklen_t){sizeof(sa)}),
	    0);
	url = xasprintf("http://127.0.0.1:%u/", ntohs(sa.sin_port));
	at.url = url;
	spooled(&s);
	assert_int_equal(webhook_deliver(&at, &s, &why), WEBHOOK_RETRY);
	assert_non_null(strstr(why, "HTTP_TIMEOUT"));
	free(why);
	close(sock);
	free(url);
	webhook_spooled_release(&s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_deliver__ids_are_random_uuids),
	    cmocka_unit_test(
	        test_deliver__backoff_doubles_to_its_ceiling_with_jitter),
	    cmocka_unit_test(
	        test_deliver__signature_is_hmac_sha256_of_the_body),
	    cmocka_unit_test(test_deliver__verdicts),
	    cmocka_unit_test(test_deliver__one_attempt_signed_and_stamped),
	    cmocka_unit_test(test_deliver__hung_receiver_times_out),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
