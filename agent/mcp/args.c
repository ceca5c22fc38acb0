/* agent/mcp/args.c: a tool's arguments, described once in a table (name,
 * type, required, range, default, description) that gives both the JSON
 * Schema tools/list shows and the checks tools/call runs (conf.c's
 * table-driven keys are the model); and a tool's result. */
#include "mcp-int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/utf8.h"
#include "../../lib/xalloc.h"

static const char *
type_name(enum mcp_arg_type t)
{
	switch (t) {
	case MCP_ARG_STRING:
		return "string";
	case MCP_ARG_BOOLEAN:
		return "boolean";
	case MCP_ARG_INTEGER:
		return "integer";
	}
	return "string";
}

void
mcp_args_schema(struct jsonw *w, const struct mcp_arg *spec)
{
	const struct mcp_arg *a;

	jsonw_obj_begin(w);
	jsonw_key_bool(w, "additionalProperties", false);
	jsonw_key(w, "properties");
	jsonw_obj_begin(w);
	for (a = spec; a->name != NULL; a++) {
		jsonw_key(w, a->name);
		jsonw_obj_begin(w);
		if (a->def != NULL) {
			jsonw_key(w, "default");
			jsonw_raw(w, a->def);
		}
		jsonw_key_str(w, "description", a->description);
		if (a->type == MCP_ARG_INTEGER) {
			jsonw_key_int(w, "maximum", a->max);
			jsonw_key_int(w, "minimum", a->min);
		}
		if (a->type == MCP_ARG_STRING) {
			jsonw_key_int(w, "maxLength", MCP_ARG_STR_MAX);
			jsonw_key_int(w, "minLength", 1);
		}
		jsonw_key_str(w, "type", type_name(a->type));
		jsonw_obj_end(w);
	}
	jsonw_obj_end(w);
	jsonw_key(w, "required");
	jsonw_arr_begin(w);
	for (a = spec; a->name != NULL; a++)
		if (a->required)
			jsonw_str(w, a->name);
	jsonw_arr_end(w);
	jsonw_key_str(w, "type", "object");
	jsonw_obj_end(w);
}

static const struct mcp_arg *
find(const struct mcp_arg *spec, const char *name)
{
	for (; spec->name != NULL; spec++)
		if (strcmp(spec->name, name) == 0)
			return spec;
	return NULL;
}

/* What is wrong with v as argument a's value; NULL when nothing. */
static char *
value_problem(const struct mcp_arg *a, const struct json *v)
{
	const char *s, *bad;
	int64_t n;
	size_t len, at;
	uint32_t cp;

	switch (a->type) {
	case MCP_ARG_BOOLEAN:
		if (!json_is_bool(v))
			return xstrdup("must be a boolean (true or false)");
		return NULL;
	case MCP_ARG_INTEGER:
		if (!json_is_number(v) || json_int(v, &n) < 0)
			return xstrdup("must be an integer");
		if (n < a->min || n > a->max)
			return xasprintf("must be from %lld to %lld, not %lld",
			    (long long)a->min, (long long)a->max, (long long)n);
		return NULL;
	case MCP_ARG_STRING:
		if (!json_is_string(v))
			return xstrdup("must be a string");
		s = json_str(v);
		len = strlen(s);
		if (len == 0)
			return xstrdup("must not be empty");
		if (len > MCP_ARG_STR_MAX)
			return xasprintf("is %zu bytes, past the cap of %d",
			    len, MCP_ARG_STR_MAX);
		bad = utf8_find(s, utf8_line_problem, &at, &cp);
		if (bad != NULL)
			return xasprintf("holds %s at byte %zu (U+%04X)", bad,
			    at, (unsigned)cp);
		return NULL;
	}
	return NULL;
}

int
mcp_args_check(const struct json *args, const struct mcp_arg *spec, char **why)
{
	const struct json *m;
	const struct mcp_arg *a;
	char *p;

	for (m = json_first(args); m != NULL; m = json_next(m)) {
		a = find(spec, json_key(m));
		if (a == NULL) {
			struct sbuf known = {0};

			for (a = spec; a->name != NULL; a++)
				sbuf_addf(&known, "%s'%s'",
				    a == spec ? "" : ", ", a->name);
			*why = xasprintf("unknown argument '%s' (known: %s)",
			    json_key(m),
			    spec->name != NULL ? sbuf_str(&known) : "none");
			sbuf_release(&known);
			return -1;
		}
		p = value_problem(a, m);
		if (p != NULL) {
			*why = xasprintf("argument '%s' %s", a->name, p);
			free(p);
			return -1;
		}
	}
	for (a = spec; a->name != NULL; a++)
		if (a->required && json_get(args, a->name) == NULL) {
			*why =
			    xasprintf("missing required argument '%s' (%s: %s)",
			        a->name, type_name(a->type), a->description);
			return -1;
		}
	return 0;
}

const char *
mcp_arg_str(const struct json *args, const char *name)
{
	return json_str(json_get(args, name));
}

bool
mcp_arg_bool(const struct json *args, const char *name, bool def)
{
	bool v = def;

	(void)json_bool(json_get(args, name), &v);
	return v;
}

int64_t
mcp_arg_int(const struct json *args, const char *name, int64_t def)
{
	int64_t v = def;

	(void)json_int(json_get(args, name), &v);
	return v;
}

static bool
secret_key(const char *k)
{
	static const char *const words[] = {"password", "secret", "token",
	    "credential", "key"};
	size_t i;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strcasestr(k, words[i]) != NULL)
			return true;
	return false;
}

char *
mcp_args_log(const struct json *args)
{
	struct sbuf b;
	struct jsonw w;
	const struct json *m;
	const char *s;
	char *cut, *text;

	if (!json_is_object(args))
		return xstrdup("{}");
	sbuf_init(&b, SBUF_UNBOUNDED);
	jsonw_init(&w, &b, 0);
	jsonw_obj_begin(&w);
	for (m = json_first(args); m != NULL; m = json_next(m)) {
		jsonw_key(&w, json_key(m));
		s = json_str(m);
		if (secret_key(json_key(m))) {
			jsonw_str(&w, "<redacted>");
		} else if (s != NULL && strlen(s) > 200) {
			cut = xasprintf("%.200s...", s);
			jsonw_str(&w, cut);
			free(cut);
		} else {
			text = json_render(m);
			if (strlen(text) > 200)
				jsonw_str(&w, "<a value past 200 bytes>");
			else
				jsonw_raw(&w, text);
			free(text);
		}
	}
	jsonw_obj_end(&w);
	return sbuf_take(&b);
}

/* ---- a tool's result --------------------------------------------------- */

void
mcp_result_init(struct mcp_result *res)
{
	memset(res, 0, sizeof(*res));
	sbuf_init(&res->data, SBUF_UNBOUNDED);
	sbuf_init(&res->text, SBUF_UNBOUNDED);
	jsonw_init(&res->w, &res->data, 0);
	jsonw_obj_begin(&res->w);
}

void
mcp_result_fail(struct mcp_result *res, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	/* what was written so far gives way to the error alone */
	sbuf_reset(&res->data);
	sbuf_reset(&res->text);
	jsonw_init(&res->w, &res->data, 0);
	jsonw_obj_begin(&res->w);
	jsonw_key_str(&res->w, "error", msg != NULL ? msg : "error");
	sbuf_adds(&res->text, msg != NULL ? msg : "error");
	res->is_error = true;
	free(msg);
}

void
mcp_result_release(struct mcp_result *res)
{
	sbuf_release(&res->data);
	sbuf_release(&res->text);
	memset(res, 0, sizeof(*res));
}
