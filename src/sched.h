/* sched.h: packs the events that the requested metrics need into groups
 * that fit each PMU's counters, keeping each metric's events together when
 * they fit, and orders the rotation. Pure: no I/O, deterministic. */
#ifndef PMCTOP_SCHED_H
#define PMCTOP_SCHED_H

#include <stdbool.h>
#include <stdio.h>
#include "evdef.h"

struct sched_group {
	int pmu;
	int nevents;
	int *events;          /* model event indices; the first leads (slots
	                       * where the group reads PERF_METRICS) */
	int *counted;         /* what to open: events[] through count_as */
	int counters_used;    /* merged-pair events take two */
};

struct sched_plan {
	int ngroups;
	struct sched_group *groups;   /* grouped by PMU, rotation order within a PMU */
	int nmetrics;
	int *metrics;                 /* planned metric indices */
	bool *metric_split;           /* [model nmetrics]: computed across groups */
	int nevents;                  /* model nevents */
	bool *event_used;             /* [model nevents] */
	int nunschedulable;
	int *unschedulable;           /* events that fit no group (e.g. 0 counters) */
	char **unsched_why;
	/* Pinned: counted throughout the interval. A pinned event is in every
	 * group of its PMU, so whichever group runs counts it; a pinned metric
	 * has all its events pinned (or on PMUs that count always). Besides
	 * the request's pins, events on fixed counters are pinned while the
	 * PMU's fixed counters hold them (they take no general counter). */
	bool *event_pinned;           /* [model nevents] */
	bool *event_fixed_pin;        /* [model nevents]: pinned for its fixed counter */
	bool *metric_pinned;          /* [model nmetrics] */
	int nunpinned;                /* requested pins that do not fit, and why */
	int *unpinned;                /* model metric indices */
	char **unpinned_why;
};

struct sched_request {
	int nmetrics; const int *metrics;   /* model metric indices */
	int nevents; const int *events;     /* extra events (-e) */
	const int *free_counters;           /* per model PMU: usable counters */
	/* Per model event: the event whose encoding counts it here (itself,
	 * or its fallback where the kernel lacks a feature), -1 where it
	 * cannot be counted; NULL: every event as itself. Groups keep the
	 * model's own event indices; costs and rules follow the encoding. */
	const int *count_as;
	/* Why an event without a `requires` is -1 in count_as (the simulated
	 * PMU gives an imported event no meaning); NULL: no such event. */
	const char *lost_why;
	/* Metrics to count throughout (a view's headline figures), most
	 * important first: their events go into every group of their PMU, as
	 * long as they leave a counter for the rest to rotate in (or nothing
	 * else is left to rotate). A pin that does not fit is left out whole,
	 * with a reason; later, smaller pins may still fit. */
	int npinned; const int *pinned;
};

struct sched_plan *sched_plan(const struct model *m, const struct sched_request *req, char **cause);
void sched_plan_free(struct sched_plan *p);
/* Number of groups for PMU pmu (its rotation length). */
int sched_groups_for_pmu(const struct sched_plan *p, int pmu);
/* Whether every event of metric is in every group of its PMU: the metric
 * is counted throughout the interval, whichever group runs. */
bool sched_metric_throughout(const struct sched_plan *p, const struct model *m, int metric);
/* Prints the plan for --show-schedule. */
void sched_print(const struct sched_plan *p, const struct model *m, FILE *out);

/* Whether n events, event i allowed on the general counters of bit mask
 * masks[i] (0: any), can each have a counter of their own among counters
 * 0..ngeneral-1. Vendors' masks are nested (0-3 within 0-7, 0-1 within
 * 0-3), for which placing the most restricted first is exact. */
bool sched_masks_fit(const uint32_t *masks, int n, int ngeneral);

#endif
