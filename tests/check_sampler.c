/* check_sampler.c: the sampler end to end on the simulated PMU, with the
 * fixture model tests/fixtures/sampler/sampler-test (2 core counters, so its
 * metrics rotate through 4 core groups; one L3 per CCX; two UMC channels per
 * socket with one counter each) on a 1 socket x 2 CCX x 2 cores x 2 threads
 * machine. Every CPU runs at constant, different rates, so each metric has
 * an analytic value at every scope, computed here from summed rates. */
#include "config.h"
#include <check.h>
#include "check_run.h"
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend.h"
#include "evdef.h"
#include "fixture.h"
#include "sampler.h"
#include "topo.h"
#include "uncertainty.h"
#include "util.h"

#define NCPU 8
#define CHANNELS 2   /* the sim's default memory channels per socket */

static struct model *model;
static struct topo *topo;
static struct sampler *smp;

enum { CYC, INS, BR, BRM, L2A, L2M, L3A, L3M, CAS, WIDE, NEV };
static const char *const ev_names[NEV] = {
	"cycles", "instructions", "branches", "branch_misses", "l2_access", "l2_miss",
	"l3_access", "l3_miss", "umc_cas", "umc_wide",
};
static int ev[NEV];
static double rate[NCPU][NEV];

static int met(const char *name)
{
	int i = model_find_metric(model, name);
	ck_assert_msg(i >= 0, "no metric %s", name);
	return i;
}

/* Rates per second that differ per CPU so that averages of ratios and
 * ratios of sums differ: CPUs 0-3 run hot with a high IPC, their SMT
 * siblings 4-7 barely run. */
static void set_rates(struct backend *b)
{
	for (int c = 0; c < NCPU; c++) {
		double *r = rate[c];
		r[CYC] = c < 4 ? 1e9 * (1.0 + 0.5 * c) : 1e8 * (1.0 + 0.5 * c);
		r[INS] = r[CYC] * (c < 4 ? 3.0 - 0.3 * c : 1.0);
		r[BR] = r[INS] / 5;
		r[BRM] = r[BR] * (0.01 + 0.005 * c);
		r[L2A] = 2e7 * (c + 1);
		r[L2M] = r[L2A] * 0.1 * (1 + c % 3);
		/* Uncore rates apply to the instances read on the CPU. */
		r[L3A] = 5e7 * (1 + c);
		r[L3M] = 1e7 * (1 + c % 2);
		r[CAS] = 1e6 * (1 + c);
		r[WIDE] = 1e5;
		double *all = xmalloc(sizeof(double) * (size_t)model->nevents);
		for (int e = 0; e < model->nevents; e++)
			all[e] = NAN;
		for (int k = 0; k < NEV; k++)
			all[ev[k]] = r[k];
		sim_set_constant_rates(b, c, all);
		free(all);
	}
}

/* The configuration of a sampler of every metric of the test model
 * (all: fx_all_metrics) on ops, the simulated PMU or a wrapper of it,
 * rotating every 10 ms. */
static struct sampler_config test_config(const struct pmu_backend_ops *ops, double interval_s, const int *all)
{
	struct sampler_config cfg = fx_sampler_config(model, topo, "nmi=0", interval_s);
	cfg.ops = ops;
	cfg.rotate_ms = 10;
	cfg.nmetrics = model->nmetrics;
	cfg.metrics = all;
	return cfg;
}

static void setup(void)
{
	model = fx_model("tests/fixtures/sampler/sampler-test");
	for (int k = 0; k < NEV; k++) {
		ev[k] = model_find_event(model, ev_names[k]);
		ck_assert_msg(ev[k] >= 0, "no event %s", ev_names[k]);
	}
	topo = fx_topo("1x2x2x2");
	int *all = fx_all_metrics(model);
	struct sampler_config cfg = test_config(&backend_sim, 1.0, all);
	smp = fx_sampler(&cfg);
	free(all);
	set_rates(sampler_backend(smp));
}

static void teardown(void)
{
	sampler_free(smp);
	topo_free(topo);
	model_free(model);
}

static struct snapshot *step(void)
{
	return fx_step(smp);
}

/* Sums of the rates over a row: thread events over its CPUs, L3 events over
 * the CCX readers (the first CPU of each CCX), UMC over both channels read
 * on the socket's first CPU. */
struct sums { double v[NEV]; };

static void add_cpu(struct sums *s, int c)
{
	for (int k = CYC; k <= L2M; k++)
		s->v[k] += rate[c][k];
}

static void add_ccx(struct sums *s, int reader)
{
	s->v[L3A] += rate[reader][L3A];
	s->v[L3M] += rate[reader][L3M];
}

static void add_socket(struct sums *s, int reader)
{
	s->v[CAS] += CHANNELS * rate[reader][CAS];
}

static void assert_close(double got, double want, const char *what, int line)
{
	ck_assert_msg(isfinite(got) && fabs(got - want) <= 0.01 * fabs(want),
		      "line %d: %s = %g, want %g", line, what, got, want);
}

/* Checks every metric of a row against the formulas written out here. */
static void check_row(const struct snapshot *snap, const struct snap_row *row, const struct sums *sm, int scope,
		      int line)
{
	const double *v = sm->v;
	assert_close(snap_metric(snap, row, met("ipc")), v[INS] / v[CYC], "ipc", line);
	assert_close(snap_metric(snap, row, met("branch_miss_rate")), v[BRM] / v[BR], "branch_miss_rate", line);
	assert_close(snap_metric(snap, row, met("l2_miss_rate")), v[L2M] / v[L2A], "l2_miss_rate", line);
	assert_close(snap_metric(snap, row, met("mpki")), v[BRM] * 1000 / v[INS], "mpki", line);
	assert_close(snap_metric(snap, row, met("ghz")), v[CYC] / 1e9, "ghz", line);
	assert_close(snap_event(snap, row, ev[CYC]), v[CYC], "cycles", line);
	if (scope >= SNAP_CCX) {
		assert_close(snap_metric(snap, row, met("l3_miss_rate")), v[L3M] / v[L3A], "l3_miss_rate", line);
		assert_close(snap_metric(snap, row, met("l3_mpki")), v[L3M] * 1000 / v[INS], "l3_mpki", line);
	} else {
		/* Narrower than the metric's scope: not a number, not 0. */
		ck_assert_msg(isnan(snap_metric(snap, row, met("l3_miss_rate"))), "line %d: l3 at cpu/core", line);
		ck_assert(isnan(snap_event(snap, row, ev[L3A])));
	}
	if (scope >= SNAP_SOCKET)
		assert_close(snap_metric(snap, row, met("mem_bw")), v[CAS] * 64, "mem_bw", line);
	else
		ck_assert(isnan(snap_metric(snap, row, met("mem_bw"))));
	/* Never schedulable: reported, and NaN rather than 0. */
	ck_assert(isnan(snap_metric(snap, row, met("mem_wide"))));
}

static const struct snap_row *find_row(const struct snapshot *s, int scope, int id)
{
	for (int r = 0; r < s->nrows[scope]; r++)
		if (s->rows[scope][r].id == id)
			return &s->rows[scope][r];
	return NULL;
}

/* Checks every row of a snapshot against the analytic values. */
static void check_all_scopes(const struct snapshot *s)
{
	ck_assert(s->simulated);
	ck_assert_int_eq(s->nrows[SNAP_CPU], NCPU);
	ck_assert_int_eq(s->nrows[SNAP_CORE], 4);
	ck_assert_int_eq(s->nrows[SNAP_CCX], 2);
	ck_assert_int_eq(s->nrows[SNAP_SOCKET], 1);
	ck_assert(fabs(s->measured_s - 1.0) < 1e-9);
	for (int c = 0; c < NCPU; c++) {
		struct sums sm = { { 0 } };
		add_cpu(&sm, c);
		const struct snap_row *row = snapshot_cpu(s, c);
		ck_assert_ptr_nonnull(row);
		check_row(s, row, &sm, SNAP_CPU, __LINE__);
	}
	for (int k = 0; k < 4; k++) {
		/* Core k holds CPUs k and k + 4 (Linux numbering on EPYC). */
		struct sums sm = { { 0 } };
		add_cpu(&sm, k);
		add_cpu(&sm, k + 4);
		const struct snap_row *row = find_row(s, SNAP_CORE, k);
		ck_assert_ptr_nonnull(row);
		ck_assert_int_eq(row->ncpus, 2);
		check_row(s, row, &sm, SNAP_CORE, __LINE__);
	}
	for (int x = 0; x < 2; x++) {
		struct sums sm = { { 0 } };
		for (int k = 2 * x; k < 2 * x + 2; k++) {
			add_cpu(&sm, k);
			add_cpu(&sm, k + 4);
		}
		add_ccx(&sm, 2 * x);
		check_row(s, find_row(s, SNAP_CCX, x), &sm, SNAP_CCX, __LINE__);
	}
	struct sums all = { { 0 } };
	for (int c = 0; c < NCPU; c++)
		add_cpu(&all, c);
	add_ccx(&all, 0);
	add_ccx(&all, 2);
	add_socket(&all, 0);
	check_row(s, &s->rows[SNAP_SOCKET][0], &all, SNAP_SOCKET, __LINE__);
	check_row(s, &s->rows[SNAP_SYSTEM][0], &all, SNAP_SYSTEM, __LINE__);
	ck_assert_int_eq(s->rows[SNAP_SYSTEM][0].ncpus, NCPU);
}

START_TEST(test_metrics_all_scopes)
{
	const struct sched_plan *p = sampler_plan(smp);
	int core_pmu = model_find_pmu(model, "core");
	ck_assert_int_eq(sched_groups_for_pmu(p, core_pmu), 4);
	for (int it = 0; it < 3; it++) {
		struct snapshot *s = step();
		check_all_scopes(s);
		snapshot_free(s);
	}
}
END_TEST

/* Core IPC of CPUs 0 and 4: 3.0 and 1.0 per CPU (mean 2.0), but the core
 * retired 3.3e9 instructions in 1.3e9 cycles. */
START_TEST(test_ratio_of_sums)
{
	struct snapshot *s = step();
	const struct snap_row *core0 = find_row(s, SNAP_CORE, 0);
	double ipc = snap_metric(s, core0, met("ipc"));
	double mean = (snap_metric(s, snapshot_cpu(s, 0), met("ipc")) + snap_metric(s, snapshot_cpu(s, 4), met("ipc"))) / 2;
	assert_close(mean, 2.0, "mean of cpu ipc", __LINE__);
	assert_close(ipc, 3.3e9 / 1.3e9, "core ipc", __LINE__);
	ck_assert(fabs(ipc - mean) > 0.5);
	snapshot_free(s);
}
END_TEST

START_TEST(test_coverage_is_schedule_share)
{
	struct snapshot *s = step();
	const struct snap_row *row = snapshot_cpu(s, 3);
	/* Four core groups: an event in one group runs a quarter of the time;
	 * branch_misses and instructions are in two groups each. */
	ck_assert(fabs(snap_event_cov(s, row, ev[CYC]) - 0.25) < 1e-6);
	ck_assert(fabs(snap_event_cov(s, row, ev[BR]) - 0.25) < 1e-6);
	ck_assert(fabs(snap_event_cov(s, row, ev[BRM]) - 0.5) < 1e-6);
	ck_assert(fabs(snap_event_cov(s, row, ev[INS]) - 0.5) < 1e-6);
	ck_assert(fabs(snap_metric_cov(s, row, met("ipc")) - 0.25) < 1e-6);
	/* mpki's two events share one group only: it is computed in that
	 * group's windows, so its coverage is that group's quarter, not the
	 * half that each of its events has on its own. */
	ck_assert(fabs(snap_metric_cov(s, row, met("mpki")) - 0.25) < 1e-6);
	/* The L3 and UMC have a single group: counted all the time. */
	const struct snap_row *x = find_row(s, SNAP_CCX, 1);
	ck_assert(fabs(snap_event_cov(s, x, ev[L3M]) - 1.0) < 1e-6);
	ck_assert(fabs(snap_metric_cov(s, x, met("l3_miss_rate")) - 1.0) < 1e-6);
	ck_assert(fabs(snap_metric_cov(s, x, met("l3_mpki")) - 0.5) < 1e-6);
	ck_assert(fabs(snap_event_cov(s, &s->rows[SNAP_SOCKET][0], ev[CAS]) - 1.0) < 1e-6);
	snapshot_free(s);
}
END_TEST

/* The tail round (sampler_read.c, plan_tail): under pmctop's rotation the
 * interval ends with one short window of every rotating group, a witness
 * after each group's last window. What the record hook sees of it, on
 * the 4 core groups at constant rates (1 s, 10 ms slots: 25 rounds). */
struct tail_seen {
	int calls, groups;
	double trail[16];
};

static void tail_hook(void *arg, const struct derive_input *in, struct snapshot *snap)
{
	(void)snap;
	struct tail_seen *t = arg;
	t->calls++;
	for (int g = 0; g < in->plan->ngroups; g++) {
		const struct derive_group *dg = &in->groups[g];
		const struct derive_pmu *dp = &in->pmus[in->plan->groups[g].pmu];
		if (dg->nb < 2) {
			/* A group that does not rotate has no tail round. */
			ck_assert_ptr_null(dg->tv);
			continue;
		}
		ck_assert_msg(dg->tv && dg->tr, "group %d: no window of the tail round", g);
		if (t->calls == 2 && t->groups < 16)
			t->trail[t->groups++] = dg->trail;
		for (int i = 0; i < dp->ninst; i++) {
			/* An eighth of a 10 ms slot. */
			ck_assert_msg(fabs(dg->tr[i] - 1.25e6) < 1e3, "group %d instance %d: tail window ran %g ns", g, i,
				      dg->tr[i]);
			double br = 0;
			for (int b = 0; b < dg->nb; b++)
				br += dg->br[(size_t)b * (size_t)dp->ninst + (size_t)i];
			/* The interval's counts are its windows' and the tail's. */
			ck_assert(fabs(br + dg->tr[i] - dg->ir[i]) < 1e-6 * dg->ir[i]);
			int cpu = dp->inst[i].cpu;
			for (int j = 0; j < dg->nev; j++) {
				size_t at = (size_t)i * (size_t)dg->nev + (size_t)j;
				double bv = 0;
				for (int b = 0; b < dg->nb; b++)
					bv += dg->bv[(size_t)b * (size_t)dp->ninst * (size_t)dg->nev + at];
				ck_assert(fabs(bv + dg->tv[at] - dg->iv[at]) <= 1e-9 * dg->iv[at] + 1);
				/* The tail counted the CPU's own rate over its time. */
				if (dg->events[j] == ev[CYC])
					ck_assert_msg(fabs(dg->tv[at] - rate[cpu][CYC] * dg->tr[i] * 1e-9) <=
						      1e-3 * dg->tv[at] + 2, "cpu %d: tail cycles %g, expected %g", cpu,
						      dg->tv[at], rate[cpu][CYC] * dg->tr[i] * 1e-9);
			}
		}
	}
}

START_TEST(test_tail_round)
{
	struct tail_seen t = { 0 };
	sampler_record(smp, tail_hook, &t);
	for (int k = 0; k < 3; k++)
		snapshot_free(step());
	ck_assert_int_eq(t.calls, 3);
	ck_assert_int_eq(t.groups, 4);
	/* After its last window: the tail (4 x 1.25 ms) and 0 to 3 of the
	 * other groups' slots, each 9.95 ms of the 995 ms before the tail. */
	bool seen[4] = { false };
	for (int g = 0; g < 4; g++) {
		double k = (t.trail[g] - 0.005) / 0.00995;
		int q = (int)lround(k);
		ck_assert_msg(q >= 0 && q < 4 && fabs(k - q) < 1e-6, "trail %g", t.trail[g]);
		ck_assert(!seen[q]);
		seen[q] = true;
	}
	/* Every group still runs a quarter of the interval. */
	struct snapshot *s = step();
	ck_assert(fabs(snap_event_cov(s, snapshot_cpu(s, 3), ev[CYC]) - 0.25) < 1e-6);
	snapshot_free(s);
}
END_TEST

/* Exact (rse 0) says the figure was counted the whole interval. At these
 * constant rates every window of a rotated group counts the same number,
 * so its samples show no spread at all: that bounds nothing about the
 * three quarters not seen, so the uncertainty is unknown, not 0. What ran
 * all the time (the L3 and UMC groups) is exact. */
START_TEST(test_exact_only_when_counted_throughout)
{
	snapshot_free(step());
	struct snapshot *s = step();
	int checked = 0;
	for (int sc = 0; sc < SNAP_NSCOPES; sc++)
		for (int r = 0; r < s->nrows[sc]; r++) {
			const struct snap_row *row = &s->rows[sc][r];
			for (int e = 0; e < model->nevents; e++) {
				if (isnan(snap_event(s, row, e)))
					continue;
				checked++;
				if (snap_event_cov(s, row, e) >= UNC_FULLY_COVERED)
					ck_assert_msg(snap_event_rse(s, row, e) == 0, "%s scope %d row %d: rse %g",
						      model->events[e].name, sc, r, snap_event_rse(s, row, e));
				else
					ck_assert_msg(snap_event_rse(s, row, e) != 0, "%s scope %d row %d: coverage %g, rse 0",
						      model->events[e].name, sc, r, snap_event_cov(s, row, e));
			}
			for (int i = 0; i < model->nmetrics; i++)
				if (!isnan(snap_metric(s, row, i)) && snap_metric_rse(s, row, i) == 0)
					ck_assert_msg(snap_metric_cov(s, row, i) >= UNC_FULLY_COVERED,
						      "%s scope %d row %d: coverage %g, rse 0", model->metrics[i].name,
						      sc, r, snap_metric_cov(s, row, i));
		}
	ck_assert_int_gt(checked, 50);
	ck_assert(snap_event_cov(s, snapshot_cpu(s, 3), ev[CYC]) < 0.5);
	snapshot_free(s);
}
END_TEST

START_TEST(test_unschedulable_reported)
{
	const struct sched_plan *p = sampler_plan(smp);
	ck_assert_int_eq(p->nunschedulable, 1);
	ck_assert_int_eq(p->unschedulable[0], ev[WIDE]);
	const char *n = sampler_notice(smp);
	ck_assert_ptr_nonnull(n);
	ck_assert_ptr_nonnull(strstr(n, "umc_wide"));
	struct snapshot *s = step();
	ck_assert(!s->metric_planned[met("mem_wide")]);
	ck_assert(s->metric_planned[met("mem_bw")]);
	ck_assert(!s->event_planned[ev[WIDE]]);
	ck_assert(isnan(snap_metric(s, &s->rows[SNAP_SYSTEM][0], met("mem_wide"))));
	ck_assert(isnan(snap_event(s, &s->rows[SNAP_SYSTEM][0], ev[WIDE])));
	ck_assert_ptr_nonnull(s->notice);
	snapshot_free(s);
}
END_TEST

START_TEST(test_cpu_offline)
{
	snapshot_free(step());
	struct sim_fault f = { .cpu = 5, .err = -ENODEV, .after_reads = 0 };
	sim_inject_fault(sampler_backend(smp), &f);
	struct snapshot *s = step();
	ck_assert_int_eq(s->noffline, 1);
	ck_assert_int_eq(s->offline[0], 5);
	ck_assert_int_eq(s->nrows[SNAP_CPU], NCPU - 1);
	ck_assert_ptr_null(snapshot_cpu(s, 5));
	/* Core 1 now has only CPU 1; everything else is as before. */
	struct sums sm = { { 0 } };
	add_cpu(&sm, 1);
	const struct snap_row *core1 = find_row(s, SNAP_CORE, 1);
	ck_assert_ptr_nonnull(core1);
	ck_assert_int_eq(core1->ncpus, 1);
	check_row(s, core1, &sm, SNAP_CORE, __LINE__);
	struct sums s6 = { { 0 } };
	add_cpu(&s6, 6);
	check_row(s, snapshot_cpu(s, 6), &s6, SNAP_CPU, __LINE__);
	snapshot_free(s);
	/* Still away: still listed, so that no CPU is ever missing from both
	 * the rows and the offline list. */
	s = step();
	ck_assert_int_eq(s->noffline, 1);
	ck_assert_int_eq(s->offline[0], 5);
	ck_assert_int_eq(s->nreturning, 0);
	ck_assert_int_eq(s->nrows[SNAP_CPU], NCPU - 1);
	ck_assert_int_eq(s->rows[SNAP_SYSTEM][0].ncpus, NCPU - 1);
	snapshot_free(s);
}
END_TEST

/* CPU 2 reads CCX 1's L3: when it goes away the L3 moves to CPU 3. */
START_TEST(test_uncore_reader_offline)
{
	snapshot_free(step());
	struct sim_fault f = { .cpu = 2, .err = -ENODEV, .after_reads = 0 };
	sim_inject_fault(sampler_backend(smp), &f);
	snapshot_free(step());
	struct snapshot *s = step();
	ck_assert_ptr_null(snapshot_cpu(s, 2));
	const struct snap_row *x = find_row(s, SNAP_CCX, 1);
	ck_assert_ptr_nonnull(x);
	assert_close(snap_event(s, x, ev[L3A]), rate[3][L3A], "l3_access read on cpu 3", __LINE__);
	snapshot_free(s);
}
END_TEST

START_TEST(test_replan)
{
	snapshot_free(step());
	int only[] = { met("ipc") };
	int extra[] = { ev[L2M] };
	sampler_request(smp, 1, only, 1, extra);
	struct snapshot *s = step();
	const struct sched_plan *p = sampler_plan(smp);
	int core_pmu = model_find_pmu(model, "core");
	ck_assert_int_eq(sched_groups_for_pmu(p, core_pmu), 2);
	ck_assert_int_eq(p->nmetrics, 1);
	ck_assert(s->metric_planned[met("ipc")]);
	ck_assert(!s->metric_planned[met("mpki")]);
	ck_assert(isnan(snap_metric(s, snapshot_cpu(s, 0), met("mpki"))));
	const struct snap_row *row = snapshot_cpu(s, 1);
	assert_close(snap_metric(s, row, met("ipc")), rate[1][INS] / rate[1][CYC], "ipc", __LINE__);
	assert_close(snap_event(s, row, ev[L2M]), rate[1][L2M], "l2_miss", __LINE__);
	ck_assert(fabs(snap_event_cov(s, row, ev[L2M]) - 0.5) < 1e-6);
	ck_assert(fabs(snap_metric_cov(s, row, met("ipc")) - 0.5) < 1e-6);
	/* Nothing on the UMC now, so no complaint about it either. */
	ck_assert(sampler_notice(smp) == NULL || !strstr(sampler_notice(smp), "umc_wide"));
	snapshot_free(s);
}
END_TEST

/* A request that cannot be planned: the interval still comes, every
 * figure unknown, and says why; the next request that can be planned
 * counts again. Before, sampler_step gave NULL and the screen's thread
 * dropped the cause, keeping the old figures with nothing said. */
START_TEST(test_failed_replan_said)
{
	snapshot_free(step());
	int bad[] = { model->nmetrics + 3 };
	sampler_request(smp, 1, bad, 0, NULL);
	for (int k = 0; k < 2; k++) {
		struct snapshot *s = step();
		ck_assert_ptr_nonnull(s->notice);
		ck_assert_msg(strstr(s->notice, "cannot be planned") && strstr(s->notice, "is not in model"),
			      "notice: %s", s->notice);
		ck_assert_int_eq(s->nrows[SNAP_CPU], NCPU);
		for (int i = 0; i < model->nmetrics; i++) {
			ck_assert(!s->metric_planned[i]);
			ck_assert(isnan(snap_metric(s, &s->rows[SNAP_SYSTEM][0], i)));
		}
		ck_assert(isnan(snap_event(s, snapshot_cpu(s, 1), ev[CYC])));
		ck_assert(fabs(s->measured_s - 1.0) < 1e-9);
		snapshot_free(s);
	}
	int good[] = { met("ipc") };
	sampler_request(smp, 1, good, 0, NULL);
	struct snapshot *s = step();
	ck_assert(s->notice == NULL || !strstr(s->notice, "cannot be planned"));
	assert_close(snap_metric(s, snapshot_cpu(s, 1), met("ipc")), rate[1][INS] / rate[1][CYC], "ipc", __LINE__);
	snapshot_free(s);
}
END_TEST

/* A read that fails is said in its interval's notice, and its counts come
 * with the next read: nothing is lost. */
START_TEST(test_read_failure_said)
{
	snapshot_free(step());
	struct sim_fault f = { .cpu = 1, .err = -EIO, .after_reads = 0 };
	sim_inject_fault(sampler_backend(smp), &f);
	struct snapshot *s = step();
	ck_assert_ptr_nonnull(s->notice);
	ck_assert_msg(strstr(s->notice, "1 counter read failed in this interval"), "notice: %s", s->notice);
	snapshot_free(s);
	/* The fault fired once: the next interval has nothing to say of it. */
	s = step();
	ck_assert(s->notice == NULL || !strstr(s->notice, "read failed"));
	snapshot_free(s);
}
END_TEST

/* The plan's notice, the same interval after interval, is one copy
 * that the snapshots share (snap_note) and that outlives any one of
 * them; an interval with more to say has a notice of its own, and the
 * one after shares again. */
START_TEST(test_notice_shared)
{
	const char *plan = sampler_notice(smp);
	ck_assert_ptr_nonnull(plan);
	struct snapshot *a = step(), *b = step();
	ck_assert_ptr_nonnull(a->note);
	ck_assert_ptr_eq(a->note, b->note);
	ck_assert_ptr_eq(a->notice, b->notice);
	ck_assert_str_eq(a->notice, plan);
	/* b's notice stays when a goes first. */
	snapshot_free(a);
	ck_assert_str_eq(b->notice, plan);
	struct sim_fault f = { .cpu = 1, .err = -EIO, .after_reads = 0 };
	sim_inject_fault(sampler_backend(smp), &f);
	struct snapshot *c = step();
	ck_assert_ptr_null(c->note);
	ck_assert_msg(strncmp(c->notice, plan, strlen(plan)) == 0 && strstr(c->notice, "1 counter read failed"),
		      "notice: %s", c->notice);
	struct snapshot *d = step();
	ck_assert_ptr_eq(d->note, b->note);
	snapshot_free(c);
	snapshot_free(b);
	ck_assert_str_eq(d->notice, plan);
	snapshot_free(d);
}
END_TEST

START_TEST(test_interval_change)
{
	sampler_set_interval(smp, 0.5);
	struct snapshot *s = step();
	ck_assert(fabs(s->measured_s - 0.5) < 1e-9);
	/* Rates are per second, so scaled counts halve and ratios stay. */
	assert_close(snap_event(s, snapshot_cpu(s, 0), ev[CYC]), rate[0][CYC] * 0.5, "cycles", __LINE__);
	assert_close(snap_metric(s, snapshot_cpu(s, 0), met("ghz")), rate[0][CYC] / 1e9, "ghz", __LINE__);
	snapshot_free(s);
}
END_TEST

/* Rotating costs CPU time; over its budget the sampler rotates half as
 * often, and coverage stays the schedule's share. A budget no sampler can
 * meet shows the doubling; the default budget leaves this small machine at
 * the configured period. */
START_TEST(test_rotation_backs_off)
{
	struct snapshot *s = step();
	ck_assert(fabs(s->rotate_ms - 10) < 1e-9);
	snapshot_free(s);
	sampler_free(smp);
	int *all = fx_all_metrics(model);
	struct sampler_config cfg = test_config(&backend_sim, 1.0, all);
	cfg.cost_budget = 1e-15;
	smp = fx_sampler(&cfg);
	free(all);
	set_rates(sampler_backend(smp));
	double want = 10;
	for (int i = 0; i < 9; i++) {
		s = step();
		ck_assert_msg(fabs(s->rotate_ms - want) < 1e-9, "step %d: %g ms, want %g", i, s->rotate_ms, want);
		assert_close(snap_event_cov(s, snapshot_cpu(s, 0), ev[CYC]),
			     1.0 / sched_groups_for_pmu(sampler_plan(smp), model->events[ev[CYC]].pmu),
			     "coverage", __LINE__);
		if (want * 2 <= 1000)
			want *= 2;
		snapshot_free(s);
	}
	ck_assert(fabs(want - 640) < 1e-9);   /* never past the interval */
}
END_TEST

/* The sampler's own CPU time is read where it is used, and only there
 * (each read is a system call): published (report_cost: the exporter),
 * recorded (-w), or for the rotation's budget on real counters (no
 * modelled kernel) with groups to rotate; NaN, not measured, otherwise.
 * On real counters the budget still backs the rotation off with nothing
 * publishing the cost (it fails if the clock is read only for the
 * outputs). */
START_TEST(test_cost_measured_where_used)
{
	/* setup's sampler: the simulator, whose budget reads its modelled
	 * kernel, and nothing publishing or recording. */
	struct snapshot *s = step();
	ck_assert_msg(isnan(s->sampler_cost_s), "cost %g read for nothing", s->sampler_cost_s);
	snapshot_free(s);
	sampler_free(smp);
	int *all = fx_all_metrics(model);
	struct sampler_config cfg = test_config(&backend_sim, 1.0, all);
	cfg.report_cost = true;
	smp = fx_sampler(&cfg);
	set_rates(sampler_backend(smp));
	for (int i = 0; i < 2; i++) {
		s = step();
		ck_assert_msg(s->sampler_cost_s >= 0 && s->sampler_cost_s < 60, "published cost %g", s->sampler_cost_s);
		snapshot_free(s);
	}
	sampler_free(smp);
	/* Real counters: the simulator without its kernel's clock, four core
	 * groups rotating every 10 ms, a budget any CPU time is over. */
	static struct pmu_backend_ops real;
	real = backend_sim;
	real.kernel_ns = NULL;
	cfg = test_config(&real, 1.0, all);
	cfg.cost_budget = 1e-15;
	smp = fx_sampler(&cfg);
	set_rates(sampler_backend(smp));
	double want = 10;
	for (int i = 0; i < 3; i++) {
		s = step();
		ck_assert_msg(fabs(s->rotate_ms - want) < 1e-9, "step %d: %g ms, want %g", i, s->rotate_ms, want);
		ck_assert_msg(s->sampler_cost_s >= 0, "step %d: cost %g, the budget needs it", i, s->sampler_cost_s);
		want *= 2;
		snapshot_free(s);
	}
	sampler_free(smp);
	/* The same with the kernel rotating: no rotation of pmctop's to
	 * slow down, so nothing reads the clock. */
	cfg.rotate_ms = SAMPLER_ROTATE_KERNEL;
	smp = fx_sampler(&cfg);
	set_rates(sampler_backend(smp));
	s = step();
	ck_assert_msg(isnan(s->sampler_cost_s), "cost %g read under the kernel's rotation", s->sampler_cost_s);
	snapshot_free(s);
	free(all);
}
END_TEST

/* --rotate kernel: the sim's ops wrapped to count enables and disables
 * and to note each group's CPU, events and time_running as it is read. */
#define MAXG 128
static struct {
	struct bk_group *g;
	int cpu, nev, events[8];
	uint64_t running, prev;
} seen[MAXG];
static int nseen, n_enable, n_disable;

static int spy_open(struct backend *b, const struct bk_instance *inst, const int *events, int nevents,
		    struct bk_group **g, char **cause)
{
	int rc = backend_sim.open_group(b, inst, events, nevents, g, cause);
	if (rc == 0 && nseen < MAXG && nevents <= 8) {
		seen[nseen].g = *g;
		seen[nseen].cpu = inst->cpu;
		seen[nseen].nev = nevents;
		memcpy(seen[nseen].events, events, sizeof(int) * (size_t)nevents);
		nseen++;
	}
	return rc;
}

static int spy_enable(struct backend *b, struct bk_group *g)
{
	n_enable++;
	return backend_sim.enable(b, g);
}

static int spy_disable(struct backend *b, struct bk_group *g)
{
	n_disable++;
	return backend_sim.disable(b, g);
}

static int spy_read(struct backend *b, struct bk_group *g, struct bk_count *out)
{
	int rc = backend_sim.read(b, g, out);
	for (int i = 0; rc == 0 && i < nseen; i++)
		if (seen[i].g == g)
			seen[i].running = out[0].time_running;
	return rc;
}

/* Sum of time_running / interval over the groups of cpu that hold e, since
 * the previous read. */
static double seen_coverage(int cpu, int e)
{
	double r = 0;
	for (int i = 0; i < nseen; i++) {
		if (seen[i].cpu != cpu)
			continue;
		for (int j = 0; j < seen[i].nev; j++)
			if (seen[i].events[j] == e)
				r += (double)(seen[i].running - seen[i].prev) / 1e9;
	}
	return r;
}

START_TEST(test_kernel_mode)
{
	sampler_free(smp);
	/* Static: the sampler keeps the pointer until teardown frees it. */
	static struct pmu_backend_ops spy;
	spy = backend_sim;
	spy.open_group = spy_open;
	spy.enable = spy_enable;
	spy.disable = spy_disable;
	spy.read = spy_read;
	nseen = n_enable = n_disable = 0;
	int *all = fx_all_metrics(model);
	struct sampler_config cfg = test_config(&spy, 1.0, all);
	cfg.rotate_ms = SAMPLER_ROTATE_KERNEL;
	cfg.cost_budget = 1e-15;
	smp = fx_sampler(&cfg);
	free(all);
	set_rates(sampler_backend(smp));
	/* Every group opened was enabled once, at open, and nothing else. */
	ck_assert_int_gt(nseen, 32);
	ck_assert_int_eq(n_enable, nseen);
	ck_assert_int_eq(n_disable, 0);
	int ncore = sched_groups_for_pmu(sampler_plan(smp), model_find_pmu(model, "core"));
	ck_assert_int_eq(ncore, 4);
	bool uneven = false;
	for (int it = 0; it < 4; it++) {
		struct snapshot *s = step();
		/* Constant rates make the scaling exact, whatever the share. */
		check_all_scopes(s);
		/* 0: the kernel rotates, and the budget does not back it off. */
		ck_assert(s->rotate_ms == 0);
		for (int c = 0; c < NCPU; c++) {
			const struct snap_row *row = snapshot_cpu(s, c);
			const int evs[] = { ev[CYC], ev[INS], ev[BR], ev[BRM], ev[L2A], ev[L2M] };
			for (size_t k = 0; k < ARRAY_SIZE(evs); k++) {
				double want = seen_coverage(c, evs[k]);
				ck_assert_msg(fabs(snap_event_cov(s, row, evs[k]) - want) < 1e-9,
					      "cpu %d event %zu: coverage %g, time_running says %g", c, k,
					      snap_event_cov(s, row, evs[k]), want);
			}
			/* Each core group fills both counters, so the kernel runs
			 * one at a time, a quarter of the interval within a tick
			 * (branch_misses and instructions are in two groups). */
			ck_assert(fabs(snap_event_cov(s, row, ev[CYC]) - 0.25) <= 0.004 + 1e-9);
			ck_assert(fabs(snap_event_cov(s, row, ev[BRM]) - 0.5) <= 0.008 + 1e-9);
			if (fabs(snap_event_cov(s, row, ev[CYC]) - 0.25) > 1e-6)
				uneven = true;
		}
		ck_assert(fabs(snap_event_cov(s, find_row(s, SNAP_CCX, 1), ev[L3M]) - 1.0) < 1e-9);
		ck_assert(fabs(snap_event_cov(s, &s->rows[SNAP_SOCKET][0], ev[CAS]) - 1.0) < 1e-9);
		for (int i = 0; i < nseen; i++)
			seen[i].prev = seen[i].running;
		snapshot_free(s);
	}
	/* 250 ticks of 4 ms do not split evenly in four: measured, not planned. */
	ck_assert(uneven);
	ck_assert_int_eq(n_enable, nseen);
	ck_assert_int_eq(n_disable, 0);
	/* The sampler's own rotation, for contrast, disables and enables. */
	struct snapshot *s = NULL;
	sampler_free(smp);
	cfg.rotate_ms = 10;
	cfg.nmetrics = 0;
	int one[] = { met("ipc"), met("mpki") };
	cfg.metrics = one;
	cfg.nmetrics = 2;
	nseen = n_enable = n_disable = 0;
	smp = fx_sampler(&cfg);
	s = step();
	ck_assert_int_gt(n_disable, 0);
	ck_assert(s->rotate_ms > 0);
	snapshot_free(s);
}
END_TEST

/* The snapshots the sampler's thread publishes are waited for as long as
 * it takes: no test here bounds how long one takes to come (speed is
 * bench/'s), and one that never comes is ended by the tcase's timeout.
 * NEVER_S is a delay no run of these tests waits out (hours, where the
 * tcase's timeout is 20 s, times CK_TIMEOUT_MULTIPLIER under the
 * sanitizers): where a test says a snapshot comes although the delay is
 * NEVER_S, it came because something ended the wait, not because time
 * passed. (Longer costs the simulator time: it simulates the interval.) */
#define NEVER_S 1e4

static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

/* The next snapshot in the ring. */
static struct snapshot *next_snapshot(struct snap_ring *ring)
{
	for (;;) {
		struct snapshot *s = snap_ring_pop_latest(ring);
		if (s)
			return s;
		nap_ms(2);
	}
}

/* A gate on the simulated PMU's clock (the ops' advance): the thread
 * parks in an advance, inside an interval, until the test releases it,
 * once park_after snapshots are published (on_publish, on the sampler's
 * thread; -1: not so), or at an advance of at least park_ns (0: not so).
 * A request made while it is parked lands mid-interval for certain,
 * however slow the machine. */
static struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int published, park_after;
	uint64_t park_ns;
	bool parked, released;
} gate = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, -1, 0, false, false };

static void gate_arm(int park_after, uint64_t park_ns)
{
	pthread_mutex_lock(&gate.mu);
	gate.published = 0;
	gate.park_after = park_after;
	gate.park_ns = park_ns;
	gate.parked = gate.released = false;
	pthread_mutex_unlock(&gate.mu);
}

static void gate_publish(void *arg, const struct snapshot *snap)
{
	(void)arg;
	(void)snap;
	pthread_mutex_lock(&gate.mu);
	gate.published++;
	pthread_mutex_unlock(&gate.mu);
}

static void gated_advance(struct backend *b, uint64_t ns)
{
	pthread_mutex_lock(&gate.mu);
	if (!gate.released && ((gate.park_after >= 0 && gate.published >= gate.park_after) ||
			       (gate.park_ns && ns >= gate.park_ns))) {
		gate.parked = true;
		pthread_cond_broadcast(&gate.cv);
		while (!gate.released)
			pthread_cond_wait(&gate.cv, &gate.mu);
	}
	pthread_mutex_unlock(&gate.mu);
	backend_sim.advance(b, ns);
}

/* Waits until the thread is parked at the gate. */
static void gate_wait_parked(void)
{
	pthread_mutex_lock(&gate.mu);
	while (!gate.parked)
		pthread_cond_wait(&gate.cv, &gate.mu);
	pthread_mutex_unlock(&gate.mu);
}

static void gate_release(void)
{
	pthread_mutex_lock(&gate.mu);
	gate.released = true;
	pthread_cond_broadcast(&gate.cv);
	pthread_mutex_unlock(&gate.mu);
}

/* The simulated PMU behind the gate. */
static struct pmu_backend_ops gated;

/* A sampler for the thread's tests, on the gated simulator, whose
 * interval may be NEVER_S: it rotates at most once per group and
 * interval, so that the simulator runs such an interval in a few steps. */
static struct sampler *thread_sampler(double interval_s)
{
	gated = backend_sim;
	gated.advance = gated_advance;
	int *all = fx_all_metrics(model);
	struct sampler_config cfg = test_config(&gated, interval_s, all);
	cfg.rotate_ms = NEVER_S * 1e3;
	struct sampler *s = fx_sampler(&cfg);
	free(all);
	set_rates(sampler_backend(s));
	return s;
}

/* The simulated screen is paced from its first interval, and a new delay
 * acts at once: the interval in progress ends and the next ones use it
 * (no waiting out the old, long delay). A pause acts at once too. */
START_TEST(test_interval_acts_at_once)
{
	gate_arm(-1, 0);
	struct sampler *sm = thread_sampler(NEVER_S);
	struct snap_ring ring;
	snap_ring_init(&ring);
	char *cause = NULL;
	ck_assert_int_eq(sampler_start(sm, &ring, &cause), 0);
	/* Not before its interval ends: none in the time it takes a short
	 * interval to come below. */
	nap_ms(300);
	ck_assert_ptr_null(snap_ring_pop_latest(&ring));
	sampler_set_interval(sm, 0.2);
	struct snapshot *s = next_snapshot(&ring);   /* the cut interval */
	snapshot_free(s);
	s = next_snapshot(&ring);
	ck_assert(fabs(s->measured_s - 0.2) < 1e-6);
	ck_assert(fabs(s->interval_s - 0.2) < 1e-6);
	snapshot_free(s);
	/* Back to a delay never waited out, then a pause while the thread
	 * is inside that interval (parked at its first step of simulated
	 * time, a quarter of it): the interval is ended and published. */
	gate_arm(-1, (uint64_t)(NEVER_S / 8 * 1e9));
	sampler_set_interval(sm, NEVER_S);
	gate_wait_parked();
	sampler_pause(sm, true);
	gate_release();
	for (s = next_snapshot(&ring); s->interval_s != NEVER_S; s = next_snapshot(&ring))
		snapshot_free(s);   /* the 0.2 s intervals before it */
	ck_assert_msg(s->quick, "the interval in progress was not ended by the pause (%g s)", s->measured_s);
	ck_assert_double_lt(s->measured_s, NEVER_S);
	snapshot_free(s);
	sampler_pause(sm, false);
	sampler_stop(sm);
	snap_ring_done(&ring);
	sampler_free(sm);
}
END_TEST

/* The screen's thread: a request that cannot be planned reaches the
 * screen as a snapshot that says so (before, nothing came at all). */
START_TEST(test_failed_replan_reaches_screen)
{
	struct snap_ring ring;
	snap_ring_init(&ring);
	sampler_set_interval(smp, 0.2);
	char *cause = NULL;
	ck_assert_int_eq(sampler_start(smp, &ring, &cause), 0);
	snapshot_free(next_snapshot(&ring));
	int bad[] = { -1 };
	sampler_request(smp, 1, bad, 0, NULL);
	bool said = false;
	while (!said) {
		struct snapshot *s = next_snapshot(&ring);
		said = s->notice && strstr(s->notice, "cannot be planned");
		/* Until it says so, only the old plan's figures come. */
		ck_assert(said || s->metric_planned[met("ipc")]);
		snapshot_free(s);
	}
	sampler_stop(smp);
	snap_ring_done(&ring);
}
END_TEST

/* Collects n snapshots. */
static void collect(struct snap_ring *ring, struct snapshot **out, int n)
{
	for (int i = 0; i < n; i++)
		out[i] = next_snapshot(ring);
}

/* A request (a view switch) ends the interval under way: that short
 * interval is published, exact for its own length, but marked short, so
 * that the history keeps its graphs of one length; every snapshot says
 * the delay asked for. Before, each view switch on real counters started
 * the history again, twice, with a false "history started again" note. */
START_TEST(test_cut_interval_is_short)
{
	gated = backend_sim;
	gated.advance = gated_advance;
	gate_arm(2, 0);
	int *all = fx_all_metrics(model);
	struct sampler_config cfg = test_config(&gated, 0.8, all);
	cfg.on_publish = gate_publish;
	struct sampler *sm = fx_sampler(&cfg);
	free(all);
	struct snap_ring ring;
	snap_ring_init(&ring);
	char *cause = NULL;
	ck_assert_int_eq(sampler_start(sm, &ring, &cause), 0);
	struct snapshot *s[8] = { NULL };
	/* A whole interval (the second: the first may be quick). */
	collect(&ring, s, 2);
	ck_assert(!s[1]->quick);
	ck_assert_double_eq_tol(s[1]->measured_s, 0.8, 1e-9);
	ck_assert_double_eq(s[1]->interval_s, 0.8);
	/* The thread is inside the third interval: ask for another view. */
	gate_wait_parked();
	int l2[] = { met("l2_miss_rate") };
	sampler_request(sm, 1, l2, 0, NULL);
	gate_release();
	/* The cut interval of the old plan, the new plan's quick one, then a
	 * whole one of the new plan. */
	collect(&ring, s + 2, 3);
	ck_assert(s[2]->metric_planned[met("ipc")]);
	ck_assert_msg(s[2]->quick, "the interval the request ended (%g s) is not marked short", s[2]->measured_s);
	ck_assert_double_lt(s[2]->measured_s, s[2]->interval_s);
	ck_assert_double_eq(s[2]->interval_s, 0.8);
	ck_assert(!s[3]->metric_planned[met("ipc")] && s[3]->quick);
	ck_assert(!s[4]->metric_planned[met("ipc")] && !s[4]->quick);
	ck_assert_double_eq(s[4]->interval_s, 0.8);
	sampler_stop(sm);
	for (int i = 0; i < 8; i++)
		snapshot_free(s[i]);
	snap_ring_done(&ring);
	sampler_free(sm);
}
END_TEST

START_TEST(test_thread_mode)
{
	struct snap_ring ring;
	snap_ring_init(&ring);
	sampler_set_interval(smp, 0.02);
	char *cause = NULL;
	ck_assert_int_eq(sampler_start(smp, &ring, &cause), 0);
	struct snapshot *got = next_snapshot(&ring);
	assert_close(snap_metric(got, snapshot_cpu(got, 2), met("ipc")), rate[2][INS] / rate[2][CYC], "ipc", __LINE__);
	snapshot_free(got);
	/* A re-plan requested from this thread is applied by the sampler's. */
	int only[] = { met("l2_miss_rate") };
	sampler_request(smp, 1, only, 0, NULL);
	for (got = next_snapshot(&ring); got->metric_planned[met("ipc")]; got = next_snapshot(&ring))
		snapshot_free(got);
	ck_assert(got->metric_planned[met("l2_miss_rate")]);
	/* Its rows hold the new plan's figures alone: one metric, and the
	 * events it needs (the old plan's read NaN, not stale columns). */
	ck_assert_int_eq(got->nmcols, 1);
	ck_assert_int_lt(got->necols, model->nevents);
	ck_assert(!isnan(snap_metric(got, &got->rows[SNAP_SYSTEM][0], met("l2_miss_rate"))));
	ck_assert(isnan(snap_metric(got, &got->rows[SNAP_SYSTEM][0], met("ipc"))));
	snapshot_free(got);
	sampler_pause(smp, true);
	sampler_pause(smp, false);
	sampler_stop(smp);
	snap_ring_done(&ring);
}
END_TEST

/* The "errors shown" tests: a simulated Zen 5 of 16 CPUs, every metric
 * planned, ex_ret_instr shown as with -e. */
static struct model *zen5;
static struct topo *zen5_topo;
static int *zen5_all, zen5_shown;

static void setup_zen5(void)
{
	zen5 = fx_model("amd-zen5");
	zen5_topo = fx_topo("1x2x4x2");
	zen5_all = fx_all_metrics(zen5);
	zen5_shown = model_find_event(zen5, "ex_ret_instr");
	ck_assert_int_ge(zen5_shown, 0);
}

static void teardown_zen5(void)
{
	free(zen5_all);
	topo_free(zen5_topo);
	model_free(zen5);
}

/* A sampler of that machine on the simulated PMU of this seed, rotating
 * every 20 ms with no back-off (two samplers compared must rotate alike
 * whatever each one costs); later_below and on_demand: which rows' errors
 * each interval finds (sampler_config.errors_later: the scopes narrower
 * than later_below; errors_on_demand). */
static struct sampler *zen5_sampler(const char *seed, bool shown_errors, int later_below, bool on_demand)
{
	struct sampler_config cfg = fx_sampler_config(zen5, zen5_topo, seed, 1.0);
	cfg.rotate_ms = 20;
	cfg.nmetrics = zen5->nmetrics;
	cfg.metrics = zen5_all;
	cfg.nevents = 1;
	cfg.events = &zen5_shown;
	cfg.shown_event_errors = shown_errors;
	cfg.cost_budget = 1e9;
	cfg.errors_on_demand = on_demand;
	for (int sc = 0; sc < later_below; sc++)
		cfg.errors_later[sc] = true;
	return fx_sampler(&cfg);
}

/* Two figures the same to the bit (or both NaN). */
static bool same_bits(double a, double b)
{
	return !memcmp(&a, &b, sizeof(double)) || (isnan(a) && isnan(b));
}

/* Errors only where an output shows them (sampler_config.shown_event_errors,
 * what the screen and batch output ask for): two samplers of the same
 * simulated Zen 5 and seed, one with every event's error and one with
 * only the -e event's, must agree to the bit on every metric (value,
 * error, coverage) and every event's value and coverage, and on the -e
 * event's error; the other events' errors are left unknown there, where
 * the first states them. */
START_TEST(test_shown_event_errors)
{
	char *cause = NULL;
	struct model *m = zen5;
	int shown = zen5_shown;
	struct sampler *sm[2] = { zen5_sampler("seed=7", false, SNAP_CPU, false),
				  zen5_sampler("seed=7", true, SNAP_CPU, false) };
	int left_out = 0, kept = 0;
	for (int step_no = 0; step_no < 3; step_no++) {
		struct snapshot *a = sampler_step(sm[0], &cause), *b = sampler_step(sm[1], &cause);
		ck_assert(a && b);
		for (int sc = 0; sc < SNAP_NSCOPES; sc++) {
			ck_assert_int_eq(a->nrows[sc], b->nrows[sc]);
			for (int r = 0; r < a->nrows[sc]; r++) {
				const struct snap_row *x = &a->rows[sc][r], *y = &b->rows[sc][r];
				for (int i = 0; i < m->nmetrics; i++) {
					double u[3] = { snap_metric(a, x, i), snap_metric_rse(a, x, i), snap_metric_cov(a, x, i) };
					double v[3] = { snap_metric(b, y, i), snap_metric_rse(b, y, i), snap_metric_cov(b, y, i) };
					for (int f = 0; f < 3; f++)
						ck_assert_msg(same_bits(u[f], v[f]),
							      "%s scope %d row %d field %d: %g vs %g", m->metrics[i].name, sc, r,
							      f, u[f], v[f]);
				}
				for (int e = 0; e < m->nevents; e++) {
					double ua = snap_event(a, x, e), ub = snap_event(b, y, e);
					ck_assert(same_bits(ua, ub));
					double ra = snap_event_rse(a, x, e), rb = snap_event_rse(b, y, e);
					if (e == shown || !(ra > 0)) {
						ck_assert_msg(same_bits(ra, rb),
							      "%s scope %d row %d: error %g vs %g", m->events[e].name, sc, r, ra, rb);
						kept += e == shown && ra > 0;
					} else {
						/* Left unknown, or (an event of a metric
						 * of no window set) the same error. */
						ck_assert(isnan(rb) || !memcmp(&ra, &rb, sizeof(double)));
						left_out += isnan(rb);
					}
				}
			}
		}
		snapshot_free(a);
		snapshot_free(b);
	}
	/* Both kinds were seen: errors stated and kept, errors left out. */
	ck_assert_int_gt(kept, 0);
	ck_assert_int_gt(left_out, 0);
	sampler_free(sm[0]);
	sampler_free(sm[1]);
}
END_TEST

/* Every figure of row x of a and row y of b the same; values and
 * coverage only (errors false). */
static void assert_rows_same(const struct model *m, const struct snapshot *a, const struct snap_row *x,
			     const struct snapshot *b, const struct snap_row *y, bool errors, int sc, int r)
{
	for (int i = 0; i < m->nmetrics; i++) {
		ck_assert_msg(same_bits(snap_metric(a, x, i), snap_metric(b, y, i)), "%s scope %d row %d: %g vs %g",
			      m->metrics[i].name, sc, r, snap_metric(a, x, i), snap_metric(b, y, i));
		ck_assert(same_bits(snap_metric_cov(a, x, i), snap_metric_cov(b, y, i)));
		if (errors)
			ck_assert_msg(same_bits(snap_metric_rse(a, x, i), snap_metric_rse(b, y, i)),
				      "%s scope %d row %d: error %g vs %g", m->metrics[i].name, sc, r,
				      snap_metric_rse(a, x, i), snap_metric_rse(b, y, i));
	}
	for (int e = 0; e < m->nevents; e++) {
		ck_assert(same_bits(snap_event(a, x, e), snap_event(b, y, e)));
		ck_assert(same_bits(snap_event_cov(a, x, e), snap_event_cov(b, y, e)));
		if (errors)
			ck_assert_msg(same_bits(snap_event_rse(a, x, e), snap_event_rse(b, y, e)),
				      "%s scope %d row %d: error %g vs %g", m->events[e].name, sc, r,
				      snap_event_rse(a, x, e), snap_event_rse(b, y, e));
	}
}

/* A checksum of everything a snapshot's rows hold (FNV-1a over the rows
 * and their figures): reading a snapshot must leave it as published. */
static uint64_t rows_sum(const struct snapshot *s)
{
	uint64_t h = 1469598103934665603ull;
	for (int sc = 0; sc < SNAP_NSCOPES; sc++) {
		size_t n = (sizeof(struct snap_row) * (size_t)s->nrows[sc]);
		const unsigned char *p = (const unsigned char *)s->rows[sc];
		for (size_t i = 0; i < n; i++)
			h = (h ^ p[i]) * 1099511628211ull;
		p = (const unsigned char *)s->block[sc];
		n = sizeof(double) * (size_t)s->nrows[sc] * (3 * (size_t)s->nmcols + 3 * (size_t)s->necols);
		for (size_t i = 0; i < n; i++)
			h = (h ^ p[i]) * 1099511628211ull;
	}
	return h;
}

/* Readers of one snapshot on threads of their own (the screen, the
 * exporter, a writer): each reads every row's errors, the deferred ones
 * found by whichever comes first, and sums them bit for bit. */
struct reader {
	const struct snapshot *s;
	uint64_t sum;
};
static void *read_errors(void *arg)
{
	struct reader *rd = arg;
	const struct snapshot *s = rd->s;
	uint64_t h = 0;
	for (int sc = SNAP_NSCOPES - 1; sc >= 0; sc--)
		for (int r = 0; r < s->nrows[sc]; r++) {
			const struct snap_row *y = &s->rows[sc][r];
			for (int i = 0; i < s->nmetrics; i++) {
				double v = snap_metric_rse(s, y, i);
				uint64_t u;
				memcpy(&u, &v, sizeof(u));
				h = h * 31 + (isnan(v) ? 7 : u);
			}
			for (int e = 0; e < s->nevents; e++) {
				double v = snap_event_rse(s, y, e);
				uint64_t u;
				memcpy(&u, &v, sizeof(u));
				h = h * 31 + (isnan(v) ? 7 : u);
			}
		}
	rd->sum = h;
	return NULL;
}

/* Errors on demand (sampler_config.errors_on_demand, the dashboard): a
 * sampler told which rows the screen reads finds their errors with each
 * interval and leaves the others' to the snapshot's error source; a
 * deferred row's values are already those of a sampler that finds every
 * error, and its errors, read, are too, to the bit, bounds and trees
 * included. They do not depend on when they are read: a snapshot read
 * only after the sampler has gone three intervals on (whose buffers an
 * error once needed, and showed '~' without) gives them all, and reading
 * leaves every byte of its rows as published. Four threads reading one
 * snapshot at once find the same figures. */
START_TEST(test_errors_on_demand)
{
	char *cause = NULL;
	struct model *m = zen5;
	struct sampler *sm[2] = { zen5_sampler("seed=11", true, SNAP_CPU, false),
				  zen5_sampler("seed=11", true, SNAP_NSCOPES, true) };
	/* The screen read CPU rows 1 and 3 and the system row. */
	bool cpu_rows[16] = { false, true, false, true }, sys_row[1] = { true };
	struct derive_want want = { .rows = { [SNAP_CPU] = cpu_rows, [SNAP_SYSTEM] = sys_row },
				    .nrows = { [SNAP_CPU] = 16, [SNAP_SYSTEM] = 1 } };
	sampler_want_errors(sm[1], &want);
	struct snapshot *a[5], *b[5];
	uint64_t sum[5];
	int deferred = 0, found_with_error = 0;
	for (int step_no = 0; step_no < 5; step_no++) {
		a[step_no] = sampler_step(sm[0], &cause);
		b[step_no] = sampler_step(sm[1], &cause);
		ck_assert(a[step_no] && b[step_no]);
		sum[step_no] = rows_sum(b[step_no]);
	}
	/* Interval 1 is read last, interval 0 by four threads at once. */
	int order[5] = { 4, 3, 2, 0, 1 };
	for (int k = 0; k < 5; k++) {
		int n = order[k];
		if (n == 0) {
			struct reader rd[4];
			pthread_t th[4];
			for (int t = 0; t < 4; t++) {
				rd[t] = (struct reader){ .s = b[n] };
				ck_assert_int_eq(pthread_create(&th[t], NULL, read_errors, &rd[t]), 0);
			}
			for (int t = 0; t < 4; t++)
				pthread_join(th[t], NULL);
			struct reader one = { .s = a[n] };
			read_errors(&one);
			for (int t = 0; t < 4; t++)
				ck_assert(rd[t].sum == one.sum);
		}
		for (int sc = 0; sc < SNAP_NSCOPES; sc++) {
			ck_assert_int_eq(a[n]->nrows[sc], b[n]->nrows[sc]);
			for (int r = 0; r < a[n]->nrows[sc]; r++) {
				const struct snap_row *x = &a[n]->rows[sc][r], *y = &b[n]->rows[sc][r];
				bool wanted = (sc == SNAP_CPU && r < 16 && cpu_rows[r]) || sc == SNAP_SYSTEM;
				ck_assert(!x->errors_deferred);
				ck_assert_msg(y->errors_deferred == !wanted, "interval %d scope %d row %d", n, sc,
					      r);
				deferred += y->errors_deferred;
				assert_rows_same(m, a[n], x, b[n], y, true, sc, r);
				for (int i = 0; i < m->nmetrics && y->errors_deferred; i++)
					found_with_error += snap_metric_rse(b[n], y, i) > 0;
			}
		}
		ck_assert(rows_sum(b[n]) == sum[n]);
	}
	ck_assert_int_gt(deferred, 0);
	ck_assert_int_gt(found_with_error, 0);
	for (int n = 0; n < 5; n++) {
		snapshot_free(a[n]);
		snapshot_free(b[n]);
	}
	sampler_free(sm[0]);
	sampler_free(sm[1]);
}
END_TEST

/* The exporter's rows (sampler_config.errors_later, --export-scope
 * ccx): every error of a CCX, socket and system row is found with the
 * interval, every event's too (the exporter publishes them all), and the
 * CPU and core rows' are left for later; read, every figure of theirs,
 * events' errors included, is what a sampler that finds every error
 * gives, to the bit, even once the sampler has been freed. */
START_TEST(test_errors_by_scope)
{
	char *cause = NULL;
	struct model *m = zen5;
	struct sampler *sm[2] = { zen5_sampler("seed=13", false, SNAP_CPU, false),
				  zen5_sampler("seed=13", false, SNAP_CCX, false) };
	int deferred = 0, event_errors = 0;
	struct snapshot *a[3], *b[3];
	for (int step_no = 0; step_no < 3; step_no++) {
		a[step_no] = sampler_step(sm[0], &cause);
		b[step_no] = sampler_step(sm[1], &cause);
		ck_assert(a[step_no] && b[step_no]);
	}
	sampler_free(sm[0]);
	sampler_free(sm[1]);
	for (int n = 0; n < 3; n++) {
		for (int sc = 0; sc < SNAP_NSCOPES; sc++)
			for (int r = 0; r < a[n]->nrows[sc]; r++) {
				const struct snap_row *x = &a[n]->rows[sc][r], *y = &b[n]->rows[sc][r];
				ck_assert_msg(y->errors_deferred == (sc < SNAP_CCX), "scope %d row %d", sc, r);
				deferred += y->errors_deferred;
				assert_rows_same(m, a[n], x, b[n], y, true, sc, r);
				for (int e = 0; e < m->nevents; e++)
					event_errors += sc < SNAP_CCX && snap_event_rse(b[n], y, e) > 0;
			}
		snapshot_free(a[n]);
		snapshot_free(b[n]);
	}
	ck_assert_int_gt(deferred, 0);
	ck_assert_int_gt(event_errors, 0);
}
END_TEST

/* An interval's error source is made from the last one let go
 * (derive_errors.c's spare), a snapshot freed before the next interval
 * is derived being what the dashboard and batch output do: the next
 * source's deferred rows, read, are still what a sampler that finds
 * every error gives, to the bit, none of the rows found in the source
 * before. */
START_TEST(test_errors_source_reused)
{
	char *cause = NULL;
	struct sampler *sm[2] = { zen5_sampler("seed=17", true, SNAP_CPU, false),
				  zen5_sampler("seed=17", true, SNAP_NSCOPES, true) };
	bool cpu_rows[16] = { true }, sys_row[1] = { true };
	struct derive_want want = { .rows = { [SNAP_CPU] = cpu_rows, [SNAP_SYSTEM] = sys_row },
				    .nrows = { [SNAP_CPU] = 16, [SNAP_SYSTEM] = 1 } };
	sampler_want_errors(sm[1], &want);
	int deferred = 0;
	for (int n = 0; n < 4; n++) {
		struct snapshot *a = sampler_step(sm[0], &cause), *b = sampler_step(sm[1], &cause);
		ck_assert(a && b && b->errors);
		for (int sc = 0; sc < SNAP_NSCOPES; sc++)
			for (int r = 0; r < a->nrows[sc]; r++) {
				const struct snap_row *x = &a->rows[sc][r], *y = &b->rows[sc][r];
				deferred += y->errors_deferred;
				assert_rows_same(zen5, a, x, b, y, true, sc, r);
			}
		snapshot_free(a);
		snapshot_free(b);
	}
	ck_assert_int_gt(deferred, 100);
	sampler_free(sm[0]);
	sampler_free(sm[1]);
}
END_TEST

/* The skeleton leaves every event cell for step_events to write
 * (snapshot_new_cols' events_unset): none may be left as malloc gave
 * it. glibc fills fresh memory with a known byte under M_PERTURB; no
 * event figure, coverage or error may hold that pattern, with -C leaving
 * rows partial, with an L3 PMU beside the core's, and with the kernel
 * rotating. (Under AddressSanitizer, whose malloc ignores M_PERTURB,
 * this finds nothing either way.) */
START_TEST(test_every_event_cell_written)
{
	mallopt(M_PERTURB, 0xaa);
	uint64_t junk;
	memset(&junk, 0x55, sizeof(junk));
	char *cause = NULL;
	struct model *m = zen5;
	struct topo *t = zen5_topo;
	int *all = zen5_all, shown = zen5_shown;
	bool *filter = xcalloc((size_t)t->max_cpu + 1, sizeof(bool));
	for (int c = 0; c < 6; c++)
		filter[c] = true;
	long cells = 0;
	for (int k = 0; k < 3; k++) {
		struct sampler_config cfg = fx_sampler_config(m, t, "seed=3", 1.0);
		cfg.rotate_ms = k == 2 ? SAMPLER_ROTATE_KERNEL : 20;
		cfg.nmetrics = m->nmetrics;
		cfg.metrics = all;
		cfg.nevents = 1;
		cfg.events = &shown;
		cfg.shown_event_errors = true;
		cfg.cost_budget = 1e9;
		cfg.cpu_filter = k == 1 ? filter : NULL;
		struct sampler *smp2 = fx_sampler(&cfg);
		for (int step_no = 0; step_no < 2; step_no++) {
			struct snapshot *s = sampler_step(smp2, &cause);
			ck_assert(s);
			for (int sc = 0; sc < SNAP_NSCOPES; sc++)
				for (int r = 0; r < s->nrows[sc]; r++)
					for (int c = 0; c < s->necols; c++) {
						const struct snap_row *row = &s->rows[sc][r];
						const double *f[3] = { &row->ev[c], &row->ecov[c], &row->erse[c] };
						for (int j = 0; j < 3; j++)
							ck_assert_msg(memcmp(f[j], &junk, sizeof(junk)),
								      "case %d scope %d row %d column %d: never written",
								      k, sc, r, c);
						cells++;
					}
			snapshot_free(s);
		}
		sampler_free(smp2);
	}
	ck_assert_int_gt(cells, 0);
	free(filter);
	mallopt(M_PERTURB, 0);
}
END_TEST

static Suite *sampler_suite(void)
{
	Suite *s = suite_create("sampler");
	TCase *tc = tcase_create("sim");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_metrics_all_scopes);
	tcase_add_test(tc, test_ratio_of_sums);
	tcase_add_test(tc, test_coverage_is_schedule_share);
	tcase_add_test(tc, test_tail_round);
	tcase_add_test(tc, test_unschedulable_reported);
	tcase_add_test(tc, test_cpu_offline);
	tcase_add_test(tc, test_uncore_reader_offline);
	tcase_add_test(tc, test_replan);
	tcase_add_test(tc, test_failed_replan_said);
	tcase_add_test(tc, test_read_failure_said);
	tcase_add_test(tc, test_notice_shared);
	tcase_add_test(tc, test_interval_change);
	tcase_add_test(tc, test_thread_mode);
	tcase_add_test(tc, test_failed_replan_reaches_screen);
	tcase_add_test(tc, test_interval_acts_at_once);
	tcase_add_test(tc, test_cut_interval_is_short);
	tcase_add_test(tc, test_rotation_backs_off);
	tcase_add_test(tc, test_cost_measured_where_used);
	tcase_add_test(tc, test_exact_only_when_counted_throughout);
	tcase_add_test(tc, test_kernel_mode);
	tcase_set_timeout(tc, 20);
	suite_add_tcase(s, tc);
	TCase *te = tcase_create("errors shown");
	tcase_add_checked_fixture(te, setup_zen5, teardown_zen5);
	tcase_add_test(te, test_shown_event_errors);
	tcase_add_test(te, test_errors_on_demand);
	tcase_add_test(te, test_errors_source_reused);
	tcase_add_test(te, test_errors_by_scope);
	tcase_add_test(te, test_every_event_cell_written);
	tcase_set_timeout(te, 60);
	suite_add_tcase(s, te);
	return s;
}

int main(void)
{
	return check_run(sampler_suite());
}
