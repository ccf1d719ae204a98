/* sampler.c: the measuring loop; it runs the counters and nothing else.
 *
 * Per refresh interval the sampler
 *   1. rotates the scheduled groups itself: on each PMU exactly one group is
 *      enabled at a time and the next one takes over every rotation slot.
 *      The number of slots per interval is a multiple of the PMU's group
 *      count, so every group runs for the same share (1/ngroups) of every
 *      interval. Kernel multiplexing gives no such guarantee and its order
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

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void reopen_moved(struct sampler *s);
static void stamp_snapshot(struct sampler *s, struct snapshot *snap, const char *why);

static uint64_t clock_now(struct sampler *s)
{
	if (s->cfg.ops->advance && s->cfg.ops->now)
		return s->cfg.ops->now(s->bk);
	return now_ns();
}

static double thread_cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static bool stop_requested(struct sampler *s)
{
	pthread_mutex_lock(&s->mu);
	bool st = s->stop;
	pthread_mutex_unlock(&s->mu);
	return st;
}

/* Waits until t (backend clock): advances simulated time, or sleeps. */
static bool interrupted(struct sampler *s)
{
	return (s->cfg.interrupt && *s->cfg.interrupt) || atomic_load(&s->cut);
}

/* Absolute CLOCK_MONOTONIC time for pthread_cond_timedwait (the condition
 * variable is set to that clock). */
static struct timespec mono_ts(uint64_t t)
{
	return (struct timespec){ (time_t)(t / 1000000000ull), (long)(t % 1000000000ull) };
}

static void wait_until(struct sampler *s, uint64_t t)
{
	uint64_t now = clock_now(s);
	if (t <= now)
		return;
	if (s->cfg.ops->advance) {
		s->cfg.ops->advance(s->bk, t - now);
		return;
	}
	struct timespec ts = mono_ts(t);
	if (s->thread_running) {
		/* On the sampler thread: sleep on the condition variable, so
		 * that a new delay or a pause ends the interval at once. */
		pthread_mutex_lock(&s->mu);
		while (!s->stop && !atomic_load(&s->cut) &&
		       pthread_cond_timedwait(&s->cond, &s->mu, &ts) != ETIMEDOUT)
			;
		pthread_mutex_unlock(&s->mu);
		return;
	}
	/* Batch mode: a signal (Ctrl-C) ends the wait, and the interval. */
	while (!interrupted(s) && now_ns() < t)
		wait_until_ns(t);
}

/* Waits until t, taking the per-task samples at least every
 * SAMPLER_DRAIN_MS on the way, so that the kernel's buffers never fill
 * whatever the rotation period. Returns early where wait_until does. */
static void wait_draining(struct sampler *s, uint64_t t)
{
	if (!s->tasks) {
		wait_until(s, t);
		return;
	}
	for (;;) {
		uint64_t step = clock_now(s) + (uint64_t)(SAMPLER_DRAIN_MS * 1e6);
		if (step > t)
			step = t;
		wait_until(s, step);
		tasks_drain(s->tasks);
		uint64_t now = clock_now(s);
		if (now >= t || now < step)
			return;
	}
}

/* How a notice names a PMU: core PMUs are what users call "the hardware
 * counters"; the others go by their Linux name (amd_l3, amd_umc_*). */
static const char *pmu_title(const struct pmu_def *pd, char *buf, size_t n)
{
	if (pd->kind == PMU_CORE)
		return "hardware counters";
	snprintf(buf, n, "%s counters (%s)", pd->name, pd->perf_name ? pd->perf_name : pd->name);
	return buf;
}

static void add_notice(struct sampler *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_notice(struct sampler *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *line = xvasprintf(fmt, ap);
	va_end(ap);
	if (s->notice) {
		char *n = xasprintf("%s\n%s", s->notice, line);
		free(s->notice);
		free(line);
		s->notice = n;
	} else {
		s->notice = line;
	}
}

/* Adds "TITLE: HINT" to the notice, or, when a line with the same hint is
 * there already, adds TITLE to that line: one reason is said once, so a
 * refused perf_event_open reads "hardware counters, software counters
 * (software): not permitted ..." rather than two long lines. */
static void add_pmu_notice(struct sampler *s, const char *title, const char *hint)
{
	char *suffix = xasprintf(": %s", hint);
	size_t sl = strlen(suffix);
	char *line = s->notice;
	while (line) {
		char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		if (len >= sl && !memcmp(line + len - sl, suffix, sl)) {
			size_t at = (size_t)(line - s->notice) + len - sl;
			char *n = xasprintf("%.*s, %s%s", (int)at, s->notice, title, s->notice + at);
			free(s->notice);
			s->notice = n;
			free(suffix);
			return;
		}
		line = end ? end + 1 : NULL;
	}
	free(suffix);
	add_notice(s, "%s: %s", title, hint);
}

static void record_offline(struct sampler *s, int cpu)
{
	for (int i = 0; i < s->noffline; i++)
		if (s->offline[i] == cpu)
			return;
	if (s->noffline == s->capoffline) {
		s->capoffline = s->capoffline ? 2 * s->capoffline : 8;
		s->offline = xrealloc(s->offline, sizeof(int) * (size_t)s->capoffline);
	}
	s->offline[s->noffline++] = cpu;
}

/* Online, whether selected or not: uncore PMUs may be read anywhere. */
static bool cpu_selected_any(const struct sampler *s, int cpu)
{
	const struct topo_cpu *tc = topo_cpu_by_num(s->topo, cpu);
	return tc && tc->online;
}

static bool cpu_selected(const struct sampler *s, int cpu)
{
	const struct topo_cpu *tc = topo_cpu_by_num(s->topo, cpu);
	if (!tc || !tc->online)
		return false;
	return !s->cpu_filter || (cpu >= 0 && cpu < s->topo->max_cpu && s->cpu_filter[cpu]);
}

/* Closes every group and forgets the plan's per-PMU state. */
static void close_all(struct sampler *s)
{
	const struct model *m = s->cfg.model;
	if (s->grp) {
		for (int g = 0; g < s->plan->ngroups; g++) {
			struct grp_state *grp = &s->grp[g];
			struct pmu_state *ps = &s->ps[grp->pmu];
			for (int i = 0; i < ps->ninst && grp->bg; i++)
				if (grp->bg[i])
					s->cfg.ops->close(s->bk, grp->bg[i]);
			free(grp->bg);
			free(grp->prev);
			free(grp->cprev);
			free(grp->events);
			free(grp->counts);
			free(grp->running);
			free(grp->bucket_counts);
			free(grp->bucket_running);
		}
		free(s->grp);
		s->grp = NULL;
	}
	if (s->ps) {
		for (int p = 0; p < m->npmus; p++) {
			struct pmu_state *ps = &s->ps[p];
			for (int i = 0; i < ps->ninst; i++)
				free(ps->inst[i].perf_name);
			free(ps->inst);
			free(ps->alive);
			free(ps->moved);
			free(ps->groups);
			companions_free(ps);
		}
		free(s->ps);
		s->ps = NULL;
	}
	free(s->buf);
	s->buf = NULL;
	free(s->cbuf);
	s->cbuf = NULL;
	tasks_free(s->tasks);
	s->tasks = NULL;
	derive_cache_done(&s->dcache);
	s->opened = false;
}

/* Drops instance i of every PMU that lives on cpu: the CPU went away. */
static void drop_cpu(struct sampler *s, int cpu)
{
	const struct model *m = s->cfg.model;
	for (int p = 0; p < m->npmus; p++) {
		struct pmu_state *ps = &s->ps[p];
		for (int i = 0; i < ps->ninst; i++) {
			if (!ps->alive[i] || ps->inst[i].cpu != cpu)
				continue;
			ps->alive[i] = false;
			if (ps->inst[i].scope != SCOPE_THREAD) {
				/* The PMU moves to another CPU of its CCX or socket. */
				ps->moved[i] = true;
				ps->need_reopen = true;
			}
			for (int k = 0; k < ps->ngroups; k++) {
				struct grp_state *grp = &s->grp[ps->groups[k]];
				if (grp->bg[i]) {
					s->cfg.ops->close(s->bk, grp->bg[i]);
					grp->bg[i] = NULL;
				}
			}
		}
	}
	const struct topo_cpu *tc = topo_cpu_by_num(s->topo, cpu);
	if (tc && tc->online)
		topo_set_online(s->topo, cpu, false);
	record_offline(s, cpu);
}

static bool whole_pmu_error(int err)
{
	return err == -EACCES || err == -ENOENT || err == -EOPNOTSUPP || err == -EPERM;
}

/* Per model event, the event whose encoding counts it on this kernel: itself,
 * its fallback where the kernel lacks what it requires (Intel PERF_METRICS
 * on kernels before 5.9 or in most VMs), or -1. */
static int *counted_here(struct sampler *s, int *nfallback)
{
	const struct model *m = s->cfg.model;
	int *as = xmalloc(sizeof(int) * ((size_t)m->nevents + 1));
	for (int e = 0; e < m->nevents; e++) {
		const struct event_def *ed = &m->events[e];
		as[e] = e;
		if (!ed->requires || !s->cfg.ops->has_feature ||
		    s->cfg.ops->has_feature(s->bk, ed->pmu, ed->requires))
			continue;
		as[e] = ed->fallback;
		*nfallback += ed->fallback >= 0;
	}
	return as;
}

/* One line for what is counted with a fallback encoding, so that nobody
 * compares the figures with perf's PERF_METRICS ones unawares. */
static void say_fallbacks(struct sampler *s, const struct sched_plan *plan, const int *count_as)
{
	const struct model *m = s->cfg.model;
	int n = 0, first = -1;
	for (int e = 0; e < m->nevents; e++)
		if (plan->event_used[e] && count_as[e] >= 0 && count_as[e] != e) {
			if (first < 0)
				first = e;
			n++;
		}
	if (n == 0)
		return;
	const struct event_def *ed = &m->events[first];
	const struct pmu_def *pd = &m->pmus[ed->pmu];
	add_notice(s, "no %s/%s in this kernel: %d event%s counted with %s fallback (%s as %s%s)",
		   pd->perf_name ? pd->perf_name : pd->name, ed->requires, n, n == 1 ? "" : "s",
		   n == 1 ? "its" : "their", ed->name, m->events[count_as[first]].name, n > 1 ? ", ..." : "");
}

/* Starts the per-task sampling on every selected online CPU. First,
 * because the hardware events it samples are pinned and leave fewer
 * counters to the groups planned next. */
static void open_tasks(struct sampler *s)
{
	const struct topo *t = s->topo;
	int *cpus = xmalloc(sizeof(int) * ((size_t)t->ncpus + 1)), n = 0;
	for (int i = 0; i < t->ncpus; i++)
		if (t->cpus[i].online && cpu_selected(s, t->cpus[i].cpu))
			cpus[n++] = t->cpus[i].cpu;
	s->tasks = tasks_new(s->cfg.model, s->cfg.ops, s->bk, s->ntm, s->tm, s->cfg.task_freq);
	tasks_select(s->tasks, s->cfg.ntask_pids, s->cfg.task_pids, s->cfg.task_cgroup);
	char *notice = NULL;
	tasks_open(s->tasks, cpus, n, &notice);
	if (notice)
		add_notice(s, "%s", notice);
	free(notice);
	free(cpus);
}

/* A request naming a metric the model does not have (the planner checks
 * the events) cannot be planned: said, before anything looks it up. */
static bool request_invalid(struct sampler *s, char **cause)
{
	const struct model *m = s->cfg.model;
	for (int i = 0; i < s->nmetrics + s->ntm; i++) {
		int mi = i < s->nmetrics ? s->metrics[i] : s->tm[i - s->nmetrics];
		if (mi < 0 || mi >= m->nmetrics) {
			set_cause(cause, "metric index %d is not in model %s", mi, m->name);
			return true;
		}
	}
	return false;
}

/* Plans the current request and opens every group on every instance. */
static int open_all(struct sampler *s, char **cause)
{
	const struct model *m = s->cfg.model;
	const struct pmu_backend_ops *ops = s->cfg.ops;
	free(s->notice);
	s->notice = NULL;
	/* The notice starts again: so does what it has said. */
	free(s->energy_said);
	s->energy_said = NULL;
	if (request_invalid(s, cause))
		return -1;
	if (s->ntm > 0)
		open_tasks(s);

	char *absent = NULL;      /* uncore PMUs not there: said only if the core ones work */
	int *fc = xcalloc((size_t)m->npmus + 1, sizeof(int));
	for (int p = 0; p < m->npmus; p++) {
		fc[p] = ops->free_counters ? ops->free_counters(s->bk, p) : m->pmus[p].counters;
		if (fc[p] < 0)
			fc[p] = m->pmus[p].counters;
	}
	int nfallback = 0;
	int *count_as = counted_here(s, &nfallback);
	/* A share of a tree is planned with the rest of its tree, so that the
	 * tree adds up (derive_tree.c). */
	int nplan = 0, *plan_metrics = tree_closure(m, s->metrics, s->nmetrics, &nplan);
	/* A figure a tasks view shares out by task (task_watts) needs the
	 * socket figure it splits (pkg_watts) measured. */
	for (int i = 0; i < s->ntm; i++) {
		int p = m->metrics[s->tm[i]].split;
		bool listed = p < 0;
		for (int j = 0; j < nplan && !listed; j++)
			listed = plan_metrics[j] == p;
		if (!listed)
			plan_metrics[nplan++] = p;
	}
	struct sched_request rq = { nplan, plan_metrics, s->nevents, s->events, fc, count_as };
	struct sched_plan *plan = sched_plan(m, &rq, cause);
	free(plan_metrics);
	free(fc);
	if (plan && nfallback > 0)
		say_fallbacks(s, plan, count_as);
	free(count_as);
	if (!plan)
		return -1;
	sched_plan_free(s->plan);
	s->plan = plan;
	if (++s->plan_gen == 0)
		s->plan_gen = 1;

	s->ps = xcalloc((size_t)m->npmus + 1, sizeof(*s->ps));
	s->grp = xcalloc((size_t)plan->ngroups + 1, sizeof(*s->grp));

	for (int g = 0; g < plan->ngroups; g++) {
		struct pmu_state *ps = &s->ps[plan->groups[g].pmu];
		ps->groups = xrealloc(ps->groups, sizeof(int) * (size_t)(ps->ngroups + 1));
		ps->groups[ps->ngroups++] = g;
	}

	for (int p = 0; p < m->npmus; p++) {
		struct pmu_state *ps = &s->ps[p];
		const struct pmu_def *pd = &m->pmus[p];
		char title[160];
		if (ps->ngroups == 0)
			continue;
		struct bk_instance *inst = NULL;
		char *why = NULL;
		int n = ops->instances(s->bk, p, &inst, &why);
		if (n <= 0) {
			/* An uncore PMU that is not there is worth a line only
			 * where the core counters work: without them, the one
			 * line about the hardware counters says it all. */
			const char *reason = why ? why : "no such PMU here";
			if (pd->kind == PMU_CORE) {
				add_pmu_notice(s, pmu_title(pd, title, sizeof(title)), reason);
			} else {
				char *more = xasprintf("%s%s%s: %s", absent ? absent : "", absent ? "\n" : "",
						       pmu_title(pd, title, sizeof(title)), reason);
				free(absent);
				absent = more;
			}
			free(why);
			free(inst);
			continue;
		}
		free(why);
		/* Keep the instances that matter: for per-CPU PMUs only selected,
		 * online CPUs; wider PMUs are read on whichever CPU they name. */
		ps->inst = xcalloc((size_t)n, sizeof(*ps->inst));
		for (int i = 0; i < n; i++) {
			if (inst[i].scope == SCOPE_THREAD && !cpu_selected(s, inst[i].cpu)) {
				free(inst[i].perf_name);
				continue;
			}
			ps->inst[ps->ninst++] = inst[i];
		}
		free(inst);
		ps->alive = xcalloc((size_t)ps->ninst + 1, sizeof(bool));
		ps->moved = xcalloc((size_t)ps->ninst + 1, sizeof(bool));
		for (int i = 0; i < ps->ninst; i++)
			ps->alive[i] = true;
		for (int k = 0; k < ps->ngroups; k++) {
			struct grp_state *grp = &s->grp[ps->groups[k]];
			const struct sched_group *sg = &plan->groups[ps->groups[k]];
			grp->pmu = p;
			grp->nhw = grp->nev = sg->nevents;
			grp->events = xmalloc(sizeof(int) * ((size_t)grp->nev + 1));
			memcpy(grp->events, sg->events, sizeof(int) * (size_t)grp->nev);
			grp->bg = xcalloc((size_t)ps->ninst + 1, sizeof(*grp->bg));
			grp->prev = xcalloc((size_t)ps->ninst * (size_t)grp->nhw + 1, sizeof(*grp->prev));
			grp->counts = xcalloc((size_t)ps->ninst * (size_t)grp->nev + 1, sizeof(double));
			grp->running = xcalloc((size_t)ps->ninst + 1, sizeof(double));
		}
		ps->available = true;
		int pmu_err = 0, nopen = 0;
		char *pmu_cause = NULL;
		for (int k = 0; k < ps->ngroups && ps->available; k++) {
			const struct sched_group *sg = &plan->groups[ps->groups[k]];
			struct grp_state *grp = &s->grp[ps->groups[k]];
			int gerr = 0;
			char *gcause = NULL;
			for (int i = 0; i < ps->ninst; i++) {
				if (!ps->alive[i])
					continue;
				char *c = NULL;
				int rc = ops->open_group(s->bk, &ps->inst[i], sg->counted, sg->nevents, &grp->bg[i], &c);
				if (rc == 0) {
					nopen++;
					free(c);
					continue;
				}
				grp->bg[i] = NULL;
				if (rc == -ENODEV) {
					/* The CPU is offline (or went offline just now). */
					free(c);
					drop_cpu(s, ps->inst[i].cpu);
					continue;
				}
				if (whole_pmu_error(rc)) {
					pmu_err = rc;
					free(pmu_cause);
					pmu_cause = c;
					ps->available = false;
					break;
				}
				if (!gerr) {
					gerr = rc;
					gcause = c;
				} else {
					free(c);
				}
			}
			if (gerr && ps->available) {
				add_notice(s, "%s counters: group %d cannot be opened: %s (%s)", pd->name, k + 1,
					   gcause ? gcause : strerror(-gerr), backend_error_hint(gerr));
			}
			free(gcause);
		}
		if (!ps->available) {
			for (int k = 0; k < ps->ngroups; k++) {
				struct grp_state *grp = &s->grp[ps->groups[k]];
				for (int i = 0; i < ps->ninst; i++)
					if (grp->bg[i]) {
						ops->close(s->bk, grp->bg[i]);
						grp->bg[i] = NULL;
					}
			}
			add_pmu_notice(s, pmu_title(pd, title, sizeof(title)), backend_error_hint(pmu_err));
			(void)nopen;
		}
		free(pmu_cause);
	}
	bool core_ok = true;
	for (int p = 0; p < m->npmus; p++)
		if (m->pmus[p].kind == PMU_CORE && s->ps[p].ngroups > 0 && !s->ps[p].available)
			core_ok = false;
	if (absent && core_ok)
		add_notice(s, "%s", absent);
	free(absent);
	/* When the kernel refuses every counter, /proc/stat still gives CPU
	 * utilization: say that this is all there is, so nobody takes the
	 * dashes for zeros. */
	bool only_proc = s->notice != NULL, have_proc = false;
	for (int p = 0; p < m->npmus; p++) {
		if (s->ps[p].ngroups == 0 || !s->ps[p].available)
			continue;
		if (m->pmus[p].kind == PMU_PROC)
			have_proc = true;
		else
			only_proc = false;
	}
	if (only_proc && have_proc)
		add_notice(s, "showing CPU utilization from /proc/stat only");
	/* -C: say once why core, CCX and socket rows show dashes. */
	bool left_out = false;
	for (int i = 0; s->cpu_filter && i < s->topo->ncpus; i++)
		left_out |= s->topo->cpus[i].online && !cpu_selected(s, s->topo->cpus[i].cpu);
	if (left_out)
		add_notice(s, "-C: a core, CCX or socket only partly selected shows its per-CPU figures as -");
	/* A machine without energy counters gets one line of its own; the
	 * other events that cannot be counted are named as ever. */
	char *energy = energy_absent_notice(m, plan, s->cfg.ops, s->bk);
	if (energy)
		add_notice(s, "%s", energy);
	int nlost = 0, first = -1;
	for (int i = 0; i < plan->nunschedulable; i++)
		if (!energy || !energy_event(m, plan->unschedulable[i])) {
			if (first < 0)
				first = i;
			nlost++;
		}
	free(energy);
	if (nlost > 0)
		add_notice(s, "%d event%s cannot be counted: %s: %s%s", nlost, nlost == 1 ? "" : "s",
			   m->events[plan->unschedulable[first]].name, plan->unsched_why[first],
			   nlost > 1 ? ", ..." : "");

	/* The first group of every PMU starts; the rest wait their turn. When
	 * the kernel rotates, all start and it shares the counters out. Each
	 * window that starts marks where its companions stand. */
	companions_plan(s);
	for (int p = 0; p < m->npmus; p++) {
		struct pmu_state *ps = &s->ps[p];
		if (!ps->available)
			continue;
		ps->cur = 0;
		for (int k = 0; k < (s->kernel_mux ? ps->ngroups : 1); k++) {
			struct grp_state *grp = &s->grp[ps->groups[k]];
			for (int i = 0; i < ps->ninst; i++)
				if (ps->alive[i] && grp->bg[i]) {
					ops->enable(s->bk, grp->bg[i]);
					companions_mark(s, ps->groups[k], i);
				}
		}
	}
	reopen_moved(s);
	s->t_start = clock_now(s);
	s->opened = true;
	return 0;
}

/* Reads group gi on instance i and adds the difference to the previous
 * read to the interval's counts (and, when bucket >= 0, to that bucket of
 * windows). discard only moves the previous read on (after a pause).
 * Returns the running time added, in ns; a CPU whose read says -ENODEV is
 * dropped. */
static double read_inst(struct sampler *s, int gi, int i, int bucket, bool discard, struct bk_count *buf)
{
	struct grp_state *grp = &s->grp[gi];
	struct pmu_state *ps = &s->ps[grp->pmu];
	if (!ps->alive[i] || !grp->bg[i])
		return 0;
	int rc = s->cfg.ops->read(s->bk, grp->bg[i], buf);
	if (rc == -ENODEV) {
		drop_cpu(s, ps->inst[i].cpu);
		return 0;
	}
	if (rc != 0) {
		/* This group adds nothing this time; its companions' marks move
		 * on, so that the next window does not take this one's share.
		 * Its counts are not lost (the previous read stays where it
		 * was: the next read takes them), and the failure is said in
		 * the interval's notice. */
		s->read_fails++;
		s->read_err = rc;
		if (ps->ncomp)
			companions_take(s, gi, i, bucket, 0);
		return 0;
	}
	struct bk_count *prev = &grp->prev[(size_t)i * (size_t)grp->nhw];
	double dr = 0, de = 0;
	if (!discard && buf[0].time_running >= prev[0].time_running)
		dr = (double)(buf[0].time_running - prev[0].time_running);
	if (!discard && buf[0].time_enabled >= prev[0].time_enabled)
		de = (double)(buf[0].time_enabled - prev[0].time_enabled);
	size_t at = (size_t)i * (size_t)grp->nev;
	size_t bat = ((size_t)bucket * (size_t)ps->ninst + (size_t)i) * (size_t)grp->nev;
	if (ps->ncomp)
		companions_take(s, gi, i, bucket, de > 0 ? (dr < de ? dr / de : 1) : 0);
	for (int j = 0; j < grp->nhw; j++) {
		if (!discard && buf[j].value >= prev[j].value) {
			double dv = (double)(buf[j].value - prev[j].value);
			grp->counts[at + (size_t)j] += dv;
			if (bucket >= 0)
				grp->bucket_counts[bat + (size_t)j] += dv;
		}
		prev[j] = buf[j];
	}
	grp->running[i] += dr;
	if (bucket >= 0)
		grp->bucket_running[(size_t)bucket * (size_t)ps->ninst + (size_t)i] += dr;
	return dr;
}

/* The bucket the next window of group grp falls in: windows are spread
 * evenly over the buckets in time order. */
static int next_bucket(const struct grp_state *grp)
{
	if (grp->nbuckets <= 0)
		return -1;
	int b = grp->wins > 0 ? (int)((long)grp->nwin * grp->nbuckets / grp->wins) : grp->nwin;
	return b < grp->nbuckets ? b : grp->nbuckets - 1;
}

struct bk_count *sampler_read_buf(struct sampler *s, struct bk_count **buf)
{
	/* Sized for the largest group once per plan. */
	if (!*buf) {
		int n = 1;
		for (int g = 0; g < s->plan->ngroups; g++)
			if (s->plan->groups[g].nevents > n)
				n = s->plan->groups[g].nevents;
		*buf = xcalloc((size_t)n, sizeof(**buf));
	}
	return *buf;
}

static struct bk_count *count_buf(struct sampler *s)
{
	return sampler_read_buf(s, &s->buf);
}

/* Reads group gi on every live instance as one window of its rates. */
static void read_window(struct sampler *s, int gi)
{
	struct grp_state *grp = &s->grp[gi];
	struct pmu_state *ps = &s->ps[grp->pmu];
	struct bk_count *buf = count_buf(s);
	int b = next_bucket(grp);
	double ran = 0;
	for (int i = 0; i < ps->ninst; i++)
		ran += read_inst(s, gi, i, b, false, buf);
	if (ran > 0)
		grp->nwin++;
}

/* Switches PMU p to its next group on every live instance, reading the
 * outgoing group as soon as it stops: that window is one sample. */
static void rotate(struct sampler *s, struct pmu_state *ps)
{
	const struct pmu_backend_ops *ops = s->cfg.ops;
	int from_gi = ps->groups[ps->cur];
	struct grp_state *from = &s->grp[from_gi];
	ps->cur = (ps->cur + 1) % ps->ngroups;
	struct grp_state *to = &s->grp[ps->groups[ps->cur]];
	struct bk_count *buf = count_buf(s);
	int b = next_bucket(from);
	double ran = 0;
	for (int i = 0; i < ps->ninst; i++) {
		if (!ps->alive[i])
			continue;
		if (from->bg[i]) {
			ops->disable(s->bk, from->bg[i]);
			ran += read_inst(s, from_gi, i, b, false, buf);
		}
		if (ps->alive[i] && to->bg[i]) {
			ops->enable(s->bk, to->bg[i]);
			if (ps->ncomp && from->bg[i])
				companions_hand_over(s, from_gi, ps->groups[ps->cur], i);
			else if (ps->ncomp)
				companions_mark(s, ps->groups[ps->cur], i);
		}
	}
	if (ran > 0)
		from->nwin++;
	from->unread = false;
	to->unread = true;
}

/* Clears the interval's counts and sizes the buckets for the windows
 * each group will have: one per round when pmctop rotates, one per read
 * when the kernel does, one for a group that never rotates. */
static void begin_interval(struct sampler *s, const struct pmu_state *ps, int wins)
{
	for (int k = 0; k < ps->ngroups; k++) {
		struct grp_state *grp = &s->grp[ps->groups[k]];
		int nb = wins < SAMPLER_MAX_BUCKETS ? wins : SAMPLER_MAX_BUCKETS;
		if (nb < 1)
			nb = 1;
		size_t per = (size_t)ps->ninst * (size_t)grp->nev;
		if (nb > grp->bucket_cap) {
			grp->bucket_cap = nb;
			grp->bucket_counts = xrealloc(grp->bucket_counts, sizeof(double) * ((size_t)nb * per + 1));
			grp->bucket_running = xrealloc(grp->bucket_running, sizeof(double) * ((size_t)nb * (size_t)ps->ninst + 1));
		}
		grp->nbuckets = nb;
		grp->wins = wins;
		grp->nwin = 0;
		memset(grp->counts, 0, sizeof(double) * per);
		memset(grp->running, 0, sizeof(double) * (size_t)ps->ninst);
		memset(grp->bucket_counts, 0, sizeof(double) * (size_t)nb * per);
		memset(grp->bucket_running, 0, sizeof(double) * (size_t)nb * (size_t)ps->ninst);
	}
}

/* When the kernel rotates: reads every multiplexed group at evenly spaced
 * points of the interval (the last read is the interval's end). */
static bool kernel_reads(struct sampler *s, uint64_t len, bool check_stop)
{
	const struct model *m = s->cfg.model;
	for (int j = 1; j < SAMPLER_KERNEL_READS; j++) {
		wait_draining(s, s->t_start + len * (uint64_t)j / SAMPLER_KERNEL_READS);
		if (interrupted(s))
			return true;
		for (int p = 0; p < m->npmus; p++) {
			struct pmu_state *ps = &s->ps[p];
			if (!ps->available || ps->ngroups < 2)
				continue;
			for (int k = 0; k < ps->ngroups; k++)
				read_window(s, ps->groups[k]);
		}
		if (check_stop && stop_requested(s))
			return false;
	}
	wait_draining(s, s->t_start + len);
	return true;
}

/* Runs the rotation for one interval of len ns starting at s->t_start
 * (when the kernel rotates, only waits it out). Returns false when a stop
 * was requested midway. */
static bool run_interval(struct sampler *s, uint64_t len, bool check_stop)
{
	const struct model *m = s->cfg.model;
	double rot_ns = s->rotate_ms * 1e6;
	for (int p = 0; p < m->npmus; p++) {
		struct pmu_state *ps = &s->ps[p];
		ps->nslots = 0;
		if (!ps->available)
			continue;
		if (ps->ngroups < 2 || s->kernel_mux) {
			begin_interval(s, ps, s->kernel_mux && ps->ngroups > 1 ? SAMPLER_KERNEL_READS : 1);
			continue;
		}
		/* A whole number of rounds, so each group gets the same share. */
		long rounds = lround((double)len / (rot_ns * ps->ngroups));
		if (rounds < 1)
			rounds = 1;
		begin_interval(s, ps, (int)rounds);
		ps->nslots = (int)(rounds * ps->ngroups);
		ps->next_slot = 1;
		ps->next_deadline = s->t_start + len / (uint64_t)ps->nslots;
	}
	uint64_t end = s->t_start + len;
	if (s->kernel_mux)
		return kernel_reads(s, len, check_stop);
	for (;;) {
		uint64_t next = end;
		for (int p = 0; p < m->npmus; p++) {
			struct pmu_state *ps = &s->ps[p];
			if (ps->nslots && ps->next_slot <= ps->nslots && ps->next_deadline < next)
				next = ps->next_deadline;
		}
		wait_draining(s, next);
		/* Interrupted: end the interval here; the counts so far are scaled
		 * by the time they really ran, so the short interval is exact. */
		if (interrupted(s))
			break;
		bool more = false;
		for (int p = 0; p < m->npmus; p++) {
			struct pmu_state *ps = &s->ps[p];
			if (!ps->nslots || ps->next_slot > ps->nslots)
				continue;
			if (ps->next_deadline <= next) {
				rotate(s, ps);
				ps->next_slot++;
				ps->next_deadline = s->t_start +
					(uint64_t)((unsigned __int128)len * (unsigned)ps->next_slot / (unsigned)ps->nslots);
			}
			if (ps->next_slot <= ps->nslots)
				more = true;
		}
		if (!more && next >= end)
			break;
		if (check_stop && stop_requested(s))
			return false;
	}
	return true;
}

/* Opens the groups of uncore instances whose reader CPU went offline on
 * the CPU that now reads them (the kernel would migrate them; a backend
 * that cannot says so by listing the instance on its new CPU). */
static void reopen_moved(struct sampler *s)
{
	const struct model *m = s->cfg.model;
	const struct pmu_backend_ops *ops = s->cfg.ops;
	for (int p = 0; p < m->npmus; p++) {
		struct pmu_state *ps = &s->ps[p];
		if (!ps->need_reopen)
			continue;
		ps->need_reopen = false;
		struct bk_instance *inst = NULL;
		char *why = NULL;
		int n = ops->instances(s->bk, p, &inst, &why);
		free(why);
		for (int i = 0; i < ps->ninst; i++) {
			if (!ps->moved[i])
				continue;
			for (int j = 0; j < n; j++) {
				const struct bk_instance *ni = &inst[j];
				if (ni->scope != ps->inst[i].scope || ni->scope_id != ps->inst[i].scope_id ||
				    strcmp(ni->perf_name ? ni->perf_name : "", ps->inst[i].perf_name ? ps->inst[i].perf_name : "") ||
				    !cpu_selected_any(s, ni->cpu))
					continue;
				ps->inst[i].cpu = ni->cpu;
				ps->moved[i] = false;
				ps->alive[i] = true;
				for (int k = 0; k < ps->ngroups; k++) {
					const struct sched_group *sg = &s->plan->groups[ps->groups[k]];
					struct grp_state *grp = &s->grp[ps->groups[k]];
					memset(&grp->prev[(size_t)i * (size_t)grp->nhw], 0, sizeof(*grp->prev) * (size_t)grp->nhw);
					char *c = NULL;
					if (ops->open_group(s->bk, &ps->inst[i], sg->counted, sg->nevents, &grp->bg[i], &c) != 0)
						grp->bg[i] = NULL;
					free(c);
					if (grp->bg[i] && (k == ps->cur || s->kernel_mux))
						ops->enable(s->bk, grp->bg[i]);
				}
				break;
			}
		}
		for (int j = 0; j < n; j++)
			free(inst[j].perf_name);
		free(inst);
	}
}

/* Reads every group at the end of the interval: the window still open
 * (the group enabled now, or every group when the kernel rotates or a PMU
 * has one group) is closed as a sample; the others only catch up. With
 * discard (after a pause) what was counted meanwhile is forgotten. */
static void read_all(struct sampler *s, bool discard)
{
	const struct model *m = s->cfg.model;
	struct bk_count *buf = count_buf(s);
	for (int p = 0; p < m->npmus; p++) {
		struct pmu_state *ps = &s->ps[p];
		if (!ps->available)
			continue;
		for (int k = 0; k < ps->ngroups; k++) {
			int gi = ps->groups[k];
			if (discard) {
				for (int i = 0; i < ps->ninst; i++)
					read_inst(s, gi, i, -1, true, buf);
				continue;
			}
			/* A group read when it was last disabled has nothing new. */
			if (k == ps->cur || s->kernel_mux)
				read_window(s, gi);
			else if (s->grp[gi].unread)
				for (int i = 0; i < ps->ninst; i++)
					read_inst(s, gi, i, -1, false, buf);
			s->grp[gi].unread = k == ps->cur || s->kernel_mux;
		}
	}
}

/* --- scaling, and handing the interval to derive --- */

/* The notice of the interval just ended: the plan's, then what failed
 * during the interval itself (why is a plan that could not be opened;
 * reads that failed), then forgotten; NULL when there is nothing to say. */
static char *interval_notice(struct sampler *s, const char *why)
{
	char *n = s->notice ? xstrdup(s->notice) : NULL;
	char *more[2] = { NULL, NULL };
	if (why)
		more[0] = xasprintf("the counters cannot be planned: %s: nothing is counted until they can", why);
	if (s->read_fails > 0)
		more[1] = xasprintf("%ld counter read%s failed in this interval (%s): their counts come with the next read",
				    s->read_fails, s->read_fails == 1 ? "" : "s", strerror(-s->read_err));
	s->read_fails = 0;
	for (int i = 0; i < 2; i++) {
		if (!more[i])
			continue;
		char *j = n ? xasprintf("%s\n%s", n, more[i]) : xstrdup(more[i]);
		free(n);
		free(more[i]);
		n = j;
	}
	return n;
}

/* The snapshot of the interval just read: derive.c sums and evaluates;
 * the sampler adds what only it knows. */
static struct snapshot *build_snapshot(struct sampler *s, double interval_s)
{
	const struct model *m = s->cfg.model;
	struct derive_pmu *dp = xcalloc((size_t)m->npmus + 1, sizeof(*dp));
	for (int p = 0; p < m->npmus; p++) {
		const struct pmu_state *ps = &s->ps[p];
		dp[p] = (struct derive_pmu){
			.available = ps->available,
			.ninst = ps->ninst,
			.inst = ps->inst,
			.alive = ps->alive,
		};
	}
	struct derive_group *dg = xcalloc((size_t)s->plan->ngroups + 1, sizeof(*dg));
	for (int g = 0; g < s->plan->ngroups; g++) {
		const struct grp_state *grp = &s->grp[g];
		dg[g] = (struct derive_group){
			.nev = grp->nev,
			.events = grp->events,
			.iv = grp->counts,
			.ir = grp->running,
			.nb = grp->counts ? grp->nbuckets : 0,
			.bv = grp->bucket_counts,
			.br = grp->bucket_running,
		};
	}
	struct derive_input in = {
		.model = m,
		.topo = s->topo,
		.plan = s->plan,
		.cpu_filter = s->cpu_filter,
		.interval_s = interval_s,
		.pmus = dp,
		.groups = dg,
		.cache = &s->dcache,
		.plan_gen = s->plan_gen,
		.max_ghz = s->max_ghz,
	};
	struct snapshot *snap = derive_snapshot(&in);
	if (!s->energy_said)
		s->energy_said = xcalloc((size_t)m->nevents + 1, sizeof(bool));
	char *stuck = energy_mask_stuck(m, snap, s->energy_said);
	if (stuck)
		add_notice(s, "%s", stuck);
	free(stuck);
	if (s->cfg.on_record) {
		free((void *)s->rec_in.pmus);
		free((void *)s->rec_in.groups);
		topo_free(s->rec_topo);
		s->rec_topo = topo_clone(s->topo);
		s->rec_in = in;
		s->rec_in.topo = s->rec_topo;
		s->rec_in.cache = NULL;
	} else {
		free(dp);
		free(dg);
	}

	stamp_snapshot(s, snap, NULL);
	return snap;
}

/* What only the sampler knows of the interval that snap holds: its
 * number, when it ended, the notice (why: a plan that could not be
 * opened) and the CPUs not counted for being offline. */
static void stamp_snapshot(struct sampler *s, struct snapshot *snap, const char *why)
{
	snap->seq = ++s->seq;
	struct timespec rt;
	clock_gettime(CLOCK_REALTIME, &rt);
	snap->time = (double)rt.tv_sec + (double)rt.tv_nsec * 1e-9;
	snap->simulated = s->cfg.ops->simulated;
	snap->notice = interval_notice(s, why);
	/* Every CPU that is not counted for being offline: those that left
	 * during the interval and those still away. */
	for (int i = 0; i < s->topo->ncpus; i++)
		if (!s->topo->cpus[i].online)
			record_offline(s, s->topo->cpus[i].cpu);
	if (s->noffline) {
		snap->noffline = s->noffline;
		snap->offline = xmalloc(sizeof(int) * (size_t)s->noffline);
		memcpy(snap->offline, s->offline, sizeof(int) * (size_t)s->noffline);
		s->noffline = 0;
	}
}

/* The interval of a step whose plan could not be opened (a new request
 * that cannot be planned): it runs its length with nothing counted, and
 * its snapshot has every figure unknown and says why. Every output shows
 * that, where the last figures of a plan no longer counting stayed on the
 * screen with nothing said. NULL when a stop came meanwhile. */
static struct snapshot *plan_failed(struct sampler *s, uint64_t len, bool check_stop, const char *why)
{
	const struct model *m = s->cfg.model;
	close_all(s);   /* the per-task sampling, opened before the plan */
	s->t_start = clock_now(s);
	wait_until(s, s->t_start + len);
	if (check_stop && stop_requested(s))
		return NULL;
	uint64_t t_end = clock_now(s);
	bool cut = t_end < s->t_start + len;
	double measured = (double)(t_end - s->t_start) * 1e-9;
	s->t_start = t_end;
	struct sched_plan none = { .nevents = m->nevents };
	none.event_used = xcalloc((size_t)m->nevents + 1, sizeof(bool));
	struct derive_pmu *dp = xcalloc((size_t)m->npmus + 1, sizeof(*dp));
	struct derive_input in = {
		.model = m,
		.topo = s->topo,
		.plan = &none,
		.cpu_filter = s->cpu_filter,
		.interval_s = measured > 0 ? measured : (double)len * 1e-9,
		.pmus = dp,
		.max_ghz = s->max_ghz,
	};
	struct snapshot *snap = derive_snapshot(&in);
	free(none.event_used);
	free(dp);
	stamp_snapshot(s, snap, why);
	snap->quick = cut;
	snap->rotate_ms = s->kernel_mux ? 0 : s->rotate_ms;
	return snap;
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
	if (open_all(s, cause) < 0)
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
		close_all(s);
		s->cfg.ops->destroy(s->bk);
	}
	sched_plan_free(s->plan);
	topo_free(s->topo);
	free(s->metrics);
	free(s->events);
	free(s->p_metrics);
	free(s->p_events);
	free(s->tm);
	free(s->p_tm);
	free(s->notice);
	free(s->energy_said);
	free(s->offline);
	free(s->cpu_filter);
	free(s->backend_arg);
	free((void *)s->rec_in.pmus);
	free((void *)s->rec_in.groups);
	topo_free(s->rec_topo);
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

static struct snapshot *step(struct sampler *s, bool check_stop, char **cause)
{
	double cpu0 = thread_cpu_s(), kernel0 = modelled_kernel_s(s);
	bool replan = false, resync = false;
	pthread_mutex_lock(&s->mu);
	if (s->pending) {
		free(s->metrics);
		free(s->events);
		s->metrics = s->p_metrics;
		s->events = s->p_events;
		s->nmetrics = s->p_nmetrics;
		s->nevents = s->p_nevents;
		s->p_metrics = s->p_events = NULL;
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
	double interval_s = s->interval_s, delay_s = interval_s;
	resync = s->resync;
	s->resync = false;
	pthread_mutex_unlock(&s->mu);

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
		close_all(s);
		char *why = NULL;
		if (open_all(s, &why) < 0) {
			uint64_t flen = (uint64_t)llround(delay_s * 1e9);
			struct snapshot *snap = plan_failed(s, flen ? flen : 1, check_stop, why ? why : "unknown error");
			free(why);
			if (!snap)
				goto stopped;
			snap->delay_s = delay_s;
			snap->sampler_cost_s = thread_cpu_s() - cpu0;
			return snap;
		}
		free(why);
	} else if (resync) {
		/* After a pause: forget what was counted meanwhile. */
		read_all(s, true);
		s->t_start = clock_now(s);
	}

	/* In the dashboard (the publishing thread), a new plan's first
	 * interval is short: its figures come at once, with the coverage and
	 * uncertainty of a short interval, instead of after a whole delay. */
	bool quick = check_stop && (replan || first_open) && interval_s > 2 * SAMPLER_QUICK_S;
	if (quick)
		interval_s = SAMPLER_QUICK_S;
	uint64_t len = (uint64_t)llround(interval_s * 1e9);
	if (len == 0)
		len = 1;
	if (!run_interval(s, len, check_stop))
		goto stopped;
	uint64_t t_end = clock_now(s);
	double measured = (double)(t_end - s->t_start) * 1e-9;
	/* Ended early by a request (a view switch, a pause, a new delay): on
	 * real counters nearly every such request lands mid-interval. */
	bool cut = t_end < s->t_start + len;
	s->t_start = t_end;
	read_all(s, false);
	reopen_moved(s);
	struct snapshot *snap = build_snapshot(s, measured > 0 ? measured : interval_s);
	snap->quick = quick || cut;
	snap->delay_s = delay_s;
	if (s->tasks)
		tasks_finish(s->tasks, snap, measured > 0 ? measured : interval_s);
	/* CPUs that came back during the interval were not counted in it:
	 * said so now, counted from the next one. */
	int back[64];
	int nback = s->opened ? topo_poll_online(s->topo, back, (int)ARRAY_SIZE(back)) : 0;
	if (nback > 0) {
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
	snap->sampler_cost_s = thread_cpu_s() - cpu0;
	/* 0 says "the kernel rotates" to the outputs. */
	snap->rotate_ms = s->kernel_mux ? 0 : s->rotate_ms;
	/* The snapshot is complete: -w records it with what it was made of. */
	if (s->cfg.on_record)
		s->cfg.on_record(s->cfg.record_arg, &s->rec_in, snap);
	if (s->kernel_mux)
		return snap;   /* no rotation of ours to slow down */
	/* Every rotation costs two ioctls per CPU and PMU, each a cross-CPU
	 * call in the kernel (docs/performance.md). When that pushes pmctop's
	 * own CPU time over its budget, rotate half as often: coverage stays
	 * exact, only the sampling of short phases gets coarser. On the
	 * simulator the kernel's time is the one it models: the thread's CPU
	 * time there is mostly the simulation, and grows with a slow build. */
	double cost = s->cfg.ops->kernel_ns ? modelled_kernel_s(s) - kernel0 : snap->sampler_cost_s;
	double used = measured > 0 ? cost / measured : 0;
	double budget = s->cfg.cost_budget > 0 ? s->cfg.cost_budget : SAMPLER_COST_BUDGET;
	if (used > budget && s->rotate_ms * 2 <= interval_s * 1e3)
		s->rotate_ms *= 2;
	return snap;

stopped:
	set_cause(cause, "stopped");
	pthread_mutex_lock(&s->mu);
	s->resync = true;
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

void sampler_record(struct sampler *s, void (*fn)(void *arg, const struct derive_input *in,
						  const struct snapshot *snap), void *arg)
{
	s->cfg.on_record = fn;
	s->cfg.record_arg = arg;
}

struct snapshot *sampler_step(struct sampler *s, char **cause)
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
			interval_s = snap->interval_s;
		uint64_t deadline = t0 + (uint64_t)llround(interval_s * 1e9);
		if (!snap || s->cfg.ops->advance) {
			uint64_t now = now_ns();
			if (!snap && deadline < now + 100000000ull)
				deadline = now + 100000000ull;   /* an error: do not spin */
			struct timespec until = mono_ts(deadline);
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

void sampler_request(struct sampler *s, int nmetrics, const int *metrics, int nevents, const int *events)
{
	if (!s)
		return;
	int *pm = dup_ints(metrics, nmetrics > 0 ? nmetrics : 0);
	int *pe = dup_ints(events, nevents > 0 ? nevents : 0);
	pthread_mutex_lock(&s->mu);
	free(s->p_metrics);
	free(s->p_events);
	s->p_metrics = pm;
	s->p_events = pe;
	s->p_nmetrics = nmetrics > 0 ? nmetrics : 0;
	s->p_nevents = nevents > 0 ? nevents : 0;
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
