/* declarations/render/render-check.c: what broker.xml cannot carry: divert
 * names that are not NCNames, bytes that are not UTF-8, characters XML 1.0
 * forbids, and "${" (Artemis's system-property substitution).
 *
 * Validation refuses some of these too; the renderer does not rely on it,
 * since a model can also be built by other code (and tests).
 */
#include "render-int.h"

#include <libxml/chvalid.h>
#include <libxml/tree.h>
#include <libxml/xmlstring.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/xalloc.h"

/* 0 when s is UTF-8 made of XML 1.0 characters; else the first offending
 * code point (or 0xFFFFFFFF for bytes that are not UTF-8). */
static unsigned
bad_char(const char *s)
{
	const xmlChar *p = (const xmlChar *)s;
	int len;

	while (*p != 0) {
		int c;

		len = 4;
		c = xmlGetUTF8Char(p, &len);
		if (c < 0)
			return 0xFFFFFFFFu;
		if (!xmlIsCharQ(c))
			return (unsigned)c;
		p += len;
	}
	return 0;
}

static void
check_str(struct errlist *diags, const struct pos *pos, const char *what,
    const char *field, const char *s, int *rc)
{
	unsigned c;

	if (s == NULL)
		return;
	if (strstr(s, "${") != NULL) {
		/* Artemis replaces ${name} and ${name:default} in every value
		 * it reads from broker.xml, character references included
		 * (observed on 2.40.0); nothing in XML escapes it. */
		*rc = errlist_add(diags, DIAG_ERROR, pos,
		    "%s: %s holds '${', which Artemis replaces with a system "
		    "property when it reads broker.xml, so it cannot be carried "
		    "as declared",
		    what, field);
		return;
	}
	c = bad_char(s);
	if (c == 0)
		return;
	if (c == 0xFFFFFFFFu)
		*rc = errlist_add(diags, DIAG_ERROR, pos,
		    "%s: %s is not valid UTF-8, so broker.xml cannot carry it",
		    what, field);
	else
		*rc = errlist_add(diags, DIAG_ERROR, pos,
		    "%s: %s holds U+%04X, which XML 1.0 cannot carry", what,
		    field, c);
}

static void
check_address(const struct decl_address *a, struct errlist *diags, int *rc)
{
	const struct decl_queue *q;
	char *what;
	size_t i;

	what = xasprintf("address '%s'", a->name);
	check_str(diags, &a->pos, what, "the name", a->name, rc);
	free(what);
	for (i = 0; i < a->nqueues; i++) {
		q = &a->queues[i];
		what =
		    xasprintf("queue '%s' of address '%s'", q->name, a->name);
		check_str(diags, &q->pos, what, "the name", q->name, rc);
		check_str(diags, &q->pos, what, "the filter", q->filter, rc);
		check_str(diags, &q->pos, what, "last-value-key",
		    q->last_value_key, rc);
		free(what);
	}
}

static void
check_divert(const struct decl_divert *d, struct errlist *diags, int *rc)
{
	char *what = xasprintf("divert '%s'", d->name);
	size_t i;

	if (xmlValidateNCName((const xmlChar *)d->name, 0) != 0)
		*rc = errlist_add(diags, DIAG_ERROR, &d->pos,
		    "%s: name is not an XML NCName, and broker.xml types "
		    "divert names as xsd:ID; rename the divert",
		    what);
	check_str(diags, &d->pos, what, "address", d->address, rc);
	check_str(diags, &d->pos, what, "forwarding-address",
	    d->forwarding_address, rc);
	check_str(diags, &d->pos, what, "routing-name", d->routing_name, rc);
	check_str(diags, &d->pos, what, "the filter", d->filter, rc);
	check_str(diags, &d->pos, what, "the transformer class",
	    d->transformer_class_name, rc);
	for (i = 0; i < d->ntransformer_properties; i++) {
		check_str(diags, &d->pos, what, "a transformer property key",
		    d->transformer_properties[i].key, rc);
		check_str(diags, &d->pos, what, "a transformer property value",
		    d->transformer_properties[i].value, rc);
	}
	free(what);
}

static void
check_settings(const struct decl_cluster *c, struct errlist *diags, int *rc)
{
	const struct decl_address_setting *as;
	const struct decl_security_setting *ss;
	char *what;
	size_t i, k, r;

	for (i = 0; i < c->naddress_settings; i++) {
		as = &c->address_settings[i];
		what = xasprintf("address-settings '%s'", as->match);
		check_str(diags, &as->pos, what, "match", as->match, rc);
		check_str(diags, &as->pos, what, "dead-letter-address",
		    as->dead_letter_address, rc);
		check_str(diags, &as->pos, what, "expiry-address",
		    as->expiry_address, rc);
		free(what);
	}
	for (i = 0; i < c->nsecurity_settings; i++) {
		ss = &c->security_settings[i];
		what = xasprintf("security-settings '%s'", ss->match);
		check_str(diags, &ss->pos, what, "match", ss->match, rc);
		for (k = 0; k < DECL_PERM_COUNT; k++)
			for (r = 0; r < ss->perm[k].n; r++)
				check_str(diags, &ss->pos, what, "a role",
				    ss->perm[k].v[r], rc);
		free(what);
	}
}

int
render_check_strings(const struct decl_cluster *c, struct errlist *diags)
{
	int rc = 0;
	size_t i;

	check_settings(c, diags, &rc);
	for (i = 0; i < c->naddresses; i++)
		check_address(&c->addresses[i], diags, &rc);
	for (i = 0; i < c->ndiverts; i++)
		check_divert(&c->diverts[i], diags, &rc);
	return rc;
}
