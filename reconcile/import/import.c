/* reconcile/import/import.c: the nodes' candidates compared, object by
 * object, into one declaration and a report of what was left out
 * (docs/import.md). Nothing is merged: an object is declared only when
 * every node holds it alike and the format can declare it. */
#include "import-int.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/sbuf.h"
#include "../../lib/xalloc.h"

static const char *const kind_names[IMPORT_NKINDS] = {"address", "queue",
    "divert"};

static const struct {
	const char *name, *text;
	bool rule;
} whys[IMPORT_NWHY] = {
    [IMPORT_BROKER_OWN] = {"BROKER_OWN",
        "the broker's own (DLQ and ExpiryQueue as shipped, "
        "activemq.notifications, $sys.*, internal)",
        true},
    [IMPORT_AUTO_CREATED] = {"AUTO_CREATED",
        "auto-created by a client (--include-auto-created declares them)",
        true},
    [IMPORT_TEMPORARY] = {"TEMPORARY", "a client's temporary queue", true},
    [IMPORT_CAPTURE] = {"CAPTURE", "inside the capture prefix: a capture's tap",
        true},
    [IMPORT_NOT_EVERYWHERE] = {"NOT_ON_EVERY_NODE", "held by some nodes only",
        false},
    [IMPORT_DIFFERS] = {"DIFFERS", "held by every node, not alike", false},
    [IMPORT_BAD_NAME] = {"BAD_NAME", "a name a declaration cannot hold", false},
    [IMPORT_ADDRESS_OUT] = {"ADDRESS_LEFT_OUT", "its address is left out",
        false},
    [IMPORT_NOTHING_CONSUMES] = {"NOTHING_CONSUMES",
        "a divert into an address where nothing declared consumes", false},
    [IMPORT_NOT_DECLARABLE] = {"NOT_DECLARABLE",
        "the declaration format refuses it", false},
};

const char *
import_kind_name(enum import_kind k)
{
	return (unsigned)k < IMPORT_NKINDS ? kind_names[k] : "?";
}

const char *
import_why_name(enum import_why w)
{
	return (unsigned)w < IMPORT_NWHY ? whys[w].name : "?";
}

const char *
import_why_text(enum import_why w)
{
	return (unsigned)w < IMPORT_NWHY ? whys[w].text : "?";
}

bool
import_why_is_rule(enum import_why w)
{
	return (unsigned)w < IMPORT_NWHY && whys[w].rule;
}

void
import_left_add1(struct import_left **v, size_t *n, enum import_kind kind,
    const char *name, enum import_why why, const char *node, const char *state)
{
	struct import_left *l;

	*v = xreallocarray(*v, *n + 1, sizeof(**v));
	l = &(*v)[(*n)++];
	memset(l, 0, sizeof(*l));
	l->kind = kind;
	l->name = xstrdup(name);
	l->why = why;
	l->seen = xcalloc(1, sizeof(*l->seen));
	l->seen[0].node = xstrdup(node);
	l->seen[0].state = xstrdup(state);
	l->nseen = 1;
}

/* ---- an object's settings as one line ---- */

static void
text_str(struct sbuf *b, const char *key, const char *v)
{
	const char *p;

	sbuf_addf(b, " %s=\"", key);
	for (p = v; *p != '\0'; p++) {
		if (*p == '"' || *p == '\\')
			sbuf_addc(b, '\\');
		sbuf_addc(b, *p);
	}
	sbuf_addc(b, '"');
}

/* The buffer's text without its leading space, and the buffer freed. */
static char *
take_line(struct sbuf *b)
{
	char *t = xstrdup(sbuf_str(b) + (b->len > 0));

	sbuf_release(b);
	return t;
}

char *
import_queue_text(const struct decl_queue *q)
{
	struct sbuf b;

	sbuf_init(&b, SBUF_UNBOUNDED);
	text_str(&b, "address", q->address);
	sbuf_addf(&b, " routing=%s", decl_routing_name(q->routing));
	if (!q->durable)
		sbuf_adds(&b, " durable=false");
	if (q->filter != NULL)
		text_str(&b, "filter", q->filter);
	if (q->max_consumers != -1)
		sbuf_addf(&b, " max-consumers=%" PRId64, q->max_consumers);
	if (q->purge_on_no_consumers)
		sbuf_adds(&b, " purge-on-no-consumers=true");
	if (q->exclusive)
		sbuf_adds(&b, " exclusive=true");
	if (q->ring_size != -1)
		sbuf_addf(&b, " ring-size=%" PRId64, q->ring_size);
	if (!q->enabled)
		sbuf_adds(&b, " enabled=false");
	if (q->last_value_key != NULL)
		text_str(&b, "last-value-key", q->last_value_key);
	if (q->consumers_before_dispatch != 0)
		sbuf_addf(&b, " consumers-before-dispatch=%" PRId64,
		    q->consumers_before_dispatch);
	if (q->delay_before_dispatch != -1)
		sbuf_addf(&b, " delay-before-dispatch=%" PRId64,
		    q->delay_before_dispatch);
	return take_line(&b);
}

char *
import_divert_text(const struct decl_divert *d)
{
	struct sbuf b;
	size_t i;

	sbuf_init(&b, SBUF_UNBOUNDED);
	text_str(&b, "address", d->address != NULL ? d->address : "");
	text_str(&b, "forwarding-address",
	    d->forwarding_address != NULL ? d->forwarding_address : "");
	if (d->routing_name != NULL && strcmp(d->routing_name, d->name) != 0)
		text_str(&b, "routing-name", d->routing_name);
	if (d->exclusive)
		sbuf_adds(&b, " exclusive=true");
	if (d->filter != NULL)
		text_str(&b, "filter", d->filter);
	sbuf_addf(&b, " routing-type=%s",
	    decl_divert_routing_name(d->routing_type));
	if (d->transformer_class_name != NULL)
		text_str(&b, "transformer-class-name",
		    d->transformer_class_name);
	for (i = 0; i < d->ntransformer_properties; i++) {
		sbuf_adds(&b, " property:");
		text_str(&b, d->transformer_properties[i].key,
		    d->transformer_properties[i].value != NULL
		        ? d->transformer_properties[i].value
		        : "");
	}
	return take_line(&b);
}

char *
import_address_text(const struct decl_address *a)
{
	char *r = decl_routing_set_join(a->routing, false, ",");
	char *t = xasprintf("routing=[%s]", r);

	free(r);
	return t;
}

/* ---- the comparison ---- */

/* One object on one node: a candidate (obj) or left out by rule (ex). */
struct cell {
	enum import_kind kind;
	const char *name;
	size_t node;
	const void *obj;              /* decl_address/queue/divert, or NULL */
	const struct import_left *ex; /* or NULL */
};

static int
cell_cmp(const void *x, const void *y)
{
	const struct cell *a = x, *b = y;
	int c;

	if (a->kind != b->kind)
		return (int)a->kind - (int)b->kind;
	c = strcmp(a->name, b->name);
	if (c != 0)
		return c;
	if (a->node != b->node)
		return a->node < b->node ? -1 : 1;
	return (a->obj == NULL) - (b->obj == NULL);
}

struct merge {
	struct import_result *r;
	const struct decl_cluster *shell;
	struct import_node *nodes;
	size_t n;
};

static struct import_left *
left_new(struct merge *m, enum import_kind kind, const char *name,
    enum import_why why)
{
	struct import_result *r = m->r;
	struct import_left *l;

	r->left = xreallocarray(r->left, r->nleft + 1, sizeof(*r->left));
	l = &r->left[r->nleft++];
	memset(l, 0, sizeof(*l));
	l->kind = kind;
	l->name = xstrdup(name);
	l->why = why;
	l->seen = xcalloc(m->n + 1, sizeof(*l->seen));
	l->nseen = m->n;
	r->left_by_why[why]++;
	return l;
}

static char *
obj_text(enum import_kind kind, const void *obj)
{
	if (kind == IMPORT_ADDRESS)
		return import_address_text(obj);
	if (kind == IMPORT_QUEUE)
		return import_queue_text(obj);
	return import_divert_text(obj);
}

/* Fill l->seen from the group's cells g[0..k): one per node. */
static void
fill_seen(struct merge *m, struct import_left *l, const struct cell *g,
    size_t k)
{
	size_t i, j;

	for (i = 0; i < m->n; i++) {
		l->seen[i].node = xstrdup(m->nodes[i].node);
		for (j = 0; j < k && g[j].node != i; j++)
			;
		if (j == k)
			l->seen[i].state = xstrdup("absent");
		else if (g[j].obj != NULL)
			l->seen[i].state = obj_text(g[j].kind, g[j].obj);
		else
			l->seen[i].state = xstrdup(g[j].ex->seen[0].state);
	}
}

/* The settings in which a and b differ, joined by ", ". */
static void
queue_diff(struct sbuf *b, const struct decl_queue *x,
    const struct decl_queue *y)
{
	struct decl_queue t;

#define Q_FIELD(f, key)                                                        \
	do {                                                                   \
		t = *x;                                                        \
		t.f = y->f;                                                    \
		if (!decl_queue_same(&t, x) &&                                 \
		    strstr(sbuf_str(b), key) == NULL)                          \
			sbuf_addf(b, "%s%s", b->len > 0 ? ", " : "", key);     \
	} while (0)
	Q_FIELD(address, "address");
	Q_FIELD(routing, "routing");
	Q_FIELD(durable, "durable");
	Q_FIELD(filter, "filter");
	Q_FIELD(max_consumers, "max-consumers");
	Q_FIELD(purge_on_no_consumers, "purge-on-no-consumers");
	Q_FIELD(exclusive, "exclusive");
	Q_FIELD(ring_size, "ring-size");
	Q_FIELD(enabled, "enabled");
	Q_FIELD(last_value_key, "last-value-key");
	Q_FIELD(consumers_before_dispatch, "consumers-before-dispatch");
	Q_FIELD(delay_before_dispatch, "delay-before-dispatch");
#undef Q_FIELD
}

static void
divert_diff(struct sbuf *b, const struct decl_divert *x,
    const struct decl_divert *y)
{
	struct decl_divert t;

#define D_FIELD(f, key)                                                        \
	do {                                                                   \
		t = *x;                                                        \
		t.f = y->f;                                                    \
		if (!decl_divert_same(&t, x) &&                                \
		    strstr(sbuf_str(b), key) == NULL)                          \
			sbuf_addf(b, "%s%s", b->len > 0 ? ", " : "", key);     \
	} while (0)
	D_FIELD(address, "address");
	D_FIELD(forwarding_address, "forwarding-address");
	D_FIELD(exclusive, "exclusive");
	D_FIELD(filter, "filter");
	D_FIELD(routing_type, "routing-type");
	D_FIELD(routing_name, "routing-name");
	D_FIELD(transformer_class_name, "transformer-class-name");
#undef D_FIELD
	t = *x;
	t.transformer_properties = y->transformer_properties;
	t.ntransformer_properties = y->ntransformer_properties;
	if (!decl_divert_same(&t, x))
		sbuf_addf(b, "%stransformer-properties",
		    b->len > 0 ? ", " : "");
}

static bool
same(enum import_kind kind, const void *a, const void *b)
{
	if (kind == IMPORT_ADDRESS)
		return ((const struct decl_address *)a)->routing ==
		       ((const struct decl_address *)b)->routing;
	if (kind == IMPORT_QUEUE)
		return decl_queue_same(a, b);
	return decl_divert_same(a, b);
}

/* "differs in filter, max-consumers" for group g[0..k), all candidates. */
static char *
differs_text(const struct cell *g, size_t k)
{
	struct sbuf b;
	size_t j;

	sbuf_init(&b, SBUF_UNBOUNDED);
	for (j = 1; j < k; j++) {
		if (same(g[0].kind, g[0].obj, g[j].obj))
			continue;
		if (g[0].kind == IMPORT_ADDRESS) {
			if (b.len == 0)
				sbuf_adds(&b, "routing");
		} else if (g[0].kind == IMPORT_QUEUE) {
			queue_diff(&b, g[0].obj, g[j].obj);
		} else {
			divert_diff(&b, g[0].obj, g[j].obj);
		}
	}
	{
		char *t = xasprintf("differs in %s", sbuf_str(&b));
		sbuf_release(&b);
		return t;
	}
}

long
import_find_address(const struct decl_cluster *c, const char *name)
{
	size_t lo = 0, hi = c->naddresses, mid;
	int d;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		d = strcmp(c->addresses[mid].name, name);
		if (d == 0)
			return (long)mid;
		if (d < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* Why the format cannot hold this name, or NULL (owned). */
static char *
name_problem(const struct merge *m, enum import_kind kind, const char *name)
{
	const char *pfx = m->shell->settings.capture_prefix;
	char *why = decl_object_name_problem(name);

	if (why != NULL)
		return why;
	if (strncmp(name, pfx, strlen(pfx)) == 0)
		return xasprintf("is inside the capture prefix '%s'", pfx);
	if (kind == IMPORT_DIVERT && m->shell->mode == DECL_CONFIG_MANAGED &&
	    !decl_is_ncname(name))
		return xstrdup("is not an XML NCName, which broker.xml needs "
		               "for a divert in CONFIG_MANAGED");
	return NULL;
}

static void
left_out(struct merge *m, const struct cell *g, size_t k, enum import_why why,
    char *detail)
{
	struct import_left *l = left_new(m, g[0].kind, g[0].name, why);

	l->detail = detail;
	fill_seen(m, l, g, k);
}

/* Is name among sorted[0..n) (the declared queues' names)? */
static bool
has_queue_named(const char *name, const char *const *sorted, size_t n)
{
	size_t lo = 0, hi = n, mid;
	int d;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		d = strcmp(sorted[mid], name);
		if (d == 0)
			return true;
		if (d < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

static int
name_cmp(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* Why divert d cannot be declared in the declaration so far, or NULL. */
static char *
divert_problem(const struct merge *m, const struct decl_divert *d,
    enum import_why *why, const char *const *qs, size_t nq)
{
	const struct decl_cluster *c = m->r->decl;
	const char *s = d->forwarding_address, *e;
	long at;
	char *name, *msg = NULL;

	if (has_queue_named(d->name, qs, nq)) {
		*why = IMPORT_NOT_DECLARABLE;
		return xstrdup("a declared queue has its name");
	}
	if (import_find_address(c, d->address) < 0) {
		*why = IMPORT_ADDRESS_OUT;
		return xasprintf("reads from address '%s', which is not "
		                 "declared",
		    d->address);
	}
	for (; msg == NULL;) {
		size_t len;

		e = strchr(s, ',');
		len = e ? (size_t)(e - s) : strlen(s);
		while (len > 0 && (*s == ' ' || *s == '\t')) {
			s++;
			len--;
		}
		while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t'))
			len--;
		name = xstrndup(s, len);
		at = len > 0 ? import_find_address(c, name) : -1;
		if (len == 0) {
			*why = IMPORT_NOT_DECLARABLE;
			msg =
			    xstrdup("an empty entry in its forwarding-address");
		} else if (at < 0) {
			*why = IMPORT_ADDRESS_OUT;
			msg =
			    xasprintf("forwards to address '%s', which is not "
			              "declared",
			        name);
		} else if (c->mode == DECL_STUDIO_MANAGED &&
		           !decl_address_consumes(&c->addresses[at],
		               d->routing_type)) {
			*why = IMPORT_NOTHING_CONSUMES;
			msg = xasprintf("forwards to '%s': Nothing consumes at "
			                "%s among the declared queues",
			    name, name);
		}
		free(name);
		if (e == NULL)
			break;
		s = e + 1;
	}
	return msg;
}

static void
merge_group(struct merge *m, const struct cell *g, size_t k,
    const char *const *qs, size_t nq)
{
	enum import_why why = IMPORT_NOT_DECLARABLE;
	size_t j, ncand = 0;
	char *p;
	long at;

	for (j = 0; j < k; j++)
		ncand += g[j].obj != NULL;
	if (ncand == 0) { /* left out by rule on every node holding it */
		left_out(m, g, k, g[0].ex->why, NULL);
		return;
	}
	if (ncand < m->n || k != m->n) {
		left_out(m, g, k, IMPORT_NOT_EVERYWHERE,
		    xasprintf("held by %zu of %zu nodes", ncand, m->n));
		return;
	}
	for (j = 1; j < k; j++)
		if (!same(g[0].kind, g[0].obj, g[j].obj))
			break;
	if (j < k) {
		left_out(m, g, k, IMPORT_DIFFERS, differs_text(g, k));
		return;
	}
	p = name_problem(m, g[0].kind, g[0].name);
	if (p != NULL) {
		left_out(m, g, k, IMPORT_BAD_NAME, xasprintf("the name %s", p));
		free(p);
		return;
	}
	switch (g[0].kind) {
	case IMPORT_ADDRESS: {
		const struct decl_address *a = g[0].obj;

		if (a->routing == 0) {
			left_out(m, g, k, IMPORT_NOT_DECLARABLE,
			    xstrdup("no routing type"));
			return;
		}
		decl_cluster_add_address(m->r->decl, a->name, a->routing);
		break;
	}
	case IMPORT_QUEUE: {
		const struct decl_queue *q = g[0].obj;

		at = import_find_address(m->r->decl, q->address);
		if (at < 0) {
			left_out(m, g, k, IMPORT_ADDRESS_OUT,
			    xasprintf("its address '%s' is left out",
			        q->address));
			return;
		}
		if ((m->r->decl->addresses[at].routing & q->routing) == 0) {
			left_out(m, g, k, IMPORT_NOT_DECLARABLE,
			    xstrdup("its routing type is not its address's"));
			return;
		}
		decl_cluster_add_queue(m->r->decl, (size_t)at, q);
		break;
	}
	default:
		p = divert_problem(m, g[0].obj, &why, qs, nq);
		if (p != NULL) {
			left_out(m, g, k, why, p);
			return;
		}
		decl_cluster_add_divert(m->r->decl, g[0].obj);
		break;
	}
	m->r->declared[g[0].kind]++;
}

static void
add_cells(struct cell **v, size_t *n, const struct import_node *nd, size_t node)
{
	const struct decl_cluster *c = nd->objects;
	size_t i, j;

	for (i = 0; i < c->naddresses; i++) {
		*v = xreallocarray(*v, *n + 1 + c->addresses[i].nqueues,
		    sizeof(**v));
		(*v)[(*n)++] = (struct cell){IMPORT_ADDRESS,
		    c->addresses[i].name, node, &c->addresses[i], NULL};
		for (j = 0; j < c->addresses[i].nqueues; j++)
			(*v)[(*n)++] = (struct cell){IMPORT_QUEUE,
			    c->addresses[i].queues[j].name, node,
			    &c->addresses[i].queues[j], NULL};
	}
	*v = xreallocarray(*v, *n + c->ndiverts + 1, sizeof(**v));
	for (i = 0; i < c->ndiverts; i++)
		(*v)[(*n)++] = (struct cell){IMPORT_DIVERT, c->diverts[i].name,
		    node, &c->diverts[i], NULL};
}

static size_t
node_index(const struct import_node *nodes, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(nodes[i].node, name) == 0)
			return i;
	return n;
}

void
import_merge(struct import_result *r, const struct decl_cluster *shell,
    struct import_node *nodes, size_t n, struct import_left *ex, size_t nex,
    const char *source)
{
	struct merge m = {r, shell, nodes, n};
	struct cell *cells = NULL;
	const char **qs = NULL; /* the declared queues' names, sorted */
	size_t ncells = 0, i, j, k, nq = 0;
	bool diverts_started = false;

	memset(r, 0, sizeof(*r));
	r->source = source;
	r->decl = decl_cluster_new(shell->name, shell->mode);
	decl_cluster_set_settings(r->decl, &shell->settings);
	for (i = 0; i < shell->nnodes; i++)
		decl_cluster_add_node(r->decl, &shell->nodes[i]);
	r->nodes = xcalloc(n + 1, sizeof(*r->nodes));
	r->versions = xcalloc(n + 1, sizeof(*r->versions));
	r->sources = xcalloc(n + 1, sizeof(*r->sources));
	r->nnodes = n;
	for (i = 0; i < n; i++) {
		r->nodes[i] = xstrdup(nodes[i].node);
		r->versions[i] =
		    nodes[i].version ? xstrdup(nodes[i].version) : NULL;
		r->sources[i] =
		    nodes[i].source ? xstrdup(nodes[i].source) : NULL;
		add_cells(&cells, &ncells, &nodes[i], i);
	}
	cells = xreallocarray(cells, ncells + nex + 1, sizeof(*cells));
	for (i = 0; i < nex; i++)
		cells[ncells++] = (struct cell){ex[i].kind, ex[i].name,
		    node_index(nodes, n, ex[i].seen[0].node), NULL, &ex[i]};
	qsort(cells, ncells, sizeof(*cells), cell_cmp);
	for (i = 0; i < ncells; i = j) {
		for (j = i + 1; j < ncells && cells[j].kind == cells[i].kind &&
		                strcmp(cells[j].name, cells[i].name) == 0;
		     j++)
			;
		if (cells[i].kind == IMPORT_DIVERT && !diverts_started) {
			/* every queue is decided: index them for the
			 * diverts' name rule */
			diverts_started = true;
			for (k = 0; k < r->decl->naddresses; k++)
				nq += r->decl->addresses[k].nqueues;
			qs = xcalloc(nq + 1, sizeof(*qs));
			nq = 0;
			for (k = 0; k < r->decl->naddresses; k++)
				for (size_t q = 0;
				     q < r->decl->addresses[k].nqueues; q++)
					qs[nq++] = r->decl->addresses[k]
					               .queues[q]
					               .name;
			qsort(qs, nq, sizeof(*qs), name_cmp);
		}
		merge_group(&m, &cells[i], j - i, qs, nq);
	}
	free(qs);
	free(cells);
	for (i = 0; i < nex; i++)
		import_left_release(&ex[i]);
	free(ex);
}

void
import_note(struct import_result *r, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (s == NULL)
		return;
	r->notes = xreallocarray(r->notes, r->nnotes + 1, sizeof(*r->notes));
	r->notes[r->nnotes++] = s;
}

size_t
import_left_total(const struct import_result *r)
{
	size_t i, t = 0;

	for (i = 0; i < IMPORT_NWHY; i++)
		t += r->left_by_why[i];
	return t;
}

void
import_node_release(struct import_node *n)
{
	free(n->node);
	decl_cluster_free(n->objects);
	free(n->version);
	free(n->source);
	memset(n, 0, sizeof(*n));
}

void
import_left_release(struct import_left *l)
{
	size_t i;

	for (i = 0; i < l->nseen; i++) {
		free(l->seen[i].node);
		free(l->seen[i].state);
	}
	free(l->seen);
	free(l->name);
	free(l->detail);
	memset(l, 0, sizeof(*l));
}

void
import_result_release(struct import_result *r)
{
	size_t i;

	decl_cluster_free(r->decl);
	for (i = 0; i < r->nleft; i++)
		import_left_release(&r->left[i]);
	free(r->left);
	for (i = 0; i < r->nnodes; i++) {
		free(r->nodes[i]);
		free(r->versions[i]);
		free(r->sources[i]);
	}
	free(r->nodes);
	free(r->versions);
	free(r->sources);
	for (i = 0; i < r->nnotes; i++)
		free(r->notes[i]);
	free(r->notes);
	memset(r, 0, sizeof(*r));
}
