/* declarations/check.c: the cross-object rules, run on a cluster whose
 * files all loaded cleanly (docs/declarations.md lists them). */
#include "decl-int.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../lib/sbuf.h"
#include "../lib/xalloc.h"

/* One named object in a namespace, for duplicate detection. */
struct named {
	const char *name;
	const char *kind; /* "queue", "divert", ... */
	const struct pos *pos;
	size_t order; /* declaration order */
};

struct names {
	struct named *v;
	size_t n, cap;
};

static void
names_add(struct names *ns, const char *name, const char *kind,
    const struct pos *pos)
{
	xgrow(&ns->v, &ns->cap, ns->n + 1, sizeof(*ns->v));
	ns->v[ns->n].name = name;
	ns->v[ns->n].kind = kind;
	ns->v[ns->n].pos = pos;
	ns->v[ns->n].order = ns->n;
	ns->n++;
}

static int
named_cmp(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c != 0)
		return c;
	return (x->order > y->order) - (x->order < y->order);
}

/* Report every later declaration of a name, naming the first; then free. */
static void
names_check(struct names *ns, struct errlist *diags)
{
	const struct named *first = NULL, *o;
	size_t i;

	if (ns->n > 1)
		qsort(ns->v, ns->n, sizeof(*ns->v), named_cmp);
	for (i = 0; i < ns->n; i++) {
		o = &ns->v[i];
		if (first == NULL || strcmp(first->name, o->name) != 0) {
			first = o;
			continue;
		}
		if (strcmp(first->kind, o->kind) == 0)
			errlist_add(diags, DIAG_ERROR, o->pos,
			    "duplicate %s '%s' (first declared at %s:%u:%u)",
			    o->kind, o->name, first->pos->path,
			    first->pos->line, first->pos->col);
		else
			errlist_add(diags, DIAG_ERROR, o->pos,
			    "%s '%s' has the name of the %s declared at "
			    "%s:%u:%u (queues and diverts share one namespace "
			    "on a broker)",
			    o->kind, o->name, first->kind, first->pos->path,
			    first->pos->line, first->pos->col);
	}
	free(ns->v);
	memset(ns, 0, sizeof(*ns));
}

static void
check_prefix(const struct decl_cluster *c, const char *kind, const char *name,
    const struct pos *pos, struct errlist *diags)
{
	const char *prefix = c->settings.capture_prefix;

	if (strncmp(name, prefix, strlen(prefix)) == 0)
		errlist_add(diags, DIAG_ERROR, pos,
		    "%s '%s' is inside the reserved capture prefix '%s' "
		    "(names starting with it belong to capture subscriptions)",
		    kind, name, prefix);
}

/* ---- endpoints ----------------------------------------------------------
 * Two nodes on one Jolokia endpoint would get every operation twice, so
 * URLs are compared as endpoints, not as text (docs/declarations.md,
 * "Endpoints"): the host in lower case, without a trailing dot, an IP
 * literal in its canonical form (inet_aton's forms for IPv4, as curl reads
 * them: 127.1, 0x7f.0.0.1; an IPv4-mapped IPv6 address as its IPv4), every
 * loopback name or address (localhost, *.localhost, 127.0.0.0/8, ::1, and
 * 0.0.0.0 and ::, which reach the host itself) as one; the port, 80 or
 * 443 when none is written (the scheme is not compared: one port serves
 * one protocol); the path with unreserved %-escapes decoded, "." and ".."
 * segments resolved (as curl sends it) and trailing slashes dropped; the
 * query as written; no fragment (never sent). Names that resolve to one
 * address (a host's name and its IP) cannot be told apart without DNS. */

static bool
unreserved(int ch)
{
	return isalnum(ch) || ch == '-' || ch == '.' || ch == '_' || ch == '~';
}

static int
hexval(int ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	ch = tolower(ch);
	return ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
}

/* The path (up to '?' or '#', n bytes of p) normalised into b. */
static void
endpoint_path(struct sbuf *b, const char *p, size_t n)
{
	struct sbuf dec = {0};
	char **segs = NULL;
	size_t nsegs = 0, cap = 0, i, j, len;
	const char *s, *e;
	int hi, lo;

	for (i = 0; i < n; i++) {
		hi = i + 2 < n && p[i] == '%' ? hexval(p[i + 1]) : -1;
		lo = hi >= 0 ? hexval(p[i + 2]) : -1;
		if (lo < 0) {
			sbuf_addc(&dec, p[i]);
			continue;
		}
		if (unreserved(hi * 16 + lo))
			sbuf_addc(&dec, (char)(hi * 16 + lo));
		else
			sbuf_addf(&dec, "%%%02X", hi * 16 + lo);
		i += 2;
	}
	/* remove_dot_segments (RFC 3986 5.2.4), segment by segment */
	s = sbuf_str(&dec);
	while (*s != '\0') {
		if (*s == '/')
			s++;
		e = s + strcspn(s, "/");
		len = (size_t)(e - s);
		if (len == 1 && s[0] == '.') {
			/* nothing */
		} else if (len == 2 && s[0] == '.' && s[1] == '.') {
			if (nsegs > 0)
				free(segs[--nsegs]);
		} else {
			xgrow(&segs, &cap, nsegs + 1, sizeof(*segs));
			segs[nsegs++] = xstrndup(s, len);
		}
		s = e;
	}
	/* trailing slashes (empty last segments) do not name another path */
	while (nsegs > 0 && segs[nsegs - 1][0] == '\0')
		free(segs[--nsegs]);
	if (nsegs == 0)
		sbuf_addc(b, '/');
	for (j = 0; j < nsegs; j++) {
		sbuf_addc(b, '/');
		sbuf_adds(b, segs[j]);
		free(segs[j]);
	}
	free(segs);
	sbuf_release(&dec);
}

/* The host (n bytes of h, brackets stripped) normalised into b. */
static void
endpoint_host(struct sbuf *b, const char *h, size_t n, bool v6)
{
	char *host = xstrndup(h, n), text[INET6_ADDRSTRLEN];
	struct in6_addr a6;
	struct in_addr a4;
	size_t i, len;
	bool v4 = false;

	for (i = 0; host[i] != '\0'; i++)
		host[i] = (char)tolower((unsigned char)host[i]);
	len = strlen(host);
	if (!v6 && len > 1 && host[len - 1] == '.')
		host[--len] = '\0';
	if (v6 && inet_pton(AF_INET6, host, &a6) == 1) {
		if (IN6_IS_ADDR_V4MAPPED(&a6)) {
			memcpy(&a4, &a6.s6_addr[12], sizeof(a4));
			v4 = true;
		} else if (IN6_IS_ADDR_LOOPBACK(&a6) ||
		           IN6_IS_ADDR_UNSPECIFIED(&a6)) {
			sbuf_adds(b, "loopback");
		} else if (inet_ntop(AF_INET6, &a6, text, sizeof(text)) !=
		           NULL) {
			sbuf_addf(b, "[%s]", text);
		} else {
			sbuf_addf(b, "[%s]", host);
		}
	} else if (v6) {
		sbuf_addf(b, "[%s]", host); /* a zone index: as written */
	} else if (strspn(host, "0123456789abcdefx.") == len &&
	           inet_aton(host, &a4) != 0) {
		v4 = true;
	} else if (strcmp(host, "localhost") == 0 ||
	           (len > 10 && strcmp(host + len - 10, ".localhost") == 0)) {
		sbuf_adds(b, "loopback");
	} else {
		sbuf_adds(b, host);
	}
	if (v4) {
		uint32_t ip = ntohl(a4.s_addr);

		if ((ip >> 24) == 127 || ip == 0)
			sbuf_adds(b, "loopback");
		else
			sbuf_addf(b, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 255,
			    (ip >> 8) & 255, ip & 255);
	}
	free(host);
}

/* The endpoint url names (a URL that passed url_problem), owned. */
char *
decl_endpoint_key(const char *url)
{
	struct sbuf b = {0};
	const char *p = strstr(url, "://"), *auth, *end, *host, *hend;
	const char *colon = NULL, *q;
	bool https = strncasecmp(url, "https:", 6) == 0, v6 = false;
	long port;

	if (p == NULL)
		return xstrdup(url);
	auth = p + 3;
	end = auth + strcspn(auth, "/?#");
	host = auth;
	if (*host == '[') {
		v6 = true;
		host++;
		hend = memchr(host, ']', (size_t)(end - host));
		if (hend == NULL)
			hend = end;
		if (hend + 1 < end && hend[1] == ':')
			colon = hend + 1;
	} else {
		colon = memchr(host, ':', (size_t)(end - host));
		hend = colon != NULL ? colon : end;
	}
	endpoint_host(&b, host, (size_t)(hend - host), v6);
	port = colon != NULL ? strtol(colon + 1, NULL, 10) : https ? 443 : 80;
	sbuf_addf(&b, ":%ld", port);
	q = end + strcspn(end, "?#");
	endpoint_path(&b, end, (size_t)(q - end));
	if (*q == '?')
		sbuf_add(&b, q, strcspn(q, "#"));
	return sbuf_take(&b);
}

/* One Jolokia endpoint of the cluster: a node's, or a member's. */
struct endpoint {
	char *key;
	const struct decl_node *node;
	const struct decl_member *member; /* NULL: the node's own */
	size_t order;                     /* declaration order */
};

static int
endpoint_cmp(const void *a, const void *b)
{
	const struct endpoint *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	if (c != 0)
		return c;
	return (x->order > y->order) - (x->order < y->order);
}

static const char *
endpoint_url(const struct endpoint *e)
{
	return e->member != NULL ? e->member->jolokia : e->node->jolokia;
}

static const struct pos *
endpoint_pos(const struct endpoint *e)
{
	return e->member != NULL ? &e->member->pos : &e->node->pos;
}

/* "node 'n'" or "member 'm' of node 'n'", owned. */
static char *
endpoint_who(const struct endpoint *e)
{
	if (e->member != NULL)
		return xasprintf("member '%s' of node '%s'", e->member->name,
		    e->node->name);
	return xasprintf("node '%s'", e->node->name);
}

/* Every later endpoint (of a node or of an HA node's member) already
 * declared, naming the first. */
static void
check_endpoints(const struct decl_cluster *c, struct errlist *diags)
{
	struct endpoint *v;
	const struct endpoint *first = NULL;
	size_t i, j, n = 0;
	char *who;

	for (i = 0; i < c->nnodes; i++)
		n += c->nodes[i].nmembers > 0 ? c->nodes[i].nmembers : 1;
	v = xcalloc(n + 1, sizeof(*v));
	n = 0;
	for (i = 0; i < c->nnodes; i++) {
		for (j = 0; j < c->nodes[i].nmembers; j++) {
			v[n].node = &c->nodes[i];
			v[n].member = &c->nodes[i].members[j];
			v[n].order = n;
			v[n].key = decl_endpoint_key(v[n].member->jolokia);
			n++;
		}
		if (c->nodes[i].nmembers > 0)
			continue;
		v[n].node = &c->nodes[i];
		v[n].order = n;
		v[n].key = decl_endpoint_key(c->nodes[i].jolokia);
		n++;
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), endpoint_cmp);
	for (i = 0; i < n; i++) {
		const struct endpoint *e = &v[i];
		const struct pos *fp;

		if (first == NULL || strcmp(first->key, e->key) != 0) {
			first = e;
			continue;
		}
		fp = endpoint_pos(first);
		who = endpoint_who(first);
		if (strcmp(endpoint_url(first), endpoint_url(e)) == 0)
			errlist_add(diags, DIAG_ERROR, endpoint_pos(e),
			    "duplicate jolokia URL '%s' (first declared at "
			    "%s:%u:%u)",
			    endpoint_url(e), fp->path, fp->line, fp->col);
		else
			errlist_add(diags, DIAG_ERROR, endpoint_pos(e),
			    "jolokia URL '%s' is the endpoint of %s "
			    "('%s', declared at %s:%u:%u): both reach %s, and "
			    "two nodes on one endpoint would get every operation "
			    "twice",
			    endpoint_url(e), who, endpoint_url(first), fp->path,
			    fp->line, fp->col, e->key);
		free(who);
	}
	for (i = 0; i < n; i++)
		free(v[i].key);
	free(v);
}

static void
check_unique(const struct decl_cluster *c, struct errlist *diags)
{
	struct names ns = {0};
	size_t i, j;

	for (i = 0; i < c->nnodes; i++)
		names_add(&ns, c->nodes[i].name, "node", &c->nodes[i].pos);
	names_check(&ns, diags);
	check_endpoints(c, diags);
	for (i = 0; i < c->naddresses; i++)
		names_add(&ns, c->addresses[i].name, "address",
		    &c->addresses[i].pos);
	names_check(&ns, diags);
	for (i = 0; i < c->ncaptures; i++)
		names_add(&ns, c->captures[i].name, "capture",
		    &c->captures[i].pos);
	names_check(&ns, diags);
	for (i = 0; i < c->naddresses; i++)
		for (j = 0; j < c->addresses[i].nqueues; j++)
			names_add(&ns, c->addresses[i].queues[j].name, "queue",
			    &c->addresses[i].queues[j].pos);
	for (i = 0; i < c->ndiverts; i++)
		names_add(&ns, c->diverts[i].name, "divert",
		    &c->diverts[i].pos);
	names_check(&ns, diags);
}

static void
check_queues(const struct decl_cluster *c, struct errlist *diags)
{
	const struct decl_address *a;
	const struct decl_queue *q;
	size_t i, j;

	for (i = 0; i < c->naddresses; i++) {
		a = &c->addresses[i];
		check_prefix(c, "address", a->name, &a->pos, diags);
		for (j = 0; j < a->nqueues; j++) {
			q = &a->queues[j];
			check_prefix(c, "queue", q->name, &q->pos, diags);
			if ((a->routing & q->routing) == 0)
				errlist_add(diags, DIAG_ERROR, &q->pos,
				    "queue '%s' is %s but address '%s' allows "
				    "only %s",
				    q->name, decl_routing_name(q->routing),
				    a->name, decl_routing_name(a->routing));
		}
	}
}

/* ---- per-object policy (docs/policy.md) --------------------------------
 * Contradictions are refused where they are written. */

/* CONFIG_MANAGED renders broker.xml, which the operator deploys and the
 * broker reloads by its own config-delete-* rules: the agent can neither
 * leave a declared object out of the file's effect nor keep a removed one
 * (docs/policy.md). */
static void
check_mode_policy(const struct decl_cluster *c, const char *kind,
    const char *name, const struct decl_policy *p, struct errlist *diags)
{
	if (c->mode != DECL_CONFIG_MANAGED)
		return;
	if (p->managed_at.line != 0)
		errlist_add(diags, DIAG_ERROR, &p->managed_at,
		    "%s '%s': 'managed' is for STUDIO_MANAGED clusters; in "
		    "CONFIG_MANAGED leave the object out of the declaration "
		    "(the base broker.xml keeps it)",
		    kind, name);
	if (p->deletion_at.line != 0 && p->deletion == DECL_RETAIN)
		errlist_add(diags, DIAG_ERROR, &p->deletion_at,
		    "%s '%s': deletion-policy: retain is for STUDIO_MANAGED "
		    "clusters; in CONFIG_MANAGED whether a broker removes an "
		    "object left out of broker.xml is its config-delete-* "
		    "setting's",
		    kind, name);
}

/* An object the agent does not manage is never deleted by it: a
 * deletion-policy beside managed: false says nothing, or the opposite. */
static void
check_unmanaged_policy(const char *kind, const char *name,
    const struct decl_policy *p, struct errlist *diags)
{
	if (!p->unmanaged || p->deletion_at.line == 0 ||
	    p->managed_at.line == 0)
		return;
	errlist_add(diags, DIAG_ERROR, &p->deletion_at,
	    "%s '%s' has 'deletion-policy' and 'managed: false' (line %u): "
	    "the agent never deletes an object it does not manage; remove "
	    "one of the two",
	    kind, name, p->managed_at.line);
}

static void
check_queue_policy(const struct decl_address *a, const struct decl_queue *q,
    struct errlist *diags)
{
	const struct pos *ap = &a->policy.deletion_at;

	check_unmanaged_policy("queue", q->name, &q->policy, diags);
	/* the address goes with its queues: removed together, a broker
	 * cannot delete an address a retained queue stays bound to */
	if (q->policy.deletion_at.line != 0 &&
	    q->policy.deletion == DECL_RETAIN && ap->line != 0 &&
	    a->policy.deletion == DECL_DELETE)
		errlist_add(diags, DIAG_ERROR, &q->policy.deletion_at,
		    "queue '%s' has deletion-policy: retain but its address "
		    "'%s' has deletion-policy: delete (%s:%u:%u): an address "
		    "cannot be deleted while a retained queue stays bound to "
		    "it; retain the address (its queues then inherit it) or "
		    "drop one of the two",
		    q->name, a->name, ap->path, ap->line, ap->col);
	if (q->policy.managed_at.line != 0 && !q->policy.unmanaged &&
	    a->policy.unmanaged)
		errlist_add(diags, DIAG_ERROR, &q->policy.managed_at,
		    "queue '%s' has managed: true but its address '%s' has "
		    "managed: false (%s:%u:%u): the agent cannot create a "
		    "queue on an address it leaves alone",
		    q->name, a->name, a->policy.managed_at.path,
		    a->policy.managed_at.line, a->policy.managed_at.col);
}

static void
check_policies(const struct decl_cluster *c, struct errlist *diags)
{
	const struct decl_address *a;
	size_t i, j;

	for (i = 0; i < c->naddresses; i++) {
		a = &c->addresses[i];
		check_unmanaged_policy("address", a->name, &a->policy, diags);
		check_mode_policy(c, "address", a->name, &a->policy, diags);
		for (j = 0; j < a->nqueues; j++) {
			check_queue_policy(a, &a->queues[j], diags);
			check_mode_policy(c, "queue", a->queues[j].name,
			    &a->queues[j].policy, diags);
		}
	}
	for (i = 0; i < c->ndiverts; i++) {
		check_unmanaged_policy("divert", c->diverts[i].name,
		    &c->diverts[i].policy, diags);
		check_mode_policy(c, "divert", c->diverts[i].name,
		    &c->diverts[i].policy, diags);
	}
}

/* Whether a copy with routing type rt finds a queue on a. */
bool
decl_address_consumes(const struct decl_address *a, enum decl_divert_routing rt)
{
	size_t i;

	for (i = 0; i < a->nqueues; i++) {
		if (rt == DECL_DIVERT_ANYCAST &&
		    a->queues[i].routing != DECL_ANYCAST)
			continue;
		if (rt == DECL_DIVERT_MULTICAST &&
		    a->queues[i].routing != DECL_MULTICAST)
			continue;
		return true;
	}
	return false;
}

/* The "Nothing consumes at <address>" rule (issue 2, ADR-0084): an error
 * in STUDIO_MANAGED, a warning in CONFIG_MANAGED. */
static void
check_consumed(const struct decl_cluster *c, const struct decl_divert *d,
    const struct decl_address *t, struct errlist *diags)
{
	const char *why = "";

	if (decl_address_consumes(t, d->routing_type))
		return;
	if (t->nqueues > 0)
		why =
		    d->routing_type == DECL_DIVERT_ANYCAST
		        ? "; its copies are ANYCAST and the address has only "
		          "multicast queues"
		        : "; its copies are MULTICAST and the address has only "
		          "anycast queues";
	if (c->mode == DECL_STUDIO_MANAGED)
		errlist_add(diags, DIAG_ERROR, &d->pos,
		    "divert '%s' forwards to '%s': Nothing consumes at %s%s "
		    "(declare a queue on '%s' or remove the divert)",
		    d->name, t->name, t->name, why, t->name);
	else
		errlist_add(diags, DIAG_WARNING, &d->pos,
		    "divert '%s' forwards to '%s': Nothing consumes at %s%s; "
		    "the rendered broker.xml will carry the divert all the "
		    "same, and its copies are dropped until a queue is "
		    "declared on '%s'",
		    d->name, t->name, t->name, why, t->name);
}

static void
check_target(const struct decl_cluster *c, const struct decl_divert *d,
    const char *name, struct errlist *diags)
{
	const struct decl_address *t = decl_cluster_find_address(c, name);

	if (t == NULL)
		errlist_add(diags, DIAG_ERROR, &d->pos,
		    "divert '%s' forwards to address '%s', which is not "
		    "declared",
		    d->name, name);
	else
		check_consumed(c, d, t, diags);
}

/* Each comma-separated target of forwarding-address (Artemis trims them). */
static void
check_targets(const struct decl_cluster *c, const struct decl_divert *d,
    struct errlist *diags)
{
	const char *s = d->forwarding_address, *e;
	char *name;
	bool empty = false;

	for (;;) {
		size_t len;

		e = strchr(s, ',');
		len = e ? (size_t)(e - s) : strlen(s);
		while (len > 0 && isspace((unsigned char)*s)) {
			s++;
			len--;
		}
		while (len > 0 && isspace((unsigned char)s[len - 1]))
			len--;
		if (len == 0) {
			empty = true;
		} else {
			name = xstrndup(s, len);
			check_target(c, d, name, diags);
			free(name);
		}
		if (e == NULL)
			break;
		s = e + 1;
	}
	if (empty)
		errlist_add(diags, DIAG_ERROR, &d->pos,
		    "divert '%s' has an empty entry in 'forwarding-address' "
		    "('%s')",
		    d->name, d->forwarding_address);
}

static void
check_divert(const struct decl_cluster *c, const struct decl_divert *d,
    struct errlist *diags)
{
	check_prefix(c, "divert", d->name, &d->pos, diags);
	/* managed: false names a broker's divert the agent leaves alone:
	 * what it reads from and forwards to are not the agent's to check */
	if (d->policy.unmanaged)
		return;
	if (c->mode == DECL_CONFIG_MANAGED && !decl_is_ncname(d->name))
		errlist_add(diags, DIAG_ERROR, &d->pos,
		    "divert name '%s' is not an XML NCName, which broker.xml "
		    "needs in CONFIG_MANAGED (start with a letter or '_', then "
		    "letters, digits, '.', '-' or '_')",
		    d->name);
	if (d->ntransformer_properties > 0 && d->transformer_class_name == NULL)
		errlist_add(diags, DIAG_ERROR, &d->pos,
		    "divert '%s' has 'transformer-properties' but no "
		    "'transformer-class-name'",
		    d->name);
	if (decl_cluster_find_address(c, d->address) == NULL)
		errlist_add(diags, DIAG_ERROR, &d->pos,
		    "divert '%s' reads from address '%s', which is not "
		    "declared",
		    d->name, d->address);
	check_targets(c, d, diags);
}

static void
check_captures(const struct decl_cluster *c, struct errlist *diags)
{
	const struct decl_capture *cp;
	const char *p;
	size_t i;

	for (i = 0; i < c->ncaptures; i++) {
		cp = &c->captures[i];
		for (p = cp->name; *p != '\0'; p++)
			if (!isalnum((unsigned char)*p) && *p != '_' &&
			    *p != '-')
				break;
		if (*p != '\0' || strlen(cp->name) > DECL_NAME_MAX)
			errlist_add(diags, DIAG_ERROR, &cp->pos,
			    "capture name '%s' must be letters, digits, '_' "
			    "and '-' (it becomes part of the tap names "
			    "'%s%s.<address>')",
			    cp->name, c->settings.capture_prefix, cp->name);
	}
}

/* ---- address-settings, security-settings ------------------------------ */

static char
delimiter(const struct decl_cluster *c)
{
	const char *d = c->settings.wildcard_delimiter;

	if (d == NULL || d[0] == '\0')
		return '.';
	return d[0];
}

static void
check_match(const struct decl_cluster *c, const char *kind, const char *match,
    const struct pos *at, struct names *ns, struct errlist *diags)
{
	char *why = decl_match_problem(match, delimiter(c));

	if (why != NULL) {
		errlist_add(diags, DIAG_ERROR, at, "%s '%s' %s", kind, match,
		    why);
		free(why);
	}
	names_add(ns, match, kind, at);
}

/* A dead-letter or expiry address: declared, or the error (a warning in
 * CONFIG_MANAGED, whose broker.xml names it all the same). */
static void
check_settings_target(const struct decl_cluster *c,
    const struct decl_address_setting *as, const char *key, const char *name,
    const struct pos *at, struct errlist *diags)
{
	const char *what = strcmp(key, "expiry-address") == 0
	                       ? "expired messages"
	                       : "messages that reach max-delivery-attempts";

	if (name == NULL || decl_cluster_find_address(c, name) != NULL)
		return;
	if (c->mode == DECL_CONFIG_MANAGED)
		errlist_add(diags, DIAG_WARNING, at,
		    "address-settings '%s' names %s '%s', which is not "
		    "declared; the rendered broker.xml names it all the same, "
		    "and %s find no queue there unless the brokers have the "
		    "address otherwise",
		    as->match, key, name, what);
	else
		errlist_add(diags, DIAG_ERROR, at,
		    "address-settings '%s' names %s '%s', which is not "
		    "declared (declare the address and a queue on it, or "
		    "remove the key: %s would find no queue there)",
		    as->match, key, name, what);
}

static void
check_settings(const struct decl_cluster *c, struct errlist *diags)
{
	const struct decl_address_setting *as;
	const struct decl_security_setting *ss;
	struct names ns = {0};
	size_t i;

	for (i = 0; i < c->naddress_settings; i++) {
		as = &c->address_settings[i];
		check_match(c, "address-settings match", as->match,
		    &as->match_at, &ns, diags);
		check_settings_target(c, as, "dead-letter-address",
		    as->dead_letter_address, &as->dead_letter_at, diags);
		check_settings_target(c, as, "expiry-address",
		    as->expiry_address, &as->expiry_at, diags);
	}
	names_check(&ns, diags);
	/* STUDIO_MANAGED plans do not carry them yet (issue 25): said once
	 * per kind, so that a declared setting is never silently left
	 * alone */
	if (c->mode == DECL_STUDIO_MANAGED && c->naddress_settings > 0)
		errlist_add(diags, DIAG_WARNING, &c->address_settings[0].pos,
		    "address-settings are not applied in STUDIO_MANAGED by "
		    "this build: plan and apply leave the brokers' address "
		    "settings as they are (CONFIG_MANAGED renders them)");
	if (c->mode == DECL_STUDIO_MANAGED && c->nsecurity_settings > 0)
		errlist_add(diags, DIAG_WARNING, &c->security_settings[0].pos,
		    "security-settings are not applied in STUDIO_MANAGED by "
		    "this build: plan and apply leave the brokers' security "
		    "settings as they are (CONFIG_MANAGED renders them)");
	for (i = 0; i < c->nsecurity_settings; i++) {
		ss = &c->security_settings[i];
		check_match(c, "security-settings match", ss->match,
		    &ss->match_at, &ns, diags);
	}
	names_check(&ns, diags);
}

void
decl_check(const struct decl_cluster *c, struct errlist *diags)
{
	size_t i;

	check_unique(c, diags);
	check_queues(c, diags);
	check_policies(c, diags);
	for (i = 0; i < c->ndiverts; i++)
		check_divert(c, &c->diverts[i], diags);
	check_captures(c, diags);
	check_settings(c, diags);
}
