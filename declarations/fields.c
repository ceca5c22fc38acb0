/* declarations/fields.c: table-driven parsing of one mapping's keys into
 * a model struct (the redis standardConfig idea, style.md 2.8). */
#include "decl-int.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/utf8.h"
#include "../lib/xalloc.h"

const struct decl_yaml_node *
decl_yaml_map_get(const struct decl_yaml_node *map, const char *key)
{
	size_t i;

	if (map == NULL || map->kind != DECL_YAML_MAP)
		return NULL;
	for (i = 0; i < map->n; i++)
		if (strcmp(map->keys[i]->str, key) == 0)
			return map->vals[i];
	return NULL;
}

/* What an echoed name spells out: what a name may not hold, but for the
 * plain space, which shows. */
static const char *
echo_escaped(uint32_t cp)
{
	return cp == ' ' ? NULL : utf8_name_problem(cp);
}

char *
decl_name_problem(const char *s)
{
	const char *why;
	size_t at = 0;
	uint32_t cp;

	if (s[0] == '\0')
		return xstrdup("is empty");
	if (strlen(s) > DECL_NAME_MAX)
		return xstrdup("is longer than 255 bytes");
	if (strchr(s, ',') != NULL)
		return xstrdup("contains ','");
	/* A plain space shows, between other characters and one at a time
	 * (a leading, trailing or doubled one does not: "orders " and
	 * "orders", "a  b" and "a b" would look alike). */
	if (s[0] == ' ' || s[strlen(s) - 1] == ' ')
		return xstrdup("starts or ends with a space");
	if (strstr(s, "  ") != NULL)
		return xstrdup("contains two spaces in a row");
	why = utf8_find(s, echo_escaped, &at, &cp);
	if (why == NULL)
		return NULL;
	if (cp <= 0x20 || cp == 0x7f)
		return xstrdup("contains whitespace or a control character");
	if (cp == 0xffffffffu) /* the YAML reader refuses it first */
		return xasprintf("contains invalid UTF-8 at byte %zu", at);
	return xasprintf("contains U+%04X (%s) at byte %zu", (unsigned)cp, why,
	    at);
}

bool
decl_is_file_name(const char *s)
{
	const char *p;

	if (s[0] == '\0' || s[0] == '.' || strlen(s) > DECL_NAME_MAX)
		return false;
	for (p = s; *p != '\0'; p++)
		if (!isalnum((unsigned char)*p) && *p != '.' && *p != '_' &&
		    *p != '-')
			return false;
	return true;
}

/* Edit distance, for "did you mean"; both strings are short keys. */
static size_t
distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	size_t row[64];

	if (la >= 64 || lb >= 64)
		return 99;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		size_t prev = row[0];

		row[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t cur = row[j];
			size_t best = prev + (a[i - 1] != b[j - 1]);
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			prev = cur;
		}
	}
	return row[lb];
}

static void
unknown_key(const struct decl_yaml_node *key, const char *what,
    const struct decl_field *tab, size_t ntab, struct errlist *diags)
{
	const char *best = NULL;
	size_t i, bestd = 3;

	for (i = 0; i < ntab; i++) {
		size_t d = distance(key->str, tab[i].key);
		if (d < bestd) {
			bestd = d;
			best = tab[i].key;
		}
	}
	if (best != NULL && strlen(key->str) > 2)
		errlist_add(diags, DIAG_ERROR, &key->pos,
		    "unknown key '%s' in %s (did you mean '%s'?)", key->str,
		    what, best);
	else
		errlist_add(diags, DIAG_ERROR, &key->pos,
		    "unknown key '%s' in %s", key->str, what);
}

/* A non-null scalar, or an error naming the key. */
static int
want_scalar(const struct decl_yaml_node *v, const char *key,
    struct errlist *diags)
{
	if (v->kind != DECL_YAML_SCALAR)
		return errlist_add(diags, DIAG_ERROR, &v->pos,
		    "'%s' must be a single value, not %s", key,
		    decl_yaml_kind_name(v));
	if (decl_yaml_node_is_null(v))
		return errlist_add(diags, DIAG_ERROR, &v->pos,
		    "'%s' has no value", key);
	return 0;
}

static int
parse_int(const struct decl_yaml_node *v, const struct decl_field *f,
    int64_t *out, struct errlist *diags)
{
	const char *s = v->str;
	char *end;
	long long n;

	if (want_scalar(v, f->key, diags) < 0)
		return -1;
	errno = 0;
	n = strtoll(s, &end, 10);
	if (!v->plain ||
	    !(isdigit((unsigned char)s[0]) ||
	        (s[0] == '-' && isdigit((unsigned char)s[1]))) ||
	    *end != '\0')
		return errlist_add(diags, DIAG_ERROR, &v->pos,
		    "'%s' must be an integer, not '%s'", f->key, s);
	if (errno == ERANGE || n < f->min || n > f->max ||
	    (f->no_zero && n == 0))
		return errlist_add(diags, DIAG_ERROR, &v->pos,
		    "'%s' must be %s, not %s", f->key, f->range, s);
	*out = (int64_t)n;
	return 0;
}

static int
parse_bool(const struct decl_yaml_node *v, const char *key, bool *out,
    struct errlist *diags)
{
	if (want_scalar(v, key, diags) < 0)
		return -1;
	if (v->plain && strcmp(v->str, "true") == 0)
		*out = true;
	else if (v->plain && strcmp(v->str, "false") == 0)
		*out = false;
	else
		return errlist_add(diags, DIAG_ERROR, &v->pos,
		    "'%s' must be true or false, not '%s'", key, v->str);
	return 0;
}

static int
routing_one(const struct decl_yaml_node *v, const char *key, unsigned *out,
    struct errlist *diags)
{
	unsigned r;

	if (want_scalar(v, key, diags) < 0)
		return -1;
	/* a declaration spells it in lower case only */
	if (decl_routing_parse(v->str, &r) < 0 ||
	    strcmp(v->str, decl_routing_name(r)) != 0)
		return errlist_add(diags, DIAG_ERROR, &v->pos,
		    "unknown routing type '%s' (expected anycast or multicast)",
		    v->str);
	*out = r;
	return 0;
}

static int
routing_set(const struct decl_yaml_node *v, const char *key, unsigned *out,
    struct errlist *diags)
{
	unsigned set = 0, one = 0;
	size_t i;
	int rc = 0;

	if (v->kind != DECL_YAML_SEQ)
		return errlist_add(diags, DIAG_ERROR, &v->pos,
		    "'%s' must be a list such as [anycast], not %s", key,
		    decl_yaml_kind_name(v));
	if (v->n == 0)
		return errlist_add(diags, DIAG_ERROR, &v->pos,
		    "'%s' must list at least one routing type", key);
	for (i = 0; i < v->n; i++) {
		if (routing_one(v->vals[i], key, &one, diags) < 0) {
			rc = -1;
			continue;
		}
		if (set & one)
			rc = errlist_add(diags, DIAG_ERROR, &v->vals[i]->pos,
			    "routing type '%s' is listed twice",
			    v->vals[i]->str);
		set |= one;
	}
	if (rc == 0)
		*out = set;
	return rc;
}

/* Checks the URL of a Jolokia endpoint; NULL when fine, else why not. */
static const char *
url_problem(const char *s)
{
	const char *p, *host, *end, *colon;
	char *e;
	long port;

	for (p = s; *p != '\0'; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			return "it contains whitespace or a control character";
	if (strncmp(s, "http://", 7) == 0)
		host = s + 7;
	else if (strncmp(s, "https://", 8) == 0)
		host = s + 8;
	else
		return "it must start with http:// or https://";
	end = host + strcspn(host, "/?#");
	if (memchr(host, '@', (size_t)(end - host)) != NULL)
		return "it must not carry a user or password (use "
		       "'credentials')";
	if (host[0] == '[') {
		p = memchr(host, ']', (size_t)(end - host));
		if (p == NULL || p == host + 1)
			return "its IPv6 host is not closed by ']'";
		colon = p + 1 < end && p[1] == ':' ? p + 1 : NULL;
		if (p + 1 < end && colon == NULL)
			return "it has text after the IPv6 host";
	} else {
		colon = memchr(host, ':', (size_t)(end - host));
		if (host == end || colon == host)
			return "it has no host";
	}
	if (colon == NULL)
		return NULL;
	if (!isdigit((unsigned char)colon[1]))
		return "its port is not a number";
	errno = 0;
	port = strtol(colon + 1, &e, 10);
	if (e != end || errno != 0 || port < 1 || port > 65535)
		return "its port is not a number from 1 to 65535";
	return NULL;
}

/* What url_problem accepts, as a pattern for the schema: no whitespace,
 * control character or DEL anywhere; http:// or https://; a host (or an
 * IPv6 one in brackets) without a user; maybe a port; then a path, query
 * or fragment. Only the port's range is left to the loader. */
const char decl_url_pattern[] =
    "^https?://(\\[[^\\]/?#@\\u0000-\\u0020\\u007f]+\\]|"
    "[^\\[\\]/?#@:\\u0000-\\u0020\\u007f]+)(:[0-9]{1,5})?"
    "([/?#][^\\u0000-\\u0020\\u007f]*)?$";

static int
parse_cred(const struct decl_yaml_node *v, struct errlist *diags)
{
	if (strchr(v->str, ':') != NULL)
		return errlist_add(diags, DIAG_ERROR, &v->pos,
		    "'credentials' looks like user:password; name a file of "
		    "the credentials folder instead, never put a secret in git");
	if (strchr(v->str, '/') != NULL)
		return errlist_add(diags, DIAG_ERROR, &v->pos,
		    "'credentials' must name a file of the credentials "
		    "folder, not a path ('%s')",
		    v->str);
	if (!decl_is_file_name(v->str))
		return errlist_add(diags, DIAG_ERROR, &v->pos,
		    "'credentials' must be a file name of letters, digits, "
		    "'.', '_' and '-' (not starting with '.'), not '%s'",
		    v->str);
	return 0;
}

static int
kv_cmp(const void *a, const void *b)
{
	return strcmp(((const struct decl_kv *)a)->key,
	    ((const struct decl_kv *)b)->key);
}

/* transformer-properties: the struct holds the array then its count. */
static int
parse_kv(const struct decl_yaml_node *v, const char *key, struct decl_kv **arr,
    size_t *n, struct errlist *diags)
{
	size_t i;

	if (v->kind != DECL_YAML_MAP)
		return errlist_add(diags, DIAG_ERROR, &v->pos,
		    "'%s' must be a mapping of names to values, not %s", key,
		    decl_yaml_kind_name(v));
	for (i = 0; i < v->n; i++)
		if (v->vals[i]->kind != DECL_YAML_SCALAR)
			return errlist_add(diags, DIAG_ERROR, &v->vals[i]->pos,
			    "'%s' values must be single values, not %s", key,
			    decl_yaml_kind_name(v->vals[i]));
	*arr = xcalloc(v->n ? v->n : 1, sizeof(**arr));
	*n = v->n;
	for (i = 0; i < v->n; i++) {
		(*arr)[i].key = xstrdup(v->keys[i]->str);
		(*arr)[i].value = xstrdup(v->vals[i]->str);
	}
	qsort(*arr, *n, sizeof(**arr), kv_cmp);
	return 0;
}

static int
parse_string(const struct decl_yaml_node *v, const struct decl_field *f,
    char **out, struct errlist *diags)
{
	const char *why = NULL;

	/* For an optional string, null and "" both mean "none". */
	if (f->type == DECL_FIELD_STR_OPT && v->kind == DECL_YAML_SCALAR &&
	    (decl_yaml_node_is_null(v) || v->str[0] == '\0')) {
		free(*out);
		*out = NULL;
		return 0;
	}
	if (want_scalar(v, f->key, diags) < 0)
		return -1;
	if (f->type == DECL_FIELD_STR && v->str[0] == '\0')
		return errlist_add(diags, DIAG_ERROR, &v->pos,
		    "'%s' must not be empty", f->key);
	if (f->type == DECL_FIELD_NAME) {
		char *bad = decl_name_problem(v->str), *shown;

		if (bad != NULL) {
			/* shown with what cannot be seen spelled out */
			shown = utf8_escape(v->str, echo_escaped);
			errlist_add(diags, DIAG_ERROR, &v->pos,
			    "'%s' %s ('%s')", f->key, bad, shown);
			free(shown);
			free(bad);
			return -1;
		}
	}
	if (f->type == DECL_FIELD_FILENAME && !decl_is_file_name(v->str))
		return errlist_add(diags, DIAG_ERROR, &v->pos,
		    "'%s' must be letters, digits, '.', '_' and '-' (not "
		    "starting with '.'), not '%s'",
		    f->key, v->str);
	if (f->type == DECL_FIELD_CREDENTIALS && parse_cred(v, diags) < 0)
		return -1;
	if (f->type == DECL_FIELD_URL) {
		why = url_problem(v->str);
		if (why != NULL)
			return errlist_add(diags, DIAG_ERROR, &v->pos,
			    "invalid URL '%s' in '%s': %s", v->str, f->key,
			    why);
	}
	free(*out);
	*out = xstrdup(v->str);
	return 0;
}

static int
parse_deletion_policy(const struct decl_yaml_node *v, const char *key,
    enum decl_deletion_policy *out, struct errlist *diags)
{
	if (want_scalar(v, key, diags) < 0)
		return -1;
	if (decl_deletion_policy_parse(v->str, out) < 0)
		return errlist_add(diags, DIAG_ERROR, &v->pos,
		    "unknown %s '%s' (expected delete or retain)", key, v->str);
	return 0;
}

static int
parse_one(void *obj, const struct decl_yaml_node *v, const struct decl_field *f,
    struct errlist *diags)
{
	char *base = obj;
	enum decl_divert_routing rt;
	bool b = false;

	if (f->outer)
		return 0;
	switch (f->type) {
	case DECL_FIELD_BOOL:
		return parse_bool(v, f->key, (bool *)(base + f->off), diags);
	case DECL_FIELD_BOOL_NOT:
		if (parse_bool(v, f->key, &b, diags) < 0)
			return -1;
		*(bool *)(base + f->off) = !b;
		return 0;
	case DECL_FIELD_INT:
		return parse_int(v, f, (int64_t *)(base + f->off), diags);
	case DECL_FIELD_ROUTING_SET:
		return routing_set(v, f->key, (unsigned *)(base + f->off),
		    diags);
	case DECL_FIELD_ROUTING_ONE:
		return routing_one(v, f->key, (unsigned *)(base + f->off),
		    diags);
	case DECL_FIELD_DIVERT_ROUTING:
		if (want_scalar(v, f->key, diags) < 0)
			return -1;
		if (decl_divert_routing_parse(v->str, &rt) < 0)
			return errlist_add(diags, DIAG_ERROR, &v->pos,
			    "unknown routing-type '%s' (expected STRIP, PASS, "
			    "ANYCAST or MULTICAST)",
			    v->str);
		*(enum decl_divert_routing *)(base + f->off) = rt;
		return 0;
	case DECL_FIELD_DELETION_POLICY:
		return parse_deletion_policy(v, f->key,
		    (enum decl_deletion_policy *)(base + f->off), diags);
	case DECL_FIELD_KEY_VALUES:
		return parse_kv(v, f->key, (struct decl_kv **)(base + f->off),
		    (size_t *)(base + f->off_n), diags);
	case DECL_FIELD_MODE:
	case DECL_FIELD_LIST:
	case DECL_FIELD_MAP:
	case DECL_FIELD_NAME_LIST:
	case DECL_FIELD_OUTER:
		return 0;
	default:
		return parse_string(v, f, (char **)(base + f->off), diags);
	}
}

void
decl_fields_defaults(void *obj, const struct decl_field *tab, size_t ntab)
{
	char *base = obj;
	const struct decl_field *f;
	size_t i;

	for (i = 0; i < ntab; i++) {
		f = &tab[i];
		if (!f->has_default || f->outer)
			continue;
		switch (f->type) {
		case DECL_FIELD_BOOL:
			*(bool *)(base + f->off) = f->def != 0;
			break;
		case DECL_FIELD_BOOL_NOT:
			*(bool *)(base + f->off) = f->def == 0;
			break;
		case DECL_FIELD_INT:
			*(int64_t *)(base + f->off) = f->def;
			break;
		case DECL_FIELD_ROUTING_ONE:
			*(unsigned *)(base + f->off) = (unsigned)f->def;
			break;
		case DECL_FIELD_DIVERT_ROUTING:
			*(enum decl_divert_routing *)(base + f->off) =
			    (enum decl_divert_routing)f->def;
			break;
		case DECL_FIELD_DELETION_POLICY:
			*(enum decl_deletion_policy *)(base + f->off) =
			    (enum decl_deletion_policy)f->def;
			break;
		case DECL_FIELD_STR:
		case DECL_FIELD_STR_OPT:
		case DECL_FIELD_NAME:
		case DECL_FIELD_FILENAME:
		case DECL_FIELD_CREDENTIALS:
		case DECL_FIELD_URL:
			free(*(char **)(base + f->off));
			*(char **)(base + f->off) =
			    f->def_str != NULL ? xstrdup(f->def_str) : NULL;
			break;
		default: /* no default of their own: sets, mappings, lists */
			break;
		}
	}
}

int
decl_fields_parse(void *obj, const struct decl_yaml_node *map, const char *what,
    const struct decl_field *tab, size_t ntab, struct errlist *diags)
{
	size_t i, k;
	int rc = 0;

	if (map->kind != DECL_YAML_MAP)
		return errlist_add(diags, DIAG_ERROR, &map->pos,
		    "%s must be a mapping, not %s", what,
		    decl_yaml_kind_name(map));
	for (i = 0; i < map->n; i++) {
		for (k = 0; k < ntab; k++)
			if (strcmp(map->keys[i]->str, tab[k].key) == 0)
				break;
		if (k == ntab) {
			unknown_key(map->keys[i], what, tab, ntab, diags);
			rc = -1;
		} else if (parse_one(obj, map->vals[i], &tab[k], diags) < 0) {
			rc = -1;
		}
	}
	for (k = 0; k < ntab; k++)
		if (tab[k].required &&
		    decl_yaml_map_get(map, tab[k].key) == NULL)
			rc = errlist_add(diags, DIAG_ERROR, &map->pos,
			    "missing required key '%s' in %s", tab[k].key,
			    what);
	return rc;
}
