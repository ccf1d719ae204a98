/* sampler.h: the measuring loop. It opens the scheduled groups on every
 * instance, rotates them every rotate period (or leaves the rotating to the
 * kernel: SAMPLER_ROTATE_KERNEL), reads and scales the counts,
 * accumulates per refresh interval, has derive.c derive the metrics per
 * CPU, core, CCX, socket and system from summed raw counts, and publishes
 * one snapshot per interval. It can run on its own thread (live screen) or be stepped
 * synchronously (batch mode, tests). */
#ifndef PMCTOP_SAMPLER_H
#define PMCTOP_SAMPLER_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include "backend.h"
#include "derive.h"
#include "model.h"
#include "sched.h"
#include "snapshot.h"
#include "topo.h"

/* The rotation period when none is given: 50 ms lets each of three groups
 * run about seven times in a one-second interval, so phase changes are
 * sampled evenly, at two ioctls per CPU per rotation. SAMPLER_COST_BUDGET
 * is the share of one CPU the sampler may use before it rotates less
 * often. The measurements behind both are in docs/performance.md. */
#define SAMPLER_DEFAULT_ROTATE_MS 50.0
#define SAMPLER_COST_BUDGET 0.02
/* Rotation windows of one group are folded into at most this many buckets
 * per interval: each bucket is one sample of the group's rates for the
 * uncertainty estimate (docs/uncertainty.md). More buckets say little more
 * about the spread but cost memory per CPU at long intervals. */
#define SAMPLER_MAX_BUCKETS 16
/* Each window of the tail round that ends an interval under pmctop's
 * rotation is this share of a rotation slot (sampler_read.c, plan_tail):
 * short, so that it takes little of the other windows' time, and long
 * enough for its rates to stand apart from a window's noise. */
#define SAMPLER_TAIL_SHARE 0.125
/* When the kernel rotates, the sampler reads every group this many times
 * per interval, so that each group still has samples to estimate from. */
#define SAMPLER_KERNEL_READS 4
/* Per-task samples are taken from the kernel's buffers at least this
 * often (perf_sample.h sizes the buffers for it). */
#define SAMPLER_DRAIN_MS 50.0
/* rotate_ms below 0 (this value, --rotate kernel): every group of a PMU is
 * enabled at once and the kernel multiplexes them on each CPU with its own
 * timer, so the sampler issues no ioctls between reads; coverage is then
 * what the kernel gave each group, not a planned 1/ngroups. Snapshots of
 * that mode carry rotate_ms 0. */
#define SAMPLER_ROTATE_KERNEL (-1.0)

struct sampler_config {
	const struct model *model;
	struct topo *topo;
	const struct pmu_backend_ops *ops;
	const char *backend_arg;  /* sim spec, sysfs root, ... */
	double interval_s;        /* -d */
	double rotate_ms;         /* --rotate; 0: default; < 0: SAMPLER_ROTATE_KERNEL */
	volatile sig_atomic_t *interrupt; /* set by a signal handler: the interval in
					   * progress ends early and sampler_step returns it
					   * (batch mode, so that Ctrl-C loses nothing) */
	double cost_budget;       /* share of one CPU before rotating less often; 0: SAMPLER_COST_BUDGET */
	const bool *cpu_filter;   /* [topo->max_cpu] or NULL for all */
	int nmetrics; const int *metrics; /* requested metrics */
	int nevents; const int *events;   /* extra events (-e) */
	/* Of those, the ones to count throughout the interval, most important
	 * first (a view's pins: sched_request.pinned). */
	int npinned; const int *pinned;
	/* Only the extra events' errors are worked out (and those a metric
	 * needs): what the screen and batch output show. False where every
	 * event's error is published (the exporter) or judged (tests). */
	bool shown_event_errors;
	/* The sampler's own CPU time (snapshot's sampler_cost_s) is published
	 * (the exporter): read it every interval. Else it is read only where
	 * -w records it or it may slow pmctop's rotation down, and is NaN
	 * (not measured) otherwise (sampler.c, cost_wanted). */
	bool report_cost;
	/* Which rows' errors each interval finds at once: those of the
	 * scopes no output writes whole (errors_later[scope], set by main
	 * from what batch output and the exporter write; all false, as in
	 * tests: every row's) are left, and found when an output reads them
	 * (the snapshot's error source: snap_row_mrse, on the reader's
	 * thread); with errors_on_demand (the dashboard) the
	 * rows the screen's last frame read are found at once too
	 * (sampler_want_errors), every row until it has said. At 1024 CPUs
	 * the errors of rows nobody looks at were 40 % of the derivation
	 * (docs/performance.md). */
	bool errors_later[SNAP_NSCOPES];
	bool errors_on_demand;
	/* Per-task sampling (tasks.h) for these metrics, the columns of a
	 * tasks view; 0: none. task_freq: samples a second of each event on
	 * each CPU (0: TASKS_DEFAULT_FREQ). */
	int ntask_metrics; const int *task_metrics;
	int task_freq;
	/* Only these processes (-p), and only processes in this cgroup or
	 * below (--cgroup), in the per-task figures; 0 / NULL: all. */
	int ntask_pids; const int *task_pids;
	const char *task_cgroup;
	/* Thread mode: called on the sampler's thread with each snapshot
	 * before it enters the ring (the exporter copies what it needs), or NULL. */
	void (*on_publish)(void *arg, const struct snapshot *snap);
	void *publish_arg;
	/* Called with each finished snapshot and the input derive made it
	 * from (-w: record.h), on the thread that ran the interval, or NULL.
	 * It may note the recording's state in the snapshot. */
	void (*on_record)(void *arg, const struct derive_input *in, struct snapshot *snap);
	void *record_arg;
};

struct sampler;

struct sampler *sampler_new(const struct sampler_config *cfg, char **cause);
void sampler_free(struct sampler *s);
/* The first interval of a new plan in the dashboard (seconds). */
#define SAMPLER_QUICK_S 0.25

/* Runs one full interval (rotating within it unless the kernel does) and returns its snapshot
 * (caller frees). On the perf backend this sleeps in real time; on the sim
 * backend it advances simulated time without sleeping. */
struct snapshot *sampler_step(struct sampler *s, char **cause);
/* Thread mode: start publishing into ring; stop joins the thread. */
int sampler_start(struct sampler *s, struct snap_ring *ring, char **cause);
void sampler_stop(struct sampler *s);
/* Sets cfg.on_record after sampler_new (before the thread starts): -w
 * opens its file only once the counters are. */
void sampler_record(struct sampler *s, void (*fn)(void *arg, const struct derive_input *in,
						  struct snapshot *snap), void *arg);
/* Changes the requested metrics/events; the sampler re-plans before the
 * next interval. Safe to call from another thread. */
void sampler_request(struct sampler *s, int nmetrics, const int *metrics, int nevents, const int *events);
/* The same, with the metrics to count throughout (sched_request.pinned). */
void sampler_request_pinned(struct sampler *s, int nmetrics, const int *metrics, int npinned, const int *pinned,
			    int nevents, const int *events);
/* Changes the metrics sampled per task (0: stop sampling per task); the
 * sampler re-plans before the next interval. Safe from another thread. */
void sampler_request_tasks(struct sampler *s, int nmetrics, const int *metrics);
void sampler_set_interval(struct sampler *s, double interval_s);
/* cfg.errors_on_demand: the rows whose errors the screen read in its last
 * frame, a hint: the intervals after it find theirs at once, the others'
 * are found when read (snap_row_mrse). Copied; safe from another thread. */
void sampler_want_errors(struct sampler *s, const struct derive_want *want);
void sampler_pause(struct sampler *s, bool paused);
const struct sched_plan *sampler_plan(const struct sampler *s);
/* One line per PMU that could not be used (e.g. "hardware counters are not
 * available here: ..."), NULL when all work. Not for other threads while
 * the sampler's thread runs (it rebuilds the text at every re-plan): they
 * read the copy in each snapshot. */
const char *sampler_notice(const struct sampler *s);
/* The backend in use (tests inject faults through it). */
struct backend *sampler_backend(struct sampler *s);

#endif
