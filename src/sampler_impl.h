/* sampler_impl.h: the sampler's own state, shared by the files that make
 * up the sampler (sampler.c, the measuring loop; sampler_companion.c, the
 * always-counting events read at every window). Not for anyone else: the
 * rest of pmctop sees struct sampler through sampler.h only. */
#ifndef PMCTOP_SAMPLER_IMPL_H
#define PMCTOP_SAMPLER_IMPL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "backend.h"
#include "derive.h"
#include "sampler.h"
#include "util.h"

struct tasks;

/* One PMU's instances and its place in the rotation. What each group
 * counts is kept with the group (struct grp_state). */
struct pmu_state {
	bool available;       /* has instances and opened */
	int ninst;
	struct bk_instance *inst;
	bool *alive;
	bool *moved;          /* uncore instance whose reader CPU went away */
	bool need_reopen;
	int ngroups;
	int *groups;          /* plan group indices in rotation order */
	int cur;              /* position in groups[] that is enabled */
	int nslots, next_slot;
	/* The tail round (sampler_read.c, plan_tail): ntail short windows,
	 * one per group, in the interval's last tail_ns, after the nslots
	 * rotation slots of the rest of it; 0: none this interval. */
	int ntail;
	uint64_t tail_ns;
	uint64_t next_deadline;
	/* Always-counting per-CPU events that a planned metric divides by this
	 * PMU's counts (sampler_companion.c): read whenever one of its
	 * windows closes and added to the group that ran. */
	int ncomp;
	struct companion *comp;   /* [ncomp] */
};

/* A software or /proc/stat event (cpu_busy_ns for GHz) that accompanies a
 * rotating per-CPU PMU: taken over each of that PMU's windows, so that a
 * ratio of the two comes from one time window, as every ratio must. */
struct companion {
	int event;                /* model event */
	int group, pos;           /* the plan group (on its own PMU) that counts it, and where */
	int *inst;                /* [the accompanied PMU's ninst] its instance on the same CPU, -1: none */
};

/* One plan group opened on each instance of its PMU, with what it
 * counted in the interval: in all and per bucket of rotation windows. */
struct grp_state {
	int pmu;
	int nhw;                  /* events the group itself counts: the first nhw columns */
	int nev;                  /* columns: those, then the PMU's companions (ps->ncomp) */
	int *events;              /* [nev] the model event of each column */
	struct bk_group **bg;     /* [ninst], NULL where not open */
	struct bk_count *prev;    /* [ninst * nhw] last cumulative read */
	uint64_t *cprev;          /* [ninst * ncomp] each companion's value when the window began */
	double *counts;           /* [ninst * nev] counted in the interval so far */
	double *running;          /* [ninst] ns it ran in the interval so far */
	int wins;                 /* windows this interval is planned to have */
	int nwin;                 /* windows closed so far */
	int nbuckets, bucket_cap; /* buckets of windows in use, and room for */
	bool unread;              /* enabled since its last read: counts may have moved */
	double *bucket_counts;    /* [bucket_cap * ninst * nev] counts per bucket */
	double *bucket_running;   /* [bucket_cap * ninst] ns running per bucket */
	/* The bucket of the window read last (-1: none since the interval
	 * began or counts were discarded); at the next interval's start it
	 * is kept as last_counts and last_running (last_ok), and lead is the
	 * share of that interval before the group's first window
	 * (derive_group's pv, pr and lead). */
	int last_b;
	bool last_ok;
	double lead;
	double *last_counts;      /* [ninst * nev] */
	double *last_running;     /* [ninst] */
	size_t last_cap;          /* instances x columns last_counts has room for */
	/* The group's window of the tail round, kept in the bucket after
	 * the last (bucket_counts[nbuckets]), out of the samples; tail_ok
	 * when it ran. trail: the share of the interval after the group's
	 * last window before the tail round (derive_group's tv, tr and
	 * trail). */
	bool tail_ok;
	double trail;
};

struct sampler {
	struct sampler_config cfg;
	char *backend_arg;
	bool *cpu_filter;
	struct backend *bk;

	/* Requested metrics/events and their plan. */
	int nmetrics, nevents, npinned;
	int *metrics, *events, *pinned;
	struct sched_plan *plan;
	struct topo *topo;        /* the sampler's own copy of cfg.topo */
	double rotate_ms;         /* rotation period in force */
	bool kernel_mux;          /* the kernel rotates: all groups enabled, no rotate() */
	struct pmu_state *ps;     /* [npmus] */
	struct grp_state *grp;    /* [plan->ngroups] */
	struct bk_count *buf;     /* one read of the largest group */
	struct bk_count *cbuf;    /* the same, for companions read while buf is in use */
	double max_ghz;           /* the part's highest clock (backend), 0: not known */
	struct derive_cache dcache; /* window sets of the plan, kept between intervals */
	bool *energy_said;    /* [nevents] a standing energy counter was said (sampler_energy.c) */
	bool *event_errors;       /* [nevents] cfg.shown_event_errors: the requested events */
	unsigned plan_gen;        /* counts plans, for dcache */
	/* What derive was given for the interval just built, kept for
	 * cfg.on_record until the snapshot is complete (the CPUs' online
	 * flags as derive saw them: the topology changes right after). */
	struct derive_input rec_in;
	struct topo *rec_topo;
	/* The derivation's view of the PMUs and of the plan's groups, made
	 * again every interval in these (rec_in's point here: they last
	 * until the next interval's are made). */
	struct derive_pmu *dpmus;
	struct derive_group *dgroups;
	int dpmus_cap, dgroups_cap;
	int ntm;                  /* metrics sampled per task */
	int *tm;
	struct tasks *tasks;      /* per-task sampling, NULL when none */
	bool opened;
	bool returned;            /* a CPU came back online: re-plan before the next interval */
	char *notice;             /* what the plan in force has to say, or NULL */
	struct snap_note *note;   /* notice as the snapshots share it (stamp_snapshot), or NULL */
	long read_fails;          /* reads that failed in the interval under way */
	int read_err;             /* the last one's error (negative errno) */

	uint64_t t_start;         /* backend/monotonic ns where the interval began */
	uint64_t seq;
	int noffline, capoffline;
	int *offline;             /* CPUs that went away since the last snapshot */

	/* The rows whose errors each interval finds (take_want): the
	 * screen's word (want_set: it has said one) and the scopes written
	 * whole (cfg.errors_later). */
	struct derive_want want;
	bool want_set;

	/* Shared with other threads, under mu. */
	pthread_mutex_t mu;
	bool *p_want[SNAP_NSCOPES];   /* the screen's latest word (p_want_new) */
	int p_nwant[SNAP_NSCOPES];
	bool p_want_new;
	pthread_cond_t cond;
	bool pending;
	int p_nmetrics, p_nevents, p_npinned;
	int *p_metrics, *p_events, *p_pinned;
	bool p_tasks;             /* p_tm is the new per-task request */
	int p_ntm;
	int *p_tm;
	double interval_s;
	bool paused, resync;
	bool stop;
	/* The user changed the delay or paused: the interval in progress ends
	 * now (it is exact for the time it ran) and the next one starts with
	 * the new delay. Read without the lock by the measuring loop. */
	atomic_bool cut;
	bool thread_running;
	pthread_t thread;
	struct snap_ring *ring;
};

/* Shared by the sampler's files: sampler_open.c opens and closes a plan,
 * sampler_read.c runs and reads an interval and builds its snapshot. */
void sampler_add_notice(struct sampler *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Lists cpu among the CPUs not counted for being offline (once). */
void sampler_record_offline(struct sampler *s, int cpu);
/* CPU cpu is selected (-C) and online. */
bool sampler_cpu_selected(const struct sampler *s, int cpu);
/* Opens the plan of the current request (0), or says why it cannot (-1);
 * sampler_close_all closes every group and forgets the plan's state. */
int sampler_open_all(struct sampler *s, char **cause);
void sampler_close_all(struct sampler *s);
/* Forgets CPU cpu's instances: it went offline. */
void sampler_drop_cpu(struct sampler *s, int cpu);
/* Opens again, on their new reader CPU, the groups of uncore instances
 * whose reader went offline. */
void sampler_reopen_moved(struct sampler *s);
/* Rotates and reads the groups for an interval of len ns from s->t_start:
 * false when a stop was requested midway. */
bool sampler_run_interval(struct sampler *s, uint64_t len, bool check_stop);
/* Reads every group at the interval's end (discard: after a pause, only
 * moves the previous reads on). */
void sampler_read_all(struct sampler *s, bool discard);
/* The snapshot of the interval just read. */
struct snapshot *sampler_build_snapshot(struct sampler *s, double measured_s);
/* The snapshot of an interval whose plan could not be opened: nothing
 * counted, and why in its notice; NULL when stopped meanwhile. */
struct snapshot *sampler_plan_failed(struct sampler *s, uint64_t len, bool check_stop, const char *why);

/* The backend's clock: simulated time on the simulator. */
static inline uint64_t sampler_clock_now(struct sampler *s)
{
	if (s->cfg.ops->advance && s->cfg.ops->now)
		return s->cfg.ops->now(s->bk);
	return now_ns();
}

static inline bool sampler_stop_requested(struct sampler *s)
{
	pthread_mutex_lock(&s->mu);
	bool st = s->stop;
	pthread_mutex_unlock(&s->mu);
	return st;
}

/* Absolute CLOCK_MONOTONIC time for pthread_cond_timedwait (the condition
 * variable is set to that clock). */
static inline struct timespec sampler_mono_ts(uint64_t t)
{
	return (struct timespec){ (time_t)(t / 1000000000ull), (long)(t % 1000000000ull) };
}

/* A buffer for one read of the plan's largest group, made in *buf at the
 * first call of a plan (sampler_close_all frees it). Here, for the
 * reading of the windows (sampler_read.c) and of the companions
 * (sampler_companion.c) alike. */
static inline struct bk_count *sampler_read_buf(struct sampler *s, struct bk_count **buf)
{
	if (!*buf) {
		int n = 1;
		for (int g = 0; g < s->plan->ngroups; g++)
			if (s->plan->groups[g].nevents > n)
				n = s->plan->groups[g].nevents;
		*buf = xcalloc((size_t)n, sizeof(**buf));
	}
	return *buf;
}

#endif
