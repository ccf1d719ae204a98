/* derive.h: turns one interval's per-instance scaled counts into a
 * snapshot. The sampler measures (open, rotate, read, scale); this builds
 * the rows per CPU, core, CCX, socket and system by summing the scaled
 * counts of the instances under each row, and only then evaluates each
 * metric's formula on those sums, because an average of per-CPU ratios
 * would weight an idle CPU like a busy one. Kept apart from the sampler so
 * that the arithmetic of aggregation can be read and changed on its own. */
#ifndef PMCTOP_DERIVE_H
#define PMCTOP_DERIVE_H

#include <stdbool.h>
#include "backend.h"
#include "evdef.h"
#include "sched.h"
#include "snapshot.h"
#include "topo.h"

/* What one PMU measured in the interval. Events of the PMU that the plan
 * uses have a dense local index k (column), so the per-instance arrays
 * stay small at 1024 CPUs. */
struct derive_pmu {
	bool available;                 /* false: nothing of this PMU is counted */
	int ninst;
	const struct bk_instance *inst; /* [ninst] where each instance sits */
	const bool *alive;              /* [ninst] false: dropped, adds nothing */
	int nlocal;
	const int *local_ev;            /* [nlocal] model event of each column */
	const double *value;            /* [ninst * nlocal] scaled count; NaN if it never ran */
	const double *cov;              /* [ninst * nlocal] time running / interval, 0..1 */
};

struct derive_input {
	const struct model *model;
	const struct topo *topo;        /* online flags say which CPUs get rows */
	const struct sched_plan *plan;  /* which metrics and events were planned */
	const bool *cpu_filter;         /* [topo->max_cpu] or NULL for all */
	double interval_s;              /* the interval as measured */
	const struct derive_pmu *pmus;  /* [model->npmus] */
};

/* A new snapshot (caller frees) with its rows, the planned flags, each
 * row's summed events and coverage, and the planned metrics evaluated per
 * row; interval_s is set. The sampler fills in the rest (seq, time,
 * notice, offline CPUs, costs). */
struct snapshot *derive_snapshot(const struct derive_input *in);

#endif
