/* derive_tree.h: trees of shares (topdown) that add up in every row: the
 * parts of the whole sum to 1, and the parts of a metric to that metric
 * (derive_tree.c). The tree is data: each share names its `parent` in the
 * definitions (docs/definitions.md). */
#ifndef PMCTOP_DERIVE_TREE_H
#define PMCTOP_DERIVE_TREE_H

#include "evdef.h"
#include "sched.h"
#include "snapshot.h"

/* The metrics to plan for a request of metrics[0..n-1]: those, and for each
 * share in a tree every other part of its parent and every part on the way
 * up to the whole, without which it cannot be made to add up. A new list
 * (caller frees), its length in *nout. */
int *tree_closure(const struct model *m, const int *metrics, int n, int *nout);

/* Making the planned trees of every row add up: level by level, the
 * parts of each parent are scaled by the same factor so that they sum to
 * the parent's figure (1 for the whole). A family is left as measured in
 * a row where one of its parts or its parent has no figure.
 * The families of a plan, worked out once (derive's live list keeps
 * them while the plan stands): mset[metric] the window set each planned
 * metric was evaluated in (-1: none, its events pooled from several),
 * which says which parts were counted in the same windows; mcol each
 * metric's column in the snapshots it is applied to. */
struct tree_plan;
struct tree_plan *tree_plan_new(const struct model *m, const struct sched_plan *plan, const int *mset,
				const int *mcol);
/* Every row of snap made to add up; maybe[sc][c] false says that metric
 * column c is NaN in every row of scope sc, where a family that reads it
 * is left as measured without a look. */
void tree_plan_apply(const struct tree_plan *tp, struct snapshot *snap, const bool *const maybe[SNAP_NSCOPES]);
/* One row alone, the same to the bit (derive_row_errors). */
void tree_plan_apply_row(const struct tree_plan *tp, struct snap_row *row);
void tree_plan_free(struct tree_plan *tp);

#endif
