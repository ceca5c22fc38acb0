/* reconcile/plan-model.c: names of the plan's enums, copies of snapshot
 * objects, and freeing plans. */
#include "plan-int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/xalloc.h"

static const char *const act_names[PLAN_ACT_COUNT] = {
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
plan_action_kind_name(enum plan_action_kind a)
{
	return (unsigned)a < PLAN_ACT_COUNT ? act_names[a] : "?";
}

int
plan_action_kind_parse(const char *s, enum plan_action_kind *out)
{
	int i = name_index(act_names, NELEM(act_names), s);

	if (i < 0)
		return -1;
	*out = (enum plan_action_kind)i;
	return 0;
}

const char *
plan_outcome_name(enum plan_outcome o)
{
	return (unsigned)o < NELEM(outcome_names) ? outcome_names[o] : "?";
}

int
plan_outcome_parse(const char *s, enum plan_outcome *out)
{
	int i = name_index(outcome_names, NELEM(outcome_names), s);

	if (i < 0)
		return -1;
	*out = (enum plan_outcome)i;
	return 0;
}

bool
plan_has_prefix(const char *s, const char *prefix)
{
	return prefix != NULL && prefix[0] != '\0' &&
	       strncmp(s, prefix, strlen(prefix)) == 0;
}

char *
plan_count(int64_t n, const char *one, const char *many)
{
	return xasprintf("%lld %s", (long long)n, n == 1 ? one : many);
}
