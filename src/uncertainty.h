/* uncertainty.h: how far an estimate from rotated counters can be from the
 * whole interval's true value. A group that ran in m windows of an
 * interval gives m samples of its rates; the interval's figure is their
 * time-weighted mean scaled to the interval, so its standard error is that
 * of a mean of m samples drawn without replacement from the interval's
 * windows (docs/uncertainty.md). Pure arithmetic, no state. */
#ifndef PMCTOP_UNCERTAINTY_H
#define PMCTOP_UNCERTAINTY_H

/* A figure whose counters ran this share of the interval or more was
 * counted all the time: no sampling error at all (the rounding of the
 * coverage to the nanosecond is not a reason to doubt it). */
#define UNC_FULLY_COVERED 0.999

/* Figures whose 95 % interval is wider than this share of the value, or
 * whose uncertainty cannot be estimated, are marked '~' on the screen. */
#define UNC_MARK_REL95 0.10

/* The fewest samples whose spread is taken as an error. Two windows have
 * one degree of freedom: their spread is as likely a tenth of the true
 * one as not, so that t(1) widens it 6.5 times and 1.4-1.7 % of such
 * figures still missed by more than 5 stated errors on the simulator's
 * phased workloads (Family 10h with every metric at once: each group ran
 * two 50 ms windows a second). With three, 0.8-1 %, like any set that
 * ran a sixth of the interval (docs/calibration.md). */
#define UNC_MIN_SAMPLES 3

/* The standard error of the weighted mean of x[0..n-1] (weights w, > 0)
 * as an estimate of the mean over the whole interval, of which the
 * samples cover the share `covered` (finite-population correction: 0 when
 * everything was seen). The result is inflated by t(n-1)/1.96 so that
 * value +- 1.96 se is a 95 % interval even for few samples. NaN when it
 * cannot be estimated (covered < 1 and fewer than UNC_MIN_SAMPLES
 * samples, or samples that do not differ at all: they cannot bound what
 * was not seen). Only covered >= UNC_FULLY_COVERED gives 0, an exact
 * figure. */
double unc_mean_se(const double *x, const double *w, int n, double covered);
/* unc_mean_se when the caller has made its first pass already, while it
 * produced the samples: m samples of weight > 0, all with finite x, whose
 * weights sum to sw and weighted values to sx (in index order). */
double unc_mean_se_sums(const double *x, const double *w, int n, int m, double sw, double sx, double covered);
/* unc_mean_se_sums with ne more samples xe[0..ne-1] of the same rates
 * taken just outside the windows that make the mean (a group's edge
 * windows: its last of the interval before, its tail round's): they
 * enter the spread, each as a window of the mean weight and by how far
 * it stands from the windows' mean, and t's degrees of freedom (m - 1 +
 * ne), not the mean itself. Edge windows that agree with the windows
 * narrow t's widening; one that saw what the windows did not widens the
 * error by as much (docs/uncertainty.md, item 10). unseen2: the sum of
 * the squares of the shares of the interval, at its start and its end,
 * that lie beyond the windows' reach (wset_unseen2): each is a stretch
 * the mean stands for without a window in it, and adds a window's
 * variance times its share, squared (docs/uncertainty.md, item 11). */
double unc_mean_se_edges(const double *x, const double *w, int n, int m, double sw, double sx, const double *xe,
			 int ne, double covered, double unseen2);

/* The same for windows x[0..n-1] in time order (one group's, or several
 * groups' that interleave evenly), the spread about the mean with the
 * edge windows xe[0..ne-1] in it, and with the edge window before the
 * first (the interval before's last) and after the last (the tail
 * round's), each NULL where there is none (or for several groups): the
 * rates' variance is also taken from the differences of successive
 * windows along that chain (systematic sampling's estimator), and the
 * smaller of the two errors is returned. The spread about the mean counts a trend across
 * the interval as spread; successive differences count rates that
 * alternate window by window; both count an edge window that saw what
 * the windows did not. */
double unc_chain_se(const double *x, const double *w, int n, int m, double sw, double sx, const double *xe, int ne,
		    const double *before, const double *after, double covered, double unseen2);

/* Student's t at 97.5 % for df degrees of freedom (1.96 above 30; NaN
 * under 1). */
double unc_t975(int df);

/* 1.96 x rse (the relative half-width of the 95 % interval) above
 * UNC_MARK_REL95, or not known while the value is: the '~' rule. */
int unc_marked(double value, double rse);

#endif
