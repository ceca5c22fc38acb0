/* reconcile/plan/policy-json.c: plan.json's `policy` member (docs/policy.md,
 * docs/plan-format.md): written only when the plan has any of it, so a
 * plan without a policy is what it always was; read back for apply. */
#include "plan-int.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/json.h"
#include "../../lib/jsonw.h"
#include "../../lib/strv.h"
#include "../../lib/xalloc.h"

/* policy.changes: absent when none (the plans written before it). */
static void
changes_json(struct jsonw *w, const struct plan *p)
{
	const struct plan_policy_change *c;
	size_t i;

	if (p->npolicy_changes == 0)
		return;
	jsonw_key(w, "changes");
	jsonw_arr_begin(w);
	for (i = 0; i < p->npolicy_changes; i++) {
		c = &p->policy_changes[i];
		jsonw_obj_begin(w);
		jsonw_key_str(w, "at", c->at);
		jsonw_key_str(w, "effect", c->effect);
		jsonw_key_str(w, "from", c->from);
		jsonw_key_str(w, "kind", c->kind);
		jsonw_key_bool(w, "lifts", c->lifts);
		jsonw_key_str(w, "name", c->name);
		jsonw_key_str(w, "setting", c->setting);
		jsonw_key_str(w, "to", c->to);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

bool
plan_has_policy(const struct plan *p)
{
	return p->nprotect + p->nretained_diverts + p->nforgotten +
	           p->nprotected_hits + p->ndeclared_unmanaged +
	           p->npolicy_changes + p->ncapture_skipped >
	       0;
}

void
plan_policy_json(struct jsonw *w, const struct plan *p)
{
	size_t i;

	if (!plan_has_policy(p))
		return;
	jsonw_key(w, "policy");
	jsonw_obj_begin(w);
	/* absent when none (the plans written before it) */
	if (p->ncapture_skipped > 0)
		jsonw_key_strs(w, "capture_skipped", p->capture_skipped,
		    p->ncapture_skipped);
	changes_json(w, p);
	jsonw_key(w, "forgotten");
	jsonw_arr_begin(w);
	for (i = 0; i < p->nforgotten; i++) {
		jsonw_obj_begin(w);
		jsonw_key_str(w, "kind", p->forgotten[i].kind);
		jsonw_key_str(w, "name", p->forgotten[i].name);
		jsonw_key_str(w, "reason", p->forgotten[i].reason);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_key_strs(w, "protect", p->protect, p->nprotect);
	jsonw_key(w, "protected");
	jsonw_arr_begin(w);
	for (i = 0; i < p->nprotected_hits; i++) {
		jsonw_obj_begin(w);
		jsonw_key_str(w, "kind", p->protected_hits[i].kind);
		jsonw_key_str(w, "name", p->protected_hits[i].name);
		jsonw_key_str(w, "pattern", p->protected_hits[i].pattern);
		jsonw_key_str(w, "why", p->protected_hits[i].why);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_key_strs(w, "retained_diverts", p->retained_diverts,
	    p->nretained_diverts);
	jsonw_key(w, "unmanaged_by_declaration");
	jsonw_arr_begin(w);
	for (i = 0; i < p->ndeclared_unmanaged; i++) {
		jsonw_obj_begin(w);
		jsonw_key_str(w, "kind", p->declared_unmanaged[i].kind);
		jsonw_key_str(w, "name", p->declared_unmanaged[i].name);
		jsonw_key_strs(w, "nodes", p->declared_unmanaged[i].nodes,
		    p->declared_unmanaged[i].nnodes);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_obj_end(w);
}

static int
pforgotten(struct json_reader *c, const struct json *o, struct plan *p)
{
	const struct json *arr, *it;
	struct plan_forgotten *f;
	size_t n = 0;

	arr = json_read_array(c, o, "policy", "forgotten", &n);
	if (arr == NULL)
		return -1;
	p->forgotten = xcalloc(n + 1, sizeof(*p->forgotten));
	for (it = json_first(arr); it != NULL; it = json_next(it)) {
		f = &p->forgotten[p->nforgotten++];
		if (json_read_str(c, it, "policy.forgotten[]", "kind", false,
		        &f->kind) < 0 ||
		    json_read_str(c, it, "policy.forgotten[]", "name", false,
		        &f->name) < 0 ||
		    json_read_str(c, it, "policy.forgotten[]", "reason", false,
		        &f->reason) < 0)
			return -1;
	}
	return 0;
}

static int
pprotected(struct json_reader *c, const struct json *o, struct plan *p)
{
	const struct json *arr, *it;
	struct plan_protected *h;
	size_t n = 0;

	arr = json_read_array(c, o, "policy", "protected", &n);
	if (arr == NULL)
		return -1;
	p->protected_hits = xcalloc(n + 1, sizeof(*p->protected_hits));
	for (it = json_first(arr); it != NULL; it = json_next(it)) {
		h = &p->protected_hits[p->nprotected_hits++];
		if (json_read_str(c, it, "policy.protected[]", "kind", false,
		        &h->kind) < 0 ||
		    json_read_str(c, it, "policy.protected[]", "name", false,
		        &h->name) < 0 ||
		    json_read_str(c, it, "policy.protected[]", "pattern", false,
		        &h->pattern) < 0 ||
		    json_read_str(c, it, "policy.protected[]", "why", false,
		        &h->why) < 0)
			return -1;
	}
	return 0;
}

static int
pchanges(struct json_reader *c, const struct json *o, struct plan *p)
{
	const struct json *arr, *it;
	struct plan_policy_change *x;
	const char *w = "policy.changes[]";
	size_t n = 0;

	if (json_get(o, "changes") == NULL)
		return 0;
	arr = json_read_array(c, o, "policy", "changes", &n);
	if (arr == NULL)
		return -1;
	p->policy_changes = xcalloc(n + 1, sizeof(*p->policy_changes));
	for (it = json_first(arr); it != NULL; it = json_next(it)) {
		x = &p->policy_changes[p->npolicy_changes++];
		if (json_read_str(c, it, w, "at", true, &x->at) < 0 ||
		    json_read_str(c, it, w, "effect", false, &x->effect) < 0 ||
		    json_read_str(c, it, w, "from", false, &x->from) < 0 ||
		    json_read_str(c, it, w, "kind", false, &x->kind) < 0 ||
		    json_read_bool(c, it, w, "lifts", &x->lifts) < 0 ||
		    json_read_str(c, it, w, "name", false, &x->name) < 0 ||
		    json_read_str(c, it, w, "setting", false, &x->setting) <
		        0 ||
		    json_read_str(c, it, w, "to", false, &x->to) < 0)
			return -1;
	}
	return 0;
}

static int
punmanaged(struct json_reader *c, const struct json *o, struct plan *p)
{
	const struct json *arr, *it;
	struct plan_unmanaged *u;
	size_t n = 0;

	arr = json_read_array(c, o, "policy", "unmanaged_by_declaration", &n);
	if (arr == NULL)
		return -1;
	p->declared_unmanaged = xcalloc(n + 1, sizeof(*p->declared_unmanaged));
	for (it = json_first(arr); it != NULL; it = json_next(it)) {
		u = &p->declared_unmanaged[p->ndeclared_unmanaged++];
		if (json_read_str(c, it, "policy.unmanaged_by_declaration[]",
		        "kind", false, &u->kind) < 0 ||
		    json_read_str(c, it, "policy.unmanaged_by_declaration[]",
		        "name", false, &u->name) < 0 ||
		    json_read_strings(c, it,
		        "policy.unmanaged_by_declaration[]", "nodes", &u->nodes,
		        &u->nnodes) < 0)
			return -1;
	}
	return 0;
}

int
plan_policy_parse(struct json_reader *c, const struct json *root,
    struct plan *p)
{
	const struct json *o;

	if (json_get(root, "policy") == NULL)
		return 0;
	o = json_read_object(c, root, "", "policy", false);
	if (o == NULL ||
	    json_read_strings(c, o, "policy", "protect", &p->protect,
	        &p->nprotect) < 0 ||
	    json_read_strings(c, o, "policy", "retained_diverts",
	        &p->retained_diverts, &p->nretained_diverts) < 0 ||
	    pforgotten(c, o, p) < 0 || pprotected(c, o, p) < 0 ||
	    punmanaged(c, o, p) < 0 || pchanges(c, o, p) < 0 ||
	    (json_get(o, "capture_skipped") != NULL &&
	        json_read_strings(c, o, "policy", "capture_skipped",
	            &p->capture_skipped, &p->ncapture_skipped) < 0))
		return -1;
	return 0;
}

static void
change_release(struct plan_policy_change *c)
{
	free(c->setting);
	free(c->kind);
	free(c->name);
	free(c->from);
	free(c->to);
	free(c->at);
	free(c->effect);
}

void
plan_policy_release(struct plan *p)
{
	size_t i;

	strv_array_free(p->protect, p->nprotect);
	strv_array_free(p->retained_diverts, p->nretained_diverts);
	for (i = 0; i < p->nforgotten; i++) {
		free(p->forgotten[i].kind);
		free(p->forgotten[i].name);
		free(p->forgotten[i].reason);
	}
	free(p->forgotten);
	for (i = 0; i < p->nprotected_hits; i++) {
		free(p->protected_hits[i].kind);
		free(p->protected_hits[i].name);
		free(p->protected_hits[i].pattern);
		free(p->protected_hits[i].why);
	}
	free(p->protected_hits);
	for (i = 0; i < p->ndeclared_unmanaged; i++) {
		free(p->declared_unmanaged[i].kind);
		free(p->declared_unmanaged[i].name);
		strv_array_free(p->declared_unmanaged[i].nodes,
		    p->declared_unmanaged[i].nnodes);
	}
	free(p->declared_unmanaged);
	for (i = 0; i < p->npolicy_changes; i++)
		change_release(&p->policy_changes[i]);
	free(p->policy_changes);
}
