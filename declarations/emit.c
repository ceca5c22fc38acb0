/* declarations/emit.c: a model written as the YAML files of the
 * declaration format (docs/declarations.md), what `import` writes: sorted,
 * every setting only where it differs from its default, names quoted where
 * YAML needs it, addresses and diverts split over files well under
 * DECL_FILE_MAX. Loading the files again gives the same model. */
#include "decl-int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../lib/sbuf.h"
#include "../lib/utf8.h"
#include "../lib/xalloc.h"

/* Plain scalars the YAML layer could read as something else. */
static const char *const reserved[] = {"true", "false", "yes", "no", "on",
    "off", "null", "y", "n", "~"};

static bool
plain_ok(const char *s)
{
	const char *p;
	size_t i;

	if (!((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z') ||
	        s[0] == '_'))
		return false;
	for (p = s; *p != '\0'; p++)
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		        (*p >= '0' && *p <= '9') || *p == '_' || *p == '.' ||
		        *p == '-' || *p == '/'))
			return false;
	for (i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
		if (strcasecmp(s, reserved[i]) == 0)
			return false;
	return true;
}

/* May cp stand as itself inside a double-quoted YAML scalar (YAML 1.2's
 * printable set, minus what a reader could take for a byte order mark)? */
static bool
yaml_printable(uint32_t cp)
{
	if (cp == '"' || cp == '\\')
		return false;
	if (cp >= 0x20 && cp <= 0x7e)
		return true;
	/* U+2028 and U+2029 are line breaks to YAML: folded into a space
	 * inside a quoted scalar unless escaped */
	if (cp == 0x2028 || cp == 0x2029)
		return false;
	if (cp >= 0xa0 && cp <= 0xd7ff)
		return true;
	if (cp >= 0xe000 && cp <= 0xfffd && cp != 0xfeff)
		return true;
	return cp >= 0x10000 && cp <= 0x10ffff;
}

void
decl_yaml_scalar(struct sbuf *b, const char *s)
{
	const char *p = s;
	uint32_t cp;
	size_t n;

	if (plain_ok(s)) {
		sbuf_adds(b, s);
		return;
	}
	sbuf_addc(b, '"');
	while (*p != '\0') {
		n = utf8_decode(p, &cp);
		if (n == 0) { /* not UTF-8: the byte as an escape */
			sbuf_addf(b, "\\x%02x", (unsigned char)*p);
			p++;
			continue;
		}
		if (cp == '"')
			sbuf_adds(b, "\\\"");
		else if (cp == '\\')
			sbuf_adds(b, "\\\\");
		else if (cp == '\t')
			sbuf_adds(b, "\\t");
		else if (cp == '\n')
			sbuf_adds(b, "\\n");
		else if (cp == '\r')
			sbuf_adds(b, "\\r");
		else if (yaml_printable(cp))
			sbuf_add(b, p, n);
		else if (cp <= 0xff)
			sbuf_addf(b, "\\x%02x", (unsigned)cp);
		else if (cp <= 0xffff)
			sbuf_addf(b, "\\u%04x", (unsigned)cp);
		else
			sbuf_addf(b, "\\U%08x", (unsigned)cp);
		p += n;
	}
	sbuf_addc(b, '"');
}

static void
key_str(struct sbuf *b, const char *indent, const char *key, const char *v)
{
	sbuf_addf(b, "%s%s: ", indent, key);
	decl_yaml_scalar(b, v);
	sbuf_addc(b, '\n');
}

static void
key_int(struct sbuf *b, const char *indent, const char *key, int64_t v)
{
	sbuf_addf(b, "%s%s: %" PRId64 "\n", indent, key, v);
}

static void
key_bool(struct sbuf *b, const char *indent, const char *key, bool v)
{
	sbuf_addf(b, "%s%s: %s\n", indent, key, v ? "true" : "false");
}

static int
cmp_name(const char *a, const char *b)
{
	return strcmp(a != NULL ? a : "", b != NULL ? b : "");
}

static int
cmp_addr(const void *x, const void *y)
{
	return cmp_name((*(const struct decl_address *const *)x)->name,
	    (*(const struct decl_address *const *)y)->name);
}

static int
cmp_queue(const void *x, const void *y)
{
	return cmp_name((*(const struct decl_queue *const *)x)->name,
	    (*(const struct decl_queue *const *)y)->name);
}

static int
cmp_divert(const void *x, const void *y)
{
	return cmp_name((*(const struct decl_divert *const *)x)->name,
	    (*(const struct decl_divert *const *)y)->name);
}

static int
cmp_kv(const void *x, const void *y)
{
	return cmp_name((*(const struct decl_kv *const *)x)->key,
	    (*(const struct decl_kv *const *)y)->key);
}

static void
emit_queue(struct sbuf *b, const struct decl_address *a,
    const struct decl_queue *q)
{
	const char *in = "        ";

	sbuf_adds(b, "      - name: ");
	decl_yaml_scalar(b, q->name);
	sbuf_addc(b, '\n');
	/* one routing type on the address: the queue's is implied */
	if (a->routing != DECL_ANYCAST && a->routing != DECL_MULTICAST)
		key_str(b, in, "routing", decl_routing_name(q->routing));
	if (!q->durable)
		key_bool(b, in, "durable", false);
	if (q->filter != NULL && q->filter[0] != '\0')
		key_str(b, in, "filter", q->filter);
	if (q->max_consumers != -1)
		key_int(b, in, "max-consumers", q->max_consumers);
	if (q->purge_on_no_consumers)
		key_bool(b, in, "purge-on-no-consumers", true);
	if (q->exclusive)
		key_bool(b, in, "exclusive", true);
	if (q->ring_size != -1)
		key_int(b, in, "ring-size", q->ring_size);
	if (!q->enabled)
		key_bool(b, in, "enabled", false);
	if (q->last_value_key != NULL && q->last_value_key[0] != '\0')
		key_str(b, in, "last-value-key", q->last_value_key);
	if (q->consumers_before_dispatch != 0)
		key_int(b, in, "consumers-before-dispatch",
		    q->consumers_before_dispatch);
	if (q->delay_before_dispatch != -1)
		key_int(b, in, "delay-before-dispatch",
		    q->delay_before_dispatch);
	/* the policy a queue does not inherit from its address */
	if (q->policy.deletion != a->policy.deletion)
		key_str(b, in, "deletion-policy",
		    decl_deletion_policy_name(q->policy.deletion));
	if (q->policy.unmanaged != a->policy.unmanaged)
		key_bool(b, in, "managed", !q->policy.unmanaged);
	/* true only: a built model's queues (import) never say false, and
	 * one that does not say it takes settings.delete-if-empty */
	if (q->delete_if_empty)
		key_bool(b, in, "delete-if-empty", true);
}

static void
emit_address(struct sbuf *b, const struct decl_address *a)
{
	const void **qs; /* struct decl_queue *: void * for the sizeof */
	unsigned r = 0;
	size_t i;
	bool first = true;

	sbuf_adds(b, "  - name: ");
	decl_yaml_scalar(b, a->name);
	sbuf_adds(b, "\n    routing: [");
	while ((r = decl_routing_set_next(a->routing, r)) != 0) {
		sbuf_addf(b, "%s%s", first ? "" : ", ", decl_routing_name(r));
		first = false;
	}
	sbuf_adds(b, "]\n");
	if (a->policy.deletion != DECL_DELETE)
		key_str(b, "    ", "deletion-policy",
		    decl_deletion_policy_name(a->policy.deletion));
	if (a->policy.unmanaged)
		key_bool(b, "    ", "managed", false);
	if (a->nqueues == 0)
		return;
	sbuf_adds(b, "    queues:\n");
	qs = xcalloc(a->nqueues, sizeof(*qs));
	for (i = 0; i < a->nqueues; i++)
		qs[i] = &a->queues[i];
	qsort(qs, a->nqueues, sizeof(*qs), cmp_queue);
	for (i = 0; i < a->nqueues; i++)
		emit_queue(b, a, qs[i]);
	free(qs);
}

static void
emit_divert(struct sbuf *b, const struct decl_divert *d)
{
	const char *in = "    ";
	const void **kv; /* struct decl_kv * */
	size_t i;

	sbuf_adds(b, "  - name: ");
	decl_yaml_scalar(b, d->name);
	sbuf_addc(b, '\n');
	key_str(b, in, "address", d->address);
	key_str(b, in, "forwarding-address", d->forwarding_address);
	if (d->routing_name != NULL && strcmp(d->routing_name, d->name) != 0)
		key_str(b, in, "routing-name", d->routing_name);
	if (d->exclusive)
		key_bool(b, in, "exclusive", true);
	if (d->filter != NULL && d->filter[0] != '\0')
		key_str(b, in, "filter", d->filter);
	if (d->routing_type != DECL_DIVERT_STRIP)
		key_str(b, in, "routing-type",
		    decl_divert_routing_name(d->routing_type));
	if (d->transformer_class_name != NULL &&
	    d->transformer_class_name[0] != '\0')
		key_str(b, in, "transformer-class-name",
		    d->transformer_class_name);
	if (d->policy.deletion != DECL_DELETE)
		key_str(b, in, "deletion-policy",
		    decl_deletion_policy_name(d->policy.deletion));
	if (d->policy.unmanaged)
		key_bool(b, in, "managed", false);
	if (d->ntransformer_properties == 0)
		return;
	sbuf_adds(b, "    transformer-properties:\n");
	kv = xcalloc(d->ntransformer_properties, sizeof(*kv));
	for (i = 0; i < d->ntransformer_properties; i++)
		kv[i] = &d->transformer_properties[i];
	qsort(kv, d->ntransformer_properties, sizeof(*kv), cmp_kv);
	for (i = 0; i < d->ntransformer_properties; i++) {
		sbuf_adds(b, "      ");
		const struct decl_kv *e = kv[i];

		decl_yaml_scalar(b, e->key);
		sbuf_adds(b, ": ");
		decl_yaml_scalar(b, e->value != NULL ? e->value : "");
		sbuf_addc(b, '\n');
	}
	free(kv);
}

static void
emit_node(struct sbuf *b, const struct decl_node *n)
{
	size_t i;

	sbuf_adds(b, "  - name: ");
	decl_yaml_scalar(b, n->name);
	sbuf_addc(b, '\n');
	if (n->jolokia != NULL)
		key_str(b, "    ", "jolokia", n->jolokia);
	if (n->credentials != NULL)
		key_str(b, "    ", "credentials", n->credentials);
	if (n->nmembers == 0)
		return;
	sbuf_adds(b, "    members:\n");
	for (i = 0; i < n->nmembers; i++) {
		sbuf_adds(b, "      - name: ");
		decl_yaml_scalar(b, n->members[i].name);
		sbuf_addc(b, '\n');
		key_str(b, "        ", "jolokia", n->members[i].jolokia);
		if (n->members[i].credentials != NULL)
			key_str(b, "        ", "credentials",
			    n->members[i].credentials);
	}
}

static void
emit_cluster_file(struct sbuf *bp, const struct decl_cluster *c,
    const char *header)
{
	struct sbuf b = *bp;
	size_t i;

	if (header != NULL)
		sbuf_adds(&b, header);
	sbuf_addf(&b, "version: %u\n", c->version);
	key_str(&b, "", "cluster", c->name);
	sbuf_addf(&b, "mode: %s\n", decl_mode_name(c->mode));
	if (c->nnodes > 0)
		sbuf_adds(&b, "nodes:\n");
	for (i = 0; i < c->nnodes; i++)
		emit_node(&b, &c->nodes[i]);
	if (strcmp(c->settings.capture_prefix, DECL_DEFAULT_CAPTURE_PREFIX) !=
	        0 ||
	    c->settings.max_destroyed_messages != DECL_DEFAULT_MAX_DESTROYED ||
	    c->settings.nprotect > 0 || c->settings.delete_if_empty) {
		sbuf_adds(&b, "settings:\n");
		if (strcmp(c->settings.capture_prefix,
		        DECL_DEFAULT_CAPTURE_PREFIX) != 0)
			key_str(&b, "  ", "capture-prefix",
			    c->settings.capture_prefix);
		if (c->settings.max_destroyed_messages !=
		    DECL_DEFAULT_MAX_DESTROYED)
			key_int(&b, "  ", "max-destroyed-messages",
			    c->settings.max_destroyed_messages);
		if (c->settings.nprotect > 0)
			sbuf_adds(&b, "  protect:\n");
		for (i = 0; i < c->settings.nprotect; i++) {
			sbuf_adds(&b, "    - ");
			decl_yaml_scalar(&b, c->settings.protect[i]);
			sbuf_addc(&b, '\n');
		}
		if (c->settings.delete_if_empty)
			key_bool(&b, "  ", "delete-if-empty", true);
	}
	if (c->ncaptures > 0)
		sbuf_adds(&b, "captures:\n");
	for (i = 0; i < c->ncaptures; i++) {
		sbuf_adds(&b, "  - name: ");
		decl_yaml_scalar(&b, c->captures[i].name);
		sbuf_addc(&b, '\n');
		key_str(&b, "    ", "pattern", c->captures[i].pattern);
		if (c->captures[i].ring_size != DECL_DEFAULT_CAPTURE_RING)
			key_int(&b, "    ", "ring-size",
			    c->captures[i].ring_size);
	}
	*bp = b;
}

struct files {
	struct decl_emit_file *v;
	size_t n;
};

static void
files_add(struct files *f, char *name, struct sbuf *b)
{
	f->v = xreallocarray(f->v, f->n + 1, sizeof(*f->v));
	f->v[f->n].name = name;
	f->v[f->n].len = b->len;
	f->v[f->n].text = sbuf_take(b);
	f->n++;
}

/* Items [0, n) of one kind into files of at most per items and about
 * DECL_EMIT_FILE_BYTES bytes each: `<stem>.yaml` when one file holds them
 * all, else `<stem>-001.yaml`, ... */
static int
emit_chunks(struct files *f, const char *stem, const char *key, size_t n,
    size_t per, void (*one)(struct sbuf *, const void *),
    const void *const *items, struct err *err)
{
	struct sbuf item, b;
	size_t i, nchunk = 0, k;

	if (n == 0)
		return 0;
	sbuf_init(&b, SBUF_UNBOUNDED);
	sbuf_init(&item, SBUF_UNBOUNDED);
	for (i = 0, k = 0; i < n; i++) {
		sbuf_reset(&item);
		one(&item, items[i]);
		if (item.len + 64 > DECL_FILE_MAX) {
			err_setf(err, NULL,
			    "%s %zu alone would take %zu bytes, "
			    "more than a file may hold (%zu)",
			    key, i + 1, item.len, DECL_FILE_MAX);
			sbuf_release(&item);
			sbuf_release(&b);
			return -1;
		}
		if (k > 0 &&
		    (k == per || b.len + item.len > DECL_EMIT_FILE_BYTES)) {
			files_add(f, xasprintf("%s-%03zu.yaml", stem, ++nchunk),
			    &b);
			k = 0;
		}
		if (k == 0)
			sbuf_addf(&b, "version: %d\n%s:\n", DECL_VERSION_MAX,
			    key);
		sbuf_add(&b, item.buf, item.len);
		k++;
	}
	if (nchunk == 0)
		files_add(f, xasprintf("%s.yaml", stem), &b);
	else
		files_add(f, xasprintf("%s-%03zu.yaml", stem, ++nchunk), &b);
	sbuf_release(&item);
	return 0;
}

static void
one_address(struct sbuf *b, const void *a)
{
	emit_address(b, a);
}

static void
one_divert(struct sbuf *b, const void *d)
{
	emit_divert(b, d);
}

int
decl_cluster_emit(const struct decl_cluster *c, const struct decl_emit_opts *o,
    struct decl_emit_file **out, size_t *nout, struct err *err)
{
	struct files f = {0};
	const void **items;
	size_t i, per = o != NULL && o->addresses_per_file > 0
	                    ? o->addresses_per_file
	                    : DECL_EMIT_PER_FILE;
	struct sbuf b;
	int rc = 0;

	sbuf_init(&b, SBUF_UNBOUNDED);
	emit_cluster_file(&b, c, o != NULL ? o->header : NULL);
	files_add(&f, xstrdup("cluster.yaml"), &b);
	items = xcalloc(c->naddresses + c->ndiverts + 1, sizeof(*items));
	for (i = 0; i < c->naddresses; i++)
		items[i] = &c->addresses[i];
	qsort(items, c->naddresses, sizeof(*items), cmp_addr);
	rc = emit_chunks(&f, "addresses", "addresses", c->naddresses, per,
	    one_address, items, err);
	for (i = 0; rc == 0 && i < c->ndiverts; i++)
		items[i] = &c->diverts[i];
	if (rc == 0) {
		qsort(items, c->ndiverts, sizeof(*items), cmp_divert);
		rc = emit_chunks(&f, "diverts", "diverts", c->ndiverts, per,
		    one_divert, items, err);
	}
	free(items);
	if (rc == 0 && f.n > DECL_FILES_MAX) {
		err_setf(err, NULL,
		    "%zu files, more than a cluster may have "
		    "(%d)",
		    f.n, DECL_FILES_MAX);
		rc = -1;
	}
	if (rc < 0) {
		decl_emit_files_free(f.v, f.n);
		return -1;
	}
	*out = f.v;
	*nout = f.n;
	return 0;
}

void
decl_emit_files_free(struct decl_emit_file *f, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(f[i].name);
		free(f[i].text);
	}
	free(f);
}
