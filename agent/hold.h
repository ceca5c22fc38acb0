/* agent/hold.h: may a cluster be changed now? The one gate of `apply`, the
 * daemon's approvals, its drift repair and its capture pass
 * (docs/policy.md): a suspended cluster (suspend.h) is held, and so is a
 * cluster outside its sync window (window.h), unless the window is
 * overridden for one apply. */
#ifndef AGENT_HOLD_H
#define AGENT_HOLD_H

#include "../lib/err.h"
#include "window.h"

enum agent_hold_kind {
	AGENT_HOLD_NONE = 0,
	AGENT_HOLD_WINDOW,    /* outside its sync window */
	AGENT_HOLD_SUSPENDED, /* suspended (or its file unreadable) */
};

struct agent_hold {
	enum agent_hold_kind kind;
	/* why, one line, for the log, the preview and the page: the
	 * suspension, else the window's; NULL with AGENT_HOLD_NONE */
	char *text;
	/* the window's verdict text when it is closed (also when suspended,
	 * or overridden), else NULL */
	char *window;
};

void agent_hold_release(struct agent_hold *h);

/* Judge cluster now (agent_window_now) with windows w (NULL: none) and
 * the state folder's suspension. 0, or -1 with err when the clock
 * cannot be read (AGENT_WINDOW_CLOCK_ENV). A suspension file that
 * cannot be read holds the cluster, its error as the text. */
int agent_hold_check(struct agent_hold *out, const struct agent_windows *w,
    const char *state, const char *cluster, struct err *err);

#endif
