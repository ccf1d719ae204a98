/* backend.h: the interface between the sampler and a source of counts, the
 * kernel's perf_event (backend_perf.c) or the simulated PMU (backend_sim.c).
 * Both follow the kernel's semantics: a group is opened on one CPU for one
 * PMU instance and is scheduled all-or-nothing, and every read returns the
 * value with time_enabled and time_running so that the caller can scale. */
#ifndef PMCTOP_BACKEND_H
#define PMCTOP_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "evdef.h"
#include "topo.h"

struct backend;
struct bk_group;

struct bk_count {
	uint64_t value;
	uint64_t time_enabled;  /* ns */
	uint64_t time_running;  /* ns */
};

/* One place where a PMU's events are counted: for core PMUs each CPU; for
 * uncore PMUs one reader CPU per instance (per CCX for amd_l3, per socket
 * for each amd_umc_N), as the PMU's cpumask says. */
struct bk_instance {
	int pmu;             /* index into model.pmus */
	char *perf_name;     /* concrete Linux PMU name, e.g. "amd_umc_3" */
	int cpu;             /* CPU the events are opened on */
	enum scope scope;
	int scope_id;        /* CPU number, CCX index or socket index it covers */
};

/* Per-task sampling (tasks.c): events counted on one CPU, each of which
 * hands over a sample, naming the task that was running, every `period`
 * occurrences; the kernel chooses the period so that samples come about
 * freq times a second. A sample stands for `period` occurrences in that
 * task: the estimate behind every per-task figure. */
struct bk_sampler;
struct bk_task_sample {
	int32_t pid;          /* process (thread group) id; 0: the idle task */
	int event;            /* position in the events given to sample_open */
	uint64_t period;      /* occurrences each sample stands for */
	uint32_t n;           /* samples of that period (the simulator batches them; perf: 1) */
};
typedef void (*bk_sample_fn)(void *arg, int cpu, const struct bk_task_sample *ts);

struct pmu_backend_ops {
	const char *name;    /* "perf" or "sim" */
	bool simulated;
	/* Creates the backend for model m on topology t. */
	struct backend *(*create)(const struct model *m, struct topo *t, const char *arg, char **cause);
	void (*destroy)(struct backend *b);
	/* Lists the instances of PMU index pmu. Returns count (0 if the PMU is
	 * absent here) and sets *why to a one-line reason when it is absent. */
	int (*instances)(struct backend *b, int pmu, struct bk_instance **out, char **why);
	/* Whether the kernel has the feature an event `requires`: the file
	 * path under PMU pmu's sysfs directory (e.g. "events/slots" where it
	 * supports PERF_METRICS). NULL: every feature is there. */
	bool (*has_feature)(struct backend *b, int pmu, const char *path);
	/* Whether event e counts what it names here. NULL: every event does.
	 * The simulator gives an imported model's event no meaning unless
	 * events/perf/sim.txt or the hand-written model it simulates from
	 * says what it counts (docs/perf-import.md): such an event is not
	 * counted, so that no figure is built on an arbitrary number. */
	bool (*event_modelled)(struct backend *b, int e);
	/* Counters usable on this PMU now (counters minus reserved ones). */
	int (*free_counters)(struct backend *b, int pmu);
	/* Opens a group (events[0] leads) on inst, disabled. Returns 0 or a
	 * negative errno (-ENOENT, -EACCES, -EBUSY, -ENODEV, -EMFILE, -EINVAL,
	 * -EOPNOTSUPP) with *cause; see backend_error_hint(). */
	int (*open_group)(struct backend *b, const struct bk_instance *inst,
			  const int *events, int nevents, struct bk_group **g, char **cause);
	int (*enable)(struct backend *b, struct bk_group *g);
	int (*disable)(struct backend *b, struct bk_group *g);
	/* Reads every event of the group (cumulative since open). Returns 0 or
	 * a negative errno (-ENODEV when the CPU went offline, -EINTR). */
	int (*read)(struct backend *b, struct bk_group *g, struct bk_count *out);
	void (*close)(struct backend *b, struct bk_group *g);
	/* Opens events[0..n-1] on cpu for per-task sampling, each sampled
	 * about freq times a second, counting at once; hardware events are
	 * pinned (they hold a counter the whole time or report an error).
	 * Returns 0 or a negative errno with *cause. NULL: not supported. */
	int (*sample_open)(struct backend *b, int cpu, const int *events, int n, int freq,
			   struct bk_sampler **out, char **cause);
	/* Hands fn every sample delivered since the previous drain. Returns
	 * the samples the kernel had to drop since then (a full buffer), or a
	 * negative errno (-ENODEV: the CPU went offline). */
	long (*sample_drain)(struct backend *b, struct bk_sampler *s, bk_sample_fn fn, void *arg);
	/* Each event's count and times since open, as read() gives them
	 * (time_running < time_enabled: the event could not be counted all
	 * the time). */
	int (*sample_read)(struct backend *b, struct bk_sampler *s, struct bk_count *out);
	void (*sample_close)(struct backend *b, struct bk_sampler *s);
	/* The name (sanitised by the caller) and cgroup path of process pid.
	 * Returns 0, or -ESRCH when there is no such process (any more). */
	int (*task_info)(struct backend *b, int pid, char *comm, size_t cap, char **cgroup);
	/* Advances simulated time (sim only; NULL for perf, which uses real time). */
	void (*advance)(struct backend *b, uint64_t ns);
	/* Current time in ns on the backend's clock. */
	uint64_t (*now)(struct backend *b);
	/* The kernel time that enabling, disabling and reading groups has cost
	 * since the backend was created, where the backend models the kernel
	 * (sim): the sampler's rotation back-off then follows the model and is
	 * the same on every build and machine, however slow. NULL (perf): the
	 * sampler measures its thread's CPU time, which holds the real
	 * kernel's time for those calls. */
	uint64_t (*kernel_ns)(struct backend *b);
	/* The highest clock the CPUs can run at, in GHz (the simulated part's;
	 * cpufreq's cpuinfo_max_freq on real ones), or 0 when not known: what
	 * an effective-clock figure can never exceed. NULL: not known. */
	double (*max_ghz)(struct backend *b);
};

extern const struct pmu_backend_ops backend_perf;
extern const struct pmu_backend_ops backend_sim;

/* A one-line hint that tells the user what to do about err (negative errno)
 * when opening counters, e.g. EACCES -> perf_event_paranoid / CAP_PERFMON. */
const char *backend_error_hint(int err);

/* Whether the simulated backend b was given ff=1: batch mode then writes
 * intervals without waiting for real time to pass (backend_sim.c). */
bool sim_fast_forward(const struct backend *b);

/* Simulator controls used by tests (backend_sim.c). */
struct sim_fault {
	int cpu;             /* CPU the fault hits, -1 for all */
	int err;             /* negative errno returned by read (or open) */
	int after_reads;     /* inject after this many successful reads */
	bool on_open;        /* fail open_group instead of read */
};
void sim_inject_fault(struct backend *b, const struct sim_fault *f);
/* Fixes the workload of a CPU to constant rates (events per second) for
 * tests: rates[i] for event i of the model, NaN for "use the model". */
void sim_set_constant_rates(struct backend *b, int cpu, const double *rates);
/* Ground truth, for tests that judge pmctop's figures. The quantities
 * (sim_workload.h, WQ_COUNT of them) that inst's source has delivered since
 * time 0: per CPU, CCX, or memory channel. Returns 0, or -1 for an
 * instance the simulator does not have. */
int sim_truth_source(struct backend *b, const struct bk_instance *inst, double *q);
/* What event counts over the quantities dq (a difference of two
 * sim_truth_source readings) of an instance read on cpu, which ran for
 * running_ns: unrounded, never saturated. */
double sim_truth_event(struct backend *b, int cpu, int event, const double *dq, double running_ns);
/* For the open group of events[0..n-1] on inst: each event's unrounded
 * count over exactly the windows in which the group ran since it was
 * opened, and that running time. Returns 0, or -1 when no such group is
 * open. */
int sim_truth_group(struct backend *b, const struct bk_instance *inst, const int *events, int n,
		    double *out, double *running_ns);
/* What process pid really did since time 0 in model event `event`
 * (unrounded), on every CPU sampling that event: the truth per-task
 * figures are judged against. 0 for a pid never seen. */
double sim_truth_task(struct backend *b, int pid, int event);
/* The key under which sim_truth_task gives the energy in nJ that a
 * process's running used in the cores (the power model's core_energy of
 * the segments it ran), which the per-task energy estimate is judged
 * against. */
#define SIM_TRUTH_CORE_NJ 0x7fff0000
/* The pids sim_truth_task knows, at most max; returns how many. */
int sim_truth_pids(struct backend *b, int *pids, int max);
/* Parses "zen5:2x12x8x2" style specs: a model's name or alias (from the
 * models' own definitions) and the topology shape, which defaults to the
 * model's "shape" line; ",KEY=VALUE" options may follow (the backend's
 * argument, checked when it is created). A name no model has is returned as it is, for the
 * caller to report. */
int sim_parse_spec(const char *spec, const struct model_info *models, int nmodels, char **model_name,
		   int shape[4], char **cause);

/* Checks the ",KEY=VALUE" options of a --sim spec against model m as the
 * backend will take them, so that a bad one is bad usage (exit 2) before
 * anything starts. 0, or -1 with *cause. */
int sim_check_args(const struct model *m, const char *arg, char **cause);

#endif
