/* check_truth.c: the simulated PMU is the judge. The simulator knows what
 * really happened in every interval (sim_truth_*), so every figure pmctop
 * publishes can be compared with the value computed from the true counts:
 *  - a metric evaluated in one window set must equal the same formula on
 *    the true counts of exactly the windows its groups ran in (0.1 %);
 *  - topdown shares lie in [0, 1], and those computed in one window set
 *    sum to 1 (0.1 %); memory bus utilisation never exceeds 1;
 *  - a figure said to be exact (uncertainty 0) equals the whole-interval
 *    truth, and the stated 95 % interval of the others covers the
 *    whole-interval truth in 90-99 % of cases, overall and for each metric
 *    with 500 or more such figures against its physical truth;
 *  - with -C, a CCX or socket figure equals the unfiltered one or is '-';
 *  - watts and instructions per joule against the simulator's physical
 *    energy (its power model, not pmctop's formula): package, core and
 *    DRAM watts per socket and system equal it (the energy counters run
 *    the whole interval), and instructions per joule lies within its
 *    stated uncertainty of the true instructions over the true energy.
 * Workloads are the simulator's phased, seeded ones (rates move every 2-40
 * ms), over several shapes, views, models and both rotation modes. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "check_run.h"
#include "derive_moderate.h"
#include "fixture.h"
#include "evdef.h"
#include "expr.h"
#include "perf_import.h"
#include "sampler.h"
#include "sim_workload.h"
#include "topo.h"
#include "uncertainty.h"
#include "util.h"

/* The simulator's physical quantities behind the energy figures. */
enum { PHYS_PKG_NJ, PHYS_CORES_NJ, PHYS_DRAM_NJ, PHYS_INSN, PHYS_N };

/* Counts smaller than this are dominated by the rounding of counters to
 * whole numbers; their ratios are not a fair test of the estimator. */
#define MIN_TRUE_COUNT 100000.0
/* The same for what one instance counted in a metric's windows: an
 * interval can have plenty of L1D fills from a far node while the windows
 * of their group saw 129 of them, whose rounding to a whole number moves
 * the figure by 0.4 %. */
#define MIN_WINDOW_COUNT 5000.0
/* A metric's own calibration (90-99 % of its 95 % intervals covering the
 * truth) is judged where it has this many figures: with 500, a metric
 * whose intervals hold 95 % of the time lands within 93-97 %. */
#define MIN_METRIC_FIGURES 200
/* No plain figure (one without '~') may miss its truth by more than
 * this share of it; and at most WILD_PLAIN_MAX of them by more than 5
 * stated standard errors. */
#define PLAIN_OFF_MAX 0.25
#define WILD_PLAIN_MAX 0.001
/* What is left of the tail after derive.c's burst_floor (docs/uncertainty.md,
 * "The tail"): the goal is none beyond PLAIN_OFF_MAX and WILD_PLAIN_MAX of
 * them beyond 5 standard errors; until then these keep the tail from
 * growing back. Measured on the hand models: 85 plain figures more than
 * 25 % off (553 before), 95 once the simulator modelled the sources that
 * Zen 5's wider L2 and fill masks and SPR's FP16 count (more varied
 * workloads), 0.28 % of them more than 5 stated standard errors
 * off (0.81 %); metrics whose 95 % intervals cover the truth more than
 * 99 % of the time (stated errors too wide; none is too narrow): 15
 * against the physical truth, 18 against the formula on the true counts,
 * most of them topdown parts (derive_tree.c); 19 and 21 with the
 * simulator's new sources, 20 and 22 with the views' headline figures
 * pinned; 90, 0.29 % and 20 and 22 then. With the topdown parts' errors
 * conditioned on their family's sum (derive_tree.c, TREE_CONDITIONED):
 * 90, 0.29 % (793 of 274,349), and 12 and 14 metrics over 99 %, two of
 * them Zen 5's only for the simulated kernel's rotation, whose figures
 * are all but exact (docs/uncertainty.md, "The tail"). With each stated
 * error drawn toward the median error of the same figure in its scope's
 * rows (derive_moderate.c): 46 more than 25 % off, 0.114 % (279 of
 * 243,857) beyond 5 errors, 7 and 7 metrics over 99 %, none of them
 * Zen 5's ipc or smt_contention any more. With the aggregate rows that
 * have no peers held to a floor from the rows they hold (moderate_below):
 * 46, 0.098 % (238 of 243,772: the goal), 7 and 7. With every window
 * set whose events' errors are found measured (its burst floor; before,
 * only sets with an event another set gives or a metric of their own):
 * 37, 0.092 % (223 of 241,583), 7 and 7. With the tree parts' errors
 * held to their sets' burst floors (derive.c, floors_after_trees): 35,
 * 0.092 % (222 of 240,688), 7 and 7. With the events on fixed counters
 * pinned in every group and left out of each group's burst (derive_window.c,
 * gsum_burst): 35, 0.090 % (209 of 233,432), 5 and 5. With the sets
 * that no event counted throughout vouches for floored from smaller
 * bursts, and more of them (GSUM_BURST_MIN_UNVOUCHED,
 * BURST_FLOOR_K_UNVOUCHED): 26, 0.071 % (160 of 225,474), 5 and 5. With
 * a set's errors not known where one of its groups missed a change at
 * the interval's start (derive_lead.c): 15, 0.067 % (150 of 224,800), 8
 * and 8: Sapphire Rapids' flops, flops_per_s and flops_per_cycle went
 * from 98.6 % to 99.5 %. Their stated errors are too wide (the mean
 * squared miss in stated errors is 0.57^2); the misses the change took
 * marked not known, 11 of them up to 1,200 stated errors off, are
 * what had kept them under 99 % (docs/uncertainty.md, "The tail"). With
 * the tail round at each interval's end and both edges' moves counted
 * from a quarter of the figure (sampler_read.c, plan_tail;
 * derive_lead.c): 4, 0.049 % (111 of 224,906), 19 and 18. The same
 * happened as with the start: figures too wide (root mean square miss
 * 0.5-0.65 stated errors, mostly sets of three windows) had been kept
 * under 99 % by the misses now marked not known. With t's widening
 * taken for the degrees of freedom of the edge windows that agree with
 * a set's windows too (derive.c, witness_scale): 5, 0.050 % (116 of
 * 232,448), 6 and 6. With each group's errors taken from its successive
 * windows, its edge windows at the ends of that chain (unc_chain_se),
 * in place of witness_scale: 3, 0.023 % (54 of 238,348), 10 and 9; and
 * no figure made plain by its peers' errors that its own windows mark
 * (derive_moderate.c, MODERATE_PLAIN_MAX): none more than 25 % off (the
 * goal), 0.025 % (53 of 212,611), 10 and 9; with the smaller of that
 * error and the spread about the mean (unc_chain_se): none, 0.025 % (54
 * of 216,985), 7 and 6. Those 7 and 6 are the metrics left over 99 % (0
 * wanted): the topdown parts whose share of their family is near 1
 * (Zen 4 and 5 retiring_fastpath), Westmere's and Core 2's ratios of
 * few windows and the architectural model's user_cycles (formula), at
 * 99.0-99.8 %. With the share of the interval beyond a set's windows'
 * reach counted in its errors (derive_window.c, wset_unseen2): none,
 * 0.024 % (52 of 216,588), 7 and 6, and the narrowest metric Sapphire
 * Rapids' backend_bound_memory at 91.5 % (Zen 5's ghz, 90.2 % before,
 * now 94.3 %). With the windows of several groups that interleave
 * evenly taken as one chain (derive_window.c, wset_time_order): none,
 * 0.025 % (54 of 218,248), 6 and 5 (Zen 4's retiring_fastpath 99.6 % ->
 * 98.8 %). With every run three seeds or more (runs[] below): 6 plain
 * figures 40-78 % off (Zen 3's branch_mpki with every metric at once,
 * windows side by side), 0.034 % (128 of 378,961), 4 and 4; with the
 * windows side by side pooled round by round (derive_window.c,
 * wset_time_order): none, 0.021 % (77 of 373,583), 4 and 4 (Zen 4's and
 * Zen 5's retiring_fastpath, Westmere's dtlb_walk_latency, Sapphire
 * Rapids' fp_packed_ratio). */
#define PLAIN_OFF_LEFT 0
#define WILD_PLAIN_LEFT 0.001
#define OVER_WIDE_LEFT 4
/* The same on the models imported from Linux perf's files: 12 against
 * the formula on the true counts and 2 against the physical truth before,
 * 11 and 0 with the moderated errors (mostly topdown parts of Ice Lake-SP
 * and Skylake-SP), 10 and 0 with the fixed counters' events pinned, 9
 * and 0 with the errors of successive windows. */
#define OVER_WIDE_IMPORTED_LEFT 10

struct tally {
	long cpu_intervals;
	long window_checked, window_bad;
	long share_checked, share_bad, sum_checked, sum_bad;
	long exact_checked, exact_bad;
	long exact_partial;       /* stated exact, though counted only part of the interval */
	long ghz_checked, ghz_over; /* effective clocks above the simulated part's highest */
	long wild_plain;          /* misses of more than 5 stated standard errors without '~' */
	/* Plain figures (no '~', a stated error; the exact ones are judged
	 * as exact claims): how many, and how many miss the truth by more
	 * than 10, 25 and 50 %. */
	long plain_checked, plain_off10, plain_off25, plain_off50;
	long plain_off25_ev;      /* of the plain figures more than 25 % off, events' */
	double plain_worst;
	char plain_worst_what[200];
	/* Against the physical quantity the metric claims to estimate. */
	long phys_checked, phys_covered, phys_exact, phys_exact_bad, phys_unknown;
	long phys_est_checked, phys_est_covered;   /* of those, the figures with a stated error */
	/* The metric's formula on the interval's true counts against the
	 * quantity it claims to estimate: no estimation in between, so any
	 * difference is the formula's or an event's (a wrong ratio, a unit
	 * mask that leaves out a case). */
	long formula_checked, formula_bad;
	/* Metrics biased by design (biased[]): the formula on the true counts
	 * and the published figures within the tolerance. */
	long bias_formula_checked, bias_formula_bad, bias_checked, bias_covered, bias_bare;
	double bias_worst;
	long unc_checked, unc_covered, unc_unknown;
	long watts_checked, watts_bad, ipj_checked, ipj_covered;
	double worst_watts, ipj_err_sum;
	double worst_window;
	char worst_what[160];
};

static struct tally tot;

/* PMCTOP_TRUTH_DUMP=file: every judged figure, one line each (run, name,
 * estimate, truth, rse, coverage), for looking into the misses. */
static FILE *dump;
static char dump_run[160];

/* Per model and metric: how its stated 95 % intervals fared, and how many
 * figures missed by more than 5 stated standard errors without a '~'. */
struct per_metric {
	char name[96];
	long checked, covered, wild_plain;
	long plain_off25;         /* plain figures more than 25 % off */
	long phys_checked, phys_covered;
	/* Of those, the figures with a stated error (not exact, not unknown):
	 * the ones whose 95 % interval is judged. */
	long phys_est_checked, phys_est_covered;
	long bias_checked, bias_covered, bias_bare;
	double bias_worst;        /* the formula's largest miss on the true counts */
	long formula_checked, formula_bad; /* its formula on the true counts against the quantity */
	double z2;                /* sum of squared z-scores */
};
static struct per_metric *pm;
static int npm;

static struct per_metric *pm_find(const char *model, const char *metric)
{
	char name[96];
	snprintf(name, sizeof(name), "%s %s", model, metric);
	for (int i = 0; i < npm; i++)
		if (!strcmp(pm[i].name, name))
			return &pm[i];
	pm = xrealloc(pm, sizeof(*pm) * (size_t)(npm + 1));
	memset(&pm[npm], 0, sizeof(*pm));
	snprintf(pm[npm].name, sizeof(pm[npm].name), "%s", name);
	return &pm[npm++];
}

/* One PMU instance as the harness sees it, with the truth at the start of
 * the interval. */
struct hinst {
	struct bk_instance bi;
	int rows[SNAP_NSCOPES];   /* row index per scope in the snapshot, -1 */
	double q0[WQ_COUNT];
};

struct hgroup {
	int g;                    /* plan group */
	int ninst;
	int *inst;                /* indices into the harness instances */
	double *c0, *r0;          /* [ninst * nev], [ninst] at the start of the interval */
};

struct harness {
	struct model *m;
	double ghz_max;           /* the simulated part's highest clock */
	struct topo *t;
	struct sampler *s;
	struct backend *bk;
	const struct sched_plan *plan;
	int ninst;
	struct hinst *inst;
	int ngroups;
	struct hgroup *groups;
	/* Per scope, per row, per event: this interval's true counts. */
	double *truth[SNAP_NSCOPES];
	/* Per scope, per row, per PMU: the physical quantities its instances
	 * under the row saw this interval; and per metric, its `truth`
	 * resolved to them (NULL: none) and the PMU whose quantities it reads. */
	double *qrow[SNAP_NSCOPES];
	struct expr **phys;
	int *phys_pmu;
	double *phys_tol;         /* per metric: biased_tol, NaN for none */
	/* Per scope, per row: physical truth from the simulator's power
	 * model, PHYS_* of it. */
	double *power[SNAP_NSCOPES];
	double *wtruth;           /* scratch */
};

static int row_of(const struct snapshot *snap, int sc, int id_cpu, int core, int ccx, int socket)
{
	for (int r = 0; r < snap->nrows[sc]; r++) {
		const struct snap_row *row = &snap->rows[sc][r];
		switch (sc) {
		case SNAP_CPU: if (row->cpu == id_cpu) return r; break;
		case SNAP_CORE: if (row->core == core) return r; break;
		case SNAP_CCX: if (row->ccx == ccx) return r; break;
		case SNAP_SOCKET: if (row->socket == socket) return r; break;
		default: return 0;
		}
	}
	return -1;
}

/* Which rows an instance adds to, worked out from the topology alone. */
static void place_instance(const struct topo *t, const struct snapshot *snap, struct hinst *hi)
{
	int cpu = -1, core = -1, ccx = -1, sock = -1;
	if (hi->bi.scope == SCOPE_THREAD) {
		const struct topo_cpu *tc = topo_cpu_by_num(t, hi->bi.cpu);
		cpu = tc->cpu; core = tc->core; ccx = tc->ccx; sock = tc->socket;
	} else if (hi->bi.scope == SCOPE_CORE) {
		core = hi->bi.scope_id;
		ccx = t->cores[core].ccx;
		sock = t->cores[core].socket;
	} else if (hi->bi.scope == SCOPE_CCX) {
		ccx = hi->bi.scope_id;
		sock = t->ccxs[ccx].socket;
	} else if (hi->bi.scope == SCOPE_SOCKET) {
		sock = hi->bi.scope_id;
	}
	for (int sc = 0; sc < SNAP_NSCOPES; sc++) {
		hi->rows[sc] = -1;
		if (sc < (int)hi->bi.scope)
			continue;
		hi->rows[sc] = row_of(snap, sc, cpu, core, ccx, sock);
	}
}

/* ---- physical truth: what each metric claims to estimate ---- */

#define PHYS_INTERVAL WQ_COUNT   /* the reference of interval_s in a truth formula */
/* "pmu.quantity": the quantities of PMU p's instances under the row,
 * PHYS_PMU_BASE + p x WQ_COUNT + quantity. A figure made of two PMUs'
 * counts (the L3's nanoseconds times the cores' clock) names each. */
#define PHYS_PMU_BASE (WQ_COUNT + 1)

static int phys_name(void *ctx, const char *name)
{
	const struct model *m = ctx;
	if (!strcmp(name, "interval_s"))
		return PHYS_INTERVAL;
	const char *dot = strchr(name, '.');
	if (!dot)
		return wl_quantity_lookup(name);
	char *pmu = xasprintf("%.*s", (int)(dot - name), name);
	int p = model_find_pmu(m, pmu), q = wl_quantity_lookup(dot + 1);
	free(pmu);
	return p >= 0 && q >= 0 ? PHYS_PMU_BASE + p * WQ_COUNT + q : -1;
}

/* Metrics whose vendor definition is an estimate that misses the physical
 * quantity by design, not by a mistake: judged within an absolute
 * tolerance of it (docs/uncertainty.md, "Biased by design"), the formula
 * on the true counts and the published figure (its 95 % interval widened
 * by the tolerance) alike, in the metric's own unit.
 *  - AMD's Table 2 splits the backend's stalled slots by the share of
 *    stall cycles in which a load held up retirement; a memory stall
 *    cycle leaves more of its slots empty than a core stall cycle does,
 *    so the split gives memory too few (a share of all slots; the worst
 *    formula miss seen is 0.03).
 *  - Zen 3 and Sapphire Rapids count the L3 miss latency in the clocks of
 *    the core that missed; nanoseconds are those clocks over the row's
 *    average clock, which is off where the cores that miss run faster or
 *    slower than the rest (ns; the worst seen is 10.6). */
static const struct biased_def {
	const char *model, *metric;
	double tol;
} biased[] = {
	{ "amd-zen4", "backend_bound_memory", 0.04 }, { "amd-zen4", "backend_bound_cpu", 0.04 },
	{ "amd-zen5", "backend_bound_memory", 0.04 }, { "amd-zen5", "backend_bound_cpu", 0.04 },
	{ "amd-zen3", "l3_miss_latency_ns", 15 }, { "intel-spr", "l3_miss_latency_ns", 15 },
	/* The same on the imported models ("perf-*": every one that has the
	 * metric): the L3 latency in cycles at the measured clock, the
	 * backend split by perf's stall events. */
	{ "perf-*", "l3_miss_latency_ns", 25 },
	{ "perf-*", "backend_bound_memory", 0.04 }, { "perf-*", "backend_bound_cpu", 0.04 },
};

static double biased_tol(const struct model *m, const char *metric)
{
	for (size_t i = 0; i < ARRAY_SIZE(biased); i++) {
		bool model = !strcmp(biased[i].model, m->name) ||
			     (!strcmp(biased[i].model, "perf-*") && !strncmp(m->name, "perf-", 5));
		if (model && !strcmp(biased[i].metric, metric))
			return biased[i].tol;
	}
	return NAN;
}

/* Each metric's `truth`, resolved to quantities: every name in it must be
 * one of the simulator's quantities. The quantities are those of the
 * instances of the metric's own counters (per CPU for core counters, per
 * CCX for the L3's, per memory channel for the UMC's). */
static void phys_open(struct harness *h)
{
	const struct model *m = h->m;
	h->phys = xcalloc((size_t)m->nmetrics + 1, sizeof(*h->phys));
	h->phys_pmu = xcalloc((size_t)m->nmetrics + 1, sizeof(int));
	h->phys_tol = xcalloc((size_t)m->nmetrics + 1, sizeof(double));
	for (int i = 0; i < m->nmetrics; i++) {
		const struct metric_def *md = &m->metrics[i];
		if (!md->truth)
			continue;
		int col = 0;
		char *why = NULL;
		struct expr *x = expr_parse(md->truth, &col, &why);
		ck_assert_msg(x && expr_resolve(x, phys_name, (void *)m, &col, &why) == 0, "%s: truth '%s': %s", md->name,
			      md->truth, why ? why : "?");
		h->phys[i] = x;
		h->phys_tol[i] = biased_tol(m, md->name);
		h->phys_pmu[i] = md->nevents ? m->events[md->events[0]].pmu : 0;
		for (int k = 0; k < md->nevents; k++)
			if (!pmu_counts_always(&m->pmus[m->events[md->events[k]].pmu])) {
				h->phys_pmu[i] = m->events[md->events[k]].pmu;
				break;
			}
	}
}

/* q: the row's quantities, per PMU; pmu: the metric's own PMU. */
struct phys_ctx { const double *q; int pmu, npmus; double measured_s; };

static double phys_value(void *ctx, int ref)
{
	const struct phys_ctx *c = ctx;
	if (ref == PHYS_INTERVAL)
		return c->measured_s;
	if (ref >= 0 && ref < WQ_COUNT)
		return c->q[(size_t)c->pmu * WQ_COUNT + (size_t)ref];
	if (ref >= PHYS_PMU_BASE && ref < PHYS_PMU_BASE + c->npmus * WQ_COUNT)
		return c->q[ref - PHYS_PMU_BASE];
	return NAN;
}

/* Where harness_open loads models from: the shipped definitions, or a
 * changed copy (test_physical_judge). */
static const char *events_dir = TOP_SRCDIR "/events";

static void harness_open(struct harness *h, const char *model, const int shape[4], const char *what,
			 double rotate_ms, int seed, const char *extra, const bool *filter)
{
	memset(h, 0, sizeof(*h));
	char *cause = NULL;
	/* A model imported from Linux perf's files (PMCTOP_PERF_ARCH, set by
	 * tests/e2e_truth_imported.sh), for the machine of this shape. */
	const char *arch = getenv("PMCTOP_PERF_ARCH");
	h->m = model_load_by_name(events_dir, model, &cause);
	if (!h->m && arch && *arch) {
		struct perf_import_opts o = { .smt = shape[3] > 1, .ncpus_online = shape[0] * shape[1] * shape[2] * shape[3],
					      .ncores = shape[0] * shape[1] * shape[2], .npackages = shape[0],
					      .ndies = shape[0] };
		free(cause);
		cause = NULL;
		h->m = perf_import_load(arch, events_dir, model, &o, NULL, &cause);
	}
	ck_assert_msg(h->m != NULL, "%s: %s", model, cause ? cause : "?");
	/* The part's highest clock: the model's simulator default, or ours. */
	h->ghz_max = 0;
	for (const char *args[] = { h->m->sim_args, extra }, **a = args; a < args + 2; a++) {
		const char *g = *a ? strstr(*a, "ghz=") : NULL;
		if (g && (g == *a || g[-1] == ','))
			h->ghz_max = atof(g + 4);
	}
	h->t = topo_synthetic(shape[0], shape[1], shape[2], shape[3]);
	ck_assert_ptr_nonnull(h->t);
	int *mets = xmalloc(sizeof(int) * ((size_t)h->m->nmetrics + 1));
	int n = 0;
	int v = model_find_view(h->m, what);
	for (int i = 0; i < h->m->nmetrics; i++) {
		bool want = !strcmp(what, "all") || metric_in_group(&h->m->metrics[i], what);
		if (v >= 0) {
			want = false;
			for (int c = 0; c < h->m->views[v].ncols; c++)
				want |= h->m->views[v].cols[c].metric == i;
			for (int c = 0; c < h->m->views[v].nbar; c++)
				want |= h->m->views[v].bar[c] == i;
		}
		if (want)
			mets[n++] = i;
	}
	ck_assert_msg(n > 0, "%s: nothing in %s", model, what);
	char arg[64];
	snprintf(arg, sizeof(arg), "seed=%d%s%s", seed, extra ? "," : "", extra ? extra : "");
	struct sampler_config cfg = fx_sampler_config(h->m, h->t, arg, 1.0);
	cfg.rotate_ms = rotate_ms;
	cfg.nmetrics = n;
	cfg.metrics = mets;
	cfg.cpu_filter = filter;
	/* A view's headline metrics are pinned, as pmctop pins them. */
	cfg.npinned = v >= 0 ? h->m->views[v].npin : 0;
	cfg.pinned = v >= 0 ? h->m->views[v].pin : NULL;
	h->s = fx_sampler(&cfg);
	free(mets);
	h->bk = sampler_backend(h->s);
	h->plan = sampler_plan(h->s);
	for (int p = 0; p < h->m->npmus; p++) {
		struct bk_instance *bi = NULL;
		char *why = NULL;
		int k = backend_sim.instances(h->bk, p, &bi, &why);
		free(why);
		for (int i = 0; i < k; i++) {
			if (bi[i].scope == SCOPE_THREAD && filter && !filter[bi[i].cpu]) {
				free(bi[i].perf_name);
				continue;
			}
			h->inst = xrealloc(h->inst, sizeof(*h->inst) * (size_t)(h->ninst + 1));
			struct hinst *hi = &h->inst[h->ninst++];
			memset(hi, 0, sizeof(*hi));
			hi->bi = bi[i];
			ck_assert_int_eq(sim_truth_source(h->bk, &hi->bi, hi->q0), 0);
		}
		free(bi);
	}
	h->ngroups = h->plan->ngroups;
	h->groups = xcalloc((size_t)h->ngroups + 1, sizeof(*h->groups));
	for (int g = 0; g < h->ngroups; g++) {
		struct hgroup *hg = &h->groups[g];
		const struct sched_group *sg = &h->plan->groups[g];
		hg->g = g;
		hg->inst = xmalloc(sizeof(int) * ((size_t)h->ninst + 1));
		hg->c0 = xcalloc((size_t)h->ninst * (size_t)sg->nevents + 1, sizeof(double));
		hg->r0 = xcalloc((size_t)h->ninst + 1, sizeof(double));
		for (int i = 0; i < h->ninst; i++) {
			if (h->inst[i].bi.pmu != sg->pmu)
				continue;
			int k = hg->ninst;
			if (sim_truth_group(h->bk, &h->inst[i].bi, sg->counted, sg->nevents,
					    &hg->c0[(size_t)k * (size_t)sg->nevents], &hg->r0[k]) == 0)
				hg->inst[hg->ninst++] = i;
		}
	}
	h->wtruth = xmalloc(sizeof(double) * ((size_t)h->m->nevents + 1));
	phys_open(h);
}

static void harness_close(struct harness *h)
{
	for (int g = 0; g < h->ngroups; g++) {
		free(h->groups[g].inst);
		free(h->groups[g].c0);
		free(h->groups[g].r0);
	}
	free(h->groups);
	for (int i = 0; i < h->ninst; i++)
		free(h->inst[i].bi.perf_name);
	free(h->inst);
	for (int sc = 0; sc < SNAP_NSCOPES; sc++) {
		free(h->truth[sc]);
		free(h->qrow[sc]);
		free(h->power[sc]);
	}
	for (int i = 0; i < h->m->nmetrics; i++)
		expr_free(h->phys[i]);
	free(h->phys);
	free(h->phys_pmu);
	free(h->phys_tol);
	free(h->wtruth);
	sampler_free(h->s);
	topo_free(h->t);
	model_free(h->m);
}

/* Formula evaluation on true counts. */
struct tctx {
	const struct model *m;
	const double *ev;     /* [nevents] */
	double measured_s;
	int scope;
};

static double tvalue(void *ctx, int ref)
{
	struct tctx *c = ctx;
	if (ref == BUILTIN_INTERVAL_S)
		return c->measured_s;
	if (ref >= METRIC_REF_BASE && ref < METRIC_REF_BASE + c->m->nmetrics) {
		const struct metric_def *md = &c->m->metrics[ref - METRIC_REF_BASE];
		return (int)md->scope > c->scope ? NAN : expr_eval(md->expr, tvalue, c);
	}
	return ref >= 0 && ref < c->m->nevents ? c->ev[ref] : NAN;
}

static double true_metric(const struct model *m, int mi, const double *ev, double measured_s, int sc)
{
	struct tctx c = { m, ev, measured_s, sc };
	const struct metric_def *md = &m->metrics[mi];
	return (int)md->scope > sc ? NAN : expr_eval(md->expr, tvalue, &c);
}

/* Groups that hold all of the metric's events: its window set. */
static int window_set(const struct harness *h, const struct metric_def *md, int *out)
{
	int n = 0;
	for (int g = 0; g < h->plan->ngroups; g++) {
		const struct sched_group *sg = &h->plan->groups[g];
		bool all = md->nevents > 0;
		for (int k = 0; k < md->nevents && all; k++) {
			bool in = false;
			for (int j = 0; j < sg->nevents; j++)
				in |= sg->events[j] == md->events[k];
			all = in;
		}
		if (all)
			out[n++] = g;
	}
	return n;
}

static bool is_share(const struct metric_def *md)
{
	return (metric_in_group(md, "topdown_l1") || metric_in_group(md, "topdown_l2")) &&
	       md->unit && !strcmp(md->unit, "ratio");
}

/* The row's whole-interval truth of the metric's events is large enough
 * for counts rounded to whole numbers not to matter. */
static bool enough_counts(const struct metric_def *md, const double *ev)
{
	for (int k = 0; k < md->nevents; k++)
		if (!(fabs(ev[md->events[k]]) >= MIN_TRUE_COUNT))
			return false;
	return true;
}

/* Compares a published figure of coverage cov with the whole-interval
 * truth. */
static void judge(double est, double rse, double cov, double truth, const char *what, struct per_metric *p)
{
	if (!isfinite(est) || !isfinite(truth) || truth == 0)
		return;
	if (rse == 0 && !(cov >= UNC_FULLY_COVERED)) {
		/* Exact is a statement about what was counted, whatever the
		 * windows happened to show. */
		tot.exact_partial++;
		if (tot.exact_partial <= 5)
			fprintf(stderr, "exact claim on coverage %g: %s\n", cov, what);
	}
	if (rse == 0) {
		/* Counters hold whole numbers: each instance's count is off by
		 * up to a half, which MIN_TRUE_COUNT keeps below 1e-3 for the
		 * rows checked here. */
		tot.exact_checked++;
		if (fabs(est - truth) > 1e-3 * fabs(truth)) {
			tot.exact_bad++;
			if (tot.exact_bad <= 5)
				fprintf(stderr, "exact claim wrong: %s: %g vs true %g\n", what, est, truth);
		}
		return;
	}
	if (dump)
		fprintf(dump, "%s\t%s\t%.9g\t%.9g\t%.9g\t%.6g\n", dump_run, what, est, truth, rse, cov);
	if (isnan(rse)) {
		tot.unc_unknown++;
		return;
	}
	/* A plain figure: a stated error that leaves it without '~'. */
	if (!unc_marked(est, rse)) {
		double off = fabs(est - truth) / fabs(truth);
		tot.plain_checked++;
		tot.plain_off10 += off > 0.10;
		tot.plain_off25 += off > 0.25;
		tot.plain_off50 += off > 0.50;
		if (p)
			p->plain_off25 += off > PLAIN_OFF_MAX;
		if (off > PLAIN_OFF_MAX && tot.plain_off25 <= 10)
			fprintf(stderr, "a plain figure %.0f %% off: %s %s = %g (rse %g, coverage %g), true %g\n",
				100 * off, dump_run, what, est, rse, cov, truth);
		if (off > tot.plain_worst) {
			tot.plain_worst = off;
			snprintf(tot.plain_worst_what, sizeof(tot.plain_worst_what), "%s %s", dump_run, what);
		}
	}
	tot.unc_checked++;
	bool covered = fabs(est - truth) <= 1.96 * rse * fabs(est);
	if (covered)
		tot.unc_covered++;
	double z = fabs(est - truth) / (rse * fabs(est));
	if (z > 5 && !unc_marked(est, rse)) {
		tot.wild_plain++;
		if (tot.wild_plain <= 5)
			fprintf(stderr, "a miss of %.1f standard errors shown without '~': %s = %g, true %g, rse %g\n", z,
				what, est, truth, rse);
	}
	if (p) {
		p->checked++;
		p->covered += covered;
		p->wild_plain += z > 5 && !unc_marked(est, rse);
		p->z2 += z * z;
	}
}

/* Compares a published figure with the physical quantity its metric
 * claims to estimate (its `truth`): a wrong formula, or an event whose unit
 * mask leaves out a case its name promises, misses it by more than any
 * stated interval. */
static void judge_phys(double est, double rse, double truth, const char *what, struct per_metric *p)
{
	if (!isfinite(est) || !isfinite(truth) || truth == 0)
		return;
	if (isnan(rse)) {
		tot.phys_unknown++;
		return;
	}
	tot.phys_checked++;
	p->phys_checked++;
	bool ok = rse == 0 ? fabs(est - truth) <= 1e-3 * fabs(truth) : fabs(est - truth) <= 1.96 * rse * fabs(est);
	if (rse == 0) {
		tot.phys_exact++;
		if (!ok) {
			tot.phys_exact_bad++;
			if (tot.phys_exact_bad <= 5)
				fprintf(stderr, "exact, but not the physical truth: %s = %g, physically %g\n", what, est,
					truth);
		}
	}
	tot.phys_covered += ok;
	p->phys_covered += ok;
	if (rse > 0) {
		tot.phys_est_checked++;
		tot.phys_est_covered += ok;
		p->phys_est_checked++;
		p->phys_est_covered += ok;
	}
}

/* A metric biased by design (biased[]) against its physical quantity:
 * its formula on the true counts f within tol of it, and the published
 * figure within its 95 % interval widened by tol (bare: within the
 * interval alone, reported to show what the bias costs). */
static void judge_biased(double est, double rse, double f, double truth, double tol, const char *what,
			 struct per_metric *p)
{
	if (!isfinite(truth))
		return;
	if (isfinite(f)) {
		double miss = fabs(f - truth);
		tot.bias_formula_checked++;
		p->formula_checked++;
		if (miss > tot.bias_worst)
			tot.bias_worst = miss;
		if (miss > p->bias_worst)
			p->bias_worst = miss;
		if (!(miss <= tol)) {
			tot.bias_formula_bad++;
			p->formula_bad++;
			if (tot.bias_formula_bad <= 5)
				fprintf(stderr, "%s: its formula on the true counts gives %g, the quantity it estimates is %g "
					"(tolerance %g)\n", what, f, truth, tol);
		}
	}
	if (!isfinite(est) || isnan(rse))
		return;
	double half = 1.96 * rse * fabs(est);
	tot.bias_checked++;
	p->bias_checked++;
	bool ok = fabs(est - truth) <= half + tol, bare = fabs(est - truth) <= half;
	tot.bias_covered += ok;
	p->bias_covered += ok;
	tot.bias_bare += bare;
	p->bias_bare += bare;
}

/* The trees of shares add up in every row: the parts of the whole to 1,
 * the parts of a metric to it, wherever all of them have a figure. */
static void check_trees(const struct harness *h, const struct snapshot *snap, const struct snap_row *row, int sc,
			int r)
{
	const struct model *m = h->m;
	for (int p = METRIC_PARENT_WHOLE; p < m->nmetrics; p++) {
		if (p == -1)
			continue;
		double target = p == METRIC_PARENT_WHOLE ? 1 : snap_metric(snap, row, p), sum = 0;
		int n = 0;
		bool all = isfinite(target);
		for (int j = 0; j < m->nmetrics && all; j++) {
			if (m->metrics[j].parent != p)
				continue;
			all = isfinite(snap_metric(snap, row, j));
			sum += snap_metric(snap, row, j);
			n++;
		}
		if (!all || n == 0)
			continue;
		tot.sum_checked++;
		if (fabs(sum - target) > 1e-9) {
			tot.sum_bad++;
			if (tot.sum_bad <= 5)
				fprintf(stderr, "the parts of %s sum to %g, not %g (scope %d row %d)\n",
					p == METRIC_PARENT_WHOLE ? "the whole" : m->metrics[p].name, sum, target, sc, r);
		}
	}
}

/* A power figure against the physical truth ph[PHYS_N] of its row: the
 * watts exactly (to the 2^-32 J rounding of the counts), instructions per
 * joule within its stated uncertainty (judge). */
static void check_energy(const struct snapshot *snap, const struct metric_def *md, double est,
			 const struct snap_row *row, int mi,
			 double T, const double *ph, const char *what)
{
	static const struct { const char *metric; int phys; } watts[] = {
		{ "pkg_watts", PHYS_PKG_NJ }, { "cores_watts", PHYS_CORES_NJ }, { "ram_watts", PHYS_DRAM_NJ },
	};
	for (size_t i = 0; i < ARRAY_SIZE(watts); i++) {
		if (strcmp(md->name, watts[i].metric))
			continue;
		double truth = ph[watts[i].phys] * 1e-9 / T;
		double rel = fabs(est - truth) / truth;
		tot.watts_checked++;
		if (rel > tot.worst_watts)
			tot.worst_watts = rel;
		if (!(rel <= 1e-6)) {
			tot.watts_bad++;
			if (tot.watts_bad <= 5)
				fprintf(stderr, "watts: %s = %g, physically %g\n", what, est, truth);
		}
	}
	if (!strcmp(md->name, "insn_per_joule") && ph[PHYS_INSN] >= MIN_TRUE_COUNT) {
		double truth = ph[PHYS_INSN] / (ph[PHYS_PKG_NJ] * 1e-9);
		tot.ipj_checked++;
		tot.ipj_err_sum += fabs(est - truth) / truth;
		double rse = snap_metric_rse(snap, row, mi);
		tot.ipj_covered += rse == 0 ? fabs(est - truth) <= 1e-3 * truth : fabs(est - truth) <= 1.96 * rse * est;
		judge(est, snap_metric_rse(snap, row, mi), snap_metric_cov(snap, row, mi), truth, what, NULL);
	}
}

static void check_interval(struct harness *h, const struct snapshot *snap, bool filtered)
{
	const struct model *m = h->m;
	double T = snap->measured_s;
	tot.cpu_intervals += snap->nrows[SNAP_CPU];
	/* Whole-interval truth per row. */
	for (int sc = 0; sc < SNAP_NSCOPES; sc++) {
		free(h->truth[sc]);
		h->truth[sc] = xcalloc((size_t)snap->nrows[sc] * (size_t)m->nevents + 1, sizeof(double));
		free(h->qrow[sc]);
		h->qrow[sc] = xcalloc((size_t)snap->nrows[sc] * (size_t)m->npmus * WQ_COUNT + 1, sizeof(double));
		free(h->power[sc]);
		h->power[sc] = xcalloc((size_t)snap->nrows[sc] * PHYS_N + 1, sizeof(double));
	}
	int power_pmu = model_find_pmu(m, "power");
	for (int i = 0; i < h->ninst; i++) {
		struct hinst *hi = &h->inst[i];
		place_instance(h->t, snap, hi);
		double q1[WQ_COUNT], dq[WQ_COUNT];
		ck_assert_int_eq(sim_truth_source(h->bk, &hi->bi, q1), 0);
		for (int k = 0; k < WQ_COUNT; k++)
			dq[k] = q1[k] - hi->q0[k];
		memcpy(hi->q0, q1, sizeof(q1));
		for (int sc = 0; sc < SNAP_NSCOPES; sc++)
			for (int k = 0; hi->rows[sc] >= 0 && k < WQ_COUNT; k++)
				h->qrow[sc][((size_t)hi->rows[sc] * (size_t)m->npmus + (size_t)hi->bi.pmu) * WQ_COUNT +
					    (size_t)k] += dq[k];
		/* A package's physical energy and the instructions its CPUs
		 * retired: the power PMU's source is the socket's sums. */
		if (hi->bi.pmu == power_pmu && power_pmu >= 0) {
			double ph[PHYS_N] = {
				[PHYS_PKG_NJ] = dq[WQ_CORE_ENERGY] + dq[WQ_UNCORE_ENERGY],
				[PHYS_CORES_NJ] = dq[WQ_CORE_ENERGY],
				[PHYS_DRAM_NJ] = dq[WQ_DRAM_ENERGY],
				[PHYS_INSN] = dq[WQ_INSTRUCTIONS],
			};
			for (int sc = 0; sc < SNAP_NSCOPES; sc++)
				for (int k = 0; k < PHYS_N && hi->rows[sc] >= 0; k++)
					h->power[sc][(size_t)hi->rows[sc] * PHYS_N + (size_t)k] += ph[k];
		}
		for (int e = 0; e < m->nevents; e++) {
			if (m->events[e].pmu != hi->bi.pmu)
				continue;
			double v = sim_truth_event(h->bk, hi->bi.cpu, e, dq, T * 1e9);
			for (int sc = 0; sc < SNAP_NSCOPES; sc++)
				if (hi->rows[sc] >= 0)
					h->truth[sc][(size_t)hi->rows[sc] * (size_t)m->nevents + (size_t)e] += v;
		}
	}
	/* True counts of each group over its own windows in this interval,
	 * per instance; kept as this interval's difference in c0 (swapped). */
	double **wc = xcalloc((size_t)h->ngroups + 1, sizeof(double *));
	double **wr = xcalloc((size_t)h->ngroups + 1, sizeof(double *));
	for (int g = 0; g < h->ngroups; g++) {
		struct hgroup *hg = &h->groups[g];
		const struct sched_group *sg = &h->plan->groups[g];
		wc[g] = xcalloc((size_t)hg->ninst * (size_t)sg->nevents + 1, sizeof(double));
		wr[g] = xcalloc((size_t)hg->ninst + 1, sizeof(double));
		for (int k = 0; k < hg->ninst; k++) {
			double c1[64], r1 = 0;
			ck_assert_int_le(sg->nevents, 64);
			ck_assert_int_eq(sim_truth_group(h->bk, &h->inst[hg->inst[k]].bi, sg->counted, sg->nevents,
							 c1, &r1), 0);
			for (int j = 0; j < sg->nevents; j++) {
				size_t at = (size_t)k * (size_t)sg->nevents + (size_t)j;
				wc[g][at] = c1[j] - hg->c0[at];
				hg->c0[at] = c1[j];
			}
			wr[g][k] = r1 - hg->r0[k];
			hg->r0[k] = r1;
		}
	}

	int *wset = xmalloc(sizeof(int) * ((size_t)h->plan->ngroups + 1));
	for (int sc = 0; sc < SNAP_NSCOPES; sc++) {
		for (int r = 0; r < snap->nrows[sc]; r++) {
			const struct snap_row *row = &snap->rows[sc][r];
			const double *tev = &h->truth[sc][(size_t)r * (size_t)m->nevents];
			for (int i = 0; i < h->plan->nmetrics; i++) {
				int mi = h->plan->metrics[i];
				const struct metric_def *md = &m->metrics[mi];
				double est = snap_metric(snap, row, mi);
				if (isnan(est))
					continue;
				char what[160];
				snprintf(what, sizeof(what), "%s scope %d row %d", md->name, sc, r);
				if (is_share(md)) {
					tot.share_checked++;
					if (est < -1e-9 || est > 1 + 1e-9) {
						tot.share_bad++;
						fprintf(stderr, "share out of [0,1]: %s = %g\n", what, est);
					}
				}
				/* Cycles over busy time, both over the cycles' windows:
				 * never above the clock the part can run at. */
				if (!strcmp(md->name, "ghz") && h->ghz_max > 0) {
					tot.ghz_checked++;
					if (est > h->ghz_max * (1 + 1e-6)) {
						tot.ghz_over++;
						if (tot.ghz_over <= 5)
							fprintf(stderr, "GHz above the part's %g: %s = %g\n", h->ghz_max, what, est);
					}
				}
				if (power_pmu >= 0)
					check_energy(snap, md, est, row, mi, T, &h->power[sc][(size_t)r * PHYS_N], what);
				if (strstr(md->name, "bus_util")) {
					tot.share_checked++;
					if (est > 1 + 1e-9) {
						tot.share_bad++;
						fprintf(stderr, "bus utilisation over 1: %s = %g\n", what, est);
					}
				}
				/* The same formula on the true counts of the metric's
				 * own windows. */
				/* A share of a tree is its family's share of its
				 * parent (derive_tree.c), not its formula on its own
				 * windows: the trees are checked as trees below. */
				/* A figure set to a bound it crossed (derive_bounds.c)
				 * is not its formula on its windows either. */
				bool clamped = isnan(snap_metric_rse(snap, row, mi)) &&
					       (est == md->lo || est == md->hi || (md->hi_ghz && est == h->ghz_max));
				int nw = md->parent == -1 && !clamped ? window_set(h, md, wset) : 0;
				if (nw > 0 && enough_counts(md, tev) && !filtered) {
					for (int e = 0; e < m->nevents; e++)
						h->wtruth[e] = NAN;
					for (int k = 0; k < md->nevents; k++)
						h->wtruth[md->events[k]] = 0;
					/* Per instance: counts over the set's windows,
					 * scaled to the interval by its running time. */
					bool few = false;
					for (int ii = 0; ii < h->ninst; ii++) {
						if (h->inst[ii].rows[sc] != r ||
						    h->inst[ii].bi.pmu != h->plan->groups[wset[0]].pmu)
							continue;
						double run = 0;
						for (int w = 0; w < nw; w++) {
							struct hgroup *hg = &h->groups[wset[w]];
							for (int k = 0; k < hg->ninst; k++)
								if (hg->inst[k] == ii)
									run += wr[wset[w]][k];
						}
						for (int q = 0; q < md->nevents; q++) {
							double c = 0;
							for (int w = 0; w < nw; w++) {
								struct hgroup *hg = &h->groups[wset[w]];
								const struct sched_group *sg = &h->plan->groups[wset[w]];
								for (int k = 0; k < hg->ninst; k++) {
									if (hg->inst[k] != ii)
										continue;
									for (int j = 0; j < sg->nevents; j++)
										if (sg->events[j] == md->events[q])
											c += wc[wset[w]][(size_t)k * (size_t)sg->nevents + (size_t)j];
								}
							}
							h->wtruth[md->events[q]] += run > 0 ? c * T * 1e9 / run : NAN;
							few |= run > 0 && fabs(c) < MIN_WINDOW_COUNT;
						}
					}
					double wt = true_metric(m, mi, h->wtruth, T, sc);
					if (isfinite(wt) && wt != 0 && !few) {
						double rel = fabs(est - wt) / fabs(wt);
						tot.window_checked++;
						if (rel > 1e-3) {
							tot.window_bad++;
							if (tot.window_bad <= 5)
								fprintf(stderr, "window truth: %s = %g, true %g\n", what, est, wt);
						}
						if (rel > tot.worst_window) {
							tot.worst_window = rel;
							snprintf(tot.worst_what, sizeof(tot.worst_what), "%s", what);
						}
					}
				}
				if (!filtered && enough_counts(md, tev))
					judge(est, snap_metric_rse(snap, row, mi), snap_metric_cov(snap, row, mi), true_metric(m, mi, tev, T, sc),
					      what, pm_find(m->name, md->name));
				if (h->phys[mi] && !filtered && enough_counts(md, tev)) {
					struct phys_ctx pc = { &h->qrow[sc][(size_t)r * (size_t)m->npmus * WQ_COUNT],
							       h->phys_pmu[mi], m->npmus, T };
					double phys = expr_eval(h->phys[mi], phys_value, &pc);
					if (!isnan(h->phys_tol[mi])) {
						judge_biased(est, snap_metric_rse(snap, row, mi), true_metric(m, mi, tev, T, sc), phys,
							     h->phys_tol[mi], what, pm_find(m->name, md->name));
						continue;
					}
					judge_phys(est, snap_metric_rse(snap, row, mi), phys, what, pm_find(m->name, md->name));
					double f = true_metric(m, mi, tev, T, sc);
					if (isfinite(f) && isfinite(phys) && phys != 0) {
						tot.formula_checked++;
						pm_find(m->name, md->name)->formula_checked++;
						if (fabs(f - phys) > 1e-6 * fabs(phys)) {
							tot.formula_bad++;
							pm_find(m->name, md->name)->formula_bad++;
							if (tot.formula_bad <= 5)
								fprintf(stderr, "%s %s: its formula on the true counts gives %g, "
									"the quantity it estimates is %g\n", m->name, what, f, phys);
						}
					}
				}
			}
			check_trees(h, snap, row, sc, r);
			for (int e = 0; e < m->nevents && !filtered; e++) {
				if (!snap->event_planned[e] || !(fabs(tev[e]) >= MIN_TRUE_COUNT))
					continue;
				char what[160];
				snprintf(what, sizeof(what), "%s scope %d row %d", m->events[e].name, sc, r);
				/* Per second on the screen, per interval here. */
				long off25 = tot.plain_off25;
				judge(snap_event(snap, row, e), snap_event_rse(snap, row, e), snap_event_cov(snap, row, e), tev[e], what, NULL);
				tot.plain_off25_ev += tot.plain_off25 - off25;
			}
		}
	}
	free(wset);
	for (int g = 0; g < h->ngroups; g++) {
		free(wc[g]);
		free(wr[g]);
	}
	free(wc);
	free(wr);
}

struct run_spec {
	const char *model;
	int shape[4];
	const char *what;
	double rotate_ms;
	int seeds, intervals;
	const char *extra;        /* more simulator options */
};

static void run(const struct run_spec *rs)
{
	for (int seed = 1; seed <= rs->seeds; seed++) {
		struct harness h;
		snprintf(dump_run, sizeof(dump_run), "%s %dx%dx%dx%d %s %g %s seed=%d", rs->model, rs->shape[0],
			 rs->shape[1], rs->shape[2], rs->shape[3], rs->what, rs->rotate_ms, rs->extra ? rs->extra : "-",
			 seed);
		harness_open(&h, rs->model, rs->shape, rs->what, rs->rotate_ms, seed, rs->extra, NULL);
		for (int n = 0; n < rs->intervals; n++) {
			char *cause = NULL;
			struct snapshot *snap = sampler_step(h.s, &cause);
			ck_assert_msg(snap != NULL, "step: %s", cause ? cause : "?");
			check_interval(&h, snap, false);
			snapshot_free(snap);
		}
		harness_close(&h);
	}
}

/* Every run has three seeds or more: a metric's calibration judged on one
 * seed's workload is that workload's. Westmere's freq_ratio covered its
 * truth with 99.2 % of its 95 % intervals with seed 1 and 96.0 % with
 * seed 3, kernel_cycles_share 99.7 % and 96.1 %, and the metrics over
 * 99 % were 6, of which 4 were so by one seed; and seeds 2 and 3 of Zen
 * 3's every metric at once showed plain figures 40-78 % off that seed 1
 * had not (docs/uncertainty.md, item 13). */
static const struct run_spec runs[] = {
	{ "amd-zen5", { 1, 2, 8, 2 }, "basic", 50, 4, 25, NULL },
	/* The batch view's headline figures pinned beside rotating topdown. */
	{ "amd-zen5", { 1, 2, 8, 2 }, "batch", 50, 3, 20, NULL },
	{ "amd-zen5", { 1, 2, 8, 2 }, "topdown", 50, 4, 25, NULL },
	{ "amd-zen5", { 1, 2, 8, 2 }, "cache", 50, 3, 25, NULL },
	{ "amd-zen5", { 1, 2, 8, 2 }, "topdown", SAMPLER_ROTATE_KERNEL, 3, 25, NULL },
	/* Without the NMI watchdog all six level-1 events fit one group. */
	{ "amd-zen5", { 1, 2, 8, 2 }, "topdown_l1", 50, 3, 25, "nmi=0" },
	{ "amd-zen5", { 1, 2, 8, 2 }, "basic", SAMPLER_ROTATE_KERNEL, 3, 25, NULL },
	{ "amd-zen5", { 2, 4, 8, 2 }, "topdown_l2", 25, 3, 15, NULL },
	{ "amd-zen5", { 1, 2, 4, 2 }, "all", 50, 3, 15, NULL },
	{ "intel-core2", { 1, 1, 4, 1 }, "basic", 50, 5, 20, NULL },
	/* The front-side bus figures, with windows enough to state errors. */
	{ "intel-core2", { 1, 1, 4, 1 }, "memory", 50, 3, 20, NULL },
	{ "intel-westmere", { 1, 1, 6, 2 }, "basic", 50, 3, 20, NULL },
	{ "amd-fam10h", { 1, 1, 4, 1 }, "basic", 50, 3, 20, NULL },
	{ "intel-arch", { 1, 1, 4, 2 }, "basic", 50, 3, 20, NULL },
	/* Every metric of the older models, for the physical truth. */
	{ "intel-core2", { 1, 1, 4, 1 }, "all", 50, 4, 20, NULL },
	{ "intel-westmere", { 1, 1, 6, 2 }, "all", 50, 4, 20, NULL },
	{ "amd-fam10h", { 1, 1, 4, 1 }, "all", 50, 3, 20, NULL },
	/* Family 10h's four counters rotate among all its groups: at 50 ms
	 * each runs two windows a second, too few to state an error
	 * (UNC_MIN_SAMPLES); at 20 ms, five. */
	{ "amd-fam10h", { 1, 1, 4, 1 }, "all", 20, 3, 20, NULL },
	{ "intel-arch", { 1, 1, 4, 2 }, "all", 50, 4, 20, NULL },
	{ "generic", { 1, 1, 4, 1 }, "all", 50, 3, 20, NULL },
	{ "amd-zen4", { 1, 2, 8, 2 }, "topdown", 50, 3, 20, NULL },
	{ "amd-zen4", { 1, 2, 8, 2 }, "basic", 50, 3, 20, NULL },
	{ "amd-zen3", { 1, 2, 8, 2 }, "basic", 50, 3, 20, NULL },
	/* The level-2 backend split, IC fetches, FP uops by width and the L3
	 * latency in clocks on views that plan them in few groups. */
	{ "amd-zen4", { 1, 2, 8, 2 }, "topdown_l2", 50, 3, 20, NULL },
	{ "amd-zen4", { 1, 2, 8, 2 }, "cache", 50, 3, 20, NULL },
	{ "amd-zen4", { 1, 2, 8, 2 }, "fp", 50, 3, 20, NULL },
	{ "amd-zen4", { 1, 2, 8, 2 }, "memory", 50, 3, 20, NULL },
	{ "amd-zen5", { 1, 2, 8, 2 }, "fp", 50, 3, 20, NULL },
	{ "amd-zen5", { 2, 4, 8, 2 }, "memory", 50, 3, 15, NULL },
	{ "amd-zen3", { 1, 2, 8, 2 }, "memory", 50, 3, 20, NULL },
	{ "intel-spr", { 1, 2, 8, 2 }, "memory", 50, 3, 20, NULL },
	{ "intel-spr", { 1, 1, 8, 2 }, "cache", 50, 3, 20, NULL },
	/* FP dispatch faults and write-combining closes. */
	{ "amd-zen3", { 1, 2, 8, 2 }, "stalls", 50, 3, 20, NULL },
	{ "amd-zen4", { 1, 2, 8, 2 }, "stalls", 50, 3, 20, NULL },
	{ "amd-zen5", { 1, 2, 8, 2 }, "stalls", 50, 3, 20, NULL },
	{ "amd-zen5", { 1, 2, 8, 2 }, "l1", 50, 3, 20, NULL },
	/* Every metric of Zen 3 and 4 at least once, for the physical truth. */
	{ "amd-zen4", { 1, 2, 2, 2 }, "all", 50, 3, 12, NULL },
	{ "amd-zen3", { 1, 2, 2, 2 }, "all", 50, 3, 12, NULL },
	{ "intel-spr", { 1, 1, 8, 2 }, "basic", 50, 3, 20, NULL },
	{ "intel-spr", { 1, 1, 8, 2 }, "topdown", 50, 3, 20, NULL },
	/* PERF_METRICS under the kernel's own rotation, and a kernel without
	 * it (the general-counter fallbacks). */
	{ "intel-spr", { 1, 1, 8, 2 }, "topdown", SAMPLER_ROTATE_KERNEL, 3, 20, NULL },
	{ "intel-spr", { 1, 1, 8, 2 }, "all", 50, 3, 15, NULL },
	{ "intel-spr", { 1, 1, 8, 2 }, "all", 50, 3, 15, "features=0" },
	/* Energy: the power view on one and two sockets, AMD, Intel and generic. */
	{ "amd-zen5", { 1, 2, 8, 2 }, "power", 50, 3, 20, NULL },
	{ "amd-zen5", { 2, 4, 8, 2 }, "power", 50, 3, 15, NULL },
	{ "amd-zen4", { 1, 2, 8, 2 }, "power", 50, 3, 15, NULL },
	{ "amd-zen3", { 1, 2, 8, 2 }, "power", SAMPLER_ROTATE_KERNEL, 3, 15, NULL },
	{ "intel-spr", { 2, 1, 8, 2 }, "power", 50, 3, 15, NULL },
	{ "generic", { 1, 1, 4, 1 }, "power", 50, 3, 20, NULL },
	/* User code and the kernel (privilege modifiers) against the
	 * simulator's physical split of each CPU's work. */
	{ "amd-zen5", { 1, 2, 8, 2 }, "privilege", 50, 3, 20, NULL },
	{ "intel-spr", { 1, 1, 8, 2 }, "privilege", 50, 3, 20, NULL },
	{ "generic", { 1, 1, 4, 1 }, "privilege", 50, 3, 20, NULL },
};

/* The models imported from Linux perf's files, judged as the hand-written
 * ones are (tests/e2e_truth_imported.sh gives the files): the common
 * metrics (events/perf/common-*.def) against the physical truth, every
 * share and tree, GHz, exact claims, per-metric calibration. */
static const struct run_spec imported_runs[] = {
	{ "icx", { 1, 1, 8, 2 }, "basic", 50, 3, 20, NULL },
	{ "icx", { 1, 1, 8, 2 }, "topdown", 50, 2, 20, NULL },
	{ "icx", { 1, 1, 8, 2 }, "topdown_l2", 50, 1, 20, NULL },
	{ "icx", { 1, 1, 8, 2 }, "cache", 50, 2, 20, NULL },
	{ "icx", { 1, 1, 8, 2 }, "memory", 50, 2, 20, NULL },
	{ "icx", { 1, 1, 8, 2 }, "tlb", 50, 1, 20, NULL },
	{ "icx", { 1, 1, 8, 2 }, "fp", 50, 1, 20, NULL },
	{ "skx", { 1, 1, 8, 2 }, "basic", 50, 2, 20, NULL },
	{ "skx", { 1, 1, 8, 2 }, "topdown_l2", 50, 1, 20, NULL },
	{ "skx", { 1, 1, 8, 2 }, "cache", 50, 1, 20, NULL },
	{ "clx", { 1, 1, 8, 2 }, "basic", 50, 1, 20, NULL },
	{ "perf-sapphirerapids", { 1, 1, 8, 2 }, "basic", 50, 2, 20, NULL },
	{ "perf-sapphirerapids", { 1, 1, 8, 2 }, "topdown_l2", 50, 1, 20, NULL },
	{ "perf-sapphirerapids", { 1, 1, 8, 2 }, "memory", 50, 1, 20, NULL },
	{ "gnr", { 1, 1, 8, 2 }, "basic", 50, 2, 20, NULL },
	{ "gnr", { 1, 1, 8, 2 }, "memory", 50, 1, 20, NULL },
	/* Topdown from the kernel's events (no TMA metrics in its files). */
	{ "gnr", { 1, 1, 8, 2 }, "topdown", 50, 2, 20, NULL },
	{ "gnr", { 1, 1, 8, 2 }, "topdown_l2", 50, 1, 20, NULL },
	{ "srf", { 1, 1, 8, 1 }, "basic", 50, 2, 20, NULL },
	{ "zen2", { 1, 2, 4, 2 }, "basic", 50, 2, 20, NULL },
	{ "zen2", { 1, 2, 4, 2 }, "cache", 50, 1, 20, NULL },
	{ "perf-amdzen4", { 1, 2, 4, 2 }, "basic", 50, 2, 20, NULL },
	{ "perf-amdzen4", { 1, 2, 4, 2 }, "topdown", 50, 2, 20, NULL },
	{ "perf-amdzen4", { 1, 2, 4, 2 }, "memory", 50, 1, 20, NULL },
	{ "perf-amdzen5", { 1, 2, 4, 2 }, "basic", 50, 2, 20, NULL },
	{ "perf-amdzen5", { 1, 2, 4, 2 }, "topdown_l2", 50, 1, 20, NULL },
	{ "n1", { 1, 1, 8, 1 }, "basic", 50, 2, 20, NULL },
	{ "n1", { 1, 1, 8, 1 }, "tlb", 50, 1, 20, NULL },
	{ "v1", { 1, 1, 8, 1 }, "basic", 50, 2, 20, NULL },
	{ "v1", { 1, 1, 8, 1 }, "topdown", 50, 1, 20, NULL },
	{ "v1", { 1, 1, 8, 1 }, "cache", 50, 1, 20, NULL },
};

/* The totals of runs rr[0..n-1] alone (the focused tests' judgement). */
static void run_all(const struct run_spec *rr, size_t n)
{
	memset(&tot, 0, sizeof(tot));
	for (size_t i = 0; i < n; i++)
		run(&rr[i]);
}

/* The judgement over all runs, with the figures the documentation quotes. */
/* Runs rr[0..nr-1] and judges them. hand: the hand-written models' runs,
 * which must also reach the numbers of cases below (energy, calibrated
 * metrics); every judgement that something is wrong holds for both. */
static void verdict(const struct run_spec *rr, size_t nr, bool hand)
{
	memset(&tot, 0, sizeof(tot));
	const char *dump_to = getenv("PMCTOP_TRUTH_DUMP");
	dump = dump_to ? fopen(dump_to, "w") : NULL;
	/* PMCTOP_TRUTH_ONLY=text: only the runs whose "model view" holds the
	 * text, and no verdict (looking into one model: the whole judgement
	 * takes minutes). */
	const char *only = getenv("PMCTOP_TRUTH_ONLY");
	bool subset = only && *only;
	for (size_t i = 0; i < nr; i++) {
		char name[96];
		snprintf(name, sizeof(name), "%s %s", rr[i].model, rr[i].what);
		if (!subset || strstr(name, only))
			run(&rr[i]);
	}
	if (dump)
		fclose(dump);
	dump = NULL;
	double cover = tot.unc_checked ? (double)tot.unc_covered / (double)tot.unc_checked : NAN;
	printf("ground truth: %ld CPU-intervals\n", tot.cpu_intervals);
	printf("  window-consistent metrics: %ld checked, %ld off by more than 0.1 %% (worst %.2g: %s)\n",
	       tot.window_checked, tot.window_bad, tot.worst_window, tot.worst_what);
	printf("  shares in [0,1]: %ld checked, %ld outside; trees (parts summing to their parent): %ld checked, %ld off\n",
	       tot.share_checked, tot.share_bad, tot.sum_checked, tot.sum_bad);
	printf("  exact claims: %ld checked, %ld wrong, %ld on part of the interval\n", tot.exact_checked,
	       tot.exact_bad, tot.exact_partial);
	printf("  GHz: %ld checked, %ld above the part's highest clock\n", tot.ghz_checked, tot.ghz_over);
	printf("  plain figures (a stated error, no '~'): %ld judged; off by more than 10 %%: %ld, 25 %%: %ld, 50 %%: %ld "
	       "(worst %.3g: %s); more than 5 stated standard errors off: %ld (%.3f %%)\n",
	       tot.plain_checked, tot.plain_off10, tot.plain_off25, tot.plain_off50, tot.plain_worst,
	       tot.plain_worst_what, tot.wild_plain,
	       tot.plain_checked ? 100.0 * (double)tot.wild_plain / (double)tot.plain_checked : NAN);
	printf("  against the physical quantities: %ld checked, %ld within their interval (%.1f %%); "
	       "%ld stated exact, %ld of them not; %ld of unknown uncertainty; with a stated error %ld, "
	       "%ld within (%.1f %%)\n",
	       tot.phys_checked, tot.phys_covered,
	       tot.phys_checked ? 100.0 * (double)tot.phys_covered / (double)tot.phys_checked : NAN, tot.phys_exact,
	       tot.phys_exact_bad, tot.phys_unknown, tot.phys_est_checked, tot.phys_est_covered,
	       tot.phys_est_checked ? 100.0 * (double)tot.phys_est_covered / (double)tot.phys_est_checked : NAN);
	printf("  formulas on the true counts against the quantities they estimate: %ld checked, %ld off\n",
	       tot.formula_checked, tot.formula_bad);
	printf("  biased by design, against the physical quantity within a tolerance: formulas %ld checked, %ld outside "
	       "(worst %.4f); figures %ld checked, %ld within interval + tolerance, %ld within the interval alone\n",
	       tot.bias_formula_checked, tot.bias_formula_bad, tot.bias_worst, tot.bias_checked, tot.bias_covered,
	       tot.bias_bare);
	for (int i = 0; i < npm; i++)
		if (pm[i].bias_checked > 0)
			printf("    biased %-50s %7ld  worst formula miss %.4f  %6.1f %% within interval + tolerance, "
			       "%6.1f %% within the interval\n", pm[i].name, pm[i].bias_checked, pm[i].bias_worst,
			       100.0 * (double)pm[i].bias_covered / (double)pm[i].bias_checked,
			       100.0 * (double)pm[i].bias_bare / (double)pm[i].bias_checked);
	/* Each metric on its own, against the physical truth: of the figures
	 * with a stated error, 90-99 % inside their 95 % interval wherever
	 * there are enough of them to tell (a metric at 100 % states errors
	 * too wide, one below 90 % too narrow). */
	int uncalibrated = 0, calibrated = 0, narrow = 0;
	for (int i = 0; i < npm; i++) {
		if (pm[i].phys_checked < 20)
			continue;
		long n = pm[i].phys_est_checked, c = pm[i].phys_est_covered;
		bool judged = n >= MIN_METRIC_FIGURES, off = judged && (c < 0.90 * (double)n || c > 0.99 * (double)n);
		calibrated += judged && !off;
		uncalibrated += off;
		narrow += judged && c < 0.90 * (double)n;
		printf("    physical %-48s %7ld %6.1f %%; with a stated error %7ld %6.1f %%%s\n", pm[i].name,
		       pm[i].phys_checked, 100.0 * (double)pm[i].phys_covered / (double)pm[i].phys_checked, n,
		       n ? 100.0 * (double)c / (double)n : NAN, off ? "  <- outside 90-99 %" : "");
	}
	printf("  metrics with %d or more figures of stated error against the physical truth: %d inside 90-99 %%, "
	       "%d outside\n", MIN_METRIC_FIGURES, calibrated, uncalibrated);
	/* And against its formula on the whole interval's true counts. */
	int tuncal = 0, tcal = 0;
	printf("  per metric with %d or more figures of stated error (model metric: checked, 95 %% coverage, RMS z, "
	       "wild, plain off > 25 %%):\n", MIN_METRIC_FIGURES);
	for (int i = 0; i < npm; i++) {
		if (pm[i].checked < MIN_METRIC_FIGURES)
			continue;
		bool off = pm[i].covered < 0.90 * (double)pm[i].checked || pm[i].covered > 0.99 * (double)pm[i].checked;
		tuncal += off;
		narrow += pm[i].covered < 0.90 * (double)pm[i].checked;
		tcal += !off;
		printf("    %-48s %7ld %6.1f %% %8.2f %5ld %5ld%s\n", pm[i].name, pm[i].checked,
		       100.0 * (double)pm[i].covered / (double)pm[i].checked, sqrt(pm[i].z2 / (double)pm[i].checked),
		       pm[i].wild_plain, pm[i].plain_off25, off ? "  <- outside 90-99 %" : "");
	}
	printf("  metrics with %d or more figures of stated error against their formula on the true counts: %d inside "
	       "90-99 %%, %d outside\n", MIN_METRIC_FIGURES, tcal, tuncal);
	printf("  watts (package, cores, DRAM): %ld checked against the physical energy, %ld off by more than 1e-6 (worst %.2g)\n",
	       tot.watts_checked, tot.watts_bad, tot.worst_watts);
	printf("  instructions per joule: %ld checked against the physical truth, mean error %.3g %%, %ld within the stated 95 %% interval\n",
	       tot.ipj_checked, tot.ipj_checked ? 100 * tot.ipj_err_sum / (double)tot.ipj_checked : NAN,
	       tot.ipj_covered);
	printf("  95 %% intervals: %ld checked, %ld cover the truth (%.1f %%), %ld of unknown uncertainty\n",
	       tot.unc_checked, tot.unc_covered, 100 * cover, tot.unc_unknown);
	fflush(stdout);
	if (subset)
		return;
	ck_assert_msg(!hand || tot.plain_off25 <= PLAIN_OFF_LEFT, "%ld plain figures miss their truth by more than 25 %% "
		      "(worst %.3g: %s)", tot.plain_off25, tot.plain_worst, tot.plain_worst_what);
	ck_assert_msg(!hand || tot.wild_plain <= WILD_PLAIN_LEFT * (double)tot.plain_checked,
		      "%ld of %ld plain figures miss by more than 5 stated standard errors", tot.wild_plain,
		      tot.plain_checked);
	/* Every metric with enough figures, none let off: no stated error
	 * too narrow (under 90 %: confident and wrong); too wide, no more
	 * than are left. */
	ck_assert_msg(narrow == 0, "%d metrics' 95 %% intervals cover the truth less than 90 %% of the time", narrow);
	int over_left = hand ? OVER_WIDE_LEFT : OVER_WIDE_IMPORTED_LEFT;
	ck_assert_msg(tuncal <= over_left && uncalibrated <= over_left,
		      "%d (formula) and %d (physical) metrics' 95 %% intervals cover the truth more than 99 %% of the time",
		      tuncal, uncalibrated);
	ck_assert_int_ge(tot.cpu_intervals, 10000);
	ck_assert_int_gt(tot.window_checked, 1000);
	ck_assert_int_eq(tot.window_bad, 0);
	ck_assert_int_gt(tot.share_checked, 1000);
	ck_assert_int_eq(tot.share_bad, 0);
	ck_assert_int_gt(tot.sum_checked, 100);
	ck_assert_int_eq(tot.sum_bad, 0);
	ck_assert_int_eq(tot.exact_bad, 0);
	ck_assert_int_eq(tot.exact_partial, 0);
	ck_assert_int_eq(tot.formula_bad, 0);
	ck_assert_int_eq(tot.bias_formula_bad, 0);
	ck_assert_int_ge(tot.bias_covered, tot.bias_checked * 95 / 100);
	ck_assert_int_gt(tot.phys_checked, 10000);
	ck_assert_int_eq(tot.phys_exact_bad, 0);
	/* The calibration of the stated errors: the figures that state one
	 * (not exact, not of unknown error), as the per-metric judgement
	 * counts them (phys_est_*). Exact figures are judged apart (no
	 * phys_exact_bad above); counted as covered here they raised the
	 * share with every figure made exact, saying nothing of the intervals
	 * (the fixed counters' pins: 99.0 -> 99.1 % of all figures in the
	 * imported models, 97.6 % of those with a stated error). */
	ck_assert_int_gt(tot.phys_est_checked, 10000);
	double pcover = (double)tot.phys_est_covered / (double)tot.phys_est_checked;
	ck_assert_msg(pcover >= 0.90 && pcover <= 0.99,
		      "95 %% intervals cover the physical truth in %.1f %% of the figures with a stated error",
		      100 * pcover);
	ck_assert_int_ge(calibrated, hand ? 100 : 20);
	ck_assert_int_gt(tot.ghz_checked, 1000);
	ck_assert_int_eq(tot.ghz_over, 0);
	ck_assert_int_eq(tot.watts_bad, 0);
	ck_assert_int_ge(tot.ipj_covered, tot.ipj_checked * 85 / 100);
	if (hand) {
		ck_assert_int_gt(tot.formula_checked, 10000);
		ck_assert_int_gt(tot.bias_formula_checked, 1000);
		ck_assert_int_gt(tot.watts_checked, 300);
		ck_assert_int_gt(tot.ipj_checked, 150);
	}
	ck_assert_int_gt(tot.unc_checked, 1000);
	ck_assert_msg(cover >= 0.90 && cover <= 0.99, "95 %% intervals cover the truth in %.1f %% of cases",
		      100 * cover);
}

/* The rules of drawing errors toward their peers' (derive_moderate.c),
 * which test_verdict measures: a median only of stated errors (neither
 * exact nor unknown) and only of enough rows; exact and unknown errors
 * and those of no median stay as they are; an error far under its peers'
 * is raised toward theirs, one far over is lowered; the rows that make
 * the median are spread over the whole scope; three samples get less of
 * t's widening than more. */
START_TEST(test_moderate_rules)
{
	double few[] = { NAN, 0, 0.01, 0.02, INFINITY };
	ck_assert(isnan(moderate_median(few, 5)));
	double some[] = { 0.05, 0.01, NAN, 0.04, 0, 0.02, 0.03 };
	ck_assert_double_eq(moderate_median(some, 7), 0.03);
	double rse[] = { 0, NAN, 0.001, 0.1, 0.001 };
	const double med[] = { 0.03, 0.03, 0.03, 0.03, NAN }, scale[] = { 0.86, 0.86, 0.86, 0.86, 0.86 };
	moderate_apply(rse, med, scale, 5);
	ck_assert_double_eq(rse[0], 0);
	ck_assert(isnan(rse[1]));
	ck_assert_double_eq_tol(rse[2], 0.86 * sqrt(0.5 * 0.03 * 0.03 + 0.5 * 0.001 * 0.001), 1e-12);
	ck_assert(rse[2] > 0.015);
	ck_assert(rse[3] < 0.07);
	ck_assert_double_eq(rse[4], 0.001);
	/* The same on the columns whose median is a number alone (what
	 * derive.c lists per scope): those listed to the bit, the others as
	 * they were. */
	double some_rse[] = { 0, NAN, 0.001, 0.1, 0.001 };
	const int live[] = { 2, 3 };
	moderate_apply_cols(some_rse, med, scale, live, 2);
	ck_assert(memcmp(some_rse + 2, rse + 2, 2 * sizeof(double)) == 0);
	ck_assert_double_eq(some_rse[0], 0);
	ck_assert(isnan(some_rse[1]));
	ck_assert_double_eq(some_rse[4], 0.001);
	double one_rse[] = { 0.001, 0.001 };
	moderate_apply_cols(one_rse, med + 2, scale, (const int[]){ 1 }, 1);
	ck_assert_double_eq(one_rse[0], 0.001);
	ck_assert_double_eq(one_rse[1], rse[2]);
	/* 128 CPU rows: 16 of them, in order, from the first eighth to the
	 * last. */
	ck_assert_int_eq(moderate_nprobes(128), 16);
	ck_assert_int_eq(moderate_nprobes(5), 5);
	ck_assert_int_eq(moderate_probe(5, 4), 4);
	for (int k = 1; k < 16; k++)
		ck_assert_int_eq(moderate_probe(128, k) - moderate_probe(128, k - 1), 8);
	ck_assert_int_lt(moderate_probe(128, 0), 8);
	ck_assert_int_ge(moderate_probe(128, 15), 120);
	ck_assert_double_eq_tol(moderate_scale(3), 1.2 * 2.776 / 4.303, 1e-9);
	ck_assert_double_eq(moderate_scale(10), 0.86);
	ck_assert_double_eq(moderate_scale(0), 0.86);
	/* An aggregate's floor from the rows it holds: their errors taken as
	 * independent, scaled from the probes to all of its rows, a fifth of
	 * that for a sum and a tenth for a metric; unknown rows left out,
	 * and none from fewer than three rows or from exact ones alone. */
	const double v[] = { 100, 300, 0, 50 }, e[] = { 0.1, 0.02, 0.5, NAN };
	double ind = sqrt(10.0 * 10.0 + 6.0 * 6.0) / 400;
	ck_assert_double_eq_tol(moderate_below(v, e, 4, 3, true), 0.2 * ind, 1e-12);
	ck_assert_double_eq_tol(moderate_below(v, e, 4, 3, false), 0.1 * ind, 1e-12);
	ck_assert_double_eq_tol(moderate_below(v, e, 4, 12, true), 0.2 * ind / 2, 1e-12);
	ck_assert(isnan(moderate_below(v, e, 2, 2, true)));
	const double ex[] = { 0, 0, 0 };
	ck_assert(isnan(moderate_below(v, ex, 3, 3, true)));
}
END_TEST

/* Runs rr[0..n-1]: more than min_plain plain figures, none more than
 * 25 % off. */
static void no_far_plain(const struct run_spec *rr, size_t n, long min_plain)
{
	run_all(rr, n);
	ck_assert_int_gt(tot.plain_checked, min_plain);
	ck_assert_msg(tot.plain_off25 == 0, "%ld plain figures more than 25 %% off (worst %.3g: %s)", tot.plain_off25,
		      tot.plain_worst, tot.plain_worst_what);
}

/* A change of phase near the end of an interval, caught by the last
 * window of one group and missed by the others' windows, whose samples
 * all agree: these runs had 22 plain figures (no '~') 26-60 % off with a
 * stated error of a few per cent, before the other groups' bursts were
 * taken into every set's error (derive.c, burst_floor). None now. */
START_TEST(test_edge_phase)
{
	static const struct run_spec rr[] = {
		{ "intel-core2", { 1, 1, 4, 1 }, "basic", 50, 1, 20, NULL },
		{ "intel-westmere", { 1, 1, 6, 2 }, "basic", 50, 1, 20, NULL },
		{ "amd-fam10h", { 1, 1, 4, 1 }, "basic", 50, 1, 20, NULL },
	};
	/* Enough plain figures to judge (about 2,950 once the basic views'
	 * headline figures are pinned, and so exact). */
	no_far_plain(rr, ARRAY_SIZE(rr), 2500);
}
END_TEST

/* A change of phase early in an interval, before a group's first window
 * there: Zen 5's basic view, seed 1, CPU 27, the interval from 22 s. A
 * branchy phase (120 M mispredicts a second) ended 63 ms into it; the
 * group of the branch events ran from the third slot on, and its five
 * windows agreed on 3.0 M a second: branch_miss_ratio 0.0065 with a
 * stated 3.7 %, where the interval had 0.019. The other groups' mix moved
 * by a quarter, as within a phase; the group's own last window of the
 * interval before had counted the branchy phase (derive_lead.c). These
 * runs had 2 plain figures more than 25 % off (66 % and 25 %); none now. */
START_TEST(test_start_phase)
{
	static const struct run_spec rr[] = {
		{ "amd-zen5", { 1, 2, 8, 2 }, "basic", 50, 4, 25, NULL },
	};
	no_far_plain(rr, ARRAY_SIZE(rr), 5000);
}
END_TEST

/* A change of phase late in an interval, after a group's last window
 * there. Zen 5's fp view, seed 1, CPU 25, interval 14: an FP phase began
 * in the last 26 ms at some 50 times the FP rate; the FP group's windows
 * had ended before it and the other group's events barely moved:
 * flops_per_cycle 0.040 with a stated 0.4 %, where the interval had
 * 0.093. Zen 5's topdown_l2 view on 128 CPUs: a memory phase began in
 * the last 50 ms, after the windows of the group that splits the backend
 * stalls: backend_bound_memory 0.021 with a stated 3.8 %, truth 0.047.
 * Each group's window of the tail round sees the new phase (sampler_read.c,
 * plan_tail; derive_lead.c). These runs had 6 plain figures 31-57 % off;
 * none now. */
START_TEST(test_end_phase)
{
	static const struct run_spec rr[] = {
		{ "amd-zen5", { 1, 2, 8, 2 }, "fp", 50, 1, 20, NULL },
		{ "amd-zen5", { 2, 4, 8, 2 }, "topdown_l2", 25, 1, 15, NULL },
	};
	no_far_plain(rr, ARRAY_SIZE(rr), 20000);
}
END_TEST

/* The Zen 5 and Zen 4 cache views, judged for two faults of their window
 * sets.
 *
 * A window set whose events are shown but that holds no event another
 * set gives, and no metric of its own, was not measured row by row: its
 * events kept the errors of their own windows, with neither doubt nor
 * burst floor. In these runs Zen 5's and Zen 4's L2 miss and L2 prefetch
 * events of the cache view (coverage 1/2) were then 54-64 % low with
 * stated errors of 4.7-4.9 %, plain: 9 figures.
 *
 * A window set with no event counted throughout the interval (the Zen 4
 * and Zen 5 cache views pin nothing, and no event is in all of their
 * groups) has nothing that vouches for its windows, and only the burst
 * floor widens its errors; its floor now counts moves of the other
 * groups' mix from 0.25 of the mean on, not 0.5, at 3 bursts, not 2
 * (derive_window.h, GSUM_BURST_MIN_UNVOUCHED; derive.c,
 * BURST_FLOOR_K_UNVOUCHED). In these runs 14 plain figures were more
 * than 25 % off (Zen 5 `l2_miss_rate` 58 % off with a stated 2.5 %,
 * `op_cache_fetch_miss_ratio` 59 % with 1.9 %, `l1d_miss_rate` 43 % with
 * 1.3 %, `ic_fetch_miss_ratio` 28 % with 1.3 %, ...), and 49 missed by
 * more than 5 stated errors; 7 and 13 then (docs/uncertainty.md, "The
 * tail"). The 7 were Zen 5's and Zen 4's l1i_mpki and ic_fetch_miss_ratio
 * after a phase that ended before their group's first window: none and 6
 * since a group's last window of the interval before is held against its
 * windows (derive_lead.c); none and 8 with the tail round, whose windows
 * move every other window of the interval (sampler_read.c), 9 with the
 * edge windows' degrees of freedom (derive.c, witness_scale), and none
 * with each group's errors from its successive windows (unc_chain_se).
 * Both judgements come from the same two runs. */
START_TEST(test_cache_view_sets)
{
	static const struct run_spec rr[] = {
		{ "amd-zen5", { 1, 2, 8, 2 }, "cache", 50, 3, 25, NULL },
		{ "amd-zen4", { 1, 2, 8, 2 }, "cache", 50, 1, 20, NULL },
	};
	run_all(rr, ARRAY_SIZE(rr));
	ck_assert_int_gt(tot.plain_checked, 10000);
	ck_assert_msg(tot.plain_off25_ev == 0, "%ld plain event figures more than 25 %% off", tot.plain_off25_ev);
	ck_assert_msg(tot.plain_off25 == 0 && tot.wild_plain == 0,
		      "%ld plain figures more than 25 %% off (worst %.3g: %s), %ld more than 5 stated errors", tot.plain_off25,
		      tot.plain_worst, tot.plain_worst_what, tot.wild_plain);
}
END_TEST


/* The kernel's multiplexing (--rotate kernel) counts each group in
 * slices of a tick spread through the whole interval, where pmctop's
 * rotation gives it a few windows of 50 ms. On the runs where those
 * windows leave the most far misses (Zen 5's cache and fp views, the
 * generic model's all view, Sapphire Rapids without PERF_METRICS), with
 * the rates moving within segments too (fine=0.5), both are run: with the
 * kernel's slices no plain figure is more than 25 % off, at most a fifth
 * as many as with 50 ms windows are more than 10 % off (7 against 198
 * when written, 140 with the tail round, 41 with the errors of
 * successive windows) and no more are beyond 5 stated errors (3 against
 * 24 when written; the tail round took the windows' to 5, successive
 * windows to 4). Its stated
 * errors are wider than its misses (docs/uncertainty.md, "Other sampling
 * schemes, measured"), which this test does not judge. */
START_TEST(test_kernel_slices)
{
	static const struct run_spec kern[] = {
		{ "amd-zen5", { 1, 2, 8, 2 }, "cache", SAMPLER_ROTATE_KERNEL, 2, 20, "fine=0.5" },
		{ "amd-zen5", { 1, 2, 8, 2 }, "fp", SAMPLER_ROTATE_KERNEL, 1, 20, "fine=0.5" },
		{ "generic", { 1, 1, 4, 1 }, "all", SAMPLER_ROTATE_KERNEL, 1, 20, "fine=0.5" },
		{ "intel-spr", { 1, 1, 8, 2 }, "all", SAMPLER_ROTATE_KERNEL, 1, 15, "features=0,fine=0.5" },
	};
	struct run_spec own[ARRAY_SIZE(kern)];
	memcpy(own, kern, sizeof(own));
	for (size_t i = 0; i < ARRAY_SIZE(own); i++)
		own[i].rotate_ms = 50;
	run_all(own, ARRAY_SIZE(own));
	struct tally windows = tot;
	run_all(kern, ARRAY_SIZE(kern));
	printf("kernel slices: %ld plain, %ld > 10 %% off, %ld > 25 %%, %ld beyond 5 errors (worst %.3g: %s); "
	       "50 ms windows: %ld plain, %ld > 10 %%, %ld > 25 %%, %ld beyond 5\n", tot.plain_checked, tot.plain_off10,
	       tot.plain_off25, tot.wild_plain, tot.plain_worst, tot.plain_worst_what, windows.plain_checked,
	       windows.plain_off10, windows.plain_off25, windows.wild_plain);
	ck_assert_int_gt(tot.plain_checked, 10000);
	ck_assert_msg(tot.plain_off25 == 0, "%ld plain figures more than 25 %% off (worst %.3g: %s)", tot.plain_off25,
		      tot.plain_worst, tot.plain_worst_what);
	ck_assert_msg(5 * tot.plain_off10 <= windows.plain_off10 && tot.wild_plain <= windows.wild_plain,
		      "kernel slices: %ld more than 10 %% off, %ld beyond 5 errors; 50 ms windows: %ld, %ld",
		      tot.plain_off10, tot.wild_plain, windows.plain_off10, windows.wild_plain);
}
END_TEST

/* The topdown trees replace a part's error with one worked out from its
 * share of the family and its parent's, and took off the burst floor that
 * its window set had taken (derive.c, floors_after_trees): in these runs
 * Zen 5's `bad_speculation_mispredicts` (floor 7.2 %, 6.2 % after the
 * tree) and Sapphire Rapids' `retiring_fastpath` of the runs without
 * PERF_METRICS were then plain and 26-27 % off, 9 plain figures more than
 * 25 % off in all; 7 now, all of them figures whose windows and floors
 * say nothing of the change (docs/uncertainty.md, "The tail"). */
START_TEST(test_tree_floors)
{
	static const struct run_spec rr[] = {
		{ "amd-zen5", { 2, 4, 8, 2 }, "topdown_l2", 25, 1, 15, NULL },
		{ "intel-spr", { 1, 1, 8, 2 }, "all", 50, 2, 15, "features=0" },
	};
	run_all(rr, ARRAY_SIZE(rr));
	ck_assert_int_gt(tot.plain_checked, 10000);
	ck_assert_msg(tot.plain_off25 <= 7, "%ld plain figures more than 25 %% off (worst %.3g: %s)", tot.plain_off25,
		      tot.plain_worst, tot.plain_worst_what);
}
END_TEST

START_TEST(test_verdict)
{
	verdict(runs, ARRAY_SIZE(runs), true);
}
END_TEST

/* Skipped (said, and passing) without Linux perf's files; CI gives them
 * through tests/e2e_truth_imported.sh, which fails if this case did not
 * judge anything. */
START_TEST(test_imported_verdict)
{
	const char *arch = getenv("PMCTOP_PERF_ARCH");
	if (!arch || !*arch) {
		printf("imported models: no PMCTOP_PERF_ARCH, not judged\n");
		return;
	}
	verdict(imported_runs, ARRAY_SIZE(imported_runs), false);
	printf("imported models: judged\n");
}
END_TEST

/* A slow build (ThreadSanitizer) once made the sampler rotate half as often
 * from the second interval on, and interval 13 of this run then had two
 * windows of CPU 3 that counted the same whole number of
 * offcore_requests.l3_miss_demand_data_rd: no spread, so an "exact" figure
 * (rse 0) 6 % off, from 1/6 of the interval. The simulated kernel's cost
 * per call (call_us) now decides the back-off, so the same schedule comes
 * on any build: 21 us a call puts this run over the budget at 50 ms and
 * under it at 100 ms, as that build was. Exact must mean counted the whole
 * interval, and the run must be the same every time. */
START_TEST(test_slow_build)
{
	static const struct run_spec slow = { "intel-spr", { 1, 1, 8, 2 }, "all", 50, 1, 15, "features=0,call_us=21" };
	long claims[2];
	for (int k = 0; k < 2; k++) {
		memset(&tot, 0, sizeof(tot));
		struct harness h;
		harness_open(&h, slow.model, slow.shape, slow.what, slow.rotate_ms, 1, slow.extra, NULL);
		for (int n = 0; n < slow.intervals; n++) {
			char *cause = NULL;
			struct snapshot *snap = sampler_step(h.s, &cause);
			ck_assert_msg(snap != NULL, "step: %s", cause ? cause : "?");
			/* The rotation that build had: 50 ms, then 100 from then on. */
			ck_assert_msg(snap->rotate_ms == (n == 0 ? 50 : 100), "interval %d: rotate %g ms", n,
				      snap->rotate_ms);
			check_interval(&h, snap, false);
			snapshot_free(snap);
		}
		harness_close(&h);
		claims[k] = tot.exact_checked;
		ck_assert_int_gt(tot.exact_checked, 1000);
		ck_assert_int_eq(tot.exact_bad, 0);
		ck_assert_int_eq(tot.exact_partial, 0);
	}
	ck_assert_int_eq(claims[0], claims[1]);
}
END_TEST

/* The physical judge must catch what the formula-on-true-counts judge
 * cannot: a copy of the definitions with one mistake each, made the way
 * such mistakes were made. Zen 4's bus utilisation without the halving of
 * data slot clocks (both DDR5 subchannels are counted) read twice the real
 * value; an "all" event whose unit mask leaves out one case (DRAM fills on
 * the near node) counts too few L1D fills, by their share. Each must show
 * as formulas that do not give the quantity they estimate. */
static long formula_misses_on(const char *file, const char *from, const char *to, const struct run_spec *rs)
{
	char dir[] = "/tmp/check_truth.XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char *cmd = xasprintf("cp -r '%s/events' '%s/' && sed -i 's|%s|%s|' '%s/events/%s'", TOP_SRCDIR, dir, from, to,
			      dir, file);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	char *copy = xasprintf("%s/events", dir);
	events_dir = copy;
	memset(&tot, 0, sizeof(tot));
	free(pm);
	pm = NULL;
	npm = 0;
	run(rs);
	events_dir = TOP_SRCDIR "/events";
	cmd = xasprintf("rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	free(copy);
	return tot.formula_bad + tot.bias_formula_bad;
}

static long formula_misses_with(const char *file, const char *from, const char *to)
{
	static const struct run_spec zen4_all = { "amd-zen4", { 1, 2, 2, 2 }, "all", 50, 1, 3, NULL };
	return formula_misses_on(file, from, to, &zen4_all);
}

/* One mistake for each metric judged against a quantity the simulator
 * models for it alone (IC fetches, FP uops by width, retired load misses,
 * memory's stalled slots, the L3 latency in clocks): each metric named in
 * fails must then miss its quantity, within the tolerance of biased[]
 * where it has one. The mistakes are of the kinds made in such formulas:
 * a wrong denominator, a case left out of a sum or of a unit mask, the
 * share of the backend taken for a share of all slots, nanoseconds taken
 * for clocks, a missing scale factor. */
static const struct mutation {
	const char *file, *from, *to;
	struct run_spec run;
	const char *fails[3];
} mutations[] = {
	{ "amd/zen5/metrics.def", "ex_no_retire.load_not_complete / ex_no_retire.not_complete",
	  "ex_no_retire.load_not_complete / ex_no_retire.all",
	  { "amd-zen5", { 1, 2, 4, 2 }, "topdown_l2", 50, 1, 4, NULL }, { "backend_bound_memory", "backend_bound_cpu" } },
	{ "amd/zen4/metrics.def", "formula  backend_bound \\* (", "formula  (",
	  { "amd-zen4", { 1, 2, 4, 2 }, "topdown_l2", 50, 1, 4, NULL }, { "backend_bound_memory", "backend_bound_cpu" } },
	{ "amd/zen5/metrics.def", "instruction_cache_miss / ic_tag_hit_miss.all_instruction_cache_accesses",
	  "instruction_cache_miss / ic_tag_hit_miss.instruction_cache_hit",
	  { "amd-zen5", { 1, 2, 4, 2 }, "cache", 50, 1, 4, NULL }, { "ic_fetch_miss_ratio" } },
	{ "amd/zen4/metrics.def", "instruction_cache_miss / ic_tag_hit_miss.all_instruction_cache_accesses",
	  "instruction_cache_miss / ic_tag_hit_miss.instruction_cache_hit",
	  { "amd-zen4", { 1, 2, 4, 2 }, "cache", 50, 1, 4, NULL }, { "ic_fetch_miss_ratio" } },
	{ "amd/zen3/metrics.def", "instruction_cache_miss / ic_tag_hit_miss.all_instruction_cache_accesses",
	  "instruction_cache_miss / ic_tag_hit_miss.instruction_cache_hit",
	  { "amd-zen3", { 1, 2, 4, 2 }, "cache", 50, 1, 4, NULL }, { "ic_fetch_miss_ratio" } },
	{ "amd/zen4/metrics.def", " + fp_ops_retired_by_width.pack_512_uops_retired)", ")",
	  { "amd-zen4", { 1, 2, 4, 2 }, "fp", 50, 1, 4, NULL }, { "fp_packed_ratio" } },
	{ "amd/zen5/metrics.def", "packed_single_flops + fp_ret_sse_avx_ops.packed_double_flops", "packed_single_flops",
	  { "amd-zen5", { 1, 2, 4, 2 }, "fp", 50, 1, 4, "nmi=0" }, { "fp_packed_ratio" } },
	/* Zen 3's all-FLOPs event with a unit mask that leaves out MAC FLOPs. */
	{ "amd/zen3/core.def", "raw   0x430F03", "raw   0x430703",
	  { "amd-zen3", { 1, 2, 4, 2 }, "fp", 50, 1, 4, NULL }, { "flops_per_s" } },
	{ "intel/spr/metrics.def", "mem_load_retired.l1_miss \\* 1000", "l1d.replacement * 1000",
	  { "intel-spr", { 1, 1, 4, 2 }, "cache", 50, 1, 4, NULL }, { "l1d_mpki" } },
	{ "intel/spr/metrics.def", "mem_load_retired.l2_miss \\* 1000", "l2_rqsts.all_demand_miss * 1000",
	  { "intel-spr", { 1, 1, 4, 2 }, "cache", 50, 1, 4, NULL }, { "l2_mpki" } },
	{ "intel/spr/metrics.def", "mem_load_retired.l1_miss / mem_inst_retired.all_loads",
	  "mem_load_retired.l1_miss / mem_inst_retired.any",
	  { "intel-spr", { 1, 1, 4, 2 }, "cache", 50, 1, 4, NULL }, { "l1d_miss_rate" } },
	/* Zen 4 and 5: the L3's nanoseconds taken for clocks (AMD's erratum 4). */
	{ "amd/zen5/metrics.def", "formula  l3_miss_latency_ns \\* ghz",
	  "formula  l3_xi_sampled_latency.all * 10 / l3_xi_sampled_latency_requests.all",
	  { "amd-zen5", { 1, 2, 4, 2 }, "memory", 50, 1, 4, NULL }, { "l3_miss_latency_cycles" } },
	{ "amd/zen4/metrics.def", "formula  l3_miss_latency_ns \\* ghz",
	  "formula  l3_xi_sampled_latency.all * 10 / l3_xi_sampled_latency_requests.all",
	  { "amd-zen4", { 1, 2, 4, 2 }, "memory", 50, 1, 4, NULL }, { "l3_miss_latency_cycles" } },
	/* Zen 3 counts a sixteenth of the latency (L3PMCx90). */
	{ "amd/zen3/metrics.def", "xi_sys_fill_latency \\* 16", "xi_sys_fill_latency",
	  { "amd-zen3", { 1, 2, 4, 2 }, "memory", 50, 1, 4, NULL }, { "l3_miss_latency_cycles", "l3_miss_latency_ns" } },
	/* Zen 5's SSE/AVX faults with a unit mask that leaves out YMM spills. */
	{ "amd/zen5/core.def", "raw   0x430E0E", "raw   0x43060E",
	  { "amd-zen5", { 1, 2, 4, 2 }, "stalls", 50, 1, 4, NULL }, { "mixed_sse_avx_stalls" } },
	{ "intel/spr/metrics.def", "/ offcore_requests.l3_miss_demand_data_rd", "/ longest_lat_cache.miss",
	  { "intel-spr", { 1, 2, 4, 2 }, "memory", 50, 1, 4, NULL }, { "l3_miss_latency_cycles", "l3_miss_latency_ns" } },
	/* Core 2's front-side bus: memory traffic from the burst reads alone
	 * (the write-backs left out), and transactions and bus utilisation
	 * from the burst ones alone (the partial ones left out). */
	{ "intel/core2/metrics.def", "64 \\* bus_trans_burst.self", "64 * bus_trans_brd.self",
	  { "intel-core2", { 1, 1, 2, 1 }, "memory", 50, 1, 4, NULL }, { "mem_bw" } },
	{ "intel/core2/metrics.def", "formula  bus_trans_any.self", "formula  bus_trans_burst.self",
	  { "intel-core2", { 1, 1, 2, 1 }, "memory", 50, 1, 4, NULL }, { "bus_trans_per_s" } },
	{ "intel/core2/metrics.def", "2 \\* bus_trans_any.self", "2 * bus_trans_burst.self",
	  { "intel-core2", { 1, 1, 2, 1 }, "memory", 50, 1, 4, NULL }, { "bus_util" } },
	/* Core 2's FP instructions without the x87 ones. */
	{ "intel/core2/metrics.def", "(x87_ops_retired.any + ", "(",
	  { "intel-core2", { 1, 1, 2, 1 }, "all", 50, 1, 4, NULL }, { "fp_per_kinst" } },
	/* Unit masks narrower than their names: Zen 5's L2 prefetches by the
	 * L2's own prefetchers alone (Table 1's 0x1F, erratum 14) and its L1D
	 * fills without extension memory (Table 1's 0x5F, erratum 7); Zen 3's
	 * ITLB walks without coalesced pages (perf's amdzen3 0x07); Sapphire
	 * Rapids' FLOPs without AVX-512 FP16 (event 0xCF). */
	{ "amd/zen5/metrics.def", "l2_pf_hit_l2.l1_dc_l2_hwpf", "l2_pf_hit_l2.l2_hwpf",
	  { "amd-zen5", { 1, 2, 4, 2 }, "all", 50, 1, 4, NULL }, { "l2_access_all", "l2_hit_all", "l2_hit_from_l2_hwpf" } },
	{ "amd/zen5/metrics.def", "formula  ls_any_fills_from_sys.all$", "formula  ls_any_fills_from_sys.all_no_alternate",
	  { "amd-zen5", { 1, 2, 4, 2 }, "all", 50, 1, 4, NULL }, { "l1d_fills_all" } },
	{ "amd/zen3/core.def", "raw   0x430F85", "raw   0x430785",
	  { "amd-zen3", { 1, 2, 4, 2 }, "all", 50, 1, 4, NULL }, { "itlb_miss_l1", "itlb_miss_l2" } },
	{ "intel/spr/metrics.def", " + 32 \\* fp_arith_inst_retired2.512b_packed_half", "",
	  { "intel-spr", { 1, 1, 4, 2 }, "fp", 50, 1, 4, NULL }, { "flops_per_s", "flops_per_cycle", "fp_packed_ratio" } },
	/* Westmere: one cause of RAT stalls taken for all, one direction of
	 * FP<>MMX transitions for both, and mispredicts for BAC resteers. */
	{ "intel/westmere/metrics.def", "rat_stalls.any /", "rat_stalls.registers /",
	  { "intel-westmere", { 1, 1, 2, 2 }, "all", 50, 1, 4, NULL }, { "rat_stall_ratio" } },
	{ "intel/westmere/metrics.def", "fp_mmx_trans.any", "fp_mmx_trans.to_mmx",
	  { "intel-westmere", { 1, 1, 2, 2 }, "all", 50, 1, 4, NULL }, { "fp_mmx_trans_pki" } },
	{ "intel/westmere/metrics.def", "1000 \\* baclear.clear", "1000 * br_misp_retired.all_branches",
	  { "intel-westmere", { 1, 1, 2, 2 }, "all", 50, 1, 4, NULL }, { "baclears_pki" } },
};

START_TEST(test_physical_judge)
{
	/* The shipped definitions give none. */
	ck_assert_int_eq(formula_misses_with("amd/zen4/metrics.def", "nothing", "nothing"), 0);
	ck_assert_int_gt(tot.formula_checked, 100);
	ck_assert_int_gt(formula_misses_with("amd/zen4/metrics.def", "umc_data_slot_clks.all / 2 / umc_mem_clk",
					     "umc_data_slot_clks.all / umc_mem_clk"), 0);
	ck_assert_int_gt(formula_misses_with("amd/zen4/core.def", "raw   0x43DF44", "raw   0x43D744"), 0);
	for (size_t i = 0; i < ARRAY_SIZE(mutations); i++) {
		const struct mutation *mu = &mutations[i];
		/* Unchanged, the run judges each metric and finds nothing;
		 * changed, each metric misses. */
		for (int broken = 0; broken < 2; broken++) {
			long bad = formula_misses_on(mu->file, broken ? mu->from : "nothing", broken ? mu->to : "nothing",
						     &mu->run);
			if (!broken)
				ck_assert_msg(bad == 0, "%s as shipped: %ld misses", mu->file, bad);
			for (int k = 0; k < 3 && mu->fails[k]; k++) {
				const struct per_metric *p = pm_find(mu->run.model, mu->fails[k]);
				if (broken)
					ck_assert_msg(p->formula_bad > 0, "%s: '%s' -> '%s': %s still gives its quantity",
						      mu->file, mu->from, mu->to, mu->fails[k]);
				else
					ck_assert_msg(p->formula_checked > 0, "%s: %s not judged in %s",
						      mu->file, mu->fails[k], mu->run.what);
			}
		}
	}
}
END_TEST

/* The older models' metrics, the software and energy ones, and the FP
 * dispatch faults and write-combining closes of Zen 3-5 are ratios of
 * quantities the simulator counts one to one, so any change to their
 * formulas must show: each of them, scaled by 1.01 on a copy of the
 * definitions, must miss its quantity, where the run as shipped judges
 * it and finds nothing (test_physical_judge's first check). */
START_TEST(test_every_truth_judged)
{
	static const struct {
		struct run_spec run;
		const char *only;     /* the metric to break; NULL: each with a truth */
	} specs[] = {
		{ { "intel-core2", { 1, 1, 2, 1 }, "all", 50, 1, 3, NULL }, NULL },
		{ { "intel-westmere", { 1, 1, 2, 2 }, "all", 50, 1, 3, NULL }, NULL },
		{ { "amd-fam10h", { 1, 1, 2, 1 }, "all", 50, 1, 3, NULL }, NULL },
		{ { "intel-arch", { 1, 1, 2, 2 }, "all", 50, 1, 3, NULL }, NULL },
		{ { "generic", { 1, 1, 2, 1 }, "all", 50, 1, 3, NULL }, NULL },
		{ { "amd-zen3", { 1, 2, 2, 2 }, "stalls", 50, 1, 4, NULL }, "mixed_sse_avx_stalls" },
		{ { "amd-zen4", { 1, 2, 2, 2 }, "stalls", 50, 1, 4, NULL }, "mixed_sse_avx_stalls" },
		{ { "amd-zen5", { 1, 2, 2, 2 }, "stalls", 50, 1, 4, NULL }, "mixed_sse_avx_stalls" },
		{ { "amd-zen5", { 1, 2, 2, 2 }, "l1", 50, 1, 4, NULL }, "wcb_lines_per_close" },
		{ { "amd-zen3", { 1, 2, 2, 2 }, "power", 50, 1, 4, NULL }, "insn_per_joule" },
		{ { "amd-zen4", { 1, 2, 2, 2 }, "power", 50, 1, 4, NULL }, "insn_per_joule" },
		{ { "amd-zen5", { 1, 2, 2, 2 }, "power", 50, 1, 4, NULL }, "insn_per_joule" },
		{ { "intel-spr", { 1, 1, 2, 2 }, "power", 50, 1, 4, NULL }, "insn_per_joule" },
	};
	const char *top = TOP_SRCDIR "/events/";
	int mutated = 0;
	for (size_t i = 0; i < ARRAY_SIZE(specs); i++) {
		char *cause = NULL;
		struct model *m = model_load_by_name(events_dir, specs[i].run.model, &cause);
		ck_assert_msg(m != NULL, "%s: %s", specs[i].run.model, cause ? cause : "?");
		for (int j = 0; j < m->nmetrics; j++) {
			const struct metric_def *md = &m->metrics[j];
			if (!md->truth || (specs[i].only && strcmp(specs[i].only, md->name)))
				continue;
			ck_assert_msg(!strncmp(md->file, top, strlen(top)), "%s", md->file);
			/* The formula line of the metric that starts at md->line. */
			char *from = xasprintf("%d,/^    formula/ s", md->line);
			char *cmd = xasprintf("^\\(    formula *\\)\\(.*\\)$");
			memset(&tot, 0, sizeof(tot));
			char dir[] = "/tmp/check_truth.XXXXXX";
			ck_assert_ptr_nonnull(mkdtemp(dir));
			char *sh = xasprintf("cp -r '%s/events' '%s/' && sed -i '%s|%s|\\1(\\2) * 1.01|' '%s/events/%s'",
					     TOP_SRCDIR, dir, from, cmd, dir, md->file + strlen(top));
			ck_assert_int_eq(system(sh), 0);
			free(sh);
			free(from);
			free(cmd);
			char *copy = xasprintf("%s/events", dir);
			events_dir = copy;
			free(pm);
			pm = NULL;
			npm = 0;
			run(&specs[i].run);
			events_dir = TOP_SRCDIR "/events";
			sh = xasprintf("rm -rf '%s'", dir);
			ck_assert_int_eq(system(sh), 0);
			free(sh);
			free(copy);
			const struct per_metric *p = pm_find(m->name, md->name);
			ck_assert_msg(p->formula_checked > 0 && p->formula_bad > 0,
				      "%s %s scaled by 1.01: %ld of %ld formula checks miss", m->name, md->name,
				      p->formula_bad, p->formula_checked);
			mutated++;
		}
		model_free(m);
	}
	ck_assert_int_ge(mutated, 80);
}
END_TEST

/* -C 0: the CCX and socket rows show what the unfiltered run shows, or
 * nothing; never a figure made of one CPU's counts under the CCX's name. */
/* Intel PERF_METRICS: with the kernel feature, every group that reads a
 * topdown event is led by slots and the topdown events cost no counter;
 * without it, the same metrics are planned on the general-counter
 * fallbacks, a notice says so, and the simulated kernel refuses what the
 * real one refuses. */
START_TEST(test_perf_metrics_groups)
{
	static const int shape[4] = { 1, 1, 2, 2 };
	for (int have = 1; have >= 0; have--) {
		struct harness h;
		harness_open(&h, "intel-spr", shape, "topdown_l2", 50, 3, have ? NULL : "features=0", NULL);
		const struct model *m = h.m;
		int slots = model_find_event(m, "topdown.slots");
		ck_assert_int_ge(slots, 0);
		int topdown_groups = 0, fallbacks = 0;
		for (int g = 0; g < h.plan->ngroups; g++) {
			const struct sched_group *sg = &h.plan->groups[g];
			bool td = false;
			for (int i = 0; i < sg->nevents; i++) {
				const struct event_def *as = &m->events[sg->counted[i]];
				td |= (as->flags & EVF_TOPDOWN) != 0;
				ck_assert(have || !(as->flags & (EVF_TOPDOWN | EVF_SLOTS)));
				if (sg->counted[i] != sg->events[i]) {
					ck_assert_int_eq(sg->counted[i], m->events[sg->events[i]].fallback);
					fallbacks++;
				}
			}
			if (td) {
				topdown_groups++;
				ck_assert_int_eq(sg->events[0], slots);
			}
		}
		const char *notice = sampler_notice(h.s);
		if (have) {
			ck_assert_int_eq(topdown_groups, 1);   /* slots + 7 topdown events + 2 general */
			ck_assert_int_eq(h.plan->ngroups, 1);
			ck_assert_int_eq(fallbacks, 0);
			ck_assert(!notice || !strstr(notice, "fallback"));
		} else {
			ck_assert_int_eq(topdown_groups, 0);
			ck_assert_int_ge(fallbacks, 8);
			ck_assert_msg(notice && strstr(notice, "no cpu/events/slots in this kernel"), "notice: %s",
				      notice ? notice : "(none)");
		}
		for (int n = 0; n < 3; n++) {
			char *cause = NULL;
			struct snapshot *snap = sampler_step(h.s, &cause);
			ck_assert_msg(snap != NULL, "step: %s", cause ? cause : "?");
			check_interval(&h, snap, false);
			snapshot_free(snap);
		}
		/* The kernel's rules, on the simulated kernel itself. */
		struct bk_instance *bi = NULL;
		char *why = NULL;
		int core = model_find_pmu(m, "core");
		int ninst = backend_sim.instances(h.bk, core, &bi, &why);
		ck_assert_int_gt(ninst, 0);
		int retiring = model_find_event(m, "perf_metrics.retiring");
		int led[2] = { slots, retiring }, unled[2] = { retiring, slots };
		struct bk_group *g = NULL;
		char *cause = NULL;
		ck_assert_int_eq(backend_sim.open_group(h.bk, &bi[0], unled, 2, &g, &cause), -EINVAL);
		ck_assert_ptr_nonnull(strstr(cause, have ? "needs slots as its group leader" : "has no cpu/events/"));
		free(cause);
		cause = NULL;
		int rc = backend_sim.open_group(h.bk, &bi[0], led, 2, &g, &cause);
		ck_assert_int_eq(rc, have ? 0 : -EINVAL);
		if (rc == 0)
			backend_sim.close(h.bk, g);
		free(cause);
		for (int i = 0; i < ninst; i++)
			free(bi[i].perf_name);
		free(bi);
		free(why);
		harness_close(&h);
	}
}
END_TEST

START_TEST(test_cpu_filter_scope)
{
	static const int shape[4] = { 1, 2, 8, 2 };
	struct harness a, b;
	harness_open(&a, "amd-zen5", shape, "basic", 50, 7, NULL, NULL);
	bool *only0 = xcalloc(64, sizeof(bool));
	only0[0] = true;
	harness_open(&b, "amd-zen5", shape, "basic", 50, 7, NULL, only0);
	int compared = 0, dashed = 0;
	for (int n = 0; n < 5; n++) {
		char *cause = NULL;
		struct snapshot *sa = sampler_step(a.s, &cause);
		struct snapshot *sb = sampler_step(b.s, &cause);
		ck_assert(sa && sb);
		for (int sc = SNAP_CORE; sc <= SNAP_SOCKET; sc++)
			for (int r = 0; r < sb->nrows[sc]; r++) {
				const struct snap_row *rb = &sb->rows[sc][r];
				int ra = row_of(sa, sc, rb->cpu, rb->core, rb->ccx, rb->socket);
				ck_assert_int_ge(ra, 0);
				for (int i = 0; i < a.m->nmetrics; i++) {
					double vb = snap_metric(sb, rb, i), va = snap_metric(sa, &sa->rows[sc][ra], i);
					if (isnan(vb)) {
						dashed += !isnan(va);
						continue;
					}
					compared++;
					ck_assert_msg(fabs(va - vb) <= 1e-9 * fabs(va),
						      "%s scope %d: %g with -C 0, %g without",
						      a.m->metrics[i].name, sc, vb, va);
				}
			}
		snapshot_free(sa);
		snapshot_free(sb);
	}
	ck_assert_int_gt(compared, 0);   /* the L3 figures */
	ck_assert_int_gt(dashed, 0);     /* IPC, GHz, ... of a CCX */
	free(only0);
	harness_close(&a);
	harness_close(&b);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("truth");
	TCase *tc = tcase_create("truth");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_verdict);
	tcase_add_test(tc, test_edge_phase);
	tcase_add_test(tc, test_start_phase);
	tcase_add_test(tc, test_end_phase);
	tcase_add_test(tc, test_cache_view_sets);
	tcase_add_test(tc, test_tree_floors);
	tcase_add_test(tc, test_kernel_slices);
	tcase_add_test(tc, test_moderate_rules);
	tcase_add_test(tc, test_slow_build);
	tcase_add_test(tc, test_physical_judge);
	tcase_add_test(tc, test_every_truth_judged);
	tcase_add_test(tc, test_cpu_filter_scope);
	tcase_add_test(tc, test_perf_metrics_groups);
	/* Its own case, so that tests/e2e_truth_imported.sh runs it alone
	 * (CK_RUN_CASE=imported). */
	TCase *ti = tcase_create("imported");
	tcase_set_timeout(ti, 900);
	tcase_add_test(ti, test_imported_verdict);
	suite_add_tcase(s, ti);
	suite_add_tcase(s, tc);
	return check_run(s);
}
