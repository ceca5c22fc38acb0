/* agent/conf-notify.c: `notifications.targets` of the agent configuration
 * (conf-int.h; docs/notifications.md): a list of webhook targets, each a
 * mapping checked key by key with its position, as every other key is. */
#include "conf-int.h"
#include "conf.h"

#include <stdlib.h>
#include <string.h>

#include "../lib/utf8.h"
#include "../lib/xalloc.h"
#include "event.h"

#define TARGET_NAME_MAX 64

/* What one target's keys are read into, and where the target was. */
struct tparse {
	struct agent_conf_target *t;
	const char *basedir;
	struct errlist *diags;
	const struct decl_yaml_node *map;
	bool has_events;
};

static bool
target_name_ok(const char *s)
{
	size_t n = strlen(s);

	return n > 0 && n <= TARGET_NAME_MAX &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyz"
	                 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n &&
	       s[0] != '.';
}

bool
agent_conf_http_url_ok(const char *s)
{
	const char *host;

	if (strncmp(s, "https://", 8) == 0)
		host = s + 8;
	else if (strncmp(s, "http://", 7) == 0)
		host = s + 7;
	else
		return false;
	/* a host, and no user:password@ before it (a secret in a URL is
	 * logged by whoever logs URLs: put it in url-file) */
	if (host[0] == '\0' || host[0] == '/' || host[0] == ':')
		return false;
	return strcspn(host, "@/?#") == strcspn(host, "/?#") &&
	       strchr(s, ' ') == NULL;
}

/* A scalar value that is one line of text; NULL (reported) otherwise. */
static const char *
scalar(struct tparse *P, const char *key, const struct decl_yaml_node *vn)
{
	return agent_conf_line_str(P->diags, "notifications.targets", key, vn);
}

/* A file name of the credentials folder. */
static void
set_file(struct tparse *P, const char *key, const struct decl_yaml_node *vn,
    char **out)
{
	const char *v = scalar(P, key, vn);

	if (v == NULL)
		return;
	if (!agent_conf_filename_ok(v)) {
		errlist_add(P->diags, DIAG_ERROR, &vn->pos,
		    "'notifications.targets': '%s' must be a file name in the "
		    "credentials folder, without '/': '%s'",
		    key, v);
		return;
	}
	free(*out);
	*out = xstrdup(v);
}

/* A list of scalars (what: "cluster names"), each checked by ok (NULL:
 * any name; one: what one must be) and unique. */
static void
set_list(struct tparse *P, const char *key, const struct decl_yaml_node *vn,
    struct strv *out, bool (*ok)(const char *), const char *what,
    const char *one)
{
	const struct decl_yaml_node *it;
	const char *v;
	size_t i;

	if (vn->kind != DECL_YAML_SEQ || vn->n == 0) {
		errlist_add(P->diags, DIAG_ERROR, &vn->pos,
		    "'notifications.targets': '%s' must be a list of %s, not "
		    "%s",
		    key, what,
		    vn->kind == DECL_YAML_SEQ    ? "an empty list"
		    : decl_yaml_node_is_null(vn) ? "empty"
		                                 : decl_yaml_kind_name(vn));
		return;
	}
	for (i = 0; i < vn->n; i++) {
		it = vn->vals[i];
		v = scalar(P, key, it);
		if (v == NULL)
			continue;
		if (ok != NULL && !ok(v))
			errlist_add(P->diags, DIAG_ERROR, &it->pos,
			    "'notifications.targets': '%s': '%s' is not %s",
			    key, v, one);
		else if (strv_has(out, v))
			errlist_add(P->diags, DIAG_ERROR, &it->pos,
			    "'notifications.targets': '%s': '%s' is listed "
			    "twice",
			    key, v);
		else
			strv_add(out, v);
	}
}

static void
set_body(struct tparse *P, const struct decl_yaml_node *vn)
{
	const char *v = scalar(P, "format", vn);

	if (v == NULL)
		return;
	if (strcmp(v, "json") == 0)
		P->t->body = AGENT_CONF_BODY_JSON;
	else if (strcmp(v, "slack") == 0)
		P->t->body = AGENT_CONF_BODY_SLACK;
	else
		errlist_add(P->diags, DIAG_ERROR, &vn->pos,
		    "'notifications.targets': 'format' must be json or slack, "
		    "not '%s'",
		    v);
}

/* One key of a target's mapping. */
static void
target_key(struct tparse *P, const struct decl_yaml_node *kn,
    const struct decl_yaml_node *vn)
{
	struct agent_conf_target *t = P->t;
	const char *k = kn->str, *v;

	if (strcmp(k, "name") == 0) {
		v = scalar(P, k, vn);
		if (v != NULL && !target_name_ok(v))
			errlist_add(P->diags, DIAG_ERROR, &vn->pos,
			    "'notifications.targets': 'name' must be 1 to %d "
			    "letters, digits, '.', '_' or '-' (it names the "
			    "target's metrics and spool folder), not '%s'",
			    TARGET_NAME_MAX, v);
		else if (v != NULL)
			t->name = xstrdup(v);
	} else if (strcmp(k, "url") == 0) {
		v = scalar(P, k, vn);
		if (v != NULL && !agent_conf_http_url_ok(v))
			errlist_add(P->diags, DIAG_ERROR, &vn->pos,
			    "'notifications.targets': 'url' must be an http:// "
			    "or https:// URL with a host and without a user or "
			    "password (a URL that is itself a secret goes in "
			    "'url-file')");
		else if (v != NULL)
			t->url = xstrdup(v);
	} else if (strcmp(k, "url-file") == 0) {
		set_file(P, k, vn, &t->url_file);
	} else if (strcmp(k, "secret-file") == 0) {
		set_file(P, k, vn, &t->secret_file);
	} else if (strcmp(k, "ca-file") == 0) {
		v = scalar(P, k, vn);
		if (v != NULL)
			t->ca_file = agent_conf_resolve_path(P->basedir, v);
	} else if (strcmp(k, "format") == 0) {
		set_body(P, vn);
	} else if (strcmp(k, "events") == 0) {
		P->has_events = true;
		set_list(P, k, vn, &t->events, agent_event_pattern_ok,
		    "events (preview.posted, apply.*, *, ...: "
		    "docs/notifications.md)",
		    "an event (preview.posted, apply.*, *, ...: "
		    "docs/notifications.md)");
	} else if (strcmp(k, "clusters") == 0) {
		set_list(P, k, vn, &t->clusters, NULL, "cluster names", NULL);
	} else {
		char *shown = utf8_escape(k, utf8_line_problem);

		errlist_add(P->diags, DIAG_ERROR, &kn->pos,
		    "'notifications.targets': unknown key '%s' (name, url, "
		    "url-file, secret-file, format, events, clusters, ca-file)",
		    shown);
		free(shown);
	}
}

/* What a target must have once its keys are read. */
static void
target_check(struct tparse *P, const struct agent_conf_targets *done)
{
	struct agent_conf_target *t = P->t;
	const struct pos *at = &P->map->pos;
	size_t i;

	if (t->name == NULL)
		errlist_add(P->diags, DIAG_ERROR, at,
		    "'notifications.targets': a target needs a 'name'");
	for (i = 0; t->name != NULL && i < done->n; i++)
		if (done->v[i].name != NULL &&
		    strcmp(done->v[i].name, t->name) == 0)
			errlist_add(P->diags, DIAG_ERROR, at,
			    "'notifications.targets': two targets are named "
			    "'%s'",
			    t->name);
	if ((t->url == NULL) == (t->url_file == NULL))
		errlist_add(P->diags, DIAG_ERROR, at,
		    "'notifications.targets': target '%s' needs one of 'url' "
		    "and 'url-file'",
		    t->name != NULL ? t->name : "?");
	if (t->secret_file == NULL)
		errlist_add(P->diags, DIAG_ERROR, at,
		    "'notifications.targets': target '%s' needs a "
		    "'secret-file' (every delivery is signed with it)",
		    t->name != NULL ? t->name : "?");
	if (!P->has_events)
		strv_add(&t->events, "*");
}

void
agent_conf_targets_parse(struct agent_conf_targets *out,
    const struct decl_yaml_node *vn, const char *basedir, struct errlist *diags)
{
	struct tparse P;
	const struct decl_yaml_node *it;
	size_t i, j;

	if (vn->kind != DECL_YAML_SEQ) {
		errlist_add(diags, DIAG_ERROR, &vn->pos,
		    "'notifications.targets' must be a list of targets, not %s",
		    decl_yaml_node_is_null(vn) ? "empty"
		                               : decl_yaml_kind_name(vn));
		return;
	}
	if (vn->n > AGENT_CONF_TARGETS_MAX) {
		errlist_add(diags, DIAG_ERROR, &vn->pos,
		    "'notifications.targets' lists %zu targets, at most %d",
		    vn->n, AGENT_CONF_TARGETS_MAX);
		return;
	}
	out->v = xcalloc(vn->n > 0 ? vn->n : 1, sizeof(*out->v));
	for (i = 0; i < vn->n; i++) {
		it = vn->vals[i];
		if (it->kind != DECL_YAML_MAP) {
			errlist_add(diags, DIAG_ERROR, &it->pos,
			    "'notifications.targets': a target must be a "
			    "mapping, not %s",
			    decl_yaml_node_is_null(it)
			        ? "empty"
			        : decl_yaml_kind_name(it));
			continue;
		}
		memset(&P, 0, sizeof(P));
		P.t = &out->v[out->n];
		P.basedir = basedir;
		P.diags = diags;
		P.map = it;
		P.t->line = it->pos.line;
		P.t->col = it->pos.col;
		for (j = 0; j < it->n; j++)
			target_key(&P, it->keys[j], it->vals[j]);
		target_check(&P, out);
		out->n++;
	}
}

void
agent_conf_targets_release(struct agent_conf_targets *t)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		free(t->v[i].name);
		free(t->v[i].url);
		free(t->v[i].url_file);
		free(t->v[i].secret_file);
		free(t->v[i].ca_file);
		strv_release(&t->v[i].events);
		strv_release(&t->v[i].clusters);
	}
	free(t->v);
	memset(t, 0, sizeof(*t));
}
