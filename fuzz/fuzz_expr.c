/* fuzz_expr.c: libFuzzer harness for the formula parser. Every input must
 * either fail with a column inside the text, or parse; a parsed formula must
 * resolve, evaluate, and format back to text that parses to the same text
 * again (the --list-metrics --raw round trip). Build: see docs/fuzzing.md. */
#include "config.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "expr.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every name resolves, to a small number derived from it, so that the
 * evaluator sees repeated and distinct references. */
static int resolve_any(void *ctx, const char *name)
{
	(void)ctx;
	unsigned h = 0;
	for (const char *p = name; *p; p++)
		h = h * 31 + (unsigned char)*p;
	return (int)(h % 7);
}

static double value_any(void *ctx, int ref)
{
	(void)ctx;
	static const double v[7] = { 0, 1, -2.5, 1e300, NAN, 3, -0.0 };
	return v[ref % 7];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 4096)
		return 0;
	char *text = xstrndup((const char *)data, size);
	char *cause = NULL;
	int col = 0;
	struct expr *e = expr_parse(text, &col, &cause);
	if (!e) {
		if (!cause || col < 1 || (size_t)col > strlen(text) + 1)
			abort();
		free(cause);
		free(text);
		return 0;
	}
	const char **names;
	int n = expr_names(e, &names);
	free(names);
	if (expr_resolve(e, resolve_any, NULL, &col, &cause) != 0)
		abort();
	int *ids;
	int nids = expr_ids(e, &ids);
	free(ids);
	if (nids > n)
		abort();
	(void)expr_eval(e, value_any, NULL);

	char *s1 = expr_format(e, NULL, NULL);
	struct expr *e2 = expr_parse(s1, &col, &cause);
	if (!e2)
		abort(); /* formatted text must read back */
	char *s2 = expr_format(e2, NULL, NULL);
	if (strcmp(s1, s2))
		abort();
	free(s1);
	free(s2);
	expr_free(e2);
	expr_free(e);
	free(text);
	return 0;
}
