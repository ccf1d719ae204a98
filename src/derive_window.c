/* derive_window.c: per-group sums per row, and window sets over them (see
 * derive_window.h). */
#include "config.h"
#include "derive_window.h"
#include "arena.h"
#include "expr.h"
#include "uncertainty.h"
#include "util.h"
#include "hot_path.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* dst[j] = src[j] * k for j < n, two at a time as add_to: the same
 * products. */
static inline void scale_to(double *restrict dst, const double *restrict src, double k, int n)
{
	int j = 0;
#if defined(__GNUC__)
	typedef double v2d __attribute__((vector_size(16)));
	v2d kk = { k, k };
	for (; j + 2 <= n; j += 2) {
		v2d a;
		memcpy(&a, src + j, sizeof(a));
		a *= kk;
		memcpy(dst + j, &a, sizeof(a));
	}
#endif
	for (; j < n; j++)
		dst[j] = src[j] * k;
}

/* Row r of scope sc added into row u of scope su, buckets and all; into
 * a row nothing was added to yet (seen false), copied. */
static void add_row(struct gsum *gs, int *cnt[SNAP_NSCOPES], bool *seen[SNAP_NSCOPES], int sc, int r, int su, int u)
{
	int nev = gs->nev, nb = gs->nb;
	size_t from = (size_t)r * (size_t)nb, to = (size_t)u * (size_t)nb;
	double *dv = &gs->val[su][(size_t)u * (size_t)nev], *dbv = nb ? &gs->bval[su][to * (size_t)nev] : NULL;
	const double *sv = &gs->val[sc][(size_t)r * (size_t)nev], *sbv = nb ? &gs->bval[sc][from * (size_t)nev] : NULL;
	if (!seen[su][u]) {
		seen[su][u] = true;
		memcpy(dv, sv, sizeof(double) * (size_t)nev);
		gs->run[su][u] = gs->run[sc][r];
		gs->cov[su][u] = gs->cov[sc][r];
		if (!nb)
			return;
		memcpy(dbv, sbv, sizeof(double) * (size_t)nb * (size_t)nev);
		memcpy(&gs->bw[su][to], &gs->bw[sc][from], sizeof(double) * (size_t)nb);
		memcpy(&cnt[su][to], &cnt[sc][from], sizeof(int) * (size_t)nb);
		return;
	}
	add_to(dv, sv, nev);
	gs->run[su][u] += gs->run[sc][r];
	if (gs->cov[sc][r] < gs->cov[su][u])
		gs->cov[su][u] = gs->cov[sc][r];
	if (!nb)
		return;
	add_to(dbv, sbv, nb * nev);
	for (int b = 0; b < nb; b++) {
		gs->bw[su][to + (size_t)b] += gs->bw[sc][from + (size_t)b];
		cnt[su][to + (size_t)b] += cnt[sc][from + (size_t)b];
	}
}

/* Row r of scope sc as nothing added to it: no instance under it. */
static void zero_row(struct gsum *gs, int *cnt[SNAP_NSCOPES], int sc, int r)
{
	int nev = gs->nev, nb = gs->nb;
	memset(&gs->val[sc][(size_t)r * (size_t)nev], 0, sizeof(double) * (size_t)nev);
	gs->run[sc][r] = 0;
	gs->cov[sc][r] = 0;
	if (!nb)
		return;
	size_t at = (size_t)r * (size_t)nb;
	memset(&gs->bval[sc][at * (size_t)nev], 0, sizeof(double) * (size_t)nb * (size_t)nev);
	memset(&gs->bw[sc][at], 0, sizeof(double) * (size_t)nb);
	memset(&cnt[sc][at], 0, sizeof(int) * (size_t)nb);
}

HOT_PATH void gsum_fill(struct gsum *gs, const struct derive_input *in, int gi, const struct inst_rows *ir,
	       const int nrows[SNAP_NSCOPES], struct arena *ar)
{
	const struct derive_group *g = &in->groups[gi];
	const struct derive_pmu *dp = &in->pmus[in->plan->groups[gi].pmu];
	double T = in->measured_s * 1e9;
	int nev = g->nev;
	/* One window has nothing to add to the group's value itself. */
	int nb = g->nb >= 2 ? g->nb : 0;
	memset(gs, 0, sizeof(*gs));
	gs->nev = nev;
	gs->nb = nb;
	/* The events pinned for a fixed counter: not the group's own
	 * sample (gsum_burst). */
	const bool *ep = in->plan->event_fixed_pin;
	bool anypin = false;
	for (int j = 0; ep && j < nev && !anypin; j++)
		anypin = g->events[j] >= 0 && ep[g->events[j]];
	if (anypin) {
		bool *pin = arena_get(ar, (size_t)nev, true);
		for (int j = 0; j < nev; j++)
			pin[j] = g->events[j] >= 0 && ep[g->events[j]];
		gs->pin = pin;
	}
	/* One block for all of the group's arrays (and one for the counts),
	 * from the interval's arena: this runs for every group of every
	 * interval, and fresh memory of this size costs page faults. */
	size_t need = 1, ncnt = 1;
	for (int sc = 0; sc < SNAP_NSCOPES; sc++) {
		size_t nr = (size_t)nrows[sc];
		need += nr * ((size_t)nev + 2) + (nb ? nr * (size_t)nb * ((size_t)nev + 1) : 0);
		ncnt += nb ? nr * (size_t)nb : 0;
	}
	/* Not zeroed: at 1024 CPUs that was a tenth of the derivation. A
	 * row's first addition is a copy instead (seen), and the rows that
	 * get none are zeroed at the end. */
	double *at0 = arena_get(ar, need * sizeof(double), false);
	int *cnt[SNAP_NSCOPES] = { NULL }, *cat = nb ? arena_get(ar, ncnt * sizeof(int), false) : NULL;
	bool *seen[SNAP_NSCOPES];
	for (int sc = 0; sc < SNAP_NSCOPES; sc++) {
		size_t nr = (size_t)nrows[sc];
		seen[sc] = arena_get(ar, nr + 1, true);
		gs->val[sc] = at0;
		at0 += nr * (size_t)nev;
		gs->run[sc] = at0;
		at0 += nr;
		gs->cov[sc] = at0;
		at0 += nr;
		if (nb) {
			gs->bval[sc] = at0;
			at0 += nr * (size_t)nb * (size_t)nev;
			gs->bw[sc] = at0;
			at0 += nr * (size_t)nb;
			cnt[sc] = cat;
			cat += nr * (size_t)nb;
		}
	}
	/* Each instance into the lowest row it adds to... */
	for (int i = 0; i < dp->ninst; i++) {
		const int *rows = &ir->row[(size_t)i * SNAP_NSCOPES];
		if (!dp->alive[i] || rows[SNAP_SYSTEM] < 0)
			continue;
		int sc = 0;
		while (rows[sc] < 0)
			sc++;
		int r = rows[sc];
		double run = g->ir[i];
		double k = run > 0 ? T / run : NAN;   /* never ran: unknown, not 0 */
		double cov = T > 0 ? run / T : 0;
		const double *iv = &g->iv[(size_t)i * (size_t)nev];
		double *dst = &gs->val[sc][(size_t)r * (size_t)nev];
		bool first = !seen[sc][r];
		seen[sc][r] = true;
		if (first) {
			scale_to(dst, iv, k, nev);
			gs->run[sc][r] = run;
			gs->cov[sc][r] = cov < 1 ? cov : 1;
		} else {
			for (int j = 0; j < nev; j++)
				dst[j] += iv[j] * k;
			gs->run[sc][r] += run;
			if (cov < gs->cov[sc][r])
				gs->cov[sc][r] = cov;
		}
		for (int b = 0; b < nb; b++) {
			double br = g->br[(size_t)b * (size_t)dp->ninst + (size_t)i];
			size_t at = (size_t)r * (size_t)nb + (size_t)b;
			double *bd = &gs->bval[sc][at * (size_t)nev];
			if (!(br > 0)) {
				if (first) {
					memset(bd, 0, sizeof(double) * (size_t)nev);
					gs->bw[sc][at] = 0;
					cnt[sc][at] = 0;
				}
				continue;
			}
			const double *bv = &g->bv[((size_t)b * (size_t)dp->ninst + (size_t)i) * (size_t)nev];
			double bk = T / br;
			if (first) {
				for (int j = 0; j < nev; j++)
					bd[j] = bv[j] * bk;
				gs->bw[sc][at] = br;
				cnt[sc][at] = 1;
			} else {
				for (int j = 0; j < nev; j++)
					bd[j] += bv[j] * bk;
				gs->bw[sc][at] += br;
				cnt[sc][at]++;
			}
		}
	}
	/* ... then each row into the one above it, scope by scope upwards:
	 * every row then holds the sums of all the instances under it. */
	for (int sc = 0; sc < SNAP_NSCOPES - 1; sc++) {
		const int *nin = ir->nin[sc], *up = ir->up[sc];
		const signed char *upsc = ir->upsc[sc];
		if (nb) {
			for (int r = 0; r < nrows[sc]; r++)
				if (nin[r] > 0 && up[r] >= 0)
					add_row(gs, cnt, seen, sc, r, upsc[r], up[r]);
			continue;
		}
		/* No buckets (most groups: one window an interval): add_row's
		 * counts, time and coverage alone. */
		const double *sval = gs->val[sc], *srun = gs->run[sc], *scov = gs->cov[sc];
		for (int r = 0; r < nrows[sc]; r++) {
			if (nin[r] <= 0 || up[r] < 0)
				continue;
			int su = upsc[r], u = up[r];
			double *dv = &gs->val[su][(size_t)u * (size_t)nev];
			const double *sv = &sval[(size_t)r * (size_t)nev];
			if (!seen[su][u]) {
				seen[su][u] = true;
				memcpy(dv, sv, sizeof(double) * (size_t)nev);
				gs->run[su][u] = srun[r];
				gs->cov[su][u] = scov[r];
				continue;
			}
			add_to(dv, sv, nev);
			gs->run[su][u] += srun[r];
			if (scov[r] < gs->cov[su][u])
				gs->cov[su][u] = scov[r];
		}
	}
	/* Means over the row's instances. A sample is usable in a row only
	 * when every instance under it ran in it (they rotate together; one
	 * that did not, such as a CPU back online mid-interval, would bias
	 * it). */
	for (int sc = 0; sc < SNAP_NSCOPES; sc++) {
		for (int r = 0; r < nrows[sc]; r++) {
			int nin = ir->nin[sc][r];
			if (nin == 0 || !seen[sc][r]) {
				zero_row(gs, cnt, sc, r);
				continue;
			}
			gs->run[sc][r] /= nin;
			for (int b = 0; b < nb; b++) {
				size_t at = (size_t)r * (size_t)nb + (size_t)b;
				int c = cnt[sc][at];
				gs->bw[sc][at] = c > 0 && c == nin ? gs->bw[sc][at] / c : 0;
			}
		}
	}
}

static int pos_in(const struct derive_group *g, int e)
{
	for (int j = 0; j < g->nev; j++)
		if (g->events[j] == e)
			return j;
	return -1;
}

int wset_find_or_add(struct wset_list *l, const struct derive_input *in, const struct gsum *gs,
		     int pmu, const int *events, int n)
{
	const struct sched_plan *plan = in->plan;
	if (pmu < 0 || !in->pmus[pmu].available)
		return -1;
	int *g = xmalloc(sizeof(int) * ((size_t)plan->ngroups + 1));
	int ng = 0;
	for (int gi = 0; gi < plan->ngroups; gi++) {
		if (plan->groups[gi].pmu != pmu || !in->groups[gi].iv)
			continue;
		bool all = true;
		for (int k = 0; k < n && all; k++)
			all = pos_in(&in->groups[gi], events[k]) >= 0;
		if (all)
			g[ng++] = gi;
	}
	if (ng == 0) {
		free(g);
		return -1;
	}
	for (int i = 0; i < l->n; i++)
		if (l->v[i].ng == ng && !memcmp(l->v[i].g, g, sizeof(int) * (size_t)ng)) {
			free(g);
			return i;
		}
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 16;
		l->v = xrealloc(l->v, sizeof(*l->v) * (size_t)l->cap);
	}
	struct wset *w = &l->v[l->n];
	memset(w, 0, sizeof(*w));
	w->pmu = pmu;
	w->ng = ng;
	w->g = g;
	/* The events every member holds: those of the first member that the
	 * others have too. */
	const struct derive_group *g0 = &in->groups[g[0]];
	w->ev = xmalloc(sizeof(int) * ((size_t)g0->nev + 1));
	for (int j = 0; j < g0->nev; j++) {
		bool all = true;
		for (int k = 1; k < ng && all; k++)
			all = pos_in(&in->groups[g[k]], g0->events[j]) >= 0;
		if (all)
			w->ev[w->nev++] = g0->events[j];
	}
	w->k_of = xmalloc(sizeof(int) * ((size_t)in->model->nevents + 1));
	for (int e = 0; e < in->model->nevents; e++)
		w->k_of[e] = -1;
	for (int k = 0; k < w->nev; k++)
		w->k_of[w->ev[k]] = k;
	w->pos = xmalloc(sizeof(int) * ((size_t)ng * (size_t)w->nev + 1));
	for (int k = 0; k < ng; k++) {
		for (int e = 0; e < w->nev; e++)
			w->pos[k * w->nev + e] = pos_in(&in->groups[g[k]], w->ev[e]);
		w->ns += gs[g[k]].nb ? gs[g[k]].nb : 1;
	}
	return l->n++;
}

double wset_cov(const struct wset *w, const struct gsum *gs, int sc, int r)
{
	double cov = 0;
	for (int j = 0; j < w->ng; j++)
		cov += gs[w->g[j]].cov[sc][r];
	return cov < 1 ? cov : 1;
}


/* Group g's edge window in row r of scope sc, the one before its windows
 * (which 0: its last of the interval before) or after them (1: the tail
 * round's): its counts, or NULL where it has none (gsum_fill_edges: only
 * groups of UNC_MIN_SAMPLES buckets or more have them; a row some
 * instance of which had none is NaN). */
static inline const double *edge_row(const struct gsum *g, int sc, int r, int which)
{
	const double *e = which ? g->tval[sc] : g->pval[sc];
	if (!e || isnan(e[(size_t)r * (size_t)g->nev]))
		return NULL;
	return &e[(size_t)r * (size_t)g->nev];
}

/* The edge windows of set w's groups in row r of scope sc, group by group,
 * the one before first: each one's counts into v and where the set's
 * events lie in it into pos; their number, at most 2 * w->ng. */
static int set_edges(const struct wset *w, const struct gsum *gs, int sc, int r, const double **v, const int **pos,
		     int *sides)
{
	int n = 0;
	for (int k = 0; k < w->ng; k++)
		for (int j = 0; j < 2; j++) {
			const double *e = edge_row(&gs[w->g[k]], sc, r, j);
			if (!e)
				continue;
			*sides |= 1 << j;
			v[n] = e;
			pos[n++] = &w->pos[k * w->nev];
		}
	return n;
}

/* Group g's window b in row r: its counts, and its weight (*wt). One
 * window: the group's value is its one sample. */
static inline const double *window_of(const struct gsum *g, int sc, int r, int b, double *wt)
{
	if (!g->nb) {
		*wt = g->run[sc][r];
		return &g->val[sc][(size_t)r * (size_t)g->nev];
	}
	size_t at = (size_t)r * (size_t)g->nb + (size_t)b;
	*wt = g->bw[sc][at];
	return &g->bval[sc][at * (size_t)g->nev];
}

double wset_se(const struct wset *w, const struct gsum *gs, int sc, int r, const int *ks, const double *coef, int n,
	       double covered, double *scratch)
{
	if (covered >= UNC_FULLY_COVERED)
		return 0;
	int nev = w->nev, s = 0, m = 0;   /* s: samples kept */
	double *z = scratch, *zw = scratch + w->ns, sw = 0, sx = 0;
	/* Member by member, each one's windows in turn, or round by round
	 * in the set's time order (wset's order), as wset_samples takes
	 * them. */
	int outer = w->order ? w->onb : w->ng;
	for (int a = 0; a < outer; a++) {
		int inner = w->order ? w->ng : gs[w->g[a]].nb ? gs[w->g[a]].nb : 1;
		/* A pooled set's round: its windows' weighted sum, as
		 * wsamples_pooled_se adds them. */
		double rw = 0, rx = 0;
		for (int c = 0; c < inner; c++) {
			int k = w->order ? w->order[c] : a;
			const int *pos = &w->pos[k * nev];
			/* unc_mean_se's first pass, which passes over a sample of
			 * no weight: only the others are summed and kept. */
			double sum = 0, wt;
			const double *v = window_of(&gs[w->g[k]], sc, r, w->order ? a : c, &wt);
			if (!(wt > 0))
				continue;
			for (int j = 0; j < n; j++)
				sum += coef[j] * v[pos[ks[j]]];
			if (!isfinite(sum))
				return NAN;
			sw += wt;
			sx += wt * sum;
			if (w->pooled) {
				rw += wt;
				rx += wt * sum;
				continue;
			}
			z[s] = sum;
			zw[s++] = wt;
			m++;
		}
		if (w->pooled && rw > 0) {
			z[s] = rx / rw;
			zw[s++] = rw;
			m++;
		}
	}
	/* The edge windows' linearised values, after the samples' weights
	 * (set_edges' order). */
	double *ze = zw + s;
	int ne = 0;
	for (int k = 0; k < w->ng; k++) {
		const int *pos = &w->pos[k * nev];
		for (int i = 0; i < 2; i++) {
			const double *v = edge_row(&gs[w->g[k]], sc, r, i);
			if (!v)
				continue;
			double sum = 0;
			for (int j = 0; j < n; j++)
				sum += coef[j] * v[pos[ks[j]]];
			if (!isfinite(sum))
				return NAN;
			ze[ne++] = sum;
		}
	}
	/* The set's own coverage, as wset_samples takes it: the figure's
	 * may be less (a formula over sets), not where its windows lie. */
	double unseen2 = wset_unseen2(w, gs, sc, r, m, wset_cov(w, gs, sc, r));
	if (w->ng == 1 && gs[w->g[0]].chain) {
		bool before = edge_row(&gs[w->g[0]], sc, r, 0) != NULL;
		return unc_chain_se(z, zw, s, m, sw, sx, ze, ne, before ? ze : NULL, ne > (int)before ? ze + ne - 1 : NULL,
				    covered, unseen2);
	}
	if (w->order)
		return unc_chain_se(z, zw, s, m, sw, sx, ze, ne, NULL, NULL, covered, unseen2);
	return unc_mean_se_edges(z, zw, s, m, sw, sx, ze, ne, covered, unseen2);
}

void wset_time_order(struct wset *w, const struct gsum *gs, int *ord)
{
	w->order = NULL;
	w->onb = 0;
	w->pooled = false;
	if (w->ng < 2)
		return;
	double per = gs[w->g[0]].period;
	for (int k = 0; k < w->ng; k++) {
		const struct gsum *g = &gs[w->g[k]];
		if (!g->chain || g->nb < 2 || g->nb != gs[w->g[0]].nb || g->period != per || !(per > 0) ||
		    !(g->lead >= 0 && g->lead < per))
			return;
		/* By the start of its first window. */
		int j = k;
		for (; j > 0 && gs[w->g[ord[j - 1]]].lead > g->lead; j--)
			ord[j] = ord[j - 1];
		ord[j] = k;
	}
	double lo = per, hi = 0;
	for (int i = 0; i < w->ng; i++) {
		double at = gs[w->g[ord[i]]].lead;
		double next = i + 1 < w->ng ? gs[w->g[ord[i + 1]]].lead : gs[w->g[ord[0]]].lead + per;
		lo = next - at < lo ? next - at : lo;
		hi = next - at > hi ? next - at : hi;
	}
	bool even = lo > 0 && hi <= WSET_EVEN_GAPS * lo;
	if (!even && !(hi > WSET_POOL_GAP * per))
		return;
	w->order = ord;
	w->onb = gs[w->g[0]].nb;
	w->pooled = !even;
}

/* wset_unseen2 from the span of the set's windows in the row (first's
 * start, last one's end) and whether an edge window stands before and
 * after them. */
static double unseen_of(double first, double last, bool before, bool after, int m, double covered)
{
	if (m < 2 || !(last > first))
		return 0;
	/* A window's length, the spacing of the windows' starts, and how far
	 * a window's stretch reaches past its own ends. */
	double len = covered / m, step = (last - first - len) / (m - 1), reach = step > len ? (step - len) / 2 : 0;
	double a = before ? 0 : first - reach, b = after ? 0 : 1 - last - reach;
	a = a > 0 ? a : 0;
	b = b > 0 ? b : 0;
	return a * a + b * b;
}

/* Group g's windows in row r widen the span [*first, *last] (where it
 * ran). The kernel's slices, and a replayed group whose lead was not
 * recorded, span the interval: nothing of it is known to be unseen. */
static inline void span_add(const struct gsum *g, int sc, int r, double *first, double *last)
{
	if (!(g->run[sc][r] > 0))
		return;
	if (!g->chain || isnan(g->lead)) {
		*first = 0;
		*last = 1;
		return;
	}
	double end = g->nb ? (g->trail > 0 ? 1 - g->trail : 1) : g->lead + g->cov[sc][r];
	if (g->lead < *first)
		*first = g->lead;
	if (end > *last)
		*last = end;
}

double wset_unseen2(const struct wset *w, const struct gsum *gs, int sc, int r, int m, double covered)
{
	double first = 1, last = 0;
	bool before = false, after = false;
	for (int k = 0; k < w->ng; k++) {
		const struct gsum *g = &gs[w->g[k]];
		span_add(g, sc, r, &first, &last);
		before |= edge_row(g, sc, r, 0) != NULL;
		after |= edge_row(g, sc, r, 1) != NULL;
	}
	return unseen_of(first, last, before, after, m, covered);
}

/* wset_value1 of every event of a set of several groups: the groups that
 * ran are found once, then each event is their weighted mean. The
 * samples' arrays (room for ns >= ng) hold the groups meanwhile. */
static void set_values(const struct wset *w, const struct gsum *gs, int sc, int r, struct wsamples *out)
{
	int nev = w->nev;
	double sw, cov, *wts = out->wt;
	const double **gv = out->v;
	const int **gpos = out->pos;
	int nu = wset_ran(w, gs, sc, r, wts, gv, gpos, &sw, &cov);
	for (int k = 0; k < nev; k++) {
		if (out->need && !out->need[k])
			continue;
		double sum = 0;
		for (int j = 0; j < nu; j++)
			sum += wts[j] * gv[j][gpos[j][k]];
		out->val[k] = sw > 0 ? sum / sw : NAN;
	}
	out->cov = cov < 1 ? cov : 1;
}

void wset_values(const struct wset *w, const struct gsum *gs, int sc, int r, struct wsamples *out)
{
	if (w->ng >= 2)
		set_values(w, gs, sc, r, out);
	out->n = 0;
	out->ne = 0;
	out->sw = 0;
}

void wset_samples(const struct wset *w, const struct gsum *gs, int sc, int r, bool edges, struct wsamples *out)
{
	if (w->ng >= 2)
		set_values(w, gs, sc, r, out);
	out->n = 0;
	out->ne = 0;
	out->sw = 0;
	/* Fewer samples than an error needs: none of the set's errors can
	 * be stated (unc_mean_se_sums), so they are not looked for. */
	if (w->ns < UNC_MIN_SAMPLES)
		return;
	int nev = w->nev, s = 0, sides = 0;
	double sw = 0, cov = 0, first = 1, last = 0;
	/* wset_cov's and wset_unseen2's sums. */
	for (int k = 0; k < w->ng; k++) {
		cov += gs[w->g[k]].cov[sc][r];
		span_add(&gs[w->g[k]], sc, r, &first, &last);
	}
	/* As wset_se takes them. */
	for (int k = 0; k < w->ng && !w->order; k++) {
		const struct gsum *g = &gs[w->g[k]];
		int nb = g->nb ? g->nb : 1;
		const double *v = g->nb ? &g->bval[sc][(size_t)r * (size_t)nb * (size_t)g->nev]
					: &g->val[sc][(size_t)r * (size_t)g->nev];
		const double *bw = g->nb ? &g->bw[sc][(size_t)r * (size_t)nb] : &g->run[sc][r];
		for (int b = 0; b < nb; b++, v += g->nev) {
			if (!(bw[b] > 0))
				continue;
			out->v[s] = v;
			out->pos[s] = &w->pos[k * nev];
			out->wt[s++] = bw[b];
			sw += bw[b];
		}
	}
	int rounds = 0;
	for (int b = 0; b < w->onb && w->order; b++) {
		int s0 = s;
		for (int i = 0; i < w->ng; i++) {
			int k = w->order[i];
			double wt;
			const double *v = window_of(&gs[w->g[k]], sc, r, b, &wt);
			if (!(wt > 0))
				continue;
			out->v[s] = v;
			out->pos[s] = &w->pos[k * nev];
			if (w->pooled)
				out->rnd[s] = b;
			out->wt[s++] = wt;
			sw += wt;
		}
		rounds += s > s0;
	}
	out->n = s;
	out->sw = sw;
	out->ne = edges ? set_edges(w, gs, sc, r, out->v + s, out->pos + s, &sides) : 0;
	bool one = w->ng == 1 && gs[w->g[0]].chain;
	out->chain = one || (w->order && !w->pooled);
	out->pooled = w->pooled;
	out->ebefore = one && (sides & 1);
	out->eafter = one && (sides & 2);
	out->unseen2 = unseen_of(first, last, sides & 1, sides & 2, w->pooled ? rounds : s, cov < 1 ? cov : 1);
}

double wsamples_pooled_se(const struct wsamples *sm, double sx, double covered, double *scratch)
{
	/* Each round's weighted mean in place (a round's first sample is
	 * at or after its pooled value's place), its weight after the edge
	 * windows: wset_se's sums, in its order. */
	double *pw = scratch + sm->n + sm->ne;
	int m = 0;
	for (int s = 0; s < sm->n;) {
		double rw = 0, rx = 0;
		int b = sm->rnd[s];
		for (; s < sm->n && sm->rnd[s] == b; s++) {
			rw += sm->wt[s];
			rx += sm->wt[s] * scratch[s];
		}
		scratch[m] = rx / rw;
		pw[m++] = rw;
	}
	return unc_chain_se(scratch, pw, m, m, sm->sw, sx, scratch + sm->n, sm->ne, NULL, NULL, covered, sm->unseen2);
}


/* A window whose mix of events is this far (relative) from the group's
 * mean over its windows is a change of phase, not the rates' wander
 * within one: below it, the samples' spread speaks for itself. */
#define GSUM_BURST_MIN 0.5

double gsum_burst(const struct gsum *g, int sc, int r, double T)
{
	return gsum_bursts(g, sc, r, T, NULL);
}

double gsum_bursts(const struct gsum *g, int sc, int r, double T, double *low)
{
	int nb = g->nb, nev = g->nev;
	if (low)
		*low = 0;
	if (nb < UNC_MIN_SAMPLES || !(T > 0))
		return 0;
	const double *v = &g->bval[sc][(size_t)r * (size_t)nb * (size_t)nev];
	const double *bw = &g->bw[sc][(size_t)r * (size_t)nb];
	double sw = 0, worst = 0;
	int m = 0, first = -1, last = -1;   /* buckets are in time order */
	for (int b = 0; b < nb; b++)
		if (bw[b] > 0) {
			sw += bw[b];
			m++;
			if (first < 0)
				first = b;
			last = b;
		}
	if (m < UNC_MIN_SAMPLES)
		return 0;
	/* The reference: the event of the largest count (the cycles, the
	 * slots). A window in which the CPU idled more moves every count
	 * alike and no ratio; one in which the work changed moves the
	 * others against it.
	 *
	 * Events pinned for a fixed counter (the plan's event_fixed_pin: an
	 * Intel PMU's cycles and instructions, in every group because those
	 * counters are free) are left out, of the mix and of the reference:
	 * they are not what this group was planned to sample, and with them
	 * every group's burst followed the IPC's moves, which raised the
	 * floors of the sets beside it and let others through (hand models:
	 * 39 plain figures over 25 % off against 35 without them). A view's
	 * own pins stay: leaving those out too leaves a group with one event
	 * of its own no ratio at all (48 over 25 %). */
	int ref = -1;
	double refmean = 0;
	for (int j = 0; j < nev; j++) {
		if (g->pin && g->pin[j])
			continue;
		double sx = 0;
		for (int b = 0; b < nb; b++)
			if (bw[b] > 0)
				sx += bw[b] * v[(size_t)b * (size_t)nev + (size_t)j];
		if (isfinite(sx) && fabs(sx) > refmean) {
			refmean = fabs(sx);
			ref = j;
		}
	}
	if (ref < 0)
		return 0;
	refmean /= sw;
	for (int j = 0; j < nev; j++) {
		if (j == ref || (g->pin && g->pin[j]))
			continue;
		double sx = 0;
		for (int b = 0; b < nb; b++)
			if (bw[b] > 0)
				sx += bw[b] * v[(size_t)b * (size_t)nev + (size_t)j];
		double mean = sx / sw / refmean;   /* the event per reference count */
		if (!isfinite(mean) || mean == 0)
			continue;
		/* The edges only: a change between two of the group's windows
		 * is seen by every group's windows on both sides of it, and is
		 * in their spread; one inside the interval's first or last
		 * window is seen by that window's group alone. */
		for (int b = first; b <= last; b += last > first ? last - first : 1) {
			double rb = v[(size_t)b * (size_t)nev + (size_t)ref];
			if (!(bw[b] > 0) || !(rb > 0))
				continue;
			double x = v[(size_t)b * (size_t)nev + (size_t)j] / rb, rel = fabs(x - mean) / fabs(mean);
			if (rel < (low ? GSUM_BURST_MIN_UNVOUCHED : GSUM_BURST_MIN))
				continue;
			double d = rel * rb / refmean * bw[b] / T;
			if (low && d > *low)
				*low = d;
			if (rel >= GSUM_BURST_MIN && d > worst)
				worst = d;
		}
	}
	return worst;
}

double wset_pooled_var(const struct wset_list *wl, const int *ev_set, const double *doubt, const struct gsum *gs,
		       int sc, int r, const int *events, const double *coef, int n, double *scratch)
{
	int sets[EXPR_GRAD_MAX], nsets = 0;
	double se[EXPR_GRAD_MAX], cov[EXPR_GRAD_MAX];
	for (int k = 0; k < n && k < EXPR_GRAD_MAX; k++) {
		int s = events[k] >= 0 ? ev_set[events[k]] : -1;
		if (coef[k] == 0 || s < 0)
			continue;
		bool seen = false;
		for (int j = 0; j < nsets && !seen; j++)
			seen = sets[j] == s;
		if (seen)
			continue;
		/* Every term of this set, summed per sample. */
		const struct wset *w = &wl->v[s];
		int ks[EXPR_GRAD_MAX], nk = 0;
		double cf[EXPR_GRAD_MAX];
		for (int j = k; j < n && j < EXPR_GRAD_MAX; j++)
			if (coef[j] != 0 && events[j] >= 0 && ev_set[events[j]] == s) {
				ks[nk] = wset_event(w, events[j]);
				cf[nk++] = coef[j];
			}
		double c = wset_cov(w, gs, sc, r), e;
		if (c >= UNC_FULLY_COVERED) {
			e = 0;
		} else {
			if (w->ns < UNC_MIN_SAMPLES)
				return NAN;
			e = wset_se(w, gs, sc, r, ks, cf, nk, c, scratch) * doubt[s];
			if (isnan(e))
				return NAN;
		}
		sets[nsets] = s;
		se[nsets] = e;
		cov[nsets++] = c;
	}
	double var = 0;
	for (int a = 0; a < nsets; a++) {
		var += se[a] * se[a];
		for (int b = a + 1; b < nsets; b++) {
			if (se[a] == 0 || se[b] == 0)
				continue;
			double q = cov[a] * cov[b] / ((1 - cov[a]) * (1 - cov[b]));
			var += 2 * se[a] * se[b] * (q < 1 ? sqrt(q) : 1);
		}
	}
	return var;
}

void wset_list_free(struct wset_list *l)
{
	for (int i = 0; i < l->n; i++) {
		struct wset *w = &l->v[i];
		free(w->g);
		free(w->ev);
		free(w->k_of);
		free(w->pos);
	}
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}
