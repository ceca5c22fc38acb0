/* agent/event.c: see event.h. */
#include "event.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/clock.h"
#include "../lib/json.h"
#include "../lib/jsonw.h"
#include "../lib/sbuf.h"
#include "../lib/utf8.h"
#include "../lib/xalloc.h"

static const struct {
	const char *name;
	enum agent_event_level level;
} kinds[AGENT_EVENT_NKINDS] = {
    [AGENT_EVENT_PREVIEW_POSTED] = {"preview.posted", AGENT_EVENT_INFO},
    [AGENT_EVENT_PREVIEW_REFUSED] = {"preview.refused", AGENT_EVENT_DANGER},
    [AGENT_EVENT_APPLY_SUCCEEDED] = {"apply.succeeded", AGENT_EVENT_GOOD},
    [AGENT_EVENT_APPLY_FAILED] = {"apply.failed", AGENT_EVENT_DANGER},
    [AGENT_EVENT_DRIFT_DETECTED] = {"drift.detected", AGENT_EVENT_WARNING},
    [AGENT_EVENT_DRIFT_CLEARED] = {"drift.cleared", AGENT_EVENT_GOOD},
    [AGENT_EVENT_NODE_UNREACHABLE] = {"node.unreachable", AGENT_EVENT_DANGER},
    [AGENT_EVENT_NODE_REACHABLE] = {"node.reachable", AGENT_EVENT_GOOD},
    [AGENT_EVENT_HISTORY_REWRITTEN] = {"history.rewritten",
        AGENT_EVENT_WARNING},
    [AGENT_EVENT_APPROVAL_REFUSED] = {"approval.refused", AGENT_EVENT_WARNING},
    [AGENT_EVENT_TEST] = {"test", AGENT_EVENT_INFO},
};

const char *
agent_event_kind_name(enum agent_event_kind k)
{
	if ((unsigned)k >= AGENT_EVENT_NKINDS)
		return NULL;
	return kinds[k].name;
}

int
agent_event_kind_parse(const char *s, enum agent_event_kind *out)
{
	unsigned i;

	for (i = 0; i < AGENT_EVENT_NKINDS; i++) {
		if (strcmp(kinds[i].name, s) == 0) {
			*out = (enum agent_event_kind)i;
			return 0;
		}
	}
	return -1;
}

enum agent_event_level
agent_event_kind_level(enum agent_event_kind k)
{
	if ((unsigned)k >= AGENT_EVENT_NKINDS)
		return AGENT_EVENT_INFO;
	return kinds[k].level;
}

bool
agent_event_pattern_matches(const char *pattern, enum agent_event_kind k)
{
	const char *name = agent_event_kind_name(k);
	size_t n = strlen(pattern);

	if (name == NULL)
		return false;
	if (strcmp(pattern, "*") == 0)
		return true;
	if (n > 2 && strcmp(pattern + n - 2, ".*") == 0)
		return strncmp(name, pattern, n - 1) == 0;
	return strcmp(pattern, name) == 0;
}

bool
agent_event_pattern_ok(const char *s)
{
	unsigned i;

	for (i = 0; i < AGENT_EVENT_NKINDS; i++)
		if (agent_event_pattern_matches(s, (enum agent_event_kind)i))
			return true;
	return false;
}

/* s cut to at most max bytes, never inside a UTF-8 sequence. */
static void
cut_utf8(char *s, size_t max)
{
	size_t n = strlen(s);

	if (n <= max)
		return;
	n = max;
	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	s[n] = '\0';
}

struct agent_event *
agent_event_new(enum agent_event_kind k, const char *cluster, const char *title)
{
	struct agent_event *e = xcalloc(1, sizeof(*e));

	e->kind = k;
	e->cluster = cluster != NULL ? xstrdup(cluster) : NULL;
	e->occurred_at = clock_rfc3339_now();
	e->title = utf8_escape(title, utf8_line_problem);
	cut_utf8(e->title, AGENT_EVENT_LINE_MAX);
	e->data = xstrdup("{}");
	return e;
}

void
agent_event_addf(struct agent_event *e, const char *fmt, ...)
{
	va_list ap;
	char *raw = NULL, *line;
	int r;

	if (e->lines.n > AGENT_EVENT_LINES_MAX)
		return;
	if (e->lines.n == AGENT_EVENT_LINES_MAX) {
		strv_add(&e->lines, "(more in the outbox)");
		return;
	}
	va_start(ap, fmt);
	r = vasprintf(&raw, fmt, ap);
	va_end(ap);
	if (r < 0)
		abort(); /* out of memory, as xasprintf */
	line = utf8_escape(raw, utf8_line_problem);
	cut_utf8(line, AGENT_EVENT_LINE_MAX);
	strv_add(&e->lines, line);
	free(line);
	free(raw);
}

void
agent_event_set_data(struct agent_event *e, char *json)
{
	free(e->data);
	e->data = json;
}

void
agent_event_set_link(struct agent_event *e, const char *link)
{
	free(e->link);
	e->link = link != NULL ? xstrdup(link) : NULL;
}

void
agent_event_free(struct agent_event *e)
{
	if (e == NULL)
		return;
	free(e->cluster);
	free(e->occurred_at);
	free(e->title);
	strv_release(&e->lines);
	free(e->link);
	free(e->data);
	free(e);
}

char *
agent_event_render(const struct agent_event *e)
{
	struct sbuf b = {0};
	struct jsonw w;
	size_t i;

	jsonw_init(&w, &b, 0);
	jsonw_obj_begin(&w);
	jsonw_key_str(&w, "cluster", e->cluster);
	jsonw_key(&w, "data");
	jsonw_raw(&w, e->data);
	jsonw_key_str(&w, "event", agent_event_kind_name(e->kind));
	jsonw_key(&w, "lines");
	jsonw_arr_begin(&w);
	for (i = 0; i < e->lines.n; i++)
		jsonw_str(&w, e->lines.v[i]);
	jsonw_arr_end(&w);
	jsonw_key_str(&w, "link", e->link);
	jsonw_key_str(&w, "occurred_at", e->occurred_at);
	jsonw_key_str(&w, "title", e->title);
	jsonw_obj_end(&w);
	return sbuf_take(&b);
}

/* The members of an event object into e. */
static int
read_event(struct agent_event *e, struct json_reader *c, const struct json *o)
{
	const struct json *data, *lines, *it;
	char *kind = NULL;
	size_t nlines = 0;
	int r = -1;

	if (json_read_str(c, o, "", "event", false, &kind) < 0 ||
	    json_read_str(c, o, "", "cluster", true, &e->cluster) < 0 ||
	    json_read_str(c, o, "", "occurred_at", false, &e->occurred_at) <
	        0 ||
	    json_read_str(c, o, "", "title", false, &e->title) < 0 ||
	    json_read_str(c, o, "", "link", true, &e->link) < 0)
		goto done;
	if (agent_event_kind_parse(kind, &e->kind) < 0) {
		json_read_fail(c, "", "event", "not an event kind");
		goto done;
	}
	data = json_read_object(c, o, "", "data", false);
	lines = json_read_array(c, o, "", "lines", &nlines);
	if (data == NULL || lines == NULL)
		goto done;
	for (it = json_first(lines); it != NULL; it = json_next(it)) {
		if (!json_is_string(it)) {
			json_read_fail(c, "", "lines", "not a list of strings");
			goto done;
		}
		strv_add(&e->lines, json_str(it));
	}
	e->data = json_render(data);
	r = 0;
done:
	free(kind);
	return r;
}

int
agent_event_parse(struct agent_event **out, const char *path, const char *text,
    size_t len, struct err *err)
{
	struct json_doc *doc = NULL;
	struct json_reader c = {path, err};
	struct agent_event *e;
	int rc = -1;

	if (json_parse(&doc, path, text, len, err) < 0)
		return -1;
	e = xcalloc(1, sizeof(*e));
	if (!json_is_object(json_doc_root(doc))) {
		err_setf(err, NULL, "%s: an event must be a JSON object", path);
	} else if (read_event(e, &c, json_doc_root(doc)) == 0) {
		*out = e;
		e = NULL;
		rc = 0;
	}
	agent_event_free(e);
	json_doc_free(doc);
	return rc;
}
