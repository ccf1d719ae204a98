/* expr.c: the formula language of metric definitions. A recursive-descent
 * parser builds a tree once; names are resolved once to integer references;
 * evaluation walks the tree per sample. Missing values and zero divisors
 * give NaN, and NaN propagates through every operator and function, so a
 * metric that cannot be computed shows "-" rather than a made-up number. */
#include "config.h"
#include "expr.h"
#include "util.h"

#include <ctype.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum node_kind { N_NUM, N_NAME, N_NEG, N_ADD, N_SUB, N_MUL, N_DIV, N_MIN, N_MAX, N_ABS };

struct expr {
	enum node_kind kind;
	int col;               /* 1-based column of the node's first character */
	double num;            /* N_NUM */
	char *text;            /* N_NUM: the number as written; N_NAME: the name */
	int ref;               /* N_NAME: resolved reference, -1 before expr_resolve */
	int height;            /* longest path to a leaf, to bound recursion */
	int nargs;
	struct expr **args;    /* operands and function arguments */
};

/* Nesting beyond this is refused, so that a hostile or broken file cannot
 * exhaust the stack of the recursive parser, evaluator or formatter. */
#define EXPR_MAX_DEPTH 200
/* Long chains such as a + b + c + ... build a deep left-leaning tree without
 * nesting; evaluation recurses along it, so its height is bounded too. */
#define EXPR_MAX_HEIGHT 1000

struct parser {
	const char *text;
	const char *p;
	int depth;
	int err_col;
	char *err;
};

static struct expr *node_new(enum node_kind kind, int col)
{
	struct expr *e = xcalloc(1, sizeof(*e));
	e->kind = kind;
	e->col = col;
	e->ref = -1;
	e->height = 1;
	return e;
}

static void node_add(struct expr *e, struct expr *arg)
{
	e->args = xrealloc(e->args, (size_t)(e->nargs + 1) * sizeof(*e->args));
	e->args[e->nargs++] = arg;
	if (arg->height + 1 > e->height)
		e->height = arg->height + 1;
}

void expr_free(struct expr *e)
{
	if (!e)
		return;
	for (int i = 0; i < e->nargs; i++)
		expr_free(e->args[i]);
	free(e->args);
	free(e->text);
	free(e);
}

static int col_of(const struct parser *ps, const char *at)
{
	return (int)(at - ps->text) + 1;
}

static void skip_space(struct parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t')
		ps->p++;
}

/* Describes what stands at the parser's position, for "but found ...". */
static char *found_desc(const char *at)
{
	if (!*at)
		return xstrdup("end of formula");
	if (isalnum((unsigned char)*at) || *at == '_') {
		size_t n = 0;
		while (isalnum((unsigned char)at[n]) || at[n] == '_' || at[n] == '.')
			n++;
		return xasprintf("'%.*s'", (int)n, at);
	}
	return xasprintf("'%c'", *at);
}

/* Records the first error only; later errors are consequences of it. */
static struct expr *fail(struct parser *ps, const char *at, const char *what)
{
	if (!ps->err) {
		char *found = found_desc(at);
		ps->err_col = col_of(ps, at);
		ps->err = xasprintf("col %d: %s but found %s", ps->err_col, what, found);
		free(found);
	}
	return NULL;
}

static bool is_name_start(char c)
{
	return isalpha((unsigned char)c) || c == '_';
}

static bool is_name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.';
}

/* strtod() follows LC_NUMERIC, which the dashboard sets from the user's
 * environment; formulas always use '.', so numbers are read in the C locale.
 * Formulas are parsed once at load time, so a locale per number is cheap. */
static double strtod_c(const char *s)
{
	locale_t c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	double v = c ? strtod_l(s, NULL, c) : strtod(s, NULL);
	if (c)
		freelocale(c);
	return v;
}

static struct expr *parse_number(struct parser *ps)
{
	const char *start = ps->p, *q = ps->p;
	double v;

	if (q[0] == '0' && (q[1] == 'x' || q[1] == 'X')) {
		q += 2;
		if (!isxdigit((unsigned char)*q))
			return fail(ps, q, "expected hex digits after '0x'");
		v = 0;
		while (isxdigit((unsigned char)*q)) {
			int d = isdigit((unsigned char)*q) ? *q - '0' : (tolower((unsigned char)*q) - 'a' + 10);
			v = v * 16 + d;
			q++;
		}
	} else {
		while (isdigit((unsigned char)*q))
			q++;
		if (*q == '.') {
			q++;
			while (isdigit((unsigned char)*q))
				q++;
		}
		if (*q == 'e' || *q == 'E') {
			const char *e = q + 1;
			if (*e == '+' || *e == '-')
				e++;
			if (!isdigit((unsigned char)*e))
				return fail(ps, e, "expected digits in the exponent");
			while (isdigit((unsigned char)*e))
				e++;
			q = e;
		}
		char *copy = xstrndup(start, (size_t)(q - start));
		v = strtod_c(copy);
		free(copy);
	}
	if (is_name_char(*q))
		return fail(ps, q, "expected an operator after a number");
	struct expr *e = node_new(N_NUM, col_of(ps, start));
	e->num = v;
	e->text = xstrndup(start, (size_t)(q - start));
	ps->p = q;
	return e;
}

static struct expr *parse_sum(struct parser *ps);

static struct expr *parse_call(struct parser *ps, const char *name_start, size_t len)
{
	enum node_kind kind;
	char *fname = xstrndup(name_start, len);
	if (!strcmp(fname, "min"))
		kind = N_MIN;
	else if (!strcmp(fname, "max"))
		kind = N_MAX;
	else if (!strcmp(fname, "abs"))
		kind = N_ABS;
	else {
		if (!ps->err) {
			ps->err_col = col_of(ps, name_start);
			ps->err = xasprintf("col %d: expected min, max or abs but found unknown function '%s'",
					    ps->err_col, fname);
		}
		free(fname);
		return NULL;
	}
	struct expr *e = node_new(kind, col_of(ps, name_start));
	ps->p++; /* '(' */
	for (;;) {
		struct expr *arg = parse_sum(ps);
		if (!arg)
			goto fail;
		node_add(e, arg);
		skip_space(ps);
		if (*ps->p == ',' && kind == N_ABS) {
			fail(ps, ps->p, "expected ')' after the one argument of abs()");
			goto fail;
		}
		if (*ps->p == ',') {
			ps->p++;
			continue;
		}
		if (*ps->p == ')')
			break;
		char *what = xasprintf("expected ',' or ')' in the arguments of %s()", fname);
		fail(ps, ps->p, what);
		free(what);
		goto fail;
	}
	ps->p++; /* ')' */
	free(fname);
	return e;
fail:
	free(fname);
	expr_free(e);
	return NULL;
}

static struct expr *parse_primary(struct parser *ps)
{
	skip_space(ps);
	const char *start = ps->p;
	if (isdigit((unsigned char)*start) || (*start == '.' && isdigit((unsigned char)start[1])))
		return parse_number(ps);
	if (is_name_start(*start)) {
		const char *q = start;
		while (is_name_char(*q))
			q++;
		/* perf's privilege modifiers end an event's name: `instructions:u`. */
		if (*q == ':' && isalpha((unsigned char)q[1]))
			for (q++; isalpha((unsigned char)*q);)
				q++;
		size_t len = (size_t)(q - start);
		ps->p = q;
		skip_space(ps);
		if (*ps->p == '(')
			return parse_call(ps, start, len);
		struct expr *e = node_new(N_NAME, col_of(ps, start));
		e->text = xstrndup(start, len);
		return e;
	}
	if (*start == '(') {
		ps->p++;
		struct expr *e = parse_sum(ps);
		if (!e)
			return NULL;
		skip_space(ps);
		if (*ps->p != ')') {
			expr_free(e);
			return fail(ps, ps->p, "expected ')'");
		}
		ps->p++;
		return e;
	}
	return fail(ps, start, "expected a number, a name or '('");
}

static struct expr *parse_unary(struct parser *ps)
{
	skip_space(ps);
	if (++ps->depth > EXPR_MAX_DEPTH) {
		ps->depth--;
		return fail(ps, ps->p, "expected at most 200 levels of nesting");
	}
	struct expr *e;
	if (*ps->p == '-') {
		int col = col_of(ps, ps->p);
		ps->p++;
		struct expr *operand = parse_unary(ps);
		if (!operand) {
			e = NULL;
		} else {
			e = node_new(N_NEG, col);
			node_add(e, operand);
		}
	} else {
		e = parse_primary(ps);
	}
	ps->depth--;
	return e;
}

/* One left-associative level of binary operators: a chain of operands
 * parsed by next(), joined by op1 (kind k1) or op2 (kind k2). */
static struct expr *parse_level(struct parser *ps, struct expr *(*next)(struct parser *),
				char op1, enum node_kind k1, char op2, enum node_kind k2)
{
	struct expr *left = next(ps);
	while (left) {
		skip_space(ps);
		char op = *ps->p;
		if (op != op1 && op != op2)
			break;
		int col = col_of(ps, ps->p);
		ps->p++;
		struct expr *right = next(ps);
		if (!right) {
			expr_free(left);
			return NULL;
		}
		struct expr *e = node_new(op == op1 ? k1 : k2, col);
		node_add(e, left);
		node_add(e, right);
		left = e;
		if (e->height > EXPR_MAX_HEIGHT) {
			expr_free(e);
			return fail(ps, ps->p, "expected at most 1000 operators in one formula");
		}
	}
	return left;
}

static struct expr *parse_product(struct parser *ps)
{
	return parse_level(ps, parse_unary, '*', N_MUL, '/', N_DIV);
}

static struct expr *parse_sum(struct parser *ps)
{
	return parse_level(ps, parse_product, '+', N_ADD, '-', N_SUB);
}

struct expr *expr_parse(const char *text, int *col, char **cause)
{
	struct parser ps = { .text = text ? text : "", .p = text ? text : "" };
	struct expr *e = parse_sum(&ps);
	if (e) {
		skip_space(&ps);
		if (*ps.p) {
			expr_free(e);
			e = fail(&ps, ps.p, "expected an operator or the end of the formula");
		}
	}
	if (!e) {
		if (col)
			*col = ps.err_col;
		if (cause)
			*cause = ps.err;
		else
			free(ps.err);
	}
	return e;
}

/* Appends to a growable array of distinct strings or ints. */
static void collect_names(const struct expr *e, const char ***names, int *n)
{
	if (e->kind == N_NAME) {
		for (int i = 0; i < *n; i++)
			if (!strcmp((*names)[i], e->text))
				return;
		*names = xrealloc(*names, (size_t)(*n + 1) * sizeof(**names));
		(*names)[(*n)++] = e->text;
		return;
	}
	for (int i = 0; i < e->nargs; i++)
		collect_names(e->args[i], names, n);
}

int expr_names(const struct expr *e, const char ***names)
{
	int n = 0;
	*names = NULL;
	if (e)
		collect_names(e, names, &n);
	if (!*names)
		*names = xcalloc(1, sizeof(**names));
	return n;
}

static int resolve_node(struct expr *e, expr_resolve_fn resolve, void *ctx, int *col, char **cause)
{
	if (e->kind == N_NAME) {
		e->ref = resolve(ctx, e->text);
		if (e->ref < 0) {
			if (col)
				*col = e->col;
			return set_cause(cause, "unknown name '%s'", e->text);
		}
		return 0;
	}
	for (int i = 0; i < e->nargs; i++)
		if (resolve_node(e->args[i], resolve, ctx, col, cause) < 0)
			return -1;
	return 0;
}

int expr_resolve(struct expr *e, expr_resolve_fn resolve, void *ctx, int *col, char **cause)
{
	if (!e)
		return set_cause(cause, "no formula");
	return resolve_node(e, resolve, ctx, col, cause);
}

static void collect_ids(const struct expr *e, int **ids, int *n)
{
	if (e->kind == N_NAME) {
		if (e->ref < 0)
			return;
		for (int i = 0; i < *n; i++)
			if ((*ids)[i] == e->ref)
				return;
		*ids = xrealloc(*ids, (size_t)(*n + 1) * sizeof(**ids));
		(*ids)[(*n)++] = e->ref;
		return;
	}
	for (int i = 0; i < e->nargs; i++)
		collect_ids(e->args[i], ids, n);
}

int expr_ids(const struct expr *e, int **ids)
{
	int n = 0;
	*ids = NULL;
	if (e)
		collect_ids(e, ids, &n);
	if (!*ids)
		*ids = xcalloc(1, sizeof(**ids));
	return n;
}

double expr_eval(const struct expr *e, expr_value_fn value, void *ctx)
{
	if (!e)
		return NAN;
	double a, b;
	switch (e->kind) {
	case N_NUM:
		return e->num;
	case N_NAME:
		return e->ref < 0 ? NAN : value(ctx, e->ref);
	case N_NEG:
		return -expr_eval(e->args[0], value, ctx);
	case N_ADD:
	case N_SUB:
	case N_MUL:
	case N_DIV:
		a = expr_eval(e->args[0], value, ctx);
		b = expr_eval(e->args[1], value, ctx);
		if (isnan(a) || isnan(b))
			return NAN;
		switch (e->kind) {
		case N_ADD: return a + b;
		case N_SUB: return a - b;
		case N_MUL: return a * b;
		default:    return b == 0 ? NAN : a / b;
		}
	case N_MIN:
	case N_MAX:
		a = expr_eval(e->args[0], value, ctx);
		for (int i = 1; i < e->nargs && !isnan(a); i++) {
			b = expr_eval(e->args[i], value, ctx);
			if (isnan(b))
				a = NAN;
			else if (e->kind == N_MIN ? b < a : b > a)
				a = b;
		}
		return a;
	case N_ABS:
		return fabs(expr_eval(e->args[0], value, ctx));
	}
	return NAN;
}

static void grad_zero(double *g, int n)
{
	for (int i = 0; i < n; i++)
		g[i] = 0;
}

double expr_eval_grad(const struct expr *e, expr_grad_fn value, void *ctx, int n, double *grad)
{
	double a, b, gb[EXPR_GRAD_MAX];
	if (n > EXPR_GRAD_MAX)
		n = EXPR_GRAD_MAX;
	/* Operators overwrite grad from their operands' results; only leaves
	 * (and a missing tree) start it from zero. */
	if (!e) {
		grad_zero(grad, n);
		return NAN;
	}
	switch (e->kind) {
	case N_NUM:
		grad_zero(grad, n);
		return e->num;
	case N_NAME:
		grad_zero(grad, n);
		return e->ref < 0 ? NAN : value(ctx, e->ref, grad);
	case N_NEG:
		a = expr_eval_grad(e->args[0], value, ctx, n, grad);
		for (int i = 0; i < n; i++)
			grad[i] = -grad[i];
		return -a;
	case N_ADD:
	case N_SUB:
	case N_MUL:
	case N_DIV:
		a = expr_eval_grad(e->args[0], value, ctx, n, grad);
		b = expr_eval_grad(e->args[1], value, ctx, n, gb);
		if (isnan(a) || isnan(b))
			return NAN;
		switch (e->kind) {
		case N_ADD:
			for (int i = 0; i < n; i++)
				grad[i] += gb[i];
			return a + b;
		case N_SUB:
			for (int i = 0; i < n; i++)
				grad[i] -= gb[i];
			return a - b;
		case N_MUL:
			for (int i = 0; i < n; i++)
				grad[i] = grad[i] * b + a * gb[i];
			return a * b;
		default:
			if (b == 0)
				return NAN;
			for (int i = 0; i < n; i++)
				grad[i] = (grad[i] * b - a * gb[i]) / (b * b);
			return a / b;
		}
	case N_MIN:
	case N_MAX:
		a = expr_eval_grad(e->args[0], value, ctx, n, grad);
		for (int k = 1; k < e->nargs && !isnan(a); k++) {
			b = expr_eval_grad(e->args[k], value, ctx, n, gb);
			if (isnan(b)) {
				a = NAN;
			} else if (e->kind == N_MIN ? b < a : b > a) {
				a = b;
				memcpy(grad, gb, sizeof(double) * (size_t)n);
			}
		}
		return a;
	case N_ABS:
		a = expr_eval_grad(e->args[0], value, ctx, n, grad);
		if (a < 0)
			for (int i = 0; i < n; i++)
				grad[i] = -grad[i];
		return fabs(a);
	}
	grad_zero(grad, n);
	return NAN;
}

/* The accessors follow node_kind's order, checked at compile time. */
_Static_assert((int)EXPR_ABS == (int)N_ABS && (int)EXPR_NUM == (int)N_NUM && (int)EXPR_DIV == (int)N_DIV,
	       "enum expr_kind mirrors enum node_kind");
enum expr_kind expr_kind(const struct expr *e) { return (enum expr_kind)e->kind; }
int expr_nargs(const struct expr *e) { return e->nargs; }
const struct expr *expr_arg(const struct expr *e, int i) { return e->args[i]; }
double expr_num(const struct expr *e) { return e->num; }
int expr_ref(const struct expr *e) { return e->ref; }

/* Binding strength for deciding where expr_format needs parentheses. */
static int prec(const struct expr *e)
{
	switch (e->kind) {
	case N_ADD: case N_SUB: return 1;
	case N_MUL: case N_DIV: return 2;
	case N_NEG: return 3;
	default: return 4;
	}
}

struct sbuf { char *s; size_t len, cap; };

static void sb_add(struct sbuf *b, const char *s)
{
	size_t n = strlen(s);
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->s = xrealloc(b->s, b->cap);
	}
	memcpy(b->s + b->len, s, n + 1);
	b->len += n;
}

static void format_node(const struct expr *e, expr_rename_fn rename, void *ctx, struct sbuf *b);

static void format_child(const struct expr *c, bool paren, expr_rename_fn rename, void *ctx, struct sbuf *b)
{
	if (paren)
		sb_add(b, "(");
	format_node(c, rename, ctx, b);
	if (paren)
		sb_add(b, ")");
}

static void format_node(const struct expr *e, expr_rename_fn rename, void *ctx, struct sbuf *b)
{
	static const char *const binop[] = { [N_ADD] = " + ", [N_SUB] = " - ", [N_MUL] = " * ", [N_DIV] = " / " };
	static const char *const fname[] = { [N_MIN] = "min(", [N_MAX] = "max(", [N_ABS] = "abs(" };
	const char *s;

	switch (e->kind) {
	case N_NUM:
		sb_add(b, e->text);
		break;
	case N_NAME:
		s = rename ? rename(ctx, e->ref, e->text) : NULL;
		sb_add(b, s ? s : e->text);
		break;
	case N_NEG:
		sb_add(b, "-");
		/* "--x" rather than "-(-x)": parentheses would add a level of
		 * nesting per minus, and text that parsed within the nesting
		 * limit must format to text that parses too. */
		format_child(e->args[0], prec(e->args[0]) < 3, rename, ctx, b);
		break;
	case N_ADD: case N_SUB: case N_MUL: case N_DIV:
		/* Operators are left-associative: a right operand of equal
		 * strength needs parentheses, a left one does not. */
		format_child(e->args[0], prec(e->args[0]) < prec(e), rename, ctx, b);
		sb_add(b, binop[e->kind]);
		format_child(e->args[1], prec(e->args[1]) <= prec(e), rename, ctx, b);
		break;
	case N_MIN: case N_MAX: case N_ABS:
		sb_add(b, fname[e->kind]);
		for (int i = 0; i < e->nargs; i++) {
			if (i)
				sb_add(b, ", ");
			format_node(e->args[i], rename, ctx, b);
		}
		sb_add(b, ")");
		break;
	}
}

char *expr_format(const struct expr *e, expr_rename_fn rename, void *ctx)
{
	struct sbuf b = { 0 };
	sb_add(&b, "");
	if (e)
		format_node(e, rename, ctx, &b);
	return b.s;
}
