/* agent/webhook/deliver.c: one delivery attempt (docs/notifications.md,
 * "Signatures" and "Retries"): the body rendered for this attempt (its
 * timestamp is the attempt's), signed, POSTed through the project's one
 * HTTP client, and the answer judged. */
#include "webhook-int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "../../lib/sha256.h"
#include "../../lib/xalloc.h"

#define RESPONSE_MAX ((size_t)64 * 1024) /* a receiver's answer is ignored */

/* n random bytes; the kernel's pool never runs dry past boot, so a short
 * read is retried and a failure (no getrandom at all) is fatal. */
static void
random_bytes(unsigned char *out, size_t n)
{
	ssize_t r;
	size_t got = 0;

	while (got < n) {
		r = getrandom(out + got, n - got, 0);
		if (r <= 0)
			abort();
		got += (size_t)r;
	}
}

void
webhook_new_id(char out[WEBHOOK_ID_LEN + 1])
{
	unsigned char b[16];

	random_bytes(b, sizeof(b));
	b[6] = (unsigned char)((b[6] & 0x0f) | 0x40); /* version 4 */
	b[8] = (unsigned char)((b[8] & 0x3f) | 0x80); /* RFC 4122 variant */
	snprintf(out, WEBHOOK_ID_LEN + 1,
	    "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
	    "%02x%02x%02x%02x%02x%02x",
	    b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10],
	    b[11], b[12], b[13], b[14], b[15]);
}

int64_t
webhook_backoff_ms(unsigned attempts, long initial_s, long max_s)
{
	int64_t d = (int64_t)initial_s * 1000, cap = (int64_t)max_s * 1000;
	uint32_t r;
	unsigned i;

	for (i = 1; i < attempts && d < cap; i++)
		d *= 2;
	if (d > cap)
		d = cap;
	random_bytes((unsigned char *)&r, sizeof(r));
	return d / 2 + (int64_t)(r % (uint32_t)(d / 2 + 1));
}

void
webhook_sign(const char *key, size_t keylen, const char *body, size_t len,
    char out[WEBHOOK_SIG_LEN + 1])
{
	unsigned char md[SHA256_LEN];
	char hex[SHA256_HEX];

	sha256_hmac(key, keylen, body, len, md);
	sha256_to_hex(md, hex);
	snprintf(out, WEBHOOK_SIG_LEN + 1, "sha256=%s", hex);
}

enum webhook_verdict
webhook_status_verdict(int status)
{
	if (status >= 200 && status < 300)
		return WEBHOOK_SENT;
	if (status == 408 || status == 429)
		return WEBHOOK_RETRY;
	if (status >= 400 && status < 500)
		return WEBHOOK_PERMANENT;
	return WEBHOOK_RETRY;
}

static bool
was_abandoned(const struct webhook_attempt *at)
{
	return at->tick != NULL && at->tick->fn != NULL &&
	       at->tick->fn(at->tick->ctx);
}

enum webhook_verdict
webhook_deliver(const struct webhook_attempt *at,
    const struct webhook_spooled *s, char **why)
{
	struct http_request req;
	struct http_response resp = {0};
	enum webhook_verdict v;
	char sig[WEBHOOK_SIG_LEN + 1], *body, *ua, *hev, *hid, *hts, *hsig;
	int64_t now = (int64_t)time(NULL);

	*why = NULL;
	body = webhook_body_render(at->body, s->event, s->id, now, at->from);
	webhook_sign(at->secret, at->secret_len, body, strlen(body), sig);
	ua = xasprintf("User-Agent: artemis-gitops/%s", at->from->version);
	hev = xasprintf("X-Artemis-Gitops-Event: %s",
	    agent_event_kind_name(s->event->kind));
	hid = xasprintf("X-Artemis-Gitops-Delivery: %s", s->id);
	hts = xasprintf("X-Artemis-Gitops-Timestamp: %" PRId64, now);
	hsig = xasprintf("X-Artemis-Gitops-Signature: %s", sig);
	memset(&req, 0, sizeof(req));
	req.method = "POST";
	req.url = at->url;
	req.body = body;
	req.body_len = strlen(body);
	req.headers = (const char *const[]){"Content-Type: application/json",
	    ua, hev, hid, hts, hsig};
	req.nheaders = 6;
	req.ca_file = at->ca_file;
	req.connect_timeout_ms = at->timeout_ms < 5000 ? at->timeout_ms : 5000;
	req.timeout_ms = at->timeout_ms;
	req.max_response = RESPONSE_MAX;
	req.tick = at->tick;
	if (http_send(&req, &resp) < 0) {
		if (was_abandoned(at)) {
			v = WEBHOOK_ABANDONED;
		} else {
			v = WEBHOOK_RETRY;
			*why = xasprintf("%s: %s", http_fail_name(resp.fail),
			    resp.error != NULL ? resp.error : "no answer");
		}
	} else {
		v = webhook_status_verdict(resp.status);
		if (v != WEBHOOK_SENT)
			*why = xasprintf("HTTP %d", resp.status);
	}
	http_response_release(&resp);
	free(body);
	free(ua);
	free(hev);
	free(hid);
	free(hts);
	free(hsig);
	return v;
}
