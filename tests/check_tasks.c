/* check_tasks.c: per-task figures judged against the simulator's truth.
 * The simulated machine runs a task mix (sim_tasks.c: processes with
 * their own behaviour, sharing and migrating between CPUs, short-lived
 * ones that start and end mid-interval, in a few cgroups); the simulator
 * knows what each process really did in every event. For the ten
 * processes that used the most cycles in each interval, pmctop's cycles,
 * CPU time and IPC must fall within their stated 95 % interval in at
 * least 90 % of cases, and that interval must be narrow enough to mean
 * something. Also: cgroup rows are the sums of their processes, names
 * from outside never carry control bytes, and a CPU going offline costs
 * its samples, not the run. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "check_run.h"
#include "fixture.h"
#include "evdef.h"
#include "sampler.h"
#include "tasks.h"
#include "topo.h"
#include "util.h"

#define TOP 10
#define MAXPIDS 4096

struct rig {
	struct model *m;
	struct topo *t;
	struct sampler *s;
	struct backend *b;
	int view;
	int ev_cyc, ev_ins, ev_clk;
	int m_cyc, m_ipc, m_cpu;
};

static void rig_open(struct rig *r, const char *model, int shape[4], const char *arg, int freq)
{
	memset(r, 0, sizeof(*r));
	r->m = fx_model(model);
	r->view = model_find_view(r->m, "tasks");
	ck_assert_int_ge(r->view, 0);
	ck_assert(r->m->views[r->view].tasks);
	r->t = topo_synthetic(shape[0], shape[1], shape[2], shape[3]);
	const struct view_def *v = &r->m->views[r->view];
	int *cols = xmalloc(sizeof(int) * (size_t)v->ncols);
	for (int i = 0; i < v->ncols; i++)
		cols[i] = v->cols[i].metric;
	struct sampler_config cfg = fx_sampler_config(r->m, r->t, arg, 1.0);
	cfg.nmetrics = v->ncols;
	cfg.metrics = cols;
	cfg.ntask_metrics = v->ncols;
	cfg.task_metrics = cols;
	cfg.task_freq = freq;
	r->s = fx_sampler(&cfg);
	free(cols);
	r->b = sampler_backend(r->s);
	r->m_cyc = model_find_metric(r->m, "task_cycles");
	r->m_ipc = model_find_metric(r->m, "ipc");
	r->m_cpu = model_find_metric(r->m, "task_cpu");
	const struct metric_def *md = &r->m->metrics[r->m_ipc];
	/* ipc = instructions / cycles: its two events. */
	r->ev_ins = md->events[0];
	r->ev_cyc = md->events[1];
	if (strstr(r->m->events[r->ev_ins].name, "cyc"))
		r->ev_ins = md->events[1], r->ev_cyc = md->events[0];
	r->ev_clk = model_find_event(r->m, "task_clock");
	ck_assert_int_ge(r->ev_clk, 0);
}

static void rig_close(struct rig *r)
{
	sampler_free(r->s);
	topo_free(r->t);
	model_free(r->m);
}

static struct snapshot *rig_step(struct rig *r)
{
	struct snapshot *s = fx_step(r->s);
	ck_assert(s->tasks_on);
	return s;
}

static const struct snap_task *find_task(const struct snapshot *s, int pid)
{
	for (int i = 0; i < s->ntasks; i++)
		if (s->tasks[i].pid == pid)
			return &s->tasks[i];
	return NULL;
}

/* The truth of every pid at one moment, for differences. */
struct truth {
	int n;
	int pid[MAXPIDS];
	double cyc[MAXPIDS], ins[MAXPIDS], clk[MAXPIDS];
};

static void truth_take(struct rig *r, struct truth *t)
{
	t->n = sim_truth_pids(r->b, t->pid, MAXPIDS);
	for (int i = 0; i < t->n; i++) {
		t->cyc[i] = sim_truth_task(r->b, t->pid[i], r->ev_cyc);
		t->ins[i] = sim_truth_task(r->b, t->pid[i], r->ev_ins);
		t->clk[i] = sim_truth_task(r->b, t->pid[i], r->ev_clk);
	}
}

/* pid's index in t, -1 if t does not know it (it had not run yet). */
static int truth_index(const struct truth *t, int pid)
{
	for (int i = 0; i < t->n; i++)
		if (t->pid[i] == pid)
			return i;
	return -1;
}

struct score {
	long checked[3], covered[3];
	double rse_sum[3];
	long short_lived, missing;
};

/* Whether the stated 95 % interval of est covers truth. */
static bool covers(double est, double rse, double truth)
{
	if (isnan(est) || isnan(rse))
		return false;
	return fabs(est - truth) <= 1.96 * rse * fabs(est) + 1e-9 * fabs(truth);
}

struct delta { int pid; double cyc, ins, clk; };

static int by_cycles(const void *x, const void *y)
{
	const struct delta *a = x, *b = y;
	return (a->cyc < b->cyc) - (a->cyc > b->cyc);
}

static void judge_interval(struct rig *r, const struct snapshot *s, const struct truth *a,
			   const struct truth *b, struct score *sc)
{
	/* What each process really did in the interval; the ten that used
	 * the most cycles are judged. */
	struct delta *d = xcalloc((size_t)b->n + 1, sizeof(*d));
	int n = 0;
	for (int i = 0; i < b->n; i++) {
		if (b->pid[i] == 0)
			continue;
		int j = truth_index(a, b->pid[i]);
		d[n++] = (struct delta){ b->pid[i], b->cyc[i] - (j >= 0 ? a->cyc[j] : 0),
					 b->ins[i] - (j >= 0 ? a->ins[j] : 0), b->clk[i] - (j >= 0 ? a->clk[j] : 0) };
	}
	qsort(d, (size_t)n, sizeof(*d), by_cycles);
	for (int k = 0; k < n && k < TOP; k++) {
		if (d[k].pid >= 10000)
			sc->short_lived++;
		const struct snap_task *t = find_task(s, d[k].pid);
		if (!t) {
			sc->missing++;
			for (int j = 0; j < 3; j++)
				sc->checked[j]++;
			continue;
		}
		double est[3] = { t->metric[r->m_cyc] * s->measured_s, t->metric[r->m_ipc],
				  t->metric[r->m_cpu] / 100.0 * 1e9 * s->measured_s };
		double rse[3] = { t->metric_rse[r->m_cyc], t->metric_rse[r->m_ipc], t->metric_rse[r->m_cpu] };
		double tru[3] = { d[k].cyc, d[k].cyc > 0 ? d[k].ins / d[k].cyc : NAN, d[k].clk };
		for (int j = 0; j < 3; j++) {
			sc->checked[j]++;
			sc->covered[j] += covers(est[j], rse[j], tru[j]);
			sc->rse_sum[j] += isnan(rse[j]) ? 1 : rse[j];
		}
	}
	free(d);
}

static void run_truth(const char *model, int shape[4], const char *arg, int freq, int intervals,
		      struct score *sc)
{
	struct rig r;
	rig_open(&r, model, shape, arg, freq);
	struct truth *a = xcalloc(1, sizeof(*a)), *b = xcalloc(1, sizeof(*b));
	snapshot_free(rig_step(&r));    /* let the mix settle */
	truth_take(&r, a);
	for (int i = 0; i < intervals; i++) {
		struct snapshot *s = rig_step(&r);
		truth_take(&r, b);
		judge_interval(&r, s, a, b, sc);
		snapshot_free(s);
		struct truth *x = a; a = b; b = x;
	}
	free(a);
	free(b);
	rig_close(&r);
}

START_TEST(test_top_tasks_against_truth)
{
	static const char *const names[3] = { "cycles", "IPC", "CPU time" };
	struct score sc = { 0 };
	int shape1[4] = { 1, 2, 8, 2 }, shape2[4] = { 2, 2, 4, 2 };
	run_truth("amd-zen5", shape1, "zen5,nmi=0,seed=1", 1000, 12, &sc);
	run_truth("amd-zen5", shape1, "zen5,nmi=0,seed=7", 1000, 12, &sc);
	run_truth("amd-zen5", shape2, "zen5,nmi=0,seed=42", 1000, 12, &sc);
	run_truth("intel-spr", shape2, "spr,seed=3", 1000, 12, &sc);
	/* The rate a large machine gets by default (tasks.h), where runs of
	 * one sample are common. */
	run_truth("amd-zen5", shape2, "zen5,nmi=0,seed=11", 100, 12, &sc);
	run_truth("amd-zen5", shape1, "zen5,nmi=0,seed=12", 60, 12, &sc);
	for (int j = 0; j < 3; j++) {
		double cov = (double)sc.covered[j] / (double)sc.checked[j];
		double mean_rse = sc.rse_sum[j] / (double)sc.checked[j];
		fprintf(stderr, "check_tasks: %s: %ld of %ld top-10 task-intervals within the stated 95 %% interval (%.1f %%), mean relative error stated %.2f %%\n",
			names[j], sc.covered[j], sc.checked[j], 100 * cov, 100 * mean_rse);
		ck_assert_int_ge(sc.checked[j], 700);
		ck_assert_msg(cov >= 0.90, "%s: only %.1f %% covered", names[j], 100 * cov);
		/* An interval so wide it says nothing would cover anything. */
		ck_assert_msg(mean_rse < 0.10, "%s: stated errors too wide (%.1f %%)", names[j], 100 * mean_rse);
	}
	fprintf(stderr, "check_tasks: %ld of the judged were short-lived processes; %ld top tasks were missed\n",
		sc.short_lived, sc.missing);
	ck_assert_int_gt(sc.short_lived, 0);
	ck_assert_int_eq(sc.missing, 0);
}
END_TEST

/* Cgroup rows sum their processes; names are safe to print. */
START_TEST(test_cgroups_sum_and_names_are_clean)
{
	struct rig r;
	int shape[4] = { 1, 2, 8, 2 };
	rig_open(&r, "amd-zen5", shape, "zen5,nmi=0,seed=5", 1000);
	bool saw_hostile = false;
	for (int it = 0; it < 4; it++) {
		struct snapshot *s = rig_step(&r);
		ck_assert_int_gt(s->ntasks, 5);
		ck_assert_int_gt(s->ncgroups, 2);
		int procs = 0;
		for (int g = 0; g < s->ncgroups; g++) {
			const struct snap_task *cg = &s->cgroups[g];
			ck_assert_int_eq(cg->pid, -1);
			double sum = 0;
			int n = 0;
			for (int i = 0; i < s->ntasks; i++)
				if (!strcmp(s->tasks[i].cgroup, cg->cgroup)) {
					sum += s->tasks[i].metric[r.m_cyc];
					n++;
				}
			ck_assert_int_eq(n, cg->nprocs);
			ck_assert_msg(fabs(sum - cg->metric[r.m_cyc]) <= 1e-9 * fabs(sum), "cgroup %s: %g != %g",
				      cg->cgroup, cg->metric[r.m_cyc], sum);
			procs += cg->nprocs;
		}
		ck_assert_int_eq(procs, s->ntasks);
		/* The tree: every cgroup on the way to one with processes, by
		 * path, each summing all the processes in it and below it. */
		ck_assert_int_gt(s->ncgtree, s->ncgroups);
		ck_assert_str_eq(s->cgtree[0].cgroup, "/");
		for (int g = 0; g < s->ncgtree; g++) {
			const struct snap_task *cg = &s->cgtree[g];
			if (g > 0)
				ck_assert_int_lt(strcmp(s->cgtree[g - 1].cgroup, cg->cgroup), 0);
			size_t len = strlen(cg->cgroup);
			double sum = 0;
			int n = 0;
			for (int i = 0; i < s->ntasks; i++) {
				const char *p = s->tasks[i].cgroup;
				if (!strcmp(cg->cgroup, "/") ? p[0] == '/'
				    : !strncmp(p, cg->cgroup, len) && (p[len] == 0 || p[len] == '/')) {
					sum += s->tasks[i].metric[r.m_cyc];
					n++;
				}
			}
			ck_assert_msg(n > 0 && n == cg->nprocs, "tree %s: %d processes, says %d", cg->cgroup, n,
				      cg->nprocs);
			ck_assert_msg(fabs(sum - cg->metric[r.m_cyc]) <= 1e-9 * fabs(sum), "tree %s: %g != %g",
				      cg->cgroup, cg->metric[r.m_cyc], sum);
		}
		for (int i = 0; i < s->ntasks; i++) {
			const struct snap_task *t = &s->tasks[i];
			ck_assert_int_gt(t->pid, 0);   /* the idle task is not a row */
			ck_assert_int_eq(text_bad_at(t->comm), -1);
			ck_assert_int_eq(text_bad_at(t->cgroup), -1);
			saw_hostile |= strstr(t->comm, "pwned") != NULL;
			ck_assert_int_gt(t->ncpus, 0);
			double share = 0;
			for (int c = 0; c < t->ncpus; c++)
				share += t->cpu_share[c];
			ck_assert(fabs(share - 1) < 1e-9);
			/* Busiest first. */
			if (i > 0)
				ck_assert(t->metric[r.m_cpu] <= s->tasks[i - 1].metric[r.m_cpu]);
		}
		snapshot_free(s);
	}
	ck_assert(saw_hostile);
	rig_close(&r);
}
END_TEST

/* A CPU that goes away takes its samples with it, nothing else. */
START_TEST(test_cpu_offline_keeps_running)
{
	struct rig r;
	int shape[4] = { 1, 1, 2, 2 };
	rig_open(&r, "amd-zen5", shape, "zen5,nmi=0,seed=9", 1000);
	snapshot_free(rig_step(&r));
	struct sim_fault f = { .cpu = 2, .err = -ENODEV };
	sim_inject_fault(r.b, &f);
	for (int it = 0; it < 3; it++) {
		struct snapshot *s = rig_step(&r);
		for (int i = 0; i < s->ntasks; i++)
			for (int c = 0; c < s->tasks[i].ncpus; c++)
				if (it > 0)
					ck_assert_int_ne(s->tasks[i].cpus[c], 2);
		ck_assert_int_gt(s->ntasks, 0);
		snapshot_free(s);
	}
	rig_close(&r);
}
END_TEST

/* Events that do not fit are left out, said so, and leave the rest. */
START_TEST(test_counters_kept_for_cpu_figures)
{
	struct rig r;
	int shape[4] = { 1, 1, 2, 1 };
	/* With the watchdog on, Zen 5 has five counters; two stay with the
	 * CPU figures, so three hardware events are sampled. */
	rig_open(&r, "amd-zen5", shape, "zen5,seed=2", 1000);
	struct snapshot *s = rig_step(&r);
	ck_assert_ptr_nonnull(s->notice);
	ck_assert_ptr_nonnull(strstr(s->notice, "per-task: cannot sample"));
	ck_assert_ptr_nonnull(strstr(s->notice, "kept for the CPU figures"));
	int l2 = model_find_metric(r.m, "l2_mpki");
	/* Said per metric, for the dashboard to leave its column out. */
	ck_assert_ptr_nonnull(s->task_measured);
	ck_assert(!s->task_measured[l2]);
	ck_assert(s->task_measured[r.m_ipc]);
	bool some = false;
	for (int i = 0; i < s->ntasks; i++) {
		ck_assert(isnan(s->tasks[i].metric[l2]));
		some |= !isnan(s->tasks[i].metric[r.m_ipc]);
	}
	ck_assert(some);
	/* The CPU figures still run. */
	ck_assert(!isnan(snap_metric(s, &s->rows[SNAP_SYSTEM][0], r.m_ipc)));
	snapshot_free(s);
	rig_close(&r);
}
END_TEST

/* Stopping per-task sampling gives the counters back. */
START_TEST(test_request_off_and_on)
{
	struct rig r;
	int shape[4] = { 1, 1, 2, 1 };
	rig_open(&r, "amd-zen5", shape, "zen5,nmi=0,seed=4", 500);
	snapshot_free(rig_step(&r));
	sampler_request_tasks(r.s, 0, NULL);
	struct snapshot *s = fx_step(r.s);
	ck_assert(!s->tasks_on);
	ck_assert_int_eq(s->ntasks, 0);
	snapshot_free(s);
	int m = r.m_ipc;
	sampler_request_tasks(r.s, 1, &m);
	s = rig_step(&r);
	ck_assert_int_gt(s->ntasks, 0);
	ck_assert_int_eq(s->task_freq, 500);
	snapshot_free(s);
	rig_close(&r);
}
END_TEST

static Suite *tasks_suite(void)
{
	Suite *s = suite_create("tasks");
	TCase *tc = tcase_create("truth");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_top_tasks_against_truth);
	tcase_add_test(tc, test_cgroups_sum_and_names_are_clean);
	tcase_add_test(tc, test_cpu_offline_keeps_running);
	tcase_add_test(tc, test_counters_kept_for_cpu_figures);
	tcase_add_test(tc, test_request_off_and_on);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(tasks_suite());
}
