/* agent/snapshot-table.c: print a snapshot as aligned tables. */
#include "snapshot-table.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/sbuf.h"
#include "../lib/xalloc.h"

#define MAXCOLS 12

char *
agent_snapshot_escape(const char *s)
{
	struct sbuf b = {0};
	const unsigned char *p;

	if (s == NULL)
		return xstrdup("-");
	for (p = (const unsigned char *)s; *p; p++) {
		if (*p < 0x20 || *p == 0x7f)
			sbuf_addf(&b, "\\x%02x", *p);
		else
			sbuf_addc(&b, (char)*p);
	}
	if (b.len == 0)
		return xstrdup("\"\"");
	return sbuf_take(&b);
}

/* A table of owned cells, row after row; the first row is the header. */
struct table {
	size_t ncols;
	char **cells;
	size_t n, cap;
};

static void
add(struct table *t, char *owned)
{
	xgrow(&t->cells, &t->cap, t->n + 1, sizeof(char *));
	t->cells[t->n++] = owned;
}

static void
adds(struct table *t, const char *s)
{
	add(t, agent_snapshot_escape(s));
}

/* Flags: a space-separated list, "-" when empty. */
static void
addflags(struct table *t, char *owned)
{
	size_t len = strlen(owned);

	while (len > 0 && owned[len - 1] == ' ')
		owned[--len] = '\0';
	if (len == 0) {
		free(owned);
		owned = xstrdup("-");
	}
	add(t, owned);
}

static char *
transformer(const struct recon_divert *d)
{
	struct sbuf b = {0};
	char *e;
	size_t i;

	if (d->transformer_class_name == NULL)
		return xstrdup("-");
	e = agent_snapshot_escape(d->transformer_class_name);
	sbuf_adds(&b, e);
	free(e);
	for (i = 0; i < d->ntransformer_properties; i++) {
		e = agent_snapshot_escape(d->transformer_properties[i].key);
		sbuf_addf(&b, "%s%s=", i ? "," : "{", e);
		free(e);
		e = agent_snapshot_escape(d->transformer_properties[i].value);
		sbuf_adds(&b, e);
		free(e);
	}
	if (d->ntransformer_properties > 0)
		sbuf_addc(&b, '}');
	return sbuf_take(&b);
}

static void
addi(struct table *t, int64_t v)
{
	add(t, xasprintf("%" PRId64, v));
}

static void
addb(struct table *t, bool v)
{
	add(t, xstrdup(v ? "yes" : "no"));
}

static void
header(struct table *t, const char *const *names, size_t n)
{
	size_t i;

	t->ncols = n;
	for (i = 0; i < n; i++)
		add(t, xstrdup(names[i]));
}

static void
print_table(FILE *f, const char *title, struct table *t)
{
	size_t w[MAXCOLS] = {0}, i, len, rows = t->n / t->ncols;

	fprintf(f, "  %s (%zu):\n", title, rows - 1);
	for (i = 0; rows > 1 && i < t->n; i++) {
		len = strlen(t->cells[i]);
		if (len > w[i % t->ncols])
			w[i % t->ncols] = len;
	}
	for (i = 0; rows > 1 && i < t->n; i++) {
		if (i % t->ncols == 0)
			fputs("    ", f);
		if (i % t->ncols == t->ncols - 1)
			fprintf(f, "%s\n", t->cells[i]);
		else
			fprintf(f, "%-*s  ", (int)w[i % t->ncols], t->cells[i]);
	}
	for (i = 0; i < t->n; i++)
		free(t->cells[i]);
	free(t->cells);
	memset(t, 0, sizeof(*t));
}

static const char *const queue_cols[] = {"NAME", "ADDRESS", "ROUTING",
    "DURABLE", "CONSUMERS", "MESSAGES", "MAX-CONSUMERS", "PURGE", "EXCLUSIVE",
    "RING", "FLAGS", "FILTER"};

static void
queues(FILE *f, const struct recon_node_snapshot *n)
{
	struct table t = {0};
	const struct recon_queue *q;
	size_t i;

	header(&t, queue_cols, 12);
	for (i = 0; i < n->nqueues; i++) {
		q = &n->queues[i];
		adds(&t, q->name);
		adds(&t, q->address);
		adds(&t, decl_routing_name(q->routing));
		addb(&t, q->durable);
		addi(&t, q->consumer_count);
		addi(&t, q->message_count);
		addi(&t, q->max_consumers);
		addb(&t, q->purge_on_no_consumers);
		addb(&t, q->exclusive);
		addi(&t, q->ring_size);
		addflags(&t,
		    xasprintf("%s%s%s%s", q->internal ? "internal " : "",
		        q->configuration_managed ? "config " : "",
		        q->auto_created ? "auto " : "",
		        q->enabled ? "" : "disabled"));
		adds(&t, q->filter);
	}
	print_table(f, "queues", &t);
}

static char *
join(char *const *v, size_t n)
{
	struct sbuf b = {0};
	size_t i;
	char *e;

	for (i = 0; i < n; i++) {
		e = agent_snapshot_escape(v[i]);
		sbuf_addf(&b, "%s%s", i ? "," : "", e);
		free(e);
	}
	return n == 0 ? xstrdup("-") : sbuf_take(&b);
}

static const char *const address_cols[] = {"NAME", "ROUTING", "QUEUES",
    "BINDINGS", "FLAGS"};

static void
addresses(FILE *f, const struct recon_node_snapshot *n)
{
	struct table t = {0};
	const struct recon_address *a;
	size_t i;

	header(&t, address_cols, 5);
	for (i = 0; i < n->naddresses; i++) {
		a = &n->addresses[i];
		adds(&t, a->name);
		add(&t, decl_routing_set_join(a->routing, false, ","));
		add(&t, join(a->queue_names, a->nqueue_names));
		add(&t, join(a->binding_names, a->nbinding_names));
		addflags(&t, xasprintf("%s%s", a->internal ? "internal " : "",
		                 a->auto_created ? "auto" : ""));
	}
	print_table(f, "addresses", &t);
}

static const char *const divert_cols[] = {"NAME", "SOURCE", "FORWARD-TO",
    "ROUTING-TYPE", "EXCLUSIVE", "ROUTING-NAME", "FILTER", "TRANSFORMER"};

static void
diverts(FILE *f, const struct recon_node_snapshot *n)
{
	struct table t = {0};
	const struct recon_divert *d;
	size_t i;

	header(&t, divert_cols, 8);
	for (i = 0; i < n->ndiverts; i++) {
		d = &n->diverts[i];
		adds(&t, d->name);
		adds(&t, d->address);
		adds(&t, d->forwarding_address);
		adds(&t, decl_divert_routing_name(d->routing_type));
		addb(&t, d->exclusive);
		adds(&t, d->routing_name);
		adds(&t, d->filter);
		add(&t, transformer(d));
	}
	print_table(f, "diverts", &t);
}

void
agent_snapshot_refusal_line(FILE *f, const struct recon_node_snapshot *n)
{
	char *node = agent_snapshot_escape(n->node),
	     *text = agent_snapshot_escape(n->refusal.text);

	if (n->refusal.http_status > 0)
		fprintf(f,
		    "artemis-gitops snapshot: node '%s': %s (HTTP %d): %s\n",
		    node, recon_kind_name(n->refusal.kind),
		    n->refusal.http_status, text);
	else
		fprintf(f, "artemis-gitops snapshot: node '%s': %s: %s\n", node,
		    recon_kind_name(n->refusal.kind), text);
	free(node);
	free(text);
}

/* An HA node's members: each one's state, HA policy and endpoint. */
static void
members(FILE *f, const struct recon_node_snapshot *n)
{
	const struct recon_member *m;
	char *a, *b, *c;
	size_t i;

	for (i = 0; i < n->nmembers; i++) {
		m = &n->members[i];
		a = agent_snapshot_escape(m->name);
		b = agent_snapshot_escape(m->ha.policy);
		c = agent_snapshot_escape(m->url);
		fprintf(f, "  member %s  %s  HA policy %s  %s\n", a,
		    recon_member_state(m), b, c);
		free(a);
		free(b);
		free(c);
	}
}

void
agent_snapshot_table(FILE *f, const struct recon_snapshot *s)
{
	const struct recon_node_snapshot *n;
	char *a, *b, *c;
	size_t i;

	for (i = 0; i < s->nnodes; i++) {
		n = &s->nodes[i];
		a = agent_snapshot_escape(n->node);
		b = agent_snapshot_escape(n->url);
		if (n->refusal.kind != RECON_OK) {
			c = agent_snapshot_escape(n->refusal.text);
			fprintf(f, "%snode %s  %s\n  %s: %s\n", i ? "\n" : "",
			    a, b, recon_kind_name(n->refusal.kind), c);
			free(c);
		} else {
			c = agent_snapshot_escape(n->broker_name);
			fprintf(f, "%snode %s  broker %s  version %s  %s\n",
			    i ? "\n" : "", a, c,
			    n->broker_version ? n->broker_version : "-", b);
			free(c);
		}
		members(f, n);
		if (n->refusal.kind == RECON_OK) {
			queues(f, n);
			addresses(f, n);
			diverts(f, n);
		}
		free(a);
		free(b);
	}
}
