/* derive_moderate.c: each figure's stated error drawn toward its peers'
 * (see derive_moderate.h).
 *
 * A figure's error comes from the spread of its few samples (3 to 10
 * windows of the interval), and that spread is itself a rough estimate:
 * that of three samples is under a third of the true one one time in ten.
 * Figures whose windows happened to agree stated errors far too small
 * (of the plain figures with a relative error under 1e-2, 0.5-0.9 %
 * missed by more than 5 of them), while Student's t, which pays for that
 * roughness, made every error of few samples wide (metrics whose 95 %
 * intervals held more than 99 % of the time). The same figure in the
 * other rows of the scope (the other CPUs, cores, ...) in the same
 * interval was measured in the same windows with the same counters:
 * their errors say how much such a figure moves. So a figure's variance
 * is taken as a blend of its own and the median of its peers'
 * (MODERATE_PRIOR of the latter), and the error is scaled by
 * MODERATE_SCALE: standing on more than its own samples, it needs less of
 * t's widening. On the simulator's phased workloads (tests/check_truth.c)
 * plain figures more than 25 % off went from 90 to 46, misses beyond 5
 * stated errors from 0.289 % to 0.114 % of them and metrics whose 95 %
 * intervals hold more than 99 % of the time from 14 to 7; the weight and
 * scale are where neither pushed a metric's coverage over 99 % or under
 * 90 % (docs/uncertainty.md, "The tail"). */
#include "config.h"
#include "derive_moderate.h"
#include "uncertainty.h"

#include <math.h>

/* At 0.4 (scale 0.86), 17 metrics over 99 %; at 0.6, two under 90 %. */
#define MODERATE_PRIOR 0.5
/* At 0.82 Zen 5 `ghz` fell under 90 %; at 0.9, 25 metrics were over 99 %. */
#define MODERATE_SCALE 0.86
/* A figure of m samples whose variance is blended half and half with a
 * prior has, as it were, twice the degrees of freedom, and t's widening
 * for them falls by t(2(m - 1)) / t(m - 1); where that times
 * MODERATE_FEW_K is under MODERATE_SCALE it is the scale (three samples:
 * 0.77). That took the metrics over 99 % from 14 to 8 (Westmere's and the
 * architectural model's ratios from windows of few samples); at 1.0 of
 * it Zen 5 `ghz` fell under 90 %, at 1.1 the same 8 with 48 plain
 * figures more than 25 % off rather than 46. */
#define MODERATE_FEW_K 1.2

/* The k-th smallest of a[0..n-1] (moved about). */
static double kth(double *a, int n, int k)
{
	int lo = 0, hi = n - 1;
	while (lo < hi) {
		double piv = a[(lo + hi) / 2];
		int i = lo, j = hi;
		while (i <= j) {
			while (a[i] < piv)
				i++;
			while (a[j] > piv)
				j--;
			if (i <= j) {
				double t = a[i];
				a[i++] = a[j];
				a[j--] = t;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return a[k];
	}
	return a[k];
}

int moderate_nprobes(int nrows)
{
	return nrows < MODERATE_PROBES ? nrows : MODERATE_PROBES;
}

int moderate_probe(int nrows, int k)
{
	if (nrows <= MODERATE_PROBES)
		return k;
	return (int)(((long)2 * k + 1) * nrows / (2 * MODERATE_PROBES));
}

double moderate_median(double *v, int n)
{
	int m = 0;
	for (int i = 0; i < n; i++)
		if (v[i] > 0 && isfinite(v[i]))
			v[m++] = v[i];
	return m >= MODERATE_MIN_ROWS ? kth(v, m, m / 2) : NAN;
}

static inline void moderate_one(double *rse, const double *med, const double *scale, int c)
{
	double e = rse[c], p = med[c];
	if (e > 0 && isfinite(e) && !isnan(p))
		rse[c] = scale[c] * sqrt(MODERATE_PRIOR * p * p + (1 - MODERATE_PRIOR) * e * e);
}

void moderate_apply(double *rse, const double *med, const double *scale, int n)
{
	for (int c = 0; c < n; c++)
		moderate_one(rse, med, scale, c);
}

void moderate_apply_cols(double *rse, const double *med, const double *scale, const int *cols, int n)
{
	for (int i = 0; i < n; i++)
		moderate_one(rse, med, scale, cols[i]);
}

double moderate_scale(int m)
{
	if (m < UNC_MIN_SAMPLES)
		return MODERATE_SCALE;
	double r = MODERATE_FEW_K * unc_t975(2 * (m - 1)) / unc_t975(m - 1);
	return r < MODERATE_SCALE ? r : MODERATE_SCALE;
}
