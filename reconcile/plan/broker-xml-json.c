/* reconcile/plan/broker-xml-json.c: the broker_xml member of plan.json (a
 * CONFIG_MANAGED plan's rendered files, diffs and reload predictions),
 * written canonically and parsed back to the same bytes. Its layout is in
 * docs/plan-format.md. */
#include "plan-int.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/json.h"
#include "../../lib/jsonw.h"
#include "../../lib/xalloc.h"

static const char *const effects[] = {"adds", "updates", "keeps", "removes"};
static const char *const objects[] = {"address", "queue", "divert"};

static void
reload_json(struct jsonw *w, const struct plan_reload *r)
{
	const struct plan_reload_item *it;
	size_t i;

	jsonw_obj_begin(w);
	jsonw_key(w, "items");
	jsonw_arr_begin(w);
	for (i = 0; i < r->n; i++) {
		it = &r->items[i];
		jsonw_obj_begin(w);
		jsonw_key_str(w, "address", it->address);
		jsonw_key_str(w, "detail", it->detail);
		jsonw_key_str(w, "effect", effects[it->effect]);
		jsonw_key(w, "messages");
		jsonw_int(w, it->messages);
		jsonw_key_str(w, "name", it->name);
		jsonw_key_str(w, "object", objects[it->object]);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_key(w, "messages_lost");
	jsonw_int(w, r->messages_lost);
	jsonw_key(w, "settings");
	jsonw_obj_begin(w);
	jsonw_key_str(w, "addresses", r->settings.addresses);
	jsonw_key_str(w, "diverts", r->settings.diverts);
	jsonw_key_str(w, "queues", r->settings.queues);
	jsonw_obj_end(w);
	jsonw_key(w, "settings_from_file");
	jsonw_bool(w, r->settings_from_file);
	jsonw_key(w, "uncertain");
	jsonw_bool(w, r->uncertain);
	jsonw_obj_end(w);
}

static void
node_json(struct jsonw *w, const struct plan_broker_xml *bx)
{
	size_t i;

	jsonw_obj_begin(w);
	jsonw_key(w, "carried_diverts");
	jsonw_arr_begin(w);
	for (i = 0; i < bx->ncarried; i++)
		jsonw_str(w, bx->carried_diverts[i]);
	jsonw_arr_end(w);
	jsonw_key_str(w, "diff", bx->diff);
	jsonw_key_str(w, "node", bx->node);
	jsonw_key_str(w, "not_predicted", bx->not_predicted);
	jsonw_key_str(w, "path", bx->path);
	jsonw_key(w, "reload");
	if (bx->predicted)
		reload_json(w, &bx->reload);
	else
		jsonw_null(w);
	jsonw_key_str(w, "sha256", bx->sha256);
	jsonw_obj_end(w);
}

void
plan_broker_xml_json(struct jsonw *w, const struct plan *p)
{
	size_t i;

	if (p->broker_xml_before == NULL)
		return;
	jsonw_key(w, "broker_xml");
	jsonw_obj_begin(w);
	jsonw_key_str(w, "before", p->broker_xml_before);
	jsonw_key(w, "nodes");
	jsonw_arr_begin(w);
	for (i = 0; i < p->nbroker_xml; i++)
		node_json(w, &p->broker_xml[i]);
	jsonw_arr_end(w);
	jsonw_obj_end(w);
}

static int
pname(struct json_reader *c, const struct json *o, const char *w,
    const char *key, const char *const *names, size_t n, int *out)
{
	char *s = NULL;
	size_t i;

	if (json_read_str(c, o, w, key, false, &s) < 0)
		return -1;
	for (i = 0; i < n && strcmp(names[i], s) != 0; i++)
		;
	free(s);
	if (i == n)
		return json_read_fail(c, w, key, "unknown value");
	*out = (int)i;
	return 0;
}

static int
pitem(struct json_reader *c, const struct json *o, struct plan_reload_item *it)
{
	const char *w = "broker_xml.nodes[].reload.items[]";
	int e = 0, k = 0;

	if (pname(c, o, w, "effect", effects, 4, &e) < 0 ||
	    pname(c, o, w, "object", objects, 3, &k) < 0 ||
	    json_read_str(c, o, w, "name", false, &it->name) < 0 ||
	    json_read_str(c, o, w, "address", true, &it->address) < 0 ||
	    json_read_str(c, o, w, "detail", true, &it->detail) < 0 ||
	    json_read_int(c, o, w, "messages", &it->messages) < 0)
		return -1;
	it->effect = (enum plan_reload_effect)e;
	it->object = (enum plan_reload_object)k;
	return 0;
}

static int
preload(struct json_reader *c, const struct json *o, struct plan_broker_xml *bx)
{
	const char *w = "broker_xml.nodes[].reload";
	const struct json *arr, *s, *it;
	char *set[3] = {NULL, NULL, NULL};
	size_t n = 0;
	int rc = -1;

	bx->reload.node = xstrdup(bx->node);
	/* reload.n counts items only once they are allocated: a plan that
	 * fails below is freed with it */
	arr = json_read_array(c, o, w, "items", &n);
	s = json_read_object(c, o, w, "settings", false);
	if (arr == NULL || s == NULL ||
	    json_read_int(c, o, w, "messages_lost", &bx->reload.messages_lost) <
	        0 ||
	    json_read_bool(c, o, w, "settings_from_file",
	        &bx->reload.settings_from_file) < 0 ||
	    json_read_bool(c, o, w, "uncertain", &bx->reload.uncertain) < 0 ||
	    json_read_str(c, s, w, "addresses", true, &set[0]) < 0 ||
	    json_read_str(c, s, w, "queues", true, &set[1]) < 0 ||
	    json_read_str(c, s, w, "diverts", true, &set[2]) < 0)
		goto done;
	plan_broker_xml_set_settings(bx, set[0], set[1], set[2]);
	bx->reload.items = xcalloc(n + 1, sizeof(*bx->reload.items));
	for (it = json_first(arr); it != NULL; it = json_next(it)) {
		if (pitem(c, it, &bx->reload.items[bx->reload.n++]) < 0)
			goto done;
	}
	rc = 0;
done:
	free(set[0]);
	free(set[1]);
	free(set[2]);
	return rc;
}

static int
pnode(struct json_reader *c, const struct json *o, struct plan_broker_xml *bx)
{
	const char *w = "broker_xml.nodes[]";
	const struct json *r;

	if (json_read_str(c, o, w, "node", false, &bx->node) < 0 ||
	    json_read_str(c, o, w, "path", false, &bx->path) < 0 ||
	    json_read_str(c, o, w, "sha256", false, &bx->sha256) < 0 ||
	    json_read_str(c, o, w, "diff", true, &bx->diff) < 0 ||
	    json_read_str(c, o, w, "not_predicted", true, &bx->not_predicted) <
	        0 ||
	    json_read_strings(c, o, w, "carried_diverts", &bx->carried_diverts,
	        &bx->ncarried) < 0)
		return -1;
	r = json_read_object(c, o, w, "reload", true);
	if (r == NULL)
		return -1;
	if (json_is_null(r))
		return 0;
	bx->predicted = true;
	return preload(c, r, bx);
}

int
plan_broker_xml_parse(struct json_reader *c, const struct json *root,
    struct plan *p)
{
	const struct json *b, *arr, *it;
	size_t n = 0;

	if (json_get(root, "broker_xml") == NULL)
		return 0;
	b = json_read_object(c, root, "", "broker_xml", false);
	if (b == NULL || json_read_str(c, b, "broker_xml", "before", false,
	                     &p->broker_xml_before) < 0)
		return -1;
	arr = json_read_array(c, b, "broker_xml", "nodes", &n);
	if (arr == NULL)
		return -1;
	p->broker_xml = xcalloc(n + 1, sizeof(*p->broker_xml));
	for (it = json_first(arr); it != NULL; it = json_next(it)) {
		if (pnode(c, it, &p->broker_xml[p->nbroker_xml++]) < 0)
			return -1;
	}
	return 0;
}
