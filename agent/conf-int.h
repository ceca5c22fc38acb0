/* agent/conf-int.h: value checks shared by conf.c and conf-values.c. */
#ifndef AGENT_CONF_INT_H
#define AGENT_CONF_INT_H

#include <stdbool.h>

#include "../declarations/yaml-tree.h"
#include "../lib/err.h"

struct agent_conf_targets;
struct agent_windows;

/* A repository URL: file://, https://, http://, ssh:// or user@host:path. */
bool agent_conf_url_ok(const char *s);
/* True for an ssh:// or scp-like (user@host:path) URL. */
bool agent_conf_url_is_ssh(const char *s);
/* True for a URL whose user part holds a password (`user:secret@`). */
bool agent_conf_url_has_password(const char *s);
/* A branch name git accepts (git-check-ref-format, for one branch). */
bool agent_conf_branch_ok(const char *s);
/* A relative path without `..` components. */
bool agent_conf_relpath_ok(const char *s);
/* A plain file name: no '/', not "." or "..". */
bool agent_conf_filename_ok(const char *s);
/* A value of a list of mappings (what: "sync-windows",
 * "notifications.targets"): vn's text when it is a non-empty scalar of one
 * line; otherwise NULL, with the problem added to diags at vn's position. */
const char *agent_conf_line_str(struct errlist *diags, const char *what,
    const char *key, const struct decl_yaml_node *vn);
/* v made absolute against basedir (unless absolute), trailing '/'
 * removed; owned by the caller. */
char *agent_conf_resolve_path(const char *basedir, const char *v);

/* conf-notify.c: `notifications.targets`, a list of mappings (name, url or
 * url-file, secret-file, format, events, clusters, ca-file), each problem
 * added to diags at its position; relative paths against basedir. */
void agent_conf_targets_parse(struct agent_conf_targets *out,
    const struct decl_yaml_node *vn, const char *basedir,
    struct errlist *diags);
void agent_conf_targets_release(struct agent_conf_targets *t);

/* conf-windows.c: `sync-windows`, a list of mappings (kind, schedule,
 * duration, time-zone, clusters), each problem added to diags at its
 * position (a bad cron field at its column). */
void agent_conf_windows_parse(struct agent_windows *out,
    const struct decl_yaml_node *vn, struct errlist *diags);

#endif
