/* check_formula.c: compiled formulas (formula.h) against the tree walk
 * they replace (expr_eval, expr_eval_grad with derive's rules for names):
 * for every metric of every model in events/, at every row scope, on
 * random counts that include zeros, NaN and negative values, the value
 * must be the same to the bit and the derivatives the same to rounding.
 * Also the hand-made cases the models may lack: min/max/abs choosing an
 * argument, a division by zero, a sub-metric of a wider scope, the
 * interval builtin, sub-metrics named many times (compiled once) and
 * constants folded. */
#include "config.h"
#include <check.h>
#include "check_run.h"
#include "fixture.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evdef.h"
#include "expr.h"
#include "formula.h"
#include "util.h"

/* The reference: derive.c's rules for what a name stands for. */
struct ref {
	const struct model *m;
	int sc, depth;
	const double *ev;    /* [nevents] */
	double measured_s;
	const int *vars;     /* with the derivatives: the metric's events */
	int nvars;
};

static double ref_value(void *ctx, int r)
{
	struct ref *c = ctx;
	if (r == BUILTIN_INTERVAL_S)
		return c->measured_s;
	if (r >= METRIC_REF_BASE && r < METRIC_REF_BASE + c->m->nmetrics) {
		const struct metric_def *md = &c->m->metrics[r - METRIC_REF_BASE];
		if (c->depth > 64 || (int)md->scope > c->sc || !md->expr)
			return NAN;
		c->depth++;
		double v = expr_eval(md->expr, ref_value, c);
		c->depth--;
		return v;
	}
	return r < 0 || r >= c->m->nevents ? NAN : c->ev[r];
}

static double ref_grad(void *ctx, int r, double *g)
{
	struct ref *c = ctx;
	if (r >= METRIC_REF_BASE && r < METRIC_REF_BASE + c->m->nmetrics) {
		const struct metric_def *md = &c->m->metrics[r - METRIC_REF_BASE];
		if (c->depth > 64 || (int)md->scope > c->sc || !md->expr)
			return NAN;
		c->depth++;
		double v = expr_eval_grad(md->expr, ref_grad, c, c->nvars, g);
		c->depth--;
		return v;
	}
	for (int k = 0; k < c->nvars; k++)
		if (c->vars[k] == r) {
			g[k] = 1;
			break;
		}
	return ref_value(ctx, r);
}

static bool same_value(double a, double b)
{
	return (isnan(a) && isnan(b)) || a == b;
}

/* A count as the sampler might give it: mostly positive, some zeros,
 * some unknown, now and then negative (a formula may subtract). */
static double random_count(unsigned *seed)
{
	int k = (int)(rand_r(seed) % 20);
	if (k == 0)
		return 0;
	if (k == 1)
		return NAN;
	double v = (double)(rand_r(seed) % 1000000) * pow(10, (int)(rand_r(seed) % 8));
	return k == 2 ? -v : v;
}

/* Checks metric mi of m at scope sc on one random draw; returns the
 * number of comparisons made (values and derivatives). */
static int check_metric(const struct model *m, int mi, int sc, unsigned *seed, double *ev, double *work, int nwork)
{
	const struct metric_def *md = &m->metrics[mi];
	struct formula *f = formula_compile(m, mi, sc);
	ck_assert_msg(f != NULL, "%s: %s does not compile", m->name, md->name);
	ck_assert_int_le(formula_work(f), nwork);
	ck_assert_int_ge(formula_nvars(f), md->nevents);
	for (int k = 0; k < md->nevents; k++)
		ck_assert_int_eq(formula_vars(f)[k], md->events[k]);
	for (int e = 0; e < m->nevents; e++)
		ev[e] = random_count(seed);
	double interval = 0.25 + (double)(rand_r(seed) % 8);
	struct ref c = { .m = m, .sc = sc, .ev = ev, .measured_s = interval };
	double want = md->expr ? expr_eval(md->expr, ref_value, &c) : NAN;
	for (int k = 0; k < formula_nvars(f); k++)
		work[k] = ev[formula_vars(f)[k]];
	double got = formula_eval(f, interval, work);
	ck_assert_msg(same_value(want, got), "%s: %s at scope %d: %.17g, tree %.17g", m->name, md->name, sc, got, want);
	/* Several rows at once (formula_run_rows, slot-major): each row's
	 * value is formula_eval's for its variables, to the bit. */
	enum { NR = 3 };
	int nv = formula_nvars(f);
	double *rw = xmalloc(sizeof(double) * (size_t)formula_slots(f) * NR), rowv[NR];
	for (int j = 0; j < NR; j++) {
		for (int k = 0; k < nv; k++) {
			double x = j == 0 ? ev[formula_vars(f)[k]] : random_count(seed);
			rw[(size_t)k * NR + (size_t)j] = x;
			work[k] = x;
		}
		rowv[j] = formula_eval(f, interval, work);
	}
	const double *rows = formula_run_rows(f, interval, rw, NR);
	for (int j = 0; j < NR; j++)
		ck_assert_msg(same_value(rowv[j], rows[j]) && signbit(rowv[j]) == signbit(rows[j]),
			      "%s: %s row %d of %d: %.17g, one at a time %.17g", m->name, md->name, j, NR, rows[j], rowv[j]);
	ck_assert_msg(same_value(rows[0], got), "%s: %s rows %.17g, alone %.17g", m->name, md->name, rows[0], got);
	free(rw);
	/* The same read where the variables lie (formula_run_rows_at): each
	 * at its own place in rows of a wider layout, the second absent (NaN)
	 * where there are two or more; each row's value formula_eval's for
	 * them, to the bit. */
	size_t stride = (size_t)nv + 3;
	double *vals = xmalloc(sizeof(double) * (stride * NR + 1));
	int *idx = xmalloc(sizeof(int) * ((size_t)nv + 1));
	for (int k = 0; k < nv; k++)
		idx[k] = nv >= 2 && k == 1 ? -1 : (int)(stride - 1 - (size_t)k);
	rw = xmalloc(sizeof(double) * (size_t)formula_slots(f) * NR);
	for (int j = 0; j < NR; j++) {
		for (size_t q = 0; q < stride; q++)
			vals[(size_t)j * stride + q] = random_count(seed);
		for (int k = 0; k < nv; k++)
			work[k] = idx[k] < 0 ? NAN : vals[(size_t)j * stride + (size_t)idx[k]];
		rowv[j] = formula_eval(f, interval, work);
	}
	rows = formula_run_rows_at(f, interval, vals, idx, stride, rw, NR);
	for (int j = 0; j < NR; j++)
		ck_assert_msg(same_value(rowv[j], rows[j]) && signbit(rowv[j]) == signbit(rows[j]),
			      "%s: %s row %d read in place: %.17g, one at a time %.17g", m->name, md->name, j, rows[j],
			      rowv[j]);
	free(rw);
	free(vals);
	free(idx);
	int n = 1;
	if (md->nevents <= EXPR_GRAD_MAX && md->expr) {
		double g1[EXPR_GRAD_MAX], g2[EXPR_GRAD_MAX];
		c.vars = md->events;
		c.nvars = md->nevents;
		double want2 = expr_eval_grad(md->expr, ref_grad, &c, md->nevents, g1);
		for (int k = 0; k < formula_nvars(f); k++)
			work[k] = ev[formula_vars(f)[k]];
		double got2 = formula_eval_grad(f, interval, md->nevents, g2, work);
		ck_assert_msg(same_value(want2, got2), "%s: %s grad value %.17g, tree %.17g", m->name, md->name, got2, want2);
		/* Rounding differs between the two orders of evaluation: judge
		 * each derivative by what it contributes to the linearised
		 * figure (derivative times count) against the figure's size. */
		double scale = fabs(got2), gmax = 0;
		for (int k = 0; k < md->nevents; k++) {
			double x = ev[md->events[k]];
			if (isfinite(x) && isfinite(g1[k]))
				scale += fabs(g1[k] * x);
			gmax = fmax(gmax, fmax(fabs(g1[k]), fabs(g2[k])));
		}
		if (isfinite(got2))
			for (int k = 0; k < md->nevents; k++, n++) {
				double x = fabs(ev[md->events[k]]), d = fabs(g1[k] - g2[k]);
				bool ok = x > 0 && isfinite(x) ? d * x <= 1e-9 * scale + 1e-300 : d <= 1e-9 * gmax + 1e-300;
				ck_assert_msg(ok, "%s: %s d/d%s: %.17g, tree %.17g", m->name, md->name,
					      m->events[md->events[k]].name, g2[k], g1[k]);
			}
	}
	formula_free(f);
	return n;
}

START_TEST(test_every_model_metric)
{
	struct model_info *mi = NULL;
	char *cause = NULL;
	int nm = model_list(TOP_SRCDIR "/events", &mi, &cause);
	ck_assert_msg(nm > 0, "%s", cause ? cause : "no models");
	unsigned seed = 12345;
	long checks = 0, finite = 0;
	int models = 0;
	for (int i = 0; i < nm; i++) {
		struct model *m = model_load_under(TOP_SRCDIR "/events", mi[i].dir, &cause);
		ck_assert_msg(m != NULL, "%s", cause ? cause : "");
		models++;
		double *ev = xcalloc((size_t)m->nevents + 1, sizeof(double));
		double work[2 * FORMULA_MAX_INS + 64];
		for (int j = 0; j < m->nmetrics; j++)
			for (int sc = (int)m->metrics[j].scope; sc <= SCOPE_SYSTEM; sc++)
				for (int draw = 0; draw < 20; draw++) {
					checks += check_metric(m, j, sc, &seed, ev, work, (int)(sizeof(work) / sizeof(work[0])));
					finite++;
				}
		free(ev);
		model_free(m);
	}
	model_list_free(mi, nm);
	/* Every model, and enough comparisons to mean something. */
	ck_assert_int_ge(models, 8);
	ck_assert_int_gt(checks, finite);
}
END_TEST

static char dir[64];

static void write_file(const char *name, const char *text)
{
	char *p = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	free(p);
}

/* A model made for the cases the real ones may lack. */
static struct model *hand_model(void)
{
	snprintf(dir, sizeof(dir), "/tmp/check_formula.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	write_file("model.def", "model hand\n\tinclude defs.def\n");
	char *defs = xasprintf("pmu core\n\tperf cpu\n\tkind core\n\tscope thread\n\tcounters 4\n\tfield event 0-7\n"
			       "pmu l3\n\tperf amd_l3\n\tkind uncore\n\tscope ccx\n\tcounters 4\n\tfield event 0-7\n"
			       "event a\n\tpmu core\n\traw 0x1\nevent b\n\tpmu core\n\traw 0x2\nevent c\n\tpmu l3\n\traw 0x3\n"
			       "metric mn\n\tformula min(a, b, a / b)\n"
			       "metric mx\n\tformula max(a - b, -a, abs(b))\n"
			       "metric dz\n\tformula a / (b - b)\n"
			       "metric wide\n\tformula c / a\n"
			       "metric usewide\n\tformula wide * 2 + a\n"
			       "metric ivl\n\tformula a / interval_s\n"
			       "metric folded\n\tformula 2 * 3 + a\n"
			       "metric big0\n\tformula a + b\n");
	for (int i = 1; i <= 13; i++) {
		char *more = xasprintf("%smetric big%d\n\tformula big%d + big%d\n", defs, i, i - 1, i - 1);
		free(defs);
		defs = more;
	}
	/* A chain deeper than the 64 levels derive follows: the names past
	 * them are unknown, and a sub-metric that reaches them must not be
	 * shared between two depths. */
	char *more = xasprintf("%smetric d0\n\tformula a / b\n", defs);
	free(defs);
	defs = more;
	for (int i = 1; i <= 69; i++) {
		more = xasprintf("%smetric d%d\n\tformula d%d + a\n", defs, i, i - 1);
		free(defs);
		defs = more;
	}
	more = xasprintf("%smetric dd\n\tformula d60 * d60 - d64 / d2\n"
			 "metric deep2\n\tformula d69 + d69 + d3\n"
			 "metric deep3\n\tformula d5 + d69\n", defs);
	free(defs);
	defs = more;
	write_file("defs.def", defs);
	free(defs);
	struct model *m = fx_model(dir);
	char *cmd = xasprintf("rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	return m;
}

static double eval_at(const struct model *m, const char *name, int sc, double a, double b, double c, double ivl,
		      double *grad)
{
	int mi = model_find_metric(m, name);
	ck_assert_int_ge(mi, 0);
	struct formula *f = formula_compile(m, mi, sc);
	ck_assert_ptr_nonnull(f);
	double work[256], ev[3] = { a, b, c };
	ck_assert_int_le(formula_work(f), 256);
	for (int k = 0; k < formula_nvars(f); k++)
		work[k] = ev[model_find_event(m, m->events[formula_vars(f)[k]].name)];
	double v = grad ? formula_eval_grad(f, ivl, m->metrics[mi].nevents, grad, work) : formula_eval(f, ivl, work);
	formula_free(f);
	return v;
}

START_TEST(test_hand_cases)
{
	struct model *m = hand_model();
	double g[4];
	/* min: the smallest, and its derivative; a tie keeps the first. */
	ck_assert_double_eq(eval_at(m, "mn", SCOPE_THREAD, 6, 3, 0, 1, g), 2);   /* a / b */
	ck_assert_double_eq_tol(g[0], 1.0 / 3, 1e-15);
	ck_assert_double_eq_tol(g[1], -6.0 / 9, 1e-15);
	ck_assert_double_eq(eval_at(m, "mn", SCOPE_THREAD, 1, 1, 0, 1, g), 1);
	ck_assert_double_eq(g[0], 1);
	ck_assert_double_eq(g[1], 0);
	ck_assert(isnan(eval_at(m, "mn", SCOPE_THREAD, 1, NAN, 0, 1, NULL)));
	/* max over a - b, -a and abs(b): abs of a negative b. */
	ck_assert_double_eq(eval_at(m, "mx", SCOPE_THREAD, 1, -5, 0, 1, g), 6);  /* a - b = 6 > 5 */
	ck_assert_double_eq(g[1], -1);
	ck_assert_double_eq(eval_at(m, "mx", SCOPE_THREAD, -10, -5, 0, 1, g), 10);  /* -a */
	ck_assert_double_eq(g[0], -1);
	ck_assert_double_eq(eval_at(m, "mx", SCOPE_THREAD, 1, -7, 0, 1, g), 8);
	ck_assert_double_eq(eval_at(m, "mx", SCOPE_THREAD, 20, 30, 0, 1, g), 30);  /* abs(b), b > 0 */
	ck_assert_double_eq(g[1], 1);
	/* A zero divisor is unknown, never an infinity. */
	ck_assert(isnan(eval_at(m, "dz", SCOPE_THREAD, 1, 2, 0, 1, NULL)));
	/* The builtin. */
	ck_assert_double_eq(eval_at(m, "ivl", SCOPE_THREAD, 10, 0, 0, 4, NULL), 2.5);
	/* A sub-metric of a wider scope than the row's is unknown there,
	 * known from its scope up. */
	ck_assert(isnan(eval_at(m, "usewide", SCOPE_THREAD, 2, 0, 8, 1, NULL)));
	ck_assert_double_eq(eval_at(m, "usewide", SCOPE_CCX, 2, 0, 8, 1, g), 10);
	const struct metric_def *uw = &m->metrics[model_find_metric(m, "usewide")];
	for (int k = 0; k < uw->nevents; k++)   /* d/da (2c/a + a), d/dc (2c/a + a) */
		ck_assert_double_eq(g[k], uw->events[k] == model_find_event(m, "a") ? -2 * 8.0 / 4 + 1 : 2.0 / 2);
	/* big13 names big12 twice, and so on down: 2^13 additions were it
	 * inlined as a tree; with each sub-metric compiled once, 14. */
	struct formula *big = formula_compile(m, model_find_metric(m, "big13"), SCOPE_THREAD);
	ck_assert_ptr_nonnull(big);
	ck_assert_int_le(formula_work(big), 2 * (2 + 1 + 1 + 14));
	formula_free(big);
	ck_assert_double_eq(eval_at(m, "big13", SCOPE_THREAD, 3, 5, 0, 1, g), 8192.0 * 8);
	ck_assert_double_eq(g[0], 8192);
	ck_assert_double_eq(g[1], 8192);
	/* Constants alone are folded: 2 * 3 + a is one addition. */
	struct formula *k = formula_compile(m, model_find_metric(m, "folded"), SCOPE_THREAD);
	ck_assert_int_eq(formula_work(k), 2 * (1 + 1 + 1 + 1));
	formula_free(k);
	ck_assert_double_eq(eval_at(m, "folded", SCOPE_THREAD, 4, 0, 0, 1, NULL), 10);
	/* Past 64 levels: unknown, as the tree walk says. */
	ck_assert(isfinite(eval_at(m, "d64", SCOPE_THREAD, 4, 2, 0, 1, NULL)));
	ck_assert(isnan(eval_at(m, "d69", SCOPE_THREAD, 4, 2, 0, 1, NULL)));
	ck_assert(isfinite(eval_at(m, "dd", SCOPE_THREAD, 4, 2, 0, 1, NULL)));
	/* d5 named at the top is known; named again 64 levels down it is not
	 * (its d4 is past the bound), so it cannot be the same slot. */
	ck_assert(isnan(eval_at(m, "deep3", SCOPE_THREAD, 4, 2, 0, 1, NULL)));
	/* And every metric of this model against the tree walk, as the
	 * shipped ones are. */
	unsigned seed = 777;
	double *ev = xcalloc((size_t)m->nevents + 1, sizeof(double));
	static double work[2 * FORMULA_MAX_INS + 64];
	for (int j = 0; j < m->nmetrics; j++)
		for (int sc = (int)m->metrics[j].scope; sc <= SCOPE_SYSTEM; sc++)
			for (int draw = 0; draw < 10; draw++)
				check_metric(m, j, sc, &seed, ev, work, (int)(sizeof(work) / sizeof(work[0])));
	free(ev);
	model_free(m);
}
END_TEST

static Suite *formula_suite(void)
{
	Suite *s = suite_create("formula");
	TCase *tc = tcase_create("formula");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_every_model_metric);
	tcase_add_test(tc, test_hand_cases);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(formula_suite());
}
