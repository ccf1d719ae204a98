/* perf_ring.h: reading perf_event sample records from the kernel's mmap
 * ring buffer, as perf record and perf top do: the kernel writes records
 * at data_head, pmctop reads up to it and hands the space back by moving
 * data_tail. Only what per-task sampling needs is parsed: samples of
 * PERF_RING_SAMPLE_TYPE below,
 * and the kernel's count of records it had to drop (PERF_RECORD_LOST). */
#ifndef PMCTOP_PERF_RING_H
#define PMCTOP_PERF_RING_H

#include <stdint.h>

/* The sample_type a ring's events must be opened with. */
#define PERF_RING_SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD)

struct perf_ring;
/* Maps the ring of fd: one header page and 2^order data pages. */
struct perf_ring *perf_ring_map(int fd, int order, char **cause);
void perf_ring_unmap(struct perf_ring *r);
/* id: the event's; pid: the process it names; period: what it stands for. */
typedef void (*perf_ring_fn)(void *arg, uint64_t id, uint32_t pid, uint64_t period);
/* Calls fn for each sample written since the last drain; returns the
 * samples the kernel reported lost meanwhile. */
long perf_ring_drain(struct perf_ring *r, perf_ring_fn fn, void *arg);

#endif
