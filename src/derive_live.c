/* derive_live.c: the derivation's live list (struct derive_live): what
 * derive_snapshot's steps read that follows from the plan's part and the
 * open counters alone -- the snapshot's columns, each scope's metric
 * tasks less those whose figure is NaN whatever the interval, the events
 * by window set, the sets each row measures, the tree parts' columns.
 * Built once and kept while its key (live_key) and the plan's part stay
 * the same, so that an interval at 2 CPUs, where most of the 99 planned
 * metrics read no open counter, runs only the work that can give a
 * figure (docs/performance.md, "The derivation's live list"). */
#include "config.h"
#include "derive.h"
#include "derive_impl.h"
#include "derive_tree.h"
#include "derive_window.h"
#include "formula.h"
#include "uncertainty.h"
#include "util.h"
#include "hot_path.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Step 6's list of the events (derive_live): each event with a column
 * in candidate order, less those of a set of several groups that find
 * no error (by set: sk, sevc at sat[s], sn[s] of them, done by
 * set_events_in_rows), and the events whose error some row finds (err_ev,
 * and by set ev_err_*). An event's error is found where it can be stated
 * and something reads it (key & 4: event_error_found). */
static void live_events(struct derive_live *l, const struct derive_plan_part *pp, const struct model *m,
			const struct wset_list *wl, const unsigned char *key)
{
	int nsets = wl->n;
	l->ev = xmalloc(sizeof(struct levent) * ((size_t)pp->ncand + 1));
	l->sn = xcalloc((size_t)nsets + 1, sizeof(int));
	l->sat = xmalloc(sizeof(int) * ((size_t)nsets + 1));
	l->sk = xmalloc(sizeof(int) * ((size_t)pp->ncand + 1));
	l->sevc = xmalloc(sizeof(int) * ((size_t)pp->ncand + 1));
	l->err_ev = xmalloc(sizeof(int) * ((size_t)pp->ncand + 1));
	l->ev_err_at = xcalloc((size_t)nsets + 2, sizeof(int));
	for (int i = 0; i < pp->ncand; i++) {
		int e = pp->cand[i], s = pp->ev_set[e];
		if (l->ecol[e] >= 0 && s >= 0 && wl->v[s].ng >= 2)
			l->sn[s]++;
	}
	for (int s = 0, at = 0; s < nsets; s++) {
		l->sat[s] = at;
		at += l->sn[s];
		l->sn[s] = 0;
	}
	for (int i = 0; i < pp->ncand; i++) {
		int e = pp->cand[i], c = l->ecol[e], s = pp->ev_set[e];
		if (c < 0)
			continue;
		if (s < 0) {
			l->ev[l->nev++] = (struct levent){ .c = c, .set = -1 };
			continue;
		}
		const struct wset *ws = &wl->v[s];
		int k = wset_event(ws, e);
		bool thread = m->pmus[ws->pmu].scope == SCOPE_THREAD;
		bool err = ws->ns >= UNC_MIN_SAMPLES && (key[i] & 4);
		if (err) {
			l->err_ev[l->nerr_ev++] = e;
			l->ev_err_at[s + 1]++;
		}
		if (!err && ws->ng >= 2) {
			l->sk[l->sat[s] + l->sn[s]] = k;
			l->sevc[l->sat[s] + l->sn[s]++] = c;
			continue;
		}
		l->ev[l->nev++] = (struct levent){ .c = c, .set = s, .k = k, .thread = thread, .err = err };
	}
	/* The events whose error is found, by set: their errors are found
	 * in each row from the set's samples there (prep_row), which are
	 * found for the row anyway, not from the set's groups again for each
	 * event (wset_se: the same figure, to the bit). */
	for (int s = 0; s < nsets; s++)
		l->ev_err_at[s + 1] += l->ev_err_at[s];
	l->ev_err_c = xmalloc(sizeof(int) * ((size_t)l->nerr_ev + 1));
	l->ev_err_k = xmalloc(sizeof(int) * ((size_t)l->nerr_ev + 1));
	int *fill = xmalloc(sizeof(int) * ((size_t)nsets + 1));
	if (nsets > 0)
		memcpy(fill, l->ev_err_at, sizeof(int) * (size_t)nsets);
	for (int i = 0; i < l->nerr_ev; i++) {
		int e = l->err_ev[i], s = pp->ev_set[e];
		l->ev_err_c[fill[s]] = l->ecol[e];
		l->ev_err_k[fill[s]++] = wset_event(&wl->v[s], e);
	}
	free(fill);
}

/* Whether metric task t, of no window set, reads no event with a column
 * (on this VM without a PMU, most of them): metric_pooled would then find
 * the same in every row, every variable NaN, each event's error unknown
 * and coverage 0, so its value is found here once (t->dv). A metric of no
 * events keeps the row-by-row path (its error may be exact). */
static bool pooled_dead(const struct model *m, const int *ecol, int mi, const struct formula *fp)
{
	const struct metric_def *md = &m->metrics[mi];
	if (md->nevents <= 0)
		return false;
	for (int k = 0; k < md->nevents; k++)
		if (ecol[md->events[k]] >= 0)
			return false;
	const int *ev = formula_vars(fp);
	int n = formula_nvars(fp);
	for (int k = 0; k < n; k++)
		if (ecol[ev[k]] >= 0)
			return false;
	return true;
}

/* A dead task's figure (pooled_dead: every variable NaN) where the
 * interval does not reach it: true with it in *dv, false where it may
 * follow the interval (found again each interval). Every operation of a
 * program gives NaN when an operand is NaN (formula.c), so with the
 * interval NaN any slot that reads it, or reads one that did, is NaN: a
 * value that is a number with the interval NaN (and the variables 1)
 * reads nothing of the interval, and the figure with the variables NaN
 * is then the same for any interval. */
static bool dead_fixed(const struct formula *fp, int n, double *fv, double *dv)
{
	for (int k = 0; k < n; k++)
		fv[k] = 1;
	if (isnan(formula_eval(fp, NAN, fv)))
		return false;
	for (int k = 0; k < n; k++)
		fv[k] = NAN;
	*dv = formula_eval(fp, NAN, fv);
	return true;
}

/* Whether metric task t of no window set has no value in any row (NaN
 * whatever the counts and the interval) and a coverage of 0: some
 * variable of its program has no column (NaN in every row: row_ev) and
 * reaches its value, and some event of it has no column (its coverage,
 * the least of its events', is 0). Reaching it is found as the program
 * runs: every operation gives NaN when an operand is NaN (formula.c), so
 * a value that is NaN with those variables NaN and the rest 1, and a
 * number with every variable 1, is NaN for any value of the rest. */
static bool pooled_nan(const struct model *m, const int *ecol, const struct mtask *t, double *fv)
{
	const struct metric_def *md = &m->metrics[t->mi];
	bool cov0 = false, some = false;
	for (int k = 0; k < md->nevents; k++)
		cov0 |= ecol[md->events[k]] < 0;
	const int *ev = formula_vars(t->fp);
	for (int k = 0; k < t->n; k++) {
		fv[k] = ecol[ev[k]] < 0 ? NAN : 1;
		some |= ecol[ev[k]] < 0;
	}
	if (!cov0 || !some || !isnan(formula_eval(t->fp, 1, fv)))
		return false;
	for (int k = 0; k < t->n; k++)
		fv[k] = 1;
	return !isnan(formula_eval(t->fp, 1, fv));
}

/* What derive_live follows from, a byte per candidate event (planned
 * with its PMU open, has a column, its error found) and one per window
 * set (samples enough for an error): the plan's part is the rest. */
static unsigned char *live_key(struct derive_work *w, const struct derive_plan_part *pp,
			       const struct derive_input *in, size_t *len)
{
	const struct model *m = in->model;
	size_t n = (size_t)pp->ncand + (size_t)w->wl.n;
	unsigned char *k = arena_get(&w->ar, n + 1, false);
	for (int i = 0; i < pp->ncand; i++) {
		int e = pp->cand[i];
		bool ep = in->plan->event_used[e] && in->pmus[m->events[e].pmu].available;
		bool col = ep || pp->ev_set[e] >= 0;
		k[i] = (unsigned char)((ep ? 1 : 0) | (col ? 2 : 0) | (event_error_found(in, pp, e) ? 4 : 0));
	}
	for (int s = 0; s < w->wl.n; s++)
		k[pp->ncand + s] = w->wl.v[s].ns >= UNC_MIN_SAMPLES;
	*len = n;
	return k;
}

HOT_PATH void derive_live_hold_maps(void *l)
{
	atomic_fetch_add_explicit(&((struct derive_live *)l)->refs, 1, memory_order_relaxed);
}

HOT_PATH void derive_live_release_maps(void *l)
{
	derive_live_release(l);
}

HOT_PATH void derive_live_release(struct derive_live *l)
{
	if (!l || atomic_fetch_sub_explicit(&l->refs, 1, memory_order_acq_rel) != 1)
		return;
	free(l->key);
	free(l->mcol);
	free(l->ecol);
	free(l->mplanned);
	free(l->eplanned);
	free(l->ecols);
	for (int sc = 0; sc < SNAP_NSCOPES; sc++) {
		free(l->ms[sc]);
		free(l->mt[sc]);
		free(l->dead_col[sc]);
		free(l->dead_pok[sc]);
		free(l->prep[sc]);
		free(l->maybe[sc]);
		free(l->mrow[sc]);
		free(l->bmi[sc]);
		free(l->bcol[sc]);
	}
	tree_plan_free(l->trees);
	for (int k = 0; l->dcol && k < l->nsets; k++) {
		free(l->dcol[k]);
		free(l->need[k]);
	}
	free(l->dcol);
	free(l->need);
	free(l->scol_at);
	free(l->scol);
	free(l->tcol);
	free(l->tidx);
	free(l->ev);
	free(l->sn);
	free(l->sat);
	free(l->sk);
	free(l->sevc);
	free(l->err_ev);
	free(l->ev_err_at);
	free(l->ev_err_c);
	free(l->ev_err_k);
	free(l);
}

/* Row r's cells of the metrics that live_build left out of the tasks
 * (their figure NaN whatever the interval): what row_metrics gave each,
 * a coverage of 0 and the value and error NaN (the skeleton's already:
 * written where values is set, in a row derived again), unless -C left
 * the row partial for it. */
void derive_live_dead_cells(const struct derive_live *l, struct snap_row *row, int sc, bool partial, bool values)
{
	const int *col = l->dead_col[sc];
	const bool *pok = l->dead_pok[sc];
	for (int i = 0, n = l->ndead[sc]; i < n; i++) {
		if (partial && !pok[i])
			continue;
		row->mcov[col[i]] = 0;
		if (values)
			row->mv[col[i]] = row->mrse[col[i]] = NAN;
	}
}

/* The snapshot's columns and the metric tasks of each scope as the rows'
 * steps read them: each planned metric's, the events' whose error each
 * set's doubt widens, and those against which window_doubt measures each
 * set; all that follows from the plan's part and the key (live_key). */
static struct derive_live *live_build(const struct derive_work *w, const struct derive_plan_part *pp,
				      const struct derive_input *in, const unsigned char *key, size_t nkey)
{
	const struct model *m = in->model;
	const struct sched_plan *plan = in->plan;
	struct derive_live *l = xcalloc(1, sizeof(*l));
	atomic_init(&l->refs, 1);
	l->pp = pp;
	l->key = xmalloc(nkey + 1);
	memcpy(l->key, key, nkey);
	l->nkey = nkey;
	/* Every event with a figure gets a column: the planned ones, and any
	 * the plan's window sets still hold; only a candidate can. */
	l->mplanned = xcalloc((size_t)m->nmetrics + 1, sizeof(bool));
	l->eplanned = xcalloc((size_t)m->nevents + 1, sizeof(bool));
	l->ecols = xcalloc((size_t)m->nevents + 1, sizeof(bool));
	for (int i = 0; i < plan->nmetrics; i++)
		l->mplanned[plan->metrics[i]] = true;
	for (int i = 0; i < pp->ncand; i++) {
		l->eplanned[pp->cand[i]] = key[i] & 1;
		l->ecols[pp->cand[i]] = key[i] & 2;
	}
	l->mcol = xmalloc(sizeof(int) * ((size_t)m->nmetrics + 1));
	l->ecol = xmalloc(sizeof(int) * ((size_t)m->nevents + 1));
	for (int i = 0; i < m->nmetrics; i++)
		l->mcol[i] = l->mplanned[i] ? l->nmcols++ : -1;
	for (int e = 0; e < m->nevents; e++)
		l->ecol[e] = l->ecols[e] ? l->necols++ : -1;
	const struct wset *sets = w->wl.v;
	int nsets = l->nsets = w->wl.n;
	double *fv = xmalloc(sizeof(double) * ((size_t)pp->fspace + 1));
	for (int sc = 0; sc < SNAP_NSCOPES; sc++) {
		size_t n = (size_t)pp->nmlist[sc] + 1;
		l->ms[sc] = xmalloc(sizeof(struct mtask) * n);
		l->mt[sc] = xmalloc(sizeof(struct mtask) * n);
		l->dead_col[sc] = xmalloc(sizeof(int) * n);
		l->dead_pok[sc] = xmalloc(sizeof(bool) * n);
		for (int j = 0; j < pp->nmlist[sc]; j++) {
			const struct derive_metric *d = &pp->dm[pp->mlist[sc][j]];
			bool simple = d->set >= 0 && sets[d->set].ng == 1 && sets[d->set].ns < UNC_MIN_SAMPLES;
			struct mtask t = { .fp = d->prog[sc], .set = d->set, .n = d->nvars[sc], .pmu = -1,
					   .col = l->mcol[d->mi], .mi = d->mi, .held = d->held[sc],
					   .count = d->count, .partial_ok = d->partial_ok[sc] };
			if (!simple)
				l->mt_any[sc] = true;
			if (d->set < 0) {
				/* A metric that reads nothing: its one figure for
				 * every row, every variable NaN. Where that is NaN
				 * whatever the interval, or where a variable with no
				 * figure makes its value NaN whatever the others
				 * (pooled_nan), only the coverage of 0 is left to
				 * write (derive_live_dead_cells): the figure that
				 * row_metrics gives it. */
				double dv = 0;
				bool fixed = false;
				if ((t.dead = pooled_dead(m, l->ecol, d->mi, t.fp)))
					fixed = dead_fixed(t.fp, t.n, fv, &dv);
				if ((t.dead && fixed && isnan(dv)) || pooled_nan(m, l->ecol, &t, fv)) {
					l->dead_col[sc][l->ndead[sc]] = t.col;
					l->dead_pok[sc][l->ndead[sc]++] = t.partial_ok;
					continue;
				}
				t.dv_ivl = t.dead && !fixed;
				t.dv = dv;
				l->mt[sc][l->nmt[sc]++] = t;
				continue;
			}
			const struct wset *ws = &sets[d->set];
			t.pmu = ws->pmu;
			t.one = ws->ng == 1;
			t.idx = t.one ? d->gp[sc] : d->vk[sc];
			if (simple)
				l->ms[sc][l->nms[sc]++] = t;
			else
				l->mt[sc][l->nmt[sc]++] = t;
		}
	}
	free(fv);
	for (int sc = 0; sc < SNAP_NSCOPES; sc++) {
		size_t n = 3 * (size_t)l->nmcols;
		l->mrow[sc] = xmalloc(sizeof(double) * (n + 1));
		for (size_t i = 0; i < n; i++)
			l->mrow[sc][i] = NAN;
		struct snap_row row = { .mv = l->mrow[sc], .mcov = l->mrow[sc] + l->nmcols,
					.mrse = l->mrow[sc] + 2 * (size_t)l->nmcols };
		derive_live_dead_cells(l, &row, sc, false, false);
	}
	/* The columns the tasks write, and those of them with a bound. */
	for (int sc = 0; sc < SNAP_NSCOPES; sc++) {
		l->maybe[sc] = xcalloc((size_t)l->nmcols + 1, sizeof(bool));
		l->bmi[sc] = xmalloc(sizeof(int) * ((size_t)l->nms[sc] + (size_t)l->nmt[sc] + 1));
		l->bcol[sc] = xmalloc(sizeof(int) * ((size_t)l->nms[sc] + (size_t)l->nmt[sc] + 1));
		for (int j = 0; j < l->nms[sc] + l->nmt[sc]; j++) {
			const struct mtask *t = j < l->nms[sc] ? &l->ms[sc][j] : &l->mt[sc][j - l->nms[sc]];
			const struct metric_def *md = &m->metrics[t->mi];
			l->maybe[sc][t->col] = true;
			if (isnan(md->lo) && isnan(md->hi) && !md->hi_ghz)
				continue;
			l->bmi[sc][l->nbound[sc]] = t->mi;
			l->bcol[sc][l->nbound[sc]++] = t->col;
		}
	}
	l->trees = tree_plan_new(m, plan, pp->mset, l->mcol);
	live_events(l, pp, m, &w->wl, key);
	const int *ecol = l->ecol;
	l->scol_at = xcalloc((size_t)nsets + 2, sizeof(int));
	for (int i = 0, e; i < pp->ncand; i++)
		if (pp->ev_set[e = pp->cand[i]] >= 0 && ecol[e] >= 0)
			l->scol_at[pp->ev_set[e] + 1]++;
	for (int k = 0; k < nsets; k++)
		l->scol_at[k + 1] += l->scol_at[k];
	l->scol = xmalloc(sizeof(int) * ((size_t)l->scol_at[nsets] + 1));
	int *fill = xmalloc(sizeof(int) * ((size_t)nsets + 1));
	if (nsets > 0)
		memcpy(fill, l->scol_at, sizeof(int) * (size_t)nsets);
	for (int i = 0, e; i < pp->ncand; i++)
		if (pp->ev_set[e = pp->cand[i]] >= 0 && ecol[e] >= 0)
			l->scol[fill[pp->ev_set[e]]++] = ecol[e];
	free(fill);
	l->dcol = xcalloc((size_t)nsets + 1, sizeof(int *));
	l->need = xcalloc((size_t)nsets + 1, sizeof(bool *));
	for (int k = 0; k < nsets; k++) {
		const struct wset *ws = &sets[k];
		l->dcol[k] = xmalloc(sizeof(int) * ((size_t)ws->nev + 1));
		l->need[k] = xcalloc((size_t)ws->nev + 1, sizeof(bool));
		for (int j = 0; j < ws->nev; j++) {
			int e = ws->ev[j], s = pp->ev_set[e];
			l->dcol[k][j] = s >= 0 && s != k ? ecol[e] : -1;
			/* window_doubt reads the set's value of such an event. */
			l->need[k][j] = ws->ns >= UNC_MIN_SAMPLES && l->dcol[k][j] >= 0;
		}
	}
	/* A set's doubt and burst floor widen the errors of the events
	 * whose figure it gives, where they are found (step_events: shown,
	 * or read by a metric of no window set, which widens them by it
	 * again), and of the metrics evaluated in it. */
	bool *err_read = xcalloc((size_t)nsets + 1, sizeof(bool));
	for (int i = 0, e; i < pp->ncand; i++)
		if (pp->ev_set[e = pp->cand[i]] >= 0 && ecol[e] >= 0 && (key[i] & 4))
			err_read[pp->ev_set[e]] = true;
	/* The sets prep_row measures in each row of a scope: those whose
	 * samples a row reads (an event's error that is found, a metric
	 * evaluated row by row in the set), with samples for an error or
	 * values to find (a set of several groups with metrics). A set
	 * with no event that another set gives has a doubt of 1, but it
	 * still takes the burst floor: such sets were once left out, and
	 * their events kept the errors of their own windows alone (Zen 4
	 * and 5's L2 miss and prefetch events of the cache view, coverage
	 * 1/2, 54-64 % low with errors of 4.7-4.9 %; docs/uncertainty.md,
	 * "The tail"). */
	bool *read = xmalloc(sizeof(bool) * ((size_t)nsets + 1));
	for (int sc = 0; sc < SNAP_NSCOPES; sc++) {
		if (nsets > 0)
			memcpy(read, err_read, sizeof(bool) * (size_t)nsets);
		for (int j = 0; j < l->nmt[sc]; j++)
			if (l->mt[sc][j].set >= 0)
				read[l->mt[sc][j].set] = true;
		l->prep[sc] = xmalloc(sizeof(int) * ((size_t)nsets + 1));
		for (int k = 0; k < nsets; k++) {
			const struct wset *ws = &sets[k];
			if (read[k] && !(ws->ns < UNC_MIN_SAMPLES && (ws->ng < 2 || !pp->set_metric[k])))
				l->prep[sc][l->nprep[sc]++] = k;
		}
	}
	free(read);
	free(err_read);
	/* The tree parts' columns (floors_after_trees). */
	int nm = l->nmcols;
	l->tidx = xmalloc(sizeof(int) * ((size_t)nm + 1));
	l->tcol = xmalloc(sizeof(int) * ((size_t)nm + 1));
	for (int c = 0; c < nm; c++)
		l->tidx[c] = -1;
	for (int i = 0; i < pp->ndm; i++) {
		int c = l->mcol[pp->dm[i].mi];
		if (c >= 0 && m->metrics[pp->dm[i].mi].parent != -1 && l->tidx[c] < 0) {
			l->tidx[c] = l->ntcols;
			l->tcol[l->ntcols++] = c;
		}
	}
	/* The values of a set of several groups that its metrics read. */
	for (int sc = 0; sc < SNAP_NSCOPES; sc++)
		for (int j = 0; j < l->nmt[sc]; j++) {
			const struct mtask *t = &l->mt[sc][j];
			if (t->set < 0 || t->one)
				continue;
			for (int k = 0; k < t->n; k++)
				if (t->idx[k] >= 0)
					l->need[t->set][t->idx[k]] = true;
		}
	return l;
}

/* The cache's derive_live for this interval, built again where its key
 * (live_key) or the plan's part changed, and held by w. */
HOT_PATH struct derive_live *derive_live_get(struct derive_work *w, struct derive_cache *dc, const struct derive_input *in)
{
	const struct derive_plan_part *pp = w->pp;
	size_t nkey;
	unsigned char *key = live_key(w, pp, in, &nkey);
	struct derive_live *l = dc->live;
	if (!l || l->pp != pp || l->nkey != nkey || memcmp(l->key, key, nkey)) {
		derive_live_release(l);
		l = dc->live = live_build(w, pp, in, key, nkey);
	}
	atomic_fetch_add_explicit(&l->refs, 1, memory_order_relaxed);
	return w->live = l;
}
