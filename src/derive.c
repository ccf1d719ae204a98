/* derive.c: from the per-instance scaled counts of one interval to a
 * snapshot.
 *
 * Rows exist for every selected online CPU and for each core, CCX and
 * socket that holds one, plus one system row. Each row's events are the
 * sum of the scaled counts of the instances under it (wider-scope PMU
 * instances, such as one L3 per CCX, are added at their scope and above);
 * an event's coverage in a row is the lowest coverage among those
 * instances. Only then is each metric's formula evaluated on the row's
 * sums: aggregates come from summed raw counts, never from an average of
 * per-CPU ratios, which would weight an idle CPU like a busy one.
 *
 * Two more rules keep every figure honest:
 *  - one time window per ratio: a metric whose events all sit in one or
 *    more groups together is evaluated on the counts of those groups only
 *    (derive_window.c). Pooling an event over all its groups and dividing
 *    by another event from one group would divide counts of different
 *    windows, which a phased workload turns into nonsense (a topdown share
 *    above 1). A metric whose events share no group (another PMU, or too
 *    many for one group) uses each event's pooled estimate and is the one
 *    kind marked "across groups" by the plan;
 *  - scope: a CCX, socket or system row of which -C left out some CPUs
 *    sums only the selected CPUs' core counts while an L3 or memory PMU
 *    counts them all, so a metric mixing the two is NaN in such a row.
 * Every figure also gets its relative standard error (uncertainty.c):
 * at once in every row, or (derive_input.want, the dashboard) in the rows
 * an output reads, the others' left to the snapshot's error source
 * (derive_errors.c), which holds the interval's sums and finds a row's
 * from them when it is read (derive_row_errors), on any thread. */
#include "config.h"
#include "derive.h"
#include "derive_impl.h"
#include "derive_bounds.h"
#include "derive_moderate.h"
#include "derive_tree.h"
#include "derive_window.h"
#include "expr.h"
#include "format.h"
#include "formula.h"
#include "uncertainty.h"
#include "util.h"
#include "hot_path.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* What metric_in_set and metric_pooled work with: the row (its event
 * figures by column: ecol maps a model event to its column, -1 none), and
 * the metric's program compiled for the row's scope (formula.h) with its
 * work space, which starts with the program's variables. */
struct geval {
	const struct model *m;
	const struct snap_row *row;
	const int *ecol;
	double measured_s;
	int row_scope;
	const struct wset *ws;  /* the metric's window set (metric_in_set) */
	int set;                /* its index */
	const struct gsum *gs;  /* the groups' sums behind ws */
	const struct wsamples *smp; /* each set's samples in the row (ns >= UNC_MIN_SAMPLES; else n is 0) */
	/* A metric across sets: every event's set, each set's doubt, the row
	 * and room for a set's samples (wset_pooled_var). */
	const struct wset_list *wl;
	const int *ev_set;
	const double *doubt;
	double *scratch;
	int r;
	const struct formula *prog;
	double *fvars;
};

/* Event e's figure in a row from its column a (ev, ecov or erse): NaN
 * without a column. */
static inline double row_ev(const double *a, const int *ecol, int e)
{
	return ecol[e] >= 0 ? a[ecol[e]] : NAN;
}

/* Metric mi in its window set c->ws, whose values in the row are in
 * c->fvars, its samples in c->smp[c->set] and its coverage cov: its value
 * and relative standard error. The formula is linearised around the
 * set's values; each sample (bucket of windows) gives one value of the
 * linearised figure, and their spread gives the error. scratch has room
 * for the set's samples. */
static double metric_in_set(struct geval *c, int mi, double cov, double *scratch, double *rse)
{
	const struct metric_def *md = &c->m->metrics[mi];
	const struct wset *w = c->ws;
	const struct formula *fp = c->prog;
	double grad[EXPR_GRAD_MAX];
	*rse = NAN;
	bool exact = cov >= UNC_FULLY_COVERED;
	/* The caller has put the set's values in c->fvars. */
	if (md->nevents > EXPR_GRAD_MAX || exact || c->smp[c->set].n < UNC_MIN_SAMPLES) {
		/* Nothing to estimate from (too few samples: wsamples_se would
		 * say NaN; or too many variables to follow): the value alone,
		 * in its own windows. */
		double f = formula_eval(fp, c->measured_s, c->fvars);
		if (exact && !isnan(f))
			*rse = 0;
		return f;
	}
	double f = formula_eval_grad(fp, c->measured_s, md->nevents, grad, c->fvars);
	if (!isfinite(f))
		return f;
	/* The formula linearised around its value: its derivatives applied
	 * to each sample's events. */
	int ks[EXPR_GRAD_MAX], nk = 0;
	double coef[EXPR_GRAD_MAX];
	for (int k = 0; k < md->nevents; k++) {
		int e = wset_event(w, md->events[k]);
		if (grad[k] == 0 || e < 0)
			continue;
		ks[nk] = e;
		coef[nk++] = grad[k];
	}
	double se = wsamples_se(&c->smp[c->set], ks, coef, nk, cov, scratch);
	*rse = se == 0 ? 0 : se / fabs(f);
	return f;
}

/* Metric mi from the row's pooled event figures (no window set holds all
 * its events): its value and relative standard error, the events' errors
 * carried through the formula's derivatives, those of one window set
 * together (wset_pooled_var). */
static double metric_pooled(struct geval *c, int mi, bool errors, double *rse)
{
	const struct metric_def *md = &c->m->metrics[mi];
	const struct snap_row *row = c->row;
	double grad[EXPR_GRAD_MAX];
	*rse = NAN;
	/* Any event of unknown error makes the metric's unknown; all exact
	 * make it exact: either way the value alone is enough. */
	bool unknown = false, exact = true;
	for (int k = 0; k < md->nevents; k++) {
		double r = row_ev(row->erse, c->ecol, md->events[k]);
		unknown |= isnan(r);
		exact &= r == 0;
	}
	const struct formula *fp = c->prog;
	const int *ev = formula_vars(fp);
	for (int k = 0; k < formula_nvars(fp); k++)
		c->fvars[k] = row_ev(row->ev, c->ecol, ev[k]);
	if (!errors || md->nevents > EXPR_GRAD_MAX || unknown || exact) {
		double f = formula_eval(fp, c->measured_s, c->fvars);
		if (errors && exact && !unknown && !isnan(f))
			*rse = 0;
		return f;
	}
	double f = formula_eval_grad(fp, c->measured_s, md->nevents, grad, c->fvars);
	if (!isfinite(f))
		return f;
	double var = wset_pooled_var(c->wl, c->ev_set, c->doubt, c->gs, c->row_scope, c->r, md->events, grad,
				     md->nevents, c->scratch);
	*rse = var == 0 ? 0 : sqrt(var) / fabs(f);
	return f;
}

/* How much more than their own spread says the windows of set `set` may
 * stand apart from the rest of row r's interval: a factor (1 or more) on
 * the errors that the set's samples state.
 *
 * The samples of a set are its windows, taken every n-th window, so they
 * can all agree while the windows they skipped did something else (a
 * phase that began between two of them); their spread then states an
 * error far too small (misses of 20 and more stated standard errors were
 * seen on the simulator's phased workloads). An event that the set holds
 * and that other groups hold too (core cycles are in every group of an
 * AMD core PMU, instructions in most of Intel's) is known over more of the
 * interval than over the set's windows: how far the set's own estimate of
 * it lands from that, in the set's stated errors, is a measured sign of
 * how representative its windows were. Beyond what chance gives (1.96),
 * the set's errors are taken to be understated by the same factor; the
 * worst of such events decides. dcol[k] is the row's column of the set's
 * event k where another set gives that event's figure, else -1. */
#define WINDOW_DOUBT_REL 1e-3
static double window_doubt(const struct wset *w, const int *dcol, const struct gsum *gs, const struct wsamples *sm,
			   const struct snap_row *row, int sc, int r, double *scratch)
{
	/* Too few samples: every error below would be NaN (or 0). */
	if (w->ns < UNC_MIN_SAMPLES || sm->n < UNC_MIN_SAMPLES)
		return 1;
	double worst = 0;
	for (int k = 0; k < w->nev; k++) {
		int col = dcol[k];
		if (col < 0)
			continue;
		double ev = row->ev[col], c = row->ecov[col];
		if (!isfinite(ev) || ev == 0)
			continue;
		double v, cov;
		if (w->ng >= 2) {
			v = sm->val[k];
			cov = sm->cov;
		} else {
			cov = wset_value1(w, gs, sc, r, k, &v);
		}
		if (!(cov < c) || !isfinite(v))
			continue;
		const double one = 1;
		double se = wsamples_se(sm, &k, &one, 1, cov, scratch);
		if (!(se > 0))
			continue;
		/* Samples that agree to a few parts in a million (a busy CPU's
		 * cycles in every window) are no yardstick for a gap of 1e-4
		 * between the set's windows and the rest: that much comes of
		 * where the windows' edges fall and of the counts' rounding, not
		 * of windows that missed a phase, and read against such a
		 * spread it multiplied every error of the set several times
		 * (Intel's architectural model stated errors ten times too
		 * wide; docs/uncertainty.md, "The tail"). */
		if (se < WINDOW_DOUBT_REL * fabs(ev))
			se = WINDOW_DOUBT_REL * fabs(ev);
		double off = fabs(v - ev) / se;
		if (off > worst)
			worst = off;
	}
	return worst > 1.96 ? worst / 1.96 : 1;
}

/* The PMU whose window sets can hold all of md's events, or -1: the one
 * PMU of them all, or the one counter PMU among always-counting per-CPU
 * events (software, /proc/stat), which the sampler takes over that PMU's
 * windows as companions (sampler_companion.c). Whether its groups really
 * hold them (not in a recording made before, nor when the kernel rotates
 * without them) is for wset_find_or_add to find. */
static int host_pmu(const struct model *m, const struct metric_def *md)
{
	int host = -1;
	bool companions = false;
	for (int k = 0; k < md->nevents; k++) {
		int p = m->events[md->events[k]].pmu;
		if (pmu_counts_always(&m->pmus[p])) {
			companions = true;
			continue;
		}
		if (host >= 0 && host != p)
			return -1;
		host = p;
	}
	if (host < 0)
		return companions ? m->events[md->events[0]].pmu : -1;
	if (!companions)
		return host;
	/* Counter events beside companions: only a per-CPU core PMU has them. */
	for (int k = 0; k < md->nevents; k++)
		if (!event_fits_group(m, host, md->events[k]))
			return -1;
	return host;
}

/* Whether a row that -C left partial can show metric md: a core, CCX or
 * socket row stands for the whole unit, so any count of per-CPU PMUs
 * there would be only the selected CPUs' share under the unit's name; the
 * system row stands for the selection itself, and only counts of per-CPU
 * PMUs beside counts of a PMU that covers a whole CCX or socket (L3,
 * memory controller) do not belong together there. */
static bool partial_ok(const struct model *m, const struct metric_def *md, int sc)
{
	bool thread = false, wide = false;
	for (int k = 0; k < md->nevents; k++) {
		if (m->pmus[m->events[md->events[k]].pmu].scope == SCOPE_THREAD)
			thread = true;
		else
			wide = true;
	}
	return sc == SNAP_SYSTEM ? !(thread && wide) : !thread;
}

static void plan_cache_done(struct derive_cache *c);

/* Per planned metric, what the metric loop needs that does not change
 * while the plan stands: its window set (one whose events share a group),
 * its formula compiled for every scope it applies at, each variable's
 * index among the set's events, whether it is a count (published per
 * second). */
static void build_metrics(struct derive_plan_part *pp, const struct derive_input *in, const struct gsum *gs)
{
	const struct model *m = in->model;
	const struct sched_plan *plan = in->plan;
	pp->dm = xcalloc((size_t)plan->nmetrics + 1, sizeof(*pp->dm));
	pp->fspace = 1;
	for (int i = 0; i < plan->nmetrics; i++) {
		int mi = plan->metrics[i];
		const struct metric_def *md = &m->metrics[mi];
		struct derive_metric *d = &pp->dm[pp->ndm++];
		d->mi = mi;
		/* No formula, or a figure shared out by task (it exists per
		 * task only): at no scope. */
		d->scope = md->expr && md->split < 0 ? (int)md->scope : SNAP_NSCOPES;
		int host = md->nevents > 0 ? host_pmu(m, md) : -1;
		d->set = host >= 0 ? wset_find_or_add(pp->wl, in, gs, host, md->events, md->nevents) : -1;
		d->count = format_unit_is_count(md->unit);
		for (int sc = 0; sc < SNAP_NSCOPES; sc++)
			d->partial_ok[sc] = partial_ok(m, md, sc);
		for (int sc = d->scope; sc < SNAP_NSCOPES; sc++) {
			struct formula *f = formula_compile(m, mi, sc);
			d->prog[sc] = f;
			if (!f)
				continue;
			int n = d->nvars[sc] = formula_nvars(f);
			if (formula_work(f) > pp->fspace)
				pp->fspace = formula_work(f);
			if (d->set < 0)
				continue;
			const struct wset *ws = &pp->wl->v[d->set];
			d->vk[sc] = xmalloc(sizeof(int) * ((size_t)n + 1));
			for (int k = 0; k < n; k++)
				d->vk[sc][k] = wset_event(ws, formula_vars(f)[k]);
			if (ws->ng != 1)
				continue;
			d->gp[sc] = xmalloc(sizeof(int) * ((size_t)n + 1));
			for (int k = 0; k < n; k++) {
				int vk = d->vk[sc][k];
				d->gp[sc][k] = vk < 0 ? -1 : ws->pos[vk];
				d->held[sc] |= vk >= 0;
			}
		}
	}
	/* Per scope, the metrics that have a program there, in plan order. */
	for (int sc = 0; sc < SNAP_NSCOPES; sc++) {
		pp->mlist[sc] = xmalloc(sizeof(int) * ((size_t)pp->ndm + 1));
		pp->nmlist[sc] = 0;
		for (int i = 0; i < pp->ndm; i++)
			if (pp->dm[i].scope <= sc && pp->dm[i].prog[sc])
				pp->mlist[sc][pp->nmlist[sc]++] = i;
	}
}

/* Step 3, the group sums: each counted group's figures summed per row. */
static void step_group_sums(struct derive_work *w, const struct derive_input *in)
{
	const struct sched_plan *plan = in->plan;
	/* Not zeroed: gsum_fill zeroes each group it fills, and nothing
	 * reads the others (a group of a PMU that is not there, or that did
	 * not count this interval, is in no window set, and every loop over
	 * the plan's groups asks gpmu first). At 2 CPUs of a VM without a
	 * PMU, zeroing the groups that do not count was 18 of the batch
	 * interval's 1,249 cold lines (bench/footprint.py). */
	w->gs = WORK_ARRAY(w, plan->ngroups, struct gsum);
	w->any_edge = false;
	for (int g = 0; g < plan->ngroups; g++)
		if (in->pmus[plan->groups[g].pmu].available && in->groups[g].iv) {
			gsum_fill(&w->gs[g], in, g, &w->irows[plan->groups[g].pmu], w->nrows, &w->ar);
			gsum_fill_edges(&w->gs[g], in, g, &w->irows[plan->groups[g].pmu], w->nrows, &w->ar);
			w->any_edge |= w->gs[g].pval[0] != NULL || w->gs[g].tval[0] != NULL;
		}
	/* Each PMU's round under pmctop's rotation: its counting groups, a
	 * slot each, the slot the smallest lead among them (the group after
	 * the one that began the interval); not known where a lead is not
	 * (a replay of a recording without them). */
	int npm = in->model->npmus;
	int *ng = WORK_ZARRAY(w, npm, int);
	double *slot = WORK_ARRAY(w, npm, double);
	for (int p = 0; p < npm; p++)
		slot[p] = 2;
	for (int g = 0; g < plan->ngroups; g++) {
		int p = plan->groups[g].pmu;
		double l = in->groups[g].lead;
		if (!in->pmus[p].available || !in->groups[g].iv)
			continue;
		ng[p]++;
		if (isnan(l))
			slot[p] = NAN;
		else if (l > 0 && l < slot[p])
			slot[p] = l;
	}
	for (int g = 0; g < plan->ngroups; g++) {
		int p = plan->groups[g].pmu;
		if (in->pmus[p].available && in->groups[g].iv)
			w->gs[g].period = ng[p] >= 2 && slot[p] < 2 ? ng[p] * slot[p] : 0;
	}
}

/* Step 4, the plan's part: window sets (one per metric whose events share
 * a group, one per planned event: all of its groups, the time-weighted
 * figure of the event alone) and each metric's compiled formulas, worked
 * out again only when the plan changes; then this interval's samples per
 * set, and room for the steps after. Which metrics and events get a
 * column is the live list's (derive_live_get). */
static void step_plan(struct derive_work *w, struct derive_cache *dc, const struct derive_input *in)
{
	const struct model *m = in->model;
	const struct sched_plan *plan = in->plan;
	bool rebuild = dc->plan_gen == 0 || dc->plan_gen != in->plan_gen || !dc->pp;
	if (rebuild) {
		/* The sampler gives every planned event a column on its PMU, so
		 * an event is counted when it is planned and its PMU opened. */
		bool *eplanned = WORK_ZARRAY(w, m->nevents, bool);
		for (int e = 0; e < m->nevents; e++)
			eplanned[e] = plan->event_used[e] && in->pmus[m->events[e].pmu].available;
		plan_cache_done(dc);
		dc->plan_gen = in->plan_gen ? in->plan_gen : 1;
		struct derive_plan_part *pp = dc->pp = xcalloc(1, sizeof(*dc->pp));
		atomic_init(&pp->refs, 1);
		pp->wl = xcalloc(1, sizeof(*pp->wl));
		build_metrics(pp, in, w->gs);
		pp->ev_set = xmalloc(sizeof(int) * ((size_t)m->nevents + 1));
		for (int e = 0; e < m->nevents; e++)
			pp->ev_set[e] = eplanned[e] ? wset_find_or_add(pp->wl, in, w->gs, m->events[e].pmu, &e, 1) : -1;
		pp->set_metric = xcalloc((size_t)pp->wl->n + 1, sizeof(bool));
		pp->pooled_ev = xcalloc((size_t)m->nevents + 1, sizeof(bool));
		for (int i = 0; i < pp->ndm; i++) {
			if (pp->dm[i].set >= 0) {
				pp->set_metric[pp->dm[i].set] = true;
				continue;
			}
			const struct metric_def *md = &m->metrics[pp->dm[i].mi];
			for (int k = 0; k < md->nevents; k++)
				pp->pooled_ev[md->events[k]] = true;
		}
		pp->cand = xmalloc(sizeof(int) * ((size_t)m->nevents + 1));
		for (int e = 0; e < m->nevents; e++)
			if (plan->event_used[e] || pp->ev_set[e] >= 0)
				pp->cand[pp->ncand++] = e;
		pp->mset = xmalloc(sizeof(int) * ((size_t)m->nmetrics + 1));
		for (int i = 0; i < m->nmetrics; i++)
			pp->mset[i] = -1;
		for (int i = 0; i < pp->ndm; i++)
			pp->mset[pp->dm[i].mi] = pp->dm[i].set;
	}
	/* The interval's buffers hold the plan's part they read. */
	struct derive_plan_part *pp = w->pp = dc->pp;
	atomic_fetch_add_explicit(&pp->refs, 1, memory_order_relaxed);
	/* The sets as this interval has them: their sample counts are the
	 * interval's own (the plan's part is shared with intervals whose
	 * errors are still read). */
	w->wl = *pp->wl;
	w->wl.v = WORK_ARRAY(w, pp->wl->n, struct wset);
	if (pp->wl->n > 0)
		memcpy(w->wl.v, pp->wl->v, sizeof(struct wset) * (size_t)pp->wl->n);
	struct wset_list *wl = &w->wl;
	/* Buckets per group follow the interval's length: count the samples. */
	for (int k = 0; k < wl->n; k++) {
		wl->v[k].ns = 0;
		for (int j = 0; j < wl->v[k].ng; j++)
			wl->v[k].ns += w->gs[wl->v[k].g[j]].nb ? w->gs[wl->v[k].g[j]].nb : 1;
		/* And whether their windows are a chain in time order. */
		wset_time_order(&wl->v[k], w->gs, WORK_ARRAY(w, wl->v[k].ng, int));
	}
	/* Scratch: a weight and a linearised value per sample, and a value
	 * per edge window (two per group). */
	size_t nscratch = 1;
	for (int k = 0; k < wl->n; k++) {
		size_t need = (size_t)wl->v[k].ns + wset_room(&wl->v[k]);
		if (need > nscratch)
			nscratch = need;
	}
	w->scratch = WORK_ARRAY(w, nscratch, double);
	w->fspace = WORK_ARRAY(w, pp->fspace, double);
	w->pmu_here = WORK_ZARRAY(w, m->npmus, bool);
	w->doubt = WORK_ARRAY(w, wl->n, double);
	w->floor = WORK_ZARRAY(w, wl->n, double);
	w->gburst = WORK_ARRAY(w, plan->ngroups, double);
	w->gburst_low = WORK_ARRAY(w, plan->ngroups, double);
	w->gedge = WORK_ZARRAY(w, plan->ngroups, signed char);
	w->vouched = WORK_ARRAY(w, wl->n, bool);
	w->pburst1 = WORK_ARRAY(w, 2 * m->npmus, double);
	w->pburst2 = WORK_ARRAY(w, 2 * m->npmus, double);
	w->pburst_g1 = WORK_ARRAY(w, 2 * m->npmus, int);
	w->pburst_g2 = WORK_ARRAY(w, 2 * m->npmus, int);
	w->gpmu = WORK_ARRAY(w, plan->ngroups, int);
	w->ngroups = plan->ngroups;
	for (int g = 0; g < plan->ngroups; g++)
		w->gpmu[g] = in->pmus[plan->groups[g].pmu].available && in->groups[g].iv ? plan->groups[g].pmu : -1;
	/* gsum_burst's figure is 0 in every row of a group of fewer buckets
	 * than an error needs (at 384 CPUs, every group of the core PMU's
	 * twenty, each run once an interval). */
	w->bgroups = WORK_ARRAY(w, plan->ngroups, int);
	w->nbgroups = 0;
	for (int g = 0; g < plan->ngroups; g++) {
		w->gburst[g] = w->gburst_low[g] = 0;
		if (w->gpmu[g] >= 0 && w->gs[g].nb >= UNC_MIN_SAMPLES && w->measured_s * 1e9 > 0)
			w->bgroups[w->nbgroups++] = g;
	}
	/* Room for each set's samples in a row (those with two or more). */
	w->smp = WORK_ZARRAY(w, wl->n, struct wsamples);
	size_t nsmp = 1, nsval = 1;
	for (int k = 0; k < wl->n; k++) {
		nsmp += wset_room(&wl->v[k]);
		nsval += (size_t)wl->v[k].nev;
	}
	const double **smp_v = WORK_ARRAY(w, nsmp, const double *);
	const int **smp_pos = WORK_ARRAY(w, nsmp, const int *);
	double *smp_wt = WORK_ARRAY(w, nsmp, double);
	double *smp_val = WORK_ARRAY(w, nsval, double);
	int *smp_rnd = WORK_ARRAY(w, nsmp, int);
	for (size_t k = 0, at = 0, atv = 0; k < (size_t)wl->n; atv += (size_t)wl->v[k].nev, at += wset_room(&wl->v[k]), k++) {
		w->smp[k].v = smp_v + at;
		w->smp[k].pos = smp_pos + at;
		w->smp[k].wt = smp_wt + at;
		w->smp[k].val = smp_val + atv;
		w->smp[k].rnd = smp_rnd + at;
	}
}

/* Whether row r of scope sc has its errors found now (derive_input.want). */
static bool row_wanted(const struct derive_want *want, int sc, int r)
{
	return !want || want->all[sc] || (want->rows[sc] && r < want->nrows[sc] && want->rows[sc][r]);
}

/* Event column c of row r of scope sc with no figure. */
static inline void event_unknown(struct snapshot *snap, int sc, int r, int c)
{
	struct snap_row *row = &snap->rows[sc][r];
	row->ev[c] = row->ecov[c] = row->erse[c] = NAN;
}

/* An event of one group's counts in row's column c, with no error to
 * find: its value v, its coverage (0 where v is not a number) and its
 * error, exact where it was counted throughout, else not known. */
static inline void event_in_place(struct snap_row *row, int c, double v, double gcov)
{
	double cov = isnan(v) ? 0 : gcov;
	row->ev[c] = v;
	row->ecov[c] = cov;
	row->erse[c] = cov >= UNC_FULLY_COVERED ? 0 : NAN;
}

/* Event e's figure and coverage in row r of scope sc, from its window
 * set ws (its k-th event), in column c, and its error where it is exact
 * (else not known: prep_row finds it where it is found); NaN where the
 * row has none of its PMU, or -C left a per-CPU event's row partial. */
static void event_in_row(const struct derive_work *w, struct snap_row *row, const struct wset *ws, int k, int c,
			 bool thread, int sc, int r)
{
	const int *nin = w->irows[ws->pmu].nin[sc];
	if (!nin || nin[r] <= 0 || (thread && sc != SNAP_SYSTEM && w->partial[sc][r])) {
		row->ev[c] = row->ecov[c] = row->erse[c] = NAN;
		return;
	}
	const struct gsum *gs = w->gs;
	double v, cov, rse = NAN;
	if (ws->ng == 1) {
		const struct gsum *g1 = &gs[ws->g[0]];
		v = g1->val[sc][(size_t)r * (size_t)g1->nev + (size_t)ws->pos[k]];
		cov = g1->cov[sc][r];
	} else {
		cov = wset_value1(ws, gs, sc, r, k, &v);
	}
	if (isnan(v))
		cov = 0;
	else if (cov >= UNC_FULLY_COVERED)
		rse = 0;
	row->ev[c] = v;
	row->ecov[c] = cov;
	row->erse[c] = rse;
}

/* The events of window set ws of several groups that find no error
 * (ev[0..n-1], their places k[] in the set and columns c[]), in every row:
 * what event_in_row gives each, the groups that ran in a row and their
 * coverage found once for them all, each value their weighted mean as
 * wset_value1 takes it (the same sums in the same order: the same bits).
 * At 384 CPUs such events were a tenth of the derivation, each of them
 * going through the set's groups again in every row. */
static void set_events_in_rows(struct derive_work *w, const struct wset *ws, const int *k, const int *c, int n,
			       bool thread, struct snapshot *snap)
{
	const struct gsum *gs = w->gs;
	int ng = ws->ng;
	double *wts = WORK_ARRAY(w, ng, double);
	const double **gv = WORK_ARRAY(w, ng, const double *);
	const int **gpos = WORK_ARRAY(w, ng, const int *);
	for (int sc = 0; sc < SNAP_NSCOPES; sc++) {
		const int *nin = w->irows[ws->pmu].nin[sc];
		const bool *partial = w->partial[sc];
		bool drop = thread && sc != SNAP_SYSTEM;
		for (int r = 0; r < w->nrows[sc]; r++) {
			struct snap_row *row = &snap->rows[sc][r];
			if (!nin || nin[r] <= 0 || (drop && partial[r])) {
				for (int i = 0; i < n; i++)
					row->ev[c[i]] = row->ecov[c[i]] = row->erse[c[i]] = NAN;
				continue;
			}
			double sw, cov;
			int nu = wset_ran(ws, gs, sc, r, wts, gv, gpos, &sw, &cov);
			if (cov > 1)
				cov = 1;
			for (int i = 0; i < n; i++) {
				double sum = 0;
				for (int j = 0; j < nu; j++)
					sum += wts[j] * gv[j][gpos[j][k[i]]];
				double v = sw > 0 ? sum / sw : NAN, cv = isnan(v) ? 0 : cov;
				row->ev[c[i]] = v;
				row->ecov[c[i]] = cv;
				row->erse[c[i]] = !isnan(v) && cv >= UNC_FULLY_COVERED ? 0 : NAN;
			}
		}
	}
}

/* Step 6, the events: each planned event's figure, coverage and
 * uncertainty in every row. A per-CPU event has none in a core, CCX or
 * socket row that -C left partial. Every event cell of every row is
 * written here, NaN where there is no figure: the skeleton leaves them
 * unset (snapshot_new_cols), which saved a tenth of the derivation. An
 * event's error is found only in the rows whose errors are found now
 * (want), by prep_row; the events are the live list's (live_events). */
static void step_events(struct derive_work *w, const struct derive_live *l, const struct derive_input *in,
			struct snapshot *snap)
{
	const struct gsum *gs = w->gs;
	w->err_ev = l->err_ev;
	w->nerr_ev = l->nerr_ev;
	w->ev_err_at = l->ev_err_at;
	w->ev_err_c = l->ev_err_c;
	w->ev_err_k = l->ev_err_k;
	/* Per PMU and scope, whether every row has a live instance of it
	 * (clean, kept with the instance rows), and per scope whether -C
	 * left any row partial. */
	const bool *clean = w->clean;
	bool partial_any[SNAP_NSCOPES];
	for (int sc = 0; sc < SNAP_NSCOPES; sc++) {
		partial_any[sc] = false;
		for (int r = 0; r < w->nrows[sc] && in->cpu_filter && !partial_any[sc]; r++)
			partial_any[sc] = w->partial[sc][r];
	}
	for (const struct levent *le = l->ev, *lend = le + l->nev; le < lend; le++) {
		int c = le->c;
		if (le->set < 0) {
			for (int sc = 0; sc < SNAP_NSCOPES; sc++)
				for (int r = 0; r < w->nrows[sc]; r++)
					event_unknown(snap, sc, r, c);
			continue;
		}
		const struct wset *ws = &w->wl.v[le->set];
		int k = le->k;
		bool thread = le->thread, err = le->err;
		for (int sc = 0; sc < SNAP_NSCOPES; sc++) {
			const int *nin = w->irows[ws->pmu].nin[sc];
			const bool *partial = w->partial[sc];
			bool drop = thread && sc != SNAP_SYSTEM;
			if (nin && ws->ng == 1 && !err) {
				/* Most events: one group's counts in place and no
				 * error to find; what event_in_row gives. */
				const struct gsum *g1 = &gs[ws->g[0]];
				const double *gval = g1->val[sc] + ws->pos[k], *gcov = g1->cov[sc];
				size_t gnev = (size_t)g1->nev;
				if (clean[(size_t)ws->pmu * SNAP_NSCOPES + (size_t)sc] && !(drop && partial_any[sc])) {
					/* Every row has a figure (nearly always): no
					 * row to test. */
					for (int r = 0; r < w->nrows[sc]; r++) {
						event_in_place(&snap->rows[sc][r], c, gval[(size_t)r * gnev], gcov[r]);
					}
					continue;
				}
				for (int r = 0; r < w->nrows[sc]; r++) {
					if (nin[r] <= 0 || (drop && partial[r])) {
						event_unknown(snap, sc, r, c);
						continue;
					}
					event_in_place(&snap->rows[sc][r], c, gval[(size_t)r * gnev], gcov[r]);
				}
				continue;
			}
			for (int r = 0; r < w->nrows[sc]; r++)
				event_in_row(w, &snap->rows[sc][r], ws, k, c, thread, sc, r);
		}
	}
	for (int s = 0; s < w->wl.n; s++)
		if (l->sn[s] > 0)
			set_events_in_rows(w, &w->wl.v[s], l->sk + l->sat[s], l->sevc + l->sat[s], l->sn[s],
					   in->model->pmus[w->wl.v[s].pmu].scope == SCOPE_THREAD, snap);
}

/* The metric tasks of this interval: the live list's, given the group
 * sums' arrays, a primed work space and dv where it follows the
 * interval; and the columns' lists that the rows' steps read. */
static void step_columns(struct derive_work *w, const struct derive_live *l, const struct derive_input *in)
{
	for (int sc = 0; sc < SNAP_NSCOPES; sc++) {
		w->nms[sc] = l->nms[sc];
		w->nmt[sc] = l->nmt[sc];
		w->mt_any[sc] = l->mt_any[sc];
		w->ms[sc] = WORK_ARRAY(w, l->nms[sc], struct mtask);
		w->mt[sc] = WORK_ARRAY(w, l->nmt[sc], struct mtask);
		if (l->nms[sc])
			memcpy(w->ms[sc], l->ms[sc], sizeof(struct mtask) * (size_t)l->nms[sc]);
		if (l->nmt[sc])
			memcpy(w->mt[sc], l->mt[sc], sizeof(struct mtask) * (size_t)l->nmt[sc]);
		for (struct mtask *t = w->ms[sc], *end = t + w->nms[sc]; t < end; t++) {
			const struct gsum *g = &w->gs[w->wl.v[t->set].g[0]];
			t->gval = g->val[sc];
			t->gcov = g->cov[sc];
			t->gnev = g->nev;
		}
		for (struct mtask *t = w->mt[sc], *end = t + w->nmt[sc]; t < end; t++) {
			if (t->set < 0) {
				if (t->dv_ivl) {
					for (int k = 0; k < t->n; k++)
						w->fspace[k] = NAN;
					t->dv = formula_eval(t->fp, in->measured_s, w->fspace);
				}
				continue;
			}
			/* Its own work space, whose constants and interval stay
			 * for every row (formula_prime). */
			t->work = WORK_ARRAY(w, formula_work(t->fp), double);
			formula_prime(t->fp, in->measured_s, t->work);
			if (t->one) {
				const struct gsum *g = &w->gs[w->wl.v[t->set].g[0]];
				t->gval = g->val[sc];
				t->gcov = g->cov[sc];
				t->gnev = g->nev;
			}
		}
	}
	int maxrows = 1;
	for (int sc = 0; sc < SNAP_NSCOPES; sc++)
		if (w->nrows[sc] > maxrows)
			maxrows = w->nrows[sc];
	w->rlist = WORK_ARRAY(w, maxrows, int);
	w->rwork = WORK_ARRAY(w, (size_t)w->pp->fspace * (size_t)maxrows, double);
	w->scol_at = l->scol_at;
	w->scol = l->scol;
	w->dcol = l->dcol;
	for (int k = 0; k < w->wl.n; k++)
		w->smp[k].need = l->need[k];
	for (int sc = 0; sc < SNAP_NSCOPES; sc++) {
		w->prep[sc] = l->prep[sc];
		w->nprep[sc] = l->nprep[sc];
	}
	/* Room for the tree parts' floors in every row. */
	w->tidx = l->tidx;
	w->tcol = l->tcol;
	w->ntcols = l->ntcols;
	w->tf_one = false;
	for (int sc = 0; sc < SNAP_NSCOPES; sc++)
		w->tfloor[sc] = w->ntcols ? WORK_ARRAY(w, (size_t)w->nrows[sc] * (size_t)w->ntcols + 1, double) : NULL;
}

/* What a figure's stated error must at least be, as a share of it, for
 * the row's bursts (burst_floor): a miss of BURST_FLOOR_K x the burst is
 * one standard error. */
#define BURST_FLOOR_K 2.0
/* The same for a set that no event counted throughout vouches for
 * (burst_floor): nothing else widens its errors when its windows stood
 * apart from the interval (window_doubt has no yardstick), so a burst
 * weighs more (measured: docs/uncertainty.md, "The tail"). */
#define BURST_FLOOR_K_UNVOUCHED 3.0

/* Burst b of group g of PMU p into the PMU's two largest (b1 > b2, their
 * groups g1 and g2; above 0, NaN never counts). */
static inline void keep_top2(double b, int g, int p, double *b1, double *b2, int *g1, int *g2)
{
	if (!(b > b2[p]))
		return;
	if (b > b1[p]) {
		b2[p] = b1[p];
		g2[p] = g1[p];
		b1[p] = b;
		g1[p] = g;
	} else {
		b2[p] = b;
		g2[p] = g;
	}
}

/* The largest burst b[g] of a group of set ws's PMU that is not one of
 * its own: the PMU's largest unless that group is its own, else the
 * second unless that is its own too, else a walk over the plan's groups
 * (without going through every group of the plan for every set: at 384
 * CPUs that loop was a twentieth of pmctop's interval). */
static double others_burst(const struct derive_work *w, const struct wset *ws, const double *b, double b1, double b2,
			   int g1, int g2)
{
	bool own1 = false, own2 = false;
	for (int j = 0; j < ws->ng; j++) {
		own1 |= ws->g[j] == g1;
		own2 |= ws->g[j] == g2;
	}
	if (!own1 || !own2)
		return !own1 ? b1 : b2;
	double worst = 0;
	for (int g = 0; g < w->ngroups; g++) {
		if (w->gpmu[g] != ws->pmu || !(b[g] > worst))
			continue;
		bool own = false;
		for (int j = 0; j < ws->ng && !own; j++)
			own = ws->g[j] == g;
		if (!own)
			worst = b[g];
	}
	return worst;
}

/* Each measured set's floor in row r of scope sc: the largest burst
 * (gsum_burst) of a group of its PMU that is not one of its own, times
 * BURST_FLOOR_K.
 *
 * A set's samples are its own windows: when a phase begins in the last
 * window of the interval (or ends in its first), the group that ran
 * then sees it and the others do not; their windows can all agree to a
 * fraction of a per cent while the interval's truth is twice what they
 * show (Zen 5 `l2_miss_rate` 0.064 with a stated error of 0.6 %, where
 * the interval had 0.126). Nothing in the set's own counts can tell; the
 * window of the group that saw the change can: its mix of events moved
 * by half or more against its other windows', and a set that did not
 * see that window may have missed a move of the same size. For a set
 * that no event counted throughout vouches for (vouched[set] false,
 * prep_row), moves from GSUM_BURST_MIN_UNVOUCHED on count, times
 * BURST_FLOOR_K_UNVOUCHED. Last, edge_floors. */
static void edge_floors(struct derive_work *w, int sc);

static void burst_floor(struct derive_work *w, int sc, int r)
{
	const int *list = w->prep[sc], n = w->nprep[sc];
	double T = w->measured_s * 1e9;
	if (n == 0)
		return;
	if (w->nbgroups == 0) {
		/* No group can burst: every largest burst is 0, and so is
		 * every floor (what the loops below find). */
		for (int i = 0; i < n; i++)
			w->floor[list[i]] = 0;
		edge_floors(w, sc);
		return;
	}
	/* Per PMU, its two largest bursts, and (at npmus + p) its two
	 * largest from GSUM_BURST_MIN_UNVOUCHED on, where a set that nothing
	 * vouches for is in the row (prep_row). */
	double *b1 = w->pburst1, *b2 = w->pburst2;
	int *g1 = w->pburst_g1, *g2 = w->pburst_g2, npmus = w->model->npmus;
	bool low = false;
	for (int i = 0; i < n && !low; i++)
		low = !w->vouched[list[i]];
	for (int p = 0; p < 2 * npmus; p++) {
		b1[p] = b2[p] = 0;
		g1[p] = g2[p] = -1;
	}
	/* A group not listed has bursts of 0 (step_plan), which are never
	 * above b2. */
	for (int i = 0; i < w->nbgroups; i++) {
		int g = w->bgroups[i], p = w->gpmu[g];
		double lb = 0;
		double b = w->gburst[g] = w->pmu_here[p] ? gsum_bursts(&w->gs[g], sc, r, T, low ? &lb : NULL) : 0;
		w->gburst_low[g] = lb;
		keep_top2(b, g, p, b1, b2, g1, g2);
		keep_top2(lb, g, npmus + p, b1, b2, g1, g2);
	}
	for (int i = 0; i < n; i++) {
		const struct wset *ws = &w->wl.v[list[i]];
		int q = ws->pmu + (w->vouched[list[i]] ? 0 : npmus);
		const double *gb = w->vouched[list[i]] ? w->gburst : w->gburst_low;
		double k = w->vouched[list[i]] ? BURST_FLOOR_K : BURST_FLOOR_K_UNVOUCHED;
		w->floor[list[i]] = k * others_burst(w, ws, gb, b1[q], b2[q], g1[q], g2[q]);
	}
	edge_floors(w, sc);
}

/* A set one of whose groups missed a change of its rates at the
 * interval's start or end (gsum_edges, in w->gedge) gets an infinite
 * floor: its errors are not known (floored), as those of a set whose
 * windows missed a burst they cannot size. */
static void edge_floors(struct derive_work *w, int sc)
{
	if (!w->any_edge)
		return;
	const int *list = w->prep[sc], n = w->nprep[sc];
	for (int i = 0; i < n; i++) {
		const struct wset *ws = &w->wl.v[list[i]];
		for (int j = 0; j < ws->ng; j++)
			if (w->gedge[ws->g[j]] == EDGE_JUMPED) {
				w->floor[list[i]] = INFINITY;
				break;
			}
	}
}

/* rse raised to the floor f where it states an error (not exact, not
 * unknown); where the floor is more than BURST_UNKNOWN times what the
 * figure's own windows say, the error is not known at all: the figure's
 * windows missed a change that they cannot size. */
#define BURST_UNKNOWN 3.0
static inline double floored(double rse, double f)
{
	if (!(rse > 0) || !(rse < f))
		return rse;
	return f > BURST_UNKNOWN * rse ? NAN : f;
}

/* Whether set ws holds an event that the row knows over the whole
 * interval from other sets (dcol[k], window_doubt's yardstick; its
 * figure exact): pinned, on a fixed counter, or in every group of the
 * PMU. Such an event vouches for the set's windows (window_doubt widens
 * its errors by how far they stood from the interval on it); a set with
 * none has only the burst floor, from lower moves (burst_floor). */
static bool set_vouched(const struct wset *ws, const int *dcol, const struct snap_row *row)
{
	for (int k = 0; k < ws->nev; k++)
		if (dcol[k] >= 0 && row->ecov[dcol[k]] >= UNC_FULLY_COVERED)
			return true;
	return false;
}

/* Row r of scope sc before its metrics: each set's samples and values
 * there (wset_samples), its doubt (window_doubt) from the row's event
 * figures before any is widened, then the events' errors widened by it.
 * A set whose PMU has nothing under the row has no samples there and a
 * doubt of 1; so has a set of too few samples for an error, whose values
 * are needed only where metrics are evaluated in it (set_metric) and
 * it has several groups (one group's are read in place). */
static void prep_row(struct derive_work *w, struct snap_row *row, int sc, int r)
{
	/* Only the scope's measured sets (w->prep); every other set's doubt
	 * is 1 for the whole interval. */
	const int *list = w->prep[sc], n = w->nprep[sc];
	for (int g = 0; g < w->ngroups && w->any_edge; g++)
		w->gedge[g] = (signed char)(w->gpmu[g] >= 0 && w->pmu_here[w->gpmu[g]] ? gsum_edges(&w->gs[g], sc, r) : 0);
	for (int i = 0; i < n; i++) {
		int k = list[i];
		const struct wset *ws = &w->wl.v[k];
		w->doubt[k] = 1;
		w->vouched[k] = true;
		if (!w->pmu_here[ws->pmu])
			continue;
		w->vouched[k] = set_vouched(ws, w->dcol[k], row);
		wset_samples(ws, w->gs, sc, r, w->any_edge, &w->smp[k]);
		/* The errors of the events that the set gives and whose error
		 * is found (step_events left them): what event_in_row finds. */
		for (int j = w->ev_err_at[k]; j < w->ev_err_at[k + 1]; j++) {
			int c = w->ev_err_c[j];
			double v = row->ev[c], cov = row->ecov[c];
			if (isnan(v) || cov >= UNC_FULLY_COVERED)
				continue;   /* no figure, or exact: as event_in_row left it */
			const double one = 1;
			double se = wsamples_se(&w->smp[k], &w->ev_err_k[j], &one, 1, cov, w->scratch);
			row->erse[c] = se == 0 ? 0 : se / fabs(v);
		}
		w->doubt[k] = window_doubt(ws, w->dcol[k], w->gs, &w->smp[k], row, sc, r, w->scratch);
	}
	burst_floor(w, sc, r);
	for (int i = 0; i < n; i++) {
		int k = list[i];
		double f = w->doubt[k], fl = w->floor[k];
		if (f == 1 && fl == 0)
			continue;   /* nothing to widen */
		for (int j = w->scol_at[k]; j < w->scol_at[k + 1]; j++)
			row->erse[w->scol[j]] = floored(row->erse[w->scol[j]] * f, fl);
	}
}

/* Value v of metric task t (one of w->ms) into row r of scope sc, with
 * its coverage, and an error of 0 where counted all the time, else not
 * known: what step_simple_metrics and row_simple_metrics both write. */
static inline void put_simple(const struct derive_work *w, const struct mtask *t, struct snap_row *row, int sc, int r,
			      double v, bool per_s)
{
	double cov = t->gcov[r];
	if (!t->held || isnan(cov))
		cov = wset_cov(&w->wl.v[t->set], w->gs, sc, r);
	int col = t->col;
	row->mrse[col] = !isnan(v) && cov >= UNC_FULLY_COVERED ? 0 : NAN;
	row->mv[col] = per_s ? v / w->measured_s : v;
	row->mcov[col] = cov;
}

/* Whether metric task t's figures are published per second (put_simple):
 * once per metric, not per row. */
static inline bool simple_per_s(const struct derive_work *w, const struct mtask *t)
{
	return t->count && w->measured_s > 0;
}

/* The metrics of scope sc that read nothing but one group's counts in
 * each row and can state no error there (w->ms: a set of one group with
 * too few samples, whose doubt is 1): metric by metric, row by row, so
 * that what a metric reads is found once. Each row gets what
 * step_metrics' loop would give it. */
static void step_simple_metrics(struct derive_work *w, struct snapshot *snap, int sc, double measured_s)
{
	const bool *partial = w->partial[sc];
	int nrows = w->nrows[sc], *rl = w->rlist;
	/* The rows depend on the metric's PMU and partial_ok alone: those of
	 * the metric before are kept for the next of the same. */
	int nr = 0, rl_pmu = -1;
	bool rl_pok = false;
	for (const struct mtask *t = w->ms[sc], *end = t + w->nms[sc]; t < end; t++) {
		const int *nin = w->irows[t->pmu].nin[sc];
		if (!nin)
			continue;   /* none of the metric's PMU under any row */
		if (t->pmu != rl_pmu || t->partial_ok != rl_pok) {
			nr = 0;
			for (int r = 0; r < nrows; r++)
				if (nin[r] > 0 && !(partial[r] && !t->partial_ok))
					rl[nr++] = r;
			rl_pmu = t->pmu;
			rl_pok = t->partial_ok;
		}
		if (nr == 0)
			continue;
		/* Each variable's column over the rows, then the program over
		 * all of them (formula_run_rows); over every row of the scope
		 * (nearly always), the program reads the group's counts where
		 * they lie (formula_run_rows_at). */
		const int *idx = t->idx;
		size_t gnev = (size_t)t->gnev;
		double *work = w->rwork;
		for (int k = 0; k < t->n && nr < nrows; k++) {
			double *col = work + (size_t)k * (size_t)nr;
			if (idx[k] < 0) {
				for (int j = 0; j < nr; j++)
					col[j] = NAN;
			} else {
				const double *gv = t->gval + idx[k];
				for (int j = 0; j < nr; j++)
					col[j] = gv[(size_t)rl[j] * gnev];
			}
		}
		const double *val = nr == nrows ? formula_run_rows_at(t->fp, measured_s, t->gval, idx, gnev, work, nr)
						: formula_run_rows(t->fp, measured_s, work, nr);
		/* put_simple row by row, what it reads of the task held in
		 * locals: the compiler cannot keep them across the rows' stores
		 * itself. */
		struct snap_row *rows = snap->rows[sc];
		bool per_s = simple_per_s(w, t), held = t->held;
		const double *gcov = t->gcov;
		const struct wset *ws = &w->wl.v[t->set];
		int col = t->col;
		double ms = w->measured_s;
		for (int j = 0; j < nr; j++) {
			int r = rl[j];
			double v = val[j], cov = gcov[r];
			if (!held || isnan(cov))
				cov = wset_cov(ws, w->gs, sc, r);
			struct snap_row *row = &rows[r];
			/* The skeleton's metric cells are NaN (snapshot_new_cols):
			 * an error not known is there already. */
			if (!isnan(v) && cov >= UNC_FULLY_COVERED)
				row->mrse[col] = 0;
			row->mv[col] = per_s ? v / ms : v;
			row->mcov[col] = cov;
		}
	}
}

/* Row r of scope sc without its errors: each measured set's values
 * where it has several groups (what prep_row finds besides the samples),
 * no samples, every doubt 1. The metrics then take the path of a figure
 * with no error to find, whose value is the same to the bit. */
static void prep_values(struct derive_work *w, int sc, int r)
{
	const int *list = w->prep[sc], n = w->nprep[sc];
	for (int i = 0; i < n; i++) {
		int k = list[i];
		const struct wset *ws = &w->wl.v[k];
		w->doubt[k] = 1;
		w->floor[k] = 0;
		w->smp[k].n = 0;
		if (ws->ng >= 2 && w->pmu_here[ws->pmu])
			wset_values(ws, w->gs, sc, r, &w->smp[k]);
	}
}

/* The burst floors of the tree parts' figures in row r of scope sc
 * (derive_work.tfloor), or NULL where no tree is planned. */
static double *row_tfloor(const struct derive_work *w, int sc, int r)
{
	if (!w->tfloor[sc])
		return NULL;
	return w->tfloor[sc] + (w->tf_one ? 0 : (size_t)r * (size_t)w->ntcols);
}

/* Each tree part's error in row r of scope sc held to the burst floor
 * its window set (or, for a metric of none, its events' sets) took in
 * row_metrics. The tree replaces a part's error with one worked out from
 * its share of the family and its parent's (derive_tree.c): the share
 * cancels what the parts of one set err by together, and the family's
 * sum, observed, narrows it further. A burst that the set's windows
 * missed is not such an error: it moves the group's mix of events, the
 * family's split with it, and neither the share nor the sum can see it.
 * Without this the tree took the floor back off (Zen 5
 * `bad_speculation_mispredicts` 26 % off with a floor of 7.2 % and a
 * stated 6.2 % after the tree, plain after item 7's blend;
 * docs/uncertainty.md, "The tail"). Exact and unknown errors (a bound's)
 * stay as they are. */
HOT_PATH static void floors_after_trees(const struct derive_work *w, struct snap_row *row, int sc, int r)
{
	const double *tfl = row_tfloor(w, sc, r);
	for (int k = 0; tfl && k < w->ntcols; k++) {
		double *rse = &row->mrse[w->tcol[k]];
		/* An infinite floor (edge_floors): not known at all. */
		if (*rse > 0 && isfinite(*rse) && *rse < tfl[k])
			*rse = isinf(tfl[k]) ? NAN : tfl[k];
	}
}

/* Row r of scope sc's metrics that are read row by row (w->mt): with
 * their errors, or (errors false) their values alone, the errors left
 * for derive_row_errors. */
HOT_PATH static void row_metrics(struct derive_work *w, const struct derive_plan_part *pp, const struct snapshot *snap,
			struct snap_row *row, int sc, int r, bool errors)
{
	const struct model *m = w->model;
	const struct gsum *gs = w->gs;
	double measured_s = w->measured_s;
	bool partial = w->partial[sc][r];
	if (w->nmt[sc] == 0 && w->nprep[sc] == 0) {
		/* Nothing read row by row, no set to measure (at 2 CPUs of a
		 * VM without a PMU, every scope): what the steps below leave. */
		double *tfl = errors ? row_tfloor(w, sc, r) : NULL;
		for (int k = 0; tfl && k < w->ntcols; k++)
			tfl[k] = 0;
		row->errors_deferred = !errors && (w->mt_any[sc] || w->nerr_ev > 0);
		return;
	}
	/* Which PMUs have a live instance under the row, once. */
	for (int p = 0; p < m->npmus; p++)
		w->pmu_here[p] = row_has_pmu(&w->irows[p], sc, r);
	if (errors)
		prep_row(w, row, sc, r);
	else
		prep_values(w, sc, r);
	double *tfl = errors ? row_tfloor(w, sc, r) : NULL;
	for (int k = 0; tfl && k < w->ntcols; k++)
		tfl[k] = 0;
	struct geval c = { .m = m, .row = row, .ecol = snap->ecol, .measured_s = measured_s, .row_scope = sc,
			   .gs = gs, .smp = w->smp, .wl = &w->wl, .ev_set = pp->ev_set, .doubt = w->doubt,
			   .scratch = w->scratch, .r = r };
	for (const struct mtask *t = w->mt[sc], *mend = t + w->nmt[sc]; t < mend; t++) {
		if (partial && !t->partial_ok)
			continue;
		int set = t->set, n = t->n;
		const int *idx = t->idx;
		double v, rse, cov;
		if (set >= 0) {
			double *vars = t->work;
			if (!w->pmu_here[t->pmu])
				continue;   /* none of the metric's PMU under this row */
			const struct wsamples *sm = &w->smp[set];
			if (t->one) {
				/* One group: its values in the row, as
				 * wset_value1 reads them. */
				const double *gv = t->gval + (size_t)r * (size_t)t->gnev;
				for (int k = 0; k < n; k++)
					vars[k] = idx[k] < 0 ? NAN : gv[idx[k]];
				cov = t->gcov[r];
				if (!t->held || isnan(cov))
					cov = wset_cov(&w->wl.v[set], gs, sc, r);
			} else {
				/* Several groups: their values in the row were
				 * found once (wset_samples), and their coverage. */
				for (int k = 0; k < n; k++)
					vars[k] = idx[k] < 0 ? NAN : sm->val[idx[k]];
				cov = sm->cov;
			}
			if (!errors || sm->n < UNC_MIN_SAMPLES || cov >= UNC_FULLY_COVERED) {
				/* No error to find (metric_in_set's first case). */
				v = formula_run(t->fp, vars);
				rse = cov >= UNC_FULLY_COVERED && !isnan(v) ? 0 : NAN;
			} else {
				c.ws = &w->wl.v[set];
				c.set = set;
				c.prog = t->fp;
				c.fvars = vars;
				v = metric_in_set(&c, t->mi, cov, w->scratch, &rse);
			}
			rse = floored(rse * w->doubt[set], w->floor[set]);
			if (tfl && w->tidx[t->col] >= 0)
				tfl[w->tidx[t->col]] = w->floor[set];
		} else if (t->dead) {
			/* What metric_pooled and the coverage below give it. */
			v = t->dv;
			rse = NAN;
			cov = 0;
		} else {
			c.prog = t->fp;
			c.fvars = w->fspace;
			v = metric_pooled(&c, t->mi, errors, &rse);
			const struct metric_def *md = &m->metrics[t->mi];
			cov = 1;
			for (int k = 0; k < md->nevents; k++) {
				double ec = row_ev(row->ecov, snap->ecol, md->events[k]);
				if (!(ec >= 0))
					ec = 0;
				if (ec < cov)
					cov = ec;
				int s = pp->ev_set[md->events[k]];
				if (errors && s >= 0)
					rse = floored(rse, w->floor[s]);
				if (tfl && s >= 0 && w->tidx[t->col] >= 0 && w->floor[s] > tfl[w->tidx[t->col]])
					tfl[w->tidx[t->col]] = w->floor[s];
			}
		}
		/* One unit per figure: counts are published per second, so no
		 * figure changes with -d. */
		if (t->count && measured_s > 0)
			v /= measured_s;
		row->mv[t->col] = v;
		row->mrse[t->col] = isnan(v) ? NAN : rse;
		row->mcov[t->col] = cov;
	}
	/* Something of the row is left to find: a metric's error, or an
	 * event's (found, or widened by a set's doubt). */
	row->errors_deferred = !errors && (w->mt_any[sc] || w->nprep[sc] > 0 || w->nerr_ev > 0);
}

/* Step 7, the metrics: in their window set where they have one, else
 * from the pooled event figures of each row. What does not change from
 * row to row was worked out once per plan (struct derive_metric, the
 * metrics of each scope in pp->mlist). */
static void step_metrics(struct derive_work *w, const struct derive_plan_part *pp, const struct derive_input *in,
			 struct snapshot *snap)
{
	const struct derive_want *want = in->cache ? in->want : NULL;
	for (int sc = 0; sc < SNAP_NSCOPES; sc++) {
		step_simple_metrics(w, snap, sc, w->measured_s);
		/* prep_row sets the doubts of this scope's sets only. */
		for (int k = 0; k < w->wl.n; k++) {
			w->doubt[k] = 1;
			w->floor[k] = 0;
		}
		for (int r = 0; r < w->nrows[sc]; r++)
			row_metrics(w, pp, snap, &snap->rows[sc][r], sc, r, row_wanted(want, sc, r));
	}
}

/* The metrics of w->ms (step_simple_metrics) in row r of scope sc alone:
 * the figures that step gave the row, before bounds and trees. */
static void row_simple_metrics(struct derive_work *w, struct snap_row *row, int sc, int r)
{
	for (const struct mtask *t = w->ms[sc], *end = t + w->nms[sc]; t < end; t++) {
		const int *nin = w->irows[t->pmu].nin[sc];
		if (!nin || nin[r] <= 0 || (w->partial[sc][r] && !t->partial_ok))
			continue;
		const double *gv = t->gval + (size_t)r * (size_t)t->gnev;
		for (int k = 0; k < t->n; k++)
			w->fspace[k] = t->idx[k] < 0 ? NAN : gv[t->idx[k]];
		put_simple(w, t, row, sc, r, formula_eval(t->fp, w->measured_s, w->fspace), simple_per_s(w, t));
	}
}

/* Row r of scope sc's errors as the interval's steps find them, before
 * step_moderate draws them toward their peers': into mrse[nmcols] and
 * erse[necols]. */
static void row_errors_found(const struct derive_work *w0, const struct snapshot *snap, int sc, int r,
			     double *mrse, double *erse, size_t *asked)
{
	const struct derive_plan_part *pp = w0->pp;
	const struct snap_row *pub = &snap->rows[sc][r];
	/* The interval's buffers as they are, read only; what the steps
	 * write as they go (the row, its samples, doubts, scratch and each
	 * metric's work space) is this call's own, from its own arena, so
	 * that any number of threads can find rows at once. */
	struct derive_work w = *w0;
	memset(&w.ar, 0, sizeof(w.ar));
	/* Some thirty buffers: one block where an earlier row said how much. */
	arena_reserve(&w.ar, w0->rerr_bytes);
	const struct wset_list *wl = &w0->wl;
	size_t nscratch = 1, nsmp = 1, nsval = 1;
	for (int k = 0; k < wl->n; k++) {
		size_t need = (size_t)wl->v[k].ns + wset_room(&wl->v[k]);
		if (need > nscratch)
			nscratch = need;
		nsmp += wset_room(&wl->v[k]);
		nsval += (size_t)wl->v[k].nev;
	}
	w.scratch = WORK_ARRAY(&w, nscratch, double);
	w.fspace = WORK_ARRAY(&w, pp->fspace, double);
	w.pmu_here = WORK_ZARRAY(&w, w.model->npmus, bool);
	w.doubt = WORK_ARRAY(&w, wl->n, double);
	w.floor = WORK_ZARRAY(&w, wl->n, double);
	w.gburst = WORK_ZARRAY(&w, w0->ngroups, double);
	w.gburst_low = WORK_ZARRAY(&w, w0->ngroups, double);
	w.gedge = WORK_ZARRAY(&w, w0->ngroups, signed char);
	w.vouched = WORK_ARRAY(&w, w.wl.n, bool);
	w.pburst1 = WORK_ARRAY(&w, 2 * w.model->npmus, double);
	w.pburst2 = WORK_ARRAY(&w, 2 * w.model->npmus, double);
	w.pburst_g1 = WORK_ARRAY(&w, 2 * w.model->npmus, int);
	w.pburst_g2 = WORK_ARRAY(&w, 2 * w.model->npmus, int);
	w.smp = WORK_ZARRAY(&w, wl->n, struct wsamples);
	/* This row's tree floors alone (row_tfloor). */
	w.tf_one = true;
	for (int s = 0; s < SNAP_NSCOPES; s++)
		w.tfloor[s] = NULL;
	if (w.ntcols > 0)
		w.tfloor[sc] = WORK_ZARRAY(&w, (size_t)w.ntcols, double);
	const double **smp_v = WORK_ARRAY(&w, nsmp, const double *);
	const int **smp_pos = WORK_ARRAY(&w, nsmp, const int *);
	double *smp_wt = WORK_ARRAY(&w, nsmp, double);
	double *smp_val = WORK_ARRAY(&w, nsval, double);
	int *smp_rnd = WORK_ARRAY(&w, nsmp, int);
	for (size_t k = 0, at = 0, atv = 0; k < (size_t)wl->n; atv += (size_t)wl->v[k].nev, at += wset_room(&wl->v[k]), k++)
		w.smp[k] = (struct wsamples){ .v = smp_v + at, .pos = smp_pos + at, .wt = smp_wt + at,
					      .val = smp_val + atv, .rnd = smp_rnd + at, .need = w0->smp[k].need };
	w.mt[sc] = WORK_ARRAY(&w, w0->nmt[sc], struct mtask);
	for (int j = 0; j < w0->nmt[sc]; j++) {
		struct mtask *t = &w.mt[sc][j];
		*t = w0->mt[sc][j];
		if (!t->work)
			continue;
		t->work = WORK_ARRAY(&w, formula_work(t->fp), double);
		formula_prime(t->fp, w.measured_s, t->work);
	}
	/* The row as published (its values are final), in its own arrays. */
	size_t nm = (size_t)snap->nmcols, ne = (size_t)snap->necols;
	struct snap_row row = *pub;
	double *b = WORK_ARRAY(&w, 3 * nm + 3 * ne, double);
	row.mv = memcpy(b, pub->mv, sizeof(double) * nm);
	row.mcov = memcpy(b + nm, pub->mcov, sizeof(double) * nm);
	row.mrse = memcpy(b + 2 * nm, pub->mrse, sizeof(double) * nm);
	row.ev = memcpy(b + 3 * nm, pub->ev, sizeof(double) * ne);
	row.ecov = memcpy(b + 3 * nm + ne, pub->ecov, sizeof(double) * ne);
	row.erse = memcpy(b + 3 * nm + 2 * ne, pub->erse, sizeof(double) * ne);
	/* The row derived again with its errors, from the same sums, then
	 * bounded and reconciled as every row was: its events' errors
	 * first, which the sets' doubts then widen. */
	for (int i = 0; i < w.nerr_ev; i++) {
		int e = w.err_ev[i];
		const struct wset *ws = &w.wl.v[pp->ev_set[e]];
		bool thread = w.model->pmus[ws->pmu].scope == SCOPE_THREAD;
		event_in_row(&w, &row, ws, wset_event(ws, e), snap->ecol[e], thread, sc, r);
	}
	row_simple_metrics(&w, &row, sc, r);
	derive_live_dead_cells(w.live, &row, sc, w.partial[sc][r], true);
	for (int k = 0; k < w.wl.n; k++) {
		w.doubt[k] = 1;
		w.floor[k] = 0;
	}
	row_metrics(&w, pp, snap, &row, sc, r, true);
	/* Bounds and trees read and write row r of scope sc alone: a view of
	 * the snapshot whose scope has this one row. */
	struct snapshot view = *snap;
	view.rows[sc] = &row;
	view.nrows[sc] = 1;
	struct sched_plan plan = { .nmetrics = w.npm, .metrics = w.pm };
	bounds_apply_row(w.model, &plan, w.max_ghz, &view, sc, 0);
	tree_plan_apply_row(w.live->trees, &row);
	floors_after_trees(&w, &row, sc, r);
	if (nm)
		memcpy(mrse, row.mrse, sizeof(double) * nm);
	if (ne)
		memcpy(erse, row.erse, sizeof(double) * ne);
	if (asked)
		*asked = w.ar.asked;
	arena_free(&w.ar);
}

static void moderate_row(const struct derive_work *w, const struct snapshot *snap, int sc, int r, double *mrse,
			 double *erse);

void derive_row_errors(const struct derive_work *w0, const struct snapshot *snap, int sc, int r, double *mrse,
		       double *erse)
{
	row_errors_found(w0, snap, sc, r, mrse, erse, NULL);
	moderate_row(w0, snap, sc, r, mrse, erse);
}

/* A work space that no published snapshot reads: the cache's slot if
 * the cache alone holds it, else a new one in its place (the snapshots
 * that hold the old one free it with the last of them). */
static struct derive_work *take_work(struct derive_cache *dc, int slot)
{
	struct derive_work *w = dc->work[slot];
	if (w && atomic_load_explicit(w->refs, memory_order_acquire) == 1)
		return w;
	if (w)
		derive_work_release(w);
	w = dc->work[slot] = xcalloc(1, sizeof(*w));
	w->refs = xmalloc(sizeof(*w->refs));
	atomic_init(w->refs, 1);
	return w;
}

/* Whether row a of scope sa holds row b of a scope below it. */
static bool row_holds(const struct snap_row *a, int sa, const struct snap_row *b)
{
	switch (sa) {
	case SNAP_CORE: return a->core == b->core;
	case SNAP_CCX: return a->ccx == b->ccx;
	case SNAP_SOCKET: return a->socket == b->socket;
	case SNAP_SYSTEM: return true;
	default: return false;
	}
}

/* Row r of scope sc's errors (mrse, erse) drawn toward their peers'
 * (moderate_apply). A row of a scope too small for a median (a CCX, a
 * socket or the system of a part with one or two) has no peers, and
 * keeps its own error, but no less than the floor that the rows it holds
 * put on it (moderate_below): those of the nearest scope below where the
 * column has a median, from that scope's probe rows under row r, their
 * errors as found (perr), before they were drawn toward their peers'. */
static void moderate_row(const struct derive_work *w, const struct snapshot *snap, int sc, int r, double *mrse,
			 double *erse)
{
	int nm = snap->nmcols, ne = snap->necols;
	if (w->mod_none)
		return;   /* every median NaN: nothing below applies */
	moderate_apply_cols(mrse, w->mmed[sc], w->mscale, w->mlive[sc], w->nmlive[sc]);
	moderate_apply_cols(erse, w->emed[sc], w->escale, w->elive[sc], w->nelive[sc]);
	if (sc == SNAP_CPU || snap->nrows[sc] >= MODERATE_MIN_ROWS)
		return;
	const struct snap_row *row = &snap->rows[sc][r];
	/* Per scope below: its probes under the row, and its rows there. */
	int held[SNAP_NSCOPES][MODERATE_PROBES], nh[SNAP_NSCOPES], nin[SNAP_NSCOPES];
	for (int sb = 0; sb < sc; sb++) {
		int nb = snap->nrows[sb], np = moderate_nprobes(nb);
		nh[sb] = nin[sb] = 0;
		for (int k = 0; k < np; k++)
			if (row_holds(row, sc, &snap->rows[sb][moderate_probe(nb, k)]))
				held[sb][nh[sb]++] = k;
		for (int j = 0; j < nb; j++)
			nin[sb] += row_holds(row, sc, &snap->rows[sb][j]);
	}
	double v[MODERATE_PROBES], e[MODERATE_PROBES];
	for (int c = 0; c < nm + ne; c++) {
		bool metric = c < nm;
		int col = metric ? c : c - nm;
		double *rse = metric ? &mrse[col] : &erse[col];
		if (!(*rse > 0) || !isfinite(*rse))
			continue;   /* exact or unknown: as it is */
		for (int sb = sc - 1; sb >= 0; sb--) {
			if (isnan(metric ? w->mmed[sb][col] : w->emed[sb][col]))
				continue;
			int nb = snap->nrows[sb];
			for (int i = 0; i < nh[sb]; i++) {
				int k = held[sb][i];
				const struct snap_row *pr = &snap->rows[sb][moderate_probe(nb, k)];
				v[i] = metric ? pr->mv[col] : pr->ev[col];
				e[i] = w->perr[sb][(size_t)k * (size_t)(nm + ne) + (size_t)c];
			}
			double f = moderate_below(v, e, nh[sb], nin[sb], !metric);
			if (*rse < f)
				*rse = f;
			break;
		}
	}
}

/* Last, every stated error drawn toward its peers' (derive_moderate.h):
 * per scope and column, the median error over the scope's probe rows,
 * whose errors are found for it where an output left them for later
 * (and left so); kept for the rows whose errors are found later
 * (derive_row_errors), which then get the same, to the bit; and each
 * probe row's errors as found (perr), for the floor of the rows above
 * it (moderate_row). */
static void step_moderate(struct derive_work *w, const struct derive_input *in, struct snapshot *snap)
{
	const struct derive_want *want = in->cache ? in->want : NULL;
	int nm = snap->nmcols, ne = snap->necols;
	/* No scope with probes enough for a median (at 2 CPUs none has):
	 * every median would be NaN, which changes no error, and no row
	 * would take a floor from below (moderate_row). */
	w->mod_none = true;
	for (int sc = 0; sc < SNAP_NSCOPES; sc++)
		w->mod_none &= moderate_nprobes(snap->nrows[sc]) < MODERATE_MIN_ROWS;
	if (w->mod_none)
		return;
	double *col = WORK_ARRAY(w, MODERATE_PROBES, double);
	/* Each column's samples: its window set's, or for a metric of none
	 * the fewest of its events' sets'. */
	const struct derive_plan_part *pp = w->pp;
	w->mscale = WORK_ARRAY(w, nm, double);
	w->escale = WORK_ARRAY(w, ne, double);
	for (int c = 0; c < nm; c++)
		w->mscale[c] = moderate_scale(0);
	for (int c = 0; c < ne; c++)
		w->escale[c] = moderate_scale(0);
	for (int i = 0; i < pp->ndm; i++) {
		const struct derive_metric *d = &pp->dm[i];
		int c = snap->mcol[d->mi], m = 0;
		if (c < 0)
			continue;
		if (d->set >= 0) {
			m = w->wl.v[d->set].ns;
		} else {
			const struct metric_def *md = &w->model->metrics[d->mi];
			for (int k = 0; k < md->nevents; k++) {
				int s = pp->ev_set[md->events[k]];
				int n = s >= 0 ? w->wl.v[s].ns : 0;
				if (n >= UNC_MIN_SAMPLES && (m == 0 || n < m))
					m = n;
			}
		}
		w->mscale[c] = moderate_scale(m);
	}
	/* Only a candidate has a window set of its own (step_plan). */
	for (int i = 0; i < pp->ncand; i++) {
		int e = pp->cand[i], c = snap->ecol[e], s = pp->ev_set[e];
		if (c >= 0 && s >= 0)
			w->escale[c] = moderate_scale(w->wl.v[s].ns);
	}
	for (int sc = 0; sc < SNAP_NSCOPES; sc++) {
		int nr = snap->nrows[sc], np = moderate_nprobes(nr);
		w->mmed[sc] = WORK_ARRAY(w, nm, double);
		w->emed[sc] = WORK_ARRAY(w, ne, double);
		w->mlive[sc] = WORK_ARRAY(w, nm, int);
		w->elive[sc] = WORK_ARRAY(w, ne, int);
		w->nmlive[sc] = w->nelive[sc] = 0;
		w->perr[sc] = NULL;
		if (np < MODERATE_MIN_ROWS) {
			/* Too few rows for any column to have a typical error
			 * (moderate_median's NaN, which moderate_apply leaves
			 * be): the probes' errors are not worth finding. At 2
			 * CPUs every scope is such a one. Its rows still take
			 * the floor from the scopes below (moderate_row). */
			for (int c = 0; c < nm; c++)
				w->mmed[sc][c] = NAN;
			for (int c = 0; c < ne; c++)
				w->emed[sc][c] = NAN;
			for (int r = 0; r < nr; r++)
				if (row_wanted(want, sc, r))
					moderate_row(w, snap, sc, r, snap->rows[sc][r].mrse, snap->rows[sc][r].erse);
			continue;
		}
		double *pm = w->perr[sc] = WORK_ARRAY(w, (size_t)np * (size_t)(nm + ne), double);
		for (int k = 0; k < np; k++) {
			int r = moderate_probe(nr, k);
			double *m = pm + (size_t)k * (size_t)(nm + ne), *e = m + nm;
			const struct snap_row *row = &snap->rows[sc][r];
			if (row_wanted(want, sc, r)) {
				memcpy(m, row->mrse, sizeof(double) * (size_t)nm);
				memcpy(e, row->erse, sizeof(double) * (size_t)ne);
			} else {
				size_t asked = 0;
				row_errors_found(w, snap, sc, r, m, e, &asked);
				if (asked > w->rerr_bytes)
					w->rerr_bytes = asked;
			}
		}
		for (int c = 0; c < nm + ne; c++) {
			for (int k = 0; k < np; k++)
				col[k] = pm[(size_t)k * (size_t)(nm + ne) + (size_t)c];
			double med = moderate_median(col, np);
			if (c < nm)
				w->mmed[sc][c] = med;
			else
				w->emed[sc][c - nm] = med;
			if (isnan(med))
				continue;
			if (c < nm)
				w->mlive[sc][w->nmlive[sc]++] = c;
			else
				w->elive[sc][w->nelive[sc]++] = c - nm;
		}
		for (int r = 0; r < nr; r++) {
			if (!row_wanted(want, sc, r))
				continue;
			moderate_row(w, snap, sc, r, snap->rows[sc][r].mrse, snap->rows[sc][r].erse);
		}
	}
}

HOT_PATH struct snapshot *derive_snapshot(const struct derive_input *in)
{
	struct derive_cache local = { 0 };
	struct derive_cache *dc = in->cache ? in->cache : &local;
	/* With rows left for later, a snapshot holds its buffers: the next
	 * derivation tries the other slot first. */
	int slot = in->cache && in->want ? dc->next : 0;
	if (dc->work[slot] && dc->work[slot ^ 1] && atomic_load_explicit(dc->work[slot]->refs, memory_order_acquire) > 1)
		slot ^= 1;
	dc->next = slot ^ 1;
	struct derive_work *w = take_work(dc, slot);
	arena_reset(&w->ar);
	derive_plan_part_release(w->pp);
	w->pp = NULL;
	derive_live_release(w->live);
	w->live = NULL;
	w->model = in->model;
	w->measured_s = in->measured_s;
	w->max_ghz = in->max_ghz;
	derive_step_row_maps(w, in);
	derive_step_instance_rows(w, in);
	step_group_sums(w, in);
	step_plan(w, dc, in);
	const struct derive_live *live = derive_live_get(w, dc, in);
	w->npm = in->plan->nmetrics;
	w->pm = WORK_ARRAY(w, w->npm, int);
	if (w->npm > 0)
		memcpy(w->pm, in->plan->metrics, sizeof(int) * (size_t)w->npm);
	w->mset = w->pp->mset;
	/* The skeleton's rows start as the live list's (the dead's cells
	 * written) where -C leaves no row partial. */
	struct snapshot *snap = derive_step_skeleton(w, in, !in->cpu_filter);
	for (int sc = 0; sc < SNAP_NSCOPES && in->cpu_filter; sc++)
		for (int r = 0; live->ndead[sc] && r < w->nrows[sc]; r++)
			derive_live_dead_cells(live, &snap->rows[sc][r], sc, w->partial[sc][r], false);
	step_events(w, live, in, snap);
	step_columns(w, live, in);
	step_metrics(w, w->pp, in, snap);
	/* What cannot be is said first; the trees then add up within it.
	 * Only the columns that may have a figure are looked at. */
	for (int sc = 0; sc < SNAP_NSCOPES; sc++)
		bounds_apply_cols(in->model, live->bmi[sc], live->bcol[sc], live->nbound[sc], in->max_ghz, snap, sc);
	tree_plan_apply(live->trees, snap, (const bool *const *)live->maybe);
	const struct derive_want *want = in->cache ? in->want : NULL;
	for (int sc = 0; sc < SNAP_NSCOPES && w->ntcols > 0; sc++)
		for (int r = 0; r < snap->nrows[sc]; r++)
			if (row_wanted(want, sc, r))
				floors_after_trees(w, &snap->rows[sc][r], sc, r);
	step_moderate(w, in, snap);
	/* Rows whose errors were left: the snapshot gets their source,
	 * which holds these buffers until it is freed. */
	bool deferred = false;
	for (int sc = 0; sc < SNAP_NSCOPES && !deferred && in->cache && in->want; sc++)
		for (int r = 0; r < snap->nrows[sc] && !deferred; r++)
			deferred = snap->rows[sc][r].errors_deferred;
	if (deferred)
		snap->errors = derive_errors_new(w, snap);
	if (dc == &local)
		derive_cache_done(dc);
	return snap;
}

/* Lets go of what was worked out for one plan (the work space stays). */
static void plan_cache_done(struct derive_cache *c)
{
	derive_plan_part_release(c->pp);
	c->pp = NULL;
	c->plan_gen = 0;
	derive_live_release(c->live);
	c->live = NULL;
}

void derive_cache_done(struct derive_cache *c)
{
	if (!c)
		return;
	plan_cache_done(c);
	for (int i = 0; i < 2; i++)
		derive_work_release(c->work[i]);
	memset(c, 0, sizeof(*c));
}
