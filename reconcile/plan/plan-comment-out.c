/* reconcile/plan/plan-comment-out.c: the texts around the pull-request
 * comment bodies that plan-comment.c cuts out of plan.md: the hidden
 * marker and its escaping, "Part I of N", the notes of a cut item, of a
 * body that continues an action and of a plan too large for its comments,
 * and comments.json, the manifest a bot posts them by. */
#include "plan-int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/jsonw.h"
#include "../../lib/sbuf.h"
#include "../../lib/xalloc.h"

#define PATH_SHOWN_MAX 256 /* a longer plan_path is not shown */

static bool
marker_plain(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || (c != '\0' && strchr("._:/@+-", c));
}

char *
plan_comment_marker_escape(const char *s)
{
	struct sbuf b;
	const char *p;

	sbuf_init(&b, SBUF_UNBOUNDED);
	for (p = s; *p != '\0'; p++) {
		if (marker_plain(*p) && !(*p == '-' && p > s && p[-1] == '-'))
			sbuf_addc(&b, *p);
		else
			sbuf_addf(&b, "%%%02X", (unsigned)(unsigned char)*p);
	}
	return sbuf_take(&b);
}

char *
plan_comment_marker_prefix(const struct plan_comment_opts *o)
{
	char *id = plan_comment_marker_escape(
	    o->marker_id != NULL ? o->marker_id : PLAN_COMMENT_ID);
	char *cl = plan_comment_marker_escape(o->cluster);
	char *s;

	s = xasprintf("<!-- artemis-gitops:plan-comment id=%s cluster=%s ", id,
	    cl);
	free(id);
	free(cl);
	return s;
}

char *
plan_comment_frame(const struct plan_comment_opts *o, size_t i, size_t n)
{
	char *prefix = plan_comment_marker_prefix(o);
	char *s;

	if (n > 1)
		s = xasprintf("%spart=%zu/%zu digest=%.*s -->\n"
		              "*Part %zu of %zu of this plan.*\n\n",
		    prefix, i, n, PLAN_COMMENT_DIGEST, o->digest, i, n);
	else
		s = xasprintf("%spart=%zu/%zu digest=%.*s -->\n", prefix, i, n,
		    PLAN_COMMENT_DIGEST, o->digest);
	free(prefix);
	return s;
}

size_t
plan_comment_reserve(const struct plan_comment_opts *o)
{
	size_t max = o->max_comments > 2 ? o->max_comments : 2;
	char *s = plan_comment_frame(o, max, max);
	size_t n = strlen(s);

	free(s);
	return n;
}

/* How a note names the full plan.md: a link, its path, or its name. */
static char *
plan_ref(const struct plan_comment_opts *o)
{
	if (o->plan_url != NULL)
		return xasprintf("[plan.md](<%s>)", o->plan_url);
	if (o->plan_path != NULL && strlen(o->plan_path) <= PATH_SHOWN_MAX &&
	    strpbrk(o->plan_path, "`\n\r") == NULL)
		return xasprintf("`%s`", o->plan_path);
	return xstrdup("plan.md");
}

size_t
plan_comment_fence(const char *s, size_t len, struct plan_md_fence *f)
{
	size_t i = 0, k = 0;

	while (i < len && s[i] == ' ')
		i++;
	if (i >= len || (s[i] != '`' && s[i] != '~'))
		return 0;
	while (i + k < len && s[i + k] == s[i])
		k++;
	if (k < 3)
		return 0;
	f->c = s[i];
	f->n = k;
	f->indent = i;
	return k;
}

bool
plan_comment_fence_closes(const char *s, size_t len,
    const struct plan_md_fence *f)
{
	struct plan_md_fence g;
	size_t i;

	if (plan_comment_fence(s, len, &g) == 0 || g.c != f->c || g.n < f->n)
		return false;
	for (i = g.indent + g.n; i < len; i++)
		if (strchr(" \t\r\n", s[i]) == NULL)
			return false;
	return true;
}

/* The fence state after a line: f->n 0 when none is open. */
static void
cut_track(struct plan_md_fence *f, const char *s, size_t len)
{
	struct plan_md_fence g;

	if (f->n > 0) {
		if (plan_comment_fence_closes(s, len, f))
			f->n = 0;
	} else if (plan_comment_fence(s, len, &g) > 0) {
		*f = g;
	}
}

/* The longest prefix of whole lines that leaves room for what closes it
 * and the note: its length, and the fence it leaves open in *f. */
static size_t
cut_lines(const char *s, size_t len, size_t room, struct plan_md_fence *f)
{
	struct plan_md_fence at = {0, 0, 0};
	size_t off = 0, best = 0, l;
	const char *nl;

	memset(f, 0, sizeof(*f));
	while (off < len) {
		nl = memchr(s + off, '\n', len - off);
		l = nl != NULL ? (size_t)(nl - s) - off + 1 : len - off;
		cut_track(&at, s + off, l);
		if (off + l + (at.n > 0 ? at.indent + at.n + 1 : 0) > room)
			break;
		off += l;
		best = off;
		*f = at;
	}
	return best;
}

char *
plan_comment_cut(const char *s, size_t len, size_t room,
    const struct plan_comment_opts *o)
{
	char *ref = plan_ref(o), *note;
	struct plan_md_fence f, g;
	struct sbuf b;
	size_t keep, i;

	note =
	    xasprintf("\n**Cut short:** the rest of this part of the plan "
	              "does not fit in one comment; the full plan is %s.\n\n",
	        ref);
	free(ref);
	sbuf_init(&b, SBUF_UNBOUNDED);
	keep = room > strlen(note) ? cut_lines(s, len, room - strlen(note), &f)
	                           : 0;
	if (keep == 0 && room > strlen(note) + 1 &&
	    plan_comment_fence(s, len, &g) == 0) {
		/* one line longer than the room: cut it, at a character */
		keep = room - strlen(note) - 1;
		while (keep > 0 && ((unsigned char)s[keep] & 0xC0) == 0x80)
			keep--;
		sbuf_add(&b, s, keep);
		sbuf_addc(&b, '\n');
	} else {
		sbuf_add(&b, s, keep);
		if (keep > 0 && f.n > 0) {
			for (i = 0; i < f.indent; i++)
				sbuf_addc(&b, ' ');
			for (i = 0; i < f.n; i++)
				sbuf_addc(&b, f.c);
			sbuf_addc(&b, '\n');
		}
	}
	sbuf_adds(&b, note);
	free(note);
	return sbuf_take(&b);
}

char *
plan_comment_continued(const char *heading, size_t len, size_t part, size_t cap)
{
	if (len > 0 && heading[len - 1] == '\n')
		len--;
	if (len > cap / 8)
		return xasprintf("*(continued from part %zu)*\n\n", part);
	return xasprintf("%.*s (continued from part %zu)\n\n", (int)len,
	    heading, part);
}

char *
plan_comment_too_large(size_t needed, const char *counts,
    const struct plan_comment_opts *o)
{
	char *ref = plan_ref(o), *s;

	s = xasprintf("## Actions\n\n**This plan needs %zu comments of at most "
	              "%zu bytes, more than the %zu allowed:** the full plan "
	              "is %s. %s\n",
	    needed, o->limit, o->max_comments, ref, counts);
	free(ref);
	return s;
}

static void
part_json(struct jsonw *w, const struct plan_comment_part *p, size_t i)
{
	char *file = xasprintf("comment-%zu.md", i + 1);

	jsonw_obj_begin(w);
	jsonw_key_int(w, "bytes", (int64_t)p->len);
	jsonw_key_bool(w, "cut", p->cut);
	jsonw_key_str(w, "file", file);
	jsonw_key_str(w, "first_action", p->first_action);
	jsonw_key_str(w, "last_action", p->last_action);
	jsonw_key_int(w, "part", (int64_t)i + 1);
	jsonw_obj_end(w);
	free(file);
}

char *
plan_comment_manifest(const struct plan_comments *c,
    const struct plan_comment_opts *o)
{
	char digest[PLAN_COMMENT_DIGEST + 1];
	struct sbuf b;
	struct jsonw w;
	size_t i;

	snprintf(digest, sizeof(digest), "%s", o->digest);
	sbuf_init(&b, SBUF_UNBOUNDED);
	jsonw_init(&w, &b, 2);
	jsonw_obj_begin(&w);
	jsonw_key_str(&w, "cluster", o->cluster);
	jsonw_key_str(&w, "digest", digest);
	jsonw_key_int(&w, "format", PLAN_COMMENT_FORMAT);
	jsonw_key_int(&w, "limit", (int64_t)o->limit);
	jsonw_key_str(&w, "marker_id",
	    o->marker_id != NULL ? o->marker_id : PLAN_COMMENT_ID);
	jsonw_key_str(&w, "marker_prefix", c->marker_prefix);
	jsonw_key_int(&w, "max_comments", (int64_t)o->max_comments);
	jsonw_key_int(&w, "needed", (int64_t)c->needed);
	jsonw_key(&w, "parts");
	jsonw_arr_begin(&w);
	for (i = 0; i < c->n; i++)
		part_json(&w, &c->parts[i], i);
	jsonw_arr_end(&w);
	jsonw_key_bool(&w, "too_large", c->too_large);
	jsonw_obj_end(&w);
	sbuf_addc(&b, '\n');
	return sbuf_take(&b);
}
