/* sampler_companion.c: one time window for ratios of counters and
 * always-counting per-CPU figures.
 *
 * GHz is core cycles over the time the CPU was busy. Cycles come from the
 * windows in which their group ran (a share of the interval, scaled up);
 * busy time comes from /proc/stat, which counts all the time. Dividing the
 * first by the whole interval's second mixes two time windows: when the
 * CPU's load changes within the interval the quotient is wrong, and it went
 * above the part's highest clock. So an always-counting event that a
 * planned metric divides by a rotating per-CPU PMU's counts (a companion of
 * that PMU) is read every time one of the PMU's windows closes, and what it
 * counted in the window is added to the group that ran, as one more column
 * of that group. derive.c then finds both in the same groups and evaluates
 * the ratio over those windows alone, as it does for any two counters of
 * one group.
 *
 * When the kernel multiplexes inside a window (time_running below
 * time_enabled), the group counted only part of it; the companion's count
 * is taken in the same proportion (running / enabled), which is what it
 * counted while the group ran if its rate was even over the window. */
#include "config.h"
#include "sampler_companion.h"
#include "sampler_impl.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A PMU whose events count all the time, on every CPU: nothing rotates. */
static bool always_counting(const struct model *m, const struct pmu_state *ps, int p)
{
	return pmu_counts_always(&m->pmus[p]) && ps->available && ps->ngroups == 1;
}

/* The plan group on PMU p that counts event e, and e's place in it. */
static int group_of(const struct sampler *s, int p, int e, int *pos)
{
	const struct pmu_state *ps = &s->ps[p];
	for (int k = 0; k < ps->ngroups; k++) {
		const struct sched_group *sg = &s->plan->groups[ps->groups[k]];
		for (int j = 0; j < sg->nevents; j++)
			if (sg->events[j] == e) {
				*pos = j;
				return ps->groups[k];
			}
	}
	return -1;
}

static bool has_companion(const struct pmu_state *ps, int e)
{
	for (int c = 0; c < ps->ncomp; c++)
		if (ps->comp[c].event == e)
			return true;
	return false;
}

/* The companions of per-CPU core PMU p: events of always-counting PMUs
 * that share a planned metric with one of p's events. */
static void find_companions(struct sampler *s, int p)
{
	const struct model *m = s->cfg.model;
	struct pmu_state *ps = &s->ps[p];
	for (int i = 0; i < s->plan->nmetrics; i++) {
		const struct metric_def *md = &m->metrics[s->plan->metrics[i]];
		bool ours = false;
		for (int k = 0; k < md->nevents; k++)
			ours |= m->events[md->events[k]].pmu == p;
		for (int k = 0; k < md->nevents && ours; k++) {
			int e = md->events[k], q = m->events[e].pmu, pos = 0;
			if (q == p || !always_counting(m, &s->ps[q], q) || has_companion(ps, e))
				continue;
			int g = group_of(s, q, e, &pos);
			if (g < 0)
				continue;
			ps->comp = xrealloc(ps->comp, sizeof(*ps->comp) * (size_t)(ps->ncomp + 1));
			struct companion *c = &ps->comp[ps->ncomp++];
			*c = (struct companion){ .event = e, .group = g, .pos = pos };
			/* Its instance on each of p's CPUs. */
			const struct pmu_state *qs = &s->ps[q];
			c->inst = xmalloc(sizeof(int) * ((size_t)ps->ninst + 1));
			for (int a = 0; a < ps->ninst; a++) {
				c->inst[a] = -1;
				for (int b = 0; b < qs->ninst; b++)
					if (qs->inst[b].cpu == ps->inst[a].cpu)
						c->inst[a] = b;
			}
		}
	}
}

void companions_plan(struct sampler *s)
{
	const struct model *m = s->cfg.model;
	for (int p = 0; p < m->npmus; p++) {
		struct pmu_state *ps = &s->ps[p];
		if (!ps->available || m->pmus[p].kind != PMU_CORE || m->pmus[p].scope != SCOPE_THREAD)
			continue;
		find_companions(s, p);
		if (ps->ncomp == 0)
			continue;
		for (int k = 0; k < ps->ngroups; k++) {
			struct grp_state *grp = &s->grp[ps->groups[k]];
			grp->nev = grp->nhw + ps->ncomp;
			grp->events = xrealloc(grp->events, sizeof(int) * (size_t)grp->nev);
			for (int c = 0; c < ps->ncomp; c++)
				grp->events[grp->nhw + c] = ps->comp[c].event;
			free(grp->counts);
			grp->counts = xcalloc((size_t)ps->ninst * (size_t)grp->nev + 1, sizeof(double));
			grp->cprev = xcalloc((size_t)ps->ninst * (size_t)ps->ncomp + 1, sizeof(uint64_t));
		}
	}
}

void companions_free(struct pmu_state *ps)
{
	for (int c = 0; c < ps->ncomp; c++)
		free(ps->comp[c].inst);
	free(ps->comp);
	ps->comp = NULL;
	ps->ncomp = 0;
}

/* Companion c's cumulative count on the CPU of instance i of its PMU ps:
 * 0, or -1 when it cannot be read there. */
static inline int read_one(struct sampler *s, const struct pmu_state *ps, const struct companion *c, int i,
			   uint64_t *out)
{
	if (!ps->alive[i])
		return -1;
	int ci = c->inst[i];
	const struct grp_state *cg = &s->grp[c->group];
	if (ci < 0 || !s->ps[cg->pmu].alive[ci] || !cg->bg[ci])
		return -1;
	struct bk_count *buf = sampler_read_buf(s, &s->cbuf);
	if (s->cfg.ops->read(s->bk, cg->bg[ci], buf) != 0)
		return -1;
	*out = buf[c->pos].value;
	return 0;
}

void companions_mark(struct sampler *s, int gi, int i)
{
	struct grp_state *grp = &s->grp[gi];
	const struct pmu_state *ps = &s->ps[grp->pmu];
	for (int c = 0; c < ps->ncomp; c++) {
		uint64_t v;
		if (read_one(s, ps, &ps->comp[c], i, &v) == 0)
			grp->cprev[(size_t)i * (size_t)ps->ncomp + (size_t)c] = v;
	}
}

void companions_hand_over(struct sampler *s, int from, int to, int i)
{
	int n = s->ps[s->grp[from].pmu].ncomp;
	size_t at = (size_t)i * (size_t)n;
	/* One or two companions: no call to memcpy for them. */
	const uint64_t *restrict src = &s->grp[from].cprev[at];
	uint64_t *restrict dst = &s->grp[to].cprev[at];
	for (int c = 0; c < n; c++)
		dst[c] = src[c];
}

void companions_take(struct sampler *s, int gi, int i, int bucket, double share)
{
	struct grp_state *grp = &s->grp[gi];
	const struct pmu_state *ps = &s->ps[grp->pmu];
	int ncomp = ps->ncomp;
	/* The group's arrays for instance i, once (this runs for every read
	 * of every group of a PMU with companions). */
	uint64_t *prev = &grp->cprev[(size_t)i * (size_t)ncomp];
	double *cnt = &grp->counts[(size_t)i * (size_t)grp->nev + (size_t)grp->nhw];
	double *bcnt = bucket >= 0 ? &grp->bucket_counts[((size_t)bucket * (size_t)ps->ninst + (size_t)i) * (size_t)grp->nev +
							 (size_t)grp->nhw]
				   : NULL;
	for (int c = 0; c < ncomp; c++) {
		uint64_t v;
		bool ok = read_one(s, ps, &ps->comp[c], i, &v) == 0;
		double add = ok && v >= prev[c] ? (double)(v - prev[c]) * share : 0;
		if (ok)
			prev[c] = v;
		if (!(share > 0))
			continue;      /* the group did not run: nothing to add */
		if (!ok)
			add = NAN;     /* the window's ratio cannot be known: '-', never a guess */
		cnt[c] += add;
		if (bcnt)
			bcnt[c] += add;
	}
}
