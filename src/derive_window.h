/* derive_window.h: the per-group sums and the window sets from which
 * derive.c evaluates every figure.
 *
 * A group's sums are, per row (CPU, core, CCX, socket, system), what its
 * instances under the row counted, each scaled to the interval by its own
 * time running; and, per bucket of rotation windows, the same from that
 * bucket alone (one sample of the group's rates).
 *
 * A window set is the list of groups that all hold a given list of
 * events. Counts of those events taken from those groups only were
 * counted over the same windows, so a formula over them is exact for
 * those windows. Where a set has several groups their values are pooled
 * with weights equal to the time each ran, which is the event's total
 * count over its total running time when the instances of a row ran
 * alike (they rotate together). Internal to derive. */
#ifndef PMCTOP_DERIVE_WINDOW_H
#define PMCTOP_DERIVE_WINDOW_H

#include <math.h>
#include <stdbool.h>
#include <string.h>
#include "derive.h"
#include "uncertainty.h"

/* Per instance of each PMU, the row it adds to at every scope (-1: none),
 * and per row the live instances under it. */
struct inst_rows {
	int *row;                    /* [ninst * SNAP_NSCOPES] */
	int *nin[SNAP_NSCOPES];      /* [nrows] */
	/* Row r of scope sc sits in row up[sc][r] of scope upsc[sc][r], the
	 * next scope up that its instances add to (-1: none, the system
	 * row): gsum_fill adds an instance to its lowest row only and then
	 * each row to the one above, a third of the additions of adding
	 * every instance to all five of its rows. */
	int *up[SNAP_NSCOPES - 1];
	signed char *upsc[SNAP_NSCOPES - 1];
};

struct gsum {
	int nev, nb;                 /* nb: buckets with samples (0: the group's value is its one sample) */
	double *val[SNAP_NSCOPES];   /* [nrows * nev] */
	double *run[SNAP_NSCOPES];   /* [nrows] mean ns running of the row's instances */
	double *cov[SNAP_NSCOPES];   /* [nrows] lowest share of the interval an instance ran */
	double *bval[SNAP_NSCOPES];  /* [nrows * nb * nev] */
	double *bw[SNAP_NSCOPES];    /* [nrows * nb] mean ns running; 0: not usable */
	/* [nev] true where the event is pinned for its fixed counter (the
	 * plan's event_fixed_pin: in every group of its PMU, counted
	 * throughout; gsum_burst leaves it out); NULL: none is. */
	const bool *pin;
	/* The group's last window of the interval before, per row, scaled
	 * as bval ([nrows * nev], NaN where some instance under the row had
	 * none), and the share of this interval before the group's first
	 * window (derive_group's pv, pr and lead); NULL: none. */
	double *pval[SNAP_NSCOPES];
	double lead;
	/* The same of its window of the tail round, and the share of the
	 * interval after its last window before it (derive_group's tv, tr
	 * and trail); NULL: none. */
	double *tval[SNAP_NSCOPES];
	double trail;
	/* Its buckets are windows of pmctop's rotation in time order, each
	 * a systematic sample of the interval: a set of this group alone
	 * takes its errors from successive windows too, and states the
	 * smaller (unc_chain_se). */
	bool chain;
	/* The share of the interval that one round of its PMU's rotation
	 * takes (its counting groups x a slot, the smallest lead among
	 * them); 0 where not known (one group, the kernel's slices, a
	 * replay without leads). */
	double period;
};

/* dst[j] += src[j] for j < n, two at a time where the compiler has
 * vector types: the same sums, element by element, in fewer
 * instructions (this is most of gsum_fill, which runs for every group of
 * every instance of every interval). */
static inline void add_to(double *restrict dst, const double *restrict src, int n)
{
	int j = 0;
#if defined(__GNUC__)
	typedef double v2d __attribute__((vector_size(16)));
	for (; j + 2 <= n; j += 2) {
		v2d a, b;
		memcpy(&a, dst + j, sizeof(a));
		memcpy(&b, src + j, sizeof(b));
		a += b;
		memcpy(dst + j, &a, sizeof(a));
	}
#endif
	for (; j < n; j++)
		dst[j] += src[j];
}

struct arena;
/* Fills gs for plan group gi; its arrays come from the arena and last
 * until it is reset. */
void gsum_fill(struct gsum *gs, const struct derive_input *in, int gi, const struct inst_rows *ir,
	       const int nrows[SNAP_NSCOPES], struct arena *ar);

struct wset {
	int pmu;
	int ng, *g;            /* member plan groups */
	int nev, *ev;          /* model events held by every member */
	int *k_of;             /* [model nevents] index in ev, -1: not held */
	int *pos;              /* [ng * nev] index of ev[k] in member g's events */
	int ns;                /* samples: each member's buckets (or its value) */
	/* This interval's (wset_time_order): the members in the order of
	 * their windows in each round, where the set's windows are a chain
	 * (several groups of onb buckets each, their windows evenly spaced
	 * over the rounds); NULL otherwise. */
	const int *order;
	int onb;
	/* The same members in time order, their windows not evenly spaced
	 * and one gap over WSET_POOL_GAP of the round (side by side: slots
	 * 0 and 1 of eleven): each round's windows are pooled into one
	 * sample (wset_time_order). */
	bool pooled;
};

struct wset_list {
	int n, cap;
	struct wset *v;
};

/* Room for one row of set w's samples (wsamples' v and pos): its
 * samples and up to two edge windows per group. */
static inline size_t wset_room(const struct wset *w)
{
	return (size_t)w->ns + 2 * (size_t)w->ng;
}
/* The set of groups on pmu holding all of events[0..n-1] (added when new);
 * its index, or -1 when no group holds them all. */
int wset_find_or_add(struct wset_list *l, const struct derive_input *in, const struct gsum *gs,
		     int pmu, const int *events, int n);
/* Index of event e in w->ev, or -1. Inline: metric_in_set asks it for
 * each event of each metric in every row. */
static inline int wset_event(const struct wset *w, int e)
{
	return w->k_of[e];
}
/* The set's coverage in row r of scope sc: the share of the interval its
 * groups ran, 0..1. */
double wset_cov(const struct wset *w, const struct gsum *gs, int sc, int r);
/* The set's event k alone in row r (*out); returns the set's coverage.
 * Inline: it runs for every event and metric of every row. */
static inline double wset_value1(const struct wset *w, const struct gsum *gs, int sc, int r, int k,
				 double *out)
{
	int nev = w->nev;
	if (w->ng == 1) {
		const struct gsum *s = &gs[w->g[0]];
		*out = s->val[sc][(size_t)r * (size_t)s->nev + (size_t)w->pos[k]];
		return s->cov[sc][r];
	}
	double sw = 0, sum = 0, cov = 0;
	for (int j = 0; j < w->ng; j++) {
		const struct gsum *s = &gs[w->g[j]];
		double wt = s->run[sc][r];
		cov += s->cov[sc][r];
		if (!(wt > 0))
			continue;
		sum += wt * s->val[sc][(size_t)r * (size_t)s->nev + (size_t)w->pos[j * nev + k]];
		sw += wt;
	}
	*out = sw > 0 ? sum / sw : NAN;
	return cov < 1 ? cov : 1;
}
/* The standard error (unc_mean_se) of a figure from the set's samples in
 * row r, each sample reduced to one number: the sum over j < n of coef[j]
 * times the set's event ks[j] scaled to the interval from that sample
 * alone (a formula linearised around its value, or one event with coef
 * 1); the figure covered the share `covered` of the interval. The first
 * pass of the statistics is done while the samples are summed, and a
 * sample of no weight is not summed at all; only the events named are
 * read. The groups' edge windows enter the spread too: a set of one
 * group of chain windows takes the smaller of its successive windows'
 * error, edge windows at the ends, and its spread about the mean
 * (unc_chain_se), a set of several whose windows interleave evenly
 * (wset's order) the same without edge windows at the chain's ends, a
 * pooled set (wset's pooled) the same over its rounds, each round's
 * windows one sample, any other set the spread about the mean
 * (unc_mean_se_edges); the share of the interval beyond the windows'
 * reach widens each (wset_unseen2).
 * scratch has room for 2 * w->ns + 2 * w->ng doubles. */
double wset_se(const struct wset *w, const struct gsum *gs, int sc, int r, const int *ks, const double *coef, int n,
	       double covered, double *scratch);
/* A set in one row, as every figure of the set there reads it, found
 * once per row: with enough samples for an error (ns >= UNC_MIN_SAMPLES;
 * else n is 0: no error of the set can be stated), those that have a
 * weight, in the order wset_se takes them (each one's events,
 * v[s][pos[s][k]] being the set's event k, and its weight) and the
 * weights' sum; with two or more groups, the values of all its events
 * (wset_value1's, to the bit) and its coverage. */
/* The groups of set w that ran in row r of scope sc (running time > 0),
 * in the set's order: each one's weight (its running time), its row of
 * counts and where the set's events lie in it; *sw gets the weights'
 * sum and *cov the coverage of all the set's groups, not clamped. The
 * number of groups that ran is returned. Every weighted mean of the
 * set's events (wset_value1's) sums these in this order. */
static inline int wset_ran(const struct wset *w, const struct gsum *gs, int sc, int r, double *wts,
			   const double **gv, const int **gpos, double *sw, double *cov)
{
	int nu = 0;
	*sw = 0;
	*cov = 0;
	for (int j = 0; j < w->ng; j++) {
		const struct gsum *g = &gs[w->g[j]];
		double wt = g->run[sc][r];
		*cov += g->cov[sc][r];
		if (!(wt > 0))
			continue;
		wts[nu] = wt;
		gv[nu] = &g->val[sc][(size_t)r * (size_t)g->nev];
		gpos[nu++] = &w->pos[j * w->nev];
		*sw += wt;
	}
	return nu;
}

struct wsamples {
	int n;
	double sw;
	/* ne: the set's groups' edge windows (gsum's pval and tval) in the
	 * row, after the n samples in v and pos (no weight: each weighs as
	 * the mean sample; unc_mean_se_edges). */
	int ne;
	/* A set of one group of chain windows (gsum's chain), or of several
	 * in time order (wset's order): its samples are in time order; for
	 * one group its edge windows are the one before them (ebefore: the
	 * first of ne) and the one after (eafter: the last), for several
	 * they enter the spread about the mean alone. */
	bool chain, ebefore, eafter;
	/* A pooled set (wset's pooled): rnd[s] is sample s's round, and
	 * the samples of one round are taken as one, their weighted mean
	 * (wsamples_pooled_se). */
	bool pooled;
	int *rnd;              /* [wset_room(w)] */
	/* wset_unseen2 of the set in the row. */
	double unseen2;
	const double **v;      /* [wset_room(w)] */
	const int **pos;       /* [wset_room(w)] */
	double *wt;            /* [w->ns] */
	double cov;            /* ng >= 2: what wset_value1 returns */
	double *val;           /* [w->nev] ng >= 2: wset_value1's values */
	const bool *need;      /* [w->nev] set by the caller: the values to find
	                        * (NULL: all; the others are left as they were) */
};
/* Whether set w's windows this interval are a chain in time order,
 * as one group's buckets are (wset's order and onb, set here; ord has
 * room for w->ng): several groups of pmctop's rotation with the same
 * number of buckets, two or more, and their PMU's round known, whose
 * windows lie evenly over a round (the largest gap from one window's
 * start to the next, across the round's end too, at most
 * WSET_EVEN_GAPS times the smallest). Windows of several groups side by
 * side in the round (slots 0 and 1 of eleven) are not: most of their
 * successive differences span a slot, and say nothing of the stretch
 * between rounds (docs/uncertainty.md, item 12). Nor are they samples
 * of their own: two windows side by side saw nearly the same rates, and
 * their spread about the mean, taken as that of independent samples,
 * stated errors of 2-5 % for figures 40-78 % off (item 13). Where one
 * gap is more than WSET_POOL_GAP of the round, the set is pooled
 * (wset's pooled, with order and onb set): each round's windows are one
 * sample, the rounds a chain, so a set of two rounds states no error.
 * Sets between (six groups of seven: one slot left between rounds) keep
 * the spread of their windows: pooled, their rounds were nearly the
 * whole interval, and their errors doubled (Westmere's ipc, 96.5 % ->
 * 100 % covered). */
#define WSET_EVEN_GAPS 1.5
#define WSET_POOL_GAP 0.5
void wset_time_order(struct wset *w, const struct gsum *gs, int *ord);
/* The shares of the interval beyond the reach of set w's m windows in
 * row r (covering the share `covered`), at its start and at its end,
 * each squared, summed: the unc_* estimators' unseen2. Each window
 * stands for the stretch around it up to half way to the next (the
 * set's windows spaced evenly over the span from its groups' first
 * window's start, gsum's lead, to their last one's end); what lies
 * beyond the first's and the last's stretch, short of the interval's
 * edge, no window saw, and no window near it did either: under
 * pmctop's rotation of many groups, a set whose groups' turns all came
 * early in the round (Zen 5's cycles with every metric at once: five
 * groups of seventeen, one window each, the last ending at 0.71 of the
 * interval) stands for the rest from what it saw before. A group's
 * last window ends at 1 - trail where the tail round says so, its one
 * window at lead + its coverage, and windows of every round reach the
 * end; an edge window on that side (the interval before's last, the
 * tail round's) is a window there: nothing is unseen. 0 for the
 * kernel's slices, which have no lead. */
double wset_unseen2(const struct wset *w, const struct gsum *gs, int sc, int r, int m, double covered);
/* edges: some group of the interval has an edge window (else none is
 * looked for). */
void wset_samples(const struct wset *w, const struct gsum *gs, int sc, int r, bool edges, struct wsamples *out);
/* wset_samples' values and coverage alone, with no samples (n 0): a row
 * whose errors are found later (derive_input.want). */
void wset_values(const struct wset *w, const struct gsum *gs, int sc, int r, struct wsamples *out);
/* wsamples_se's end for a pooled set: scratch holds the n samples'
 * linearised values, then the edge windows'; sx their weighted sum. */
double wsamples_pooled_se(const struct wsamples *sm, double sx, double covered, double *scratch);
/* wset_se from the samples found by wset_samples: the same figure, to
 * the bit. Inline: it runs for each figure with an error in every row
 * (at 384 CPUs some 6,600 times an interval), most often for one event
 * with a coefficient of 1, which the caller's constants then simplify. */
static inline double wsamples_se(const struct wsamples *sm, const int *ks, const double *coef, int n,
				 double covered, double *scratch)
{
	if (covered >= UNC_FULLY_COVERED)
		return 0;
	if (sm->n < UNC_MIN_SAMPLES)
		return NAN;
	double sx = 0;
	for (int s = 0; s < sm->n + sm->ne; s++) {
		const double *v = sm->v[s];
		const int *pos = sm->pos[s];
		double sum = 0;
		for (int j = 0; j < n; j++)
			sum += coef[j] * v[pos[ks[j]]];
		if (!isfinite(sum))
			return NAN;
		scratch[s] = sum;
		if (s < sm->n)
			sx += sm->wt[s] * sum;
	}
	if (sm->pooled)
		return wsamples_pooled_se(sm, sx, covered, scratch);
	if (sm->chain)
		return unc_chain_se(scratch, sm->wt, sm->n, sm->n, sm->sw, sx, scratch + sm->n, sm->ne,
				    sm->ebefore ? scratch + sm->n : NULL,
				    sm->eafter ? scratch + sm->n + sm->ne - 1 : NULL, covered, sm->unseen2);
	return unc_mean_se_edges(scratch, sm->wt, sm->n, sm->n, sm->sw, sx, scratch + sm->n, sm->ne, covered,
				 sm->unseen2);
}
/* How far the mix of group gs's events moved, in row r, in the first or
 * last of its windows of the interval (buckets, three or more, in time
 * order) against its windows' mean: over its events other than the one
 * of the largest count (the reference: cycles, slots), the largest
 * |x_b - mean| / |mean| x ref_b / ref x wt_b / T, where x is the event
 * per reference count, ref_b / ref that window's reference against the
 * mean, wt_b its running ns and T the interval's ns (moves under half
 * the mean, GSUM_BURST_MIN, are left out: the rates' wander, in the
 * spread of every group). A phase that began in the interval's last
 * window shows here, in the group that ran then; the groups that did not
 * run then cannot tell from their own samples (derive.c, burst_floor).
 * 0 without such buckets. */
double gsum_burst(const struct gsum *gs, int sc, int r, double T);
/* A window set with no event counted throughout the interval (pinned, on
 * a fixed counter, or in every group of its PMU) has nothing that
 * vouches for its windows (derive.c, window_doubt, compares the set's
 * figure of such an event with the interval's): the burst floor is all
 * that widens its errors, and smaller moves of the other groups' mix are
 * counted for it, from this share of the mean on (docs/uncertainty.md,
 * "The tail": the Zen 4 and 5 cache and l1 views' far misses, whose
 * other groups moved by 0.23-0.49 at an edge). */
#define GSUM_BURST_MIN_UNVOUCHED 0.25
/* gsum_burst's figure, and (low not NULL) in *low the same counting the
 * moves from GSUM_BURST_MIN_UNVOUCHED on, in one pass. */
double gsum_bursts(const struct gsum *gs, int sc, int r, double T, double *low);

/* Fills gs's pval, lead, tval and trail (after gsum_fill) from the
 * group's last window of the interval before and its window of the tail
 * round, where it has them (derive_lead.c). */
void gsum_fill_edges(struct gsum *gs, const struct derive_input *in, int gi, const struct inst_rows *ir,
		    const int nrows[SNAP_NSCOPES], struct arena *ar);
/* Whether the group's edge windows (its last window of the interval
 * before, its window of the tail round) show, in row r of scope sc, that
 * its windows missed a change of its rates in the share of the interval
 * before its first window or after its last (derive_lead.c): an edge
 * window stands far from all of its windows here, in one of its events,
 * by a move that in that share would be a quarter of the event's figure.
 * EDGE_JUMPED then, else 0. Smaller moves are sized by the set's errors
 * themselves, which hold the edge windows as samples (unc_chain_se). */
#define EDGE_JUMPED (-1)
int gsum_edges(const struct gsum *gs, int sc, int r);
/* The variance, in row r, of sum_k coef[k] x the pooled figure of event
 * events[k] (each taken from its own window set, ev_set[event]): what a
 * metric whose events share no group states as its error. Terms whose
 * events share a set come from the same windows and move together (two
 * kinds of FLOPs in a burst), so they are summed per sample and their
 * spread taken as one; each set's error is widened by its doubt[set]
 * (window_doubt). Sets that ran in different windows of the interval are
 * not independent either: what one set's windows saw more of, the others'
 * saw less of (with two sets sharing the interval, one's error is the
 * other's reversed), so each pair adds a covariance of at most
 * se_a x se_b x sqrt(c_a c_b / ((1 - c_a)(1 - c_b))) (c: coverage; the
 * covariance of two disjoint samples' means without replacement), taken
 * with the sign that widens. NaN when a set's error is not known; scratch
 * holds two doubles per sample of the largest set. */
double wset_pooled_var(const struct wset_list *wl, const int *ev_set, const double *doubt, const struct gsum *gs,
		       int sc, int r, const int *events, const double *coef, int n, double *scratch);
void wset_list_free(struct wset_list *l);

#endif
