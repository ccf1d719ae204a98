/* name_index.c: open addressing with linear probing, grown to keep the load
 * under one half. Each slot keeps its name's hash: growing the table moves
 * slots without hashing their names again, and a probe compares hashes
 * before it compares names. Names are hashed eight bytes at a time (a
 * model's names are some 25 bytes long): a byte at a time (FNV-1a), the
 * hashing was most of loading amd-zen5's 3,000 look-ups, 0.5 M
 * instructions (docs/performance.md, issue 39). */
#include "config.h"
#include "name_index.h"
#include "util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct slot { const char *name; uint32_t hash; int value; };

struct name_index {
	size_t cap;     /* a power of two */
	size_t n;
	struct slot *slots;
};

/* A multiply-and-fold over whole 64-bit words of the name, the last one
 * padded with zeros: the same name gives the same hash on every machine
 * of one byte order, which is all a table in memory needs. */
static uint32_t hash(const char *s)
{
	const uint64_t k = 0x9e3779b97f4a7c15ull;
	size_t len = strlen(s);
	uint64_t h = len * k;
	for (; len >= 8; s += 8, len -= 8) {
		uint64_t w;
		memcpy(&w, s, 8);
		h = (h ^ w) * k;
		h ^= h >> 29;
	}
	if (len) {
		uint64_t w = 0;
		memcpy(&w, s, len);
		h = (h ^ w) * k;
		h ^= h >> 29;
	}
	return (uint32_t)(h ^ (h >> 32));
}

uint32_t name_index_hash(const char *name)
{
	return hash(name);
}

struct name_index *name_index_new(void)
{
	return name_index_new_for(7);
}

struct name_index *name_index_new_for(size_t n)
{
	struct name_index *ix = xcalloc(1, sizeof(*ix));
	ix->cap = 16;
	while (2 * (n + 1) > ix->cap)
		ix->cap *= 2;
	ix->slots = xcalloc(ix->cap, sizeof(*ix->slots));
	return ix;
}

void name_index_free(struct name_index *ix)
{
	if (!ix)
		return;
	free(ix->slots);
	free(ix);
}

static struct slot *lookup(const struct name_index *ix, const char *name, uint32_t h)
{
	size_t mask = ix->cap - 1;
	for (size_t i = h & mask;; i = (i + 1) & mask) {
		struct slot *s = &ix->slots[i];
		if (!s->name || (s->hash == h && !strcmp(s->name, name)))
			return s;
	}
}

void name_index_add(struct name_index *ix, const char *name, int value)
{
	name_index_add_hashed(ix, name, hash(name), value);
}

void name_index_add_hashed(struct name_index *ix, const char *name, uint32_t h, int value)
{
	if (2 * (ix->n + 1) > ix->cap) {
		struct slot *old = ix->slots;
		size_t ocap = ix->cap;
		ix->cap *= 2;
		ix->slots = xcalloc(ix->cap, sizeof(*ix->slots));
		/* The names are distinct: each goes to the first free slot. */
		for (size_t i = 0; i < ocap; i++)
			if (old[i].name) {
				size_t j = old[i].hash & (ix->cap - 1);
				while (ix->slots[j].name)
					j = (j + 1) & (ix->cap - 1);
				ix->slots[j] = old[i];
			}
		free(old);
	}
	struct slot *s = lookup(ix, name, h);
	if (s->name)
		return;
	*s = (struct slot){ .name = name, .hash = h, .value = value };
	ix->n++;
}

int name_index_find(const struct name_index *ix, const char *name)
{
	if (!ix || !name)
		return -1;
	const struct slot *s = lookup(ix, name, hash(name));
	return s->name ? s->value : -1;
}

int name_index_find_hashed(const struct name_index *ix, const char *name, uint32_t h)
{
	if (!ix || !name)
		return -1;
	const struct slot *s = lookup(ix, name, h);
	return s->name ? s->value : -1;
}
