/* derive_bounds.c: a figure outside what is physically possible is not
 * shown as if it were measured.
 *
 * An estimate from rotated counters can land where the true value cannot
 * be: a ratio of counts from different windows above 1 (the share of
 * packed FLOPs on Zen 5, whose three merged-pair events cannot share one
 * group while the NMI watchdog holds a counter, read up to 29), a clock
 * above the part's highest. Such a figure is certainly off by at least its
 * distance to the bound, whatever its stated uncertainty says. It is set to
 * the bound, the nearest value that can be true, and its uncertainty to
 * "not known", which every output shows (the screen's '~', null in JSON,
 * empty in CSV), so it is never read as a plain measurement. */
#include "config.h"
#include "derive_bounds.h"
#include "hot_path.h"

#include <math.h>

/* A metric's bounds: false where it has none. Counters round to whole
 * numbers, so a share of exactly 1 may come out a hair above it: *tol. */
static bool metric_bounds(const struct metric_def *md, double max_ghz, double *lo, double *hi, double *tol)
{
	*lo = md->lo;
	*hi = md->hi_ghz ? (max_ghz > 0 ? max_ghz : NAN) : md->hi;
	*tol = 1e-9 * (isnan(*hi) ? 1 : fmax(1, fabs(*hi)));
	return !(isnan(*lo) && isnan(*hi));
}

/* Sets figure c of a row to its bound if it is beyond it: 1 if it was. */
static int clamp_figure(struct snap_row *row, int c, double lo, double hi, double tol)
{
	double v = row->mv ? row->mv[c] : NAN;
	if (!isfinite(v))
		return 0;
	double to = v < lo - tol ? lo : v > hi + tol ? hi : v;
	if (to == v)
		return 0;
	row->mv[c] = to;
	row->mrse[c] = NAN;
	return 1;
}

/* Rows r0..r1-1 of scopes sc0..sc1-1 (r1 < 0: all of each scope's). */
static long bounds_rows(const struct model *m, const struct sched_plan *plan, double max_ghz, struct snapshot *snap,
			int sc0, int sc1, int r0, int r1)
{
	long changed = 0;
	for (int i = 0; i < plan->nmetrics; i++) {
		double lo, hi, tol;
		if (!metric_bounds(&m->metrics[plan->metrics[i]], max_ghz, &lo, &hi, &tol))
			continue;
		int mi = plan->metrics[i];
		int c = snap_mcol(snap, mi);
		if (c < 0)
			continue;   /* no column: no figure to bound */
		for (int sc = sc0; sc < sc1; sc++)
			for (int r = r0, end = r1 < 0 ? snap->nrows[sc] : r1; r < end; r++)
				changed += clamp_figure(&snap->rows[sc][r], c, lo, hi, tol);
	}
	return changed;
}

long bounds_apply(const struct model *m, const struct sched_plan *plan, double max_ghz, struct snapshot *snap)
{
	return bounds_rows(m, plan, max_ghz, snap, 0, SNAP_NSCOPES, 0, -1);
}

long bounds_apply_row(const struct model *m, const struct sched_plan *plan, double max_ghz, struct snapshot *snap,
		      int sc, int r)
{
	return bounds_rows(m, plan, max_ghz, snap, sc, sc + 1, r, r + 1);
}

HOT_PATH long bounds_apply_cols(const struct model *m, const int *mis, const int *cols, int n, double max_ghz,
		       struct snapshot *snap, int sc)
{
	long changed = 0;
	for (int i = 0; i < n; i++) {
		double lo, hi, tol;
		if (!metric_bounds(&m->metrics[mis[i]], max_ghz, &lo, &hi, &tol))
			continue;
		for (int r = 0; r < snap->nrows[sc]; r++)
			changed += clamp_figure(&snap->rows[sc][r], cols[i], lo, hi, tol);
	}
	return changed;
}
