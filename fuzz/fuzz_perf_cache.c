/* fuzz_perf_cache.c: libFuzzer harness for the model cache's reader
 * (perf_cache_codec.c). The input is taken as the body of a cache file,
 * past the header and checksum that no fuzzer could forge; what decodes
 * is built by evdef as a cached model would be, and must give a model or
 * an error, never a crash. Build: see docs/fuzzing.md. */
#include "config.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "evdef.h"
#include "evdef_impl.h"
#include "perf_cache.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The reader writes NULs into its block, as into the file it read. */
	char *block = xmalloc(size + 1);
	memcpy(block, data, size);
	block[size] = 0;
	struct def_set set;
	struct perf_cache_input *in;
	int nin;
	char *dir, *skipped, *why = NULL;
	if (perf_cache_decode_body(block, 0, size, "id", &in, &nin, &set, &dir, &skipped, &why) < 0) {
		if (!why)
			abort();
		free(why);
		free(block);
		return 0;
	}
	struct model *m = evdef_build_set(&set, dir, &why);
	if (!m && !why)
		abort();
	model_free(m);
	free(why);
	perf_cache_inputs_free(in, nin);
	defset_free(&set);   /* and block, its pool */
	free(dir);
	free(skipped);
	return 0;
}
