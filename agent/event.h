/* agent/event.h: what the daemon tells the outside world about
 * (docs/notifications.md): one event, its kind, and its one written form.
 *
 * An event is made once, where it happens (agent/daemon/events.c), and is
 * then only carried: spooled to disk (agent/webhook/spool.c) and rendered
 * per target into a webhook body (agent/webhook/body.c). Its kinds have one
 * name table (here), which the configuration's `events:` lists are checked
 * against (agent/conf-notify.c).
 */
#ifndef AGENT_EVENT_H
#define AGENT_EVENT_H

#include <stdbool.h>
#include <stddef.h>

#include "../lib/err.h"
#include "../lib/strv.h"

enum agent_event_kind {
	AGENT_EVENT_PREVIEW_POSTED = 0,
	AGENT_EVENT_PREVIEW_REFUSED,
	AGENT_EVENT_APPLY_SUCCEEDED,
	AGENT_EVENT_APPLY_FAILED, /* FAILED or PARTIAL on some node */
	AGENT_EVENT_DRIFT_DETECTED,
	AGENT_EVENT_DRIFT_CLEARED,
	AGENT_EVENT_NODE_UNREACHABLE,
	AGENT_EVENT_NODE_REACHABLE,
	AGENT_EVENT_HISTORY_REWRITTEN,
	AGENT_EVENT_APPROVAL_REFUSED,
	AGENT_EVENT_TEST, /* `artemis-gitops notify-test`: never by the loop */
	AGENT_EVENT_NKINDS,
};

/* How bad it is, for a chat message's colour. */
enum agent_event_level {
	AGENT_EVENT_GOOD = 0,
	AGENT_EVENT_INFO,
	AGENT_EVENT_WARNING,
	AGENT_EVENT_DANGER,
};

/* At most this many detail lines, and bytes per line, are kept: an event
 * carries a summary, the full story is in the outbox. */
#define AGENT_EVENT_LINES_MAX 40
#define AGENT_EVENT_LINE_MAX  512

struct agent_event {
	enum agent_event_kind kind;
	char *cluster;     /* NULL for what is not one cluster's */
	char *occurred_at; /* RFC 3339 UTC */
	char *title;       /* one line: what happened */
	struct strv lines; /* details, one line each, plain text */
	char *link;        /* the page of the preview or cluster, or NULL */
	char *data;        /* the kind's own members: a JSON object's text */
};

/* "preview.posted", ...; NULL for a value out of range. */
const char *agent_event_kind_name(enum agent_event_kind k);
/* The kind named s; -1 when none. */
int agent_event_kind_parse(const char *s, enum agent_event_kind *out);
enum agent_event_level agent_event_kind_level(enum agent_event_kind k);

/* Is s a pattern of `events:`: a kind's name, "GROUP.*" for a group of
 * them ("apply.*"), or "*" for all? */
bool agent_event_pattern_ok(const char *s);
/* Does pattern select kind k? */
bool agent_event_pattern_matches(const char *pattern, enum agent_event_kind k);

/* A new event of kind k at the current time, cluster (may be NULL) and
 * title copied (as a detail line is: one line, at most
 * AGENT_EVENT_LINE_MAX bytes); data "{}" until agent_event_set_data. */
struct agent_event *agent_event_new(enum agent_event_kind k,
    const char *cluster, const char *title);
/* Add one detail line (formatted): control characters become spaces, a
 * line is cut at AGENT_EVENT_LINE_MAX bytes (on a UTF-8 boundary), and
 * past AGENT_EVENT_LINES_MAX lines the last one says how many more. */
void agent_event_addf(struct agent_event *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Take json (a JSON object's text, owned) as the event's data. */
void agent_event_set_data(struct agent_event *e, char *json);
void agent_event_set_link(struct agent_event *e, const char *link);
void agent_event_free(struct agent_event *e); /* NULL is a no-op */

/* The event as the JSON object the spool keeps and the json body embeds
 * (canonical, compact). Owned. */
char *agent_event_render(const struct agent_event *e);
/* Read one back (path names it in errors). */
int agent_event_parse(struct agent_event **out, const char *path,
    const char *text, size_t len, struct err *err);

#endif
