/* lib/strpool.c: see strpool.h. An open-addressing hash table (FNV-1a,
 * linear probing, kept at most half full) over strings packed into 64 KiB
 * chunks; a string larger than a chunk gets one of its own. */
#include "strpool.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

#define CHUNK_SIZE ((size_t)64 * 1024)

struct chunk {
	struct chunk *next;
	size_t used, size;
	char data[];
};

struct slot {
	char *s; /* NULL: empty */
	uint32_t hash;
	uint32_t len;
};

struct strpool {
	unsigned long refs;
	struct slot *slots;
	size_t nslots; /* a power of two */
	size_t count;
	size_t bytes;
	struct chunk *chunks; /* the newest first */
};

struct strpool *
strpool_new(void)
{
	struct strpool *p = xcalloc(1, sizeof(*p));

	p->refs = 1;
	p->nslots = 1024;
	p->slots = xcalloc(p->nslots, sizeof(*p->slots));
	p->bytes = p->nslots * sizeof(*p->slots);
	return p;
}

struct strpool *
strpool_ref(struct strpool *p)
{
	if (p != NULL)
		(void)__atomic_add_fetch(&p->refs, 1, __ATOMIC_RELAXED);
	return p;
}

void
strpool_unref(struct strpool *p)
{
	struct chunk *c, *next;

	if (p == NULL || __atomic_sub_fetch(&p->refs, 1, __ATOMIC_ACQ_REL) > 0)
		return;
	for (c = p->chunks; c != NULL; c = next) {
		next = c->next;
		free(c);
	}
	free(p->slots);
	free(p);
}

static uint32_t
hash_bytes(const char *s, size_t len)
{
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 16777619u;
	}
	return h;
}

static char *
store(struct strpool *p, const char *s, size_t len)
{
	struct chunk *c = p->chunks;
	char *out;

	if (c == NULL || c->size - c->used < len + 1) {
		size_t size = len + 1 > CHUNK_SIZE ? len + 1 : CHUNK_SIZE;

		c = xmalloc(sizeof(*c) + size);
		c->size = size;
		c->used = 0;
		p->bytes += sizeof(*c) + size;
		if (size > CHUNK_SIZE && p->chunks != NULL) {
			/* keep filling the current chunk */
			c->next = p->chunks->next;
			p->chunks->next = c;
		} else {
			c->next = p->chunks;
			p->chunks = c;
		}
	}
	out = c->data + c->used;
	memcpy(out, s, len);
	out[len] = '\0';
	c->used += len + 1;
	return out;
}

static void
grow(struct strpool *p)
{
	size_t n = p->nslots * 2, i, j;
	struct slot *v = xcalloc(n, sizeof(*v));

	for (i = 0; i < p->nslots; i++) {
		if (p->slots[i].s == NULL)
			continue;
		for (j = p->slots[i].hash & (n - 1); v[j].s != NULL;
		     j = (j + 1) & (n - 1))
			;
		v[j] = p->slots[i];
	}
	free(p->slots);
	p->bytes += (n - p->nslots) * sizeof(*v);
	p->slots = v;
	p->nslots = n;
}

char *
strpool_intern(struct strpool *p, const char *s, size_t len)
{
	uint32_t h = hash_bytes(s, len);
	size_t mask, i;
	struct slot *sl;

	if (p->slots == NULL) {
		p->count++;
		return store(p, s, len);
	}
	if ((p->count + 1) * 2 > p->nslots)
		grow(p);
	mask = p->nslots - 1;
	for (i = h & mask;; i = (i + 1) & mask) {
		sl = &p->slots[i];
		if (sl->s == NULL)
			break;
		if (sl->hash == h && sl->len == len &&
		    memcmp(sl->s, s, len) == 0)
			return sl->s;
	}
	sl->s = store(p, s, len);
	sl->hash = h;
	sl->len = (uint32_t)len;
	p->count++;
	return sl->s;
}

void
strpool_done(struct strpool *p)
{
	if (p == NULL || p->slots == NULL)
		return;
	p->bytes -= p->nslots * sizeof(*p->slots);
	free(p->slots);
	p->slots = NULL;
	p->nslots = 0;
}

size_t
strpool_count(const struct strpool *p)
{
	return p->count;
}

size_t
strpool_bytes(const struct strpool *p)
{
	return p->bytes;
}
