/* fuzz_procstat.c: libFuzzer harness for /proc/stat's per-CPU lines
 * (procstat_parse, what the perf backend reads CPU utilisation with). The
 * first byte picks the clock rate (USER_HZ) and the number of CPUs the
 * caller has room for; the rest is the file. An accepted text gives, for
 * every CPU, either no figures at all or busy <= total below the "none"
 * mark; a refused one leaves every CPU without figures. Build: see
 * docs/fuzzing.md. */
#include "config.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "procstat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 1 << 20)
		return 0;
	static const long hz[] = { 100, 250, 1000, 1, 1000000000, 3 };
	long clk_tck = hz[data[0] % 6];
	int n = 1 + (data[0] >> 3);        /* 1..32 CPUs */
	char *text = malloc(size);
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	uint64_t *busy = malloc(sizeof(uint64_t) * (size_t)n), *total = malloc(sizeof(uint64_t) * (size_t)n);
	int rc = procstat_parse(text, clk_tck, busy, total, n);
	if (rc != 0 && rc != -1)
		abort();
	for (int i = 0; i < n; i++) {
		if ((busy[i] == PROCSTAT_NONE) != (total[i] == PROCSTAT_NONE))
			abort();
		if (total[i] != PROCSTAT_NONE && (rc != 0 || busy[i] > total[i]))
			abort();
	}
	free(busy);
	free(total);
	free(text);
	return 0;
}
