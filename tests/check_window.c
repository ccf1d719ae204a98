/* check_window.c: a window set's figures found once per row
 * (wset_samples: its weighted samples, and with several groups the values
 * of all its events) give the same numbers, to the bit, as the walk of the
 * set's groups per figure that they replace (wset_value1, wset_se), on
 * random group sums: groups with and without buckets, samples of no
 * weight, unknown (NaN) counts, one event or a weighted sum of several.
 * And the derivation's arena: a block reserved for a round serves it
 * without an allocation of its own. And a group's burst (gsum_burst) is
 * the move of its own events' mix: events pinned for a fixed counter
 * (gs->pin) are neither in the mix nor its reference. And a group's last
 * window of the interval before, far from all of its windows here, says
 * that they missed a change in the share of the interval before the
 * first of them; its window of the tail round, the same after the last
 * of them (gsum_edges). And the errors of a group's windows in time
 * order come from successive windows, its edge windows at the ends of
 * that chain (unc_chain_se), and a set's of several groups from their
 * spread about the mean, the edge windows in it too (unc_mean_se_edges):
 * by hand on a trend, and an edge window that saw a phase the windows
 * missed marks the figure. */
#include "config.h"
#include <check.h>
#include "check_run.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "derive_window.h"
#include "uncertainty.h"
#include "util.h"

#define NG 4        /* groups */
#define NEV 5       /* events every group holds, in its own order */
#define NROWS 6

static bool same_bits(double a, double b)
{
	return (isnan(a) && isnan(b)) || !memcmp(&a, &b, sizeof(a));
}

static double rnd(unsigned *seed)
{
	return (double)(rand_r(seed) % 100000) / 100.0;
}

/* A weight: often 0 (the group did not run there), else positive. */
static double weight(unsigned *seed)
{
	return rand_r(seed) % 3 == 0 ? 0 : 1e6 + rnd(seed) * 1e3;
}

static double count(unsigned *seed)
{
	return rand_r(seed) % 25 == 0 ? NAN : rnd(seed) * 1e4;
}

struct fixture {
	struct gsum gs[NG];
	struct wset w;
	int g[NG], ev[NEV], pos[NG * NEV], ord[NG];
};

/* Fills groups 0..ng-1 with random sums in every row of scope 0, and the
 * set of those groups; even: groups of three rounds' buckets whose
 * windows lie evenly over the round (a chain in time order,
 * wset_time_order); side: groups of the same number of rounds' buckets
 * whose windows lie side by side at the round's start (pooled). */
static void fill(struct fixture *f, int ng, unsigned *seed, bool even, bool side)
{
	/* Drawn only for such sets: the other draws stay as they were. */
	int snb = side ? 2 + (int)(rand_r(seed) % 3) : 0;
	memset(f, 0, sizeof(*f));
	int ns = 0;
	for (int j = 0; j < ng; j++) {
		struct gsum *g = &f->gs[j];
		g->nev = NEV;
		g->nb = even ? 3 : side ? snb : rand_r(seed) % 2 ? 0 : 2 + (int)(rand_r(seed) % 3);
		g->val[0] = xcalloc(NROWS * NEV, sizeof(double));
		g->run[0] = xcalloc(NROWS, sizeof(double));
		g->cov[0] = xcalloc(NROWS, sizeof(double));
		for (int i = 0; i < NROWS * NEV; i++)
			g->val[0][i] = count(seed);
		for (int r = 0; r < NROWS; r++) {
			g->run[0][r] = weight(seed);
			g->cov[0][r] = (double)(rand_r(seed) % 100) / 150.0;
		}
		if (g->nb) {
			g->bval[0] = xcalloc((size_t)NROWS * (size_t)g->nb * NEV, sizeof(double));
			g->bw[0] = xcalloc((size_t)NROWS * (size_t)g->nb, sizeof(double));
			for (int i = 0; i < NROWS * g->nb * NEV; i++)
				g->bval[0][i] = count(seed);
			for (int i = 0; i < NROWS * g->nb; i++)
				g->bw[0][i] = weight(seed);
		}
		ns += g->nb ? g->nb : 1;
		/* Where its windows lie (wset_unseen2): its first's start, and
		 * for buckets the tail round's word on its last's end. */
		g->lead = (double)(rand_r(seed) % 60) / 100.0;
		g->trail = g->nb && rand_r(seed) % 2 ? (double)(rand_r(seed) % 30) / 100.0 : 0;
		/* Edge windows (some rows without: NaN), and windows in time
		 * order or the kernel's slices. */
		g->chain = even || side || rand_r(seed) % 2;
		g->period = 0.3;
		if (even)   /* in the round's slots in an order of their own */
			g->lead = 0.3 * ((2 * ng - 1 - j) % ng) / ng;
		if (side)   /* the first ng slots of 4 ng */
			g->lead = 0.3 * ((2 * ng - 1 - j) % ng) / (4 * ng);
		double **edge[2] = { &g->pval[0], &g->tval[0] };
		for (int e = 0; e < 2; e++) {
			if (!g->nb || rand_r(seed) % 3 == 0)
				continue;
			*edge[e] = xcalloc(NROWS * NEV, sizeof(double));
			for (int r = 0; r < NROWS; r++)
				for (int k = 0; k < NEV; k++)
					(*edge[e])[r * NEV + k] = rand_r(seed) % 5 == 0 ? NAN : rnd(seed) * 1e4;
		}
		/* Each group holds the events in an order of its own. */
		for (int k = 0; k < NEV; k++)
			f->pos[j * NEV + k] = (k + j) % NEV;
		f->g[j] = j;
	}
	for (int k = 0; k < NEV; k++)
		f->ev[k] = k;
	f->w = (struct wset){ .pmu = 0, .ng = ng, .g = f->g, .nev = NEV, .ev = f->ev, .pos = f->pos, .ns = ns };
	wset_time_order(&f->w, f->gs, f->ord);
}

static void unfill(struct fixture *f)
{
	for (int j = 0; j < NG; j++) {
		free(f->gs[j].val[0]);
		free(f->gs[j].run[0]);
		free(f->gs[j].cov[0]);
		free(f->gs[j].bval[0]);
		free(f->gs[j].bw[0]);
		free(f->gs[j].pval[0]);
		free(f->gs[j].tval[0]);
	}
}

START_TEST(test_same_bits)
{
	unsigned seed = 4242;
	long values = 0, errors = 0, finite = 0, chained = 0, edged = 0, unseen = 0, ordered = 0, pooled = 0;
	for (int draw = 0; draw < 3000; draw++) {
		struct fixture f;
		fill(&f, 1 + draw % NG, &seed, draw % 5 == 1, draw % 5 == 3);
		ck_assert(!!f.w.order == (draw % 5 == 1 && f.w.ng >= 2) || draw % 5 != 1);
		ck_assert(f.w.pooled == (draw % 5 == 3 && f.w.ng >= 2) || draw % 5 != 3);
		const struct wset *w = &f.w;
		const double *v[6 * NG];
		const int *pos[6 * NG];
		int rnd[6 * NG];
		double wt[6 * NG], val[NEV], s1[12 * NG], s2[12 * NG];
		struct wsamples sm = { .v = v, .pos = pos, .wt = wt, .val = val, .rnd = rnd };
		for (int r = 0; r < NROWS; r++) {
			wset_samples(w, f.gs, 0, r, true, &sm);
			if (w->ng >= 2)
				for (int k = 0; k < NEV; k++, values++) {
					double x, cov = wset_value1(w, f.gs, 0, r, k, &x);
					ck_assert_msg(same_bits(x, sm.val[k]), "value %.17g, per row %.17g", x, sm.val[k]);
					ck_assert_msg(same_bits(cov, sm.cov), "coverage %.17g, per row %.17g", cov, sm.cov);
				}
			if (w->ns < 2)
				continue;
			double covered = (double)(rand_r(&seed) % 100) / 100.0;
			/* Each event alone, then a weighted sum of some. */
			const double one = 1;
			for (int k = 0; k < NEV; k++, errors++) {
				double a = wset_se(w, f.gs, 0, r, &k, &one, 1, covered, s1);
				double b = wsamples_se(&sm, &k, &one, 1, covered, s2);
				ck_assert_msg(same_bits(a, b), "se %.17g, per row %.17g", a, b);
				finite += isfinite(a) && a > 0;
				chained += isfinite(a) && a > 0 && sm.chain && sm.ne > 0;
				edged += isfinite(a) && a > 0 && !sm.chain && sm.ne > 0;
				unseen += isfinite(a) && a > 0 && sm.unseen2 > 0;
				ordered += isfinite(a) && a > 0 && w->order != NULL && !w->pooled;
				pooled += isfinite(a) && a > 0 && w->pooled;
			}
			int ks[3] = { 4, 0, 2 };
			double coef[3] = { 0.5, -2e-3, 7.25 };
			double a = wset_se(w, f.gs, 0, r, ks, coef, 3, covered, s1);
			double b = wsamples_se(&sm, ks, coef, 3, covered, s2);
			ck_assert_msg(same_bits(a, b), "se of a sum %.17g, per row %.17g", a, b);
			errors++;
		}
		unfill(&f);
	}
	/* Enough of each kind, and errors that were really estimated. */
	ck_assert_int_gt(values, 10000);
	ck_assert_int_gt(errors, 10000);
	ck_assert_int_gt(finite, 1000);
	ck_assert_int_gt(chained, 200);
	ck_assert_int_gt(edged, 200);
	ck_assert_int_gt(unseen, 200);
	ck_assert_int_gt(ordered, 200);
	ck_assert_int_gt(pooled, 200);
}
END_TEST

/* arena_reserve (what each derive_row_errors does with the size the
 * interval's probe rows asked): the round's buffers come from the one
 * block, none allocated apart, each its own and aligned; past the block
 * they still come (apart), and a reserve on an arena in use does
 * nothing. */
START_TEST(test_arena_reserve)
{
	struct arena a = { 0 };
	arena_reserve(&a, 4096);
	ck_assert_uint_ge(a.cap, 4096);
	char *base = a.base;
	double *x = arena_get(&a, 100 * sizeof(double), false);
	double *y = arena_get(&a, 300 * sizeof(double), true);
	ck_assert_ptr_eq(x, (double *)(void *)base);
	ck_assert(y >= x + 100);
	ck_assert_int_eq(a.nspill, 0);
	ck_assert_uint_eq((uintptr_t)y % 16, 0);
	for (int i = 0; i < 300; i++)
		ck_assert(y[i] == 0);
	arena_reserve(&a, 1 << 20);
	ck_assert_ptr_eq(a.base, base);
	double *z = arena_get(&a, 4096, false);
	ck_assert_int_eq(a.nspill, 1);
	z[511] = x[0] = y[299] = 1;
	ck_assert_uint_ge(a.asked, 400 * sizeof(double) + 4096);
	arena_free(&a);
	ck_assert_ptr_null(a.base);
}
END_TEST

/* A group of nb windows of 250 ns each in scope 0, row 0, every window
 * counting rate[j] of event j: no burst until a test moves one. */
static void steady_windows(struct gsum *g, double *bval, double *bw, int nb, int ne, const double *rate)
{
	static double run, cov;
	*g = (struct gsum){ .nev = ne, .nb = nb };
	g->bval[0] = bval;
	g->bw[0] = bw;
	run = 250.0 * nb;
	cov = 0.25;
	g->run[0] = &run;
	g->cov[0] = &cov;
	for (int b = 0; b < nb; b++) {
		bw[b] = 250;
		for (int j = 0; j < ne; j++)
			bval[b * ne + j] = rate[j];
	}
}

/* A group of the pinned cycles and instructions (fixed counters) and two
 * events of its own, over 6 windows of equal weight: in the last window
 * the IPC triples while the group's own events keep their mix. Measured
 * against the cycles, that is a burst; the pins left out, it is none.
 * When the group's own mix moves (Y doubles against X), it still is. */
START_TEST(test_burst_without_pins)
{
	enum { NB = 6, NE = 4 };
	double bval[NB * NE], bw[NB];
	const bool pin[NE] = { true, true, false, false };
	/* Cycles, instructions, X and Y. */
	const double rate[NE] = { 1000, 1000, 100, 50 };
	struct gsum g;
	steady_windows(&g, bval, bw, NB, NE, rate);
	bval[(NB - 1) * NE + 1] = 3000;
	double T = NB * 250;
	ck_assert(gsum_burst(&g, 0, 0, T) > 0.05);
	g.pin = pin;
	ck_assert(gsum_burst(&g, 0, 0, T) == 0);
	bval[(NB - 1) * NE + 3] = 100;
	ck_assert(gsum_burst(&g, 0, 0, T) > 0.05);
	/* A group of pinned events alone has no mix of its own. */
	const bool all[NE] = { true, true, true, true };
	g.pin = all;
	ck_assert(gsum_burst(&g, 0, 0, T) == 0);
}
END_TEST

/* A group whose last window's mix moved by 0.38 of its mean (Y per
 * cycle 0.075 there, 0.05 in the others, 0.054 over all six): under
 * GSUM_BURST_MIN (0.5), no burst for a
 * set that an event counted throughout vouches for; from
 * GSUM_BURST_MIN_UNVOUCHED (0.25) on, a burst for one that none does,
 * the same as gsum_burst's for a move over both (Y per cycle 0.125). */
START_TEST(test_burst_unvouched)
{
	enum { NB = 6, NE = 2 };
	double bval[NB * NE], bw[NB];
	const double rate[NE] = { 1000, 50 };   /* cycles, Y */
	struct gsum g;
	steady_windows(&g, bval, bw, NB, NE, rate);
	bval[(NB - 1) * NE + 1] = 75;
	double T = NB * 250, low = -1;
	ck_assert(gsum_bursts(&g, 0, 0, T, &low) == 0);
	ck_assert(low > 0.05);
	ck_assert(gsum_burst(&g, 0, 0, T) == 0);
	bval[(NB - 1) * NE + 1] = 125;
	double hi = gsum_bursts(&g, 0, 0, T, &low);
	ck_assert(hi > 0.05);
	ck_assert(low == hi);
	ck_assert(gsum_burst(&g, 0, 0, T) == hi);
}
END_TEST

/* A group that ran from a tenth of the interval on (lead 0.1), whose 5
 * windows here count cycles and branch misses with some wander (misses
 * 2.7-3.3 M): its last window of the interval before counted 40 times
 * the misses, a phase that ended before its first window here. That is a
 * jump. Not one: the same window had the group run from the start (lead
 * 0), no window of the interval before, a move of the misses that the
 * tenth of the interval could not make a quarter of their figure (2.1
 * times their mean: 0.21 of it; 2.6 times is 0.26, and counts), a move
 * within the windows' own spread (one window of 150 M among four of
 * 0.3 M), or a move of an event pinned for a fixed counter. The same of
 * the window of the tail round, held against the last window: 40 times
 * the misses after the group's last 5 % of the interval is a jump, after
 * its last 0.5 % not. */
START_TEST(test_lead_jump)
{
	enum { NB = 5, NE = 2 };
	double bval[NB * NE], bw[NB], pval[NE];
	const double rate[NE] = { 4.5e9, 3e6 };   /* cycles, branch misses */
	struct gsum g;
	steady_windows(&g, bval, bw, NB, NE, rate);
	const double wander[NB] = { 0.9, 1.1, 1.0, 0.95, 1.05 };
	for (int b = 0; b < NB; b++)
		bval[b * NE + 1] *= wander[b];
	g.pval[0] = pval;
	g.lead = 0.1;
	pval[0] = 4.5e9;
	pval[1] = 120e6;
	ck_assert(gsum_edges(&g, 0, 0) == EDGE_JUMPED);
	g.lead = 0;
	ck_assert(gsum_edges(&g, 0, 0) != EDGE_JUMPED);
	g.lead = 0.1;
	g.pval[0] = NULL;
	ck_assert(gsum_edges(&g, 0, 0) != EDGE_JUMPED);
	g.pval[0] = pval;
	pval[1] = NAN;
	ck_assert(gsum_edges(&g, 0, 0) != EDGE_JUMPED);
	pval[1] = 9e6;   /* 6.3 M from the first window's 2.7 M, x 0.1: 0.21 of 3 M */
	ck_assert(gsum_edges(&g, 0, 0) != EDGE_JUMPED);
	pval[1] = 10.5e6;   /* 7.8 M: 0.26 of 3 M */
	ck_assert(gsum_edges(&g, 0, 0) == EDGE_JUMPED);
	/* The same 40-fold move where the windows here wander as much: its
	 * share (0.3) large enough, but under 3 of their deviations (60 M). */
	pval[1] = 120e6;
	g.lead = 0.3;
	const double wild[NB] = { 0.1, 0.1, 0.1, 0.1, 50 };
	for (int b = 0; b < NB; b++)
		bval[b * NE + 1] = 3e6 * wild[b];
	ck_assert(gsum_edges(&g, 0, 0) != EDGE_JUMPED);
	for (int b = 0; b < NB; b++)
		bval[b * NE + 1] = 3e6 * wander[b];
	ck_assert(gsum_edges(&g, 0, 0) == EDGE_JUMPED);
	g.lead = 0.1;
	const bool pin[NE] = { false, true };
	g.pin = pin;
	ck_assert(gsum_edges(&g, 0, 0) != EDGE_JUMPED);
	/* Fewer than three windows here: no spread to hold it against. */
	g.pin = NULL;
	g.pval[0] = NULL;
	double tval[NE] = { 4.5e9, 120e6 };
	g.tval[0] = tval;
	g.trail = 0.05;
	ck_assert(gsum_edges(&g, 0, 0) == EDGE_JUMPED);
	g.trail = 0.005;
	ck_assert(gsum_edges(&g, 0, 0) != EDGE_JUMPED);
	g.trail = 0.05;
	tval[1] = 3.2e6;   /* as the last window (3.15 M) */
	ck_assert(gsum_edges(&g, 0, 0) != EDGE_JUMPED);
	tval[1] = 120e6;
	g.tval[0] = NULL;
	ck_assert(gsum_edges(&g, 0, 0) != EDGE_JUMPED);
	g.tval[0] = tval;
	g.nb = 2;
	ck_assert(gsum_edges(&g, 0, 0) != EDGE_JUMPED);
}
END_TEST

/* The estimators by hand. Five windows of equal weight on a trend (1, 2,
 * 3, 4, 5), nothing else seen (covered 0): about their mean the spread
 * is 2.5 a window, so se = sqrt(2.5 / 5) x t(4) / 1.96 = 1.0014; from
 * successive windows (each differs by 1) the rates' variance is 1 / 2,
 * se = sqrt(0.5 / 5) x t(4) / 1.96 = 0.4479, the smaller, taken. Edge
 * windows that go on with the trend (0 and 6) keep that variance and add
 * two degrees of freedom: x t(6) / t(4), 0.3948. One after the windows
 * that saw 20 (a phase they all missed) makes it (4 + 225) / 5 / 2 =
 * 22.9, se = sqrt(22.9 / 5) x t(5) / 1.96 = 2.807 (about the mean, 4.54).
 * About the mean, an edge window at the mean adds a degree of freedom
 * and nothing to the spread: sqrt(10 / 25 x 5 / 5) x t(5) / 1.96 =
 * 0.8295. Windows that alternate (1, 3, 1, 3, 1) differ by 2 each time,
 * sqrt(2 / 5) x t(4) / 1.96 = 0.896, while about their mean (1.8) they
 * say sqrt(0.24) x t(4) / 1.96 = 0.694, the smaller, taken. Half the
 * interval seen (covered 0.5) halves each variance. */
START_TEST(test_chain_se)
{
	const double x[5] = { 1, 2, 3, 4, 5 }, w[5] = { 1, 1, 1, 1, 1 };
	const double after = 6, far = 20, mid = 3, ba[2] = { 0, 6 };
	double t4 = unc_t975(4), t5 = unc_t975(5), t6 = unc_t975(6);
	ck_assert_double_eq_tol(unc_mean_se_sums(x, w, 5, 5, 5, 15, 0), sqrt(0.5) * t4 / 1.96, 1e-12);
	ck_assert_double_eq_tol(unc_chain_se(x, w, 5, 5, 5, 15, NULL, 0, NULL, NULL, 0, 0), sqrt(0.1) * t4 / 1.96, 1e-12);
	ck_assert_double_eq_tol(unc_chain_se(x, w, 5, 5, 5, 15, ba, 2, &ba[0], &ba[1], 0, 0), sqrt(0.1) * t6 / 1.96, 1e-12);
	ck_assert_double_eq_tol(unc_chain_se(x, w, 5, 5, 5, 15, &far, 1, NULL, &far, 0, 0), sqrt(22.9 / 5) * t5 / 1.96, 1e-12);
	ck_assert_double_eq_tol(unc_mean_se_edges(x, w, 5, 5, 5, 15, &far, 1, 0, 0), sqrt(11.96) * t5 / 1.96, 1e-12);
	ck_assert_double_eq_tol(unc_mean_se_edges(x, w, 5, 5, 5, 15, &mid, 1, 0, 0), sqrt(0.4) * t5 / 1.96, 1e-12);
	ck_assert_double_eq_tol(unc_chain_se(x, w, 5, 5, 5, 15, NULL, 0, NULL, NULL, 0.5, 0), sqrt(0.05) * t4 / 1.96, 1e-12);
	const double alt[5] = { 1, 3, 1, 3, 1 };
	ck_assert_double_eq_tol(unc_chain_se(alt, w, 5, 5, 5, 9, NULL, 0, NULL, NULL, 0, 0), sqrt(0.24) * t4 / 1.96, 1e-12);
	ck_assert(unc_chain_se(alt, w, 5, 5, 5, 9, NULL, 0, NULL, NULL, 0, 0) < sqrt(0.4) * t4 / 1.96 - 0.1);
	/* Windows that do not differ at all, or too few: not known. */
	const double flat[5] = { 2, 2, 2, 2, 2 };
	ck_assert(isnan(unc_chain_se(flat, w, 5, 5, 5, 10, NULL, 0, NULL, NULL, 0, 0)));
	ck_assert(isnan(unc_chain_se(x, w, 2, 2, 2, 3, &after, 1, NULL, &after, 0, 0)));
	/* A tenth of the interval beyond the windows' reach at each end
	 * (unseen2 0.02) adds a window's variance times 0.02: about the
	 * mean 2.5 x 0.02 to 0.5, successive windows 0.5 x 0.02 to 0.1. */
	ck_assert_double_eq_tol(unc_mean_se_edges(x, w, 5, 5, 5, 15, NULL, 0, 0, 0.02), sqrt(0.55) * t4 / 1.96, 1e-12);
	ck_assert_double_eq_tol(unc_chain_se(x, w, 5, 5, 5, 15, NULL, 0, NULL, NULL, 0, 0.02), sqrt(0.11) * t4 / 1.96, 1e-12);
	ck_assert_double_eq_tol(unc_chain_se(x, w, 5, 5, 5, 15, NULL, 0, NULL, NULL, 0.5, 0.02), sqrt(0.06) * t4 / 1.96, 1e-12);
}
END_TEST

/* Zen 5's cycles with every metric at once: in five groups of seventeen,
 * one window each (a seventeenth of the interval), at slots 0, 2, 4, 5
 * and 11, the last ending at 12/17 of the interval. The windows' starts
 * lie (12/17 - 1/17) / 4 = 11/68 apart on average, so each window's
 * stretch reaches (11/68 - 4/68) / 2 = 7/136 past its ends: 1 - 12/17 -
 * 7/136 = 33/136 of the interval lies beyond the last one's, nothing
 * before the first's (which starts the interval). The mean of the five
 * stands for that stretch too: its error grows. A group of five rounds'
 * buckets reaches the end; so does one whose tail round's window is an
 * edge window in the row. */
START_TEST(test_unseen_end)
{
	enum { NG5 = 5 };
	const int slot[NG5] = { 0, 2, 4, 5, 11 };
	const double rate[NG5] = { 1.0, 1.2, 0.9, 1.1, 1.05 };
	struct gsum g[NG5];
	double val[NG5], run[NG5], cov[NG5];
	int gi[NG5], ev[1] = { 0 }, pos[NG5] = { 0 };
	for (int j = 0; j < NG5; j++) {
		memset(&g[j], 0, sizeof(g[j]));
		g[j].nev = 1;
		val[j] = rate[j] * 1e9;
		run[j] = 1e9 / 17;
		cov[j] = 1.0 / 17;
		g[j].val[0] = &val[j];
		g[j].run[0] = &run[j];
		g[j].cov[0] = &cov[j];
		g[j].lead = slot[j] / 17.0;
		g[j].chain = true;
		gi[j] = j;
	}
	struct wset w = { .pmu = 0, .ng = NG5, .g = gi, .nev = 1, .ev = ev, .pos = pos, .ns = NG5 };
	double covered = 5.0 / 17;
	ck_assert_double_eq_tol(wset_unseen2(&w, g, 0, 0, NG5, covered), (33.0 / 136) * (33.0 / 136), 1e-12);
	const int k = 0;
	const double one = 1;
	double scratch[4 * NG5];
	double with = wset_se(&w, g, 0, 0, &k, &one, 1, covered, scratch);
	/* The same windows spread over the interval (slots 0, 4, 8, 12,
	 * 16): nothing beyond their reach. */
	for (int j = 0; j < NG5; j++)
		g[j].lead = 4 * j / 17.0;
	ck_assert_double_eq_tol(wset_unseen2(&w, g, 0, 0, NG5, covered), 0, 1e-15);
	double spread = wset_se(&w, g, 0, 0, &k, &one, 1, covered, scratch);
	ck_assert_msg(with > 1.15 * spread, "se %g with the end unseen, %g spread over it", with, spread);
	/* One group of five buckets of 0.05, the first at 0.1: they reach
	 * the end, their starts (1 - 0.1 - 0.05) / 4 = 0.2125 apart, each
	 * stretch 0.08125 past its window: 0.01875 before the first unseen.
	 * With the tail round's word that its last ends at 0.8, more after,
	 * unless its tail window is in the row. */
	double bval[5] = { 1, 2, 3, 4, 5 }, bw[5] = { 1, 1, 1, 1, 1 }, tval = 6;
	memset(&g[0], 0, sizeof(g[0]));
	g[0].nev = 1;
	g[0].nb = 5;
	g[0].val[0] = &val[0];
	g[0].run[0] = &run[0];
	g[0].cov[0] = &cov[0];
	g[0].bval[0] = bval;
	g[0].bw[0] = bw;
	g[0].lead = 0.1;
	g[0].chain = true;
	cov[0] = 0.25;
	struct wset w1 = { .pmu = 0, .ng = 1, .g = gi, .nev = 1, .ev = ev, .pos = pos, .ns = 5 };
	ck_assert_double_eq_tol(wset_unseen2(&w1, g, 0, 0, 5, 0.25), 0.01875 * 0.01875, 1e-12);
	g[0].trail = 0.2;
	/* Starts 0.1 .. 0.75 (step (0.8 - 0.1 - 0.05) / 4 = 0.1625), reach
	 * (0.1625 - 0.05) / 2 = 0.05625 each side: 0.04375 before, 0.14375
	 * after. */
	ck_assert_double_eq_tol(wset_unseen2(&w1, g, 0, 0, 5, 0.25), 0.04375 * 0.04375 + 0.14375 * 0.14375, 1e-12);
	g[0].tval[0] = &tval;
	ck_assert_double_eq_tol(wset_unseen2(&w1, g, 0, 0, 5, 0.25), 0.04375 * 0.04375, 1e-12);
	/* The kernel's slices, and a replay of a recording that kept no
	 * lead: nothing known to be unseen. */
	g[0].chain = false;
	ck_assert_double_eq_tol(wset_unseen2(&w1, g, 0, 0, 5, 0.25), 0, 1e-15);
	g[0].chain = true;
	g[0].lead = NAN;
	ck_assert_double_eq_tol(wset_unseen2(&w1, g, 0, 0, 5, 0.25), 0, 1e-15);
}
END_TEST

/* A group's five windows of cycles and branch misses, the misses 2.7-3.3
 * M and steady, read as wset_samples and wsamples_se read them: the
 * misses' error is a few per cent, plain. Its window of the tail round
 * counted 7 times the misses, too little over its trail for a jump
 * (gsum_edges) but a phase that all five windows missed: with it at the
 * chain's end the error is more than 10 / 1.96 % (marked ~). The same
 * windows as the kernel's slices (not a chain) take it about the mean. */
START_TEST(test_edges_in_spread)
{
	enum { NB = 5, NE = 2 };
	double bval[NB * NE], bw[NB];
	const double rate[NE] = { 4.5e9, 3e6 };
	struct gsum g;
	steady_windows(&g, bval, bw, NB, NE, rate);
	const double wander[NB] = { 0.9, 1.1, 1.0, 0.95, 1.05 };
	for (int b = 0; b < NB; b++)
		bval[b * NE + 1] *= wander[b];
	g.chain = true;
	int gi = 0, ev[NE] = { 0, 1 }, pos[NE] = { 0, 1 };
	struct wset w = { .pmu = 0, .ng = 1, .g = &gi, .nev = NE, .ev = ev, .pos = pos, .ns = NB };
	const double *v[NB + 2];
	const int *ps[NB + 2];
	double wt[NB + 2], val[NE], scratch[2 * (NB + 2)];
	struct wsamples sm = { .v = v, .pos = ps, .wt = wt, .val = val };
	const int k = 1;
	const double one = 1;
	wset_samples(&w, &g, 0, 0, true, &sm);
	ck_assert_int_eq(sm.ne, 0);
	double quiet = wsamples_se(&sm, &k, &one, 1, 0.25, scratch) / 3e6;
	ck_assert(quiet > 0.005 && quiet < 0.05);
	double tval[NE] = { 4.5e9, 21e6 };
	g.tval[0] = tval;
	g.trail = 0.02;
	ck_assert(gsum_edges(&g, 0, 0) != EDGE_JUMPED);
	wset_samples(&w, &g, 0, 0, true, &sm);
	ck_assert_int_eq(sm.ne, 1);
	ck_assert(sm.chain && sm.eafter && !sm.ebefore);
	double seen = wsamples_se(&sm, &k, &one, 1, 0.25, scratch) / 3e6;
	ck_assert_msg(seen > 0.10 / 1.96, "rse %g with the tail window, %g without", seen, quiet);
	ck_assert_double_eq_tol(seen, wset_se(&w, &g, 0, 0, &k, &one, 1, 0.25, scratch) / 3e6, 1e-15);
	g.chain = false;
	wset_samples(&w, &g, 0, 0, true, &sm);
	ck_assert(!sm.chain);
	double slices = wsamples_se(&sm, &k, &one, 1, 0.25, scratch) / 3e6;
	ck_assert(slices > 0.10 / 1.96 && fabs(slices - seen) > 1e-3 * seen);
}
END_TEST

/* Two groups of a PMU's four, in slots 0 and 2 (leads 0 and 0.1 of a
 * 0.2 round), five buckets each: their windows alternate evenly, so the
 * set's samples are one chain in time order, group 0's window then
 * group 1's, round by round. On a trend (window t counts t + 1) the
 * chain states less than the spread about the mean; in slots 0 and 1
 * of eleven (leads 0 and 0.045 of a 0.5 round) the windows come in
 * pairs half a round apart, and the set is pooled (test_pooled). */
/* Two groups of nb buckets of one event in row 0 of scope 0, in a round
 * of `period`, group 1 first and group 0 `step` after it (leads step and
 * 0), running run0 and run1 ns; the set of both. The caller fills bval
 * and bw, then asks wset_time_order. */
enum { PAIR_NB = 8 };
struct pair {
	double bval[2][PAIR_NB], bw[2][PAIR_NB], run[2], cov[2], val1[2];
	struct gsum g[2];
	int gi[2], ev[1], pos[2], ord[2];
	struct wset w;
	/* Room for the set's samples (and its edge windows) in the row. */
	const double *v[2 * PAIR_NB + 4];
	const int *ps[2 * PAIR_NB + 4];
	int rnd[2 * PAIR_NB + 4];
	double wt[2 * PAIR_NB], val[1], scratch[4 * PAIR_NB + 8];
	struct wsamples sm;
};

static void pair_init(struct pair *p, int nb, double period, double step, double run0, double run1)
{
	memset(p, 0, sizeof(*p));
	p->run[0] = run0;
	p->run[1] = run1;
	for (int j = 0; j < 2; j++) {
		p->cov[j] = 0.1;
		p->val1[j] = 5;
		p->g[j] = (struct gsum){ .nev = 1, .nb = nb, .chain = true, .period = period, .lead = step * (1 - j) };
		p->g[j].bval[0] = p->bval[j];
		p->g[j].bw[0] = p->bw[j];
		p->g[j].run[0] = &p->run[j];
		p->g[j].cov[0] = &p->cov[j];
		p->g[j].val[0] = &p->val1[j];
		p->gi[j] = j;
	}
	p->w = (struct wset){ .pmu = 0, .ng = 2, .g = p->gi, .nev = 1, .ev = p->ev, .pos = p->pos, .ns = 2 * nb };
	p->sm = (struct wsamples){ .v = p->v, .pos = p->ps, .wt = p->wt, .val = p->val, .rnd = p->rnd };
}

START_TEST(test_interleave)
{
	enum { NB = 5 };
	struct pair p;
	pair_init(&p, NB, 0.2, 0.1, 5, 5);
	struct gsum *g = p.g;
	struct wset w = p.w;
	int *ord = p.ord;
	for (int j = 0; j < 2; j++)
		for (int b = 0; b < NB; b++) {
			p.bw[j][b] = 1;
			p.bval[j][b] = 2 * b + (1 - j) + 1;   /* group 1 (lead 0) first */
		}
	wset_time_order(&w, g, ord);
	ck_assert_ptr_nonnull(w.order);
	ck_assert_int_eq(w.onb, NB);
	struct wsamples sm = p.sm;
	double *scratch = p.scratch;
	wset_samples(&w, g, 0, 0, false, &sm);
	ck_assert(sm.chain);
	ck_assert(!w.pooled && !sm.pooled);
	for (int s = 0; s < 2 * NB; s++)
		ck_assert_double_eq(sm.v[s][0], s + 1);
	const int k = 0;
	const double one = 1;
	double chain = wsamples_se(&sm, &k, &one, 1, 0.2, scratch);
	ck_assert_double_eq_tol(chain, wset_se(&w, g, 0, 0, &k, &one, 1, 0.2, scratch), 1e-12);
	g[0].lead = 0.045;
	g[1].lead = 0;
	g[0].period = g[1].period = 0.5;
	wset_time_order(&w, g, ord);
	ck_assert(w.pooled);
	wset_samples(&w, g, 0, 0, false, &sm);
	ck_assert(!sm.chain && sm.pooled);
	double about = wsamples_se(&sm, &k, &one, 1, 0.2, scratch);
	ck_assert_double_eq_tol(about, wset_se(&w, g, 0, 0, &k, &one, 1, 0.2, scratch), 1e-12);
	ck_assert_msg(chain < 0.5 * about, "chain %g, about the mean %g", chain, about);
}
END_TEST

/* Two groups side by side in the round (slots 0 and 1 of eleven, Zen 3's
 * every metric at once): each pair of windows saw nearly the same rates,
 * and what lay between the pairs none saw. Taken as four samples, pairs
 * that agree within 1 % stated an error of a few per cent while the
 * interval's truth was anywhere between them; pooled, each round is one
 * sample, and the rounds are a chain as one group's windows are: two
 * rounds state no error at all, and four the smaller of the rounds'
 * successive differences and their spread about the mean, worked out
 * here by hand (weights 1 and 3 in each round: each round's mean is
 * (x0 + 3 x1) / 4). */
/* test_pooled's four rounds by hand: the rounds' means, each of weight
 * 4 (a share of 1/4); their spread about their mean, sum (x - mean)^2 /
 * 16 * 4 / 3 for the mean's variance, and their successive differences,
 * sum d^2 / (2 x 3) * (4 / 16), each times 1 - 0.2 (the coverage) and
 * t(3) / 1.96. */
static void pooled_by_hand(const double *x, double *about, double *along)
{
	double rm[4], mean = 0, ss = 0, dd = 0;
	for (int b = 0; b < 4; b++) {
		rm[b] = (0.99 * x[b] + 3 * 1.01 * x[b]) / 4;
		mean += rm[b] / 4;
	}
	for (int b = 0; b < 4; b++) {
		ss += (rm[b] - mean) * (rm[b] - mean) / 16;
		dd += b ? (rm[b] - rm[b - 1]) * (rm[b] - rm[b - 1]) : 0;
	}
	double t = 3.182 / 1.96;
	*about = sqrt(ss * 4 / 3 * 0.8) * t;
	*along = sqrt(dd / 6 * 0.25 * 0.8) * t;
}

START_TEST(test_pooled)
{
	enum { NB = 4 };
	/* Round b: group 0 (slot 1) and group 1 (slot 0) read nearly alike. */
	const double x[NB] = { 2, 9, 4, 7 };
	struct pair p;
	pair_init(&p, NB, 0.55, 0.05, 4, 12);
	struct gsum *g = p.g;
	struct wset w = p.w;
	int *ord = p.ord;
	double (*bval)[PAIR_NB] = p.bval;
	for (int j = 0; j < 2; j++)
		for (int b = 0; b < NB; b++) {
			p.bw[j][b] = j ? 3 : 1;
			bval[j][b] = x[b] * (j ? 1.01 : 0.99);
		}
	wset_time_order(&w, g, ord);
	ck_assert(w.pooled && w.order && w.onb == NB);
	struct wsamples sm = p.sm;
	double *scratch = p.scratch;
	wset_samples(&w, g, 0, 0, false, &sm);
	ck_assert(sm.pooled && !sm.chain && sm.n == 2 * NB);
	/* Round by round, group 1 (lead 0) first. */
	for (int s = 0; s < 2 * NB; s++) {
		ck_assert_int_eq(sm.rnd[s], s / 2);
		ck_assert_double_eq(sm.v[s][0], x[s / 2] * (s % 2 ? 0.99 : 1.01));
	}
	const int k = 0;
	const double one = 1;
	double se = wsamples_se(&sm, &k, &one, 1, 0.2, scratch);
	ck_assert_double_eq_tol(se, wset_se(&w, g, 0, 0, &k, &one, 1, 0.2, scratch), 1e-12);
	double about, along;
	pooled_by_hand(x, &about, &along);
	/* These rounds alternate (2, 9, 4, 7): the spread is the smaller. */
	ck_assert_msg(about < along, "about %g, along %g", about, along);
	ck_assert_double_eq_tol(se, about, 1e-9 * se);
	/* The windows taken as eight samples state 0.55 of it: their pairs'
	 * agreement counted as four more samples. */
	double eight[2 * NB], ew[2 * NB];
	for (int s = 0; s < 2 * NB; s++) {
		eight[s] = sm.v[s][0];
		ew[s] = sm.wt[s];
	}
	double as8 = unc_mean_se(eight, ew, 2 * NB, 0.2);
	ck_assert_msg(as8 < 0.6 * se, "as eight samples %g, pooled %g", as8, se);
	/* A trend (2, 4, 6, 8): the successive differences are. */
	const double trend[NB] = { 2, 4, 6, 8 };
	for (int j = 0; j < 2; j++)
		for (int b = 0; b < NB; b++)
			bval[j][b] = trend[b] * (j ? 1.01 : 0.99);
	wset_samples(&w, g, 0, 0, false, &sm);
	se = wsamples_se(&sm, &k, &one, 1, 0.2, scratch);
	ck_assert_double_eq_tol(se, wset_se(&w, g, 0, 0, &k, &one, 1, 0.2, scratch), 1e-12);
	pooled_by_hand(trend, &about, &along);
	ck_assert_msg(along < about, "about %g, along %g", about, along);
	ck_assert_double_eq_tol(se, along, 1e-9 * se);
	/* Two rounds: no error can be stated. */
	g[0].nb = g[1].nb = 2;
	w.ns = 4;
	wset_time_order(&w, g, ord);
	ck_assert(w.pooled && w.onb == 2);
	wset_samples(&w, g, 0, 0, false, &sm);
	ck_assert(isnan(wsamples_se(&sm, &k, &one, 1, 0.2, scratch)));
	ck_assert(isnan(wset_se(&w, g, 0, 0, &k, &one, 1, 0.2, scratch)));
}
END_TEST

static Suite *window_suite(void)
{
	Suite *s = suite_create("window");
	TCase *tc = tcase_create("window");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_same_bits);
	tcase_add_test(tc, test_arena_reserve);
	tcase_add_test(tc, test_burst_without_pins);
	tcase_add_test(tc, test_burst_unvouched);
	tcase_add_test(tc, test_lead_jump);
	tcase_add_test(tc, test_chain_se);
	tcase_add_test(tc, test_edges_in_spread);
	tcase_add_test(tc, test_unseen_end);
	tcase_add_test(tc, test_interleave);
	tcase_add_test(tc, test_pooled);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(window_suite());
}
