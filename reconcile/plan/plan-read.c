/* reconcile/plan/plan-read.c: strict readers of JSON members for plan.json
 * (reconcile/plan-parse.c): each names the member by its path on error. */
#include "plan-read.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/xalloc.h"

int
plan_read_fail(struct plan_reader *c, const char *where, const char *key,
    const char *what)
{
	return err_setf(c->err, &(struct pos){c->path, 0, 0}, "%s%s%s: %s",
	    where, where[0] != '\0' ? "." : "", key, what);
}

const cJSON *
plan_read_member(struct plan_reader *c, const cJSON *o, const char *where,
    const char *key)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, key);

	if (m == NULL)
		plan_read_fail(c, where, key, "missing");
	return m;
}

/* A string member; NULL allowed when nullable. */
int
plan_read_str(struct plan_reader *c, const cJSON *o, const char *where,
    const char *key, bool nullable, char **out)
{
	const cJSON *m = plan_read_member(c, o, where, key);

	if (m == NULL)
		return -1;
	if (nullable && cJSON_IsNull(m)) {
		*out = NULL;
		return 0;
	}
	if (!cJSON_IsString(m))
		return plan_read_fail(c, where, key,
		    nullable ? "expected a string or null"
		             : "expected a string");
	*out = xstrdup(m->valuestring);
	return 0;
}

int
plan_read_int(struct plan_reader *c, const cJSON *o, const char *where,
    const char *key, int64_t *out)
{
	const cJSON *m = plan_read_member(c, o, where, key);

	if (m == NULL)
		return -1;
	if (!cJSON_IsNumber(m) || m->valuedouble != floor(m->valuedouble) ||
	    fabs(m->valuedouble) > 9007199254740992.0)
		return plan_read_fail(c, where, key, "expected an integer");
	*out = (int64_t)m->valuedouble;
	return 0;
}

int
plan_read_bool(struct plan_reader *c, const cJSON *o, const char *where,
    const char *key, bool *out)
{
	const cJSON *m = plan_read_member(c, o, where, key);

	if (m == NULL)
		return -1;
	if (!cJSON_IsBool(m))
		return plan_read_fail(c, where, key, "expected a boolean");
	*out = cJSON_IsTrue(m);
	return 0;
}

const cJSON *
plan_read_array(struct plan_reader *c, const cJSON *o, const char *where,
    const char *key, size_t *n)
{
	const cJSON *m = plan_read_member(c, o, where, key);

	if (m == NULL)
		return NULL;
	if (!cJSON_IsArray(m)) {
		plan_read_fail(c, where, key, "expected an array");
		return NULL;
	}
	*n = (size_t)cJSON_GetArraySize(m);
	return m;
}

const cJSON *
plan_read_object(struct plan_reader *c, const cJSON *o, const char *where,
    const char *key, bool nullable)
{
	const cJSON *m = plan_read_member(c, o, where, key);

	if (m == NULL)
		return NULL;
	if (nullable && cJSON_IsNull(m))
		return m;
	if (!cJSON_IsObject(m)) {
		plan_read_fail(c, where, key, "expected an object");
		return NULL;
	}
	return m;
}

int
plan_read_strings(struct plan_reader *c, const cJSON *o, const char *where,
    const char *key, char ***out, size_t *n)
{
	const cJSON *a = plan_read_array(c, o, where, key, n), *it;
	size_t i = 0;

	if (a == NULL)
		return -1;
	*out = xcalloc(*n + 1, sizeof(char *));
	cJSON_ArrayForEach(it, a)
	{
		if (!cJSON_IsString(it)) {
			*n = i;
			return plan_read_fail(c, where, key,
			    "expected an array of strings");
		}
		(*out)[i++] = xstrdup(it->valuestring);
	}
	return 0;
}

int
plan_read_routing(struct plan_reader *c, const cJSON *o, const char *where,
    const char *key, unsigned *out)
{
	const cJSON *a, *it;
	size_t n;

	a = plan_read_array(c, o, where, key, &n);
	if (a == NULL)
		return -1;
	*out = 0;
	cJSON_ArrayForEach(it, a)
	{
		if (cJSON_IsString(it) &&
		    strcmp(it->valuestring, "ANYCAST") == 0)
			*out |= DECL_ANYCAST;
		else if (cJSON_IsString(it) &&
		         strcmp(it->valuestring, "MULTICAST") == 0)
			*out |= DECL_MULTICAST;
		else
			return plan_read_fail(c, where, key,
			    "expected ANYCAST or MULTICAST");
	}
	return 0;
}

/* An optional string member (absent = NULL). */
int
plan_read_optional(struct plan_reader *c, const cJSON *o, const char *where,
    const char *key, char **out)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, key);

	*out = NULL;
	if (m == NULL)
		return 0;
	if (!cJSON_IsString(m))
		return plan_read_fail(c, where, key, "expected a string");
	*out = xstrdup(m->valuestring);
	return 0;
}

/* The createQueue JSON of plan-json.c. */
int
plan_read_queue(struct plan_reader *c, const cJSON *o, const char *w,
    struct recon_queue *q)
{
	char *rt = NULL;
	int rc = -1;

	memset(q, 0, sizeof(*q));
	if (plan_read_str(c, o, w, "address", false, &q->address) < 0 ||
	    plan_read_int(c, o, w, "consumers-before-dispatch",
	        &q->consumers_before_dispatch) < 0 ||
	    plan_read_int(c, o, w, "delay-before-dispatch",
	        &q->delay_before_dispatch) < 0 ||
	    plan_read_bool(c, o, w, "durable", &q->durable) < 0 ||
	    plan_read_bool(c, o, w, "enabled", &q->enabled) < 0 ||
	    plan_read_bool(c, o, w, "exclusive", &q->exclusive) < 0 ||
	    plan_read_optional(c, o, w, "filter-string", &q->filter) < 0 ||
	    plan_read_optional(c, o, w, "last-value-key", &q->last_value_key) <
	        0 ||
	    plan_read_int(c, o, w, "max-consumers", &q->max_consumers) < 0 ||
	    plan_read_str(c, o, w, "name", false, &q->name) < 0 ||
	    plan_read_bool(c, o, w, "purge-on-no-consumers",
	        &q->purge_on_no_consumers) < 0 ||
	    plan_read_int(c, o, w, "ring-size", &q->ring_size) < 0 ||
	    plan_read_str(c, o, w, "routing-type", false, &rt) < 0)
		goto done;
	if (rt != NULL && strcmp(rt, "ANYCAST") == 0)
		q->routing = DECL_ANYCAST;
	else if (rt != NULL && strcmp(rt, "MULTICAST") == 0)
		q->routing = DECL_MULTICAST;
	else {
		plan_read_fail(c, w, "routing-type",
		    "expected ANYCAST or MULTICAST");
		goto done;
	}
	rc = 0;
done:
	free(rt);
	return rc;
}

int
plan_read_transformer(struct plan_reader *c, const cJSON *o, const char *w,
    struct recon_divert *d)
{
	const cJSON *t =
	    cJSON_GetObjectItemCaseSensitive(o, "transformer-configuration");
	const cJSON *props, *it;
	size_t i = 0;

	if (t == NULL)
		return 0;
	if (plan_read_str(c, t, w, "class-name", false,
	        &d->transformer_class_name) < 0)
		return -1;
	props = plan_read_object(c, t, w, "properties", false);
	if (props == NULL)
		return -1;
	d->ntransformer_properties = (size_t)cJSON_GetArraySize(props);
	d->transformer_properties =
	    xcalloc(d->ntransformer_properties + 1, sizeof(struct decl_kv));
	cJSON_ArrayForEach(it, props)
	{
		if (!cJSON_IsString(it)) {
			d->ntransformer_properties = i;
			return plan_read_fail(c, w, "transformer-configuration",
			    "property values must be strings");
		}
		d->transformer_properties[i].key = xstrdup(it->string);
		d->transformer_properties[i].value = xstrdup(it->valuestring);
		i++;
	}
	return 0;
}

/* The createDivert JSON of plan-json.c. */
int
plan_read_divert(struct plan_reader *c, const cJSON *o, const char *w,
    struct recon_divert *d)
{
	char *rt = NULL;
	int rc = -1;

	memset(d, 0, sizeof(*d));
	if (plan_read_str(c, o, w, "address", false, &d->address) < 0 ||
	    plan_read_bool(c, o, w, "exclusive", &d->exclusive) < 0 ||
	    plan_read_str(c, o, w, "filter-string", false, &d->filter) < 0 ||
	    plan_read_str(c, o, w, "forwarding-address", false,
	        &d->forwarding_address) < 0 ||
	    plan_read_str(c, o, w, "name", false, &d->name) < 0 ||
	    plan_read_str(c, o, w, "routing-name", true, &d->routing_name) <
	        0 ||
	    plan_read_str(c, o, w, "routing-type", false, &rt) < 0 ||
	    plan_read_transformer(c, o, w, d) < 0)
		goto done;
	if (d->filter[0] == '\0') {
		free(d->filter);
		d->filter = NULL;
	}
	if (decl_divert_routing_parse(rt, &d->routing_type) < 0) {
		plan_read_fail(c, w, "routing-type",
		    "expected STRIP, PASS, ANYCAST or MULTICAST");
		goto done;
	}
	rc = 0;
done:
	free(rt);
	return rc;
}
