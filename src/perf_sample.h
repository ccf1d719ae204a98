/* perf_sample.h: per-task sampling on the real counters (backend_perf.c's
 * sample_* operations): each event opened system-wide on one CPU with a
 * sample frequency, hardware events pinned, all writing their samples
 * into the ring of the first (PERF_EVENT_IOC_SET_OUTPUT), so a CPU costs
 * one buffer however many events it samples. And the name and cgroup of a
 * process, from /proc. */
#ifndef PMCTOP_PERF_SAMPLE_H
#define PMCTOP_PERF_SAMPLE_H

#include <stddef.h>
#include "backend.h"

/* Each CPU's ring holds this long of its samples (n events at freq, 48
 * bytes each), in a power of two of pages from 8 to 64 (32 to 256 KiB): the
 * sampler drains every 50 ms, and half a second leaves room for a sampler
 * thread that a loaded machine keeps waiting. */
#define PERF_SAMPLE_RING_S 0.5
#define PERF_SAMPLE_RING_MIN_ORDER 3
#define PERF_SAMPLE_RING_MAX_ORDER 6

/* Software events that count occurrences (page faults, context switches,
 * migrations) are sampled with a fixed period: this rate a second on a CPU
 * would give freq samples a second (at 1000 Hz a sample every 20; a storm
 * of 150,000 faults a second then fills a 256 KiB ring in 0.7 s). */
#define PERF_SAMPLE_SW_RATE 20000

/* Returns NULL with *err (negative errno) and *cause on failure. */
struct bk_sampler *perf_sampler_open(const struct model *m, const char *sysfs_root, int cpu,
				     const int *events, int n, int freq, int *err, char **cause);
long perf_sampler_drain(struct bk_sampler *s, bk_sample_fn fn, void *arg);
int perf_sampler_read(struct bk_sampler *s, struct bk_count *out);
void perf_sampler_close(struct bk_sampler *s);
/* General counters the sampler's events hold on PMU pmu. */
int perf_sampler_counters(const struct bk_sampler *s, const struct model *m, int pmu);
/* The name and cgroup of process pid from PROC_ROOT/PID/comm and
 * PROC_ROOT/PID/cgroup (the cgroup v2 path, else the first hierarchy's).
 * Returns 0, or -ESRCH. */
int proc_task_info(const char *proc_root, int pid, char *comm, size_t cap, char **cgroup);

#endif
