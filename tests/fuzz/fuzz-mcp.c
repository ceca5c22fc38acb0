/* tests/fuzz/fuzz-mcp.c: the MCP server's message reader (agent/mcp/rpc.c)
 * on arbitrary bytes: the input as stdin (a memory file, no disk), read
 * line by line under a 4 KiB cap, each line parsed and each message (or
 * batch element) classified. Properties: a line never holds its newline or
 * passes the cap, and one dropped for its size was past it; a refused parse
 * says why; a request has a method and an id; an invalid message has one of
 * JSON-RPC's codes and a reason; an id read back is a string or an integer; and
 * the error answered with that id is one line of valid JSON. */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../agent/mcp/mcp-int.h"

#define LINE_MAX_FUZZ 4096

static void
message(const struct json *v)
{
	struct mcp_msg m;
	struct sbuf out = {0};
	struct json_doc *back = NULL;
	struct err err = {0};

	mcp_msg_classify(&m, v);
	if (m.kind == MCP_REQUEST && (m.method == NULL || m.id == NULL))
		abort();
	if (m.kind == MCP_NOTIFICATION && (m.method == NULL || m.id != NULL))
		abort();
	if (m.kind == MCP_INVALID &&
	    (m.why == NULL || (m.code != MCP_INVALID_REQUEST &&
	                          m.code != MCP_INVALID_PARAMS)))
		abort();
	mcp_write_error(&out, m.id, MCP_INVALID_REQUEST, "x", NULL);
	if (memchr(out.buf, '\n', out.len - 1) != NULL)
		abort();
	if (json_parse(&back, "answer", out.buf, out.len - 1, &err) < 0)
		abort(); /* the answer is valid JSON */
	if (m.id != NULL) {
		const struct json *id = json_get(json_doc_root(back), "id");
		int64_t n;

		if (!json_is_string(id) && json_int(id, &n) < 0)
			abort();
	}
	json_doc_free(back);
	sbuf_release(&out);
	mcp_msg_release(&m);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mcp_reader r;
	struct json_doc *d;
	const struct json *v;
	const char *line;
	size_t len;
	enum mcp_read got;
	char *why;
	int fd;

	if (size > 64 * 1024)
		return 0;
	fd = memfd_create("fuzz-mcp", 0);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size ||
	    lseek(fd, 0, SEEK_SET) != 0)
		abort();
	mcp_reader_init(&r, fd, LINE_MAX_FUZZ);
	for (;;) {
		got = mcp_reader_next(&r, &line, &len);
		if (got == MCP_READ_OVERSIZED) {
			if (len <= LINE_MAX_FUZZ)
				abort();
			continue;
		}
		if (got != MCP_READ_LINE)
			break;
		if (len > LINE_MAX_FUZZ || memchr(line, '\n', len) != NULL)
			abort();
		d = NULL;
		why = NULL;
		if (mcp_doc_parse(&d, line, len, &why) < 0) {
			if (why == NULL)
				abort();
			free(why);
			continue;
		}
		v = json_doc_root(d);
		if (json_is_array(v))
			for (v = json_first(v); v != NULL; v = json_next(v))
				message(v);
		else
			message(v);
		json_doc_free(d);
	}
	if (got == MCP_READ_ERROR || got == MCP_READ_INTR)
		abort();
	mcp_reader_release(&r);
	close(fd);
	return 0;
}
