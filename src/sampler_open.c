/* sampler_open.c: the sampler opens a plan: the request is planned, each
 * PMU's instances listed, each group opened on each instance, what could
 * not be opened said in the notice, and the first groups enabled; and
 * closes it again (sampler.c says what the sampler does as a whole). */
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

/* How a notice names a PMU: core PMUs are what users call "the hardware
 * counters"; the others go by their Linux name (amd_l3, amd_umc_*). */
static const char *pmu_title(const struct pmu_def *pd, char *buf, size_t n)
{
	if (pd->kind == PMU_CORE)
		return "hardware counters";
	snprintf(buf, n, "%s counters (%s)", pd->name, pd->perf_name ? pd->perf_name : pd->name);
	return buf;
}

/* The plan's notice becomes n (owned; NULL: none), and the copy the
 * snapshots share (share_notice, sampler_read.c) is let go: the next
 * interval's snapshot gets one of the new text. */
static void notice_set(struct sampler *s, char *n)
{
	free(s->notice);
	s->notice = n;
	snap_note_release(s->note);
	s->note = NULL;
}

/* Adds a line to the plan's notice. */
void sampler_add_notice(struct sampler *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *line = xvasprintf(fmt, ap);
	va_end(ap);
	if (s->notice) {
		notice_set(s, xasprintf("%s\n%s", s->notice, line));
		free(line);
	} else {
		notice_set(s, line);
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
			notice_set(s, xasprintf("%.*s, %s%s", (int)at, s->notice, title, s->notice + at));
			free(suffix);
			return;
		}
		line = end ? end + 1 : NULL;
	}
	free(suffix);
	sampler_add_notice(s, "%s: %s", title, hint);
}

void sampler_record_offline(struct sampler *s, int cpu)
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

bool sampler_cpu_selected(const struct sampler *s, int cpu)
{
	const struct topo_cpu *tc = topo_cpu_by_num(s->topo, cpu);
	if (!tc || !tc->online)
		return false;
	return !s->cpu_filter || (cpu >= 0 && cpu < s->topo->max_cpu && s->cpu_filter[cpu]);
}

/* Closes every group and forgets the plan's per-PMU state. */
void sampler_close_all(struct sampler *s)
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
			free(grp->last_counts);
			free(grp->last_running);
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
void sampler_drop_cpu(struct sampler *s, int cpu)
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
	sampler_record_offline(s, cpu);
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
		if (s->cfg.ops->event_modelled && !s->cfg.ops->event_modelled(s->bk, e)) {
			as[e] = -1;
			continue;
		}
		if (!ed->requires || !s->cfg.ops->has_feature ||
		    s->cfg.ops->has_feature(s->bk, ed->pmu, ed->requires))
			continue;
		as[e] = ed->fallback;
		*nfallback += ed->fallback >= 0;
	}
	return as;
}

/* One line for what is counted with a fallback encoding, so that nobody
 * compares the figures with perf's PERF_METRICS ones unawares; NULL when
 * nothing is. *pmu is the PMU of those events: the line is worth saying
 * only where that PMU's counters open (say_plan). */
static char *fallback_line(struct sampler *s, const struct sched_plan *plan, const int *count_as, int *pmu)
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
		return NULL;
	const struct event_def *ed = &m->events[first];
	const struct pmu_def *pd = &m->pmus[ed->pmu];
	*pmu = ed->pmu;
	return xasprintf("no %s/%s in this kernel: %d event%s counted with %s fallback (%s as %s%s)",
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
		if (t->cpus[i].online && sampler_cpu_selected(s, t->cpus[i].cpu))
			cpus[n++] = t->cpus[i].cpu;
	s->tasks = tasks_new(s->cfg.model, s->cfg.ops, s->bk, s->ntm, s->tm, s->cfg.task_freq);
	tasks_select(s->tasks, s->cfg.ntask_pids, s->cfg.task_pids, s->cfg.task_cgroup);
	char *notice = NULL;
	tasks_open(s->tasks, cpus, n, &notice);
	if (notice)
		sampler_add_notice(s, "%s", notice);
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

/* Step 1, the plan request: the metrics asked for, with the rest of
 * their trees and what a tasks view shares out, planned on the counters
 * free on each PMU. NULL, and why, when it cannot be planned. */
static struct sched_plan *plan_request(struct sampler *s, char **fallback, int *fallback_pmu, char **cause)
{
	const struct model *m = s->cfg.model;
	const struct pmu_backend_ops *ops = s->cfg.ops;
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
	struct sched_request rq = { nplan, plan_metrics, s->nevents, s->events, fc, count_as,
				    "the simulated PMU gives this imported event no meaning (docs/perf-import.md)",
				    s->npinned, s->pinned };
	struct sched_plan *plan = sched_plan(m, &rq, cause);
	free(plan_metrics);
	free(fc);
	if (plan && nfallback > 0)
		*fallback = fallback_line(s, plan, count_as, fallback_pmu);
	free(count_as);
	return plan;
}

/* Step 2, the PMU state: each PMU's groups in rotation order, and a
 * group state for each group of the plan. */
static void make_pmu_state(struct sampler *s)
{
	const struct sched_plan *plan = s->plan;
	s->ps = xcalloc((size_t)s->cfg.model->npmus + 1, sizeof(*s->ps));
	s->grp = xcalloc((size_t)plan->ngroups + 1, sizeof(*s->grp));
	for (int g = 0; g < plan->ngroups; g++) {
		struct pmu_state *ps = &s->ps[plan->groups[g].pmu];
		ps->groups = xrealloc(ps->groups, sizeof(int) * (size_t)(ps->ngroups + 1));
		ps->groups[ps->ngroups++] = g;
	}
}

/* Step 3, the instances of PMU p that matter: for per-CPU PMUs only the
 * selected, online CPUs; wider PMUs are read on whichever CPU they name.
 * False when the PMU has none here: said in the notice (a core PMU) or
 * added to *absent (an uncore one, said only if the core ones work). */
static bool list_instances(struct sampler *s, int p, char **absent)
{
	const struct pmu_def *pd = &s->cfg.model->pmus[p];
	struct pmu_state *ps = &s->ps[p];
	char title[160];
	struct bk_instance *inst = NULL;
	char *why = NULL;
	int n = s->cfg.ops->instances(s->bk, p, &inst, &why);
	if (n <= 0) {
		/* An uncore PMU that is not there is worth a line only
		 * where the core counters work: without them, the one
		 * line about the hardware counters says it all. */
		const char *reason = why ? why : "no such PMU here";
		if (pd->kind == PMU_CORE) {
			add_pmu_notice(s, pmu_title(pd, title, sizeof(title)), reason);
		} else {
			char *more = xasprintf("%s%s%s: %s", *absent ? *absent : "", *absent ? "\n" : "",
					       pmu_title(pd, title, sizeof(title)), reason);
			free(*absent);
			*absent = more;
		}
		free(why);
		free(inst);
		return false;
	}
	free(why);
	ps->inst = xcalloc((size_t)n, sizeof(*ps->inst));
	for (int i = 0; i < n; i++) {
		if (inst[i].scope == SCOPE_THREAD && !sampler_cpu_selected(s, inst[i].cpu)) {
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
	return true;
}

/* The state of each group of PMU p, sized for its instances. */
static void make_groups(struct sampler *s, int p)
{
	struct pmu_state *ps = &s->ps[p];
	for (int k = 0; k < ps->ngroups; k++) {
		struct grp_state *grp = &s->grp[ps->groups[k]];
		const struct sched_group *sg = &s->plan->groups[ps->groups[k]];
		grp->pmu = p;
		grp->nhw = grp->nev = sg->nevents;
		grp->events = xmalloc(sizeof(int) * ((size_t)grp->nev + 1));
		memcpy(grp->events, sg->events, sizeof(int) * (size_t)grp->nev);
		grp->bg = xcalloc((size_t)ps->ninst + 1, sizeof(*grp->bg));
		grp->prev = xcalloc((size_t)ps->ninst * (size_t)grp->nhw + 1, sizeof(*grp->prev));
		grp->counts = xcalloc((size_t)ps->ninst * (size_t)grp->nev + 1, sizeof(double));
		grp->running = xcalloc((size_t)ps->ninst + 1, sizeof(double));
		grp->last_b = -1;
	}
}

/* Opens group k of PMU p on each live instance. An offline CPU is
 * dropped; an error that says the whole PMU cannot count returns it (and
 * its cause in *pmu_cause); any other is said once for the group. */
static int open_group_everywhere(struct sampler *s, int p, int k, char **pmu_cause)
{
	const struct pmu_backend_ops *ops = s->cfg.ops;
	struct pmu_state *ps = &s->ps[p];
	const struct sched_group *sg = &s->plan->groups[ps->groups[k]];
	struct grp_state *grp = &s->grp[ps->groups[k]];
	int gerr = 0;
	char *gcause = NULL;
	for (int i = 0; i < ps->ninst; i++) {
		if (!ps->alive[i])
			continue;
		char *c = NULL;
		int rc = ops->open_group(s->bk, &ps->inst[i], sg->counted, sg->nevents, &grp->bg[i], &c);
		if (rc == 0) {
			free(c);
			continue;
		}
		grp->bg[i] = NULL;
		if (rc == -ENODEV) {
			/* The CPU is offline (or went offline just now). */
			free(c);
			sampler_drop_cpu(s, ps->inst[i].cpu);
			continue;
		}
		if (whole_pmu_error(rc)) {
			free(gcause);
			free(*pmu_cause);
			*pmu_cause = c;
			return rc;
		}
		if (!gerr) {
			gerr = rc;
			gcause = c;
		} else {
			free(c);
		}
	}
	if (gerr)
		sampler_add_notice(s, "%s counters: group %d cannot be opened: %s (%s)", s->cfg.model->pmus[p].name,
				   k + 1, gcause ? gcause : strerror(-gerr), backend_error_hint(gerr));
	free(gcause);
	return 0;
}

/* Closes every group of PMU p on every instance, and marks it not
 * counting. */
static void close_pmu_groups(struct sampler *s, int p)
{
	struct pmu_state *ps = &s->ps[p];
	for (int k = 0; k < ps->ngroups; k++) {
		struct grp_state *grp = &s->grp[ps->groups[k]];
		for (int i = 0; i < ps->ninst; i++)
			if (grp->bg[i]) {
				s->cfg.ops->close(s->bk, grp->bg[i]);
				grp->bg[i] = NULL;
			}
	}
	ps->available = false;
}

/* Step 4, the groups of PMU p on each of its instances. When the PMU as a
 * whole cannot count, every group is closed again and the notice says so. */
static void open_groups(struct sampler *s, int p)
{
	const struct pmu_def *pd = &s->cfg.model->pmus[p];
	struct pmu_state *ps = &s->ps[p];
	char title[160];
	make_groups(s, p);
	ps->available = true;
	int pmu_err = 0;
	char *pmu_cause = NULL;
	for (int k = 0; k < ps->ngroups && !pmu_err; k++)
		pmu_err = open_group_everywhere(s, p, k, &pmu_cause);
	if (pmu_err) {
		close_pmu_groups(s, p);
		add_pmu_notice(s, pmu_title(pd, title, sizeof(title)), backend_error_hint(pmu_err));
	}
	free(pmu_cause);
}

/* Whether PMU p's counts reach any figure: an event asked for itself
 * (-e), or a planned metric all of whose events' PMUs opened. */
static bool pmu_feeds_something(const struct sampler *s, int p)
{
	const struct model *m = s->cfg.model;
	for (int i = 0; i < s->nevents; i++)
		if (m->events[s->events[i]].pmu == p)
			return true;
	for (int i = 0; i < s->plan->nmetrics; i++) {
		const struct metric_def *md = &m->metrics[s->plan->metrics[i]];
		bool uses = false, computable = true;
		for (int k = 0; k < md->nevents; k++) {
			int q = m->events[md->events[k]].pmu;
			uses |= q == p;
			computable &= s->ps[q].available;
		}
		if (uses && computable)
			return true;
	}
	return false;
}

/* Step 4b: a PMU that opened but whose counts reach no figure, because
 * every metric that needs it also needs a PMU that did not open (the TSC
 * of an imported Intel model beside a core PMU that a VM lacks), is
 * closed again: reading it would cost a cross-CPU read per CPU and
 * interval for nothing (half of pmctop's reads on such a machine). */
static void close_unfed(struct sampler *s)
{
	const struct model *m = s->cfg.model;
	for (int p = 0; p < m->npmus; p++) {
		struct pmu_state *ps = &s->ps[p];
		if (!ps->available || ps->ngroups == 0 || pmu_feeds_something(s, p))
			continue;
		close_pmu_groups(s, p);
	}
}

/* Step 5, the notices of the plan as opened: fallback encodings (where
 * their PMU opens) and absent uncore PMUs (where the core ones work),
 * /proc/stat alone, -C, energy counters, and the events that cannot be
 * counted. */
static void say_plan(struct sampler *s, const char *absent, const char *fallback, int fallback_pmu)
{
	const struct model *m = s->cfg.model;
	const struct sched_plan *plan = s->plan;
	/* Fallback encodings matter where their PMU counts at all: without
	 * it, the one line about the hardware counters says it all. */
	if (fallback && s->ps[fallback_pmu].available)
		sampler_add_notice(s, "%s", fallback);
	bool core_ok = true;
	for (int p = 0; p < m->npmus; p++)
		if (m->pmus[p].kind == PMU_CORE && s->ps[p].ngroups > 0 && !s->ps[p].available)
			core_ok = false;
	if (absent && core_ok)
		sampler_add_notice(s, "%s", absent);
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
		sampler_add_notice(s, "showing CPU utilization from /proc/stat only");
	/* -C: say once why core, CCX and socket rows show dashes. */
	bool left_out = false;
	for (int i = 0; s->cpu_filter && i < s->topo->ncpus; i++)
		left_out |= s->topo->cpus[i].online && !sampler_cpu_selected(s, s->topo->cpus[i].cpu);
	if (left_out)
		sampler_add_notice(s, "-C: a core, CCX or socket only partly selected shows its per-CPU figures as -");
	/* A machine without energy counters gets one line of its own; the
	 * other events that cannot be counted are named as ever. */
	char *energy = energy_absent_notice(m, plan, s->cfg.ops, s->bk);
	if (energy)
		sampler_add_notice(s, "%s", energy);
	int nlost = 0, first = -1;
	for (int i = 0; i < plan->nunschedulable; i++)
		if (!energy || !energy_event(m, plan->unschedulable[i])) {
			if (first < 0)
				first = i;
			nlost++;
		}
	free(energy);
	if (nlost > 0)
		sampler_add_notice(s, "%d event%s cannot be counted: %s: %s%s", nlost, nlost == 1 ? "" : "s",
				   m->events[plan->unschedulable[first]].name, plan->unsched_why[first],
				   nlost > 1 ? ", ..." : "");
}

/* Step 6, the first enable: the first group of every PMU starts; the rest
 * wait their turn. When the kernel rotates, all start and it shares the
 * counters out. Each window that starts marks where its companions stand. */
static void first_enable(struct sampler *s)
{
	const struct model *m = s->cfg.model;
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
					s->cfg.ops->enable(s->bk, grp->bg[i]);
					companions_mark(s, ps->groups[k], i);
				}
		}
	}
}

/* Plans the current request and opens every group on every instance. */
int sampler_open_all(struct sampler *s, char **cause)
{
	const struct model *m = s->cfg.model;
	notice_set(s, NULL);
	/* The notice starts again: so does what it has said. */
	free(s->energy_said);
	s->energy_said = NULL;
	if (request_invalid(s, cause))
		return -1;
	/* First: the hardware events it samples are pinned and leave fewer
	 * counters to the groups planned next. */
	if (s->ntm > 0)
		open_tasks(s);
	char *fallback = NULL;   /* said in say_plan, where its PMU opens */
	int fallback_pmu = -1;
	struct sched_plan *plan = plan_request(s, &fallback, &fallback_pmu, cause);
	if (!plan)
		return -1;
	sched_plan_free(s->plan);
	s->plan = plan;
	if (++s->plan_gen == 0)
		s->plan_gen = 1;
	make_pmu_state(s);
	char *absent = NULL;      /* uncore PMUs not there: said only if the core ones work */
	for (int p = 0; p < m->npmus; p++)
		if (s->ps[p].ngroups > 0 && list_instances(s, p, &absent))
			open_groups(s, p);
	say_plan(s, absent, fallback, fallback_pmu);
	/* After the notices: they speak of what the machine can count, and
	 * a PMU closed for feeding nothing can count (its closing must not,
	 * say, pass for a core PMU that failed and hide that an uncore one
	 * is absent). */
	close_unfed(s);
	free(absent);
	free(fallback);
	first_enable(s);
	sampler_reopen_moved(s);
	s->t_start = sampler_clock_now(s);
	s->opened = true;
	return 0;
}

/* Opens the groups of uncore instances whose reader CPU went offline on
 * the CPU that now reads them (the kernel would migrate them; a backend
 * that cannot says so by listing the instance on its new CPU). */
HOT_PATH void sampler_reopen_moved(struct sampler *s)
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
