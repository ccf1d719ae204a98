/* fuzz_evdef.c: libFuzzer harness for the definition loader. The input is
 * split at lines "===" into up to four files, model.def, 1.def, 2.def and
 * 3.def, written to a private temporary directory, so that includes are
 * exercised too; then the model is loaded. A load must either succeed, with
 * formulas that evaluate and format, or fail with a "file:line:col:" cause.
 * The directory is removed when the fuzzer exits.
 * Build: see docs/fuzzing.md. */
#include "config.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "evdef.h"
#include "expr.h"
#include "util.h"
#include "fuzz_tmp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *dir;

static double value_any(void *ctx, int ref)
{
	(void)ctx;
	return ref == BUILTIN_INTERVAL_S ? 1.0 : (double)(ref % 5);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = { "model.def", "1.def", "2.def", "3.def" };
	if (size > 65536)
		return 0;
	dir = fuzz_tmp("fuzz_evdef");
	for (int i = 0; i < 4; i++) {
		char *path = xasprintf("%s/%s", dir, names[i]);
		unlink(path);
		free(path);
	}
	const char *s = (const char *)data, *end = s + size;
	for (int part = 0; part < 4; part++) {
		const char *sep = NULL;
		for (const char *p = s; p + 5 <= end; p++)
			if (!memcmp(p, "\n===\n", 5)) {
				sep = p;
				break;
			}
		const char *stop = sep && part < 3 ? sep + 1 : end;
		fuzz_write(dir, names[part], s, (size_t)(stop - s));
		if (stop == end)
			break;
		s = sep + 5;
	}

	char *cause = NULL;
	struct model *m = model_load(dir, &cause);
	if (!m) {
		/* Every failure names a place, or the directory's model.def. */
		if (!cause || strncmp(cause, dir, strlen(dir)))
			abort();
		free(cause);
		return 0;
	}
	for (int i = 0; i < m->nmetrics; i++) {
		(void)expr_eval(m->metrics[i].expr, value_any, NULL);
		free(expr_format(m->metrics[i].expr, NULL, NULL));
	}
	model_free(m);
	return 0;
}
