/* agent/conf-values.c: checking and converting single values of the
 * agent configuration (conf-int.h). */
#include "conf-int.h"
#include "conf.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/utf8.h"
#include "../lib/xalloc.h"

int
agent_conf_duration_parse(const char *s, long *out)
{
	char *end = NULL;
	long v, mul = 1;

	if (s[0] < '0' || s[0] > '9')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0)
		return -1;
	if (strcmp(end, "s") == 0 || *end == '\0')
		mul = 1;
	else if (strcmp(end, "m") == 0)
		mul = 60;
	else if (strcmp(end, "h") == 0)
		mul = 3600;
	else if (strcmp(end, "d") == 0)
		mul = 86400;
	else
		return -1;
	if (v > LONG_MAX / mul)
		return -1;
	*out = v * mul;
	return 0;
}

int
agent_conf_size_parse(const char *s, long *out)
{
	static const struct {
		const char *unit;
		long mul;
	} units[] = {{"", 1}, {"B", 1}, {"KiB", 1L << 10}, {"MiB", 1L << 20},
	    {"GiB", 1L << 30}};
	char *end = NULL;
	long v;
	size_t i;

	if (s[0] < '0' || s[0] > '9')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0)
		return -1;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(end, units[i].unit) == 0)
			break;
	if (i == sizeof(units) / sizeof(units[0]) ||
	    v > LONG_MAX / units[i].mul)
		return -1;
	*out = v * units[i].mul;
	return 0;
}

bool
agent_conf_url_ok(const char *s)
{
	static const char *const schemes[] = {"file://", "https://", "http://",
	    "ssh://"};
	const char *at, *colon;
	size_t i;

	for (i = 0; i < sizeof(schemes) / sizeof(schemes[0]); i++)
		if (strncmp(s, schemes[i], strlen(schemes[i])) == 0)
			return s[strlen(schemes[i])] != '\0';
	/* scp-like user@host:path */
	at = strchr(s, '@');
	colon = strchr(s, ':');
	return at != NULL && colon != NULL && at < colon && at > s &&
	       colon > at + 1 && colon[1] != '\0' && strchr(s, ' ') == NULL;
}

bool
agent_conf_url_is_ssh(const char *s)
{
	return strncmp(s, "file://", 7) != 0 &&
	       strncmp(s, "https://", 8) != 0 && strncmp(s, "http://", 7) != 0;
}

bool
agent_conf_url_has_password(const char *s)
{
	const char *p = strstr(s, "://"), *at;
	size_t n;

	if (p == NULL || strncmp(s, "file://", 7) == 0)
		return false;
	p += 3;
	n = strcspn(p, "/");
	at = memchr(p, '@', n);
	return at != NULL && memchr(p, ':', (size_t)(at - p)) != NULL;
}

/* A branch name git accepts (git-check-ref-format, the parts that matter
 * for one branch). */
bool
agent_conf_branch_ok(const char *s)
{
	const char *p;

	if (s[0] == '\0' || s[0] == '-' || s[0] == '/' ||
	    s[strlen(s) - 1] == '/' || s[strlen(s) - 1] == '.')
		return false;
	if (strstr(s, "..") != NULL || strstr(s, "//") != NULL ||
	    strstr(s, "@{") != NULL || strstr(s, ".lock") != NULL)
		return false;
	for (p = s; *p != '\0'; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f ||
		    strchr("~^:?*[\\", *p) != NULL)
			return false;
	return true;
}

/* A relative path without `..` components, not absolute. */
bool
agent_conf_relpath_ok(const char *s)
{
	const char *p = s;
	size_t n;

	if (s[0] == '/')
		return false;
	while (*p != '\0') {
		n = strcspn(p, "/");
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return false;
		p += n;
		if (*p == '/')
			p++;
	}
	return true;
}

bool
agent_conf_filename_ok(const char *s)
{
	return s[0] != '\0' && strchr(s, '/') == NULL && strcmp(s, ".") != 0 &&
	       strcmp(s, "..") != 0;
}

char *
agent_conf_resolve_path(const char *basedir, const char *v)
{
	size_t n;
	char *r;

	if (v[0] == '/' || basedir == NULL || basedir[0] == '\0')
		r = xstrdup(v);
	else
		r = xasprintf("%s/%s", basedir, v);
	n = strlen(r);
	while (n > 1 && r[n - 1] == '/')
		r[--n] = '\0';
	return r;
}

bool
agent_conf_listen_ok(const char *s)
{
	const char *colon, *p;
	long port = 0;

	/* a bare port: the loopback address (conf.c, http.listen) */
	if (s[0] != '\0' && strspn(s, "0123456789") == strlen(s))
		return strlen(s) <= 5 && strtol(s, NULL, 10) <= 65535;
	if (s[0] == '[') {
		p = strchr(s, ']');
		if (p == NULL || p == s + 1 || p[1] != ':')
			return false;
		colon = p + 1;
	} else {
		colon = strrchr(s, ':');
		if (colon == NULL ||
		    memchr(s, ':', (size_t)(colon - s)) != NULL)
			return false;
		for (p = s; p < colon; p++)
			if (!isalnum((unsigned char)*p) && *p != '.' &&
			    *p != '-')
				return false;
	}
	p = colon + 1;
	if (*p == '\0' || strlen(p) > 5)
		return false;
	for (; *p != '\0'; p++) {
		if (!isdigit((unsigned char)*p))
			return false;
		port = port * 10 + (*p - '0');
	}
	return port <= 65535;
}

const char *
agent_conf_line_str(struct errlist *diags, const char *what, const char *key,
    const struct decl_yaml_node *vn)
{
	const char *why;
	size_t at = 0;
	uint32_t cp = 0;

	if (vn->kind != DECL_YAML_SCALAR || decl_yaml_node_is_null(vn) ||
	    vn->str[0] == '\0') {
		errlist_add(diags, DIAG_ERROR, &vn->pos,
		    "'%s': '%s' must be a non-empty string, not %s", what, key,
		    decl_yaml_node_is_null(vn) || vn->kind == DECL_YAML_SCALAR
		        ? "empty"
		        : decl_yaml_kind_name(vn));
		return NULL;
	}
	why = utf8_find(vn->str, utf8_line_problem, &at, &cp);
	if (why != NULL) {
		errlist_add(diags, DIAG_ERROR, &vn->pos,
		    "'%s': '%s' holds %s at byte %zu; a setting is one line of "
		    "text",
		    what, key, why, at);
		return NULL;
	}
	return vn->str;
}
