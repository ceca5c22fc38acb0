/* declarations/schema.c: the JSON Schema (2020-12) of a declaration file,
 * generated from the loader's own tables (decl_top_table, load.c): every
 * row is a property with its type, enum, default, bounds, pattern and
 * description; nothing here names a key. The patterns of names are
 * computed from the checks themselves (decl_name_problem,
 * decl_is_file_name), code point by code point; the URL's is kept beside
 * its check (decl_url_pattern, fields.c). schema/ holds the output of
 * `artemis-gitops schema`, and a test fails when the two differ. */
#include "decl-int.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/jsonw.h"
#include "../lib/sbuf.h"

#define SCHEMA_MAX ((size_t)4 * 1024 * 1024)
#define DEF_NAME   "name"
#define DEF_FILE   "file-name"
#define DEF_URL    "url"
#define DEF_ROLE   "role"

/* Append code point cp to b as UTF-8. */
static void
put_utf8(struct sbuf *b, uint32_t cp)
{
	if (cp < 0x80) {
		sbuf_addc(b, (char)cp);
	} else if (cp < 0x800) {
		sbuf_addc(b, (char)(0xc0 | (cp >> 6)));
		sbuf_addc(b, (char)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		sbuf_addc(b, (char)(0xe0 | (cp >> 12)));
		sbuf_addc(b, (char)(0x80 | ((cp >> 6) & 0x3f)));
		sbuf_addc(b, (char)(0x80 | (cp & 0x3f)));
	} else {
		sbuf_addc(b, (char)(0xf0 | (cp >> 18)));
		sbuf_addc(b, (char)(0x80 | ((cp >> 12) & 0x3f)));
		sbuf_addc(b, (char)(0x80 | ((cp >> 6) & 0x3f)));
		sbuf_addc(b, (char)(0x80 | (cp & 0x3f)));
	}
}

/* One code point in a character class: \uXXXX in the Basic Multilingual
 * Plane (ECMA-262 and Python re read it alike), the character itself
 * above (neither reads the other's escape for it). */
static void
put_class_cp(struct sbuf *b, uint32_t cp)
{
	if (cp < 0x10000)
		sbuf_addf(b, "\\u%04X", (unsigned)cp);
	else
		put_utf8(b, cp);
}

/* The code points [lo, hi] for which ok(prefix cp suffix) is `want`,
 * as the ranges of a character class, appended to b. Surrogates are
 * skipped (no UTF-8 string holds one), and a range never crosses from
 * the BMP to the planes above (put_class_cp). */
static void
put_class(struct sbuf *b, uint32_t lo, uint32_t hi, const char *prefix,
    const char *suffix, bool (*ok)(const char *), bool want)
{
	struct sbuf s;
	uint32_t cp, start = 0, last = 0;
	bool open = false, hit;

	sbuf_init(&s, 64);
	for (cp = lo; cp <= hi; cp++) {
		if (cp >= 0xd800 && cp <= 0xdfff)
			hit = false;
		else {
			sbuf_reset(&s);
			sbuf_adds(&s, prefix);
			put_utf8(&s, cp);
			sbuf_adds(&s, suffix);
			hit = ok(sbuf_str(&s)) == want;
		}
		if (hit && open && cp == last + 1 && cp != 0x10000) {
			last = cp;
			continue;
		}
		if (open) {
			put_class_cp(b, start);
			if (last != start) {
				if (last > start + 1)
					sbuf_addc(b, '-');
				put_class_cp(b, last);
			}
		}
		open = hit;
		start = last = cp;
	}
	if (open) {
		put_class_cp(b, start);
		if (last != start) {
			if (last > start + 1)
				sbuf_addc(b, '-');
			put_class_cp(b, last);
		}
	}
	sbuf_release(&s);
}

static bool
name_ok(const char *s)
{
	char *why = decl_name_problem(s);

	free(why);
	return why == NULL;
}

static bool
role_ok(const char *s)
{
	char *why = decl_role_problem(s);

	free(why);
	return why == NULL;
}

/* A role: no character decl_role_problem refuses (the plain space
 * among them). */
static char *
role_pattern(void)
{
	struct sbuf b;

	sbuf_init(&b, SCHEMA_MAX);
	sbuf_adds(&b, "^[^\\u0000");
	put_class(&b, 1, 0x10ffff, "a", "a", role_ok, false);
	sbuf_adds(&b, "]+$");
	return sbuf_take(&b);
}

static bool
file_name_ok(const char *s)
{
	return decl_is_file_name(s);
}

/* A name: no character decl_name_problem refuses inside one (tested
 * between two letters), no space first, last or doubled. */
static char *
name_pattern(void)
{
	struct sbuf b;

	sbuf_init(&b, SCHEMA_MAX);
	/* NUL first: no C string holds it, so the check never sees it */
	sbuf_adds(&b, "^(?! )(?!.* $)(?!.*  )[^\\u0000");
	put_class(&b, 1, 0x10ffff, "a", "a", name_ok, false);
	sbuf_adds(&b, "]+$");
	return sbuf_take(&b);
}

/* A file name: its first character, then the others (ASCII: the check
 * reads bytes in the C locale). */
static char *
file_name_pattern(void)
{
	struct sbuf b;

	sbuf_init(&b, SCHEMA_MAX);
	sbuf_adds(&b, "^[");
	put_class(&b, 1, 0x7f, "", "", file_name_ok, true);
	sbuf_adds(&b, "][");
	put_class(&b, 1, 0x7f, "a", "", file_name_ok, true);
	sbuf_adds(&b, "]*$");
	return sbuf_take(&b);
}

static void
put_ref(struct jsonw *w, const char *def)
{
	char ref[64];

	snprintf(ref, sizeof(ref), "#/$defs/%s", def);
	jsonw_key_str(w, "$ref", ref);
}

/* A list field of f: unique items of the $defs entry def, or null. */
static void
put_list(struct jsonw *w, const struct decl_field *f, const char *def)
{
	jsonw_key(w, "items");
	jsonw_obj_begin(w);
	put_ref(w, def);
	jsonw_obj_end(w);
	if (f->max_items > 0)
		jsonw_key_int(w, "maxItems", (int64_t)f->max_items);
	jsonw_key(w, "type");
	jsonw_arr_begin(w);
	jsonw_str(w, "array");
	jsonw_str(w, "null");
	jsonw_arr_end(w);
	jsonw_key_bool(w, "uniqueItems", true);
}

static void
put_enum(struct jsonw *w, const char *(*name)(int), int n)
{
	int i;

	jsonw_key(w, "enum");
	jsonw_arr_begin(w);
	for (i = 0; i < n; i++)
		jsonw_str(w, name(i));
	jsonw_arr_end(w);
}

/* The enums' names, by index, from their one name tables (model.c). */
static const char *
routing_at(int i)
{
	return decl_routing_name(i == 0 ? DECL_ANYCAST : DECL_MULTICAST);
}

static const char *
divert_routing_at(int i)
{
	return decl_divert_routing_name((enum decl_divert_routing)i);
}

static const char *
deletion_at(int i)
{
	return decl_deletion_policy_name((enum decl_deletion_policy)i);
}

static const char *
mode_at(int i)
{
	return decl_mode_name(
	    i == 0 ? DECL_STUDIO_MANAGED : DECL_CONFIG_MANAGED);
}

/* How many names each enum has: parse stops at the first unknown. */
static int
divert_routing_count(void)
{
	enum decl_divert_routing r;
	int n = 0;

	while (decl_divert_routing_parse(divert_routing_at(n), &r) == 0)
		n++;
	return n;
}

static int
deletion_count(void)
{
	enum decl_deletion_policy p;
	int n = 0;

	while (decl_deletion_policy_parse(deletion_at(n), &p) == 0)
		n++;
	return n;
}

static void put_table(struct jsonw *w, const struct decl_table *t);

static void
put_default(struct jsonw *w, const struct decl_field *f)
{
	if (!f->has_default)
		return;
	jsonw_key(w, "default");
	switch (f->type) {
	case DECL_FIELD_BOOL:
	case DECL_FIELD_BOOL_NOT:
		jsonw_bool(w, f->def != 0);
		break;
	case DECL_FIELD_ROUTING_ONE:
		jsonw_str(w, decl_routing_name((unsigned)f->def));
		break;
	case DECL_FIELD_DIVERT_ROUTING:
		jsonw_str(w, divert_routing_at((int)f->def));
		break;
	case DECL_FIELD_DELETION_POLICY:
		jsonw_str(w, deletion_at((int)f->def));
		break;
	case DECL_FIELD_MODE:
		jsonw_str(w, mode_at((int)f->def));
		break;
	case DECL_FIELD_INT:
		jsonw_int(w, f->def);
		break;
	default:
		jsonw_str(w, f->def_str);
		break;
	}
}

/* The members of one property's schema, in sorted order around the
 * type's own (the canonical writer's rule): $ref, default, description
 * first where they sort first. */
static void
put_field(struct jsonw *w, const struct decl_field *f)
{
	int i;

	jsonw_obj_begin(w);
	switch (f->type) {
	case DECL_FIELD_NAME:
		put_ref(w, DEF_NAME);
		break;
	case DECL_FIELD_FILENAME:
	case DECL_FIELD_CREDENTIALS:
		put_ref(w, DEF_FILE);
		break;
	case DECL_FIELD_URL:
		put_ref(w, DEF_URL);
		break;
	default:
		break;
	}
	put_default(w, f);
	if (f->desc != NULL)
		jsonw_key_str(w, "description", f->desc);
	switch (f->type) {
	case DECL_FIELD_STR:
		jsonw_key_int(w, "minLength", 1);
		jsonw_key_str(w, "type", "string");
		break;
	case DECL_FIELD_STR_OPT:
		jsonw_key(w, "type");
		jsonw_arr_begin(w);
		jsonw_str(w, "string");
		jsonw_str(w, "null");
		jsonw_arr_end(w);
		break;
	case DECL_FIELD_NAME:
	case DECL_FIELD_FILENAME:
	case DECL_FIELD_CREDENTIALS:
	case DECL_FIELD_URL:
		break;
	case DECL_FIELD_BOOL:
	case DECL_FIELD_BOOL_NOT:
		jsonw_key_str(w, "type", "boolean");
		break;
	case DECL_FIELD_INT:
		jsonw_key_int(w, "maximum", f->max);
		jsonw_key_int(w, "minimum", f->min);
		if (f->no_zero) {
			jsonw_key(w, "not");
			jsonw_obj_begin(w);
			jsonw_key_int(w, "const", 0);
			jsonw_obj_end(w);
		}
		jsonw_key_str(w, "type", "integer");
		break;
	case DECL_FIELD_ROUTING_SET:
		jsonw_key(w, "items");
		jsonw_obj_begin(w);
		put_enum(w, routing_at, 2);
		jsonw_obj_end(w);
		jsonw_key_int(w, "minItems", 1);
		jsonw_key_str(w, "type", "array");
		jsonw_key_bool(w, "uniqueItems", true);
		break;
	case DECL_FIELD_ROUTING_ONE:
		put_enum(w, routing_at, 2);
		break;
	case DECL_FIELD_DIVERT_ROUTING:
		put_enum(w, divert_routing_at, divert_routing_count());
		break;
	case DECL_FIELD_DELETION_POLICY:
		put_enum(w, deletion_at, deletion_count());
		break;
	case DECL_FIELD_MODE:
		put_enum(w, mode_at, 2);
		break;
	case DECL_FIELD_KEY_VALUES:
		/* single values: whatever a YAML scalar reads as */
		jsonw_key(w, "additionalProperties");
		jsonw_obj_begin(w);
		jsonw_key(w, "type");
		jsonw_arr_begin(w);
		jsonw_str(w, "string");
		jsonw_str(w, "number");
		jsonw_str(w, "boolean");
		jsonw_str(w, "null");
		jsonw_arr_end(w);
		jsonw_obj_end(w);
		jsonw_key_str(w, "type", "object");
		break;
	case DECL_FIELD_LIST:
		jsonw_key(w, "items");
		put_table(w, f->sub);
		if (f->max_items > 0)
			jsonw_key_int(w, "maxItems", (int64_t)f->max_items);
		jsonw_key(w, "type");
		jsonw_arr_begin(w);
		jsonw_str(w, "array");
		jsonw_str(w, "null");
		jsonw_arr_end(w);
		break;
	case DECL_FIELD_MAP:
		/* the sub-table's object, or null */
		jsonw_key(w, "oneOf");
		jsonw_arr_begin(w);
		put_table(w, f->sub);
		jsonw_obj_begin(w);
		jsonw_key_str(w, "type", "null");
		jsonw_obj_end(w);
		jsonw_arr_end(w);
		break;
	case DECL_FIELD_NAME_LIST:
		put_list(w, f, DEF_NAME);
		break;
	case DECL_FIELD_OUTER:
		break; /* any value */
	case DECL_FIELD_TRI:
		jsonw_key_str(w, "type", "boolean");
		break;
	case DECL_FIELD_ENUM:
		jsonw_key(w, "enum");
		jsonw_arr_begin(w);
		for (i = 1; f->enum_name(i) != NULL; i++)
			jsonw_str(w, f->enum_name(i));
		jsonw_arr_end(w);
		break;
	case DECL_FIELD_DURATION:
	case DECL_FIELD_SIZE:
		/* an integer within the bounds, or a string with a unit */
		jsonw_key_int(w, "maximum", f->max);
		jsonw_key_int(w, "minimum", f->min);
		jsonw_key_str(w, "pattern",
		    f->type == DECL_FIELD_SIZE ? decl_size_pattern
		                               : decl_duration_pattern);
		jsonw_key(w, "type");
		jsonw_arr_begin(w);
		jsonw_str(w, "integer");
		jsonw_str(w, "string");
		jsonw_arr_end(w);
		break;
	case DECL_FIELD_ROLES:
		put_list(w, f, DEF_ROLE);
		break;
	case DECL_FIELD_DELIM:
		jsonw_key_int(w, "maxLength", 1);
		jsonw_key_int(w, "minLength", 1);
		jsonw_key_str(w, "pattern", decl_delim_pattern);
		jsonw_key_str(w, "type", "string");
		break;
	}
	jsonw_obj_end(w);
}

/* A mapping of table t: its rows as properties (in the table's order,
 * the order an editor offers them), the required ones, nothing else. */
static void
put_members(struct jsonw *w, const struct decl_table *t, const char *title)
{
	size_t i, nreq = 0;

	jsonw_key_bool(w, "additionalProperties", false);
	if (t->desc != NULL)
		jsonw_key_str(w, "description", t->desc);
	jsonw_key(w, "properties");
	jsonw_obj_begin(w);
	for (i = 0; i < t->n; i++) {
		jsonw_key(w, t->fields[i].key);
		put_field(w, &t->fields[i]);
		nreq += t->fields[i].required;
	}
	jsonw_obj_end(w);
	if (nreq > 0) {
		jsonw_key(w, "required");
		jsonw_arr_begin(w);
		for (i = 0; i < t->n; i++)
			if (t->fields[i].required)
				jsonw_str(w, t->fields[i].key);
		jsonw_arr_end(w);
	}
	jsonw_key_str(w, "title", title);
	jsonw_key_str(w, "type", "object");
}

static void
put_table(struct jsonw *w, const struct decl_table *t)
{
	jsonw_obj_begin(w);
	put_members(w, t, t->what);
	jsonw_obj_end(w);
}

static void
put_string_def(struct jsonw *w, const char *key, const char *desc,
    int64_t max_len, const char *pattern)
{
	jsonw_key(w, key);
	jsonw_obj_begin(w);
	jsonw_key_str(w, "description", desc);
	if (max_len > 0)
		jsonw_key_int(w, "maxLength", max_len);
	jsonw_key_int(w, "minLength", 1);
	jsonw_key_str(w, "pattern", pattern);
	jsonw_key_str(w, "type", "string");
	jsonw_obj_end(w);
}

char *
decl_schema_json(void)
{
	struct sbuf out;
	struct jsonw w;
	char *name = name_pattern(), *file = file_name_pattern();
	char *role = role_pattern();
	char title[80];

	sbuf_init(&out, SCHEMA_MAX);
	jsonw_init(&w, &out, 2);
	jsonw_obj_begin(&w);
	jsonw_key(&w, "$defs");
	jsonw_obj_begin(&w);
	put_string_def(&w, DEF_FILE,
	    "Letters, digits, '.', '_' and '-', not starting with '.'.",
	    DECL_NAME_MAX, file);
	put_string_def(&w, DEF_NAME,
	    "A broker object's name: at most 255 bytes of UTF-8, no ',', no "
	    "control, invisible, bidirectional or whitespace character but "
	    "the plain space, and that one neither first, last nor doubled.",
	    DECL_NAME_MAX, name);
	put_string_def(&w, DEF_ROLE,
	    "A role of a security setting: a name (as above) without a space.",
	    DECL_NAME_MAX, role);
	put_string_def(&w, DEF_URL,
	    "An http:// or https:// URL with a host, maybe a port (1 to "
	    "65535), no user or password.",
	    0, decl_url_pattern);
	jsonw_obj_end(&w);
	jsonw_key_str(&w, "$schema",
	    "https://json-schema.org/draft/2020-12/schema");
	free(name);
	free(file);
	free(role);
	snprintf(title, sizeof(title),
	    "artemis-gitops declaration file, format version %d",
	    DECL_VERSION_MAX);
	put_members(&w, &decl_top_table, title);
	jsonw_obj_end(&w);
	sbuf_addc(&out, '\n');
	return sbuf_take(&out);
}
