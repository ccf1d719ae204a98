/* fuzz_perf_json.c: libFuzzer harness for pmctop's reader of perf's JSON
 * files (perf_import_json.c), against jansson's own reader, which it
 * replaces for speed: every input must be refused by both, with a reason
 * that names its place, or accepted by both with equal values, except
 * where pmctop's reader refuses on purpose what jansson takes (a number of
 * 64 characters or more: docs/perf-import.md, "Bounded inputs"), which
 * it must still refuse with its place. Build: see docs/fuzzing.md. */
#include "config.h"
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf_import_impl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *why = NULL;
	json_t *ours = perf_json_parse((const char *)data, size, "f.json", &why);
	/* jansson (2.14) swallows a NUL byte that follows a number ("[1\0]"
	 * is [1] to it); pmctop's reader refuses every NUL, which no JSON
	 * text has outside a string nor unescaped inside one. */
	if (memchr(data, 0, size)) {
		if (ours)
			abort();
		free(why);
		return 0;
	}
	json_t *theirs = json_loadb((const char *)data, size, 0, NULL);
	/* The documented refusal: no number in perf's files is that long. */
	bool documented = !ours && theirs && why && !strncmp(why, "f.json:", 7) && strstr(why, ": number too long");
	if (!ours != !theirs && !documented) {
		fprintf(stderr, "perf_json_parse %s what jansson %s: %s\n", ours ? "accepts" : "refuses",
			theirs ? "accepts" : "refuses", why ? why : "");
		abort();
	}
	if (ours && !json_equal(ours, theirs))
		abort();
	if (!ours && (!why || strncmp(why, "f.json:", 7)))
		abort();
	json_decref(ours);
	json_decref(theirs);
	free(why);
	return 0;
}
