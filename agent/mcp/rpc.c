/* agent/mcp/rpc.c: JSON-RPC 2.0 messages over stdio, as MCP frames them:
 * one message a line, UTF-8, no newline inside (jsonw escapes every control
 * byte). Lines are read through a bounded buffer, parsed by lib/json.h (the
 * strict reader: RFC 8259, valid UTF-8, duplicate keys refused) and
 * classified; answers are written by lib/jsonw.h. */
#include "mcp-int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/xalloc.h"

/* ---- parsing ----------------------------------------------------------- */

int
mcp_doc_parse(struct json_doc **out, const char *text, size_t len, char **why)
{
	struct err err = {0};

	if (json_parse(out, NULL, text, len, &err) == 0)
		return 0;
	if (err.line > 0)
		*why = xasprintf("line %u, column %u: %s", err.line, err.col,
		    err.msg != NULL ? err.msg : "not valid JSON");
	else
		*why = xstrdup(err.msg != NULL ? err.msg : "not valid JSON");
	err_release(&err);
	return -1;
}

static void
invalid(struct mcp_msg *m, int code, const char *why)
{
	m->kind = MCP_INVALID;
	m->code = code;
	m->why = xstrdup(why);
}

/* The id when it is one MCP allows (a string, or an integer: JSON-RPC's
 * null and fractions are not), as JSON text; NULL otherwise. */
static char *
id_text(const struct json *id)
{
	int64_t n;

	if (json_is_string(id))
		return json_render(id);
	if (json_is_number(id) && json_int(id, &n) == 0)
		return xasprintf("%lld", (long long)n);
	return NULL;
}

void
mcp_msg_classify(struct mcp_msg *out, const struct json *v)
{
	const struct json *id, *method, *version, *params;

	memset(out, 0, sizeof(*out));
	if (!json_is_object(v)) {
		invalid(out, MCP_INVALID_REQUEST,
		    "a message is a JSON object (a JSON-RPC 2.0 request or "
		    "notification)");
		return;
	}
	id = json_get(v, "id");
	method = json_get(v, "method");
	version = json_get(v, "jsonrpc");
	params = json_get(v, "params");
	if (id != NULL)
		out->id = id_text(id);
	if (!json_is_string(version) || strcmp(json_str(version), "2.0") != 0) {
		invalid(out, MCP_INVALID_REQUEST,
		    "member 'jsonrpc' must be \"2.0\"");
		return;
	}
	if (id != NULL && out->id == NULL) {
		invalid(out, MCP_INVALID_REQUEST,
		    "member 'id' must be a string or an integer (MCP allows "
		    "no null id)");
		return;
	}
	if (method == NULL &&
	    (json_get(v, "result") != NULL || json_get(v, "error") != NULL)) {
		out->kind = MCP_RESPONSE;
		return;
	}
	if (!json_is_string(method)) {
		invalid(out, MCP_INVALID_REQUEST,
		    method == NULL ? "member 'method' is missing"
		                   : "member 'method' must be a string");
		return;
	}
	out->method = json_str(method);
	if (params != NULL && !json_is_object(params)) {
		invalid(out, MCP_INVALID_PARAMS,
		    "member 'params' must be an object");
		return;
	}
	out->params = params;
	out->kind = id != NULL ? MCP_REQUEST : MCP_NOTIFICATION;
}

void
mcp_msg_release(struct mcp_msg *m)
{
	free(m->id);
	free(m->why);
	memset(m, 0, sizeof(*m));
}

/* ---- reading lines ----------------------------------------------------- */

#define READ_CHUNK 65536

void
mcp_reader_init(struct mcp_reader *r, int fd, size_t max)
{
	memset(r, 0, sizeof(*r));
	r->fd = fd;
	r->max = max;
}

void
mcp_reader_release(struct mcp_reader *r)
{
	free(r->buf);
	memset(r, 0, sizeof(*r));
}

static bool
blank(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return false;
	return true;
}

/* A whole line in buf[start, len)? Then *line, *len (trimmed of a final
 * '\r') and true; the line is consumed. */
static bool
take_line(struct mcp_reader *r, const char **line, size_t *len)
{
	char *nl;
	size_t n;

	if (r->len == r->start)
		return false;
	nl = memchr(r->buf + r->start, '\n', r->len - r->start);
	if (nl == NULL)
		return false;
	n = (size_t)(nl - (r->buf + r->start));
	*line = r->buf + r->start;
	*nl = '\0';
	if (n > 0 && (*line)[n - 1] == '\r')
		r->buf[r->start + --n] = '\0';
	*len = n;
	r->start += (size_t)(nl - (r->buf + r->start)) + 1;
	return true;
}

/* Read more input into the buffer (room made first); -1 EINTR, -2 error,
 * 0 end of input, else the bytes read. */
static ssize_t
fill(struct mcp_reader *r)
{
	ssize_t got;

	if (r->start > 0) {
		memmove(r->buf, r->buf + r->start, r->len - r->start);
		r->len -= r->start;
		r->start = 0;
	}
	if (r->cap - r->len < READ_CHUNK + 1) {
		r->cap = r->len + READ_CHUNK + 1;
		r->buf = xrealloc(r->buf, r->cap);
	}
	got = read(r->fd, r->buf + r->len, READ_CHUNK);
	if (got < 0)
		return errno == EINTR ? -1 : -2;
	if (got == 0)
		r->eof = true;
	r->len += (size_t)got;
	return got;
}

enum mcp_read
mcp_reader_next(struct mcp_reader *r, const char **line, size_t *len)
{
	ssize_t got;
	char *nl;

	for (;;) {
		if (r->skipping) {
			nl = r->len > r->start ? memchr(r->buf + r->start, '\n',
			                             r->len - r->start)
			                       : NULL;
			if (nl != NULL) {
				r->dropped +=
				    (size_t)(nl - (r->buf + r->start));
				r->start +=
				    (size_t)(nl - (r->buf + r->start)) + 1;
				r->skipping = false;
				*len = r->dropped;
				return MCP_READ_OVERSIZED;
			}
			r->dropped += r->len - r->start;
			r->start = r->len = 0;
		} else if (take_line(r, line, len)) {
			if (*len > r->max) /* a whole line past the cap */
				return MCP_READ_OVERSIZED;
			if (blank(*line, *len))
				continue;
			return MCP_READ_LINE;
		} else if (r->len - r->start > r->max) {
			/* past the cap with no end in sight: drop it as it
			 * comes */
			r->skipping = true;
			r->dropped = 0;
			continue;
		}
		if (r->eof) {
			*len = r->skipping ? r->dropped : r->len - r->start;
			if (r->skipping ||
			    !blank(r->buf + r->start, r->len - r->start))
				return MCP_READ_TORN;
			return MCP_READ_EOF;
		}
		got = fill(r);
		if (got == -1)
			return MCP_READ_INTR;
		if (got == -2)
			return MCP_READ_ERROR;
	}
}

/* ---- answers ----------------------------------------------------------- */

bool
mcp_call_since(const struct mcp_call *c, const char *v)
{
	return strcmp(c->version, v) >= 0;
}

void
mcp_reply_init(struct mcp_reply *r)
{
	memset(r, 0, sizeof(*r));
	sbuf_init(&r->body, SBUF_UNBOUNDED);
	jsonw_init(&r->w, &r->body, 0);
	jsonw_obj_begin(&r->w);
}

int
mcp_reply_fail(struct mcp_reply *r, int code, const char *data, const char *fmt,
    ...)
{
	va_list ap;
	char *msg;

	if (r->code != 0)
		return -1;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	r->code = code;
	r->message = msg != NULL ? msg : xstrdup("error");
	r->data = data != NULL ? xstrdup(data) : NULL;
	return -1;
}

void
mcp_reply_release(struct mcp_reply *r)
{
	sbuf_release(&r->body);
	free(r->message);
	free(r->data);
	memset(r, 0, sizeof(*r));
}

static void
begin(struct jsonw *w, const char *id)
{
	jsonw_obj_begin(w);
	jsonw_key_str(w, "jsonrpc", "2.0");
	if (id != NULL) {
		jsonw_key(w, "id");
		jsonw_raw(w, id);
	}
}

void
mcp_write_result(struct sbuf *out, const char *id, const char *result)
{
	struct jsonw w;

	jsonw_init(&w, out, 0);
	begin(&w, id);
	jsonw_key(&w, "result");
	jsonw_raw(&w, result);
	jsonw_obj_end(&w);
	sbuf_addc(out, '\n');
}

void
mcp_write_error(struct sbuf *out, const char *id, int code, const char *message,
    const char *data)
{
	struct jsonw w;

	jsonw_init(&w, out, 0);
	begin(&w, id);
	jsonw_key(&w, "error");
	jsonw_obj_begin(&w);
	jsonw_key_int(&w, "code", code);
	jsonw_key_str(&w, "message", message);
	if (data != NULL) {
		jsonw_key(&w, "data");
		jsonw_raw(&w, data);
	}
	jsonw_obj_end(&w);
	jsonw_obj_end(&w);
	sbuf_addc(out, '\n');
}
