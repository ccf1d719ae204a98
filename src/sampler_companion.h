/* sampler_companion.h: always-counting per-CPU events (software, /proc/stat)
 * taken over the windows of the rotating PMU whose counts a metric divides
 * them by (sampler_companion.c). Internal to the sampler. */
#ifndef PMCTOP_SAMPLER_COMPANION_H
#define PMCTOP_SAMPLER_COMPANION_H

struct sampler;
struct pmu_state;

/* After every PMU of a plan is open: finds each per-CPU core PMU's
 * companions and gives each of its groups a column per companion. */
void companions_plan(struct sampler *s);
void companions_free(struct pmu_state *ps);
/* Group gi's window begins on its instance i: remembers where each
 * companion stands there. */
void companions_mark(struct sampler *s, int gi, int i);
/* Group to's window begins on instance i where group from's just closed
 * (companions_take): the same marks, without reading again. */
void companions_hand_over(struct sampler *s, int from, int to, int i);
/* Group gi's window on instance i closed, and the group ran share
 * (running / enabled, 0..1) of it: adds what each companion counted since
 * the mark, times share, to the group's columns (and bucket, >= 0), and
 * marks the next window's start. share 0 only moves the marks. */
void companions_take(struct sampler *s, int gi, int i, int bucket, double share);

#endif
