/* spare.h: one freed block kept for the next allocation of its kind, so
 * that what a run makes and frees every interval (a snapshot's block,
 * its error source) does not go through the C library's allocator each
 * time. Taken and given with an atomic exchange: such blocks are made on
 * the sampler's thread and freed on the consumer's. At most one block a
 * slot is kept; at exit it is left to the kernel. Under AddressSanitizer
 * nothing is kept, so that a use after a free is still caught. */
#ifndef PMCTOP_SPARE_H
#define PMCTOP_SPARE_H

#include <stdatomic.h>
#include <stdlib.h>
#include "sanitizers.h"

/* The kept block, or NULL; the caller checks that it is large enough,
 * frees it if not, and owns it either way. */
static inline void *spare_take(_Atomic(void *) *slot)
{
	return atomic_exchange_explicit(slot, NULL, memory_order_acquire);
}

/* Keeps p (freeing the block kept before), or frees it under
 * AddressSanitizer. acq_rel, not release: the block kept before may be
 * one that the other thread wrote and gave (the sampler frees the
 * snapshots a full ring drops), and freeing it is a use of its memory
 * that must come after those writes (ThreadSanitizer, check_snapshot's
 * test_ring_threads). */
static inline void spare_give(_Atomic(void *) *slot, void *p)
{
	if (PMCTOP_ASAN) {
		free(p);
		return;
	}
	free(atomic_exchange_explicit(slot, p, memory_order_acq_rel));
}

#endif
