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
 * 90 % (docs/uncertainty.md, "The tail"). A row of no peers (a scope of
 * one or two rows) keeps its own error, but no less than a share of what
 * the rows it holds say (moderate_below). */
#include "config.h"
#include "derive_moderate.h"
#include "uncertainty.h"
#include "hot_path.h"

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

HOT_PATH int moderate_nprobes(int nrows)
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

/* The largest relative error of a plain figure (unc_marked's limit). A
 * figure whose own windows state more is marked (~) whatever its peers
 * say: the blend sizes its error, but the peers' windows did not see
 * what its own did, so they cannot vouch that it is within 10 %. Where
 * the blend would have made such figures plain, 3 of them, in phases
 * that their own windows saw begin and the peers' did not, were 26-30 %
 * off (Zen 5's cycles of a CPU whose FP phase began late; its
 * op_cache_fetch_miss_ratio; docs/uncertainty.md, item 7). */
#define MODERATE_PLAIN_MAX (UNC_MARK_REL95 / 1.96)

static inline void moderate_one(double *rse, const double *med, const double *scale, int c)
{
	double e = rse[c], p = med[c];
	if (e > 0 && isfinite(e) && !isnan(p)) {
		double b = scale[c] * sqrt(MODERATE_PRIOR * p * p + (1 - MODERATE_PRIOR) * e * e);
		/* Just past the limit: still marked. */
		rse[c] = e > MODERATE_PLAIN_MAX && b <= MODERATE_PLAIN_MAX ? MODERATE_PLAIN_MAX * (1 + 1e-9) : b;
	}
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

/* An aggregate row (a CCX, socket or the system, where there are too few
 * of them for a median) has no peers to draw its error toward, and its
 * own error comes from the spread of its few samples as much as its
 * rows': sums over many CPUs whose windows happened to agree (Sapphire
 * Rapids' system `idq_uops_not_delivered.cycles_0_uops_deliv.core` from
 * four windows, stated 0.27 % and 5 % off). Its rows' own errors stand
 * on all their samples together: a sum of rows, each off by its stated
 * error and independently, is off by sqrt(sum (v_k rse_k)^2) / |sum v_k|.
 * An aggregate may state less than that (its rows' errors carry t's
 * widening for few samples, and rows can move against each other), but
 * one that states less than MODERATE_BELOW_SUM of it had windows that
 * agreed by chance. A metric's figure is not its rows' sum
 * (a ratio of sums weighs each row by its denominator, which the figure
 * alone does not tell): the same from its rows weighted alike, which
 * makes too much of the rows that count little (idle CPUs with errors of
 * tens of per cent), so its floor is lower, MODERATE_BELOW_OWN. Measured
 * on tests/check_truth.c (docs/uncertainty.md, "The tail"): misses beyond
 * 5 stated errors 279 -> 238 of some 243,000 plain figures, no metric
 * or event more over 99 % covered; at 0.3 for sums 219, with Westmere's
 * `fp_mmx_trans.any` over 99 %; at 0.15 for metrics Westmere
 * `l1d_miss_rate` and Sapphire Rapids `dtlb_mpki` went over 99 %. */
#define MODERATE_BELOW_SUM 0.2
#define MODERATE_BELOW_OWN 0.1

double moderate_below(const double *v, const double *rse, int np, int nrows, bool sum)
{
	double sv = 0, sa = 0;
	int n = 0;
	bool some = false;
	for (int k = 0; k < np; k++) {
		if (!isfinite(rse[k]) || !(rse[k] >= 0) || !isfinite(v[k]))
			continue;
		double a = v[k] * rse[k];
		sv += v[k];
		sa += a * a;
		some |= rse[k] > 0;
		n++;
	}
	if (n < MODERATE_MIN_ROWS || !some || !(fabs(sv) > 0) || nrows < n)
		return NAN;
	/* Over all nrows rows, sum v is nrows / n x sv and sum a^2 nrows /
	 * n x sa. */
	double k = sum ? MODERATE_BELOW_SUM : MODERATE_BELOW_OWN;
	return k * sqrt(sa) / fabs(sv) * sqrt((double)n / (double)nrows);
}

double moderate_scale(int m)
{
	if (m < UNC_MIN_SAMPLES)
		return MODERATE_SCALE;
	double r = MODERATE_FEW_K * unc_t975(2 * (m - 1)) / unc_t975(m - 1);
	return r < MODERATE_SCALE ? r : MODERATE_SCALE;
}
