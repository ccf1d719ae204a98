/* derive_bounds.h: figures that cannot physically be (derive_bounds.c). */
#ifndef PMCTOP_DERIVE_BOUNDS_H
#define PMCTOP_DERIVE_BOUNDS_H

#include "evdef.h"
#include "sched.h"
#include "snapshot.h"

/* Every planned metric of every row that lies outside its definition's
 * range (a share outside 0..1, a clock above max_ghz, an IPC above the
 * core's width; max_ghz 0: not known) is set to the nearest bound and its
 * uncertainty to not known, so that it is never shown as a plain number.
 * Returns how many figures it changed. */
long bounds_apply(const struct model *m, const struct sched_plan *plan, double max_ghz, struct snapshot *snap);
/* The same in row r of scope sc alone (a row whose errors were found
 * later: derive_row_errors). */
long bounds_apply_row(const struct model *m, const struct sched_plan *plan, double max_ghz, struct snapshot *snap,
		      int sc, int r);
/* bounds_apply in the rows of scope sc, for metrics mis[0..n-1] in
 * columns cols[]: those of the scope's metrics that may have a figure
 * there (derive's live list), the others being NaN in every row. Each
 * figure is bounded alone, so the cells come out as bounds_apply leaves
 * them. */
long bounds_apply_cols(const struct model *m, const int *mis, const int *cols, int n, double max_ghz,
		       struct snapshot *snap, int sc);

#endif
