/* lib/json.c: see json.h.
 *
 * The nodes are cJSON structs, linked as cJSON links them (a container's
 * child is its first element, whose prev is the last one; next ends at
 * NULL), so that cJSON's lookups work on them. They and their strings are
 * carved out of the document's blocks, not malloc'd one by one: a Jolokia
 * reply of a node with 10k queues is some 200k values, and the document is
 * freed as a whole anyway. Numbers keep their double; an integer too large
 * for a double to hold exactly (past 2^53) also keeps its decimal text in
 * valuestring, so json_int gives it back exactly. */
#include "json.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonr.h"
#include "jsonw.h"
#include "sbuf.h"
#include "xalloc.h"

#define BLOCK_MIN ((size_t)16 * 1024)
#define BLOCK_MAX ((size_t)1024 * 1024)
#define EXACT_MAX 9007199254740992.0 /* 2^53 */
#define SMALL_OBJ 32 /* up to this many keys: compared pairwise */

struct block {
	struct block *next;
	size_t used, cap;
	/* cap bytes follow */
};

struct json_doc {
	cJSON *root;
	struct block *blocks; /* the current one first */
};

/* A key of an object being read, kept to find duplicates. */
struct keyref {
	const char *key;
	size_t len;
	uint32_t sig; /* key_sig */
	unsigned line, col;
};

struct build {
	struct json_doc *doc;
	struct jsonr *r;
	const char *path;
	struct err *err;
	cJSON *stack[JSONR_DEPTH]; /* the open containers */
	size_t key_base[JSONR_DEPTH];
	int depth;
	char *key; /* of the member being read */
	struct keyref *keys;
	size_t nkeys, akeys;
	size_t *slots; /* find_dup_hashed's table: index + 1, 0 = free */
	size_t slots_cap;
};

static const cJSON *
C(const struct json *v)
{
	return (const cJSON *)(const void *)v;
}

static const struct json *
J(const cJSON *c)
{
	return (const struct json *)(const void *)c;
}

static char *
block_data(struct block *b)
{
	return (char *)(b + 1);
}

/* n bytes aligned to align (a power of two, at most the alignment of
 * struct block, which the data follows) from the document's blocks. */
static void *
doc_alloc(struct json_doc *d, size_t n, size_t align)
{
	struct block *b = d->blocks, *big;
	size_t at, cap;

	if (b != NULL) {
		at = (b->used + align - 1) & ~(align - 1);
		if (at <= b->cap && n <= b->cap - at) {
			b->used = at + n;
			return block_data(b) + at;
		}
	}
	if (b != NULL && n > b->cap / 4) {
		/* A large string gets a block of its own, behind the current
		 * one, which goes on serving small requests. */
		big = xmalloc(sizeof(*big) + n);
		big->cap = big->used = n;
		big->next = b->next;
		b->next = big;
		return block_data(big);
	}
	cap = b == NULL ? BLOCK_MIN : b->cap < BLOCK_MAX ? 2 * b->cap : b->cap;
	while (cap < n)
		cap *= 2;
	b = xmalloc(sizeof(*b) + cap);
	b->cap = cap;
	b->used = n;
	b->next = d->blocks;
	d->blocks = b;
	return block_data(b);
}

static char *
doc_strdup(struct json_doc *d, const char *s, size_t len)
{
	char *p = doc_alloc(d, len + 1, 1);

	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

void
json_doc_free(struct json_doc *doc)
{
	struct block *b, *next;

	if (doc == NULL)
		return;
	for (b = doc->blocks; b != NULL; b = next) {
		next = b->next;
		free(b);
	}
	free(doc);
}

const struct json *
json_doc_root(const struct json_doc *doc)
{
	return doc != NULL ? J(doc->root) : NULL;
}

/* ---- building the tree ------------------------------------------------- */

static int
syntax_error(struct build *b)
{
	struct pos pos = {b->path, b->r->err_line, b->r->err_col};

	return err_setf(b->err, &pos, "not valid JSON: %s",
	    b->r->error != NULL ? b->r->error : "error");
}

/* A cheap signature of a key (its length, first and last bytes): keys
 * of a small object are compared by it first. */
static uint32_t
key_sig(const char *s, size_t len)
{
	if (len == 0)
		return 0;
	return (uint32_t)len << 16 ^ (uint32_t)(unsigned char)s[0] << 8 ^
	       (unsigned char)s[len - 1];
}

/* A hash of a key, eight bytes at a time, for the table of a large
 * object, whose keys (MBean names) share long prefixes. */
static uint64_t
key_hash(const char *s, size_t len)
{
	uint64_t h = len * UINT64_C(0x9e3779b97f4a7c15), w;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&w, s + i, 8);
		h = (h ^ w) * UINT64_C(0xff51afd7ed558ccd);
		h ^= h >> 32;
	}
	w = 0;
	memcpy(&w, s + i, len - i);
	h = (h ^ w) * UINT64_C(0xff51afd7ed558ccd);
	return h ^ (h >> 29);
}

/* Two keys are the same text. */
static bool
same_key(const struct keyref *a, const struct keyref *b)
{
	return a->sig == b->sig && a->len == b->len &&
	       memcmp(a->key, b->key, a->len) == 0;
}

/* The first key of k[0..n) (in document order) that repeats an earlier
 * one, through an open-addressing table of indices; NULL when none. */
static struct keyref *
find_dup_hashed(struct build *b, struct keyref *k, size_t n)
{
	size_t size = 64, mask, i, at;

	while (size < 2 * n)
		size *= 2;
	if (b->slots_cap < size) {
		free(b->slots);
		b->slots = xcalloc(size, sizeof(*b->slots));
		b->slots_cap = size;
	} else {
		memset(b->slots, 0, size * sizeof(*b->slots));
	}
	mask = size - 1;
	for (i = 0; i < n; i++) {
		for (at = (size_t)key_hash(k[i].key, k[i].len) & mask;
		     b->slots[at] != 0; at = (at + 1) & mask)
			if (same_key(&k[b->slots[at] - 1], &k[i]))
				return &k[i];
		b->slots[at] = i + 1;
	}
	return NULL;
}

/* The keys of the object just closed: the first one (in document order)
 * that repeats an earlier key is refused. */
static int
check_keys(struct build *b)
{
	size_t base = b->key_base[b->depth - 1], n = b->nkeys - base, i, j;
	struct keyref *k, *dup = NULL;
	struct pos pos = {b->path, 0, 0};

	b->nkeys = base;
	if (n < 2) /* b->keys is still NULL after an empty first object */
		return 0;
	k = b->keys + base;
	if (n <= SMALL_OBJ) {
		for (j = 1; j < n && dup == NULL; j++)
			for (i = 0; i < j && dup == NULL; i++)
				if (same_key(&k[i], &k[j]))
					dup = &k[j];
	} else {
		dup = find_dup_hashed(b, k, n);
	}
	if (dup == NULL)
		return 0;
	pos.line = dup->line;
	pos.col = dup->col;
	return err_setf(b->err, &pos, "duplicate key '%s'", dup->key);
}

static void
add_key(struct build *b)
{
	const struct sbuf *s = &b->r->str;

	b->key = doc_strdup(b->doc, sbuf_str(s), s->len);
	xgrow(&b->keys, &b->akeys, b->nkeys + 1, sizeof(*b->keys));
	b->keys[b->nkeys].key = b->key;
	b->keys[b->nkeys].len = s->len;
	b->keys[b->nkeys].sig = key_sig(b->key, s->len);
	b->keys[b->nkeys].line = b->r->tok_line;
	b->keys[b->nkeys].col = b->r->tok_col;
	b->nkeys++;
}

static void
set_number(struct build *b, cJSON *n)
{
	const struct jsonr *r = b->r;

	n->type = cJSON_Number;
	n->valuedouble = r->num;
	if (r->num >= (double)INT_MAX)
		n->valueint = INT_MAX;
	else if (r->num <= (double)INT_MIN)
		n->valueint = INT_MIN;
	else
		n->valueint = (int)r->num;
	if (r->is_int &&
	    (r->inum > (int64_t)EXACT_MAX || r->inum < -(int64_t)EXACT_MAX)) {
		char num[24];
		int len =
		    snprintf(num, sizeof(num), "%lld", (long long)r->inum);

		n->valuestring = doc_strdup(b->doc, num, (size_t)len);
	}
}

/* A node for the value whose first token is t. */
static cJSON *
new_node(struct build *b, enum jsonr_tok t)
{
	cJSON *n = doc_alloc(b->doc, sizeof(*n), _Alignof(cJSON));

	memset(n, 0, sizeof(*n));
	switch (t) {
	case JSONR_OBJ_BEGIN:
		n->type = cJSON_Object;
		break;
	case JSONR_ARR_BEGIN:
		n->type = cJSON_Array;
		break;
	case JSONR_STR:
		n->type = cJSON_String;
		n->valuestring =
		    doc_strdup(b->doc, sbuf_str(&b->r->str), b->r->str.len);
		break;
	case JSONR_NUM:
		set_number(b, n);
		break;
	case JSONR_TRUE:
		n->type = cJSON_True;
		n->valueint = 1;
		break;
	case JSONR_FALSE:
		n->type = cJSON_False;
		break;
	default:
		n->type = cJSON_NULL;
		break;
	}
	return n;
}

/* Append n to the innermost open container (or make it the root). */
static void
attach(struct build *b, cJSON *n)
{
	cJSON *parent;

	if (b->depth == 0) {
		b->doc->root = n;
		return;
	}
	parent = b->stack[b->depth - 1];
	if (parent->type == cJSON_Object) {
		n->string = b->key;
		b->key = NULL;
	}
	if (parent->child == NULL) {
		parent->child = n;
	} else {
		n->prev = parent->child->prev;
		parent->child->prev->next = n;
	}
	parent->child->prev = n;
}

/* The value whose first token t was just pulled from b->r; whole: then
 * the end of the input (nothing after the value). */
static int
build_value(struct build *b, enum jsonr_tok t, bool whole)
{
	cJSON *n;

	for (;; t = jsonr_next(b->r)) {
		switch (t) {
		case JSONR_ERROR:
			return syntax_error(b);
		case JSONR_END:
			return 0;
		case JSONR_KEY:
			add_key(b);
			continue;
		case JSONR_OBJ_END:
			if (check_keys(b) < 0)
				return -1;
			b->depth--;
			break;
		case JSONR_ARR_END:
			b->depth--;
			break;
		default:
			n = new_node(b, t);
			attach(b, n);
			if (t == JSONR_OBJ_BEGIN || t == JSONR_ARR_BEGIN) {
				/* jsonr refuses more than JSONR_DEPTH levels */
				b->key_base[b->depth] = b->nkeys;
				b->stack[b->depth++] = n;
				continue;
			}
			break;
		}
		if (b->depth == 0 && !whole)
			return 0;
	}
}

static int
build(struct json_doc **out, struct build *b, enum jsonr_tok t, bool whole)
{
	int rc;

	b->doc = xcalloc(1, sizeof(*b->doc));
	rc = build_value(b, t, whole);
	free(b->keys);
	free(b->slots);
	if (rc < 0) {
		json_doc_free(b->doc);
		return -1;
	}
	*out = b->doc;
	return 0;
}

int
json_parse(struct json_doc **out, const char *path, const char *text,
    size_t len, struct err *err)
{
	struct jsonr r;
	struct build b = {.r = &r, .path = path, .err = err};
	int rc;

	jsonr_init_mem(&r, text, len);
	jsonr_set_str_max(&r, len);
	rc = build(out, &b, jsonr_next(&r), true);
	jsonr_release(&r);
	return rc;
}

int
json_parse_next(struct json_doc **out, struct jsonr *r, enum jsonr_tok first,
    const char *path, struct err *err)
{
	struct build b = {.r = r, .path = path, .err = err};

	return build(out, &b, first, false);
}

/* ---- reading the tree -------------------------------------------------- */

bool
json_is_object(const struct json *v)
{
	return cJSON_IsObject(C(v));
}

bool
json_is_array(const struct json *v)
{
	return cJSON_IsArray(C(v));
}

bool
json_is_string(const struct json *v)
{
	return cJSON_IsString(C(v));
}

bool
json_is_number(const struct json *v)
{
	return cJSON_IsNumber(C(v));
}

bool
json_is_bool(const struct json *v)
{
	return cJSON_IsBool(C(v));
}

bool
json_is_null(const struct json *v)
{
	return cJSON_IsNull(C(v));
}

const struct json *
json_get(const struct json *o, const char *key)
{
	if (!cJSON_IsObject(C(o)))
		return NULL;
	return J(cJSON_GetObjectItemCaseSensitive(C(o), key));
}

size_t
json_size(const struct json *v)
{
	const cJSON *c;
	size_t n = 0;

	for (c = json_first(v) != NULL ? C(v)->child : NULL; c != NULL;
	     c = c->next)
		n++;
	return n;
}

const struct json *
json_first(const struct json *v)
{
	if (!cJSON_IsObject(C(v)) && !cJSON_IsArray(C(v)))
		return NULL;
	return J(C(v)->child);
}

const struct json *
json_next(const struct json *v)
{
	return v != NULL ? J(C(v)->next) : NULL;
}

const char *
json_key(const struct json *member)
{
	return member != NULL ? C(member)->string : NULL;
}

const char *
json_str(const struct json *v)
{
	return cJSON_IsString(C(v)) ? C(v)->valuestring : NULL;
}

int
json_int(const struct json *v, int64_t *out)
{
	const cJSON *c = C(v);
	long long ll;
	char *end;

	if (!cJSON_IsNumber(c))
		return -1;
	if (c->valuestring != NULL) {
		/* an integer past 2^53, exactly as written */
		errno = 0;
		ll = strtoll(c->valuestring, &end, 10);
		if (errno != 0 || *end != '\0')
			return -1;
		*out = (int64_t)ll;
		return 0;
	}
	if (c->valuedouble != floor(c->valuedouble) ||
	    fabs(c->valuedouble) > EXACT_MAX)
		return -1;
	*out = (int64_t)c->valuedouble;
	return 0;
}

int
json_bool(const struct json *v, bool *out)
{
	if (!cJSON_IsBool(C(v)))
		return -1;
	*out = cJSON_IsTrue(C(v));
	return 0;
}

/* A double that is not an exact integer, so that it reads back as the
 * same double and still not as an integer: 17 digits, and a ".0" when
 * they come out all digits (a double past 2^53). */
static void
render_double(struct sbuf *b, double d)
{
	char num[40];

	snprintf(num, sizeof(num), "%.17g", d);
	sbuf_adds(b, num);
	if (strspn(num, "-0123456789") == strlen(num))
		sbuf_adds(b, ".0");
}

static void
render(struct sbuf *b, const cJSON *c)
{
	const cJSON *it;

	if (cJSON_IsObject(c) || cJSON_IsArray(c)) {
		sbuf_addc(b, cJSON_IsObject(c) ? '{' : '[');
		for (it = c->child; it != NULL; it = it->next) {
			if (it != c->child)
				sbuf_addc(b, ',');
			if (cJSON_IsObject(c)) {
				jsonw_quote(b, it->string);
				sbuf_addc(b, ':');
			}
			render(b, it);
		}
		sbuf_addc(b, cJSON_IsObject(c) ? '}' : ']');
	} else if (cJSON_IsString(c)) {
		jsonw_quote(b, c->valuestring);
	} else if (cJSON_IsNumber(c) && c->valuestring != NULL) {
		sbuf_adds(b, c->valuestring);
	} else if (cJSON_IsNumber(c) &&
	           c->valuedouble == floor(c->valuedouble) &&
	           fabs(c->valuedouble) <= EXACT_MAX) {
		sbuf_addf(b, "%lld", (long long)c->valuedouble);
	} else if (cJSON_IsNumber(c)) {
		render_double(b, c->valuedouble);
	} else {
		sbuf_adds(b, cJSON_IsTrue(c)    ? "true"
		             : cJSON_IsFalse(c) ? "false"
		                                : "null");
	}
}

char *
json_render(const struct json *v)
{
	struct sbuf b;

	sbuf_init(&b, SBUF_UNBOUNDED);
	render(&b, C(v));
	return sbuf_take(&b);
}

/* ---- strict member readers --------------------------------------------- */

int
json_read_fail(struct json_reader *c, const char *where, const char *key,
    const char *what)
{
	return err_setf(c->err, &(struct pos){c->path, 0, 0}, "%s%s%s: %s",
	    where, where[0] != '\0' ? "." : "", key, what);
}

const struct json *
json_read_member(struct json_reader *c, const struct json *o, const char *where,
    const char *key)
{
	const struct json *m = json_get(o, key);

	if (m == NULL)
		json_read_fail(c, where, key, "missing");
	return m;
}

int
json_read_str(struct json_reader *c, const struct json *o, const char *where,
    const char *key, bool nullable, char **out)
{
	const struct json *m = json_read_member(c, o, where, key);

	if (m == NULL)
		return -1;
	if (nullable && json_is_null(m)) {
		*out = NULL;
		return 0;
	}
	if (!json_is_string(m))
		return json_read_fail(c, where, key,
		    nullable ? "expected a string or null"
		             : "expected a string");
	*out = xstrdup(json_str(m));
	return 0;
}

int
json_read_optional(struct json_reader *c, const struct json *o,
    const char *where, const char *key, char **out)
{
	const struct json *m = json_get(o, key);

	if (m == NULL) {
		*out = NULL;
		return 0;
	}
	if (!json_is_string(m))
		return json_read_fail(c, where, key, "expected a string");
	*out = xstrdup(json_str(m));
	return 0;
}

int
json_read_int(struct json_reader *c, const struct json *o, const char *where,
    const char *key, int64_t *out)
{
	const struct json *m = json_read_member(c, o, where, key);

	if (m == NULL)
		return -1;
	if (json_int(m, out) < 0)
		return json_read_fail(c, where, key, "expected an integer");
	return 0;
}

int
json_read_bool(struct json_reader *c, const struct json *o, const char *where,
    const char *key, bool *out)
{
	const struct json *m = json_read_member(c, o, where, key);

	if (m == NULL)
		return -1;
	if (json_bool(m, out) < 0)
		return json_read_fail(c, where, key, "expected a boolean");
	return 0;
}

const struct json *
json_read_array(struct json_reader *c, const struct json *o, const char *where,
    const char *key, size_t *n)
{
	const struct json *m = json_read_member(c, o, where, key);

	if (m == NULL)
		return NULL;
	if (!json_is_array(m)) {
		json_read_fail(c, where, key, "expected an array");
		return NULL;
	}
	*n = json_size(m);
	return m;
}

const struct json *
json_read_object(struct json_reader *c, const struct json *o, const char *where,
    const char *key, bool nullable)
{
	const struct json *m = json_read_member(c, o, where, key);

	if (m == NULL)
		return NULL;
	if (nullable && json_is_null(m))
		return m;
	if (!json_is_object(m)) {
		json_read_fail(c, where, key, "expected an object");
		return NULL;
	}
	return m;
}

int
json_read_strings(struct json_reader *c, const struct json *o,
    const char *where, const char *key, char ***out, size_t *n)
{
	const struct json *a, *it;
	size_t i = 0, size = 0;

	a = json_read_array(c, o, where, key, &size);
	if (a == NULL)
		return -1;
	*out = xcalloc(size + 1, sizeof(char *));
	*n = size;
	for (it = json_first(a); it != NULL; it = json_next(it)) {
		if (!json_is_string(it)) {
			*n = i;
			return json_read_fail(c, where, key,
			    "expected an array of strings");
		}
		(*out)[i++] = xstrdup(json_str(it));
	}
	return 0;
}
