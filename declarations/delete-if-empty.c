/* declarations/delete-if-empty.c: the delete-if-empty policy of queues
 * (docs/policy.md): a queue's own key wins over the cluster's default,
 * settings.delete-if-empty, wherever in the cluster's files either is
 * written; the place of the key that decided is kept for the refusals. */
#include "decl-int.h"

#include <string.h>

#include "../lib/xalloc.h"

void
decl_delete_if_empty_key(struct pos *at, const struct decl_yaml_node *map)
{
	size_t i;

	if (map == NULL || map->kind != DECL_YAML_MAP)
		return;
	for (i = 0; i < map->n; i++)
		if (strcmp(map->keys[i]->str, "delete-if-empty") == 0) {
			*at = map->keys[i]->pos;
			return;
		}
}

void
decl_delete_if_empty_resolve(struct decl_cluster *c)
{
	struct decl_queue *q;
	size_t i, j;

	for (i = 0; i < c->naddresses; i++)
		for (j = 0; j < c->addresses[i].nqueues; j++) {
			q = &c->addresses[i].queues[j];
			if (q->delete_if_empty_at.line != 0)
				continue; /* its own key */
			q->delete_if_empty = c->settings.delete_if_empty;
			q->delete_if_empty_at = c->settings.delete_if_empty_at;
		}
}

/* "KEY is set (path:line:col)", or without the place when unknown (a
 * model built in memory). */
static char *
is_set(const char *key, const struct pos *at)
{
	if (at->line == 0 || at->path == NULL)
		return xasprintf("%s is set", key);
	return xasprintf("%s is set (%s:%u:%u)", key, at->path, at->line,
	    at->col);
}

char *
decl_settings_delete_if_empty_text(const struct decl_cluster *c)
{
	if (!c->settings.delete_if_empty)
		return NULL;
	return is_set("settings.delete-if-empty",
	    &c->settings.delete_if_empty_at);
}

char *
decl_queue_delete_if_empty_text(const struct decl_cluster *c,
    const struct decl_queue *q)
{
	const struct pos *s = &c->settings.delete_if_empty_at;
	const struct pos *at = &q->delete_if_empty_at;

	if (!q->delete_if_empty)
		return NULL;
	/* the default's own key: the queue inherited it */
	if (c->settings.delete_if_empty && at->line == s->line &&
	    at->col == s->col && at->path == s->path)
		return decl_settings_delete_if_empty_text(c);
	return is_set("delete-if-empty", at);
}
