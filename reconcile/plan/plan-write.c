/* reconcile/plan-write.c: writing the preview files, and the refused plan
 * of a declaration that failed validation. */
#include "plan-int.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/afile.h"
#include "../../lib/sha256.h"
#include "../../lib/xalloc.h"

int
plan_write(const struct plan *p, const char *dir, char *digest_hex,
    struct err *err)
{
	char *json = NULL, *md = NULL, *jp = NULL, *mp = NULL;
	int rc = -1;

	if (afile_mkdirs(dir, 0755, err) < 0)
		return -1;
	json = plan_render_json(p);
	md = plan_render_md(p, dir);
	jp = xasprintf("%s/plan.json", dir);
	mp = xasprintf("%s/plan.md", dir);
	if (afile_write(jp, json, strlen(json), 0644, err) < 0 ||
	    afile_write(mp, md, strlen(md), 0644, err) < 0)
		goto done;
	if (digest_hex != NULL)
		sha256_hex(json, strlen(json), digest_hex);
	rc = 0;
done:
	free(json);
	free(md);
	free(jp);
	free(mp);
	return rc;
}

struct plan *
plan_invalid(const char *cluster, const struct errlist *diags,
    const struct plan_opts *opts)
{
	struct plan *p = xcalloc(1, sizeof(*p));

	p->kind = xstrdup("plan");
	p->cluster = xstrdup(cluster);
	p->revision = opts->revision != NULL ? xstrdup(opts->revision) : NULL;
	p->base_source = xstrdup("none");
	p->snapshot_source = xstrdup("none");
	p->disconnect_consumers = opts->disconnect_consumers;
	p->capture_prefix = xstrdup(DECL_DEFAULT_CAPTURE_PREFIX);
	p->max_destroyed_messages = DECL_DEFAULT_MAX_DESTROYED;
	p->outcome = PLAN_OUT_REFUSED;
	p->refusal = xstrdup("INVALID_DECLARATION");
	p->message = xasprintf(
	    "the declaration fails validation (%zu error%s); nothing is planned",
	    diags->nerrors, diags->nerrors == 1 ? "" : "s");
	p->next_step = xstrdup(
	    "fix the declaration (for \"Nothing consumes at …\": drop the named divert with the queue, or declare a queue on its forwarding address) and plan again");
	plan_add_diagnostics(p, diags);
	return p;
}

void
plan_add_diagnostics(struct plan *p, const struct errlist *diags)
{
	size_t i;

	p->diagnostics = xreallocarray(p->diagnostics,
	    p->ndiagnostics + diags->n + 1, sizeof(char *));
	for (i = 0; i < diags->n; i++)
		p->diagnostics[p->ndiagnostics++] =
		    errlist_render_item(diags, i);
}
