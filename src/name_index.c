/* name_index.c: open addressing with linear probing, grown to keep the load
 * under one half; FNV-1a hashes the names. */
#include "config.h"
#include "name_index.h"
#include "util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct slot { const char *name; int value; };

struct name_index {
	size_t cap;     /* a power of two */
	size_t n;
	struct slot *slots;
};

static uint64_t hash(const char *s)
{
	uint64_t h = 14695981039346656037ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

struct name_index *name_index_new(void)
{
	struct name_index *ix = xcalloc(1, sizeof(*ix));
	ix->cap = 16;
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

static struct slot *lookup(const struct name_index *ix, const char *name)
{
	size_t mask = ix->cap - 1;
	for (size_t i = hash(name) & mask;; i = (i + 1) & mask)
		if (!ix->slots[i].name || !strcmp(ix->slots[i].name, name))
			return &ix->slots[i];
}

void name_index_add(struct name_index *ix, const char *name, int value)
{
	if (2 * (ix->n + 1) > ix->cap) {
		struct name_index big = { .cap = ix->cap * 2 };
		big.slots = xcalloc(big.cap, sizeof(*big.slots));
		for (size_t i = 0; i < ix->cap; i++)
			if (ix->slots[i].name)
				*lookup(&big, ix->slots[i].name) = ix->slots[i];
		free(ix->slots);
		ix->slots = big.slots;
		ix->cap = big.cap;
	}
	struct slot *s = lookup(ix, name);
	if (s->name)
		return;
	*s = (struct slot){ .name = name, .value = value };
	ix->n++;
}

int name_index_find(const struct name_index *ix, const char *name)
{
	if (!ix || !name)
		return -1;
	const struct slot *s = lookup(ix, name);
	return s->name ? s->value : -1;
}
