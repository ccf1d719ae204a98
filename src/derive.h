/* derive.h: turns one interval's per-instance scaled counts into a
 * snapshot. The sampler measures (open, rotate, read, scale); this builds
 * the rows per CPU, core, CCX, socket and system by summing the scaled
 * counts of the instances under each row, and only then evaluates each
 * metric's formula on those sums, because an average of per-CPU ratios
 * would weight an idle CPU like a busy one. A metric whose events share
 * one or more groups is evaluated on those groups' counts alone (one time
 * window, so the ratio is exact for it); every figure gets a relative
 * standard error from the spread of its windows (derive_window.c,
 * uncertainty.c). Kept apart from the sampler so
 * that the arithmetic of aggregation can be read and changed on its own. */
#ifndef PMCTOP_DERIVE_H
#define PMCTOP_DERIVE_H

#include <stdatomic.h>
#include <stdbool.h>
#include "backend.h"
#include "evdef.h"
#include "sched.h"
#include "snapshot.h"
#include "topo.h"

/* Where one PMU's instances are and which are still counting. */
struct derive_pmu {
	bool available;                 /* false: nothing of this PMU is counted */
	int ninst;
	const struct bk_instance *inst; /* [ninst] where each instance sits */
	const bool *alive;              /* [ninst] false: dropped, adds nothing */
};

/* What one plan group counted in the interval, per instance of its PMU
 * (the PMU's derive_pmu.inst order): in all, and per bucket of rotation
 * windows, each bucket being one sample of the group's rates. */
struct derive_group {
	int nev;
	const int *events;              /* [nev] model events */
	const double *iv;               /* [ninst * nev] counts */
	const double *ir;               /* [ninst] ns running */
	int nb;                         /* buckets (0: none) */
	const double *bv;               /* [nb * ninst * nev] */
	const double *br;               /* [nb * ninst] */
	/* Where this interval follows the last one under pmctop's rotation:
	 * the group's last window of that interval (counts [ninst * nev], ns
	 * running [ninst]; NULL: none), and the share of this interval
	 * before the group's first window (0: it ran from the start). A
	 * change of rates between the two that its windows here do not
	 * show fell in that share, unseen (gsum_edges). */
	const double *pv;
	const double *pr;
	double lead;
	/* The same at the interval's end: the group's window of the tail
	 * round, a short one after every group's last window (counts, ns
	 * running; NULL: none), and the share of the interval after the
	 * group's last window before it (gsum_edges). Its counts are in
	 * iv and ir, not in a bucket: it is a witness, not a sample. */
	const double *tv;
	const double *tr;
	double trail;
};

/* What derive keeps from one interval to the next while the plan stays
 * the same (generation plan_gen): which window sets exist and which
 * metric and event use which. Owned by the caller; derive_cache_done
 * frees it. Working them out again every interval cost as much as
 * evaluating the metrics. */
struct wset_list;
struct derive_work;
struct derive_live;
/* A planned metric as the derivation evaluates it, kept while the plan
 * stands: its window set (-1: pooled), its formula compiled per row scope
 * (formula.h; NULL: below its scope, or too large to compile) and each
 * variable's index among the set's events. */
struct formula;
struct derive_metric {
	int mi, scope, set;
	bool count;                  /* published per second */
	bool partial_ok[SNAP_NSCOPES];
	struct formula *prog[SNAP_NSCOPES];
	int nvars[SNAP_NSCOPES];     /* each program's variables */
	int *vk[SNAP_NSCOPES];
	/* A set of one group: each variable's place among the group's
	 * counts (-1: not held), and whether any is held. */
	int *gp[SNAP_NSCOPES];
	bool held[SNAP_NSCOPES];
};
/* What derive works out once per plan (derive.c): the window sets,
 * which metric and event use which, and each planned metric compiled.
 * Shared by reference count between the cache and every interval's
 * buffers (struct derive_work) that a published snapshot's errors still
 * read (derive_errors.c), so that a new plan does not pull it from under
 * them; read-only once built. */
struct derive_plan_part {
	_Atomic int refs;
	struct wset_list *wl;
	int *ev_set;                 /* [nevents]: each planned event's window set, or -1 */
	bool *pooled_ev;             /* [nevents]: an event of a metric of no window set, whose
	                              * error metric_pooled reads */
	bool *set_metric;            /* [wl->n]: some metric is evaluated in the set */
	/* The events that can get a column (planned, or held by a window
	 * set), ascending: the only ones an interval's steps visit, where the
	 * model has hundreds (amd-zen5: 411) and a plan opens a few dozen. */
	int *cand, ncand;
	int ndm;
	struct derive_metric *dm;    /* [ndm]: each planned metric (derive.c) */
	int *mlist[SNAP_NSCOPES];    /* the metrics (dm indices) with a program at each scope */
	int nmlist[SNAP_NSCOPES];
	int fspace;                  /* doubles the largest program needs (variables and work) */
	int *mset;                   /* [model nmetrics]: each planned metric's window set, -1: none */
};
struct derive_cache {
	unsigned plan_gen;           /* 0: empty */
	struct derive_plan_part *pp; /* the plan's part, NULL: none yet */
	/* One interval's buffers, kept for the next (derive.c). A snapshot
	 * whose rows' errors were left for later holds its interval's
	 * buffers (snap_errors) until it is freed; the next derivations
	 * then use the other one, or new ones. */
	struct derive_work *work[2];
	int next;                    /* the one the next derivation tries first */
	/* What the intervals of this plan's part find the same while the
	 * counters open and the window sets' samples stay (derive_impl.h);
	 * NULL: none yet. */
	struct derive_live *live;
};
void derive_cache_done(struct derive_cache *c);

/* The rows whose errors are worth finding at once, a hint: every row of
 * a scope where all[sc] (the exporter's --export-scope and wider), else
 * rows[sc][r] for r < nrows[sc] (rows[sc] NULL: none of that scope). The
 * dashboard names the rows its last frame read, a few dozen of 1024 CPUs'
 * 1,600; the others' are found when read (snap_row_mrse), from the
 * snapshot alone, to the same bit. */
struct derive_want {
	bool all[SNAP_NSCOPES];
	const bool *rows[SNAP_NSCOPES];
	int nrows[SNAP_NSCOPES];
};

struct derive_input {
	const struct model *model;
	const struct topo *topo;        /* online flags say which CPUs get rows */
	const struct sched_plan *plan;  /* which metrics and events were planned */
	const bool *cpu_filter;         /* [topo->max_cpu] or NULL for all */
	double measured_s;              /* the interval as measured */
	const struct derive_pmu *pmus;  /* [model->npmus] */
	const struct derive_group *groups; /* [plan->ngroups] */
	struct derive_cache *cache;     /* NULL: nothing kept */
	unsigned plan_gen;              /* changes whenever the plan does (not 0) */
	double max_ghz;                 /* the part's highest clock, 0: not known */
	/* [model nevents] the events whose error some output shows (the
	 * screen's and batch's -e columns); NULL: every event's. The others'
	 * errors are left unknown (NaN) unless a metric of no window set
	 * needs them: at 1024 CPUs an event's error in every row cost more
	 * than all the metrics (docs/performance.md). */
	const bool *event_errors;
	/* The rows whose errors are found now; the others' values are found,
	 * their errors left to the snapshot's error source (snap_errors:
	 * found when read). NULL: every row's, as every output but the
	 * dashboard needs. Only with a cache. */
	const struct derive_want *want;
	/* The groups' buckets are the kernel's slices of the interval
	 * (--rotate kernel: four reads, each part a sample), not windows of
	 * pmctop's rotation spread over it: their errors are taken from
	 * their spread about the mean alone, not also from successive
	 * windows (unc_chain_se). */
	bool slices;
};

/* A new snapshot (caller frees) with its rows, the planned flags, each
 * row's summed events and coverage, and the planned metrics evaluated per
 * row; measured_s is set. The sampler fills in the rest (seq, time,
 * notice, offline CPUs, costs). */
struct snapshot *derive_snapshot(const struct derive_input *in);

#endif
