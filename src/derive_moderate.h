/* derive_moderate.h: the last step of a snapshot's errors, each figure's
 * stated error drawn toward the typical error of the same figure in the
 * other rows of its scope (derive_moderate.c). Internal to derive. */
#ifndef PMCTOP_DERIVE_MODERATE_H
#define PMCTOP_DERIVE_MODERATE_H

#include <stdbool.h>

/* The typical error of a scope's figure is the median over at most this
 * many of its rows, spread evenly over the scope (all of them where it
 * has no more): the same rows whichever rows' errors an output finds at
 * once, so that an error found later is the same, to the bit, as one
 * found with the interval (derive_row_errors), at the cost of finding
 * these rows' errors with every interval. */
#define MODERATE_PROBES 16
/* The fewest of those rows with a stated error (not exact, not unknown)
 * that make a typical one: below it, the figure keeps its own (a scope
 * of one or two rows always does). At 4, 8 metrics stayed over 99 %, at
 * 3 7; at 2 (the median of two being the larger) Zen 5 `ghz` fell under
 * 90 %. */
#define MODERATE_MIN_ROWS 3

/* Row k of the nprobe (moderate_nprobes) of a scope of nrows rows. */
int moderate_nprobes(int nrows);
int moderate_probe(int nrows, int k);
/* The median of the stated errors v[0..n-1] (moved about) that are
 * above 0 and finite; NaN where fewer than MODERATE_MIN_ROWS are. */
double moderate_median(double *v, int n);
/* Errors rse[0..n-1] drawn toward their medians med[0..n-1]; exact
 * and unknown errors, and any whose median is NaN, stay as they are. */
void moderate_apply(double *rse, const double *med, const double *scale, int n);
/* The same on the columns cols[0..n-1] of rse, med and scale alone. */
void moderate_apply_cols(double *rse, const double *med, const double *scale, const int *cols, int n);
/* The scale on a moderated error of a figure from m samples. */
double moderate_scale(int m);
/* The least relative error of a figure of an aggregate row (a CCX, a
 * socket, the system) of a scope too small for a median, from np of the
 * nrows rows of a scope below that it holds: their figures v[k] and
 * their errors rse[k] as found (exact or stated; unknown ones are left
 * out); sum: the aggregate's figure is the sum of theirs (an event's
 * count), else a figure of its own (a metric). NaN where fewer than
 * MODERATE_MIN_ROWS of them have an error or none is above 0. */
double moderate_below(const double *v, const double *rse, int np, int nrows, bool sum);

#endif
