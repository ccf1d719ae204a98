/* arena.h: buffers that live for one round of work (one interval's
 * derivation), carved from one block kept across rounds. */
#ifndef PMCTOP_ARENA_H
#define PMCTOP_ARENA_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* Buffers for one interval, from one block kept across intervals: the
 * block grows to the most that an interval asked for, so that once the
 * first intervals have run, deriving allocates little besides the
 * snapshot itself (at 1024 CPUs the buffers were some forty allocations
 * an interval). What does not fit this time is allocated apart and freed
 * at the end of the interval. */
struct arena {
	char *base;
	size_t cap, used, asked;
	int nspill;
	void **spill;
};

/* What does not fit the block: allocated apart (arena.c). */
void *arena_spill(struct arena *a, size_t n, bool zero);

/* n bytes (zeroed when zero) that last until arena_reset. Inline: an
 * interval's derivation asks for some 140 buffers, and the call was a
 * twentieth of a small batch interval's derivation. */
static inline void *arena_get(struct arena *a, size_t n, bool zero)
{
	n = (n + 15) & ~(size_t)15;
	if (!n)
		n = 16;
	if (a->used + n > a->cap)
		return arena_spill(a, n, zero);
	a->asked += n;
	void *p = a->base + a->used;
	a->used += n;
	if (zero)
		memset(p, 0, n);
	return p;
}
/* The round is done: everything given out is taken back, and the block
 * grows to what the round asked for. */
void arena_reset(struct arena *a);
/* An empty arena's block made n bytes at once, so that a round known to
 * ask about that much allocates once (it may still ask for more). */
void arena_reserve(struct arena *a, size_t n);
void arena_free(struct arena *a);

#endif
