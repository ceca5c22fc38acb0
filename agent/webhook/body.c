/* agent/webhook/body.c: an event as the body of one delivery
 * (docs/notifications.md, "Bodies"). The json body is ours, versioned;
 * the slack body is what Slack's incoming webhooks take (`text` and one
 * legacy attachment), which Mattermost and Rocket.Chat accept as well. Both
 * carry the delivery id and the attempt's time, so that the signature,
 * which covers the body, covers them too. */
#include "webhook-int.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/jsonw.h"
#include "../../lib/sbuf.h"
#include "../../lib/xalloc.h"

void
webhook_chat_escape(struct sbuf *out, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '&')
			sbuf_adds(out, "&amp;");
		else if (*s == '<')
			sbuf_adds(out, "&lt;");
		else if (*s == '>')
			sbuf_adds(out, "&gt;");
		else if (*s == '@')
			sbuf_adds(out, "@\xe2\x81\xa0"); /* U+2060 */
		else
			sbuf_addc(out, *s);
	}
}

static char *
render_json(const struct agent_event *e, const char *id, int64_t now,
    const struct webhook_sender *from)
{
	struct sbuf b = {0};
	struct jsonw w;
	size_t i;

	jsonw_init(&w, &b, 0);
	jsonw_obj_begin(&w);
	jsonw_key(&w, "agent");
	jsonw_obj_begin(&w);
	jsonw_key_str(&w, "host", from->host);
	jsonw_key_str(&w, "version", from->version);
	jsonw_obj_end(&w);
	jsonw_key_str(&w, "cluster", e->cluster);
	jsonw_key(&w, "data");
	jsonw_raw(&w, e->data);
	jsonw_key_str(&w, "delivery", id);
	jsonw_key_str(&w, "event", agent_event_kind_name(e->kind));
	jsonw_key_str(&w, "format", WEBHOOK_BODY_FORMAT);
	jsonw_key(&w, "lines");
	jsonw_arr_begin(&w);
	for (i = 0; i < e->lines.n; i++)
		jsonw_str(&w, e->lines.v[i]);
	jsonw_arr_end(&w);
	jsonw_key_str(&w, "link", e->link);
	jsonw_key_str(&w, "occurred_at", e->occurred_at);
	jsonw_key_int(&w, "timestamp", now);
	jsonw_key_str(&w, "title", e->title);
	jsonw_key_int(&w, "version", WEBHOOK_BODY_VERSION);
	jsonw_obj_end(&w);
	return sbuf_take(&b);
}

static const char *
colour(enum agent_event_level l)
{
	switch (l) {
	case AGENT_EVENT_GOOD:
		return "#2eb886";
	case AGENT_EVENT_WARNING:
		return "#daa038";
	case AGENT_EVENT_DANGER:
		return "#a30200";
	case AGENT_EVENT_INFO:
	default:
		return "#439fe0";
	}
}

/* key: the chat-escaped s */
static void
chat_member(struct jsonw *w, const char *key, const char *s)
{
	struct sbuf t = {0};

	webhook_chat_escape(&t, s);
	jsonw_key_str(w, key, sbuf_str(&t));
	sbuf_release(&t);
}

static char *
render_slack(const struct agent_event *e, const char *id, int64_t now,
    const struct webhook_sender *from)
{
	struct sbuf b = {0}, text = {0}, title = {0};
	struct jsonw w;
	char *footer;
	size_t i;

	for (i = 0; i < e->lines.n; i++)
		sbuf_addf(&text, "%s%s", i > 0 ? "\n" : "", e->lines.v[i]);
	if (e->cluster != NULL)
		sbuf_addf(&title, "[%s] ", e->cluster);
	sbuf_adds(&title, e->title);
	footer = xasprintf("artemis-gitops %s on %s · %s · delivery %s",
	    from->version, from->host, agent_event_kind_name(e->kind), id);
	jsonw_init(&w, &b, 0);
	jsonw_obj_begin(&w);
	jsonw_key(&w, "attachments");
	jsonw_arr_begin(&w);
	jsonw_obj_begin(&w);
	jsonw_key_str(&w, "color", colour(agent_event_kind_level(e->kind)));
	chat_member(&w, "fallback", sbuf_str(&title));
	chat_member(&w, "footer", footer);
	chat_member(&w, "text", sbuf_str(&text));
	chat_member(&w, "title", e->title);
	if (e->link != NULL)
		jsonw_key_str(&w, "title_link", e->link);
	jsonw_key_int(&w, "ts", now);
	jsonw_obj_end(&w);
	jsonw_arr_end(&w);
	chat_member(&w, "text", sbuf_str(&title));
	jsonw_obj_end(&w);
	sbuf_release(&text);
	sbuf_release(&title);
	free(footer);
	return sbuf_take(&b);
}

char *
webhook_body_render(enum agent_conf_body f, const struct agent_event *e,
    const char *id, int64_t now, const struct webhook_sender *from)
{
	if (f == AGENT_CONF_BODY_SLACK)
		return render_slack(e, id, now, from);
	return render_json(e, id, now, from);
}
