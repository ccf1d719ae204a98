/* backend_sim_impl.h: the simulated PMU's state, shared by the files it is
 * split into (backend_sim.c and backend_sim_*.c, which say what each does)
 * and by no one else: the rest of pmctop sees only struct backend's name
 * and the ops and controls in backend.h. */
#ifndef PMCTOP_BACKEND_SIM_IMPL_H
#define PMCTOP_BACKEND_SIM_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "backend.h"
#include "model.h"
#include "sim_workload.h"

/* The largest machine --sim builds: enough for the 1024-CPU benchmark with
 * room to spare, small enough that a typo does not exhaust memory. */
#define SIM_MAX_CPUS 4096
#define SIM_MAX_FAULTS 32
/* UMC counters are 48 bits wide and saturate (EVF_SATURATES). */
#define SATURATED ((1ULL << 48) - 1)
/* perf_event_mux_interval_ms's default on x86. */
#define SIM_DEFAULT_MUX_NS 4000000ull
/* What one enable, disable or read of a group on another CPU costs the
 * kernel on bare metal (an inter-processor call; a KVM guest pays 10-20
 * times as much, docs/performance.md). Only the sampler's rotation
 * back-off reads it (kernel_ns), so that on the simulator the back-off is
 * decided by this model, not by how fast this build happens to run. */
#define SIM_DEFAULT_CALL_NS 2000ull

struct sim_cpu {
	int cpu;
	bool present;         /* in the topology, online or not */
	bool offline;         /* went offline through an injected fault */
	int core, ccx, socket; /* dense indices, -1 if none */
	struct wl_cpu wl;
	double q[WQ_COUNT];   /* quantities since time 0 */
	double *rates;        /* constant rates per model event, or NULL */
	uint64_t reads, opens;
	struct simsmp *smp;   /* per-task sampling open on this CPU, or NULL */
};

/* The counters of one PMU instance, shared by the groups opened on it. */
struct sim_slot {
	int pmu;
	int ngroups, cap;
	struct bk_group **enabled;    /* the kernel's list at rotation 0, head first */
	/* While some group cannot run with the others (contended), the list
	 * is rotated by (tick - k_base) mod ngroups, a tick being now / mux_ns;
	 * runs[r * ngroups + i] says whether enabled[i] runs at rotation r and
	 * nruns[i] in how many rotations it does. */
	bool contended;
	uint64_t k_base;
	bool *runs;
	int *nruns;
	int tcap;                     /* ngroups the two tables have room for */
};

struct bk_group {
	struct sim_slot *slot;
	int pmu, cpu, nch;
	const double *src;            /* the cumulative quantities it sees */
	int nevents;
	int *events;
	int need_general, need_pairs, need_fixed;
	bool enabled, running;        /* running: on counters, or may be (contended slot) */
	int pos;                      /* index in slot->enabled while enabled */
	uint64_t since;               /* clock at the last settle */
	uint64_t t_enabled, t_running;
	double acc[WQ_COUNT];         /* quantities while running, per channel */
	double snap[WQ_COUNT];        /* src at the last settle */
	uint64_t *last;               /* last values read: counts never go back */
	/* Every open group, for the ground truth; linked both ways so that a
	 * close unlinks in O(1): the sampler closes a plan's groups in the
	 * order it opened them, the list's tail first (new ones go to its
	 * head), and a walk per close made closing a 1,024-CPU plan of all
	 * metrics take 20 to 30 s (the dashboard's q waited on it). */
	struct bk_group *next_open, **prev_open;
};

struct sim_event {
	struct expr *expr;            /* resolved to quantities, or NULL */
	double cycles_share;          /* without a formula: share of cycles */
	int nparts, *parts;           /* the cases its unit mask selects (sim_masks.c), counted instead */
};

struct backend {
	const struct model *m;
	struct topo *t;
	struct wl_params wp;
	bool nmi;
	bool features;      /* the kernel has what events `require` (PERF_METRICS) */
	bool ff;                /* ff=1: batch mode does not pace intervals to real time */
	int channels;
	uint64_t mux_ns;              /* the kernel's mux tick */
	int ncontended;               /* slots whose groups take turns (sim_settle_contended) */
	uint64_t call_ns;             /* modelled kernel cost of one enable, disable or read */
	uint64_t kernel_ns;           /* what those calls have cost so far */
	bool *absent;                 /* [npmus] */
	uint64_t now;
	int ncpu_map;
	struct sim_cpu *cpus;         /* [t->max_cpu], by CPU number */
	int ncores, nccx, nsockets;
	double (*core_q)[WQ_COUNT];   /* for per-core uncore PMUs (AMD's power_core) */
	double (*ccx_q)[WQ_COUNT];
	double (*sock_q)[WQ_COUNT];
	double sys_q[WQ_COUNT];
	struct sim_event *ev;         /* [m->nevents] */
	struct sim_slot **slots;      /* [npmus][nslots[pmu]] lazily */
	int *nslots;
	int nfaults;
	struct { struct sim_fault f; int seen; } faults[SIM_MAX_FAULTS];
	struct bk_group *open_groups;
	/* Per-task sampling: the task mix (made at the first sample_open),
	 * the truth per task, and the general counters the sampled events
	 * of each PMU hold on every CPU that samples. */
	struct sim_tasks *tasks;
	struct simtruth *truth;
	int *pinned;                  /* [npmus] */
	int nsamplers;                /* CPUs sampling now */
};

/* backend_sim_args.c: the KEY=VALUE options of arg (NULL cause: not said). */
int sim_parse_options(struct backend *b, const char *arg, char **cause);

/* backend_sim_inst.c: instances, their CPUs, slots and sources. */
int sim_instances(struct backend *b, int pmu, struct bk_instance **out, char **why);
bool sim_cpu_usable(const struct backend *b, int cpu);
const char *sim_absent_why(const struct backend *b, int p);
int sim_slot_index(const struct backend *b, const struct pmu_def *pd, const struct bk_instance *inst,
		   int *nch, char **cause);
const double *sim_source_of(const struct backend *b, const struct pmu_def *pd,
			    const struct bk_instance *inst);

/* backend_sim_mux.c: counters, the mux schedule, and the ops that change it. */
bool sim_pmu_unlimited(const struct pmu_def *pd);
void sim_free_on(const struct backend *b, int pmu, bool ignore_pinned, int *general, int *fixed);
bool sim_group_fits(const struct bk_group *grp, int g, int f);
void sim_settle(struct backend *b, struct bk_group *g);
void sim_settle_contended(struct backend *b);
int sim_enable(struct backend *b, struct bk_group *g);
int sim_disable(struct backend *b, struct bk_group *g);

/* backend_sim_clock.c: what an event counts, and the clock's ops. */
double sim_event_value(const struct backend *b, const struct sim_cpu *c, int e, const double *q,
		       double running_ns);
void sim_advance(struct backend *b, uint64_t ns);
uint64_t sim_now(struct backend *b);
uint64_t sim_kernel_ns(struct backend *b);
double sim_max_ghz(struct backend *b);

/* backend_sim_tasks.c: the per-task sampling ops. */
int sim_sample_open(struct backend *b, int cpu, const int *events, int n, int freq,
		    struct bk_sampler **out, char **cause);
long sim_sample_drain(struct backend *b, struct bk_sampler *s, bk_sample_fn fn, void *arg);
int sim_sample_read(struct backend *b, struct bk_sampler *s, struct bk_count *out);
void sim_sample_close(struct backend *b, struct bk_sampler *s);
int sim_task_info(struct backend *b, int pid, char *comm, size_t cap, char **cgroup);

/* backend_sim_truth.c: the injected faults that opens and reads meet. */
int sim_match_fault(const struct backend *b, int cpu, bool on_open);
void sim_drop_fault(struct backend *b, int i);
void sim_go_offline(struct backend *b, int cpu);

#endif
