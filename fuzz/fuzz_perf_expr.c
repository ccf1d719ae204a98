/* fuzz_perf_expr.c: libFuzzer harness for the translator of Linux perf's
 * MetricExpr (perf_import_expr.c). Every input must either be refused with
 * a reason, or give text that pmctop's own formula parser accepts: an
 * imported metric can never stop its model from loading. Build: see
 * docs/fuzzing.md. */
#include "config.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "expr.h"
#include "perf_import.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Names keep their letters, digits, '_' and '.'; a name with anything
 * else is unknown, as an event perf's files lack would be. */
static char *name_any(void *ctx, const char *n, char **why)
{
	(void)ctx;
	if (!*n || strspn(n, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.") != strlen(n) ||
	    (n[0] >= '0' && n[0] <= '9') || n[0] == '.') {
		*why = xstrdup("no event or metric");
		return NULL;
	}
	return xstrdup(n);
}

static bool literal_any(void *ctx, const char *lit, double *v)
{
	(void)ctx;
	*v = (double)strlen(lit);
	return lit[0] != 'n';
}

static bool has_any(void *ctx, const char *n)
{
	(void)ctx;
	return strlen(n) % 2;
}

static double cpuid_any(void *ctx, const char *id)
{
	(void)ctx;
	return id[0] == '0';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 4096)
		return 0;
	char *text = xstrndup((const char *)data, size);
	struct perf_expr_env env = { NULL, name_any, literal_any, has_any, cpuid_any, NULL };
	char *why = NULL;
	char *out = perf_expr_translate(text, &env, &why);
	if (out) {
		int col = 0;
		char *cause = NULL;
		struct expr *e = expr_parse(out, &col, &cause);
		/* Only pmctop's bounds on nesting and size may refuse it
		 * (the importer then leaves the metric out, with that reason). */
		if (!e && !strstr(cause, "at most"))
			abort();     /* the translation is not a pmctop formula */
		expr_free(e);
		free(cause);
	} else if (!why) {
		abort();             /* refused without a reason */
	}
	free(out);
	free(why);
	free(text);
	return 0;
}
