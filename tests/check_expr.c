/* check_expr.c: the formula language: precedence, unary minus, functions,
 * the NaN rules (zero divisor, missing data, propagation), parse errors with
 * their columns, name resolution, expr_ids and the expr_format round trip.
 * Values are injected through the callback, so no hardware is involved. */
#include "config.h"
#include <check.h>
#include "check_run.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr.h"

/* Names a..z resolve to references 0..25; "missing" to 99 (value NaN). */
static int resolve_letters(void *ctx, const char *name)
{
	(void)ctx;
	if (!strcmp(name, "missing"))
		return 99;
	if (!strcmp(name, "ev.dotted_name"))
		return 30;
	if (strlen(name) == 1 && name[0] >= 'a' && name[0] <= 'z')
		return name[0] - 'a';
	return -1;
}

/* a=1, b=2, ..., z=26, ref 30 = 100; ref 99 is missing. */
static double value_letters(void *ctx, int ref)
{
	(void)ctx;
	if (ref == 99)
		return NAN;
	if (ref == 30)
		return 100;
	return ref + 1;
}

static double eval_text(const char *text)
{
	char *cause = NULL;
	int col = 0;
	struct expr *e = expr_parse(text, &col, &cause);
	ck_assert_msg(e != NULL, "parse '%s': %s", text, cause ? cause : "?");
	ck_assert_int_eq(expr_resolve(e, resolve_letters, NULL, &col, &cause), 0);
	double v = expr_eval(e, value_letters, NULL);
	expr_free(e);
	return v;
}

static const struct { const char *text; double want; int line; } value_cases[] = {
	{ "1 + 2 * 3", 7, __LINE__ },
	{ "(1 + 2) * 3", 9, __LINE__ },
	{ "10 - 4 - 3", 3, __LINE__ },           /* left associative */
	{ "64 / 4 / 2", 8, __LINE__ },
	{ "10 - (4 - 3)", 9, __LINE__ },
	{ "-2 * 3", -6, __LINE__ },
	{ "2 * -3", -6, __LINE__ },
	{ "- -4", 4, __LINE__ },
	{ "-(1 + 2) * 2", -6, __LINE__ },
	{ "1 - -1", 2, __LINE__ },
	{ "0x40", 64, __LINE__ },
	{ "0X1f + 1", 32, __LINE__ },
	{ "1e9 / 1e3", 1e6, __LINE__ },
	{ "2.5e-1", 0.25, __LINE__ },
	{ "0.5 + .25", 0.75, __LINE__ },
	{ "a + b * c", 7, __LINE__ },
	{ "z / b", 13, __LINE__ },
	{ "ev.dotted_name / 4", 25, __LINE__ },
	{ "min(c, a, b)", 1, __LINE__ },
	{ "max(c, a, b)", 3, __LINE__ },
	{ "max(1)", 1, __LINE__ },
	{ "abs(a - c)", 2, __LINE__ },
	{ "abs(-0.5)", 0.5, __LINE__ },
	{ "min(max(a, b), c) * 2", 4, __LINE__ },
	{ "8 * d - (h - 2 * c) ", 30, __LINE__ },
	{ "\t a\t+ b ", 3, __LINE__ },
};

START_TEST(test_values)
{
	double v = eval_text(value_cases[_i].text);
	ck_assert_msg(fabs(v - value_cases[_i].want) < 1e-9, "line %d: '%s' = %g, want %g",
		      value_cases[_i].line, value_cases[_i].text, v, value_cases[_i].want);
}
END_TEST

static const struct { const char *text; int line; } nan_cases[] = {
	{ "a / 0", __LINE__ },
	{ "a / (b - b)", __LINE__ },
	{ "0 / 0", __LINE__ },
	{ "missing", __LINE__ },
	{ "missing * 0", __LINE__ },          /* no made-up 0 from missing data */
	{ "1 + missing", __LINE__ },
	{ "-missing", __LINE__ },
	{ "abs(missing)", __LINE__ },
	{ "min(a, missing)", __LINE__ },      /* NaN propagates through min/max */
	{ "max(missing, a)", __LINE__ },
	{ "max(a, b / 0, c)", __LINE__ },
	{ "(a / 0) * 0", __LINE__ },
	{ "a / missing", __LINE__ },
};

START_TEST(test_nan)
{
	double v = eval_text(nan_cases[_i].text);
	ck_assert_msg(isnan(v), "line %d: '%s' = %g, want NaN", nan_cases[_i].line, nan_cases[_i].text, v);
}
END_TEST

static const struct { const char *text; int col; const char *cause; int line; } error_cases[] = {
	{ "", 1, "col 1: expected a number, a name or '(' but found end of formula", __LINE__ },
	{ "a +", 4, "col 4: expected a number, a name or '(' but found end of formula", __LINE__ },
	{ "(a + b", 7, "col 7: expected ')' but found end of formula", __LINE__ },
	{ "a b", 3, "col 3: expected an operator or the end of the formula but found 'b'", __LINE__ },
	{ "a + )", 5, "col 5: expected a number, a name or '(' but found ')'", __LINE__ },
	{ "a ^ 2", 3, "col 3: expected an operator or the end of the formula but found '^'", __LINE__ },
	{ "foo(a)", 1, "col 1: expected min, max or abs but found unknown function 'foo'", __LINE__ },
	{ "min(a b)", 7, "col 7: expected ',' or ')' in the arguments of min() but found 'b'", __LINE__ },
	{ "abs(a, b)", 6, "col 6: expected ')' after the one argument of abs() but found ','", __LINE__ },
	{ "max()", 5, "col 5: expected a number, a name or '(' but found ')'", __LINE__ },
	{ "0x", 3, "col 3: expected hex digits after '0x' but found end of formula", __LINE__ },
	{ "1e+", 4, "col 4: expected digits in the exponent but found end of formula", __LINE__ },
	{ "12abc", 3, "col 3: expected an operator after a number but found 'abc'", __LINE__ },
	{ "a / (b * (c)", 13, "col 13: expected ')' but found end of formula", __LINE__ },
	{ "a $ b", 3, "col 3: expected an operator or the end of the formula but found '$'", __LINE__ },
};

START_TEST(test_errors)
{
	char *cause = NULL;
	int col = -1;
	struct expr *e = expr_parse(error_cases[_i].text, &col, &cause);
	ck_assert_msg(e == NULL, "line %d: '%s' parsed", error_cases[_i].line, error_cases[_i].text);
	ck_assert_msg(cause && !strcmp(cause, error_cases[_i].cause), "line %d: cause '%s', want '%s'",
		      error_cases[_i].line, cause ? cause : "(null)", error_cases[_i].cause);
	ck_assert_int_eq(col, error_cases[_i].col);
	free(cause);
}
END_TEST

START_TEST(test_deep_nesting_refused)
{
	/* Far deeper than any formula, as a fuzzer would write: refused with a
	 * message, never a stack overflow. */
	char *text = malloc(20001);
	memset(text, '(', 10000);
	memset(text + 10000, ')', 10000);
	text[10000] = 'a';
	text[20000] = 0;
	char *cause = NULL;
	int col = 0;
	ck_assert_ptr_null(expr_parse(text, &col, &cause));
	ck_assert_ptr_nonnull(strstr(cause, "levels of nesting"));
	free(cause);
	free(text);

	/* A long flat chain builds a deep tree too. */
	size_t n = 5000;
	text = malloc(n * 4 + 2);
	char *p = text;
	for (size_t i = 0; i < n; i++)
		p += sprintf(p, "a + ");
	strcpy(p, "a");
	cause = NULL;
	ck_assert_ptr_null(expr_parse(text, &col, &cause));
	ck_assert_ptr_nonnull(strstr(cause, "operators"));
	free(cause);
	free(text);
}
END_TEST

START_TEST(test_format_within_nesting_limit)
{
	/* Found by fuzz_expr: 103 unary minuses parsed, but were formatted as
	 * -(-(-(...))), which nests twice as deep and no longer parsed. */
	char text[256];
	memset(text, '-', 150);
	strcpy(text + 150, "(a + b)");
	char *cause = NULL;
	int col;
	struct expr *e = expr_parse(text, &col, &cause);
	ck_assert_msg(e != NULL, "%s", cause ? cause : "");
	char *s = expr_format(e, NULL, NULL);
	ck_assert_str_eq(s, text);
	struct expr *e2 = expr_parse(s, &col, &cause);
	ck_assert_msg(e2 != NULL, "%s", cause ? cause : "");
	ck_assert_int_eq(expr_resolve(e2, resolve_letters, NULL, &col, &cause), 0);
	ck_assert_double_eq(expr_eval(e2, value_letters, NULL), 3); /* an even number of minuses */
	free(s);
	expr_free(e);
	expr_free(e2);
}
END_TEST

START_TEST(test_names_and_resolve)
{
	char *cause = NULL;
	int col = 0;
	struct expr *e = expr_parse("b / (a + b) + min(c, a) * interval_s", &col, &cause);
	ck_assert_ptr_nonnull(e);
	const char **names;
	int n = expr_names(e, &names);
	ck_assert_int_eq(n, 4);
	ck_assert_str_eq(names[0], "b");
	ck_assert_str_eq(names[1], "a");
	ck_assert_str_eq(names[2], "c");
	ck_assert_str_eq(names[3], "interval_s");
	free(names);

	/* interval_s is unknown to this resolver: name and column reported. */
	ck_assert_int_eq(expr_resolve(e, resolve_letters, NULL, &col, &cause), -1);
	ck_assert_str_eq(cause, "unknown name 'interval_s'");
	ck_assert_int_eq(col, 27);
	free(cause);
	expr_free(e);
}
END_TEST

START_TEST(test_ids)
{
	char *cause = NULL;
	int col = 0;
	struct expr *e = expr_parse("c * (a + c) / max(a, d, 2)", &col, &cause);
	ck_assert_ptr_nonnull(e);
	int *ids;
	/* Before resolution there are no references. */
	ck_assert_int_eq(expr_ids(e, &ids), 0);
	free(ids);
	ck_assert_int_eq(expr_resolve(e, resolve_letters, NULL, &col, &cause), 0);
	int n = expr_ids(e, &ids);
	ck_assert_int_eq(n, 3);
	ck_assert_int_eq(ids[0], 2);
	ck_assert_int_eq(ids[1], 0);
	ck_assert_int_eq(ids[2], 3);
	free(ids);
	expr_free(e);
}
END_TEST

static const char *rename_upper(void *ctx, int ref, const char *name)
{
	static char buf[64];
	(void)ctx;
	if (ref == 0)
		return NULL; /* keep the name */
	snprintf(buf, sizeof(buf), "Event[0x%X]", (unsigned)ref * 0x100 + (unsigned)name[0]);
	return buf;
}

static const struct { const char *text; const char *want; int line; } format_cases[] = {
	{ "a+b*c", "a + b * c", __LINE__ },
	{ "(a+b)*c", "(a + b) * c", __LINE__ },
	{ "a-(b-c)", "a - (b - c)", __LINE__ },
	{ "(a-b)-c", "a - b - c", __LINE__ },
	{ "a/(b*c)", "a / (b * c)", __LINE__ },
	{ "a/b*c", "a / b * c", __LINE__ },
	{ "-(a+b)", "-(a + b)", __LINE__ },
	{ "- -a", "--a", __LINE__ },
	{ "-(-(a - b))", "--(a - b)", __LINE__ },
	{ "-a*b", "-a * b", __LINE__ },
	{ "min( a,b , 0x40)", "min(a, b, 0x40)", __LINE__ },
	{ "abs((a))", "abs(a)", __LINE__ },
	{ "1e9*a/interval_s", "1e9 * a / interval_s", __LINE__ },
	{ "8 * d - (h - 2 * c)", "8 * d - (h - 2 * c)", __LINE__ },
};

START_TEST(test_format_round_trip)
{
	char *cause = NULL;
	int col;
	struct expr *e = expr_parse(format_cases[_i].text, &col, &cause);
	ck_assert_ptr_nonnull(e);
	char *s = expr_format(e, NULL, NULL);
	ck_assert_msg(!strcmp(s, format_cases[_i].want), "line %d: '%s' formatted '%s', want '%s'",
		      format_cases[_i].line, format_cases[_i].text, s, format_cases[_i].want);
	/* Reading the text back gives the same text again. */
	struct expr *e2 = expr_parse(s, &col, &cause);
	ck_assert_ptr_nonnull(e2);
	char *s2 = expr_format(e2, NULL, NULL);
	ck_assert_str_eq(s, s2);
	free(s);
	free(s2);
	expr_free(e);
	expr_free(e2);
}
END_TEST

START_TEST(test_format_rename)
{
	char *cause = NULL;
	int col;
	struct expr *e = expr_parse("c / a + b", &col, &cause);
	ck_assert_int_eq(expr_resolve(e, resolve_letters, NULL, &col, &cause), 0);
	char *s = expr_format(e, rename_upper, NULL);
	ck_assert_str_eq(s, "Event[0x263] / a + Event[0x162]");
	free(s);
	expr_free(e);
}
END_TEST

static Suite *expr_suite(void)
{
	Suite *s = suite_create("expr");
	TCase *tc = tcase_create("core");
	tcase_add_loop_test(tc, test_values, 0, (int)(sizeof(value_cases) / sizeof(value_cases[0])));
	tcase_add_loop_test(tc, test_nan, 0, (int)(sizeof(nan_cases) / sizeof(nan_cases[0])));
	tcase_add_loop_test(tc, test_errors, 0, (int)(sizeof(error_cases) / sizeof(error_cases[0])));
	tcase_add_test(tc, test_deep_nesting_refused);
	tcase_add_test(tc, test_format_within_nesting_limit);
	tcase_add_test(tc, test_names_and_resolve);
	tcase_add_test(tc, test_ids);
	tcase_add_loop_test(tc, test_format_round_trip, 0, (int)(sizeof(format_cases) / sizeof(format_cases[0])));
	tcase_add_test(tc, test_format_rename);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(expr_suite());
}
