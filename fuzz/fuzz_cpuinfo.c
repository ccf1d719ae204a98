/* fuzz_cpuinfo.c: libFuzzer harness for reading /proc/cpuinfo. The input
 * is written as a cpuinfo file in a private temporary directory; cpuid_read
 * must either fill in a vendor, family and model or fail with a cause that
 * names the file, and the model name it keeps must be safe to print. Then
 * cpuid_pick chooses among the real models. Build: see docs/fuzzing.md. */
#include "config.h"
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#include "cpuid.h"
#include "evdef.h"
#include "util.h"
#include "fuzz_tmp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct model_info *models;
static int nmodels = -1;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 65536)
		return 0;
	if (nmodels < 0) {
		nmodels = model_list(FUZZ_EVENTS_DIR, &models, NULL);
		if (nmodels <= 0)
			abort();
	}
	const char *dir = fuzz_tmp("fuzz_cpuinfo");
	fuzz_write(dir, "cpuinfo", (const char *)data, size);
	char *path = xasprintf("%s/cpuinfo", dir);
	struct cpu_ident id;
	char *cause = NULL;
	if (cpuid_read(path, &id, &cause) == 0) {
		if (text_bad_at(id.model_name) >= 0)
			abort();
		(void)cpuid_pick(&id, models, nmodels);
	} else if (!cause || strncmp(cause, path, strlen(path))) {
		abort();
	}
	free(cause);
	free(path);
	return 0;
}
