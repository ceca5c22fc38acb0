/* declarations/fields.c: table-driven parsing of one mapping's keys into
 * a model struct (the redis standardConfig idea, style.md 2.8). */
#include "decl-int.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../lib/sbuf.h"
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

/* Whether key is tab's key spelled otherwise: in camelCase or another
 * case ("createDurableQueue", as broker.xml spells a permission, for
 * "create-durable-queue"). */
static bool
same_but_dashes(const char *key, const char *tab)
{
	for (;;) {
		if (*tab == '-')
			tab++;
		if (tolower((unsigned char)*key) != *tab)
			return false;
		if (*key == '\0')
			return true;
		key++;
		tab++;
	}
}

static void
unknown_key(const struct decl_yaml_node *key, const char *what,
    const struct decl_field *tab, size_t ntab, struct errlist *diags)
{
	const char *best = NULL;
	size_t i, bestd = 3;

	for (i = 0; i < ntab; i++)
		if (same_but_dashes(key->str, tab[i].key)) {
			errlist_add(diags, DIAG_ERROR, &key->pos,
			    "unknown key '%s' in %s (declarations spell it "
			    "'%s')",
			    key->str, what, tab[i].key);
			return;
		}
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

char *
decl_role_problem(const char *s)
{
	char *why = decl_name_problem(s);

	if (why == NULL && strchr(s, ' ') != NULL)
		why = xstrdup("contains a space");
	return why;
}

/* The string forms the loader reads below, for the schema. */
const char decl_duration_pattern[] = "^[0-9]+(ms|s|m|h)$";
const char decl_size_pattern[] = "^[0-9]+([KkMmGg][Ii]?)?[Bb]?$";
const char decl_delim_pattern[] = "^[!-\"$-)+-/:-@\\[-`{-~]$";

/* A plain decimal integer (maybe negative): the integer form of a
 * duration or a size, read as parse_int reads one. */
static bool
is_plain_int(const struct decl_yaml_node *v)
{
	const char *s = v->str;

	if (!v->plain)
		return false;
	if (*s == '-')
		s++;
	if (!isdigit((unsigned char)*s))
		return false;
	while (isdigit((unsigned char)*s))
		s++;
	return *s == '\0';
}

/* digits then a unit of units[] (each with its multiplier); -1 when s is
 * not of that form, -2 on overflow. */
struct unit {
	const char *name;
	int64_t mult;
};

static int
with_unit(const char *s, const struct unit *units, size_t nunits,
    bool fold_case, int64_t *out)
{
	const char *p = s;
	uint64_t n = 0;
	size_t i;

	if (!isdigit((unsigned char)*p))
		return -1;
	for (; isdigit((unsigned char)*p); p++) {
		if (n > (uint64_t)INT64_MAX / 10)
			return -2;
		n = n * 10 + (uint64_t)(*p - '0');
		if (n > (uint64_t)INT64_MAX)
			return -2;
	}
	for (i = 0; i < nunits; i++)
		if (fold_case ? strcasecmp(p, units[i].name) == 0
		              : strcmp(p, units[i].name) == 0)
			break;
	if (i == nunits)
		return -1;
	if (n > (uint64_t)(INT64_MAX / units[i].mult))
		return -2;
	*out = (int64_t)n * units[i].mult;
	return 0;
}

#define KIB ((int64_t)1024)
/* Artemis's byte notation (ByteUtil.convertTextBytes): K, M and G with
 * an optional i and b, in any case, all powers of 1024. */
static const struct unit size_units[] = {
    {"", 1},
    {"b", 1},
    {"k", KIB},
    {"kb", KIB},
    {"ki", KIB},
    {"kib", KIB},
    {"m", KIB *KIB},
    {"mb", KIB *KIB},
    {"mi", KIB *KIB},
    {"mib", KIB *KIB},
    {"g", KIB *KIB *KIB},
    {"gb", KIB *KIB *KIB},
    {"gi", KIB *KIB *KIB},
    {"gib", KIB *KIB *KIB},
};

static const struct unit duration_units[] = {
    {"ms", 1},
    {"s", 1000},
    {"m", (int64_t)60 * 1000},
    {"h", (int64_t)60 * 60 * 1000},
};

/* A duration or a size: an integer (milliseconds, bytes) or digits and a
 * unit, within the row's bounds. */
static int
parse_measure(const struct decl_yaml_node *v, const struct decl_field *f,
    int64_t *out, struct errlist *diags)
{
	bool size = f->type == DECL_FIELD_SIZE;
	int64_t n = 0;
	int rc;

	if (want_scalar(v, f->key, diags) < 0)
		return -1;
	if (is_plain_int(v))
		return parse_int(v, f, out, diags);
	rc = size ? with_unit(v->str, size_units,
	                sizeof(size_units) / sizeof(size_units[0]), true, &n)
	          : with_unit(v->str, duration_units,
	                sizeof(duration_units) / sizeof(duration_units[0]),
	                false, &n);
	if (rc == -1)
		return errlist_add(diags, DIAG_ERROR, &v->pos,
		    size ? "'%s' must be a size such as 10MB, 512KiB or 1G "
		           "(powers of 1024, as Artemis reads them) or an "
		           "integer of bytes, not '%s'"
		         : "'%s' must be a duration such as 500ms, 5s, 2m or "
		           "1h, or an integer of milliseconds, not '%s'",
		    f->key, v->str);
	if (rc == -2 || n > f->max)
		return errlist_add(diags, DIAG_ERROR, &v->pos,
		    "'%s' must be at most %" PRId64 " %s, not %s", f->key,
		    f->max, size ? "bytes" : "milliseconds", v->str);
	if (n < f->min)
		return errlist_add(diags, DIAG_ERROR, &v->pos,
		    "'%s' must be %s, not %s", f->key, f->range, v->str);
	*out = n;
	return 0;
}

static int
parse_enum(const struct decl_yaml_node *v, const struct decl_field *f, int *out,
    struct errlist *diags)
{
	struct sbuf words;
	const char *w;
	int i, n;

	if (want_scalar(v, f->key, diags) < 0)
		return -1;
	for (i = 1; (w = f->enum_name(i)) != NULL; i++)
		if (strcmp(v->str, w) == 0) {
			*out = i;
			return 0;
		}
	n = i - 1;
	sbuf_init(&words, SBUF_UNBOUNDED);
	for (i = 1; i <= n; i++)
		sbuf_addf(&words, "%s%s",
		    i == 1   ? ""
		    : i == n ? " or "
		             : ", ",
		    f->enum_name(i));
	errlist_add(diags, DIAG_ERROR, &v->pos, "unknown %s '%s' (expected %s)",
	    f->key, v->str, sbuf_str(&words));
	sbuf_release(&words);
	return -1;
}

static int
role_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A permission's roles: a list (null: none) of role names, none twice,
 * kept sorted. */
static int
parse_roles(const struct decl_yaml_node *v, const struct decl_field *f,
    struct decl_roles *out, struct errlist *diags)
{
	const struct decl_yaml_node *it;
	size_t i, j;
	char *why;
	int rc = 0;

	if (v->kind == DECL_YAML_SCALAR && decl_yaml_node_is_null(v))
		return 0;
	if (v->kind != DECL_YAML_SEQ)
		return errlist_add(diags, DIAG_ERROR, &v->pos,
		    "'%s' must be a list of roles such as [admin], not %s",
		    f->key, decl_yaml_kind_name(v));
	if (f->max_items > 0 && v->n > f->max_items)
		return errlist_add(diags, DIAG_ERROR, &v->pos,
		    "'%s' lists %zu roles, over the limit of %zu", f->key, v->n,
		    f->max_items);
	for (i = 0; i < v->n; i++) {
		it = v->vals[i];
		if (it->kind != DECL_YAML_SCALAR ||
		    decl_yaml_node_is_null(it)) {
			rc = errlist_add(diags, DIAG_ERROR, &it->pos,
			    "'%s' lists roles, each a single value, not %s",
			    f->key,
			    decl_yaml_node_is_null(it)
			        ? "null"
			        : decl_yaml_kind_name(it));
			continue;
		}
		why = decl_role_problem(it->str);
		if (why != NULL) {
			char *shown = utf8_escape(it->str, echo_escaped);

			rc = errlist_add(diags, DIAG_ERROR, &it->pos,
			    "role '%s' in '%s' %s", shown, f->key, why);
			free(shown);
			free(why);
			continue;
		}
		for (j = 0; j < i; j++)
			if (v->vals[j]->kind == DECL_YAML_SCALAR &&
			    strcmp(v->vals[j]->str, it->str) == 0)
				break;
		if (j < i)
			rc = errlist_add(diags, DIAG_ERROR, &it->pos,
			    "role '%s' is listed twice in '%s' (first at line "
			    "%u, column %u)",
			    it->str, f->key, v->vals[j]->pos.line,
			    v->vals[j]->pos.col);
	}
	if (rc < 0)
		return rc;
	out->v = xcalloc(v->n ? v->n : 1, sizeof(*out->v));
	for (i = 0; i < v->n; i++)
		out->v[out->n++] = xstrdup(v->vals[i]->str);
	qsort(out->v, out->n, sizeof(*out->v), role_cmp);
	return 0;
}

static int
parse_delim(const struct decl_yaml_node *v, const struct decl_field *f,
    char **out, struct errlist *diags)
{
	const char *s = v->str;

	if (want_scalar(v, f->key, diags) < 0)
		return -1;
	if (s[0] == '\0' || s[1] != '\0' || !ispunct((unsigned char)s[0]) ||
	    s[0] == '#' || s[0] == '*')
		return errlist_add(diags, DIAG_ERROR, &v->pos,
		    "'%s' must be one punctuation character other than '#' "
		    "and '*' (the wildcards), not '%s'",
		    f->key, s);
	free(*out);
	*out = xstrdup(s);
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
	case DECL_FIELD_TRI:
		if (parse_bool(v, f->key, &b, diags) < 0)
			return -1;
		*(enum decl_tri *)(base + f->off) =
		    b ? DECL_TRI_TRUE : DECL_TRI_FALSE;
		return 0;
	case DECL_FIELD_ENUM:
		return parse_enum(v, f, (int *)(base + f->off), diags);
	case DECL_FIELD_DURATION:
	case DECL_FIELD_SIZE:
		return parse_measure(v, f, (int64_t *)(base + f->off), diags);
	case DECL_FIELD_ROLES:
		return parse_roles(v, f, (struct decl_roles *)(base + f->off),
		    diags);
	case DECL_FIELD_DELIM:
		return parse_delim(v, f, (char **)(base + f->off), diags);
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
		if (f->unset && !f->outer) {
			*(int64_t *)(base + f->off) = DECL_UNSET;
			continue;
		}
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
		case DECL_FIELD_DELIM:
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
