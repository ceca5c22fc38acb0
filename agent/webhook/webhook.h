/* agent/webhook/webhook.h: webhook notifications (docs/notifications.md),
 * what the daemon needs of them.
 *
 * Every event the daemon posts (agent/event.h) goes to each target of
 * `notifications.targets` that wants it: it is written to the target's
 * spool (STATE/notifications/spool/<target>/, one file per delivery,
 * written atomically) before webhook_post returns, and sent by the
 * target's own thread, in order, one delivery at a time: HTTP POST of the
 * body (json or slack), signed with HMAC-SHA256 under the target's secret
 * (X-Artemis-Gitops-Signature: sha256=<hex>), with a delivery id and a
 * timestamp. A failed attempt is retried with exponential backoff and
 * jitter up to notifications.max-attempts, then the delivery is dropped,
 * counted and logged once. A receiver's 4xx other than 408 and 429 drops
 * it at once (retrying cannot help). Nothing here runs in the daemon's
 * loop but the spool write: a receiver that fails, hangs or is gone never
 * holds the loop or its watchdog. The spool survives a restart.
 */
#ifndef AGENT_WEBHOOK_WEBHOOK_H
#define AGENT_WEBHOOK_WEBHOOK_H

#include <stdbool.h>

#include "../../lib/err.h"

struct agent_conf;
struct agent_event;
struct metrics;
struct webhook; /* opaque: the targets, their queues and threads */

/* Read every target's secret (and URL file) from the credentials folder,
 * refused as every secret is (agent/creds.h) with the key, the file and
 * why; nothing is started then. */
int webhook_check(const struct agent_conf *conf, struct err *err);

/* Start delivering: the checks above, each target's spool read back (its
 * deliveries sent first, in order), one thread per target. m (may be
 * NULL) counts what happens (artemis_gitops_notifications_*). Without
 * targets *out is NULL and nothing runs. 0, or -1 with err. */
int webhook_start(struct webhook **out, const struct agent_conf *conf,
    struct metrics *m, struct err *err);

/* Queue e for every target that wants it (its `events` and `clusters`).
 * Each delivery is on disk when this returns; a spool that cannot be
 * written is logged and the delivery counted as dropped. Called from one
 * thread only (the loop). NULL w: nothing. */
void webhook_post(struct webhook *w, const struct agent_event *e);

/* Wait, at most timeout_ms, until no delivery is due: every queue empty
 * or its first delivery waiting for a retry (`run --once`). */
void webhook_drain(struct webhook *w, long timeout_ms);

/* `artemis-gitops notify-test`: send one `test` event to every target of
 * conf (or to the one named only), now, one attempt each, without the
 * spool (a running agent owns it); each outcome through report(ctx,
 * target, sent, why). 0 when it could try; -1 with err when a target's
 * secret or URL cannot be read, or no target is named only. */
int webhook_send_test(const struct agent_conf *conf, const char *only,
    void (*report)(void *ctx, const char *target, bool sent, const char *why),
    void *ctx, struct err *err);

/* Stop the threads (an attempt in flight is given up within a fraction
 * of a second and stays spooled, not counted as an attempt), wipe the
 * secrets, free. NULL is a no-op. */
void webhook_stop(struct webhook *w);

#endif
