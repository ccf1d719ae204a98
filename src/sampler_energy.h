/* sampler_energy.h: what the sampler says about the energy counters
 * (events with a scale, docs/energy.md): once that a machine has none,
 * and once that one which exists never moves, whose figures are then
 * shown as '-' rather than 0 W. */
#ifndef PMCTOP_SAMPLER_ENERGY_H
#define PMCTOP_SAMPLER_ENERGY_H

#include <stdbool.h>

#include "backend.h"
#include "sched.h"
#include "snapshot.h"

/* Whether event e is an energy counter. */
bool energy_event(const struct model *m, int e);
/* When the plan wants energy counters and none can be counted here, one
 * line that says so and why (the backend's reason: no power PMU, no
 * powercap tree); NULL otherwise. The caller frees it. */
char *energy_absent_notice(const struct model *m, const struct sched_plan *plan,
			   const struct pmu_backend_ops *ops, struct backend *bk);
/* An energy counter counted in this interval that read 0 in every row
 * stands still: its count and every metric that uses it become NaN in
 * snap. said[e] (per model event, kept by the caller) makes the line
 * that says so come once: returned for the first interval it is seen,
 * NULL otherwise; the caller frees it. */
char *energy_mask_stuck(const struct model *m, struct snapshot *snap, bool *said);

#endif
