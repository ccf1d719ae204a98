/* pmu_scale.h: what one count of a perf event is worth, as the kernel's
 * sysfs says (events/NAME.scale and events/NAME.unit under the PMU's
 * directory), against what its definition says (event_def.scale). */
#ifndef PMCTOP_PMU_SCALE_H
#define PMCTOP_PMU_SCALE_H

#include "evdef.h"

/* For an event with a scale whose `requires` names its sysfs event file:
 * sets *factor to what one kernel count is worth in the definition's
 * counts (1 where they agree; the backend multiplies what it reads by
 * it). An event without a scale gets 1. Returns 0, or -1 with *cause
 * when sysfs gives no scale or another unit. */
int pmu_event_rescale(const char *sysfs_root, const char *perf_pmu, const struct event_def *ev,
		      double *factor, char **cause);

#endif
