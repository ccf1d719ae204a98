/* tasks_impl.h: the state of per-task sampling that tasks.c (sampling),
 * tasks_names.c (names and cgroups) and tasks_rows.c (the interval's rows)
 * share. Private to them; the interface is tasks.h. */
#ifndef PMCTOP_TASKS_IMPL_H
#define PMCTOP_TASKS_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "backend.h"
#include "evdef.h"
#include "formula.h"

/* A process's name and cgroup are looked up again after this many
 * intervals (a process may exec, or move to another cgroup), and
 * forgotten after it has not run for ten times as long. */
#define INFO_REFRESH 5
#define COMM_MAX 64

struct tcpu {
	int cpu;
	struct bk_sampler *s;
	bool dead;                /* went offline: counted again after the next re-plan */
	struct bk_count *last;    /* [nev] the previous read, for coverage */
	/* The run of samples of one task in progress, per event: who, how
	 * many samples, of what period (see tasks_run_end). */
	int *run_pid;
	double *run_n, *run_per;
};

/* The samples of one process on one CPU in this interval. */
struct tent {
	int pid, cpu;
	double *sum, *sq;         /* [nev]: occurrences, and the variance of that estimate */
	double samples;
};

struct info {
	int pid;
	char comm[COMM_MAX];
	char *cgroup;
	uint64_t looked, seen;    /* interval numbers */
};

struct tasks {
	const struct model *m;
	const struct pmu_backend_ops *ops;
	struct backend *bk;
	int freq;
	int nmetrics;
	int *metrics;
	struct formula **f;       /* [nmetrics], NULL: walk is not needed (too large: NaN) */
	int nev;
	int *events;              /* model events sampled, in the order given to the backend */
	bool *avail;              /* [nev] opened here */
	int *pos;                 /* [m->nevents] position in events, -1 */
	int ncpu;
	struct tcpu *cpu;
	int nslot;
	int *slot;                /* CPU number -> index in cpu[], -1 */
	double *cov_run, *cov_en; /* [nev] this interval, over the CPUs */
	double row_cov;           /* every row's coverage this interval (fill_row) */
	double *per_sum, *per_n;  /* [nev] periods of this interval, for an event without samples */
	long lost;                /* samples the kernel dropped this interval */
	double received;          /* and those it handed over */
	/* (pid, cpu) -> entry, this interval. */
	struct tent *ent;
	int nent, capent;
	int *map;                 /* open addressing over ent, -1 free */
	int capmap;
	double *pool;
	size_t npool, cappool;
	/* -p and --cgroup. */
	int npids;
	int *pids;
	char *cgroup;
	/* Each event as the backend numbers them (the available ones, in
	 * order): its position in events[]. Fixed once tasks_open is done. */
	int nidx;
	int *idx;
	/* Work space: reads, and a formula's values, derivatives and
	 * standard deviations. */
	struct bk_count *buf;
	double *work, *grad, *sd;
	/* pid -> name and cgroup, kept across intervals. */
	struct info *info;        /* the first nsorted by pid */
	int ninfo, capinfo, nsorted;
	uint64_t seq;
};

/* tasks.c: whether -p and --cgroup keep process pid of cgroup cg ("-":
 * unknown); the end of event i's run of samples on CPU c (its variance);
 * the (pid, cpu) map rebuilt with cap places. */
bool tasks_selected(const struct tasks *t, int pid, const char *cg);
void tasks_run_end(struct tasks *t, struct tcpu *c, int i);
void tasks_map_rebuild(struct tasks *t, int cap);

/* tasks_names.c: pid's name and cgroup, looked up where not known or old
 * (NULL: never known); at the interval's end, old names dropped. */
struct info *tasks_name_lookup(struct tasks *t, int pid);
void tasks_names_tidy(struct tasks *t);

#endif
