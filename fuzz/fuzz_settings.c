/* fuzz_settings.c: libFuzzer harness for pmctoprc, the dashboard's saved
 * settings (settings_load). The input is written as the file; whatever it
 * holds, loading never fails the program (a readable regular file gives 0),
 * every warning names the file and holds no control character, and what
 * was accepted survives a save and a reload unchanged. The files live in a
 * private directory removed at exit. Build: see docs/fuzzing.md. */
#include "config.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "settings.h"
#include "util.h"
#include "fuzz_tmp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool same(const struct settings *a, const struct settings *b)
{
	return a->has_interval == b->has_interval && (!a->has_interval || fabs(a->interval_s - b->interval_s) <= 1e-5 * a->interval_s) &&
	       a->has_view == b->has_view && (!a->has_view || !strcmp(a->view, b->view)) &&
	       a->has_colors == b->has_colors && a->colors == b->colors &&
	       a->has_rows == b->has_rows && a->rows == b->rows &&
	       a->has_ccx == b->has_ccx && a->show_ccx == b->show_ccx &&
	       a->has_errors == b->has_errors && a->show_errors == b->show_errors &&
	       a->has_sort == b->has_sort && (!a->has_sort || (!strcmp(a->sort, b->sort) &&
							       a->sort_reverse == b->sort_reverse));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 1 << 17)
		return 0;
	const char *dir = fuzz_tmp("pmctop-fuzz-settings");
	fuzz_write(dir, "pmctoprc", (const char *)data, size);
	char *path = xasprintf("%s/pmctoprc", dir);
	struct settings s, r;
	char *warn = NULL;
	int rc = settings_load(path, &s, &warn);
	if (size <= 64 * 1024 && rc != 0)
		abort();                        /* a readable file never fails */
	/* One warning a line, each "PATH:LINE: ..." without control bytes. */
	fuzz_check_warnings(warn, path);
	if (rc == 0) {
		char *saved = xasprintf("%s/saved/pmctoprc", dir), *cause = NULL;
		if (settings_save(saved, &s, &cause) != 0)
			abort();
		warn = NULL;
		if (settings_load(saved, &r, &warn) != 0 || warn || !same(&s, &r))
			abort();
		settings_free(&r);
		free(saved);
	}
	settings_free(&s);
	free(path);
	return 0;
}
