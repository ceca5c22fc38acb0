/* agent/plan-dir.c: a plan folder on disk: writing plan.json and plan.md,
 * loading them back for approve and apply, and the checks that a plan is
 * still what was written and still current. */
#include "plan-dir.h"

#include <errno.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/afile.h"
#include "../lib/sha256.h"
#include "../lib/xalloc.h"
#include "../reconcile/apply/apply.h"
#include "inventory.h"

int
agent_plan_dir_load(struct agent_plan_dir *out, const char *dir,
    struct err *err)
{
	struct agent_plan_dir ap;
	char *text = NULL;
	size_t len = 0;

	memset(&ap, 0, sizeof(ap));
	ap.dir = xstrdup(dir);
	ap.path = xasprintf("%s/plan.json", dir);
	if (afile_read(&text, &len, ap.path, AGENT_PLAN_DIR_MAX, err) < 0)
		goto fail;
	sha256_hex(text, len, ap.digest);
	if (plan_parse_json(&ap.plan, ap.path, text, len, err) < 0)
		goto fail;
	if (plan_check_json(ap.plan, ap.path, text, len, err) < 0)
		goto fail;
	free(text);
	*out = ap;
	return 0;
fail:
	free(text);
	agent_plan_dir_release(&ap);
	return -1;
}

void
agent_plan_dir_release(struct agent_plan_dir *ap)
{
	free(ap->dir);
	free(ap->path);
	plan_free(ap->plan);
	memset(ap, 0, sizeof(*ap));
}

static bool
str_same(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return strcmp(a, b) == 0;
}

/* The plan folder plan.md's approve command names, owned; NULL when it
 * shows none (a plan that cannot be approved). */
static char *
approve_dir(const char *text)
{
	static const char cmd[] = "\nartemis-gitops approve ";
	static const char opt[] = " --confirm '";
	const char *s, *e;

	s = strstr(text, cmd);
	e = s != NULL ? strstr(s + sizeof(cmd) - 1, opt) : NULL;
	if (e == NULL || memchr(s + 1, '\n', (size_t)(e - s - 1)) != NULL)
		return NULL;
	return xstrndup(s + sizeof(cmd) - 1, (size_t)(e - s) - sizeof(cmd) + 1);
}

/* Read path (plan.md) into *text; it must be plan.json rendered again with
 * the approve command's folder, or dir when it names none (dir NULL: it
 * must name one). 0, or -1 with err. */
static int
md_read_checked(const struct agent_plan_dir *ap, const char *path,
    const char *dir, char **text, struct err *err)
{
	char *named, *want;
	int rc = 0;

	if (afile_read(text, NULL, path, AGENT_PLAN_DIR_MAX, err) < 0)
		return -1;
	named = approve_dir(*text);
	if (named == NULL && dir == NULL)
		return err_setf(err, NULL,
		    "%s does not show the approve command; plan again", path);
	want = plan_render_md(ap->plan, named != NULL ? named : dir);
	if (strcmp(want, *text) != 0)
		rc = err_setf(err, NULL,
		    "%s was changed after it was written (it no longer matches plan.json); plan again",
		    path);
	free(want);
	free(named);
	return rc;
}

int
agent_plan_dir_md_whole(const struct agent_plan_dir *ap, size_t max, char **out,
    struct err *err)
{
	char *path = xasprintf("%s/plan.md", ap->dir), *text = NULL, *named;
	int rc;

	rc = md_read_checked(ap, path, ap->dir, &text, err);
	if (rc == 0) {
		named = approve_dir(text);
		*out = plan_render_md_max(ap->plan,
		    named != NULL ? named : ap->dir, max);
		free(named);
	}
	free(text);
	free(path);
	return rc;
}

int
agent_plan_dir_check_md(const struct agent_plan_dir *ap, struct err *err)
{
	char *path = xasprintf("%s/plan.md", ap->dir), *text = NULL;
	int rc;

	rc = md_read_checked(ap, path, NULL, &text, err);
	free(text);
	free(path);
	return rc;
}

/* The daemon marks a preview that a newer commit replaced with a file
 * PLAN_DIR/superseded naming the newer one (agent/daemon/outbox.c). */
static int
superseded_marker(const struct agent_plan_dir *ap, struct err *err)
{
	char *path = xasprintf("%s/superseded", ap->dir);
	char *text = NULL;
	size_t n;
	int rc = 0;

	if (access(path, F_OK) == 0) {
		if (afile_read(&text, NULL, path, 4096, err) < 0) {
			free(path);
			return -1;
		}
		n = strcspn(text, "\n");
		text[n] = '\0';
		rc = err_setf(err, NULL,
		    "the plan is superseded (%s: %s); approve the newer preview",
		    path, text[0] != '\0' ? text : "a newer plan exists");
	}
	free(text);
	free(path);
	return rc;
}

int
agent_plan_dir_check_current(const struct agent_plan_dir *ap,
    const char *state_dir, struct err *err)
{
	const struct plan *p = ap->plan;
	struct plan_managed m;
	struct stat sb;
	char *res = xasprintf("%s/result.json", ap->dir);
	bool was_known;
	int rc = 0;

	if (stat(res, &sb) == 0) {
		rc = err_setf(err, NULL,
		    "the plan was already applied (see '%s'); plan again for a new change",
		    res);
		free(res);
		return rc;
	}
	free(res);
	if (superseded_marker(ap, err) < 0)
		return -1;
	/* An operator's delete-queue plan is not made against the inventory,
	 * and a --base plan (a pull request) not against the live one. */
	if (state_dir == NULL || p->kind == NULL ||
	    strcmp(p->kind, "plan") != 0 || p->base_source == NULL ||
	    (strcmp(p->base_source, "inventory") != 0 &&
	        strcmp(p->base_source, "none") != 0))
		return 0;
	memset(&m, 0, sizeof(m));
	if (agent_inventory_load(&m, state_dir, p->cluster, err) < 0)
		return -1;
	was_known = strcmp(p->base_source, "inventory") == 0;
	if (m.known != was_known ||
	    (m.known && !str_same(m.revision, p->base_revision)))
		rc = err_setf(err, NULL,
		    "the plan is superseded: cluster '%s' was applied at revision '%s' since it was planned against '%s'; plan again",
		    p->cluster, m.revision != NULL ? m.revision : "(none)",
		    was_known && p->base_revision != NULL
		        ? p->base_revision
		        : "(nothing applied)");
	plan_managed_release(&m);
	return rc;
}

struct json_out {
	struct afile_writer w;
	struct sha256 h;
};

static void
json_sink(void *ctx, const char *data, size_t len)
{
	struct json_out *o = ctx;

	afile_writer_add(&o->w, data, len);
	sha256_update(&o->h, data, len);
}

int
agent_plan_dir_write(const struct plan *p, const char *dir, char *digest_hex,
    struct err *err)
{
	char *md = NULL, *jp = NULL, *mp = NULL;
	unsigned char d[SHA256_LEN];
	struct json_out o;
	int rc = -1;

	if (afile_mkdirs(dir, 0755, err) < 0)
		return -1;
	jp = xasprintf("%s/plan.json", dir);
	mp = xasprintf("%s/plan.md", dir);
	/* plan.json streamed to its file and its digest (10 MB at 100k x 8) */
	sha256_init(&o.h);
	if (afile_writer_open(&o.w, jp, 0644, err) < 0)
		goto done;
	plan_render_json_stream(p, json_sink, &o);
	if (afile_writer_commit(&o.w, err) < 0)
		goto done;
	md = plan_render_md(p, dir);
	if (afile_write(mp, md, strlen(md), 0644, err) < 0)
		goto done;
	sha256_final(&o.h, d);
	if (digest_hex != NULL)
		sha256_to_hex(d, digest_hex);
	rc = 0;
done:
	free(md);
	free(jp);
	free(mp);
	return rc;
}
