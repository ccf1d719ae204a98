/* formula.c: compiled formulas (formula.h). A program works on slots:
 * the variables first (work[0..nvars-1], put there by the caller), then
 * its constants and the interval, then one slot per operation, in
 * evaluation order. An operation names the slots it takes, so a leaf
 * costs nothing and "instructions / cycles" is one division. Functions
 * of several arguments become chains of binary ones, which give the same
 * value and choose the same argument. An operation on constants alone is
 * done once, here, with the same arithmetic as the evaluation. A
 * sub-metric named more than once is compiled once and its slot shared
 * (a program is a graph, not a tree), so that a formula of nested
 * sub-metrics stays as small as the metrics it names. For the
 * derivatives, adjoints go to a second array of as many slots (reverse
 * mode), which handles a shared slot by adding what each use gives it. */
#include "config.h"
#include "formula.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "expr.h"
#include "util.h"
#include "hot_path.h"

enum fop { F_NEG, F_ABS, F_ADD, F_SUB, F_MUL, F_DIV, F_MIN, F_MAX };

struct fop_ins {
	enum fop op;
	int a, b;          /* operand slots (b = a for the unary ones) */
};

/* One operation, as the evaluation and the folding of constants both do
 * it: NaN operands give NaN in IEEE arithmetic; only the zero divisor
 * needs saying (x/0 would be an infinity). */
static inline double fop_apply(enum fop op, double a, double b)
{
	switch (op) {
	case F_NEG: return -a;
	case F_ABS: return fabs(a);
	case F_ADD: return a + b;
	case F_SUB: return a - b;
	case F_MUL: return a * b;
	case F_DIV: return isnan(a) || b == 0 ? NAN : a / b;
	case F_MIN: return isnan(a) || isnan(b) ? NAN : b < a ? b : a;
	case F_MAX: return isnan(a) || isnan(b) ? NAN : b > a ? b : a;
	}
	return NAN;
}

/* Operand references while compiling: variables, constants and results
 * are numbered apart, and laid out in slots once all are known. */
enum { REF_VAR, REF_CONST, REF_IVL, REF_OP };
#define REF(kind, i) ((i) * 4 + (kind))

struct formula {
	int nvars;
	int *vars;         /* the event of each variable */
	int nconst;
	double *consts;
	int nops;
	struct fop_ins *ops;
	int result;        /* the slot of the value */
	int nslots;
	bool too_big;
	int ops_cap;
};

static int slot_of(const struct formula *f, int ref)
{
	int i = ref / 4;
	switch (ref % 4) {
	case REF_VAR: return i;
	case REF_CONST: return f->nvars + i;
	case REF_IVL: return f->nvars + f->nconst;
	default: return f->nvars + f->nconst + 1 + i;
	}
}

static int add_const(struct formula *f, double d)
{
	for (int i = 0; i < f->nconst; i++)
		if (!memcmp(&f->consts[i], &d, sizeof(d)) || (isnan(d) && isnan(f->consts[i])))
			return REF(REF_CONST, i);
	f->consts = xrealloc(f->consts, sizeof(double) * (size_t)(f->nconst + 1));
	f->consts[f->nconst] = d;
	return REF(REF_CONST, f->nconst++);
}

static int add_op(struct formula *f, enum fop op, int a, int b)
{
	/* Constants alone: the result is a constant too. */
	if (a % 4 == REF_CONST && b % 4 == REF_CONST)
		return add_const(f, fop_apply(op, f->consts[a / 4], f->consts[b / 4]));
	if (f->nops >= FORMULA_MAX_INS) {
		f->too_big = true;
		return a;
	}
	if (f->nops == f->ops_cap) {
		f->ops_cap = f->ops_cap ? 2 * f->ops_cap : 16;
		f->ops = xrealloc(f->ops, sizeof(*f->ops) * (size_t)f->ops_cap);
	}
	f->ops[f->nops] = (struct fop_ins){ .op = op, .a = a, .b = b };
	return REF(REF_OP, f->nops++);
}

static int var_of(struct formula *f, int event)
{
	for (int k = 0; k < f->nvars; k++)
		if (f->vars[k] == event)
			return REF(REF_VAR, k);
	f->vars = xrealloc(f->vars, sizeof(int) * (size_t)(f->nvars + 1));
	f->vars[f->nvars] = event;
	return REF(REF_VAR, f->nvars++);
}

struct compiler {
	const struct model *m;
	int sc;
	struct formula *f;
	int *memo;         /* [nmetrics] a sub-metric's compiled reference, -1: not yet */
	int *height;       /* [nmetrics] levels of sub-metrics below it, -1: not yet */
};

static int compile_node(struct compiler *c, const struct expr *e, int depth);
static int metric_height(struct compiler *c, int mi, int guard);

static int expr_height(struct compiler *c, const struct expr *e, int guard)
{
	int h = 0;
	if (expr_kind(e) == EXPR_NAME) {
		int ref = expr_ref(e) - METRIC_REF_BASE;
		return ref >= 0 && ref < c->m->nmetrics ? 1 + metric_height(c, ref, guard) : 0;
	}
	if (expr_kind(e) == EXPR_NUM)
		return 0;
	for (int i = 0; i < expr_nargs(e); i++) {
		int x = expr_height(c, expr_arg(e, i), guard);
		if (x > h)
			h = x;
	}
	return h;
}

/* How many levels of sub-metrics lie under metric mi. The loader
 * rejects cycles; the guard stops a broken model anyway, by overstating
 * (which only keeps a sub-metric from being shared). */
static int metric_height(struct compiler *c, int mi, int guard)
{
	if (c->height[mi] >= 0)
		return c->height[mi];
	if (guard > 70)
		return 70;
	const struct metric_def *md = &c->m->metrics[mi];
	int h = md->expr ? expr_height(c, md->expr, guard + 1) : 0;
	c->height[mi] = h;
	return h;
}

/* What a name stands for, with derive's rules: the interval, a sub-metric
 * evaluated in place (NaN beyond 64 levels, at a wider scope than the
 * row's, or without a formula), an event, or NaN. A sub-metric is shared
 * where it is the same wherever it is named: when none of the names
 * under it comes near the 64 levels. */
static int compile_ref(struct compiler *c, int ref, int depth)
{
	const struct model *m = c->m;
	if (ref == BUILTIN_INTERVAL_S)
		return REF(REF_IVL, 0);
	if (ref >= METRIC_REF_BASE && ref < METRIC_REF_BASE + m->nmetrics) {
		int j = ref - METRIC_REF_BASE;
		const struct metric_def *md = &m->metrics[j];
		if (depth > 64 || (int)md->scope > c->sc || !md->expr)
			return add_const(c->f, NAN);
		bool share = depth + metric_height(c, j, 0) <= 64;
		if (share && c->memo[j] >= 0)
			return c->memo[j];
		int res = compile_node(c, md->expr, depth + 1);
		if (share)
			c->memo[j] = res;
		return res;
	}
	if (ref < 0 || ref >= m->nevents)
		return add_const(c->f, NAN);
	return var_of(c->f, ref);
}

static int compile_node(struct compiler *c, const struct expr *e, int depth)
{
	if (c->f->too_big)
		return add_const(c->f, NAN);
	int a, b;
	enum fop op;
	switch (expr_kind(e)) {
	case EXPR_NUM:
		return add_const(c->f, expr_num(e));
	case EXPR_NAME:
		return expr_ref(e) < 0 ? add_const(c->f, NAN) : compile_ref(c, expr_ref(e), depth);
	case EXPR_NEG:
	case EXPR_ABS:
		a = compile_node(c, expr_arg(e, 0), depth);
		return add_op(c->f, expr_kind(e) == EXPR_NEG ? F_NEG : F_ABS, a, a);
	case EXPR_ADD:
	case EXPR_SUB:
	case EXPR_MUL:
	case EXPR_DIV:
		a = compile_node(c, expr_arg(e, 0), depth);
		b = compile_node(c, expr_arg(e, 1), depth);
		op = expr_kind(e) == EXPR_ADD ? F_ADD : expr_kind(e) == EXPR_SUB ? F_SUB
		   : expr_kind(e) == EXPR_MUL ? F_MUL : F_DIV;
		return add_op(c->f, op, a, b);
	case EXPR_MIN:
	case EXPR_MAX:
		a = compile_node(c, expr_arg(e, 0), depth);
		for (int i = 1; i < expr_nargs(e); i++) {
			b = compile_node(c, expr_arg(e, i), depth);
			a = add_op(c->f, expr_kind(e) == EXPR_MIN ? F_MIN : F_MAX, a, b);
		}
		return a;
	}
	return add_const(c->f, NAN);
}

struct formula *formula_compile(const struct model *m, int mi, int sc)
{
	const struct metric_def *md = &m->metrics[mi];
	struct formula *f = xcalloc(1, sizeof(*f));
	/* The metric's own events first, so that derivatives line up with
	 * md->events as expr_eval_grad's did. */
	for (int k = 0; k < md->nevents; k++)
		var_of(f, md->events[k]);
	struct compiler c = { .m = m, .sc = sc, .f = f };
	c.memo = xmalloc(sizeof(int) * ((size_t)m->nmetrics + 1));
	c.height = xmalloc(sizeof(int) * ((size_t)m->nmetrics + 1));
	for (int j = 0; j < m->nmetrics; j++)
		c.memo[j] = c.height[j] = -1;
	int res = md->expr ? compile_node(&c, md->expr, 0) : add_const(f, NAN);
	free(c.memo);
	free(c.height);
	if (f->too_big) {
		formula_free(f);
		return NULL;
	}
	/* Constants that only fed a folded operation are dropped. */
	int *keep = xmalloc(sizeof(int) * ((size_t)f->nconst + 1)), nk = 0;
	for (int i = 0; i < f->nconst; i++)
		keep[i] = -1;
	for (int i = 0; i < f->nops; i++) {
		if (f->ops[i].a % 4 == REF_CONST)
			keep[f->ops[i].a / 4] = 0;
		if (f->ops[i].b % 4 == REF_CONST)
			keep[f->ops[i].b / 4] = 0;
	}
	if (res % 4 == REF_CONST)
		keep[res / 4] = 0;
	for (int i = 0; i < f->nconst; i++)
		if (keep[i] == 0) {
			f->consts[nk] = f->consts[i];
			keep[i] = nk++;
		}
	for (int i = 0; i < f->nops; i++) {
		if (f->ops[i].a % 4 == REF_CONST)
			f->ops[i].a = REF(REF_CONST, keep[f->ops[i].a / 4]);
		if (f->ops[i].b % 4 == REF_CONST)
			f->ops[i].b = REF(REF_CONST, keep[f->ops[i].b / 4]);
	}
	if (res % 4 == REF_CONST)
		res = REF(REF_CONST, keep[res / 4]);
	f->nconst = nk;
	free(keep);
	/* Every reference becomes a slot now that the layout is known. */
	for (int i = 0; i < f->nops; i++) {
		f->ops[i].a = slot_of(f, f->ops[i].a);
		f->ops[i].b = slot_of(f, f->ops[i].b);
	}
	f->result = slot_of(f, res);
	f->nslots = f->nvars + f->nconst + 1 + f->nops;
	return f;
}

void formula_free(struct formula *f)
{
	if (!f)
		return;
	free(f->ops);
	free(f->vars);
	free(f->consts);
	free(f);
}

int formula_nvars(const struct formula *f) { return f->nvars; }
const int *formula_vars(const struct formula *f) { return f->vars; }
int formula_work(const struct formula *f) { return 2 * f->nslots; }

void formula_prime(const struct formula *f, double measured_s, double *v)
{
	double *k = v + f->nvars;
	for (int i = 0; i < f->nconst; i++)
		k[i] = f->consts[i];
	k[f->nconst] = measured_s;
}

double formula_run(const struct formula *f, double *v)
{
	double *out = v + f->nvars + f->nconst + 1;
	if (f->nops == 1) {
		/* One operation ("a / b", most ratios): no loop. */
		out[0] = fop_apply(f->ops[0].op, v[f->ops[0].a], v[f->ops[0].b]);
		return v[f->result];
	}
	for (int i = 0; i < f->nops; i++) {
		const struct fop_ins *p = &f->ops[i];
		out[i] = fop_apply(p->op, v[p->a], v[p->b]);
	}
	return v[f->result];
}

/* One operation over n rows: the switch outside the loop. */
static void fop_rows(enum fop op, const double *a, const double *b, double *out, int n)
{
	switch (op) {
	case F_NEG: for (int i = 0; i < n; i++) out[i] = fop_apply(F_NEG, a[i], b[i]); break;
	case F_ABS: for (int i = 0; i < n; i++) out[i] = fop_apply(F_ABS, a[i], b[i]); break;
	case F_ADD: for (int i = 0; i < n; i++) out[i] = fop_apply(F_ADD, a[i], b[i]); break;
	case F_SUB: for (int i = 0; i < n; i++) out[i] = fop_apply(F_SUB, a[i], b[i]); break;
	case F_MUL: for (int i = 0; i < n; i++) out[i] = fop_apply(F_MUL, a[i], b[i]); break;
	case F_DIV: for (int i = 0; i < n; i++) out[i] = fop_apply(F_DIV, a[i], b[i]); break;
	case F_MIN: for (int i = 0; i < n; i++) out[i] = fop_apply(F_MIN, a[i], b[i]); break;
	case F_MAX: for (int i = 0; i < n; i++) out[i] = fop_apply(F_MAX, a[i], b[i]); break;
	}
}

/* One operation over n rows, each operand read at its own stride (0: the
 * same value in every row). */
HOT_PATH static void fop_rows_at(enum fop op, const double *a, size_t sa, const double *b, size_t sb, double *out, int n)
{
#define FOP_ROWS_AT(OP) \
	for (size_t i = 0, ia = 0, ib = 0; i < (size_t)n; i++, ia += sa, ib += sb) \
		out[i] = fop_apply(OP, a[ia], b[ib])
	switch (op) {
	case F_NEG: FOP_ROWS_AT(F_NEG); break;
	case F_ABS: FOP_ROWS_AT(F_ABS); break;
	case F_ADD: FOP_ROWS_AT(F_ADD); break;
	case F_SUB: FOP_ROWS_AT(F_SUB); break;
	case F_MUL: FOP_ROWS_AT(F_MUL); break;
	case F_DIV: FOP_ROWS_AT(F_DIV); break;
	case F_MIN: FOP_ROWS_AT(F_MIN); break;
	case F_MAX: FOP_ROWS_AT(F_MAX); break;
	}
#undef FOP_ROWS_AT
}

const double *formula_run_rows(const struct formula *f, double measured_s, double *work, int n)
{
	size_t N = (size_t)n;
	int base = f->nvars + f->nconst + 1;
	/* A constant (or the interval) operand is read as it is, not spread
	 * over a column of n rows first: the same operations on the same
	 * values, without a column per constant written and read for every
	 * metric of every scope. */
#define IS_K(s) ((s) >= f->nvars && (s) < base)
#define K(s) ((s) < f->nvars + f->nconst ? f->consts[(s) - f->nvars] : measured_s)
	if (IS_K(f->result)) {
		double c = K(f->result), *col = work + (size_t)f->result * N;
		for (int r = 0; r < n; r++)
			col[r] = c;
	}
	for (int i = 0; i < f->nops; i++) {
		const struct fop_ins *p = &f->ops[i];
		double *out = work + (size_t)(base + i) * N;
		bool ka = IS_K(p->a), kb = IS_K(p->b);
		if (!ka && !kb) {
			fop_rows(p->op, work + (size_t)p->a * N, work + (size_t)p->b * N, out, n);
		} else if (ka && kb) {
			double c = fop_apply(p->op, K(p->a), K(p->b));
			for (int r = 0; r < n; r++)
				out[r] = c;
		} else {
			/* The constant read at stride 0. */
			double k = ka ? K(p->a) : K(p->b);
			const double *x = work + (size_t)(ka ? p->b : p->a) * N;
			fop_rows_at(p->op, ka ? &k : x, ka ? 0 : 1, ka ? x : &k, ka ? 1 : 0, out, n);
		}
	}
#undef IS_K
#undef K
	return work + (size_t)f->result * N;
}

HOT_PATH const double *formula_run_rows_at(const struct formula *f, double measured_s, const double *vals, const int *idx,
				  size_t stride, double *work, int n)
{
	static const double nan_v = NAN;
	size_t N = (size_t)n;
	int base = f->nvars + f->nconst + 1;
	/* Where slot s of row 0 lies and the step to the next row's: a
	 * variable where the caller has it, a constant or the interval
	 * (and a variable of no value) the same in every row, a result in
	 * its column of work. */
#define SLOT_AT(s, p, st) \
	do { \
		if ((s) < f->nvars) { \
			(p) = idx[s] < 0 ? &nan_v : vals + idx[s]; \
			(st) = idx[s] < 0 ? 0 : stride; \
		} else if ((s) < f->nvars + f->nconst) { \
			(p) = &f->consts[(s) - f->nvars]; \
			(st) = 0; \
		} else if ((s) == f->nvars + f->nconst) { \
			(p) = &measured_s; \
			(st) = 0; \
		} else { \
			(p) = work + (size_t)(s) * N; \
			(st) = 1; \
		} \
	} while (0)
	for (int i = 0; i < f->nops; i++) {
		const struct fop_ins *p = &f->ops[i];
		const double *a, *b;
		size_t sa, sb;
		SLOT_AT(p->a, a, sa);
		SLOT_AT(p->b, b, sb);
		fop_rows_at(p->op, a, sa, b, sb, work + (size_t)(base + i) * N, n);
	}
	if (f->result < base) {
		/* The value is a variable or a constant itself: its column. */
		const double *r;
		size_t sr;
		SLOT_AT(f->result, r, sr);
		double *col = work + (size_t)f->result * N;
		for (size_t i = 0, ir = 0; i < N; i++, ir += sr)
			col[i] = r[ir];
	}
#undef SLOT_AT
	return work + (size_t)f->result * N;
}

int formula_slots(const struct formula *f) { return f->nslots; }

double formula_eval(const struct formula *f, double measured_s, double *v)
{
	formula_prime(f, measured_s, v);
	return formula_run(f, v);
}

double formula_eval_grad(const struct formula *f, double measured_s, int n, double *grad, double *v)
{
	double r = formula_eval(f, measured_s, v);
	for (int k = 0; k < n; k++)
		grad[k] = 0;
	if (!isfinite(r))
		return r;
	double *adj = v + f->nslots;
	memset(adj, 0, sizeof(double) * (size_t)f->nslots);
	adj[f->result] = 1;
	int base = f->nvars + f->nconst + 1;
	for (int i = f->nops - 1; i >= 0; i--) {
		const struct fop_ins *p = &f->ops[i];
		double d = adj[base + i];
		if (d == 0)
			continue;
		switch (p->op) {
		case F_NEG: adj[p->a] -= d; break;
		case F_ABS: adj[p->a] += v[p->a] < 0 ? -d : d; break;
		case F_ADD: adj[p->a] += d; adj[p->b] += d; break;
		case F_SUB: adj[p->a] += d; adj[p->b] -= d; break;
		case F_MUL: adj[p->a] += d * v[p->b]; adj[p->b] += d * v[p->a]; break;
		case F_DIV:
			adj[p->a] += d / v[p->b];
			adj[p->b] -= d * v[p->a] / (v[p->b] * v[p->b]);
			break;
		/* The argument chosen, as expr_eval_grad keeps its gradient. */
		case F_MIN: adj[v[p->b] < v[p->a] ? p->b : p->a] += d; break;
		case F_MAX: adj[v[p->b] > v[p->a] ? p->b : p->a] += d; break;
		}
	}
	for (int k = 0; k < n && k < f->nvars; k++)
		grad[k] = adj[k];
	return r;
}
