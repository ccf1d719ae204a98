/* tasks.c: per-process and per-cgroup figures from sampling (tasks.h). */
#include "config.h"
#include "tasks.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "expr.h"
#include "formula.h"
#include "util.h"

/* A process's name and cgroup are looked up again after this many
 * intervals (a process may exec, or move to another cgroup), and
 * forgotten after it has not run for ten times as long. */
#define INFO_REFRESH 5
#define COMM_MAX 64

struct tcpu {
	int cpu;
	struct bk_sampler *s;
	bool dead;                /* went offline: counted again after the next re-plan */
	struct bk_count *last;    /* [nev] the previous read, for coverage */
	/* The run of samples of one task in progress, per event: who, how
	 * many samples, of what period (see run_end). */
	int *run_pid;
	double *run_n, *run_per;
};

/* The samples of one process on one CPU in this interval. */
struct tent {
	int pid, cpu;
	double *sum, *sq;         /* [nev]: occurrences, and the variance of that estimate */
	double samples;
};

struct info {
	int pid;
	char comm[COMM_MAX];
	char *cgroup;
	uint64_t looked, seen;    /* interval numbers */
};

struct tasks {
	const struct model *m;
	const struct pmu_backend_ops *ops;
	struct backend *bk;
	int freq;
	int nmetrics;
	int *metrics;
	struct formula **f;       /* [nmetrics], NULL: walk is not needed (too large: NaN) */
	int nev;
	int *events;              /* model events sampled, in the order given to the backend */
	bool *avail;              /* [nev] opened here */
	int *pos;                 /* [m->nevents] position in events, -1 */
	int ncpu;
	struct tcpu *cpu;
	int nslot;
	int *slot;                /* CPU number -> index in cpu[], -1 */
	double *cov_run, *cov_en; /* [nev] this interval, over the CPUs */
	double row_cov;           /* every row's coverage this interval (fill_row) */
	double *per_sum, *per_n;  /* [nev] periods of this interval, for an event without samples */
	long lost;                /* samples the kernel dropped this interval */
	double received;          /* and those it handed over */
	/* (pid, cpu) -> entry, this interval. */
	struct tent *ent;
	int nent, capent;
	int *map;                 /* open addressing over ent, -1 free */
	int capmap;
	double *pool;
	size_t npool, cappool;
	/* -p and --cgroup. */
	int npids;
	int *pids;
	char *cgroup;
	/* Each event as the backend numbers them (the available ones, in
	 * order): its position in events[]. Fixed once tasks_open is done. */
	int nidx;
	int *idx;
	/* Work space: reads, and a formula's values, derivatives and
	 * standard deviations. */
	struct bk_count *buf;
	double *work, *grad, *sd;
	/* pid -> name and cgroup, kept across intervals. */
	struct info *info;        /* the first nsorted by pid */
	int ninfo, capinfo, nsorted;
	uint64_t seq;
};

static void tcpu_free(struct tcpu *c)
{
	free(c->last);
	free(c->run_pid);
	free(c->run_n);
	free(c->run_per);
}

struct tasks *tasks_new(const struct model *m, const struct pmu_backend_ops *ops, struct backend *bk,
			int nmetrics, const int *metrics, int freq)
{
	struct tasks *t = xcalloc(1, sizeof(*t));
	t->m = m;
	t->ops = ops;
	t->bk = bk;
	t->freq = freq;
	t->metrics = xcalloc((size_t)nmetrics + 1, sizeof(int));
	t->f = xcalloc((size_t)nmetrics + 1, sizeof(*t->f));
	t->pos = xmalloc(sizeof(int) * ((size_t)m->nevents + 1));
	for (int e = 0; e < m->nevents; e++)
		t->pos[e] = -1;
	t->events = xcalloc((size_t)m->nevents + 1, sizeof(int));
	for (int i = 0; i < nmetrics; i++) {
		int mi = metrics[i];
		if (mi < 0 || mi >= m->nmetrics || !metric_per_task(m, mi, NULL))
			continue;
		t->metrics[t->nmetrics] = mi;
		t->f[t->nmetrics++] = formula_compile(m, mi, SCOPE_THREAD);
		const struct metric_def *md = &m->metrics[mi];
		for (int k = 0; k < md->nevents; k++) {
			int e = md->events[k];
			if (t->pos[e] < 0) {
				t->pos[e] = t->nev;
				t->events[t->nev++] = e;
			}
		}
	}
	int maxw = 1, maxv = 1;
	for (int i = 0; i < t->nmetrics; i++)
		if (t->f[i]) {
			if (formula_work(t->f[i]) > maxw)
				maxw = formula_work(t->f[i]);
			if (formula_nvars(t->f[i]) > maxv)
				maxv = formula_nvars(t->f[i]);
		}
	t->work = xcalloc((size_t)maxw + 1, sizeof(double));
	t->grad = xcalloc((size_t)maxv + 1, sizeof(double));
	t->sd = xcalloc((size_t)maxv + 1, sizeof(double));
	t->idx = xcalloc((size_t)t->nev + 1, sizeof(int));
	t->buf = xcalloc((size_t)t->nev + 1, sizeof(struct bk_count));
	t->avail = xcalloc((size_t)t->nev + 1, sizeof(bool));
	t->cov_run = xcalloc((size_t)t->nev + 1, sizeof(double));
	t->cov_en = xcalloc((size_t)t->nev + 1, sizeof(double));
	t->per_sum = xcalloc((size_t)t->nev + 1, sizeof(double));
	t->per_n = xcalloc((size_t)t->nev + 1, sizeof(double));
	return t;
}

void tasks_free(struct tasks *t)
{
	if (!t)
		return;
	for (int i = 0; i < t->ncpu; i++) {
		if (t->cpu[i].s)
			t->ops->sample_close(t->bk, t->cpu[i].s);
		tcpu_free(&t->cpu[i]);
	}
	free(t->cpu);
	free(t->slot);
	for (int i = 0; i < t->nmetrics; i++)
		formula_free(t->f[i]);
	free(t->f);
	free(t->metrics);
	free(t->events);
	free(t->avail);
	free(t->pos);
	free(t->cov_run);
	free(t->cov_en);
	free(t->per_sum);
	free(t->per_n);
	free(t->pids);
	free(t->cgroup);
	free(t->work);
	free(t->grad);
	free(t->sd);
	free(t->idx);
	free(t->buf);
	free(t->ent);
	free(t->map);
	free(t->pool);
	for (int i = 0; i < t->ninfo; i++)
		free(t->info[i].cgroup);
	free(t->info);
	free(t);
}

void tasks_select(struct tasks *t, int npids, const int *pids, const char *cgroup)
{
	free(t->pids);
	t->pids = NULL;
	t->npids = npids > 0 ? npids : 0;
	if (t->npids) {
		t->pids = xmalloc(sizeof(int) * (size_t)t->npids);
		memcpy(t->pids, pids, sizeof(int) * (size_t)t->npids);
	}
	free(t->cgroup);
	t->cgroup = cgroup ? xstrdup(cgroup) : NULL;
}

/* Whether -p and --cgroup keep process pid of cgroup cg ("-": unknown). */
static bool selected(const struct tasks *t, int pid, const char *cg)
{
	bool ok = t->npids == 0;
	for (int i = 0; i < t->npids && !ok; i++)
		ok = t->pids[i] == pid;
	if (!ok || !t->cgroup)
		return ok;
	if (!strcmp(t->cgroup, "/"))
		return strcmp(cg, "-") != 0;
	size_t n = strlen(t->cgroup);
	return !strncmp(cg, t->cgroup, n) && (cg[n] == 0 || cg[n] == '/');
}

/* Names event i among those that cannot be sampled (the first three
 * by name, then how many more) and keeps the first reason given. */
static void note_missing(const struct tasks *t, int i, const char *why, char **missing, int *nmissing,
			 char **reason)
{
	if ((*nmissing)++ < 3)
		xappendf(missing, "%s%s", *missing ? ", " : "", t->m->events[t->events[i]].name);
	if (!*reason && why)
		*reason = xstrdup(why);
}

/* Opens the available events on cpu; fills c. */
static int open_on(struct tasks *t, int cpu, struct tcpu *c, char **cause)
{
	int *ev = xmalloc(sizeof(int) * ((size_t)t->nev + 1)), n = 0;
	for (int i = 0; i < t->nev; i++)
		if (t->avail[i])
			ev[n++] = t->events[i];
	*c = (struct tcpu){ .cpu = cpu };
	int rc = n == 0 ? -ENOENT : t->ops->sample_open(t->bk, cpu, ev, n, t->freq, &c->s, cause);
	free(ev);
	if (rc == 0) {
		c->last = xcalloc((size_t)t->nev + 1, sizeof(struct bk_count));
		c->run_pid = xmalloc(sizeof(int) * ((size_t)t->nev + 1));
		c->run_n = xcalloc((size_t)t->nev + 1, sizeof(double));
		c->run_per = xcalloc((size_t)t->nev + 1, sizeof(double));
		for (int i = 0; i < t->nev; i++)
			c->run_pid[i] = -1;
	}
	return rc;
}

int tasks_open(struct tasks *t, const int *cpus, int ncpus, char **notice)
{
	if (!t->ops->sample_open || t->nev == 0) {
		if (notice && t->nev > 0)
			*notice = xstrdup("per-task figures are not available with this backend");
		return 0;
	}
	/* Which events can be sampled together here, found on the first CPU
	 * that takes any: each in turn joins the set if the set still opens,
	 * so that a missing event or a full PMU costs only the figures that
	 * need what did not fit. */
	if (t->freq <= 0) {
		long per = TASKS_SAMPLE_BUDGET / ((long)t->nev * (ncpus > 0 ? ncpus : 1));
		t->freq = per > TASKS_DEFAULT_FREQ ? TASKS_DEFAULT_FREQ : per < TASKS_MIN_FREQ ? TASKS_MIN_FREQ : (int)per;
	}
	char *missing = NULL, *reason = NULL;
	int nmissing = 0;
	t->cpu = xcalloc((size_t)ncpus + 1, sizeof(*t->cpu));
	int *budget = xcalloc((size_t)t->m->npmus + 1, sizeof(int));
	int k = 0;
	for (; k < ncpus; k++) {
		bool offline = false;
		for (int p = 0; p < t->m->npmus; p++)
			budget[p] = (t->ops->free_counters ? t->ops->free_counters(t->bk, p) : t->m->pmus[p].counters) -
				    TASKS_SPARE_COUNTERS;
		for (int i = 0; i < t->nev && !offline; i++) {
			const struct event_def *ev = &t->m->events[t->events[i]];
			int cost = event_sample_counters(t->m, t->events[i]);
			if (cost > budget[ev->pmu]) {
				t->avail[i] = false;
				char *why = xasprintf("%d counters are kept for the CPU figures", TASKS_SPARE_COUNTERS);
				note_missing(t, i, why, &missing, &nmissing, &reason);
				free(why);
				continue;
			}
			t->avail[i] = true;
			struct tcpu c;
			char *why = NULL;
			int rc = open_on(t, cpus[k], &c, &why);
			if (rc == 0) {
				t->ops->sample_close(t->bk, c.s);
				tcpu_free(&c);
				budget[ev->pmu] -= cost;
			} else {
				t->avail[i] = false;
				offline = rc == -ENODEV;
				if (!offline)
					note_missing(t, i, why, &missing, &nmissing, &reason);
			}
			free(why);
		}
		if (!offline)
			break;
		free(missing);
		free(reason);
		missing = reason = NULL;
		nmissing = 0;
	}
	for (; k < ncpus; k++) {
		struct tcpu c;
		if (open_on(t, cpus[k], &c, NULL) == 0)
			t->cpu[t->ncpu++] = c;
	}
	free(budget);
	for (int i = 0; i < t->nev; i++)
		if (t->avail[i])
			t->idx[t->nidx++] = i;
	for (int c = 0; c < t->ncpu; c++)
		if (t->cpu[c].cpu >= t->nslot)
			t->nslot = t->cpu[c].cpu + 1;
	t->slot = xmalloc(sizeof(int) * ((size_t)t->nslot + 1));
	for (int c = 0; c < t->nslot; c++)
		t->slot[c] = -1;
	for (int c = 0; c < t->ncpu; c++)
		t->slot[t->cpu[c].cpu] = c;
	if (missing && notice) {
		char more[48] = "";
		if (nmissing > 3)
			snprintf(more, sizeof(more), " and %d more", nmissing - 3);
		*notice = xasprintf("per-task: cannot sample %s%s (%s): their figures show -", missing, more,
				    reason ? reason : "not available");
	}
	free(missing);
	free(reason);
	return t->ncpu;
}

/* ---- this interval's (pid, cpu) entries ---- */

static uint64_t key_hash(int pid, int cpu)
{
	uint64_t h = ((uint64_t)(unsigned)pid << 24) ^ (uint64_t)(unsigned)cpu;
	h *= 0x9e3779b97f4a7c15ULL;
	return h ^ (h >> 29);
}

static void map_rebuild(struct tasks *t, int cap)
{
	free(t->map);
	t->capmap = cap;
	t->map = xmalloc(sizeof(int) * (size_t)cap);
	for (int i = 0; i < cap; i++)
		t->map[i] = -1;
	for (int e = 0; e < t->nent; e++) {
		size_t h = (size_t)key_hash(t->ent[e].pid, t->ent[e].cpu) & (size_t)(cap - 1);
		while (t->map[h] >= 0)
			h = (h + 1) & (size_t)(cap - 1);
		t->map[h] = e;
	}
}

static struct tent *entry(struct tasks *t, int pid, int cpu)
{
	if (2 * (t->nent + 1) > t->capmap)
		map_rebuild(t, t->capmap ? 2 * t->capmap : 256);
	size_t h = (size_t)key_hash(pid, cpu) & (size_t)(t->capmap - 1);
	while (t->map[h] >= 0) {
		struct tent *e = &t->ent[t->map[h]];
		if (e->pid == pid && e->cpu == cpu)
			return e;
		h = (h + 1) & (size_t)(t->capmap - 1);
	}
	if (t->nent == t->capent) {
		t->capent = t->capent ? 2 * t->capent : 256;
		t->ent = xrealloc(t->ent, sizeof(*t->ent) * (size_t)t->capent);
	}
	size_t need = t->npool + 2 * (size_t)t->nev;
	if (need > t->cappool) {
		/* The entries point into the pool: re-point them after it moves. */
		double *old = t->pool;
		t->cappool = need > 2 * t->cappool ? need : 2 * t->cappool;
		t->pool = xrealloc(t->pool, sizeof(double) * t->cappool);
		for (int i = 0; i < t->nent; i++) {
			t->ent[i].sum = t->pool + (t->ent[i].sum - old);
			t->ent[i].sq = t->pool + (t->ent[i].sq - old);
		}
	}
	struct tent *e = &t->ent[t->nent];
	*e = (struct tent){ .pid = pid, .cpu = cpu, .sum = t->pool + t->npool, .sq = t->pool + t->npool + t->nev };
	memset(e->sum, 0, sizeof(double) * 2 * (size_t)t->nev);
	t->npool = need;
	t->map[h] = t->nent++;
	return e;
}

/* The variance of a task's count from one run of its samples on a CPU.
 * Within a run the samples count its occurrences exactly; the error is
 * at the two ends, where the count since the last sample (between 0 and
 * a period) belongs to the task before or after: two uniform errors,
 * P^2/6. A run of one sample may stand for a visit shorter than a
 * period that happened to be sampled (or several that were not): P^2,
 * as if the samples were a Poisson count. tests/check_tasks.c judges
 * this against the simulator's truth. */
static void run_end(struct tasks *t, struct tcpu *c, int i)
{
	if (c->run_pid[i] < 0)
		return;
	double p = c->run_per[i];
	entry(t, c->run_pid[i], c->cpu)->sq[i] += p * p * (c->run_n[i] > 1 ? 1.0 / 6.0 : 1.0);
	c->run_pid[i] = -1;
	c->run_n[i] = 0;
}

static void on_sample(void *arg, int cpu, const struct bk_task_sample *s)
{
	struct tasks *t = arg;
	int i = s->event >= 0 && s->event < t->nidx ? t->idx[s->event] : -1;
	int slot = cpu >= 0 && cpu < t->nslot ? t->slot[cpu] : -1;
	if (i < 0 || slot < 0)
		return;
	struct tcpu *c = &t->cpu[slot];
	if (c->run_pid[i] != s->pid)
		run_end(t, c, i);
	c->run_pid[i] = s->pid;
	c->run_n[i] += s->n;
	c->run_per[i] = (double)s->period;
	struct tent *e = entry(t, s->pid, cpu);
	double p = (double)s->period, n = s->n;
	e->sum[i] += n * p;
	e->samples += n;
	t->received += n;
	t->per_sum[i] += n * p;
	t->per_n[i] += n;
}

void tasks_drain(struct tasks *t)
{
	for (int c = 0; c < t->ncpu; c++) {
		struct tcpu *tc = &t->cpu[c];
		if (tc->dead)
			continue;
		long rc = t->ops->sample_drain(t->bk, tc->s, on_sample, t);
		if (rc == -ENODEV)
			tc->dead = true;
		else if (rc > 0)
			t->lost += rc;
	}
}

/* ---- names ---- */

/* Sorted by pid, for lookups by bisection. */
static int cmp_info(const void *a, const void *b)
{
	const struct info *x = a, *y = b;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* By bisection in the part sorted at the last interval's end, then in
 * what this interval added: sorted too, since tasks_finish looks pids up
 * in increasing order (a linear search there cost the square of the
 * processes new in an interval: thousands a second on a build server). */
static struct info *info_find(struct tasks *t, int pid)
{
	struct info key = { .pid = pid };
	struct info *in = t->nsorted ? bsearch(&key, t->info, (size_t)t->nsorted, sizeof(*t->info), cmp_info) : NULL;
	int nnew = t->ninfo - t->nsorted;
	if (!in && nnew > 0)
		in = bsearch(&key, t->info + t->nsorted, (size_t)nnew, sizeof(*t->info), cmp_info);
	return in;
}

/* Looks up pid's name and cgroup where they are not known or are old. */
static struct info *lookup(struct tasks *t, int pid)
{
	struct info *in = info_find(t, pid);
	if (in && t->seq - in->looked < INFO_REFRESH) {
		in->seen = t->seq;
		return in;
	}
	char comm[COMM_MAX] = "";
	char *cg = NULL;
	int rc = t->ops->task_info ? t->ops->task_info(t->bk, pid, comm, sizeof(comm), &cg) : -ESRCH;
	if (rc < 0) {
		if (in)
			in->seen = t->seq;  /* ended since: keep what was seen */
		return in;
	}
	if (!in) {
		if (t->ninfo == t->capinfo) {
			t->capinfo = t->capinfo ? 2 * t->capinfo : 64;
			t->info = xrealloc(t->info, sizeof(*t->info) * (size_t)t->capinfo);
		}
		in = &t->info[t->ninfo++];
		*in = (struct info){ .pid = pid };
	}
	snprintf(in->comm, sizeof(in->comm), "%s", comm);
	text_sanitize_inplace(in->comm);
	free(in->cgroup);
	in->cgroup = cg;
	if (in->cgroup)
		text_sanitize_inplace(in->cgroup);
	in->looked = in->seen = t->seq;
	return in;
}

/* Drops names not seen for a while and sorts the rest. */
static void info_tidy(struct tasks *t)
{
	int k = 0;
	for (int i = 0; i < t->ninfo; i++) {
		if (t->seq - t->info[i].seen > 10 * INFO_REFRESH) {
			free(t->info[i].cgroup);
			continue;
		}
		t->info[k++] = t->info[i];
	}
	t->ninfo = k;
	qsort(t->info, (size_t)t->ninfo, sizeof(*t->info), cmp_info);
	t->nsorted = t->ninfo;
}

/* ---- the interval's rows ---- */

/* A process or cgroup being summed. */
struct acc {
	int pid;
	const char *cgroup;
	int nprocs;
	double *sum, *sq;
	/* [nmetrics] per split metric (task_watts): joules of the socket
	 * figure it was given, and that estimate's variance. */
	double *split, *split_var;
	double samples;
	int ncpus, capcpus;
	struct cpu_w { int cpu; double w; } *cpus;   /* where it ran, and its first event's count there */
};

static void acc_cpu(struct acc *a, int cpu, double w)
{
	for (int i = 0; i < a->ncpus; i++)
		if (a->cpus[i].cpu == cpu) {
			a->cpus[i].w += w;
			return;
		}
	if (a->ncpus == a->capcpus) {
		a->capcpus = a->capcpus ? 2 * a->capcpus : 4;
		a->cpus = xrealloc(a->cpus, sizeof(*a->cpus) * (size_t)a->capcpus);
	}
	a->cpus[a->ncpus++] = (struct cpu_w){ cpu, w };
}

static int cmp_cpu_w(const void *a, const void *b)
{
	const struct cpu_w *x = a, *y = b;
	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

/* Fills row r from a: metrics with their uncertainty, CPUs, coverage. */
static void fill_row(struct tasks *t, struct acc *a, struct snap_task *r, double interval_s)
{
	const struct model *m = t->m;
	r->nprocs = a->nprocs;
	r->samples = a->samples;
	r->metric = xmalloc(sizeof(double) * ((size_t)m->nmetrics + 1));
	r->metric_rse = xmalloc(sizeof(double) * ((size_t)m->nmetrics + 1));
	for (int i = 0; i < m->nmetrics; i++)
		r->metric[i] = r->metric_rse[i] = NAN;
	r->cov = t->row_cov;
	for (int k = 0; k < t->nmetrics; k++) {
		const struct formula *f = t->f[k];
		if (!f)
			continue;
		int nv = formula_nvars(f);
		const int *vars = formula_vars(f);
		double *work = t->work, *grad = t->grad, *sd = t->sd;
		bool ok = true;
		for (int v = 0; v < nv; v++) {
			int i = t->pos[vars[v]];
			if (i < 0 || !t->avail[i]) {
				ok = false;
				break;
			}
			work[v] = a->sum[i];
			/* No sample of the event: it may still have occurred up to
			 * about a period: one period's variance, not certainty. */
			double per = t->per_n[i] > 0 ? t->per_sum[i] / t->per_n[i] : 0;
			sd[v] = sqrt(a->sq[i] + (a->sum[i] == 0 ? per * per : 0));
		}
		if (!ok)
			continue;
		double val = formula_eval_grad(f, interval_s, nv, grad, work);
		double var = 0;
		for (int v = 0; v < nv; v++)
			var += grad[v] * sd[v] * grad[v] * sd[v];
		int mi = t->metrics[k];
		r->metric[mi] = val;
		/* A zero estimate that might not be zero has no relative error. */
		r->metric_rse[mi] = !isfinite(val) ? NAN : val != 0 ? sqrt(var) / fabs(val) : var == 0 ? 0 : NAN;
	}
	/* A figure shared out by task: what split_add gave it. */
	for (int k = 0; k < t->nmetrics; k++) {
		int mi = t->metrics[k];
		if (m->metrics[mi].split < 0)
			continue;
		double j = a->split[k];
		r->metric[mi] = interval_s > 0 ? j / interval_s : NAN;
		r->metric_rse[mi] = !isfinite(j) ? NAN : j != 0 ? sqrt(a->split_var[k]) / fabs(j) : NAN;
	}
	/* CPUs in order, with the share of its samples of the first event. */
	qsort(a->cpus, (size_t)a->ncpus, sizeof(*a->cpus), cmp_cpu_w);
	double total = 0;
	for (int i = 0; i < a->ncpus; i++)
		total += a->cpus[i].w;
	r->ncpus = a->ncpus;
	r->cpus = xmalloc(sizeof(int) * ((size_t)a->ncpus + 1));
	r->cpu_share = xmalloc(sizeof(double) * ((size_t)a->ncpus + 1));
	for (int i = 0; i < a->ncpus; i++) {
		r->cpus[i] = a->cpus[i].cpu;
		r->cpu_share[i] = total > 0 ? a->cpus[i].w / total : 0;
	}
}

/* The metric rows are sorted by: qsort has no argument for it, and only
 * the sampler's thread finishes intervals. */
static int sort_metric;

/* Busiest first by the view's first column; NaN last; then by pid. */
static int cmp_rows(const void *a, const void *b)
{
	const struct snap_task *x = a, *y = b;
	double u = x->metric[sort_metric], v = y->metric[sort_metric];
	if (isnan(u) != isnan(v))
		return isnan(u) ? 1 : -1;
	if (u != v && !isnan(u))
		return u < v ? 1 : -1;
	if (x->cgroup && y->cgroup && x->pid < 0) {
		int c = strcmp(x->cgroup, y->cgroup);
		if (c)
			return c;
	}
	return (x->pid > y->pid) - (x->pid < y->pid);
}

static int cmp_tent(const void *a, const void *b)
{
	const struct tent *x = a, *y = b;
	if (x->pid != y->pid)
		return (x->pid > y->pid) - (x->pid < y->pid);
	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

static int cmp_acc_cgroup(const void *a, const void *b)
{
	const struct acc *x = a, *y = b;
	return strcmp(x->cgroup, y->cgroup);
}

/* Adds from's sums to to's, not where it ran (acc_add does both). */
static void acc_add_sums(struct acc *to, const struct acc *from, int nev, int nm)
{
	for (int i = 0; i < nev; i++) {
		to->sum[i] += from->sum[i];
		to->sq[i] += from->sq[i];
	}
	for (int k = 0; k < nm; k++) {
		to->split[k] += from->split[k];
		to->split_var[k] += from->split_var[k];
	}
	to->samples += from->samples;
	to->nprocs += from->nprocs;
}

static void acc_add(struct acc *to, const struct acc *from, int nev, int nm)
{
	acc_add_sums(to, from, nev, nm);
	for (int c = 0; c < from->ncpus; c++)
		acc_cpu(to, from->cpus[c].cpu, from->cpus[c].w);
}

static void acc_init(struct acc *a, int nev, int nm)
{
	memset(a, 0, sizeof(*a));
	a->sum = xcalloc(2 * (size_t)nev + 2 * (size_t)nm + 1, sizeof(double));
	a->sq = a->sum + nev;
	a->split = a->sq + nev;
	a->split_var = a->split + nm;
}

static void acc_clear(struct acc *a)
{
	free(a->sum);
	free(a->cpus);
}

/* Per split metric and socket: joules of the socket figure (pkg_watts
 * over the interval) per occurrence of the metric's event (a cycle)
 * sampled on the socket's CPUs, idle and unnamed tasks included, so that
 * the tasks' shares add up to the socket's energy. NaN where the socket
 * figure is not known. Caller frees. */
static double *split_rates(struct tasks *t, const struct snapshot *snap, double interval_s)
{
	const struct model *m = t->m;
	int ncpu = 0, nsock = 0;
	for (int r = 0; r < snap->nrows[SNAP_CPU]; r++)
		if (snap->rows[SNAP_CPU][r].cpu >= ncpu)
			ncpu = snap->rows[SNAP_CPU][r].cpu + 1;
	for (int r = 0; r < snap->nrows[SNAP_SOCKET]; r++)
		if (snap->rows[SNAP_SOCKET][r].socket >= nsock)
			nsock = snap->rows[SNAP_SOCKET][r].socket + 1;
	/* Layout: [0] ncpu, [1] nsock, then the socket of each CPU (-1),
	 * then per metric and socket the joules per occurrence. */
	double *v = xmalloc(sizeof(double) * (2 + (size_t)ncpu + (size_t)t->nmetrics * (size_t)nsock + 1));
	v[0] = ncpu;
	v[1] = nsock;
	double *sock_of = v + 2, *jpw = sock_of + ncpu;
	for (int c = 0; c < ncpu; c++)
		sock_of[c] = -1;
	for (int r = 0; r < snap->nrows[SNAP_CPU]; r++) {
		const struct snap_row *row = &snap->rows[SNAP_CPU][r];
		if (row->cpu >= 0)
			sock_of[row->cpu] = row->socket;
	}
	for (int k = 0; k < t->nmetrics; k++) {
		const struct metric_def *md = &m->metrics[t->metrics[k]];
		double *j = jpw + (size_t)k * (size_t)nsock;
		for (int s = 0; s < nsock; s++)
			j[s] = NAN;
		if (md->split < 0)
			continue;
		int i = t->pos[expr_ref(md->expr)];
		if (i < 0 || !t->avail[i])
			continue;
		double *total = xcalloc((size_t)nsock + 1, sizeof(double));
		for (int e = 0; e < t->nent; e++) {
			int cpu = t->ent[e].cpu;
			int s = cpu >= 0 && cpu < ncpu ? (int)sock_of[cpu] : -1;
			if (s >= 0)
				total[s] += t->ent[e].sum[i];
		}
		for (int r = 0; r < snap->nrows[SNAP_SOCKET]; r++) {
			const struct snap_row *row = &snap->rows[SNAP_SOCKET][r];
			double w = snap_metric(snap, row, md->split);
			if (row->socket >= 0 && total[row->socket] > 0)
				j[row->socket] = w * interval_s / total[row->socket];
		}
		free(total);
	}
	return v;
}

/* Adds entry te's share of each split figure to a: its occurrences of
 * the metric's event times the joules each stood for on its socket, with
 * the sampling variance of those occurrences. */
static void split_add(const struct tasks *t, struct acc *a, const struct tent *te, const double *v)
{
	int ncpu = (int)v[0], nsock = (int)v[1];
	const double *sock_of = v + 2, *jpw = sock_of + ncpu;
	int s = te->cpu >= 0 && te->cpu < ncpu ? (int)sock_of[te->cpu] : -1;
	for (int k = 0; k < t->nmetrics; k++) {
		const struct metric_def *md = &t->m->metrics[t->metrics[k]];
		if (md->split < 0)
			continue;
		int i = t->pos[expr_ref(md->expr)];
		double j = s >= 0 && i >= 0 ? jpw[(size_t)k * (size_t)nsock + (size_t)s] : NAN;
		a->split[k] += te->sum[i >= 0 ? i : 0] * j;
		a->split_var[k] += te->sq[i >= 0 ? i : 0] * j * j;
	}
}

/* Each event's coverage over the interval, summed over the CPUs, and the
 * rows' coverage: the lowest of them, and of the samples the kernel kept. */
static void cover_events(struct tasks *t)
{
	/* Coverage of each event over the interval, summed over the CPUs. */
	struct bk_count *buf = t->buf;
	for (int i = 0; i < t->nev; i++)
		t->cov_run[i] = t->cov_en[i] = 0;
	for (int c = 0; c < t->ncpu; c++) {
		struct tcpu *tc = &t->cpu[c];
		if (tc->dead || !t->ops->sample_read || t->ops->sample_read(t->bk, tc->s, buf) < 0)
			continue;
		for (int k = 0; k < t->nidx; k++) {
			int i = t->idx[k];
			t->cov_en[i] += (double)(buf[k].time_enabled - tc->last[i].time_enabled);
			t->cov_run[i] += (double)(buf[k].time_running - tc->last[i].time_running);
			tc->last[i] = buf[k];
		}
	}
	/* Samples the kernel dropped (a full ring) went missing from some
	 * task's count: which, nobody knows, so every row says how much. */
	t->row_cov = t->lost > 0 ? t->received / (t->received + (double)t->lost) : 1;
	for (int k = 0; k < t->nidx; k++) {
		int i = t->idx[k];   /* an event not sampled here: its figures are NaN, not uncovered */
		double c = t->cov_en[i] > 0 ? t->cov_run[i] / t->cov_en[i] : 0;
		if (c < t->row_cov)
			t->row_cov = c;
	}
}

/* The processes of the interval, their (pid, cpu) entries summed, those
 * the selection (-p, --cgroup) keeps as rows of snap; returns their sums
 * (*nout of them, each with its row's cgroup), for the cgroups. jpw: the
 * figures shared out by task (split_rates). */
static struct acc *sum_processes(struct tasks *t, struct snapshot *snap, double interval_s, const double *jpw,
				 int *nout)
{
	/* Processes: their (pid, cpu) entries summed. */
	qsort(t->ent, (size_t)t->nent, sizeof(*t->ent), cmp_tent);
	struct acc *procs = xcalloc((size_t)t->nent + 1, sizeof(*procs));
	int np = 0;
	for (int e = 0; e < t->nent; e++) {
		const struct tent *te = &t->ent[e];
		/* The idle task; and samples the kernel could not name a
		 * process for (pid -1: a task exiting, or one outside pmctop's
		 * pid namespace). */
		if (te->pid <= 0)
			continue;
		if (np == 0 || procs[np - 1].pid != te->pid) {
			acc_init(&procs[np], t->nev, t->nmetrics);
			procs[np].pid = te->pid;
			procs[np].nprocs = 1;
			np++;
		}
		struct acc *a = &procs[np - 1];
		for (int i = 0; i < t->nev; i++) {
			a->sum[i] += te->sum[i];
			a->sq[i] += te->sq[i];
		}
		split_add(t, a, te, jpw);
		a->samples += te->samples;
		acc_cpu(a, te->cpu, t->nev > 0 ? te->sum[0] : 0);
	}
	snap->ntasks = 0;
	snap->tasks = np ? xcalloc((size_t)np, sizeof(*snap->tasks)) : NULL;
	int kept = 0;
	for (int p = 0; p < np; p++) {
		struct info *in = lookup(t, procs[p].pid);
		const char *cg = in && in->cgroup ? in->cgroup : "-";
		if (!selected(t, procs[p].pid, cg)) {
			acc_clear(&procs[p]);
			continue;
		}
		struct snap_task *r = &snap->tasks[snap->ntasks++];
		r->pid = procs[p].pid;
		r->comm = xstrdup(in && in->comm[0] ? in->comm : "-");
		r->cgroup = xstrdup(cg);
		procs[kept] = procs[p];
		procs[kept].cgroup = r->cgroup;
		fill_row(t, &procs[kept], r, interval_s);
		kept++;
	}
	*nout = kept;
	return procs;
}

static void sum_cgroup_tree(struct tasks *t, struct snapshot *snap, struct acc *groups, int ng, double interval_s);

/* The cgroups of the interval: their processes (procs, np) summed. */
static void sum_cgroups(struct tasks *t, struct snapshot *snap, struct acc *procs, int np, double interval_s)
{
	/* Cgroups: their processes summed. */
	qsort(procs, (size_t)np, sizeof(*procs), cmp_acc_cgroup);
	snap->ncgroups = 0;
	snap->cgroups = np ? xcalloc((size_t)np, sizeof(*snap->cgroups)) : NULL;
	struct acc *groups = xcalloc((size_t)np + 1, sizeof(*groups));
	for (int p = 0; p < np;) {
		struct acc *g = &groups[snap->ncgroups];
		acc_init(g, t->nev, t->nmetrics);
		g->cgroup = procs[p].cgroup;
		int q = p;
		for (; q < np && !strcmp(procs[q].cgroup, g->cgroup); q++)
			acc_add(g, &procs[q], t->nev, t->nmetrics);
		struct snap_task *r = &snap->cgroups[snap->ncgroups++];
		r->pid = -1;
		r->cgroup = xstrdup(g->cgroup);
		fill_row(t, g, r, interval_s);
		p = q;
	}
	sum_cgroup_tree(t, snap, groups, snap->ncgroups, interval_s);
	for (int g = 0; g < snap->ncgroups; g++)
		acc_clear(&groups[g]);
	free(groups);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The lengths of the cgroups on the way to path p, itself last: "/a/b"
 * gives 1 ("/"), 2 ("/a"), 4; a path not from the root ("-") only its
 * own. len[] holds strlen(p) + 1. */
static int cgroup_prefixes(const char *p, size_t *len)
{
	size_t n = strlen(p);
	int k = 0;
	for (size_t i = 0; p[0] == '/' && i < n; i++)
		if (p[i] == '/')
			len[k++] = i == 0 ? 1 : i;
	if (k == 0 || len[k - 1] != n)
		len[k++] = n;
	return k;
}

/* The cgroup tree: each path of groups[0..ng-1] and every cgroup above
 * it ("/a/b": "/", "/a", "/a/b"), each with the sums of the groups in it
 * or below it; a path that does not start with '/' ("-": not known)
 * stands alone. Each group is added to each of its ancestors, so the cost
 * is groups x depth, not groups x cgroups. */
static void sum_cgroup_tree(struct tasks *t, struct snapshot *snap, struct acc *groups, int ng, double interval_s)
{
	int cap = 0, n = 0;
	char **path = NULL;
	for (int g = 0; g < ng; g++) {
		const char *p = groups[g].cgroup;
		size_t *len = xmalloc(sizeof(size_t) * (strlen(p) + 1));
		int k = cgroup_prefixes(p, len);
		for (int j = 0; j < k; j++) {
			if (n == cap) {
				cap = cap ? 2 * cap : 16;
				path = xrealloc(path, sizeof(*path) * (size_t)cap);
			}
			path[n++] = xstrndup(p, len[j]);
		}
		free(len);
	}
	/* qsort may not be handed NULL, even for none. */
	if (n > 1)
		qsort(path, (size_t)n, sizeof(*path), cmp_str);
	int u = 0;
	for (int i = 0; i < n; i++) {
		if (u > 0 && !strcmp(path[u - 1], path[i]))
			free(path[i]);
		else
			path[u++] = path[i];
	}
	/* Each cgroup sums the groups in its subtree: those whose path
	 * starts with its own (they follow each other in strcmp order, from
	 * the first not below it), where the path is its or goes on with a
	 * '/'. Their CPUs go through one map (CPU -> place in the cgroup's
	 * list): adding a group's CPUs costs their number, not that times
	 * the cgroup's (3 ms an interval at 384 CPUs with acc_cpu's search). */
	int maxcpu = 0;
	for (int g = 0; g < ng; g++)
		for (int c = 0; c < groups[g].ncpus; c++)
			if (groups[g].cpus[c].cpu + 1 > maxcpu)
				maxcpu = groups[g].cpus[c].cpu + 1;
	int *at = xmalloc(sizeof(int) * ((size_t)maxcpu + 1));
	for (int c = 0; c < maxcpu; c++)
		at[c] = -1;
	struct acc *node = xcalloc((size_t)u + 1, sizeof(*node));
	for (int i = 0; i < u; i++) {
		struct acc *a = &node[i];
		acc_init(a, t->nev, t->nmetrics);
		const char *p = path[i];
		size_t pl = strlen(p);
		bool root = !strcmp(p, "/");
		int lo = 0, hi = ng;
		while (lo < hi) {
			int mid = lo + (hi - lo) / 2;
			if (strcmp(groups[mid].cgroup, p) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (int g = lo; g < ng && !strncmp(groups[g].cgroup, p, pl); g++) {
			const struct acc *gr = &groups[g];
			char next = gr->cgroup[pl];
			if (!root && next && next != '/')
				continue;
			acc_add_sums(a, gr, t->nev, t->nmetrics);
			for (int c = 0; c < gr->ncpus; c++) {
				int cpu = gr->cpus[c].cpu;
				if (at[cpu] >= 0) {
					a->cpus[at[cpu]].w += gr->cpus[c].w;
					continue;
				}
				if (a->ncpus == a->capcpus) {
					a->capcpus = a->capcpus ? 2 * a->capcpus : 16;
					a->cpus = xrealloc(a->cpus, sizeof(*a->cpus) * (size_t)a->capcpus);
				}
				at[cpu] = a->ncpus;
				a->cpus[a->ncpus++] = gr->cpus[c];
			}
		}
		for (int c = 0; c < a->ncpus; c++)
			at[a->cpus[c].cpu] = -1;
	}
	free(at);
	snap->ncgtree = u;
	snap->cgtree = u ? xcalloc((size_t)u, sizeof(*snap->cgtree)) : NULL;
	for (int i = 0; i < u; i++) {
		struct snap_task *r = &snap->cgtree[i];
		r->pid = -1;
		r->cgroup = path[i];
		fill_row(t, &node[i], r, interval_s);
		acc_clear(&node[i]);
	}
	free(node);
	free(path);
}

/* Which metrics the sampling can give at all: those whose every event
 * is sampled here (the dashboard hides the others' columns). */
static void note_measured(const struct tasks *t, struct snapshot *snap)
{
	snap->task_measured = xcalloc((size_t)t->m->nmetrics + 1, sizeof(bool));
	for (int k = 0; k < t->nmetrics; k++) {
		const struct metric_def *md = &t->m->metrics[t->metrics[k]];
		bool ok = t->f[k] != NULL || md->split >= 0;
		for (int e = 0; ok && e < md->nevents; e++) {
			int i = t->pos[md->events[e]];
			ok = i >= 0 && t->avail[i];
		}
		snap->task_measured[t->metrics[k]] = ok;
	}
}

void tasks_finish(struct tasks *t, struct snapshot *snap, double interval_s)
{
	tasks_drain(t);
	/* The interval's end ends every run: the count since the last sample
	 * goes to the next interval. */
	for (int c = 0; c < t->ncpu; c++)
		for (int i = 0; i < t->nev; i++)
			run_end(t, &t->cpu[c], i);
	t->seq++;
	snap->tasks_on = true;
	snap->task_freq = t->freq;
	snap->tasks_lost = t->lost;
	note_measured(t, snap);
	cover_events(t);
	double *jpw = split_rates(t, snap, interval_s);
	int np = 0;
	struct acc *procs = sum_processes(t, snap, interval_s, jpw, &np);
	sum_cgroups(t, snap, procs, np, interval_s);
	for (int p = 0; p < np; p++)
		acc_clear(&procs[p]);
	free(procs);
	free(jpw);
	sort_metric = t->nmetrics > 0 ? t->metrics[0] : 0;
	/* No rows (-p of a process that did not run) is no array at all:
	 * qsort may not be handed NULL, even for none. */
	if (t->nmetrics > 0 && snap->ntasks > 1)
		qsort(snap->tasks, (size_t)snap->ntasks, sizeof(*snap->tasks), cmp_rows);
	if (t->nmetrics > 0 && snap->ncgroups > 1)
		qsort(snap->cgroups, (size_t)snap->ncgroups, sizeof(*snap->cgroups), cmp_rows);
	info_tidy(t);
	t->lost = 0;
	t->received = 0;
	t->nent = 0;
	t->npool = 0;
	for (int i = 0; i < t->nev; i++)
		t->per_sum[i] = t->per_n[i] = 0;
	if (t->capmap)
		map_rebuild(t, t->capmap);
}
