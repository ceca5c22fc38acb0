/* declarations/yaml.c: one YAML buffer to a tree of positioned nodes, with
 * the guards against hostile input (decl-int.h lists them). libyaml's
 * event API is used rather than its document API so that anchors and
 * aliases are refused when met, before anything could be expanded. */
#include "decl-int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "../lib/xalloc.h"

struct ybuild {
	const char *path;
	const char *data;
	size_t len;
	struct errlist *diags;
	struct decl_yaml_node *root;
	struct decl_yaml_node *stack[DECL_YAML_DEPTH_MAX];
	int depth;
	struct decl_yaml_node
	    *pending_key; /* a map key waiting for its value */
	int ndocs;
};

static struct pos
mark_pos(const char *path, yaml_mark_t m)
{
	struct pos p;

	p.path = path;
	p.line =
	    (unsigned)(m.line > UINT32_MAX - 1 ? UINT32_MAX - 1 : m.line) + 1;
	p.col =
	    (unsigned)(m.column > UINT32_MAX - 1 ? UINT32_MAX - 1 : m.column) +
	    1;
	return p;
}

void
decl_yaml_node_free(struct decl_yaml_node *n)
{
	size_t i;

	if (n == NULL)
		return;
	for (i = 0; i < n->n; i++) {
		if (n->keys != NULL)
			decl_yaml_node_free(n->keys[i]);
		decl_yaml_node_free(n->vals[i]);
	}
	free(n->keys);
	free(n->vals);
	free(n->str);
	free(n);
}

const char *
decl_yaml_kind_name(const struct decl_yaml_node *n)
{
	if (n->kind == DECL_YAML_SEQ)
		return "a list";
	if (n->kind == DECL_YAML_MAP)
		return "a mapping";
	return "a scalar";
}

bool
decl_yaml_node_is_null(const struct decl_yaml_node *n)
{
	return n->kind == DECL_YAML_SCALAR && n->plain &&
	       (n->str[0] == '\0' || strcmp(n->str, "~") == 0 ||
	           strcmp(n->str, "null") == 0 || strcmp(n->str, "Null") == 0 ||
	           strcmp(n->str, "NULL") == 0);
}

/* Length of the UTF-8 sequence at s (at most left bytes), 0 if invalid. */
static size_t
utf8_len(const unsigned char *s, size_t left)
{
	size_t n, i;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1fu;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0fu;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07u;
	else
		return 0;
	if (n > left)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3fu);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* Refuse invalid UTF-8 with the position of the first bad byte (libyaml
 * reports those without a line and column). */
static int
check_utf8(struct ybuild *b)
{
	const unsigned char *s = (const unsigned char *)b->data;
	struct pos p = {b->path, 1, 1};
	size_t i = 0;

	while (i < b->len) {
		size_t n = utf8_len(s + i, b->len - i);
		if (n == 0)
			return errlist_add(b->diags, DIAG_ERROR, &p,
			    "invalid UTF-8 (byte 0x%02x); declarations must be "
			    "UTF-8 text",
			    s[i]);
		if (s[i] == '\n')
			p.line++, p.col = 1;
		else
			p.col++;
		i += n;
	}
	return 0;
}

static struct decl_yaml_node *
node_new(struct ybuild *b, enum decl_yaml_kind kind, yaml_mark_t m)
{
	struct decl_yaml_node *n = xcalloc(1, sizeof(*n));

	n->kind = kind;
	n->pos = mark_pos(b->path, m);
	return n;
}

static void
node_push(struct decl_yaml_node *parent, struct decl_yaml_node *key,
    struct decl_yaml_node *val)
{
	size_t cap = parent->alloc;

	xgrow(&parent->vals, &cap, parent->n + 1,
	    sizeof(struct decl_yaml_node *));
	if (parent->kind == DECL_YAML_MAP) {
		cap = parent->alloc;
		xgrow(&parent->keys, &cap, parent->n + 1,
		    sizeof(struct decl_yaml_node *));
	}
	parent->alloc = cap;
	if (parent->kind == DECL_YAML_MAP)
		parent->keys[parent->n] = key;
	parent->vals[parent->n++] = val;
}

/* A scalar key of the innermost mapping: refuse duplicates and huge maps. */
static int
add_key(struct ybuild *b, struct decl_yaml_node *map,
    struct decl_yaml_node *key)
{
	size_t i;

	if (key->kind != DECL_YAML_SCALAR)
		return errlist_add(b->diags, DIAG_ERROR, &key->pos,
		    "mapping keys must be scalars, not %s",
		    decl_yaml_kind_name(key));
	if (map->n >= DECL_YAML_KEYS_MAX)
		return errlist_add(b->diags, DIAG_ERROR, &key->pos,
		    "mapping has more than %d keys", DECL_YAML_KEYS_MAX);
	for (i = 0; i < map->n; i++)
		if (strcmp(map->keys[i]->str, key->str) == 0)
			return errlist_add(b->diags, DIAG_ERROR, &key->pos,
			    "duplicate key '%s' (first at line %u, column %u)",
			    key->str, map->keys[i]->pos.line,
			    map->keys[i]->pos.col);
	b->pending_key = key;
	return 0;
}

/* Attach a new node where the event stream puts it. On error the node is
 * freed here. */
static int
attach(struct ybuild *b, struct decl_yaml_node *n)
{
	struct decl_yaml_node *top;

	if (b->depth == 0) {
		if (b->root != NULL) {
			decl_yaml_node_free(n);
			return errlist_add(b->diags, DIAG_ERROR, &n->pos,
			    "unexpected second root node");
		}
		b->root = n;
		return 0;
	}
	top = b->stack[b->depth - 1];
	if (top->kind == DECL_YAML_SEQ) {
		node_push(top, NULL, n);
		return 0;
	}
	if (b->pending_key == NULL) {
		if (add_key(b, top, n) < 0) {
			decl_yaml_node_free(n);
			return -1;
		}
		return 0;
	}
	node_push(top, b->pending_key, n);
	b->pending_key = NULL;
	return 0;
}

static int
refuse_props(struct ybuild *b, yaml_mark_t m, const yaml_char_t *anchor,
    const yaml_char_t *tag)
{
	struct pos p = mark_pos(b->path, m);

	if (anchor != NULL)
		return errlist_add(b->diags, DIAG_ERROR, &p,
		    "anchors and aliases are not supported (found anchor "
		    "'&%s'); write the value out",
		    (const char *)anchor);
	if (tag != NULL)
		return errlist_add(b->diags, DIAG_ERROR, &p,
		    "YAML tags are not supported (found '%s')",
		    (const char *)tag);
	return 0;
}

static int
on_scalar(struct ybuild *b, const yaml_event_t *ev)
{
	struct decl_yaml_node *n;

	if (refuse_props(b, ev->start_mark, ev->data.scalar.anchor,
	        ev->data.scalar.tag) < 0)
		return -1;
	n = node_new(b, DECL_YAML_SCALAR, ev->start_mark);
	n->str = xstrndup((const char *)ev->data.scalar.value,
	    ev->data.scalar.length);
	n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
	if (strlen(n->str) != ev->data.scalar.length) {
		struct pos p = n->pos;

		decl_yaml_node_free(n);
		return errlist_add(b->diags, DIAG_ERROR, &p,
		    "scalar contains a NUL character");
	}
	return attach(b, n);
}

static int
on_start(struct ybuild *b, const yaml_event_t *ev, enum decl_yaml_kind kind)
{
	struct decl_yaml_node *n;
	int rc;

	if (kind == DECL_YAML_MAP)
		rc = refuse_props(b, ev->start_mark,
		    ev->data.mapping_start.anchor, ev->data.mapping_start.tag);
	else
		rc = refuse_props(b, ev->start_mark,
		    ev->data.sequence_start.anchor,
		    ev->data.sequence_start.tag);
	if (rc < 0)
		return -1;
	n = node_new(b, kind, ev->start_mark);
	if (b->depth >= DECL_YAML_DEPTH_MAX) {
		struct pos p = n->pos;

		decl_yaml_node_free(n);
		return errlist_add(b->diags, DIAG_ERROR, &p,
		    "nesting deeper than %d levels", DECL_YAML_DEPTH_MAX);
	}
	if (attach(b, n) < 0)
		return -1;
	b->stack[b->depth++] = n;
	return 0;
}

/* The line and column of a byte offset (libyaml's reader errors carry
 * only the offset). */
static struct pos
offset_pos(const struct ybuild *b, size_t off)
{
	struct pos p = {b->path, 1, 1};
	size_t i;

	for (i = 0; i < off && i < b->len; i++) {
		if (b->data[i] == '\n')
			p.line++, p.col = 1;
		else if (((unsigned char)b->data[i] & 0xc0) != 0x80)
			p.col++;
	}
	return p;
}

/* libyaml's own error, at its position; a tab gets a plain explanation. */
static int
yaml_error(struct ybuild *b, const yaml_parser_t *p)
{
	struct pos pos = mark_pos(b->path, p->problem_mark);
	size_t off = p->problem_mark.index;

	if (p->error == YAML_READER_ERROR) {
		pos = offset_pos(b, p->problem_offset);
		off = p->problem_offset;
	}
	if (off < b->len && b->data[off] == '\t')
		return errlist_add(b->diags, DIAG_ERROR, &pos,
		    "tab character where YAML expects indentation or a value; "
		    "indent with spaces");
	if (p->context != NULL)
		return errlist_add(b->diags, DIAG_ERROR, &pos,
		    "invalid YAML: %s (%s at line %u, column %u)",
		    p->problem ? p->problem : "syntax error", p->context,
		    (unsigned)p->context_mark.line + 1,
		    (unsigned)p->context_mark.column + 1);
	return errlist_add(b->diags, DIAG_ERROR, &pos, "invalid YAML: %s",
	    p->problem ? p->problem : "syntax error");
}

/* One event; returns 1 at the end of the stream, 0 to go on, -1 on error. */
static int
on_event(struct ybuild *b, const yaml_event_t *ev)
{
	struct pos p;

	switch (ev->type) {
	case YAML_DOCUMENT_START_EVENT:
		if (b->ndocs++ > 0) {
			p = mark_pos(b->path, ev->start_mark);
			return errlist_add(b->diags, DIAG_ERROR, &p,
			    "several YAML documents in one file; declare one "
			    "document per file");
		}
		return 0;
	case YAML_ALIAS_EVENT:
		p = mark_pos(b->path, ev->start_mark);
		return errlist_add(b->diags, DIAG_ERROR, &p,
		    "anchors and aliases are not supported (found alias "
		    "'*%s'); write the value out",
		    (const char *)ev->data.alias.anchor);
	case YAML_SCALAR_EVENT:
		return on_scalar(b, ev);
	case YAML_SEQUENCE_START_EVENT:
		return on_start(b, ev, DECL_YAML_SEQ);
	case YAML_MAPPING_START_EVENT:
		return on_start(b, ev, DECL_YAML_MAP);
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		if (b->depth > 0)
			b->depth--;
		return 0;
	case YAML_STREAM_END_EVENT:
		return 1;
	default:
		return 0;
	}
}

static int
run_parser(struct ybuild *b)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	int rc = 0;

	if (yaml_parser_initialize(&parser) == 0) {
		struct pos p = {b->path, 1, 1};

		return errlist_add(b->diags, DIAG_ERROR, &p,
		    "cannot initialize the YAML parser");
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)b->data,
	    b->len);
	while (rc == 0) {
		if (yaml_parser_parse(&parser, &ev) == 0) {
			rc = yaml_error(b, &parser);
			break;
		}
		rc = on_event(b, &ev);
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	return rc < 0 ? -1 : 0;
}

int
decl_yaml_parse(struct decl_yaml_node **out, const char *path, const char *data,
    size_t len, struct errlist *diags)
{
	return decl_yaml_parse_max(out, path, data, len, DECL_FILE_MAX, diags);
}

int
decl_yaml_parse_max(struct decl_yaml_node **out, const char *path,
    const char *data, size_t len, size_t max, struct errlist *diags)
{
	struct ybuild b;
	struct pos p = {path, 1, 1};
	int rc;

	memset(&b, 0, sizeof(b));
	b.path = path;
	b.data = data;
	b.len = len;
	b.diags = diags;
	if (len > max)
		return errlist_add(diags, DIAG_ERROR, &p,
		    "file is %zu bytes, over the limit of %zu bytes", len, max);
	if (check_utf8(&b) < 0)
		return -1;
	rc = run_parser(&b);
	decl_yaml_node_free(b.pending_key);
	if (rc == 0 && b.root == NULL)
		rc = errlist_add(diags, DIAG_ERROR, &p,
		    "empty file: expected a mapping with at least 'version'");
	if (rc < 0) {
		decl_yaml_node_free(b.root);
		return -1;
	}
	*out = b.root;
	return 0;
}
