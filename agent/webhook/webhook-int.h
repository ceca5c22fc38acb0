/* agent/webhook/webhook-int.h: shared by the files of agent/webhook/ only
 * (and the unit tests), grouped by the file that implements them, lowest
 * first.
 *
 *   body.c     an event as a target's body: json (ours) or slack
 *   spool.c    a target's spool folder: one file per delivery
 *   deliver.c  one attempt: the request, its signature, its verdict
 *   webhook.c  the targets, their queues and threads (webhook.h)
 */
#ifndef AGENT_WEBHOOK_WEBHOOK_INT_H
#define AGENT_WEBHOOK_WEBHOOK_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../lib/err.h"
#include "../../lib/http.h"
#include "../conf.h"
#include "../event.h"
#include "webhook.h"

/* ==== body.c ==== */

#define WEBHOOK_BODY_FORMAT  "artemis-gitops/notification"
#define WEBHOOK_BODY_VERSION 1
#define WEBHOOK_ID_LEN       36 /* a delivery id: a UUID's text */

/* Who sends, for the body. */
struct webhook_sender {
	const char *host;
	const char *version;
};

/* The body of delivery id of e, sent at unix time now, in format f
 * (canonical compact JSON). Owned. */
char *webhook_body_render(enum agent_conf_body f, const struct agent_event *e,
    const char *id, int64_t now, const struct webhook_sender *from);
/* s for a Slack-compatible chat text: &, < and > as Slack's entities, and
 * a WORD JOINER (U+2060) after every '@', so that no name mentions a
 * person or a channel (Mattermost, Rocket.Chat). Appended to out. */
void webhook_chat_escape(struct sbuf *out, const char *s);

/* ==== spool.c ==== */

#define WEBHOOK_SPOOL_FORMAT   "artemis-gitops/notification-spool"
#define WEBHOOK_SPOOL_VERSION  1
#define WEBHOOK_SPOOL_FILE_MAX ((size_t)256 * 1024) /* bytes of one file */

/* One delivery as its spool file holds it. */
struct webhook_spooled {
	uint64_t seq;                /* order within the target */
	char id[WEBHOOK_ID_LEN + 1]; /* the delivery id */
	unsigned attempts;           /* failed attempts so far */
	char *queued_at;             /* RFC 3339 */
	struct agent_event *event;   /* owned */
};

void webhook_spooled_release(struct webhook_spooled *s);

/* The file of delivery (seq, id) in dir: DIR/<seq, 16 digits>-<id>.json.
 * Owned. */
char *webhook_spool_path(const char *dir, uint64_t seq, const char *id);
/* Write s, with event e (s->event is not read), into dir, atomically
 * (afile_write: a temporary file, fsync, rename, the folder fsync'd). */
int webhook_spool_write(const char *dir, const struct webhook_spooled *s,
    const struct agent_event *e, struct err *err);
/* Read the file at path. */
int webhook_spool_read(struct webhook_spooled *out, const char *path,
    struct err *err);
/* The deliveries of dir, by seq: *seqs and *ids (WEBHOOK_ID_LEN + 1
 * bytes each) and *attempts, *n of each, owned. Files that are not a
 * spool file's name are left alone; one that cannot be read is reported
 * through bad(ctx, path, why) and skipped (it stays). dir is created
 * (0700) when missing. */
struct webhook_spool_entry {
	uint64_t seq;
	char id[WEBHOOK_ID_LEN + 1];
	unsigned attempts;
};
int webhook_spool_list(struct webhook_spool_entry **out, size_t *n,
    const char *dir, void (*bad)(void *ctx, const char *path, const char *why),
    void *ctx, struct err *err);
/* Remove delivery (seq, id) from dir; a missing file is no error. */
int webhook_spool_remove(const char *dir, uint64_t seq, const char *id,
    struct err *err);

/* ==== deliver.c ==== */

/* A new delivery id (a random UUID, version 4) into out. */
void webhook_new_id(char out[WEBHOOK_ID_LEN + 1]);
/* The delay before retry number attempts (1 after the first failure):
 * initial_s doubled per attempt, at most max_s, then between half and all
 * of it (jitter, so that deliveries failed together do not retry
 * together). In milliseconds. */
int64_t webhook_backoff_ms(unsigned attempts, long initial_s, long max_s);
/* "sha256=<hex of HMAC-SHA256(key, body)>" into out (7 + 64 + 1 bytes). */
#define WEBHOOK_SIG_LEN (7 + 64)
void webhook_sign(const char *key, size_t keylen, const char *body, size_t len,
    char out[WEBHOOK_SIG_LEN + 1]);

enum webhook_verdict {
	WEBHOOK_SENT = 0,  /* 2xx */
	WEBHOOK_RETRY,     /* transport failure, 408, 429, 5xx, other 3xx */
	WEBHOOK_PERMANENT, /* 4xx but 408 and 429: retrying cannot help */
	WEBHOOK_ABANDONED, /* stopped while in flight: not an attempt */
};

/* What one attempt needs (borrowed). */
struct webhook_attempt {
	const char *url;
	const char *secret;
	size_t secret_len;
	const char *ca_file; /* NULL: the system store */
	enum agent_conf_body body;
	long timeout_ms;
	const struct webhook_sender *from;
	const struct http_tick *tick; /* abandons on a stop */
};

/* Send delivery s once; *why (owned) says why when it was not sent: the
 * HTTP status or the transport's words, never the URL's path or query
 * (a Slack URL is itself a secret) nor the secret. */
enum webhook_verdict webhook_deliver(const struct webhook_attempt *at,
    const struct webhook_spooled *s, char **why);
/* The verdict of an answer with HTTP status code. */
enum webhook_verdict webhook_status_verdict(int status);

#endif
