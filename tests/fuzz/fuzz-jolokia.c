/* tests/fuzz/fuzz-jolokia.c: the Jolokia reply parser and the snapshot
 * builder on arbitrary bytes. Property: whatever the reply, the node
 * snapshot built from it renders to JSON that the strict snapshot parser
 * reads back, and renders again to the same bytes. The same bytes are also
 * read as the body of an HTTP error (the status chosen by the input's
 * length), which must refuse the whole bulk. */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/xalloc.h"
#include "../../reconcile/live/live-int.h"

static void
round_trip(struct recon_node_snapshot *n)
{
	struct recon_snapshot s = {.cluster = (char[]){"fuzz"},
	    .taken_at = (char[]){"2026-01-01T00:00:00Z"},
	    .nodes = n,
	    .nnodes = 1};
	struct recon_snapshot *back = NULL;
	struct err err = {0};
	char *a = live_snapshot_render_json(&s), *b;

	if (live_snapshot_parse_json(&back, "fuzz", a, strlen(a), &err) < 0)
		abort(); /* a rendered snapshot must read back */
	b = live_snapshot_render_json(back);
	if (strcmp(a, b) != 0)
		abort();
	free(a);
	free(b);
	live_snapshot_free(back);
}

/* A reply with a status other than 200 is a refusal of the whole bulk. */
static void
http_error(const uint8_t *data, size_t size)
{
	static const long status[] = {0, 204, 302, 400, 401, 403, 404, 429, 500,
	    502, 503};
	struct live_bulk b = {0};
	struct recon_refusal r = {0};

	live_bulk_exec(&b, "d:k=v", "op()", NULL, 0);
	if (live_bulk_parse_reply(&b,
	        status[size % (sizeof(status) / sizeof(status[0]))],
	        (const char *)data, size, &r) == 0 ||
	    r.kind == RECON_OK)
		abort();
	recon_refusal_release(&r);
	live_bulk_release(&b);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct live_bulk b = {0}, one = {0};
	struct live_read rd = {0};
	struct recon_refusal r = {0};
	struct recon_node_snapshot n = {0};
	bool whole;

	if (size > 64 * 1024)
		return 0;
	live_read_build(&b, &rd, "node1");
	n.node = xstrdup("node1");
	n.url = xstrdup("http://localhost:8161/console/jolokia");
	n.requests = 1;
	/* as live_snapshot_fetch: a reply that fails as a whole is the node's
	 * refusal, else the node is read from it */
	whole =
	    live_bulk_parse_reply(&b, 200, (const char *)data, size, &r) == 0;
	if (!whole) {
		n.refusal = r;
		memset(&r, 0, sizeof(r));
	} else {
		recon_refusal_release(&r);
	}
	if (n.refusal.kind == RECON_OK && whole)
		live_node_from_read(&n, &b, &rd);
	round_trip(&n);
	live_node_release(&n);
	live_read_release(&rd);
	live_bulk_release(&b);
	live_bulk_exec(&one, "d:k=v", "op()", NULL, 0);
	(void)live_bulk_parse_reply(&one, 200, (const char *)data, size, &r);
	recon_refusal_release(&r);
	live_bulk_release(&one);
	http_error(data, size);
	return 0;
}
