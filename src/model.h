/* model.h: a CPU model, as the definition loader (evdef.h) builds it from
 * the files under events/ or perf_import.h from Linux perf's: its PMUs,
 * events, metrics and views, their look-ups and model_free(). The leaf of
 * the model family (docs/architecture.md): the loader's files call it, it
 * calls none of them. The file format is described in
 * docs/definitions.md. Everything here is read-only after model_load(). */
#ifndef PMCTOP_MODEL_H
#define PMCTOP_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct expr;

/* Where a count lives. Events of a wider scope are read once per instance
 * (one CPU per CCX for L3, per socket for UMC) and summed upward. */
enum scope { SCOPE_THREAD, SCOPE_CORE, SCOPE_CCX, SCOPE_SOCKET, SCOPE_SYSTEM, SCOPE_COUNT };
const char *scope_name(enum scope s);
int scope_parse(const char *s); /* -1 if unknown */

enum pmu_kind {
	PMU_CORE,     /* per-thread core counters (perf "cpu" or a raw PMU type) */
	PMU_UNCORE,   /* a PMU with a sysfs cpumask (amd_l3, amd_umc_*) */
	PMU_SOFTWARE, /* perf software events: always available */
	PMU_PROC,     /* not a PMU: figures read from /proc/stat (CPU busy time) */
};

/* One bit field of a vendor's raw register value, e.g. event = bits 0-7 and
 * 32-35 of PERF_CTL. Up to 4 bit ranges, low bits first. */
struct hw_field {
	char *name;
	int nranges;
	struct { int lo, hi; } range[4];
};

struct pmu_def {
	char *name;           /* name used in the definitions: "core", "l3", "umc" */
	char *perf_name;      /* Linux PMU: "cpu", "amd_l3", "amd_umc_*" (glob), "software", "proc" */
	enum pmu_kind kind;
	enum scope scope;
	int counters;         /* general-purpose counters per instance */
	int fixed;            /* fixed counters (Intel), which hold only fixed-able events */
	int nmi_reserved;     /* counters the NMI watchdog holds while it is enabled */
	bool nmi_takes_fixed; /* Intel: the watchdog holds the fixed cycles counter instead */
	char *notation;       /* vendor notation for --list-metrics --raw: "Event", "L3Event", "UMCEvent" */
	int nfields;
	struct hw_field *fields;  /* hardware layout of a raw value */
	uint64_t ignore_mask;     /* raw bits the kernel owns (En, Int, USR, OS) */
	char *file; int line;
};

enum enc_kind {
	ENC_RAW,     /* vendor raw register value, decoded with the PMU's fields */
	ENC_PFM,     /* libpfm4 event string, e.g. "INST_RETIRED:ANY_P" */
	ENC_FIELDS,  /* named fields of the PMU's sysfs format: "event=0x04,umask=0xff" */
	ENC_PERF,    /* perf generic/software: "hardware:cycles", "software:task-clock" */
	ENC_PROC,    /* /proc/stat figure: "busy_ns", "total_ns" */
};

enum event_flags {
	EVF_MERGE = 1 << 0,   /* needs a merged even/odd counter pair (Zen 5 1.3) */
	EVF_FIXED = 1 << 1,   /* can be counted on a fixed counter (Intel) */
	EVF_SATURATES = 1 << 2, /* counter saturates instead of wrapping (UMC) */
	/* Intel PERF_METRICS (Ice Lake and later): the kernel's "slots" event
	 * (fixed counter 3) must lead any group that holds "topdown-*" events,
	 * which take no counter and read as slots x their fraction. */
	EVF_SLOTS = 1 << 3,
	EVF_TOPDOWN = 1 << 4,
};

struct event_def {
	char *name;           /* perf-style name: "ex_ret_brn_misp" */
	int pmu;              /* index into model.pmus */
	enum enc_kind enc;
	uint64_t raw;         /* ENC_RAW */
	char *spec;           /* ENC_PFM/ENC_FIELDS/ENC_PERF/ENC_PROC text */
	char *desc;
	unsigned flags;
	int arch_bit;         /* Intel: CPUID.0AH:EBX bit (-1 if none) */
	/* The general counters that may hold the event (bit i: counter i;
	 * `counters 0-3`, Linux perf's "Counter" list), or 0 for any. The
	 * scheduler and the simulator place a group's events accordingly. */
	uint32_t counter_mask;
	/* The simulated PMU's formula over workload quantities, as written,
	 * or NULL. Parsed and checked when the simulated PMU starts
	 * (backend_sim.c), not at load: the 252 of amd-zen5 cost every start
	 * 0.63 M instructions, only to be thrown away (docs/performance.md);
	 * tests/check_models_lint.c checks every shipped one. */
	char *sim_text;
	/* A kernel feature the event needs: a file under the PMU's sysfs
	 * directory ("events/topdown-retiring"), or NULL. Where the kernel
	 * lacks it, the event is counted with the encoding of event
	 * `fallback` (an index, -1 if none), which counts the same quantity. */
	char *requires;
	int fallback;
	/* What one count is worth in scale_unit (the kernel's events/NAME.scale
	 * and .unit: 2^-32 Joules for the energy counters), or 0 and NULL for
	 * a plain count. The perf backend converts what the kernel's sysfs
	 * says into this, so formulas can rely on it (backend_perf.c). */
	double scale;
	char *scale_unit;
	/* Portable series the event counts towards (`portable NAME [SCALE]`):
	 * vendor-neutral counters such as "instructions" that the exporter
	 * writes beside the vendor's names, the sum of SCALE x count over the
	 * events naming it (docs/definitions.md). */
	int nportable;
	struct portable_term { char *name; double scale; } *portable;
	/* Privilege levels the event leaves out (enum event_excl): 0, or a
	 * variant made by a modifier (`instructions:u`, evdef_modifier.c). */
	unsigned excl;
	char *file; int line;
};

/* What a privilege modifier leaves out: perf_event_attr's exclude_user,
 * exclude_kernel, exclude_hv, exclude_host and exclude_guest. */
enum event_excl {
	EXCL_USER = 1 << 0, EXCL_KERNEL = 1 << 1, EXCL_HV = 1 << 2,
	EXCL_HOST = 1 << 3, EXCL_GUEST = 1 << 4,
};

struct metric_def {
	char *name;           /* "ipc" */
	char *label;          /* column heading: "IPC" */
	char *unit;           /* "ratio" (a 0..1 fraction, shown as %), "%", "/s", "GHz", "ns", ... */
	char *desc;
	enum scope scope;     /* narrowest scope it can be computed at */
	int ngroups;
	char **groups;        /* metric groups: "topdown_l1", "l2", "branch", ... */
	char *formula;
	struct expr *expr;    /* references: event i -> i; metric j -> METRIC_REF(j); builtins */
	int nevents;
	int *events;          /* every event it needs, through other metrics too */
	char *note;           /* erratum or interpretation note, or NULL */
	/* The Linux perf metric (tools/perf/pmu-events) that computes the same
	 * figure, which tests/perf_reference.py checks it against, or NULL. */
	char *perf;
	/* A share in a tree (topdown): the metric it is a part of (an index),
	 * METRIC_PARENT_WHOLE for a part of the whole (level 1: the parts
	 * sum to 1), or -1; and its depth below the whole (1 for level 1, 0
	 * outside a tree). derive_tree.c makes the parts of each parent add
	 * up to it in every row. */
	int parent;
	int depth;
	/* What the figure can physically be: lo..hi (NaN: no bound; a ratio
	 * is 0..1 unless its definition says otherwise), hi_ghz when the
	 * upper bound is the part's highest clock, known only where pmctop
	 * runs (`range 0 max_ghz`). Outside them the estimate is known to be
	 * off: derive_bounds.c says so. */
	double lo, hi;
	bool hi_ghz;
	/* The physical quantity the metric estimates, as a formula over the
	 * simulator's workload quantities (docs/definitions.md), or NULL:
	 * tests/check_truth.c judges the metric against it, not against its
	 * own formula. */
	char *truth;
	/* A figure shared out by task (docs/energy.md): metric `split` (an
	 * index, -1 if none), a socket's watts, is split among the tasks
	 * that ran on the socket by their share of this metric's one event
	 * (cycles). Only a tasks view computes it; CPU rows show NaN. */
	int split;
	char *file; int line;
};
#define METRIC_PARENT_WHOLE (-2)

/* References inside resolved formulas. */
#define METRIC_REF_BASE 0x100000
#define METRIC_REF(j) (METRIC_REF_BASE + (j))
#define BUILTIN_INTERVAL_S 0x200000   /* "interval_s": wall seconds of the interval */

struct view_col {
	int metric;           /* index into model.metrics */
	char *fmt;            /* printf format or "pct" (ratio x 100, "%.1f") */
	int width;            /* 0: default */
	double warn, crit;    /* colour thresholds (NaN: none) */
	bool low_is_bad;      /* thresholds apply below rather than above */
};

struct view_def {
	char *name;           /* "topdown"; also usable with -g */
	char *title;
	int key;              /* digit key 1-9, 0 if none */
	int ncols;
	struct view_col *cols;
	int nbar;
	int *bar;             /* metrics of a stacked bar (topdown), may be 0 */
	int npin;
	int *pin;             /* `pin`: the headline metrics, counted throughout
	                       * the interval (sched_request.pinned), most
	                       * important first; may be 0 */
	char *file; int line;
	bool user;            /* from the user's views file (evdef_user.c), not the model */
	bool tasks;           /* `rows tasks`: a row per process (tasks.c), not per CPU */
};
/* Frees what v holds and zeroes it. */
void view_def_clear(struct view_def *v);

struct model_match {
	char *vendor;         /* "AuthenticAMD", "GenuineIntel", "*" */
	int family;           /* -1: any */
	int model_lo, model_hi;
};

struct model {
	char *name;           /* "amd-zen5" */
	char *desc;
	char *dir;            /* directory it was loaded from */
	char *sim_args;       /* simulated PMU defaults ("ghz=3.33,nominal=2.93,width=4"), or NULL */
	char *alias;          /* short name for --sim and --model ("zen5"), or NULL */
	char *l3_domain;      /* what the dashboard calls a group of CPUs sharing an L3 ("LLC"); NULL: "CCX" */
	int sim_shape[4];     /* default --sim topology SxCxNxT; all 0 if none */
	bool imported;        /* read from Linux perf's JSON files (perf_import.h) */
	int nmatch; struct model_match *match;
	int npmus; struct pmu_def *pmus;
	int nevents; struct event_def *events;
	int nmetrics; struct metric_def *metrics;
	/* Room in events and metrics: the loader sizes them once for its
	 * stanzas (and a few modifiers' variants) rather than growing them,
	 * each growth a copy of up to 55 kB into new pages; 0 in a model
	 * built otherwise, whose arrays hold exactly n (model_room). */
	int events_cap, metrics_cap;
	int nviews; struct view_def *views;
	/* Name look-ups for model_find_*(), filled in while loading; NULL in a
	 * model built by hand, which is then searched in order. */
	struct name_index *index[4];
	/* Where model_load left the strings of the events and metrics it
	 * built, or NULL (model_kept below). */
	struct model_kept *kept;
};

/* The definition files' texts, cut into strings where they were read,
 * and the files' names, given by the loader to the model it built from
 * them (evdef_build_set_kept): the names, descriptions, encodings and
 * formulas of its events and metrics point into these rather than each
 * being a copy of its own (some 2,300 allocations of every start, issue
 * 39). model_free frees these blocks, and skips the strings lying in
 * them; a string made otherwise (a default, a modifier's variant, a
 * user's definition) is the model's own, as before. */
/* Replaces an event's or a metric's string (field, one of m's) with s,
 * which the model then owns: the string before is freed unless it lies
 * in m->kept. What replaces one must go through here, not free. */
void model_str_set(struct model *m, char **field, char *s);

struct model_kept {
	int ntexts;
	char **texts;
	size_t *lens;       /* each text's length; its strings lie within */
	int nfiles;
	char **files;
};

void model_free(struct model *m);

/* Array p of n elements of size bytes, with room for *cap (0: exactly n),
 * made room for one more: grown to twice n where it is full. */
void *model_room(void *p, int n, int *cap, size_t size);

/* A per-CPU PMU that counts all the time (software events, /proc/stat): its
 * events can accompany a rotating per-CPU core PMU's groups, taken over
 * that PMU's windows (sampler_companion.c). */
bool pmu_counts_always(const struct pmu_def *pd);
/* Whether event e can be a column of a group of PMU p: its own PMU's, or
 * a companion (e counts always, p is a per-CPU core PMU). */
bool event_fits_group(const struct model *m, int p, int e);

int model_find_pmu(const struct model *m, const char *name);
int model_find_event(const struct model *m, const char *name);
int model_find_metric(const struct model *m, const char *name);
int model_find_view(const struct model *m, const char *name);
/* Whether metric mi can be attributed to a task by sampling: it is
 * computed per CPU and all its events are core or software events (an
 * L3, memory controller or /proc/stat figure cannot be split by task).
 * If not, and why is not NULL, says which event stands in the way. */
bool metric_per_task(const struct model *m, int mi, char **why);
/* General counters of its PMU that event e holds while it is sampled for
 * per-task figures: one (two for a merged pair) for a core event, none
 * for a software event. What tasks.c budgets and what the perf backend
 * says its samplers hold. */
int event_sample_counters(const struct model *m, int e);
/* True if the metric belongs to metric group g (or is named g). */
bool metric_in_group(const struct metric_def *md, const char *g);

/* Which of struct model's name indexes; model_index_add() records that
 * m's list k holds name at index i (the loader calls it as each is built). */
enum name_kind { NAME_PMU, NAME_EVENT, NAME_METRIC, NAME_VIEW };
void model_index_add(struct model *m, enum name_kind k, const char *name, int i);
/* Frees a model stanza's match list (struct model, struct model_info). */
void model_free_matches(struct model_match *mm, int n);

#endif
