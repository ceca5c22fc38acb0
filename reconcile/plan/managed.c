/* reconcile/plan/managed.c: the managed set and
 * STATE/<cluster>/inventory.json (docs/state.md), read through lib/json. */
#include "plan-int.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/json.h"
#include "../../lib/jsonw.h"
#include "../../lib/strv.h"
#include "../../lib/xalloc.h"

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void
take_sorted(struct strv *s, char ***v, size_t *n)
{
	strv_sort(s);
	*v = s->v;
	*n = s->n;
	memset(s, 0, sizeof(*s));
}

/* The queues c protects with delete-if-empty, with their clauses. */
static void
die_from_decl(struct plan_managed *out, const struct decl_cluster *c)
{
	struct strv q = {0}, t = {0};
	char *text;
	size_t i, j;

	for (i = 0; i < c->naddresses; i++)
		for (j = 0; j < c->addresses[i].nqueues; j++) {
			text = decl_queue_delete_if_empty_text(c,
			    &c->addresses[i].queues[j]);
			if (text == NULL)
				continue;
			strv_add(&q, c->addresses[i].queues[j].name);
			strv_add(&t, text);
			free(text);
		}
	plan_delete_if_empty_sort(q.v, t.v, q.n);
	out->die_queues = q.v;
	out->die_texts = t.v;
	out->ndie = q.n;
}

void
plan_managed_from_decl(struct plan_managed *out, const struct decl_cluster *c,
    const char *source, const char *revision)
{
	struct strv a = {0}, q = {0}, d = {0}, k = {0};
	struct strv ra = {0}, rq = {0}, rd = {0}, pr = {0};
	const struct decl_address *da;
	const struct decl_queue *dq;
	size_t i, j;

	memset(out, 0, sizeof(*out));
	out->known = true;
	out->source = xstrdup(source);
	out->revision = revision != NULL ? xstrdup(revision) : NULL;
	/* managed: false objects are never the agent's (docs/policy.md) */
	for (i = 0; i < c->naddresses; i++) {
		da = &c->addresses[i];
		if (!da->policy.unmanaged)
			strv_add(&a, da->name);
		if (!da->policy.unmanaged && da->policy.deletion == DECL_RETAIN)
			strv_add(&ra, da->name);
		for (j = 0; j < da->nqueues; j++) {
			dq = &da->queues[j];
			if (dq->policy.unmanaged)
				continue;
			strv_add(&q, dq->name);
			if (dq->policy.deletion == DECL_RETAIN)
				strv_add(&rq, dq->name);
		}
	}
	for (i = 0; i < c->ndiverts; i++) {
		if (c->diverts[i].policy.unmanaged)
			continue;
		strv_add(&d, c->diverts[i].name);
		if (c->diverts[i].policy.deletion == DECL_RETAIN)
			strv_add(&rd, c->diverts[i].name);
	}
	for (i = 0; i < c->ncaptures; i++)
		strv_add(&k, c->captures[i].name);
	for (i = 0; i < c->settings.nprotect; i++)
		strv_add(&pr, c->settings.protect[i]);
	take_sorted(&a, &out->addresses, &out->naddresses);
	take_sorted(&q, &out->queues, &out->nqueues);
	take_sorted(&d, &out->diverts, &out->ndiverts);
	take_sorted(&k, &out->captures, &out->ncaptures);
	take_sorted(&ra, &out->retain_addresses, &out->nretain_addresses);
	take_sorted(&rq, &out->retain_queues, &out->nretain_queues);
	take_sorted(&rd, &out->retain_diverts, &out->nretain_diverts);
	take_sorted(&pr, &out->protect, &out->nprotect);
	die_from_decl(out, c);
}

static bool
has(char *const *v, size_t n, const char *name)
{
	return n > 0 && bsearch(&name, v, n, sizeof(*v), cmp_str) != NULL;
}

bool
plan_managed_has_address(const struct plan_managed *m, const char *n)
{
	return m != NULL && has(m->addresses, m->naddresses, n);
}

bool
plan_managed_has_queue(const struct plan_managed *m, const char *n)
{
	return m != NULL && has(m->queues, m->nqueues, n);
}

bool
plan_managed_has_divert(const struct plan_managed *m, const char *n)
{
	return m != NULL && has(m->diverts, m->ndiverts, n);
}

void
plan_managed_release(struct plan_managed *m)
{
	if (m == NULL)
		return;
	free(m->source);
	free(m->revision);
	strv_array_free(m->addresses, m->naddresses);
	strv_array_free(m->queues, m->nqueues);
	strv_array_free(m->diverts, m->ndiverts);
	strv_array_free(m->captures, m->ncaptures);
	strv_array_free(m->retain_addresses, m->nretain_addresses);
	strv_array_free(m->retain_queues, m->nretain_queues);
	strv_array_free(m->retain_diverts, m->nretain_diverts);
	strv_array_free(m->protect, m->nprotect);
	strv_array_free(m->die_queues, m->ndie);
	strv_array_free(m->die_texts, m->ndie);
	memset(m, 0, sizeof(*m));
}

char *
plan_inventory_render(const struct plan_managed *m, const char *cluster)
{
	struct sbuf b = {0};
	struct jsonw w;
	size_t i;

	sbuf_init(&b, SBUF_UNBOUNDED);
	jsonw_init(&w, &b, 2);
	jsonw_obj_begin(&w);
	jsonw_key_strs(&w, "addresses", m->addresses, m->naddresses);
	jsonw_key_strs(&w, "captures", m->captures, m->ncaptures);
	jsonw_key(&w, "cluster");
	jsonw_str(&w, cluster);
	if (m->ndie > 0) { /* absent when none: inventories before it */
		jsonw_key(&w, "delete_if_empty");
		jsonw_obj_begin(&w);
		for (i = 0; i < m->ndie; i++) {
			jsonw_key(&w, m->die_queues[i]);
			jsonw_str(&w, m->die_texts[i]);
		}
		jsonw_obj_end(&w);
	}
	jsonw_key_strs(&w, "diverts", m->diverts, m->ndiverts);
	jsonw_key(&w, "format");
	jsonw_int(&w, PLAN_INVENTORY_FORMAT);
	/* the policy only when set: an inventory without one is what it
	 * always was, and an older agent reads this one */
	if (m->nprotect > 0)
		jsonw_key_strs(&w, "protect", m->protect, m->nprotect);
	jsonw_key_strs(&w, "queues", m->queues, m->nqueues);
	if (m->nretain_addresses + m->nretain_queues + m->nretain_diverts > 0) {
		jsonw_key(&w, "retain");
		jsonw_obj_begin(&w);
		jsonw_key_strs(&w, "addresses", m->retain_addresses,
		    m->nretain_addresses);
		jsonw_key_strs(&w, "diverts", m->retain_diverts,
		    m->nretain_diverts);
		jsonw_key_strs(&w, "queues", m->retain_queues,
		    m->nretain_queues);
		jsonw_obj_end(&w);
	}
	jsonw_key(&w, "revision");
	jsonw_str(&w, m->revision);
	jsonw_obj_end(&w);
	sbuf_addc(&b, '\n');
	return sbuf_take(&b);
}

static int
parse_names(const struct json *root, const char *path, const char *key,
    char ***v, size_t *n, struct err *err)
{
	const struct json *arr = json_get(root, key), *it;
	struct strv s = {0};

	if (!json_is_array(arr))
		return err_setf(err, &(struct pos){path, 0, 0},
		    "'%s': expected an array of names", key);
	for (it = json_first(arr); it != NULL; it = json_next(it)) {
		if (!json_is_string(it)) {
			strv_release(&s);
			return err_setf(err, &(struct pos){path, 0, 0},
			    "'%s': expected an array of names", key);
		}
		strv_add(&s, json_str(it));
	}
	take_sorted(&s, v, n);
	return 0;
}

/* The optional policy members (docs/state.md): protect, retain. */
static int
parse_policy(struct plan_managed *m, const struct json *root, const char *path,
    struct err *err)
{
	const struct json *r = json_get(root, "retain");

	if (json_get(root, "protect") != NULL &&
	    parse_names(root, path, "protect", &m->protect, &m->nprotect, err) <
	        0)
		return -1;
	if (r == NULL)
		return 0;
	if (!json_is_object(r))
		return err_setf(err, &(struct pos){path, 0, 0},
		    "'retain': expected an object of name arrays");
	if (parse_names(r, path, "addresses", &m->retain_addresses,
	        &m->nretain_addresses, err) < 0 ||
	    parse_names(r, path, "queues", &m->retain_queues,
	        &m->nretain_queues, err) < 0 ||
	    parse_names(r, path, "diverts", &m->retain_diverts,
	        &m->nretain_diverts, err) < 0)
		return -1;
	return 0;
}

/* delete_if_empty: absent (none), or an object of queue names to the
 * clause that protects each. */
static int
parse_die(struct plan_managed *m, const struct json *root, const char *path,
    struct err *err)
{
	const struct json *o = json_get(root, "delete_if_empty"), *it;
	struct strv q = {0}, t = {0};

	if (o == NULL)
		return 0;
	if (!json_is_object(o))
		return err_setf(err, &(struct pos){path, 0, 0},
		    "'delete_if_empty': expected an object of queue names to strings");
	for (it = json_first(o); it != NULL; it = json_next(it)) {
		if (!json_is_string(it)) {
			strv_release(&q);
			strv_release(&t);
			return err_setf(err, &(struct pos){path, 0, 0},
			    "'delete_if_empty': expected an object of queue names to strings");
		}
		strv_add(&q, json_key(it));
		strv_add(&t, json_str(it));
	}
	plan_delete_if_empty_sort(q.v, t.v, q.n);
	m->die_queues = q.v;
	m->die_texts = t.v;
	m->ndie = q.n;
	return 0;
}

static int
parse_root(struct plan_managed *m, const struct json *root, const char *path,
    const char *cluster, struct err *err)
{
	const struct json *r = json_get(root, "revision");
	const char *c = json_str(json_get(root, "cluster"));
	struct pos pos = {path, 0, 0};
	int64_t f = 0;

	if (json_int(json_get(root, "format"), &f) < 0 ||
	    f != PLAN_INVENTORY_FORMAT)
		return err_setf(err, &pos, "'format': expected %d",
		    PLAN_INVENTORY_FORMAT);
	if (c == NULL || strcmp(c, cluster) != 0)
		return err_setf(err, &pos, "'cluster': expected '%s'", cluster);
	if (r != NULL && !json_is_null(r) && !json_is_string(r))
		return err_setf(err, &pos,
		    "'revision': expected a string or null");
	if (json_is_string(r))
		m->revision = xstrdup(json_str(r));
	if (parse_names(root, path, "addresses", &m->addresses, &m->naddresses,
	        err) < 0 ||
	    parse_names(root, path, "queues", &m->queues, &m->nqueues, err) <
	        0 ||
	    parse_names(root, path, "diverts", &m->diverts, &m->ndiverts, err) <
	        0 ||
	    parse_names(root, path, "captures", &m->captures, &m->ncaptures,
	        err) < 0)
		return -1;
	if (parse_policy(m, root, path, err) < 0)
		return -1;
	return parse_die(m, root, path, err);
}

int
plan_inventory_parse(struct plan_managed *out, const char *path,
    const char *text, size_t len, const char *cluster, struct err *err)
{
	struct plan_managed m = {0};
	struct json_doc *doc = NULL;
	int rc;

	if (json_parse(&doc, path, text, len, err) < 0)
		return -1;
	if (!json_is_object(json_doc_root(doc))) {
		json_doc_free(doc);
		return err_setf(err, &(struct pos){path, 0, 0},
		    "not a JSON object");
	}
	m.known = true;
	m.source = xstrdup("inventory");
	rc = parse_root(&m, json_doc_root(doc), path, cluster, err);
	json_doc_free(doc);
	if (rc < 0) {
		plan_managed_release(&m);
		return -1;
	}
	*out = m;
	return 0;
}
