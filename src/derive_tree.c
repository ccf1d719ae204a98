/* derive_tree.c: the shares of a tree add up, by construction.
 *
 * Each topdown share is a ratio of counts, and each is computed in its own
 * window set (the groups that hold its events). When the level-1 events do
 * not fit in one group, each share comes from different windows, and on a
 * phased load they summed to anything from 0.83 to 1.2; the level-2 parts of
 * `retiring` differed from it by up to 0.15. A share is an estimate of the
 * same slots from a part of the interval; what the parts say that the
 * parent does not is only how the parent splits. So, level by level, each
 * family's measured parts are scaled by one factor to the parent's figure
 * (1 for the level-1 parts of the whole): a child is its parent times its
 * share of the family, the share measured in its own window.
 *
 * Uncertainty: the scaling moves every part of the whole by the same
 * relative amount, 1 - factor, which is how far the measured parts missed
 * adding up to 1: a part's error is its own and that move in quadrature
 * (a part that was right is moved by the others' errors; one that was
 * wrong is not put right by a share of them). Keeping only its own error
 * left 127 of 1,920 Zen 5 frontend_bound figures of one run more than 5
 * stated errors off. A child of a metric is its parent times its share of
 * the family: the share's error (its own, less what the family's sum
 * shares with it, and its siblings', with the covariance of parts
 * counted in the same windows, TREE_SAME_WINDOWS_CORR) and the
 * parent's, in quadrature, as for a product of independent estimates.
 * That bound is blended with the parts' errors given the family's sum
 * (conditioned(), TREE_CONDITIONED): what the sum missed its parent by
 * is observed, and says which way the parts erred. Parts that were all
 * counted the whole interval stay exact. Parts that add up to 0 under a
 * parent that is not are unknown (NaN): nothing says how that parent
 * splits. */
#include "config.h"
#include "derive_tree.h"
#include "util.h"
#include "hot_path.h"

#include <math.h>
#include <stdlib.h>

/* The correlation taken between the errors of two parts counted in the
 * same windows (one window set; equal coverage when the sets are not
 * known): a window that saw more of the parent's slots saw more of each
 * part. Not measured here (the tree has the parts' figures, not their
 * samples); with the parts taken as independent, level-2 shares stated errors too wide (Zen 4
 * `retiring_fastpath` covered the truth 99.7 % of the time): at 0.5, 26
 * metrics over 99 % became 18, at 0.7 14, with misses beyond 5 errors
 * 847 -> 855 and 858 (docs/uncertainty.md, "The tail"). The lower is
 * kept: an error a little wide rather than one a little narrow. */
#define TREE_SAME_WINDOWS_CORR 0.5

/* A part's error is this share of its variance given the family's
 * observed sum (conditioned()) and the rest the bound worked out part by
 * part (reconcile_row): the bound alone stated topdown errors too wide
 * (Zen 4 and 5 `retiring_fastpath` covered the truth with 99.5-99.7 % of
 * their 95 % intervals, Sapphire Rapids `retiring_microcode` 99.5 %),
 * the conditioned error alone too narrow, as wrong as the parts' own
 * errors are (Sapphire Rapids `backend_bound_memory` 88 %, Zen 4
 * `backend_bound` 90 %). At 0.85, metrics over 99 % 22 -> 14 (formula on
 * the true counts) and 20 -> 12 (physical), none of the trees' under
 * 92 %; at 0.7 16 and 14, at 0.95 14 and 12 with Zen 5
 * `backend_bound_memory` at 91.7 %, at 1 13 and 11 with it at 90.4 % and
 * the imported Skylake-SP `retiring` at 89.3 % (docs/uncertainty.md,
 * "The tail"). */
#define TREE_CONDITIONED 0.85

/* A family's sum that misses its parent by more than this many of its
 * stated standard errors: the parts' errors are wrong, and nothing is
 * learned from them (only the bound is kept). */
#define TREE_MISS_SD 3.0

/* A family of more parts than this (none in the shipped models) keeps its
 * parts' errors as they were measured. */
#define TREE_MAX_PARTS 16

/* Whether metric j is in the list l[0..n-1]. */
static bool listed(const int *l, int n, int j)
{
	for (int i = 0; i < n; i++)
		if (l[i] == j)
			return true;
	return false;
}

int *tree_closure(const struct model *m, const int *metrics, int n, int *nout)
{
	int cap = n + m->nmetrics + 1, k = 0;
	int *out = xmalloc(sizeof(int) * (size_t)cap);
	for (int i = 0; i < n; i++)
		if (!listed(out, k, metrics[i]))
			out[k++] = metrics[i];
	/* Add the families of everything listed, up to the whole; what is
	 * added is looked at in turn, so the loop reaches the top. */
	for (int i = 0; i < k; i++) {
		int p = m->metrics[out[i]].parent;
		if (p == -1)
			continue;
		for (int j = 0; j < m->nmetrics; j++)
			if (m->metrics[j].parent == p && !listed(out, k, j))
				out[k++] = j;
		if (p >= 0 && !listed(out, k, p))
			out[k++] = p;
	}
	*nout = k;
	return out;
}

/* The family of parent p (a metric, or METRIC_PARENT_WHOLE): its parts in
 * kids[], all of them planned, or 0 when the model has none or one of them
 * is not planned. */
static int family(const struct model *m, const bool *planned, int p, int *kids)
{
	int n = 0;
	for (int j = 0; j < m->nmetrics; j++) {
		if (m->metrics[j].parent != p)
			continue;
		if (!planned[j])
			return 0;
		kids[n++] = j;
	}
	return n;
}

/* The parts' errors given what the family's sum says (TREE_CONDITIONED).
 * Each part's relative error d_k, and the parent's d_P, are taken as
 * normal with the stated errors (parts of one window set correlated by
 * rho, the parent independent of them). A reconciled part is off by
 * E_k = d_P + d_k - sum_j s_j d_j (s_j: the part's share of the sum), and
 * the sum's miss of the parent, O = sum_j s_j d_j - d_P, is observed: it
 * is sum / target - 1. E_k given O has mean beta O and variance
 * var(E_k) - beta cov(E_k, O), beta = cov(E_k, O) / var(O); its error is
 * the root of that variance plus the mean squared. A miss of the sum more
 * than TREE_MISS_SD of its own standard errors says the stated errors are
 * not to be believed: false, and the bound of the caller is kept. out[k]
 * for each part; false where a part or the parent has no stated error. */
static bool conditioned(const struct snap_row *row, int p, const int *kids, int n, double sum, double target,
			double rho, double *out)
{
	double sd[TREE_MAX_PARTS + 1], o[TREE_MAX_PARTS + 1];
	/* Index 0 is the parent (no error for the whole), 1..n the parts. */
	sd[0] = p == -1 ? 0 : row->mrse[p];
	o[0] = -1;
	if (!isfinite(sd[0]))
		return false;
	for (int k = 0; k < n; k++) {
		sd[k + 1] = row->mrse[kids[k]];
		o[k + 1] = row->mv[kids[k]] / sum;
		if (!isfinite(sd[k + 1]))
			return false;
	}
	double cov[TREE_MAX_PARTS + 1][TREE_MAX_PARTS + 1];
	for (int a = 0; a <= n; a++)
		for (int b = 0; b <= n; b++)
			cov[a][b] = a == b ? sd[a] * sd[a] : a > 0 && b > 0 ? rho * sd[a] * sd[b] : 0;
	double vo = 0;
	for (int a = 0; a <= n; a++)
		for (int b = 0; b <= n; b++)
			vo += o[a] * o[b] * cov[a][b];
	double obs = sum / target - 1;
	if (!(vo > 0) || obs * obs > TREE_MISS_SD * TREE_MISS_SD * vo)
		return false;
	for (int k = 0; k < n; k++) {
		double c[TREE_MAX_PARTS + 1], ve = 0, ceo = 0;
		c[0] = 1;
		for (int j = 0; j < n; j++)
			c[j + 1] = (j == k) - o[j + 1];
		for (int a = 0; a <= n; a++)
			for (int b = 0; b <= n; b++) {
				ve += c[a] * c[b] * cov[a][b];
				ceo += c[a] * o[b] * cov[a][b];
			}
		double beta = ceo / vo, v = ve - beta * ceo, mean = beta * obs;
		out[k] = sqrt((v < 0 ? 0 : v) + mean * mean);
	}
	return true;
}

/* p and kids[] are columns of the row (struct snapshot: mcol); p is -1
 * for the whole. */
static void reconcile_row(struct snap_row *row, int p, const int *kids, int n, int same_set)
{
	double target = p == -1 ? 1 : row->mv[p];
	double sum = 0;
	for (int k = 0; k < n; k++)
		sum += row->mv[kids[k]];
	if (!isfinite(target) || !isfinite(sum))
		return;     /* a part or the parent has no figure: left as measured */
	if (!(sum > 0)) {
		/* Parts that measured none of a parent that is not 0 cannot say
		 * how it splits (perf's level-2 formulas clip at 0 in windows of
		 * their own): the split is unknown, not a pair of zeros. */
		for (int k = 0; k < n && target > 0; k++)
			row->mv[kids[k]] = NAN;
		return;
	}
	double f = target / sum;
	bool exact = true;
	for (int k = 0; k < n; k++)
		exact &= row->mrse[kids[k]] == 0;
	double rse[TREE_MAX_PARTS];
	/* Parts of one window set (same_set; < 0: not known, then one
	 * coverage) were counted in the same windows: their errors are
	 * correlated. */
	bool same = same_set > 0;
	for (int k = 1; k < n && same_set < 0; k++)
		same &= row->mcov[kids[k]] == row->mcov[kids[0]];
	double rho = same ? TREE_SAME_WINDOWS_CORR : 0;
	for (int k = 0; k < n && n <= TREE_MAX_PARTS; k++) {
		double own = row->mrse[kids[k]];
		if (exact && fabs(1 - f) < 1e-9) {
			rse[k] = 0;
		} else if (exact) {
			/* Exact parts whose formulas do not add up to their parent
			 * (Arm's standard topdown: four formulas of their own, not
			 * one split): moved, so no longer exact, by the miss. */
			rse[k] = fabs(1 - f);
		} else if (p == -1) {
			rse[k] = hypot(own, 1 - f);
		} else {
			/* Its share of the family: its own error, less the part
			 * of it that the family's sum shares, and the others'
			 * (against it: a part that read high makes the others'
			 * shares low). Parts counted in the same windows move
			 * together (rho, TREE_SAME_WINDOWS_CORR), which a share
			 * cancels: the terms' covariances count. */
			double share = row->mv[kids[k]] / sum, v = 0, d[TREE_MAX_PARTS];
			for (int j = 0; j < n; j++) {
				d[j] = j == k ? (1 - share) * own : -row->mv[kids[j]] / sum * row->mrse[kids[j]];
				v += d[j] * d[j];
			}
			for (int i = 0; i < n && rho > 0; i++)
				for (int j = i + 1; j < n; j++)
					v += 2 * rho * d[i] * d[j];
			rse[k] = sqrt(v < 0 ? 0 : v);   /* NaN stays NaN: a part of unknown error */
		}
	}
	double cond[TREE_MAX_PARTS];
	/* The parts of the whole counted in the same windows say nothing by
	 * their sum: a split of the same slots adds up to 1 in any windows,
	 * and formulas of their own that do not add up (Arm's: the
	 * mispredicted branches' slots are taken from frontend_bound and
	 * given to bad_speculation, so those two err in opposite ways) miss
	 * it by what the formulas are, not by what the windows saw
	 * (conditioning them took Neoverse V1 `frontend_bound` from 93.4 to
	 * 89.3 % covered). */
	bool have_cond = !exact && !(p == -1 && same) && n <= TREE_MAX_PARTS &&
			 conditioned(row, p, kids, n, sum, target, rho, cond);
	for (int k = 0; k < n; k++) {
		int j = kids[k];
		double own = n <= TREE_MAX_PARTS ? rse[k] : row->mrse[j];
		row->mv[j] *= f;
		double bound = p != -1 ? hypot(own, row->mrse[p]) : own;
		row->mrse[j] = have_cond ? sqrt(TREE_CONDITIONED * cond[k] * cond[k] +
						(1 - TREE_CONDITIONED) * bound * bound) : bound;
	}
}

/* Which metrics the plan has (the caller frees it), and the deepest
 * tree level among them in *maxd. */
static bool *planned_metrics(const struct model *m, const struct sched_plan *plan, int *maxd)
{
	bool *planned = xcalloc((size_t)m->nmetrics + 1, sizeof(bool));
	*maxd = 0;
	for (int i = 0; i < plan->nmetrics; i++) {
		int j = plan->metrics[i];
		planned[j] = true;
		if (m->metrics[j].depth > *maxd)
			*maxd = m->metrics[j].depth;
	}
	return planned;
}

/* A plan's families, each in the order they are made to add up (the
 * whole's, then by depth: parents before their parts), with its parent's
 * and parts' columns and whether the parts share a window set (parts of
 * one set were counted in the same windows; equal coverage alone does
 * not say so: two groups that take turns cover half each). */
struct tree_fam {
	int pc, n, same, *cols;
};
struct tree_plan {
	int n;
	struct tree_fam *f;
};

struct tree_plan *tree_plan_new(const struct model *m, const struct sched_plan *plan, const int *mset,
				const int *mcol)
{
	struct tree_plan *tp = xcalloc(1, sizeof(*tp));
	int maxd;
	bool *planned = planned_metrics(m, plan, &maxd);
	int *kids = xmalloc(sizeof(int) * ((size_t)m->nmetrics + 1));
	tp->f = xcalloc((size_t)m->nmetrics + 2, sizeof(*tp->f));
	/* A family of no parts does nothing. */
	for (int d = 0; d < maxd; d++)
		for (int p = d == 0 ? METRIC_PARENT_WHOLE : 0; p < (d == 0 ? METRIC_PARENT_WHOLE + 1 : m->nmetrics);
		     p++) {
			if (d > 0 && !(planned[p] && m->metrics[p].depth == d))
				continue;
			int n = family(m, planned, p, kids);
			if (n == 0)
				continue;
			struct tree_fam *f = &tp->f[tp->n++];
			f->pc = p == METRIC_PARENT_WHOLE ? -1 : mcol[p];
			f->n = n;
			f->cols = xmalloc(sizeof(int) * (size_t)n);
			for (int k = 0; k < n; k++)
				f->cols[k] = mcol[kids[k]];
			f->same = n > 0 && mset[kids[0]] >= 0;
			for (int k = 1; k < n; k++)
				f->same &= mset[kids[k]] == mset[kids[0]];
		}
	free(kids);
	free(planned);
	return tp;
}

HOT_PATH void tree_plan_apply(const struct tree_plan *tp, struct snapshot *snap, const bool *const maybe[SNAP_NSCOPES])
{
	for (int i = 0; i < tp->n; i++) {
		const struct tree_fam *f = &tp->f[i];
		for (int sc = 0; sc < SNAP_NSCOPES; sc++) {
			/* A parent or part NaN in every row of the scope: every
			 * row would be left as measured (reconcile_row). */
			bool nan = f->pc >= 0 && !maybe[sc][f->pc];
			for (int k = 0; k < f->n && !nan; k++)
				nan = !maybe[sc][f->cols[k]];
			if (nan)
				continue;
			for (int r = 0; r < snap->nrows[sc]; r++)
				reconcile_row(&snap->rows[sc][r], f->pc, f->cols, f->n, f->same);
		}
	}
}

void tree_plan_apply_row(const struct tree_plan *tp, struct snap_row *row)
{
	for (int i = 0; i < tp->n; i++)
		reconcile_row(row, tp->f[i].pc, tp->f[i].cols, tp->f[i].n, tp->f[i].same);
}

void tree_plan_free(struct tree_plan *tp)
{
	if (!tp)
		return;
	for (int i = 0; i < tp->n; i++)
		free(tp->f[i].cols);
	free(tp->f);
	free(tp);
}
