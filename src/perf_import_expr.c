/* perf_import_expr.c: translates a Linux perf MetricExpr (the language of
 * tools/perf/util/expr.y) into pmctop's formula language (expr.h).
 *
 * What pmctop's formulas cannot say is decided here, at import time, when
 * it can be: `#SMT_on`, `has_event()`, `strcmp_cpuid_str()` and the other
 * constants are known for the CPU being imported, so `A if #SMT_on else B`
 * becomes A or B, and the branch not taken is never looked at (it may name
 * an event this CPU lacks, which is why perf wrote the condition). A
 * condition on counts (`A if X < Y else B`) and `source_count()` have no
 * pmctop equivalent: such a metric is refused with the reason, which the
 * caller lists. perf's privilege modifiers (`:u`, `:k`, ...) carry over to
 * pmctop's names, which take the same ones. `d_ratio(a, b)` becomes a / b,
 * which is NaN (shown `-`) where perf would print 0 for a zero divisor. */
#include "config.h"
#include "util.h"
#include "perf_import.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A sub-expression: a constant folded at import, formula text, or the
 * reason it cannot be translated (kept until it is known to be used). */
enum val_kind { V_CONST, V_TEXT, V_ERR };
struct val {
	enum val_kind kind;
	double c;
	char *s;      /* V_TEXT: formula; V_ERR: reason */
};

struct pp {
	const char *text;
	const char *p;
	const struct perf_expr_env *env;
	char *syntax;         /* a syntax error: the whole translation fails */
	int depth;
};

#define PP_MAX_DEPTH 200

static struct val v_const(double c) { return (struct val){ V_CONST, c, NULL }; }
static struct val v_text(char *s) { return (struct val){ V_TEXT, 0, s }; }
static struct val v_err(char *s) { return (struct val){ V_ERR, 0, s }; }
static void v_free(struct val *v) { free(v->s); v->s = NULL; }

static void syntax(struct pp *pp, const char *what)
{
	if (!pp->syntax)
		pp->syntax = xasprintf("col %d: expected %s", (int)(pp->p - pp->text) + 1, what);
}

static void skip_ws(struct pp *pp)
{
	while (isspace((unsigned char)*pp->p))
		pp->p++;
}

/* perf's symbol characters (expr.l), plus a backslash escaping any one. */
static bool sym_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.' || c == ':' || c == '@' || c == '?';
}

/* Formula text of v, which must not be V_ERR. */
static char *v_str(const struct val *v)
{
	if (v->kind == V_CONST)
		return xasprintf("%.17g", v->c);
	return xstrdup(v->s);
}

/* Combines two values with operator op ("+", "<", ...): folded when both
 * are constants, text when the operator exists in pmctop's language, else
 * the reason it does not. */
static struct val binop(struct val a, struct val b, const char *op)
{
	if (a.kind == V_ERR) {
		v_free(&b);
		return a;
	}
	if (b.kind == V_ERR) {
		v_free(&a);
		return b;
	}
	bool arith = strchr("+-*/", op[0]) != NULL;
	if (a.kind == V_CONST && b.kind == V_CONST) {
		double x = a.c, y = b.c, r;
		switch (op[0]) {
		case '+': r = x + y; break;
		case '-': r = x - y; break;
		case '*': r = x * y; break;
		case '/':
			if (y == 0)
				return v_err(xstrdup("a constant division by zero"));
			r = x / y;
			break;
		case '%': r = y ? fmod(x, y) : NAN; break;
		case '<': r = x < y; break;
		case '>': r = x > y; break;
		case '|': r = (x != 0) || (y != 0); break;
		case '&': r = (x != 0) && (y != 0); break;
		default: r = (x != 0) != (y != 0); break;   /* '^' */
		}
		if (!isfinite(r))
			return v_err(xasprintf("a constant '%s' that is not finite", op));
		return v_const(r);
	}
	if (op[0] == '/' && b.kind == V_CONST && b.c == 0) {
		v_free(&a);
		return v_err(xstrdup("a division by zero"));
	}
	if (!arith) {
		char *as = v_str(&a), *bs = v_str(&b);
		struct val e = v_err(xasprintf("'%s %s %s' compares counts: pmctop formulas have no conditions", as, op, bs));
		free(as);
		free(bs);
		v_free(&a);
		v_free(&b);
		return e;
	}
	char *as = v_str(&a), *bs = v_str(&b);
	struct val r = v_text(xasprintf("(%s %s %s)", as, op, bs));
	free(as);
	free(bs);
	v_free(&a);
	v_free(&b);
	return r;
}

static struct val parse_if(struct pp *pp);

/* The name starting at pp->p, escapes removed ("topdown\-fe\-bound" is
 * topdown-fe-bound); NULL if there is none. */
static char *read_name(struct pp *pp)
{
	char *out = xmalloc(strlen(pp->p) + 1);
	size_t n = 0;
	while (*pp->p) {
		if (*pp->p == '\\' && pp->p[1]) {
			out[n++] = pp->p[1];
			pp->p += 2;
		} else if (sym_char(*pp->p)) {
			out[n++] = *pp->p++;
		} else {
			break;
		}
	}
	out[n] = '\0';
	if (!n) {
		free(out);
		return NULL;
	}
	return out;
}

/* Arguments of a function call after its '(': up to max, into v. */
static int parse_args(struct pp *pp, struct val *v, int max)
{
	int n = 0;
	skip_ws(pp);
	if (*pp->p == ')') {
		pp->p++;
		return 0;
	}
	for (;;) {
		struct val a = parse_if(pp);
		if (n < max)
			v[n++] = a;
		else
			v_free(&a);
		skip_ws(pp);
		if (*pp->p == ',') {
			pp->p++;
			continue;
		}
		if (*pp->p == ')') {
			pp->p++;
			return n;
		}
		syntax(pp, "',' or ')' in a function's arguments");
		return n;
	}
}

/* The raw text of a function's single argument up to its ')', escapes
 * removed: has_event(NAME) and strcmp_cpuid_str(ID) take a word, not a
 * formula. */
static char *word_arg(struct pp *pp)
{
	skip_ws(pp);
	char *w = read_name(pp);
	skip_ws(pp);
	if (!w || *pp->p != ')') {
		syntax(pp, "a name and ')'");
		free(w);
		return NULL;
	}
	pp->p++;
	return w;
}

static struct val call(struct pp *pp, const char *fn)
{
	struct val a[16];
	if (!strcasecmp(fn, "has_event")) {
		char *w = word_arg(pp);
		struct val r = v_const(w && pp->env->has_event(pp->env->ctx, w) ? 1 : 0);
		free(w);
		return r;
	}
	if (!strcasecmp(fn, "strcmp_cpuid_str")) {
		char *w = word_arg(pp);
		struct val r = v_const(w ? pp->env->cpuid_is(pp->env->ctx, w) : 0);
		free(w);
		return r;
	}
	int n = parse_args(pp, a, 16);
	bool minmax = !strcasecmp(fn, "min") || !strcasecmp(fn, "max");
	struct val r;
	if (!strcasecmp(fn, "d_ratio") && n == 2) {
		/* perf gives 0 for a zero divisor; pmctop gives NaN ('-'), its rule. */
		if (a[1].kind == V_CONST && a[1].c == 0) {
			v_free(&a[0]);
			return v_const(0);
		}
		return binop(a[0], a[1], "/");
	}
	if (minmax && n >= 1) {
		bool is_min = !strcasecmp(fn, "min");
		bool all_const = true;
		for (int i = 0; i < n; i++) {
			if (a[i].kind == V_ERR) {
				r = a[i];
				a[i].s = NULL;
				for (int j = 0; j < n; j++)
					v_free(&a[j]);
				return r;
			}
			all_const &= a[i].kind == V_CONST;
		}
		if (all_const) {
			double x = a[0].c;
			for (int i = 1; i < n; i++)
				x = is_min ? fmin(x, a[i].c) : fmax(x, a[i].c);
			return v_const(x);
		}
		char *s = xstrdup(is_min ? "min(" : "max(");
		for (int i = 0; i < n; i++) {
			char *t = v_str(&a[i]);
			xappendf(&s, "%s%s", i ? ", " : "", t);
			free(t);
			v_free(&a[i]);
		}
		xappendf(&s, ")");
		return v_text(s);
	}
	for (int i = 0; i < n; i++)
		v_free(&a[i]);
	return v_err(xasprintf("function %s() with %d arguments has no pmctop equivalent", fn, n));
}

/* An event with perf's privilege modifiers (`CPU_CLK_UNHALTED.THREAD_P:k`,
 * `cpu_core@CPU_CLK_UNHALTED.THREAD_P@k`):
 * the event's pmctop name with the same modifiers, which pmctop's formulas
 * read as the event's variant (evdef_modifier.c). NULL with *why NULL when
 * name has no such suffix (the caller looks it up as it is), NULL with
 * *why when the name before it is not one event. */
static char *modified_event(struct pp *pp, const char *name, char **why)
{
	/* NAME:k, or PMU@EVENT@k (the letters right after the closing '@'). */
	const char *colon = strrchr(name, ':');
	const char *at = strrchr(name, '@');
	size_t cut;
	if (at && at[1] && at > strchr(name, '@') && (!colon || colon < at)) {
		cut = (size_t)(at + 1 - name);
		colon = at;
	} else if (colon) {
		cut = (size_t)(colon - name);
	} else {
		return NULL;
	}
	if (!colon[1] || strspn(colon + 1, "ukhGH") != strlen(colon + 1))
		return NULL;
	char *base = xstrndup(name, cut);
	/* Only an event takes modifiers; the lookup says why a name is none. */
	bool event = pp->env->has_event(pp->env->ctx, base);
	char *t = pp->env->name(pp->env->ctx, base, why);
	if (t && (!event || t[strspn(t, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.")])) {
		free(t);
		t = NULL;
	}
	char *r = t ? xasprintf("%s:%s", t, colon + 1) : NULL;
	if (!r && !*why)
		*why = xasprintf("no event '%s' to take the modifier ':%s'", base, colon + 1);
	free(t);
	free(base);
	return r;
}

static struct val primary(struct pp *pp)
{
	skip_ws(pp);
	const char *start = pp->p;
	if (isdigit((unsigned char)*start) || (*start == '.' && isdigit((unsigned char)start[1]))) {
		char *end;
		double x = strtod(start, &end);
		if (end == start || sym_char(*end)) {
			pp->p = end;
			syntax(pp, "a number");
			return v_err(xstrdup("bad number"));
		}
		pp->p = end;
		return v_const(x);
	}
	if (*start == '(') {
		pp->p++;
		struct val v = parse_if(pp);
		skip_ws(pp);
		if (*pp->p != ')')
			syntax(pp, "')'");
		else
			pp->p++;
		return v;
	}
	if (*start == '#') {
		pp->p++;
		char *lit = read_name(pp);
		if (!lit) {
			syntax(pp, "a name after '#'");
			return v_err(xstrdup("bad literal"));
		}
		char *row = pp->env->row_literal ? pp->env->row_literal(pp->env->ctx, lit) : NULL;
		if (row) {
			free(lit);
			return v_text(row);
		}
		double x;
		struct val v = pp->env->literal(pp->env->ctx, lit, &x)
				       ? v_const(x)
				       : v_err(xasprintf("#%s is not known when the model is imported", lit));
		free(lit);
		return v;
	}
	char *name = read_name(pp);
	if (!name) {
		syntax(pp, "a number, a name, '(' or '#'");
		return v_err(xstrdup("syntax"));
	}
	skip_ws(pp);
	if (*pp->p == '(') {
		pp->p++;
		struct val v = call(pp, name);
		free(name);
		return v;
	}
	if (!strcmp(name, "duration_time")) {
		free(name);
		return v_text(xstrdup("interval_s"));
	}
	char *why = NULL;
	char *t = modified_event(pp, name, &why);
	if (!t && !why)
		t = pp->env->name(pp->env->ctx, name, &why);
	free(name);
	return t ? v_text(t) : v_err(why ? why : xstrdup("unknown name"));
}

static struct val unary(struct pp *pp)
{
	skip_ws(pp);
	if (++pp->depth > PP_MAX_DEPTH) {
		syntax(pp, "a formula nested less deeply");
		pp->depth--;
		return v_err(xstrdup("depth"));
	}
	struct val v;
	if (*pp->p == '-') {
		pp->p++;
		v = binop(v_const(0), unary(pp), "-");
	} else if (*pp->p == '!') {
		pp->p++;
		struct val a = unary(pp);
		if (a.kind == V_CONST)
			v = v_const(a.c == 0);
		else if (a.kind == V_ERR)
			v = a;
		else {
			v_free(&a);
			v = v_err(xstrdup("'!' on counts: pmctop formulas have no conditions"));
		}
	} else {
		v = primary(pp);
	}
	pp->depth--;
	return v;
}

/* Binary levels, loosest first, as in perf's expr.y. */
static const char *const levels[] = { "|", "^", "&", "<>", "+-", "*/%" };

static struct val level(struct pp *pp, int l)
{
	if (l == (int)ARRAY_SIZE(levels))
		return unary(pp);
	struct val v = level(pp, l + 1);
	for (;;) {
		skip_ws(pp);
		char c = *pp->p;
		if (!c || !strchr(levels[l], c) || pp->syntax)
			return v;
		pp->p++;
		char op[2] = { c, 0 };
		v = binop(v, level(pp, l + 1), op);
	}
}

/* Whether the keyword kw (if, else) starts at p as a whole word. */
static bool keyword(const char *p, const char *kw)
{
	size_t n = strlen(kw);
	return !strncmp(p, kw, n) && !sym_char(p[n]) && p[n] != '\\';
}

/* `A if C else B`, the loosest construct. */
static struct val parse_if(struct pp *pp)
{
	struct val a = level(pp, 0);
	skip_ws(pp);
	if (!keyword(pp->p, "if"))
		return a;
	pp->p += 2;
	struct val c = level(pp, 0);
	skip_ws(pp);
	if (!keyword(pp->p, "else")) {
		syntax(pp, "'else'");
		v_free(&a);
		v_free(&c);
		return v_err(xstrdup("syntax"));
	}
	pp->p += 4;
	struct val b = parse_if(pp);
	if (c.kind == V_CONST) {
		struct val keep = c.c != 0 ? a : b;
		struct val drop = c.c != 0 ? b : a;
		v_free(&drop);
		return keep;
	}
	v_free(&a);
	v_free(&b);
	if (c.kind == V_ERR)
		return c;
	char *cs = v_str(&c);
	v_free(&c);
	struct val e = v_err(xasprintf("'if %s' depends on counts: pmctop formulas have no conditions", cs));
	free(cs);
	return e;
}

char *perf_expr_translate(const char *text, const struct perf_expr_env *env, char **why)
{
	struct pp pp = { .text = text, .p = text, .env = env };
	struct val v = parse_if(&pp);
	skip_ws(&pp);
	if (!pp.syntax && *pp.p)
		syntax(&pp, "an operator or the end of the formula");
	if (pp.syntax) {
		v_free(&v);
		if (why)
			*why = xasprintf("syntax: %s", pp.syntax);
		free(pp.syntax);
		return NULL;
	}
	if (v.kind == V_ERR) {
		if (why)
			*why = v.s;
		else
			free(v.s);
		return NULL;
	}
	char *s = v_str(&v);
	v_free(&v);
	return s;
}
