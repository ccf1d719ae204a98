/* sim_counters.h: the simulated kernel's check that a group's events can
 * each have a general counter their counter mask allows (sim_counters.c). */
#ifndef PMCTOP_SIM_COUNTERS_H
#define PMCTOP_SIM_COUNTERS_H

#include "model.h"

/* 0, or -EINVAL with *cause when the events of group ev[0..n) on PMU pd
 * that take general counters cannot all be given one their counter masks
 * allow, as the kernel refuses such a group. */
int sim_check_counter_masks(const struct model *m, const struct pmu_def *pd, const int *ev, int n, char **cause);

#endif
