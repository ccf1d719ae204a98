/* snapshot.h: the immutable result of one refresh interval, and the
 * single-producer/single-consumer ring that hands snapshots from the sampler
 * thread to the screen or a writer without the sampler ever waiting.
 * Nothing in a snapshot changes once it is published: the errors of rows
 * that the derivation left for later come from its error source, found
 * by whoever reads them (snap_row_mrse), on any thread.
 *
 * Names (docs/glossary.md): interval_s is the refresh interval asked for
 * (-d, + and -), measured_s the length an interval really lasted. The
 * outputs and recordings keep their own field names ("interval_s" there
 * is the measured length, "delay_s" the asked one). */
#ifndef PMCTOP_SNAPSHOT_H
#define PMCTOP_SNAPSHOT_H

#include <math.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include "evdef.h"

enum snap_scope { SNAP_CPU, SNAP_CORE, SNAP_CCX, SNAP_SOCKET, SNAP_SYSTEM, SNAP_NSCOPES };

/* One row: a CPU, core, CCX, socket or the whole system. It holds figures
 * only for the snapshot's columns (struct snapshot: mcol, ecol), the
 * metrics and events that were planned: a row of every model metric and
 * event made a snapshot of 1024 CPUs 18 MiB. Read them with snap_metric()
 * and the like below, by model index; NaN where not measured or not
 * planned. */
struct snap_row {
	int id;               /* CPU number, core/CCX/socket index, 0 for system */
	int cpu, core, ccx, socket;   /* -1 where not meaningful */
	int ncpus;            /* online CPUs aggregated into this row */
	double *mv;           /* [nmcols] metric values */
	double *mcov;         /* [nmcols] lowest coverage of its events, 0..1 */
	double *mrse;         /* [nmcols] relative standard error of the value
	                       * (docs/uncertainty.md); 0: exact; NaN: not known */
	double *ev;           /* [necols] scaled event counts for the interval */
	double *ecov;         /* [necols] time_running / interval, 0..1 */
	double *erse;         /* [necols] relative standard error of the count */
	/* Set when the snapshot is made, never changed: the row's errors
	 * (mrse, and erse as a window set's doubt widens it) are not in its
	 * arrays but found from the snapshot's error source when read
	 * (snap_row_mrse, snap_row_erse). The dashboard has them found at
	 * once only for the rows it shows (derive_want). The values are
	 * final either way. */
	bool errors_deferred;
};

/* Where a snapshot's deferred rows' errors come from (derive_errors.c):
 * the interval's group sums and window sets, read-only, shared by
 * reference count. */
struct snap_errors;
/* A drilled fleet host's topology (topo.h). */
struct topo;

/* One process, or one cgroup, from per-task sampling (tasks.c). Its
 * figures are estimates from samples: each metric carries its relative
 * standard error. */
struct snap_task {
	int pid;              /* process id; -1 in a cgroup row */
	char *comm;           /* sanitised name; "-" when the process ended unseen; NULL in a cgroup row */
	char *cgroup;         /* cgroup path, "-" when not known */
	int nprocs;           /* a cgroup row: its processes that ran; a process: 1 */
	double samples;       /* samples behind the figures */
	double *metric;       /* [nmetrics] NaN where not measured or not attributable */
	double *metric_rse;   /* [nmetrics] */
	double cov;           /* share of the interval its events could be counted, 0..1 */
	int ncpus;            /* CPUs it ran on, and its share of the sampled time on each */
	int *cpus;
	double *cpu_share;    /* of its samples of the first sampled event, 0..1 */
};

/* A fleet's host (fleet.h): the text beside its row, rows[SNAP_CPU][i]
 * of a fleet snapshot, whose columns are the fleet's (its model is the
 * one fleet_model_new makes). */
struct snap_host {
	char *name;           /* the target: Prometheus's instance, or HOST:PORT */
	char *model;          /* the CPU model its exporter names ("" when not known) */
	char *status;         /* NULL: figures; else the one-line reason for its '-' (down, stale,
	                       * no hardware series) or for figures kept from before (stale) */
	bool simulated;       /* its exporter says SIMULATED */
	bool stale;           /* the figures are the last good ones, not this refresh's */
	double age_s;         /* seconds since its last interval ended (NaN: not known) */
	double k0, k1;        /* its intervals counted at the window's ends (direct mode; NaN: not known) */
	/* Its labels other than model, sorted by key: Prometheus's target
	 * labels (job, zone, rack: those of up{}), or direct mode's from the
	 * targets file (`HOST:PORT zone=eu1`). */
	int nlabels;
	char **lkeys, **lvals;
};

/* A group of a fleet's hosts that share a label's value (model=zen5):
 * its figures made as the fleet's total is, from the member hosts' terms
 * summed before dividing (fleet_groups.c). */
struct snap_group {
	char *label;          /* the label grouped by ("model") */
	char *value;          /* its value ("" when a host does not say) */
	int nhosts;           /* hosts with that value */
	double *v, *rse;      /* [nmetrics] by model index: the group's figures, their highest error */
};

struct snapshot {
	uint64_t seq;
	size_t alloc_bytes;   /* the size of its own allocation (snapshot.c) */
	/* The source of the rows' errors that were left for later
	 * (snap_row.errors_deferred), held by the snapshot; NULL: none. */
	struct snap_errors *errors;
	double time;          /* seconds since the epoch at the end of the interval */
	double measured_s;    /* the time it really lasted (JSON, CSV, recordings: "interval_s") */
	double interval_s;    /* asked for (-d, + and -; recordings: "delay_s"); 0: not known (an old recording) */
	bool simulated;
	/* Shorter than asked for: the first interval of a new plan in the
	 * dashboard (so that a new view shows figures at once), or one that a
	 * request ended early (a view switch, a pause, a new delay). Its
	 * figures are exact for its own length; the history leaves it out
	 * (its graphs hold intervals of one length). */
	bool quick;
	const struct model *model;
	int nmetrics, nevents;
	bool *metric_planned; /* [nmetrics] */
	bool *event_planned;  /* [nevents] */
	/* The rows' columns: mcol[mi] is metric mi's column in every row's
	 * mv, mcov and mrse, -1 where it has none (its figures are NaN);
	 * ecol[e] likewise for events. NULL (a snapshot built by hand): the
	 * column is the model index. */
	int nmcols, necols;
	int *mcol;            /* [nmetrics] */
	int *ecol;            /* [nevents] */
	int nrows[SNAP_NSCOPES];
	struct snap_row *rows[SNAP_NSCOPES];
	double *block[SNAP_NSCOPES];  /* the rows' arrays, inside the snapshot's own allocation */
	int noffline; int *offline;   /* CPUs offline at the end of the interval, or that
	                               * left during it: not counted, and known why */
	int nreturning; int *returning; /* CPUs back online that are counted from the
	                                 * next interval on */
	char *notice;         /* one line for the user (e.g. why hardware counters are missing), or NULL */
	/* The notice's holder where it is shared (snap_note: the sampler's
	 * notice, the same text interval after interval), else NULL and
	 * notice is the snapshot's own. */
	struct snap_note *note;
	double sampler_cost_s;/* CPU time the sampler spent on this interval */
	/* -w: whether the run records, whether its last write succeeded, and
	 * its write errors so far (record.h); for the exporter. */
	bool recording, recording_ok;
	unsigned long long recording_errors;
	/* Per-task sampling (a tasks view): processes and cgroups that ran in
	 * the interval, busiest first; tasks_on false when nothing sampled. */
	bool tasks_on;
	int ntasks, ncgroups;
	struct snap_task *tasks, *cgroups;
	/* The cgroup tree (F5 in the dashboard): every cgroup on the way from
	 * the root to one in cgroups, with the figures of all its processes
	 * and its children's (as cgroup accounting counts them), by path. */
	int ncgtree;
	struct snap_task *cgtree;
	bool *task_measured;  /* [nmetrics] with tasks_on: every event of the metric is sampled
	                       * (else its per-task figures can only be NaN) */
	long tasks_lost;      /* samples the kernel dropped (its buffer was full) */
	int task_freq;        /* samples a second asked of each event on each CPU */
	double rotate_ms;     /* rotation period in force (it grows when rotating costs too much);
	                       * 0: the kernel rotates (--rotate kernel); NaN: not known */
	/* A fleet (fleet.h): one host per CPU-scope row, nhosts of them;
	 * NULL in every other snapshot. */
	int nhosts;
	struct snap_host *hosts;
	/* A fleet's hosts grouped by each label they carry, label by label:
	 * model first, then the others by name, each label's groups sorted
	 * by value; none otherwise. */
	int ngroups;
	struct snap_group *groups;
	/* A fleet drilled into one host (fleet_drill.c): its name, the rows
	 * (hosts[]) being that host's own CPUs, cores, CCX or sockets; NULL:
	 * the fleet's hosts. */
	char *drill;
	/* A drilled host's topology, from its CPU series' core, ccx and
	 * socket labels, its CPUs numbered as the rows (cpu = row index): the
	 * CCX panels' boxes, whose figures are rows[SNAP_CCX] and whose
	 * strips are rows[SNAP_CORE] by the topology's dense indices. NULL:
	 * none (a host exported wider than its CPUs, every other snapshot). */
	struct topo *drill_topo;
	/* The drilled host's own figures (the system row's) before this
	 * refresh, for the sparklines from the first frame on: npast points,
	 * oldest first, at times past_t[npast], past_step apart, values
	 * past_v[npast x nmetrics] by model index (NaN: none). Prometheus:
	 * query_range; direct mode: the scrapes kept since start. */
	int npast;
	double past_step;
	double *past_t, *past_v;
	/* The owner of mcol, ecol and the planned masks where they are not
	 * the snapshot's own (struct snap_colmap's owner), let go when it
	 * is freed; NULL: they lie in its allocation. */
	void *maps_owner;
	void (*maps_release)(void *owner);
};

/* A snapshot of nrows[sc] rows per scope, every figure NaN, with a column
 * for every metric and event of the model. */
struct snapshot *snapshot_new(const struct model *m, const int nrows[SNAP_NSCOPES]);
/* The same with columns only for the metrics and events marked in mcols
 * and ecols ([nmetrics], [nevents]; NULL: all). events_unset: the events'
 * figures are left as they are, for the caller to write every one of them
 * (derive's step_events, which writes them anyway). */
struct snapshot *snapshot_new_cols(const struct model *m, const int nrows[SNAP_NSCOPES], const bool *mcols,
				   const bool *ecols, bool events_unset);
/* Columns worked out before (derive keeps them while its plan and the
 * open counters stay): nmcols and necols columns, each metric's and
 * event's column (mcol [nmetrics], ecol [nevents], -1: none) and the
 * planned masks the snapshot gets ([nmetrics], [nevents]). */
struct snap_colmap {
	int nmcols, necols;
	const int *mcol, *ecol;
	const bool *mplanned, *eplanned;
	/* Per scope, what every row's metric figures start as (values,
	 * coverages, errors: 3 * nmcols), or NULL: every one NaN. */
	const double *mrow[SNAP_NSCOPES];
	/* Set: the snapshot points at these columns and masks instead of
	 * copying them (a model's hundreds of events, every interval), and
	 * holds their owner until it is freed. They never change while
	 * held. */
	void *owner;
	void (*hold)(void *owner), (*release)(void *owner);
};
/* snapshot_new_cols with those columns and masks copied, not found again
 * from the model's hundreds of marks, and (events_unset) the rows'
 * metric figures from mrow. */
struct snapshot *snapshot_new_mapped(const struct model *m, const int nrows[SNAP_NSCOPES],
				     const struct snap_colmap *maps, bool events_unset);
/* A snapshot of the same model and columns as s, with nrows rows and
 * nothing else copied. */
struct snapshot *snapshot_new_like(const struct snapshot *s, const int nrows[SNAP_NSCOPES]);
/* Bytes that the snapshot's rows and their figures take. */
size_t snapshot_row_bytes(const struct snapshot *s);

/* Metric mi's / event e's column in s's rows, or -1 (never a figure). */
static inline int snap_mcol(const struct snapshot *s, int mi)
{
	if (mi < 0 || mi >= s->nmetrics)
		return -1;
	return s->mcol ? s->mcol[mi] : mi;
}
static inline int snap_ecol(const struct snapshot *s, int e)
{
	if (e < 0 || e >= s->nevents)
		return -1;
	return s->ecol ? s->ecol[e] : e;
}
/* A row's figures by model index: NaN where the snapshot has no column. */
static inline double snap_col_(const double *a, int c)
{
	return c < 0 || !a ? NAN : a[c];
}
static inline double snap_metric(const struct snapshot *s, const struct snap_row *r, int mi)
{
	return snap_col_(r->mv, snap_mcol(s, mi));
}
static inline double snap_metric_cov(const struct snapshot *s, const struct snap_row *r, int mi)
{
	return snap_col_(r->mcov, snap_mcol(s, mi));
}
/* A row's errors, [nmcols] of its metrics and [necols] of its events:
 * its own arrays, or for a deferred row those its snapshot's error source
 * finds (once per row, whichever thread asks first; the same to the bit
 * as a derivation of every row's errors). Valid while s lives. */
const double *snap_errors_row_(const struct snapshot *s, const struct snap_row *r, bool events);
static inline const double *snap_row_mrse(const struct snapshot *s, const struct snap_row *r)
{
	return r->errors_deferred ? snap_errors_row_(s, r, false) : r->mrse;
}
static inline const double *snap_row_erse(const struct snapshot *s, const struct snap_row *r)
{
	return r->errors_deferred ? snap_errors_row_(s, r, true) : r->erse;
}
/* A notice shared by the snapshots that say it (snapshot.note): the
 * sampler's own notice is the same text interval after interval, and a
 * copy of it for each snapshot was an allocation, a copy and a free in
 * every batch interval (docs/performance.md). */
struct snap_note;
struct snap_note *snap_note_new(const char *text);
/* The note's text, NUL-terminated. */
char *snap_note_text(struct snap_note *n);
struct snap_note *snap_note_hold(struct snap_note *n);
void snap_note_release(struct snap_note *n);
/* Holds the source for another snapshot (a copy), and lets go of it. */
struct snap_errors *snap_errors_hold(struct snap_errors *e);
void snap_errors_release(struct snap_errors *e);
static inline double snap_metric_rse(const struct snapshot *s, const struct snap_row *r, int mi)
{
	return snap_col_(snap_row_mrse(s, r), snap_mcol(s, mi));
}
static inline double snap_event(const struct snapshot *s, const struct snap_row *r, int e)
{
	return snap_col_(r->ev, snap_ecol(s, e));
}
static inline double snap_event_cov(const struct snapshot *s, const struct snap_row *r, int e)
{
	return snap_col_(r->ecov, snap_ecol(s, e));
}
static inline double snap_event_rse(const struct snapshot *s, const struct snap_row *r, int e)
{
	return snap_col_(snap_row_erse(s, r), snap_ecol(s, e));
}
void snapshot_free(struct snapshot *s);
/* Frees what a host holds (not the host). */
void snap_host_clear(struct snap_host *h);
/* Frees what a task row holds (not the row). */
void snap_task_clear(struct snap_task *t);
/* Copies n task rows of a snapshot of nmetrics metrics. */
struct snap_task *snap_tasks_dup(const struct snap_task *t, int n, int nmetrics);
/* The row of CPU number cpu, or NULL if it is not in the snapshot. */
const struct snap_row *snapshot_cpu(const struct snapshot *s, int cpu);
/* The row of scope sc whose id is id (CPU number, core/CCX/socket index),
 * or NULL. */
const struct snap_row *snapshot_row(const struct snapshot *s, enum snap_scope sc, int id);
/* The scope of row (a pointer into s's rows) and its index there in
 * *index; -1 when row is not one of s's. */
int snapshot_row_scope(const struct snapshot *s, const struct snap_row *row, int *index);

/* Single-producer/single-consumer ring of snapshot pointers. The producer
 * never blocks: when the ring is full the oldest unread snapshot is dropped
 * (and freed) by the consumer on its next pop. */
#define SNAP_RING_SIZE 8
struct snap_ring {
	struct snapshot *slot[SNAP_RING_SIZE];
	_Atomic unsigned head;  /* written by the producer */
	_Atomic unsigned tail;  /* written by the consumer */
	_Atomic unsigned dropped;
};
void snap_ring_init(struct snap_ring *r);
/* Producer: returns false (and frees s) if the ring is full. */
bool snap_ring_push(struct snap_ring *r, struct snapshot *s);
/* Consumer: the newest snapshot, freeing older ones; NULL if none. */
struct snapshot *snap_ring_pop_latest(struct snap_ring *r);
/* Consumer: the oldest snapshot (batch writers want every one). */
struct snapshot *snap_ring_pop(struct snap_ring *r);
void snap_ring_done(struct snap_ring *r);

#endif
