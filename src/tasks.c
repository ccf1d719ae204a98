/* tasks.c: per-process and per-cgroup figures from sampling (tasks.h):
 * opening the sampling on each CPU and taking its samples into this
 * interval's (pid, cpu) entries. The rows an interval ends with are made
 * by tasks_rows.c, the processes' names kept by tasks_names.c; split so
 * that each file holds one stage, sharing the state in tasks_impl.h. */
#include "config.h"
#include "tasks.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "expr.h"
#include "formula.h"
#include "util.h"
#include "tasks_impl.h"

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
bool tasks_selected(const struct tasks *t, int pid, const char *cg)
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

void tasks_map_rebuild(struct tasks *t, int cap)
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
		tasks_map_rebuild(t, t->capmap ? 2 * t->capmap : 256);
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
void tasks_run_end(struct tasks *t, struct tcpu *c, int i)
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
		tasks_run_end(t, c, i);
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
