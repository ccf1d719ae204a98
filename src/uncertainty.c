/* uncertainty.c: the standard error of an interval's figure estimated from
 * the windows in which its counters ran (see uncertainty.h). */
#include "config.h"
#include "uncertainty.h"
#include "hot_path.h"

#include <math.h>
#include <stddef.h>

/* Student's t at 97.5 % for 1..30 degrees of freedom; above 30 the
 * normal 1.96 is close enough. */
static const double t975[31] = {
	NAN, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
	2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
};

double unc_t975(int df)
{
	return df < 1 ? NAN : df <= 30 ? t975[df] : 1.96;
}

double unc_mean_se(const double *x, const double *w, int n, double covered)
{
	if (covered >= UNC_FULLY_COVERED)
		return 0;
	double sw = 0, sx = 0;
	int m = 0;
	for (int i = 0; i < n; i++) {
		if (!(w[i] > 0))
			continue;
		if (!isfinite(x[i]))
			return NAN;
		sw += w[i];
		sx += w[i] * x[i];
		m++;
	}
	return unc_mean_se_sums(x, w, n, m, sw, sx, covered);
}

double unc_mean_se_sums(const double *x, const double *w, int n, int m, double sw, double sx, double covered)
{
	return unc_mean_se_edges(x, w, n, m, sw, sx, NULL, 0, covered, 0);
}

double unc_mean_se_edges(const double *x, const double *w, int n, int m, double sw, double sx, const double *xe,
			 int ne, double covered, double unseen2)
{
	if (m < UNC_MIN_SAMPLES || !(sw > 0))
		return NAN;
	double mean = sx / sw, ss = 0, sq = 0;
	for (int i = 0; i < n; i++) {
		if (!(w[i] > 0))
			continue;
		double q = w[i] / sw, d = q * (x[i] - mean);
		ss += d * d;
		sq += q * q;
	}
	/* An edge window weighs as the mean window: w / sw = 1 / m. */
	for (int i = 0; i < ne; i++) {
		double d = (xe[i] - mean) / m;
		ss += d * d;
	}
	/* Samples that do not differ at all (two windows that counted the
	 * same whole number, or a figure that does not move with its
	 * counts) say nothing about what the unseen share of the interval
	 * did: that is not an exact figure, and no error can be stated. */
	if (ss == 0)
		return NAN;
	/* Variance of a weighted mean of m samples (the m / (m - 1) makes it
	 * unbiased; the edge windows add to the deviations and to the
	 * degrees of freedom alike), times the share of the interval that
	 * was not seen; and a window's variance (the mean's over sq, the sum
	 * of the squared shares of the weights) for each share of the
	 * interval beyond the windows' reach, squared (unseen2). */
	int df = m - 1 + ne;
	double f = covered > 0 ? covered : 0;
	double var = ss * m / df * (1 - f + (unseen2 > 0 ? unseen2 / sq : 0));
	return sqrt(var) * unc_t975(df) / 1.96;
}

double unc_chain_se(const double *x, const double *w, int n, int m, double sw, double sx, const double *xe, int ne,
		    const double *before, const double *after, double covered, double unseen2)
{
	if (m < UNC_MIN_SAMPLES || !(sw > 0))
		return NAN;
	/* The spread about the mean, the edge windows in it, as any other
	 * set takes it. */
	double about = unc_mean_se_edges(x, w, n, m, sw, sx, xe, ne, covered, unseen2);
	double sq = 0, dd = 0, prev = before ? *before : NAN;
	int nd = 0;
	for (int i = 0; i < n; i++) {
		if (!(w[i] > 0))
			continue;
		double q = w[i] / sw;
		sq += q * q;
		if (!isnan(prev)) {
			dd += (x[i] - prev) * (x[i] - prev);
			nd++;
		}
		prev = x[i];
	}
	if (after) {
		dd += (*after - prev) * (*after - prev);
		nd++;
	}
	if (dd == 0 || nd == 0)
		return about;
	int df = m - 1 + (before != NULL) + (after != NULL);
	double f = covered > 0 ? covered : 0;
	double var = dd / (2.0 * nd) * (sq * (1 - f) + unseen2);
	double along = sqrt(var) * unc_t975(df) / 1.96;
	/* The smaller: each overstates for one shape of the rates' path,
	 * the spread about the mean where they trend, successive windows
	 * where they alternate window by window; a phase the windows
	 * missed raises both through the edge windows. */
	return !(about < along) ? along : about;
}

HOT_PATH int unc_marked(double value, double rse)
{
	if (isnan(value))
		return 0;            /* shown as '-' already */
	if (isnan(rse))
		return 1;
	return 1.96 * rse > UNC_MARK_REL95;
}
