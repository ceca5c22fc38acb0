/* agent/daemon/holds.c: what waits, and until when (docs/policy.md). A
 * cluster that is suspended, or outside its sync window, gets previews
 * and drift reports, but its approved plans, its drift repair and its
 * capture pass wait (agent/hold.h judges). The daemon keeps
 * OUTBOX/<cluster>/hold.txt saying why and until when (the page shows
 * it), and logs each change once. */
#define LOG_MODULE "hold"

#include "daemon-int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/afile.h"
#include "../../lib/xalloc.h"
#include "../hold.h"
#include "../log.h"

bool
daemon_held(struct daemon *a, const char *cluster, const char *what)
{
	struct agent_hold h;
	struct err err = {0};
	bool held = true;

	if (agent_hold_check(&h, &a->conf->windows, a->conf->state, cluster,
	        &err) < 0) {
		/* a clock that cannot be read holds: nothing is changed
		 * outside a window nobody can place */
		log_err("cluster '%s': %s waits: %s", cluster, what, err.msg);
		err_release(&err);
		return true;
	}
	if (h.kind == AGENT_HOLD_NONE)
		held = false;
	else
		log_info("cluster '%s': %s waits: %s", cluster, what, h.text);
	agent_hold_release(&h);
	return held;
}

/* hold.txt of one cluster folder: written when the text changes, removed
 * when nothing holds; each change logged once. */
static void
refresh_one(struct daemon *a, const char *cluster)
{
	struct agent_hold h;
	struct err err = {0};
	char *dir = xasprintf("%s/%s", a->conf->outbox, cluster);
	char *path = xasprintf("%s/%s", dir, DAEMON_HOLD_FILE);
	char *text = NULL, *old = NULL;
	size_t len = 0;

	if (agent_hold_check(&h, &a->conf->windows, a->conf->state, cluster,
	        &err) < 0) {
		h.kind = AGENT_HOLD_WINDOW;
		h.text = xstrdup(err.msg);
		err_release(&err);
	}
	if (access(path, F_OK) == 0 &&
	    afile_read(&old, &len, path, (size_t)64 * 1024, &err) < 0)
		err_release(&err);
	if (h.kind != AGENT_HOLD_NONE) {
		text = xasprintf("%s\n", h.text);
		if (old == NULL || strcmp(old, text) != 0) {
			log_notice("cluster '%s': approved plans, drift repair "
			           "and the capture pass wait: %s",
			    cluster, h.text);
			if (agent_outbox_put(dir, DAEMON_HOLD_FILE, text,
			        &err) < 0) {
				log_err("%s", err.msg);
				err_release(&err);
			}
		}
	} else if (old != NULL) {
		log_notice("cluster '%s': nothing holds it any more (no "
		           "suspension, inside its sync window): what waited "
		           "is applied",
		    cluster);
		if (unlink(path) < 0 && errno != ENOENT)
			log_err("cannot remove %s: %m", path);
	}
	agent_hold_release(&h);
	free(text);
	free(old);
	free(path);
	free(dir);
}

void
daemon_holds_refresh(struct daemon *a)
{
	struct err err = {0};
	char **names = NULL;
	size_t n = 0, i;

	if (agent_outbox_clusters(&names, &n, a->conf->outbox, &err) < 0) {
		log_err("%s", err.msg);
		err_release(&err);
		return;
	}
	for (i = 0; i < n; i++)
		refresh_one(a, names[i]);
	agent_outbox_list_free(names, n);
}
