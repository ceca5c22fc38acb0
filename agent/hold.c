/* agent/hold.c: see hold.h. */
#include "hold.h"

#include <stdlib.h>
#include <string.h>

#include "../lib/xalloc.h"
#include "suspend.h"

void
agent_hold_release(struct agent_hold *h)
{
	free(h->text);
	free(h->window);
	memset(h, 0, sizeof(*h));
}

int
agent_hold_check(struct agent_hold *out, const struct agent_windows *w,
    const char *state, const char *cluster, struct err *err)
{
	struct agent_window_verdict v;
	struct agent_suspension s = {0};
	struct err e2 = {0};
	char *why;
	int64_t now = 0;
	int r;

	memset(out, 0, sizeof(*out));
	if (w != NULL && w->n > 0) {
		if (agent_window_now(&now, err) < 0)
			return -1;
		agent_window_eval(w, cluster, now, &v);
		if (!v.open) {
			out->window = agent_window_text(&v);
			out->kind = AGENT_HOLD_WINDOW;
			out->text = xstrdup(out->window);
		}
	}
	r = state != NULL ? agent_suspend_read(&s, state, cluster, &e2) : 0;
	if (r > 0) {
		free(out->text);
		out->kind = AGENT_HOLD_SUSPENDED;
		out->text = agent_suspend_text(cluster, &s);
	} else if (r < 0) {
		/* a brake that cannot be read is not released */
		why = err_render(&e2);
		free(out->text);
		out->kind = AGENT_HOLD_SUSPENDED;
		out->text = xasprintf("cluster '%s' counts as suspended: %s",
		    cluster, why);
		free(why);
	}
	agent_suspension_release(&s);
	err_release(&e2);
	return 0;
}
