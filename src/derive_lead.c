/* derive_lead.c: what a group's windows missed at the start of an
 * interval (docs/uncertainty.md, "The tail", item 8).
 *
 * Under pmctop's rotation a group whose turn comes late in the round
 * does not see the interval's first slots. Where the rates changed in
 * them (a phase that ended early in the interval), the group's windows
 * here all agree and their spread states a small error, while the
 * interval's truth holds the part the group did not see: Zen 5's
 * branch_miss_ratio 0.0065 with a stated 3.7 %, where a branchy phase
 * that ended 63 ms into the interval made it 0.019. The group's own last
 * window of the interval before saw the old phase: its rates there stand
 * far from every window of the group here. Other groups cannot tell (the
 * memory phase that followed moved their mix by a quarter, as the
 * interval's segments do anyway); the group's own events can. */
#include "config.h"
#include "derive_window.h"
#include "arena.h"
#include "uncertainty.h"
#include "hot_path.h"

#include <math.h>
#include <string.h>

HOT_PATH void gsum_fill_lead(struct gsum *gs, const struct derive_input *in, int gi, const struct inst_rows *ir,
		    const int nrows[SNAP_NSCOPES], struct arena *ar)
{
	const struct derive_group *g = &in->groups[gi];
	const struct derive_pmu *dp = &in->pmus[in->plan->groups[gi].pmu];
	int nev = gs->nev;
	for (int sc = 0; sc < SNAP_NSCOPES; sc++)
		gs->pval[sc] = NULL;
	gs->lead = g->lead;
	if (!g->pv || !g->pr || !(g->lead > 0) || gs->nb < UNC_MIN_SAMPLES)
		return;
	double T = in->measured_s * 1e9;
	int *with[SNAP_NSCOPES];   /* per row: instances under it with a last window */
	for (int sc = 0; sc < SNAP_NSCOPES; sc++) {
		size_t nr = (size_t)nrows[sc];
		gs->pval[sc] = arena_get(ar, sizeof(double) * (nr * (size_t)nev + 1), true);
		with[sc] = arena_get(ar, sizeof(int) * (nr + 1), true);
	}
	/* Each instance into the lowest row it adds to, as gsum_fill... */
	for (int i = 0; i < dp->ninst; i++) {
		const int *rows = &ir->row[(size_t)i * SNAP_NSCOPES];
		if (!dp->alive[i] || rows[SNAP_SYSTEM] < 0 || !(g->pr[i] > 0))
			continue;
		int sc = 0;
		while (rows[sc] < 0)
			sc++;
		int r = rows[sc];
		double k = T / g->pr[i];
		double *dst = &gs->pval[sc][(size_t)r * (size_t)nev];
		const double *pv = &g->pv[(size_t)i * (size_t)nev];
		for (int j = 0; j < nev; j++)
			dst[j] += pv[j] * k;
		with[sc][r]++;
	}
	/* ... then each row into the one above it. */
	for (int sc = 0; sc < SNAP_NSCOPES - 1; sc++)
		for (int r = 0; r < nrows[sc]; r++) {
			int u = ir->up[sc][r], su = ir->upsc[sc][r];
			if (ir->nin[sc][r] <= 0 || u < 0)
				continue;
			add_to(&gs->pval[su][(size_t)u * (size_t)nev], &gs->pval[sc][(size_t)r * (size_t)nev], nev);
			with[su][u] += with[sc][r];
		}
	/* A row some instance of which had no last window has none. */
	for (int sc = 0; sc < SNAP_NSCOPES; sc++)
		for (int r = 0; r < nrows[sc]; r++)
			if (ir->nin[sc][r] <= 0 || with[sc][r] != ir->nin[sc][r])
				for (int j = 0; j < nev; j++)
					gs->pval[sc][(size_t)r * (size_t)nev + (size_t)j] = NAN;
}

/* A change between the group's last window of the interval before and
 * its first one here counts when it stands this many standard deviations
 * of the group's windows here from the first (their spread holds the
 * rates' wander within the interval; a change that none of them shows
 * does not belong to it) ... */
#define LEAD_JUMP_SD 3.0
/* ... and when, had it fallen at the very start of the interval, the
 * share the group did not see would move the event's figure by as much
 * as the figure itself. Lower shares cost calibration and catch no more
 * of the far misses (docs/uncertainty.md). */
#define LEAD_JUMP_SHARE 1.0

bool gsum_lead_jump(const struct gsum *gs, int sc, int r)
{
	if (!gs->pval[sc])
		return false;
	int nb = gs->nb, nev = gs->nev;
	const double *pv = &gs->pval[sc][(size_t)r * (size_t)nev];
	const double *v = &gs->bval[sc][(size_t)r * (size_t)nb * (size_t)nev];
	const double *bw = &gs->bw[sc][(size_t)r * (size_t)nb];
	double sw = 0;
	int m = 0, first = -1;
	for (int b = 0; b < nb; b++)
		if (bw[b] > 0) {
			if (first < 0)
				first = b;
			sw += bw[b];
			m++;
		}
	if (m < UNC_MIN_SAMPLES)
		return false;
	for (int j = 0; j < nev; j++) {
		/* Events pinned for a fixed counter ran throughout: nothing
		 * of theirs went unseen. */
		if ((gs->pin && gs->pin[j]) || isnan(pv[j]))
			continue;
		double mean = 0;
		for (int b = 0; b < nb; b++)
			if (bw[b] > 0)
				mean += bw[b] * v[(size_t)b * (size_t)nev + (size_t)j];
		mean /= sw;
		double jump = fabs(pv[j] - v[(size_t)first * (size_t)nev + (size_t)j]);
		if (!(fabs(mean) > 0) || !(jump * gs->lead >= LEAD_JUMP_SHARE * fabs(mean)))
			continue;
		double var = 0;
		for (int b = 0; b < nb; b++)
			if (bw[b] > 0) {
				double d = v[(size_t)b * (size_t)nev + (size_t)j] - mean;
				var += bw[b] * d * d;
			}
		if (jump > LEAD_JUMP_SD * sqrt(var / sw))
			return true;
	}
	return false;
}
