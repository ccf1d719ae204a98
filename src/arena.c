/* arena.c: one block of memory handed out in pieces for one round of
 * work and taken back whole (arena.h), so that a steady loop allocates
 * nothing once its first rounds have sized the block. */
#include "config.h"
#include "arena.h"
#include "util.h"
#include "hot_path.h"

#include <stdlib.h>
#include <string.h>

void *arena_spill(struct arena *a, size_t n, bool zero)
{
	/* n is arena_get's, rounded. */
	a->asked += n;
	void *p = xmalloc(n);
	a->spill = xrealloc(a->spill, sizeof(void *) * ((size_t)a->nspill + 1));
	a->spill[a->nspill++] = p;
	if (zero)
		memset(p, 0, n);
	return p;
}

/* The interval is done: everything from the arena is given back. */
HOT_PATH void arena_reset(struct arena *a)
{
	for (int i = 0; i < a->nspill; i++)
		free(a->spill[i]);
	free(a->spill);
	a->spill = NULL;
	a->nspill = 0;
	if (a->asked > a->cap) {
		free(a->base);
		a->base = xmalloc(a->asked);
		a->cap = a->asked;
	}
	a->used = a->asked = 0;
}

void arena_reserve(struct arena *a, size_t n)
{
	if (a->used || a->nspill || n <= a->cap)
		return;
	free(a->base);
	a->base = xmalloc(n);
	a->cap = n;
}

void arena_free(struct arena *a)
{
	for (int i = 0; i < a->nspill; i++)
		free(a->spill[i]);
	free(a->spill);
	free(a->base);
	memset(a, 0, sizeof(*a));
}
