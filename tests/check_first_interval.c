/* check_first_interval.c: the first interval after a change is as right as
 * any other, in the dashboard's panels and in its history. The sampler
 * runs on its thread as in the dashboard (a new plan's first interval is
 * a quick quarter of a second; a request ends the interval under way) on
 * the simulated Zen 5, every CPU at constant rates, so the truth of every
 * figure is known for an interval of any length. The test switches the
 * view, the metric group, the extra events and the delay, and checks the
 * figures of the intervals that follow each switch: the CCX panel's L3
 * rate (ui_l3_rate, what panel_ccx.c draws), IPC per CPU and per CCX,
 * and what the history keeps of them (ui_history_add, as the screen
 * does). The panel divided the L3 accesses, already a rate, by the
 * interval once more: 3.45G/s instead of 759M/s after a view switch. */
#include "config.h"
#include <check.h>
#include "check_run.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend.h"
#include "evdef.h"
#include "history.h"
#include "sampler.h"
#include "snapshot.h"
#include "topo.h"
#include "ui_impl.h"
#include "util.h"

static struct model *model;
static struct topo *topo;
static struct ui u;
static struct ui_config cfg;
/* The CCX panel's L3 figures (its own, panel_ccx.c: the panels are drawn
 * with curses, not linked here): accesses, hit rate, miss latency. */
static int l3acc, l3hit, l3lat;

/* Per second: cycles and instructions per CPU, L3 accesses and hits per
 * CCX (on every CPU of it: the L3 instance is read on one of them). */
static double cyc_rate(int c) { return 1e9 * (1.0 + 0.25 * (c % 4)); }
static double ins_rate(int c) { return cyc_rate(c) * (0.5 + 0.3 * c); }
static double l3_rate(int ccx) { return 3e8 + 4e8 * ccx; }

static int event(const char *name)
{
	int e = model_find_event(model, name);
	ck_assert_msg(e >= 0, "no event %s", name);
	return e;
}

static int metric(const char *name)
{
	int i = model_find_metric(model, name);
	ck_assert_msg(i >= 0, "no metric %s", name);
	return i;
}

static void set_rates(struct backend *b)
{
	double *r = xmalloc(sizeof(double) * (size_t)model->nevents);
	for (int c = 0; c < topo->max_cpu; c++) {
		for (int e = 0; e < model->nevents; e++)
			r[e] = NAN;
		r[event("ls_not_halted_cyc")] = cyc_rate(c);
		r[event("ex_ret_instr")] = ins_rate(c);
		r[event("l3_lookup_state.all_coherent_accesses_to_l3")] = l3_rate(topo_cpu_by_num(topo, c)->ccx);
		r[event("l3_lookup_state.l3_hit")] = 0.5 * l3_rate(topo_cpu_by_num(topo, c)->ccx);
		sim_set_constant_rates(b, c, r);
	}
	free(r);
}

/* The simulated clock moves as fast as real time, so that a request
 * lands in an interval under way, as on real counters. */
static void slow_advance(struct backend *b, uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };
	nanosleep(&ts, NULL);
	backend_sim.advance(b, ns);
}

static void setup(void)
{
	char *cause = NULL;
	model = model_load_by_name(TOP_SRCDIR "/events", "amd-zen5", &cause);
	ck_assert_msg(model != NULL, "model: %s", cause ? cause : "?");
	topo = topo_synthetic(1, 2, 4, 2);
	ck_assert_ptr_nonnull(topo);
	memset(&u, 0, sizeof(u));
	u.cfg = &cfg;
	u.m = model;
	u.topo = topo;
	ui_find_metrics(&u);
	l3acc = model_find_metric(model, "l3_access_all");
	ck_assert_int_ge(l3acc, 0);
	l3hit = model_find_metric(model, "l3_hit_rate");
	l3lat = model_find_metric(model, "l3_miss_latency_ns");
	history_init(&u.hist, 64, 1 << 24);
}

static void teardown(void)
{
	history_done(&u.hist);
	free(u.message);
	topo_free(topo);
	model_free(model);
}

/* What the dashboard asks for in view v (ui_request): the view's columns
 * and bar and the panels' figures, its pins and the panels' L3 figures
 * pinned; with the metrics of group (a -g group), if any, instead. */
static void request(struct sampler *s, const char *view, const char *group, int nextra, const int *extra)
{
	int *ms = xmalloc(sizeof(int) * ((size_t)model->nmetrics + 8)), n = 0;
	int *pins = xmalloc(sizeof(int) * ((size_t)model->nmetrics + 8)), np = 0;
	const int panel[] = { u.m_util, u.m_ghz, u.m_ipc, l3acc, l3hit, l3lat };
	for (size_t i = 0; i < ARRAY_SIZE(panel); i++)
		if (panel[i] >= 0)
			ms[n++] = panel[i];
	if (view) {
		const struct view_def *v = &model->views[model_find_view(model, view)];
		for (int i = 0; i < v->ncols; i++)
			ms[n++] = v->cols[i].metric;
		for (int i = 0; i < v->nbar; i++)
			ms[n++] = v->bar[i];
		for (int i = 0; i < v->npin; i++)
			pins[np++] = v->pin[i];
	}
	for (int i = 0; group && i < model->nmetrics; i++)
		if (metric_in_group(&model->metrics[i], group))
			ms[n++] = i;
	pins[np++] = l3acc;
	pins[np++] = l3hit;
	sampler_request_pinned(s, n, ms, np, pins, nextra, extra);
	free(ms);
	free(pins);
}

static double mono_s(void)
{
	return (double)now_ns() * 1e-9;
}

/* The next snapshot, waiting for it at most limit_s. */
static struct snapshot *next_snapshot(struct snap_ring *ring, double limit_s)
{
	double t0 = mono_s();
	while (mono_s() - t0 < limit_s) {
		struct snapshot *s = snap_ring_pop(ring);
		if (s)
			return s;
		struct timespec ts = { 0, 2000000 };
		nanosleep(&ts, NULL);
	}
	ck_abort_msg("no snapshot in %g s", limit_s);
	return NULL;
}

static void assert_rel(double got, double want, double tol, const char *what, int row, const char *when)
{
	ck_assert_msg(!isnan(got) && fabs(got - want) <= tol * fabs(want),
		      "%s: %s of row %d is %.6g, truly %.6g (interval %s)", when, what, row, got, want, when);
}

/* Every figure of s that the panels and the table show here, against the
 * truth, and the same of what the history keeps of s. */
static void check_snapshot(struct snapshot *s, const char *when)
{
	u.snap = s;
	int ipc = u.m_ipc;
	for (int i = 0; i < s->nrows[SNAP_CCX]; i++) {
		const struct snap_row *r = &s->rows[SNAP_CCX][i];
		double cov = NAN, rse = NAN;
		assert_rel(ui_l3_rate(&u, -1, l3acc, r, &cov, &rse), l3_rate(r->id), 1e-4, "the CCX panel's L3 rate", r->id, when);
		ck_assert_msg(cov >= 0.999 && rse == 0, "%s: L3 rate of CCX %d: coverage %g, error %g", when, r->id,
			      cov, rse);
		double ci = 0, cc = 0;
		for (int c = 0; c < topo->max_cpu; c++)
			if (topo_cpu_by_num(topo, c)->ccx == r->id) {
				ci += ins_rate(c);
				cc += cyc_rate(c);
			}
		assert_rel(ui_metric(&u, r, ipc, NULL, NULL), ci / cc, 1e-4, "the CCX panel's IPC", r->id, when);
	}
	for (int i = 0; i < s->nrows[SNAP_CPU]; i++) {
		const struct snap_row *r = &s->rows[SNAP_CPU][i];
		double rse = NAN;
		assert_rel(ui_metric(&u, r, ipc, NULL, &rse), ins_rate(r->cpu) / cyc_rate(r->cpu), 1e-4, "IPC",
			   r->cpu, when);
		/* The basic view pins IPC: counted throughout, so exact. */
		if (s->metric_planned[u.m_util] && s->metric_planned[metric("l2_miss_rate")])
			ck_assert_msg(rse == 0, "%s: IPC of CPU %d is not counted throughout (error %g)", when, r->cpu,
				      rse);
	}
	/* The history, as the screen keeps it: a quick interval is not kept
	 * (its graphs are of one interval length); any other is, with the
	 * same figures. */
	int before = history_count(&u.hist);
	ui_history_add(&u, s);
	if (s->quick) {
		ck_assert_int_le(history_count(&u.hist), before);
		return;
	}
	ck_assert_int_ge(history_count(&u.hist), 1);
	double v[1];
	for (int i = 0; i < s->nrows[SNAP_CCX]; i++) {
		int id = s->rows[SNAP_CCX][i].id;
		ck_assert_int_eq(history_series(&u.hist, SNAP_CCX, id, l3acc, v, 1), 1);
		assert_rel(v[0], l3_rate(id), 1e-4, "the history's L3 rate", id, when);
	}
	for (int i = 0; i < s->nrows[SNAP_CPU]; i++) {
		int cpu = s->rows[SNAP_CPU][i].id;
		ck_assert_int_eq(history_series(&u.hist, SNAP_CPU, cpu, ipc, v, 1), 1);
		/* A CPU's row is kept as one 16-bit half: within 2^-11
		 * (docs/history.md), still far from the 4x error this
		 * test exists for; the CCX's above keep two. */
		assert_rel(v[0], ins_rate(cpu) / cyc_rate(cpu), 0x1p-11 + 1e-4, "the history's IPC", cpu, when);
	}
}

/* Checks the intervals after a change until one of the new plan (planned
 * says which: a metric the new request has and the old one lacks, or -1)
 * that is a whole one has been checked; returns how many were checked. */
static int check_after(struct snap_ring *ring, const char *when, int planned, double interval_s)
{
	int n = 0;
	for (;;) {
		struct snapshot *s = next_snapshot(ring, 10);
		check_snapshot(s, when);
		n++;
		bool done = !s->quick && (planned < 0 || s->metric_planned[planned]) &&
			    fabs(s->interval_s - interval_s) < 1e-9;
		snapshot_free(s);
		if (done)
			return n;
		ck_assert_msg(n < 6, "%s: no whole interval of the new plan after %d", when, n);
	}
}

START_TEST(test_first_interval_after_changes)
{
	struct pmu_backend_ops slow = backend_sim;
	slow.advance = slow_advance;
	int ipc = u.m_ipc;
	struct sampler_config sc = {
		.model = model, .topo = topo, .ops = &slow, .backend_arg = "seed=3",
		.interval_s = 0.6, .nmetrics = 1, .metrics = &ipc,
	};
	char *cause = NULL;
	struct sampler *s = sampler_new(&sc, &cause);
	ck_assert_msg(s != NULL, "sampler: %s", cause ? cause : "?");
	set_rates(sampler_backend(s));
	request(s, "basic", NULL, 0, NULL);
	struct snap_ring ring;
	snap_ring_init(&ring);
	ck_assert_int_eq(sampler_start(s, &ring, &cause), 0);
	/* The first plan, and a whole interval of it. */
	check_after(&ring, "start", metric("l2_miss_rate"), 0.6);
	struct timespec mid = { 0, 200000000 };
	/* View: topdown (as the key 2 does), in mid-interval. */
	nanosleep(&mid, NULL);
	request(s, "topdown", NULL, 0, NULL);
	ck_assert_int_ge(check_after(&ring, "after a view switch", metric("frontend_bound"), 0.6), 2);
	/* A metric group (-g l3 or the group picker). */
	nanosleep(&mid, NULL);
	request(s, NULL, "l3", 0, NULL);
	ck_assert_int_ge(check_after(&ring, "after a group switch", metric("l3_miss_rate"), 0.6), 2);
	/* An extra event column (the event picker). */
	nanosleep(&mid, NULL);
	int extra[] = { event("ex_ret_brn") };
	request(s, NULL, "l3", 1, extra);
	check_after(&ring, "after an event was added", -1, 0.6);
	/* Another delay (the d key). */
	nanosleep(&mid, NULL);
	sampler_set_interval(s, 0.8);
	check_after(&ring, "after a delay change", -1, 0.8);
	sampler_stop(s);
	struct snapshot *left;
	while ((left = snap_ring_pop(&ring)) != NULL)
		snapshot_free(left);
	snap_ring_done(&ring);
	sampler_free(s);
}
END_TEST

int main(void)
{
	Suite *su = suite_create("first_interval");
	TCase *tc = tcase_create("core");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_first_interval_after_changes);
	suite_add_tcase(su, tc);
	return check_run(su);
}
