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
 * Every figure also gets its relative standard error (uncertainty.c). */
#include "config.h"
#include "derive.h"
#include "derive_bounds.h"
#include "derive_tree.h"
#include "derive_window.h"
#include "expr.h"
#include "format.h"
#include "formula.h"
#include "uncertainty.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct row_maps {
	int *cpu_row;     /* [max_cpu] */
	int *core_row;    /* [ncores] */
	int *ccx_row;     /* [nccx] */
	int *sock_row;    /* [nsockets] */
};

/* The same selection the sampler opens per-CPU PMUs on: online, and in the
 * filter when there is one. */
static bool cpu_selected(const struct derive_input *in, int cpu)
{
	const struct topo_cpu *tc = topo_cpu_by_num(in->topo, cpu);
	if (!tc || !tc->online)
		return false;
	return !in->cpu_filter || (cpu >= 0 && cpu < in->topo->max_cpu && in->cpu_filter[cpu]);
}

/* Whether any live instance of the PMU adds to row r of scope sc: an L3
 * PMU has nothing to say in a CPU row, nor a CPU's PMU outside -C. */
static bool row_has_pmu(const struct inst_rows *ir, int sc, int r)
{
	return ir->nin[sc] && ir->nin[sc][r] > 0;
}

/* How a formula gets its events while it is evaluated with its
 * derivatives (expr_eval_grad): from one window set's values wv (a metric
 * evaluated in its own windows), or from the row's pooled event figures,
 * the variables then being the metric's own event list. Sub-metrics are
 * evaluated again in the same way, since the same sub-metric means other
 * windows for another metric. */
struct geval {
	const struct model *m;
	const struct snap_row *row;
	double interval_s;
	int row_scope;
	const struct wset *ws;
	const double *wv;
	const int *vars;        /* the variables: the metric's events */
	int nvars;
	int depth;
	const struct gsum *gs;  /* the groups' sums behind ws */
	/* A metric across sets: every event's set, each set's doubt, the row
	 * and room for a set's samples (wset_pooled_var). */
	const struct wset_list *wl;
	const int *ev_set;
	const double *doubt;
	double *scratch;
	int r;
	/* The metric compiled for this row's scope (formula.h) and its work
	 * space, which starts with its variables; NULL: walk the tree. */
	const struct formula *prog;
	double *fvars;
};

/* The metric a reference names, when it can be evaluated in a row of
 * scope row_scope at recursion depth depth; NULL otherwise. The loader
 * rejects cycles; the depth bound only keeps a broken model from
 * recursing forever. */
static const struct metric_def *sub_metric(const struct model *m, int ref, int row_scope, int depth)
{
	if (ref < METRIC_REF_BASE || ref >= METRIC_REF_BASE + m->nmetrics)
		return NULL;
	const struct metric_def *md = &m->metrics[ref - METRIC_REF_BASE];
	return depth > 64 || (int)md->scope > row_scope || !md->expr ? NULL : md;
}

/* Event ref's value: from the window set's values wv when there is a
 * set, else the row's pooled figure. */
static double event_value(const struct wset *ws, const double *wv, const struct snap_row *row, int ref)
{
	if (!ws)
		return row->event[ref];
	int k = wset_event(ws, ref);
	return k >= 0 ? wv[k] : NAN;
}

static double gvalue(void *ctx, int ref, double *g)
{
	struct geval *c = ctx;
	if (ref == BUILTIN_INTERVAL_S)
		return c->interval_s;
	if (ref >= METRIC_REF_BASE && ref < METRIC_REF_BASE + c->m->nmetrics) {
		const struct metric_def *md = sub_metric(c->m, ref, c->row_scope, c->depth);
		if (!md)
			return NAN;
		c->depth++;
		double v = expr_eval_grad(md->expr, gvalue, c, c->nvars, g);
		c->depth--;
		return v;
	}
	if (ref < 0 || ref >= c->m->nevents)
		return NAN;
	for (int k = 0; k < c->nvars; k++)
		if (c->vars[k] == ref) {
			g[k] = 1;
			break;
		}
	return event_value(c->ws, c->wv, c->row, ref);
}

/* The value alone, for a formula with more variables than
 * expr_eval_grad follows: from the set's values or the pooled figures. */
struct peval {
	const struct model *m;
	const struct snap_row *row;
	double interval_s;
	int row_scope, depth;
	const struct wset *ws;
	const double *wv;       /* the set's values in the row */
};

static double pvalue(void *ctx, int ref)
{
	struct peval *c = ctx;
	if (ref == BUILTIN_INTERVAL_S)
		return c->interval_s;
	if (ref >= METRIC_REF_BASE && ref < METRIC_REF_BASE + c->m->nmetrics) {
		const struct metric_def *md = sub_metric(c->m, ref, c->row_scope, c->depth);
		if (!md)
			return NAN;
		c->depth++;
		double v = expr_eval(md->expr, pvalue, c);
		c->depth--;
		return v;
	}
	if (ref < 0 || ref >= c->m->nevents)
		return NAN;
	return event_value(c->ws, c->wv, c->row, ref);
}

/* A compiled formula's variables from window set w in row r: vk[k] is
 * variable k's index among the set's events (-1: not held, NaN). Returns
 * the set's coverage. */
static double set_vars(const struct wset *w, const struct gsum *gs, int sc, int r, const int *vk, int n,
		       double *vars)
{
	double cov = NAN;
	for (int k = 0; k < n; k++) {
		if (vk[k] < 0)
			vars[k] = NAN;
		else
			cov = wset_value1(w, gs, sc, r, vk[k], &vars[k]);
	}
	return isnan(cov) ? wset_cov(w, gs, sc, r) : cov;
}

/* Metric mi in window set w, row r of scope sc, whose values are wv and
 * coverage cov: its value and relative standard error. The formula is
 * linearised around the set's values; each sample (bucket of windows)
 * gives one value of the linearised figure, and their spread gives the
 * error. scratch has room for the set's samples. */
static double metric_in_set(struct geval *c, int mi, int sc, int r, double cov, double *scratch, double *rse)
{
	const struct metric_def *md = &c->m->metrics[mi];
	const struct wset *w = c->ws;
	const struct formula *fp = c->prog;
	double grad[EXPR_GRAD_MAX];
	*rse = NAN;
	bool exact = cov >= UNC_FULLY_COVERED;
	/* With a compiled formula the caller has put the set's values in
	 * c->fvars (set_vars); without, they are in c->wv. */
	if (md->nevents > EXPR_GRAD_MAX || exact || w->ns < 2) {
		/* Nothing to estimate from (or too many variables to follow):
		 * the value alone, in its own windows. */
		double f;
		if (fp) {
			f = formula_eval(fp, c->interval_s, c->fvars);
		} else {
			struct peval pc = { c->m, c->row, c->interval_s, c->row_scope, 0, w, c->wv };
			f = expr_eval(md->expr, pvalue, &pc);
		}
		if (exact && !isnan(f))
			*rse = 0;
		return f;
	}
	c->vars = md->events;
	c->nvars = md->nevents;
	double f = fp ? formula_eval_grad(fp, c->interval_s, md->nevents, grad, c->fvars)
		      : expr_eval_grad(md->expr, gvalue, c, md->nevents, grad);
	if (!isfinite(f))
		return f;
	/* The formula linearised around its value: its derivatives applied
	 * to each sample's events. */
	int ns = w->ns, ks[EXPR_GRAD_MAX], nk = 0;
	double coef[EXPR_GRAD_MAX];
	for (int k = 0; k < md->nevents; k++) {
		int e = wset_event(w, md->events[k]);
		if (grad[k] == 0 || e < 0)
			continue;
		ks[nk] = e;
		coef[nk++] = grad[k];
	}
	double *sw = scratch, *z = sw + ns;
	wset_sample_sums(w, c->gs, sc, r, ks, coef, nk, z, sw);
	double se = unc_mean_se(z, sw, ns, cov);
	*rse = se == 0 ? 0 : se / fabs(f);
	return f;
}

/* Metric mi from the row's pooled event figures (no window set holds all
 * its events): its value and relative standard error, the events' errors
 * carried through the formula's derivatives, those of one window set
 * together (wset_pooled_var). */
static double metric_pooled(struct geval *c, int mi, double *rse)
{
	const struct metric_def *md = &c->m->metrics[mi];
	double grad[EXPR_GRAD_MAX];
	*rse = NAN;
	/* Any event of unknown error makes the metric's unknown; all exact
	 * make it exact: either way the value alone is enough. */
	bool unknown = false, exact = true;
	for (int k = 0; k < md->nevents; k++) {
		double r = c->row->event_rse[md->events[k]];
		unknown |= isnan(r);
		exact &= r == 0;
	}
	const struct formula *fp = c->prog;
	if (fp) {
		const int *ev = formula_vars(fp);
		for (int k = 0; k < formula_nvars(fp); k++)
			c->fvars[k] = c->row->event[ev[k]];
	}
	if (md->nevents > EXPR_GRAD_MAX || unknown || exact) {
		double f;
		if (fp) {
			f = formula_eval(fp, c->interval_s, c->fvars);
		} else {
			struct peval pc = { c->m, c->row, c->interval_s, c->row_scope, 0, NULL, NULL };
			f = expr_eval(md->expr, pvalue, &pc);
		}
		if (exact && !unknown && !isnan(f))
			*rse = 0;
		return f;
	}
	c->vars = md->events;
	c->nvars = md->nevents;
	double f = fp ? formula_eval_grad(fp, c->interval_s, md->nevents, grad, c->fvars)
		      : expr_eval_grad(md->expr, gvalue, c, md->nevents, grad);
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
 * worst of such events decides. */
static double window_doubt(const struct wset_list *wl, int set, const int *ev_set, const struct gsum *gs,
			   const struct snap_row *row, int sc, int r, double *scratch)
{
	const struct wset *w = &wl->v[set];
	if (w->ns < 2)
		return 1;
	double worst = 0;
	for (int k = 0; k < w->nev; k++) {
		int e = w->ev[k];
		double c = row->event_cov[e];
		if (ev_set[e] < 0 || ev_set[e] == set || !isfinite(row->event[e]) || row->event[e] == 0)
			continue;
		double v, cov = wset_value1(w, gs, sc, r, k, &v);
		if (!(cov < c) || !isfinite(v))
			continue;
		const double one = 1;
		double *sw = scratch, *z = sw + w->ns;
		wset_sample_sums(w, gs, sc, r, &k, &one, 1, z, sw);
		double se = unc_mean_se(z, sw, w->ns, cov);
		if (!(se > 0))
			continue;
		double off = fabs(v - row->event[e]) / se;
		if (off > worst)
			worst = off;
	}
	return worst > 1.96 ? worst / 1.96 : 1;
}

/* The rows one PMU instance adds to, at its scope and above (-1: none). */
static void instance_rows(const struct derive_input *in, const struct row_maps *rm,
			  const struct bk_instance *bi, int tidx[SNAP_NSCOPES])
{
	const struct topo *t = in->topo;
	int cpu = -1, core = -1, ccx = -1, sock = -1;
	switch (bi->scope) {
	case SCOPE_THREAD: {
		const struct topo_cpu *tc = topo_cpu_by_num(t, bi->cpu);
		if (!tc || !tc->online)
			return;
		cpu = tc->cpu; core = tc->core; ccx = tc->ccx;
		sock = topo_socket_index(t, tc->socket);
		break;
	}
	case SCOPE_CORE:
		core = bi->scope_id;
		if (core < 0 || core >= t->ncores)
			return;
		ccx = t->cores[core].ccx;
		sock = topo_socket_index(t, t->cores[core].socket);
		break;
	case SCOPE_CCX:
		ccx = bi->scope_id;
		if (ccx < 0 || ccx >= t->nccx)
			return;
		sock = topo_socket_index(t, t->ccxs[ccx].socket);
		break;
	case SCOPE_SOCKET:
		sock = topo_socket_index(t, bi->scope_id);
		break;
	default:
		break;
	}
	int idx[SNAP_NSCOPES] = { -1, -1, -1, -1, 0 };
	if (cpu >= 0 && cpu < t->max_cpu && rm->cpu_row[cpu] >= 0)
		idx[SNAP_CPU] = rm->cpu_row[cpu];
	if (bi->scope == SCOPE_THREAD && idx[SNAP_CPU] < 0)
		return;   /* a CPU outside the selection */
	if (core >= 0 && core < t->ncores && rm->core_row[core] >= 0)
		idx[SNAP_CORE] = rm->core_row[core];
	if (ccx >= 0 && ccx < t->nccx && rm->ccx_row[ccx] >= 0)
		idx[SNAP_CCX] = rm->ccx_row[ccx];
	if (sock >= 0 && sock < t->nsockets && rm->sock_row[sock] >= 0)
		idx[SNAP_SOCKET] = rm->sock_row[sock];
	for (int sc = 0; sc < SNAP_NSCOPES; sc++)
		if (sc >= (int)bi->scope)
			tidx[sc] = idx[sc];
}

/* All of the metric's events on one PMU: then a group may hold them all. */
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

/* partial[sc][r]: the row holds fewer CPUs than are online in its core,
 * CCX, socket or machine (-C left some out). */
static void mark_partial(const struct derive_input *in, const struct row_maps *rm, const int nrows[SNAP_NSCOPES],
			 const struct snapshot *snap, bool *partial[SNAP_NSCOPES])
{
	const struct topo *t = in->topo;
	if (!in->cpu_filter)
		return;
	int *core_on = xcalloc((size_t)t->ncores + 1, sizeof(int));
	int *ccx_on = xcalloc((size_t)t->nccx + 1, sizeof(int));
	int *sock_on = xcalloc((size_t)t->nsockets + 1, sizeof(int));
	int total = 0;
	for (int i = 0; i < t->ncpus; i++) {
		const struct topo_cpu *tc = &t->cpus[i];
		if (!tc->online)
			continue;
		total++;
		if (tc->core >= 0 && tc->core < t->ncores)
			core_on[tc->core]++;
		if (tc->ccx >= 0 && tc->ccx < t->nccx)
			ccx_on[tc->ccx]++;
		int si = topo_socket_index(t, tc->socket);
		if (si >= 0)
			sock_on[si]++;
	}
	for (int c = 0; c < t->ncores; c++)
		if (rm->core_row[c] >= 0)
			partial[SNAP_CORE][rm->core_row[c]] = snap->rows[SNAP_CORE][rm->core_row[c]].ncpus < core_on[c];
	for (int c = 0; c < t->nccx; c++)
		if (rm->ccx_row[c] >= 0)
			partial[SNAP_CCX][rm->ccx_row[c]] = snap->rows[SNAP_CCX][rm->ccx_row[c]].ncpus < ccx_on[c];
	for (int k = 0; k < t->nsockets; k++)
		if (rm->sock_row[k] >= 0)
			partial[SNAP_SOCKET][rm->sock_row[k]] = snap->rows[SNAP_SOCKET][rm->sock_row[k]].ncpus < sock_on[k];
	if (nrows[SNAP_SYSTEM] > 0)
		partial[SNAP_SYSTEM][0] = snap->rows[SNAP_SYSTEM][0].ncpus < total;
	free(core_on);
	free(ccx_on);
	free(sock_on);
}

/* Per planned metric, what the metric loop needs that does not change
 * while the plan stands: its window set (one whose events share a group),
 * its formula compiled for every scope it applies at, each variable's
 * index among the set's events, whether it is a count (published per
 * second). */
static void build_metrics(struct derive_cache *dc, const struct derive_input *in, const struct gsum *gs)
{
	const struct model *m = in->model;
	const struct sched_plan *plan = in->plan;
	dc->dm = xcalloc((size_t)plan->nmetrics + 1, sizeof(*dc->dm));
	dc->fspace = 1;
	for (int i = 0; i < plan->nmetrics; i++) {
		int mi = plan->metrics[i];
		const struct metric_def *md = &m->metrics[mi];
		struct derive_metric *d = &dc->dm[dc->ndm++];
		d->mi = mi;
		d->scope = md->expr ? (int)md->scope : SNAP_NSCOPES;
		int host = md->nevents > 0 ? host_pmu(m, md) : -1;
		d->set = host >= 0 ? wset_find_or_add(dc->wl, in, gs, host, md->events, md->nevents) : -1;
		d->count = format_unit_is_count(md->unit);
		for (int sc = 0; sc < SNAP_NSCOPES; sc++)
			d->partial_ok[sc] = partial_ok(m, md, sc);
		for (int sc = d->scope; sc < SNAP_NSCOPES; sc++) {
			struct formula *f = formula_compile(m, mi, sc);
			d->prog[sc] = f;
			if (!f)
				continue;
			int n = formula_nvars(f);
			if (formula_work(f) > dc->fspace)
				dc->fspace = formula_work(f);
			if (d->set < 0)
				continue;
			d->vk[sc] = xmalloc(sizeof(int) * ((size_t)n + 1));
			for (int k = 0; k < n; k++)
				d->vk[sc][k] = wset_event(&dc->wl->v[d->set], formula_vars(f)[k]);
		}
	}
}

struct snapshot *derive_snapshot(const struct derive_input *in)
{
	const struct model *m = in->model;
	const struct topo *t = in->topo;
	const struct sched_plan *plan = in->plan;
	double interval_s = in->interval_s;
	int nrows[SNAP_NSCOPES] = { 0 };
	struct row_maps rm;
	rm.cpu_row = xmalloc(sizeof(int) * ((size_t)t->max_cpu + 1));
	rm.core_row = xmalloc(sizeof(int) * ((size_t)t->ncores + 1));
	rm.ccx_row = xmalloc(sizeof(int) * ((size_t)t->nccx + 1));
	rm.sock_row = xmalloc(sizeof(int) * ((size_t)t->nsockets + 1));
	for (int i = 0; i < t->max_cpu; i++)
		rm.cpu_row[i] = -1;
	for (int i = 0; i < t->ncores; i++)
		rm.core_row[i] = -1;
	for (int i = 0; i < t->nccx; i++)
		rm.ccx_row[i] = -1;
	for (int i = 0; i < t->nsockets; i++)
		rm.sock_row[i] = -1;

	/* Rows exist for selected online CPUs and the units that hold one. */
	int *core_n = xcalloc((size_t)t->ncores + 1, sizeof(int));
	int *ccx_n = xcalloc((size_t)t->nccx + 1, sizeof(int));
	int *sock_n = xcalloc((size_t)t->nsockets + 1, sizeof(int));
	int total = 0;
	for (int i = 0; i < t->ncpus; i++) {
		const struct topo_cpu *tc = &t->cpus[i];
		if (!cpu_selected(in, tc->cpu))
			continue;
		rm.cpu_row[tc->cpu] = nrows[SNAP_CPU]++;
		total++;
		if (tc->core >= 0 && tc->core < t->ncores && core_n[tc->core]++ == 0)
			rm.core_row[tc->core] = nrows[SNAP_CORE]++;
		if (tc->ccx >= 0 && tc->ccx < t->nccx && ccx_n[tc->ccx]++ == 0)
			rm.ccx_row[tc->ccx] = nrows[SNAP_CCX]++;
		int si = topo_socket_index(t, tc->socket);
		if (si >= 0 && sock_n[si]++ == 0)
			rm.sock_row[si] = nrows[SNAP_SOCKET]++;
	}
	nrows[SNAP_SYSTEM] = 1;

	struct snapshot *snap = snapshot_new(m, nrows);
	snap->interval_s = interval_s;
	for (int i = 0; i < plan->nmetrics; i++)
		snap->metric_planned[plan->metrics[i]] = true;
	/* The sampler gives every planned event a column on its PMU, so an
	 * event is counted when it is planned and its PMU opened. */
	for (int e = 0; e < m->nevents; e++)
		snap->event_planned[e] = plan->event_used[e] && in->pmus[m->events[e].pmu].available;

	for (int i = 0; i < t->ncpus; i++) {
		const struct topo_cpu *tc = &t->cpus[i];
		int r = rm.cpu_row[tc->cpu];
		if (tc->cpu >= t->max_cpu || r < 0)
			continue;
		struct snap_row *row = &snap->rows[SNAP_CPU][r];
		row->id = row->cpu = tc->cpu;
		row->core = tc->core;
		row->ccx = tc->ccx;
		row->socket = tc->socket;
		row->ncpus = 1;
		if (tc->core >= 0 && rm.core_row[tc->core] >= 0) {
			struct snap_row *cr = &snap->rows[SNAP_CORE][rm.core_row[tc->core]];
			cr->id = cr->core = tc->core;
			cr->ccx = tc->ccx;
			cr->socket = tc->socket;
			cr->ncpus++;
		}
		if (tc->ccx >= 0 && rm.ccx_row[tc->ccx] >= 0) {
			struct snap_row *xr = &snap->rows[SNAP_CCX][rm.ccx_row[tc->ccx]];
			xr->id = xr->ccx = tc->ccx;
			xr->socket = tc->socket;
			xr->ncpus++;
		}
		int si = topo_socket_index(t, tc->socket);
		if (si >= 0 && rm.sock_row[si] >= 0) {
			struct snap_row *sr = &snap->rows[SNAP_SOCKET][rm.sock_row[si]];
			sr->id = si;
			sr->socket = tc->socket;
			sr->ncpus++;
		}
	}
	snap->rows[SNAP_SYSTEM][0].id = 0;
	snap->rows[SNAP_SYSTEM][0].ncpus = total;

	struct inst_rows *irows = xcalloc((size_t)m->npmus + 1, sizeof(*irows));
	for (int p = 0; p < m->npmus; p++) {
		const struct derive_pmu *dp = &in->pmus[p];
		if (!dp->available)
			continue;
		struct inst_rows *ir = &irows[p];
		ir->row = xmalloc(sizeof(int) * ((size_t)dp->ninst * SNAP_NSCOPES + 1));
		for (int sc = 0; sc < SNAP_NSCOPES; sc++)
			ir->nin[sc] = xcalloc((size_t)nrows[sc] + 1, sizeof(int));
		for (int i = 0; i < dp->ninst; i++) {
			int *tidx = &ir->row[(size_t)i * SNAP_NSCOPES];
			for (int sc = 0; sc < SNAP_NSCOPES; sc++)
				tidx[sc] = -1;
			if (!dp->alive[i])
				continue;
			instance_rows(in, &rm, &dp->inst[i], tidx);
			for (int sc = 0; sc < SNAP_NSCOPES; sc++)
				if (tidx[sc] >= 0)
					ir->nin[sc][tidx[sc]]++;
		}
	}
	struct gsum *gs = xcalloc((size_t)plan->ngroups + 1, sizeof(*gs));
	for (int g = 0; g < plan->ngroups; g++)
		if (in->pmus[plan->groups[g].pmu].available && in->groups[g].iv)
			gsum_fill(&gs[g], in, g, &irows[plan->groups[g].pmu], nrows);

	/* Window sets: one per metric whose events share a group, one per
	 * planned event (all of its groups: the time-weighted figure of the
	 * event alone). */
	struct derive_cache local = { 0 };
	struct derive_cache *dc = in->cache ? in->cache : &local;
	if (dc->plan_gen == 0 || dc->plan_gen != in->plan_gen) {
		derive_cache_done(dc);
		dc->plan_gen = in->plan_gen ? in->plan_gen : 1;
		dc->wl = xcalloc(1, sizeof(*dc->wl));
		build_metrics(dc, in, gs);
		dc->ev_set = xmalloc(sizeof(int) * ((size_t)m->nevents + 1));
		for (int e = 0; e < m->nevents; e++)
			dc->ev_set[e] = snap->event_planned[e] ?
				wset_find_or_add(dc->wl, in, gs, m->events[e].pmu, &e, 1) : -1;
	}
	struct wset_list wl = *dc->wl;
	const int *ev_set = dc->ev_set;
	/* Buckets per group follow the interval's length: count the samples. */
	for (int k = 0; k < wl.n; k++) {
		wl.v[k].ns = 0;
		for (int j = 0; j < wl.v[k].ng; j++)
			wl.v[k].ns += gs[wl.v[k].g[j]].nb ? gs[wl.v[k].g[j]].nb : 1;
	}
	/* Scratch: a set's values (the tree-walk fallback), then a weight
	 * and a linearised value per sample. */
	size_t nscratch = 1;
	for (int k = 0; k < wl.n; k++) {
		size_t need = (size_t)wl.v[k].nev + 2 * (size_t)wl.v[k].ns;
		if (need > nscratch)
			nscratch = need;
	}
	double *scratch = xmalloc(sizeof(double) * nscratch);
	double *fspace = xmalloc(sizeof(double) * (size_t)dc->fspace);
	bool *pmu_here = xcalloc((size_t)m->npmus + 1, sizeof(bool));
	double *doubt = xmalloc(sizeof(double) * ((size_t)wl.n + 1));

	/* Rows of which -C left some CPUs out. */
	bool *partial[SNAP_NSCOPES];
	for (int sc = 0; sc < SNAP_NSCOPES; sc++)
		partial[sc] = xcalloc((size_t)nrows[sc] + 1, sizeof(bool));
	mark_partial(in, &rm, nrows, snap, partial);

	/* Each event's figure, coverage and uncertainty. A per-CPU event has
	 * none in a core, CCX or socket row that -C left partial. */
	for (int e = 0; e < m->nevents; e++) {
		if (ev_set[e] < 0)
			continue;
		const struct wset *w = &wl.v[ev_set[e]];
		int k = wset_event(w, e);
		double *sw = scratch, *z = sw + w->ns;
		for (int sc = 0; sc < SNAP_NSCOPES; sc++)
			for (int r = 0; r < nrows[sc]; r++) {
				if (!row_has_pmu(&irows[w->pmu], sc, r))
					continue;
				if (partial[sc][r] && sc != SNAP_SYSTEM && m->pmus[w->pmu].scope == SCOPE_THREAD)
					continue;
				struct snap_row *row = &snap->rows[sc][r];
				double v, cov = wset_value1(w, gs, sc, r, k, &v), rse = NAN;
				if (isnan(v))
					cov = 0;
				else if (cov >= UNC_FULLY_COVERED)
					rse = 0;
				else if (w->ns >= 2) {
					const double one = 1;
					wset_sample_sums(w, gs, sc, r, &k, &one, 1, z, sw);
					double se = unc_mean_se(z, sw, w->ns, cov);
					rse = se == 0 ? 0 : se / fabs(v);
				}
				row->event[e] = v;
				row->event_cov[e] = cov;
				row->event_rse[e] = rse;
			}
	}

	/* Metrics: in their window set where they have one, else from the
	 * pooled event figures of each row. What does not change from row to
	 * row was worked out once per plan (struct derive_metric). */
	for (int sc = 0; sc < SNAP_NSCOPES; sc++) {
		for (int r = 0; r < nrows[sc]; r++) {
			struct snap_row *row = &snap->rows[sc][r];
			struct geval c = { .m = m, .row = row, .interval_s = interval_s, .row_scope = sc, .gs = gs,
					   .fvars = fspace, .wl = &wl, .ev_set = ev_set, .doubt = doubt, .scratch = scratch,
					   .r = r };
			/* Each set's doubt (window_doubt) in this row, from the
			 * events' figures before any of them is widened. */
			for (int k = 0; k < wl.n; k++)
				doubt[k] = window_doubt(&wl, k, ev_set, gs, row, sc, r, scratch);
			for (int e = 0; e < m->nevents; e++)
				if (ev_set[e] >= 0)
					row->event_rse[e] *= doubt[ev_set[e]];
			/* Which PMUs have a live instance under the row, once. */
			for (int p = 0; p < m->npmus; p++)
				pmu_here[p] = row_has_pmu(&irows[p], sc, r);
			for (int i = 0; i < dc->ndm; i++) {
				const struct derive_metric *d = &dc->dm[i];
				int mi = d->mi;
				if (d->scope > sc)
					continue;   /* not applicable here: NaN, coverage NaN */
				if (partial[sc][r] && !d->partial_ok[sc])
					continue;
				/* A figure shared out by task exists per task only. */
				if (m->metrics[mi].split >= 0)
					continue;
				const struct wset *w = d->set >= 0 ? &wl.v[d->set] : NULL;
				const struct formula *fp = d->prog[sc];
				c.ws = w;
				c.prog = fp;
				double v, rse, cov;
				if (w) {
					if (!pmu_here[w->pmu])
						continue;   /* none of the metric's PMU under this row */
					if (fp) {
						cov = set_vars(w, gs, sc, r, d->vk[sc], formula_nvars(fp), fspace);
					} else {
						const struct metric_def *md = &m->metrics[mi];
						cov = wset_values_of(w, gs, sc, r, md->events, md->nevents, scratch);
						c.wv = scratch;
					}
					v = metric_in_set(&c, mi, sc, r, cov, scratch + w->nev, &rse);
				} else {
					v = metric_pooled(&c, mi, &rse);
					const struct metric_def *md = &m->metrics[mi];
					cov = 1;
					for (int k = 0; k < md->nevents; k++) {
						double ec = row->event_cov[md->events[k]];
						if (!(ec >= 0))
							ec = 0;
						if (ec < cov)
							cov = ec;
					}
				}
				/* One unit per figure: counts are published per
				 * second, so no figure changes with -d. */
				if (d->count && interval_s > 0)
					v /= interval_s;
				if (w)
					rse *= doubt[d->set];
				row->metric[mi] = v;
				row->metric_rse[mi] = isnan(v) ? NAN : rse;
				row->metric_cov[mi] = cov;
			}
		}
	}
	/* What cannot be is said first; the trees then add up within it. */
	bounds_apply(m, plan, in->max_ghz, snap);
	tree_reconcile(m, plan, snap);
	free(scratch);
	free(fspace);
	free(pmu_here);
	free(doubt);
	for (int sc = 0; sc < SNAP_NSCOPES; sc++)
		free(partial[sc]);
	if (dc == &local)
		derive_cache_done(dc);
	for (int g = 0; g < plan->ngroups; g++)
		gsum_done(&gs[g]);
	free(gs);
	for (int p = 0; p < m->npmus; p++) {
		free(irows[p].row);
		for (int sc = 0; sc < SNAP_NSCOPES; sc++)
			free(irows[p].nin[sc]);
	}
	free(irows);
	free(rm.cpu_row);
	free(rm.core_row);
	free(rm.ccx_row);
	free(rm.sock_row);
	free(core_n);
	free(ccx_n);
	free(sock_n);
	return snap;
}

void derive_cache_done(struct derive_cache *c)
{
	if (!c)
		return;
	if (c->wl) {
		wset_list_free(c->wl);
		free(c->wl);
	}
	free(c->ev_set);
	for (int i = 0; i < c->ndm; i++)
		for (int sc = 0; sc < SNAP_NSCOPES; sc++) {
			formula_free(c->dm[i].prog[sc]);
			free(c->dm[i].vk[sc]);
		}
	free(c->dm);
	memset(c, 0, sizeof(*c));
}
