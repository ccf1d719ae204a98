/* derive_errors.c: a snapshot's error source. The dashboard has the
 * errors of only the rows it shows found while an interval is derived;
 * the others' are found when something reads them. The source holds what
 * they come from, the interval's group sums and window sets (its
 * struct derive_work and the plan's part), read-only and counted by
 * reference, so that a row's errors are a function of the snapshot
 * alone: the same whenever and on whichever thread they are read, with
 * no lock and nothing of the snapshot written. Each row's are found once
 * (the first reader publishes them with a compare-and-swap; a reader that
 * lost the race frees its own, which are the same to the bit). The
 * reference counts of the buffers and the plan's part live here too. */
#include "config.h"
#include "derive_impl.h"
#include "formula.h"
#include "snapshot.h"
#include "util.h"
#include "hot_path.h"
#include "spare.h"

#include <stdatomic.h>
#include <stdlib.h>

/* Frees what was worked out for one plan. */
static void plan_part_free(struct derive_plan_part *c)
{
	if (c->wl) {
		wset_list_free(c->wl);
		free(c->wl);
	}
	free(c->ev_set);
	free(c->set_metric);
	free(c->pooled_ev);
	free(c->cand);
	free(c->mset);
	for (int i = 0; i < c->ndm; i++)
		for (int sc = 0; sc < SNAP_NSCOPES; sc++) {
			formula_free(c->dm[i].prog[sc]);
			free(c->dm[i].vk[sc]);
			free(c->dm[i].gp[sc]);
		}
	for (int sc = 0; sc < SNAP_NSCOPES; sc++)
		free(c->mlist[sc]);
	free(c->dm);
	free(c);
}

HOT_PATH void derive_plan_part_release(struct derive_plan_part *pp)
{
	if (pp && atomic_fetch_sub_explicit(&pp->refs, 1, memory_order_acq_rel) == 1)
		plan_part_free(pp);
}

void derive_work_hold(struct derive_work *w)
{
	atomic_fetch_add_explicit(w->refs, 1, memory_order_relaxed);
}

HOT_PATH void derive_work_release(struct derive_work *w)
{
	if (!w || atomic_fetch_sub_explicit(w->refs, 1, memory_order_acq_rel) != 1)
		return;
	derive_plan_part_release(w->pp);
	derive_live_release(w->live);
	arena_free(&w->ar);
	arena_free(&w->rows_ar);
	free(w->refs);
	free(w);
}

struct snap_errors {
	_Atomic int refs;
	struct derive_work *w;          /* held */
	int nm, ne;                     /* the snapshot's columns */
	/* Per row of each scope, its errors once found: [nm] metrics' then
	 * [ne] events'; NULL until then. */
	_Atomic(double *) *row[SNAP_NSCOPES];
	int nrows[SNAP_NSCOPES];
	size_t cap;                     /* room for this many rows' pointers */
};

/* The last source let go, kept for the next interval's (spare.h): a
 * source is made every interval the dashboard or a batch output leaves
 * rows for later, and its allocation and free were most of the C
 * library's code that a steady batch interval ran
 * (docs/performance.md). */
static _Atomic(void *) spare;

/* One allocation: the struct, then each scope's row pointers (one is
 * made every interval: the spare's when it has room for as many rows). */
HOT_PATH struct snap_errors *derive_errors_new(struct derive_work *w, const struct snapshot *snap)
{
	size_t n = 0;
	for (int sc = 0; sc < SNAP_NSCOPES; sc++)
		n += (size_t)snap->nrows[sc];
	struct snap_errors *e = spare_take(&spare);
	if (e && e->cap < n) {
		free(e);
		e = NULL;
	}
	if (!e) {
		e = xmalloc(sizeof(*e) + sizeof(*e->row[0]) * (n + 1));
		e->cap = n;
	}
	_Atomic(double *) *at = (_Atomic(double *) *)(void *)(e + 1);
	atomic_init(&e->refs, 1);
	derive_work_hold(w);
	e->w = w;
	e->nm = snap->nmcols;
	e->ne = snap->necols;
	for (int sc = 0; sc < SNAP_NSCOPES; sc++) {
		int nr = e->nrows[sc] = snap->nrows[sc];
		e->row[sc] = at;
		for (int r = 0; r < nr; r++)
			atomic_init(&at[r], NULL);
		at += nr;
	}
	return e;
}

struct snap_errors *snap_errors_hold(struct snap_errors *e)
{
	if (e)
		atomic_fetch_add_explicit(&e->refs, 1, memory_order_relaxed);
	return e;
}

HOT_PATH void snap_errors_release(struct snap_errors *e)
{
	if (!e || atomic_fetch_sub_explicit(&e->refs, 1, memory_order_acq_rel) != 1)
		return;
	for (int sc = 0; sc < SNAP_NSCOPES; sc++)
		for (int r = 0; r < e->nrows[sc]; r++) {
			double *found = atomic_load_explicit(&e->row[sc][r], memory_order_relaxed);
			if (found)   /* most rows' errors are never found later */
				free(found);
		}
	derive_work_release(e->w);
	spare_give(&spare, e);
}

const double *snap_errors_row_(const struct snapshot *s, const struct snap_row *row, bool events)
{
	struct snap_errors *e = s ? s->errors : NULL;
	int r, sc = e ? snapshot_row_scope(s, row, &r) : -1;
	if (sc < 0 || r >= e->nrows[sc])
		return NULL;    /* not a row of a snapshot with a source: unknown */
	double *v = atomic_load_explicit(&e->row[sc][r], memory_order_acquire);
	if (!v) {
		double *mine = xmalloc(sizeof(double) * ((size_t)e->nm + (size_t)e->ne + 1));
		derive_row_errors(e->w, s, sc, r, mine, mine + e->nm);
		double *none = NULL;
		if (atomic_compare_exchange_strong_explicit(&e->row[sc][r], &none, mine, memory_order_acq_rel,
							    memory_order_acquire)) {
			v = mine;
		} else {
			free(mine);
			v = none;
		}
	}
	return events ? v + e->nm : v;
}
