/* procstat.c: /proc/stat's per-CPU lines into busy and total ns. A pure
 * function of the text, so the perf backend's CPU utilisation is unit
 * tested and fuzzed on any input (tests/check_procstat.c,
 * fuzz/fuzz_procstat.c). */
#include "config.h"
#include "procstat.h"
#include "hot_path.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

/* The figures read per line: user nice system idle iowait irq softirq
 * steal. Later ones (guest, guest_nice) are inside user and nice. */
#define PROCSTAT_FIELDS 8

/* Reads one unsigned decimal at *p (after blanks, not newlines) into *out.
 * 1 on success, 0 when the line has no more figures, -1 on anything else
 * (a sign, a letter, a number beyond 64 bits). */
static int read_figure(const char **p, uint64_t *out)
{
	const char *s = *p;
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == '\n' || *s == '\0') {
		*p = s;
		return 0;
	}
	if ((unsigned)(*s - '0') > 9)
		return -1;
	/* Up to 19 digits cannot pass 2^64: only a longer figure needs the
	 * check per digit (read every interval, for every CPU's line). */
	uint64_t v = 0;
	const char *start = s;
	for (unsigned d; (d = (unsigned)(*s - '0')) <= 9; s++) {
		if (s - start >= 19 && v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\0')
		return -1;
	*p = s;
	*out = v;
	return 1;
}

/* One "cpuN ..." line (p after "cpu", at the digits): busy and total ticks.
 * Returns the CPU number (>= 0), -2 for a line that is not a CPU's (the
 * total "cpu " line, "cpufoo"), -1 for a CPU line that is malformed. */
static long parse_cpu_line(const char *p, uint64_t *busy_ticks, uint64_t *total_ticks)
{
	if (!isdigit((unsigned char)*p))
		return -2;
	long cpu = 0;
	for (; isdigit((unsigned char)*p); p++) {
		cpu = cpu * 10 + (*p - '0');
		if (cpu > 1L << 30)
			return -1;
	}
	if (*p == '\n' || *p == '\0')
		return -1;   /* "cpu3" and nothing else */
	if (*p != ' ' && *p != '\t')
		return -2;
	uint64_t v[PROCSTAT_FIELDS] = { 0 };
	int k = 0;
	for (; k < PROCSTAT_FIELDS; k++) {
		int r = read_figure(&p, &v[k]);
		if (r < 0)
			return -1;
		if (r == 0)
			break;
	}
	if (k < 4)
		return -1;
	uint64_t total = 0;
	for (int i = 0; i < k; i++) {
		if (total > UINT64_MAX - v[i])
			return -1;
		total += v[i];
	}
	uint64_t idle = v[3] + (k > 4 ? v[4] : 0);   /* both within total: no overflow */
	*busy_ticks = total - idle;
	*total_ticks = total;
	return cpu;
}

static int refuse(uint64_t *busy, uint64_t *total, int n)
{
	for (int i = 0; i < n; i++)
		busy[i] = total[i] = PROCSTAT_NONE;
	return -1;
}

HOT_PATH int procstat_parse(const char *text, long clk_tck, uint64_t *busy, uint64_t *total, int n)
{
	for (int i = 0; i < n; i++)
		busy[i] = total[i] = PROCSTAT_NONE;
	if (clk_tck <= 0 || !text)
		return -1;
	uint64_t per_tick = 1000000000ull / (uint64_t)clk_tck;
	if (per_tick == 0)
		per_tick = 1;
	bool cpus = false;
	for (const char *line = text; *line;) {
		/* The kernel writes the CPUs' lines first, one after the other
		 * (fs/proc/stat.c); what follows them, "intr" first, holds a
		 * figure for every interrupt (kilobytes on a large machine)
		 * and is not read: the first line after them ends the text. */
		bool cpu_line = !strncmp(line, "cpu", 3);
		if (!cpu_line && cpus)
			break;
		cpus |= cpu_line;
		const char *nl = strchr(line, '\n');
		if (cpu_line) {
			uint64_t b = 0, t = 0;
			long cpu = parse_cpu_line(line + 3, &b, &t);
			/* Kept below PROCSTAT_NONE, which marks a missing CPU. */
			if (cpu == -1 || (cpu >= 0 && t > (UINT64_MAX - 1) / per_tick))
				return refuse(busy, total, n);
			if (cpu >= 0 && cpu < n) {
				busy[cpu] = b * per_tick;
				total[cpu] = t * per_tick;
			}
		}
		if (!nl)
			break;
		line = nl + 1;
	}
	return 0;
}
