/* tasks.h: who ran: per-process and per-cgroup figures from sampling.
 *
 * Each event a tasks view needs is opened once per CPU (not per task:
 * the cost does not grow with the number of processes) with a sample
 * frequency; every sample names the process that was running and stands
 * for `period` occurrences of the event, so a process's count is the sum
 * of its samples' periods: an unbiased estimate whose variance is the sum
 * of their squares (plus one period for an event that has no sample yet,
 * so that a figure from no samples is not called exact). Metrics are the
 * model's own formulas over those estimates, computed per process and
 * per cgroup (processes summed), with the uncertainty carried through
 * the formula as for CPU figures. Coverage is the share of the interval
 * the sampled events were counted (sampled hardware events are pinned:
 * all of it, or none where the counter could not be had).
 *
 * What it gives up: a process that runs for less than a period between
 * samples may get none (its figures are then rounded into its neighbours'
 * samples, as with perf's sampling), and a sample can carry a few
 * occurrences of the task that ran just before. Processes that ended
 * before pmctop looked up their name show as "-". The idle task (pid 0)
 * is left out of the rows. docs/tasks.md has the cost model. */
#ifndef PMCTOP_TASKS_H
#define PMCTOP_TASKS_H

#include "backend.h"
#include "evdef.h"
#include "snapshot.h"

/* Samples a second of each sampled event on each CPU, unless --task-hz
 * says: TASKS_DEFAULT_FREQ, lowered on large machines so that all CPUs
 * together hand pmctop at most TASKS_SAMPLE_BUDGET samples a second
 * (about 20 ns of pmctop's time each, measured: 1 % of one CPU), but
 * never below TASKS_MIN_FREQ. docs/tasks.md has the cost model. */
#define TASKS_DEFAULT_FREQ 1000
#define TASKS_SAMPLE_BUDGET 500000
#define TASKS_MIN_FREQ 50

/* Counters of each hardware PMU that per-task sampling leaves to the
 * rotation of the CPU figures: sampled events hold theirs all the time. */
#define TASKS_SPARE_COUNTERS 2

struct tasks;

/* For metrics[0..nmetrics-1] (those that metric_per_task() refuses are
 * left out), sampling freq times a second (0: the default above). */
struct tasks *tasks_new(const struct model *m, const struct pmu_backend_ops *ops, struct backend *bk,
			int nmetrics, const int *metrics, int freq);
void tasks_free(struct tasks *t);
/* Only processes pids[0..npids-1] (none: all), and only those whose cgroup
 * is cgroup or below it (NULL: any), in the rows: -p and --cgroup. */
void tasks_select(struct tasks *t, int npids, const int *pids, const char *cgroup);
/* Opens the sampling on cpus[0..ncpus-1]. Events that cannot be sampled
 * here are left out (their figures are NaN) and *notice says which and
 * why. Returns the CPUs that sample. */
int tasks_open(struct tasks *t, const int *cpus, int ncpus, char **notice);
/* Takes the samples waiting in the kernel's buffers (called during the
 * interval so that they do not fill). */
void tasks_drain(struct tasks *t);
/* Ends the interval: fills snap's tasks and cgroups. */
void tasks_finish(struct tasks *t, struct snapshot *snap, double measured_s);

#endif
