/* derive_impl.h: what derive.c's steps and derive_rows.c share: the
 * work of one interval (struct derive_work) and the row maps. */
#ifndef PMCTOP_DERIVE_IMPL_H
#define PMCTOP_DERIVE_IMPL_H

#include "arena.h"
#include "derive.h"
#include "derive_tree.h"
#include "derive_window.h"
#include "snapshot.h"

struct row_maps {
	int *cpu_row;     /* [max_cpu] */
	int *core_row;    /* [ncores] */
	int *ccx_row;     /* [nccx] */
	int *sock_row;    /* [nsockets] */
};

/* Whether any live instance of the PMU adds to row r of scope sc: an L3
 * PMU has nothing to say in a CPU row, nor a CPU's PMU outside -C. */
static inline bool row_has_pmu(const struct inst_rows *ir, int sc, int r)
{
	return ir->nin[sc] && ir->nin[sc][r] > 0;
}

#define WORK_ARRAY(w, n, type) ((type *)arena_get(&(w)->ar, sizeof(type) * ((size_t)(n) + 1), false))
#define WORK_ZARRAY(w, n, type) ((type *)arena_get(&(w)->ar, sizeof(type) * ((size_t)(n) + 1), true))


/* A metric of a scope's list (derive_cache.mlist) with what its rows
 * read, found once per interval: its column, its set, and for a set of
 * one group where that group's counts and coverage lie (gval, gcov: row
 * r's start at r * gnev and r) with each variable's place among them. */
struct mtask {
	const struct formula *fp;
	const int *idx;              /* one group: gp; several: vk (derive_metric) */
	const double *gval, *gcov;
	double *work;                /* mt: the program's own work space, primed (formula_prime) */
	int gnev;
	int set, n, pmu, col, mi;
	bool one, held, count, partial_ok;
	/* A metric of no window set none of whose events has a column this
	 * interval: the same figure in every row (dv, before the per-second
	 * division; coverage 0, error unknown), found once (step_columns). */
	bool dead;
	bool dv_ivl;                 /* dv depends on the interval: found again each one */
	double dv;
};

/* An event with a column as step_events writes it: its column, window
 * set (-1: none, no figure), place in the set, whether its PMU counts
 * per CPU, and whether its error is found. */
struct levent {
	int c, set, k;
	bool thread, err;
};

/* What an interval's steps find the same while the plan's part, which
 * events have a column (the counters open) and which window sets have
 * samples enough for an error stay the same: the key (derive.c's
 * live_key), kept in the cache (derive_cache.live) and held by each
 * interval's buffers that read it, read-only once built. At 2 CPUs of
 * a VM without a PMU most of the plan's metrics read no counter (their
 * figures NaN), and setting up their tasks again every interval was a
 * quarter of the derivation. */
struct derive_live {
	_Atomic int refs;
	const struct derive_plan_part *pp;  /* the cache's, with which it is let go */
	unsigned char *key;
	size_t nkey;
	/* The snapshot's columns and planned masks (snapshot_new_mapped). */
	int nmcols, necols;
	int *mcol, *ecol;
	bool *mplanned, *eplanned, *ecols;
	/* Per scope, the metric tasks as step_columns sets them up, less
	 * what each interval gives them (the group sums' arrays, a primed
	 * work space, dv where it follows the interval), and without the
	 * metrics of no window set whose figure is NaN, with a coverage of
	 * 0, in every row whatever the interval (those that read nothing,
	 * and pooled_nan's): those are the cells dead_col[sc] (with
	 * each one's partial_ok) that live_dead_cells writes. mt_any: the
	 * scope had any task of mt, those included. */
	struct mtask *ms[SNAP_NSCOPES], *mt[SNAP_NSCOPES];
	int nms[SNAP_NSCOPES], nmt[SNAP_NSCOPES];
	bool mt_any[SNAP_NSCOPES];
	int *dead_col[SNAP_NSCOPES], ndead[SNAP_NSCOPES];
	bool *dead_pok[SNAP_NSCOPES];
	/* Per scope, a row's metric figures as the skeleton has them with
	 * those cells written (3 * nmcols: NaN but the dead's coverage of
	 * 0), for rows that -C did not leave partial. */
	double *mrow[SNAP_NSCOPES];
	/* As derive_work has them (step_columns); dcol and need have nsets. */
	int nsets;
	int *scol_at, *scol, **dcol;
	bool **need;
	int *prep[SNAP_NSCOPES], nprep[SNAP_NSCOPES];
	int *tcol, ntcols, *tidx;
	/* Per scope, the metric columns that may have a figure (a task of
	 * ms or mt writes them: maybe[sc][c]) and of those the metrics with
	 * a bound (bmi, bcol: bounds_apply_cols); the plan's trees. */
	bool *maybe[SNAP_NSCOPES];
	int *bmi[SNAP_NSCOPES], *bcol[SNAP_NSCOPES], nbound[SNAP_NSCOPES];
	struct tree_plan *trees;
	/* Step 6's events (live_events). */
	struct levent *ev;
	int nev;
	int *sn, *sat, *sk, *sevc;
	int *err_ev, nerr_ev, *ev_err_at, *ev_err_c, *ev_err_k;
};
void derive_live_release(struct derive_live *l);
/* For a snapshot that keeps the live list's column maps (struct
 * snap_colmap's owner). */
void derive_live_hold_maps(void *l);
void derive_live_release_maps(void *l);
struct derive_live *derive_live_get(struct derive_work *w, struct derive_cache *dc, const struct derive_input *in);
void derive_live_dead_cells(const struct derive_live *l, struct snap_row *row, int sc, bool partial, bool values);

/* Whether event e's error is found: shown by an output, or read by a
 * metric of no window set (metric_pooled). */
static inline bool event_error_found(const struct derive_input *in, const struct derive_plan_part *pp, int e)
{
	return !in->event_errors || in->event_errors[e] || pp->pooled_ev[e];
}

/* What one interval's steps hand each other; its arrays come from the
 * arena and last for the interval. */
struct derive_work {
	struct arena ar;
	/* The most that one row_errors_found asked of its own arena (derive.c),
	 * recorded by the probes of the interval's thread, so that later
	 * calls on any thread allocate their buffers in one block. */
	size_t rerr_bytes;
	/* Held by the cache and by each snapshot whose errors read it
	 * (snap_errors): a derivation writes only one that the cache alone
	 * holds. Once the derivation is over, nothing below changes while
	 * another holds it. The count lies apart, so that derive_row_errors
	 * can copy the struct while another thread counts. */
	_Atomic int *refs;
	/* What a row's errors found later need of the interval besides the
	 * arrays below: the plan's part it was derived with (held),
	 * pm[0..npm-1] the plan's metrics (bounds and trees; the plan itself
	 * may be gone by then). */
	struct derive_plan_part *pp;
	struct derive_live *live;    /* held, as pp */
	const struct model *model;
	double measured_s, max_ghz;
	int npm, *pm;
	/* [nmetrics]: each planned metric's window set (pp->dm's), -1 for
	 * one of none; the trees tell parts counted in the same windows by
	 * it (derive_tree.h). */
	int *mset;
	struct row_maps rm;
	int nrows[SNAP_NSCOPES];
	int total;                   /* selected online CPUs */
	struct inst_rows *irows;     /* [npmus] */
	/* Step 2's instance rows are kept from one interval to the next
	 * while what they follow from stays the same (the topology's online
	 * CPUs, the selection, each PMU's live instances: rows_key); they
	 * and their key live in rows_ar, which only a change resets. At 1024
	 * CPUs finding them again was a tenth of a steady interval. */
	struct arena rows_ar;
	unsigned char *rows_key;
	size_t rows_key_len;
	/* [npmus * SNAP_NSCOPES]: every row of scope sc has a live instance
	 * of PMU p (clean[p * SNAP_NSCOPES + sc]), kept with the rows. */
	bool *clean;
	struct gsum *gs;             /* [plan ngroups] */
	struct wset_list wl;         /* the plan's window sets, this interval's sample counts */
	bool *partial[SNAP_NSCOPES]; /* rows of which -C left some CPUs out */
	double *scratch, *fspace, *doubt;
	/* Per set, the least relative error a figure of it may state in the
	 * row (burst_floor); per plan group, its burst there (gsum_burst). */
	double *floor, *gburst;
	/* Whether some group has its last window of the interval before, or
	 * its window of the tail round, in this interval (gsum_fill_edges):
	 * else edge_floors has nothing to find in any row. Per plan group,
	 * whether its windows missed a change there (gsum_edges). */
	bool any_edge;
	signed char *gedge;
	/* Per plan group, its burst from GSUM_BURST_MIN_UNVOUCHED on; per
	 * set, whether an event counted throughout vouches for its windows
	 * in the row (prep_row; else its floor is from those bursts). */
	double *gburst_low;
	bool *vouched;
	/* Per PMU in the row, its groups' largest burst and the second
	 * largest, with their groups' indices (-1: none above 0;
	 * burst_floor); at npmus + p, the same of gburst_low. */
	double *pburst1, *pburst2;
	int *pburst_g1, *pburst_g2;
	int *gpmu, ngroups;          /* [plan ngroups] each group's PMU (-1: not counted) */
	/* The counted groups with enough windows for a burst (gsum_burst is
	 * 0 for every other, in every row): burst_floor visits these alone,
	 * and with none of them every floor is 0. */
	int *bgroups, nbgroups;
	/* The columns of the metrics that a tree reconciles (the parts of a
	 * family, tree_plan_apply): tcol[0..ntcols-1], tidx[nmcols] each
	 * column's index there or -1; per scope, each one's burst floor in
	 * each row ([nrows][ntcols], 0 for none; one row where tf_one), which
	 * the tree's errors are held to (floors_after_trees). */
	int *tcol, ntcols, *tidx;
	double *tfloor[SNAP_NSCOPES];
	bool tf_one;
	struct wsamples *smp;        /* [wl.n] each set's samples in the row */
	bool *pmu_here;
	/* Each scope's metrics as the rows read them: those of one group
	 * and too few samples for an error (ms: nothing of the row but the
	 * group's counts goes into them), and the rest (mt). */
	struct mtask *ms[SNAP_NSCOPES], *mt[SNAP_NSCOPES];
	int nms[SNAP_NSCOPES], nmt[SNAP_NSCOPES];
	bool mt_any[SNAP_NSCOPES];   /* mt had a task before the dead were left out (derive_live) */
	/* Per window set k: the columns of the events whose figure it gives
	 * (scol[scol_at[k]..scol_at[k+1]-1], widened by its doubt), and per
	 * event of the set the column against which window_doubt measures
	 * it (dcol[k][j], -1: none). */
	int *scol_at, *scol, **dcol;
	/* Per scope, the sets whose samples a row reads (a doubt that widens
	 * an error that is found, a metric's error or its several groups'
	 * values): prep_row measures no others. */
	int *prep[SNAP_NSCOPES], nprep[SNAP_NSCOPES];
	/* The events whose error some row finds (step_events), found again
	 * in a row whose errors are found later (derive_row_errors). */
	int *err_ev, nerr_ev;
	/* The same events by window set: set k's are ev_err_c[j] (their
	 * columns) and ev_err_k[j] (their places in the set) for
	 * ev_err_at[k] <= j < ev_err_at[k + 1]; prep_row finds their errors
	 * from the set's samples in the row. */
	int *ev_err_at, *ev_err_c, *ev_err_k;
	/* step_simple_metrics: the rows a metric is evaluated in, and its
	 * program's slots for all of them (formula_run_rows). */
	int *rlist;
	double *rwork;
	/* Per scope and column, the median stated error of the metrics' and
	 * the events' figures (derive_moderate.h). */
	double *mmed[SNAP_NSCOPES], *emed[SNAP_NSCOPES];
	double *mscale, *escale;     /* [nmcols], [necols] */
	/* Per scope, its probe rows' errors before they were drawn toward
	 * their peers' ([nprobes][nmcols + necols]), for the floor of the
	 * rows above them (moderate_below). */
	double *perr[SNAP_NSCOPES];
	/* Per scope, the metric and event columns whose median is a number:
	 * the only ones moderation changes (at 384 CPUs some 7 of 175). */
	int *mlive[SNAP_NSCOPES], *elive[SNAP_NSCOPES];
	int nmlive[SNAP_NSCOPES], nelive[SNAP_NSCOPES];
	/* No scope has probes enough for a median (every one NaN): no error
	 * is drawn toward its peers', nor floored from below (moderate_row
	 * does nothing). At 2 CPUs, always. */
	bool mod_none;
};

/* Step 1, the row maps; step 2, the instance rows; step 5, the skeleton
 * (derive_rows.c), its rows' metric figures the live list's mrow where
 * live_rows, else NaN. */
void derive_step_row_maps(struct derive_work *w, const struct derive_input *in);
void derive_step_instance_rows(struct derive_work *w, const struct derive_input *in);
struct snapshot *derive_step_skeleton(struct derive_work *w, const struct derive_input *in, bool live_rows);

/* Row r of scope sc's errors, which the derivation of snap (from w) left
 * for later: its metrics' (mrse, [snap->nmcols]) and events' (erse,
 * [snap->necols]) as a derivation of every row's errors gives them, to
 * the bit, bounds and trees applied. Reads w and snap only (derive.c),
 * so any thread may run it at the same time as another. */
void derive_row_errors(const struct derive_work *w, const struct snapshot *snap, int sc, int r, double *mrse,
		       double *erse);
/* The error source of a snapshot of w's (derive_errors.c): holds w. */
struct snap_errors *derive_errors_new(struct derive_work *w, const struct snapshot *snap);
/* Holds / lets go of w and its plan's part; the last frees them. */
void derive_work_hold(struct derive_work *w);
void derive_work_release(struct derive_work *w);
void derive_plan_part_release(struct derive_plan_part *pp);

#endif
