/* reconcile/plan-model.c: names of the plan's enums, copies of snapshot
 * objects, and freeing plans. */
#include "plan-int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/xalloc.h"

static const char *const act_names[RECON_ACT_COUNT] = {
    "create-address",
    "widen-address",
    "create-queue",
    "create-divert",
    "change-queue",
    "change-divert",
    "recreate-queue",
    "recreate-divert",
    "delete-divert",
    "delete-queue",
    "narrow-address",
    "delete-address",
    "create-capture",
    "change-capture",
    "create-tap",
    "change-tap",
    "delete-tap",
    "delete-capture",
};

static const char *const outcome_names[] = {"NO_CHANGE", "WOULD_APPLY",
    "REFUSED", "UNREACHABLE"};

static const char *const opk_names[] = {"createAddress", "updateAddress",
    "createQueue", "updateQueue", "destroyQueue", "createDivert",
    "updateDivert", "destroyDivert", "deleteAddress"};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static int
name_index(const char *const *names, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(names[i], s) == 0)
			return (int)i;
	return -1;
}

const char *
recon_act_name(enum recon_act a)
{
	return (unsigned)a < RECON_ACT_COUNT ? act_names[a] : "?";
}

int
recon_act_parse(const char *s, enum recon_act *out)
{
	int i = name_index(act_names, NELEM(act_names), s);

	if (i < 0)
		return -1;
	*out = (enum recon_act)i;
	return 0;
}

const char *
recon_outcome_name(enum recon_outcome o)
{
	return (unsigned)o < NELEM(outcome_names) ? outcome_names[o] : "?";
}

int
recon_outcome_parse(const char *s, enum recon_outcome *out)
{
	int i = name_index(outcome_names, NELEM(outcome_names), s);

	if (i < 0)
		return -1;
	*out = (enum recon_outcome)i;
	return 0;
}

const char *
recon_opk_name(enum recon_opk k)
{
	return (unsigned)k < NELEM(opk_names) ? opk_names[k] : "?";
}

int
recon_opk_parse(const char *s, enum recon_opk *out)
{
	int i = name_index(opk_names, NELEM(opk_names), s);

	if (i < 0)
		return -1;
	*out = (enum recon_opk)i;
	return 0;
}

void
recon_strv_add(struct recon_strv *s, const char *str)
{
	xgrow(&s->v, &s->cap, s->n + 1, sizeof(*s->v));
	s->v[s->n++] = xstrdup(str);
}

void
recon_strv_addf(struct recon_strv *s, const char *fmt, ...)
{
	va_list ap;
	char *str;

	va_start(ap, fmt);
	if (vasprintf(&str, fmt, ap) < 0)
		str = NULL;
	va_end(ap);
	if (str == NULL)
		str = xstrdup("?");
	xgrow(&s->v, &s->cap, s->n + 1, sizeof(*s->v));
	s->v[s->n++] = str;
}

bool
recon_names_has(const char *const *v, size_t n, const char *str)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(v[i], str) == 0)
			return true;
	return false;
}

bool
recon_strv_has(const struct recon_strv *s, const char *str)
{
	return recon_names_has((const char *const *)s->v, s->n, str);
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void
recon_strv_sort(struct recon_strv *s)
{
	if (s->n > 1)
		qsort(s->v, s->n, sizeof(*s->v), cmp_str);
}

void
recon_strv_release(struct recon_strv *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

static char *
dup_or_null(const char *s)
{
	return s != NULL ? xstrdup(s) : NULL;
}

struct recon_queue *
recon_queue_dup(const struct recon_queue *q)
{
	struct recon_queue *c = xmalloc(sizeof(*c));

	*c = *q;
	c->name = dup_or_null(q->name);
	c->address = dup_or_null(q->address);
	c->filter = dup_or_null(q->filter);
	c->last_value_key = dup_or_null(q->last_value_key);
	return c;
}

void
recon_queue_clear(struct recon_queue *q)
{
	if (q == NULL)
		return;
	free(q->name);
	free(q->address);
	free(q->filter);
	free(q->last_value_key);
	memset(q, 0, sizeof(*q));
}

void
recon_divert_copy(struct recon_divert *dst, const struct recon_divert *d)
{
	size_t i;

	*dst = *d;
	dst->name = dup_or_null(d->name);
	dst->routing_name = dup_or_null(d->routing_name);
	dst->address = dup_or_null(d->address);
	dst->forwarding_address = dup_or_null(d->forwarding_address);
	dst->filter = dup_or_null(d->filter);
	dst->transformer_class_name = dup_or_null(d->transformer_class_name);
	dst->transformer_properties = NULL;
	if (d->ntransformer_properties > 0)
		dst->transformer_properties =
		    xcalloc(d->ntransformer_properties,
		        sizeof(*dst->transformer_properties));
	for (i = 0; i < d->ntransformer_properties; i++) {
		dst->transformer_properties[i].key =
		    xstrdup(d->transformer_properties[i].key);
		dst->transformer_properties[i].value =
		    xstrdup(d->transformer_properties[i].value);
	}
}

struct recon_divert *
recon_divert_dup(const struct recon_divert *d)
{
	struct recon_divert *c = xmalloc(sizeof(*c));

	recon_divert_copy(c, d);
	return c;
}

void
recon_divert_clear(struct recon_divert *d)
{
	size_t i;

	if (d == NULL)
		return;
	free(d->name);
	free(d->routing_name);
	free(d->address);
	free(d->forwarding_address);
	free(d->filter);
	free(d->transformer_class_name);
	for (i = 0; i < d->ntransformer_properties; i++) {
		free(d->transformer_properties[i].key);
		free(d->transformer_properties[i].value);
	}
	free(d->transformer_properties);
	memset(d, 0, sizeof(*d));
}

void
recon_queue_from_decl(struct recon_queue *out, const struct decl_queue *q)
{
	memset(out, 0, sizeof(*out));
	out->name = q->name;
	out->address = (char *)(uintptr_t)q->address;
	out->routing = q->routing;
	out->durable = q->durable;
	out->filter = q->filter;
	out->max_consumers = q->max_consumers;
	out->purge_on_no_consumers = q->purge_on_no_consumers;
	out->exclusive = q->exclusive;
	out->ring_size = q->ring_size;
	out->enabled = q->enabled;
	out->last_value_key = q->last_value_key;
	out->consumers_before_dispatch = q->consumers_before_dispatch;
	out->delay_before_dispatch = q->delay_before_dispatch;
}

void
recon_divert_from_decl(struct recon_divert *out, const struct decl_divert *d)
{
	memset(out, 0, sizeof(*out));
	out->name = d->name;
	out->routing_name = d->routing_name != NULL ? d->routing_name : d->name;
	out->address = d->address;
	out->forwarding_address = d->forwarding_address;
	out->exclusive = d->exclusive;
	out->filter = d->filter;
	out->routing_type = d->routing_type;
	out->transformer_class_name = d->transformer_class_name;
	out->transformer_properties = d->transformer_properties;
	out->ntransformer_properties = d->ntransformer_properties;
}

bool
recon_has_prefix(const char *s, const char *prefix)
{
	return prefix != NULL && prefix[0] != '\0' &&
	       strncmp(s, prefix, strlen(prefix)) == 0;
}

char *
recon_count(int64_t n, const char *one, const char *many)
{
	return xasprintf("%lld %s", (long long)n, n == 1 ? one : many);
}
