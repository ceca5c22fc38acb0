/* agent/conf-windows.c: `sync-windows` of the agent configuration
 * (conf-int.h; docs/policy.md "Sync windows"): a list of allow and deny
 * windows, each a mapping checked key by key with its position. A bad
 * cron field is reported at its own column. */
#include "conf-int.h"
#include "conf.h"

#include <stdlib.h>
#include <string.h>

#include "../lib/utf8.h"
#include "../lib/xalloc.h"
#include "window.h"

#define KEY_NAMES "kind, schedule, duration, time-zone, clusters"

/* What one window's keys are read into, and where the window was. */
struct wparse {
	struct agent_window *w;
	struct errlist *diags;
	bool kind, schedule, duration, zone;
};

/* A scalar value that is one line of text; NULL (reported) otherwise. */
static const char *
scalar(struct wparse *P, const char *key, const struct decl_yaml_node *vn)
{
	return agent_conf_line_str(P->diags, "sync-windows", key, vn);
}

static void
set_schedule(struct wparse *P, const struct decl_yaml_node *vn)
{
	const char *v = scalar(P, "schedule", vn);
	struct err err = {0};
	struct pos pos;
	size_t at = 0;

	if (v == NULL)
		return;
	if (agent_cron_parse(&P->w->cron, v, &at, &err) < 0) {
		/* the column of the bad field: a quoted value starts one
		 * column after its quote */
		pos = vn->pos;
		pos.col += (unsigned)at + (vn->plain ? 0u : 1u);
		errlist_add(P->diags, DIAG_ERROR, &pos,
		    "'sync-windows': 'schedule' %s", err.msg);
		err_release(&err);
		return;
	}
	P->w->schedule = xstrdup(v);
}

static void
set_clusters(struct wparse *P, const struct decl_yaml_node *vn)
{
	const struct decl_yaml_node *it;
	const char *v;
	size_t i;

	if (vn->kind != DECL_YAML_SEQ || vn->n == 0) {
		errlist_add(P->diags, DIAG_ERROR, &vn->pos,
		    "'sync-windows': 'clusters' must be a list of cluster "
		    "names, not %s (leave it out for every cluster)",
		    vn->kind == DECL_YAML_SEQ    ? "an empty list"
		    : decl_yaml_node_is_null(vn) ? "empty"
		                                 : decl_yaml_kind_name(vn));
		return;
	}
	for (i = 0; i < vn->n; i++) {
		it = vn->vals[i];
		v = scalar(P, "clusters", it);
		if (v == NULL)
			continue;
		if (strv_has(&P->w->clusters, v))
			errlist_add(P->diags, DIAG_ERROR, &it->pos,
			    "'sync-windows': 'clusters': '%s' is listed twice",
			    v);
		else
			strv_add(&P->w->clusters, v);
	}
}

/* One key of a window's mapping. */
static void
window_key(struct wparse *P, const struct decl_yaml_node *kn,
    const struct decl_yaml_node *vn)
{
	struct agent_window *w = P->w;
	const char *k = kn->str, *v;
	long d = 0;

	if (strcmp(k, "kind") == 0) {
		P->kind = true;
		v = scalar(P, k, vn);
		if (v != NULL && strcmp(v, "allow") == 0)
			w->kind = AGENT_WINDOW_ALLOW;
		else if (v != NULL && strcmp(v, "deny") == 0)
			w->kind = AGENT_WINDOW_DENY;
		else if (v != NULL)
			errlist_add(P->diags, DIAG_ERROR, &vn->pos,
			    "'sync-windows': 'kind' must be allow or deny, not "
			    "'%s'",
			    v);
	} else if (strcmp(k, "schedule") == 0) {
		P->schedule = true;
		set_schedule(P, vn);
	} else if (strcmp(k, "duration") == 0) {
		P->duration = true;
		v = scalar(P, k, vn);
		if (v == NULL)
			return;
		if (agent_conf_duration_parse(v, &d) < 0 || d < 1 ||
		    d > AGENT_WINDOW_DURATION_MAX)
			errlist_add(P->diags, DIAG_ERROR, &vn->pos,
			    "'sync-windows': 'duration' must be a duration "
			    "from 1s to 31d like 30m, 8h or 2d, not '%s'",
			    v);
		else
			w->duration = d;
	} else if (strcmp(k, "time-zone") == 0) {
		P->zone = true;
		v = scalar(P, k, vn);
		if (v != NULL && !agent_window_zone_ok(v))
			errlist_add(P->diags, DIAG_ERROR, &vn->pos,
			    "'sync-windows': 'time-zone' '%s' is not a time "
			    "zone of the system's tz database "
			    "(" AGENT_WINDOW_ZONEINFO "): use an IANA name "
			    "like Europe/Berlin or UTC",
			    v);
		else if (v != NULL)
			w->zone = xstrdup(v);
	} else if (strcmp(k, "clusters") == 0) {
		set_clusters(P, vn);
	} else {
		char *shown = utf8_escape(k, utf8_line_problem);

		errlist_add(P->diags, DIAG_ERROR, &kn->pos,
		    "'sync-windows': unknown key '%s' (" KEY_NAMES ")", shown);
		free(shown);
	}
}

void
agent_conf_windows_parse(struct agent_windows *out,
    const struct decl_yaml_node *vn, struct errlist *diags)
{
	static const char *const need[] = {"kind", "schedule", "duration",
	    "time-zone"};
	struct wparse P;
	const struct decl_yaml_node *it;
	bool have[4];
	size_t i, j;

	if (vn->kind != DECL_YAML_SEQ) {
		errlist_add(diags, DIAG_ERROR, &vn->pos,
		    "'sync-windows' must be a list of windows, not %s",
		    decl_yaml_node_is_null(vn) ? "empty"
		                               : decl_yaml_kind_name(vn));
		return;
	}
	if (vn->n > AGENT_CONF_WINDOWS_MAX) {
		errlist_add(diags, DIAG_ERROR, &vn->pos,
		    "'sync-windows' lists %zu windows, at most %d", vn->n,
		    AGENT_CONF_WINDOWS_MAX);
		return;
	}
	out->v = xcalloc(vn->n > 0 ? vn->n : 1, sizeof(*out->v));
	for (i = 0; i < vn->n; i++) {
		it = vn->vals[i];
		if (it->kind != DECL_YAML_MAP) {
			errlist_add(diags, DIAG_ERROR, &it->pos,
			    "'sync-windows': a window must be a mapping (" KEY_NAMES
			    "), not %s",
			    decl_yaml_node_is_null(it)
			        ? "empty"
			        : decl_yaml_kind_name(it));
			continue;
		}
		memset(&P, 0, sizeof(P));
		P.w = &out->v[out->n++];
		P.diags = diags;
		P.w->line = it->pos.line;
		P.w->col = it->pos.col;
		for (j = 0; j < it->n; j++)
			window_key(&P, it->keys[j], it->vals[j]);
		have[0] = P.kind;
		have[1] = P.schedule;
		have[2] = P.duration;
		have[3] = P.zone;
		for (j = 0; j < 4; j++)
			if (!have[j])
				errlist_add(diags, DIAG_ERROR, &it->pos,
				    "'sync-windows': a window needs '%s'",
				    need[j]);
	}
}
