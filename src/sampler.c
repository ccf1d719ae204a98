/* sampler.c: the measuring loop; it runs the counters and nothing else.
 * This file holds its interface, its thread and the hand-off of requests
 * from other threads; sampler_open.c opens a plan, sampler_read.c reads
 * and rotates the counters and builds each interval's snapshot.
 *
 * Per refresh interval the sampler
 *   1. rotates the scheduled groups itself: on each PMU exactly one group is
 *      enabled at a time and the next one takes over every rotation slot.
 *      The number of slots per interval is a multiple of the PMU's group
 *      count, so every group runs for the same share (1/ngroups) of every
 *      interval; with three rounds or more the interval ends with a tail
 *      round, one short window of every group, a witness of changes after
 *      each group's last window (sampler_read.c, plan_tail). Kernel
 *      multiplexing gives no such guarantee and its order
 *      is not ours to choose, so this is the default; with
 *      SAMPLER_ROTATE_KERNEL (--rotate kernel) every group is enabled at
 *      open instead and the kernel rotates them on each CPU with its own
 *      timer: no ioctls between reads, which matters on machines with many
 *      CPUs, and coverage becomes what each group was given (measured, not
 *      planned). Step 2 is the same in both modes;
 *   2. reads each group when its rotation window closes (the outgoing
 *      group, right after it is disabled; the last one at the end of the
 *      interval), so that every window is one sample of the group's rates.
 *      Counts and running times are kept per group, per instance, for the
 *      interval and per bucket of windows (SAMPLER_MAX_BUCKETS), because a
 *      ratio is only exact within one group's windows and the spread of
 *      the samples is what says how far the interval's estimate can be
 *      trusted. When the kernel rotates, the groups are read at
 *      SAMPLER_KERNEL_READS points of the interval instead. Each event is
 *      also pooled over all of its groups, as sum(count) * interval /
 *      sum(time_running); its coverage is sum(time_running) / interval. An
 *      event that did not run at all is NaN, never 0;
 *   3. hands those per-instance scaled counts to derive.c, which sums them
 *      per CPU, core, CCX, socket and system and only then evaluates each
 *      metric's formula on the sums (aggregates from summed raw counts,
 *      never an average of ratios). Measuring and deriving are apart so
 *      that each can be read, and tested, without the other.
 * On the simulated backend time is advanced with ops->advance; on the perf
 * backend the loop sleeps to absolute CLOCK_MONOTONIC deadlines, so that
 * the time spent reading does not stretch the interval. */
#include "config.h"
#include "sampler.h"
#include "derive.h"
#include "derive_tree.h"
#include "sampler_companion.h"
#include "sampler_energy.h"
#include "sampler_impl.h"
#include "tasks.h"
#include "util.h"
#include "hot_path.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double thread_cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* --- public interface --- */

static int *dup_ints(const int *a, int n)
{
	int *p = xmalloc(sizeof(int) * ((size_t)n + 1));
	if (n > 0)
		memcpy(p, a, sizeof(int) * (size_t)n);
	return p;
}

struct sampler *sampler_new(const struct sampler_config *cfg, char **cause)
{
	if (!cfg || !cfg->model || !cfg->topo || !cfg->ops)
		return set_cause(cause, "sampler needs a model, a topology and a backend"), NULL;
	if (!(cfg->interval_s > 0))
		return set_cause(cause, "the refresh interval must be positive"), NULL;
	struct sampler *s = xcalloc(1, sizeof(*s));
	s->cfg = *cfg;
	s->backend_arg = cfg->backend_arg ? xstrdup(cfg->backend_arg) : NULL;
	s->cfg.backend_arg = s->backend_arg;
	if (cfg->cpu_filter) {
		s->cpu_filter = xmalloc((size_t)cfg->topo->max_cpu + 1);
		memcpy(s->cpu_filter, cfg->cpu_filter, (size_t)cfg->topo->max_cpu);
		s->cfg.cpu_filter = s->cpu_filter;
	}
	s->nmetrics = cfg->nmetrics > 0 ? cfg->nmetrics : 0;
	s->nevents = cfg->nevents > 0 ? cfg->nevents : 0;
	s->metrics = dup_ints(cfg->metrics, s->nmetrics);
	s->npinned = cfg->npinned > 0 && cfg->pinned ? cfg->npinned : 0;
	s->pinned = dup_ints(cfg->pinned, s->npinned);
	s->events = dup_ints(cfg->events, s->nevents);
	s->ntm = cfg->ntask_metrics > 0 ? cfg->ntask_metrics : 0;
	s->tm = dup_ints(cfg->task_metrics, s->ntm);
	s->interval_s = cfg->interval_s;
	s->kernel_mux = cfg->rotate_ms < 0;
	s->rotate_ms = cfg->rotate_ms > 0 ? cfg->rotate_ms : SAMPLER_DEFAULT_ROTATE_MS;
	pthread_mutex_init(&s->mu, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->cond, &ca);
	pthread_condattr_destroy(&ca);
	atomic_init(&s->cut, false);
	/* A private copy: CPUs going offline and coming back change it, and the
	 * screen's thread must never see it change under its feet. */
	s->topo = topo_clone(cfg->topo);
	s->bk = cfg->ops->create(cfg->model, s->topo, s->backend_arg, cause);
	if (!s->bk)
		goto fail;
	s->max_ghz = cfg->ops->max_ghz ? cfg->ops->max_ghz(s->bk) : 0;
	if (sampler_open_all(s, cause) < 0)
		goto fail;
	return s;
fail:
	sampler_free(s);
	return NULL;
}

void sampler_free(struct sampler *s)
{
	if (!s)
		return;
	sampler_stop(s);
	if (s->bk) {
		sampler_close_all(s);
		s->cfg.ops->destroy(s->bk);
	}
	sched_plan_free(s->plan);
	topo_free(s->topo);
	free(s->metrics);
	free(s->events);
	free(s->pinned);
	free(s->p_metrics);
	free(s->p_events);
	free(s->p_pinned);
	free(s->tm);
	free(s->p_tm);
	free(s->notice);
	snap_note_release(s->note);
	free(s->energy_said);
	free(s->event_errors);
	free(s->offline);
	free(s->cpu_filter);
	free(s->backend_arg);
	free(s->dpmus);
	free(s->dgroups);
	topo_free(s->rec_topo);
	for (int sc = 0; sc < SNAP_NSCOPES; sc++) {
		free(s->p_want[sc]);
		free((void *)s->want.rows[sc]);
	}
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->cond);
	free(s);
}

/* The kernel time the backend models for the calls made so far, where it
 * models it (backend.h, kernel_ns); NaN on real counters. */
static double modelled_kernel_s(struct sampler *s)
{
	return s->cfg.ops->kernel_ns ? (double)s->cfg.ops->kernel_ns(s->bk) * 1e-9 : NAN;
}

/* Takes what other threads asked for since the last step: a new request
 * (true: re-plan), the delay (*interval_s) and whether a pause ended
 * (*resync). */
static bool take_requests(struct sampler *s, double *interval_s, bool *resync)
{
	bool replan = false;
	pthread_mutex_lock(&s->mu);
	if (s->pending) {
		free(s->metrics);
		free(s->events);
		free(s->pinned);
		s->metrics = s->p_metrics;
		s->events = s->p_events;
		s->pinned = s->p_pinned;
		s->nmetrics = s->p_nmetrics;
		s->nevents = s->p_nevents;
		s->npinned = s->p_npinned;
		s->p_metrics = s->p_events = s->p_pinned = NULL;
		s->pending = false;
		replan = true;
	}
	if (s->p_tasks) {
		free(s->tm);
		s->tm = s->p_tm;
		s->ntm = s->p_ntm;
		s->p_tm = NULL;
		s->p_tasks = false;
		replan = true;
	}
	*interval_s = s->interval_s;
	*resync = s->resync;
	s->resync = false;
	pthread_mutex_unlock(&s->mu);
	return replan;
}

/* CPUs that came back during the interval were not counted in it: said
 * so in snap, counted from the next one (a re-plan opens them). */
HOT_PATH static void note_returning(struct sampler *s, struct snapshot *snap)
{
	int back[64];
	int nback = s->opened ? topo_poll_online(s->topo, back, (int)ARRAY_SIZE(back)) : 0;
	if (nback <= 0)
		return;
	s->returned = true;
	snap->nreturning = nback;
	snap->returning = xmalloc(sizeof(int) * (size_t)nback);
	memcpy(snap->returning, back, sizeof(int) * (size_t)nback);
	/* Each CPU in one list: back is what it is now. */
	int k = 0;
	for (int i = 0; i < snap->noffline; i++) {
		bool is_back = false;
		for (int j = 0; j < nback; j++)
			is_back |= snap->offline[i] == back[j];
		if (!is_back)
			snap->offline[k++] = snap->offline[i];
	}
	snap->noffline = k;
}

/* Every rotation costs two ioctls per CPU and PMU, each a cross-CPU call
 * in the kernel (docs/performance.md). When that pushes pmctop's own CPU
 * time over its budget, rotate half as often: coverage stays exact, only
 * the sampling of short phases gets coarser. On the simulator the
 * kernel's time is the one it models: the thread's CPU time there is
 * mostly the simulation, and grows with a slow build. cost_s: the
 * interval's own CPU time; kernel0: the modelled kernel time before it. */
static void keep_to_budget(struct sampler *s, double measured_s, double interval_s, double cost_s, double kernel0)
{
	double cost = s->cfg.ops->kernel_ns ? modelled_kernel_s(s) - kernel0 : cost_s;
	double used = measured_s > 0 ? cost / measured_s : 0;
	double budget = s->cfg.cost_budget > 0 ? s->cfg.cost_budget : SAMPLER_COST_BUDGET;
	if (used > budget && s->rotate_ms * 2 <= interval_s * 1e3)
		s->rotate_ms *= 2;
}

/* Whether this step reads the thread's CPU clock: where its figure is
 * published (report_cost: the exporter's pmctop_sampler_cpu_seconds_total),
 * recorded (-w's cost_s), or may slow pmctop's own rotation down
 * (keep_to_budget: real counters, some PMU with groups of its own to
 * rotate; the simulator's budget reads the kernel it models). A read of
 * a CPU-time clock is a system call (the vDSO has none), and on a kernel
 * with page-table isolation each one empties the TLB the code after it
 * then refills: without them, a batch interval of 2 CPUs spent 50 us
 * after its /proc/stat read, against 68-78 us with them
 * (docs/performance.md, "The clock reads"). */
static bool cost_wanted(const struct sampler *s)
{
	if (s->cfg.report_cost || s->cfg.on_record)
		return true;
	if (s->cfg.ops->kernel_ns || s->kernel_mux || !s->ps)
		return false;
	for (int p = 0; p < s->cfg.model->npmus; p++)
		if (s->ps[p].available && s->ps[p].ngroups > 1)
			return true;
	return false;
}

HOT_PATH static struct snapshot *step(struct sampler *s, bool check_stop, char **cause)
{
	/* NaN where not measured (cost_wanted): no output shows it then. */
	bool measure = cost_wanted(s);
	double cpu0 = measure ? thread_cpu_s() : NAN, kernel0 = modelled_kernel_s(s);
	double interval_s;
	bool resync;
	bool replan = take_requests(s, &interval_s, &resync);

	/* A CPU that went offline and came back is counted again: the groups
	 * are opened afresh, since the kernel's old ones stay dead. */
	if (s->returned) {
		s->returned = false;
		replan = true;
	}

	/* Every open here is a re-plan (sampler_new opened the first plan),
	 * or another try after one failed: a failure is an interval with
	 * nothing counted that says why, and the next step tries again. */
	bool first_open = !s->opened;
	if (replan || !s->opened) {
		sampler_close_all(s);
		char *why = NULL;
		if (sampler_open_all(s, &why) < 0) {
			uint64_t flen = (uint64_t)llround(interval_s * 1e9);
			struct snapshot *snap = sampler_plan_failed(s, flen ? flen : 1, check_stop, why ? why : "unknown error");
			free(why);
			if (!snap)
				goto stopped;
			snap->interval_s = interval_s;
			snap->sampler_cost_s = measure ? thread_cpu_s() - cpu0 : NAN;
			return snap;
		}
		free(why);
	} else if (resync) {
		/* After a pause: forget what was counted meanwhile. */
		sampler_read_all(s, true);
		s->t_start = sampler_clock_now(s);
	}

	/* In the dashboard (the publishing thread), a new plan's first
	 * interval is short: its figures come at once, with the coverage and
	 * uncertainty of a short interval, instead of after a whole delay. */
	bool quick = check_stop && (replan || first_open) && interval_s > 2 * SAMPLER_QUICK_S;
	double run_s = quick ? SAMPLER_QUICK_S : interval_s;
	uint64_t len = (uint64_t)llround(run_s * 1e9);
	if (len == 0)
		len = 1;
	if (!sampler_run_interval(s, len, check_stop))
		goto stopped;
	uint64_t t_end = sampler_clock_now(s);
	double measured_s = (double)(t_end - s->t_start) * 1e-9;
	/* Ended early by a request (a view switch, a pause, a new delay): on
	 * real counters nearly every such request lands mid-interval. */
	bool cut = t_end < s->t_start + len;
	s->t_start = t_end;
	sampler_read_all(s, false);
	sampler_reopen_moved(s);
	struct snapshot *snap = sampler_build_snapshot(s, measured_s > 0 ? measured_s : run_s);
	snap->quick = quick || cut;
	snap->interval_s = interval_s;
	if (s->tasks)
		tasks_finish(s->tasks, snap, measured_s > 0 ? measured_s : run_s);
	note_returning(s, snap);
	snap->sampler_cost_s = measure ? thread_cpu_s() - cpu0 : NAN;
	/* 0 says "the kernel rotates" to the outputs. */
	snap->rotate_ms = s->kernel_mux ? 0 : s->rotate_ms;
	/* The snapshot is complete: -w records it with what it was made of. */
	if (s->cfg.on_record)
		s->cfg.on_record(s->cfg.record_arg, &s->rec_in, snap);
	if (!s->kernel_mux)    /* else no rotation of ours to slow down */
		keep_to_budget(s, measured_s, run_s, snap->sampler_cost_s, kernel0);
	return snap;

stopped:
	set_cause(cause, "stopped");
	pthread_mutex_lock(&s->mu);
	s->resync = true;
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

void sampler_record(struct sampler *s, void (*fn)(void *arg, const struct derive_input *in,
						  struct snapshot *snap), void *arg)
{
	s->cfg.on_record = fn;
	s->cfg.record_arg = arg;
}

HOT_PATH struct snapshot *sampler_step(struct sampler *s, char **cause)
{
	if (!s)
		return set_cause(cause, "no sampler"), NULL;
	return step(s, false, cause);
}

/* The publishing thread. On the simulated backend a step takes no real
 * time, so the thread waits out the interval in real time before it
 * publishes: a --sim screen refreshes at the rate the user asked for,
 * and its first figures come after one interval, as on real counters. A
 * new delay or a pause ends that wait, as it ends a real interval. */
static void *sampler_thread(void *arg)
{
	struct sampler *s = arg;
	for (;;) {
		pthread_mutex_lock(&s->mu);
		while (s->paused && !s->stop)
			pthread_cond_wait(&s->cond, &s->mu);
		bool st = s->stop;
		double interval_s = s->interval_s;
		pthread_mutex_unlock(&s->mu);
		if (st)
			break;
		uint64_t t0 = now_ns();
		/* NULL only when stopped: a failure is a snapshot that says so. */
		char *cause = NULL;
		struct snapshot *snap = step(s, true, &cause);
		free(cause);
		if (snap && snap->quick)
			interval_s = snap->measured_s;
		uint64_t deadline = t0 + (uint64_t)llround(interval_s * 1e9);
		if (!snap || s->cfg.ops->advance) {
			uint64_t now = now_ns();
			if (!snap && deadline < now + 100000000ull)
				deadline = now + 100000000ull;   /* an error: do not spin */
			struct timespec until = sampler_mono_ts(deadline);
			pthread_mutex_lock(&s->mu);
			while (!s->stop && !atomic_load(&s->cut) &&
			       pthread_cond_timedwait(&s->cond, &s->mu, &until) != ETIMEDOUT)
				;
			pthread_mutex_unlock(&s->mu);
		}
		atomic_store(&s->cut, false);
		if (snap && s->cfg.on_publish)
			s->cfg.on_publish(s->cfg.publish_arg, snap);
		if (snap)
			snap_ring_push(s->ring, snap);
	}
	return NULL;
}

int sampler_start(struct sampler *s, struct snap_ring *ring, char **cause)
{
	if (!s || !ring)
		return set_cause(cause, "no sampler or ring");
	if (s->thread_running)
		return set_cause(cause, "the sampler is already running");
	s->ring = ring;
	s->stop = false;
	/* Set before the thread exists: the thread reads it (wait_until). */
	s->thread_running = true;
	/* Signals go to the main thread only: a handler run on this thread
	 * would set the screen's flags behind its back (a data race). */
	sigset_t old;
	signals_block_async(&old);
	int rc = pthread_create(&s->thread, NULL, sampler_thread, s);
	signals_restore(&old);
	if (rc != 0) {
		s->thread_running = false;
		return set_cause(cause, "cannot start the sampler thread: %s", strerror(rc));
	}
	return 0;
}

void sampler_stop(struct sampler *s)
{
	if (!s || !s->thread_running)
		return;
	pthread_mutex_lock(&s->mu);
	s->stop = true;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->mu);
	pthread_join(s->thread, NULL);
	s->thread_running = false;
}

void sampler_want_errors(struct sampler *s, const struct derive_want *want)
{
	if (!s || !want)
		return;
	bool *rows[SNAP_NSCOPES];
	for (int sc = 0; sc < SNAP_NSCOPES; sc++) {
		int n = want->rows[sc] && want->nrows[sc] > 0 ? want->nrows[sc] : 0;
		rows[sc] = n ? xmalloc((size_t)n) : NULL;
		if (n)
			memcpy(rows[sc], want->rows[sc], (size_t)n);
	}
	pthread_mutex_lock(&s->mu);
	for (int sc = 0; sc < SNAP_NSCOPES; sc++) {
		free(s->p_want[sc]);
		s->p_want[sc] = rows[sc];
		s->p_nwant[sc] = rows[sc] ? want->nrows[sc] : 0;
	}
	s->p_want_new = true;
	pthread_mutex_unlock(&s->mu);
}

void sampler_request(struct sampler *s, int nmetrics, const int *metrics, int nevents, const int *events)
{
	sampler_request_pinned(s, nmetrics, metrics, 0, NULL, nevents, events);
}

void sampler_request_pinned(struct sampler *s, int nmetrics, const int *metrics, int npinned, const int *pinned,
			    int nevents, const int *events)
{
	if (!s)
		return;
	int *pm = dup_ints(metrics, nmetrics > 0 ? nmetrics : 0);
	int *pe = dup_ints(events, nevents > 0 ? nevents : 0);
	int *pp = dup_ints(pinned, npinned > 0 && pinned ? npinned : 0);
	pthread_mutex_lock(&s->mu);
	free(s->p_metrics);
	free(s->p_events);
	free(s->p_pinned);
	s->p_metrics = pm;
	s->p_events = pe;
	s->p_pinned = pp;
	s->p_nmetrics = nmetrics > 0 ? nmetrics : 0;
	s->p_nevents = nevents > 0 ? nevents : 0;
	s->p_npinned = npinned > 0 && pinned ? npinned : 0;
	s->pending = true;
	/* The interval under way counts what is no longer asked for: end it,
	 * so that the new plan starts now. */
	if (s->thread_running)
		atomic_store(&s->cut, true);
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->mu);
}

void sampler_request_tasks(struct sampler *s, int nmetrics, const int *metrics)
{
	if (!s)
		return;
	int *pm = dup_ints(metrics, nmetrics > 0 ? nmetrics : 0);
	pthread_mutex_lock(&s->mu);
	free(s->p_tm);
	s->p_tm = pm;
	s->p_ntm = nmetrics > 0 ? nmetrics : 0;
	s->p_tasks = true;
	if (s->thread_running)
		atomic_store(&s->cut, true);
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->mu);
}

void sampler_set_interval(struct sampler *s, double interval_s)
{
	if (!s || !(interval_s > 0))
		return;
	pthread_mutex_lock(&s->mu);
	if (interval_s != s->interval_s && s->thread_running)
		atomic_store(&s->cut, true);
	s->interval_s = interval_s;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->mu);
}

void sampler_pause(struct sampler *s, bool paused)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->mu);
	if (s->paused && !paused)
		s->resync = true;
	if (paused && !s->paused && s->thread_running)
		atomic_store(&s->cut, true);
	s->paused = paused;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->mu);
}

const struct sched_plan *sampler_plan(const struct sampler *s)
{
	return s ? s->plan : NULL;
}

const char *sampler_notice(const struct sampler *s)
{
	return s ? s->notice : NULL;
}

struct backend *sampler_backend(struct sampler *s)
{
	return s ? s->bk : NULL;
}
