/* backend_sim.c: the simulated PMU, used by the tests and by `pmctop --sim`.
 * It follows the kernel's perf_event semantics for everything pmctop relies
 * on, with counts from the deterministic workload model of sim_workload.c
 * and time from a simulated clock that only ops->advance() moves.
 *
 * Semantics, and where they simplify the kernel's:
 *  - Instances: core, software and proc PMUs have one per online CPU; an
 *    uncore PMU of scope ccx has one per CCX, read on the CCX's first online
 *    CPU (amd_l3's cpumask); one of scope socket whose perf name is a glob
 *    (amd_umc_*) has `channels` instances per socket, named with the glob
 *    replaced by the channel's machine-wide number, all read on the socket's
 *    first online CPU; a socket PMU without a glob has one per socket.
 *  - Counters: a group needs one general counter per event, two for a
 *    merge-flagged event (an even/odd pair), and none for a fixed-flagged
 *    event while a fixed counter is left; software and proc events need
 *    none. A group that needs more than the PMU has in total fails to open
 *    with -EINVAL, as x86 validate_group() does. The NMI watchdog is on
 *    unless the argument says nmi=0: it holds pmu.nmi_reserved general
 *    counters of core PMUs, or fixed ones where pmu.nmi_takes_fixed. A group
 *    that fits the PMU but not what is free opens but never runs.
 *  - Sharing (the kernel's multiplexing of flexible groups, as on x86): the
 *    groups enabled on one instance form a list, newest last. The kernel
 *    schedules groups from the head of the list while they fit in the free
 *    counters and stops at the first that does not; groups that fit together
 *    all run. While some group cannot run, every mux tick (mux_ms, default
 *    4 ms as perf_event_mux_interval_ms on x86; ticks fall on multiples of
 *    it on the simulated clock, on every instance alike) rotates the list by
 *    one, the head going last. Such a schedule repeats every n ticks for n
 *    groups, so the sim does not step through ticks: it keeps, per instance,
 *    which groups run in each of the n rotations and works out a group's
 *    running time over any span from that table when the group is settled.
 *    Enabling, disabling or closing a group settles the others, keeps the
 *    list's current rotation and tabulates it again. pmctop's own rotation
 *    enables one group per PMU at a time, which therefore runs whenever it
 *    fits in what is free.
 *  - Time: time_enabled grows while a group is enabled, time_running while
 *    it is placed on counters; both and the values are cumulative since
 *    open, on the simulated clock. A group that runs only part of a span is
 *    credited that part of the workload quantities of the span (the
 *    quantities are not tracked tick by tick), which is the even spreading
 *    the kernel's scaling assumes.
 *  - Counts: each event's `sim` formula is evaluated over the workload
 *    quantities accumulated while its group was running: per CPU for thread
 *    and core scope, summed over the CCX for ccx scope, summed over the
 *    socket and divided evenly among its channels for socket scope. An event
 *    without a formula counts a fixed fraction (0.1% to 5%, from a hash of its
 *    name) of cycles. sim_set_constant_rates() replaces the model for a CPU
 *    (or the instances read on it) with rates[i] per second of running time.
 *  - Faults (sim_inject_fault): a read fault fires after `after_reads`
 *    successful reads of groups on that CPU (any CPU for cpu -1). -ENODEV
 *    means the CPU went offline: from then on it has no instances, counts
 *    nothing, and every read or open on it fails with -ENODEV (an uncore
 *    PMU moves to the next online CPU of its CCX or socket, and its groups
 *    on the old CPU must be reopened, where the kernel would migrate them).
 *    Any other read error (-EINTR, or -EIO for a short read) fires once.
 *    An open fault (on_open) fails every open on that CPU after
 *    `after_reads` successful opens, until cleared by a fault with err 0.
 *  - Absent PMUs: an event of a PMU listed in absent=..., or of an uncore
 *    ccx PMU on a topology without L3, fails to open with -ENOENT.
 *  - Ground truth (sim_truth_*): the simulator knows what really happened,
 *    so tests can judge pmctop's figures: the quantities of any instance's
 *    source since time 0 (whole-interval truth is the difference at the
 *    interval's ends), and for each open group the unrounded count of each
 *    event over exactly the windows in which the group ran.
 *
 * The argument is a comma-separated list; items without '=' (the --sim spec
 * itself) are ignored, the others are nmi=0|1, seed=N, channels=N (memory
 * channels per socket, default: the CCX per socket, within 2-12), ghz=MAX, nominal=GHZ, width=SLOTS
 * (dispatch slots per cycle, default 8), mux_ms=N (the kernel's mux tick,
 * 1-10000, default 4), absent=PMU[+PMU...], features=0|1 (0: a kernel
 * without the features events name with `requires`, such as Intel's
 * PERF_METRICS: those events fail to open, as on a kernel before 5.9),
 * ff=0|1 (fast-forward: batch mode writes simulated intervals as fast as
 * they are computed instead of one every -d of real time; for soaks and
 * benchmarks, see docs/soak.md). */
#include "config.h"
#include "backend.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "expr.h"
#include "sim_sampling.h"
#include "sim_tasks.h"
#include "sim_masks.h"
#include "sim_counters.h"
#include "sim_workload.h"
#include "util.h"

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
	struct bk_group *next_open;   /* every open group, for the ground truth */
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

/* ---- argument and set-up ---- */

static int parse_arg(struct backend *b, const char *arg, char **cause)
{
	if (!arg || !*arg)
		return 0;
	char *copy = xstrdup(arg), *save = NULL;
	int rc = 0;
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		if (!eq)
			continue;       /* the --sim spec: the topology is already built */
		*eq = '\0';
		const char *key = tok, *val = eq + 1;
		char *end = NULL;
		errno = 0;
		if (strcmp(key, "nmi") == 0 && (strcmp(val, "0") == 0 || strcmp(val, "1") == 0)) {
			b->nmi = val[0] == '1';
		} else if (strcmp(key, "features") == 0 && (strcmp(val, "0") == 0 || strcmp(val, "1") == 0)) {
			b->features = val[0] == '1';
		} else if (strcmp(key, "ff") == 0 && (strcmp(val, "0") == 0 || strcmp(val, "1") == 0)) {
			b->ff = val[0] == '1';
		} else if (strcmp(key, "seed") == 0) {
			unsigned long long v = strtoull(val, &end, 0);
			if (!*val || *end || errno)
				goto bad;
			b->wp.seed = v;
		} else if (strcmp(key, "channels") == 0) {
			long v = strtol(val, &end, 10);
			if (!*val || *end || v < 1 || v > 64)
				goto bad;
			b->channels = (int)v;
		} else if (strcmp(key, "mux_ms") == 0) {
			long v = strtol(val, &end, 10);
			if (!*val || *end || v < 1 || v > 10000)
				goto bad;
			b->mux_ns = (uint64_t)v * 1000000ull;
		} else if (strcmp(key, "call_us") == 0) {
			double v = strtod(val, &end);
			if (!*val || *end || !(v >= 0 && v <= 10000))
				goto bad;
			b->call_ns = (uint64_t)llround(v * 1e3);
		} else if (strcmp(key, "width") == 0) {
			long v = strtol(val, &end, 10);
			if (!*val || *end || v < 1 || v > 64)
				goto bad;
			b->wp.width = (int)v;
		} else if (strcmp(key, "ghz") == 0 || strcmp(key, "nominal") == 0) {
			double v = strtod(val, &end);
			if (!*val || *end || !(v > 0.1 && v < 100))
				goto bad;
			*(key[0] == 'g' ? &b->wp.ghz_max : &b->wp.ghz_nominal) = v;
		} else if (strcmp(key, "absent") == 0) {
			char *s2 = NULL, *list = xstrdup(val);
			for (char *n = strtok_r(list, "+", &s2); n; n = strtok_r(NULL, "+", &s2)) {
				int i;
				for (i = 0; i < b->m->npmus; i++)
					if (strcmp(b->m->pmus[i].name, n) == 0 ||
					    strcmp(b->m->pmus[i].perf_name, n) == 0)
						break;
				if (i == b->m->npmus) {
					rc = set_cause(cause, "sim: absent=%s: model %s has no PMU '%s'",
						       val, b->m->name, n);
					free(list);
					goto out;
				}
				b->absent[i] = true;
			}
			free(list);
		} else {
			goto bad;
		}
		continue;
bad:
		rc = set_cause(cause, "sim: bad option '%s=%s' (expected nmi=0|1, features=0|1, ff=0|1, seed=N, "
			       "channels=1-64, ghz=X, nominal=X, width=1-64, mux_ms=1-10000, call_us=0-10000, absent=PMU[+PMU])", key, val);
		goto out;
	}
	if (b->wp.ghz_nominal > b->wp.ghz_max)
		rc = set_cause(cause, "sim: nominal clock %.2f GHz is above the maximum %.2f GHz",
			       b->wp.ghz_nominal, b->wp.ghz_max);
out:
	free(copy);
	return rc;
}

int sim_check_args(const struct model *m, const char *arg, char **cause)
{
	struct backend *b = xcalloc(1, sizeof(*b));
	b->m = m;
	wl_params_default(&b->wp);
	b->absent = xcalloc((size_t)(m->npmus ? m->npmus : 1), sizeof(bool));
	/* The model's own defaults are checked when the backend is created
	 * (a model file at fault is not bad usage); here they only set the
	 * clocks that a "nominal=" is compared with. */
	if (m->sim_args)
		parse_arg(b, m->sim_args, NULL);
	int rc = parse_arg(b, arg, cause);
	free(b->absent);
	free(b);
	return rc;
}

static int resolve_quantity(void *ctx, const char *name)
{
	(void)ctx;
	return wl_quantity_lookup(name);
}

static double name_share(const char *name)
{
	/* FNV-1a: stable across runs and platforms. */
	uint32_t h = 2166136261u;
	for (const char *p = name ? name : ""; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	return 0.001 + 0.049 * (double)(h % 1000) / 999.0;
}

static int prepare_events(struct backend *b, char **cause)
{
	const struct model *m = b->m;
	b->ev = xcalloc((size_t)(m->nevents ? m->nevents : 1), sizeof(*b->ev));
	for (int i = 0; i < m->nevents; i++) {
		const struct event_def *e = &m->events[i];
		b->ev[i].cycles_share = name_share(e->name);
		if (!e->sim_text || !*e->sim_text)
			continue;
		/* A private tree: the model is shared and read-only. */
		int col = 0;
		char *why = NULL;
		struct expr *x = expr_parse(e->sim_text, &col, &why);
		if (x && expr_resolve(x, resolve_quantity, NULL, &col, &why) < 0) {
			expr_free(x);
			x = NULL;
		}
		if (!x) {
			set_cause(cause, "%s:%d: event %s: sim formula '%s': %s",
				  e->file ? e->file : m->name, e->line, e->name, e->sim_text,
				  why ? why : "invalid");
			free(why);
			return -1;
		}
		b->ev[i].expr = x;
	}
	for (int i = 0; i < m->nevents; i++)
		b->ev[i].parts = sim_mask_parts(m, i, &b->ev[i].nparts);
	return 0;
}

static void sim_destroy(struct backend *b);

static struct backend *sim_create(const struct model *m, struct topo *t, const char *arg, char **cause)
{
	if (!m || !t)
		return set_cause(cause, "sim: no model or topology"), NULL;
	if (t->max_cpu <= 0 || t->max_cpu > SIM_MAX_CPUS)
		return set_cause(cause, "sim: %d CPUs is outside 1-%d", t->max_cpu, SIM_MAX_CPUS), NULL;

	struct backend *b = xcalloc(1, sizeof(*b));
	b->m = m;
	b->t = t;
	wl_params_default(&b->wp);
	b->wp.smt = t->threads_per_core > 1;
	b->nmi = true;
	b->features = true;
	b->mux_ns = SIM_DEFAULT_MUX_NS;
	b->call_ns = SIM_DEFAULT_CALL_NS;
	/* Memory channels grow with the machine, as on real parts (a 2-CCX
	 * desktop has 2, a 12-CCX-per-socket server 12), so that simulated
	 * bandwidth per channel stays plausible at any shape. */
	int ccx_per_socket = t->nsockets > 0 ? t->nccx / t->nsockets : 1;
	b->channels = ccx_per_socket < 2 ? 2 : ccx_per_socket > 12 ? 12 : ccx_per_socket;
	b->absent = xcalloc((size_t)(m->npmus ? m->npmus : 1), sizeof(bool));
	/* The model's own defaults first (its clock and width, as data in its
	 * model.def), then what the caller asked for, which wins. */
	if (m->sim_args && parse_arg(b, m->sim_args, cause) < 0) {
		char *why = cause ? *cause : NULL;
		if (cause)
			*cause = xasprintf("%s: 'sim %s' in model.def: %s", m->name, m->sim_args, why ? why : "bad value");
		free(why);
		goto fail;
	}
	if (parse_arg(b, arg, cause) < 0 || prepare_events(b, cause) < 0)
		goto fail;

	b->ncpu_map = t->max_cpu;
	b->cpus = xcalloc((size_t)b->ncpu_map, sizeof(*b->cpus));
	for (int i = 0; i < b->ncpu_map; i++) {
		b->cpus[i].cpu = i;
		b->cpus[i].core = b->cpus[i].ccx = b->cpus[i].socket = -1;
	}
	for (int i = 0; i < t->ncpus; i++) {
		const struct topo_cpu *c = &t->cpus[i];
		if (c->cpu < 0 || c->cpu >= b->ncpu_map)
			continue;
		b->cpus[c->cpu].present = true;
		wl_cpu_init(&b->cpus[c->cpu].wl, &b->wp, c->cpu);
	}
	b->ncores = t->ncores;
	b->nccx = t->nccx;
	b->nsockets = t->nsockets;
	for (int k = 0; k < t->ncores; k++)
		for (int j = 0; j < t->cores[k].ncpus; j++) {
			int cpu = t->cores[k].cpus[j];
			if (cpu >= 0 && cpu < b->ncpu_map)
				b->cpus[cpu].core = k;
		}
	for (int x = 0; x < t->nccx; x++)
		for (int k = 0; k < t->ccxs[x].ncpus; k++) {
			int cpu = t->ccxs[x].cpus[k];
			if (cpu >= 0 && cpu < b->ncpu_map)
				b->cpus[cpu].ccx = x;
		}
	for (int s = 0; s < t->nsockets; s++)
		for (int k = 0; k < t->sockets[s].ncpus; k++) {
			int cpu = t->sockets[s].cpus[k];
			if (cpu >= 0 && cpu < b->ncpu_map)
				b->cpus[cpu].socket = s;
		}
	b->core_q = xcalloc((size_t)(b->ncores ? b->ncores : 1), sizeof(*b->core_q));
	b->ccx_q = xcalloc((size_t)(b->nccx ? b->nccx : 1), sizeof(*b->ccx_q));
	b->sock_q = xcalloc((size_t)(b->nsockets ? b->nsockets : 1), sizeof(*b->sock_q));
	b->slots = xcalloc((size_t)(m->npmus ? m->npmus : 1), sizeof(*b->slots));
	b->nslots = xcalloc((size_t)(m->npmus ? m->npmus : 1), sizeof(int));
	for (int p = 0; p < m->npmus; p++) {
		/* Slots are indexed by CPU for per-CPU PMUs, by core, CCX,
		 * socket x channel, or 0 for system scope: see slot_index(). */
		int n = b->ncpu_map;
		if (m->pmus[p].kind == PMU_UNCORE) {
			if (m->pmus[p].scope == SCOPE_CORE)
				n = b->ncores;
			else if (m->pmus[p].scope == SCOPE_CCX)
				n = b->nccx;
			else if (m->pmus[p].scope == SCOPE_SOCKET)
				n = b->nsockets * b->channels;
			else if (m->pmus[p].scope == SCOPE_SYSTEM)
				n = 1;
		}
		b->nslots[p] = n;
		b->slots[p] = xcalloc((size_t)(n ? n : 1), sizeof(struct sim_slot));
		for (int k = 0; k < n; k++)
			b->slots[p][k].pmu = p;
	}
	return b;
fail:
	sim_destroy(b);
	return NULL;
}

static void sim_destroy(struct backend *b)
{
	if (!b)
		return;
	if (b->ev)
		for (int i = 0; i < b->m->nevents; i++) {
			expr_free(b->ev[i].expr);
			free(b->ev[i].parts);
		}
	free(b->ev);
	if (b->cpus)
		for (int i = 0; i < b->ncpu_map; i++)
			free(b->cpus[i].rates);
	if (b->cpus)
		for (int i = 0; i < b->ncpu_map; i++)
			simsmp_free(b->cpus[i].smp);
	free(b->cpus);
	simt_free(b->tasks);
	simtruth_free(b->truth);
	free(b->pinned);
	if (b->slots)
		for (int p = 0; p < b->m->npmus; p++) {
			for (int k = 0; k < b->nslots[p]; k++) {
				free(b->slots[p][k].enabled);
				free(b->slots[p][k].runs);
				free(b->slots[p][k].nruns);
			}
			free(b->slots[p]);
		}
	free(b->slots);
	free(b->nslots);
	free(b->core_q);
	free(b->ccx_q);
	free(b->sock_q);
	free(b->absent);
	free(b);
}

/* ---- instances ---- */

/* Online in the topology (which the caller may change with
 * topo_set_online) and not taken offline by an injected fault. */
static bool cpu_usable(const struct backend *b, int cpu)
{
	if (cpu < 0 || cpu >= b->ncpu_map || !b->cpus[cpu].present || b->cpus[cpu].offline)
		return false;
	const struct topo_cpu *tc = topo_cpu_by_num(b->t, cpu);
	return tc && tc->online;
}

static int first_usable(const struct backend *b, const int *cpus, int n)
{
	for (int k = 0; k < n; k++)
		if (cpu_usable(b, cpus[k]))
			return cpus[k];
	return -1;
}

static bool per_cpu_pmu(const struct pmu_def *pd)
{
	return pd->kind != PMU_UNCORE || pd->scope == SCOPE_THREAD;
}

/* The glob's '*' replaced by n ("amd_umc_*" -> "amd_umc_3"). */
static char *glob_name(const char *glob, int n)
{
	const char *star = strchr(glob, '*');
	if (!star)
		return xstrdup(glob);
	return xasprintf("%.*s%d%s", (int)(star - glob), glob, n, star + 1);
}

static bool is_glob(const struct pmu_def *pd)
{
	return pd->perf_name && strchr(pd->perf_name, '*');
}

/* Why PMU p has no instances here, or NULL when it has. */
static const char *absent_why(const struct backend *b, int p)
{
	const struct pmu_def *pd = &b->m->pmus[p];
	if (b->absent[p])
		return "not present on this simulated machine (absent=)";
	if (pd->kind == PMU_UNCORE && pd->scope == SCOPE_CCX && b->nccx == 0)
		return "the simulated topology has no L3 (CCX)";
	if (pd->kind == PMU_UNCORE && pd->scope == SCOPE_SOCKET && b->nsockets == 0)
		return "the simulated topology has no sockets";
	return NULL;
}

static void add_instance(struct bk_instance **v, int *n, int *cap, int pmu, char *name, int cpu,
			 enum scope sc, int id)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		*v = xrealloc(*v, sizeof(**v) * (size_t)*cap);
	}
	(*v)[(*n)++] = (struct bk_instance){ .pmu = pmu, .perf_name = name, .cpu = cpu,
					     .scope = sc, .scope_id = id };
}

/* The caller frees each perf_name and the array. */
static int sim_instances(struct backend *b, int pmu, struct bk_instance **out, char **why)
{
	*out = NULL;
	if (pmu < 0 || pmu >= b->m->npmus) {
		if (why)
			*why = xasprintf("no PMU number %d in model %s", pmu, b->m->name);
		return 0;
	}
	const struct pmu_def *pd = &b->m->pmus[pmu];
	const char *reason = absent_why(b, pmu);
	if (reason) {
		if (why)
			*why = xasprintf("%s (%s): %s", pd->name, pd->perf_name, reason);
		return 0;
	}
	struct bk_instance *v = NULL;
	int n = 0, cap = 0;
	if (per_cpu_pmu(pd)) {
		for (int cpu = 0; cpu < b->ncpu_map; cpu++)
			if (cpu_usable(b, cpu))
				add_instance(&v, &n, &cap, pmu, xstrdup(pd->perf_name), cpu, pd->scope, cpu);
	} else if (pd->scope == SCOPE_CORE) {
		/* One reader per core, as the kernel's cpumask lists them. */
		for (int k = 0; k < b->ncores; k++) {
			int cpu = first_usable(b, b->t->cores[k].cpus, b->t->cores[k].ncpus);
			if (cpu >= 0)
				add_instance(&v, &n, &cap, pmu, xstrdup(pd->perf_name), cpu, SCOPE_CORE, k);
		}
	} else if (pd->scope == SCOPE_CCX) {
		for (int x = 0; x < b->nccx; x++) {
			int cpu = first_usable(b, b->t->ccxs[x].cpus, b->t->ccxs[x].ncpus);
			if (cpu >= 0)
				add_instance(&v, &n, &cap, pmu, xstrdup(pd->perf_name), cpu, SCOPE_CCX, x);
		}
	} else if (pd->scope == SCOPE_SOCKET) {
		int nch = is_glob(pd) ? b->channels : 1;
		for (int s = 0; s < b->nsockets; s++) {
			int cpu = first_usable(b, b->t->sockets[s].cpus, b->t->sockets[s].ncpus);
			if (cpu < 0)
				continue;
			for (int k = 0; k < nch; k++)
				add_instance(&v, &n, &cap, pmu, glob_name(pd->perf_name, s * nch + k), cpu,
					     SCOPE_SOCKET, s);
		}
	} else {
		for (int cpu = 0; cpu < b->ncpu_map; cpu++)
			if (cpu_usable(b, cpu)) {
				add_instance(&v, &n, &cap, pmu, xstrdup(pd->perf_name), cpu, pd->scope, 0);
				break;
			}
	}
	if (n == 0 && why)
		*why = xasprintf("%s (%s): no online CPU to read it on", pd->name, pd->perf_name);
	*out = v;
	return n;
}

/* ---- counters ---- */

static bool unlimited(const struct pmu_def *pd)
{
	return pd->kind == PMU_SOFTWARE || pd->kind == PMU_PROC;
}

/* General and fixed counters left free by the NMI watchdog and, unless
 * ignore_pinned (a CPU that does not sample yet), by the sampled events. */
static void free_on(const struct backend *b, int pmu, bool ignore_pinned, int *general, int *fixed)
{
	const struct pmu_def *pd = &b->m->pmus[pmu];
	*general = pd->counters;
	*fixed = pd->fixed;
	if (b->nmi && pd->kind == PMU_CORE && pd->nmi_reserved > 0) {
		if (pd->nmi_takes_fixed && pd->fixed > 0)
			*fixed -= pd->nmi_reserved;
		else
			*general -= pd->nmi_reserved;
	}
	if (b->pinned && !ignore_pinned)
		*general -= b->pinned[pmu];
	if (*general < 0)
		*general = 0;
	if (*fixed < 0)
		*fixed = 0;
}

static bool sim_has_feature(struct backend *b, int pmu, const char *path)
{
	(void)path;
	return b->features && pmu >= 0 && pmu < b->m->npmus && !absent_why(b, pmu);
}

static int sim_free_counters(struct backend *b, int pmu)
{
	if (pmu < 0 || pmu >= b->m->npmus)
		return 0;
	int g, f;
	free_on(b, pmu, false, &g, &f);
	return g;
}

/* Whether a group fits in general counters g (pairs of them for merged
 * events) and fixed counters f. Fixed-able events take fixed counters
 * while any is left, then general ones. */
static bool fits(const struct bk_group *grp, int g, int f)
{
	int spill = grp->need_fixed > f ? grp->need_fixed - f : 0;
	int singles = grp->need_general + spill;
	return grp->need_pairs <= g / 2 && 2 * grp->need_pairs + singles <= g;
}

static void group_uses(const struct bk_group *grp, int *g, int *f)
{
	int on_fixed = grp->need_fixed < *f ? grp->need_fixed : *f;
	*f -= on_fixed;
	*g -= 2 * grp->need_pairs + grp->need_general + (grp->need_fixed - on_fixed);
}

/* ---- time and quantities ---- */

/* How long group i of a contended slot ran in [t1, t2] (t1 not before the
 * slot's k_base tick): the partial ticks at both ends, whole cycles of n
 * ticks from the table's counts, and the fewer than n ticks left over. */
static uint64_t mux_running(const struct backend *b, const struct sim_slot *s, int i,
			    uint64_t t1, uint64_t t2)
{
	uint64_t mux = b->mux_ns, n = (uint64_t)s->ngroups;
	if (t2 <= t1 || n == 0)
		return 0;
#define RUNS_AT(k) s->runs[(((k) - s->k_base) % n) * n + (uint64_t)i]
	uint64_t k1 = t1 / mux, k2 = t2 / mux;
	if (k1 == k2)
		return RUNS_AT(k1) ? t2 - t1 : 0;
	uint64_t run = 0;
	if (RUNS_AT(k1))
		run += (k1 + 1) * mux - t1;
	if (RUNS_AT(k2))
		run += t2 - k2 * mux;
	uint64_t full = k2 - k1 - 1;
	run += full / n * (uint64_t)s->nruns[i] * mux;
	for (uint64_t k = k1 + 1 + full / n * n; k < k2; k++)
		if (RUNS_AT(k))
			run += mux;
#undef RUNS_AT
	return run;
}

/* Brings a group's times and quantities up to the clock. */
static void settle(struct backend *b, struct bk_group *g)
{
	uint64_t dt = b->now - g->since;
	uint64_t run = 0;
	if (g->enabled)
		g->t_enabled += dt;
	if (g->running)
		run = g->slot->contended ? mux_running(b, g->slot, g->pos, g->since, b->now) : dt;
	if (run > 0) {
		g->t_running += run;
		double k = (double)run / (double)dt / g->nch;
		for (int q = 0; q < WQ_COUNT; q++)
			g->acc[q] += (g->src[q] - g->snap[q]) * k;
	}
	memcpy(g->snap, g->src, sizeof(g->snap));
	g->since = b->now;
}

/* Settles every group of a slot and makes the list's current rotation its
 * rotation 0, before a group joins or leaves it. */
static void settle_slot(struct backend *b, struct sim_slot *s)
{
	for (int i = 0; i < s->ngroups; i++)
		settle(b, s->enabled[i]);
	uint64_t k = b->now / b->mux_ns;
	if (s->contended && s->ngroups > 1) {
		int r = (int)((k - s->k_base) % (uint64_t)s->ngroups);
		if (r > 0) {
			struct bk_group **tmp = xmalloc(sizeof(*tmp) * (size_t)s->ngroups);
			for (int i = 0; i < s->ngroups; i++)
				tmp[i] = s->enabled[(i + r) % s->ngroups];
			memcpy(s->enabled, tmp, sizeof(*tmp) * (size_t)s->ngroups);
			free(tmp);
		}
	}
	s->k_base = k;
}

/* Which groups run at rotation r: from the head while they fit, stopping
 * at the first that does not (x86 flexible groups). Returns whether all do. */
static bool schedule_rotation(struct backend *b, struct sim_slot *s, int r)
{
	const struct pmu_def *pd = &b->m->pmus[s->pmu];
	int n = s->ngroups, g, f;
	free_on(b, s->pmu, false, &g, &f);
	bool all = true;
	for (int j = 0; j < n; j++) {
		int i = (r + j) % n;
		struct bk_group *grp = s->enabled[i];
		bool ok = all && (unlimited(pd) || fits(grp, g, f));
		if (ok && !unlimited(pd))
			group_uses(grp, &g, &f);
		if (!ok)
			all = false;
		s->runs[r * n + i] = ok;
		s->nruns[i] += ok;
	}
	return all;
}

/* Tabulates the schedule of a settled slot. When every group fits at
 * rotation 0 they fit in any order (the counters needed only add up), so
 * the other rotations are worked out only for a contended slot. */
static void place(struct backend *b, struct sim_slot *s)
{
	int n = s->ngroups;
	if (n > s->tcap) {
		s->tcap = n > 2 * s->tcap ? n : 2 * s->tcap;
		s->runs = xrealloc(s->runs, sizeof(bool) * (size_t)s->tcap * (size_t)s->tcap);
		s->nruns = xrealloc(s->nruns, sizeof(int) * (size_t)s->tcap);
	}
	for (int i = 0; i < n; i++) {
		s->enabled[i]->pos = i;
		s->nruns[i] = 0;
	}
	s->contended = n > 0 && !schedule_rotation(b, s, 0);
	if (s->contended)
		for (int r = 1; r < n; r++)
			schedule_rotation(b, s, r);
	for (int i = 0; i < n; i++) {
		struct bk_group *grp = s->enabled[i];
		grp->running = (s->contended || s->runs[i]) && cpu_usable(b, grp->cpu);
	}
}

static double event_value(const struct backend *b, const struct sim_cpu *c, int e, const double *q,
			  double running_ns);

/* One segment's piece of a CPU's time: its task did what the segment's
 * rates say, and the CPU's sampled events count it. */
struct span_ctx { struct backend *b; struct sim_cpu *c; };

static void sample_span(void *arg, const struct wl_cpu *w, uint64_t start, uint64_t len)
{
	struct span_ctx *sc = arg;
	struct backend *b = sc->b;
	double dq[WQ_COUNT];
	for (int q = 0; q < WQ_COUNT; q++)
		dq[q] = w->seg[q] * (double)len;
	int n = simsmp_nevents(sc->c->smp);
	const int *ev = simsmp_events(sc->c->smp);
	double *counts = simsmp_scratch(sc->c->smp);
	for (int i = 0; i < n; i++)
		counts[i] = event_value(b, sc->c, ev[i], dq, (double)len);
	int pid = simt_pick(b->tasks, w, start);
	simsmp_span(sc->c->smp, pid, counts, len, start + len, b->truth);
	simtruth_add(b->truth, pid, SIM_TRUTH_CORE_NJ, dq[WQ_CORE_ENERGY], start + len);
}

static void sim_advance(struct backend *b, uint64_t ns)
{
	if (ns == 0)
		return;
	double (*dsock)[WQ_COUNT] = xcalloc((size_t)(b->nsockets ? b->nsockets : 1), sizeof(*dsock));
	for (int cpu = 0; cpu < b->ncpu_map; cpu++) {
		struct sim_cpu *c = &b->cpus[cpu];
		if (!c->present)
			continue;
		double d[WQ_COUNT] = { 0 };
		/* Offline CPUs keep their place in the phase sequence but count
		 * nothing, so that a CPU's phases do not depend on hotplug. */
		if (c->smp && cpu_usable(b, cpu)) {
			struct span_ctx sc = { b, c };
			wl_cpu_advance_spans(&c->wl, &b->wp, b->now, ns, d, sample_span, &sc);
		} else {
			wl_cpu_advance(&c->wl, &b->wp, b->now, ns, d);
		}
		if (!cpu_usable(b, cpu))
			continue;
		for (int q = 0; q < WQ_COUNT; q++) {
			c->q[q] += d[q];
			b->sys_q[q] += d[q];
		}
		if (c->core >= 0 && c->core < b->ncores)
			for (int q = 0; q < WQ_COUNT; q++)
				b->core_q[c->core][q] += d[q];
		if (c->ccx >= 0 && c->ccx < b->nccx)
			for (int q = 0; q < WQ_COUNT; q++)
				b->ccx_q[c->ccx][q] += d[q];
		if (c->socket >= 0 && c->socket < b->nsockets)
			for (int q = 0; q < WQ_COUNT; q++)
				dsock[c->socket][q] += d[q];
	}
	for (int s = 0; s < b->nsockets; s++) {
		wl_channel_fill(&b->wp, b->channels, ns, dsock[s]);
		wl_socket_power_fill(b->channels, ns, dsock[s]);
		for (int q = 0; q < WQ_COUNT; q++)
			b->sock_q[s][q] += dsock[s][q];
	}
	free(dsock);
	b->now += ns;
}

static uint64_t sim_now(struct backend *b)
{
	return b->now;
}

static uint64_t sim_kernel_ns(struct backend *b)
{
	return b->kernel_ns;
}

static double sim_max_ghz(struct backend *b)
{
	return b->wp.ghz_max;
}

/* ---- groups ---- */

/* The first fault for cpu of the given kind, as an index, or -1. */
static int match_fault(const struct backend *b, int cpu, bool on_open)
{
	for (int i = 0; i < b->nfaults; i++) {
		const struct sim_fault *f = &b->faults[i].f;
		if (f->on_open == on_open && (f->cpu == -1 || f->cpu == cpu))
			return i;
	}
	return -1;
}

static void drop_fault(struct backend *b, int i)
{
	memmove(&b->faults[i], &b->faults[i + 1], sizeof(b->faults[0]) * (size_t)(b->nfaults - i - 1));
	b->nfaults--;
}

static void go_offline(struct backend *b, int cpu)
{
	if (cpu < 0 || cpu >= b->ncpu_map || b->cpus[cpu].offline)
		return;
	/* Settle every group on the CPU first so that it keeps what it counted. */
	for (int p = 0; p < b->m->npmus; p++)
		for (int k = 0; k < b->nslots[p]; k++) {
			struct sim_slot *s = &b->slots[p][k];
			for (int i = 0; i < s->ngroups; i++)
				if (s->enabled[i]->cpu == cpu) {
					settle(b, s->enabled[i]);
					s->enabled[i]->running = false;
				}
		}
	b->cpus[cpu].offline = true;
}

static int slot_index(const struct backend *b, const struct pmu_def *pd, const struct bk_instance *inst,
		      int *nch, char **cause)
{
	*nch = 1;
	if (per_cpu_pmu(pd))
		return inst->cpu;
	if (pd->scope == SCOPE_CORE) {
		if (inst->scope_id < 0 || inst->scope_id >= b->ncores)
			return set_cause(cause, "sim: %s: no core %d", pd->perf_name, inst->scope_id);
		return inst->scope_id;
	}
	if (pd->scope == SCOPE_CCX) {
		if (inst->scope_id < 0 || inst->scope_id >= b->nccx)
			return set_cause(cause, "sim: %s: no CCX %d", pd->perf_name, inst->scope_id);
		return inst->scope_id;
	}
	if (pd->scope == SCOPE_SOCKET) {
		int s = inst->scope_id;
		if (s < 0 || s >= b->nsockets)
			return set_cause(cause, "sim: %s: no socket %d", pd->perf_name, s);
		if (!is_glob(pd))
			return s * b->channels;
		/* The channel is named by the instance's perf name. */
		const char *star = strchr(pd->perf_name, '*');
		size_t pre = (size_t)(star - pd->perf_name);
		const char *name = inst->perf_name ? inst->perf_name : "";
		char *end = NULL;
		long ch = -1;
		if (strncmp(name, pd->perf_name, pre) == 0 && isdigit((unsigned char)name[pre]))
			ch = strtol(name + pre, &end, 10);
		if (ch < 0 || ch / b->channels != s || strcmp(end, star + 1) != 0)
			return set_cause(cause, "sim: %s is not a memory channel of socket %d",
					 name, s);
		*nch = b->channels;
		return (int)ch;
	}
	return 0;
}

static const double *source_of(const struct backend *b, const struct pmu_def *pd,
			       const struct bk_instance *inst)
{
	if (per_cpu_pmu(pd))
		return b->cpus[inst->cpu].q;
	if (pd->scope == SCOPE_CORE)
		return b->core_q[inst->scope_id];
	if (pd->scope == SCOPE_CCX)
		return b->ccx_q[inst->scope_id];
	if (pd->scope == SCOPE_SOCKET)
		return b->sock_q[inst->scope_id];
	return b->sys_q;
}

static int sim_open_group(struct backend *b, const struct bk_instance *inst, const int *events,
			  int nevents, struct bk_group **out, char **cause)
{
	*out = NULL;
	if (!inst || inst->pmu < 0 || inst->pmu >= b->m->npmus || nevents <= 0 || !events) {
		set_cause(cause, "sim: bad group (no PMU or no events)");
		return -EINVAL;
	}
	const struct pmu_def *pd = &b->m->pmus[inst->pmu];
	int cpu = inst->cpu;
	if (cpu < 0 || cpu >= b->ncpu_map || !b->cpus[cpu].present) {
		set_cause(cause, "sim: CPU %d does not exist", cpu);
		return -ENODEV;
	}
	if (b->cpus[cpu].offline) {
		set_cause(cause, "sim: CPU %d went offline", cpu);
		return -ENODEV;
	}
	int fi = match_fault(b, cpu, true);
	if (fi >= 0 && b->faults[fi].seen >= b->faults[fi].f.after_reads) {
		int err = b->faults[fi].f.err;
		if (err == -ENODEV)
			go_offline(b, cpu);
		set_cause(cause, "sim: injected fault on open on CPU %d: %s", cpu, strerror(-err));
		return err;
	}
	if (!cpu_usable(b, cpu)) {
		set_cause(cause, "sim: CPU %d is offline", cpu);
		return -ENODEV;
	}
	struct bk_group g0 = { 0 };
	for (int i = 0; i < nevents; i++) {
		int e = events[i];
		if (e < 0 || e >= b->m->nevents) {
			set_cause(cause, "sim: no event number %d", e);
			return -EINVAL;
		}
		const struct event_def *ed = &b->m->events[e];
		if (ed->pmu < 0 || ed->pmu >= b->m->npmus || absent_why(b, ed->pmu)) {
			set_cause(cause, "sim: event %s: its PMU is not present on this simulated machine",
				  ed->name);
			return -ENOENT;
		}
		const struct pmu_def *epd = &b->m->pmus[ed->pmu];
		if (ed->pmu != inst->pmu && epd->kind != PMU_SOFTWARE) {
			/* As perf_event_open: a group stays on one hardware PMU;
			 * only software events may join another PMU's group. */
			set_cause(cause, "sim: event %s belongs to PMU %s, not %s", ed->name,
				  epd->name, pd->name);
			return -EINVAL;
		}
		if (ed->requires && !b->features) {
			set_cause(cause, "sim: event %s: this simulated kernel has no %s/%s", ed->name,
				  epd->perf_name, ed->requires);
			return -EINVAL;
		}
		if (ed->flags & EVF_TOPDOWN) {
			/* As the kernel: PERF_METRICS events take no counter and
			 * only join a group that slots leads. */
			const struct event_def *lead = &b->m->events[events[0]];   /* checked at i = 0 */
			if (!(lead->flags & EVF_SLOTS) || lead->pmu != ed->pmu) {
				set_cause(cause, "sim: event %s: a topdown event needs slots as its group leader",
					  ed->name);
				return -EINVAL;
			}
			continue;
		}
		if ((ed->flags & EVF_SLOTS) && i != 0) {
			set_cause(cause, "sim: event %s: slots must lead its group", ed->name);
			return -EINVAL;
		}
		if (unlimited(epd) || unlimited(pd))
			continue;
		if (ed->flags & EVF_MERGE)
			g0.need_pairs++;
		else if ((ed->flags & (EVF_FIXED | EVF_SLOTS)) && pd->fixed > 0)
			g0.need_fixed++;
		else
			g0.need_general++;
	}
	if (!unlimited(pd) && !fits(&g0, pd->counters, pd->fixed)) {
		set_cause(cause, "sim: group of %d events needs %d counters (merged pairs count 2), "
			  "%s has %d general and %d fixed", nevents,
			  2 * g0.need_pairs + g0.need_general + g0.need_fixed, pd->name,
			  pd->counters, pd->fixed);
		return -EINVAL;
	}
	if (!unlimited(pd) && sim_check_counter_masks(b->m, pd, events, nevents, cause) < 0)
		return -EINVAL;
	int nch = 1;
	int k = slot_index(b, pd, inst, &nch, cause);
	if (k < 0 || k >= b->nslots[inst->pmu]) {
		if (k >= 0)
			set_cause(cause, "sim: instance %s out of range", inst->perf_name);
		return -EINVAL;
	}
	if (fi >= 0)
		b->faults[fi].seen++;
	b->cpus[cpu].opens++;

	struct bk_group *g = xcalloc(1, sizeof(*g));
	*g = g0;
	g->slot = &b->slots[inst->pmu][k];
	g->pmu = inst->pmu;
	g->cpu = cpu;
	g->nch = nch;
	g->src = source_of(b, pd, inst);
	g->nevents = nevents;
	g->events = xmalloc(sizeof(int) * (size_t)nevents);
	memcpy(g->events, events, sizeof(int) * (size_t)nevents);
	g->last = xcalloc((size_t)nevents, sizeof(uint64_t));
	g->since = b->now;
	memcpy(g->snap, g->src, sizeof(g->snap));
	g->next_open = b->open_groups;
	b->open_groups = g;
	*out = g;
	return 0;
}

static int sim_enable(struct backend *b, struct bk_group *g)
{
	if (!g)
		return -EINVAL;
	b->kernel_ns += b->call_ns;
	if (g->enabled)
		return 0;
	struct sim_slot *s = g->slot;
	settle_slot(b, s);
	settle(b, g);
	if (s->ngroups == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 4;
		s->enabled = xrealloc(s->enabled, sizeof(*s->enabled) * (size_t)s->cap);
	}
	s->enabled[s->ngroups++] = g;
	g->enabled = true;
	place(b, s);
	return 0;
}

static int sim_disable(struct backend *b, struct bk_group *g)
{
	if (!g)
		return -EINVAL;
	b->kernel_ns += b->call_ns;
	if (!g->enabled)
		return 0;
	struct sim_slot *s = g->slot;
	settle_slot(b, s);    /* at the old schedule */
	for (int i = 0; i < s->ngroups; i++)
		if (s->enabled[i] == g) {
			memmove(&s->enabled[i], &s->enabled[i + 1],
				sizeof(*s->enabled) * (size_t)(s->ngroups - i - 1));
			s->ngroups--;
			break;
		}
	g->enabled = false;
	g->running = false;
	place(b, s);
	return 0;
}

struct eval_ctx { const double *q; };

static double quantity_value(void *ctx, int ref)
{
	const struct eval_ctx *c = ctx;
	return ref >= 0 && ref < WQ_COUNT ? c->q[ref] : NAN;
}

/* What event e counts over quantities q during running_ns on CPU c's
 * instances: its sim formula, or the constant rate a test set. */
static double event_value(const struct backend *b, const struct sim_cpu *c, int e, const double *q,
			  double running_ns)
{
	const double *rates = c ? c->rates : NULL;
	if (rates && !isnan(rates[e]))
		return rates[e] * running_ns / 1e9;
	if (b->ev[e].nparts > 0) {
		double sum = 0;
		for (int k = 0; k < b->ev[e].nparts; k++)
			sum += event_value(b, c, b->ev[e].parts[k], q, running_ns);
		return sum;
	}
	if (b->ev[e].expr) {
		struct eval_ctx ctx = { q };
		return expr_eval(b->ev[e].expr, quantity_value, &ctx);
	}
	return b->ev[e].cycles_share * q[WQ_CYCLES];
}

static int sim_read(struct backend *b, struct bk_group *g, struct bk_count *out)
{
	if (!g || !out)
		return -EINVAL;
	struct sim_cpu *c = &b->cpus[g->cpu];
	/* /proc/stat is a file that one parse serves for every CPU; the
	 * counters' reads are calls to the CPU that holds them. */
	if (b->m->pmus[b->m->events[g->events[0]].pmu].kind != PMU_PROC)
		b->kernel_ns += b->call_ns;
	if (!cpu_usable(b, g->cpu))
		return -ENODEV;
	int fi = match_fault(b, g->cpu, false);
	if (fi >= 0 && b->faults[fi].seen >= b->faults[fi].f.after_reads) {
		int err = b->faults[fi].f.err;
		if (err == -ENODEV)
			go_offline(b, g->cpu);
		else
			drop_fault(b, fi);    /* transient: fires once */
		return err;
	}
	if (fi >= 0)
		b->faults[fi].seen++;
	c->reads++;

	settle(b, g);
	for (int i = 0; i < g->nevents; i++) {
		int e = g->events[i];
		const struct event_def *ed = &b->m->events[e];
		double v = event_value(b, c, e, g->acc, (double)g->t_running);
		uint64_t u = 0;
		if (v > 0 && isfinite(v))
			u = v >= 1.8e19 ? UINT64_MAX : (uint64_t)llround(v);
		if (ed->flags & EVF_SATURATES && u > SATURATED)
			u = SATURATED;
		/* Counters never go back, even if a formula subtracts. */
		if (u < g->last[i])
			u = g->last[i];
		g->last[i] = u;
		out[i].value = u;
		out[i].time_enabled = g->t_enabled;
		out[i].time_running = g->t_running;
	}
	return 0;
}

static void sim_close(struct backend *b, struct bk_group *g)
{
	if (!g)
		return;
	sim_disable(b, g);
	for (struct bk_group **pp = &b->open_groups; *pp; pp = &(*pp)->next_open)
		if (*pp == g) {
			*pp = g->next_open;
			break;
		}
	free(g->events);
	free(g->last);
	free(g);
}

/* ---- ground truth ---- */

/* The counter slot an instance is read from (and its channel count), or
 * -1 for an instance this simulator does not have. */
static int truth_slot(struct backend *b, const struct bk_instance *inst, int *nch)
{
	if (!b || !inst || inst->pmu < 0 || inst->pmu >= b->m->npmus)
		return -1;
	char *cause = NULL;
	int k = slot_index(b, &b->m->pmus[inst->pmu], inst, nch, &cause);
	free(cause);
	return k >= 0 && k < b->nslots[inst->pmu] ? k : -1;
}

int sim_truth_source(struct backend *b, const struct bk_instance *inst, double *q)
{
	int nch = 1;
	if (truth_slot(b, inst, &nch) < 0)
		return -1;
	const double *src = source_of(b, &b->m->pmus[inst->pmu], inst);
	for (int i = 0; i < WQ_COUNT; i++)
		q[i] = src[i] / nch;
	return 0;
}

double sim_truth_event(struct backend *b, int cpu, int event, const double *dq, double running_ns)
{
	if (!b || event < 0 || event >= b->m->nevents)
		return NAN;
	const struct sim_cpu *c = cpu >= 0 && cpu < b->ncpu_map ? &b->cpus[cpu] : NULL;
	return event_value(b, c, event, dq, running_ns);
}

int sim_truth_group(struct backend *b, const struct bk_instance *inst, const int *events, int n,
		    double *out, double *running_ns)
{
	int nch = 1;
	int k = truth_slot(b, inst, &nch);
	if (k < 0)
		return -1;
	const struct sim_slot *slot = &b->slots[inst->pmu][k];
	for (struct bk_group *g = b->open_groups; g; g = g->next_open) {
		if (g->slot != slot || g->nevents != n || memcmp(g->events, events, sizeof(int) * (size_t)n))
			continue;
		settle(b, g);
		for (int i = 0; i < n; i++)
			out[i] = event_value(b, &b->cpus[g->cpu], events[i], g->acc, (double)g->t_running);
		*running_ns = (double)g->t_running;
		return 0;
	}
	return -1;
}

/* ---- test controls ---- */

bool sim_fast_forward(const struct backend *b)
{
	return b && b->ff;
}

void sim_inject_fault(struct backend *b, const struct sim_fault *f)
{
	if (!b || !f)
		return;
	if (f->err == 0) {
		/* Clears the faults of that CPU (all with -1). */
		for (int i = 0; i < b->nfaults;)
			if (f->cpu == -1 || b->faults[i].f.cpu == f->cpu)
				drop_fault(b, i);
			else
				i++;
		return;
	}
	if (b->nfaults == SIM_MAX_FAULTS)
		drop_fault(b, 0);
	b->faults[b->nfaults].f = *f;
	b->faults[b->nfaults].f.err = f->err > 0 ? -f->err : f->err;
	b->faults[b->nfaults].seen = 0;
	b->nfaults++;
}

void sim_set_constant_rates(struct backend *b, int cpu, const double *rates)
{
	if (!b || cpu < 0 || cpu >= b->ncpu_map)
		return;
	struct sim_cpu *c = &b->cpus[cpu];
	if (!rates) {
		free(c->rates);
		c->rates = NULL;
		return;
	}
	if (!c->rates)
		c->rates = xmalloc(sizeof(double) * (size_t)(b->m->nevents ? b->m->nevents : 1));
	memcpy(c->rates, rates, sizeof(double) * (size_t)b->m->nevents);
}

/* ---- per-task sampling ---- */

/* General counters a sampled event holds (none for software events). */
static int sample_counters(const struct backend *b, int e)
{
	const struct pmu_def *pd = &b->m->pmus[b->m->events[e].pmu];
	if (unlimited(pd))
		return 0;
	return b->m->events[e].flags & EVF_MERGE ? 2 : 1;
}

static int sim_sample_open(struct backend *b, int cpu, const int *events, int n, int freq,
			   struct bk_sampler **out, char **cause)
{
	*out = NULL;
	if (!cpu_usable(b, cpu)) {
		set_cause(cause, "CPU %d is offline", cpu);
		return -ENODEV;
	}
	struct sim_cpu *c = &b->cpus[cpu];
	if (c->smp) {
		set_cause(cause, "CPU %d already samples", cpu);
		return -EBUSY;
	}
	int *need = xcalloc((size_t)b->m->npmus, sizeof(int));
	for (int i = 0; i < n; i++) {
		const struct event_def *ev = &b->m->events[events[i]];
		if (absent_why(b, ev->pmu) || (ev->requires && !b->features)) {
			set_cause(cause, "cannot sample %s on CPU %d: no such event here", ev->name, cpu);
			free(need);
			return -ENOENT;
		}
		need[ev->pmu] += sample_counters(b, events[i]);
	}
	for (int p = 0; p < b->m->npmus; p++) {
		int g, f;
		free_on(b, p, true, &g, &f);
		if (need[p] > g) {
			set_cause(cause, "cannot sample on CPU %d: %d counters of %s needed, %d free", cpu, need[p],
				  b->m->pmus[p].name, g);
			free(need);
			return -EBUSY;
		}
	}
	if (!b->tasks) {
		b->tasks = simt_new(b->wp.seed, b->ncpu_map);
		b->truth = simtruth_new();
		b->pinned = xcalloc((size_t)b->m->npmus, sizeof(int));
	}
	for (int p = 0; p < b->m->npmus; p++)
		if (need[p] > b->pinned[p])
			b->pinned[p] = need[p];
	free(need);
	c->smp = simsmp_new(cpu, events, n, freq, b->now);
	b->nsamplers++;
	*out = (struct bk_sampler *)c;
	return 0;
}

static long sim_sample_drain(struct backend *b, struct bk_sampler *s, bk_sample_fn fn, void *arg)
{
	struct sim_cpu *c = (struct sim_cpu *)s;
	long lost = simsmp_drain(c->smp, fn, arg);
	if (!cpu_usable(b, c->cpu))
		return -ENODEV;
	return lost;
}

static int sim_sample_read(struct backend *b, struct bk_sampler *s, struct bk_count *out)
{
	struct sim_cpu *c = (struct sim_cpu *)s;
	if (!cpu_usable(b, c->cpu))
		return -ENODEV;
	simsmp_read(c->smp, b->now, out);
	return 0;
}

static void sim_sample_close(struct backend *b, struct bk_sampler *s)
{
	struct sim_cpu *c = (struct sim_cpu *)s;
	simsmp_free(c->smp);
	c->smp = NULL;
	if (--b->nsamplers == 0 && b->pinned)
		memset(b->pinned, 0, sizeof(int) * (size_t)b->m->npmus);
}

static int sim_task_info(struct backend *b, int pid, char *comm, size_t cap, char **cgroup)
{
	const char *name, *cg;
	if (!b->tasks || simt_info(b->tasks, pid, &name, &cg) < 0)
		return -ESRCH;
	snprintf(comm, cap, "%s", name);
	*cgroup = xstrdup(cg);
	return 0;
}

double sim_truth_task(struct backend *b, int pid, int event)
{
	return b ? simtruth_get(b->truth, pid, event) : 0;
}

int sim_truth_pids(struct backend *b, int *pids, int max)
{
	return b ? simtruth_pids(b->truth, pids, max) : 0;
}

const struct pmu_backend_ops backend_sim = {
	.name = "sim",
	.simulated = true,
	.create = sim_create,
	.destroy = sim_destroy,
	.instances = sim_instances,
	.has_feature = sim_has_feature,
	.free_counters = sim_free_counters,
	.open_group = sim_open_group,
	.enable = sim_enable,
	.disable = sim_disable,
	.read = sim_read,
	.close = sim_close,
	.sample_open = sim_sample_open,
	.sample_drain = sim_sample_drain,
	.sample_read = sim_sample_read,
	.sample_close = sim_sample_close,
	.task_info = sim_task_info,
	.advance = sim_advance,
	.now = sim_now,
	.kernel_ns = sim_kernel_ns,
	.max_ghz = sim_max_ghz,
};

/* ---- --sim MODEL[:SxCxNxT] ---- */

#define SPEC_HINT "expected SxCxNxT with positive numbers, e.g. zen5:2x12x8x2"

int sim_parse_spec(const char *spec, const struct model_info *models, int nmodels, char **model_name,
		   int shape[4], char **cause)
{
	/* A model without a "shape" line: one socket, one L3, four cores. */
	static const int fallback[4] = { 1, 1, 4, 1 };
	*model_name = NULL;
	if (!spec || !*spec)
		return set_cause(cause, "--sim: expected MODEL[:SxCxNxT], e.g. zen5:2x12x8x2");
	/* MODEL[:SxCxNxT] ends at the first comma; after it come the
	 * simulator's KEY=VALUE options, which the backend checks when it is
	 * created (parse_arg): here only that each is KEY=VALUE. */
	size_t speclen = strcspn(spec, ",");
	for (const char *o = spec + speclen; *o;) {
		size_t n = strcspn(++o, ",");
		const char *eq = memchr(o, '=', n);
		if (!eq || eq == o)
			return set_cause(cause, "--sim '%s': expected KEY=VALUE options after the comma, "
					 "e.g. zen5:1x2x8x2,ff=1", spec);
		o += n;
	}
	const char *colon = memchr(spec, ':', speclen);
	size_t len = colon ? (size_t)(colon - spec) : speclen;
	if (len == 0)
		return set_cause(cause, "--sim '%s': the model name is missing, e.g. zen5:2x12x8x2", spec);
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)spec[i];
		if (!isalnum(ch) && ch != '-' && ch != '_' && ch != '.')
			return set_cause(cause, "--sim '%s': bad character '%c' in the model name",
					 spec, ch);
	}
	char *typed = xstrndup(spec, len);
	const struct model_info *mi = model_info_find(models, nmodels, typed);
	free(typed);
	const char *model = mi ? mi->name : NULL;
	const int *def = mi && mi->sim_shape[0] > 0 ? mi->sim_shape : fallback;
	int v[4];
	memcpy(v, def, sizeof(v));
	if (colon) {
		const char *p = colon + 1;
		for (int k = 0; k < 4; k++) {
			if (!isdigit((unsigned char)*p))
				return set_cause(cause, "--sim '%s': " SPEC_HINT, spec);
			char *end = NULL;
			errno = 0;
			long n = strtol(p, &end, 10);
			if (errno || n < 1 || n > SIM_MAX_CPUS)
				return set_cause(cause, "--sim '%s': " SPEC_HINT, spec);
			v[k] = (int)n;
			p = end;
			if (k < 3 && *p++ != 'x')
				return set_cause(cause, "--sim '%s': " SPEC_HINT, spec);
		}
		if (p != spec + speclen)
			return set_cause(cause, "--sim '%s': " SPEC_HINT, spec);
	}
	long long total = (long long)v[0] * v[1] * v[2] * v[3];
	if (total > SIM_MAX_CPUS)
		return set_cause(cause, "--sim '%s': %lld CPUs is more than the simulator's limit of %d",
				 spec, total, SIM_MAX_CPUS);
	*model_name = model ? xstrdup(model) : xstrndup(spec, len);
	memcpy(shape, v, sizeof(v));
	return 0;
}
