/* backend_sim_tasks.c: the simulator's per-task sampling ops: a CPU that
 * samples holds general counters for its sampled events (which the counted
 * groups then do without), and its samples come from sim_sampling.c over
 * the task mix of sim_tasks.c. Split from backend_sim.c as the ops of one
 * feature, apart from the counting groups. */
#include "config.h"
#include "backend.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_sampling.h"
#include "sim_tasks.h"
#include "sim_workload.h"
#include "util.h"
#include "backend_sim_impl.h"

/* ---- per-task sampling ---- */

/* General counters a sampled event holds (none for software events). */
static int sample_counters(const struct backend *b, int e)
{
	const struct pmu_def *pd = &b->m->pmus[b->m->events[e].pmu];
	if (sim_pmu_unlimited(pd))
		return 0;
	return b->m->events[e].flags & EVF_MERGE ? 2 : 1;
}

int sim_sample_open(struct backend *b, int cpu, const int *events, int n, int freq,
		    struct bk_sampler **out, char **cause)
{
	*out = NULL;
	if (!sim_cpu_usable(b, cpu)) {
		set_cause(cause, "CPU %d is offline", cpu);
		return -ENODEV;
	}
	struct sim_cpu *c = &b->cpus[cpu];
	if (c->smp) {
		set_cause(cause, "CPU %d already samples", cpu);
		return -EBUSY;
	}
	int *need = xcalloc((size_t)b->m->npmus, sizeof(int));
	for (int i = 0; i < n; i++) {
		const struct event_def *ev = &b->m->events[events[i]];
		if (sim_absent_why(b, ev->pmu) || (ev->requires && !b->features)) {
			set_cause(cause, "cannot sample %s on CPU %d: no such event here", ev->name, cpu);
			free(need);
			return -ENOENT;
		}
		need[ev->pmu] += sample_counters(b, events[i]);
	}
	for (int p = 0; p < b->m->npmus; p++) {
		int g, f;
		sim_free_on(b, p, true, &g, &f);
		if (need[p] > g) {
			set_cause(cause, "cannot sample on CPU %d: %d counters of %s needed, %d free", cpu, need[p],
				  b->m->pmus[p].name, g);
			free(need);
			return -EBUSY;
		}
	}
	if (!b->tasks) {
		b->tasks = simt_new(b->wp.seed, b->ncpu_map);
		b->truth = simtruth_new();
		b->pinned = xcalloc((size_t)b->m->npmus, sizeof(int));
	}
	for (int p = 0; p < b->m->npmus; p++)
		if (need[p] > b->pinned[p])
			b->pinned[p] = need[p];
	free(need);
	c->smp = simsmp_new(cpu, events, n, freq, b->now);
	b->nsamplers++;
	*out = (struct bk_sampler *)c;
	return 0;
}

long sim_sample_drain(struct backend *b, struct bk_sampler *s, bk_sample_fn fn, void *arg)
{
	struct sim_cpu *c = (struct sim_cpu *)s;
	long lost = simsmp_drain(c->smp, fn, arg);
	if (!sim_cpu_usable(b, c->cpu))
		return -ENODEV;
	return lost;
}

int sim_sample_read(struct backend *b, struct bk_sampler *s, struct bk_count *out)
{
	struct sim_cpu *c = (struct sim_cpu *)s;
	if (!sim_cpu_usable(b, c->cpu))
		return -ENODEV;
	simsmp_read(c->smp, b->now, out);
	return 0;
}

void sim_sample_close(struct backend *b, struct bk_sampler *s)
{
	struct sim_cpu *c = (struct sim_cpu *)s;
	simsmp_free(c->smp);
	c->smp = NULL;
	if (--b->nsamplers == 0 && b->pinned)
		memset(b->pinned, 0, sizeof(int) * (size_t)b->m->npmus);
}

int sim_task_info(struct backend *b, int pid, char *comm, size_t cap, char **cgroup)
{
	const char *name, *cg;
	if (!b->tasks || simt_info(b->tasks, pid, &name, &cg) < 0)
		return -ESRCH;
	snprintf(comm, cap, "%s", name);
	*cgroup = xstrdup(cg);
	return 0;
}
