/* agent/comment-dir.c: see comment-dir.h. */
#include "comment-dir.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/afile.h"
#include "../lib/utf8.h"
#include "../lib/xalloc.h"
#include "../reconcile/plan/plan.h"
#include "plan-dir.h"

/* The plan rendered for the comments, at most (plan.md itself stops at
 * PLAN_MD_MAX): a plan past it shows the rest in plan.json. */
#define RENDER_MAX ((size_t)64 << 20)

#define MARKER_ID_MAX 64 /* bytes of --marker-id */

bool
agent_comment_given(const struct agent_cmd_args *args, size_t first)
{
	size_t i;

	for (i = 0; i < AGENT_COMMENT_NOPTIONS; i++)
		if (args->opt[first + i] != NULL)
			return true;
	return false;
}

/* A decimal number in [lo, hi] into *out; -1 when s is not one. */
static int
number(const char *s, size_t lo, size_t hi, size_t *out)
{
	unsigned long long v = 0;
	const char *p;

	if (*s == '\0' || strlen(s) > 9)
		return -1;
	for (p = s; *p != '\0'; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		v = v * 10 + (unsigned long long)(*p - '0');
	}
	if (v < lo || v > hi)
		return -1;
	*out = (size_t)v;
	return 0;
}

/* An http(s) URL of RFC 3986's characters only: it goes into a Markdown
 * link's <destination>, which '<', '>', blanks and line breaks would end
 * or break. */
static bool
url_ok(const char *u)
{
	static const char extra[] = "-._~:/?#[]@!$&'()*+,;=%";
	const char *p;

	if (strncmp(u, "https://", 8) != 0 && strncmp(u, "http://", 7) != 0)
		return false;
	if (strlen(u) > PLAN_COMMENT_URL_MAX)
		return false;
	for (p = u; *p != '\0'; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		        (*p >= '0' && *p <= '9') || strchr(extra, *p) != NULL))
			return false;
	return true;
}

int
agent_comment_from_args(struct agent_comment_opts *out, const char *cmd,
    const struct agent_cmd_args *args, size_t first)
{
	const char *limit = args->opt[first], *max = args->opt[first + 1];
	const char *id = args->opt[first + 2], *url = args->opt[first + 3];
	size_t at;
	uint32_t cp;

	memset(out, 0, sizeof(*out));
	out->limit = PLAN_COMMENT_LIMIT;
	out->max_comments = PLAN_COMMENT_MAX;
	if (limit != NULL && number(limit, PLAN_COMMENT_LIMIT_MIN,
	                         PLAN_COMMENT_LIMIT_MAX, &out->limit) < 0)
		return agent_usage_error(cmd,
		    "--limit '%s': expected bytes from %d to %d", limit,
		    PLAN_COMMENT_LIMIT_MIN, PLAN_COMMENT_LIMIT_MAX);
	if (max != NULL &&
	    number(max, 1, PLAN_COMMENT_MAX_MAX, &out->max_comments) < 0)
		return agent_usage_error(cmd,
		    "--max-comments '%s': expected a number from 1 to %d", max,
		    PLAN_COMMENT_MAX_MAX);
	if (id != NULL &&
	    (id[0] == '\0' || strlen(id) > MARKER_ID_MAX ||
	        utf8_find(id, utf8_line_problem, &at, &cp) != NULL))
		return agent_usage_error(cmd,
		    "--marker-id: expected 1 to %d bytes of UTF-8 on one line, "
		    "without control characters",
		    MARKER_ID_MAX);
	if (url != NULL && !url_ok(url))
		return agent_usage_error(cmd,
		    "--plan-url: expected an http:// or https:// URL of at most "
		    "%d bytes, its characters those of RFC 3986 (no blanks, "
		    "'<', '>', '\"' or '`'; percent-encode them)",
		    PLAN_COMMENT_URL_MAX);
	out->marker_id = id;
	out->plan_url = url;
	return AGENT_CMD_CONTINUE;
}

/* comment-<N>.md (N digits only) with N past n, or written otherwise than
 * this writer names it (comment-01.md): left by an earlier, larger plan.
 * Other names are not this writer's and stay. */
static bool
stale(const char *name, size_t n)
{
	size_t len = strlen(name), i, v = 0;

	if (len < 12 || strncmp(name, "comment-", 8) != 0 ||
	    strcmp(name + len - 3, ".md") != 0)
		return false;
	for (i = 8; i < len - 3; i++)
		if (name[i] < '0' || name[i] > '9')
			return false;
	if (name[8] == '0' || len - 11 > 6)
		return true;
	for (i = 8; i < len - 3; i++)
		v = v * 10 + (size_t)(name[i] - '0');
	return v > n;
}

/* stale() for afile_unlink_matching: ctx is the new count of parts. */
static bool
stale_name(const char *name, void *ctx)
{
	return stale(name, *(const size_t *)ctx);
}

static int
write_parts(const struct plan_comments *c, const struct plan_comment_opts *po,
    const char *dir, struct err *err)
{
	char *path, *json;
	size_t i, nparts = c->n;
	int rc = 0;

	if (afile_mkdirs(dir, 0755, err) < 0)
		return -1;
	for (i = 0; rc == 0 && i < c->n; i++) {
		path = xasprintf("%s/comment-%zu.md", dir, i + 1);
		rc = afile_write(path, c->parts[i].body, c->parts[i].len, 0644,
		    err);
		free(path);
	}
	if (rc < 0)
		return -1;
	/* the manifest last: who reads it finds every body it names */
	json = plan_comment_manifest(c, po);
	path = xasprintf("%s/comments.json", dir);
	rc = afile_write(path, json, strlen(json), 0644, err);
	free(path);
	free(json);
	if (rc < 0)
		return -1;
	return afile_unlink_matching(dir, stale_name, &nparts, err);
}

static void
report(const struct plan_comments *c, const char *dir,
    const struct plan_comment_opts *po)
{
	size_t i, max = 0;

	for (i = 0; i < c->n; i++)
		if (c->parts[i].len > max)
			max = c->parts[i].len;
	if (c->too_large)
		printf("comments: %s/comment-1.md: the plan needs %zu bodies "
		       "of %zu bytes, more than %zu; this one says so and "
		       "points at plan.md\n",
		    dir, c->needed, po->limit, po->max_comments);
	else if (c->n > 1)
		printf("comments: %s/comment-1.md ... comment-%zu.md: %zu "
		       "bodies, the largest %zu bytes (limit %zu)\n",
		    dir, c->n, c->n, max, po->limit);
	else
		printf("comments: %s/comment-1.md: 1 body, %zu bytes (limit "
		       "%zu)\n",
		    dir, max, po->limit);
}

int
agent_comment_dir_write(const char *plan_dir, const char *out_dir,
    const struct agent_comment_opts *o, struct err *err)
{
	struct plan_comment_opts po;
	struct plan_comments c = {0};
	struct agent_plan_dir ap;
	char *md = NULL, *path = NULL;
	int rc = -1;

	if (agent_plan_dir_load(&ap, plan_dir, err) < 0)
		return -1;
	/* the whole plan, not plan.md's first PLAN_MD_MAX bytes: the bodies
	 * split it, and a plan too large for them lists every action that
	 * destroys messages (bounded all the same: RENDER_MAX) */
	if (agent_plan_dir_md_whole(&ap, RENDER_MAX, &md, err) < 0)
		goto done;
	path = xasprintf("%s/plan.md", plan_dir);
	memset(&po, 0, sizeof(po));
	po.limit = o->limit;
	po.max_comments = o->max_comments;
	po.marker_id = o->marker_id;
	po.cluster = ap.plan->cluster;
	po.digest = ap.digest;
	po.plan_url = o->plan_url;
	po.plan_path = path;
	plan_comment_split(&c, md, &po);
	if (write_parts(&c, &po, out_dir, err) < 0)
		goto done;
	report(&c, out_dir, &po);
	rc = 0;
done:
	plan_comments_release(&c);
	agent_plan_dir_release(&ap);
	free(path);
	free(md);
	return rc;
}
