/* backend_sim_mux.c: the simulator's model of the kernel's counters and
 * multiplexing: which groups fit in the counters the NMI watchdog and
 * per-task sampling leave free, the list of enabled groups that the mux
 * tick rotates, and how long each group ran (the Counters, Sharing and Time
 * paragraphs atop backend_sim.c). Split from backend_sim.c because this
 * schedule is the one part of the simulator with an algorithm of its own,
 * which tests judge against the kernel's behaviour. */
#include "config.h"
#include "backend.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim_workload.h"
#include "util.h"
#include "backend_sim_impl.h"

/* ---- counters ---- */

bool sim_pmu_unlimited(const struct pmu_def *pd)
{
	return pd->kind == PMU_SOFTWARE || pd->kind == PMU_PROC;
}

/* General and fixed counters left free by the NMI watchdog and, unless
 * ignore_pinned (a CPU that does not sample yet), by the sampled events. */
void sim_free_on(const struct backend *b, int pmu, bool ignore_pinned, int *general, int *fixed)
{
	const struct pmu_def *pd = &b->m->pmus[pmu];
	*general = pd->counters;
	*fixed = pd->fixed;
	if (b->nmi && pd->kind == PMU_CORE && pd->nmi_reserved > 0) {
		if (pd->nmi_takes_fixed && pd->fixed > 0)
			*fixed -= pd->nmi_reserved;
		else
			*general -= pd->nmi_reserved;
	}
	if (b->pinned && !ignore_pinned)
		*general -= b->pinned[pmu];
	if (*general < 0)
		*general = 0;
	if (*fixed < 0)
		*fixed = 0;
}

/* Whether a group fits in general counters g (pairs of them for merged
 * events) and fixed counters f. Fixed-able events take fixed counters
 * while any is left, then general ones. */
bool sim_group_fits(const struct bk_group *grp, int g, int f)
{
	int spill = grp->need_fixed > f ? grp->need_fixed - f : 0;
	int singles = grp->need_general + spill;
	return grp->need_pairs <= g / 2 && 2 * grp->need_pairs + singles <= g;
}

static void group_uses(const struct bk_group *grp, int *g, int *f)
{
	int on_fixed = grp->need_fixed < *f ? grp->need_fixed : *f;
	*f -= on_fixed;
	*g -= 2 * grp->need_pairs + grp->need_general + (grp->need_fixed - on_fixed);
}

/* ---- time and quantities ---- */

/* How long group i of a contended slot ran in [t1, t2] (t1 not before the
 * slot's k_base tick): the partial ticks at both ends, whole cycles of n
 * ticks from the table's counts, and the fewer than n ticks left over. */
static uint64_t mux_running(const struct backend *b, const struct sim_slot *s, int i,
			    uint64_t t1, uint64_t t2)
{
	uint64_t mux = b->mux_ns, n = (uint64_t)s->ngroups;
	if (t2 <= t1 || n == 0)
		return 0;
#define RUNS_AT(k) s->runs[(((k) - s->k_base) % n) * n + (uint64_t)i]
	uint64_t k1 = t1 / mux, k2 = t2 / mux;
	if (k1 == k2)
		return RUNS_AT(k1) ? t2 - t1 : 0;
	uint64_t run = 0;
	if (RUNS_AT(k1))
		run += (k1 + 1) * mux - t1;
	if (RUNS_AT(k2))
		run += t2 - k2 * mux;
	uint64_t full = k2 - k1 - 1;
	run += full / n * (uint64_t)s->nruns[i] * mux;
	for (uint64_t k = k1 + 1 + full / n * n; k < k2; k++)
		if (RUNS_AT(k))
			run += mux;
#undef RUNS_AT
	return run;
}

/* Brings a group's times and quantities up to the clock. */
void sim_settle(struct backend *b, struct bk_group *g)
{
	uint64_t dt = b->now - g->since;
	uint64_t run = 0;
	if (g->enabled)
		g->t_enabled += dt;
	if (g->running)
		run = g->slot->contended ? mux_running(b, g->slot, g->pos, g->since, b->now) : dt;
	if (run > 0) {
		g->t_running += run;
		double k = (double)run / (double)dt / g->nch;
		for (int q = 0; q < WQ_COUNT; q++)
			g->acc[q] += (g->src[q] - g->snap[q]) * k;
	}
	memcpy(g->snap, g->src, sizeof(g->snap));
	g->since = b->now;
}

/* Settles the groups of every contended slot that stop or start running
 * at this mux tick (b->now is one). sim_advance calls it at each tick: a
 * tick runs a fixed set of groups, so a group is then credited what the
 * workload did in the ticks it ran and nothing of the others', as on real
 * counters. Spreading a longer span's quantities over its running time
 * instead would hide all of the multiplexing's sampling error (a phase
 * that the group's ticks missed would still be counted). A group that
 * neither ran in the tick that ended nor runs in the next is left alone:
 * it runs nothing until its next settle, which then credits it nothing
 * for the span, and most groups are such at many groups a CPU. */
void sim_settle_contended(struct backend *b)
{
	uint64_t k = b->now / b->mux_ns;
	for (int p = 0; p < b->m->npmus; p++)
		for (int j = 0; j < b->nslots[p]; j++) {
			struct sim_slot *s = &b->slots[p][j];
			/* A slot placed at this very tick settled all its groups
			 * then (settle_slot). */
			if (!s->contended || k <= s->k_base)
				continue;
			uint64_t n = (uint64_t)s->ngroups;
			const bool *ended = &s->runs[((k - 1 - s->k_base) % n) * n];
			const bool *next = &s->runs[((k - s->k_base) % n) * n];
			for (int i = 0; i < s->ngroups; i++)
				if (ended[i] || next[i])
					sim_settle(b, s->enabled[i]);
		}
}

/* Settles every group of a slot and makes the list's current rotation its
 * rotation 0, before a group joins or leaves it. */
static void settle_slot(struct backend *b, struct sim_slot *s)
{
	for (int i = 0; i < s->ngroups; i++)
		sim_settle(b, s->enabled[i]);
	uint64_t k = b->now / b->mux_ns;
	if (s->contended && s->ngroups > 1) {
		int r = (int)((k - s->k_base) % (uint64_t)s->ngroups);
		if (r > 0) {
			struct bk_group **tmp = xmalloc(sizeof(*tmp) * (size_t)s->ngroups);
			for (int i = 0; i < s->ngroups; i++)
				tmp[i] = s->enabled[(i + r) % s->ngroups];
			memcpy(s->enabled, tmp, sizeof(*tmp) * (size_t)s->ngroups);
			free(tmp);
		}
	}
	s->k_base = k;
}

/* Which groups run at rotation r: from the head while they fit, stopping
 * at the first that does not (x86 flexible groups). Returns whether all do. */
static bool schedule_rotation(struct backend *b, struct sim_slot *s, int r)
{
	const struct pmu_def *pd = &b->m->pmus[s->pmu];
	int n = s->ngroups, g, f;
	sim_free_on(b, s->pmu, false, &g, &f);
	bool all = true;
	for (int j = 0; j < n; j++) {
		int i = (r + j) % n;
		struct bk_group *grp = s->enabled[i];
		bool ok = all && (sim_pmu_unlimited(pd) || sim_group_fits(grp, g, f));
		if (ok && !sim_pmu_unlimited(pd))
			group_uses(grp, &g, &f);
		if (!ok)
			all = false;
		s->runs[r * n + i] = ok;
		s->nruns[i] += ok;
	}
	return all;
}

/* Tabulates the schedule of a settled slot. When every group fits at
 * rotation 0 they fit in any order (the counters needed only add up), so
 * the other rotations are worked out only for a contended slot. */
static void place(struct backend *b, struct sim_slot *s)
{
	int n = s->ngroups;
	if (n > s->tcap) {
		s->tcap = n > 2 * s->tcap ? n : 2 * s->tcap;
		s->runs = xrealloc(s->runs, sizeof(bool) * (size_t)s->tcap * (size_t)s->tcap);
		s->nruns = xrealloc(s->nruns, sizeof(int) * (size_t)s->tcap);
	}
	for (int i = 0; i < n; i++) {
		s->enabled[i]->pos = i;
		s->nruns[i] = 0;
	}
	bool was = s->contended;
	s->contended = n > 0 && !schedule_rotation(b, s, 0);
	b->ncontended += (int)s->contended - (int)was;
	if (s->contended)
		for (int r = 1; r < n; r++)
			schedule_rotation(b, s, r);
	for (int i = 0; i < n; i++) {
		struct bk_group *grp = s->enabled[i];
		grp->running = (s->contended || s->runs[i]) && sim_cpu_usable(b, grp->cpu);
	}
}

int sim_enable(struct backend *b, struct bk_group *g)
{
	if (!g)
		return -EINVAL;
	b->kernel_ns += b->call_ns;
	if (g->enabled)
		return 0;
	struct sim_slot *s = g->slot;
	settle_slot(b, s);
	sim_settle(b, g);
	if (s->ngroups == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 4;
		s->enabled = xrealloc(s->enabled, sizeof(*s->enabled) * (size_t)s->cap);
	}
	s->enabled[s->ngroups++] = g;
	g->enabled = true;
	place(b, s);
	return 0;
}

int sim_disable(struct backend *b, struct bk_group *g)
{
	if (!g)
		return -EINVAL;
	b->kernel_ns += b->call_ns;
	if (!g->enabled)
		return 0;
	struct sim_slot *s = g->slot;
	settle_slot(b, s);    /* at the old schedule */
	for (int i = 0; i < s->ngroups; i++)
		if (s->enabled[i] == g) {
			memmove(&s->enabled[i], &s->enabled[i + 1],
				sizeof(*s->enabled) * (size_t)(s->ngroups - i - 1));
			s->ngroups--;
			break;
		}
	g->enabled = false;
	g->running = false;
	place(b, s);
	return 0;
}
