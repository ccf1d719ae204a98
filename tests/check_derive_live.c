/* check_derive_live.c: what the derivation keeps from one interval to the
 * next (derive_live: the snapshot's columns, the metric tasks of each
 * scope, the metrics that read no counter) is worked out again whenever
 * what it follows from changes, and every interval's figures are those
 * of a derivation from scratch, to the bit. The sampler runs on the
 * simulated Zen 5, with the core PMU absent (most metrics then read no
 * counter, as on a VM without a PMU) and present; each interval's input
 * is derived again with no cache (the -w hook hands it over), and with a
 * cache of the test's own that sees every plan, and every
 * cell compared: values, coverages and errors, those of rows whose errors
 * are found when read included. Between intervals the plan changes (the
 * metrics requested), the interval changes (the window sets' samples:
 * enough for an error or not, the plan the same), a CPU goes offline and
 * a counter read fails. */
#include "config.h"
#include <check.h>
#include "check_run.h"
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "derive.h"
#include "evdef.h"
#include "fixture.h"
#include "sampler.h"
#include "snapshot.h"
#include "topo.h"
#include "util.h"

static int compared;

/* The same double to the bit. */
static void same_bits(double a, double b, const char *what, int sc, int r, int c)
{
	ck_assert_msg(!memcmp(&a, &b, sizeof(a)), "%s of scope %d row %d column %d: %.17g cached, %.17g fresh", what,
		      sc, r, c, a, b);
}

/* A cache of the test's own, kept across the sampler's plans (the
 * sampler lets its own go at each new plan): only the plan's
 * generation tells it that the plan changed. */
static struct derive_cache own;

/* Every figure of snap (a derivation with a cache) against fresh's. */
static void compare(const struct derive_input *in, const struct snapshot *snap, const struct snapshot *fresh)
{
	ck_assert_int_eq(snap->nmcols, fresh->nmcols);
	ck_assert_int_eq(snap->necols, fresh->necols);
	const struct model *m = in->model;
	ck_assert(!memcmp(snap->mcol, fresh->mcol, sizeof(int) * (size_t)m->nmetrics));
	ck_assert(!memcmp(snap->ecol, fresh->ecol, sizeof(int) * (size_t)m->nevents));
	ck_assert(!memcmp(snap->metric_planned, fresh->metric_planned, sizeof(bool) * (size_t)m->nmetrics));
	ck_assert(!memcmp(snap->event_planned, fresh->event_planned, sizeof(bool) * (size_t)m->nevents));
	for (int sc = 0; sc < SNAP_NSCOPES; sc++) {
		ck_assert_int_eq(snap->nrows[sc], fresh->nrows[sc]);
		for (int r = 0; r < snap->nrows[sc]; r++) {
			const struct snap_row *a = &snap->rows[sc][r], *b = &fresh->rows[sc][r];
			ck_assert(!b->errors_deferred);
			const double *amrse = snap_row_mrse(snap, a), *aerse = snap_row_erse(snap, a);
			ck_assert_ptr_nonnull(amrse);
			ck_assert_ptr_nonnull(aerse);
			for (int c = 0; c < snap->nmcols; c++) {
				same_bits(a->mv[c], b->mv[c], "metric value", sc, r, c);
				same_bits(a->mcov[c], b->mcov[c], "metric coverage", sc, r, c);
				same_bits(amrse[c], b->mrse[c], "metric error", sc, r, c);
			}
			for (int c = 0; c < snap->necols; c++) {
				same_bits(a->ev[c], b->ev[c], "event value", sc, r, c);
				same_bits(a->ecov[c], b->ecov[c], "event coverage", sc, r, c);
				same_bits(aerse[c], b->erse[c], "event error", sc, r, c);
			}
		}
	}
}

/* The sampler's snapshot and one derived with the test's cache, against
 * one derived from scratch. */
static void hook(void *arg, const struct derive_input *in, struct snapshot *snap)
{
	(void)arg;
	ck_assert_ptr_null(in->cache);
	struct snapshot *fresh = derive_snapshot(in);
	compare(in, snap, fresh);
	struct derive_input kept = *in;
	kept.cache = &own;
	struct snapshot *again = derive_snapshot(&kept);
	compare(in, again, fresh);
	snapshot_free(again);
	snapshot_free(fresh);
	compared++;
}

static struct model *model;
static struct topo *topo;
static struct sampler *smp;
static int *all, nall;

/* A sampler of every metric on shape, the simulator's argument arg, its
 * CPU rows' errors left to be found when read (as batch output and the
 * dashboard leave some). */
static const bool *filter;   /* -C, or NULL */

static void start(const char *shape, const char *arg)
{
	model = fx_model("amd-zen5");
	topo = fx_topo(shape);
	all = fx_all_metrics(model);
	nall = model->nmetrics;
	struct sampler_config cfg = fx_sampler_config(model, topo, arg, 0.5);
	cfg.rotate_ms = 20;
	cfg.nmetrics = nall;
	cfg.metrics = all;
	cfg.shown_event_errors = true;
	cfg.errors_later[SNAP_CPU] = true;
	cfg.errors_later[SNAP_CORE] = true;
	cfg.cpu_filter = filter;
	smp = fx_sampler(&cfg);
	sampler_record(smp, hook, NULL);
	compared = 0;
}

static void stop(void)
{
	derive_cache_done(&own);
	sampler_free(smp);
	free(all);
	topo_free(topo);
	model_free(model);
}

static void steps(int n)
{
	for (int i = 0; i < n; i++)
		snapshot_free(fx_step(smp));
}

/* The metrics of view `name`. */
static int view_metrics(const char *name, int *out)
{
	int v = model_find_view(model, name);
	ck_assert_int_ge(v, 0);
	int n = 0;
	for (int i = 0; i < model->views[v].ncols; i++)
		if (model->views[v].cols[i].metric >= 0)
			out[n++] = model->views[v].cols[i].metric;
	return n;
}

/* The plan changes under the cache: every metric, a view's, every metric
 * again; with the core PMU absent, most of them read no counter. */
static void plan_switch(const char *shape, const char *arg)
{
	start(shape, arg);
	steps(2);
	int *some = xmalloc(sizeof(int) * ((size_t)nall + 1));
	int n = view_metrics("basic", some);
	int ev[] = { model_find_event(model, "ex_ret_brn") };
	ck_assert_int_ge(ev[0], 0);
	sampler_request(smp, n, some, 1, ev);
	steps(2);
	sampler_request(smp, nall, all, 0, NULL);
	steps(2);
	/* Every metric but one whose events others read too: the same
	 * events, with the same columns and sets, a plan of its own. */
	int ipc = model_find_metric(model, "ipc"), k = 0;
	ck_assert_int_ge(ipc, 0);
	for (int i = 0; i < nall; i++)
		if (all[i] != ipc)
			some[k++] = all[i];
	sampler_request(smp, k, some, 0, NULL);
	steps(2);
	free(some);
	ck_assert_int_eq(compared, 8);
	stop();
}

/* A snapshot keeps its plan's column maps and masks (the live list's,
 * held, not copied) after the plan and its live list are gone, as the
 * dashboard's history keeps snapshots: they read as when it was made
 * (under AddressSanitizer, a use after their free fails here). */
START_TEST(test_snapshot_outlives_plan)
{
	start("1x2x4x2", "seed=3,absent=core");
	steps(1);
	struct snapshot *kept = fx_step(smp);
	size_t nm = (size_t)model->nmetrics, ne = (size_t)model->nevents;
	int *mcol = xmalloc(sizeof(int) * nm), *ecol = xmalloc(sizeof(int) * ne);
	bool *mp = xmalloc(nm), *ep = xmalloc(ne);
	memcpy(mcol, kept->mcol, sizeof(int) * nm);
	memcpy(ecol, kept->ecol, sizeof(int) * ne);
	memcpy(mp, kept->metric_planned, nm);
	memcpy(ep, kept->event_planned, ne);
	int ncols = kept->nmcols;
	int *some = xmalloc(sizeof(int) * ((size_t)nall + 1));
	int n = view_metrics("basic", some);
	sampler_request(smp, n, some, 0, NULL);
	steps(2);
	/* Another plan's maps, and a different number of columns. */
	struct snapshot *now = fx_step(smp);
	ck_assert_int_ne(now->nmcols, ncols);
	snapshot_free(now);
	derive_cache_done(&own);
	ck_assert_int_eq(kept->nmcols, ncols);
	ck_assert(!memcmp(mcol, kept->mcol, sizeof(int) * nm));
	ck_assert(!memcmp(ecol, kept->ecol, sizeof(int) * ne));
	ck_assert(!memcmp(mp, kept->metric_planned, nm));
	ck_assert(!memcmp(ep, kept->event_planned, ne));
	for (size_t i = 0; i < nm; i++)
		if (mp[i])
			ck_assert_int_ge(snap_mcol(kept, (int)i), 0);
	snapshot_free(kept);
	free(some);
	free(mcol);
	free(ecol);
	free(mp);
	free(ep);
	stop();
}
END_TEST

START_TEST(test_plan_switch_no_core)
{
	plan_switch("1x1x1x2", "seed=3,absent=core");
}
END_TEST

START_TEST(test_plan_switch_no_core_16)
{
	plan_switch("1x2x4x2", "seed=3,absent=core");
}
END_TEST

START_TEST(test_plan_switch)
{
	plan_switch("1x2x4x2", "seed=3");
}
END_TEST

/* The plan stays (a view's metrics, a few groups); the interval goes
 * from 40 ms (two windows of 20 ms: no set has samples enough for an
 * error) to 0.5 s (25 windows: the sets of one group have) and back. The metrics of a set
 * of one group move between the tasks read row by row and those
 * evaluated over all rows at once. */
START_TEST(test_interval_change)
{
	start("1x2x4x2", "seed=5");
	int *some = xmalloc(sizeof(int) * ((size_t)nall + 1));
	sampler_request(smp, view_metrics("basic", some), some, 0, NULL);
	free(some);
	sampler_set_interval(smp, 0.04);
	steps(2);
	sampler_set_interval(smp, 0.5);
	steps(2);
	sampler_set_interval(smp, 0.04);
	steps(2);
	ck_assert_int_eq(compared, 6);
	stop();
}
END_TEST

/* A CPU goes offline (its rows go, and the rows above it hold one CPU
 * less), and a counter read fails once. */
START_TEST(test_hotplug_and_failure)
{
	start("1x2x4x2", "seed=7");
	steps(2);
	sim_inject_fault(sampler_backend(smp), &(struct sim_fault){ .cpu = 5, .err = -ENODEV });
	steps(2);
	sim_inject_fault(sampler_backend(smp), &(struct sim_fault){ .cpu = 2, .err = -EIO });
	steps(2);
	ck_assert_int_eq(compared, 6);
	stop();
}
END_TEST

/* The same on the VM's shape with the core PMU absent. */
START_TEST(test_hotplug_no_core)
{
	start("1x1x2x2", "seed=7,absent=core");
	steps(2);
	sim_inject_fault(sampler_backend(smp), &(struct sim_fault){ .cpu = 3, .err = -ENODEV });
	steps(2);
	sampler_set_interval(smp, 0.04);
	steps(2);
	ck_assert_int_eq(compared, 6);
	stop();
}
END_TEST

/* -C leaves CPU 3 out: core 1, the CCX, the socket and the system rows
 * are partial, and the metrics that a partial row cannot show keep
 * nothing there, those that read no counter included. */
START_TEST(test_cpu_filter_no_core)
{
	static const bool some[4] = { true, true, true, false };
	filter = some;
	start("1x1x2x2", "seed=9,absent=core");
	steps(2);
	int *few = xmalloc(sizeof(int) * ((size_t)nall + 1));
	sampler_request(smp, view_metrics("basic", few), few, 0, NULL);
	free(few);
	steps(2);
	ck_assert_int_eq(compared, 4);
	stop();
	filter = NULL;
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("derive_live");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_plan_switch_no_core);
	tcase_add_test(tc, test_snapshot_outlives_plan);
	tcase_add_test(tc, test_plan_switch_no_core_16);
	tcase_add_test(tc, test_plan_switch);
	tcase_add_test(tc, test_interval_change);
	tcase_add_test(tc, test_hotplug_and_failure);
	tcase_add_test(tc, test_hotplug_no_core);
	tcase_add_test(tc, test_cpu_filter_no_core);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(suite());
}
