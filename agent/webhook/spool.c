/* agent/webhook/spool.c: a target's spool (docs/notifications.md,
 * "The spool"): STATE/notifications/spool/<target>/<seq>-<id>.json, one
 * file per pending delivery, written atomically, removed once the delivery
 * was sent or dropped. The sequence number in the name orders them. */
#include "webhook-int.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/afile.h"
#include "../../lib/json.h"
#include "../../lib/jsonw.h"
#include "../../lib/sbuf.h"
#include "../../lib/xalloc.h"

#define SEQ_DIGITS 16

void
webhook_spooled_release(struct webhook_spooled *s)
{
	free(s->queued_at);
	agent_event_free(s->event);
	memset(s, 0, sizeof(*s));
}

char *
webhook_spool_path(const char *dir, uint64_t seq, const char *id)
{
	return xasprintf("%s/%0*" PRIu64 "-%s.json", dir, SEQ_DIGITS, seq, id);
}

static char *
render(const struct webhook_spooled *s, const struct agent_event *e)
{
	struct sbuf b = {0};
	struct jsonw w;
	char *ev = agent_event_render(e);

	jsonw_init(&w, &b, 2);
	jsonw_obj_begin(&w);
	jsonw_key_int(&w, "attempts", s->attempts);
	jsonw_key_str(&w, "delivery", s->id);
	jsonw_key(&w, "event");
	jsonw_raw(&w, ev);
	jsonw_key_str(&w, "format", WEBHOOK_SPOOL_FORMAT);
	jsonw_key_str(&w, "queued_at", s->queued_at);
	jsonw_key_int(&w, "seq", (int64_t)s->seq);
	jsonw_key_int(&w, "version", WEBHOOK_SPOOL_VERSION);
	jsonw_obj_end(&w);
	sbuf_addc(&b, '\n');
	free(ev);
	return sbuf_take(&b);
}

int
webhook_spool_write(const char *dir, const struct webhook_spooled *s,
    const struct agent_event *e, struct err *err)
{
	char *path = webhook_spool_path(dir, s->seq, s->id);
	char *text = render(s, e);
	int r;

	r = afile_write(path, text, strlen(text), 0600, err);
	free(text);
	free(path);
	return r;
}

/* Is name "<16 digits>-<36 characters of a UUID>.json"? Its seq and id. */
static bool
parse_name(const char *name, uint64_t *seq, char id[WEBHOOK_ID_LEN + 1])
{
	size_t n = strlen(name), i;
	uint64_t v = 0;

	if (n != SEQ_DIGITS + 1 + WEBHOOK_ID_LEN + 5 ||
	    name[SEQ_DIGITS] != '-' || strcmp(name + n - 5, ".json") != 0)
		return false;
	for (i = 0; i < SEQ_DIGITS; i++) {
		if (name[i] < '0' || name[i] > '9')
			return false;
		v = v * 10 + (uint64_t)(name[i] - '0');
	}
	for (i = 0; i < WEBHOOK_ID_LEN; i++) {
		id[i] = name[SEQ_DIGITS + 1 + i];
		if (strchr("0123456789abcdef-", id[i]) == NULL || id[i] == '\0')
			return false;
	}
	id[WEBHOOK_ID_LEN] = '\0';
	*seq = v;
	return true;
}

/* The members of a spool file into out. */
static int
read_doc(struct webhook_spooled *out, const struct json *root,
    struct json_reader *c, const char *path, struct err *err)
{
	const struct json *ev;
	char *fmt = NULL, *evtext;
	int64_t seq = 0, version = 0, attempts = 0;
	char *id = NULL;
	int r = -1;

	if (json_read_str(c, root, "", "format", false, &fmt) < 0 ||
	    json_read_int(c, root, "", "version", &version) < 0 ||
	    json_read_int(c, root, "", "seq", &seq) < 0 ||
	    json_read_int(c, root, "", "attempts", &attempts) < 0 ||
	    json_read_str(c, root, "", "delivery", false, &id) < 0 ||
	    json_read_str(c, root, "", "queued_at", false, &out->queued_at) < 0)
		goto done;
	if (strcmp(fmt, WEBHOOK_SPOOL_FORMAT) != 0 ||
	    version != WEBHOOK_SPOOL_VERSION) {
		err_setf(err, NULL, "%s: not a spool file of version %d", path,
		    WEBHOOK_SPOOL_VERSION);
		goto done;
	}
	if (seq < 0 || attempts < 0 || attempts > 1000 ||
	    strlen(id) != WEBHOOK_ID_LEN) {
		err_setf(err, NULL,
		    "%s: seq, attempts or delivery out of range", path);
		goto done;
	}
	ev = json_read_object(c, root, "", "event", false);
	if (ev == NULL)
		goto done;
	evtext = json_render(ev);
	r = agent_event_parse(&out->event, path, evtext, strlen(evtext), err);
	free(evtext);
	out->seq = (uint64_t)seq;
	out->attempts = (unsigned)attempts;
	memcpy(out->id, id, WEBHOOK_ID_LEN + 1);
done:
	free(fmt);
	free(id);
	return r;
}

int
webhook_spool_read(struct webhook_spooled *out, const char *path,
    struct err *err)
{
	struct json_doc *doc = NULL;
	struct json_reader c = {path, err};
	struct webhook_spooled s;
	char *text = NULL;
	size_t len = 0;
	int r = -1;

	memset(&s, 0, sizeof(s));
	if (afile_read(&text, &len, path, WEBHOOK_SPOOL_FILE_MAX, err) < 0 ||
	    json_parse(&doc, path, text, len, err) < 0)
		goto done;
	if (!json_is_object(json_doc_root(doc)))
		err_setf(err, NULL, "%s: not a JSON object", path);
	else
		r = read_doc(&s, json_doc_root(doc), &c, path, err);
	if (r == 0) {
		*out = s;
		memset(&s, 0, sizeof(s));
	}
done:
	webhook_spooled_release(&s);
	json_doc_free(doc);
	free(text);
	return r;
}

static int
by_seq(const void *x, const void *y)
{
	const struct webhook_spool_entry *a = x, *b = y;

	return a->seq < b->seq ? -1 : a->seq > b->seq ? 1 : 0;
}

/* Add the delivery in dir/name to *v when it can be read. */
static void
list_one(struct webhook_spool_entry **v, size_t *n, size_t *cap,
    const char *dir, const char *name,
    void (*bad)(void *ctx, const char *path, const char *why), void *ctx)
{
	struct webhook_spooled s;
	struct err err = {0};
	char *path = xasprintf("%s/%s", dir, name);
	uint64_t seq;
	char id[WEBHOOK_ID_LEN + 1];

	memset(&s, 0, sizeof(s));
	if (!parse_name(name, &seq, id)) {
		free(path);
		return;
	}
	if (webhook_spool_read(&s, path, &err) < 0) {
		if (bad != NULL)
			bad(ctx, path, err.msg);
	} else if (s.seq != seq || strcmp(s.id, id) != 0) {
		if (bad != NULL)
			bad(ctx, path, "its name and its content disagree");
	} else {
		xgrow(v, cap, *n + 1, sizeof(**v));
		(*v)[*n].seq = seq;
		memcpy((*v)[*n].id, id, sizeof(id));
		(*v)[*n].attempts = s.attempts;
		(*n)++;
	}
	webhook_spooled_release(&s);
	err_release(&err);
	free(path);
}

int
webhook_spool_list(struct webhook_spool_entry **out, size_t *nout,
    const char *dir, void (*bad)(void *ctx, const char *path, const char *why),
    void *ctx, struct err *err)
{
	struct webhook_spool_entry *v = NULL;
	struct dirent *de;
	size_t n = 0, cap = 0;
	DIR *d;

	if (afile_mkdirs(dir, 0700, err) < 0)
		return -1;
	d = opendir(dir);
	if (d == NULL)
		return err_setf(err, NULL, "cannot read the spool '%s': %s",
		    dir, strerror(errno));
	while ((de = readdir(d)) != NULL)
		list_one(&v, &n, &cap, dir, de->d_name, bad, ctx);
	closedir(d);
	if (n > 0)
		qsort(v, n, sizeof(*v), by_seq);
	*out = v;
	*nout = n;
	return 0;
}

int
webhook_spool_remove(const char *dir, uint64_t seq, const char *id,
    struct err *err)
{
	char *path = webhook_spool_path(dir, seq, id);
	int r = 0;

	if (unlink(path) < 0 && errno != ENOENT)
		r = err_setf(err, NULL, "cannot remove '%s': %s", path,
		    strerror(errno));
	free(path);
	return r;
}
