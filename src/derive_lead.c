/* derive_lead.c: what a group's windows missed at the start or the end
 * of an interval (docs/uncertainty.md, section 2, items 8 and 9).
 *
 * Under pmctop's rotation a group whose turn comes late in the round
 * does not see the interval's first slots, and one whose turn came early
 * does not see its last. Where the rates changed in them (a phase that
 * ended early in the interval, or began late), the group's windows here
 * all agree and their spread states a small error, while the interval's
 * truth holds the part the group did not see: Zen 5's branch_miss_ratio
 * 0.0065 with a stated 3.7 %, where a branchy phase that ended 63 ms into
 * the interval made it 0.019; its flops_per_cycle 0.040 with a stated
 * 0.4 %, where an FP phase that began in the last 26 ms made it 0.093.
 * Other groups cannot tell (the memory phase that followed the branchy
 * one moved their mix by a quarter, as the interval's segments do
 * anyway); the group's own events can, in a window of its own beyond
 * its windows here: its last window of the interval before, and its
 * window of the tail round that ends this one (sampler_read.c,
 * plan_tail). */
#include "config.h"
#include "derive_window.h"
#include "arena.h"
#include "uncertainty.h"
#include "hot_path.h"

#include <math.h>
#include <string.h>

/* One window per instance (counts v [ninst * nev], ns running r
 * [ninst]) summed per row into dst, each scaled to the interval by its
 * own time running as the buckets are (gsum_fill); NaN in a row some
 * instance of which had no such window. */
static void edge_rows(double *dst[SNAP_NSCOPES], const struct derive_input *in, int gi, const double *v,
		      const double *r, int nev, const struct inst_rows *ir, const int nrows[SNAP_NSCOPES],
		      struct arena *ar)
{
	const struct derive_pmu *dp = &in->pmus[in->plan->groups[gi].pmu];
	double T = in->measured_s * 1e9;
	int *with[SNAP_NSCOPES];   /* per row: instances under it with the window */
	for (int sc = 0; sc < SNAP_NSCOPES; sc++) {
		size_t nr = (size_t)nrows[sc];
		dst[sc] = arena_get(ar, sizeof(double) * (nr * (size_t)nev + 1), true);
		with[sc] = arena_get(ar, sizeof(int) * (nr + 1), true);
	}
	/* Each instance into the lowest row it adds to, as gsum_fill... */
	for (int i = 0; i < dp->ninst; i++) {
		const int *rows = &ir->row[(size_t)i * SNAP_NSCOPES];
		if (!dp->alive[i] || rows[SNAP_SYSTEM] < 0 || !(r[i] > 0))
			continue;
		int sc = 0;
		while (rows[sc] < 0)
			sc++;
		int row = rows[sc];
		double k = T / r[i];
		double *d = &dst[sc][(size_t)row * (size_t)nev];
		const double *vi = &v[(size_t)i * (size_t)nev];
		for (int j = 0; j < nev; j++)
			d[j] += vi[j] * k;
		with[sc][row]++;
	}
	/* ... then each row into the one above it. */
	for (int sc = 0; sc < SNAP_NSCOPES - 1; sc++)
		for (int row = 0; row < nrows[sc]; row++) {
			int u = ir->up[sc][row], su = ir->upsc[sc][row];
			if (ir->nin[sc][row] <= 0 || u < 0)
				continue;
			add_to(&dst[su][(size_t)u * (size_t)nev], &dst[sc][(size_t)row * (size_t)nev], nev);
			with[su][u] += with[sc][row];
		}
	for (int sc = 0; sc < SNAP_NSCOPES; sc++)
		for (int row = 0; row < nrows[sc]; row++)
			if (ir->nin[sc][row] <= 0 || with[sc][row] != ir->nin[sc][row])
				for (int j = 0; j < nev; j++)
					dst[sc][(size_t)row * (size_t)nev + (size_t)j] = NAN;
}

HOT_PATH void gsum_fill_edges(struct gsum *gs, const struct derive_input *in, int gi, const struct inst_rows *ir,
		    const int nrows[SNAP_NSCOPES], struct arena *ar)
{
	const struct derive_group *g = &in->groups[gi];
	for (int sc = 0; sc < SNAP_NSCOPES; sc++)
		gs->pval[sc] = gs->tval[sc] = NULL;
	gs->lead = g->lead;
	gs->trail = g->trail;
	gs->chain = !in->slices;
	if (gs->nb < UNC_MIN_SAMPLES)
		return;
	if (g->pv && g->pr && g->lead > 0)
		edge_rows(gs->pval, in, gi, g->pv, g->pr, gs->nev, ir, nrows, ar);
	if (g->tv && g->tr && g->trail > 0)
		edge_rows(gs->tval, in, gi, g->tv, g->tr, gs->nev, ir, nrows, ar);
}

/* A change between the group's window just outside its windows here (the
 * interval before's last, the tail round's) and the nearest of them
 * counts when it stands this many standard deviations of the group's
 * windows here from that one (their spread holds the rates' wander
 * within the interval; a change that none of them shows does not belong
 * to it) ... */
#define EDGE_JUMP_SD 3.0
/* ... and when, had it fallen at the very edge of the interval, the
 * share the group did not see would move the event's figure by a
 * quarter of it, as far as a plain figure may be off (check_truth's far
 * misses). At the whole figure (1.0, the rule's first form) a branchy
 * phase that began 7 % of the interval before its end, its mispredicts
 * seen 7.8 times higher in the tail round, left Zen 5's
 * branch_miss_ratio 34 % low and plain (docs/uncertainty.md, item 9). */
#define EDGE_JUMP_SHARE 0.25
HOT_PATH int gsum_edges(const struct gsum *gs, int sc, int r)
{
	int nb = gs->nb, nev = gs->nev;
	if ((!gs->pval[sc] && !gs->tval[sc]) || nb < UNC_MIN_SAMPLES)
		return 0;
	const double *v = &gs->bval[sc][(size_t)r * (size_t)nb * (size_t)nev];
	const double *bw = &gs->bw[sc][(size_t)r * (size_t)nb];
	double sw = 0;
	int m = 0, first = -1, last = -1;
	for (int b = 0; b < nb; b++)
		if (bw[b] > 0) {
			if (first < 0)
				first = b;
			last = b;
			sw += bw[b];
			m++;
		}
	if (m < UNC_MIN_SAMPLES)
		return 0;
	/* Each edge window: where it lies (before the first, after the
	 * last) and the share of the interval the group did not see there. */
	const double *ev[2] = {
		gs->pval[sc] ? &gs->pval[sc][(size_t)r * (size_t)nev] : NULL,
		gs->tval[sc] ? &gs->tval[sc][(size_t)r * (size_t)nev] : NULL,
	};
	const int near[2] = { first, last };
	const double share[2] = { gs->lead, gs->trail };
	for (int j = 0; j < nev; j++) {
		/* Events pinned for a fixed counter ran throughout: nothing
		 * of theirs went unseen, and they sample nothing of the
		 * group's own. */
		if (gs->pin && gs->pin[j])
			continue;
		double mean = 0, var = 0;
		for (int b = 0; b < nb; b++)
			if (bw[b] > 0)
				mean += bw[b] * v[(size_t)b * (size_t)nev + (size_t)j];
		mean /= sw;
		for (int b = 0; b < nb; b++)
			if (bw[b] > 0) {
				double d = v[(size_t)b * (size_t)nev + (size_t)j] - mean;
				var += bw[b] * d * d;
			}
		double sd = sqrt(var / sw);
		for (int e = 0; e < 2; e++) {
			if (!ev[e])
				continue;
			double x = ev[e][j];
			if (isnan(x))
				continue;
			double jump = fabs(x - v[(size_t)near[e] * (size_t)nev + (size_t)j]);
			if (fabs(mean) > 0 && jump * share[e] >= EDGE_JUMP_SHARE * fabs(mean) && jump > EDGE_JUMP_SD * sd)
				return EDGE_JUMPED;
		}
	}
	return 0;
}
