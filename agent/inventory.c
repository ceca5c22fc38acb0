/* agent/inventory.c: see inventory.h. */
#include "inventory.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/afile.h"
#include "../lib/xalloc.h"
#include "state.h"

int
agent_inventory_load(struct plan_managed *out, const char *state_dir,
    const char *cluster, struct err *err)
{
	char *path =
	    xasprintf("%s/%s/" AGENT_INVENTORY_FILE, state_dir, cluster);
	char *text = NULL;
	size_t len = 0;
	int rc = -1;

	if (access(path, F_OK) != 0 && errno == ENOENT) {
		memset(out, 0, sizeof(*out));
		out->source = xstrdup("none");
		rc = 0;
		goto done;
	}
	if (afile_read(&text, &len, path, AGENT_INVENTORY_MAX, err) < 0)
		goto done;
	rc = plan_inventory_parse(out, path, text, len, cluster, err);
done:
	free(text);
	free(path);
	return rc;
}

int
agent_inventory_update(struct agent_state *st, const struct plan *p,
    const struct apply_result *r, const struct decl_cluster *decl,
    struct err *err)
{
	struct plan_managed m;
	char *inv = NULL, *name = NULL, *dir = NULL;
	int rc = -1;

	memset(&m, 0, sizeof(m));
	if (agent_inventory_load(&m, agent_state_dir(st), p->cluster, err) < 0)
		goto done;
	apply_update_managed(&m, p, r, decl);
	inv = plan_inventory_render(&m, p->cluster);
	dir = xasprintf("%s/%s", agent_state_dir(st), p->cluster);
	name = xasprintf("%s/" AGENT_INVENTORY_FILE, p->cluster);
	if (afile_mkdirs(dir, 0700, err) < 0 ||
	    agent_state_write(st, name, inv, strlen(inv), err) < 0)
		goto done;
	rc = 0;
done:
	plan_managed_release(&m);
	free(inv);
	free(dir);
	free(name);
	return rc;
}
