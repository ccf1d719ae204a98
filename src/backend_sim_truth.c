/* backend_sim_truth.c: what the simulator offers tests beyond the ops:
 * the ground truth (what really happened, to judge pmctop's figures by),
 * the test controls (constant rates, fast-forward) and the injected faults
 * that reads and opens meet (Faults atop backend_sim.c). Split from
 * backend_sim.c because none of it is part of a PMU: it is how tests see
 * through and steer one. */
#include "config.h"
#include "backend.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_sampling.h"
#include "sim_workload.h"
#include "util.h"
#include "backend_sim_impl.h"

/* ---- ground truth ---- */

/* The counter slot an instance is read from (and its channel count), or
 * -1 for an instance this simulator does not have. */
static int truth_slot(struct backend *b, const struct bk_instance *inst, int *nch)
{
	if (!b || !inst || inst->pmu < 0 || inst->pmu >= b->m->npmus)
		return -1;
	char *cause = NULL;
	int k = sim_slot_index(b, &b->m->pmus[inst->pmu], inst, nch, &cause);
	free(cause);
	return k >= 0 && k < b->nslots[inst->pmu] ? k : -1;
}

int sim_truth_source(struct backend *b, const struct bk_instance *inst, double *q)
{
	int nch = 1;
	if (truth_slot(b, inst, &nch) < 0)
		return -1;
	const double *src = sim_source_of(b, &b->m->pmus[inst->pmu], inst);
	for (int i = 0; i < WQ_COUNT; i++)
		q[i] = src[i] / nch;
	return 0;
}

double sim_truth_event(struct backend *b, int cpu, int event, const double *dq, double running_ns)
{
	if (!b || event < 0 || event >= b->m->nevents)
		return NAN;
	const struct sim_cpu *c = cpu >= 0 && cpu < b->ncpu_map ? &b->cpus[cpu] : NULL;
	return sim_event_value(b, c, event, dq, running_ns);
}

int sim_truth_group(struct backend *b, const struct bk_instance *inst, const int *events, int n,
		    double *out, double *running_ns)
{
	int nch = 1;
	int k = truth_slot(b, inst, &nch);
	if (k < 0)
		return -1;
	const struct sim_slot *slot = &b->slots[inst->pmu][k];
	for (struct bk_group *g = b->open_groups; g; g = g->next_open) {
		if (g->slot != slot || g->nevents != n || memcmp(g->events, events, sizeof(int) * (size_t)n))
			continue;
		sim_settle(b, g);
		for (int i = 0; i < n; i++)
			out[i] = sim_event_value(b, &b->cpus[g->cpu], events[i], g->acc, (double)g->t_running);
		*running_ns = (double)g->t_running;
		return 0;
	}
	return -1;
}

double sim_truth_task(struct backend *b, int pid, int event)
{
	return b ? simtruth_get(b->truth, pid, event) : 0;
}

int sim_truth_pids(struct backend *b, int *pids, int max)
{
	return b ? simtruth_pids(b->truth, pids, max) : 0;
}

/* ---- test controls ---- */

bool sim_fast_forward(const struct backend *b)
{
	return b && b->ff;
}

void sim_inject_fault(struct backend *b, const struct sim_fault *f)
{
	if (!b || !f)
		return;
	if (f->err == 0) {
		/* Clears the faults of that CPU (all with -1). */
		for (int i = 0; i < b->nfaults;)
			if (f->cpu == -1 || b->faults[i].f.cpu == f->cpu)
				sim_drop_fault(b, i);
			else
				i++;
		return;
	}
	if (b->nfaults == SIM_MAX_FAULTS)
		sim_drop_fault(b, 0);
	b->faults[b->nfaults].f = *f;
	b->faults[b->nfaults].f.err = f->err > 0 ? -f->err : f->err;
	b->faults[b->nfaults].seen = 0;
	b->nfaults++;
}

void sim_set_constant_rates(struct backend *b, int cpu, const double *rates)
{
	if (!b || cpu < 0 || cpu >= b->ncpu_map)
		return;
	struct sim_cpu *c = &b->cpus[cpu];
	if (!rates) {
		free(c->rates);
		c->rates = NULL;
		return;
	}
	if (!c->rates)
		c->rates = xmalloc(sizeof(double) * (size_t)(b->m->nevents ? b->m->nevents : 1));
	memcpy(c->rates, rates, sizeof(double) * (size_t)b->m->nevents);
}

/* ---- faults ---- */

/* The first fault for cpu of the given kind, as an index, or -1. */
int sim_match_fault(const struct backend *b, int cpu, bool on_open)
{
	for (int i = 0; i < b->nfaults; i++) {
		const struct sim_fault *f = &b->faults[i].f;
		if (f->on_open == on_open && (f->cpu == -1 || f->cpu == cpu))
			return i;
	}
	return -1;
}

void sim_drop_fault(struct backend *b, int i)
{
	memmove(&b->faults[i], &b->faults[i + 1], sizeof(b->faults[0]) * (size_t)(b->nfaults - i - 1));
	b->nfaults--;
}

void sim_go_offline(struct backend *b, int cpu)
{
	if (cpu < 0 || cpu >= b->ncpu_map || b->cpus[cpu].offline)
		return;
	/* Settle every group on the CPU first so that it keeps what it counted. */
	for (int p = 0; p < b->m->npmus; p++)
		for (int k = 0; k < b->nslots[p]; k++) {
			struct sim_slot *s = &b->slots[p][k];
			for (int i = 0; i < s->ngroups; i++)
				if (s->enabled[i]->cpu == cpu) {
					sim_settle(b, s->enabled[i]);
					s->enabled[i]->running = false;
				}
		}
	b->cpus[cpu].offline = true;
}
